//! The original SCSI Manager transport: one transaction (Get, Select, Cmd, the data through
//! a TIB, Complete: one call of the glue, [`mac::old_io`]) and REQUEST SENSE after CHECK
//! CONDITION; blind or polled transfers and the cap on blocks per command, from the settings
//! block.
//!
//! The glue makes the calls; every decision is here. A transaction whose calls all answered
//! `noErr` and whose status is GOOD — nearly all of them — is told by two tests; the rest
//! goes to [`old_outcome`].

use super::*;
use core::mem::offset_of;
use ferrite_shared::driver_blob::Settings;
use ferrite_shared::scsi::MAX_BLOCKS_10;

/// What the glue's transaction works in (`glue.S`, `ferrite_old_io`, which has these offsets
/// as `.LIO_STAT` …); in the globals, at an even address kept in `g.io`.
#[repr(C)]
pub struct OldIo {
    /// `SCSIComplete`'s status and message words.
    pub stat: u16,
    pub msg: u16,
    /// `SCSISelect`'s target: our SCSI ID.
    pub id: u16,
    /// The data call's result (0 when the command had none), or `SCSICmd`'s when it failed.
    pub data: u16,
    /// The TIB: `scInc`, `scLoop`, `scStop` at most (22 bytes).
    pub tib: [u8; 24],
}

const _: () = {
    assert!(offset_of!(OldIo, stat) == 0);
    assert!(offset_of!(OldIo, msg) == 2);
    assert!(offset_of!(OldIo, id) == 4);
    assert!(offset_of!(OldIo, data) == 6);
    assert!(offset_of!(OldIo, tib) == 8);
};

/// Bytes from [`Globals::old`] to [`Globals::cdb`] (asserted with the globals).
pub(super) const CDB_FROM_IO: u32 = core::mem::size_of::<OldIo>() as u32;

/// The call that failed first ([`mac::old_io`]'s high word; 0: only `SCSIComplete`, if any;
/// `SCSICmd`'s and the data call's results are in [`OldIo::data`]).
const FAILED_GET: u32 = 1;
const FAILED_SELECT: u32 = 2;
const FAILED_CMD: u32 = 3;
const FAILED_DATA: u32 = 4;
/// `scComplPhaseErr`: `SCSIComplete` skipped bytes of the data phase to reach the status.
const SC_COMPL_PHASE_ERR: i16 = 10;
/// `SCSIGet` answered `scMgrBusyErr`.
const GET_BUSY: u32 = FAILED_GET << 16 | SC_MGR_BUSY as u16 as u32;

/// Take the transfer settings at install: polled or blind from the transfer mode (`auto`:
/// polled on a 68000 — `CPUFlag` = 0 —, blind elsewhere) and the cap on blocks per command.
///
/// `CPUFlag` ($12F) rather than `Gestalt('proc')`: the ROM sets it before any driver loads,
/// it is there on ROMs without `_Gestalt` (the Mac Plus), and reading it is one byte load
/// with no trap at boot time (see `docs/driver.md`, "Transfer mode").
pub(super) fn configure(g: &mut Globals, settings: &Settings) {
    let cpu_68000 = mac::peek8(mac::lowmem::CPU_FLAG) == 0;
    g.polled = !settings.transfer.starts_blind(cpu_68000) as u8;
    // "No cap" as READ(10)'s own limit, so that Prime's chunk is one `min`. A branch with a
    // volatile store, which the compiler cannot turn into a select: its select of "0 → all
    // ones" is `cmp` + `subx`, which reads the X flag `cmp` never sets (a miscompile,
    // docs/codegen-conformance.md).
    if settings.max_blocks_old == 0 {
        mac::poke16(
            core::ptr::addr_of!(g.max_blocks_old) as u32,
            MAX_BLOCKS_10 as u16,
        );
    } else {
        g.max_blocks_old = settings.max_blocks_old;
    }
}

/// Most blocks per command for the transport in use: the settings' cap on the original SCSI
/// Manager, none (0) under SCSI Manager 4.3.
pub(super) fn chunk_cap(g: &Globals) -> u32 {
    if g.use43 != 0 {
        0
    } else {
        g.max_blocks_old as u32
    }
}

/// The original SCSI Manager transaction of the command in `g.cdb` (`cdb_len` bytes; Inside
/// Macintosh: Devices, "SCSI Manager"); a CHECK CONDITION is followed by its own REQUEST
/// SENSE transaction.
#[inline(never)]
pub(super) fn old_command(g: &mut Globals, cdb_len: u8, dir: Dir, data: u32, len: u32) -> Recovery {
    let sel = if dir == Dir::None || len == 0 {
        0
    } else {
        let blind = g.polled == 0 && len % BLOCK == 0;
        match (dir, blind) {
            (Dir::In, true) => SCSI_RBLIND,
            (Dir::In, false) => SCSI_READ,
            (_, true) => SCSI_WBLIND,
            (_, false) => SCSI_WRITE,
        }
    };
    let io = g.io;
    let r = transaction(
        io,
        io + CDB_FROM_IO,
        (cdb_len as u32) << 16 | sel as u32,
        data,
        len,
    );
    if r == 0 && mac::peek16(io) & 0xFF == status::GOOD as u16 {
        return Recovery::Done;
    }
    old_outcome(g, r, dir, len)
}

/// Prime's READ(10)/WRITE(10) (the active request's direction) of `n` blocks at `lba`, to
/// or from `buf`: the CDB into `g.cdb`, then [`old_command`] with what a transfer knows
/// beforehand (whole blocks, the direction) folded in. Every byte the SCSI Manager reads is
/// written through `g.io`, by aligned moves.
#[inline(never)]
pub(super) fn old_transfer(g: &mut Globals, lba: u32, n: u32, buf: u32) -> Recovery {
    let write = g.active_write != 0;
    let io = g.io;
    let cdb = io + CDB_FROM_IO;
    let (op, sel) = match (write, g.polled == 0) {
        (false, true) => (scsi::op::READ_10, SCSI_RBLIND),
        (false, false) => (scsi::op::READ_10, SCSI_READ),
        (true, true) => (scsi::op::WRITE_10, SCSI_WBLIND),
        (true, false) => (scsi::op::WRITE_10, SCSI_WRITE),
    };
    // Opcode, 0, LBA (4), 0, blocks (2), control 0.
    mac::poke16(cdb, (op as u16) << 8);
    mac::poke32(cdb + 2, lba);
    mac::poke32(cdb + 6, n << 8);
    // The TIB, as `build_tib` makes it for whole blocks, and the transaction.
    let t = io + offset_of!(OldIo, tib) as u32;
    mac::poke16(t, SC_INC);
    mac::poke32(t + 2, buf);
    mac::poke32(t + 6, BLOCK);
    if n > 1 {
        mac::poke16(t + 10, SC_LOOP);
        mac::poke32(t + 12, -10i32 as u32);
        mac::poke32(t + 16, n);
        mac::poke16(t + 20, SC_STOP);
    } else {
        mac::poke16(t + 10, SC_STOP);
    }
    let r = transact(io, cdb, 10 << 16 | sel as u32);
    let len = n * BLOCK;
    if r == 0 && mac::peek16(io) & 0xFF == status::GOOD as u16 {
        return Recovery::Done;
    }
    old_outcome(g, r, if write { Dir::Out } else { Dir::In }, len)
}

/// One transaction ([`mac::old_io`]'s answer) in the block at `io` of the CDB at `cdb`,
/// `len_sel` its length (high word) and the data call (low word; 0: none), which moves `len`
/// bytes at `data`. `SCSIGet` is asked again while someone else holds the bus, 15 more
/// times.
#[inline(never)]
fn transaction(io: u32, cdb: u32, len_sel: u32, data: u32, len: u32) -> u32 {
    if len_sel as u16 != 0 {
        build_tib(io, data, len);
    }
    transact(io, cdb, len_sel)
}

/// [`transaction`] with the TIB built.
#[inline(always)]
fn transact(io: u32, cdb: u32, len_sel: u32) -> u32 {
    let mut busy = 0u8;
    loop {
        let r = mac::old_io(io, cdb, len_sel);
        if r != GET_BUSY || busy == 15 {
            return r;
        }
        busy += 1;
    }
}

/// What a transaction comes to when a call did not answer `noErr` or the status is not GOOD
/// (`r`: [`mac::old_io`]'s answer; `dir` and `len`: the data asked for). A transfer that
/// came short is never complete, whatever the status and sense say (RECOVERED ERROR, NO
/// SENSE, CONDITION MET): it is sent again.
#[inline(never)]
fn old_outcome(g: &mut Globals, r: u32, dir: Dir, len: u32) -> Recovery {
    let short = came_short(g, r, len);
    let outcome = match transport(g, r, len) {
        Ok(0) => Recovery::Done,
        Err(r) => r,
        Ok(st) if st == status::CHECK_CONDITION as u16 => {
            g.sense.fill(0);
            let sense = g.sense.as_mut_ptr() as u32;
            // In its own CDB buffer: the command's stays for a retry.
            let rs = scsi::request_sense(SENSE_LEN as u8);
            g.rs_cdb.copy_from_slice(&rs);
            let rs_at = g.rs_cdb.as_ptr() as u32;
            // 18 bytes, not whole blocks: polled.
            let len_sel = (rs.len() as u32) << 16 | SCSI_READ as u32;
            let _ = transaction(g.io, rs_at, len_sel, sense, SENSE_LEN as u32);
            // Targets return as few as 4 bytes: a data phase that ends early is the sense
            // data's own length, not a failure. The buffer was cleared, so whatever arrived is
            // read — nothing, if the REQUEST SENSE failed — as far as its additional-length
            // byte goes.
            let removable = g.removable != 0;
            let parsed = parse_sense(&mut g.sense, SENSE_LEN as u32, removable);
            if parsed.is_some() {
                let raw = g.sense;
                note_sense(g, g.cdb[0], &raw);
            }
            classify(st as u8, parsed, dir == Dir::Out)
        }
        Ok(st) => classify(st as u8, None, dir == Dir::Out),
    };
    if short && outcome == Recovery::Done {
        Recovery::Retry
    } else {
        outcome
    }
}

/// Whether the data phase of the transaction that answered `r` ended before its TIB did,
/// and the command is not one that may move less (INQUIRY, MODE SENSE: `g.short_ok`; never a
/// transfer of whole blocks).
#[inline(never)]
fn came_short(g: &Globals, r: u32, len: u32) -> bool {
    r >> 16 == FAILED_DATA
        && !(g.old.data as i16 == SC_PHASE_ERR && g.short_ok != 0 && len % BLOCK != 0)
}

/// `Ok(status)` of a transaction with [`mac::old_io`]'s answer `r` (`len` bytes of data
/// asked for), or the recovery decision for a transport failure.
fn transport(g: &mut Globals, r: u32, len: u32) -> Result<u16, Recovery> {
    let result = r as u16 as i16;
    // The data phase ended before the TIB did, or the transfer failed.
    let short = match r >> 16 {
        // Someone else holds the bus (at interrupt time it may be the code we interrupted):
        // not a failure, try again later.
        FAILED_GET if result == SC_MGR_BUSY => return Err(Recovery::RetryLater),
        FAILED_GET => return Err(Recovery::Retry),
        // No answer to the selection: once more, as under SCSI Manager 4.3.
        FAILED_SELECT => return Err(Recovery::Transport(err::OFF_LIN_ERR)),
        // The command phase failed (`SCSIComplete` ended the transaction).
        FAILED_CMD => return Err(Recovery::Transport(err::IO_ERR)),
        // MODE SENSE and INQUIRY may return less than asked: SCSIComplete collects the
        // status. Never a transfer of whole blocks (a Prime that interrupted one of them).
        _ => came_short(g, r, len),
    };
    let blind = g.polled == 0 && len % BLOCK == 0;
    if result != 0 && result != SC_COMPL_PHASE_ERR {
        if short && blind {
            // The blind transfer is the usual suspect: polled from now on, and again.
            g.polled = 1;
            return Err(Recovery::Retry);
        }
        // The target stopped answering (`SCSIComplete` timed out and the bus was reset):
        // once more, as under SCSI Manager 4.3.
        return Err(Recovery::Transport(err::IO_ERR));
    }
    let st = g.old.stat & 0xFF;
    if short && st == status::GOOD as u16 {
        // The target said GOOD but the data did not all move: a transfer problem. Blind
        // transfers are the usual suspect: use polled ones from now on (mac-facts §7.2).
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
/// words the SCSI Manager reads are written (the parameters of `scStop` are ignored), by
/// aligned moves at fixed places in the block at `io` (`g.old`, at an even offset). Built
/// afresh for every command: the SCSI Manager changes it as it runs (mac-facts §7.2).
#[inline(always)]
fn build_tib(io: u32, data: u32, len: u32) {
    let t = io + offset_of!(OldIo, tib) as u32;
    mac::poke16(t, SC_INC);
    mac::poke32(t + 2, data);
    if len % BLOCK == 0 && len > BLOCK {
        mac::poke32(t + 6, BLOCK);
        mac::poke16(t + 10, SC_LOOP);
        mac::poke32(t + 12, -10i32 as u32);
        mac::poke32(t + 16, len / BLOCK);
        mac::poke16(t + 20, SC_STOP);
    } else {
        mac::poke32(t + 6, len);
        mac::poke16(t + 10, SC_STOP);
    }
}
