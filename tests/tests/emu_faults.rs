//! Guest failures stop the run with a clear error.

use ferrite_emu::bus::{Access, BusFaultCause};
use ferrite_emu::testing::flat_image;
use ferrite_emu::{ChainSource, CpuModel, Fault, Machine, MachineConfig, ZoneId};

/// Hand-assembled test routines (offsets in the export table below):
/// ```text
/// 00 outer:      link a6,#0; bsr.s inner; unlk a6; rts
/// 0a inner:      link a6,#0; _GetResource ($A9A0, unimplemented); unlk a6; rts
/// 14 debug_str:  pea msg(pc); _DebugStr ($ABFF); addq.l #4,sp; rts
/// 1e msg:        "\pHello world" (12 bytes)
/// 2a illegal:    illegal; rts
/// 2e odd_read(p):   movea.l 4(sp),a0; move.w (a0),d0; rts
/// 36 hang:       bra.s hang
/// 38 far_read(p):   movea.l 4(sp),a0; move.l (a0),d0; rts
/// 40 null_write: clr.l ($10).w; rts
/// 46 zero_div:   moveq #0,d1; moveq #5,d0; divu.w d1,d0; rts
/// 4e exec_buf(buf, flush): write "moveq #7,d0; rts" to buf; if flush: moveq #1,d0;
///                _HWPriv ($A098, FlushInstructionCache); jsr (buf); rts
/// 6a delay(t):   movea.l 4(sp),a0; _Delay ($A03B); rts
/// 72 via_stub(size): moveq #$1E,d0; _GetOSTrapAddress ($A346); move.l 4(sp),d0; jsr (a0); rts
/// 7e unimpl_addr: d0 = (GetToolTrapAddress($1A0) == GetToolTrapAddress($9F)) via seq
/// 96 custom(x):  clr.l -(sp); move.l 8(sp),-(sp); trap $A8F0; move.l (sp)+,d0; rts
/// a2 loop(n):    sum n..1 in d0 (move.l 4(sp),d1; moveq #0,d0; add/subq/bne; rts)
/// ```
pub fn misc_image() -> ferrite_shared::flat::FlatImage {
    flat_image(
        &[
            0x4e56, 0x0000, 0x6104, 0x4e5e, 0x4e75, 0x4e56, 0x0000, 0xa9a0, 0x4e5e, 0x4e75, 0x487a,
            0x0008, 0xabff, 0x588f, 0x4e75, 0x0b68, 0x656c, 0x6c6f, 0x2077, 0x6f72, 0x6c64, 0x4afc,
            0x4e75, 0x206f, 0x0004, 0x3010, 0x4e75, 0x60fe, 0x206f, 0x0004, 0x2010, 0x4e75, 0x42b8,
            0x0010, 0x4e75, 0x7200, 0x7005, 0x80c1, 0x4e75, 0x206f, 0x0004, 0x30bc, 0x7007, 0x317c,
            0x4e75, 0x0002, 0x4aaf, 0x0008, 0x6704, 0x7001, 0xa098, 0x4e90, 0x4e75, 0x206f, 0x0004,
            0xa03b, 0x4e75, 0x701e, 0xa346, 0x202f, 0x0004, 0x4e90, 0x4e75, 0x203c, 0x0000, 0x01a0,
            0xa746, 0x2208, 0x203c, 0x0000, 0x009f, 0xa746, 0xb1c1, 0x57c0, 0x4e75, 0x42a7, 0x2f2f,
            0x0008, 0xa8f0, 0x201f, 0x4e75, 0x222f, 0x0004, 0x7000, 0xd081, 0x5381, 0x66fa, 0x4e75,
        ],
        &[],
        &[
            ("outer", 0x00),
            ("inner", 0x0a),
            ("debug_str", 0x14),
            ("illegal", 0x2a),
            ("odd_read", 0x2e),
            ("hang", 0x36),
            ("far_read", 0x38),
            ("null_write", 0x40),
            ("zero_div", 0x46),
            ("exec_buf", 0x4e),
            ("delay", 0x6a),
            ("via_stub", 0x72),
            ("unimpl_addr", 0x7e),
            ("custom", 0x96),
            ("loop", 0xa2),
        ],
        0,
    )
}

fn machine(cpu: CpuModel) -> (Machine, ferrite_emu::LoadedImage) {
    let mut m = Machine::new(cpu);
    let img = m.load(&misc_image()).unwrap();
    (m, img)
}

#[test]
fn unimplemented_trap_names_trap_pc_and_link_chain() {
    for cpu in CpuModel::ALL {
        let (mut m, img) = machine(cpu);
        let e = m.call("outer", &[]).unwrap_err();
        assert_eq!(
            e.fault,
            Fault::UnimplementedTrap {
                word: 0xA9A0,
                name: Some("GetResource")
            }
        );
        assert_eq!(e.pc, img.symbol("inner").unwrap() + 4);
        assert_eq!(e.pc_symbol.as_deref(), Some("inner+0x4"));
        assert_eq!(e.chain_source, ChainSource::LinkChain);
        assert_eq!(e.return_chain.len(), 1, "{e}");
        assert_eq!(e.return_chain[0].address, img.symbol("outer").unwrap() + 6);
        let text = e.to_string();
        assert!(
            text.contains("unimplemented trap $A9A0 _GetResource"),
            "{text}"
        );
        assert!(text.contains("outer+0x6"), "{text}");
    }
}

#[test]
fn return_chain_by_stack_scan_without_frame_pointer() {
    // caller: bsr.s callee; rts        callee: _GetResource; rts
    let img = flat_image(
        &[0x6102, 0x4e75, 0xa9a0, 0x4e75],
        &[],
        &[("caller", 0), ("callee", 4)],
        0,
    );
    let mut m = Machine::new(CpuModel::M68000);
    let l = m.load(&img).unwrap();
    let e = m.call("caller", &[]).unwrap_err();
    assert_eq!(e.chain_source, ChainSource::StackScan);
    assert_eq!(
        e.return_chain.iter().map(|r| r.address).collect::<Vec<_>>(),
        vec![l.base + 2]
    );
}

#[test]
fn debug_str_surfaces_its_message() {
    let (mut m, img) = machine(CpuModel::M68020);
    let e = m.call("debug_str", &[]).unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Debugger { word: 0xABFF, message } if message.contains("hello world")),
        "{e}"
    );
    assert_eq!(e.pc, img.symbol("debug_str").unwrap() + 4);
    assert!(e.to_string().contains("_DebugStr"), "{e}");
}

#[test]
fn illegal_instruction_stops_the_run() {
    for cpu in CpuModel::ALL {
        let (mut m, img) = machine(cpu);
        let e = m.call("illegal", &[]).unwrap_err();
        assert!(
            matches!(
                e.fault,
                Fault::Exception {
                    vector: 4,
                    opcode: 0x4AFC,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(e.pc, img.symbol("illegal").unwrap());
        assert!(e.to_string().contains("illegal instruction"), "{e}");
    }
}

#[test]
fn odd_word_access_is_an_address_error_on_the_68000_only() {
    let (mut m, img) = machine(CpuModel::M68000);
    let buf = m.new_ptr(ZoneId::Application, 8, true).unwrap();
    m.write_bytes(buf, &[1, 2, 3, 4]);
    let e = m.call("odd_read", &[buf + 1]).unwrap_err();
    assert!(
        matches!(
            e.fault,
            Fault::Exception {
                vector: 3,
                opcode: 0x3010,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.pc, img.symbol("odd_read").unwrap() + 4);
    assert!(e.to_string().contains("address error"), "{e}");
    for cpu in [CpuModel::M68020, CpuModel::M68030, CpuModel::M68040] {
        let (mut m, _) = machine(cpu);
        let buf = m.new_ptr(ZoneId::Application, 8, true).unwrap();
        m.write_bytes(buf, &[1, 2, 3, 4]);
        assert_eq!(
            m.call("odd_read", &[buf + 1]).unwrap().d0 & 0xFFFF,
            0x0203,
            "{cpu}"
        );
    }
}

#[test]
fn access_beyond_ram_is_a_bus_error() {
    for cpu in CpuModel::ALL {
        let (mut m, img) = machine(cpu);
        let e = m.call("far_read", &[0x0080_0000]).unwrap_err();
        match e.fault {
            Fault::BusError {
                address,
                access,
                cause,
                ..
            } => {
                assert_eq!(
                    (address, access, cause),
                    (0x0080_0000, Access::Read, BusFaultCause::BeyondRam)
                )
            }
            ref f => panic!("{cpu}: {f}"),
        }
        assert_eq!(e.pc, img.symbol("far_read").unwrap() + 4);
    }
}

#[test]
fn nil_page_write_is_a_bus_error() {
    let (mut m, _) = machine(CpuModel::M68040);
    let e = m.call("null_write", &[]).unwrap_err();
    assert!(
        matches!(
            e.fault,
            Fault::BusError {
                address: 0x10,
                cause: BusFaultCause::NullPageWrite,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("NULL pointer"), "{e}");
    let mut cfg = MachineConfig::new(CpuModel::M68040);
    cfg.protect_null_page = false;
    let mut m = Machine::with_config(cfg).unwrap();
    m.load(&misc_image()).unwrap();
    m.call("null_write", &[]).unwrap();
}

#[test]
fn zero_divide_stops_the_run() {
    for cpu in CpuModel::ALL {
        let (mut m, _) = machine(cpu);
        let e = m.call("zero_div", &[]).unwrap_err();
        assert!(
            matches!(e.fault, Fault::Exception { vector: 5, .. }),
            "{cpu}: {e}"
        );
    }
}

#[test]
fn f_line_and_trap_instructions_stop_the_run() {
    // $FFFF is an F-line word on every model; TRAP #3 has no handler.
    let img = flat_image(
        &[0xFFFF, 0x4E75, 0x4E43, 0x4E75],
        &[],
        &[("fline", 0), ("trap3", 4)],
        0,
    );
    for cpu in CpuModel::ALL {
        let mut m = Machine::new(cpu);
        m.load(&img).unwrap();
        let e = m.call("fline", &[]).unwrap_err();
        assert!(
            matches!(
                e.fault,
                Fault::Exception {
                    vector: 11,
                    opcode: 0xFFFF,
                    ..
                }
            ),
            "{cpu}: {e}"
        );
        let e = m.call("trap3", &[]).unwrap_err();
        assert!(
            matches!(e.fault, Fault::Exception { vector: 35, .. }),
            "{cpu}: {e}"
        );
    }
}

#[test]
fn budget_exhaustion_reports_the_loop() {
    let mut cfg = MachineConfig::new(CpuModel::M68020);
    cfg.instruction_budget = 10_000;
    let mut m = Machine::with_config(cfg).unwrap();
    let img = m.load(&misc_image()).unwrap();
    let e = m.call("hang", &[]).unwrap_err();
    assert_eq!(e.fault, Fault::BudgetExhausted { budget: 10_000 });
    assert_eq!(e.pc, img.symbol("hang").unwrap());
    assert_eq!(e.instructions, 10_000);
    // The budget is per top-level call: a short call still works afterwards.
    assert_eq!(m.call("loop", &[10]).unwrap().d0, 55);
}

#[test]
fn executing_code_written_without_a_cache_flush_fails() {
    for cpu in CpuModel::ALL {
        let (mut m, _) = machine(cpu);
        let buf = m.new_ptr(ZoneId::System, 16, true).unwrap();
        let e = m.call("exec_buf", &[buf, 0]).unwrap_err();
        assert!(
            matches!(e.fault, Fault::StaleCode { address, opcode: 0x7007 } if address == buf),
            "{cpu}: {e}"
        );
        // With _HWPriv FlushInstructionCache first, it runs.
        assert_eq!(m.call("exec_buf", &[buf, 1]).unwrap().d0, 7, "{cpu}");
    }
    // The rule can be switched off.
    let mut cfg = MachineConfig::new(CpuModel::M68000);
    cfg.enforce_icache_flush = false;
    let mut m = Machine::with_config(cfg).unwrap();
    m.load(&misc_image()).unwrap();
    let buf = m.new_ptr(ZoneId::System, 16, true).unwrap();
    assert_eq!(m.call("exec_buf", &[buf, 0]).unwrap().d0, 7);
}

#[test]
fn host_written_code_needs_a_flush_too() {
    let mut m = Machine::new(CpuModel::M68040);
    let (lo, _) = m.layout().free_area;
    m.write_bytes(lo, &[0x70, 0x05, 0x4E, 0x75]); // moveq #5,d0; rts
    assert!(matches!(
        m.call_address(lo, &[]).unwrap_err().fault,
        Fault::StaleCode { .. }
    ));
    m.flush_icache();
    assert_eq!(m.call_address(lo, &[]).unwrap().d0, 5);
    // Patching an extension word without a flush is caught as well.
    m.write_code_words(lo, &[0x203C, 0x0000, 0x0001, 0x4E75]); // move.l #1,d0; rts
    assert_eq!(m.call_address(lo, &[]).unwrap().d0, 1);
    m.write_u16(lo + 4, 2);
    let e = m.call_address(lo, &[]).unwrap_err();
    assert!(
        matches!(e.fault, Fault::StaleCode { address, .. } if address == lo + 4),
        "{e}"
    );
}
