//! The Apple partition map: block 0 (the Driver Descriptor Map, `Block0`) and the partition
//! map entries (`Partition`, one 512-byte block each), and the driver checksum
//! (`pmBootCksum`).
//!
//! Layouts follow `docs/mac-facts.md` §1 (Inside Macintosh: Devices ch. 3, Universal
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
    /// What a driver partition carries (`$37F`, mac-facts §1.4).
    pub const DRIVER_PARTITION: u32 = 0x0000_037F;
    /// What an `Apple_HFS` partition carries (`$4000037F`, pdisk's value).
    pub const HFS_PARTITION: u32 = 0x4000_037F;
    /// What the map's own entry carries.
    pub const MAP_PARTITION: u32 = 0x3;
}

/// `pmPad` signature of a SCSI hard-disk driver (`$00010600`).
pub const SCSI_DRIVER_PAD_SIGNATURE: u32 = 0x0001_0600;

/// One driver descriptor in block 0 (`DDMap`, 8 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
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
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
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
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
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

/// What is wrong with a partition map. Produced by the allocation-free per-block checks below
/// (usable by the driver on the Mac) and by the formatter's whole-map reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapError {
    /// Block 0 does not start with 'ER'.
    NoDdmSignature { found: u16 },
    /// `sbBlkSize` is not the device's block size (or is not a multiple of 512).
    BadBlockSize { ddm: u16, device: u32 },
    /// `sbBlkCount` claims more blocks than the device has.
    DiskTruncated { ddm_blocks: u32, device_blocks: u64 },
    /// `sbDrvrCount` exceeds what fits in block 0.
    TooManyDriverDescriptors { count: u16 },
    /// A driver descriptor points past the end of the disk.
    DriverBeyondDisk { index: u16, block: u32, blocks: u16 },
    /// Block `block` (1..=`pmMapBlkCnt`) is not a 'PM' entry.
    MissingMapEntry { block: u32, found: u16 },
    /// `pmMapBlkCnt` is zero.
    MapCountZero,
    /// An entry's `pmMapBlkCnt` disagrees with the first entry's.
    MapCountInconsistent { block: u32, first: u32, found: u32 },
    /// The map (blocks 1..=`pmMapBlkCnt`) runs past the end of the disk.
    MapBeyondDisk { map_count: u32, disk_blocks: u64 },
    /// A partition runs past the end of the disk (or its length is zero).
    EntryBeyondDisk {
        block: u32,
        start: u32,
        count: u32,
        disk_blocks: u64,
    },
    /// The partitions described at map blocks `first` and `second` overlap.
    EntriesOverlap { first: u32, second: u32 },
    /// No `Apple_partition_map` entry describes the map itself.
    NoMapPartition,
    /// The `Apple_partition_map` entry does not start at block 1 or is shorter than the map.
    MapPartitionMismatch {
        start: u32,
        count: u32,
        map_count: u32,
    },
    /// A `ddType` 1 driver descriptor does not point at the start of an `Apple_Driver…` entry.
    DriverNotInMap { block: u32 },
    /// The driver entry's `pmBootSize` exceeds its partition.
    DriverSizeBeyondPartition {
        block: u32,
        boot_size: u32,
        partition_bytes: u64,
    },
    /// `pmBootCksum` does not match the driver bytes (checked for names starting "Maci").
    DriverChecksum {
        block: u32,
        stored: u32,
        computed: u16,
    },
}

impl core::fmt::Display for MapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use MapError::*;
        match *self {
            NoDdmSignature { found } => {
                write!(
                    f,
                    "block 0 has signature ${found:04X}, not 'ER': the disk has no partition map"
                )
            }
            BadBlockSize { ddm, device } => {
                write!(
                    f,
                    "block 0 says the block size is {ddm} bytes but the device uses {device}"
                )
            }
            DiskTruncated {
                ddm_blocks,
                device_blocks,
            } => write!(
                f,
                "block 0 says the disk has {ddm_blocks} blocks but the device has only {device_blocks}: truncated disk or image"
            ),
            TooManyDriverDescriptors { count } => {
                write!(
                    f,
                    "block 0 lists {count} drivers; at most {MAX_DRIVER_DESCRIPTORS} fit"
                )
            }
            DriverBeyondDisk {
                index,
                block,
                blocks,
            } => {
                write!(
                    f,
                    "driver descriptor {index} (block {block}, {blocks} blocks) runs past the end of the disk"
                )
            }
            MissingMapEntry { block, found } => {
                write!(
                    f,
                    "map block {block} has signature ${found:04X}, not 'PM': a map entry is missing"
                )
            }
            MapCountZero => write!(
                f,
                "the partition map says it has 0 entries (pmMapBlkCnt = 0)"
            ),
            MapCountInconsistent {
                block,
                first,
                found,
            } => write!(
                f,
                "map block {block} says the map has {found} entries but block 1 says {first} (pmMapBlkCnt inconsistent)"
            ),
            MapBeyondDisk {
                map_count,
                disk_blocks,
            } => {
                write!(
                    f,
                    "the map's {map_count} entries run past the end of the {disk_blocks}-block disk"
                )
            }
            EntryBeyondDisk {
                block,
                start,
                count,
                disk_blocks,
            } => write!(
                f,
                "the partition at map block {block} (start {start}, {count} blocks) does not fit on the {disk_blocks}-block disk"
            ),
            EntriesOverlap { first, second } => {
                write!(
                    f,
                    "the partitions at map blocks {first} and {second} overlap"
                )
            }
            NoMapPartition => write!(f, "no Apple_partition_map entry describes the map"),
            MapPartitionMismatch {
                start,
                count,
                map_count,
            } => write!(
                f,
                "the Apple_partition_map entry (start {start}, {count} blocks) does not hold the {map_count}-entry map at block 1"
            ),
            DriverNotInMap { block } => {
                write!(
                    f,
                    "the driver descriptor points at block {block}, which starts no Apple_Driver partition"
                )
            }
            DriverSizeBeyondPartition {
                block,
                boot_size,
                partition_bytes,
            } => write!(
                f,
                "the driver partition at map block {block} says the driver is {boot_size} bytes but holds only {partition_bytes}"
            ),
            DriverChecksum {
                block,
                stored,
                computed,
            } => write!(
                f,
                "the driver partition at map block {block} has pmBootCksum ${stored:08X} but the driver sums to ${computed:04X}"
            ),
        }
    }
}

impl core::error::Error for MapError {}

impl DriverDescriptorMap {
    /// Check block 0 against the device: signature, block size, capacity and the driver
    /// descriptors' extents. Allocation-free.
    pub fn validate(&self, device_block_size: u32, device_blocks: u64) -> Result<(), MapError> {
        if self.sig.get() != DDM_SIGNATURE {
            return Err(MapError::NoDdmSignature {
                found: self.sig.get(),
            });
        }
        let bs = self.block_size.get();
        if bs == 0 || !bs.is_multiple_of(512) || bs as u32 != device_block_size {
            return Err(MapError::BadBlockSize {
                ddm: bs,
                device: device_block_size,
            });
        }
        if self.block_count.get() as u64 > device_blocks {
            return Err(MapError::DiskTruncated {
                ddm_blocks: self.block_count.get(),
                device_blocks,
            });
        }
        let count = self.driver_count.get();
        if count as usize > MAX_DRIVER_DESCRIPTORS {
            return Err(MapError::TooManyDriverDescriptors { count });
        }
        for (i, d) in self.descriptors().iter().enumerate() {
            let end = d.block.get() as u64 + d.size.get() as u64;
            if d.block.get() == 0 || end > device_blocks {
                return Err(MapError::DriverBeyondDisk {
                    index: i as u16,
                    block: d.block.get(),
                    blocks: d.size.get(),
                });
            }
        }
        Ok(())
    }
}

impl PartitionEntry {
    /// Check the entry read from map block `block` (1-based), given the map length taken from
    /// block 1 and the disk size. Allocation-free.
    pub fn validate(&self, block: u32, map_count: u32, disk_blocks: u64) -> Result<(), MapError> {
        if self.sig.get() != PM_SIGNATURE {
            return Err(MapError::MissingMapEntry {
                block,
                found: self.sig.get(),
            });
        }
        if self.map_block_count.get() != map_count {
            return Err(MapError::MapCountInconsistent {
                block,
                first: map_count,
                found: self.map_block_count.get(),
            });
        }
        let (start, count) = (self.start.get(), self.block_count.get());
        if count == 0 || start as u64 + count as u64 > disk_blocks {
            return Err(MapError::EntryBeyondDisk {
                block,
                start,
                count,
                disk_blocks,
            });
        }
        Ok(())
    }

    /// True if this entry's blocks intersect `other`'s.
    pub fn overlaps(&self, other: &PartitionEntry) -> bool {
        let (a0, a1) = (
            self.start.get() as u64,
            self.start.get() as u64 + self.block_count.get() as u64,
        );
        let (b0, b1) = (
            other.start.get() as u64,
            other.start.get() as u64 + other.block_count.get() as u64,
        );
        a0 < b1 && b0 < a1
    }

    /// True if `pmParType` starts with `Apple_Driver` (the ROM's 12-character test).
    pub fn is_driver(&self) -> bool {
        self.type_bytes().starts_with(part_type::DRIVER.as_bytes())
    }

    /// True if the ROM checks this driver's checksum (name starts with "Maci", DV 12).
    pub fn driver_checksum_checked(&self) -> bool {
        self.is_driver() && self.name_bytes().starts_with(b"Maci")
    }
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

    #[test]
    fn entry_validation() {
        let mut e = PartitionEntry::zeroed();
        e.sig.set(PM_SIGNATURE);
        e.map_block_count.set(3);
        e.start.set(10);
        e.block_count.set(10);
        assert_eq!(e.validate(2, 3, 20), Ok(()));
        assert_eq!(
            e.validate(2, 3, 19),
            Err(MapError::EntryBeyondDisk {
                block: 2,
                start: 10,
                count: 10,
                disk_blocks: 19
            })
        );
        assert_eq!(
            e.validate(2, 4, 20),
            Err(MapError::MapCountInconsistent {
                block: 2,
                first: 4,
                found: 3
            })
        );
        let mut other = e;
        other.start.set(19);
        assert!(e.overlaps(&other));
        other.start.set(20);
        assert!(!e.overlaps(&other));
        e.sig.set(0);
        assert_eq!(
            e.validate(2, 3, 20),
            Err(MapError::MissingMapEntry { block: 2, found: 0 })
        );
    }

    #[test]
    fn ddm_validation() {
        let mut d = DriverDescriptorMap::zeroed();
        assert_eq!(
            d.validate(512, 100),
            Err(MapError::NoDdmSignature { found: 0 })
        );
        d.sig.set(DDM_SIGNATURE);
        d.block_size.set(2048);
        assert_eq!(
            d.validate(512, 100),
            Err(MapError::BadBlockSize {
                ddm: 2048,
                device: 512
            })
        );
        d.block_size.set(512);
        d.block_count.set(101);
        assert_eq!(
            d.validate(512, 100),
            Err(MapError::DiskTruncated {
                ddm_blocks: 101,
                device_blocks: 100
            })
        );
        d.block_count.set(100);
        d.driver_count.set(1);
        d.drivers[0].block.set(64);
        d.drivers[0].size.set(40);
        assert_eq!(
            d.validate(512, 100),
            Err(MapError::DriverBeyondDisk {
                index: 0,
                block: 64,
                blocks: 40
            })
        );
        d.drivers[0].size.set(36);
        assert_eq!(d.validate(512, 100), Ok(()));
    }
}
