//! The driver a disk carries, read as the Start Manager reads it (`docs/mac-facts.md` §1,
//! §2): block 0's first driver descriptor (`ddBlock`, `ddSize`) for Mac OS (`ddType` 1), the
//! map entry of type `Apple_Driver…` that starts at `ddBlock`, and `ddSize` blocks from there.
//! Ferrite Setup loads such a driver only when it is Ferrite's (the blob magic `FRRT` at +4)
//! and its checksum holds, to mount a disk's volumes without a restart (`ui::mount`).

use alloc::vec;
use alloc::vec::Vec;

use ferrite_formatter::BlockDevice;
use ferrite_formatter::apm::{self, ApmError};
use ferrite_shared::driver_blob;
use ferrite_shared::partition_map::{MapError, boot_checksum};

use crate::bus::Transport;
use crate::disk::{BLOCK_LEN, ScsiDisk};
use crate::ops::OpError;

/// `ddType` of a Mac OS driver.
const MAC_OS: u16 = 1;
/// Largest driver the app loads (the Start Manager model refuses more than 1 MB).
const MAX_DRIVER_BYTES: u64 = 256 * 1024;

/// Which install entry the driver's partition asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// `Apple_Driver`: +0, D5 = SCSI ID.
    Original,
    /// `Apple_Driver43`: +8 with SCSI Manager 4.3, D5 = DeviceIdent.
    Scsi43,
}

/// The driver of a disk, as loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootDriver {
    pub code: Vec<u8>,
    pub entry: Entry,
    /// The version in the blob's settings block.
    pub version: Option<[u8; 3]>,
}

/// Why a disk's driver is not loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotLoaded {
    /// No Mac OS driver descriptor, or no `Apple_Driver…` entry at `ddBlock`.
    NoDriver,
    /// The driver is not Ferrite's.
    Foreign,
    /// `ddSize` is 0 or larger than the app loads.
    BadSize(u64),
    /// `pmBootCksum` does not match the code.
    BadChecksum,
    /// Reading the disk failed.
    Read(OpError),
}

/// Read the driver at `id` the way the ROM would, if it is Ferrite's.
pub fn read(t: &mut dyn Transport, id: u8) -> Result<BootDriver, NotLoaded> {
    let mut d = ScsiDisk::open(t, id).map_err(NotLoaded::Read)?;
    // The core's map reader also checks the driver's checksum as the ROM does.
    let map = match apm::read_map(&mut d) {
        Ok(m) => m,
        Err(ApmError::Map(MapError::DriverChecksum { .. })) => return Err(NotLoaded::BadChecksum),
        Err(ApmError::Device(_)) => {
            return Err(NotLoaded::Read(
                d.error_or(|| OpError::Format("reading the map failed".into())),
            ));
        }
        Err(_) => return Err(NotLoaded::NoDriver),
    };
    let dd = map
        .ddm
        .descriptors()
        .iter()
        .find(|dd| dd.kind.get() == MAC_OS)
        .copied()
        .ok_or(NotLoaded::NoDriver)?;
    let part = map
        .partitions
        .iter()
        .find(|p| p.kind.starts_with("Apple_Driver") && p.start == dd.block.get())
        .ok_or(NotLoaded::NoDriver)?;
    let bytes = dd.size.get() as u64 * BLOCK_LEN as u64;
    if bytes == 0 || bytes > MAX_DRIVER_BYTES {
        return Err(NotLoaded::BadSize(bytes));
    }
    let mut code = vec![0u8; bytes as usize];
    d.read_blocks(dd.block.get() as u64, &mut code)
        .map_err(|e| NotLoaded::Read(d.error_or(|| OpError::Format(alloc::format!("{e}")))))?;
    let magic = driver_blob::MAGIC_OFFSET..driver_blob::MAGIC_OFFSET + 4;
    if code.get(magic) != Some(&driver_blob::MAGIC[..]) {
        return Err(NotLoaded::Foreign);
    }
    // The ROM's check (Technote DV 12) where the ROM makes it: a name starting "Maci".
    let boot_size = part.entry.boot_size.get() as usize;
    if boot_size > code.len()
        || (part.entry.driver_checksum_checked()
            && boot_checksum(&code[..boot_size]) as u32 != part.entry.boot_checksum.get())
    {
        return Err(NotLoaded::BadChecksum);
    }
    let entry = if part.kind == "Apple_Driver43" {
        Entry::Scsi43
    } else {
        Entry::Original
    };
    Ok(BootDriver {
        version: driver_blob::driver_version(&code),
        code,
        entry,
    })
}
