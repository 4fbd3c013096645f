//! The settings block's transfer settings on the original SCSI Manager: `auto` (polled on a
//! 68000, blind elsewhere), `blind`, `polled`, and the cap on blocks per command; SCSI Manager
//! 4.3 ignores both.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::CpuModel;
use ferrite_emu::scsi::DiskConfig;
use ferrite_emu::scsi_manager::{self, ScsiCall};
use ferrite_emu::start_manager::RomGeneration;
use ferrite_shared::driver_blob::{Settings, TransferMode};

const READ_10: u8 = 0x28;
const WRITE_10: u8 = 0x2A;

fn rig(cpu: CpuModel, rom: RomGeneration, transfer: TransferMode, cap: u16) -> Rig {
    let settings = Settings {
        write_cache: false,
        transfer,
        max_blocks_old: cap,
        ..Default::default()
    };
    let disk = disk_with_volumes(driver_blob_with(settings), 1, 3000);
    boot_disk(cpu, rom, &disk, DiskConfig::default())
}

fn old_calls(r: &mut Rig) -> Vec<&'static str> {
    scsi_manager::calls(&mut r.m)
        .iter()
        .filter_map(|c| match c {
            ScsiCall::Old { name, .. } => Some(*name),
            _ => None,
        })
        .collect()
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn the_transfer_mode_picks_blind_or_polled_calls() {
    for cpu in CPUS {
        for mode in [
            TransferMode::Auto,
            TransferMode::Blind,
            TransferMode::Polled,
        ] {
            let mut r = rig(cpu, RomGeneration::OriginalScsiManager, mode, 0);
            let w = format!("{cpu} {mode:?}");
            // From the install on (the map is read in whole blocks): nothing of the other kind.
            let buf = r.alloc(8 * 512);
            assert_eq!(
                r.prime(READ, 0, FS_FROM_START, 0, buf, 4096),
                (0, 4096),
                "{w}"
            );
            assert_eq!(
                r.prime(WRITE, 0, FS_FROM_START, 0, buf, 4096),
                (0, 4096),
                "{w}"
            );
            let names = old_calls(&mut r);
            let blind = mode.starts_blind(cpu == CpuModel::M68000);
            let has = |n: &str| names.contains(&n);
            if blind {
                assert!(has("SCSIRBlind") && has("SCSIWBlind"), "{w}: {names:?}");
                assert!(!has("SCSIWrite"), "{w}: {names:?}");
            } else {
                assert!(has("SCSIRead") && has("SCSIWrite"), "{w}: {names:?}");
                assert!(
                    !names.iter().any(|n| n.contains("Blind")),
                    "{w}: never blind: {names:?}"
                );
            }
        }
    }
    // `auto` is polled exactly on the 68000.
    assert!(!TransferMode::Auto.starts_blind(true));
    assert!(TransferMode::Auto.starts_blind(false));
}

/// (first LBA, blocks) of each READ(10)/WRITE(10) with `opcode` in the bus log.
fn transfers(r: &mut Rig, opcode: u8) -> Vec<(u32, u32)> {
    r.bus_log()
        .iter()
        .filter(|e| e.cdb[0] == opcode)
        .map(|e| {
            (
                u32::from_be_bytes([e.cdb[2], e.cdb[3], e.cdb[4], e.cdb[5]]),
                u16::from_be_bytes([e.cdb[7], e.cdb[8]]) as u32,
            )
        })
        .collect()
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn the_cap_splits_transfers_on_the_original_scsi_manager_only() {
    for cpu in CPUS {
        for rom in ROMS {
            for cap in [0u16, 10, 25] {
                let mut r = rig(cpu, rom, TransferMode::Auto, cap);
                let w = format!("{} cap {cap}", r.what());
                let mut rng = Rng(5);
                let data = rng.bytes(25 * 512);
                let buf = r.alloc(25 * 512);
                r.m.write_bytes(buf, &data);
                let lba = r.lba(0, 100 * 512) as u32;
                r.clear_bus_log();
                assert_eq!(
                    r.prime(WRITE, 0, FS_FROM_START, 100 * 512, buf, 25 * 512),
                    (0, 25 * 512),
                    "{w}"
                );
                r.m.bus_mut().fill_host(buf, 25 * 512, 0);
                assert_eq!(
                    r.prime(READ, 0, FS_FROM_START, 100 * 512, buf, 25 * 512),
                    (0, 25 * 512),
                    "{w}"
                );
                assert!(r.m.read_bytes(buf, 25 * 512) == data, "{w}: data");
                let want: Vec<(u32, u32)> =
                    if cap == 10 && rom == RomGeneration::OriginalScsiManager {
                        vec![(lba, 10), (lba + 10, 10), (lba + 20, 5)]
                    } else {
                        vec![(lba, 25)]
                    };
                assert_eq!(transfers(&mut r, WRITE_10), want, "{w}");
                assert_eq!(transfers(&mut r, READ_10), want, "{w}");
            }
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn the_built_driver_carries_the_default_settings() {
    let blob = driver_blob();
    assert_eq!(Settings::read(&blob), Ok(Settings::default()));
    assert_eq!(
        Settings::version(&blob),
        Ok(ferrite_shared::driver_blob::SETTINGS_VERSION)
    );
}
