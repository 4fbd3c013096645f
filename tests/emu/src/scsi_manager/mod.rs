//! Both SCSI Managers of the emulated Mac, on one virtual bus ([`crate::scsi::ScsiBus`]).
//!
//! * [`v43`]: SCSI Manager 4.3, `_SCSIAtomic` ($A089) with D0 = 1 (`SCSIAction`): the XPT and
//!   one SIM for the virtual bus, bus 0 unless [`ScsiManagerConfig::bus_number`] says
//!   otherwise (mac-facts §6).
//! * [`original`]: the original SCSI Manager, `_SCSIDispatch` ($A815), phase by phase
//!   (mac-facts §7).
//! * [`tib`]: the transfer-instruction-block interpreter both use (mac-facts §7.2).
//!
//! # Where the bus lives
//! The bus and the managers' state are one [`ScsiState`] in the machine's extension storage
//! (`Machine::state::<ScsiState>()`). Reach the bus with [`bus`] (e.g. to attach a disk:
//! `scsi_manager::bus(&mut m).attach(0, Box::new(disk))`) and the call record with [`calls`].
//!
//! # Installing
//! [`install`] registers `_SCSIDispatch` always and `_SCSIAtomic` only when
//! [`ScsiManagerConfig::v43_present`] is set: an old ROM lacks the trap, so
//! `_GetTrapAddress($A089)` then returns the `_Unimplemented` address (mac-facts §6.8).
//!
//! # Time
//! Both managers charge the bus's modelled time ([`crate::scsi::Exec::time_ns`]) to emulated
//! time, converted to CPU cycles with [`Machine::clock_hz`]: the original manager (synchronous,
//! CPU-driven) lets that time pass inside each call; SCSI Manager 4.3 completes a request with
//! a level-2 interrupt that much later. With a machine profile ([`set_profile`]) each also
//! adds the SCSI Manager's own modelled CPU time ([`crate::profile`]) the same way.

pub mod original;
pub mod tib;
pub mod v43;

use crate::machine::Machine;
use crate::profile::{Manager, ScsiCost, TransferKind};
use crate::scsi::ScsiBus;

/// How the SCSI Managers are configured. Every field not settled by docs/mac-facts.md is a
/// modelling decision; see the field docs.
#[derive(Debug, Clone)]
pub struct ScsiManagerConfig {
    /// SCSI Manager 4.3 is present (`_SCSIAtomic` registered). Gestalt `'scsi'` (owned
    /// elsewhere) should follow [`v43_present`].
    pub v43_present: bool,
    /// A data phase shorter than `scsiDataLength` (underrun) ends an `SCSIExecIO` with
    /// `scsiDataRunError` (−7918), residual set. docs/mac-facts.md §6.6 says "over/under-run"; whether
    /// Apple's SIM reports underruns as an error or only through `scsiDataResidual` is not
    /// settled, so the default is the stricter reading (a driver must cope with either).
    pub underrun_is_error: bool,
    /// The XPT clears `qLink` when a request completes. UNCONFIRMED (mac-facts §6.7); default
    /// false: `qLink` keeps the value the SIM queue left there (the next queued PB, as an OS
    /// queue leaves a dequeued element's link), so a driver must zero it before reuse.
    pub clear_qlink_at_completion: bool,
    /// Longest a synchronous `SCSIAction` waits, in ticks, before the run fails as a hang.
    pub sync_wait_ticks: u32,
    /// When an `SCSIExecIO` completes. Apple's documents allow the SIM to call the completion
    /// routine before `SCSIAction` returns or at any later time, so the default draws, per
    /// request, from every possibility with the seed (see [`CompletionTiming`]).
    pub timing: CompletionTiming,
    /// The seed of this configuration's random choices (`FERRITE_SEED`, see [`crate::seed`]).
    pub seed: u64,
    /// Whether `SCSIGet` at interrupt level finds the bus held by interrupted mainline code
    /// (see [`original::BusyAtInterrupt`]); default seeded.
    pub busy_at_interrupt: original::BusyAtInterrupt,
    /// SCSI Manager 4.3's number for the virtual bus (default 0). Buses 0 up to it exist and
    /// the ones below it are empty: a request there ends with `scsiSelectTimeoutErr`, as on a
    /// Mac whose disk sits on a second bus (a Quadra 900/950's other chain, a SCSI card) while
    /// the first has nothing on it. `SCSIBusInquiry` answers it as `scsiHiBusID`;
    /// `SCSIGetVirtualIDInfo` maps the old API's IDs to it.
    pub bus_number: u8,
    /// Targets pause in the middle of a block now and then (their buffer runs dry), seeded:
    /// per blind transfer instruction, one in four pauses at a random byte. Harmless where
    /// the hardware holds each byte until the target's REQ ([`Self::blind_handshake`]); on a
    /// Mac without that handshake a blind transfer then reads a stale byte or loses one
    /// ([`tib`]). Default off (a modelling choice: suites that choose blind transfers on the
    /// 68000 on purpose stay as they are); tests switch it on.
    pub stalls_mid_block: bool,
    /// Whether the Mac's SCSI hardware holds a blind transfer's bytes to the target's
    /// handshake (the SE and later) or not (the Plus's 5380 set-up: Guide to the Macintosh
    /// Family Hardware). `None`: none on the 68000 — the model's 68000 Mac is the Plus, the
    /// harder case — and a handshake on the others.
    pub blind_handshake: Option<bool>,
}

/// When SCSI Manager 4.3 completes an `SCSIExecIO` that has started on the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionTiming {
    /// A level-2 interrupt after the transaction's modelled bus time.
    BusTime,
    /// Drawn per request with the seed: inside `SCSIAction` before it returns; after a
    /// random part of the bus time; after the bus time; or up to three ticks later (other
    /// requests and interrupts get in between).
    Seeded,
}

impl Default for ScsiManagerConfig {
    /// The defaults, with the seed from `FERRITE_SEED` (or [`crate::seed::DEFAULT_SEED`]):
    /// odd seeds report an underrun with
    /// GOOD status and `scsiDataResidual` only, even seeds as `scsiDataRunError` — both
    /// readings of Apple's documents, across the seeds.
    fn default() -> Self {
        let seed = crate::seed::seed_from_env();
        ScsiManagerConfig {
            v43_present: true,
            underrun_is_error: seed.is_multiple_of(2),
            clear_qlink_at_completion: false,
            sync_wait_ticks: 60 * 60 * 10,
            timing: CompletionTiming::Seeded,
            seed,
            busy_at_interrupt: original::BusyAtInterrupt::Seeded,
            bus_number: 0,
            stalls_mid_block: false,
            blind_handshake: None,
        }
    }
}

/// One SCSI Manager call (or completion), in order, for assertions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScsiCall {
    /// `SCSIAction` returned. `result` is D0 (for an async request that was queued: 0).
    Action {
        function: u8,
        pb: u32,
        /// `scsiDevice` as a long (`$00 bus target LUN`).
        device: u32,
        asynchronous: bool,
        result: i16,
    },
    /// An `SCSIExecIO` request completed (results written, completion routine called if any).
    Completion {
        pb: u32,
        result: i16,
        /// Address of the completion routine that was called (0 = none: synchronous).
        routine: u32,
    },
    /// An original-SCSI-Manager call returned `result`.
    Old {
        selector: u16,
        name: &'static str,
        result: i16,
    },
}

/// The bus and the state of both managers, kept in `Machine::state::<ScsiState>()`.
#[derive(Default)]
pub struct ScsiState {
    /// The virtual bus (IDs 0–6; 7 is the Mac).
    pub bus: ScsiBus,
    pub(crate) config: ScsiManagerConfig,
    pub(crate) sim: v43::Sim,
    pub(crate) old: original::OldState,
    pub(crate) calls: Vec<ScsiCall>,
    /// The SCSI Manager's modelled CPU cost (none: the managers cost no time of their own).
    pub(crate) cost: Option<ScsiCost>,
    pub(crate) counters: TimeCounters,
    /// Commands a SCSI Manager timed out while the target was still working on them (a live
    /// target slower than the timeout: `SCSIComplete`'s wait, 4.3's `scsiTimeout`).
    pub slow_target_timeouts: u64,
    /// The seeded mid-block pauses of blind transfers (`tib`).
    pub(crate) stall_rng: Option<crate::seed::Rng>,
}

/// What the SCSI Managers' modelled cost added ([`set_profile`]), for benchmarks: read it
/// before and after a request. The bus/disk time is [`ScsiBus::time_ns`]; the CPU's own
/// cycles are [`crate::Stats::cycles`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeCounters {
    /// SCSI Manager time added, ns (per command plus per byte beyond the bus time).
    pub manager_ns: u64,
    /// Commands charged the per-command cost.
    pub commands: u64,
    /// Data bytes charged by transfer kind: polled, blind.
    pub polled_bytes: u64,
    pub blind_bytes: u64,
}

/// Model the SCSI Manager's own CPU time with `cost` from now on (`None`: back to no cost,
/// the default). Set the bus rate to the machine's too (see
/// [`crate::profile::MachineProfile`]).
pub fn set_profile(m: &mut Machine, cost: Option<ScsiCost>) {
    state(m).cost = cost;
}

/// The SCSI Managers' time counters so far.
pub fn counters(m: &mut Machine) -> TimeCounters {
    state(m).counters
}

/// Charge one command's cost under `manager`; returns the ns added.
pub(crate) fn charge_command(m: &mut Machine, manager: Manager) -> u64 {
    let st = state(m);
    let Some(cost) = st.cost else { return 0 };
    let ns = cost.command_ns(manager);
    st.counters.manager_ns += ns;
    st.counters.commands += 1;
    ns
}

/// Charge the CPU time of moving `bytes` by `kind` beyond the bus's own time; returns the
/// ns added.
pub(crate) fn charge_data(m: &mut Machine, kind: TransferKind, bytes: u64) -> u64 {
    let st = state(m);
    let Some(cost) = st.cost else { return 0 };
    let ns = cost.data_ns(kind, bytes, st.bus.bytes_per_sec);
    st.counters.manager_ns += ns;
    match kind {
        TransferKind::Polled => st.counters.polled_bytes += bytes,
        TransferKind::Blind => st.counters.blind_bytes += bytes,
    }
    ns
}

/// The state (bus included).
pub fn state(m: &mut Machine) -> &mut ScsiState {
    m.state::<ScsiState>()
}

/// The virtual SCSI bus the managers drive.
pub fn bus(m: &mut Machine) -> &mut ScsiBus {
    &mut state(m).bus
}

/// Every SCSI Manager call so far.
pub fn calls(m: &mut Machine) -> Vec<ScsiCall> {
    state(m).calls.clone()
}

/// Forget the call record.
pub fn clear_calls(m: &mut Machine) {
    state(m).calls.clear();
}

/// SCSI Manager 4.3's number for the virtual bus ([`ScsiManagerConfig::bus_number`]).
pub fn bus_number(m: &mut Machine) -> u8 {
    state(m).config.bus_number
}

/// Whether SCSI Manager 4.3 was installed.
pub fn v43_present(m: &mut Machine) -> bool {
    state(m).config.v43_present
}

/// Change when SCSI Manager 4.3 completions come, from now on (a test that needs a command
/// to stay in flight pins [`CompletionTiming::BusTime`]).
pub fn set_completion_timing(m: &mut Machine, timing: CompletionTiming) {
    state(m).config.timing = timing;
}

/// Change whether `SCSIGet` at interrupt level finds the bus held, from now on.
pub fn set_busy_at_interrupt(m: &mut Machine, busy: original::BusyAtInterrupt) {
    state(m).config.busy_at_interrupt = busy;
}

/// Switch [`ScsiManagerConfig::stalls_mid_block`] on or off.
pub fn set_stalls_mid_block(m: &mut Machine, on: bool) {
    state(m).config.stalls_mid_block = on;
}

/// The configuration in force.
pub fn config(m: &mut Machine) -> ScsiManagerConfig {
    state(m).config.clone()
}

/// Install the SCSI Managers: `_SCSIDispatch` always, `_SCSIAtomic` when
/// `config.v43_present` (otherwise it is removed, so the trap reads as unimplemented).
pub fn install(m: &mut Machine, config: ScsiManagerConfig) {
    let present = config.v43_present;
    state(m).config = config;
    original::install(m);
    if present {
        v43::install(m);
    } else {
        m.traps_mut().unregister(v43::SCSI_ATOMIC);
    }
}

/// Gestalt `'scsi'` bit 0, `gestaltAsyncSCSI`: SCSI Manager 4.3 is present (bit 1,
/// `gestaltAsyncSCSIINROM`, stays clear when it came from the System; UI `Gestalt.a`).
pub const GESTALT_ASYNC_SCSI: u32 = 1 << 0;

/// What SCSI Manager 4.3, arriving after the boot ([`arrive_v43`]), does with the disk drivers
/// the original SCSI Manager's ROM already installed. No public source says; IM Devices ch. 4
/// only says a driver "during the transition from a ROM-based original SCSI Manager to SCSI
/// Manager 4.3" may use `SCSIGetVirtualIDInfo`, which suggests that the driver, not the
/// extension, does the transition. Both cases are modelled and seeded in the boot model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrivalXrefs {
    /// Nothing: no cross-reference exists until a driver creates its own (the case where a
    /// driver that never registers is invisible to `SCSILookupRefNumXref` clients).
    None,
    /// A cross-reference for every driver in unit-table entries 32–38 (ID n → refNum
    /// `~(32+n)`, the virtual bus, LUN 0), as a 4.3 ROM is believed to make for the old-style drivers
    /// it loads: a driver's own `SCSICreateRefNumXref` then gets `scsiDeviceConflict`.
    ForInstalledDrivers,
}

/// SCSI Manager 4.3 arrives while the system runs — on a Quadra 700/800/900/950, 610/650 or
/// Centris, the System 7.5 "SCSI Manager 4.3" extension (built into the System from 7.5.3;
/// TIL 17019), after the ROM's original SCSI Manager booted the drivers: `_SCSIAtomic` is
/// registered (so `_GetTrapAddress($A089)` stops answering `_Unimplemented`), Gestalt
/// `'scsi'` gets `gestaltAsyncSCSI`, and `xrefs` says what happens to the installed drivers.
/// The original SCSI Manager keeps working: both APIs now share the one bus (IM Devices
/// ch. 4: 4.3 emulates the original calls through its SIM's `NewOldCall`), which the
/// model arbitrates (`SCSIGet` is refused while a 4.3 request is on the bus; a 4.3 request
/// waits while an original-API transaction holds it). Anything in flight is left alone.
pub fn arrive_v43(m: &mut Machine, xrefs: ArrivalXrefs) {
    state(m).config.v43_present = true;
    v43::install(m);
    m.set_gestalt(crate::os_utils::ostype(b"scsi"), Some(GESTALT_ASYNC_SCSI));
    if xrefs == ArrivalXrefs::ForInstalledDrivers {
        let bus = state(m).config.bus_number as u32;
        let table = m.read_u32(crate::lowmem::UTABLE_BASE);
        let count = m.read_u16(crate::lowmem::UNIT_NTRY_CNT) as u32;
        for id in 0..7u32 {
            let unit = 32 + id;
            if unit < count && m.read_u32(table + 4 * unit) != 0 {
                state(m)
                    .sim
                    .xrefs
                    .entry(bus << 16 | id << 8)
                    .or_insert((!(unit as i16), 0));
            }
        }
    }
}

/// Whether `[addr, addr+len)` is guest RAM and not the NIL pointer.
pub(crate) fn mapped(m: &Machine, addr: u32, len: u32) -> bool {
    addr != 0 && m.bus().in_ram(addr, len.max(1))
}

/// Nanoseconds of bus time as CPU cycles at the machine's clock.
pub(crate) fn ns_to_cycles(m: &Machine, ns: u64) -> u64 {
    (ns as u128 * m.clock_hz() as u128 / 1_000_000_000) as u64
}

/// The refNum registered for `device` (`$00 bus target LUN`) with `SCSICreateRefNumXref`, as
/// `SCSILookupRefNumXref` would answer (the boot model's check after a 4.3 driver's install).
pub fn xref_lookup(m: &mut Machine, device: u32) -> Option<i16> {
    state(m).sim.xrefs.get(&device).map(|x| x.0)
}

/// Register `ref_num` for `device` as `SCSICreateRefNumXref` would (a test's stand-in for
/// another driver that already claimed the device: a second registration is refused with
/// `scsiDeviceConflict`).
pub fn register_xref(m: &mut Machine, device: u32, ref_num: i16) {
    state(m).sim.xrefs.insert(device, (ref_num, 0));
}
