//! Repair of the two 68020+ constructs that LLVM's M68k backend emits into
//! "68000" code, in the linked image, with the [`relayout`] engine:
//!
//! * `move.w %sr,%dN` (privileged from the 68010 on) → a user-mode 68000
//!   sequence that builds the CCR (X N Z V C in bits 4..0, bits 15..5 zero)
//!   in the low word of `%dN`, leaves the upper word of `%dN` and every flag
//!   (X included) as they were:
//!
//!   ```text
//!   scs -(%sp) ; svs -(%sp) ; seq -(%sp) ; smi -(%sp)   | Scc leaves the CCR alone
//!   clr.w %dN ; addx.w %dN,%dN                          | CLR keeps X: dN.w = X
//!   lsl.w #4,%dN
//!   tst.b (%sp)+ ; beq.s 1f ; ori.w #8,%dN ; 1:         | N, then Z (4), V (2), C (1)
//!   …
//!   move.w %dN,%ccr                                     | all five flags back
//!   ```
//!
//! * `mulu.l`/`muls.l <src>,%dl` (68020+), 32-bit result form, `src` a data
//!   register or an immediate → a call of the 68000 helper in
//!   `stub/mul32.S`:
//!
//!   ```text
//!   move.l <src>,-(%sp) ; move.l %dl,-(%sp)
//!   jsr (__ferrite_mulu32).l        | or __ferrite_muls32
//!   move.l (%sp)+,%dl ; move.w (%sp)+,%ccr ; lea 2(%sp),%sp
//!   ```
//!
//!   The helper leaves the product in the `dl` slot and the CCR MULU.L/MULS.L
//!   would produce in the first word of the `src` slot.
//!
//! Other forms (a memory source, the 64-bit result forms, `move.w %sr` to
//! memory) are left and reported.

use std::collections::BTreeMap;
use std::fmt;

use super::relayout::{Edit, LinkedImage, Piece, Relaid, RelayoutError, clean_sweep, relayout};

/// Which construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Construct68000 {
    /// `move.w %sr,<ea>`.
    MoveFromSr,
    /// `mulu.l`/`muls.l` (any form).
    MulLong,
}

/// One construct left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Left68000 {
    /// Old (as linked) address.
    pub addr: u32,
    /// Which construct.
    pub kind: Construct68000,
    /// Instruction text.
    pub text: String,
    /// Why.
    pub why: String,
}

/// What [`repair_68000`] did.  Addresses are old (as linked).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Repair68000Report {
    /// Repaired `move.w %sr,%dN`.
    pub sr_repaired: Vec<u32>,
    /// Repaired `mulu.l`/`muls.l`.
    pub mul_repaired: Vec<u32>,
    /// Constructs left alone.
    pub left: Vec<Left68000>,
    /// Text growth in bytes (including the `nop` padding).
    pub growth: u32,
}

impl Repair68000Report {
    /// Left constructs of one kind.
    pub fn left_of(&self, kind: Construct68000) -> usize {
        self.left.iter().filter(|l| l.kind == kind).count()
    }
}

impl fmt::Display for Repair68000Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "move from SR: {} repaired, {} left; mulu.l/muls.l: {} repaired, {} left; \
             text grew by {} bytes",
            self.sr_repaired.len(),
            self.left_of(Construct68000::MoveFromSr),
            self.mul_repaired.len(),
            self.left_of(Construct68000::MulLong),
            self.growth
        )?;
        for l in &self.left {
            writeln!(f, "{:#010x}: `{}`: not repaired: {}", l.addr, l.text, l.why)?;
        }
        Ok(())
    }
}

fn words(ws: &[u16]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// The replacement of `move.w %sr,%dN`.
pub fn move_from_sr_sequence(n: u16) -> Vec<u8> {
    let n = n & 7;
    let mut w = vec![
        0x55E7,                // scs -(%sp)
        0x59E7,                // svs -(%sp)
        0x57E7,                // seq -(%sp)
        0x5BE7,                // smi -(%sp)
        0x4240 | n,            // clr.w %dN
        0xD140 | (n << 9) | n, // addx.w %dN,%dN
        0xE948 | n,            // lsl.w #4,%dN
    ];
    for bit in [8u16, 4, 2, 1] {
        // tst.b (%sp)+ ; beq.s .+6 ; ori.w #bit,%dN
        w.extend([0x4A1F, 0x6704, 0x0040 | n, bit]);
    }
    w.push(0x44C0 | n); // move.w %dN,%ccr
    words(&w)
}

/// The replacement of `mul[us].l <src>,%dl` (`src` = `Some(n)` for `%dn`,
/// `None` for the immediate `imm`), calling the helper at `helper`.
/// Returns the bytes and the offset of the `jsr` operand.
pub fn mul_call_sequence(src: Option<u16>, imm: u32, dl: u16, helper: u32) -> (Vec<u8>, u32) {
    let dl = dl & 7;
    let mut b = match src {
        Some(n) => words(&[0x2F00 | (n & 7)]), // move.l %dn,-(%sp)
        None => {
            let mut v = words(&[0x2F3C]); // move.l #imm,-(%sp)
            v.extend(imm.to_be_bytes());
            v
        }
    };
    b.extend(words(&[0x2F00 | dl, 0x4EB9])); // move.l %dl,-(%sp) ; jsr (xxx).l
    let at = b.len() as u32;
    b.extend(helper.to_be_bytes());
    b.extend(words(&[
        0x201F | (dl << 9), // move.l (%sp)+,%dl
        0x44DF,             // move.w (%sp)+,%ccr
        0x4FEF,             // lea 2(%sp),%sp
        0x0002,
    ]));
    (b, at)
}

/// Repairs `move.w %sr,%dN` and, if the helpers' (link-time) addresses are
/// given as `(mulu, muls)`, the 32-bit `mulu.l`/`muls.l` with a data-register
/// or immediate source (see the module docs).  `functions` are decoding
/// restart points.  Returns the relaid image (its [`Relaid::map`] maps old
/// addresses) and the report.
pub fn repair_68000(
    img: LinkedImage<'_>,
    helpers: Option<(u32, u32)>,
) -> Result<(Relaid, Repair68000Report), RelayoutError> {
    let LinkedImage {
        image,
        base,
        code_len,
        abs32,
        functions,
        ..
    } = img;
    let code = &image[..code_len as usize];
    let insns = clean_sweep(code, base, functions)?;
    let mut report = Repair68000Report::default();
    let mut edits = Vec::new();
    let text_end = base.wrapping_add(code_len);
    let relocs_in = |a: u32, len: usize| {
        abs32
            .iter()
            .any(|&r| r + 4 > a - base && r < a - base + len as u32)
    };
    let mut left = BTreeMap::new();
    for insn in &insns {
        let w0 = insn.words[0];
        if w0 & 0xFFC0 == 0x40C0 {
            let kind = Construct68000::MoveFromSr;
            if w0 & 0x38 != 0 {
                left.insert(
                    insn.addr,
                    (
                        kind,
                        insn.text.clone(),
                        "destination is not a data register".to_string(),
                    ),
                );
                continue;
            }
            edits.push(Edit {
                offset: insn.addr - base,
                len: insn.len as u32,
                with: vec![Piece::Bytes(move_from_sr_sequence(w0 & 7))],
            });
            report.sr_repaired.push(insn.addr);
        } else if w0 & 0xFFC0 == 0x4C00 && insn.words.len() >= 2 && insn.words[1] & 0x8000 == 0 {
            let kind = Construct68000::MulLong;
            let ext = insn.words[1];
            let signed = ext & 0x0800 != 0;
            let dl = (ext >> 12) & 7;
            let (mode, reg) = ((w0 >> 3) & 7, w0 & 7);
            let mut why = None;
            if ext & 0x0400 != 0 {
                why = Some("64-bit result form".to_string());
            }
            let src = match (mode, reg) {
                (0, n) => Some(Some(n)),
                (7, 4) if insn.len == 8 => Some(None),
                _ => None,
            };
            if src.is_none() && why.is_none() {
                why = Some("source is not a data register or an immediate".into());
            }
            let Some((mulu, muls)) = helpers else {
                why.get_or_insert_with(|| "no multiply helpers linked in".into());
                left.insert(insn.addr, (kind, insn.text.clone(), why.unwrap()));
                continue;
            };
            if let Some(why) = why {
                left.insert(insn.addr, (kind, insn.text.clone(), why));
                continue;
            }
            let helper = if signed { muls } else { mulu };
            if helper < base || helper >= text_end {
                return Err(RelayoutError::BadEdit(format!(
                    "multiply helper {helper:#x} is not in the text"
                )));
            }
            // A relocated immediate (an address) stays relocated: it becomes
            // the operand of `move.l #imm,-(%sp)` at offset 2.
            let imm_reloc = abs32.contains(&(insn.addr - base + 4));
            if !imm_reloc && relocs_in(insn.addr, insn.len) {
                left.insert(
                    insn.addr,
                    (kind, insn.text.clone(), "odd relocation".into()),
                );
                continue;
            }
            let imm = if insn.len == 8 {
                (u32::from(insn.words[2]) << 16) | u32::from(insn.words[3])
            } else {
                0
            };
            let (bytes, at) = mul_call_sequence(src.unwrap(), imm, dl, helper);
            let mut abs = vec![at];
            if imm_reloc {
                abs.insert(0, 2);
            }
            edits.push(Edit {
                offset: insn.addr - base,
                len: insn.len as u32,
                with: vec![Piece::BytesAbs { bytes, abs }],
            });
            report.mul_repaired.push(insn.addr);
        }
    }
    report.left = left
        .into_iter()
        .map(|(addr, (kind, text, why))| Left68000 {
            addr,
            kind,
            text,
            why,
        })
        .collect();
    let relaid = relayout(img, &edits)?;
    report.growth = relaid.code_len - code_len;
    Ok((relaid, report))
}
