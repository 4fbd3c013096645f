//! Ferrite Setup initializes a blank disk through its dialogs, in the emulated Mac, on the
//! 68000 and the 68040 under both SCSI Managers: the user clicks the disk in the SCSI Bus
//! window, chooses Drive ▸ Initialize…, types two volumes, confirms the alert that names the
//! drive, and the progress window runs. The disk then equals `ferrite init`'s with the same
//! choices and date, byte for byte, and the Start Manager model boots it with both volumes
//! mounted through Ferrite's driver; before that, the app itself mounted both volumes
//! without a restart (the driver loaded from the disk it wrote). Refusals (write-protected drive, the startup disk, a
//! disk whose volumes the Mac uses) say so and leave the disk as it was. With "Low-level
//! format first" checked, the drive gets one FORMAT UNIT before any write, which erases what
//! was on it; a FORMAT UNIT the drive refuses stops everything, in words.

#[path = "support/setup.rs"]
mod support;

use ferrite_emu::scsi::DiskTarget;
use ferrite_emu::scsi::bus::LogEntry;
use ferrite_emu::scsi_manager::{self, ScsiManagerConfig};
use ferrite_emu::start_manager::{BootConfig, RomGeneration, boot};
use ferrite_emu::toolbox::{AlertKind, Input, Seen};
use ferrite_emu::{CpuModel, Machine};
use ferrite_shared::driver_blob::{Settings, TransferMode};
use support::*;

/// The blank disk: 24 MB at ID 3.
const ID: u8 = 3;
const BLOCKS: u64 = 24 * 2048;
/// Line of ID 3's first row (IDs 0–2 have one line each).
const ID3_LINE: i16 = 3;
/// Items of the Initialize dialog (DITL 129).
const NAME1: i16 = 5;
const SIZE1: i16 = 7;
const NAME2: i16 = 9;
const OK: i16 = 1;
const LOW_LEVEL: i16 = 12;
/// The transfer mode's radio buttons: Automatic, Blind, Polled.
const TRANSFER: [i16; 3] = [15, 16, 17];
/// The confirming button of the caution alert.
const CONFIRM: i16 = 2;

fn date() -> u32 {
    mac_seconds(2026, 12, 4, 3, 30, 0)
}

fn initialize_script() -> Vec<Input> {
    vec![
        click_line(ID3_LINE),
        menu("Drive", "Initialize…"),
        typing(NAME1, "System"),
        typing(SIZE1, "10"),
        typing(NAME2, "Data"),
        Input::DialogItem(OK),
        Input::DialogItem(CONFIRM),
        Input::DialogItem(1),
        Input::CommandKey('q'),
    ]
}

fn boot_image(
    cpu: CpuModel,
    rom: RomGeneration,
    image: &[u8],
) -> ferrite_emu::start_manager::BootReport {
    let mut m = Machine::new(cpu);
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: rom == RomGeneration::ScsiManager43,
            ..Default::default()
        },
    );
    let mut t = DiskTarget::in_memory(BLOCKS, ibm()).unwrap();
    t.write_store(0, image).unwrap();
    scsi_manager::bus(&mut m).attach(ID, Box::new(t));
    boot(&mut m, &BootConfig::new(rom)).unwrap_or_else(|e| panic!("{cpu} {rom:?}: {e}"))
}

#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn initializes_a_blank_disk_with_two_volumes_through_the_dialogs() {
    let tmp = std::env::temp_dir().join(format!("ferrite-setup-init-{}.img", std::process::id()));
    let expected = ferrite_init(
        &tmp,
        BLOCKS,
        &[
            "--volume",
            "System:10M",
            "--volume",
            "Data",
            "--write-cache",
            "on",
            "--date",
            "2026-12-04T03:30:00",
        ],
    );
    for cpu in CPUS {
        for v43 in [true, false] {
            let ctx0 = format!("{cpu} v43={v43}");
            let mut m = machine(cpu, v43, date());
            attach_blank(&mut m, ID, BLOCKS, ibm());
            let run = launch(&mut m, initialize_script());
            assert_plus_stack(&m, &run, "Initialize");
            let s = &run.screen;
            let ctx = format!("{ctx0}:\n{}", s.transcript());
            assert_fits_small_screen(&s.seen);
            // The click selected ID 3: its two lines are highlighted.
            assert!(
                s.seen.iter().any(|x| matches!(x, Seen::Shape { window, op: "InvertRect", rect } if window == BUS_WINDOW && rect[0] == FIRST_BASE + 3 * LINE_HEIGHT - 9)),
                "{ctx}"
            );
            // The dialog named the drive; the typing reached its fields.
            let dialog = s
                .seen
                .iter()
                .find_map(|x| match x {
                    Seen::Dialog { items, .. } => Some(items.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("no dialog\n{ctx}"));
            assert_eq!(
                dialog[2], "Initialize ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks)",
                "{ctx}"
            );
            for (item, text) in [(NAME1, "System"), (SIZE1, "10"), (NAME2, "Data")] {
                assert!(
                    s.seen.contains(&Seen::Typed {
                        dialog: String::new(),
                        item,
                        text: text.into()
                    }),
                    "{ctx}"
                );
            }
            // The confirmation names the target and says all data will be lost; Cancel is
            // the default.
            let alerts = s.alerts();
            let Seen::Alert {
                kind: AlertKind::Caution,
                texts,
                buttons,
                hit: CONFIRM,
                ..
            } = alerts[0]
            else {
                panic!("{ctx}")
            };
            assert_eq!(
                texts[0],
                "Initialize ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks)? All data on it will be lost. It will hold “System” (10.0 MB) and “Data” (the rest), with the Ferrite driver.",
                "{ctx}"
            );
            assert_eq!(buttons, &["Cancel", "Initialize"], "{ctx}");
            // The progress window came and went; the result is a note.
            assert!(s.window_titles().contains(&"Progress".to_string()), "{ctx}");
            let Seen::Alert {
                kind: AlertKind::Note,
                texts,
                ..
            } = alerts[1]
            else {
                panic!("{ctx}")
            };
            assert!(
                texts[0].starts_with("ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks) is initialized: “System” (10.0 MB) and “Data” (the rest)"),
                "{ctx}"
            );
            // Then mounted without a restart: the driver just written was loaded from the
            // disk and installed, and both volumes are in the VCB queue, served by it.
            assert!(
                texts[0].ends_with(
                    "“System” and “Data” are mounted (Ferrite's driver loaded from the disk)."
                ),
                "{ctx}"
            );
            let vcbs = vcb_queue(&m);
            let names: Vec<&str> = vcbs.iter().map(|v| v.0.as_str()).collect();
            assert_eq!(names, ["System", "Data"], "{ctx}");
            assert!(vcbs.iter().all(|v| v.2 == -36), "{ctx}\n{vcbs:?}");
            let drives: Vec<i16> = vcbs.iter().map(|v| v.1).collect();
            assert!(
                drives.iter().all(|d| m
                    .drives()
                    .iter()
                    .any(|q| q.number == *d && q.ref_num == -36)),
                "{ctx}\n{vcbs:?}"
            );
            assert_eq!(s.seen.last(), Some(&Seen::Exit), "{ctx}");
            assert!(run.unused_input.is_empty(), "{ctx}");
            m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
            // The disk equals ferrite init's with the same choices and date.
            let got = image(&mut m, ID);
            assert_eq!(got.len(), expected.len());
            if let Some(at) = got.iter().zip(&expected).position(|(a, b)| a != b) {
                panic!(
                    "{ctx0}: the disk differs from `ferrite init`'s at byte {at} (block {})",
                    at / 512
                );
            }
            // The Start Manager boots it: Ferrite's driver serves both volumes.
            let rom = if v43 {
                RomGeneration::ScsiManager43
            } else {
                RomGeneration::OriginalScsiManager
            };
            let report = boot_image(cpu, rom, &got);
            let drivers: Vec<_> = report.drivers().collect();
            assert_eq!(drivers.len(), 1, "{ctx0}\n{report}");
            assert_eq!(drivers[0].id, ID);
            assert_eq!(report.drives.len(), 2, "{ctx0}\n{report}");
            let mut names: Vec<&str> = report.volumes.iter().map(|v| v.name.as_str()).collect();
            names.sort();
            assert_eq!(names, ["Data", "System"], "{ctx0}\n{report}");
            assert!(report.errors.is_empty(), "{ctx0}\n{report}");
        }
    }
}

/// The dialog's mistakes come back in words and the dialog stays; the check boxes are the
/// app's to toggle; Cancel in the confirmation leaves the blank disk blank.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn the_dialog_explains_mistakes_and_cancel_writes_nothing() {
    for cpu in CPUS {
        for v43 in [true, false] {
            let mut m = machine(cpu, v43, date());
            attach_blank(&mut m, ID, BLOCKS, ibm());
            let run = launch(
                &mut m,
                vec![
                    Input::Key('\u{1f}'),
                    Input::Key('\u{1f}'),
                    menu("Drive", "Initialize…"),
                    typing(SIZE1, "20"),
                    typing(NAME2, "Data"),
                    typing(10, "20"),
                    Input::DialogItem(12),
                    Input::DialogItem(12),
                    Input::DialogItem(11),
                    Input::DialogItem(OK),
                    Input::DialogItem(1),
                    typing(10, ""),
                    Input::Return,
                    Input::Return,
                    Input::CommandKey('q'),
                ],
            );
            let s = &run.screen;
            let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
            assert_fits_small_screen(&s.seen);
            assert_eq!(
                alert_texts(&s.seen),
                [
                    "The volumes ask for 40 MB, more than the disk's 24 MB. Make them smaller.",
                    "Initialize ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks)? All data on it will be lost. It will hold “Macintosh HD” (20.0 MB) and “Data” (the rest), with the Ferrite driver.",
                ],
                "{ctx}"
            );
            // Return in the confirmation is Cancel (its default item).
            let hits: Vec<i16> = s
                .seen
                .iter()
                .filter_map(|x| match x {
                    Seen::Alert { hit, .. } => Some(*hit),
                    _ => None,
                })
                .collect();
            assert_eq!(hits, [1, 1], "{ctx}");
            // The app set the write cache box on, then toggled low-level format on and off
            // and the write cache off.
            let values: Vec<(i16, i16)> = s
                .seen
                .iter()
                .filter_map(|x| match x {
                    Seen::ControlValue { item, value, .. } => Some((*item, *value)),
                    _ => None,
                })
                .collect();
            assert_eq!(
                values,
                [
                    (11, 1),
                    (TRANSFER[0], 1),
                    (TRANSFER[1], 0),
                    (TRANSFER[2], 0),
                    (12, 1),
                    (12, 0),
                    (11, 0)
                ],
                "{ctx}"
            );
            assert!(
                !s.window_titles().contains(&"Progress".to_string()),
                "{ctx}"
            );
            assert!(
                image(&mut m, ID).iter().all(|&b| b == 0),
                "{ctx}: the disk was written"
            );
            assert_eq!(s.seen.last(), Some(&Seen::Exit), "{ctx}");
            m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
        }
    }
}

/// The driver's settings block in a disk image: the blob at the first descriptor of block 0
/// (`ddBlock` at byte 18).
fn driver_settings(image: &[u8]) -> Settings {
    let at = u32::from_be_bytes(image[18..22].try_into().unwrap()) as usize * 512;
    Settings::read(&image[at..]).expect("a Ferrite driver")
}

/// The transfer mode chosen with the dialog's radio buttons is recorded in the driver's
/// settings block: the disk equals `ferrite init --transfer-mode`'s byte for byte (polled on
/// the 68000 under the original SCSI Manager, blind on the 68040 under 4.3), and the
/// settings block says so.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn the_transfer_mode_chosen_is_the_one_ferrite_init_records() {
    let tmp = std::env::temp_dir().join(format!("ferrite-setup-xfer-{}.img", std::process::id()));
    for (cpu, v43, mode, item) in [
        (CpuModel::M68000, false, TransferMode::Polled, TRANSFER[2]),
        (CpuModel::M68040, true, TransferMode::Blind, TRANSFER[1]),
    ] {
        let expected = ferrite_init(
            &tmp,
            BLOCKS,
            &[
                "--volume",
                "Macintosh HD",
                "--transfer-mode",
                mode.name(),
                "--date",
                "2026-12-04T03:30:00",
            ],
        );
        assert_eq!(driver_settings(&expected).transfer, mode);
        let mut m = machine(cpu, v43, date());
        attach_blank(&mut m, ID, BLOCKS, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(ID3_LINE),
                menu("Drive", "Initialize…"),
                Input::DialogItem(item),
                Input::DialogItem(OK),
                Input::DialogItem(CONFIRM),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43} {mode:?}:\n{}", s.transcript());
        assert_fits_small_screen(&s.seen);
        // Automatic was on when the dialog opened; the click moved the choice.
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
        let mut want = vec![(TRANSFER[0], 1), (TRANSFER[1], 0), (TRANSFER[2], 0)];
        want.extend(TRANSFER.iter().map(|&i| (i, (i == item) as i16)));
        assert_eq!(radios, want, "{ctx}");
        assert!(run.unused_input.is_empty(), "{ctx}");
        let got = image(&mut m, ID);
        assert_eq!(driver_settings(&got).transfer, mode, "{ctx}");
        if let Some(at) = got.iter().zip(&expected).position(|(a, b)| a != b) {
            panic!(
                "{cpu} v43={v43}: the disk differs from `ferrite init --transfer-mode {}`'s at byte {at} (block {})",
                mode.name(),
                at / 512
            );
        }
    }
}

/// FORMAT UNIT, and the commands that write blocks: WRITE(6), WRITE(10), WRITE AND VERIFY(10).
const FORMAT_UNIT: u8 = 0x04;
const WRITES: [u8; 3] = [0x0A, 0x2A, 0x2E];

/// A block's worth of a pattern no block of a blank disk or of `ferrite init`'s holds: every
/// byte non-zero, and the block number in it.
fn pattern_block(lba: u64) -> [u8; 512] {
    let mut b = [(lba % 251 + 1) as u8; 512];
    b[..8].copy_from_slice(&(lba | 0x8080_8080_8080_8080).to_be_bytes());
    b
}

/// The blank disk at ID 3, every block holding [`pattern_block`] (what an old format left).
fn attach_patterned(m: &mut Machine) -> Vec<u8> {
    let old: Vec<u8> = (0..BLOCKS).flat_map(pattern_block).collect();
    let mut t = DiskTarget::in_memory(BLOCKS, ibm()).unwrap();
    t.write_store(0, &old).unwrap();
    scsi_manager::bus(m).attach(ID, Box::new(t));
    old
}

/// The commands ID 3 received, in order.
fn commands_to_disk(m: &mut Machine) -> Vec<LogEntry> {
    scsi_manager::bus(m)
        .log()
        .iter()
        .filter(|e| e.id == ID)
        .cloned()
        .collect()
}

fn low_level_script() -> Vec<Input> {
    vec![
        click_line(ID3_LINE),
        menu("Drive", "Initialize…"),
        typing(NAME1, "System"),
        typing(SIZE1, "10"),
        typing(NAME2, "Data"),
        Input::DialogItem(LOW_LEVEL),
        Input::DialogItem(OK),
        Input::DialogItem(CONFIRM),
        Input::DialogItem(1),
        Input::CommandKey('q'),
    ]
}

/// The warning the dialog's check box and the confirmation give.
const BOX_TITLE: &str = "Low-level format first (FORMAT UNIT: can take an hour or more)";
const CONFIRMATION: &str = "Initialize ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks)? All data on it will be lost. It will hold “System” (10.0 MB) and “Data” (the rest), with the Ferrite driver. It is low-level formatted first (FORMAT UNIT): that can take an hour or more and cannot be stopped.";

/// "Low-level format first" checked: the drive gets exactly one FORMAT UNIT (FmtData = 0),
/// before any write; the blocks the old format left and Initialize does not write read zero
/// afterwards (the drive's FORMAT UNIT erased them), so the disk equals `ferrite init`'s on a
/// blank disk with the same choices and date, byte for byte. The user was warned of the time
/// in the dialog and the confirmation, and the progress window named the format stage.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn low_level_format_first_sends_one_format_unit_before_any_write() {
    let tmp = std::env::temp_dir().join(format!("ferrite-setup-llf-{}.img", std::process::id()));
    let expected = ferrite_init(
        &tmp,
        BLOCKS,
        &[
            "--volume",
            "System:10M",
            "--volume",
            "Data",
            "--write-cache",
            "on",
            "--date",
            "2026-12-04T03:30:00",
        ],
    );
    // The blocks ferrite init leaves zero: Initialize does not write them.
    let untouched: Vec<usize> = (0..BLOCKS as usize)
        .filter(|&b| expected[b * 512..(b + 1) * 512].iter().all(|&x| x == 0))
        .collect();
    assert!(untouched.len() > BLOCKS as usize / 2);
    for (cpu, v43) in both() {
        let ctx0 = format!("{cpu} v43={v43}");
        let mut m = machine(cpu, v43, date());
        attach_patterned(&mut m);
        let run = launch(&mut m, low_level_script());
        let s = &run.screen;
        let ctx = format!("{ctx0}:\n{}", s.transcript());
        assert_fits_small_screen(&s.seen);
        assert!(run.unused_input.is_empty(), "{ctx}");
        // The check box says what it costs, and the app checked it.
        let dialog = s
            .seen
            .iter()
            .find_map(|x| match x {
                Seen::Dialog { items, .. } => Some(items.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no dialog\n{ctx}"));
        assert_eq!(dialog[LOW_LEVEL as usize - 1], BOX_TITLE, "{ctx}");
        assert!(
            s.seen.iter().any(|x| matches!(
                x,
                Seen::ControlValue {
                    item: LOW_LEVEL,
                    value: 1,
                    ..
                }
            )),
            "{ctx}"
        );
        // The confirmation repeats the warning.
        let alerts = s.alerts();
        let Seen::Alert {
            kind: AlertKind::Caution,
            texts,
            hit: CONFIRM,
            ..
        } = alerts[0]
        else {
            panic!("{ctx}")
        };
        assert_eq!(texts[0], CONFIRMATION, "{ctx}");
        // The progress window named the format stage, at 0% and then done, before the
        // volumes.
        let progress: Vec<&str> = s
            .seen
            .iter()
            .filter_map(|x| match x {
                Seen::Text { window, text, .. } if window == "Progress" => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let at = |t: &str| progress.iter().position(|p| *p == t);
        let (Some(f0), Some(f100), Some(v)) = (
            at("Formatting the disk (FORMAT UNIT)… 0%"),
            at("Formatting the disk (FORMAT UNIT)… 100%"),
            progress
                .iter()
                .position(|p| p.starts_with("Writing the volumes")),
        ) else {
            panic!("{ctx}\n{progress:?}")
        };
        assert!(f0 < f100 && f100 < v, "{ctx}\n{progress:?}");
        // The result is a note; both volumes are mounted.
        let Seen::Alert {
            kind: AlertKind::Note,
            texts,
            ..
        } = alerts[1]
        else {
            panic!("{ctx}")
        };
        assert!(
            texts[0].starts_with("ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks) is initialized: “System” (10.0 MB) and “Data” (the rest)")
                && texts[0].ends_with("“System” and “Data” are mounted (Ferrite's driver loaded from the disk)."),
            "{ctx}"
        );
        // One FORMAT UNIT, FmtData = 0, GOOD, before the first write.
        let log = commands_to_disk(&mut m);
        let formats: Vec<usize> = (0..log.len())
            .filter(|&i| log[i].cdb[0] == FORMAT_UNIT)
            .collect();
        assert_eq!(formats.len(), 1, "{ctx0}: {} FORMAT UNITs", formats.len());
        let fu = &log[formats[0]];
        assert_eq!(fu.cdb, [FORMAT_UNIT, 0, 0, 0, 0, 0], "{ctx0}");
        assert_eq!(fu.status, Some(0), "{ctx0}");
        let first_write = log
            .iter()
            .position(|e| WRITES.contains(&e.cdb[0]))
            .unwrap_or_else(|| panic!("{ctx0}: nothing written"));
        assert!(
            formats[0] < first_write,
            "{ctx0}: a write before FORMAT UNIT"
        );
        // What the old format left is gone where Initialize wrote nothing.
        let got = image(&mut m, ID);
        let left: Vec<usize> = untouched
            .iter()
            .copied()
            .filter(|&b| got[b * 512..(b + 1) * 512].iter().any(|&x| x != 0))
            .collect();
        assert!(
            left.is_empty(),
            "{ctx0}: {} blocks Initialize does not write still hold data, e.g. block {}",
            left.len(),
            left[0]
        );
        // And the rest equals ferrite init's.
        assert_eq!(got.len(), expected.len());
        if let Some(at) = got.iter().zip(&expected).position(|(a, b)| a != b) {
            panic!(
                "{ctx0}: the disk differs from `ferrite init`'s at byte {at} (block {})",
                at / 512
            );
        }
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}

/// A FORMAT UNIT the drive refuses (CHECK CONDITION, HARDWARE ERROR, internal target failure)
/// stops Initialize with a stop alert saying so in words; nothing is written, and the disk
/// keeps what it held.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn a_refused_format_unit_stops_initialize_in_words() {
    for (cpu, v43) in both() {
        let ctx0 = format!("{cpu} v43={v43}");
        let mut m = machine(cpu, v43, date());
        let old = attach_patterned(&mut m);
        scsi_manager::bus(&mut m)
            .target_as_mut::<DiskTarget>(ID)
            .unwrap()
            .inject_opcode_failure(FORMAT_UNIT, 0);
        let run = launch(&mut m, low_level_script());
        let s = &run.screen;
        let ctx = format!("{ctx0}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        assert_eq!(
            alert_texts(&s.seen),
            [
                CONFIRMATION,
                "Initializing ID 3, IBM DORS-31080 (24.0 MB, 49152 blocks) failed: FORMAT UNIT failed: hardware error, internal target failure. The drive reports a fault: check it before trusting data to it.",
            ],
            "{ctx}"
        );
        assert!(
            stop_alert_text(&s.seen).starts_with("Initializing ID 3"),
            "{ctx}"
        );
        let log = commands_to_disk(&mut m);
        let formats = log.iter().filter(|e| e.cdb[0] == FORMAT_UNIT).count();
        assert_eq!(formats, 1, "{ctx0}");
        assert!(
            !log.iter().any(|e| WRITES.contains(&e.cdb[0])),
            "{ctx0}: written after the refused FORMAT UNIT"
        );
        assert!(image(&mut m, ID) == old, "{ctx0}: the disk changed");
        assert_eq!(s.seen.last(), Some(&Seen::Exit), "{ctx}");
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}
