//! Event Manager model (Toolbox side): `GetNextEvent`/`WaitNextEvent` hand out, in this
//! order, activate events, update events, then the **script's** next input (a menu choice
//! becomes a mouse-down in the menu bar for `FindWindow`/`MenuSelect`; a key becomes a
//! key-down, ⌘ included), then null events. The scripted user acts only once the screen has
//! settled (no update or activate event pending; modelling choice). After the script is used
//! up, an application that keeps asking for events more than [`IDLE_LIMIT`] times fails the
//! run (it never quit). A scripted [`Input::Click`] is a mouse-down at that point of the
//! window in global coordinates (the window's content origin + the local point), which the
//! application resolves with `FindWindow` and `GlobalToLocal`. When the script's next input
//! is for a dialog (a dialog item, Return, typing) the user waits for it: the application
//! gets null events (e.g. while it polls for ⌘-period during a long operation), and fails
//! after [`IDLE_LIMIT`] of them in a row.

use super::{Frame, Input, Ret, check_range, take_input};
use crate::error::Fault;
use crate::machine::Machine;
use crate::traps::TrapCall;

// EventRecord fields (mac-facts §13.5: what, message, when, where (v, h), modifiers; 16 bytes).
const EVT_WHAT: u32 = 0;
const EVT_MESSAGE: u32 = 2;
const EVT_WHEN: u32 = 6;
const EVT_WHERE: u32 = 10;
const EVT_MODIFIERS: u32 = 14;
const EVENT_RECORD_LEN: u32 = 16;
// Event codes (mac-facts §13.5).
pub const NULL_EVENT: u16 = 0;
pub const MOUSE_DOWN: u16 = 1;
pub const KEY_DOWN: u16 = 3;
pub const UPDATE_EVT: u16 = 6;
pub const ACTIVATE_EVT: u16 = 8;
/// `cmdKey` modifier (mac-facts §13.5).
pub const CMD_KEY: u16 = 0x0100;
/// `activeFlag` modifier of an activate event (IM; not in docs/mac-facts.md).
pub const ACTIVE_FLAG: u16 = 0x0001;
/// Where the scripted user clicks to open a menu (global v, h; in the menu bar).
pub const MENU_CLICK: (i16, i16) = (10, 10);
/// Null events the model hands out after the script is used up before it fails the run.
pub const IDLE_LIMIT: u32 = 1000;
/// Fail when the application asks for the next event with a menu title still highlighted
/// (it forgot `HiliteMenu(0)` after handling a choice).
pub const FAIL_ON_STUCK_MENU_HIGHLIGHT: bool = true;

/// Event state.
#[derive(Default)]
pub struct EventState {
    pub idle: u32,
    /// Events asked for in a row while the script waits for a dialog.
    pub waiting: u32,
    /// Every `TickCount` answer with the emulated cycle it was read at (for tests that check
    /// an application's timing against emulated time).
    pub tick_reads: Vec<TickRead>,
}

/// One `TickCount` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TickRead {
    pub ticks: u32,
    /// [`Machine::emulated_cycles`] then.
    pub cycles: u64,
}

struct Event {
    what: u16,
    message: u32,
    at: (i16, i16),
    modifiers: u16,
}

fn next_event(m: &mut Machine, call: &TrapCall, mask: u16) -> Result<Option<Event>, Fault> {
    let wants = |what: u16| mask & (1 << what) != 0;
    // Activate events.
    if wants(ACTIVATE_EVT)
        && let Some(w) = {
            let wm = &mut m.toolbox().wm;
            if wm.activate.is_empty() {
                None
            } else {
                Some(wm.activate.remove(0))
            }
        }
    {
        return Ok(Some(Event {
            what: ACTIVATE_EVT,
            message: w,
            at: (0, 0),
            modifiers: ACTIVE_FLAG,
        }));
    }
    // Update events, front to back.
    let pending_update = m
        .toolbox()
        .wm
        .windows
        .iter()
        .find(|w| w.visible && w.needs_update)
        .map(|w| w.ptr);
    if let Some(w) = pending_update {
        if wants(UPDATE_EVT) {
            return Ok(Some(Event {
                what: UPDATE_EVT,
                message: w,
                at: (0, 0),
                modifiers: 0,
            }));
        }
        return Ok(None);
    }
    if !m.toolbox().wm.activate.is_empty() {
        return Ok(None);
    }
    // The user.
    if FAIL_ON_STUCK_MENU_HIGHLIGHT && m.toolbox().mm.hilited != 0 && !m.toolbox().script.is_empty()
    {
        let id = m.toolbox().mm.hilited;
        return Err(Fault::misuse(
            call.word,
            format!(
                "_{}: menu {id}'s title is still highlighted; call HiliteMenu(0) after handling a menu choice",
                call.name
            ),
        ));
    }
    let Some(input) = m.toolbox().script.front().cloned() else {
        return Ok(None);
    };
    let ev = match &input {
        Input::Menu { .. } => {
            if !wants(MOUSE_DOWN) {
                return Ok(None);
            }
            super::menus::choose(m, &input).map_err(|e| Fault::setup(format!("script: {e}")))?;
            Event {
                what: MOUSE_DOWN,
                message: 0,
                at: MENU_CLICK,
                modifiers: 0,
            }
        }
        Input::CommandKey(c) | Input::Key(c) => {
            if !wants(KEY_DOWN) {
                return Ok(None);
            }
            let code = u8::try_from(*c as u32).map_err(|_| {
                Fault::setup(format!("script: key {c:?} is not a one-byte character"))
            })?;
            let modifiers = if matches!(input, Input::CommandKey(_)) {
                CMD_KEY
            } else {
                0
            };
            Event {
                what: KEY_DOWN,
                message: code as u32,
                at: (200, 300),
                modifiers,
            }
        }
        Input::Click { window, h, v } => {
            if !wants(MOUSE_DOWN) {
                return Ok(None);
            }
            let Some(w) = m
                .toolbox()
                .wm
                .windows
                .iter()
                .find(|w| w.visible && super::mac_roman_text(&w.title) == *window)
                .cloned()
            else {
                return Err(Fault::setup(format!(
                    "script: {input:?}, but no visible window is titled {window:?}"
                )));
            };
            let at = (w.bounds[0] + v, w.bounds[1] + h);
            if !((w.bounds[0]..w.bounds[2]).contains(&at.0)
                && (w.bounds[1]..w.bounds[3]).contains(&at.1))
            {
                return Err(Fault::setup(format!(
                    "script: {input:?} is outside the window's content ({:?})",
                    w.bounds
                )));
            }
            Event {
                what: MOUSE_DOWN,
                message: 0,
                at,
                modifiers: 0,
            }
        }
        Input::DialogItem(_) | Input::Return | Input::Type { .. } => {
            // The user waits for the dialog to appear (e.g. while a progress window is up):
            // no event. An application that never shows one fails after IDLE_LIMIT polls.
            let tb = m.toolbox();
            tb.em.waiting += 1;
            if tb.em.waiting > IDLE_LIMIT {
                return Err(Fault::setup(format!(
                    "script: {input:?} is next, but the application asked for events {IDLE_LIMIT} times in a row with no modal dialog or alert up"
                )));
            }
            return Ok(None);
        }
    };
    m.toolbox().em.waiting = 0;
    take_input(m, |_| true);
    Ok(Some(ev))
}

fn write_event(m: &mut Machine, call: &TrapCall, rec: u32, ev: &Event) -> Result<(), Fault> {
    check_range(m, call.word, "the EventRecord", rec, EVENT_RECORD_LEN, true)?;
    let now = m.ticks();
    m.write_u16(rec + EVT_WHAT, ev.what);
    m.write_u32(rec + EVT_MESSAGE, ev.message);
    m.write_u32(rec + EVT_WHEN, now);
    m.write_u16(rec + EVT_WHERE, ev.at.0 as u16);
    m.write_u16(rec + EVT_WHERE + 2, ev.at.1 as u16);
    m.write_u16(rec + EVT_MODIFIERS, ev.modifiers);
    Ok(())
}

fn get_event(m: &mut Machine, call: &TrapCall, mask: u16, rec: u32) -> Result<bool, Fault> {
    check_range(m, call.word, "the EventRecord", rec, EVENT_RECORD_LEN, true)?;
    let ev = next_event(m, call, mask)?;
    let got = ev.is_some();
    let ev = ev.unwrap_or(Event {
        what: NULL_EVENT,
        message: 0,
        at: (200, 300),
        modifiers: 0,
    });
    if got {
        m.toolbox().em.idle = 0;
    } else {
        m.advance_ticks(1);
        let tb = m.toolbox();
        if tb.script.is_empty() {
            tb.em.idle += 1;
            if tb.em.idle > IDLE_LIMIT {
                return Err(Fault::misuse(
                    call.word,
                    format!(
                        "_{}: the script ended {IDLE_LIMIT} events ago and the application is still waiting for events (it never quit)",
                        call.name
                    ),
                ));
            }
        }
    }
    write_event(m, call, rec, &ev)?;
    Ok(got)
}

/// `GetNextEvent(eventMask: INTEGER; VAR theEvent: EventRecord): Boolean`.
fn get_next_event(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2, 4], 2)?;
    let mask = f.int(m, 0) as u16;
    let rec = f.long(m, 1);
    let got = get_event(m, call, mask, rec)?;
    f.ret(m, call, Ret::Bool(got))
}

/// `WaitNextEvent(eventMask: INTEGER; VAR theEvent: EventRecord; sleep: LONGINT;
/// mouseRgn: RgnHandle): Boolean`.
fn wait_next_event(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2, 4, 4, 4], 2)?;
    let mask = f.int(m, 0) as u16;
    let rec = f.long(m, 1);
    let rgn = f.long(m, 3);
    if rgn != 0 && m.memory_manager().handle_size(m.bus(), rgn).is_err() {
        return Err(f.misuse(format!("mouseRgn ${rgn:08X} is neither NIL nor a handle")));
    }
    // WaitNextEvent gives time to desk accessories and drivers as SystemTask does (Inside
    // Macintosh: Macintosh Toolbox Essentials, "WaitNextEvent").
    m.system_task()?;
    let got = get_event(m, call, mask, rec)?;
    f.ret(m, call, Ret::Bool(got))
}

/// `SystemTask`: drivers' periodic work (`accRun`), at application level.
fn system_task(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 0)?;
    m.system_task()?;
    f.ret(m, call, Ret::None)
}

/// `TickCount: LONGINT`.
fn tick_count(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 4)?;
    let t = m.ticks();
    let cycles = m.emulated_cycles();
    m.toolbox()
        .em
        .tick_reads
        .push(TickRead { ticks: t, cycles });
    f.ret(m, call, Ret::Long(t))
}

/// `FlushEvents` (OS trap; D0 = stopMask << 16 | eventMask): the model's OS event queue holds
/// nothing yet (the scripted user acts later), so nothing is removed.
fn flush_events(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    m.set_d(0, 0);
    Ok(())
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA970, "GetNextEvent", get_next_event);
    m.register_trap(0xA860, "WaitNextEvent", wait_next_event);
    m.register_trap(0xA9B4, "SystemTask", system_task);
    m.register_trap(0xA975, "TickCount", tick_count);
    m.register_trap(0xA032, "FlushEvents", flush_events);
}
