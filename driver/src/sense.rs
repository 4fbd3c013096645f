//! What to do after a command did not end GOOD: retry, wait, start the unit, or give the Mac
//! an error code (`docs/mac-facts.md` §8.3 and §9.3).

use ferrite_shared::mac::err;
use ferrite_shared::scsi::{Sense, sense_key, status};

/// The driver's next step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// The data is good after all (RECOVERED ERROR).
    Done,
    /// Send the same command again (UNIT ATTENTION, BUSY, ABORTED COMMAND, parity).
    Retry,
    /// NOT READY, becoming ready: try again after a while.
    RetryLater,
    /// NOT READY, initializing command required: START STOP UNIT, then retry.
    StartUnit,
    /// Give up with this Mac OS error.
    Fail(i16),
    /// The transport failed: the target did not answer its selection, or stopped answering
    /// in the middle of the command (the SCSI Manager took the bus back). Both SCSI Managers'
    /// paths send the command [`TRANSPORT_RETRIES`] more time(s), then give up with this Mac
    /// OS error.
    Transport(i16),
}

/// Times a command whose transport failed ([`Recovery::Transport`]) is sent again: one
/// more try rides out a target that was resetting or a glitch on the bus; a drive that is
/// gone costs two selection timeouts (or two command timeouts), not eight.
pub const TRANSPORT_RETRIES: u8 = 1;

/// Decide from the status byte and the sense data (if any).
pub fn classify(scsi_status: u8, sense: Option<Sense>, _write: bool) -> Recovery {
    match scsi_status {
        status::GOOD | status::CONDITION_MET => Recovery::Done,
        status::BUSY | status::QUEUE_FULL => Recovery::Retry,
        status::CHECK_CONDITION | status::COMMAND_TERMINATED => match sense {
            None => Recovery::Retry,
            // A deferred error: data an earlier command wrote into the drive's cache was
            // lost at write-back. This command was not performed; the call that hears of
            // it fails (the driver also keeps the error: `DeferredErrors`).
            Some(s) if s.deferred => Recovery::Fail(err::IO_ERR),
            Some(s) => match s.key {
                sense_key::NO_SENSE | sense_key::RECOVERED_ERROR => Recovery::Done,
                // 28/00: another medium may be in the drive; the command must not be sent
                // again to it (the driver reads the new medium first).
                sense_key::UNIT_ATTENTION if s.asc == 0x28 => Recovery::Fail(err::OFF_LIN_ERR),
                sense_key::UNIT_ATTENTION | sense_key::ABORTED_COMMAND => Recovery::Retry,
                sense_key::NOT_READY => match (s.asc, s.ascq) {
                    (0x04, 0x02) => Recovery::StartUnit,
                    (0x3A, _) => Recovery::Fail(err::OFF_LIN_ERR),
                    _ => Recovery::RetryLater,
                },
                sense_key::DATA_PROTECT => Recovery::Fail(err::WPR_ERR),
                sense_key::ILLEGAL_REQUEST if s.asc == 0x21 => Recovery::Fail(err::PARAM_ERR),
                sense_key::MISCOMPARE => Recovery::Fail(err::DATA_VER_ERR),
                // `ioErr` for reads and writes alike: `writErr` (−20) is what the Device
                // Manager answers for a driver not enabled for writes (mac-facts §3.4), so a
                // caller would misread it.
                sense_key::MEDIUM_ERROR | sense_key::HARDWARE_ERROR => Recovery::Fail(err::IO_ERR),
                _ => Recovery::Fail(err::IO_ERR),
            },
        },
        _ => Recovery::Fail(err::IO_ERR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(key: u8, asc: u8, ascq: u8) -> Option<Sense> {
        Some(Sense {
            key,
            asc,
            ascq,
            information: None,
            deferred: false,
        })
    }

    #[test]
    fn table() {
        assert_eq!(classify(0, None, false), Recovery::Done);
        assert_eq!(classify(8, None, false), Recovery::Retry);
        assert_eq!(classify(2, s(6, 0x29, 0), false), Recovery::Retry);
        assert_eq!(
            classify(2, s(6, 0x28, 0), true),
            Recovery::Fail(err::OFF_LIN_ERR),
            "medium changed: never retried onto the new medium"
        );
        assert_eq!(classify(2, s(2, 4, 1), false), Recovery::RetryLater);
        assert_eq!(classify(2, s(2, 4, 2), false), Recovery::StartUnit);
        assert_eq!(
            classify(2, s(2, 0x3A, 0), false),
            Recovery::Fail(err::OFF_LIN_ERR)
        );
        assert_eq!(
            classify(2, s(3, 0x11, 0), false),
            Recovery::Fail(err::IO_ERR)
        );
        assert_eq!(
            classify(2, s(3, 0x0C, 0), true),
            Recovery::Fail(err::IO_ERR)
        );
        assert_eq!(
            classify(2, s(7, 0x27, 0), true),
            Recovery::Fail(err::WPR_ERR)
        );
        assert_eq!(
            classify(2, s(5, 0x21, 0), false),
            Recovery::Fail(err::PARAM_ERR)
        );
        assert_eq!(classify(2, s(1, 0x17, 0), false), Recovery::Done);
        assert_eq!(classify(0x18, None, false), Recovery::Fail(err::IO_ERR));
        // A deferred error is never retried away nor read as this command's own outcome:
        // not even a UNIT ATTENTION or RECOVERED ERROR key.
        for key in [1, 3, 6] {
            let d = s(key, 0x0C, 0).map(|s| Sense {
                deferred: true,
                ..s
            });
            assert_eq!(classify(2, d, true), Recovery::Fail(err::IO_ERR));
        }
    }
}
