//! Dialog Manager model (and `TEInit`): dialogs from `DLOG`/`DITL`, alerts from
//! `ALRT`/`DITL` (mac-facts §13.6), `ParamText` substitution, item texts. Modal interaction
//! comes from the script: `ModalDialog` and the alerts take the next [`Input::DialogItem`]
//! (or [`Input::Return`] for the default item); anything else is a script error.
//!
//! Text items (static and edit) get a real handle holding their text, so
//! `GetDialogItem`/`SetDialogItemText` work on handles as on a Mac; buttons, check boxes and
//! radio buttons get a control handle ([`super::controls`]). [`Input::Type`] types into an
//! edit-text item, one keystroke per `ModalDialog` call (each returns the item when it is
//! enabled), the first replacing the whole text. Not modelled (fail as unimplemented or misuse): filter procedures, modeless dialogs
//! (`IsDialogEvent`/`DialogSelect`), `NewDialog`, alert stages beyond the first (every alert
//! is treated as stage 1: modelling choice).

use super::{
    AlertKind, Frame, Input, Ret, Seen, WindowKind, check_range, read_str255, require, take_input,
    write_rect,
};
use crate::error::Fault;
use crate::machine::Machine;
use crate::memory_manager::ZoneId;
use crate::traps::TrapCall;

/// `sizeof(DialogRecord)`: a WindowRecord + items, textH, editField, editOpen, aDefItem
/// (IM Toolbox Essentials; UNVERIFIED here).
pub const DIALOG_RECORD_LEN: u32 = 170;
/// `items` (handle to the item list) in the DialogRecord.
pub const DIALOG_ITEMS: u32 = 156;
/// `aDefItem` (word).
pub const DIALOG_DEF_ITEM: u32 = 168;
// DLOG (mac-facts §13.6).
const DLOG_VISIBLE: usize = 10;
const DLOG_GO_AWAY: usize = 12;
const DLOG_REFCON: usize = 14;
const DLOG_DITL: usize = 18;
const DLOG_TITLE: usize = 20;
// ALRT (mac-facts §13.6).
const ALRT_DITL: usize = 8;
const ALRT_STAGES: usize = 10;
// DITL item types (mac-facts §13.6).
pub const BUTTON: u8 = 4;
pub const CHECKBOX: u8 = 5;
pub const RADIO: u8 = 6;
pub const STAT_TEXT: u8 = 8;
pub const EDIT_TEXT: u8 = 16;
pub const ITEM_DISABLE: u8 = 0x80;

/// One dialog item.
#[derive(Debug, Clone)]
pub struct DItem {
    /// Type byte as in the DITL (disabled bit included).
    pub kind: u8,
    pub rect: [i16; 4],
    pub text: Vec<u8>,
    /// Handle of the text (text-bearing items), else 0.
    pub handle: u32,
}

impl DItem {
    fn base(&self) -> u8 {
        self.kind & !ITEM_DISABLE
    }
    fn has_text(&self) -> bool {
        matches!(self.base(), STAT_TEXT | EDIT_TEXT)
    }
    /// Buttons, check boxes and radio buttons: their handle is a control handle.
    pub(crate) fn is_control(&self) -> bool {
        matches!(self.base(), BUTTON | CHECKBOX | RADIO)
    }
}

/// One dialog.
#[derive(Debug, Clone)]
pub struct Dialog {
    pub ptr: u32,
    pub title: String,
    pub items: Vec<DItem>,
    pub items_handle: u32,
    pub shown: bool,
}

/// Dialog Manager state.
#[derive(Default)]
pub struct DialogState {
    pub dialogs: Vec<Dialog>,
    /// `^0`–`^3`.
    pub params: [Vec<u8>; 4],
    /// Keys of an [`Input::Type`] still to be typed: (edit-text item, character, whether it
    /// replaces the item's whole text — the first one, typed over the selection).
    pub typing: std::collections::VecDeque<(i16, u8, bool)>,
}

/// Parse a DITL.
pub fn parse_ditl(d: &[u8]) -> Result<Vec<DItem>, String> {
    if d.len() < 2 {
        return Err("shorter than its count".into());
    }
    let n = u16::from_be_bytes([d[0], d[1]]) as usize + 1;
    let mut at = 2;
    let mut items = Vec::new();
    for i in 0..n {
        let h = d
            .get(at..at + 14)
            .ok_or(format!("item {} runs past the end", i + 1))?;
        let r = |o: usize| i16::from_be_bytes([h[o], h[o + 1]]);
        let rect = [r(4), r(6), r(8), r(10)];
        let kind = h[12];
        let len = h[13] as usize;
        let text = d
            .get(at + 14..at + 14 + len)
            .ok_or(format!("item {} data runs past the end", i + 1))?
            .to_vec();
        at += 14 + len + (len & 1);
        items.push(DItem {
            kind,
            rect,
            text,
            handle: 0,
        });
    }
    Ok(items)
}

fn substitute(m: &mut Machine, text: &[u8]) -> Vec<u8> {
    let params = m.toolbox().dm.params.clone();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'^' && i + 1 < text.len() && (b'0'..=b'3').contains(&text[i + 1]) {
            out.extend_from_slice(&params[(text[i + 1] - b'0') as usize]);
            i += 2;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

fn dialogs_ready(m: &mut Machine, call: &TrapCall) -> Result<(), Fault> {
    let d = m.toolbox().initialized.dialogs;
    require(m, call, d, "InitDialogs")
}

/// `TEInit`.
fn te_init(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 0)?;
    let w = m.toolbox().initialized.windows;
    require(m, call, w, "InitWindows")?;
    m.toolbox().initialized.te = true;
    f.ret(m, call, Ret::None)
}

/// `InitDialogs(resumeProc: ProcPtr)` (after TEInit; resumeProc must be NIL under System 7).
fn init_dialogs(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let i = m.toolbox().initialized;
    require(m, call, i.windows, "InitWindows")?;
    require(m, call, i.te, "TEInit")?;
    let p = f.long(m, 0);
    if p != 0 {
        return Err(f.misuse(format!("resumeProc ${p:08X}: pass NIL (mac-facts §13.5)")));
    }
    m.toolbox().initialized.dialogs = true;
    f.ret(m, call, Ret::None)
}

fn new_text_handle(m: &mut Machine, call: &TrapCall, text: &[u8]) -> Result<u32, Fault> {
    let (mm, bus) = m.memory_manager_and_bus();
    let h = mm
        .new_handle(bus, ZoneId::Application, text.len() as u32, false)
        .map_err(|e| Fault::misuse(call.word, format!("no room for an item's text: {e}")))?;
    let p = m.read_u32(h);
    m.write_bytes(p, text);
    Ok(h)
}

/// `GetNewDialog(dialogID: INTEGER; dStorage: Ptr; behind: WindowPtr): DialogPtr`.
fn get_new_dialog(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2, 4, 4], 4)?;
    dialogs_ready(m, call)?;
    let id = f.int(m, 0);
    let storage = f.long(m, 1);
    let behind = f.long(m, 2);
    let Some(d) = m.toolbox().rm.data(b"DLOG", id).map(<[u8]>::to_vec) else {
        return Err(f.misuse(format!("no DLOG {id} in the application's resources")));
    };
    if d.len() < DLOG_TITLE + 1 || d.len() < DLOG_TITLE + 1 + d[DLOG_TITLE] as usize {
        return Err(f.misuse(format!("DLOG {id} is truncated")));
    }
    let r = |o: usize| i16::from_be_bytes([d[o], d[o + 1]]);
    let bounds = [r(0), r(2), r(4), r(6)];
    let ditl_id = r(DLOG_DITL);
    let title = d[DLOG_TITLE + 1..DLOG_TITLE + 1 + d[DLOG_TITLE] as usize].to_vec();
    let Some(ditl) = m.toolbox().rm.data(b"DITL", ditl_id).map(<[u8]>::to_vec) else {
        return Err(f.misuse(format!(
            "DLOG {id} names DITL {ditl_id}, which the application lacks"
        )));
    };
    let mut items = parse_ditl(&ditl).map_err(|e| f.misuse(format!("DITL {ditl_id}: {e}")))?;
    let refcon = u32::from_be_bytes(d[DLOG_REFCON..DLOG_REFCON + 4].try_into().unwrap());
    let ptr = super::windows::create(
        m,
        call,
        storage,
        bounds,
        title.clone(),
        d[DLOG_VISIBLE] != 0,
        d[DLOG_GO_AWAY] != 0,
        refcon,
        behind,
        WindowKind::Dialog,
        DIALOG_RECORD_LEN,
    )?;
    for it in &mut items {
        if it.has_text() {
            it.handle = new_text_handle(m, call, &it.text)?;
        } else if it.is_control() {
            it.handle = super::controls::new_control(m, call, ptr, it.rect, &it.text)?;
        }
    }
    let items_handle = new_text_handle(m, call, &ditl)?;
    m.write_u32(ptr + DIALOG_ITEMS, items_handle);
    m.write_u16(ptr + DIALOG_DEF_ITEM, 1);
    let title = super::mac_roman_text(&title);
    m.toolbox().dm.dialogs.push(Dialog {
        ptr,
        title,
        items,
        items_handle,
        shown: false,
    });
    f.ret(m, call, Ret::Long(ptr))
}

fn dialog_index(m: &mut Machine, f: &Frame, d: u32) -> Result<usize, Fault> {
    m.toolbox()
        .dm
        .dialogs
        .iter()
        .position(|x| x.ptr == d)
        .ok_or_else(|| f.misuse(format!("${d:08X} is not a live dialog")))
}

/// The next scripted answer for a modal dialog or alert with `items`: an enabled item number.
fn scripted_hit(
    m: &mut Machine,
    call: &TrapCall,
    items: &[DItem],
    default: i16,
    what: &str,
) -> Result<i16, Fault> {
    let Some(input) = take_input(m, |i| matches!(i, Input::DialogItem(_) | Input::Return)) else {
        let next = m.toolbox().script.front().cloned();
        return Err(Fault::setup(match next {
            None => format!(
                "script: it ended while {what} waits for the user (_{})",
                call.name
            ),
            Some(i) => format!(
                "script: {i:?} is next, but {what} is up (_{}) and needs a DialogItem or Return",
                call.name
            ),
        }));
    };
    let n = match input {
        Input::DialogItem(n) => n,
        _ => default,
    };
    let ok =
        n >= 1 && (n as usize) <= items.len() && items[n as usize - 1].kind & ITEM_DISABLE == 0;
    if !ok {
        return Err(Fault::setup(format!(
            "script: item {n} of {what} cannot be clicked (it has {} items; disabled ones do not answer)",
            items.len()
        )));
    }
    Ok(n)
}

/// `ModalDialog(filterProc: ProcPtr; VAR itemHit: INTEGER)`.
fn modal_dialog(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4], 0)?;
    dialogs_ready(m, call)?;
    let filter = f.long(m, 0);
    let var = f.long(m, 1);
    if filter != 0 {
        return Err(f.misuse(format!(
            "filterProc ${filter:08X}: filter procedures are not modelled (pass NIL)"
        )));
    }
    check_range(m, call.word, "ModalDialog's VAR itemHit", var, 2, true)?;
    let front = m
        .toolbox()
        .wm
        .windows
        .iter()
        .find(|w| w.visible)
        .map(|w| w.ptr);
    let Some(i) = front.and_then(|p| m.toolbox().dm.dialogs.iter().position(|d| d.ptr == p)) else {
        return Err(f.misuse("the front window is not a visible dialog".into()));
    };
    let dlg = m.toolbox().dm.dialogs[i].clone();
    if !dlg.shown {
        let items = dlg
            .items
            .iter()
            .map(|it| super::mac_roman_text(&substitute(m, &it.text)))
            .collect();
        let tb = m.toolbox();
        tb.dm.dialogs[i].shown = true;
        tb.screen.seen.push(Seen::Dialog {
            title: dlg.title.clone(),
            items,
        });
    }
    // Keystrokes into an edit-text item: each one goes into the item's text, and ModalDialog
    // returns that item when it is enabled (IM Toolbox Essentials, ModalDialog).
    loop {
        if m.toolbox().dm.typing.is_empty()
            && let Some(Input::Type { item, text }) =
                take_input(m, |i| matches!(i, Input::Type { .. }))
        {
            let ok = item >= 1
                && (item as usize) <= dlg.items.len()
                && dlg.items[item as usize - 1].base() == EDIT_TEXT;
            if !ok {
                return Err(Fault::setup(format!(
                    "script: item {item} of dialog {:?} is not an edit-text item",
                    dlg.title
                )));
            }
            let mut keys = Vec::new();
            for (n, c) in text.chars().enumerate() {
                let b = u8::try_from(c as u32)
                    .ok()
                    .filter(|b| (0x20..0x7F).contains(b))
                    .ok_or_else(|| {
                        Fault::setup(format!("script: cannot type {c:?} (ASCII only)"))
                    })?;
                keys.push((item, b, n == 0));
            }
            if keys.is_empty() {
                // Selecting all and pressing Delete.
                keys.push((item, 0x08, true));
            }
            m.toolbox().dm.typing.extend(keys);
        }
        let Some((item, key, replace)) = m.toolbox().dm.typing.pop_front() else {
            break;
        };
        let k = item as usize - 1;
        let h = m.toolbox().dm.dialogs[i].items[k].handle;
        let mut text = if replace {
            Vec::new()
        } else {
            m.toolbox().dm.dialogs[i].items[k].text.clone()
        };
        if key != 0x08 {
            text.push(key);
        }
        if text.len() > 255 {
            return Err(Fault::setup(String::from(
                "script: typed past 255 characters",
            )));
        }
        let (mm, bus) = m.memory_manager_and_bus();
        mm.set_handle_size(bus, h, text.len() as u32)
            .map_err(|e| f.misuse(format!("edit-text handle: {e}")))?
            .map_err(|e| f.misuse(format!("cannot grow the edit-text handle (error {e})")))?;
        let p = m.read_u32(h);
        m.write_bytes(p, &text);
        let tb = m.toolbox();
        tb.dm.dialogs[i].items[k].text = text.clone();
        if tb.dm.typing.is_empty() {
            tb.screen.seen.push(Seen::Typed {
                dialog: dlg.title.clone(),
                item,
                text: super::mac_roman_text(&text),
            });
        }
        if dlg.items[k].kind & ITEM_DISABLE == 0 {
            m.write_u16(var, item as u16);
            return f.ret(m, call, Ret::None);
        }
    }
    let default = m.read_u16(dlg.ptr + DIALOG_DEF_ITEM) as i16;
    let hit = scripted_hit(
        m,
        call,
        &dlg.items,
        default,
        &format!("dialog {:?}", dlg.title),
    )?;
    m.toolbox().screen.seen.push(Seen::DialogHit {
        dialog: dlg.title.clone(),
        item: hit,
    });
    m.write_u16(var, hit as u16);
    f.ret(m, call, Ret::None)
}

/// `Alert`/`StopAlert`/`NoteAlert`/`CautionAlert(alertID: INTEGER; filterProc: ProcPtr):
/// INTEGER`.
fn alert(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2, 4], 2)?;
    dialogs_ready(m, call)?;
    let id = f.int(m, 0);
    let filter = f.long(m, 1);
    if filter != 0 {
        return Err(f.misuse(format!(
            "filterProc ${filter:08X}: filter procedures are not modelled (pass NIL)"
        )));
    }
    let kind = match call.number() {
        0x186 => AlertKind::Stop,
        0x187 => AlertKind::Note,
        0x188 => AlertKind::Caution,
        _ => AlertKind::Plain,
    };
    let Some(a) = m.toolbox().rm.data(b"ALRT", id).map(<[u8]>::to_vec) else {
        return Err(f.misuse(format!("no ALRT {id} in the application's resources")));
    };
    if a.len() < 12 {
        return Err(f.misuse(format!("ALRT {id} is {} bytes, shorter than 12", a.len())));
    }
    let ditl_id = i16::from_be_bytes([a[ALRT_DITL], a[ALRT_DITL + 1]]);
    let stages = u16::from_be_bytes([a[ALRT_STAGES], a[ALRT_STAGES + 1]]);
    let Some(ditl) = m.toolbox().rm.data(b"DITL", ditl_id).map(<[u8]>::to_vec) else {
        return Err(f.misuse(format!(
            "ALRT {id} names DITL {ditl_id}, which the application lacks"
        )));
    };
    let items = parse_ditl(&ditl).map_err(|e| f.misuse(format!("DITL {ditl_id}: {e}")))?;
    // Stage 1 = the bottom nibble (mac-facts §13.6).
    let stage = stages & 0xF;
    m.stats_mut().beeps += (stage & 3) as u32;
    if stage & 4 == 0 {
        // The box is not drawn at this stage: IM says Alert returns -1 then.
        return f.ret(m, call, Ret::Word(0xFFFF));
    }
    let default = if stage & 8 != 0 { 2 } else { 1 };
    let texts = items
        .iter()
        .filter(|i| matches!(i.base(), STAT_TEXT | EDIT_TEXT))
        .map(|i| super::mac_roman_text(&substitute(m, &i.text)))
        .collect();
    let buttons = items
        .iter()
        .filter(|i| i.base() == BUTTON)
        .map(|i| super::mac_roman_text(&i.text))
        .collect();
    super::render::alert_shown(m, kind, &a, &items, default);
    let hit = scripted_hit(m, call, &items, default, &format!("alert {id}"))?;
    super::render::alert_gone(m);
    m.toolbox().screen.seen.push(Seen::Alert {
        kind,
        id,
        texts,
        buttons,
        hit,
    });
    f.ret(m, call, Ret::Word(hit as u16))
}

/// `ParamText(param0, param1, param2, param3: Str255)` (NIL = empty; modelling choice).
fn param_text(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4, 4, 4], 0)?;
    let mut params: [Vec<u8>; 4] = Default::default();
    for (i, p) in params.iter_mut().enumerate() {
        let a = f.long(m, i);
        if a != 0 {
            *p = read_str255(m, call.word, &format!("ParamText's param{i}"), a)?;
        }
    }
    m.toolbox().dm.params = params;
    f.ret(m, call, Ret::None)
}

/// `GetDialogItem(theDialog; itemNo: INTEGER; VAR itemType: INTEGER; VAR item: Handle;
/// VAR box: Rect)`.
fn get_dialog_item(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 2, 4, 4, 4], 0)?;
    let d = f.long(m, 0);
    let i = dialog_index(m, &f, d)?;
    let n = f.int(m, 1);
    let (vt, vh, vb) = (f.long(m, 2), f.long(m, 3), f.long(m, 4));
    check_range(m, call.word, "VAR itemType", vt, 2, true)?;
    check_range(m, call.word, "VAR item", vh, 4, true)?;
    check_range(m, call.word, "VAR box", vb, 8, true)?;
    let items = m.toolbox().dm.dialogs[i].items.clone();
    let Some(it) = usize::try_from(n)
        .ok()
        .filter(|&k| k >= 1)
        .and_then(|k| items.get(k - 1))
    else {
        return Err(f.misuse(format!("item {n} of a {}-item dialog", items.len())));
    };
    m.write_u16(vt, it.kind as u16);
    m.write_u32(vh, it.handle);
    write_rect(m, vb, it.rect);
    f.ret(m, call, Ret::None)
}

fn find_item_handle(m: &mut Machine, h: u32) -> Option<(usize, usize)> {
    m.toolbox()
        .dm
        .dialogs
        .iter()
        .enumerate()
        .find_map(|(d, dlg)| {
            dlg.items
                .iter()
                .position(|it| it.handle == h && h != 0)
                .map(|k| (d, k))
        })
}

/// `SetDialogItemText(item: Handle; text: Str255)`: static and edit text items only.
fn set_dialog_item_text(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4], 0)?;
    let h = f.long(m, 0);
    let text = read_str255(m, call.word, "the text", f.long(m, 1))?;
    let Some((d, k)) = find_item_handle(m, h) else {
        return Err(f.misuse(format!("${h:08X} is not the handle of a dialog item")));
    };
    if !matches!(
        m.toolbox().dm.dialogs[d].items[k].base(),
        STAT_TEXT | EDIT_TEXT
    ) {
        return Err(f.misuse(format!(
            "item {} is not a static or edit text item (controls have control handles)",
            k + 1
        )));
    }
    let (mm, bus) = m.memory_manager_and_bus();
    mm.set_handle_size(bus, h, text.len() as u32)
        .map_err(|e| f.misuse(format!("item text handle: {e}")))?
        .map_err(|e| f.misuse(format!("cannot grow the item text handle (error {e})")))?;
    let p = m.read_u32(h);
    m.write_bytes(p, &text);
    let tb = m.toolbox();
    tb.dm.dialogs[d].items[k].text = text.clone();
    let dialog = tb.dm.dialogs[d].title.clone();
    tb.screen.seen.push(Seen::DialogItemText {
        dialog,
        item: k as i16 + 1,
        text: super::mac_roman_text(&text),
    });
    f.ret(m, call, Ret::None)
}

/// `GetDialogItemText(item: Handle; VAR text: Str255)`.
fn get_dialog_item_text(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4], 0)?;
    let h = f.long(m, 0);
    let var = f.long(m, 1);
    check_range(m, call.word, "VAR text", var, 256, false)?;
    let Some((d, k)) = find_item_handle(m, h) else {
        return Err(f.misuse(format!("${h:08X} is not the handle of a dialog item")));
    };
    if !m.toolbox().dm.dialogs[d].items[k].has_text() {
        return Err(f.misuse(format!(
            "item {} is a control: its handle is a ControlHandle, not text",
            k + 1
        )));
    }
    let t = m.toolbox().dm.dialogs[d].items[k].text.clone();
    m.write_pstring(var, &t);
    f.ret(m, call, Ret::None)
}

/// `SelectDialogItemText(theDialog; itemNo, strtSel, endSel: INTEGER)`: edit text only.
fn select_dialog_item_text(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 2, 2, 2], 0)?;
    let d = f.long(m, 0);
    let i = dialog_index(m, &f, d)?;
    let n = f.int(m, 1);
    let items = &m.toolbox().dm.dialogs[i].items;
    if !(n >= 1 && (n as usize) <= items.len() && items[n as usize - 1].base() == EDIT_TEXT) {
        return Err(f.misuse(format!("item {n} is not an edit text item")));
    }
    f.ret(m, call, Ret::None)
}

/// `DrawDialog(theDialog)`.
fn draw_dialog(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let d = f.long(m, 0);
    dialog_index(m, &f, d)?;
    f.ret(m, call, Ret::None)
}

/// `DisposeDialog(theDialog)` / `CloseDialog(theDialog)` (caller's storage stays).
fn dispose_dialog(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let d = f.long(m, 0);
    let i = dialog_index(m, &f, d)?;
    let dlg = m.toolbox().dm.dialogs.remove(i);
    m.toolbox().dm.typing.clear();
    for h in dlg
        .items
        .iter()
        .map(|it| it.handle)
        .filter(|&h| h != 0)
        .chain([dlg.items_handle])
    {
        let (mm, bus) = m.memory_manager_and_bus();
        mm.dispose_handle(bus, h)
            .map_err(|e| f.misuse(format!("dialog item handle: {e}")))?;
    }
    super::windows::dispose(m, call, d, call.number() == 0x183)?;
    f.ret(m, call, Ret::None)
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA9CC, "TEInit", te_init);
    m.register_trap(0xA97B, "InitDialogs", init_dialogs);
    m.register_trap(0xA97C, "GetNewDialog", get_new_dialog);
    m.register_trap(0xA991, "ModalDialog", modal_dialog);
    m.register_trap(0xA985, "Alert", alert);
    m.register_trap(0xA986, "StopAlert", alert);
    m.register_trap(0xA987, "NoteAlert", alert);
    m.register_trap(0xA988, "CautionAlert", alert);
    m.register_trap(0xA98B, "ParamText", param_text);
    m.register_trap(0xA98D, "GetDialogItem", get_dialog_item);
    m.register_trap(0xA98F, "SetDialogItemText", set_dialog_item_text);
    m.register_trap(0xA990, "GetDialogItemText", get_dialog_item_text);
    m.register_trap(0xA97E, "SelectDialogItemText", select_dialog_item_text);
    m.register_trap(0xA981, "DrawDialog", draw_dialog);
    m.register_trap(0xA983, "DisposeDialog", dispose_dialog);
    m.register_trap(0xA982, "CloseDialog", dispose_dialog);
}
