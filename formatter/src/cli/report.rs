//! `ferrite report DISK [--json]`: what a user pastes when Ferrite misbehaves on their Mac —
//! the partition map, the driver (which, version, settings) and the driver's flight record
//! (`ferrite_shared::flight_record`), with hints in plain words. Reads only.

use super::disk;
use super::human;
use anyhow::Result;
use ferrite_formatter::BlockDevice;
use ferrite_formatter::apm::{self, PartitionMap};
use ferrite_formatter::install::DriverKind;
use ferrite_shared::driver_blob::Settings;
use ferrite_shared::flight_record::{
    AreaError, AreaHeader, FIRST_SLOT_BLOCK, FlightRecord, RECORD_AREA_BLOCKS, SLOTS, Slot,
    area_start, latest, reason, scsi_manager, stage, write_cache,
};
use ferrite_shared::partition_map::{boot_checksum, dd_type};
use serde_json::{Value, json};
use std::path::Path;

/// The driver the ROM would load, as found.
#[derive(Debug)]
pub struct DriverFound {
    pub map_block: u32,
    pub start: u32,
    pub blocks: u32,
    pub bytes: u32,
    pub checksum_ok: bool,
    pub kind: DriverKind,
    pub settings: Option<Settings>,
    pub recorder_off: Option<bool>,
}

/// The record area, as found.
#[derive(Debug)]
pub enum Area {
    /// The partition has no room for one past the driver.
    NoRoom,
    /// The area's header does not check.
    Unusable { at: u32, why: AreaError },
    /// The area and what its slots hold.
    Found {
        at: u32,
        slots: Vec<Slot>,
        latest: Option<(usize, Box<FlightRecord>)>,
    },
}

/// Everything `report` says.
#[derive(Debug)]
pub struct Report {
    pub disk: String,
    pub bytes: u64,
    pub block_size: u32,
    pub map: Result<PartitionMap, String>,
    pub driver: Option<DriverFound>,
    pub area: Option<Area>,
}

/// Read what the report shows from `dev`.
pub fn gather<D: BlockDevice + ?Sized>(dev: &mut D, name: &str) -> Result<Report> {
    let bs = dev.block_size();
    let mut r = Report {
        disk: name.into(),
        bytes: dev.block_count() * bs as u64,
        block_size: bs,
        map: apm::read_map(dev).map_err(|e| e.to_string()),
        driver: None,
        area: None,
    };
    let Ok(map) = &r.map else {
        return Ok(r);
    };
    let found = map
        .ddm
        .descriptors()
        .iter()
        .filter(|d| d.kind.get() == dd_type::MAC_SCSI)
        .find_map(|d| {
            map.partitions
                .iter()
                .find(|p| p.start == d.block.get() && p.entry.is_driver())
        })
        .cloned();
    let Some(p) = found else {
        return Ok(r);
    };
    let size = p.entry.boot_size.get();
    let mut code = vec![0u8; (size as u64).div_ceil(bs as u64).max(1) as usize * bs as usize];
    dev.read_blocks(p.start as u64, &mut code)?;
    code.truncate(size as usize);
    r.driver = Some(DriverFound {
        map_block: p.map_block,
        start: p.start,
        blocks: p.blocks,
        bytes: size,
        checksum_ok: boot_checksum(&code) as u32 == p.entry.boot_checksum.get(),
        kind: DriverKind::identify(&p.entry, &code),
        settings: Settings::read(&code).ok(),
        recorder_off: Settings::recorder_off(&code).ok(),
    });
    let Some(at) = area_start(p.start, p.blocks, size, bs) else {
        r.area = Some(Area::NoRoom);
        return Ok(r);
    };
    let mut block = vec![0u8; bs as usize];
    dev.read_blocks(at as u64, &mut block)?;
    let header = AreaHeader::read(&block).expect("a block holds a header");
    if let Err(why) = header.check(p.start) {
        r.area = Some(Area::Unusable { at, why });
        return Ok(r);
    }
    let mut blocks = Vec::new();
    for k in 0..SLOTS {
        let mut b = vec![0u8; bs as usize];
        dev.read_blocks((at + FIRST_SLOT_BLOCK + k) as u64, &mut b)?;
        blocks.push(b);
    }
    r.area = Some(Area::Found {
        at,
        slots: blocks.iter().map(|b| FlightRecord::read_slot(b)).collect(),
        latest: latest([&blocks[0], &blocks[1]]).map(|(s, r)| (s, Box::new(r))),
    });
    Ok(r)
}

fn reason_name(r: u8) -> &'static str {
    match r {
        reason::INSTALL => "at install",
        reason::FIRST_ACCRUN => "at the first accRun",
        reason::GOODBYE => "at goodbye",
        reason::ERROR => "after an error",
        _ => "for an unknown reason",
    }
}

fn manager_name(m: u8) -> &'static str {
    match m {
        scsi_manager::ORIGINAL => "original",
        scsi_manager::V43 => "4.3",
        _ => "unknown",
    }
}

fn cache_name(c: u8) -> &'static str {
    match c {
        write_cache::LEFT => "left as the drive has it",
        write_cache::ENABLED => "enabled",
        write_cache::NO_PAGE => "the drive has no caching page",
        write_cache::SELECT_REFUSED => "the drive refused MODE SELECT",
        _ => "unknown",
    }
}

fn cpu_name(c: u8) -> String {
    match c {
        0..=4 => format!("680{}0", c),
        _ => "unknown".into(),
    }
}

fn ascii(b: &[u8]) -> String {
    b.iter()
        .map(|&c| {
            if (0x20..0x7F).contains(&c) {
                c as char
            } else {
                '.'
            }
        })
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// INQUIRY's vendor, product and revision.
fn inquiry_words(r: &FlightRecord) -> Option<(String, String, String)> {
    (r.reached(stage::INQUIRY)).then(|| {
        (
            ascii(&r.inquiry[8..16]),
            ascii(&r.inquiry[16..32]),
            ascii(&r.inquiry[32..36]),
        )
    })
}

fn counters(r: &FlightRecord) -> Vec<(&'static str, u32)> {
    let c = &r.counters;
    vec![
        ("commands", c.commands.get()),
        ("retries (busy)", c.retries_busy.get()),
        ("retries (unit attention)", c.retries_unit_attention.get()),
        ("retries (timeout)", c.retries_timeout.get()),
        ("retries (transfer)", c.retries_transfer.get()),
        ("retries (other)", c.retries_other.get()),
        ("bus resets", c.bus_resets.get()),
        ("timeouts", c.timeouts.get()),
        ("unit attentions", c.unit_attentions.get()),
        ("deferred errors", c.deferred_errors.get()),
        ("lost writes", c.lost_writes.get()),
        ("read errors", c.read_errors.get()),
        ("write errors", c.write_errors.get()),
        ("polled fallbacks", c.polled_fallbacks.get()),
    ]
}

/// Plain-words hints from a record: the first stage not reached and what it usually means,
/// then what the counters and errors suggest.
pub fn hints(r: &FlightRecord) -> Vec<String> {
    let mut h = Vec::new();
    let reached = |b| r.reached(b);
    if !reached(stage::ENTERED_AT_0) && !reached(stage::ENTERED_AT_8) {
        h.push("the record does not say how the ROM entered the driver (a damaged record?)".into());
    }
    if !reached(stage::SCSI_MANAGER_FOUND) {
        h.push("the driver found no SCSI Manager it could use".into());
    } else if !reached(stage::DRVR_INSTALLED) {
        h.push("the driver could not install itself (_DrvrInstall failed: no free unit table entry or no memory)".into());
    } else if !reached(stage::INQUIRY) {
        h.push("the drive did not answer INQUIRY: check its SCSI ID, termination and power, and that it had spun up".into());
    } else if !reached(stage::CAPACITY) {
        h.push(
            "the drive did not answer READ CAPACITY: it was not ready or holds no medium".into(),
        );
    } else if !reached(stage::MAP_PARSED) {
        h.push(
            "the driver could not read the partition map (run `ferrite check` on the disk)".into(),
        );
    } else if r.hfs_partitions == 0 {
        h.push("the partition map has no Apple_HFS partition: there is nothing to mount".into());
    } else if !reached(stage::DRIVES_ADDED) {
        h.push("no drive was added to the drive queue (_AddDrive)".into());
    } else if !reached(stage::FIRST_IO) {
        h.push("the driver was installed but the ROM never read through it: the Mac started from another disk, or the boot stopped right after the driver loaded".into());
    } else if r.first_io_result.get() != 0 {
        h.push(format!(
            "the first read through the driver failed (error {})",
            r.first_io_result.get() as i16
        ));
    } else if !reached(stage::FIRST_ACCRUN) {
        h.push("the system never gave the driver idle time (no accRun): the boot stopped before the desktop — a System, extension or startup problem after the disk was read".into());
    } else if !reached(stage::GOODBYE) && r.reason != reason::GOODBYE {
        h.push("no goodbye was recorded: the last session ended without Shut Down or Restart (a crash, a hang or a power cut), or the Mac is still running".into());
    }
    match r.write_cache {
        write_cache::SELECT_REFUSED => h.push("the drive refused MODE SELECT: its write cache could not be set (`--write-cache off` stops the driver asking)".into()),
        write_cache::NO_PAGE => h.push("the drive has no caching mode page: its cache is left as it is".into()),
        _ => {}
    }
    if reached(stage::SETTINGS_FALLBACK) {
        h.push("the driver's settings block failed its check: the driver ran write-through with default settings; reinstall it with `ferrite install-driver`".into());
    }
    if reached(stage::SAFE_START) {
        h.push("the safe-start key was held: write-through, polled transfers, no idle work, recorder off for that boot".into());
    }
    let c = &r.counters;
    if c.lost_writes.get() > 0 {
        h.push(format!("the drive reported {} lost write(s): data may be missing; run `ferrite check` and consider `--write-cache off`", c.lost_writes.get()));
    }
    if c.bus_resets.get() > 0 || c.timeouts.get() > 0 {
        h.push(format!(
            "{} bus reset(s) and {} timeout(s): check cabling and termination",
            c.bus_resets.get(),
            c.timeouts.get()
        ));
    }
    if c.polled_fallbacks.get() > 0 {
        h.push(format!("blind transfers failed {} time(s) and fell back to polled ones: `--transfer-mode polled` avoids the retries", c.polled_fallbacks.get()));
    }
    if let Some(e) = r.recent_errors().next() {
        h.push(format!(
            "{} error(s) since install; the newest: {}",
            r.error_total.get(),
            error_words(e)
        ));
    }
    h
}

fn error_words(e: &ferrite_shared::flight_record::ErrorEntry) -> String {
    format!(
        "command ${:02X} at block {}: result {}, status {}, sense key {:X}h ASC {:02X}h ASCQ {:02X}h, {} retries, at tick {}",
        e.opcode,
        e.lba.get(),
        e.result.get() as i16,
        if e.status == 0xFF {
            "none".to_string()
        } else {
            format!("${:02X}", e.status)
        },
        e.sense_key,
        e.asc,
        e.ascq,
        e.retries,
        e.ticks.get()
    )
}

fn slot_word(s: &Slot) -> String {
    match s {
        Slot::Empty => "empty".into(),
        Slot::Torn => "torn (a write that did not finish, or damage): ignored".into(),
        Slot::Valid(r) => format!("record #{}", r.sequence.get()),
    }
}

fn stages_of(r: &FlightRecord, want: bool) -> Vec<&'static str> {
    stage::ALL
        .iter()
        .filter(|(b, _)| r.reached(*b) == want)
        .map(|&(_, n)| n)
        .collect()
}

/// The report as text, ready to paste.
pub fn text(r: &Report) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "Ferrite report: {}", r.disk);
    let _ = writeln!(o, "ferrite {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(
        o,
        "disk: {} ({} blocks of {} bytes)",
        human(r.bytes),
        r.bytes / r.block_size as u64,
        r.block_size
    );
    let map = match &r.map {
        Err(e) => {
            let _ = writeln!(o, "partition map: cannot be read: {e}");
            let _ = writeln!(
                o,
                "hints:\n  - the ROM will not load a driver from this disk; `ferrite check` says more"
            );
            return o;
        }
        Ok(m) => m,
    };
    let _ = writeln!(o, "partition map: {} entries", map.partitions.len());
    for p in &map.partitions {
        let _ = writeln!(
            o,
            "  {:>2}  {:<20} {:<22} start {:>10}  blocks {:>10}",
            p.map_block,
            p.kind,
            format!("\"{}\"", p.name),
            p.start,
            p.blocks
        );
    }
    let Some(d) = &r.driver else {
        let _ = writeln!(
            o,
            "driver: none (no Mac OS SCSI driver descriptor): the disk does not start up; `ferrite install-driver` adds one"
        );
        return o;
    };
    let _ = writeln!(
        o,
        "driver: {}, {} bytes in partition {} (block {}, {} blocks), checksum {}",
        d.kind,
        d.bytes,
        d.map_block,
        d.start,
        d.blocks,
        if d.checksum_ok {
            "good"
        } else {
            "WRONG (the ROM will not load it)"
        }
    );
    if let Some(s) = &d.settings {
        let _ = writeln!(o, "settings: {}", disk::describe_settings(s));
    }
    if let Some(off) = d.recorder_off {
        let _ = writeln!(
            o,
            "flight recorder: {}",
            if off {
                "off (set; no driver honours it yet)"
            } else {
                "on"
            }
        );
    }
    let mut hint_list = Vec::new();
    match &r.area {
        None => {}
        Some(Area::NoRoom) => {
            let _ = writeln!(
                o,
                "record area: none (the driver partition has no room for one past the driver; `ferrite install-driver` adds one where the disk has {RECORD_AREA_BLOCKS} blocks to spare)"
            );
        }
        Some(Area::Unusable { at, why }) => {
            let _ = writeln!(
                o,
                "record area: at block {at}: {why} (the driver writes no record there)"
            );
        }
        Some(Area::Found { at, slots, latest }) => {
            let _ = writeln!(
                o,
                "record area: blocks {at}-{}; slots: {}",
                at + RECORD_AREA_BLOCKS - 1,
                slots.iter().map(slot_word).collect::<Vec<_>>().join(", ")
            );
            match latest {
                None if matches!(d.kind, DriverKind::Ferrite { .. }) => {
                    let _ = writeln!(o, "record: no record yet (this driver does not write one)");
                }
                None => {
                    let _ = writeln!(o, "record: no record yet");
                }
                Some((slot, rec)) => {
                    write_record(&mut o, *slot, rec);
                    hint_list = hints(rec);
                }
            }
        }
    }
    if !d.checksum_ok {
        hint_list.insert(
            0,
            "the driver's checksum is wrong: the ROM skips this disk; run `ferrite install-driver`"
                .into(),
        );
    }
    if !hint_list.is_empty() {
        let _ = writeln!(o, "hints:");
        for h in hint_list {
            let _ = writeln!(o, "  - {h}");
        }
    }
    o
}

fn write_record(o: &mut String, slot: usize, r: &FlightRecord) {
    use std::fmt::Write;
    let _ = writeln!(
        o,
        "record: #{} (slot {slot}), boot {}, written {} at tick {} ({:.1} s after start-up)",
        r.sequence.get(),
        r.boot.get(),
        reason_name(r.reason),
        r.ticks.get(),
        f64::from(r.ticks.get()) / 60.15
    );
    let _ = writeln!(o, "  reached: {}", stages_of(r, true).join(", "));
    let _ = writeln!(o, "  not reached: {}", stages_of(r, false).join(", "));
    let _ = writeln!(
        o,
        "  entry: {}, D5 ${:08X}; SCSI Manager {} (version ${:04X}); CPU {}; machine (Gestalt) {}; ROM version ${:04X}; System ${:04X}",
        match r.entry {
            0 => "+0".to_string(),
            8 => "+8".to_string(),
            _ => "unknown".to_string(),
        },
        r.d5.get(),
        manager_name(r.scsi_manager),
        r.scsi_manager_version.get(),
        cpu_name(r.cpu),
        r.machine.get(),
        r.rom_version.get(),
        r.system_version.get()
    );
    let v = r.driver_version;
    let _ = writeln!(o, "  driver version {}.{}.{}", v[0], v[1], v[2]);
    if let Some((vendor, product, rev)) = inquiry_words(r) {
        let _ = writeln!(
            o,
            "  drive: \"{vendor}\" \"{product}\" \"{rev}\" (device type {})",
            r.inquiry[0] & 0x1F
        );
    }
    if r.reached(stage::CAPACITY) {
        let _ = writeln!(
            o,
            "  capacity: {} blocks of {} bytes ({})",
            r.capacity_blocks.get(),
            r.block_size.get(),
            human(r.capacity_blocks.get() * r.block_size.get() as u64)
        );
    }
    let _ = writeln!(
        o,
        "  map: {} entries, {} HFS partition(s), {} drive(s) added (first drive {}); write cache: {}; first I/O result {}",
        r.map_entries,
        r.hfs_partitions,
        r.drives_added,
        r.first_drive.get(),
        cache_name(r.write_cache),
        r.first_io_result.get() as i16
    );
    let _ = writeln!(
        o,
        "  settings in force: flags ${:08X}, read-ahead {}, transfer {}, at most {} blocks per command, idle flush {} ticks ({})",
        r.settings_flags.get(),
        r.read_ahead.get(),
        ferrite_shared::driver_blob::TransferMode::from_code(r.transfer)
            .map_or("unknown", |t| t.name()),
        r.max_blocks_old.get(),
        r.idle_flush_ticks.get(),
        match r.settings_source {
            0 => "the driver's settings block",
            1 => "fallback: the block failed its check",
            2 => "safe start",
            _ => "unknown source",
        }
    );
    let _ = writeln!(
        o,
        "  counters: {}",
        counters(r)
            .iter()
            .map(|(n, v)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if r.error_total.get() > 0 {
        let _ = writeln!(
            o,
            "  errors: {} since install, newest first:",
            r.error_total.get()
        );
        for e in r.recent_errors() {
            let _ = writeln!(o, "    {}", error_words(e));
        }
    }
}

/// The report as JSON.
pub fn json(r: &Report) -> Value {
    let map = match &r.map {
        Err(e) => json!({ "error": e }),
        Ok(m) => json!({
            "entries": m.partitions.iter().map(|p| json!({
                "map_block": p.map_block, "type": p.kind, "name": p.name,
                "start": p.start, "blocks": p.blocks,
            })).collect::<Vec<_>>(),
        }),
    };
    let driver = r.driver.as_ref().map(|d| {
        json!({
            "kind": d.kind.to_string(),
            "version": match &d.kind {
                DriverKind::Ferrite { version: Some([a, b, c]) } => json!(format!("{a}.{b}.{c}")),
                _ => Value::Null,
            },
            "map_block": d.map_block, "start": d.start, "blocks": d.blocks, "bytes": d.bytes,
            "checksum_ok": d.checksum_ok,
            "settings": d.settings.as_ref().map(disk::describe_settings),
            "recorder_off": d.recorder_off,
        })
    });
    let (area, record, hint_list) = match &r.area {
        None => (Value::Null, Value::Null, Vec::new()),
        Some(Area::NoRoom) => (json!({ "state": "none" }), Value::Null, Vec::new()),
        Some(Area::Unusable { at, why }) => (
            json!({ "state": "unusable", "at": at, "why": why.to_string() }),
            Value::Null,
            Vec::new(),
        ),
        Some(Area::Found { at, slots, latest }) => (
            json!({
                "state": "found", "at": at,
                "slots": slots.iter().map(|s| match s {
                    Slot::Empty => json!("empty"),
                    Slot::Torn => json!("torn"),
                    Slot::Valid(r) => json!({ "sequence": r.sequence.get() }),
                }).collect::<Vec<_>>(),
            }),
            latest
                .as_ref()
                .map_or(Value::Null, |(slot, rec)| record_json(*slot, rec)),
            latest.as_ref().map_or(Vec::new(), |(_, rec)| hints(rec)),
        ),
    };
    json!({
        "disk": r.disk, "bytes": r.bytes, "block_size": r.block_size,
        "ferrite": env!("CARGO_PKG_VERSION"),
        "map": map, "driver": driver, "record_area": area, "record": record,
        "hints": hint_list,
    })
}

fn record_json(slot: usize, r: &FlightRecord) -> Value {
    let inquiry =
        inquiry_words(r).map(|(v, p, rev)| json!({ "vendor": v, "product": p, "revision": rev }));
    json!({
        "slot": slot, "sequence": r.sequence.get(), "boot": r.boot.get(),
        "reason": reason_name(r.reason), "ticks": r.ticks.get(),
        "stages": stages_of(r, true), "stages_not_reached": stages_of(r, false),
        "entry": r.entry, "d5": r.d5.get(),
        "scsi_manager": manager_name(r.scsi_manager), "scsi_manager_version": r.scsi_manager_version.get(),
        "cpu": cpu_name(r.cpu), "machine": r.machine.get(), "rom_version": r.rom_version.get(),
        "system_version": r.system_version.get(), "driver_version": r.driver_version[..3],
        "inquiry": inquiry,
        "capacity_blocks": r.capacity_blocks.get(), "block_size": r.block_size.get(),
        "map_entries": r.map_entries, "hfs_partitions": r.hfs_partitions,
        "drives_added": r.drives_added, "first_drive": r.first_drive.get(),
        "write_cache": cache_name(r.write_cache), "first_io_result": r.first_io_result.get() as i16,
        "settings": {
            "flags": r.settings_flags.get(), "read_ahead": r.read_ahead.get(), "transfer": r.transfer,
            "max_blocks_old": r.max_blocks_old.get(), "idle_flush_ticks": r.idle_flush_ticks.get(),
            "source": r.settings_source,
        },
        "counters": counters(r).into_iter().map(|(n, v)| (n.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "error_total": r.error_total.get(),
        "errors": r.recent_errors().map(|e| json!({
            "ticks": e.ticks.get(), "lba": e.lba.get(), "result": e.result.get() as i16,
            "opcode": e.opcode, "status": e.status, "sense_key": e.sense_key,
            "asc": e.asc, "ascq": e.ascq, "retries": e.retries,
        })).collect::<Vec<_>>(),
    })
}

pub fn report(path: &Path, as_json: bool) -> Result<()> {
    let mut img = disk::open_disk(path, false)?;
    let r = gather(&mut img, &path.display().to_string())?;
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json(&r)).expect("JSON of numbers and strings")
        );
    } else {
        print!("{}", text(&r));
    }
    Ok(())
}
