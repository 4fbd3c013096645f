//! SCSI-2 command descriptor blocks, sense data and the caching mode page, as a disk driver
//! builds and reads them (`docs/mac-facts.md` §8). Builders return fixed arrays and use
//! constant indices only (see `docs/codegen-conformance.md` on variable stack indices).

/// Operation codes.
pub mod op {
    pub const TEST_UNIT_READY: u8 = 0x00;
    pub const REQUEST_SENSE: u8 = 0x03;
    pub const FORMAT_UNIT: u8 = 0x04;
    pub const REASSIGN_BLOCKS: u8 = 0x07;
    pub const READ_6: u8 = 0x08;
    pub const WRITE_6: u8 = 0x0A;
    pub const INQUIRY: u8 = 0x12;
    pub const MODE_SELECT_6: u8 = 0x15;
    pub const MODE_SENSE_6: u8 = 0x1A;
    pub const START_STOP_UNIT: u8 = 0x1B;
    pub const PREVENT_ALLOW: u8 = 0x1E;
    pub const READ_CAPACITY_10: u8 = 0x25;
    pub const READ_10: u8 = 0x28;
    pub const WRITE_10: u8 = 0x2A;
    pub const VERIFY_10: u8 = 0x2F;
    pub const SYNCHRONIZE_CACHE_10: u8 = 0x35;
    pub const MODE_SELECT_10: u8 = 0x55;
    pub const MODE_SENSE_10: u8 = 0x5A;
    /// SERVICE ACTION IN(16); READ CAPACITY(16) is its service action 10h (SBC-2).
    pub const SERVICE_ACTION_IN_16: u8 = 0x9E;
}

/// Service action of READ CAPACITY(16) under SERVICE ACTION IN(16) (SBC-2).
pub const SA_READ_CAPACITY_16: u8 = 0x10;

/// Status bytes.
pub mod status {
    pub const GOOD: u8 = 0x00;
    pub const CHECK_CONDITION: u8 = 0x02;
    pub const CONDITION_MET: u8 = 0x04;
    pub const BUSY: u8 = 0x08;
    pub const RESERVATION_CONFLICT: u8 = 0x18;
    pub const COMMAND_TERMINATED: u8 = 0x22;
    pub const QUEUE_FULL: u8 = 0x28;
}

/// Sense keys.
pub mod sense_key {
    pub const NO_SENSE: u8 = 0x0;
    pub const RECOVERED_ERROR: u8 = 0x1;
    pub const NOT_READY: u8 = 0x2;
    pub const MEDIUM_ERROR: u8 = 0x3;
    pub const HARDWARE_ERROR: u8 = 0x4;
    pub const ILLEGAL_REQUEST: u8 = 0x5;
    pub const UNIT_ATTENTION: u8 = 0x6;
    pub const DATA_PROTECT: u8 = 0x7;
    pub const BLANK_CHECK: u8 = 0x8;
    pub const ABORTED_COMMAND: u8 = 0xB;
    pub const VOLUME_OVERFLOW: u8 = 0xD;
    pub const MISCOMPARE: u8 = 0xE;
}

/// Most blocks one READ(10)/WRITE(10) moves.
pub const MAX_BLOCKS_10: u32 = 0xFFFF;

/// TEST UNIT READY.
pub fn test_unit_ready() -> [u8; 6] {
    [op::TEST_UNIT_READY, 0, 0, 0, 0, 0]
}

/// REQUEST SENSE with allocation length `alloc`.
pub fn request_sense(alloc: u8) -> [u8; 6] {
    [op::REQUEST_SENSE, 0, 0, 0, alloc, 0]
}

/// INQUIRY (standard data) with allocation length `alloc`.
pub fn inquiry(alloc: u8) -> [u8; 6] {
    [op::INQUIRY, 0, 0, 0, alloc, 0]
}

/// READ CAPACITY(10).
pub fn read_capacity_10() -> [u8; 10] {
    [op::READ_CAPACITY_10, 0, 0, 0, 0, 0, 0, 0, 0, 0]
}

/// READ CAPACITY(16) (SBC-2: SERVICE ACTION IN(16), service action 10h) with allocation
/// length `alloc` (bytes 10–13); the data's first 12 bytes are the last LBA (8 bytes) and the
/// block length (4 bytes).
pub fn read_capacity_16(alloc: u8) -> [u8; 16] {
    let mut c = [0u8; 16];
    c[0] = op::SERVICE_ACTION_IN_16;
    c[1] = SA_READ_CAPACITY_16;
    c[13] = alloc;
    c
}

/// A 10-byte READ/WRITE/VERIFY CDB: `opcode`, byte-1 `flags`, LBA, block count. Not inlined:
/// the driver builds many of these, and every byte of it counts.
#[inline(never)]
pub fn rw10(opcode: u8, flags: u8, lba: u32, blocks: u16) -> [u8; 10] {
    let l = lba.to_be_bytes();
    let n = blocks.to_be_bytes();
    [opcode, flags, l[0], l[1], l[2], l[3], 0, n[0], n[1], 0]
}

/// READ(10) of `blocks` (0 moves nothing) at `lba`.
pub fn read_10(lba: u32, blocks: u16) -> [u8; 10] {
    rw10(op::READ_10, 0, lba, blocks)
}

/// WRITE(10); `fua` forces the data to the medium.
pub fn write_10(lba: u32, blocks: u16, fua: bool) -> [u8; 10] {
    rw10(op::WRITE_10, if fua { 0x08 } else { 0 }, lba, blocks)
}

/// VERIFY(10) without data comparison.
pub fn verify_10(lba: u32, blocks: u16) -> [u8; 10] {
    rw10(op::VERIFY_10, 0, lba, blocks)
}

/// SYNCHRONIZE CACHE(10) of the whole medium.
pub fn synchronize_cache_10() -> [u8; 10] {
    [op::SYNCHRONIZE_CACHE_10, 0, 0, 0, 0, 0, 0, 0, 0, 0]
}

/// START STOP UNIT.
pub fn start_stop_unit(start: bool, load_eject: bool) -> [u8; 6] {
    [
        op::START_STOP_UNIT,
        0,
        0,
        0,
        (load_eject as u8) << 1 | start as u8,
        0,
    ]
}

/// PREVENT ALLOW MEDIUM REMOVAL.
pub fn prevent_allow(prevent: bool) -> [u8; 6] {
    [op::PREVENT_ALLOW, 0, 0, 0, prevent as u8, 0]
}

/// Page control values of MODE SENSE.
pub mod page_control {
    pub const CURRENT: u8 = 0;
    pub const CHANGEABLE: u8 = 1;
    pub const DEFAULT: u8 = 2;
    pub const SAVED: u8 = 3;
}

/// MODE SENSE(6) of `page` with page control `pc`, block descriptors disabled.
pub fn mode_sense_6(page: u8, pc: u8, alloc: u8) -> [u8; 6] {
    [
        op::MODE_SENSE_6,
        0x08,
        (pc << 6) | (page & 0x3F),
        0,
        alloc,
        0,
    ]
}

/// MODE SELECT(6) with PF = 1 and save-pages `sp`, parameter list length `len`.
pub fn mode_select_6(sp: bool, len: u8) -> [u8; 6] {
    [op::MODE_SELECT_6, 0x10 | sp as u8, 0, 0, len, 0]
}

/// Fixed-format sense data, as much as a driver needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sense {
    pub key: u8,
    pub asc: u8,
    pub ascq: u8,
    /// The information field when VALID is set (e.g. the failing LBA).
    pub information: Option<u32>,
    /// Response code 71h: a deferred error, which belongs to an earlier command the target
    /// already ended GOOD (a write-back of cached data), not to this one.
    pub deferred: bool,
}

impl Sense {
    /// Parse fixed-format sense (response code 70h or 71h); `None` for anything else or
    /// fewer than 14 bytes.
    pub fn parse(b: &[u8]) -> Option<Sense> {
        if b.len() < 14 {
            return None;
        }
        let code = b[0] & 0x7F;
        if code != 0x70 && code != 0x71 {
            return None;
        }
        Some(Sense {
            key: b[2] & 0x0F,
            asc: b[12],
            ascq: b[13],
            information: (b[0] & 0x80 != 0).then(|| u32::from_be_bytes([b[3], b[4], b[5], b[6]])),
            deferred: code == 0x71,
        })
    }
}

/// The caching mode page (08h) bits a driver touches.
pub mod caching {
    pub const PAGE: u8 = 0x08;
    /// Byte 0 bit 7: parameters savable (must be 0 in MODE SELECT).
    pub const PS: u8 = 0x80;
    /// Byte 2 bit 2: write cache enable.
    pub const WCE: u8 = 0x04;
    /// Byte 2 bit 0: read cache disable.
    pub const RCD: u8 = 0x01;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdbs_match_the_facts_doc_layouts() {
        assert_eq!(
            read_10(0x0102_0304, 0x0506),
            [0x28, 0, 1, 2, 3, 4, 0, 5, 6, 0]
        );
        assert_eq!(write_10(7, 1, true), [0x2A, 0x08, 0, 0, 0, 7, 0, 0, 1, 0]);
        assert_eq!(
            verify_10(0x0A0B_0C0D, 0x0102),
            [0x2F, 0, 0x0A, 0x0B, 0x0C, 0x0D, 0, 1, 2, 0]
        );
        assert_eq!(
            mode_sense_6(8, page_control::CHANGEABLE, 36),
            [0x1A, 0x08, 0x48, 0, 36, 0]
        );
        assert_eq!(mode_select_6(true, 24), [0x15, 0x11, 0, 0, 24, 0]);
        assert_eq!(start_stop_unit(false, true), [0x1B, 0, 0, 0, 2, 0]);
    }

    #[test]
    fn sense_parsing() {
        let mut s = [0u8; 18];
        s[0] = 0xF0;
        s[2] = 0x03;
        s[3..7].copy_from_slice(&1234u32.to_be_bytes());
        s[7] = 10;
        s[12] = 0x11;
        assert_eq!(
            Sense::parse(&s),
            Some(Sense {
                key: 3,
                asc: 0x11,
                ascq: 0,
                information: Some(1234),
                deferred: false,
            })
        );
        s[0] = 0xF1;
        assert!(Sense::parse(&s).is_some_and(|d| d.deferred && d.key == 3));
        s[0] = 0x72;
        assert_eq!(Sense::parse(&s), None, "descriptor format is not parsed");
        assert_eq!(Sense::parse(&s[..10]), None);
    }
}
