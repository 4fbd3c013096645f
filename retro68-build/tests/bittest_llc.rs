//! The bit-test work-around (`retro68_build::bittest`) on the pinned nightly's own `llc`: each
//! IR shape below is compiled for the 68000 with and without the rewrite. Without it, the
//! shapes that reach the backend's constant-bit-number bit test crash the assembly printer
//! (`printImmediate`) and their object holds `btst #0` (the register's number) instead of
//! testing the wanted bit; the test requires that exact set, so it fails if the backend
//! changes in either direction. With the rewrite every shape prints and no object holds an
//! immediate bit test of another bit than the one asked for. The wrapper's message for the
//! crash is checked on the real `llc` output. Ignored by default: it needs rustup's
//! `llvm-tools` for the pinned nightly, which `cargo xtask` installs.

use std::path::{Path, PathBuf};
use std::process::Command;

use retro68_build::bittest::{crash_class, hide_shifted_bit_tests};
use retro68_build::stackidx::{LLC_ARGS, pinned_llvm_tool};

const HEAD: &str =
    "target datalayout = \"E-m:e-p:32:16:32-i8:8:8-i16:16:16-i32:16:32-n8:16:32-a:0:16-S16\"\n";

const BRANCH: &str = "br i1 %c, label %yes, label %no\nyes:\n  ret i32 1\nno:\n  ret i32 2";

/// `(name, body before the branch or return, crashes without the rewrite)`; the function is
/// `define i32 @NAME(i64 %x64, i32 %x, i16 %x16, i8 %x8, i32 %y, i32 %n)`. A body without a
/// `ret` ends in [`BRANCH`] on `%c`.
const SHAPES: &[(&str, &str, bool)] = &[
    (
        "lshr32_trunc",
        "%s = lshr i32 %x, 10\n  %c = trunc i32 %s to i1",
        true,
    ),
    (
        "lshr32_bit3",
        "%s = lshr i32 %x, 3\n  %c = trunc i32 %s to i1",
        true,
    ),
    (
        "ashr32_trunc",
        "%s = ashr i32 %x, 10\n  %c = trunc i32 %s to i1",
        true,
    ),
    (
        "lshr16_trunc",
        "%s = lshr i16 %x16, 10\n  %c = trunc i16 %s to i1",
        true,
    ),
    (
        "lshr8_trunc",
        "%s = lshr i8 %x8, 3\n  %c = trunc i8 %s to i1",
        true,
    ),
    (
        "lshr64_low_trunc",
        "%s = lshr i64 %x64, 10\n  %c = trunc i64 %s to i1",
        true,
    ),
    (
        "and_one_ne",
        "%s = lshr i32 %x, 10\n  %a = and i32 %s, 1\n  %c = icmp ne i32 %a, 0",
        true,
    ),
    (
        "and_one_eq_one",
        "%s = lshr i32 %x, 10\n  %a = and i32 %s, 1\n  %c = icmp eq i32 %a, 1",
        true,
    ),
    (
        "and_one_select",
        "%s = lshr i32 %x, 10\n  %a = and i32 %s, 1\n  %c = icmp ne i32 %a, 0\n  %r = select i1 %c, i32 %y, i32 7\n  ret i32 %r",
        true,
    ),
    // The reduced form of seed 1 program 4: the bit joined with another condition.
    (
        "trunc_and_other",
        "%s = lshr i32 %x, 10\n  %a = trunc i32 %s to i1\n  %b = trunc i32 %y to i1\n  %c = and i1 %a, %b",
        true,
    ),
    // Right without the rewrite.
    (
        "lshr64_high_trunc",
        "%s = lshr i64 %x64, 40\n  %c = trunc i64 %s to i1",
        false,
    ),
    (
        "mask",
        "%a = and i32 %x, 1024\n  %c = icmp ne i32 %a, 0",
        false,
    ),
    (
        "variable_amount",
        "%s = lshr i32 %x, %n\n  %c = trunc i32 %s to i1",
        false,
    ),
    (
        "shifted_one_mask",
        "%m = shl i32 1, %n\n  %a = and i32 %x, %m\n  %c = icmp ne i32 %a, 0",
        false,
    ),
    ("bit0", "%c = trunc i32 %x to i1", false),
    // `nuw` promises the shifted value is 0 or 1: no mask, no bit test.
    (
        "trunc_nuw",
        "%s = lshr i32 %x, 3\n  %c = trunc nuw i32 %s to i1",
        false,
    ),
];

fn llc_to(llc: &Path, ll: &Path, filetype: &str, out: &Path) -> std::process::Output {
    Command::new(llc)
        .arg("-mtriple=m68k")
        .args(LLC_ARGS)
        .arg(format!("-filetype={filetype}"))
        .arg("-o")
        .arg(out)
        .arg(ll)
        .output()
        .unwrap()
}

/// Compile `ir`: whether the assembly printer crashed, its stderr, and the immediate bit tests
/// of the object (`btst #N,…` lines of objdump).
fn compile(llc: &Path, dir: &Path, name: &str, ir: &str) -> (bool, String, Vec<String>) {
    let ll = dir.join(format!("{name}.ll"));
    std::fs::write(&ll, ir).unwrap();
    let obj = dir.join(format!("{name}.o"));
    let o = llc_to(llc, &ll, "obj", &obj);
    assert!(
        o.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let dis = Command::new("m68k-linux-gnu-objdump")
        .arg("-d")
        .arg(&obj)
        .output()
        .expect("m68k-linux-gnu-objdump (cargo xtask installs binutils-m68k-linux-gnu)");
    let immediates = String::from_utf8_lossy(&dis.stdout)
        .lines()
        .filter(|l| l.contains("btst #"))
        .map(|l| l.trim().to_string())
        .collect();
    let asm = llc_to(llc, &ll, "asm", &dir.join(format!("{name}.s")));
    (
        !asm.status.success(),
        String::from_utf8_lossy(&asm.stderr).into_owned(),
        immediates,
    )
}

#[test]
#[ignore = "needs the pinned nightly's llvm-tools (cargo xtask installs them)"]
fn shifted_bit_tests_build_right_with_the_rewrite() {
    let llc: PathBuf = pinned_llvm_tool("llc").unwrap();
    let dir = std::env::temp_dir().join(format!("ferrite-bittest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut wrong = Vec::new();
    for (name, body, crashes) in SHAPES {
        let tail = if body.contains("ret ") { "" } else { BRANCH };
        let ir = format!(
            "{HEAD}define i32 @{name}(i64 %x64, i32 %x, i16 %x16, i8 %x8, i32 %y, i32 %n) {{\nstart:\n  {body}\n  {tail}\n}}\n"
        );
        let (crashed, stderr, imm) = compile(&llc, &dir, name, &ir);
        if crashed {
            // The wrapper's message names the class and the function.
            match crash_class(&stderr) {
                Some(m) if m.contains(&format!("@{name}")) => {}
                other => wrong.push(format!("{name}: crash not classified: {other:?}")),
            }
        }
        let (rewritten, n) = hide_shifted_bit_tests(&ir).unwrap();
        let (crashed_after, stderr_after, imm_after) =
            compile(&llc, &dir, &format!("{name}-rewritten"), &rewritten);
        eprintln!(
            "{name}: without the rewrite {} {imm:?}; {n} rewritten; with it {} {imm_after:?}",
            if crashed { "crashes" } else { "prints" },
            if crashed_after { "crashes" } else { "prints" },
        );
        if crashed != *crashes {
            wrong.push(format!(
                "{name}: the printer {} without the rewrite (expected the opposite)",
                if crashed { "crashed" } else { "printed" }
            ));
        }
        if *crashes && !imm.iter().any(|l| l.contains("btst #0,")) {
            wrong.push(format!("{name}: crashing shape without `btst #0`: {imm:?}"));
        }
        if crashed_after || !imm_after.is_empty() {
            wrong.push(format!(
                "{name}: with the rewrite: crashed {crashed_after}, immediate bit tests {imm_after:?}\n{stderr_after}"
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
