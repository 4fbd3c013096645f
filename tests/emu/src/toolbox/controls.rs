//! Control Manager model, for the controls a dialog's items make: buttons, check boxes and
//! radio buttons. `GetDialogItem` hands out, for these items, a handle to a real
//! `ControlRecord` in the application heap (IM Macintosh Toolbox Essentials, Control Manager:
//! `contrlOwner` 4, `contrlRect` 8, `contrlVis` 16, `contrlHilite` 17, `contrlValue` 18,
//! `contrlMin` 20, `contrlMax` 22, `contrlTitle` 40; UNVERIFIED here, one constant each).
//! The value lives in the record: an application that pokes it directly is seen by
//! `GetControlValue` as on a Mac.
//!
//! Modelled strictly: the Dialog Manager does **not** toggle a check box or radio button when
//! the user clicks it — `ModalDialog` only reports the item, and the application must call
//! `SetControlValue` (IM: "your application must change the setting"); a control handle that
//! is not one the model handed out fails the run; `SetControlValue` pins the value to
//! `contrlMin`…`contrlMax` (0…1 for check boxes and radio buttons, as their `CNTL`-less items
//! get from the Dialog Manager).

use super::{Frame, Ret, Seen};
use crate::error::Fault;
use crate::machine::Machine;
use crate::memory_manager::ZoneId;
use crate::traps::TrapCall;

pub const CONTRL_OWNER: u32 = 4;
pub const CONTRL_RECT: u32 = 8;
pub const CONTRL_VIS: u32 = 16;
pub const CONTRL_VALUE: u32 = 18;
pub const CONTRL_MIN: u32 = 20;
pub const CONTRL_MAX: u32 = 22;
pub const CONTRL_TITLE: u32 = 40;

/// A new control record for a dialog item: visible, value 0, range 0…1, titled `title`.
pub(crate) fn new_control(
    m: &mut Machine,
    call: &TrapCall,
    owner: u32,
    rect: [i16; 4],
    title: &[u8],
) -> Result<u32, Fault> {
    let len = CONTRL_TITLE + 1 + title.len() as u32;
    let (mm, bus) = m.memory_manager_and_bus();
    let h = mm
        .new_handle(bus, ZoneId::Application, len, true)
        .map_err(|e| Fault::misuse(call.word, format!("no room for a control record: {e}")))?;
    let p = m.read_u32(h);
    m.write_u32(p + CONTRL_OWNER, owner);
    super::write_rect(m, p + CONTRL_RECT, rect);
    m.write_u8(p + CONTRL_VIS, 0xFF);
    m.write_u16(p + CONTRL_VALUE, 0);
    m.write_u16(p + CONTRL_MIN, 0);
    m.write_u16(p + CONTRL_MAX, 1);
    m.write_pstring(p + CONTRL_TITLE, title);
    Ok(h)
}

/// The dialog title and item number of control handle `h`.
fn control_item(m: &mut Machine, h: u32) -> Option<(String, i16)> {
    m.toolbox().dm.dialogs.iter().find_map(|d| {
        d.items
            .iter()
            .position(|it| it.handle == h && h != 0 && it.is_control())
            .map(|k| (d.title.clone(), k as i16 + 1))
    })
}

fn control_arg(m: &mut Machine, f: &Frame) -> Result<(u32, String, i16), Fault> {
    let h = f.long(m, 0);
    match control_item(m, h) {
        Some((d, i)) => Ok((m.read_u32(h), d, i)),
        None => Err(f.misuse(format!(
            "${h:08X} is not a control handle (GetDialogItem gives one for buttons, check boxes and radio buttons)"
        ))),
    }
}

/// `GetControlValue(theControl: ControlHandle): INTEGER` (`GetCtlValue`).
fn get_control_value(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 2)?;
    let (p, _, _) = control_arg(m, &f)?;
    let v = m.read_u16(p + CONTRL_VALUE);
    f.ret(m, call, Ret::Word(v))
}

/// `SetControlValue(theControl: ControlHandle; theValue: INTEGER)` (`SetCtlValue`).
fn set_control_value(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 2], 0)?;
    let (p, dialog, item) = control_arg(m, &f)?;
    let lo = m.read_u16(p + CONTRL_MIN) as i16;
    let hi = m.read_u16(p + CONTRL_MAX) as i16;
    let value = f.int(m, 1).clamp(lo, hi.max(lo));
    m.write_u16(p + CONTRL_VALUE, value as u16);
    // The screen draws a check box or radio button with its value.
    let owner = m.read_u32(p + CONTRL_OWNER);
    super::render::set_control_value(m, owner, item, value);
    m.toolbox().screen.seen.push(Seen::ControlValue {
        dialog,
        item,
        value,
    });
    f.ret(m, call, Ret::None)
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA960, "GetControlValue", get_control_value);
    m.register_trap(0xA963, "SetControlValue", set_control_value);
}
