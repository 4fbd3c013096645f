//! Slices and iterators: chunks, windows, rev, zip, fold, position, binary search, sorting.

use super::case;
use super::util::*;
use crate::{Case, Out};

static BYTES: [u8; 53] = [
    0x10, 0x03, 0xFF, 0x80, 0x7F, 0x00, 0x01, 0x99, 0x42, 0x42, 0x17, 0xE0, 0x0F, 0xF0, 0x55, 0xAA,
    0x31, 0x32, 0x33, 0x00, 0xC3, 0x3C, 0x81, 0x18, 0x24, 0x42, 0x66, 0x99, 0xBD, 0xDB, 0xE7, 0x7E,
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFE, 0xFD, 0xFB, 0xF7, 0xEF, 0xDF, 0xBF, 0x7F,
    0x5A, 0xA5, 0x00, 0xFF, 0x12,
];

fn bytes() -> &'static [u8] {
    bb(&BYTES[..])
}

static WORDS: [u32; 20] = [
    0x8000_0000,
    3,
    0xFFFF_FFFF,
    17,
    0,
    99,
    0x7FFF_FFFF,
    42,
    42,
    1,
    0x1234_5678,
    65535,
    65536,
    7,
    0x8000_0001,
    2,
    1000,
    999,
    0xDEAD_BEEF,
    5,
];

fn words() -> &'static [u32] {
    bb(&WORDS[..])
}

fn sl_chunks(o: &mut Out) {
    let b = bytes();
    for n in [1usize, 2, 3, 4, 7, 16, 53, 60] {
        let n = bb(n);
        let mut cnt = 0u32;
        for c in b.chunks(n) {
            cnt += 1;
            o.u8(c.len() as u8);
            o.u8(c.iter().fold(0u8, |a, &x| a.wrapping_add(x)));
        }
        o.u32(cnt);
    }
}

fn sl_chunks_exact(o: &mut Out) {
    let b = bytes();
    for n in [1usize, 4, 5, 8, 13] {
        let it = b.chunks_exact(bb(n));
        let rem = it.remainder();
        o.u8(rem.len() as u8);
        o.u32(fnv1a(rem));
        let mut h = 0u32;
        for c in it {
            h = fnv_u32(h, fnv1a(c));
        }
        o.u32(h);
    }
    // fixed-size chunks read as big-endian words
    let mut x = 0u32;
    for c in b.chunks_exact(4) {
        x = x.rotate_left(3) ^ u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
    o.u32(x);
}

fn sl_rchunks(o: &mut Out) {
    let b = bytes();
    for c in b.rchunks(bb(10)) {
        o.u8(c.len() as u8);
        o.u8(c[0]);
    }
    for c in b.chunks(bb(9)).rev() {
        o.u8(c[c.len() - 1]);
    }
}

fn sl_windows(o: &mut Out) {
    let b = bytes();
    for n in [1usize, 2, 3, 8, 53, 54] {
        let mut h = 0u32;
        let mut cnt = 0u16;
        for w in b.windows(bb(n)) {
            h = h.wrapping_mul(33) ^ (w[0] as u32) ^ ((w[w.len() - 1] as u32) << 8);
            cnt += 1;
        }
        o.u16(cnt);
        o.u32(h);
    }
    // count strictly increasing adjacent pairs (unsigned compare in a window loop)
    let inc = b.windows(2).filter(|w| w[0] < w[1]).count();
    o.u32(inc as u32);
}

fn sl_rev_zip(o: &mut Out) {
    let b = bytes();
    let w = words();
    let mut acc = 0u32;
    for (x, y) in b.iter().rev().zip(w.iter()) {
        acc = acc.rotate_left(7) ^ (*x as u32).wrapping_mul(*y);
    }
    o.u32(acc);
    let dot: u64 = w
        .iter()
        .zip(w.iter().rev())
        .map(|(a, b)| (*a as u64) * (*b as u64))
        .fold(0u64, |s, v| s.wrapping_add(v));
    o.u64(dot);
    for (i, (a, b)) in b.iter().zip(b.iter().skip(1)).enumerate().take(10) {
        o.u8(i as u8);
        o.u8(a ^ b);
    }
}

fn sl_fold_sum(o: &mut Out) {
    let w = words();
    o.u32(w.iter().fold(0u32, |a, &x| a.wrapping_add(x)));
    o.u64(w.iter().map(|&x| x as u64).sum::<u64>());
    o.u32(w.iter().copied().max().unwrap_or(0));
    o.u32(w.iter().copied().min().unwrap_or(0));
    o.u32(w.iter().filter(|&&x| x > 100).count() as u32);
    o.bool(w.iter().any(|&x| x == 0xDEAD_BEEF));
    o.bool(w.iter().all(|&x| x < 0xFFFF_FFFF));
    o.i64(w.iter().map(|&x| x as i32 as i64).sum::<i64>());
    let (mi, ma) = w
        .iter()
        .fold((u32::MAX, 0u32), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    o.u32(mi);
    o.u32(ma);
    o.u32(w.iter().rev().skip_while(|&&x| x < 100).count() as u32);
}

fn sl_position(o: &mut Out) {
    let b = bytes();
    for t in [0x42u8, 0x00, 0xFF, 0x12, 0x13, 0x80] {
        let t = bb(t);
        o.u32(
            b.iter()
                .position(|&x| x == t)
                .map_or(0xFFFF_FFFF, |p| p as u32),
        );
        o.u32(
            b.iter()
                .rposition(|&x| x == t)
                .map_or(0xFFFF_FFFF, |p| p as u32),
        );
        o.bool(b.contains(&t));
    }
    o.u32(
        b.iter()
            .position(|&x| x >= 0xF0)
            .map_or(0xFFFF_FFFF, |p| p as u32),
    );
    o.u32(
        b.iter()
            .position(|&x| x > 0xFF - 1)
            .map_or(0xFFFF_FFFF, |p| p as u32),
    );
}

static SORTED: [u32; 16] = [
    1,
    3,
    3,
    7,
    10,
    100,
    255,
    256,
    1000,
    4095,
    65535,
    65536,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
];

fn sl_binary_search(o: &mut Out) {
    let s = bb(&SORTED[..]);
    for t in [
        0u32,
        1,
        2,
        3,
        7,
        8,
        255,
        1000,
        1001,
        0x8000_0000,
        0x8000_0001,
        0xFFFF_FFFF,
    ] {
        match s.binary_search(&bb(t)) {
            Ok(i) => {
                o.u8(1);
                // duplicates (3) may be found at either index; normalise to the first
                let mut i = i;
                while i > 0 && s[i - 1] == t {
                    i -= 1;
                }
                o.u32(i as u32);
            }
            Err(i) => {
                o.u8(0);
                o.u32(i as u32);
            }
        }
        o.u32(s.partition_point(|&x| x < t) as u32);
    }
}

#[inline(never)]
fn insertion_sort(v: &mut [i32]) {
    let mut i = 1;
    while i < v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
        i += 1;
    }
}

fn sl_insertion_sort(o: &mut Out) {
    let mut a = [0i32; 24];
    let a = bb(&mut a);
    let mut r = Rng(bb(99));
    for x in a.iter_mut() {
        *x = r.next() as i32 >> (r.next() % 24);
    }
    a[3] = i32::MIN;
    a[9] = i32::MAX;
    a[10] = a[11];
    insertion_sort(a);
    for &x in a.iter() {
        o.i32(x);
    }
}

fn sl_sort_unstable(o: &mut Out) {
    let mut a = [0u16; 40];
    let a = bb(&mut a);
    let mut r = Rng(bb(7));
    for x in a.iter_mut() {
        *x = (r.next() % 50) as u16 * 1000;
    }
    a.sort_unstable();
    for &x in a.iter() {
        o.u16(x);
    }
    a.sort_unstable_by(|x, y| y.cmp(x));
    o.u16(a[0]);
    o.u16(a[39]);
}

fn sl_sort_stable_by_key(o: &mut Out) {
    let mut a = [(0u8, 0u8); 30];
    let a = bb(&mut a);
    for (i, x) in a.iter_mut().enumerate() {
        *x = ((i as u8).wrapping_mul(7) % 5, i as u8);
    }
    a.sort_by_key(|p| p.0);
    for p in a.iter() {
        o.u8(p.0);
        o.u8(p.1);
    }
}

fn sl_select_nth(o: &mut Out) {
    let mut a = [0i16; 31];
    let a = bb(&mut a);
    let mut r = Rng(bb(1234));
    for x in a.iter_mut() {
        *x = r.next() as i16;
    }
    let (_, m, _) = a.select_nth_unstable(15);
    o.i16(*m);
    a.sort();
    o.i16(a[15]);
    o.i16(a[0]);
    o.i16(a[30]);
}

fn sl_rotate_reverse(o: &mut Out) {
    let mut a = [0u8; 21];
    let a = bb(&mut a);
    for (i, x) in a.iter_mut().enumerate() {
        *x = i as u8;
    }
    a.rotate_left(bb(5));
    o.bytes(a);
    a.rotate_right(bb(8));
    o.bytes(a);
    a.reverse();
    o.bytes(a);
    a.swap(bb(0), bb(20));
    o.bytes(a);
    let (l, r) = a.split_at_mut(bb(9));
    l.copy_from_slice(&r[..9]);
    o.bytes(a);
}

fn sl_split(o: &mut Out) {
    let b = bytes();
    let mut n = 0u8;
    for part in b.split(|&x| x == 0) {
        n += 1;
        o.u8(part.len() as u8);
    }
    o.u8(n);
    o.bool(b.starts_with(&[0x10, 0x03]));
    o.bool(b.ends_with(&[0xFF, 0x12]));
    let (a, c) = b.split_at(bb(20));
    o.u32(fnv1a(a) ^ fnv1a(c));
    if let Some((first, rest)) = b.split_first() {
        o.u8(*first);
        o.u8(rest.len() as u8);
    }
    o.u8(*b.last().unwrap_or(&0));
    o.u8(b.get(bb(52)).copied().unwrap_or(1));
    o.u8(b.get(bb(53)).copied().unwrap_or(1));
}

fn sl_iter_adapters(o: &mut Out) {
    let w = words();
    let mut h = 0u32;
    for x in w
        .iter()
        .skip(2)
        .step_by(3)
        .take(5)
        .map(|x| x >> 1)
        .chain(w.iter().copied().take(2))
    {
        h = fnv_u32(h, x);
    }
    o.u32(h);
    let mut pk = w.iter().peekable();
    let mut runs = 0u32;
    while let Some(&x) = pk.next() {
        if let Some(&&y) = pk.peek() {
            if y == x {
                runs += 1;
            }
        }
    }
    o.u32(runs);
    o.u32(
        w.iter()
            .flat_map(|&x| x.to_be_bytes())
            .filter(|&b| b == 0xFF)
            .count() as u32,
    );
    o.u32(
        w.iter()
            .scan(0u32, |s, &x| {
                *s = s.wrapping_add(x);
                Some(*s)
            })
            .last()
            .unwrap_or(0),
    );
    o.u32(
        w.iter()
            .map_while(|&x| if x != 0 { Some(x) } else { None })
            .count() as u32,
    );
}

pub const CASES: &[Case] = &[
    case!(sl_chunks),
    case!(sl_chunks_exact),
    case!(sl_rchunks),
    case!(sl_windows),
    case!(sl_rev_zip),
    case!(sl_fold_sum),
    case!(sl_position),
    case!(sl_binary_search),
    case!(sl_insertion_sort),
    case!(sl_sort_unstable),
    case!(sl_sort_stable_by_key),
    case!(sl_select_nth),
    case!(sl_rotate_reverse),
    case!(sl_split),
    case!(sl_iter_adapters),
];
