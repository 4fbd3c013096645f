//! The Mac side of the driver on the 68k: the assembly glue in `entry.S` and low-memory
//! globals, wrapped once here. Everything unsafe about talking to Mac OS lives in this file.

use ferrite_shared::mac::Dce;

unsafe extern "C" {
    fn ferrite_new_ptr_sys_clear(size: u32, out: *mut u32) -> i32;
    fn ferrite_drvr_install(header: u32, ref_num: i32) -> i32;
    fn ferrite_hlock(handle: u32) -> i32;
    fn ferrite_add_drive(element: u32, drive_ref: u32) -> i32;
    fn ferrite_post_event(what: u32, message: u32) -> i32;
    fn ferrite_scsi_action(pb: u32) -> i32;
    fn ferrite_trap_available(trap: u32) -> u32;
    fn ferrite_old_io(io: u32, cdb: u32, len_sel: u32) -> u32;
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

/// Write a long: one `move.l` (the address must be even, as every OS structure's fields the
/// driver writes this way are: see [`at`]).
pub fn poke32(addr: u32, v: u32) {
    // SAFETY: as `peek32`; the callers pass fields of structures the call lends the driver.
    unsafe { core::ptr::write_volatile(addr as *mut u32, v) }
}

/// Write a word.
pub fn poke16(addr: u32, v: u16) {
    // SAFETY: as `poke32`.
    unsafe { core::ptr::write_volatile(addr as *mut u16, v) }
}

/// Offsets of the OS structures' fields the per-request path reads and writes with single
/// aligned moves ([`peek32`], [`poke32`], ...) instead of the byte-by-byte accesses of their
/// byte-aligned zerocopy views: parameter blocks and DCEs are word-aligned on every Mac (the
/// OS itself moves their words and longs, which a 68000 cannot do at an odd address), and
/// these fields sit at even offsets (asserted below).
pub mod at {
    use core::mem::offset_of;
    use ferrite_shared::mac::{CntrlParam, Dce, IoParam, ScsiExecIoPb};

    pub const IO_TRAP: u32 = offset_of!(IoParam, io_trap) as u32;
    pub const IO_VREF_NUM: u32 = offset_of!(IoParam, io_vref_num) as u32;
    pub const CS_PARAM: u32 = offset_of!(CntrlParam, cs_param) as u32;
    pub const IO_BUFFER: u32 = offset_of!(IoParam, io_buffer) as u32;
    pub const IO_REQ_COUNT: u32 = offset_of!(IoParam, io_req_count) as u32;
    pub const IO_ACT_COUNT: u32 = offset_of!(IoParam, io_act_count) as u32;
    pub const IO_POS_MODE: u32 = offset_of!(IoParam, io_pos_mode) as u32;
    /// `ioWPosOffset` of an XIOParam (kUseWidePositioning): high long, then low long.
    pub const IO_WPOS_OFFSET: u32 = offset_of!(IoParam, io_pos_offset) as u32;
    pub const D_CTL_POSITION: u32 = offset_of!(Dce, d_ctl_position) as u32;
    pub const D_CTL_STORAGE: u32 = offset_of!(Dce, d_ctl_storage) as u32;
    pub const SCSI_Q_LINK: u32 = offset_of!(ScsiExecIoPb, q_link) as u32;
    pub const SCSI_RESULT: u32 = offset_of!(ScsiExecIoPb, scsi_result) as u32;
    pub const SCSI_FLAGS: u32 = offset_of!(ScsiExecIoPb, scsi_flags) as u32;
    pub const SCSI_DRIVER_STORAGE: u32 = offset_of!(ScsiExecIoPb, scsi_driver_storage) as u32;
    /// `scsiResultFlags` and the reserved word after it.
    pub const SCSI_RESULT_FLAGS: u32 = offset_of!(ScsiExecIoPb, scsi_result_flags) as u32;
    pub const SCSI_DATA_PTR: u32 = offset_of!(ScsiExecIoPb, scsi_data_ptr) as u32;
    pub const SCSI_DATA_LENGTH: u32 = offset_of!(ScsiExecIoPb, scsi_data_length) as u32;
    /// `scsiSCSIstatus`, `scsiSenseResidual` and the reserved word after them.
    pub const SCSI_STATUS: u32 = offset_of!(ScsiExecIoPb, scsi_scsi_status) as u32;
    pub const SCSI_DATA_RESIDUAL: u32 = offset_of!(ScsiExecIoPb, scsi_data_residual) as u32;
    pub const SCSI_CDB: u32 = offset_of!(ScsiExecIoPb, scsi_cdb) as u32;

    const _: () = {
        let longs = [
            IO_BUFFER,
            IO_REQ_COUNT,
            IO_ACT_COUNT,
            IO_WPOS_OFFSET,
            CS_PARAM,
            D_CTL_POSITION,
            D_CTL_STORAGE,
            SCSI_Q_LINK,
            SCSI_FLAGS,
            SCSI_DRIVER_STORAGE,
            SCSI_RESULT_FLAGS,
            SCSI_DATA_PTR,
            SCSI_DATA_LENGTH,
            SCSI_STATUS,
            SCSI_DATA_RESIDUAL,
            SCSI_CDB,
            IO_TRAP,
            IO_VREF_NUM,
            IO_POS_MODE,
            SCSI_RESULT,
        ];
        let mut i = 0;
        while i < longs.len() {
            assert!(longs[i] % 2 == 0);
            i += 1;
        }
        // The status long: status byte, sense residual, a reserved word.
        assert!(offset_of!(ScsiExecIoPb, scsi_sense_residual) as u32 == SCSI_STATUS + 1);
        assert!(offset_of!(ScsiExecIoPb, scsi_reserved5) as u32 == SCSI_STATUS + 2);
        assert!(offset_of!(ScsiExecIoPb, scsi_reserved3pt5) as u32 == SCSI_RESULT_FLAGS + 2);
    };
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

/// One original-SCSI-Manager transaction (`glue.S`, `ferrite_old_io`): `SCSIGet`,
/// `SCSISelect`, `SCSICmd` of the CDB at `cdb` (`len_sel`'s high word its length), the data
/// call of selector `len_sel & $FFFF` (none when 0) with the TIB in the block `io`, then
/// `SCSIComplete` into its status and message words. 0 when every call answered `noErr`;
/// otherwise the call that failed (high word) and a result (low word), as the glue says.
pub fn old_io(io: u32, cdb: u32, len_sel: u32) -> u32 {
    // SAFETY: trap glue; `io` and the CDB are in our globals, the TIB names the caller's
    // buffer.
    unsafe { ferrite_old_io(io, cdb, len_sel) }
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

/// The DCE of a call.
///
/// # Safety
/// As [`view`].
pub unsafe fn dce<'a>(addr: u32) -> &'a mut Dce {
    // SAFETY: as `view`.
    unsafe { view(addr) }
}
