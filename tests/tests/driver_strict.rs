//! The driver under the strict parts of the emulated Mac: a request's parameter block and
//! buffers belong to SCSI Manager 4.3 until its completion; nothing waits for Ticks at
//! interrupt level. Each of these failed with the 0.1.0 driver.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::{DiskConfig, NotReadyCause};
use ferrite_emu::scsi_manager::original::BusyAtInterrupt;
use ferrite_emu::scsi_manager::{self, CompletionTiming};
use ferrite_emu::start_manager::RomGeneration;

const IO_ERR: i16 = -36;

fn rig(cpu: ferrite_emu::CpuModel, rom: RomGeneration) -> (Rig, Vec<u8>) {
    let disk = disk_with_volumes(driver_blob(), 1, 3000);
    let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
    let mut rng = Rng(11);
    let lba = r.lba(0, 0);
    let data = rng.bytes(3000 * 512);
    r.disk().write_store(lba, &data).unwrap();
    (r, data)
}

/// Schedule an asynchronous `_Read` of `count` bytes at `offset` of the first drive into
/// `buf`, made from a level-2 interrupt handler (so the driver's Prime runs at interrupt
/// level), with the recording completion routine; returns its parameter block.
fn read_from_an_interrupt(r: &mut Rig, offset: u32, buf: u32, count: u32) -> u32 {
    let pb = r.pb();
    r.set_io(pb, 0, FS_FROM_START, offset, buf, count);
    let completion = r.completion();
    r.m.write_u32(pb + IO_COMPLETION, completion);
    r.m.schedule_interrupt(
        0,
        2,
        "test: _Read from an interrupt handler",
        Box::new(move |m: &mut ferrite_emu::Machine| {
            let d0 = m.device_call(READ | ASYNC, pb)? as i16;
            assert_eq!(d0, 0, "an asynchronous call returns 0 at once");
            Ok(())
        }),
    );
    pb
}

/// An immediate read and a `'flus'` Control while an asynchronous read is in flight: the
/// driver must not refill the parameter block (or sense buffer) the SIM owns (0.1.0 did: "the
/// guest wrote its parameter block while SCSI Manager 4.3 owned it").
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn immediate_calls_during_an_async_request_use_their_own_parameter_block() {
    for cpu in CPUS {
        let (mut r, data) = rig(cpu, RomGeneration::ScsiManager43);
        scsi_manager::set_completion_timing(&mut r.m, CompletionTiming::BusTime);
        let big = r.alloc(64 * 512);
        let (a, d0) = r.prime_async(READ, 0, FS_FROM_START, 100 * 512, big, 64 * 512);
        assert_eq!(d0, 0, "{}", r.what());
        assert_eq!(
            r.m.read_u16(a + PB_DONE_COUNT),
            0,
            "{}: in flight",
            r.what()
        );
        let small = r.alloc(512);
        let (d0, n) = r.prime(READ | IMMED, 0, FS_FROM_START, 7 * 512, small, 512);
        assert_eq!((d0, n), (0, 512), "{}: immediate read", r.what());
        assert_eq!(
            r.m.read_bytes(small, 512),
            data[7 * 512..8 * 512],
            "{}",
            r.what()
        );
        let (d0, _) = r.cs(CONTROL | IMMED, None, 43, b"flus");
        assert_eq!(d0, 0, "{}: 'flus' while a read is in flight", r.what());
        r.wait_completions(&[a]);
        assert_eq!(r.m.read_u16(a + PB_DONE_D0), 0, "{}", r.what());
        assert_eq!(
            r.m.read_bytes(big, 64 * 512),
            data[100 * 512..164 * 512],
            "{}: the async read's data",
            r.what()
        );
    }
}

/// A read started at interrupt level (an asynchronous `_Read` from an interrupt handler) on
/// the original SCSI Manager, with the drive becoming ready: the driver retries from its VBL
/// task instead of calling `_Delay` there (0.1.0: "_Delay waits 30 ticks at interrupt level").
/// An immediate read that finds the drive not ready fails at once with `ioErr`.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn not_ready_at_interrupt_level_is_retried_later_never_waited_for() {
    for cpu in CPUS {
        for rom in ROMS {
            let (mut r, data) = rig(cpu, rom);
            let buf = r.alloc(8 * 512);
            r.disk().inject_not_ready(3, NotReadyCause::BecomingReady);
            let pb = read_from_an_interrupt(&mut r, 40 * 512, buf, 8 * 512);
            r.wait_completions(&[pb]);
            assert_eq!(r.m.read_u16(pb + PB_DONE_D0), 0, "{}", r.what());
            assert_eq!(
                r.m.read_bytes(buf, 8 * 512),
                data[40 * 512..48 * 512],
                "{}",
                r.what()
            );

            r.disk()
                .inject_not_ready(1000, NotReadyCause::BecomingReady);
            let (d0, _) = r.prime(READ | IMMED, 0, FS_FROM_START, 0, buf, 512);
            assert_eq!(d0, IO_ERR, "{}: immediate, not ready", r.what());
            r.disk().inject_not_ready(0, NotReadyCause::BecomingReady);
        }
    }
}

/// On the original SCSI Manager, a request started at interrupt level finds the bus held by
/// the code it interrupted (`SCSIGet` → `scMgrBusyErr` for the whole interrupt): the driver
/// must not give up (0.1.0 answered `ioErr` after its retries) but try again later, from its
/// VBL task, until the bus is free.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_bus_held_by_interrupted_code_is_retried_later() {
    for cpu in CPUS {
        let (mut r, data) = rig(cpu, RomGeneration::OriginalScsiManager);
        let buf = r.alloc(4 * 512);
        scsi_manager::set_busy_at_interrupt(&mut r.m, BusyAtInterrupt::Always);
        let pb = read_from_an_interrupt(&mut r, 60 * 512, buf, 4 * 512);
        let t0 = r.m.ticks();
        r.m.idle_until(|m| m.ticks() >= t0 + 100, 200, "100 ticks")
            .unwrap();
        assert_eq!(
            r.m.read_u16(pb + PB_DONE_COUNT),
            0,
            "{}: still waiting for the bus",
            r.what()
        );
        scsi_manager::set_busy_at_interrupt(&mut r.m, BusyAtInterrupt::Never);
        r.wait_completions(&[pb]);
        assert_eq!(r.m.read_u16(pb + PB_DONE_D0), 0, "{}", r.what());
        assert_eq!(
            r.m.read_bytes(buf, 4 * 512),
            data[60 * 512..64 * 512],
            "{}",
            r.what()
        );
    }
}

/// Two Ferrite disks on the bus at once: two copies of the driver, each with its own unit,
/// globals and drives, each serving its own disk (the driver keeps no static data).
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn two_ferrite_disks_on_one_bus() {
    use ferrite_emu::scsi::DiskTarget;
    use ferrite_emu::start_manager::{BootConfig, boot};
    for cpu in CPUS {
        for rom in ROMS {
            let mut m = new_machine(cpu, rom);
            let mut contents = Vec::new();
            for (id, seed) in [(2u8, 21u64), (5, 55)] {
                let disk = disk_with_volumes(driver_blob(), 1, 2000);
                let (image, layout) = disk.build();
                let mut t =
                    DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default())
                        .unwrap();
                t.write_store(0, &image).unwrap();
                let data = Rng(seed).bytes(64 * 512);
                let lba = layout.volumes[0].0 as u64 + 100;
                t.write_store(lba, &data).unwrap();
                scsi_manager::bus(&mut m).attach(id, Box::new(t));
                contents.push((id, data));
            }
            let report = boot(&mut m, &BootConfig::new(rom))
                .unwrap_or_else(|e| panic!("{cpu} {rom:?}: {e}"));
            let drivers: Vec<_> = report.drivers().cloned().collect();
            assert_eq!(drivers.len(), 2, "{cpu} {rom:?}:\n{report}");
            let refs: Vec<i16> = drivers.iter().map(|d| d.ref_num.unwrap()).collect();
            assert_ne!(refs[0], refs[1], "{cpu} {rom:?}: one unit each");
            assert_eq!(report.drives.len(), 2, "{report}");
            for (id, data) in &contents {
                let d = drivers.iter().find(|d| d.id == *id).unwrap();
                let drive = report
                    .drives
                    .iter()
                    .find(|q| Some(q.ref_num) == d.ref_num)
                    .unwrap();
                let buf = m
                    .new_ptr(ferrite_emu::ZoneId::System, 64 * 512, true)
                    .unwrap();
                let pb = m
                    .new_ptr(ferrite_emu::ZoneId::System, PB_SIZE, true)
                    .unwrap();
                m.write_u16(pb + IO_VREFNUM, drive.number as u16);
                m.write_u16(pb + IO_REFNUM, drive.ref_num as u16);
                m.write_u32(pb + IO_BUFFER, buf);
                m.write_u32(pb + IO_REQ_COUNT, 64 * 512);
                m.write_u16(pb + IO_POS_MODE, FS_FROM_START);
                m.write_u32(pb + IO_POS_OFFSET, 100 * 512);
                let d0 = m.device_call(READ, pb).unwrap() as i16;
                assert_eq!(d0, 0, "{cpu} {rom:?} ID {id}");
                assert_eq!(&m.read_bytes(buf, 64 * 512), data, "{cpu} {rom:?} ID {id}");
            }
        }
    }
}

/// A drive that takes a command and stops answering: under SCSI Manager 4.3 the driver's
/// `scsiTimeout` ends the command (0.1.0 set none: the request, and the Mac, waited for
/// ever), on the original SCSI Manager `SCSIComplete`'s own timeout; either way the bus is
/// reset and the driver sends the command once more, which succeeds. The next requests work.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_drive_that_stops_answering_does_not_hang_the_mac() {
    for cpu in CPUS {
        for rom in ROMS {
            let (mut r, data) = rig(cpu, rom);
            let buf = r.alloc(4 * 512);
            r.disk().inject_hang(1);
            let t0 = r.m.ticks();
            let pb = r.pb();
            r.set_io(pb, 0, FS_FROM_START, 80 * 512, buf, 4 * 512);
            let completion = r.completion();
            r.m.write_u32(pb + IO_COMPLETION, completion);
            let d0 = r.m.device_call(READ | ASYNC, pb).unwrap() as i16;
            assert_eq!(d0, 0, "{}", r.what());
            r.m.idle_until(
                move |m| m.read_u16(pb + PB_DONE_COUNT) > 0,
                60 * 60,
                "the read of a drive that stopped answering",
            )
            .unwrap_or_else(|e| panic!("{}: {e}", r.what()));
            let waited = r.m.ticks() - t0;
            let result = r.m.read_u16(pb + PB_DONE_D0) as i16;
            if rom == RomGeneration::ScsiManager43 {
                assert!(
                    waited >= 60 * 20 - 2,
                    "{}: after the 20 s timeout ({waited} ticks)",
                    r.what()
                );
            }
            assert_eq!(result, 0, "{}: retried after the timeout", r.what());
            assert_eq!(
                r.m.read_bytes(buf, 4 * 512),
                data[80 * 512..84 * 512],
                "{}",
                r.what()
            );
            let (d0, n) = r.prime(READ, 0, FS_FROM_START, 80 * 512, buf, 4 * 512);
            assert_eq!(
                (d0, n),
                (0, 4 * 512),
                "{}: the drive answers again",
                r.what()
            );
            assert_eq!(
                r.m.read_bytes(buf, 4 * 512),
                data[80 * 512..84 * 512],
                "{}",
                r.what()
            );
        }
    }
}
