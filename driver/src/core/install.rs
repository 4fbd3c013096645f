//! Install: claim a unit, make the DCE, open the disk (INQUIRY, READ CAPACITY, the caching
//! page and the write cache), read the partition map, add a drive per HFS partition,
//! register the SCSI Manager 4.3 cross-reference, post the disk-inserted events. A failure
//! after `_DrvrInstall` undoes all of it.

use super::*;
use crate::capacity::{self, Capacity10};

pub(super) fn install(kind: u32, d5: u32) -> Result<(), i16> {
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
        mac::dispose_ptr(gp);
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
    g.io = core::ptr::addr_of!(g.old) as u32;
    mac::poke16(g.io + 4, target as u16); // `old.id`
    g.lun = lun;
    g.use43 = mac::trap_available(ferrite_shared::mac::trap::SCSI_ATOMIC) as u8;
    // A block that fails its check: write-through (`Settings::FALLBACK`).
    let settings = Settings::for_driver(mac::blob_head());
    scsi_old::configure(g, &settings);

    if let Err(e) = bring_up(g, kind, d5, &settings) {
        undo_install(g, unit, gp);
        return Err(e);
    }
    // A VBL task, idle until a NOT READY (or, on the original SCSI Manager, a busy bus) has
    // to be waited out at interrupt time.
    g.vbl = VblTask::new_zeroed();
    g.vbl.q_type.set(V_TYPE);
    g.vbl.vbl_addr.set(mac::vbl_task_address());
    g.vbl_dce = dce_addr;
    let task = core::ptr::addr_of!(g.vbl) as u32;
    g.vbl_installed = (mac::vinstall(task) == 0) as u8;
    post_pending_events(g);
    super::switch::watch(g);
    Ok(())
}

/// Everything that can fail after `_DrvrInstall`: open the disk, read the map (adding the
/// drives), register the SCSI Manager 4.3 cross-reference.
fn bring_up(g: &mut Globals, kind: u32, d5: u32, settings: &Settings) -> Result<(), i16> {
    // The ROM installs boot drivers with interrupts enabled: the one place the driver may
    // wait for a drive that is spinning up.
    g.may_wait = 1;
    g.reading = 1;
    g.want_cache = settings.write_cache as u8;
    g.idle_ticks = settings.idle_flush_ticks;
    let opened = open_disk(g).and_then(|()| read_map(g, false));
    g.may_wait = 0;
    g.reading = 0;
    opened?;
    if g.use43 != 0 && kind == 1 {
        register_xref(g, d5)?;
    }
    Ok(())
}

/// A failed install leaves nothing behind: the drives it added leave the drive queue, the
/// DCE is no longer marked open (`_DrvrRemove` refuses an open driver) and is removed —
/// which disposes it and clears the unit-table entry —, and the globals are disposed. No VBL
/// task is installed yet, and no event was posted.
fn undo_install(g: &mut Globals, unit: u16, gp: u32) {
    for i in 0..g.ndrives as usize {
        let element = core::ptr::addr_of!(g.drives[i].qel.q_link) as u32;
        mac::dequeue(element, mac::lowmem::DRV_Q_HDR);
    }
    g.ndrives = 0;
    let ref_num = g.ref_num;
    // SAFETY: our DCE, still installed.
    let dce = unsafe { mac::dce(g.dce) };
    dce.d_ctl_flags
        .set(dce.d_ctl_flags.get() & !(drvr_flags::D_OPENED | drvr_flags::D_NEED_TIME));
    if mac::drvr_remove(ref_num) != 0 {
        // Not removed: at least the unit table must not lead to code about to lose its
        // globals.
        let entry = mac::peek32(mac::lowmem::UTABLE_BASE) + 4 * unit as u32;
        // SAFETY: the unit-table entry of our unit.
        unsafe { core::ptr::write_volatile(entry as *mut u32, 0) };
    }
    mac::dispose_ptr(gp);
}

/// Unit 32 + ID for the built-in bus (mac-facts §2.4), else the first free unit ≥ 48.
pub(super) fn choose_unit(bus: u8, target: u8) -> Option<u16> {
    let table = mac::peek32(mac::lowmem::UTABLE_BASE);
    let count = mac::peek16(mac::lowmem::UNIT_NTRY_CNT);
    let free = |u: u16| u < count && mac::peek32(table + 4 * u as u32) == 0;
    let preferred = 32 + target as u16;
    if bus == 0 && target < 7 && free(preferred) {
        return Some(preferred);
    }
    (48..count).find(|&u| free(u))
}

pub(super) fn open_disk(g: &mut Globals) -> Result<(), i16> {
    // The first TEST UNIT READY may meet a UNIT ATTENTION that fails it (28/00, a medium
    // inserted since power-on or since the last reading): the second is the one that counts.
    let _ = command(g, &scsi::test_unit_ready(), Dir::None, 0, 0);
    command(g, &scsi::test_unit_ready(), Dir::None, 0, 0)?;
    let buf = g.buf.as_mut_ptr() as u32;
    // INQUIRY may answer fewer bytes than asked: what it did not send reads as zero (not
    // removable), never as what an earlier command left in the buffer — the map block
    // read last, when accRun re-reads a new medium.
    g.buf[..36].fill(0);
    g.short_ok = 1;
    let inquiry = command(g, &scsi::inquiry(36), Dir::In, buf, 36);
    g.short_ok = 0;
    inquiry?;
    g.removable = (g.buf[1] & 0x80 != 0) as u8;
    command(g, &scsi::read_capacity_10(), Dir::In, buf, 8)?;
    let (blocks, block_len) = match capacity::from_rc10(&g.buf) {
        Capacity10::Blocks { blocks, block_len } => (blocks, block_len),
        Capacity10::AskLonger { block_len } => {
            // 2^32 blocks or more: READ CAPACITY(16) for the block length it reports; the
            // driver serves what 32-bit block numbers reach either way.
            g.buf[..12].fill(0);
            g.short_ok = 1;
            let rc16 = command(
                g,
                &scsi::read_capacity_16(capacity::RC16_LEN as u8),
                Dir::In,
                buf,
                capacity::RC16_LEN,
            );
            g.short_ok = 0;
            match rc16 {
                Ok(()) => capacity::from_rc16(&g.buf),
                // A drive without READ CAPACITY(16): at least 2^32 blocks of READ
                // CAPACITY(10)'s length.
                Err(_) => (u32::MAX, block_len),
            }
        }
    };
    if block_len != BLOCK {
        return Err(err::NO_DRIVE_ERR);
    }
    g.disk_blocks = blocks;
    // A removable medium stays in while the driver serves it (the user's eject button does
    // nothing): it leaves through `_Eject` → Control 7, which allows the removal first. A
    // drive without the command keeps its button.
    if g.removable != 0 {
        prevent(g, true);
    }
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
        if g.want_cache != 0 {
            enable_write_cache(g);
        } else {
            // Settings say write-through, but the drive may cache writes on its own (WCE on
            // at power-on): then its cache is flushed like ours — idle, goodbye, eject.
            g.write_cache_on = (crate::cache::wce_on(&g.page) == Some(true)) as u8;
        }
    }

    Ok(())
}

/// MODE SENSE the caching page (current and changeable) and turn WCE on if allowed; a drive
/// without the page, or that refuses, is left as it is.
pub(super) fn enable_write_cache(g: &mut Globals) {
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

/// Read the map from block 1 and serve its HFS partitions ([`add_drive`]). With `only_new`
/// (Control [`RESCAN_CONTROL`](super::RESCAN_CONTROL)) an entry a drive serves already is
/// left to it, so only partitions added since get drives, and a disk whose block 1 is no
/// map entry is refused with `noMacDskErr`; install and a new medium take what they find.
pub(super) fn read_map(g: &mut Globals, only_new: bool) -> Result<(), i16> {
    let buf = g.buf.as_mut_ptr() as u32;
    let mut block = 1u32;
    let mut entries = 1u32;
    while block <= entries {
        command(
            g,
            &scsi::rw10(scsi::op::READ_10, 0, block, 1),
            Dir::In,
            buf,
            BLOCK,
        )?;
        match partition::examine(&g.buf, g.disk_blocks) {
            MapBlock::End if only_new && block == 1 => return Err(err::NO_MAC_DSK_ERR),
            MapBlock::End => break,
            MapBlock::Entry { hfs, map_entries } => {
                entries = map_entries;
                let served = only_new && serves(g, block as u8);
                if let Some(extent) = hfs.filter(|_| !served) {
                    add_drive(g, extent, block as u8);
                }
            }
        }
        block += 1;
    }
    Ok(())
}

/// A drive of ours serves map entry `partition` already.
fn serves(g: &Globals, partition: u8) -> bool {
    g.drives
        .iter()
        .take(g.ndrives as usize)
        .any(|d| d.partition == partition)
}

/// PREVENT (or ALLOW) MEDIUM REMOVAL; a drive without the command is left as it is.
#[inline(never)]
pub(super) fn prevent(g: &mut Globals, on: bool) {
    // 1Eh, 0, 0, 0, Prevent, 0: written into `g.cdb` by aligned moves.
    let at = g.cdb.as_mut_ptr() as u32;
    mac::poke16(at, 0x1E00);
    mac::poke32(at + 2, (on as u32) << 8);
    let _ = super::command::staged_step(g, 6, Dir::None, 0, 0);
}

/// `VCBQHdr.qHead`: the first volume control block (IM Files, "Volume Control Blocks").
const VCB_Q_HEAD: u32 = 0x358;
/// `vcbDrvNum`: the drive an on-line volume is on; 0 once the File Manager took it off line
/// (`_Eject`, `_Offline`).
const VCB_DRV_NUM: u32 = 72;
/// `dQDrive` in a drive-queue element.
const DQ_DRIVE: u32 = 6;

/// An element of the queue whose first element is at `head` has the word `n` at `offset`.
#[inline(never)]
fn queue_has(head: u32, offset: u32, n: u16) -> bool {
    let mut el = mac::peek32(head);
    let mut guard = 0;
    while el != 0 && guard < 256 {
        if mac::peek16(el + offset) == n {
            return true;
        }
        el = mac::peek32(el);
        guard += 1;
    }
    false
}

pub(super) fn drive_number_taken(n: u16) -> bool {
    queue_has(mac::lowmem::DRV_Q_HEAD, DQ_DRIVE, n)
}

/// A volume is mounted and on line on drive `n`: the File Manager sends its I/O there.
pub(super) fn volume_on(n: u16) -> bool {
    queue_has(VCB_Q_HEAD, VCB_DRV_NUM, n)
}

/// The map reading found an HFS partition: a drive serves it — a free one (left by an
/// earlier medium with no volume on line on it; its number kept), else a new one with the
/// next free number. A [`RETIRED`] drive is never taken: a mounted volume's I/O goes there.
pub(super) fn add_drive(g: &mut Globals, extent: Extent, partition: u8) {
    let n = g.ndrives as usize;
    let mut i = 0;
    while i < n && g.drives[i].partition != 0 {
        i += 1;
    }
    if i >= MAX_DRIVES {
        return;
    }
    let new = i == n;
    let mut number = g.drives[i].number;
    if new {
        number = FIRST_DRIVE;
        while drive_number_taken(number) {
            number += 1;
        }
    }
    let d = &mut g.drives[i];
    if new {
        d.qel = DrvQElWithFlags::new_zeroed();
        d.qel.q_type.set(1);
    }
    d.qel.disk_in_place = if g.removable != 0 { 2 } else { 8 };
    d.qel.installed = 1;
    d.qel.write_prot = if g.write_protected != 0 { 0x80 } else { 0 };
    d.qel.dq_drv_sz.set(extent.blocks as u16);
    d.qel.dq_drv_sz2.set((extent.blocks >> 16) as u16);
    d.extent = extent;
    d.number = number;
    d.event_pending = 1;
    d.partition = partition;
    if new {
        let element = core::ptr::addr_of!(d.qel.q_link) as u32;
        g.ndrives += 1;
        mac::add_drive(element, number, g.ref_num);
    }
}

pub(super) fn register_xref(g: &mut Globals, device: u32) -> Result<(), i16> {
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
pub(super) fn post_pending_events(g: &mut Globals) {
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
    if left == 0 && g.medium_changed == 0 && g.dirty == 0 {
        // SAFETY: our DCE.
        let dce = unsafe { mac::dce(g.dce) };
        dce.d_ctl_flags
            .set(dce.d_ctl_flags.get() & !drvr_flags::D_NEED_TIME);
    }
}
