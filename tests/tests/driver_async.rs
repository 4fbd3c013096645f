//! Asynchronous requests to the Ferrite driver: completion routines with the right result,
//! several requests queued at once, and KillIO.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::DiskConfig;
use ferrite_emu::scsi_manager::{self, CompletionTiming};
use ferrite_emu::start_manager::RomGeneration;

const CONTROL_ERR: i16 = -17;
const ABORT_ERR: i16 = -27;
const IO_ERR: i16 = -36;

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn queued_async_requests_complete_in_order_with_their_results() {
    for cpu in CPUS {
        for rom in ROMS {
            let disk = disk_with_volumes(driver_blob(), 2, 4000);
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let mut rng = Rng(99);
            let bufs: Vec<u32> = (0..4).map(|_| r.alloc(64 * 512)).collect();
            let data: Vec<Vec<u8>> = (0..4).map(|_| rng.bytes(64 * 512)).collect();
            for (b, d) in bufs.iter().zip(&data) {
                r.m.write_bytes(*b, d);
            }
            let out = r.alloc(64 * 512);
            // Two writes on each drive, a read, and a bad request (paramErr) in the queue.
            let mut pbs = Vec::new();
            for (i, &b) in bufs.iter().enumerate() {
                let (pb, d0) = r.prime_async(
                    WRITE,
                    i % 2,
                    FS_FROM_START,
                    (1000 + 100 * i as u32) * 512,
                    b,
                    64 * 512,
                );
                assert_eq!(d0, 0, "{}: an async call returns 0 at once", r.what());
                pbs.push(pb);
            }
            let (bad, _) = r.prime_async(READ, 0, FS_FROM_START, 4000 * 512, out, 512);
            let (rd, _) = r.prime_async(READ, 1, FS_FROM_START, 1100 * 512, out, 64 * 512);
            pbs.push(bad);
            pbs.push(rd);
            // Unless the completions came inside SCSIAction (seeded), the first request is
            // still in flight and the others wait behind it.
            if rom == RomGeneration::ScsiManager43 && r.m.read_u16(pbs[0] + PB_DONE_COUNT) == 0 {
                assert_eq!(
                    r.m.read_u16(pbs[3] + IO_RESULT),
                    1,
                    "{}: queued behind a request in flight",
                    r.what()
                );
            }
            r.wait_completions(&pbs);
            for (i, &pb) in pbs.iter().enumerate() {
                let want = if pb == bad { -50 } else { 0 };
                let what = format!("{} request {i}", r.what());
                assert_eq!(
                    r.m.read_u16(pb + PB_DONE_COUNT),
                    1,
                    "{what}: completion ran once"
                );
                assert_eq!(
                    r.m.read_u16(pb + PB_DONE_D0) as i16,
                    want,
                    "{what}: D0 at completion"
                );
                assert_eq!(
                    r.m.read_u16(pb + PB_DONE_IORESULT) as i16,
                    want,
                    "{what}: ioResult at completion"
                );
                if want == 0 {
                    assert_eq!(r.m.read_u32(pb + IO_ACT_COUNT), 64 * 512, "{what}");
                }
            }
            for (i, d) in data.iter().enumerate() {
                let lba = r.lba(i % 2, (1000 + 100 * i as u64) * 512);
                assert!(r.visible(lba, 64) == *d, "{} write {i}", r.what());
            }
            assert!(
                r.m.read_bytes(out, 64 * 512) == data[1],
                "{}: the read came after the write queued before it",
                r.what()
            );
            let dm = r.m.device_manager();
            assert!(
                dm.iodone_count >= 6,
                "every queued request went through IODone"
            );
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn an_async_error_reaches_the_completion_routine() {
    for cpu in CPUS {
        for rom in ROMS {
            let disk = disk_with_volumes(driver_blob(), 1, 4000);
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let lba = r.lba(0, 10 * 512);
            r.disk().inject_read_error(lba + 3);
            let buf = r.alloc(8 * 512);
            let (pb, d0) = r.prime_async(READ, 0, FS_FROM_START, 10 * 512, buf, 8 * 512);
            assert_eq!(d0, 0, "{}", r.what());
            r.wait_completions(&[pb]);
            assert_eq!(r.m.read_u16(pb + PB_DONE_D0) as i16, IO_ERR, "{}", r.what());
            assert_eq!(r.m.read_u16(pb + IO_RESULT) as i16, IO_ERR, "{}", r.what());
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn killio_refuses_while_a_command_is_in_flight_and_aborts_pending_requests_otherwise() {
    for cpu in CPUS {
        for rom in ROMS {
            let disk = disk_with_volumes(driver_blob(), 1, 4000);
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let buf = r.alloc(64 * 512);
            // Nothing queued: KillIO is 0.
            let kill = r.pb();
            r.m.write_u16(kill + IO_REFNUM, r.ref_num as u16);
            assert_eq!(
                r.m.device_call(KILLIO, kill).unwrap() as i16,
                0,
                "{}: idle",
                r.what()
            );

            if rom == RomGeneration::ScsiManager43 {
                // A command in flight: the driver refuses, the requests go on.
                // (A completion may come inside SCSIAction: whether a command is still in
                // flight depends on the seed; while one is, KillIO must refuse.)
                let (a, _) = r.prime_async(READ, 0, FS_FROM_START, 0, buf, 64 * 512);
                let (b, _) = r.prime_async(READ, 0, FS_FROM_START, 64 * 512, buf, 64 * 512);
                let outstanding =
                    r.m.read_u16(a + PB_DONE_COUNT) == 0 || r.m.read_u16(b + PB_DONE_COUNT) == 0;
                assert_eq!(
                    r.m.device_call(KILLIO, kill).unwrap() as i16,
                    if outstanding { CONTROL_ERR } else { 0 },
                    "{}: in flight: {outstanding}",
                    r.what()
                );
                r.wait_completions(&[a, b]);
                assert_eq!(r.m.read_u16(a + PB_DONE_D0), 0, "{}", r.what());
                assert_eq!(r.m.read_u16(b + PB_DONE_D0), 0, "{}", r.what());

                // Requests pending, nothing in flight: from the first request's completion
                // routine (IODone has dequeued it; the next one has not started yet). The
                // first must complete after the others are queued: bus-time completions.
                scsi_manager::set_completion_timing(&mut r.m, CompletionTiming::BusTime);
                let (a, _) = r.prime_async(READ, 0, FS_FROM_START, 0, buf, 8 * 512);
                let kc = r.kill_completion();
                r.m.write_u32(a + IO_COMPLETION, kc);
                r.m.write_u32(a + PB_KILL_PB, kill);
                let (b, _) = r.prime_async(READ, 0, FS_FROM_START, 8 * 512, buf, 8 * 512);
                let (c, _) = r.prime_async(WRITE, 0, FS_FROM_START, 16 * 512, buf, 8 * 512);
                r.clear_bus_log();
                let writes_before = r.disk().opcode_count(0x2A);
                r.wait_completions(&[a, b, c]);
                assert_eq!(r.m.read_u16(a + PB_DONE_D0), 0, "{}", r.what());
                assert_eq!(
                    r.m.read_u16(a + PB_KILL_D0) as i16,
                    0,
                    "{}: KillIO between requests",
                    r.what()
                );
                for p in [b, c] {
                    assert_eq!(
                        r.m.read_u16(p + PB_DONE_D0) as i16,
                        ABORT_ERR,
                        "{}",
                        r.what()
                    );
                    assert_eq!(
                        r.m.read_u16(p + IO_RESULT) as i16,
                        ABORT_ERR,
                        "{}",
                        r.what()
                    );
                }
                assert_eq!(
                    r.disk().opcode_count(0x2A),
                    writes_before,
                    "{}: the aborted write never ran",
                    r.what()
                );
                // The driver still works afterwards.
                assert_eq!(
                    r.prime(READ, 0, FS_FROM_START, 0, buf, 512),
                    (0, 512),
                    "{}",
                    r.what()
                );
            } else {
                // The original SCSI Manager is synchronous: an async call is done on return.
                let (a, d0) = r.prime_async(READ, 0, FS_FROM_START, 0, buf, 8 * 512);
                assert_eq!(d0, 0);
                assert_eq!(
                    r.m.read_u16(a + PB_DONE_COUNT),
                    1,
                    "{}: completed within the call",
                    r.what()
                );
                assert_eq!(
                    r.m.device_call(KILLIO, kill).unwrap() as i16,
                    0,
                    "{}",
                    r.what()
                );
            }
        }
    }
}
