//! SCSI Manager 4.3 (`_SCSIAtomic` $A089, `SCSIAction`) on the virtual bus
//! (`ferrite_emu::scsi_manager::v43`). PB offsets and codes below are literal values from the
//! mac-facts (§6), not the emulator's constants.

#[path = "support/ram_target.rs"]
mod ram_target;

use std::sync::OnceLock;

use ferrite_emu::scsi_manager::{self, CompletionTiming, ScsiCall, ScsiManagerConfig, v43};
use ferrite_emu::{CpuModel, Fault, Machine, ZoneId};
use ferrite_shared::flat::FlatImage;
use ram_target::{BLOCK, RamTarget, sense};
use retro68_build::asm::assemble_flat_supervisor;

const CPUS: [CpuModel; 2] = [CpuModel::M68000, CpuModel::M68040];

// SCSIPBHdr / SCSIExecIOPB offsets (mac-facts §6.2, §6.3).
const Q_LINK: u32 = 0;
const PB_LENGTH: u32 = 6;
const FUNCTION: u32 = 8;
const RESULT: u32 = 10;
const DEVICE: u32 = 12;
const COMPLETION: u32 = 16;
const FLAGS: u32 = 20;
const RESULT_FLAGS: u32 = 36;
const DATA_PTR: u32 = 40;
const DATA_LENGTH: u32 = 44;
const SENSE_PTR: u32 = 48;
const SENSE_LENGTH: u32 = 52;
const CDB_LENGTH: u32 = 53;
const SG_COUNT: u32 = 54;
const SCSI_STATUS: u32 = 60;
const SENSE_RESIDUAL: u32 = 61;
const DATA_RESIDUAL: u32 = 64;
const CDB: u32 = 68;
const DATA_TYPE: u32 = 102;
const TRANSFER_TYPE: u32 = 103;
const EXEC_IO_SIZE: u32 = 176;

const DIR_IN: u32 = 0x4000_0000;
const DIR_OUT: u32 = 0x8000_0000;
const DIR_NONE: u32 = 0xC000_0000;
const DISABLE_AUTOSENSE: u32 = 0x2000_0000;
const CDB_IS_POINTER: u32 = 0x0100_0000;
const SIMQ_NO_FREEZE: u32 = 0x0004_0000;

const NO_ERR: i16 = 0;
const IN_PROGRESS: i16 = 1;
const REQUEST_ABORTED: i16 = -7934;
const UNABLE_TO_ABORT: i16 = -7933;
const NON_ZERO_STATUS: i16 = -7932;
const SELECT_TIMEOUT: i16 = -7926;
const BUS_RESET: i16 = -7922;
const DATA_RUN_ERROR: i16 = -7918;
const WRONG_DIRECTION: i16 = -7915;
const DEVICE_CONFLICT: i16 = -7883;
const NO_SUCH_XREF: i16 = -7882;
const Q_LINK_INVALID: i16 = -7881;
const PB_LENGTH_ERROR: i16 = -7872;
const FUNCTION_NOT_AVAILABLE: i16 = -7871;
const REQUEST_INVALID: i16 = -7870;
const BUS_INVALID: i16 = -7869;
const TID_INVALID: i16 = -7868;
const LUN_INVALID: i16 = -7867;
const DATA_TYPE_INVALID: i16 = -7865;
const TRANSFER_TYPE_INVALID: i16 = -7864;
const CDB_LENGTH_INVALID: i16 = -7863;

const SOURCE: &str = r#"
        .text
| exec(pb): SCSIAction; D0 = result.
        .globl exec
exec:   move.l  4(%sp),%a0
        moveq   #1,%d0
        .short  0xA089
        rts

| exec_a5(pb, a5): SCSIAction with A5 = a5 (restored afterwards).
        .globl exec_a5
exec_a5:
        move.l  %a5,-(%sp)
        move.l  8(%sp),%a0
        move.l  12(%sp),%a5
        moveq   #1,%d0
        .short  0xA089
        move.l  (%sp)+,%a5
        rts

| exec_masked(pb): SCSIAction with the interrupt mask at 2 (as at SCSI interrupt level).
        .globl exec_masked
exec_masked:
        move.w  %sr,-(%sp)
        move.w  #0x2200,%sr
        move.l  6(%sp),%a0
        moveq   #1,%d0
        .short  0xA089
        move.w  (%sp)+,%sr
        rts

| wait(pb): spin until scsiResult is no longer 1 (interrupts run meanwhile); D0 = result.
        .globl wait
wait:   move.l  4(%sp),%a0
1:      cmpi.w  #1,10(%a0)
        beq.s   1b
        move.w  10(%a0),%d0
        ext.l   %d0
        rts

| rw10(op, id, lba, count, buf): build a zeroed SCSIExecIOPB for READ(10) ($28) or
| WRITE(10) ($2A) of `count` blocks at `buf` and run it synchronously; D0 = result.
        .globl rw10
rw10:   movem.l %d2/%a2,-(%sp)
        lea     pb,%a2
        move.l  %a2,%a0
        move.w  #43,%d0
1:      clr.l   (%a0)+
        dbra    %d0,1b
        move.w  #176,6(%a2)
        move.b  #1,8(%a2)
        move.l  16(%sp),%d0
        move.b  %d0,14(%a2)
        move.l  12(%sp),%d1
        move.l  #0x40000000,%d2
        cmpi.b  #0x2A,%d1
        bne.s   2f
        move.l  #0x80000000,%d2
2:      move.l  %d2,20(%a2)
        move.b  %d1,68(%a2)
        move.l  20(%sp),70(%a2)
        move.l  24(%sp),%d0
        move.b  %d0,76(%a2)
        move.w  %d0,%d2
        lsr.w   #8,%d2
        move.b  %d2,75(%a2)
        move.b  #10,53(%a2)
        mulu.w  #512,%d0
        move.l  %d0,44(%a2)
        move.l  28(%sp),40(%a2)
        move.b  #1,103(%a2)
        move.l  %a2,%a0
        moveq   #1,%d0
        .short  0xA089
        movem.l (%sp)+,%d2/%a2
        rts

| Completion routine (Pascal: pops its PB pointer): counts, records the PB in `order`,
| A5, SR and the PB's scsiResult as seen when it runs.
        .globl completion
completion:
        addq.l  #1,done_count
        move.l  order_n,%d0
        lsl.l   #2,%d0
        lea     order,%a0
        move.l  4(%sp),0(%a0,%d0.l)
        addq.l  #1,order_n
        move.l  %a5,seen_a5
        move.w  %sr,%d0
        move.w  %d0,seen_sr
        move.l  4(%sp),%a0
        move.w  10(%a0),seen_result
        move.l  (%sp)+,%a0
        addq.l  #4,%sp
        jmp     (%a0)

| A completion routine that runs SCSIAction on the PB at `xref_pb` (an XRef call) and keeps
| its result in `xref_result`.
        .globl completion_xref
completion_xref:
        move.l  xref_pb,%a0
        moveq   #1,%d0
        .short  0xA089
        move.w  %d0,xref_result
        move.l  (%sp)+,%a0
        addq.l  #4,%sp
        jmp     (%a0)

| A completion routine that forgets to pop its argument (C-style).
        .globl completion_no_pop
completion_no_pop:
        addq.l  #1,done_count
        rts

| A completion routine that pops but destroys D3.
        .globl completion_clobber
completion_clobber:
        moveq   #0,%d3
        move.l  (%sp)+,%a0
        addq.l  #4,%sp
        jmp     (%a0)

| has_scsi43(): 1 if _GetOSTrapAddress($A089) differs from _GetToolTrapAddress($A89F).
        .globl has_scsi43
has_scsi43:
        move.w  #0xA089,%d0
        .short  0xA346
        move.l  %a0,%d1
        move.w  #0xA89F,%d0
        .short  0xA746
        moveq   #0,%d0
        cmp.l   %a0,%d1
        beq.s   1f
        moveq   #1,%d0
1:      rts

        .bss
        .globl done_count, order_n, seen_a5, seen_sr, seen_result, order, pb
        .globl xref_pb, xref_result
xref_pb: .long 0
xref_result: .short 0
        .even
done_count: .long 0
order_n: .long 0
seen_a5: .long 0
order:  .space 64
seen_sr: .short 0
seen_result: .short 0
pb:     .space 176
"#;

fn image() -> &'static FlatImage {
    static IMG: OnceLock<FlatImage> = OnceLock::new();
    IMG.get_or_init(|| assemble_flat_supervisor("scsi_manager43", SOURCE).expect("assembles"))
}

fn machine_with(cpu: CpuModel, config: ScsiManagerConfig) -> Machine {
    let mut m = Machine::new(cpu);
    m.load(image()).unwrap();
    scsi_manager::install(&mut m, config);
    scsi_manager::bus(&mut m).attach(0, Box::new(RamTarget::new(64)));
    m
}

/// The SIM's own tests use the bus-time completion (one defined order); the seeded
/// timings have their own test and run under the driver suites.
fn machine(cpu: CpuModel) -> Machine {
    machine_with(
        cpu,
        ScsiManagerConfig {
            timing: CompletionTiming::BusTime,
            underrun_is_error: true,
            ..ScsiManagerConfig::default()
        },
    )
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

fn exec(m: &mut Machine, pb: u32) -> i16 {
    m.call("exec", &[pb]).unwrap().d0 as i16
}

fn result(m: &Machine, pb: u32) -> i16 {
    m.read_u16(pb + RESULT) as i16
}

/// A zeroed SCSIExecIOPB for `cdb` on target `id`, data by buffer.
fn exec_pb(m: &mut Machine, id: u8, flags: u32, cdb: &[u8], buf: u32, len: u32) -> u32 {
    let pb = alloc(m, EXEC_IO_SIZE);
    m.write_u16(pb + PB_LENGTH, EXEC_IO_SIZE as u16);
    m.write_u8(pb + FUNCTION, 1);
    m.write_u32(pb + DEVICE, (id as u32) << 8);
    m.write_u32(pb + FLAGS, flags);
    m.write_bytes(pb + CDB, cdb);
    m.write_u8(pb + CDB_LENGTH, cdb.len() as u8);
    m.write_u32(pb + DATA_PTR, buf);
    m.write_u32(pb + DATA_LENGTH, len);
    m.write_u8(pb + TRANSFER_TYPE, 1);
    pb
}

fn read10(lba: u32, n: u16) -> Vec<u8> {
    let l = lba.to_be_bytes();
    let c = n.to_be_bytes();
    vec![0x28, 0, l[0], l[1], l[2], l[3], 0, c[0], c[1], 0]
}

fn write10(lba: u32, n: u16) -> Vec<u8> {
    let mut c = read10(lba, n);
    c[0] = 0x2A;
    c
}

/// A PB for a function that only needs `size` bytes.
fn small_pb(m: &mut Machine, function: u8, size: u32, device: u32) -> u32 {
    let pb = alloc(m, size);
    m.write_u16(pb + PB_LENGTH, size as u16);
    m.write_u8(pb + FUNCTION, function);
    m.write_u32(pb + DEVICE, device);
    pb
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn sync_exec_io_reads_and_writes_through_a_buffer() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, 4 * BLOCK as u32);
        let c0 = m.emulated_cycles();
        let r = m.call("rw10", &[0x28, 0, 2, 3, buf]).unwrap();
        assert_eq!(r.d0 as i16, NO_ERR, "{cpu}");
        let want = disk(&mut m).data[2 * BLOCK..5 * BLOCK].to_vec();
        assert_eq!(m.read_bytes(buf, 3 * BLOCK as u32), want);
        let pb = sym(&m, "pb");
        assert_eq!(result(&m, pb), NO_ERR);
        assert_eq!(m.read_u8(pb + SCSI_STATUS), 0);
        assert_eq!(m.read_u32(pb + DATA_RESIDUAL), 0);
        let log = scsi_manager::bus(&mut m).log().to_vec();
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].cdb, read10(2, 3));
        assert_eq!(log[0].data_in_moved, 3 * BLOCK);
        // The synchronous call took the command's bus time in emulated time.
        let bus_cycles = log[0].time_ns as u128 * m.clock_hz() as u128 / 1_000_000_000;
        assert!(
            (m.emulated_cycles() - c0) as u128 >= bus_cycles,
            "time passed during the wait"
        );

        let pattern: Vec<u8> = (0..2 * BLOCK).map(|i| (i * 13 + 5) as u8).collect();
        m.write_bytes(buf, &pattern);
        let r = m.call("rw10", &[0x2A, 0, 10, 2, buf]).unwrap();
        assert_eq!(r.d0 as i16, NO_ERR);
        assert_eq!(&disk(&mut m).data[10 * BLOCK..12 * BLOCK], &pattern[..]);
        let calls = scsi_manager::calls(&mut m);
        assert_eq!(
            calls.last(),
            Some(&ScsiCall::Action {
                function: 1,
                pb,
                device: 0,
                asynchronous: false,
                result: 0
            })
        );
        assert_eq!(
            calls
                .iter()
                .filter(|c| matches!(c, ScsiCall::Completion { routine: 0, .. }))
                .count(),
            2
        );
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn exec_io_with_a_tib_and_with_a_scatter_gather_list() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        // TIB: [scInc buf,512] [scLoop -10,3] [scStop]
        let buf = alloc(&mut m, 3 * BLOCK as u32);
        let tib = alloc(&mut m, 30);
        let words: [(u16, u32, u32); 3] = [(1, buf, 512), (5, (-10i32) as u32, 3), (7, 0, 0)];
        for (i, (op, p1, p2)) in words.iter().enumerate() {
            let a = tib + 10 * i as u32;
            m.write_u16(a, *op);
            m.write_u32(a + 2, *p1);
            m.write_u32(a + 6, *p2);
        }
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(4, 3), tib, 3 * BLOCK as u32);
        m.write_u8(pb + DATA_TYPE, 1);
        assert_eq!(exec(&mut m, pb), NO_ERR, "{cpu}");
        let want = disk(&mut m).data[4 * BLOCK..7 * BLOCK].to_vec();
        assert_eq!(m.read_bytes(buf, 3 * BLOCK as u32), want);
        assert_eq!(
            m.read_u32(tib + 2),
            buf + 3 * BLOCK as u32,
            "scInc's pointer written back"
        );
        assert_eq!(m.read_u32(tib + 16), 0, "scLoop's count written back");

        // Scatter-gather: 100 + 412 + 1024 bytes in three places.
        let (a, b, c) = (alloc(&mut m, 100), alloc(&mut m, 412), alloc(&mut m, 1024));
        let sg = alloc(&mut m, 24);
        for (i, (p, l)) in [(a, 100u32), (b, 412), (c, 1024)].iter().enumerate() {
            m.write_u32(sg + 8 * i as u32, *p);
            m.write_u32(sg + 8 * i as u32 + 4, *l);
        }
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(8, 3), sg, 1536);
        m.write_u8(pb + DATA_TYPE, 2);
        m.write_u16(pb + SG_COUNT, 3);
        m.write_u8(pb + TRANSFER_TYPE, 0);
        assert_eq!(exec(&mut m, pb), NO_ERR);
        let mut got = m.read_bytes(a, 100);
        got.extend(m.read_bytes(b, 412));
        got.extend(m.read_bytes(c, 1024));
        assert_eq!(got, disk(&mut m).data[8 * BLOCK..11 * BLOCK].to_vec());

        // Scatter-gather write back to blocks 20..23, CDB by pointer.
        let cdb = alloc(&mut m, 10);
        m.write_bytes(cdb, &write10(20, 3));
        let pb = exec_pb(&mut m, 0, DIR_OUT | CDB_IS_POINTER, &[], sg, 1536);
        m.write_u32(pb + CDB, cdb);
        m.write_u8(pb + CDB_LENGTH, 10);
        m.write_u8(pb + DATA_TYPE, 2);
        m.write_u16(pb + SG_COUNT, 3);
        assert_eq!(exec(&mut m, pb), NO_ERR);
        assert_eq!(disk(&mut m).data[20 * BLOCK..23 * BLOCK].to_vec(), got);

        // A S/G list shorter than scsiDataLength is refused.
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(8, 4), sg, 2048);
        m.write_u8(pb + DATA_TYPE, 2);
        m.write_u16(pb + SG_COUNT, 3);
        assert_eq!(exec(&mut m, pb), REQUEST_INVALID);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn async_exec_io_completes_later_and_calls_the_pascal_completion_routine() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, 2 * BLOCK as u32);
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(1, 2), buf, 2 * BLOCK as u32);
        let routine = sym(&m, "completion");
        m.write_u32(pb + COMPLETION, routine);
        let r = m.call("exec_a5", &[pb, 0x0012_3450]).unwrap();
        assert_eq!(
            r.d0, 0,
            "an async SCSIAction returns noErr at once on {cpu}"
        );
        assert_eq!(result(&m, pb), IN_PROGRESS);
        assert_eq!(m.read_u32(sym(&m, "done_count")), 0, "not complete yet");
        assert_eq!(v43::in_flight(&mut m), Some(pb));
        assert_eq!(
            m.pending_interrupts(),
            vec!["SCSI Manager 4.3 command complete"]
        );

        let r = m.call("wait", &[pb]).unwrap();
        assert_eq!(r.d0 as i16, NO_ERR);
        assert_eq!(m.read_u32(sym(&m, "done_count")), 1);
        assert_eq!(
            m.read_u32(sym(&m, "order")),
            pb,
            "the routine got the PB pointer"
        );
        assert_eq!(
            m.read_u32(sym(&m, "seen_a5")),
            v43::COMPLETION_A5,
            "the completion routine gets no A5 of the client's"
        );
        assert_eq!(
            (m.read_u16(sym(&m, "seen_sr")) >> 8) & 7,
            2,
            "ran at SCSI interrupt level"
        );
        assert_eq!(
            m.read_u16(sym(&m, "seen_result")) as i16,
            NO_ERR,
            "results written before the call"
        );
        let want = disk(&mut m).data[BLOCK..3 * BLOCK].to_vec();
        assert_eq!(m.read_bytes(buf, 2 * BLOCK as u32), want);
        let calls = scsi_manager::calls(&mut m);
        assert_eq!(
            calls,
            vec![
                ScsiCall::Action {
                    function: 1,
                    pb,
                    device: 0,
                    asynchronous: true,
                    result: 0
                },
                ScsiCall::Completion {
                    pb,
                    result: 0,
                    routine
                },
            ]
        );
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_completion_routine_that_does_not_pop_its_argument_fails_the_run() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, BLOCK as u32);
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(0, 1), buf, BLOCK as u32);
        let bad = sym(&m, "completion_no_pop");
        m.write_u32(pb + COMPLETION, bad);
        assert_eq!(exec(&mut m, pb), NO_ERR);
        let err = m.call("wait", &[pb]).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("must pop its 4-byte PB pointer"),
            "{cpu}: {text}"
        );
        assert_eq!(m.read_u32(sym(&m, "done_count")), 1, "the routine did run");

        // One that pops but destroys D3 fails too (Mac OS register rules).
        let mut m = machine(cpu);
        let buf = alloc(&mut m, BLOCK as u32);
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(0, 1), buf, BLOCK as u32);
        let bad = sym(&m, "completion_clobber");
        m.write_u32(pb + COMPLETION, bad);
        assert_eq!(exec(&mut m, pb), NO_ERR);
        let err = m.call("wait", &[pb]).unwrap_err();
        assert!(err.to_string().contains("D3 changed"), "{cpu}: {err}");
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn the_sim_queues_requests_fifo_aborts_queued_ones_and_sync_requests_wait() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let routine = sym(&m, "completion");
        let mut pbs = Vec::new();
        for i in 0..3u32 {
            let buf = alloc(&mut m, BLOCK as u32);
            let pb = exec_pb(&mut m, 0, DIR_IN, &read10(i, 1), buf, BLOCK as u32);
            m.write_u32(pb + COMPLETION, routine);
            assert_eq!(exec(&mut m, pb), NO_ERR);
            pbs.push(pb);
        }
        let (a, b, c) = (pbs[0], pbs[1], pbs[2]);
        assert_eq!(v43::in_flight(&mut m), Some(a), "{cpu}");
        assert_eq!(v43::queued(&mut m), vec![b, c]);
        assert_eq!(
            m.read_u32(b + Q_LINK),
            c,
            "the SIM links queued PBs through qLink"
        );
        // Abort: C (queued) can be aborted, A (on the bus) cannot.
        let abort = small_pb(&mut m, 0x10, 40, 0);
        m.write_u32(abort + 36, c);
        assert_eq!(exec(&mut m, abort), NO_ERR);
        m.write_u32(abort + 36, a);
        assert_eq!(exec(&mut m, abort), UNABLE_TO_ABORT);
        assert_eq!(m.read_u32(b + Q_LINK), 0, "C unlinked");
        // A synchronous request waits for everything ahead of it.
        let buf = alloc(&mut m, BLOCK as u32);
        let d = exec_pb(&mut m, 0, DIR_IN, &read10(9, 1), buf, BLOCK as u32);
        assert_eq!(exec(&mut m, d), NO_ERR);
        assert_eq!(m.read_u32(sym(&m, "done_count")), 3);
        let order = sym(&m, "order");
        let seen: Vec<u32> = (0..3).map(|i| m.read_u32(order + 4 * i)).collect();
        assert_eq!(
            seen,
            vec![c, a, b],
            "the abort completes at once, then FIFO"
        );
        assert_eq!(result(&m, c), REQUEST_ABORTED);
        assert_eq!((result(&m, a), result(&m, b)), (NO_ERR, NO_ERR));
        let cdbs: Vec<Vec<u8>> = scsi_manager::bus(&mut m)
            .log()
            .iter()
            .map(|e| e.cdb.clone())
            .collect();
        assert_eq!(cdbs, vec![read10(0, 1), read10(1, 1), read10(9, 1)]);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn qlink_is_left_set_by_the_queue_and_a_reused_pb_must_be_cleared() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let routine = sym(&m, "completion");
        let mut pbs = Vec::new();
        for i in 0..3u32 {
            let buf = alloc(&mut m, BLOCK as u32);
            let pb = exec_pb(&mut m, 0, DIR_IN, &read10(i, 1), buf, BLOCK as u32);
            m.write_u32(pb + COMPLETION, routine);
            assert_eq!(exec(&mut m, pb), NO_ERR);
            pbs.push(pb);
        }
        m.call("wait", &[pbs[2]]).unwrap();
        assert_eq!(
            m.read_u32(pbs[1] + Q_LINK),
            pbs[2],
            "{cpu}: qLink still points at the next PB"
        );
        assert_eq!(exec(&mut m, pbs[1]), Q_LINK_INVALID);
        m.write_u32(pbs[1] + Q_LINK, 0);
        assert_eq!(exec(&mut m, pbs[1]), NO_ERR);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_sync_request_at_interrupt_level_polls_the_request_in_flight() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, 2 * BLOCK as u32);
        let a = exec_pb(&mut m, 0, DIR_IN, &read10(0, 1), buf, BLOCK as u32);
        m.write_u32(a + COMPLETION, sym(&m, "completion"));
        assert_eq!(exec(&mut m, a), NO_ERR);
        let d = exec_pb(
            &mut m,
            0,
            DIR_IN,
            &read10(3, 1),
            buf + BLOCK as u32,
            BLOCK as u32,
        );
        let r = m.call("exec_masked", &[d]).unwrap();
        assert_eq!(r.d0 as i16, NO_ERR, "{cpu}");
        assert_eq!(
            m.read_u32(sym(&m, "done_count")),
            1,
            "A completed inside the masked call"
        );
        assert_eq!(result(&m, a), NO_ERR);
        assert!(
            m.pending_interrupts().is_empty(),
            "{:?}",
            m.pending_interrupts()
        );
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn check_condition_autosense_and_the_frozen_queue() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, 4 * BLOCK as u32);
        let sense_buf = alloc(&mut m, 32);
        let mk = |m: &mut Machine, flags: u32| {
            let pb = exec_pb(m, 0, DIR_IN | flags, &read10(0, 4), buf, 4 * BLOCK as u32);
            m.write_u32(pb + SENSE_PTR, sense_buf);
            m.write_u8(pb + SENSE_LENGTH, 32);
            pb
        };
        disk(&mut m).fail_next_with_sense = Some(sense(3, 0x11, 0));
        let pb = mk(&mut m, 0);
        assert_eq!(exec(&mut m, pb), NON_ZERO_STATUS, "{cpu}");
        assert_eq!(m.read_u8(pb + SCSI_STATUS), 2);
        assert_eq!(
            m.read_u32(pb + DATA_RESIDUAL),
            2 * BLOCK as u32,
            "half the data came"
        );
        assert_eq!(
            m.read_u16(pb + RESULT_FLAGS),
            3,
            "autosense valid + SIM queue frozen"
        );
        assert_eq!(m.read_u8(pb + SENSE_RESIDUAL), 32 - 18);
        let s = m.read_bytes(sense_buf, 18);
        assert_eq!((s[0], s[2], s[12], s[13]), (0x70, 3, 0x11, 0));
        let last = scsi_manager::bus(&mut m).log().last().unwrap().clone();
        assert_eq!(
            last.cdb,
            vec![3, 0, 0, 0, 32, 0],
            "the SIM ran REQUEST SENSE"
        );
        assert!(v43::is_frozen(&mut m, 0, 0));

        // A synchronous request to the frozen LUN would hang: misuse.
        let pb2 = mk(&mut m, 0);
        let err = m.call("exec", &[pb2]).unwrap_err();
        assert!(
            matches!(err.fault, Fault::Misuse { .. }) && err.to_string().contains("frozen"),
            "{err}"
        );
        // An asynchronous one is held until SCSIReleaseQ.
        m.write_u32(pb2 + COMPLETION, sym(&m, "completion"));
        assert_eq!(exec(&mut m, pb2), NO_ERR);
        assert_eq!(v43::queued(&mut m), vec![pb2]);
        assert_eq!(v43::in_flight(&mut m), None);
        let rel = small_pb(&mut m, 0x04, 36, 0);
        assert_eq!(exec(&mut m, rel), NO_ERR);
        assert_eq!(v43::in_flight(&mut m), Some(pb2));
        assert_eq!(m.call("wait", &[pb2]).unwrap().d0 as i16, NO_ERR);

        // scsiSIMQNoFreeze: not frozen. scsiDisableAutosense: no REQUEST SENSE.
        disk(&mut m).fail_next_with_sense = Some(sense(3, 0x11, 0));
        let pb3 = mk(&mut m, SIMQ_NO_FREEZE | DISABLE_AUTOSENSE);
        m.write_bytes(sense_buf, &[0x55; 32]);
        let n_log = scsi_manager::bus(&mut m).log().len();
        assert_eq!(exec(&mut m, pb3), NON_ZERO_STATUS);
        assert_eq!(m.read_u16(pb3 + RESULT_FLAGS), 0);
        assert_eq!(m.read_bytes(sense_buf, 32), vec![0x55; 32]);
        assert_eq!(
            scsi_manager::bus(&mut m).log().len(),
            n_log + 1,
            "no REQUEST SENSE"
        );
        assert!(!v43::is_frozen(&mut m, 0, 0));

        // BUSY: non-zero status, no autosense (only CHECK CONDITION triggers it).
        disk(&mut m).busy_next = true;
        let pb4 = mk(&mut m, SIMQ_NO_FREEZE);
        assert_eq!(exec(&mut m, pb4), NON_ZERO_STATUS);
        assert_eq!(m.read_u8(pb4 + SCSI_STATUS), 8);
        assert_eq!(m.read_u16(pb4 + RESULT_FLAGS), 0);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn selection_timeout_takes_the_selection_time() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, BLOCK as u32);
        let pb = exec_pb(
            &mut m,
            3,
            DIR_IN | SIMQ_NO_FREEZE,
            &read10(0, 1),
            buf,
            BLOCK as u32,
        );
        m.write_u32(pb + COMPLETION, sym(&m, "completion"));
        let c0 = m.emulated_cycles();
        assert_eq!(exec(&mut m, pb), NO_ERR);
        assert_eq!(
            m.call("wait", &[pb]).unwrap().d0 as i16,
            SELECT_TIMEOUT,
            "{cpu}"
        );
        let quarter_second = m.clock_hz() as u64 / 4;
        assert!(
            m.emulated_cycles() - c0 >= quarter_second,
            "250 ms of selection timeout passed"
        );
        assert_eq!(m.read_u32(pb + DATA_RESIDUAL), BLOCK as u32);
        // A present but unresponsive target times out the same way (synchronously).
        disk(&mut m).absent = true;
        let pb = exec_pb(&mut m, 0, DIR_NONE, &[0; 6], 0, 0);
        assert_eq!(exec(&mut m, pb), SELECT_TIMEOUT);
        assert_eq!(m.read_u16(pb + RESULT_FLAGS), 1, "frozen");
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn bus_resets_end_requests_with_scsi_bus_reset() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, BLOCK as u32);
        // The target resets the bus during the command.
        disk(&mut m).reset_next = true;
        let pb = exec_pb(
            &mut m,
            0,
            DIR_IN | SIMQ_NO_FREEZE,
            &read10(0, 1),
            buf,
            BLOCK as u32,
        );
        assert_eq!(exec(&mut m, pb), BUS_RESET, "{cpu}");
        assert_eq!(disk(&mut m).resets, 1);
        // SCSIResetBus with one request on the bus and one queued: both end with the reset.
        let routine = sym(&m, "completion");
        let a = exec_pb(
            &mut m,
            0,
            DIR_IN | SIMQ_NO_FREEZE,
            &read10(0, 1),
            buf,
            BLOCK as u32,
        );
        let b = exec_pb(
            &mut m,
            0,
            DIR_IN | SIMQ_NO_FREEZE,
            &read10(1, 1),
            buf,
            BLOCK as u32,
        );
        for pb in [a, b] {
            m.write_u32(pb + COMPLETION, routine);
            assert_eq!(exec(&mut m, pb), NO_ERR);
        }
        let reset = small_pb(&mut m, 0x11, 36, 0);
        assert_eq!(exec(&mut m, reset), NO_ERR);
        assert_eq!(m.call("wait", &[b]).unwrap().d0 as i16, BUS_RESET);
        assert_eq!(result(&m, a), BUS_RESET);
        assert_eq!(m.read_u32(sym(&m, "done_count")), 2);
        assert_eq!(scsi_manager::bus(&mut m).resets(), 2);
        assert_eq!(disk(&mut m).resets, 2);
        // SCSIResetDevice: that target only; none there → selection timeout.
        let rd = small_pb(&mut m, 0x12, 36, 0);
        assert_eq!(exec(&mut m, rd), NO_ERR);
        assert_eq!(disk(&mut m).resets, 3);
        assert_eq!(scsi_manager::bus(&mut m).resets(), 2, "no bus reset");
        let rd5 = small_pb(&mut m, 0x12, 36, 0x0500);
        assert_eq!(exec(&mut m, rd5), SELECT_TIMEOUT);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn bus_inquiry_and_get_virtual_id_info() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        for bus in [0u32, 0xFF] {
            let pb = small_pb(&mut m, 0x03, 172, bus << 16);
            assert_eq!(exec(&mut m, pb), NO_ERR, "{cpu} bus {bus}");
            assert_eq!(m.read_u16(pb + 44), 176, "scsiIOpbSize");
            assert_eq!(m.read_u16(pb + 46), 176, "scsiMaxIOpbSize");
            assert_eq!(m.read_u8(pb + 68), 0, "scsiHiBusID");
            assert_eq!(m.read_u8(pb + 69), 7, "scsiInitiatorID");
            assert_eq!(m.read_u16(pb + 84), 7, "scsiMaxTarget");
            assert_eq!(m.read_u16(pb + 86), 7, "scsiMaxLUN");
            assert_eq!(
                m.read_u32(pb + 40),
                0b111,
                "scsiDataTypes: buffer, TIB, S/G"
            );
            assert_ne!(m.read_u32(pb + 76) & DIR_IN, 0, "scsiFlagsSupported");
            assert_eq!(&m.read_bytes(pb + 88, 7), b"Ferrite");
        }
        let pb = small_pb(&mut m, 0x03, 172, 1 << 16);
        assert_eq!(exec(&mut m, pb), BUS_INVALID);
        let pb = small_pb(&mut m, 0x03, 100, 0);
        assert_eq!(exec(&mut m, pb), PB_LENGTH_ERROR);

        let pb = small_pb(&mut m, 0x80, 40, 0xFFFF_FFFF);
        m.write_u16(pb + 36, 0);
        assert_eq!(exec(&mut m, pb), NO_ERR);
        assert_eq!(
            (m.read_u32(pb + DEVICE), m.read_u8(pb + 38)),
            (0, 1),
            "ID 0: bus 0, exists"
        );
        m.write_u16(pb + 36, 4);
        assert_eq!(exec(&mut m, pb), NO_ERR);
        assert_eq!(
            (m.read_u32(pb + DEVICE), m.read_u8(pb + 38)),
            (0x0400, 0),
            "ID 4: nobody"
        );
        m.write_u16(pb + 36, 7);
        assert_eq!(exec(&mut m, pb), TID_INVALID);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn the_virtual_bus_as_bus_1_leaves_bus_0_empty() {
    for cpu in CPUS {
        let mut m = machine_with(
            cpu,
            ScsiManagerConfig {
                timing: CompletionTiming::BusTime,
                bus_number: 1,
                ..ScsiManagerConfig::default()
            },
        );
        let buf = alloc(&mut m, BLOCK as u32);
        let read = |m: &mut Machine, device: u32| {
            let pb = exec_pb(
                m,
                0,
                DIR_IN | SIMQ_NO_FREEZE,
                &read10(0, 1),
                buf,
                BLOCK as u32,
            );
            m.write_u32(pb + DEVICE, device);
            (exec(m, pb), m.read_u32(pb + DATA_RESIDUAL))
        };
        // Target 0 of bus 0: nobody there, the 250 ms selection timeout, nothing on the bus.
        let c0 = m.emulated_cycles();
        assert_eq!(
            read(&mut m, 0x0000_0000),
            (SELECT_TIMEOUT, BLOCK as u32),
            "{cpu}"
        );
        assert!(
            m.emulated_cycles() - c0 >= u64::from(m.clock_hz()) / 4,
            "{cpu}: selection time"
        );
        assert!(scsi_manager::bus(&mut m).log().is_empty(), "{cpu}");
        // Target 0 of bus 1 is the disk; bus 2 does not exist.
        assert_eq!(read(&mut m, 0x0001_0000), (NO_ERR, 0), "{cpu}");
        assert_eq!(scsi_manager::bus(&mut m).log().len(), 1, "{cpu}");
        assert_eq!(read(&mut m, 0x0002_0000).0, BUS_INVALID, "{cpu}");
        // SCSIBusInquiry names bus 1 the highest; the old API's IDs map to it.
        for bus in [0u32, 1, 0xFF] {
            let pb = small_pb(&mut m, 0x03, 172, bus << 16);
            assert_eq!(exec(&mut m, pb), NO_ERR, "{cpu} bus {bus}");
            assert_eq!(m.read_u8(pb + 68), 1, "{cpu}: scsiHiBusID");
        }
        let pb = small_pb(&mut m, 0x03, 172, 2 << 16);
        assert_eq!(exec(&mut m, pb), BUS_INVALID, "{cpu}");
        let pb = small_pb(&mut m, 0x80, 40, 0xFFFF_FFFF);
        m.write_u16(pb + 36, 0);
        assert_eq!(exec(&mut m, pb), NO_ERR);
        assert_eq!(
            (m.read_u32(pb + DEVICE), m.read_u8(pb + 38)),
            (0x0001_0000, 1),
            "{cpu}: ID 0 is bus 1, target 0, and exists"
        );
        // SCSIResetDevice of target 0 on bus 0: nobody answers.
        let pb = small_pb(&mut m, 0x12, 36, 0);
        assert_eq!(exec(&mut m, pb), SELECT_TIMEOUT, "{cpu}");
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn refnum_xrefs_create_lookup_remove() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let pb = small_pb(&mut m, 0x85, 44, 0x0200);
        m.write_u16(pb + 36, (-40i16) as u16);
        assert_eq!(exec(&mut m, pb), NO_ERR, "{cpu}");
        m.write_u16(pb + 36, (-41i16) as u16);
        assert_eq!(exec(&mut m, pb), DEVICE_CONFLICT, "one refNum per device");
        let pb5 = small_pb(&mut m, 0x85, 44, 0x0500);
        m.write_u16(pb5 + 36, (-43i16) as u16);
        assert_eq!(exec(&mut m, pb5), NO_ERR);

        let look = small_pb(&mut m, 0x86, 44, 0x0200);
        assert_eq!(exec(&mut m, look), NO_ERR);
        assert_eq!(m.read_u16(look + 36) as i16, -40);
        assert_eq!(m.read_u32(look + 40), 0x0500, "scsiNextDevice");
        m.write_u32(look + DEVICE, 0x0300);
        assert_eq!(exec(&mut m, look), NO_ERR);
        assert_eq!(m.read_u16(look + 36), 0, "no driver: refNum 0");
        m.write_u32(look + DEVICE, 0x0700);
        assert_eq!(exec(&mut m, look), TID_INVALID);

        let rm = small_pb(&mut m, 0x87, 44, 0x0200);
        assert_eq!(exec(&mut m, rm), NO_ERR);
        assert_eq!(exec(&mut m, rm), NO_SUCH_XREF);
        m.write_u32(look + DEVICE, 0x0200);
        assert_eq!(exec(&mut m, look), NO_ERR);
        assert_eq!(m.read_u16(look + 36), 0);
        // XRef calls are synchronous only.
        m.write_u32(rm + COMPLETION, sym(&m, "completion"));
        assert_eq!(exec(&mut m, rm), REQUEST_INVALID);
    }
}

/// IM Devices ch. 4: `SCSICreateRefNumXref` and `SCSIRemoveRefNumXref` "may move memory; you
/// should not call [them] at interrupt time"; a lookup may be made there.
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn xref_create_and_remove_at_interrupt_time_fail_the_run() {
    for cpu in CPUS {
        for (function, allowed) in [(0x86u8, true), (0x85, false), (0x87, false)] {
            let mut m = machine(cpu);
            let xpb = small_pb(&mut m, function, 44, 0x0200);
            m.write_u16(xpb + 36, (-40i16) as u16);
            let at = sym(&m, "xref_pb");
            m.write_u32(at, xpb);
            let buf = alloc(&mut m, BLOCK as u32);
            let pb = exec_pb(&mut m, 0, DIR_IN, &read10(1, 1), buf, BLOCK as u32);
            m.write_u32(pb + COMPLETION, sym(&m, "completion_xref"));
            assert_eq!(exec(&mut m, pb), NO_ERR);
            let waited = m.call("wait", &[pb]);
            if allowed {
                waited.unwrap_or_else(|e| panic!("{cpu}: a lookup at interrupt time: {e}"));
                assert_eq!(m.read_u16(sym(&m, "xref_result")), 0, "{cpu}");
            } else {
                let e = waited.expect_err("an XRef create/remove from a completion routine");
                assert!(
                    e.to_string().contains("at interrupt time"),
                    "{cpu} ${function:02X}: {e}"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn malformed_parameter_blocks_get_the_documented_errors() {
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, BLOCK as u32);
        type Edit = fn(&mut Machine, u32);
        let cases: Vec<(&str, Edit, i16)> = vec![
            (
                "qLink set",
                |m, pb| m.write_u32(pb + Q_LINK, 0x1234),
                Q_LINK_INVALID,
            ),
            (
                "PB too short",
                |m, pb| m.write_u16(pb + PB_LENGTH, 100),
                PB_LENGTH_ERROR,
            ),
            (
                "unknown function",
                |m, pb| m.write_u8(pb + FUNCTION, 0x42),
                FUNCTION_NOT_AVAILABLE,
            ),
            ("bus 1", |m, pb| m.write_u8(pb + DEVICE + 1, 1), BUS_INVALID),
            (
                "target 7",
                |m, pb| m.write_u8(pb + DEVICE + 2, 7),
                TID_INVALID,
            ),
            (
                "target 9",
                |m, pb| m.write_u8(pb + DEVICE + 2, 9),
                TID_INVALID,
            ),
            ("LUN 8", |m, pb| m.write_u8(pb + DEVICE + 3, 8), LUN_INVALID),
            (
                "CDB length 0",
                |m, pb| m.write_u8(pb + CDB_LENGTH, 0),
                CDB_LENGTH_INVALID,
            ),
            (
                "CDB length 17",
                |m, pb| m.write_u8(pb + CDB_LENGTH, 17),
                CDB_LENGTH_INVALID,
            ),
            (
                "data type 3",
                |m, pb| m.write_u8(pb + DATA_TYPE, 3),
                DATA_TYPE_INVALID,
            ),
            (
                "transfer type 2",
                |m, pb| m.write_u8(pb + TRANSFER_TYPE, 2),
                TRANSFER_TYPE_INVALID,
            ),
            (
                "direction 00",
                |m, pb| m.write_u32(pb + FLAGS, SIMQ_NO_FREEZE),
                REQUEST_INVALID,
            ),
            (
                "write for a read",
                |m, pb| m.write_u32(pb + FLAGS, DIR_OUT | SIMQ_NO_FREEZE),
                WRONG_DIRECTION,
            ),
            (
                "no data for a read",
                |m, pb| m.write_u32(pb + FLAGS, DIR_NONE | SIMQ_NO_FREEZE),
                WRONG_DIRECTION,
            ),
            (
                "buffer too small",
                |m, pb| m.write_u32(pb + DATA_LENGTH, 500),
                DATA_RUN_ERROR,
            ),
            (
                "buffer too large",
                |m, pb| m.write_u32(pb + DATA_LENGTH, 600),
                DATA_RUN_ERROR,
            ),
            ("nop", |m, pb| m.write_u8(pb + FUNCTION, 0), NO_ERR),
        ];
        for (what, edit, want) in cases {
            let pb = exec_pb(
                &mut m,
                0,
                DIR_IN | SIMQ_NO_FREEZE,
                &read10(0, 1),
                buf,
                BLOCK as u32,
            );
            edit(&mut m, pb);
            let before = scsi_manager::bus(&mut m).log().len();
            assert_eq!(exec(&mut m, pb), want, "{cpu}: {what}");
            assert_eq!(result(&m, pb), want, "{cpu}: {what}: scsiResult");
            let ran = scsi_manager::bus(&mut m).log().len() > before;
            assert_eq!(
                ran,
                matches!(want, WRONG_DIRECTION | DATA_RUN_ERROR),
                "{cpu}: {what}: reached the bus"
            );
        }
        // An underrun leaves a residual.
        let pb = exec_pb(&mut m, 0, DIR_IN | SIMQ_NO_FREEZE, &read10(0, 1), buf, 600);
        assert_eq!(exec(&mut m, pb), DATA_RUN_ERROR);
        assert_eq!(m.read_u32(pb + DATA_RESIDUAL), 88);
        // Unmapped pointers are a crash on a real Mac: misuse naming the field.
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(0, 1), 0x7FF0_0000, BLOCK as u32);
        let err = m.call("exec", &[pb]).unwrap_err();
        assert!(err.to_string().contains("scsiDataPtr"), "{err}");
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(0, 1), buf, BLOCK as u32);
        m.write_u32(pb + SENSE_PTR, 0x7FF0_0000);
        m.write_u8(pb + SENSE_LENGTH, 18);
        let err = m.call("exec", &[pb]).unwrap_err();
        assert!(err.to_string().contains("scsiSensePtr"), "{err}");
        let err = m.call("exec", &[0x7FF0_0000]).unwrap_err();
        assert!(err.to_string().contains("parameter block"), "{err}");
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn underrun_is_configurable() {
    for cpu in CPUS {
        let config = ScsiManagerConfig {
            underrun_is_error: false,
            ..Default::default()
        };
        let mut m = machine_with(cpu, config);
        let buf = alloc(&mut m, BLOCK as u32);
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(0, 1), buf, 600);
        assert_eq!(exec(&mut m, pb), NO_ERR, "{cpu}");
        assert_eq!(m.read_u32(pb + DATA_RESIDUAL), 88);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn get_trap_address_sees_scsi_atomic_only_when_4_3_is_present() {
    for cpu in CPUS {
        let mut m = machine_with(
            cpu,
            ScsiManagerConfig {
                v43_present: false,
                ..Default::default()
            },
        );
        assert_eq!(m.call("has_scsi43", &[]).unwrap().d0, 0, "{cpu}: old ROM");
        let err = m.call("exec", &[sym(&m, "pb")]).unwrap_err();
        assert!(
            matches!(err.fault, Fault::UnimplementedTrap { word: 0xA089, .. }),
            "{err}"
        );
        let mut m = machine(cpu);
        assert_eq!(
            m.call("has_scsi43", &[]).unwrap().d0,
            1,
            "{cpu}: 4.3 present"
        );
    }
}

/// Seeded completion timing: over many seeds an asynchronous request completes inside
/// `SCSIAction` sometimes and later other times; until it completes the client's buffer does
/// not have the data (it arrives at the data phase, reported at completion).
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn seeded_completion_timing_covers_inside_and_later() {
    let (mut inside, mut later) = (0, 0);
    for seed in 0..24u64 {
        let config = ScsiManagerConfig {
            timing: CompletionTiming::Seeded,
            seed,
            ..ScsiManagerConfig::default()
        };
        let mut m = machine_with(CpuModel::M68040, config);
        let buf = alloc(&mut m, BLOCK as u32);
        let pb = exec_pb(&mut m, 0, DIR_IN, &read10(3, 1), buf, BLOCK as u32);
        m.write_u32(pb + COMPLETION, sym(&m, "completion"));
        assert_eq!(m.call("exec_a5", &[pb, 0x0012_3450]).unwrap().d0, 0);
        let expected = disk(&mut m).data[3 * BLOCK..4 * BLOCK].to_vec();
        if m.read_u32(sym(&m, "done_count")) == 1 {
            inside += 1;
            assert_eq!(result(&m, pb), NO_ERR, "seed {seed}");
            assert_eq!(m.read_bytes(buf, BLOCK as u32), expected, "seed {seed}");
        } else {
            later += 1;
            assert_eq!(result(&m, pb), IN_PROGRESS, "seed {seed}");
            assert_ne!(
                m.read_bytes(buf, BLOCK as u32),
                expected,
                "seed {seed}: data before the completion"
            );
            assert_eq!(m.call("wait", &[pb]).unwrap().d0 as i16, NO_ERR);
            assert_eq!(m.read_bytes(buf, BLOCK as u32), expected, "seed {seed}");
        }
    }
    assert!(inside > 0 && later > 0, "inside {inside}, later {later}");
}

/// The client may not touch a request's parameter block, sense buffer or data buffer
/// between `SCSIAction` and the completion: each is caught, naming what was written.
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn writing_what_the_sim_owns_fails_the_run() {
    for (what, offset) in [("parameter block", None), ("data buffer", Some(5u32))] {
        let mut m = machine(CpuModel::M68000);
        let buf = alloc(&mut m, BLOCK as u32);
        let pb = exec_pb(&mut m, 0, DIR_OUT, &write10(3, 1), buf, BLOCK as u32);
        m.write_u32(pb + COMPLETION, sym(&m, "completion"));
        assert_eq!(exec(&mut m, pb), NO_ERR);
        assert_eq!(result(&m, pb), IN_PROGRESS);
        // What a driver refilling "its" one PB for another command does.
        match offset {
            None => m.write_bytes(pb + CDB, &read10(9, 1)),
            Some(o) => m.write_u8(buf + o, 0x77),
        }
        let e = m.call("wait", &[pb]).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains(&format!("the guest wrote its {what}"))
                && text.contains("while SCSI Manager 4.3 owned it"),
            "{what}: {text}"
        );
    }
}

/// A target that takes its command and stops answering: the request ends at `scsiTimeout`
/// with `scsiCommandTimeout` and a bus reset; with no timeout it never ends — a synchronous
/// call is a hang, an asynchronous one can be ended with `SCSIAbortCommand`.
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_target_that_stops_answering_ends_at_the_timeout_or_never() {
    const TIMEOUT: u32 = 84;
    const COMMAND_TIMEOUT: i16 = -7925;
    for cpu in CPUS {
        let mut m = machine(cpu);
        let buf = alloc(&mut m, BLOCK as u32);
        let routine = sym(&m, "completion");
        // 500 ms: ends then, with the bus reset.
        disk(&mut m).hang_next = true;
        let a = exec_pb(
            &mut m,
            0,
            DIR_IN | SIMQ_NO_FREEZE,
            &read10(1, 1),
            buf,
            BLOCK as u32,
        );
        m.write_u32(a + TIMEOUT, 500);
        m.write_u32(a + COMPLETION, routine);
        let t0 = m.emulated_cycles();
        assert_eq!(exec(&mut m, a), NO_ERR);
        assert_eq!(
            m.call("wait", &[a]).unwrap().d0 as i16,
            COMMAND_TIMEOUT,
            "{cpu}"
        );
        let waited = (m.emulated_cycles() - t0) as f64 / m.clock_hz() as f64;
        assert!(waited >= 0.5, "{cpu}: ended after {waited} s");
        assert_eq!(
            scsi_manager::bus(&mut m).resets(),
            1,
            "{cpu}: the SIM reset the bus"
        );
        // No timeout: never ends by itself; SCSIAbortCommand ends it (and resets the bus).
        disk(&mut m).hang_next = true;
        let b = exec_pb(
            &mut m,
            0,
            DIR_IN | SIMQ_NO_FREEZE,
            &read10(1, 1),
            buf,
            BLOCK as u32,
        );
        m.write_u32(b + COMPLETION, routine);
        assert_eq!(exec(&mut m, b), NO_ERR);
        m.wait_ticks(600, "10 s").unwrap();
        assert_eq!(
            result(&m, b),
            IN_PROGRESS,
            "{cpu}: still waiting after 10 s"
        );
        let abort = small_pb(&mut m, 0x10, 40, 0);
        m.write_u32(abort + 36, b);
        assert_eq!(
            exec(&mut m, abort),
            NO_ERR,
            "{cpu}: the silent request can be aborted"
        );
        assert_eq!(m.call("wait", &[b]).unwrap().d0 as i16, REQUEST_ABORTED);
        assert_eq!(scsi_manager::bus(&mut m).resets(), 2);
        // The target answers again.
        let c = exec_pb(
            &mut m,
            0,
            DIR_IN | SIMQ_NO_FREEZE,
            &read10(1, 1),
            buf,
            BLOCK as u32,
        );
        assert_eq!(exec(&mut m, c), NO_ERR, "{cpu}");
        // Synchronous with no timeout: a hang, which fails the run.
        disk(&mut m).hang_next = true;
        let d = exec_pb(
            &mut m,
            0,
            DIR_IN | SIMQ_NO_FREEZE,
            &read10(1, 1),
            buf,
            BLOCK as u32,
        );
        let e = m.call("exec", &[d]).unwrap_err();
        assert!(e.to_string().contains("would hang"), "{cpu}: {e}");
    }
}
