//! The emulated Mac's screen: a 1-bit picture of what the user sees, kept beside the
//! [`super::ScreenRecord`].
//!
//! * Each window's port has its own content bitmap (its `portRect`'s size). QuickDraw calls
//!   ([`super::quickdraw`]) draw into the current port's bitmap as they happen, so drawing
//!   is clipped to the window's port; a new window starts erased (white).
//! * [`Machine::render_screen`] composes the screen: the gray desktop, the menu bar once
//!   `DrawMenuBar` ran (its highlighted title inverted), the visible windows back to front
//!   (frame and title bar, then the content: a dialog's items, then what the application
//!   drew), and on top the alert that is up.
//! * With [`Machine::capture_screens`] on, the screen is composed each time the scripted
//!   user acts (just before an input is taken: the screen has settled, update events are
//!   answered), so a script can show a window, an alert or a dialog as the user saw it.
//!
//! The screen's size is the machine's ([`Machine::screen_size`]): 512×342 on the 68000
//! (Plus, SE, Classic), 640×480 on the others (a 13" monitor). Fidelity limits are listed in
//! docs/emulated-mac.md.

use std::collections::BTreeMap;

use super::render_bitmap::{Bitmap, Rect, offset};
use super::render_chrome as chrome;
use super::render_font;
use super::{AlertKind, Input, Seen, WindowKind, dialogs, windows};
use crate::cpu::CpuModel;
use crate::machine::Machine;

/// An alert on screen.
#[derive(Debug, Clone)]
pub struct AlertBox {
    pub kind: AlertKind,
    /// Content rectangle, global.
    pub rect: Rect,
    /// Items with their text (`^0`–`^3` substituted).
    pub items: Vec<(dialogs::DItem, Vec<u8>)>,
    /// The default item (outlined).
    pub default: i16,
}

/// The screen as it was just before the scripted user's input `before`.
#[derive(Debug, Clone)]
pub struct Captured {
    pub before: Input,
    pub screen: Bitmap,
    /// For a menu choice: the same screen with the menu pulled down and the chosen item
    /// highlighted, as the user sees it just before releasing the mouse.
    pub menu_open: Option<Bitmap>,
}

/// Renderer state, one per machine.
#[derive(Default)]
pub struct Display {
    /// Content of each live window's port, by window pointer.
    pub ports: BTreeMap<u32, Bitmap>,
    /// The alert on screen.
    pub alert: Option<AlertBox>,
    /// Compose a [`Captured`] screen before each scripted input.
    pub capture: bool,
    pub captured: Vec<Captured>,
    /// Set by [`Machine::set_screen_size`]; else by CPU model.
    pub size: Option<(u16, u16)>,
    /// Values of dialog controls (check boxes, radio buttons) by (dialog, item number), set
    /// through [`set_control_value`]; 0 when absent.
    pub values: BTreeMap<(u32, i16), i16>,
}

/// One drawing operation in a port (local coordinates).
pub enum Draw<'a> {
    Text {
        h: i16,
        v: i16,
        font: i16,
        size: i16,
        text: &'a [u8],
    },
    Rect {
        op: &'static str,
        rect: Rect,
    },
    Line {
        from: (i16, i16),
        to: (i16, i16),
    },
}

impl Machine {
    /// The renderer's state.
    pub fn display(&mut self) -> &mut Display {
        self.state::<Display>()
    }

    /// The screen's size in pixels (width, height): 512×342 on the 68000 (compact Macs),
    /// 640×480 otherwise, unless set with [`Machine::set_screen_size`].
    pub fn screen_size(&mut self) -> (u16, u16) {
        let model = self.model();
        self.display().size.unwrap_or(if model == CpuModel::M68000 {
            (512, 342)
        } else {
            (640, 480)
        })
    }

    /// Set the screen size (before `InitGraf`, which reports it in `screenBits`).
    pub fn set_screen_size(&mut self, width: u16, height: u16) {
        self.display().size = Some((width, height));
    }

    /// Compose a screen each time the scripted user acts ([`Machine::captured_screens`]).
    pub fn capture_screens(&mut self, on: bool) {
        self.display().capture = on;
    }

    /// The screens composed so far (oldest first), taken out of the machine.
    pub fn captured_screens(&mut self) -> Vec<Captured> {
        std::mem::take(&mut self.display().captured)
    }

    /// The screen as the user sees it now.
    pub fn render_screen(&mut self) -> Bitmap {
        compose(self)
    }

    /// Write the screen as it is now to `path` as a 1-bit PNG.
    pub fn save_screen_png(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        std::fs::write(path, self.render_screen().png())
    }
}

/// A window (or dialog) was created with content `bounds` (global): its port starts white.
pub(crate) fn port_created(m: &mut Machine, ptr: u32, bounds: Rect) {
    let (w, h) = (
        (bounds[3] - bounds[1]) as usize,
        (bounds[2] - bounds[0]) as usize,
    );
    m.display().ports.insert(ptr, Bitmap::new(w, h));
}

/// QuickDraw drew `op` in the port of window `port`.
pub(crate) fn draw(m: &mut Machine, port: u32, op: Draw<'_>) {
    let Some(bm) = m.display().ports.get_mut(&port) else {
        return;
    };
    let clip = bm.bounds();
    match op {
        Draw::Text {
            h,
            v,
            font,
            size,
            text,
        } => {
            bm.text(
                render_font::for_port(font, size),
                h as i32,
                v as i32,
                text,
                clip,
            );
        }
        Draw::Rect { op, rect } => match op {
            "EraseRect" => bm.fill(rect, false),
            "PaintRect" => bm.fill(rect, true),
            "InvertRect" => bm.invert(rect),
            "FrameRect" => bm.frame(rect),
            _ => {}
        },
        Draw::Line { from, to } => {
            bm.line(from.0 as i32, from.1 as i32, to.0 as i32, to.1 as i32);
        }
    }
}

/// The value of item `item` of dialog `dialog` became `value` (for the Control Manager
/// model's `SetControlValue`/`SetDialogItem` paths to call: check boxes and radio buttons
/// draw it).
pub fn set_control_value(m: &mut Machine, dialog: u32, item: i16, value: i16) {
    m.display().values.insert((dialog, item), value);
}

/// An alert came up (its `ALRT` resource `alrt`, its items, the default item).
pub(crate) fn alert_shown(
    m: &mut Machine,
    kind: AlertKind,
    alrt: &[u8],
    items: &[dialogs::DItem],
    default: i16,
) {
    let r = |o: usize| i16::from_be_bytes([alrt[o], alrt[o + 1]]);
    let rect = [r(0), r(2), r(4), r(6)];
    let items = items
        .iter()
        .map(|it| (it.clone(), substitute(m, &it.text)))
        .collect();
    m.display().alert = Some(AlertBox {
        kind,
        rect,
        items,
        default,
    });
}

/// The alert went away.
pub(crate) fn alert_gone(m: &mut Machine) {
    m.display().alert = None;
}

/// The scripted user is about to act with `input`.
pub(crate) fn before_input(m: &mut Machine, input: &Input) {
    if m.display().capture {
        let screen = compose(m);
        let menu_open = match input {
            Input::Menu { .. } => m.toolbox().mm.pending.and_then(|(id, item)| {
                let mut s = screen.clone();
                pull_down(m, &mut s, id, item).then_some(s)
            }),
            _ => None,
        };
        m.display().captured.push(Captured {
            before: input.clone(),
            screen,
            menu_open,
        });
    }
}

/// Draw menu `id` pulled down from the menu bar with item `item` highlighted (false if the
/// menu is not in the bar).
fn pull_down(m: &mut Machine, screen: &mut Bitmap, id: i16, item: i16) -> bool {
    let Some((titles, _)) = menu_bar_titles(m) else {
        return false;
    };
    let mm = &m.toolbox().mm;
    let Some(i) = mm.bar.iter().position(|h| mm.menus[h].id == id) else {
        return false;
    };
    let menu = &mm.menus[&mm.bar[i]];
    let lines: Vec<chrome::MenuLine<'_>> = menu
        .items
        .iter()
        .map(|it| chrome::MenuLine {
            text: &it.text,
            key: it.key,
            enabled: it.enabled && menu.enabled,
        })
        .collect();
    let span = chrome::menu_title_spans(&titles)[i];
    chrome::pulled_down_menu(screen, span, &lines, item.max(0) as usize);
    true
}

/// `^0`–`^3` replaced by `ParamText`'s strings.
fn substitute(m: &mut Machine, text: &[u8]) -> Vec<u8> {
    let params = m.toolbox().dm.params.clone();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'^' && text.get(i + 1).is_some_and(|c| (b'0'..=b'3').contains(c)) {
            out.extend_from_slice(&params[(text[i + 1] - b'0') as usize]);
            i += 2;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// The menu titles (raw Mac Roman) and the highlighted one, once `DrawMenuBar` ran.
pub fn menu_bar_titles(m: &mut Machine) -> Option<(Vec<Vec<u8>>, Option<usize>)> {
    let tb = m.toolbox();
    if !tb.screen.seen.iter().any(|s| matches!(s, Seen::MenuBar(_))) {
        return None;
    }
    let mm = &tb.mm;
    let titles: Vec<Vec<u8>> = mm.bar.iter().map(|h| mm.menus[h].title.clone()).collect();
    let hilited = mm.bar.iter().position(|h| mm.menus[h].id == mm.hilited);
    Some((titles, hilited.filter(|_| mm.hilited != 0)))
}

fn compose(m: &mut Machine) -> Bitmap {
    let (w, h) = m.screen_size();
    let mut screen = Bitmap::new(w as usize, h as usize);
    chrome::desktop(&mut screen);
    let alert_up = m.display().alert.is_some();
    let windows: Vec<windows::Window> = m.toolbox().wm.windows.clone();
    let front = windows.iter().position(|w| w.visible);
    for (i, win) in windows.iter().enumerate().rev().filter(|(_, w)| w.visible) {
        let b = win.bounds;
        let active = Some(i) == front && !alert_up;
        let mut content = m
            .display()
            .ports
            .get(&win.ptr)
            .cloned()
            .unwrap_or_else(|| Bitmap::new((b[3] - b[1]) as usize, (b[2] - b[0]) as usize));
        match win.kind {
            WindowKind::Document => {
                let go_away = m.read_u8(win.ptr + windows::WINDOW_GO_AWAY) != 0;
                chrome::document_frame(&mut screen, b, &win.title, active, go_away);
            }
            WindowKind::Dialog => {
                chrome::dialog_frame(&mut screen, b);
                let items = m
                    .toolbox()
                    .dm
                    .dialogs
                    .iter()
                    .find(|d| d.ptr == win.ptr)
                    .map(|d| d.items.clone())
                    .unwrap_or_default();
                // The Dialog Manager draws the items; the application's drawing goes on top.
                let mut with_items = Bitmap::new(content.width, content.height);
                for (n, it) in items.iter().enumerate() {
                    let text = substitute(m, &it.text);
                    let key = (win.ptr, n as i16 + 1);
                    let value = m.display().values.get(&key).copied().unwrap_or(0);
                    chrome::dialog_item(&mut with_items, it, &text, false, value);
                }
                overlay(&mut with_items, &content);
                content = with_items;
            }
        }
        screen.copy_from(&content, b[1] as i32, b[0] as i32, screen.bounds());
    }
    if let Some((titles, hilited)) = menu_bar_titles(m) {
        chrome::menu_bar(&mut screen, &titles, hilited);
    }
    if let Some(a) = m.display().alert.clone() {
        let r = a.rect;
        chrome::dialog_frame(&mut screen, r);
        let mut content = Bitmap::new((r[3] - r[1]) as usize, (r[2] - r[0]) as usize);
        let (iv, ih) = chrome::ALERT_ICON_AT;
        chrome::alert_icon(&mut content, a.kind, ih as i32, iv as i32);
        for (n, (it, text)) in a.items.iter().enumerate() {
            chrome::dialog_item(&mut content, it, text, n as i16 + 1 == a.default, 0);
        }
        screen.copy_from(&content, r[1] as i32, r[0] as i32, screen.bounds());
    }
    screen
}

/// Black pixels of `top` onto `base` (same size).
fn overlay(base: &mut Bitmap, top: &Bitmap) {
    for y in 0..top.height as i32 {
        for x in 0..top.width as i32 {
            if top.get(x, y) {
                base.set(x, y, true);
            }
        }
    }
}

/// Where a window's content lies on the screen, and its structure (frame, title bar,
/// shadow) around it.
pub fn window_structure(kind: WindowKind, content: Rect) -> Rect {
    match kind {
        WindowKind::Document => chrome::document_structure(content),
        WindowKind::Dialog => super::render_bitmap::outset(content, 8),
    }
}

/// `r` (local to a window whose content is at `content`) in global coordinates.
pub fn to_global(content: Rect, r: Rect) -> Rect {
    offset(r, content[1], content[0])
}
