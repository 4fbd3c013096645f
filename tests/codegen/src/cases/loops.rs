//! Loops with early exits, labelled breaks and several loop-carried values.

use super::case;
use super::util::*;
use crate::{Case, Out};

static DATA: [u32; 32] = [
    5,
    17,
    3,
    99,
    0,
    42,
    0x8000_0000,
    7,
    7,
    13,
    250,
    1,
    2,
    0xFFFF_FFFF,
    64,
    63,
    31,
    32,
    33,
    100,
    101,
    8,
    9,
    10,
    11,
    12,
    0x7FFF_FFFF,
    6,
    4,
    300,
    299,
    1000,
];

fn data() -> &'static [u32; 32] {
    bb(&DATA)
}

fn loop_find_first(o: &mut Out) {
    let d = data();
    for t in [0u32, 6, 50, 99, 0x7FFF_FFFF, 0xFFFF_FFFF] {
        let t = bb(t);
        let mut idx = 0xFFFFu16;
        for (i, &x) in d.iter().enumerate() {
            if x > t {
                idx = i as u16;
                break;
            }
        }
        o.u16(idx);
    }
}

fn loop_labeled(o: &mut Out) {
    let d = data();
    let mut pairs = 0u32;
    let mut found = (0u16, 0u16);
    'outer: for i in 0..d.len() {
        for j in (i + 1)..d.len() {
            pairs += 1;
            if d[i].wrapping_add(d[j]) == bb(200) {
                found = (i as u16, j as u16);
                break 'outer;
            }
            if d[j] == 0 {
                continue 'outer;
            }
        }
    }
    o.u32(pairs);
    o.u16(found.0);
    o.u16(found.1);
}

fn loop_break_value(o: &mut Out) {
    for seed in [1u32, 27, 97, 871, 0x7FFF_FFFF] {
        let mut n = bb(seed);
        let mut steps = 0u32;
        let peak = loop {
            if n == 1 || steps >= 500 {
                break steps;
            }
            n = if n % 2 == 0 {
                n / 2
            } else {
                n.wrapping_mul(3).wrapping_add(1)
            };
            steps += 1;
        };
        o.u32(peak);
        o.u32(n);
    }
}

fn loop_fib_iter(o: &mut Out) {
    let (mut a, mut b) = (0u64, 1u64);
    let n = bb(90u32);
    for _ in 0..n {
        let t = a.wrapping_add(b);
        a = b;
        b = t;
    }
    o.u64(a);
    o.u64(b);
    let (mut x, mut y) = (bb(0u16), bb(1u16));
    for _ in 0..bb(30) {
        let t = x.wrapping_add(y);
        x = y;
        y = t;
    }
    o.u16(x);
    o.u16(y);
}

fn loop_gcd(o: &mut Out) {
    let pairs: [(u32, u32); 6] = [
        (48, 18),
        (17, 5),
        (0, 9),
        (1071, 462),
        (0xFFFF_FFFF, 0x10001),
        (1 << 31, 1 << 12),
    ];
    for &(a, b) in bb(&pairs) {
        let (mut a, mut b) = (a, b);
        let mut it = 0u32;
        while b != 0 {
            let t = a % b;
            a = b;
            b = t;
            it += 1;
        }
        o.u32(a);
        o.u32(it);
    }
}

/// Multiple loop-carried values rotating through each other (register pressure + copies).
fn loop_carried_rotate(o: &mut Out) {
    let (mut a, mut b, mut c, mut d) = (bb(1u32), bb(2u32), bb(3u32), bb(4u32));
    let mut i = bb(0u32);
    while i < bb(37) {
        let t = a;
        a = b.wrapping_add(c ^ i);
        b = c.rotate_left(5);
        c = d.wrapping_sub(t);
        d = t ^ (a >> 3);
        i += 1;
    }
    o.u32(a);
    o.u32(b);
    o.u32(c);
    o.u32(d);
}

fn loop_while_let(o: &mut Out) {
    let d = data();
    let mut it = d.iter().copied().filter(|&x| x % 3 == 0);
    let mut acc = 0u32;
    let mut n = 0u32;
    while let Some(x) = it.next() {
        acc = acc.wrapping_mul(7).wrapping_add(x);
        n += 1;
        if n == 7 {
            break;
        }
    }
    o.u32(acc);
    o.u32(n);
}

fn loop_nested_count(o: &mut Out) {
    let n = bb(13u32);
    let mut c = 0u32;
    let mut s = 0u64;
    for i in 0..n {
        for j in i..n {
            for k in j..n {
                c += 1;
                s = s.wrapping_add((i * 100 + j * 10 + k) as u64);
            }
        }
    }
    o.u32(c);
    o.u64(s);
}

fn loop_down_to_zero(o: &mut Out) {
    for start in [0u32, 1, 5, 100] {
        let mut i = bb(start);
        let mut s = 0u32;
        while i > 0 {
            i -= 1;
            s = s.wrapping_mul(3) + i;
        }
        o.u32(s);
        let mut k = bb(start as i32);
        let mut t = 0i32;
        while k >= -3 {
            t = t.wrapping_add(k);
            k -= 2;
        }
        o.i32(t);
    }
}

fn loop_step_by_rev(o: &mut Out) {
    let n = bb(50u32);
    let mut s = 0u32;
    for i in (0..n).step_by(7) {
        s = s.wrapping_mul(3).wrapping_add(i);
    }
    o.u32(s);
    for i in (3..n).rev().step_by(11) {
        o.u8(i as u8);
    }
    for i in (0..=bb(10u8)).rev() {
        o.u8(i);
    }
}

pub const CASES: &[Case] = &[
    case!(loop_find_first),
    case!(loop_labeled),
    case!(loop_break_value),
    case!(loop_fib_iter),
    case!(loop_gcd),
    case!(loop_carried_rotate),
    case!(loop_while_let),
    case!(loop_nested_count),
    case!(loop_down_to_zero),
    case!(loop_step_by_rev),
];
