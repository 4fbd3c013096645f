//! Integer arithmetic of every width: the same family of cases for u8..u64 and i8..i64.
//!
//! The operand set of each type is the same list of 64-bit patterns truncated with `as`, so it
//! includes 0, 1, small values, MIN, MAX, MIN+1, all-ones and mixed bit patterns.

#![allow(unused_comparisons)]

use crate::Case;

macro_rules! int_common {
    ($t:ident) => {
        use crate::cases::util::*;
        use crate::{Case, Out};
        type T = $t;
        const BITS: u32 = T::BITS;

        #[inline(never)]
        fn vals() -> [T; 10] {
            bb([
                0 as T,
                1 as T,
                2 as T,
                7 as T,
                100 as T,
                T::MAX,
                T::MIN,
                T::MIN.wrapping_add(1),
                0x5A5A_5A5A_5A5A_5A5Au64 as T,
                0xC3A5_9617_E1F0_8D2Bu64 as T,
            ])
        }

        /// More operands for the unary cases.
        fn many() -> [T; 26] {
            let va = vals();
            let v = bb(&va);
            let mut r = Rng(bb(0x1234_5678));
            let mut arr = [0 as T; 26];
            // Through an opaque reference: see the `stackidx_*` cases for variable indices
            // into stack arrays, which this helper must not depend on.
            let m = bb(&mut arr);
            let mut i = 0;
            while i < 26 {
                m[i] = if i < 10 {
                    v[i]
                } else {
                    (((r.next() as u64) << 32) | r.next() as u64) as T
                };
                i += 1;
            }
            arr
        }

        /// Hash of a value's big-endian bytes, continued from `h`.
        fn h(hash: u32, v: T) -> u32 {
            let mut x = hash;
            for b in v.to_be_bytes() {
                x ^= b as u32;
                x = x.wrapping_mul(0x0100_0193);
            }
            x
        }

        pub fn addsub(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                for &b in v {
                    a.wrapping_add(b).emit(o);
                    a.wrapping_sub(b).emit(o);
                    let (_, c1) = a.overflowing_add(b);
                    let (_, c2) = a.overflowing_sub(b);
                    o.u8((c1 as u8) | ((c2 as u8) << 1));
                }
            }
        }

        pub fn checked(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                for &b in v {
                    emit_opt(o, a.checked_add(b));
                    emit_opt(o, a.checked_sub(b));
                }
            }
        }

        pub fn mul(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                for &b in v {
                    a.wrapping_mul(b).emit(o);
                    let (_, ov) = a.overflowing_mul(b);
                    o.u8((ov as u8) | ((a.checked_mul(b).is_none() as u8) << 1));
                    a.saturating_mul(b).emit(o);
                }
            }
        }

        pub fn divrem(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                for &b in v {
                    emit_opt(o, a.checked_div(b));
                    emit_opt(o, a.checked_rem(b));
                }
            }
        }

        pub fn euclid(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                for &b in v {
                    emit_opt(o, a.checked_div_euclid(b));
                    emit_opt(o, a.checked_rem_euclid(b));
                }
            }
        }

        /// Division by small variable divisors (the libcall / DIVU paths).
        pub fn divsmall(o: &mut Out) {
            let ma = many();
            let m = bb(&ma);
            let mut d = bb(1 as T);
            let mut k = 0u32;
            while k < 12 {
                let mut hq = 0u32;
                let mut hr = 0u32;
                for &a in m {
                    if let (Some(q), Some(r)) = (a.checked_div(d), a.checked_rem(d)) {
                        hq = h(hq, q);
                        hr = h(hr, r);
                    }
                }
                o.u32(hq);
                o.u32(hr);
                d = d.wrapping_add(bb(3 as T));
                k += 1;
            }
        }

        pub fn shift_const(o: &mut Out) {
            let ma = many();
            for &a in bb(&ma) {
                let s = h(h(h(0, a << 1), a >> 1), a.wrapping_shl(3));
                let s = h(
                    h(h(s, a.wrapping_shr(7)), a.wrapping_shl(8)),
                    a.wrapping_shr(9),
                );
                let s = h(
                    h(h(s, a.wrapping_shl(15)), a.wrapping_shr(16)),
                    a.wrapping_shl(17),
                );
                let s = h(
                    h(h(s, a.wrapping_shr(24)), a.wrapping_shl(31)),
                    a.wrapping_shr(32),
                );
                let s = h(
                    h(h(s, a.wrapping_shl(33)), a.wrapping_shr(48)),
                    a.wrapping_shl(63),
                );
                o.u32(s);
            }
        }

        pub fn shift_var(o: &mut Out) {
            let ma = many();
            let m = bb(&ma);
            let mut s = 0u32;
            while s < BITS {
                let mut hl = 0u32;
                let mut hr = 0u32;
                for &a in m {
                    hl = h(hl, a << bb(s));
                    hr = h(hr, a >> bb(s));
                }
                o.u32(hl);
                o.u32(hr);
                s += 1;
            }
        }

        pub fn shift_wrap(o: &mut Out) {
            let ma = many();
            let m = bb(&ma);
            let mut s = 0u32;
            while s < 2 * BITS + 3 {
                let mut x = 0u32;
                for &a in m {
                    x = h(x, a.wrapping_shl(bb(s)));
                    x = h(x, a.wrapping_shr(bb(s)));
                    x = h(x, a.checked_shl(bb(s)).unwrap_or(0x5A as T));
                    x = h(x, a.checked_shr(bb(s)).unwrap_or(0x3C as T));
                }
                o.u32(x);
                s += 1;
            }
        }

        pub fn rotate(o: &mut Out) {
            let ma = many();
            let m = bb(&ma);
            let mut s = 0u32;
            while s <= BITS {
                let mut x = 0u32;
                for &a in m {
                    x = h(x, a.rotate_left(bb(s)));
                    x = h(x, a.rotate_right(bb(s)));
                }
                o.u32(x);
                s += 1;
            }
            let va = vals();
            for &a in bb(&va) {
                a.rotate_left(1).emit(o);
                a.rotate_right(1).emit(o);
                a.rotate_left(8).emit(o);
            }
        }

        pub fn bitcount(o: &mut Out) {
            let ma = many();
            for &a in bb(&ma) {
                o.u8(a.leading_zeros() as u8);
                o.u8(a.trailing_zeros() as u8);
                o.u8(a.count_ones() as u8);
                o.u8(a.count_zeros() as u8);
                o.u8(a.leading_ones() as u8);
                o.u8(a.trailing_ones() as u8);
                a.swap_bytes().emit(o);
                a.reverse_bits().emit(o);
                // `to_be` is the identity on the 68k and a byte swap on a little-endian host:
                // its value is target-dependent, its native-endian bytes are not.
                o.bytes(&a.to_be().to_ne_bytes());
                T::from_le_bytes(a.to_be_bytes()).emit(o);
            }
        }

        pub fn saturating(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                for &b in v {
                    a.saturating_add(b).emit(o);
                    a.saturating_sub(b).emit(o);
                }
            }
        }

        pub fn compare(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                for &b in v {
                    let mask = (a < b) as u8
                        | ((a <= b) as u8) << 1
                        | ((a > b) as u8) << 2
                        | ((a >= b) as u8) << 3
                        | ((a == b) as u8) << 4
                        | ((a != b) as u8) << 5;
                    o.u8(mask);
                    o.i8(ord(a.cmp(&b)));
                }
            }
        }

        pub fn minmax(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                for &b in v {
                    a.min(b).emit(o);
                    a.max(b).emit(o);
                }
            }
        }

        pub fn clamp(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                let mut x = 0u32;
                for &b in v {
                    for &c in v {
                        let (lo, hi) = if b <= c { (b, c) } else { (c, b) };
                        x = h(x, a.clamp(lo, hi));
                    }
                }
                o.u32(x);
            }
        }

        /// Compare-then-branch with several outcomes per pair (flags live across a branch).
        #[inline(never)]
        fn classify(a: T, b: T) -> u8 {
            if a < b {
                if a.wrapping_add(1 as T) >= b { 1 } else { 2 }
            } else if a == b {
                3
            } else if a > b.wrapping_add(1 as T) {
                if b >= (0 as T) { 4 } else { 5 }
            } else {
                6
            }
        }

        pub fn branch(o: &mut Out) {
            let va = vals();
            let v = bb(&va);
            for &a in v {
                let mut cnt = 0u32;
                for &b in v {
                    let c = classify(a, b);
                    o.u8(c);
                    // a counting loop with an unsigned/signed `<` condition and a bound
                    let mut x = a;
                    let step = bb(((b as u8) & 0x3F | 1) as T);
                    let mut n = 0u32;
                    while x < b && n < 40 {
                        x = x.wrapping_add(step);
                        n += 1;
                    }
                    cnt = cnt.wrapping_mul(31).wrapping_add(n);
                }
                o.u32(cnt);
            }
        }

        pub fn powlog(o: &mut Out) {
            let ma = many();
            for &a in bb(&ma) {
                let mut e = 0u32;
                let mut x = 0u32;
                while e < 9 {
                    x = h(x, a.wrapping_pow(bb(e)));
                    x = h(x, a.checked_pow(bb(e)).unwrap_or(0x11 as T));
                    e += 1;
                }
                o.u32(x);
                o.u32(a.checked_ilog2().unwrap_or(0xFF));
                o.u32(a.checked_ilog10().unwrap_or(0xFF));
                o.u32(a.checked_ilog(bb(3 as T)).unwrap_or(0xFF));
                a.abs_diff(bb(0x55 as T)).emit(o);
            }
        }
    };
}

macro_rules! int_family {
    ($m:ident, $t:ident, $kind:ident) => {
        pub mod $m {
            int_common!($t);
            int_family!(@extra $kind);

            pub const CASES: &[Case] = &[
                Case { name: concat!("arith_", stringify!($t), "_addsub"), run: addsub },
                Case { name: concat!("arith_", stringify!($t), "_checked"), run: checked },
                Case { name: concat!("arith_", stringify!($t), "_mul"), run: mul },
                Case { name: concat!("arith_", stringify!($t), "_divrem"), run: divrem },
                Case { name: concat!("arith_", stringify!($t), "_euclid"), run: euclid },
                Case { name: concat!("arith_", stringify!($t), "_divsmall"), run: divsmall },
                Case { name: concat!("arith_", stringify!($t), "_shift_const"), run: shift_const },
                Case { name: concat!("arith_", stringify!($t), "_shift_var"), run: shift_var },
                Case { name: concat!("arith_", stringify!($t), "_shift_wrap"), run: shift_wrap },
                Case { name: concat!("arith_", stringify!($t), "_rotate"), run: rotate },
                Case { name: concat!("arith_", stringify!($t), "_bitcount"), run: bitcount },
                Case { name: concat!("arith_", stringify!($t), "_saturating"), run: saturating },
                Case { name: concat!("arith_", stringify!($t), "_compare"), run: compare },
                Case { name: concat!("arith_", stringify!($t), "_minmax"), run: minmax },
                Case { name: concat!("arith_", stringify!($t), "_clamp"), run: clamp },
                Case { name: concat!("arith_", stringify!($t), "_branch"), run: branch },
                Case { name: concat!("arith_", stringify!($t), "_powlog"), run: powlog },
                Case { name: concat!("arith_", stringify!($t), "_", stringify!($kind)), run: extra },
            ];
        }
    };
    (@extra signed) => {
        /// Negation, absolute value, sign.
        pub fn extra(o: &mut Out) {
            let ma = many();
            for &a in bb(&ma) {
                a.wrapping_neg().emit(o);
                emit_opt(o, a.checked_neg());
                a.wrapping_abs().emit(o);
                emit_opt(o, a.checked_abs());
                a.unsigned_abs().emit(o);
                a.signum().emit(o);
                let (n, ov) = a.overflowing_neg();
                n.emit(o);
                o.u8(ov as u8 | (a.is_negative() as u8) << 1 | (a.is_positive() as u8) << 2);
                a.saturating_neg().emit(o);
                a.saturating_abs().emit(o);
            }
        }
    };
    (@extra unsigned) => {
        /// Negation, powers of two, rounding up, integer square root.
        pub fn extra(o: &mut Out) {
            let ma = many();
            for &a in bb(&ma) {
                a.wrapping_neg().emit(o);
                emit_opt(o, a.checked_neg());
                o.bool(a.is_power_of_two());
                emit_opt(o, a.checked_next_power_of_two());
                emit_opt(o, a.checked_next_multiple_of(bb(12 as T)));
                a.div_ceil(bb(7 as T)).emit(o);
                a.isqrt().emit(o);
            }
        }
    };
}

int_family!(m_u8, u8, unsigned);
int_family!(m_u16, u16, unsigned);
int_family!(m_u32, u32, unsigned);
int_family!(m_u64, u64, unsigned);
int_family!(m_i8, i8, signed);
int_family!(m_i16, i16, signed);
int_family!(m_i32, i32, signed);
int_family!(m_i64, i64, signed);

const PARTS: &[&[Case]] = &[
    m_u8::CASES,
    m_u16::CASES,
    m_u32::CASES,
    m_u64::CASES,
    m_i8::CASES,
    m_i16::CASES,
    m_i32::CASES,
    m_i64::CASES,
];
pub const CASES: &[Case] = &flatten::<{ 18 * 8 }>(PARTS);

/// Concatenates case lists at compile time (`N` must be the total length).
pub const fn flatten<const N: usize>(parts: &[&[Case]]) -> [Case; N] {
    fn nop(_: &mut crate::Out) {}
    let mut all = [Case { name: "", run: nop }; N];
    let mut k = 0;
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            all[k] = parts[p][i];
            k += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(k == N);
    all
}
