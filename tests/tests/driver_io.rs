//! The Ferrite driver's Prime in the emulated Mac: random reads and writes checked against the
//! disk image, positioning (ioPosMode 1 and 3, dCtlPosition, wide 64-bit offsets on a 5 GB
//! sparse image), multi-command requests, refusals outside the partition.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::start_manager::RomGeneration;
use ferrite_emu::test_disk::TestDisk;

const PARAM_ERR: i16 = -50;
const NS_DRV_ERR: i16 = -56;

fn rig(
    cpu: ferrite_emu::CpuModel,
    rom: ferrite_emu::start_manager::RomGeneration,
    vols: usize,
    blocks: u32,
) -> Rig {
    let disk = disk_with_volumes(driver_blob(), vols, blocks);
    boot_disk(cpu, rom, &disk, DiskConfig::default())
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn random_reads_and_writes_match_the_image() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom, 2, 6000);
            let mut rng = Rng(0x1234_5678 ^ cpu as u64 ^ (rom as u64) << 8);
            let buf = r.alloc(140 * 1024);
            for round in 0..40 {
                let drive = rng.below(2) as usize;
                let max_blocks = if round % 5 == 0 { 270 } else { 8 };
                let blocks = 1 + rng.below(max_blocks) as u32;
                let first = rng.below((6000 - blocks) as u64) as u32;
                let count = blocks * 512;
                let what = format!(
                    "{} round {round}: drive {drive} block {first} × {blocks}",
                    r.what()
                );
                let lba = r.lba(drive, first as u64 * 512);
                if rng.below(2) == 0 {
                    let data = rng.bytes(count as usize);
                    r.m.write_bytes(buf, &data);
                    let (e, act) = r.prime(WRITE, drive, FS_FROM_START, first * 512, buf, count);
                    assert_eq!((e, act), (0, count), "{what}: write");
                    assert_eq!(
                        r.visible(lba, blocks as u64),
                        data,
                        "{what}: the disk holds what was written"
                    );
                } else {
                    let (e, act) = r.prime(READ, drive, FS_FROM_START, first * 512, buf, count);
                    assert_eq!((e, act), (0, count), "{what}: read");
                    let want = r.visible(lba, blocks as u64);
                    assert!(
                        r.m.read_bytes(buf, count) == want,
                        "{what}: read returns the disk's data"
                    );
                }
                let pos = r.m.read_u32(r.dce() + DCTL_POSITION);
                assert_eq!(pos, first * 512 + count, "{what}: dCtlPosition advanced");
            }
            // Neighbours of a write are untouched: write one block between two known ones.
            let lba = r.lba(0, 100 * 512);
            let before = r.visible(lba - 1, 3);
            r.m.write_bytes(buf, &[0xA5; 512]);
            assert_eq!(r.prime(WRITE, 0, FS_FROM_START, 100 * 512, buf, 512).0, 0);
            let after = r.visible(lba - 1, 3);
            assert_eq!(after[..512], before[..512], "{}", r.what());
            assert_eq!(after[512..1024], [0xA5; 512], "{}", r.what());
            assert_eq!(after[1024..], before[1024..], "{}", r.what());
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn from_mark_positioning_continues_where_the_last_request_ended() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom, 1, 3000);
            let pattern: Vec<u8> = (0..8 * 512).map(|i| (i / 512) as u8 ^ (i as u8)).collect();
            let lba = r.lba(0, 200 * 512);
            r.disk().write_store(lba, &pattern).unwrap();
            let buf = r.alloc(4096);
            assert_eq!(
                r.prime(READ, 0, FS_FROM_START, 200 * 512, buf, 1024),
                (0, 1024),
                "{}",
                r.what()
            );
            // fsFromMark with offset 0 and 1024: blocks 202–203, then 206–207.
            assert_eq!(
                r.prime(READ, 0, FS_FROM_MARK, 0, buf + 1024, 1024),
                (0, 1024),
                "{}",
                r.what()
            );
            assert_eq!(r.m.read_bytes(buf, 2048), pattern[..2048], "{}", r.what());
            assert_eq!(
                r.prime(READ, 0, FS_FROM_MARK, 1024, buf, 1024),
                (0, 1024),
                "{}",
                r.what()
            );
            assert_eq!(
                r.m.read_bytes(buf, 1024),
                pattern[6 * 512..],
                "{}",
                r.what()
            );
            assert_eq!(
                r.m.read_u32(r.dce() + DCTL_POSITION),
                208 * 512,
                "{}",
                r.what()
            );
            // fsAtMark (mode 0) uses dCtlPosition as it stands: block 208.
            let b208 = r.visible(r.lba(0, 208 * 512), 1);
            assert_eq!(r.prime(READ, 0, 0, 0, buf, 512), (0, 512), "{}", r.what());
            assert_eq!(r.m.read_bytes(buf, 512), b208, "{}", r.what());
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn large_requests_of_768_kb_and_more_at_odd_block_offsets() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom, 1, 4000);
            let mut rng = Rng(77);
            let buf = r.alloc(2000 * 512);
            for (first, blocks) in [(1u32, 1536u32), (333, 1537), (2000, 2000)] {
                let count = blocks * 512;
                let data = rng.bytes(count as usize);
                r.m.write_bytes(buf, &data);
                let lba = r.lba(0, first as u64 * 512);
                r.clear_bus_log();
                assert_eq!(
                    r.prime(WRITE, 0, FS_FROM_START, first * 512, buf, count),
                    (0, count),
                    "{}",
                    r.what()
                );
                assert_eq!(
                    r.visible(lba, blocks as u64),
                    data,
                    "{} write {first}+{blocks}",
                    r.what()
                );
                r.m.bus_mut().fill_host(buf, count, 0);
                assert_eq!(
                    r.prime(READ, 0, FS_FROM_START, first * 512, buf, count),
                    (0, count),
                    "{}",
                    r.what()
                );
                assert!(
                    r.m.read_bytes(buf, count) == data,
                    "{} read {first}+{blocks}",
                    r.what()
                );
                let log = r.bus_log();
                let rw: Vec<_> = log
                    .iter()
                    .filter(|e| e.cdb[0] == 0x28 || e.cdb[0] == 0x2A)
                    .collect();
                // SCSI Manager 4.3: one command each way. The original SCSI Manager: the
                // settings' cap (128 blocks by default) splits them, in order, contiguous.
                let cap = ferrite_shared::driver_blob::DEFAULT_MAX_BLOCKS_OLD as u32;
                let per = if r.rom == RomGeneration::ScsiManager43 {
                    1
                } else {
                    blocks.div_ceil(cap) as usize
                };
                assert_eq!(
                    rw.len(),
                    2 * per,
                    "{}: WRITE(10)s then READ(10)s per request: {log:?}",
                    r.what()
                );
                for (i, e) in rw.iter().enumerate() {
                    let k = (i % per) as u32;
                    let at = u32::from_be_bytes([e.cdb[2], e.cdb[3], e.cdb[4], e.cdb[5]]);
                    let n = u16::from_be_bytes([e.cdb[7], e.cdb[8]]) as u32;
                    let want_n = if per == 1 {
                        blocks
                    } else {
                        cap.min(blocks - k * cap)
                    };
                    assert_eq!(
                        (at as u64, n),
                        (lba + (k * cap) as u64, want_n),
                        "{}: command {i} of {first}+{blocks}",
                        r.what()
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn requests_outside_the_partition_are_refused_without_a_command() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom, 2, 3000);
            let buf = r.alloc(4096);
            r.clear_bus_log();
            for (mode, off, count) in [
                (FS_FROM_START, 3000 * 512, 512),  // just past the end
                (FS_FROM_START, 2999 * 512, 1024), // straddles the end
                (FS_FROM_START, 0, 3001 * 512),    // longer than the partition
                (FS_FROM_START, 100, 512),         // not a block position
                (FS_FROM_START, 512, 100),         // not whole blocks
                (FS_FROM_START, 0xFFFF_FE00, 512), // far away
            ] {
                assert_eq!(
                    r.prime(READ, 0, mode, off, buf, count).0,
                    PARAM_ERR,
                    "{} read {off}+{count}",
                    r.what()
                );
                assert_eq!(
                    r.prime(WRITE, 1, mode, off, buf, count).0,
                    PARAM_ERR,
                    "{} write {off}+{count}",
                    r.what()
                );
            }
            // The last block is fine.
            assert_eq!(
                r.prime(READ, 1, FS_FROM_START, 2999 * 512, buf, 512),
                (0, 512),
                "{}",
                r.what()
            );
            let log = r.bus_log();
            assert_eq!(
                log.len(),
                1,
                "{}: only the good request reached the disk: {log:?}",
                r.what()
            );
            // A drive number that is not ours.
            let pb = r.pb();
            r.set_io(pb, 0, FS_FROM_START, 0, buf, 512);
            r.m.write_u16(pb + IO_VREFNUM, 3);
            assert_eq!(
                r.m.device_call(READ, pb).unwrap() as i16,
                NS_DRV_ERR,
                "{}",
                r.what()
            );
            // Zero bytes: nothing to do, no command.
            r.clear_bus_log();
            assert_eq!(
                r.prime(READ, 0, FS_FROM_START, 512, buf, 0),
                (0, 0),
                "{}",
                r.what()
            );
            assert!(r.bus_log().is_empty(), "{}", r.what());
        }
    }
}

/// A 5 GB sparse image whose only volume covers everything after the driver.
fn five_gb(dir: &std::path::Path) -> (DiskTarget, ferrite_emu::test_disk::TestDiskLayout) {
    const TOTAL: u64 = 5 * 1024 * 1024 * 1024 / 512;
    let mut disk = TestDisk::new(driver_blob());
    disk.volumes[0].blocks = 4000;
    let driver_blocks = (disk.driver.len() as u32).div_ceil(512);
    disk.total_blocks = 64 + driver_blocks + 4000;
    let (mut image, mut layout) = disk.build();
    // Grow the volume to the end of the 5 GB disk: DDM sbBlkCount, pmPartBlkCnt, pmDataCnt.
    let vol_start = layout.volumes[0].0 as u64;
    let vol_blocks = (TOTAL - vol_start) as u32;
    image[4..8].copy_from_slice(&(TOTAL as u32).to_be_bytes());
    let e = 3 * 512;
    image[e + 12..e + 16].copy_from_slice(&vol_blocks.to_be_bytes());
    image[e + 84..e + 88].copy_from_slice(&vol_blocks.to_be_bytes());
    layout.volumes[0].1 = vol_blocks;
    let mut t = DiskTarget::create(dir.join("five.img"), TOTAL, DiskConfig::default()).unwrap();
    t.write_store(0, &image).unwrap();
    (t, layout)
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn wide_positioning_reaches_past_4_gb_on_a_5_gb_sparse_image() {
    let dir = std::env::temp_dir().join(format!("ferrite-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for cpu in CPUS {
        for rom in ROMS {
            let (t, layout) = five_gb(&dir);
            let mut r = boot_target(cpu, rom, t, layout);
            assert_eq!(r.drives.len(), 1, "{}\n{}", r.what(), r.report);
            let vol_blocks = r.layout.volumes[0].1 as u64;
            assert_eq!(
                r.drives[0].blocks as u64,
                vol_blocks,
                "{}: drive size beyond 16 bits",
                r.what()
            );
            let buf = r.alloc(8192);
            let mut rng = Rng(5);
            for pos in [
                (1u64 << 32) - 512, // the last block below 4 GB
                1u64 << 32,         // exactly 4 GB
                (1u64 << 32) + 7 * 512,
                4_600_000_000u64 / 512 * 512,
                (vol_blocks - 8) * 512, // the end of the volume
            ] {
                let data = rng.bytes(4096);
                r.m.write_bytes(buf, &data);
                let what = format!("{} at byte {pos:#x}", r.what());
                assert_eq!(
                    r.prime_wide(WRITE, 0, pos, buf, 4096),
                    (0, 4096),
                    "{what}: write"
                );
                let lba = r.lba(0, pos);
                assert_eq!(r.visible(lba, 8), data, "{what}: landed at LBA {lba}");
                // The same LBA modulo 4 GB is untouched (no truncation to 32 bits).
                if pos >= 1 << 32 {
                    let low = r.lba(0, pos - (1 << 32));
                    assert_ne!(r.visible(low, 8), data, "{what}");
                }
                r.m.bus_mut().fill_host(buf, 4096, 0);
                assert_eq!(
                    r.prime_wide(READ, 0, pos, buf, 4096),
                    (0, 4096),
                    "{what}: read"
                );
                assert_eq!(r.m.read_bytes(buf, 4096), data, "{what}: read back");
            }
            r.clear_bus_log();
            assert_eq!(
                r.prime_wide(READ, 0, vol_blocks * 512, buf, 512).0,
                PARAM_ERR,
                "{}",
                r.what()
            );
            assert_eq!(
                r.prime_wide(READ, 0, (vol_blocks - 1) * 512, buf, 1024).0,
                PARAM_ERR,
                "{}",
                r.what()
            );
            assert!(r.bus_log().is_empty(), "{}", r.what());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
