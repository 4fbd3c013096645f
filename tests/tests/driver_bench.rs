//! Measurements of the Ferrite driver in the emulated Mac (printed as Markdown tables; the
//! numbers are recorded in `docs/driver.md`), the single-block read budgets checked, and a
//! per-function profile of one read on each CPU and SCSI Manager (`support/profile.rs`). Run with
//! `cargo test -p ferrite-tests --test driver_bench -- --include-ignored --nocapture`.
//!
//! Method: every Mac OS service in the emulated Mac (Device Manager, IODone, both SCSI
//! Managers, the bus transfer) is a host routine that costs 0 CPU cycles, so the cycles the
//! CPU model counts between the start and the end of a synchronous `_Read`/`_Write`
//! ([`ferrite_emu::Stats::cycles`]; idle time while waiting for the SCSI Manager 4.3
//! completion interrupt is not counted) are exactly the driver's own instructions: its
//! Device Manager glue, Prime, the SCSI Manager calls' argument set-up and, under SCSI
//! Manager 4.3, the completion routine that ends the request through IODone. The SCSI
//! Manager's data transfer is excluded by construction. Bus time is the bus log's modelled
//! time per command (selection, command, data, status, the disk's timing model).

#[path = "support/ferrite.rs"]
mod ferrite;
#[path = "support/profile.rs"]
mod profile;

use ferrite::*;
use ferrite_emu::CpuModel;
use ferrite_emu::scsi::{DiskConfig, TimingConfig};
use ferrite_emu::start_manager::RomGeneration;

struct Sample {
    cycles: u64,
    commands: usize,
    bus_ns: u64,
}

fn measure(r: &mut Rig, word: u16, block: u32, count: u32, buf: u32) -> Sample {
    r.clear_bus_log();
    let c0 = r.m.stats().cycles;
    let (e, act) = r.prime(word, 0, FS_FROM_START, block * 512, buf, count);
    let cycles = r.m.stats().cycles - c0;
    assert_eq!((e, act), (0, count), "{}", r.what());
    let log = r.bus_log();
    Sample {
        cycles,
        commands: log.len(),
        bus_ns: log.iter().map(|e| e.time_ns).sum(),
    }
}

fn rom_name(rom: RomGeneration) -> &'static str {
    match rom {
        RomGeneration::ScsiManager43 => "SCSI Manager 4.3",
        _ => "original SCSI Manager",
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn driver_benchmarks() {
    let blob = driver_blob();
    let budget = ferrite_shared::driver_blob::DRIVER_BLOB_MAX;
    println!("\nblob: {} bytes (budget {budget})\n", blob.len());
    assert!(blob.len() <= budget);
    println!(
        "| CPU | transport | request | driver cycles (min / mean / max) | SCSI commands | bus time, 7200-rpm preset | bus time, SD-emulator preset |"
    );
    println!("|---|---|---|---:|---:|---:|---:|");
    let mut single_reads = Vec::new();
    for cpu in [CpuModel::M68040, CpuModel::M68000] {
        for rom in [
            RomGeneration::ScsiManager43,
            RomGeneration::OriginalScsiManager,
        ] {
            for (name, word, blocks, n) in [
                ("read 1 block", READ, 1u32, 40u32),
                ("write 1 block", WRITE, 1, 40),
                ("read 8 blocks (4 KB)", READ, 8, 20),
                ("read 1536 blocks (768 KB)", READ, 1536, 4),
                ("write 1536 blocks (768 KB)", WRITE, 1536, 4),
            ] {
                let mut results = Vec::new();
                for timing in [
                    TimingConfig::hdd_7200_1990s(),
                    TimingConfig::sd_card_emulator(),
                ] {
                    let disk = disk_with_volumes(driver_blob(), 1, 30_000);
                    let mut r = boot_disk(
                        cpu,
                        rom,
                        &disk,
                        DiskConfig {
                            timing,
                            ..Default::default()
                        },
                    );
                    let buf = r.alloc(blocks * 512);
                    let mut rng = Rng(11);
                    let mut samples = Vec::new();
                    for _ in 0..n {
                        let first = rng.below((30_000 - blocks) as u64) as u32;
                        samples.push(measure(&mut r, word, first, blocks * 512, buf));
                    }
                    results.push(samples);
                }
                let cyc: Vec<u64> = results[0].iter().map(|s| s.cycles).collect();
                let min = *cyc.iter().min().unwrap();
                let max = *cyc.iter().max().unwrap();
                let mean = cyc.iter().sum::<u64>() / cyc.len() as u64;
                let cmds = results[0].iter().map(|s| s.commands).max().unwrap();
                assert_eq!(
                    cmds,
                    results[0].iter().map(|s| s.commands).min().unwrap(),
                    "commands per request vary"
                );
                let bus = |v: &Vec<Sample>| {
                    v.iter().map(|s| s.bus_ns).sum::<u64>() as f64 / v.len() as f64 / 1e6
                };
                println!(
                    "| {cpu} | {} | {name} | {min} / {mean} / {max} | {cmds} | {:.2} ms | {:.2} ms |",
                    rom_name(rom),
                    bus(&results[0]),
                    bus(&results[1])
                );
                if word == READ && blocks == 1 {
                    single_reads.push((cpu, rom, mean));
                }
            }
        }
    }
    for (cpu, rom, mean) in single_reads {
        let budget = single_read_budget(cpu, rom);
        println!(
            "single-block read, {cpu}, {}: {mean} driver cycles (budget {budget})",
            rom_name(rom)
        );
        assert!(
            mean <= budget,
            "a single-block read on the {cpu} under the {} costs {mean} driver cycles, over the {budget}-cycle budget",
            rom_name(rom)
        );
    }
}

/// Driver cycles a single-block read may take (the mean over the benchmark's reads), by CPU
/// and SCSI Manager: issue 14's targets, 500 / 3,500 (68040 / 68000) under SCSI Manager 4.3
/// and 450 / 3,200 on the original SCSI Manager. Measured: 423 / 3,291 and 447 / 3,178
/// (`docs/driver.md`, "Per-request cost"). Before this work: 1,519 / 11,690 under 4.3 and
/// 1,436 / 11,120 on the original SCSI Manager.
fn single_read_budget(cpu: CpuModel, rom: RomGeneration) -> u64 {
    match (cpu, rom) {
        (CpuModel::M68040, RomGeneration::ScsiManager43) => 500,
        (CpuModel::M68000, RomGeneration::ScsiManager43) => 3_500,
        (CpuModel::M68040, _) => 450,
        _ => 3_200,
    }
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn single_block_read_profile() {
    // Where a single-block read's cycles go, per driver function, on both CPUs and both SCSI
    // Managers (printed; run with --nocapture). The profile adds up to the cycles the
    // benchmark measures: it counts the same instructions.
    let blob = driver_blob();
    let syms = profile::driver_symbols(&blob);
    if syms.is_none() {
        println!("(no symbol map of this build: functions shown by offset)");
    }
    for cpu in [CpuModel::M68040, CpuModel::M68000] {
        for rom in [
            RomGeneration::ScsiManager43,
            RomGeneration::OriginalScsiManager,
        ] {
            let disk = disk_with_volumes(blob.clone(), 1, 30_000);
            let mut r = boot_disk(cpu, rom, &disk, DiskConfig::default());
            let buf = r.alloc(512);
            // One read first: the profile is of the steady state.
            measure(&mut r, READ, 1234, 512, buf);
            r.m.start_pc_profile();
            let sample = measure(&mut r, READ, 4321, 512, buf);
            let prof = profile::driver_profile(&mut r.m, syms.as_deref());
            let total: u64 = prof.iter().map(|f| f.cycles).sum();
            println!(
                "\n{cpu}, {}: single-block read, {} driver cycles\n\n{}",
                rom_name(rom),
                sample.cycles,
                profile::profile_table(&prof)
            );
            assert_eq!(
                total, sample.cycles,
                "the profile counts every cycle measured"
            );
        }
    }
}
