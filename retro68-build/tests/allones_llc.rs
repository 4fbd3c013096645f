//! The all-ones select work-around (`retro68_build::allones`) and the verifier's `stale-x`
//! rule, on the pinned nightly's own `llc`: each IR shape below is compiled for the 68000 with
//! and without the rewrite and every code section of the object is verified. Without the
//! rewrite the shapes that reach `LowerSELECT`'s `cmp #1 ; subx` are reported (the test
//! requires the exact set, so it fails if the backend changes in either direction); with it,
//! none is. Ignored by default: it needs rustup's `llvm-tools` for the pinned nightly, which
//! `cargo xtask` installs.

use std::path::PathBuf;
use std::process::Command;

use object::{Object, ObjectSection, SectionKind};
use retro68_build::allones::hide_all_ones_arms;
use retro68_build::m68k::decode::Cpu;
use retro68_build::m68k::verify::{Rule, verify};
use retro68_build::stackidx::{LLC_ARGS, pinned_llvm_tool};

const HEAD: &str =
    "target datalayout = \"E-m:e-p:32:16:32-i8:8:8-i16:16:16-i32:16:32-n8:16:32-a:0:16-S16\"\n";

/// `(name, body, miscompiled without the rewrite)`: the function is `define TY @name(ARGS)`.
const SHAPES: &[(&str, &str, bool)] = &[
    (
        "i32 @sel_eq_ones_y(i32 %x, i32 %y)",
        "%c = icmp eq i32 %x, 0\n  %r = select i1 %c, i32 -1, i32 %y\n  ret i32 %r",
        true,
    ),
    (
        "i32 @sel_ne_ones_y(i32 %x, i32 %y)",
        "%c = icmp ne i32 %x, 0\n  %r = select i1 %c, i32 -1, i32 %y\n  ret i32 %r",
        true,
    ),
    (
        "i32 @sel_eq_y_ones(i32 %x, i32 %y)",
        "%c = icmp eq i32 %x, 0\n  %r = select i1 %c, i32 %y, i32 -1\n  ret i32 %r",
        true,
    ),
    (
        "i16 @sel16(i16 %x, i16 %y)",
        "%c = icmp eq i16 %x, 0\n  %r = select i1 %c, i16 -1, i16 %y\n  ret i16 %r",
        true,
    ),
    (
        "i8 @sel8(i8 %x, i8 %y)",
        "%c = icmp eq i8 %x, 0\n  %r = select i1 %c, i8 -1, i8 %y\n  ret i8 %r",
        true,
    ),
    (
        "i32 @sel_ult1(i32 %x, i32 %y)",
        "%c = icmp ult i32 %x, 1\n  %r = select i1 %c, i32 -1, i32 %y\n  ret i32 %r",
        true,
    ),
    (
        "i64 @umin_u32_max(i64 %x)",
        "%r = call i64 @llvm.umin.i64(i64 %x, i64 4294967295)\n  ret i64 %r",
        true,
    ),
    (
        "i32 @umin_u32_max_trunc(i64 %x)",
        "%r = call i64 @llvm.umin.i64(i64 %x, i64 4294967295)\n  %t = trunc i64 %r to i32\n  ret i32 %t",
        true,
    ),
    (
        "i64 @umax_u32_max(i64 %x)",
        "%r = call i64 @llvm.umax.i64(i64 %x, i64 4294967295)\n  ret i64 %r",
        true,
    ),
    (
        "i64 @sel64_high_zero(i64 %x)",
        "%c = icmp ult i64 %x, 4294967296\n  %r = select i1 %c, i64 %x, i64 4294967295\n  ret i64 %r",
        true,
    ),
    (
        "i64 @sel64_bit(i64 %y)",
        "%b = and i64 %y, 1\n  %c = icmp eq i64 %b, 0\n  %r = select i1 %c, i64 9223372036854775807, i64 0\n  ret i64 %r",
        true,
    ),
    // A 64-bit funnel shift by a variable amount picks its halves with selects on bit 5 of
    // the amount (seed 2 program 115 of the random run: a rotation of -41).
    (
        "i64 @rotr_const(i64 %s)",
        "%r = call i64 @llvm.fshr.i64(i64 -41, i64 -41, i64 %s)\n  ret i64 %r",
        true,
    ),
    (
        "i64 @rotl_high_ones(i64 %x, i64 %s)",
        "%a = or i64 %x, -4294967296\n  %r = call i64 @llvm.fshl.i64(i64 %a, i64 %a, i64 %s)\n  ret i64 %r",
        true,
    ),
    // Right without the rewrite: NEG sets X, an `i64` zero test ORs the halves, the others
    // never reach the all-ones lowering.
    (
        "i32 @sel_ne_ones_zero(i32 %x)",
        "%c = icmp ne i32 %x, 0\n  %r = select i1 %c, i32 -1, i32 0\n  ret i32 %r",
        false,
    ),
    (
        "i32 @sext_eq(i32 %x)",
        "%c = icmp eq i32 %x, 0\n  %r = sext i1 %c to i32\n  ret i32 %r",
        false,
    ),
    (
        "i64 @sel64_eq(i64 %x, i64 %y)",
        "%c = icmp eq i64 %x, 0\n  %r = select i1 %c, i64 -1, i64 %y\n  ret i64 %r",
        false,
    ),
    (
        "i64 @smin_i32_max(i64 %x)",
        "%r = call i64 @llvm.smin.i64(i64 %x, i64 2147483647)\n  ret i64 %r",
        false,
    ),
    (
        "i64 @rotl_const_amount(i64 %x)",
        "%a = or i64 %x, -4294967296\n  %r = call i64 @llvm.fshl.i64(i64 %a, i64 %a, i64 11)\n  ret i64 %r",
        false,
    ),
    (
        "i64 @fshl_const_var(i64 %x, i64 %s)",
        "%r = call i64 @llvm.fshl.i64(i64 -41, i64 %x, i64 %s)\n  ret i64 %r",
        false,
    ),
    (
        "i64 @uaddsat(i64 %x, i64 %y)",
        "%r = call i64 @llvm.uadd.sat.i64(i64 %x, i64 %y)\n  ret i64 %r",
        false,
    ),
];

fn llc() -> PathBuf {
    pinned_llvm_tool("llc").unwrap()
}

/// Compile `ir` for the 68000 and verify every code section: the `stale-x` findings.
fn stale_x(llc: &PathBuf, name: &str, ir: &str) -> usize {
    let dir = std::env::temp_dir().join(format!("ferrite-allones-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ll = dir.join(format!("{name}.ll"));
    let obj = dir.join(format!("{name}.o"));
    std::fs::write(&ll, ir).unwrap();
    let out = Command::new(llc)
        .arg("-mtriple=m68k")
        .args(LLC_ARGS)
        .arg("-filetype=obj")
        .arg("-o")
        .arg(&obj)
        .arg(&ll)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "llc failed on {name}:\n{ir}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = std::fs::read(&obj).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.sections()
        .filter(|s| s.kind() == SectionKind::Text)
        .map(|s| {
            let code = s.data().unwrap();
            verify(code, 0, Cpu::M68000, &[])
                .with_rule(Rule::StaleX)
                .count()
        })
        .sum()
}

#[test]
#[ignore = "needs the pinned nightly's llvm-tools (cargo xtask installs them)"]
fn hidden_all_ones_arms_leave_no_stale_x() {
    let llc = llc();
    let mut wrong = Vec::new();
    for (sig, body, miscompiled) in SHAPES {
        let name = sig.split(['@', '(']).nth(1).unwrap();
        let ir = format!("{HEAD}define {sig} {{\nstart:\n  {body}\n}}\n");
        let before = stale_x(&llc, name, &ir);
        let (rewritten, _) = hide_all_ones_arms(&ir).unwrap();
        let after = stale_x(&llc, &format!("{name}-rewritten"), &rewritten);
        eprintln!("{name}: {before} stale-x without the rewrite, {after} with it");
        if (before > 0) != *miscompiled || after != 0 {
            wrong.push(format!(
                "{name}: {before} findings without the rewrite (expected {}), {after} with it",
                if *miscompiled { "some" } else { "none" }
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
