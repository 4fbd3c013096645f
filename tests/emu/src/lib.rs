//! The emulated Mac: a 68k CPU (the `m68k` crate) with a high-level model of the Mac OS
//! services Ferrite uses, for running real 68k Ferrite binaries in host tests.
//!
//! ```no_run
//! use ferrite_emu::{CpuModel, Machine};
//! # fn image() -> ferrite_shared::flat::FlatImage { unimplemented!() }
//! let mut m = Machine::new(CpuModel::M68040);
//! m.load(&image()).unwrap();                 // into the system heap, relocated
//! let r = m.call("add", &[2, 3]).unwrap();   // C ABI
//! assert_eq!(r.d0, 5);
//! ```
//!
//! Modules, one per concern:
//! * [`cpu`]: CPU model selection.
//! * [`coverage`]: instruction coverage of the Ferrite driver (`FERRITE_COVERAGE_DIR`).
//! * [`bus`]: RAM, bus errors, the written-since-flush bitmap.
//! * [`machine`]: the [`Machine`], its memory layout and the run loop.
//! * [`lowmem`]: low-memory globals.
//! * [`traps`], [`trap_names`]: the A-line trap dispatcher and trap names.
//! * [`memory_manager`], [`mm_traps`]: the Memory Manager model and its traps (heap scramble,
//!   24-bit master-pointer flags).
//! * [`seed`]: the seed (`FERRITE_SEED`) of the model's deliberate randomness.
//! * [`loader`]: flat-image loading and C-ABI calls.
//! * [`interrupts`]: scheduled interrupts, tick hooks (VBL) and idle waiting.
//! * [`file_manager`]: File-Manager-lite: `_MountVol` through the driver, `_UnmountVol`.
//! * [`os_utils`]: OS queues, `_Gestalt`, `_HWPriv`.
//! * [`device_manager`]: unit table, DCEs, `_DrvrInstall`, `_Open`…`_KillIO`, IODone, accRun,
//!   goodbye.
//! * [`drive_queue`]: `_AddDrive` and the drive queue.
//! * [`events`]: `_PostEvent` and `SysEvtMask`.
//! * [`vbl`]: VBL tasks.
//! * [`mac_os`]: `Machine::install_mac_os`, all of the above at once.
//! * [`toolbox`]: the application-level Toolbox (Segment Loader launch, Resource Manager on
//!   the application's fork, QuickDraw/Window/Menu/Dialog/Event Managers) with a screen
//!   record, a 1-bit screen (`Machine::render_screen`, PNG) and scripted input;
//!   `Machine::install_toolbox`, `Machine::launch_application`.
//! * [`error`]: run errors.
//! * [`scsi`]: the virtual SCSI bus and its targets.
//! * [`scsi_manager`]: SCSI Manager 4.3 (`_SCSIAtomic`) and the original SCSI Manager
//!   (`_SCSIDispatch`) on that bus.
//! * [`bench`]: the benchmark engine behind `ferrite bench`.
//!
//! The compiler checks (codegen conformance, differential tests, the QEMU runner and monitor
//! client) live in `ferrite-harness` (`tests/harness/`); the integration suites in `tests/tests/`.

pub mod bench;
pub mod bus;
pub mod coverage;
pub mod cpu;
pub mod deferred_tasks;
pub mod device_manager;
pub mod drive_queue;
pub mod error;
pub mod events;
pub mod file_manager;
pub mod interrupts;
pub mod loader;
pub mod lowmem;
pub mod mac_os;
pub mod machine;
pub mod memory_manager;
pub mod mm_traps;
pub mod os_utils;
pub mod profile;
pub mod scsi;
pub mod scsi_manager;
pub mod seed;
pub mod start_manager;
pub mod test_disk;
pub mod testing;
pub mod toolbox;
pub mod trap_names;
pub mod traps;
pub mod vbl;

pub use cpu::CpuModel;
pub use error::{ChainSource, Fault, ReturnAddress, RunError};
pub use interrupts::{InterruptHandler, InterruptId, TickHook};
pub use loader::{CallResult, LoadedImage, Preserved};
pub use machine::{Layout, Machine, MachineConfig, PcCount, Stats};
pub use memory_manager::ZoneId;
pub use traps::{SavedReg, TrapCall, TrapHandler, TrapTable};
