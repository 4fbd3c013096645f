//! 68k entry points, allocators and panic handlers (compiled only for `target_arch = "m68k"`),
//! on the runtime the on-target test crates share (`tests/m68k-runtime/runtime.rs`).
//!
//! * feature `mac`: the flat image the emulated Mac runs; allocation through the Memory
//!   Manager (`_NewPtr` / `_DisposePtr`), panics go to `_DebugStr`.
//! * feature `linux`: allocator (a bump arena, emptied whenever nothing is allocated) and
//!   panic handler for a freestanding m68k Linux ELF under `qemu-m68k`; its `_start` is the
//!   hand-written `linux_start.S`, which calls the same entry points.

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
        debug_str(b"\x0edifftest panic")
    }

    /// LLVM lowers `unreachable` (trap) to a call of `abort` on the M68k.
    #[unsafe(no_mangle)]
    pub extern "C" fn abort() -> ! {
        debug_str(b"\x0edifftest abort")
    }
}

#[cfg(feature = "linux")]
mod linux {
    use super::runtime;
    use runtime::linux::{Bump, sys_exit, sys_write};

    #[global_allocator]
    static ALLOC: Bump<true> = Bump;

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

/// The C-ABI entry points, the same in both builds: the emulated Mac calls them through the
/// flat image's exports; under QEMU the hand-written `linux_start.S` does.
#[cfg(any(feature = "mac", feature = "linux"))]
mod entry {
    use crate::FUNCTIONS;

    #[unsafe(no_mangle)]
    pub extern "C" fn dt_function_count() -> u32 {
        FUNCTIONS.len() as u32
    }

    fn out<'a>(out: *mut u8, cap: u32) -> Option<&'a mut [u8]> {
        (!out.is_null()).then(|| unsafe { core::slice::from_raw_parts_mut(out, cap as usize) })
    }

    /// Digests of inputs `first .. first + count` into `out[..cap]` (4 bytes each); returns
    /// the byte count or 0xFFFF_FFFF.
    #[unsafe(no_mangle)]
    pub extern "C" fn dt_run(
        function: u32,
        seed: u32,
        first: u32,
        count: u32,
        buf: *mut u8,
        cap: u32,
    ) -> u32 {
        out(buf, cap)
            .and_then(|b| crate::run(function, seed, first, count, b))
            .map_or(u32::MAX, |n| n as u32)
    }

    /// The whole trace of input `index` into `out[..cap]`; returns its length or 0xFFFF_FFFF.
    #[unsafe(no_mangle)]
    pub extern "C" fn dt_trace(
        function: u32,
        seed: u32,
        index: u32,
        buf: *mut u8,
        cap: u32,
    ) -> u32 {
        out(buf, cap)
            .and_then(|b| crate::trace(function, seed, index, b))
            .map_or(u32::MAX, |n| n as u32)
    }
}
