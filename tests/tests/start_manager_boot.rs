//! The Start Manager boot model end to end: a test disk with the hand-written test driver
//! (`tests/asm/boot_test_driver.S`) on the virtual SCSI bus, booted under both ROM models.

use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::scsi_manager::{self, ScsiManagerConfig};
use ferrite_emu::start_manager::{BootConfig, RomGeneration, ScanOutcome, boot};
use ferrite_emu::test_disk::{TestDisk, TestVolume};
use ferrite_emu::{CpuModel, Machine};

fn driver() -> Vec<u8> {
    let src = include_str!("../asm/boot_test_driver.S");
    let img = retro68_build::asm::assemble_flat("boot_test_driver", src).expect("assembles");
    assert!(
        img.reloc_offsets().unwrap().is_empty(),
        "the test driver is position-independent"
    );
    img.image
}

fn machine(cpu: CpuModel, rom: RomGeneration) -> Machine {
    let mut m = Machine::new(cpu);
    m.install_mac_os();
    let v43 = rom == RomGeneration::ScsiManager43;
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: v43,
            ..Default::default()
        },
    );
    m
}

fn attach(m: &mut Machine, id: u8, image: &[u8]) {
    let mut disk =
        DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
    disk.write_store(0, image).unwrap();
    scsi_manager::bus(m).attach(id, Box::new(disk));
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn the_test_disk_driver_assembles_clean() {
    let src = include_str!("../asm/boot_test_driver.S");
    let img = retro68_build::asm::assemble_flat("boot_test_driver", src).unwrap();
    assert_eq!(img.export("entry_original"), Some(0));
    assert_eq!(img.export("entry_43"), Some(8));
    assert_eq!(img.export("drvr_header"), Some(16));
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn both_rom_models_load_the_driver_add_drives_and_mount_the_volumes() {
    let mut disk = TestDisk::new(driver());
    disk.total_blocks = 20_000;
    disk.volumes.push(TestVolume {
        name: "Second".into(),
        blocks: 6000,
        alloc_block_size: 1024,
        free_alloc_blocks: 100,
    });
    let (image, layout) = disk.build();
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        for rom in [
            RomGeneration::OriginalScsiManager,
            RomGeneration::ScsiManager43,
        ] {
            let mut m = machine(cpu, rom);
            attach(&mut m, 3, &image);
            let report = boot(&mut m, &BootConfig::new(rom))
                .unwrap_or_else(|e| panic!("{cpu} {rom:?}: {e}"));
            println!("{report}");
            let drivers: Vec<_> = report.drivers().collect();
            assert_eq!(drivers.len(), 1, "{cpu} {rom:?}:\n{report}");
            let d = drivers[0];
            assert_eq!(d.id, 3);
            assert_eq!(d.ref_num, Some(!(32 + 3)), "unit 32 + ID");
            match rom {
                RomGeneration::OriginalScsiManager | RomGeneration::Quadra => {
                    assert_eq!((d.entry_address - d.address, d.d5), (0, 3))
                }
                RomGeneration::ScsiManager43 => {
                    assert_eq!((d.entry_address - d.address, d.d5), (8, 0x0300))
                }
            }
            assert_eq!(report.drives.len(), 2, "{report}");
            assert_eq!(report.drives[0].blocks, layout.volumes[0].1);
            assert_eq!(report.drives[1].blocks, layout.volumes[1].1);
            assert_eq!(report.drives[0].disk_in_place, 8);
            assert_eq!(report.boot_drive, Some(report.drives[0].number as u16));
            // Events were off while the driver installed: its posts were refused, so the
            // system mounts only the boot drive plus what later events name.
            let names: Vec<&str> = report.volumes.iter().map(|v| v.name.as_str()).collect();
            assert_eq!(names, ["Test HD"], "{report}");
            let v = &report.volumes[0];
            assert_eq!(v.alloc_block_size, 512);
            assert_eq!(v.free_bytes(), 3000 * 512);
            assert!(
                report.traps.iter().any(|(n, _)| *n == "DrvrInstall"),
                "{report}"
            );
            let scsi_trap = if rom == RomGeneration::ScsiManager43 {
                "SCSIAtomic"
            } else {
                "SCSIDispatch"
            };
            assert!(
                report.traps.iter().any(|(n, _)| *n == scsi_trap),
                "{scsi_trap} used: {report}"
            );
            // The second volume mounts through the driver on demand (as `_MountVol` would).
            let second = report.drives[1].number as u16;
            assert_eq!(
                ferrite_emu::file_manager::mount(&mut m, second).unwrap(),
                Ok(-2)
            );
            let fm = m.state::<ferrite_emu::file_manager::FileManager>();
            assert_eq!(fm.volumes[1].name, "Second");
            assert_eq!(fm.volumes[1].size_bytes(), ((6000 - 6) / 2) as u64 * 1024);
        }
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_disk_the_rom_refuses_is_skipped_and_the_scan_goes_on() {
    let good = TestDisk::new(driver()).build().0;
    let mut bad = TestDisk::new(driver());
    bad.corrupt_checksum = true;
    let bad = bad.build().0;
    let mut m = machine(CpuModel::M68040, RomGeneration::ScsiManager43);
    attach(&mut m, 5, &bad);
    attach(&mut m, 1, &good);
    let report = boot(&mut m, &BootConfig::new(RomGeneration::ScsiManager43)).unwrap();
    let by_id = |id: u8| {
        report
            .scan
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, o)| o.clone())
            .unwrap()
    };
    assert!(matches!(by_id(5), ScanOutcome::Skipped(_)), "{report}");
    assert!(matches!(by_id(1), ScanOutcome::Loaded(_)), "{report}");
    assert!(matches!(by_id(0), ScanOutcome::NoDevice));
    assert_eq!(report.volumes.len(), 1, "{report}");
}

/// A driver entered at +8 that registers no cross-reference: what a real 4.3 ROM does is not
/// documented, so the model keeps it and warns in the boot report (or, with `require_xref`,
/// treats it as no driver).
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn a_43_driver_without_a_cross_reference_boots_with_a_warning() {
    let src = format!(
        "        .set    NO_XREF, 1\n{}",
        include_str!("../asm/boot_test_driver.S")
    );
    let img = retro68_build::asm::assemble_flat("boot_test_driver", &src).expect("assembles");
    let disk = TestDisk::new(img.image);
    let (image, _) = disk.build();
    for require in [false, true] {
        let mut m = machine(CpuModel::M68040, RomGeneration::ScsiManager43);
        attach(&mut m, 3, &image);
        let mut cfg = BootConfig::new(RomGeneration::ScsiManager43);
        cfg.require_xref = require;
        let report = boot(&mut m, &cfg).unwrap();
        if require {
            assert!(
                matches!(&report.scan.iter().find(|(id, _)| *id == 3).unwrap().1,
                    ScanOutcome::Failed(w) if w.contains("cross-reference")),
                "{report}"
            );
        } else {
            let d: Vec<_> = report.drivers().collect();
            assert_eq!(d.len(), 1, "{report}");
            assert_eq!(d[0].ref_num, None);
            assert_eq!(report.warnings.len(), 1, "{report}");
            assert!(report.warnings[0].contains("registered no refNum cross-reference"));
            assert!(format!("{report}").contains("Warning: the driver for ID 3"));
            assert_eq!(report.drives.len(), 1, "the drive is there: {report}");
        }
    }
}

/// `_UnmountVol` run as guest code (`docs/emulated-mac.md` §8): `fBsyErr` for a volume with
/// a file open and for the startup volume (by vRefNum or as the default volume), `nsvErr`
/// for no such volume; by drive number or vRefNum it takes the VCB out of the VCB queue and
/// leaves the drive in the drive queue, so `_MountVol` mounts it again, with a new vRefNum.
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn unmount_vol_refuses_busy_volumes_and_keeps_the_drive() {
    use ferrite_emu::file_manager::{
        F_BSY_ERR, FileManager, NSV_ERR, call_unmount_vol, mount, unmount,
    };
    let mut disk = TestDisk::new(driver());
    disk.total_blocks = 20_000;
    disk.volumes.push(TestVolume {
        name: "Second".into(),
        blocks: 6000,
        alloc_block_size: 1024,
        free_alloc_blocks: 100,
    });
    let (image, _) = disk.build();
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        for rom in [
            RomGeneration::OriginalScsiManager,
            RomGeneration::ScsiManager43,
        ] {
            let w = format!("{cpu} {rom:?}");
            let mut m = machine(cpu, rom);
            attach(&mut m, 3, &image);
            let report = boot(&mut m, &BootConfig::new(rom)).unwrap();
            let second = report.drives[1].number;
            assert_eq!(mount(&mut m, second as u16).unwrap(), Ok(-2), "{w}");
            let vcbs = |m: &Machine| {
                ferrite_emu::os_utils::queue_elements(m, 0x356)
                    .unwrap()
                    .iter()
                    .map(|&v| String::from_utf8_lossy(&m.read_pstring(v + 44)).into_owned())
                    .collect::<Vec<_>>()
            };
            assert_eq!(vcbs(&m), ["Test HD", "Second"], "{w}");
            let drives = m.drives();

            m.state::<FileManager>().open_file(-2);
            assert_eq!(call_unmount_vol(&mut m, -2).unwrap(), F_BSY_ERR, "{w}");
            m.state::<FileManager>().close_file(-2);
            assert_eq!(
                call_unmount_vol(&mut m, -1).unwrap(),
                F_BSY_ERR,
                "{w}: startup"
            );
            assert_eq!(
                call_unmount_vol(&mut m, 0).unwrap(),
                F_BSY_ERR,
                "{w}: default"
            );
            assert_eq!(call_unmount_vol(&mut m, -9).unwrap(), NSV_ERR, "{w}");
            assert_eq!(vcbs(&m), ["Test HD", "Second"], "{w}");

            // By drive number.
            assert_eq!(call_unmount_vol(&mut m, second).unwrap(), 0, "{w}");
            assert_eq!(vcbs(&m), ["Test HD"], "{w}");
            assert_eq!(m.drives(), drives, "{w}: the drive stays");
            assert_eq!(m.state::<FileManager>().volumes.len(), 1, "{w}");
            assert_eq!(call_unmount_vol(&mut m, second).unwrap(), NSV_ERR, "{w}");
            m.check_heaps().unwrap();

            // Mounted again: a new vRefNum; then by name (host side, colon stripped).
            assert_eq!(mount(&mut m, second as u16).unwrap(), Ok(-3), "{w}");
            assert_eq!(vcbs(&m), ["Test HD", "Second"], "{w}");
            assert_eq!(unmount(&mut m, Some(b"second"), 0).unwrap(), Ok(()), "{w}");
            assert_eq!(vcbs(&m), ["Test HD"], "{w}");
            m.check_heaps().unwrap();
        }
    }
}
