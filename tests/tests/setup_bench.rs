//! Ferrite Setup's Drive ▸ Benchmark… in the emulated Mac (68000 and 68040, both SCSI
//! Managers):
//!
//! * on a disk with free space, read + write: the target sees exactly the suite's READ(10) and
//!   WRITE(10) commands (BenchTest: 20 × 768 KB in 64 KB requests at the planned places, 200
//!   sequential single blocks, 50 random single blocks), every write inside the free space,
//!   and the rest of the image byte for byte as it was; the figures shown agree with the
//!   emulated time between the app's `TickCount` readings; Copy puts the table on the
//!   clipboard as `'TEXT'`;
//! * read-only on a disk Ferrite's driver serves (booted): every read goes through `_Read`
//!   to the driver, at the drive's partition, and nothing is written;
//! * on a disk without free space, writes are refused in words and the read-only run offered;
//!   ⌘-period cancels it.
//!
//! **Tolerance of the figures.** The app times each series with `TickCount`; `Ticks` counts
//! the VBL interrupt, 60.15 per second. Over a series lasting `T` ticks of emulated time
//! (measured by the test as the emulated cycles between the app's two `TickCount` calls),
//! the count the app sees is `T` rounded up or down (retraces passed), and each reading may
//! lag its retrace by the instruction in progress: so it is within 2 ticks of `T`
//! (`TICK_SLACK`). A figure from `n` ticks is then within `2 / n` of the true rate, plus one
//! unit of integer rounding — that is what the test allows, and it also recomputes each
//! figure exactly from the ticks the app read.

#[path = "support/setup.rs"]
mod support;

use ferrite_emu::Machine;
use ferrite_emu::scsi::{DiskTarget, LogEntry};
use ferrite_emu::scsi_manager;
use ferrite_emu::start_manager::{BootConfig, RomGeneration, boot};
use ferrite_emu::toolbox::{AlertKind, Input, Seen};
use ferrite_setup::bench::{self, Planned, Series};
use support::*;

const BLOCKS: u64 = 40_960;
const ID: u8 = 3;
/// How far the tick count the app reads may be from the emulated time (see the module docs).
const TICK_SLACK: f64 = 2.0;
/// 60.15 ticks per second.
const TICKS_PER_SECOND: f64 = 60.15;

/// The partition map's entries: (type, start, blocks), read here from the bytes.
fn map(image: &[u8]) -> Vec<(String, u64, u64)> {
    let be32 = |b: &[u8], at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap());
    let first = &image[512..1024];
    assert_eq!(&first[0..2], b"PM");
    let n = be32(first, 4) as usize;
    (1..=n)
        .map(|i| {
            let e = &image[i * 512..(i + 1) * 512];
            let ty: String = e[48..80]
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as char)
                .collect();
            (ty, be32(e, 8) as u64, be32(e, 12) as u64)
        })
        .collect()
}

/// A 20 MB disk: an 8 MB volume and 12 MB of free space, or (`full`) one volume filling it.
fn disk(full: bool) -> Vec<u8> {
    // One file per call: the tests run in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!(
        "ferrite-setup-bench-{}-{full}-{n}.img",
        std::process::id()
    ));
    let vol = if full { "Data" } else { "Data:8M" };
    ferrite_init(&path, BLOCKS, &["--volume", vol])
}

fn opcode(e: &LogEntry) -> u8 {
    e.cdb[0]
}
fn lba(e: &LogEntry) -> u64 {
    u32::from_be_bytes(e.cdb[2..6].try_into().unwrap()) as u64
}
fn len(e: &LogEntry) -> u32 {
    u16::from_be_bytes(e.cdb[7..9].try_into().unwrap()) as u32
}

/// READ(10) and WRITE(10) the target saw.
fn transfers(m: &mut Machine) -> Vec<LogEntry> {
    scsi_manager::bus(m)
        .log()
        .iter()
        .filter(|e| e.id == ID && matches!(e.cdb[0], 0x28 | 0x2A))
        .cloned()
        .collect()
}

fn dialog_items(seen: &[Seen], first: &str) -> Vec<String> {
    seen.iter()
        .filter_map(|x| match x {
            Seen::Dialog { items, .. } if items.iter().any(|i| i.starts_with(first)) => {
                Some(items.clone())
            }
            _ => None,
        })
        .next_back()
        .unwrap_or_default()
}

/// The figure text of a series from `ticks`, by the formula docs/setup.md states.
fn figure_text(p: &Planned, ticks: u32) -> String {
    let t = ticks.max(1) as u64;
    match p.series {
        Series::SustainedRead | Series::SustainedWrite => {
            format!("{} KB/s", p.bytes * 6015 / (t * 102_400))
        }
        Series::TpsRead | Series::TpsWrite => format!("{} per second", p.count * 6015 / (t * 100)),
        Series::Access => {
            let tenths = t * 1_000_000 / (6015 * p.count);
            format!("{}.{} ms", tenths / 10, tenths % 10)
        }
    }
}

/// Check each series' figure against the emulated time and return the figure texts.
fn check_timing(
    m: &mut Machine,
    suite: &[Planned],
    commands: &[LogEntry],
    ctx: &str,
) -> Vec<String> {
    let reads = m.toolbox().em.tick_reads.clone();
    assert_eq!(
        reads.len(),
        2 * suite.len(),
        "TickCount twice per series\n{ctx}"
    );
    let clock = m.clock_hz() as f64;
    let mut at = 0;
    let mut texts = Vec::new();
    for (i, p) in suite.iter().enumerate() {
        let (a, b) = (reads[2 * i], reads[2 * i + 1]);
        let ticks = b.ticks - a.ticks;
        let secs = (b.cycles - a.cycles) as f64 / clock;
        let true_ticks = secs * TICKS_PER_SECOND;
        assert!(
            (ticks as f64 - true_ticks).abs() <= TICK_SLACK,
            "{:?}: the app counted {ticks} ticks over {true_ticks:.2} ticks of emulated time\n{ctx}",
            p.series
        );
        // The emulated time covers the bus and disk time the target's model charged for the
        // series' own commands (the rest is the CPU: the app, the driver, the progress).
        let n = p.requests.len();
        let bus_ns: u64 = commands[at..at + n].iter().map(|e| e.time_ns).sum();
        at += n;
        assert!(
            secs * 1e9 >= bus_ns as f64,
            "{:?}: {secs} s of emulated time, less than the {bus_ns} ns of bus and disk time\n{ctx}",
            p.series
        );
        // The figure against the emulated time: within TICK_SLACK ticks, plus rounding.
        let text = figure_text(p, ticks);
        let value: f64 = text.split(' ').next().unwrap().parse().unwrap();
        let (truth, unit) = match p.series {
            Series::SustainedRead | Series::SustainedWrite => (p.bytes as f64 / 1024.0 / secs, 1.0),
            Series::TpsRead | Series::TpsWrite => (p.count as f64 / secs, 1.0),
            Series::Access => (secs * 1000.0 / p.count as f64, 0.1),
        };
        let slack = truth * TICK_SLACK / (true_ticks - TICK_SLACK).max(1.0) + unit;
        assert!(
            (value - truth).abs() <= slack,
            "{:?}: shows {text}, emulated time gives {truth:.2} (± {slack:.2})\n{ctx}",
            p.series
        );
        texts.push(text);
    }
    texts
}

/// Read + write on a disk with free space: the commands, the image, the figures, the
/// clipboard.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn benchmark_writes_only_free_space_and_reports_emulated_time() {
    let image = disk(false);
    let free = map(&image)
        .into_iter()
        .find(|(t, _, _)| t == "Apple_Free")
        .expect("ferrite init leaves the rest free");
    let (start, blocks) = (free.1, free.2);
    assert!(start + blocks <= BLOCKS);
    let suite = bench::plan(blocks as u32, true).unwrap();
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, ID, &image, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(ID as i16),
                menu("Drive", "Benchmark…"),
                Input::DialogItem(5),
                Input::DialogItem(1),
                Input::DialogItem(2),
                Input::DialogItem(2),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        assert_plus_stack(&m, &run, "Benchmark (read and write)");
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        eprintln!(
            "{cpu} v43={v43}: {} instructions, {:.1} s emulated",
            run.instructions,
            m.emulated_cycles() as f64 / m.clock_hz() as f64
        );
        assert!(run.unused_input.is_empty(), "{ctx}");
        let name = "ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks)";
        let last = start + blocks - 1;
        assert_eq!(
            alert_texts(&s.seen),
            [format!(
                "Write to blocks {start}-{last} of {name}? The data there will be overwritten. The partition map lists them as free space; the benchmark writes nowhere else."
            )],
            "{ctx}"
        );
        assert!(
            s.seen.iter().any(|x| matches!(
                x,
                Seen::Alert {
                    kind: AlertKind::Caution,
                    id: 152,
                    hit: 2,
                    ..
                }
            )),
            "{ctx}"
        );
        // The commands: the suite's, in order, at the free space; nothing else written.
        let all = transfers(&mut m);
        let want: Vec<(u8, u64, u32)> = suite
            .iter()
            .flat_map(|p| {
                let op = if p.series.writes() { 0x2A } else { 0x28 };
                p.requests
                    .iter()
                    .map(move |r| (op, start + r.block as u64, r.blocks))
            })
            .collect();
        assert_eq!(want.len(), 240 * 2 + 200 * 2 + 50);
        let got: Vec<(u8, u64, u32)> = all.iter().map(|e| (opcode(e), lba(e), len(e))).collect();
        // The scan and the map before, the rescan after: the suite's commands in one run.
        let at = got
            .windows(want.len())
            .position(|w| w == want.as_slice())
            .unwrap_or_else(|| {
                let first = got.iter().position(|g| *g == want[0]);
                panic!(
                    "the target never saw the suite's commands in a row (its first at {first:?})\n{ctx}"
                )
            });
        for e in all.iter().filter(|e| opcode(e) == 0x2A) {
            assert!(
                lba(e) >= start && lba(e) + len(e) as u64 <= start + blocks,
                "WRITE(10) at {} (+{}) outside the free space\n{ctx}",
                lba(e),
                len(e)
            );
            assert_eq!(e.data_out_moved, len(e) as usize * 512, "{ctx}");
        }
        // The image outside the free space is as it was; the free space holds the pattern.
        let after = image_of(&mut m);
        let (a, b) = (start as usize * 512, (start + blocks) as usize * 512);
        assert!(after[..a] == image[..a], "{ctx}");
        assert!(after[b..] == image[b..], "{ctx}");
        let first_write = want.iter().find(|w| w.0 == 0x2A).unwrap().1 as usize * 512;
        assert_eq!(after[first_write], 0xA5, "{ctx}");
        // The figures against the emulated time.
        let commands = &all[at..at + want.len()];
        let figures = check_timing(&mut m, &suite, commands, &ctx);
        let items = dialog_items(&s.seen, "ID 3");
        let through = if v43 {
            "SCSI commands through the SCSI Manager 4.3"
        } else {
            "SCSI commands through the original SCSI Manager"
        };
        assert_eq!(
            items[2],
            format!("{name}; blocks {start}-{last} (free space, written)"),
            "{ctx}"
        );
        assert!(
            items[3].starts_with(&format!(
                "Through {through}. Driver: not used; on the disk: "
            )),
            "{ctx}"
        );
        assert_eq!(
            items[4..6],
            [
                format!("Sustained read {}, write {}.", figures[0], figures[1]),
                format!(
                    "Transactions read {}, write {}. Access time {}.",
                    figures[2], figures[3], figures[4]
                ),
            ],
            "{ctx}"
        );
        assert!(items[3].contains("Ferrite"), "{ctx}");
        // Copy: the table as text on the clipboard.
        let scrap = m.toolbox().scrap.clone();
        assert_eq!(scrap.items.len(), 1, "{ctx}");
        let text = String::from_utf8(scrap.get(b"TEXT").expect("'TEXT'").to_vec()).unwrap();
        let lines: Vec<&str> = text.split('\r').collect();
        assert_eq!(
            lines[0], "Ferrite Setup benchmark (BenchTest suite)",
            "{ctx}"
        );
        assert_eq!(lines[1], format!("Drive\t{name}"), "{ctx}");
        assert_eq!(lines[2], format!("Through\t{through}"), "{ctx}");
        assert!(
            lines[3].starts_with("Driver\tnot used; on the disk: "),
            "{ctx}"
        );
        assert_eq!(
            lines[4],
            format!("Region\tblocks {start}-{last} (free space, written)"),
            "{ctx}"
        );
        let names = [
            "Sustained read",
            "Sustained write",
            "Transactions read",
            "Transactions write",
            "Access time",
        ];
        for (i, n) in names.iter().enumerate() {
            assert_eq!(lines[5 + i], format!("{n}\t{}", figures[i]), "{ctx}");
        }
        assert_eq!(lines[10], "", "the text ends with a carriage return\n{ctx}");
        eprintln!("{cpu} v43={v43}: {}", text.replace('\r', " | "));
    }
}

/// Read-only on a disk Ferrite's driver serves: `_Read` through the driver, at the drive's
/// partition; nothing written.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn read_only_goes_through_the_driver() {
    let image = disk(false);
    let hfs = map(&image)
        .into_iter()
        .find(|(t, _, _)| t == "Apple_HFS")
        .unwrap();
    let suite = bench::plan(hfs.2 as u32, false).unwrap();
    for (cpu, v43) in both() {
        let rom = if v43 {
            RomGeneration::ScsiManager43
        } else {
            RomGeneration::OriginalScsiManager
        };
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, ID, &image, ibm());
        let report = boot(&mut m, &BootConfig::new(rom)).unwrap();
        let drive = report.drives.first().expect("a drive").number;
        scsi_manager::bus(&mut m).clear_log();
        let run = launch(
            &mut m,
            vec![
                click_line(ID as i16),
                menu("Drive", "Benchmark…"),
                Input::DialogItem(1),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        let all = transfers(&mut m);
        assert!(all.iter().all(|e| opcode(e) == 0x28), "a write\n{ctx}");
        // The driver sends one READ(10) per request (64 KB is within its 128-block cap).
        let want: Vec<(u64, u32)> = suite
            .iter()
            .flat_map(|p| {
                p.requests
                    .iter()
                    .map(|r| (hfs.1 + r.block as u64, r.blocks))
            })
            .collect();
        let got: Vec<(u64, u32)> = all.iter().map(|e| (lba(e), len(e))).collect();
        let at = got
            .windows(want.len())
            .position(|w| w == want.as_slice())
            .unwrap_or_else(|| {
                let first = got.iter().position(|g| *g == want[0]);
                panic!(
                    "the driver never sent the suite's reads in a row (its first at {first:?})\n{ctx}"
                )
            });
        assert_eq!(image_of(&mut m), image, "{ctx}");
        let commands = &all[at..at + want.len()];
        let figures = check_timing(&mut m, &suite, commands, &ctx);
        let items = dialog_items(&s.seen, "ID 3");
        assert_eq!(
            items[2..6],
            [
                format!(
                    "ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks); drive {drive}: its {} blocks (read only)",
                    hfs.2
                ),
                format!(
                    "Through the Device Manager: _Read to the driver (refNum -36), drive {drive}. Driver: .Ferrite (serving the drive)."
                ),
                format!("Sustained read {}, write not measured.", figures[0]),
                format!(
                    "Transactions read {}, write not measured. Access time {}.",
                    figures[1], figures[2]
                ),
            ],
            "{ctx}"
        );
    }
}

/// Edit ▸ Copy and ⌘C after the results dialog closed put the same text on the clipboard as
/// the dialog's Copy button (each in a run of its own from the same start: the emulated time,
/// and so the figures, are the same); before any benchmark, ⌘C copies nothing.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn edit_copy_puts_the_results_on_the_clipboard() {
    let image = disk(false);
    for cpu in CPUS {
        let v43 = cpu == ferrite_emu::CpuModel::M68040;
        let scrap_after = |tail: Vec<Input>| {
            let mut m = machine(cpu, v43, 0);
            attach_image(&mut m, ID, &image, ibm());
            let mut script = vec![
                // Nothing to copy yet.
                Input::CommandKey('c'),
                click_line(ID as i16),
                menu("Drive", "Benchmark…"),
                // Start, reads only.
                Input::DialogItem(1),
            ];
            script.extend(tail);
            script.push(Input::CommandKey('q'));
            let run = launch(&mut m, script);
            let s = &run.screen;
            let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
            assert!(run.unused_input.is_empty(), "{ctx}");
            assert!(alert_texts(&s.seen).is_empty(), "{ctx}");
            let scrap = m.toolbox().scrap.clone();
            assert_eq!(scrap.zero_count, 1, "one ZeroScrap, by the Copy\n{ctx}");
            assert_eq!(scrap.items.len(), 1, "{ctx}");
            let text = scrap.get(b"TEXT").expect("'TEXT'").to_vec();
            (String::from_utf8(text).unwrap(), ctx)
        };
        // The button (item 2 of the results dialog), then OK.
        let (button, ctx) = scrap_after(vec![Input::DialogItem(2), Input::DialogItem(1)]);
        assert!(
            button.starts_with(
                "Ferrite Setup benchmark (BenchTest suite)\rDrive\tID 3, IBM DORS-31080"
            ),
            "{ctx}"
        );
        assert!(button.contains("\rSustained read\t"), "{ctx}");
        // OK, then Edit ▸ Copy in the SCSI Bus window.
        let (menu_copy, ctx) = scrap_after(vec![Input::DialogItem(1), menu("Edit", "Copy")]);
        assert_eq!(menu_copy, button, "{ctx}");
        // OK, then ⌘C.
        let (key_copy, ctx) = scrap_after(vec![Input::DialogItem(1), Input::CommandKey('c')]);
        assert_eq!(key_copy, button, "{ctx}");
    }
}

/// No free space: writes refused in words, the read-only run offered; ⌘-period cancels it.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn no_free_space_refuses_writes_and_command_period_cancels() {
    let image = disk(true);
    assert!(
        map(&image)
            .iter()
            .all(|(t, _, b)| t != "Apple_Free" || *b < 1536)
    );
    for (cpu, v43) in both() {
        let mut m = machine(cpu, v43, 0);
        attach_image(&mut m, ID, &image, ibm());
        let run = launch(
            &mut m,
            vec![
                click_line(ID as i16),
                menu("Drive", "Benchmark…"),
                Input::DialogItem(5),
                Input::DialogItem(1),
                Input::DialogItem(2),
                Input::CommandKey('.'),
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ],
        );
        let s = &run.screen;
        let ctx = format!("{cpu} v43={v43}:\n{}", s.transcript());
        assert!(run.unused_input.is_empty(), "{ctx}");
        let name = "ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks)";
        assert_eq!(
            alert_texts(&s.seen),
            [
                format!(
                    "{name} has no free space of 768 KB or more in its partition map. The benchmark writes only into free space, so that a crash cannot lose data. Run it read-only?"
                ),
                format!("Benchmark of {name} cancelled."),
            ],
            "{ctx}"
        );
        assert!(s.window_titles().contains(&"Progress".into()), "{ctx}");
        let all = transfers(&mut m);
        assert!(all.iter().all(|e| opcode(e) == 0x28), "a write\n{ctx}");
        // Cancelled early: far fewer reads than the suite's 490.
        assert!(all.len() < 100, "{} reads\n{ctx}", all.len());
        assert_eq!(image_of(&mut m), image, "{ctx}");
        assert!(m.toolbox().scrap.items.is_empty(), "{ctx}");
    }
}

/// What the disk holds now, its write cache included.
fn image_of(m: &mut Machine) -> Vec<u8> {
    let t = scsi_manager::bus(m)
        .target_as_mut::<DiskTarget>(ID)
        .expect("a DiskTarget");
    let blocks = t.blocks();
    t.read_visible(0, blocks).unwrap()
}
