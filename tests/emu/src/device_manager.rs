//! The Device Manager: the unit table, DCEs, `_DrvrInstall`/`_DrvrRemove`, `_Open`, `_Close`,
//! `_Read`, `_Write`, `_Control`, `_Status`, `_KillIO`, `IODone` (through `JIODone`), the
//! periodic `accRun` and the shutdown `goodbye`.
//!
//! Facts: `docs/mac-facts.md` §3 (DRVR header, DCE, parameter blocks, how the
//! Device Manager calls a driver, Prime), §4.1 (Control/Status codes), §9 (low memory, traps).
//! Every offset the OS fills or reads is a literal constant below with the doc's field name.
//!
//! # Unit table and DCEs
//! `UTableBase` ($11C) points at `UnitNtryCnt` ($1D2) longs, each 0 or a **DCE handle**; unit
//! *u* has refNum `~u`. `_DrvrInstall` allocates a cleared relocatable block of [`DCE_SIZE`]
//! (the 56-byte AuxDCE of Universal Interfaces 2.2+, modelling choice) in the system heap, puts
//! its handle in the table, sets `dCtlRefNum` and `dRAMBased` and nothing else (mac-facts §2.4).
//!
//! # How a request runs (mac-facts §3.4)
//! * Every call stores the full trap word in `ioTrap` and 2 in `qType`.
//! * refNum ≥ 0 or unit ≥ `UnitNtryCnt` → `badUnitErr` (−21); empty entry → `unitEmptyErr`
//!   (−22). Status `csCode` 1 is answered here (the DCE handle in `csParam`). Then the enable
//!   bit (`readErr`/`writErr`/`controlErr`/`statusErr`), then `dOpened` (`notOpenErr` −28).
//! * **Immediate** (`ioTrap` bit 9): the routine is called at once, busy or not; `drvrActive`
//!   and the queue are untouched; D0 = the routine's D0.W sign-extended. IODone must not be
//!   called for it: an IODone whose innermost call of that driver (at the same interrupt
//!   depth) is an immediate one fails the run. Queued requests started re-entrantly from inside
//!   an immediate call (accRun → `_MountVol` → `_Read`) complete through IODone normally.
//! * **Queued** (sync or async, bit 10): `qLink` = 0, `ioResult` = 1, appended to `dCtlQHdr`;
//!   if the driver is idle it is started: `drvrActive` set, `dCtlPosition` computed for Prime,
//!   the routine called with A0 = PB, A1 = DCE. The routine either jumps to IODone or returns
//!   with the request still in progress (finished later through `JIODone`). A busy driver is
//!   never re-entered for a queued request. A synchronous caller then waits with
//!   [`Machine::idle_until`] (interrupts and ticks keep running) until `ioResult ≤ 0` and gets
//!   D0 = `ioResult`; an asynchronous caller gets D0 = 0 at once.
//! * **IODone** (`JIODone` $8FC, D0 = result, A1 = DCE): `ioResult` = result, the head PB is
//!   dequeued, `drvrActive` cleared, the caller's `ioCompletion` (async only) called as guest
//!   code with A0 = PB and D0 = result under the Mac OS register convention, then the next
//!   queued request is started (re-entrantly, from inside IODone).
//! * `_KillIO`: Control `csCode` 1 to the driver (immediate); if it returns 0 every queued
//!   request is completed with `abortErr` (−27) and `drvrActive` cleared.
//! * `accRun`: `SystemTask` ([`system_task`], called by the application's event loop or, at
//!   boot and in tests, [`Machine::run_event_loop`], at application level) sends Control 65
//!   (immediate) to every open driver with `dNeedTime` whose `dCtlDelay` ticks have passed
//!   since `dCtlCurTicks`.
//! * [`Machine::shutdown`] sends Control −1 (`goodbye`, immediate) to every open driver with
//!   `dNeedGoodBye`.
//!
//! # Modelling decisions docs/mac-facts.md leaves open
//! All in [`DmConfig`] (defaults) or documented at the function: entry registers, the
//! registers a driver must preserve, `ioResult` for immediate calls, positive IODone results,
//! the `ioTrap` seen by KillIO/accRun/goodbye, zero-length transfers, early errors of async
//! calls, `_Open` by name (first match, case-insensitive ASCII, no resource loading), Open and
//! Close bookkeeping, the order of the checks.

use std::sync::Arc;

use crate::error::{Fault, RunError};
use crate::loader::Preserved;
use crate::lowmem;
use crate::machine::Machine;
use crate::memory_manager::ZoneId;
use crate::os_utils::{queue_append, queue_elements, queue_remove};
use crate::traps::TrapCall;

// ----- DRVR header (mac-facts §3.1) -----
/// `drvrFlags` (word).
pub const DRVR_FLAGS: u32 = 0;
/// `drvrDelay` (word).
pub const DRVR_DELAY: u32 = 2;
/// `drvrEMask` (word).
pub const DRVR_EMASK: u32 = 4;
/// `drvrMenu` (word).
pub const DRVR_MENU: u32 = 6;
/// `drvrOpen` (word offset from the header).
pub const DRVR_OPEN: u32 = 8;
/// `drvrPrime`.
pub const DRVR_PRIME: u32 = 10;
/// `drvrCtl`.
pub const DRVR_CTL: u32 = 12;
/// `drvrStatus`.
pub const DRVR_STATUS: u32 = 14;
/// `drvrClose`.
pub const DRVR_CLOSE: u32 = 16;
/// `drvrName` (Pascal string).
pub const DRVR_NAME: u32 = 18;

// ----- DCE (mac-facts §3.2) -----
/// `dCtlDriver` (long): pointer, or handle if `dRAMBased`.
pub const DCTL_DRIVER: u32 = 0;
/// `dCtlFlags` (word).
pub const DCTL_FLAGS: u32 = 4;
/// `dCtlQHdr` (10-byte QHdr: qFlags @6, qHead @8, qTail @12).
pub const DCTL_QHDR: u32 = 6;
/// `dCtlQHdr.qHead`: the current request.
pub const DCTL_QHEAD: u32 = 8;
/// `dCtlQHdr.qTail`.
pub const DCTL_QTAIL: u32 = 12;
/// `dCtlPosition` (long).
pub const DCTL_POSITION: u32 = 16;
/// `dCtlStorage` (long).
pub const DCTL_STORAGE: u32 = 20;
/// `dCtlRefNum` (word).
pub const DCTL_REFNUM: u32 = 24;
/// `dCtlCurTicks` (long).
pub const DCTL_CUR_TICKS: u32 = 26;
/// `dCtlWindow` (long).
pub const DCTL_WINDOW: u32 = 30;
/// `dCtlDelay` (word).
pub const DCTL_DELAY: u32 = 34;
/// `dCtlEMask` (word).
pub const DCTL_EMASK: u32 = 36;
/// `dCtlMenu` (word).
pub const DCTL_MENU: u32 = 38;
/// Size of the DCE `_DrvrInstall` allocates: the AuxDCE with `dCtlNodeID` (UI 2.2+), 56.
pub const DCE_SIZE: u32 = 56;

// ----- dCtlFlags / drvrFlags bits (mac-facts §3.1) -----
pub const D_READ_ENABLE: u16 = 0x0100;
pub const D_WRIT_ENABLE: u16 = 0x0200;
pub const D_CTL_ENABLE: u16 = 0x0400;
pub const D_STAT_ENABLE: u16 = 0x0800;
pub const D_NEED_GOODBYE: u16 = 0x1000;
pub const D_NEED_TIME: u16 = 0x2000;
pub const D_NEED_LOCK: u16 = 0x4000;
pub const D_VM_IMMUNE: u16 = 0x0001;
pub const K_DRIVER_GESTALT_ENABLE: u16 = 0x0004;
pub const D_OPENED: u16 = 0x0020;
pub const D_RAM_BASED: u16 = 0x0040;
pub const DRVR_ACTIVE: u16 = 0x0080;

// ----- parameter blocks (mac-facts §3.3) -----
pub const PB_QLINK: u32 = 0;
pub const PB_QTYPE: u32 = 4;
pub const IO_TRAP: u32 = 6;
pub const IO_CMD_ADDR: u32 = 8;
pub const IO_COMPLETION: u32 = 12;
pub const IO_RESULT: u32 = 16;
pub const IO_NAME_PTR: u32 = 18;
pub const IO_VREFNUM: u32 = 22;
pub const IO_REFNUM: u32 = 24;
pub const IO_BUFFER: u32 = 32;
pub const IO_REQ_COUNT: u32 = 36;
pub const IO_ACT_COUNT: u32 = 40;
pub const IO_POS_MODE: u32 = 44;
pub const IO_POS_OFFSET: u32 = 46;
pub const CS_CODE: u32 = 26;
pub const CS_PARAM: u32 = 28;
/// `ioQType` the DM stores in `qType`.
pub const IO_QTYPE: u16 = 2;
/// `ioTrap` bit 9 `noQueueBit`.
pub const NO_QUEUE_BIT: u16 = 0x0200;
/// `ioTrap` bit 10 `asyncTrpBit`.
pub const ASYNC_TRP_BIT: u16 = 0x0400;
/// `ioPosMode` `kUseWidePositioning`.
pub const K_USE_WIDE_POSITIONING: u16 = 0x0100;

// ----- csCodes (mac-facts §4.1) -----
pub const KILL_CODE: i16 = 1;
pub const ACC_RUN: i16 = 65;
pub const GOODBYE: i16 = -1;

// ----- results (mac-facts §9.3) -----
pub const NO_ERR: i16 = 0;
pub const CONTROL_ERR: i16 = -17;
pub const STATUS_ERR: i16 = -18;
pub const READ_ERR: i16 = -19;
pub const WRIT_ERR: i16 = -20;
pub const BAD_UNIT_ERR: i16 = -21;
pub const UNIT_EMPTY_ERR: i16 = -22;
pub const OPEN_ERR: i16 = -23;
pub const CLOS_ERR: i16 = -24;
pub const D_REMOV_ERR: i16 = -25;
pub const D_INST_ERR: i16 = -26;
pub const ABORT_ERR: i16 = -27;
pub const NOT_OPEN_ERR: i16 = -28;
pub const MEM_FULL_ERR: i16 = -108;

/// What A2 holds when the DM enters a driver routine (UNCONFIRMED, mac-facts §3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryA2 {
    /// Left as the caller had it.
    Untouched,
    /// The DRVR header (the hypothesis in docs/mac-facts.md; default).
    Header,
    /// The routine's own address (what the third-party Executor does).
    Routine,
}

/// Device Manager modelling choices (each one UNCONFIRMED or not covered by docs/mac-facts.md).
#[derive(Debug, Clone)]
pub struct DmConfig {
    /// D0 on entry to a driver routine: `Some(0)` per the hypothesis in docs/mac-facts.md, `None` =
    /// left as it was.
    pub entry_d0: Option<u32>,
    /// A2 on entry to a driver routine.
    pub entry_a2: EntryA2,
    /// Registers a driver routine must give back unchanged (checked; default the Mac OS
    /// convention D3–D7/A2–A6, which docs/mac-facts.md recommends drivers keep).
    pub driver_preserved: Preserved,
    /// How long a synchronous call waits for `ioResult ≤ 0` before it fails as a hang.
    pub sync_timeout_ticks: u32,
    /// IODone turns a positive result into 0 (mac-facts §3.4 hypothesis; default true).
    pub iodone_positive_to_zero: bool,
    /// The DM copies an immediate call's D0 into `ioResult` (mac-facts §3.4: believed not; default
    /// false, so a driver must store it itself).
    pub immediate_sets_ioresult: bool,
    /// `ioTrap` the driver sees for KillIO's Control `killCode` (default `$A206`: KillIO with
    /// the immediate bit, so a driver that completes non-immediate calls through IODone
    /// returns with RTS).
    pub killio_trap_word: u16,
    /// `ioTrap` for the periodic `accRun` Control (default `$A204`, Control immediate).
    pub accrun_trap_word: u16,
    /// `ioTrap` for the shutdown `goodbye` Control (default `$A204`).
    pub goodbye_trap_word: u16,
    /// A Read/Write of 0 bytes is completed by the DM without calling the driver (mac-facts §3.4:
    /// UNCONFIRMED; default false, the driver gets it).
    pub zero_length_skips_driver: bool,
    /// An async call refused before it is queued (bad refNum, not open, not enabled) still
    /// runs its `ioCompletion` (default true).
    pub complete_early_errors_async: bool,
}

impl Default for DmConfig {
    fn default() -> Self {
        DmConfig {
            entry_d0: Some(0),
            entry_a2: EntryA2::Header,
            driver_preserved: Preserved::MAC_OS,
            sync_timeout_ticks: 3600,
            iodone_positive_to_zero: true,
            immediate_sets_ioresult: false,
            killio_trap_word: 0xA206,
            accrun_trap_word: 0xA204,
            goodbye_trap_word: 0xA204,
            zero_length_skips_driver: false,
            complete_early_errors_async: true,
        }
    }
}

/// A DM call into a driver routine that has not returned yet.
#[derive(Debug, Clone, Copy)]
struct DriverCall {
    dce: u32,
    /// Not a queued request: IODone must not be called for it.
    direct: bool,
    /// Interrupt nesting depth when the call started.
    irq_depth: u32,
}

/// Which routine of the DRVR header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routine {
    Open,
    Prime,
    Control,
    Status,
    Close,
}

impl Routine {
    fn offset_field(self) -> u32 {
        match self {
            Routine::Open => DRVR_OPEN,
            Routine::Prime => DRVR_PRIME,
            Routine::Control => DRVR_CTL,
            Routine::Status => DRVR_STATUS,
            Routine::Close => DRVR_CLOSE,
        }
    }
}

/// Per-machine Device Manager state.
#[derive(Default)]
pub struct DeviceManager {
    /// Modelling choices; change before the calls they should affect.
    pub config: DmConfig,
    installed: bool,
    calls: Vec<DriverCall>,
    accrun_pb: u32,
    goodbye_pb: u32,
    /// Requests completed through IODone.
    pub iodone_count: u64,
    /// `accRun` calls made.
    pub accrun_count: u64,
    /// `goodbye` calls made by [`Machine::shutdown`].
    pub goodbye_count: u64,
}

/// A request refused with a Mac OS error, or a run failure.
enum DmError {
    Code(i16),
    Fault(Fault),
}

impl From<Fault> for DmError {
    fn from(f: Fault) -> Self {
        DmError::Fault(f)
    }
}
impl From<RunError> for DmError {
    fn from(e: RunError) -> Self {
        DmError::Fault(e.into())
    }
}

fn misuse(word: u16, msg: impl Into<String>) -> Fault {
    if word & 0xF000 == 0xA000 {
        Fault::misuse(word, msg)
    } else {
        Fault::Misuse {
            trap: None,
            message: msg.into(),
        }
    }
}

fn dm(m: &mut Machine) -> &mut DeviceManager {
    m.state::<DeviceManager>()
}

fn config(m: &mut Machine) -> DmConfig {
    dm(m).config.clone()
}

fn sext(v: u32) -> u32 {
    v as u16 as i16 as i32 as u32
}

/// An installed driver as the host sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverInfo {
    pub unit: u16,
    pub ref_num: i16,
    pub dce_handle: u32,
    pub dce: u32,
    /// DRVR header (None while `dCtlDriver` is 0).
    pub header: Option<u32>,
    pub name: Option<String>,
    pub flags: u16,
}

impl DriverInfo {
    pub fn is_open(&self) -> bool {
        self.flags & D_OPENED != 0
    }
    pub fn is_active(&self) -> bool {
        self.flags & DRVR_ACTIVE != 0
    }
}

impl Machine {
    /// `UnitNtryCnt`.
    pub fn unit_count(&self) -> u16 {
        self.read_u16(lowmem::UNIT_NTRY_CNT)
    }

    /// The DCE handle in unit-table entry `unit` (0 = empty).
    pub fn unit_table_entry(&self, unit: u16) -> u32 {
        let base = self.read_u32(lowmem::UTABLE_BASE);
        self.read_u32(base + 4 * unit as u32)
    }

    /// The DCE pointer of driver `ref_num` (None if the refNum is bad or the entry empty).
    pub fn dce_for_refnum(&self, ref_num: i16) -> Option<u32> {
        let unit = unit_of(ref_num)?;
        if unit >= self.unit_count() {
            return None;
        }
        let h = self.unit_table_entry(unit);
        (h != 0 && self.bus().in_ram(h, 4)).then(|| self.read_u32(h))
    }

    /// Every occupied unit-table entry.
    pub fn drivers(&self) -> Vec<DriverInfo> {
        (0..self.unit_count())
            .filter_map(|u| self.driver_info(u))
            .collect()
    }

    /// The driver in unit `unit`, if any.
    pub fn driver_info(&self, unit: u16) -> Option<DriverInfo> {
        let h = self.unit_table_entry(unit);
        if h == 0 || !self.bus().in_ram(h, 4) {
            return None;
        }
        let dce = self.read_u32(h);
        if !self.bus().in_ram(dce, DCE_SIZE) {
            return None;
        }
        let header = header_of(self, dce).ok();
        let name = header
            .map(|hd| String::from_utf8_lossy(&self.read_pstring(hd + DRVR_NAME)).into_owned());
        Some(DriverInfo {
            unit,
            ref_num: !(unit as i16),
            dce_handle: h,
            dce,
            header,
            name,
            flags: self.read_u16(dce + DCTL_FLAGS),
        })
    }

    /// Run a Device Manager call from the host as if guest code executed trap `word`
    /// (`$A000`–`$A006` with modifiers) with A0 = `pb`; returns D0. Synchronous calls wait
    /// (emulated time passes) like the guest's would.
    pub fn device_call(&mut self, word: u16, pb: u32) -> Result<i32, Fault> {
        let d0 = device_trap(self, word, pb)?;
        Ok(d0 as i32)
    }

    /// The Device Manager's state (configuration and counters).
    pub fn device_manager(&mut self) -> &mut DeviceManager {
        dm(self)
    }

    /// Shut down: send `goodbye` (Control −1, immediate) to every open driver with
    /// `dNeedGoodBye`, in unit order. Returns the refNums that got it.
    pub fn shutdown(&mut self) -> Result<Vec<i16>, RunError> {
        let cfg = config(self);
        let pb = dm(self).goodbye_pb;
        if pb == 0 {
            return Err(RunError::setup(
                self.model(),
                "the Device Manager is not installed",
            ));
        }
        let mut done = Vec::new();
        for d in self.drivers() {
            if d.flags & D_NEED_GOODBYE == 0 || !d.is_open() || d.header.is_none() {
                continue;
            }
            self.bus_mut().fill_host(pb, 50, 0);
            self.write_u16(pb + PB_QTYPE, IO_QTYPE);
            self.write_u16(pb + IO_TRAP, cfg.goodbye_trap_word);
            self.write_u16(pb + IO_REFNUM, d.ref_num as u16);
            self.write_u16(pb + CS_CODE, GOODBYE as u16);
            call_driver(self, d.dce, pb, Routine::Control, true)
                .map_err(|f| self.fail(f, self.pc()))?;
            dm(self).goodbye_count += 1;
            done.push(d.ref_num);
        }
        Ok(done)
    }
}

fn unit_of(ref_num: i16) -> Option<u16> {
    (ref_num < 0).then_some(!ref_num as u16)
}

/// The DRVR header of the DCE at `dce`.
fn header_of(m: &Machine, dce: u32) -> Result<u32, String> {
    let flags = m.read_u16(dce + DCTL_FLAGS);
    let mut drv = m.read_u32(dce + DCTL_DRIVER);
    if drv == 0 {
        return Err("its DCE has no driver (dCtlDriver = 0)".into());
    }
    if flags & D_RAM_BASED != 0 {
        if drv & 1 != 0 || !m.bus().in_ram(drv, 4) {
            return Err(format!(
                "dRAMBased is set but dCtlDriver ${drv:08X} is no handle"
            ));
        }
        drv = m.read_u32(drv);
    }
    if drv & 1 != 0 || !m.bus().in_ram(drv, DRVR_NAME + 1) {
        return Err(format!(
            "dCtlDriver points at ${drv:08X}, which is odd or outside RAM (is dRAMBased right?)"
        ));
    }
    Ok(drv)
}

/// DCE pointer of `ref_num`, or the Device Manager error.
fn lookup(m: &Machine, word: u16, ref_num: i16) -> Result<u32, DmError> {
    let Some(unit) = unit_of(ref_num) else {
        return Err(DmError::Code(BAD_UNIT_ERR));
    };
    if unit >= m.unit_count() {
        return Err(DmError::Code(BAD_UNIT_ERR));
    }
    let h = m.unit_table_entry(unit);
    if h == 0 {
        return Err(DmError::Code(UNIT_EMPTY_ERR));
    }
    if m.memory_manager().handle_size(m.bus(), h).is_err() {
        return Err(misuse(
            word,
            format!("unit-table entry {unit} holds ${h:08X}, which is not a live handle"),
        )
        .into());
    }
    Ok(m.read_u32(h))
}

fn driver_name(m: &Machine, dce: u32) -> String {
    match header_of(m, dce) {
        Ok(h) => String::from_utf8_lossy(&m.read_pstring(h + DRVR_NAME)).into_owned(),
        Err(_) => format!("refNum {}", m.read_u16(dce + DCTL_REFNUM) as i16),
    }
}

fn flags(m: &Machine, dce: u32) -> u16 {
    m.read_u16(dce + DCTL_FLAGS)
}

fn set_flag(m: &mut Machine, dce: u32, bit: u16, on: bool) {
    let f = flags(m, dce);
    m.write_u16(dce + DCTL_FLAGS, if on { f | bit } else { f & !bit });
}

/// Call routine `which` of the driver with A0 = `pb`, A1 = `dce`; returns D0.
fn call_driver(
    m: &mut Machine,
    dce: u32,
    pb: u32,
    which: Routine,
    direct: bool,
) -> Result<u32, Fault> {
    let cfg = config(m);
    let header = header_of(m, dce).map_err(|s| {
        misuse(
            0,
            format!(
                "the Device Manager cannot call unit {}'s driver: {s}",
                !(m.read_u16(dce + DCTL_REFNUM) as i16)
            ),
        )
    })?;
    let off = m.read_u16(header + which.offset_field());
    if off == 0 || off & 1 != 0 {
        return Err(misuse(
            0,
            format!(
                "driver {} has no usable {which:?} routine (offset ${off:04X} in its header)",
                driver_name(m, dce)
            ),
        ));
    }
    let addr = header + off as u32;
    let mut regs = vec![(8usize, pb), (9usize, dce)];
    if let Some(d0) = cfg.entry_d0 {
        regs.push((0, d0));
    }
    match cfg.entry_a2 {
        EntryA2::Untouched => {}
        EntryA2::Header => regs.push((10, header)),
        EntryA2::Routine => regs.push((10, addr)),
    }
    let irq_depth = m.interrupts().depth_now();
    dm(m).calls.push(DriverCall {
        dce,
        direct,
        irq_depth,
    });
    let r = m.call_with_registers(addr, &regs, cfg.driver_preserved);
    let calls = &mut dm(m).calls;
    if let Some(i) = calls
        .iter()
        .rposition(|c| c.dce == dce && c.direct == direct && c.irq_depth == irq_depth)
    {
        calls.remove(i);
    }
    Ok(r?.0.d0)
}

/// Compute `dCtlPosition` for a Prime request (mac-facts §3.5). Wide positioning (`ioPosMode`
/// bit 8) goes through the same computation with the long at `ioPosOffset` (the high long of
/// `ioWPosOffset`): the driver must read `ioWPosOffset` itself.
fn set_position(m: &mut Machine, dce: u32, pb: u32) {
    let mode = m.read_u16(pb + IO_POS_MODE) & 3;
    let off = m.read_u32(pb + IO_POS_OFFSET);
    let pos = m.read_u32(dce + DCTL_POSITION);
    let new = match mode {
        1 => off,
        3 => pos.wrapping_add(off),
        _ => pos,
    };
    m.write_u32(dce + DCTL_POSITION, new);
}

fn routine_for(word: u16) -> Routine {
    match word & 0xFF {
        2 | 3 => Routine::Prime,
        4 => Routine::Control,
        5 => Routine::Status,
        0 => Routine::Open,
        _ => Routine::Close,
    }
}

/// If the driver is idle and has a queued request, start it.
fn start_next(m: &mut Machine, dce: u32) -> Result<(), Fault> {
    if flags(m, dce) & DRVR_ACTIVE != 0 {
        return Ok(());
    }
    let pb = m.read_u32(dce + DCTL_QHEAD);
    if pb == 0 {
        return Ok(());
    }
    set_flag(m, dce, DRVR_ACTIVE, true);
    let word = m.read_u16(pb + IO_TRAP);
    let which = routine_for(word);
    if which == Routine::Prime {
        set_position(m, dce, pb);
        crate::file_manager::io_started(m, pb);
        let cfg = config(m);
        if cfg.zero_length_skips_driver && m.read_u32(pb + IO_REQ_COUNT) == 0 {
            m.write_u32(pb + IO_ACT_COUNT, 0);
            return complete_head(m, dce, 0);
        }
    }
    call_driver(m, dce, pb, which, false)?;
    Ok(())
}

/// Call the PB's completion routine (A0 = PB, D0 = result).
fn run_completion(m: &mut Machine, pb: u32, result: i16) -> Result<(), Fault> {
    let c = m.read_u32(pb + IO_COMPLETION);
    if c == 0 {
        return Ok(());
    }
    if c & 1 != 0 || !m.bus().in_ram(c, 2) {
        return Err(misuse(
            0,
            format!("ioCompletion of the PB at ${pb:08X} is ${c:08X}, which is odd or outside RAM"),
        ));
    }
    m.call_with_registers(c, &[(8, pb), (0, result as i32 as u32)], Preserved::MAC_OS)?;
    Ok(())
}

/// IODone's work on the request at the head of `dce`'s queue.
fn complete_head(m: &mut Machine, dce: u32, result: i16) -> Result<(), Fault> {
    let pb = m.read_u32(dce + DCTL_QHEAD);
    crate::file_manager::io_ended(m, pb)?;
    m.write_u16(pb + IO_RESULT, result as u16);
    queue_remove(m, dce + DCTL_QHDR, pb).map_err(|s| misuse(0, s))?;
    set_flag(m, dce, DRVR_ACTIVE, false);
    dm(m).iodone_count += 1;
    if m.read_u16(pb + IO_TRAP) & ASYNC_TRP_BIT != 0 {
        run_completion(m, pb, result)?;
    }
    start_next(m, dce)
}

/// The DCE whose pointer is `dce`, checked against the unit table.
fn known_dce(m: &Machine, dce: u32) -> bool {
    (0..m.unit_count()).any(|u| {
        let h = m.unit_table_entry(u);
        h != 0 && m.bus().in_ram(h, 4) && m.read_u32(h) == dce
    })
}

/// `IODone` (reached through `JIODone`): D0 = result, A1 = DCE.
fn iodone(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    let dce = m.a(1);
    let d0 = m.d(0);
    if dce & 1 != 0 || !known_dce(m, dce) {
        return Err(misuse(
            0,
            format!(
                "IODone with A1 = ${dce:08X}, which is not the DCE of any driver in the unit table"
            ),
        ));
    }
    let name = driver_name(m, dce);
    // Judged on the request being completed, as a real Device Manager does (it looks at
    // `drvrActive` and the head of `dCtlQHdr` only): the innermost call of this driver at
    // this interrupt depth is the one doing the IODone. An immediate call further out is
    // legitimate — accRun (immediate) → `_MountVol` → synchronous `_Read` → Prime → IODone
    // completes that `_Read` (Inside Macintosh: Devices ch. 1, "Writing a driver").
    let depth = m.interrupts().depth_now();
    let innermost = dm(m)
        .calls
        .iter()
        .rev()
        .find(|c| c.dce == dce && c.irq_depth == depth)
        .copied();
    if innermost.is_some_and(|c| c.direct) {
        return Err(misuse(
            0,
            format!(
                "driver {name} called IODone from an immediate (or Open/Close/accRun/goodbye) call; those return with RTS and D0 = result (IM Devices ch. 1)"
            ),
        ));
    }
    let head = m.read_u32(dce + DCTL_QHEAD);
    if head == 0 || flags(m, dce) & DRVR_ACTIVE == 0 {
        return Err(misuse(
            0,
            format!(
                "driver {name} called IODone with no request in progress (completed a request twice, or after KillIO aborted it?)"
            ),
        ));
    }
    let mut result = d0 as u16 as i16;
    if result > 0 && config(m).iodone_positive_to_zero {
        result = 0;
    }
    complete_head(m, dce, result)?;
    m.set_d(0, result as i32 as u32);
    Ok(())
}

/// Finish a request refused before it reached the queue.
fn refuse(m: &mut Machine, pb: u32, word: u16, err: i16) -> Result<u32, Fault> {
    m.write_u16(pb + IO_RESULT, err as u16);
    if word & ASYNC_TRP_BIT != 0
        && word & NO_QUEUE_BIT == 0
        && config(m).complete_early_errors_async
    {
        run_completion(m, pb, err)?;
    }
    Ok(err as i32 as u32)
}

fn check_pb(m: &Machine, word: u16, pb: u32) -> Result<(), Fault> {
    if pb & 1 != 0 || !m.bus().in_ram(pb, 50) {
        return Err(misuse(
            word,
            format!("parameter block at ${pb:08X} is odd or outside RAM"),
        ));
    }
    Ok(())
}

/// Read/Write/Control/Status.
fn io_call(m: &mut Machine, word: u16, pb: u32) -> Result<u32, Fault> {
    check_pb(m, word, pb)?;
    m.write_u16(pb + IO_TRAP, word);
    m.write_u16(pb + PB_QTYPE, IO_QTYPE);
    let ref_num = m.read_u16(pb + IO_REFNUM) as i16;
    let dce = match lookup(m, word, ref_num) {
        Ok(d) => d,
        Err(DmError::Code(e)) => return refuse(m, pb, word, e),
        Err(DmError::Fault(f)) => return Err(f),
    };
    let kind = word & 0xFF;
    if kind == 5 && m.read_u16(pb + CS_CODE) as i16 == 1 {
        // Status csCode 1: the DM answers with the DCE handle (mac-facts §3.4).
        let h = m.unit_table_entry(unit_of(ref_num).unwrap());
        m.write_u32(pb + CS_PARAM, h);
        return refuse(m, pb, word, NO_ERR);
    }
    let (bit, err) = match kind {
        2 => (D_READ_ENABLE, READ_ERR),
        3 => (D_WRIT_ENABLE, WRIT_ERR),
        4 => (D_CTL_ENABLE, CONTROL_ERR),
        _ => (D_STAT_ENABLE, STATUS_ERR),
    };
    let f = flags(m, dce);
    if f & bit == 0 {
        return refuse(m, pb, word, err);
    }
    if f & D_OPENED == 0 {
        return refuse(m, pb, word, NOT_OPEN_ERR);
    }
    let cfg = config(m);
    if word & NO_QUEUE_BIT != 0 {
        let which = routine_for(word);
        if which == Routine::Prime {
            set_position(m, dce, pb);
            crate::file_manager::io_started(m, pb);
        }
        let d0 = sext(call_driver(m, dce, pb, which, true)?);
        if which == Routine::Prime {
            crate::file_manager::io_ended(m, pb)?;
        }
        if cfg.immediate_sets_ioresult {
            m.write_u16(pb + IO_RESULT, d0 as u16);
        }
        return Ok(d0);
    }
    m.write_u16(pb + IO_RESULT, 1);
    queue_append(m, dce + DCTL_QHDR, pb);
    start_next(m, dce)?;
    if word & ASYNC_TRP_BIT != 0 {
        return Ok(0);
    }
    wait_for(m, word, pb, dce, cfg.sync_timeout_ticks)?;
    Ok(sext(m.read_u16(pb + IO_RESULT) as u32))
}

fn wait_for(m: &mut Machine, word: u16, pb: u32, dce: u32, timeout: u32) -> Result<(), Fault> {
    if (m.read_u16(pb + IO_RESULT) as i16) <= 0 {
        return Ok(());
    }
    let what = format!(
        "synchronous ${word:04X} to driver {} (PB ${pb:08X})",
        driver_name(m, dce)
    );
    m.idle_until(
        move |m| (m.read_u16(pb + IO_RESULT) as i16) <= 0,
        timeout,
        &what,
    )
}

/// `_Open` by driver name (`ioNamePtr`, must start with '.').
fn open_call(m: &mut Machine, word: u16, pb: u32) -> Result<u32, Fault> {
    check_pb(m, word, pb)?;
    m.write_u16(pb + IO_TRAP, word);
    m.write_u16(pb + PB_QTYPE, IO_QTYPE);
    let np = m.read_u32(pb + IO_NAME_PTR);
    if np == 0 || !m.bus().in_ram(np, 1) || !m.bus().in_ram(np, 1 + m.read_u8(np) as u32) {
        return Err(misuse(
            word,
            format!("_Open: ioNamePtr ${np:08X} is not a string in RAM"),
        ));
    }
    let name = m.read_pstring(np);
    if name.first() != Some(&b'.') {
        return Err(misuse(
            word,
            format!(
                "_Open of \"{}\": opening files (names not starting with '.') is not modelled",
                String::from_utf8_lossy(&name)
            ),
        ));
    }
    // First match in unit order, case-insensitive ASCII (modelling choice; mac-facts §2.4 item 6).
    let found = m.drivers().into_iter().find(|d| {
        d.header
            .map(|h| m.read_pstring(h + DRVR_NAME).eq_ignore_ascii_case(&name))
            .unwrap_or(false)
    });
    let Some(d) = found else {
        // The real _Open would look for a DRVR resource; no Resource Manager is modelled.
        return refuse(m, pb, word, D_INST_ERR);
    };
    m.write_u16(pb + IO_REFNUM, d.ref_num as u16);
    let result = if d.is_open() {
        NO_ERR
    } else {
        let r = call_driver(m, d.dce, pb, Routine::Open, true)? as u16 as i16;
        if r >= 0 {
            set_flag(m, d.dce, D_OPENED, true);
        }
        r
    };
    refuse(m, pb, word, result)
}

/// `_Close` by `ioRefNum`. Waits until the driver is idle, then calls Close; `closErr` keeps
/// it open, any other result closes it. A driver that is not open gets `notOpenErr`.
fn close_call(m: &mut Machine, word: u16, pb: u32) -> Result<u32, Fault> {
    check_pb(m, word, pb)?;
    m.write_u16(pb + IO_TRAP, word);
    m.write_u16(pb + PB_QTYPE, IO_QTYPE);
    let ref_num = m.read_u16(pb + IO_REFNUM) as i16;
    let dce = match lookup(m, word, ref_num) {
        Ok(d) => d,
        Err(DmError::Code(e)) => return refuse(m, pb, word, e),
        Err(DmError::Fault(f)) => return Err(f),
    };
    if flags(m, dce) & D_OPENED == 0 {
        return refuse(m, pb, word, NOT_OPEN_ERR);
    }
    if flags(m, dce) & DRVR_ACTIVE != 0 || m.read_u32(dce + DCTL_QHEAD) != 0 {
        let t = config(m).sync_timeout_ticks;
        let what = format!(
            "_Close of {} waiting for its queued requests",
            driver_name(m, dce)
        );
        m.idle_until(
            move |m| flags(m, dce) & DRVR_ACTIVE == 0 && m.read_u32(dce + DCTL_QHEAD) == 0,
            t,
            &what,
        )?;
    }
    let r = call_driver(m, dce, pb, Routine::Close, true)? as u16 as i16;
    if r != CLOS_ERR {
        set_flag(m, dce, D_OPENED, false);
    }
    refuse(m, pb, word, r)
}

/// `_KillIO`: Control killCode (immediate) to an open, control-enabled driver; on 0 every
/// queued request ends with `abortErr`. The caller's PB gets `csCode` = 1 and
/// `ioTrap` = [`DmConfig::killio_trap_word`] for the driver call.
fn killio_call(m: &mut Machine, word: u16, pb: u32) -> Result<u32, Fault> {
    check_pb(m, word, pb)?;
    m.write_u16(pb + PB_QTYPE, IO_QTYPE);
    m.write_u16(pb + IO_TRAP, word);
    let ref_num = m.read_u16(pb + IO_REFNUM) as i16;
    let dce = match lookup(m, word, ref_num) {
        Ok(d) => d,
        Err(DmError::Code(e)) => return Ok(sext(e as u16 as u32)),
        Err(DmError::Fault(f)) => return Err(f),
    };
    let f = flags(m, dce);
    if f & D_OPENED == 0 {
        m.write_u16(pb + IO_RESULT, NOT_OPEN_ERR as u16);
        return Ok(sext(NOT_OPEN_ERR as u16 as u32));
    }
    if f & D_CTL_ENABLE == 0 {
        m.write_u16(pb + IO_RESULT, CONTROL_ERR as u16);
        return Ok(sext(CONTROL_ERR as u16 as u32));
    }
    let trap = config(m).killio_trap_word;
    m.write_u16(pb + IO_TRAP, trap);
    m.write_u16(pb + CS_CODE, KILL_CODE as u16);
    let r = call_driver(m, dce, pb, Routine::Control, true)? as u16 as i16;
    m.write_u16(pb + IO_RESULT, r as u16);
    if r == 0 {
        abort_all(m, dce)?;
    }
    Ok(r as i32 as u32)
}

fn abort_all(m: &mut Machine, dce: u32) -> Result<(), Fault> {
    let list = queue_elements(m, dce + DCTL_QHDR).map_err(|s| misuse(0, s))?;
    m.write_u32(dce + DCTL_QHEAD, 0);
    m.write_u32(dce + DCTL_QTAIL, 0);
    set_flag(m, dce, DRVR_ACTIVE, false);
    for pb in list {
        m.write_u16(pb + IO_RESULT, ABORT_ERR as u16);
        if m.read_u16(pb + IO_TRAP) & ASYNC_TRP_BIT != 0 {
            run_completion(m, pb, ABORT_ERR)?;
        }
    }
    Ok(())
}

/// Every Device Manager trap goes through here; returns D0.
fn device_trap(m: &mut Machine, word: u16, pb: u32) -> Result<u32, Fault> {
    match word & 0xFF {
        0 => open_call(m, word, pb),
        1 => close_call(m, word, pb),
        2..=5 => io_call(m, word, pb),
        6 => killio_call(m, word, pb),
        _ => Err(misuse(word, "not a Device Manager trap")),
    }
}

fn io_trap(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let pb = m.a(0);
    let d0 = device_trap(m, call.word, pb)?;
    m.set_d(0, d0);
    Ok(())
}

/// `_DrvrInstall` $A03D / `_DrvrInstallRsrvMem` $A43D: A0 = DRVR header (not used: the trap
/// does not fill `dCtlDriver`, mac-facts §2.4), D0.W = refNum. Allocates the DCE, stores its
/// handle, sets `dCtlRefNum` and `dRAMBased`. Installing into an occupied entry fails the
/// run (the driver must check `UTableBase[unit] == 0`; modelling choice).
fn drvr_install(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let ref_num = m.d(0) as u16 as i16;
    let ok = unit_of(ref_num).filter(|&u| u < m.unit_count());
    let Some(unit) = ok else {
        m.set_d(0, sext(BAD_UNIT_ERR as u16 as u32));
        return Ok(());
    };
    let old = m.unit_table_entry(unit);
    if old != 0 {
        return Err(Fault::misuse(
            call.word,
            format!(
                "_DrvrInstall into unit {unit} (refNum {ref_num}), which already holds DCE handle ${old:08X}: check that the unit-table entry is 0 first"
            ),
        ));
    }
    let (mm, bus) = m.memory_manager_and_bus();
    let h = match mm.new_handle(bus, ZoneId::System, DCE_SIZE, true) {
        Ok(h) => h,
        Err(e) => {
            m.set_d(0, sext(e as u16 as u32));
            return Ok(());
        }
    };
    let dce = m.read_u32(h);
    m.write_u16(dce + DCTL_REFNUM, ref_num as u16);
    m.write_u16(dce + DCTL_FLAGS, D_RAM_BASED);
    let base = m.read_u32(lowmem::UTABLE_BASE);
    m.write_u32(base + 4 * unit as u32, h);
    m.set_d(0, 0);
    Ok(())
}

/// `_DrvrRemove` $A03E: D0.W = refNum. `dRemovErr` if the driver is open; otherwise the DCE
/// is disposed and the entry cleared.
fn drvr_remove(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let ref_num = m.d(0) as u16 as i16;
    let dce = match lookup(m, call.word, ref_num) {
        Ok(d) => d,
        Err(DmError::Code(e)) => {
            m.set_d(0, sext(e as u16 as u32));
            return Ok(());
        }
        Err(DmError::Fault(f)) => return Err(f),
    };
    if flags(m, dce) & D_OPENED != 0 {
        m.set_d(0, sext(D_REMOV_ERR as u16 as u32));
        return Ok(());
    }
    let unit = unit_of(ref_num).unwrap();
    let h = m.unit_table_entry(unit);
    let (mm, bus) = m.memory_manager_and_bus();
    mm.dispose_handle(bus, h)
        .map_err(|s| Fault::misuse(call.word, s))?;
    let base = m.read_u32(lowmem::UTABLE_BASE);
    m.write_u32(base + 4 * unit as u32, 0);
    m.set_d(0, 0);
    Ok(())
}

/// `SystemTask`'s work for drivers: an `accRun` Control (immediate) to every open driver
/// with `dNeedTime` whose `dCtlDelay` ticks have passed since `dCtlCurTicks`. It runs at
/// application level, from the application's (or the Finder's) event loop — never from an
/// interrupt — which is why a driver may make synchronous File Manager calls from its accRun
/// (Inside Macintosh: Devices ch. 1; Inside Macintosh: Macintosh Toolbox Essentials,
/// "SystemTask"). Called from an interrupt handler it fails the run.
pub fn system_task(m: &mut Machine) -> Result<(), Fault> {
    if m.at_interrupt_level() || m.interrupt_mask() > 0 {
        return Err(misuse(
            0,
            format!(
                "SystemTask ran at interrupt level (mask {}): it belongs to the event loop",
                m.interrupt_mask()
            ),
        ));
    }
    let pb = dm(m).accrun_pb;
    if pb == 0 {
        return Ok(());
    }
    let now = m.ticks();
    // Every tick: read each unit's flags first and look no further at the (many) units that
    // do not want time, without building a `DriverInfo` (name and all) for each.
    for unit in 0..m.unit_count() {
        let h = m.unit_table_entry(unit);
        if h == 0 || !m.bus().in_ram(h, 4) {
            continue;
        }
        let dce = m.read_u32(h);
        if !m.bus().in_ram(dce, DCE_SIZE) {
            continue;
        }
        let flags = m.read_u16(dce + DCTL_FLAGS);
        if flags & (D_NEED_TIME | D_OPENED) != (D_NEED_TIME | D_OPENED) {
            continue;
        }
        let Some(d) = m.driver_info(unit).filter(|d| d.header.is_some()) else {
            continue;
        };
        // Never re-enter a driver whose code is running (SystemTask is called by the event
        // loop, outside the driver).
        if dm(m).calls.iter().any(|c| c.dce == d.dce) {
            continue;
        }
        let delay = m.read_u16(d.dce + DCTL_DELAY) as u32;
        let last = m.read_u32(d.dce + DCTL_CUR_TICKS);
        if now.wrapping_sub(last) < delay {
            continue;
        }
        m.write_u32(d.dce + DCTL_CUR_TICKS, now);
        let trap = config(m).accrun_trap_word;
        m.bus_mut().fill_host(pb, 50, 0);
        m.write_u16(pb + PB_QTYPE, IO_QTYPE);
        m.write_u16(pb + IO_TRAP, trap);
        m.write_u16(pb + IO_REFNUM, d.ref_num as u16);
        m.write_u16(pb + CS_CODE, ACC_RUN as u16);
        call_driver(m, d.dce, pb, Routine::Control, true)?;
        dm(m).accrun_count += 1;
    }
    Ok(())
}

/// Install the Device Manager: its traps, the real IODone behind `JIODone`, the accRun tick
/// hook and two scratch parameter blocks in the system heap. Idempotent.
pub fn install(m: &mut Machine) {
    if dm(m).installed {
        return;
    }
    for (w, n) in [
        (0xA000, "Open"),
        (0xA001, "Close"),
        (0xA002, "Read"),
        (0xA003, "Write"),
        (0xA004, "Control"),
        (0xA005, "Status"),
        (0xA006, "KillIO"),
    ] {
        m.register_trap(w, n, io_trap);
    }
    m.register_trap(0xA03D, "DrvrInstall", drvr_install);
    m.register_trap(0xA03E, "DrvrRemove", drvr_remove);
    let jiodone = m.read_u32(lowmem::JIO_DONE);
    m.set_host_routine(jiodone, Some(Arc::new(iodone)));
    let a = m
        .new_ptr(ZoneId::System, 50, true)
        .expect("room for the accRun parameter block");
    let g = m
        .new_ptr(ZoneId::System, 50, true)
        .expect("room for the goodbye parameter block");
    let s = dm(m);
    s.accrun_pb = a;
    s.goodbye_pb = g;
    s.installed = true;
}

impl Machine {
    /// `SystemTask`'s periodic driver work (see [`system_task`]), as the event loop runs it.
    pub fn system_task(&mut self) -> Result<(), Fault> {
        system_task(self)
    }

    /// Let `ticks` ticks pass the way they pass while the Finder (or an application) sits in
    /// its event loop: interrupts are delivered as they come due, and after every tick the
    /// loop calls `SystemTask` at application level.
    pub fn run_event_loop(&mut self, ticks: u32) -> Result<(), Fault> {
        for _ in 0..ticks {
            let next = self.ticks() + 1;
            self.idle_until(move |m| m.ticks() >= next, 2, "the event loop's next tick")?;
            system_task(self)?;
        }
        Ok(())
    }
}
