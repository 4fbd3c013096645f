//! 68k entry points, allocators and panic handlers (compiled only for `target_arch = "m68k"`),
//! on the runtime the on-target test crates share (`tests/m68k-runtime/runtime.rs`).
//!
//! * feature `mac`: `cg_case_count` / `cg_run_case` for the flat image run by the emulator,
//!   allocation through the Memory Manager (`_NewPtr` / `_DisposePtr`), panics go to `_DebugStr`.
//! * feature `linux`: allocator (a bump arena) and panic handler for a freestanding m68k Linux
//!   ELF under `qemu-m68k`; its `_start` is the hand-written `linux_start.S`, which calls the
//!   same `cg_case_count` / `cg_run_case` entry points and writes binary records to stdout.

#[cfg(all(feature = "mac", feature = "linux"))]
compile_error!("features `mac` and `linux` are mutually exclusive");

#[cfg(any(feature = "mac", feature = "linux"))]
#[path = "../../m68k-runtime/runtime.rs"]
mod runtime;

#[cfg(feature = "mac")]
mod mac {
    use super::runtime;
    use runtime::mac::debug_str;

    #[global_allocator]
    static ALLOC: runtime::mac::MacAlloc = runtime::mac::MacAlloc;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        debug_str(b"\x13codegen-suite panic")
    }

    /// LLVM lowers `unreachable` (trap) to a call of `abort` on the M68k.
    #[unsafe(no_mangle)]
    pub extern "C" fn abort() -> ! {
        debug_str(b"\x13codegen-suite abort")
    }
}

#[cfg(feature = "linux")]
mod linux {
    use super::runtime;
    use runtime::linux::{Bump, sys_exit, sys_write};

    #[global_allocator]
    static ALLOC: Bump<false> = Bump;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        sys_write(2, b"PANIC\n");
        sys_exit(101)
    }

    /// LLVM lowers `unreachable` (trap) to a call of `abort` on the M68k.
    #[unsafe(no_mangle)]
    pub extern "C" fn abort() -> ! {
        sys_write(2, b"ABORT\n");
        sys_exit(134)
    }
}

/// The suite's C-ABI entry points, the same in both builds: the emulated Mac calls them
/// through the flat image's exports; under QEMU the hand-written `linux_start.S` loop does.
#[cfg(any(feature = "mac", feature = "linux"))]
mod entry {
    use crate::{CASES, run_case};

    #[unsafe(no_mangle)]
    pub extern "C" fn cg_case_count() -> u32 {
        CASES.len() as u32
    }

    /// Runs case `index` into `out[..cap]`; returns the byte count or 0xFFFF_FFFF.
    #[unsafe(no_mangle)]
    pub extern "C" fn cg_run_case(index: u32, out: *mut u8, cap: u32) -> u32 {
        if out.is_null() {
            return 0xFFFF_FFFF;
        }
        let buf = unsafe { core::slice::from_raw_parts_mut(out, cap as usize) };
        match run_case(index, buf) {
            Some(n) => n as u32,
            None => 0xFFFF_FFFF,
        }
    }
}
