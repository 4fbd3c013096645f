//! 68k entry points and panic handlers (compiled only for `target_arch = "m68k"`). The
//! programs allocate nothing. A panic is a failure of the run: in the emulated Mac through
//! `_DebugStr`, under QEMU an exit with status 101.

#[cfg(all(feature = "mac", feature = "linux"))]
compile_error!("features `mac` and `linux` are mutually exclusive");

#[cfg(any(feature = "mac", feature = "linux"))]
#[path = "../../m68k-runtime/runtime.rs"]
#[allow(dead_code)] // the programs allocate nothing
mod runtime;

#[cfg(feature = "mac")]
mod mac {
    use super::runtime;
    use runtime::mac::debug_str;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        debug_str(b"\x12codegen-fuzz panic")
    }

    /// LLVM lowers `unreachable` (trap) to a call of `abort` on the M68k.
    #[unsafe(no_mangle)]
    pub extern "C" fn abort() -> ! {
        debug_str(b"\x12codegen-fuzz abort")
    }
}

#[cfg(feature = "linux")]
mod linux {
    use super::runtime::linux::sys_exit;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        sys_exit(101)
    }

    /// LLVM lowers `unreachable` (trap) to a call of `abort` on the M68k.
    #[unsafe(no_mangle)]
    pub extern "C" fn abort() -> ! {
        sys_exit(134)
    }
}

/// The C-ABI entry points of the codegen suite's runners (`tests/codegen/linux_start.S` under
/// QEMU, the flat image's exports in the emulated Mac).
#[cfg(any(feature = "mac", feature = "linux"))]
mod entry {
    use crate::{PROGRAMS, run_case};

    #[unsafe(no_mangle)]
    pub extern "C" fn cg_case_count() -> u32 {
        PROGRAMS.len() as u32
    }

    /// Runs program `index` into `out[..cap]`; returns the byte count or 0xFFFF_FFFF.
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
