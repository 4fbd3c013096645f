//! The bit-test bug (`docs/codegen-conformance.md`, found by `cargo xtask fuzz-codegen`):
//! a bit test with a constant bit number that instruction selection first puts in a register
//! is selected as `BTST32di` (the immediate form) with that register as its operand, so the
//! object holds `btst #N,%dM` where `N` is the register's number, not the bit number (here
//! `moveq #10,%d0 ; btst #0,%d1` tests bit 0 instead of bit 10), and `llc`'s assembly printer
//! crashes on the same instruction. Every m68k crate is compiled through the stack-index
//! rewrite, which also prints the assembly (`retro68_build::anext`), so the build stops there:
//! this test checks that this stays true — if the object is wrong, printing the assembly must
//! fail. Ignored by default: it needs rustup's `llvm-tools` for the pinned nightly, which
//! `cargo xtask` installs.

use std::path::{Path, PathBuf};
use std::process::Command;

use retro68_build::stackidx::{LLC_ARGS, pinned_llvm_tool};

/// `(x >> 10) & 1` and `y & 1` both set: the reduced form of generated program 4 of seed 1.
const IR: &str = r#"
target datalayout = "E-m:e-p:32:16:32-i8:8:8-i16:16:16-i32:16:32-n8:16:32-a:0:16-S16"
define i32 @bit10_and(i32 %x, i8 %y) {
  %s = lshr i32 %x, 10
  %a = trunc i32 %s to i1
  %b = trunc i8 %y to i1
  %c = and i1 %a, %b
  br i1 %c, label %yes, label %no
yes:
  ret i32 1
no:
  ret i32 2
}
"#;

fn llc() -> PathBuf {
    pinned_llvm_tool("llc").unwrap()
}

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

#[test]
#[ignore = "needs the pinned nightly's llvm-tools (cargo xtask installs them)"]
fn a_wrong_bit_test_stops_the_build() {
    let llc = llc();
    let dir = std::env::temp_dir().join(format!("ferrite-btst-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ll = dir.join("btst.ll");
    std::fs::write(&ll, IR).unwrap();
    let obj = dir.join("btst.o");
    let o = llc_to(&llc, &ll, "obj", &obj);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dis = Command::new("m68k-linux-gnu-objdump")
        .arg("-d")
        .arg(&obj)
        .output()
        .expect("m68k-linux-gnu-objdump (cargo xtask installs binutils-m68k-linux-gnu)");
    let dis = String::from_utf8_lossy(&dis.stdout).to_string();
    assert!(dis.contains("btst"), "no bit test in:\n{dis}");
    // Right code tests bit 10: `btst #10,…`, or `btst %dN,…` after `moveq #10,%dN`.
    let wrong = dis
        .lines()
        .any(|l| l.contains("btst #") && !l.contains("btst #10,"));
    let asm = llc_to(&llc, &ll, "asm", &dir.join("btst.s"));
    let _ = std::fs::remove_dir_all(&dir);
    if wrong {
        assert!(
            !asm.status.success(),
            "the object tests the wrong bit and llc prints the assembly: the build would ship it\n{dis}"
        );
    }
    eprintln!(
        "bit-test bug: object {}, assembly output {}",
        if wrong { "wrong" } else { "right" },
        if asm.status.success() {
            "printed"
        } else {
            "crashed"
        }
    );
}
