//! Injected disk faults end in the right Mac error (or are recovered), and nothing the driver
//! acknowledged is lost; both SCSI Manager transports are used as designed.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::{DiskConfig, NotReadyCause};
use ferrite_emu::scsi_manager::{self, ScsiCall};
use ferrite_emu::start_manager::RomGeneration;

const IO_ERR: i16 = -36;
const WPR_ERR: i16 = -44;
const OFF_LIN_ERR: i16 = -65;
const READ_10: u8 = 0x28;
const START_STOP: u8 = 0x1B;

fn rig(cpu: ferrite_emu::CpuModel, rom: RomGeneration) -> Rig {
    // Write-through, so the store shows what was acknowledged.
    let settings = ferrite_shared::driver_blob::Settings {
        write_cache: false,
        ..Default::default()
    };
    rig_with(cpu, rom, settings)
}

fn rig_with(
    cpu: ferrite_emu::CpuModel,
    rom: RomGeneration,
    settings: ferrite_shared::driver_blob::Settings,
) -> Rig {
    let disk = disk_with_volumes(driver_blob_with(settings), 1, 3000);
    let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
    // Known contents.
    let mut rng = Rng(3);
    let lba = r.lba(0, 0);
    let data = rng.bytes(3000 * 512);
    r.disk().write_store(lba, &data).unwrap();
    r
}

/// Read `blocks` at `block`, check the data against the disk; returns (D0, ioActCount).
fn read_check(r: &mut Rig, block: u32, blocks: u32) -> (i16, u32) {
    let buf = r.alloc(blocks * 512);
    let (e, act) = r.prime(READ, 0, FS_FROM_START, block * 512, buf, blocks * 512);
    if e == 0 {
        let lba = r.lba(0, block as u64 * 512);
        let want = r.visible(lba, blocks as u64);
        let got = r.m.read_bytes(buf, blocks * 512);
        let bad = (0..blocks as usize)
            .filter(|&i| got[i * 512..][..512] != want[i * 512..][..512])
            .collect::<Vec<_>>();
        assert!(
            bad.is_empty(),
            "{}: read data: blocks {bad:?} of {block}+{blocks} differ",
            r.what()
        );
    }
    (e, act)
}

fn write_check(r: &mut Rig, block: u32, blocks: u32, byte: u8) -> (i16, u32) {
    let buf = r.alloc(blocks * 512);
    let data = vec![byte; (blocks * 512) as usize];
    r.m.write_bytes(buf, &data);
    let lba = r.lba(0, block as u64 * 512);
    let (e, act) = r.prime(WRITE, 0, FS_FROM_START, block * 512, buf, blocks * 512);
    if e == 0 {
        assert_eq!(act, blocks * 512);
        assert!(
            r.visible(lba, blocks as u64) == data,
            "{}: acknowledged data is on the disk",
            r.what()
        );
    } else {
        assert_eq!(act, 0, "{}: a failed write acknowledges nothing", r.what());
    }
    (e, act)
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn medium_errors_and_write_protect_end_in_mac_errors() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom);
            let w = r.what();
            let lba = r.lba(0, 100 * 512);
            r.disk().inject_read_error(lba + 2);
            let reads = r.disk().opcode_count(READ_10);
            assert_eq!(
                read_check(&mut r, 100, 4),
                (IO_ERR, 0),
                "{w}: read medium error"
            );
            assert_eq!(
                r.disk().opcode_count(READ_10),
                reads + 1,
                "{w}: a medium error is not retried"
            );
            assert_eq!(
                read_check(&mut r, 96, 2),
                (0, 1024),
                "{w}: other blocks read fine"
            );
            r.disk().inject_write_error(lba + 10);
            assert_eq!(
                write_check(&mut r, 108, 4, 0x77),
                (IO_ERR, 0),
                "{w}: write medium error"
            );
            r.disk().clear_medium_errors();
            assert_eq!(write_check(&mut r, 108, 4, 0x78).0, 0, "{w}");

            r.disk().set_write_protected(true);
            let before = r.visible(lba, 4);
            assert_eq!(
                write_check(&mut r, 100, 4, 0x99),
                (WPR_ERR, 0),
                "{w}: write protected"
            );
            assert_eq!(r.visible(lba, 4), before, "{w}");
            assert_eq!(read_check(&mut r, 100, 4).0, 0, "{w}: reads still work");
            r.disk().set_write_protected(false);
            assert_eq!(write_check(&mut r, 100, 4, 0x9A).0, 0, "{w}");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn transient_conditions_are_retried_and_succeed() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom);
            let w = r.what();
            // NOT READY, becoming ready.
            r.disk().inject_not_ready(3, NotReadyCause::BecomingReady);
            let n = r.disk().opcode_count(READ_10);
            assert_eq!(read_check(&mut r, 10, 8), (0, 4096), "{w}: becoming ready");
            assert_eq!(
                r.disk().opcode_count(READ_10),
                n + 4,
                "{w}: three refusals, then the read"
            );
            r.disk().inject_not_ready(2, NotReadyCause::BecomingReady);
            assert_eq!(
                write_check(&mut r, 10, 8, 1),
                (0, 4096),
                "{w}: becoming ready (write)"
            );
            // NOT READY, initializing command required: the driver starts the unit.
            r.disk().inject_not_ready(5, NotReadyCause::NeedsStart);
            let starts = r.disk().opcode_count(START_STOP);
            assert_eq!(read_check(&mut r, 20, 8), (0, 4096), "{w}: needs START");
            assert_eq!(
                r.disk().opcode_count(START_STOP),
                starts + 1,
                "{w}: one START STOP UNIT"
            );
            // BUSY.
            r.disk().inject_busy(3);
            assert_eq!(read_check(&mut r, 30, 2), (0, 1024), "{w}: busy");
            r.disk().inject_busy(2);
            assert_eq!(
                write_check(&mut r, 30, 2, 2),
                (0, 1024),
                "{w}: busy (write)"
            );
            // A bus reset during the command; UNIT ATTENTION afterwards.
            let resets = r.disk().stats().bus_resets;
            r.disk().inject_bus_reset(1);
            assert_eq!(read_check(&mut r, 40, 16), (0, 8192), "{w}: bus reset");
            assert_eq!(
                r.disk().stats().bus_resets,
                resets + 1,
                "{w}: the reset happened"
            );
            r.disk().inject_bus_reset(1);
            assert_eq!(
                write_check(&mut r, 40, 16, 3),
                (0, 8192),
                "{w}: bus reset (write)"
            );
            assert!(
                r.disk().pending_unit_attentions().is_empty(),
                "{w}: the unit attention was consumed"
            );
            // Short data once: retried.
            r.disk().inject_short_data(1, 512);
            assert_eq!(read_check(&mut r, 50, 8), (0, 4096), "{w}: short read once");
            r.disk().inject_short_data(1, 512);
            assert_eq!(
                write_check(&mut r, 50, 8, 4),
                (0, 4096),
                "{w}: short write once"
            );
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn persistent_failures_give_up_with_an_error() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom);
            let w = r.what();
            r.disk().set_offline(true);
            assert_eq!(
                read_check(&mut r, 10, 1),
                (OFF_LIN_ERR, 0),
                "{w}: selection timeout"
            );
            assert_eq!(
                write_check(&mut r, 10, 1, 5),
                (OFF_LIN_ERR, 0),
                "{w}: selection timeout (write)"
            );
            r.disk().set_offline(false);
            assert_eq!(read_check(&mut r, 10, 1).0, 0, "{w}: back on line");
            r.disk().inject_busy(1000);
            assert_eq!(read_check(&mut r, 10, 1), (IO_ERR, 0), "{w}: busy for ever");
            r.disk().inject_busy(0);
            r.disk().inject_short_data(1000, 512);
            assert_eq!(
                read_check(&mut r, 10, 4),
                (IO_ERR, 0),
                "{w}: short for ever"
            );
            assert_eq!(
                write_check(&mut r, 10, 4, 6),
                (IO_ERR, 0),
                "{w}: short for ever (write)"
            );
            r.disk().inject_short_data(0, 0);
            assert_eq!(read_check(&mut r, 10, 4).0, 0, "{w}");
            assert_eq!(write_check(&mut r, 10, 4, 7).0, 0, "{w}");
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn each_rom_uses_its_scsi_manager_as_designed() {
    for cpu in CPUS {
        // SCSI Manager 4.3: an asynchronous SCSIExecIO whose completion routine ends the request.
        let mut r = rig(cpu, RomGeneration::ScsiManager43);
        scsi_manager::clear_calls(&mut r.m);
        let iodone = r.m.device_manager().iodone_count;
        assert_eq!(read_check(&mut r, 0, 4).0, 0);
        let calls = scsi_manager::calls(&mut r.m);
        assert!(
            calls.iter().all(|c| !matches!(c, ScsiCall::Old { .. })),
            "{cpu}: {calls:?}"
        );
        assert!(
            calls.iter().any(|c| matches!(
                c,
                ScsiCall::Action {
                    function: 1,
                    asynchronous: true,
                    result: 0,
                    ..
                }
            )),
            "{cpu}: {calls:?}"
        );
        assert!(
            calls.iter().any(
                |c| matches!(c, ScsiCall::Completion { result: 0, routine, .. } if *routine != 0)
            ),
            "{cpu}"
        );
        assert_eq!(
            r.m.device_manager().iodone_count,
            iodone + 1,
            "{cpu}: finished through IODone"
        );

        // The original SCSI Manager with blind transfers (the `blind` setting; `auto` on
        // every CPU but the 68000): after a blind failure, polled ones.
        let blind = ferrite_shared::driver_blob::Settings {
            write_cache: false,
            transfer: ferrite_shared::driver_blob::TransferMode::Blind,
            ..Default::default()
        };
        let mut r = rig_with(cpu, RomGeneration::OriginalScsiManager, blind);
        scsi_manager::clear_calls(&mut r.m);
        assert_eq!(read_check(&mut r, 0, 4).0, 0);
        assert_eq!(write_check(&mut r, 4, 4, 8).0, 0);
        let names: Vec<&str> = scsi_manager::calls(&mut r.m)
            .iter()
            .filter_map(|c| {
                if let ScsiCall::Old { name, .. } = c {
                    Some(*name)
                } else {
                    None
                }
            })
            .collect();
        assert!(
            names.iter().any(|n| n.contains("RBlind")),
            "{cpu}: {names:?}"
        );
        assert!(
            names.iter().any(|n| n.contains("WBlind")),
            "{cpu}: {names:?}"
        );
        assert!(
            !names.contains(&"SCSIRead") && !names.contains(&"SCSIWrite"),
            "{cpu}: {names:?}"
        );
        r.disk().inject_short_data(1, 512);
        assert_eq!(
            read_check(&mut r, 8, 4),
            (0, 2048),
            "{cpu}: recovered by a polled retry"
        );
        scsi_manager::clear_calls(&mut r.m);
        assert_eq!(read_check(&mut r, 0, 4).0, 0);
        assert_eq!(write_check(&mut r, 4, 4, 9).0, 0);
        let names: Vec<&str> = scsi_manager::calls(&mut r.m)
            .iter()
            .filter_map(|c| {
                if let ScsiCall::Old { name, .. } = c {
                    Some(*name)
                } else {
                    None
                }
            })
            .collect();
        assert!(
            !names.iter().any(|n| n.contains("Blind")),
            "{cpu}: polled for good: {names:?}"
        );
        assert!(
            names.contains(&"SCSIRead") && names.contains(&"SCSIWrite"),
            "{cpu}: {names:?}"
        );
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn a_long_not_ready_is_waited_out_with_a_bound() {
    // A drive that stays "becoming ready" for 12 commands: more than the immediate retries,
    // fewer than the bound. Under SCSI Manager 4.3 the driver waits between tries with its
    // VBL task (time passes, nothing spins); under the original manager it waits in Prime.
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom);
            let w = r.what();
            r.disk().inject_not_ready(12, NotReadyCause::BecomingReady);
            let t0 = r.m.ticks();
            assert_eq!(
                read_check(&mut r, 10, 2),
                (0, 1024),
                "{w}: the read succeeds once the drive is ready"
            );
            let waited = r.m.ticks() - t0;
            assert!(
                waited >= 12 * 30,
                "{w}: the driver waited between tries ({waited} ticks)"
            );
            // A drive that never becomes ready: an error within the bound, not a hang.
            r.disk()
                .inject_not_ready(1000, NotReadyCause::BecomingReady);
            let reads = r.disk().opcode_count(READ_10);
            assert_eq!(read_check(&mut r, 10, 1), (IO_ERR, 0), "{w}: gives up");
            let tries = r.disk().opcode_count(READ_10) - reads;
            assert!(tries <= 50, "{w}: bounded ({tries} tries)");
        }
    }
}

/// A failed transport — a selection nobody answered, a target that took the command and
/// stopped answering — is retried once on both SCSI Managers, and only once: a passing
/// failure is ridden out, a lasting one fails after two tries.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn transport_failures_are_retried_once_on_both_managers() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut r = rig(cpu, rom);
            let w = r.what();
            let refused = r.disk().stats().refused_selections;
            r.disk().inject_selection_timeouts(1);
            assert_eq!(
                read_check(&mut r, 10, 2),
                (0, 1024),
                "{w}: one selection timeout"
            );
            assert_eq!(r.disk().stats().refused_selections, refused + 1, "{w}");
            r.disk().set_offline(true);
            assert_eq!(read_check(&mut r, 10, 2), (OFF_LIN_ERR, 0), "{w}: off line");
            assert_eq!(
                r.disk().stats().refused_selections,
                refused + 3,
                "{w}: off line: two selections, no more"
            );
            r.disk().set_offline(false);
            r.disk().inject_hang(1);
            assert_eq!(read_check(&mut r, 20, 2), (0, 1024), "{w}: one hang");
            r.disk().inject_hang(2);
            assert_eq!(read_check(&mut r, 20, 2), (IO_ERR, 0), "{w}: hung twice");
            r.disk().clear_faults();
            assert_eq!(read_check(&mut r, 20, 2), (0, 1024), "{w}: answers again");
        }
    }
}
