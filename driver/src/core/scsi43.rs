//! The SCSI Manager 4.3 transport: filling an `SCSIExecIOPB` and reading its outcome.
//!
//! Two parameter blocks, each with its own sense buffer: [`Slot::Async`] belongs to the one
//! asynchronous Prime request the driver may have in flight, and the SIM owns it (and its
//! data buffer) from `SCSIAction` until the completion routine runs; [`Slot::Sync`] serves
//! every synchronous command (install, immediate Prime, Control), which may come while the
//! asynchronous one is in flight.

use super::*;
use crate::mac::at;

/// Which of the driver's two parameter blocks a command uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    Async,
    Sync,
}

/// Bytes of sense data asked for (fixed format).
const SENSE_LEN: u8 = crate::sense::SENSE_LEN as u8;

/// `scsiTimeout` of every command, in milliseconds: a drive that stops answering ends the
/// request with `scsiCommandTimeout` instead of holding the bus (and the Mac) for ever. Long
/// enough for a spin-up (START STOP UNIT waits for it) or a drive's own error recovery.
const COMMAND_TIMEOUT_MS: i32 = 20_000;

fn parts(g: &mut Globals, slot: Slot) -> (&mut ScsiExecIoPb, &mut [u8; 32]) {
    match slot {
        Slot::Async => (&mut g.pb, &mut g.sense),
        Slot::Sync => (&mut g.spb, &mut g.ssense),
    }
}

/// Address of `slot`'s parameter block.
pub(super) fn pb_address(g: &Globals, slot: Slot) -> u32 {
    match slot {
        Slot::Async => core::ptr::addr_of!(g.pb) as u32,
        Slot::Sync => core::ptr::addr_of!(g.spb) as u32,
    }
}

/// Fill `slot`'s parameter block for `cdb`; its sense buffer is cleared, so sense left from
/// an earlier command can never be read as this one's. The asynchronous slot gets the
/// completion routine.
pub(super) fn fill_pb43(g: &mut Globals, slot: Slot, cdb: &[u8], dir: Dir, data: u32, len: u32) {
    let completion = match slot {
        Slot::Async => mac::completion_address(),
        Slot::Sync => 0,
    };
    let (bus, target, lun, dce) = (g.bus, g.target, g.lun, g.dce);
    let (p, sense) = parts(g, slot);
    sense[..SENSE_LEN as usize].fill(0);
    let sense = sense.as_mut_ptr() as u32;
    *p = ScsiExecIoPb::new_zeroed();
    p.scsi_pb_length
        .set(core::mem::size_of::<ScsiExecIoPb>() as u16);
    p.scsi_function_code = SCSI_EXEC_IO;
    p.scsi_device = [0, bus, target, lun];
    p.scsi_completion.set(completion);
    p.scsi_flags.set(
        match dir {
            Dir::None => DIR_NONE,
            Dir::In => DIR_IN,
            Dir::Out => DIR_OUT,
        } | SIMQ_NO_FREEZE,
    );
    p.scsi_driver_storage.set(dce);
    p.scsi_data_ptr.set(data);
    p.scsi_data_length.set(len);
    p.scsi_sense_ptr.set(sense);
    p.scsi_sense_length = SENSE_LEN;
    p.scsi_cdb_length = cdb.len() as u8;
    p.scsi_cdb[..cdb.len()].copy_from_slice(cdb);
    p.scsi_timeout.set(COMMAND_TIMEOUT_MS);
}

/// The asynchronous slot again for a transfer, after [`fill_pb43`] made it one
/// (`g.async_armed`): the fields a transfer changes, and those the SIM wrote back, by aligned
/// moves — `qLink` (the SIM links queued blocks through it and leaves it), the flags'
/// direction, the data, the READ(10)/WRITE(10) CDB, and the results. The sense buffer is
/// still clear: [`outcome43`] clears it after any command that did not end with result 0.
pub(super) fn rearm_transfer43(g: &mut Globals, write: bool, lba: u32, n: u32, data: u32) {
    let pb = pb_address(g, Slot::Async);
    let (dir, op) = if write {
        (DIR_OUT, scsi::op::WRITE_10)
    } else {
        (DIR_IN, scsi::op::READ_10)
    };
    mac::poke32(pb + at::SCSI_Q_LINK, 0);
    mac::poke32(pb + at::SCSI_FLAGS, dir | SIMQ_NO_FREEZE);
    mac::poke32(pb + at::SCSI_RESULT_FLAGS, 0);
    mac::poke32(pb + at::SCSI_DATA_PTR, data);
    mac::poke32(pb + at::SCSI_DATA_LENGTH, n * BLOCK);
    mac::poke32(pb + at::SCSI_STATUS, 0);
    mac::poke32(pb + at::SCSI_DATA_RESIDUAL, 0);
    // READ(10)/WRITE(10): opcode, 0, LBA (4), 0, blocks (2), control 0.
    mac::poke16(pb + at::SCSI_CDB, (op as u16) << 8);
    mac::poke32(pb + at::SCSI_CDB + 2, lba);
    mac::poke32(pb + at::SCSI_CDB + 6, n << 8);
}

/// One synchronous command through the synchronous slot.
pub(super) fn command43(g: &mut Globals, cdb: &[u8], dir: Dir, data: u32, len: u32) -> Recovery {
    fill_pb43(g, Slot::Sync, cdb, dir, data, len);
    let r = mac::scsi_action(pb_address(g, Slot::Sync));
    outcome43(g, Slot::Sync, r, dir == Dir::Out)
}

pub(super) fn map_transport(r: i16) -> i16 {
    match r {
        SCSI_SELECT_TIMEOUT => err::OFF_LIN_ERR,
        _ => err::IO_ERR,
    }
}

/// Decide after a 4.3 command of `slot` ended with `result`. A SIM may report an underrun
/// as `scsiDataRunError` or as success with `scsiDataResidual` set: both are a short
/// transfer, retried unless the command may move less (INQUIRY, MODE SENSE).
#[inline(always)]
pub(super) fn outcome43(g: &mut Globals, slot: Slot, result: i16, write: bool) -> Recovery {
    if result == 0 && mac::peek32(pb_address(g, slot) + at::SCSI_DATA_RESIDUAL) == 0 {
        return Recovery::Done;
    }
    outcome43_slow(g, slot, result, write)
}

/// [`outcome43`] of anything but a clean result. Sense that came with this result (read
/// now, if at all) is never read as a later command's: the buffer is clear again before the
/// slot is armed again.
#[inline(never)]
fn outcome43_slow(g: &mut Globals, slot: Slot, result: i16, write: bool) -> Recovery {
    let r = outcome43_decide(g, slot, result, write);
    parts(g, slot).1[..SENSE_LEN as usize].fill(0);
    r
}

fn outcome43_decide(g: &mut Globals, slot: Slot, result: i16, write: bool) -> Recovery {
    // `short_ok` is the synchronous command's: never the asynchronous transfer's.
    let short_ok = slot == Slot::Sync && g.short_ok != 0;
    let (p, _) = parts(g, slot);
    let good = p.scsi_scsi_status == status::GOOD;
    let short = p.scsi_data_residual.get() != 0;
    let r = match result {
        0 if short && !short_ok => Recovery::Retry,
        0 => Recovery::Done,
        SCSI_NON_ZERO_STATUS => status_outcome(g, slot, write),
        SCSI_DATA_RUN_ERROR if !good => status_outcome(g, slot, write),
        SCSI_DATA_RUN_ERROR if short_ok => Recovery::Done,
        SCSI_DATA_RUN_ERROR => Recovery::Retry,
        SCSI_BUS_RESET => Recovery::Retry,
        // No answer to the selection, or a target that stopped answering (the SIM reset the
        // bus at `scsiTimeout`): once more, as on the original SCSI Manager.
        SCSI_SELECT_TIMEOUT | SCSI_COMMAND_TIMEOUT => Recovery::Transport(map_transport(result)),
        r => Recovery::Fail(map_transport(r)),
    };
    // A transfer that came short is never complete, whatever the status and sense say
    // (CHECK CONDITION with RECOVERED ERROR or NO SENSE): it is sent again.
    if r == Recovery::Done && short && !short_ok {
        Recovery::Retry
    } else {
        r
    }
}

/// The status byte and the autosense data of the last command of `slot` → what to do. Only
/// the bytes the SIM reports as received (`scsiSenseLength − scsiSenseResidual`) are read.
fn status_outcome(g: &mut Globals, slot: Slot, write: bool) -> Recovery {
    let removable = g.removable != 0;
    let (p, sense) = parts(g, slot);
    let valid = p.scsi_result_flags.get() & SCSI_AUTOSENSE_VALID != 0;
    let got = (SENSE_LEN as i16 - p.scsi_sense_residual as i16).clamp(0, SENSE_LEN as i16);
    let parsed = if valid {
        parse_sense(sense, got as u32, removable)
    } else {
        None
    };
    let (status, opcode) = (p.scsi_scsi_status, p.scsi_cdb[0]);
    if parsed.is_some() {
        let mut raw = [0u8; 14];
        raw.copy_from_slice(&sense[..14]);
        note_sense(g, opcode, &raw);
    }
    classify(status, parsed, write)
}
