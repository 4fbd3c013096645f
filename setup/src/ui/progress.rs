//! The progress window (WIND 129): what the operation is doing, a bar, and a Cancel button
//! (a click on it, or ⌘-period). It is an [`ops::Monitor`]: between chunks of work it
//! redraws when the percentage moves and reads pending events — update events of its own
//! window are drawn; those of other windows are acknowledged and remembered so the caller
//! redraws them afterwards.

use alloc::string::String;
use core::fmt::Write;

use ferrite_macrt::app::Runtime;
use ferrite_macrt::event::{CHAR_CODE_MASK, CMD_KEY, EventRecord, Rect, part, what};
use ferrite_macrt::toolbox::{self as tb, WindowPtr};

use crate::ops::{Monitor, Stage};

/// WIND resource of the progress window.
pub const WINDOW: i16 = 129;
/// Where things are, in the window's local coordinates (it is 300 × 100).
pub const TEXT_AT: (i16, i16) = (16, 24);
pub const BAR: Rect = Rect {
    top: zerocopy::byteorder::big_endian::I16::new(36),
    left: zerocopy::byteorder::big_endian::I16::new(16),
    bottom: zerocopy::byteorder::big_endian::I16::new(48),
    right: zerocopy::byteorder::big_endian::I16::new(284),
};
/// The Cancel button (top, left, bottom, right).
pub const CANCEL: (i16, i16, i16, i16) = (66, 214, 86, 284);

/// What a stage is called on screen.
pub fn stage_words(s: Stage) -> &'static str {
    match s {
        Stage::LowLevelFormat => "Formatting the disk (FORMAT UNIT)",
        Stage::Volumes => "Writing the volumes",
        Stage::Driver => "Writing the driver",
        Stage::Map => "Writing the partition map",
        Stage::Verify => "Reading every block",
        Stage::Reassign => "Reassigning bad blocks",
        Stage::Benchmark => "Measuring the drive",
    }
}

pub struct Progress<'a> {
    rt: &'a Runtime,
    window: WindowPtr,
    shown: Option<(Stage, u64)>,
    /// The user asked to cancel.
    pub cancelled: bool,
    /// Another window got an update event while the progress was up.
    pub others_need_update: bool,
}

fn rect(r: (i16, i16, i16, i16)) -> Rect {
    Rect::new(r.0, r.1, r.2, r.3)
}

impl<'a> Progress<'a> {
    pub fn open(rt: &'a Runtime) -> Progress<'a> {
        let window = tb::new_window(WINDOW);
        let mut p = Progress {
            rt,
            window,
            shown: None,
            cancelled: false,
            others_need_update: false,
        };
        p.poll();
        p
    }

    fn in_port(&self, f: impl FnOnce()) {
        let old = tb::get_port();
        tb::set_port(self.window);
        f();
        tb::set_port(old);
    }

    /// The stage text and the bar.
    fn draw_state(&self) {
        let (words, pct) = match self.shown {
            Some((stage, pct)) => (stage_words(stage), pct),
            // Before the operation's first report.
            None => ("Starting", 0),
        };
        self.in_port(|| {
            tb::text_font(0);
            tb::text_size(12);
            tb::erase_rect(&Rect::new(8, 8, 34, 292));
            let mut s = String::from(words);
            if self.cancelled {
                s.push_str(": cancelling");
            } else {
                let _ = write!(s, "… {pct}%");
            }
            tb::move_to(TEXT_AT.0, TEXT_AT.1);
            tb::draw_text(&s);
            tb::erase_rect(&BAR);
            tb::frame_rect(&BAR);
            let (l, r) = (BAR.left.get(), BAR.right.get());
            let fill = l + ((r - l) as u64 * pct / 100) as i16;
            if fill > l {
                tb::paint_rect(&Rect::new(BAR.top.get(), l, BAR.bottom.get(), fill));
            }
        });
    }

    /// The Cancel button.
    fn draw_frame(&self) {
        self.in_port(|| {
            let c = rect(CANCEL);
            tb::frame_rect(&c);
            tb::text_font(0);
            tb::text_size(12);
            tb::move_to(CANCEL.1 + 14, CANCEL.0 + 15);
            tb::draw_text("Cancel");
        });
    }

    /// Handle what is pending: updates, ⌘-period, a click on Cancel.
    fn poll(&mut self) {
        let mut evt = EventRecord::default();
        while tb::next_event(self.rt.has_wne, 0, &mut evt) {
            match evt.what.get() {
                what::UPDATE => {
                    let w = evt.message.get();
                    tb::begin_update(w);
                    if w == self.window {
                        self.draw_frame();
                        self.draw_state();
                    } else {
                        self.others_need_update = true;
                    }
                    tb::end_update(w);
                }
                what::KEY_DOWN | what::AUTO_KEY
                    if evt.modifiers.get() & CMD_KEY != 0
                        && evt.message.get() & CHAR_CODE_MASK == b'.' as u32 =>
                {
                    self.cancel();
                }
                what::MOUSE_DOWN => {
                    let (p, w) = tb::find_window(evt.where_.get());
                    let mut hit = false;
                    if p == part::IN_CONTENT && w == self.window {
                        self.in_port(|| {
                            let (h, v) = tb::global_to_local(evt.where_.get());
                            hit = (CANCEL.0..CANCEL.2).contains(&v)
                                && (CANCEL.1..CANCEL.3).contains(&h);
                        });
                    }
                    if hit {
                        self.cancel();
                    } else {
                        tb::sys_beep(1);
                    }
                }
                _ => {}
            }
        }
    }

    fn cancel(&mut self) {
        if !self.cancelled {
            self.cancelled = true;
            self.draw_state();
        }
    }

    pub fn close(self) -> bool {
        tb::dispose_window(self.window);
        self.others_need_update
    }
}

impl Monitor for Progress<'_> {
    fn progress(&mut self, stage: Stage, done: u64, total: u64) -> bool {
        let pct = (done.min(total) * 100).checked_div(total).unwrap_or(0);
        if self.shown != Some((stage, pct)) {
            self.shown = Some((stage, pct));
            self.draw_state();
            self.poll();
        }
        !self.cancelled
    }
}
