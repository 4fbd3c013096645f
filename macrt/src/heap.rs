//! The global allocator: non-relocatable blocks of the application heap (`_NewPtr`).

use core::alloc::{GlobalAlloc, Layout};

use crate::sys;

/// Memory Manager blocks are at least word-aligned (the 24-bit Memory Manager guarantees no
/// more); larger alignments are made by over-allocating.
const NATIVE_ALIGN: usize = 2;

struct MacHeap;

unsafe impl GlobalAlloc for MacHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let (size, align) = (layout.size().max(1), layout.align());
        if align <= NATIVE_ALIGN {
            // SAFETY: _NewPtr takes any size and returns NIL when the heap is full.
            return unsafe { sys::rt_NewPtr(size as u32) };
        }
        // Room to align, plus the original block address just below the aligned one.
        let Some(total) = size.checked_add(align + 4) else {
            return core::ptr::null_mut();
        };
        // SAFETY: as above.
        let raw = unsafe { sys::rt_NewPtr(total as u32) };
        if raw.is_null() {
            return raw;
        }
        let aligned = (raw as usize + 4 + align - 1) & !(align - 1);
        let p = aligned as *mut u8;
        // SAFETY: aligned - 4 >= raw and aligned + size <= raw + total.
        unsafe { (p.sub(4) as *mut *mut u8).write_unaligned(raw) };
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let raw = if layout.align() <= NATIVE_ALIGN {
            ptr
        } else {
            // SAFETY: alloc stored the block address there.
            unsafe { (ptr.sub(4) as *const *mut u8).read_unaligned() }
        };
        // SAFETY: raw came from _NewPtr and is released once.
        unsafe { sys::rt_DisposePtr(raw) }
    }
}

#[global_allocator]
static HEAP: MacHeap = MacHeap;
