//! A modal dialog from a `DLOG`, its edit-text items read as text and its check boxes
//! toggled by the app (the Dialog Manager reports the click; the app sets the value).

use alloc::string::String;

use ferrite_macrt::pstr::Str255;
use ferrite_macrt::toolbox::{self as tb, DialogPtr};

/// A dialog on screen; disposed of when dropped.
pub struct Dialog {
    ptr: DialogPtr,
}

impl Dialog {
    pub fn open(id: i16) -> Dialog {
        Dialog {
            ptr: tb::new_dialog(id),
        }
    }

    /// `ModalDialog`: the item the user hit.
    pub fn next_hit(&self) -> i16 {
        tb::modal_dialog()
    }

    /// An edit-text item's text (Mac Roman read as ASCII; other bytes become '?').
    pub fn text(&self, item: i16) -> String {
        tb::dialog_item_text(self.ptr, item)
            .text()
            .iter()
            .map(|&b| {
                if (0x20..0x7F).contains(&b) {
                    b as char
                } else {
                    '?'
                }
            })
            .collect()
    }

    pub fn set_text(&self, item: i16, text: &str) {
        tb::set_dialog_item_text(self.ptr, item, &Str255::from_str(text));
    }

    /// Select all of an edit-text item (where typing goes).
    pub fn select(&self, item: i16) {
        tb::select_dialog_item_text(self.ptr, item);
    }

    pub fn checked(&self, item: i16) -> bool {
        tb::control_value(self.ptr, item) != 0
    }

    pub fn set_checked(&self, item: i16, on: bool) {
        tb::set_control_value(self.ptr, item, on as i16);
    }

    pub fn toggle(&self, item: i16) {
        self.set_checked(item, !self.checked(item));
    }

    /// Turn on radio button `item` of `group` and the others off (the app's to do: the
    /// Dialog Manager only reports the click).
    pub fn choose(&self, group: &[i16], item: i16) {
        for &i in group {
            self.set_checked(i, i == item);
        }
    }

    /// The position in `group` of the radio button that is on (the first when none is).
    pub fn chosen(&self, group: &[i16]) -> usize {
        group.iter().position(|&i| self.checked(i)).unwrap_or(0)
    }
}

impl Drop for Dialog {
    fn drop(&mut self) {
        tb::dispose_dialog(self.ptr);
    }
}
