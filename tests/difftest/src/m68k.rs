//! 68k entry points, allocators and panic handlers (compiled only for `target_arch = "m68k"`),
//! as in the codegen suite (`tests/codegen/src/m68k.rs`).
//!
//! * feature `mac`: the flat image the emulated Mac runs; allocation through the Memory
//!   Manager (`_NewPtr` / `_DisposePtr`), panics go to `_DebugStr`.
//! * feature `linux`: allocator (a bump arena, emptied whenever nothing is allocated) and
//!   panic handler for a freestanding m68k Linux ELF under `qemu-m68k`; its `_start` is the
//!   hand-written `linux_start.S`, which calls the same entry points.

#[cfg(all(feature = "mac", feature = "linux"))]
compile_error!("features `mac` and `linux` are mutually exclusive");

#[cfg(feature = "mac")]
mod mac {
    use core::alloc::{GlobalAlloc, Layout};
    use core::arch::asm;

    /// `_NewPtr` (trap 0xA11E): D0 = size in; A0 = block out, D0 = result code.
    unsafe fn new_ptr(size: u32) -> *mut u8 {
        let result: i32;
        let ptr: *mut u8;
        unsafe {
            asm!(
                ".short 0xA11E",
                inout("d0") size => result,
                out("a0") ptr,
                out("d1") _, out("d2") _, out("a1") _,
            );
        }
        if result != 0 {
            core::ptr::null_mut()
        } else {
            ptr
        }
    }

    /// `_DisposePtr` (trap 0xA01F): A0 = block in; D0 = result code.
    unsafe fn dispose_ptr(ptr: *mut u8) {
        unsafe {
            asm!(
                ".short 0xA01F",
                inout("a0") ptr => _,
                out("d0") _, out("d1") _, out("d2") _, out("a1") _,
            );
        }
    }

    struct MacAlloc;

    /// Blocks from `_NewPtr` are aligned to at least 4 bytes.
    const NATIVE_ALIGN: usize = 4;

    unsafe impl GlobalAlloc for MacAlloc {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let size = layout.size();
            let align = layout.align();
            if align <= NATIVE_ALIGN {
                return unsafe { new_ptr(size as u32) };
            }
            // Over-allocate, align, and keep the original pointer just below the block.
            let total = match size.checked_add(align + 4) {
                Some(t) if t <= u32::MAX as usize => t,
                _ => return core::ptr::null_mut(),
            };
            let raw = unsafe { new_ptr(total as u32) };
            if raw.is_null() {
                return raw;
            }
            let addr = raw as usize;
            let aligned = (addr + 4 + align - 1) & !(align - 1);
            let p = unsafe { raw.add(aligned - addr) };
            unsafe { (p.sub(4) as *mut *mut u8).write_unaligned(raw) };
            p
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            if layout.align() <= NATIVE_ALIGN {
                unsafe { dispose_ptr(ptr) }
            } else {
                let raw = unsafe { (ptr.sub(4) as *const *mut u8).read_unaligned() };
                unsafe { dispose_ptr(raw) }
            }
        }
    }

    #[global_allocator]
    static ALLOC: MacAlloc = MacAlloc;

    /// `_DebugStr` (Toolbox trap 0xABFF, Pascal convention: the string pointer is pushed and
    /// the trap pops it). The emulated Mac fails the run with the message.
    fn debug_str(pascal_msg: &'static [u8]) -> ! {
        unsafe {
            asm!(
                "move.l %a0, -(%sp)",
                ".short 0xABFF",
                in("a0") pascal_msg.as_ptr(),
                out("d0") _, out("d1") _, out("d2") _, out("a1") _,
            );
        }
        loop {
            core::hint::spin_loop();
        }
    }

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

    use core::alloc::{GlobalAlloc, Layout};
    use core::arch::asm;

    fn sys_write(fd: u32, buf: &[u8]) {
        let mut rest = buf;
        while !rest.is_empty() {
            let r: i32;
            unsafe {
                asm!(
                    "trap #0",
                    inout("d0") 4u32 => r,
                    in("d1") fd,
                    in("d2") rest.as_ptr(),
                    in("d3") rest.len() as u32,
                    options(nostack),
                );
            }
            if r <= 0 {
                return;
            }
            rest = &rest[(r as usize).min(rest.len())..];
        }
    }

    fn sys_exit(code: u32) -> ! {
        unsafe {
            asm!("trap #0", in("d0") 1u32, in("d1") code, options(nostack, noreturn));
        }
    }

    // --- bump allocator over a static arena; every input frees all it allocated, so the
    // arena starts over whenever the last block is freed ---
    const ARENA_SIZE: usize = 512 * 1024;
    static mut LIVE: usize = 0;
    #[repr(C, align(16))]
    struct Arena([u8; ARENA_SIZE]);
    static mut ARENA: Arena = Arena([0; ARENA_SIZE]);
    static mut NEXT: usize = 0;

    struct Bump;
    unsafe impl GlobalAlloc for Bump {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            unsafe {
                let base = (&raw mut ARENA) as *mut u8;
                let next = (&raw mut NEXT).read_volatile();
                let addr = base as usize + next;
                let aligned = (addr + layout.align() - 1) & !(layout.align() - 1);
                let start = aligned - base as usize;
                let end = match start.checked_add(layout.size()) {
                    Some(e) if e <= ARENA_SIZE => e,
                    _ => return core::ptr::null_mut(),
                };
                (&raw mut NEXT).write_volatile(end);
                (&raw mut LIVE).write_volatile((&raw mut LIVE).read_volatile() + 1);
                base.add(start)
            }
        }
        unsafe fn dealloc(&self, _ptr: *mut u8, _layout: Layout) {
            unsafe {
                let live = (&raw mut LIVE).read_volatile() - 1;
                (&raw mut LIVE).write_volatile(live);
                if live == 0 {
                    (&raw mut NEXT).write_volatile(0);
                }
            }
        }
    }

    #[global_allocator]
    static ALLOC: Bump = Bump;

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
