//! Install: a failure after `_DrvrInstall` leaves nothing behind (unit table, heap, drive
//! queue, VBL tasks, the SCSI Manager 4.3 cross-reference); disks of 2³² blocks and more are
//! sized with READ CAPACITY(16) and served up to what 32-bit block numbers reach.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::Machine;
use ferrite_emu::lowmem;
use ferrite_emu::memory_manager::{BlockKind, ZoneId};
use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::scsi_manager;
use ferrite_emu::start_manager::{BootConfig, BootReport, RomGeneration, ScanOutcome, boot};

const READ_CAPACITY_10: u8 = 0x25;
const READ_10: u8 = 0x28;
const READ_CAPACITY_16: u8 = 0x9E;

/// What a failed install must leave as it found it.
#[derive(Debug, PartialEq, Eq)]
struct Traces {
    units: Vec<u32>,
    system_blocks: Vec<u32>,
    drives: usize,
    vbl_tasks: Vec<u32>,
}

fn traces(m: &mut Machine) -> Traces {
    let count = m.read_u16(lowmem::UNIT_NTRY_CNT);
    let table = m.read_u32(lowmem::UTABLE_BASE);
    let units = (0..count as u32)
        .map(|u| m.read_u32(table + 4 * u))
        .collect();
    let mut system_blocks: Vec<u32> = m
        .memory_manager()
        .blocks()
        // Master-pointer blocks the heap grows stay (a real heap never shrinks them).
        .filter(|b| b.zone == ZoneId::System && b.kind != BlockKind::MasterPointers)
        .map(|b| b.data())
        .collect();
    system_blocks.sort();
    Traces {
        units,
        system_blocks,
        drives: m.try_drives().unwrap().len(),
        vbl_tasks: m.vbl_tasks(),
    }
}

fn trap_count(report: &BootReport, name: &str) -> u64 {
    report
        .traps
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, c)| *c)
}

/// Boot a 2-volume disk whose target `prepare` has set up to fail; check that the driver's
/// install failed and left nothing but its own image (which the ROM loaded) behind. Returns
/// the report.
fn failed_install(
    cpu: ferrite_emu::CpuModel,
    rom: RomGeneration,
    prepare: impl FnOnce(&mut Machine, &mut DiskTarget),
) -> BootReport {
    let disk = disk_with_volumes(driver_blob(), 2, 3000);
    let (image, _) = disk.build();
    let mut target =
        DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
    target.write_store(0, &image).unwrap();
    let mut m = new_machine(cpu, rom);
    prepare(&mut m, &mut target);
    scsi_manager::bus(&mut m).attach(ID, Box::new(target));
    let before = traces(&mut m);
    let report = boot(&mut m, &BootConfig::new(rom)).unwrap_or_else(|e| {
        panic!("{cpu} {rom:?}: {e}");
    });
    let w = format!("{cpu} {rom:?}");
    match report.scan.iter().find(|(id, _)| *id == ID).map(|(_, o)| o) {
        Some(ScanOutcome::Loaded(d)) => {
            assert_ne!(
                d.install_result as i16, 0,
                "{w}: install reports the failure"
            );
            assert_eq!(d.ref_num.filter(|&r| r != STAND_IN_REF), None, "{w}");
        }
        Some(ScanOutcome::Failed(_)) => {}
        other => panic!("{w}: the driver was not called: {other:?}\n{report}"),
    }
    let mut after = traces(&mut m);
    // The one new block is the image the ROM loaded (it is the ROM's to keep or free).
    let new: Vec<u32> = after
        .system_blocks
        .iter()
        .copied()
        .filter(|b| !before.system_blocks.contains(b))
        .collect();
    let described: Vec<String> = new
        .iter()
        .map(|&b| format!("{b:08X}: {:?}", m.memory_manager().block(b)))
        .collect();
    assert_eq!(
        new.len(),
        1,
        "{w}: globals and DCE disposed: {described:#?}"
    );
    assert_eq!(
        m.read_bytes(new[0] + 4, 4),
        b"FRRT",
        "{w}: the new block is the driver"
    );
    after.system_blocks.retain(|b| *b != new[0]);
    assert_eq!(
        after, before,
        "{w}: unit table, heap, drive queue, VBL tasks as before"
    );
    assert!(report.drives.is_empty(), "{w}: {:?}", report.drives);
    report
}

/// The refNum a stand-in "other driver" registered for our device (the xref test).
const STAND_IN_REF: i16 = -60;

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_disk_without_read_capacity_leaves_nothing_installed() {
    for cpu in CPUS {
        for rom in ROMS {
            let report = failed_install(cpu, rom, |_, t| {
                t.inject_opcode_failure(READ_CAPACITY_10, 0)
            });
            assert_eq!(trap_count(&report, "AddDrive"), 0, "{cpu} {rom:?}");
            assert_eq!(trap_count(&report, "DrvrRemove"), 1, "{cpu} {rom:?}");
            assert_eq!(trap_count(&report, "DisposePtr"), 1, "{cpu} {rom:?}");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn an_unreadable_map_entry_takes_back_the_drives_already_added() {
    for cpu in CPUS {
        for rom in ROMS {
            // The driver's READ(10)s of map blocks 1–3 work (block 3 is the first HFS
            // volume: one drive added), block 4 fails. The ROM reads with READ(6).
            let report = failed_install(cpu, rom, |_, t| t.inject_opcode_failure(READ_10, 3));
            assert_eq!(trap_count(&report, "AddDrive"), 1, "{cpu} {rom:?}");
            assert_eq!(trap_count(&report, "Dequeue"), 1, "{cpu} {rom:?}");
            assert_eq!(trap_count(&report, "DrvrRemove"), 1, "{cpu} {rom:?}");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_refused_cross_reference_takes_back_both_drives() {
    for cpu in CPUS {
        let rom = RomGeneration::ScsiManager43;
        let device = (ID as u32) << 8;
        let report = failed_install(cpu, rom, |m, _| {
            scsi_manager::register_xref(m, device, STAND_IN_REF)
        });
        assert_eq!(trap_count(&report, "AddDrive"), 2, "{cpu}");
        assert_eq!(trap_count(&report, "Dequeue"), 2, "{cpu}");
        assert_eq!(trap_count(&report, "DrvrRemove"), 1, "{cpu}");
    }
}

/// A file-backed sparse disk of `blocks` blocks holding the 2-volume test disk at its start.
fn big_disk(
    blocks: u64,
    name: &str,
) -> (
    DiskTarget,
    ferrite_emu::test_disk::TestDiskLayout,
    std::path::PathBuf,
) {
    let disk = disk_with_volumes(driver_blob(), 2, 3000);
    let (image, layout) = disk.build();
    let path = std::env::temp_dir().join(format!("ferrite-{name}-{}.img", std::process::id()));
    let mut t = DiskTarget::create(&path, blocks, DiskConfig::default()).unwrap();
    t.write_store(0, &image).unwrap();
    (t, layout, path)
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_disk_past_2_tb_is_sized_by_read_capacity_16_and_served() {
    // 2^32 + 2048 blocks: READ CAPACITY(10) saturates at $FFFFFFFF.
    for rom in ROMS {
        for refuse_rc16 in [false, true] {
            let (mut t, layout, path) = big_disk((1u64 << 32) + 2048, "rc16");
            if refuse_rc16 {
                t.inject_opcode_failure(READ_CAPACITY_16, 0);
            }
            let mut r = boot_target(ferrite_emu::CpuModel::M68040, rom, t, layout);
            let w = format!("{rom:?}, READ CAPACITY(16) refused: {refuse_rc16}");
            assert_eq!(r.drives.len(), 2, "{w}: both volumes served");
            assert_eq!(r.report.volumes.len(), 2, "{w}: {}", r.report);
            for d in &r.drives {
                assert_eq!(d.blocks, 3000, "{w}");
            }
            let asked = r.disk().stats().by_opcode.get(&READ_CAPACITY_16).copied();
            assert!(asked.unwrap_or(0) >= 1, "{w}: READ CAPACITY(16) sent");
            // I/O works at the far volume.
            let buf = r.alloc(4 * 512);
            assert_eq!(
                r.prime(WRITE, 1, FS_FROM_START, 2990 * 512, buf, 4 * 512),
                (0, 2048),
                "{w}"
            );
            drop(r);
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_disk_below_2_tb_never_sees_read_capacity_16() {
    for rom in ROMS {
        let disk = disk_with_volumes(driver_blob(), 1, 3000);
        let mut r = boot_disk(
            ferrite_emu::CpuModel::M68040,
            rom,
            &disk,
            DiskConfig::default(),
        );
        assert_eq!(
            r.disk().stats().by_opcode.get(&READ_CAPACITY_16),
            None,
            "{rom:?}"
        );
    }
}

/// `_NewPtr` calls in any form (`Sys`, `Clear`) during the boot.
fn new_ptr_calls(report: &BootReport) -> u64 {
    report
        .traps
        .iter()
        .filter(|(n, _)| n.starts_with("NewPtr"))
        .map(|(_, c)| *c)
        .sum()
}

/// Put a closed stand-in driver (a handle to a zeroed DCE) in unit-table entry `unit`.
fn occupy_unit(m: &mut Machine, unit: u16) {
    let dce = m
        .new_ptr(ZoneId::System, ferrite_emu::device_manager::DCE_SIZE, true)
        .unwrap();
    let handle = m.new_ptr(ZoneId::System, 4, true).unwrap();
    m.write_u32(handle, dce);
    let table = m.read_u32(lowmem::UTABLE_BASE);
    m.write_u32(table + 4 * unit as u32, handle);
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_taken_unit_32_plus_id_sends_the_driver_to_the_first_free_unit_from_48() {
    // Another driver sits in unit 32 + ID (a SCSI Manager 4.3 Mac, where the ROM finds the
    // driver through its cross-reference): Ferrite takes the first free unit from 48, and
    // serves its disk from there.
    let rom = RomGeneration::ScsiManager43;
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        let mut m = new_machine(cpu, rom);
        occupy_unit(&mut m, 32 + ID as u16);
        occupy_unit(&mut m, 48);
        let (image, layout) = disk.build();
        let mut target =
            DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
        target.write_store(0, &image).unwrap();
        let mut r = boot_target_on(m, rom, target, layout);
        assert!(
            new_ptr_calls(&r.report) > 0,
            "{cpu}: the globals are allocated"
        );
        assert_eq!(
            r.ref_num, !49i16,
            "{cpu}: unit 49, the first free one from 48"
        );
        let buf = r.alloc(512);
        let (e, _) = r.prime(READ, 0, FS_FROM_START, 0, buf, 512);
        assert_eq!(e, 0, "{cpu}: the volume reads through unit 49");
        assert_eq!(
            r.m.read_bytes(buf, 2),
            vec![0, 0],
            "{cpu}: block 0 of an HFS volume is its (empty) boot block"
        );
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_full_unit_table_is_refused_before_anything_is_allocated() {
    let rom = RomGeneration::ScsiManager43;
    for cpu in CPUS {
        let report = failed_install(cpu, rom, |m, _| {
            occupy_unit(m, 32 + ID as u16);
            for unit in 48..m.read_u16(lowmem::UNIT_NTRY_CNT) {
                occupy_unit(m, unit);
            }
        });
        assert_eq!(trap_count(&report, "DrvrInstall"), 0, "{cpu}");
        assert_eq!(new_ptr_calls(&report), 0, "{cpu}: no globals");
        let d = report.drivers().next().expect("the driver ran");
        assert_eq!(d.install_result as i16, -29, "{cpu}: unitTblFullErr");
    }
}

/// How many commands the ROM sends before the driver's (its READ(6)s of the map and driver).
fn rom_commands(cpu: ferrite_emu::CpuModel, rom: RomGeneration) -> u32 {
    let disk = disk_with_volumes(driver_blob(), 2, 3000);
    let (image, _) = disk.build();
    let mut target =
        DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
    target.write_store(0, &image).unwrap();
    let mut m = new_machine(cpu, rom);
    scsi_manager::bus(&mut m).attach(ID, Box::new(target));
    boot(&mut m, &BootConfig::new(rom)).unwrap();
    scsi_manager::bus(&mut m)
        .log()
        .iter()
        .take_while(|e| e.cdb[0] == 0x08)
        .count() as u32
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_drive_that_never_becomes_ready_is_given_up_after_a_bound() {
    // Past the ROM's reads, the drive answers NOT READY 04/01 ("becoming ready") for ever:
    // the install waits with `_Delay` (interrupts are on at install), gives up after its
    // bound, and leaves nothing behind.
    for cpu in CPUS {
        for rom in ROMS {
            let n = rom_commands(cpu, rom);
            assert!(n >= 2, "{cpu} {rom:?}: the ROM read the map and the driver");
            let report = failed_install(cpu, rom, |_, t| {
                t.delay_faults(n);
                t.inject_not_ready(u32::MAX, ferrite_emu::scsi::NotReadyCause::BecomingReady);
            });
            let delays = trap_count(&report, "Delay");
            assert!(
                (10..=100).contains(&delays),
                "{cpu} {rom:?}: waited with _Delay a bounded number of times ({delays})"
            );
            assert_eq!(trap_count(&report, "AddDrive"), 0, "{cpu} {rom:?}");
        }
    }
}
