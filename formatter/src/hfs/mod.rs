//! HFS (Mac OS Standard) volumes: format ([`format_volume`]), open, list, read and add files
//! ([`Volume`]), and check ([`check_volume`]). Layout per `docs/mac-facts.md` §14.
//!
//! A volume is any [`BlockDevice`](crate::BlockDevice) (a whole image, or a
//! [`Region`](crate::Region) for a partition); HFS sector numbers are 512-byte sectors from its
//! start whatever the device's block size.
//!
//! Limits enforced: at least [`MIN_VOLUME_SECTORS`] sectors (400 KiB) and fewer than 2^32
//! sectors (2 TiB, what `drAlBlkSiz`, `drNmAlBlks` and a partition map entry can describe).
//! Classic Mac OS mounts at most 2 GB before System 7.5, 4 GB from 7.5 and 2 TB from 7.5.2
//! on PCI Macs only (mac-facts §16): [`CLASSIC_68K_MAX_VOLUME_BYTES`] is the 4 GB figure for a 68k
//! Mac, for front ends to warn about.

pub mod btree;
pub mod catalog;
pub mod check;
mod format;
mod volume;

pub use catalog::{CatFile, CatFolder, CatKey, CatThread, Extent, ExtentRecord, FInfo};
pub use check::{CheckReport, Problem, check_volume};
pub use format::{FormatOptions, Geometry, format_volume, geometry_for, tree_blocks};
pub use volume::{DirEntry, EntryKind, Fork, NewFile, NewFolder, Volume, VolumeInfo};

use crate::device::DeviceError;
use alloc::string::String;
use core::fmt;
use zerocopy::byteorder::{BigEndian, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub(crate) type Be16 = U16<BigEndian>;
pub(crate) type Be32 = U32<BigEndian>;

/// `drSigWord` 'BD'.
pub const HFS_SIGNATURE: u16 = 0x4244;
/// Boot-block signature 'LK'.
pub const BOOT_SIGNATURE: u16 = 0x4C4B;
/// Smallest volume formatted: 400 KiB (a single-sided floppy).
pub const MIN_VOLUME_SECTORS: u64 = 800;
/// Largest volume formatted: 2^32 − 1 sectors.
pub const MAX_VOLUME_SECTORS: u64 = u32::MAX as u64;
/// What a 68k Mac on System 7.5–8.1 mounts (mac-facts §16): 4 GB.
pub const CLASSIC_68K_MAX_VOLUME_BYTES: u64 = 4 * 1024 * 1024 * 1024;
/// `drAtrb` bit 8: unmounted cleanly.
pub const ATRB_UNMOUNTED: u16 = 0x0100;
/// `drAtrb` bit 15: software lock.
pub const ATRB_SOFTWARE_LOCK: u16 = 0x8000;
/// B*-tree node size.
pub const NODE_SIZE: usize = 512;
/// Catalog node IDs.
pub mod cnid {
    pub const ROOT_PARENT: u32 = 1;
    pub const ROOT: u32 = 2;
    pub const EXTENTS: u32 = 3;
    pub const CATALOG: u32 = 4;
    pub const BAD_BLOCKS: u32 = 5;
    pub const FIRST_USER: u32 = 16;
}
/// Seconds from 1904-01-01 to 1970-01-01.
pub const MAC_EPOCH_OFFSET: i64 = 2_082_844_800;

/// Unix seconds to Mac seconds (no time-zone shift: the caller passes local time if wanted),
/// clamped to the representable range.
pub fn mac_time_from_unix(unix: i64) -> u32 {
    (unix + MAC_EPOCH_OFFSET).clamp(0, u32::MAX as i64) as u32
}

/// The Master Directory Block (162 bytes used of sector 2).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Mdb {
    pub sig_word: Be16,
    pub cr_date: Be32,
    pub ls_mod: Be32,
    pub atrb: Be16,
    pub nm_fls: Be16,
    pub vbm_st: Be16,
    pub alloc_ptr: Be16,
    pub nm_al_blks: Be16,
    pub al_blk_siz: Be32,
    pub clp_siz: Be32,
    pub al_bl_st: Be16,
    pub nxt_cnid: Be32,
    pub free_bks: Be16,
    /// `drVN`: Str27.
    pub vn: [u8; 28],
    pub vol_bk_up: Be32,
    pub v_seq_num: Be16,
    pub wr_cnt: Be32,
    pub xt_clp_siz: Be32,
    pub ct_clp_siz: Be32,
    pub nm_rt_dirs: Be16,
    pub fil_cnt: Be32,
    pub dir_cnt: Be32,
    pub fndr_info: [Be32; 8],
    pub vc_size: Be16,
    pub vbm_c_size: Be16,
    pub ctl_c_size: Be16,
    pub xt_fl_size: Be32,
    pub xt_ext_rec: ExtentRecord,
    pub ct_fl_size: Be32,
    pub ct_ext_rec: ExtentRecord,
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<Mdb>() == 162);
    assert!(offset_of!(Mdb, cr_date) == 0x02);
    assert!(offset_of!(Mdb, ls_mod) == 0x06);
    assert!(offset_of!(Mdb, atrb) == 0x0A);
    assert!(offset_of!(Mdb, nm_fls) == 0x0C);
    assert!(offset_of!(Mdb, vbm_st) == 0x0E);
    assert!(offset_of!(Mdb, alloc_ptr) == 0x10);
    assert!(offset_of!(Mdb, nm_al_blks) == 0x12);
    assert!(offset_of!(Mdb, al_blk_siz) == 0x14);
    assert!(offset_of!(Mdb, clp_siz) == 0x18);
    assert!(offset_of!(Mdb, al_bl_st) == 0x1C);
    assert!(offset_of!(Mdb, nxt_cnid) == 0x1E);
    assert!(offset_of!(Mdb, free_bks) == 0x22);
    assert!(offset_of!(Mdb, vn) == 0x24);
    assert!(offset_of!(Mdb, vol_bk_up) == 0x40);
    assert!(offset_of!(Mdb, v_seq_num) == 0x44);
    assert!(offset_of!(Mdb, wr_cnt) == 0x46);
    assert!(offset_of!(Mdb, xt_clp_siz) == 0x4A);
    assert!(offset_of!(Mdb, ct_clp_siz) == 0x4E);
    assert!(offset_of!(Mdb, nm_rt_dirs) == 0x52);
    assert!(offset_of!(Mdb, fil_cnt) == 0x54);
    assert!(offset_of!(Mdb, dir_cnt) == 0x58);
    assert!(offset_of!(Mdb, fndr_info) == 0x5C);
    assert!(offset_of!(Mdb, vc_size) == 0x7C);
    assert!(offset_of!(Mdb, xt_fl_size) == 0x82);
    assert!(offset_of!(Mdb, xt_ext_rec) == 0x86);
    assert!(offset_of!(Mdb, ct_fl_size) == 0x92);
    assert!(offset_of!(Mdb, ct_ext_rec) == 0x96);
};

impl Mdb {
    pub fn zeroed() -> Self {
        <Self as zerocopy::FromZeros>::new_zeroed()
    }
    pub fn read(sector: &[u8]) -> Option<Self> {
        Self::read_from_prefix(sector).ok().map(|(m, _)| m)
    }
    /// The volume name bytes.
    pub fn name(&self) -> &[u8] {
        let n = (self.vn[0] as usize).min(27);
        &self.vn[1..1 + n]
    }
}

/// What went wrong with a volume operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HfsError {
    Device(DeviceError),
    /// The MDB signature is not 'BD' (an HFS Plus volume says 'H+').
    NotHfs {
        signature: u16,
    },
    /// An MDB field is impossible (the text says which).
    BadMdb(&'static str),
    /// The volume is outside the sizes formatted (see the module docs).
    VolumeSize {
        sectors: u64,
    },
    /// A name is empty, too long, or contains ':'.
    BadName(&'static str),
    /// Boot blocks were given without the 'LK' signature.
    BadBootBlocks,
    /// A B*-tree is damaged: which tree, which node, what.
    BadBTree {
        tree: &'static str,
        node: u32,
        what: &'static str,
    },
    /// A catalog record is damaged.
    BadRecord {
        what: &'static str,
        parent: u32,
    },
    /// A fork's extents are inconsistent (beyond the volume, shorter than its length...).
    BadFork {
        file: u32,
        what: &'static str,
    },
    /// No such file or folder.
    NotFound(String),
    /// A path component is a file, not a folder.
    NotAFolder(String),
    /// A file or folder of that name (compared as the Mac does) already exists.
    Exists(String),
    /// Not enough free allocation blocks.
    DiskFull {
        needed: u32,
        free: u32,
    },
    /// Enough free blocks but no contiguous run long enough (the formatter writes each fork
    /// in one extent).
    TooFragmented {
        needed: u32,
        largest_run: u32,
    },
    /// The catalog file has no room for the new records.
    CatalogFull {
        nodes_needed: u32,
        nodes: u32,
    },
    /// A fork is larger than HFS allows (2^31 − 1 bytes for data; 16 MiB is the Resource
    /// Manager's limit for resource forks but not enforced here).
    ForkTooLarge(u64),
    /// Catalog node IDs are exhausted.
    NoMoreCnids,
    /// The volume is locked (`drAtrb` bit 15 or 7).
    Locked,
}

impl fmt::Display for HfsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use HfsError::*;
        match self {
            Device(e) => write!(f, "{e}"),
            NotHfs { signature: 0x482B } => write!(f, "this is an HFS Plus volume ('H+'), not HFS"),
            NotHfs { signature } => write!(
                f,
                "no HFS volume here (MDB signature ${signature:04X}, not 'BD')"
            ),
            BadMdb(m) => write!(f, "damaged master directory block: {m}"),
            VolumeSize { sectors } => write!(
                f,
                "a volume of {sectors} sectors cannot be formatted: HFS here needs {MIN_VOLUME_SECTORS}..={MAX_VOLUME_SECTORS} sectors"
            ),
            BadName(m) => write!(f, "bad name: {m}"),
            BadBootBlocks => write!(f, "boot blocks must start with 'LK'"),
            BadBTree { tree, node, what } => {
                write!(f, "damaged {tree} B*-tree at node {node}: {what}")
            }
            BadRecord { what, parent } => {
                write!(f, "damaged catalog record (parent {parent}): {what}")
            }
            BadFork { file, what } => write!(f, "file {file}: {what}"),
            NotFound(p) => write!(f, "{p}: not found"),
            NotAFolder(p) => write!(f, "{p}: not a folder"),
            Exists(p) => write!(f, "{p}: already exists"),
            DiskFull { needed, free } => write!(
                f,
                "disk full: {needed} allocation blocks needed, {free} free"
            ),
            TooFragmented {
                needed,
                largest_run,
            } => write!(
                f,
                "too fragmented: {needed} contiguous allocation blocks needed, the largest free run is {largest_run}"
            ),
            CatalogFull {
                nodes_needed,
                nodes,
            } => {
                write!(
                    f,
                    "catalog full: {nodes_needed} nodes needed, the catalog file has {nodes}"
                )
            }
            ForkTooLarge(n) => write!(f, "a fork of {n} bytes is larger than HFS allows"),
            NoMoreCnids => write!(f, "no catalog node IDs left"),
            Locked => write!(f, "the volume is locked"),
        }
    }
}

impl core::error::Error for HfsError {}

impl From<DeviceError> for HfsError {
    fn from(e: DeviceError) -> Self {
        HfsError::Device(e)
    }
}

/// Check a file or folder name: 1..=31 bytes, no ':'.
pub fn check_name(name: &[u8]) -> Result<(), HfsError> {
    check_name_len(name, 31)
}

pub(crate) fn check_name_len(name: &[u8], max: usize) -> Result<(), HfsError> {
    if name.is_empty() {
        return Err(HfsError::BadName("empty"));
    }
    if name.len() > max {
        return Err(HfsError::BadName(if max == 27 {
            "volume names have at most 27 bytes"
        } else {
            "names have at most 31 bytes"
        }));
    }
    if name.contains(&b':') {
        return Err(HfsError::BadName(
            "':' separates path components and cannot be in a name",
        ));
    }
    Ok(())
}
