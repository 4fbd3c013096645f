//! QuickDraw model: the QuickDraw globals `InitGraf` sets up (mac-facts §12.3), the current port
//! (kept where a real Mac keeps it: in the application's `thePort`, found through 0(A5)),
//! and drawing, both **recorded** (strings with their pen position, font and size, and shape
//! operations, into the [`super::ScreenRecord`]) and **drawn** into the port's bitmap
//! ([`super::render`]). Text widths are the [`super::render_font`] faces'. Drawing needs a
//! current port that is a live window or dialog.

use std::collections::BTreeMap;

use super::render::{self, Draw};
use super::{Frame, Ret, Seen, check_range, read_rect, read_str255, render_font, require};
use crate::error::Fault;
use crate::machine::Machine;
use crate::traps::TrapCall;

// QuickDraw globals, offsets from the `thePort` address InitGraf receives (mac-facts §12.3:
// thePort 4, white, black, gray, ltGray, dkGray 8 each, arrow 68, screenBits 14, randSeed 4,
// 76 private bytes = 206 bytes from high to low memory).
pub const QD_THE_PORT: i32 = 0;
pub const QD_WHITE: i32 = -8;
pub const QD_BLACK: i32 = -16;
pub const QD_GRAY: i32 = -24;
pub const QD_LT_GRAY: i32 = -32;
pub const QD_DK_GRAY: i32 = -40;
pub const QD_ARROW: i32 = -108;
pub const QD_SCREEN_BITS: i32 = -122;
pub const QD_RAND_SEED: i32 = -126;
/// Lowest byte of the globals.
pub const QD_GLOBALS_LOW: i32 = -202;
/// The screen of a Mac with a 13" 640×480 monitor (the 68020+ models' default; the 68000's
/// is 512×342: [`Machine::screen_size`]).
pub const SCREEN_BOUNDS: [i16; 4] = [0, 0, 480, 640];
/// `screenBits.baseAddr`: outside RAM, so code that writes pixels faults (the screen is the
/// renderer's, on the host).
pub const SCREEN_BASE: u32 = 0xF900_0000;
/// Font and size a new port starts with (systemFont = 0, 12 point).
pub const DEFAULT_FONT: (i16, i16) = (0, 12);

/// Per-port drawing state.
#[derive(Debug, Clone, Copy)]
pub struct PortState {
    pub pen: (i16, i16),
    pub font: i16,
    pub size: i16,
}

impl Default for PortState {
    fn default() -> Self {
        PortState {
            pen: (0, 0),
            font: DEFAULT_FONT.0,
            size: DEFAULT_FONT.1,
        }
    }
}

/// QuickDraw state.
#[derive(Default)]
pub struct QdState {
    /// Address of the application's `thePort` (what InitGraf got), 0 before InitGraf.
    pub globals: u32,
    pub ports: BTreeMap<u32, PortState>,
}

/// `InitGraf(globalPtr: Ptr)`: 0(A5) := globalPtr; fill the globals; thePort := NIL.
fn init_graf(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let g = f.long(m, 0);
    let low = (g as i64 + QD_GLOBALS_LOW as i64).max(0) as u32;
    check_range(
        m,
        call.word,
        "InitGraf's globalPtr (the address of thePort, with 202 bytes of globals below it)",
        low,
        206,
        true,
    )?;
    let a5 = m.toolbox().sl.a5;
    if a5 == 0 || m.a(5) != a5 {
        return Err(f.misuse(format!(
            "A5 is ${:08X}, not the application's A5 ${a5:08X}",
            m.a(5)
        )));
    }
    let at = |o: i32| (g as i64 + o as i64) as u32;
    m.write_u32(a5, g);
    m.write_u32(at(QD_THE_PORT), 0);
    for (o, pat) in [
        (QD_WHITE, [0u8; 8]),
        (QD_BLACK, [0xFF; 8]),
        (QD_GRAY, [0xAA, 0x55, 0xAA, 0x55, 0xAA, 0x55, 0xAA, 0x55]),
        (QD_LT_GRAY, [0x88, 0x22, 0x88, 0x22, 0x88, 0x22, 0x88, 0x22]),
        (QD_DK_GRAY, [0x77, 0xDD, 0x77, 0xDD, 0x77, 0xDD, 0x77, 0xDD]),
    ] {
        m.write_bytes(at(o), &pat);
    }
    m.bus_mut().fill_host(at(QD_ARROW), 68, 0);
    let sb = at(QD_SCREEN_BITS);
    m.write_u32(sb, SCREEN_BASE);
    let (width, height) = m.screen_size();
    m.write_u16(sb + 4, width.div_ceil(16) * 2);
    super::write_rect(m, sb + 6, [0, 0, height as i16, width as i16]);
    m.write_u32(at(QD_RAND_SEED), 1);
    let tb = m.toolbox();
    tb.qd.globals = g;
    tb.initialized.graf = true;
    f.ret(m, call, Ret::None)
}

/// The current port (`thePort`), checked to be a live window or dialog.
pub(crate) fn current_port(m: &mut Machine, call: &TrapCall) -> Result<u32, Fault> {
    let done = m.toolbox().initialized.graf;
    require(m, call, done, "InitGraf")?;
    let g = m.toolbox().qd.globals;
    let port = m.read_u32(g);
    if port == 0 {
        return Err(Fault::misuse(
            call.word,
            format!("_{}: thePort is NIL (SetPort to a window first)", call.name),
        ));
    }
    if !m.toolbox().qd.ports.contains_key(&port) {
        return Err(Fault::misuse(
            call.word,
            format!(
                "_{}: thePort ${port:08X} is not a live window or dialog",
                call.name
            ),
        ));
    }
    Ok(port)
}

/// `SetPort(port: GrafPtr)`.
fn set_port(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let done = m.toolbox().initialized.graf;
    require(m, call, done, "InitGraf")?;
    let p = f.long(m, 0);
    if !m.toolbox().qd.ports.contains_key(&p) {
        return Err(f.misuse(format!("${p:08X} is not a live window or dialog port")));
    }
    let g = m.toolbox().qd.globals;
    m.write_u32(g, p);
    f.ret(m, call, Ret::None)
}

/// `GetPort(VAR port: GrafPtr)`.
fn get_port(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let done = m.toolbox().initialized.graf;
    require(m, call, done, "InitGraf")?;
    let v = f.long(m, 0);
    check_range(m, call.word, "GetPort's VAR port", v, 4, true)?;
    let g = m.toolbox().qd.globals;
    let p = m.read_u32(g);
    m.write_u32(v, p);
    f.ret(m, call, Ret::None)
}

fn port_title(m: &mut Machine, port: u32) -> String {
    super::windows::title_of(m, port)
}

fn with_port<R>(m: &mut Machine, port: u32, f: impl FnOnce(&mut PortState) -> R) -> R {
    f(m.toolbox().qd.ports.entry(port).or_default())
}

/// `MoveTo(h, v: INTEGER)` / `Move(dh, dv)`.
fn move_to(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2, 2], 0)?;
    let (h, v) = (f.int(m, 0), f.int(m, 1));
    let port = current_port(m, call)?;
    let relative = call.number() == 0x094;
    with_port(m, port, |p| {
        p.pen = if relative {
            (p.pen.0.wrapping_add(h), p.pen.1.wrapping_add(v))
        } else {
            (h, v)
        }
    });
    f.ret(m, call, Ret::None)
}

/// `LineTo(h, v)`: recorded as a shape from the pen to (h, v).
fn line_to(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2, 2], 0)?;
    let (h, v) = (f.int(m, 0), f.int(m, 1));
    let port = current_port(m, call)?;
    let from = with_port(m, port, |p| std::mem::replace(&mut p.pen, (h, v)));
    render::draw(m, port, Draw::Line { from, to: (h, v) });
    let window = port_title(m, port);
    m.toolbox().screen.seen.push(Seen::Shape {
        window,
        op: "LineTo",
        rect: [from.1, from.0, v, h],
    });
    f.ret(m, call, Ret::None)
}

fn draw_text(m: &mut Machine, call: &TrapCall, text: Vec<u8>) -> Result<(), Fault> {
    let port = current_port(m, call)?;
    let st = with_port(m, port, |p| {
        let s = *p;
        let w = render_font::for_port(p.font, p.size).width(&text);
        p.pen.0 = p.pen.0.wrapping_add(w);
        s
    });
    render::draw(
        m,
        port,
        Draw::Text {
            h: st.pen.0,
            v: st.pen.1,
            font: st.font,
            size: st.size,
            text: &text,
        },
    );
    let window = port_title(m, port);
    let text = super::mac_roman_text(&text);
    m.toolbox().screen.seen.push(Seen::Text {
        window,
        h: st.pen.0,
        v: st.pen.1,
        font: st.font,
        size: st.size,
        text,
    });
    Ok(())
}

/// `DrawString(s: Str255)`.
fn draw_string(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let p = f.long(m, 0);
    let s = read_str255(m, call.word, "DrawString's string", p)?;
    draw_text(m, call, s)?;
    f.ret(m, call, Ret::None)
}

/// `DrawChar(ch: CHAR)`.
fn draw_char(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2], 0)?;
    let c = f.char(m, 0)?;
    draw_text(m, call, vec![c])?;
    f.ret(m, call, Ret::None)
}

/// `StringWidth(s: Str255): INTEGER`, in the current port's font ([`render_font`]).
fn string_width(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 2)?;
    let p = f.long(m, 0);
    let s = read_str255(m, call.word, "StringWidth's string", p)?;
    let port = current_port(m, call)?;
    let st = with_port(m, port, |p| *p);
    let w = render_font::for_port(st.font, st.size).width(&s);
    f.ret(m, call, Ret::Word(w as u16))
}

/// `TextFont(font)` / `TextSize(size)` / `TextFace(face)`.
fn text_attr(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2], 0)?;
    let v = f.int(m, 0);
    let port = current_port(m, call)?;
    let n = call.number();
    if n == 0x08A && v < 0 {
        return Err(f.misuse(format!("text size {v}")));
    }
    with_port(m, port, |p| match n {
        0x087 => p.font = v,
        0x08A => p.size = v,
        _ => {}
    });
    f.ret(m, call, Ret::None)
}

/// Rect operations: `EraseRect`, `FrameRect`, `PaintRect`, `InvertRect`, and
/// `InvalRect`/`ValidRect` (update region; see [`super::windows`]).
fn rect_op(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let p = f.long(m, 0);
    let r = read_rect(m, call.word, "the rectangle", p)?;
    let port = current_port(m, call)?;
    let op = match call.number() {
        0x0A3 => "EraseRect",
        0x0A1 => "FrameRect",
        0x0A2 => "PaintRect",
        0x0A4 => "InvertRect",
        0x128 => {
            super::windows::invalidate(m, port, true);
            return f.ret(m, call, Ret::None);
        }
        _ => {
            super::windows::invalidate(m, port, false);
            return f.ret(m, call, Ret::None);
        }
    };
    render::draw(m, port, Draw::Rect { op, rect: r });
    let window = port_title(m, port);
    m.toolbox().screen.seen.push(Seen::Shape {
        window,
        op,
        rect: r,
    });
    f.ret(m, call, Ret::None)
}

/// `PenNormal`, `InitCursor`: no state the record shows.
fn no_args(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 0)?;
    if call.number() == 0x050 {
        let done = m.toolbox().initialized.graf;
        require(m, call, done, "InitGraf")?;
    }
    f.ret(m, call, Ret::None)
}

/// `SetCursor(crsr: Cursor)`: the pointer must name 68 bytes.
fn set_cursor(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let p = f.long(m, 0);
    check_range(m, call.word, "SetCursor's Cursor", p, 68, true)?;
    f.ret(m, call, Ret::None)
}

/// `GlobalToLocal(VAR pt: Point)` / `LocalToGlobal(VAR pt: Point)`: the current port is a
/// window whose local origin (0, 0) is the top left of its content in global coordinates
/// (the model does not scroll ports: `SetOrigin` is not modelled).
fn global_local(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let p = f.long(m, 0);
    check_range(m, call.word, "the VAR Point", p, 4, true)?;
    let port = current_port(m, call)?;
    let Some(b) = m
        .toolbox()
        .wm
        .windows
        .iter()
        .find(|w| w.ptr == port)
        .map(|w| w.bounds)
    else {
        return Err(f.misuse(format!("thePort ${port:08X} is not a window")));
    };
    let sign: i16 = if call.number() == 0x071 { -1 } else { 1 };
    let v = (m.read_u16(p) as i16).wrapping_add(sign * b[0]);
    let h = (m.read_u16(p + 2) as i16).wrapping_add(sign * b[1]);
    m.write_u16(p, v as u16);
    m.write_u16(p + 2, h as u16);
    f.ret(m, call, Ret::None)
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA871, "GlobalToLocal", global_local);
    m.register_trap(0xA870, "LocalToGlobal", global_local);
    m.register_trap(0xA86E, "InitGraf", init_graf);
    m.register_trap(0xA873, "SetPort", set_port);
    m.register_trap(0xA874, "GetPort", get_port);
    m.register_trap(0xA893, "MoveTo", move_to);
    m.register_trap(0xA894, "Move", move_to);
    m.register_trap(0xA891, "LineTo", line_to);
    m.register_trap(0xA884, "DrawString", draw_string);
    m.register_trap(0xA883, "DrawChar", draw_char);
    m.register_trap(0xA88C, "StringWidth", string_width);
    m.register_trap(0xA887, "TextFont", text_attr);
    m.register_trap(0xA88A, "TextSize", text_attr);
    m.register_trap(0xA888, "TextFace", text_attr);
    m.register_trap(0xA8A3, "EraseRect", rect_op);
    m.register_trap(0xA8A1, "FrameRect", rect_op);
    m.register_trap(0xA8A2, "PaintRect", rect_op);
    m.register_trap(0xA8A4, "InvertRect", rect_op);
    m.register_trap(0xA928, "InvalRect", rect_op);
    m.register_trap(0xA92A, "ValidRect", rect_op);
    m.register_trap(0xA89E, "PenNormal", no_args);
    m.register_trap(0xA850, "InitCursor", no_args);
    m.register_trap(0xA851, "SetCursor", set_cursor);
}
