//! The OS Event Manager as far as a driver sees it: `_PostEvent` and `SysEvtMask`.
//!
//! `_PostEvent` ($A02F): A0.W = event code (`diskEvt` = 7), D0 = message (for `diskEvt` the
//! drive number). If the event's bit is clear in `SysEvtMask` ($144) the call returns
//! `evtNotEnb` (1) and nothing is posted (IM Macintosh Toolbox Essentials, `SetEventMask`);
//! otherwise the event is recorded on the host ([`Machine::posted_events`]) and D0 = 0.
//!
//! Whether `SysEvtMask` is 0 while the ROM boots is UNCONFIRMED (mac-facts §9.1); the boot model
//! and tests choose with [`Machine::events_off_until`]: the mask reads 0 until a given tick,
//! then [`EventsState::mask_when_on`] (default $FFEF, `everyEvent` minus `keyUpMask`, the
//! value after `InitEvents`; modelling choice). Drivers that retry posting from a VBL task or
//! `accRun` can be tested that way. [`install`] turns events on from the start.
//!
//! Not modelled: the event queue itself (`EventQueue`, `_GetOSEvent`), `_PPostEvent` ($A12F,
//! which returns a queue element) — it fails the run as unimplemented.

use std::sync::Arc;

use crate::error::Fault;
use crate::lowmem;
use crate::machine::Machine;
use crate::traps::TrapCall;

/// `diskEvt`.
pub const DISK_EVT: u16 = 7;
/// `evtNotEnb`: the event type is masked out.
pub const EVT_NOT_ENB: i16 = 1;
/// `SysEvtMask` after `InitEvents` (modelling choice): every event but keyUp.
pub const DEFAULT_SYS_EVT_MASK: u16 = 0xFFEF;

/// One posted event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostedEvent {
    pub code: u16,
    pub message: u32,
    /// `Ticks` when it was posted.
    pub tick: u32,
}

/// Event state of a machine.
#[derive(Debug, Default)]
pub struct EventsState {
    pub posted: Vec<PostedEvent>,
    /// Posts refused with `evtNotEnb`: `(code, message, tick)`.
    pub refused: Vec<PostedEvent>,
    /// While `Some(t)`: `SysEvtMask` is held at 0 until `Ticks ≥ t`.
    pub off_until: Option<u32>,
    /// The mask written when events come on.
    pub mask_when_on: u16,
}

fn state(m: &mut Machine) -> &mut EventsState {
    m.state::<EventsState>()
}

/// Apply `off_until` if its time has come.
fn update_mask(m: &mut Machine) {
    let now = m.ticks();
    let s = state(m);
    if let Some(t) = s.off_until
        && now >= t
    {
        s.off_until = None;
        let mask = s.mask_when_on;
        m.write_u16(lowmem::SYS_EVT_MASK, mask);
    }
}

impl Machine {
    /// Every event posted so far (oldest first).
    pub fn posted_events(&mut self) -> Vec<PostedEvent> {
        state(self).posted.clone()
    }
    /// The `diskEvt` messages (drive numbers) posted so far.
    pub fn disk_events(&mut self) -> Vec<u32> {
        state(self)
            .posted
            .iter()
            .filter(|e| e.code == DISK_EVT)
            .map(|e| e.message)
            .collect()
    }
    /// Posts refused with `evtNotEnb`.
    pub fn refused_events(&mut self) -> Vec<PostedEvent> {
        state(self).refused.clone()
    }
    /// Hold `SysEvtMask` at 0 until `Ticks` reaches `tick`, then set it to `mask`
    /// (`u32::MAX` = never).
    pub fn events_off_until(&mut self, tick: u32, mask: u16) {
        let s = state(self);
        s.off_until = Some(tick);
        s.mask_when_on = mask;
        self.write_u16(lowmem::SYS_EVT_MASK, 0);
        update_mask(self);
    }
    /// Set `SysEvtMask` now (cancels [`Machine::events_off_until`]).
    pub fn set_sys_evt_mask(&mut self, mask: u16) {
        let s = state(self);
        s.off_until = None;
        s.mask_when_on = mask;
        self.write_u16(lowmem::SYS_EVT_MASK, mask);
    }
}

/// `_PostEvent` $A02F.
fn post_event(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    if call.word & 0x0100 != 0 {
        return Err(Fault::misuse(call.word, "_PPostEvent is not modelled"));
    }
    update_mask(m);
    let code = m.a(0) as u16;
    let message = m.d(0);
    if code > 15 {
        return Err(Fault::misuse(
            call.word,
            format!("_PostEvent: event code {code} (A0.W) is not 0..15"),
        ));
    }
    let tick = m.ticks();
    let ev = PostedEvent {
        code,
        message,
        tick,
    };
    let mask = m.read_u16(lowmem::SYS_EVT_MASK);
    if mask & (1 << code) == 0 {
        state(m).refused.push(ev);
        m.set_d(0, EVT_NOT_ENB as u32);
    } else {
        state(m).posted.push(ev);
        m.set_d(0, 0);
    }
    Ok(())
}

/// Register `_PostEvent`, turn events on ([`DEFAULT_SYS_EVT_MASK`]) and add the tick hook that
/// applies [`Machine::events_off_until`].
pub fn install(m: &mut Machine) {
    m.register_trap(0xA02F, "PostEvent", post_event);
    m.set_sys_evt_mask(DEFAULT_SYS_EVT_MASK);
    m.add_tick_hook(
        "Event Manager mask",
        Arc::new(|m: &mut Machine| {
            update_mask(m);
            Ok(())
        }),
    );
}
