//! The Start Manager boot model: how a 68k ROM finds SCSI disks, checks their partition map,
//! loads a driver and calls it (`mac-driver-facts.md` §2), for both ROM generations.
//!
//! * [`checks`]: the ROM's checks on block 0 and the partition map, as a pure function.
//! * [`boot`]: the boot sequence and its [`boot::BootReport`].
//! * [`boot`]: the boot sequence and its [`boot::BootReport`].

pub mod boot;
pub mod checks;

pub use boot::{BootConfig, BootReport, LoadedDriver, ScanOutcome, boot};
pub use checks::{
    DriverChoice, DriverEntry, RomChecks, RomGeneration, SkipReason, Verdict, examine_disk,
};
