//! Drive ▸ Initialize…: the volumes dialog (DLOG 129), the confirmation naming the drive,
//! the progress window, and the result.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use ferrite_macrt::app::Runtime;
use ferrite_macrt::pstr::Str255;
use ferrite_macrt::toolbox as tb;

use super::dialog::Dialog;
use super::plan::{self, Fields};
use super::progress::Progress;
use super::{alerts, texts};
use crate::bus::Transport;
use crate::ops::{self, DriveInfo, InitPlan, OpError, VolumeRequest};
use ferrite_shared::driver_blob::TransferMode;

/// DLOG/DITL 129 and its items.
pub const DIALOG: i16 = 129;
pub const OK: i16 = 1;
pub const CANCEL: i16 = 2;
pub const NAME1: i16 = 5;
pub const SIZE1: i16 = 7;
pub const NAME2: i16 = 9;
pub const SIZE2: i16 = 10;
pub const WRITE_CACHE: i16 = 11;
pub const LOW_LEVEL: i16 = 12;
/// The transfer mode's radio buttons, in the order of [`TRANSFER_MODES`].
pub const TRANSFER: [i16; 3] = [15, 16, 17];
/// The driver's transfer modes on the original SCSI Manager, as the radio buttons of this
/// dialog and of Drive Settings list them.
pub const TRANSFER_MODES: [TransferMode; 3] = [
    TransferMode::Auto,
    TransferMode::Blind,
    TransferMode::Polled,
];
/// The first volume's name until the user types another.
pub const DEFAULT_NAME: &str = "Macintosh HD";

/// What the user chose in the dialog.
struct Choice {
    volumes: Vec<(String, Option<u64>)>,
    write_cache: bool,
    transfer: TransferMode,
    low_level_format: bool,
}

fn ask(info: &DriveInfo) -> Option<Choice> {
    let name = texts::drive_name(
        info.id,
        &info.vendor,
        &info.product,
        info.blocks,
        info.block_len,
    );
    let (n, e) = (Str255::from_str(&name), Str255::new());
    tb::param_text([&n, &e, &e, &e]);
    let d = Dialog::open(DIALOG);
    d.set_text(NAME1, DEFAULT_NAME);
    d.select(NAME1);
    d.set_checked(WRITE_CACHE, true);
    d.choose(&TRANSFER, TRANSFER[0]);
    loop {
        let hit = d.next_hit();
        match hit {
            OK => {
                let f = Fields {
                    name1: d.text(NAME1),
                    size1: d.text(SIZE1),
                    name2: d.text(NAME2),
                    size2: d.text(SIZE2),
                };
                match plan::read(&f, info.blocks) {
                    Ok(v) => {
                        return Some(Choice {
                            volumes: v.into_iter().map(|v| (v.name, v.blocks)).collect(),
                            write_cache: d.checked(WRITE_CACHE),
                            transfer: TRANSFER_MODES[d.chosen(&TRANSFER)],
                            low_level_format: d.checked(LOW_LEVEL),
                        });
                    }
                    Err(e) => alerts::error(&e),
                }
            }
            CANCEL => return None,
            WRITE_CACHE | LOW_LEVEL => d.toggle(hit),
            _ if TRANSFER.contains(&hit) => d.choose(&TRANSFER, hit),
            _ => {}
        }
    }
}

/// Initialize the drive at `id`, then mount its new volumes ([`super::mount`]: the driver
/// just written is loaded from the disk and installed as the ROM would). Returns whether the window's other contents need redrawing.
pub fn run(rt: &Runtime, t: &mut dyn Transport, id: u8, scsi43: bool) -> bool {
    let info = match ops::drive_info(t, id) {
        Ok(i) => i,
        Err(e) => {
            let mut s = String::new();
            let _ = write!(s, "Cannot initialize ID {id}: {e}");
            alerts::error(&s);
            return false;
        }
    };
    let name = texts::drive_name(id, &info.vendor, &info.product, info.blocks, info.block_len);
    if info.write_protected {
        let mut s = String::new();
        let _ = write!(
            s,
            "Initialize refused: {name} is write-protected. Switch its write protection off (a jumper or switch on the drive or cartridge), then try again."
        );
        alerts::error(&s);
        return false;
    }
    let Some(choice) = ask(&info) else {
        return false;
    };
    let list = texts::volume_list(&choice.volumes);
    let note = if choice.low_level_format {
        texts::LOW_LEVEL_WARNING
    } else {
        ""
    };
    if !alerts::confirm_with_note(alerts::CONFIRM_INITIALIZE, &name, &list, note) {
        return false;
    }
    let plan = InitPlan {
        volumes: choice
            .volumes
            .iter()
            .map(|(n, b)| VolumeRequest {
                name: n.clone(),
                blocks: *b,
            })
            .collect(),
        write_cache: choice.write_cache,
        transfer: choice.transfer,
        low_level_format: choice.low_level_format,
        date: super::lowmem::now(),
    };
    let mut progress = Progress::open(rt);
    let r = ops::initialize(t, id, &plan, &mut progress);
    let redraw = progress.close();
    let mut s = String::new();
    match r {
        Ok(report) => {
            let _ = write!(
                s,
                "{name} is initialized: {list}, with the {} driver. ",
                report.driver
            );
            match super::mount::mount_disk(t, id, scsi43) {
                Ok(m) => s.push_str(&m.words(&name)),
                Err(why) => {
                    let _ = write!(
                        s,
                        "Its volumes are not mounted: {why}. Restart to use them."
                    );
                }
            }
            alerts::done(&s);
        }
        Err(OpError::CancelledAfterFormat) => {
            let _ = write!(
                s,
                "Initialize cancelled after the low-level format: {name} is erased and holds no volumes."
            );
            alerts::done(&s);
        }
        Err(OpError::Cancelled) => {
            let _ = write!(s, "Initialize cancelled: nothing was written to {name}.");
            alerts::done(&s);
        }
        Err(e) => {
            let _ = write!(s, "Initializing {name} failed: {e}");
            alerts::error(&s);
        }
    }
    redraw
}
