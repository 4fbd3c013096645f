//! Odds and ends: chars and UTF-8, parsing, Option/Result chains, checksums, i64 mixed math.

use super::case;
use super::util::*;
use crate::{Case, Out};

fn misc_chars(o: &mut Out) {
    for c in bb("aZ09 é€😀\u{7f}").chars() {
        o.u32(c as u32);
        o.u8(c.len_utf8() as u8);
        o.u8((c.is_alphanumeric() as u8)
            | (c.is_ascii_digit() as u8) << 1
            | (c.is_whitespace() as u8) << 2
            | (c.is_uppercase() as u8) << 3);
        emit_opt(o, c.to_digit(16));
        let mut b = [0u8; 4];
        o.bytes(c.encode_utf8(bb(&mut b)).as_bytes());
    }
    for v in [0x41u32, 0xD800, 0x10FFFF, 0x110000, 0xE9] {
        emit_opt(o, char::from_u32(bb(v)).map(|c| c as u32));
    }
    o.u8(b'a'.to_ascii_uppercase());
    o.bool(b'Q'.eq_ignore_ascii_case(&b'q'));
}

fn misc_utf8(o: &mut Out) {
    let samples: [&[u8]; 6] = [
        b"hello",
        b"\xC3\xA9t\xC3\xA9",
        b"\xFF\xFE",
        b"ab\xE2\x82",
        b"\xF0\x9F\x98\x80!",
        b"",
    ];
    for s in bb(&samples).iter() {
        match core::str::from_utf8(s) {
            Ok(t) => {
                o.u8(1);
                o.u32(t.chars().count() as u32);
            }
            Err(e) => {
                o.u8(0);
                o.u32(e.valid_up_to() as u32);
                emit_opt(o, e.error_len().map(|x| x as u8));
            }
        }
    }
}

fn misc_parse(o: &mut Out) {
    for s in [
        "0",
        "42",
        "-17",
        "4294967295",
        "4294967296",
        "+8",
        "",
        "12a",
        "-2147483648",
        "0x10",
    ] {
        let s = bb(s);
        emit_opt(o, s.parse::<u32>().ok());
        emit_opt(o, s.parse::<i32>().ok());
        emit_opt(o, s.parse::<u8>().ok());
        emit_opt(o, s.parse::<i64>().ok());
    }
    emit_opt(o, u32::from_str_radix(bb("DeadBeef"), 16).ok());
    emit_opt(o, i16::from_str_radix(bb("-777"), 8).ok());
    emit_opt(o, u64::from_str_radix(bb("zz"), 36).ok());
}

fn misc_option_chain(o: &mut Out) {
    let v: [Option<u32>; 6] = [Some(1), None, Some(0xFFFF_FFFF), Some(10), None, Some(0)];
    for &x in bb(&v).iter() {
        let r = x
            .map(|a| a.wrapping_add(1))
            .filter(|&a| a > 1)
            .and_then(|a| a.checked_mul(3))
            .unwrap_or(0xBAD);
        o.u32(r);
        let q: Result<u32, u8> = x
            .ok_or(7u8)
            .and_then(|a| if a < 5 { Ok(a) } else { Err(a as u8) });
        match q {
            Ok(a) => o.u32(a),
            Err(e) => o.u32(0xE000_0000 | e as u32),
        }
        o.bool(x.is_some_and(|a| a % 2 == 0));
    }
    let sum: Option<u32> = bb(&v)
        .iter()
        .copied()
        .try_fold(0u32, |s, x| x.map(|a| s.wrapping_add(a)));
    emit_opt(o, sum);
    let total: Option<u32> = [Some(1u32), Some(2), Some(3)].into_iter().sum();
    emit_opt(o, total);
}

/// CRC-32 (IEEE, bitwise) and the Internet checksum.
fn misc_checksums(o: &mut Out) {
    let data = bb(b"123456789The quick brown fox\x00\xFF\x80\x7F");
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data.iter() {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    o.u32(!crc);
    let mut crc9 = 0xFFFF_FFFFu32;
    for &b in &data[..9] {
        crc9 ^= b as u32;
        for _ in 0..8 {
            crc9 = if crc9 & 1 != 0 {
                (crc9 >> 1) ^ 0xEDB8_8320
            } else {
                crc9 >> 1
            };
        }
    }
    o.u32(!crc9);
    let mut sum = 0u32;
    for c in data.chunks(2) {
        let w = (c[0] as u32) << 8 | c.get(1).copied().unwrap_or(0) as u32;
        sum += w;
    }
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    o.u16(!(sum as u16));
    // Adler-32
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data.iter() {
        a = (a + x as u32) % 65521;
        b = (b + a) % 65521;
    }
    o.u32(b << 16 | a);
}

/// Mixed-width 64-bit arithmetic: block math like a disk driver does (LBA * 512, ranges).
fn misc_block_math(o: &mut Out) {
    let caps: [(u32, u32); 5] = [
        (0, 512),
        (2_097_151, 512),
        (0xFFFF_FFFF, 512),
        (1_000_000, 2048),
        (12345, 0),
    ];
    for &(last, bs) in bb(&caps).iter() {
        let bytes = (last as u64 + 1) * bs as u64;
        o.u64(bytes);
        o.u32((bytes >> 20) as u32); // MiB
        let mib = bytes.checked_div(1 << 20).unwrap_or(0);
        o.u64(mib);
        let blocks_512 = bytes.checked_div(512).unwrap_or(0);
        o.u64(blocks_512);
        o.u32(u32::try_from(blocks_512).unwrap_or(u32::MAX));
        // signed difference and percentage
        let d = (bytes as i64).wrapping_sub(bb(1_000_000_000i64));
        o.i64(d);
        o.i64(
            d.checked_mul(100)
                .and_then(|x| x.checked_div(1_000_000_000))
                .unwrap_or(i64::MIN),
        );
    }
}

/// xorshift and LCG streams (64-bit multiply libcalls in a loop).
fn misc_prng(o: &mut Out) {
    let mut x = bb(0x9E37_79B9_7F4A_7C15u64);
    let mut l = bb(12345u32);
    for _ in 0..16 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        l = l.wrapping_mul(1_103_515_245).wrapping_add(12345);
        o.u64(x);
        o.u32(l);
        o.u64(x.wrapping_mul(0x2545_F491_4F6C_DD1D));
    }
}

pub const CASES: &[Case] = &[
    case!(misc_chars),
    case!(misc_utf8),
    case!(misc_parse),
    case!(misc_option_chain),
    case!(misc_checksums),
    case!(misc_block_math),
    case!(misc_prng),
];
