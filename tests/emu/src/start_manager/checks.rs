//! The checks a 68k ROM applies to a disk before it loads the disk's driver
//! (`docs/mac-facts.md` §1.7, §2.2, §2.3), as a pure function of the disk's blocks.
//!
//! Every rule docs/mac-facts.md marks UNCONFIRMED is a field of [`RomChecks`], so a test can turn
//! it off or on and see what a driver or formatter depends on.

use ferrite_shared::partition_map::{
    DDM_SIGNATURE, DriverDescriptorMap, PM_SIGNATURE, PartitionEntry, boot_checksum,
};

/// Which ROM generation is modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RomGeneration {
    /// Original SCSI Manager in ROM (Mac II, SE/30, Quadra 800 class): driver entered at +0
    /// with D5 = SCSI ID.
    OriginalScsiManager,
    /// SCSI Manager 4.3 in ROM (Quadra 840AV class): `Apple_Driver43` drivers entered at +8
    /// with D5 = DeviceIdent; other drivers at +0 with D5 = SCSI ID.
    ScsiManager43,
    /// The commonest real Quadra (700/800/900/950, 610/650, Centris; 68040): the original SCSI
    /// Manager in ROM boots the drivers through +0 (D5 = SCSI ID) as
    /// [`RomGeneration::OriginalScsiManager`] does, then SCSI Manager 4.3 arrives with System
    /// 7.5's extension later in the boot (TIL 17019; see
    /// [`super::boot::ExtensionArrival`] and [`crate::scsi_manager::arrive_v43`]).
    Quadra,
}

/// The ROM's disk checks; defaults follow the recommendation in docs/mac-facts.md of what to assume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RomChecks {
    /// OS type from XPRAM $77 that `ddType` must match (normally 1). UNCONFIRMED rule.
    pub os_type: u16,
    /// Require an `Apple_HFS` entry in the map (IM Devices says so for pre-4.3 ROMs; for 4.3
    /// ROMs UNCONFIRMED — on by default for both).
    pub require_hfs: bool,
    /// Require the driver's map entry to start at `ddBlock` (UNCONFIRMED; on).
    pub require_start_matches_dd_block: bool,
    /// Sum only `pmBootSize & $FFFF` bytes, as DV 12's DBRA loop does (INFERRED; on).
    pub checksum_word_count: bool,
    /// Compare only the low 16 bits of `pmBootCksum` (UNCONFIRMED; off: compare the long with
    /// the zero-extended sum, which a correct formatter satisfies either way).
    pub checksum_low_word_only: bool,
    /// Bytes loaded: `ddSize × sbBlkSize` (UNCONFIRMED) rather than `pmBootSize`.
    pub load_dd_size_blocks: bool,
}

impl Default for RomChecks {
    fn default() -> Self {
        RomChecks {
            os_type: 1,
            require_hfs: true,
            require_start_matches_dd_block: true,
            checksum_word_count: true,
            checksum_low_word_only: false,
            load_dd_size_blocks: true,
        }
    }
}

/// Where the driver's entry point is and what D5 holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverEntry {
    /// Offset 0, D5 = SCSI ID.
    Original,
    /// Offset 8, D5 = DeviceIdent (4.3 ROM, `Apple_Driver43`).
    Scsi43,
}

impl DriverEntry {
    /// Byte offset of the entry in the loaded image.
    pub fn offset(self) -> u32 {
        match self {
            DriverEntry::Original => 0,
            DriverEntry::Scsi43 => 8,
        }
    }
}

/// A driver the ROM would load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverChoice {
    /// Index of the map entry (1-based block number).
    pub map_block: u32,
    /// First block of the driver.
    pub block: u32,
    /// Bytes the ROM reads.
    pub load_bytes: u32,
    /// `pmBootSize`.
    pub boot_size: u32,
    /// Entry point convention.
    pub entry: DriverEntry,
    /// `pmPartName`, `pmParType`.
    pub name: String,
    pub kind: String,
    /// Whether the checksum was checked (name starts with "Maci").
    pub checksum_checked: bool,
}

/// Why a disk is skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    ReadFailed(String),
    NotFormatted { sig: u16 },
    NoDriverForOsType { os_type: u16 },
    NoPartitionMap { sig: u16 },
    NoDriverEntry,
    NoHfsPartition,
    ChecksumMismatch { stored: u32, computed: u16 },
    BadDriverExtent(String),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::ReadFailed(e) => write!(f, "reading the disk failed: {e}"),
            SkipReason::NotFormatted { sig } => {
                write!(f, "block 0 signature ${sig:04X} is not 'ER'")
            }
            SkipReason::NoDriverForOsType { os_type } => {
                write!(f, "no driver descriptor with ddType {os_type}")
            }
            SkipReason::NoPartitionMap { sig } => {
                write!(f, "block 1 signature ${sig:04X} is not 'PM'")
            }
            SkipReason::NoDriverEntry => {
                write!(
                    f,
                    "no Apple_Driver… map entry matches the driver descriptor"
                )
            }
            SkipReason::NoHfsPartition => write!(f, "no Apple_HFS partition"),
            SkipReason::ChecksumMismatch { stored, computed } => write!(
                f,
                "driver checksum ${computed:04X} does not match pmBootCksum ${stored:08X}"
            ),
            SkipReason::BadDriverExtent(e) => write!(f, "driver extent: {e}"),
        }
    }
}

/// The verdict on one disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Load this driver (its bytes are in `image`).
    Load {
        driver: DriverChoice,
        image: Vec<u8>,
    },
    /// Old 'TS' or unknown map: the driver is called without partition checks (UNCONFIRMED);
    /// the model refuses to guess and reports it.
    Skip(SkipReason),
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

/// Apply the ROM's checks to a disk whose blocks `read(lba, count)` returns (512-byte
/// device blocks assumed by the map; `sbBlkSize` is honoured for the load length).
pub fn examine_disk(
    rom: RomGeneration,
    checks: &RomChecks,
    read: &mut dyn FnMut(u32, u32) -> Result<Vec<u8>, String>,
) -> Verdict {
    let skip = Verdict::Skip;
    let b0 = match read(0, 1) {
        Ok(b) => b,
        Err(e) => return skip(SkipReason::ReadFailed(e)),
    };
    let Some(ddm) = DriverDescriptorMap::read(&b0) else {
        return skip(SkipReason::ReadFailed("short block 0".into()));
    };
    if ddm.sig.get() != DDM_SIGNATURE {
        return skip(SkipReason::NotFormatted { sig: ddm.sig.get() });
    }
    let Some(dd) = ddm
        .descriptors()
        .iter()
        .find(|d| d.kind.get() == checks.os_type)
        .copied()
    else {
        return skip(SkipReason::NoDriverForOsType {
            os_type: checks.os_type,
        });
    };
    let b1 = match read(1, 1) {
        Ok(b) => b,
        Err(e) => return skip(SkipReason::ReadFailed(e)),
    };
    let sig = be16(&b1);
    if sig != PM_SIGNATURE {
        // 'TS' maps (old format): UNCONFIRMED behaviour (driver called without checks); not
        // modelled, reported as no map.
        return skip(SkipReason::NoPartitionMap { sig });
    }
    let first = PartitionEntry::read(&b1).expect("a block holds an entry");
    let count = first.map_block_count.get().clamp(1, 256);
    let mut entries = vec![(1u32, first)];
    for blk in 2..=count {
        match read(blk, 1) {
            Ok(b) if be16(&b) == PM_SIGNATURE => {
                entries.push((blk, PartitionEntry::read(&b).unwrap()));
            }
            Ok(_) => break,
            Err(e) => return skip(SkipReason::ReadFailed(e)),
        }
    }
    if checks.require_hfs && !entries.iter().any(|(_, e)| e.type_bytes() == b"Apple_HFS") {
        return skip(SkipReason::NoHfsPartition);
    }
    let dd_block = dd.block.get();
    let Some((map_block, entry)) = entries.iter().find(|(_, e)| {
        e.type_bytes().starts_with(b"Apple_Driver")
            && (!checks.require_start_matches_dd_block || e.start.get() == dd_block)
    }) else {
        return skip(SkipReason::NoDriverEntry);
    };
    let boot_size = entry.boot_size.get();
    let block_size = (ddm.block_size.get() as u32).max(512);
    let load_bytes = if checks.load_dd_size_blocks {
        dd.size.get() as u32 * block_size
    } else {
        boot_size
    };
    if load_bytes == 0 || load_bytes > 1 << 20 {
        return skip(SkipReason::BadDriverExtent(format!("{load_bytes} bytes")));
    }
    let blocks = load_bytes.div_ceil(512);
    let mut image = match read(dd_block, blocks) {
        Ok(b) => b,
        Err(e) => return skip(SkipReason::ReadFailed(e)),
    };
    image.truncate(load_bytes as usize);
    let checksum_checked = entry.name_bytes().starts_with(b"Maci");
    if checksum_checked {
        let n = if checks.checksum_word_count {
            boot_size & 0xFFFF
        } else {
            boot_size
        };
        if n as usize > image.len() {
            return skip(SkipReason::BadDriverExtent(format!(
                "pmBootSize {boot_size} exceeds the {load_bytes} bytes loaded"
            )));
        }
        let computed = boot_checksum(&image[..n as usize]);
        let stored = entry.boot_checksum.get();
        let ok = if checks.checksum_low_word_only {
            stored as u16 == computed
        } else {
            stored == computed as u32
        };
        if !ok {
            return skip(SkipReason::ChecksumMismatch { stored, computed });
        }
    }
    let kind = String::from_utf8_lossy(entry.type_bytes()).into_owned();
    let entry_kind = match rom {
        RomGeneration::ScsiManager43 if kind.starts_with("Apple_Driver43") => DriverEntry::Scsi43,
        _ => DriverEntry::Original,
    };
    Verdict::Load {
        driver: DriverChoice {
            map_block: *map_block,
            block: dd_block,
            load_bytes,
            boot_size,
            entry: entry_kind,
            name: String::from_utf8_lossy(entry.name_bytes()).into_owned(),
            kind,
            checksum_checked,
        },
        image,
    }
}
