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

unsafe extern "C" {
    /// `mount_glue.S`: `_HGetVInfo`, synchronous; the result code.
    fn ferrite_PBHGetVInfo(pb: *mut u16) -> i32;
}

/// `HVolumeParam` (IM Files, `PBHGetVInfo`) as words: `ioNamePtr` at byte 18, `ioVRefNum`
/// 22, `ioVolIndex` 28, `ioVDrvInfo` 66; 122 bytes.
const HVP_WORDS: usize = 61;
const IO_NAME_PTR_W: usize = 9;
const IO_VREF_NUM_W: usize = 11;
const IO_VOL_INDEX_W: usize = 14;
const IO_V_DRV_INFO_W: usize = 33;

/// The drive the Mac started up from: after start-up `BootDrive` holds the startup volume's
/// (working-directory) reference number, not a drive number, so the drive is
/// `PBHGetVInfo(BootDrive)`'s `ioVDrvInfo` (docs/mac-facts.md, `BootDrive`). 0
/// when the volume is off line or `BootDrive` names no volume (early start-up: then the
/// word itself is the drive number).
pub fn startup_drive() -> i16 {
    let boot = word(BOOT_DRIVE);
    // Words: the block is 2-aligned as the File Manager requires.
    let mut pb = [0u16; HVP_WORDS];
    pb[IO_NAME_PTR_W] = 0;
    pb[IO_NAME_PTR_W + 1] = 0;
    pb[IO_VREF_NUM_W] = boot as u16;
    pb[IO_VOL_INDEX_W] = 0;
    // SAFETY: pb is a zeroed, even-aligned 122-byte HVolumeParam with ioNamePtr NIL.
    let err = unsafe { ferrite_PBHGetVInfo(pb.as_mut_ptr()) };
    if err == 0 {
        pb[IO_V_DRV_INFO_W] as i16
    } else if boot > 0 {
        boot
    } else {
        0
    }
}

/// `Time`: the date and time in Mac seconds.
pub fn now() -> u32 {
    long(TIME)
}
