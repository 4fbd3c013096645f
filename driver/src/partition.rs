//! Reading the partition map at install: which `Apple_HFS` partitions to add as drives.

use ferrite_shared::partition_map::{PM_SIGNATURE, PartitionEntry};

use crate::request::Extent;
use zerocopy::FromBytes;

/// Most drives (HFS partitions) one driver instance serves.
pub const MAX_DRIVES: usize = 8;
/// Most map entries scanned.
pub const MAX_MAP_ENTRIES: u32 = 256;

/// What one map block says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapBlock {
    /// Not a partition map entry: the map ends.
    End,
    /// An entry; `hfs` if it is an `Apple_HFS` partition (whose extent is given), and the
    /// map's entry count.
    Entry {
        hfs: Option<Extent>,
        map_entries: u32,
    },
}

/// Examine one 512-byte map block. An HFS partition that runs past `disk_blocks` (when
/// known, non-zero) is cut to the disk, never trusted beyond it.
pub fn examine(block: &[u8], disk_blocks: u32) -> MapBlock {
    // A reference into the block, not a copy: an entry is 512 bytes.
    let Ok((e, _)) = PartitionEntry::ref_from_prefix(block) else {
        return MapBlock::End;
    };
    if e.sig.get() != PM_SIGNATURE {
        return MapBlock::End;
    }
    let map_entries = e.map_block_count.get().min(MAX_MAP_ENTRIES);
    let hfs = if e.type_bytes() == b"Apple_HFS" {
        let start = e.start.get();
        let mut blocks = e.block_count.get();
        if disk_blocks != 0 {
            blocks = blocks.min(disk_blocks.saturating_sub(start));
        }
        (blocks > 0).then_some(Extent { start, blocks })
    } else {
        None
    };
    MapBlock::Entry { hfs, map_entries }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrite_shared::partition_map::set_c_field;
    use zerocopy::IntoBytes;

    fn entry(kind: &str, start: u32, len: u32, n: u32) -> PartitionEntry {
        let mut e = PartitionEntry::zeroed();
        e.sig.set(PM_SIGNATURE);
        e.map_block_count.set(n);
        e.start.set(start);
        e.block_count.set(len);
        set_c_field(&mut e.kind, kind);
        e
    }

    #[test]
    fn finds_hfs_and_clips_to_the_disk() {
        let e = entry("Apple_HFS", 96, 1000, 4);
        assert_eq!(
            examine(e.as_bytes(), 0),
            MapBlock::Entry {
                hfs: Some(Extent {
                    start: 96,
                    blocks: 1000
                }),
                map_entries: 4
            }
        );
        assert_eq!(
            examine(e.as_bytes(), 500),
            MapBlock::Entry {
                hfs: Some(Extent {
                    start: 96,
                    blocks: 404
                }),
                map_entries: 4
            }
        );
        let d = entry("Apple_Driver43", 64, 32, 4);
        assert_eq!(
            examine(d.as_bytes(), 0),
            MapBlock::Entry {
                hfs: None,
                map_entries: 4
            }
        );
        assert_eq!(examine(&[0u8; 512], 0), MapBlock::End);
        assert_eq!(examine(&[0x50, 0x4D], 0), MapBlock::End, "short block");
    }
}
