//! The Apple partition map: read and validate a whole map ([`read_map`]) and write the layout
//! of `docs/mac-facts.md` §1.8 ([`write_map`]).
//!
//! Written layout (512-byte blocks):
//!
//! | Block(s) | Content |
//! |---|---|
//! | 0 | DDM: 'ER', block size, capacity, one descriptor {64, ceil(driver/512), 1} |
//! | 1 | "Apple" / `Apple_partition_map`, start 1, 63 blocks, status `$3` |
//! | 2 | "Macintosh" / `Apple_Driver43`, start 64, [`DEFAULT_DRIVER_SLOT_BLOCKS`] (96) blocks, status `$37F` |
//! | 3.. | one `Apple_HFS` entry per volume (status `$4000037F`), then "Extra" / `Apple_Free` |
//! | 64.. | driver bytes (at most 88 blocks), the flight-record area (the driver partition's last [`RECORD_AREA_BLOCKS`] blocks: its header, two slots), then the HFS partitions |

use crate::device::{BlockDevice, DeviceError};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use ferrite_shared::flight_record::AreaHeader;
pub use ferrite_shared::flight_record::RECORD_AREA_BLOCKS;
use ferrite_shared::partition_map::{
    DDM_SIGNATURE, DriverDescriptorMap, MapError, PM_SIGNATURE, PartitionEntry,
    SCSI_DRIVER_PAD_SIGNATURE, boot_checksum, dd_type, part_type, set_c_field, status,
};
use zerocopy::IntoBytes;

/// Length of the map partition written (pdisk's and Apple's 63 blocks).
pub const MAP_PARTITION_BLOCKS: u32 = 63;
/// Where the driver partition starts (right after the map).
pub const DRIVER_START_BLOCK: u32 = 64;
/// The driver partition made by default, in device blocks: 96 (48 KiB on 512-byte blocks) —
/// a driver of up to [`ferrite_shared::driver_blob::DRIVER_BLOB_MAX`] bytes, then the
/// flight-record area. Disks made before had 32 (`install-driver` grows them).
pub const DEFAULT_DRIVER_SLOT_BLOCKS: u32 = ferrite_shared::driver_blob::DRIVER_PARTITION_BLOCKS;

/// The driver partition for a driver of `driver_len` bytes on `bs`-byte blocks: room for the
/// driver and the flight-record area after it, at least `min_blocks`.
pub fn driver_partition_blocks(driver_len: usize, bs: u32, min_blocks: u32) -> u64 {
    ((driver_len as u64).div_ceil(bs as u64) + RECORD_AREA_BLOCKS as u64).max(min_blocks as u64)
}

/// The flight-record area's blocks as the formatter writes them for a driver partition at
/// `partition_start`: the header block, then the slots and the reserved blocks, zero.
pub fn record_area_image(partition_start: u32, bs: u32) -> Vec<u8> {
    let mut area = vec![0u8; RECORD_AREA_BLOCKS as usize * bs as usize];
    area[..AreaHeader::LEN].copy_from_slice(AreaHeader::new(partition_start).as_bytes());
    area
}
/// Largest driver accepted: the DV 12 checksum loop counts bytes in a 16-bit register.
pub const MAX_DRIVER_BYTES: usize = 0xFFFF;

/// Why a map could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApmError {
    /// The map is invalid.
    Map(MapError),
    /// The device failed.
    Device(DeviceError),
    /// The device's block size is not a multiple of 512.
    UnsupportedBlockSize(u32),
    /// The device is too small (or too large: more than 2^32 blocks) for the requested layout.
    DiskSize {
        device_blocks: u64,
        needed_blocks: u64,
    },
    /// The driver is larger than [`MAX_DRIVER_BYTES`] or than its slot.
    DriverTooLarge { bytes: usize, max: usize },
    /// More partitions than fit in the 63-block map.
    TooManyPartitions(usize),
    /// No HFS partition requested (the ROM wants one), or one with a zero size.
    BadPartitionRequest(&'static str),
}

impl fmt::Display for ApmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApmError::Map(e) => write!(f, "invalid partition map: {e}"),
            ApmError::Device(e) => write!(f, "{e}"),
            ApmError::UnsupportedBlockSize(b) => {
                write!(f, "block size {b} is not a multiple of 512")
            }
            ApmError::DiskSize {
                device_blocks,
                needed_blocks,
            } => write!(
                f,
                "the disk has {device_blocks} blocks; this layout needs {needed_blocks} (and a map can address at most 2^32 blocks)"
            ),
            ApmError::DriverTooLarge { bytes, max } => {
                write!(f, "the driver is {bytes} bytes; at most {max} fit")
            }
            ApmError::TooManyPartitions(n) => write!(f, "{n} partitions do not fit in the map"),
            ApmError::BadPartitionRequest(m) => write!(f, "{m}"),
        }
    }
}

impl core::error::Error for ApmError {}

impl From<MapError> for ApmError {
    fn from(e: MapError) -> Self {
        ApmError::Map(e)
    }
}
impl From<DeviceError> for ApmError {
    fn from(e: DeviceError) -> Self {
        ApmError::Device(e)
    }
}

/// One partition as read from the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    /// The map block holding the entry (1-based; parted and hfsutils number partitions the same way).
    pub map_block: u32,
    pub start: u32,
    pub blocks: u32,
    pub name: String,
    pub kind: String,
    pub status: u32,
    /// The raw entry.
    pub entry: PartitionEntry,
}

impl PartitionInfo {
    pub fn is_hfs(&self) -> bool {
        self.kind == part_type::HFS
    }
}

/// A whole partition map as read and validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMap {
    pub block_size: u32,
    /// `sbBlkCount`.
    pub disk_blocks: u32,
    pub ddm: DriverDescriptorMap,
    pub partitions: Vec<PartitionInfo>,
    /// Map blocks whose `pmMapBlkCnt` is lower than block 1's (an `install-driver` stopped
    /// after it added an entry): readable, and the next `install-driver` rewrites them.
    pub stale_counts: Vec<u32>,
}

impl PartitionMap {
    /// The HFS partitions, in map order.
    pub fn hfs_partitions(&self) -> impl Iterator<Item = &PartitionInfo> {
        self.partitions.iter().filter(|p| p.is_hfs())
    }
}

fn text(field: &[u8]) -> String {
    crate::macroman::lossy(ferrite_shared::partition_map::c_field(field))
}

/// Read and validate the partition map: block 0, every entry 1..=`pmMapBlkCnt`, bounds,
/// overlaps, the map's own entry, and each `ddType` 1 driver (its entry and, for names
/// starting "Maci", its checksum).
pub fn read_map<D: BlockDevice + ?Sized>(dev: &mut D) -> Result<PartitionMap, ApmError> {
    let bs = dev.block_size();
    if !bs.is_multiple_of(512) || bs == 0 {
        return Err(ApmError::UnsupportedBlockSize(bs));
    }
    let device_blocks = dev.block_count();
    if device_blocks < 2 {
        return Err(MapError::DiskTruncated {
            ddm_blocks: 2,
            device_blocks,
        }
        .into());
    }
    let mut block = vec![0u8; bs as usize];
    dev.read_blocks(0, &mut block)?;
    let ddm = DriverDescriptorMap::read(&block).expect("block is 512+ bytes");
    ddm.validate(bs, device_blocks)?;
    // Entries are checked against the capacity the DDM claims (itself ≤ the device's).
    let disk = ddm.block_count.get() as u64;
    dev.read_blocks(1, &mut block)?;
    let first = PartitionEntry::read(&block).expect("block is 512+ bytes");
    if first.sig.get() != PM_SIGNATURE {
        return Err(MapError::MissingMapEntry {
            block: 1,
            found: first.sig.get(),
        }
        .into());
    }
    let count = first.map_block_count.get();
    if count == 0 {
        return Err(MapError::MapCountZero.into());
    }
    if count as u64 + 1 > disk {
        return Err(MapError::MapBeyondDisk {
            map_count: count,
            disk_blocks: disk,
        }
        .into());
    }
    let mut partitions: Vec<PartitionInfo> = Vec::new();
    // Entries whose `pmMapBlkCnt` is below block 1's (written before the map grew).
    let mut stale: Vec<(u32, u32)> = Vec::new();
    for b in 1..=count {
        dev.read_blocks(b as u64, &mut block)?;
        let e = PartitionEntry::read(&block).expect("block is 512+ bytes");
        let found = e.map_block_count.get();
        if e.sig.get() == PM_SIGNATURE && found != count && (b..count).contains(&found) {
            // `install-driver` appends an entry by writing it past the map's end, then
            // block 1 with the new count (the ROM, like Linux and pdisk, takes block 1's),
            // then the other entries: a stop in between leaves lower counts here. Accepted
            // when no reader that trusts each entry's own count would miss an HFS partition
            // (checked below); `ferrite check` reports them.
            let mut e = e;
            e.map_block_count.set(count);
            e.validate(b, count, disk)?;
            stale.push((b, found));
        } else {
            e.validate(b, count, disk)?;
        }
        for p in &partitions {
            if p.entry.overlaps(&e) {
                return Err(MapError::EntriesOverlap {
                    first: p.map_block,
                    second: b,
                }
                .into());
            }
        }
        partitions.push(PartitionInfo {
            map_block: b,
            start: e.start.get(),
            blocks: e.block_count.get(),
            name: text(&e.name),
            kind: text(&e.kind),
            status: e.status.get(),
            entry: e,
        });
    }
    if let Some(&(block, found)) = stale.iter().min_by_key(|(_, found)| *found)
        && partitions.iter().any(|p| p.is_hfs() && p.map_block > found)
    {
        return Err(MapError::MapCountInconsistent {
            block,
            first: count,
            found,
        }
        .into());
    }
    let map = partitions
        .iter()
        .find(|p| p.kind == part_type::PARTITION_MAP)
        .ok_or(MapError::NoMapPartition)?;
    if map.start != 1 || map.blocks < count {
        return Err(MapError::MapPartitionMismatch {
            start: map.start,
            count: map.blocks,
            map_count: count,
        }
        .into());
    }
    for d in ddm.descriptors() {
        if d.kind.get() != dd_type::MAC_SCSI {
            continue;
        }
        let at = d.block.get();
        let p = partitions
            .iter()
            .find(|p| p.start == at && p.entry.is_driver())
            .ok_or(MapError::DriverNotInMap { block: at })?;
        let boot_size = p.entry.boot_size.get();
        let part_bytes = p.blocks as u64 * bs as u64;
        if boot_size as u64 > part_bytes {
            return Err(MapError::DriverSizeBeyondPartition {
                block: p.map_block,
                boot_size,
                partition_bytes: part_bytes,
            }
            .into());
        }
        if p.entry.driver_checksum_checked() {
            let mut bytes =
                vec![0u8; (boot_size as u64).div_ceil(bs as u64) as usize * bs as usize];
            dev.read_blocks(at as u64, &mut bytes)?;
            let computed = boot_checksum(&bytes[..boot_size as usize]);
            if p.entry.boot_checksum.get() != computed as u32 {
                return Err(MapError::DriverChecksum {
                    block: p.map_block,
                    stored: p.entry.boot_checksum.get(),
                    computed,
                }
                .into());
            }
        }
    }
    Ok(PartitionMap {
        block_size: bs,
        disk_blocks: ddm.block_count.get(),
        ddm,
        partitions,
        stale_counts: stale.into_iter().map(|(b, _)| b).collect(),
    })
}

/// The size of one requested HFS partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartSize {
    /// Exactly this many device blocks.
    Blocks(u32),
    /// Everything left (only the last partition may ask for this).
    Rest,
}

/// One `Apple_HFS` partition to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HfsPartitionSpec {
    /// `pmPartName` (ASCII, ≤ 31 bytes).
    pub name: String,
    pub size: PartSize,
}

/// What [`write_map`] lays out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout<'a> {
    /// The driver image (the checksum covers all of it); `None` writes no driver partition
    /// and no driver descriptor (the disk is then not bootable).
    pub driver: Option<&'a [u8]>,
    /// Minimum driver slot in blocks ([`DEFAULT_DRIVER_SLOT_BLOCKS`]).
    pub driver_slot_blocks: u32,
    /// The HFS partitions, in disk order.
    pub hfs: Vec<HfsPartitionSpec>,
}

impl<'a> Layout<'a> {
    /// One HFS partition named `name` filling the disk after the driver.
    pub fn single(driver: Option<&'a [u8]>, name: &str) -> Self {
        Layout {
            driver,
            driver_slot_blocks: DEFAULT_DRIVER_SLOT_BLOCKS,
            hfs: vec![HfsPartitionSpec {
                name: name.into(),
                size: PartSize::Rest,
            }],
        }
    }
}

/// The blocks a [`Layout`] puts on a disk, before any is written ([`plan_map`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapImage {
    /// Block 0: the Driver Descriptor Map (one device block).
    pub block0: Vec<u8>,
    /// Blocks 1..=[`MAP_PARTITION_BLOCKS`]: the entries, zeros after the last.
    pub map: Vec<u8>,
    /// The driver partition: its first block and its whole slot (the driver, then zeros).
    pub driver: Option<(u64, Vec<u8>)>,
    /// The HFS partitions: start, blocks, name.
    pub hfs: Vec<(u64, u64, String)>,
}

/// Write block 0, the map and the driver (if any). Returns the map as written (as
/// [`read_map`] would read it). The HFS partitions are not formatted here
/// (see [`crate::hfs::format_volume`]; [`crate::init::initialize`] does both in the
/// crash-safe order).
pub fn write_map<D: BlockDevice + ?Sized>(
    dev: &mut D,
    layout: &Layout<'_>,
) -> Result<PartitionMap, ApmError> {
    let image = plan_map(layout, dev.block_size(), dev.block_count())?;
    dev.write_blocks(0, &image.block0)?;
    dev.write_blocks(1, &image.map)?;
    if let Some((start, drv)) = &image.driver {
        dev.write_blocks(*start, drv)?;
    }
    read_map(dev)
}

/// Lay out `layout` on a disk of `device_blocks` `bs`-byte blocks: what each block of the
/// map, block 0 and the driver partition will hold, and where the HFS partitions go.
pub fn plan_map(layout: &Layout<'_>, bs: u32, device_blocks: u64) -> Result<MapImage, ApmError> {
    if !bs.is_multiple_of(512) || bs == 0 {
        return Err(ApmError::UnsupportedBlockSize(bs));
    }
    if layout.hfs.is_empty() {
        return Err(ApmError::BadPartitionRequest(
            "at least one Apple_HFS partition is needed (the ROM looks for one)",
        ));
    }
    // map, driver, HFS..., free
    let entry_count = 2 + layout.hfs.len() + 1;
    if entry_count > MAP_PARTITION_BLOCKS as usize {
        return Err(ApmError::TooManyPartitions(layout.hfs.len()));
    }
    let mut next = DRIVER_START_BLOCK as u64;
    if let Some(drv) = layout.driver {
        if drv.len() > MAX_DRIVER_BYTES {
            return Err(ApmError::DriverTooLarge {
                bytes: drv.len(),
                max: MAX_DRIVER_BYTES,
            });
        }
        next += driver_partition_blocks(drv.len(), bs, layout.driver_slot_blocks);
    }
    let driver_slot = (next - DRIVER_START_BLOCK as u64) as u32;
    let mut hfs_parts = Vec::new();
    for (i, spec) in layout.hfs.iter().enumerate() {
        let blocks = match spec.size {
            PartSize::Blocks(0) => {
                return Err(ApmError::BadPartitionRequest(
                    "an HFS partition of 0 blocks",
                ));
            }
            PartSize::Blocks(n) => n as u64,
            PartSize::Rest if i + 1 == layout.hfs.len() => device_blocks.saturating_sub(next),
            PartSize::Rest => {
                return Err(ApmError::BadPartitionRequest(
                    "only the last partition can take the rest",
                ));
            }
        };
        if blocks == 0 {
            return Err(ApmError::DiskSize {
                device_blocks,
                needed_blocks: next + 1,
            });
        }
        hfs_parts.push((next, blocks, spec.name.as_str()));
        next += blocks;
    }
    if next > device_blocks || device_blocks > u32::MAX as u64 {
        return Err(ApmError::DiskSize {
            device_blocks,
            needed_blocks: next,
        });
    }
    let free = device_blocks - next;
    let map_count =
        (1 + layout.driver.is_some() as u32) + hfs_parts.len() as u32 + (free > 0) as u32;

    let mut entries = Vec::new();
    let entry = |start: u64, count: u64, name: &str, kind: &str, st: u32| {
        let mut e = PartitionEntry::zeroed();
        e.sig.set(PM_SIGNATURE);
        e.map_block_count.set(map_count);
        e.start.set(start as u32);
        e.block_count.set(count as u32);
        set_c_field(&mut e.name, name);
        set_c_field(&mut e.kind, kind);
        e.data_count.set(count as u32);
        e.status.set(st);
        e
    };
    entries.push(entry(
        1,
        MAP_PARTITION_BLOCKS as u64,
        "Apple",
        part_type::PARTITION_MAP,
        status::MAP_PARTITION,
    ));
    if let Some(drv) = layout.driver {
        let mut e = entry(
            DRIVER_START_BLOCK as u64,
            driver_slot as u64,
            "Macintosh",
            part_type::DRIVER43,
            status::DRIVER_PARTITION,
        );
        e.boot_size.set(drv.len() as u32);
        e.boot_checksum.set(boot_checksum(drv) as u32);
        set_c_field(&mut e.processor, "68000");
        e.pad[..4].copy_from_slice(&SCSI_DRIVER_PAD_SIGNATURE.to_be_bytes());
        entries.push(e);
    }
    for &(start, blocks, name) in &hfs_parts {
        entries.push(entry(
            start,
            blocks,
            name,
            part_type::HFS,
            status::HFS_PARTITION,
        ));
    }
    if free > 0 {
        entries.push(entry(next, free, "Extra", part_type::FREE, 0));
    }

    let mut ddm = DriverDescriptorMap::zeroed();
    ddm.sig.set(DDM_SIGNATURE);
    ddm.block_size.set(bs as u16);
    ddm.block_count.set(device_blocks as u32);
    if layout.driver.is_some() {
        ddm.driver_count.set(1);
        ddm.drivers[0].block.set(DRIVER_START_BLOCK);
        // `ddSize` counts 512-byte blocks whatever the device block size (IM Devices).
        let dd_size = layout.driver.map_or(0, |d| d.len().div_ceil(512));
        ddm.drivers[0].size.set(dd_size as u16);
        ddm.drivers[0].kind.set(dd_type::MAC_SCSI);
    }
    let mut block0 = vec![0u8; bs as usize];
    block0[..512].copy_from_slice(ddm.as_bytes());
    let mut map = vec![0u8; MAP_PARTITION_BLOCKS as usize * bs as usize];
    for (i, e) in entries.iter().enumerate() {
        let at = i * bs as usize;
        map[at..at + 512].copy_from_slice(e.as_bytes());
    }
    let driver = layout.driver.map(|drv| {
        let mut img = vec![0u8; driver_slot as usize * bs as usize];
        img[..drv.len()].copy_from_slice(drv);
        let area = (driver_slot - RECORD_AREA_BLOCKS) as usize * bs as usize;
        img[area..].copy_from_slice(&record_area_image(DRIVER_START_BLOCK, bs));
        (DRIVER_START_BLOCK as u64, img)
    });
    Ok(MapImage {
        block0,
        map,
        driver,
        hfs: hfs_parts
            .iter()
            .map(|&(start, blocks, name)| (start, blocks, String::from(name)))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::MemDisk;

    fn driver() -> Vec<u8> {
        (0..5000u32).map(|i| (i * 7 + 3) as u8).collect()
    }

    #[test]
    fn writes_the_recommended_layout() {
        let mut d = MemDisk::new(20_000);
        let drv = driver();
        let mut layout = Layout::single(Some(&drv), "MacOS");
        layout.hfs[0].size = PartSize::Blocks(10_000);
        let map = write_map(&mut d, &layout).unwrap();
        let kinds: Vec<(&str, u32, u32, &str)> = map
            .partitions
            .iter()
            .map(|p| (p.kind.as_str(), p.start, p.blocks, p.name.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("Apple_partition_map", 1, 63, "Apple"),
                ("Apple_Driver43", 64, 96, "Macintosh"),
                ("Apple_HFS", 160, 10_000, "MacOS"),
                ("Apple_Free", 10_160, 9_840, "Extra"),
            ]
        );
        let b = d.as_bytes();
        assert_eq!(&b[0..2], b"ER");
        assert_eq!(&b[2..4], &[2, 0]);
        assert_eq!(&b[4..8], &20_000u32.to_be_bytes());
        assert_eq!(&b[16..18], &[0, 1]);
        assert_eq!(&b[18..26], &[0, 0, 0, 64, 0, 10, 0, 1]);
        let drv_entry = &b[1024..1536];
        assert_eq!(&drv_entry[4..8], &4u32.to_be_bytes());
        assert_eq!(&drv_entry[88..92], &0x37Fu32.to_be_bytes());
        assert_eq!(&drv_entry[96..100], &5000u32.to_be_bytes());
        assert_eq!(
            &drv_entry[116..120],
            &(boot_checksum(&drv) as u32).to_be_bytes()
        );
        assert_eq!(&drv_entry[120..126], b"68000\0");
        assert_eq!(&drv_entry[136..140], &[0, 1, 6, 0]);
        assert_eq!(&b[1536 + 88..1536 + 92], &0x4000_037Fu32.to_be_bytes());
        assert_eq!(&b[64 * 512..64 * 512 + 5000], &drv[..]);
        assert!(b[5 * 512..64 * 512].iter().all(|&x| x == 0));
        // The record area: the driver partition's last 8 blocks, a header naming block 64,
        // then zeros (no record yet); zeros between the driver and the area.
        let area = (64 + 96 - 8) * 512;
        let h = AreaHeader::read(&b[area..]).unwrap();
        assert_eq!(h.check(64), Ok(()));
        assert!(b[64 * 512 + 5000..area].iter().all(|&x| x == 0));
        assert!(b[area + AreaHeader::LEN..160 * 512].iter().all(|&x| x == 0));
    }

    #[test]
    fn big_driver_grows_the_slot() {
        let mut d = MemDisk::new(1000);
        // 118 blocks of driver and the 8-block record area.
        let drv = vec![0x4E; 60_000];
        let map = write_map(&mut d, &Layout::single(Some(&drv), "V")).unwrap();
        assert_eq!(map.partitions[1].blocks, 126);
        assert_eq!(map.partitions[2].start, 190);
        let area = (190 - 8) * 512;
        assert_eq!(
            AreaHeader::read(&d.as_bytes()[area..]).unwrap().check(64),
            Ok(())
        );
        assert_eq!(map.partitions.len(), 3, "no free space left");
        let too_big = vec![0; 70_000];
        assert_eq!(
            write_map(&mut d, &Layout::single(Some(&too_big), "V")),
            Err(ApmError::DriverTooLarge {
                bytes: 70_000,
                max: 0xFFFF
            })
        );
    }

    fn written() -> MemDisk {
        let mut d = MemDisk::new(4000);
        let drv = driver();
        let mut layout = Layout::single(Some(&drv), "A");
        layout.hfs = vec![
            HfsPartitionSpec {
                name: "A".into(),
                size: PartSize::Blocks(1000),
            },
            HfsPartitionSpec {
                name: "B".into(),
                size: PartSize::Blocks(1000),
            },
        ];
        write_map(&mut d, &layout).unwrap();
        d
    }

    fn set32(d: &mut MemDisk, at: usize, v: u32) {
        d.as_bytes_mut()[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }

    #[test]
    fn reader_rejects_broken_maps() {
        let mut d = written();
        assert_eq!(read_map(&mut d).unwrap().partitions.len(), 5);
        d.as_bytes_mut()[0] = b'X';
        assert!(matches!(
            read_map(&mut d),
            Err(ApmError::Map(MapError::NoDdmSignature { .. }))
        ));

        let mut d = written();
        d.as_bytes_mut()[2..4].copy_from_slice(&1024u16.to_be_bytes());
        assert!(matches!(
            read_map(&mut d),
            Err(ApmError::Map(MapError::BadBlockSize {
                ddm: 1024,
                device: 512
            }))
        ));

        // A lower count that hides no HFS partition (blocks 1-4 hold both) is an entry
        // written before the map grew: read, and reported.
        let mut d = written();
        set32(&mut d, 3 * 512 + 4, 4);
        let m = read_map(&mut d).unwrap();
        assert_eq!((m.partitions.len(), m.stale_counts.clone()), (5, vec![3]));
        // One that would hide HFS partition B (block 4) from a reader trusting it, one
        // below its own block, and one above block 1's are refused.
        for (found, hides) in [(3, true), (2, false), (6, false)] {
            let mut d = written();
            set32(&mut d, 3 * 512 + 4, found);
            assert_eq!(
                read_map(&mut d),
                Err(ApmError::Map(MapError::MapCountInconsistent {
                    block: 3,
                    first: 5,
                    found
                })),
                "count {found} (hides B: {hides})"
            );
        }

        let mut d = written();
        d.as_bytes_mut()[4 * 512] = 0;
        assert!(matches!(
            read_map(&mut d),
            Err(ApmError::Map(MapError::MissingMapEntry { block: 4, .. }))
        ));

        let mut d = written();
        set32(&mut d, 4 * 512 + 8, 1000); // B starts inside A
        assert_eq!(
            read_map(&mut d),
            Err(ApmError::Map(MapError::EntriesOverlap {
                first: 3,
                second: 4
            }))
        );

        let mut d = written();
        set32(&mut d, 5 * 512 + 12, 5000);
        assert!(matches!(
            read_map(&mut d),
            Err(ApmError::Map(MapError::EntryBeyondDisk { block: 5, .. }))
        ));

        let mut d = written();
        d.as_bytes_mut()[64 * 512 + 17] ^= 1;
        assert!(matches!(
            read_map(&mut d),
            Err(ApmError::Map(MapError::DriverChecksum { block: 2, .. }))
        ));

        let mut d = written();
        set32(&mut d, 18, 65); // ddBlock
        assert_eq!(
            read_map(&mut d),
            Err(ApmError::Map(MapError::DriverNotInMap { block: 65 }))
        );

        let d = written();
        let bytes = d.as_bytes()[..3000 * 512].to_vec();
        let mut t = MemDisk::from_bytes(bytes);
        assert_eq!(
            read_map(&mut t),
            Err(ApmError::Map(MapError::DiskTruncated {
                ddm_blocks: 4000,
                device_blocks: 3000
            }))
        );

        let mut d = written();
        set32(&mut d, 512 + 4, 0);
        assert_eq!(read_map(&mut d), Err(ApmError::Map(MapError::MapCountZero)));
        let mut d = written();
        d.as_bytes_mut()[512 + 48..512 + 80].fill(0);
        d.as_bytes_mut()[512 + 48..512 + 52].copy_from_slice(b"Nope");
        assert_eq!(
            read_map(&mut d),
            Err(ApmError::Map(MapError::NoMapPartition))
        );
    }

    #[test]
    fn other_block_sizes() {
        let mut d = MemDisk::with_block_size(1000, 2048);
        let drv = driver();
        let map = write_map(&mut d, &Layout::single(Some(&drv), "CD")).unwrap();
        assert_eq!(map.block_size, 2048);
        assert_eq!(map.partitions[1].blocks, 96);
        let area = (64 + 96 - 8) * 2048;
        assert_eq!(
            AreaHeader::read(&d.as_bytes()[area..]).unwrap().check(64),
            Ok(())
        );
        assert_eq!(map.ddm.drivers[0].size.get(), 10);
        assert_eq!(read_map(&mut d).unwrap(), map);
    }
}
