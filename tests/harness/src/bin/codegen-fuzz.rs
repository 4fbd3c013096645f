//! `codegen-fuzz PROGRAMS.flat PROGRAMS-linux.elf HOST.txt [--only TARGET]`
//!
//! Runs a batch of generated programs (`tests/codegen-fuzz`, written by
//! `cargo xtask fuzz-codegen`) on the emulated 68000, 68020 and 68040 and under QEMU's 68000
//! and 68040, and compares every checksum with the host's (`HOST.txt`, the output of the
//! crate's `fuzz_host_dump` example: `<index> <name> <hex>` per program). Prints
//! `codegen fuzz: PASSED/TOTAL on TARGET` per target and `MISMATCH <index> <name> <target>:
//! <what>` per difference; exits with 1 if there is any.
//!
//! `codegen-fuzz --executed-sites SITES.txt IMAGE.flat` runs every case of a build of the
//! codegen suite or of the programs on the emulated 68000 and prints, per case,
//! `SITES <index> <offset>…`: which of the image offsets listed in `SITES.txt` (hexadecimal,
//! one a line: the verifier's findings) it executed (`cargo xtask codegen-recall`).

use ferrite_harness::conformance::{self, MODELS, Outcome, Reference};
use ferrite_shared::flat::FlatImage;
use std::path::PathBuf;
use std::process::ExitCode;

fn read_reference(path: &PathBuf) -> Result<Reference, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut r = Reference {
        names: Vec::new(),
        outputs: Vec::new(),
    };
    for (n, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("{}: bad line {}: `{line}`", path.display(), n + 1);
        let [index, name, hex] = f.as_slice() else {
            return Err(bad());
        };
        if index.parse::<usize>().ok() != Some(n) || hex.len() % 2 != 0 {
            return Err(bad());
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
            .collect::<Result<Vec<u8>, _>>()
            .map_err(|_| bad())?;
        // Names live as long as the run.
        r.names.push(Box::leak(name.to_string().into_boxed_str()));
        r.outputs.push(bytes);
    }
    Ok(r)
}

fn report(o: &Outcome) {
    println!("codegen fuzz: {}/{} on {}", o.passed(), o.total, o.target);
    for m in &o.mismatches {
        println!(
            "MISMATCH {} {} {}: {m}",
            m.index,
            m.name,
            o.target.replace(' ', "_")
        );
    }
}

fn executed_sites(sites_path: &str, flat_path: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(sites_path).map_err(|e| format!("{sites_path}: {e}"))?;
    let sites = text
        .split_whitespace()
        .map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16))
        .collect::<Result<Vec<u32>, _>>()
        .map_err(|e| format!("{sites_path}: {e}"))?;
    let flat = std::fs::read(flat_path)
        .map_err(|e| e.to_string())
        .and_then(|b| FlatImage::parse(&b).map_err(|e| e.to_string()))
        .map_err(|e| format!("{flat_path}: {e}"))?;
    let per_case = conformance::sites_executed(&flat, ferrite_emu::CpuModel::M68000, &sites)?;
    for (i, hits) in per_case.iter().enumerate() {
        let list: Vec<String> = hits.iter().map(|a| format!("{a:x}")).collect();
        println!("SITES {i} {}", list.join(" "));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--executed-sites") {
        let [_, sites, flat] = args.as_slice() else {
            eprintln!("usage: codegen-fuzz --executed-sites SITES.txt IMAGE.flat");
            return ExitCode::from(2);
        };
        return match executed_sites(sites, flat) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("codegen-fuzz: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let wanted = |t: &str| only.as_deref().is_none_or(|o| t.contains(o));
    let paths: Vec<PathBuf> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--only"))
        .map(|(_, a)| PathBuf::from(a))
        .collect();
    let [flat_path, elf_path, host_path] = paths.as_slice() else {
        eprintln!("usage: codegen-fuzz PROGRAMS.flat PROGRAMS-linux.elf HOST.txt [--only TARGET]");
        return ExitCode::from(2);
    };
    let reference = match read_reference(host_path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("codegen-fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let flat = match std::fs::read(flat_path)
        .map_err(|e| e.to_string())
        .and_then(|b| FlatImage::parse(&b).map_err(|e| e.to_string()))
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("codegen-fuzz: cannot read {}: {e}", flat_path.display());
            return ExitCode::from(2);
        }
    };
    let mut failed = false;
    let mut outcomes = Vec::new();
    for &model in MODELS {
        if wanted(&format!("M{model}")) {
            outcomes.push(conformance::run_emulated_against(&flat, model, &reference));
        }
    }
    for cpu in ferrite_harness::qemu::QEMU_CPUS {
        if wanted(&format!("qemu-m68k -cpu {cpu}")) {
            outcomes.push(conformance::run_qemu_against(elf_path, cpu, &reference));
        }
    }
    for o in outcomes {
        match o {
            Ok(o) => {
                failed |= !o.mismatches.is_empty();
                report(&o);
            }
            Err(e) => {
                println!("codegen fuzz: the run failed: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
