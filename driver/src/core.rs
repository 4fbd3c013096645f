//! The driver on the Mac: install, the Device Manager entries and the SCSI transports. Pure
//! decisions live in `request`, `sense`, `partition`, `cache` and `gestalt`; this module
//! moves bytes between them, the OS structures and the SCSI Manager.
//!
//! State lives in one [`Globals`] block from `_NewPtr SYS CLEAR` whose address is kept in
//! `dCtlStorage`: the driver has no static data, so the ROM can load it anywhere and more
//! than one copy (one per SCSI ID) can run side by side. Buffers the code indexes live there
//! too, never on the stack (see `docs/codegen-conformance.md`).

use ferrite_shared::driver_blob::Settings;
use ferrite_shared::mac::{
    CntrlParam, DrvQElWithFlags, ScsiDriverPb, ScsiExecIoPb, VblTask, drvr_flags, err,
};
use ferrite_shared::scsi::{self, Sense, status};
use ferrite_shared::scsi_manager::original::{
    SC_INC, SC_LOOP, SC_MGR_BUSY, SC_PHASE_ERR, SC_STOP, SCSI_CMD, SCSI_COMPLETE, SCSI_GET,
    SCSI_RBLIND, SCSI_READ, SCSI_SELECT, SCSI_WBLIND, SCSI_WRITE,
};
use ferrite_shared::scsi_manager::v43::{
    DIR_IN, DIR_NONE, DIR_OUT, SCSI_AUTOSENSE_VALID, SCSI_BUS_RESET, SCSI_DATA_RUN_ERROR,
    SCSI_EXEC_IO, SCSI_NON_ZERO_STATUS, SCSI_REQUEST_IN_PROGRESS, SCSI_SELECT_TIMEOUT,
    SIMQ_NO_FREEZE,
};
use zerocopy::{FromZeros, IntoBytes};

use crate::gestalt::{self, GestaltInfo};
use crate::mac;
use crate::partition::{self, MAX_DRIVES, MapBlock};
use crate::request::{self, BLOCK, Extent};
use crate::sense::{Recovery, classify};

/// `diskEvt`.
const DISK_EVT: u16 = 7;
/// First drive number the driver uses (facts doc §5.3: first free ≥ 8).
const FIRST_DRIVE: u16 = 8;
/// Retries of one command (UNIT ATTENTION, BUSY, NOT READY, blind-transfer fallback).
const MAX_RETRIES: u8 = 8;
/// NOT READY (becoming ready) waits of an asynchronous request before it fails: with
/// [`NOT_READY_WAIT_TICKS`] between them, about 20 s — a drive spinning up after power-on.
const MAX_NOT_READY_WAITS: u8 = 40;
/// `vType`: the `qType` of a VBL task.
const V_TYPE: u16 = 1;
/// Ticks to wait between NOT READY retries.
const NOT_READY_WAIT_TICKS: u32 = 30;

/// One HFS partition served as a drive.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Drive {
    /// The drive-queue element with its flag bytes; `_AddDrive` gets `&qel.q_link`.
    pub qel: DrvQElWithFlags,
    pub extent: Extent,
    pub number: u16,
    /// The disk-inserted event still has to be posted.
    pub event_pending: u8,
    pub _pad: u8,
}

/// Direction of a transfer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    None,
    In,
    Out,
}

/// Everything the driver keeps.
#[repr(C)]
pub struct Globals {
    pub dce: u32,
    pub ref_num: i16,
    pub target: u8,
    pub lun: u8,
    pub bus: u8,
    /// Use SCSI Manager 4.3 (else the original SCSI Manager).
    pub use43: u8,
    /// Original SCSI Manager: use polled transfers (after a blind transfer failed).
    pub polled: u8,
    pub removable: u8,
    pub write_cache_on: u8,
    pub in_prime: u8,
    /// The command in progress may move less data than asked (MODE SENSE, INQUIRY).
    pub short_ok: u8,
    /// The MODE SENSE header said WP (write protected).
    pub write_protected: u8,
    pub ndrives: u16,
    pub disk_blocks: u32,
    pub drives: [Drive; MAX_DRIVES],
    // The asynchronous request in flight (SCSI Manager 4.3), 0 if none.
    pub active_pb: u32,
    pub active_write: u8,
    pub retries: u8,
    pub early_done: u8,
    /// The async command in flight is the START STOP UNIT a NOT READY asked for.
    pub starting: u8,
    pub early_result: i16,
    pub active_lba: u32,
    pub active_left: u32,
    pub active_buf: u32,
    pub active_chunk: u32,
    pub active_total: u32,
    pub stat: u16,
    pub msg: u16,
    pub pb: ScsiExecIoPb,
    pub sense: [u8; 32],
    pub tib: [u8; 40],
    pub cdb: [u8; 16],
    pub list: [u8; 32],
    pub page: [u8; 64],
    pub page2: [u8; 64],
    pub buf: [u8; 512],
    /// NOT READY waits of the active request so far.
    pub not_ready_waits: u8,
    /// The VBL task is installed (it waits out NOT READY on the asynchronous path).
    pub vbl_installed: u8,
    /// The VBL task (inactive while `vblCount` is 0), followed by our DCE for its routine.
    pub vbl: VblTask,
    pub vbl_dce: u32,
}

// ---- entry points (called from entry.S) ---------------------------------------------------

fn globals<'a>(dce: u32) -> &'a mut Globals {
    // SAFETY: `dCtlStorage` holds the block `install` allocated for this DCE; the Device
    // Manager serialises queued calls, and the completion routine only runs while a
    // request is active, so one `&mut` at a time is a sound model of the driver's state.
    unsafe { mac::view::<Globals>(mac::dce(dce).d_ctl_storage.get()) }
}

/// Install (old entry: `kind` 0, D5 = SCSI ID; 4.3 entry: `kind` 1, D5 = DeviceIdent).
#[unsafe(no_mangle)]
pub extern "C" fn ferrite_install(_blob: u32, kind: u32, d5: u32) -> i32 {
    match install(kind, d5) {
        Ok(()) => 0,
        Err(e) => e as i32,
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn ferrite_open(_pb: u32, _dce: u32) -> i32 {
    0
}

#[unsafe(no_mangle)]
pub extern "C" fn ferrite_close(_pb: u32, _dce: u32) -> i32 {
    // Fixed disks stay open; the Device Manager keeps the driver.
    err::CLOS_ERR as i32
}

#[unsafe(no_mangle)]
pub extern "C" fn ferrite_prime(pb: u32, dce: u32) -> i32 {
    prime(pb, dce) as i32
}

#[unsafe(no_mangle)]
pub extern "C" fn ferrite_control(pb: u32, dce: u32) -> i32 {
    control(pb, dce) as i32
}

#[unsafe(no_mangle)]
pub extern "C" fn ferrite_status(pb: u32, dce: u32) -> i32 {
    status_call(pb, dce) as i32
}

/// The VBL task (A0 = the task, our DCE right after it). Returns the DCE whose request is
/// finished (the glue then jumps to IODone with `*result`) or 0.
#[unsafe(no_mangle)]
pub extern "C" fn ferrite_vbl(task: u32, result: *mut i32) -> u32 {
    let dce = mac::peek32(task + core::mem::size_of::<VblTask>() as u32);
    match vbl_retry(dce) {
        Some(r) => {
            // SAFETY: the glue passes a pointer to its stack slot.
            unsafe { *result = r as i32 };
            dce
        }
        None => 0,
    }
}

/// SCSI Manager 4.3 completion of an asynchronous command. Returns the DCE whose request is
/// finished (the glue then jumps to IODone with `*result`) or 0.
#[unsafe(no_mangle)]
pub extern "C" fn ferrite_scsi_complete(pb: u32, result: *mut i32) -> u32 {
    // SAFETY: the XPT passes our own parameter block back; `scsiDriverStorage` is our DCE.
    let dce = unsafe { mac::view::<ScsiExecIoPb>(pb) }
        .scsi_driver_storage
        .get();
    match complete(dce) {
        Some(r) => {
            // SAFETY: the glue passes a pointer to its stack slot.
            unsafe { *result = r as i32 };
            dce
        }
        None => 0,
    }
}

// ---- install ------------------------------------------------------------------------------

fn install(kind: u32, d5: u32) -> Result<(), i16> {
    let (bus, target, lun) = if kind == 0 {
        (0u8, (d5 & 7) as u8, 0u8)
    } else {
        ((d5 >> 16) as u8, (d5 >> 8) as u8, d5 as u8)
    };
    let unit = choose_unit(bus, target).ok_or(err::UNIT_TBL_FULL_ERR)?;
    let ref_num = !(unit as i16);
    let gp = mac::new_ptr_sys_clear(core::mem::size_of::<Globals>() as u32)?;
    let e = mac::drvr_install(ref_num);
    if e != 0 {
        return Err(e);
    }
    let handle = mac::peek32(mac::peek32(mac::lowmem::UTABLE_BASE) + 4 * unit as u32);
    mac::hlock(handle);
    let dce_addr = mac::peek32(handle);
    // SAFETY: `_DrvrInstall` just made this DCE for us.
    let dce = unsafe { mac::dce(dce_addr) };
    // SAFETY: our header.
    let header = unsafe { mac::view::<ferrite_shared::mac::DrvrHeader>(mac::header_address()) };
    dce.d_ctl_driver.set(mac::header_address());
    let flags = (header.drvr_flags.get() & 0xFF00)
        | drvr_flags::D_OPENED
        | drvr_flags::DRIVER_GESTALT_ENABLE;
    dce.d_ctl_flags.set(flags);
    dce.d_ctl_delay.set(header.drvr_delay.get());
    dce.d_ctl_storage.set(gp);

    let g = globals(dce_addr);
    g.dce = dce_addr;
    g.ref_num = ref_num;
    g.bus = bus;
    g.target = target;
    g.lun = lun;
    g.use43 = mac::trap_available(ferrite_shared::mac::trap::SCSI_ATOMIC) as u8;
    let settings = Settings::read(&mac::blob_head()).unwrap_or_default();

    open_disk(g, &settings)?;
    read_map(g)?;
    if g.use43 != 0 && kind == 1 {
        register_xref(g, d5)?;
    }
    if g.use43 != 0 {
        // A VBL task, idle until a NOT READY has to be waited out at interrupt time.
        g.vbl = VblTask::new_zeroed();
        g.vbl.q_type.set(V_TYPE);
        g.vbl.vbl_addr.set(mac::vbl_task_address());
        g.vbl_dce = dce_addr;
        let task = core::ptr::addr_of!(g.vbl) as u32;
        g.vbl_installed = (mac::vinstall(task) == 0) as u8;
    }
    post_pending_events(g);
    Ok(())
}

/// Unit 32 + ID for the built-in bus (facts doc §2.4), else the first free unit ≥ 48.
fn choose_unit(bus: u8, target: u8) -> Option<u16> {
    let table = mac::peek32(mac::lowmem::UTABLE_BASE);
    let count = mac::peek16(mac::lowmem::UNIT_NTRY_CNT);
    let free = |u: u16| u < count && mac::peek32(table + 4 * u as u32) == 0;
    let preferred = 32 + target as u16;
    if bus == 0 && target < 7 && free(preferred) {
        return Some(preferred);
    }
    (48..count).find(|&u| free(u))
}

fn open_disk(g: &mut Globals, settings: &Settings) -> Result<(), i16> {
    command(g, &scsi::test_unit_ready(), Dir::None, 0, 0)?;
    let buf = g.buf.as_mut_ptr() as u32;
    g.short_ok = 1;
    let inquiry = command(g, &scsi::inquiry(36), Dir::In, buf, 36);
    g.short_ok = 0;
    inquiry?;
    g.removable = (g.buf[1] & 0x80 != 0) as u8;
    command(g, &scsi::read_capacity_10(), Dir::In, buf, 8)?;
    let last = u32::from_be_bytes([g.buf[0], g.buf[1], g.buf[2], g.buf[3]]);
    let block_len = u32::from_be_bytes([g.buf[4], g.buf[5], g.buf[6], g.buf[7]]);
    if block_len != BLOCK {
        return Err(err::NO_DRIVE_ERR);
    }
    g.disk_blocks = last.wrapping_add(1);
    // The caching page's current values: the header's WP bit for the drives, the page for
    // the write cache. A drive without the page (SCSI-1) refuses: leave it as it is.
    let page = g.page.as_mut_ptr() as u32;
    g.page.fill(0);
    g.short_ok = 1;
    let sensed = command(
        g,
        &scsi::mode_sense_6(scsi::caching::PAGE, scsi::page_control::CURRENT, 64),
        Dir::In,
        page,
        64,
    );
    g.short_ok = 0;
    if sensed.is_ok() {
        g.write_protected = (g.page[2] & 0x80 != 0) as u8;
        if settings.write_cache {
            enable_write_cache(g);
        }
    }
    Ok(())
}

/// MODE SENSE the caching page (current and changeable) and turn WCE on if allowed; a drive
/// without the page, or that refuses, is left as it is.
fn enable_write_cache(g: &mut Globals) {
    if crate::cache::wce_on(&g.page) == Some(true) {
        g.write_cache_on = 1;
        return;
    }
    let page2 = g.page2.as_mut_ptr() as u32;
    g.page2.fill(0);
    g.short_ok = 1;
    let sensed = command(
        g,
        &scsi::mode_sense_6(scsi::caching::PAGE, scsi::page_control::CHANGEABLE, 64),
        Dir::In,
        page2,
        64,
    );
    g.short_ok = 0;
    if sensed.is_err() {
        return;
    }
    let Some(n) = crate::cache::enable_wce_list(&g.page, &g.page2, &mut g.list) else {
        return;
    };
    let list = g.list.as_mut_ptr() as u32;
    if command(
        g,
        &scsi::mode_select_6(false, n as u8),
        Dir::Out,
        list,
        n as u32,
    )
    .is_ok()
    {
        g.write_cache_on = 1;
    }
}

fn read_map(g: &mut Globals) -> Result<(), i16> {
    let buf = g.buf.as_mut_ptr() as u32;
    let mut block = 1u32;
    let mut entries = 1u32;
    while block <= entries {
        command(g, &scsi::read_10(block, 1), Dir::In, buf, BLOCK)?;
        match partition::examine(&g.buf, g.disk_blocks) {
            MapBlock::End => break,
            MapBlock::Entry { hfs, map_entries } => {
                entries = map_entries;
                if let Some(extent) = hfs {
                    add_drive(g, extent);
                }
            }
        }
        block += 1;
    }
    Ok(())
}

fn drive_number_taken(n: u16) -> bool {
    let mut el = mac::peek32(mac::lowmem::DRV_Q_HEAD);
    let mut guard = 0;
    while el != 0 && guard < 256 {
        if mac::peek16(el + 6) == n {
            return true;
        }
        el = mac::peek32(el);
        guard += 1;
    }
    false
}

fn add_drive(g: &mut Globals, extent: Extent) {
    let i = g.ndrives as usize;
    if i >= MAX_DRIVES {
        return;
    }
    let mut number = FIRST_DRIVE;
    while drive_number_taken(number) {
        number += 1;
    }
    let d = &mut g.drives[i];
    d.qel = DrvQElWithFlags::new_zeroed();
    d.qel.disk_in_place = if g.removable != 0 { 2 } else { 8 };
    d.qel.installed = 1;
    d.qel.write_prot = if g.write_protected != 0 { 0x80 } else { 0 };
    d.qel.q_type.set(1);
    d.qel.dq_drv_sz.set(extent.blocks as u16);
    d.qel.dq_drv_sz2.set((extent.blocks >> 16) as u16);
    d.extent = extent;
    d.number = number;
    d.event_pending = 1;
    let element = core::ptr::addr_of!(d.qel.q_link) as u32;
    g.ndrives += 1;
    mac::add_drive(element, number, g.ref_num);
}

fn register_xref(g: &mut Globals, device: u32) -> Result<(), i16> {
    let pb = g.page.as_mut_ptr() as u32;
    // SAFETY: `page` is 64 bytes, enough for the 44-byte SCSIDriverPB.
    let p = unsafe { mac::view::<ScsiDriverPb>(pb) };
    *p = ScsiDriverPb::new_zeroed();
    p.scsi_pb_length
        .set(core::mem::size_of::<ScsiDriverPb>() as u16);
    p.scsi_function_code = 0x85; // SCSICreateRefNumXref
    p.scsi_device = device.to_be_bytes();
    p.scsi_driver.set(g.ref_num);
    match mac::scsi_action(pb) {
        0 => Ok(()),
        e => Err(e),
    }
}

/// Post the disk-inserted events not yet posted; at boot `_PostEvent` is refused
/// (`evtNotEnb`) and `accRun` tries again. When all are posted, stop asking for time.
fn post_pending_events(g: &mut Globals) {
    let mut left = 0;
    for i in 0..g.ndrives as usize {
        let d = &mut g.drives[i];
        if d.event_pending != 0 {
            if mac::post_event(DISK_EVT, d.number as u32) == 0 {
                d.event_pending = 0;
            } else {
                left += 1;
            }
        }
    }
    if left == 0 {
        // SAFETY: our DCE.
        let dce = unsafe { mac::dce(g.dce) };
        dce.d_ctl_flags
            .set(dce.d_ctl_flags.get() & !drvr_flags::D_NEED_TIME);
    }
}

// ---- Prime --------------------------------------------------------------------------------

fn find_drive(g: &Globals, number: i16) -> Option<usize> {
    (0..g.ndrives as usize).find(|&i| g.drives[i].number as i16 == number)
}

fn prime(pb_addr: u32, dce_addr: u32) -> i16 {
    let g = globals(dce_addr);
    // SAFETY: the Device Manager's parameter block and our DCE for this call.
    let (pb, dce) = unsafe { (mac::io_param(pb_addr), mac::dce(dce_addr)) };
    let Some(i) = find_drive(g, pb.io_vref_num.get()) else {
        return err::NS_DRV_ERR;
    };
    let write = pb.io_trap.get() & 0xFF == 3;
    let immediate = pb.io_trap.get() & 0x0200 != 0;
    let pos = if pb.io_pos_mode.get() & 0x0100 != 0 {
        // With kUseWidePositioning the block is an XIOParam (54 bytes).
        let hi = mac::peek32(pb_addr + 46) as u64;
        let lo = mac::peek32(pb_addr + 50) as u64;
        hi << 32 | lo
    } else {
        dce.d_ctl_position.get() as u64
    };
    let count = pb.io_req_count.get();
    pb.io_act_count.set(0);
    let t = match request::plan(g.drives[i].extent, pos, count) {
        Ok(t) => t,
        Err(e) => return e,
    };
    if t.blocks == 0 {
        return 0;
    }
    let buf = pb.io_buffer.get();
    if g.use43 != 0 && !immediate && g.active_pb == 0 {
        g.active_pb = pb_addr;
        g.active_write = write as u8;
        g.active_lba = t.lba;
        g.active_left = t.blocks;
        g.active_buf = buf;
        g.active_total = count;
        g.retries = 0;
        g.not_ready_waits = 0;
        g.early_done = 0;
        g.in_prime = 1;
        let r = issue_async(g);
        g.in_prime = 0;
        if r != 0 {
            g.active_pb = 0;
            return r;
        }
        if g.early_done != 0 {
            return g.early_result;
        }
        return SCSI_REQUEST_IN_PROGRESS;
    }
    let (mut lba, mut left, mut at) = (t.lba, t.blocks, buf);
    while left > 0 {
        let n = request::next_chunk(left);
        let cdb = if write {
            scsi::write_10(lba, n as u16, false)
        } else {
            scsi::read_10(lba, n as u16)
        };
        if let Err(e) = command(
            g,
            &cdb,
            if write { Dir::Out } else { Dir::In },
            at,
            n * BLOCK,
        ) {
            return e;
        }
        lba += n;
        left -= n;
        at += n * BLOCK;
    }
    finish_transfer(pb_addr, dce_addr, count);
    0
}

fn finish_transfer(pb_addr: u32, dce_addr: u32, count: u32) {
    // SAFETY: the request's parameter block and our DCE.
    let (pb, dce) = unsafe { (mac::io_param(pb_addr), mac::dce(dce_addr)) };
    pb.io_act_count.set(count);
    dce.d_ctl_position
        .set(dce.d_ctl_position.get().wrapping_add(count));
}

/// Start the current chunk of the active request asynchronously. 0 or an error.
fn issue_async(g: &mut Globals) -> i16 {
    if g.starting != 0 {
        fill_pb43(
            g,
            &scsi::start_stop_unit(true, false),
            Dir::None,
            0,
            0,
            true,
        );
    } else {
        let n = request::next_chunk(g.active_left);
        g.active_chunk = n;
        let write = g.active_write != 0;
        let cdb = if write {
            scsi::write_10(g.active_lba, n as u16, false)
        } else {
            scsi::read_10(g.active_lba, n as u16)
        };
        fill_pb43(
            g,
            &cdb,
            if write { Dir::Out } else { Dir::In },
            g.active_buf,
            n * BLOCK,
            true,
        );
    }
    let pb = core::ptr::addr_of!(g.pb) as u32;
    let r = mac::scsi_action(pb);
    if r < 0 { map_transport(r) } else { 0 }
}

/// The async command ended. `Some(result)` finishes the Device Manager request.
fn complete(dce_addr: u32) -> Option<i16> {
    let g = globals(dce_addr);
    if g.active_pb == 0 {
        return None;
    }
    let done = if g.starting != 0 {
        // The START STOP UNIT ended (however): send the transfer again.
        g.starting = 0;
        None
    } else {
        let result = g.pb.scsi_result.get();
        let write = g.active_write != 0;
        match outcome43(g, result, write) {
            Recovery::Done => {
                let n = g.active_chunk;
                g.active_lba += n;
                g.active_left -= n;
                g.active_buf += n * BLOCK;
                g.retries = 0;
                if g.active_left == 0 { Some(0) } else { None }
            }
            Recovery::StartUnit if g.retries < MAX_RETRIES => {
                g.retries += 1;
                g.starting = 1;
                None
            }
            Recovery::RetryLater
                if g.vbl_installed != 0 && g.not_ready_waits < MAX_NOT_READY_WAITS =>
            {
                // Wait at interrupt time without spinning: the VBL task sends the command
                // again in NOT_READY_WAIT_TICKS ticks.
                g.not_ready_waits += 1;
                g.vbl.vbl_count.set(NOT_READY_WAIT_TICKS as i16);
                return None;
            }
            Recovery::Retry | Recovery::RetryLater if g.retries < MAX_RETRIES => {
                g.retries += 1;
                None
            }
            Recovery::Retry | Recovery::RetryLater | Recovery::StartUnit => Some(err::IO_ERR),
            Recovery::Fail(e) => Some(e),
        }
    };
    let result = match done {
        None => match issue_async(g) {
            0 => return None,
            e => e,
        },
        Some(r) => r,
    };
    finish_active(g, dce_addr, result)
}

/// The VBL task's turn: send the waiting command again. `Some(result)` finishes the Device
/// Manager request.
fn vbl_retry(dce_addr: u32) -> Option<i16> {
    let g = globals(dce_addr);
    if g.active_pb == 0 {
        return None;
    }
    match issue_async(g) {
        0 => None,
        e => finish_active(g, dce_addr, e),
    }
}

/// End the active request with `result`.
fn finish_active(g: &mut Globals, dce_addr: u32, result: i16) -> Option<i16> {
    let pb = g.active_pb;
    g.active_pb = 0;
    if result == 0 {
        finish_transfer(pb, dce_addr, g.active_total);
    }
    if g.in_prime != 0 {
        g.early_done = 1;
        g.early_result = result;
        return None;
    }
    Some(result)
}

// ---- SCSI commands --------------------------------------------------------------------------

fn fill_pb43(g: &mut Globals, cdb: &[u8], dir: Dir, data: u32, len: u32, asynchronous: bool) {
    let sense = g.sense.as_mut_ptr() as u32;
    let completion = if asynchronous {
        mac::completion_address()
    } else {
        0
    };
    let p = &mut g.pb;
    *p = ScsiExecIoPb::new_zeroed();
    p.scsi_pb_length
        .set(core::mem::size_of::<ScsiExecIoPb>() as u16);
    p.scsi_function_code = SCSI_EXEC_IO;
    p.scsi_device = [0, g.bus, g.target, g.lun];
    p.scsi_completion.set(completion);
    p.scsi_flags.set(
        match dir {
            Dir::None => DIR_NONE,
            Dir::In => DIR_IN,
            Dir::Out => DIR_OUT,
        } | SIMQ_NO_FREEZE,
    );
    p.scsi_driver_storage.set(g.dce);
    p.scsi_data_ptr.set(data);
    p.scsi_data_length.set(len);
    p.scsi_sense_ptr.set(sense);
    p.scsi_sense_length = 18;
    p.scsi_cdb_length = cdb.len() as u8;
    p.scsi_cdb[..cdb.len()].copy_from_slice(cdb);
    p.scsi_timeout.set(0);
}

fn map_transport(r: i16) -> i16 {
    match r {
        SCSI_SELECT_TIMEOUT => err::OFF_LIN_ERR,
        _ => err::IO_ERR,
    }
}

/// Decide after a 4.3 command ended with `result`.
fn outcome43(g: &Globals, result: i16, write: bool) -> Recovery {
    let good = g.pb.scsi_scsi_status == status::GOOD;
    match result {
        0 => Recovery::Done,
        SCSI_NON_ZERO_STATUS => status_outcome(g, write),
        SCSI_DATA_RUN_ERROR if !good => status_outcome(g, write),
        // Less data than asked with GOOD status: fine where the command allows it (MODE
        // SENSE, INQUIRY), a transport glitch to retry for a transfer.
        SCSI_DATA_RUN_ERROR if g.short_ok != 0 => Recovery::Done,
        SCSI_DATA_RUN_ERROR => Recovery::Retry,
        SCSI_BUS_RESET => Recovery::Retry,
        r => Recovery::Fail(map_transport(r)),
    }
}

/// The status byte and the autosense data of the last 4.3 command → what to do.
fn status_outcome(g: &Globals, write: bool) -> Recovery {
    let sense = if g.pb.scsi_result_flags.get() & SCSI_AUTOSENSE_VALID != 0 {
        Sense::parse(&g.sense)
    } else {
        None
    };
    classify(g.pb.scsi_scsi_status, sense, write)
}

/// One command, synchronously, with recovery (retries, waiting out NOT READY, START UNIT).
fn command(g: &mut Globals, cdb: &[u8], dir: Dir, data: u32, len: u32) -> Result<(), i16> {
    let write = dir == Dir::Out;
    let mut tries = 0u8;
    let mut waits = 0u8;
    loop {
        let recovery = if g.use43 != 0 {
            fill_pb43(g, cdb, dir, data, len, false);
            let pb = core::ptr::addr_of!(g.pb) as u32;
            let r = mac::scsi_action(pb);
            outcome43(g, r, write)
        } else {
            old_command(g, cdb, dir, data, len)
        };
        match recovery {
            Recovery::Done => return Ok(()),
            Recovery::Fail(e) => return Err(e),
            // NOT READY, becoming ready: wait, up to MAX_NOT_READY_WAITS times.
            Recovery::RetryLater if waits < MAX_NOT_READY_WAITS => {
                waits += 1;
                wait_ticks(NOT_READY_WAIT_TICKS);
                continue;
            }
            _ if tries + 1 >= MAX_RETRIES => return Err(err::IO_ERR),
            _ => {}
        }
        tries += 1;
        match recovery {
            Recovery::Retry | Recovery::Done | Recovery::Fail(_) => {}
            Recovery::RetryLater => wait_ticks(NOT_READY_WAIT_TICKS),
            Recovery::StartUnit => {
                let start = scsi::start_stop_unit(true, false);
                let _ = command_once(g, &start);
            }
        }
    }
}

fn command_once(g: &mut Globals, cdb: &[u8]) -> Recovery {
    if g.use43 != 0 {
        fill_pb43(g, cdb, Dir::None, 0, 0, false);
        let pb = core::ptr::addr_of!(g.pb) as u32;
        let r = mac::scsi_action(pb);
        outcome43(g, r, false)
    } else {
        old_command(g, cdb, Dir::None, 0, 0)
    }
}

/// Let `n` ticks pass (`_Delay`).
fn wait_ticks(n: u32) {
    mac::delay(n);
}

/// The original SCSI Manager transaction of `mac-driver-facts.md` §7.3; a CHECK CONDITION
/// is followed by its own REQUEST SENSE transaction.
fn old_command(g: &mut Globals, cdb: &[u8], dir: Dir, data: u32, len: u32) -> Recovery {
    match old_transaction(g, cdb, dir, data, len) {
        Err(r) => r,
        Ok(st) if st == status::CHECK_CONDITION as u16 => {
            g.sense.fill(0);
            let sense = g.sense.as_mut_ptr() as u32;
            let rs = scsi::request_sense(18);
            let sense_ok = matches!(old_transaction(g, &rs, Dir::In, sense, 18), Ok(0));
            classify(
                st as u8,
                if sense_ok {
                    Sense::parse(&g.sense)
                } else {
                    None
                },
                dir == Dir::Out,
            )
        }
        Ok(st) => classify(st as u8, None, dir == Dir::Out),
    }
}

/// One transaction; `Ok(status)` or a recovery decision for transport failures.
fn old_transaction(
    g: &mut Globals,
    cdb: &[u8],
    dir: Dir,
    data: u32,
    len: u32,
) -> Result<u16, Recovery> {
    let mut busy = 0;
    loop {
        match mac::scsi_old(SCSI_GET, 0, 0, 0) {
            0 => break,
            SC_MGR_BUSY if busy < 15 => busy += 1,
            _ => return Err(Recovery::Retry),
        }
    }
    if mac::scsi_old(SCSI_SELECT, g.target as u32, 0, 0) != 0 {
        return Err(Recovery::Fail(err::OFF_LIN_ERR));
    }
    g.cdb[..cdb.len()].copy_from_slice(cdb);
    let cdb_addr = g.cdb.as_mut_ptr() as u32;
    let cmd_failed = mac::scsi_old(SCSI_CMD, cdb_addr, cdb.len() as u32, 0) != 0;
    let blind = g.polled == 0 && len % BLOCK == 0;
    // The data phase ended before the TIB did, or the transfer failed.
    let mut short = false;
    if !cmd_failed && dir != Dir::None && len > 0 {
        build_tib(g, data, len);
        let tib = g.tib.as_mut_ptr() as u32;
        let sel = match (dir, blind) {
            (Dir::In, true) => SCSI_RBLIND,
            (Dir::In, false) => SCSI_READ,
            (_, true) => SCSI_WBLIND,
            (_, false) => SCSI_WRITE,
        };
        match mac::scsi_old(sel, tib, 0, 0) {
            0 => {}
            // MODE SENSE and INQUIRY may return less than asked: SCSIComplete collects the
            // status.
            SC_PHASE_ERR if g.short_ok != 0 => {}
            _ => short = true,
        }
    }
    let stat = core::ptr::addr_of_mut!(g.stat) as u32;
    let msg = core::ptr::addr_of_mut!(g.msg) as u32;
    let r = mac::scsi_old(SCSI_COMPLETE, stat, msg, 300);
    if r != 0 && r != 10 || cmd_failed {
        if short && blind {
            g.polled = 1;
        }
        return Err(Recovery::Retry);
    }
    let st = g.stat & 0xFF;
    if short && st == status::GOOD as u16 {
        // The target said GOOD but the data did not all move: a transfer problem. Blind
        // transfers are the usual suspect: use polled ones from now on (facts doc §7.2).
        if blind {
            g.polled = 1;
        }
        return Err(Recovery::Retry);
    }
    // Otherwise the status explains the short transfer (CHECK CONDITION: a medium error
    // after the good blocks, ...): the sense data decides, the transport is not to blame.
    Ok(st)
}

/// TIB: whole blocks as `scInc 512` looped, else one `scInc len`; then `scStop`. Only the
/// words the SCSI Manager reads are written (the parameters of `scStop` are ignored), byte by
/// byte at fixed places: no slice copies on the per-request path.
fn build_tib(g: &mut Globals, data: u32, len: u32) {
    let t = &mut g.tib;
    if len % BLOCK == 0 && len > BLOCK {
        put16(t, 0, SC_INC);
        put32(t, 2, data);
        put32(t, 6, BLOCK);
        put16(t, 10, SC_LOOP);
        put32(t, 12, -10i32 as u32);
        put32(t, 16, len / BLOCK);
        put16(t, 20, SC_STOP);
    } else {
        put16(t, 0, SC_INC);
        put32(t, 2, data);
        put32(t, 6, len);
        put16(t, 10, SC_STOP);
    }
}

#[inline(always)]
fn put16(t: &mut [u8; 40], at: usize, v: u16) {
    t[at] = (v >> 8) as u8;
    t[at + 1] = v as u8;
}

#[inline(always)]
fn put32(t: &mut [u8; 40], at: usize, v: u32) {
    t[at] = (v >> 24) as u8;
    t[at + 1] = (v >> 16) as u8;
    t[at + 2] = (v >> 8) as u8;
    t[at + 3] = v as u8;
}

// ---- Control and Status ---------------------------------------------------------------------

fn flush_cache(g: &mut Globals) -> i16 {
    if g.write_cache_on == 0 {
        return 0;
    }
    match command(g, &scsi::synchronize_cache_10(), Dir::None, 0, 0) {
        Ok(()) => 0,
        Err(e) => e,
    }
}

fn control(pb_addr: u32, dce_addr: u32) -> i16 {
    let g = globals(dce_addr);
    // SAFETY: the Device Manager's parameter block for this call.
    let pb = unsafe { mac::view::<CntrlParam>(pb_addr) };
    match pb.cs_code.get() {
        -1 => flush_cache(g), // goodbye: shutdown or restart
        1 => {
            // KillIO: a command in flight cannot be abandoned safely.
            if g.active_pb != 0 {
                err::CONTROL_ERR
            } else {
                0
            }
        }
        5 | 6 => 0, // verify, format: nothing to do for a hard disk
        7 => {
            let r = flush_cache(g);
            if r == 0 && g.removable != 0 {
                let _ = command(g, &scsi::prevent_allow(false), Dir::None, 0, 0);
                if let Err(e) = command(g, &scsi::start_stop_unit(false, true), Dir::None, 0, 0) {
                    return e;
                }
            }
            r
        }
        21 | 22 => {
            pb.cs_param[0..4].copy_from_slice(&(crate::icon::ICON.as_ptr() as u32).to_be_bytes());
            0
        }
        23 => {
            let info: u32 = if g.removable != 0 { 0x0201 } else { 0x0601 };
            pb.cs_param[0..4].copy_from_slice(&info.to_be_bytes());
            0
        }
        43 => {
            let sel = u32::from_be_bytes([
                pb.cs_param[0],
                pb.cs_param[1],
                pb.cs_param[2],
                pb.cs_param[3],
            ]);
            match &sel.to_be_bytes() {
                b"flus" => flush_cache(g),
                b"vmop" => 0,
                _ => err::CONTROL_ERR,
            }
        }
        65 => {
            post_pending_events(g);
            0
        }
        _ => err::CONTROL_ERR,
    }
}

fn status_call(pb_addr: u32, dce_addr: u32) -> i16 {
    let g = globals(dce_addr);
    // SAFETY: the Device Manager's parameter block for this call.
    let pb = unsafe { mac::view::<CntrlParam>(pb_addr) };
    match pb.cs_code.get() {
        8 => {
            let Some(i) = find_drive(g, pb.io_vref_num.get()) else {
                return err::NS_DRV_ERR;
            };
            pb.cs_param[0..2].fill(0); // track
            pb.cs_param[2..22].copy_from_slice(g.drives[i].qel.as_bytes());
            0
        }
        43 => {
            let sel = u32::from_be_bytes([
                pb.cs_param[0],
                pb.cs_param[1],
                pb.cs_param[2],
                pb.cs_param[3],
            ]);
            let info = GestaltInfo {
                version: gestalt::VERSION,
                removable: g.removable != 0,
                target: g.target,
                lun: g.lun,
                write_cache: g.write_cache_on != 0,
                driver: mac::header_address(),
            };
            match gestalt::respond(sel, &info) {
                Some(r) => {
                    pb.cs_param[4..8].copy_from_slice(&r[0].to_be_bytes());
                    pb.cs_param[8..12].copy_from_slice(&r[1].to_be_bytes());
                    0
                }
                None => err::STATUS_ERR,
            }
        }
        _ => err::STATUS_ERR,
    }
}
