//! The original SCSI Manager: `_SCSIDispatch` ($A815), a Toolbox trap with the Pascal stack
//! convention — result word reserved, parameters pushed left to right, selector word on top;
//! the trap pops parameters and selector and leaves the result (mac-facts §7.1).
//!
//! | Sel | Call | Modelled as |
//! |---|---|---|
//! | 0 | `SCSIReset` | bus reset (every 4.3 request in the SIM ends with `scsiSCSIBusReset`) |
//! | 1 | `SCSIGet` | arbitration; `scMgrBusyErr` unless the bus is free and the 4.3 SIM idle |
//! | 2 | `SCSISelect(id)` | selection without ATN (LUN 0) |
//! | 11 | `SCSISelAtn(id)` | selection with ATN (IDENTIFY LUN 0); one `SCSIMsgOut` may follow |
//! | 3 | `SCSICmd(buf, count)` | COMMAND phase, `count` 1..16 |
//! | 5/6 | `SCSIRead`/`SCSIWrite(tib)` | polled TIB transfer ([`super::tib`]) |
//! | 8/9 | `SCSIRBlind`/`SCSIWBlind(tib)` | blind TIB transfer |
//! | 4 | `SCSIComplete(&stat, &msg, wait)` | skip to STATUS, status, MESSAGE IN, bus free |
//! | 10 | `SCSIStat` | bus status word (below) |
//! | 12 | `SCSIMsgIn(&msg)` | MESSAGE IN |
//! | 13 | `SCSIMsgOut(msg)` | MESSAGE OUT, only right after `SCSISelAtn` |
//!
//! # Result codes (modelling decisions where docs/mac-facts.md is silent)
//! * `SCSIGet` while the bus is not free, or while a 4.3 request is on the bus (completion
//!   pending) → `scMgrBusyErr` (7).
//! * `SCSISelect`/`SCSISelAtn` when the bus was not won with `SCSIGet` → `scSequenceErr` (8);
//!   ID not 0–6 → `scBadParmsErr` (4) and the bus goes free; nobody answers → `scCommErr` (2),
//!   the bus goes free (250 ms of bus time pass).
//! * `SCSICmd` outside COMMAND phase → `scPhaseErr` (5); count not 1..16 → `scBadParmsErr`.
//!   A target that resets the bus during the command: `noErr` (the bytes went out), and the
//!   following calls find the bus free.
//! * `SCSIRead`/`SCSIRBlind` outside DATA IN, `SCSIWrite`/`SCSIWBlind` outside DATA OUT →
//!   `scPhaseErr`. TIB ends: `scStop` → 0; the phase ended (polled, or before a blind
//!   instruction's first byte) → `scPhaseErr`; a blind instruction running past the phase →
//!   `scBusTOErr` (9); `scComp` mismatch → `scCompareErr` (6); bad instruction →
//!   `scBadParmsErr` (4).
//! * `SCSIComplete` in a data phase skips the rest (DATA IN bucketed, DATA OUT padded with
//!   zeros), reads status and message and returns `scComplPhaseErr` (10) when it skipped any
//!   byte, 0 otherwise (also straight from STATUS). With a free bus (failed selection, bus
//!   reset, nothing started) → `scSequenceErr`, stat/message untouched. With the bus
//!   arbitrated or in COMMAND phase (no command sent) the `wait` ticks pass, the bus is reset
//!   to free it and the result is `scCommErr`. The same when the target is connected but
//!   works longer than `wait` before its status (its modelled busy time: a long VERIFY, a
//!   spin-up, a slow card), unless level 1 is masked (`Ticks` stand still, so the ROM waits
//!   the target out).
//! * `SCSIMsgIn` outside MESSAGE IN, `SCSIMsgOut` not right after `SCSISelAtn` → `scPhaseErr`.
//!   `SCSIMsgOut` accepts any byte; an IDENTIFY for LUN ≠ 0 is not modelled (the bus took the
//!   LUN at selection: LUN 0) — old-API clients put the LUN in CDB byte 1 anyway.
//! * Unknown selector (7 `scsiInstall`, > 13): guest misuse (the parameter size is unknown).
//! * Each call lets the bus time it caused pass as emulated time (the CPU does the work).
//!
//! # `SCSIStat` bits (modelled on the NCR 5380 current SCSI bus status register, low byte)
//! `$40` BSY (a target is connected, or the Mac holds the bus after `SCSIGet`), `$20` REQ (the
//! target waits for a transfer: COMMAND, data, STATUS, MESSAGE IN), `$10` MSG, `$08` C/D,
//! `$04` I/O, `$02` SEL (after `SCSIGet`, before selection). Phase encodings: DATA OUT none,
//! DATA IN I/O, COMMAND C/D, STATUS C/D+I/O, MESSAGE IN MSG+C/D+I/O. High byte 0.

use crate::error::Fault;
use crate::machine::Machine;
use crate::scsi::{BusPhase, SelectError};
use crate::traps::TrapCall;

use super::tib::{self, TibDir, TibEnd};
use super::{ScsiCall, charge_command, charge_data, mapped, ns_to_cycles, state, v43};
use crate::profile::{Manager, TransferKind};

/// `_SCSIDispatch`.
pub const SCSI_DISPATCH: u16 = 0xA815;

pub const SCSI_RESET: u16 = 0;
pub const SCSI_GET: u16 = 1;
pub const SCSI_SELECT: u16 = 2;
pub const SCSI_CMD: u16 = 3;
pub const SCSI_COMPLETE: u16 = 4;
pub const SCSI_READ: u16 = 5;
pub const SCSI_WRITE: u16 = 6;
pub const SCSI_RBLIND: u16 = 8;
pub const SCSI_WBLIND: u16 = 9;
pub const SCSI_STAT: u16 = 10;
pub const SCSI_SEL_ATN: u16 = 11;
pub const SCSI_MSG_IN: u16 = 12;
pub const SCSI_MSG_OUT: u16 = 13;

pub const NO_ERR: i16 = 0;
pub const SC_COMM_ERR: i16 = 2;
pub const SC_ARB_NB_ERR: i16 = 3;
pub const SC_BAD_PARMS_ERR: i16 = 4;
pub const SC_PHASE_ERR: i16 = 5;
pub const SC_COMPARE_ERR: i16 = 6;
pub const SC_MGR_BUSY_ERR: i16 = 7;
pub const SC_SEQUENCE_ERR: i16 = 8;
pub const SC_BUS_TO_ERR: i16 = 9;
pub const SC_COMPL_PHASE_ERR: i16 = 10;

/// `SCSIStat` bits.
pub const STAT_BSY: u16 = 0x40;
pub const STAT_REQ: u16 = 0x20;
pub const STAT_MSG: u16 = 0x10;
pub const STAT_CD: u16 = 0x08;
pub const STAT_IO: u16 = 0x04;
pub const STAT_SEL: u16 = 0x02;

/// Old-API state beyond the bus phase.
#[derive(Default)]
pub(crate) struct OldState {
    /// `SCSISelAtn` just selected: one `SCSIMsgOut` may follow.
    msg_out_allowed: bool,
    /// The interrupt (retrace, depth, deliveries) the last busy-at-interrupt decision was
    /// made for, and the decision: one interrupt sees one answer.
    busy_decision: Option<((u32, u32, u64), bool)>,
    rng: Option<crate::seed::Rng>,
}

/// The seed stream of the original manager's choices.
const SEED_STREAM: u64 = 0x01D5;

/// Whether code at interrupt level finds the bus held by the code it interrupted.
///
/// Mainline code (an application, a foreign driver's synchronous transaction) holds the bus
/// from `SCSIGet` to `SCSIComplete`; an interrupt handler that calls `SCSIGet` meanwhile gets
/// `scMgrBusyErr`, and keeps getting it until it returns, since the holder cannot go on
/// until then (Inside Macintosh: Devices, "SCSI Manager": the original manager is not
/// re-entrant). The model has no second client on the bus, so it draws, per interrupt, whether
/// one was interrupted mid-transaction ([`BusyAtInterrupt::Seeded`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyAtInterrupt {
    /// Only the model's own bus state decides.
    Never,
    /// Every interrupt finds the bus held (tests).
    Always,
    /// A quarter of the interrupts, drawn with the seed.
    Seeded,
}

fn busy_at_interrupt(m: &mut Machine) -> bool {
    if !m.at_interrupt_level() {
        return false;
    }
    let policy = state(m).config.busy_at_interrupt;
    let seed = state(m).config.seed;
    match policy {
        BusyAtInterrupt::Never => false,
        BusyAtInterrupt::Always => true,
        BusyAtInterrupt::Seeded => {
            let key = (
                m.retraces(),
                m.interrupts().depth_now(),
                m.interrupts_delivered(),
            );
            let old = &mut state(m).old;
            if let Some((k, busy)) = old.busy_decision
                && k == key
            {
                return busy;
            }
            let rng = old
                .rng
                .get_or_insert_with(|| crate::seed::Rng::new(seed, SEED_STREAM));
            let busy = rng.below(4) == 0;
            old.busy_decision = Some((key, busy));
            busy
        }
    }
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(SCSI_DISPATCH, "SCSIDispatch", scsi_dispatch);
}

fn name(sel: u16) -> &'static str {
    match sel {
        SCSI_RESET => "SCSIReset",
        SCSI_GET => "SCSIGet",
        SCSI_SELECT => "SCSISelect",
        SCSI_CMD => "SCSICmd",
        SCSI_COMPLETE => "SCSIComplete",
        SCSI_READ => "SCSIRead",
        SCSI_WRITE => "SCSIWrite",
        SCSI_RBLIND => "SCSIRBlind",
        SCSI_WBLIND => "SCSIWBlind",
        SCSI_STAT => "SCSIStat",
        SCSI_SEL_ATN => "SCSISelAtn",
        SCSI_MSG_IN => "SCSIMsgIn",
        SCSI_MSG_OUT => "SCSIMsgOut",
        _ => "?",
    }
}

/// Bytes of parameters below the selector.
fn param_bytes(sel: u16) -> Option<u32> {
    Some(match sel {
        SCSI_RESET | SCSI_GET | SCSI_STAT => 0,
        SCSI_SELECT | SCSI_SEL_ATN | SCSI_MSG_OUT => 2,
        SCSI_CMD => 6,
        SCSI_COMPLETE => 12,
        SCSI_READ | SCSI_WRITE | SCSI_RBLIND | SCSI_WBLIND | SCSI_MSG_IN => 4,
        _ => return None,
    })
}

/// The bus status word [`SCSI_STAT`] returns.
pub fn bus_status_word(phase: BusPhase) -> u16 {
    match phase {
        BusPhase::BusFree => 0,
        BusPhase::Arbitrated => STAT_BSY | STAT_SEL,
        BusPhase::Command { .. } => STAT_BSY | STAT_REQ | STAT_CD,
        BusPhase::DataIn { .. } => STAT_BSY | STAT_REQ | STAT_IO,
        BusPhase::DataOut { .. } => STAT_BSY | STAT_REQ,
        BusPhase::Status { .. } => STAT_BSY | STAT_REQ | STAT_CD | STAT_IO,
        BusPhase::MessageIn { .. } => STAT_BSY | STAT_REQ | STAT_MSG | STAT_CD | STAT_IO,
    }
}

fn misuse(sel: u16, what: String) -> Fault {
    Fault::misuse(SCSI_DISPATCH, format!("{}: {what}", name(sel)))
}

fn scsi_dispatch(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let args = call.pascal_args(m);
    let sel = m.read_u16(args);
    let Some(n) = param_bytes(sel) else {
        return Err(Fault::misuse(
            call.word,
            format!("_SCSIDispatch selector {sel} is not a client call"),
        ));
    };
    let p = args + 2;
    let t0 = state(m).bus.time_ns();
    let msg_out_allowed = std::mem::take(&mut state(m).old.msg_out_allowed);
    // The SCSI Manager's own modelled time (a machine profile), ns.
    let mut manager_ns = 0;
    let result = match sel {
        SCSI_RESET => {
            state(m).bus.reset();
            v43::fail_all_for_reset(m);
            NO_ERR
        }
        SCSI_GET => {
            let interrupted_holder = busy_at_interrupt(m);
            let st = state(m);
            if st.bus.phase() != BusPhase::BusFree || st.sim.busy() || interrupted_holder {
                SC_MGR_BUSY_ERR
            } else {
                st.bus.arbitrate().expect("bus free");
                NO_ERR
            }
        }
        SCSI_SELECT | SCSI_SEL_ATN => {
            let id = m.read_u16(p);
            let atn = sel == SCSI_SEL_ATN;
            if state(m).bus.phase() != BusPhase::Arbitrated {
                SC_SEQUENCE_ERR
            } else {
                manager_ns += charge_command(m, Manager::Original);
                let st = state(m);
                // IDs above 6 are refused by the bus (which then goes free).
                let id = id.min(7) as u8;
                match st.bus.select(id, atn, 0) {
                    Ok(()) => {
                        st.old.msg_out_allowed = atn;
                        NO_ERR
                    }
                    Err(SelectError::Timeout) => SC_COMM_ERR,
                    Err(SelectError::InvalidId) => SC_BAD_PARMS_ERR,
                    Err(SelectError::WrongPhase(_)) => SC_SEQUENCE_ERR,
                }
            }
        }
        SCSI_CMD => {
            let count = m.read_u16(p) as u32;
            let buf = m.read_u32(p + 2);
            if !matches!(state(m).bus.phase(), BusPhase::Command { .. }) {
                SC_PHASE_ERR
            } else if !(1..=16).contains(&count) {
                SC_BAD_PARMS_ERR
            } else {
                if !mapped(m, buf, count) {
                    return Err(misuse(
                        sel,
                        format!("command buffer ${buf:08X}+{count} is not in RAM"),
                    ));
                }
                let cdb = m.read_bytes(buf, count);
                state(m).bus.command(&cdb).expect("command phase");
                NO_ERR
            }
        }
        SCSI_READ | SCSI_WRITE | SCSI_RBLIND | SCSI_WBLIND => {
            let tib_ptr = m.read_u32(p);
            let (dir, blind) = match sel {
                SCSI_READ => (TibDir::In, false),
                SCSI_WRITE => (TibDir::Out, false),
                SCSI_RBLIND => (TibDir::In, true),
                _ => (TibDir::Out, true),
            };
            let ok_phase = matches!(
                (dir, state(m).bus.phase()),
                (TibDir::In, BusPhase::DataIn { .. }) | (TibDir::Out, BusPhase::DataOut { .. })
            );
            if !ok_phase {
                SC_PHASE_ERR
            } else {
                let run = tib::run(m, tib_ptr, dir, blind, call.word)?;
                let kind = if blind {
                    TransferKind::Blind
                } else {
                    TransferKind::Polled
                };
                manager_ns += charge_data(m, kind, run.moved as u64);
                match run.end {
                    TibEnd::Stop => NO_ERR,
                    TibEnd::PhaseChanged { .. } => SC_PHASE_ERR,
                    TibEnd::BlindTimeout { .. } => SC_BUS_TO_ERR,
                    TibEnd::CompareMismatch { .. } => SC_COMPARE_ERR,
                    TibEnd::BadInstruction { .. } => SC_BAD_PARMS_ERR,
                }
            }
        }
        SCSI_COMPLETE => {
            let wait = m.read_u32(p);
            let msg_ptr = m.read_u32(p + 4);
            let stat_ptr = m.read_u32(p + 8);
            complete(m, stat_ptr, msg_ptr, wait)?
        }
        SCSI_STAT => bus_status_word(state(m).bus.phase()) as i16,
        SCSI_MSG_IN => {
            let msg_ptr = m.read_u32(p);
            if !matches!(state(m).bus.phase(), BusPhase::MessageIn { .. }) {
                SC_PHASE_ERR
            } else {
                if !mapped(m, msg_ptr, 2) || !msg_ptr.is_multiple_of(2) {
                    return Err(misuse(
                        sel,
                        format!("message pointer ${msg_ptr:08X} is not a word in RAM"),
                    ));
                }
                let msg = state(m).bus.message_in().expect("message in");
                m.write_u16(msg_ptr, msg as u16);
                NO_ERR
            }
        }
        SCSI_MSG_OUT => {
            if msg_out_allowed && matches!(state(m).bus.phase(), BusPhase::Command { .. }) {
                NO_ERR
            } else {
                SC_PHASE_ERR
            }
        }
        _ => unreachable!("param_bytes covers every selector"),
    };
    // The bus time of this call (and the SCSI Manager's own) passes on the CPU.
    let dt = state(m).bus.time_ns() - t0 + manager_ns;
    if dt > 0 {
        // The CPU is busy in the SCSI Manager meanwhile, with interrupts as the caller left
        // them: a VBL that comes due is taken (Ticks counts it) unless level 1 is masked.
        let at = m.emulated_cycles() + ns_to_cycles(m, dt);
        m.pass_time_taking_interrupts(at)?;
    }
    // A transaction that ended frees the bus for queued 4.3 requests.
    if state(m).bus.phase() == BusPhase::BusFree {
        v43::kick(m)?;
    }
    m.pascal_pop(call, 2 + n);
    let res_at = call.pascal_args(m);
    m.write_u16(res_at, result as u16);
    state(m).calls.push(ScsiCall::Old {
        selector: sel,
        name: name(sel),
        result,
    });
    Ok(())
}

fn complete(m: &mut Machine, stat_ptr: u32, msg_ptr: u32, wait: u32) -> Result<i16, Fault> {
    let phase = state(m).bus.phase();
    match phase {
        BusPhase::BusFree => return Ok(SC_SEQUENCE_ERR),
        BusPhase::Arbitrated | BusPhase::Command { .. } => {
            // The ROM times out by watching Ticks: at most an hour of waiting (a larger
            // `wait` would still end the same way); at interrupt level it never would.
            m.wait_ticks(
                wait.min(60 * 60 * 60),
                "SCSIComplete (the target holds the bus)",
            )?;
            state(m).bus.reset();
            v43::fail_all_for_reset(m);
            return Ok(SC_COMM_ERR);
        }
        _ => {}
    }
    for (what, ptr) in [("stat", stat_ptr), ("message", msg_ptr)] {
        if !mapped(m, ptr, 2) || !ptr.is_multiple_of(2) {
            return Err(misuse(
                SCSI_COMPLETE,
                format!("{what} pointer ${ptr:08X} is not a word in RAM"),
            ));
        }
    }
    // A live target that works longer than `wait` ticks before its status (a long VERIFY or
    // FORMAT, a spin-up, a slow card): the ROM's wait watches Ticks, gives up, resets the bus
    // and answers `scCommErr` — unless level 1 is masked: then Ticks stand still, the ROM
    // waits as long as the target takes, and the command ends normally.
    let busy = state(m).bus.target_busy_ns();
    let wait_ns = wait as u64 * 1_000_000_000 / 60;
    if busy > wait_ns && m.interrupt_mask() < 1 {
        m.wait_ticks(wait, "SCSIComplete (the target is still working)")?;
        state(m).bus.reset();
        v43::fail_all_for_reset(m);
        state(m).slow_target_timeouts += 1;
        return Ok(SC_COMM_ERR);
    }
    let bus = &mut state(m).bus;
    let skipped = match phase {
        BusPhase::DataIn { .. } | BusPhase::DataOut { .. } => {
            bus.skip_to_status().expect("data phase")
        }
        _ => 0,
    };
    let st = if matches!(bus.phase(), BusPhase::Status { .. }) {
        Some(bus.status().expect("status"))
    } else {
        None
    };
    let msg = bus.message_in().expect("message in follows status");
    if let Some(st) = st {
        m.write_u16(stat_ptr, st as u16);
    }
    m.write_u16(msg_ptr, msg as u16);
    Ok(if skipped > 0 {
        SC_COMPL_PHASE_ERR
    } else {
        NO_ERR
    })
}
