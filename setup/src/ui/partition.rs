//! Drive ▸ Partition…: the selected disk's map in a list (DLOG 140: one line per entry —
//! number, type, name, start, size, mounted or not; a map longer than the window is shown
//! in pages, turned by clicking the "earlier" and "more" lines), a click on a line selects it
//! (a bullet marks it), and Add… (a volume in the largest free space: name and size, DLOG 141),
//! Rename… (the entry's name, DLOG 142) and Delete… (after a caution alert naming it,
//! ALRT 143). Nothing is changed on the startup disk, nor in an entry whose volume is
//! mounted: those are refused in words ([`super::volumes`]). The list is read again after
//! every change.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use ferrite_macrt::pstr::Str255;
use ferrite_macrt::toolbox as tb;

use super::dialog::Dialog;
use super::volumes::{self, ListLine, MapRow};
use super::{alerts, lowmem, mount, texts};
use crate::bus::{Transport, format_size};
use crate::ops::{self, OpError};
use ferrite_shared::partition_map::part_type;

/// DLOG/DITL 140 (the list) and its items.
pub const DIALOG: i16 = 140;
pub const DONE: i16 = 1;
pub const ADD: i16 = 2;
pub const RENAME: i16 = 3;
pub const DELETE: i16 = 4;
/// The first of [`ROWS`] static-text lines (enabled: a click selects).
pub const FIRST_ROW: i16 = 6;
pub const ROWS: usize = 10;
/// DLOG/DITL 141 (Add) and 142 (Rename): OK is 1, Cancel 2, the name 5, the size 7.
pub const ADD_DIALOG: i16 = 141;
pub const RENAME_DIALOG: i16 = 142;
pub const OK: i16 = 1;
pub const CANCEL: i16 = 2;
pub const NAME: i16 = 5;
pub const SIZE: i16 = 7;
/// Caution alert confirming Delete (`^0` the entry, `^1` the drive): Cancel, Delete.
pub const CONFIRM_DELETE: i16 = 143;

/// What the user asked for in the list.
enum Action {
    Done,
    Add,
    Rename(usize),
    Delete(usize),
}

#[inline(never)] // issue 32: keeps `run`'s frame small (each step's frame is live only while it runs)
fn load(t: &mut dyn Transport, id: u8) -> Result<Vec<MapRow>, OpError> {
    let parts = ops::partitions(t, id)?;
    Ok(volumes::rows(&parts, &mount::disk_drives(id)))
}

fn show(d: &Dialog, rows: &[MapRow], top: usize, selected: Option<usize>) {
    for (i, line) in volumes::list_lines(rows.len(), top, ROWS)
        .into_iter()
        .enumerate()
    {
        let mut s = String::new();
        match line {
            ListLine::Entry(e) => {
                s.push_str(if selected == Some(e) {
                    "\u{2022} "
                } else {
                    "   "
                });
                s.push_str(&rows[e].text());
            }
            ListLine::Earlier(n) => {
                let _ = write!(s, "   \u{2026} {n} earlier entries: click to show them");
            }
            ListLine::More(n) => {
                let _ = write!(s, "   \u{2026} and {n} more entries: click to show them");
            }
            ListLine::Empty => {}
        }
        d.set_text(FIRST_ROW + i as i16, &s);
    }
}

/// The list, its page starting at entry `top` (a click on the "earlier" or "more" line turns
/// the page; the page stays while the dialog comes and goes around a change).
#[inline(never)] // issue 32: keeps `run`'s frame small (each step's frame is live only while it runs)
fn choose(rows: &[MapRow], top: &mut usize, selected: &mut Option<usize>) -> Action {
    let d = Dialog::open(DIALOG);
    show(&d, rows, *top, *selected);
    loop {
        let hit = d.next_hit();
        match hit {
            DONE => return Action::Done,
            ADD => return Action::Add,
            RENAME | DELETE => match *selected {
                Some(i) if hit == RENAME => return Action::Rename(i),
                Some(i) => return Action::Delete(i),
                None => alerts::error(
                    "Select an entry first: click its line in the list, then choose Rename or Delete.",
                ),
            },
            h if h >= FIRST_ROW && ((h - FIRST_ROW) as usize) < ROWS => {
                let line = volumes::list_lines(rows.len(), *top, ROWS)[(h - FIRST_ROW) as usize];
                match line {
                    ListLine::Entry(e) => *selected = Some(e),
                    other => match volumes::page_turn(rows.len(), ROWS, other) {
                        Some(t) => *top = t,
                        None => continue,
                    },
                }
                show(&d, rows, *top, *selected);
            }
            _ => {}
        }
    }
}

/// A size typed in megabytes, `None` when empty (all of the free space).
fn read_size(text: &str, free: u64) -> Result<Option<u64>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let mut e = String::new();
    match t.parse::<u64>() {
        Ok(mb) if mb > 0 && mb * super::plan::BLOCKS_PER_MB <= free => {
            Ok(Some(mb * super::plan::BLOCKS_PER_MB))
        }
        Ok(mb) if mb > 0 => {
            let _ = write!(
                e,
                "{mb} MB do not fit in the free space ({}). Ask for less, or leave the size empty for all of it.",
                format_size(free * 512)
            );
            Err(e)
        }
        _ => {
            let _ = write!(
                e,
                "The size (\"{t}\") is not a whole number of megabytes. Type a number such as 20, or leave it empty for all of the free space."
            );
            Err(e)
        }
    }
}

#[inline(never)] // issue 32: keeps `run`'s frame small (each step's frame is live only while it runs)
fn add(t: &mut dyn Transport, id: u8, disk: &str, rows: &[MapRow]) {
    let Some(free) = rows
        .iter()
        .filter(|r| r.part.kind == part_type::FREE)
        .map(|r| r.part.blocks)
        .max()
    else {
        let mut s = String::new();
        let _ = write!(
            s,
            "{disk} has no free space for a new volume. Delete a volume first to make room."
        );
        alerts::error(&s);
        return;
    };
    let mut where_ = String::new();
    let _ = write!(where_, "{} free", format_size(free * 512));
    let (a, b, e) = (
        Str255::from_str(disk),
        Str255::from_str(&where_),
        Str255::new(),
    );
    tb::param_text([&a, &b, &e, &e]);
    let choice = {
        let d = Dialog::open(ADD_DIALOG);
        d.select(NAME);
        loop {
            match d.next_hit() {
                OK => match read_size(&d.text(SIZE), free) {
                    Ok(size) => break Some((String::from(d.text(NAME).trim()), size)),
                    Err(e) => alerts::error(&e),
                },
                CANCEL => break None,
                _ => {}
            }
        }
    };
    let Some((name, size)) = choice else { return };
    let mut s = String::new();
    if let Err(e) = ops::add_volume(t, id, &name, size, lowmem::now()) {
        let _ = write!(
            s,
            "Adding the volume \u{201C}{name}\u{201D} to {disk} failed: {e}"
        );
        alerts::error(&s);
        return;
    }
    // The Mac serves and mounts it now when the disk's driver is Ferrite's.
    match mount::serve_added(id, &name, disk) {
        Ok(done) => alerts::done(&done),
        Err(why) => alerts::error(&why),
    }
}

#[inline(never)] // issue 32: keeps `run`'s frame small (each step's frame is live only while it runs)
fn rename(t: &mut dyn Transport, id: u8, disk: &str, row: &MapRow) {
    let target = row.name();
    let (a, b, e) = (
        Str255::from_str(&target),
        Str255::from_str(disk),
        Str255::new(),
    );
    tb::param_text([&a, &b, &e, &e]);
    let name = {
        let d = Dialog::open(RENAME_DIALOG);
        d.set_text(NAME, &row.part.name);
        d.select(NAME);
        loop {
            match d.next_hit() {
                OK => break Some(String::from(d.text(NAME).trim())),
                CANCEL => break None,
                _ => {}
            }
        }
    };
    let Some(name) = name else { return };
    if let Err(e) = ops::rename_partition(t, id, row.part.index, &name) {
        let mut s = String::new();
        let _ = write!(s, "Renaming {target} failed: {e}");
        alerts::error(&s);
    }
}

#[inline(never)] // issue 32: keeps `run`'s frame small (each step's frame is live only while it runs)
fn delete(t: &mut dyn Transport, id: u8, disk: &str, row: &MapRow) {
    let target = row.name();
    if !alerts::confirm(CONFIRM_DELETE, &target, disk) {
        return;
    }
    if let Err(e) = ops::delete_partition(t, id, row.part.index) {
        let mut s = String::new();
        let _ = write!(s, "Deleting {target} failed: {e}");
        alerts::error(&s);
    }
}

/// The Partition window of the disk at `id`.
pub fn run(t: &mut dyn Transport, id: u8) {
    let info = match ops::drive_info(t, id) {
        Ok(i) => i,
        Err(e) => {
            let mut s = String::new();
            let _ = write!(s, "Partition: cannot read ID {id}: {e}");
            alerts::error(&s);
            return;
        }
    };
    let disk = texts::drive_name(id, &info.vendor, &info.product, info.blocks, info.block_len);
    let mut selected = None;
    let mut top = 0;
    loop {
        let rows = match load(t, id) {
            Ok(r) => r,
            Err(e) => {
                let mut s = String::new();
                let _ = write!(s, "Cannot read the partition map of {disk}: {e}");
                alerts::error(&s);
                return;
            }
        };
        if selected.is_some_and(|i| i >= rows.len()) {
            selected = None;
        }
        top = top.min(rows.len().saturating_sub(1));
        let (a, e) = (Str255::from_str(&disk), Str255::new());
        tb::param_text([&a, &e, &e, &e]);
        let action = choose(&rows, &mut top, &mut selected);
        let command = match action {
            Action::Done => return,
            Action::Add => "Add",
            Action::Rename(_) => "Rename",
            Action::Delete(_) => "Delete",
        };
        // The startup disk's map is never changed; nor is a mounted volume's entry.
        let boot = lowmem::startup_drive();
        if mount::disk_drives(id).iter().any(|d| d.drive == boot) {
            alerts::error(&volumes::startup_refusal(id, boot, command));
            continue;
        }
        if info.write_protected {
            let mut s = String::new();
            let _ = write!(
                s,
                "{command} refused: {disk} is write-protected. Switch its write protection off, then try again."
            );
            alerts::error(&s);
            continue;
        }
        match action {
            Action::Add => add(t, id, &disk, &rows),
            Action::Rename(i) | Action::Delete(i) => {
                if let Some(why) = rows[i].refusal(command) {
                    alerts::error(&why);
                } else if let Action::Rename(_) = action {
                    rename(t, id, &disk, &rows[i]);
                } else {
                    delete(t, id, &disk, &rows[i]);
                }
            }
            Action::Done => return,
        }
    }
}
