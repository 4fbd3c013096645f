//! Ferrite's runtime for classic Mac OS applications (68k, System 6 and 7).
//!
//! * [`pstr`]: Pascal strings (`Str255`) and Mac Roman text — host-tested.
//! * [`event`]: the `EventRecord` and the Event/Window/Menu Manager constants — host-tested.
//! * On the 68k only: [`sys`] (the raw trap glue of `src/glue.S`, the one unsafe layer),
//!   [`toolbox`] (safe wrappers), [`heap`] (the global allocator on `_NewPtr`), the panic
//!   handler (an alert, then `_ExitToShell`) and [`app`] (start-up, menus, event loop).
//!
//! The calling convention the glue implements is in `src/glue.S`; the Toolbox model in
//! `tests/` (crate `ferrite-emu`) checks every frame, so a wrong stack layout fails the test.
#![no_std]

#[cfg(target_arch = "m68k")]
extern crate alloc;

pub mod event;
pub mod pstr;

#[cfg(target_arch = "m68k")]
pub mod app;
#[cfg(target_arch = "m68k")]
pub mod heap;
#[cfg(target_arch = "m68k")]
mod panic;
#[cfg(target_arch = "m68k")]
pub mod sys;
#[cfg(target_arch = "m68k")]
pub mod toolbox;
