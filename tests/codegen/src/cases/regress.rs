//! Miscompiles met in Ferrite's own code, reduced to the expression that went wrong.

use super::case;
use super::util::*;
use crate::{Case, Out};

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

pub const CASES: &[Case] = &[case!(u64_min_then_truncate), case!(u64_try_from_saturate)];
