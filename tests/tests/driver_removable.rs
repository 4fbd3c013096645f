//! The Ferrite driver on a removable drive (a SyQuest, a Zip, an SD-card emulator's
//! removable LUN): ejected through the File Manager's `_Eject` (volume off line, then Control
//! 7) and given another medium, or given another medium behind its back; the new medium's
//! partitions are read and posted, and nothing meant for the old medium ever reaches the new
//! one — the File Manager model fails the run on any I/O for a mounted volume that reaches
//! another medium ("misdirected"). Every test runs on the 68000 and the 68040 under both SCSI
//! Managers, and on the Quadra whose SCSI Manager 4.3 extension arrives after the mounts.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::CpuModel;
use ferrite_emu::file_manager;
use ferrite_emu::scsi::{DiskConfig, NotReadyCause};
use ferrite_emu::start_manager::{BootConfig, ExtensionArrival, RomGeneration};
use ferrite_emu::test_disk::TestDisk;

const OFF_LIN_ERR: i16 = -65;
const WRITE_10: u8 = 0x2A;
/// Control `'FM'`: the driver's rescan of the partition map.
const RESCAN: i16 = 0x464D;

/// Boot `disk` on every machine the driver must serve and run `f` on each: the 68000 and
/// 68040 under both SCSI Managers, and the Quadra (68040) whose SCSI Manager 4.3 extension
/// arrives after the volumes are mounted.
fn each_rig(disk: &TestDisk, mut f: impl FnMut(&mut Rig)) {
    for cpu in CPUS {
        for rom in ROMS {
            f(&mut boot_disk(cpu, rom, disk, removable()));
        }
    }
    let mut cfg = BootConfig::new(RomGeneration::Quadra);
    cfg.extension_arrival = ExtensionArrival::AfterMounts;
    let m = new_machine(CpuModel::M68040, RomGeneration::Quadra);
    f(&mut boot_disk_with(m, &cfg, disk, removable()));
}

/// `_Eject` of the volume on drive `number`, run as guest code.
fn eject(r: &mut Rig, number: i16) -> i16 {
    let w = r.what();
    file_manager::call_eject(&mut r.m, number).unwrap_or_else(|e| panic!("{w}: {e}"))
}

/// The volume on drive `number` is mounted and on line.
fn on_line(r: &mut Rig, number: i16) -> bool {
    r.m.state::<file_manager::FileManager>()
        .volumes
        .iter()
        .any(|v| v.online && v.drive == number as u16)
}

/// A synchronous (or, with `IMMED` in `word`, immediate) Prime of `n` blocks at `block` of
/// drive `number`: its result.
fn prime_drive(r: &mut Rig, word: u16, number: i16, block: u32, buf: u32, n: u32) -> i16 {
    let pb = r.pb();
    r.set_io(pb, 0, FS_FROM_START, block * 512, buf, n * 512);
    r.m.write_u16(pb + IO_VREFNUM, number as u16);
    let w = r.what();
    r.m.device_call(word, pb)
        .unwrap_or_else(|e| panic!("{w}: {e}")) as i16
}

/// Our drives now, in drive-queue order.
fn our_drives(r: &mut Rig) -> Vec<i16> {
    let ours = r.ref_num;
    r.m.drives()
        .into_iter()
        .filter(|d| d.ref_num == ours)
        .map(|d| d.number)
        .collect()
}

/// No write reached the medium in the drive now.
fn nothing_written_to_new_medium(r: &mut Rig) -> bool {
    let id = r.disk().medium_id();
    !r.disk()
        .medium_log()
        .iter()
        .any(|a| a.write && a.medium == id)
}

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
    each_rig(&disk, |r| {
        {
            let w = r.what();
            let number = r.drives[0].number;
            assert_eq!(
                r.m.drive(number).unwrap().disk_in_place,
                2,
                "{w}: ejectable"
            );
            assert!(on_line(r, number), "{w}: the volume is mounted at boot");
            // While it is, the drive keeps the medium (PREVENT MEDIUM REMOVAL).
            assert!(r.disk().removal_prevented(), "{w}: removal prevented");
            assert!(
                !r.disk().replace_medium(&image2).unwrap(),
                "{w}: the button does nothing"
            );
            // `_Eject`: the File Manager takes the volume off line, then the driver flushes
            // the drive's cache, allows the removal and ejects the medium.
            assert_eq!(eject(r, number), 0, "{w}: eject");
            assert!(!on_line(r, number), "{w}: the volume is off line");
            assert!(!r.disk().medium_present(), "{w}: ejected");
            assert_eq!(
                r.m.drive(number).unwrap().disk_in_place,
                0,
                "{w}: no disk in place"
            );
            assert_eq!(read(r, 0, 100, 1).0, OFF_LIN_ERR, "{w}: nothing to read");
            // Nothing in the drive: accRun keeps looking, nothing is posted.
            let events = r.m.disk_events().len();
            idle(r, 70);
            assert_eq!(r.m.disk_events().len(), events, "{w}: no medium, no event");
            // Another medium goes in: accRun reads it, the drive serves its first volume,
            // a second drive is added for its second, and both are posted.
            assert!(r.disk().replace_medium(&image2).unwrap(), "{w}");
            idle(r, 70);
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
    });
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_medium_changed_behind_the_drivers_back_gets_no_stale_write() {
    // Issue 25, finding 1. The boot volume is mounted on drive `number`; the medium is
    // changed anyway (a paper-clip eject: PREVENT holds the eject button only). The File
    // Manager still sends that volume's I/O to `number`: it must never reach the new medium,
    // whose volumes get drives of their own.
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    let (image2, starts2) = second_medium();
    each_rig(&disk, |r| {
        let w = r.what();
        let number = r.drives[0].number;
        assert!(on_line(r, number), "{w}: the volume is mounted at boot");
        assert!(
            !r.disk().replace_medium(&image2).unwrap(),
            "{w}: the drive refuses the user's eject while a volume is mounted (PREVENT)"
        );
        r.disk().force_replace_medium(&image2).unwrap();
        let writes = r.disk().opcode_count(WRITE_10);
        // A write for the old volume: the drive answers UNIT ATTENTION 28/00, and the driver
        // must not send it again to the new medium.
        let buf = r.alloc(512);
        r.m.write_bytes(buf, &[0xEE; 512]);
        assert_eq!(
            prime_drive(r, WRITE, number, 100, buf, 1),
            OFF_LIN_ERR,
            "{w}: the write fails"
        );
        assert_eq!(
            r.disk().opcode_count(WRITE_10),
            writes + 1,
            "{w}: not sent again"
        );
        assert_eq!(
            read(r, 0, 100, 1).0,
            OFF_LIN_ERR,
            "{w}: nothing goes to the new medium"
        );
        // accRun reads the new medium: its volumes get new drives, posted; the old volume's
        // drive keeps answering offLinErr while the volume is on line.
        let events = r.m.disk_events().len();
        idle(r, 70);
        assert_eq!(
            prime_drive(r, WRITE, number, 100, buf, 1),
            OFF_LIN_ERR,
            "{w}: the old volume's drive does not serve the new medium"
        );
        assert_eq!(read(r, 0, 100, 1).0, OFF_LIN_ERR, "{w}");
        let new: Vec<i16> = our_drives(r).into_iter().filter(|&n| n != number).collect();
        assert_eq!(
            new.len(),
            2,
            "{w}: a new drive per volume of the new medium: {new:?}"
        );
        let posted: Vec<u32> = r.m.disk_events()[events..].to_vec();
        assert_eq!(
            posted,
            new.iter().map(|&n| n as u32).collect::<Vec<_>>(),
            "{w}: the new drives are posted, the old one is not"
        );
        for (k, &drive) in new.iter().enumerate() {
            let rbuf = r.alloc(512);
            assert_eq!(
                prime_drive(r, READ, drive, 100, rbuf, 1),
                0,
                "{w}: volume {k}"
            );
            assert_eq!(
                r.m.read_bytes(rbuf, 512),
                vec![0xB0 + k as u8; 512],
                "{w}: volume {k}"
            );
        }
        // The new volume mounts beside the old one, and takes writes on its own medium.
        let vref = file_manager::mount(&mut r.m, new[0] as u16).unwrap();
        assert!(vref.is_ok(), "{w}: the new volume mounts: {vref:?}");
        assert_eq!(prime_drive(r, WRITE, new[0], 100, buf, 1), 0, "{w}");
        assert_eq!(
            r.disk().read_visible(starts2[0] as u64 + 100, 1).unwrap(),
            vec![0xEE; 512],
            "{w}: written on the new medium through its own drive"
        );
        assert_eq!(
            prime_drive(r, WRITE, number, 100, buf, 1),
            OFF_LIN_ERR,
            "{w}"
        );
    });
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_rescan_hears_a_medium_change() {
    // Issue 25, finding 2: Control 'FM' (rescan) meets the UNIT ATTENTION 28/00 of a medium
    // changed behind the driver's back; the change must be kept, or the next write for the
    // old volume lands on the new medium.
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    let (image2, _) = second_medium();
    each_rig(&disk, |r| {
        let w = r.what();
        let number = r.drives[0].number;
        r.disk().force_replace_medium(&image2).unwrap();
        assert_eq!(
            r.control(None, RESCAN, &[]).0,
            OFF_LIN_ERR,
            "{w}: the rescan fails"
        );
        let buf = r.alloc(512);
        r.m.write_bytes(buf, &[0xEE; 512]);
        assert_eq!(
            prime_drive(r, WRITE, number, 100, buf, 1),
            OFF_LIN_ERR,
            "{w}: the write after the rescan fails"
        );
        assert!(
            nothing_written_to_new_medium(r),
            "{w}: the new medium is untouched"
        );
    });
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_request_waiting_for_the_drive_sends_nothing_to_a_new_medium() {
    // Issue 25, finding 8: a queued write waits for a drive that is becoming ready (the VBL
    // task will send it again); meanwhile the medium is changed and an immediate read hears
    // the 28/00. The waiting write must end with offLinErr, never go to the new medium.
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    let (image2, _) = second_medium();
    each_rig(&disk, |r| {
        let w = r.what();
        let number = r.drives[0].number;
        let buf = r.alloc(512);
        r.m.write_bytes(buf, &[0xEE; 512]);
        r.disk().inject_not_ready(1, NotReadyCause::BecomingReady);
        let (pb, _) = r.prime_async(WRITE, 0, FS_FROM_START, 100 * 512, buf, 512);
        assert_eq!(
            r.m.read_u16(pb + IO_RESULT),
            1,
            "{w}: the write waits for the drive"
        );
        r.disk().force_replace_medium(&image2).unwrap();
        let rbuf = r.alloc(512);
        assert_eq!(
            prime_drive(r, READ | IMMED, number, 100, rbuf, 1),
            OFF_LIN_ERR,
            "{w}: the immediate read hears the change"
        );
        r.wait_completions(&[pb]);
        assert_eq!(
            r.m.read_u16(pb + IO_RESULT) as i16,
            OFF_LIN_ERR,
            "{w}: the waiting write ends off line"
        );
        assert!(
            nothing_written_to_new_medium(r),
            "{w}: the new medium is untouched"
        );
    });
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_change_no_drive_reports_is_caught_as_a_misdirected_write() {
    // The File Manager model's rule, shown catching a guest: a drive that never reports its
    // new medium (no UNIT ATTENTION) leaves the driver no way to know, and the mounted
    // volume's write lands on the other medium. The run must fail, naming it.
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    let (image2, _) = second_medium();
    each_rig(&disk, |r| {
        let w = r.what();
        let number = r.drives[0].number;
        r.disk().force_replace_medium(&image2).unwrap();
        r.disk().forget_unit_attentions();
        let buf = r.alloc(512);
        let pb = r.pb();
        r.set_io(pb, 0, FS_FROM_START, 100 * 512, buf, 512);
        r.m.write_u16(pb + IO_VREFNUM, number as u16);
        let e =
            r.m.device_call(WRITE, pb)
                .expect_err("the misdirected write fails the run");
        assert!(e.to_string().contains("misdirected I/O"), "{w}: {e}");
    });
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_medium_with_fewer_volumes_leaves_the_extra_drives_empty() {
    // Two volumes, then a medium with one: the second drive stays in the queue (its number
    // is the Finder's, its volume still on line) but has no disk in place and refuses I/O;
    // the first, whose volume `_Eject` took off line, serves the new volume.
    let disk = disk_with_volumes(driver_blob(), 2, 2500);
    let one = disk_with_volumes(driver_blob(), 1, 3000);
    let (mut image1, layout1) = one.build();
    let start1 = layout1.volumes[0].0;
    let at = (start1 as usize + 100) * 512;
    image1[at..at + 512].fill(0xC1);
    each_rig(&disk, |r| {
        {
            let w = r.what();
            assert_eq!(r.drives.len(), 2, "{w}: two volumes at boot");
            let (first, second) = (r.drives[0].number, r.drives[1].number);
            // `_Eject` of the first volume: the medium leaves, the second volume still on
            // line (the user did not put it away).
            assert_eq!(eject(r, first), 0, "{w}: eject the first volume");
            assert!(!r.disk().medium_present(), "{w}: ejected");
            assert!(
                on_line(r, second),
                "{w}: the second volume is still on line"
            );
            let events = r.m.disk_events().len();
            assert!(r.disk().replace_medium(&image1).unwrap(), "{w}");
            idle(r, 70);
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
                read(r, 1, 100, 1).0,
                OFF_LIN_ERR,
                "{w}: the empty drive refuses reads"
            );
            let (e, data) = read(r, 0, 100, 1);
            assert_eq!((e, data), (0, vec![0xC1; 512]), "{w}: the new volume reads");
        }
    });
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
            // it again, the map's last block read into the driver's buffer. The boot volume
            // is still mounted on drive 0, so the medium is served under a new drive.
            r.disk().inject_unit_attention((0x28, 0));
            assert_eq!(read(&mut r, 0, 100, 1).0, OFF_LIN_ERR, "{w}");
            idle(&mut r, 70);
            let buf = r.alloc(512);
            let served = *our_drives(&mut r).last().unwrap();
            assert_ne!(
                served, r.drives[0].number,
                "{w}: not the mounted volume's drive"
            );
            assert_eq!(
                prime_drive(&mut r, READ, served, 100, buf, 1),
                0,
                "{w}: read again"
            );
            assert_eq!(drive_info(&mut r), 0x0601, "{w}");
            // Again, and now INQUIRY answers nothing (short by all its 36 bytes): the disk is
            // still fixed, whatever the buffer held.
            r.disk().inject_unit_attention((0x28, 0));
            assert_eq!(
                prime_drive(&mut r, READ, served, 100, buf, 1),
                OFF_LIN_ERR,
                "{w}"
            );
            r.disk().inject_short_data(1, 36);
            idle(&mut r, 70);
            let served = *our_drives(&mut r).last().unwrap();
            assert_eq!(
                prime_drive(&mut r, READ, served, 100, buf, 1),
                0,
                "{w}: read again"
            );
            assert_eq!(
                drive_info(&mut r),
                0x0601,
                "{w}: a short INQUIRY must not make a fixed disk removable"
            );
        }
    }
}

/// A completion routine that records its call (as the rig's does: D0 at 56, `ioResult` at
/// 58, a count at 60) and then makes two immediate calls to the driver, as a program may
/// from interrupt level: `_Read,IMMED` with the parameter block at 64 (its D0 to 68) and
/// `_Status,IMMED` with the one at 70 (its D0 to 74).
const NESTED_SRC: &str = "
        .text
        .globl  nested
nested:
        move.w  %d0,56(%a0)
        move.w  16(%a0),58(%a0)
        addq.w  #1,60(%a0)
        move.l  %a0,-(%sp)
        movea.l 64(%a0),%a0
        .short  0xA202                  | _Read,IMMED
        movea.l (%sp),%a0
        move.w  %d0,68(%a0)
        movea.l 70(%a0),%a0
        .short  0xA205                  | _Status,IMMED
        movea.l (%sp)+,%a0
        move.w  %d0,74(%a0)
        rts
";

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn immediate_calls_from_a_completion_routine_are_served() {
    // Prime and Status, immediate, from the completion routine of a queued read (at
    // interrupt level under SCSI Manager 4.3, inside IODone on the original), while the
    // driver has nothing of its own in progress: both are served, with the right data.
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    each_rig(&disk, |r| {
        let w = r.what();
        let img = retro68_build::asm::assemble_flat("ferrite_test_nested", NESTED_SRC)
            .expect("assembles");
        let nested = r.m.load(&img).unwrap().symbol("nested").expect("nested");
        let lba = r.lba(0, 0);
        let expect_outer = r.visible(lba + 20, 4);
        let expect_inner = r.visible(lba + 7, 1);
        let (outer_buf, inner_buf) = (r.alloc(4 * 512), r.alloc(512));
        let inner = r.pb();
        r.set_io(inner, 0, FS_FROM_START, 7 * 512, inner_buf, 512);
        let status = r.pb();
        r.m.write_u16(status + IO_VREFNUM, r.drives[0].number as u16);
        r.m.write_u16(status + IO_REFNUM, r.ref_num as u16);
        r.m.write_u16(status + CS_CODE, 8);
        let outer = r.alloc(80);
        r.set_io(outer, 0, FS_FROM_START, 20 * 512, outer_buf, 4 * 512);
        r.m.write_u32(outer + IO_COMPLETION, nested);
        r.m.write_u32(outer + 64, inner);
        r.m.write_u32(outer + 70, status);
        r.m.device_call(READ | ASYNC, outer)
            .unwrap_or_else(|e| panic!("{w}: {e}"));
        r.wait_completions(&[outer]);
        assert_eq!(r.m.read_u16(outer + PB_DONE_D0), 0, "{w}: the queued read");
        assert_eq!(r.m.read_bytes(outer_buf, 4 * 512), expect_outer, "{w}");
        assert_eq!(r.m.read_u16(outer + 68), 0, "{w}: the immediate read");
        assert_eq!(r.m.read_bytes(inner_buf, 512), expect_inner, "{w}");
        assert_eq!(r.m.read_u16(outer + 74), 0, "{w}: the immediate Status");
    });
}
