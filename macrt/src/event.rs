//! The `EventRecord` and the constants of the Event, Window and Menu Managers
//! (`docs/mac-facts.md` §13.5).

use zerocopy::byteorder::big_endian::{I16, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `EventRecord`, 16 bytes.
#[derive(Debug, Clone, Copy, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct EventRecord {
    pub what: U16,
    pub message: U32,
    pub when: U32,
    /// `where`: v in the high word, h in the low word.
    pub where_: U32,
    pub modifiers: U16,
}
const _: () = assert!(core::mem::size_of::<EventRecord>() == 16);

/// Event codes.
pub mod what {
    pub const NULL: u16 = 0;
    pub const MOUSE_DOWN: u16 = 1;
    pub const MOUSE_UP: u16 = 2;
    pub const KEY_DOWN: u16 = 3;
    pub const KEY_UP: u16 = 4;
    pub const AUTO_KEY: u16 = 5;
    pub const UPDATE: u16 = 6;
    pub const DISK: u16 = 7;
    pub const ACTIVATE: u16 = 8;
    pub const OS: u16 = 15;
}

/// `everyEvent`.
pub const EVERY_EVENT: u16 = 0xFFFF;
/// `charCodeMask` of `message` for key events.
pub const CHAR_CODE_MASK: u32 = 0xFF;
/// `cmdKey` in `modifiers`.
pub const CMD_KEY: u16 = 0x0100;

/// `FindWindow` results.
pub mod part {
    pub const IN_DESK: i16 = 0;
    pub const IN_MENU_BAR: i16 = 1;
    pub const IN_SYS_WINDOW: i16 = 2;
    pub const IN_CONTENT: i16 = 3;
    pub const IN_DRAG: i16 = 4;
    pub const IN_GROW: i16 = 5;
    pub const IN_GO_AWAY: i16 = 6;
}

/// A `MenuSelect`/`MenuKey` result: menu ID in the high word, item in the low word
/// (menu 0 = nothing chosen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MenuChoice {
    pub menu: i16,
    pub item: i16,
}

impl MenuChoice {
    pub fn from_long(l: u32) -> Option<MenuChoice> {
        let menu = (l >> 16) as i16;
        (menu != 0).then_some(MenuChoice {
            menu,
            item: l as u16 as i16,
        })
    }
}

/// A `Rect` as the Toolbox lays it out: top, left, bottom, right.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct Rect {
    pub top: I16,
    pub left: I16,
    pub bottom: I16,
    pub right: I16,
}

impl Rect {
    pub fn new(top: i16, left: i16, bottom: i16, right: i16) -> Rect {
        Rect {
            top: top.into(),
            left: left.into(),
            bottom: bottom.into(),
            right: right.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::offset_of;

    #[test]
    fn layouts() {
        assert_eq!(offset_of!(EventRecord, message), 2);
        assert_eq!(offset_of!(EventRecord, when), 6);
        assert_eq!(offset_of!(EventRecord, where_), 10);
        assert_eq!(offset_of!(EventRecord, modifiers), 14);
        assert_eq!(core::mem::size_of::<Rect>(), 8);
        assert_eq!(
            MenuChoice::from_long(0x0081_0003),
            Some(MenuChoice { menu: 129, item: 3 })
        );
        assert_eq!(MenuChoice::from_long(0x0000_0003), None);
    }
}
