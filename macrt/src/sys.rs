//! The raw trap glue (`src/glue.S`). Every parameter is a 32-bit C slot: INTEGERs, CHARs and
//! Booleans go in the low bits, pointers and Points as longs (see the glue's header). Safe
//! wrappers are in [`crate::toolbox`]; call these only through them.
#![allow(non_snake_case, missing_docs)]

unsafe extern "C" {
    pub fn rt_InitGraf(the_port: *mut u32);
    pub fn rt_InitFonts();
    pub fn rt_InitWindows();
    pub fn rt_InitMenus();
    pub fn rt_TEInit();
    pub fn rt_InitDialogs(resume: u32);
    pub fn rt_InitCursor();
    pub fn rt_SetPort(port: u32);
    pub fn rt_MoveTo(h: i32, v: i32);
    pub fn rt_LineTo(h: i32, v: i32);
    pub fn rt_DrawString(s: *const u8);
    pub fn rt_TextFont(font: i32);
    pub fn rt_TextSize(size: i32);
    pub fn rt_EraseRect(r: *const u8);
    pub fn rt_InvalRect(r: *const u8);
    pub fn rt_FrameRect(r: *const u8);
    pub fn rt_PaintRect(r: *const u8);
    pub fn rt_InvertRect(r: *const u8);
    pub fn rt_GlobalToLocal(pt: *mut u8);
    pub fn rt_GetPort(port: *mut u32);

    pub fn rt_GetNewWindow(id: i32, storage: u32, behind: u32) -> u32;
    pub fn rt_DisposeWindow(w: u32);
    pub fn rt_BeginUpdate(w: u32);
    pub fn rt_EndUpdate(w: u32);
    pub fn rt_FindWindow(pt: u32, w: *mut u32) -> i32;
    pub fn rt_SelectWindow(w: u32);
    pub fn rt_FrontWindow() -> u32;
    pub fn rt_DragWindow(w: u32, pt: u32, bounds: *const u8);
    pub fn rt_SystemClick(evt: *const u8, w: u32);

    pub fn rt_GetNewMBar(id: i32) -> u32;
    pub fn rt_SetMenuBar(list: u32);
    pub fn rt_DrawMenuBar();
    pub fn rt_GetMenuHandle(id: i32) -> u32;
    pub fn rt_AppendResMenu(menu: u32, rtype: u32);
    pub fn rt_MenuSelect(pt: u32) -> u32;
    pub fn rt_MenuKey(ch: u32) -> u32;
    pub fn rt_HiliteMenu(id: i32);
    pub fn rt_GetMenuItemText(menu: u32, item: i32, s: *mut u8);
    pub fn rt_OpenDeskAcc(name: *const u8) -> i32;
    pub fn rt_SystemEdit(cmd: i32) -> u32;
    pub fn rt_EnableItem(menu: u32, item: i32);
    pub fn rt_DisableItem(menu: u32, item: i32);

    pub fn rt_WaitNextEvent(mask: u32, evt: *mut u8, sleep: u32, rgn: u32) -> u32;
    pub fn rt_GetNextEvent(mask: u32, evt: *mut u8) -> u32;
    pub fn rt_SystemTask();
    pub fn rt_TickCount() -> u32;

    pub fn rt_ParamText(a: *const u8, b: *const u8, c: *const u8, d: *const u8);
    pub fn rt_NoteAlert(id: i32, filter: u32) -> i32;
    pub fn rt_StopAlert(id: i32, filter: u32) -> i32;
    pub fn rt_CautionAlert(id: i32, filter: u32) -> i32;
    pub fn rt_GetNewDialog(id: i32, storage: u32, behind: u32) -> u32;
    pub fn rt_ModalDialog(filter: u32, item_hit: *mut i16);
    pub fn rt_GetDialogItem(d: u32, item: i32, kind: *mut i16, h: *mut u32, r: *mut u8);
    pub fn rt_GetDialogItemText(h: u32, s: *mut u8);
    pub fn rt_SetDialogItemText(h: u32, s: *const u8);
    pub fn rt_SelectDialogItemText(d: u32, item: i32, start: i32, end: i32);
    pub fn rt_DisposeDialog(d: u32);
    pub fn rt_GetControlValue(c: u32) -> i32;
    pub fn rt_SetControlValue(c: u32, v: i32);

    pub fn rt_GetResource(rtype: u32, id: i32) -> u32;
    pub fn rt_ReleaseResource(h: u32);
    pub fn rt_ExitToShell() -> !;
    pub fn rt_SysBeep(ticks: i32);
    pub fn rt_ZeroScrap() -> i32;
    pub fn rt_PutScrap(length: u32, rtype: u32, source: *const u8) -> i32;
    /// `_Read` / `_Write`, synchronous, on an `IOParam`.
    pub fn rt_PBReadSync(pb: *mut u8) -> i32;
    pub fn rt_PBWriteSync(pb: *mut u8) -> i32;

    pub fn rt_SCSIGet() -> i32;
    pub fn rt_SCSISelect(id: i32) -> i32;
    pub fn rt_SCSICmd(cdb: *const u8, len: i32) -> i32;
    pub fn rt_SCSIComplete(stat: *mut u16, msg: *mut u16, wait: u32) -> i32;
    pub fn rt_SCSIRead(tib: *const u8) -> i32;

    pub fn rt_NewPtr(size: u32) -> *mut u8;
    pub fn rt_DisposePtr(p: *mut u8);
    pub fn rt_HLock(h: u32);
    pub fn rt_HUnlock(h: u32);
    pub fn rt_FlushEvents(masks: u32);
    pub fn rt_MaxApplZone();
    pub fn rt_SetApplLimit(limit: u32) -> i32;
    pub fn rt_TrapAvailable(trap: u32) -> u32;
    pub fn rt_Gestalt(selector: u32, response: *mut u32) -> i32;
    pub fn rt_SCSIAction(pb: *mut u8) -> i32;
}
