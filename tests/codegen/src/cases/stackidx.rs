//! Variable indices into *stack* arrays.
//!
//! With rustc nightly-2026-10-01 (LLVM 23.1.1) the M68k backend drops the index register when
//! the base of an indexed address is a stack slot: `tmp[i] = v` is emitted as
//! `move.b v,(0,%sp)` (always `tmp[0]`), and `tmp[j]` loads `tmp[0]`. The build avoids it with
//! the stack-index rewrite (`retro68-build/src/stackidx.rs`); these cases fail if a build
//! skips it. Other cases keep their data behind `black_box`ed references so they test their
//! own operations; these cases exercise the stack pattern on purpose.

use super::case;
use super::util::*;
use crate::{Case, Out};

#[inline(never)]
fn store_load_u8(i: u32, j: u32, v: u8) -> u8 {
    let mut tmp = [0u8; 16];
    tmp[(i & 15) as usize] = v;
    bb(&mut tmp);
    tmp[(j & 15) as usize]
}

fn stackidx_u8(o: &mut Out) {
    for i in 0..16u32 {
        o.u8(store_load_u8(bb(i), bb(i), 0xA0 | i as u8));
        o.u8(store_load_u8(bb(i), bb(15 - i), 0x55));
    }
}

#[inline(never)]
fn store_load_u32(i: u32, j: u32, v: u32) -> u32 {
    let mut tmp = [0u32; 16];
    tmp[(i & 15) as usize] = v;
    bb(&mut tmp);
    tmp[(j & 15) as usize]
}

fn stackidx_u32(o: &mut Out) {
    for i in 0..16u32 {
        o.u32(store_load_u32(bb(i), bb(i), 0xDEAD_0000 | i));
    }
}

/// Fill a local array in a loop and read it back in another loop.
fn stackidx_fill_loop(o: &mut Out) {
    let n = bb(24usize);
    let mut a = [0u16; 24];
    let mut i = 0;
    while i < n {
        a[i] = (i as u16).wrapping_mul(0x1111);
        i += 1;
    }
    let mut s = 0u32;
    let mut j = 0;
    while j < n {
        s = s.wrapping_mul(31).wrapping_add(a[j] as u32);
        o.u16(a[j]);
        j += 1;
    }
    o.u32(s);
}

/// Decimal digits into a stack buffer, then reversed (the classic itoa shape).
fn stackidx_itoa(o: &mut Out) {
    for v in [0u32, 7, 10, 12345, 4_294_967_295] {
        let mut v = bb(v);
        let mut tmp = [0u8; 10];
        let mut n = 0;
        loop {
            tmp[n] = b'0' + (v % 10) as u8;
            n += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        o.u8(n as u8);
        while n > 0 {
            n -= 1;
            o.u8(tmp[n]);
        }
    }
}

/// A stack lookup table indexed by data (histogram).
fn stackidx_histogram(o: &mut Out) {
    let data: [u8; 64] = core::array::from_fn(|i| (i as u8).wrapping_mul(29) >> 3);
    let data = bb(&data);
    let mut hist = [0u8; 32];
    for &d in data.iter() {
        hist[(d & 31) as usize] += 1;
    }
    o.bytes(&hist);
}

/// The same, over an array of structs on the stack.
fn stackidx_struct_array(o: &mut Out) {
    #[derive(Clone, Copy)]
    struct P {
        a: u16,
        b: u32,
    }
    let mut ps = [P { a: 0, b: 0 }; 8];
    for i in 0..bb(8usize) {
        ps[i] = P {
            a: i as u16 * 3,
            b: 0x100 << i,
        };
    }
    for k in 0..bb(8usize) {
        let p = ps[7 - k];
        o.u16(p.a);
        o.u32(p.b);
    }
}

pub const CASES: &[Case] = &[
    case!(stackidx_u8),
    case!(stackidx_u32),
    case!(stackidx_fill_loop),
    case!(stackidx_itoa),
    case!(stackidx_histogram),
    case!(stackidx_struct_array),
];
