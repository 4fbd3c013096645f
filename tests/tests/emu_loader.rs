//! Loading flat images and calling them with the C ABI.

use ferrite_emu::testing::flat_image;
use ferrite_emu::{CpuModel, Fault, Machine, ZoneId};

/// `get_value(i)`: reads a pointer from a relocated table pointer and returns `table[i]`.
///
/// ```text
/// 00  202f 0004       move.l 4(sp),d0
/// 04  e588            lsl.l #2,d0
/// 06  2079 0000 0012  movea.l (table_ptr).l,a0     ; relocated (offset 8)
/// 0c  2030 0800       move.l (a0,d0.l),d0
/// 10  4e75            rts
/// 12  0000 0016       table_ptr: .long table       ; relocated (offset $12)
/// 16  11, 22, 33, 44  table
/// ```
fn reloc_image() -> ferrite_shared::flat::FlatImage {
    flat_image(
        &[
            0x202f, 0x0004, 0xe588, 0x2079, 0x0000, 0x0012, 0x2030, 0x0800, 0x4e75, 0x0000, 0x0016,
            0x0000, 0x000b, 0x0000, 0x0016, 0x0000, 0x0021, 0x0000, 0x002c,
        ],
        &[0x08, 0x12],
        &[("get_value", 0)],
        64,
    )
}

/// ```text
/// 00 diff_sum(a, b):  d0 = a - b, a0 = a + b
/// 12 weighted(a,b,c,d,e): a + 2b + 3c + 4d + 5e (saves/restores D2)
/// 2a wide(a, b): d0 = a, d1 = b (64-bit result)
/// 34 clobber_d2: moveq #1,d2; rts        (breaks the ABI)
/// 38 pop_arg: move.l (sp)+,a0; addq.l #4,sp; jmp (a0)   (callee pops: breaks the ABI)
/// ```
fn abi_image() -> ferrite_shared::flat::FlatImage {
    flat_image(
        &[
            0x202f, 0x0004, 0x90af, 0x0008, 0x206f, 0x0004, 0xd1ef, 0x0008, 0x4e75, 0x2f02, 0x7000,
            0x7205, 0x43ef, 0x001c, 0x2421, 0xc5c1, 0xd082, 0x5381, 0x66f6, 0x241f, 0x4e75, 0x202f,
            0x0004, 0x222f, 0x0008, 0x4e75, 0x7401, 0x4e75, 0x205f, 0x588f, 0x4ed0,
        ],
        &[],
        &[
            ("diff_sum", 0),
            ("weighted", 0x12),
            ("wide", 0x2a),
            ("clobber_d2", 0x34),
            ("pop_arg", 0x38),
        ],
        0,
    )
}

#[test]
fn relocated_image_gives_same_result_at_two_addresses_and_in_the_heap() {
    for cpu in CpuModel::ALL {
        let mut m = Machine::new(cpu);
        let (lo, _) = m.layout().free_area;
        let a = m.load_at(&reloc_image(), lo).unwrap();
        let b = m.load_at(&reloc_image(), lo + 0x1_2346).unwrap();
        let r_a = m
            .call_address(a.symbol("get_value").unwrap(), &[2])
            .unwrap();
        let r_b = m
            .call_address(b.symbol("get_value").unwrap(), &[2])
            .unwrap();
        assert_eq!((r_a.d0, r_b.d0), (33, 33), "{cpu}");
        // The relocated words really differ (the test would pass vacuously otherwise).
        assert_ne!(m.read_u32(a.base + 8), m.read_u32(b.base + 8));
        assert_eq!(m.read_u32(b.base + 0x12), b.base + 0x16);
        // bss is zeroed.
        assert!(
            m.read_bytes(a.base + a.image_len, 64)
                .iter()
                .all(|&x| x == 0)
        );

        let mut h = Machine::new(cpu);
        let c = h.load(&reloc_image()).unwrap();
        let (s0, s1) = h.layout().system_heap;
        assert!((s0..s1).contains(&c.base), "loaded into the system heap");
        assert_eq!(h.call("get_value", &[3]).unwrap().d0, 44);
        assert_eq!(
            h.memory_manager().block(c.base).unwrap().size,
            c.image_len + 64
        );
    }
}

#[test]
fn unrelocated_image_would_give_a_different_result() {
    // Sanity check of the test above: without relocations the table pointer is wrong.
    let mut img = reloc_image();
    img.relocs = ferrite_shared::flat::encode_relocs(&[]).unwrap();
    let mut m = Machine::new(CpuModel::M68020);
    m.load(&img).unwrap();
    // The unrelocated pointers ($12, $16) point into the vector table: garbage, not 33.
    let r = m.call("get_value", &[2]);
    eprintln!("{r:?}");
    assert_ne!(r.map(|r| r.d0).ok(), Some(33));
}

#[test]
fn c_abi_arguments_and_results_on_every_cpu() {
    for cpu in CpuModel::ALL {
        let mut m = Machine::new(cpu);
        m.load(&abi_image()).unwrap();
        let r = m.call("diff_sum", &[100, 58]).unwrap();
        assert_eq!((r.d0, r.a0), (42, 158), "{cpu}");
        assert!(r.instructions == 5 && r.cycles > 0, "{cpu}: {r:?}");
        let r = m.call("weighted", &[1, 2, 3, 4, 5]).unwrap();
        assert_eq!(
            r.d0,
            1 + 4 + 9 + 16 + 25,
            "{cpu}: arguments pushed right to left"
        );
        let r = m.call("wide", &[0x1234_5678, 0x9ABC_DEF0]).unwrap();
        assert_eq!((r.d0, r.d1), (0x1234_5678, 0x9ABC_DEF0));
        // Negative results come back as two's complement.
        assert_eq!(m.call("diff_sum", &[1, 3]).unwrap().d0 as i32, -2);
    }
}

#[test]
fn cycle_counts_follow_the_cpu_model() {
    let cycles = |cpu| {
        let mut m = Machine::new(cpu);
        m.load(&abi_image()).unwrap();
        m.call("weighted", &[1, 2, 3, 4, 5]).unwrap().cycles
    };
    let (c000, c040) = (cycles(CpuModel::M68000), cycles(CpuModel::M68040));
    assert!(c000 > c040, "68000 {c000} cycles vs 68040 {c040}");
}

#[test]
fn callee_saved_register_and_stack_violations_fail() {
    let mut m = Machine::new(CpuModel::M68000);
    m.load(&abi_image()).unwrap();
    let e = m.call("clobber_d2", &[]).unwrap_err();
    assert!(matches!(e.fault, Fault::AbiViolation { .. }), "{e}");
    assert!(e.to_string().contains("D2"), "{e}");
    let e = m.call("pop_arg", &[7]).unwrap_err();
    assert!(e.to_string().contains("SP after return"), "{e}");
    // The machine stays usable after a failed call.
    assert_eq!(m.call("diff_sum", &[5, 3]).unwrap().d0, 2);
}

#[test]
fn load_errors() {
    let mut m = Machine::new(CpuModel::M68000);
    let e = m.call("nothing", &[]).unwrap_err();
    assert!(
        e.to_string().contains("no loaded image exports `nothing`"),
        "{e}"
    );
    let mut img = abi_image();
    img.cpu = 68020;
    let e = m.load(&img).unwrap_err();
    assert!(e.to_string().contains("built for the 68020"), "{e}");
    let (s0, _) = m.layout().system_heap;
    assert!(
        m.load_at(&abi_image(), s0).is_err(),
        "heap is not a free load area"
    );
    let (lo, _) = m.layout().free_area;
    m.load_at(&abi_image(), lo).unwrap();
    assert!(
        m.load_at(&abi_image(), lo + 4)
            .unwrap_err()
            .to_string()
            .contains("overlaps")
    );
    // Same export twice: ambiguous by name, fine by address.
    m.load_in_heap(&abi_image(), ZoneId::Application).unwrap();
    assert!(
        m.call("wide", &[1, 2])
            .unwrap_err()
            .to_string()
            .contains("2 loaded images")
    );
}
