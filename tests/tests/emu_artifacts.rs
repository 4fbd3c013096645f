//! Tests on the real m68k artifacts that `cargo xtask build` makes (`FERRITE_M68K_DIR`,
//! default `target/m68k`). They are `#[ignore]`d in a plain `cargo test`; `cargo xtask test`
//! builds the artifacts and runs them with `--include-ignored`.

use ferrite_emu::{CpuModel, Fault, Machine, ZoneId};
use ferrite_shared::flat::{FlatImage, apply_relocs, encode_relocs};
use std::path::PathBuf;

fn artifacts_dir() -> PathBuf {
    std::env::var_os("FERRITE_M68K_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/m68k"))
}

fn artifact(rel: &str) -> FlatImage {
    let path = artifacts_dir().join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `cargo xtask test` (it builds the m68k artifacts)",
            path.display()
        )
    });
    FlatImage::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Place `image` unrelocated at a fresh block, run the 68k stub on it, and return the base.
fn relocate_with_stub(m: &mut Machine, image: &FlatImage) -> u32 {
    let size = image.image.len() as u32 + image.bss_len;
    let base = m
        .new_ptr(ZoneId::System, size, true)
        .expect("NewPtrSys for the image");
    m.write_bytes(base, &image.image);
    let table = m
        .new_ptr(ZoneId::System, image.relocs.len() as u32, false)
        .expect("NewPtrSys for the table");
    m.write_bytes(table, &image.relocs);
    m.call("ferrite_relocate", &[base, table])
        .expect("the relocation stub ran");
    base
}

#[test]
#[ignore = "needs m68k artifacts: run `cargo xtask test`"]
fn relocation_stub_matches_the_host_on_the_codegen_suite() {
    let stub = artifact("ferrite-relocate.flat");
    let suite = artifact("test/codegen-suite.flat");
    let n_relocs = suite.reloc_offsets().unwrap().len();
    assert!(
        n_relocs > 50,
        "the suite should have many absolute relocations, has {n_relocs}"
    );
    for model in [CpuModel::M68000, CpuModel::M68040] {
        let mut m = Machine::new(model);
        m.load(&stub).unwrap();
        let base = relocate_with_stub(&mut m, &suite);
        let mut expected = suite.image.clone();
        apply_relocs(&mut expected, &suite.relocs, base).unwrap();
        assert_eq!(
            m.read_bytes(base, expected.len() as u32),
            expected,
            "stub and host disagree on {model}"
        );

        // Relocated code must not run before the instruction cache is flushed …
        let count_at = base + suite.export("cg_case_count").unwrap();
        let err = m
            .call_address(count_at, &[])
            .expect_err("running unflushed code must fail");
        assert!(
            matches!(err.fault, Fault::StaleCode { .. }),
            "unexpected error: {err}"
        );
        // … and runs after it.
        let mut m = Machine::new(model);
        m.load(&stub).unwrap();
        let base = relocate_with_stub(&mut m, &suite);
        m.flush_icache();
        let r = m
            .call_address(base + suite.export("cg_case_count").unwrap(), &[])
            .unwrap();
        assert_eq!(r.d0, codegen_suite::CASES.len() as u32);
    }
}

#[test]
#[ignore = "needs m68k artifacts: run `cargo xtask test`"]
fn relocation_stub_handles_every_table_encoding() {
    let stub = artifact("ferrite-relocate.flat");
    // Offsets chosen to use one-byte (d ≤ 252), two-byte (d ≤ 64 510) and five-byte entries,
    // including the boundaries of each form.
    let offsets: Vec<u32> = vec![
        0,
        4,
        256,
        260 + 252,
        516 + 254,
        1_000 + 64_510,
        70_000,
        70_004 + 64_512,
        300_000,
    ];
    let table = encode_relocs(&offsets).unwrap();
    assert!(
        table.contains(&0xFF),
        "the table should use the five-byte form"
    );
    let mut image = vec![0u8; 300_004];
    for (i, &o) in offsets.iter().enumerate() {
        image[o as usize..o as usize + 4]
            .copy_from_slice(&(0x1000_0000u32 + i as u32 * 0x111).to_be_bytes());
    }
    let flat = FlatImage {
        image,
        bss_len: 0,
        relocs: table,
        exports: vec![],
        cpu: 68000,
        code_len: 0,
    };
    for model in [CpuModel::M68000, CpuModel::M68020, CpuModel::M68040] {
        let mut m = Machine::new(model);
        m.load(&stub).unwrap();
        let base = relocate_with_stub(&mut m, &flat);
        let mut expected = flat.image.clone();
        assert_eq!(
            apply_relocs(&mut expected, &flat.relocs, base).unwrap(),
            offsets.len()
        );
        assert_eq!(
            m.read_bytes(base, expected.len() as u32),
            expected,
            "stub and host disagree on {model}"
        );
    }
}

#[test]
#[ignore = "needs m68k artifacts: run `cargo xtask test`"]
fn codegen_suite_allocates_through_the_memory_manager() {
    let suite = artifact("test/codegen-suite.flat");
    let mut m = Machine::new(CpuModel::M68040);
    m.load(&suite).unwrap();
    let buf = m
        .new_ptr(ZoneId::Application, codegen_suite::MAX_OUTPUT as u32, true)
        .unwrap();
    let before = m.stats().traps;
    let vec_case = codegen_suite::CASES
        .iter()
        .position(|c| c.name.contains("vec"))
        .expect("the suite has a Vec case") as u32;
    m.call(
        "cg_run_case",
        &[vec_case, buf, codegen_suite::MAX_OUTPUT as u32],
    )
    .unwrap();
    assert!(
        m.stats().traps > before,
        "a Vec case must call _NewPtr/_DisposePtr"
    );
    m.check_heaps().unwrap();
}

/// After a case faults, the conformance run starts a fresh machine. Its output buffer must be
/// allocated again in that machine: the old address is free memory there, so the next cases'
/// own heap blocks landed on it (on the 68040, `dyn_closures` read its own output as a vtable
/// pointer and died at $AB000001, and `vec_grow_big` returned the 0xDD fill of its disposed Vec).
#[test]
#[ignore = "needs m68k artifacts: run `cargo xtask test`"]
fn codegen_conformance_reallocates_the_output_buffer_after_a_fault() {
    use ferrite_harness::conformance::SuiteRunner;
    let suite = artifact("test/codegen-suite.flat");
    let vec_case = codegen_suite::CASES
        .iter()
        .position(|c| c.name == "vec_grow_big")
        .unwrap() as u32;
    let live = |r: &SuiteRunner| {
        let b = r
            .machine()
            .memory_manager()
            .block(r.buffer())
            .map(|b| b.size);
        assert_eq!(
            b,
            Some(SuiteRunner::CAP),
            "output buffer ${:08X} is not a live block",
            r.buffer()
        );
    };
    let mut r = SuiteRunner::new(&suite, CpuModel::M68040).unwrap();
    live(&r);
    let before = r.run_case(vec_case, None);
    // The restart that `run_case` does after a fault; then the same case must give the same.
    r.restart().unwrap();
    live(&r);
    assert_eq!(
        r.run_case(vec_case, None),
        before,
        "vec_grow_big differs after a restart"
    );
    r.machine().check_heaps().unwrap();
}
