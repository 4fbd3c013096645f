//! The widening-load store work-around (`retro68_build::extstore`) holds for every width and
//! address space: each store of an extended load, in each form the DAG combiner folds into an
//! extending load (`zext`/`sext` of a narrower load; `and` with a low mask, `lshr`/`ashr` of a
//! wider one), is compiled by the toolchain's own `llc` for the 68000 with and without the
//! `freeze` the rewrite inserts. Without it, the backend copies memory to memory with a move
//! wider than the loaded value (the miscompile; the test requires that it shows up, so that it
//! can fail); with it, no such move remains. Ignored by default: it needs rustup's
//! `llvm-tools` for the pinned nightly, which `cargo xtask` installs.

use std::path::PathBuf;
use std::process::Command;

use retro68_build::extstore::freeze_ext_stores;
use retro68_build::stackidx::{LLC_ARGS, pinned_llvm_tool};

fn llc() -> PathBuf {
    pinned_llvm_tool("llc").unwrap()
}

/// Compile `ir` for the 68000; the assembly text.
fn compile(llc: &PathBuf, name: &str, ir: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ferrite-extstore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.ll"));
    std::fs::write(&path, ir).unwrap();
    let out = Command::new(llc)
        .arg("-mtriple=m68k")
        .args(LLC_ARGS)
        .arg("-o")
        .arg("-")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "llc failed on {name}:\n{ir}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The memory-to-memory moves wider than `bytes`: `move.w`/`move.l` with two memory operands.
fn too_wide_copies(asm: &str, bytes: u32) -> Vec<String> {
    asm.lines()
        .map(str::trim)
        .filter(|l| {
            let Some((m, ops)) = l.split_once(char::is_whitespace) else {
                return false;
            };
            let size = match m {
                "move.b" => 1,
                "move.w" => 2,
                "move.l" => 4,
                _ => return false,
            };
            let mut depth = 0;
            let mut split = None;
            for (i, c) in ops.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    ',' if depth == 0 => split = Some(i),
                    _ => {}
                }
            }
            let Some(i) = split else { return false };
            size > bytes && ops[..i].contains('(') && ops[i + 1..].contains('(')
        })
        .map(str::to_string)
        .collect()
}

/// One case: a function that loads through `%p` and stores the widened value through `%q`.
struct Case {
    name: String,
    ir: String,
    /// Bytes of the value that were really loaded.
    bytes: u32,
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for aspace in [0u32, 1, 2] {
        let ptr = if aspace == 0 {
            "ptr".to_string()
        } else {
            format!("ptr addrspace({aspace})")
        };
        let func = |name: String, body: String, bytes: u32| Case {
            ir: format!(
                "define void @{name}({ptr} %p, {ptr} %q) {{\nstart:\n{body}  ret void\n}}\n"
            ),
            name,
            bytes,
        };
        // zext/sext of a narrower load.
        for src in [8u32, 16, 32] {
            for dst in [16u32, 32, 64] {
                if dst <= src {
                    continue;
                }
                for op in ["zext", "sext"] {
                    let body = format!(
                        "  %a = load i{src}, {ptr} %p, align 2\n  %b = {op} i{src} %a to i{dst}\n  \
                         store i{dst} %b, {ptr} %q, align 2\n"
                    );
                    v.push(func(format!("{op}_{src}_{dst}_as{aspace}"), body, src / 8));
                }
            }
        }
        // A wider load the combiner narrows: a low mask, or a shift that keeps the high part.
        for wide in [32u32, 64] {
            for keep in [8u32, 16, 32] {
                if keep >= wide {
                    continue;
                }
                let mask = (1u128 << keep) - 1;
                let forms = [
                    ("and", format!("and i{wide} %a, {mask}")),
                    ("lshr", format!("lshr i{wide} %a, {}", wide - keep)),
                    ("ashr", format!("ashr i{wide} %a, {}", wide - keep)),
                ];
                for (op, expr) in forms {
                    let body = format!(
                        "  %a = load i{wide}, {ptr} %p, align 2\n  %b = {expr}\n  \
                         store i{wide} %b, {ptr} %q, align 2\n"
                    );
                    v.push(func(
                        format!("{op}_{wide}_{keep}_as{aspace}"),
                        body,
                        keep / 8,
                    ));
                }
            }
        }
    }
    v
}

#[test]
#[ignore = "needs llvm-tools of the pinned nightly: run `cargo xtask test`"]
fn freeze_keeps_every_widened_load_out_of_memory_to_memory_moves() {
    let llc = llc();
    let mut miscompiled = Vec::new();
    let mut failures = Vec::new();
    let all = cases();
    for c in &all {
        let plain = compile(&llc, &format!("{}_plain", c.name), &c.ir);
        if !too_wide_copies(&plain, c.bytes).is_empty() {
            miscompiled.push(c.name.clone());
        }
        let (frozen_ir, n) = freeze_ext_stores(&c.ir).unwrap();
        assert_eq!(
            n, 1,
            "the rewrite must freeze the store of {}:\n{}",
            c.name, c.ir
        );
        let frozen = compile(&llc, &format!("{}_frozen", c.name), &frozen_ir);
        let bad = too_wide_copies(&frozen, c.bytes);
        if !bad.is_empty() {
            failures.push(format!("{}: {bad:?}\n{frozen}", c.name));
        }
    }
    eprintln!(
        "{} cases; without freeze {} miscompile: {miscompiled:?}",
        all.len(),
        miscompiled.len()
    );
    assert!(
        !miscompiled.is_empty(),
        "no case shows the miscompile without the rewrite: the test cannot tell"
    );
    assert!(
        failures.is_empty(),
        "freeze did not hold:\n{}",
        failures.join("\n")
    );
}
