//! The application: start-up, the SCSI bus window, About, Rescan and Quit.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use ferrite_macrt::app::{self, Application, Flow, Menus};
use ferrite_macrt::event::{MenuChoice, Rect};
use ferrite_macrt::pstr::Str255;
use ferrite_macrt::toolbox::{self as tb, WindowPtr};

use crate::bus::{self, Transport};
use crate::scsi::{Scsi43, ScsiOld};

/// Resource IDs (setup/resources.rdef).
const MBAR: i16 = 128;
const APPLE_MENU: i16 = 128;
const FILE_MENU: i16 = 129;
const EDIT_MENU: i16 = 130;
const BUS_WINDOW: i16 = 128;
const ABOUT_ALERT: i16 = 128;
/// File menu items.
const RESCAN: i16 = 1;
const QUIT: i16 = 3;
/// `_SCSIAtomic`: present with SCSI Manager 4.3.
const SCSI_ATOMIC: u16 = 0xA089;
/// Monaco 9: fixed width, so the columns line up.
const MONACO: i16 = 4;
const LINE_HEIGHT: i16 = 12;
const LEFT: i16 = 8;

struct Setup {
    window: WindowPtr,
    transport: Box<dyn Transport>,
    lines: Vec<String>,
}

impl Setup {
    fn scan(&mut self) {
        let slots = bus::scan(self.transport.as_mut());
        self.lines.clear();
        for (id, slot) in &slots {
            self.lines.extend(bus::rows(*id, slot));
        }
    }
}

impl Application for Setup {
    fn about(&mut self) {
        let version = Str255::from_str(env!("CARGO_PKG_VERSION"));
        let via = Str255::from_str(self.transport.name());
        let empty = Str255::new();
        tb::param_text([&version, &via, &empty, &empty]);
        tb::note_alert(ABOUT_ALERT);
    }

    fn command(&mut self, c: MenuChoice) -> Flow {
        match (c.menu, c.item) {
            (FILE_MENU, RESCAN) => {
                self.scan();
                tb::set_port(self.window);
                tb::inval_rect(&Rect::new(0, 0, 32000, 32000));
                Flow::Continue
            }
            (FILE_MENU, QUIT) => Flow::Quit,
            _ => Flow::Continue,
        }
    }

    fn draw(&mut self, _window: WindowPtr) {
        tb::text_font(MONACO);
        tb::text_size(9);
        let mut v = 16;
        tb::move_to(LEFT, v);
        let mut head = String::from("SCSI bus, through the ");
        head.push_str(self.transport.name());
        tb::draw_text(&head);
        v += LINE_HEIGHT / 2;
        for line in &self.lines {
            v += LINE_HEIGHT;
            tb::move_to(LEFT, v);
            tb::draw_text(line);
        }
    }

    fn quit(&mut self) {
        tb::dispose_window(self.window);
    }
}

/// The application's entry (jump-table entry 0, through the start-up stub).
#[unsafe(no_mangle)]
pub extern "C" fn main() -> ! {
    let rt = app::start(Menus {
        mbar: MBAR,
        apple: APPLE_MENU,
        edit: EDIT_MENU,
    });
    let transport: Box<dyn Transport> = if tb::trap_available(SCSI_ATOMIC) {
        Box::new(Scsi43::new())
    } else {
        Box::new(ScsiOld)
    };
    let mut setup = Setup {
        window: 0,
        transport,
        lines: Vec::new(),
    };
    setup.scan();
    setup.window = tb::new_window(BUS_WINDOW);
    tb::set_port(setup.window);
    app::run(&rt, &mut setup)
}
