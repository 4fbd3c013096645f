//! Randomly generated programs for differential testing of the 68k code generator.
//!
//! `cargo xtask fuzz-codegen` (generator: `retro68-build/src/fuzzgen.rs`) writes a batch of
//! programs, each a function from a seed-derived `u64` input to a `u64` checksum, and builds
//! this crate with them for the host and for the 68k (the full pipeline, as the codegen suite);
//! the checksums are compared. The programs are UB- and panic-free by construction (wrapping,
//! checked or saturating arithmetic, guarded division, indices reduced modulo the length,
//! bounded loops). See `docs/codegen-conformance.md`.
#![no_std]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]

#[cfg(target_arch = "m68k")]
mod m68k;

/// One generated program.
#[derive(Clone, Copy)]
pub struct Program {
    pub name: &'static str,
    /// The input the program is run with (passed through [`core::hint::black_box`]).
    pub input: u64,
    pub run: fn(u64) -> u64,
}

/// The batch's programs (generated code, so the lints are off).
#[allow(warnings, clippy::all, clippy::pedantic)]
mod programs {
    include!(concat!(env!("OUT_DIR"), "/programs.rs"));
}

pub use programs::PROGRAMS;

/// Bytes a program writes: its checksum, big-endian.
pub const OUTPUT_LEN: usize = 8;

/// Runs program `index` into `buf`; the byte count, or `None` for a bad index or a short buffer.
pub fn run_case(index: u32, buf: &mut [u8]) -> Option<usize> {
    let p = PROGRAMS.get(index as usize)?;
    let out = buf.get_mut(..OUTPUT_LEN)?;
    let sum = (p.run)(core::hint::black_box(p.input));
    out.copy_from_slice(&sum.to_be_bytes());
    Some(OUTPUT_LEN)
}
