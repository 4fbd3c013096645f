//! Where the driver's cycles go: a per-function profile of what the emulated Mac ran, named from the build's symbol map (`ferrite-driver.syms`, written by
//! `cargo xtask build` next to the blob in `target/m68k-build/standard/`).
//!
//! The machine counts every executed instruction's cycles by address once a test calls
//! [`ferrite_emu::Machine::start_pc_profile`]; [`driver_profile`] ends the count and sums
//! the addresses inside the Ferrite driver per function (the nearest symbol at or below the
//! address), the rest as "outside the driver" (the test's own glue, if any). The emulated Mac's OS services are host routines
//! that cost no cycles, so the total is the driver's own cycles for the work.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use ferrite_emu::Machine;
use ferrite_shared::driver_blob::code_key;

/// One function's share of a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionCost {
    pub name: String,
    pub cycles: u64,
    pub instructions: u64,
}

/// The symbol map of `blob`'s build: (blob offset, name), sorted; `None` when the map is not
/// there or belongs to another build (its code key differs).
pub fn driver_symbols(blob: &[u8]) -> Option<Vec<(u32, String)>> {
    let dir = std::env::var_os("FERRITE_M68K_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/m68k"));
    let path = dir.join("../m68k-build/standard/ferrite-driver.syms");
    let text = std::fs::read_to_string(path).ok()?;
    let (key, _) = code_key(blob)?;
    let mut lines = text.lines();
    if lines.next()? != format!("key {key:016x}") {
        return None;
    }
    let mut syms: Vec<(u32, String)> = lines
        .filter_map(|l| {
            let mut f = l.splitn(3, ' ');
            let addr = u32::from_str_radix(f.next()?, 16).ok()?;
            let _size = f.next()?;
            let name = f.next()?;
            // Object and codegen-unit names are not code, nor are the glue's absolute
            // addresses (`JIODone`, a low-memory vector).
            (!name.ends_with(".o") && !name.contains("-cgu.") && name != "JIODone")
                .then(|| (addr, format!("{:#}", rustc_demangle::demangle(name))))
        })
        .collect();
    syms.sort();
    syms.dedup_by_key(|s| s.0);
    Some(syms)
}

/// The cycles by driver function, most first, of what ran since
/// [`Machine::start_pc_profile`] (which this ends); `syms` from [`driver_symbols`] (without
/// them, by offset in the blob).
pub fn driver_profile(m: &mut Machine, syms: Option<&[(u32, String)]>) -> Vec<FunctionCost> {
    let (base, code_len) = m.ferrite_driver_code().expect("a Ferrite driver is loaded");
    let counts = m.take_pc_profile();
    let mut by_fn: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (pc, c) in counts {
        let off = pc.wrapping_sub(base);
        let name = if off >= code_len {
            "(outside the driver)".to_string()
        } else {
            match syms.and_then(|s| s.iter().rev().find(|(a, _)| *a <= off)) {
                Some((_, n)) => n.clone(),
                None => format!("${off:04X}"),
            }
        };
        let e = by_fn.entry(name).or_default();
        e.0 += c.cycles;
        e.1 += c.instructions;
    }
    let mut v: Vec<FunctionCost> = by_fn
        .into_iter()
        .map(|(name, (cycles, instructions))| FunctionCost {
            name,
            cycles,
            instructions,
        })
        .collect();
    v.sort_by(|a, b| b.cycles.cmp(&a.cycles).then(a.name.cmp(&b.name)));
    v
}

/// A profile as Markdown rows: function, cycles, instructions.
pub fn profile_table(p: &[FunctionCost]) -> String {
    let mut s = String::from("| function | cycles | instructions |\n|---|---:|---:|\n");
    for f in p {
        s += &format!("| `{}` | {} | {} |\n", f.name, f.cycles, f.instructions);
    }
    s
}
