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

/// What one of the Partition window's lines shows, when its map has more entries than the
/// window has lines: a page of entries, with a line that leads to the earlier ones and one
/// that leads to the rest (a click on either turns the page; `ui::partition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListLine {
    /// Entry `i` of the map's rows.
    Entry(usize),
    /// `n` entries before this page; a click shows them.
    Earlier(usize),
    /// `n` entries after this page; a click shows them.
    More(usize),
    /// Nothing (the list is shorter than the window).
    Empty,
}

/// The window's `lines` lines for a map of `n` entries whose page starts at entry `top`
/// (clamped: a page always shows at least one entry).
pub fn list_lines(n: usize, top: usize, lines: usize) -> Vec<ListLine> {
    let mut out = Vec::new();
    if n <= lines {
        out.extend((0..n).map(ListLine::Entry));
    } else {
        let top = top.min(n - 1);
        if top > 0 {
            out.push(ListLine::Earlier(top));
        }
        let room = lines - out.len();
        if n - top <= room {
            out.extend((top..n).map(ListLine::Entry));
        } else {
            let last = top + room - 1;
            out.extend((top..last).map(ListLine::Entry));
            out.push(ListLine::More(n - last));
        }
    }
    out.resize(lines, ListLine::Empty);
    out
}

/// The first entry of the page a click on `line` turns to (`None`: the line does not turn
/// the page). Back goes as far as a page of `lines` shows after its "earlier" line.
pub fn page_turn(n: usize, lines: usize, line: ListLine) -> Option<usize> {
    match line {
        ListLine::More(k) => Some(n - k),
        ListLine::Earlier(k) => {
            let back = k.saturating_sub(lines - 2);
            // One earlier entry would be alone behind its own line: go to the start.
            Some(if back <= 1 { 0 } else { back })
        }
        _ => None,
    }
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

    #[test]
    fn long_maps_are_shown_in_pages_and_every_entry_is_reachable() {
        use ListLine::*;
        // Short maps: every entry, then empty lines.
        assert_eq!(
            list_lines(3, 0, 5),
            [Entry(0), Entry(1), Entry(2), Empty, Empty]
        );
        assert_eq!(list_lines(10, 7, 10)[9], Entry(9));
        // 14 entries in 10 lines: 9, then the last 5 after an "earlier" line.
        let first = list_lines(14, 0, 10);
        assert_eq!(first[..9], (0..9).map(Entry).collect::<Vec<_>>()[..]);
        assert_eq!(first[9], More(5));
        let top = page_turn(14, 10, More(5)).unwrap();
        assert_eq!(top, 9);
        let second = list_lines(14, top, 10);
        assert_eq!(second[0], Earlier(9));
        assert_eq!(second[1..6], (9..14).map(Entry).collect::<Vec<_>>()[..]);
        assert_eq!(second[6..], [Empty; 4]);
        assert_eq!(page_turn(14, 10, Earlier(9)), Some(0));
        // Every entry of a long map is on some page reached by turning pages forward, and
        // turning back from the last page reaches the first.
        for n in [11, 14, 30, 100] {
            let mut seen = vec![false; n];
            let mut top = 0;
            let mut pages = 0;
            loop {
                let l = list_lines(n, top, 10);
                for x in &l {
                    if let Entry(i) = x {
                        seen[*i] = true;
                    }
                }
                pages += 1;
                match l.iter().find(|x| matches!(x, More(_))) {
                    Some(&m) => top = page_turn(n, 10, m).unwrap(),
                    None => break,
                }
                assert!(pages < n, "no progress");
            }
            assert!(seen.iter().all(|&b| b), "{n}");
            while let Some(&e) = list_lines(n, top, 10)
                .iter()
                .find(|x| matches!(x, Earlier(_)))
            {
                top = page_turn(n, 10, e).unwrap();
            }
            assert_eq!(top, 0);
        }
    }
}
