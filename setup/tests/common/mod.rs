//! A model SCSI disk behind a [`Transport`], strict where a real drive is: CHECK CONDITION
//! with fixed-format sense kept for REQUEST SENSE, a unit attention after power-on, medium
//! errors on chosen blocks (reported with the failing LBA), a drive that refuses VERIFY, a
//! caching page with or without a savable, changeable WCE, write protection, FORMAT UNIT,
//! REASSIGN BLOCKS, and a target that stops answering after N writes.

#![allow(dead_code)]

use std::collections::BTreeSet;

use ferrite_setup::bus::{ScsiError, Transport};

pub const CHECK: u8 = 0x02;

#[derive(Clone)]
pub struct ModelDisk {
    pub id: u8,
    pub image: Vec<u8>,
    pub block_len: u32,
    pub inquiry: [u8; 36],
    /// Blocks whose reads and verifies fail (MEDIUM ERROR, 11h).
    pub bad: BTreeSet<u64>,
    /// VERIFY(10) ends in ILLEGAL REQUEST, invalid operation code.
    pub refuses_verify: bool,
    /// The caching page: WCE, RCD; whether WCE is changeable; whether the page is savable.
    pub wce: bool,
    pub rcd: bool,
    pub saved_wce: bool,
    pub wce_changeable: bool,
    pub savable: bool,
    /// The drive has no caching page at all (MODE SENSE of page 08h is refused).
    pub no_caching_page: bool,
    pub write_protected: bool,
    /// Unit attentions still owed.
    pub attentions: u32,
    /// After this many more WRITE(10) commands the target stops answering selection.
    pub writes_left: Option<usize>,
    pub gone: bool,
    /// What the last CHECK CONDITION was (REQUEST SENSE returns it, then clears it).
    pub sense: Option<(u8, u8, Option<u32>)>,
    pub formatted: u32,
    pub reassigned: Vec<u32>,
    /// MODE SELECTs seen: (SP, parameter list).
    pub mode_selects: Vec<(bool, Vec<u8>)>,
    /// Every command's opcode, in order.
    pub log: Vec<u8>,
    /// Every WRITE(10): (LBA, blocks).
    pub writes: Vec<(u32, u16)>,
}

pub fn inquiry(vendor: &str, product: &str, rev: &str) -> [u8; 36] {
    let mut b = [b' '; 36];
    b[..8].fill(0);
    b[2] = 2;
    b[8..8 + vendor.len()].copy_from_slice(vendor.as_bytes());
    b[16..16 + product.len()].copy_from_slice(product.as_bytes());
    b[32..32 + rev.len()].copy_from_slice(rev.as_bytes());
    b
}

impl ModelDisk {
    pub fn new(id: u8, blocks: u64) -> ModelDisk {
        ModelDisk {
            id,
            image: vec![0; blocks as usize * 512],
            block_len: 512,
            inquiry: inquiry("QUANTUM", "FIREBALL1080S", "1Q09"),
            bad: BTreeSet::new(),
            refuses_verify: false,
            wce: false,
            rcd: false,
            saved_wce: false,
            wce_changeable: true,
            savable: true,
            no_caching_page: false,
            write_protected: false,
            attentions: 1,
            writes_left: None,
            gone: false,
            sense: None,
            formatted: 0,
            reassigned: Vec::new(),
            mode_selects: Vec::new(),
            log: Vec::new(),
            writes: Vec::new(),
        }
    }

    pub fn blocks(&self) -> u64 {
        self.image.len() as u64 / self.block_len as u64
    }

    fn check(&mut self, key: u8, asc: u8, info: Option<u32>) -> Result<(), ScsiError> {
        self.sense = Some((key, asc, info));
        Err(ScsiError::Status(CHECK))
    }

    fn lba_range(&self, cdb: &[u8]) -> (u64, u64) {
        let lba = u32::from_be_bytes([cdb[2], cdb[3], cdb[4], cdb[5]]) as u64;
        let n = u16::from_be_bytes([cdb[7], cdb[8]]) as u64;
        (lba, n)
    }

    /// The caching page as MODE SENSE(6) returns it for page control `pc`.
    fn caching_answer(&self, pc: u8) -> Vec<u8> {
        let mut page = vec![0u8; 20];
        page[0] = 0x08 | if self.savable { 0x80 } else { 0 };
        page[1] = 18;
        let (wce, rcd) = match pc {
            0 => (self.wce, self.rcd),
            1 => (self.wce_changeable, false),
            2 => (false, false),
            _ => (self.saved_wce, false),
        };
        page[2] = (wce as u8) << 2 | rcd as u8;
        let mut b = vec![0u8; 4];
        b[0] = (3 + page.len()) as u8;
        b[2] = if self.write_protected { 0x80 } else { 0 };
        b.extend_from_slice(&page);
        b
    }

    fn exec(
        &mut self,
        cdb: &[u8],
        data_in: Option<&mut [u8]>,
        data_out: Option<&[u8]>,
    ) -> Result<(), ScsiError> {
        if self.gone {
            return Err(ScsiError::NoDevice);
        }
        self.log.push(cdb[0]);
        if cdb[0] == 0x03 {
            let d = data_in.expect("REQUEST SENSE reads");
            d.fill(0);
            d[0] = 0x70;
            if let Some((key, asc, info)) = self.sense.take() {
                d[2] = key;
                d[7] = 10;
                d[12] = asc;
                if let Some(i) = info {
                    d[0] |= 0x80;
                    d[3..7].copy_from_slice(&i.to_be_bytes());
                }
            }
            return Ok(());
        }
        self.sense = None;
        if self.attentions > 0 && cdb[0] != 0x12 {
            self.attentions -= 1;
            return self.check(0x6, 0x29, None);
        }
        let bl = self.block_len as usize;
        match cdb[0] {
            0x00 => Ok(()),
            0x12 => {
                let d = data_in.unwrap();
                let n = d.len().min(36);
                d[..n].copy_from_slice(&self.inquiry[..n]);
                Ok(())
            }
            0x25 => {
                let d = data_in.unwrap();
                d[..4].copy_from_slice(&((self.blocks() - 1) as u32).to_be_bytes());
                d[4..8].copy_from_slice(&self.block_len.to_be_bytes());
                Ok(())
            }
            0x28 | 0x2F => {
                if cdb[0] == 0x2F && self.refuses_verify {
                    return self.check(0x5, 0x20, None);
                }
                let (lba, n) = self.lba_range(cdb);
                if lba + n > self.blocks() {
                    return self.check(0x5, 0x21, None);
                }
                if let Some(&b) = self.bad.range(lba..lba + n).next() {
                    return self.check(0x3, 0x11, Some(b as u32));
                }
                if cdb[0] == 0x28 {
                    let d = data_in.unwrap();
                    assert_eq!(d.len(), n as usize * bl, "READ(10) buffer length");
                    d.copy_from_slice(&self.image[lba as usize * bl..(lba + n) as usize * bl]);
                } else {
                    assert!(
                        data_in.is_none_or(|d| d.is_empty()),
                        "VERIFY has no data phase"
                    );
                }
                Ok(())
            }
            0x2A => {
                let d = data_out.expect("WRITE(10) writes");
                if self.write_protected {
                    return self.check(0x7, 0x27, None);
                }
                if let Some(left) = &mut self.writes_left {
                    if *left == 0 {
                        self.gone = true;
                        return Err(ScsiError::NoDevice);
                    }
                    *left -= 1;
                }
                let (lba, n) = self.lba_range(cdb);
                assert_eq!(d.len(), n as usize * bl, "WRITE(10) data length");
                if lba + n > self.blocks() {
                    return self.check(0x5, 0x21, None);
                }
                self.writes.push((lba as u32, n as u16));
                self.image[lba as usize * bl..(lba + n) as usize * bl].copy_from_slice(d);
                Ok(())
            }
            0x35 => Ok(()),
            0x1A => {
                if self.no_caching_page && (cdb[2] & 0x3F) == 0x08 {
                    return self.check(0x5, 0x24, None);
                }
                let a = self.caching_answer(cdb[2] >> 6);
                let d = data_in.unwrap();
                let n = d.len().min(a.len()).min(cdb[4] as usize);
                d[..n].copy_from_slice(&a[..n]);
                Ok(())
            }
            0x15 => {
                let d = data_out.expect("MODE SELECT writes").to_vec();
                assert_eq!(cdb[1] & 0x10, 0x10, "PF = 1");
                let sp = cdb[1] & 1 != 0;
                assert_eq!(d.len(), cdb[4] as usize, "parameter list length");
                if sp && !self.savable {
                    return self.check(0x5, 0x24, None);
                }
                let page = &d[4 + d[3] as usize..];
                if page[0] & 0x80 != 0 {
                    // PS must be zero in MODE SELECT.
                    return self.check(0x5, 0x26, None);
                }
                let wce = page[2] & 4 != 0;
                if wce != self.wce && !self.wce_changeable {
                    return self.check(0x5, 0x26, None);
                }
                self.wce = wce;
                if sp {
                    self.saved_wce = wce;
                }
                self.mode_selects.push((sp, d));
                Ok(())
            }
            0x04 => {
                if self.write_protected {
                    return self.check(0x7, 0x27, None);
                }
                self.formatted += 1;
                self.image.fill(0);
                Ok(())
            }
            0x07 => {
                let d = data_out.expect("REASSIGN BLOCKS writes");
                let len = u16::from_be_bytes([d[2], d[3]]) as usize;
                assert_eq!(d.len(), 4 + len);
                for c in d[4..].chunks(4) {
                    let lba = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
                    self.bad.remove(&(lba as u64));
                    self.reassigned.push(lba);
                }
                Ok(())
            }
            op => self.check(0x5, 0x20, Some(op as u32)),
        }
    }
}

/// A bus of model disks.
#[derive(Default)]
pub struct Bus {
    pub disks: Vec<ModelDisk>,
}

impl Bus {
    pub fn with(d: ModelDisk) -> Bus {
        Bus { disks: vec![d] }
    }
    pub fn disk(&mut self, id: u8) -> &mut ModelDisk {
        self.disks.iter_mut().find(|d| d.id == id).unwrap()
    }
}

impl Transport for Bus {
    fn command(&mut self, id: u8, cdb: &[u8], data: &mut [u8]) -> Result<(), ScsiError> {
        match self.disks.iter_mut().find(|d| d.id == id) {
            Some(d) => d.exec(cdb, Some(data), None),
            None => Err(ScsiError::NoDevice),
        }
    }
    fn command_out(&mut self, id: u8, cdb: &[u8], data: &[u8]) -> Result<(), ScsiError> {
        match self.disks.iter_mut().find(|d| d.id == id) {
            Some(d) => d.exec(cdb, None, Some(data)),
            None => Err(ScsiError::NoDevice),
        }
    }
    fn name(&self) -> &'static str {
        "model"
    }
}

/// A stand-in Ferrite driver: blob header, version, a version-2 settings block, filler.
pub fn ferrite_blob(len: usize, version: [u8; 3], seed: u32) -> Vec<u8> {
    use ferrite_shared::driver_blob::{self, Settings};
    let mut b: Vec<u8> = (0..len as u32)
        .map(|i| (i.wrapping_mul(13).wrapping_add(seed)) as u8)
        .collect();
    b[4..8].copy_from_slice(b"FRRT");
    b[16..48].fill(0);
    b[16..20].copy_from_slice(b"FSET");
    b[20..22].copy_from_slice(&2u16.to_be_bytes());
    b[24..28].copy_from_slice(&1u32.to_be_bytes());
    b[32..34].copy_from_slice(&128u16.to_be_bytes());
    b[driver_blob::DRIVER_VERSION_OFFSET..driver_blob::DRIVER_VERSION_OFFSET + 3]
        .copy_from_slice(&version);
    assert!(Settings::read(&b).is_ok());
    b
}

/// A monitor that records every call and cancels at the first call when told to.
#[derive(Default)]
pub struct Recorder {
    pub calls: Vec<(ferrite_setup::ops::Stage, u64, u64)>,
    pub cancel_at: Option<usize>,
}

impl ferrite_setup::ops::Monitor for Recorder {
    fn progress(&mut self, stage: ferrite_setup::ops::Stage, done: u64, total: u64) -> bool {
        self.calls.push((stage, done, total));
        self.cancel_at != Some(self.calls.len() - 1)
    }
}
