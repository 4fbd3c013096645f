//! The benchmark of Drive ▸ Benchmark…: FWB HDT BenchTest's suite planned over a region of
//! the disk, and the figures from the Mac's tick count. Host-tested; the 68k side that runs
//! the requests and shows the table is `ui::bench`.
//!
//! The suite (the same definitions as the host's `ferrite bench`, `docs/BENCHMARKS.md`):
//! * **sustained**: twenty 768 KB transfers at random starting places, read, then (read +
//!   write) written; each transfer is sent as requests of [`CHUNK_BLOCKS`] (64 KB, the buffer
//!   the app keeps: a 768 KB buffer does not fit its 512 KB partition);
//! * **transactions per second**: 200 sequential single-block (512-byte) requests from the
//!   region's start, read, then written;
//! * **access time**: the mean time of 50 single-block reads at random places.
//!
//! Places come from a fixed-seed generator, so every run (and the test) sends the same
//! commands. Every place lies inside the region: the partition map's free space when the
//! benchmark writes, so nothing but free space is ever written.
//!
//! Places and sizes are `u32` block numbers (READ(10)/WRITE(10) address no more); the plan
//! does no 64-bit arithmetic (an earlier `u64` version chose other places on the 68k than on
//! the host, see docs/setup.md).
//!
//! Time is `TickCount` (60.15 per second, every Mac has it): each series is timed from its
//! first request to its last, so a figure is off by at most one tick of the series' time.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// Blocks of one sustained transfer (768 KB).
pub const SUSTAINED_BLOCKS: u32 = 1536;
/// Sustained transfers per direction.
pub const SUSTAINED_COUNT: usize = 20;
/// Blocks per request of a sustained transfer (64 KB).
pub const CHUNK_BLOCKS: u32 = 128;
/// Requests per sustained transfer.
pub const REQUESTS_PER_TRANSFER: usize = (SUSTAINED_BLOCKS / CHUNK_BLOCKS) as usize;
/// Sequential single-block requests per direction.
pub const TPS_COUNT: usize = 200;
/// Random single-block reads of the access-time series.
pub const ACCESS_COUNT: usize = 50;
/// The smallest region the suite runs in: one sustained transfer and the transactions.
pub const MIN_REGION_BLOCKS: u32 = SUSTAINED_BLOCKS;
/// `Ticks` per second, ×100 (the VBL rate, 60.15 Hz).
pub const TICKS_PER_100_S: u64 = 6015;
/// The generator's seed.
pub const SEED: u32 = 0x0768_5EED;

/// The five series, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Series {
    SustainedRead,
    SustainedWrite,
    TpsRead,
    TpsWrite,
    Access,
}

impl Series {
    pub fn sustained(self) -> bool {
        matches!(self, Series::SustainedRead | Series::SustainedWrite)
    }
    pub fn writes(self) -> bool {
        matches!(self, Series::SustainedWrite | Series::TpsWrite)
    }
    pub fn name(self) -> &'static str {
        match self {
            Series::SustainedRead => "Sustained read",
            Series::SustainedWrite => "Sustained write",
            Series::TpsRead => "Transactions read",
            Series::TpsWrite => "Transactions write",
            Series::Access => "Access time",
        }
    }
}

/// One request: `blocks` at `block`, counted from the region's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub block: u32,
    pub blocks: u32,
}

/// A series and its requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub series: Series,
    pub requests: Vec<Request>,
    /// Data bytes the series moves.
    pub bytes: u64,
    /// Transactions the figure counts: transfers (sustained) or requests.
    pub count: u64,
}

/// xorshift32 (Marsaglia): small, and the same on the 68k and the host.
pub struct Rng(u32);

impl Rng {
    pub fn new(seed: u32) -> Rng {
        Rng(seed | 1)
    }
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
    /// A number below `n` (> 0).
    pub fn below(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }
}

fn sustained(series: Series, rng: &mut Rng, region: u32) -> Planned {
    let mut requests = Vec::new();
    for _ in 0..SUSTAINED_COUNT {
        let start = rng.below(region - SUSTAINED_BLOCKS + 1);
        let mut done = 0u32;
        while done < SUSTAINED_BLOCKS {
            requests.push(Request {
                block: start + done,
                blocks: CHUNK_BLOCKS,
            });
            done += CHUNK_BLOCKS;
        }
    }
    Planned {
        series,
        requests,
        bytes: SUSTAINED_COUNT as u64 * SUSTAINED_BLOCKS as u64 * 512,
        count: SUSTAINED_COUNT as u64,
    }
}

fn single(series: Series, blocks: impl Iterator<Item = u32>) -> Planned {
    let requests: Vec<Request> = blocks.map(|block| Request { block, blocks: 1 }).collect();
    Planned {
        series,
        bytes: requests.len() as u64 * 512,
        count: requests.len() as u64,
        requests,
    }
}

/// The suite over a region of `region` blocks; `None` when it is smaller than
/// [`MIN_REGION_BLOCKS`].
pub fn plan(region: u32, write: bool) -> Option<Vec<Planned>> {
    if region < MIN_REGION_BLOCKS {
        return None;
    }
    let mut rng = Rng::new(SEED);
    let mut v = Vec::new();
    v.push(sustained(Series::SustainedRead, &mut rng, region));
    if write {
        v.push(sustained(Series::SustainedWrite, &mut rng, region));
    }
    v.push(single(Series::TpsRead, 0..TPS_COUNT as u32));
    if write {
        v.push(single(Series::TpsWrite, 0..TPS_COUNT as u32));
    }
    let places: Vec<u32> = (0..ACCESS_COUNT).map(|_| rng.below(region)).collect();
    v.push(single(Series::Access, places.into_iter()));
    Some(v)
}

/// The scratch region for writes: the largest free-space partition (`Apple_Free`) of at
/// least [`MIN_REGION_BLOCKS`], as (start, blocks); the first of equals.
pub fn scratch(partitions: impl Iterator<Item = (bool, u32, u32)>) -> Option<(u32, u32)> {
    let mut best: Option<(u32, u32)> = None;
    for (free, start, blocks) in partitions {
        if free && blocks >= MIN_REGION_BLOCKS && best.is_none_or(|(_, b)| blocks > b) {
            best = Some((start, blocks));
        }
    }
    best
}

/// A series' figure from its ticks (at least one tick is counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// KB (1,024 bytes) per second.
    KbPerSecond(u64),
    /// Requests per second.
    PerSecond(u64),
    /// Mean milliseconds per request, in tenths.
    TenthsMs(u64),
}

/// KB/s, requests per second or mean ms of `p` timed over `ticks`.
pub fn figure(p: &Planned, ticks: u32) -> Figure {
    let t = ticks.max(1) as u64;
    match p.series {
        Series::SustainedRead | Series::SustainedWrite => {
            Figure::KbPerSecond(p.bytes * TICKS_PER_100_S / (t * 1024 * 100))
        }
        Series::TpsRead | Series::TpsWrite => {
            Figure::PerSecond(p.count * TICKS_PER_100_S / (t * 100))
        }
        Series::Access => Figure::TenthsMs(t * 1_000_000 / (TICKS_PER_100_S * p.count)),
    }
}

impl core::fmt::Display for Figure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Figure::KbPerSecond(k) => write!(f, "{k} KB/s"),
            Figure::PerSecond(n) => write!(f, "{n} per second"),
            Figure::TenthsMs(t) => write!(f, "{}.{} ms", t / 10, t % 10),
        }
    }
}

/// What the results name besides the figures.
pub struct Heading<'a> {
    /// "ID 3, IBM DORS-31080 (20.0 MB, 40960 blocks)".
    pub drive: &'a str,
    /// How the requests went: "the Device Manager: driver .Ferrite (refNum -36), drive 8"
    /// or "SCSI commands through SCSI Manager 4.3".
    pub path: &'a str,
    /// The driver: its name in the unit table, or what the disk carries.
    pub driver: &'a str,
    /// "blocks 16480-40959 (free space, written)". The table is ASCII (it goes to the
    /// clipboard as Mac text).
    pub region: &'a str,
}

/// The results as text: a title, then one "name<TAB>value" line per row, lines ended by
/// carriage returns (the Mac's text convention); what Copy puts on the clipboard.
pub fn table(h: &Heading<'_>, figures: &[(Series, Figure)]) -> String {
    let mut s = String::from("Ferrite Setup benchmark (BenchTest suite)\r");
    let _ = write!(
        s,
        "Drive\t{}\rThrough\t{}\rDriver\t{}\rRegion\t{}\r",
        h.drive, h.path, h.driver, h.region
    );
    for (series, f) in figures {
        let _ = write!(s, "{}\t{f}\r", series.name());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn the_suite_stays_in_its_region_and_matches_benchtest() {
        for region in [MIN_REGION_BLOCKS, 24_480, 1 << 22] {
            let p = plan(region, true).unwrap();
            let names: Vec<Series> = p.iter().map(|s| s.series).collect();
            assert_eq!(
                names,
                [
                    Series::SustainedRead,
                    Series::SustainedWrite,
                    Series::TpsRead,
                    Series::TpsWrite,
                    Series::Access
                ]
            );
            for s in &p {
                for r in &s.requests {
                    assert!(r.block + r.blocks <= region, "{region} {r:?}");
                }
            }
            assert_eq!(p[0].requests.len(), 20 * 12);
            assert_eq!(p[0].bytes, 20 * 768 * 1024);
            assert_eq!(p[2].requests.len(), 200);
            assert!(
                p[2].requests
                    .iter()
                    .enumerate()
                    .all(|(i, r)| r.block == i as u32)
            );
            assert_eq!(p[4].requests.len(), 50);
        }
        assert!(plan(MIN_REGION_BLOCKS - 1, false).is_none());
        let ro = plan(40_000, false).unwrap();
        assert!(ro.iter().all(|s| !s.series.writes()));
        assert_eq!(ro.len(), 3);
    }

    #[test]
    fn figures_from_ticks() {
        let p = plan(40_000, true).unwrap();
        // 15 MB in 601.5 ticks would be 10 s: 1536 KB/s; 600 ticks → 1,539.
        assert_eq!(figure(&p[0], 600), Figure::KbPerSecond(1539));
        assert_eq!(figure(&p[2], 20), Figure::PerSecond(601));
        // 50 reads in 30 ticks: 9.97 ms each.
        assert_eq!(figure(&p[4], 30).to_string(), "9.9 ms");
        assert_eq!(figure(&p[2], 0), figure(&p[2], 1));
    }

    #[test]
    fn scratch_is_the_largest_free_space() {
        let parts = [
            (false, 1, 63),
            (true, 100, 2000),
            (true, 5000, 9000),
            (true, 20_000, 100),
        ];
        assert_eq!(scratch(parts.into_iter()), Some((5000, 9000)));
        assert_eq!(scratch([(true, 5, 100)].into_iter()), None);
    }

    #[test]
    fn the_table_is_text_with_mac_line_ends() {
        let h = Heading {
            drive: "ID 3, IBM X",
            path: "SCSI",
            driver: "none",
            region: "blocks 1-2",
        };
        let t = table(&h, &[(Series::Access, Figure::TenthsMs(123))]);
        assert_eq!(
            t,
            "Ferrite Setup benchmark (BenchTest suite)\rDrive\tID 3, IBM X\rThrough\tSCSI\rDriver\tnone\rRegion\tblocks 1-2\rAccess time\t12.3 ms\r"
        );
    }
}
