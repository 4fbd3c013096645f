//! Recursion: fib, Ackermann (small), mutual recursion, recursive quicksort, Hanoi.

use super::case;
use super::util::*;
use crate::{Case, Out};

#[inline(never)]
fn fib(n: u32) -> u32 {
    if n < 2 {
        n
    } else {
        fib(n - 1).wrapping_add(fib(n - 2))
    }
}

fn rec_fib(o: &mut Out) {
    for n in 0..=bb(20u32) {
        o.u32(fib(bb(n)));
    }
}

#[inline(never)]
fn ack(m: u32, n: u32) -> u32 {
    if m == 0 {
        n + 1
    } else if n == 0 {
        ack(m - 1, 1)
    } else {
        ack(m - 1, ack(m, n - 1))
    }
}

fn rec_ackermann(o: &mut Out) {
    for (m, n) in [(0u32, 0u32), (1, 5), (2, 3), (2, 10), (3, 2), (3, 3)] {
        o.u32(ack(bb(m), bb(n)));
    }
}

#[inline(never)]
fn is_even(n: u32) -> bool {
    if n == 0 { true } else { is_odd(n - 1) }
}
#[inline(never)]
fn is_odd(n: u32) -> bool {
    if n == 0 { false } else { is_even(n - 1) }
}

fn rec_mutual(o: &mut Out) {
    for n in [0u32, 1, 2, 7, 50, 101] {
        o.bool(is_even(bb(n)));
        o.bool(is_odd(bb(n)));
    }
}

#[inline(never)]
fn quicksort(v: &mut [u16]) {
    if v.len() <= 1 {
        return;
    }
    let last = v.len() - 1;
    v.swap(v.len() / 2, last);
    let p = v[last];
    let mut store = 0;
    for i in 0..last {
        if v[i] < p {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, last);
    let (l, r) = v.split_at_mut(store);
    quicksort(l);
    quicksort(&mut r[1..]);
}

fn rec_quicksort(o: &mut Out) {
    let mut a = [0u16; 64];
    let a = bb(&mut a);
    let mut r = Rng(bb(4242));
    for x in a.iter_mut() {
        *x = (r.next() % 200) as u16;
    }
    quicksort(a);
    for &x in a.iter() {
        o.u16(x);
    }
}

#[inline(never)]
fn hanoi(n: u8, from: u8, to: u8, via: u8, moves: &mut u32, h: &mut u32) {
    if n == 0 {
        return;
    }
    hanoi(n - 1, from, via, to, moves, h);
    *moves += 1;
    *h = h
        .wrapping_mul(31)
        .wrapping_add((from as u32) << 4 | to as u32);
    hanoi(n - 1, via, to, from, moves, h);
}

fn rec_hanoi(o: &mut Out) {
    for n in [1u8, 3, 10] {
        let (mut m, mut h) = (0u32, 0u32);
        hanoi(bb(n), 1, 3, 2, &mut m, &mut h);
        o.u32(m);
        o.u32(h);
    }
}

/// Recursion with a u64 accumulator and many arguments (stack-passed args on the 68k).
#[inline(never)]
fn sum_args(depth: u32, a: u64, b: u32, c: u16, d: u8, e: i32, f: i64) -> u64 {
    if depth == 0 {
        return a
            ^ (b as u64)
            ^ ((c as u64) << 32)
            ^ ((d as u64) << 48)
            ^ (e as i64 as u64)
            ^ (f as u64);
    }
    sum_args(
        depth - 1,
        a.wrapping_add(f as u64),
        b.rotate_left(1),
        c.wrapping_add(d as u16),
        d ^ 0x5A,
        e.wrapping_sub(1),
        f.wrapping_mul(-3),
    )
}

fn rec_many_args(o: &mut Out) {
    o.u64(sum_args(bb(0), 1, 2, 3, 4, -5, 6));
    o.u64(sum_args(
        bb(17),
        bb(0x1234_5678_9ABC_DEF0),
        bb(0x8000_0001),
        bb(0xFFFF),
        bb(0x80),
        bb(-1),
        bb(i64::MIN + 1),
    ));
}

pub const CASES: &[Case] = &[
    case!(rec_fib),
    case!(rec_ackermann),
    case!(rec_mutual),
    case!(rec_quicksort),
    case!(rec_hanoi),
    case!(rec_many_args),
];
