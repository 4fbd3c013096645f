//! The application skeleton: start-up, the menu bar, and the event loop that dispatches menu
//! choices, window updates and desk accessories to an [`Application`].

use crate::event::{CHAR_CODE_MASK, CMD_KEY, EventRecord, MenuChoice, Rect, part, what};
use crate::toolbox::{self as tb, WindowPtr};

/// What the event loop should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// The menus every application has: the Apple menu (item 1 = About…, desk accessories from
/// item 3 on) and the Edit menu (Undo, -, Cut, Copy, Paste, Clear: offered to desk
/// accessories first).
#[derive(Debug, Clone, Copy)]
pub struct Menus {
    pub mbar: i16,
    pub apple: i16,
    pub edit: i16,
}

/// An application driven by [`run`].
pub trait Application {
    /// Apple menu → About….
    fn about(&mut self);
    /// Any other menu choice (the Edit menu only when no desk accessory took it).
    fn command(&mut self, choice: MenuChoice) -> Flow;
    /// Draw the contents of `window` (its port is set; called between BeginUpdate and
    /// EndUpdate).
    fn draw(&mut self, window: WindowPtr);
    /// A click in the content of `window`, already the front window (`where` is global:
    /// `SetPort` + `GlobalToLocal` for local coordinates).
    fn click(&mut self, window: WindowPtr, evt: &EventRecord) {
        let _ = (window, evt);
    }
    /// A key pressed without ⌘ (its character code).
    fn key(&mut self, ch: u8) {
        let _ = ch;
    }
    /// Leaving: dispose of windows and the like.
    fn quit(&mut self) {}
}

/// The Mac the application runs on.
#[derive(Debug, Clone, Copy)]
pub struct Runtime {
    pub menus: Menus,
    /// `WaitNextEvent` is implemented (System 7, or MultiFinder on System 6).
    pub has_wne: bool,
}

/// The standard start-up with a stack of at least `stack` bytes, and the menu bar.
pub fn start(menus: Menus, stack: u32) -> Runtime {
    tb::init(stack);
    tb::menu_bar(menus.mbar, menus.apple);
    Runtime {
        menus,
        has_wne: tb::trap_available(0xA860),
    }
}

/// Where a window may be dragged: the whole desktop below the menu bar.
fn drag_bounds() -> Rect {
    Rect::new(24, 4, 32000, 32000)
}

/// Run the event loop until the application quits, then return to the Finder.
pub fn run(rt: &Runtime, app: &mut dyn Application) -> ! {
    let mut evt = EventRecord::default();
    loop {
        if !tb::next_event(rt.has_wne, 30, &mut evt) {
            continue;
        }
        let flow = match evt.what.get() {
            what::MOUSE_DOWN => mouse_down(rt, app, &evt),
            what::KEY_DOWN | what::AUTO_KEY if evt.modifiers.get() & CMD_KEY != 0 => {
                let ch = (evt.message.get() & CHAR_CODE_MASK) as u8;
                match tb::menu_key(ch) {
                    Some(c) => choose(rt, app, c),
                    None => Flow::Continue,
                }
            }
            what::KEY_DOWN | what::AUTO_KEY => {
                app.key((evt.message.get() & CHAR_CODE_MASK) as u8);
                Flow::Continue
            }
            what::UPDATE => {
                let w = evt.message.get();
                tb::begin_update(w);
                tb::set_port(w);
                app.draw(w);
                tb::end_update(w);
                Flow::Continue
            }
            _ => Flow::Continue,
        };
        if flow == Flow::Quit {
            app.quit();
            tb::exit_to_shell();
        }
    }
}

fn mouse_down(rt: &Runtime, app: &mut dyn Application, evt: &EventRecord) -> Flow {
    let where_ = evt.where_.get();
    let (p, w) = tb::find_window(where_);
    match p {
        part::IN_MENU_BAR => match tb::menu_select(where_) {
            Some(c) => choose(rt, app, c),
            None => Flow::Continue,
        },
        part::IN_SYS_WINDOW => {
            tb::system_click(evt, w);
            Flow::Continue
        }
        part::IN_DRAG => {
            tb::drag_window(w, where_, &drag_bounds());
            Flow::Continue
        }
        part::IN_CONTENT => {
            // A click in a window behind only brings it to the front (Apple's Human
            // Interface Guidelines); in the front window it goes to the application.
            if tb::front_window() == w {
                app.click(w, evt);
            } else {
                tb::select_window(w);
            }
            Flow::Continue
        }
        _ => Flow::Continue,
    }
}

fn choose(rt: &Runtime, app: &mut dyn Application, c: MenuChoice) -> Flow {
    let m = rt.menus;
    let flow = if c.menu == m.apple {
        if c.item == 1 {
            app.about();
        } else {
            let name = tb::menu_item_text(tb::menu_handle(m.apple), c.item);
            tb::open_desk_acc(&name);
        }
        Flow::Continue
    } else if c.menu == m.edit && tb::system_edit(c.item) {
        Flow::Continue
    } else {
        app.command(c)
    };
    tb::hilite_menu(0);
    flow
}
