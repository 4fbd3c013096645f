//! The Ferrite SCSI disk driver. Built for the 68k by `cargo xtask build`
//! (`target/m68k/ferrite-driver.bin`) and for the host, where its logic is unit-tested.
//!
//! The driver itself is the subject of a later issue; this crate exists so the workspace
//! layout is in place.
#![no_std]
