//! Work-around for the M68k backend's MOVEM collapse: spills merged out of register order.
//!
//! LLVM M68k spills and reloads registers with single-register MOVEMs (`MOVM32pm`/`MOVM32mp`,
//! which leave the CCR alone). Just before emission, `M68kCollapseMOVEMPass` merges a run of
//! such MOVEMs on the same base into one, growing the run by 4 bytes at its start or at its
//! end. It decides where the new register may go by comparing the new register's mask bit with
//! the whole mask collected so far (`NewMask > Mask` "ascending", `<` "descending"), not with its
//! highest or lowest register. A MOVEM always stores (and loads) its registers in register order
//! (D0 … D7, A0 … A7) at increasing addresses, so a register that is only lower than the
//! *highest* register collected can be merged at the start while it belongs in the middle:
//!
//! ```text
//!     movem.l %d5,(92,%sp)          ; v0's high half
//!     movem.l %d7,(96,%sp)          ; v0's low half   (0x80 > 0x20: appended)
//!     movem.l %d6,(88,%sp)          ; another value   (0x40 < 0xA0: prepended)
//! becomes
//!     movem.l %d5-%d7,(88,%sp)      ; d5 -> 88, d6 -> 92, d7 -> 96
//! ```
//!
//! and the later reload of slot 92 gets `%d6` instead of v0's high half (seed 2 program 54 of
//! `cargo xtask fuzz-codegen`: `v0`'s high half became `s1.f1`). Loads merge the same way.
//!
//! Nothing in the emitted code tells a wrong merge from a right one, so the check works on the
//! machine code *before* the pass: `llc -stop-before=m68k-collapse-movem` prints it as MIR,
//! [`bad_merges`] replays the pass on it and compares, for every register of every merged run,
//! the address the merged MOVEM uses with the one the single MOVEMs used. Only codegen units
//! whose assembly holds a merged MOVEM ([`has_merged_movem`]) are checked. A unit with a
//! wrong merge is compiled again with the basic register allocator, whose spills did not meet
//! the bug in the cases seen, and checked again. What is still wrong then (the prologue's
//! save of the callee-saved registers merged with a spill of a lower register, as in
//! `compiler_builtins`' `k_sin`) is written next to the crate ([`LIST_SUFFIX`]); after linking,
//! [`linked_findings`] reports every listed function the artifact contains, so a shipped
//! artifact with one is not written (fail closed), and one that is never linked costs nothing.

/// The file next to a crate's outputs that lists the functions still merged wrongly, one
/// (mangled) symbol a line, each followed by a tab and the description.
pub const LIST_SUFFIX: &str = ".movem.txt";

/// The contents of a [`LIST_SUFFIX`] file.
pub fn list(bad: &[BadMerge]) -> String {
    bad.iter()
        .map(|b| format!("{}\t{b}\n", b.function))
        .collect()
}

/// The listed functions (every [`LIST_SUFFIX`] file under `dir`, recursively) that `symbols`
/// (a linked artifact's `(mangled name, address)`) defines: `(address, symbol, description)`.
pub fn linked_findings(
    dir: &std::path::Path,
    symbols: &[(String, u32)],
) -> std::io::Result<Vec<(u32, String, String)>> {
    let mut listed: Vec<(String, String)> = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e?.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.to_string_lossy().ends_with(LIST_SUFFIX) {
                for line in std::fs::read_to_string(&p)?.lines() {
                    if let Some((f, why)) = line.split_once('\t') {
                        listed.push((f.to_string(), why.to_string()));
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for (name, addr) in symbols {
        if let Some((_, why)) = listed.iter().find(|(f, _)| f == name) {
            out.push((*addr, name.clone(), why.clone()));
        }
    }
    Ok(out)
}

/// The `llc` options a codegen unit with a wrong merge is compiled again with.
pub const FALLBACK_LLC_ARGS: &[&str] = &["-regalloc=basic"];

/// One run of single-register MOVEMs the pass merges into a MOVEM that moves a register to or
/// from another address than the single MOVEMs did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadMerge {
    /// The function (its symbol name).
    pub function: String,
    /// Loads (`movem.l (d,%sp),…`) rather than stores.
    pub load: bool,
    /// The MOVEMs of the run as `(register, offset)`, in program order.
    pub run: Vec<(String, i32)>,
    /// The merged MOVEM's offset.
    pub start: i32,
}

impl std::fmt::Display for BadMerge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let run: Vec<String> = self.run.iter().map(|(r, o)| format!("%{r}@{o}")).collect();
        write!(
            f,
            "{}: the MOVEM {}s {} are merged into one at offset {} that moves the registers \
             in register order, so some go to other slots",
            self.function,
            if self.load { "load" } else { "store" },
            run.join(", "),
            self.start
        )
    }
}

const REGS: [&str; 16] = [
    "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "sp",
];

/// Whether LLVM's assembly `asm` holds a MOVEM of several registers that is not a prologue or
/// epilogue save (those are commented `Folded Spill`/`Folded Reload`): a merge to check.
pub fn has_merged_movem(asm: &str) -> bool {
    asm.lines().any(|l| {
        let t = l.trim_start();
        let Some(ops) = t.strip_prefix("movem.l") else {
            return false;
        };
        let ops = ops.split(';').next().unwrap_or("").trim();
        let list = if ops.starts_with('%') {
            ops.split(',').next().unwrap_or("")
        } else {
            ops.rsplit(',').next().unwrap_or("")
        };
        (list.contains('-') || list.contains('/')) && !t.contains("Folded")
    })
}

/// One MOVEM of the MIR: load or store, base register, offset, register mask.
struct Movem<'a> {
    load: bool,
    base: &'a str,
    offset: i32,
    mask: u16,
}

/// `MOVM32pm off, $base, mask` (store), `MOVM32mp mask, off, $base` (load), and the
/// `(%base)` forms `MOVM32jm $base, mask` / `MOVM32mj mask, $base` (offset 0).
fn parse_movem(line: &str) -> Option<Movem<'_>> {
    let mut t = line.trim_start();
    for flag in ["frame-setup ", "frame-destroy "] {
        if let Some(r) = t.strip_prefix(flag) {
            t = r;
        }
    }
    let (op, rest) = t.split_once(' ')?;
    let ops: Vec<&str> = rest.split(',').map(str::trim).take(3).collect();
    let num = |s: &str| s.parse::<i64>().ok();
    let (load, base, offset, mask) = match op {
        "MOVM32pm" => (false, ops.get(1)?, num(ops.first()?)?, num(ops.get(2)?)?),
        "MOVM32mp" => (true, ops.get(2)?, num(ops.get(1)?)?, num(ops.first()?)?),
        "MOVM32jm" => (false, ops.first()?, 0, num(ops.get(1)?)?),
        "MOVM32mj" => (true, ops.get(1)?, 0, num(ops.first()?)?),
        _ => return None,
    };
    Some(Movem {
        load,
        base: base.split(' ').next()?,
        offset: i32::try_from(offset).ok()?,
        mask: u16::try_from(mask).ok()?,
    })
}

/// The run the pass is growing (its `MOVEMState`).
struct Run<'a> {
    load: bool,
    base: &'a str,
    start: i32,
    stop: i32,
    mask: u16,
    items: Vec<(u16, i32)>,
}

impl Run<'_> {
    /// The pass's `update`: may `(offset, mask)` join the run?
    fn grow(&mut self, offset: i32, mask: u16) -> bool {
        if self.mask & mask != 0 || mask == self.mask {
            return false;
        }
        if mask < self.mask && offset == self.start - 4 {
            self.start -= 4;
        } else if mask > self.mask && offset == self.stop + 4 {
            self.stop += 4;
        } else {
            return false;
        }
        self.mask |= mask;
        self.items.push((mask, offset));
        true
    }

    /// Register → offset as the single MOVEMs move them, and as the merged one does.
    fn wrong(&self) -> bool {
        let mut meant = [None; 16];
        for &(mask, offset) in &self.items {
            let mut at = offset;
            for (r, slot) in meant.iter_mut().enumerate() {
                if mask >> r & 1 != 0 {
                    *slot = Some(at);
                    at += 4;
                }
            }
        }
        let mut at = self.start;
        for (r, slot) in meant.iter().enumerate() {
            if self.mask >> r & 1 != 0 {
                if *slot != Some(at) {
                    return true;
                }
                at += 4;
            }
        }
        false
    }
}

/// Replays `M68kCollapseMOVEMPass` on `mir` (the output of `llc -stop-before=m68k-collapse-movem`)
/// and returns the runs whose merged MOVEM moves a register to or from another slot.
pub fn bad_merges(mir: &str) -> Vec<BadMerge> {
    let mut out = Vec::new();
    let mut function = String::new();
    let mut run: Option<Run> = None;
    let mut finish = |run: &mut Option<Run>, function: &str| {
        if let Some(r) = run.take()
            && r.items.len() > 1
            && r.wrong()
        {
            out.push(BadMerge {
                function: function.to_string(),
                load: r.load,
                run: r
                    .items
                    .iter()
                    .flat_map(|&(mask, offset)| {
                        (0..16)
                            .filter(move |b| mask >> b & 1 != 0)
                            .map(move |b| (REGS[b].to_string(), offset))
                    })
                    .collect(),
                start: r.start,
            });
        }
    };
    for line in mir.lines() {
        if let Some(name) = line.strip_prefix("name:") {
            finish(&mut run, &function);
            function = name.trim().to_string();
            continue;
        }
        let t = line.trim_start();
        // Block headers and their `successors:`/`liveins:` lines end a run (the pass works
        // block by block); so does every instruction that is not a MOVEM.
        let Some(m) = parse_movem(t) else {
            if !t.is_empty() && !t.starts_with(';') {
                finish(&mut run, &function);
            }
            continue;
        };
        if let Some(r) = run.as_mut()
            && r.load == m.load
            && r.base == m.base
            && r.grow(m.offset, m.mask)
        {
            continue;
        }
        finish(&mut run, &function);
        run = Some(Run {
            load: m.load,
            base: m.base,
            start: m.offset,
            stop: m.offset,
            mask: m.mask,
            items: vec![(m.mask, m.offset)],
        });
    }
    finish(&mut run, &function);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_movem_in_asm() {
        assert!(has_merged_movem("\tmovem.l\t%d5-%d7, (88,%sp)\n"));
        assert!(has_merged_movem("\tmovem.l\t(4,%sp), %d2/%d4\n"));
        assert!(!has_merged_movem(
            "\tmovem.l\t%d2-%d7/%a2-%a6, (160,%sp)      ; 48-byte Folded Spill\n\
             \tmovem.l\t%d5, (88,%sp)\n\tmovem.l\t(92,%sp), %d0\n"
        ));
    }

    #[test]
    fn listed_functions_are_reported_when_linked() {
        let mir = "name: _RNvf\n  bb.0:\n    MOVM32pm 92, $sp, 32, implicit $d5\n    MOVM32pm 96, $sp, 128, implicit $d7\n    MOVM32pm 88, $sp, 64, implicit $d6\n";
        let bad = bad_merges(mir);
        assert_eq!(bad.len(), 1);
        let dir = std::env::temp_dir().join(format!("ferrite-movem-list-{}", std::process::id()));
        let out = dir.join("build/x/out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join(format!("x-123{LIST_SUFFIX}")), list(&bad)).unwrap();
        let linked = [("_RNvg".to_string(), 0x100), ("_RNvf".to_string(), 0x200)];
        let found = linked_findings(&dir, &linked).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].0, found[0].1.as_str()), (0x200, "_RNvf"));
        assert!(found[0].2.contains("%d5@92"), "{}", found[0].2);
        // Not linked: nothing to report.
        assert!(linked_findings(&dir, &linked[..1]).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn multi_register_entries_are_compared_by_register() {
        // A prologue save followed by a spill of a register that sorts inside it.
        let mir = "name: f\n  bb.0:\n    frame-setup MOVM32pm 160, $sp, 31996, implicit killed $d2\n    MOVM32pm 156, $sp, 256, implicit $a0\n";
        assert_eq!(bad_merges(mir).len(), 1);
        let mir = "name: f\n  bb.0:\n    frame-setup MOVM32pm 160, $sp, 31996, implicit killed $d2\n    MOVM32pm 156, $sp, 2, implicit $d1\n";
        assert!(bad_merges(mir).is_empty());
    }
}
