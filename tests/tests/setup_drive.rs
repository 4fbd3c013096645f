//! Ferrite Setup's Drive menu on disks the Mac uses or the drive refuses, in the emulated
//! Mac (68000 and 68040, both SCSI Managers): Initialize refuses the startup disk, a disk
//! whose drives the Mac has, and a write-protected drive, each with its message, leaving the
//! disk byte for byte as it was; Drive Settings turns the write cache off on the target;
//! Test lists exactly the injected medium errors, and ⌘-period cancels it; on a Mac without
//! a SCSI Manager the window says so.

#[path = "support/setup.rs"]
mod support;

use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::scsi_manager;
use ferrite_emu::start_manager::{BootConfig, RomGeneration, boot};
use ferrite_emu::test_disk::TestDisk;
use ferrite_emu::toolbox::{Input, Seen};
use ferrite_emu::{CpuModel, Machine};
use ferrite_formatter::{MemDisk, apm};
use ferrite_shared::driver_blob::{Settings, TransferMode};
use support::*;

const BLOCKS: u64 = 40_960;
/// Drive Settings' transfer mode radio buttons (DITL 135): Automatic, Blind, Polled.
const TRANSFER: [i16; 3] = [7, 8, 9];

/// The driver's settings block in a disk image: the blob at the first descriptor of block 0
/// (`ddBlock` at byte 18).
fn driver_settings(image: &[u8]) -> Settings {
    let at = u32::from_be_bytes(image[18..22].try_into().unwrap()) as usize * 512;
    Settings::read(&image[at..]).expect("a Ferrite driver")
}

fn ferrite_disk(blocks: u32) -> Vec<u8> {
    let mut d = TestDisk::new(m68k_file("ferrite-driver.bin"));
    d.total_blocks = blocks;
    d.build().0
}

/// The startup disk (ID 0) and another disk whose drives the Mac has (ID 2), after a boot
/// through Ferrite's driver: Initialize refuses both, in words, and writes nothing.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn initialize_refuses_the_startup_disk_and_a_disk_in_use() {
    let disk = ferrite_disk(20_000);
    for (cpu, v43) in both() {
        let rom = if v43 {
            RomGeneration::ScsiManager43
        } else {
            RomGeneration::OriginalScsiManager
        };
        let mut m = machine(cpu, v43, mac_seconds(2026, 12, 4, 0, 0, 0));
        attach_image(&mut m, 0, &disk, DiskConfig::default());
        attach_image(&mut m, 2, &disk, DiskConfig::default());
        let report = boot(&mut m, &BootConfig::new(rom)).unwrap();
        assert_eq!(report.drives.len(), 2, "{report}");
        // Which disk the model started up from: the boot drive's driver is unit 32 + ID.
        let boot_drive = report.boot_drive.expect("a startup drive") as i16;
        let id_of = |number: i16| {
            let d = report.drives.iter().find(|d| d.number == number).unwrap();
            (-33 - d.ref_num) as u8
        };
        let startup = id_of(boot_drive);
        let other = report
            .drives
            .iter()
            .find(|d| d.number != boot_drive)
            .unwrap();
        assert_ne!(startup, id_of(other.number));
        let run = launch(
            &mut m,
            vec![
                click_line(0),
                menu("Drive", "Initialize…"),
                Input::DialogItem(1),
                // ID 0 has three lines, ID 1 one: ID 2's first line is line 4.
                click_line(4),
                menu("Drive", "Initialize…"),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        let refusal = |id: u8| {
            if id == startup {
                format!(
                    "Initialize refused: ID {id} is the startup disk (drive {boot_drive}). Start up from another disk to change it."
                )
            } else {
                format!(
                    "Initialize refused: the Mac is using ID {id} (drive {}); its volumes may be mounted. Put them away (drag them to the Trash) and restart without its driver, then try again.",
                    other.number
                )
            }
        };
        assert_eq!(alert_texts(&s.seen), [refusal(0), refusal(2)], "{ctx}");
        assert!(!s.window_titles().contains(&"Progress".into()), "{ctx}");
        assert_eq!(image(&mut m, 0), disk, "{ctx}");
        assert_eq!(image(&mut m, 2), disk, "{ctx}");
    }
}

/// A write-protected drive: refused before any dialog, nothing written.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn initialize_refuses_a_write_protected_drive() {
    let disk = ferrite_disk(BLOCKS as u32);
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        let cfg = DiskConfig {
            write_protected: true,
            ..ibm()
        };
        attach_image(&mut m, 3, &disk, cfg);
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Initialize…"),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert_eq!(
            stop_alert_text(&s.seen),
            "Initialize refused: ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks) is write-protected. Switch its write protection off (a jumper or switch on the drive or cartridge), then try again.",
            "{ctx}"
        );
        assert!(
            !s.seen.iter().any(|x| matches!(x, Seen::Dialog { .. })),
            "{ctx}"
        );
        assert_eq!(image(&mut m, 3), disk, "{ctx}");
    }
}

/// Drive Settings shows the caching page and turns the write cache off on the target.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn drive_settings_turns_the_write_cache_off() {
    let disk = ferrite_disk(BLOCKS as u32);
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        let cfg = DiskConfig {
            write_cache_enabled: true,
            saving_supported: true,
            ..ibm()
        };
        attach_image(&mut m, 3, &disk, cfg);
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Drive Settings…"),
                Input::DialogItem(5),
                Input::DialogItem(1),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        let items = s
            .seen
            .iter()
            .find_map(|x| match x {
                Seen::Dialog { items, .. } => Some(items.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{ctx}"));
        assert_eq!(
            items[3],
            "Write cache on, read cache on. The write cache can be changed and the drive saves the setting.",
            "{ctx}"
        );
        // The dialog showed the check box on; the click made the app turn it off.
        let values: Vec<i16> = s
            .seen
            .iter()
            .filter_map(|x| match x {
                Seen::ControlValue { item: 5, value, .. } => Some(*value),
                _ => None,
            })
            .collect();
        assert_eq!(values, [1, 0], "{ctx}");
        assert_eq!(
            alert_texts(&s.seen),
            ["The write cache of ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks) is now off."],
            "{ctx}"
        );
        let t = scsi_manager::bus(&mut m)
            .target_as::<DiskTarget>(3)
            .unwrap()
            .mode_pages()
            .wce();
        assert!(!t, "{ctx}: the drive's caching page still has WCE");
    }
}

/// Drive Settings records the transfer mode in the settings block of the Ferrite driver on
/// the disk, through the crash-safe install of that same driver: the disk equals what
/// `ferrite install-driver --transfer-mode polled` makes of it, the settings block differs
/// only in its transfer mode, and every volume block is as it was.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn drive_settings_records_the_transfer_mode_on_disk() {
    let disk = ferrite_disk(BLOCKS as u32);
    let before = driver_settings(&disk);
    assert_eq!(before.transfer, TransferMode::Auto);
    // The host command on a copy of the same disk.
    let tmp = std::env::temp_dir().join(format!("ferrite-setup-mode-{}.img", std::process::id()));
    std::fs::write(&tmp, &disk).unwrap();
    let out = std::process::Command::new(ferrite_command())
        .arg("install-driver")
        .arg(&tmp)
        .arg("--driver")
        .arg(m68k_dir().join("ferrite-driver.bin"))
        .args(["--transfer-mode", "polled"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = std::fs::read(&tmp).unwrap();
    let _ = std::fs::remove_file(&tmp);
    for cpu in CPUS {
        let v43 = cpu == CpuModel::M68040;
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, 3, &disk, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Drive Settings…"),
                Input::DialogItem(TRANSFER[2]),
                Input::DialogItem(1),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert_fits_small_screen(&s.seen);
        // The dialog opened with the disk's mode (Automatic) on; the click chose Polled.
        let radios: Vec<(i16, i16)> = s
            .seen
            .iter()
            .filter_map(|x| match x {
                Seen::ControlValue { item, value, .. } if TRANSFER.contains(item) => {
                    Some((*item, *value))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            radios,
            [(7, 1), (8, 0), (9, 0), (7, 0), (8, 0), (9, 1)],
            "{ctx}"
        );
        assert_eq!(
            alert_texts(&s.seen),
            [
                "The transfer mode of ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks) is now polled (the driver's, on the original SCSI Manager)."
            ],
            "{ctx}"
        );
        assert!(run.unused_input.is_empty(), "{ctx}");
        let got = image(&mut m, 3);
        assert_eq!(
            driver_settings(&got),
            Settings {
                transfer: TransferMode::Polled,
                ..before
            },
            "{ctx}"
        );
        // Every volume's blocks are as they were.
        let map = apm::read_map(&mut MemDisk::from_bytes(disk.clone())).unwrap();
        assert!(map.partitions.iter().any(|p| p.is_hfs()));
        let volumes = map.partitions.iter().filter(|p| p.is_hfs());
        for (start, blocks) in volumes.map(|p| (p.start as usize, p.blocks as usize)) {
            assert_eq!(
                got[start * 512..(start + blocks) * 512],
                disk[start * 512..(start + blocks) * 512],
                "{ctx}: the volume at block {start} changed"
            );
        }
        if let Some(at) = got.iter().zip(&expected).position(|(a, b)| a != b) {
            panic!(
                "{cpu} v43={v43}: the disk differs from `ferrite install-driver --transfer-mode polled`'s at byte {at} (block {})",
                at / 512
            );
        }
    }
}

/// Test lists exactly the injected medium errors; Reassign is offered and declined here.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn test_lists_exactly_the_injected_medium_errors() {
    let disk = ferrite_disk(BLOCKS as u32);
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, 3, &disk, ibm());
        {
            let t = scsi_manager::bus(&mut m)
                .target_as_mut::<DiskTarget>(3)
                .unwrap();
            t.inject_read_error(777);
            t.inject_read_error(30_001);
        }
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Test…"),
                Input::DialogItem(1),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        let texts = alert_texts(&s.seen);
        assert_eq!(
            texts[0], "2 bad block(s) on ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks): 777, 30001.",
            "{ctx}"
        );
        assert_eq!(
            texts[1],
            "Reassign blocks 777, 30001 of ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks) to spare blocks? The data they held is lost.",
            "{ctx}"
        );
        assert!(s.window_titles().contains(&"Progress".into()), "{ctx}");
        assert!(
            s.seen.iter().any(
                |x| matches!(x, Seen::Shape { window, op: "PaintRect", .. } if window == "Progress")
            ),
            "{ctx}: no progress bar"
        );
        assert_eq!(image(&mut m, 3), disk, "{ctx}: Test wrote to the disk");
    }
}

/// ⌘-period in the progress window cancels Test.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn command_period_cancels_a_test() {
    let disk = ferrite_disk(BLOCKS as u32);
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, 3, &disk, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Test…"),
                Input::CommandKey('.'),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert_eq!(
            alert_texts(&s.seen),
            ["Test of ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks) cancelled."],
            "{ctx}"
        );
    }
}

/// No SCSI Manager at all: the window says so and the Drive menu is off.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn without_a_scsi_manager_the_window_says_so() {
    for cpu in CPUS {
        let mut m = Machine::new(cpu);
        m.install_mac_os();
        m.install_toolbox();
        let run = launch(&mut m, vec![Input::CommandKey('q')]);
        let s = &run.screen;
        assert_eq!(
            s.strings_drawn(),
            ["No usable SCSI Manager on this Mac: Ferrite Setup cannot reach the SCSI bus."],
            "{cpu}:\n{}",
            s.transcript()
        );
        assert_eq!(s.seen.last(), Some(&Seen::Exit));
    }
}

/// Update Driver over a foreign driver: the confirmation names the drive and what it
/// carries, Ferrite's driver replaces it, the volume is byte for byte intact, and the bus list
/// then shows Ferrite's driver.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn update_driver_replaces_a_foreign_driver_and_keeps_the_volume() {
    // 24 KB of another vendor's driver (bytes from a fixed generator).
    let mut x = 0x1234_5678u32;
    let foreign: Vec<u8> = (0..24 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    let mut d = TestDisk::new(foreign);
    d.driver_name = "HDT Driver".into();
    d.total_blocks = BLOCKS as u32;
    let (disk, layout) = d.build();
    let (vstart, vblocks) = layout.volumes[0];
    let volume =
        |img: &[u8]| img[vstart as usize * 512..(vstart + vblocks) as usize * 512].to_vec();
    let version = env!("CARGO_PKG_VERSION");
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, 3, &disk, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(3),
                menu("Drive", "Update Driver…"),
                Input::DialogItem(2),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        let texts = alert_texts(&s.seen);
        assert_eq!(texts.len(), 2, "{ctx}");
        assert!(
            texts[0].starts_with("Update the driver of ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks)? Now: Apple partition map"),
            "{ctx}"
        );
        assert!(texts[0].contains("HDT Driver"), "{ctx}");
        assert!(
            texts[1]
                .starts_with("ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks): driver updated from ")
                && texts[1].ends_with(&format!(
                    "to Ferrite {version}; every volume kept. Restart to use it."
                )),
            "{ctx}"
        );
        println!(
            "{cpu} v43={v43}: {} instructions; traps: {:?}",
            run.instructions,
            m.stats().trap_counts.keys().collect::<Vec<_>>()
        );
        let after = image(&mut m, 3);
        assert_eq!(volume(&after), volume(&disk), "{ctx}: the volume changed");
        assert_ne!(after, disk, "{ctx}: nothing was written");
        let rows = s.strings_drawn();
        assert!(
            rows.last_chunk::<7>().is_some_and(|r| r
                .iter()
                .any(|l| l.ends_with(&format!("Ferrite {version} driver")))),
            "{ctx}: the rescan does not show Ferrite's driver"
        );
    }
}

/// Issue 32 point 3: Drive Settings and Test ▸ Reassign Blocks go through the same in-use
/// refusal as Initialize and Update Driver. After a boot through Ferrite's driver from two
/// disks (the startup disk and a disk whose volumes are mounted), Drive Settings is refused
/// on both; Test still reads the mounted disk and lists its bad blocks, but Reassign is
/// refused in words instead of offered; no REASSIGN BLOCKS or MODE SELECT reaches either
/// disk, and neither changes. `BootDrive` holds the startup volume's working-directory
/// refNum (not a drive number), so the app must find the startup drive through
/// `PBHGetVInfo`.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn drive_settings_and_reassign_are_refused_on_disks_the_mac_uses() {
    let disk = ferrite_disk(20_000);
    for (cpu, v43) in both() {
        let rom = if v43 {
            RomGeneration::ScsiManager43
        } else {
            RomGeneration::OriginalScsiManager
        };
        let mut m = machine(cpu, v43, mac_seconds(2026, 12, 4, 0, 0, 0));
        attach_image(&mut m, 0, &disk, DiskConfig::default());
        attach_image(&mut m, 2, &disk, DiskConfig::default());
        let report = boot(&mut m, &BootConfig::new(rom)).unwrap();
        assert_eq!(report.drives.len(), 2, "{report}");
        let boot_drive = report.boot_drive.expect("a startup drive") as i16;
        let boot_word = m.read_u16(0x210) as i16;
        assert!(
            boot_word < 0 && boot_word != boot_drive,
            "BootDrive holds {boot_word}: the model must leave a (working-directory) refNum there"
        );
        let id_of = |number: i16| {
            let d = report.drives.iter().find(|d| d.number == number).unwrap();
            (-33 - d.ref_num) as u8
        };
        let startup = id_of(boot_drive);
        let other = report
            .drives
            .iter()
            .find(|d| d.number != boot_drive)
            .unwrap();
        let other_id = id_of(other.number);
        assert_ne!(startup, other_id);
        // Bad blocks far from the volumes' start, on the disk that is not the startup disk.
        {
            let t = scsi_manager::bus(&mut m)
                .target_as_mut::<DiskTarget>(other_id)
                .unwrap();
            t.inject_read_error(15_001);
            t.inject_read_error(19_000);
        }
        scsi_manager::bus(&mut m).clear_log();
        // ID 0 has three lines, ID 1 one: ID 2's first line is line 4.
        let line = |id: u8| if id == 0 { 0 } else { 4 };
        let run = launch(
            &mut m,
            vec![
                click_line(line(startup)),
                menu("Drive", "Drive Settings…"),
                Input::DialogItem(1),
                click_line(line(other_id)),
                menu("Drive", "Drive Settings…"),
                Input::DialogItem(1),
                menu("Drive", "Test…"),
                Input::DialogItem(1),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43} startup=ID {startup}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        let using = |command: &str| {
            format!(
                "{command} refused: the Mac is using ID {other_id} (drive {}); its volumes may be mounted. Put them away (drag them to the Trash) and restart without its driver, then try again.",
                other.number
            )
        };
        let texts = alert_texts(&s.seen);
        assert_eq!(texts.len(), 4, "{ctx}");
        assert_eq!(
            texts[0],
            format!(
                "Drive Settings refused: ID {startup} is the startup disk (drive {boot_drive}). Start up from another disk to change it."
            ),
            "{ctx}"
        );
        assert_eq!(texts[1], using("Drive Settings"), "{ctx}");
        assert!(
            texts[2].starts_with(&format!("2 bad block(s) on ID {other_id}, "))
                && texts[2].ends_with(": 15001, 19000."),
            "{ctx}"
        );
        assert_eq!(texts[3], using("Reassign Blocks"), "{ctx}");
        let writes: Vec<u8> = scsi_manager::bus(&mut m)
            .log()
            .iter()
            .map(|e| e.cdb[0])
            .filter(|&op| matches!(op, 0x07 | 0x15 | 0x55 | 0x0A | 0x2A))
            .collect();
        assert!(
            writes.is_empty(),
            "{ctx}: commands that write reached a disk in use: {writes:02X?}"
        );
        assert_eq!(image(&mut m, 0), disk, "{ctx}");
        assert_eq!(image(&mut m, 2), disk, "{ctx}");
    }
}
