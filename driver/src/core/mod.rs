//! The driver on the Mac: install, the Device Manager entries and the SCSI transports. Pure
//! decisions live in `request`, `sense`, `partition`, `cache` and `gestalt`; this module
//! moves bytes between them, the OS structures and the SCSI Manager, one concern per file:
//! [`install`], [`prime`] (and the asynchronous path), [`command`] (one command with
//! recovery), [`scsi43`] and [`scsi_old`] (the two transports), [`switch`] (to SCSI Manager
//! 4.3 when it arrives after install), [`control`] (Control and Status).
//!
//! State lives in one [`Globals`] block from `_NewPtr SYS CLEAR` whose address is kept in
//! `dCtlStorage`: the driver has no static data, so the ROM can load it anywhere and more
//! than one copy (one per SCSI ID) can run side by side. Buffers the code indexes live there
//! too, never on the stack (see `docs/codegen-conformance.md`).

mod command;
mod control;
mod install;
mod prime;
mod scsi43;
mod scsi_old;
mod switch;

use command::command;
use control::{control, status_call};
use install::install;
use prime::{complete, find_drive, prime, vbl_retry};

use ferrite_shared::driver_blob::Settings;
use ferrite_shared::mac::{
    CntrlParam, DrvQElWithFlags, ScsiDriverPb, ScsiExecIoPb, VblTask, drvr_flags, err,
};
use ferrite_shared::scsi::{self, status};
use ferrite_shared::scsi_manager::original::{
    SC_INC, SC_LOOP, SC_MGR_BUSY, SC_PHASE_ERR, SC_STOP, SCSI_RBLIND, SCSI_READ, SCSI_WBLIND,
    SCSI_WRITE,
};
use ferrite_shared::scsi_manager::v43::{
    DIR_IN, DIR_NONE, DIR_OUT, SCSI_AUTOSENSE_VALID, SCSI_BUS_RESET, SCSI_COMMAND_TIMEOUT,
    SCSI_DATA_RUN_ERROR, SCSI_EXEC_IO, SCSI_NON_ZERO_STATUS, SCSI_REQUEST_IN_PROGRESS,
    SCSI_SELECT_TIMEOUT, SIMQ_NO_FREEZE,
};
use zerocopy::{FromZeros, IntoBytes};

use crate::gestalt::{self, GestaltInfo};
use crate::mac;
use crate::partition::{self, MAX_DRIVES, MapBlock};
use crate::request::{self, BLOCK, Extent};
use crate::sense::{Recovery, SENSE_LEN, TRANSPORT_RETRIES, classify, parse_sense};

/// `diskEvt`.
const DISK_EVT: u16 = 7;
/// First drive number the driver uses (mac-facts §5.3: first free ≥ 8).
const FIRST_DRIVE: u16 = 8;
/// Retries of one command (UNIT ATTENTION, BUSY, NOT READY, blind-transfer fallback).
const MAX_RETRIES: u8 = 8;
/// NOT READY (becoming ready) waits of an asynchronous request before it fails: with
/// [`NOT_READY_WAIT_TICKS`] between them, about 20 s — a drive spinning up after power-on.
const MAX_NOT_READY_WAITS: u8 = 40;
/// [`Drive::partition`] of a drive whose medium left while a volume was on line on it: it
/// keeps its number (the File Manager's VCB names it) and answers `offLinErr`, and no new
/// medium is ever served under it ([`control::reread`]).
const RETIRED: u8 = 0xFF;
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
    /// The partition's entry in the map (1 = the first; DriverGestalt `'boot'`); 0: a free
    /// drive (no medium; the next medium's partition may take it), [`RETIRED`].
    pub partition: u8,
}

/// Direction of a transfer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    None,
    In,
    Out,
}

/// Everything the driver keeps. The fields each request uses come first, the asynchronous
/// parameter block's among them: the M68k backend reaches fields past 127 bytes with an
/// extra instruction (an index register) per access.
#[repr(C)]
pub struct Globals {
    /// Use SCSI Manager 4.3 (else the original SCSI Manager).
    pub use43: u8,
    /// Original SCSI Manager: use polled transfers (the settings' transfer mode, or after a
    /// blind transfer failed).
    pub polled: u8,
    pub write_cache_on: u8,
    pub in_prime: u8,
    pub ndrives: u16,
    /// Most blocks per command on the original SCSI Manager (the settings block's cap; its
    /// 0, no cap, kept as READ(10)'s 65,535).
    pub max_blocks_old: u16,
    // The asynchronous request in flight (SCSI Manager 4.3), 0 if none.
    pub active_pb: u32,
    pub active_write: u8,
    pub retries: u8,
    /// Transport failures of the active request's current command ([`Recovery::Transport`]).
    pub transport_retries: u8,
    pub early_done: u8,
    /// The async command in flight is the START STOP UNIT a NOT READY asked for.
    pub starting: u8,
    /// NOT READY waits of the active request so far (in what was padding: Prime sets it).
    pub not_ready_waits: u8,
    pub early_result: i16,
    /// The medium was ejected, or the drive said it may have changed (UNIT ATTENTION 28/00
    /// after install): no I/O until accRun has read the new one ([`control::reread`]). In
    /// what was padding: Prime reads it, with `in_command`, as one word.
    pub medium_changed: u8,
    /// Synchronous commands running now (the VBL task's retries wait for 0, Prime refuses
    /// to share the transport with them: [`prime::prime`]).
    pub in_command: u8,
    pub active_lba: u32,
    pub active_left: u32,
    pub active_buf: u32,
    pub active_chunk: u32,
    pub active_total: u32,
    /// The address of [`Globals::old`] (set at install): the original SCSI Manager's hot path
    /// reaches the block and the CDB after it from this base, by short displacements.
    pub io: u32,
    /// The asynchronous parameter block holds a READ(10)/WRITE(10) of ours, made by
    /// [`scsi43::fill_pb43`]: the next transfer only changes what differs
    /// ([`scsi43::rearm_transfer43`]).
    pub async_armed: u8,
    /// SCSI Manager 4.3 arrived after install and the cross-reference is registered: the next
    /// queued request that starts with nothing active switches to it ([`switch`]).
    pub switch43: u8,
    /// The asynchronous request's parameter block and sense buffer (SCSI Manager 4.3): the
    /// SIM owns them from `SCSIAction` to the completion.
    pub pb: ScsiExecIoPb,
    pub sense: [u8; 32],
    /// The original SCSI Manager's transaction: status, message and TIB ([`scsi_old`]).
    pub old: scsi_old::OldIo,
    /// The CDB of the command in progress ([`command::staged_step`]); right after `old`
    /// ([`scsi_old::CDB_FROM_IO`]).
    pub cdb: [u8; 16],
    /// REQUEST SENSE's CDB on the original SCSI Manager (the command's stays in `cdb`).
    pub rs_cdb: [u8; 6],
    pub drives: [Drive; MAX_DRIVES],
    /// Every synchronous command's (install, immediate Prime, Control).
    pub spb: ScsiExecIoPb,
    pub ssense: [u8; 32],
    pub dce: u32,
    pub ref_num: i16,
    pub target: u8,
    pub lun: u8,
    pub bus: u8,
    pub removable: u8,
    /// The synchronous command in progress may move less data than asked (MODE SENSE,
    /// INQUIRY): never a transfer of whole blocks (`scsi_old::transport`), never the
    /// asynchronous slot's (`scsi43::outcome43_decide`).
    pub short_ok: u8,
    /// The MODE SENSE header said WP (write protected).
    pub write_protected: u8,
    pub disk_blocks: u32,
    /// The VBL task is installed (it waits out NOT READY on the asynchronous path).
    pub vbl_installed: u8,
    /// Ticks of write idleness before the idle flush (0 = never; settings block).
    pub idle_ticks: u16,
    /// `Ticks` at the last write into the drive's cache.
    pub last_write: u32,
    /// Writes went into the drive's cache since the last flush.
    pub dirty: u8,
    /// Waiting with `_Delay` is allowed (install, at boot, interrupts enabled).
    pub may_wait: u8,
    pub list: [u8; 32],
    pub page: [u8; 64],
    pub page2: [u8; 64],
    pub buf: [u8; 512],
    /// The VBL task (inactive while `vblCount` is 0), followed by our DCE for its routine.
    pub vbl: VblTask,
    pub vbl_dce: u32,
    /// The DeviceIdent SCSI Manager 4.3 gave our old-API SCSI ID, taken at the switch.
    pub ident43: [u8; 4],
    /// A medium is being read (install, or accRun after a change): its UNIT ATTENTION 28/00
    /// is the one that announced it, not a new change ([`note_sense`]).
    pub reading: u8,
    /// The settings ask for the drive's write cache (kept for a new medium).
    pub want_cache: u8,
    /// Writes the drive acknowledged and then lost at write-back ([`note_sense`]).
    pub lost: LostWrites,
    /// Lost writes noted so far, wrapping (the record's count saturates at 255): a flush
    /// vouches for the cache only when no new one came during it (`control::flush_cache`).
    pub lost_seq: u8,
}

/// The sticky record of writes the drive took into its cache, ended GOOD, and then failed to
/// write back: deferred errors (sense 71h) and failed cache flushes. The call that hears of
/// one fails with `ioErr`; the record stays until restart. Status [`LOST_WRITES_STATUS`]
/// returns it in `csParam` as it is kept, big-endian: how many (a word, saturating at 255), the last
/// one's sense key, ASC and ASCQ and a zero byte, and its LBA (long; $FFFFFFFF when the
/// drive did not say). Ferrite Setup and any program can ask.
pub type LostWrites = [u8; 10];

/// Status `csCode` answering [`LostWrites`] in `csParam`; Ferrite's own.
pub const LOST_WRITES_STATUS: i16 = 0x4645; // 'FE'

/// Control `csCode` that reads the partition map again and adds a drive for each HFS
/// partition not served yet ([`control`]'s `rescan`); Ferrite's own.
pub const RESCAN_CONTROL: i16 = 0x464D; // 'FM'

/// Ask the Device Manager for accRun calls.
pub(super) fn need_time(g: &mut Globals) {
    // SAFETY: our DCE.
    let dce = unsafe { mac::dce(g.dce) };
    dce.d_ctl_flags
        .set(dce.d_ctl_flags.get() | drvr_flags::D_NEED_TIME);
}

/// Keep a lost write from the fixed-format sense data `raw` (at least 14 bytes, parsed
/// already) of a command (`opcode`): a deferred error (response code 71h), MEDIUM ERROR
/// (3) or HARDWARE ERROR (4) to SYNCHRONIZE CACHE, or UNIT ATTENTION 29/xx with writes not
/// yet flushed. Bytes only: the record is kept as the drive said it.
#[inline(never)]
pub(super) fn note_sense(g: &mut Globals, opcode: u8, raw: &[u8]) {
    let key = raw[2] & 0x0F;
    let deferred = raw[0] & 0x7F == 0x71;
    // UNIT ATTENTION 28/00 outside the reading of a medium — on every path: Prime, accRun,
    // Control (the rescan too): another medium may be in the drive.
    if key == 6 && raw[12] == 0x28 && g.reading == 0 {
        g.medium_changed = 1;
        need_time(g);
    }
    // UNIT ATTENTION 29/xx (power on or reset) while writes sit unflushed in the drive's
    // cache: a drive that lost power lost them. SCSI-2's 29/00 does not tell a power loss
    // from a bus reset (which keeps the cache), so this may be a false alarm — on the safe
    // side: the flush that hears of it fails (`flush_cache`) instead of vouching for data
    // that may be gone.
    let reset = key == 6 && raw[12] == 0x29 && g.dirty != 0;
    if deferred || reset || opcode == scsi::op::SYNCHRONIZE_CACHE_10 && (3..=4).contains(&key) {
        g.lost_seq = g.lost_seq.wrapping_add(1);
        let l = &mut g.lost;
        // The count's low byte, saturating at 255 (the high byte stays 0).
        l[1] = l[1].saturating_add(1);
        l[2] = key;
        l[3] = raw[12];
        l[4] = raw[13];
        for i in 0..4 {
            // The information field when VALID, else $FFFFFFFF.
            l[6 + i] = if raw[0] & 0x80 != 0 { raw[3 + i] } else { 0xFF };
        }
    }
}

// ---- entry points (called from entry.S) ---------------------------------------------------

fn globals<'a>(dce: u32) -> &'a mut Globals {
    // SAFETY: `dCtlStorage` holds the block `install` allocated for this DCE; the Device
    // Manager serialises queued calls, and the completion routine only runs while a
    // request is active, so one `&mut` at a time is a sound model of the driver's state.
    unsafe { mac::view::<Globals>(mac::peek32(dce + mac::at::D_CTL_STORAGE)) }
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
    // The XPT passes our own parameter block back; `scsiDriverStorage` is our DCE.
    let dce = mac::peek32(pb + mac::at::SCSI_DRIVER_STORAGE);
    match complete(dce) {
        Some(r) => {
            // SAFETY: the glue passes a pointer to its stack slot.
            unsafe { *result = r as i32 };
            dce
        }
        None => 0,
    }
}
// Byte-aligned structures the driver moves often sit at even offsets: the SCSI Manager's
// structures and the lost-writes record are byte-aligned types, and LLVM merges their bytes
// into word and long moves only where it can see the address is even (odd offsets once cost
// the driver over 300 bytes).
const _: () = {
    use core::mem::offset_of;
    assert!(offset_of!(Globals, pb) % 2 == 0);
    assert!(offset_of!(Globals, spb) % 2 == 0);
    assert!(offset_of!(Globals, lost) % 2 == 0);
    assert!(offset_of!(Globals, sense) % 2 == 0);
    assert!(offset_of!(Globals, ssense) % 2 == 0);
    assert!(offset_of!(Globals, old) % 2 == 0);
    assert!(offset_of!(Globals, cdb) == offset_of!(Globals, old) + scsi_old::CDB_FROM_IO as usize);
    assert!(offset_of!(Globals, cdb) % 2 == 0);
    assert!(offset_of!(Globals, buf) % 2 == 0);
    assert!(offset_of!(Globals, medium_changed) % 2 == 0);
    assert!(offset_of!(Globals, in_command) == offset_of!(Globals, medium_changed) + 1);
};
