//! Fixed-format sense data (mac-facts §8.3): sense keys, additional sense codes and the 18-byte
//! block REQUEST SENSE returns.

/// Sense keys (byte 2, bits 3–0).
pub mod key {
    pub const NO_SENSE: u8 = 0x0;
    pub const RECOVERED_ERROR: u8 = 0x1;
    pub const NOT_READY: u8 = 0x2;
    pub const MEDIUM_ERROR: u8 = 0x3;
    pub const HARDWARE_ERROR: u8 = 0x4;
    pub const ILLEGAL_REQUEST: u8 = 0x5;
    pub const UNIT_ATTENTION: u8 = 0x6;
    pub const DATA_PROTECT: u8 = 0x7;
    pub const ABORTED_COMMAND: u8 = 0xB;
    pub const MISCOMPARE: u8 = 0xE;
}

/// Additional sense code / qualifier pairs this target reports.
pub mod asc {
    /// 00/00 no additional sense information.
    pub const NO_ADDITIONAL: (u8, u8) = (0x00, 0x00);
    /// 04/01 logical unit is in process of becoming ready.
    pub const BECOMING_READY: (u8, u8) = (0x04, 0x01);
    /// 04/02 logical unit not ready, initializing command (START) required.
    pub const NEEDS_START: (u8, u8) = (0x04, 0x02);
    /// 0C/00 write error.
    pub const WRITE_ERROR: (u8, u8) = (0x0C, 0x00);
    /// 11/00 unrecovered read error.
    pub const UNRECOVERED_READ: (u8, u8) = (0x11, 0x00);
    /// 1A/00 parameter list length error.
    pub const PARAM_LIST_LENGTH: (u8, u8) = (0x1A, 0x00);
    /// 1D/00 miscompare during verify operation.
    pub const MISCOMPARE_VERIFY: (u8, u8) = (0x1D, 0x00);
    /// 20/00 invalid command operation code.
    pub const INVALID_OPCODE: (u8, u8) = (0x20, 0x00);
    /// 21/00 logical block address out of range.
    pub const LBA_OUT_OF_RANGE: (u8, u8) = (0x21, 0x00);
    /// 24/00 invalid field in CDB.
    pub const INVALID_FIELD_IN_CDB: (u8, u8) = (0x24, 0x00);
    /// 25/00 logical unit not supported.
    pub const LUN_NOT_SUPPORTED: (u8, u8) = (0x25, 0x00);
    /// 26/00 invalid field in parameter list.
    pub const INVALID_FIELD_IN_PARAM: (u8, u8) = (0x26, 0x00);
    /// 27/00 write protected.
    pub const WRITE_PROTECTED: (u8, u8) = (0x27, 0x00);
    /// 28/00 not-ready-to-ready change, medium may have changed.
    pub const MEDIUM_CHANGED: (u8, u8) = (0x28, 0x00);
    /// 29/00 power on, reset or bus device reset occurred.
    pub const POWER_ON_RESET: (u8, u8) = (0x29, 0x00);
    /// 39/00 saving parameters not supported.
    pub const SAVING_NOT_SUPPORTED: (u8, u8) = (0x39, 0x00);
    /// 3A/00 medium not present.
    pub const MEDIUM_NOT_PRESENT: (u8, u8) = (0x3A, 0x00);
    /// 44/00 internal target failure (used for host I/O errors on the image file).
    pub const INTERNAL_FAILURE: (u8, u8) = (0x44, 0x00);
    /// 4B/00 data phase error (the initiator sent fewer DATA OUT bytes than asked).
    pub const DATA_PHASE_ERROR: (u8, u8) = (0x4B, 0x00);
    /// 53/02 medium removal prevented.
    pub const REMOVAL_PREVENTED: (u8, u8) = (0x53, 0x02);
}

/// Length of the fixed-format sense data this target returns (additional length 10).
pub const SENSE_LEN: usize = 18;

/// One sense condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sense {
    pub key: u8,
    pub asc: u8,
    pub ascq: u8,
    /// The information field (bytes 3–6) with the VALID bit, e.g. the failing LBA.
    pub info: Option<u32>,
    /// A deferred error (response code 71h): it belongs to an earlier command the target
    /// already ended GOOD (a write-back of cached data), not to the one it is reported on.
    pub deferred: bool,
}

impl Sense {
    /// A sense condition without information field.
    pub const fn new(key: u8, code: (u8, u8)) -> Sense {
        Sense {
            key,
            asc: code.0,
            ascq: code.1,
            info: None,
            deferred: false,
        }
    }

    /// The same as a deferred error (response code 71h).
    pub const fn as_deferred(self) -> Sense {
        Sense {
            deferred: true,
            ..self
        }
    }

    /// The same with the information field (VALID bit set).
    pub const fn with_info(self, info: u32) -> Sense {
        Sense {
            info: Some(info),
            ..self
        }
    }

    /// NO SENSE 00/00.
    pub const fn none() -> Sense {
        Sense::new(key::NO_SENSE, asc::NO_ADDITIONAL)
    }

    /// ILLEGAL REQUEST with the given code.
    pub const fn illegal(code: (u8, u8)) -> Sense {
        Sense::new(key::ILLEGAL_REQUEST, code)
    }

    /// (key, ASC, ASCQ), for comparisons in tests.
    pub const fn triple(&self) -> (u8, u8, u8) {
        (self.key, self.asc, self.ascq)
    }

    /// The 18-byte fixed-format sense data: response code 70h (current error) or 71h
    /// (deferred), VALID bit with
    /// the information field, additional length 10, ASC/ASCQ at 12/13.
    pub fn to_fixed(&self) -> [u8; SENSE_LEN] {
        let mut d = [0u8; SENSE_LEN];
        d[0] = if self.deferred { 0x71 } else { 0x70 } | if self.info.is_some() { 0x80 } else { 0 };
        d[2] = self.key & 0x0F;
        if let Some(info) = self.info {
            d[3..7].copy_from_slice(&info.to_be_bytes());
        }
        d[7] = (SENSE_LEN - 8) as u8;
        d[12] = self.asc;
        d[13] = self.ascq;
        d
    }

    /// Decode fixed-format sense data (at least 14 bytes); `None` if it is not 70h/71h.
    pub fn from_fixed(d: &[u8]) -> Option<Sense> {
        if d.len() < 14 || !matches!(d[0] & 0x7F, 0x70 | 0x71) {
            return None;
        }
        let info = (d[0] & 0x80 != 0).then(|| u32::from_be_bytes([d[3], d[4], d[5], d[6]]));
        Some(Sense {
            key: d[2] & 0x0F,
            asc: d[12],
            ascq: d[13],
            info,
            deferred: d[0] & 0x7F == 0x71,
        })
    }
}
