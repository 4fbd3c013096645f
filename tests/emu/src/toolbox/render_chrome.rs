//! What the system draws around an application's drawing: the desktop, the menu bar, window
//! frames (document windows with a title bar, dialog boxes with a double border), dialog
//! items (push buttons with rounded corners, check boxes, radio buttons, static and edit
//! text) and the alert icons. Geometry is in the style of the System 6/7 black-and-white
//! look; each measure is a named constant (modelling choices, docs/emulated-mac.md).

use super::render_bitmap::{Bitmap, Rect, outset};
use super::render_font::{self, BitmapFont};
use super::{AlertKind, dialogs};

/// Menu bar height in pixels, its bottom line included (the Window Manager's 20).
pub const MENU_BAR_HEIGHT: i16 = 20;
/// Baseline of the menu titles.
pub const MENU_BASELINE: i16 = 14;
/// Left edge of the first menu title's highlight.
pub const MENU_FIRST_LEFT: i16 = 10;
/// Space on either side of a menu title's text (inside its highlight).
pub const MENU_TITLE_PAD: i16 = 6;
/// Height of a document window's title bar, above the content (its frame lines included).
pub const TITLE_BAR_HEIGHT: i16 = 19;
/// Radius of the screen's rounded corners.
pub const SCREEN_CORNER: i16 = 6;
/// Corner radius of push buttons.
pub const BUTTON_RADIUS: i16 = 8;
/// Size of the check box and radio button marks.
pub const MARK_SIZE: i16 = 12;
/// Where the alert icon sits in an alert's content (top, left; 32×32).
pub const ALERT_ICON_AT: (i16, i16) = (10, 20);

/// The desktop: 50% gray, black rounded screen corners.
pub fn desktop(bm: &mut Bitmap) {
    let b = bm.bounds();
    bm.fill_gray(b);
    let (w, h) = (b[3], b[2]);
    for (x0, y0) in [
        (0, 0),
        (w - SCREEN_CORNER, 0),
        (0, h - SCREEN_CORNER),
        (w - SCREEN_CORNER, h - SCREEN_CORNER),
    ] {
        let corner = [y0, x0, y0 + SCREEN_CORNER, x0 + SCREEN_CORNER];
        // Black where the rounded screen is not.
        let mut mask = Bitmap::new(w as usize, h as usize);
        mask.fill_round(b, SCREEN_CORNER, true);
        for y in corner[0]..corner[2] {
            for x in corner[1]..corner[3] {
                if !mask.get(x as i32, y as i32) {
                    bm.set(x as i32, y as i32, true);
                }
            }
        }
    }
}

/// Where each menu title's highlight lies (left, right), in order.
pub fn menu_title_spans(titles: &[Vec<u8>]) -> Vec<(i16, i16)> {
    let f = render_font::system();
    let mut left = MENU_FIRST_LEFT;
    titles
        .iter()
        .map(|t| {
            let right = left + 2 * MENU_TITLE_PAD + f.width(t);
            let span = (left, right);
            left = right;
            span
        })
        .collect()
}

/// The menu bar with `titles`; the title at index `hilited` is inverted.
pub fn menu_bar(bm: &mut Bitmap, titles: &[Vec<u8>], hilited: Option<usize>) {
    let w = bm.width as i16;
    // White with rounded top corners, black bottom line.
    bm.fill(
        [0, SCREEN_CORNER, MENU_BAR_HEIGHT - 1, w - SCREEN_CORNER],
        false,
    );
    bm.fill(
        [SCREEN_CORNER, 0, MENU_BAR_HEIGHT - 1, SCREEN_CORNER],
        false,
    );
    bm.fill(
        [SCREEN_CORNER, w - SCREEN_CORNER, MENU_BAR_HEIGHT - 1, w],
        false,
    );
    let mut corners = Bitmap::new(bm.width, MENU_BAR_HEIGHT as usize);
    corners.fill_round([0, 0, 2 * SCREEN_CORNER, w], SCREEN_CORNER, true);
    for y in 0..SCREEN_CORNER as i32 {
        for x in (0..SCREEN_CORNER as i32).chain((w - SCREEN_CORNER) as i32..w as i32) {
            bm.set(x, y, !corners.get(x, y));
        }
    }
    bm.fill([MENU_BAR_HEIGHT - 1, 0, MENU_BAR_HEIGHT, w], true);
    let f = render_font::system();
    let bar = [0, 0, MENU_BAR_HEIGHT - 1, w];
    for (i, (t, (l, r))) in titles.iter().zip(menu_title_spans(titles)).enumerate() {
        bm.text(f, (l + MENU_TITLE_PAD) as i32, MENU_BASELINE as i32, t, bar);
        if hilited == Some(i) {
            bm.invert([0, l, MENU_BAR_HEIGHT - 1, r]);
        }
    }
}

/// Height of one item of a pulled-down menu.
pub const MENU_ITEM_HEIGHT: i16 = 16;

/// A menu item as drawn: its text (`-` alone: a separator), its command key (0: none),
/// enabled.
pub struct MenuLine<'a> {
    pub text: &'a [u8],
    pub key: u8,
    pub enabled: bool,
}

/// The menu under title `span` pulled down, item `chosen` (1-based) highlighted; the title is
/// inverted. Returns the menu's rectangle (its shadow excluded).
pub fn pulled_down_menu(
    bm: &mut Bitmap,
    span: (i16, i16),
    items: &[MenuLine<'_>],
    chosen: usize,
) -> Rect {
    let f = render_font::system();
    bm.invert([0, span.0, MENU_BAR_HEIGHT - 1, span.1]);
    let key_w = |k: u8| f.width(&[0x11, k]);
    let keys = items.iter().map(|i| i.key).filter(|&k| k != 0);
    let key_col = keys.map(key_w).max().map_or(0, |w| w + 16);
    let text_w = items.iter().map(|i| f.width(i.text)).max().unwrap_or(0);
    let width = 14 + text_w + key_col + 10;
    let top = MENU_BAR_HEIGHT - 1;
    let r = [
        top,
        span.0,
        top + MENU_ITEM_HEIGHT * items.len() as i16 + 2,
        span.0 + width,
    ];
    bm.fill(r, false);
    bm.frame(r);
    bm.fill([r[0] + 2, r[3], r[2] + 1, r[3] + 1], true);
    bm.fill([r[2], r[1] + 2, r[2] + 1, r[3] + 1], true);
    for (n, it) in items.iter().enumerate() {
        let row = [
            top + 1 + MENU_ITEM_HEIGHT * n as i16,
            r[1] + 1,
            top + 1 + MENU_ITEM_HEIGHT * (n as i16 + 1),
            r[3] - 1,
        ];
        if it.text == b"-" {
            let y = (row[0] + row[2]) / 2;
            for x in row[1]..row[3] {
                if x % 2 == 0 {
                    bm.set(x as i32, y as i32, true);
                }
            }
            continue;
        }
        let v = (row[0] + 12) as i32;
        bm.text(f, (r[1] + 14) as i32, v, it.text, row);
        if it.key != 0 {
            let h = r[3] - 10 - key_w(it.key);
            bm.text(f, h as i32, v, &[0x11, it.key], row);
        }
        if !it.enabled {
            // Gray text: every other pixel cleared.
            for y in row[0]..row[2] {
                for x in row[1]..row[3] {
                    if (x + y) % 2 == 0 {
                        bm.set(x as i32, y as i32, false);
                    }
                }
            }
        } else if n + 1 == chosen {
            bm.invert(row);
        }
    }
    r
}

/// The whole area a document window covers: frame, title bar and drop shadow.
pub fn document_structure(content: Rect) -> Rect {
    [
        content[0] - TITLE_BAR_HEIGHT,
        content[1] - 1,
        content[2] + 2,
        content[3] + 2,
    ]
}

/// A document window's frame and title bar around `content` (global); `active`: stripes and
/// close box (when `go_away`).
pub fn document_frame(bm: &mut Bitmap, content: Rect, title: &[u8], active: bool, go_away: bool) {
    let s = document_structure(content);
    let frame = [s[0], s[1], s[2] - 1, s[3] - 1];
    bm.fill(frame, false);
    bm.frame(frame);
    // Drop shadow, one pixel right and below.
    bm.fill([s[0] + 1, s[3] - 1, s[2], s[3]], true);
    bm.fill([s[2] - 1, s[1] + 1, s[2], s[3]], true);
    // The line between the title bar and the content.
    bm.fill([content[0] - 1, s[1], content[0], s[3] - 1], true);
    let (top, left, right) = (s[0], s[1], s[3] - 1);
    let f = render_font::system();
    let tw = f.width(title);
    let mid = (left + right) / 2;
    let text_left = mid - tw / 2;
    if active {
        // Six one-pixel stripes, every other row, one pixel in from the frame.
        for k in 0..6 {
            let y = top + 4 + 2 * k;
            bm.fill([y, left + 2, y + 1, right - 2], true);
        }
        // The title sits in a white gap.
        bm.fill(
            [top + 2, text_left - 8, top + 17, text_left + tw + 7],
            false,
        );
        if go_away {
            let cb = [top + 4, left + 9, top + 15, left + 20];
            bm.fill(outset(cb, 1), false);
            bm.frame(cb);
        }
    }
    let bar = [top + 1, left + 1, content[0] - 1, right - 1];
    bm.text(f, text_left as i32, (top + 14) as i32, title, bar);
}

/// A dialog box's (or alert's) double border around `content` (global).
pub fn dialog_frame(bm: &mut Bitmap, content: Rect) {
    let outer = outset(content, 8);
    bm.fill(outer, false);
    bm.frame(outer);
    bm.frame_thick(outset(content, 5), 2);
}

/// One dialog item drawn into a dialog's content (local coordinates); `default` draws the
/// heavy outline of the default button; `value` 1 checks a check box (an X) or selects a
/// radio button (a dot).
pub fn dialog_item(bm: &mut Bitmap, it: &dialogs::DItem, text: &[u8], default: bool, value: i16) {
    let f = render_font::system();
    let r = it.rect;
    match it.kind & !dialogs::ITEM_DISABLE {
        dialogs::BUTTON => {
            bm.fill_round(r, BUTTON_RADIUS, false);
            bm.frame_round(r, BUTTON_RADIUS, 1);
            let tw = f.width(text);
            let h = (r[1] + r[3]) / 2 - tw / 2;
            bm.text(
                f,
                h as i32,
                centred_baseline(f, r) as i32,
                text,
                outset(r, -1),
            );
            if default {
                bm.frame_round(outset(r, 4), BUTTON_RADIUS + 4, 3);
            }
        }
        k @ (dialogs::CHECKBOX | dialogs::RADIO) => {
            let top = (r[0] + r[2]) / 2 - MARK_SIZE / 2;
            let mark = [top, r[1] + 2, top + MARK_SIZE, r[1] + 2 + MARK_SIZE];
            if k == dialogs::CHECKBOX {
                bm.fill(mark, false);
                bm.frame(mark);
                if value != 0 {
                    let (l, t, r, b) = (
                        mark[1] as i32,
                        mark[0] as i32,
                        mark[3] as i32 - 1,
                        mark[2] as i32 - 1,
                    );
                    bm.line(l, t, r, b);
                    bm.line(l, b, r, t);
                }
            } else {
                bm.fill_round(mark, MARK_SIZE / 2, false);
                bm.frame_round(mark, MARK_SIZE / 2, 1);
                if value != 0 {
                    bm.fill_round(outset(mark, -3), MARK_SIZE / 2 - 3, true);
                }
            }
            bm.text(
                f,
                (mark[3] + 5) as i32,
                centred_baseline(f, r) as i32,
                text,
                r,
            );
        }
        dialogs::STAT_TEXT => text_box(bm, f, r, text),
        dialogs::EDIT_TEXT => {
            bm.frame(outset(r, 3));
            text_box(bm, f, r, text);
        }
        _ => {}
    }
}

/// The baseline that centres a line of `f` vertically in `r`.
fn centred_baseline(f: &BitmapFont, r: Rect) -> i16 {
    r[0] + (r[2] - r[0] - f.ascent - f.descent) / 2 + f.ascent
}

/// `TETextBox`-style text: words wrapped to `r`'s width, left aligned, clipped to `r`;
/// `\r` ends a line.
pub fn text_box(bm: &mut Bitmap, f: &BitmapFont, r: Rect, text: &[u8]) {
    let width = r[3] - r[1];
    let mut v = r[0] + f.ascent;
    for para in text.split(|&c| c == b'\r') {
        let mut line: Vec<u8> = Vec::new();
        for word in para.split(|&c| c == b' ') {
            let mut try_line = line.clone();
            if !try_line.is_empty() {
                try_line.push(b' ');
            }
            try_line.extend_from_slice(word);
            if f.width(&try_line) > width && !line.is_empty() {
                bm.text(f, r[1] as i32, v as i32, &line, r);
                v += f.line_height();
                line = word.to_vec();
            } else {
                line = try_line;
            }
        }
        bm.text(f, r[1] as i32, v as i32, &line, r);
        v += f.line_height();
    }
}

/// The 32×32 alert icon of `kind` with its top-left corner at (`h`, `v`) (drawn here, not
/// copied: a stop octagon with a bar, a speech balloon, a warning triangle with `!`).
pub fn alert_icon(bm: &mut Bitmap, kind: AlertKind, h: i32, v: i32) {
    let mut put = |x: i32, y: i32| bm.set(h + x, v + y, true);
    match kind {
        AlertKind::Plain => {}
        AlertKind::Stop => {
            // Octagon: |x|+|y| cut corners; a two-pixel outline and a white bar inside.
            let inside = |x: i32, y: i32, m: i32| {
                let (cx, cy) = ((2 * x - 31).abs(), (2 * y - 31).abs());
                cx <= 31 - 2 * m && cy <= 31 - 2 * m && cx + cy <= 44 - 2 * m
            };
            for y in 0..32i32 {
                for x in 0..32i32 {
                    let ring = inside(x, y, 0) && !inside(x, y, 2);
                    let core = inside(x, y, 4) && !((6..26).contains(&x) && (13..19).contains(&y));
                    if ring || core {
                        put(x, y);
                    }
                }
            }
        }
        AlertKind::Note => {
            // A speech balloon (an ellipse outline with a tail) holding an `i`.
            for y in 0..32i32 {
                for x in 0..32i32 {
                    let e = |a: f64, b: f64| {
                        let (dx, dy) = ((x as f64 - 15.5) / a, (y as f64 - 12.5) / b);
                        dx * dx + dy * dy <= 1.0
                    };
                    let ring = e(15.5, 12.5) && !e(13.5, 10.5);
                    let tail = (22..31).contains(&y) && x >= 6 + (y - 22) / 2 && x <= 12 - (y - 22);
                    let dot = (14..18).contains(&x) && (5..8).contains(&y);
                    let stem = (14..18).contains(&x) && (10..20).contains(&y);
                    if ring || tail || dot || stem {
                        put(x, y);
                    }
                }
            }
        }
        AlertKind::Caution => {
            // A triangle with a two-pixel outline and a heavy `!`.
            for y in 0..32i32 {
                for x in 0..32i32 {
                    let half = |m: i32| (y - 1 - m) / 2 + 1 - m;
                    let tri = |m: i32| y > m && y < 31 - m && (2 * x - 31).abs() <= 2 * half(m);
                    let ring = tri(0) && !tri(2);
                    let bang =
                        (14..18).contains(&x) && ((10..22).contains(&y) || (24..27).contains(&y));
                    if ring || bang {
                        put(x, y);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(kind: u8, rect: Rect) -> dialogs::DItem {
        dialogs::DItem {
            kind,
            rect,
            text: Vec::new(),
            handle: 0,
        }
    }

    #[test]
    fn check_boxes_and_radio_buttons_show_their_value() {
        let r = [10, 10, 26, 120];
        for (kind, centre) in [(dialogs::CHECKBOX, true), (dialogs::RADIO, true)] {
            let mut off = Bitmap::new(140, 40);
            dialog_item(&mut off, &item(kind, r), b"Write cache", false, 0);
            let mut on = off.clone();
            dialog_item(&mut on, &item(kind, r), b"Write cache", false, 1);
            // The mark: 12 pixels at x = 12, centred on the item's middle row (18).
            let (cx, cy) = (12 + 6, 12 + 6);
            assert!(!off.get(cx, cy), "{kind}: unchecked centre is white");
            assert_eq!(on.get(cx, cy), centre, "{kind}: checked centre is black");
            assert!(
                off.get(12, cy) && on.get(12, cy),
                "{kind}: the mark's left edge"
            );
            // The title starts 5 pixels right of the mark.
            assert!(
                (29..40).any(|x| (12..24).any(|y| off.get(x, y))),
                "{kind}: title"
            );
        }
    }

    #[test]
    fn a_button_has_round_corners_and_a_centred_title() {
        let mut bm = Bitmap::new(100, 40);
        let r = [10, 20, 30, 80];
        dialog_item(&mut bm, &item(dialogs::BUTTON, r), b"OK", false, 0);
        assert!(bm.get(50, 10) && bm.get(50, 29) && bm.get(20, 20) && bm.get(79, 20));
        assert!(!bm.get(20, 10) && !bm.get(79, 29), "corners cut");
        let f = render_font::system();
        let left = 50 - f.width(b"OK") as i32 / 2;
        assert!(
            (left..left + 3).any(|x| bm.get(x, 20)),
            "title at the centre"
        );
    }
}
