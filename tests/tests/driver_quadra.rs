//! The commonest real Quadra (700/800/900/950, 610/650, Centris): the ROM's original SCSI
//! Manager boots the driver through the +0 entry, and SCSI Manager 4.3 arrives later with
//! System 7.5's extension (TIL 17019). The driver must move to asynchronous 4.3 I/O without a
//! restart — registering its cross-reference at application level (`accRun`), switching when a
//! request starts with nothing in flight — and lose nothing that was in flight at the arrival.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::os_utils::ostype;
use ferrite_emu::scsi::{DiskConfig, NotReadyCause};
use ferrite_emu::scsi_manager::v43::SCSI_EXEC_IO;
use ferrite_emu::scsi_manager::{self, ArrivalXrefs, ScsiCall};
use ferrite_emu::start_manager::{
    BootConfig, DriverEntry, ExtensionArrival, RomGeneration, ScanOutcome, boot,
};
use ferrite_emu::{CpuModel, Machine};

/// `SCSICreateRefNumXref`.
const CREATE_XREF: u8 = 0x85;
/// `SCSIGetVirtualIDInfo`.
const GET_VIRTUAL_ID_INFO: u8 = 0x80;

fn quadra_config(arrival: ExtensionArrival, xrefs: ArrivalXrefs) -> BootConfig {
    let mut cfg = BootConfig::new(RomGeneration::Quadra);
    cfg.extension_arrival = arrival;
    cfg.extension_xrefs = xrefs;
    cfg
}

fn quadra_rig(arrival: ExtensionArrival, xrefs: ArrivalXrefs) -> Rig {
    let disk = disk_with_volumes(driver_blob(), 2, 3000);
    let m = new_machine(CpuModel::M68040, RomGeneration::Quadra);
    boot_disk_with(
        m,
        &quadra_config(arrival, xrefs),
        &disk,
        DiskConfig::default(),
    )
}

/// Transfers (not the XRef calls) in the call record: `true` for a 4.3 `SCSIExecIO`, `false`
/// for an original-SCSI-Manager transaction (counted at its `SCSICmd`).
const SYNCHRONIZE_CACHE: u8 = 0x35;

fn transports(calls: &[ScsiCall]) -> Vec<bool> {
    calls
        .iter()
        .filter_map(|c| match c {
            ScsiCall::Action { function, .. } if *function == SCSI_EXEC_IO => Some(true),
            ScsiCall::Old {
                name: "SCSICmd", ..
            } => Some(false),
            _ => None,
        })
        .collect()
}

/// Once a transfer went through SCSI Manager 4.3, none goes through the old API again.
fn assert_switched_once(what: &str, calls: &[ScsiCall]) {
    let t = transports(calls);
    if let Some(first) = t.iter().position(|&v43| v43) {
        assert!(
            t[first..].iter().all(|&v43| v43),
            "{what}: an original-SCSI-Manager transfer after the switch: {t:?}"
        );
    }
}

/// Read `blocks` at `block` of drive 0 synchronously and compare with the disk.
fn read_check(r: &mut Rig, block: u32, blocks: u32) {
    let buf = r.alloc(blocks * 512);
    let (e, act) = r.prime(READ, 0, FS_FROM_START, block * 512, buf, blocks * 512);
    assert_eq!(
        (e, act),
        (0, blocks * 512),
        "{}: read {block}+{blocks}",
        r.what()
    );
    let want = r.visible(r.lba(0, block as u64 * 512), blocks as u64);
    assert!(
        r.m.read_bytes(buf, blocks * 512) == want,
        "{}: read {block}+{blocks}: data differ",
        r.what()
    );
}

/// Write `blocks` of `byte` at `block` of drive 0 synchronously and check the disk.
fn write_check(r: &mut Rig, block: u32, blocks: u32, byte: u8) {
    let buf = r.alloc(blocks * 512);
    r.m.write_bytes(buf, &vec![byte; (blocks * 512) as usize]);
    let (e, act) = r.prime(WRITE, 0, FS_FROM_START, block * 512, buf, blocks * 512);
    assert_eq!(
        (e, act),
        (0, blocks * 512),
        "{}: write {block}+{blocks}",
        r.what()
    );
    let got = r.visible(r.lba(0, block as u64 * 512), blocks as u64);
    assert!(
        got.iter().all(|&b| b == byte),
        "{}: write {block}+{blocks}: not on the disk",
        r.what()
    );
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn installed_through_plus_0_then_moves_to_scsi_manager_43_when_it_arrives() {
    for arrival in [
        ExtensionArrival::AfterBootVolume,
        ExtensionArrival::AfterMounts,
    ] {
        for xrefs in [ArrivalXrefs::None, ArrivalXrefs::ForInstalledDrivers] {
            let mut r = quadra_rig(arrival, xrefs);
            let what = format!("{arrival:?} {xrefs:?}");
            // The ROM's loader: +0, D5 = SCSI ID, on the original SCSI Manager.
            let d = r.report.drivers().next().expect("a driver").clone();
            assert_eq!(d.choice.entry, DriverEntry::Original, "{what}");
            assert_eq!(d.d5, ID as u32, "{what}");
            assert_eq!(d.ref_num, Some(!(32 + ID as i16)), "{what}");
            assert!(r.report.v43_arrived.is_some(), "{what}\n{}", r.report);
            assert_eq!(r.report.volumes.len(), 2, "{what}\n{}", r.report);
            // The extension's marks: the trap, Gestalt 'scsi' (4.3 present, not in ROM).
            assert!(scsi_manager::v43_present(&mut r.m), "{what}");
            assert_eq!(r.m.gestalt(ostype(b"scsi")), Some(1), "{what}");
            let calls = scsi_manager::calls(&mut r.m);
            // Everything before the arrival used the old API: the boot blocks and the first
            // MDB at least, read through the driver.
            let t = transports(&calls);
            assert!(t.iter().take_while(|&&v| !v).count() >= 2, "{what}: {t:?}");
            assert_switched_once(&what, &calls);
            // The driver registered its cross-reference (or found one).
            assert_eq!(
                scsi_manager::xref_lookup(&mut r.m, (ID as u32) << 8),
                Some(r.ref_num),
                "{what}: the xref for bus 0, ID {ID}, LUN 0"
            );
            // It asked 4.3 which device its old-API ID is before registering.
            let asked = calls.iter().position(|c| {
                matches!(
                    c,
                    ScsiCall::Action {
                        function: GET_VIRTUAL_ID_INFO,
                        result: 0,
                        ..
                    }
                )
            });
            let created = calls.iter().position(|c| {
                matches!(
                    c,
                    ScsiCall::Action {
                        function: CREATE_XREF,
                        ..
                    }
                )
            });
            assert!(
                asked.is_some() && asked < created,
                "{what}: SCSIGetVirtualIDInfo, then SCSICreateRefNumXref"
            );
            if xrefs == ArrivalXrefs::None {
                assert!(
                    calls.iter().any(|c| matches!(
                        c,
                        ScsiCall::Action {
                            function: CREATE_XREF,
                            result: 0,
                            ..
                        }
                    )),
                    "{what}: the driver created the xref itself"
                );
            }
            // From now on: asynchronous SCSIExecIO for every transfer, data correct.
            scsi_manager::clear_calls(&mut r.m);
            let mut rng = Rng(0x0A43 + xrefs as u64);
            for i in 0..12u32 {
                let block = 100 + rng.below(2500) as u32;
                let blocks = 1 + rng.below(16) as u32;
                if i % 3 == 0 {
                    write_check(&mut r, block, blocks, i as u8 ^ 0x5A);
                }
                read_check(&mut r, block, blocks);
            }
            let calls = scsi_manager::calls(&mut r.m);
            let t = transports(&calls);
            assert!(
                t.len() >= 16 && t.iter().all(|&v43| v43),
                "{what}: transfers after the switch: {t:?}"
            );
            for c in &calls {
                if let ScsiCall::Action {
                    function: SCSI_EXEC_IO,
                    asynchronous,
                    ..
                } = c
                {
                    assert!(
                        asynchronous,
                        "{what}: a queued Prime's SCSIExecIO is async: {c:?}"
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn requests_in_flight_when_43_arrives_complete_and_nothing_is_lost() {
    for xrefs in [ArrivalXrefs::None, ArrivalXrefs::ForInstalledDrivers] {
        let mut r = quadra_rig(ExtensionArrival::Never, xrefs);
        let what = format!("{xrefs:?}");
        assert!(!scsi_manager::v43_present(&mut r.m), "{what}");
        scsi_manager::clear_calls(&mut r.m);
        // A drive that is still spinning up: the first request is deferred to the driver's
        // VBL task (the original SCSI Manager path must not wait in Prime).
        r.disk().inject_not_ready(4, NotReadyCause::BecomingReady);
        let mut rng = Rng(0x0F1F);
        let data = rng.bytes(24 * 512);
        let wbuf = r.alloc(24 * 512);
        r.m.write_bytes(wbuf, &data);
        let rbuf = r.alloc(24 * 512);
        let rbuf2 = r.alloc(8 * 512);
        let (a, d0) = r.prime_async(READ, 0, FS_FROM_START, 700 * 512, rbuf2, 8 * 512);
        assert_eq!(d0, 0, "{what}");
        let (b, _) = r.prime_async(WRITE, 0, FS_FROM_START, 1200 * 512, wbuf, 24 * 512);
        let (c, _) = r.prime_async(READ, 0, FS_FROM_START, 1200 * 512, rbuf, 24 * 512);
        assert_eq!(
            r.m.read_u16(a + IO_RESULT),
            1,
            "{what}: the first request is deferred, not finished"
        );
        // SCSI Manager 4.3 arrives now, with a request deferred and two queued behind it.
        scsi_manager::arrive_v43(&mut r.m, xrefs);
        // The system runs: SystemTask (accRun) and interrupts, until everything is done.
        for _ in 0..40 {
            if [a, b, c]
                .iter()
                .all(|&p| r.m.read_u16(p + PB_DONE_COUNT) > 0)
            {
                break;
            }
            r.m.run_event_loop(30)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        for (pb, name) in [
            (a, "deferred read"),
            (b, "queued write"),
            (c, "queued read"),
        ] {
            assert_eq!(
                r.m.read_u16(pb + PB_DONE_COUNT),
                1,
                "{what}: {name}: completion ran once"
            );
            assert_eq!(
                r.m.read_u16(pb + PB_DONE_D0) as i16,
                0,
                "{what}: {name}: result"
            );
        }
        let want = r.visible(r.lba(0, 700 * 512), 8);
        assert!(
            r.m.read_bytes(rbuf2, 8 * 512) == want,
            "{what}: deferred read data"
        );
        assert!(
            r.visible(r.lba(0, 1200 * 512), 24) == data,
            "{what}: the write reached the disk"
        );
        assert!(
            r.m.read_bytes(rbuf, 24 * 512) == data,
            "{what}: the read queued behind the write sees it"
        );
        // The deferred request finished on the old API it started on; no transfer went back
        // to the old API once 4.3 was used.
        let calls = scsi_manager::calls(&mut r.m);
        let t = transports(&calls);
        assert!(!t.is_empty() && !t[0], "{what}: {t:?}");
        assert_switched_once(&what, &calls);
        // The drive stayed not ready for four tries, 30 ticks apart: accRun (every 30 ticks)
        // registered the xref meanwhile, so the write and the read queued behind — started
        // from IODone at interrupt time — were the first requests on SCSI Manager 4.3.
        // (An idle flush after the write, from accRun, goes through SCSIExecIO too, on the
        // driver's synchronous parameter block: a SYNCHRONIZE CACHE there is not a transfer.)
        let transfers43 = calls
            .iter()
            .filter(|c| match c {
                ScsiCall::Action { function, pb, .. } if *function == SCSI_EXEC_IO => {
                    r.m.read_u8(pb + 68) != SYNCHRONIZE_CACHE
                }
                _ => false,
            })
            .count();
        assert_eq!(
            transfers43, 2,
            "{what}: the two queued requests went through SCSIExecIO: {t:?}"
        );
        let create = calls
            .iter()
            .position(|c| {
                matches!(
                    c,
                    ScsiCall::Action {
                        function: CREATE_XREF,
                        ..
                    }
                )
            })
            .expect("the driver created its xref");
        let last_old = calls
            .iter()
            .rposition(|c| {
                matches!(
                    c,
                    ScsiCall::Old {
                        name: "SCSICmd",
                        ..
                    }
                )
            })
            .expect("old-API transfers");
        assert!(
            create < last_old,
            "{what}: the xref was registered while the first request was deferred"
        );
        // Whatever the order, the driver is on 4.3 for the next request.
        r.m.run_event_loop(40).unwrap();
        scsi_manager::clear_calls(&mut r.m);
        read_check(&mut r, 1200, 24);
        let t = transports(&scsi_manager::calls(&mut r.m));
        assert_eq!(
            t,
            vec![true],
            "{what}: the next request goes through SCSIExecIO"
        );
        assert_eq!(
            scsi_manager::xref_lookup(&mut r.m, (ID as u32) << 8),
            Some(r.ref_num),
            "{what}"
        );
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn without_the_extension_the_driver_stays_on_the_original_scsi_manager() {
    let mut r = quadra_rig(ExtensionArrival::Never, ArrivalXrefs::None);
    r.m.run_event_loop(120).unwrap();
    scsi_manager::clear_calls(&mut r.m);
    write_check(&mut r, 300, 4, 0xC3);
    read_check(&mut r, 300, 4);
    let calls = scsi_manager::calls(&mut r.m);
    assert_eq!(transports(&calls), vec![false, false]);
    assert!(
        !calls.iter().any(|c| matches!(c, ScsiCall::Action { .. })),
        "no SCSIAction without SCSI Manager 4.3: {calls:?}"
    );
}

#[test]
fn the_quadra_model_is_a_68040_without_43_at_power_on() {
    let cfg = BootConfig::new(RomGeneration::Quadra);
    let mut m = new_machine(CpuModel::M68000, RomGeneration::Quadra);
    let e = boot(&mut m, &cfg).expect_err("a 68000 Quadra");
    assert!(e.to_string().contains("68040"), "{e}");
    let mut m: Machine = new_machine(CpuModel::M68040, RomGeneration::ScsiManager43);
    let e = boot(&mut m, &cfg).expect_err("4.3 present at power-on");
    assert!(e.to_string().contains("without SCSI Manager 4.3"), "{e}");
    // An empty bus boots (nothing to load) and 4.3 still arrives.
    let mut m = new_machine(CpuModel::M68040, RomGeneration::Quadra);
    let mut cfg = cfg;
    cfg.extension_arrival = ExtensionArrival::AfterMounts;
    let report = boot(&mut m, &cfg).expect("boots");
    assert!(
        report
            .scan
            .iter()
            .all(|(_, o)| matches!(o, ScanOutcome::NoDevice))
    );
    assert!(report.v43_arrived.is_some());
    assert!(scsi_manager::v43_present(&mut m));
}
