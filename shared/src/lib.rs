//! Formats shared by every part of Ferrite: the m68k driver, the formatter, the build tool
//! (`retro68-build`) and the emulated Mac (`tests/`).
//!
//! One definition per format: a structure that is written by one side and read by another is
//! defined here exactly once.
#![no_std]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod driver_blob;
/// The flat image container (needs `alloc`).
#[cfg(feature = "alloc")]
pub mod flat;
pub mod flight_record;
pub mod mac;
pub mod partition_map;
pub mod scsi;
pub mod scsi_manager;
