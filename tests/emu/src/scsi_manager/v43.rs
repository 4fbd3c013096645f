//! SCSI Manager 4.3: `_SCSIAtomic` ($A089) with D0 = 1 (`SCSIAction`) and A0 = parameter
//! block; the result in D0 and `scsiResult` (mac-facts §6). One SIM drives the virtual bus of
//! [`super::ScsiState`], numbered [`super::ScsiManagerConfig::bus_number`] (0 by default); the
//! buses numbered below it are empty (every selection there times out); bus `$FF` is the XPT
//! (for `SCSIBusInquiry`).
//!
//! # Functions
//! `SCSINop` 0, `SCSIExecIO` 1, `SCSIBusInquiry` 3, `SCSIReleaseQ` 4, `SCSIAbortCommand` $10,
//! `SCSIResetBus` $11, `SCSIResetDevice` $12, `SCSITerminateIO` $13, `SCSIGetVirtualIDInfo`
//! $80, `SCSICreateRefNumXref` $85, `SCSILookupRefNumXref` $86, `SCSIRemoveRefNumXref` $87.
//! Anything else → `scsiFunctionNotAvailable`. Other `_SCSIAtomic` selectors (SIM
//! registration) fail the run as not modelled.
//!
//! # Validation (in this order; the first failure is the result, nothing is queued)
//! `qLink` ≠ 0 → `scsiQLinkInvalid`; unknown function → `scsiFunctionNotAvailable`;
//! `scsiPBLength` below the function's PB size → `scsiPBLengthError`; a bus above the virtual
//! bus's number (`$FF` is also accepted by `SCSIBusInquiry`) or `diReserved` ≠ 0 →
//! `scsiBusInvalid`; target ≥ 7 →
//! `scsiTIDInvalid`; LUN > 7 → `scsiLUNInvalid`. `SCSIExecIO` then: CDB length not 1..16 →
//! `scsiCDBLengthInvalid`; direction bits 00 (reserved) → `scsiRequestInvalid`; data type
//! not buffer/TIB/S-G → `scsiDataTypeInvalid`; transfer type not blind/polled →
//! `scsiTransferTypeInvalid`; an S/G list shorter than `scsiDataLength` → `scsiRequestInvalid`.
//! The XRef calls with `scsiCompletion` ≠ 0 → `scsiRequestInvalid` (they are synchronous only).
//! A validation error is returned at once in D0 and `scsiResult`; no completion routine is
//! called. Pointers that are not guest RAM (the PB itself, a CDB pointer, the data buffer, an
//! S/G list or its entries, the sense buffer, a TIB, the completion routine) fail the run with
//! [`Fault::Misuse`] naming the field: on a real Mac they crash.
//!
//! # Execution (modelling decisions)
//! * Requests are queued in the SIM (FIFO) and run one at a time on the bus. A request that
//!   starts runs its whole bus transaction at once (data lands in guest memory then, as DMA
//!   would); its results are written to the PB, and its completion routine called, by a
//!   level-2 interrupt after the transaction's modelled bus time. A synchronous request is
//!   queued the same way and `SCSIAction` waits ([`Machine::idle_until`]) until it is done;
//!   with the interrupt mask at 2 or more it polls the SIM instead (mac-facts §6.7,
//!   `SIMInterruptPoll`): the in-flight request completes inside the call.
//! * The SIM links queued PBs through `qLink` (the next queued PB, 0 for the last) and does
//!   not clear it when it dequeues one (see [`super::ScsiManagerConfig::clear_qlink_at_completion`]).
//! * Selection uses ATN + IDENTIFY (LUN) unless `scsiDisableSelectWAtn` is set (then the
//!   target sees LUN 0). `scsiSelectTimeout` and `scsiHandshake` are accepted and ignored (a
//!   selection timeout costs the bus's 250 ms). `scsiTimeout` (0: none) ends a request whose
//!   target hangs, and one whose live target takes longer than it (its modelled busy time: a
//!   long VERIFY, a spin-up, a slow card), with `scsiCommandTimeout` and a bus reset.
//! * Data: the direction flags must match the target's data phase; a phase in the other
//!   direction (or any data phase with `scsiDirectionNone`) is bit-bucketed/padded (the bus
//!   pads DATA OUT with zeros) and the result is `scsiWrongDirection`. A target offering or
//!   wanting more than `scsiDataLength` is an overrun (`scsiDataRunError`, excess bucketed);
//!   fewer is an underrun (`scsiDataRunError` if
//!   [`super::ScsiManagerConfig::underrun_is_error`]); `scsiDataResidual` = length − moved.
//!   `scsiNoBucketIn/Out` are not modelled. With `scsiDataTIB` the TIB drives the transfer
//!   ([`super::tib`]); a TIB that stops before the data phase ends is an overrun, one that
//!   finds the phase over is an underrun, a blind timeout or `scComp` mismatch is
//!   `scsiDataRunError`, a bad TIB instruction is `scsiRequestInvalid`.
//! * Result precedence: selection timeout, bus reset, non-GOOD status (`scsiNonZeroStatus`),
//!   wrong direction, data run error.
//! * Autosense: after CHECK CONDITION (only), unless `scsiDisableAutosense`, with
//!   `scsiSensePtr` ≠ 0 and `scsiSenseLength` > 0, the SIM runs REQUEST SENSE (allocation
//!   length `scsiSenseLength`) and stores the data; `scsiAutosenseValid` is set only if that
//!   command ended GOOD; `scsiSenseResidual` = length − received. A failed autosense leaves the
//!   result `scsiNonZeroStatus` without the valid flag.
//! * Queue freezing: any completion with a result other than `noErr` freezes the LUN's queue
//!   (and sets `scsiSIMQFrozen`) unless `scsiSIMQNoFreeze` — except `scsiRequestAborted` and
//!   `scsiTerminated`, which the client asked for; `scsiSIMQFreeze` freezes it after
//!   any completion. Requests for a frozen LUN are **held** in the SIM queue (others pass
//!   them) until `SCSIReleaseQ`. A *synchronous* request for a frozen LUN would wait forever
//!   on a real Mac: it fails the run with [`Fault::Misuse`].
//! * A synchronous request while an original-SCSI-Manager transaction holds the bus →
//!   `scsiBusy`; an asynchronous one waits in the queue until the bus is free.
//! * `SCSIAbortCommand`/`SCSITerminateIO` on a queued request: removed, completed with
//!   `scsiRequestAborted`/`scsiTerminated` by a level-2 interrupt at once; on the request now
//!   on the bus or an unknown PB: `scsiUnableToAbort`/`scsiUnableToTerminate`.
//! * `SCSIResetBus` (and `SCSIReset` of the old API, and a bus reset a target injects):
//!   every request in the SIM — the one on the bus and all queued — completes with
//!   `scsiSCSIBusReset` (level-2 interrupt at once). The one on the bus already moved its
//!   data. Frozen queues stay frozen.
//! * `SCSIResetDevice` sends BUS DEVICE RESET: the target's [`crate::scsi::ScsiTarget::bus_reset`]
//!   (the same reset a bus reset does, for that target only); no target → `scsiSelectTimeout`.
//!   Queued requests for it are left alone.
//! * Non-`SCSIExecIO` functions ignore `scsiCompletion` and complete inside the call.
//! * Completion routines are called Pascal-style: the PB pointer pushed, the routine pops it
//!   (mac-facts §6.7). The emulator enters through a host-routine glue that checks, on return, that
//!   SP is back where it was before the push (a routine that does not pop fails the run), with
//!   A5 = the caller's A5 at `SCSIAction` time, and checks D3–D7/A2–A6 are preserved.
//! * XRefs: one refNum per DeviceIdent; creating a second (any refNum) → `scsiDeviceConflict`.
//!   Lookup of an unknown device → `noErr`, refNum 0. `scsiNextDevice` = the next DeviceIdent
//!   with an XRef in ascending order, `$FFFFFFFF` after the last (UNVERIFIED encoding).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::Fault;
use crate::interrupts::InterruptId;
use crate::loader::Preserved;
use crate::machine::Machine;
use crate::scsi::{BusPhase, SelectError, status};
use crate::traps::TrapCall;

use super::tib::{self, TibDir, TibEnd};
use super::{CompletionTiming, ScsiCall, charge_command, charge_data, mapped, ns_to_cycles, state};
use crate::profile::{Manager, TransferKind};

/// `_SCSIAtomic`.
pub const SCSI_ATOMIC: u16 = 0xA089;
/// The seed stream of the SIM's choices ([`crate::seed::Rng::new`]).
const SEED_STREAM: u64 = 0x5C51;
/// `_SCSIAtomic` selector (D0) of `SCSIAction`.
pub const XPT_SCSI_ACTION: u32 = 1;

// ----- SCSIPBHdr (mac-facts §6.2) -----
pub const Q_LINK: u32 = 0;
pub const SCSI_RESERVED1: u32 = 4;
pub const SCSI_PB_LENGTH: u32 = 6;
pub const SCSI_FUNCTION_CODE: u32 = 8;
pub const SCSI_RESULT: u32 = 10;
pub const SCSI_DEVICE: u32 = 12;
pub const SCSI_COMPLETION: u32 = 16;
pub const SCSI_FLAGS: u32 = 20;
pub const SCSI_DRIVER_STORAGE: u32 = 24;
pub const SCSI_XPT_PRIVATE: u32 = 28;
pub const SCSI_PB_HDR_SIZE: u16 = 36;

// ----- SCSIExecIOPB (mac-facts §6.3) -----
pub const SCSI_RESULT_FLAGS: u32 = 36;
pub const SCSI_DATA_PTR: u32 = 40;
pub const SCSI_DATA_LENGTH: u32 = 44;
pub const SCSI_SENSE_PTR: u32 = 48;
pub const SCSI_SENSE_LENGTH: u32 = 52;
pub const SCSI_CDB_LENGTH: u32 = 53;
pub const SCSI_SG_LIST_COUNT: u32 = 54;
pub const SCSI_SCSI_STATUS: u32 = 60;
pub const SCSI_SENSE_RESIDUAL: u32 = 61;
pub const SCSI_DATA_RESIDUAL: u32 = 64;
pub const SCSI_CDB: u32 = 68;
pub const SCSI_TIMEOUT: u32 = 84;
pub const SCSI_IO_FLAGS: u32 = 94;
pub const SCSI_SELECT_TIMEOUT: u32 = 100;
pub const SCSI_DATA_TYPE: u32 = 102;
pub const SCSI_TRANSFER_TYPE: u32 = 103;
pub const SCSI_HANDSHAKE: u32 = 112;
/// `sizeof(SCSIExecIOPB)`: the SIM's `scsiIOpbSize` and `scsiMaxIOpbSize`.
pub const SCSI_EXEC_IO_PB_SIZE: u16 = 176;

// ----- SCSIBusInquiryPB (mac-facts §6.3) -----
pub const SCSI_ENGINE_COUNT: u32 = 36;
pub const SCSI_MAX_TRANSFER_TYPE: u32 = 38;
pub const SCSI_DATA_TYPES: u32 = 40;
pub const SCSI_IO_PB_SIZE: u32 = 44;
pub const SCSI_MAX_IO_PB_SIZE: u32 = 46;
pub const SCSI_FEATURE_FLAGS: u32 = 48;
pub const SCSI_VERSION_NUMBER: u32 = 52;
pub const SCSI_HBA_INQUIRY: u32 = 53;
pub const SCSI_HI_BUS_ID: u32 = 68;
pub const SCSI_INITIATOR_ID: u32 = 69;
pub const SCSI_FLAGS_SUPPORTED: u32 = 76;
pub const SCSI_IO_FLAGS_SUPPORTED: u32 = 80;
pub const SCSI_MAX_TARGET: u32 = 84;
pub const SCSI_MAX_LUN: u32 = 86;
pub const SCSI_SIM_VENDOR: u32 = 88;
pub const SCSI_HBA_SLOT_TYPE: u32 = 164;
pub const SCSI_HBA_SLOT_NUMBER: u32 = 165;
pub const SCSI_SIMS_RSRC_ID: u32 = 166;
pub const SCSI_BUS_INQUIRY_PB_SIZE: u16 = 172;

// ----- other PBs (mac-facts §6.3) -----
/// `SCSIAbortCommandPB` / `SCSITerminateIOPB`: the PB to abort.
pub const SCSI_IO_PTR: u32 = 36;
pub const SCSI_ABORT_PB_SIZE: u16 = 40;
/// `SCSIDriverPB`.
pub const SCSI_DRIVER: u32 = 36;
pub const SCSI_DRIVER_FLAGS: u32 = 38;
pub const SCSI_NEXT_DEVICE: u32 = 40;
pub const SCSI_DRIVER_PB_SIZE: u16 = 44;
/// `SCSIGetVirtualIDInfoPB`.
pub const SCSI_OLD_CALL_ID: u32 = 36;
pub const SCSI_EXISTS: u32 = 38;
pub const SCSI_GET_VIRTUAL_ID_INFO_PB_SIZE: u16 = 40;

// ----- function codes (mac-facts §6.4) -----
pub const SCSI_NOP: u8 = 0x00;
pub const SCSI_EXEC_IO: u8 = 0x01;
pub const SCSI_BUS_INQUIRY: u8 = 0x03;
pub const SCSI_RELEASE_Q: u8 = 0x04;
pub const SCSI_ABORT_COMMAND: u8 = 0x10;
pub const SCSI_RESET_BUS: u8 = 0x11;
pub const SCSI_RESET_DEVICE: u8 = 0x12;
pub const SCSI_TERMINATE_IO: u8 = 0x13;
pub const SCSI_GET_VIRTUAL_ID_INFO: u8 = 0x80;
pub const SCSI_CREATE_REF_NUM_XREF: u8 = 0x85;
pub const SCSI_LOOKUP_REF_NUM_XREF: u8 = 0x86;
pub const SCSI_REMOVE_REF_NUM_XREF: u8 = 0x87;

// ----- scsiFlags (mac-facts §6.5) -----
pub const SCSI_DIRECTION_MASK: u32 = 0xC000_0000;
pub const SCSI_DIRECTION_IN: u32 = 0x4000_0000;
pub const SCSI_DIRECTION_OUT: u32 = 0x8000_0000;
pub const SCSI_DIRECTION_NONE: u32 = 0xC000_0000;
pub const SCSI_DISABLE_AUTOSENSE: u32 = 0x2000_0000;
pub const SCSI_CDB_LINKED: u32 = 0x0400_0000;
pub const SCSI_Q_ENABLE: u32 = 0x0200_0000;
pub const SCSI_CDB_IS_POINTER: u32 = 0x0100_0000;
pub const SCSI_SIMQ_HEAD: u32 = 0x0010_0000;
pub const SCSI_SIMQ_FREEZE: u32 = 0x0008_0000;
pub const SCSI_SIMQ_NO_FREEZE: u32 = 0x0004_0000;
pub const SCSI_DO_DISCONNECT: u32 = 0x0002_0000;
pub const SCSI_DONT_DISCONNECT: u32 = 0x0001_0000;
/// `scsiIOFlags`: `scsiDisableSelectWAtn`.
pub const SCSI_DISABLE_SELECT_W_ATN: u16 = 0x0004;

// ----- scsiResultFlags -----
pub const SCSI_SIMQ_FROZEN: u16 = 1;
pub const SCSI_AUTOSENSE_VALID: u16 = 2;
pub const SCSI_BUS_NOT_FREE: u16 = 4;

// ----- scsiDataType / scsiTransferType -----
pub const SCSI_DATA_BUFFER: u8 = 0;
pub const SCSI_DATA_TIB: u8 = 1;
pub const SCSI_DATA_SG: u8 = 2;
pub const SCSI_TRANSFER_BLIND: u8 = 0;
pub const SCSI_TRANSFER_POLLED: u8 = 1;

// ----- results (mac-facts §6.6) -----
pub const NO_ERR: i16 = 0;
pub const SCSI_REQUEST_IN_PROGRESS: i16 = 1;
pub const SCSI_REQUEST_ABORTED: i16 = -7934;
pub const SCSI_UNABLE_TO_ABORT: i16 = -7933;
pub const SCSI_NON_ZERO_STATUS: i16 = -7932;
pub const SCSI_UNABLE_TO_TERMINATE: i16 = -7927;
pub const SCSI_SELECT_TIMEOUT_ERR: i16 = -7926;
pub const SCSI_COMMAND_TIMEOUT: i16 = -7925;
pub const SCSI_SCSI_BUS_RESET: i16 = -7922;
pub const SCSI_AUTOSENSE_FAILED: i16 = -7920;
pub const SCSI_DATA_RUN_ERROR: i16 = -7918;
pub const SCSI_WRONG_DIRECTION: i16 = -7915;
pub const SCSI_BDR_SENT: i16 = -7913;
pub const SCSI_TERMINATED: i16 = -7912;
pub const SCSI_BUSY: i16 = -7887;
pub const SCSI_DEVICE_CONFLICT: i16 = -7883;
pub const SCSI_NO_SUCH_XREF: i16 = -7882;
pub const SCSI_Q_LINK_INVALID: i16 = -7881;
pub const SCSI_PB_LENGTH_ERROR: i16 = -7872;
pub const SCSI_FUNCTION_NOT_AVAILABLE: i16 = -7871;
pub const SCSI_REQUEST_INVALID: i16 = -7870;
pub const SCSI_BUS_INVALID: i16 = -7869;
pub const SCSI_TID_INVALID: i16 = -7868;
pub const SCSI_LUN_INVALID: i16 = -7867;
pub const SCSI_DATA_TYPE_INVALID: i16 = -7865;
pub const SCSI_TRANSFER_TYPE_INVALID: i16 = -7864;
pub const SCSI_CDB_LENGTH_INVALID: i16 = -7863;

/// What `SCSIBusInquiry` reports as `scsiFlagsSupported` (the flags this SIM honours).
pub const FLAGS_SUPPORTED: u32 = SCSI_DIRECTION_MASK
    | SCSI_DISABLE_AUTOSENSE
    | SCSI_CDB_IS_POINTER
    | SCSI_SIMQ_FREEZE
    | SCSI_SIMQ_NO_FREEZE;
/// `scsiDataTypes`: bit *n* set for data type *n* (buffer, TIB, S/G). Bit assignment INFERRED
/// (`scsiBusDataBuffer` = 1 << `scsiDataBuffer` etc.).
pub const DATA_TYPES_SUPPORTED: u32 =
    1 << SCSI_DATA_BUFFER | 1 << SCSI_DATA_TIB | 1 << SCSI_DATA_SG;
/// `scsiSIMVendor` string.
pub const SIM_VENDOR: &[u8; 16] = b"Ferrite emu SIM\0";

/// Bus time of a selection on an empty bus: the selection timeout (as on the virtual bus).
const EMPTY_BUS_SELECTION_NS: u64 = 250_000_000;

/// A request in the SIM.
pub(crate) struct Request {
    pb: u32,
    /// The request's bus: the virtual bus ([`super::ScsiManagerConfig::bus_number`]) or one
    /// of the empty buses below it.
    bus: u8,
    id: u8,
    lun: u8,
    flags: u32,
    completion: u32,
    done: Arc<AtomicBool>,
    /// What the SIM owns until completion, as it was at `SCSIAction`: `(what, address,
    /// bytes)` for the parameter block (past `qLink`), the sense buffer and the data buffer.
    owned: Vec<(&'static str, u32, Vec<u8>)>,
}

/// A5 in a completion routine: whatever the interrupted code had; here a value that faults
/// as a pointer (odd, outside RAM), since nothing promises the client's A5 (Inside
/// Macintosh: Devices ch. 4, completion routines run at interrupt time).
pub const COMPLETION_A5: u32 = 0xA5A5_A5A5;

/// What a request's completion writes to its PB.
#[derive(Debug, Clone, Copy, Default)]
struct Outcome {
    /// The target took the command and stopped responding.
    hung: bool,
    result: i16,
    scsi_status: u8,
    result_flags: u16,
    data_residual: u32,
    sense_residual: u8,
}

impl Outcome {
    fn error(result: i16) -> Outcome {
        Outcome {
            result,
            ..Default::default()
        }
    }
}

struct Active {
    req: Request,
    outcome: Outcome,
    /// DATA IN bytes the transaction read, written to the client's buffer at completion
    /// (when the data phase is over), not when the request started.
    data_in: Vec<(u32, Vec<u8>)>,
    /// The completion interrupt; `None` for a hung target and no `scsiTimeout`: it never
    /// completes.
    irq: Option<InterruptId>,
    due: u64,
}

/// The XPT + SIM state.
#[derive(Default)]
pub(crate) struct Sim {
    queue: VecDeque<Request>,
    active: Option<Active>,
    /// Frozen queues, by (bus, target, LUN).
    frozen: BTreeSet<(u8, u8, u8)>,
    pub(crate) xrefs: BTreeMap<u32, (i16, u16)>,
    /// Host routines of the completion glue: (entry, return).
    glue: Option<(u32, u32)>,
    /// Routine and PB for the next glue entry.
    glue_next: Vec<(u32, u32)>,
    /// SP each running glue expects back.
    glue_sp: Vec<u32>,
    /// The seeded choices (completion timing), made when the first request runs.
    rng: Option<crate::seed::Rng>,
    /// The PB of a request that finished inside `SCSIAction` (seeded timing).
    finished_inside: Option<u32>,
    /// Requests whose early end (abort, reset) is scheduled.
    ending: Vec<Request>,
}

impl Sim {
    /// True while a 4.3 request is on the bus (the old manager's `SCSIGet` refuses). Requests
    /// still queued are either about to start (the SIM starts one whenever the bus is free, so
    /// then one is active) or held by a frozen queue, which must not lock out the old API.
    pub(crate) fn busy(&self) -> bool {
        self.active.is_some()
    }
}

/// Whether a request for `(id, lun)` of the virtual bus is held because that LUN's queue is
/// frozen.
pub fn is_frozen(m: &mut Machine, id: u8, lun: u8) -> bool {
    let bus = state(m).config.bus_number;
    state(m).sim.frozen.contains(&(bus, id, lun))
}

/// PBs queued in the SIM (not yet on the bus), in order.
pub fn queued(m: &mut Machine) -> Vec<u32> {
    state(m).sim.queue.iter().map(|r| r.pb).collect()
}

/// The PB whose command is on the bus (completion pending), if any.
pub fn in_flight(m: &mut Machine) -> Option<u32> {
    state(m).sim.active.as_ref().map(|a| a.req.pb)
}

/// Register `_SCSIAtomic` and the completion glue.
pub(crate) fn install(m: &mut Machine) {
    if state(m).sim.glue.is_none() {
        let entry = m.add_host_routine(
            "SCSI Manager 4.3 completion glue",
            Some(Arc::new(glue_entry)),
        );
        let ret = m.add_host_routine(
            "SCSI Manager 4.3 completion glue (return)",
            Some(Arc::new(glue_return)),
        );
        state(m).sim.glue = Some((entry, ret));
    }
    m.register_trap(SCSI_ATOMIC, "SCSIAtomic", scsi_atomic);
}

fn misuse(field: &str, pb: u32, what: String) -> Fault {
    Fault::misuse(
        SCSI_ATOMIC,
        format!("SCSIAction PB ${pb:08X}: {field} {what}"),
    )
}

/// `_SCSIAtomic`: D0 = selector, A0 = PB.
fn scsi_atomic(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let sel = m.d(0);
    if sel != XPT_SCSI_ACTION {
        return Err(Fault::misuse(
            call.word,
            format!(
                "_SCSIAtomic selector {sel} (only 1, SCSIAction, is modelled; the others are for SIM writers)"
            ),
        ));
    }
    let pb = m.a(0);
    if !mapped(m, pb, SCSI_PB_HDR_SIZE as u32) || !pb.is_multiple_of(2) {
        return Err(Fault::misuse(
            call.word,
            format!("A0 = ${pb:08X}: the SCSIAction parameter block is not (even and) in RAM"),
        ));
    }
    let function = m.read_u8(pb + SCSI_FUNCTION_CODE);
    let device = m.read_u32(pb + SCSI_DEVICE);
    let completion = m.read_u32(pb + SCSI_COMPLETION);
    let (result, asynchronous) = match action(m, pb, function)? {
        Done::Now(r) => {
            m.write_u16(pb + SCSI_RESULT, r as u16);
            (r, false)
        }
        Done::Queued => (NO_ERR, true),
        Done::Waited(r) => (r, false),
    };
    m.set_d(0, result as i32 as u32);
    state(m).calls.push(ScsiCall::Action {
        function,
        pb,
        device,
        asynchronous: asynchronous && completion != 0,
        result,
    });
    Ok(())
}

enum Done {
    /// Finished inside the call; write `scsiResult`.
    Now(i16),
    /// Asynchronous request queued (`scsiResult` already 1).
    Queued,
    /// Synchronous request completed (results already in the PB).
    Waited(i16),
}

fn pb_size(function: u8) -> Option<u16> {
    Some(match function {
        SCSI_NOP | SCSI_RELEASE_Q | SCSI_RESET_BUS | SCSI_RESET_DEVICE => SCSI_PB_HDR_SIZE,
        SCSI_EXEC_IO => SCSI_EXEC_IO_PB_SIZE,
        SCSI_BUS_INQUIRY => SCSI_BUS_INQUIRY_PB_SIZE,
        SCSI_ABORT_COMMAND | SCSI_TERMINATE_IO => SCSI_ABORT_PB_SIZE,
        SCSI_GET_VIRTUAL_ID_INFO => SCSI_GET_VIRTUAL_ID_INFO_PB_SIZE,
        SCSI_CREATE_REF_NUM_XREF | SCSI_LOOKUP_REF_NUM_XREF | SCSI_REMOVE_REF_NUM_XREF => {
            SCSI_DRIVER_PB_SIZE
        }
        _ => return None,
    })
}

/// Check `scsiDevice`: `Ok((bus, target, lun))` or the error. Buses 0 to the virtual bus's
/// number exist ([`super::ScsiManagerConfig::bus_number`]).
fn check_device(m: &mut Machine, pb: u32, allow_xpt: bool) -> Result<(u8, u8, u8), i16> {
    let reserved = m.read_u8(pb + SCSI_DEVICE);
    let bus = m.read_u8(pb + SCSI_DEVICE + 1);
    let target = m.read_u8(pb + SCSI_DEVICE + 2);
    let lun = m.read_u8(pb + SCSI_DEVICE + 3);
    let hi_bus = state(m).config.bus_number;
    if reserved != 0 || !(bus <= hi_bus || (allow_xpt && bus == 0xFF)) {
        return Err(SCSI_BUS_INVALID);
    }
    if bus == 0xFF {
        return Ok((0xFF, 0xFF, 0));
    }
    if target >= 7 {
        return Err(SCSI_TID_INVALID);
    }
    if lun > 7 {
        return Err(SCSI_LUN_INVALID);
    }
    Ok((bus, target, lun))
}

fn action(m: &mut Machine, pb: u32, function: u8) -> Result<Done, Fault> {
    if m.read_u32(pb + Q_LINK) != 0 {
        return Ok(Done::Now(SCSI_Q_LINK_INVALID));
    }
    let Some(size) = pb_size(function) else {
        return Ok(Done::Now(SCSI_FUNCTION_NOT_AVAILABLE));
    };
    if m.read_u16(pb + SCSI_PB_LENGTH) < size {
        return Ok(Done::Now(SCSI_PB_LENGTH_ERROR));
    }
    if !mapped(m, pb, size as u32) {
        return Err(misuse(
            "(all of it)",
            pb,
            format!("must be {size} bytes of RAM"),
        ));
    }
    let dev = |m: &mut Machine, xpt| check_device(m, pb, xpt);
    let r = match function {
        SCSI_NOP => NO_ERR,
        SCSI_EXEC_IO => return exec_io(m, pb),
        SCSI_BUS_INQUIRY => match dev(m, true) {
            Err(e) => e,
            Ok(_) => bus_inquiry(m, pb),
        },
        SCSI_RELEASE_Q => match dev(m, false) {
            Err(e) => e,
            Ok(d) => {
                state(m).sim.frozen.remove(&d);
                kick(m)?;
                NO_ERR
            }
        },
        SCSI_ABORT_COMMAND | SCSI_TERMINATE_IO => {
            let target = m.read_u32(pb + SCSI_IO_PTR);
            let (ok, fail) = if function == SCSI_ABORT_COMMAND {
                (SCSI_REQUEST_ABORTED, SCSI_UNABLE_TO_ABORT)
            } else {
                (SCSI_TERMINATED, SCSI_UNABLE_TO_TERMINATE)
            };
            let hung_active = state(m)
                .sim
                .active
                .as_ref()
                .is_some_and(|a| a.req.pb == target && a.outcome.hung);
            if hung_active {
                // The request on the bus with a silent target: the SIM ends it by resetting
                // the bus (assumed; a request whose target is answering cannot be aborted).
                let a = state(m).sim.active.take().expect("checked");
                if let Some(irq) = a.irq {
                    m.cancel_interrupt(irq);
                }
                state(m).bus.reset();
                finish_soon(m, a.req, Outcome::error(ok));
                kick(m)?;
                NO_ERR
            } else {
                match remove_queued(m, target) {
                    Some(req) => {
                        finish_soon(m, req, Outcome::error(ok));
                        NO_ERR
                    }
                    None => fail,
                }
            }
        }
        SCSI_RESET_BUS => match dev(m, false) {
            Err(e) => e,
            // An empty bus: nothing on it to reset.
            Ok((bus, _, _)) if bus != state(m).config.bus_number => NO_ERR,
            Ok(_) => {
                state(m).bus.reset();
                fail_all_for_reset(m);
                NO_ERR
            }
        },
        SCSI_RESET_DEVICE => match dev(m, false) {
            Err(e) => e,
            Ok((bus, _, _)) if bus != state(m).config.bus_number => SCSI_SELECT_TIMEOUT_ERR,
            Ok((_, id, _)) => {
                let st = state(m);
                match st.bus.target_mut(id) {
                    Some(t) => {
                        if t.selectable() {
                            t.bus_reset();
                            NO_ERR
                        } else {
                            SCSI_SELECT_TIMEOUT_ERR
                        }
                    }
                    None => SCSI_SELECT_TIMEOUT_ERR,
                }
            }
        },
        SCSI_GET_VIRTUAL_ID_INFO => {
            let id = m.read_u16(pb + SCSI_OLD_CALL_ID);
            if id >= 7 {
                SCSI_TID_INVALID
            } else {
                let exists = state(m).bus.target(id as u8).is_some();
                let bus = state(m).config.bus_number as u32;
                m.write_u32(pb + SCSI_DEVICE, bus << 16 | (id as u32) << 8);
                m.write_u8(pb + SCSI_EXISTS, if exists { 1 } else { 0 });
                NO_ERR
            }
        }
        SCSI_CREATE_REF_NUM_XREF | SCSI_LOOKUP_REF_NUM_XREF | SCSI_REMOVE_REF_NUM_XREF => {
            // IM Devices ch. 4 (SCSICreateRefNumXref, SCSIRemoveRefNumXref): "may move
            // memory; you should not call it at interrupt time".
            if function != SCSI_LOOKUP_REF_NUM_XREF && m.at_interrupt_level() {
                return Err(misuse(
                    "scsiFunctionCode",
                    pb,
                    format!(
                        "${function:02X} (SCSICreate/RemoveRefNumXref) called at interrupt time: \
                         it may move memory (Inside Macintosh: Devices ch. 4)"
                    ),
                ));
            }
            if m.read_u32(pb + SCSI_COMPLETION) != 0 {
                SCSI_REQUEST_INVALID
            } else {
                match dev(m, false) {
                    Err(e) => e,
                    Ok(_) => xref(m, pb, function),
                }
            }
        }
        _ => unreachable!("pb_size covers every function"),
    };
    Ok(Done::Now(r))
}

fn xref(m: &mut Machine, pb: u32, function: u8) -> i16 {
    let key = m.read_u32(pb + SCSI_DEVICE);
    match function {
        SCSI_CREATE_REF_NUM_XREF => {
            let refnum = m.read_u16(pb + SCSI_DRIVER) as i16;
            let flags = m.read_u16(pb + SCSI_DRIVER_FLAGS);
            let x = &mut state(m).sim.xrefs;
            if x.contains_key(&key) {
                return SCSI_DEVICE_CONFLICT;
            }
            x.insert(key, (refnum, flags));
            NO_ERR
        }
        SCSI_LOOKUP_REF_NUM_XREF => {
            let x = &state(m).sim.xrefs;
            let (refnum, flags) = x.get(&key).copied().unwrap_or((0, 0));
            let next = x
                .range(key + 1..)
                .next()
                .map(|(k, _)| *k)
                .unwrap_or(0xFFFF_FFFF);
            m.write_u16(pb + SCSI_DRIVER, refnum as u16);
            m.write_u16(pb + SCSI_DRIVER_FLAGS, flags);
            m.write_u32(pb + SCSI_NEXT_DEVICE, next);
            NO_ERR
        }
        _ => match state(m).sim.xrefs.remove(&key) {
            Some(_) => NO_ERR,
            None => SCSI_NO_SUCH_XREF,
        },
    }
}

fn bus_inquiry(m: &mut Machine, pb: u32) -> i16 {
    m.write_u16(pb + SCSI_ENGINE_COUNT, 0);
    m.write_u16(pb + SCSI_MAX_TRANSFER_TYPE, SCSI_TRANSFER_POLLED as u16);
    m.write_u32(pb + SCSI_DATA_TYPES, DATA_TYPES_SUPPORTED);
    m.write_u16(pb + SCSI_IO_PB_SIZE, SCSI_EXEC_IO_PB_SIZE);
    m.write_u16(pb + SCSI_MAX_IO_PB_SIZE, SCSI_EXEC_IO_PB_SIZE);
    m.write_u32(pb + SCSI_FEATURE_FLAGS, 0);
    m.write_u8(pb + SCSI_VERSION_NUMBER, 1);
    m.write_u8(pb + SCSI_HBA_INQUIRY, 0);
    let hi_bus = state(m).config.bus_number;
    m.write_u8(pb + SCSI_HI_BUS_ID, hi_bus);
    m.write_u8(pb + SCSI_INITIATOR_ID, crate::scsi::bus::INITIATOR_ID);
    m.write_u32(pb + SCSI_FLAGS_SUPPORTED, FLAGS_SUPPORTED);
    m.write_u16(pb + SCSI_IO_FLAGS_SUPPORTED, SCSI_DISABLE_SELECT_W_ATN);
    m.write_u16(pb + SCSI_MAX_TARGET, 7);
    m.write_u16(pb + SCSI_MAX_LUN, 7);
    m.write_bytes(pb + SCSI_SIM_VENDOR, SIM_VENDOR);
    m.write_u8(pb + SCSI_HBA_SLOT_TYPE, 0);
    m.write_u8(pb + SCSI_HBA_SLOT_NUMBER, 0);
    m.write_u16(pb + SCSI_SIMS_RSRC_ID, 0);
    NO_ERR
}

/// Data segments `(address, length)` of a buffer or S/G request, truncated to `len`.
fn segments(
    m: &Machine,
    pb: u32,
    data_type: u8,
    ptr: u32,
    len: u32,
) -> Result<Result<Vec<(u32, u32)>, i16>, Fault> {
    if data_type == SCSI_DATA_BUFFER {
        if len > 0 && !mapped(m, ptr, len) {
            return Err(misuse(
                "scsiDataPtr",
                pb,
                format!("${ptr:08X}+{len} is not in RAM"),
            ));
        }
        return Ok(Ok(vec![(ptr, len)]));
    }
    let count = m.read_u16(pb + SCSI_SG_LIST_COUNT) as u32;
    if count > 0 && (!mapped(m, ptr, 8 * count) || !ptr.is_multiple_of(2)) {
        return Err(misuse(
            "scsiDataPtr",
            pb,
            format!("(S/G list of {count} entries) ${ptr:08X} is not in RAM"),
        ));
    }
    let mut segs = Vec::new();
    let mut left = len;
    for i in 0..count {
        if left == 0 {
            break;
        }
        let a = m.read_u32(ptr + 8 * i);
        let l = m.read_u32(ptr + 8 * i + 4).min(left);
        if l > 0 && !mapped(m, a, l) {
            return Err(misuse(
                "scsiDataPtr",
                pb,
                format!("S/G entry {i}: ${a:08X}+{l} is not in RAM"),
            ));
        }
        segs.push((a, l));
        left -= l;
    }
    if left > 0 {
        return Ok(Err(SCSI_REQUEST_INVALID));
    }
    Ok(Ok(segs))
}

fn exec_io(m: &mut Machine, pb: u32) -> Result<Done, Fault> {
    let (bus, id, lun) = match check_device(m, pb, false) {
        Ok(d) => d,
        Err(e) => return Ok(Done::Now(e)),
    };
    let flags = m.read_u32(pb + SCSI_FLAGS);
    let cdb_len = m.read_u8(pb + SCSI_CDB_LENGTH) as u32;
    if !(1..=16).contains(&cdb_len) {
        return Ok(Done::Now(SCSI_CDB_LENGTH_INVALID));
    }
    if flags & SCSI_CDB_IS_POINTER != 0 {
        let p = m.read_u32(pb + SCSI_CDB);
        if !mapped(m, p, cdb_len) {
            return Err(misuse(
                "scsiCDB (a pointer: scsiCDBIsPointer)",
                pb,
                format!("${p:08X}+{cdb_len} is not in RAM"),
            ));
        }
    }
    let dir = flags & SCSI_DIRECTION_MASK;
    if dir == 0 {
        return Ok(Done::Now(SCSI_REQUEST_INVALID));
    }
    let data_type = m.read_u8(pb + SCSI_DATA_TYPE);
    if !matches!(data_type, SCSI_DATA_BUFFER | SCSI_DATA_TIB | SCSI_DATA_SG) {
        return Ok(Done::Now(SCSI_DATA_TYPE_INVALID));
    }
    if !matches!(
        m.read_u8(pb + SCSI_TRANSFER_TYPE),
        SCSI_TRANSFER_BLIND | SCSI_TRANSFER_POLLED
    ) {
        return Ok(Done::Now(SCSI_TRANSFER_TYPE_INVALID));
    }
    let ptr = m.read_u32(pb + SCSI_DATA_PTR);
    let len = m.read_u32(pb + SCSI_DATA_LENGTH);
    if dir != SCSI_DIRECTION_NONE {
        if data_type == SCSI_DATA_TIB {
            if !mapped(m, ptr, 10) {
                return Err(misuse(
                    "scsiDataPtr",
                    pb,
                    format!("(a TIB) ${ptr:08X} is not in RAM"),
                ));
            }
        } else if let Err(e) = segments(m, pb, data_type, ptr, len)? {
            return Ok(Done::Now(e));
        }
    }
    let sense_ptr = m.read_u32(pb + SCSI_SENSE_PTR);
    let sense_len = m.read_u8(pb + SCSI_SENSE_LENGTH) as u32;
    if flags & SCSI_DISABLE_AUTOSENSE == 0
        && sense_len > 0
        && sense_ptr != 0
        && !mapped(m, sense_ptr, sense_len)
    {
        return Err(misuse(
            "scsiSensePtr",
            pb,
            format!("${sense_ptr:08X}+{sense_len} is not in RAM"),
        ));
    }
    let completion = m.read_u32(pb + SCSI_COMPLETION);
    if completion != 0 && (!mapped(m, completion, 2) || !completion.is_multiple_of(2)) {
        return Err(misuse(
            "scsiCompletion",
            pb,
            format!("${completion:08X} is not code in RAM"),
        ));
    }
    let bus_held = state(m).bus.phase() != BusPhase::BusFree;
    if completion == 0 {
        if bus_held {
            return Ok(Done::Now(SCSI_BUSY));
        }
        if state(m).sim.frozen.contains(&(bus, id, lun)) {
            return Err(Fault::misuse(
                SCSI_ATOMIC,
                format!(
                    "synchronous SCSIExecIO (PB ${pb:08X}) for target {id} LUN {lun}, whose SIM queue is frozen: \
                     it would wait forever (call SCSIReleaseQ first, or set scsiSIMQNoFreeze)"
                ),
            ));
        }
    }
    let done = Arc::new(AtomicBool::new(false));
    m.write_u16(pb + SCSI_RESULT, SCSI_REQUEST_IN_PROGRESS as u16);
    let mut owned = vec![(
        "its parameter block",
        pb + 4,
        m.read_bytes(pb + 4, SCSI_EXEC_IO_PB_SIZE as u32 - 4),
    )];
    if flags & SCSI_DISABLE_AUTOSENSE == 0 && sense_len > 0 && sense_ptr != 0 {
        owned.push((
            "its sense buffer",
            sense_ptr,
            m.read_bytes(sense_ptr, sense_len),
        ));
    }
    if dir != SCSI_DIRECTION_NONE && data_type != SCSI_DATA_TIB {
        for (a, l) in segments(m, pb, data_type, ptr, len)?.unwrap_or_default() {
            if l > 0 {
                owned.push(("its data buffer", a, m.read_bytes(a, l)));
            }
        }
    }
    let req = Request {
        pb,
        bus,
        id,
        lun,
        flags,
        completion,
        done: done.clone(),
        owned,
    };
    enqueue(m, req);
    state(m).sim.finished_inside = None;
    kick_from(m, Some(pb))?;
    if state(m).sim.finished_inside == Some(pb) {
        // Completed inside SCSIAction (seeded timing): results and completion are done.
        state(m).sim.finished_inside = None;
        if completion != 0 {
            return Ok(Done::Queued);
        }
        return Ok(Done::Waited(m.read_u16(pb + SCSI_RESULT) as i16));
    }
    if completion != 0 {
        return Ok(Done::Queued);
    }
    wait_done(m, pb, &done)?;
    Ok(Done::Waited(m.read_u16(pb + SCSI_RESULT) as i16))
}

fn enqueue(m: &mut Machine, req: Request) {
    if let Some(last) = state(m).sim.queue.back().map(|r| r.pb) {
        m.write_u32(last + Q_LINK, req.pb);
    }
    state(m).sim.queue.push_back(req);
}

/// Take `pb` out of the queue, keeping the guest links consistent.
fn remove_queued(m: &mut Machine, pb: u32) -> Option<Request> {
    let q = &mut state(m).sim.queue;
    let i = q.iter().position(|r| r.pb == pb)?;
    let req = q.remove(i).unwrap();
    let prev = if i > 0 { Some(q[i - 1].pb) } else { None };
    let next = q.get(i).map(|r| r.pb).unwrap_or(0);
    if let Some(p) = prev {
        m.write_u32(p + Q_LINK, next);
    }
    Some(req)
}

/// Start the next startable request if the bus is free.
pub(crate) fn kick(m: &mut Machine) -> Result<(), Fault> {
    kick_from(m, None)
}

/// When the request that just started completes: `None` = inside this call (only for the
/// request `SCSIAction` is issuing), else after that many cycles.
fn completion_delay(m: &mut Machine, bus_cycles: u64, may_finish_inside: bool) -> Option<u64> {
    let st = state(m);
    if st.config.timing == CompletionTiming::BusTime {
        return Some(bus_cycles);
    }
    let seed = st.config.seed;
    st.sim
        .rng
        .get_or_insert_with(|| crate::seed::Rng::new(seed, SEED_STREAM));
    let tick = m_cycles_per_tick(m);
    let rng = state(m).sim.rng.as_mut().expect("made above");
    match rng.below(4) {
        0 if may_finish_inside => None,
        0 | 1 => Some(rng.below_u64(bus_cycles + 1)),
        2 => Some(bus_cycles),
        _ => Some(bus_cycles + rng.below_u64(3 * tick + 1)),
    }
}

fn m_cycles_per_tick(m: &Machine) -> u64 {
    (m.clock_hz() as f64 / 60.15) as u64
}

fn kick_from(m: &mut Machine, issuing: Option<u32>) -> Result<(), Fault> {
    let st = state(m);
    if st.sim.active.is_some() || st.bus.phase() != BusPhase::BusFree {
        return Ok(());
    }
    let Some(pb) = st
        .sim
        .queue
        .iter()
        .find(|r| !st.sim.frozen.contains(&(r.bus, r.id, r.lun)))
        .map(|r| r.pb)
    else {
        return Ok(());
    };
    let req = remove_queued(m, pb).expect("found above");
    let (mut outcome, mut data_in, ns) = run_exec(m, &req)?;
    // A live target slower than `scsiTimeout` (a long VERIFY or FORMAT, a spin-up, a slow
    // card): the SIM does not wait for it either. The request ends at the timeout with
    // `scsiCommandTimeout` and a bus reset, as for a target that stopped answering; what the
    // target did meanwhile stays done, no data is delivered.
    let timeout_ns = match m.read_u32(pb + SCSI_TIMEOUT) as i32 {
        0 => u64::MAX,
        t if t > 0 => t as u64 * 1_000_000,
        t => t.unsigned_abs() as u64 * 1_000,
    };
    if !outcome.hung && outcome.result != SCSI_SCSI_BUS_RESET && ns > timeout_ns {
        outcome = Outcome {
            hung: true,
            result: SCSI_COMMAND_TIMEOUT,
            data_residual: m.read_u32(pb + SCSI_DATA_LENGTH),
            ..Outcome::default()
        };
        data_in.clear();
        state(m).slow_target_timeouts += 1;
    }
    let bus_reset = outcome.result == SCSI_SCSI_BUS_RESET;
    if bus_reset {
        // A target reset the bus: everything else in the SIM is lost too.
        let queued: Vec<Request> = state(m).sim.queue.drain(..).collect();
        for r in queued {
            finish_soon(m, r, Outcome::error(SCSI_SCSI_BUS_RESET));
        }
    }
    if outcome.hung {
        // The SIM gives up at `scsiTimeout` (> 0: ms, < 0: µs) and resets the bus to get it
        // back; with no timeout (0) the request never completes (Inside Macintosh: Devices
        // ch. 4, `scsiTimeout`).
        let timeout = m.read_u32(pb + SCSI_TIMEOUT) as i32;
        let ns = match timeout {
            0 => None,
            t if t > 0 => Some(t as u64 * 1_000_000),
            t => Some(t.unsigned_abs() as u64 * 1_000),
        };
        let (irq, due) = match ns {
            None => (None, u64::MAX),
            Some(ns) => {
                let cycles = ns_to_cycles(m, ns);
                let irq = m.schedule_interrupt(
                    cycles,
                    2,
                    "SCSI Manager 4.3 command timeout",
                    Box::new(move |m: &mut Machine| complete_active(m, pb)),
                );
                (Some(irq), m.emulated_cycles() + cycles)
            }
        };
        state(m).sim.active = Some(Active {
            req,
            outcome,
            data_in,
            irq,
            due,
        });
        return Ok(());
    }
    let cycles = ns_to_cycles(m, ns);
    let inside = issuing == Some(pb) && !bus_reset;
    let Some(cycles) = completion_delay(m, cycles, inside) else {
        // Completed before SCSIAction returns: the bus time passes inside the call, with
        // interrupts as the caller has them (a VBL that comes due is taken and counted).
        let at = m.emulated_cycles() + cycles;
        m.pass_time_taking_interrupts(at)?;
        state(m).sim.finished_inside = Some(pb);
        return finish(m, req, outcome, data_in);
    };
    let due = m.emulated_cycles() + cycles;
    let irq = m.schedule_interrupt(
        cycles,
        2,
        "SCSI Manager 4.3 command complete",
        Box::new(move |m: &mut Machine| complete_active(m, pb)),
    );
    state(m).sim.active = Some(Active {
        req,
        outcome,
        data_in,
        irq: Some(irq),
        due,
    });
    Ok(())
}

/// Write DATA IN bytes to the client's buffers. Other requests' snapshots of the same bytes
/// follow (the SIM wrote them, not the client).
fn deliver_data_in(m: &mut Machine, data_in: &[(u32, Vec<u8>)]) {
    for (a, bytes) in data_in {
        m.write_bytes(*a, bytes);
        let (start, end) = (*a, *a + bytes.len() as u32);
        let sim = &mut state(m).sim;
        let reqs = sim
            .queue
            .iter_mut()
            .chain(sim.ending.iter_mut())
            .chain(sim.active.as_mut().map(|x| &mut x.req));
        for req in reqs {
            for (_, oa, snap) in &mut req.owned {
                let (os, oe) = (*oa, *oa + snap.len() as u32);
                for addr in start.max(os)..end.min(oe) {
                    snap[(addr - os) as usize] = bytes[(addr - start) as usize];
                }
            }
        }
    }
}

fn complete_active(m: &mut Machine, pb: u32) -> Result<(), Fault> {
    let Some(a) = state(m).sim.active.take() else {
        return Err(Fault::misuse(
            SCSI_ATOMIC,
            format!("internal: completion of ${pb:08X} with nothing in flight"),
        ));
    };
    assert_eq!(a.req.pb, pb, "the in-flight request completes");
    if a.outcome.hung {
        // The timeout: the SIM resets the bus to take it back from the silent target.
        state(m).bus.reset();
    }
    finish(m, a.req, a.outcome, a.data_in)
}

/// The client must leave a request's parameter block, sense buffer and data buffer alone
/// while the SIM owns them, from `SCSIAction` to the completion (Inside Macintosh: Devices
/// ch. 4, "SCSI Manager 4.3": the PB belongs to the SIM until the completion routine runs).
/// A write there fails the run: on a real Mac it changes a command on the bus or is lost.
fn check_owned(m: &mut Machine, req: &Request) -> Result<(), Fault> {
    for (what, a, was) in &req.owned {
        let now = m.read_bytes(*a, was.len() as u32);
        if let Some(i) = now.iter().zip(was).position(|(x, y)| x != y) {
            return Err(Fault::misuse(
                SCSI_ATOMIC,
                format!(
                    "the guest wrote {what} (${:08X}, byte {i}: ${:02X} -> ${:02X}) while SCSI Manager 4.3 owned it: SCSIExecIO PB ${:08X} was issued and has not completed; use another parameter block and buffers for other commands until its completion runs",
                    a + i as u32,
                    was[i],
                    now[i],
                    req.pb
                ),
            ));
        }
    }
    Ok(())
}

/// Complete `req` with `outcome` from a level-2 interrupt as soon as possible.
fn finish_soon(m: &mut Machine, req: Request, outcome: Outcome) {
    finish_soon_with(m, req, outcome, Vec::new());
}

fn finish_soon_with(m: &mut Machine, req: Request, outcome: Outcome, data_in: DataIn) {
    // Kept in the SIM until then, so that DATA IN of others keeps its snapshots current.
    let pb = req.pb;
    state(m).sim.ending.push(req);
    m.schedule_interrupt(
        0,
        2,
        "SCSI Manager 4.3 request ended early",
        Box::new(move |m: &mut Machine| {
            let ending = &mut state(m).sim.ending;
            let i = ending
                .iter()
                .position(|r| r.pb == pb)
                .expect("an ending request is kept until it ends");
            let req = ending.remove(i);
            finish(m, req, outcome, data_in)
        }),
    );
}

/// Every request in the SIM ends with `scsiSCSIBusReset` (after a bus reset).
pub(crate) fn fail_all_for_reset(m: &mut Machine) {
    if let Some(a) = state(m).sim.active.take() {
        if let Some(irq) = a.irq {
            m.cancel_interrupt(irq);
        }
        let mut o = Outcome::error(SCSI_SCSI_BUS_RESET);
        o.data_residual = a.outcome.data_residual;
        // The data phase was over: what was read reaches the buffer.
        finish_soon_with(m, a.req, o, a.data_in);
    }
    let queued: Vec<Request> = state(m).sim.queue.drain(..).collect();
    for r in queued {
        finish_soon(m, r, Outcome::error(SCSI_SCSI_BUS_RESET));
    }
}

/// End `req`: check the client left what the SIM owned alone, write the DATA IN bytes
/// (data and autosense) held since the data phase, the results, then call the completion.
fn finish(m: &mut Machine, req: Request, mut o: Outcome, data_in: DataIn) -> Result<(), Fault> {
    let pb = req.pb;
    check_owned(m, &req)?;
    deliver_data_in(m, &data_in);
    let failed = !matches!(o.result, NO_ERR | SCSI_REQUEST_ABORTED | SCSI_TERMINATED);
    let freeze =
        (failed && req.flags & SCSI_SIMQ_NO_FREEZE == 0) || req.flags & SCSI_SIMQ_FREEZE != 0;
    if freeze {
        state(m).sim.frozen.insert((req.bus, req.id, req.lun));
        o.result_flags |= SCSI_SIMQ_FROZEN;
    }
    m.write_u16(pb + SCSI_RESULT_FLAGS, o.result_flags);
    m.write_u8(pb + SCSI_SCSI_STATUS, o.scsi_status);
    m.write_u8(pb + SCSI_SENSE_RESIDUAL, o.sense_residual);
    m.write_u32(pb + SCSI_DATA_RESIDUAL, o.data_residual);
    if state(m).config.clear_qlink_at_completion {
        m.write_u32(pb + Q_LINK, 0);
    }
    m.write_u16(pb + SCSI_RESULT, o.result as u16);
    req.done.store(true, Ordering::SeqCst);
    state(m).calls.push(ScsiCall::Completion {
        pb,
        result: o.result,
        routine: req.completion,
    });
    kick(m)?;
    if req.completion != 0 {
        call_completion(m, req.completion, pb, COMPLETION_A5)?;
    }
    Ok(())
}

fn wait_done(m: &mut Machine, pb: u32, done: &Arc<AtomicBool>) -> Result<(), Fault> {
    if m.interrupt_mask() < 2 {
        let d = done.clone();
        let ticks = state(m).config.sync_wait_ticks;
        return m.idle_until(
            move |_| d.load(Ordering::SeqCst),
            ticks,
            &format!("synchronous SCSIExecIO (PB ${pb:08X})"),
        );
    }
    // Interrupts at level 2 are masked: poll the SIM as the XPT does.
    while !done.load(Ordering::SeqCst) {
        let Some((irq, due, active_pb)) = state(m)
            .sim
            .active
            .as_ref()
            .map(|a| (a.irq, a.due, a.req.pb))
        else {
            return Err(Fault::misuse(
                SCSI_ATOMIC,
                format!(
                    "synchronous SCSIExecIO (PB ${pb:08X}) with interrupts masked: nothing in flight can finish it"
                ),
            ));
        };
        let Some(irq) = irq else {
            return Err(Fault::misuse(
                SCSI_ATOMIC,
                format!(
                    "synchronous SCSIExecIO (PB ${pb:08X}) with interrupts masked waits for a target that stopped responding, and no scsiTimeout ends it (would hang a real Mac)"
                ),
            ));
        };
        m.cancel_interrupt(irq);
        m.idle_to_cycle(due);
        complete_active(m, active_pb)?;
    }
    Ok(())
}

/// DATA IN bytes held until the completion: `(address, bytes)`.
type DataIn = Vec<(u32, Vec<u8>)>;

/// Run `req`'s whole transaction on the bus. Returns the outcome, the DATA IN bytes for the
/// client's buffer (buffer and S/G requests; a TIB moves its data itself) and the time: the
/// bus's plus, with a machine profile, the SCSI Manager's own.
fn run_exec(m: &mut Machine, req: &Request) -> Result<(Outcome, DataIn, u64), Fault> {
    let mut manager_ns = charge_command(m, Manager::V43);
    let (o, data_in, ns, moved, blind) = run_exec_bus(m, req)?;
    let kind = if blind {
        TransferKind::Blind
    } else {
        TransferKind::Polled
    };
    manager_ns += charge_data(m, kind, moved);
    Ok((o, data_in, ns + manager_ns))
}

/// [`run_exec`]'s bus transaction: also the data bytes moved and whether blind.
#[allow(clippy::type_complexity)]
fn run_exec_bus(
    m: &mut Machine,
    req: &Request,
) -> Result<(Outcome, DataIn, u64, u64, bool), Fault> {
    let pb = req.pb;
    let t0 = state(m).bus.time_ns();
    let flags = req.flags;
    let io_flags = m.read_u16(pb + SCSI_IO_FLAGS);
    let cdb_len = m.read_u8(pb + SCSI_CDB_LENGTH) as u32;
    let cdb_addr = if flags & SCSI_CDB_IS_POINTER != 0 {
        m.read_u32(pb + SCSI_CDB)
    } else {
        pb + SCSI_CDB
    };
    let cdb = m.read_bytes(cdb_addr, cdb_len);
    let dir = flags & SCSI_DIRECTION_MASK;
    let data_type = m.read_u8(pb + SCSI_DATA_TYPE);
    let blind = m.read_u8(pb + SCSI_TRANSFER_TYPE) == SCSI_TRANSFER_BLIND;
    let ptr = m.read_u32(pb + SCSI_DATA_PTR);
    let len = m.read_u32(pb + SCSI_DATA_LENGTH);
    let underrun_is_error = state(m).config.underrun_is_error;
    let mut o = Outcome::default();

    let atn = io_flags & SCSI_DISABLE_SELECT_W_ATN == 0;
    if req.bus != state(m).config.bus_number {
        // An empty bus: nobody answers the selection (the 250 ms selection timeout).
        o.result = SCSI_SELECT_TIMEOUT_ERR;
        o.data_residual = len;
        return Ok((o, Vec::new(), EMPTY_BUS_SELECTION_NS, 0, blind));
    }
    {
        let bus = &mut state(m).bus;
        bus.arbitrate().expect("the SIM starts only on a free bus");
        match bus.select(req.id, atn, req.lun) {
            Ok(()) => {}
            Err(SelectError::Timeout) => {
                o.result = SCSI_SELECT_TIMEOUT_ERR;
                o.data_residual = len;
                return Ok((o, Vec::new(), bus.time_ns() - t0, 0, blind));
            }
            Err(e) => unreachable!("validated selection failed: {e:?}"),
        }
        if bus.command(&cdb).expect("command phase") == BusPhase::BusFree {
            o.result = SCSI_SCSI_BUS_RESET;
            o.data_residual = len;
            return Ok((o, Vec::new(), bus.time_ns() - t0, 0, blind));
        }
        if bus.is_hung() {
            // Nothing more comes: the request ends only at `scsiTimeout` (see `kick_from`).
            o.hung = true;
            o.result = SCSI_COMMAND_TIMEOUT;
            o.data_residual = len;
            return Ok((o, Vec::new(), bus.time_ns() - t0, 0, blind));
        }
    }

    let mut moved: u64 = 0;
    let mut data_in: DataIn = Vec::new();
    let mut wrong_dir = false;
    let mut overrun = false;
    let mut underrun_blind = false;
    let mut bad_tib = false;
    let want_in = dir == SCSI_DIRECTION_IN;
    let want_out = dir == SCSI_DIRECTION_OUT;
    let phase_dir_ok = |p: BusPhase| match p {
        BusPhase::DataIn { .. } => want_in,
        BusPhase::DataOut { .. } => want_out,
        _ => true,
    };
    if !phase_dir_ok(state(m).bus.phase()) {
        wrong_dir = true;
        state(m).bus.skip_to_status().expect("data phase");
    } else if data_type == SCSI_DATA_TIB && dir != SCSI_DIRECTION_NONE {
        if matches!(
            state(m).bus.phase(),
            BusPhase::DataIn { .. } | BusPhase::DataOut { .. }
        ) {
            let tdir = if want_in { TibDir::In } else { TibDir::Out };
            let run = tib::run(m, ptr, tdir, blind, SCSI_ATOMIC)?;
            moved = run.moved as u64;
            match run.end {
                TibEnd::Stop | TibEnd::PhaseChanged { .. } => {}
                TibEnd::BlindTimeout { .. } | TibEnd::CompareMismatch { .. } => {
                    underrun_blind = true
                }
                TibEnd::BadInstruction { .. } => bad_tib = true,
            }
            if matches!(
                state(m).bus.phase(),
                BusPhase::DataIn { .. } | BusPhase::DataOut { .. }
            ) {
                if !bad_tib && !underrun_blind {
                    overrun = true;
                }
                state(m).bus.skip_to_status().expect("data phase");
            }
        }
    } else if dir != SCSI_DIRECTION_NONE {
        let segs = segments(m, pb, data_type, ptr, len)?.expect("validated at SCSIAction");
        let mut seg = 0usize;
        let mut off = 0u32;
        loop {
            let phase = state(m).bus.phase();
            let (is_in, is_out) = (
                matches!(phase, BusPhase::DataIn { .. }),
                matches!(phase, BusPhase::DataOut { .. }),
            );
            if !is_in && !is_out {
                break;
            }
            while seg < segs.len() && off == segs[seg].1 {
                seg += 1;
                off = 0;
            }
            if seg == segs.len() {
                overrun = true;
                state(m).bus.skip_to_status().expect("data phase");
                break;
            }
            let (a, l) = segs[seg];
            let chunk = l - off;
            let n = if is_in {
                let data = state(m).bus.read(chunk as usize).expect("DATA IN");
                let n = data.len() as u32;
                data_in.push((a + off, data));
                n
            } else {
                let data = m.read_bytes(a + off, chunk);
                state(m).bus.write(&data).expect("DATA OUT") as u32
            };
            off += n;
            moved += n as u64;
        }
    }
    let bus = &mut state(m).bus;
    let st = bus.status().expect("status phase after data");
    bus.message_in().expect("message in after status");
    o.scsi_status = st;
    o.data_residual = (len as u64).saturating_sub(moved) as u32;
    let underrun = dir != SCSI_DIRECTION_NONE && moved < len as u64;
    o.result = if st != status::GOOD {
        SCSI_NON_ZERO_STATUS
    } else if wrong_dir {
        SCSI_WRONG_DIRECTION
    } else if bad_tib {
        SCSI_REQUEST_INVALID
    } else if overrun || underrun_blind || (underrun && underrun_is_error) {
        SCSI_DATA_RUN_ERROR
    } else {
        NO_ERR
    };
    if st == status::CHECK_CONDITION {
        autosense(m, req, &mut o, atn, &mut data_in);
    }
    let ns = state(m).bus.time_ns() - t0;
    Ok((o, data_in, ns, moved, blind))
}

/// REQUEST SENSE into `scsiSensePtr` after CHECK CONDITION.
fn autosense(m: &mut Machine, req: &Request, o: &mut Outcome, atn: bool, data_in: &mut DataIn) {
    let pb = req.pb;
    let sense_ptr = m.read_u32(pb + SCSI_SENSE_PTR);
    let sense_len = m.read_u8(pb + SCSI_SENSE_LENGTH);
    if req.flags & SCSI_DISABLE_AUTOSENSE != 0 || sense_ptr == 0 || sense_len == 0 {
        return;
    }
    o.sense_residual = sense_len;
    let bus = &mut state(m).bus;
    bus.arbitrate().expect("bus free after the command");
    if bus.select(req.id, atn, req.lun).is_err() {
        return;
    }
    let mut data = Vec::new();
    let mut phase = bus
        .command(&[0x03, 0, 0, 0, sense_len, 0])
        .expect("command phase");
    if phase == BusPhase::BusFree {
        return;
    }
    while matches!(phase, BusPhase::DataIn { .. } | BusPhase::DataOut { .. }) {
        if matches!(phase, BusPhase::DataIn { .. }) && data.len() < sense_len as usize {
            let got = bus.read(sense_len as usize - data.len()).expect("DATA IN");
            data.extend_from_slice(&got);
        } else {
            bus.skip_to_status().expect("data phase");
        }
        phase = bus.phase();
    }
    let st = bus.status().expect("status");
    bus.message_in().expect("message in");
    if st == status::GOOD {
        o.sense_residual = sense_len - data.len() as u8;
        data_in.push((sense_ptr, data));
        o.result_flags |= SCSI_AUTOSENSE_VALID;
    }
}

/// Call completion routine `routine` Pascal-style with `pb`, A5 = `a5`.
fn call_completion(m: &mut Machine, routine: u32, pb: u32, a5: u32) -> Result<(), Fault> {
    let (entry, _) = state(m).sim.glue.expect("installed");
    state(m).sim.glue_next.push((routine, pb));
    m.call_with_registers(entry, &[(13, a5)], Preserved::MAC_OS)?;
    Ok(())
}

/// Glue entry (a host routine reached by the nested call; SP → the sentinel): push the PB,
/// then the glue's return address, then "return" into the routine.
fn glue_entry(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    let (routine, pb) = state(m)
        .sim
        .glue_next
        .pop()
        .expect("glue entered with a routine");
    let (_, ret) = state(m).sim.glue.expect("installed");
    let sp = m.sp();
    state(m).sim.glue_sp.push(sp);
    m.push_u32(pb);
    m.push_u32(ret);
    m.push_u32(routine);
    Ok(())
}

/// Glue return: the routine must have popped its PB pointer.
fn glue_return(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    let expected = state(m).sim.glue_sp.pop().expect("glue return after entry");
    let sp = m.sp();
    if sp != expected {
        return Err(Fault::Misuse {
            trap: None,
            message: format!(
                "SCSI Manager 4.3 completion routine returned with SP ${sp:08X}, expected ${expected:08X} \
                 ({:+} bytes): it is called Pascal-style and must pop its 4-byte PB pointer",
                sp as i64 - expected as i64
            ),
        });
    }
    Ok(())
}
