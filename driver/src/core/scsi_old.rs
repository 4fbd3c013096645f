//! The original SCSI Manager transport: one transaction (Get, Select, Cmd, the data through
//! a TIB, Complete) and REQUEST SENSE after CHECK CONDITION; blind or polled transfers and
//! the cap on blocks per command, from the settings block.

use super::*;
use ferrite_shared::driver_blob::Settings;

/// Take the transfer settings at install: polled or blind from the transfer mode (`auto`:
/// polled on a 68000 — `CPUFlag` = 0 —, blind elsewhere) and the cap on blocks per command.
///
/// `CPUFlag` ($12F) rather than `Gestalt('proc')`: the ROM sets it before any driver loads,
/// it is there on ROMs without `_Gestalt` (the Mac Plus), and reading it is one byte load
/// with no trap at boot time (see `docs/driver.md`, "Transfer mode").
pub(super) fn configure(g: &mut Globals, settings: &Settings) {
    let cpu_68000 = mac::peek8(mac::lowmem::CPU_FLAG) == 0;
    g.polled = !settings.transfer.starts_blind(cpu_68000) as u8;
    g.max_blocks_old = settings.max_blocks_old;
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

/// The original SCSI Manager transaction (Inside Macintosh: Devices, "SCSI Manager"); a
/// CHECK CONDITION is followed by its own REQUEST SENSE transaction.
pub(super) fn old_command(g: &mut Globals, cdb_len: u8, dir: Dir, data: u32, len: u32) -> Recovery {
    let cdb = g.cdb.as_ptr() as u32;
    match old_transaction(g, cdb, cdb_len, dir, data, len) {
        Ok(0) => Recovery::Done,
        Err(r) => r,
        Ok(st) if st == status::CHECK_CONDITION as u16 => {
            g.sense.fill(0);
            let sense = g.sense.as_mut_ptr() as u32;
            // In its own CDB buffer: the command's stays for a retry.
            let rs = scsi::request_sense(18);
            g.rs_cdb.copy_from_slice(&rs);
            let rs_at = g.rs_cdb.as_ptr() as u32;
            let sense_ok = matches!(
                old_transaction(g, rs_at, rs.len() as u8, Dir::In, sense, 18),
                Ok(0)
            );
            let parsed = if sense_ok {
                Sense::parse(&g.sense)
            } else {
                None
            };
            if parsed.is_some() {
                let raw = g.sense;
                note_sense(g, g.cdb[0], &raw);
            }
            classify(st as u8, parsed, dir == Dir::Out)
        }
        Ok(st) => classify(st as u8, None, dir == Dir::Out),
    }
}

/// One transaction of the `cdb_len`-byte CDB at `cdb`; `Ok(status)` or a recovery decision
/// for transport failures.
pub(super) fn old_transaction(
    g: &mut Globals,
    cdb: u32,
    cdb_len: u8,
    dir: Dir,
    data: u32,
    len: u32,
) -> Result<u16, Recovery> {
    let mut busy = 0;
    loop {
        match mac::scsi_get() {
            0 => break,
            SC_MGR_BUSY if busy < 15 => busy += 1,
            // Someone else holds the bus (at interrupt time it may be the code we
            // interrupted): not a failure, try again later.
            SC_MGR_BUSY => return Err(Recovery::RetryLater),
            _ => return Err(Recovery::Retry),
        }
    }
    if mac::scsi_select(g.target) != 0 {
        // No answer to the selection: once more, as under SCSI Manager 4.3.
        return Err(Recovery::Transport(err::OFF_LIN_ERR));
    }
    let cmd_failed = mac::scsi_cmd(cdb, cdb_len) != 0;
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
        match mac::scsi_data(sel, tib) {
            0 => {}
            // MODE SENSE and INQUIRY may return less than asked: SCSIComplete collects the
            // status.
            SC_PHASE_ERR if g.short_ok != 0 => {}
            _ => short = true,
        }
    }
    let stat = core::ptr::addr_of_mut!(g.stat) as u32;
    let msg = core::ptr::addr_of_mut!(g.msg) as u32;
    let r = mac::scsi_complete(stat, msg, 300);
    if r != 0 && r != 10 || cmd_failed {
        if short && blind {
            // The blind transfer is the usual suspect: polled from now on, and again.
            g.polled = 1;
            return Err(Recovery::Retry);
        }
        // The target stopped answering (`SCSIComplete` timed out and the bus was reset) or
        // the command phase failed: once more, as under SCSI Manager 4.3.
        return Err(Recovery::Transport(err::IO_ERR));
    }
    let st = g.stat & 0xFF;
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
/// aligned moves at fixed places (`g.tib` is at an even offset).
pub(super) fn build_tib(g: &mut Globals, data: u32, len: u32) {
    let t = g.tib.as_mut_ptr() as u32;
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
