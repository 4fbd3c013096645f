//! Initialize a disk: plan the layout (the driver, then one `Apple_HFS` partition per
//! volume) and write it in the crash-safe order, the same for the `ferrite init` command and
//! for Ferrite Setup on the Mac:
//!
//! 1. block 0 is overwritten with zeros first, so the disk reads as unformatted from the
//!    first write on (no map points at half-made volumes);
//! 2. the HFS volumes (and, optionally, a file in each root folder);
//! 3. the driver partition's contents;
//! 4. the map entries (blocks 1–63);
//! 5. block 0 (the Driver Descriptor Map) last.
//!
//! An initialize stopped anywhere leaves either the disk as it was (nothing written yet) or
//! one that [`crate::apm::read_map`] refuses as having no 'ER' block 0.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::apm::{
    ApmError, DEFAULT_DRIVER_SLOT_BLOCKS, DRIVER_START_BLOCK, HfsPartitionSpec, Layout, MapImage,
    PartSize, PartitionMap, plan_map, read_map,
};
use crate::device::{BlockDevice, DeviceError, Region};
use crate::hfs::{
    FormatOptions, HfsError, MIN_VOLUME_SECTORS, NewFile, Volume, cnid, format_volume,
    geometry_for, tree_blocks,
};

/// Longest HFS volume name (bytes, Mac Roman).
pub const MAX_VOLUME_NAME: usize = 27;

/// One volume asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeSpec {
    /// Printable ASCII, 1..=27 bytes, no ':'.
    pub name: String,
    /// Device blocks; `None`: the rest of the disk (the last volume only).
    pub blocks: Option<u64>,
}

/// What the initialize writes and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitStage {
    /// Formatting volume `index` (0-based) of `count`.
    Volumes,
    /// Writing the driver partition.
    Driver,
    /// Writing the map and block 0.
    Map,
}

/// Why a disk cannot be initialized as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InitError {
    /// No volume asked for.
    NoVolumes,
    /// A volume name is unusable (`why` says how).
    BadName { name: String, why: &'static str },
    /// A volume other than the last has no size.
    NoSize { name: String },
    /// A volume is smaller than HFS allows.
    VolumeTooSmall {
        name: String,
        blocks: u64,
        min_blocks: u64,
    },
    /// A volume is larger than a map entry can describe.
    VolumeTooLarge { name: String, blocks: u64 },
    /// The disk has no room for volume `index` (0-based): `first` blocks hold the map and
    /// driver, volumes before it take `used`, the disk has `disk_blocks`, `need` would do.
    DiskTooSmall {
        index: usize,
        volumes: usize,
        first: u64,
        used: u64,
        disk_blocks: u64,
        need: u64,
    },
    /// The disk has more blocks than a map can address (2^32).
    DiskTooLarge { disk_blocks: u64 },
    /// A volume is too small to hold the file put in every root folder (bytes).
    NoRoomForFile {
        name: String,
        blocks: u64,
        free: u64,
        need: u64,
    },
    /// The map could not be laid out or written.
    Map(ApmError),
    /// Formatting a volume failed.
    Volume { name: String, error: HfsError },
    /// Putting the file in a volume failed.
    AddFile { name: String, error: HfsError },
    /// The device failed.
    Device(DeviceError),
    /// The caller cancelled before the first write.
    Cancelled,
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitError::NoVolumes => f.write_str("no volume asked for: a disk needs at least one"),
            InitError::BadName { name, why } => write!(f, "volume name {name:?} {why}"),
            InitError::NoSize { name } => write!(
                f,
                "volume \"{name}\" has no size: only the last volume may leave it out (it takes the rest)"
            ),
            InitError::VolumeTooSmall {
                name, min_blocks, ..
            } => write!(
                f,
                "volume \"{name}\" is too small: HFS needs at least {min_blocks} blocks"
            ),
            InitError::VolumeTooLarge { name, blocks } => write!(
                f,
                "volume \"{name}\" of {blocks} blocks is too large for a partition map entry"
            ),
            InitError::DiskTooSmall {
                disk_blocks, need, ..
            } => write!(
                f,
                "the disk is too small: it has {disk_blocks} blocks, the volumes with the map and driver need {need}; choose smaller volumes"
            ),
            InitError::DiskTooLarge { disk_blocks } => write!(
                f,
                "the disk has {disk_blocks} blocks: a partition map addresses at most 2^32"
            ),
            InitError::NoRoomForFile {
                name, free, need, ..
            } => write!(
                f,
                "volume \"{name}\" has {free} bytes free, too little for Ferrite Setup ({need} bytes): make it larger"
            ),
            InitError::Map(e) => write!(f, "{e}"),
            InitError::Volume { name, error } => write!(f, "volume \"{name}\": {error}"),
            InitError::AddFile { name, error } => {
                write!(f, "volume \"{name}\": cannot add Ferrite Setup: {error}")
            }
            InitError::Device(e) => write!(f, "{e}"),
            InitError::Cancelled => f.write_str("cancelled before anything was written"),
        }
    }
}

impl core::error::Error for InitError {}

impl From<DeviceError> for InitError {
    fn from(e: DeviceError) -> Self {
        InitError::Device(e)
    }
}

impl From<ApmError> for InitError {
    fn from(e: ApmError) -> Self {
        InitError::Map(e)
    }
}

/// A volume name as HFS stores it (Mac Roman bytes), or why not.
pub fn volume_name(text: &str) -> Result<Vec<u8>, &'static str> {
    let b = crate::macroman::from_ascii(text)
        .ok_or("has characters other than printable ASCII: rename it")?;
    if b.is_empty() {
        return Err("is empty");
    }
    if b.len() > MAX_VOLUME_NAME {
        return Err("is longer than the 27 bytes HFS allows: shorten it");
    }
    if b.contains(&b':') {
        return Err("contains ':', which the Mac uses to separate folders: rename it");
    }
    Ok(b)
}

/// The first block after the driver slot for a driver of `driver_len` bytes.
pub fn first_volume_block(driver_len: usize, bs: u32) -> u64 {
    DRIVER_START_BLOCK as u64
        + crate::apm::driver_partition_blocks(driver_len, bs, DEFAULT_DRIVER_SLOT_BLOCKS)
}

/// Bytes free on a fresh volume of `blocks` `bs`-byte blocks, and the bytes a file with forks
/// of `data` and `rsrc` bytes takes there (both in whole allocation blocks).
pub fn room_for_file(
    blocks: u64,
    bs: u32,
    data: usize,
    rsrc: usize,
) -> Result<(u64, u64), HfsError> {
    let g = geometry_for(blocks * bs as u64 / 512, None)?;
    let blk = g.alloc_block_size as u64;
    let free = (g.alloc_blocks as u64).saturating_sub(2 * tree_blocks(&g, None) as u64);
    let need = (data as u64).div_ceil(blk) + (rsrc as u64).div_ceil(blk);
    Ok((free * blk, need * blk))
}

/// The HFS partitions for `vols` on a disk of `disk_blocks` `bs`-byte blocks after a driver
/// of `driver_len` bytes, checked so that every error says what to change; each volume must
/// also hold a file with forks of `file` (data, resource) bytes when given.
pub fn plan(
    vols: &[VolumeSpec],
    disk_blocks: u64,
    bs: u32,
    driver_len: usize,
    file: Option<(usize, usize)>,
) -> Result<Vec<HfsPartitionSpec>, InitError> {
    if vols.is_empty() {
        return Err(InitError::NoVolumes);
    }
    if disk_blocks > u32::MAX as u64 {
        return Err(InitError::DiskTooLarge { disk_blocks });
    }
    let first = first_volume_block(driver_len, bs);
    let min_blocks = (MIN_VOLUME_SECTORS * 512).div_ceil(bs as u64);
    let mut used = first;
    let mut specs = Vec::new();
    for (i, v) in vols.iter().enumerate() {
        volume_name(&v.name).map_err(|why| InitError::BadName {
            name: v.name.clone(),
            why,
        })?;
        let last = i + 1 == vols.len();
        let size = match v.blocks {
            Some(n) if n < min_blocks => {
                return Err(InitError::VolumeTooSmall {
                    name: v.name.clone(),
                    blocks: n,
                    min_blocks,
                });
            }
            Some(n) if n > u32::MAX as u64 => {
                return Err(InitError::VolumeTooLarge {
                    name: v.name.clone(),
                    blocks: n,
                });
            }
            Some(n) => PartSize::Blocks(n as u32),
            None if last => PartSize::Rest,
            None => {
                return Err(InitError::NoSize {
                    name: v.name.clone(),
                });
            }
        };
        let n = match size {
            PartSize::Blocks(n) => n as u64,
            PartSize::Rest => disk_blocks.saturating_sub(used),
        };
        if used + n > disk_blocks || n < min_blocks {
            return Err(InitError::DiskTooSmall {
                index: i,
                volumes: vols.len(),
                first,
                used: used - first,
                disk_blocks,
                need: used + n.max(min_blocks),
            });
        }
        if let Some((data, rsrc)) = file {
            let (free, need) =
                room_for_file(n, bs, data, rsrc).map_err(|error| InitError::Volume {
                    name: v.name.clone(),
                    error,
                })?;
            if need > free {
                return Err(InitError::NoRoomForFile {
                    name: v.name.clone(),
                    blocks: n,
                    free,
                    need,
                });
            }
        }
        used += n;
        specs.push(HfsPartitionSpec {
            name: v.name.clone(),
            size,
        });
    }
    Ok(specs)
}

/// What [`initialize`] writes.
#[derive(Debug, Clone)]
pub struct InitOptions<'a> {
    /// The driver image and the HFS partitions (from [`plan`]).
    pub layout: Layout<'a>,
    /// The volumes' creation dates (Mac seconds).
    pub date: u32,
    /// A file put in every volume's root folder (Ferrite Setup).
    pub file: Option<NewFile<'a>>,
}

/// Initialize `dev` in the crash-safe order of the module documentation. `progress` is
/// called with the stage and blocks written so far of the total; returning `false` before
/// the first write cancels ([`InitError::Cancelled`], nothing written), later it is ignored
/// (stopping half-way would leave a disk without a map for nothing).
pub fn initialize<D: BlockDevice + ?Sized>(
    dev: &mut D,
    opts: &InitOptions<'_>,
    progress: &mut dyn FnMut(InitStage, u64, u64) -> bool,
) -> Result<PartitionMap, InitError> {
    let image: MapImage = plan_map(&opts.layout, dev.block_size(), dev.block_count())?;
    let names = image
        .hfs
        .iter()
        .map(|(_, _, name)| {
            volume_name(name).map_err(|why| InitError::BadName {
                name: name.clone(),
                why,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bs = dev.block_size() as u64;
    let volume_blocks: u64 = image.hfs.iter().map(|&(_, n, _)| n).sum();
    let map_blocks = (image.map.len() as u64) / bs + 1;
    let driver_blocks = image
        .driver
        .as_ref()
        .map_or(0, |(_, d)| d.len() as u64 / bs);
    let total = volume_blocks + map_blocks + driver_blocks + 1;
    if !progress(InitStage::Volumes, 0, total) {
        return Err(InitError::Cancelled);
    }
    // 1. The disk reads as unformatted from here on.
    let zero = vec![0u8; bs as usize];
    dev.write_blocks(0, &zero)?;
    let mut done = 1;
    // 2. The volumes.
    for ((start, blocks, name), bytes) in image.hfs.iter().zip(&names) {
        let mut r = Region::new(&mut *dev, *start, *blocks)?;
        format_volume(&mut r, &FormatOptions::new(bytes, opts.date)).map_err(|error| {
            InitError::Volume {
                name: name.clone(),
                error,
            }
        })?;
        if let Some(file) = &opts.file {
            let add = |r| -> Result<(), HfsError> {
                let mut v = Volume::open(r)?;
                v.set_clock(opts.date);
                v.add_file(cnid::ROOT, file)?;
                v.flush()
            };
            add(r).map_err(|error| InitError::AddFile {
                name: name.clone(),
                error,
            })?;
        }
        done += blocks;
        progress(InitStage::Volumes, done, total);
    }
    // 3. The driver partition.
    if let Some((start, drv)) = &image.driver {
        progress(InitStage::Driver, done, total);
        dev.write_blocks(*start, drv)?;
        done += driver_blocks;
    }
    // 4. The map entries, 5. block 0.
    progress(InitStage::Map, done, total);
    dev.write_blocks(1, &image.map)?;
    dev.write_blocks(0, &image.block0)?;
    dev.flush()?;
    progress(InitStage::Map, total, total);
    Ok(read_map(dev)?)
}
