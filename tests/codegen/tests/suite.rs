//! Host-side checks of the conformance suite: structure, determinism, and golden values that
//! were worked out by hand (not by calling the case code).

use codegen_suite::{CASES, MAX_OUTPUT, Out, run_case};
use std::collections::HashSet;

fn output_of(name: &str) -> Vec<u8> {
    let idx = CASES
        .iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    let mut buf = vec![0u8; MAX_OUTPUT];
    let n = run_case(idx as u32, &mut buf).unwrap_or_else(|| panic!("{name} overflowed"));
    buf.truncate(n);
    buf
}

fn be32(v: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(v[at..at + 4].try_into().unwrap())
}

fn fnv(data: &[u8]) -> u32 {
    data.iter().fold(0x811C_9DC5u32, |h, &b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

#[test]
fn count_and_unique_names() {
    assert!(CASES.len() >= 220, "only {} cases", CASES.len());
    let mut seen = HashSet::new();
    for c in CASES {
        assert!(!c.name.is_empty());
        assert!(seen.insert(c.name), "duplicate case name {}", c.name);
    }
}

#[test]
fn every_case_runs_deterministically_within_max_output() {
    for (i, c) in CASES.iter().enumerate() {
        let mut a = vec![0u8; MAX_OUTPUT];
        let mut b = vec![0xFFu8; MAX_OUTPUT];
        let na = run_case(i as u32, &mut a).unwrap_or_else(|| panic!("{} overflowed", c.name));
        let nb = run_case(i as u32, &mut b).unwrap_or_else(|| panic!("{} overflowed", c.name));
        assert!(na <= MAX_OUTPUT);
        assert_eq!(na, nb, "{}: length differs between runs", c.name);
        assert_eq!(a[..na], b[..nb], "{}: output differs between runs", c.name);
    }
}

#[test]
fn bad_index_and_overflow() {
    let mut buf = [0u8; 16];
    assert_eq!(run_case(CASES.len() as u32, &mut buf), None);
    assert_eq!(run_case(u32::MAX, &mut buf), None);
    // rec_fib writes 84 bytes: a 16-byte buffer must report overflow
    let idx = CASES.iter().position(|c| c.name == "rec_fib").unwrap();
    assert_eq!(run_case(idx as u32, &mut buf), None);
}

#[test]
fn out_is_big_endian_and_flags_overflow() {
    let mut buf = [0u8; 32];
    let mut o = Out::new(&mut buf);
    o.u8(0x01);
    o.u16(0x0203);
    o.u32(0x0405_0607);
    o.u64(0x0809_0A0B_0C0D_0E0F);
    o.i8(-1);
    o.i16(-2);
    o.i32(-3);
    o.bool(true);
    o.bytes(b"xy");
    assert_eq!(o.len(), 1 + 2 + 4 + 8 + 1 + 2 + 4 + 1 + 2);
    assert!(!o.overflowed());
    o.i64(-4); // 25 + 8 > 32
    assert!(o.overflowed());
    assert_eq!(o.len(), 25);
    assert_eq!(
        &buf[..25],
        &[
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF,
            0xFD, 1, b'x', b'y'
        ]
    );
}

#[test]
fn golden_static_bool_and_byte() {
    assert_eq!(output_of("static_bool"), [1, 0, 1, 0]);
    // 1, 0xA5, +1 = 0xA6, rotate_left(4) = 0x6A, 0
    assert_eq!(output_of("static_byte"), [0x01, 0xA5, 0xA6, 0x6A, 0x00]);
}

#[test]
fn golden_static_half_word() {
    let mut want = Vec::new();
    want.extend_from_slice(&[0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4, 5, 6, 7, 8]);
    want.extend_from_slice(&[
        0xFF, 0xFF, 0, 0, 0, 7, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]);
    // 0xFFFF + 2 wraps to 1; 7 << 4 = 0x70; u64::MAX >> 8
    want.extend_from_slice(&[
        0x00, 0x01, 0, 0, 0, 0x70, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]);
    assert_eq!(output_of("static_half_word"), want);
}

#[test]
fn golden_static_tuple_and_counter() {
    // (9 + 1, 0x1111_2222 rotated right by 8)
    assert_eq!(output_of("static_tuple"), [10, 0x22, 0x11, 0x11, 0x22]);
    // i % 7 == 3 for i < 50: 3+10+17+24+31+38+45 = 168
    assert_eq!(output_of("static_counter"), [0, 0, 0, 168, 1]);
}

#[test]
fn golden_rec_fib() {
    let fib = [
        0u32, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765,
    ];
    let want: Vec<u8> = fib.iter().flat_map(|v| v.to_be_bytes()).collect();
    assert_eq!(output_of("rec_fib"), want);
}

#[test]
fn golden_rec_ackermann_and_mutual() {
    let ack = [1u32, 7, 9, 23, 29, 61];
    let want: Vec<u8> = ack.iter().flat_map(|v| v.to_be_bytes()).collect();
    assert_eq!(output_of("rec_ackermann"), want);
    // n = 0, 1, 2, 7, 50, 101 as (even, odd)
    assert_eq!(
        output_of("rec_mutual"),
        [1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1]
    );
}

#[test]
fn golden_rec_hanoi_moves() {
    let v = output_of("rec_hanoi");
    assert_eq!(v.len(), 24);
    assert_eq!((be32(&v, 0), be32(&v, 8), be32(&v, 16)), (1, 7, 1023));
    // one disc: one move from peg 1 to peg 3: h = 0 * 31 + (1 << 4 | 3)
    assert_eq!(be32(&v, 4), 0x13);
}

#[test]
fn golden_match_sparse() {
    assert_eq!(
        output_of("match_sparse_u16"),
        [
            1, 0, 2, 3, 0, 4, 5, 6, 7, 0, 8, 9, 0, 10, 0, 11, 12, 13, 0, 0
        ]
    );
    let want: Vec<u8> = [
        100u16, 101, 101, 102, 109, 102, 102, 103, 109, 104, 105, 105, 109, 106, 107, 108, 109, 109,
    ]
    .iter()
    .flat_map(|v| v.to_be_bytes())
    .collect();
    assert_eq!(output_of("match_sparse_u32"), want);
}

#[test]
fn golden_match_dense() {
    let table = [
        0x11u32,
        0x2345,
        7,
        0xFFFF_FFFF,
        19,
        0x8000_0000,
        3,
        1000,
        0x55,
        0xAA00,
        42,
        0,
        12,
        0x1313,
        0xE,
        0xF0F0,
        160,
        0x7777_7777,
        81,
        9,
        0xDEAD,
        0xDEAD,
        0xDEAD,
        0xDEAD,
        0xDEAD,
        0xDEAD,
    ];
    let want: Vec<u8> = table.iter().flat_map(|v| v.to_be_bytes()).collect();
    assert_eq!(output_of("match_dense_u8"), want);
}

#[test]
fn golden_loop_gcd_and_nested() {
    // (gcd, iterations) for (48,18) (17,5) (0,9) (1071,462) (0xFFFFFFFF,0x10001) (2^31,2^12)
    let want: Vec<u8> = [6u32, 3, 1, 3, 9, 1, 21, 3, 0x10001, 1, 4096, 1]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    assert_eq!(output_of("loop_gcd"), want);
    // i <= j <= k < 13: C(15, 3) = 455 triples
    assert_eq!(be32(&output_of("loop_nested_count"), 0), 455);
}

#[test]
fn golden_cb_sub16() {
    let v = output_of("cb_sub16");
    let ns = [
        16u32, 17, 31, 32, 47, 48, 100, 255, 256, 1000, 65535, 0x10000,
    ];
    assert_eq!(v.len(), ns.len() * 12);
    for (k, &n) in ns.iter().enumerate() {
        let iters = n / 16;
        assert_eq!(be32(&v, k * 12), n % 16, "remainder for {n}");
        assert_eq!(be32(&v, k * 12 + 4), iters, "iterations for {n}");
        assert_eq!(
            be32(&v, k * 12 + 8),
            0x8001_0203u32.rotate_left(iters - 1),
            "copied value for {n}"
        );
    }
}

#[test]
fn golden_memset_aa_100() {
    let v = output_of("mem_memset_aa_100");
    assert_eq!(v.len(), 4 * (8 + 12 + 4));
    for off in 0..4usize {
        let mut buf = [0x11u8; 128];
        for b in &mut buf[off..off + 100] {
            *b = 0xAA;
        }
        let rec = &v[off * 24..off * 24 + 24];
        assert_eq!(&rec[..8], &buf[..8], "offset {off}");
        assert_eq!(&rec[8..20], &buf[96..108], "offset {off}");
        assert_eq!(be32(rec, 20), fnv(&buf), "offset {off}");
    }
}

#[test]
fn golden_mem_cases_have_no_mismatch_on_host() {
    // Every mem_* case ends with: all-hash u32, mismatch count u32, 4 x u16 first mismatch
    // (plus a u32 for the cmp cases); on the host the libcalls must agree with the byte loops.
    for c in CASES.iter().filter(|c| {
        c.name.starts_with("mem_copy")
            || c.name.starts_with("mem_move")
            || c.name.starts_with("mem_write")
            || c.name.starts_with("mem_fill")
    }) {
        let v = output_of(c.name);
        let n = v.len();
        assert_eq!(be32(&v, n - 12), 0, "{} mismatches", c.name);
        assert_eq!(&v[n - 8..], &[0xFF; 8], "{} first mismatch", c.name);
    }
    for c in CASES
        .iter()
        .filter(|c| c.name.starts_with("mem_eq") || c.name.starts_with("mem_cmp"))
    {
        let v = output_of(c.name);
        let n = v.len();
        assert_eq!(be32(&v, n - 16), 0, "{} mismatches", c.name);
    }
}

#[test]
fn golden_fmt() {
    fn rec(s: &str) -> Vec<u8> {
        let mut v = vec![1, s.len() as u8];
        v.extend_from_slice(s.as_bytes());
        v
    }
    let want: Vec<u8> = [
        "0000dead",
        "BEEFCAFE",
        "0xff 0xABCD",
        "0123456789abcdef",
        "ffffffff",
        "8000000000000000",
        "01a000",
    ]
    .iter()
    .flat_map(|s| rec(s))
    .collect();
    assert_eq!(output_of("fmt_hex"), want);
    let want: Vec<u8> = [
        "0 255 100",
        "65535 1000",
        "4294967295 1000000",
        "18446744073709551615",
        "10000000000000000000",
        "9999999999",
    ]
    .iter()
    .flat_map(|s| rec(s))
    .collect();
    assert_eq!(output_of("fmt_decimal_unsigned"), want);
    let want: Vec<u8> = [
        "[   42]",
        "[42   ]",
        "[  42   ]",
        "[   -42]",
        "[-00042]",
        "[****7****]",
        "[   3]",
        "[       abc]",
    ]
    .iter()
    .flat_map(|s| rec(s))
    .collect();
    assert_eq!(output_of("fmt_padding"), want);
}

#[test]
fn golden_bits_flags() {
    let mut want = vec![
        0x00, 0x01, 0x00, 0x03, 0x00, 0x23, 0x00, 0xA3, 0x80, 0xA3, 0x00, 0xA3,
    ];
    want.extend_from_slice(&[1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    want.push(1);
    want.extend_from_slice(&[0xFF, 0x5C]);
    assert_eq!(output_of("bits_flags"), want);
}

#[test]
fn golden_wide_mul_full_product() {
    let v = output_of("wide_mul");
    let n = v.len();
    // (2^64 - 1) * y = (y - 1) * 2^64 + (2^64 - y), y = 0xFEDC_BA98_7654_3210
    assert_eq!(&v[n - 16..n - 8], &0xFEDC_BA98_7654_320Fu64.to_be_bytes());
    assert_eq!(&v[n - 8..], &0x0123_4567_89AB_CDF0u64.to_be_bytes());
}

#[test]
fn golden_scsi_cdb_and_crc() {
    let v = output_of("be_scsi_cdb");
    // READ(10) of LBA 0, 1 block; read back; (0 + 1) * 512 bytes
    assert_eq!(&v[..10], &[0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
    assert_eq!(&v[10..24], &[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 0]);
    // the CRC-32 check value of "123456789"
    assert_eq!(be32(&output_of("misc_checksums"), 4), 0xCBF4_3926);
}

#[test]
fn golden_stackidx_u32() {
    let want: Vec<u8> = (0..16u32)
        .flat_map(|i| (0xDEAD_0000 | i).to_be_bytes())
        .collect();
    assert_eq!(output_of("stackidx_u32"), want);
}
