//! Hand-written 68k assembly → verified flat image, for the emulated Mac's test drivers and
//! programs (`tests/`). The source is GNU `as` syntax for the 68000 (`m68k-linux-gnu-as
//! -m68000`), linked at 0 with `link/flat.ld`; every global symbol becomes an export. The
//! code is then checked by the same verifier as compiled artifacts, so a test driver cannot
//! silently use an instruction the modelled CPU lacks.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use ferrite_shared::flat::FlatImage;
use object::{Object, ObjectSymbol};

use crate::elf::read_linked;
use crate::m68k::decode::Cpu;
use crate::m68k::verify::{Rule, Symbol, verify};

/// Where temporary objects go (under the system temp dir, one per process).
fn work_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("ferrite-asm-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&d);
    d
}

fn tool(name: &str) -> Result<Command> {
    let probe = Command::new(name).arg("--version").output();
    match probe {
        Ok(o) if o.status.success() => Ok(Command::new(name)),
        _ => bail!(
            "`{name}` is missing: run `cargo xtask setup` (it installs binutils-m68k-linux-gnu)"
        ),
    }
}

/// Assemble `source` (named `name` in messages) for the 68000 and return the flat image with
/// every global symbol exported. Fails with the assembler's message, or with the verifier's
/// findings when the code is not clean 68000 code. Privileged instructions are refused; use
/// [`assemble_flat_supervisor`] for code that, like a Mac driver, runs in supervisor mode.
pub fn assemble_flat(name: &str, source: &str) -> Result<FlatImage> {
    assemble(name, source, false)
}

/// [`assemble_flat`] for supervisor-mode code: privileged instructions (e.g. `move.w
/// #$2700,%sr` to mask interrupts) are allowed; every other verifier rule still applies.
pub fn assemble_flat_supervisor(name: &str, source: &str) -> Result<FlatImage> {
    assemble(name, source, true)
}

fn assemble(name: &str, source: &str, supervisor: bool) -> Result<FlatImage> {
    // One set of files per call: tests assemble the same source from several threads at
    // once, and the clock alone did not keep their names apart.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = work_dir();
    let unique = format!(
        "{name}-{}",
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let src = dir.join(format!("{unique}.S"));
    let obj = dir.join(format!("{unique}.o"));
    let elf = dir.join(format!("{unique}.elf"));
    std::fs::write(&src, source)?;
    let out = tool("m68k-linux-gnu-as")?
        .args(["-m68000", "-o"])
        .arg(&obj)
        .arg(&src)
        .output()
        .context("could not run m68k-linux-gnu-as")?;
    if !out.status.success() {
        bail!(
            "assembling {name} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/flat.ld");
    let out = tool("m68k-linux-gnu-ld")?
        .args(["-q", "--no-warn-rwx-segments", "-e", "0", "-T"])
        .arg(&script)
        .arg("-o")
        .arg(&elf)
        .arg(&obj)
        .output()
        .context("could not run m68k-linux-gnu-ld")?;
    if !out.status.success() {
        bail!(
            "linking {name} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let data = std::fs::read(&elf)?;
    for f in [&src, &obj, &elf] {
        let _ = std::fs::remove_file(f);
    }
    let linked = read_linked(&data).with_context(|| format!("reading the linked {name}"))?;
    let file = object::File::parse(&*data)?;
    let globals: Vec<String> = file
        .symbols()
        .filter(|s| s.is_global() && !s.is_undefined() && s.section_index().is_some())
        .filter_map(|s| s.name().ok().map(str::to_string))
        .collect();
    let names: Vec<&str> = globals.iter().map(String::as_str).collect();
    let image = linked.to_flat(&names, 68000)?;
    // Code symbols (labels in sections) name findings; data objects inside .text (marked
    // `.type x,@object` with a `.size`, e.g. a DRVR header) are not decoded.
    let code_len = image.code_len;
    let mut data: Vec<(u32, u32)> = Vec::new();
    let mut symbols: Vec<Symbol> = Vec::new();
    for s in file.symbols() {
        let (Some(_), Ok(name)) = (s.section_index(), s.name()) else {
            continue;
        };
        if name.is_empty()
            || s.kind() == object::SymbolKind::Section
            || s.kind() == object::SymbolKind::File
        {
            continue;
        }
        let addr = s.address() as u32;
        if s.kind() == object::SymbolKind::Data && s.size() > 0 && addr < code_len {
            data.push((addr, (addr + s.size() as u32).min(code_len)));
        } else if s.kind() != object::SymbolKind::Data {
            symbols.push(Symbol {
                name: name.to_string(),
                addr,
                size: 0,
            });
        }
    }
    // Decode everything (code labels after a data object resynchronise the decoder) and
    // drop what was found inside data objects.
    let report = verify(&image.image[..code_len as usize], 0, Cpu::M68000, &symbols);
    let bad: Vec<String> = report
        .findings
        .iter()
        .filter(|f| !data.iter().any(|&(s, e)| (s..e).contains(&f.addr)))
        .filter(|f| !(supervisor && f.rule == Rule::Privileged))
        .map(|f| format!("  {f}"))
        .collect();
    if !bad.is_empty() {
        bail!("{name} is not clean 68000 code:\n{}", bad.join("\n"));
    }
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
    fn assembles_exports_and_relocations() {
        let img = assemble_flat(
            "sample",
            "        .text\n        .globl entry\nentry:  lea table,%a0\n        move.l (%a0),%d0\n        rts\n        .data\ntable:  .long entry\n",
        )
        .unwrap();
        assert_eq!(img.export("entry"), Some(0));
        assert_eq!(img.reloc_offsets().unwrap().len(), 2, "lea abs.l + .long");
        let err = assemble_flat("bad", "        .text\n        bra.l .\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("68000") || format!("{err:#}").contains("failed"),
            "{err:#}"
        );
    }
}
