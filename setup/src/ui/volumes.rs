//! Which partitions of a disk the Mac is using: each map entry with the drive that serves it
//! and whether that drive's volume is mounted, the Partition window's rows in words, and why
//! the app refuses to change an entry.
//!
//! The app learns a drive's partition from its driver (DriverGestalt `'boot'`, which
//! Ferrite's driver answers per drive with the map entry: `docs/mac-facts.md` §2, §4.2), and a
//! drive's volume from the VCB queue (`vcbDrvNum`). A drive whose driver does not say which
//! partition it serves makes every HFS entry of the disk "may be mounted" (the safe side).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::bus::format_size;
use crate::ops::PartitionRow;

/// One drive of the disk, as the Mac has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskDrive {
    pub drive: i16,
    /// The map entry it serves (`None`: its driver does not say).
    pub partition: Option<u32>,
    /// The mounted volume's name, if its volume is mounted.
    pub mounted: Option<String>,
}

/// What the Mac does with a map entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Usage {
    /// No drive serves it.
    Unused,
    /// A drive serves it; its volume is not mounted.
    Drive { drive: i16 },
    /// Its volume is mounted.
    Mounted { drive: i16, volume: String },
    /// The disk's driver does not say which partitions its drives serve.
    Unknown { drive: i16 },
}

/// One row of the Partition window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapRow {
    pub part: PartitionRow,
    pub usage: Usage,
}

/// The rows of a disk's map with the drives the Mac has for it.
pub fn rows(parts: &[PartitionRow], drives: &[DiskDrive]) -> Vec<MapRow> {
    parts
        .iter()
        .map(|p| {
            let usage = match drives.iter().find(|d| d.partition == Some(p.index)) {
                Some(DiskDrive {
                    drive,
                    mounted: Some(volume),
                    ..
                }) => Usage::Mounted {
                    drive: *drive,
                    volume: volume.clone(),
                },
                Some(d) => Usage::Drive { drive: d.drive },
                None => match drives.iter().find(|d| d.partition.is_none()) {
                    Some(d) if p.hfs => Usage::Unknown { drive: d.drive },
                    _ => Usage::Unused,
                },
            };
            MapRow {
                part: p.clone(),
                usage,
            }
        })
        .collect()
}

impl MapRow {
    /// "3  Apple_HFS  System  at 96  10.0 MB  mounted" (what the Partition window lists).
    pub fn text(&self) -> String {
        let p = &self.part;
        let mut s = String::new();
        let name = if p.name.is_empty() { "—" } else { &p.name };
        let _ = write!(s, "{}  {}  {}  at {}  ", p.index, p.kind, name, p.start);
        s.push_str(&format_size(p.blocks * 512));
        match &self.usage {
            Usage::Unused if p.hfs => s.push_str("  not mounted"),
            Usage::Unused => {}
            Usage::Drive { drive } => {
                let _ = write!(s, "  not mounted (drive {drive})");
            }
            Usage::Mounted { drive, .. } => {
                let _ = write!(s, "  mounted (drive {drive})");
            }
            Usage::Unknown { .. } => s.push_str("  may be mounted"),
        }
        s
    }

    /// The entry as a confirmation names it: "“Data” (entry 5, Apple_HFS, 14.0 MB)".
    pub fn name(&self) -> String {
        let p = &self.part;
        let mut s = String::new();
        let _ = write!(
            s,
            "\u{201C}{}\u{201D} (entry {}, {}, ",
            p.name, p.index, p.kind
        );
        s.push_str(&format_size(p.blocks * 512));
        s.push(')');
        s
    }

    /// Why `command` must not change this entry, or `None`.
    pub fn refusal(&self, command: &str) -> Option<String> {
        let mut s = String::new();
        match &self.usage {
            Usage::Mounted { drive, volume } => {
                let _ = write!(
                    s,
                    "{command} refused: {} is mounted as the volume \u{201C}{volume}\u{201D} (drive {drive}). Put it away (drag it to the Trash), then try again.",
                    self.name()
                );
            }
            Usage::Unknown { drive } => {
                let _ = write!(
                    s,
                    "{command} refused: {} may be mounted: the disk's driver (drive {drive}) does not say which partitions it serves. Put its volumes away and restart without that driver, then try again.",
                    self.name()
                );
            }
            _ => return None,
        }
        Some(s)
    }
}

/// What `PBMountVol`'s result means, in words.
pub fn mount_error(r: i16) -> String {
    let s = match r {
        -55 => "the volume is already mounted (volOnLinErr)",
        -56 => "the drive is not in the drive queue (nsDrvErr)",
        -57 => "the partition holds no HFS volume (noMacDskErr): initialize it or delete it",
        -60 => "the volume's directory is damaged (badMDBErr): repair it with Disk First Aid",
        -108 => "not enough memory to mount it (memFullErr): quit other applications",
        r => match crate::words::result_code(r) {
            Some(w) => w,
            None => {
                let mut s = String::new();
                let _ = write!(s, "the File Manager answered error {r}");
                return s;
            }
        },
    };
    String::from(s)
}

/// The refusal for every change on the startup disk.
pub fn startup_refusal(id: u8, drive: i16, command: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "{command} refused: ID {id} is the startup disk (drive {drive}); its map is never changed while the Mac runs from it. Start up from another disk to change it."
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn part(index: u32, kind: &str, name: &str, start: u64, blocks: u64) -> PartitionRow {
        PartitionRow {
            index,
            kind: kind.into(),
            name: name.into(),
            start,
            blocks,
            hfs: kind == "Apple_HFS",
        }
    }

    fn map() -> Vec<PartitionRow> {
        vec![
            part(1, "Apple_partition_map", "Apple", 1, 63),
            part(2, "Apple_Driver43", "Macintosh", 64, 64),
            part(3, "Apple_HFS", "System", 128, 20480),
            part(4, "Apple_HFS", "Data", 20608, 28544),
        ]
    }

    #[test]
    fn usage_from_drives_and_volumes() {
        let r = rows(
            &map(),
            &[
                DiskDrive {
                    drive: 8,
                    partition: Some(3),
                    mounted: Some("System".into()),
                },
                DiskDrive {
                    drive: 9,
                    partition: Some(4),
                    mounted: None,
                },
            ],
        );
        assert_eq!(r[0].usage, Usage::Unused);
        assert_eq!(
            r[2].usage,
            Usage::Mounted {
                drive: 8,
                volume: "System".into()
            }
        );
        assert_eq!(r[3].usage, Usage::Drive { drive: 9 });
        assert_eq!(r[1].text(), "2  Apple_Driver43  Macintosh  at 64  32.0 KB");
        assert_eq!(
            r[2].text(),
            "3  Apple_HFS  System  at 128  10.0 MB  mounted (drive 8)"
        );
        assert_eq!(
            r[3].text(),
            "4  Apple_HFS  Data  at 20608  13.9 MB  not mounted (drive 9)"
        );
        assert_eq!(
            r[2].refusal("Delete").unwrap(),
            "Delete refused: \u{201C}System\u{201D} (entry 3, Apple_HFS, 10.0 MB) is mounted as the volume \u{201C}System\u{201D} (drive 8). Put it away (drag it to the Trash), then try again."
        );
        assert_eq!(r[3].refusal("Delete"), None);
        assert!(rows(&map(), &[])[2].text().ends_with("not mounted"));
    }

    #[test]
    fn a_driver_that_does_not_say_makes_every_volume_unknown() {
        let r = rows(
            &map(),
            &[DiskDrive {
                drive: 8,
                partition: None,
                mounted: None,
            }],
        );
        assert_eq!(r[1].usage, Usage::Unused);
        assert_eq!(r[2].usage, Usage::Unknown { drive: 8 });
        assert!(r[3].refusal("Rename").unwrap().contains("may be mounted"));
        assert_eq!(
            startup_refusal(0, 8, "Add"),
            "Add refused: ID 0 is the startup disk (drive 8); its map is never changed while the Mac runs from it. Start up from another disk to change it."
        );
        assert_eq!(
            r[2].name(),
            "“System” (entry 3, Apple_HFS, 10.0 MB)".to_string()
        );
    }
}
