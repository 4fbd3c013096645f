//! The 68k runtime the on-target test crates share (the codegen suite, `tests/difftest`,
//! `tests/codegen-fuzz`), included by each one's `m68k.rs` as a module (`#[path]`). Each crate
//! keeps its own panic handler, `abort` and entry points, and picks its allocator here.
//!
//! * feature `mac`: the Memory Manager allocator (`_NewPtr` / `_DisposePtr`) and `_DebugStr`,
//!   for the flat image the emulated Mac runs.
//! * feature `linux`: `write`/`exit` system calls and a bump allocator over a static arena,
//!   for a freestanding m68k Linux ELF under `qemu-m68k`.

#[cfg(feature = "mac")]
pub mod mac {
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

    /// Allocation through the Memory Manager.
    pub struct MacAlloc;

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

    /// `_DebugStr` (Toolbox trap 0xABFF, Pascal convention: the string pointer is pushed and
    /// the trap pops it). The emulated Mac fails the run with the message.
    pub fn debug_str(pascal_msg: &'static [u8]) -> ! {
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
}

#[cfg(feature = "linux")]
pub mod linux {
    use core::alloc::{GlobalAlloc, Layout};
    use core::arch::asm;

    /// `write(fd, buf)`, all of it unless the kernel refuses.
    pub fn sys_write(fd: u32, buf: &[u8]) {
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

    /// `exit(code)`.
    pub fn sys_exit(code: u32) -> ! {
        unsafe {
            asm!("trap #0", in("d0") 1u32, in("d1") code, options(nostack, noreturn));
        }
    }

    const ARENA_SIZE: usize = 512 * 1024;
    #[repr(C, align(16))]
    struct Arena([u8; ARENA_SIZE]);
    static mut ARENA: Arena = Arena([0; ARENA_SIZE]);
    static mut NEXT: usize = 0;
    static mut LIVE: usize = 0;

    /// A bump allocator over a static 512 KB arena. With `EMPTIES`, the arena starts over
    /// whenever the last block is freed (for callers that free all they allocate); without,
    /// it never frees.
    pub struct Bump<const EMPTIES: bool>;

    unsafe impl<const EMPTIES: bool> GlobalAlloc for Bump<EMPTIES> {
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
                if EMPTIES {
                    (&raw mut LIVE).write_volatile((&raw mut LIVE).read_volatile() + 1);
                }
                base.add(start)
            }
        }
        unsafe fn dealloc(&self, _ptr: *mut u8, _layout: Layout) {
            if EMPTIES {
                unsafe {
                    let live = (&raw mut LIVE).read_volatile() - 1;
                    (&raw mut LIVE).write_volatile(live);
                    if live == 0 {
                        (&raw mut NEXT).write_volatile(0);
                    }
                }
            }
        }
    }
}
