//! `ferrite bench`: boot a disk in the emulated Mac on a machine and disk profile and time,
//! through the Device Manager and **whatever driver the disk carries**, FWB BenchTest's suite,
//! a diskperf-style sweep and a file workload (`ferrite_emu::bench`). Every figure is
//! emulated time, the same on every run; the image file is only read.

use super::disk;
use anyhow::{Result, anyhow, bail};
use ferrite_emu::bench::{self, Bench, BenchSetup, Pattern, Split};
use ferrite_emu::profile::{DiskProfile, MachineProfile, Manager};
use std::fmt::Write as _;
use std::path::Path;

/// What the command was asked for.
pub struct BenchArgs<'a> {
    /// One or more disks, measured one after the other on the same profiles and compared.
    pub disks: &'a [std::path::PathBuf],
    pub machine: &'a str,
    pub disk_profile: &'a str,
    pub manager: Manager,
    pub write_cache: bool,
    pub id: Option<u8>,
    pub json: bool,
    /// BenchTest and the file workload only (no sweep).
    pub quick: bool,
}

/// Machine profile names on the command line.
/// A machine profile's constructor.
type MakeProfile = fn() -> MachineProfile;

pub const MACHINES: [(&str, MakeProfile); 5] = [
    ("plus", MachineProfile::mac_plus),
    ("macii", MachineProfile::mac_ii),
    ("se30", MachineProfile::se30),
    ("quadra900", MachineProfile::quadra_900),
    ("840av", MachineProfile::quadra_840av),
];
/// Disk profile names on the command line, in `DiskProfile::ALL` order.
pub const DISKS: [&str; 4] = ["5400", "7200", "10k", "sd"];

/// One measured series.
struct Row {
    group: &'static str,
    name: String,
    split: Split,
}

fn machine_of(name: &str) -> Result<MachineProfile> {
    MACHINES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| f())
        .ok_or_else(|| {
            anyhow!(
                "--machine {name}: the profiles are {}",
                MACHINES.map(|(n, _)| n).join(", ")
            )
        })
}

fn disk_of(name: &str) -> Result<DiskProfile> {
    DISKS
        .iter()
        .position(|n| *n == name)
        .map(|i| DiskProfile::ALL[i])
        .ok_or_else(|| anyhow!("--disk {name}: the profiles are {}", DISKS.join(", ")))
}

/// What one disk measured.
struct Measured {
    disk: String,
    volume: String,
    driver: String,
    wce_after: Option<bool>,
    rows: Vec<Row>,
}

pub fn bench(a: &BenchArgs) -> Result<()> {
    let machine = machine_of(a.machine)?;
    let disk_profile = disk_of(a.disk_profile)?;
    if a.manager == Manager::V43 && machine.cpu == ferrite_emu::CpuModel::M68000 {
        bail!(
            "--rom scsi43 on the {}: SCSI Manager 4.3 needs a 68020 or later; use --rom old",
            machine.name
        );
    }
    let setup = |path: &Path| -> Result<BenchSetup> {
        let id = a.id.or(disk::scsi_name_info(path).0).unwrap_or(0);
        if id > 6 {
            bail!("--id {id}: SCSI IDs 0-6 are for disks (7 is the Mac)");
        }
        Ok(BenchSetup {
            machine,
            disk: disk_profile,
            manager: a.manager,
            write_cache: a.write_cache,
            id,
            seed: ferrite_emu::seed::DEFAULT_SEED,
        })
    };
    let mut all = Vec::new();
    for path in a.disks {
        let s = setup(path)?;
        all.push((s, measure(path, &s, a.quick)?));
    }
    let manager = match a.manager {
        Manager::V43 => "SCSI Manager 4.3",
        Manager::Original => "original SCSI Manager",
    };
    if a.json {
        let v: Vec<serde_json::Value> = all.iter().map(|(s, d)| json(s, manager, d)).collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("JSON of numbers and strings")
        );
    } else {
        for (s, d) in &all {
            print!("{}", text(s, manager, d));
        }
        if all.len() > 1 {
            print!("{}", side_by_side(&all));
        }
    }
    Ok(())
}

/// Boot one disk and run every series on it.
fn measure(path: &Path, setup: &BenchSetup, quick: bool) -> Result<Measured> {
    let id = setup.id;
    let image = std::fs::read(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let mut b = Bench::boot(&image, setup).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let ref_num = b.drive.ref_num;
    let drvr =
        b.m.drivers()
            .into_iter()
            .find(|d| d.ref_num == ref_num)
            .and_then(|d| d.name)
            .unwrap_or_else(|| "?".into());
    let driver = b
        .report
        .drivers()
        .find(|d| d.id == id)
        .map(|d| {
            format!(
                "{drvr} (refNum {ref_num}), {} bytes from partition \"{}\" ({}) at block {}",
                d.choice.load_bytes, d.choice.name, d.choice.kind, d.choice.block
            )
        })
        .unwrap_or_default();
    eprintln!("{}: {driver}", path.display());
    let rows = run(&mut b, quick).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let wce_after = ferrite_emu::scsi_manager::bus(&mut b.m)
        .target_as_mut::<ferrite_emu::scsi::DiskTarget>(id)
        .map(|d| d.write_cache_enabled());
    Ok(Measured {
        disk: path.display().to_string(),
        volume: b.volume.clone(),
        driver,
        wce_after,
        rows,
    })
}

/// Every series, with progress on the terminal.
fn run(b: &mut Bench, quick: bool) -> Result<Vec<Row>> {
    type Job = (
        &'static str,
        String,
        Box<dyn Fn(&mut Bench) -> Result<Split, bench::BenchError>>,
    );
    let mut jobs: Vec<Job> = vec![
        (
            "BenchTest",
            "sustained read (20 × 768 KB)".into(),
            Box::new(|b| b.sustained(false)),
        ),
        (
            "BenchTest",
            "sustained write (20 × 768 KB)".into(),
            Box::new(|b| b.sustained(true)),
        ),
        (
            "BenchTest",
            "transactions: read 512 B".into(),
            Box::new(|b| b.tps(false)),
        ),
        (
            "BenchTest",
            "transactions: write 512 B".into(),
            Box::new(|b| b.tps(true)),
        ),
        (
            "BenchTest",
            "access time (50 random reads)".into(),
            Box::new(|b| b.access()),
        ),
        (
            "files",
            "300 small files: read".into(),
            Box::new(|b| b.small_files(false)),
        ),
        (
            "files",
            "300 small files: write".into(),
            Box::new(|b| b.small_files(true)),
        ),
        (
            "files",
            "8 MB file in 64 KB: read".into(),
            Box::new(|b| b.large_file(false)),
        ),
        (
            "files",
            "8 MB file in 64 KB: write".into(),
            Box::new(|b| b.large_file(true)),
        ),
    ];
    if !quick {
        for write in [false, true] {
            for p in Pattern::ALL {
                for size in bench::sweep_sizes() {
                    jobs.push((
                        "sweep",
                        format!(
                            "{} {} {}",
                            if write { "write" } else { "read" },
                            p.name(),
                            bench::size_name(size)
                        ),
                        Box::new(move |b| b.sweep(write, p, size)),
                    ));
                }
            }
        }
    }
    let pb = indicatif::ProgressBar::new(jobs.len() as u64);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{msg:40} [{bar:30}] {pos}/{len}")
            .expect("template")
            .progress_chars("=> "),
    );
    let mut rows = Vec::new();
    for (group, name, f) in jobs {
        pb.set_message(name.clone());
        b.idle().map_err(|e| anyhow!("before {name}: {e}"))?;
        let split = f(b).map_err(|e| anyhow!("{name}: {e}"))?;
        rows.push(Row { group, name, split });
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(rows)
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn text(s: &BenchSetup, manager: &str, d: &Measured) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: {} ({:.2} MHz), {} disk, {manager}, write cache {} at power-on{}",
        d.disk,
        s.machine.name,
        s.machine.clock_hz as f64 / 1e6,
        s.disk.name,
        if s.write_cache { "on" } else { "off" },
        match d.wce_after {
            Some(w) if w != s.write_cache => format!(
                " ({} by the driver)",
                if w { "turned on" } else { "turned off" }
            ),
            _ => String::new(),
        }
    );
    let _ = writeln!(o, "driver: {}", d.driver);
    let _ = writeln!(
        o,
        "volume \"{}\"; emulated time, split into the driver's own CPU time, the SCSI Manager's \
         and the bus and disk's; \"of limit\": the same requests as one command each on the same \
         modelled disk, with a driver that costs nothing\n",
        d.volume
    );
    let _ = writeln!(
        o,
        "{:<10} {:<34} {:>10} {:>9} {:>9} {:>8} {:>8} {:>8} {:>9} {:>10}",
        "",
        "series",
        "KB/s",
        "req/s",
        "ms/req",
        "of limit",
        "driver",
        "SCSI Mgr",
        "cmds/req",
        "cycles/req"
    );
    for r in &d.rows {
        let t = &r.split;
        let _ = writeln!(
            o,
            "{:<10} {:<34} {:>10.0} {:>9.1} {:>9.2} {:>8} {:>8} {:>8} {:>9.2} {:>10.0}",
            r.group,
            r.name,
            t.kbps(),
            t.tps(),
            t.ms_per_request(),
            pct(t.ratio()),
            pct(t.driver_share()),
            pct(t.manager_share()),
            t.commands as f64 / t.requests as f64,
            t.cycles_per_request()
        );
    }
    o.push('\n');
    o
}

/// The disks' key figures next to each other: KB/s for transfers, requests per second for
/// single blocks, ms for access time; the driver's cycles per request under each.
fn side_by_side(all: &[(BenchSetup, Measured)]) -> String {
    let mut o =
        String::from("side by side (KB/s; req/s for 512 B transactions; ms for access time)\n");
    let _ = write!(o, "{:<34}", "series");
    for (i, _) in all.iter().enumerate() {
        let _ = write!(o, " {:>12} {:>10}", format!("disk {}", i + 1), "cycles/req");
    }
    o.push('\n');
    for (k, r) in all[0].1.rows.iter().enumerate() {
        let _ = write!(o, "{:<34}", r.name);
        for (_, d) in all {
            let t = &d.rows[k].split;
            let v = if r.name.starts_with("transactions") {
                t.tps()
            } else if r.name.starts_with("access") {
                t.ms_per_request()
            } else {
                t.kbps()
            };
            let _ = write!(o, " {:>12.1} {:>10.0}", v, t.cycles_per_request());
        }
        o.push('\n');
    }
    for (i, (_, d)) in all.iter().enumerate() {
        let _ = writeln!(o, "disk {}: {} — {}", i + 1, d.disk, d.driver);
    }
    o
}

fn json(s: &BenchSetup, manager: &str, d: &Measured) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = d
        .rows
        .iter()
        .map(|r| {
            let t = &r.split;
            serde_json::json!({
                "group": r.group,
                "series": r.name,
                "requests": t.requests,
                "bytes": t.bytes,
                "commands": t.commands,
                "total_ns": t.total_ns,
                "driver_ns": t.driver_ns,
                "scsi_manager_ns": t.manager_ns,
                "bus_disk_ns": t.bus_ns,
                "limit_ns": t.limit_ns,
                "driver_cycles": t.driver_cycles,
                "kb_per_s": t.kbps(),
                "requests_per_s": t.tps(),
                "ratio_to_limit": t.ratio(),
            })
        })
        .collect();
    serde_json::json!({
        "disk": d.disk,
        "machine": s.machine.name,
        "clock_hz": s.machine.clock_hz,
        "disk_profile": s.disk.name,
        "scsi_manager": manager,
        "write_cache_at_power_on": s.write_cache,
        "write_cache_after": d.wce_after,
        "driver": d.driver,
        "volume": d.volume,
        "series": rows,
    })
}
