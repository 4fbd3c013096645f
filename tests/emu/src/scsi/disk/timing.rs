//! The timing model behind [`crate::scsi::ScsiTarget::busy_ns`]: modelled target time of one
//! command, not counting the bus transfer (the bus adds that).
//!
//! * every command costs `command_overhead_ns`;
//! * a media access away from the head costs a seek — 0 for distance 0, otherwise
//!   `track_to_track_seek_ns + (full_stroke_seek_ns − track_to_track_seek_ns) × √(distance /
//!   capacity)` — plus half a revolution of rotational latency (`30e9 / rpm` ns; none with
//!   `rpm = 0`);
//! * media transfer at `media_bytes_per_sec`;
//! * read cache: after a read the drive pre-fetches the next `read_ahead_bytes` into its
//!   segment; a read starting inside that segment (a sequential read right after a read) takes
//!   the overlapping blocks from the segment at no media cost and streams the rest without
//!   seek or latency. Any other media access (write, verify, format, flush) drops the
//!   segment; so does RCD = 1;
//! * write cache (WCE = 1): a cached write costs only the overhead (plus writing evicted
//!   blocks); flushing costs a seek + latency per contiguous run plus media transfer.

/// Timing parameters. Presets: [`TimingConfig::hdd_7200_1990s`] (the default),
/// [`TimingConfig::sd_card_emulator`], [`TimingConfig::instant`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingConfig {
    /// Per-command firmware overhead.
    pub command_overhead_ns: u64,
    /// Seek to the adjacent track.
    pub track_to_track_seek_ns: u64,
    /// Seek across the whole medium.
    pub full_stroke_seek_ns: u64,
    /// Spindle speed; 0 = no rotation (solid-state).
    pub rpm: u32,
    /// Sustained media rate.
    pub media_bytes_per_sec: u64,
    /// Sustained media rate of writes; 0 = the same as [`TimingConfig::media_bytes_per_sec`].
    pub write_bytes_per_sec: u64,
    /// Read-ahead segment size; 0 = no read-ahead.
    pub read_ahead_bytes: u64,
    /// A read served from the read-ahead segment still takes the media time of its blocks
    /// (only seek and latency are saved): the drive fills the segment while the commands come
    /// back to back, so a sequential stream runs at the media rate however it is split into
    /// commands. `false`: the segment's blocks cost nothing (as if the drive had filled it
    /// while idle). The benchmark profiles set it.
    pub read_ahead_at_media_rate: bool,
    /// START STOP UNIT start=1 on a stopped unit.
    pub spin_up_ns: u64,
}

impl TimingConfig {
    /// A 1990s 3.5" 7200-rpm SCSI-2 drive (Seagate Barracuda class): 0.5 ms command
    /// overhead, 1 ms track-to-track and 17 ms full-stroke seek (≈ 8–9 ms average for random
    /// access: the √ curve at 1/3 stroke gives ≈ 10.2 ms, at 1/4 ≈ 9 ms), 4.17 ms average
    /// rotational latency, 6 MB/s media rate, 64 KiB read-ahead segment, 8 s spin-up.
    pub const fn hdd_7200_1990s() -> TimingConfig {
        TimingConfig {
            command_overhead_ns: 500_000,
            track_to_track_seek_ns: 1_000_000,
            full_stroke_seek_ns: 17_000_000,
            rpm: 7200,
            media_bytes_per_sec: 6_000_000,
            write_bytes_per_sec: 0,
            read_ahead_bytes: 64 * 1024,
            read_ahead_at_media_rate: false,
            spin_up_ns: 8_000_000_000,
        }
    }

    /// An SD-card SCSI emulator (BlueSCSI/ZuluSCSI class): 100 µs command overhead, no seek,
    /// no rotation, 10 MB/s card rate, no read-ahead, no spin-up.
    pub const fn sd_card_emulator() -> TimingConfig {
        TimingConfig {
            command_overhead_ns: 100_000,
            track_to_track_seek_ns: 0,
            full_stroke_seek_ns: 0,
            rpm: 0,
            media_bytes_per_sec: 10_000_000,
            write_bytes_per_sec: 0,
            read_ahead_bytes: 0,
            read_ahead_at_media_rate: false,
            spin_up_ns: 0,
        }
    }

    /// A 1990s 3.5" 5400-rpm SCSI-2 drive (benchmark profile; class figures, see
    /// `docs/BENCHMARKS.md`): 0.7 ms command overhead, 2 ms track-to-track and 22 ms
    /// full-stroke seek, 5.56 ms average rotational latency, 4 MB/s media rate, 64 KiB
    /// read-ahead, 10 s spin-up.
    pub const fn hdd_5400_1990s() -> TimingConfig {
        TimingConfig {
            command_overhead_ns: 700_000,
            track_to_track_seek_ns: 2_000_000,
            full_stroke_seek_ns: 22_000_000,
            rpm: 5400,
            media_bytes_per_sec: 4_000_000,
            write_bytes_per_sec: 0,
            read_ahead_bytes: 64 * 1024,
            read_ahead_at_media_rate: false,
            spin_up_ns: 10_000_000_000,
        }
    }

    /// A late-1990s 10,000-rpm SCSI drive (Seagate Cheetah class; benchmark profile): 0.3 ms
    /// command overhead, 0.8 ms track-to-track and 13 ms full-stroke seek, 3 ms average
    /// rotational latency, 12 MB/s media rate, 256 KiB read-ahead, 20 s spin-up.
    pub const fn hdd_10k() -> TimingConfig {
        TimingConfig {
            command_overhead_ns: 300_000,
            track_to_track_seek_ns: 800_000,
            full_stroke_seek_ns: 13_000_000,
            rpm: 10_000,
            media_bytes_per_sec: 12_000_000,
            write_bytes_per_sec: 0,
            read_ahead_bytes: 256 * 1024,
            read_ahead_at_media_rate: false,
            spin_up_ns: 20_000_000_000,
        }
    }

    /// An SD-card SCSI emulator whose writes are slower than its reads (benchmark profile,
    /// ZuluSCSI V1.1-class figures): 100 µs command overhead, no seek or rotation, 3.5 MB/s
    /// reads, 2 MB/s writes, no read-ahead, no spin-up.
    pub const fn sd_emulator_slow_writes() -> TimingConfig {
        TimingConfig {
            command_overhead_ns: 100_000,
            track_to_track_seek_ns: 0,
            full_stroke_seek_ns: 0,
            rpm: 0,
            media_bytes_per_sec: 3_500_000,
            write_bytes_per_sec: 2_000_000,
            read_ahead_bytes: 0,
            read_ahead_at_media_rate: false,
            spin_up_ns: 0,
        }
    }

    /// No modelled time at all.
    pub const fn instant() -> TimingConfig {
        TimingConfig {
            command_overhead_ns: 0,
            track_to_track_seek_ns: 0,
            full_stroke_seek_ns: 0,
            rpm: 0,
            media_bytes_per_sec: 0,
            write_bytes_per_sec: 0,
            read_ahead_bytes: 0,
            read_ahead_at_media_rate: false,
            spin_up_ns: 0,
        }
    }

    /// Seek time from `from` to `to` on a medium of `capacity` blocks.
    pub fn seek_ns(&self, from: u64, to: u64, capacity: u64) -> u64 {
        let d = from.abs_diff(to);
        if d == 0 || capacity == 0 {
            return 0;
        }
        let frac = (d as f64 / capacity as f64).min(1.0).sqrt();
        let span = self
            .full_stroke_seek_ns
            .saturating_sub(self.track_to_track_seek_ns);
        self.track_to_track_seek_ns + (span as f64 * frac).round() as u64
    }

    /// Average rotational latency: half a revolution.
    pub fn half_rev_ns(&self) -> u64 {
        if self.rpm == 0 {
            0
        } else {
            30_000_000_000 / u64::from(self.rpm)
        }
    }

    /// Media transfer time of `bytes`.
    pub fn media_ns(&self, bytes: u64) -> u64 {
        if self.media_bytes_per_sec == 0 {
            0
        } else {
            (bytes * 1_000_000_000).div_ceil(self.media_bytes_per_sec)
        }
    }

    /// Media transfer time of writing `bytes`.
    pub fn write_media_ns(&self, bytes: u64) -> u64 {
        if self.write_bytes_per_sec == 0 {
            self.media_ns(bytes)
        } else {
            (bytes * 1_000_000_000).div_ceil(self.write_bytes_per_sec)
        }
    }
}

impl Default for TimingConfig {
    fn default() -> Self {
        TimingConfig::hdd_7200_1990s()
    }
}

/// Head position and read-ahead segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Head {
    /// LBA under the head (where the last access ended).
    pub lba: u64,
    /// Blocks held in the read-ahead segment `[start, end)`.
    pub segment: Option<(u64, u64)>,
}

/// Time of one media access and the head's new state.
#[derive(Debug, Clone, Copy)]
pub struct Model<'a> {
    pub cfg: &'a TimingConfig,
    pub capacity: u64,
    pub block_size: u32,
}

impl Model<'_> {
    /// Seek + latency + transfer of `blocks` at `lba` (a cache miss); moves the head.
    pub fn access(&self, head: &mut Head, lba: u64, blocks: u64) -> u64 {
        self.access_at(head, lba, blocks, false)
    }

    /// [`Model::access`] at the media rate of writes.
    pub fn access_write(&self, head: &mut Head, lba: u64, blocks: u64) -> u64 {
        self.access_at(head, lba, blocks, true)
    }

    /// [`Model::access`] for a read or (`write`) a write's media rate.
    fn access_at(&self, head: &mut Head, lba: u64, blocks: u64, write: bool) -> u64 {
        if blocks == 0 {
            return 0;
        }
        let bytes = blocks * u64::from(self.block_size);
        let media = if write {
            self.cfg.write_media_ns(bytes)
        } else {
            self.cfg.media_ns(bytes)
        };
        let t = self.cfg.seek_ns(head.lba, lba, self.capacity) + self.cfg.half_rev_ns() + media;
        head.lba = lba + blocks;
        head.segment = None;
        t
    }

    /// A read of `blocks` at `lba` with the read cache on or off; returns (time, blocks served
    /// from the read-ahead segment). Leaves a fresh segment after the read when read-ahead is
    /// on.
    pub fn read(&self, head: &mut Head, lba: u64, blocks: u64, read_cache: bool) -> (u64, u64) {
        if blocks == 0 {
            return (0, 0);
        }
        let mut hits = 0;
        let t = match head.segment {
            Some((s, e)) if read_cache && lba >= s && lba < e => {
                hits = blocks.min(e - lba);
                let rest = blocks - hits;
                // The rest streams on from where the pre-fetch stopped: no seek, no latency.
                let paid = if self.cfg.read_ahead_at_media_rate {
                    blocks
                } else {
                    rest
                };
                self.cfg.media_ns(paid * u64::from(self.block_size))
            }
            _ => self.access(head, lba, blocks),
        };
        head.lba = lba + blocks;
        let seg = self.cfg.read_ahead_bytes / u64::from(self.block_size.max(1));
        head.segment = (read_cache && seg > 0).then(|| {
            let start = lba + blocks;
            (start, (start + seg).min(self.capacity))
        });
        (t, hits)
    }

    /// Writing a set of blocks (LBA order) to the medium: one seek + latency per contiguous
    /// run, media transfer for all. Drops the read-ahead segment.
    pub fn write_runs(&self, head: &mut Head, lbas: &[u64]) -> u64 {
        let mut t = 0;
        let mut i = 0;
        while i < lbas.len() {
            let start = lbas[i];
            let mut n = 1;
            while i + (n as usize) < lbas.len() && lbas[i + n as usize] == start + n {
                n += 1;
            }
            t += self.access_at(head, start, n, true);
            i += n as usize;
        }
        head.segment = None;
        t
    }
}
