//! The Toolbox an application sees, modelled for tests: the Segment Loader launches an
//! application from its resource fork the way the Finder would, and the managers it calls
//! (Resource Manager on its own fork, QuickDraw, Font, Window, Menu, Dialog and Event
//! Managers) record what a user would see in a [`ScreenRecord`] and draw it on a 1-bit
//! screen ([`render`]), while user input comes from a script ([`Input`]).
//!
//! # Calling convention checks
//! Every Toolbox trap here reads its Pascal frame through [`Frame`]: the argument sizes in
//! declaration order (the last argument is on top of the stack), the result space above
//! them, the callee pops. A frame that would run past the top of the stack fails the run
//! (missing result space); pointers must lie in RAM (and be even where the Toolbox reads
//! words); Booleans must be 0 or 1 in the **high** byte of their word; `CHAR` parameters
//! are 16-bit words with the character in the **low** byte (Universal Interfaces
//! `CharParameter` = `short`); handles, windows, dialogs and menus must be ones the model
//! handed out. Glue with the wrong stack layout therefore fails loudly instead of working.
//!
//! # Modules
//! * [`segment_loader`]: `Machine::launch_application`, `_LoadSeg`, `_UnloadSeg`,
//!   `_ExitToShell`, `_MaxApplZone`.
//! * [`resources`]: the application's resource fork, `_GetResource`, `_Get1Resource`,
//!   `_ReleaseResource`, `_DetachResource`, `_ResError`.
//! * [`quickdraw`]: `InitGraf`, ports, text and shape drawing (recorded), `InitCursor`.
//! * [`fonts`] — `InitFonts`.
//! * [`windows`]: `InitWindows`, `NewWindow`/`NewCWindow`/`GetNewWindow`, updates,
//!   `FindWindow`, `DisposeWindow`.
//! * [`menus`]: the menu bar and scripted menu choices.
//! * [`dialogs`]: `InitDialogs`, `TEInit`, modal dialogs, alerts, `ParamText`, item text.
//! * [`controls`]: the controls of dialog items (`GetControlValue`, `SetControlValue`).
//! * [`events`]: `GetNextEvent`, `WaitNextEvent`, `SystemTask`, `FlushEvents`,
//!   `TickCount` driven by the script.
//! * [`scrap`]: `ZeroScrap`, `PutScrap` (the desk scrap Copy writes).
//! * [`render`] (with [`render_bitmap`], [`render_chrome`], [`render_font`]): the 1-bit
//!   screen the drawing goes to, composed with the menu bar, window frames, dialog items and
//!   alerts, saved as PNG.

pub mod controls;
pub mod dialogs;
pub mod events;
pub mod fonts;
pub mod menus;
pub mod quickdraw;
pub mod render;
pub mod render_bitmap;
pub mod render_chrome;
pub mod render_font;
pub mod resources;
pub mod scrap;
pub mod segment_loader;
pub mod windows;

use std::collections::VecDeque;

use crate::error::Fault;
use crate::machine::Machine;
use crate::traps::TrapCall;

pub use segment_loader::{AppRun, Launch, StackReport};

/// One scripted user action, consumed in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Click the menu bar and choose `item` (its text) from the menu titled `menu` (the
    /// Apple menu is titled "Apple").
    Menu { menu: String, item: String },
    /// Press ⌘ and a key.
    CommandKey(char),
    /// Press a key.
    Key(char),
    /// Click item `n` of the modal dialog or alert on screen.
    DialogItem(i16),
    /// Press Return in the modal dialog or alert on screen (its default item).
    Return,
    /// Click at `(h, v)` in the local coordinates of the visible window titled `window`:
    /// a mouse-down whose `where` is that point in global coordinates ([`events`]).
    Click { window: String, h: i16, v: i16 },
    /// In the modal dialog on screen, select all of edit-text item `item` and type `text`
    /// over it, one key-down per character ([`dialogs`]).
    Type { item: i16, text: String },
}

/// What an alert looked like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertKind {
    Plain,
    Stop,
    Note,
    Caution,
}

/// Kinds of windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    Document,
    Dialog,
}

/// One thing a user saw (or did), in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// The menu bar was drawn with these titles ("Apple" for the Apple menu).
    MenuBar(Vec<String>),
    /// A window or dialog appeared (or was created invisible).
    WindowOpened {
        title: String,
        kind: WindowKind,
        bounds: [i16; 4],
        visible: bool,
    },
    /// A window or dialog went away.
    WindowClosed { title: String },
    /// A string was drawn in a window at pen position `(h, v)` (local coordinates).
    Text {
        window: String,
        h: i16,
        v: i16,
        font: i16,
        size: i16,
        text: String,
    },
    /// A shape operation (`FrameRect`, `EraseRect`, `PaintRect`, `InvertRect`, `LineTo`).
    Shape {
        window: String,
        op: &'static str,
        rect: [i16; 4],
    },
    /// The user chose a menu item (by mouse or key).
    MenuChosen { menu: String, item: String },
    /// An alert: its static texts after `^0`–`^3` substitution, its buttons, the answer.
    Alert {
        kind: AlertKind,
        id: i16,
        texts: Vec<String>,
        buttons: Vec<String>,
        hit: i16,
    },
    /// A modal dialog's items as shown when `ModalDialog` first ran.
    Dialog { title: String, items: Vec<String> },
    /// The user clicked an item of a modal dialog.
    DialogHit { dialog: String, item: i16 },
    /// The application changed a dialog item's text.
    DialogItemText {
        dialog: String,
        item: i16,
        text: String,
    },
    /// The scripted user typed into an edit-text item; its text afterwards.
    Typed {
        dialog: String,
        item: i16,
        text: String,
    },
    /// The application set a control's value (`SetControlValue`), e.g. a check box.
    ControlValue {
        dialog: String,
        item: i16,
        value: i16,
    },
    /// A desk accessory was opened.
    DeskAccessory(String),
    /// The application ended with `_ExitToShell`.
    Exit,
}

/// Everything a user saw, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScreenRecord {
    pub seen: Vec<Seen>,
}

impl ScreenRecord {
    /// Titles of the windows and dialogs that were opened, in order.
    pub fn window_titles(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::WindowOpened { title, .. } => Some(title.clone()),
                _ => None,
            })
            .collect()
    }
    /// The strings drawn, in order.
    pub fn strings_drawn(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Text { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }
    /// The alerts shown.
    pub fn alerts(&self) -> Vec<&Seen> {
        self.seen
            .iter()
            .filter(|s| matches!(s, Seen::Alert { .. }))
            .collect()
    }
    /// One line per event, for failure messages.
    pub fn transcript(&self) -> String {
        self.seen.iter().map(|s| format!("{s:?}\n")).collect()
    }
}

/// Host state of the Toolbox model, one per machine.
#[derive(Default)]
pub struct Toolbox {
    /// What the user saw so far.
    pub screen: ScreenRecord,
    /// Scripted input still to come.
    pub script: VecDeque<Input>,
    pub(crate) initialized: Inits,
    pub rm: resources::ResourceState,
    pub qd: quickdraw::QdState,
    pub wm: windows::WindowState,
    pub mm: menus::MenuState,
    pub dm: dialogs::DialogState,
    pub em: events::EventState,
    pub sl: segment_loader::SegmentState,
    /// The desk scrap ([`scrap`]).
    pub scrap: scrap::ScrapState,
    /// The next launch's partition in bytes (None: the `SIZE -1` minimum, [`segment_loader`]).
    pub partition: Option<u32>,
}

/// Which `Init…` calls have run.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Inits {
    pub graf: bool,
    pub fonts: bool,
    pub windows: bool,
    pub menus: bool,
    pub te: bool,
    pub dialogs: bool,
}

impl Machine {
    /// Install the Toolbox model (idempotent; installs [`Machine::install_mac_os`] first).
    pub fn install_toolbox(&mut self) {
        if self.state::<Installed>().0 {
            return;
        }
        self.state::<Installed>().0 = true;
        self.install_mac_os();
        segment_loader::install(self);
        resources::install(self);
        quickdraw::install(self);
        fonts::install(self);
        windows::install(self);
        menus::install(self);
        dialogs::install(self);
        controls::install(self);
        events::install(self);
        scrap::install(self);
    }

    /// The Toolbox model's state.
    pub fn toolbox(&mut self) -> &mut Toolbox {
        self.state::<Toolbox>()
    }
}

#[derive(Default)]
struct Installed(bool);

/// Fail unless an `Init…` call ran before.
pub(crate) fn require(
    m: &mut Machine,
    call: &TrapCall,
    done: bool,
    init: &str,
) -> Result<(), Fault> {
    let _ = m;
    if done {
        Ok(())
    } else {
        Err(Fault::misuse(
            call.word,
            format!(
                "_{} called before {init} (IM: initialize the Toolbox managers first)",
                call.name
            ),
        ))
    }
}

/// A Toolbox trap's Pascal frame: arguments in declaration order with their sizes (2 or 4),
/// the last one on top of the stack, and `result` bytes of function result above them.
pub(crate) struct Frame {
    base: u32,
    sizes: &'static [u32],
    total: u32,
    result: u32,
    word: u16,
    name: &'static str,
}

/// Refuse a Boolean argument whose word is exactly `$0001` (TRUE pushed as a word, in the low
/// byte, which a Mac reads as FALSE). Correct glue pushes with `move.b`, leaving the low byte
/// stale, so a correct FALSE over a stale low byte of 1 would be refused too; the model's
/// stack is deterministic, so this is a clear trade (modelling choice).
pub const STRICT_BOOLEAN_WORD: bool = true;

/// A function result to store.
pub(crate) enum Ret {
    None,
    Word(u16),
    Long(u32),
    Bool(bool),
}

impl Frame {
    pub fn new(
        m: &Machine,
        call: &TrapCall,
        sizes: &'static [u32],
        result: u32,
    ) -> Result<Frame, Fault> {
        let base = call.pascal_args(m);
        let total: u32 = sizes.iter().sum();
        // While an application runs its stack ends at `CurStackBase`, less the return
        // address its entry was called with; above that lies its A5 world.
        let top = m.stack_watch().map_or(m.layout().stack.1, |w| w.base - 4);
        if base.checked_add(total + result).is_none_or(|end| end > top) {
            return Err(Fault::misuse(
                call.word,
                format!(
                    "_{}: its Pascal frame ({total} bytes of arguments + {result} of result) runs past the top of the stack (SP ${base:08X}): missing result space or arguments?",
                    call.name
                ),
            ));
        }
        Ok(Frame {
            base,
            sizes,
            total,
            result,
            word: call.word,
            name: call.name,
        })
    }

    fn at(&self, i: usize) -> u32 {
        self.base + self.sizes[i + 1..].iter().sum::<u32>()
    }
    /// Argument `i` as a signed word.
    pub fn int(&self, m: &Machine, i: usize) -> i16 {
        debug_assert_eq!(self.sizes[i], 2);
        m.read_u16(self.at(i)) as i16
    }
    /// Argument `i` as a long.
    pub fn long(&self, m: &Machine, i: usize) -> u32 {
        debug_assert_eq!(self.sizes[i], 4);
        m.read_u32(self.at(i))
    }
    /// Argument `i` as a Boolean (the high byte of its word; must be 0 or 1; see
    /// [`STRICT_BOOLEAN_WORD`]).
    pub fn boolean(&self, m: &Machine, i: usize) -> Result<bool, Fault> {
        let b = m.read_u8(self.at(i));
        if STRICT_BOOLEAN_WORD && m.read_u16(self.at(i)) == 0x0001 {
            return Err(self.misuse(format!(
                "Boolean argument {} is the word $0001: the value was pushed in the low byte (Pascal Booleans go in the high byte: move.b #1,-(sp))",
                i + 1
            )));
        }
        match b {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.misuse(format!(
                "Boolean argument {} is ${b:02X} in the high byte (Pascal Booleans are 0 or 1 in the high byte of their word)",
                i + 1
            ))),
        }
    }
    /// Argument `i` as a `CHAR` (a word with the character in the low byte).
    pub fn char(&self, m: &Machine, i: usize) -> Result<u8, Fault> {
        let w = m.read_u16(self.at(i));
        if w > 0xFF {
            return Err(self.misuse(format!(
                "CHAR argument {} is ${w:04X}: a CHAR parameter is a 16-bit word with the character in the low byte (CharParameter = short)",
                i + 1
            )));
        }
        Ok(w as u8)
    }
    /// A misuse fault naming this trap.
    pub fn misuse(&self, message: String) -> Fault {
        Fault::misuse(self.word, format!("_{}: {message}", self.name))
    }
    /// Pop the arguments (the callee's job) and store the result.
    pub fn ret(self, m: &mut Machine, call: &TrapCall, r: Ret) -> Result<(), Fault> {
        let slot = self.base + self.total;
        match r {
            Ret::None => debug_assert_eq!(self.result, 0),
            Ret::Word(v) => {
                debug_assert_eq!(self.result, 2);
                m.write_u16(slot, v);
            }
            Ret::Long(v) => {
                debug_assert_eq!(self.result, 4);
                m.write_u32(slot, v);
            }
            Ret::Bool(b) => {
                debug_assert_eq!(self.result, 2);
                m.write_u8(slot, b as u8);
            }
        }
        m.pascal_pop(call, self.total);
        Ok(())
    }
}

/// First address a guest pointer may name (below: vectors, low memory, the machine's own
/// areas).
pub(crate) const FIRST_GUEST_ADDRESS: u32 = 0x1_0000;

/// Check that `[addr, addr + len)` is guest RAM (and even when `even`).
pub(crate) fn check_range(
    m: &Machine,
    word: u16,
    what: &str,
    addr: u32,
    len: u32,
    even: bool,
) -> Result<(), Fault> {
    if addr < FIRST_GUEST_ADDRESS || !m.bus().in_ram(addr, len.max(1)) {
        return Err(Fault::misuse(
            word,
            format!("{what}: ${addr:08X} (+{len}) is not application memory"),
        ));
    }
    if even && !addr.is_multiple_of(2) {
        return Err(Fault::misuse(
            word,
            format!("{what}: ${addr:08X} is odd (the Toolbox reads words there)"),
        ));
    }
    Ok(())
}

/// Read a Str255 at `addr`.
pub(crate) fn read_str255(m: &Machine, word: u16, what: &str, addr: u32) -> Result<Vec<u8>, Fault> {
    check_range(m, word, what, addr, 1, false)?;
    let n = m.read_u8(addr) as u32;
    check_range(m, word, what, addr, 1 + n, false)?;
    Ok(m.read_pstring(addr))
}

/// Read a Rect (top, left, bottom, right) at `addr`.
pub(crate) fn read_rect(m: &Machine, word: u16, what: &str, addr: u32) -> Result<[i16; 4], Fault> {
    check_range(m, word, what, addr, 8, true)?;
    Ok([0, 2, 4, 6].map(|o| m.read_u16(addr + o) as i16))
}

/// Write a Rect.
pub(crate) fn write_rect(m: &mut Machine, addr: u32, r: [i16; 4]) {
    for (i, v) in r.iter().enumerate() {
        m.write_u16(addr + 2 * i as u32, *v as u16);
    }
}

/// Mac Roman → text for the screen record (ASCII, and the typographic characters an
/// application's resources commonly use; others as `\xNN`).
pub fn mac_roman_text(b: &[u8]) -> String {
    b.iter()
        .map(|&c| match c {
            0x20..=0x7E => (c as char).to_string(),
            0x0D => "\n".into(),
            0x14 => "Apple".into(),
            0xA5 => "•".into(),
            0xA8 => "®".into(),
            0xA9 => "©".into(),
            0xAA => "™".into(),
            0xC9 => "…".into(),
            0xCA => " ".into(),
            0xD0 => "–".into(),
            0xD1 => "—".into(),
            0xD2 => "“".into(),
            0xD3 => "”".into(),
            0xD4 => "‘".into(),
            0xD5 => "’".into(),
            _ => format!("\\x{c:02X}"),
        })
        .collect()
}

/// Take the next scripted input if `pred` accepts it.
pub(crate) fn take_input(m: &mut Machine, pred: impl Fn(&Input) -> bool) -> Option<Input> {
    let next = m.toolbox().script.front().filter(|i| pred(i)).cloned()?;
    render::before_input(m, &next);
    m.toolbox().script.pop_front()
}
