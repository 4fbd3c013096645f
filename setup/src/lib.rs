//! Ferrite Setup, the formatter's front end on the Mac itself (System 6 and 7, every 68k Mac).
//!
//! This first version opens one window listing every device on the SCSI bus: ID, type,
//! INQUIRY strings, capacity, and what is on the disk (partition map, driver).
//!
//! * [`bus`]: what the scan learns about a device and how a row reads — host-tested, with a
//!   model transport.
//! * [`boot_driver`]: a disk's driver read as the Start Manager reads it (to load it
//!   without a restart).
//! * [`label`]: the partition map and driver on a disk — host-tested.
//! * On the 68k: `scsi` (the two SCSI Managers as [`bus::Transport`]s) and `application` (the
//!   application: entry `main`, menus, the window).
#![no_std]

extern crate alloc;

pub mod bench;
pub mod boot_driver;
pub mod bus;
pub mod caching;
pub mod disk;
pub mod label;
pub mod ops;
pub mod surface;
pub mod ui;
pub mod words;

#[cfg(target_arch = "m68k")]
mod application;
#[cfg(target_arch = "m68k")]
mod scsi;
