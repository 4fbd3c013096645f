//! Drive ▸ Update Driver…, Drive Settings… and Test…: each asks what it must, shows progress
//! where the work is long, and ends with its result in words.

use alloc::string::String;
use core::fmt::Write;

use ferrite_macrt::app::Runtime;
use ferrite_macrt::pstr::Str255;
use ferrite_macrt::toolbox as tb;

use super::dialog::Dialog;
use super::initialize::TRANSFER_MODES;
use super::progress::Progress;
use super::{alerts, texts};
use crate::bus::Transport;
use crate::ops::{self, DriveInfo, OpError};

/// DLOG/DITL 130 (Drive Settings) and its items.
pub const SETTINGS_DIALOG: i16 = 130;
pub const SETTINGS_OK: i16 = 1;
pub const SETTINGS_CANCEL: i16 = 2;
pub const SETTINGS_WRITE_CACHE: i16 = 5;
/// The transfer mode's radio buttons, in the order of [`TRANSFER_MODES`].
pub const SETTINGS_TRANSFER: [i16; 3] = [7, 8, 9];
/// Bad blocks the Test result lists by number (the rest are counted).
pub const LISTED_BAD_BLOCKS: usize = 12;

fn info(t: &mut dyn Transport, id: u8, command: &str) -> Option<(DriveInfo, String)> {
    match ops::drive_info(t, id) {
        Ok(i) => {
            let name = texts::drive_name(id, &i.vendor, &i.product, i.blocks, i.block_len);
            Some((i, name))
        }
        Err(e) => {
            let mut s = String::new();
            let _ = write!(s, "{command}: cannot read ID {id}: {e}");
            alerts::error(&s);
            None
        }
    }
}

/// Update Driver: refuse in words what the install would refuse (no room for the driver, no
/// map), found out without writing; else confirm (naming the drive and its driver now), then
/// install in place.
pub fn update_driver(rt: &Runtime, t: &mut dyn Transport, id: u8) {
    let Some((info, name)) = info(t, id, "Update Driver") else {
        return;
    };
    if info.write_protected {
        let mut s = String::new();
        let _ = write!(
            s,
            "Update Driver refused: {name} is write-protected. Switch its write protection off, then try again."
        );
        alerts::error(&s);
        return;
    }
    if let Err(e) = ops::check_update(t, id) {
        let mut s = String::new();
        let _ = write!(s, "Update Driver refused for {name}. {e}");
        alerts::error(&s);
        return;
    }
    let mut now = String::from("Now: ");
    now.push_str(&info.label.describe());
    if !alerts::confirm(alerts::CONFIRM_UPDATE, &name, &now) {
        return;
    }
    let mut progress = Progress::open(rt);
    let r = ops::update_driver(t, id, &mut progress);
    progress.close();
    let mut s = String::new();
    match r {
        Ok(rep) => {
            let _ = write!(
                s,
                "{name}: driver updated from {} to {}; every volume kept. Restart to use it.",
                rep.old, rep.new
            );
            alerts::done(&s);
        }
        Err(OpError::Cancelled) => {
            let _ = write!(s, "Update Driver cancelled: nothing was written to {name}.");
            alerts::done(&s);
        }
        Err(e) => {
            let _ = write!(s, "Updating the driver of {name} failed: {e}");
            alerts::error(&s);
        }
    }
}

/// Drive Settings: the caching page, the write cache turned on or off, and the transfer
/// mode recorded in the settings block of the Ferrite driver on the disk.
pub fn settings(t: &mut dyn Transport, id: u8) {
    let Some((_, name)) = info(t, id, "Drive Settings") else {
        return;
    };
    let page = match ops::caching(t, id) {
        Ok(p) => p,
        Err(e) => {
            let mut s = String::new();
            let _ = write!(s, "Cannot read the caching page of {name}: {e}");
            alerts::error(&s);
            return;
        }
    };
    let driver = match ops::installed_settings(t, id) {
        Ok(s) => s,
        Err(e) => {
            let mut s = String::new();
            let _ = write!(s, "Cannot read the driver of {name}: {e}");
            alerts::error(&s);
            return;
        }
    };
    let mut about = String::new();
    let _ = write!(
        about,
        "Write cache {}, read cache {}. {}{}",
        if page.wce { "on" } else { "off" },
        if page.rcd { "off" } else { "on" },
        if page.changeable_wce {
            "The write cache can be changed"
        } else {
            "The drive does not let its write cache be changed"
        },
        if page.savable {
            " and the drive saves the setting."
        } else {
            "; the drive forgets the setting at power-off."
        }
    );
    let (a, b, e) = (
        Str255::from_str(&name),
        Str255::from_str(&about),
        Str255::new(),
    );
    tb::param_text([&a, &b, &e, &e]);
    let mode_now = driver.map(|s| s.transfer).unwrap_or_default();
    let want = {
        let d = Dialog::open(SETTINGS_DIALOG);
        d.set_checked(SETTINGS_WRITE_CACHE, page.wce);
        let at = TRANSFER_MODES.iter().position(|&m| m == mode_now);
        d.choose(&SETTINGS_TRANSFER, SETTINGS_TRANSFER[at.unwrap_or(0)]);
        loop {
            match d.next_hit() {
                SETTINGS_OK => {
                    break Some((
                        d.checked(SETTINGS_WRITE_CACHE),
                        TRANSFER_MODES[d.chosen(&SETTINGS_TRANSFER)],
                    ));
                }
                SETTINGS_CANCEL => break None,
                SETTINGS_WRITE_CACHE => d.toggle(SETTINGS_WRITE_CACHE),
                hit if SETTINGS_TRANSFER.contains(&hit) => d.choose(&SETTINGS_TRANSFER, hit),
                _ => {}
            }
        }
    };
    let Some((on, mode)) = want else {
        return;
    };
    let mut done = String::new();
    if on != page.wce {
        match ops::set_write_cache(t, id, on) {
            Ok(()) => {
                let _ = write!(
                    done,
                    "The write cache of {name} is now {}.",
                    if on { "on" } else { "off" }
                );
            }
            Err(e) => {
                let mut s = String::new();
                let _ = write!(s, "Changing the write cache of {name} failed: {e}");
                alerts::error(&s);
                return;
            }
        }
    }
    if mode != mode_now {
        match ops::set_transfer_mode(t, id, mode) {
            Ok(()) => {
                let _ = write!(
                    done,
                    "{}The transfer mode of {name} is now {} (the driver's, on the original SCSI Manager).",
                    if done.is_empty() { "" } else { " " },
                    mode.name()
                );
            }
            Err(e) => {
                let mut s = done;
                let _ = write!(
                    s,
                    "{}Changing the transfer mode of {name} failed: {e}",
                    if s.is_empty() { "" } else { " " }
                );
                alerts::error(&s);
                return;
            }
        }
    }
    if !done.is_empty() {
        alerts::done(&done);
    }
}

/// Test: read every block, list the bad ones, offer to reassign them — unless
/// `reassign_refusal` says the Mac uses the disk (then that refusal is shown instead).
pub fn test(rt: &Runtime, t: &mut dyn Transport, id: u8, reassign_refusal: Option<String>) {
    let Some((_, name)) = info(t, id, "Test") else {
        return;
    };
    let mut progress = Progress::open(rt);
    let r = ops::surface_test(t, id, &mut progress);
    // The core stops between chunks when the monitor says so and returns what it found.
    let cancelled = progress.cancelled;
    progress.close();
    let mut s = String::new();
    let bad = match r {
        Ok(_) | Err(OpError::Cancelled) if cancelled => {
            let _ = write!(s, "Test of {name} cancelled.");
            alerts::done(&s);
            return;
        }
        Ok(bad) => bad,
        Err(OpError::Cancelled) => {
            let _ = write!(s, "Test of {name} cancelled.");
            alerts::done(&s);
            return;
        }
        Err(e) => {
            let _ = write!(s, "Testing {name} failed: {e}");
            alerts::error(&s);
            return;
        }
    };
    if bad.is_empty() {
        let _ = write!(s, "Every block of {name} reads back: no bad blocks.");
        alerts::done(&s);
        return;
    }
    let mut list = String::new();
    for (i, b) in bad.iter().take(LISTED_BAD_BLOCKS).enumerate() {
        let _ = write!(list, "{}{b}", if i == 0 { "" } else { ", " });
    }
    if bad.len() > LISTED_BAD_BLOCKS {
        let _ = write!(list, " and {} more", bad.len() - LISTED_BAD_BLOCKS);
    }
    let _ = write!(s, "{} bad block(s) on {name}: {list}.", bad.len());
    alerts::done(&s);
    if let Some(why) = reassign_refusal {
        alerts::error(&why);
        return;
    }
    if !alerts::confirm(alerts::CONFIRM_REASSIGN, &name, &list) {
        return;
    }
    let mut s = String::new();
    match ops::reassign(t, id, &bad) {
        Ok(()) => {
            let _ = write!(
                s,
                "The drive reassigned the bad blocks of {name}; the data they held is lost."
            );
            alerts::done(&s);
        }
        Err(e) => {
            let _ = write!(s, "Reassigning the bad blocks of {name} failed: {e}");
            alerts::error(&s);
        }
    }
}
