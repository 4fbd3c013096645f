//! One command, synchronously, on either transport, with recovery (retries, NOT READY,
//! START UNIT).
//!
//! Waiting is the delicate part: `Ticks` advance only in the level-1 VBL interrupt, so code
//! that may run at interrupt level (Prime started from IODone, immediate calls, Control) must
//! never wait for them. [`command`] waits (with `_Delay`) only while `g.may_wait` is set —
//! during install, which the ROM runs at boot with interrupts enabled; everywhere else a
//! drive that is not ready yet (or a bus the original SCSI Manager keeps busy) ends the
//! command with [`Step::Later`], which Prime turns into a retry from its VBL task.

use super::*;

/// How a command ended.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Done,
    /// Failed with this Mac OS error.
    Fail(i16),
    /// Not yet possible (NOT READY becoming ready, bus busy), and the driver may not wait here.
    Later,
}

/// One command with recovery; `Later` is reported as `ioErr`.
pub(super) fn command(
    g: &mut Globals,
    cdb: &[u8],
    dir: Dir,
    data: u32,
    len: u32,
) -> Result<(), i16> {
    match command_step(g, cdb, dir, data, len) {
        Step::Done => Ok(()),
        Step::Fail(e) => Err(e),
        Step::Later => Err(err::IO_ERR),
    }
}

/// One command with recovery (retries, START UNIT; NOT READY waited out only when
/// `g.may_wait`).
pub(super) fn command_step(g: &mut Globals, cdb: &[u8], dir: Dir, data: u32, len: u32) -> Step {
    g.cdb[..cdb.len()].copy_from_slice(cdb);
    staged_step(g, cdb.len() as u8, dir, data, len)
}

/// [`command_step`] of the command already in `g.cdb` (`cdb_len` bytes): Prime's transfers
/// write their CDB there directly ([`stage_transfer`]).
pub(super) fn staged_step(g: &mut Globals, cdb_len: u8, dir: Dir, data: u32, len: u32) -> Step {
    // One command at a time: a call that comes while one of ours runs (an immediate Prime or
    // Control from a completion routine or an interrupt) would share its CDB, parameter
    // block and sense buffer. It cannot wait here: refused (`ioErr`; Prime's queued path
    // defers instead).
    if g.in_command != 0 {
        return Step::Later;
    }
    // The VBL task's retries stay out of our buffers while this runs (see `vbl_retry`).
    g.in_command += 1;
    let step = with_recovery(g, cdb_len, dir, data, len);
    g.in_command -= 1;
    step
}

/// Write READ(10) or WRITE(10) of `n` blocks at `lba` into `g.cdb` by aligned moves; its
/// length is 10.
pub(super) fn stage_transfer(g: &mut Globals, write: bool, lba: u32, n: u32) {
    let op = if write {
        scsi::op::WRITE_10
    } else {
        scsi::op::READ_10
    };
    let at = g.cdb.as_mut_ptr() as u32;
    // Opcode, 0, LBA (4), 0, blocks (2), control 0.
    mac::poke16(at, (op as u16) << 8);
    mac::poke32(at + 2, lba);
    mac::poke32(at + 6, n << 8);
}

#[inline(always)]
fn with_recovery(g: &mut Globals, cdb_len: u8, dir: Dir, data: u32, len: u32) -> Step {
    match once(g, cdb_len, dir, data, len) {
        Recovery::Done => Step::Done,
        first => recover(g, first, cdb_len, dir, data, len),
    }
}

/// The command's first try ended with `first` (not `Done`): recover — retries, START UNIT,
/// NOT READY waited out only when `g.may_wait`.
#[inline(never)]
pub(super) fn recover(
    g: &mut Globals,
    first: Recovery,
    cdb_len: u8,
    dir: Dir,
    data: u32,
    len: u32,
) -> Step {
    let mut tries = 0u8;
    let mut waits = 0u8;
    let mut transport = 0u8;
    let mut recovery = first;
    loop {
        match recovery {
            Recovery::Done => return Step::Done,
            Recovery::Fail(e) => return Step::Fail(e),
            Recovery::Transport(e) if transport >= TRANSPORT_RETRIES => return Step::Fail(e),
            Recovery::Transport(_) => transport += 1,
            Recovery::RetryLater if g.may_wait == 0 => return Step::Later,
            // NOT READY, becoming ready (install only): wait, up to MAX_NOT_READY_WAITS times.
            Recovery::RetryLater if waits < MAX_NOT_READY_WAITS => {
                waits += 1;
                mac::delay(NOT_READY_WAIT_TICKS);
            }
            _ if tries + 1 >= MAX_RETRIES => return Step::Fail(err::IO_ERR),
            _ => {
                tries += 1;
                if recovery == Recovery::StartUnit {
                    let saved = g.cdb;
                    let start = scsi::start_stop_unit(true, false);
                    g.cdb[..start.len()].copy_from_slice(&start);
                    let _ = once(g, start.len() as u8, Dir::None, 0, 0);
                    g.cdb = saved;
                }
            }
        }
        recovery = once(g, cdb_len, dir, data, len);
    }
}

/// One try of the command in `g.cdb`, on whichever transport the driver uses.
fn once(g: &mut Globals, cdb_len: u8, dir: Dir, data: u32, len: u32) -> Recovery {
    if g.use43 != 0 {
        let cdb = g.cdb;
        scsi43::command43(g, &cdb[..cdb_len as usize], dir, data, len)
    } else {
        scsi_old::old_command(g, cdb_len, dir, data, len)
    }
}
