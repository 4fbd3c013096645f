//! Menu Manager model: menus from `MENU`/`MBAR` resources (mac-facts §13.6), the menu bar the user
//! sees, and menu choices from the script. A menu handle is a real handle holding the `MENU`
//! resource's bytes; the model keeps the items (including ones `AppendResMenu` adds) on the
//! host, so applications read items through `GetMenuItemText`.
//!
//! `MenuSelect` answers the scripted choice that produced the mouse-down in the menu bar
//! (see [`super::events`]); it leaves the title highlighted until the application calls
//! `HiliteMenu(0)`, as on a Mac ([`MenuState::hilited`]).

use std::collections::BTreeMap;

use super::{Frame, Input, Ret, Seen, check_range, read_str255, require};
use crate::error::Fault;
use crate::machine::Machine;
use crate::memory_manager::ZoneId;
use crate::traps::TrapCall;

// MENU resource fields (mac-facts §13.6).
const MENU_ID: usize = 0;
const MENU_ENABLE_FLAGS: usize = 10;
const MENU_TITLE: usize = 14;

/// Desk accessories `AppendResMenu(menu, 'DRVR')` lists (modelling choice; the System file is
/// not modelled).
pub const DESK_ACCESSORIES: &[&str] = &[
    "Alarm Clock",
    "Calculator",
    "Chooser",
    "Key Caps",
    "Note Pad",
    "Puzzle",
    "Scrapbook",
];

/// One item.
#[derive(Debug, Clone)]
pub struct MenuItem {
    pub text: Vec<u8>,
    pub key: u8,
    pub enabled: bool,
}

/// One menu.
#[derive(Debug, Clone)]
pub struct Menu {
    pub id: i16,
    pub handle: u32,
    pub title: Vec<u8>,
    pub enabled: bool,
    pub items: Vec<MenuItem>,
}

/// Menu Manager state.
#[derive(Default)]
pub struct MenuState {
    pub menus: BTreeMap<u32, Menu>,
    /// Menu lists from GetNewMBar: handle → menu handles.
    pub lists: BTreeMap<u32, Vec<u32>>,
    /// The menu bar: menu handles, left to right.
    pub bar: Vec<u32>,
    /// Menu ID whose title is highlighted (0 = none).
    pub hilited: i16,
    /// The scripted choice waiting for MenuSelect.
    pub pending: Option<(i16, i16)>,
}

fn parse_menu(d: &[u8]) -> Result<(i16, Vec<u8>, bool, Vec<MenuItem>), String> {
    if d.len() < MENU_TITLE + 1 {
        return Err("shorter than its header".into());
    }
    let id = i16::from_be_bytes([d[MENU_ID], d[MENU_ID + 1]]);
    let flags = u32::from_be_bytes(
        d[MENU_ENABLE_FLAGS..MENU_ENABLE_FLAGS + 4]
            .try_into()
            .unwrap(),
    );
    let tl = d[MENU_TITLE] as usize;
    let title = d
        .get(MENU_TITLE + 1..MENU_TITLE + 1 + tl)
        .ok_or("title past the end")?
        .to_vec();
    let mut at = MENU_TITLE + 1 + tl;
    let mut items = Vec::new();
    loop {
        let n = *d
            .get(at)
            .ok_or("items run past the end (no terminating 0)")? as usize;
        if n == 0 {
            break;
        }
        let text = d
            .get(at + 1..at + 1 + n)
            .ok_or("item text past the end")?
            .to_vec();
        let attrs = d
            .get(at + 1 + n..at + 5 + n)
            .ok_or("item attributes past the end")?;
        let k = items.len() + 1;
        let enabled = k > 31 || flags & (1 << k) != 0;
        items.push(MenuItem {
            text,
            key: attrs[1],
            enabled,
        });
        at += 5 + n;
    }
    Ok((id, title, flags & 1 != 0, items))
}

/// Load `MENU id` into a new menu handle.
fn load_menu(m: &mut Machine, call: &TrapCall, id: i16) -> Result<u32, Fault> {
    let Some(d) = m.toolbox().rm.data(b"MENU", id).map(<[u8]>::to_vec) else {
        return Err(Fault::misuse(
            call.word,
            format!(
                "_{}: no MENU {id} in the application's resources",
                call.name
            ),
        ));
    };
    let (mid, title, enabled, items) =
        parse_menu(&d).map_err(|e| Fault::misuse(call.word, format!("MENU {id}: {e}")))?;
    let (mm, bus) = m.memory_manager_and_bus();
    let h = mm
        .new_handle(bus, ZoneId::Application, d.len() as u32, false)
        .map_err(|e| Fault::misuse(call.word, format!("no room for MENU {id}: {e}")))?;
    let p = m.read_u32(h);
    m.write_bytes(p, &d);
    m.toolbox().mm.menus.insert(
        h,
        Menu {
            id: mid,
            handle: h,
            title,
            enabled,
            items,
        },
    );
    Ok(h)
}

fn menu_title(menu: &Menu) -> String {
    super::mac_roman_text(&menu.title)
}

fn init_menus(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 0)?;
    let w = m.toolbox().initialized.windows;
    require(m, call, w, "InitWindows")?;
    m.toolbox().initialized.menus = true;
    f.ret(m, call, Ret::None)
}

fn menus_ready(m: &mut Machine, call: &TrapCall) -> Result<(), Fault> {
    let d = m.toolbox().initialized.menus;
    require(m, call, d, "InitMenus")
}

/// `GetNewMBar(menuBarID: INTEGER): Handle`.
fn get_new_mbar(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2], 4)?;
    menus_ready(m, call)?;
    let id = f.int(m, 0);
    let Some(d) = m.toolbox().rm.data(b"MBAR", id).map(<[u8]>::to_vec) else {
        return Err(f.misuse(format!("no MBAR {id} in the application's resources")));
    };
    let n = u16::from_be_bytes([d[0], d[1]]) as usize;
    if d.len() < 2 + 2 * n {
        return Err(f.misuse(format!("MBAR {id} is truncated")));
    }
    let mut handles = Vec::new();
    for i in 0..n {
        let mid = i16::from_be_bytes([d[2 + 2 * i], d[3 + 2 * i]]);
        handles.push(load_menu(m, call, mid)?);
    }
    let (mm, bus) = m.memory_manager_and_bus();
    let h = mm
        .new_handle(bus, ZoneId::Application, d.len() as u32, false)
        .map_err(|e| f.misuse(format!("no room: {e}")))?;
    let p = m.read_u32(h);
    m.write_bytes(p, &d);
    m.toolbox().mm.lists.insert(h, handles);
    f.ret(m, call, Ret::Long(h))
}

/// `SetMenuBar(menuList: Handle)`.
fn set_menu_bar(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    menus_ready(m, call)?;
    let h = f.long(m, 0);
    let Some(list) = m.toolbox().mm.lists.get(&h).cloned() else {
        return Err(f.misuse(format!("${h:08X} is not a menu list from GetNewMBar")));
    };
    m.toolbox().mm.bar = list;
    f.ret(m, call, Ret::None)
}

/// `DrawMenuBar`.
fn draw_menu_bar(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 0)?;
    menus_ready(m, call)?;
    let mm = &m.toolbox().mm;
    let titles = mm.bar.iter().map(|h| menu_title(&mm.menus[h])).collect();
    m.toolbox().screen.seen.push(Seen::MenuBar(titles));
    f.ret(m, call, Ret::None)
}

/// `GetMenuHandle(menuID: INTEGER): MenuHandle` (NIL if not in the menu bar).
fn get_menu_handle(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2], 4)?;
    menus_ready(m, call)?;
    let id = f.int(m, 0);
    let mm = &m.toolbox().mm;
    let h = mm
        .bar
        .iter()
        .copied()
        .find(|h| mm.menus[h].id == id)
        .unwrap_or(0);
    f.ret(m, call, Ret::Long(h))
}

fn menu_arg(m: &mut Machine, f: &Frame, i: usize) -> Result<u32, Fault> {
    let h = f.long(m, i);
    if m.toolbox().mm.menus.contains_key(&h) {
        Ok(h)
    } else {
        Err(f.misuse(format!("${h:08X} is not a menu handle")))
    }
}

/// `AppendResMenu(theMenu: MenuHandle; theType: ResType)`: only `'DRVR'` (desk accessories)
/// is modelled.
fn append_res_menu(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4], 0)?;
    let h = menu_arg(m, &f, 0)?;
    let t = f.long(m, 1).to_be_bytes();
    if &t != b"DRVR" {
        return Err(f.misuse(format!(
            "resource type {:?} is not modelled (only 'DRVR')",
            String::from_utf8_lossy(&t)
        )));
    }
    let menu = m.toolbox().mm.menus.get_mut(&h).unwrap();
    for da in DESK_ACCESSORIES {
        menu.items.push(MenuItem {
            text: da.as_bytes().to_vec(),
            key: 0,
            enabled: true,
        });
    }
    f.ret(m, call, Ret::None)
}

/// Find the scripted choice `(menu title, item text)` in the bar.
pub(crate) fn resolve_choice(
    m: &mut Machine,
    menu: &str,
    item: &str,
) -> Result<(i16, i16), String> {
    let mm = &m.toolbox().mm;
    let Some(mh) = mm.bar.iter().find(|h| menu_title(&mm.menus[h]) == menu) else {
        let titles: Vec<String> = mm.bar.iter().map(|h| menu_title(&mm.menus[h])).collect();
        return Err(format!(
            "the script chooses from menu {menu:?}, but the menu bar has {titles:?}"
        ));
    };
    let me = &mm.menus[mh];
    let Some(i) = me
        .items
        .iter()
        .position(|it| super::mac_roman_text(&it.text) == item)
    else {
        return Err(format!(
            "the script chooses {item:?}, which menu {menu:?} does not have"
        ));
    };
    if !me.enabled || !me.items[i].enabled {
        return Err(format!(
            "the script chooses {menu:?} > {item:?}, which is disabled"
        ));
    }
    Ok((me.id, i as i16 + 1))
}

fn record_choice(m: &mut Machine, id: i16, item: i16) {
    let mm = &m.toolbox().mm;
    if let Some(h) = mm.bar.iter().find(|h| mm.menus[h].id == id) {
        let me = &mm.menus[h];
        let (menu, item) = (
            menu_title(me),
            super::mac_roman_text(&me.items[item as usize - 1].text),
        );
        m.toolbox()
            .screen
            .seen
            .push(Seen::MenuChosen { menu, item });
    }
}

/// `MenuSelect(startPt: Point): LONGINT`: the pending scripted choice, or 0.
fn menu_select(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 4)?;
    menus_ready(m, call)?;
    let pt = f.long(m, 0);
    let v = (pt >> 16) as i16;
    let r = match m.toolbox().mm.pending.take() {
        Some((id, item)) => {
            if v >= super::windows::MENU_BAR_HEIGHT {
                return Err(f.misuse(format!("startPt v = {v} is below the menu bar (Point is v in the high word, h in the low word)")));
            }
            record_choice(m, id, item);
            m.toolbox().mm.hilited = id;
            ((id as u16 as u32) << 16) | item as u16 as u32
        }
        None => 0,
    };
    f.ret(m, call, Ret::Long(r))
}

/// `MenuKey(ch: CHAR): LONGINT`.
fn menu_key(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2], 4)?;
    menus_ready(m, call)?;
    let c = f.char(m, 0)?.to_ascii_uppercase();
    let mm = &m.toolbox().mm;
    let hit = mm.bar.iter().find_map(|h| {
        let me = &mm.menus[h];
        me.items
            .iter()
            .position(|it| {
                it.key != 0 && it.key.to_ascii_uppercase() == c && it.enabled && me.enabled
            })
            .map(|i| (me.id, i as i16 + 1))
    });
    let r = match hit {
        Some((id, item)) => {
            record_choice(m, id, item);
            m.toolbox().mm.hilited = id;
            ((id as u16 as u32) << 16) | item as u16 as u32
        }
        None => 0,
    };
    f.ret(m, call, Ret::Long(r))
}

/// `HiliteMenu(menuID: INTEGER)`.
fn hilite_menu(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2], 0)?;
    menus_ready(m, call)?;
    let id = f.int(m, 0);
    m.toolbox().mm.hilited = id;
    f.ret(m, call, Ret::None)
}

/// `GetMenuItemText(theMenu; item: INTEGER; VAR itemString: Str255)`.
fn get_menu_item_text(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 2, 4], 0)?;
    let h = menu_arg(m, &f, 0)?;
    let item = f.int(m, 1);
    let var = f.long(m, 2);
    check_range(
        m,
        call.word,
        "GetMenuItemText's VAR string",
        var,
        256,
        false,
    )?;
    let items = &m.toolbox().mm.menus[&h].items;
    let Some(it) = usize::try_from(item)
        .ok()
        .filter(|&i| i >= 1)
        .and_then(|i| items.get(i - 1))
    else {
        return Err(f.misuse(format!("item {item} of a {}-item menu", items.len())));
    };
    let text = it.text.clone();
    m.write_pstring(var, &text);
    f.ret(m, call, Ret::None)
}

/// `EnableItem`/`DisableItem(theMenu; item: INTEGER)` (item 0 = the whole menu).
fn enable_item(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 2], 0)?;
    let h = menu_arg(m, &f, 0)?;
    let item = f.int(m, 1);
    let on = call.number() == 0x139;
    let menu = m.toolbox().mm.menus.get_mut(&h).unwrap();
    match item {
        0 => menu.enabled = on,
        i if i >= 1 && (i as usize) <= menu.items.len() => menu.items[i as usize - 1].enabled = on,
        i => {
            let n = menu.items.len();
            return Err(f.misuse(format!("item {i} of a {n}-item menu")));
        }
    }
    f.ret(m, call, Ret::None)
}

/// `OpenDeskAcc(theAcc: Str255): INTEGER`: recorded; returns 0.
fn open_desk_acc(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 2)?;
    let s = read_str255(m, call.word, "OpenDeskAcc's name", f.long(m, 0))?;
    let name = super::mac_roman_text(&s);
    m.toolbox().screen.seen.push(Seen::DeskAccessory(name));
    f.ret(m, call, Ret::Word(0))
}

/// `SystemEdit(editCmd: INTEGER): BOOLEAN`: TRUE when the active window is a desk
/// accessory's (the Edit command went to it), else FALSE for the application to handle it
/// (IM I-441). `OpenDeskAcc` opens no window in this model, so no desk accessory is ever
/// active: always FALSE. Strict: `editCmd` must be one of the standard commands 0–5 (undo,
/// the separator's 1, cut, copy, paste, clear: the Edit menu's item number − 1).
fn system_edit(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2], 2)?;
    let cmd = f.int(m, 0);
    if !(0..=5).contains(&cmd) {
        return Err(f.misuse(format!(
            "editCmd {cmd}: not a standard Edit command (0 undo … 5 clear)"
        )));
    }
    f.ret(m, call, Ret::Bool(false))
}

/// A scripted menu choice becomes pending (the event layer posts its mouse-down).
pub(crate) fn choose(m: &mut Machine, input: &Input) -> Result<(), String> {
    let (menu, item) = match input {
        Input::Menu { menu, item } => (menu.clone(), item.clone()),
        _ => unreachable!(),
    };
    let c = resolve_choice(m, &menu, &item)?;
    m.toolbox().mm.pending = Some(c);
    Ok(())
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA930, "InitMenus", init_menus);
    m.register_trap(0xA9C0, "GetNewMBar", get_new_mbar);
    m.register_trap(0xA93C, "SetMenuBar", set_menu_bar);
    m.register_trap(0xA937, "DrawMenuBar", draw_menu_bar);
    m.register_trap(0xA949, "GetMenuHandle", get_menu_handle);
    m.register_trap(0xA94D, "AppendResMenu", append_res_menu);
    m.register_trap(0xA93D, "MenuSelect", menu_select);
    m.register_trap(0xA93E, "MenuKey", menu_key);
    m.register_trap(0xA938, "HiliteMenu", hilite_menu);
    m.register_trap(0xA946, "GetMenuItemText", get_menu_item_text);
    m.register_trap(0xA939, "EnableItem", enable_item);
    m.register_trap(0xA93A, "DisableItem", enable_item);
    m.register_trap(0xA9B6, "OpenDeskAcc", open_desk_acc);
    m.register_trap(0xA9C2, "SystemEdit", system_edit);
}
