//! Moving to SCSI Manager 4.3 when it arrives after install: on a Quadra 700/800/900/950,
//! 610/650 or Centris the ROM has only the original SCSI Manager and boots the driver through
//! the +0 entry; SCSI Manager 4.3 comes later with System 7.5's extension (built into the
//! System from 7.5.3; Apple TIL 17019). Nothing tells a driver it arrived, and the original
//! SCSI Manager keeps working through 4.3's compatibility layer (IM Devices ch. 4), so the
//! driver looks for itself and moves over in two steps, because they have different rules:
//!
//! 1. **accRun** (Control 65, which `SystemTask` sends at application level): while the
//!    driver still uses the original SCSI Manager, test `_SCSIAtomic` (two
//!    `_GetTrapAddress` calls, [`mac::trap_available`]); once it is there, ask which device
//!    our old-API SCSI ID is (`SCSIGetVirtualIDInfo`, "typically used by a device driver
//!    during the transition from a ROM-based original SCSI Manager to SCSI Manager 4.3", IM
//!    Devices ch. 4: with more than one bus — the Quadra 900/950's two chains, a SCSI card —
//!    an old-API ID need not be bus 0) — a device 4.3 cannot reach keeps the old API — and
//!    register the cross-reference for that DeviceIdent with `SCSICreateRefNumXref`. That
//!    call "may move
//!    memory; you should not call it at interrupt time" (IM Devices ch. 4), and Prime can run
//!    at interrupt time (IODone starts the next queued request), so this is its place. The
//!    driver keeps `dNeedTime` (accRun every `drvrDelay` = 30 ticks) until then.
//! 2. **Prime**, when a queued request starts with nothing active or deferred (`active_pb` is
//!    0 there) and no synchronous command of ours running (`in_command` = 0): take the
//!    DeviceIdent, `use43` = 1.
//!    From then on every command goes through `SCSIAction`, queued requests asynchronously.
//!    A request in flight when 4.3 arrived finishes on the original SCSI Manager.
//!
//! Cost: on a Mac that never gets 4.3, two `_GetTrapAddress` traps per accRun, twice a
//! second; on the request path one byte test per queued Prime.

use super::install::register_xref;
use super::*;

/// `SCSIGetVirtualIDInfo`.
const GET_VIRTUAL_ID_INFO: u8 = 0x80;
/// [`Globals::switch43`]: armed (the cross-reference is registered).
const ARMED: u8 = 1;
/// [`Globals::switch43`]: 4.3 cannot reach the device; the original SCSI Manager for good.
const NEVER: u8 = 2;

/// After install: keep asking for accRun while 4.3 may still arrive.
pub(super) fn watch(g: &mut Globals) {
    if g.use43 == 0 {
        need_time(g);
    }
}

/// accRun: look for SCSI Manager 4.3; once it is there, register the cross-reference and
/// arm the switch.
pub(super) fn acc_run(g: &mut Globals) {
    if g.use43 != 0 || g.switch43 != 0 {
        return;
    }
    if mac::trap_available(ferrite_shared::mac::trap::SCSI_ATOMIC) {
        let Some(ident) = virtual_id(g) else {
            g.switch43 = NEVER;
            return;
        };
        g.ident43 = ident;
        // `scsiDeviceConflict`: the device has a cross-reference already (4.3 may make one
        // for the drivers it finds); the switch does not depend on it.
        let _ = register_xref(g, u32::from_be_bytes(ident));
        g.switch43 = ARMED;
        return;
    }
    watch(g);
}

/// The DeviceIdent 4.3 gives our old-API SCSI ID, if 4.3 can reach the device.
fn virtual_id(g: &mut Globals) -> Option<[u8; 4]> {
    let pb = g.page.as_mut_ptr() as u32;
    // SAFETY: `page` is 64 bytes; SCSIGetVirtualIDInfoPB is the 36-byte header, then
    // `scsiOldCallID` (word at 36) and `scsiExists` (byte at 38), the places of
    // `SCSIDriverPB`'s `scsiDriver` and the high byte of `scsiDriverFlags`.
    let p = unsafe { mac::view::<ScsiDriverPb>(pb) };
    *p = ScsiDriverPb::new_zeroed();
    p.scsi_pb_length
        .set(core::mem::size_of::<ScsiDriverPb>() as u16);
    p.scsi_function_code = GET_VIRTUAL_ID_INFO;
    p.scsi_driver.set(g.target as i16);
    if mac::scsi_action(pb) != 0 || p.scsi_driver_flags.get() >> 8 == 0 {
        return None;
    }
    Some(p.scsi_device)
}

/// Prime, at the start of a queued request with nothing active or deferred: switch if armed.
pub(super) fn at_request_start(g: &mut Globals) {
    if g.switch43 == ARMED && g.in_command == 0 {
        let [_, bus, target, lun] = g.ident43;
        (g.bus, g.target, g.lun) = (bus, target, lun);
        g.use43 = 1;
        g.switch43 = 0;
        // The asynchronous block is made afresh for the new address.
        g.async_armed = 0;
    }
}
