//! The Mac side of the driver on the 68k: the assembly glue in `entry.S` and low-memory
//! globals, wrapped once here. Everything unsafe about talking to Mac OS lives in this file.

use ferrite_shared::mac::{Dce, IoParam};

unsafe extern "C" {
    fn ferrite_new_ptr_sys_clear(size: u32, out: *mut u32) -> i32;
    fn ferrite_drvr_install(header: u32, ref_num: i32) -> i32;
    fn ferrite_hlock(handle: u32) -> i32;
    fn ferrite_add_drive(element: u32, drive_ref: u32) -> i32;
    fn ferrite_post_event(what: u32, message: u32) -> i32;
    fn ferrite_scsi_action(pb: u32) -> i32;
    fn ferrite_trap_available(trap: u32) -> u32;
    fn ferrite_scsi_old(selector: u32, a: u32, b: u32, c: u32) -> i32;
    fn ferrite_panic() -> !;
    fn ferrite_scsi_completion();
    fn ferrite_vbl_task();
    fn ferrite_vinstall(task: u32) -> i32;
    fn ferrite_drvr_remove(ref_num: i32) -> i32;
    fn ferrite_dispose_ptr(p: u32) -> i32;
    fn ferrite_dequeue(element: u32, header: u32) -> i32;
    fn ferrite_delay(ticks: u32);
    static ferrite_drvr_header: u8;
    static ferrite_blob_start: [u8; 48];
}

/// Low-memory globals (`docs/mac-facts.md` §9.1).
pub mod lowmem {
    pub const UTABLE_BASE: u32 = 0x11C;
    pub const UNIT_NTRY_CNT: u32 = 0x1D2;
    pub const DRV_Q_HEAD: u32 = 0x30A;
    /// The drive queue header (`DrvQHdr`; `DRV_Q_HEAD` is its `qHead`).
    pub const DRV_Q_HDR: u32 = 0x308;
    /// `CPUFlag` (byte): 0 = 68000, 1 = 68010, 2 = 68020, 3 = 68030, 4 = 68040.
    pub const CPU_FLAG: u32 = 0x12F;
    /// `Ticks`: VBL interrupts counted since start-up.
    pub const TICKS: u32 = 0x16A;
}

/// Read a big-endian (native) long from guest memory.
pub fn peek32(addr: u32) -> u32 {
    // SAFETY: low-memory globals and OS structures are always mapped on a Mac; the callers
    // only pass such addresses.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// Read a word.
pub fn peek16(addr: u32) -> u16 {
    // SAFETY: as `peek32`.
    unsafe { core::ptr::read_volatile(addr as *const u16) }
}

/// Read a byte.
pub fn peek8(addr: u32) -> u8 {
    // SAFETY: as `peek32`.
    unsafe { core::ptr::read_volatile(addr as *const u8) }
}

/// `_DrvrRemove` of the driver under `ref_num` (its DCE must not be marked open).
pub fn drvr_remove(ref_num: i16) -> i16 {
    // SAFETY: trap glue.
    unsafe { ferrite_drvr_remove(ref_num as i32) as i16 }
}

/// `_DisposePtr`.
pub fn dispose_ptr(p: u32) -> i16 {
    // SAFETY: trap glue; `p` is a block we allocated and no longer use.
    unsafe { ferrite_dispose_ptr(p) as i16 }
}

/// `_Dequeue` of `element` from the queue whose header is at `header`.
pub fn dequeue(element: u32, header: u32) -> i16 {
    // SAFETY: trap glue.
    unsafe { ferrite_dequeue(element, header) as i16 }
}

/// `_NewPtr SYS CLEAR`.
pub fn new_ptr_sys_clear(size: u32) -> Result<u32, i16> {
    let mut p = 0u32;
    // SAFETY: the glue stores one long through `out`.
    let e = unsafe { ferrite_new_ptr_sys_clear(size, &mut p) } as i16;
    if e != 0 || p == 0 {
        Err(if e != 0 { e } else { -108 })
    } else {
        Ok(p)
    }
}

/// `_DrvrInstall` of our header under `ref_num`.
pub fn drvr_install(ref_num: i16) -> i16 {
    // SAFETY: trap glue; the header is ours.
    unsafe { ferrite_drvr_install(header_address(), ref_num as i32) as i16 }
}

/// `_HLock`.
pub fn hlock(handle: u32) -> i16 {
    // SAFETY: trap glue.
    unsafe { ferrite_hlock(handle) as i16 }
}

/// `_AddDrive` of the element at `element` (its `qLink`).
pub fn add_drive(element: u32, drive: u16, ref_num: i16) -> i16 {
    // SAFETY: trap glue; the element lives in our globals (system heap, never moves).
    unsafe { ferrite_add_drive(element, (drive as u32) << 16 | ref_num as u16 as u32) as i16 }
}

/// `_PostEvent(what, message)`: 0 posted, 1 `evtNotEnb`.
pub fn post_event(what: u16, message: u32) -> i16 {
    // SAFETY: trap glue.
    unsafe { ferrite_post_event(what as u32, message) as i16 }
}

/// `SCSIAction` (`_SCSIAtomic`, D0 = 1).
pub fn scsi_action(pb: u32) -> i16 {
    // SAFETY: trap glue; `pb` is a parameter block in our globals.
    unsafe { ferrite_scsi_action(pb) as i16 }
}

/// `_Delay` for `ticks` ticks.
pub fn delay(ticks: u32) {
    // SAFETY: trap glue.
    unsafe { ferrite_delay(ticks) }
}

/// `_VInstall` of the task at `task` (in our globals).
pub fn vinstall(task: u32) -> i16 {
    // SAFETY: trap glue; the task lives in the system heap for as long as the driver.
    unsafe { ferrite_vinstall(task) as i16 }
}

/// Address of the VBL task glue.
pub fn vbl_task_address() -> u32 {
    ferrite_vbl_task as *const () as usize as u32
}

/// Whether the trap exists (its address is not `_Unimplemented`'s).
pub fn trap_available(trap: u16) -> bool {
    // SAFETY: trap glue.
    unsafe { ferrite_trap_available(trap as u32) != 0 }
}

/// An original SCSI Manager call (see `entry.S` for the argument use by selector).
pub fn scsi_old(selector: u16, a: u32, b: u32, c: u32) -> i16 {
    // SAFETY: trap glue; pointers passed are into our globals.
    unsafe { ferrite_scsi_old(selector as u32, a, b, c) as i16 }
}

/// Address of the DRVR header.
pub fn header_address() -> u32 {
    core::ptr::addr_of!(ferrite_drvr_header) as u32
}

/// Address of the SCSI Manager 4.3 completion glue.
pub fn completion_address() -> u32 {
    ferrite_scsi_completion as *const () as usize as u32
}

/// The blob's first 48 bytes: entries, magic, relocation offset and the settings block, read
/// where they are (an extern static: the compiler cannot know what the formatter wrote there;
/// a copy would cost a byte move per byte).
pub fn blob_head() -> &'static [u8] {
    // SAFETY: the head is 48 bytes of our own image, never written after the formatter.
    unsafe { core::slice::from_raw_parts(core::ptr::addr_of!(ferrite_blob_start).cast::<u8>(), 48) }
}

/// Stop with a debugger message.
pub fn panic() -> ! {
    // SAFETY: the glue never returns.
    unsafe { ferrite_panic() }
}

/// A mutable view of OS-owned memory the Device Manager passes us (parameter blocks, DCEs),
/// valid for the duration of one driver call.
///
/// # Safety
/// `addr` must point at a live structure of type `T` that nothing else writes during the
/// call.
pub unsafe fn view<'a, T>(addr: u32) -> &'a mut T {
    // SAFETY: guaranteed by the caller; T has alignment 1 (zerocopy `Unaligned`).
    unsafe { &mut *(addr as *mut T) }
}

/// The parameter block of a call.
///
/// # Safety
/// As [`view`].
pub unsafe fn io_param<'a>(pb: u32) -> &'a mut IoParam {
    // SAFETY: as `view`.
    unsafe { view(pb) }
}

/// The DCE of a call.
///
/// # Safety
/// As [`view`].
pub unsafe fn dce<'a>(addr: u32) -> &'a mut Dce {
    // SAFETY: as `view`.
    unsafe { view(addr) }
}
