//! The Ferrite driver on a disk that is not bus 0 / LUN 0 (issue 11 follow-up): a 4.3 ROM
//! enters the driver at +8 with D5 = DeviceIdent (`$00 bus target LUN`), and every request the
//! driver makes must go to that bus, target and LUN. The SCSI Manager 4.3 model numbers its
//! virtual bus with `ScsiManagerConfig::bus_number` (the buses below it are empty: a request
//! there times out) and the disk answers only its own LUN (`DiskConfig::lun`; any other gets
//! SCSI-2's answer for a LUN the target lacks), so a driver that drops the bus or the LUN —
//! as the "join gap" miscompile did — cannot mount the volume.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::{DiskConfig, DiskTarget, status};
use ferrite_emu::scsi_manager::v43::SCSI_EXEC_IO;
use ferrite_emu::scsi_manager::{self, ScsiCall, ScsiManagerConfig};
use ferrite_emu::start_manager::{BootConfig, RomGeneration};
use ferrite_emu::{CpuModel, Machine, MachineConfig};

const READ_6: u8 = 0x08;

/// (bus, LUN) of the disk, at SCSI ID [`ID`]: a LUN other than 0 on bus 0, bus 1 with bus 0
/// empty, and both at once on bus 2.
const PLACES: [(u8, u8); 3] = [(0, 1), (1, 0), (2, 5)];

fn rig_at(cpu: CpuModel, bus: u8, lun: u8) -> Rig {
    let mut m = Machine::with_config(MachineConfig::new(cpu)).expect("machine");
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: true,
            bus_number: bus,
            ..Default::default()
        },
    );
    let mut cfg = BootConfig::new(RomGeneration::ScsiManager43);
    cfg.scan_luns = 8;
    let (image, layout) = disk_with_volumes(driver_blob(), 2, 2000).build();
    let dcfg = DiskConfig {
        lun,
        ..Default::default()
    };
    let mut t = DiskTarget::in_memory((image.len() / 512) as u64, dcfg).unwrap();
    t.write_store(0, &image).unwrap();
    boot_targets_with(m, &cfg, vec![(ID, t, layout)])
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn the_driver_serves_the_bus_and_lun_the_rom_named() {
    for cpu in CPUS {
        for (bus, lun) in PLACES {
            let w = format!("{cpu} bus {bus} LUN {lun}");
            let mut r = rig_at(cpu, bus, lun);
            let ident = (bus as u32) << 16 | (ID as u32) << 8 | lun as u32;
            assert!(r.report.errors.is_empty(), "{w}\n{}", r.report);
            let d = r.report.drivers().next().cloned().expect("a driver");
            assert_eq!((d.lun, d.d5, d.install_result), (lun, ident, 0), "{w}");
            assert_eq!(
                scsi_manager::xref_lookup(&mut r.m, ident),
                Some(r.ref_num),
                "{w}: the cross-reference names the device"
            );
            // Unit 32 + ID on the built-in bus only.
            if bus == 0 {
                assert_eq!(r.ref_num, !(32 + ID as i16), "{w}");
            } else {
                assert!(r.ref_num <= !48, "{w}: refNum {}", r.ref_num);
            }
            // Both volumes mounted, through this driver.
            assert_eq!(r.report.volumes.len(), 2, "{w}\n{}", r.report);
            assert!(
                r.report
                    .volumes
                    .iter()
                    .all(|v| v.driver_ref_num == r.ref_num),
                "{w}"
            );
            // Every request of the driver named the device; on the bus, only the ROM's probe
            // READ(6)s of the other LUNs went elsewhere, and failed.
            for c in scsi_manager::calls(&mut r.m) {
                if let ScsiCall::Action {
                    function: SCSI_EXEC_IO,
                    device,
                    ..
                } = c
                {
                    assert_eq!(device, ident, "{w}: scsiDevice ${device:08X}");
                }
            }
            for e in r.bus_log() {
                assert_eq!(e.id, ID, "{w}");
                assert!(
                    e.lun == lun
                        || (e.cdb[0] == READ_6 && e.status == Some(status::CHECK_CONDITION)),
                    "{w}: {e:?}"
                );
            }
            // DriverGestalt: 'boot' = (target << 3 | LUN, partition); 'dvrf' = DeviceIdent.
            let (err, p) = r.status(Some(0), 43, b"boot");
            let boot = u32::from_be_bytes([p[4], p[5], p[6], p[7]]);
            assert_eq!(
                (err, boot),
                (0, ((ID as u32) << 3 | lun as u32) << 24 | 3 << 16),
                "{w}: 'boot'"
            );
            let (err, p) = r.status(Some(1), 43, b"dvrf");
            let dvrf = u32::from_be_bytes([p[4], p[5], p[6], p[7]]);
            assert_eq!((err, dvrf), (0, ident), "{w}: 'dvrf'");

            // A write and a read through the Device Manager reach this LUN's blocks.
            r.clear_bus_log();
            let buf = r.alloc(2048);
            let pattern: Vec<u8> = (0..2048u32)
                .map(|i| (i * 7 + bus as u32 * 31 + lun as u32) as u8)
                .collect();
            r.m.write_bytes(buf, &pattern);
            assert_eq!(
                r.prime(WRITE, 1, FS_FROM_START, 40 * 512, buf, 2048),
                (0, 2048),
                "{w}: write"
            );
            let lba = r.lba(1, 40 * 512);
            assert_eq!(r.visible(lba, 4), pattern, "{w}: the blocks on the disk");
            r.m.write_bytes(buf, &[0u8; 2048]);
            assert_eq!(
                r.prime(READ, 1, FS_FROM_START, 40 * 512, buf, 2048),
                (0, 2048),
                "{w}: read"
            );
            assert_eq!(r.m.read_bytes(buf, 2048), pattern, "{w}: read back");
            let log = r.bus_log();
            assert!(!log.is_empty(), "{w}");
            for e in log {
                assert_eq!(
                    (e.id, e.lun, e.status),
                    (ID, lun, Some(status::GOOD)),
                    "{w}"
                );
            }
        }
    }
}

/// The Quadra (68040): the ROM's original SCSI Manager installs the driver through +0 with the
/// SCSI ID only; when SCSI Manager 4.3 arrives the driver asks `SCSIGetVirtualIDInfo` which
/// device its ID is. With the virtual bus numbered 1, its 4.3 requests must go to bus 1.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn on_the_quadra_the_move_to_4_3_takes_the_bus_from_the_virtual_id() {
    let mut m = Machine::with_config(MachineConfig::new(CpuModel::M68040)).expect("machine");
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: false,
            bus_number: 1,
            ..Default::default()
        },
    );
    let cfg = BootConfig::new(RomGeneration::Quadra);
    let w = format!("Quadra, arrival {:?}", cfg.extension_arrival);
    let (image, layout) = disk_with_volumes(driver_blob(), 2, 2000).build();
    let mut t = DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
    t.write_store(0, &image).unwrap();
    let mut r = boot_targets_with(m, &cfg, vec![(ID, t, layout)]);
    let ident = 1 << 16 | (ID as u32) << 8;
    assert_eq!(
        r.report.drivers().next().map(|d| d.d5),
        Some(ID as u32),
        "{w}"
    );
    assert!(r.report.v43_arrived.is_some(), "{w}\n{}", r.report);
    assert_eq!(r.report.volumes.len(), 2, "{w}\n{}", r.report);
    // A write and a read after the arrival go through 4.3 to bus 1, and land.
    scsi_manager::clear_calls(&mut r.m);
    let buf = r.alloc(1024);
    let pattern: Vec<u8> = (0..1024u32).map(|i| (i * 11 + 3) as u8).collect();
    r.m.write_bytes(buf, &pattern);
    assert_eq!(
        r.prime(WRITE, 0, FS_FROM_START, 30 * 512, buf, 1024),
        (0, 1024),
        "{w}"
    );
    let lba = r.lba(0, 30 * 512);
    assert_eq!(r.visible(lba, 2), pattern, "{w}: on the disk");
    r.m.write_bytes(buf, &[0u8; 1024]);
    assert_eq!(
        r.prime(READ, 0, FS_FROM_START, 30 * 512, buf, 1024),
        (0, 1024),
        "{w}"
    );
    assert_eq!(r.m.read_bytes(buf, 1024), pattern, "{w}: read back");
    let devices: Vec<u32> = scsi_manager::calls(&mut r.m)
        .into_iter()
        .filter_map(|c| match c {
            ScsiCall::Action {
                function: SCSI_EXEC_IO,
                device,
                ..
            } => Some(device),
            _ => None,
        })
        .collect();
    assert!(
        !devices.is_empty() && devices.iter().all(|&d| d == ident),
        "{w}: SCSIExecIO devices {devices:08X?}"
    );
    assert_eq!(
        scsi_manager::xref_lookup(&mut r.m, ident),
        Some(r.ref_num),
        "{w}: the cross-reference names bus 1"
    );
    let (err, p) = r.status(Some(0), 43, b"dvrf");
    assert_eq!(
        (err, u32::from_be_bytes([p[4], p[5], p[6], p[7]])),
        (0, ident),
        "{w}: 'dvrf' after the move"
    );
}
