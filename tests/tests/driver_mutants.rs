//! Tests added for driver mutants that every other suite let through (`docs/MUTANTS.md`,
//! "Survivors explained"): each names the mutant it kills.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::DiskConfig;

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
