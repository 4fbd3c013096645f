//! The user interface of Ferrite Setup, one module per window or dialog.
//!
//! Host-tested (pure: what a window shows and where, what a dialog's fields mean):
//! * [`bus_list`]: the rows of the SCSI Bus window, which device a click selects.
//! * [`plan`]: the Initialize dialog's fields read as volumes (names and sizes) with the
//!   mistakes a user can make in words.
//! * [`texts`]: confirmations that name their target, and other sentences the app shows.
//! * [`drives`]: which SCSI IDs the Mac is using (drive queue, startup drive) and why the
//!   app refuses to touch them.
//! * [`volumes`]: which map entries the Mac is using (drives, mounted volumes): the
//!   Partition window's rows and its refusals.
//!
//! On the 68k only: `dialog` (a modal dialog's items), `alerts`, `progress` (the progress
//! window: a [`crate::ops::Monitor`] with Cancel), `initialize` (the Initialize command), `commands`
//! (Update Driver, Drive Settings, Test), `partition` (the Partition window), `mount` (Mount
//! Volumes, and loading a disk's driver), `bench` (Benchmark…) and `lowmem` (reading the drive
//! queue, the VCB queue and `BootDrive`).

pub mod bus_list;
pub mod drives;
pub mod plan;
pub mod texts;
pub mod volumes;

#[cfg(target_arch = "m68k")]
pub(crate) mod alerts;
#[cfg(target_arch = "m68k")]
pub(crate) mod bench;
#[cfg(target_arch = "m68k")]
pub(crate) mod commands;
#[cfg(target_arch = "m68k")]
pub(crate) mod dialog;
#[cfg(target_arch = "m68k")]
pub(crate) mod initialize;
#[cfg(target_arch = "m68k")]
pub(crate) mod lowmem;
#[cfg(target_arch = "m68k")]
pub(crate) mod mount;
#[cfg(target_arch = "m68k")]
pub(crate) mod partition;
#[cfg(target_arch = "m68k")]
pub(crate) mod progress;
