//! Fuzz targets for everything Ferrite reads from outside (issue 13, item 4).
//!
//! Each target is a function `fn(&[u8])` that feeds the bytes to one parser and asserts its
//! invariants: no panic, no endless loop (every loop in the parsers is bounded by the input),
//! and where a parser has a writer, parse → write → parse gives the same thing. A violated
//! invariant panics, which is what both callers look for:
//!
//! - the libFuzzer binaries in `fuzz/` (`cargo xtask fuzz`, the long run), one per target;
//! - `tests/short_run.rs` (`cargo test`, so `cargo xtask test`): every target over its
//!   committed seed corpus (`corpus/<target>/`), its regression inputs
//!   (`regressions/<target>/`, one per crash ever found) and a few thousand deterministic
//!   mutations of them ([`mutate`]).
//!
//! [`boot`] is the one target that needs the built 68k driver: it boots mutated disks in the
//! emulated Mac (its own libFuzzer binary, `boot_disk`, and its own short-run test).
//!
//! The seeds are made by [`seeds`] with Ferrite's own formatter; `FERRITE_FUZZ_WRITE_SEEDS=1
//! cargo test -p ferrite-fuzz` rewrites them.

pub mod boot;
pub mod mutate;
pub mod seeds;
pub mod targets;

/// A target: it panics when its parser breaks an invariant on the input.
pub type Target = fn(&[u8]);

/// Every target: its name (also the libFuzzer binary's and the corpus folder's) and function.
pub const TARGETS: &[(&str, Target)] = &[
    ("partition_map", targets::partition_map),
    ("driver_settings", targets::driver_settings),
    ("hfs_mdb", targets::hfs_mdb),
    ("hfs_btree_node", targets::hfs_btree_node),
    ("hfs_catalog_record", targets::hfs_catalog_record),
    ("hfs_volume", targets::hfs_volume),
    ("disk_image", targets::disk_image),
    ("macbinary", targets::macbinary),
    ("appledouble", targets::appledouble),
    ("diskcopy", targets::diskcopy),
    ("resource_fork", targets::resource_fork),
];
