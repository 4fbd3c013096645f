//! PC-relative relocations fail closed: `ld -q` keeps them, the build re-lays the code, so
//! each one must be the displacement of an instruction the relayout re-encodes, or the build
//! stops. Ignored by default (they need binutils-m68k-linux-gnu, which `cargo xtask` installs).

use std::process::Command;

use retro68_build::elf::{Linked, read_linked};

/// Assemble `src` for the 68000 and link it at 0 with the flat linker script, keeping
/// relocations; the linked ELF's bytes.
fn link(name: &str, src: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("ferrite-pcrel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (s, o, e) = (
        dir.join(format!("{name}.S")),
        dir.join(format!("{name}.o")),
        dir.join(format!("{name}.elf")),
    );
    std::fs::write(&s, src).unwrap();
    let st = Command::new("m68k-linux-gnu-as")
        .args(["-m68000", "-o"])
        .arg(&o)
        .arg(&s)
        .status()
        .unwrap();
    assert!(st.success());
    let st = Command::new("m68k-linux-gnu-ld")
        .args(["-q", "--no-warn-rwx-segments", "-e", "0", "-T"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/link/flat.ld"))
        .arg("-o")
        .arg(&e)
        .arg(&o)
        .status()
        .unwrap();
    assert!(st.success());
    std::fs::read(&e).unwrap()
}

/// Code in two sections, so that the assembler leaves the cross-section references to the
/// linker as PC-relative relocations; `extra` is appended.
fn source(extra: &str) -> String {
    format!(
        "        .section .text.a,\"ax\"\n        .globl _s\n_s:     bsr.w foo\n        \
         lea bar(%pc),%a0\n        bsr.s foo\n        rts\n        .section .text.b,\"ax\"\n\
         foo:    rts\nbar:    nop\n        rts\n{extra}"
    )
}

fn linked(name: &str, src: &str) -> anyhow::Result<Linked> {
    read_linked(&link(name, src))
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn pc_relative_operands_are_recorded_and_accepted() {
    let l = linked("good", &source("")).unwrap();
    let sizes: Vec<u8> = l.pc_relative.iter().map(|r| r.size).collect();
    assert_eq!(
        sizes,
        [2, 2, 1],
        "bsr.w, lea (d16,%pc), bsr.s: {:?}",
        l.pc_relative
    );
    l.check_pc_relative(0).unwrap();
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_pc_relative_word_in_data_is_an_error() {
    let e = linked(
        "rodata",
        &source("        .section .rodata\n        .long foo - .\n"),
    )
    .unwrap_err();
    assert!(format!("{e:#}").contains("outside .text"), "{e:#}");
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_pc_relative_word_among_code_is_an_error() {
    // A jump-table-like word in .text: no instruction's displacement.
    let src = source("        .section .text.c,\"ax\"\n        rts\n        .long foo - .\n");
    let l = linked("text", &src).unwrap();
    let e = l.check_pc_relative(0).unwrap_err();
    assert!(format!("{e:#}").contains("not the displacement"), "{e:#}");
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_fixed_head_may_not_reach_the_re_laid_part() {
    // With the first 8 bytes kept in place (a driver head), `bsr.w foo` reaches past them.
    let l = linked("head", &source("")).unwrap();
    let e = l.check_pc_relative(8).unwrap_err();
    assert!(format!("{e:#}").contains("does not re-lay"), "{e:#}");
}
