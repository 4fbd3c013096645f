//! Ferrite Setup's Update Driver over the drivers users have (an older Ferrite, Apple's
//! driver as Apple's formatters install it), its refusal when the driver partition is too
//! small and nothing is free beside it, and Initialize on a drive that vanishes half-way, in
//! the emulated Mac (68000 and 68040, both SCSI Managers). Every volume stays byte for byte;
//! a refusal leaves the disk as it was; the vanished drive's disk is left visibly
//! unformatted, never with a map pointing at half-written volumes.

#[path = "support/setup.rs"]
mod support;

use ferrite_emu::scsi::DiskTarget;
use ferrite_emu::scsi_manager;
use ferrite_emu::test_disk::{TestDisk, TestVolume};
use ferrite_emu::toolbox::{AlertKind, Input, Seen};
use ferrite_formatter::apm::read_map;
use ferrite_formatter::device::MemDisk;
use ferrite_shared::driver_blob::{DRIVER_VERSION_OFFSET, driver_version};
use support::*;

const ID: u8 = 3;
/// Line of ID 3's first row (IDs 0–2 have one line each).
const ID3_LINE: i16 = 3;

/// Bytes from a fixed generator: a driver that is not Ferrite's.
fn foreign_driver(len: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9u32;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

fn update_script() -> Vec<Input> {
    vec![
        click_line(ID3_LINE),
        menu("Drive", "Update Driver…"),
        Input::DialogItem(2),
        Input::DialogItem(1),
        Input::CommandKey('q'),
    ]
}

/// Update Driver over `disk` on every machine: the confirmation names what the disk carries
/// (`now`), the note says what it became, every volume is intact and the driver partition
/// now holds this build's driver.
fn updates(disk: &[u8], volumes: &[(u32, u32)], now: &str) {
    let version = env!("CARGO_PKG_VERSION");
    let new_blob = m68k_file("ferrite-driver.bin");
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, ID, disk, ibm());
        let run = launch(&mut m, update_script());
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        let texts = alert_texts(&s.seen);
        assert_eq!(texts.len(), 2, "{ctx}");
        assert!(
            texts[0].starts_with("Update the driver of ID 3, IBM DORS-31080")
                && texts[0].contains(now),
            "{ctx}"
        );
        assert!(
            texts[1].contains(&format!("driver updated from {now}"))
                && texts[1].contains(&format!("to Ferrite {version}; every volume kept")),
            "{ctx}"
        );
        let after = image(&mut m, ID);
        for &(start, blocks) in volumes {
            let r = start as usize * 512..(start + blocks) as usize * 512;
            assert!(
                after[r.clone()] == disk[r],
                "{ctx}: the volume at block {start} changed"
            );
        }
        let mut dev = MemDisk::from_bytes(after.clone());
        let map = read_map(&mut dev).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        let at = map.ddm.drivers[0].block.get() as usize * 512;
        assert_eq!(
            &after[at..at + new_blob.len()][..DRIVER_VERSION_OFFSET],
            &new_blob[..DRIVER_VERSION_OFFSET],
            "{ctx}: the driver partition does not hold this build's driver"
        );
        m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
    }
}

/// An older Ferrite (this blob with version 0.0.1): updated, volume kept.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn update_driver_over_an_older_ferrite() {
    let mut old = m68k_file("ferrite-driver.bin");
    old[DRIVER_VERSION_OFFSET..DRIVER_VERSION_OFFSET + 3].copy_from_slice(&[0, 0, 1]);
    assert_eq!(driver_version(&old), Some([0, 0, 1]));
    let mut d = TestDisk::new(old);
    d.total_blocks = 20_480;
    let (disk, layout) = d.build();
    updates(&disk, &layout.volumes, "Ferrite 0.0.1");
}

/// Apple's driver as Apple's formatters lay it out (partition "Macintosh", the pmPad
/// signature), 24 KB: Ferrite's 16 KB driver goes into its partition, volume kept.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn update_driver_over_an_apple_driver() {
    let mut d = TestDisk::new(foreign_driver(24 * 1024));
    d.total_blocks = 20_480;
    let (disk, layout) = d.build();
    updates(&disk, &layout.volumes, "Apple");
}

/// A 4 KB driver partition, a map partition holding just its entries and volumes filling
/// the rest of the disk: no room for Ferrite's driver. The app finds out before asking: the
/// refusal, in words, is the only alert (no confirmation first); the disk is byte for byte
/// as it was.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn update_driver_refuses_a_too_small_driver_partition_with_no_free_space() {
    let mut d = TestDisk::new(foreign_driver(4 * 1024));
    d.driver_name = "Tiny Driver".into();
    d.volumes = vec![TestVolume {
        name: "Full".into(),
        blocks: 8192,
        alloc_block_size: 512,
        free_alloc_blocks: 100,
    }];
    d.total_blocks = 64 + 8 + 8192;
    let (mut disk, _) = d.build();
    // The map partition sized to its three entries, as some formatters leave it: no room to
    // carve a driver out of its end either.
    for (at, v) in [(512 + 12, 3u32), (512 + 84, 3u32)] {
        disk[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, ID, &disk, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(ID3_LINE),
                menu("Drive", "Update Driver…"),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        // One alert, a stop alert: no caution alert asked to confirm before it.
        let alerts = s.alerts();
        assert_eq!(alerts.len(), 1, "{ctx}");
        assert!(
            matches!(
                alerts[0],
                Seen::Alert {
                    kind: AlertKind::Stop,
                    ..
                }
            ),
            "{ctx}"
        );
        let texts = alert_texts(&s.seen);
        let refusal = texts
            .iter()
            .find(|t| t.contains("driver partition is too small"))
            .unwrap_or_else(|| panic!("no refusal\n{ctx}"));
        assert!(
            refusal.starts_with("Update Driver refused for ID 3, IBM DORS-31080"),
            "{ctx}"
        );
        assert!(
            refusal.contains("ID 3")
                && refusal.contains("too small")
                && refusal.contains("no free space"),
            "{ctx}"
        );
        assert!(!texts.iter().any(|t| t.contains("driver updated")), "{ctx}");
        assert!(image(&mut m, ID) == disk, "{ctx}: the disk changed");
        assert_eq!(s.seen.last(), Some(&Seen::Exit), "{ctx}");
    }
}

/// The drive stops answering selection after `n` commands of an Initialize of a blank disk,
/// at several points: the app says so in words, naming the drive; and the disk is either
/// complete (the drive went away after the last write, during the read-back) or block 0 is
/// not a driver descriptor map — written last, it is what makes the map visible to a Mac —
/// so no Mac mounts a half-written volume from it.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn a_drive_vanishing_mid_initialize_leaves_no_visible_map() {
    const BLOCKS: u64 = 24 * 2048;
    let script = || {
        vec![
            click_line(ID3_LINE),
            menu("Drive", "Initialize…"),
            Input::DialogItem(1),
            Input::DialogItem(2),
            Input::DialogItem(1),
            Input::CommandKey('q'),
        ]
    };
    for (cpu, v43) in both() {
        // A clean run first: the number of commands the initialize takes, and its disk.
        let mut m = machine(cpu, v43, 0);
        attach_blank(&mut m, ID, BLOCKS, ibm());
        let clean = launch(&mut m, script());
        let ctx = format!("{cpu} v43={v43} (clean):\n{}", clean.screen.transcript());
        assert!(
            alert_texts(&clean.screen.seen)
                .iter()
                .any(|t| t.contains("is initialized")),
            "{ctx}"
        );
        let total = scsi_manager::bus(&mut m)
            .target_as_mut::<DiskTarget>(ID)
            .unwrap()
            .stats()
            .commands;
        let complete = image(&mut m, ID);
        let mut unformatted = 0;
        for n in [8, total / 4, total / 2, total * 3 / 4] {
            let mut m = machine(cpu, v43, 0);
            let mut t = DiskTarget::in_memory(BLOCKS, ibm()).unwrap();
            t.delay_faults(n as u32);
            t.inject_selection_timeouts(u32::MAX);
            scsi_manager::bus(&mut m).attach(ID, Box::new(t));
            let run = launch(&mut m, script());
            let s = &run.screen;
            let ctx = format!(
                "{cpu} v43={v43} vanishing after {n} of {total} commands:\n{}",
                s.transcript()
            );
            let texts = alert_texts(&s.seen);
            let after = image(&mut m, ID);
            if let Some(note) = texts.iter().find(|t| t.contains("is initialized")) {
                // Gone after the last write: the disk is whole, and the note says why its
                // volumes are not mounted.
                assert!(
                    note.contains("not mounted") && note.contains("did not answer"),
                    "{ctx}"
                );
                assert!(
                    after == complete,
                    "{ctx}: initialized, but not as a clean run"
                );
                assert_eq!(s.seen.last(), Some(&Seen::Exit), "{ctx}");
                continue;
            }
            let stop = stop_alert_text(&s.seen);
            assert!(!stop.is_empty(), "no stop alert\n{ctx}");
            assert!(
                stop.contains("ID 3") && stop.contains("did not answer") && stop.contains("Rescan"),
                "{ctx}"
            );
            // Block 0 is written last: a Mac (the ROM, any driver) looks for a disk's map
            // only through block 0's signature, so map entries without it are inert.
            let has_ddm = after[..2] == [0x45, 0x52];
            if has_ddm {
                assert!(
                    after == complete,
                    "{ctx}: a partition map on a half-written disk"
                );
            } else {
                unformatted += 1;
            }
            assert_eq!(s.seen.last(), Some(&Seen::Exit), "{ctx}");
            m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
        }
        assert!(
            unformatted >= 3,
            "{cpu} v43={v43}: only {unformatted} runs stopped before the map"
        );
    }
}
