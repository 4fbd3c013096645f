//! The application: start-up, the SCSI bus window with its selected device, the File and
//! Drive menus, About, Rescan and Quit. Each Drive command is a module of [`crate::ui`].

use alloc::boxed::Box;
use alloc::string::String;

use ferrite_macrt::app::{self, Application, Flow, Menus, Runtime};
use ferrite_macrt::event::{EventRecord, MenuChoice, Rect};
use ferrite_macrt::pstr::Str255;
use ferrite_macrt::toolbox::{self as tb, WindowPtr};

use crate::bus::{self, Transport};
use crate::scsi::{Scsi43, ScsiOld};
use crate::ui::bus_list::{self, BusList};
use crate::ui::{alerts, commands, drives, lowmem};

/// Resource IDs (setup/resources.rdef).
const MBAR: i16 = 128;
const APPLE_MENU: i16 = 128;
const FILE_MENU: i16 = 129;
const EDIT_MENU: i16 = 130;
const DRIVE_MENU: i16 = 131;
const BUS_WINDOW: i16 = 128;
const ABOUT_ALERT: i16 = 128;
/// File menu items.
const RESCAN: i16 = 1;
const QUIT: i16 = 3;
/// Edit menu items (Undo, -, Cut, Copy, Paste, Clear).
const COPY: i16 = 4;
/// Drive menu items.
const INITIALIZE: i16 = 1;
const PARTITION: i16 = 2;
const UPDATE_DRIVER: i16 = 3;
const SETTINGS: i16 = 4;
const TEST: i16 = 5;
const MOUNT: i16 = 6;
const BENCHMARK: i16 = 7;
/// Drive menu items that work on the selected disk.
const ON_SELECTION: [i16; 7] = [
    INITIALIZE,
    PARTITION,
    UPDATE_DRIVER,
    SETTINGS,
    TEST,
    MOUNT,
    BENCHMARK,
];
/// `_SCSIAtomic`: present with SCSI Manager 4.3.
const SCSI_ATOMIC: u16 = 0xA089;
/// `_SCSIDispatch`: the original SCSI Manager.
const SCSI_DISPATCH: u16 = 0xA815;
/// Arrow keys' character codes.
const UP_ARROW: u8 = 0x1E;
const DOWN_ARROW: u8 = 0x1F;

struct Setup {
    rt: Runtime,
    window: WindowPtr,
    /// `None`: this Mac has no usable SCSI Manager.
    transport: Option<Box<dyn Transport>>,
    list: BusList,
    /// The last benchmark's results as text: what Edit ▸ Copy (⌘C) puts on the clipboard
    /// after the results dialog closed (the window itself has nothing to copy).
    results: Option<String>,
}

impl Setup {
    fn scan(&mut self) {
        if let Some(t) = self.transport.as_mut() {
            let slots = bus::scan(t.as_mut());
            self.list = BusList::new(&slots, self.list.selected);
        }
        self.update_menus();
    }

    /// Drive commands are enabled only with a disk selected.
    fn update_menus(&self) {
        let m = tb::menu_handle(DRIVE_MENU);
        let on = self.list.selected.is_some();
        for item in ON_SELECTION {
            tb::enable_item(m, item, on);
        }
    }

    fn redraw(&self) {
        tb::set_port(self.window);
        tb::inval_rect(&Rect::new(0, 0, 32000, 32000));
    }

    fn selection_changed(&self) {
        self.update_menus();
        self.redraw();
    }

    /// Why `command` must not write to the disk at `id` (the Mac uses it), or None.
    fn in_use_refusal(id: u8, command: &str) -> Option<String> {
        drives::in_use(id, &lowmem::drive_queue(), lowmem::startup_drive())
            .map(|u| u.refusal(id, command))
    }

    /// The selected disk, unless the Mac is using it (then the refusal is shown).
    fn target(&self, command: &str) -> Option<u8> {
        let id = self.list.selected?;
        match Self::in_use_refusal(id, command) {
            Some(why) => {
                alerts::error(&why);
                None
            }
            None => Some(id),
        }
    }

    fn drive_command(&mut self, item: i16) {
        // The command's dialogs and progress come next: the menu title goes back to normal
        // first (and the event loop's HiliteMenu(0) afterwards is harmless).
        tb::hilite_menu(0);
        if self.transport.is_none() {
            return;
        }
        let id = match item {
            INITIALIZE => self.target("Initialize"),
            UPDATE_DRIVER => self.target("Update Driver"),
            SETTINGS => self.target("Drive Settings"),
            TEST | PARTITION | MOUNT | BENCHMARK => self.list.selected,
            _ => None,
        };
        let Some(id) = id else { return };
        // Test only reads; the REASSIGN BLOCKS it offers writes, and is refused like the
        // other destructive commands on a disk the Mac uses.
        let reassign_refusal = if item == TEST {
            Self::in_use_refusal(id, "Reassign Blocks")
        } else {
            None
        };
        let Some(t) = self.transport.as_mut() else {
            return;
        };
        let t = t.as_mut();
        match item {
            INITIALIZE => {
                crate::ui::initialize::run(&self.rt, t, id, tb::trap_available(SCSI_ATOMIC));
            }
            PARTITION => crate::ui::partition::run(t, id),
            MOUNT => crate::ui::mount::command(t, id, tb::trap_available(SCSI_ATOMIC)),
            UPDATE_DRIVER => commands::update_driver(&self.rt, t, id),
            SETTINGS => commands::settings(t, id),
            TEST => commands::test(&self.rt, t, id, reassign_refusal),
            BENCHMARK => {
                if let Some(r) = crate::ui::bench::run(&self.rt, t, id) {
                    self.results = Some(r);
                }
            }
            _ => {}
        }
        // What is on the disk may have changed.
        self.scan();
        self.redraw();
    }
}

impl Application for Setup {
    fn about(&mut self) {
        let version = Str255::from_str(env!("CARGO_PKG_VERSION"));
        let via = Str255::from_str(
            self.transport
                .as_ref()
                .map_or("no SCSI Manager", |t| t.name()),
        );
        let empty = Str255::new();
        tb::param_text([&version, &via, &empty, &empty]);
        tb::note_alert(ABOUT_ALERT);
    }

    fn command(&mut self, c: MenuChoice) -> Flow {
        match (c.menu, c.item) {
            (FILE_MENU, RESCAN) => {
                self.scan();
                self.redraw();
                Flow::Continue
            }
            (FILE_MENU, QUIT) => Flow::Quit,
            (EDIT_MENU, COPY) => {
                // No desk accessory took it: the last benchmark's results, if any.
                if let Some(r) = &self.results {
                    crate::ui::bench::copy_results(r);
                }
                Flow::Continue
            }
            (DRIVE_MENU, item) => {
                self.drive_command(item);
                Flow::Continue
            }
            _ => Flow::Continue,
        }
    }

    fn click(&mut self, window: WindowPtr, evt: &EventRecord) {
        if window != self.window {
            return;
        }
        tb::set_port(self.window);
        let (h, v) = tb::global_to_local(evt.where_.get());
        if self.list.click(h, v) {
            self.selection_changed();
        }
    }

    fn key(&mut self, ch: u8) {
        let moved = match ch {
            UP_ARROW => self.list.step(true),
            DOWN_ARROW => self.list.step(false),
            _ => false,
        };
        if moved {
            self.selection_changed();
        }
    }

    fn draw(&mut self, _window: WindowPtr) {
        // The Window Manager does not erase what the app invalidated itself: old rows and
        // the old highlight stay until erased (BeginUpdate clips this to the update region).
        tb::erase_rect(&Rect::new(0, 0, 32000, 32000));
        tb::text_font(bus_list::FONT);
        tb::text_size(bus_list::FONT_SIZE);
        tb::move_to(bus_list::LEFT, bus_list::HEADING_BASE);
        match &self.transport {
            Some(t) => {
                let mut head = String::from("SCSI bus, through the ");
                head.push_str(t.name());
                tb::draw_text(&head);
            }
            None => {
                tb::draw_text(
                    "No usable SCSI Manager on this Mac: Ferrite Setup cannot reach the SCSI bus.",
                );
                return;
            }
        }
        for (i, line) in self.list.lines.iter().enumerate() {
            tb::move_to(bus_list::LEFT, BusList::base_line(i));
            tb::draw_text(&line.text);
        }
        if let Some((top, bottom)) = self.list.highlight() {
            tb::invert_rect(&Rect::new(top, bus_list::LEFT - 4, bottom, bus_list::RIGHT));
        }
    }

    fn quit(&mut self) {
        tb::dispose_window(self.window);
    }
}

/// The stack the application gives itself on every Mac (`SetApplLimit` before
/// `MaxApplZone`): its deepest path's measured use plus room for the ROM's frames and
/// interrupts (docs/setup.md, "The stack").
pub const STACK_BYTES: u32 = 16 << 10;

/// The application's entry (jump-table entry 0, through the start-up stub).
#[unsafe(no_mangle)]
pub extern "C" fn main() -> ! {
    let rt = app::start(
        Menus {
            mbar: MBAR,
            apple: APPLE_MENU,
            edit: EDIT_MENU,
        },
        STACK_BYTES,
    );
    let transport: Option<Box<dyn Transport>> = if tb::trap_available(SCSI_ATOMIC) {
        Some(Box::new(Scsi43::new()))
    } else if tb::trap_available(SCSI_DISPATCH) {
        Some(Box::new(ScsiOld))
    } else {
        None
    };
    if transport.is_none() {
        tb::enable_item(tb::menu_handle(DRIVE_MENU), 0, false);
    }
    let mut setup = Setup {
        rt,
        window: 0,
        transport,
        list: BusList::default(),
        results: None,
    };
    setup.scan();
    setup.window = tb::new_window(BUS_WINDOW);
    tb::set_port(setup.window);
    app::run(&rt, &mut setup)
}
