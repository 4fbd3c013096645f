//! A small RAM "disk" target for the SCSI Manager tests (the real disk target lives in
//! `ferrite_emu::scsi::disk`). It answers TEST UNIT READY, REQUEST SENSE, INQUIRY, READ(10) and
//! WRITE(10) and has switches for faults.

use std::any::Any;

use ferrite_emu::scsi::{DataPhase, ScsiTarget, status};

pub const BLOCK: usize = 512;

#[derive(Default)]
pub struct RamTarget {
    pub data: Vec<u8>,
    /// Sense data REQUEST SENSE returns next (then cleared to NO SENSE).
    pub sense: Vec<u8>,
    /// Next command ends with CHECK CONDITION and this sense (one shot).
    pub fail_next_with_sense: Option<Vec<u8>>,
    /// Next command ends with BUSY (one shot).
    pub busy_next: bool,
    /// Selection times out while set.
    pub absent: bool,
    /// Next DATA IN phase carries this many bytes fewer than asked (one shot).
    pub short_next: usize,
    /// Next command resets the bus (one shot).
    pub reset_next: bool,
    /// Next command is taken and never answered: the target holds the bus until a reset
    /// (one shot).
    pub hang_next: bool,
    /// Extra bytes the next DATA IN phase offers beyond the CDB's length (one shot).
    pub long_next: usize,
    pub resets: u32,
    /// Time every command takes before its status, beyond the base 100 µs (a slow but live
    /// target: a long VERIFY, a spin-up).
    pub extra_busy_ns: u64,
    /// Every CDB with its LUN.
    pub commands: Vec<(u8, Vec<u8>)>,
    pending_status: u8,
    write_at: usize,
}

/// Fixed-format sense data with `key`, `asc`, `ascq` (18 bytes).
pub fn sense(key: u8, asc: u8, ascq: u8) -> Vec<u8> {
    let mut s = vec![0u8; 18];
    s[0] = 0x70;
    s[2] = key;
    s[7] = 10;
    s[12] = asc;
    s[13] = ascq;
    s
}

impl RamTarget {
    /// `blocks` blocks, block *b* byte *i* = `(b * 7 + i) as u8`.
    pub fn new(blocks: usize) -> RamTarget {
        let mut data = vec![0u8; blocks * BLOCK];
        for (i, d) in data.iter_mut().enumerate() {
            *d = ((i / BLOCK) * 7 + i % BLOCK) as u8;
        }
        RamTarget {
            data,
            sense: sense(0, 0, 0),
            ..Default::default()
        }
    }

    fn check(&mut self, s: Vec<u8>) -> DataPhase {
        self.sense = s;
        self.pending_status = status::CHECK_CONDITION;
        DataPhase::None
    }
}

impl ScsiTarget for RamTarget {
    fn selectable(&mut self) -> bool {
        !self.absent
    }

    fn command(&mut self, lun: u8, cdb: &[u8]) -> DataPhase {
        self.commands.push((lun, cdb.to_vec()));
        self.pending_status = status::GOOD;
        if std::mem::take(&mut self.reset_next) {
            return DataPhase::BusReset;
        }
        if std::mem::take(&mut self.hang_next) {
            return DataPhase::Hang;
        }
        if std::mem::take(&mut self.busy_next) {
            self.pending_status = status::BUSY;
            return DataPhase::None;
        }
        let fail = self.fail_next_with_sense.take();
        let short = std::mem::take(&mut self.short_next);
        let long = std::mem::take(&mut self.long_next);
        let shape = |mut v: Vec<u8>| {
            v.truncate(v.len().saturating_sub(short));
            v.extend(std::iter::repeat_n(0xEE, long));
            DataPhase::In(v)
        };
        match cdb[0] {
            0x00 => {
                if let Some(s) = fail {
                    return self.check(s);
                }
                DataPhase::None
            }
            0x03 => {
                let mut s = std::mem::replace(&mut self.sense, sense(0, 0, 0));
                s.truncate(cdb[4] as usize);
                shape(s)
            }
            0x12 => {
                let mut d = vec![0u8; 36];
                d[2] = 2;
                d[4] = 31;
                d[8..16].copy_from_slice(b"FERRITE ");
                d[16..32].copy_from_slice(b"RAM TEST TARGET ");
                d[32..36].copy_from_slice(b"1.0 ");
                d.truncate(cdb[4] as usize);
                shape(d)
            }
            0x28 | 0x2A => {
                let lba = u32::from_be_bytes([cdb[2], cdb[3], cdb[4], cdb[5]]) as usize;
                let n = u16::from_be_bytes([cdb[7], cdb[8]]) as usize;
                if (lba + n) * BLOCK > self.data.len() {
                    return self.check(sense(5, 0x21, 0));
                }
                if let Some(s) = fail {
                    // A medium error half-way: the data of the first half, then CHECK.
                    self.sense = s;
                    self.pending_status = status::CHECK_CONDITION;
                    if cdb[0] == 0x28 {
                        let half = n / 2 * BLOCK;
                        return DataPhase::In(self.data[lba * BLOCK..lba * BLOCK + half].to_vec());
                    }
                    return DataPhase::None;
                }
                if cdb[0] == 0x28 {
                    shape(self.data[lba * BLOCK..(lba + n) * BLOCK].to_vec())
                } else {
                    self.write_at = lba * BLOCK;
                    DataPhase::Out(n * BLOCK)
                }
            }
            _ => self.check(sense(5, 0x20, 0)),
        }
    }

    fn data_out(&mut self, data: &[u8]) {
        let at = self.write_at;
        self.data[at..at + data.len()].copy_from_slice(data);
    }

    fn status(&mut self) -> u8 {
        self.pending_status
    }

    fn busy_ns(&self) -> u64 {
        100_000 + self.extra_busy_ns
    }

    fn bus_reset(&mut self) {
        self.resets += 1;
        self.sense = sense(6, 0x29, 0);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
