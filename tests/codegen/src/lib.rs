//! Codegen conformance cases.
//!
//! Every case writes fixed-width big-endian integers into an [`Out`]; the same crate is built
//! for the host and for the 68k (LLVM's M68k backend) and the output bytes are compared. A case
//! whose bytes differ between host and 68k points to a miscompile (see
//! `docs/codegen-conformance.md` for the known ones).
//!
//! Rules every case follows: no floats, no `usize`/pointer values in the output, no panics
//! (overflow is explicit: checked/wrapping/saturating ops), inputs pass through
//! [`core::hint::black_box`] so the code is really compiled, and no case writes more than
//! [`MAX_OUTPUT`] bytes.
#![no_std]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]
#![allow(clippy::identity_op, clippy::erasing_op, clippy::manual_range_contains)]

extern crate alloc;
#[cfg(test)]
extern crate std;

mod cases;
#[cfg(target_arch = "m68k")]
mod m68k;

/// Output sink of a case: big-endian fixed-width integers into a caller buffer.
///
/// Writing past the end of the buffer sets the overflow flag (the bytes are dropped).
pub struct Out<'a> {
    buf: &'a mut [u8],
    len: usize,
    overflow: bool,
}

impl<'a> Out<'a> {
    pub fn new(buf: &'a mut [u8]) -> Self {
        Out {
            buf,
            len: 0,
            overflow: false,
        }
    }
    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True if no byte has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// True if a write did not fit.
    pub fn overflowed(&self) -> bool {
        self.overflow
    }
    /// The bytes written so far.
    pub fn written(&self) -> &[u8] {
        &self.buf[..self.len]
    }
    pub fn bytes(&mut self, b: &[u8]) {
        if self.overflow {
            return;
        }
        let end = match self.len.checked_add(b.len()) {
            Some(e) if e <= self.buf.len() => e,
            _ => {
                self.overflow = true;
                return;
            }
        };
        self.buf[self.len..end].copy_from_slice(b);
        self.len = end;
    }
    pub fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn i8(&mut self, v: i8) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn i16(&mut self, v: i16) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn i32(&mut self, v: i32) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn i64(&mut self, v: i64) {
        self.bytes(&v.to_be_bytes());
    }
    /// One byte: 1 for true, 0 for false.
    pub fn bool(&mut self, b: bool) {
        self.u8(b as u8);
    }
}

/// One conformance case.
#[derive(Clone, Copy)]
pub struct Case {
    pub name: &'static str,
    pub run: fn(&mut Out),
}

/// No case writes more than this many bytes.
pub const MAX_OUTPUT: usize = 4096;

/// All cases; the position in this slice is the case index.
pub static CASES: &[Case] = cases::ALL;

/// Runs case `index` into `buf`. Returns the number of bytes written, or `None` for a bad index
/// or when the output did not fit into `buf`.
pub fn run_case(index: u32, buf: &mut [u8]) -> Option<usize> {
    let case = CASES.get(index as usize)?;
    let mut out = Out::new(buf);
    (case.run)(&mut out);
    if out.overflowed() {
        None
    } else {
        Some(out.len())
    }
}
