//! Every Control and Status code the Ferrite driver implements, and the unknown ones.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::DiskConfig;

const CONTROL_ERR: i16 = -17;
const STATUS_ERR: i16 = -18;
const NS_DRV_ERR: i16 = -56;
const IO_ERR: i16 = -36;
const SYNCHRONIZE_CACHE: u8 = 0x35;
const START_STOP: u8 = 0x1B;
const PREVENT_ALLOW: u8 = 0x1E;

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

fn rig(
    cpu: ferrite_emu::CpuModel,
    rom: ferrite_emu::start_manager::RomGeneration,
    cfg: DiskConfig,
) -> Rig {
    let disk = disk_with_volumes(driver_blob(), 2, 3000);
    boot_disk(cpu, rom, &disk, cfg)
}

fn gestalt(r: &mut Rig, drive: usize, sel: &[u8; 4]) -> (i16, u32, u32) {
    let (e, p) = r.status(Some(drive), 43, sel);
    (e, be32(&p[4..8]), be32(&p[8..12]))
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn control_codes_on_a_fixed_disk() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(
                cpu,
                rom,
                DiskConfig {
                    write_cache_enabled: false,
                    ..Default::default()
                },
            );
            let w = r.what();
            r.clear_bus_log();
            // 6 format: nothing to do on a hard disk, nothing sent (5 verify: see
            // `verify_checks_every_block_of_the_drive`).
            assert_eq!(r.control(Some(0), 6, &[]).0, 0, "{w}");
            assert!(r.bus_log().is_empty(), "{w}");
            // 1 killCode with nothing in flight.
            assert_eq!(r.control(None, 1, &[]).0, 0, "{w}");
            // 7 eject on a fixed disk: flush (the driver turned the cache on), no eject.
            r.clear_bus_log();
            assert_eq!(r.control(Some(0), 7, &[]).0, 0, "{w}");
            let ops = r.opcodes();
            assert_eq!(
                ops,
                vec![SYNCHRONIZE_CACHE],
                "{w}: eject of a fixed disk only flushes"
            );
            // 21, 22: a pointer to ICN# (256 bytes) and the Get Info string.
            for code in [21, 22] {
                let (e, p) = r.control(Some(0), code, &[]);
                assert_eq!(e, 0, "{w}");
                let icon = be32(&p[0..4]);
                let mask = r.m.read_bytes(icon + 128, 128);
                assert!(mask.iter().any(|&b| b != 0), "{w}: the mask is not empty");
                let s = r.m.read_pstring(icon + 256);
                assert!(
                    !s.is_empty() && s.iter().all(|c| c.is_ascii_graphic() || *c == b' '),
                    "{w}: {s:?}"
                );
            }
            // 23 drive info: fixed SCSI disk.
            let (e, p) = r.control(Some(0), 23, &[]);
            assert_eq!((e, be32(&p[0..4])), (0, 0x0601), "{w}");
            // 43 DriverConfigure.
            r.clear_bus_log();
            assert_eq!(r.control(Some(0), 43, b"flus").0, 0, "{w}");
            assert_eq!(
                r.opcodes(),
                vec![SYNCHRONIZE_CACHE],
                "{w}: 'flus' synchronises the drive's cache"
            );
            r.clear_bus_log();
            assert_eq!(r.control(Some(0), 43, b"vmop").0, 0, "{w}");
            assert_eq!(r.control(Some(0), 43, b"diad").0, CONTROL_ERR, "{w}");
            assert_eq!(r.control(Some(0), 43, b"xxxx").0, CONTROL_ERR, "{w}");
            assert!(r.bus_log().is_empty(), "{w}");
            // 65 accRun, unknown codes.
            assert_eq!(r.control(None, 65, &[]).0, 0, "{w}");
            for code in [0, 2, 8, 9, 20, 44, 70, 99, 128, -2] {
                assert_eq!(
                    r.control(Some(0), code, &[]).0,
                    CONTROL_ERR,
                    "{w}: control {code}"
                );
            }
            // -1 goodbye through the shutdown: SYNCHRONIZE CACHE.
            r.clear_bus_log();
            let got = r.m.shutdown().unwrap();
            assert_eq!(got, vec![r.ref_num], "{w}");
            assert_eq!(r.opcodes(), vec![SYNCHRONIZE_CACHE], "{w}");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn eject_and_drive_info_on_a_removable_disk() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(
                cpu,
                rom,
                DiskConfig {
                    removable: true,
                    ..Default::default()
                },
            );
            let w = r.what();
            let (e, p) = r.control(Some(0), 23, &[]);
            assert_eq!((e, be32(&p[0..4])), (0, 0x0201), "{w}");
            assert_eq!(
                gestalt(&mut r, 0, b"devt"),
                (0, u32::from_be_bytes(*b"rdsk"), 0),
                "{w}"
            );
            assert_eq!(gestalt(&mut r, 0, b"ejec").1, 0, "{w}");
            r.clear_bus_log();
            assert_eq!(r.control(Some(0), 7, &[]).0, 0, "{w}");
            let ops = r.opcodes();
            assert!(
                ops.contains(&START_STOP) && ops.contains(&PREVENT_ALLOW),
                "{w}: {ops:02X?}"
            );
            let ss = r
                .bus_log()
                .into_iter()
                .find(|e| e.cdb[0] == START_STOP)
                .unwrap();
            assert_eq!(ss.cdb[4] & 3, 2, "{w}: LoEj = 1, Start = 0");
            assert!(!r.disk().medium_present(), "{w}: the medium is out");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn status_codes_and_every_driver_gestalt_selector() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom, DiskConfig::default());
            let w = r.what();
            // 8: drive status = track word, then the 4 prefix bytes and the 16-byte element.
            for d in 0..2 {
                let (e, p) = r.status(Some(d), 8, &[]);
                assert_eq!(e, 0, "{w}");
                let el = r.drives[d].element;
                assert_eq!(&p[0..2], &[0, 0], "{w}");
                assert_eq!(
                    p[2..22].to_vec(),
                    r.m.read_bytes(el - 4, 20),
                    "{w}: drive {d}"
                );
            }
            let pb = r.pb();
            r.m.write_u16(pb + IO_REFNUM, r.ref_num as u16);
            r.m.write_u16(pb + IO_VREFNUM, 1);
            r.m.write_u16(pb + CS_CODE, 8);
            assert_eq!(
                r.m.device_call(STATUS, pb).unwrap() as i16,
                NS_DRV_ERR,
                "{w}: not our drive"
            );
            // 43 DriverGestalt.
            let ostype = |s: &[u8; 4]| u32::from_be_bytes(*s);
            let hdr = r.m.read_u32(r.dce());
            assert_eq!(gestalt(&mut r, 0, b"vers").0, 0, "{w}");
            assert_ne!(gestalt(&mut r, 0, b"vers").1, 0, "{w}");
            assert_eq!(gestalt(&mut r, 0, b"devt"), (0, ostype(b"disk"), 0), "{w}");
            assert_eq!(gestalt(&mut r, 0, b"intf"), (0, ostype(b"scsi"), 0), "{w}");
            assert_eq!(
                gestalt(&mut r, 0, b"sync"),
                (0, 0, 0),
                "{w}: not synchronous-only"
            );
            // 'boot' per drive: extDev = ID << 3, then the partition's map entry (the test
            // disk's HFS volumes are entries 3 and 4).
            assert_eq!(
                gestalt(&mut r, 0, b"boot"),
                (0, (ID as u32) << 27 | 3 << 16, 0),
                "{w}"
            );
            assert_eq!(
                gestalt(&mut r, 1, b"boot"),
                (0, (ID as u32) << 27 | 4 << 16, 0),
                "{w}"
            );
            assert_eq!(gestalt(&mut r, 0, b"wide").1 >> 24, 1, "{w}");
            assert_eq!(
                gestalt(&mut r, 0, b"purg"),
                (0, 0, hdr),
                "{w}: never purge; the driver's header"
            );
            assert_eq!(gestalt(&mut r, 0, b"lpwr"), (0, 0, 0), "{w}");
            assert_eq!(gestalt(&mut r, 0, b"dAPI"), (0, 0, 0), "{w}");
            assert_eq!(
                gestalt(&mut r, 0, b"ejec"),
                (0, 3, 0),
                "{w}: fixed disks stay at restart and shutdown"
            );
            assert_eq!(
                gestalt(&mut r, 0, b"flus"),
                (0, 0x0101_0000, 0),
                "{w}: can flush, needs flush (cache on)"
            );
            assert_eq!(gestalt(&mut r, 1, b"vmop"), (0, 3, 0), "{w}");
            for sel in [b"xxxx", b"minf", b"prft", b"\0\0\0\0"] {
                assert_eq!(gestalt(&mut r, 0, sel).0, STATUS_ERR, "{w}: {sel:?}");
            }
            for code in [0, 2, 6, 44, 50, 70, 99, -1] {
                assert_eq!(
                    r.status(Some(0), code, &[]).0,
                    STATUS_ERR,
                    "{w}: status {code}"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn flus_needs_no_flush_without_a_write_cache() {
    let settings = ferrite_shared::driver_blob::Settings {
        write_cache: false,
        ..Default::default()
    };
    let disk = disk_with_volumes(driver_blob_with(settings), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            assert_eq!(gestalt(&mut r, 0, b"flus"), (0, 0x0100_0000, 0), "{w}");
            r.clear_bus_log();
            assert_eq!(r.control(Some(0), 43, b"flus").0, 0, "{w}");
            assert_eq!(r.m.shutdown().unwrap(), vec![r.ref_num], "{w}");
            assert!(r.bus_log().is_empty(), "{w}: nothing to flush");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn verify_checks_every_block_of_the_drive() {
    const VERIFY_10: u8 = 0x2F;
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom, DiskConfig::default());
            let w = r.what();
            r.clear_bus_log();
            assert_eq!(r.control(Some(1), 5, &[]).0, 0, "{w}");
            let log = r.bus_log();
            assert!(!log.is_empty(), "{w}: something was verified");
            let mut next = r.lba(1, 0) as u32;
            for e in &log {
                assert_eq!(e.cdb[0], VERIFY_10, "{w}: only VERIFY(10): {log:?}");
                assert_eq!(e.cdb[1] & 0x02, 0, "{w}: no data compared (BYTCHK 0)");
                let at = be32(&e.cdb[2..6]);
                assert_eq!(at, next, "{w}: contiguous");
                next += u16::from_be_bytes([e.cdb[7], e.cdb[8]]) as u32;
            }
            assert_eq!(
                next as u64,
                r.lba(1, 0) + r.drives[1].blocks as u64,
                "{w}: the whole partition and no more"
            );
            // A bad block in drive 1 fails its verify, not drive 0's.
            let bad = r.lba(1, 1234 * 512);
            r.disk().inject_read_error(bad);
            assert_eq!(r.control(Some(1), 5, &[]).0, IO_ERR, "{w}");
            assert_eq!(r.control(Some(0), 5, &[]).0, 0, "{w}");
            // Not one of our drives.
            assert_eq!(r.control(None, 5, &[]).0, NS_DRV_ERR, "{w}");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn close_is_refused_and_the_driver_keeps_serving() {
    // A startup disk's driver must never be closed: `_Close` gets closErr, the driver stays
    // open and its drives keep working.
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom, DiskConfig::default());
            let w = r.what();
            let pb = r.pb();
            r.m.write_u16(pb + IO_REFNUM, r.ref_num as u16);
            let e = r.m.device_call(0xA001, pb).unwrap() as i16;
            assert_eq!(e, -24, "{w}: closErr");
            let unit = !r.ref_num as u16;
            assert!(r.m.driver_info(unit).unwrap().is_open(), "{w}: still open");
            let buf = r.alloc(512);
            let (e, _) = r.prime(READ, 0, FS_FROM_START, 512, buf, 512);
            assert_eq!(e, 0, "{w}: still reads");
        }
    }
}

/// Control `csCode` $464D ('FM', driver `core::RESCAN_CONTROL`): read the map again and add
/// a drive for every HFS partition no drive serves yet.
const RESCAN: i16 = 0x464D;
const NO_MAC_DSK_ERR: i16 = -57;
const READ_10: u8 = 0x28;

/// A volume added to the map after boot gets exactly one new drive from the rescan call —
/// numbered after the others, its size the partition's, `'boot'` its map entry, a
/// disk-inserted event posted, its MDB readable through it and mountable —; the drives there
/// before stay byte for byte as they were; a second call adds nothing; a map whose block 1 is
/// no entry is refused with `noMacDskErr` and changes nothing.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn rescan_adds_exactly_the_new_partitions() {
    let three = disk_with_volumes(driver_blob(), 3, 3000);
    let (three_img, three_layout) = three.build();
    let mut two = disk_with_volumes(driver_blob(), 2, 3000);
    two.total_blocks = three.total_blocks;
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &two, DiskConfig::default());
            let w = r.what();
            assert_eq!(r.drives.len(), 2, "{w}");
            let ours = |r: &Rig| -> Vec<(u32, Vec<u8>)> {
                r.m.drives()
                    .iter()
                    .filter(|d| d.ref_num == r.ref_num)
                    // The flag bytes before the element and the element past `qLink`
                    // (which the queue changes when an element is appended after it).
                    .map(|d| {
                        let mut b = r.m.read_bytes(d.element - 4, 4);
                        b.extend(r.m.read_bytes(d.element + 4, 12));
                        (d.element, b)
                    })
                    .collect()
            };
            let before = ours(&r);
            let others_before: Vec<_> =
                r.m.drives()
                    .into_iter()
                    .filter(|d| d.ref_num != r.ref_num)
                    .collect();
            let events_before = r.m.disk_events();

            // Nothing new: nothing added, only the map read (blocks 1–5).
            r.clear_bus_log();
            assert_eq!(r.control(None, RESCAN, &[]).0, 0, "{w}");
            assert_eq!(ours(&r), before, "{w}");
            let reads: Vec<u32> = r
                .bus_log()
                .iter()
                .filter(|e| e.cdb[0] == READ_10)
                .map(|e| u32::from_be_bytes([e.cdb[2], e.cdb[3], e.cdb[4], e.cdb[5]]))
                .collect();
            assert_eq!(reads, [1, 2, 3, 4, 5], "{w}");
            assert_eq!(
                r.opcodes().iter().filter(|&&o| o != READ_10).count(),
                0,
                "{w}"
            );

            // A third volume in the map (what Partition… ▸ Add writes): one new drive.
            r.disk().write_store(0, &three_img).unwrap();
            assert_eq!(r.control(None, RESCAN, &[]).0, 0, "{w}");
            let after = ours(&r);
            assert_eq!(after.len(), 3, "{w}");
            assert_eq!(after[..2], before[..], "{w}: the old drives changed");
            let all = r.m.drives();
            let others_after: Vec<_> = all
                .iter()
                .filter(|d| d.ref_num != r.ref_num)
                .cloned()
                .collect();
            assert_eq!(others_after, others_before, "{w}");
            let new = all
                .iter()
                .find(|d| d.element == after[2].0)
                .unwrap()
                .clone();
            assert_eq!(new.blocks, 3000, "{w}");
            assert!(new.number > r.drives[1].number, "{w}");
            assert!(
                all.iter().filter(|d| d.number == new.number).count() == 1,
                "{w}"
            );
            assert_eq!(
                r.m.disk_events(),
                [events_before.clone(), vec![new.number as u32]].concat(),
                "{w}"
            );
            r.drives.push(new.clone());
            let (e, boot, _) = gestalt(&mut r, 2, b"boot");
            assert_eq!(
                (e, (boot >> 16) & 0xFF),
                (0, 5),
                "{w}: the third volume's entry"
            );
            // Its volume reads through the new drive: the MDB of "Vol 3".
            let mdb = ferrite_emu::file_manager::read_through_driver(&mut r.m, &new, 1024, 512)
                .unwrap()
                .unwrap();
            assert_eq!(&mdb[..2], b"BD", "{w}");
            assert_eq!(&mdb[0x24..0x24 + 6], b"\x05Vol 3", "{w}");
            let start = three_layout.volumes[2].0 as u64;
            assert_eq!(mdb, r.visible(start + 2, 1), "{w}");
            let vref = ferrite_emu::file_manager::mount(&mut r.m, new.number as u16)
                .unwrap()
                .unwrap_or_else(|e| panic!("{w}: _MountVol {e}"));
            assert!(vref < 0, "{w}");

            // Idempotent: a second call adds nothing and posts nothing.
            assert_eq!(r.control(None, RESCAN, &[]).0, 0, "{w}");
            assert_eq!(ours(&r), after, "{w}");
            assert_eq!(r.m.disk_events().len(), events_before.len() + 1, "{w}");

            // No map at block 1: refused, the drives as they were.
            r.disk().write_store(1, &[0u8; 512]).unwrap();
            assert_eq!(r.control(None, RESCAN, &[]).0, NO_MAC_DSK_ERR, "{w}");
            assert_eq!(ours(&r), after, "{w}");
            // The old drives still serve their volumes.
            let (e, boot, _) = gestalt(&mut r, 0, b"boot");
            assert_eq!((e, (boot >> 16) & 0xFF), (0, 3), "{w}");
            m_check(&r, &w);
        }
    }
}

fn m_check(r: &Rig, w: &str) {
    r.m.check_heaps().unwrap_or_else(|e| panic!("{w}: {e}"));
}
