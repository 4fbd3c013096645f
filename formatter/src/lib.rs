//! The Ferrite formatter core: block devices, the Apple partition map, HFS (Mac OS Standard)
//! volumes, and the MacBinary II / AppleDouble containers used to bring Mac files in.
//!
//! `no_std` + `alloc` so that the classic Mac application can use it too; the `std` feature
//! (default) adds host I/O ([`image::ImageFile`]).
#![no_std]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod apm;
pub mod appledouble;
pub mod device;
pub mod diskcopy;
pub mod hfs;
#[cfg(feature = "std")]
pub mod image;
pub mod init;
pub mod install;
pub mod macbinary;
pub mod macroman;
pub mod rsrc;

pub use device::{BlockDevice, DeviceError, MemDisk, Region};
