//! `cargo xtask verify` on hand-written binaries: non-zero on the flag hazard, zero on clean
//! code. Assembles the fixtures with GNU as (installed by `cargo xtask test`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn assemble_and_link(name: &str) -> PathBuf {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let obj = out.join(format!("{name}.o"));
    let elf = out.join(format!("{name}.elf"));
    let st = Command::new("m68k-linux-gnu-as")
        .args(["-m68000", "-o"])
        .arg(&obj)
        .arg(fixtures.join(format!("{name}.S")))
        .status()
        .expect("m68k-linux-gnu-as is missing: run `cargo xtask test`, which installs binutils-m68k-linux-gnu");
    assert!(st.success());
    let st = Command::new("m68k-linux-gnu-ld")
        .args(["-q", "--no-warn-rwx-segments", "-e", "0", "-T"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("link/flat.ld"))
        .arg("-o")
        .arg(&elf)
        .arg(&obj)
        .status()
        .expect("m68k-linux-gnu-ld is missing: run `cargo xtask test`");
    assert!(st.success());
    elf
}

fn verify(path: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("verify")
        .arg(path)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn verify_rejects_the_flag_hazard() {
    let (ok, text) = verify(&assemble_and_link("hazard"));
    assert!(!ok, "verify accepted the hazard:\n{text}");
    assert!(
        text.contains("0xc") || text.contains("0x0000000c") || text.contains("000c"),
        "finding should name address 0xc:\n{text}"
    );
    assert!(
        text.to_lowercase().contains("flag"),
        "finding should name the flag hazard:\n{text}"
    );
}

#[test]
fn verify_accepts_clean_code() {
    let (ok, text) = verify(&assemble_and_link("clean"));
    assert!(ok, "verify rejected clean code:\n{text}");
    assert!(text.contains("0 findings"), "{text}");
}

#[test]
fn verify_rejects_bra_l_in_a_68000_build() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    // A flat image whose only instruction is `bra.l` to itself + rts.
    let flat = ferrite_shared::flat::FlatImage {
        image: vec![0x60, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0x4E, 0x75],
        bss_len: 0,
        relocs: ferrite_shared::flat::encode_relocs(&[]).unwrap(),
        exports: vec![],
        cpu: 68000,
        code_len: 8,
    };
    let path = out.join("bral.flat");
    std::fs::write(&path, flat.to_bytes()).unwrap();
    let (ok, text) = verify(&path);
    assert!(!ok, "verify accepted bra.l in a 68000 build:\n{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["verify", "--cpu", "68020"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bra.l is legal on a 68020:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
