//! Prime: a Device Manager read or write → SCSI transfers.
//!
//! * **Queued, SCSI Manager 4.3**: asynchronous. The current chunk goes out on the
//!   asynchronous slot; its completion routine ([`complete`]) sends the next chunk or ends
//!   the request through IODone. The completion may come before `SCSIAction` returns (then
//!   Prime itself reports the end: `in_prime`/`early_done`).
//! * **Queued, original SCSI Manager**: synchronous, chunk by chunk; a drive that is not
//!   ready yet, or a bus someone else holds, is retried from the VBL task ([`vbl_retry`]),
//!   which ends the request through IODone — never by waiting here, where the driver may
//!   run at interrupt level.
//! * **Immediate**: synchronous on the synchronous slot; it cannot be deferred, so what
//!   cannot be done now fails with `ioErr`.
//! * **Idle flush**: once writes went into the drive's cache ([`mark_dirty`]), accRun flushes
//!   it when they have been idle for the settings' time (`control::idle_flush`).

use super::command::{Step, recover, stage_transfer, staged_step};
use super::scsi_old::{chunk_cap, old_transfer};
use super::scsi43::{Slot, fill_pb43, map_transport, outcome43, pb_address, rearm_transfer43};
use super::*;
use crate::mac::at;

pub(super) fn find_drive(g: &Globals, number: i16) -> Option<usize> {
    (0..g.ndrives as usize).find(|&i| g.drives[i].number as i16 == number)
}

pub(super) fn prime(pb_addr: u32, dce_addr: u32) -> i16 {
    let g = globals(dce_addr);
    // The parameter block's and the DCE's fields by aligned moves (`mac::at`).
    let number = mac::peek16(pb_addr + at::IO_VREF_NUM);
    let drives = g.drives.iter().take(g.ndrives as usize);
    let Some(&Drive { extent, qel, .. }) = drives.into_iter().find(|d| d.number == number) else {
        return err::NS_DRV_ERR;
    };
    // `medium_changed` and `in_command` in one word test (the common case pays nothing
    // more): a changed medium fails the call; a synchronous command of ours in progress
    // (this Prime interrupted it) holds the transport's buffers — refused on the original
    // SCSI Manager, whose every transfer would share them (`ioErr`); under 4.3 a queued
    // request has its own parameter block, and an immediate one is refused by
    // `staged_step`.
    if mac::peek16(core::ptr::addr_of!(g.medium_changed) as u32) != 0 {
        if g.medium_changed != 0 {
            return err::OFF_LIN_ERR;
        }
        if g.use43 == 0 {
            return err::IO_ERR;
        }
    }
    let trap = mac::peek16(pb_addr + at::IO_TRAP);
    let write = trap & 0xFF == 3;
    let immediate = trap & 0x0200 != 0;
    let pos = if mac::peek16(pb_addr + at::IO_POS_MODE) & 0x0100 != 0 {
        // With kUseWidePositioning the block is an XIOParam (54 bytes).
        let hi = mac::peek32(pb_addr + at::IO_WPOS_OFFSET) as u64;
        let lo = mac::peek32(pb_addr + at::IO_WPOS_OFFSET + 4) as u64;
        hi << 32 | lo
    } else {
        mac::peek32(dce_addr + at::D_CTL_POSITION) as u64
    };
    let count = mac::peek32(pb_addr + at::IO_REQ_COUNT);
    mac::poke32(pb_addr + at::IO_ACT_COUNT, 0);
    let t = match request::plan(extent, pos, count) {
        Ok(t) => t,
        // A drive a new medium has no partition for has an empty extent: off line.
        Err(_) if qel.disk_in_place == 0 => return err::OFF_LIN_ERR,
        Err(e) => return e,
    };
    if t.blocks == 0 {
        return 0;
    }
    let buf = mac::peek32(pb_addr + at::IO_BUFFER);
    if immediate || g.active_pb != 0 {
        // An immediate call (possibly while a queued request is in flight): at once, on the
        // synchronous slot, with its own position.
        return prime_now(g, pb_addr, dce_addr, write, t, buf, count);
    }
    if g.switch43 != 0 {
        super::switch::at_request_start(g);
    }
    g.active_pb = pb_addr;
    g.active_write = write as u8;
    g.active_lba = t.lba;
    g.active_left = t.blocks;
    g.active_buf = buf;
    g.active_total = count;
    g.not_ready_waits = 0;
    if g.use43 == 0 {
        return run_old(g, dce_addr);
    }
    g.retries = 0;
    g.transport_retries = 0;
    g.early_done = 0;
    g.in_prime = 1;
    let r = issue_async(g);
    g.in_prime = 0;
    if r != 0 {
        g.active_pb = 0;
        return r;
    }
    if g.early_done != 0 {
        return g.early_result;
    }
    SCSI_REQUEST_IN_PROGRESS
}

/// An immediate Prime (or one that comes while a queued request is in flight): synchronous,
/// on the synchronous slot; what cannot be done now fails with `ioErr`.
#[inline(never)]
fn prime_now(
    g: &mut Globals,
    pb_addr: u32,
    dce_addr: u32,
    write: bool,
    t: request::Transfer,
    buf: u32,
    count: u32,
) -> i16 {
    let (mut lba, mut left, mut at) = (t.lba, t.blocks, buf);
    while left > 0 {
        let n = request::next_chunk(left, chunk_cap(g));
        stage_transfer(g, write, lba, n);
        match staged_step(g, 10, dir(write), at, n * BLOCK) {
            Step::Done => {}
            Step::Fail(e) => return e,
            Step::Later => return err::IO_ERR,
        }
        lba += n;
        left -= n;
        at += n * BLOCK;
    }
    finish_transfer(pb_addr, dce_addr, count);
    if write {
        mark_dirty(g);
    }
    0
}

fn dir(write: bool) -> Dir {
    if write { Dir::Out } else { Dir::In }
}

fn transfer_cdb(write: bool, lba: u32, n: u32) -> [u8; 10] {
    let op = if write {
        scsi::op::WRITE_10
    } else {
        scsi::op::READ_10
    };
    scsi::rw10(op, 0, lba, n as u16)
}

pub(super) fn finish_transfer(pb_addr: u32, dce_addr: u32, count: u32) {
    mac::poke32(pb_addr + at::IO_ACT_COUNT, count);
    let pos = dce_addr + at::D_CTL_POSITION;
    mac::poke32(pos, mac::peek32(pos).wrapping_add(count));
}

/// The active request on the original SCSI Manager, synchronously, chunk by chunk: its
/// result when it ended, `SCSI_REQUEST_IN_PROGRESS` when a step cannot be done now (NOT
/// READY, a busy bus) and the VBL task takes it up again later ([`vbl_retry`]) — never by
/// waiting here, where the driver may run at interrupt level. The request's progress is
/// kept in locals and written back only for the VBL task.
#[inline(never)]
fn run_old(g: &mut Globals, dce_addr: u32) -> i16 {
    let (mut lba, mut left, mut buf) = (g.active_lba, g.active_left, g.active_buf);
    loop {
        // At most the settings' cap (`scsi_old::configure` made "no cap" 65,535).
        let n = left.min(g.max_blocks_old as u32);
        // The transaction straight away, the recovery only when it did not end GOOD. As
        // `staged_step` does, the VBL task's retries stay out of our buffers meanwhile.
        g.in_command += 1;
        let step = match old_transfer(g, lba, n, buf) {
            Recovery::Done => Step::Done,
            first => recover_old(g, first, buf, n),
        };
        g.in_command -= 1;
        match step {
            Step::Done => {}
            Step::Fail(e) => {
                g.active_pb = 0;
                return e;
            }
            Step::Later => {
                (g.active_lba, g.active_left, g.active_buf) = (lba, left, buf);
                return defer_old(g);
            }
        }
        lba += n;
        left -= n;
        buf += n * BLOCK;
        if left == 0 {
            break;
        }
    }
    let pb = g.active_pb;
    g.active_pb = 0;
    finish_transfer(pb, dce_addr, g.active_total);
    if g.active_write != 0 {
        mark_dirty(g);
    }
    0
}

/// [`recover`] of the active request's transfer of `n` blocks to or from `buf`, whose first
/// try ended with `first`.
#[inline(never)]
fn recover_old(g: &mut Globals, first: Recovery, buf: u32, n: u32) -> Step {
    let d = dir(g.active_write != 0);
    recover(g, first, 10, d, buf, n * BLOCK)
}

/// [`run_old`] cannot do its step now: leave the rest to the VBL task in
/// `NOT_READY_WAIT_TICKS` (`SCSI_REQUEST_IN_PROGRESS`), or fail with `ioErr` when it is
/// missing or its waits are used up.
#[inline(never)]
fn defer_old(g: &mut Globals) -> i16 {
    if g.vbl_installed != 0 && g.not_ready_waits < MAX_NOT_READY_WAITS {
        g.not_ready_waits += 1;
        g.vbl.vbl_count.set(NOT_READY_WAIT_TICKS as i16);
        return SCSI_REQUEST_IN_PROGRESS;
    }
    g.active_pb = 0;
    err::IO_ERR
}

/// Start the current chunk of the active request asynchronously. 0 or an error.
pub(super) fn issue_async(g: &mut Globals) -> i16 {
    if g.starting != 0 {
        let cdb = scsi::start_stop_unit(true, false);
        fill_pb43(g, Slot::Async, &cdb, Dir::None, 0, 0);
        g.async_armed = 0;
    } else {
        // SCSI Manager 4.3 only: no cap.
        let n = request::next_chunk(g.active_left, 0);
        g.active_chunk = n;
        let write = g.active_write != 0;
        if g.async_armed != 0 {
            rearm_transfer43(g, write, g.active_lba, n, g.active_buf);
        } else {
            let cdb = transfer_cdb(write, g.active_lba, n);
            fill_pb43(g, Slot::Async, &cdb, dir(write), g.active_buf, n * BLOCK);
            g.async_armed = 1;
        }
    }
    let r = mac::scsi_action(pb_address(g, Slot::Async));
    if r < 0 { map_transport(r) } else { 0 }
}

/// The async command ended. `Some(result)` finishes the Device Manager request.
pub(super) fn complete(dce_addr: u32) -> Option<i16> {
    let g = globals(dce_addr);
    if g.active_pb == 0 {
        return None;
    }
    let done = if g.starting != 0 {
        // The START STOP UNIT ended (however): send the transfer again.
        g.starting = 0;
        None
    } else {
        let result = mac::peek16(pb_address(g, Slot::Async) + at::SCSI_RESULT) as i16;
        let write = g.active_write != 0;
        match outcome43(g, Slot::Async, result, write) {
            Recovery::Done => {
                let n = g.active_chunk;
                g.active_lba += n;
                g.active_left -= n;
                g.active_buf += n * BLOCK;
                g.retries = 0;
                g.transport_retries = 0;
                if g.active_left == 0 { Some(0) } else { None }
            }
            Recovery::StartUnit if g.retries < MAX_RETRIES => {
                g.retries += 1;
                g.starting = 1;
                None
            }
            Recovery::RetryLater
                if g.vbl_installed != 0 && g.not_ready_waits < MAX_NOT_READY_WAITS =>
            {
                // Wait at interrupt time without spinning: the VBL task sends the command
                // again in NOT_READY_WAIT_TICKS ticks.
                g.not_ready_waits += 1;
                g.vbl.vbl_count.set(NOT_READY_WAIT_TICKS as i16);
                return None;
            }
            Recovery::Retry | Recovery::RetryLater if g.retries < MAX_RETRIES => {
                g.retries += 1;
                None
            }
            Recovery::Retry | Recovery::RetryLater | Recovery::StartUnit => Some(err::IO_ERR),
            Recovery::Transport(_) if g.transport_retries < TRANSPORT_RETRIES => {
                g.transport_retries += 1;
                None
            }
            Recovery::Transport(e) | Recovery::Fail(e) => Some(e),
        }
    };
    let result = match done {
        // The medium changed meanwhile (28/00 heard by a synchronous command): no chunk and
        // no retry goes to the new one.
        None if g.medium_changed != 0 => err::OFF_LIN_ERR,
        None => match issue_async(g) {
            0 => return None,
            e => e,
        },
        Some(r) => r,
    };
    finish_active(g, dce_addr, result)
}

/// Writes went into the drive's cache: note when, and ask for accRun, which flushes the
/// cache once they have been idle for the settings' time (`control::idle_flush`).
#[inline(never)]
pub(super) fn mark_dirty(g: &mut Globals) {
    if g.write_cache_on != 0 && g.idle_ticks != 0 {
        g.dirty = 1;
        g.last_write = mac::peek32(mac::lowmem::TICKS);
        need_time(g);
    }
}

/// The VBL task's turn: try the waiting command again. `Some(result)` finishes the Device
/// Manager request. While a synchronous command of ours is running (the VBL interrupted it),
/// wait one more tick instead of sharing its buffers.
pub(super) fn vbl_retry(dce_addr: u32) -> Option<i16> {
    let g = globals(dce_addr);
    if g.active_pb == 0 {
        return None;
    }
    if g.in_command != 0 {
        g.vbl.vbl_count.set(1);
        return None;
    }
    // The medium changed while the request waited (28/00 heard by another command): nothing
    // more goes to the drive.
    if g.medium_changed != 0 {
        return finish_active(g, dce_addr, err::OFF_LIN_ERR);
    }
    if g.use43 != 0 {
        match issue_async(g) {
            0 => None,
            e => finish_active(g, dce_addr, e),
        }
    } else {
        match run_old(g, dce_addr) {
            SCSI_REQUEST_IN_PROGRESS => None,
            r => Some(r),
        }
    }
}

/// End the active request with `result`: `Some(result)` for the caller to pass to IODone,
/// or, while Prime itself is still running, `None` with the result left for Prime.
#[inline(always)]
pub(super) fn finish_active(g: &mut Globals, dce_addr: u32, result: i16) -> Option<i16> {
    let pb = g.active_pb;
    g.active_pb = 0;
    if result == 0 {
        finish_transfer(pb, dce_addr, g.active_total);
        if g.active_write != 0 {
            mark_dirty(g);
        }
    }
    if g.in_prime != 0 {
        g.early_done = 1;
        g.early_result = result;
        return None;
    }
    Some(result)
}
