//! Benchmarks of whatever driver a disk carries, through the emulated Device Manager
//! (`ferrite bench`, issue 14): the disk image is booted by the Start Manager model on a
//! machine profile ([`crate::profile`]), and timed `_Read`/`_Write` calls go to the driver the
//! ROM loaded from the disk — Ferrite's, Apple's or anyone's — so drivers can be compared in
//! one run.
//!
//! Every figure is emulated time, the same on every run: a request's time is the emulated
//! cycles between the start and the end of a synchronous `_Read`/`_Write` at the profile's
//! clock, split into the driver's own CPU cycles ([`crate::Stats::cycles`]; the Mac OS
//! services are host routines that cost none), the SCSI Manager's modelled time
//! ([`crate::scsi_manager::counters`]) and the bus and disk time
//! ([`crate::scsi::ScsiBus::time_ns`]).
//!
//! **Limit.** Each series is also run as one READ(10)/WRITE(10) per request, straight on a
//! reference copy of the modelled bus and disk (same timing, same head position, same
//! write-cache state), charged the SCSI Manager's cost of one command and a blind data phase:
//! what a driver that cost nothing and sent the fewest commands would get on that machine.
//!
//! The image is never written: the emulated drive holds a copy in memory.

use crate::drive_queue::Drive;
use crate::machine::{Machine, MachineConfig};
use crate::memory_manager::ZoneId;
use crate::profile::{DiskProfile, MachineProfile, Manager, TransferKind};
use crate::scsi::{DiskConfig, DiskTarget, ScsiBus};
use crate::scsi_manager::{self, CompletionTiming, ScsiManagerConfig};
use crate::seed::Rng;
use crate::start_manager::{BootConfig, BootReport, RomGeneration, boot};

/// Offsets in an `IOParam` (mac-facts §2).
const IO_VREFNUM: u32 = 22;
const IO_REFNUM: u32 = 24;
const IO_BUFFER: u32 = 32;
const IO_REQ_COUNT: u32 = 36;
const IO_ACT_COUNT: u32 = 40;
const IO_POS_MODE: u32 = 44;
const IO_POS_OFFSET: u32 = 46;
const PB_SIZE: u32 = 50;
/// `fsFromStart`.
const FS_FROM_START: u16 = 1;
/// `_Read` and `_Write`, synchronous.
const READ: u16 = 0xA002;
const WRITE: u16 = 0xA003;
/// The largest request any workload makes (1 MB).
pub const MAX_REQUEST: u32 = 1 << 20;
/// The smallest volume the whole suite fits in: the sweep's 1 MB requests, 64 of the
/// small ones, and BenchTest's 768 KB transfers at random starts.
pub const MIN_VOLUME_BYTES: u64 = 8 << 20;

/// What to benchmark on.
#[derive(Debug, Clone, Copy)]
pub struct BenchSetup {
    pub machine: MachineProfile,
    pub disk: DiskProfile,
    pub manager: Manager,
    /// The drive's write cache (caching mode page WCE) at power-on. A driver may change it
    /// (Ferrite's does what its settings block says).
    pub write_cache: bool,
    /// The disk's SCSI ID.
    pub id: u8,
    /// The seed of the SCSI Manager model's random choices ([`crate::seed`]).
    pub seed: u64,
}

/// Why a benchmark could not run, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BenchError {
    /// The image is not a whole disk of 512-byte blocks.
    Image(String),
    /// The emulated Mac stopped during the boot (a foreign driver may use something the
    /// model lacks: the message names it).
    Boot(String),
    /// No driver was loaded from the disk, or it mounted no volume.
    NoVolume(String),
    /// A request failed or the emulated Mac stopped inside it.
    Request(String),
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchError::Image(s) => write!(f, "the disk image: {s}"),
            BenchError::Boot(s) => write!(f, "the emulated Mac stopped during the boot: {s}"),
            BenchError::NoVolume(s) => f.write_str(s),
            BenchError::Request(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for BenchError {}

/// The time of a series of requests, split.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Split {
    /// Elapsed emulated time, ns.
    pub total_ns: u64,
    /// The driver's own CPU time (executed cycles), ns.
    pub driver_ns: u64,
    /// The SCSI Manager's modelled time, ns.
    pub manager_ns: u64,
    /// Bus and disk time, ns.
    pub bus_ns: u64,
    /// SCSI commands sent.
    pub commands: u64,
    /// The limit: the reference run's time, ns.
    pub limit_ns: u64,
    /// Data bytes moved.
    pub bytes: u64,
    /// Requests made.
    pub requests: u64,
    /// The driver's own CPU cycles.
    pub driver_cycles: u64,
}

impl Split {
    pub fn add(&mut self, o: &Split) {
        self.total_ns += o.total_ns;
        self.driver_ns += o.driver_ns;
        self.manager_ns += o.manager_ns;
        self.bus_ns += o.bus_ns;
        self.commands += o.commands;
        self.limit_ns += o.limit_ns;
        self.bytes += o.bytes;
        self.requests += o.requests;
        self.driver_cycles += o.driver_cycles;
    }
    pub fn kbps(&self) -> f64 {
        self.bytes as f64 / 1024.0 / (self.total_ns as f64 / 1e9)
    }
    pub fn tps(&self) -> f64 {
        self.requests as f64 / (self.total_ns as f64 / 1e9)
    }
    /// Measured rate over the limit's rate (= limit time / measured time).
    pub fn ratio(&self) -> f64 {
        self.limit_ns as f64 / self.total_ns as f64
    }
    pub fn driver_share(&self) -> f64 {
        self.driver_ns as f64 / self.total_ns as f64
    }
    pub fn manager_share(&self) -> f64 {
        self.manager_ns as f64 / self.total_ns as f64
    }
    pub fn ms_per_request(&self) -> f64 {
        self.total_ns as f64 / 1e6 / self.requests as f64
    }
    pub fn cycles_per_request(&self) -> f64 {
        self.driver_cycles as f64 / self.requests as f64
    }
}

/// The order of a sweep's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Forward,
    Backward,
    Random,
}

impl Pattern {
    pub const ALL: [Pattern; 3] = [Pattern::Forward, Pattern::Backward, Pattern::Random];
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Forward => "forward",
            Pattern::Backward => "backward",
            Pattern::Random => "random",
        }
    }
}

/// The reference bus and disk the limit is measured on.
struct Reference {
    bus: ScsiBus,
    machine: MachineProfile,
    manager: Manager,
    id: u8,
}

impl Reference {
    /// One READ(10)/WRITE(10) of `blocks` at `lba`: its bus/disk time plus the SCSI
    /// Manager's cost of one command with a blind data phase.
    fn request(&mut self, write: bool, lba: u64, blocks: u32) -> Result<u64, BenchError> {
        let bytes = blocks as usize * 512;
        let mut cdb = [0u8; 10];
        cdb[0] = if write { 0x2A } else { 0x28 };
        cdb[2..6].copy_from_slice(&(lba as u32).to_be_bytes());
        cdb[7..9].copy_from_slice(&(blocks as u16).to_be_bytes());
        let out = if write { vec![0u8; bytes] } else { Vec::new() };
        let e = self
            .bus
            .execute(self.id, 0, &cdb, &out, if write { 0 } else { bytes })
            .map_err(|e| BenchError::Request(format!("the reference disk: {e:?}")))?;
        if e.status != Some(0) {
            return Err(BenchError::Request(format!(
                "the reference disk refused {cdb:02X?} (status {:?})",
                e.status
            )));
        }
        let c = self.machine.cost;
        Ok(e.time_ns
            + c.command_ns(self.manager)
            + c.data_ns(TransferKind::Blind, bytes as u64, self.bus.bytes_per_sec))
    }
}

/// A booted machine on a profile, the drive being measured, and its reference.
pub struct Bench {
    pub m: Machine,
    pub report: BootReport,
    /// The drive measured: the first volume mounted from the disk.
    pub drive: Drive,
    /// Its volume's name and the partition's first block.
    pub volume: String,
    pub partition_start: u64,
    /// Bytes of the volume the workloads use (the drive's size, at most 4 GB − 1 MB).
    pub span: u32,
    pb: u32,
    buf: u32,
    reference: Reference,
    clock_hz: u64,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The `Apple_HFS` partitions of a partition map (first block, blocks), and each one's
/// volume name from its MDB (empty when it has none).
pub fn hfs_partitions(image: &[u8]) -> Vec<(u64, u64, String)> {
    let block = |n: u64| -> Option<&[u8]> {
        let at = usize::try_from(n * 512).ok()?;
        image.get(at..at + 512)
    };
    let mut out = Vec::new();
    let Some(first) = block(1) else {
        return out;
    };
    if be16(first, 0) != 0x504D {
        return out;
    }
    let count = be32(first, 4) as u64;
    for n in 1..=count.min(256) {
        let Some(e) = block(n) else { break };
        if be16(e, 0) != 0x504D {
            break;
        }
        let kind: Vec<u8> = e[48..80].iter().copied().take_while(|&c| c != 0).collect();
        if kind != b"Apple_HFS" {
            continue;
        }
        let start = be32(e, 8) as u64;
        let blocks = be32(e, 12) as u64;
        let name = match block(start + 2) {
            Some(mdb) if be16(mdb, 0) == 0x4244 => {
                let len = (mdb[0x24] as usize).min(27);
                String::from_utf8_lossy(&mdb[0x25..0x25 + len]).into_owned()
            }
            _ => String::new(),
        };
        out.push((start, blocks, name));
    }
    out
}

impl Bench {
    /// Boot `image` (a whole disk of 512-byte blocks) on `setup`'s machine and disk
    /// profiles, and pick the first volume the disk's driver mounted.
    pub fn boot(image: &[u8], setup: &BenchSetup) -> Result<Bench, BenchError> {
        if image.is_empty() || !image.len().is_multiple_of(512) {
            return Err(BenchError::Image(format!(
                "{} bytes is not a whole number of 512-byte blocks",
                image.len()
            )));
        }
        let rom = match setup.manager {
            Manager::V43 => RomGeneration::ScsiManager43,
            Manager::Original => RomGeneration::OriginalScsiManager,
        };
        let mut cfg = MachineConfig::new(setup.machine.cpu);
        cfg.clock_hz = setup.machine.clock_hz;
        let mut m = Machine::with_config(cfg).map_err(BenchError::Boot)?;
        m.install_mac_os();
        scsi_manager::install(
            &mut m,
            ScsiManagerConfig {
                v43_present: setup.manager == Manager::V43,
                seed: setup.seed,
                ..Default::default()
            },
        );
        scsi_manager::set_profile(&mut m, Some(setup.machine.cost));
        scsi_manager::bus(&mut m).bytes_per_sec = setup.machine.bus_bytes_per_sec;
        scsi_manager::set_completion_timing(&mut m, CompletionTiming::BusTime);
        let blocks = (image.len() / 512) as u64;
        let dcfg = DiskConfig {
            timing: setup.disk.timing,
            write_cache_enabled: setup.write_cache,
            ..Default::default()
        };
        let mut target = DiskTarget::in_memory(blocks, dcfg.clone())
            .map_err(|e| BenchError::Image(e.to_string()))?;
        target
            .write_store(0, image)
            .map_err(|e| BenchError::Image(e.to_string()))?;
        scsi_manager::bus(&mut m).attach(setup.id, Box::new(target));
        let report =
            boot(&mut m, &BootConfig::new(rom)).map_err(|e| BenchError::Boot(e.to_string()))?;
        let Some(ref_num) = report
            .drivers()
            .find(|d| d.id == setup.id)
            .and_then(|d| d.ref_num)
        else {
            return Err(BenchError::NoVolume(format!(
                "no driver was loaded from the disk at ID {}:\n{report}",
                setup.id
            )));
        };
        let parts = hfs_partitions(image);
        let Some((drive, volume, start)) = report.volumes.iter().find_map(|v| {
            let d = m.drive(v.drive as i16)?;
            if d.ref_num != ref_num {
                return None;
            }
            let (start, _, _) = parts.iter().find(|p| p.2 == v.name)?;
            Some((d, v.name.clone(), *start))
        }) else {
            return Err(BenchError::NoVolume(format!(
                "the disk's driver mounted no volume found in its partition map:\n{report}"
            )));
        };
        let span = (drive.blocks as u64 * 512).min(u32::MAX as u64 - MAX_REQUEST as u64) as u32;
        if (span as u64) < MIN_VOLUME_BYTES {
            return Err(BenchError::NoVolume(format!(
                "volume \"{volume}\" has {} KB: the benchmarks need at least {} MB",
                span / 1024,
                MIN_VOLUME_BYTES >> 20
            )));
        }
        let pb = m
            .new_ptr(ZoneId::System, PB_SIZE, true)
            .map_err(|e| BenchError::Boot(format!("NewPtr for the parameter block: {e}")))?;
        let buf = m
            .new_ptr(ZoneId::System, MAX_REQUEST, true)
            .map_err(|e| BenchError::Boot(format!("NewPtr for a 1 MB buffer: {e}")))?;
        // The reference: the same disk, fresh, at the driver's head position after the boot.
        let mut rt = DiskTarget::in_memory(blocks, dcfg.clone())
            .map_err(|e| BenchError::Image(e.to_string()))?;
        if let Some(d) = scsi_manager::bus(&mut m).target_as_mut::<DiskTarget>(setup.id) {
            rt.set_head(d.head());
            rt.set_write_cache(d.write_cache_enabled());
        }
        let mut bus = ScsiBus::new();
        bus.bytes_per_sec = setup.machine.bus_bytes_per_sec;
        bus.attach(setup.id, Box::new(rt));
        // The power-on unit attention: reported to TEST UNIT READY, cleared by REQUEST SENSE.
        for _ in 0..3 {
            let e = bus.execute(setup.id, 0, &[0; 6], &[], 0);
            if matches!(e, Ok(ref e) if e.status == Some(0)) {
                break;
            }
            let _ = bus.execute(setup.id, 0, &[0x03, 0, 0, 0, 18, 0], &[], 18);
        }
        Ok(Bench {
            m,
            report,
            drive,
            volume,
            partition_start: start,
            span,
            pb,
            buf,
            reference: Reference {
                bus,
                machine: setup.machine,
                manager: setup.manager,
                id: setup.id,
            },
            clock_hz: setup.machine.clock_hz as u64,
        })
    }

    fn ns(&self, cycles: u64) -> u64 {
        (cycles as u128 * 1_000_000_000 / self.clock_hz as u128) as u64
    }

    /// One synchronous request of `bytes` at byte `offset` of the volume, timed.
    pub fn request(&mut self, write: bool, offset: u32, bytes: u32) -> Result<Split, BenchError> {
        assert!(bytes <= MAX_REQUEST && bytes.is_multiple_of(512) && offset.is_multiple_of(512));
        let m = &mut self.m;
        let (pb, buf) = (self.pb, self.buf);
        m.bus_mut().fill_host(pb, PB_SIZE, 0);
        m.write_u16(pb + IO_VREFNUM, self.drive.number as u16);
        m.write_u16(pb + IO_REFNUM, self.drive.ref_num as u16);
        m.write_u32(pb + IO_BUFFER, buf);
        m.write_u32(pb + IO_REQ_COUNT, bytes);
        m.write_u16(pb + IO_POS_MODE, FS_FROM_START);
        m.write_u32(pb + IO_POS_OFFSET, offset);
        let c0 = m.emulated_cycles();
        let d0 = m.stats().cycles;
        let k0 = scsi_manager::counters(m);
        let b0 = scsi_manager::bus(m).time_ns();
        let l0 = scsi_manager::bus(m).log().len();
        let what = if write { "_Write" } else { "_Read" };
        let result = m
            .device_call(if write { WRITE } else { READ }, pb)
            .map_err(|e| {
                BenchError::Request(format!(
                    "{what} of {bytes} bytes at byte {offset}: the emulated Mac stopped: {e}"
                ))
            })? as i16;
        let act = m.read_u32(pb + IO_ACT_COUNT);
        if result != 0 || act != bytes {
            return Err(BenchError::Request(format!(
                "{what} of {bytes} bytes at byte {offset} of volume \"{}\" returned {result} \
                 with {act} bytes moved",
                self.volume
            )));
        }
        let total = m.emulated_cycles() - c0;
        let driver = m.stats().cycles - d0;
        let k1 = scsi_manager::counters(m);
        let bus = scsi_manager::bus(m);
        let bus_ns = bus.time_ns() - b0;
        let commands = (bus.log().len() - l0) as u64;
        if bus.log().len() > 10_000 {
            bus.clear_log();
        }
        let lba = self.partition_start + offset as u64 / 512;
        let limit_ns = self.reference.request(write, lba, bytes / 512)?;
        Ok(Split {
            total_ns: self.ns(total),
            driver_ns: self.ns(driver),
            manager_ns: k1.manager_ns - k0.manager_ns,
            bus_ns,
            commands,
            limit_ns,
            bytes: bytes as u64,
            requests: 1,
            driver_cycles: driver,
        })
    }

    /// Idle time between series: the drive writes its cache back on its own, as drives do
    /// when the bus is quiet, so one series' dirty blocks are not charged to the next. Not
    /// counted in any figure; the reference disk does the same.
    pub fn idle(&mut self) -> Result<(), BenchError> {
        let id = self.reference.id;
        let flush = |bus: &mut ScsiBus| -> Result<(), BenchError> {
            if let Some(d) = bus.target_as_mut::<DiskTarget>(id) {
                d.flush()
                    .map_err(|e| BenchError::Request(format!("idle write-back: {e}")))?;
            }
            Ok(())
        };
        flush(scsi_manager::bus(&mut self.m))?;
        flush(&mut self.reference.bus)
    }

    /// Requests `(offset, bytes)` in order, summed.
    pub fn series(&mut self, write: bool, reqs: &[(u32, u32)]) -> Result<Split, BenchError> {
        let mut s = Split::default();
        for &(offset, bytes) in reqs {
            s.add(&self.request(write, offset, bytes)?);
        }
        Ok(s)
    }

    /// BenchTest's sustained transfer: twenty 768 KB requests at seeded random starts.
    pub fn sustained(&mut self, write: bool) -> Result<Split, BenchError> {
        let mut rng = Rng::new(0x0768_5EED, 1);
        let size = 768 * 1024;
        let slots = (self.span - size) / 512;
        let reqs: Vec<(u32, u32)> = (0..20)
            .map(|_| (rng.below(slots as usize) as u32 * 512, size))
            .collect();
        self.series(write, &reqs)
    }

    /// BenchTest's transactions per second: 200 sequential single-block requests.
    pub fn tps(&mut self, write: bool) -> Result<Split, BenchError> {
        let reqs: Vec<(u32, u32)> = (0..200).map(|i| (i * 512, 512)).collect();
        self.series(write, &reqs)
    }

    /// Access time: 50 single-block reads at seeded random places.
    pub fn access(&mut self) -> Result<Split, BenchError> {
        let mut rng = Rng::new(0xACCE55, 2);
        let blocks = self.span / 512;
        let reqs: Vec<(u32, u32)> = (0..50)
            .map(|_| (rng.below(blocks as usize) as u32 * 512, 512))
            .collect();
        self.series(false, &reqs)
    }

    /// A diskperf-style series: `count_for(size)` requests of `size` bytes in `pattern`
    /// order over consecutive places from the volume's start (random: a seeded shuffle).
    pub fn sweep(&mut self, write: bool, pattern: Pattern, size: u32) -> Result<Split, BenchError> {
        let n = count_for(size);
        let mut offsets: Vec<u32> = (0..n).map(|i| i * size).collect();
        match pattern {
            Pattern::Forward => {}
            Pattern::Backward => offsets.reverse(),
            Pattern::Random => Rng::new(size as u64, 3).shuffle(&mut offsets),
        }
        let reqs: Vec<(u32, u32)> = offsets.into_iter().map(|o| (o, size)).collect();
        self.series(write, &reqs)
    }

    /// The small files' read requests, in order (as [`Bench::small_files`] makes them).
    pub fn small_files_trace(&self) -> Vec<(u32, u32)> {
        let mut rng = Rng::new(0x5F11E5, 4);
        let catalog_blocks = (self.span / 512 / 50).max(16);
        let data_slots = self.span / 512 - catalog_blocks - 32;
        let mut out = Vec::new();
        for _ in 0..300 {
            let cat = (rng.below(catalog_blocks as usize) as u32) * 512;
            let size = (1 + rng.below(32) as u32) * 512;
            let at = (catalog_blocks + rng.below(data_slots as usize) as u32) * 512;
            out.push((cat, 512));
            out.push((at, size));
        }
        out
    }

    /// What a driver-level read cache would give on read requests `reqs` (the study of
    /// issue 14 item 6; Drive7's Mount Cache is the period's example): an LRU cache of
    /// `cache_blocks` blocks; a request whose blocks are all cached costs `hit_cycles` of
    /// driver time plus `copy_cycles_per_byte` per byte (estimates: the cache isn't built), any
    /// other is sent to the disk through the real driver, extended by `read_ahead_blocks`
    /// (within the volume), and its blocks enter the cache. Returns (time with the cache, time
    /// without it) in ns — the latter the same requests measured plainly.
    pub fn read_cache_study(
        &mut self,
        reqs: &[(u32, u32)],
        cache_blocks: usize,
        read_ahead_blocks: u32,
        hit_cycles: u64,
        copy_cycles_per_byte: u64,
    ) -> Result<(u64, u64), BenchError> {
        let plain = self.series(false, reqs)?.total_ns;
        self.idle()?;
        let mut lru: std::collections::VecDeque<u32> = std::collections::VecDeque::new();
        let mut cached = std::collections::BTreeSet::new();
        let mut total = 0;
        for &(offset, bytes) in reqs {
            let first = offset / 512;
            let n = bytes / 512;
            if (first..first + n).all(|b| cached.contains(&b)) {
                total += self.ns(hit_cycles + copy_cycles_per_byte * bytes as u64);
                continue;
            }
            let end = (first + n + read_ahead_blocks).min(self.span / 512);
            let len = ((end - first) * 512).min(MAX_REQUEST);
            total += self.request(false, offset, len)?.total_ns;
            for b in first..first + len / 512 {
                if cached.insert(b) {
                    lru.push_back(b);
                }
                while lru.len() > cache_blocks {
                    if let Some(old) = lru.pop_front() {
                        cached.remove(&old);
                    }
                }
            }
        }
        Ok((total, plain))
    }

    /// The file workload's small files: 300 files of 1–16 KB. Each is a 512-byte catalog
    /// read near the volume's start, then its data in one request at a seeded place (as the
    /// File Manager reads whole blocks of a contiguous file straight into the caller's
    /// buffer); writing, the data and then the catalog block.
    pub fn small_files(&mut self, write: bool) -> Result<Split, BenchError> {
        let mut rng = Rng::new(0x5F11E5, 4);
        let catalog_blocks = (self.span / 512 / 50).max(16);
        let data_slots = self.span / 512 - catalog_blocks - 32;
        let mut s = Split::default();
        for _ in 0..300 {
            let cat = (rng.below(catalog_blocks as usize) as u32) * 512;
            let size = (1 + rng.below(32) as u32) * 512;
            let at = (catalog_blocks + rng.below(data_slots as usize) as u32) * 512;
            if write {
                s.add(&self.request(true, at, size)?);
                s.add(&self.request(true, cat, 512)?);
            } else {
                s.add(&self.request(false, cat, 512)?);
                s.add(&self.request(false, at, size)?);
            }
        }
        Ok(s)
    }

    /// The file workload's large file: 8 MB in 64 KB requests, from the volume's middle.
    pub fn large_file(&mut self, write: bool) -> Result<Split, BenchError> {
        let size = 64 * 1024;
        let start = (self.span / 2 - (8 << 20).min(self.span / 2)) & !511;
        let reqs: Vec<(u32, u32)> = (0..128).map(|i| (start + i * size, size)).collect();
        self.series(write, &reqs)
    }
}

/// Request sizes of the sweep: 512 B … 1 MB.
pub fn sweep_sizes() -> Vec<u32> {
    (0..12).map(|i| 512u32 << i).collect()
}

/// Requests per sweep size: enough to cover ≥ 256 KB or 4 requests, at most 64.
pub fn count_for(size: u32) -> u32 {
    ((256 * 1024) / size).clamp(4, 64)
}

/// A size in words: "512 B", "4 KB", "1 MB".
pub fn size_name(size: u32) -> String {
    if size >= 1 << 20 {
        format!("{} MB", size >> 20)
    } else if size >= 1024 {
        format!("{} KB", size >> 10)
    } else {
        format!("{size} B")
    }
}
