//! The Device Manager, drive queue, events, VBL tasks and OS utilities, driven by a
//! hand-written RAM-disk test driver (`tests/asm/test_disk_driver.s`). Every guest test runs on
//! the 68000 and the 68040.

use ferrite_emu::device_manager::*;
use ferrite_emu::os_utils::ostype;
use ferrite_emu::{CpuModel, Fault, Machine, RunError, ZoneId, lowmem};

const CPUS: [CpuModel; 2] = [CpuModel::M68000, CpuModel::M68040];
const REFNUM: i16 = -33; // unit 32, SCSI ID 0 convention
const IGNORE: &str = "needs binutils-m68k-linux-gnu: run `cargo xtask test`";

/// `(export, trap word)`: `name(pb)` executes the trap with A0 = pb and returns D0.
const TRAP_CALLS: &[(&str, u16)] = &[
    ("t_open", 0xA000),
    ("t_close", 0xA001),
    ("t_read", 0xA002),
    ("t_write", 0xA003),
    ("t_control", 0xA004),
    ("t_status", 0xA005),
    ("t_killio", 0xA006),
    ("t_read_async", 0xA402),
    ("t_write_async", 0xA403),
    ("t_control_async", 0xA404),
    ("t_read_immed", 0xA202),
    ("t_control_immed", 0xA204),
    ("t_status_immed", 0xA205),
    ("t_open_async", 0xA400),
];

fn source() -> String {
    let mut s = String::from(include_str!("../asm/test_disk_driver.s"));
    s.push_str("\n        .text\n");
    for (name, word) in TRAP_CALLS {
        s.push_str(&format!(
            "        .globl {name}\n{name}:  movea.l 4(%sp),%a0\n        .short 0x{word:04X}\n        rts\n"
        ));
    }
    s
}

struct T {
    m: Machine,
}

impl T {
    fn new(cpu: CpuModel) -> T {
        let img =
            retro68_build::asm::assemble_flat("test_disk_driver", &source()).expect("assembles");
        let mut m = Machine::new(cpu);
        m.install_mac_os();
        m.load(&img).unwrap();
        T { m }
    }
    /// Installed (DrvrInstall + DCE filled) but not opened.
    fn installed(cpu: CpuModel) -> T {
        let mut t = T::new(cpu);
        let r = t.m.call("install", &[REFNUM as u16 as u32]).unwrap();
        assert_eq!(r.d0 as i16, 0, "_DrvrInstall + _VInstall");
        t
    }
    /// Installed and opened through `_Open ".TestDsk"`.
    fn opened(cpu: CpuModel) -> T {
        let mut t = T::installed(cpu);
        let pb = t.pb();
        let name = t.pstr(b".TestDsk");
        t.m.write_u32(pb + IO_NAME_PTR, name);
        assert_eq!(t.call("t_open", pb), 0);
        t
    }
    fn addr(&self, name: &str) -> u32 {
        self.m.export_address(name).unwrap()
    }
    fn var32(&self, name: &str) -> u32 {
        self.m.read_u32(self.addr(name))
    }
    fn var16(&self, name: &str) -> i16 {
        self.m.read_u16(self.addr(name)) as i16
    }
    fn set16(&mut self, name: &str, v: i16) {
        let a = self.addr(name);
        self.m.write_u16(a, v as u16);
    }
    fn set8(&mut self, name: &str, v: u8) {
        let a = self.addr(name);
        self.m.write_u8(a, v);
    }
    fn pb(&mut self) -> u32 {
        let pb = self.m.new_ptr(ZoneId::System, 64, true).unwrap();
        self.m.write_u16(pb + IO_REFNUM, REFNUM as u16);
        pb
    }
    fn pstr(&mut self, s: &[u8]) -> u32 {
        let p = self.m.new_ptr(ZoneId::System, 256, true).unwrap();
        self.m.write_pstring(p, s);
        p
    }
    fn buf(&mut self, n: u32) -> u32 {
        self.m.new_ptr(ZoneId::System, n, true).unwrap()
    }
    /// An IOParam for `count` bytes at `offset` (ioPosMode 1) into `buffer`.
    fn io_pb(&mut self, buffer: u32, count: u32, offset: u32) -> u32 {
        let pb = self.pb();
        self.m.write_u32(pb + IO_BUFFER, buffer);
        self.m.write_u32(pb + IO_REQ_COUNT, count);
        self.m.write_u16(pb + IO_POS_MODE, 1);
        self.m.write_u32(pb + IO_POS_OFFSET, offset);
        pb
    }
    fn call(&mut self, name: &str, pb: u32) -> i16 {
        self.m.call(name, &[pb]).unwrap().d0 as i16
    }
    fn try_call(&mut self, name: &str, args: &[u32]) -> Result<u32, RunError> {
        self.m.call(name, args).map(|r| r.d0)
    }
    fn dce(&self) -> u32 {
        self.var32("dce_ptr")
    }
    fn dce_flags(&self) -> u16 {
        self.m.read_u16(self.dce() + DCTL_FLAGS)
    }
    fn set_dce_flags(&mut self, f: u16) {
        let d = self.dce();
        self.m.write_u16(d + DCTL_FLAGS, f);
    }
    fn io_result(&self, pb: u32) -> i16 {
        self.m.read_u16(pb + IO_RESULT) as i16
    }
    fn schedule_finish(&mut self, delay: u64) {
        let f = self.addr("finish_pending");
        self.m.schedule_interrupt(
            delay,
            2,
            "test disk done",
            Box::new(move |m: &mut Machine| {
                m.call_with_registers(f, &[], ferrite_emu::Preserved::MAC_OS)?;
                Ok(())
            }),
        );
    }
}

fn misuse_text(e: &RunError) -> String {
    fn inner(f: &Fault) -> Option<String> {
        match f {
            Fault::Misuse { message, .. } => Some(message.clone()),
            Fault::Nested { error } => inner(&error.fault),
            _ => None,
        }
    }
    inner(&e.fault).unwrap_or_else(|| panic!("expected a misuse fault, got {e}"))
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn drvr_install_fills_the_unit_table_and_open_finds_the_driver_by_name() {
    let _ = IGNORE;
    for cpu in CPUS {
        let mut t = T::installed(cpu);
        let unit = !REFNUM as u16;
        let h = t.m.unit_table_entry(unit);
        assert_ne!(h, 0);
        assert_eq!(h, t.var32("dce_handle"));
        let dce = t.m.read_u32(h);
        assert_eq!(t.m.read_u16(dce + DCTL_REFNUM) as i16, REFNUM);
        assert_eq!(
            t.m.memory_manager().handle_size(t.m.bus(), h).unwrap(),
            DCE_SIZE
        );
        let info = t.m.driver_info(unit).unwrap();
        assert_eq!(info.name.as_deref(), Some(".TestDsk"));
        assert!(!info.is_open());
        // Not open yet: Read → notOpenErr.
        let b = t.buf(512);
        let pb = t.io_pb(b, 512, 0);
        assert_eq!(t.call("t_read", pb), NOT_OPEN_ERR, "{cpu}");
        assert_eq!(t.var32("prime_count"), 0);
        // Open by name, case-insensitively; the driver sees A0 = PB, A1 = DCE, D0 = 0, A2 = header.
        let pb = t.pb();
        t.m.write_u16(pb + IO_REFNUM, 0);
        let name = t.pstr(b".testdsk");
        t.m.write_u32(pb + IO_NAME_PTR, name);
        assert_eq!(t.call("t_open", pb), 0);
        assert_eq!(t.m.read_u16(pb + IO_REFNUM) as i16, REFNUM);
        assert_eq!(t.var32("open_count"), 1);
        assert_eq!(t.var32("entry_a0"), pb);
        assert_eq!(t.var32("entry_a1"), dce);
        assert_eq!(t.var32("entry_d0"), 0);
        assert_eq!(t.var32("entry_a2"), t.addr("drvr"));
        assert!(t.dce_flags() & D_OPENED != 0);
        // A second _Open does not call Open again.
        assert_eq!(t.call("t_open", pb), 0);
        assert_eq!(t.var32("open_count"), 1);
        // Unknown name → dInstErr (no Resource Manager to load a DRVR from).
        let other = t.pstr(b".Nope");
        t.m.write_u32(pb + IO_NAME_PTR, other);
        assert_eq!(t.call("t_open", pb), D_INST_ERR);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn synchronous_read_write_position_and_status_one() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        let data: Vec<u8> = (0..512u32).map(|i| (i * 7 + 3) as u8).collect();
        let src = t.buf(512);
        t.m.write_bytes(src, &data);
        let pb = t.io_pb(src, 512, 1024);
        assert_eq!(t.call("t_write", pb), 0, "{cpu}");
        assert_eq!(t.io_result(pb), 0);
        assert_eq!(t.m.read_u32(pb + IO_ACT_COUNT), 512);
        assert_eq!(t.m.read_u16(pb + IO_TRAP), 0xA003);
        assert_eq!(t.m.read_u16(pb + 4), IO_QTYPE);
        let disk = t.addr("disk");
        assert_eq!(t.m.read_bytes(disk + 1024, 512), data);
        assert_eq!(
            t.m.read_u32(t.dce() + DCTL_POSITION),
            1536,
            "driver advanced dCtlPosition"
        );
        // fsFromMark (3): dCtlPosition += ioPosOffset, i.e. 1536 - 512.
        let dst = t.buf(512);
        let pb = t.io_pb(dst, 512, (-512i32) as u32);
        t.m.write_u16(pb + IO_POS_MODE, 3);
        assert_eq!(t.call("t_read", pb), 0);
        assert_eq!(t.var32("last_pos"), 1024);
        assert_eq!(t.m.read_bytes(dst, 512), data);
        // Wide positioning: the flag reaches the driver in ioPosMode.
        let pb = t.io_pb(dst, 0, 0);
        t.m.write_u16(pb + IO_POS_MODE, 0x0101);
        assert_eq!(t.call("t_read", pb), 0);
        assert_eq!(t.var16("last_posmode") as u16, 0x0101);
        assert_eq!(
            t.var32("prime_count"),
            3,
            "a zero-length read reaches the driver"
        );
        // Out of range → the driver's paramErr comes back through IODone.
        let pb = t.io_pb(dst, 512, 4000);
        assert_eq!(t.call("t_read", pb), -50);
        // Status csCode 1 is answered by the DM with the DCE handle.
        let pb = t.pb();
        t.m.write_u16(pb + CS_CODE, 1);
        assert_eq!(t.call("t_status", pb), 0);
        assert_eq!(t.m.read_u32(pb + CS_PARAM), t.var32("dce_handle"));
        assert_eq!(t.var32("status_count"), 0, "the driver never sees Status 1");
        // Driver Control/Status codes; unknown codes give the driver's errors.
        t.m.write_u16(pb + CS_CODE, 100);
        assert_eq!(t.call("t_status", pb), 0);
        assert_eq!(t.m.read_u32(pb + CS_PARAM), 0x1234_5678);
        t.m.write_u32(pb + CS_PARAM, 41);
        assert_eq!(t.call("t_control", pb), 0);
        assert_eq!(t.m.read_u32(pb + CS_PARAM), 42);
        t.m.write_u16(pb + CS_CODE, 99);
        assert_eq!(t.call("t_control", pb), CONTROL_ERR);
        assert_eq!(t.call("t_status", pb), STATUS_ERR);
        assert!(t.dce_flags() & DRVR_ACTIVE == 0);
        assert_eq!(t.m.read_u32(t.dce() + DCTL_QHEAD), 0);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn asynchronous_requests_queue_and_complete_through_jiodone() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("async_mode", 1);
        let compl = t.addr("compl");
        let disk = t.addr("disk");
        t.m.write_bytes(disk, &[0x5A; 64]);
        let b1 = t.buf(64);
        let b2 = t.buf(64);
        let pb1 = t.io_pb(b1, 64, 0);
        let pb2 = t.io_pb(b2, 64, 0);
        t.m.write_u32(pb1 + IO_COMPLETION, compl);
        t.m.write_u32(pb2 + IO_COMPLETION, compl);
        assert_eq!(t.call("t_read_async", pb1), 0, "queued: D0 = 0 at once");
        assert_eq!(t.io_result(pb1), 1, "ioResult = 1 while in progress");
        assert!(t.dce_flags() & DRVR_ACTIVE != 0);
        assert_eq!(t.call("t_read_async", pb2), 0);
        assert_eq!(t.var32("prime_count"), 1, "a busy driver is not re-entered");
        assert_eq!(t.m.read_u32(t.dce() + DCTL_QHEAD), pb1);
        assert_eq!(t.m.read_u32(t.dce() + DCTL_QTAIL), pb2);
        assert_eq!(t.var32("compl_count"), 0);
        // An immediate call gets through while the driver is busy.
        let spb = t.pb();
        t.m.write_u16(spb + CS_CODE, 100);
        assert_eq!(t.call("t_status_immed", spb), 0);
        assert_eq!(t.var32("status_count"), 1);
        assert!(
            t.dce_flags() & DRVR_ACTIVE != 0,
            "immediate calls leave drvrActive alone"
        );
        // The "hardware" finishes the first request: IODone stores the result, runs the
        // completion routine and starts the second request.
        t.schedule_finish(1000);
        t.m.idle_until(
            |m| m.read_u16(pb1 + IO_RESULT) as i16 <= 0,
            60,
            "first read",
        )
        .unwrap();
        assert_eq!(t.io_result(pb1), 0);
        assert_eq!(t.var32("compl_count"), 1);
        assert_eq!(t.var32("compl_pb"), pb1);
        assert_eq!(t.var16("compl_d0"), 0);
        assert_eq!(
            t.var16("compl_ioresult"),
            0,
            "ioResult stored before ioCompletion runs"
        );
        assert_eq!(t.m.read_bytes(b1, 64), vec![0x5A; 64]);
        assert_eq!(t.var32("prime_count"), 2, "IODone started the next request");
        assert_eq!(t.io_result(pb2), 1);
        t.schedule_finish(1000);
        t.m.idle_until(
            |m| m.read_u16(pb2 + IO_RESULT) as i16 <= 0,
            60,
            "second read",
        )
        .unwrap();
        assert_eq!(t.var32("compl_count"), 2);
        assert_eq!(t.var32("compl_pb"), pb2);
        assert!(t.dce_flags() & DRVR_ACTIVE == 0);
        assert_eq!(t.m.read_u32(t.dce() + DCTL_QHEAD), 0);
        assert_eq!(t.m.device_manager().iodone_count, 2);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn synchronous_call_waits_while_a_vbl_task_finishes_the_request() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("async_mode", 2);
        let disk = t.addr("disk");
        t.m.write_bytes(disk + 512, &[0xC3; 512]);
        let b = t.buf(512);
        let pb = t.io_pb(b, 512, 512);
        let t0 = t.m.ticks();
        assert_eq!(t.call("t_read", pb), 0, "{cpu}");
        assert!(t.m.ticks() >= t0 + 2, "the caller waited for the VBL task");
        assert_eq!(t.var32("drv_vbl_runs"), 1);
        assert_eq!(t.m.read_bytes(b, 512), vec![0xC3; 512]);
        assert_eq!(t.io_result(pb), 0);
        // A sync Control goes the same way and returns the driver's result.
        let cpb = t.pb();
        t.m.write_u16(cpb + CS_CODE, 99);
        assert_eq!(t.call("t_control", cpb), CONTROL_ERR);
        assert_eq!(t.var32("drv_vbl_runs"), 2);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn killio_aborts_every_pending_request() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("async_mode", 1);
        let compl = t.addr("compl");
        let b = t.buf(64);
        let pbs: Vec<u32> = (0..3).map(|_| t.io_pb(b, 64, 0)).collect();
        for &pb in &pbs {
            t.m.write_u32(pb + IO_COMPLETION, compl);
            assert_eq!(t.call("t_read_async", pb), 0);
        }
        // A driver that refuses (kill_result ≠ 0) keeps its queue.
        t.set16("kill_result", -1);
        let kpb = t.pb();
        assert_eq!(t.call("t_killio", kpb), -1, "{cpu}");
        assert_eq!(t.var16("last_cscode"), KILL_CODE);
        assert_eq!(t.var16("last_ctl_trap") as u16, 0xA206);
        assert!(pbs.iter().all(|&pb| t.io_result(pb) == 1));
        t.set16("kill_result", 0);
        assert_eq!(t.call("t_killio", kpb), 0);
        assert_eq!(t.var32("kill_count"), 2);
        for &pb in &pbs {
            assert_eq!(t.io_result(pb), ABORT_ERR);
        }
        assert_eq!(t.var32("compl_count"), 3);
        assert_eq!(t.var16("compl_d0"), ABORT_ERR);
        assert!(t.dce_flags() & DRVR_ACTIVE == 0);
        assert_eq!(t.m.read_u32(t.dce() + DCTL_QHEAD), 0);
        assert_eq!(
            t.var32("prime_count"),
            1,
            "the aborted requests never reached Prime"
        );
        // The driver still works afterwards.
        t.set8("async_mode", 0);
        let pb = t.io_pb(b, 64, 0);
        assert_eq!(t.call("t_read", pb), 0);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn accrun_runs_every_drvr_delay_ticks_and_posts_a_disk_event_once_events_are_on() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set_dce_flags(t.dce_flags() | D_NEED_TIME);
        let d = t.dce();
        t.m.write_u16(d + DCTL_DELAY, 10);
        // Interrupts alone never run accRun: it comes from SystemTask.
        let t0 = t.m.ticks();
        t.m.idle_until(|m| m.ticks() >= t0 + 20, 200, "20 ticks")
            .unwrap();
        assert_eq!(
            t.var32("accrun_count"),
            0,
            "{cpu}: accRun without SystemTask"
        );
        let t0 = t.m.ticks();
        t.m.write_u32(d + DCTL_CUR_TICKS, t0);
        t.set16("post_drive", 8);
        t.m.events_off_until(t0 + 35, ferrite_emu::events::DEFAULT_SYS_EVT_MASK);
        t.m.run_event_loop(100).unwrap();
        assert_eq!(t.var32("accrun_count"), 10, "{cpu}");
        assert_eq!(t.var16("last_cscode"), ACC_RUN);
        assert_eq!(
            t.var16("last_ctl_trap") as u16,
            0xA204,
            "accRun is an immediate Control"
        );
        assert_eq!(t.var32("last_accrun_tick"), t0 + 100);
        // Posting failed at ticks 10, 20, 30 (events off) and worked at 40.
        assert_eq!(t.var32("post_tries"), 4);
        let refused = t.m.refused_events();
        assert_eq!(refused.len(), 3);
        assert_eq!(t.m.disk_events(), vec![8]);
        assert_eq!(t.m.posted_events()[0].tick, t0 + 40);
        // Without dNeedTime nothing more happens.
        t.set_dce_flags(t.dce_flags() & !D_NEED_TIME);
        t.m.run_event_loop(50).unwrap();
        assert_eq!(t.var32("accrun_count"), 10);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn shutdown_sends_goodbye_to_drivers_that_ask_for_it() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        assert_eq!(t.m.shutdown().unwrap(), Vec::<i16>::new());
        assert_eq!(t.var32("goodbye_count"), 0);
        t.set_dce_flags(t.dce_flags() | D_NEED_GOODBYE);
        assert_eq!(t.m.shutdown().unwrap(), vec![REFNUM], "{cpu}");
        assert_eq!(t.var32("goodbye_count"), 1);
        assert_eq!(t.var16("last_cscode"), GOODBYE);
        assert_eq!(t.var16("last_ctl_trap") as u16, 0xA204);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn refnum_enable_and_open_checks_give_the_documented_errors() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        let b = t.buf(512);
        let pb = t.io_pb(b, 512, 0);
        for (rn, err) in [
            (5i16, BAD_UNIT_ERR),
            (-60, UNIT_EMPTY_ERR),
            (-100, BAD_UNIT_ERR),
            (0, BAD_UNIT_ERR),
        ] {
            t.m.write_u16(pb + IO_REFNUM, rn as u16);
            assert_eq!(t.call("t_read", pb), err, "refNum {rn} on {cpu}");
            assert_eq!(t.io_result(pb), err);
            assert_eq!(t.call("t_control", pb), err);
        }
        t.m.write_u16(pb + IO_REFNUM, REFNUM as u16);
        let all = t.dce_flags();
        t.set_dce_flags(all & !D_READ_ENABLE);
        assert_eq!(t.call("t_read", pb), READ_ERR);
        t.set_dce_flags(all & !D_WRIT_ENABLE);
        assert_eq!(t.call("t_write", pb), WRIT_ERR);
        t.set_dce_flags(all & !D_CTL_ENABLE);
        assert_eq!(t.call("t_control", pb), CONTROL_ERR);
        assert_eq!(t.call("t_killio", pb), CONTROL_ERR);
        t.set_dce_flags(all & !D_STAT_ENABLE);
        assert_eq!(t.call("t_status", pb), STATUS_ERR);
        t.set_dce_flags(all);
        assert_eq!(
            t.var32("prime_count") + t.var32("ctl_count") + t.var32("status_count"),
            0
        );
        // An async call refused up front still runs its completion routine.
        let compl = t.addr("compl");
        t.m.write_u32(pb + IO_COMPLETION, compl);
        t.m.write_u16(pb + IO_REFNUM, (-60i16) as u16);
        assert_eq!(t.call("t_read_async", pb), UNIT_EMPTY_ERR);
        assert_eq!(t.var32("compl_count"), 1);
        assert_eq!(t.var16("compl_d0"), UNIT_EMPTY_ERR);
        // Close, then requests get notOpenErr; closErr keeps the driver open.
        let cpb = t.pb();
        t.set16("close_result", CLOS_ERR);
        assert_eq!(t.call("t_close", cpb), CLOS_ERR);
        assert!(t.dce_flags() & D_OPENED != 0);
        t.set16("close_result", 0);
        assert_eq!(t.call("t_close", cpb), 0);
        assert!(t.dce_flags() & D_OPENED == 0);
        t.m.write_u16(pb + IO_REFNUM, REFNUM as u16);
        t.m.write_u32(pb + IO_COMPLETION, 0);
        assert_eq!(t.call("t_read", pb), NOT_OPEN_ERR);
        assert_eq!(t.call("t_killio", pb), NOT_OPEN_ERR);
        // _DrvrRemove: bad unit, then success (closed); the entry is empty again.
        assert_eq!(
            t.try_call("drvr_remove", &[5]).unwrap() as i16,
            BAD_UNIT_ERR
        );
        assert_eq!(
            t.try_call("drvr_remove", &[REFNUM as u16 as u32]).unwrap() as i16,
            0
        );
        assert_eq!(t.m.unit_table_entry(!REFNUM as u16), 0);
        assert_eq!(t.call("t_read", pb), UNIT_EMPTY_ERR);
        assert_eq!(
            t.try_call("drvr_install", &[(-200i16) as u16 as u32])
                .unwrap() as i16,
            BAD_UNIT_ERR
        );
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn drvr_remove_of_an_open_driver_and_install_over_one_are_refused() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        assert_eq!(
            t.try_call("drvr_remove", &[REFNUM as u16 as u32]).unwrap() as i16,
            D_REMOV_ERR,
            "{cpu}"
        );
        let e = t
            .try_call("drvr_install", &[REFNUM as u16 as u32])
            .unwrap_err();
        assert!(misuse_text(&e).contains("already holds"), "{e}");
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn iodone_for_an_immediate_call_fails_the_run() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("bad_immed_iodone", 1);
        let pb = t.pb();
        t.m.write_u16(pb + CS_CODE, 100);
        let e = t.try_call("t_status_immed", &[pb]).unwrap_err();
        assert!(misuse_text(&e).contains("immediate"), "{cpu}: {e}");
    }
}

/// accRun (immediate) → synchronous `_Read` of the same driver → Prime → IODone: the IODone
/// completes the queued `_Read`, which is legitimate (what `_MountVol` from accRun does).
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_synchronous_read_from_accrun_completes_through_iodone() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set_dce_flags(t.dce_flags() | D_NEED_TIME);
        let b = t.buf(16);
        t.m.write_bytes(b, b"accRun reads it!");
        let pb = t.io_pb(b, 16, 0);
        assert_eq!(t.call("t_write", pb), 0);
        t.set8("accrun_read", 1);
        t.m.run_event_loop(2).unwrap();
        assert_eq!(t.var16("accrun_read_result"), 0, "{cpu}");
        let buf = t.addr("accrun_buf");
        assert_eq!(t.m.read_bytes(buf, 16), b"accRun reads it!", "{cpu}");
        // The immediate accRun itself still must not end with IODone.
        t.set8("bad_immed_iodone", 1);
        let e = t.m.run_event_loop(2).unwrap_err();
        assert!(format!("{e:?}").contains("immediate"), "{cpu}: {e:?}");
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn completing_a_request_twice_fails_the_run() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("double_iodone", 1);
        let b = t.buf(16);
        let pb = t.io_pb(b, 16, 0);
        let e = t.try_call("t_read", &[pb]).unwrap_err();
        assert!(
            misuse_text(&e).contains("no request in progress"),
            "{cpu}: {e}"
        );
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn iodone_with_a_bad_dce_fails_the_run() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        // finish_pending with a made-up DCE pointer.
        let pd = t.addr("pending_dce");
        let bogus = t.buf(64);
        t.m.write_u32(pd, bogus);
        let f = t.addr("finish_pending");
        let e =
            t.m.call_with_registers(f, &[], ferrite_emu::Preserved::MAC_OS)
                .unwrap_err();
        assert!(misuse_text(&e).contains("not the DCE"), "{cpu}: {e}");
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn add_drive_links_the_element_and_the_host_reads_the_drive_queue() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        assert_eq!(t.try_call("add_drive", &[8]).unwrap(), 0, "{cpu}");
        let drives = t.m.drives();
        assert_eq!(drives.len(), 1);
        let d = &drives[0];
        assert_eq!(d.element, t.addr("dqel"));
        assert_eq!((d.number, d.ref_num, d.blocks, d.q_type), (8, REFNUM, 8, 1));
        assert_eq!((d.disk_in_place, d.installed, d.locked()), (8, 1, false));
        assert_eq!(t.m.read_u32(lowmem::DRV_Q_HDR + 2), d.element);
        // A second element at the tail, in a _NewPtr block.
        let blk = t.m.new_ptr(ZoneId::System, 20, true).unwrap();
        let el = blk + 4;
        t.m.write_u16(el + 4, 0);
        t.m.write_u16(el + 12, 300);
        t.m.write_u16(el + 14, 7); // ignored with qType 0
        assert_eq!(
            t.try_call("add_drive_at", &[el, (9 << 16) | (REFNUM as u16 as u32)])
                .unwrap(),
            0
        );
        let drives = t.m.drives();
        assert_eq!(
            drives.iter().map(|d| d.number).collect::<Vec<_>>(),
            vec![8, 9]
        );
        assert_eq!(drives[1].blocks, 300);
        assert_eq!(t.m.read_u32(lowmem::DRV_Q_HDR + 6), el);
        // Duplicate number, element on the stack, in a handle: misuse.
        let e = t
            .try_call("add_drive_at", &[el, (9 << 16) | 0xFFDF])
            .unwrap_err();
        assert!(
            misuse_text(&e).contains("already in the drive queue"),
            "{e}"
        );
        let blk2 = t.m.new_ptr(ZoneId::System, 20, true).unwrap();
        let e = t
            .try_call("add_drive_at", &[blk2 + 4, (8 << 16) | 0xFFDF])
            .unwrap_err();
        assert!(misuse_text(&e).contains("already used"), "{e}");
        let e = t
            .try_call("add_drive_at", &[blk2 + 5, (10 << 16) | 0xFFDF])
            .unwrap_err();
        assert!(misuse_text(&e).contains("odd"), "{e}");
        let stack = t.m.layout().stack.1 - 256;
        let e = t
            .try_call("add_drive_at", &[stack, (10 << 16) | 0xFFDF])
            .unwrap_err();
        assert!(misuse_text(&e).contains("on the stack"), "{e}");
        let (mm, bus) = t.m.memory_manager_and_bus();
        let h = mm.new_handle(bus, ZoneId::System, 32, true).unwrap();
        let hp = t.m.read_u32(h);
        let e = t
            .try_call("add_drive_at", &[hp + 4, (10 << 16) | 0xFFDF])
            .unwrap_err();
        assert!(misuse_text(&e).contains("relocatable"), "{e}");
        // _Dequeue removes the first; the header follows.
        assert_eq!(
            t.try_call("dequeue", &[t.addr("dqel"), lowmem::DRV_Q_HDR])
                .unwrap(),
            0
        );
        assert_eq!(
            t.m.drives().iter().map(|d| d.number).collect::<Vec<_>>(),
            vec![9]
        );
        assert_eq!(t.m.read_u32(lowmem::DRV_Q_HDR + 2), el);
        assert_eq!(
            t.try_call("dequeue", &[t.addr("dqel"), lowmem::DRV_Q_HDR])
                .unwrap() as i16,
            -1
        );
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn post_event_respects_sys_evt_mask() {
    for cpu in CPUS {
        let mut t = T::new(cpu);
        assert_eq!(t.try_call("post_event", &[7, 8]).unwrap(), 0, "{cpu}");
        assert_eq!(t.m.disk_events(), vec![8]);
        let now = t.m.ticks();
        t.m.events_off_until(now + 5, 0xFFFF);
        assert_eq!(t.m.read_u16(lowmem::SYS_EVT_MASK), 0);
        assert_eq!(t.try_call("post_event", &[7, 9]).unwrap(), 1, "evtNotEnb");
        assert_eq!(t.m.disk_events(), vec![8]);
        assert_eq!(t.m.refused_events().len(), 1);
        t.m.idle_until(|m| m.ticks() >= now + 5, 10, "events on")
            .unwrap();
        assert_eq!(t.m.read_u16(lowmem::SYS_EVT_MASK), 0xFFFF);
        assert_eq!(t.try_call("post_event", &[7, 9]).unwrap(), 0);
        assert_eq!(t.m.disk_events(), vec![8, 9]);
        t.m.set_sys_evt_mask(!(1u16 << 7));
        assert_eq!(t.try_call("post_event", &[7, 10]).unwrap(), 1);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn vbl_tasks_count_down_run_and_can_be_removed() {
    for cpu in CPUS {
        let mut t = T::new(cpu);
        let task = t.addr("vtask");
        t.m.write_u16(task + 4, 3); // wrong qType
        assert_eq!(t.try_call("vinstall", &[task]).unwrap() as i16, -2, "{cpu}");
        t.m.write_u16(task + 4, 1);
        let proc_ = t.addr("t_vproc");
        t.m.write_u32(task + 6, proc_);
        t.m.write_u16(task + 10, 3);
        assert_eq!(t.try_call("vinstall", &[task]).unwrap(), 0);
        let t0 = t.m.ticks();
        t.m.idle_until(|m| m.ticks() >= t0 + 10, 20, "ticks")
            .unwrap();
        assert_eq!(t.var32("tvbl_runs"), 1, "ran once; vblCount left 0");
        assert_eq!(t.var32("tvbl_last_tick"), t0 + 3);
        assert_eq!(
            t.m.vbl_tasks(),
            vec![task],
            "stays installed while inactive"
        );
        // Reload every 5 ticks.
        t.set16("tvbl_reload", 5);
        t.m.write_u16(task + 10, 1);
        let t1 = t.m.ticks();
        t.m.idle_until(|m| m.ticks() >= t1 + 11, 20, "ticks")
            .unwrap();
        assert_eq!(t.var32("tvbl_runs"), 4, "at t1+1, +6, +11");
        assert_eq!(t.try_call("vremove", &[task]).unwrap(), 0);
        assert_eq!(t.try_call("vremove", &[task]).unwrap() as i16, -1);
        let t2 = t.m.ticks();
        t.m.idle_until(|m| m.ticks() >= t2 + 10, 20, "ticks")
            .unwrap();
        assert_eq!(t.var32("tvbl_runs"), 4);
        // A task record in a relocatable block is refused.
        let (mm, bus) = t.m.memory_manager_and_bus();
        let h = mm.new_handle(bus, ZoneId::System, 16, true).unwrap();
        let hp = t.m.read_u32(h);
        let e = t.try_call("vinstall", &[hp]).unwrap_err();
        assert!(misuse_text(&e).contains("relocatable"), "{e}");
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn gestalt_answers_the_selectors_a_driver_asks() {
    for cpu in CPUS {
        let mut t = T::new(cpu);
        let g = |t: &mut T, s: &[u8; 4]| {
            let r = t.try_call("gestalt", &[ostype(s)]).unwrap() as i16;
            (r, t.var32("gestalt_resp"))
        };
        assert_eq!(g(&mut t, b"sysv"), (0, 0x0755));
        assert_eq!(g(&mut t, b"proc"), (0, cpu.cpu_flag() as u32 + 1));
        assert_eq!(g(&mut t, b"cput"), (0, cpu.cpu_flag() as u32));
        assert_eq!(g(&mut t, b"vm  "), (0, 0));
        assert_eq!(
            g(&mut t, b"scsi").0,
            -5551,
            "no SCSI Manager 4.3 by default"
        );
        t.m.set_gestalt(ostype(b"scsi"), Some(1));
        assert_eq!(g(&mut t, b"scsi"), (0, 1));
        assert_eq!(g(&mut t, b"zzzz").0, -5551);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn code_copied_at_run_time_needs_an_instruction_cache_flush() {
    for cpu in CPUS {
        let mut t = T::new(cpu);
        let dst = t.buf(16);
        let e = t.try_call("reloc_test", &[dst, 0]).unwrap_err();
        assert!(
            matches!(e.fault, Fault::StaleCode { address, .. } if address == dst),
            "{cpu}: {e}"
        );
        let dst = t.buf(16);
        assert_eq!(t.try_call("reloc_test", &[dst, 1]).unwrap(), 42);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn host_device_call_reads_like_the_boot_code_would() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("async_mode", 2);
        let disk = t.addr("disk");
        t.m.write_bytes(disk, b"LK");
        let b = t.buf(1024);
        let pb = t.io_pb(b, 1024, 0);
        assert_eq!(t.m.device_call(0xA002, pb).unwrap(), 0, "{cpu}");
        assert_eq!(t.m.read_bytes(b, 2), b"LK");
        assert_eq!(t.m.read_u32(pb + IO_ACT_COUNT), 1024);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_completion_routine_can_queue_the_next_request_from_inside_iodone() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("async_mode", 2);
        let chain = t.addr("compl_chain");
        let compl = t.addr("compl");
        let b = t.buf(32);
        let pb1 = t.io_pb(b, 32, 0);
        let pb2 = t.io_pb(b, 32, 64);
        t.m.write_u32(pb1 + IO_COMPLETION, chain);
        t.m.write_u32(pb2 + IO_COMPLETION, compl);
        let cp = t.addr("chain_pb");
        t.m.write_u32(cp, pb2);
        t.m.write_u16(pb2 + IO_RESULT, 0x7FFF); // not queued yet
        assert_eq!(t.call("t_read_async", pb1), 0);
        t.m.idle_until(
            |m| m.read_u16(pb2 + IO_RESULT) as i16 <= 0,
            60,
            "chained read",
        )
        .unwrap();
        assert_eq!(t.var16("chain_d0"), 0, "{cpu}");
        assert_eq!(t.var32("prime_count"), 2);
        assert_eq!(t.var32("last_pos"), 64);
        assert_eq!(t.var32("compl_count"), 2);
        assert_eq!(t.var32("compl_pb"), pb2);
        assert_eq!(t.var32("drv_vbl_runs"), 2);
        // _Close waits for queued work to finish before calling Close.
        let pb3 = t.io_pb(b, 32, 0);
        assert_eq!(t.call("t_read_async", pb3), 0);
        let cpb = t.pb();
        assert_eq!(t.call("t_close", cpb), 0);
        assert_eq!(t.io_result(pb3), 0, "the pending read finished first");
        assert_eq!(t.var32("close_count"), 1);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn trap_addresses_show_which_traps_the_model_implements() {
    for cpu in CPUS {
        let mut t = T::new(cpu);
        let unimpl = t.m.layout().trap_stub(0xA89F);
        for w in [0xA002u32, 0xA03D, 0xA04E, 0xA033, 0xA02F, 0xA0AD, 0xA098] {
            let a = t.try_call("os_trap_address", &[w]).unwrap();
            assert_ne!(a, unimpl, "${w:04X} is implemented on {cpu}");
        }
        // Traps the modelled ROM lacks report _Unimplemented's address.
        for w in [0xA089u32, 0xA058, 0xA082] {
            if !t.m.traps().is_implemented(w as u16) {
                assert_eq!(
                    t.try_call("os_trap_address", &[w]).unwrap(),
                    unimpl,
                    "${w:04X}"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_synchronous_call_nothing_finishes_fails_instead_of_hanging() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("async_mode", 1); // nobody calls finish_pending
        t.m.device_manager().config.sync_timeout_ticks = 100;
        let b = t.buf(16);
        let pb = t.io_pb(b, 16, 0);
        let e = t.try_call("t_read", &[pb]).unwrap_err();
        let text = misuse_text(&e);
        assert!(
            text.contains("still waiting after 100 ticks") && text.contains(".TestDsk"),
            "{cpu}: {text}"
        );
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn iodone_turns_a_positive_result_into_zero_and_immediate_calls_keep_their_d0() {
    for cpu in CPUS {
        let mut t = T::opened(cpu);
        t.set8("async_mode", 1);
        let compl = t.addr("compl");
        let b = t.buf(16);
        let pb = t.io_pb(b, 16, 0);
        t.m.write_u32(pb + IO_COMPLETION, compl);
        assert_eq!(t.call("t_read_async", pb), 0);
        t.set16("pending_result", 5);
        t.schedule_finish(100);
        t.m.idle_until(|m| m.read_u16(pb + IO_RESULT) as i16 <= 0, 60, "read")
            .unwrap();
        assert_eq!(t.io_result(pb), 0, "{cpu}");
        assert_eq!(t.var16("compl_d0"), 0);
        // An immediate Control returns the driver's D0 (sign-extended) and leaves the queue.
        let cpb = t.pb();
        t.m.write_u16(cpb + CS_CODE, 99);
        let r = t.m.call("t_control_immed", &[cpb]).unwrap();
        assert_eq!(r.d0, CONTROL_ERR as i32 as u32);
        assert_eq!(t.var16("last_ctl_trap") as u16, 0xA204);
        assert_eq!(t.m.device_manager().iodone_count, 1);
    }
}
