//! CDB decoding (mac-facts §8): opcodes, field layouts and the checks that make a CDB invalid.
//! Pure functions — no target state — so every layout is unit-testable without a bus.

use super::sense::{Sense, asc};

/// Operation codes this target knows.
pub mod op {
    pub const TEST_UNIT_READY: u8 = 0x00;
    pub const REZERO_UNIT: u8 = 0x01;
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
    /// SERVICE ACTION IN(16); service action 10h is READ CAPACITY(16) (SBC-2).
    pub const SERVICE_ACTION_IN_16: u8 = 0x9E;
}

/// A decoded command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    TestUnitReady,
    RezeroUnit,
    RequestSense {
        alloc: usize,
    },
    Inquiry {
        evpd: bool,
        page: u8,
        alloc: usize,
    },
    ReadCapacity {
        lba: u32,
        pmi: bool,
    },
    /// READ CAPACITY(16): 64-bit last LBA, for disks of 2³² blocks or more.
    ReadCapacity16 {
        alloc: usize,
    },
    /// READ(6)/(10). `blocks` already has READ(6)'s 0 → 256 applied.
    Read {
        lba: u64,
        blocks: u32,
        fua: bool,
    },
    Write {
        lba: u64,
        blocks: u32,
        fua: bool,
    },
    Verify {
        lba: u64,
        blocks: u32,
        bytchk: bool,
    },
    ModeSense {
        ten: bool,
        dbd: bool,
        pc: u8,
        page: u8,
        alloc: usize,
    },
    ModeSelect {
        ten: bool,
        pf: bool,
        sp: bool,
        len: usize,
    },
    StartStop {
        immed: bool,
        loej: bool,
        start: bool,
    },
    PreventAllow {
        prevent: bool,
    },
    FormatUnit {
        fmtdata: bool,
        cmplst: bool,
        list_format: u8,
    },
    ReassignBlocks,
    SynchronizeCache {
        immed: bool,
        lba: u64,
        blocks: u32,
    },
}

impl Command {
    /// Commands that touch the medium and so need a ready unit (medium present, spinning).
    pub fn needs_ready(&self) -> bool {
        matches!(
            self,
            Command::TestUnitReady
                | Command::RezeroUnit
                | Command::ReadCapacity { .. }
                | Command::ReadCapacity16 { .. }
                | Command::Read { .. }
                | Command::Write { .. }
                | Command::Verify { .. }
                | Command::FormatUnit { .. }
                | Command::ReassignBlocks
                | Command::SynchronizeCache { .. }
        )
    }
}

/// CDB length by group code (bits 7–5 of the opcode); `None` for reserved/vendor groups.
pub fn cdb_len(opcode: u8) -> Option<usize> {
    match opcode >> 5 {
        0 => Some(6),
        1 | 2 => Some(10),
        4 => Some(16),
        5 => Some(12),
        _ => None,
    }
}

/// READ CAPACITY(16)'s service action under SERVICE ACTION IN(16).
pub const SA_READ_CAPACITY_16: u8 = 0x10;

fn be16(b: &[u8]) -> u32 {
    u32::from(u16::from_be_bytes([b[0], b[1]]))
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

const INVALID_FIELD: Sense = Sense::illegal(asc::INVALID_FIELD_IN_CDB);

/// Decode a CDB. Errors are the sense data of the CHECK CONDITION:
/// unknown opcode → 05/20/00; a CDB shorter than its group's length, the control byte's Flag
/// or Link bit (linked commands are not supported), RelAdr, or a field with an unsupported
/// value → 05/24/00.
pub fn parse(cdb: &[u8]) -> Result<Command, Sense> {
    let Some(&opcode) = cdb.first() else {
        return Err(INVALID_FIELD);
    };
    let known = matches!(
        opcode,
        op::TEST_UNIT_READY
            | op::REZERO_UNIT
            | op::REQUEST_SENSE
            | op::FORMAT_UNIT
            | op::REASSIGN_BLOCKS
            | op::READ_6
            | op::WRITE_6
            | op::INQUIRY
            | op::MODE_SELECT_6
            | op::MODE_SENSE_6
            | op::START_STOP_UNIT
            | op::PREVENT_ALLOW
            | op::READ_CAPACITY_10
            | op::READ_10
            | op::WRITE_10
            | op::VERIFY_10
            | op::SYNCHRONIZE_CACHE_10
            | op::MODE_SELECT_10
            | op::MODE_SENSE_10
            | op::SERVICE_ACTION_IN_16
    );
    if !known {
        return Err(Sense::illegal(asc::INVALID_OPCODE));
    }
    let len = cdb_len(opcode).expect("known opcodes are in groups 0-2 and 4");
    if cdb.len() < len {
        return Err(INVALID_FIELD);
    }
    // Control byte: bit 0 Link, bit 1 Flag. No linked commands here.
    if cdb[len - 1] & 0x03 != 0 {
        return Err(INVALID_FIELD);
    }
    let b1 = cdb[1];
    // RelAdr (bit 0 of byte 1) in the 10-byte media commands: only meaningful with linked
    // commands, which are not supported.
    let reladr = len == 10 && b1 & 0x01 != 0;
    let lba10 = || u64::from(be32(&cdb[2..6]));
    let len10 = || be16(&cdb[7..9]);
    let cmd = match opcode {
        op::TEST_UNIT_READY => Command::TestUnitReady,
        op::REZERO_UNIT => Command::RezeroUnit,
        op::REQUEST_SENSE => Command::RequestSense {
            alloc: cdb[4] as usize,
        },
        op::FORMAT_UNIT => Command::FormatUnit {
            fmtdata: b1 & 0x10 != 0,
            cmplst: b1 & 0x08 != 0,
            list_format: b1 & 0x07,
        },
        op::REASSIGN_BLOCKS => Command::ReassignBlocks,
        op::READ_6 | op::WRITE_6 => {
            let lba = (u64::from(b1 & 0x1F) << 16) | (u64::from(cdb[2]) << 8) | u64::from(cdb[3]);
            let blocks = if cdb[4] == 0 { 256 } else { u32::from(cdb[4]) };
            if opcode == op::READ_6 {
                Command::Read {
                    lba,
                    blocks,
                    fua: false,
                }
            } else {
                Command::Write {
                    lba,
                    blocks,
                    fua: false,
                }
            }
        }
        op::INQUIRY => {
            let evpd = b1 & 0x01 != 0;
            // SCSI-2: a page code with EVPD = 0 is an invalid field.
            if !evpd && cdb[2] != 0 {
                return Err(INVALID_FIELD);
            }
            Command::Inquiry {
                evpd,
                page: cdb[2],
                alloc: cdb[4] as usize,
            }
        }
        op::MODE_SELECT_6 => Command::ModeSelect {
            ten: false,
            pf: b1 & 0x10 != 0,
            sp: b1 & 0x01 != 0,
            len: cdb[4] as usize,
        },
        op::MODE_SELECT_10 => Command::ModeSelect {
            ten: true,
            pf: b1 & 0x10 != 0,
            sp: b1 & 0x01 != 0,
            len: len10() as usize,
        },
        op::MODE_SENSE_6 => Command::ModeSense {
            ten: false,
            dbd: b1 & 0x08 != 0,
            pc: cdb[2] >> 6,
            page: cdb[2] & 0x3F,
            alloc: cdb[4] as usize,
        },
        op::MODE_SENSE_10 => Command::ModeSense {
            ten: true,
            dbd: b1 & 0x08 != 0,
            pc: cdb[2] >> 6,
            page: cdb[2] & 0x3F,
            alloc: len10() as usize,
        },
        op::START_STOP_UNIT => Command::StartStop {
            immed: b1 & 0x01 != 0,
            loej: cdb[4] & 0x02 != 0,
            start: cdb[4] & 0x01 != 0,
        },
        op::PREVENT_ALLOW => {
            // SCSI-2 defines only bit 0 (Prevent); the rest of byte 4 is reserved.
            if cdb[4] & !0x01 != 0 {
                return Err(INVALID_FIELD);
            }
            Command::PreventAllow {
                prevent: cdb[4] & 0x01 != 0,
            }
        }
        op::READ_CAPACITY_10 => {
            let pmi = cdb[8] & 0x01 != 0;
            let lba = be32(&cdb[2..6]);
            // SCSI-2: with PMI = 0 the LBA field must be zero.
            if reladr || (!pmi && lba != 0) {
                return Err(INVALID_FIELD);
            }
            Command::ReadCapacity { lba, pmi }
        }
        op::SERVICE_ACTION_IN_16 => {
            // SBC-2: only READ CAPACITY(16) (service action 10h); with PMI = 0 the LBA
            // field must be zero.
            if b1 & 0x1F != SA_READ_CAPACITY_16 {
                return Err(INVALID_FIELD);
            }
            let pmi = cdb[14] & 0x01 != 0;
            if !pmi && cdb[2..10].iter().any(|&b| b != 0) {
                return Err(INVALID_FIELD);
            }
            Command::ReadCapacity16 {
                alloc: be32(&cdb[10..14]) as usize,
            }
        }
        op::READ_10 | op::WRITE_10 => {
            if reladr {
                return Err(INVALID_FIELD);
            }
            let fua = b1 & 0x08 != 0;
            if opcode == op::READ_10 {
                Command::Read {
                    lba: lba10(),
                    blocks: len10(),
                    fua,
                }
            } else {
                Command::Write {
                    lba: lba10(),
                    blocks: len10(),
                    fua,
                }
            }
        }
        op::VERIFY_10 => {
            if reladr {
                return Err(INVALID_FIELD);
            }
            Command::Verify {
                lba: lba10(),
                blocks: len10(),
                bytchk: b1 & 0x02 != 0,
            }
        }
        op::SYNCHRONIZE_CACHE_10 => {
            if reladr {
                return Err(INVALID_FIELD);
            }
            Command::SynchronizeCache {
                immed: b1 & 0x02 != 0,
                lba: lba10(),
                blocks: len10(),
            }
        }
        _ => unreachable!("opcode {opcode:#04x} checked above"),
    };
    Ok(cmd)
}

/// The LUN field of a SCSI-1/-2 CDB (byte 1 bits 7–5).
pub fn cdb_lun(cdb: &[u8]) -> u8 {
    cdb.get(1).map_or(0, |b| b >> 5)
}
