//! Ferrite's build tool for m68k artifacts: prerequisites, the build/link/flatten pipeline,
//! the 68000 legalizer and the binary verifier. `cargo xtask` (src/main.rs) drives it.
pub mod allones;
pub mod anext;
pub mod asm;
pub mod bittest;
pub mod coverage;
pub mod elf;
pub mod extstore;
pub mod fuzzgen;
pub mod fuzzrun;
pub mod images;
pub mod m68k;
pub mod movem;
pub mod mutants;
pub mod pipeline;
pub mod prereq;
pub mod recall;
pub mod records;
pub mod rsrc;
pub mod shipped;
pub mod skips;
pub mod stackidx;
pub mod wideshift;
