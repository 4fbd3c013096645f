//! The 68000 legalizer: rewrites the 68020-only long branches that LLVM emits
//! even for `cpu = M68000` into 68000 instructions of the same length.
//!
//! * `bra.l`/`bsr.l`/`bcc.l` whose displacement fits in 16 bits become the
//!   `.w` form followed by `nop` (0x4E71).  Both forms take the displacement
//!   relative to the opcode address + 2, so the displacement value is kept.
//! * Otherwise `bra.l` becomes `jmp (xxx).l` and `bsr.l` becomes `jsr (xxx).l`
//!   (also 6 bytes, and `jsr` pushes the same return address).  The new 32-bit
//!   absolute operand must be relocated by the loader: its offset is reported.
//! * A `bcc.l` that does not fit cannot be rewritten in place: an error.
//!
//! Nothing else is changed; whatever else the CPU lacks is left for the verifier.

use std::fmt;

use super::decode::{BranchSize, Cpu, Kind};
use super::verify::sweep;

/// `nop`.
const NOP: u16 = 0x4E71;
/// `jmp (xxx).l`.
const JMP_ABS_L: u16 = 0x4EF9;
/// `jsr (xxx).l`.
const JSR_ABS_L: u16 = 0x4EB9;

/// What a [`Rewrite`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RewriteKind {
    /// `bxx.l` → `bxx.w` + `nop`.
    WordAndNop,
    /// `bra.l` → `jmp (xxx).l`.
    BraToJmp,
    /// `bsr.l` → `jsr (xxx).l`.
    BsrToJsr,
}

/// One rewritten instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    /// Address of the instruction (as linked).
    pub addr: u32,
    /// Offset of the instruction in the text.
    pub offset: usize,
    /// Instruction text before.
    pub before: String,
    /// Instruction text after.
    pub after: String,
    /// Kind of rewrite.
    pub kind: RewriteKind,
    /// For `jmp`/`jsr` absolute: offset in the text of the new 32-bit
    /// absolute address, which needs an `R_68K_32`-style relocation.
    pub reloc_offset: Option<usize>,
}

impl fmt::Display for Rewrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:#010x}: `{}` -> `{}`",
            self.addr, self.before, self.after
        )?;
        if let Some(r) = self.reloc_offset {
            write!(f, " (new relocation at text offset {r:#x})")?;
        }
        Ok(())
    }
}

/// What [`legalize`] changed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LegalizeReport {
    /// Every rewrite, in address order.
    pub rewrites: Vec<Rewrite>,
    /// Link-time addresses (`text_addr` + offset) of the new 32-bit absolute
    /// operands of `jmp`/`jsr (xxx).l`: each needs an entry in the relocation
    /// table, like an `R_68K_32` relocation.
    pub new_abs32: Vec<u32>,
}

impl LegalizeReport {
    /// Number of rewritten instructions.
    pub fn rewritten(&self) -> usize {
        self.rewrites.len()
    }

    /// Number of `.l` → `.w` + `nop` rewrites.
    pub fn word_rewrites(&self) -> usize {
        self.rewrites
            .iter()
            .filter(|r| r.kind == RewriteKind::WordAndNop)
            .count()
    }

    /// Number of rewrites to `jmp`/`jsr (xxx).l`.
    pub fn absolute_rewrites(&self) -> usize {
        self.rewrites.len() - self.word_rewrites()
    }
}

impl fmt::Display for LegalizeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} long branch(es) rewritten: {} to .w+nop, {} to jmp/jsr absolute",
            self.rewrites.len(),
            self.word_rewrites(),
            self.absolute_rewrites()
        )?;
        for r in &self.rewrites {
            writeln!(f, "{r}")?;
        }
        Ok(())
    }
}

/// Why [`legalize`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LegalizeError {
    /// A conditional long branch whose displacement does not fit in 16 bits.
    #[error(
        "{addr:#010x}: `{text}`: conditional branch to {target:#x} does not fit a 16-bit \
         displacement and cannot be rewritten in place for the 68000"
    )]
    BccOutOfRange {
        /// Address of the branch.
        addr: u32,
        /// Its text.
        text: String,
        /// Its target.
        target: u32,
    },
}

fn put16(text: &mut [u8], off: usize, v: u16) {
    text[off..off + 2].copy_from_slice(&v.to_be_bytes());
}

fn put32(text: &mut [u8], off: usize, v: u32) {
    text[off..off + 4].copy_from_slice(&v.to_be_bytes());
}

/// Rewrites the long branches in `text` (linked at `text_addr`) for `cpu`.
///
/// For a 68020 or newer target nothing needs doing and the report is empty.
/// `text` must hold only code: it is decoded by linear sweep from its start
/// (undecodable words are skipped and left for the verifier to report).  On
/// error `text` may be partly rewritten.
pub fn legalize(
    text: &mut [u8],
    text_addr: u32,
    cpu: Cpu,
) -> Result<LegalizeReport, LegalizeError> {
    let mut report = LegalizeReport::default();
    if cpu >= Cpu::M68020 {
        return Ok(report);
    }
    let insns = sweep(text, text_addr, &[]).insns;
    for insn in insns {
        let (cond_bits, is_bra, is_bsr) = match insn.kind {
            Kind::Bra(BranchSize::Long) => (0x0, true, false),
            Kind::Bsr(BranchSize::Long) => (0x1, false, true),
            Kind::Bcc(c, BranchSize::Long) => (c.bits(), false, false),
            _ => continue,
        };
        let target = insn.flow.target.expect("branches have targets");
        let off = insn.addr.wrapping_sub(text_addr) as usize;
        let disp = target.wrapping_sub(insn.addr.wrapping_add(2)) as i32;
        let (kind, after, reloc_offset) = if let Ok(d16) = i16::try_from(disp) {
            put16(text, off, 0x6000 | cond_bits << 8);
            put16(text, off + 2, d16 as u16);
            put16(text, off + 4, NOP);
            let after = insn.text.replacen(".l ", ".w ", 1) + "; nop";
            (RewriteKind::WordAndNop, after, None)
        } else if is_bra || is_bsr {
            let (op, name, kind) = if is_bra {
                (JMP_ABS_L, "jmp", RewriteKind::BraToJmp)
            } else {
                (JSR_ABS_L, "jsr", RewriteKind::BsrToJsr)
            };
            put16(text, off, op);
            put32(text, off + 2, target);
            (kind, format!("{name} ({target:#x}).l"), Some(off + 2))
        } else {
            return Err(LegalizeError::BccOutOfRange {
                addr: insn.addr,
                text: insn.text,
                target,
            });
        };
        report
            .new_abs32
            .extend(reloc_offset.map(|r| text_addr.wrapping_add(r as u32)));
        report.rewrites.push(Rewrite {
            addr: insn.addr,
            offset: off,
            before: insn.text,
            after,
            kind,
            reloc_offset,
        });
    }
    Ok(report)
}
