//! The Ferrite driver and the drive's write cache: turned on at boot with a correct MODE
//! SELECT, flushed at goodbye so data survives a power loss (and lost without it), left alone
//! when the settings say so or the drive cannot change WCE.

#[path = "support/ferrite.rs"]
mod ferrite;

use std::any::Any;

use ferrite::*;
use ferrite_emu::scsi::{DataPhase, DiskConfig, DiskTarget, ScsiTarget};
use ferrite_emu::scsi_manager;
use ferrite_shared::driver_blob::Settings;

const MODE_SELECT_6: u8 = 0x15;
const MODE_SENSE_6: u8 = 0x1A;
const SYNCHRONIZE_CACHE: u8 = 0x35;
const CACHING: u8 = 0x08;
const WCE: u8 = 0x04;

fn caching_page(t: &DiskTarget) -> (Vec<u8>, Vec<u8>) {
    let p = t
        .mode_pages()
        .get(CACHING)
        .expect("the disk has a caching page");
    (p.current.clone(), p.saved.clone())
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn boot_turns_the_write_cache_on_with_a_correct_mode_select() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let (image, layout) = disk.build();
            let mut t =
                DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
            t.write_store(0, &image).unwrap();
            assert!(!t.write_cache_enabled());
            let (before, _) = caching_page(&t);
            let mut r = boot_target(cpu, rom, t, layout);
            let w = r.what();
            let log = r.bus_log();
            let sel: Vec<_> = log.iter().filter(|e| e.cdb[0] == MODE_SELECT_6).collect();
            assert_eq!(sel.len(), 1, "{w}: one MODE SELECT");
            let s = sel[0];
            assert_eq!(s.status, Some(0), "{w}: the drive accepted the list");
            assert_eq!(s.cdb[1] & 0x10, 0x10, "{w}: PF = 1");
            assert_eq!(
                s.cdb[4] as usize,
                4 + before.len(),
                "{w}: header + the page with its own length"
            );
            assert_eq!(s.data_out_moved, s.cdb[4] as usize, "{w}");
            // MODE SENSE came first, and the page now differs from before only in WCE.
            let first_sense = log.iter().position(|e| e.cdb[0] == MODE_SENSE_6).unwrap();
            let select_at = log.iter().position(|e| e.cdb[0] == MODE_SELECT_6).unwrap();
            assert!(first_sense < select_at, "{w}");
            assert!(r.disk().write_cache_enabled(), "{w}");
            let (after, _) = caching_page(r.disk());
            let mut want = before.clone();
            want[2] |= WCE;
            assert_eq!(after, want, "{w}: only WCE changed");
            // Writes now go to the drive's cache.
            let buf = r.alloc(4096);
            r.m.write_bytes(buf, &[0x5A; 4096]);
            assert_eq!(r.prime(WRITE, 0, FS_FROM_START, 0, buf, 4096).0, 0, "{w}");
            assert!(
                r.disk().cached_blocks() >= 8,
                "{w}: the blocks wait in the cache"
            );
        }
    }
}

fn write_pattern(r: &mut Rig, first_block: u32, byte: u8) -> Vec<u8> {
    let buf = r.alloc(16 * 512);
    let data: Vec<u8> = (0..16 * 512).map(|i| byte ^ (i as u8)).collect();
    r.m.write_bytes(buf, &data);
    assert_eq!(
        r.prime(WRITE, 0, FS_FROM_START, first_block * 512, buf, 16 * 512),
        (0, 16 * 512),
        "{}",
        r.what()
    );
    data
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn data_survives_a_power_loss_after_goodbye_and_is_lost_without_it() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            // With goodbye.
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            let lba = r.lba(0, 500 * 512);
            let data = write_pattern(&mut r, 500, 0x11);
            assert_eq!(r.visible(lba, 16), data, "{w}");
            assert_ne!(
                r.disk().read_store(lba, 16).unwrap(),
                data,
                "{w}: still only in the cache"
            );
            let flushes = r.disk().opcode_count(SYNCHRONIZE_CACHE);
            assert_eq!(r.m.shutdown().unwrap(), vec![r.ref_num], "{w}");
            assert_eq!(
                r.disk().opcode_count(SYNCHRONIZE_CACHE),
                flushes + 1,
                "{w}: goodbye flushed"
            );
            r.disk().power_loss();
            assert_eq!(r.disk().read_store(lba, 16).unwrap(), data, "{w}: durable");
            assert_eq!(r.visible(lba, 16), data, "{w}: durable");

            // Without goodbye the model loses it: the test can tell.
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let old = r.visible(lba, 16);
            let data = write_pattern(&mut r, 500, 0x22);
            r.disk().power_loss();
            assert_eq!(
                r.visible(lba, 16),
                old,
                "{w}: unflushed data is lost at power loss"
            );
            assert_ne!(r.visible(lba, 16), data, "{w}");

            // DriverConfigure 'flus' makes it durable too.
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let data = write_pattern(&mut r, 700, 0x33);
            assert_eq!(r.control(Some(0), 43, b"flus").0, 0, "{w}");
            r.disk().power_loss();
            let lba7 = r.lba(0, 700 * 512);
            assert_eq!(r.visible(lba7, 16), data, "{w}: 'flus' flushed");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn settings_with_the_write_cache_off_send_no_mode_select() {
    let blob = driver_blob_with(Settings {
        write_cache: false,
        ..Default::default()
    });
    let disk = disk_with_volumes(blob, 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            assert_eq!(r.disk().opcode_count(MODE_SELECT_6), 0, "{w}");
            assert!(!r.disk().write_cache_enabled(), "{w}");
            let data = write_pattern(&mut r, 10, 0x44);
            assert_eq!(r.disk().cached_blocks(), 0, "{w}: written through");
            r.disk().power_loss();
            let lba = r.lba(0, 10 * 512);
            assert_eq!(r.visible(lba, 16), data, "{w}");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_settings_block_that_fails_its_check_means_write_through() {
    // The block asks for the cache, but its version is one this driver does not know (a
    // damaged or foreign block): the driver must not trust it and leaves the cache off.
    let mut blob = driver_blob();
    let version_at = ferrite_shared::driver_blob::SETTINGS_OFFSET + 4;
    assert!(Settings::read(&blob).unwrap().write_cache);
    blob[version_at..version_at + 2].copy_from_slice(&9u16.to_be_bytes());
    assert!(Settings::read(&blob).is_err());
    let disk = disk_with_volumes(blob, 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            assert_eq!(r.disk().opcode_count(MODE_SELECT_6), 0, "{w}");
            assert!(!r.disk().write_cache_enabled(), "{w}");
            let data = write_pattern(&mut r, 10, 0x45);
            assert_eq!(r.disk().cached_blocks(), 0, "{w}: written through");
            r.disk().power_loss();
            let lba = r.lba(0, 10 * 512);
            assert_eq!(r.visible(lba, 16), data, "{w}");
        }
    }
}

/// A disk whose caching page says WCE is not changeable.
struct FixedCacheDisk(DiskTarget, bool);

impl ScsiTarget for FixedCacheDisk {
    fn selectable(&mut self) -> bool {
        self.0.selectable()
    }
    fn command(&mut self, lun: u8, cdb: &[u8]) -> DataPhase {
        let changeable = cdb[0] == MODE_SENSE_6 && cdb[2] >> 6 == 1;
        match self.0.command(lun, cdb) {
            DataPhase::In(mut d) if changeable && d.len() > 6 => {
                let at = 4 + d[3] as usize + 2;
                if at < d.len() {
                    d[at] &= !WCE;
                    self.1 = true;
                }
                DataPhase::In(d)
            }
            p => p,
        }
    }
    fn data_out(&mut self, data: &[u8]) {
        self.0.data_out(data)
    }
    fn status(&mut self) -> u8 {
        self.0.status()
    }
    fn busy_ns(&self) -> u64 {
        self.0.busy_ns()
    }
    fn bus_reset(&mut self) {
        self.0.bus_reset()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_drive_that_cannot_change_wce_is_left_as_it_is() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            let (image, _) = disk.build();
            let mut t =
                DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
            t.write_store(0, &image).unwrap();
            let before = caching_page(&t);
            let mut m = new_machine(cpu, rom);
            scsi_manager::bus(&mut m).attach(ID, Box::new(FixedCacheDisk(t, false)));
            let cfg = ferrite_emu::start_manager::BootConfig::new(rom);
            let report = ferrite_emu::start_manager::boot(&mut m, &cfg).unwrap();
            let w = format!("{cpu} {rom:?}");
            assert_eq!(report.drives.len(), 1, "{w}\n{report}");
            let d = scsi_manager::bus(&mut m)
                .target_as::<FixedCacheDisk>(ID)
                .unwrap();
            assert!(d.1, "{w}: the driver asked for the changeable values");
            assert_eq!(d.0.opcode_count(MODE_SELECT_6), 0, "{w}: no MODE SELECT");
            assert_eq!(caching_page(&d.0), before, "{w}: the page is unchanged");
        }
    }
}
