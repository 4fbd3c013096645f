//! The compiler and cross-emulator checks that run Ferrite's m68k binaries beside the
//! emulated Mac (`ferrite-emu`): none of this ships in the `ferrite` command.
//!
//! * [`conformance`]: the codegen suite compared across host, emulator and QEMU.
//! * [`difftest`]: the on-target differential tests' runner.
//! * [`qemu`]: the second, independent 68k core (`qemu-m68k`).
//! * [`qemu_monitor`]: a client of QEMU's monitor, to read a booted q800's unit table and
//!   drive queue (`cargo xtask qemu-check`, the `ferrite qemu` tests).

pub mod conformance;
pub mod difftest;
pub mod qemu;
#[cfg(unix)]
pub mod qemu_monitor;
