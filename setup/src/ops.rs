//! What Ferrite Setup does to a disk, over a [`Transport`]: the operations the UI offers.
//! Every one goes through the formatter core (`ferrite-formatter`), the same code the
//! `ferrite` command runs, over a [`crate::disk::ScsiDisk`].

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use ferrite_formatter::apm::{self, ApmError, PartitionMap};
use ferrite_shared::partition_map::MapError;
use ferrite_shared::scsi;

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
    /// The drive has no changeable write-cache bit.
    CacheNotChangeable,
    /// The user cancelled before anything was written.
    Cancelled,
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

/// Initialize the drive: (FORMAT UNIT), volumes, driver, map, block 0 last.
pub fn initialize(
    t: &mut dyn Transport,
    id: u8,
    plan: &InitPlan,
    m: &mut dyn Monitor,
) -> Result<InitReport, OpError> {
    let _ = (t, id, plan, m);
    Err(OpError::Format("not built yet".into()))
}

/// The partition map's entries.
pub fn partitions(t: &mut dyn Transport, id: u8) -> Result<Vec<PartitionRow>, OpError> {
    let mut d = ScsiDisk::open(t, id)?;
    let map = read_map(&mut d)?;
    Ok(map
        .partitions
        .iter()
        .map(|p| PartitionRow {
            index: p.map_block,
            kind: p.kind.clone(),
            name: p.name.clone(),
            start: p.start as u64,
            blocks: p.blocks as u64,
            hfs: p.is_hfs(),
        })
        .collect())
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

/// A new HFS volume in the largest free space (`blocks`: `None` = all of it).
pub fn add_volume(
    t: &mut dyn Transport,
    id: u8,
    name: &str,
    blocks: Option<u64>,
    date: u32,
) -> Result<(), OpError> {
    let _ = (t, id, name, blocks, date);
    Err(OpError::Format("not built yet".into()))
}

/// Turn entry `index` into free space (its neighbours untouched).
pub fn delete_partition(t: &mut dyn Transport, id: u8, index: u32) -> Result<(), OpError> {
    let _ = (t, id, index);
    Err(OpError::Format("not built yet".into()))
}

/// Rename entry `index`.
pub fn rename_partition(
    t: &mut dyn Transport,
    id: u8,
    index: u32,
    name: &str,
) -> Result<(), OpError> {
    let _ = (t, id, index, name);
    Err(OpError::Format("not built yet".into()))
}

/// Install or update Ferrite's driver in place, every volume kept.
pub fn update_driver(
    t: &mut dyn Transport,
    id: u8,
    m: &mut dyn Monitor,
) -> Result<UpdateReport, OpError> {
    let _ = (t, id, m);
    Err(OpError::Format("not built yet".into()))
}

/// The drive's caching page.
pub fn caching(t: &mut dyn Transport, id: u8) -> Result<CachingPage, OpError> {
    caching::caching(t, id)
}

/// Turn the drive's write cache on or off (MODE SELECT, saved where the drive can) and record
/// the choice in the driver's settings block on the disk.
pub fn set_write_cache(t: &mut dyn Transport, id: u8, on: bool) -> Result<(), OpError> {
    caching::set_drive_write_cache(t, id, on)
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
