//! `codegen-conformance SUITE.flat SUITE-linux.elf [--known FILE] [--write-known FILE]
//! [--only TARGET] [--quiet]`
//!
//! Runs the codegen suite on the emulated 68000, 68020 and 68040 (the `m68k` crate) and under
//! QEMU's 68000 and 68040, compares every case with the host, and prints one line per target:
//! `codegen conformance: PASSED/TOTAL on TARGET`.
//!
//! The LLVM M68k backend miscompiles many cases today (see `docs/codegen-conformance.md`).
//! `--known FILE` lists, per case, the targets where a mismatch is a *known compiler bug*;
//! the run fails on any mismatch not listed there, so a new miscompile, an emulator
//! regression or a broken harness is caught, while the known ones stay visible in the counts.
//! `--write-known FILE` records the current mismatches as that list.

use ferrite_harness::conformance::{self, MODELS, Outcome};
use ferrite_shared::flat::FlatImage;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;

/// Case name → targets where it is a known miscompile.
type Known = BTreeMap<String, BTreeSet<String>>;

fn read_known(path: &PathBuf) -> Result<Known, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut known = Known::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (name, targets) = line
            .split_once(':')
            .ok_or_else(|| format!("bad line `{line}` in {}", path.display()))?;
        known
            .entry(name.trim().to_string())
            .or_default()
            .extend(targets.split_whitespace().map(str::to_string));
    }
    Ok(known)
}

fn write_known(path: &PathBuf, outcomes: &[Outcome]) -> Result<(), String> {
    let mut known = Known::new();
    for o in outcomes {
        for m in &o.mismatches {
            known
                .entry(m.name.to_string())
                .or_default()
                .insert(target_key(&o.target));
        }
    }
    let mut text = String::from(
        "# Codegen cases the LLVM M68k backend (nightly-2026-10-01) is known to miscompile, and the\n\
         # targets where their output differs from the host. Written by\n\
         # `codegen-conformance --write-known`; see docs/codegen-conformance.md.\n\
         # Any mismatch NOT listed here fails `cargo xtask test`.\n",
    );
    for (name, targets) in &known {
        text.push_str(&format!(
            "{name}: {}\n",
            targets.iter().cloned().collect::<Vec<_>>().join(" ")
        ));
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `M68040`, `qemu-m68040`, …
fn target_key(target: &str) -> String {
    match target.strip_prefix("qemu-m68k -cpu ") {
        Some(cpu) => format!("qemu-{cpu}"),
        None => target.to_string(),
    }
}

fn report(o: &Outcome, known: Option<&Known>, quiet: bool) -> usize {
    let key = target_key(&o.target);
    let is_known =
        |name: &str| known.is_some_and(|k| k.get(name).is_some_and(|t| t.contains(&key)));
    let unexpected: Vec<_> = o.mismatches.iter().filter(|m| !is_known(m.name)).collect();
    let speed = if o.instructions > 0 && !o.host_time.is_zero() {
        format!(
            "; {} instructions, {} cycles, {:.1} M emulated instructions/s",
            o.instructions,
            o.cycles,
            o.instructions as f64 / o.host_time.as_secs_f64() / 1e6
        )
    } else {
        format!("; {:.1} s", o.host_time.as_secs_f64())
    };
    let known_note = match known {
        Some(_) => format!(
            " ({} known compiler miscompiles, {} unexpected)",
            o.mismatches.len() - unexpected.len(),
            unexpected.len()
        ),
        None => String::new(),
    };
    println!(
        "codegen conformance: {}/{} on {}{}{}",
        o.passed(),
        o.total,
        o.target,
        known_note,
        if quiet { String::new() } else { speed }
    );
    if !quiet {
        for m in unexpected.iter().take(20) {
            println!("  UNEXPECTED {m}");
        }
        if unexpected.len() > 20 {
            println!("  … and {} more", unexpected.len() - 20);
        }
    }
    unexpected.len()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quiet = args.iter().any(|a| a == "--quiet");
    let opt = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let only = opt("--only");
    let known_path = opt("--known").map(PathBuf::from);
    let write_path = opt("--write-known").map(PathBuf::from);
    let wanted = |t: &str| only.as_deref().is_none_or(|o| t.contains(o));
    let takes_value = ["--only", "--known", "--write-known"];
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
            "usage: codegen-conformance SUITE.flat SUITE-linux.elf [--known FILE] [--write-known FILE] [--only TARGET] [--quiet]"
        );
        return ExitCode::from(2);
    };
    let known = match known_path.as_ref().map(read_known).transpose() {
        Ok(k) => k,
        Err(e) => {
            eprintln!("codegen-conformance: {e}");
            return ExitCode::from(2);
        }
    };
    let flat = match std::fs::read(flat_path)
        .map_err(|e| e.to_string())
        .and_then(|b| FlatImage::parse(&b).map_err(|e| e.to_string()))
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "codegen-conformance: cannot read {}: {e} (run `cargo xtask build`)",
                flat_path.display()
            );
            return ExitCode::from(2);
        }
    };
    let total = codegen_suite::CASES.len();
    let mut outcomes = Vec::new();
    let mut failures = 0usize;
    for &model in MODELS {
        if !wanted(&format!("M{model}")) {
            continue;
        }
        match conformance::run_emulated(&flat, model) {
            Ok(o) => {
                failures += report(&o, known.as_ref(), quiet);
                outcomes.push(o);
            }
            Err(e) => {
                println!("codegen conformance: 0/{total} on M{model}: {e}");
                failures += 1;
            }
        }
    }
    for cpu in ferrite_harness::qemu::QEMU_CPUS {
        if !wanted(&format!("qemu-m68k -cpu {cpu}")) {
            continue;
        }
        match conformance::run_qemu(elf_path, cpu) {
            Ok(o) => {
                failures += report(&o, known.as_ref(), quiet);
                outcomes.push(o);
            }
            Err(e) => {
                println!("codegen conformance: 0/{total} on qemu-m68k -cpu {cpu}: {e}");
                failures += 1;
            }
        }
    }
    // The two 68040 cores should agree on what the compiler got wrong.
    let failing = |t: &str| -> Option<BTreeSet<&str>> {
        outcomes
            .iter()
            .find(|o| o.target == t)
            .map(|o| o.mismatches.iter().map(|m| m.name).collect())
    };
    if let (Some(a), Some(b)) = (failing("M68040"), failing("qemu-m68k -cpu m68040")) {
        println!(
            "emulator cross-check (68040): {} mismatches on both cores, {} only on the m68k crate, {} only on QEMU",
            a.intersection(&b).count(),
            a.difference(&b).count(),
            b.difference(&a).count()
        );
        for (label, set) in [
            ("only on the m68k crate", a.difference(&b)),
            ("only on QEMU", b.difference(&a)),
        ] {
            let names: Vec<&str> = set.copied().collect();
            if !names.is_empty() {
                println!("  {label}: {}", names.join(", "));
            }
        }
    }
    if let Some(path) = write_path {
        if let Err(e) = write_known(&path, &outcomes) {
            eprintln!("codegen-conformance: {e}");
            return ExitCode::from(2);
        }
        println!("wrote {}", path.display());
    }
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
