//! The trap dispatcher: stubs, custom handlers, nested calls, time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use ferrite_emu::testing::flat_image;
use ferrite_emu::{CpuModel, Fault, Machine, lowmem};

/// ```text
/// 00 delay(t):        movea.l 4(sp),a0; _Delay ($A03B); rts
/// 08 via_stub(size):  moveq #$1E,d0; _GetOSTrapAddress ($A346); move.l 4(sp),d0; jsr (a0); rts
/// 14 unimpl_addr:     move.l #$1A0,d0; _GetToolTrapAddress ($A746); move.l a0,d1;
///                     move.l #$9F,d0; _GetToolTrapAddress; cmpa.l d1,a0; seq d0; rts
/// 2c custom(x):       move.l d2,-(sp); clr.l -(sp); move.l 12(sp),-(sp); Toolbox trap $A8F0;
///                     move.l (sp)+,d0; move.l (sp)+,d2; rts (a Toolbox trap may change D2,
///                     which the C ABI's caller expects back)
/// 3c loop(n):         move.l 4(sp),d1; moveq #0,d0; 1: add.l d1,d0; subq.l #1,d1; bne.s 1b; rts
/// 4a jump_iodone:     move.l (JIODone).w,-(sp); rts
/// ```
fn traps_image() -> ferrite_shared::flat::FlatImage {
    flat_image(
        &[
            0x206f, 0x0004, 0xa03b, 0x4e75, 0x701e, 0xa346, 0x202f, 0x0004, 0x4e90, 0x4e75, 0x203c,
            0x0000, 0x01a0, 0xa746, 0x2208, 0x203c, 0x0000, 0x009f, 0xa746, 0xb1c1, 0x57c0, 0x4e75,
            0x2f02, 0x42a7, 0x2f2f, 0x000c, 0xa8f0, 0x201f, 0x241f, 0x4e75, 0x222f, 0x0004, 0x7000,
            0xd081, 0x5381, 0x66fa, 0x4e75, 0x2f38, 0x08fc, 0x4e75,
        ],
        &[],
        &[
            ("delay", 0x00),
            ("via_stub", 0x08),
            ("unimpl_addr", 0x14),
            ("custom", 0x2c),
            ("loop", 0x3c),
            ("jump_iodone", 0x4a),
        ],
        0,
    )
}

fn machine(cpu: CpuModel) -> Machine {
    let mut m = Machine::new(cpu);
    m.load(&traps_image()).unwrap();
    m
}

#[test]
fn delay_advances_ticks() {
    let mut m = machine(CpuModel::M68000);
    let before = m.read_u32(lowmem::TICKS);
    let r = m.call("delay", &[30]).unwrap();
    assert!(r.d0 >= before + 30, "{} {before}", r.d0);
    assert_eq!(m.read_u32(lowmem::TICKS), r.d0);
}

#[test]
fn ticks_follow_emulated_cycles() {
    let mut m = machine(CpuModel::M68000);
    let r = m.call("loop", &[100_000]).unwrap();
    assert_eq!(r.d0, (100_000u64 * 100_001 / 2) as u32);
    let expected = (r.cycles as f64 * 60.15 / m.clock_hz() as f64) as u32;
    let ticks = m.read_u32(lowmem::TICKS);
    assert!(
        ticks > 0 && ticks.abs_diff(expected) <= 1,
        "ticks {ticks}, expected about {expected}"
    );
}

#[test]
fn low_memory_is_initialised() {
    for cpu in CpuModel::ALL {
        let m = Machine::new(cpu);
        let l = *m.layout();
        assert_eq!(m.read_u32(lowmem::MEM_TOP), l.ram_size);
        assert_eq!(m.read_u32(lowmem::SYS_ZONE), l.system_heap.0);
        assert_eq!(m.read_u32(lowmem::APPL_ZONE), l.application_heap.0);
        assert_eq!(m.read_u32(lowmem::THE_ZONE), l.application_heap.0);
        assert_eq!(m.read_u8(lowmem::CPU_FLAG), cpu.cpu_flag());
        assert_eq!(
            m.read_u16(lowmem::UNIT_NTRY_CNT),
            lowmem::UNIT_TABLE_ENTRIES
        );
        let ut = m.read_u32(lowmem::UTABLE_BASE);
        assert_eq!(
            m.memory_manager().block(ut).unwrap().size,
            4 * lowmem::UNIT_TABLE_ENTRIES as u32
        );
        assert_eq!(m.read_u32(lowmem::CURRENT_A5), l.current_a5());
        assert_eq!(m.read_u16(lowmem::ROM85) & 0x8000, 0);
        assert_eq!(m.read_u32(lowmem::LO3_BYTES), 0x00FF_FFFF);
    }
}

#[test]
fn os_trap_through_its_stub_address() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu);
        let r = m.call("via_stub", &[24]).unwrap();
        assert_eq!(r.d0, 0);
        assert_eq!(m.memory_manager().block(r.a0).unwrap().size, 24, "{cpu}");
    }
}

#[test]
fn get_trap_address_reports_unimplemented_traps() {
    let mut m = machine(CpuModel::M68030);
    assert_eq!(
        m.call("unimpl_addr", &[]).unwrap().d0 & 0xFF,
        0xFF,
        "GetResource is unimplemented"
    );
    m.register_trap(0xA9A0, "GetResource", |_, _| Ok(()));
    assert_eq!(
        m.call("unimpl_addr", &[]).unwrap().d0 & 0xFF,
        0,
        "now it has an address"
    );
}

#[test]
fn custom_toolbox_handler_with_nested_guest_call() {
    for cpu in CpuModel::ALL {
        let mut m = machine(cpu);
        let seen = Arc::new(AtomicU32::new(0));
        let seen2 = seen.clone();
        // Pascal: FUNCTION Custom(x: LONGINT): LONGINT — result = loop(x), computed by calling
        // back into guest code from the handler.
        m.register_trap(0xA8F0, "Custom", move |m, call| {
            let args = call.pascal_args(m);
            let x = m.read_u32(args);
            seen2.store(call.word as u32, Ordering::SeqCst);
            let r = m.call("loop", &[x])?;
            m.pascal_pop(call, 4);
            let res = call.pascal_args(m);
            m.write_u32(res, r.d0);
            Ok(())
        });
        assert_eq!(m.call("custom", &[10]).unwrap().d0, 55, "{cpu}");
        assert_eq!(seen.load(Ordering::SeqCst), 0xA8F0);
    }
}

#[test]
fn handler_errors_and_nested_failures_propagate() {
    let mut m = machine(CpuModel::M68020);
    m.register_trap(0xA8F0, "Custom", |_, call| {
        Err(Fault::misuse(call.word, "refused"))
    });
    let e = m.call("custom", &[1]).unwrap_err();
    assert!(e.to_string().contains("refused"), "{e}");
    // A nested call that fails (here: budget) surfaces as a nested fault.
    let mut cfg = ferrite_emu::MachineConfig::new(CpuModel::M68020);
    cfg.instruction_budget = 1000;
    let mut m = Machine::with_config(cfg).unwrap();
    m.load(&traps_image()).unwrap();
    m.register_trap(0xA8F0, "Custom", |m, _| {
        m.call("loop", &[u32::MAX])?;
        Ok(())
    });
    let e = m.call("custom", &[1]).unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Nested { error } if matches!(error.fault, Fault::BudgetExhausted { .. })),
        "{e}"
    );
}

#[test]
fn jiodone_starts_as_an_unmodelled_host_routine() {
    let mut m = machine(CpuModel::M68040);
    let e = m.call("jump_iodone", &[]).unwrap_err();
    assert!(e.to_string().contains("JIODone"), "{e}");
    // A model can install a handler; the routine then returns like RTS.
    let addr = m.read_u32(lowmem::JIO_DONE);
    m.set_host_routine(
        addr,
        Some(Arc::new(
            |m: &mut Machine, _: &mut ferrite_emu::TrapCall| {
                m.set_d(0, 0x1D0);
                Ok(())
            },
        )),
    );
    assert_eq!(m.call("jump_iodone", &[]).unwrap().d0, 0x1D0);
}

#[test]
fn unregistered_handler_fails() {
    let mut m = machine(CpuModel::M68000);
    m.traps_mut().unregister(0xA03B);
    let e = m.call("delay", &[1]).unwrap_err();
    assert_eq!(
        e.fault,
        Fault::UnimplementedTrap {
            word: 0xA03B,
            name: Some("Delay")
        }
    );
    assert!(m.traps().is_implemented(0xA11E));
    assert!(!m.traps().is_implemented(0xA03B));
}

/// ```text
/// 00 keep_d1_toolbox(x): move.l d2,-(sp); move.l 8(sp),d1; Toolbox trap $A8F1;
///                        move.l d1,d0; move.l (sp)+,d2; rts
/// 0e keep_d1_os(x):      move.l 4(sp),d1; OS trap $A0F1; move.l d1,d0; rts
/// ```
/// Guest code that keeps a value in D1 across a trap (D1: the C ABI lets a callee change
/// it, so only the trap rule can catch this).
fn keep_d1_image() -> ferrite_shared::flat::FlatImage {
    flat_image(
        &[
            0x2f02, 0x222f, 0x0008, 0xa8f1, 0x2001, 0x241f, 0x4e75, 0x222f, 0x0004, 0xa0f1, 0x2001,
            0x4e75,
        ],
        &[],
        &[("keep_d1_toolbox", 0x00), ("keep_d1_os", 0x0e)],
        0,
    )
}

/// A Toolbox trap may change D0–D2/A0–A1 (IM Operating System Utilities, the Trap
/// Dispatcher): the model returns garbage there, so guest code that keeps a value in D1
/// across one is caught; an OS trap's dispatcher restores D1–D2/A1 (and A0), so the same
/// code around an OS trap is right. With the garbage off (a lenient Mac) the planted guest
/// would pass: the rule is what catches it.
#[test]
fn toolbox_traps_leave_garbage_in_the_registers_they_may_change() {
    for cpu in CpuModel::ALL {
        let mut m = Machine::new(cpu);
        m.load(&keep_d1_image()).unwrap();
        m.register_trap(0xA8F1, "ToolboxNoOp", |_m, _call| Ok(()));
        m.register_trap(0xA0F1, "OsNoOp", |m, _call| {
            m.set_d(0, 0);
            Ok(())
        });
        let x = 0x1234_5678;
        for _ in 0..4 {
            assert_ne!(
                m.call("keep_d1_toolbox", &[x]).unwrap().d0,
                x,
                "{cpu}: D1 across a Toolbox trap"
            );
            assert_eq!(
                m.call("keep_d1_os", &[x]).unwrap().d0,
                x,
                "{cpu}: D1 across an OS trap"
            );
        }
        m.traps_mut().set_scratch_garbage(false);
        assert_eq!(m.call("keep_d1_toolbox", &[x]).unwrap().d0, x, "{cpu}");
    }
}

/// A register-based Toolbox trap keeps its result: `_Dequeue`'s D0 (0, or `qErr`).
#[test]
fn a_register_based_toolbox_trap_keeps_its_result() {
    // dequeue(e, q): move.l d2,-(sp); movea.l 8(sp),a0; movea.l 12(sp),a1; _Dequeue ($A96E);
    // move.l (sp)+,d2; rts
    let image = flat_image(
        &[
            0x2f02, 0x206f, 0x0008, 0x226f, 0x000c, 0xa96e, 0x241f, 0x4e75,
        ],
        &[],
        &[("dequeue", 0x00)],
        0,
    );
    for cpu in CpuModel::ALL {
        let mut m = Machine::new(cpu);
        m.install_mac_os();
        m.load(&image).unwrap();
        // An empty queue header (qFlags, qHead, qTail) in low memory's free area.
        let q = m
            .new_ptr(ferrite_emu::memory_manager::ZoneId::System, 16, true)
            .unwrap();
        let r = m.call("dequeue", &[q + 12, q]).unwrap();
        assert_eq!(
            r.d0 as i16, -1,
            "{cpu}: qErr for an element not in the queue"
        );
    }
}
