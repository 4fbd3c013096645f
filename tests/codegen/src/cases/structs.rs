//! Struct copies with odd field layout (`#[repr(C)]` u8, u32, u16: the 68k aligns u32 to 2),
//! packed structs and their sizes (only `packed` sizes are portable), `mem::swap`/`replace`.

use super::case;
use super::util::*;
use crate::{Case, Out};
use core::mem;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C)]
struct Odd {
    a: u8,
    b: u32,
    c: u16,
    d: u8,
    e: u64,
    f: i8,
}

fn odd(i: u32) -> Odd {
    Odd {
        a: i as u8 ^ 0x80,
        b: i.wrapping_mul(0x0101_0101),
        c: (i as u16).wrapping_mul(0x1111),
        d: 0xD0 | i as u8,
        e: (i as u64) << 40 | 0xEE,
        f: -(i as i8),
    }
}

fn emit_odd(o: &mut Out, x: &Odd) {
    o.u8(x.a);
    o.u32(x.b);
    o.u16(x.c);
    o.u8(x.d);
    o.u64(x.e);
    o.i8(x.f);
}

fn struct_odd_copy(o: &mut Out) {
    let mut arr = [odd(0); 6];
    let arr = bb(&mut arr);
    for (i, x) in arr.iter_mut().enumerate() {
        *x = odd(i as u32 + 1);
    }
    let t = arr[bb(0)];
    arr[0] = arr[bb(5)];
    arr[5] = t;
    arr[2].b ^= 0xFFFF_FFFF;
    arr[3].e = arr[3].e.rotate_left(12);
    for x in arr.iter() {
        emit_odd(o, x);
    }
    o.bool(arr[1] == odd(2));
    o.bool(arr[2] == odd(3));
}

#[inline(never)]
fn by_value(mut x: Odd, k: u8) -> Odd {
    x.a = x.a.wrapping_add(k);
    x.c = x.c.rotate_left(k as u32);
    x.e ^= x.b as u64;
    x
}

fn struct_pass_by_value(o: &mut Out) {
    let mut x = odd(bb(9));
    for k in 0..bb(5u8) {
        x = by_value(x, k);
        emit_odd(o, &x);
    }
}

#[derive(Clone, Copy)]
#[repr(C, packed)]
struct Packed {
    a: u8,
    b: u32,
    c: u16,
    d: u64,
}

#[derive(Clone, Copy)]
#[repr(C, packed(2))]
struct Packed2 {
    a: u8,
    b: u32,
    c: u8,
}

fn struct_packed(o: &mut Out) {
    o.u32(mem::size_of::<Packed>() as u32);
    o.u32(mem::size_of::<Packed2>() as u32);
    o.u32(mem::size_of::<[Packed; 3]>() as u32);
    let mut ps = [Packed {
        a: 0,
        b: 0,
        c: 0,
        d: 0,
    }; 3];
    let ps = bb(&mut ps);
    for (i, p) in ps.iter_mut().enumerate() {
        p.a = i as u8;
        p.b = 0x1020_3040 + i as u32;
        p.c = 0xAB00 | i as u16;
        p.d = 0x1122_3344_5566_7788 ^ i as u64;
    }
    for p in ps.iter() {
        let (a, b, c, d) = (p.a, p.b, p.c, p.d);
        o.u8(a);
        o.u32(b);
        o.u16(c);
        o.u64(d);
        // unaligned field read through a raw pointer
        let bp = core::ptr::addr_of!(p.b);
        o.u32(unsafe { bp.read_unaligned() });
    }
    let q = Packed2 {
        a: bb(1),
        b: bb(0xCAFE_F00D),
        c: bb(3),
    };
    let (a, b, c) = (q.a, q.b, q.c);
    o.u8(a);
    o.u32(b);
    o.u8(c);
}

fn struct_swap_replace(o: &mut Out) {
    let mut a = odd(bb(1));
    let mut b = odd(bb(2));
    mem::swap(&mut a, &mut b);
    emit_odd(o, &a);
    emit_odd(o, &b);
    let old = mem::replace(&mut a, odd(bb(7)));
    emit_odd(o, &old);
    emit_odd(o, &a);
    let mut arr = [5u16, 6, 7];
    let t = mem::take(bb(&mut arr));
    o.u16(t[2]);
    o.u16(arr[2]);
}

/// Tuple structs, nested structs and enums with payloads copied around.
fn struct_nested_enum(o: &mut Out) {
    #[derive(Clone, Copy)]
    enum Ev {
        Key { code: u8, mods: u16 },
        Mouse(i16, i16),
        Disk(u32),
        Null,
    }
    #[derive(Clone, Copy)]
    struct Rec {
        when: u32,
        ev: Ev,
        tag: (u8, u8),
    }
    let evs = [
        Rec {
            when: 1,
            ev: Ev::Key {
                code: 0x24,
                mods: 0x0100,
            },
            tag: (1, 2),
        },
        Rec {
            when: 0xFFFF_FFFF,
            ev: Ev::Mouse(-5, 300),
            tag: (3, 4),
        },
        Rec {
            when: 77,
            ev: Ev::Disk(0x0001_0002),
            tag: (5, 6),
        },
        Rec {
            when: 0,
            ev: Ev::Null,
            tag: (7, 8),
        },
    ];
    let evs = bb(&evs);
    let mut copy = *evs;
    copy.rotate_left(1);
    for r in copy.iter() {
        o.u32(r.when);
        match r.ev {
            Ev::Key { code, mods } => {
                o.u8(1);
                o.u8(code);
                o.u16(mods);
            }
            Ev::Mouse(x, y) => {
                o.u8(2);
                o.i16(x);
                o.i16(y);
            }
            Ev::Disk(d) => {
                o.u8(3);
                o.u32(d);
            }
            Ev::Null => o.u8(4),
        }
        o.u8(r.tag.0);
        o.u8(r.tag.1);
    }
}

pub const CASES: &[Case] = &[
    case!(struct_odd_copy),
    case!(struct_pass_by_value),
    case!(struct_packed),
    case!(struct_swap_replace),
    case!(struct_nested_enum),
];
