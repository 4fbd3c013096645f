//! Tests added for driver mutants that every other suite let through (`docs/MUTANTS.md`,
//! "Survivors explained"): each names the mutant it kills.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::DiskConfig;
use ferrite_emu::start_manager::RomGeneration;
use ferrite_shared::driver_blob::Settings;

const READ_10: u8 = 0x28;
const WRITE_10: u8 = 0x2A;

/// The drive queue's lock bit (`writeProt` bit 7) follows the drive's write protection, which
/// the driver reads at install (MODE SENSE's WP bit): a writable disk's drives are not
/// locked, a write-protected disk's are. Kills `install.rs: replace != with == in open_disk`
/// (the WP bit read backwards).
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn the_drive_queue_lock_follows_the_drives_write_protection() {
    for cpu in CPUS {
        for rom in ROMS {
            for protected in [false, true] {
                let disk = disk_with_volumes(driver_blob(), 1, 2000);
                let cfg = DiskConfig {
                    write_protected: protected,
                    ..DiskConfig::default()
                };
                let r = boot_disk(cpu, rom, &disk, cfg);
                assert!(!r.drives.is_empty(), "{}: no drive", r.what());
                for d in &r.drives {
                    assert_eq!(
                        d.locked(),
                        protected,
                        "{}: drive {} of a {} disk",
                        r.what(),
                        d.number,
                        if protected {
                            "write-protected"
                        } else {
                            "writable"
                        }
                    );
                }
            }
        }
    }
}

/// An immediate request on the original SCSI Manager, with a cap of 4 blocks per command,
/// goes as several commands, each to or from its own part of the caller's buffer: ten blocks
/// written, then read back into a cleared buffer, equal what was written. Kills
/// `prime.rs: replace += with -= in prime_now` (each chunk after the first at the wrong
/// place in the buffer).
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn an_immediate_request_over_the_cap_moves_every_chunk_to_its_place() {
    for cpu in CPUS {
        let settings = Settings {
            write_cache: false,
            max_blocks_old: 4,
            ..Default::default()
        };
        let disk = disk_with_volumes(driver_blob_with(settings), 1, 3000);
        let mut r = boot_disk(
            cpu,
            RomGeneration::OriginalScsiManager,
            &disk,
            DiskConfig::default(),
        );
        let w = r.what();
        let len = 10 * 512;
        let buf = r.alloc(len);
        let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 512) as u8).collect();
        r.m.write_bytes(buf, &data);
        let writes = r.disk().opcode_count(WRITE_10);
        assert_eq!(
            r.prime(WRITE | IMMED, 0, FS_FROM_START, 100 * 512, buf, len),
            (0, len),
            "{w}: immediate write"
        );
        assert_eq!(
            r.disk().opcode_count(WRITE_10) - writes,
            3,
            "{w}: 4 + 4 + 2 blocks"
        );
        let lba = r.lba(0, 100 * 512);
        assert!(r.visible(lba, 10) == data, "{w}: the disk holds the buffer");
        r.m.write_bytes(buf, &vec![0; len as usize]);
        let reads = r.disk().opcode_count(READ_10);
        assert_eq!(
            r.prime(READ | IMMED, 0, FS_FROM_START, 100 * 512, buf, len),
            (0, len),
            "{w}: immediate read"
        );
        assert_eq!(r.disk().opcode_count(READ_10) - reads, 3, "{w}");
        assert!(
            r.m.read_bytes(buf, len) == data,
            "{w}: the buffer holds the disk"
        );
    }
}
