//! What Ferrite Setup does to a disk, over a [`Transport`]: the operations the UI offers.
//! Every one goes through the formatter core (`ferrite-formatter`), the same code the
//! `ferrite` command runs, over a [`crate::disk::ScsiDisk`].

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use ferrite_formatter::apm::{
    self, ApmError, HfsPartitionSpec, Layout, PartitionInfo, PartitionMap,
};
use ferrite_formatter::hfs::{self, FormatOptions, format_volume};
use ferrite_formatter::init::{self, InitError, InitOptions, InitStage, VolumeSpec};
use ferrite_formatter::install::{self, DriverKind, InstallError};
use ferrite_formatter::{BlockDevice, Region};
use ferrite_shared::driver_blob::{self, Settings, TransferMode};
use ferrite_shared::partition_map::{
    MapError, PM_SIGNATURE, PartitionEntry, part_type, set_c_field, status,
};
use ferrite_shared::scsi::{self, sense_key};
use zerocopy::{FromZeros, IntoBytes};

use crate::bus::{INQUIRY_LEN, Inquiry, ScsiError, Transport};
use crate::disk::{self, Data, ScsiDisk, run};
use crate::label::{Label, read_label};
use crate::{caching, surface};

/// Progress and cancel: called often; return `false` to cancel (only honoured before the
/// first write of a destructive operation, and between chunks of a read-only one).
pub trait Monitor {
    fn progress(&mut self, stage: Stage, done: u64, total: u64) -> bool;
}

/// A monitor that never cancels and shows nothing.
pub struct Quiet;

impl Monitor for Quiet {
    fn progress(&mut self, _: Stage, _: u64, _: u64) -> bool {
        true
    }
}

/// What an operation is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    LowLevelFormat,
    Volumes,
    Driver,
    Map,
    Verify,
    Reassign,
    /// Drive ▸ Benchmark… (`crate::bench`).
    Benchmark,
}

/// One volume to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeRequest {
    pub name: String,
    /// Blocks (512 bytes); `None`: the rest of the disk (last volume only).
    pub blocks: Option<u64>,
}

/// What Initialize makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitPlan {
    pub volumes: Vec<VolumeRequest>,
    /// Recorded in the driver's settings block (and set on the drive with MODE SELECT).
    pub write_cache: bool,
    /// Recorded in the driver's settings block: blind or polled transfers on the original
    /// SCSI Manager (`ferrite init --transfer-mode`).
    pub transfer: TransferMode,
    /// FORMAT UNIT first.
    pub low_level_format: bool,
    /// Mac seconds (from `GetDateTime`): the volumes' dates.
    pub date: u32,
}

/// What Initialize wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitReport {
    /// The partitions as the map now lists them.
    pub partitions: Vec<PartitionRow>,
    /// The driver's version ("Ferrite 0.1.0").
    pub driver: String,
    /// Whether MODE SELECT set the drive's write cache as asked (`None`: the drive has no
    /// changeable caching page).
    pub write_cache_set: Option<bool>,
}

/// The selected drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriveInfo {
    pub id: u8,
    pub vendor: String,
    pub product: String,
    pub revision: String,
    pub blocks: u64,
    pub block_len: u32,
    pub removable: bool,
    pub write_protected: bool,
    pub label: Label,
}

/// One partition map entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRow {
    /// Its map block (1-based), which names it for delete and rename.
    pub index: u32,
    pub kind: String,
    pub name: String,
    pub start: u64,
    pub blocks: u64,
    pub hfs: bool,
}

/// What Update Driver did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateReport {
    /// "Ferrite 0.1.0", "Apple", "other (name)", "none".
    pub old: String,
    pub new: String,
}

/// The caching mode page (08h) as the drive reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachingPage {
    /// Write cache enabled (current value).
    pub wce: bool,
    /// Read cache disabled (current value).
    pub rcd: bool,
    /// Whether WCE can be changed.
    pub changeable_wce: bool,
    /// Whether the page can be saved (PS).
    pub savable: bool,
}

/// Why an operation failed, in words ([`fmt::Display`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpError {
    /// A SCSI command failed.
    Scsi {
        command: &'static str,
        error: ScsiError,
    },
    /// A command ended in CHECK CONDITION with this sense.
    Sense {
        command: &'static str,
        key: u8,
        asc: u8,
        ascq: u8,
        lba: Option<u32>,
    },
    /// The drive's blocks are not 512 bytes.
    BlockSize(u32),
    /// The drive reports its medium write-protected.
    WriteProtected,
    /// The disk has no partition map (for operations that need one).
    NoMap,
    /// The map on the disk cannot be read or is damaged.
    BadMap(String),
    /// No such map entry.
    NoSuchPartition(u32),
    /// This entry may not be deleted or renamed (the map itself, the driver).
    Protected { index: u32, kind: String },
    /// The plan does not fit the disk, or a name is unusable (the formatter's words).
    Plan(String),
    /// The formatter core failed (its words).
    Format(String),
    /// The driver partition is too small and there is no free space after it.
    DriverTooSmall { have: u64, need: u64 },
    /// No free space for a new volume (or not as much as asked).
    NoRoom { free: u64, asked: u64 },
    /// This build of Ferrite Setup carries no driver.
    NoDriver,
    /// The disk has no Ferrite driver to record a driver setting in.
    NoFerriteDriver,
    /// The drive has no changeable write-cache bit.
    CacheNotChangeable,
    /// The user cancelled before anything was written.
    Cancelled,
    /// The user cancelled after the low-level format (the medium is erased) and before
    /// anything else was written.
    CancelledAfterFormat,
    /// The drive's answer to MODE SENSE holds no caching page.
    BadModePage,
    /// A block number past what a 10-byte command can name.
    NoSuchBlock(u64),
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::words::describe_op_error(self, f)
    }
}

/// INQUIRY, READ CAPACITY, write protection and the label of the drive at `id`.
pub fn drive_info(t: &mut dyn Transport, id: u8) -> Result<DriveInfo, OpError> {
    let mut inq = [0u8; INQUIRY_LEN];
    run(
        t,
        id,
        "INQUIRY",
        &scsi::inquiry(INQUIRY_LEN as u8),
        Data::In(&mut inq),
    )?;
    let i = Inquiry::parse(&inq).ok_or(OpError::Scsi {
        command: "INQUIRY",
        error: ScsiError::NoDevice,
    })?;
    let c = disk::capacity(t, id)?;
    let write_protected = caching::write_protected(t, id);
    let label = if c.block_len == disk::BLOCK_LEN {
        let mut read = |lba: u32| {
            let mut b = vec![0u8; 512];
            run(t, id, "READ(10)", &scsi::read_10(lba, 1), Data::In(&mut b))
                .ok()
                .map(|()| b)
        };
        read_label(&mut read).unwrap_or(Label::Unformatted)
    } else {
        Label::Unformatted
    };
    Ok(DriveInfo {
        id,
        vendor: i.vendor,
        product: i.product,
        revision: i.revision,
        blocks: c.blocks,
        block_len: c.block_len,
        removable: i.removable,
        write_protected,
        label,
    })
}

/// The driver blob this build of Ferrite Setup carries (`setup/build.rs`).
pub static EMBEDDED_DRIVER: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/ferrite-driver.bin"));

/// The embedded driver, or why there is none.
fn driver_blob() -> Result<Vec<u8>, OpError> {
    if EMBEDDED_DRIVER.is_empty() {
        return Err(OpError::NoDriver);
    }
    Ok(EMBEDDED_DRIVER.to_vec())
}

/// "Ferrite 0.1.0" for a blob.
fn driver_name(blob: &[u8]) -> String {
    DriverKind::Ferrite {
        version: driver_blob::driver_version(blob),
    }
    .to_string()
}

/// Open the drive for writing: 512-byte blocks, not write-protected.
fn open_for_writing(t: &mut dyn Transport, id: u8) -> Result<ScsiDisk<'_>, OpError> {
    if caching::write_protected(t, id) {
        return Err(OpError::WriteProtected);
    }
    ScsiDisk::open(t, id)
}

/// FORMAT UNIT with no parameter list (FmtData = 0: the drive's own defect handling). The
/// drive answers when it is done, which can take many minutes.
fn format_unit(t: &mut dyn Transport, id: u8) -> Result<(), OpError> {
    run(
        t,
        id,
        "FORMAT UNIT",
        &[scsi::op::FORMAT_UNIT, 0, 0, 0, 0, 0],
        Data::None,
    )
}

fn rows_of(map: &PartitionMap) -> Vec<PartitionRow> {
    map.partitions
        .iter()
        .map(|p| PartitionRow {
            index: p.map_block,
            kind: p.kind.clone(),
            name: p.name.clone(),
            start: p.start as u64,
            blocks: p.blocks as u64,
            hfs: p.is_hfs(),
        })
        .collect()
}

/// The core's initialize error as the app reports it.
fn init_error(d: &mut ScsiDisk<'_>, e: InitError) -> OpError {
    match e {
        InitError::Cancelled => OpError::Cancelled,
        InitError::Device(e) => d.error_or(|| OpError::Format(e.to_string())),
        e @ (InitError::Map(_) | InitError::Volume { .. } | InitError::AddFile { .. }) => {
            d.error_or(|| OpError::Format(e.to_string()))
        }
        e => OpError::Plan(e.to_string()),
    }
}

/// The layout [`initialize`] writes for `plan` on a disk of `blocks` 512-byte blocks with
/// `blob` as driver (the same as `ferrite init --no-setup-app` with these volumes).
pub fn plan_layout(
    plan: &InitPlan,
    blocks: u64,
    blob: &[u8],
) -> Result<Vec<HfsPartitionSpec>, OpError> {
    let vols: Vec<VolumeSpec> = plan
        .volumes
        .iter()
        .map(|v| VolumeSpec {
            name: v.name.clone(),
            blocks: v.blocks,
        })
        .collect();
    init::plan(&vols, blocks, disk::BLOCK_LEN, blob.len(), None)
        .map_err(|e| OpError::Plan(e.to_string()))
}

/// The driver blob with the write-cache choice in its settings block.
pub fn driver_with_write_cache(blob: Vec<u8>, on: bool) -> Result<Vec<u8>, OpError> {
    driver_with_settings(blob, on, TransferMode::default())
}

/// The driver blob with the write-cache and transfer-mode choices in its settings block.
pub fn driver_with_settings(
    mut blob: Vec<u8>,
    write_cache: bool,
    transfer: TransferMode,
) -> Result<Vec<u8>, OpError> {
    let mut s = Settings::read(&blob).map_err(|e| OpError::Format(e.to_string()))?;
    s.write_cache = write_cache;
    s.transfer = transfer;
    s.write(&mut blob)
        .map_err(|e| OpError::Format(e.to_string()))?;
    Ok(blob)
}

/// Initialize the drive: (FORMAT UNIT), volumes, driver, map, block 0 last — the formatter
/// core's `init::initialize`, as `ferrite init` runs it. Everything is checked (block size,
/// write protection, the plan) before the first write; `m` may cancel until then.
pub fn initialize(
    t: &mut dyn Transport,
    id: u8,
    plan: &InitPlan,
    m: &mut dyn Monitor,
) -> Result<InitReport, OpError> {
    initialize_with_driver(t, id, plan, driver_blob()?, m)
}

/// [`initialize`] with `driver` instead of the embedded driver.
pub fn initialize_with_driver(
    t: &mut dyn Transport,
    id: u8,
    plan: &InitPlan,
    driver: Vec<u8>,
    m: &mut dyn Monitor,
) -> Result<InitReport, OpError> {
    let blob = driver_with_settings(driver, plan.write_cache, plan.transfer)?;
    let mut d = open_for_writing(t, id)?;
    let specs = plan_layout(plan, d.block_count(), &blob)?;
    let first = if plan.low_level_format {
        Stage::LowLevelFormat
    } else {
        Stage::Volumes
    };
    if !m.progress(first, 0, 1) {
        return Err(OpError::Cancelled);
    }
    if plan.low_level_format {
        format_unit(d.transport(), id)?;
        m.progress(Stage::LowLevelFormat, 1, 1);
    }
    let opts = InitOptions {
        layout: Layout {
            driver: Some(&blob),
            driver_slot_blocks: apm::DEFAULT_DRIVER_SLOT_BLOCKS,
            hfs: specs,
        },
        date: plan.date,
        file: None,
    };
    let map = init::initialize(&mut d, &opts, &mut |stage, done, total| {
        let stage = match stage {
            InitStage::Volumes => Stage::Volumes,
            InitStage::Driver => Stage::Driver,
            InitStage::Map => Stage::Map,
        };
        m.progress(stage, done, total)
    })
    .map_err(|e| match init_error(&mut d, e) {
        OpError::Cancelled if plan.low_level_format => OpError::CancelledAfterFormat,
        e => e,
    })?;
    // The drive's own setting follows the choice where the drive lets it change.
    let write_cache_set = match caching::set_drive_write_cache(d.transport(), id, plan.write_cache)
    {
        Ok(()) => Some(true),
        Err(OpError::CacheNotChangeable | OpError::BadModePage) => None,
        Err(OpError::Sense {
            key: sense_key::ILLEGAL_REQUEST,
            ..
        }) => None,
        Err(_) => Some(false),
    };
    Ok(InitReport {
        partitions: rows_of(&map),
        driver: driver_name(&blob),
        write_cache_set,
    })
}

/// The partition map's entries.
pub fn partitions(t: &mut dyn Transport, id: u8) -> Result<Vec<PartitionRow>, OpError> {
    let mut d = ScsiDisk::open(t, id)?;
    let map = read_map(&mut d)?;
    Ok(rows_of(&map))
}

/// The map of the disk, or why not.
fn read_map(d: &mut ScsiDisk<'_>) -> Result<PartitionMap, OpError> {
    match apm::read_map(&mut *d) {
        Ok(m) => Ok(m),
        Err(e) => Err(d.error_or(|| match e {
            ApmError::Map(MapError::NoDdmSignature { .. }) => OpError::NoMap,
            e => OpError::BadMap(e.to_string()),
        })),
    }
}

/// One map entry block.
fn entry_block(e: &PartitionEntry) -> Vec<u8> {
    let mut b = vec![0u8; disk::BLOCK_LEN as usize];
    b[..512].copy_from_slice(e.as_bytes());
    b
}

/// Write map entry `index` (its map block).
fn put_entry(d: &mut ScsiDisk<'_>, index: u32, e: &PartitionEntry) -> Result<(), OpError> {
    d.write_blocks(index as u64, &entry_block(e))
        .map_err(|e| d.error_or(|| OpError::Format(e.to_string())))
}

/// The entry at map block `index`, refusing the map itself and drivers.
fn editable(map: &PartitionMap, index: u32) -> Result<&PartitionInfo, OpError> {
    let p = map
        .partitions
        .iter()
        .find(|p| p.map_block == index)
        .ok_or(OpError::NoSuchPartition(index))?;
    if p.kind == part_type::PARTITION_MAP
        || p.entry.is_driver()
        || p.kind.starts_with("Apple_Driver")
    {
        return Err(OpError::Protected {
            index,
            kind: p.kind.clone(),
        });
    }
    Ok(p)
}

/// A map entry of `kind` over `blocks` blocks at `start`.
fn new_entry(
    start: u64,
    blocks: u64,
    name: &str,
    kind: &str,
    st: u32,
    count: u32,
) -> PartitionEntry {
    let mut e = PartitionEntry::new_zeroed();
    e.sig.set(PM_SIGNATURE);
    e.map_block_count.set(count);
    e.start.set(start as u32);
    e.block_count.set(blocks as u32);
    set_c_field(&mut e.name, name);
    set_c_field(&mut e.kind, kind);
    e.data_count.set(blocks as u32);
    e.status.set(st);
    e
}

/// A new HFS volume in the largest free space (`blocks`: `None` = all of it). The volume is
/// formatted first, in space no entry uses; then the free entry becomes the volume's (one
/// block), and the rest of the free space, if any, gets a new `Apple_Free` entry written past
/// the map's end before block 1 counts it — the map reads valid after every block.
pub fn add_volume(
    t: &mut dyn Transport,
    id: u8,
    name: &str,
    blocks: Option<u64>,
    date: u32,
) -> Result<(), OpError> {
    let bytes = init::volume_name(name)
        .map_err(|why| OpError::Plan(alloc::format!("The volume name \"{name}\" {why}")))?;
    let mut d = open_for_writing(t, id)?;
    let map = read_map(&mut d)?;
    let free = map
        .partitions
        .iter()
        .filter(|p| p.kind == part_type::FREE)
        .max_by_key(|p| p.blocks)
        .ok_or(OpError::NoRoom {
            free: 0,
            asked: blocks.unwrap_or(1),
        })?
        .clone();
    let have = free.blocks as u64;
    let n = blocks.unwrap_or(have);
    if n > have {
        return Err(OpError::NoRoom {
            free: have,
            asked: n,
        });
    }
    let min = hfs::MIN_VOLUME_SECTORS;
    if n < min {
        return Err(OpError::Plan(alloc::format!(
            "A volume needs at least {min} blocks (400 KB); ask for more"
        )));
    }
    let count = map.partitions.len() as u32;
    let rest = have - n;
    let map_blocks = map
        .partitions
        .iter()
        .find(|p| p.kind == part_type::PARTITION_MAP)
        .map_or(0, |p| p.blocks);
    if rest > 0 && count + 1 > map_blocks {
        return Err(OpError::Plan(
            "The partition map has no room for another entry: take all of the free space".into(),
        ));
    }
    // 1. The volume, in free space.
    {
        let mut r = Region::new(&mut d, free.start as u64, n)
            .map_err(|e| OpError::Format(e.to_string()))?;
        format_volume(&mut r, &FormatOptions::new(&bytes, date))
            .map_err(|e| OpError::Format(e.to_string()))
    }
    .map_err(|e| d.error_or(|| e))?;
    let new_count = count + (rest > 0) as u32;
    if rest > 0 {
        // 2. The rest of the free space, past the map's end.
        let e = new_entry(
            free.start as u64 + n,
            rest,
            "Extra",
            part_type::FREE,
            0,
            new_count,
        );
        put_entry(&mut d, new_count, &e)?;
    }
    // 3. The free entry becomes the volume's (the count as on the disk).
    let vol = new_entry(
        free.start as u64,
        n,
        name,
        part_type::HFS,
        status::HFS_PARTITION,
        count,
    );
    put_entry(&mut d, free.map_block, &vol)?;
    if rest > 0 {
        // 4. Block 1 first (the new entry appears), then every other entry's count.
        let mut order: Vec<&PartitionInfo> = map.partitions.iter().collect();
        order.sort_by_key(|p| p.map_block != 1);
        for p in order {
            let mut e = if p.map_block == free.map_block {
                vol
            } else {
                p.entry
            };
            e.map_block_count.set(new_count);
            put_entry(&mut d, p.map_block, &e)?;
        }
    }
    d.flush()
        .map_err(|e| d.error_or(|| OpError::Format(e.to_string())))
}

/// Turn entry `index` into free space (one block written; its neighbours untouched). The
/// map partition and driver partitions are refused.
pub fn delete_partition(t: &mut dyn Transport, id: u8, index: u32) -> Result<(), OpError> {
    let mut d = open_for_writing(t, id)?;
    let map = read_map(&mut d)?;
    let p = editable(&map, index)?;
    let e = new_entry(
        p.start as u64,
        p.blocks as u64,
        "Extra",
        part_type::FREE,
        0,
        p.entry.map_block_count.get(),
    );
    put_entry(&mut d, index, &e)?;
    d.flush()
        .map_err(|e| d.error_or(|| OpError::Format(e.to_string())))
}

/// Rename entry `index` (its `pmPartName`, one block written; an HFS volume's own name is
/// the Finder's to change).
pub fn rename_partition(
    t: &mut dyn Transport,
    id: u8,
    index: u32,
    name: &str,
) -> Result<(), OpError> {
    if name.is_empty() || name.len() > 31 || !name.bytes().all(|b| (0x20..0x7F).contains(&b)) {
        return Err(OpError::Plan(alloc::format!(
            "The name \"{name}\" must be 1 to 31 plain characters"
        )));
    }
    let mut d = open_for_writing(t, id)?;
    let map = read_map(&mut d)?;
    let mut e = editable(&map, index)?.entry;
    e.name = [0; 32];
    set_c_field(&mut e.name, name);
    put_entry(&mut d, index, &e)?;
    d.flush()
        .map_err(|e| d.error_or(|| OpError::Format(e.to_string())))
}

/// The core's install error as the app reports it.
fn install_error(d: &mut ScsiDisk<'_>, e: InstallError) -> OpError {
    match e {
        InstallError::Map(ApmError::Map(MapError::NoDdmSignature { .. })) => OpError::NoMap,
        InstallError::Map(e) => d.error_or(|| OpError::BadMap(e.to_string())),
        InstallError::NoRoom { need, have, .. } => OpError::DriverTooSmall {
            have: have.unwrap_or(0),
            need,
        },
        InstallError::Device(e) => d.error_or(|| OpError::Format(e.to_string())),
        e => d.error_or(|| OpError::Format(e.to_string())),
    }
}

/// Install or update Ferrite's driver in place, every volume kept (the formatter core's
/// `install::install`, as `ferrite install-driver` runs it; the installed Ferrite driver's
/// settings are kept). `m` may cancel before the first write.
pub fn update_driver(
    t: &mut dyn Transport,
    id: u8,
    m: &mut dyn Monitor,
) -> Result<UpdateReport, OpError> {
    update_driver_with(t, id, driver_blob()?, m)
}

/// [`update_driver`] with `blob` instead of the embedded driver.
pub fn update_driver_with(
    t: &mut dyn Transport,
    id: u8,
    blob: Vec<u8>,
    m: &mut dyn Monitor,
) -> Result<UpdateReport, OpError> {
    let mut d = open_for_writing(t, id)?;
    // The map is checked before asking to go on.
    read_map_for_update(&mut d)?;
    if !m.progress(Stage::Driver, 0, 1) {
        return Err(OpError::Cancelled);
    }
    let done =
        install::install(&mut d, blob, &mut |_| Ok(())).map_err(|e| install_error(&mut d, e))?;
    m.progress(Stage::Driver, 1, 1);
    Ok(UpdateReport {
        old: done
            .old
            .map_or_else(|| String::from("none"), |k| k.to_string()),
        new: DriverKind::Ferrite {
            version: done.new_version,
        }
        .to_string(),
    })
}

/// Whether Update Driver can go ahead on the drive at `id` — write protection, the map, room
/// for the embedded driver beside the installed one — found out without writing (the
/// formatter core's `install::check`), so that a refusal comes before any confirmation.
pub fn check_update(t: &mut dyn Transport, id: u8) -> Result<(), OpError> {
    check_update_with(t, id, driver_blob()?)
}

/// [`check_update`] with `blob` instead of the embedded driver.
pub fn check_update_with(t: &mut dyn Transport, id: u8, blob: Vec<u8>) -> Result<(), OpError> {
    let mut d = open_for_writing(t, id)?;
    read_map_for_update(&mut d)?;
    install::check(&mut d, blob).map_err(|e| install_error(&mut d, e))
}

/// The map as Update Driver needs it (a damaged driver checksum is fine: it is replaced).
fn read_map_for_update(d: &mut ScsiDisk<'_>) -> Result<(), OpError> {
    match apm::read_map(&mut *d) {
        Ok(_) | Err(ApmError::Map(MapError::DriverChecksum { .. })) => Ok(()),
        Err(ApmError::Map(MapError::NoDdmSignature { .. })) => Err(OpError::NoMap),
        Err(e) => Err(d.error_or(|| OpError::BadMap(e.to_string()))),
    }
}

/// The Ferrite driver the disk's block 0 names: its bytes.
fn installed_ferrite(d: &mut ScsiDisk<'_>) -> Result<Option<Vec<u8>>, OpError> {
    let map = read_map(d)?;
    let Some(p) = map.ddm.descriptors().iter().find_map(|dd| {
        map.partitions
            .iter()
            .find(|p| p.start == dd.block.get() && p.entry.is_driver())
    }) else {
        return Ok(None);
    };
    let n = p.entry.boot_size.get() as usize;
    if n == 0 || n as u64 > p.blocks as u64 * 512 {
        return Ok(None);
    }
    let mut b = disk::buffer((n as u64).div_ceil(512));
    d.read_blocks(p.start as u64, &mut b)
        .map_err(|e| d.error_or(|| OpError::Format(e.to_string())))?;
    b.truncate(n);
    Ok((Settings::read(&b).is_ok()).then_some(b))
}

/// The drive's caching page.
pub fn caching(t: &mut dyn Transport, id: u8) -> Result<CachingPage, OpError> {
    caching::caching(t, id)
}

/// The settings block of the Ferrite driver on the disk (`None`: the disk has no map, no
/// Ferrite driver, or blocks that are not 512 bytes).
pub fn installed_settings(t: &mut dyn Transport, id: u8) -> Result<Option<Settings>, OpError> {
    let mut d = match ScsiDisk::open(t, id) {
        Ok(d) => d,
        Err(OpError::BlockSize(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    match installed_ferrite(&mut d) {
        Ok(b) => Ok(b.and_then(|b| Settings::read(&b).ok())),
        Err(OpError::NoMap) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Record `change` in the settings block of the Ferrite driver on the disk, if it has one
/// and the change changes something — by reinstalling that same driver with the new
/// settings through the crash-safe install. Returns whether the disk has a Ferrite driver.
fn record_settings(
    t: &mut dyn Transport,
    id: u8,
    change: &dyn Fn(&mut Settings),
) -> Result<bool, OpError> {
    let mut d = match ScsiDisk::open(t, id) {
        Ok(d) => d,
        Err(OpError::BlockSize(_)) => return Ok(false),
        Err(e) => return Err(e),
    };
    let installed = match installed_ferrite(&mut d) {
        Ok(Some(b)) => b,
        Ok(None) | Err(OpError::NoMap) => return Ok(false),
        Err(e) => return Err(e),
    };
    if let Ok(s) = Settings::read(&installed) {
        let mut want = s;
        change(&mut want);
        if want == s {
            return Ok(true);
        }
    }
    install::install(&mut d, installed, &mut |b| {
        let mut s = Settings::read(b).map_err(|e| e.to_string())?;
        change(&mut s);
        s.write(b).map_err(|e| e.to_string())
    })
    .map_err(|e| install_error(&mut d, e))?;
    Ok(true)
}

/// Turn the drive's write cache on or off (MODE SELECT, saved where the drive can) and record
/// the choice in the settings block of the Ferrite driver on the disk, if it has one.
pub fn set_write_cache(t: &mut dyn Transport, id: u8, on: bool) -> Result<(), OpError> {
    caching::set_drive_write_cache(t, id, on)?;
    record_settings(t, id, &|s| s.write_cache = on).map(|_| ())
}

/// Record the transfer mode in the settings block of the Ferrite driver on the disk
/// ([`OpError::NoFerriteDriver`] without one: only Ferrite's driver reads it).
pub fn set_transfer_mode(t: &mut dyn Transport, id: u8, mode: TransferMode) -> Result<(), OpError> {
    if caching::write_protected(t, id) {
        return Err(OpError::WriteProtected);
    }
    if record_settings(t, id, &|s| s.transfer = mode)? {
        Ok(())
    } else {
        Err(OpError::NoFerriteDriver)
    }
}

/// Read-verify every block; the bad LBAs, exactly (see [`surface::surface_test`]).
pub fn surface_test(
    t: &mut dyn Transport,
    id: u8,
    m: &mut dyn Monitor,
) -> Result<Vec<u64>, OpError> {
    surface::surface_test(t, id, m)
}

/// REASSIGN BLOCKS for `bad`.
pub fn reassign(t: &mut dyn Transport, id: u8, bad: &[u64]) -> Result<(), OpError> {
    surface::reassign(t, id, bad)
}
