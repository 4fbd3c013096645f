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

/// Bytes of sense data the driver asks for (the fixed format's 18).
pub const SENSE_LEN: usize = 18;

/// Sense data as the target returned it: at most `got` bytes at the start of `b` (at least
/// [`SENSE_LEN`] long, zeroed before the command, so bytes never sent read as 0). Targets
/// return less than 18 bytes: SCSI-1's non-extended format (4 bytes, error class 0–6, no
/// sense key) or an extended one cut short, 8 bytes (key only) to 14 (ASC/ASCQ). The
/// additional-length byte (7) says how many follow the first 8: bytes past it, or past
/// `got`, are cleared in `b` (up to 18), so no stale byte is read as an ASC. `removable`: a UNIT
/// ATTENTION that brings no ASC (or ASC 0, which no unit attention has) may be a medium
/// change; on a removable drive it is read as 28/00, the safe side (`docs/driver.md`).
/// `None` for the non-extended format (its codes are vendor-specific) and for fewer than 3
/// bytes. `got` is at most [`SENSE_LEN`].
pub fn parse_sense(b: &mut [u8; 32], got: u32, removable: bool) -> Option<Sense> {
    // The extended format: response code 70h (current) or 71h (deferred).
    let code = b[0] & 0x7F;
    if got < 3 || (code != 0x70 && code != 0x71) {
        return None;
    }
    let mut len = got;
    if got >= 8 && 8 + (b[7] as u32) < got {
        len = 8 + b[7] as u32;
    }
    // Whole-array indexing below 18: no bounds checks.
    let mut i = len as usize;
    while i < SENSE_LEN {
        b[i] = 0;
        i += 1;
    }
    let key = b[2] & 0x0F;
    if removable && key == sense_key::UNIT_ATTENTION && b[12] == 0 {
        b[12] = 0x28;
    }
    Some(Sense {
        key,
        asc: b[12],
        ascq: b[13],
        information: (b[0] & 0x80 != 0).then(|| u32::from_be_bytes([b[3], b[4], b[5], b[6]])),
        deferred: code == 0x71,
    })
}

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

    fn fixed(key: u8, asc: u8, ascq: u8, extra: u8) -> [u8; 32] {
        let mut b = [0xEEu8; 32];
        b[..18].fill(0);
        b[0] = 0x70;
        b[2] = key;
        b[7] = extra;
        b[12] = asc;
        b[13] = ascq;
        b
    }

    #[test]
    fn full_sense_reads_as_the_shared_parser_does() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2000 {
            let mut b = [0u8; 32];
            for v in b.iter_mut().take(18) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *v = x as u8;
            }
            if x & 1 == 0 {
                b[0] = 0x70 | (b[0] & 0x81);
            }
            b[7] = b[7].max(10);
            let want = Sense::parse(&b[..18]);
            assert_eq!(parse_sense(&mut b, 18, false), want, "{b:02X?}");
        }
    }

    #[test]
    fn short_sense_is_read_as_far_as_it_goes() {
        // 14 bytes (additional length 6): ASC/ASCQ are there.
        let mut b = fixed(6, 0x28, 0, 6);
        assert_eq!(parse_sense(&mut b, 14, false).map(|s| s.asc), Some(0x28));
        // 8 bytes (additional length 0): the key only; bytes 8.. are not the target's.
        let mut b = fixed(3, 0x11, 0, 0);
        let s = parse_sense(&mut b, 18, false).unwrap();
        assert_eq!((s.key, s.asc), (3, 0));
        // Fewer bytes arrived than the length byte claims: only those count.
        let mut b = fixed(1, 0x17, 1, 10);
        let s = parse_sense(&mut b, 8, false).unwrap();
        assert_eq!((s.key, s.asc, s.ascq), (1, 0, 0));
        // A unit attention without its ASC, on a removable drive: a possible medium change.
        let mut b = fixed(6, 0, 0, 0);
        assert_eq!(parse_sense(&mut b, 8, true).map(|s| s.asc), Some(0x28));
        let mut b = fixed(6, 0, 0, 0);
        assert_eq!(parse_sense(&mut b, 8, false).map(|s| s.asc), Some(0));
        // SCSI-1 non-extended (class 0–6): no key.
        let mut b = [0u8; 32];
        b[0] = 0x04;
        assert_eq!(parse_sense(&mut b, 4, true), None);
        let mut b = fixed(6, 0x28, 0, 10);
        assert_eq!(parse_sense(&mut b, 2, true), None);
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
