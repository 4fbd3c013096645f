//! The Start Manager boot model: how a 68k ROM finds SCSI disks, checks their partition map,
//! loads a driver and calls it (`docs/mac-facts.md` §2), for both ROM generations.
//!
//! * [`checks`]: the ROM's checks on block 0 and the partition map, as a pure function.
//! * [`boot`]: the boot sequence and its [`boot::BootReport`].
//! * [`rom_model`]: where the ROM lies (the install routine returns there) and the system
//!   heap it leaves boot drivers.
//! * [`install_registers`]: the registers at the install entry (specified ones, the rest
//!   poisoned) and the diagnosis of a driver that uses a poisoned one.

pub mod boot;
pub mod checks;
pub mod install_registers;
pub mod rom_model;

pub use boot::{BootConfig, BootReport, ExtensionArrival, LoadedDriver, ScanOutcome, boot};
pub use checks::{
    DriverChoice, DriverEntry, RomChecks, RomGeneration, SkipReason, Verdict, examine_disk,
};
pub use install_registers::InstallRegisters;
pub use rom_model::RomModel;
