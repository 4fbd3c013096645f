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

// The all-ones select (docs/codegen-conformance.md): `select (x == 0), -1, y` and its three
// other polarities, for 8, 16 and 32 bits, lowered as `cmp #1,x ; subx` (CMP leaves X alone,
// SUBX reads it). The cases below pin down which source forms reach it (the `u64` ones with an
// all-ones half, a select on a bit test) and which do not (`i64` bounds, variables, `u64::MAX`).
// Every probe is `#[inline(never)]` and called with X left by the caller's last arithmetic,
// which varies from input to input.

/// 64-bit values around the 32-bit boundaries.
fn wide_inputs() -> [u64; 12] {
    bb([
        0,
        1,
        999,
        0x7FFF_FFFF,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
        0x1_0000_0000,
        0x1_0000_0001,
        0x2_0000_0005,
        0x8000_0000_0000_0000,
        0xFFFF_FFFF_0000_0000,
        u64::MAX,
    ])
}

/// Call `f(x, y)` for every pair of `wide_inputs`, with an addition before each call whose carry
/// (X) alternates, and write every result.
fn each_pair<T: Emit>(o: &mut Out, f: fn(u64, u64) -> T) {
    let xs = wide_inputs();
    let mut carry = 0u64;
    for (i, &x) in xs.iter().enumerate() {
        for &y in xs.iter().skip(i % 3).step_by(3) {
            carry = bb(bb(carry).wrapping_add(bb(0x9E37_79B9_7F4A_7C15)));
            f(bb(x), bb(y)).emit(o);
        }
    }
}

#[inline(never)]
fn u64_min_u32_max(x: u64, _: u64) -> u64 {
    x.min(u32::MAX as u64)
}
#[inline(never)]
fn u64_max_u32_max(x: u64, _: u64) -> u64 {
    x.max(u32::MAX as u64)
}
#[inline(never)]
fn u64_clamp_u32(x: u64, _: u64) -> u64 {
    x.clamp(16, u32::MAX as u64)
}
#[inline(never)]
fn u64_min_33_bits(x: u64, _: u64) -> u64 {
    x.min(0x1_FFFF_FFFF)
}
#[inline(never)]
fn u64_max_high_ones(x: u64, _: u64) -> u64 {
    x.max(0xFFFF_FFFF_0000_0000)
}
#[inline(never)]
fn u64_min_small(x: u64, _: u64) -> u64 {
    x.min(1000)
}
#[inline(never)]
fn u64_high_zero_or_max(x: u64, _: u64) -> u64 {
    if x >> 32 == 0 { x } else { u32::MAX as u64 }
}

/// `u64` min, max and clamp against constants with an all-ones 32-bit half, not truncated.
fn u64_minmax_const_halves(o: &mut Out) {
    each_pair(o, u64_min_u32_max);
    each_pair(o, u64_max_u32_max);
    each_pair(o, u64_clamp_u32);
    each_pair(o, u64_min_33_bits);
    each_pair(o, u64_max_high_ones);
    each_pair(o, u64_min_small);
    each_pair(o, u64_high_zero_or_max);
}

#[inline(never)]
fn u64_min_var(x: u64, y: u64) -> u64 {
    x.min(y)
}
#[inline(never)]
fn u64_max_var(x: u64, y: u64) -> u64 {
    x.max(y)
}
#[inline(never)]
fn u64_clamp_var(x: u64, y: u64) -> u64 {
    let (lo, hi) = if y < 0x1_0000_0000 {
        (y, 0x1_0000_0000)
    } else {
        (0x1_0000_0000, y)
    };
    x.clamp(lo, hi)
}
#[inline(never)]
fn u64_min_var_truncate(x: u64, y: u64) -> u32 {
    x.min(y | 0xFFFF_FFFF) as u32
}

/// `u64` min, max and clamp of two variables (truncated too).
fn u64_minmax_variables(o: &mut Out) {
    each_pair(o, u64_min_var);
    each_pair(o, u64_max_var);
    each_pair(o, u64_clamp_var);
    each_pair(o, u64_min_var_truncate);
}

#[inline(never)]
fn i64_min_i32_max(x: u64, _: u64) -> i64 {
    (x as i64).min(i32::MAX as i64)
}
#[inline(never)]
fn i64_max_minus_one(x: u64, _: u64) -> i64 {
    (x as i64).max(-1)
}
#[inline(never)]
fn i64_min_minus_one(x: u64, _: u64) -> i64 {
    (x as i64).min(-1)
}
#[inline(never)]
fn i64_clamp_i32(x: u64, _: u64) -> i32 {
    (x as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32
}
#[inline(never)]
fn i64_max_u32_max(x: u64, _: u64) -> i64 {
    (x as i64).max(u32::MAX as i64)
}
#[inline(never)]
fn i64_min_var(x: u64, y: u64) -> i64 {
    (x as i64).min(y as i64)
}

/// The signed `i64` forms: bounds of `i32`, -1, `u32::MAX`, a variable.
fn i64_minmax_clamp(o: &mut Out) {
    each_pair(o, i64_min_i32_max);
    each_pair(o, i64_max_minus_one);
    each_pair(o, i64_min_minus_one);
    each_pair(o, i64_clamp_i32);
    each_pair(o, i64_max_u32_max);
    each_pair(o, i64_min_var);
}

#[inline(never)]
fn u32_zero_then_max(x: u64, y: u64) -> u32 {
    if x as u32 == 0 { u32::MAX } else { y as u32 }
}
#[inline(never)]
fn u32_nonzero_else_max(x: u64, y: u64) -> u32 {
    if x as u32 != 0 { y as u32 } else { u32::MAX }
}
#[inline(never)]
fn u32_nonzero_then_max(x: u64, y: u64) -> u32 {
    if x as u32 != 0 { u32::MAX } else { y as u32 }
}
#[inline(never)]
fn u16_zero_then_max(x: u64, y: u64) -> u16 {
    if x as u16 == 0 { u16::MAX } else { y as u16 }
}
#[inline(never)]
fn u8_zero_then_max(x: u64, y: u64) -> u8 {
    if x as u8 == 0 { u8::MAX } else { y as u8 }
}
#[inline(never)]
fn u32_below_one_then_max(x: u64, y: u64) -> u32 {
    if (x as u32) < 1 { u32::MAX } else { y as u32 }
}
#[inline(never)]
fn u32_bit_else_max(x: u64, y: u64) -> u32 {
    if y & 1 == 1 { x as u32 } else { u32::MAX }
}
#[inline(never)]
fn u64_bit_zero_else_i64_max(_: u64, y: u64) -> u64 {
    if y & 1 == 1 { 0 } else { i64::MAX as u64 }
}
#[inline(never)]
fn u32_zero_mask(x: u64, y: u64) -> u32 {
    (-((x as u32 == 0) as i32) as u32) | y as u32
}
#[inline(never)]
fn u64_zero_then_u64_max(x: u64, y: u64) -> u64 {
    if x == 0 { u64::MAX } else { y }
}

/// `select` of all ones against a value, on `== 0`, `!= 0`, `< 1` and a bit test, for 8, 16,
/// 32 and 64 bits.
fn all_ones_select(o: &mut Out) {
    each_pair(o, u32_zero_then_max);
    each_pair(o, u32_nonzero_else_max);
    each_pair(o, u32_nonzero_then_max);
    each_pair(o, u16_zero_then_max);
    each_pair(o, u8_zero_then_max);
    each_pair(o, u32_below_one_then_max);
    each_pair(o, u32_bit_else_max);
    each_pair(o, u64_bit_zero_else_i64_max);
    each_pair(o, u32_zero_mask);
    each_pair(o, u64_zero_then_u64_max);
}

#[inline(never)]
fn u64_saturating_add(x: u64, y: u64) -> u64 {
    x.saturating_add(y)
}
#[inline(never)]
fn u64_saturating_mul(x: u64, y: u64) -> u64 {
    (x >> 16).saturating_mul(y >> 16)
}
#[inline(never)]
fn u64_try_from_or_max(x: u64, _: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}
#[inline(never)]
fn u32_checked_sub_or_max(x: u64, y: u64) -> u32 {
    (x as u32).checked_sub(y as u32).unwrap_or(u32::MAX)
}

/// Other saturating spellings that produce all ones.
fn saturating_all_ones(o: &mut Out) {
    each_pair(o, u64_saturating_add);
    each_pair(o, u64_saturating_mul);
    each_pair(o, u64_try_from_or_max);
    each_pair(o, u32_checked_sub_or_max);
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

// A 64-bit rotation by a variable amount of a value with an all-ones 32-bit half (seed 2
// program 115 of the random run: `(v5 as u64).rotate_right(..)` with `v5 == -41i8`). The type
// legalizer picks each half of the result with a `select` on bit 5 of the amount, which becomes
// the all-ones select when a half is known to be all ones (docs/codegen-conformance.md).

#[inline(never)]
fn u64_rotr_of_constant(_: u64, y: u64) -> u64 {
    (-41i64 as u64).rotate_right(y as u32)
}
#[inline(never)]
fn u64_rotl_of_constant(_: u64, y: u64) -> u64 {
    0x0000_0005_FFFF_FFFFu64.rotate_left(y as u32)
}
#[inline(never)]
fn u64_rotr_of_high_ones(x: u64, y: u64) -> u64 {
    (x | 0xFFFF_FFFF_0000_0000).rotate_right(y as u32)
}
#[inline(never)]
fn u64_rotl_of_widened_u32(x: u64, y: u64) -> u64 {
    (x as u32 as u64 | 0xFFFF_FFFF_0000_0000).rotate_left(y as u32 & 63)
}
#[inline(never)]
fn u64_rotr_of_constant_by_byte(x: u64, y: u64) -> u64 {
    (-41i64 as u64).rotate_right(y as u8 as u32) ^ x
}

fn u64_rotate_all_ones_half(o: &mut Out) {
    each_pair(o, u64_rotr_of_constant);
    each_pair(o, u64_rotl_of_constant);
    each_pair(o, u64_rotr_of_high_ones);
    each_pair(o, u64_rotl_of_widened_u32);
    each_pair(o, u64_rotr_of_constant_by_byte);
}

// A branch or select on one bit of a value shifted by a constant (`(x >> 10) & 1 == 1`): the
// backend selected the immediate bit test with the bit number in a register (`moveq #10,%d0 ;
// btst #0,%d1`, testing bit 0), and its assembly printer crashed on it, so such code could not
// be built (seed 1 programs 4, 37 and 92 of the random run; docs/codegen-conformance.md, the
// bit-test rewrite). Each function below stopped the build before the rewrite.

#[inline(never)]
fn bit10_and_low(x: u64, y: u64) -> u32 {
    if (x as u32 >> 10) & 1 == 1 && y & 1 == 1 {
        7
    } else {
        9
    }
}
#[inline(never)]
fn bit_of_i16(x: u64, y: u64) -> u32 {
    let v = x as i16 >> 13;
    if v & 1 == 1 { y as u32 } else { 3 }
}
#[inline(never)]
fn bit_of_byte(x: u64, _: u64) -> bool {
    (x as u8 >> 3) & 1 != 0
}
#[inline(never)]
fn bit_of_u64_low_half(x: u64, y: u64) -> u64 {
    if (x >> 21) & 1 == 1 { y } else { x ^ y }
}
#[inline(never)]
fn bit_select(x: u64, y: u64) -> u32 {
    let b = (x as u32 >> 30) & 1 == 0;
    if b { y as u32 } else { 0x55 }
}

fn shifted_bit_tests(o: &mut Out) {
    each_pair(o, bit10_and_low);
    each_pair(o, bit_of_i16);
    each_pair(o, bit_of_byte);
    each_pair(o, bit_of_u64_low_half);
    each_pair(o, bit_select);
}

pub const CASES: &[Case] = &[
    case!(u64_min_then_truncate),
    case!(u64_try_from_saturate),
    case!(u64_minmax_const_halves),
    case!(u64_minmax_variables),
    case!(i64_minmax_clamp),
    case!(all_ones_select),
    case!(saturating_all_ones),
    case!(rows_try_from_in_closure),
    case!(u64_rotate_all_ones_half),
    case!(shifted_bit_tests),
];
