//! `difftest DIFFTEST.flat DIFFTEST-linux.elf [--iterations N] [--seed S] [--only TARGET]
//! [--function NAME] [--quiet]`
//!
//! The on-target differential tests: every function of `ferrite-difftest` (the driver's logic
//! modules, the shared parsers) on N random inputs of seed S, on the emulated 68000, 68020 and
//! 68040 (the `m68k` crate) and under QEMU's 68000 and 68040, each input's results compared with
//! the host's. Prints one line per target and, unless `--quiet`, inputs and time per function;
//! any mismatch fails, with the function, the seed, the input index and both traces.

use ferrite_difftest::FUNCTIONS;
use ferrite_harness::conformance::MODELS;
use ferrite_harness::difftest::{self, Outcome};
use ferrite_shared::flat::FlatImage;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Inputs per function by default (the short run of `cargo xtask test`).
const DEFAULT_ITERATIONS: u32 = 2000;
/// The default seed.
const DEFAULT_SEED: u32 = 13;

fn report(o: &Outcome, quiet: bool) -> usize {
    let secs: f64 = o.functions.iter().map(|f| f.host_time.as_secs_f64()).sum();
    let ins: u64 = o.functions.iter().map(|f| f.instructions).sum();
    println!(
        "difftest: {} inputs of {} functions on {}: {} mismatches ({:.1} s{})",
        o.inputs(),
        o.functions.len(),
        o.target,
        o.mismatches(),
        secs,
        if ins > 0 {
            format!(", {:.1} M instructions", ins as f64 / 1e6)
        } else {
            String::new()
        }
    );
    for f in &o.functions {
        if !quiet {
            println!(
                "  {:<44} {:>7} inputs {:>6.2} s {:>9} mismatches{}",
                FUNCTIONS[f.function as usize].name,
                f.inputs,
                f.host_time.as_secs_f64(),
                f.mismatches.len(),
                if f.instructions > 0 {
                    format!(", {:.1} M instructions", f.instructions as f64 / 1e6)
                } else {
                    String::new()
                }
            );
        }
        for m in &f.mismatches {
            println!("  MISMATCH {m}");
        }
    }
    o.mismatches()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quiet = args.iter().any(|a| a == "--quiet");
    let opt = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let num = |flag: &str, default: u32| -> Result<u32, String> {
        opt(flag).map_or(Ok(default), |v| {
            v.parse()
                .map_err(|_| format!("{flag} wants a number, not `{v}`"))
        })
    };
    let (iterations, seed) = match (
        num("--iterations", DEFAULT_ITERATIONS),
        num("--seed", DEFAULT_SEED),
    ) {
        (Ok(i), Ok(s)) => (i, s),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("difftest: {e}");
            return ExitCode::from(2);
        }
    };
    let only = opt("--only");
    let wanted = |t: &str| only.as_deref().is_none_or(|o| t.contains(o));
    let function = match opt("--function") {
        None => None,
        Some(name) => match FUNCTIONS
            .iter()
            .position(|f| f.name == name || f.name.contains(name.as_str()))
        {
            Some(i) => Some(i as u32),
            None => {
                eprintln!(
                    "difftest: no function `{name}`; the functions: {}",
                    FUNCTIONS
                        .iter()
                        .map(|f| f.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                return ExitCode::from(2);
            }
        },
    };
    let takes_value = ["--only", "--iterations", "--seed", "--function"];
    let paths: Vec<PathBuf> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            !a.starts_with("--") && (*i == 0 || !takes_value.contains(&args[i - 1].as_str()))
        })
        .map(|(_, a)| PathBuf::from(a))
        .collect();
    let [flat_path, elf_path] = paths.as_slice() else {
        eprintln!(
            "usage: difftest DIFFTEST.flat DIFFTEST-linux.elf [--iterations N] [--seed S] [--only TARGET] [--function NAME] [--quiet]"
        );
        return ExitCode::from(2);
    };
    let flat = match std::fs::read(flat_path)
        .map_err(|e| e.to_string())
        .and_then(|b| FlatImage::parse(&b).map_err(|e| e.to_string()))
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "difftest: cannot read {}: {e} (run `cargo xtask build`)",
                flat_path.display()
            );
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let mut failures = 0usize;
    for &model in MODELS {
        let target = format!("M{model}");
        if !wanted(&target) {
            continue;
        }
        match difftest::run_emulated(&flat, model, seed, iterations, function) {
            Ok(o) => failures += report(&o, quiet),
            Err(e) => {
                println!("difftest: nothing ran on {target}: {e}");
                failures += 1;
            }
        }
    }
    for cpu in ferrite_harness::qemu::QEMU_CPUS {
        let target = format!("qemu-m68k -cpu {cpu}");
        if !wanted(&target) {
            continue;
        }
        match difftest::run_qemu(elf_path, cpu, seed, iterations, function) {
            Ok(o) => failures += report(&o, quiet),
            Err(e) => {
                println!("difftest: nothing ran on {target}: {e}");
                failures += 1;
            }
        }
    }
    println!(
        "difftest: seed {seed}, {iterations} inputs per function, {:.1} s in all: {}",
        started.elapsed().as_secs_f64(),
        if failures == 0 {
            "the 68k agrees with the host".to_string()
        } else {
            format!("{failures} mismatches or failures")
        }
    );
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
