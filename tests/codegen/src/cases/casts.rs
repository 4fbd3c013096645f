//! `as` casts between all integer widths (truncation, sign and zero extension), `From`/`TryFrom`.

use super::case;
use super::util::*;
use crate::{Case, Out};

fn sources() -> [u64; 12] {
    bb([
        0,
        1,
        0x7F,
        0x80,
        0xFF,
        0x7FFF,
        0x8000,
        0xFFFF_FFFF,
        0x8000_0000,
        0x8000_0000_0000_0000,
        0xFFFF_FFFF_FFFF_FFFF,
        0x0123_4567_89AB_CDEF,
    ])
}

macro_rules! cast_all {
    ($o:ident, $x:expr) => {{
        let x = $x;
        $o.u8(x as u8);
        $o.u16(x as u16);
        $o.u32(x as u32);
        $o.u64(x as u64);
        $o.i8(x as i8);
        $o.i16(x as i16);
        $o.i32(x as i32);
        $o.i64(x as i64);
    }};
}

fn cast_from_u8(o: &mut Out) {
    for v in sources() {
        cast_all!(o, bb(v as u8));
    }
}
fn cast_from_i8(o: &mut Out) {
    for v in sources() {
        cast_all!(o, bb(v as i8));
    }
}
fn cast_from_u16(o: &mut Out) {
    for v in sources() {
        cast_all!(o, bb(v as u16));
    }
}
fn cast_from_i16(o: &mut Out) {
    for v in sources() {
        cast_all!(o, bb(v as i16));
    }
}
fn cast_from_u32(o: &mut Out) {
    for v in sources() {
        cast_all!(o, bb(v as u32));
    }
}
fn cast_from_i32(o: &mut Out) {
    for v in sources() {
        cast_all!(o, bb(v as i32));
    }
}
fn cast_from_u64(o: &mut Out) {
    for v in sources() {
        cast_all!(o, bb(v));
    }
}
fn cast_from_i64(o: &mut Out) {
    for v in sources() {
        cast_all!(o, bb(v as i64));
    }
}

fn cast_try_from(o: &mut Out) {
    for v in sources() {
        let x = bb(v as i64);
        emit_opt(o, u8::try_from(x).ok());
        emit_opt(o, i8::try_from(x).ok());
        emit_opt(o, u16::try_from(x).ok());
        emit_opt(o, i16::try_from(x).ok());
        emit_opt(o, u32::try_from(x).ok());
        emit_opt(o, i32::try_from(x).ok());
        emit_opt(o, u64::try_from(x).ok());
        let y = bb(v as u32);
        emit_opt(o, i32::try_from(y).ok());
        emit_opt(o, u16::try_from(y).ok());
        o.u64(u64::from(y));
        o.i64(i64::from(y as i32));
        o.bool(bool::from(y & 1 == 1));
        o.u32(u32::from(bb(y & 1 == 1)));
    }
}

/// Sign extension feeding a comparison and a branch (EXT.W/EXT.L then Bcc).
fn cast_sext_branch(o: &mut Out) {
    let mut acc = 0u32;
    for v in sources() {
        let b = bb(v as i8);
        let w = b as i32;
        if w < 0 {
            acc = acc.wrapping_mul(3).wrapping_add(w.unsigned_abs());
        } else if (w as u32) < 0x40 {
            acc = acc.wrapping_add(1);
        } else {
            acc ^= w as u32;
        }
        let u = bb(v as u16) as i16 as i64;
        o.i64(u);
        o.bool(u < -1);
    }
    o.u32(acc);
}

pub const CASES: &[Case] = &[
    case!(cast_from_u8),
    case!(cast_from_i8),
    case!(cast_from_u16),
    case!(cast_from_i16),
    case!(cast_from_u32),
    case!(cast_from_i32),
    case!(cast_from_u64),
    case!(cast_from_i64),
    case!(cast_try_from),
    case!(cast_sext_branch),
];
