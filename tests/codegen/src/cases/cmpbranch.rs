//! Compare-then-branch patterns on unsigned (carry) conditions, loop counters with `<`/`>=`,
//! and the `memset` byte-splat loop shape: a counter decremented by 16 with `>=` while another
//! value is copied in the loop (the "register copy between compare and branch" miscompile).

use super::case;
use super::util::*;
use crate::{Case, Out};

/// Word-splat fill written like compiler_builtins' memset: splat the byte, store 16 bytes per
/// iteration while `n >= 16`, then the tail.
#[inline(never)]
fn splat_fill(dst: &mut [u8; 320], start: usize, n: usize, c: u8) {
    let mut p = start;
    let mut n = n;
    let word = (c as u32) * 0x0101_0101;
    let mut last = 0u32;
    while n >= 16 {
        // copy the splat into the destination through a second variable (loop-carried copy)
        let w = word;
        last = w;
        let bytes = w.to_ne_bytes();
        let mut k = 0;
        while k < 16 {
            dst[p + k] = bytes[k & 3];
            k += 1;
        }
        p += 16;
        n -= 16;
    }
    let tail = (last | word).to_ne_bytes();
    while n > 0 {
        dst[p] = tail[0];
        p += 1;
        n -= 1;
    }
}

fn cb_splat_fill(o: &mut Out) {
    let lens = [0usize, 1, 15, 16, 17, 31, 32, 33, 100, 255, 300];
    for &len in &lens {
        for start in 0..4 {
            let mut buf = [0x11u8; 320];
            splat_fill(&mut buf, bb(start), bb(len), bb(0xAA));
            o.u32(fnv1a(&buf));
        }
    }
}

/// Subtract 16 while >= 16, with the count of iterations and a value copied in the loop.
#[inline(never)]
fn sub16_loop(n: u32, v: u32) -> (u32, u32, u32) {
    let mut n = n;
    let mut iters = 0u32;
    let mut copy;
    let mut cur = v;
    loop {
        copy = cur;
        cur = cur.rotate_left(1);
        iters += 1;
        let (m, borrow) = n.overflowing_sub(16);
        n = m;
        if borrow || n < 16 {
            break;
        }
    }
    (n, iters, copy)
}

fn cb_sub16(o: &mut Out) {
    for n in [
        16u32, 17, 31, 32, 47, 48, 100, 255, 256, 1000, 65535, 0x10000,
    ] {
        let (r, i, c) = sub16_loop(bb(n), bb(0x8001_0203));
        o.u32(r);
        o.u32(i);
        o.u32(c);
    }
}

/// Unsigned `<` / `>=` loop counters of every width.
macro_rules! counter {
    ($name:ident, $t:ty) => {
        fn $name(o: &mut Out) {
            let ends: [$t; 6] = bb([0, 1, 2, 15, 16, 127]);
            for &end in &ends {
                let mut i: $t = 0;
                let mut s = 0u32;
                while i < end {
                    s = s.wrapping_mul(5).wrapping_add(i as u32);
                    i += 1;
                }
                let mut j: $t = end;
                let mut t = 0u32;
                while j >= 3 {
                    t = t.wrapping_add(j as u32);
                    j -= 3;
                }
                o.u32(s);
                o.u32(t);
                o.u32(j as u32);
            }
        }
    };
}
counter!(cb_counter_u8, u8);
counter!(cb_counter_u16, u16);
counter!(cb_counter_u32, u32);
counter!(cb_counter_u64, u64);

/// Unsigned comparisons across the sign boundary (carry vs sign conditions).
fn cb_unsigned_boundary(o: &mut Out) {
    let v: [u32; 8] = bb([
        0,
        1,
        0x7FFF_FFFF,
        0x8000_0000,
        0x8000_0001,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
        0x1234,
    ]);
    for &a in &v {
        let mut bits = 0u64;
        for (k, &b) in v.iter().enumerate() {
            let r = if a < b {
                1u64
            } else if a > b {
                2
            } else {
                3
            };
            bits |= r << (2 * k);
            // signed view of the same bits
            let s = if (a as i32) < (b as i32) { 1u8 } else { 0 };
            o.u8(s);
        }
        o.u64(bits);
    }
}

/// `min`/`max`/`clamp` results used directly as loop bounds and indices.
fn cb_minmax_bounds(o: &mut Out) {
    let data: [u8; 40] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5C);
    let data = bb(data);
    for (a, b) in [(0u32, 40u32), (5, 3), (39, 100), (20, 20), (0xFFFF_FFFF, 7)] {
        let lo = bb(a).min(bb(b)).min(40);
        let hi = bb(a).max(bb(b)).clamp(0, 40);
        let mut s = 0u32;
        let mut i = lo;
        while i < hi {
            s = s.wrapping_add(data[i as usize] as u32);
            i += 1;
        }
        o.u32(lo);
        o.u32(hi);
        o.u32(s);
    }
}

/// Bool results of comparisons combined with `&`/`|` and branched on later.
fn cb_bool_combine(o: &mut Out) {
    let v: [u16; 7] = bb([0, 1, 0x7FFF, 0x8000, 0xFFFF, 300, 299]);
    for &a in &v {
        for &b in &v {
            let lt = a < b;
            let ge = a >= b.wrapping_sub(1);
            let sl = (a as i16) < (b as i16);
            let x = if lt & ge {
                1u8
            } else if lt | sl {
                2
            } else if ge ^ sl {
                3
            } else {
                4
            };
            o.u8(x);
        }
    }
}

/// Search loop with an unsigned compare as the exit condition and the found value copied out.
#[inline(never)]
fn first_at_least(xs: &[u32], limit: u32) -> (u32, u32) {
    let mut i = 0usize;
    let mut found = 0u32;
    while i < xs.len() {
        let x = xs[i];
        found = x;
        if x >= limit {
            return (i as u32, found);
        }
        i += 1;
    }
    (0xFFFF_FFFF, found)
}

fn cb_search_copy(o: &mut Out) {
    let xs: [u32; 10] = bb([3, 9, 0x8000_0000, 12, 0xFFFF_FFFF, 1, 0, 77, 78, 79]);
    for limit in [0u32, 4, 10, 13, 78, 0x7FFF_FFFF, 0x8000_0001, 0xFFFF_FFFF] {
        let (i, f) = first_at_least(&xs, bb(limit));
        o.u32(i);
        o.u32(f);
    }
}

/// 64-bit compares (two-word compare chains with carry) feeding branches.
fn cb_u64_chain(o: &mut Out) {
    let v: [u64; 8] = bb([
        0,
        1,
        0xFFFF_FFFF,
        0x1_0000_0000,
        0x1_0000_0001,
        0x8000_0000_0000_0000,
        0xFFFF_FFFF_FFFF_FFFF,
        0x0000_0001_FFFF_FFFF,
    ]);
    for &a in &v {
        let mut s = 0u32;
        for &b in &v {
            if a < b {
                s = s * 3 + 1;
            } else if a == b {
                s = s * 3 + 2;
            } else {
                s *= 3;
            }
            o.bool((a as i64) <= (b as i64));
        }
        o.u32(s);
    }
}

/// A `do { } while (--n != 0)`-style loop (DBcc candidate) with counters of 16 and 32 bits.
fn cb_dbcc_loops(o: &mut Out) {
    for n in [1u16, 2, 255, 256, 1000] {
        let mut k = bb(n);
        let mut acc = 0u32;
        loop {
            acc = acc.wrapping_add(k as u32 * 3);
            k -= 1;
            if k == 0 {
                break;
            }
        }
        o.u32(acc);
        let mut k32 = bb(n as u32 * 70);
        let mut acc2 = 1u32;
        while k32 != 0 {
            acc2 = acc2.rotate_left(3) ^ k32;
            k32 -= 1;
        }
        o.u32(acc2);
    }
}

/// Select (`if` as an expression) chains on unsigned conditions.
fn cb_select(o: &mut Out) {
    let v: [u32; 6] = bb([0, 5, 10, 0x8000_0000, 0xFFFF_FFF0, 9]);
    for &a in &v {
        for &b in &v {
            let x = if a < b { a } else { b };
            let y = if a >= b.wrapping_add(5) {
                a.wrapping_sub(b)
            } else {
                b.wrapping_sub(a)
            };
            let z = if x <= 9 { y } else { x };
            o.u32(z);
        }
    }
}

pub const CASES: &[Case] = &[
    case!(cb_splat_fill),
    case!(cb_sub16),
    case!(cb_counter_u8),
    case!(cb_counter_u16),
    case!(cb_counter_u32),
    case!(cb_counter_u64),
    case!(cb_unsigned_boundary),
    case!(cb_minmax_bounds),
    case!(cb_bool_combine),
    case!(cb_search_copy),
    case!(cb_u64_chain),
    case!(cb_dbcc_loops),
    case!(cb_select),
];
