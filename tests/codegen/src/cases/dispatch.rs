//! Function pointers in arrays, trait objects (`&dyn`, `Box<dyn>`), closures.

use super::case;
use super::util::*;
use crate::{Case, Out};
use alloc::boxed::Box;
use alloc::vec::Vec;

fn f_add(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}
fn f_sub(a: u32, b: u32) -> u32 {
    a.wrapping_sub(b)
}
fn f_mul(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}
fn f_div(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}
fn f_xor(a: u32, b: u32) -> u32 {
    a ^ b
}
fn f_rot(a: u32, b: u32) -> u32 {
    a.rotate_left(b)
}

static OPS: [fn(u32, u32) -> u32; 6] = [f_add, f_sub, f_mul, f_div, f_xor, f_rot];

fn dyn_fn_table(o: &mut Out) {
    let ops = bb(&OPS);
    let mut acc = bb(0x1234_5678u32);
    for i in 0..bb(30u32) {
        let f = ops[(i % 6) as usize];
        acc = f(acc, i.wrapping_mul(0x9E37));
        o.u32(acc);
    }
}

fn dyn_fn_local_array(o: &mut Out) {
    let fs: [fn(u64) -> u64; 4] = [
        |x| x.wrapping_mul(3),
        |x| x >> 1,
        |x| x ^ 0xFFFF_0000_FFFF_0000,
        |x| x.rotate_left(17),
    ];
    let fs = bb(&fs);
    let mut v = bb(0x0123_4567_89AB_CDEFu64);
    for k in [0usize, 1, 2, 3, 3, 2, 1, 0, 2, 2] {
        v = fs[k](v);
        o.u64(v);
    }
}

trait Shape {
    fn area(&self) -> u32;
    fn sides(&self) -> u8;
    fn name(&self) -> &'static [u8] {
        b"shape"
    }
}
struct Sq(u16);
struct Rect(u16, u16);
struct Tri(u16, u16);
struct Poly {
    n: u8,
    side: u32,
}
impl Shape for Sq {
    fn area(&self) -> u32 {
        self.0 as u32 * self.0 as u32
    }
    fn sides(&self) -> u8 {
        4
    }
    fn name(&self) -> &'static [u8] {
        b"sq"
    }
}
impl Shape for Rect {
    fn area(&self) -> u32 {
        self.0 as u32 * self.1 as u32
    }
    fn sides(&self) -> u8 {
        4
    }
}
impl Shape for Tri {
    fn area(&self) -> u32 {
        (self.0 as u32 * self.1 as u32) / 2
    }
    fn sides(&self) -> u8 {
        3
    }
    fn name(&self) -> &'static [u8] {
        b"tri"
    }
}
impl Shape for Poly {
    fn area(&self) -> u32 {
        self.side
            .wrapping_mul(self.side)
            .wrapping_mul(self.n as u32)
            / 4
    }
    fn sides(&self) -> u8 {
        self.n
    }
}

fn dyn_ref(o: &mut Out) {
    let a = Sq(bb(300));
    let b = Rect(bb(65535), bb(65535));
    let c = Tri(bb(7), bb(9));
    let d = Poly {
        n: bb(6),
        side: bb(1000),
    };
    let shapes: [&dyn Shape; 4] = [&a, &b, &c, &d];
    for s in bb(&shapes).iter().chain(bb(&shapes).iter().rev()) {
        o.u32(s.area());
        o.u8(s.sides());
        o.bytes(s.name());
    }
}

fn dyn_box(o: &mut Out) {
    let mut v: Vec<Box<dyn Shape>> = Vec::new();
    for i in 0..bb(12u16) {
        let b: Box<dyn Shape> = match i % 4 {
            0 => Box::new(Sq(i)),
            1 => Box::new(Rect(i, i + 1)),
            2 => Box::new(Tri(i, 2 * i)),
            _ => Box::new(Poly {
                n: i as u8,
                side: i as u32 * 3,
            }),
        };
        v.push(b);
    }
    v.sort_by_key(|s| s.area());
    for s in &v {
        o.u32(s.area());
        o.u8(s.sides());
    }
    let total: u32 = v.iter().map(|s| s.area()).sum();
    o.u32(total);
}

trait Acc {
    fn feed(&mut self, x: u8);
    fn result(&self) -> u32;
}
struct SumAcc(u32);
struct FnvAcc(u32);
struct MaxAcc(u8, u32);
impl Acc for SumAcc {
    fn feed(&mut self, x: u8) {
        self.0 = self.0.wrapping_add(x as u32);
    }
    fn result(&self) -> u32 {
        self.0
    }
}
impl Acc for FnvAcc {
    fn feed(&mut self, x: u8) {
        self.0 = (self.0 ^ x as u32).wrapping_mul(0x0100_0193);
    }
    fn result(&self) -> u32 {
        self.0
    }
}
impl Acc for MaxAcc {
    fn feed(&mut self, x: u8) {
        if x >= self.0 {
            self.0 = x;
            self.1 += 1;
        }
    }
    fn result(&self) -> u32 {
        (self.0 as u32) << 16 | self.1
    }
}

fn dyn_mut(o: &mut Out) {
    let mut s = SumAcc(0);
    let mut f = FnvAcc(0x811C_9DC5);
    let mut m = MaxAcc(0, 0);
    let mut accs: [&mut dyn Acc; 3] = [&mut s, &mut f, &mut m];
    let data = bb(b"The quick brown fox jumps over the lazy dog \xFF\x00\x80");
    for &b in data.iter() {
        for a in accs.iter_mut() {
            a.feed(b);
        }
    }
    for a in accs.iter() {
        o.u32(a.result());
    }
}

fn apply_dyn(f: &dyn Fn(u32) -> u32, x: u32) -> u32 {
    f(f(x))
}

fn dyn_closures(o: &mut Out) {
    let k = bb(0x55u32);
    let add = move |x: u32| x.wrapping_add(k);
    let mut count = 0u32;
    let mut counter = |x: u32| {
        count += 1;
        x ^ count
    };
    let boxed: Vec<Box<dyn Fn(u32) -> u32>> = alloc::vec![
        Box::new(add),
        Box::new(|x| x * 2),
        Box::new(move |x| x.rotate_right(k & 31))
    ];
    let mut v = bb(1u32);
    for f in boxed.iter() {
        v = apply_dyn(f.as_ref(), v);
        o.u32(v);
    }
    for _ in 0..5 {
        v = counter(v);
        o.u32(v);
    }
    o.u32(count);
}

pub const CASES: &[Case] = &[
    case!(dyn_fn_table),
    case!(dyn_fn_local_array),
    case!(dyn_ref),
    case!(dyn_box),
    case!(dyn_mut),
    case!(dyn_closures),
];
