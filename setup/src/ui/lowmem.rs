//! What the app reads from low memory (`docs/mac-facts.md` §15): the drive queue at
//! `DrvQHdr` ($308: flags word, then `qHead`, `qTail`), the startup drive `BootDrive`
//! ($210), and the clock `Time` ($20C, seconds since 1904, what `GetDateTime` returns).
//! A drive queue element: `qLink` 0, `qType` 4, `dQDrive` 6, `dQRefNum` 8 (§5). The VCB
//! queue at `VCBQHdr` ($356, same header); a volume control block: `qLink` 0, `vcbVN` 44
//! (Str27), `vcbDrvNum` 72, `vcbVRefNum` 78 (IM Files, "Volume Control Blocks").

use alloc::string::String;
use alloc::vec::Vec;

use super::drives::DriveEntry;

const DRV_Q_HDR: usize = 0x308;
const Q_HEAD: usize = 2;
const BOOT_DRIVE: usize = 0x210;
const TIME: usize = 0x20C;
const DQ_DRIVE: usize = 6;
const DQ_REF_NUM: usize = 8;
const VCB_Q_HDR: usize = 0x356;
const VCB_VN: usize = 44;
const VCB_DRV_NUM: usize = 72;
const VCB_VREF_NUM: usize = 78;
/// Longest volume name (`vcbVN` is a Str27).
const VCB_VN_MAX: usize = 27;
/// A drive queue longer than this is corrupt (the walk stops).
const MAX_DRIVES: usize = 64;

fn word(addr: usize) -> i16 {
    // SAFETY: low memory and drive queue elements are readable RAM on every 68k Mac; the
    // address is even.
    unsafe { core::ptr::read_volatile(addr as *const i16) }
}

fn long(addr: usize) -> u32 {
    // SAFETY: as above.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// The drive queue, head to tail.
pub fn drive_queue() -> Vec<DriveEntry> {
    let mut v = Vec::new();
    let mut el = long(DRV_Q_HDR + Q_HEAD) as usize;
    while el != 0 && el & 1 == 0 && v.len() < MAX_DRIVES {
        v.push(DriveEntry {
            drive: word(el + DQ_DRIVE),
            ref_num: word(el + DQ_REF_NUM),
        });
        el = long(el) as usize;
    }
    v
}

/// A mounted volume, from its VCB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountedVolume {
    /// `vcbDrvNum` (0 when the volume is off line).
    pub drive: i16,
    pub vref_num: i16,
    pub name: String,
}

/// The VCB queue, head to tail.
pub fn vcb_queue() -> Vec<MountedVolume> {
    let mut v = Vec::new();
    let mut el = long(VCB_Q_HDR + Q_HEAD) as usize;
    while el != 0 && el & 1 == 0 && v.len() < MAX_DRIVES {
        // SAFETY: a VCB in the queue is readable RAM; vcbVN is a Str27 inside it.
        let len = (unsafe { core::ptr::read_volatile((el + VCB_VN) as *const u8) } as usize)
            .min(VCB_VN_MAX);
        let name = (0..len)
            .map(|i| {
                // SAFETY: as above.
                let b = unsafe { core::ptr::read_volatile((el + VCB_VN + 1 + i) as *const u8) };
                if (0x20..0x7F).contains(&b) {
                    b as char
                } else {
                    '?'
                }
            })
            .collect();
        v.push(MountedVolume {
            drive: word(el + VCB_DRV_NUM),
            vref_num: word(el + VCB_VREF_NUM),
            name,
        });
        el = long(el) as usize;
    }
    v
}

/// `BootDrive`.
pub fn boot_drive() -> i16 {
    word(BOOT_DRIVE)
}

/// `Time`: the date and time in Mac seconds.
pub fn now() -> u32 {
    long(TIME)
}
