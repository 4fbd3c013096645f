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
    // The VBL task's retries stay out of our buffers while this runs (see `vbl_retry`).
    g.in_command += 1;
    let step = with_recovery(g, cdb, dir, data, len);
    g.in_command -= 1;
    step
}

fn with_recovery(g: &mut Globals, cdb: &[u8], dir: Dir, data: u32, len: u32) -> Step {
    let mut tries = 0u8;
    let mut waits = 0u8;
    let mut transport = 0u8;
    loop {
        let recovery = once(g, cdb, dir, data, len);
        match recovery {
            Recovery::Done => return Step::Done,
            Recovery::Fail(e) => return Step::Fail(e),
            Recovery::Transport(e) if transport >= TRANSPORT_RETRIES => return Step::Fail(e),
            Recovery::Transport(_) => {
                transport += 1;
                continue;
            }
            Recovery::RetryLater if g.may_wait == 0 => return Step::Later,
            // NOT READY, becoming ready (install only): wait, up to MAX_NOT_READY_WAITS times.
            Recovery::RetryLater if waits < MAX_NOT_READY_WAITS => {
                waits += 1;
                mac::delay(NOT_READY_WAIT_TICKS);
                continue;
            }
            _ if tries + 1 >= MAX_RETRIES => return Step::Fail(err::IO_ERR),
            _ => {}
        }
        tries += 1;
        if recovery == Recovery::StartUnit {
            let start = scsi::start_stop_unit(true, false);
            let _ = once(g, &start, Dir::None, 0, 0);
        }
    }
}

/// One try, on whichever transport the driver uses.
fn once(g: &mut Globals, cdb: &[u8], dir: Dir, data: u32, len: u32) -> Recovery {
    if g.use43 != 0 {
        scsi43::command43(g, cdb, dir, data, len)
    } else {
        scsi_old::old_command(g, cdb, dir, data, len)
    }
}
