//! Control and Status.

use super::install::{open_disk, post_pending_events, prevent, read_map, volume_on};
use super::*;

pub(super) fn flush_cache(g: &mut Globals) -> i16 {
    if g.write_cache_on == 0 {
        return 0;
    }
    // The sequence, not the record's count: that one stops at 255, and a lost write past it
    // must fail the flush as the first one did.
    let seen = g.lost_seq;
    match command(g, &scsi::synchronize_cache_10(), Dir::None, 0, 0) {
        // A reset under the flush (UNIT ATTENTION 29/xx, kept by `note_sense`) may have
        // taken the cache with it: the flush does not vouch for what it held.
        Ok(()) if g.lost_seq == seen => {
            g.dirty = 0;
            0
        }
        Ok(()) => err::IO_ERR,
        Err(e) => e,
    }
}

/// accRun with the medium ejected or changed: when the drive has one and it reads, serve
/// its partitions and post their disk-inserted events. No drive carries over from the old
/// medium blindly: one with a volume still on line (the File Manager did not take it off line
/// — the medium was changed behind its back) is [`RETIRED`] and answers `offLinErr`; the
/// others are free, and the new medium's partitions take them (numbers kept) or new drives
/// with new numbers. accRun comes from `SystemTask`, at application level: the drive may be
/// waited for here.
pub(super) fn reread(g: &mut Globals) {
    for i in 0..g.ndrives as usize {
        let d = &mut g.drives[i];
        d.qel.disk_in_place = 0;
        d.extent.blocks = 0;
        d.event_pending = 0;
        d.partition = if volume_on(d.number) { RETIRED } else { 0 };
    }
    g.may_wait = 1;
    g.reading = 1;
    let r = open_disk(g).and_then(|()| read_map(g, false));
    g.may_wait = 0;
    g.reading = 0;
    if r.is_ok() {
        g.medium_changed = 0;
    }
}

/// Control [`RESCAN_CONTROL`]: read the map again and add a drive for every HFS partition no
/// drive serves yet (a volume Ferrite Setup's Partition… added), numbered and posted as at
/// install. The drives there are never changed nor removed: one may hold a mounted volume.
/// Called from an application, at application level: the drive may be waited for. A
/// removable medium that changed is accRun's to read (`offLinErr` until then).
fn rescan(g: &mut Globals) -> i16 {
    if g.medium_changed != 0 {
        return err::OFF_LIN_ERR;
    }
    g.may_wait = 1;
    let r = read_map(g, true);
    g.may_wait = 0;
    // accRun posts what `_PostEvent` refuses now.
    need_time(g);
    post_pending_events(g);
    match r {
        Ok(()) => 0,
        Err(e) => e,
    }
}

/// accRun: writes went into the drive's cache and have been idle for the settings' time
/// (`idle_ticks`): flush it. accRun comes from `SystemTask`, at application level, every
/// 30 ticks while the driver asks for time (`mark_dirty` asks), so nothing here runs at
/// interrupt time and the flush comes 0.5–1 s after the last write with the default
/// half-second; with a request in flight, at a later accRun. A flush that fails waits
/// another idle time (a medium error in it is a lost write: `note_sense`).
fn idle_flush(g: &mut Globals) {
    let now = mac::peek32(mac::lowmem::TICKS);
    if g.dirty != 0 && g.active_pb == 0 && now.wrapping_sub(g.last_write) >= g.idle_ticks as u32 {
        if flush_cache(g) != 0 {
            g.last_write = now;
        }
    }
}

/// Blocks per VERIFY(10) of Control 5: 1 MiB, which a drive reading 1 MB/s checks in about a
/// second — well inside the shortest timeout a SCSI Manager gives a command (the original
/// one's `SCSIComplete` wait of 300 ticks, 5 s; 4.3's `scsiTimeout`, the driver's 20 s). A
/// 65,535-block command takes 8–32 s at 1–4 MB/s: the SCSI Manager would reset the bus.
const VERIFY_CHUNK: u32 = 2048;

/// Control 5 (verify): VERIFY(10) of every block of the drive (the partition), in commands
/// of [`VERIFY_CHUNK`] blocks; the drive checks its medium without sending data. A medium
/// error ends it with `ioErr`.
pub(super) fn verify(g: &mut Globals, drive: i16) -> i16 {
    let Some(i) = find_drive(g, drive) else {
        return err::NS_DRV_ERR;
    };
    let Extent { start, blocks } = g.drives[i].extent;
    let mut done = 0u32;
    while done < blocks {
        let n = request::next_chunk(blocks - done, VERIFY_CHUNK);
        if let Err(e) = command(
            g,
            &scsi::rw10(scsi::op::VERIFY_10, 0, start + done, n as u16),
            Dir::None,
            0,
            0,
        ) {
            return e;
        }
        done += n;
    }
    0
}

pub(super) fn control(pb_addr: u32, dce_addr: u32) -> i16 {
    let g = globals(dce_addr);
    // SAFETY: the Device Manager's parameter block for this call.
    let pb = unsafe { mac::view::<CntrlParam>(pb_addr) };
    let cs_param = pb_addr + mac::at::CS_PARAM;
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
        5 => verify(g, pb.io_vref_num.get()),
        6 => 0, // format: nothing to do for a hard disk
        7 => {
            // `_Eject` took this drive's volume off line. The whole medium goes: a volume
            // of another of its partitions still on line keeps its drive, retired
            // (`reread`), and never meets the next medium.
            let r = flush_cache(g);
            if r == 0 && g.removable != 0 {
                prevent(g, false);
                if let Err(e) = command(g, &scsi::start_stop_unit(false, true), Dir::None, 0, 0) {
                    return e;
                }
                // Out: no disk in place until accRun reads a new medium.
                for i in 0..g.ndrives as usize {
                    g.drives[i].qel.disk_in_place = 0;
                }
                g.medium_changed = 1;
                need_time(g);
            }
            r
        }
        // csParam is word-aligned in the parameter block: single long moves (the slice
        // copies they replace cost a call each).
        21 | 22 => {
            mac::poke32(cs_param, crate::icon::ICON.as_ptr() as u32);
            0
        }
        23 => {
            let info: u32 = if g.removable != 0 { 0x0201 } else { 0x0601 };
            mac::poke32(cs_param, info);
            0
        }
        43 => {
            let sel = mac::peek32(cs_param);
            match &sel.to_be_bytes() {
                b"flus" => flush_cache(g),
                b"vmop" => 0,
                _ => err::CONTROL_ERR,
            }
        }
        65 => {
            if g.medium_changed != 0 {
                reread(g);
            }
            idle_flush(g);
            post_pending_events(g);
            super::switch::acc_run(g);
            0
        }
        RESCAN_CONTROL => rescan(g),
        _ => err::CONTROL_ERR,
    }
}

pub(super) fn status_call(pb_addr: u32, dce_addr: u32) -> i16 {
    let g = globals(dce_addr);
    // SAFETY: the Device Manager's parameter block for this call.
    let pb = unsafe { mac::view::<CntrlParam>(pb_addr) };
    let cs_param = pb_addr + mac::at::CS_PARAM;
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
            let sel = mac::peek32(cs_param);
            // 'boot' is per drive: the partition of the drive in ioVRefNum (0 if none of
            // ours).
            let partition =
                find_drive(g, pb.io_vref_num.get()).map_or(0, |i| g.drives[i].partition);
            let info = GestaltInfo {
                partition,
                version: gestalt::VERSION,
                removable: g.removable != 0,
                bus: g.bus,
                target: g.target,
                lun: g.lun,
                write_cache: g.write_cache_on != 0,
                driver: mac::header_address(),
            };
            match gestalt::respond(sel, &info) {
                Some(r) => {
                    mac::poke32(cs_param + 4, r[0]);
                    mac::poke32(cs_param + 8, r[1]);
                    0
                }
                None => err::STATUS_ERR,
            }
        }
        LOST_WRITES_STATUS => {
            pb.cs_param[..10].copy_from_slice(&g.lost);
            0
        }
        _ => err::STATUS_ERR,
    }
}
