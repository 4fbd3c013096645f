//! Bit-fields and bitflags-style manual masks.

use super::case;
use super::util::*;
use crate::{Case, Out};

/// SCSI status/sense style packed fields in a u32:
/// [31:28] kind, [27:20] asc, [19:12] ascq, [11] valid, [10:8] lun, [7:0] status.
#[derive(Clone, Copy)]
struct Packed(u32);
impl Packed {
    fn new(kind: u8, asc: u8, ascq: u8, valid: bool, lun: u8, status: u8) -> Self {
        Packed(
            ((kind as u32 & 0xF) << 28)
                | ((asc as u32) << 20)
                | ((ascq as u32) << 12)
                | ((valid as u32) << 11)
                | ((lun as u32 & 7) << 8)
                | status as u32,
        )
    }
    fn kind(self) -> u8 {
        (self.0 >> 28) as u8
    }
    fn asc(self) -> u8 {
        (self.0 >> 20) as u8
    }
    fn ascq(self) -> u8 {
        (self.0 >> 12) as u8
    }
    fn valid(self) -> bool {
        self.0 & (1 << 11) != 0
    }
    fn lun(self) -> u8 {
        ((self.0 >> 8) & 7) as u8
    }
    fn set_lun(&mut self, l: u8) {
        self.0 = (self.0 & !(7 << 8)) | ((l as u32 & 7) << 8);
    }
}

fn bits_packed_fields(o: &mut Out) {
    let mut r = Rng(bb(8));
    for _ in 0..12 {
        let x = r.next();
        let p = Packed::new(
            x as u8,
            (x >> 8) as u8,
            (x >> 16) as u8,
            x & 0x100 != 0,
            (x >> 24) as u8,
            (x >> 3) as u8,
        );
        o.u32(p.0);
        o.u8(p.kind());
        o.u8(p.asc());
        o.u8(p.ascq());
        o.bool(p.valid());
        o.u8(p.lun());
        let mut q = p;
        q.set_lun(bb(5));
        o.u32(q.0);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Flags(u16);
impl Flags {
    const LOCKED: Flags = Flags(1 << 0);
    const DIRTY: Flags = Flags(1 << 1);
    const REMOVABLE: Flags = Flags(1 << 5);
    const READ_ONLY: Flags = Flags(1 << 7);
    const BUSY: Flags = Flags(1 << 15);
    fn contains(self, o: Flags) -> bool {
        self.0 & o.0 == o.0
    }
    fn intersects(self, o: Flags) -> bool {
        self.0 & o.0 != 0
    }
    fn insert(&mut self, o: Flags) {
        self.0 |= o.0;
    }
    fn remove(&mut self, o: Flags) {
        self.0 &= !o.0;
    }
    fn toggle(&mut self, o: Flags) {
        self.0 ^= o.0;
    }
}

fn bits_flags(o: &mut Out) {
    let mut f = Flags(bb(0));
    let all = [
        Flags::LOCKED,
        Flags::DIRTY,
        Flags::REMOVABLE,
        Flags::READ_ONLY,
        Flags::BUSY,
    ];
    for (i, &x) in all.iter().enumerate() {
        if i % 2 == 0 {
            f.insert(x);
        } else {
            f.toggle(x);
        }
        o.u16(f.0);
    }
    f.remove(Flags::BUSY);
    o.u16(f.0);
    for &x in &all {
        o.bool(f.contains(x));
        o.bool(f.intersects(Flags(x.0 | Flags::BUSY.0)));
    }
    o.bool(f == Flags(0x00A3));
    f.toggle(Flags(bb(0xFFFF)));
    o.u16(f.0);
}

/// Single-bit test/set/clear with variable bit numbers (BTST/BSET/BCLR candidates).
fn bits_single(o: &mut Out) {
    let mut w = bb(0u32);
    let mut b = bb(0u8);
    for i in 0..bb(40u32) {
        let n = (i * 7) % 32;
        if w & (1 << n) == 0 {
            w |= 1 << n;
        } else {
            w &= !(1 << n);
        }
        let m = (i % 8) as u8;
        b ^= 1 << m;
        o.bool(b & (1 << m) != 0);
    }
    o.u32(w);
    o.u8(b);
    let mut bitmap = [0u8; 16];
    let bm = bb(&mut bitmap);
    for k in [0usize, 1, 9, 15, 64, 100, 127, 8, 9] {
        bm[k / 8] ^= 1 << (k % 8);
    }
    o.bytes(bm);
    let first_free = bm
        .iter()
        .position(|&x| x != 0xFF)
        .map_or(0xFF, |i| i as u8 * 8 + bm[i].trailing_ones() as u8);
    o.u8(first_free);
}

/// Extract/insert arbitrary bit-fields of u64 (BFEXTU-like on the 68020, shifts on the 68000).
fn bits_extract_insert(o: &mut Out) {
    let v = bb(0xF0E1_D2C3_B4A5_9687u64);
    for (off, width) in [
        (0u32, 1u32),
        (3, 5),
        (7, 9),
        (28, 8),
        (31, 2),
        (32, 32),
        (60, 4),
        (0, 63),
    ] {
        let mask = (1u64 << width) - 1;
        let f = (v >> off) & mask;
        o.u64(f);
        let ins = (v & !(mask << off)) | ((!f & mask) << off);
        o.u64(ins);
    }
}

/// Mac ResFile-style attribute byte tests and 16-bit color packing (RGB555).
fn bits_rgb555(o: &mut Out) {
    for c in [
        0u32, 0xFFFFFF, 0x123456, 0xFF0000, 0x00FF00, 0x0000FF, 0x808080,
    ] {
        let c = bb(c);
        let (r, g, b) = (
            (c >> 16) as u16 & 0xFF,
            (c >> 8) as u16 & 0xFF,
            c as u16 & 0xFF,
        );
        let p = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3);
        o.u16(p);
        let back = ((p >> 10) & 31) << 3 | ((p >> 5) & 31) << 3 << 8 | (p & 31) << 3;
        o.u16(back);
    }
}

pub const CASES: &[Case] = &[
    case!(bits_packed_fields),
    case!(bits_flags),
    case!(bits_single),
    case!(bits_extract_insert),
    case!(bits_rgb555),
];
