//! The SCSI Bus window's list: one or two lines per ID, a heading, and which device a click
//! (or the arrow keys) selects.

use alloc::string::String;
use alloc::vec::Vec;

use crate::bus::{self, Slot};

/// Monaco 9: fixed width, so the columns line up.
pub const FONT: i16 = 4;
pub const FONT_SIZE: i16 = 9;
/// Distance between base lines.
pub const LINE_HEIGHT: i16 = 12;
/// Left margin.
pub const LEFT: i16 = 8;
/// Base line of the heading.
pub const HEADING_BASE: i16 = 16;
/// Base line of the first row (half a line below the heading's next).
pub const FIRST_BASE: i16 = HEADING_BASE + LINE_HEIGHT + LINE_HEIGHT / 2;
/// Pixels above a base line that belong to its line (ascent + leading).
pub const ASCENT: i16 = 9;
/// Right edge of the highlight.
pub const RIGHT: i16 = 472;
/// Advance of every character of Monaco 9.
pub const CHAR_WIDTH: i16 = 6;
/// Characters that fit on a line between the left margin and the highlight's right edge
/// (the window is 480 pixels wide, for a 512-pixel screen).
pub const COLUMNS: usize = ((RIGHT - LEFT) / CHAR_WIDTH) as usize;

/// One line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The device the line describes.
    pub id: u8,
    pub text: String,
    /// A disk that can be selected (a present block device).
    pub selectable: bool,
}

/// The list as drawn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BusList {
    pub lines: Vec<Line>,
    pub selected: Option<u8>,
}

/// `text` in lines of at most `columns` characters, broken after a space where there is
/// one (else inside a word); the lines after the first are indented by [`bus::INDENT`].
pub fn wrap(text: &str, columns: usize) -> Vec<String> {
    let indent = bus::INDENT.len();
    let mut out = Vec::new();
    let mut rest: Vec<char> = text.chars().collect();
    let mut first = true;
    loop {
        let room = if first { columns } else { columns - indent };
        if rest.len() <= room {
            let line: String = rest.iter().collect();
            out.push(if first {
                line
            } else {
                String::from(bus::INDENT) + &line
            });
            return out;
        }
        // The last space within the room (not at the start of the line: no empty lines).
        let cut = (1..=room)
            .rev()
            .find(|&i| rest[i] == ' ' && rest[i - 1] != ' ')
            .unwrap_or(room);
        let line: String = rest[..cut].iter().collect();
        let line = line.trim_end();
        out.push(if first {
            String::from(line)
        } else {
            String::from(bus::INDENT) + line
        });
        let skip = rest[cut..].iter().take_while(|&&c| c == ' ').count();
        rest.drain(..cut + skip);
        first = false;
    }
}

impl BusList {
    /// The lines for a scan's result; the selection survives when its device is still there.
    pub fn new(slots: &[(u8, Slot)], selected: Option<u8>) -> BusList {
        let mut lines = Vec::new();
        for (id, slot) in slots {
            let selectable = matches!(slot, Slot::Present(d) if d.inquiry.is_block_device());
            for row in bus::rows(*id, slot) {
                for text in wrap(&row, COLUMNS) {
                    lines.push(Line {
                        id: *id,
                        text,
                        selectable,
                    });
                }
            }
        }
        let selected = selected.filter(|s| lines.iter().any(|l| l.id == *s && l.selectable));
        BusList { lines, selected }
    }

    /// Base line of line `i`.
    pub fn base_line(i: usize) -> i16 {
        FIRST_BASE + LINE_HEIGHT * i as i16
    }

    /// The line under local point `v` (pixels from the window's top).
    pub fn line_at(&self, v: i16) -> Option<usize> {
        (0..self.lines.len()).find(|&i| {
            let base = Self::base_line(i);
            (base - ASCENT..base + LINE_HEIGHT - ASCENT).contains(&v)
        })
    }

    /// A click at local `(h, v)`: selects the device of the line under it when it is a disk,
    /// clears the selection elsewhere. Returns whether the selection changed.
    pub fn click(&mut self, _h: i16, v: i16) -> bool {
        let new = self
            .line_at(v)
            .map(|i| &self.lines[i])
            .filter(|l| l.selectable)
            .map(|l| l.id);
        let changed = new != self.selected;
        self.selected = new;
        changed
    }

    /// Move the selection to the previous (`up`) or next selectable device.
    pub fn step(&mut self, up: bool) -> bool {
        let mut ids: Vec<u8> = self
            .lines
            .iter()
            .filter(|l| l.selectable)
            .map(|l| l.id)
            .collect();
        ids.dedup();
        if ids.is_empty() {
            return false;
        }
        let next = match self.selected.and_then(|s| ids.iter().position(|&i| i == s)) {
            None => {
                if up {
                    ids[ids.len() - 1]
                } else {
                    ids[0]
                }
            }
            Some(p) if up => ids[p.saturating_sub(1)],
            Some(p) => ids[(p + 1).min(ids.len() - 1)],
        };
        let changed = Some(next) != self.selected;
        self.selected = Some(next);
        changed
    }

    /// The highlight of the selected device: (top, bottom) in local coordinates.
    pub fn highlight(&self) -> Option<(i16, i16)> {
        let s = self.selected?;
        let first = self.lines.iter().position(|l| l.id == s)?;
        let last = self.lines.iter().rposition(|l| l.id == s)?;
        Some((
            Self::base_line(first) - ASCENT,
            Self::base_line(last) + (LINE_HEIGHT - ASCENT),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{Capacity, Device, Inquiry};

    fn disk(vendor: &str) -> Slot {
        Slot::Present(Device {
            inquiry: Inquiry {
                qualifier: 0,
                device_type: 0,
                removable: false,
                vendor: vendor.into(),
                product: "P".into(),
                revision: "1".into(),
            },
            capacity: Some(Ok(Capacity {
                blocks: 2048,
                block_len: 512,
            })),
            label: None,
        })
    }

    #[test]
    fn long_lines_wrap_at_spaces_within_the_window() {
        let long =
            "ID 3  not scanned: the SCSI Manager reports the bus busy (scMgrBusyErr); Rescan later";
        let w = wrap(long, COLUMNS);
        assert_eq!(
            w,
            [
                "ID 3  not scanned: the SCSI Manager reports the bus busy (scMgrBusyErr);",
                "      Rescan later"
            ]
        );
        assert!(w.iter().all(|l| l.chars().count() <= COLUMNS));
        assert_eq!(wrap("short", COLUMNS), ["short"]);
        // No space: broken inside the word; every character kept.
        let word = "x".repeat(100);
        let w = wrap(&word, 40);
        assert_eq!(w.len(), 3);
        assert!(w.iter().all(|l| l.chars().count() <= 40));
        let joined: String = w.iter().map(|l| l.trim_start()).collect();
        assert_eq!(joined, word);
        // Left margin plus the widest line ends inside the highlight.
        assert!(LEFT + COLUMNS as i16 * CHAR_WIDTH <= RIGHT);
    }

    #[test]
    fn clicks_select_the_disk_under_them() {
        let slots = [(0, disk("A")), (1, Slot::Absent), (3, disk("B"))];
        let mut l = BusList::new(&slots, None);
        // Three lines per disk: the device, its size, what is on it.
        assert_eq!(l.lines.len(), 7);
        // Line 4 (ID 3's first line): base line FIRST_BASE + 48.
        let v = BusList::base_line(4) - 2;
        assert!(l.click(100, v));
        assert_eq!(l.selected, Some(3));
        // ID 3's other lines select the same device: no change.
        assert!(!l.click(100, BusList::base_line(5)));
        assert!(!l.click(100, BusList::base_line(6)));
        // "ID 1 no device" is not selectable: clears.
        assert!(l.click(100, BusList::base_line(3)));
        assert_eq!(l.selected, None);
        // The heading clears too.
        l.click(100, HEADING_BASE);
        assert_eq!(l.selected, None);
        assert!(l.step(false));
        assert_eq!(l.selected, Some(0));
        assert!(l.step(false));
        assert_eq!(l.selected, Some(3));
        assert!(!l.step(false));
        assert_eq!(
            l.highlight(),
            Some((
                BusList::base_line(4) - ASCENT,
                BusList::base_line(6) + LINE_HEIGHT - ASCENT
            ))
        );
        // Every pixel row of a line maps back to it.
        for i in 0..7 {
            let b = BusList::base_line(i);
            for v in b - ASCENT..=b + 2 {
                assert_eq!(l.line_at(v), Some(i), "v {v}");
            }
        }
        // The selection survives a rescan only while its device is there.
        assert_eq!(BusList::new(&slots, Some(3)).selected, Some(3));
        assert_eq!(BusList::new(&slots[..2], Some(3)).selected, None);
    }
}
