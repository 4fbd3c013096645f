//! `u128`/`i128` add, mul, shifts, division (compiler_builtins' 128-bit routines on the 68k).

use super::case;
use super::util::*;
use crate::{Case, Out};

fn put128(o: &mut Out, v: u128) {
    o.u64((v >> 64) as u64);
    o.u64(v as u64);
}

fn vals() -> [u128; 6] {
    bb([
        0,
        1,
        u64::MAX as u128,
        (u64::MAX as u128) + 1,
        0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210,
        u128::MAX,
    ])
}

fn wide_addsub(o: &mut Out) {
    let va = vals();
    let v = bb(&va);
    for &a in v {
        for &b in v {
            put128(o, a.wrapping_add(b));
            put128(o, a.wrapping_sub(b));
        }
    }
}

fn wide_mul(o: &mut Out) {
    let va = vals();
    let v = bb(&va);
    for &a in v {
        for &b in v {
            put128(o, a.wrapping_mul(b));
            o.bool(a.checked_mul(b).is_none());
        }
    }
    // full 64x64 -> 128 product
    let x = bb(0xFFFF_FFFF_FFFF_FFFFu64);
    let y = bb(0xFEDC_BA98_7654_3210u64);
    put128(o, x as u128 * y as u128);
}

fn wide_shift(o: &mut Out) {
    let a = bb(0x8123_4567_89AB_CDEF_FEDC_BA98_7654_3211u128);
    for s in [0u32, 1, 7, 31, 32, 33, 63, 64, 65, 96, 127] {
        let s = bb(s);
        put128(o, a << s);
        put128(o, a >> s);
        put128(o, ((a as i128) >> s) as u128);
        put128(o, a.rotate_left(s));
    }
    o.u32(a.leading_zeros() | a.trailing_zeros() << 8 | a.count_ones() << 16);
}

fn wide_divrem(o: &mut Out) {
    let va = vals();
    let v = bb(&va);
    for &a in v {
        for &b in v {
            put128(o, a.checked_div(b).unwrap_or(0xDD));
            put128(o, a.checked_rem(b).unwrap_or(0xEE));
        }
    }
    let n = bb(-170141183460469231731687303715884105728i128); // i128::MIN
    o.bool(n.checked_div(-1).is_none());
    put128(o, (n / 7) as u128);
    put128(o, (n % 7) as u128);
}

pub const CASES: &[Case] = &[
    case!(wide_addsub),
    case!(wide_mul),
    case!(wide_shift),
    case!(wide_divrem),
];
