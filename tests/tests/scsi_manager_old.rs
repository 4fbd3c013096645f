//! The original SCSI Manager (`_SCSIDispatch` $A815) on the virtual bus
//! (`ferrite_emu::scsi_manager::original`) and its TIB interpreter. Selectors, result codes and
//! TIB opcodes are literal values from docs/mac-facts.md (§7).

#[path = "support/ram_target.rs"]
mod ram_target;

use std::sync::OnceLock;

use ferrite_emu::scsi_manager::{self, ScsiCall, ScsiManagerConfig};
use ferrite_emu::{CpuModel, Machine, ZoneId};
use ferrite_shared::flat::FlatImage;
use ram_target::{BLOCK, RamTarget};
use retro68_build::asm::assemble_flat_supervisor;

const CPUS: [CpuModel; 2] = [CpuModel::M68000, CpuModel::M68040];

const SC_COMM_ERR: i16 = 2;
const SC_BAD_PARMS_ERR: i16 = 4;
const SC_PHASE_ERR: i16 = 5;
const SC_COMPARE_ERR: i16 = 6;
const SC_MGR_BUSY_ERR: i16 = 7;
const SC_SEQUENCE_ERR: i16 = 8;
const SC_BUS_TO_ERR: i16 = 9;
const SC_COMPL_PHASE_ERR: i16 = 10;

const SC_INC: u16 = 1;
const SC_NO_INC: u16 = 2;
const SC_ADD: u16 = 3;
const SC_MOVE: u16 = 4;
const SC_LOOP: u16 = 5;
const SC_NOP: u16 = 6;
const SC_STOP: u16 = 7;
const SC_COMP: u16 = 8;

const SOURCE: &str = r#"
        .text
| C-ABI wrappers, one per _SCSIDispatch selector (Pascal: result word, params, selector).
| _SCSIDispatch is a Toolbox trap: it may change D0-D2/A0-A1, and D2 is callee-saved in the
| C ABI, so each call keeps D2 in `d2save` around the trap.
        .globl scsi_reset
scsi_reset:
        clr.w   -(%sp)
        clr.w   -(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,%d0
        ext.l   %d0
        rts
        .globl scsi_get
scsi_get:
        clr.w   -(%sp)
        move.w  #1,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,%d0
        ext.l   %d0
        rts
| scsi_select(sel, id): sel = 2 (SCSISelect) or 11 (SCSISelAtn); also 13 (SCSIMsgOut, msg).
        .globl scsi_word_call
scsi_word_call:
        clr.w   -(%sp)
        move.w  12(%sp),-(%sp)
        move.w  10(%sp),-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,%d0
        ext.l   %d0
        rts
| scsi_cmd(buf, count)
        .globl scsi_cmd
scsi_cmd:
        clr.w   -(%sp)
        move.l  6(%sp),-(%sp)
        move.w  16(%sp),-(%sp)
        move.w  #3,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,%d0
        ext.l   %d0
        rts
| scsi_ptr_call(sel, ptr): SCSIRead 5 / SCSIWrite 6 / SCSIRBlind 8 / SCSIWBlind 9 (tib),
| SCSIMsgIn 12 (&msg).
        .globl scsi_ptr_call
scsi_ptr_call:
        clr.w   -(%sp)
        move.l  10(%sp),-(%sp)
        move.w  12(%sp),-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,%d0
        ext.l   %d0
        rts
| scsi_complete(&stat, &msg, wait)
        .globl scsi_complete
scsi_complete:
        clr.w   -(%sp)
        move.l  6(%sp),-(%sp)
        move.l  14(%sp),-(%sp)
        move.l  22(%sp),-(%sp)
        move.w  #4,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,%d0
        ext.l   %d0
        rts
        .globl scsi_stat
scsi_stat:
        clr.w   -(%sp)
        move.w  #10,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        moveq   #0,%d0
        move.w  (%sp)+,%d0
        rts

| read10(id, lba, n, buf, blind): the standard transaction (mac-facts §7.3) for READ(10) with
| the TIB [scInc buf,512] [scLoop -10,n] [scStop] (in `tib`). The five results go to
| `results` (get, select, cmd, read, complete), status and message to `stat`/`msg`.
| D0 = SCSIComplete's result.
        .globl read10
read10: movem.l %d2-%d3/%a2,-(%sp)
        lea     cdb,%a2
        move.b  #0x28,(%a2)
        clr.b   1(%a2)
        move.l  20(%sp),2(%a2)
        clr.b   6(%a2)
        move.l  24(%sp),%d0
        move.b  %d0,8(%a2)
        lsr.w   #8,%d0
        move.b  %d0,7(%a2)
        clr.b   9(%a2)
        lea     tib,%a0
        move.w  #1,(%a0)
        move.l  28(%sp),2(%a0)
        move.l  #512,6(%a0)
        move.w  #5,10(%a0)
        move.l  #-10,12(%a0)
        move.l  24(%sp),16(%a0)
        move.w  #7,20(%a0)
        lea     results,%a2
        clr.w   -(%sp)
        move.w  #1,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,(%a2)
        clr.w   -(%sp)
        move.w  20(%sp),-(%sp)
        move.w  #2,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,2(%a2)
        clr.w   -(%sp)
        pea     cdb
        move.w  #10,-(%sp)
        move.w  #3,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,4(%a2)
        moveq   #5,%d3
        tst.l   32(%sp)
        beq.s   1f
        moveq   #8,%d3
1:      clr.w   -(%sp)
        pea     tib
        move.w  %d3,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,6(%a2)
        clr.w   -(%sp)
        pea     stat
        pea     msg
        pea     300
        move.w  #4,-(%sp)
        move.l  %d2,d2save
        .short  0xA815
        move.l  d2save,%d2
        move.w  (%sp)+,%d0
        move.w  %d0,8(%a2)
        ext.l   %d0
        movem.l (%sp)+,%d2-%d3/%a2
        rts

| read10_masked(id, lba, n, buf, blind): read10 with the interrupt mask at 1 (Ticks stand
| still), as code at VBL-task level runs it.
        .globl read10_masked
read10_masked:
        move.w  %sr,-(%sp)
        ori.w   #0x0100,%sr
        andi.w  #0xF9FF,%sr
        move.l  22(%sp),-(%sp)
        move.l  22(%sp),-(%sp)
        move.l  22(%sp),-(%sp)
        move.l  22(%sp),-(%sp)
        move.l  22(%sp),-(%sp)
        bsr     read10
        lea     20(%sp),%sp
        move.w  (%sp)+,%sr
        rts

        .bss
        .globl results, stat, msg, tib, cdb
results: .space 10
stat:   .short 0
msg:    .short 0
tib:    .space 30
cdb:    .space 10
d2save: .space 4
"#;

fn image() -> &'static FlatImage {
    static IMG: OnceLock<FlatImage> = OnceLock::new();
    IMG.get_or_init(|| assemble_flat_supervisor("scsi_manager_old", SOURCE).expect("assembles"))
}

fn machine(cpu: CpuModel, v43: bool) -> Machine {
    let mut m = Machine::new(cpu);
    m.load(image()).unwrap();
    scsi_manager::install(
        &mut m,
        // The managers' own tests use one defined order: bus-time 4.3 completions, no
        // seeded bus holder at interrupt level (those have their own tests).
        ScsiManagerConfig {
            v43_present: v43,
            timing: scsi_manager::CompletionTiming::BusTime,
            busy_at_interrupt: scsi_manager::original::BusyAtInterrupt::Never,
            underrun_is_error: true,
            ..Default::default()
        },
    );
    scsi_manager::bus(&mut m).attach(0, Box::new(RamTarget::new(64)));
    m
}

fn disk(m: &mut Machine) -> &mut RamTarget {
    scsi_manager::bus(m).target_as_mut::<RamTarget>(0).unwrap()
}

fn sym(m: &Machine, name: &str) -> u32 {
    m.export_address(name).unwrap()
}

fn alloc(m: &mut Machine, n: u32) -> u32 {
    m.new_ptr(ZoneId::System, n, true).unwrap()
}

fn call(m: &mut Machine, name: &str, args: &[u32]) -> i16 {
    m.call(name, args).unwrap().d0 as i16
}

fn get(m: &mut Machine) -> i16 {
    call(m, "scsi_get", &[])
}
fn select(m: &mut Machine, id: u32) -> i16 {
    call(m, "scsi_word_call", &[2, id])
}
fn cmd(m: &mut Machine, cdb: &[u8]) -> i16 {
    let p = alloc(m, cdb.len() as u32);
    m.write_bytes(p, cdb);
    call(m, "scsi_cmd", &[p, cdb.len() as u32])
}
fn xfer(m: &mut Machine, sel: u32, tib: u32) -> i16 {
    call(m, "scsi_ptr_call", &[sel, tib])
}
/// SCSIComplete → (result, stat, msg); stat/msg start at $7777.
fn complete(m: &mut Machine) -> (i16, u16, u16) {
    let p = alloc(m, 4);
    m.write_u32(p, 0x7777_7777);
    let r = call(m, "scsi_complete", &[p, p + 2, 60]);
    (r, m.read_u16(p), m.read_u16(p + 2))
}
fn stat(m: &mut Machine) -> u16 {
    m.call("scsi_stat", &[]).unwrap().d0 as u16
}

fn write_tib(m: &mut Machine, tib: u32, ins: &[(u16, u32, u32)]) {
    for (i, (op, p1, p2)) in ins.iter().enumerate() {
        let a = tib + 10 * i as u32;
        m.write_u16(a, *op);
        m.write_u32(a + 2, *p1);
        m.write_u32(a + 6, *p2);
    }
}

fn read10_cdb(lba: u32, n: u16) -> Vec<u8> {
    let l = lba.to_be_bytes();
    let c = n.to_be_bytes();
    vec![0x28, 0, l[0], l[1], l[2], l[3], 0, c[0], c[1], 0]
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn standard_read10_transaction_polled_and_blind() {
    for cpu in CPUS {
        for v43 in [false, true] {
            for blind in [0u32, 1] {
                let mut m = machine(cpu, v43);
                let buf = alloc(&mut m, 4 * BLOCK as u32);
                let c0 = m.emulated_cycles();
                let r = m.call("read10", &[0, 5, 4, buf, blind]).unwrap();
                let ctx = format!("{cpu} v43={v43} blind={blind}");
                assert_eq!(r.d0, 0, "{ctx}");
                let results: Vec<u16> = (0..5)
                    .map(|i| m.read_u16(sym(&m, "results") + 2 * i))
                    .collect();
                assert_eq!(results, vec![0; 5], "{ctx}");
                assert_eq!(
                    (m.read_u16(sym(&m, "stat")), m.read_u16(sym(&m, "msg"))),
                    (0, 0)
                );
                let want = disk(&mut m).data[5 * BLOCK..9 * BLOCK].to_vec();
                assert_eq!(m.read_bytes(buf, 4 * BLOCK as u32), want, "{ctx}");
                let tib = sym(&m, "tib");
                assert_eq!(
                    m.read_u32(tib + 2),
                    buf + 4 * BLOCK as u32,
                    "scInc pointer written back"
                );
                assert_eq!(m.read_u32(tib + 16), 0, "scLoop count written back");
                let log = scsi_manager::bus(&mut m).log().to_vec();
                assert_eq!(log.len(), 1);
                assert_eq!(log[0].cdb, read10_cdb(5, 4));
                let bus_cycles = log[0].time_ns as u128 * m.clock_hz() as u128 / 1_000_000_000;
                assert!(
                    (m.emulated_cycles() - c0) as u128 >= bus_cycles,
                    "bus time passed"
                );
                let names: Vec<&str> = scsi_manager::calls(&mut m)
                    .iter()
                    .map(|c| match c {
                        ScsiCall::Old { name, .. } => *name,
                        _ => "?",
                    })
                    .collect();
                let xfer = if blind == 1 { "SCSIRBlind" } else { "SCSIRead" };
                assert_eq!(
                    names,
                    vec!["SCSIGet", "SCSISelect", "SCSICmd", xfer, "SCSIComplete"]
                );
            }
        }
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn write10_polled_and_blind() {
    for cpu in CPUS {
        for (sel, lba) in [(6u32, 10u32), (9, 20)] {
            let mut m = machine(cpu, false);
            let buf = alloc(&mut m, 2 * BLOCK as u32);
            let pattern: Vec<u8> = (0..2 * BLOCK)
                .map(|i| (i * 3 + lba as usize) as u8)
                .collect();
            m.write_bytes(buf, &pattern);
            let tib = alloc(&mut m, 30);
            write_tib(
                &mut m,
                tib,
                &[
                    (SC_INC, buf, 512),
                    (SC_LOOP, (-10i32) as u32, 2),
                    (SC_STOP, 0, 0),
                ],
            );
            assert_eq!(get(&mut m), 0);
            assert_eq!(select(&mut m, 0), 0);
            let mut c = read10_cdb(lba, 2);
            c[0] = 0x2A;
            assert_eq!(cmd(&mut m, &c), 0);
            assert_eq!(xfer(&mut m, sel, tib), 0, "{cpu} selector {sel}");
            assert_eq!(complete(&mut m), (0, 0, 0));
            let l = lba as usize;
            assert_eq!(&disk(&mut m).data[l * BLOCK..(l + 2) * BLOCK], &pattern[..]);
        }
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn tib_opcodes_add_move_comp_noinc_nop() {
    for cpu in CPUS {
        let mut m = machine(cpu, false);
        let disk_data = disk(&mut m).data.clone();
        // READ(10) of 2 blocks with: [scNop] [scNoInc scratch,256] [scAdd ptrcell,1000]
        // [scMove ptrcell → cell2] [scComp expect,256] [scInc buf,512] [scStop]
        let scratch = alloc(&mut m, 256);
        let expect = alloc(&mut m, 256);
        m.write_bytes(expect, &disk_data[256..512]);
        let cells = alloc(&mut m, 8);
        m.write_u32(cells, 5);
        let buf = alloc(&mut m, 512);
        let tib = alloc(&mut m, 70);
        write_tib(
            &mut m,
            tib,
            &[
                (SC_NOP, 0xDEAD, 0xBEEF),
                (SC_NO_INC, scratch, 256),
                (SC_ADD, cells, 1000),
                (SC_MOVE, cells, cells + 4),
                (SC_COMP, expect, 256),
                (SC_INC, buf, 512),
                (SC_STOP, 0, 0),
            ],
        );
        assert_eq!(get(&mut m), 0);
        assert_eq!(select(&mut m, 0), 0);
        assert_eq!(cmd(&mut m, &read10_cdb(0, 2)), 0);
        assert_eq!(xfer(&mut m, 5, tib), 0, "{cpu}");
        assert_eq!(complete(&mut m), (0, 0, 0));
        assert_eq!(m.read_bytes(scratch, 256), disk_data[..256].to_vec());
        assert_eq!(m.read_u32(tib + 12), scratch, "scNoInc leaves its pointer");
        assert_eq!(
            (m.read_u32(cells), m.read_u32(cells + 4)),
            (1005, 1005),
            "scAdd then scMove"
        );
        assert_eq!(
            m.read_u32(tib + 42),
            expect + 256,
            "scComp advances its pointer"
        );
        assert_eq!(
            m.read_bytes(expect, 256),
            disk_data[256..512].to_vec(),
            "scComp only reads"
        );
        assert_eq!(m.read_bytes(buf, 512), disk_data[512..1024].to_vec());

        // scComp mismatch → scCompareErr; then SCSIComplete skips the rest.
        let tib = alloc(&mut m, 20);
        m.write_u8(expect + 10, 0);
        write_tib(&mut m, tib, &[(SC_COMP, expect, 256), (SC_STOP, 0, 0)]);
        assert_eq!(get(&mut m), 0);
        assert_eq!(select(&mut m, 0), 0);
        assert_eq!(cmd(&mut m, &read10_cdb(0, 1)), 0);
        // expect holds bytes 256..512 but block 0 starts with 0..256: mismatch.
        assert_eq!(xfer(&mut m, 5, tib), SC_COMPARE_ERR);
        assert_eq!(complete(&mut m), (SC_COMPL_PHASE_ERR, 0, 0));

        // Unknown opcode → scBadParmsErr.
        let tib = alloc(&mut m, 20);
        write_tib(&mut m, tib, &[(0x42, 0, 0)]);
        assert_eq!(get(&mut m), 0);
        assert_eq!(select(&mut m, 0), 0);
        assert_eq!(cmd(&mut m, &read10_cdb(0, 1)), 0);
        assert_eq!(xfer(&mut m, 5, tib), SC_BAD_PARMS_ERR);
        assert_eq!(complete(&mut m).0, SC_COMPL_PHASE_ERR);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn short_data_phase_polled_stops_blind_times_out() {
    for cpu in CPUS {
        for (sel, want) in [(5u32, SC_PHASE_ERR), (8, SC_BUS_TO_ERR)] {
            let mut m = machine(cpu, false);
            disk(&mut m).short_next = 100;
            let buf = alloc(&mut m, 1024);
            let tib = alloc(&mut m, 30);
            write_tib(
                &mut m,
                tib,
                &[
                    (SC_INC, buf, 512),
                    (SC_LOOP, (-10i32) as u32, 2),
                    (SC_STOP, 0, 0),
                ],
            );
            assert_eq!(get(&mut m), 0);
            assert_eq!(select(&mut m, 0), 0);
            assert_eq!(cmd(&mut m, &read10_cdb(0, 2)), 0);
            assert_eq!(xfer(&mut m, sel, tib), want, "{cpu} selector {sel}");
            assert_eq!(
                m.read_u32(tib + 2),
                buf + 1024 - 100,
                "pointer advanced by what arrived"
            );
            assert_eq!(
                complete(&mut m),
                (0, 0, 0),
                "already in STATUS: nothing skipped"
            );
        }
        // A blind instruction that finds the phase already over is a phase error (the first
        // byte is polled).
        let mut m = machine(cpu, false);
        let buf = alloc(&mut m, 1024);
        let tib = alloc(&mut m, 30);
        write_tib(
            &mut m,
            tib,
            &[(SC_INC, buf, 512), (SC_INC, buf, 512), (SC_STOP, 0, 0)],
        );
        assert_eq!(get(&mut m), 0);
        assert_eq!(select(&mut m, 0), 0);
        assert_eq!(cmd(&mut m, &read10_cdb(0, 1)), 0);
        assert_eq!(xfer(&mut m, 8, tib), SC_PHASE_ERR, "{cpu}");
        assert_eq!(complete(&mut m), (0, 0, 0));
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn wrong_phase_and_sequence_errors() {
    for cpu in CPUS {
        let mut m = machine(cpu, false);
        let tib = alloc(&mut m, 10);
        write_tib(&mut m, tib, &[(SC_STOP, 0, 0)]);
        assert_eq!(stat(&mut m), 0, "bus free");
        assert_eq!(
            select(&mut m, 0),
            SC_SEQUENCE_ERR,
            "{cpu}: select before SCSIGet"
        );
        assert_eq!(cmd(&mut m, &[0; 6]), SC_PHASE_ERR);
        assert_eq!(
            complete(&mut m),
            (SC_SEQUENCE_ERR, 0x7777, 0x7777),
            "nothing to complete"
        );
        assert_eq!(get(&mut m), 0);
        assert_eq!(stat(&mut m), 0x42, "BSY+SEL after arbitration");
        assert_eq!(
            get(&mut m),
            SC_MGR_BUSY_ERR,
            "SCSIGet when the bus is taken"
        );
        assert_eq!(xfer(&mut m, 5, tib), SC_PHASE_ERR);
        assert_eq!(select(&mut m, 0), 0);
        assert_eq!(stat(&mut m), 0x68, "BSY+REQ+C/D: COMMAND");
        assert_eq!(xfer(&mut m, 5, tib), SC_PHASE_ERR, "read in COMMAND phase");
        let msg_cell = alloc(&mut m, 2);
        assert_eq!(
            call(&mut m, "scsi_ptr_call", &[12, msg_cell]),
            SC_PHASE_ERR,
            "MsgIn"
        );
        assert_eq!(
            call(&mut m, "scsi_word_call", &[13, 0x80]),
            SC_PHASE_ERR,
            "MsgOut without SelAtn"
        );
        assert_eq!(cmd(&mut m, &[0; 20][..17]), SC_BAD_PARMS_ERR, "17-byte CDB");
        assert_eq!(cmd(&mut m, &read10_cdb(0, 1)), 0);
        assert_eq!(stat(&mut m), 0x64, "BSY+REQ+I/O: DATA IN");
        assert_eq!(xfer(&mut m, 6, tib), SC_PHASE_ERR, "write in DATA IN phase");
        assert_eq!(
            xfer(&mut m, 9, tib),
            SC_PHASE_ERR,
            "blind write in DATA IN phase"
        );
        // SCSIComplete skips the 512 bytes.
        assert_eq!(complete(&mut m), (SC_COMPL_PHASE_ERR, 0, 0));
        assert_eq!(stat(&mut m), 0);
        let log = scsi_manager::bus(&mut m).log().to_vec();
        assert_eq!((log[0].data_in_offered, log[0].data_in_moved), (512, 512));

        // SCSISelAtn + SCSIMsgOut, TEST UNIT READY, status CHECK CONDITION then MsgIn path.
        assert_eq!(get(&mut m), 0);
        assert_eq!(call(&mut m, "scsi_word_call", &[11, 0]), 0);
        assert_eq!(call(&mut m, "scsi_word_call", &[13, 0x80]), 0);
        disk(&mut m).fail_next_with_sense = Some(ram_target::sense(6, 0x29, 0));
        assert_eq!(cmd(&mut m, &[0; 6]), 0);
        assert_eq!(stat(&mut m), 0x6C, "STATUS");
        assert_eq!(complete(&mut m), (0, 2, 0), "CHECK CONDITION");

        // SCSIComplete before any command was sent: the wait passes, the bus is reset.
        assert_eq!(get(&mut m), 0);
        assert_eq!(select(&mut m, 0), 0);
        let t0 = m.ticks();
        assert_eq!(complete(&mut m), (SC_COMM_ERR, 0x7777, 0x7777));
        assert!(m.ticks() >= t0 + 60, "the 60-tick wait passed");
        assert_eq!(stat(&mut m), 0);
        assert_eq!(scsi_manager::bus(&mut m).resets(), 1);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn selection_timeout_reset_and_busy_with_4_3_in_flight() {
    for cpu in CPUS {
        let mut m = machine(cpu, true);
        assert_eq!(get(&mut m), 0);
        let c0 = m.emulated_cycles();
        assert_eq!(select(&mut m, 4), SC_COMM_ERR, "{cpu}: nobody at ID 4");
        assert!(
            m.emulated_cycles() - c0 >= m.clock_hz() as u64 / 4,
            "250 ms passed"
        );
        assert_eq!(stat(&mut m), 0, "bus free after the timeout");
        assert_eq!(complete(&mut m).0, SC_SEQUENCE_ERR);
        assert_eq!(get(&mut m), 0);
        assert_eq!(select(&mut m, 7), SC_BAD_PARMS_ERR, "the Mac's own ID");
        // SCSIReset frees the bus and resets the targets.
        assert_eq!(get(&mut m), 0);
        assert_eq!(select(&mut m, 0), 0);
        assert_eq!(call(&mut m, "scsi_reset", &[]), 0);
        assert_eq!(stat(&mut m), 0);
        assert_eq!(disk(&mut m).resets, 1);
        assert_eq!(scsi_manager::bus(&mut m).resets(), 1);

        // A 4.3 request in flight makes SCSIGet busy; after it completes the bus is free.
        let pb = alloc(&mut m, 176);
        m.write_u16(pb + 6, 176);
        m.write_u8(pb + 8, 1);
        m.write_u32(pb + 20, 0xC000_0000);
        m.write_u8(pb + 53, 6);
        // An asynchronous TEST UNIT READY with a completion routine that pops its argument.
        let routine = alloc(&mut m, 8);
        // move.l (sp)+,a0 ; addq.l #4,sp ; jmp (a0)
        m.write_code_words(routine, &[0x205F, 0x588F, 0x4ED0]);
        m.write_u32(pb + 16, routine);
        let exec = alloc(&mut m, 8);
        // moveq #1,d0 ; _SCSIAtomic ; rts  (A0 = PB set by the caller below)
        m.write_code_words(exec, &[0x7001, 0xA089, 0x4E75]);
        let (_, _) = m
            .call_with_registers(exec, &[(8, pb)], ferrite_emu::Preserved::NONE)
            .unwrap();
        assert_eq!(m.read_u16(pb + 10), 1, "in progress");
        assert_eq!(get(&mut m), SC_MGR_BUSY_ERR, "4.3 owns the bus");
        m.idle_until(|m| m.read_u16(pb + 10) != 1, 60, "4.3 completion")
            .unwrap();
        assert_eq!(m.read_u16(pb + 10), 0);
        assert_eq!(get(&mut m), 0, "free again");
        assert_eq!(call(&mut m, "scsi_reset", &[]), 0);
    }
}

/// `SCSIComplete`'s wait (300 ticks in `read10`) runs out on a live target that works longer
/// before its status — a long VERIFY, a spin-up, a slow card — as it does on a hung one: the
/// bus is reset and the result is `scCommErr`. A target inside the wait completes. With level
/// 1 masked `Ticks` stand still, so the ROM waits a slow target out and the command ends
/// normally (IM Devices ch. 3: the wait is in ticks).
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn scsi_complete_times_out_a_live_target_slower_than_its_wait() {
    for cpu in CPUS {
        for v43 in [false, true] {
            let ctx = format!("{cpu} v43={v43}");
            let mut m = machine(cpu, v43);
            let buf = alloc(&mut m, 2 * BLOCK as u32);
            // 10 s of work: past the 300-tick (5 s) wait.
            disk(&mut m).extra_busy_ns = 10_000_000_000;
            let t0 = m.ticks();
            let r = m.call("read10", &[0, 5, 2, buf, 0]).unwrap();
            assert_eq!(r.d0 as i16, 2, "{ctx}: scCommErr");
            assert!(m.ticks() >= t0 + 300, "{ctx}: the 300-tick wait passed");
            assert_eq!(disk(&mut m).resets, 1, "{ctx}: the bus was reset");
            assert_eq!(scsi_manager::state(&mut m).slow_target_timeouts, 1, "{ctx}");
            // 2 s: inside the wait.
            disk(&mut m).extra_busy_ns = 2_000_000_000;
            let r = m.call("read10", &[0, 5, 2, buf, 0]).unwrap();
            assert_eq!(r.d0, 0, "{ctx}: a target inside the wait");
            let want = disk(&mut m).data[5 * BLOCK..7 * BLOCK].to_vec();
            assert_eq!(m.read_bytes(buf, 2 * BLOCK as u32), want, "{ctx}");
            // 10 s again, level 1 masked: Ticks stand still, the ROM waits it out.
            disk(&mut m).extra_busy_ns = 10_000_000_000;
            let r = m.call("read10_masked", &[0, 7, 2, buf, 0]).unwrap();
            assert_eq!(r.d0, 0, "{ctx}: masked, the slow target completes");
            let want = disk(&mut m).data[7 * BLOCK..9 * BLOCK].to_vec();
            assert_eq!(m.read_bytes(buf, 2 * BLOCK as u32), want, "{ctx}");
            assert_eq!(disk(&mut m).resets, 1, "{ctx}: no second reset");
        }
    }
}

/// A target that pauses mid-block (seeded) corrupts a blind transfer on a Mac without the
/// hardware handshake — the 68000 (Plus) model: a stale byte at the pause, the rest a byte
/// late, and `SCSIComplete` skipping the byte left over (`scComplPhaseErr`). Polled transfers
/// survive the same pauses, and so do blind ones where the hardware handshakes (68040).
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_target_pausing_mid_block_corrupts_blind_transfers_without_a_handshake() {
    for cpu in CPUS {
        for blind in [0u32, 1] {
            let ctx = format!("{cpu} blind={blind}");
            let mut m = machine(cpu, false);
            scsi_manager::set_stalls_mid_block(&mut m, true);
            let buf = alloc(&mut m, 4 * BLOCK as u32);
            let mut corrupt = 0;
            for i in 0..16u32 {
                let lba = 4 * (i % 8);
                m.write_bytes(buf, &vec![0xEE; 4 * BLOCK]);
                let r = m.call("read10", &[0, lba, 4, buf, blind]).unwrap();
                let at = lba as usize * BLOCK;
                let want = disk(&mut m).data[at..at + 4 * BLOCK].to_vec();
                if m.read_bytes(buf, 4 * BLOCK as u32) != want {
                    corrupt += 1;
                    assert_eq!(r.d0 as i16, 10, "{ctx}: a byte left over: scComplPhaseErr");
                } else {
                    assert_eq!(r.d0, 0, "{ctx}");
                }
            }
            if blind == 1 && cpu == CpuModel::M68000 {
                assert!(
                    corrupt > 0,
                    "{ctx}: 64 blind blocks, no pause corrupted one"
                );
            } else {
                assert_eq!(corrupt, 0, "{ctx}: data corrupted");
            }
        }
    }
}
