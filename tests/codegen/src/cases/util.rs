//! Helpers shared by the cases (all hand-written and deliberately simple).

use crate::Out;
pub use core::hint::black_box as bb;

/// 32-bit FNV-1a.
pub fn fnv1a(data: &[u8]) -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    for &b in data {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Continue an FNV-1a hash with the 4 big-endian bytes of `v`.
pub fn fnv_u32(h: u32, v: u32) -> u32 {
    let mut h = h;
    for b in v.to_be_bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Writes a value of any integer type (or bool) big-endian.
pub trait Emit: Copy {
    fn emit(self, o: &mut Out);
}
macro_rules! emit_impl {
    ($($t:ident),*) => { $(impl Emit for $t { fn emit(self, o: &mut Out) { o.$t(self) } })* };
}
emit_impl!(u8, u16, u32, u64, i8, i16, i32, i64, bool);

/// An `Option` as a presence byte followed by the value (or zeros).
pub fn emit_opt<T: Emit + Default>(o: &mut Out, v: Option<T>) {
    match v {
        Some(x) => {
            o.bool(true);
            x.emit(o);
        }
        None => {
            o.bool(false);
            T::default().emit(o);
        }
    }
}

/// Deterministic pseudo-random bytes (xorshift32), for test data.
pub struct Rng(pub u32);
impl Rng {
    pub fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
}

/// An `Ordering` as -1 / 0 / 1.
pub fn ord(o: core::cmp::Ordering) -> i8 {
    o as i8
}
