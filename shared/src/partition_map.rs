//! The Apple partition map: block 0 (the Driver Descriptor Map, `Block0`) and the partition
//! map entries (`Partition`, one 512-byte block each), and the driver checksum
//! (`pmBootCksum`).
//!
//! Layouts follow `mac-driver-facts.md` §1 (Inside Macintosh: Devices ch. 3, Universal
//! Interfaces `SCSI.a`); every field offset is asserted below against the doc's numbers.
//! Multi-byte fields are big-endian and the structures are unaligned byte images, so they can
//! be read straight out of a block buffer on the 68k and on the host.

use zerocopy::byteorder::{BigEndian, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Be16 = U16<BigEndian>;
type Be32 = U32<BigEndian>;

/// `sbSig`: 'ER'.
pub const DDM_SIGNATURE: u16 = 0x4552;
/// `pmSig`: 'PM'.
pub const PM_SIGNATURE: u16 = 0x504D;
/// The obsolete partition map signature 'TS'.
pub const OLD_PM_SIGNATURE: u16 = 0x5453;
/// Maximum number of driver descriptors that fit in block 0.
pub const MAX_DRIVER_DESCRIPTORS: usize = 61;

/// `ddType` values.
pub mod dd_type {
    /// Mac OS SCSI driver (`kDriverTypeMacSCSI`, `sbMac`): what a 68k Mac boots from.
    pub const MAC_SCSI: u16 = 0x0001;
    /// `kDriverTypeMacATA`.
    pub const MAC_ATA: u16 = 0x0701;
    /// `kDriverTypeMacSCSIChained`.
    pub const MAC_SCSI_CHAINED: u16 = 0xFFFF;
    /// `kDriverTypeMacATAChained`.
    pub const MAC_ATA_CHAINED: u16 = 0xF8FF;
}

/// Partition type strings (`pmParType`).
pub mod part_type {
    pub const PARTITION_MAP: &str = "Apple_partition_map";
    pub const DRIVER: &str = "Apple_Driver";
    pub const DRIVER43: &str = "Apple_Driver43";
    pub const HFS: &str = "Apple_HFS";
    pub const FREE: &str = "Apple_Free";
    pub const PATCHES: &str = "Apple_Patches";
}

/// `pmPartStatus` bits.
pub mod status {
    pub const VALID: u32 = 0x1;
    pub const ALLOCATED: u32 = 0x2;
    pub const IN_USE: u32 = 0x4;
    pub const BOOT_VALID: u32 = 0x8;
    pub const READABLE: u32 = 0x10;
    pub const WRITABLE: u32 = 0x20;
    pub const BOOT_CODE_POSITION_INDEPENDENT: u32 = 0x40;
    pub const CHAIN_COMPATIBLE: u32 = 0x100;
    pub const REAL_DEVICE_DRIVER: u32 = 0x200;
    pub const CAN_CHAIN_TO_NEXT: u32 = 0x400;
    pub const MOUNTED_AT_STARTUP: u32 = 0x4000_0000;
    pub const STARTUP: u32 = 0x8000_0000;
    /// What a driver partition carries (`$37F`, facts doc §1.4).
    pub const DRIVER_PARTITION: u32 = 0x0000_037F;
    /// What an `Apple_HFS` partition carries (`$4000037F`, pdisk's value).
    pub const HFS_PARTITION: u32 = 0x4000_037F;
    /// What the map's own entry carries.
    pub const MAP_PARTITION: u32 = 0x3;
}

/// `pmPad` signature of a SCSI hard-disk driver (`$00010600`).
pub const SCSI_DRIVER_PAD_SIGNATURE: u32 = 0x0001_0600;

/// One driver descriptor in block 0 (`DDMap`, 8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct DriverDescriptor {
    /// `ddBlock`: first block of the driver.
    pub block: Be32,
    /// `ddSize`: driver length in 512-byte blocks.
    pub size: Be16,
    /// `ddType`: [`dd_type`].
    pub kind: Be16,
}

/// Block 0: the Driver Descriptor Map (`Block0`, 512 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct DriverDescriptorMap {
    /// `sbSig`: [`DDM_SIGNATURE`].
    pub sig: Be16,
    /// `sbBlkSize`: device block size.
    pub block_size: Be16,
    /// `sbBlkCount`: device blocks.
    pub block_count: Be32,
    /// `sbDevType` (reserved).
    pub dev_type: Be16,
    /// `sbDevId` (reserved).
    pub dev_id: Be16,
    /// `sbData` (reserved, 0).
    pub data: Be32,
    /// `sbDrvrCount`.
    pub driver_count: Be16,
    /// The descriptors (only `driver_count` are meaningful).
    pub drivers: [DriverDescriptor; MAX_DRIVER_DESCRIPTORS],
    /// Unused tail of the block.
    pub pad: [u8; 6],
}

/// A partition map entry (`Partition`, 512 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct PartitionEntry {
    /// `pmSig`: [`PM_SIGNATURE`].
    pub sig: Be16,
    /// `pmSigPad`.
    pub sig_pad: Be16,
    /// `pmMapBlkCnt`: entries in the map.
    pub map_block_count: Be32,
    /// `pmPyPartStart`: first physical block.
    pub start: Be32,
    /// `pmPartBlkCnt`: length in blocks.
    pub block_count: Be32,
    /// `pmPartName`: NUL-terminated.
    pub name: [u8; 32],
    /// `pmParType`: NUL-terminated.
    pub kind: [u8; 32],
    /// `pmLgDataStart`.
    pub data_start: Be32,
    /// `pmDataCnt`.
    pub data_count: Be32,
    /// `pmPartStatus`: [`status`].
    pub status: Be32,
    /// `pmLgBootStart`.
    pub boot_start: Be32,
    /// `pmBootSize`: driver size in bytes (the checksum covers this many).
    pub boot_size: Be32,
    /// `pmBootAddr`.
    pub boot_addr: Be32,
    /// `pmBootAddr2`.
    pub boot_addr2: Be32,
    /// `pmBootEntry`.
    pub boot_entry: Be32,
    /// `pmBootEntry2`.
    pub boot_entry2: Be32,
    /// `pmBootCksum`: 16-bit checksum, zero-extended.
    pub boot_checksum: Be32,
    /// `pmProcessor`: NUL-terminated, e.g. "68000".
    pub processor: [u8; 16],
    /// `pmPad`: first 4 bytes may carry a driver signature.
    pub pad: [u8; 376],
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<DriverDescriptor>() == 8);
    assert!(size_of::<DriverDescriptorMap>() == 512);
    assert!(offset_of!(DriverDescriptorMap, block_size) == 2);
    assert!(offset_of!(DriverDescriptorMap, block_count) == 4);
    assert!(offset_of!(DriverDescriptorMap, dev_type) == 8);
    assert!(offset_of!(DriverDescriptorMap, dev_id) == 10);
    assert!(offset_of!(DriverDescriptorMap, data) == 12);
    assert!(offset_of!(DriverDescriptorMap, driver_count) == 16);
    assert!(offset_of!(DriverDescriptorMap, drivers) == 18);
    assert!(size_of::<PartitionEntry>() == 512);
    assert!(offset_of!(PartitionEntry, map_block_count) == 4);
    assert!(offset_of!(PartitionEntry, start) == 8);
    assert!(offset_of!(PartitionEntry, block_count) == 12);
    assert!(offset_of!(PartitionEntry, name) == 16);
    assert!(offset_of!(PartitionEntry, kind) == 48);
    assert!(offset_of!(PartitionEntry, data_start) == 80);
    assert!(offset_of!(PartitionEntry, data_count) == 84);
    assert!(offset_of!(PartitionEntry, status) == 88);
    assert!(offset_of!(PartitionEntry, boot_start) == 92);
    assert!(offset_of!(PartitionEntry, boot_size) == 96);
    assert!(offset_of!(PartitionEntry, boot_addr) == 100);
    assert!(offset_of!(PartitionEntry, boot_addr2) == 104);
    assert!(offset_of!(PartitionEntry, boot_entry) == 108);
    assert!(offset_of!(PartitionEntry, boot_entry2) == 112);
    assert!(offset_of!(PartitionEntry, boot_checksum) == 116);
    assert!(offset_of!(PartitionEntry, processor) == 120);
    assert!(offset_of!(PartitionEntry, pad) == 136);
};

/// The bytes of a NUL-terminated fixed field, up to the first NUL.
pub fn c_field(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

/// Fill a fixed NUL-terminated field with `text` (truncated to leave room for the NUL).
pub fn set_c_field(field: &mut [u8], text: &str) {
    field.fill(0);
    let n = text.len().min(field.len().saturating_sub(1));
    field[..n].copy_from_slice(&text.as_bytes()[..n]);
}

impl DriverDescriptorMap {
    /// An all-zero block 0.
    pub fn zeroed() -> Self {
        <Self as zerocopy::FromZeros>::new_zeroed()
    }
    /// Read from a 512-byte block.
    pub fn read(block: &[u8]) -> Option<Self> {
        Self::read_from_prefix(block).ok().map(|(v, _)| v)
    }
    /// The meaningful descriptors (at most [`MAX_DRIVER_DESCRIPTORS`]).
    pub fn descriptors(&self) -> &[DriverDescriptor] {
        let n = (self.driver_count.get() as usize).min(MAX_DRIVER_DESCRIPTORS);
        &self.drivers[..n]
    }
}

impl PartitionEntry {
    /// An all-zero entry.
    pub fn zeroed() -> Self {
        <Self as zerocopy::FromZeros>::new_zeroed()
    }
    /// Read from a 512-byte block.
    pub fn read(block: &[u8]) -> Option<Self> {
        Self::read_from_prefix(block).ok().map(|(v, _)| v)
    }
    /// `pmPartName` up to its NUL.
    pub fn name_bytes(&self) -> &[u8] {
        c_field(&self.name)
    }
    /// `pmParType` up to its NUL.
    pub fn type_bytes(&self) -> &[u8] {
        c_field(&self.kind)
    }
}

/// The driver checksum of Technote DV 12: add each byte, then rotate the 16-bit sum left by
/// one; a zero result becomes `$FFFF`.
pub fn boot_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u16 = 0;
    for &b in bytes {
        sum = sum.wrapping_add(b as u16).rotate_left(1);
    }
    if sum == 0 { 0xFFFF } else { sum }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_test_vectors_from_the_facts_doc() {
        assert_eq!(boot_checksum(&[1, 2, 3]), 0x0016);
        assert_eq!(boot_checksum(&[]), 0xFFFF);
        let all: [u8; 256] = core::array::from_fn(|i| i as u8);
        assert_eq!(boot_checksum(&all), 0xC1FF);
        assert_eq!(boot_checksum(&[0xFF; 512]), 0xFFE0);
    }

    #[test]
    fn entry_round_trip() {
        let mut e = PartitionEntry::zeroed();
        e.sig.set(PM_SIGNATURE);
        e.start.set(64);
        set_c_field(&mut e.kind, part_type::DRIVER43);
        set_c_field(&mut e.name, "Macintosh");
        let bytes = e.as_bytes();
        assert_eq!(&bytes[0..2], b"PM");
        assert_eq!(&bytes[8..12], &[0, 0, 0, 64]);
        assert_eq!(&bytes[48..62], b"Apple_Driver43");
        let back = PartitionEntry::read(bytes).unwrap();
        assert_eq!(back.type_bytes(), b"Apple_Driver43");
        assert_eq!(back.name_bytes(), b"Macintosh");
    }
}
