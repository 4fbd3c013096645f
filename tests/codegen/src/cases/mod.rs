//! The cases, grouped by category. Each module exports `CASES: &[Case]`; [`ALL`] is their
//! concatenation in a fixed order (the order is the case index: append, never reorder).

// The cases spell loops, indexing and casts out by hand on purpose: they exist to exercise
// the 68k code generator, not to be idiomatic.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::useless_conversion,
    clippy::collapsible_if,
    clippy::while_let_loop,
    clippy::deref_addrof,
    clippy::manual_contains,
    clippy::explicit_counter_loop,
    clippy::manual_is_multiple_of,
    clippy::while_let_on_iterator
)]

use crate::{Case, Out};

mod util;

mod arith;
mod bits;
mod casts;
mod cmpbranch;
mod collections;
mod dispatch;
mod endian;
mod fmt;
mod fuzzfound;
mod loops;
mod matches;
mod mem;
mod misc;
mod recursion;
mod regress;
mod slices;
mod stackidx;
mod statics;
mod structs;
mod wide;

const PARTS: &[&[Case]] = &[
    arith::CASES,
    casts::CASES,
    cmpbranch::CASES,
    loops::CASES,
    slices::CASES,
    mem::CASES,
    endian::CASES,
    matches::CASES,
    statics::CASES,
    dispatch::CASES,
    fmt::CASES,
    collections::CASES,
    recursion::CASES,
    wide::CASES,
    bits::CASES,
    structs::CASES,
    misc::CASES,
    stackidx::CASES,
    fuzzfound::CASES,
    regress::CASES,
];

const fn total() -> usize {
    let mut n = 0;
    let mut p = 0;
    while p < PARTS.len() {
        n += PARTS[p].len();
        p += 1;
    }
    n
}

const TOTAL: usize = total();

fn placeholder(_: &mut Out) {}

const fn build() -> [Case; TOTAL] {
    let mut all = [Case {
        name: "",
        run: placeholder,
    }; TOTAL];
    let mut k = 0;
    let mut p = 0;
    while p < PARTS.len() {
        let mut i = 0;
        while i < PARTS[p].len() {
            all[k] = PARTS[p][i];
            k += 1;
            i += 1;
        }
        p += 1;
    }
    all
}

static ALL_ARRAY: [Case; TOTAL] = build();
pub static ALL: &[Case] = &ALL_ARRAY;

/// `case!(f)` = a [`Case`] named after the function.
macro_rules! case {
    ($f:ident) => {
        $crate::Case {
            name: stringify!($f),
            run: $f,
        }
    };
}
pub(crate) use case;
