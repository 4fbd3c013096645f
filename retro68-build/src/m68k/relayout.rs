//! Post-link relayout of a linked m68k image, and the flag-hazard repair built
//! on it.
//!
//! [`relayout`] applies [`Edit`]s (replacements and insertions at instruction
//! boundaries of `.text`) to a linked image and fixes up everything that the
//! growth moves: every PC-relative displacement in the code (Bcc/BRA/BSR of all
//! sizes, DBcc, `(d16,%pc)` and brief-format `(d8,%pc,Xn)` operands), short
//! branches that no longer reach (widened to `.w`, iterated to a fixed point),
//! the data sections (moved by the text growth rounded up to 4, the text
//! padded with `nop`), every 32-bit absolute relocated value that points into
//! the image and the relocation offsets themselves.  [`Relaid::map`] gives the
//! new address of any old address (symbols, exports).
//!
//! [`repair_flag_hazards`] uses it to repair the LLVM M68k miscompile that the
//! verifier reports as [`Rule::FlagHazard`](super::Rule::FlagHazard): a
//! MOVE/MOVEQ/CLR `M` scheduled between a flag producer and the conditional
//! `C` that reads the producer's flags.  Since `C` reads no register or memory
//! it is executed before `M`:
//!
//! * `M ; Bcc T`  →  `Bcc T' ; M` and, after the function, `T': M ; bra T`;
//! * `M ; DBcc Dn,T` → the same, if `M` does not mention `Dn`;
//! * `M ; Scc <ea>` → `Scc <ea> ; M`, if the two share no register and not
//!   both access memory.
//!
//! * `move %dA,%dB ; Scc %dA` (the Scc overwrites the copy's source) →
//!   `Scc %dB ; exg %dA,%dB` (see [`scc_exg`]);
//! * at a join (`Bcc L ; … ; M ; L: Scc …`, the copy of a `select` on the
//!   fall-through path only, the flags the branch tested read after `L`): on
//!   the fall-through path the run of Scc (and flag-neutral instructions,
//!   optionally ending with a Bcc) from `L` is copied before `M`, followed by
//!   a `bra` past the run (see [`join_repair`]); the branch path is unchanged.
//!
//! On both paths `M` still runs last, so registers, memory and the flags
//! afterwards are as before; only the branch decision uses the producer's
//! flags, as LLVM intended.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::decode::{BranchSize, FlagClass, Insn, Kind, decode};
use super::verify::{Symbol, hazards, sweep};

/// `nop`.
const NOP: u16 = 0x4E71;

/// Where a new branch goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// An old (as linked) address of an instruction in `.text`.
    Old(u32),
    /// A [`Piece::Label`] defined in some edit.
    Label(u32),
}

/// One element of the code an [`Edit`] puts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// The old instruction at this (old) address, moved here.  Old references
    /// to that address follow it (unless the instruction is also kept or moved
    /// elsewhere first).  Its PC-relative operand and relocations are fixed up.
    Insn(u32),
    /// A copy of the old instruction at this address: references to the
    /// address do not follow it; its PC-relative operand is re-encoded for the
    /// new place and its absolute relocations are duplicated.
    Copy(u32),
    /// Position-independent bytes (no PC-relative field, no relocation).
    Bytes(Vec<u8>),
    /// Bytes with 32-bit absolute fields (e.g. the operand of `jsr (xxx).l`)
    /// at the given byte offsets: each field holds an old (as linked) address,
    /// which is mapped to its new address like any relocated value, and its
    /// new offset is added to [`Relaid::abs32`].
    BytesAbs {
        /// The bytes (even length).
        bytes: Vec<u8>,
        /// Byte offsets in `bytes` of the 32-bit absolute fields.
        abs: Vec<u32>,
    },
    /// `Bcc`/`BRA`/`BSR` (`cond` bits 11–8: 0 = BRA, 1 = BSR); the size is
    /// chosen by the engine (`.s` if it reaches, otherwise `.w`).
    Branch {
        /// Condition field (0 = BRA, 1 = BSR, 2..15 = Bcc).
        cond: u16,
        /// Destination.
        target: Target,
    },
    /// `DBcc %dN,target` (16-bit displacement).
    DBcc {
        /// Condition field.
        cond: u16,
        /// Counter register number.
        reg: u16,
        /// Destination.
        target: Target,
    },
    /// Defines a label at this position.
    Label(u32),
}

/// A change to `.text`, at an instruction boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Old text offset (an instruction start, or the end of the text).
    pub offset: u32,
    /// Old bytes replaced (whole instructions); 0 for a pure insertion.
    /// References to `offset` go to the start of a replacement, and past an
    /// insertion.
    pub len: u32,
    /// What goes there.
    pub with: Vec<Piece>,
}

/// A linked image as [`relayout`] and the repair passes read it: `image` = text, rodata and
/// data at `base`, the text first with length `code_len`, followed by `bss_len` bytes of bss;
/// `abs32` = image offsets of the 32-bit absolute relocations; `functions` = decoding restart
/// points (and where the repairs put their trampolines).
#[derive(Debug, Clone, Copy)]
pub struct LinkedImage<'a> {
    /// Text, rodata and data.
    pub image: &'a [u8],
    /// Address of `image[0]`.
    pub base: u32,
    /// Length of the text at the start of `image`.
    pub code_len: u32,
    /// Zero-initialised bytes after the image.
    pub bss_len: u32,
    /// Image offsets of the 32-bit absolute relocations.
    pub abs32: &'a [u32],
    /// Function symbols (decoding restart points).
    pub functions: &'a [Symbol],
}

impl<'a> LinkedImage<'a> {
    /// `image` is all text: no bss, no relocations, no function symbols.
    pub fn text(image: &'a [u8], base: u32, code_len: u32) -> Self {
        LinkedImage {
            image,
            base,
            code_len,
            bss_len: 0,
            abs32: &[],
            functions: &[],
        }
    }

    /// The image `relaid` made of this one (same base and bss), with `functions` moved to
    /// match: the input of the next pass.
    pub fn relaid<'b>(&self, relaid: &'b Relaid, functions: &'b [Symbol]) -> LinkedImage<'b> {
        LinkedImage {
            image: &relaid.image,
            base: self.base,
            code_len: relaid.code_len,
            bss_len: self.bss_len,
            abs32: &relaid.abs32,
            functions,
        }
    }
}

/// A relaid image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relaid {
    /// The new image (text, padding, then the moved rodata/data).
    pub image: Vec<u8>,
    /// New length of `.text` (including the `nop` padding).
    pub code_len: u32,
    /// New image offsets of the 32-bit absolute relocations, sorted.
    pub abs32: Vec<u32>,
    /// By how much everything after the text moved (a multiple of 4).
    pub shift: u32,
    /// Short branches widened to `.w`.
    pub widened: usize,
    /// The address maps, applied in order (one per relayout pass).
    stages: Vec<Stage>,
}

/// One relayout's address map.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stage {
    base: u32,
    old_code_len: u32,
    old_end: u32,
    shift: u32,
    /// Old instruction start → new address.
    starts: BTreeMap<u32, u32>,
}

impl Relaid {
    /// The new address of the old address `addr`: instruction starts (and
    /// addresses inside instructions that were not re-encoded) in the text,
    /// shifted addresses after the text (through the end of bss), and
    /// unchanged addresses outside the image.
    pub fn map(&self, addr: u32) -> u32 {
        self.stages.iter().fold(addr, |a, s| {
            map_addr(&s.starts, s.base, s.old_code_len, s.old_end, s.shift, a)
        })
    }

    /// Chains `next` (a relayout of `self.image`) after `self`: the result's
    /// [`Relaid::map`] maps addresses of the image `self` started from.
    pub fn then(mut self, next: Relaid) -> Relaid {
        self.stages.extend(next.stages);
        Relaid {
            image: next.image,
            code_len: next.code_len,
            abs32: next.abs32,
            shift: self.shift + next.shift,
            widened: self.widened + next.widened,
            stages: self.stages,
        }
    }
}

fn map_addr(
    starts: &BTreeMap<u32, u32>,
    base: u32,
    code_len: u32,
    end: u32,
    shift: u32,
    addr: u32,
) -> u32 {
    let text_end = base.wrapping_add(code_len);
    if addr < base || addr > end {
        addr
    } else if addr >= text_end {
        addr.wrapping_add(shift)
    } else {
        match starts.range(..=addr).next_back() {
            Some((&a, &n)) => n.wrapping_add(addr - a),
            None => addr,
        }
    }
}

/// Why [`relayout`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelayoutError {
    /// The text does not decode cleanly by linear sweep.
    #[error("{addr:#010x}: the text does not decode cleanly ({why})")]
    Decode {
        /// Where.
        addr: u32,
        /// What.
        why: String,
    },
    /// A PC-relative instruction the engine cannot re-encode.
    #[error("{addr:#010x}: `{text}`: {why}")]
    Unsupported {
        /// Address.
        addr: u32,
        /// Instruction text.
        text: String,
        /// What.
        why: String,
    },
    /// A displacement no longer fits its field.
    #[error("{addr:#010x}: `{text}`: the new displacement {disp} to {target:#x} does not fit")]
    OutOfRange {
        /// Old address of the instruction (or new address for inserted code).
        addr: u32,
        /// Its text.
        text: String,
        /// New target.
        target: u32,
        /// New displacement.
        disp: i64,
    },
    /// A malformed edit.
    #[error("bad edit: {0}")]
    BadEdit(String),
}

/// A PC-relative field of an old instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// `(d16,%pc)`: 16-bit displacement in word `k`.
    D16(usize),
    /// `(d8,%pc,Xn)` brief format: low byte of word `k`.
    D8(usize),
}

/// Decode `code` by linear sweep; any undecodable word, truncation or desync is an error,
/// since rewriting code we cannot fully decode would be guesswork.
pub(crate) fn clean_sweep(
    code: &[u8],
    base: u32,
    symbols: &[Symbol],
) -> Result<Vec<Insn>, RelayoutError> {
    let sw = sweep(code, base, symbols);
    if let Some((addr, text, why)) = sw.problems.first() {
        return Err(RelayoutError::Decode {
            addr: *addr,
            why: format!("`{text}`: {why}"),
        });
    }
    Ok(sw.insns)
}

/// Finds the PC-relative EA field of `insn`, if any, by checking which
/// extension word the displayed displacement comes from (perturbing it).
fn pc_field(insn: &Insn) -> Result<Option<Field>, RelayoutError> {
    if !insn.text.contains("%pc") {
        return Ok(None);
    }
    let unsupported = |why: &str| RelayoutError::Unsupported {
        addr: insn.addr,
        text: insn.text.clone(),
        why: why.to_string(),
    };
    if insn.text.matches("%pc").count() != 1 {
        return Err(unsupported("more than one PC-relative operand"));
    }
    let redecode = |k: usize, w: u16| -> Option<String> {
        let mut words = insn.words.clone();
        words[k] = w;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        decode(&bytes, 0, insn.addr)
            .ok()
            .filter(|i| i.len == insn.len)
            .map(|i| i.text)
    };
    for k in 1..insn.words.len() {
        let w = insn.words[k];
        let d = w as i16;
        if insn.text.contains(&format!("({d},%pc)")) {
            let d2 = if d > 30000 { d - 2 } else { d + 2 };
            if redecode(k, d2 as u16).is_some_and(|t| t.contains(&format!("({d2},%pc)"))) {
                return Ok(Some(Field::D16(k)));
            }
        }
        if w & 0x100 == 0 {
            let d8 = w as u8 as i8;
            if insn.text.contains(&format!("({d8},%pc,")) {
                let e = if d8 > 100 { d8 - 2 } else { d8 + 2 };
                let w2 = (w & 0xFF00) | u16::from(e as u8);
                if redecode(k, w2).is_some_and(|t| t.contains(&format!("({e},%pc,"))) {
                    return Ok(Some(Field::D8(k)));
                }
            }
        }
    }
    Err(unsupported(
        "PC-relative operand in a form the relayout does not handle (full-format extension?)",
    ))
}

/// A unit of the new text.
#[derive(Debug, Clone)]
enum Unit {
    /// Old instruction `idx` (kept, moved or copied), with its PC field.
    Old { idx: usize, field: Option<Field> },
    /// A branch (old or new); `size` only grows.
    Branch {
        cond: u16,
        target: Target,
        size: BranchSize,
        origin: Option<usize>,
    },
    /// DBcc.
    DBcc {
        cond: u16,
        reg: u16,
        target: Target,
        origin: Option<usize>,
    },
    /// Raw bytes.
    Raw(Vec<u8>),
    /// Raw bytes with 32-bit absolute fields (old addresses) at these offsets.
    RawAbs(Vec<u8>, Vec<u32>),
    /// A label (no bytes).
    Label(u32),
}

fn branch_len(size: BranchSize) -> u32 {
    match size {
        BranchSize::Short => 2,
        BranchSize::Word => 4,
        BranchSize::Long => 6,
    }
}

fn put16(v: &mut [u8], off: usize, w: u16) {
    v[off..off + 2].copy_from_slice(&w.to_be_bytes());
}

fn unit_len(u: &Unit, insns: &[Insn]) -> u32 {
    match u {
        Unit::Old { idx, .. } => insns[*idx].len as u32,
        Unit::Branch { size, .. } => branch_len(*size),
        Unit::DBcc { .. } => 4,
        Unit::Raw(b) | Unit::RawAbs(b, _) => b.len() as u32,
        Unit::Label(_) => 0,
    }
}

/// Applies `edits` to the linked image and returns the relaid image.  The
/// image's functions are only used as decoding restart points.
/// Deterministic: the same input gives the same output.
pub fn relayout(img: LinkedImage<'_>, edits: &[Edit]) -> Result<Relaid, RelayoutError> {
    let LinkedImage {
        image,
        base,
        code_len,
        bss_len,
        abs32,
        functions: symbols,
    } = img;
    let code = &image[..code_len as usize];
    let insns = clean_sweep(code, base, symbols)?;
    let text_end = base.wrapping_add(code_len);
    let old_end = base.wrapping_add(image.len() as u32).wrapping_add(bss_len);
    let index: BTreeMap<u32, usize> = insns.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();

    // Old units of each instruction.
    let old_unit = |idx: usize, copy: bool| -> Result<Unit, RelayoutError> {
        let insn = &insns[idx];
        let field = pc_field(insn)?;
        let to_old = |t: u32| Target::Old(t);
        match (insn.kind, field) {
            (Kind::Bcc(c, s), None) if !copy => Ok(Unit::Branch {
                cond: c.bits(),
                target: to_old(insn.flow.target.expect("branch")),
                size: s,
                origin: Some(idx),
            }),
            (Kind::Bra(s), None) => Ok(Unit::Branch {
                cond: 0,
                target: to_old(insn.flow.target.expect("branch")),
                size: s,
                origin: Some(idx),
            }),
            (Kind::Bsr(s), None) => Ok(Unit::Branch {
                cond: 1,
                target: to_old(insn.flow.target.expect("branch")),
                size: s,
                origin: Some(idx),
            }),
            (Kind::Bcc(c, s), None) => Ok(Unit::Branch {
                cond: c.bits(),
                target: to_old(insn.flow.target.expect("branch")),
                size: s,
                origin: Some(idx),
            }),
            (Kind::DBcc(c), None) => Ok(Unit::DBcc {
                cond: c.bits(),
                reg: insn.words[0] & 7,
                target: to_old(insn.flow.target.expect("dbcc")),
                origin: Some(idx),
            }),
            (_, f) => {
                if f.is_none() && insn.flow.target.is_some() {
                    return Err(RelayoutError::Unsupported {
                        addr: insn.addr,
                        text: insn.text.clone(),
                        why: "PC-relative instruction the relayout does not handle".into(),
                    });
                }
                Ok(Unit::Old { idx, field: f })
            }
        }
    };

    // Group the edits by offset: insertions first (in the given order), then
    // at most one replacement.
    let mut by_off: BTreeMap<u32, (Vec<&Edit>, Option<&Edit>)> = BTreeMap::new();
    for e in edits {
        let addr = base.wrapping_add(e.offset);
        if e.offset != code_len && !index.contains_key(&addr) {
            return Err(RelayoutError::BadEdit(format!(
                "offset {:#x} is not an instruction start",
                e.offset
            )));
        }
        let slot = by_off.entry(e.offset).or_default();
        if e.len == 0 {
            slot.0.push(e);
        } else {
            if slot.1.is_some() {
                return Err(RelayoutError::BadEdit(format!(
                    "two replacements at offset {:#x}",
                    e.offset
                )));
            }
            let end = addr.wrapping_add(e.len);
            if end > text_end || (end != text_end && !index.contains_key(&end)) {
                return Err(RelayoutError::BadEdit(format!(
                    "replacement at {:#x} does not end at an instruction boundary",
                    e.offset
                )));
            }
            slot.1 = Some(e);
        }
    }

    // Build the unit list. `anchor` maps old instruction starts to unit indices.
    let mut units: Vec<Unit> = Vec::new();
    let mut anchor: BTreeMap<u32, usize> = BTreeMap::new();
    let mut placed: BTreeSet<usize> = BTreeSet::new();
    let emit_pieces = |pieces: &[Piece],
                       units: &mut Vec<Unit>,
                       anchor: &mut BTreeMap<u32, usize>,
                       placed: &mut BTreeSet<usize>|
     -> Result<(), RelayoutError> {
        for p in pieces {
            match p {
                Piece::Insn(a) | Piece::Copy(a) => {
                    let &idx = index.get(a).ok_or_else(|| {
                        RelayoutError::BadEdit(format!("{a:#x} is not an instruction start"))
                    })?;
                    let copy = matches!(p, Piece::Copy(_));
                    if !copy {
                        if !placed.insert(idx) {
                            return Err(RelayoutError::BadEdit(format!(
                                "instruction {a:#x} placed twice"
                            )));
                        }
                        anchor.insert(*a, units.len());
                    }
                    units.push(old_unit(idx, copy)?);
                }
                Piece::Bytes(b) => {
                    if b.len() % 2 != 0 {
                        return Err(RelayoutError::BadEdit("odd-length bytes".into()));
                    }
                    units.push(Unit::Raw(b.clone()));
                }
                Piece::BytesAbs { bytes, abs } => {
                    if bytes.len() % 2 != 0 {
                        return Err(RelayoutError::BadEdit("odd-length bytes".into()));
                    }
                    if let Some(a) = abs.iter().find(|&&a| a as usize + 4 > bytes.len()) {
                        return Err(RelayoutError::BadEdit(format!(
                            "absolute field at {a} runs past the bytes"
                        )));
                    }
                    units.push(Unit::RawAbs(bytes.clone(), abs.clone()));
                }
                Piece::Branch { cond, target } => units.push(Unit::Branch {
                    cond: *cond & 15,
                    target: *target,
                    size: BranchSize::Short,
                    origin: None,
                }),
                Piece::DBcc { cond, reg, target } => units.push(Unit::DBcc {
                    cond: *cond & 15,
                    reg: *reg & 7,
                    target: *target,
                    origin: None,
                }),
                Piece::Label(l) => units.push(Unit::Label(*l)),
            }
        }
        Ok(())
    };

    let mut skip_until = base;
    let mut i = 0usize;
    let mut offsets: Vec<u32> = by_off.keys().copied().collect();
    offsets.reverse();
    loop {
        let addr = insns.get(i).map(|x| x.addr).unwrap_or(text_end);
        let off = addr.wrapping_sub(base);
        while let Some(&o) = offsets.last() {
            if o > off {
                break;
            }
            offsets.pop();
            let (ins, rep) = &by_off[&o];
            if o < off || addr < skip_until {
                return Err(RelayoutError::BadEdit(format!(
                    "edit at {o:#x} lies inside a replaced range"
                )));
            }
            for e in ins {
                emit_pieces(&e.with, &mut units, &mut anchor, &mut placed)?;
            }
            if let Some(e) = rep {
                let first = units.len();
                emit_pieces(&e.with, &mut units, &mut anchor, &mut placed)?;
                // The replaced range's start goes to the replacement's start.
                anchor.insert(addr, first);
                skip_until = addr.wrapping_add(e.len);
            }
        }
        if i >= insns.len() {
            break;
        }
        if addr >= skip_until {
            if !placed.insert(i) {
                return Err(RelayoutError::BadEdit(format!(
                    "instruction {addr:#x} placed twice"
                )));
            }
            anchor.insert(addr, units.len());
            units.push(old_unit(i, false)?);
        }
        i += 1;
    }

    // Fixed point: addresses, widening.
    let mut widened = 0usize;
    let (addrs, labels) = loop {
        let mut addrs = Vec::with_capacity(units.len() + 1);
        let mut labels = BTreeMap::new();
        let mut a = base;
        for u in &units {
            addrs.push(a);
            if let Unit::Label(l) = u {
                labels.insert(*l, a);
            }
            a = a.wrapping_add(unit_len(u, &insns));
        }
        addrs.push(a);
        let resolve = |t: Target| -> Result<u32, RelayoutError> {
            match t {
                Target::Old(o) => anchor.get(&o).map(|&u| addrs[u]).ok_or_else(|| {
                    RelayoutError::BadEdit(format!("branch to removed or unknown {o:#x}"))
                }),
                Target::Label(l) => labels
                    .get(&l)
                    .copied()
                    .ok_or_else(|| RelayoutError::BadEdit(format!("undefined label {l}"))),
            }
        };
        let mut changed = false;
        for (k, u) in units.iter_mut().enumerate() {
            if let Unit::Branch { target, size, .. } = u
                && *size == BranchSize::Short
            {
                let disp = i64::from(resolve(*target)?) - i64::from(addrs[k] + 2);
                if disp == 0 || !(-128..=127).contains(&disp) {
                    *size = BranchSize::Word;
                    widened += 1;
                    changed = true;
                }
            }
        }
        if !changed {
            break (addrs, labels);
        }
    };
    let new_text_len = addrs[units.len()] - base;
    if new_text_len < code_len {
        return Err(RelayoutError::BadEdit("the text shrank".into()));
    }
    let growth = new_text_len - code_len;
    let shift = growth.div_ceil(4) * 4;
    let starts: BTreeMap<u32, u32> = anchor.iter().map(|(&o, &u)| (o, addrs[u])).collect();
    let map = |a: u32| map_addr(&starts, base, code_len, old_end, shift, a);
    let resolve = |t: Target| -> Result<u32, RelayoutError> {
        match t {
            Target::Old(o) => starts
                .get(&o)
                .copied()
                .ok_or_else(|| RelayoutError::BadEdit(format!("branch to removed {o:#x}"))),
            Target::Label(l) => labels
                .get(&l)
                .copied()
                .ok_or_else(|| RelayoutError::BadEdit(format!("undefined label {l}"))),
        }
    };

    // Relocations in the text, by old instruction.
    let text_relocs: Vec<u32> = abs32.iter().copied().filter(|&o| o < code_len).collect();
    let mut out = Vec::with_capacity(image.len() + shift as usize);
    let mut new_abs = Vec::new();
    for (k, u) in units.iter().enumerate() {
        let at = addrs[k];
        match u {
            Unit::Label(_) => {}
            Unit::Raw(b) => out.extend_from_slice(b),
            Unit::RawAbs(b, abs) => {
                let start = out.len();
                out.extend_from_slice(b);
                for &f in abs {
                    let o = start + f as usize;
                    let v = u32::from_be_bytes(out[o..o + 4].try_into().expect("4"));
                    out[o..o + 4].copy_from_slice(&map(v).to_be_bytes());
                    new_abs.push(at - base + f);
                }
            }
            Unit::Branch {
                cond,
                target,
                size,
                origin,
            } => {
                let t = resolve(*target)?;
                let disp = i64::from(t) - i64::from(at + 2);
                let text = || match origin {
                    Some(i) => insns[*i].text.clone(),
                    None => format!("new branch (cond {cond}) at {at:#x}"),
                };
                let op = 0x6000 | (cond << 8);
                match size {
                    BranchSize::Short => {
                        out.extend_from_slice(&(op | (disp as u8 as u16)).to_be_bytes())
                    }
                    BranchSize::Word => {
                        let d = i16::try_from(disp).map_err(|_| RelayoutError::OutOfRange {
                            addr: origin.map(|i| insns[i].addr).unwrap_or(at),
                            text: text(),
                            target: t,
                            disp,
                        })?;
                        out.extend_from_slice(&op.to_be_bytes());
                        out.extend_from_slice(&d.to_be_bytes());
                    }
                    BranchSize::Long => {
                        out.extend_from_slice(&(op | 0xFF).to_be_bytes());
                        out.extend_from_slice(&(disp as i32).to_be_bytes());
                    }
                }
            }
            Unit::DBcc {
                cond,
                reg,
                target,
                origin,
            } => {
                let t = resolve(*target)?;
                let disp = i64::from(t) - i64::from(at + 2);
                let d = i16::try_from(disp).map_err(|_| RelayoutError::OutOfRange {
                    addr: origin.map(|i| insns[i].addr).unwrap_or(at),
                    text: origin
                        .map(|i| insns[i].text.clone())
                        .unwrap_or_else(|| "dbcc".into()),
                    target: t,
                    disp,
                })?;
                out.extend_from_slice(&(0x50C8 | (cond << 8) | reg).to_be_bytes());
                out.extend_from_slice(&d.to_be_bytes());
            }
            Unit::Old { idx, field } => {
                let insn = &insns[*idx];
                let start = out.len();
                let off = (insn.addr - base) as usize;
                out.extend_from_slice(&image[off..off + insn.len]);
                let bytes = &mut out[start..];
                if let Some(f) = field {
                    let (k, short) = match f {
                        Field::D16(k) => (*k, false),
                        Field::D8(k) => (*k, true),
                    };
                    let w = insn.words[k];
                    let old_base = insn.addr + 2 * k as u32;
                    let d = if short {
                        i32::from(w as u8 as i8)
                    } else {
                        i32::from(w as i16)
                    };
                    let old_t = old_base.wrapping_add(d as u32);
                    let t = map(old_t);
                    let disp = i64::from(t) - i64::from(at + 2 * k as u32);
                    let oor = || RelayoutError::OutOfRange {
                        addr: insn.addr,
                        text: insn.text.clone(),
                        target: t,
                        disp,
                    };
                    if short {
                        let d8 = i8::try_from(disp).map_err(|_| oor())?;
                        put16(bytes, 2 * k, (w & 0xFF00) | u16::from(d8 as u8));
                    } else {
                        let d16 = i16::try_from(disp).map_err(|_| oor())?;
                        put16(bytes, 2 * k, d16 as u16);
                    }
                }
                for &r in text_relocs
                    .iter()
                    .filter(|&&r| r >= insn.addr - base && r < insn.addr - base + insn.len as u32)
                {
                    let rel = (r - (insn.addr - base)) as usize;
                    if rel + 4 > insn.len {
                        return Err(RelayoutError::Unsupported {
                            addr: insn.addr,
                            text: insn.text.clone(),
                            why: "relocation runs past the instruction".into(),
                        });
                    }
                    let v = u32::from_be_bytes(bytes[rel..rel + 4].try_into().expect("4"));
                    bytes[rel..rel + 4].copy_from_slice(&map(v).to_be_bytes());
                    new_abs.push(at - base + rel as u32);
                }
            }
        }
    }
    // Relocations not inside any instruction in the text (should not happen).
    for &r in &text_relocs {
        let a = base + r;
        let inside = index
            .range(..=a)
            .next_back()
            .is_some_and(|(&s, &i)| a < s + insns[i].len as u32);
        if !inside {
            return Err(RelayoutError::Decode {
                addr: a,
                why: "relocation outside any instruction".into(),
            });
        }
    }
    debug_assert_eq!(out.len() as u32, new_text_len);
    while (out.len() as u32) < code_len + shift {
        out.extend_from_slice(&NOP.to_be_bytes());
    }
    let new_code_len = out.len() as u32;
    out.extend_from_slice(&image[code_len as usize..]);
    for &r in abs32.iter().filter(|&&o| o >= code_len) {
        let n = (r + shift) as usize;
        if n + 4 > out.len() {
            return Err(RelayoutError::Decode {
                addr: base + r,
                why: "relocation past the image".into(),
            });
        }
        let v = u32::from_be_bytes(out[n..n + 4].try_into().expect("4"));
        out[n..n + 4].copy_from_slice(&map(v).to_be_bytes());
        new_abs.push(r + shift);
    }
    new_abs.sort_unstable();
    new_abs.dedup();
    Ok(Relaid {
        image: out,
        code_len: new_code_len,
        abs32: new_abs,
        shift,
        widened,
        stages: vec![Stage {
            base,
            old_code_len: code_len,
            old_end,
            shift,
            starts,
        }],
    })
}

/// One flag hazard the repair did not fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrepaired {
    /// The MOVE/MOVEQ/CLR (old address).
    pub copy: u32,
    /// The conditional (old address).
    pub consumer: u32,
    /// Why.
    pub why: String,
}

impl Unrepaired {
    /// The same finding at its addresses after the relayout `next`.
    fn moved(self, next: &Relaid) -> Unrepaired {
        Unrepaired {
            copy: next.map(self.copy),
            consumer: next.map(self.consumer),
            why: self.why,
        }
    }
}

/// What [`repair_flag_hazards`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RepairReport {
    /// Repaired hazards as old `(copy, consumer)` addresses.
    pub repaired: Vec<(u32, u32)>,
    /// Hazards left alone.
    pub unrepaired: Vec<Unrepaired>,
    /// Text growth in bytes (including the `nop` padding).
    pub growth: u32,
    /// Relayout passes run (a conditional behind two copies needs two).
    pub passes: usize,
}

impl fmt::Display for RepairReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} flag hazard(s) repaired in {} pass(es), {} left; text grew by {} bytes",
            self.repaired.len(),
            self.passes,
            self.unrepaired.len(),
            self.growth
        )?;
        for u in &self.unrepaired {
            writeln!(
                f,
                "{:#010x}/{:#010x}: not repaired: {}",
                u.copy, u.consumer, u.why
            )?;
        }
        Ok(())
    }
}

/// Register names (`%d3`, `%a1`, `%sp` = `%a7`, `%fp` = `%a6`) in an
/// instruction's text, normalised.
fn regs(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let rest = &text[i + 1..];
            if rest.starts_with("sp") {
                out.insert("a7".to_string());
            } else if rest.starts_with("fp") && !rest.starts_with("fp0") {
                out.insert("a6".to_string());
            } else if rest.len() >= 2
                && (rest.starts_with('d') || rest.starts_with('a'))
                && rest.as_bytes()[1].is_ascii_digit()
            {
                out.insert(rest[..2].to_string());
            } else {
                // %pc, %ccr, %sr, …: treat as a shared resource by name.
                let n: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                out.insert(n);
            }
        }
        i += 1;
    }
    out
}

/// The operand text after the mnemonic.
fn operands(text: &str) -> &str {
    text.split_once(' ').map(|(_, o)| o).unwrap_or("")
}

/// `move.{b,w,l} %dA,%dB` (data register to data register): `(A, B)`.
fn copy_regs(m: &Insn) -> Option<(u16, u16)> {
    let w = m.words[0];
    let size_ok = matches!(w >> 12, 1..=3);
    // MOVE: 00ss RRR MMM mmm rrr, destination mode MMM, source mode mmm.
    (m.len == 2 && size_ok && (w >> 6) & 7 == 0 && (w >> 3) & 7 == 0)
        .then_some((w & 7, (w >> 9) & 7))
}

/// The data register of `Scc %dN`.
fn scc_dreg(c: &Insn) -> Option<u16> {
    let w = c.words[0];
    (matches!(c.kind, Kind::Scc(_)) && (w >> 3) & 7 == 0).then_some(w & 7)
}

/// `Scc %dB ; exg %dA,%dB`: the condition into the copy's destination, then
/// the registers swapped, for `move %dA,%dB ; Scc %dA`. `%dB` ends up as the
/// copy made it and the low byte of `%dA` as the Scc set it; the upper bytes of
/// `%dA` differ, but an Scc result is an 8-bit value (LLVM's M68k data
/// registers have a single register unit, so the byte definition ends every
/// wider value the register held), and the flags stay the producer's.
fn scc_exg(c: &Insn, a: u16, b: u16) -> Vec<u8> {
    let scc = (c.words[0] & 0xFFF8) | b;
    let exg = 0xC140 | (a << 9) | b;
    [scc, exg].iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// The repair of a join hazard: the copy `insns[mi]` falls through into a
/// block that a conditional branch also enters; from `insns[mi + 1]` through
/// the conditional `insns[ci]` come Scc and flag-neutral straight-line
/// instructions, and possibly one Bcc that ends the run. On the fall-through
/// path the run is executed (copied) before the copy, then a `bra` skips the
/// original run; the branch path is unchanged. A Bcc at the end becomes
/// `Bcc T'` with a trampoline `T': copy ; bra T` (pushed to `tramp`). An Scc
/// that writes the copy's source register uses `Scc %dB ; exg` ([`scc_exg`]).
fn join_repair(
    insns: &[Insn],
    mi: usize,
    ci: usize,
    label: u32,
    tramp: &mut Vec<Piece>,
) -> Result<Vec<Piece>, String> {
    let m = &insns[mi];
    let neutral = |i: &Insn| {
        i.flow.falls_through
            && i.flow.target.is_none()
            && i.flow.abs_target.is_none()
            && !i.flow.is_call
            && !i.flow.is_indirect
            && i.flags.class == FlagClass::None
            && i.reads.is_empty()
    };
    // The run: Scc and flag-neutral instructions, at most 6, through `ci`,
    // then optionally one Bcc.
    let mut end = mi + 1;
    let mut bcc = None;
    while end < insns.len() && end - mi <= 6 && insns[end - 1].end() == insns[end].addr {
        let i = &insns[end];
        if matches!(i.kind, Kind::Scc(_)) || (neutral(i) && end < ci) {
            end += 1;
        } else if matches!(i.kind, Kind::Bcc(..)) && i.cond().is_some() {
            bcc = Some(end);
            end += 1;
            break;
        } else {
            break;
        }
    }
    if end <= ci {
        return Err(format!(
            "`{}` at a join cannot be moved before the copy",
            insns[end.min(ci)].text
        ));
    }
    if let Some(next) = insns.get(end)
        && !next.reads.is_empty()
        && bcc.is_none()
    {
        return Err(format!(
            "`{}` after the run at a join also reads the flags",
            next.text
        ));
    }
    let run = &insns[mi + 1..end];
    let mr = regs(operands(&m.text));
    let mut exg = None;
    let mut with = Vec::new();
    for (k, s) in run.iter().enumerate() {
        if Some(mi + 1 + k) == bcc {
            with.push(Piece::Branch {
                cond: (s.words[0] >> 8) & 15,
                target: Target::Label(label),
            });
            continue;
        }
        let sr = regs(operands(&s.text));
        if let Some((a, b)) = copy_regs(m)
            && scc_dreg(s) == Some(a)
            && exg.is_none()
        {
            with.push(Piece::Bytes(
                ((s.words[0] & 0xFFF8) | b).to_be_bytes().to_vec(),
            ));
            exg = Some((a, b));
            continue;
        }
        if let Some(r) = mr.intersection(&sr).next() {
            return Err(format!("`{}` and `{}` share %{r}", m.text, s.text));
        }
        if m.text.contains('(') && s.text.contains('(') {
            return Err(format!("`{}` and `{}` both access memory", m.text, s.text));
        }
        with.push(Piece::Copy(s.addr));
    }
    let copy = |moved: bool| match exg {
        Some((a, b)) => Piece::Bytes((0xC140 | (a << 9) | b).to_be_bytes().to_vec()),
        None if moved => Piece::Insn(m.addr),
        None => Piece::Copy(m.addr),
    };
    with.push(copy(true));
    with.push(Piece::Branch {
        cond: 0,
        target: Target::Old(run.last().expect("run").end()),
    });
    if let Some(bi) = bcc {
        tramp.push(Piece::Label(label));
        tramp.push(copy(false));
        tramp.push(Piece::Branch {
            cond: 0,
            target: Target::Old(insns[bi].flow.target.expect("branch")),
        });
    }
    Ok(with)
}

/// Repairs the flag hazards of the linked image (see the module docs).
///
/// `functions` are used to place trampolines right after the function that
/// needs them (and as decoding restart points).  Returns the relaid image and
/// what was repaired.
fn repair_pass(
    img: LinkedImage<'_>,
    max_gap: usize,
) -> Result<(Relaid, RepairReport), RelayoutError> {
    let LinkedImage {
        image,
        base,
        code_len,
        functions,
        ..
    } = img;
    let code = &image[..code_len as usize];
    let sw = sweep(code, base, functions);
    let insns = &sw.insns;
    let index: BTreeMap<u32, usize> = insns.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();
    let text_end = base + code_len;
    let mut report = RepairReport::default();
    let mut edits: Vec<Edit> = Vec::new();
    // Trampolines by insertion offset.
    let mut tramps: BTreeMap<u32, Vec<Piece>> = BTreeMap::new();
    let mut next_label = 0u32;
    // Branch targets (joins), and the copies of join hazards already handled.
    let targets: BTreeSet<u32> = insns.iter().filter_map(|i| i.flow.target).collect();
    let mut joined: BTreeSet<u32> = BTreeSet::new();
    // Where the trampoline goes: after the containing function if its
    // last instruction does not fall through, else after the next
    // instruction that does not fall through, else at the end of text.
    let tramp_at_of = |c_addr: u32, ci: usize| -> u32 {
        let f = functions
            .iter()
            .filter(|f| f.size > 0 && f.addr <= c_addr && c_addr - f.addr < f.size)
            .max_by_key(|f| f.addr);
        if let Some(f) = f {
            let end = f.addr + f.size;
            if end <= text_end
                && (end == text_end || index.contains_key(&end))
                && let Some((_, &li)) = index.range(..end).next_back()
                && insns[li].end() == end
                && !insns[li].flow.falls_through
            {
                return end - base;
            }
        }
        // Otherwise after the first instruction from here on that does
        // not fall through (`rts`, `bra`, `jmp`, …).
        insns[ci..]
            .iter()
            .find(|i| !i.flow.falls_through)
            .map(|i| i.end() - base)
            .unwrap_or(code_len)
    };

    for (m_addr, c_addr) in hazards(code, base, functions) {
        let mut skip = |why: String| {
            report.unrepaired.push(Unrepaired {
                copy: m_addr,
                consumer: c_addr,
                why,
            });
        };
        let (Some(&mi), Some(&ci)) = (index.get(&m_addr), index.get(&c_addr)) else {
            skip("not found in the sweep".into());
            continue;
        };
        let (m, c) = (&insns[mi], &insns[ci]);
        // A join: the conditional's block starts after the copy (a branch
        // targets the instruction after the copy or one up to the
        // conditional), so the copy is only on the fall-through path.
        if insns[mi + 1..=ci].iter().any(|i| targets.contains(&i.addr)) {
            if !joined.insert(m_addr) {
                // Repaired with an earlier conditional of the same run.
                report.repaired.push((m_addr, c_addr));
                continue;
            }
            let mut tramp = Vec::new();
            match join_repair(insns, mi, ci, next_label, &mut tramp) {
                Ok(with) => {
                    edits.push(Edit {
                        offset: m_addr - base,
                        len: m.len as u32,
                        with,
                    });
                    if !tramp.is_empty() {
                        next_label += 1;
                        tramps
                            .entry(tramp_at_of(c_addr, ci))
                            .or_default()
                            .extend(tramp);
                    }
                    report.repaired.push((m_addr, c_addr));
                }
                Err(why) => skip(why),
            }
            continue;
        }
        // Instructions between the copy and the conditional (flag-neutral,
        // since the copy is the last flag writer).
        let between = &insns[mi + 1..ci];
        if !between.is_empty() {
            if between.len() > max_gap || !matches!(c.kind, Kind::Bcc(..) | Kind::DBcc(_)) {
                skip("the copy does not immediately precede the conditional".into());
                continue;
            }
            let bad = std::iter::once(m)
                .chain(between)
                .zip(between)
                .find(|(p, i)| {
                    p.end() != i.addr
                        || !i.flow.falls_through
                        || i.flow.target.is_some()
                        || i.flow.abs_target.is_some()
                        || i.flow.is_call
                        || i.flow.is_indirect
                        || i.flags.class != FlagClass::None
                        || !i.reads.is_empty()
                });
            if let Some((_, i)) = bad {
                skip(format!(
                    "`{}` between the copy and the conditional cannot be moved",
                    i.text
                ));
                continue;
            }
        }
        if insns[ci - 1].end() != c.addr {
            skip("the copy does not immediately precede the conditional".into());
            continue;
        }
        let tramp_at = || tramp_at_of(c_addr, ci);
        let whole = Edit {
            offset: m_addr - base,
            len: (c.end() - m_addr),
            with: Vec::new(),
        };
        match c.kind {
            Kind::Bcc(_, _) | Kind::DBcc(_) => {
                let target = c.flow.target.expect("branch");
                let label = next_label;
                let mut with = Vec::new();
                match c.kind {
                    Kind::Bcc(cond, _) => with.push(Piece::Branch {
                        cond: cond.bits(),
                        target: Target::Label(label),
                    }),
                    Kind::DBcc(cond) => {
                        let reg = c.words[0] & 7;
                        if let Some(i) = insns[mi..ci]
                            .iter()
                            .find(|i| regs(&i.text).contains(&format!("d{reg}")))
                        {
                            skip(format!("`{}` uses the DBcc counter %d{reg}", i.text));
                            continue;
                        }
                        with.push(Piece::DBcc {
                            cond: cond.bits(),
                            reg,
                            target: Target::Label(label),
                        })
                    }
                    _ => unreachable!(),
                }
                next_label += 1;
                with.extend(insns[mi..ci].iter().map(|i| Piece::Insn(i.addr)));
                edits.push(Edit { with, ..whole });
                let t = tramps.entry(tramp_at()).or_default();
                t.push(Piece::Label(label));
                t.extend(insns[mi..ci].iter().map(|i| Piece::Copy(i.addr)));
                t.push(Piece::Branch {
                    cond: 0,
                    target: Target::Old(target),
                });
            }
            Kind::Scc(_) => {
                let (mr, sr) = (regs(operands(&m.text)), regs(operands(&c.text)));
                if let Some((a, b)) = copy_regs(m)
                    && scc_dreg(c) == Some(a)
                {
                    // `move %dA,%dB ; Scc %dA` → `Scc %dB ; exg %dA,%dB`.
                    edits.push(Edit {
                        with: vec![Piece::Bytes(scc_exg(c, a, b))],
                        ..whole
                    });
                    report.repaired.push((m_addr, c_addr));
                    continue;
                }
                if let Some(r) = mr.intersection(&sr).next() {
                    skip(format!("`{}` and `{}` share %{r}", m.text, c.text));
                    continue;
                }
                if m.text.contains('(') && c.text.contains('(') {
                    skip(format!("`{}` and `{}` both access memory", m.text, c.text));
                    continue;
                }
                edits.push(Edit {
                    with: vec![Piece::Insn(c_addr), Piece::Insn(m_addr)],
                    ..whole
                });
            }
            _ => {
                skip(format!("`{}` is not a Bcc, DBcc or Scc", c.text));
                continue;
            }
        }
        report.repaired.push((m_addr, c_addr));
    }
    for (off, with) in tramps {
        edits.push(Edit {
            offset: off,
            len: 0,
            with,
        });
    }
    edits.sort_by_key(|e| (e.offset, e.len));
    let relaid = relayout(img, &edits)?;
    report.growth = relaid.code_len - code_len;
    Ok((relaid, report))
}

/// `functions` (as linked) moved through the relayouts so far: addresses and sizes.
fn remap_symbols(functions: &[Symbol], relaid: &Relaid) -> Vec<Symbol> {
    functions
        .iter()
        .map(|f| {
            let addr = relaid.map(f.addr);
            let size = if f.size == 0 {
                0
            } else {
                relaid.map(f.addr + f.size) - addr
            };
            Symbol {
                name: f.name.clone(),
                addr,
                size,
            }
        })
        .collect()
}

/// Repairs the flag hazards of the linked image (see the module docs).
///
/// `functions` are used to place trampolines right after the function that
/// needs them (and as decoding restart points).  `max_gap` is how many
/// flag-neutral straight-line instructions (`movea`, `movem`, `lea`, …) may
/// stand between the copy and a Bcc/DBcc: they move (and are copied into the
/// trampoline) with the copy; 0 repairs only a copy right before the
/// conditional.  A conditional behind several
/// copies (`cmp ; move ; move ; bcc`) needs one pass per copy: passes repeat
/// until nothing more can be repaired.  Returns the relaid image (whose
/// [`Relaid::map`] maps addresses through all passes) and what was repaired
/// (`repaired`: addresses in the image each pass started from, as linked for
/// the first pass; `unrepaired`: addresses in the returned image).
pub fn repair_flag_hazards(
    img: LinkedImage<'_>,
    max_gap: usize,
) -> Result<(Relaid, RepairReport), RelayoutError> {
    let LinkedImage {
        base,
        code_len,
        functions,
        ..
    } = img;
    let (mut relaid, mut report) = repair_pass(img, max_gap)?;
    report.passes = 1;
    for _ in 0..16 {
        let syms = remap_symbols(functions, &relaid);
        let (next, rep) = repair_pass(img.relaid(&relaid, &syms), max_gap)?;
        if rep.repaired.is_empty() {
            report.unrepaired = rep.unrepaired;
            break;
        }
        report.passes += 1;
        report.repaired.extend(rep.repaired);
        report.unrepaired = rep.unrepaired;
        relaid = relaid.then(next);
    }
    // Then the hazards across joins (the not-taken arm of a select), see `super::join`.
    let syms = remap_symbols(functions, &relaid);
    let (next, join) = super::join::repair_join_hazards(img.relaid(&relaid, &syms))?;
    if !join.repaired.is_empty() {
        report.repaired.extend(join.repaired);
        report
            .unrepaired
            .extend(join.unrepaired.into_iter().map(|u| u.moved(&next)));
        report.passes += 1;
        relaid = relaid.then(next);
    } else {
        report.unrepaired.extend(join.unrepaired);
    }
    // Then every conditional that still reads a copy's flags on one path and a producer's on
    // another: the copies become flag-neutral (`super::join::repair_path_hazards`).
    let syms = remap_symbols(functions, &relaid);
    let (next, paths) = super::join::repair_path_hazards(img.relaid(&relaid, &syms))?;
    if !paths.repaired.is_empty() {
        // The copies the path pass made neutral were what the earlier passes left.
        let fixed: BTreeSet<u32> = paths.repaired.iter().map(|&(_, c)| next.map(c)).collect();
        report.unrepaired = report
            .unrepaired
            .into_iter()
            .map(|u| u.moved(&next))
            .filter(|u| !fixed.contains(&u.consumer))
            .collect();
        report.repaired.extend(paths.repaired);
        report
            .unrepaired
            .extend(paths.unrepaired.into_iter().map(|u| u.moved(&next)));
        report.passes += 1;
        relaid = relaid.then(next);
    } else {
        report.unrepaired.extend(paths.unrepaired);
    }
    // A hazard one pass left may have been mended by a later one: report only those the
    // verifier still sees in the result.
    let syms = remap_symbols(functions, &relaid);
    let left: BTreeSet<u32> = super::verify::verify(
        &relaid.image[..relaid.code_len as usize],
        base,
        super::Cpu::M68000,
        &syms,
    )
    .findings
    .iter()
    .filter(|f| f.rule == super::Rule::FlagHazard)
    .map(|f| f.addr)
    .collect();
    report.unrepaired.retain(|u| left.contains(&u.consumer));
    report.growth = relaid.code_len - code_len;
    Ok((relaid, report))
}
