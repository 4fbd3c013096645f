//! The Ferrite SCSI disk driver for 68k Macintoshes.
//!
//! Built for the 68k by `cargo xtask build` into `target/m68k/ferrite-driver.bin` (the blob
//! the formatter writes into the `Apple_Driver43` partition), and for the host, where the
//! logic modules are unit-tested.
//!
//! * `entry.S` — the blob head (install entries for both ROM generations, settings block,
//!   DRVR header) and all glue between the Mac and Rust.
//! * [`request`] — Prime positions and lengths → checked SCSI transfers.
//! * [`sense`] — status and sense → retry or a Mac error.
//! * [`partition`] — the partition map → drives.
//! * [`capacity`] — READ CAPACITY(10)/(16) → the blocks served.
//! * [`cache`] — the caching mode page → MODE SELECT enabling the write cache.
//! * [`gestalt`] — DriverGestalt answers.
//! * `core` (68k only) — install, the Device Manager entries, the SCSI transports.
//! * `mac` (68k only) — the wrapped Mac OS calls.
//!
//! Feature `logic-only`: the logic modules alone (no `core`, `mac`, icon or panic handler),
//! for the on-target differential tests, which link them into a 68k program of their own.
#![no_std]

pub mod cache;
pub mod capacity;
pub mod gestalt;
pub mod partition;
pub mod request;
pub mod sense;

#[cfg(all(target_arch = "m68k", not(feature = "logic-only")))]
mod core;
#[cfg(all(target_arch = "m68k", not(feature = "logic-only")))]
mod icon;
#[cfg(all(target_arch = "m68k", not(feature = "logic-only")))]
mod mac;

#[cfg(all(target_arch = "m68k", not(feature = "logic-only")))]
#[panic_handler]
fn panic(_: &::core::panic::PanicInfo) -> ! {
    mac::panic()
}

#[cfg(test)]
mod version_tests {
    extern crate std;
    use std::vec::Vec;
    /// The version bytes in the blob head (`entry.S`, settings +28) are the crate's version.
    #[test]
    fn blob_head_carries_the_crate_version() {
        let src = include_str!("entry.S");
        let line = src
            .lines()
            .find(|l| l.contains("+28 driver version"))
            .expect("the version line in entry.S");
        let bytes: Vec<u8> = line
            .split('|')
            .next()
            .unwrap()
            .trim()
            .trim_start_matches(".byte")
            .split(',')
            .map(|b| b.trim().parse().unwrap())
            .collect();
        let want: Vec<u8> = env!("CARGO_PKG_VERSION")
            .split('.')
            .map(|p| p.parse().unwrap())
            .chain([0])
            .collect();
        assert_eq!(bytes, want);
    }
}
