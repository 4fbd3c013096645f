//! `ferrite report`, run as a user runs it, on disks whose flight records were written by the
//! host side of the format (`ferrite_shared::flight_record`): no record yet, a record of a
//! boot that stopped, a torn slot beside a whole one, an older disk without a record area.

use ferrite_formatter::MemDisk;
use ferrite_formatter::apm::read_map;
use ferrite_shared::driver_blob::Settings;
use ferrite_shared::flight_record::{
    ErrorEntry, FlightRecord, reason, scsi_manager, stage, write_cache,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use zerocopy::IntoBytes;

mod support;
use support::old_ferrite_disk;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("ferrite-report-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A stand-in Ferrite driver with a version-2 settings block and version 0.2.0.
fn fake_ferrite(len: usize) -> Vec<u8> {
    let mut b: Vec<u8> = (0..len as u32).map(|i| (i * 13 + 5) as u8).collect();
    b[4..8].copy_from_slice(b"FRRT");
    b[16..48].fill(0);
    b[16..20].copy_from_slice(b"FSET");
    b[20..22].copy_from_slice(&2u16.to_be_bytes());
    b[24..28].copy_from_slice(&1u32.to_be_bytes());
    b[32..34].copy_from_slice(&128u16.to_be_bytes());
    b[44..47].copy_from_slice(&[0, 2, 0]);
    assert!(Settings::read(&b).is_ok());
    b
}

fn ferrite(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ferrite"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ferrite");
    assert!(
        out.status.success(),
        "`ferrite {}` failed: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `ferrite init` of an 8 MiB disk with the stand-in driver; returns its path.
fn new_disk(s: &Scratch) -> PathBuf {
    let drv = s.path("drv.bin");
    std::fs::write(&drv, fake_ferrite(9000)).unwrap();
    ferrite(
        &s.0,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--driver",
            drv.to_str().unwrap(),
            "--no-setup-app",
            "--date",
            "2026-12-01",
        ],
    );
    s.path("d.hda")
}

/// The record area's first block on the disk at `path` (the driver partition's last 8).
fn area_of(path: &Path) -> usize {
    let mut d = MemDisk::from_bytes(std::fs::read(path).unwrap());
    let map = read_map(&mut d).unwrap();
    let p = map
        .partitions
        .iter()
        .find(|p| p.kind == "Apple_Driver43")
        .unwrap();
    (p.start + p.blocks - 8) as usize
}

/// Write `bytes` (a record's 512) into slot `slot` of the disk at `path`.
fn put_slot(path: &Path, slot: usize, bytes: &[u8]) {
    let mut b = std::fs::read(path).unwrap();
    let at = (area_of(path) + 1 + slot) * 512;
    b[at..at + 512].copy_from_slice(bytes);
    std::fs::write(path, b).unwrap();
}

/// A record of a boot on a Quadra-like Mac that added its drive and was never read through.
fn stopped_boot(seq: u32) -> FlightRecord {
    let mut r = FlightRecord::new(seq);
    r.boot.set(3);
    r.ticks.set(602);
    r.reason = reason::INSTALL;
    r.entry = 8;
    r.scsi_manager = scsi_manager::V43;
    r.scsi_manager_version.set(0x0430);
    r.cpu = 4;
    r.machine.set(35);
    r.rom_version.set(0x067C);
    r.d5.set(0x0000_0300);
    r.driver_version = [0, 2, 0, 0];
    r.stages.set(
        stage::ENTERED_AT_8
            | stage::RELOCATED
            | stage::SCSI_MANAGER_FOUND
            | stage::DRVR_INSTALLED
            | stage::INQUIRY
            | stage::CAPACITY
            | stage::MAP_PARSED
            | stage::DRIVES_ADDED
            | stage::WRITE_CACHE_SET,
    );
    r.inquiry[8..16].copy_from_slice(b"QUANTUM ");
    r.inquiry[16..32].copy_from_slice(b"FIREBALL1080S   ");
    r.inquiry[32..36].copy_from_slice(b"1Q09");
    r.block_size.set(512);
    r.capacity_blocks.set(2_110_000);
    r.map_entries = 4;
    r.hfs_partitions = 1;
    r.drives_added = 1;
    r.first_drive.set(8);
    r.write_cache = write_cache::SELECT_REFUSED;
    r.counters.commands.set(17);
    r.counters.bus_resets.set(1);
    let mut e = ErrorEntry {
        opcode: 0x15,
        status: 2,
        sense_key: 5,
        asc: 0x26,
        ..Default::default()
    };
    e.result.set(-36i16 as u16);
    r.push_error(e);
    r.seal(seq);
    r
}

#[test]
fn a_new_disk_has_an_empty_area_and_no_record_yet() {
    let s = Scratch::new("empty");
    let path = new_disk(&s);
    let out = ferrite(&s.0, &["report", "d.hda"]);
    assert!(
        out.contains(
            "driver: Ferrite 0.2.0, 9000 bytes in partition 2 (block 64, 96 blocks), checksum good"
        ),
        "{out}"
    );
    assert!(
        out.contains("record area: blocks 152-159; slots: empty, empty"),
        "{out}"
    );
    assert!(
        out.contains("record: no record yet (this driver does not write one)"),
        "{out}"
    );
    assert!(out.contains("flight recorder: on"), "{out}");
    assert_eq!(area_of(&path), 152);
    let j: serde_json::Value =
        serde_json::from_str(&ferrite(&s.0, &["report", "d.hda", "--json"])).unwrap();
    assert_eq!(j["record_area"]["state"], "found");
    assert_eq!(j["record_area"]["at"], 152);
    assert!(j["record"].is_null());
    assert_eq!(j["driver"]["version"], "0.2.0");
    assert_eq!(j["driver"]["recorder_off"], false);
}

#[test]
fn a_record_of_a_boot_that_stopped_is_read_with_hints() {
    let s = Scratch::new("stopped");
    let path = new_disk(&s);
    let r = stopped_boot(7);
    put_slot(&path, 1, r.as_bytes());
    let out = ferrite(&s.0, &["report", "d.hda"]);
    for want in [
        "slots: empty, record #7",
        "record: #7 (slot 1), boot 3, written at install at tick 602",
        "reached: entered at +8, relocated, SCSI Manager found, driver installed, INQUIRY, capacity, map parsed, drives added, write cache set",
        "not reached: entered at +0, first I/O, first accRun",
        "SCSI Manager 4.3 (version $0430); CPU 68040; machine (Gestalt) 35; ROM version $067C",
        "drive: \"QUANTUM\" \"FIREBALL1080S\" \"1Q09\"",
        "capacity: 2110000 blocks of 512 bytes",
        "write cache: the drive refused MODE SELECT",
        "commands 17",
        "bus resets 1",
        "command $15 at block 0: result -36, status $02, sense key 5h ASC 26h ASCQ 00h",
        "the driver was installed but the ROM never read through it",
        "the drive refused MODE SELECT",
        "1 bus reset(s) and 0 timeout(s)",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    let j: serde_json::Value =
        serde_json::from_str(&ferrite(&s.0, &["report", "d.hda", "--json"])).unwrap();
    assert_eq!(j["record"]["sequence"], 7);
    assert_eq!(j["record"]["slot"], 1);
    assert_eq!(j["record"]["inquiry"]["product"], "FIREBALL1080S");
    assert_eq!(j["record"]["counters"]["commands"], 17);
    assert_eq!(j["record"]["errors"][0]["asc"], 0x26);
    assert!(
        j["hints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h.as_str().unwrap().contains("never read through it"))
    );
}

#[test]
fn a_torn_slot_is_ignored_and_the_previous_record_shown() {
    let s = Scratch::new("torn");
    let path = new_disk(&s);
    // Record 8 whole in slot 0; record 9 was being written into slot 1 over record 7 when
    // the power went: its first 300 bytes are new, the rest is record 7's.
    let mut r8 = stopped_boot(8);
    r8.stages
        .set(r8.stages.get() | stage::FIRST_IO | stage::FIRST_ACCRUN);
    r8.reason = reason::FIRST_ACCRUN;
    r8.seal(8);
    put_slot(&path, 0, r8.as_bytes());
    let r7 = stopped_boot(7);
    let mut r9 = r8;
    r9.stages.set(r9.stages.get() | stage::GOODBYE);
    r9.reason = reason::GOODBYE;
    r9.seal(9);
    let mut torn = r7.as_bytes().to_vec();
    torn[..300].copy_from_slice(&r9.as_bytes()[..300]);
    put_slot(&path, 1, &torn);
    let out = ferrite(&s.0, &["report", "d.hda"]);
    assert!(
        out.contains("slots: record #8, torn (a write that did not finish, or damage): ignored"),
        "{out}"
    );
    assert!(
        out.contains("record: #8 (slot 0), boot 3, written at the first accRun"),
        "{out}"
    );
    assert!(out.contains("no goodbye was recorded"), "{out}");
    let j: serde_json::Value =
        serde_json::from_str(&ferrite(&s.0, &["report", "d.hda", "--json"])).unwrap();
    assert_eq!(j["record_area"]["slots"][1], "torn");
    assert_eq!(j["record"]["sequence"], 8);
    // The whole record 9 in slot 1: the newer one wins.
    put_slot(&path, 1, r9.as_bytes());
    let out = ferrite(&s.0, &["report", "d.hda"]);
    assert!(out.contains("record: #9 (slot 1)"), "{out}");
    assert!(!out.contains("no goodbye"), "{out}");
}

#[test]
fn an_older_disk_has_no_record_area_and_a_recorder_off_bit_shows() {
    let s = Scratch::new("old");
    let mut blob = fake_ferrite(16_130);
    Settings::set_recorder_off(&mut blob, true).unwrap();
    let d = old_ferrite_disk(8192, &blob, &[None]);
    std::fs::write(s.path("old.hda"), d.as_bytes()).unwrap();
    let out = ferrite(&s.0, &["report", "old.hda"]);
    assert!(
        out.contains("record area: none (the driver partition has no room for one past the driver"),
        "{out}"
    );
    assert!(out.contains("flight recorder: off"), "{out}");
    let j: serde_json::Value =
        serde_json::from_str(&ferrite(&s.0, &["report", "old.hda", "--json"])).unwrap();
    assert_eq!(j["record_area"]["state"], "none");
    assert_eq!(j["driver"]["recorder_off"], true);
    // install-driver grows the partition (the end of the map partition: the volume fills
    // the disk) and keeps the recorder off; the report then finds an empty area.
    let drv = s.path("new.bin");
    std::fs::write(&drv, fake_ferrite(16_000)).unwrap();
    let out = ferrite(
        &s.0,
        &[
            "install-driver",
            "old.hda",
            "--driver",
            drv.to_str().unwrap(),
        ],
    );
    assert!(out.contains("flight-record area: blocks 56-63"), "{out}");
    let out = ferrite(&s.0, &["report", "old.hda"]);
    assert!(out.contains("slots: empty, empty"), "{out}");
    assert!(out.contains("flight recorder: off"), "{out}");
}

#[test]
fn a_disk_without_a_map_or_driver_is_reported_in_words() {
    let s = Scratch::new("nomap");
    std::fs::write(s.path("blank.hda"), vec![0u8; 1 << 20]).unwrap();
    let out = ferrite(&s.0, &["report", "blank.hda"]);
    assert!(out.contains("partition map: cannot be read"), "{out}");
}
