//! Soak: random reads and writes of random sizes and places through the Ferrite driver —
//! synchronous, asynchronous (queued several at a time, sometimes with `_KillIO`) and
//! immediate —, with faults injected and power lost at random points, the drive's write
//! cache on, checked against a shadow copy of what the driver acknowledged.
//!
//! The checks: every read the driver answers `noErr` returns what the shadow says (the last
//! acknowledged write, or the disk's first contents); a request ends with an error only
//! while a fault is armed (a failed write leaves its blocks unknown); after an idle second in
//! the event loop the drive holds no unwritten data (the idle flush bounds what a power loss
//! can take); after a power loss every block the drive had written matches the shadow, and
//! only the blocks still in its cache may have gone back.
//!
//! `cargo xtask test` runs it short for every seed; `cargo xtask soak [--seed N] [--ops N]`
//! runs it long (`FERRITE_SOAK_OPS`).

#[path = "support/ferrite.rs"]
mod ferrite;

use std::collections::HashSet;

use ferrite::*;
use ferrite_emu::scsi::{DiskConfig, NotReadyCause};
use ferrite_emu::seed::{Rng, seed_from_env};
use ferrite_emu::start_manager::RomGeneration;
use retro68_build::records::{self, SoakMachine};

const ABORT_ERR: i16 = -27;
const CONTROL_ERR: i16 = -17;
/// Operations per machine in the short run.
const SHORT_OPS: usize = 120;
/// Most blocks per request.
const MAX_BLOCKS: u32 = 48;

struct Soak {
    r: Rig,
    rng: Rng,
    /// What each block of the disk should hold (the driver acknowledged it, or it was there).
    shadow: Vec<u8>,
    /// Blocks whose contents are unknown (a write to them failed).
    unknown: HashSet<u64>,
    /// A fault is armed: requests may fail.
    fault: bool,
    bufs: Vec<u32>,
    pbs: Vec<u32>,
    kill_pb: u32,
    what: String,
    ops: usize,
    seed: u64,
    /// Counts: [reads checked, writes acknowledged, requests failed, aborted, power losses,
    /// faults injected].
    stats: [u32; 6],
}

impl Soak {
    fn new(cpu: ferrite_emu::CpuModel, rom: RomGeneration, seed: u64, machine: u64) -> Soak {
        let disk = disk_with_volumes(driver_blob(), 2, 2000);
        let cfg = DiskConfig {
            background_writeback_blocks: (seed % 3) as u32,
            ..DiskConfig::default()
        };
        let mut r = boot_disk(cpu, rom, &disk, cfg);
        let blocks = r.disk().blocks();
        let shadow = r.disk().read_visible(0, blocks).unwrap();
        let bufs = (0..4).map(|_| r.alloc(MAX_BLOCKS * 512)).collect();
        let pbs = (0..4).map(|_| r.pb()).collect();
        let kill_pb = r.pb();
        r.m.write_u16(kill_pb + IO_REFNUM, r.ref_num as u16);
        let what = format!("{} seed {seed}", r.what());
        Soak {
            r,
            rng: Rng::new(seed, 0x50A4 + machine),
            shadow,
            unknown: HashSet::new(),
            fault: false,
            bufs,
            pbs,
            kill_pb,
            what,
            ops: 0,
            seed,
            stats: [0; 6],
        }
    }

    /// A random request: (drive, first block of the drive, blocks, its absolute LBA).
    fn place(&mut self) -> (usize, u32, u32, u64) {
        let drive = self.rng.below(2);
        let size = self.r.drives[drive].blocks;
        let n = 1 + self.rng.below(MAX_BLOCKS as usize) as u32;
        // Past the MDB (blocks 0–2 of the volume): the volumes stay mountable.
        let block = 3 + self.rng.below((size - 3 - n) as usize) as u32;
        let lba = self.r.lba(drive, block as u64 * 512);
        (drive, block, n, lba)
    }

    fn fail(&self, msg: String) -> ! {
        panic!(
            "{} op {}: {msg}\nreproduce: cargo xtask soak --seed {} --ops {}",
            self.what,
            self.ops,
            self.seed,
            self.ops + 1
        )
    }

    /// Check a read's data against the shadow (unknown blocks skipped).
    fn check_read(&mut self, lba: u64, data: &[u8]) {
        self.stats[0] += 1;
        for (k, chunk) in data.chunks(512).enumerate() {
            let b = lba + k as u64;
            if self.unknown.contains(&b) {
                continue;
            }
            let at = b as usize * 512;
            if chunk != &self.shadow[at..at + 512] {
                self.fail(format!("block {b} read back something never acknowledged"));
            }
        }
    }

    fn apply_write(&mut self, lba: u64, data: &[u8]) {
        self.stats[1] += 1;
        let at = lba as usize * 512;
        self.shadow[at..at + data.len()].copy_from_slice(data);
        for k in 0..data.len() as u64 / 512 {
            self.unknown.remove(&(lba + k));
        }
    }

    fn failed_write(&mut self, lba: u64, n: u32, e: i16) {
        self.stats[2] += 1;
        if !self.fault {
            self.fail(format!("a write failed ({e}) with no fault armed"));
        }
        for k in 0..n as u64 {
            self.unknown.insert(lba + k);
        }
    }

    fn sync_io(&mut self, word: u16) {
        let (drive, block, n, lba) = self.place();
        let (buf, pb) = (self.bufs[0], self.pbs[0]);
        let write = word & 0xFF == 3;
        let data = self.rng_bytes(n as usize * 512);
        if write {
            self.r.m.write_bytes(buf, &data);
        }
        self.r
            .set_io(pb, drive, FS_FROM_START, block * 512, buf, n * 512);
        let e = self
            .r
            .m
            .device_call(word, pb)
            .unwrap_or_else(|f| self.fail(f.to_string())) as i16;
        match (e, write) {
            (0, true) => self.apply_write(lba, &data),
            (0, false) => {
                let got = self.r.m.read_bytes(buf, n * 512);
                self.check_read(lba, &got);
            }
            (e, true) => self.failed_write(lba, n, e),
            (e, false) if !self.fault => self.fail(format!("a read failed ({e}) with no fault")),
            _ => self.stats[2] += 1,
        }
    }

    fn rng_bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.rng.next_u32() as u8).collect()
    }

    /// Two to four queued requests, maybe `_KillIO` right after; checked in queue order.
    fn async_batch(&mut self) {
        let count = 2 + self.rng.below(3);
        let kill = self.rng.below(4) == 0;
        let mut reqs = Vec::new();
        for i in 0..count {
            let (drive, block, n, lba) = self.place();
            let write = self.rng.below(2) == 0;
            let data = self.rng_bytes(n as usize * 512);
            let (buf, pb) = (self.bufs[i], self.pbs[i]);
            if write {
                self.r.m.write_bytes(buf, &data);
            }
            self.r
                .set_io(pb, drive, FS_FROM_START, block * 512, buf, n * 512);
            self.r.m.write_u32(pb + IO_COMPLETION, self.r.completion());
            let word = if write { WRITE } else { READ } | ASYNC;
            let d0 = self
                .r
                .m
                .device_call(word, pb)
                .unwrap_or_else(|f| self.fail(f.to_string()));
            if d0 != 0 {
                self.fail(format!("an asynchronous call returned {d0}"));
            }
            reqs.push((pb, buf, write, lba, n, data));
        }
        let mut killed = false;
        if kill {
            let k = self.r.m.device_call(KILLIO, self.kill_pb).unwrap() as i16;
            if k != 0 && k != CONTROL_ERR {
                self.fail(format!("KillIO answered {k}"));
            }
            killed = k == 0;
        }
        let pbs: Vec<u32> = reqs.iter().map(|r| r.0).collect();
        // A hung target ends at the driver's 20 s `scsiTimeout`: up to 1,300 ticks.
        let done = self.r.m.idle_until(
            move |m| pbs.iter().all(|&p| m.read_u16(p + PB_DONE_COUNT) > 0),
            1300,
            "the asynchronous requests",
        );
        if let Err(f) = done {
            self.fail(f.to_string());
        }
        for (pb, buf, write, lba, n, data) in reqs {
            let e = self.r.m.read_u16(pb + PB_DONE_D0) as i16;
            if self.r.m.read_u16(pb + PB_DONE_COUNT) != 1 {
                self.fail("a completion routine ran other than once".into());
            }
            match (e, write) {
                (0, true) => self.apply_write(lba, &data),
                (0, false) => {
                    let got = self.r.m.read_bytes(buf, n * 512);
                    self.check_read(lba, &got);
                }
                // Never started: nothing was written.
                (ABORT_ERR, _) if killed => self.stats[3] += 1,
                (e, true) => self.failed_write(lba, n, e),
                (e, false) if !self.fault => {
                    self.fail(format!("an asynchronous read failed ({e}) with no fault"))
                }
                _ => self.stats[2] += 1,
            }
        }
    }

    fn inject_fault(&mut self) {
        let four3 = self.r.rom != RomGeneration::OriginalScsiManager;
        let d = self.r.disk();
        match self.rng.below(6) {
            0 => {
                let blocks = d.blocks();
                let lba = 100 + self.rng.below_u64(blocks - 200);
                self.r.disk().inject_read_error(lba);
            }
            1 => d.inject_not_ready(1 + self.rng.below(3) as u32, NotReadyCause::BecomingReady),
            2 => d.inject_busy(1 + self.rng.below(3) as u32),
            3 => d.inject_bus_reset(1 + self.rng.below(3) as u32),
            4 if four3 => d.inject_hang(1),
            _ => d.inject_short_data(1, 512),
        }
        self.fault = true;
        self.stats[5] += 1;
    }

    /// Faults spent (or cleared): requests must succeed again.
    fn settle_faults(&mut self) {
        let d = self.r.disk();
        d.clear_medium_errors();
        let f = d.faults().clone();
        if f.not_ready == 0
            && f.busy == 0
            && f.bus_reset_in.is_none()
            && f.hangs == 0
            && f.short_data == 0
        {
            self.fault = false;
        }
    }

    /// An idle second in the event loop: the idle flush has written everything back.
    fn idle(&mut self) {
        let ticks = 62 + self.rng.below(30) as u32;
        self.r
            .m
            .run_event_loop(ticks)
            .unwrap_or_else(|f| self.fail(f.to_string()));
        let cached = self.r.disk().cached_blocks();
        if cached != 0 && !self.fault {
            self.fail(format!(
                "{cached} blocks still only in the drive's cache after {ticks} idle ticks"
            ));
        }
    }

    /// The power goes. The window rule: only the blocks the drive still held in its write
    /// cache at that moment may go back to what the medium holds (the shadow takes the
    /// medium's contents for those); any other block that differs from the shadow was lost
    /// although the drive had it on the medium — a write acknowledged but never sent, or sent
    /// elsewhere — and fails the run.
    fn power_loss(&mut self) {
        let blocks = self.r.disk().blocks();
        let cached: HashSet<u64> = self.r.disk().cached_lbas().into_iter().collect();
        let store = self.r.disk().read_store(0, blocks).unwrap();
        self.r.disk().power_loss();
        self.stats[4] += 1;
        let after = self.r.disk().read_visible(0, blocks).unwrap();
        if after != store {
            self.fail("the medium changed at the power loss".into());
        }
        for b in 0..blocks {
            let at = b as usize * 512;
            if self.shadow[at..at + 512] == after[at..at + 512] || self.unknown.contains(&b) {
                continue;
            }
            if !cached.contains(&b) {
                self.fail(format!(
                    "after the power loss block {b} is not what the driver acknowledged, and the \
                     drive did not hold it in its cache ({} blocks were cached): the \
                     acknowledged write never reached it",
                    cached.len()
                ));
            }
            // Acknowledged, still in the drive's cache: lost, within the window.
            self.shadow[at..at + 512].copy_from_slice(&after[at..at + 512]);
        }
    }

    fn run(&mut self, ops: usize) -> SoakMachine {
        for op in 0..ops {
            self.ops = op;
            match self.rng.below(100) {
                0..=29 => self.sync_io(READ),
                30..=54 => self.sync_io(WRITE),
                55..=74 => self.async_batch(),
                75..=79 => self.sync_io(READ | IMMED),
                80..=84 => self.sync_io(WRITE | IMMED),
                85..=91 => self.idle(),
                92..=96 => self.inject_fault(),
                _ => {
                    // Everything durable first, so a loss here is the window's only.
                    self.idle();
                    self.power_loss();
                }
            }
            if self.fault && self.rng.below(4) == 0 {
                self.settle_faults();
            }
        }
        // At the end: faults off, an idle second, and the whole disk as acknowledged.
        let d = self.r.disk();
        d.clear_medium_errors();
        self.fault = true;
        self.r.m.run_event_loop(5).unwrap();
        self.settle_faults();
        self.idle();
        let blocks = self.r.disk().blocks();
        let all = self.r.disk().read_store(0, blocks).unwrap();
        for b in 0..blocks {
            let at = b as usize * 512;
            if !self.unknown.contains(&b) && all[at..at + 512] != self.shadow[at..at + 512] {
                self.fail(format!(
                    "block {b} on the medium is not what was acknowledged"
                ));
            }
        }
        let [reads, writes, failed, aborted, losses, faults] = self.stats;
        eprintln!(
            "soak {}: {ops} operations: {reads} reads checked, {writes} writes acknowledged, \
             {failed} requests failed under {faults} faults, {aborted} aborted by KillIO, \
             {losses} power losses; {} blocks unknown",
            self.what,
            self.unknown.len()
        );
        SoakMachine {
            machine: self.what.clone(),
            reads_checked: reads.into(),
            writes_acknowledged: writes.into(),
            requests_failed: failed.into(),
            aborted: aborted.into(),
            power_losses: losses.into(),
            faults: faults.into(),
            unknown_blocks: self.unknown.len() as u64,
        }
    }
}

fn ops() -> usize {
    std::env::var("FERRITE_SOAK_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SHORT_OPS)
}

/// With `FERRITE_SOAK_RECORD=1` (`cargo xtask soak` sets it) the run leaves its record in
/// `docs/records/`, passed or failed, and `docs/RELIABILITY.md`'s soak table is regenerated.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn soak() {
    let seed = seed_from_env();
    let ops = ops();
    let record = std::env::var_os("FERRITE_SOAK_RECORD").is_some_and(|v| v == "1");
    let started = std::time::Instant::now();
    let mut machines: Vec<(ferrite_emu::CpuModel, RomGeneration)> = CPUS
        .into_iter()
        .flat_map(|cpu| ROMS.into_iter().map(move |rom| (cpu, rom)))
        .collect();
    machines.push((ferrite_emu::CpuModel::M68040, RomGeneration::Quadra));
    let mut done = Vec::new();
    let mut failure = None;
    for (machine, &(cpu, rom)) in machines.iter().enumerate() {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Soak::new(cpu, rom, seed, machine as u64).run(ops)
        }));
        match run {
            Ok(m) => done.push(m),
            Err(p) => {
                failure = Some(p);
                break;
            }
        }
    }
    if record {
        let message = failure.as_ref().map(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".into())
                .replace('\n', " — ")
        });
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let r = records::soak_record(
            &root,
            &driver_blob(),
            seed,
            ops as u64,
            &done,
            message.as_deref(),
            started.elapsed().as_secs_f64(),
        );
        let path = records::write(&root, &r).expect("writing the soak's record");
        eprintln!("soak: record {}", path.display());
    }
    if let Some(p) = failure {
        std::panic::resume_unwind(p);
    }
}
