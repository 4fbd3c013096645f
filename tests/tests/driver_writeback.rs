//! The Ferrite driver with the drive's write cache on (write-back): the idle flush bounds
//! the window of acknowledged data a power loss can take, and a write the drive loses at
//! write-back (a deferred error, sense 71h, or a failed flush) is reported on the call that
//! hears of it and kept for Status `'FE'` — never dropped.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::DiskConfig;
use ferrite_shared::driver_blob::Settings;

const SYNCHRONIZE_CACHE: u8 = 0x35;
/// Status `csCode` of the lost-writes record (driver `core::LOST_WRITES_STATUS`).
const LOST_WRITES: i16 = 0x4645;
const IO_ERR: i16 = -36;

fn write_blocks(r: &mut Rig, block: u32, n: u32, byte: u8) -> Vec<u8> {
    let buf = r.alloc(n * 512);
    let data: Vec<u8> = (0..n * 512).map(|i| byte ^ (i as u8)).collect();
    r.m.write_bytes(buf, &data);
    let w = r.what();
    assert_eq!(
        r.prime(WRITE, 0, FS_FROM_START, block * 512, buf, n * 512),
        (0, n * 512),
        "{w}: write acknowledged"
    );
    data
}

fn read_result(r: &mut Rig, block: u32) -> i16 {
    let buf = r.alloc(512);
    r.prime(READ, 0, FS_FROM_START, block * 512, buf, 512).0
}

/// The lost-writes record: (count, sense key, ASC, LBA).
fn lost(r: &mut Rig) -> (u16, u8, u8, u32) {
    let (e, p) = r.status(Some(0), LOST_WRITES, &[]);
    assert_eq!(e, 0, "{}: Status 'FE'", r.what());
    (
        u16::from_be_bytes([p[0], p[1]]),
        p[2],
        p[3],
        u32::from_be_bytes([p[6], p[7], p[8], p[9]]),
    )
}

/// Let `ticks` of guest time pass as in the Finder's event loop: VBL tasks and completions
/// delivered, `SystemTask` (so accRun) after every tick.
fn idle(r: &mut Rig, ticks: u32) {
    let w = r.what();
    r.m.run_event_loop(ticks)
        .unwrap_or_else(|e| panic!("{w}: {e}"));
}

/// Ticks of event loop until the drive has seen `flushes` SYNCHRONIZE CACHE commands (at
/// most `limit`).
fn ticks_until_flushes(r: &mut Rig, flushes: u64, limit: u32) -> u32 {
    for t in 0..=limit {
        if r.disk().opcode_count(SYNCHRONIZE_CACHE) >= flushes {
            return t;
        }
        idle(r, 1);
    }
    panic!("{}: no flush within {limit} ticks", r.what());
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn idle_writes_are_flushed_within_the_window() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            assert!(r.disk().write_cache_enabled(), "{w}");
            let lba = r.lba(0, 600 * 512);
            let flushes = r.disk().opcode_count(SYNCHRONIZE_CACHE);
            // Writes every 10 ticks keep the drive busy: no flush while they come.
            let mut data = Vec::new();
            for k in 0..4u8 {
                data = write_blocks(&mut r, 600, 8, 0x30 + k);
                idle(&mut r, 10);
            }
            assert_eq!(
                r.disk().opcode_count(SYNCHRONIZE_CACHE),
                flushes,
                "{w}: no flush while writes keep coming"
            );
            assert_ne!(r.disk().read_store(lba, 8).unwrap(), data, "{w}: cached");
            // Half a second (30 ticks, the default) after the last write the VBL task finds
            // the writes idle: under SCSI Manager 4.3 it flushes then; on the original SCSI
            // Manager the next accRun does (they come every 30 ticks): within a second.
            let t = ticks_until_flushes(&mut r, flushes + 1, 62);
            assert!(
                (20..=62).contains(&t),
                "{w}: flushed {t} ticks after the last write"
            );
            assert_eq!(
                r.disk().opcode_count(SYNCHRONIZE_CACHE),
                flushes + 1,
                "{w}: one idle flush"
            );
            r.disk().power_loss();
            assert_eq!(r.disk().read_store(lba, 8).unwrap(), data, "{w}: durable");
            // Nothing written since: no more flushes.
            idle(&mut r, 120);
            assert_eq!(r.disk().opcode_count(SYNCHRONIZE_CACHE), flushes + 1, "{w}");
            assert_eq!(lost(&mut r), (0, 0, 0, 0), "{w}: nothing lost");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn idle_flush_zero_means_never() {
    let settings = Settings {
        idle_flush_ticks: 0,
        ..Default::default()
    };
    let disk = disk_with_volumes(driver_blob_with(settings), 1, 3000);
    for rom in ROMS {
        let mut r = boot_disk(CPUS[1], rom, &disk, DiskConfig::default());
        let w = r.what();
        let flushes = r.disk().opcode_count(SYNCHRONIZE_CACHE);
        write_blocks(&mut r, 700, 4, 0x44);
        idle(&mut r, 300);
        assert_eq!(
            r.disk().opcode_count(SYNCHRONIZE_CACHE),
            flushes,
            "{w}: the setting turns the idle flush off"
        );
        // Goodbye still flushes.
        assert_eq!(r.m.shutdown().unwrap(), vec![r.ref_num], "{w}");
        assert_eq!(r.disk().opcode_count(SYNCHRONIZE_CACHE), flushes + 1, "{w}");
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_deferred_error_fails_the_call_that_hears_of_it_and_is_kept() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            // The drive writes one block back on its own before each command.
            let cfg = DiskConfig {
                background_writeback_blocks: 1,
                ..DiskConfig::default()
            };
            let mut r = boot_disk(cpu, rom, &disk, cfg);
            let w = r.what();
            let bad = r.lba(0, 800 * 512);
            r.disk().inject_write_error(bad);
            write_blocks(&mut r, 800, 1, 0x71);
            assert_eq!(lost(&mut r), (0, 0, 0, 0), "{w}: nothing known yet");
            // The next command makes the drive write block 800 back; it fails, and that
            // command hears of it (deferred error): the call fails, the record keeps it.
            assert_eq!(read_result(&mut r, 10), IO_ERR, "{w}: reported");
            assert_eq!(
                lost(&mut r),
                (1, 0x03, 0x0C, bad as u32),
                "{w}: kept: MEDIUM ERROR, write error, the LBA"
            );
            // Reported once; the disk goes on working, the record stays.
            assert_eq!(read_result(&mut r, 10), 0, "{w}");
            write_blocks(&mut r, 20, 2, 0x20);
            assert_eq!(lost(&mut r).0, 1, "{w}: sticky");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn an_idle_flush_that_fails_is_kept() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            let bad = r.lba(0, 900 * 512);
            r.disk().inject_write_error(bad);
            write_blocks(&mut r, 899, 3, 0x55);
            let flushes = r.disk().opcode_count(SYNCHRONIZE_CACHE);
            ticks_until_flushes(&mut r, flushes + 1, 62);
            // (Under SCSI Manager 4.3 its completion comes a little later.)
            idle(&mut r, 5);
            // The flush failed on block 900 (a current error to SYNCHRONIZE CACHE): no
            // caller to tell, so only the record says it.
            assert_eq!(lost(&mut r), (1, 0x03, 0x0C, bad as u32), "{w}");
            assert_eq!(r.disk().cached_blocks(), 0, "{w}: the rest was written");
            assert_eq!(read_result(&mut r, 899), 0, "{w}: the disk still works");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_drive_caching_on_its_own_is_flushed_even_when_the_settings_say_write_through() {
    let settings = Settings {
        write_cache: false,
        ..Default::default()
    };
    let disk = disk_with_volumes(driver_blob_with(settings), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            // WCE on at power-on: the drive caches whatever the driver's settings say.
            let cfg = DiskConfig {
                write_cache_enabled: true,
                ..DiskConfig::default()
            };
            let mut r = boot_disk(cpu, rom, &disk, cfg);
            let w = r.what();
            let lba = r.lba(0, 640 * 512);
            let data = write_blocks(&mut r, 640, 4, 0x66);
            assert_ne!(r.disk().read_store(lba, 4).unwrap(), data, "{w}: cached");
            let flushes = r.disk().opcode_count(SYNCHRONIZE_CACHE);
            ticks_until_flushes(&mut r, flushes + 1, 62);
            r.disk().power_loss();
            assert_eq!(r.disk().read_store(lba, 4).unwrap(), data, "{w}: durable");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_power_loss_under_a_flush_fails_it_and_is_kept() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            let lba = r.lba(0, 610 * 512);
            let data = write_blocks(&mut r, 610, 4, 0x29);
            // The drive loses power as the SYNCHRONIZE CACHE arrives: its cache is gone; the
            // flush sent again past UNIT ATTENTION 29/00 finds nothing to write.
            r.disk().inject_power_loss(1);
            let flushes = r.disk().opcode_count(SYNCHRONIZE_CACHE);
            assert_eq!(
                r.control(Some(0), 43, b"flus").0,
                IO_ERR,
                "{w}: not vouched for"
            );
            assert!(
                r.disk().opcode_count(SYNCHRONIZE_CACHE) > flushes + 1,
                "{w}: sent again past the unit attention"
            );
            assert_ne!(r.disk().read_store(lba, 4).unwrap(), data, "{w}: lost");
            assert_eq!(
                lost(&mut r),
                (1, 0x06, 0x29, u32::MAX),
                "{w}: kept: UNIT ATTENTION 29/00, no LBA"
            );
            // The next flush has nothing to answer for.
            assert_eq!(r.control(Some(0), 43, b"flus").0, 0, "{w}");
            assert_eq!(lost(&mut r).0, 1, "{w}");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_lost_write_past_a_full_count_still_fails_the_flush() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            // 255 flushes the drive fails (HARDWARE ERROR to SYNCHRONIZE CACHE): each one a
            // lost write, and the record's count stops at 255.
            r.disk().inject_opcode_failure(SYNCHRONIZE_CACHE, 0);
            for _ in 0..255 {
                assert_eq!(r.control(Some(0), 43, b"flus").0, IO_ERR, "{w}");
            }
            r.disk().clear_opcode_failure();
            assert_eq!(lost(&mut r), (255, 0x04, 0x44, u32::MAX), "{w}: saturated");
            // Now a power loss under a flush with writes in the cache: a new lost write,
            // which the full count cannot show — the flush must still not vouch for them.
            let lba = r.lba(0, 610 * 512);
            let data = write_blocks(&mut r, 610, 4, 0x5A);
            r.disk().inject_power_loss(1);
            assert_eq!(
                r.control(Some(0), 43, b"flus").0,
                IO_ERR,
                "{w}: a lost write after 255 is not vouched for"
            );
            assert_ne!(r.disk().read_store(lba, 4).unwrap(), data, "{w}: lost");
            assert_eq!(
                lost(&mut r),
                (255, 0x06, 0x29, u32::MAX),
                "{w}: the record names the last one"
            );
            // And a flush with nothing new to answer for vouches again.
            assert_eq!(r.control(Some(0), 43, b"flus").0, 0, "{w}");
        }
    }
}
