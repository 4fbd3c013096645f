//! The Ferrite driver on a removable drive (a SyQuest, a Zip, an SD-card emulator's
//! removable LUN): ejected with Control 7 and given another medium, or given another medium
//! behind its back; the new medium's partitions are read and posted, and nothing meant for
//! the old medium ever reaches the new one.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::DiskConfig;

const OFF_LIN_ERR: i16 = -65;
const WRITE_10: u8 = 0x2A;

fn removable() -> DiskConfig {
    DiskConfig {
        removable: true,
        ..DiskConfig::default()
    }
}

/// Let `ticks` pass in the Finder's event loop (accRun runs from `SystemTask`).
fn idle(r: &mut Rig, ticks: u32) {
    let w = r.what();
    r.m.run_event_loop(ticks)
        .unwrap_or_else(|e| panic!("{w}: {e}"));
}

fn read(r: &mut Rig, drive: usize, block: u32, n: u32) -> (i16, Vec<u8>) {
    let buf = r.alloc(n * 512);
    let (e, _) = r.prime(READ, drive, FS_FROM_START, block * 512, buf, n * 512);
    (e, r.m.read_bytes(buf, n * 512))
}

/// The second medium: two volumes of other sizes, with a pattern in each volume's block 100.
fn second_medium() -> (Vec<u8>, Vec<u32>) {
    let disk = disk_with_volumes(driver_blob(), 2, 2500);
    let (mut image, layout) = disk.build();
    let starts: Vec<u32> = layout.volumes.iter().map(|v| v.0).collect();
    for (k, &start) in starts.iter().enumerate() {
        let at = (start as usize + 100) * 512;
        image[at..at + 512].fill(0xB0 + k as u8);
    }
    (image, starts)
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn an_ejected_medium_is_replaced_and_its_partitions_posted() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    let (image2, starts2) = second_medium();
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, removable());
            let w = r.what();
            let number = r.drives[0].number;
            assert_eq!(
                r.m.drive(number).unwrap().disk_in_place,
                2,
                "{w}: ejectable"
            );
            // Eject: the drive's cache is flushed, the medium leaves, the drive is empty.
            assert_eq!(r.control(Some(0), 7, &[]).0, 0, "{w}: eject");
            assert!(!r.disk().medium_present(), "{w}: ejected");
            assert_eq!(
                r.m.drive(number).unwrap().disk_in_place,
                0,
                "{w}: no disk in place"
            );
            assert_eq!(
                read(&mut r, 0, 100, 1).0,
                OFF_LIN_ERR,
                "{w}: nothing to read"
            );
            // Nothing in the drive: accRun keeps looking, nothing is posted.
            let events = r.m.disk_events().len();
            idle(&mut r, 70);
            assert_eq!(r.m.disk_events().len(), events, "{w}: no medium, no event");
            // Another medium goes in: accRun reads it, the drive serves its first volume,
            // a second drive is added for its second, and both are posted.
            assert!(r.disk().replace_medium(&image2).unwrap(), "{w}");
            idle(&mut r, 70);
            let posted = r.m.disk_events()[events..].to_vec();
            let d0 = r.m.drive(number).unwrap();
            assert_eq!(d0.disk_in_place, 2, "{w}: a disk in place again");
            assert_eq!(d0.blocks, 2500, "{w}: the new partition's size");
            let ours: Vec<_> =
                r.m.drives()
                    .into_iter()
                    .filter(|d| d.ref_num == r.ref_num)
                    .collect();
            assert_eq!(
                ours.len(),
                2,
                "{w}: one drive per HFS partition of the new medium"
            );
            let second = ours.iter().find(|d| d.number != number).unwrap().number;
            assert_eq!(
                posted,
                vec![number as u32, second as u32],
                "{w}: both posted"
            );
            // The drives read the new medium.
            for (k, &start) in starts2.iter().enumerate() {
                let drive = if k == 0 { number } else { second };
                let buf = r.alloc(512);
                let pb = r.pb();
                r.set_io(pb, 0, FS_FROM_START, 100 * 512, buf, 512);
                r.m.write_u16(pb + IO_VREFNUM, drive as u16);
                let e = r.m.device_call(READ, pb).unwrap() as i16;
                assert_eq!(e, 0, "{w}: volume {k}");
                assert_eq!(
                    r.m.read_bytes(buf, 512),
                    vec![0xB0 + k as u8; 512],
                    "{w}: volume {k} of the new medium"
                );
                assert_eq!(
                    r.disk().read_visible(start as u64 + 100, 1).unwrap(),
                    vec![0xB0 + k as u8; 512],
                    "{w}"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_medium_changed_behind_the_drivers_back_gets_no_stale_write() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    let (image2, starts2) = second_medium();
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, removable());
            let w = r.what();
            // The user swaps the medium without asking the Mac (nothing prevents it).
            assert!(r.disk().replace_medium(&image2).unwrap(), "{w}");
            let writes = r.disk().opcode_count(WRITE_10);
            // A write meant for the old medium: the drive answers UNIT ATTENTION 28/00, and
            // the driver must not send it again to the new one.
            let buf = r.alloc(512);
            r.m.write_bytes(buf, &[0xEE; 512]);
            let (e, _) = r.prime(WRITE, 0, FS_FROM_START, 100 * 512, buf, 512);
            assert_eq!(e, OFF_LIN_ERR, "{w}: the write fails");
            assert_eq!(
                r.disk().opcode_count(WRITE_10),
                writes + 1,
                "{w}: the write was not sent again"
            );
            assert_ne!(
                r.disk().read_visible(starts2[0] as u64 + 100, 1).unwrap(),
                vec![0xEE; 512],
                "{w}: nothing written to the new medium"
            );
            // Until accRun has read the new medium, nothing goes to it.
            assert_eq!(read(&mut r, 0, 100, 1).0, OFF_LIN_ERR, "{w}");
            assert_eq!(r.disk().opcode_count(WRITE_10), writes + 1, "{w}");
            idle(&mut r, 70);
            let (e, data) = read(&mut r, 0, 100, 1);
            assert_eq!(e, 0, "{w}: the new medium is served");
            assert_eq!(data, vec![0xB0; 512], "{w}: its first volume");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_medium_with_fewer_volumes_leaves_the_extra_drives_empty() {
    // Two volumes, then a medium with one: the second drive stays in the queue (its number
    // is the Finder's) but has no disk in place and refuses I/O; the first serves the new
    // volume.
    let disk = disk_with_volumes(driver_blob(), 2, 2500);
    let one = disk_with_volumes(driver_blob(), 1, 3000);
    let (mut image1, layout1) = one.build();
    let start1 = layout1.volumes[0].0;
    let at = (start1 as usize + 100) * 512;
    image1[at..at + 512].fill(0xC1);
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = boot_disk(cpu, rom, &disk, removable());
            let w = r.what();
            assert_eq!(r.drives.len(), 2, "{w}: two volumes at boot");
            let (first, second) = (r.drives[0].number, r.drives[1].number);
            assert_eq!(r.control(Some(0), 7, &[]).0, 0, "{w}: eject");
            let events = r.m.disk_events().len();
            assert!(r.disk().replace_medium(&image1).unwrap(), "{w}");
            idle(&mut r, 70);
            let d0 = r.m.drive(first).unwrap();
            assert_eq!(
                (d0.disk_in_place, d0.blocks),
                (2, 3000),
                "{w}: the first drive serves the new medium's volume"
            );
            let d1 = r.m.drive(second).expect("the second drive stays queued");
            assert_eq!(d1.disk_in_place, 0, "{w}: the second drive is empty");
            assert_eq!(
                r.m.disk_events()[events..].to_vec(),
                vec![first as u32],
                "{w}: only the volume that exists is posted"
            );
            assert_eq!(
                read(&mut r, 1, 100, 1).0,
                OFF_LIN_ERR,
                "{w}: the empty drive refuses reads"
            );
            let (e, data) = read(&mut r, 0, 100, 1);
            assert_eq!((e, data), (0, vec![0xC1; 512]), "{w}: the new volume reads");
        }
    }
}

/// Control 23 (drive info) of the first drive: $0601 for a fixed SCSI disk, $0201 removable.
fn drive_info(r: &mut Rig) -> u32 {
    let (e, p) = r.control(Some(0), 23, &[]);
    assert_eq!(e, 0, "{}: Control 23", r.what());
    u32::from_be_bytes([p[0], p[1], p[2], p[3]])
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_short_inquiry_on_a_new_reading_keeps_no_stale_removable_bit() {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    for cpu in CPUS {
        for rom in ROMS {
            // A fixed disk (RMB 0).
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let w = r.what();
            assert_eq!(drive_info(&mut r), 0x0601, "{w}: fixed at install");
            // The map claims one entry more than it has; that block is not an entry and its
            // byte 1 has bit 7 set (INQUIRY's RMB, were it INQUIRY data).
            let n =
                u32::from_be_bytes(r.disk().read_store(1, 1).unwrap()[4..8].try_into().unwrap());
            for b in 1..=n as u64 {
                let mut e = r.disk().read_store(b, 1).unwrap();
                e[4..8].copy_from_slice(&(n + 1).to_be_bytes());
                r.disk().write_store(b, &e).unwrap();
            }
            let mut odd = vec![0u8; 512];
            odd[1] = 0x80;
            r.disk().write_store(n as u64 + 1, &odd).unwrap();
            // The drive says its medium may have changed (UNIT ATTENTION 28/00): accRun reads
            // it again, the map's last block read into the driver's buffer.
            r.disk().inject_unit_attention((0x28, 0));
            assert_eq!(read(&mut r, 0, 100, 1).0, OFF_LIN_ERR, "{w}");
            idle(&mut r, 70);
            assert_eq!(read(&mut r, 0, 100, 1).0, 0, "{w}: read again");
            assert_eq!(drive_info(&mut r), 0x0601, "{w}");
            // Again, and now INQUIRY answers nothing (short by all its 36 bytes): the disk is
            // still fixed, whatever the buffer held.
            r.disk().inject_unit_attention((0x28, 0));
            assert_eq!(read(&mut r, 0, 100, 1).0, OFF_LIN_ERR, "{w}");
            r.disk().inject_short_data(1, 36);
            idle(&mut r, 70);
            assert_eq!(read(&mut r, 0, 100, 1).0, 0, "{w}: read again");
            assert_eq!(
                drive_info(&mut r),
                0x0601,
                "{w}: a short INQUIRY must not make a fixed disk removable"
            );
        }
    }
}
