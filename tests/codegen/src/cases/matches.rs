//! `match`: dense jump tables (>= 16 arms) and sparse matches on u8/u16/u32, ranges, enums.

use super::case;
use super::util::*;
use crate::{Case, Out};

#[inline(never)]
fn dense_u8(x: u8) -> u32 {
    match x {
        0 => 0x11,
        1 => 0x2345,
        2 => 7,
        3 => 0xFFFF_FFFF,
        4 => 19,
        5 => 0x8000_0000,
        6 => 3,
        7 => 1000,
        8 => 0x55,
        9 => 0xAA00,
        10 => 42,
        11 => 0,
        12 => 12,
        13 => 0x1313,
        14 => 0xE,
        15 => 0xF0F0,
        16 => 160,
        17 => 0x7777_7777,
        18 => 81,
        19 => 9,
        _ => 0xDEAD,
    }
}

fn match_dense_u8(o: &mut Out) {
    for x in 0..=bb(24u8) {
        o.u32(dense_u8(bb(x)));
    }
    o.u32(dense_u8(bb(255)));
}

#[derive(Clone, Copy)]
enum Op {
    Nop,
    Add(u32),
    Sub(u32),
    Mul(u32),
    Shl(u8),
    Shr(u8),
    Xor(u32),
    And(u32),
    Or(u32),
    Neg,
    Not,
    Rotl(u8),
    Rotr(u8),
    Swap,
    Inc,
    Dec,
    Div(u32),
    Rem(u32),
}

#[inline(never)]
fn exec(acc: u32, op: Op) -> u32 {
    match op {
        Op::Nop => acc,
        Op::Add(v) => acc.wrapping_add(v),
        Op::Sub(v) => acc.wrapping_sub(v),
        Op::Mul(v) => acc.wrapping_mul(v),
        Op::Shl(s) => acc.wrapping_shl(s as u32),
        Op::Shr(s) => acc.wrapping_shr(s as u32),
        Op::Xor(v) => acc ^ v,
        Op::And(v) => acc & v,
        Op::Or(v) => acc | v,
        Op::Neg => acc.wrapping_neg(),
        Op::Not => !acc,
        Op::Rotl(s) => acc.rotate_left(s as u32),
        Op::Rotr(s) => acc.rotate_right(s as u32),
        Op::Swap => acc.swap_bytes(),
        Op::Inc => acc.wrapping_add(1),
        Op::Dec => acc.wrapping_sub(1),
        Op::Div(v) => acc.checked_div(v).unwrap_or(0xD1D1),
        Op::Rem(v) => acc.checked_rem(v).unwrap_or(0xEEEE),
    }
}

fn match_enum_interp(o: &mut Out) {
    let prog = [
        Op::Add(0x1234_5678),
        Op::Mul(31),
        Op::Shl(3),
        Op::Xor(0xFFFF_0000),
        Op::Rotl(7),
        Op::Sub(99),
        Op::Swap,
        Op::Div(7),
        Op::Rem(0),
        Op::Add(5),
        Op::Rem(1000),
        Op::Not,
        Op::Shr(33),
        Op::Or(0x100),
        Op::And(0x0FFF_FFFF),
        Op::Neg,
        Op::Inc,
        Op::Dec,
        Op::Rotr(12),
        Op::Nop,
        Op::Div(0),
    ];
    let prog = bb(&prog);
    let mut acc = bb(1u32);
    for &op in prog.iter() {
        acc = exec(acc, op);
        o.u32(acc);
    }
}

#[inline(never)]
fn sparse_u16(x: u16) -> u8 {
    match x {
        0 => 1,
        0x00FF => 2,
        0x0100 => 3,
        0x1234 => 4,
        0x4552 => 5, // 'ER'
        0x504D => 6, // 'PM'
        0x5453 => 7, // 'TS'
        0x7FFF => 8,
        0x8000 => 9,
        0xA11E => 10,
        0xABFF => 11,
        0xFFFE => 12,
        0xFFFF => 13,
        _ => 0,
    }
}

fn match_sparse_u16(o: &mut Out) {
    let probes: [u16; 20] = [
        0, 1, 0xFF, 0x100, 0x101, 0x1234, 0x4552, 0x504D, 0x5453, 0x5454, 0x7FFF, 0x8000, 0x8001,
        0xA11E, 0xA11F, 0xABFF, 0xFFFE, 0xFFFF, 0x4551, 0x504C,
    ];
    for &p in bb(&probes).iter() {
        o.u8(sparse_u16(p));
    }
}

#[inline(never)]
fn sparse_u32(x: u32) -> u16 {
    match x {
        0 => 100,
        1..=9 => 101,
        10 | 20 | 30 => 102,
        0x0001_0000 => 103,
        0x7FFF_FFFF => 104,
        0x8000_0000..=0x8000_00FF => 105,
        0xDEAD_BEEF => 106,
        0xFFFF_FFFF => 107,
        0x4552_0000..=0x4552_FFFF => 108,
        _ => 109,
    }
}

fn match_sparse_u32(o: &mut Out) {
    let probes: [u32; 18] = [
        0,
        1,
        9,
        10,
        11,
        20,
        30,
        0x1_0000,
        0x1_0001,
        0x7FFF_FFFF,
        0x8000_0000,
        0x8000_00FF,
        0x8000_0100,
        0xDEAD_BEEF,
        0xFFFF_FFFF,
        0x4552_1234,
        0x4551_FFFF,
        0xFFFF_FFFE,
    ];
    for &p in bb(&probes).iter() {
        o.u16(sparse_u32(p));
    }
}

/// SCSI opcode names as a dense-ish u8 match with gaps and a fallback.
#[inline(never)]
fn scsi_len(op: u8) -> u8 {
    match op >> 5 {
        0 => 6,
        1 | 2 => 10,
        4 => 16,
        5 => 12,
        _ => 0,
    }
}

#[inline(never)]
fn ascii_class(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => 1,
        b'a'..=b'f' | b'A'..=b'F' => 2,
        b'g'..=b'z' | b'G'..=b'Z' => 3,
        b' ' | b'\t' | b'\n' | b'\r' => 4,
        0x80..=0xFF => 5,
        0..=0x1F => 6,
        _ => 7,
    }
}

fn match_ranges_u8(o: &mut Out) {
    let mut h = 0u32;
    let mut x = bb(0u8);
    loop {
        h = h.wrapping_mul(7) + ascii_class(x) as u32 * 16 + scsi_len(x) as u32;
        if x == 255 {
            break;
        }
        x += 1;
    }
    o.u32(h);
    for c in *bb(b"Az09 \x7f\x80\x1fgG~") {
        o.u8(ascii_class(c));
    }
    for op in [0x00u8, 0x12, 0x25, 0x28, 0x2A, 0x55, 0x88, 0xA8, 0xC0, 0xFF] {
        o.u8(scsi_len(bb(op)));
    }
}

/// A dense 32-arm match on a u32 selector used as a state machine.
#[inline(never)]
fn next_state(s: u32, input: u8) -> u32 {
    let bit = (input & 1) as u32;
    match s {
        0 => 1 + bit,
        1 => 3 + bit,
        2 => 5 + bit,
        3 => 7 + bit,
        4 => 9 + bit,
        5 => 11 + bit,
        6 => 13 + bit,
        7 => 15 + bit,
        8 => 17 + bit,
        9 => 19 + bit,
        10 => 21 + bit,
        11 => 23 + bit,
        12 => 25 + bit,
        13 => 27 + bit,
        14 => 29 + bit,
        15 => 31 - bit,
        16 => 0,
        17 => 2 * bit,
        18 => 4,
        19 => 6 - bit,
        20 => 8,
        21 => 10 + bit,
        22 => 12,
        23 => 14 + bit,
        24 => 16 + bit,
        25 => 18,
        26 => 20 - bit,
        27 => 22,
        28 => 24 + bit,
        29 => 26,
        30 => 28 + bit,
        31 => 30,
        _ => 0,
    }
}

fn match_state_machine(o: &mut Out) {
    let mut s = bb(0u32);
    let mut r = Rng(bb(0xC0FFEE));
    for _ in 0..200 {
        s = next_state(s, r.next() as u8);
        o.u8(s as u8);
    }
}

fn match_option_result(o: &mut Out) {
    let vals: [i32; 8] = [0, 1, -1, 100, -100, i32::MAX, i32::MIN, 7];
    for &v in bb(&vals).iter() {
        let r: Result<u8, i8> = if v >= 0 {
            u8::try_from(v).map_err(|_| 1)
        } else {
            Err(-1)
        };
        let code = match r {
            Ok(0) => 0u8,
            Ok(x @ 1..=9) => x,
            Ok(x) if x % 2 == 0 => 20,
            Ok(_) => 21,
            Err(-1) => 30,
            Err(_) => 31,
        };
        o.u8(code);
        let t = match (v > 0, v & 1 == 1) {
            (true, true) => 1u8,
            (true, false) => 2,
            (false, true) => 3,
            (false, false) => 4,
        };
        o.u8(t);
    }
}

pub const CASES: &[Case] = &[
    case!(match_dense_u8),
    case!(match_enum_interp),
    case!(match_sparse_u16),
    case!(match_sparse_u32),
    case!(match_ranges_u8),
    case!(match_state_machine),
    case!(match_option_result),
];
