//! Window Manager model. Windows are kept front to back; each has a real window record in
//! guest memory (allocated with a nonrelocatable block when the caller passes no storage) in
//! which the model fills the fields an application reads. A window that becomes visible or
//! is invalidated gets an update event; the application must answer it with
//! `BeginUpdate`/`EndUpdate` (otherwise the model, like a Mac, keeps sending it).
//!
//! WindowRecord offsets are not in docs/mac-facts.md; they are IM Macintosh Toolbox Essentials'
//! (UNVERIFIED here), one constant each.

use super::{
    Frame, Ret, Seen, WindowKind, check_range, read_rect, read_str255, require, write_rect,
};
use crate::error::Fault;
use crate::machine::Machine;
use crate::memory_manager::ZoneId;
use crate::traps::TrapCall;

/// `sizeof(WindowRecord)` (and CWindowRecord).
pub const WINDOW_RECORD_LEN: u32 = 156;
/// `portRect` in the GrafPort at the start of the record.
pub const PORT_RECT: u32 = 16;
/// `windowKind` (word).
pub const WINDOW_KIND: u32 = 108;
/// `visible` (Boolean byte).
pub const WINDOW_VISIBLE: u32 = 110;
/// `hilited` (Boolean byte).
pub const WINDOW_HILITED: u32 = 111;
/// `goAwayFlag` (Boolean byte).
pub const WINDOW_GO_AWAY: u32 = 112;
/// `refCon` (long).
pub const WINDOW_REFCON: u32 = 152;
/// `windowKind` of an application window.
pub const USER_KIND: u16 = 8;
/// `windowKind` of a dialog.
pub const DIALOG_KIND: u16 = 2;
/// Height of the menu bar (FindWindow's inMenuBar; modelling choice: 20 pixels).
pub const MENU_BAR_HEIGHT: i16 = 20;
/// FindWindow results (mac-facts §13.5).
pub const IN_DESK: u16 = 0;
pub const IN_MENU_BAR: u16 = 1;
pub const IN_CONTENT: u16 = 3;

/// One window or dialog.
#[derive(Debug, Clone)]
pub struct Window {
    pub ptr: u32,
    pub title: Vec<u8>,
    /// Global bounds of the content.
    pub bounds: [i16; 4],
    pub visible: bool,
    pub kind: WindowKind,
    /// The model allocated the record (and disposes of it).
    pub owned: bool,
    pub needs_update: bool,
    pub in_update: bool,
}

/// Window Manager state.
#[derive(Default)]
pub struct WindowState {
    /// Front to back.
    pub windows: Vec<Window>,
    /// Activate events to send.
    pub activate: Vec<u32>,
}

/// A window's title for the screen record ("(no window)" if unknown).
pub fn title_of(m: &mut Machine, port: u32) -> String {
    m.toolbox()
        .wm
        .windows
        .iter()
        .find(|w| w.ptr == port)
        .map_or_else(|| "(no window)".into(), |w| super::mac_roman_text(&w.title))
}

/// `InvalRect` (true) / `ValidRect` (false) on the window whose port is `port`.
pub fn invalidate(m: &mut Machine, port: u32, inval: bool) {
    if let Some(w) = m.toolbox().wm.windows.iter_mut().find(|w| w.ptr == port) {
        w.needs_update = inval && w.visible;
    }
}

/// Create a window or dialog (shared by NewWindow, GetNewWindow and the Dialog Manager).
#[allow(clippy::too_many_arguments)]
pub(crate) fn create(
    m: &mut Machine,
    call: &TrapCall,
    storage: u32,
    bounds: [i16; 4],
    title: Vec<u8>,
    visible: bool,
    go_away: bool,
    refcon: u32,
    behind: u32,
    kind: WindowKind,
    record_len: u32,
) -> Result<u32, Fault> {
    let done = m.toolbox().initialized.windows;
    require(m, call, done, "InitWindows")?;
    if bounds[0] >= bounds[2] || bounds[1] >= bounds[3] {
        return Err(Fault::misuse(
            call.word,
            format!(
                "_{}: empty bounds {bounds:?} (top, left, bottom, right)",
                call.name
            ),
        ));
    }
    check_behind(m, call, behind)?;
    let front = behind == 0xFFFF_FFFF;
    let (ptr, owned) = if storage == 0 {
        let p = m
            .new_ptr(ZoneId::Application, record_len, true)
            .map_err(|e| {
                Fault::misuse(
                    call.word,
                    format!("_{}: no room for the window record ({e})", call.name),
                )
            })?;
        (p, true)
    } else {
        check_range(m, call.word, "window storage", storage, record_len, true)?;
        m.bus_mut().fill_host(storage, record_len, 0);
        (storage, false)
    };
    write_rect(
        m,
        ptr + PORT_RECT,
        [0, 0, bounds[2] - bounds[0], bounds[3] - bounds[1]],
    );
    m.write_u16(
        ptr + WINDOW_KIND,
        if kind == WindowKind::Dialog {
            DIALOG_KIND
        } else {
            USER_KIND
        },
    );
    m.write_u8(ptr + WINDOW_VISIBLE, visible as u8);
    m.write_u8(ptr + WINDOW_HILITED, front as u8);
    m.write_u8(ptr + WINDOW_GO_AWAY, go_away as u8);
    m.write_u32(ptr + WINDOW_REFCON, refcon);
    let w = Window {
        ptr,
        title: title.clone(),
        bounds,
        visible,
        kind,
        owned,
        needs_update: visible,
        in_update: false,
    };
    let tb = m.toolbox();
    if front {
        tb.wm.windows.insert(0, w);
    } else if behind == 0 {
        tb.wm.windows.push(w);
    } else {
        let i = tb.wm.windows.iter().position(|w| w.ptr == behind).unwrap();
        tb.wm.windows.insert(i + 1, w);
    }
    if visible && front {
        tb.wm.activate.push(ptr);
    }
    tb.qd.ports.insert(ptr, Default::default());
    super::render::port_created(m, ptr, bounds);
    let tb = m.toolbox();
    tb.screen.seen.push(Seen::WindowOpened {
        title: super::mac_roman_text(&title),
        kind,
        bounds,
        visible,
    });
    Ok(ptr)
}

/// Remove a window: forget it, dispose its record if the model allocated it.
pub(crate) fn dispose(
    m: &mut Machine,
    call: &TrapCall,
    ptr: u32,
    free: bool,
) -> Result<Window, Fault> {
    let Some(i) = m.toolbox().wm.windows.iter().position(|w| w.ptr == ptr) else {
        return Err(Fault::misuse(
            call.word,
            format!(
                "_{}: ${ptr:08X} is not a live window (disposed twice?)",
                call.name
            ),
        ));
    };
    let tb = m.toolbox();
    let w = tb.wm.windows.remove(i);
    tb.qd.ports.remove(&ptr);
    tb.wm.activate.retain(|&p| p != ptr);
    tb.screen.seen.push(Seen::WindowClosed {
        title: super::mac_roman_text(&w.title),
    });
    let g = tb.qd.globals;
    if g != 0 && m.read_u32(g) == ptr {
        // A real Mac leaves thePort dangling; the model makes the next drawing call fail.
        m.write_u32(g, 0);
    }
    if free && w.owned {
        let (mm, bus) = m.memory_manager_and_bus();
        mm.dispose_ptr(bus, ptr)
            .map_err(|e| Fault::misuse(call.word, format!("_{}: window record: {e}", call.name)))?;
    }
    Ok(w)
}

/// `InitWindows` (after InitGraf and InitFonts).
fn init_windows(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 0)?;
    let i = m.toolbox().initialized;
    require(m, call, i.graf, "InitGraf")?;
    require(m, call, i.fonts, "InitFonts")?;
    m.toolbox().initialized.windows = true;
    f.ret(m, call, Ret::None)
}

/// `NewWindow`/`NewCWindow(wStorage; boundsRect: Rect; title: Str255; visible: Boolean;
/// procID: INTEGER; behind: WindowPtr; goAwayFlag: Boolean; refCon: LONGINT): WindowPtr`.
fn new_window(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4, 4, 2, 2, 4, 2, 4], 4)?;
    let storage = f.long(m, 0);
    let bounds = read_rect(m, call.word, "boundsRect", f.long(m, 1))?;
    let title = read_str255(m, call.word, "title", f.long(m, 2))?;
    let visible = f.boolean(m, 3)?;
    let _proc_id = f.int(m, 4);
    let behind = f.long(m, 5);
    let go_away = f.boolean(m, 6)?;
    let refcon = f.long(m, 7);
    let w = create(
        m,
        call,
        storage,
        bounds,
        title,
        visible,
        go_away,
        refcon,
        behind,
        WindowKind::Document,
        WINDOW_RECORD_LEN,
    )?;
    f.ret(m, call, Ret::Long(w))
}

/// `GetNewWindow(windowID: INTEGER; wStorage: Ptr; behind: WindowPtr): WindowPtr` from a
/// `WIND` resource (mac-facts §13.6).
fn get_new_window(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2, 4, 4], 4)?;
    let id = f.int(m, 0);
    let storage = f.long(m, 1);
    let behind = f.long(m, 2);
    let done = m.toolbox().initialized.windows;
    require(m, call, done, "InitWindows")?;
    check_behind(m, call, behind)?;
    let Some(d) = m.toolbox().rm.data(b"WIND", id).map(<[u8]>::to_vec) else {
        // "If the window template can't be read, GetNewWindow returns NIL" (IM Toolbox
        // Essentials, Window Manager): the application must check.
        return f.ret(m, call, Ret::Long(0));
    };
    if d.len() < 19 || d.len() < 19 + d[18] as usize {
        return Err(f.misuse(format!("WIND {id} is truncated ({} bytes)", d.len())));
    }
    let r = |o: usize| i16::from_be_bytes([d[o], d[o + 1]]);
    let bounds = [r(0), r(2), r(4), r(6)];
    let visible = d[10] != 0;
    let go_away = d[12] != 0;
    let refcon = u32::from_be_bytes([d[14], d[15], d[16], d[17]]);
    let title = d[19..19 + d[18] as usize].to_vec();
    let w = create(
        m,
        call,
        storage,
        bounds,
        title,
        visible,
        go_away,
        refcon,
        behind,
        WindowKind::Document,
        WINDOW_RECORD_LEN,
    )?;
    f.ret(m, call, Ret::Long(w))
}

/// `behind` must be -1 (in front), NIL (at the back) or a live window.
fn check_behind(m: &mut Machine, call: &TrapCall, behind: u32) -> Result<(), Fault> {
    if behind != 0xFFFF_FFFF
        && behind != 0
        && !m.toolbox().wm.windows.iter().any(|w| w.ptr == behind)
    {
        return Err(Fault::misuse(
            call.word,
            format!(
                "_{}: behind = ${behind:08X} is neither -1, NIL nor a window",
                call.name
            ),
        ));
    }
    Ok(())
}

/// `DisposeWindow(w)` / `CloseWindow(w)` (caller's storage stays).
fn dispose_window(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let w = f.long(m, 0);
    if m.toolbox()
        .wm
        .windows
        .iter()
        .any(|x| x.ptr == w && x.kind == WindowKind::Dialog)
    {
        return Err(f.misuse(format!(
            "${w:08X} is a dialog: dispose of it with DisposeDialog"
        )));
    }
    dispose(m, call, w, call.number() == 0x114)?;
    f.ret(m, call, Ret::None)
}

fn window_arg(m: &mut Machine, f: &Frame, i: usize) -> Result<u32, Fault> {
    let w = f.long(m, i);
    if m.toolbox().wm.windows.iter().any(|x| x.ptr == w) {
        Ok(w)
    } else {
        Err(f.misuse(format!("${w:08X} is not a live window")))
    }
}

/// `BeginUpdate(w)` / `EndUpdate(w)`.
fn begin_end_update(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let ptr = window_arg(m, &f, 0)?;
    let begin = call.number() == 0x122;
    let w = m
        .toolbox()
        .wm
        .windows
        .iter_mut()
        .find(|x| x.ptr == ptr)
        .unwrap();
    if begin {
        if w.in_update {
            return Err(f.misuse("BeginUpdate twice without EndUpdate".into()));
        }
        w.in_update = true;
        w.needs_update = false;
    } else {
        if !w.in_update {
            return Err(f.misuse("EndUpdate without BeginUpdate".into()));
        }
        w.in_update = false;
    }
    f.ret(m, call, Ret::None)
}

/// `FindWindow(thePoint: Point; VAR theWindow: WindowPtr): INTEGER`.
fn find_window(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4], 2)?;
    let pt = f.long(m, 0);
    let var = f.long(m, 1);
    check_range(m, call.word, "FindWindow's VAR window", var, 4, true)?;
    let (v, h) = ((pt >> 16) as i16, pt as i16);
    let (code, w) = if v < MENU_BAR_HEIGHT {
        (IN_MENU_BAR, 0)
    } else if let Some(w) = m.toolbox().wm.windows.iter().find(|w| {
        w.visible
            && (w.bounds[0]..w.bounds[2]).contains(&v)
            && (w.bounds[1]..w.bounds[3]).contains(&h)
    }) {
        (IN_CONTENT, w.ptr)
    } else {
        (IN_DESK, 0)
    };
    m.write_u32(var, w);
    f.ret(m, call, Ret::Word(code))
}

/// `FrontWindow: WindowPtr`.
fn front_window(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 4)?;
    let w = m
        .toolbox()
        .wm
        .windows
        .iter()
        .find(|w| w.visible)
        .map_or(0, |w| w.ptr);
    f.ret(m, call, Ret::Long(w))
}

/// `SelectWindow(w)`: bring to front.
fn select_window(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let ptr = window_arg(m, &f, 0)?;
    let wm = &mut m.toolbox().wm;
    let i = wm.windows.iter().position(|w| w.ptr == ptr).unwrap();
    let w = wm.windows.remove(i);
    wm.windows.insert(0, w);
    wm.activate.push(ptr);
    f.ret(m, call, Ret::None)
}

/// `SetWTitle(w; title: Str255)`.
fn set_w_title(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4], 0)?;
    let ptr = window_arg(m, &f, 0)?;
    let t = read_str255(m, call.word, "title", f.long(m, 1))?;
    m.toolbox()
        .wm
        .windows
        .iter_mut()
        .find(|w| w.ptr == ptr)
        .unwrap()
        .title = t;
    f.ret(m, call, Ret::None)
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA912, "InitWindows", init_windows);
    m.register_trap(0xA913, "NewWindow", new_window);
    m.register_trap(0xAA45, "NewCWindow", new_window);
    m.register_trap(0xA9BD, "GetNewWindow", get_new_window);
    m.register_trap(0xA914, "DisposeWindow", dispose_window);
    m.register_trap(0xA92D, "CloseWindow", dispose_window);
    m.register_trap(0xA922, "BeginUpdate", begin_end_update);
    m.register_trap(0xA923, "EndUpdate", begin_end_update);
    m.register_trap(0xA92C, "FindWindow", find_window);
    m.register_trap(0xA924, "FrontWindow", front_window);
    m.register_trap(0xA91F, "SelectWindow", select_window);
    m.register_trap(0xA91A, "SetWTitle", set_w_title);
}
