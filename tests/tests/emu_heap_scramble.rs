//! The Memory Manager's strict modes, driven from 68k guest code: the seeded heap scramble
//! (unlocked relocatable blocks move at every call that may move memory) and, on 24-bit
//! machines, handle flags in the master pointer's high byte. Each rule has a misbehaving
//! guest that is caught and a correct guest that passes.

use ferrite_emu::memory_manager::{FREED_BYTE, STATE_LOCKED};
use ferrite_emu::testing::flat_image;
use ferrite_emu::{CpuModel, Fault, Machine, MachineConfig, ZoneId};

/// Hand-assembled guest routines (C ABI). `_NewPtr` ($A11E) allocates 16 bytes in `TheZone`
/// (the application heap): a call that may move memory. Each routine accesses the handle's
/// block at offset 200, beyond what a 16-byte block placed in the vacated range could cover.
/// ```text
/// 00 stale_read(h)        movea.l 4(sp),a0; movea.l (a0),a1; moveq #16,d0; _NewPtr;
///                         move.l 200(a1),d0; rts           — keeps *h across _NewPtr (wrong)
/// 10 stale_write(h, v)    movea.l 4(sp),a0; movea.l (a0),a1; moveq #16,d0; _NewPtr;
///                         move.l 8(sp),200(a1); rts        — writes through the stale pointer
/// 22 reread(h)            movea.l 4(sp),a1; moveq #16,d0; _NewPtr; movea.l (a1),a0;
///                         move.l 200(a0),d0; rts           — dereferences after the call (right)
/// 32 locked_read(h)       movea.l 4(sp),a0; _HLock; movea.l (a0),a1; moveq #16,d0; _NewPtr;
///                         move.l 200(a1),d0; rts           — locks first (right)
/// 44 lock_then_compare(h, p)  movea.l 4(sp),a0; _HLock; move.l (a0),d0; sub.l 8(sp),d0; rts
///                         — compares a master pointer with an address (32-bit clean only
///                           after _StripAddress)
/// 52 bset_lock_read(h)    movea.l 4(sp),a0; bset #7,(a0); movea.l (a0),a1; moveq #16,d0;
///                         _NewPtr; move.l 200(a1),d0; rts  — 24-bit-era locking by hand
/// 66 recover_locked(h)    movea.l 4(sp),a0; _HLock; movea.l (a0),a0; _RecoverHandle $A128;
///                         move.l a0,d0; rts                — a flagged pointer, on 24-bit
/// ```
fn guest() -> ferrite_shared::flat::FlatImage {
    flat_image(
        &[
            0x206f, 0x0004, 0x2250, 0x7010, 0xa11e, 0x2029, 0x00c8, 0x4e75, 0x206f, 0x0004, 0x2250,
            0x7010, 0xa11e, 0x236f, 0x0008, 0x00c8, 0x4e75, 0x226f, 0x0004, 0x7010, 0xa11e, 0x2051,
            0x2028, 0x00c8, 0x4e75, 0x206f, 0x0004, 0xa029, 0x2250, 0x7010, 0xa11e, 0x2029, 0x00c8,
            0x4e75, 0x206f, 0x0004, 0xa029, 0x2010, 0x90af, 0x0008, 0x4e75, 0x206f, 0x0004, 0x08d0,
            0x0007, 0x2250, 0x7010, 0xa11e, 0x2029, 0x00c8, 0x4e75, 0x206f, 0x0004, 0xa029, 0x2050,
            0xa128, 0x2008, 0x4e75,
        ],
        &[],
        &[
            ("stale_read", 0x00),
            ("stale_write", 0x10),
            ("reread", 0x22),
            ("locked_read", 0x32),
            ("lock_then_compare", 0x44),
            ("bset_lock_read", 0x52),
            ("recover_locked", 0x66),
        ],
        0,
    )
}

/// The value the tests store in the handle's block at offset 200.
const MARK: u32 = 0x1234_5678;

/// Seed of these tests: `FERRITE_SEED` when set (see `ferrite_emu::seed`).
fn seed() -> u64 {
    ferrite_emu::seed::seed_from_env()
}

fn machine(cpu: CpuModel, scramble: bool) -> Machine {
    let mut cfg = MachineConfig::new(cpu);
    cfg.heap_scramble = scramble.then(seed);
    let mut m = Machine::with_config(cfg).unwrap();
    m.load(&guest()).unwrap();
    m
}

/// A 256-byte handle in the application heap with [`MARK`] at offset 200.
fn marked_handle(m: &mut Machine) -> u32 {
    let (mm, bus) = m.memory_manager_and_bus();
    let h = mm.new_handle(bus, ZoneId::Application, 256, true).unwrap();
    let p = m.read_u32(h) & m.bus().address_mask();
    m.write_u32(p + 200, MARK);
    h
}

#[test]
fn a_pointer_kept_across_new_ptr_reads_freed_memory_under_the_scramble() {
    for cpu in CpuModel::ALL {
        // Without the scramble the same (wrong) guest gets away with it.
        let mut calm = machine(cpu, false);
        let h = marked_handle(&mut calm);
        assert_eq!(calm.call("stale_read", &[h]).unwrap().d0, MARK, "{cpu}");

        let mut m = machine(cpu, true);
        let h = marked_handle(&mut m);
        let before = m.read_u32(h);
        let d0 = m.call("stale_read", &[h]).unwrap().d0;
        assert_ne!(m.read_u32(h), before, "{cpu}: the unlocked block moved");
        assert!(m.memory_manager().scramble_moves() > 0);
        assert_eq!(
            d0,
            u32::from_be_bytes([FREED_BYTE; 4]),
            "{cpu}: the stale pointer reads the vacated range's fill (seed {})",
            seed()
        );
    }
}

#[test]
fn a_write_through_a_stale_pointer_is_caught_and_named() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu, true);
        let h = marked_handle(&mut m);
        let e = m.call("stale_write", &[h, 0xCAFE_F00D]).unwrap_err();
        let Fault::HeapCorruption { message } = &e.fault else {
            panic!("{cpu}: expected heap corruption, got {e}");
        };
        for needle in [
            "write into free memory",
            &format!("handle ${h:08X}"),
            "heap scramble moved it",
            "_NewPtr",
            &format!("seed {}", seed()),
            "_HLock",
        ] {
            assert!(
                message.contains(needle),
                "{cpu}: {needle:?} not in {message}"
            );
        }
    }
}

#[test]
fn dereferencing_again_after_the_call_sees_the_moved_block() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu, true);
        let h = marked_handle(&mut m);
        let before = m.read_u32(h);
        assert_eq!(m.call("reread", &[h]).unwrap().d0, MARK, "{cpu}");
        assert_ne!(m.read_u32(h), before, "{cpu}: it did move");
        m.check_heaps().unwrap();
    }
}

#[test]
fn locked_blocks_never_move() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu, true);
        let h = marked_handle(&mut m);
        let target = m.read_u32(h) & m.bus().address_mask();
        assert_eq!(m.call("locked_read", &[h]).unwrap().d0, MARK, "{cpu}");
        assert_eq!(m.read_u32(h) & m.bus().address_mask(), target, "{cpu}");
        // Unlocked again, it moves at the next allocation.
        let (mm, bus) = m.memory_manager_and_bus();
        mm.set_handle_state(bus, h, 0).unwrap();
        mm.new_ptr(bus, ZoneId::Application, 8, false).unwrap();
        assert_ne!(m.read_u32(h) & m.bus().address_mask(), target, "{cpu}");
    }
}

#[test]
fn the_scramble_is_reproducible_from_its_seed() {
    let layout = |seed: u64| {
        let mut cfg = MachineConfig::new(CpuModel::M68020);
        cfg.heap_scramble = Some(seed);
        let mut m = Machine::with_config(cfg).unwrap();
        let (mm, bus) = m.memory_manager_and_bus();
        let hs: Vec<u32> = (0..8)
            .map(|i| {
                mm.new_handle(bus, ZoneId::Application, 40 + i, false)
                    .unwrap()
            })
            .collect();
        mm.new_ptr(bus, ZoneId::Application, 8, false).unwrap();
        hs.iter().map(|&h| m.read_u32(h)).collect::<Vec<_>>()
    };
    assert_eq!(layout(7), layout(7));
    assert_ne!(layout(7), layout(8));
}

#[test]
fn on_24_bit_machines_the_master_pointer_carries_the_flags() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu, false);
        let h = marked_handle(&mut m);
        let p = m.read_u32(h);
        let diff = m.call("lock_then_compare", &[h, p]).unwrap().d0;
        let state = m.memory_manager().handle_state(m.bus(), h).unwrap();
        assert_eq!(state, STATE_LOCKED, "{cpu}");
        if m.config().addressing_24bit {
            // A master pointer compared with an address differs by the flags byte.
            assert_eq!(diff, 0x8000_0000, "{cpu}: locked flag in the high byte");
            assert_eq!(m.read_u32(h) >> 24, STATE_LOCKED as u32);
        } else {
            assert_eq!(diff, 0, "{cpu}: a 32-bit master pointer is a plain address");
        }
        // Either way the block is reachable through it: the 24-bit bus ignores the byte.
        assert_eq!(m.call("locked_read", &[h]).unwrap().d0, MARK, "{cpu}");
    }
}

#[test]
fn locking_by_setting_the_flag_bit_works_only_on_24_bit_machines() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu, true);
        let h = marked_handle(&mut m);
        let r = m.call("bset_lock_read", &[h]);
        if m.config().addressing_24bit {
            // The byte is the lock: the scramble leaves the block alone.
            assert_eq!(r.unwrap().d0, MARK, "{cpu}");
            assert_eq!(
                m.memory_manager().handle_state(m.bus(), h).unwrap(),
                STATE_LOCKED
            );
        } else {
            let e = r.unwrap_err();
            let Fault::HeapCorruption { message } = &e.fault else {
                panic!("{cpu}: expected heap corruption, got {e}");
            };
            assert!(
                message.contains("high byte $80 was set") && message.contains("32-bit machine"),
                "{cpu}: {message}"
            );
            assert!(
                e.to_string()
                    .contains(&format!("heap scramble on (FERRITE_SEED={}", seed())),
                "{cpu}: a failure under the scramble names its seed: {e}"
            );
        }
    }
}

#[test]
fn the_memory_manager_takes_a_flagged_pointer_on_24_bit_machines() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu, false);
        let h = marked_handle(&mut m);
        // On a 24-bit machine *h of a locked handle is $80xxxxxx; _RecoverHandle ignores the
        // flags byte as the 24-bit Memory Manager does.
        assert_eq!(m.call("recover_locked", &[h]).unwrap().d0, h, "{cpu}");
    }
}
