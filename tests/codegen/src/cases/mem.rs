//! `memcpy` / `memmove` / `memset` / `memcmp` at every alignment (source and destination offsets
//! 0..=3) and every length 0..=300, through `ptr::copy_nonoverlapping`, `ptr::copy`,
//! `ptr::write_bytes`, `copy_from_slice`, `fill`, slice `==` and `cmp`, checked against
//! hand-written byte loops (volatile, so LLVM cannot turn them back into the same libcalls).
//!
//! Each case covers two destination offsets, all four source offsets (for memset: four fill
//! values) and all lengths; it writes the FNV-1a hash of each whole 320-byte buffer at a few
//! lengths, a checksum chained over the buffers of all lengths, the number of mismatches
//! against the reference (every byte of every buffer compared) and the first mismatch (dst
//! offset, src offset, length, first differing position). The chained checksum is a
//! multiply-free one: FNV-1a's 32-bit multiply is a libcall on the 68000, and hashing every
//! buffer with it made a case take over 500 M emulated instructions.
//!
//! Helpers are `#[inline(never)]` and take references, so the buffers are addressed through
//! pointer registers (see `stackidx` for what happens to variable indices into stack slots).

use super::case;
use super::util::*;
use crate::{Case, Out};
use core::ptr;

const BUF: usize = 320;
const MAX_LEN: usize = 300;
/// Lengths whose individual buffer hash is written.
const SEL: [usize; 12] = [0, 1, 2, 3, 4, 7, 15, 16, 17, 100, 255, 300];
const FILL: [u8; 4] = [0x00, 0xAA, 0xFF, 0x5C];

type Buf = [u8; BUF];
/// `op(dst, src, dst_off, src_off, len)`
type Op = fn(&mut Buf, &Buf, usize, usize, usize);

#[inline(never)]
fn init(b: &mut Buf, seed: u8) {
    let mut i = 0;
    while i < BUF {
        b[i] = (i as u8).wrapping_mul(7).wrapping_add(seed) ^ ((i >> 8) as u8);
        i += 1;
    }
}

#[inline(never)]
fn hash(b: &Buf) -> u32 {
    fnv1a(&b[..])
}

/// A cheap checksum of a whole buffer (rotate, xor, multiply by 9: no libcall on the 68000).
#[inline(never)]
fn checksum(b: &Buf) -> u32 {
    let mut h = 0x2545_F491u32;
    let mut i = 0;
    while i < BUF {
        h = (h.rotate_left(5) ^ b[i] as u32).wrapping_mul(9);
        i += 1;
    }
    h
}

#[inline(never)]
fn first_diff(a: &Buf, b: &Buf) -> u16 {
    let mut i = 0;
    while i < BUF {
        if a[i] != b[i] {
            return i as u16;
        }
        i += 1;
    }
    0xFFFF
}

/// Byte-loop reference for copies: `dst[d..d+len] = src[s..s+len]`.
#[inline(never)]
fn ref_copy(dst: &mut Buf, src: &Buf, d: usize, s: usize, len: usize) {
    let mut i = 0;
    while i < len {
        unsafe { ptr::write_volatile(&mut dst[d + i], ptr::read_volatile(&src[s + i])) };
        i += 1;
    }
}

/// Byte-loop reference for in-place moves, via a temporary.
#[inline(never)]
fn ref_move(buf: &mut Buf, d: usize, s: usize, len: usize) {
    let mut tmp = [0u8; BUF];
    let t = bb(&mut tmp);
    let mut i = 0;
    while i < len {
        unsafe { ptr::write_volatile(&mut t[i], ptr::read_volatile(&buf[s + i])) };
        i += 1;
    }
    i = 0;
    while i < len {
        unsafe { ptr::write_volatile(&mut buf[d + i], ptr::read_volatile(&t[i])) };
        i += 1;
    }
}

#[inline(never)]
fn ref_fill(dst: &mut Buf, d: usize, v: u8, len: usize) {
    let mut i = 0;
    while i < len {
        unsafe { ptr::write_volatile(&mut dst[d + i], v) };
        i += 1;
    }
}

fn op_copy_nonoverlapping(dst: &mut Buf, src: &Buf, d: usize, s: usize, len: usize) {
    unsafe { ptr::copy_nonoverlapping(src.as_ptr().add(s), dst.as_mut_ptr().add(d), bb(len)) }
}
fn ref_copy_op(dst: &mut Buf, src: &Buf, d: usize, s: usize, len: usize) {
    ref_copy(dst, src, d, s, len)
}
fn op_copy_from_slice(dst: &mut Buf, src: &Buf, d: usize, s: usize, len: usize) {
    let len = bb(len);
    dst[d..d + len].copy_from_slice(&src[s..s + len]);
}
/// memmove, destination below the source (forward copy with overlap).
fn op_move_fwd(dst: &mut Buf, _: &Buf, d: usize, s: usize, len: usize) {
    unsafe { ptr::copy(dst.as_ptr().add(s + 4), dst.as_mut_ptr().add(d), bb(len)) }
}
fn ref_move_fwd(dst: &mut Buf, _: &Buf, d: usize, s: usize, len: usize) {
    ref_move(dst, d, s + 4, len)
}
/// memmove, destination above the source (backward copy with overlap).
fn op_move_bwd(dst: &mut Buf, _: &Buf, d: usize, s: usize, len: usize) {
    unsafe { ptr::copy(dst.as_ptr().add(s), dst.as_mut_ptr().add(d + 4), bb(len)) }
}
fn ref_move_bwd(dst: &mut Buf, _: &Buf, d: usize, s: usize, len: usize) {
    ref_move(dst, d + 4, s, len)
}
/// `s` selects the fill value.
fn op_write_bytes(dst: &mut Buf, _: &Buf, d: usize, s: usize, len: usize) {
    unsafe { ptr::write_bytes(dst.as_mut_ptr().add(d), bb(FILL[s]), bb(len)) }
}
fn op_fill(dst: &mut Buf, _: &Buf, d: usize, s: usize, len: usize) {
    let len = bb(len);
    dst[d..d + len].fill(bb(FILL[s]));
}
fn ref_fill_op(dst: &mut Buf, _: &Buf, d: usize, s: usize, len: usize) {
    ref_fill(dst, d, FILL[s], len)
}

#[inline(never)]
fn run_mut(o: &mut Out, doffs: [usize; 2], op: Op, refop: Op) {
    let mut t = [0u8; BUF];
    let mut r = [0u8; BUF];
    let mut s = [0u8; BUF];
    let (t, r, s) = (bb(&mut t), bb(&mut r), bb(&mut s));
    init(s, 0x5B);
    let mut all = 0u32;
    let mut bad = 0u32;
    let mut first = [0xFFFFu16; 4];
    for d in doffs {
        for so in 0..4 {
            let mut len = 0;
            while len <= MAX_LEN {
                init(t, 0x11);
                init(r, 0x11);
                op(t, s, bb(d), bb(so), len);
                refop(r, s, d, so, len);
                let diff = first_diff(t, r);
                if diff != 0xFFFF {
                    if bad == 0 {
                        first = [d as u16, so as u16, len as u16, diff];
                    }
                    bad += 1;
                }
                all = fnv_u32(all, checksum(t));
                if SEL.contains(&len) {
                    o.u32(hash(t));
                }
                len += 1;
            }
        }
    }
    o.u32(all);
    o.u32(bad);
    for f in first {
        o.u16(f);
    }
}

fn mem_copy_nonoverlapping_d01(o: &mut Out) {
    run_mut(o, [0, 1], op_copy_nonoverlapping, ref_copy_op)
}
fn mem_copy_nonoverlapping_d23(o: &mut Out) {
    run_mut(o, [2, 3], op_copy_nonoverlapping, ref_copy_op)
}
fn mem_copy_from_slice_d01(o: &mut Out) {
    run_mut(o, [0, 1], op_copy_from_slice, ref_copy_op)
}
fn mem_copy_from_slice_d23(o: &mut Out) {
    run_mut(o, [2, 3], op_copy_from_slice, ref_copy_op)
}
fn mem_move_fwd_d01(o: &mut Out) {
    run_mut(o, [0, 1], op_move_fwd, ref_move_fwd)
}
fn mem_move_fwd_d23(o: &mut Out) {
    run_mut(o, [2, 3], op_move_fwd, ref_move_fwd)
}
fn mem_move_bwd_d01(o: &mut Out) {
    run_mut(o, [0, 1], op_move_bwd, ref_move_bwd)
}
fn mem_move_bwd_d23(o: &mut Out) {
    run_mut(o, [2, 3], op_move_bwd, ref_move_bwd)
}
fn mem_write_bytes_d01(o: &mut Out) {
    run_mut(o, [0, 1], op_write_bytes, ref_fill_op)
}
fn mem_write_bytes_d23(o: &mut Out) {
    run_mut(o, [2, 3], op_write_bytes, ref_fill_op)
}
fn mem_fill_d01(o: &mut Out) {
    run_mut(o, [0, 1], op_fill, ref_fill_op)
}
fn mem_fill_d23(o: &mut Out) {
    run_mut(o, [2, 3], op_fill, ref_fill_op)
}

/// memcmp / bcmp: `a` at offset `sa`, `b` at offset `sb`, same bytes except an optional
/// difference (`kind`): none, last byte +1, first byte -1, middle 0x80 vs 0x7F (unsigned!).
#[inline(never)]
fn run_cmp(o: &mut Out, sbs: [usize; 2], ordered: bool) {
    let mut a = [0u8; BUF];
    let mut b = [0u8; BUF];
    let (a, b) = (bb(&mut a), bb(&mut b));
    let mut all = 0u32;
    let mut bad = 0u32;
    let mut first = [0xFFFFu16; 4];
    init(a, 0x33);
    for sb in sbs {
        for sa in 0..4usize {
            let mut len = 0;
            while len <= MAX_LEN {
                for kind in 0..4u32 {
                    init(b, 0x77);
                    ref_copy(b, a, sb, sa, len);
                    if len > 0 {
                        match kind {
                            1 => b[sb + len - 1] = a[sa + len - 1].wrapping_add(1),
                            2 => b[sb] = a[sa].wrapping_sub(1),
                            3 => {
                                b[sb + len / 2] = 0x80;
                                a[sa + len / 2] = 0x7F;
                            }
                            _ => {}
                        }
                    }
                    let (x, y) = (&a[sa..sa + bb(len)], &b[sb..sb + bb(len)]);
                    // reference: first difference, compared as unsigned bytes
                    let mut rf = 0i8;
                    let mut i = 0;
                    while i < len {
                        let (p, q) =
                            unsafe { (ptr::read_volatile(&x[i]), ptr::read_volatile(&y[i])) };
                        if p != q {
                            rf = if p < q { -1 } else { 1 };
                            break;
                        }
                        i += 1;
                    }
                    let got = if ordered {
                        ord(x.cmp(y))
                    } else {
                        (x != y) as i8
                    };
                    let want = if ordered { rf } else { (rf != 0) as i8 };
                    if got != want {
                        if bad == 0 {
                            first = [sb as u16, sa as u16, len as u16, kind as u16];
                        }
                        bad += 1;
                    }
                    all = fnv_u32(all, got as u32);
                    if kind == 3 && len > 0 {
                        a[sa + len / 2] =
                            (((sa + len / 2) as u8).wrapping_mul(7).wrapping_add(0x33))
                                ^ (((sa + len / 2) >> 8) as u8);
                    }
                }
                len += 1;
            }
        }
    }
    o.u32(all);
    o.u32(bad);
    for f in first {
        o.u16(f);
    }
    o.u32(hash(a));
}

fn mem_eq_b01(o: &mut Out) {
    run_cmp(o, [0, 1], false)
}
fn mem_eq_b23(o: &mut Out) {
    run_cmp(o, [2, 3], false)
}
fn mem_cmp_b01(o: &mut Out) {
    run_cmp(o, [0, 1], true)
}
fn mem_cmp_b23(o: &mut Out) {
    run_cmp(o, [2, 3], true)
}

/// The compiler_builtins byte-splat `memset` miscompile: `memset(p, 0xAA, 100)` wrote
/// `00 00 AA AA ...` when built without `-phi-elim-split-all-critical-edges`.
fn mem_memset_aa_100(o: &mut Out) {
    let mut buf = [0x11u8; 128];
    let b = bb(&mut buf);
    for off in 0..4usize {
        b.fill(0x11);
        unsafe { ptr::write_bytes(b.as_mut_ptr().add(bb(off)), bb(0xAA), bb(100)) };
        o.bytes(&b[..8]);
        o.bytes(&b[96..108]);
        o.u32(fnv1a(&b[..]));
    }
}

/// Small constant-length copies at variable offsets (inlined moves, unaligned on the 68000).
fn mem_small_const(o: &mut Out) {
    let mut src = [0u8; 44];
    let mut dst = [0u8; 44];
    let (s, d) = (bb(&mut src), bb(&mut dst));
    for (i, x) in s.iter_mut().enumerate() {
        *x = 0xC0 ^ i as u8;
    }
    for off in 0..4usize {
        let off = bb(off);
        d.fill(0);
        d[off..off + 1].copy_from_slice(&s[off..off + 1]);
        d[off + 2..off + 4].copy_from_slice(&s[off + 1..off + 3]);
        d[off + 5..off + 8].copy_from_slice(&s[off + 3..off + 6]);
        d[off + 9..off + 13].copy_from_slice(&s[off + 6..off + 10]);
        d[off + 14..off + 22].copy_from_slice(&s[off + 10..off + 18]);
        d[off + 22..off + 38].copy_from_slice(&s[off + 18..off + 34]);
        o.bytes(&d[..]);
    }
}

/// Struct assignment of a 66-byte struct (an implicit memcpy) and array-of-struct swaps.
fn mem_struct_copy(o: &mut Out) {
    #[derive(Clone, Copy)]
    #[repr(C)]
    struct Blob {
        tag: u16,
        data: [u8; 61],
        end: u8,
        word: u16,
    }
    let mut arr = [Blob {
        tag: 0,
        data: [0; 61],
        end: 0,
        word: 0,
    }; 4];
    let arr = bb(&mut arr);
    for (i, b) in arr.iter_mut().enumerate() {
        b.tag = 0x1000 + i as u16;
        for (j, x) in b.data.iter_mut().enumerate() {
            *x = (i * 61 + j) as u8;
        }
        b.end = 0xE0 | i as u8;
        b.word = 0xABCD ^ i as u16;
    }
    let tmp = arr[bb(1)];
    arr[1] = arr[bb(3)];
    arr[3] = tmp;
    arr.swap(bb(0), bb(2));
    for b in arr.iter() {
        o.u16(b.tag);
        o.bytes(&b.data);
        o.u8(b.end);
        o.u16(b.word);
    }
}

pub const CASES: &[Case] = &[
    case!(mem_copy_nonoverlapping_d01),
    case!(mem_copy_nonoverlapping_d23),
    case!(mem_copy_from_slice_d01),
    case!(mem_copy_from_slice_d23),
    case!(mem_move_fwd_d01),
    case!(mem_move_fwd_d23),
    case!(mem_move_bwd_d01),
    case!(mem_move_bwd_d23),
    case!(mem_write_bytes_d01),
    case!(mem_write_bytes_d23),
    case!(mem_fill_d01),
    case!(mem_fill_d23),
    case!(mem_eq_b01),
    case!(mem_eq_b23),
    case!(mem_cmp_b01),
    case!(mem_cmp_b23),
    case!(mem_memset_aa_100),
    case!(mem_small_const),
    case!(mem_struct_copy),
];
