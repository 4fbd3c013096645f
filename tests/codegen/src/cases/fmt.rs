//! `core::fmt` of integers into a fixed buffer (`write!` into a `FixedBuf: fmt::Write`).

use super::case;
use super::util::*;
use crate::{Case, Out};
use core::fmt::Write;

struct FixedBuf {
    buf: [u8; 96],
    len: usize,
}

impl FixedBuf {
    fn new() -> Self {
        FixedBuf {
            buf: [0; 96],
            len: 0,
        }
    }
    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Write for FixedBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let b = s.as_bytes();
        let end = self.len.checked_add(b.len()).ok_or(core::fmt::Error)?;
        if end > self.buf.len() {
            return Err(core::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(b);
        self.len = end;
        Ok(())
    }
}

/// Runs `f` on a fresh buffer and writes `ok`, length and bytes.
fn emit_fmt(o: &mut Out, f: impl FnOnce(&mut FixedBuf) -> core::fmt::Result) {
    let mut fb = FixedBuf::new();
    let ok = f(bb(&mut fb)).is_ok();
    o.bool(ok);
    o.u8(fb.len as u8);
    o.bytes(fb.as_bytes());
}

fn fmt_decimal_unsigned(o: &mut Out) {
    emit_fmt(o, |w| write!(w, "{} {} {}", bb(0u8), bb(255u8), bb(100u8)));
    emit_fmt(o, |w| write!(w, "{} {}", bb(65535u16), bb(1000u16)));
    emit_fmt(o, |w| {
        write!(w, "{} {}", bb(4_294_967_295u32), bb(1_000_000u32))
    });
    emit_fmt(o, |w| write!(w, "{}", bb(u64::MAX)));
    emit_fmt(o, |w| write!(w, "{}", bb(10_000_000_000_000_000_000u64)));
    emit_fmt(o, |w| write!(w, "{}", bb(9_999_999_999u64)));
}

fn fmt_decimal_signed(o: &mut Out) {
    emit_fmt(o, |w| {
        write!(w, "{} {} {}", bb(-128i8), bb(127i8), bb(-1i8))
    });
    emit_fmt(o, |w| write!(w, "{} {}", bb(i16::MIN), bb(-300i16)));
    emit_fmt(o, |w| write!(w, "{} {}", bb(i32::MIN), bb(i32::MAX)));
    emit_fmt(o, |w| write!(w, "{} {}", bb(i64::MIN), bb(-1i64)));
    emit_fmt(o, |w| write!(w, "{:+} {:+}", bb(5i32), bb(0i32)));
}

fn fmt_hex(o: &mut Out) {
    emit_fmt(o, |w| write!(w, "{:08x}", bb(0xDEADu32)));
    emit_fmt(o, |w| write!(w, "{:08X}", bb(0xBEEF_CAFEu32)));
    emit_fmt(o, |w| write!(w, "{:#x} {:#X}", bb(255u8), bb(0xABCDu16)));
    emit_fmt(o, |w| write!(w, "{:016x}", bb(0x0123_4567_89AB_CDEFu64)));
    emit_fmt(o, |w| write!(w, "{:x}", bb(-1i32)));
    emit_fmt(o, |w| write!(w, "{:x}", bb(i64::MIN)));
    emit_fmt(o, |w| {
        write!(w, "{:02x}{:02x}{:02x}", bb(1u8), bb(0xA0u8), bb(0u8))
    });
}

fn fmt_bin_oct(o: &mut Out) {
    emit_fmt(o, |w| write!(w, "{:b}", bb(0xA5u8)));
    emit_fmt(o, |w| write!(w, "{:#018b}", bb(0x8001u16)));
    emit_fmt(o, |w| write!(w, "{:o} {:#o}", bb(8u32), bb(0o777u32)));
    emit_fmt(o, |w| write!(w, "{:b}", bb(u32::MAX)));
}

fn fmt_padding(o: &mut Out) {
    emit_fmt(o, |w| write!(w, "[{:5}]", bb(42u32)));
    emit_fmt(o, |w| write!(w, "[{:<5}]", bb(42u32)));
    emit_fmt(o, |w| write!(w, "[{:^7}]", bb(42u32)));
    emit_fmt(o, |w| write!(w, "[{:>6}]", bb(-42i32)));
    emit_fmt(o, |w| write!(w, "[{:06}]", bb(-42i32)));
    emit_fmt(o, |w| write!(w, "[{:*^9}]", bb(7u8)));
    emit_fmt(o, |w| write!(w, "[{:1$}]", bb(3u8), bb(4usize)));
    emit_fmt(o, |w| write!(w, "[{:>10}]", "abc"));
}

fn fmt_mixed(o: &mut Out) {
    emit_fmt(o, |w| {
        write!(
            w,
            "blk {} of {}: {:#010x}",
            bb(17u32),
            bb(1024u32),
            bb(0x4552u32)
        )
    });
    emit_fmt(o, |w| write!(w, "{:?}", (bb(1u8), bb(-2i16), "x")));
    emit_fmt(o, |w| write!(w, "{:?}", bb([1u16, 2, 300])));
    emit_fmt(o, |w| write!(w, "{:?} {:?}", Some(bb(5u32)), None::<u32>));
    emit_fmt(o, |w| write!(w, "{:?}", bb('\n')));
    emit_fmt(o, |w| write!(w, "{}{}", bb('é'), bb(true)));
}

fn fmt_overflow(o: &mut Out) {
    // more than 96 bytes: write! must return Err and keep what fit
    emit_fmt(o, |w| {
        for i in 0..bb(40u32) {
            write!(w, "{} ", i)?;
        }
        Ok(())
    });
}

fn fmt_loop_numbers(o: &mut Out) {
    let mut fbv = FixedBuf::new();
    let fb = bb(&mut fbv);
    let mut h = 0u32;
    let mut x = bb(1u64);
    for _ in 0..40 {
        fb.len = 0;
        let _ = write!(fb, "{}", x);
        h = fnv_u32(h, fnv1a(fb.as_bytes()));
        x = x.wrapping_mul(7).wrapping_add(3);
    }
    o.u32(h);
    let mut y = bb(-5i32);
    for _ in 0..20 {
        fb.len = 0;
        let _ = write!(fb, "{:x}", y);
        h = fnv_u32(h, fnv1a(fb.as_bytes()));
        y = y.wrapping_mul(-13);
    }
    o.u32(h);
}

pub const CASES: &[Case] = &[
    case!(fmt_decimal_unsigned),
    case!(fmt_decimal_signed),
    case!(fmt_hex),
    case!(fmt_bin_oct),
    case!(fmt_padding),
    case!(fmt_mixed),
    case!(fmt_overflow),
    case!(fmt_loop_numbers),
];
