//! Errors in words: SCSI sense keys and additional sense codes (SCSI-2, X3.131-1994, §8.2.14
//! and Annex B), the SCSI Managers' result codes and the Mac OS errors a user can meet.

use core::fmt;

use ferrite_shared::mac::err;
use ferrite_shared::scsi::sense_key;

use crate::bus::ScsiError;
use crate::ops::OpError;

/// The sense key in words.
pub fn sense_key_name(key: u8) -> &'static str {
    match key {
        sense_key::NO_SENSE => "no sense",
        sense_key::RECOVERED_ERROR => "recovered error",
        sense_key::NOT_READY => "not ready",
        sense_key::MEDIUM_ERROR => "medium error",
        sense_key::HARDWARE_ERROR => "hardware error",
        sense_key::ILLEGAL_REQUEST => "illegal request",
        sense_key::UNIT_ATTENTION => "unit attention",
        sense_key::DATA_PROTECT => "data protect",
        sense_key::BLANK_CHECK => "blank check",
        0x9 => "vendor-specific",
        0xA => "copy aborted",
        sense_key::ABORTED_COMMAND => "aborted command",
        0xC => "equal",
        sense_key::VOLUME_OVERFLOW => "volume overflow",
        sense_key::MISCOMPARE => "miscompare",
        _ => "reserved sense key",
    }
}

/// The additional sense code (and qualifier, where it matters) in words; `None` for codes
/// not listed here.
pub fn asc_text(asc: u8, ascq: u8) -> Option<&'static str> {
    Some(match (asc, ascq) {
        (0x00, _) => "no additional sense information",
        (0x01, _) => "no index/sector signal",
        (0x02, _) => "no seek complete",
        (0x03, _) => "write fault",
        (0x04, 0x01) => "the drive is becoming ready",
        (0x04, 0x02) => "the drive needs a START UNIT",
        (0x04, 0x04) => "a format is in progress",
        (0x04, _) => "the drive is not ready",
        (0x08, _) => "logical unit communication failure",
        (0x0C, _) => "write error",
        (0x10, _) => "ID CRC or ECC error",
        (0x11, _) => "unrecovered read error",
        (0x12, _) => "address mark not found for ID field",
        (0x13, _) => "address mark not found for data field",
        (0x14, _) => "recorded entity not found",
        (0x15, _) => "positioning error",
        (0x16, _) => "data synchronization mark error",
        (0x17, _) => "recovered data without ECC",
        (0x18, _) => "recovered data with error correction",
        (0x19, _) => "defect list error",
        (0x1A, _) => "parameter list length error",
        (0x1C, _) => "defect list not found",
        (0x1D, _) => "miscompare during verify",
        (0x20, _) => "invalid command operation code",
        (0x21, _) => "logical block address out of range",
        (0x24, _) => "invalid field in the command",
        (0x25, _) => "logical unit not supported",
        (0x26, _) => "invalid field in the parameter list",
        (0x27, _) => "the medium is write-protected",
        (0x28, _) => "the medium may have changed",
        (0x29, _) => "power on, reset or bus device reset occurred",
        (0x2A, _) => "parameters changed",
        (0x31, _) => "the medium format is corrupted",
        (0x32, _) => "no defect spare location available",
        (0x3A, _) => "no medium present",
        (0x3D, _) => "invalid bits in the IDENTIFY message",
        (0x40, _) => "diagnostic failure",
        (0x44, _) => "internal target failure",
        (0x47, _) => "SCSI parity error",
        (0x48, _) => "initiator detected error message received",
        (0x49, _) => "invalid message error",
        (0x4E, _) => "overlapped commands attempted",
        (0x5D, _) => "failure prediction threshold exceeded",
        _ => return None,
    })
}

/// The original SCSI Manager's result codes (Inside Macintosh: Devices, "SCSI Manager").
pub fn original_manager_error(r: i16) -> Option<&'static str> {
    Some(match r {
        2 => "communication failed (scCommErr)",
        3 => "arbitration failed (scArbNBErr)",
        4 => "bad parameter (scBadParmsErr)",
        5 => "wrong bus phase (scPhaseErr)",
        6 => "data compare failed (scCompareErr)",
        7 => "the SCSI Manager is busy (scMgrBusyErr)",
        8 => "calls out of order (scSequenceErr)",
        9 => "bus timeout (scBusTOErr)",
        10 => "completion phase error (scComplPhaseErr)",
        _ => return None,
    })
}

/// SCSI Manager 4.3's result codes (Inside Macintosh: Devices, "SCSI Manager 4.3").
pub fn manager43_error(r: i16) -> Option<&'static str> {
    Some(match r {
        -7934 => "the request was aborted (scsiRequestAborted)",
        -7933 => "the request could not be aborted (scsiUnableToAbort)",
        -7932 => "the device ended the command with an error status (scsiNonZeroStatus)",
        -7927 => "the request could not be terminated (scsiUnableToTerminate)",
        -7926 => "nothing answered the selection (scsiSelectTimeout)",
        -7925 => "the device stopped answering (scsiCommandTimeout)",
        -7922 => "the SCSI bus was reset (scsiSCSIBusReset)",
        -7921 => "SCSI bus parity error (scsiParityError)",
        -7920 => "the device's sense data could not be read (scsiAutosenseFailed)",
        -7918 => "the device moved less or more data than asked (scsiDataRunError)",
        -7917 => "the device dropped off the bus (scsiUnexpectedBusFree)",
        -7916 => "the bus phases went wrong (scsiSequenceFailed)",
        -7915 => "the data went the wrong way (scsiWrongDirection)",
        -7887 => "the SCSI Manager is busy (scsiBusy)",
        -7885 => "the device is not there (scsiDeviceNotThere)",
        -7871 => "the SCSI Manager does not offer this function (scsiFunctionNotAvailable)",
        -7870 => "the SCSI Manager refused the request (scsiRequestInvalid)",
        -7869 => "no such SCSI bus (scsiBusInvalid)",
        -7868 => "no such SCSI ID (scsiTIDInvalid)",
        _ => return None,
    })
}

/// Mac OS errors a disk operation can meet.
pub fn mac_os_error(r: i16) -> Option<&'static str> {
    Some(match r {
        err::IO_ERR => "I/O error (ioErr)",
        err::WPR_ERR => "the disk is write-protected (wPrErr)",
        err::PARAM_ERR => "bad parameter (paramErr)",
        err::NS_DRV_ERR => "no such drive (nsDrvErr)",
        err::OFF_LIN_ERR => "the drive is off line (offLinErr)",
        err::DATA_VER_ERR => "data verification failed (dataVerErr)",
        err::MEM_FULL_ERR => "not enough memory (memFullErr)",
        err::ABORT_ERR => "the operation was aborted (abortErr)",
        _ => return None,
    })
}

/// Any result code: the SCSI Managers' first, then the Mac OS's.
pub fn result_code(r: i16) -> Option<&'static str> {
    if r > 0 {
        original_manager_error(r)
    } else {
        manager43_error(r).or_else(|| mac_os_error(r))
    }
}

/// An operation's error in words: what failed and, where there is one, what to do.
pub fn describe_op_error(e: &OpError, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match e {
        OpError::Scsi { command, error } => match error {
            ScsiError::NoDevice => write!(
                f,
                "The drive did not answer {command}: it is off, was removed, or its ID changed. Check the cable and power, then Rescan."
            ),
            ScsiError::BusBusy => write!(
                f,
                "The SCSI Manager is busy (scMgrBusyErr) and would not run {command}; try again in a moment."
            ),
            ScsiError::Status(s) => write!(
                f,
                "{command} failed: the drive answered with status {} ; try again, or check the drive.",
                status_name(*s)
            ),
            ScsiError::Manager(r) => match result_code(*r) {
                Some(w) => write!(f, "{command} failed: {w}."),
                None => write!(f, "{command} failed: SCSI Manager error {r}."),
            },
        },
        OpError::Sense {
            command,
            key,
            asc,
            ascq,
            lba,
        } => {
            write!(f, "{command} failed: {}", sense_key_name(*key))?;
            match asc_text(*asc, *ascq) {
                Some(t) => write!(f, ", {t}")?,
                None => write!(f, ", additional sense {asc:02X}h/{ascq:02X}h")?,
            }
            if let Some(lba) = lba {
                write!(f, " (block {lba})")?;
            }
            f.write_str(match *key {
                sense_key::NOT_READY => ". Wait for the drive to spin up, or insert a disk, and try again.",
                sense_key::MEDIUM_ERROR => ". The medium is damaged there: run Test and reassign the bad blocks.",
                sense_key::HARDWARE_ERROR => ". The drive reports a fault: check it before trusting data to it.",
                sense_key::ILLEGAL_REQUEST => ". The drive does not support this.",
                _ => ".",
            })
        }
        OpError::BlockSize(n) => write!(
            f,
            "The drive's blocks are {n} bytes: Ferrite works with 512-byte blocks only. Reformat the drive to 512-byte blocks with its maker's tool."
        ),
        OpError::WriteProtected => f.write_str(
            "The drive is write-protected: turn its write-protect switch or jumper off, then try again.",
        ),
        OpError::NoMap => {
            f.write_str("The disk has no partition map: Initialize it first.")
        }
        OpError::BadMap(w) => write!(
            f,
            "The disk's partition map is damaged ({w}): Initialize the disk (everything on it is lost) or repair it with another tool."
        ),
        OpError::NoSuchPartition(i) => write!(f, "The partition map has no entry {i}; Rescan."),
        OpError::Protected { index, kind } => write!(
            f,
            "Entry {index} ({kind}) holds the map or a driver and cannot be changed here; use Update Driver or Initialize."
        ),
        OpError::Plan(w) => write!(f, "{w}."),
        OpError::Format(w) => write!(f, "Writing the disk failed: {w}."),
        OpError::DriverTooSmall { have, need } => write!(
            f,
            "The driver partition is too small: it holds {have} blocks, the new driver needs {need}, and there is no free space after it. Back up the volumes and Initialize the disk to install Ferrite."
        ),
        OpError::NoRoom { free, asked } => write!(
            f,
            "There is not enough free space: {free} blocks free, {asked} asked. Delete a partition or ask for less."
        ),
        OpError::NoDriver => f.write_str(
            "This copy of Ferrite Setup carries no driver (it was built without one): use a complete build.",
        ),
        OpError::NoFerriteDriver => f.write_str(
            "The disk has no Ferrite driver to record the setting in: Initialize the disk or Update Driver first.",
        ),
        OpError::CacheNotChangeable => {
            f.write_str("The drive does not let its write cache be switched.")
        }
        OpError::Cancelled => f.write_str("Cancelled: nothing was written."),
        OpError::CancelledAfterFormat => f.write_str(
            "Cancelled after the low-level format: the disk is erased and holds no volumes.",
        ),
        OpError::BadModePage => f.write_str(
            "The drive's answer to MODE SENSE holds no caching page: it cannot be set from here.",
        ),
        OpError::NoSuchBlock(b) => write!(
            f,
            "Block {b} is past what a 10-byte SCSI command can address."
        ),
    }
}

/// A SCSI status byte in words.
pub fn status_name(s: u8) -> &'static str {
    match s {
        0x02 => "CHECK CONDITION",
        0x04 => "CONDITION MET",
        0x08 => "BUSY",
        0x18 => "RESERVATION CONFLICT",
        0x22 => "COMMAND TERMINATED",
        0x28 => "QUEUE FULL",
        _ => "(unknown)",
    }
}
