//! Miscompiles met in Ferrite's own code, reduced to the expression that went wrong.

use super::case;
use super::util::*;
use crate::{Case, Out};
use alloc::string::String;
use alloc::vec::Vec;

/// The HFS formatter's catalog node count: a u64 product divided, saturated with
/// `u64::min` and truncated to u32 (formatter/src/hfs/format.rs before the work-around).
#[inline(never)]
fn nodes_by_min(tree_blocks: u32, block_size: u32) -> u32 {
    let tree_len = tree_blocks as u64 * block_size as u64;
    (tree_len / 512u64).min(u32::MAX as u64) as u32
}

/// The same saturation spelled with `try_from` (what the formatter uses now).
#[inline(never)]
fn nodes_by_try_from(tree_blocks: u32, block_size: u32) -> u32 {
    let tree_len = tree_blocks as u64 * block_size as u64;
    u32::try_from(tree_len / 512u64).unwrap_or(u32::MAX)
}

fn inputs() -> [(u32, u32); 8] {
    bb([
        (0, 512),
        (1, 512),
        (6, 1024),
        (12, 1536),
        (97, 3072),
        (0xFFFF, 0x7E00),
        (0xFFFF_FFFF, 0x200),
        (0xFFFF_FFFF, 0xFFFF_FE00),
    ])
}

fn u64_min_then_truncate(o: &mut Out) {
    for (t, b) in inputs() {
        o.u32(nodes_by_min(bb(t), bb(b)));
    }
}

fn u64_try_from_saturate(o: &mut Out) {
    for (t, b) in inputs() {
        o.u32(nodes_by_try_from(bb(t), bb(b)));
    }
}

/// A partition map row as Ferrite Setup's `ops::partitions` returns it.
struct Row {
    kind: String,
    start: u64,
    blocks: u64,
}

/// Ferrite Setup's Benchmark… scratch region (setup/src/ui/bench.rs before the work-around):
/// the rows narrowed to u32 with `try_from(..).unwrap_or(..)` in a closure, then the
/// largest free one. On the 68k the start came out as u32::MAX for 16,480.
#[inline(never)]
fn scratch_by_try_from(rows: &[Row]) -> Option<(u32, u32)> {
    let free = rows.iter().map(|r| {
        (
            r.kind == "Apple_Free",
            u32::try_from(r.start).unwrap_or(u32::MAX),
            u32::try_from(r.blocks).unwrap_or(0),
        )
    });
    let mut best: Option<(u32, u32)> = None;
    for (is_free, start, blocks) in free {
        if is_free && blocks >= 1536 && best.is_none_or(|(_, b)| blocks > b) {
            best = Some((start, blocks));
        }
    }
    best
}

fn rows_try_from_in_closure(o: &mut Out) {
    let rows: Vec<Row> = bb([
        ("Apple_partition_map", 1u64, 63u64),
        ("Apple_Driver43", 64, 32),
        ("Apple_HFS", 96, 16_384),
        ("Apple_Free", 16_480, 24_480),
    ])
    .into_iter()
    .map(|(k, s, b)| Row {
        kind: String::from(k),
        start: s,
        blocks: b,
    })
    .collect();
    let r = scratch_by_try_from(&rows);
    o.bool(r.is_some());
    let (s, b) = r.unwrap_or((0, 0));
    o.u32(s);
    o.u32(b);
}

pub const CASES: &[Case] = &[
    case!(u64_min_then_truncate),
    case!(u64_try_from_saturate),
    case!(rows_try_from_in_closure),
];
