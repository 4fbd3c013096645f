//! Prime requests → SCSI transfers: position and length checks against the partition, and
//! the split into READ(10)/WRITE(10) commands.

use ferrite_shared::mac::err;
use ferrite_shared::scsi::MAX_BLOCKS_10;

/// Bytes per block (the driver serves 512-byte-block disks).
pub const BLOCK: u32 = 512;
/// log2 of [`BLOCK`].
pub const BLOCK_SHIFT: u32 = 9;
const _: () = assert!(1 << BLOCK_SHIFT == BLOCK);

/// A partition on the disk, in device blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Extent {
    pub start: u32,
    pub blocks: u32,
}

/// A checked transfer in absolute device blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    pub lba: u32,
    pub blocks: u32,
}

/// Check a request of `count` bytes at partition byte position `pos` against `extent`:
/// both must be whole blocks and the whole transfer must lie inside the partition. Nothing
/// outside the partition is ever addressed; violations are `paramErr`.
pub fn plan(extent: Extent, pos: u64, count: u32) -> Result<Transfer, i16> {
    // 32-bit arithmetic only (the 68000 has no 64-bit, nor 32-bit multiply or divide): the
    // position as two longs, blocks by shifts.
    let (hi, lo) = ((pos >> 32) as u32, pos as u32);
    if (lo | count) & (BLOCK - 1) != 0 {
        return Err(err::PARAM_ERR);
    }
    // A first block of 2^32 or more lies past any extent.
    if hi >= BLOCK {
        return Err(err::PARAM_ERR);
    }
    let first = hi << (32 - BLOCK_SHIFT) | lo >> BLOCK_SHIFT;
    let n = count >> BLOCK_SHIFT;
    if first > extent.blocks || n > extent.blocks - first {
        return Err(err::PARAM_ERR);
    }
    let lba = extent.start.checked_add(first).ok_or(err::PARAM_ERR)?;
    Ok(Transfer { lba, blocks: n })
}

/// Blocks in the next command of a transfer with `remaining` blocks, at most `cap` per
/// command (0 = no cap beyond READ(10)/WRITE(10)'s own).
pub fn next_chunk(remaining: u32, cap: u32) -> u32 {
    let max = if cap == 0 {
        MAX_BLOCKS_10
    } else {
        cap.min(MAX_BLOCKS_10)
    };
    remaining.min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Extent = Extent {
        start: 100,
        blocks: 50,
    };

    #[test]
    fn inside_the_partition() {
        assert_eq!(
            plan(P, 0, 512),
            Ok(Transfer {
                lba: 100,
                blocks: 1
            })
        );
        assert_eq!(
            plan(P, 49 * 512, 512),
            Ok(Transfer {
                lba: 149,
                blocks: 1
            })
        );
        assert_eq!(
            plan(P, 0, 50 * 512),
            Ok(Transfer {
                lba: 100,
                blocks: 50
            })
        );
        assert_eq!(
            plan(P, 50 * 512, 0),
            Ok(Transfer {
                lba: 150,
                blocks: 0
            })
        );
    }

    #[test]
    fn outside_or_unaligned_is_refused() {
        assert_eq!(plan(P, 50 * 512, 512), Err(err::PARAM_ERR));
        assert_eq!(plan(P, 0, 51 * 512), Err(err::PARAM_ERR));
        assert_eq!(plan(P, 1, 512), Err(err::PARAM_ERR));
        assert_eq!(plan(P, 0, 100), Err(err::PARAM_ERR));
        assert_eq!(plan(P, u64::MAX - 511, 512), Err(err::PARAM_ERR));
        let big = Extent {
            start: u32::MAX - 10,
            blocks: 20,
        };
        assert_eq!(plan(big, 15 * 512, 512), Err(err::PARAM_ERR));
    }

    #[test]
    fn wide_positions_past_4gb() {
        let e = Extent {
            start: 64,
            blocks: 12_000_000,
        }; // ~5.7 GB
        let pos = 10_000_000u64 * 512;
        assert_eq!(
            plan(e, pos, 1024),
            Ok(Transfer {
                lba: 10_000_064,
                blocks: 2
            })
        );
    }

    #[test]
    fn the_32_bit_plan_meets_the_64_bit_limits() {
        // The largest extent 32-bit block numbers allow.
        let all = Extent {
            start: 0,
            blocks: u32::MAX,
        };
        let last = (u32::MAX as u64 - 1) * 512;
        assert_eq!(
            plan(all, last, 512),
            Ok(Transfer {
                lba: u32::MAX - 1,
                blocks: 1
            })
        );
        // Block 2^32 (the position's high long reaching 512) and beyond: outside.
        assert_eq!(plan(all, 1u64 << 41, 0), Err(err::PARAM_ERR));
        assert_eq!(plan(all, (1u64 << 41) + 512, 512), Err(err::PARAM_ERR));
        assert_eq!(plan(all, !511, 512), Err(err::PARAM_ERR));
        // Alignment is checked on the low long.
        assert_eq!(plan(all, (1u64 << 32) + 256, 512), Err(err::PARAM_ERR));
        assert_eq!(
            plan(all, 1u64 << 32, 1024),
            Ok(Transfer {
                lba: 1 << 23,
                blocks: 2
            })
        );
    }

    #[test]
    fn chunks_stop_at_the_read10_limit() {
        assert_eq!(next_chunk(70_000, 0), 65_535);
        assert_eq!(next_chunk(3, 0), 3);
    }

    #[test]
    fn a_cap_splits_transfers() {
        assert_eq!(next_chunk(300, 128), 128);
        assert_eq!(next_chunk(128, 128), 128);
        assert_eq!(next_chunk(44, 128), 44);
        assert_eq!(next_chunk(70_000, 100_000), 65_535);
        assert_eq!(next_chunk(1, 1), 1);
    }
}
