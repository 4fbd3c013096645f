//! Driver instruction coverage: the instructions of the shipped blob the emulated test suites
//! executed (recorded by `ferrite_emu::coverage` under `FERRITE_COVERAGE_DIR`), by function.
//!
//! The blob's instructions are found the way `cargo xtask verify` finds them (a sweep over
//! its code that steps over the head's data); the linked ELF only names them. Alignment
//! padding after a function's end is not an instruction of any function and is not counted.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use ferrite_shared::driver_blob;

use crate::elf::Linked;
use crate::m68k::verify::sweep_with_data;

/// One function's (or head routine's) figures.
#[derive(Debug, Clone)]
pub struct FunctionCoverage {
    /// Demangled name, without the crate hash.
    pub name: String,
    pub addr: u32,
    pub instructions: usize,
    pub executed: usize,
    /// Runs of never-executed instructions: `[start, end)` blob offsets and their count.
    pub unexecuted: Vec<(u32, u32, usize)>,
}

/// The whole blob's figures.
#[derive(Debug, Clone)]
pub struct DriverCoverage {
    pub functions: Vec<FunctionCoverage>,
    /// Coverage files merged.
    pub files: usize,
}

impl DriverCoverage {
    pub fn instructions(&self) -> usize {
        self.functions.iter().map(|f| f.instructions).sum()
    }
    pub fn executed(&self) -> usize {
        self.functions.iter().map(|f| f.executed).sum()
    }
    /// Per mille, rounded down (integer, so a threshold check is exact).
    pub fn per_mille(&self) -> usize {
        (self.executed() * 1000)
            .checked_div(self.instructions())
            .unwrap_or(0)
    }
    /// `driver coverage: N/M instructions (P%)`.
    pub fn summary(&self) -> String {
        let (n, m) = (self.executed(), self.instructions());
        format!(
            "driver coverage: {n}/{m} instructions ({:.1}%)",
            100.0 * n as f64 / m.max(1) as f64
        )
    }

    /// A table of every function with never-executed instructions (Markdown).
    pub fn table(&self) -> String {
        let mut s = String::from(
            "| Function | Instructions | Executed | Never executed (blob offsets) |\n\
             |---|---:|---:|---|\n",
        );
        for f in self
            .functions
            .iter()
            .filter(|f| f.executed < f.instructions)
        {
            let runs: Vec<String> = f
                .unexecuted
                .iter()
                .map(|&(a, b, n)| format!("{a:#06x}–{b:#06x} ({n})"))
                .collect();
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {} |",
                f.name,
                f.instructions,
                f.executed,
                runs.join(", ")
            );
        }
        s
    }
}

/// Short name of a (possibly mangled) symbol: demangled, without the hash.
fn short_name(sym: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(sym))
}

/// The symbol map the build writes next to a driver blob (`<name>.syms` in the build
/// directory): the code key, then one `address size name` line per symbol, at the final
/// (relaid) addresses.
pub fn symbol_map(linked: &Linked) -> String {
    let key = driver_blob::code_key(&linked.image).map_or(0, |k| k.0);
    let mut s = format!("key {key:016x}\n");
    for (name, addr) in &linked.symbols {
        let size = linked
            .functions
            .iter()
            .find(|f| f.addr == *addr && f.name == *name)
            .map_or(0, |f| f.size);
        let _ = writeln!(s, "{addr:08x} {size:08x} {name}");
    }
    s
}

/// Measure the coverage of `blob` (as shipped) from the `.cov` files in `dir`, naming
/// functions from the build's symbol map `syms` ([`symbol_map`]).
pub fn measure(blob: &[u8], syms: &str, dir: &Path) -> Result<DriverCoverage> {
    let (key, code_len) = driver_blob::code_key(blob).context("not a Ferrite driver blob")?;
    if syms.lines().next() != Some(format!("key {key:016x}").as_str()) {
        bail!("the driver's symbol map is not the blob's build (run `cargo xtask build`)");
    }
    let mut symbols: Vec<(String, u32, u32)> = Vec::new();
    for line in syms.lines().skip(1) {
        let mut f = line.splitn(3, ' ');
        let (Some(a), Some(z), Some(n)) = (f.next(), f.next(), f.next()) else {
            bail!("bad symbol-map line {line:?}");
        };
        symbols.push((
            n.to_string(),
            u32::from_str_radix(a, 16)?,
            u32::from_str_radix(z, 16)?,
        ));
    }
    // The union of every file recorded for this blob.
    let prefix = format!("{key:016x}-");
    let mut bitmap = vec![0u8; code_len.div_ceil(16)];
    let mut files = 0;
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && name.ends_with(".cov") {
            let bytes = std::fs::read(e.path())?;
            for (a, b) in bitmap.iter_mut().zip(&bytes) {
                *a |= b;
            }
            files += 1;
        }
    }
    if files == 0 {
        bail!(
            "no coverage was recorded for this driver in {} (key {key:016x})",
            dir.display()
        );
    }
    let data: Vec<(u32, u32)> = driver_blob::head_data(blob)
        .context("the blob is too short for its head")?
        .iter()
        .map(|&(s, e)| (s as u32, e as u32))
        .collect();
    let insns = sweep_with_data(&blob[..code_len], 0, &[], &data).insns;

    // Symbols inside the code, with their extent: a sized symbol its size, an unsized one
    // (the head's assembly) up to the next symbol.
    let mut syms: BTreeMap<u32, (String, Option<u32>)> = BTreeMap::new();
    for (name, addr, size) in &symbols {
        if (*addr as usize) < code_len {
            let size = (*size > 0).then_some(*size);
            let e = syms.entry(*addr).or_insert((short_name(name), size));
            if e.1.is_none() && size.is_some() {
                *e = (short_name(name), size);
            }
        }
    }
    let starts: Vec<u32> = syms.keys().copied().collect();
    let mut by_fn: BTreeMap<u32, FunctionCoverage> = BTreeMap::new();
    for i in &insns {
        let Some(&owner) = starts.iter().rev().find(|&&s| s <= i.addr) else {
            continue;
        };
        let (name, size) = &syms[&owner];
        if size.is_some_and(|sz| i.addr >= owner + sz) {
            continue; // padding after the function
        }
        let f = by_fn.entry(owner).or_insert_with(|| FunctionCoverage {
            name: name.clone(),
            addr: owner,
            instructions: 0,
            executed: 0,
            unexecuted: Vec::new(),
        });
        f.instructions += 1;
        if ferrite_emu::coverage::ran(&bitmap, i.addr as usize) {
            f.executed += 1;
        } else {
            let end = i.addr + i.len as u32;
            match f.unexecuted.last_mut() {
                Some((_, e, n)) if *e == i.addr => {
                    *e = end;
                    *n += 1;
                }
                _ => f.unexecuted.push((i.addr, end, 1)),
            }
        }
    }
    Ok(DriverCoverage {
        functions: by_fn.into_values().collect(),
        files,
    })
}
