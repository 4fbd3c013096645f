//! Mode pages (mac-facts §8.1, §8.2): read-write error recovery (01h), format device (03h), rigid
//! disk geometry (04h) and caching (08h), each with current, changeable, default and saved
//! values; MODE SENSE data building and MODE SELECT parameter-list validation.
//!
//! Pages are stored without the PS bit (byte 0 = page code); MODE SENSE adds PS for savable
//! pages. Changing values is allowed only where the changeable mask has a one bit.

use super::sense::{Sense, asc};

/// Page codes.
pub mod page {
    pub const ERROR_RECOVERY: u8 = 0x01;
    pub const FORMAT_DEVICE: u8 = 0x03;
    pub const RIGID_GEOMETRY: u8 = 0x04;
    pub const CACHING: u8 = 0x08;
    pub const ALL: u8 = 0x3F;
}

/// Page lengths (byte 1). The caching page is the SCSI-2 length 0Ah (mac-facts §8.2: SBC drives
/// use 12h; this target models a SCSI-2 drive).
pub const ERROR_RECOVERY_LEN: u8 = 0x0A;
pub const FORMAT_DEVICE_LEN: u8 = 0x16;
pub const RIGID_GEOMETRY_LEN: u8 = 0x16;
pub const CACHING_LEN: u8 = 0x0A;

/// Caching page byte 2 bits.
pub const CACHING_WCE: u8 = 0x04;
pub const CACHING_RCD: u8 = 0x01;

/// Page control (MODE SENSE CDB byte 2 bits 7–6).
pub mod pc {
    pub const CURRENT: u8 = 0;
    pub const CHANGEABLE: u8 = 1;
    pub const DEFAULT: u8 = 2;
    pub const SAVED: u8 = 3;
}

/// Mode parameter header device-specific byte (direct access): write protect.
pub const DEVSPEC_WP: u8 = 0x80;
/// Device-specific byte: DPO and FUA supported.
pub const DEVSPEC_DPOFUA: u8 = 0x10;

/// The drive's geometry as the format-device and rigid-geometry pages report it (a
/// notional geometry: the store is linear).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub heads: u8,
    pub sectors_per_track: u16,
    pub cylinders: u32,
    pub block_size: u32,
    pub rpm: u16,
    pub removable: bool,
}

impl Geometry {
    /// Geometry covering `blocks` with the given heads and sectors per track.
    pub fn for_capacity(
        blocks: u64,
        heads: u8,
        sectors_per_track: u16,
        block_size: u32,
        rpm: u16,
        removable: bool,
    ) -> Geometry {
        let per_cyl = u64::from(heads.max(1)) * u64::from(sectors_per_track.max(1));
        let cylinders = blocks.div_ceil(per_cyl).min(0xFF_FFFF) as u32;
        Geometry {
            heads: heads.max(1),
            sectors_per_track: sectors_per_track.max(1),
            cylinders,
            block_size,
            rpm,
            removable,
        }
    }
}

/// One mode page with its four sets of values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModePage {
    pub code: u8,
    pub savable: bool,
    pub current: Vec<u8>,
    pub changeable: Vec<u8>,
    pub default: Vec<u8>,
    pub saved: Vec<u8>,
}

impl ModePage {
    fn new(code: u8, savable: bool, default: Vec<u8>, changeable: Vec<u8>) -> ModePage {
        debug_assert_eq!(default.len(), changeable.len());
        debug_assert_eq!(default[1] as usize + 2, default.len());
        ModePage {
            code,
            savable,
            current: default.clone(),
            saved: default.clone(),
            changeable,
            default,
        }
    }

    fn values(&self, pc: u8) -> &[u8] {
        match pc {
            pc::CURRENT => &self.current,
            pc::CHANGEABLE => &self.changeable,
            pc::DEFAULT => &self.default,
            _ => &self.saved,
        }
    }
}

fn blank(code: u8, len: u8) -> Vec<u8> {
    let mut p = vec![0u8; len as usize + 2];
    p[0] = code;
    p[1] = len;
    p
}

fn put16(p: &mut [u8], at: usize, v: u16) {
    p[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

fn put24(p: &mut [u8], at: usize, v: u32) {
    p[at..at + 3].copy_from_slice(&v.to_be_bytes()[1..]);
}

/// The pages of a disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModePages {
    pages: Vec<ModePage>,
    /// Whether the target keeps saved values at all (SP = 1 and PC = 3 accepted).
    pub saving_supported: bool,
}

/// What a valid MODE SELECT changed, for the target to act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SelectEffect {
    /// WCE before and after.
    pub wce_before: bool,
    pub wce_after: bool,
}

impl ModePages {
    /// The default pages for `geometry`; `read_ahead_blocks` fills the caching page's maximum
    /// pre-fetch.
    pub fn new(geometry: Geometry, read_ahead_blocks: u16, saving_supported: bool) -> ModePages {
        // 01h read-write error recovery: AWRE | ARRE, 8 read retries, 8 write retries,
        // recovery time limit 0 (vendor default). Flags, retry counts and time limit are
        // changeable (stored only; they do not change the model).
        let mut er = blank(page::ERROR_RECOVERY, ERROR_RECOVERY_LEN);
        er[2] = 0xC0;
        er[3] = 8;
        er[8] = 8;
        let mut er_mask = blank(0, ERROR_RECOVERY_LEN);
        er_mask[2] = 0xFF;
        er_mask[3] = 0xFF;
        er_mask[8] = 0xFF;
        er_mask[10] = 0xFF;
        er_mask[11] = 0xFF;

        // 03h format device: one zone per cylinder, no spares, interleave 1, hard sectored.
        let mut fd = blank(page::FORMAT_DEVICE, FORMAT_DEVICE_LEN);
        put16(&mut fd, 2, u16::from(geometry.heads));
        put16(&mut fd, 10, geometry.sectors_per_track);
        put16(&mut fd, 12, geometry.block_size.min(0xFFFF) as u16);
        put16(&mut fd, 14, 1);
        fd[20] = 0x40 | if geometry.removable { 0x20 } else { 0 };
        let fd_mask = blank(0, FORMAT_DEVICE_LEN);

        // 04h rigid disk geometry.
        let mut rg = blank(page::RIGID_GEOMETRY, RIGID_GEOMETRY_LEN);
        put24(&mut rg, 2, geometry.cylinders);
        rg[5] = geometry.heads;
        put24(&mut rg, 6, geometry.cylinders);
        put24(&mut rg, 9, geometry.cylinders);
        put24(&mut rg, 14, geometry.cylinders);
        put16(&mut rg, 20, geometry.rpm);
        let rg_mask = blank(0, RIGID_GEOMETRY_LEN);

        // 08h caching: WCE off, RCD off (read cache on); pre-fetch fields.
        let mut ca = blank(page::CACHING, CACHING_LEN);
        put16(&mut ca, 4, 0xFFFF); // disable pre-fetch transfer length
        put16(&mut ca, 6, 0); // minimum pre-fetch
        put16(&mut ca, 8, read_ahead_blocks); // maximum pre-fetch
        put16(&mut ca, 10, 0xFFFF); // maximum pre-fetch ceiling
        let mut ca_mask = blank(0, CACHING_LEN);
        ca_mask[2] = CACHING_WCE | CACHING_RCD;

        let mut pages = vec![
            ModePage::new(page::ERROR_RECOVERY, true, er, er_mask),
            ModePage::new(page::FORMAT_DEVICE, false, fd, fd_mask),
            ModePage::new(page::RIGID_GEOMETRY, false, rg, rg_mask),
            ModePage::new(page::CACHING, true, ca, ca_mask),
        ];
        for p in &mut pages {
            p.changeable[0] = 0;
            p.changeable[1] = 0;
        }
        ModePages {
            pages,
            saving_supported,
        }
    }

    /// The page with `code`.
    pub fn get(&self, code: u8) -> Option<&ModePage> {
        self.pages.iter().find(|p| p.code == code)
    }

    fn get_mut(&mut self, code: u8) -> Option<&mut ModePage> {
        self.pages.iter_mut().find(|p| p.code == code)
    }

    /// Current WCE.
    pub fn wce(&self) -> bool {
        self.get(page::CACHING)
            .is_some_and(|p| p.current[2] & CACHING_WCE != 0)
    }

    /// Current RCD (read cache disabled).
    pub fn rcd(&self) -> bool {
        self.get(page::CACHING)
            .is_some_and(|p| p.current[2] & CACHING_RCD != 0)
    }

    /// Set WCE in the current (and with `save`, saved) caching page — a host shortcut.
    pub fn set_wce(&mut self, on: bool, save: bool) {
        let p = self.get_mut(page::CACHING).expect("caching page exists");
        let set = |v: &mut Vec<u8>| {
            if on {
                v[2] |= CACHING_WCE
            } else {
                v[2] &= !CACHING_WCE
            }
        };
        set(&mut p.current);
        if save {
            set(&mut p.saved);
        }
    }

    /// Set WCE in the default values (the configured power-on default).
    pub fn set_default_wce(&mut self, on: bool) {
        let p = self.get_mut(page::CACHING).expect("caching page exists");
        if on {
            p.default[2] |= CACHING_WCE
        } else {
            p.default[2] &= !CACHING_WCE
        }
    }

    /// Current values := saved values (power-on, reset).
    pub fn restore_saved(&mut self) {
        for p in &mut self.pages {
            p.current = p.saved.clone();
        }
    }

    /// The page bytes MODE SENSE returns for `code` (3Fh: all pages, ascending) with page
    /// control `pc`; PS set on savable pages. Unknown page → 05/24/00; PC = 3 when saving is
    /// not supported → 05/39/00.
    pub fn sense_pages(&self, pc: u8, code: u8) -> Result<Vec<u8>, Sense> {
        if pc == pc::SAVED && !self.saving_supported {
            return Err(Sense::illegal(asc::SAVING_NOT_SUPPORTED));
        }
        let mut out = Vec::new();
        let mut found = false;
        for p in &self.pages {
            if code == page::ALL || p.code == code {
                found = true;
                let start = out.len();
                out.extend_from_slice(p.values(pc));
                out[start] = p.code
                    | if p.savable && self.saving_supported {
                        0x80
                    } else {
                        0
                    };
                // Every page, the changeable mask included, reports its page length (SCSI-2
                // §8.3.3: the mask applies to the parameters after the two header bytes).
                out[start + 1] = (p.current.len() - 2) as u8;
            }
        }
        if !found {
            return Err(Sense::illegal(asc::INVALID_FIELD_IN_CDB));
        }
        Ok(out)
    }

    /// Validate a list of pages (as sent in MODE SELECT, after header and block descriptor)
    /// and, only if all are valid, apply them; `sp` also saves the savable ones.
    ///
    /// Rules (05/26/00 unless said): PS bit must be 0; page code must be one of ours; page
    /// length must equal ours; no bit may differ from the current value where the changeable
    /// mask is 0. A page cut short by the list's end → 05/1A/00.
    pub fn select_pages(&mut self, mut list: &[u8], sp: bool) -> Result<SelectEffect, Sense> {
        let bad = Sense::illegal(asc::INVALID_FIELD_IN_PARAM);
        let mut parsed: Vec<(u8, &[u8])> = Vec::new();
        while !list.is_empty() {
            if list.len() < 2 {
                return Err(Sense::illegal(asc::PARAM_LIST_LENGTH));
            }
            if list[0] & 0x80 != 0 {
                return Err(bad);
            }
            let code = list[0] & 0x3F;
            let Some(p) = self.get(code) else {
                return Err(bad);
            };
            if list[0] & 0x40 != 0 || list[1] != p.current[1] {
                return Err(bad);
            }
            let n = list[1] as usize + 2;
            if list.len() < n {
                return Err(Sense::illegal(asc::PARAM_LIST_LENGTH));
            }
            let new = &list[..n];
            let locked = (2..n).any(|i| (new[i] ^ p.current[i]) & !p.changeable[i] != 0);
            if locked {
                return Err(bad);
            }
            parsed.push((code, new));
            list = &list[n..];
        }
        let wce_before = self.wce();
        for (code, new) in parsed {
            let p = self.get_mut(code).unwrap();
            p.current[2..].copy_from_slice(&new[2..]);
            if sp && p.savable {
                p.saved = p.current.clone();
            }
        }
        Ok(SelectEffect {
            wce_before,
            wce_after: self.wce(),
        })
    }
}

/// The block descriptor and header facts MODE SENSE needs from the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediumInfo {
    pub blocks: u64,
    pub block_size: u32,
    pub write_protected: bool,
}

/// The 8-byte block descriptor: density 0, number of blocks (FFFFFFh if it does not fit),
/// block length.
pub fn block_descriptor(m: &MediumInfo) -> [u8; 8] {
    let mut d = [0u8; 8];
    put24(&mut d, 1, m.blocks.min(0xFF_FFFF) as u32);
    put24(&mut d, 5, m.block_size);
    d
}

/// Complete MODE SENSE(6)/(10) data (before allocation-length truncation): header, the block
/// descriptor unless `dbd`, the pages. The mode data length counts the bytes after itself.
pub fn mode_sense_data(ten: bool, dbd: bool, m: &MediumInfo, pages: &[u8]) -> Vec<u8> {
    let devspec = DEVSPEC_DPOFUA | if m.write_protected { DEVSPEC_WP } else { 0 };
    let bd: &[u8] = if dbd { &[] } else { &block_descriptor(m) };
    let mut out = Vec::new();
    if ten {
        out.extend_from_slice(&[0, 0, 0, devspec, 0, 0, 0, bd.len() as u8]);
    } else {
        out.extend_from_slice(&[0, 0, devspec, bd.len() as u8]);
    }
    out.extend_from_slice(bd);
    out.extend_from_slice(pages);
    if ten {
        let n = (out.len() - 2) as u16;
        out[0..2].copy_from_slice(&n.to_be_bytes());
    } else {
        out[0] = (out.len() - 1).min(255) as u8;
    }
    out
}

/// Validate a MODE SELECT(6)/(10) parameter list's header and block descriptor; returns the
/// pages part. Rules: mode data length must be 0 (05/26/00); medium type must be 0 (the only
/// one this target has, 05/26/00); the device-specific byte is ignored (WP/DPOFUA are not
/// defined in MODE SELECT); block descriptor length 0 or 8 (05/26/00); a descriptor must
/// have density 0, number of blocks 0 or the capacity, block length the current one
/// (changing capacity or block size is not supported: 05/26/00). A list too short for its
/// header or descriptor → 05/1A/00.
pub fn select_header<'a>(list: &'a [u8], ten: bool, m: &MediumInfo) -> Result<&'a [u8], Sense> {
    let bad = Sense::illegal(asc::INVALID_FIELD_IN_PARAM);
    let short = Sense::illegal(asc::PARAM_LIST_LENGTH);
    let hdr = if ten { 8 } else { 4 };
    if list.len() < hdr {
        return Err(short);
    }
    let (mdl, medium, bdl) = if ten {
        (
            u16::from_be_bytes([list[0], list[1]]) as usize,
            list[2],
            u16::from_be_bytes([list[6], list[7]]) as usize,
        )
    } else {
        (list[0] as usize, list[1], list[3] as usize)
    };
    if mdl != 0 || medium != 0 {
        return Err(bad);
    }
    if bdl != 0 && bdl != 8 {
        return Err(bad);
    }
    if list.len() < hdr + bdl {
        return Err(short);
    }
    if bdl == 8 {
        let d = &list[hdr..hdr + 8];
        let blocks = u64::from(u32::from_be_bytes([0, d[1], d[2], d[3]]));
        let len = u32::from_be_bytes([0, d[5], d[6], d[7]]);
        let cap = m.blocks.min(0xFF_FFFF);
        if d[0] != 0 || d[4] != 0 || (blocks != 0 && blocks != cap) || len != m.block_size {
            return Err(bad);
        }
    }
    Ok(&list[hdr + bdl..])
}
