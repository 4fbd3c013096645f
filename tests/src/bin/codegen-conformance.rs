//! `codegen-conformance FLAT LINUX_ELF [--quiet]`: run the codegen suite on the emulated
//! 68000, 68020 and 68040 and under QEMU's 68000 and 68040, compare every case with the host,
//! print one summary line per CPU, and exit non-zero on any difference.

use ferrite_emu::conformance::{self, MODELS, Outcome};
use ferrite_shared::flat::FlatImage;
use std::path::PathBuf;
use std::process::ExitCode;

fn report(o: &Outcome, quiet: bool) -> bool {
    let speed = if o.instructions > 0 && !o.host_time.is_zero() {
        format!(
            ", {} instructions, {} cycles, {:.1} M emulated instructions/s",
            o.instructions,
            o.cycles,
            o.instructions as f64 / o.host_time.as_secs_f64() / 1e6
        )
    } else {
        format!(", {:.2} s", o.host_time.as_secs_f64())
    };
    println!("codegen conformance: {}/{} on {}{}", o.passed(), o.total, o.target, if quiet { String::new() } else { speed });
    if !quiet {
        for m in o.mismatches.iter().take(20) {
            println!("  MISMATCH {m}");
        }
        if o.mismatches.len() > 20 {
            println!("  … and {} more", o.mismatches.len() - 20);
        }
    }
    o.mismatches.is_empty()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quiet = args.iter().any(|a| a == "--quiet");
    let paths: Vec<PathBuf> = args.iter().filter(|a| !a.starts_with("--")).map(PathBuf::from).collect();
    let [flat_path, elf_path] = paths.as_slice() else {
        eprintln!("usage: codegen-conformance SUITE.flat SUITE-linux.elf [--quiet]");
        return ExitCode::from(2);
    };
    let flat = match std::fs::read(flat_path).map_err(|e| e.to_string()).and_then(|b| FlatImage::parse(&b).map_err(|e| e.to_string())) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("codegen-conformance: cannot read {}: {e} (run `cargo xtask build`)", flat_path.display());
            return ExitCode::from(2);
        }
    };
    let mut all_ok = true;
    for &model in MODELS {
        match conformance::run_emulated(&flat, model) {
            Ok(o) => all_ok &= report(&o, quiet),
            Err(e) => {
                println!("codegen conformance: 0/{} on M{model}: {e}", codegen_suite::CASES.len());
                all_ok = false;
            }
        }
    }
    for cpu in ferrite_emu::qemu::QEMU_CPUS {
        match conformance::run_qemu(elf_path, cpu) {
            Ok(o) => all_ok &= report(&o, quiet),
            Err(e) => {
                println!("codegen conformance: 0/{} on qemu-m68k -cpu {cpu}: {e}", codegen_suite::CASES.len());
                all_ok = false;
            }
        }
    }
    if all_ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
