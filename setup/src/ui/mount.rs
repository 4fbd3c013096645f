//! Drive ▸ Mount Volumes, and the volumes of a disk mounted right after Initialize.
//!
//! A disk's volumes are mounted through the driver serving its SCSI ID, as the system mounts
//! them: each of the driver's drives that has no volume in the VCB queue gets `PBMountVol`
//! (`ioVRefNum` = the drive number; IM Files, "Mounting and Unmounting Volumes"). A disk
//! without a driver in the Mac gets its own first: the app reads the driver from the disk as
//! the Start Manager does ([`crate::boot_driver`]; only Ferrite's), copies it into a
//! nonrelocatable system-heap block, flushes the instruction cache, and calls its install
//! entry as the ROM would (+0 with D5 = SCSI ID; an `Apple_Driver43` driver at +8 with D5 =
//! DeviceIdent under SCSI Manager 4.3; IM Devices ch. 4, "Loading and Initializing a
//! Driver"). The driver adds its drives to the drive queue (and posts its disk-inserted
//! events, which the system would mount too: the second mount is `volOnLinErr`, harmless).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use ferrite_macrt::toolbox as tb;

use super::drives::scsi_id_of;
use super::lowmem;
use super::volumes::DiskDrive;
use crate::boot_driver::{self, Entry, NotLoaded};
use crate::bus::Transport;

unsafe extern "C" {
    fn ferrite_PBStatus(pb: *mut u8) -> i32;
    fn ferrite_PBControl(pb: *mut u8) -> i32;
    fn ferrite_PBMountVol(pb: *mut u8) -> i32;
    fn ferrite_NewPtrSys(size: u32) -> u32;
    fn ferrite_FlushInstructionCache();
    fn ferrite_CallInstall(entry: u32, d5: u32) -> i32;
}

/// `ParamBlockRec` / `CntrlParam` (IM Files, IM Devices): 50 bytes.
const PB_LEN: usize = 50;
const IO_VREFNUM: usize = 22;
const IO_CREFNUM: usize = 24;
const CS_CODE: usize = 26;
const CS_PARAM: usize = 28;
/// Status `csCode` 43: DriverGestalt; selector `'boot'` answers the drive's partition in
/// bits 16–23 (the slot form's second byte: `docs/mac-facts.md` §2, §4.2).
const DRIVER_GESTALT: u16 = 43;
const BOOT: [u8; 4] = *b"boot";
/// `_HWPriv`: absent on a 68000 Mac, which has no cache to flush.
const HW_PRIV: u16 = 0xA198;
/// `volOnLinErr`: the volume is already mounted.
const VOL_ON_LIN_ERR: i16 = -55;
/// Ferrite's driver's own Control `csCode` ('FM'): read the partition map again and add a
/// drive for each HFS partition it does not serve yet (`docs/driver.md`, "Rescan").
const RESCAN_CONTROL: i16 = 0x464D;
/// `UTableBase` ($11C): the unit table, one DCE handle per unit (IM Devices).
const UTABLE_BASE: usize = 0x11C;
/// DCE: `dCtlDriver` 0, `dCtlFlags` 4 (bit 6 `dRAMBased`: `dCtlDriver` is a handle).
const D_CTL_FLAGS: usize = 4;
const D_RAM_BASED: u16 = 0x40;
/// DRVR header: `drvrName` (Str255) at 18.
const DRVR_NAME: usize = 18;
/// Ferrite's driver's name.
const FERRITE_NAME: &[u8] = b".Ferrite";

/// A parameter block: word-aligned, as the File and Device Managers require (an odd one
/// faults on the 68000).
#[repr(C, align(2))]
struct Pb([u8; PB_LEN]);

impl core::ops::Deref for Pb {
    type Target = [u8; PB_LEN];
    fn deref(&self) -> &[u8; PB_LEN] {
        &self.0
    }
}

impl core::ops::DerefMut for Pb {
    fn deref_mut(&mut self) -> &mut [u8; PB_LEN] {
        &mut self.0
    }
}

fn pb() -> Pb {
    Pb([0u8; PB_LEN])
}

fn put16(b: &mut [u8], at: usize, v: i16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// The map entry a drive serves, as its driver says (DriverGestalt `'boot'`).
fn partition_of(ref_num: i16, drive: i16) -> Option<u32> {
    let mut p = pb();
    put16(&mut p.0, IO_VREFNUM, drive);
    put16(&mut p.0, IO_CREFNUM, ref_num);
    put16(&mut p.0, CS_CODE, DRIVER_GESTALT as i16);
    p[CS_PARAM..CS_PARAM + 4].copy_from_slice(&BOOT);
    // SAFETY: a 50-byte parameter block on the stack; the call is synchronous.
    let r = unsafe { ferrite_PBStatus(p.as_mut_ptr()) };
    if r != 0 {
        return None;
    }
    let at = CS_PARAM + 4;
    let answer = u32::from_be_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]]);
    match (answer >> 16) & 0xFF {
        0 => None,
        n => Some(n),
    }
}

/// The drives the Mac has for the disk at `id`, each with its partition and volume.
pub fn disk_drives(id: u8) -> Vec<DiskDrive> {
    let volumes = lowmem::vcb_queue();
    lowmem::drive_queue()
        .into_iter()
        .filter(|e| scsi_id_of(e.ref_num) == Some(id))
        .map(|e| DiskDrive {
            drive: e.drive,
            partition: partition_of(e.ref_num, e.drive),
            mounted: volumes
                .iter()
                .find(|v| v.drive == e.drive)
                .map(|v| v.name.clone()),
        })
        .collect()
}

/// `PBMountVol` of `drive`: its result.
fn mount_drive(drive: i16) -> i16 {
    let mut p = pb();
    put16(&mut p.0, IO_VREFNUM, drive);
    // SAFETY: as in `partition_of`.
    let r = unsafe { ferrite_PBMountVol(p.as_mut_ptr()) };
    r as i16
}

fn long(addr: usize) -> usize {
    // SAFETY: the unit table, DCEs and driver headers are readable RAM (or ROM); the
    // callers check each address is non-zero and even.
    unsafe { core::ptr::read_volatile(addr as *const u32) as usize }
}

/// The driver at `ref_num` is Ferrite's (its DRVR header says ".Ferrite"): it answers
/// [`RESCAN_CONTROL`]. Another driver is never sent Ferrite's private call.
fn is_ferrite(ref_num: i16) -> bool {
    let unit = (-1 - ref_num as i32) as usize;
    let handle = long(long(UTABLE_BASE) + 4 * unit);
    if handle == 0 || handle & 1 != 0 {
        return false;
    }
    // A 24-bit master pointer may carry the Memory Manager's flags in its high byte; the
    // address bus ignores that byte in 24-bit mode, and 32-bit mode keeps no flags there.
    let dce = long(handle);
    if dce == 0 || dce & 1 != 0 {
        return false;
    }
    // SAFETY: `dCtlFlags`, a word of the DCE.
    let flags = unsafe { core::ptr::read_volatile((dce + D_CTL_FLAGS) as *const u16) };
    let mut header = long(dce);
    if flags & D_RAM_BASED != 0 && header != 0 && header & 1 == 0 {
        header = long(header);
    }
    if header == 0 || header & 1 != 0 {
        return false;
    }
    // SAFETY: the header's name: a length byte and at least 8 more bytes of the header.
    let name = unsafe { core::slice::from_raw_parts((header + DRVR_NAME) as *const u8, 9) };
    name[0] as usize == FERRITE_NAME.len() && &name[1..] == FERRITE_NAME
}

/// The refNum of the driver whose drives serve the disk at `id`, if the Mac has one.
fn driver_of(id: u8) -> Option<i16> {
    lowmem::drive_queue()
        .into_iter()
        .find(|e| scsi_id_of(e.ref_num) == Some(id))
        .map(|e| e.ref_num)
}

/// Control [`RESCAN_CONTROL`] to the driver at `ref_num`: its result.
fn rescan(ref_num: i16) -> i16 {
    let mut p = pb();
    put16(&mut p.0, IO_CREFNUM, ref_num);
    put16(&mut p.0, CS_CODE, RESCAN_CONTROL);
    // SAFETY: as in `partition_of`.
    unsafe { ferrite_PBControl(p.as_mut_ptr()) as i16 }
}

/// After Partition… ▸ Add put the volume `name` on the disk at `id` (`disk` names it): get
/// the Mac to serve and mount it without a restart when the disk's driver is Ferrite's
/// (its rescan call, then `PBMountVol` of the drives it added), or say why not. `Ok` is a
/// result to show, `Err` a failure to show.
pub fn serve_added(id: u8, name: &str, disk: &str) -> Result<String, String> {
    let mut s = String::new();
    let _ = write!(s, "\u{201C}{name}\u{201D} is added to {disk}");
    let before = disk_drives(id);
    let Some(ref_num) = driver_of(id) else {
        s.push_str(
            ". The Mac has no driver for the disk yet: choose Mount Volumes in the Drive menu to mount it.",
        );
        return Ok(s);
    };
    if !is_ferrite(ref_num) {
        s.push_str(", but the disk's driver in the Mac is not Ferrite's and cannot serve a new volume: restart the Mac to mount it.");
        return Err(s);
    }
    let r = rescan(ref_num);
    if r != 0 {
        let _ = write!(
            s,
            ", but Ferrite's driver did not take the new map: {}. Restart the Mac to mount it.",
            rescan_error(r)
        );
        return Err(s);
    }
    let new: Vec<i16> = disk_drives(id)
        .into_iter()
        .filter(|a| before.iter().all(|b| b.drive != a.drive))
        .map(|a| a.drive)
        .collect();
    if new.is_empty() {
        // Its entry has a drive already (one kept after a Delete, which serves the old
        // extent), or the driver serves 8 volumes of the disk: a restart reads it afresh.
        s.push_str(", but Ferrite's driver added no drive for it: restart the Mac to mount it.");
        return Err(s);
    }
    let mut failed = String::new();
    for &d in &new {
        match mount_drive(d) {
            0 | VOL_ON_LIN_ERR => {}
            e => {
                let _ = write!(
                    failed,
                    " Drive {d} was not mounted: {}.",
                    super::volumes::mount_error(e)
                );
            }
        }
    }
    if !failed.is_empty() {
        s.push('.');
        s.push_str(&failed);
        return Err(s);
    }
    s.push_str(" and mounted as ");
    for (i, a) in disk_drives(id)
        .into_iter()
        .filter(|a| new.contains(&a.drive))
        .enumerate()
    {
        if i > 0 {
            s.push_str(", ");
        }
        let v = a.mounted.unwrap_or_default();
        let _ = write!(s, "\u{201C}{v}\u{201D} (drive {})", a.drive);
    }
    s.push_str(", without a restart.");
    Ok(s)
}

/// The rescan call's result in words.
fn rescan_error(e: i16) -> String {
    let s = match e {
        -17 => "the driver in the Mac is an older Ferrite that cannot add volumes (controlErr)",
        -57 => "block 1 of the disk holds no partition map entry (noMacDskErr)",
        r => return super::volumes::mount_error(r),
    };
    String::from(s)
}

/// Load the driver of the disk at `id` from the disk and call its install entry. `Ok(())`
/// when it added drives for the disk.
fn load_driver(t: &mut dyn Transport, id: u8, scsi43: bool) -> Result<(), String> {
    let mut s = String::new();
    let d = match boot_driver::read(t, id) {
        Ok(d) => d,
        Err(e) => {
            let why = match e {
                NotLoaded::NoDriver => {
                    "the disk has no driver: initialize it or update its driver first"
                }
                NotLoaded::Foreign => {
                    "its driver is not Ferrite's, and Ferrite Setup loads only its own: restart to let the Mac load it"
                }
                NotLoaded::BadSize(_) => {
                    "the driver descriptor in block 0 gives an impossible driver size: update the driver"
                }
                NotLoaded::BadChecksum => {
                    "the driver's checksum does not match its code: update the driver"
                }
                NotLoaded::Read(e) => {
                    let _ = write!(s, "reading its driver failed: {e}");
                    return Err(s);
                }
            };
            s.push_str(why);
            return Err(s);
        }
    };
    let len = d.code.len() as u32;
    // SAFETY: the trap returns a block of `len` bytes or 0.
    let at = unsafe { ferrite_NewPtrSys(len) };
    if at == 0 {
        let _ = write!(
            s,
            "the system heap has no room for its {len}-byte driver: restart to load it"
        );
        return Err(s);
    }
    // SAFETY: a fresh nonrelocatable block of `len` bytes.
    unsafe { core::ptr::copy_nonoverlapping(d.code.as_ptr(), at as *mut u8, d.code.len()) };
    if tb::trap_available(HW_PRIV) {
        // SAFETY: _HWPriv FlushInstructionCache: the new code must not meet stale lines.
        unsafe { ferrite_FlushInstructionCache() };
    }
    let (entry, d5) = match d.entry {
        Entry::Scsi43 if scsi43 => (at + 8, (id as u32) << 8),
        _ => (at, id as u32),
    };
    // SAFETY: the driver's install entry, called as the Start Manager calls it; it keeps
    // every register but D0 (checked by the emulated Mac for the ROM's call).
    unsafe { ferrite_CallInstall(entry, d5) };
    if disk_drives(id).is_empty() {
        let _ = write!(
            s,
            "its driver did not start (no drive for it in the drive queue): restart to load it"
        );
        return Err(s);
    }
    Ok(())
}

/// What mounting a disk's volumes did.
pub struct Mounted {
    /// The driver was loaded from the disk (else the one in the Mac served).
    pub loaded_driver: bool,
    /// Volumes now mounted, by name, that were not before.
    pub new: Vec<String>,
    /// Drives whose volume could not be mounted, with the error.
    pub failed: Vec<(i16, i16)>,
    /// Ferrite's driver could not read the map again (volumes added since have no drive).
    pub rescan_failed: Option<i16>,
}

/// Mount every volume of the disk at `id` that is not mounted, loading its driver first if
/// the Mac has none for it.
pub fn mount_disk(t: &mut dyn Transport, id: u8, scsi43: bool) -> Result<Mounted, String> {
    let mut drives = disk_drives(id);
    let mut loaded_driver = false;
    let mut rescan_failed = None;
    if drives.is_empty() {
        load_driver(t, id, scsi43)?;
        loaded_driver = true;
        drives = disk_drives(id);
    } else if let Some(ref_num) = driver_of(id).filter(|&r| is_ferrite(r)) {
        // Volumes added to the map since the driver read it get their drives first.
        match rescan(ref_num) {
            0 => drives = disk_drives(id),
            e => rescan_failed = Some(e),
        }
    }
    let mut failed = Vec::new();
    for d in drives.iter().filter(|d| d.mounted.is_none()) {
        match mount_drive(d.drive) {
            0 | VOL_ON_LIN_ERR => {}
            e => failed.push((d.drive, e)),
        }
    }
    let after = disk_drives(id);
    let new = after
        .iter()
        .filter(|a| {
            a.mounted.is_some()
                && drives
                    .iter()
                    .any(|b| b.drive == a.drive && b.mounted.is_none())
        })
        .filter_map(|a| a.mounted.clone())
        .collect();
    Ok(Mounted {
        loaded_driver,
        new,
        failed,
        rescan_failed,
    })
}

impl Mounted {
    /// The result in words: "“System” and “Data” are mounted (Ferrite's driver loaded from
    /// the disk)."
    pub fn words(&self, disk: &str) -> String {
        let mut s = String::new();
        if self.new.is_empty() {
            let _ = write!(s, "No new volume of {disk} was mounted");
        } else {
            for (i, n) in self.new.iter().enumerate() {
                if i > 0 {
                    s.push_str(if i + 1 == self.new.len() {
                        " and "
                    } else {
                        ", "
                    });
                }
                let _ = write!(s, "\u{201C}{n}\u{201D}");
            }
            s.push_str(if self.new.len() == 1 {
                " is mounted"
            } else {
                " are mounted"
            });
        }
        if self.loaded_driver {
            s.push_str(" (Ferrite's driver loaded from the disk)");
        }
        s.push('.');
        if let Some(e) = self.rescan_failed {
            let _ = write!(
                s,
                " Ferrite's driver did not read the map again, so a volume added since has no drive: {}. Restart the Mac to mount it.",
                rescan_error(e)
            );
        }
        for (drive, e) in &self.failed {
            let _ = write!(
                s,
                " Drive {drive} was not mounted: {}.",
                super::volumes::mount_error(*e)
            );
        }
        s
    }
}

/// Drive ▸ Mount Volumes on the disk at `id`: the result (or why not) in an alert.
pub fn command(t: &mut dyn Transport, id: u8, scsi43: bool) {
    let disk = match crate::ops::drive_info(t, id) {
        Ok(i) => super::texts::drive_name(id, &i.vendor, &i.product, i.blocks, i.block_len),
        Err(e) => {
            let mut s = String::new();
            let _ = write!(s, "Mount Volumes: cannot read ID {id}: {e}");
            super::alerts::error(&s);
            return;
        }
    };
    let mut s = String::new();
    match mount_disk(t, id, scsi43) {
        Ok(m) if m.failed.is_empty() && m.rescan_failed.is_none() => {
            super::alerts::done(&m.words(&disk))
        }
        Ok(m) => super::alerts::error(&m.words(&disk)),
        Err(why) => {
            let _ = write!(s, "The volumes of {disk} cannot be mounted: {why}.");
            super::alerts::error(&s);
        }
    }
}
