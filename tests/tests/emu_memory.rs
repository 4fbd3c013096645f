//! The Memory Manager model, driven from 68k code through A-line traps.

use ferrite_emu::memory_manager::{DISPOSED_MASTER, FRESH_BYTE, STATE_LOCKED};
use ferrite_emu::testing::flat_image;
use ferrite_emu::{CpuModel, Fault, Machine, MachineConfig, lowmem};

/// ```text
/// 00 new_ptr_clear(size)  move.l 4(sp),d0; _NewPtrClear $A31E; rts
/// 08 new_ptr_sys(size)    move.l 4(sp),d0; _NewPtrSys  $A51E; rts
/// 10 dispose_ptr(p)       movea.l 4(sp),a0; _DisposePtr $A01F; rts
/// 18 new_handle(size)     move.l 4(sp),d0; _NewHandle $A122; rts
/// 20 dispose_handle(h)    movea.l 4(sp),a0; _DisposeHandle $A023; rts
/// 28 lock_and_state(h)    movea.l 4(sp),a0; _HLock; _HGetState; rts
/// 32 store_through(h, v)  movea.l 4(sp),a0; movea.l (a0),a0; move.l 8(sp),(a0); rts
/// 3e poke_byte(p, off, v) movea.l 4(sp),a0; move.l 8(sp),d0; move.b 15(sp),(a0,d0.l); rts
/// 4e preserve(size)       moveq #$55,d1; movea.l #$1234,a1; move.l 4(sp),d0; _NewPtr;
///                         seq d0; andi.l #$FF,d0; add.l d1,d0; add.l a1,d0; rts
/// 6a block_move(s, d, n)  movea.l 4(sp),a0; movea.l 8(sp),a1; move.l 12(sp),d0; _BlockMove; rts
/// 7a get_ptr_size(p)      movea.l 4(sp),a0; _GetPtrSize $A021; rts
/// 82 free_mem             _FreeMem $A01C; rts
/// 86 max_block_sys        _MaxBlock,SYS $A461; rts
/// ```
fn mm_image() -> ferrite_shared::flat::FlatImage {
    flat_image(
        &[
            0x202f, 0x0004, 0xa31e, 0x4e75, 0x202f, 0x0004, 0xa51e, 0x4e75, 0x206f, 0x0004, 0xa01f,
            0x4e75, 0x202f, 0x0004, 0xa122, 0x4e75, 0x206f, 0x0004, 0xa023, 0x4e75, 0x206f, 0x0004,
            0xa029, 0xa069, 0x4e75, 0x206f, 0x0004, 0x2050, 0x20af, 0x0008, 0x4e75, 0x206f, 0x0004,
            0x202f, 0x0008, 0x11af, 0x000f, 0x0800, 0x4e75, 0x7255, 0x227c, 0x0000, 0x1234, 0x202f,
            0x0004, 0xa11e, 0x57c0, 0x0280, 0x0000, 0x00ff, 0xd081, 0xd089, 0x4e75, 0x206f, 0x0004,
            0x226f, 0x0008, 0x202f, 0x000c, 0xa02e, 0x4e75, 0x206f, 0x0004, 0xa021, 0x4e75, 0xa01c,
            0x4e75, 0xa461, 0x4e75,
        ],
        &[],
        &[
            ("new_ptr_clear", 0x00),
            ("new_ptr_sys", 0x08),
            ("dispose_ptr", 0x10),
            ("new_handle", 0x18),
            ("dispose_handle", 0x20),
            ("lock_and_state", 0x28),
            ("store_through", 0x32),
            ("poke_byte", 0x3e),
            ("preserve", 0x4e),
            ("block_move", 0x6a),
            ("get_ptr_size", 0x7a),
            ("free_mem", 0x82),
            ("max_block_sys", 0x86),
        ],
        0,
    )
}

fn machine(cpu: CpuModel) -> Machine {
    let mut m = Machine::new(cpu);
    m.load(&mm_image()).unwrap();
    m
}

#[test]
fn new_ptr_clear_sys_and_dispose() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu);
        let r = m.call("new_ptr_clear", &[100]).unwrap();
        let p = r.a0;
        assert_eq!(r.d0, 0);
        let (a0, a1) = m.layout().application_heap;
        assert!((a0..a1).contains(&p), "TheZone is the application heap");
        assert!(
            m.read_bytes(p, 100).iter().all(|&b| b == 0),
            "CLEAR bit zeroes"
        );
        assert_eq!(m.call("get_ptr_size", &[p]).unwrap().d0, 100);

        let q = m.call("new_ptr_sys", &[16]).unwrap().a0;
        let (s0, s1) = m.layout().system_heap;
        assert!(
            (s0..s1).contains(&q),
            "SYS bit allocates in the system heap"
        );
        assert_eq!(
            m.read_bytes(q, 16),
            vec![FRESH_BYTE; 16],
            "no CLEAR: not zeroed"
        );

        assert_eq!(m.call("dispose_ptr", &[p]).unwrap().d0, 0);
        assert_eq!(m.call("dispose_ptr", &[q]).unwrap().d0, 0);
        assert!(m.memory_manager().block(p).is_none());
    }
}

#[test]
fn mem_full_sets_d0_memerr_and_nil() {
    let mut m = machine(CpuModel::M68030);
    let r = m.call("new_ptr_clear", &[64 << 20]).unwrap();
    assert_eq!((r.d0 as i32, r.a0), (-108, 0));
    assert_eq!(m.read_u16(lowmem::MEM_ERR) as i16, -108);
    let max = m.call("max_block_sys", &[]).unwrap().d0;
    let free = m.call("free_mem", &[]).unwrap().d0;
    assert!(max > 1 << 20 && free > 1 << 20, "{max} {free}");
    let r = m.call("new_ptr_sys", &[max]).unwrap();
    assert_eq!(r.d0, 0, "MaxBlock's answer can be allocated");
    assert_eq!(m.call("max_block_sys", &[]).unwrap().d0, 0);
}

#[test]
fn os_traps_preserve_registers_and_set_ccr_from_d0() {
    let mut m = machine(CpuModel::M68000);
    // Success: D0 = 0 → Z set → seq gives $FF; D1/A1 preserved.
    assert_eq!(m.call("preserve", &[16]).unwrap().d0, 0xFF + 0x55 + 0x1234);
    // Failure: D0 = -108 → Z clear.
    assert_eq!(
        m.call("preserve", &[0x7FFF_FFF0]).unwrap().d0,
        0x55 + 0x1234
    );
    // Without the (UNCONFIRMED) CCR rule, Z stays as `move.l 4(sp),d0` left it: clear.
    m.traps_mut().set_ccr_from_d0(false);
    assert_eq!(m.call("preserve", &[16]).unwrap().d0, 0x55 + 0x1234);
}

#[test]
fn handles_from_68k_code() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu);
        let h = m.call("new_handle", &[8]).unwrap().a0;
        assert_ne!(h, 0);
        m.call("store_through", &[h, 0xCAFE_F00D]).unwrap();
        let data = m.read_u32(h);
        assert_eq!(
            m.read_u32(data),
            0xCAFE_F00D,
            "master pointer dereference works"
        );
        assert_eq!(
            m.call("lock_and_state", &[h]).unwrap().d0 as u8 & STATE_LOCKED,
            STATE_LOCKED
        );
        m.call("dispose_handle", &[h]).unwrap();
        assert_eq!(m.read_u32(h), DISPOSED_MASTER);
        // A stale handle faults when used.
        let e = m.call("store_through", &[h, 1]).unwrap_err();
        assert!(
            matches!(
                e.fault,
                Fault::BusError { .. } | Fault::Exception { vector: 3, .. }
            ),
            "{e}"
        );
    }
}

#[test]
fn write_past_end_is_caught_after_the_call() {
    let mut m = machine(CpuModel::M68020);
    let p = m.call("new_ptr_clear", &[10]).unwrap().a0;
    m.call("poke_byte", &[p, 9, 0x42]).unwrap(); // last byte: fine
    let e = m.call("poke_byte", &[p, 10, 0x42]).unwrap_err();
    assert!(matches!(e.fault, Fault::HeapCorruption { .. }), "{e}");
    assert!(e.to_string().contains("past the end"), "{e}");
}

#[test]
fn write_past_end_is_caught_at_the_next_memory_manager_call() {
    let mut cfg = MachineConfig::new(CpuModel::M68000);
    cfg.check_heaps_after_call = false;
    let mut m = Machine::with_config(cfg).unwrap();
    let img = m.load(&mm_image()).unwrap();
    let p = m.call("new_ptr_clear", &[10]).unwrap().a0;
    m.call("poke_byte", &[p, 12, 0x42]).unwrap();
    let e = m.call("dispose_ptr", &[p]).unwrap_err();
    assert!(matches!(e.fault, Fault::HeapCorruption { .. }), "{e}");
    assert_eq!(
        e.pc,
        img.symbol("dispose_ptr").unwrap() + 4,
        "PC of the _DisposePtr trap"
    );
    // A write before the start is caught too.
    assert!(m.check_heaps().is_err());
}

#[test]
fn double_dispose_and_bogus_pointers_fail() {
    let mut m = machine(CpuModel::M68040);
    let p = m.call("new_ptr_clear", &[10]).unwrap().a0;
    m.call("dispose_ptr", &[p]).unwrap();
    let e = m.call("dispose_ptr", &[p]).unwrap_err();
    assert!(e.to_string().contains("disposed twice"), "{e}");
    assert!(e.to_string().contains("DisposePtr"), "{e}");
    let e = m.call("dispose_ptr", &[0x0012_3456]).unwrap_err();
    assert!(e.to_string().contains("never allocated"), "{e}");
    let e = m.call("dispose_ptr", &[0]).unwrap_err();
    assert!(e.to_string().contains("NIL"), "{e}");
    let h = m.call("new_handle", &[4]).unwrap().a0;
    let e = m.call("dispose_ptr", &[h]).unwrap_err();
    assert!(e.to_string().contains("is a handle"), "{e}");
    m.call("dispose_handle", &[h]).unwrap();
    let e = m.call("dispose_handle", &[h]).unwrap_err();
    assert!(e.to_string().contains("disposed twice"), "{e}");
}

#[test]
fn block_move_handles_overlap_both_ways() {
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        let mut m = machine(cpu);
        let p = m.call("new_ptr_clear", &[32]).unwrap().a0;
        let pattern: Vec<u8> = (1..=16).collect();
        m.write_bytes(p, &pattern);
        // Forward overlap: dst above src.
        m.call("block_move", &[p, p + 4, 16]).unwrap();
        let mut want = vec![1, 2, 3, 4];
        want.extend(1..=16);
        assert_eq!(m.read_bytes(p, 20), want, "{cpu}");
        // Backward overlap: dst below src.
        m.write_bytes(p, &pattern);
        m.call("block_move", &[p + 4, p, 12]).unwrap();
        let mut want: Vec<u8> = (5..=16).collect();
        want.extend(13..=16);
        assert_eq!(m.read_bytes(p, 16), want, "{cpu}");
        // A move that overruns the block is caught immediately.
        let e = m.call("block_move", &[p, p + 20, 16]).unwrap_err();
        assert!(
            e.to_string().contains("BlockMove") || e.to_string().contains("past the end"),
            "{e}"
        );
    }
}

#[test]
fn bad_zone_in_thezone_fails() {
    let mut m = machine(CpuModel::M68020);
    m.write_u32(lowmem::THE_ZONE, 0x1234);
    let e = m.call("new_ptr_clear", &[4]).unwrap_err();
    assert!(e.to_string().contains("not a heap zone"), "{e}");
}
