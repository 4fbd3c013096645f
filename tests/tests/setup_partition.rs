//! Ferrite Setup's Partition window and Mount Volumes, in the emulated Mac (68000 and 68040,
//! both SCSI Managers): a volume is added in a disk's free space, renamed and deleted
//! through the dialogs, and the disk afterwards is read by the formatter core's checker and
//! by hfsutils; the startup disk and a mounted volume are refused in words and left as they
//! were; Mount Volumes loads Ferrite's driver from a disk the Mac has no driver for and
//! mounts its volumes (they appear in the VCB queue), without a restart.

#[path = "support/setup.rs"]
mod support;

use std::process::Command;

use ferrite_emu::Machine;
use ferrite_emu::file_manager::FileManager;
use ferrite_emu::scsi::DiskTarget;
use ferrite_emu::scsi_manager;
use ferrite_emu::start_manager::{BootConfig, RomGeneration, boot};
use ferrite_emu::toolbox::{AlertKind, Input, Seen};
use ferrite_formatter::apm::{PartitionMap, read_map};
use ferrite_formatter::hfs::check_volume;
use ferrite_formatter::{MemDisk, Region};
use support::*;

const BLOCKS: u64 = 24 * 2048;
/// Items of the Partition window (DITL 140) and its Add / Rename dialogs (DITL 141, 142).
const DONE: i16 = 1;
const ADD: i16 = 2;
const RENAME: i16 = 3;
const DELETE: i16 = 4;
const FIRST_ROW: i16 = 6;
const NAME: i16 = 5;
const SIZE: i16 = 7;
const OK: i16 = 1;
const CONFIRM: i16 = 2;

fn date() -> u32 {
    mac_seconds(2026, 12, 4, 5, 0, 0)
}

fn rom(v43: bool) -> RomGeneration {
    if v43 {
        RomGeneration::ScsiManager43
    } else {
        RomGeneration::OriginalScsiManager
    }
}

/// `ferrite init` of a 24 MB disk with these volumes (the rest of the disk left free when
/// every volume has a size).
fn ferrite_disk(volumes: &[&str]) -> Vec<u8> {
    // One file per call: the tests run in parallel threads of one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = std::env::temp_dir().join(format!(
        "ferrite-setup-part-{}-{call}-{}.img",
        std::process::id(),
        volumes.join("-").replace(':', "_")
    ));
    let mut args = Vec::new();
    for v in volumes {
        args.push("--volume");
        args.push(v);
    }
    args.extend(["--date", "2026-12-04T05:00:00"]);
    ferrite_init(&tmp, BLOCKS, &args)
}

/// A size as the app words it: tenths of KB, MB or GB, truncated.
fn size_words(bytes: u64) -> String {
    let (unit, shift) = match bytes {
        b if b >= 1 << 30 => ("GB", 30),
        b if b >= 1 << 20 => ("MB", 20),
        _ => ("KB", 10),
    };
    let tenths = (bytes * 10) >> shift;
    format!("{}.{} {unit}", tenths / 10, tenths % 10)
}

fn map_of(image: &[u8]) -> PartitionMap {
    let mut d = MemDisk::from_bytes(image.to_vec());
    read_map(&mut d).expect("a readable partition map")
}

/// Every HFS volume of the image passes the formatter core's checker.
fn check_volumes(image: &[u8]) {
    let mut d = MemDisk::from_bytes(image.to_vec());
    let map = read_map(&mut d).unwrap();
    for p in map.hfs_partitions() {
        let r = Region::new(&mut d, p.start as u64, p.blocks as u64).unwrap();
        check_volume(r).unwrap_or_else(|e| panic!("volume {}: {e}", p.name));
    }
}

/// hfsutils' `hmount` of HFS partition `n` (1 = the first) of the image: the volume name.
fn hfsutils_volume_name(image: &[u8], n: usize) -> String {
    // One directory per call: the tests run in parallel threads of one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "ferrite-setup-part-hfs-{}-{call}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let img = dir.join("disk.img");
    std::fs::write(&img, image).unwrap();
    let out = Command::new("hmount")
        .arg(&img)
        .arg(n.to_string())
        .env("HOME", &dir)
        .current_dir(&dir)
        .output()
        .expect("hfsutils' hmount (installed by `cargo xtask setup`)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let _ = Command::new("humount").env("HOME", &dir).output();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "hmount: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| l.strip_prefix("Volume name is \""))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap_or_else(|| panic!("hmount said: {text}"))
        .to_string()
}

/// The Partition window's rows as shown each time it opened.
fn shown_lists(seen: &[Seen]) -> Vec<Vec<String>> {
    seen.iter()
        .filter_map(|s| match s {
            Seen::Dialog { items, .. } if items[4].starts_with("Partition map of") => Some(
                items[FIRST_ROW as usize - 1..FIRST_ROW as usize + 9]
                    .iter()
                    .filter(|t| !t.is_empty())
                    .cloned()
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// Add "Archive" (5 MB) in the free space, rename its entry, then (a second launch) delete
/// it: the map and the volumes read back with the core and hfsutils after each step, and
/// the disk's other volume is untouched byte for byte.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn adds_renames_and_deletes_a_volume_in_free_space() {
    let disk = ferrite_disk(&["System:10M"]);
    let before = map_of(&disk);
    let kinds: Vec<&str> = before.partitions.iter().map(|p| p.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "Apple_partition_map",
            "Apple_Driver43",
            "Apple_HFS",
            "Apple_Free"
        ]
    );
    let system = before.partitions[2].clone();
    let free = before.partitions[3].clone();
    let system_bytes = |img: &[u8]| {
        img[system.start as usize * 512..(system.start + system.blocks) as usize * 512].to_vec()
    };
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, date());
        attach_image(&mut m, 3, &disk, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Partition…"),
                Input::DialogItem(ADD),
                typing(NAME, "Archive"),
                typing(SIZE, "5"),
                Input::DialogItem(OK),
                // The note: no driver in the Mac for the disk, Mount Volumes mounts it.
                Input::DialogItem(1),
                // The new volume is the fourth entry (the free entry became it).
                Input::DialogItem(FIRST_ROW + 3),
                Input::DialogItem(RENAME),
                typing(NAME, "Old Archive"),
                Input::DialogItem(OK),
                Input::DialogItem(DONE),
                Input::CommandKey('q'),
            ],
        );
        assert_plus_stack(&m, &run, "Partition ▸ Add");
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert_fits_small_screen(&s.seen);
        assert!(run.unused_input.is_empty(), "{ctx}");
        assert_eq!(
            alert_texts(&s.seen),
            [
                "“Archive” is added to ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks). The Mac has no driver for the disk yet: choose Mount Volumes in the Drive menu to mount it."
            ],
            "{ctx}"
        );
        let lists = shown_lists(&s.seen);
        // Opened three times: at first, after Add, after Rename (a click only marks a line).
        assert_eq!(lists.len(), 3, "{ctx}");
        assert_eq!(
            lists[0],
            [
                "   1  Apple_partition_map  Apple  at 1  31.5 KB".to_string(),
                format!(
                    "   2  Apple_Driver43  Macintosh  at 64  {}",
                    size_words(before.partitions[1].blocks as u64 * 512)
                ),
                format!(
                    "   3  Apple_HFS  System  at {}  10.0 MB  not mounted",
                    system.start
                ),
                format!(
                    "   4  Apple_Free  Extra  at {}  {}",
                    free.start,
                    size_words(free.blocks as u64 * 512)
                ),
            ],
            "{ctx}"
        );
        assert_eq!(
            lists[1][3],
            format!(
                "   4  Apple_HFS  Archive  at {}  5.0 MB  not mounted",
                free.start
            ),
            "{ctx}"
        );
        assert_eq!(
            lists[2][3],
            format!(
                "\u{2022} 4  Apple_HFS  Old Archive  at {}  5.0 MB  not mounted",
                free.start
            ),
            "{ctx}"
        );
        let img = image(&mut m, 3);
        let map = map_of(&img);
        let p = &map.partitions;
        assert_eq!(p.len(), 5, "{ctx}");
        assert_eq!(
            (
                p[3].kind.as_str(),
                p[3].name.as_str(),
                p[3].start,
                p[3].blocks
            ),
            ("Apple_HFS", "Old Archive", free.start, 5 * 2048),
            "{ctx}"
        );
        assert_eq!(
            (p[4].kind.as_str(), p[4].start, p[4].blocks),
            ("Apple_Free", free.start + 5 * 2048, free.blocks - 5 * 2048),
            "{ctx}"
        );
        check_volumes(&img);
        assert_eq!(system_bytes(&img), system_bytes(&disk), "{ctx}");
        // hfsutils reads both volumes; the HFS name stays the one given at Add.
        assert_eq!(hfsutils_volume_name(&img, 1), "System", "{ctx}");
        assert_eq!(hfsutils_volume_name(&img, 2), "Archive", "{ctx}");

        // Delete it: the confirmation names the entry and the drive.
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Partition…"),
                Input::DialogItem(FIRST_ROW + 3),
                Input::DialogItem(DELETE),
                Input::DialogItem(CONFIRM),
                Input::DialogItem(DONE),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        let confirm = s
            .alerts()
            .into_iter()
            .find_map(|a| match a {
                Seen::Alert {
                    kind: AlertKind::Caution,
                    texts,
                    buttons,
                    ..
                } => Some((texts[0].clone(), buttons.clone())),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no confirmation\n{ctx}"));
        assert_eq!(
            confirm.0,
            "Delete “Old Archive” (entry 4, Apple_HFS, 5.0 MB) of ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks)? The volume and every file on it will be lost.",
            "{ctx}"
        );
        assert_eq!(confirm.1, ["Cancel", "Delete"], "{ctx}");
        let img = image(&mut m, 3);
        let map = map_of(&img);
        let p = &map.partitions;
        assert_eq!(
            (p[3].kind.as_str(), p[3].start, p[3].blocks),
            ("Apple_Free", free.start, 5 * 2048),
            "{ctx}"
        );
        assert_eq!(p.len(), 5, "{ctx}");
        check_volumes(&img);
        assert_eq!(system_bytes(&img), system_bytes(&disk), "{ctx}");
        assert_eq!(hfsutils_volume_name(&img, 1), "System", "{ctx}");
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}

/// parted's name for partition `n` of the image (`parted -s … print`): an independent reader
/// of the map's `pmPartName`.
fn parted_name(image: &[u8], n: usize) -> String {
    let img = std::env::temp_dir().join(format!(
        "ferrite-setup-part-parted-{}.img",
        std::process::id()
    ));
    std::fs::write(&img, image).unwrap();
    let out = Command::new("parted")
        .args(["-s", "-m"])
        .arg(&img)
        .args(["unit", "s", "print"])
        .output()
        .expect("parted (installed by `cargo xtask setup`)");
    let _ = std::fs::remove_file(&img);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "parted: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Machine-readable lines: number:start:end:size:filesystem:name:flags;
    text.lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() >= 6 && f[0] == n.to_string()).then(|| f[5].to_string())
        })
        .unwrap_or_else(|| panic!("parted lists no partition {n}: {text}"))
}

/// A map of fourteen entries (twelve volumes): the window shows nine and a line "… and 5
/// more entries"; a click on it turns the page, the last entry is selected and renamed. The
/// map reads back with the core and with parted, hfsutils mounts the renamed entry's volume,
/// and nothing but that entry's map block changed.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn the_last_of_fourteen_entries_is_reached_selected_and_renamed() {
    let mut volumes: Vec<String> = (1..=11).map(|i| format!("V{i}:1M")).collect();
    volumes.push("V12".into());
    let volumes: Vec<&str> = volumes.iter().map(String::as_str).collect();
    let disk = ferrite_disk(&volumes);
    let before = map_of(&disk);
    assert_eq!(before.partitions.len(), 14);
    let last = before.partitions[13].clone();
    assert_eq!(
        (last.kind.as_str(), last.name.as_str()),
        ("Apple_HFS", "V12")
    );
    for cpu in CPUS {
        let v43 = cpu == ferrite_emu::CpuModel::M68040;
        let mut m = machine(cpu, v43, date());
        attach_image(&mut m, 3, &disk, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Partition…"),
                // The tenth line: "… and 5 more entries".
                Input::DialogItem(FIRST_ROW + 9),
                // The next page: "… 9 earlier entries", then entries 10 to 14.
                Input::DialogItem(FIRST_ROW + 5),
                Input::DialogItem(RENAME),
                typing(NAME, "Last One"),
                Input::DialogItem(OK),
                Input::DialogItem(DONE),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert_fits_small_screen(&s.seen);
        assert!(run.unused_input.is_empty(), "{ctx}");
        assert!(alert_texts(&s.seen).is_empty(), "{ctx}");
        let lists = shown_lists(&s.seen);
        assert_eq!(lists.len(), 2, "{ctx}");
        assert_eq!(lists[0].len(), 10, "{ctx}");
        assert!(lists[0][8].starts_with("   9  Apple_HFS  V7  at "), "{ctx}");
        assert_eq!(
            lists[0][9], "   \u{2026} and 5 more entries: click to show them",
            "{ctx}"
        );
        // Reopened after the rename on the same page, the renamed entry selected.
        assert_eq!(
            lists[1][0], "   \u{2026} 9 earlier entries: click to show them",
            "{ctx}"
        );
        assert!(
            lists[1][1].starts_with("   10  Apple_HFS  V8  at "),
            "{ctx}"
        );
        assert_eq!(
            lists[1][5],
            format!(
                "\u{2022} 14  Apple_HFS  Last One  at {}  {}  not mounted",
                last.start,
                size_words(last.blocks as u64 * 512)
            ),
            "{ctx}"
        );
        assert_eq!(lists[1].len(), 6, "{ctx}");
        let img = image(&mut m, 3);
        let map = map_of(&img);
        assert_eq!(map.partitions.len(), 14, "{ctx}");
        assert_eq!(map.partitions[13].name, "Last One", "{ctx}");
        assert_eq!(parted_name(&img, 14), "Last One", "{ctx}");
        assert_eq!(parted_name(&img, 13), "V11", "{ctx}");
        // The volume itself keeps its HFS name (the Finder's to change).
        assert_eq!(hfsutils_volume_name(&img, 12), "V12", "{ctx}");
        check_volumes(&img);
        // Only map block 14 changed.
        for b in 0..img.len() / 512 {
            if b != 14 {
                assert!(
                    img[b * 512..(b + 1) * 512] == disk[b * 512..(b + 1) * 512],
                    "{ctx}: block {b} changed"
                );
            }
        }
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}

/// After a boot through Ferrite's driver from two disks: the startup disk's map is refused
/// for Add, and a mounted volume's entry for Delete and Rename, each in words naming it;
/// neither disk changes.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn refuses_the_startup_disk_and_a_mounted_volume() {
    let disk = ferrite_disk(&["System:10M", "Data:8M"]);
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, date());
        attach_image(&mut m, 0, &disk, ibm());
        attach_image(&mut m, 2, &disk, ibm());
        let report = boot(&mut m, &BootConfig::new(rom(v43))).unwrap();
        assert_eq!(report.volumes.len(), 4, "{report}");
        let boot_drive = report.boot_drive.expect("a startup drive") as i16;
        let id_of = |number: i16| {
            let d = report.drives.iter().find(|d| d.number == number).unwrap();
            (-33 - d.ref_num) as u8
        };
        let startup = id_of(boot_drive);
        let other = if startup == 0 { 2 } else { 0 };
        // ID 0 has three lines, ID 1 one: ID 2 starts at line 4.
        let line = |id: u8| if id == 0 { 0 } else { 4 };
        // The drive serving `other`'s "System" (its third map entry).
        let system_drive = report
            .drives
            .iter()
            .filter(|d| id_of(d.number) == other)
            .map(|d| d.number)
            .min()
            .unwrap();
        let run = launch(
            &mut m,
            vec![
                click_line(line(startup)),
                menu("Drive", "Partition…"),
                Input::DialogItem(ADD),
                Input::DialogItem(1),
                Input::DialogItem(DONE),
                click_line(line(other)),
                menu("Drive", "Partition…"),
                Input::DialogItem(FIRST_ROW + 2),
                Input::DialogItem(DELETE),
                Input::DialogItem(1),
                Input::DialogItem(RENAME),
                Input::DialogItem(1),
                Input::DialogItem(DONE),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43} startup=ID {startup}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        let mounted = |command: &str| {
            format!(
                "{command} refused: “System” (entry 3, Apple_HFS, 10.0 MB) is mounted as the volume “System” (drive {system_drive}). Put it away (drag it to the Trash), then try again."
            )
        };
        assert_eq!(
            alert_texts(&s.seen),
            [
                format!(
                    "Add refused: ID {startup} is the startup disk (drive {boot_drive}); its map is never changed while the Mac runs from it. Start up from another disk to change it."
                ),
                mounted("Delete"),
                mounted("Rename"),
            ],
            "{ctx}"
        );
        // The list says which volumes are mounted.
        let lists = shown_lists(&s.seen);
        assert!(
            lists.last().unwrap()[2].ends_with(&format!("mounted (drive {system_drive})")),
            "{ctx}"
        );
        assert_eq!(image(&mut m, 0), disk, "{ctx}");
        assert_eq!(image(&mut m, 2), disk, "{ctx}");
    }
}

/// A disk attached after start-up has no driver in the Mac: Mount Volumes loads Ferrite's
/// driver from it, calls its install entry as the ROM would, and mounts both volumes (they
/// are in the VCB queue, served by unit 32 + ID); a second Mount Volumes finds nothing new.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn mount_volumes_loads_the_driver_and_mounts_a_new_disk() {
    let startup = ferrite_disk(&["Startup:10M"]);
    let disk = ferrite_disk(&["System:10M", "Data"]);
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, date());
        attach_image(&mut m, 0, &startup, ibm());
        let report = boot(&mut m, &BootConfig::new(rom(v43))).unwrap();
        assert_eq!(report.volumes.len(), 1, "{report}");
        attach_image(&mut m, 3, &disk, ibm());
        let run = launch(
            &mut m,
            vec![
                // ID 0 has three lines, IDs 1 and 2 one each.
                click_line(5),
                menu("Drive", "Mount Volumes"),
                Input::DialogItem(1),
                menu("Drive", "Mount Volumes"),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        assert_eq!(
            alert_texts(&s.seen),
            [
                "“System” and “Data” are mounted (Ferrite's driver loaded from the disk).",
                "No new volume of ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks) was mounted.",
            ],
            "{ctx}"
        );
        let vcbs = vcb_queue(&m);
        let names: Vec<&str> = vcbs.iter().map(|v| v.0.as_str()).collect();
        assert_eq!(names, ["Startup", "System", "Data"], "{ctx}");
        // Served by the driver at unit 32 + 3 (refNum −36), on two drives of its own.
        assert!(vcbs[1..].iter().all(|v| v.2 == -36), "{ctx}\n{vcbs:?}");
        assert_ne!(vcbs[1].1, vcbs[2].1, "{ctx}");
        let fm = m.state::<FileManager>();
        assert_eq!(fm.volumes.len(), 3, "{ctx}");
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
        // Nothing was written to the disk.
        assert_eq!(image(&mut m, 3), disk, "{ctx}");
    }
}

/// A disk attached after start-up whose driver is another vendor's: Mount Volumes does not
/// run foreign code; it says so and how to get the volumes, and the VCB queue stays as it
/// was.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn mount_volumes_does_not_run_another_vendors_driver() {
    let startup = ferrite_disk(&["Startup:10M"]);
    let mut foreign =
        ferrite_emu::test_disk::TestDisk::new((0..6000u32).map(|i| (i * 7) as u8).collect());
    foreign.driver_name = "Vendor".into();
    let (foreign, _) = foreign.build();
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, date());
        attach_image(&mut m, 0, &startup, ibm());
        boot(&mut m, &BootConfig::new(rom(v43))).unwrap();
        attach_image(&mut m, 3, &foreign, ibm());
        let run = launch(
            &mut m,
            vec![
                // ID 0 has three lines, IDs 1 and 2 one each.
                click_line(5),
                menu("Drive", "Mount Volumes"),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        let blocks = foreign.len() / 512;
        assert_eq!(
            alert_texts(&s.seen),
            [format!(
                "The volumes of ID 3, IBM DORS-31080 ({}, {blocks} blocks) cannot be mounted: its driver is not Ferrite's, and Ferrite Setup loads only its own: restart to let the Mac load it.",
                size_words(blocks as u64 * 512)
            )],
            "{ctx}"
        );
        let names: Vec<String> = vcb_queue(&m).into_iter().map(|v| v.0).collect();
        assert_eq!(names, ["Startup"], "{ctx}");
        assert!(m.drives().iter().all(|d| d.ref_num != -36), "{ctx}");
    }
}

/// The disk of the volume tests: the startup disk at ID 3 (the boot scan goes from ID 6
/// down, so its drive is the first and the startup drive) and a second Ferrite disk at ID 0
/// with "System" and "Data" and free space, both served by Ferrite's driver and mounted.
/// The VCB queue is "Startup", "System", "Data".
fn boot_two_ferrite_disks(cpu: ferrite_emu::CpuModel, v43: bool, disk: &[u8]) -> Machine {
    let startup = ferrite_disk(&["Startup:10M"]);
    let mut m = machine(cpu, v43, date());
    attach_image(&mut m, 0, disk, ibm());
    attach_image(&mut m, 3, &startup, ibm());
    let report = boot(&mut m, &BootConfig::new(rom(v43))).unwrap();
    let names: Vec<String> = vcb_queue(&m).into_iter().map(|v| v.0).collect();
    assert_eq!(names, ["Startup", "System", "Data"], "{report}");
    let startup_ref = m
        .drives()
        .into_iter()
        .find(|d| d.number as u16 == report.boot_drive.unwrap())
        .unwrap()
        .ref_num;
    assert_eq!(startup_ref, -36, "{report}");
    m
}

/// The disk at ID 0 of the volume tests, as `ferrite init` makes it.
const ID0_DISK: &str = "ID 0, IBM DORS-31080 (24.0 MB, 49152 blocks)";

/// Partition… ▸ Add on a disk Ferrite's driver serves: the driver is asked to read the map
/// again, adds a drive for the new volume, and the app mounts it — no restart: the note
/// says so, the list shows it mounted, the VCB queue has it (its MDB read through the new
/// drive), and the disk afterwards passes the core's checker and hfsutils.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn add_mounts_the_new_volume_without_a_restart() {
    let disk = ferrite_disk(&["System:10M", "Data:8M"]);
    let free = map_of(&disk).partitions[4].clone();
    assert_eq!(free.kind, "Apple_Free");
    for (cpu, v43) in both() {
        let mut m = boot_two_ferrite_disks(cpu, v43, &disk);
        let drives_before = m.drives();
        let run = launch(
            &mut m,
            vec![
                click_line(0),
                menu("Drive", "Partition…"),
                Input::DialogItem(ADD),
                typing(NAME, "Archive"),
                typing(SIZE, "5"),
                Input::DialogItem(OK),
                Input::DialogItem(1),
                Input::DialogItem(DONE),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        // Exactly one new drive, the driver's of ID 0 (refNum −33).
        let new: Vec<_> = m
            .drives()
            .into_iter()
            .filter(|d| !drives_before.contains(d))
            .collect();
        assert_eq!(new.len(), 1, "{ctx}\n{new:?}");
        let drive = new[0].number;
        assert_eq!((new[0].ref_num, new[0].blocks), (-33, 5 * 2048), "{ctx}");
        assert_eq!(
            s.alerts()
                .into_iter()
                .map(|a| match a {
                    Seen::Alert { kind, texts, .. } => (*kind, texts[0].clone()),
                    _ => unreachable!(),
                })
                .collect::<Vec<_>>(),
            [(
                AlertKind::Note,
                format!(
                    "“Archive” is added to {ID0_DISK} and mounted as “Archive” (drive {drive}), without a restart."
                )
            )],
            "{ctx}"
        );
        let lists = shown_lists(&s.seen);
        assert_eq!(
            lists.last().unwrap()[4],
            format!(
                "   5  Apple_HFS  Archive  at {}  5.0 MB  mounted (drive {drive})",
                free.start
            ),
            "{ctx}"
        );
        let vcbs = vcb_queue(&m);
        assert_eq!(
            vcbs.last().unwrap(),
            &("Archive".to_string(), drive, -33),
            "{ctx}"
        );
        // Mounted from what the drive reads: the File Manager's record of its MDB.
        let fm = m.state::<FileManager>();
        let v = fm.volumes.iter().find(|v| v.name == "Archive").unwrap();
        assert_eq!(v.size_bytes(), {
            let img = image(&mut m, 0);
            let mdb = &img[(free.start as usize + 2) * 512..][..512];
            u16::from_be_bytes([mdb[0x12], mdb[0x13]]) as u64
                * u32::from_be_bytes([mdb[0x14], mdb[0x15], mdb[0x16], mdb[0x17]]) as u64
        });
        let img = image(&mut m, 0);
        // Readable through the new drive, to its last block: the MDB and the alternate MDB
        // (the next-to-last block) as on the disk.
        for block in [2u32, 5 * 2048 - 2] {
            let got =
                ferrite_emu::file_manager::read_through_driver(&mut m, &new[0], block * 512, 512)
                    .unwrap()
                    .unwrap_or_else(|e| {
                        panic!("{ctx}\nreading block {block} of drive {drive}: {e}")
                    });
            let at = (free.start + block) as usize * 512;
            assert_eq!(got, img[at..at + 512], "{ctx}: block {block}");
            assert_eq!(&got[..2], b"BD", "{ctx}: block {block}");
        }
        check_volumes(&img);
        assert_eq!(hfsutils_volume_name(&img, 3), "Archive", "{ctx}");
        assert_eq!(hfsutils_volume_name(&img, 1), "System", "{ctx}");
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}

/// A disk whose driver in the Mac is not Ferrite's (here Ferrite's code under another name:
/// it serves the disk, but the app must not send it Ferrite's own call): Add writes the
/// volume, then says in words that a restart is needed; no drive is added, nothing mounted.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn add_on_another_drivers_disk_says_to_restart() {
    let mut blob = m68k_file("ferrite-driver.bin");
    // The DRVR header's name (header at +48, drvrName at +18): ".Ferrite" → ".Vendor!".
    assert_eq!(&blob[66..75], b"\x08.Ferrite");
    blob[67..75].copy_from_slice(b".Vendor!");
    let mut other = ferrite_emu::test_disk::TestDisk::new(blob);
    other.total_blocks = 20_000;
    let (other, _) = other.build();
    let startup = ferrite_disk(&["Startup:10M"]);
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, date());
        attach_image(&mut m, 0, &other, ibm());
        attach_image(&mut m, 3, &startup, ibm());
        let report = boot(&mut m, &BootConfig::new(rom(v43))).unwrap();
        let names: Vec<String> = vcb_queue(&m).into_iter().map(|v| v.0).collect();
        assert_eq!(names, ["Startup", "Test HD"], "{report}");
        let drives_before = m.drives();
        let run = launch(
            &mut m,
            vec![
                click_line(0),
                menu("Drive", "Partition…"),
                Input::DialogItem(ADD),
                typing(NAME, "Archive"),
                typing(SIZE, "5"),
                Input::DialogItem(OK),
                Input::DialogItem(1),
                Input::DialogItem(DONE),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        assert_eq!(
            stop_alert_text(&s.seen),
            format!(
                "“Archive” is added to ID 0, IBM DORS-31080 ({}, 20000 blocks), but the disk's driver in the Mac is not Ferrite's and cannot serve a new volume: restart the Mac to mount it.",
                size_words(20_000 * 512)
            ),
            "{ctx}"
        );
        assert_eq!(m.drives(), drives_before, "{ctx}");
        let names: Vec<String> = vcb_queue(&m).into_iter().map(|v| v.0).collect();
        assert_eq!(names, ["Startup", "Test HD"], "{ctx}");
        // The volume is on the disk all the same.
        let img = image(&mut m, 0);
        let map = map_of(&img);
        let added = map.partitions.iter().find(|p| p.name == "Archive").unwrap();
        assert_eq!(
            (added.kind.as_str(), added.blocks),
            ("Apple_HFS", 5 * 2048),
            "{ctx}"
        );
        // (The test disk's own volume is a bare MDB: only the new one is a whole volume.)
        let mut d = MemDisk::from_bytes(img.clone());
        let r = Region::new(&mut d, added.start as u64, added.blocks as u64).unwrap();
        check_volume(r).unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}

/// A volume of a disk that is not the startup disk, unmounted with `_UnmountVol` (which
/// refuses the startup volume and a volume with a file open, `fBsyErr`): the Partition list
/// shows it not mounted, with its drive; Mount Volumes mounts it again; Delete is refused
/// for the mounted "System" and, after another `_UnmountVol`, allowed for "Data".
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn an_unmounted_volume_is_listed_remounted_and_may_be_deleted() {
    use ferrite_emu::file_manager::{F_BSY_ERR, call_unmount_vol};
    let disk = ferrite_disk(&["System:10M", "Data:8M"]);
    let before = map_of(&disk);
    let (system, data) = (before.partitions[2].clone(), before.partitions[3].clone());
    for (cpu, v43) in both() {
        let mut m = boot_two_ferrite_disks(cpu, v43, &disk);
        let vref = |m: &mut Machine, name: &str| {
            m.state::<FileManager>()
                .volumes
                .iter()
                .find(|v| v.name == name)
                .unwrap()
                .vref_num
        };
        let (startup_v, system_v, data_v) = (
            vref(&mut m, "Startup"),
            vref(&mut m, "System"),
            vref(&mut m, "Data"),
        );
        let data_drive = vcb_queue(&m)[2].1;
        // The startup volume and a volume with a file open are refused.
        assert_eq!(call_unmount_vol(&mut m, startup_v).unwrap(), F_BSY_ERR);
        m.state::<FileManager>().open_file(data_v);
        assert_eq!(call_unmount_vol(&mut m, data_v).unwrap(), F_BSY_ERR);
        m.state::<FileManager>().close_file(data_v);
        let drives = m.drives();
        assert_eq!(call_unmount_vol(&mut m, data_v).unwrap(), 0);
        let names: Vec<String> = vcb_queue(&m).into_iter().map(|v| v.0).collect();
        assert_eq!(names, ["Startup", "System"]);
        assert_eq!(m.drives(), drives, "the drive stays in the drive queue");

        let run = launch(
            &mut m,
            vec![
                click_line(0),
                menu("Drive", "Partition…"),
                Input::DialogItem(DONE),
                menu("Drive", "Mount Volumes"),
                Input::DialogItem(1),
                menu("Drive", "Partition…"),
                Input::DialogItem(FIRST_ROW + 2),
                Input::DialogItem(DELETE),
                Input::DialogItem(1),
                Input::DialogItem(DONE),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        let lists = shown_lists(&s.seen);
        assert_eq!(
            lists[0][3],
            format!(
                "   4  Apple_HFS  Data  at {}  8.0 MB  not mounted (drive {data_drive})",
                data.start
            ),
            "{ctx}"
        );
        assert_eq!(
            lists[1][3],
            format!(
                "   4  Apple_HFS  Data  at {}  8.0 MB  mounted (drive {data_drive})",
                data.start
            ),
            "{ctx}"
        );
        let system_drive = vcb_queue(&m)[1].1;
        assert_eq!(
            alert_texts(&s.seen),
            [
                "“Data” is mounted.".to_string(),
                format!(
                    "Delete refused: “System” (entry 3, Apple_HFS, 10.0 MB) is mounted as the volume “System” (drive {system_drive}). Put it away (drag it to the Trash), then try again."
                ),
            ],
            "{ctx}"
        );
        let names: Vec<String> = vcb_queue(&m).into_iter().map(|v| v.0).collect();
        assert_eq!(names, ["Startup", "System", "Data"], "{ctx}");
        assert_eq!(image(&mut m, 0), disk, "{ctx}");

        // Unmounted again (its new vRefNum), "Data" may be deleted.
        let data_v2 = vref(&mut m, "Data");
        assert_ne!(data_v2, data_v, "a vRefNum is not reused");
        assert_ne!(data_v2, system_v);
        assert_eq!(call_unmount_vol(&mut m, data_v2).unwrap(), 0);
        let run = launch(
            &mut m,
            vec![
                click_line(0),
                menu("Drive", "Partition…"),
                Input::DialogItem(FIRST_ROW + 3),
                Input::DialogItem(DELETE),
                Input::DialogItem(CONFIRM),
                Input::DialogItem(DONE),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        assert_eq!(
            alert_texts(&s.seen).len(),
            1,
            "{ctx}: only the confirmation"
        );
        let img = image(&mut m, 0);
        let p = map_of(&img).partitions;
        assert_eq!(
            (p[3].kind.as_str(), p[3].start, p[3].blocks),
            ("Apple_Free", data.start, data.blocks),
            "{ctx}"
        );
        let sys = |i: &[u8]| {
            i[system.start as usize * 512..(system.start + system.blocks) as usize * 512].to_vec()
        };
        assert_eq!(sys(&img), sys(&disk), "{ctx}");
        assert_eq!(hfsutils_volume_name(&img, 1), "System", "{ctx}");
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}

/// A volume put in the map behind the driver's back (here the disk rewritten with a third
/// volume after the boot): Mount Volumes asks Ferrite's driver to read the map again, and
/// mounts the new volume; the two mounted before stay as they were.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn mount_volumes_serves_a_volume_added_since_the_driver_read_the_map() {
    let disk = ferrite_disk(&["System:10M", "Data:8M"]);
    let more = ferrite_disk(&["System:10M", "Data:8M", "More:4M"]);
    let (a, b) = (map_of(&disk).partitions, map_of(&more).partitions);
    for i in 0..4 {
        assert_eq!(
            (&a[i].kind, a[i].start, a[i].blocks),
            (&b[i].kind, b[i].start, b[i].blocks)
        );
    }
    assert_eq!(
        (b[4].kind.as_str(), b[4].name.as_str()),
        ("Apple_HFS", "More")
    );
    for (cpu, v43) in both() {
        let mut m = boot_two_ferrite_disks(cpu, v43, &disk);
        let vcbs_before = vcb_queue(&m);
        scsi_manager::bus(&mut m)
            .target_as_mut::<DiskTarget>(0)
            .unwrap()
            .write_store(0, &more)
            .unwrap();
        let run = launch(
            &mut m,
            vec![
                click_line(0),
                menu("Drive", "Mount Volumes"),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        assert_eq!(alert_texts(&s.seen), ["“More” is mounted."], "{ctx}");
        let vcbs = vcb_queue(&m);
        assert_eq!(vcbs[..3], vcbs_before[..], "{ctx}");
        assert_eq!((vcbs[3].0.as_str(), vcbs[3].2), ("More", -33), "{ctx}");
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}
