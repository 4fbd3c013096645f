//! Safe wrappers over the trap glue: the Toolbox as the application uses it.
//!
//! Handles, windows and menus are plain addresses ([`Handle`], [`WindowPtr`], [`MenuHandle`]);
//! the Toolbox owns what they point to.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::event::{EventRecord, MenuChoice, Rect};
use crate::pstr::Str255;
use crate::sys;
use zerocopy::IntoBytes;

pub type Handle = u32;
pub type WindowPtr = u32;
pub type MenuHandle = u32;

/// The QuickDraw globals (206 bytes; `thePort` is the last field, the one `InitGraf` gets).
#[repr(C, align(2))]
struct QdGlobals(UnsafeCell<[u8; QD_GLOBALS_LEN]>);
// SAFETY: one thread; QuickDraw alone writes the block after InitGraf.
unsafe impl Sync for QdGlobals {}
const QD_GLOBALS_LEN: usize = 206;
const THE_PORT: usize = 202;
static QD: QdGlobals = QdGlobals(UnsafeCell::new([0; QD_GLOBALS_LEN]));

static INITIALISED: AtomicBool = AtomicBool::new(false);

/// Whether [`init`] has run (alerts need the Dialog Manager).
pub fn initialised() -> bool {
    INITIALISED.load(Ordering::Relaxed)
}

/// `CurStackBase` ($908): the base (highest address) of the application's stack.
const CUR_STACK_BASE: usize = 0x908;
/// `ApplLimit` ($130): how far the application heap may grow; the stack lies above it.
const APPL_LIMIT: usize = 0x130;

/// Give the application a stack of at least `stack` bytes: `SetApplLimit(CurStackBase −
/// stack)` when the default stack is smaller (8 KB on the Plus, SE and Classic; IM Memory,
/// "Changing the Size of the Stack"). Must run before `MaxApplZone`, which grows the heap up
/// to the limit for good.
fn reserve_stack(stack: u32) {
    // SAFETY: reads two documented low-memory globals (long, even addresses).
    let (base, limit) = unsafe {
        (
            core::ptr::read_volatile(CUR_STACK_BASE as *const u32),
            core::ptr::read_volatile(APPL_LIMIT as *const u32),
        )
    };
    let want = base.wrapping_sub(stack) & !1;
    if want < limit {
        // SAFETY: the limit lies below the stack's base, above the heap (the partition is
        // large enough: SIZE's minimum); a refusal leaves the default stack.
        unsafe { sys::rt_SetApplLimit(want) };
    }
}

/// The standard start-up: InitGraf, InitFonts, InitWindows, InitMenus, TEInit, InitDialogs,
/// InitCursor, a stack of `stack` bytes (`SetApplLimit`), MaxApplZone, then
/// FlushEvents(everyEvent, 0).
pub fn init(stack: u32) {
    reserve_stack(stack);
    // SAFETY: called once at start-up, in this order (IM Toolbox Essentials ch. 1).
    unsafe {
        sys::rt_InitGraf((QD.0.get() as *mut u8).add(THE_PORT) as *mut u32);
        sys::rt_InitFonts();
        sys::rt_InitWindows();
        sys::rt_InitMenus();
        sys::rt_TEInit();
        sys::rt_InitDialogs(0);
        sys::rt_InitCursor();
        sys::rt_MaxApplZone();
        sys::rt_FlushEvents(0x0000_FFFF);
    }
    INITIALISED.store(true, Ordering::Relaxed);
}

/// Whether a trap is implemented on this Mac.
pub fn trap_available(trap: u16) -> bool {
    // SAFETY: only reads the trap tables.
    unsafe { sys::rt_TrapAvailable(trap as u32) != 0 }
}

/// `_Gestalt(selector)`, or `None` when Gestalt or the selector is missing.
pub fn gestalt(selector: [u8; 4]) -> Option<u32> {
    if !trap_available(0xA1AD) {
        return None;
    }
    let mut response = 0u32;
    // SAFETY: response is a valid long.
    let err = unsafe { sys::rt_Gestalt(u32::from_be_bytes(selector), &mut response) };
    (err == 0).then_some(response)
}

// ---- Menus ---------------------------------------------------------------------------------

/// Install the menu bar `MBAR id`, add the desk accessories to menu `apple`, draw it.
pub fn menu_bar(mbar: i16, apple: i16) {
    // SAFETY: the MBAR and MENU resources come with the application.
    unsafe {
        let list = sys::rt_GetNewMBar(mbar as i32);
        if list == 0 {
            panic!("no MBAR {mbar} resource");
        }
        sys::rt_SetMenuBar(list);
        let m = sys::rt_GetMenuHandle(apple as i32);
        if m != 0 {
            sys::rt_AppendResMenu(m, u32::from_be_bytes(*b"DRVR"));
        }
        sys::rt_DrawMenuBar();
    }
}

pub fn menu_handle(id: i16) -> MenuHandle {
    // SAFETY: plain query.
    unsafe { sys::rt_GetMenuHandle(id as i32) }
}

pub fn menu_select(where_: u32) -> Option<MenuChoice> {
    // SAFETY: plain call.
    MenuChoice::from_long(unsafe { sys::rt_MenuSelect(where_) })
}

pub fn menu_key(ch: u8) -> Option<MenuChoice> {
    // SAFETY: CHAR in the low byte of the word (the glue pushes the slot's low word).
    MenuChoice::from_long(unsafe { sys::rt_MenuKey(ch as u32) })
}

pub fn hilite_menu(id: i16) {
    // SAFETY: plain call.
    unsafe { sys::rt_HiliteMenu(id as i32) }
}

/// The text of an item (e.g. a desk accessory's name).
pub fn menu_item_text(menu: MenuHandle, item: i16) -> Str255 {
    let mut s = Str255::new();
    // SAFETY: s is a Str255.
    unsafe { sys::rt_GetMenuItemText(menu, item as i32, s.as_mut_ptr()) };
    s
}

/// `EnableItem`/`DisableItem` (item 0: the whole menu).
pub fn enable_item(menu: MenuHandle, item: i16, on: bool) {
    // SAFETY: menu came from menu_handle.
    unsafe {
        if on {
            sys::rt_EnableItem(menu, item as i32)
        } else {
            sys::rt_DisableItem(menu, item as i32)
        }
    }
}

pub fn open_desk_acc(name: &Str255) {
    // SAFETY: name is a Pascal string.
    unsafe { sys::rt_OpenDeskAcc(name.as_ptr()) };
}

/// `SystemEdit(item - 1)`: true when a desk accessory took the Edit command.
pub fn system_edit(item: i16) -> bool {
    // SAFETY: plain call.
    unsafe { sys::rt_SystemEdit((item - 1) as i32) != 0 }
}

// ---- Windows and drawing -------------------------------------------------------------------

/// `GetNewWindow(id, NIL, in front)`.
pub fn new_window(id: i16) -> WindowPtr {
    // SAFETY: the WIND resource comes with the application; the Toolbox allocates storage.
    let w = unsafe { sys::rt_GetNewWindow(id as i32, 0, 0xFFFF_FFFF) };
    if w == 0 {
        panic!("no WIND {id} resource (or no memory)");
    }
    w
}

pub fn dispose_window(w: WindowPtr) {
    // SAFETY: w came from new_window.
    unsafe { sys::rt_DisposeWindow(w) }
}

pub fn set_port(w: WindowPtr) {
    // SAFETY: w is a window.
    unsafe { sys::rt_SetPort(w) }
}

pub fn begin_update(w: WindowPtr) {
    // SAFETY: w is a window.
    unsafe { sys::rt_BeginUpdate(w) }
}

pub fn end_update(w: WindowPtr) {
    // SAFETY: w is a window.
    unsafe { sys::rt_EndUpdate(w) }
}

pub fn front_window() -> WindowPtr {
    // SAFETY: plain query.
    unsafe { sys::rt_FrontWindow() }
}

pub fn select_window(w: WindowPtr) {
    // SAFETY: w is a window.
    unsafe { sys::rt_SelectWindow(w) }
}

/// `FindWindow(where, &w)`: the part code and the window.
pub fn find_window(where_: u32) -> (i16, WindowPtr) {
    let mut w = 0u32;
    // SAFETY: w is a valid long.
    let part = unsafe { sys::rt_FindWindow(where_, &mut w) };
    (part as i16, w)
}

pub fn drag_window(w: WindowPtr, where_: u32, bounds: &Rect) {
    // SAFETY: bounds is a Rect.
    unsafe { sys::rt_DragWindow(w, where_, bounds.as_bytes().as_ptr()) }
}

pub fn system_click(evt: &EventRecord, w: WindowPtr) {
    // SAFETY: evt is an EventRecord.
    unsafe { sys::rt_SystemClick(evt.as_bytes().as_ptr(), w) }
}

pub fn inval_rect(r: &Rect) {
    // SAFETY: r is a Rect.
    unsafe { sys::rt_InvalRect(r.as_bytes().as_ptr()) }
}

pub fn erase_rect(r: &Rect) {
    // SAFETY: r is a Rect.
    unsafe { sys::rt_EraseRect(r.as_bytes().as_ptr()) }
}

pub fn frame_rect(r: &Rect) {
    // SAFETY: r is a Rect.
    unsafe { sys::rt_FrameRect(r.as_bytes().as_ptr()) }
}

pub fn paint_rect(r: &Rect) {
    // SAFETY: r is a Rect.
    unsafe { sys::rt_PaintRect(r.as_bytes().as_ptr()) }
}

pub fn invert_rect(r: &Rect) {
    // SAFETY: r is a Rect.
    unsafe { sys::rt_InvertRect(r.as_bytes().as_ptr()) }
}

/// The current port.
pub fn get_port() -> WindowPtr {
    let mut p = 0u32;
    // SAFETY: p is a valid long.
    unsafe { sys::rt_GetPort(&mut p) };
    p
}

/// `GlobalToLocal` of a `where` long (v high, h low) in the current port: `(h, v)`.
pub fn global_to_local(where_: u32) -> (i16, i16) {
    // A long in memory is the Point (v, h) on the 68k (big-endian, even address).
    let mut pt: u32 = where_;
    // SAFETY: pt is a 4-byte, aligned Point.
    unsafe { sys::rt_GlobalToLocal((&mut pt as *mut u32).cast()) };
    (pt as i16, (pt >> 16) as i16)
}

pub fn move_to(h: i16, v: i16) {
    // SAFETY: plain call.
    unsafe { sys::rt_MoveTo(h as i32, v as i32) }
}

pub fn line_to(h: i16, v: i16) {
    // SAFETY: plain call.
    unsafe { sys::rt_LineTo(h as i32, v as i32) }
}

pub fn draw_string(s: &Str255) {
    // SAFETY: s is a Pascal string.
    unsafe { sys::rt_DrawString(s.as_ptr()) }
}

/// Draw `s` (Mac Roman from UTF-8) at the pen.
pub fn draw_text(s: &str) {
    draw_string(&Str255::from_str(s));
}

pub fn text_font(font: i16) {
    // SAFETY: plain call.
    unsafe { sys::rt_TextFont(font as i32) }
}

pub fn text_size(size: i16) {
    // SAFETY: plain call.
    unsafe { sys::rt_TextSize(size as i32) }
}

// ---- Events --------------------------------------------------------------------------------

/// `WaitNextEvent` (when `wne`) or `SystemTask` + `GetNextEvent`.
pub fn next_event(wne: bool, sleep: u32, evt: &mut EventRecord) -> bool {
    // SAFETY: evt is a 16-byte EventRecord.
    unsafe {
        if wne {
            sys::rt_WaitNextEvent(
                crate::event::EVERY_EVENT as u32,
                evt.as_mut_bytes().as_mut_ptr(),
                sleep,
                0,
            ) != 0
        } else {
            sys::rt_SystemTask();
            sys::rt_GetNextEvent(
                crate::event::EVERY_EVENT as u32,
                evt.as_mut_bytes().as_mut_ptr(),
            ) != 0
        }
    }
}

/// Put `text` on the clipboard as its only `'TEXT'` (`ZeroScrap`, then `PutScrap`); the
/// Scrap Manager's result (0: done).
pub fn put_scrap_text(text: &[u8]) -> i32 {
    const TEXT: u32 = u32::from_be_bytes(*b"TEXT");
    // SAFETY: plain calls; `text` outlives them (PutScrap copies it).
    unsafe {
        let r = sys::rt_ZeroScrap();
        if r != 0 {
            return r;
        }
        sys::rt_PutScrap(text.len() as u32, TEXT, text.as_ptr())
    }
}

pub fn tick_count() -> u32 {
    // SAFETY: plain call.
    unsafe { sys::rt_TickCount() }
}

// ---- Alerts, resources, exit ---------------------------------------------------------------

/// `ParamText(^0, ^1, ^2, ^3)`.
pub fn param_text(p: [&Str255; 4]) {
    // SAFETY: Pascal strings; the Dialog Manager copies them.
    unsafe { sys::rt_ParamText(p[0].as_ptr(), p[1].as_ptr(), p[2].as_ptr(), p[3].as_ptr()) }
}

/// `NoteAlert(id, NIL)`: the item hit.
pub fn note_alert(id: i16) -> i16 {
    // SAFETY: the ALRT comes with the application.
    unsafe { sys::rt_NoteAlert(id as i32, 0) as i16 }
}

/// `StopAlert(id, NIL)`: the item hit.
pub fn stop_alert(id: i16) -> i16 {
    // SAFETY: the ALRT comes with the application.
    unsafe { sys::rt_StopAlert(id as i32, 0) as i16 }
}

/// `CautionAlert(id, NIL)`: the item hit.
pub fn caution_alert(id: i16) -> i16 {
    // SAFETY: the ALRT comes with the application.
    unsafe { sys::rt_CautionAlert(id as i32, 0) as i16 }
}

// ---- Dialogs and their controls ------------------------------------------------------------

pub type DialogPtr = u32;
pub type ControlHandle = u32;

/// `GetNewDialog(id, NIL, in front)`.
pub fn new_dialog(id: i16) -> DialogPtr {
    // SAFETY: the DLOG/DITL come with the application; the Toolbox allocates storage.
    let d = unsafe { sys::rt_GetNewDialog(id as i32, 0, 0xFFFF_FFFF) };
    if d == 0 {
        panic!("no DLOG {id} resource (or no memory)");
    }
    d
}

/// `ModalDialog(NIL, &hit)`: the item hit.
pub fn modal_dialog() -> i16 {
    let mut hit = 0i16;
    // SAFETY: hit is a valid word.
    unsafe { sys::rt_ModalDialog(0, &mut hit) };
    hit
}

/// `GetDialogItem`: the item's type, handle and box.
pub fn dialog_item(d: DialogPtr, item: i16) -> (i16, Handle, Rect) {
    let (mut kind, mut h, mut r) = (0i16, 0u32, Rect::default());
    // SAFETY: the three VARs are valid.
    unsafe {
        sys::rt_GetDialogItem(
            d,
            item as i32,
            &mut kind,
            &mut h,
            r.as_mut_bytes().as_mut_ptr(),
        )
    };
    (kind, h, r)
}

/// The text of a static or edit text item.
pub fn dialog_item_text(d: DialogPtr, item: i16) -> Str255 {
    let (_, h, _) = dialog_item(d, item);
    let mut s = Str255::new();
    // SAFETY: h is the item's text handle; s is a Str255.
    unsafe { sys::rt_GetDialogItemText(h, s.as_mut_ptr()) };
    s
}

pub fn set_dialog_item_text(d: DialogPtr, item: i16, text: &Str255) {
    let (_, h, _) = dialog_item(d, item);
    // SAFETY: h is the item's text handle.
    unsafe { sys::rt_SetDialogItemText(h, text.as_ptr()) };
}

/// Select all of an edit-text item.
pub fn select_dialog_item_text(d: DialogPtr, item: i16) {
    // SAFETY: plain call.
    unsafe { sys::rt_SelectDialogItemText(d, item as i32, 0, 32767) };
}

pub fn dispose_dialog(d: DialogPtr) {
    // SAFETY: d came from new_dialog.
    unsafe { sys::rt_DisposeDialog(d) };
}

/// The value of a control item (check box: 1 = checked).
pub fn control_value(d: DialogPtr, item: i16) -> i16 {
    let (_, h, _) = dialog_item(d, item);
    // SAFETY: h is the item's control handle.
    unsafe { sys::rt_GetControlValue(h) as i16 }
}

pub fn set_control_value(d: DialogPtr, item: i16, v: i16) {
    let (_, h, _) = dialog_item(d, item);
    // SAFETY: h is the item's control handle.
    unsafe { sys::rt_SetControlValue(h, v as i32) };
}

/// String `index` (1-based) of `STR# id`, like the Toolbox's `GetIndString` glue.
pub fn ind_string(id: i16, index: u16) -> Str255 {
    // SAFETY: the handle's block is read while locked, within its STR# layout.
    unsafe {
        let h = sys::rt_GetResource(u32::from_be_bytes(*b"STR#"), id as i32);
        if h == 0 {
            return Str255::new();
        }
        sys::rt_HLock(h);
        let p = *(h as *const *const u8);
        let count = u16::from_be_bytes([*p, *p.add(1)]);
        let mut s = Str255::new();
        if index >= 1 && index <= count {
            let mut q = p.add(2);
            for _ in 1..index {
                q = q.add(1 + *q as usize);
            }
            s.push_bytes(core::slice::from_raw_parts(q.add(1), *q as usize));
        }
        sys::rt_HUnlock(h);
        sys::rt_ReleaseResource(h);
        s
    }
}

pub fn sys_beep(ticks: i16) {
    // SAFETY: plain call.
    unsafe { sys::rt_SysBeep(ticks as i32) }
}

/// Back to the Finder.
pub fn exit_to_shell() -> ! {
    // SAFETY: never returns.
    unsafe { sys::rt_ExitToShell() }
}
