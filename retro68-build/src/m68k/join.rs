//! Flag hazards across a join: the not-taken arm of a `select`.
//!
//! LLVM M68k lowers a `select` (a conditional move) into a diamond: the block ends with
//! `Bcc L`, the fall-through block `F` holds the register copy of the false value, and `L`
//! joins both paths. When other conditionals of the same compare (`Scc`, `Bcc`) were
//! scheduled after the select, `L` starts with them and reads the CCR that it expects
//! to be the compare's on both paths. The copy in `F` is a `MOVE`, which sets N and Z and
//! clears V and C, so on the fall-through path they read the flags of the copy instead:
//!
//! ```text
//!     sub.w   %d3,%d4          | compare
//!     blt.s   L                | select: taken -> true value already in %d1
//!     move.w  %d3,%d1          | F: false value (clobbers the flags)
//! L:  slt     %d3              | reads the flags of `move.w` on the fall-through path
//!     sge     %d4
//! ```
//!
//! [`join_hazards`] finds them: a forward `Bcc L` followed by a block `F` of register copies
//! (and flag-neutral instructions) that falls into `L`, nothing else entering `F`, and `L`
//! reading N, Z, V or C before writing them. The verifier's per-block flag-hazard rule does
//! not see them (`L` is a block start).
//!
//! [`repair_join_hazards`] repairs them without changing anything on the taken path. Where
//! it can, it replaces each copy in `F` by a flag-neutral sequence of the same effect on the
//! registers ([`neutral`]: MOVEM through the stack), so `L` sees the compare's flags on both
//! paths. Otherwise (byte copies), on the fall-through path the branch's condition was false
//! for the very flags the conditionals in `L` mean to read, which may decide them: `F` is
//! replaced by `F`'s own
//! instructions, then copies of `L`'s leading instructions with every decided conditional
//! made constant (`Scc` becomes `ST`/`SF`, which leave the CCR alone; a decided `Bcc`
//! becomes `BRA` or disappears), then `BRA` to the first instruction of `L` that rewrites
//! the flags. The copy still runs first, so no register conflict arises.

use std::collections::{BTreeMap, BTreeSet};

use super::decode::{Ccr, Cond, FlagClass, Insn, Kind};
use super::relayout::{
    Edit, LinkedImage, Piece, Relaid, RelayoutError, Target, Unrepaired, relayout,
};
use super::verify::{Sweep, Symbol, flag_hazards, sweep};

/// At most this many instructions in the fall-through block `F`.
const MAX_COPIES: usize = 8;
/// At most this many instructions scanned at the join.
const MAX_SCAN: usize = 16;

/// One hazard across a join (addresses as in the image examined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinHazard {
    /// The conditional branch `Bcc L`.
    pub branch: u32,
    /// Its condition.
    pub cond: Cond,
    /// First instruction of the fall-through block `F`.
    pub copies: u32,
    /// The flag-writing copy in `F` (the last one).
    pub copy: u32,
    /// `L`, the join.
    pub join: u32,
    /// The instructions at `L` that read the N/Z/V/C the copy wrote, in order.
    pub consumers: Vec<u32>,
}

/// Does `cond` hold for the flags `nzvc` (bit 3 N, 2 Z, 1 V, 0 C)?
fn holds(cond: Cond, nzvc: u8) -> bool {
    let (n, z, v, c) = (nzvc & 8 != 0, nzvc & 4 != 0, nzvc & 2 != 0, nzvc & 1 != 0);
    match cond {
        Cond::T => true,
        Cond::F => false,
        Cond::Hi => !c && !z,
        Cond::Ls => c || z,
        Cond::Cc => !c,
        Cond::Cs => c,
        Cond::Ne => !z,
        Cond::Eq => z,
        Cond::Vc => !v,
        Cond::Vs => v,
        Cond::Pl => !n,
        Cond::Mi => n,
        Cond::Ge => n == v,
        Cond::Lt => n != v,
        Cond::Gt => !z && n == v,
        Cond::Le => z || n != v,
    }
}

/// The value of `cond` for every N/Z/V/C for which `known_false` is false, if it is the
/// same for all of them.
pub fn decided(known_false: Cond, cond: Cond) -> Option<bool> {
    let mut seen = None;
    for nzvc in 0..16u8 {
        if holds(known_false, nzvc) {
            continue;
        }
        let v = holds(cond, nzvc);
        match seen {
            None => seen = Some(v),
            Some(s) if s != v => return None,
            _ => {}
        }
    }
    seen
}

fn entry_points(sw: &Sweep, symbols: &[Symbol], extra: &BTreeSet<u32>) -> BTreeSet<u32> {
    let mut set = sw.restarts.clone();
    set.extend(symbols.iter().map(|s| s.addr));
    set.extend(extra.iter().copied());
    for i in &sw.insns {
        set.extend(i.flow.target);
        set.extend(i.flow.abs_target);
    }
    set
}

fn plain(x: &Insn) -> bool {
    x.flow.falls_through
        && x.flow.target.is_none()
        && x.flow.abs_target.is_none()
        && !x.flow.is_call
        && !x.flow.is_indirect
}

/// The hazards across joins in the decoded code; `extra_entries` are further addresses
/// control may arrive at (e.g. absolute code addresses in data).
fn find(sw: &Sweep, symbols: &[Symbol], extra_entries: &BTreeSet<u32>) -> Vec<JoinHazard> {
    let insns = &sw.insns;
    let entries = entry_points(sw, symbols, extra_entries);
    let mut out = Vec::new();
    for (b, bi) in insns.iter().enumerate() {
        let Kind::Bcc(cond, _) = bi.kind else {
            continue;
        };
        let Some(join) = bi.flow.target else { continue };
        if join <= bi.end() || b + 1 >= insns.len() || insns[b + 1].addr != bi.end() {
            continue;
        }
        // F: plain copies and flag-neutral instructions, entered only by falling through.
        let mut k = b + 1;
        let mut copy = None;
        let mut ok = true;
        while k < insns.len() && insns[k].addr < join {
            let x = &insns[k];
            if k - b > MAX_COPIES
                || x.addr != insns[k - 1].end()
                || entries.contains(&x.addr)
                || !plain(x)
                || !x.reads.is_empty()
                || !matches!(x.flags.class, FlagClass::None | FlagClass::Copy)
            {
                ok = false;
                break;
            }
            if x.flags.class == FlagClass::Copy {
                copy = Some(x.addr);
            }
            k += 1;
        }
        let Some(copy) = copy else { continue };
        if !ok || k >= insns.len() || insns[k].addr != join || insns[k - 1].end() != join {
            continue;
        }
        // L: conditionals reading N/Z/V/C before anything writes them.
        let mut consumers = Vec::new();
        for (j, x) in insns.iter().enumerate().skip(k).take(MAX_SCAN) {
            if j > k && x.addr != insns[j - 1].end() {
                break;
            }
            if x.reads.intersects(Ccr::NZVC) {
                consumers.push(x.addr);
            }
            if !x.flags.writes.is_empty() || x.flags.class != FlagClass::None {
                break;
            }
            if !x.flow.falls_through || x.flow.is_call || x.flow.is_indirect {
                break;
            }
        }
        if consumers.is_empty() {
            continue;
        }
        out.push(JoinHazard {
            branch: bi.addr,
            cond,
            copies: insns[b + 1].addr,
            copy,
            join,
            consumers,
        });
    }
    out
}

/// The hazards across joins in `code` (run-time address `base`).
pub fn join_hazards(code: &[u8], base: u32, symbols: &[Symbol]) -> Vec<JoinHazard> {
    let sw = sweep(code, base, symbols);
    find(&sw, symbols, &BTreeSet::new())
}

pub(crate) fn join_hazards_in(sw: &Sweep, symbols: &[Symbol]) -> Vec<JoinHazard> {
    find(sw, symbols, &BTreeSet::new())
}

/// What [`repair_join_hazards`] did (addresses in the image it started from).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JoinReport {
    /// Repaired hazards as `(copy, first consumer)`.
    pub repaired: Vec<(u32, u32)>,
    /// Hazards left alone.
    pub unrepaired: Vec<Unrepaired>,
}

/// A sequence that does what the register copy `x` does to the registers but leaves the
/// CCR alone (MOVEM and PEA do not touch it), through 4 bytes of stack:
///
/// * `move.l %rS,%dD` → `movem.l %rS,-(%sp) ; movem.l (%sp)+,%dD`
/// * `move.w %rS,%dD` → `movem.l %dD,-(%sp) ; movem.w %rS,(2,%sp) ; movem.l (%sp)+,%dD`
///   (the upper word of `%dD` is kept)
/// * `moveq #k,%dD` and `clr.l %dD` → `pea (k).w ; movem.l (%sp)+,%dD`
///
/// Other copies (bytes, memory, `%sp`): `None`.
pub fn neutral(x: &Insn) -> Option<Vec<u8>> {
    let w = x.words[0];
    let push_l = |r: u16| [0x48E7, 1 << (15 - r)];
    let pop_l = |d: u16| [0x4CDF, 1 << d];
    let words: Vec<u16> = if w & 0xC000 == 0 && w & 0x3000 != 0 && x.len == 2 {
        // MOVE: 00 size dreg dmode smode sreg.
        let (size, dreg, dmode, smode, sreg) = (
            (w >> 12) & 3,
            (w >> 9) & 7,
            (w >> 6) & 7,
            (w >> 3) & 7,
            w & 7,
        );
        if dmode != 0 || smode > 1 {
            return None;
        }
        let src = smode * 8 + sreg;
        if src == 15 {
            return None;
        }
        match size {
            2 => [push_l(src), pop_l(dreg)].concat(),
            3 => [&push_l(dreg)[..], &[0x48AF, 1 << src, 2], &pop_l(dreg)[..]].concat(),
            _ => return None,
        }
    } else if w & 0xF100 == 0x7000 {
        // MOVEQ #k,%dD.
        let k = (w & 0xFF) as u8 as i8 as i16 as u16;
        [&[0x4878, k][..], &pop_l((w >> 9) & 7)[..]].concat()
    } else if w & 0xFFF8 == 0x4280 {
        // CLR.L %dD.
        [&[0x4878, 0][..], &pop_l(w & 7)[..]].concat()
    } else {
        return None;
    };
    Some(words.iter().flat_map(|w| w.to_be_bytes()).collect())
}

/// Why the hazard `h` cannot be repaired, or the pieces that replace `F`.
fn plan(
    h: &JoinHazard,
    insns: &[Insn],
    index: &BTreeMap<u32, usize>,
) -> Result<Vec<Piece>, String> {
    let fi = index[&h.copies];
    let li = index[&h.join];
    // Preferably make every copy in F flag-neutral: then L sees the compare's flags on both
    // paths, whatever it does with them.
    let neutral_f: Option<Vec<Piece>> = insns[fi..li]
        .iter()
        .map(|x| match x.flags.class {
            FlagClass::Copy => neutral(x).map(Piece::Bytes),
            _ => Some(Piece::Insn(x.addr)),
        })
        .collect();
    if let Some(with) = neutral_f {
        return Ok(with);
    }
    // Otherwise decide L's conditionals from the branch condition being false.
    let mut with: Vec<Piece> = insns[fi..li].iter().map(|x| Piece::Insn(x.addr)).collect();
    for x in insns.iter().skip(li).take(MAX_SCAN + 1) {
        // The first instruction that rewrites N, Z, V and C (reading none of them) ends it.
        if x.flags.class != FlagClass::None || !x.flags.writes.is_empty() {
            if matches!(x.flags.class, FlagClass::Copy | FlagClass::Arith)
                && x.flags.writes.contains(Ccr::NZVC)
                && !x.reads.intersects(Ccr::NZVC)
            {
                with.push(Piece::Branch {
                    cond: 0,
                    target: Target::Old(x.addr),
                });
                return Ok(with);
            }
            return Err(format!(
                "`{}` at the join writes the flags only in part",
                x.text
            ));
        }
        if x.reads.intersects(Ccr::NZVC) {
            let c = x
                .cond()
                .ok_or_else(|| format!("`{}` reads the flags", x.text))?;
            let v = decided(h.cond, c).ok_or_else(|| {
                format!(
                    "`{}` is not decided by the branch condition `{}` being false",
                    x.text,
                    h.cond.name()
                )
            })?;
            match x.kind {
                Kind::Scc(_) => {
                    let mode = (x.words[0] >> 3) & 7;
                    if mode == 1 || mode == 7 {
                        return Err(format!("`{}`: operand not repairable", x.text));
                    }
                    let mut bytes = Vec::with_capacity(x.len);
                    let op = (x.words[0] & 0xF0FF) | (if v { 0 } else { 1 } << 8);
                    bytes.extend_from_slice(&op.to_be_bytes());
                    for w in &x.words[1..] {
                        bytes.extend_from_slice(&w.to_be_bytes());
                    }
                    with.push(Piece::Bytes(bytes));
                }
                Kind::Bcc(..) => {
                    if v {
                        let t = x.flow.target.expect("Bcc has a target");
                        with.push(Piece::Branch {
                            cond: 0,
                            target: Target::Old(t),
                        });
                        return Ok(with);
                    }
                }
                _ => return Err(format!("`{}` is not an Scc or Bcc", x.text)),
            }
            continue;
        }
        if !plain(x) {
            return Err(format!(
                "`{}` at the join ends the block with the flags live",
                x.text
            ));
        }
        with.push(Piece::Copy(x.addr));
    }
    Err("no flag writer near the join".into())
}

/// Code addresses held in data or code as absolute values (jump tables, pointers): the
/// values of the relocated words that point into the text.
fn code_addresses_held(image: &[u8], base: u32, code_len: u32, abs32: &[u32]) -> BTreeSet<u32> {
    let text_end = base + code_len;
    abs32
        .iter()
        .filter_map(|&off| {
            let o = off as usize;
            let v = u32::from_be_bytes(image.get(o..o + 4)?.try_into().ok()?);
            (v >= base && v < text_end).then_some(v)
        })
        .collect()
}

/// The sweep of `img`'s text and the code addresses its data holds: where both repairs start.
fn sweep_image(img: &LinkedImage<'_>) -> (Sweep, BTreeSet<u32>) {
    let code = &img.image[..img.code_len as usize];
    let sw = sweep(code, img.base, img.functions);
    let held = code_addresses_held(img.image, img.base, img.code_len, img.abs32);
    (sw, held)
}

/// Repairs the hazards across joins in a linked image (module docs); one relayout pass.
pub fn repair_join_hazards(img: LinkedImage<'_>) -> Result<(Relaid, JoinReport), RelayoutError> {
    let (base, functions) = (img.base, img.functions);
    let (sw, abs_entries) = sweep_image(&img);
    let hazards = find(&sw, functions, &abs_entries);
    let insns = &sw.insns;
    let index: BTreeMap<u32, usize> = insns.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();
    let mut report = JoinReport::default();
    let mut edits = Vec::new();
    for h in &hazards {
        match plan(h, insns, &index) {
            Ok(with) => {
                edits.push(Edit {
                    offset: h.copies - base,
                    len: h.join - h.copies,
                    with,
                });
                report.repaired.push((h.copy, h.consumers[0]));
            }
            Err(why) => report.unrepaired.push(Unrepaired {
                copy: h.copy,
                consumer: h.consumers[0],
                why,
            }),
        }
    }
    edits.sort_by_key(|e| (e.offset, e.len));
    let relaid = relayout(img, &edits)?;
    Ok((relaid, report))
}

/// A conditional whose flags come, on some path, from register copies (MOVE/MOVEQ/CLR)
/// and, on another path, from an arithmetic flag producer: LLVM meant the producer's
/// flags on every path (its register copies do not define the CCR), the copies clobber
/// them. Found by walking back from the conditional through the control-flow graph, past
/// flag-neutral instructions and copies, up to the first arithmetic writer on each path.
///
/// Copies on *every* path are a hazard too when, behind them, a conditional branch on the
/// same flag bits already tested the producer (`or ; move ; beq L1 ; move ; L1: beq`): LLVM
/// tests a compare's flags twice for two selects of one condition, while no compiler means a
/// register copy's flags after a branch on the same bits (a copy that loads from memory right
/// before the conditional stays a deliberate test). The driver's install entry had one
/// (`(bus, target, lun) = if kind == 0 {…} else {…}`: byte copies; bus and LUN were 0 on the
/// 4.3 entry) and Ferrite Setup five (`sne ; seq` or `beq` after long copies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathHazard {
    /// The conditional.
    pub consumer: u32,
    /// Every copy between a producer and the conditional, on any path.
    pub copies: Vec<u32>,
    /// The producers reached.
    pub producers: Vec<u32>,
    /// Every instruction on the way back from the conditional to the producers.
    pub on_the_way: Vec<u32>,
}

/// At most this many instructions visited walking back from one conditional.
const MAX_WALK: usize = 256;

fn find_paths(sw: &Sweep, symbols: &[Symbol], extra_entries: &BTreeSet<u32>) -> Vec<PathHazard> {
    let insns = &sw.insns;
    let in_block: BTreeSet<u32> = flag_hazards(sw, symbols).into_iter().map(|h| h.1).collect();
    // Entries not explained by a branch in the code: symbols, restarts, absolute targets.
    let mut opaque: BTreeSet<u32> = sw.restarts.clone();
    opaque.extend(symbols.iter().map(|s| s.addr));
    opaque.extend(extra_entries.iter().copied());
    let mut preds: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, x) in insns.iter().enumerate() {
        if let Some(t) = x.flow.target {
            if x.flow.is_call {
                opaque.insert(t);
            } else {
                preds.entry(t).or_default().push(i);
            }
        }
        opaque.extend(x.flow.abs_target);
    }
    let mut out = Vec::new();
    for (ci, c) in insns.iter().enumerate() {
        let Some(cond) = c.cond() else { continue };
        let bits = cond.reads();
        if !bits.intersects(Ccr::NZVC) {
            continue;
        }
        let mut copies = BTreeSet::new();
        let mut producers = BTreeSet::new();
        let (mut direct_copy, mut direct_arith) = (false, false);
        // Behind a copy, a conditional branch on the same flag bits: the producer's flags
        // were tested once and this conditional means to test them again.
        let mut retested = false;
        // A copy that loads from memory directly before the conditional: a test-by-move.
        let mut direct_load = false;
        let mut unknown = false;
        let mut seen = BTreeSet::new();
        // Work list: (instruction index, already behind a copy on this path).
        let mut work = vec![(ci, false)];
        while let Some((j, behind)) = work.pop() {
            if seen.len() > MAX_WALK {
                unknown = true;
                break;
            }
            let x = &insns[j];
            if opaque.contains(&x.addr) {
                unknown = true;
                break;
            }
            let mut ps: Vec<usize> = preds.get(&x.addr).cloned().unwrap_or_default();
            if j > 0 && insns[j - 1].end() == x.addr && insns[j - 1].flow.falls_through {
                ps.push(j - 1);
            }
            if ps.is_empty() {
                unknown = true;
                break;
            }
            for p in ps {
                if !seen.insert((p, behind)) {
                    continue;
                }
                let y = &insns[p];
                if y.flags.class == FlagClass::Unknown {
                    unknown = true;
                } else if y.flags.writes.intersects(bits) {
                    if y.flags.class == FlagClass::Copy {
                        copies.insert(y.addr);
                        direct_copy |= !behind;
                        direct_load |= !behind && super::verify::loads_memory(y);
                        work.push((p, true));
                    } else {
                        producers.insert(y.addr);
                        direct_arith |= !behind;
                    }
                } else {
                    retested |= behind
                        && matches!(y.kind, Kind::Bcc(..))
                        && y.cond().is_some()
                        && y.reads.intersects(bits);
                    work.push((p, behind));
                }
            }
            if unknown {
                break;
            }
        }
        // Certain: one path delivers a copy's flags, another a producer's. Or a copy's
        // flags on every path while the conditional reads V or C (which a copy clears) or
        // the per-block rule saw a producer whose flags nothing used.
        let hazard = direct_copy
            && !producers.is_empty()
            && (direct_arith
                || bits.intersects(Ccr::C | Ccr::V)
                || in_block.contains(&c.addr)
                || (retested && !direct_load));
        if unknown || !hazard {
            continue;
        }
        let mut on_the_way: Vec<u32> = seen
            .iter()
            .map(|&(p, _)| insns[p].addr)
            .filter(|a| !producers.contains(a))
            .collect();
        on_the_way.sort_unstable();
        on_the_way.dedup();
        out.push(PathHazard {
            consumer: c.addr,
            copies: copies.into_iter().collect(),
            producers: producers.into_iter().collect(),
            on_the_way,
        });
    }
    out
}

/// For a [`PathHazard`] whose copies cannot be made flag-neutral (byte copies): the producer,
/// if running it again right before the conditional gives the flags it gave then. That holds
/// when it is the only producer, only sets flags (`cmp`, `cmpi`, `tst`), reads only data
/// registers and immediates, and nothing on the way back has one of those registers in its last
/// operand (what 68k instructions write; EXG, MOVEM and calls are refused outright).
fn retest(sw: &Sweep, index: &BTreeMap<u32, usize>, h: &PathHazard) -> Option<u32> {
    let [p] = h.producers.as_slice() else {
        return None;
    };
    let x = &sw.insns[*index.get(p)?];
    let (mnemonic, ops) = x.text.split_once(' ')?;
    let op = mnemonic.split('.').next()?;
    if !matches!(op, "cmp" | "cmpi" | "tst") || ops.contains('(') || ops.contains("%a") {
        return None;
    }
    let regs: Vec<&str> = ops
        .split(',')
        .map(str::trim)
        .filter(|o| o.starts_with("%d"))
        .collect();
    for a in &h.on_the_way {
        let y = &sw.insns[*index.get(a)?];
        if y.flow.is_call || y.text.starts_with("movem") || y.text.starts_with("exg") {
            return None;
        }
        // What an instruction writes is its last operand (besides EXG and MOVEM, refused).
        let dest = y
            .text
            .split_once(' ')
            .map(|(_, a)| super::verify::top_level_operands(a))
            .and_then(|o| o.last().map(|d| d.to_string()))
            .unwrap_or_default();
        if regs.iter().any(|r| dest.contains(r)) {
            return None;
        }
    }
    Some(*p)
}

pub(crate) fn path_hazards_in(sw: &Sweep, symbols: &[Symbol]) -> Vec<PathHazard> {
    find_paths(sw, symbols, &BTreeSet::new())
}

/// The [`PathHazard`]s of `code` (run-time address `base`).
pub fn path_hazards(code: &[u8], base: u32, symbols: &[Symbol]) -> Vec<PathHazard> {
    let sw = sweep(code, base, symbols);
    find_paths(&sw, symbols, &BTreeSet::new())
}

/// Repairs [`PathHazard`]s by making each copy involved flag-neutral ([`neutral`]), or, when a
/// copy has no such form (bytes), by running the producer again right before the conditional
/// when that gives the same flags ([`retest`]); one relayout pass.
pub fn repair_path_hazards(img: LinkedImage<'_>) -> Result<(Relaid, JoinReport), RelayoutError> {
    let (base, functions) = (img.base, img.functions);
    let (sw, abs_entries) = sweep_image(&img);
    let index: BTreeMap<u32, usize> = sw
        .insns
        .iter()
        .enumerate()
        .map(|(i, x)| (x.addr, i))
        .collect();
    let mut report = JoinReport::default();
    let mut fix: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let mut retests: BTreeMap<u32, u32> = BTreeMap::new();
    for h in find_paths(&sw, functions, &abs_entries) {
        let planned: Option<Vec<(u32, Vec<u8>)>> = h
            .copies
            .iter()
            .map(|&a| neutral(&sw.insns[index[&a]]).map(|b| (a, b)))
            .collect();
        match planned {
            Some(list) => {
                for &(a, _) in &list {
                    report.repaired.push((a, h.consumer));
                }
                fix.extend(list);
            }
            None => match retest(&sw, &index, &h) {
                Some(p) => {
                    for &a in &h.copies {
                        report.repaired.push((a, h.consumer));
                    }
                    retests.insert(h.consumer, p);
                }
                None => report.unrepaired.push(Unrepaired {
                    copy: h.copies[0],
                    consumer: h.consumer,
                    why: "a copy on the way has no flag-neutral equivalent, and the flags \
                          cannot be tested again"
                        .into(),
                }),
            },
        }
    }
    let mut edits: Vec<Edit> = fix
        .into_iter()
        .map(|(a, bytes)| Edit {
            offset: a - base,
            len: sw.insns[index[&a]].len as u32,
            with: vec![Piece::Bytes(bytes)],
        })
        .collect();
    // The test again, right before the conditional (references to the conditional reach it).
    edits.extend(retests.into_iter().map(|(c, p)| Edit {
        offset: c - base,
        len: sw.insns[index[&c]].len as u32,
        with: vec![Piece::Copy(p), Piece::Insn(c)],
    }));
    edits.sort_by_key(|e| e.offset);
    let relaid = relayout(img, &edits)?;
    Ok((relaid, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decided_by_the_branch() {
        assert_eq!(decided(Cond::Lt, Cond::Lt), Some(false));
        assert_eq!(decided(Cond::Lt, Cond::Ge), Some(true));
        assert_eq!(decided(Cond::Ls, Cond::Ne), Some(true));
        assert_eq!(decided(Cond::Ls, Cond::Cs), Some(false));
        assert_eq!(decided(Cond::Eq, Cond::Gt), None);
        assert_eq!(decided(Cond::Cs, Cond::Hi), None);
    }

    fn words(ws: &[u16]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    // sub.w %d3,%d4 ; blt.s L ; move.w %d3,%d1 ; L: slt %d3 ; sge %d4 ; move.w %d1,(%a1) ; rts
    const DIAMOND: [u16; 7] = [0x9843, 0x6D02, 0x3203, 0x5DC3, 0x5CC4, 0x3281, 0x4E75];

    #[test]
    fn finds_and_repairs_the_select_diamond() {
        let code = words(&DIAMOND);
        let base = 0x1000;
        let syms = [Symbol {
            name: "f".into(),
            addr: base,
            size: code.len() as u32,
        }];
        let hz = join_hazards(&code, base, &syms);
        assert_eq!(hz.len(), 1);
        let h = &hz[0];
        assert_eq!(
            (h.branch, h.copies, h.copy, h.join),
            (0x1002, 0x1004, 0x1004, 0x1006)
        );
        assert_eq!(h.consumers, vec![0x1006, 0x1008]);

        let (relaid, rep) = repair_join_hazards(LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&code, base, code.len() as u32)
        })
        .unwrap();
        assert_eq!(rep.repaired.len(), 1);
        assert!(rep.unrepaired.is_empty());
        // blt.s L ; movem.l %d1,-(%sp) ; movem.w %d3,(2,%sp) ; movem.l (%sp)+,%d1 ; L: slt ; …
        let want = words(&[
            0x9843, 0x6D0E, 0x48E7, 0x4000, 0x48AF, 0x0008, 0x0002, 0x4CDF, 0x0002, 0x5DC3, 0x5CC4,
            0x3281, 0x4E75,
        ]);
        assert_eq!(&relaid.image[..want.len()], &want[..]);
        let syms2 = [Symbol {
            name: "f".into(),
            addr: base,
            size: relaid.code_len,
        }];
        assert!(join_hazards(&relaid.image[..relaid.code_len as usize], base, &syms2).is_empty());
    }

    #[test]
    fn byte_copy_decided() {
        // sub.w %d3,%d4 ; blt.s L ; move.b %d3,%d1 ; L: slt %d3 ; sge %d4 ; move.w %d1,(%a1) ; rts
        let code = words(&[0x9843, 0x6D02, 0x1203, 0x5DC3, 0x5CC4, 0x3281, 0x4E75]);
        let base = 0x1000;
        let syms = [Symbol {
            name: "f".into(),
            addr: base,
            size: code.len() as u32,
        }];
        let (relaid, rep) = repair_join_hazards(LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&code, base, code.len() as u32)
        })
        .unwrap();
        assert_eq!(rep.repaired.len(), 1);
        // blt.s L ; move.b %d3,%d1 ; sf %d3 ; st %d4 ; bra.s S ; L: slt ; sge ; S: move.w ; rts
        let want = words(&[
            0x9843, 0x6D08, 0x1203, 0x51C3, 0x50C4, 0x6004, 0x5DC3, 0x5CC4, 0x3281, 0x4E75,
        ]);
        assert_eq!(&relaid.image[..want.len()], &want[..]);
    }

    #[test]
    fn neutral_sequences() {
        let base = 0x1000;
        let one = |ws: &[u16]| {
            let code = words(ws);
            super::super::decode::decode(&code, 0, base).unwrap()
        };
        // move.l %a4,%d1
        assert_eq!(
            neutral(&one(&[0x220C])),
            Some(words(&[0x48E7, 0x0008, 0x4CDF, 0x0002]))
        );
        // moveq #-1,%d2
        assert_eq!(
            neutral(&one(&[0x74FF])),
            Some(words(&[0x4878, 0xFFFF, 0x4CDF, 0x0004]))
        );
        // clr.l %d7
        assert_eq!(
            neutral(&one(&[0x4287])),
            Some(words(&[0x4878, 0x0000, 0x4CDF, 0x0080]))
        );
        // move.b %d3,%d1 ; move.l %sp,%d0 ; move.w %d1,(%a1)
        assert_eq!(neutral(&one(&[0x1203])), None);
        assert_eq!(neutral(&one(&[0x200F])), None);
        assert_eq!(neutral(&one(&[0x3281])), None);
    }

    #[test]
    fn undecided_condition_is_left() {
        // sub.w %d3,%d4 ; beq.s L ; move.b %d3,%d1 ; L: slt %d3 ; move.w %d1,(%a1) ; rts
        let code = words(&[0x9843, 0x6702, 0x1203, 0x5DC3, 0x3281, 0x4E75]);
        let base = 0x1000;
        let syms = [Symbol {
            name: "f".into(),
            addr: base,
            size: code.len() as u32,
        }];
        let (_, rep) = repair_join_hazards(LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&code, base, code.len() as u32)
        })
        .unwrap();
        assert!(rep.repaired.is_empty());
        assert_eq!(rep.unrepaired.len(), 1);
    }

    #[test]
    fn copies_on_both_arms() {
        // sub.w %d1,%d2 ; bcs.s A ; move.w %d1,%d7 ; bra.s B ; A: move.w %d3,%d7 ;
        // B: bhi.s C ; move.w %d1,%d3 ; C: rts
        let code = words(&[
            0x9441, 0x6504, 0x3E01, 0x6002, 0x3E03, 0x6202, 0x3601, 0x4E75,
        ]);
        let base = 0x1000;
        let syms = [Symbol {
            name: "f".into(),
            addr: base,
            size: code.len() as u32,
        }];
        let hz = path_hazards(&code, base, &syms);
        assert_eq!(hz.len(), 1, "{hz:?}");
        assert_eq!(hz[0].consumer, 0x100a);
        assert_eq!(hz[0].copies, vec![0x1004, 0x1008]);
        assert_eq!(hz[0].producers, vec![0x1000]);
        let (relaid, rep) = repair_path_hazards(LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&code, base, code.len() as u32)
        })
        .unwrap();
        assert_eq!(rep.repaired.len(), 2);
        let syms2 = [Symbol {
            name: "f".into(),
            addr: base,
            size: relaid.code_len,
        }];
        assert!(path_hazards(&relaid.image[..relaid.code_len as usize], base, &syms2).is_empty());
    }

    #[test]
    fn a_copy_used_as_a_test_is_left() {
        // jsr (%a0) ; move.l %d0,%d1 ; beq.s L ; rts ; L: rts
        let code = words(&[0x4E90, 0x2200, 0x6702, 0x4E75, 0x4E75]);
        let base = 0x1000;
        let syms = [Symbol {
            name: "f".into(),
            addr: base,
            size: code.len() as u32,
        }];
        assert!(path_hazards(&code, base, &syms).is_empty());
    }

    #[test]
    fn entered_copy_block_is_not_a_hazard() {
        // bra.s F ; sub.w ; blt.s L ; F: move.w %d3,%d1 ; L: slt %d3 ; rts
        let code = words(&[0x6004, 0x9843, 0x6D02, 0x3203, 0x5DC3, 0x4E75]);
        let base = 0x1000;
        let syms = [Symbol {
            name: "f".into(),
            addr: base,
            size: code.len() as u32,
        }];
        assert!(join_hazards(&code, base, &syms).is_empty());
    }
}
