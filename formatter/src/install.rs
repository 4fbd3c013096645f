//! Install or update Ferrite's driver on a disk that has a partition map, in place, every
//! volume kept: the core of `ferrite install-driver` and of Ferrite Setup's Update Driver.
//!
//! The new driver goes beside the one it replaces, then the driver descriptor map switches
//! to it, then the old driver partition is retired — in an order that keeps the disk
//! bootable with the old or the new driver if it stops after any block
//! (`docs/formatter.md`, "How install-driver writes"): the new driver's code goes to blocks
//! no map entry the ROM follows points at (an `Apple_Free` partition, space no entry covers,
//! or the unused tail of the map partition); its map entry is written while the block 0
//! descriptor still names the old driver; block 0 — one block — is the switch; the old
//! driver partition becomes `Apple_Free` (the room for the next update) after it.
//!
//! The new partition holds the driver and, in its last [`RECORD_AREA_BLOCKS`] blocks, the
//! flight-record area (its header written with the code, before anything names the
//! partition): [`DEFAULT_DRIVER_SLOT_BLOCKS`] where the free space allows, else just what the
//! driver and the area need — which grows the 32-block driver partitions of older disks —
//! else, on a disk with room for the driver only, the driver without an area
//! ([`Installed::record_area`] is then `None`). No room for the driver: [`InstallError::NoRoom`].

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::apm::{
    self, ApmError, DEFAULT_DRIVER_SLOT_BLOCKS, MAX_DRIVER_BYTES, RECORD_AREA_BLOCKS,
    record_area_image,
};
use crate::device::{BlockDevice, DeviceError};
use ferrite_shared::driver_blob::{self, SETTINGS_VERSION, Settings, TransferMode};
use ferrite_shared::partition_map::{
    DriverDescriptorMap, MAX_DRIVER_DESCRIPTORS, PM_SIGNATURE, PartitionEntry,
    SCSI_DRIVER_PAD_SIGNATURE, boot_checksum, dd_type, part_type, set_c_field, status,
};
use zerocopy::IntoBytes;

fn entry_end(e: &PartitionEntry) -> u64 {
    e.start.get() as u64 + e.block_count.get() as u64
}

/// Which driver a disk carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriverKind {
    /// Ferrite's blob ('FRRT' at +4); its version when the blob records it.
    Ferrite { version: Option<[u8; 3]> },
    /// Apple's SCSI driver as Apple's formatters install it: partition "Macintosh" with the
    /// `pmPad` signature `$00010600`, without Ferrite's magic.
    Apple,
    /// Anything else: the partition's name and type.
    Other { name: String, kind: String },
}

impl DriverKind {
    /// Identify the driver of `entry` from its first bytes `code`.
    pub fn identify(entry: &PartitionEntry, code: &[u8]) -> DriverKind {
        if code.get(driver_blob::MAGIC_OFFSET..driver_blob::MAGIC_OFFSET + 4)
            == Some(&driver_blob::MAGIC[..])
        {
            return DriverKind::Ferrite {
                version: driver_blob::driver_version(code),
            };
        }
        if entry.name_bytes() == b"Macintosh"
            && entry.pad[..4] == SCSI_DRIVER_PAD_SIGNATURE.to_be_bytes()
        {
            return DriverKind::Apple;
        }
        DriverKind::Other {
            name: crate::macroman::lossy(entry.name_bytes()),
            kind: crate::macroman::lossy(entry.type_bytes()),
        }
    }
}

impl fmt::Display for DriverKind {
    /// "Ferrite 0.1.0", "Ferrite (no version)", "Apple", "other (SilverLining)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverKind::Ferrite {
                version: Some([a, b, c]),
            } => write!(f, "Ferrite {a}.{b}.{c}"),
            DriverKind::Ferrite { version: None } => f.write_str("Ferrite (no version)"),
            DriverKind::Apple => f.write_str("Apple"),
            DriverKind::Other { name, .. } => write!(f, "other ({name})"),
        }
    }
}

/// Why the driver was not installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallError {
    /// The driver is larger than a map driver can be.
    DriverTooLarge { bytes: usize },
    /// The disk's map cannot be read (no map, or a damaged one).
    Map(ApmError),
    /// No free space for the new driver: the driver partition is too small for it (or there
    /// is none) and there is no free space beside it. `need` blocks were wanted (the driver
    /// and its flight-record area); the installed driver's partition has `have` (`None`: the
    /// disk has no driver).
    NoRoom {
        need: u64,
        have: Option<u64>,
        block_size: u32,
    },
    /// The map would run past the end of the disk.
    MapTooLong,
    /// The settings could not be applied to the new driver (the caller's words).
    Settings(String),
    /// The device failed.
    Device(DeviceError),
    /// The map written does not read back.
    Readback(ApmError),
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstallError::DriverTooLarge { bytes } => write!(
                f,
                "the driver is {bytes} bytes; a partition map driver can be at most {MAX_DRIVER_BYTES}"
            ),
            InstallError::Map(e) => write!(f, "{e}"),
            InstallError::NoRoom {
                need,
                have,
                block_size,
            } => write!(
                f,
                "there is no room for the new driver and its record area ({} bytes) beside the {}: the driver partition is too small and there is no free space after it or elsewhere on the disk; free that much at the end of the disk (make the last volume smaller), or back up the volumes and initialize the disk",
                need * *block_size as u64,
                if have.is_some() {
                    "installed driver"
                } else {
                    "partitions"
                }
            ),
            InstallError::MapTooLong => {
                f.write_str("the partition map would run past the end of the disk")
            }
            InstallError::Settings(s) => f.write_str(s),
            InstallError::Device(e) => write!(f, "{e}"),
            InstallError::Readback(e) => write!(f, "the map written does not read back: {e}"),
        }
    }
}

impl core::error::Error for InstallError {}

impl From<DeviceError> for InstallError {
    fn from(e: DeviceError) -> Self {
        InstallError::Device(e)
    }
}

/// What [`install`] did.
#[derive(Debug, Clone)]
pub struct Installed {
    /// The driver's size in bytes.
    pub bytes: usize,
    /// Its partition: map block, first block, length.
    pub map_block: u32,
    pub start: u32,
    pub blocks: u32,
    /// The driver partition it replaced: name, type, first block.
    pub was: Option<(String, String, u32)>,
    /// The settings installed (a Ferrite driver).
    pub settings: Option<Settings>,
    /// The disk had this driver already (only the map was tidied).
    pub already: bool,
    /// The driver the disk had (the one the ROM loaded), if any.
    pub old: Option<DriverKind>,
    /// The new driver's version (a Ferrite driver that records it).
    pub new_version: Option<[u8; 3]>,
    /// The first block of the partition's flight-record area (`None`: the disk had room for
    /// the driver only, or an older partition kept as it was has none).
    pub record_area: Option<u32>,
}

/// Where the new driver goes.
struct Place {
    /// Its partition: first block, length.
    start: u64,
    blocks: u64,
    /// The `Apple_Free` entry it is carved from (index), if any.
    from_free: Option<usize>,
    /// Shrink the map partition's entry to this many blocks first.
    shrink_map: Option<u64>,
}

/// Install `blob` (settings of the installed Ferrite driver carried over, then `adjust`
/// applied: the caller's own settings) on `dev`, which holds a partition map. Everything is
/// checked before the first write; see the module comment for the order of the writes.
pub fn install<D: BlockDevice + ?Sized>(
    dev: &mut D,
    blob: Vec<u8>,
    adjust: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), String>,
) -> Result<Installed, InstallError> {
    Ok(install_or_check(dev, blob, adjust, true)?.expect("written"))
}

/// Every check [`install`] makes before its first write — the map, the settings carried
/// over, room for `blob` beside the installed driver, the map's length — without writing:
/// `Ok` when [`install`] of the same `blob` would go ahead (it can still meet a device
/// error). Lets a caller refuse before asking to confirm.
pub fn check<D: BlockDevice + ?Sized>(dev: &mut D, blob: Vec<u8>) -> Result<(), InstallError> {
    install_or_check(dev, blob, &mut |_| Ok(()), false).map(|_| ())
}

/// [`install`] (`write`), or only its checks (`None`).
fn install_or_check<D: BlockDevice + ?Sized>(
    dev: &mut D,
    mut blob: Vec<u8>,
    adjust: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), String>,
    write: bool,
) -> Result<Option<Installed>, InstallError> {
    if blob.len() > MAX_DRIVER_BYTES {
        return Err(InstallError::DriverTooLarge { bytes: blob.len() });
    }
    let map = read_map_for_replacing(dev).map_err(InstallError::Map)?;
    let bs = map.block_size as u64;

    // The driver the ROM loads today: the one a Mac SCSI descriptor names, else any
    // Apple_Driver43/Apple_Driver partition.
    let by_ddm = map
        .ddm
        .descriptors()
        .iter()
        .filter(|d| d.kind.get() == dd_type::MAC_SCSI)
        .find_map(|d| {
            map.partitions
                .iter()
                .position(|p| p.start == d.block.get() && p.entry.is_driver())
        });
    let by_type = || {
        map.partitions
            .iter()
            .position(|p| p.kind == part_type::DRIVER43)
            .or_else(|| {
                map.partitions
                    .iter()
                    .position(|p| p.kind == part_type::DRIVER)
            })
    };
    let old = by_ddm.or_else(by_type);

    // Keep the installed Ferrite driver's settings unless told otherwise.
    let mut old_bytes = None;
    let mut old_kind = None;
    if let Some(i) = old {
        let p = &map.partitions[i];
        let mut first = vec![0u8; bs as usize];
        dev.read_blocks(p.start as u64, &mut first)?;
        old_kind = Some(DriverKind::identify(&p.entry, &first));
        let n = p.entry.boot_size.get() as usize;
        if n > 0 && n as u64 <= p.blocks as u64 * bs {
            let mut b = vec![0u8; (n as u64).div_ceil(bs) as usize * bs as usize];
            dev.read_blocks(p.start as u64, &mut b)?;
            old_bytes = Some(b[..n].to_vec());
            if let (Ok(s), Ok(mut new)) = (Settings::read(&b[..n]), Settings::read(&blob)) {
                new.write_cache = s.write_cache;
                new.read_ahead = s.read_ahead;
                // A version-1 block has no transfer settings: the new driver's defaults.
                if Settings::version(&b[..n]) == Ok(SETTINGS_VERSION) {
                    new.transfer = s.transfer;
                    new.max_blocks_old = s.max_blocks_old;
                }
                // The idle flush is the new driver's: drivers made before it existed hold 0
                // there, which would turn it off (`--idle-flush` sets it).
                // Into an older driver (`--driver FILE`) only what it has room for.
                let recorder_off = Settings::recorder_off(&b[..n]) == Ok(true);
                if new.write(&mut blob).is_err() {
                    let mut old_kind = new;
                    old_kind.transfer = TransferMode::Auto;
                    old_kind.max_blocks_old = 0;
                    old_kind.idle_flush_ticks = 0;
                    old_kind.write(&mut blob).map_err(|e| {
                        InstallError::Settings(alloc::string::ToString::to_string(&e))
                    })?;
                }
                // The recorder stays off where the user turned it off.
                if recorder_off {
                    let _ = Settings::set_recorder_off(&mut blob, true);
                }
            }
        }
    }
    adjust(&mut blob).map_err(InstallError::Settings)?;

    let code_blocks = (blob.len() as u64).div_ceil(bs);
    let need = code_blocks + RECORD_AREA_BLOCKS as u64;
    let entries: Vec<PartitionEntry> = map.partitions.iter().map(|p| p.entry).collect();
    // Free for the new driver: Apple_Free partitions, and a driver partition of ours that no
    // descriptor names (left by an install-driver that stopped before block 0).
    let spare: Vec<bool> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            e.type_bytes() == part_type::FREE.as_bytes()
                || (Some(i) != old
                    && e.type_bytes() == part_type::DRIVER43.as_bytes()
                    && e.name_bytes() == b"Macintosh"
                    && !map
                        .ddm
                        .descriptors()
                        .iter()
                        .any(|d| d.block.get() == e.start.get()))
        })
        .collect();
    // The same driver is installed already (an install-driver that stopped after block 0,
    // run again): only the tidying is left — spare driver partitions become free space and
    // every entry gets the map's count; each write is one entry no descriptor names.
    if let Some(i) = old
        && by_ddm == Some(i)
        && old_bytes.as_deref() == Some(&blob[..])
    {
        if !write {
            return Ok(None);
        }
        let count = entries.len() as u32;
        for (b, e) in entries.iter().enumerate() {
            let mut want = if spare[b] && e.is_driver() {
                free_entry(e.start.get() as u64, e.block_count.get() as u64)
            } else {
                *e
            };
            want.map_block_count.set(count);
            if want != *e {
                let mut blk = vec![0u8; bs as usize];
                blk[..512].copy_from_slice(want.as_bytes());
                dev.write_blocks(b as u64 + 1, &blk)?;
            }
        }
        dev.flush()?;
        let p = &map.partitions[i];
        let record_area = existing_area(dev, p.start, p.blocks, blob.len(), bs as u32)?;
        return Ok(Some(Installed {
            bytes: blob.len(),
            map_block: p.map_block,
            start: p.start,
            blocks: p.blocks,
            was: None,
            settings: Settings::read(&blob).ok(),
            already: true,
            new_version: driver_blob::driver_version(&blob),
            old: old_kind,
            record_area,
        }));
    }
    // The driver and its record area; else, where only the driver fits, the driver alone.
    let (place, with_area) = match place_driver(&entries, &spare, need, map.disk_blocks as u64) {
        Some(p) => (p, true),
        None => (
            place_driver(&entries, &spare, code_blocks, map.disk_blocks as u64).ok_or(
                InstallError::NoRoom {
                    need,
                    have: old.map(|i| map.partitions[i].blocks as u64),
                    block_size: bs as u32,
                },
            )?,
            false,
        ),
    };
    let record_area = with_area.then(|| (place.start + place.blocks) as u32 - RECORD_AREA_BLOCKS);

    // The entries as they end (`after`) and as they are while block 0 still names the old
    // driver (`before_switch`: the old driver's entry untouched).
    let mut after = entries.clone();
    let mut driver_entry = PartitionEntry::zeroed();
    driver_entry.sig.set(PM_SIGNATURE);
    driver_entry.start.set(place.start as u32);
    driver_entry.block_count.set(place.blocks as u32);
    set_c_field(&mut driver_entry.name, "Macintosh");
    set_c_field(&mut driver_entry.kind, part_type::DRIVER43);
    driver_entry.data_count.set(place.blocks as u32);
    driver_entry.status.set(status::DRIVER_PARTITION);
    driver_entry.boot_size.set(blob.len() as u32);
    driver_entry.boot_checksum.set(boot_checksum(&blob) as u32);
    set_c_field(&mut driver_entry.processor, "68000");
    driver_entry.pad[..4].copy_from_slice(&SCSI_DRIVER_PAD_SIGNATURE.to_be_bytes());
    match place.from_free {
        Some(j) => {
            let free = after[j];
            after[j] = driver_entry;
            let left = free.block_count.get() as u64 - place.blocks;
            if left > 0 {
                after.push(free_entry(place.start + place.blocks, left));
            }
        }
        None => after.push(driver_entry),
    }
    if let Some(m) = place.shrink_map {
        let i = entries
            .iter()
            .position(|e| e.type_bytes() == part_type::PARTITION_MAP.as_bytes())
            .expect("read_map found it");
        after[i].block_count.set(m as u32);
        after[i].data_count.set(m as u32);
    }
    let before_switch = after.clone();
    let old_start = old.map(|i| entries[i].start.get());
    if let Some(i) = old {
        after[i] = free_entry(
            entries[i].start.get() as u64,
            entries[i].block_count.get() as u64,
        );
    }
    let old_count = entries.len() as u32;
    let count = after.len() as u32;
    if count as u64 + 1 > map.disk_blocks as u64 {
        return Err(InstallError::MapTooLong);
    }
    for e in after.iter_mut() {
        e.map_block_count.set(count);
    }

    // Block 0: our driver first, then the descriptors of other kinds (ATA...) that point at
    // another partition; other Mac SCSI drivers are dropped so that the ROM loads ours.
    let mut b0 = vec![0u8; bs as usize];
    dev.read_blocks(0, &mut b0)?;
    let mut ddm = DriverDescriptorMap::read(&b0).expect("512+ bytes");
    let mut keep: Vec<_> = map
        .ddm
        .descriptors()
        .iter()
        .filter(|d| {
            d.kind.get() != dd_type::MAC_SCSI
                && d.block.get() as u64 != place.start
                && Some(d.block.get()) != old_start
        })
        .copied()
        .collect();
    keep.truncate(MAX_DRIVER_DESCRIPTORS - 1);
    let mut ours = ddm.drivers[0];
    ours.block.set(place.start as u32);
    ours.size.set(blob.len().div_ceil(512) as u16);
    ours.kind.set(dd_type::MAC_SCSI);
    ddm.drivers
        .iter_mut()
        .for_each(|d| *d = zerocopy::FromZeros::new_zeroed());
    ddm.drivers[0] = ours;
    for (i, d) in keep.iter().enumerate() {
        ddm.drivers[i + 1] = *d;
    }
    ddm.driver_count.set(1 + keep.len() as u16);
    b0[..512].copy_from_slice(ddm.as_bytes());
    if !write {
        return Ok(None);
    }

    // The writes, one block each, in an order that keeps the map readable and block 0's
    // driver intact at every step.
    let put = |dev: &mut D, block: u64, data: &[u8]| dev.write_blocks(block, data);
    let entry_block = |e: &PartitionEntry, n: u32| {
        let mut blk = vec![0u8; bs as usize];
        let mut e = *e;
        e.map_block_count.set(n);
        blk[..512].copy_from_slice(e.as_bytes());
        blk
    };
    // 1. The code and the record area's header, into blocks nothing points at yet.
    let mut code = vec![0u8; code_blocks as usize * bs as usize];
    code[..blob.len()].copy_from_slice(&blob);
    for (k, chunk) in code.chunks(bs as usize).enumerate() {
        put(dev, place.start + k as u64, chunk)?;
    }
    if let Some(area) = record_area {
        let image = record_area_image(place.start as u32, bs as u32);
        for (k, chunk) in image.chunks(bs as usize).enumerate() {
            put(dev, area as u64 + k as u64, chunk)?;
        }
    }
    // 2. New entries past the map's end (block 1 does not count them yet).
    for b in old_count + 1..=count {
        put(
            dev,
            b as u64,
            &entry_block(&before_switch[b as usize - 1], count),
        )?;
    }
    // 3. Changed entries other than block 1, keeping the old count: each only shrinks a
    //    partition or turns free space into the new driver's (not yet named by block 0).
    let mut now: Vec<Vec<u8>> = (1..=count)
        .map(|b| {
            if b <= old_count {
                // As they are on the disk (a stale count included).
                let e = &entries[b as usize - 1];
                entry_block(e, e.map_block_count.get())
            } else {
                entry_block(&before_switch[b as usize - 1], count)
            }
        })
        .collect();
    for b in 2..=old_count {
        let want = entry_block(&before_switch[b as usize - 1], old_count);
        if want != now[b as usize - 1] {
            put(dev, b as u64, &want)?;
            now[b as usize - 1] = want;
        }
    }
    // 4. Block 1 with the new count: the new entries appear.
    let want = entry_block(&before_switch[0], count);
    if want != now[0] {
        put(dev, 1, &want)?;
        now[0] = want;
    }
    // 5. The switch: block 0 names the new driver.
    put(dev, 0, &b0)?;
    // 6. The old driver partition becomes free space, and every entry gets the new count.
    for b in 1..=count {
        let want = entry_block(&after[b as usize - 1], count);
        if want != now[b as usize - 1] {
            put(dev, b as u64, &want)?;
            now[b as usize - 1] = want;
        }
    }
    dev.flush()?;
    let check = apm::read_map(dev).map_err(InstallError::Readback)?;
    let p = check
        .partitions
        .iter()
        .find(|p| p.start as u64 == place.start)
        .expect("driver partition");
    Ok(Some(Installed {
        bytes: blob.len(),
        map_block: p.map_block,
        start: p.start,
        blocks: p.blocks,
        was: old.map(|i| {
            let e = &entries[i];
            (
                crate::macroman::lossy(e.name_bytes()),
                crate::macroman::lossy(e.type_bytes()),
                e.start.get(),
            )
        }),
        settings: Settings::read(&blob).ok(),
        already: false,
        new_version: driver_blob::driver_version(&blob),
        old: old_kind,
        record_area,
    }))
}

/// The record area of a partition kept as it was: where [`apm::driver_partition_blocks`]'s
/// layout puts it, when its header there names the partition.
fn existing_area<D: BlockDevice + ?Sized>(
    dev: &mut D,
    start: u32,
    blocks: u32,
    boot_size: usize,
    bs: u32,
) -> Result<Option<u32>, DeviceError> {
    use ferrite_shared::flight_record::{AreaHeader, area_start};
    let Some(at) = area_start(start, blocks, boot_size as u32, bs) else {
        return Ok(None);
    };
    let mut b = vec![0u8; bs as usize];
    dev.read_blocks(at as u64, &mut b)?;
    Ok(AreaHeader::read(&b)
        .filter(|h| h.check(start).is_ok())
        .map(|_| at))
}

/// Find room for a driver partition of `need` blocks (up to [`DEFAULT_DRIVER_SLOT_BLOCKS`]
/// when there is room for that, so that a larger driver fits later; a partition is never cut
/// below `need`, and one taken whole may be larger) that no entry in use
/// covers: the first `spare` entry (free space) big enough, else the first stretch no entry
/// covers, else the unused end of the map partition. A new entry needs room in the map.
fn place_driver(
    entries: &[PartitionEntry],
    spare: &[bool],
    need: u64,
    disk_blocks: u64,
) -> Option<Place> {
    let want = need.max(DEFAULT_DRIVER_SLOT_BLOCKS as u64);
    let map = entries
        .iter()
        .find(|e| e.type_bytes() == part_type::PARTITION_MAP.as_bytes())?;
    let map_blocks = map.block_count.get() as u64;
    let k = entries.len() as u64;
    // Room in the map partition for one more entry.
    let can_add = map_blocks > k;
    for (j, e) in entries.iter().enumerate() {
        let n = e.block_count.get() as u64;
        if spare[j] && n >= need {
            // The rest stays free under a new entry; without room for one, the whole
            // free partition.
            let blocks = if can_add { n.min(want) } else { n };
            return Some(Place {
                start: e.start.get() as u64,
                blocks,
                from_free: Some(j),
                shrink_map: None,
            });
        }
    }
    if can_add {
        // Space no entry covers (after block 0 and the map).
        let mut spans: Vec<(u64, u64)> = entries
            .iter()
            .map(|e| (e.start.get() as u64, entry_end(e)))
            .collect();
        spans.sort_unstable();
        let mut at = 1u64;
        for (s, end) in spans.iter().copied().chain([(disk_blocks, disk_blocks)]) {
            if s > at && s - at >= need {
                return Some(Place {
                    start: at,
                    blocks: (s - at).min(want),
                    from_free: None,
                    shrink_map: None,
                });
            }
            at = at.max(end);
        }
        // The end of the map partition, keeping room for k + 1 entries.
        if map.start.get() == 1 && map_blocks >= k + 1 + need {
            let blocks = if map_blocks >= k + 1 + want {
                want
            } else {
                need
            };
            return Some(Place {
                start: 1 + map_blocks - blocks,
                blocks,
                from_free: None,
                shrink_map: Some(map_blocks - blocks),
            });
        }
    }
    None
}

/// An `Apple_Free` entry.
fn free_entry(start: u64, blocks: u64) -> PartitionEntry {
    let mut e = PartitionEntry::zeroed();
    e.sig.set(PM_SIGNATURE);
    e.start.set(start as u32);
    e.block_count.set(blocks as u32);
    e.data_count.set(blocks as u32);
    set_c_field(&mut e.name, "Extra");
    set_c_field(&mut e.kind, part_type::FREE);
    e
}

/// Read the map as [`apm::read_map`] does, except that a driver whose checksum is wrong (a
/// damaged driver, about to be replaced) is accepted: the check runs over a copy of its entry
/// holding the checksum the driver has, in memory only.
fn read_map_for_replacing<D: BlockDevice + ?Sized>(
    img: &mut D,
) -> Result<apm::PartitionMap, apm::ApmError> {
    use ferrite_shared::partition_map::MapError;
    /// `pmBootCksum`'s offset in an entry.
    const PM_BOOT_CKSUM: usize = 116;
    let mut patches: Vec<(u64, Vec<u8>)> = Vec::new();
    loop {
        let mut view = Patched {
            dev: &mut *img,
            patches: &patches,
        };
        match apm::read_map(&mut view) {
            Err(apm::ApmError::Map(MapError::DriverChecksum {
                block, computed, ..
            })) if patches.len() < 64 && !patches.iter().any(|(b, _)| *b == block as u64) => {
                let mut b = vec![0u8; img.block_size() as usize];
                img.read_blocks(block as u64, &mut b)?;
                b[PM_BOOT_CKSUM..PM_BOOT_CKSUM + 4]
                    .copy_from_slice(&(computed as u32).to_be_bytes());
                patches.push((block as u64, b));
            }
            r => return r,
        }
    }
}

/// A device with some blocks replaced in memory (reads only).
struct Patched<'a, D: ?Sized> {
    dev: &'a mut D,
    patches: &'a [(u64, Vec<u8>)],
}

impl<D: BlockDevice + ?Sized> BlockDevice for Patched<'_, D> {
    fn block_size(&self) -> u32 {
        self.dev.block_size()
    }
    fn block_count(&self) -> u64 {
        self.dev.block_count()
    }
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        self.dev.read_blocks(block, buf)?;
        let bs = self.block_size() as u64;
        for (b, data) in self.patches {
            if (block..block + buf.len() as u64 / bs).contains(b) {
                let at = ((b - block) * bs) as usize;
                buf[at..at + bs as usize].copy_from_slice(data);
            }
        }
        Ok(())
    }
    fn write_blocks(&mut self, _block: u64, _buf: &[u8]) -> Result<(), DeviceError> {
        Err(DeviceError::Io("read-only view".into()))
    }
}
