//! Drive ▸ Benchmark…: a dialog that says what the benchmark does and asks whether it may
//! write; writes only into the partition map's free space, confirmed in a caution alert
//! naming the drive (without free space, or on a write-protected drive, it offers to run
//! read-only); the suite of [`crate::bench`] timed with `TickCount`, with progress and
//! ⌘-period; then the results, which Copy puts on the clipboard as text.
//!
//! How the requests go: read-only on a drive a driver serves (a drive in the queue with the
//! SCSI driver's refNum −33 − ID), through the Device Manager — `_Read` at positions in that
//! drive, so the driver's own cost is in the figures; otherwise (no driver, or writes, which
//! must reach free space that no driver's drive covers) READ(10)/WRITE(10) through the SCSI
//! Manager. The results say which.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use ferrite_macrt::app::Runtime;
use ferrite_macrt::pstr::Str255;
use ferrite_macrt::sys;
use ferrite_macrt::toolbox as tb;
use ferrite_shared::mac::IoParam;
use ferrite_shared::scsi;
use zerocopy::{FromZeros, IntoBytes};

use super::dialog::Dialog;
use super::progress::Progress;
use super::{alerts, texts};
use crate::bench::{self, Figure, Heading, Planned, Series};
use crate::bus::Transport;
use crate::disk::{self, Data};
use crate::ops::{self, Monitor, Stage};
use crate::words;

/// DLOG/DITL 150 (Benchmark) and its items.
pub const DIALOG: i16 = 150;
pub const START: i16 = 1;
pub const CANCEL: i16 = 2;
pub const WRITES: i16 = 5;
/// DLOG/DITL 151 (the results).
pub const RESULTS: i16 = 151;
pub const RESULTS_OK: i16 = 1;
pub const RESULTS_COPY: i16 = 2;
/// Caution alert: write into this free space? Cancel (1), Write (2).
pub const CONFIRM_WRITES: i16 = 152;
/// Caution alert: writes refused, run read-only? Cancel (1), Read Only (2).
pub const OFFER_READ_ONLY: i16 = 153;

/// Low memory (`docs/mac-facts.md` §5, §15): the drive queue header and the unit table.
const DRV_Q_HDR: usize = 0x308;
const UTABLE_BASE: usize = 0x11C;
/// `fsFromStart`.
const FS_FROM_START: u16 = 1;
/// The DCE's `dRAMBased` flag: `dCtlDriver` is a handle.
const D_RAM_BASED: u16 = 0x0040;
/// The name's offset in a DRVR header (its length byte).
const DRVR_NAME: usize = 18;

fn word(addr: usize) -> u16 {
    // SAFETY: low memory, drive-queue elements, DCEs and drivers are readable RAM; the
    // callers pass even addresses where they read words.
    unsafe { core::ptr::read_volatile(addr as *const u16) }
}

fn long(addr: usize) -> u32 {
    // SAFETY: as above.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

fn byte(addr: usize) -> u8 {
    // SAFETY: as above.
    unsafe { core::ptr::read_volatile(addr as *const u8) }
}

/// A drive the SCSI driver of `id` serves: (drive number, refNum, size in blocks). The
/// first one in the queue.
fn served_drive(id: u8) -> Option<(i16, i16, u32)> {
    let ref_num = -33 - id as i16;
    let mut el = long(DRV_Q_HDR + 2) as usize;
    let mut n = 0;
    while el != 0 && el & 1 == 0 && n < 64 {
        if word(el + 8) as i16 == ref_num {
            let low = word(el + 12) as u32;
            let size = if word(el + 4) == 1 {
                ((word(el + 14) as u32) << 16) | low
            } else {
                low
            };
            return Some((word(el + 6) as i16, ref_num, size));
        }
        el = long(el) as usize;
        n += 1;
    }
    None
}

/// The name of the driver at `ref_num` (from its DRVR header, through the unit table).
fn driver_name(ref_num: i16) -> String {
    let unit = (-1 - ref_num) as usize;
    let table = long(UTABLE_BASE) as usize;
    let mut name = String::new();
    if table == 0 {
        return name;
    }
    let dce_handle = long(table + 4 * unit) as usize;
    if dce_handle == 0 || dce_handle & 1 != 0 {
        return name;
    }
    let dce = long(dce_handle) as usize;
    if dce == 0 || dce & 1 != 0 {
        return name;
    }
    let mut drvr = long(dce) as usize;
    if word(dce + 4) & D_RAM_BASED != 0 && drvr != 0 && drvr & 1 == 0 {
        drvr = long(drvr) as usize;
    }
    if drvr == 0 {
        return name;
    }
    let len = byte(drvr + DRVR_NAME) as usize;
    for i in 0..len.min(31) {
        let c = byte(drvr + DRVR_NAME + 1 + i);
        name.push(if (0x20..0x7F).contains(&c) {
            c as char
        } else {
            '?'
        });
    }
    name
}

/// Where the requests go.
enum Path<'t> {
    /// `_Read` to the driver: drive number, refNum.
    Driver { drive: i16, ref_num: i16 },
    /// READ(10)/WRITE(10): the region's first block.
    Scsi {
        t: &'t mut dyn Transport,
        id: u8,
        start: u32,
    },
}

impl Path<'_> {
    /// One request; an error in words.
    fn request(&mut self, write: bool, r: bench::Request, buf: &mut [u8]) -> Result<(), String> {
        let len = r.blocks as usize * disk::BLOCK_LEN as usize;
        let buf = &mut buf[..len];
        match self {
            Path::Driver { drive, ref_num } => {
                let mut pb = IoParam::new_zeroed();
                pb.io_vref_num.set(*drive);
                pb.io_ref_num.set(*ref_num);
                pb.io_buffer.set(buf.as_mut_ptr() as u32);
                pb.io_req_count.set(len as u32);
                pb.io_pos_mode.set(FS_FROM_START);
                pb.io_pos_offset.set(r.block * disk::BLOCK_LEN);
                let p = pb.as_mut_bytes().as_mut_ptr();
                // SAFETY: the PB and the buffer outlive the synchronous call.
                let e = unsafe {
                    if write {
                        sys::rt_PBWriteSync(p)
                    } else {
                        sys::rt_PBReadSync(p)
                    }
                } as i16;
                if e == 0 {
                    return Ok(());
                }
                let mut s = String::new();
                let _ = write!(
                    s,
                    "the driver answered {} at byte {} with ",
                    if write { "_Write" } else { "_Read" },
                    r.block as u64 * 512
                );
                match words::mac_os_error(e) {
                    Some(w) => s.push_str(w),
                    None => {
                        let _ = write!(s, "error {e}");
                    }
                }
                Err(s)
            }
            Path::Scsi { t, id, start } => {
                let lba = *start + r.block;
                let n = r.blocks as u16;
                let res = if write {
                    disk::run(
                        &mut **t,
                        *id,
                        "WRITE(10)",
                        &scsi::write_10(lba, n, false),
                        Data::Out(buf),
                    )
                } else {
                    disk::run(
                        &mut **t,
                        *id,
                        "READ(10)",
                        &scsi::read_10(lba, n),
                        Data::In(buf),
                    )
                };
                res.map_err(|e| {
                    let mut s = String::new();
                    let _ = write!(s, "{e}");
                    s
                })
            }
        }
    }
}

/// Run the suite: the ticks of each series, `None` when cancelled.
fn measure(
    path: &mut Path<'_>,
    suite: &[Planned],
    progress: &mut Progress<'_>,
) -> Result<Option<Vec<u32>>, String> {
    let total: u64 = suite.iter().map(|s| s.requests.len() as u64).sum();
    let mut buf = disk::buffer(bench::CHUNK_BLOCKS as u64);
    let mut done = 0u64;
    let mut ticks = Vec::new();
    for s in suite {
        let write = s.series.writes();
        if write {
            // What the writes write (the reads left the disk's data in the buffer): a
            // pattern, so that a write is visible on the disk.
            for (i, b) in buf.iter_mut().enumerate() {
                *b = (i as u8) ^ 0xA5;
            }
        }
        let t0 = tb::tick_count();
        let last = s.requests.len();
        for (i, r) in s.requests.iter().enumerate() {
            path.request(write, *r, &mut buf)?;
            done += 1;
            // The progress (and ⌘-period) after each 768 KB transfer of a sustained series:
            // its event poll is part of the time measured (19 polls in about 15 MB).
            let transfer_done = s.series.sustained() && (i + 1) % bench::REQUESTS_PER_TRANSFER == 0;
            if transfer_done && i + 1 < last && !progress.progress(Stage::Benchmark, done, total) {
                return Ok(None);
            }
        }
        ticks.push(tb::tick_count().wrapping_sub(t0));
        // And after each series, outside its time.
        if !progress.progress(Stage::Benchmark, done, total) {
            return Ok(None);
        }
    }
    Ok(Some(ticks))
}

/// Where writes may go: the largest free space the map lists, or why not (in words).
fn scratch(t: &mut dyn Transport, id: u8, name: &str) -> Result<(u32, u32), String> {
    let mut s = String::new();
    match ops::partitions(t, id) {
        Ok(rows) => {
            // READ CAPACITY(10) sizes the disk: every block number fits 32 bits. (Plain
            // truncation: `u32::try_from(start).unwrap_or(u32::MAX)` gave u32::MAX for 16480
            // here on the 68k, an LLVM M68k miscompile; docs/setup.md.)
            let free = rows
                .iter()
                .map(|r| (r.kind == "Apple_Free", r.start as u32, r.blocks as u32));
            if let Some(r) = bench::scratch(free) {
                return Ok(r);
            }
            let _ = write!(
                s,
                "{name} has no free space of 768 KB or more in its partition map. The benchmark writes only into free space, so that a crash cannot lose data. Run it read-only?"
            );
        }
        Err(e) => {
            let _ = write!(
                s,
                "The benchmark writes only into free space of the partition map, and that of {name} cannot be read ({e}). Run it read-only?"
            );
        }
    }
    Err(s)
}

fn params(a: &str, b: &str, c: &str, d: &str) {
    let (a, b, c, d) = (
        Str255::from_str(a),
        Str255::from_str(b),
        Str255::from_str(c),
        Str255::from_str(d),
    );
    tb::param_text([&a, &b, &c, &d]);
}

/// Drive ▸ Benchmark… on the drive at `id`; the results as text (what Copy puts on the
/// clipboard) when it ran to the end.
pub fn run(rt: &Runtime, t: &mut dyn Transport, id: u8) -> Option<String> {
    let info = match ops::drive_info(t, id) {
        Ok(i) => i,
        Err(e) => {
            let mut s = String::new();
            let _ = write!(s, "Benchmark: cannot read ID {id}: {e}");
            alerts::error(&s);
            return None;
        }
    };
    let name = texts::drive_name(id, &info.vendor, &info.product, info.blocks, info.block_len);
    params(&name, "", "", "");
    let want_writes = {
        let d = Dialog::open(DIALOG);
        loop {
            match d.next_hit() {
                START => break Some(d.checked(WRITES)),
                CANCEL => break None,
                WRITES => d.toggle(WRITES),
                _ => {}
            }
        }
    };
    let Some(mut write) = want_writes else {
        return None;
    };
    let mut region = (0u32, info.blocks as u32);
    let mut region_words = String::new();
    if write {
        let why_not = if info.write_protected {
            let mut s = String::new();
            let _ = write!(
                s,
                "{name} is write-protected, so the benchmark cannot write to it. Run it read-only?"
            );
            Err(s)
        } else {
            scratch(t, id, &name)
        };
        match why_not {
            Ok((start, blocks)) => {
                let mut s = String::new();
                let _ = write!(
                    s,
                    "Write to blocks {}-{} of {name}? The data there will be overwritten. The partition map lists them as free space; the benchmark writes nowhere else.",
                    start,
                    start + blocks - 1
                );
                if !alerts::confirm(CONFIRM_WRITES, &s, "") {
                    return None;
                }
                region = (start, blocks);
                let _ = write!(
                    region_words,
                    "blocks {}-{} (free space, written)",
                    start,
                    start + blocks - 1
                );
            }
            Err(s) => {
                if !alerts::confirm(OFFER_READ_ONLY, &s, "") {
                    return None;
                }
                write = false;
            }
        }
    }
    let served = if write { None } else { served_drive(id) };
    let via_scsi = t.name();
    let mut path_words = String::new();
    let mut driver_words = String::new();
    let mut path = match served {
        Some((drive, ref_num, size)) => {
            region = (0, size);
            let dn = driver_name(ref_num);
            let _ = write!(
                path_words,
                "the Device Manager: _Read to the driver (refNum {ref_num}), drive {drive}"
            );
            let _ = write!(driver_words, "{dn} (serving the drive)");
            let _ = write!(region_words, "drive {drive}: its {size} blocks (read only)");
            Path::Driver { drive, ref_num }
        }
        None => {
            let _ = write!(path_words, "SCSI commands through the {via_scsi}");
            let _ = write!(
                driver_words,
                "not used; on the disk: {}",
                info.label.describe()
            );
            if !write {
                let _ = write!(
                    region_words,
                    "blocks 0-{} (the whole disk, read only)",
                    info.blocks.saturating_sub(1)
                );
            }
            Path::Scsi {
                t: &mut *t,
                id,
                start: region.0,
            }
        }
    };
    let Some(suite) = bench::plan(region.1, write) else {
        let mut s = String::new();
        let _ = write!(
            s,
            "Benchmark refused: {name} offers {} blocks to measure, fewer than the {} (768 KB) one sustained transfer needs.",
            region.1,
            bench::MIN_REGION_BLOCKS
        );
        alerts::error(&s);
        return None;
    };
    let mut progress = Progress::open(rt);
    let r = measure(&mut path, &suite, &mut progress);
    progress.close();
    let ticks = match r {
        Ok(Some(t)) => t,
        Ok(None) => {
            let mut s = String::new();
            let _ = write!(
                s,
                "Benchmark of {name} cancelled{}.",
                if write {
                    "; only its free space was written"
                } else {
                    ""
                }
            );
            alerts::done(&s);
            return None;
        }
        Err(e) => {
            let mut s = String::new();
            let _ = write!(s, "The benchmark of {name} stopped: {e}");
            alerts::error(&s);
            return None;
        }
    };
    let figures: Vec<(Series, Figure)> = suite
        .iter()
        .zip(&ticks)
        .map(|(p, &k)| (p.series, bench::figure(p, k)))
        .collect();
    let heading = Heading {
        drive: &name,
        path: &path_words,
        driver: &driver_words,
        region: &region_words,
    };
    let table = bench::table(&heading, &figures);
    show(&heading, &figures, &table);
    Some(table)
}

/// Put the results' text on the clipboard as `'TEXT'` (the dialog's Copy button, and Edit ▸
/// Copy / ⌘C afterwards); a Scrap Manager error is said in words.
pub fn copy_results(table: &str) {
    let r = tb::put_scrap_text(table.as_bytes());
    if r != 0 {
        let mut s = String::new();
        let _ = write!(
            s,
            "The results could not be put on the clipboard (the Scrap Manager answered {r}): quit other applications to free memory, then try Copy again."
        );
        alerts::error(&s);
    }
}

/// The results dialog: Copy puts the table on the clipboard, OK closes.
fn show(h: &Heading<'_>, figures: &[(Series, Figure)], table: &str) {
    let get = |s: Series| {
        let mut v = String::new();
        match figures.iter().find(|(x, _)| *x == s) {
            Some((_, f)) => {
                let _ = write!(v, "{f}");
            }
            None => v.push_str("not measured"),
        }
        v
    };
    let mut a = String::new();
    let _ = write!(a, "{}; {}", h.drive, h.region);
    let mut b = String::new();
    let _ = write!(b, "Through {}. Driver: {}.", h.path, h.driver);
    let mut c = String::new();
    let _ = write!(
        c,
        "Sustained read {}, write {}.",
        get(Series::SustainedRead),
        get(Series::SustainedWrite)
    );
    let mut d = String::new();
    let _ = write!(
        d,
        "Transactions read {}, write {}. Access time {}.",
        get(Series::TpsRead),
        get(Series::TpsWrite),
        get(Series::Access)
    );
    params(&a, &b, &c, &d);
    let dlg = Dialog::open(RESULTS);
    loop {
        match dlg.next_hit() {
            RESULTS_OK => break,
            RESULTS_COPY => copy_results(table),
            _ => {}
        }
    }
}
