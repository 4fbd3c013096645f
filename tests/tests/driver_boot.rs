//! The Ferrite driver (`target/m68k/ferrite-driver.bin`) in the emulated Mac: boot, mount,
//! and I/O through the Device Manager. `#[ignore]`d in a plain `cargo test`; `cargo xtask
//! test` builds the driver and runs them.

use std::path::PathBuf;

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::scsi_manager::{self, ScsiManagerConfig};
use ferrite_emu::start_manager::{BootConfig, BootReport, RomGeneration, boot};
use ferrite_emu::test_disk::{TestDisk, TestVolume};
use ferrite_emu::{CpuModel, Machine};

fn driver_blob() -> Vec<u8> {
    let dir = std::env::var_os("FERRITE_M68K_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/m68k"));
    let path = dir.join("ferrite-driver.bin");
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run `cargo xtask test`", path.display()))
}

fn boot_disk(cpu: CpuModel, rom: RomGeneration, disk: &TestDisk) -> (Machine, BootReport) {
    let (image, _) = disk.build();
    let mut m = Machine::new(cpu);
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: rom == RomGeneration::ScsiManager43,
            ..Default::default()
        },
    );
    let mut target =
        DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
    target.write_store(0, &image).unwrap();
    scsi_manager::bus(&mut m).attach(2, Box::new(target));
    let report =
        boot(&mut m, &BootConfig::new(rom)).unwrap_or_else(|e| panic!("{cpu} {rom:?}: {e}"));
    (m, report)
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn ferrite_boots_and_mounts_under_both_rom_models() {
    let mut disk = TestDisk::new(driver_blob());
    disk.total_blocks = 30_000;
    disk.volumes.push(TestVolume {
        name: "Data".into(),
        blocks: 8000,
        alloc_block_size: 1024,
        free_alloc_blocks: 7000,
    });
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        for rom in [
            RomGeneration::OriginalScsiManager,
            RomGeneration::ScsiManager43,
        ] {
            let (_m, report) = boot_disk(cpu, rom, &disk);
            println!("{report}");
            assert_eq!(report.drivers().count(), 1, "{cpu} {rom:?}\n{report}");
            assert_eq!(report.drives.len(), 2, "{cpu} {rom:?}\n{report}");
            assert!(
                report.volumes.iter().any(|v| v.name == "Test HD"),
                "{cpu} {rom:?}\n{report}"
            );
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn one_to_four_hfs_partitions_become_drives_and_volumes() {
    for n in 1..=4usize {
        let disk = ferrite::disk_with_volumes(driver_blob(), n, 3000);
        for cpu in ferrite::CPUS {
            for rom in ferrite::ROMS {
                let rig = ferrite::boot_disk(cpu, rom, &disk, DiskConfig::default());
                let what = format!("{n} volumes, {}\n{}", rig.what(), rig.report);
                assert_eq!(rig.drives.len(), n, "{what}");
                for (i, d) in rig.drives.iter().enumerate() {
                    assert_eq!(d.blocks, 3000, "{what}");
                    assert!(d.number >= 8, "{what}: drive numbers start at 8");
                    assert!(
                        rig.report
                            .volumes
                            .iter()
                            .any(|v| v.name == format!("Vol {}", i + 1)),
                        "{what}"
                    );
                }
                let mut numbers: Vec<i16> = rig.drives.iter().map(|d| d.number).collect();
                numbers.dedup();
                assert_eq!(numbers.len(), n, "{what}: distinct drive numbers");
                assert!(rig.report.errors.is_empty(), "{what}");
            }
        }
    }
}
