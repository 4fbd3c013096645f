//! The direct-access disk target: an image file (or memory) behind the SCSI-2 commands a Mac
//! disk driver uses (mac-facts §8), with a write cache, unit attention, removable media, fault
//! injection and a timing model.
//!
//! Submodules keep the SCSI rules in plain functions: [`cdb`] (CDB decoding), [`sense`]
//! (sense data), [`mode_pages`] (mode pages, MODE SENSE data, MODE SELECT validation),
//! [`cache`] (the write cache), [`store`] (the backing store), [`timing`] (the time model).
//!
//! Modelling decisions docs/mac-facts.md does not settle (each in one place):
//! * FORMAT UNIT zeroes the medium (a file is cut to 0 and regrown: sparse and quick); the
//!   write cache is discarded; injected medium errors and reassignments stay. FmtData = 1 takes
//!   the 4-byte defect list header only: a non-empty defect list or IP = 1 → 05/26/00.
//! * REASSIGN BLOCKS: the bus trait cannot ask for a DATA OUT length found inside the data,
//!   so the target asks for `4 + 4 × DiskConfig::reassign_max_lbas` bytes (default 1 LBA); a
//!   reassigned block that had an injected read error reads back as zeros (its data was
//!   unrecoverable).
//! * A READ that meets a medium error transfers the good blocks before it, then CHECK
//!   CONDITION 03/11/00 with the failing LBA. An injected write error is reported at command
//!   time when the write goes to the medium (cache off, or FUA). A write that goes into the
//!   write cache ends GOOD; the error shows when the block is written back: as a current
//!   error (70h, 03/0C/00, LBA) to the command that wrote it back (SYNCHRONIZE CACHE, STOP,
//!   MODE SELECT turning WCE off, a FUA READ), or — written back on the drive's own
//!   initiative (eviction from a full cache, background write-back, a bus reset, the host's
//!   flush) — as a **deferred error** (71h) reported to the next command but REQUEST SENSE,
//!   which is then not performed. The failing block's data is lost.
//! * Background write-back: before each command the drive writes back its
//!   [`DiskConfig::background_writeback_blocks`] oldest dirty blocks (default 0: nothing is
//!   written back until a flush, eviction or STOP — the most data at risk on power loss).
//! * Reads served from the write cache never report medium errors.
//! * LUN: the disk is one logical unit, [`DiskConfig::lun`] (0 unless configured); the bus
//!   says which LUN a command addresses (IDENTIFY's, else the CDB's LUN field). Any other
//!   LUN answers as SCSI-2 has a target answer for a logical unit it does not have: INQUIRY
//!   with peripheral qualifier 3 / type 1Fh, REQUEST SENSE with 05/25/00, anything else
//!   CHECK CONDITION (05/25/00).
//! * A bus reset keeps dirty cached data (the drive keeps writing it); current mode values
//!   revert to the saved ones (turning WCE off flushes). Power loss drops the cache.
//! * LoEj on a non-removable disk → 05/24/00. Load (LoEj = 1, Start = 1) with no medium →
//!   02/3A/00. MODE SELECT with PF = 0 is accepted like PF = 1.
//! * MODE SENSE returns the real block descriptor whatever the page control (PC = 1 included).
//! * A host I/O error on the image file is reported as HARDWARE ERROR 04/44/00 (the message
//!   is kept in [`DiskTarget::last_io_error`]).
//! * BUSY (injected) leaves all state untouched, pending sense included.
//! * Removable media: PREVENT MEDIUM REMOVAL (1Eh, Prevent = 1) keeps the medium in —
//!   [`DiskTarget::replace_medium`] and [`DiskTarget::remove_medium`] (the user's eject
//!   button) are refused, START STOP UNIT with LoEj fails 05/53/02 — until ALLOW, a bus reset
//!   or power loss; [`DiskTarget::force_replace_medium`] is the swap nothing prevents (a
//!   paper-clip eject, an SD-card emulator whose card is changed on its own side). Every
//!   medium has its own identity ([`DiskTarget::medium_id`]); a new one is announced with
//!   UNIT ATTENTION 28/00 to the next command. The READ, WRITE and VERIFY transfers that
//!   reached a medium are logged with its identity ([`DiskTarget::medium_log`]): the File
//!   Manager model tells a misdirected I/O by it.
//! * Not-ready faults and a stopped motor affect only media commands
//!   ([`cdb::Command::needs_ready`]); INQUIRY, REQUEST SENSE, MODE SENSE/SELECT, START STOP
//!   UNIT and PREVENT ALLOW always run.

pub mod cache;
pub mod cdb;
pub mod mode_pages;
pub mod sense;
pub mod store;
pub mod timing;

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io;
use std::path::Path;

use super::target::{DataPhase, ScsiTarget, status};
use cache::WriteCache;
use cdb::{Command, op};
use mode_pages::{Geometry, MediumInfo, ModePages};
use sense::{Sense, asc, key};
use store::Store;
use timing::{Head, Model, TimingConfig};

/// REQUEST SENSE with allocation length 0: SCSI-1/CCS (and, as remembered, SCSI-2 §8.2.14)
/// transfer 4 bytes; SPC transfers none. UNVERIFIED against the SCSI-2 text.
pub const REQUEST_SENSE_ZERO_ALLOC_BYTES: usize = 4;

/// Standard INQUIRY data length (additional length 31).
pub const INQUIRY_LEN: usize = 36;

/// Configuration of a disk target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskConfig {
    /// Logical block size: a power of two from 256 to 4096.
    pub block_size: u32,
    /// INQUIRY vendor (≤ 8 ASCII characters, space padded).
    pub vendor: String,
    /// INQUIRY product (≤ 16).
    pub product: String,
    /// INQUIRY revision (≤ 4).
    pub revision: String,
    /// Unit serial number (VPD page 80h).
    pub serial: String,
    /// Peripheral device type (0 = direct access).
    pub device_type: u8,
    /// ANSI version byte (2 = SCSI-2).
    pub ansi_version: u8,
    /// Response data format (2 = SCSI-2).
    pub response_data_format: u8,
    /// RMB: removable medium.
    pub removable: bool,
    /// Write protected (DATA PROTECT 27/00 on writes, WP in the mode header).
    pub write_protected: bool,
    /// Write-cache size in bytes (at least one block).
    pub cache_bytes: u64,
    /// Whether saved mode values exist (SP = 1, PC = 3, PS bits).
    pub saving_supported: bool,
    /// WCE at power-on (the default and saved caching page value).
    pub write_cache_enabled: bool,
    /// The unit comes up stopped and needs START STOP UNIT start=1 (02/04/02 until then).
    pub motor_start_required: bool,
    /// Notional geometry for pages 03h/04h.
    pub heads: u8,
    pub sectors_per_track: u16,
    /// Most LBAs one REASSIGN BLOCKS may carry (the DATA OUT asked is 4 + 4 × this).
    pub reassign_max_lbas: usize,
    /// Dirty blocks the drive writes back on its own before each command, oldest first
    /// (0: none).
    pub background_writeback_blocks: u32,
    /// Timing model.
    pub timing: TimingConfig,
    /// The logical unit number the disk answers on (0–7); the target has no other LUN.
    pub lun: u8,
}

impl Default for DiskConfig {
    fn default() -> Self {
        DiskConfig {
            block_size: 512,
            vendor: "FERRITE".into(),
            product: "EMULATED DISK".into(),
            revision: "1.0".into(),
            serial: "FE0000000001".into(),
            device_type: 0,
            ansi_version: 2,
            response_data_format: 2,
            removable: false,
            write_protected: false,
            cache_bytes: 1 << 20,
            saving_supported: true,
            write_cache_enabled: false,
            motor_start_required: false,
            heads: 8,
            sectors_per_track: 64,
            reassign_max_lbas: 1,
            background_writeback_blocks: 0,
            timing: TimingConfig::default(),
            lun: 0,
        }
    }
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn ascii_field(name: &str, s: &str, len: usize) -> io::Result<Vec<u8>> {
    if s.len() > len || !s.bytes().all(|b| (0x20..0x7F).contains(&b)) {
        return Err(invalid(format!(
            "INQUIRY {name} {s:?}: at most {len} printable ASCII characters"
        )));
    }
    let mut v = s.as_bytes().to_vec();
    v.resize(len, b' ');
    Ok(v)
}

impl DiskConfig {
    /// Check the configuration (constructors call this).
    pub fn validate(&self) -> io::Result<()> {
        if !self.block_size.is_power_of_two() || !(256..=4096).contains(&self.block_size) {
            return Err(invalid(format!(
                "block size {}: a power of two, 256–4096",
                self.block_size
            )));
        }
        ascii_field("vendor", &self.vendor, 8)?;
        ascii_field("product", &self.product, 16)?;
        ascii_field("revision", &self.revision, 4)?;
        if self.serial.len() > 252 || !self.serial.is_ascii() {
            return Err(invalid("serial: ASCII, at most 252 bytes".into()));
        }
        if self.device_type > 0x1F {
            return Err(invalid(format!(
                "device type {:#x} > 1Fh",
                self.device_type
            )));
        }
        if self.lun > 7 {
            return Err(invalid(format!("LUN {}: 0–7", self.lun)));
        }
        Ok(())
    }
}

/// Why an injected not-ready answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotReadyCause {
    /// 02/04/01: becoming ready (wait and retry).
    BecomingReady,
    /// 02/04/02: initializing command required; a START STOP UNIT start=1 ends it early.
    NeedsStart,
}

/// Injected faults (see the `inject_*` methods).
#[derive(Debug, Clone, Default)]
pub struct Faults {
    pub read_errors: BTreeSet<u64>,
    pub write_errors: BTreeSet<u64>,
    pub not_ready: u32,
    pub not_ready_cause: Option<NotReadyCause>,
    pub selection_timeouts: u32,
    pub offline: bool,
    pub busy: u32,
    pub bus_reset_in: Option<u32>,
    /// Commands still to hang ([`DiskTarget::inject_hang`]).
    pub hangs: u32,
    pub short_data: u32,
    pub short_by: usize,
    /// Commands with this opcode fail with HARDWARE ERROR 04/44/00 once this many of them
    /// have run ([`DiskTarget::inject_opcode_failure`]).
    pub failing_opcode: Option<(u8, u32)>,
    /// Commands still to run clean before the other injected faults (not ready, selection
    /// timeouts, BUSY, bus reset, hang, short data) apply ([`DiskTarget::delay_faults`]).
    pub delay: u32,
    /// A unit attention injected during the delay: reported from the first command after it.
    pub delayed_unit_attention: Option<(u8, u8)>,
    /// The drive loses power as this command arrives (1 = the next; [`DiskTarget::inject_power_loss`]).
    pub power_loss_in: Option<u32>,
}

/// Counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskStats {
    /// Commands received (every CDB, including refused ones).
    pub commands: u64,
    /// Commands by opcode.
    pub by_opcode: BTreeMap<u8, u64>,
    /// Blocks read from / written to the backing store.
    pub store_blocks_read: u64,
    pub store_blocks_written: u64,
    /// Blocks a WRITE put into the write cache.
    pub cached_block_writes: u64,
    /// Blocks a READ took from the write cache.
    pub write_cache_read_hits: u64,
    /// Blocks a READ took from the read-ahead segment.
    pub read_ahead_hits: u64,
    /// Blocks evicted from a full write cache.
    pub evicted_blocks: u64,
    /// Cache flushes (SYNCHRONIZE CACHE, STOP, WCE off, eject, host flush).
    pub flushes: u64,
    /// Power losses, bus resets seen.
    pub power_losses: u64,
    pub bus_resets: u64,
    /// Selections the drive did not answer (injected selection timeouts, off line).
    pub refused_selections: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    None,
    Write { lba: u64, fua: bool },
    Verify { lba: u64 },
    ModeSelect { ten: bool, sp: bool },
    Format,
    Reassign,
}

/// The disk target.
pub struct DiskTarget {
    cfg: DiskConfig,
    store: Store,
    blocks: u64,
    pages: ModePages,
    cache: WriteCache,
    head: Head,
    /// Pending sense of the disk's LUN (kept until the next command).
    sense: Option<Sense>,
    /// Pending unit attentions, reported one per command.
    unit_attention: VecDeque<Sense>,
    /// Deferred errors (71h) waiting to be reported, one per command.
    deferred: VecDeque<Sense>,
    started: bool,
    medium_present: bool,
    prevented: bool,
    write_protected: bool,
    reassigned: BTreeSet<u64>,
    faults: Faults,
    stats: DiskStats,
    // The open command.
    pending: Pending,
    asked: usize,
    status: u8,
    busy: u64,
    last_io_error: Option<String>,
    /// The medium in the drive (a new number for every medium put in).
    medium_id: u64,
    /// The last [`MEDIUM_LOG_LEN`] transfers that reached a medium, numbered from 1.
    medium_log: VecDeque<MediumAccess>,
    medium_seq: u64,
    /// Most bytes of sense data REQUEST SENSE returns ([`DiskTarget::set_sense_length`]).
    sense_length: usize,
    /// The next transfers that stop early with CHECK CONDITION
    /// ([`DiskTarget::inject_short_with_sense`]): how many, blocks moved, the sense.
    short_with_sense: Option<(u32, u64, Sense)>,
    /// The sense a transfer that stopped early ends with, at its status.
    check_at_status: Option<Sense>,
}

/// Transfers kept in [`DiskTarget::medium_log`].
pub const MEDIUM_LOG_LEN: usize = 256;

/// A READ, WRITE or VERIFY that reached the medium.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediumAccess {
    /// Its number: 1 for the target's first.
    pub seq: u64,
    /// [`DiskTarget::medium_id`] of the medium it reached.
    pub medium: u64,
    pub lba: u64,
    pub blocks: u64,
    pub write: bool,
}

impl DiskTarget {
    fn with_store(store: Store, cfg: DiskConfig) -> io::Result<DiskTarget> {
        cfg.validate()?;
        let blocks = store.len()? / u64::from(cfg.block_size);
        let geometry = Geometry::for_capacity(
            blocks,
            cfg.heads,
            cfg.sectors_per_track,
            cfg.block_size,
            cfg.timing.rpm.min(0xFFFF) as u16,
            cfg.removable,
        );
        let ra = (cfg.timing.read_ahead_bytes / u64::from(cfg.block_size)).min(0xFFFF) as u16;
        let mut pages = ModePages::new(geometry, ra, cfg.saving_supported);
        if cfg.write_cache_enabled {
            pages.set_wce(true, true);
            // The default values carry the configured WCE too.
            pages.set_default_wce(true);
        }
        let cache = WriteCache::new((cfg.cache_bytes / u64::from(cfg.block_size)) as usize);
        let write_protected = cfg.write_protected || !store.writable();
        let mut t = DiskTarget {
            started: !cfg.motor_start_required,
            cfg,
            store,
            blocks,
            pages,
            cache,
            head: Head::default(),
            sense: None,
            unit_attention: VecDeque::new(),
            deferred: VecDeque::new(),
            medium_present: true,
            prevented: false,
            write_protected,
            reassigned: BTreeSet::new(),
            faults: Faults::default(),
            stats: DiskStats::default(),
            pending: Pending::None,
            asked: 0,
            status: status::GOOD,
            busy: 0,
            last_io_error: None,
            medium_id: 1,
            medium_log: VecDeque::new(),
            medium_seq: 0,
            sense_length: sense::SENSE_LEN,
            short_with_sense: None,
            check_at_status: None,
        };
        t.unit_attention
            .push_back(Sense::new(key::UNIT_ATTENTION, asc::POWER_ON_RESET));
        Ok(t)
    }

    /// Open an existing image; capacity = file length / block size (a trailing partial block
    /// is never touched). A file the host only lets us read is write protected.
    pub fn open(path: impl AsRef<Path>, cfg: DiskConfig) -> io::Result<DiskTarget> {
        cfg.validate()?;
        DiskTarget::with_store(Store::open_file(path.as_ref())?, cfg)
    }

    /// Create (or truncate) a sparse image of `blocks` blocks.
    pub fn create(path: impl AsRef<Path>, blocks: u64, cfg: DiskConfig) -> io::Result<DiskTarget> {
        cfg.validate()?;
        let bytes = blocks
            .checked_mul(u64::from(cfg.block_size))
            .ok_or_else(|| invalid(format!("{blocks} blocks overflow")))?;
        DiskTarget::with_store(Store::create_file(path.as_ref(), bytes)?, cfg)
    }

    /// A zeroed in-memory disk of `blocks` blocks.
    pub fn in_memory(blocks: u64, cfg: DiskConfig) -> io::Result<DiskTarget> {
        cfg.validate()?;
        DiskTarget::with_store(Store::memory(blocks * u64::from(cfg.block_size)), cfg)
    }

    // ----- host view -----

    /// The configuration.
    pub fn config(&self) -> &DiskConfig {
        &self.cfg
    }

    /// Capacity in blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Block size in bytes.
    pub fn block_size(&self) -> u32 {
        self.cfg.block_size
    }

    fn limit(&self) -> u64 {
        self.blocks * u64::from(self.cfg.block_size)
    }

    fn bs(&self) -> usize {
        self.cfg.block_size as usize
    }

    /// Counters.
    pub fn stats(&self) -> &DiskStats {
        &self.stats
    }

    /// Commands received with `opcode`.
    pub fn opcode_count(&self, opcode: u8) -> u64 {
        self.stats.by_opcode.get(&opcode).copied().unwrap_or(0)
    }

    /// Dirty blocks in the write cache.
    pub fn cached_blocks(&self) -> usize {
        self.cache.len()
    }

    /// The LBAs of the dirty blocks in the write cache, ascending: what a power loss at this
    /// moment takes (the soak's window rule).
    pub fn cached_lbas(&self) -> Vec<u64> {
        self.cache.lbas()
    }

    /// Write-cache capacity in blocks.
    pub fn cache_capacity_blocks(&self) -> usize {
        self.cache.capacity_blocks()
    }

    /// The mode pages.
    pub fn mode_pages(&self) -> &ModePages {
        &self.pages
    }

    /// Current WCE.
    pub fn write_cache_enabled(&self) -> bool {
        self.pages.wce()
    }

    /// The sense data a REQUEST SENSE would return now (`None`: NO SENSE).
    pub fn pending_sense(&self) -> Option<Sense> {
        self.sense
    }

    /// Deferred errors (71h) waiting to be reported.
    pub fn pending_deferred_errors(&self) -> Vec<Sense> {
        self.deferred.iter().copied().collect()
    }

    /// Unit attentions waiting to be reported.
    pub fn pending_unit_attentions(&self) -> Vec<Sense> {
        self.unit_attention.iter().copied().collect()
    }

    /// Whether the motor runs (not stopped by START STOP UNIT).
    pub fn started(&self) -> bool {
        self.started
    }

    /// Whether a medium is in the drive.
    pub fn medium_present(&self) -> bool {
        self.medium_present
    }

    /// The identity of the medium in the drive: a new number for every medium put in
    /// (the first is 1).
    pub fn medium_id(&self) -> u64 {
        self.medium_id
    }

    /// The last transfers that reached a medium (at most [`MEDIUM_LOG_LEN`]), oldest first.
    pub fn medium_log(&self) -> &VecDeque<MediumAccess> {
        &self.medium_log
    }

    /// The number the next transfer to reach a medium will get, less one.
    pub fn medium_seq(&self) -> u64 {
        self.medium_seq
    }

    fn log_access(&mut self, lba: u64, blocks: u64, write: bool) {
        self.medium_seq += 1;
        if self.medium_log.len() == MEDIUM_LOG_LEN {
            self.medium_log.pop_front();
        }
        self.medium_log.push_back(MediumAccess {
            seq: self.medium_seq,
            medium: self.medium_id,
            lba,
            blocks,
            write,
        });
    }

    /// Whether PREVENT MEDIUM REMOVAL is in force.
    pub fn removal_prevented(&self) -> bool {
        self.prevented
    }

    /// LBAs reassigned by REASSIGN BLOCKS.
    pub fn reassigned(&self) -> &BTreeSet<u64> {
        &self.reassigned
    }

    /// The injected faults.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// The head position and read-ahead segment (timing model).
    pub fn head(&self) -> Head {
        self.head
    }

    /// Put the head (and read-ahead segment) where `head` says (a benchmark's reference
    /// disk starts where the measured one is).
    pub fn set_head(&mut self, head: Head) {
        self.head = head;
    }

    /// The last host I/O error on the image (reported to the initiator as 04/44/00).
    pub fn last_io_error(&self) -> Option<&str> {
        self.last_io_error.as_deref()
    }

    /// The image path (file stores).
    pub fn path(&self) -> Option<&Path> {
        self.store.path()
    }

    /// What a READ would return for `count` blocks at `lba` (write cache included, faults
    /// ignored). Errors outside the capacity.
    pub fn read_visible(&mut self, lba: u64, count: u64) -> io::Result<Vec<u8>> {
        let mut v = self.read_store(lba, count)?;
        let bs = self.bs();
        for i in 0..count {
            if let Some(d) = self.cache.get(lba + i) {
                v[i as usize * bs..(i as usize + 1) * bs].copy_from_slice(d);
            }
        }
        Ok(v)
    }

    /// The backing store's content of `count` blocks at `lba` (no cache).
    pub fn read_store(&mut self, lba: u64, count: u64) -> io::Result<Vec<u8>> {
        let bs = u64::from(self.cfg.block_size);
        let mut v = vec![0; (count * bs) as usize];
        let limit = self.limit();
        self.store.read_at(lba * bs, &mut v, limit)?;
        Ok(v)
    }

    /// Put whole blocks straight into the backing store (test setup); cached copies of those
    /// blocks are dropped so the new data is what READ returns.
    pub fn write_store(&mut self, lba: u64, data: &[u8]) -> io::Result<()> {
        let bs = u64::from(self.cfg.block_size);
        if !(data.len() as u64).is_multiple_of(bs) {
            return Err(invalid(format!("{} bytes is not whole blocks", data.len())));
        }
        let limit = self.limit();
        self.store.write_at(lba * bs, data, limit)?;
        self.cache.take_range(lba, lba + data.len() as u64 / bs);
        Ok(())
    }

    /// Write the whole write cache to the store (host-initiated flush). A block with an
    /// injected write error is lost and leaves a deferred error for the next command.
    pub fn flush(&mut self) -> io::Result<()> {
        self.stats.flushes += 1;
        let dirty = self.cache.take_all();
        for (lba, d) in dirty {
            if self.faults.write_errors.contains(&lba) {
                self.defer(Sense::new(key::MEDIUM_ERROR, asc::WRITE_ERROR).with_info(lba as u32));
                continue;
            }
            let limit = self.limit();
            self.store
                .write_at(lba * u64::from(self.cfg.block_size), &d, limit)?;
            self.stats.store_blocks_written += 1;
        }
        self.store.sync()
    }

    /// Power loss and power-on: unflushed cached data is lost, current mode values revert to
    /// the saved ones, PREVENT and pending sense are cleared, UNIT ATTENTION 29/00.
    pub fn power_loss(&mut self) {
        self.stats.power_losses += 1;
        self.cache.clear();
        self.deferred.clear();
        self.pages.restore_saved();
        self.after_reset();
        self.started = !self.cfg.motor_start_required;
        self.head = Head::default();
    }

    fn after_reset(&mut self) {
        self.sense = None;
        self.unit_attention.clear();
        self.unit_attention
            .push_back(Sense::new(key::UNIT_ATTENTION, asc::POWER_ON_RESET));
        self.prevented = false;
        self.pending = Pending::None;
        self.head.segment = None;
    }

    /// Insert a medium (removable drives): UNIT ATTENTION 28/00. Panics on a fixed disk.
    pub fn insert_medium(&mut self) {
        assert!(self.cfg.removable, "insert_medium on a non-removable disk");
        if !self.medium_present {
            self.medium_present = true;
            self.medium_id += 1;
            self.started = true;
            self.push_ua(Sense::new(key::UNIT_ATTENTION, asc::MEDIUM_CHANGED));
        }
    }

    /// The user takes the medium out (removable drives). Refused (false) while removal is
    /// prevented; dirty cached data is written first.
    pub fn remove_medium(&mut self) -> bool {
        assert!(self.cfg.removable, "remove_medium on a non-removable disk");
        if self.prevented {
            return false;
        }
        self.write_back_deferred(0, u64::MAX);
        self.medium_present = false;
        true
    }

    /// The user takes the medium out (if it is in and removal is not prevented) and puts
    /// another one in, holding `image` (whole blocks; the capacity follows it): the drive's
    /// cache is written back to the old medium first, injected medium errors belong to the
    /// old medium and go with it, and the drive reports UNIT ATTENTION 28/00 ("medium may
    /// have changed") to the next command. False (nothing changes) while removal is
    /// prevented. Panics on a fixed disk.
    pub fn replace_medium(&mut self, image: &[u8]) -> io::Result<bool> {
        assert!(self.cfg.removable, "replace_medium on a non-removable disk");
        if self.medium_present && !self.remove_medium() {
            return Ok(false);
        }
        self.put_in(image)
    }

    /// [`DiskTarget::replace_medium`] that nothing prevents: a paper-clip eject, or an
    /// SD-card emulator whose card is changed on its own side. The cache is written back to
    /// the old medium first; UNIT ATTENTION 28/00 as for any new medium.
    pub fn force_replace_medium(&mut self, image: &[u8]) -> io::Result<()> {
        assert!(
            self.cfg.removable,
            "force_replace_medium on a non-removable disk"
        );
        if self.medium_present {
            self.write_back_deferred(0, u64::MAX);
            self.medium_present = false;
        }
        self.put_in(image).map(|_| ())
    }

    /// Drop the pending unit attentions unreported: a drive (or an emulator) that never says
    /// its medium changed. For tests that plant a guest the File Manager model must catch.
    pub fn forget_unit_attentions(&mut self) {
        self.unit_attention.clear();
    }

    fn put_in(&mut self, image: &[u8]) -> io::Result<bool> {
        if !image.len().is_multiple_of(self.bs()) {
            return Err(invalid(format!(
                "{} bytes is not whole blocks",
                image.len()
            )));
        }
        let mut store = Store::memory(image.len() as u64);
        store.write_at(0, image, image.len() as u64)?;
        self.store = store;
        self.blocks = (image.len() / self.bs()) as u64;
        self.cache.clear();
        self.clear_medium_errors();
        self.reassigned.clear();
        self.head = Head::default();
        self.insert_medium();
        Ok(true)
    }

    /// Turn write protection on or off (the write-protect tab).
    pub fn set_write_protected(&mut self, on: bool) {
        self.write_protected = on || !self.store.writable();
    }

    /// Set WCE in the current and saved caching page (host shortcut for tests); turning it
    /// off flushes.
    pub fn set_write_cache(&mut self, on: bool) {
        let was = self.pages.wce();
        self.pages.set_wce(on, true);
        if was && !on {
            self.write_back_deferred(0, u64::MAX);
        }
    }

    // ----- fault injection -----

    /// READ (and VERIFY) of `lba` fails with MEDIUM ERROR 03/11/00 (info = LBA) until
    /// REASSIGN BLOCKS reassigns it.
    pub fn inject_read_error(&mut self, lba: u64) {
        self.faults.read_errors.insert(lba);
    }

    /// WRITE of `lba` fails with MEDIUM ERROR 03/0C/00 (info = LBA) until reassigned.
    pub fn inject_write_error(&mut self, lba: u64) {
        self.faults.write_errors.insert(lba);
    }

    /// Forget every injected fault (medium errors, not ready, selection timeouts, off line,
    /// BUSY, bus reset, hang, short data, failing opcode, delay). Pending sense, unit
    /// attentions and deferred errors stay: they are the drive's state, not faults.
    pub fn clear_faults(&mut self) {
        self.faults = Faults::default();
    }

    /// Forget injected medium errors.
    pub fn clear_medium_errors(&mut self) {
        self.faults.read_errors.clear();
        self.faults.write_errors.clear();
    }

    /// The next `n` media commands get NOT READY with `cause`.
    pub fn inject_not_ready(&mut self, n: u32, cause: NotReadyCause) {
        self.faults.not_ready = n;
        self.faults.not_ready_cause = Some(cause);
    }

    /// The next `n` selections time out.
    pub fn inject_selection_timeouts(&mut self, n: u32) {
        self.faults.selection_timeouts = n;
    }

    /// Every selection times out while `on` (the drive is off the bus).
    pub fn set_offline(&mut self, on: bool) {
        self.faults.offline = on;
    }

    /// The next `n` commands end with BUSY status, not executed.
    pub fn inject_busy(&mut self, n: u32) {
        self.faults.busy = n;
    }

    /// The next `n` commands are taken and then never answered: the target keeps the bus
    /// (BSY) until a bus reset, as a dying drive does.
    pub fn inject_hang(&mut self, n: u32) {
        self.faults.hangs = n;
    }

    /// The `nth` next command (1 = the next) resets the bus instead of running.
    pub fn inject_bus_reset(&mut self, nth: u32) {
        self.faults.bus_reset_in = Some(nth.max(1));
    }

    /// The `nth` next command (1 = the next) finds the drive losing power as it arrives: the
    /// command is not performed, the write cache is lost ([`Self::power_loss`]) and the bus
    /// is reset (a drive going down drops BSY in the middle of the command; the model ends it
    /// as it ends a command that resets the bus); power is back at once, so the next command
    /// gets UNIT ATTENTION 29/00.
    pub fn inject_power_loss(&mut self, nth: u32) {
        self.faults.power_loss_in = Some(nth.max(1));
    }

    /// The next `n` commands with a data phase move `bytes` fewer bytes than they should
    /// (DATA IN offers fewer; DATA OUT asks fewer and uses only the whole blocks it got),
    /// silently, with GOOD status where nothing else fails.
    pub fn inject_short_data(&mut self, n: u32, bytes: usize) {
        self.faults.short_data = n;
        self.faults.short_by = bytes;
    }

    /// The drive reports UNIT ATTENTION with `code` (ASC/ASCQ) to the next command but
    /// INQUIRY and REQUEST SENSE, without any other change of state: e.g. 29/00 (power on,
    /// reset or bus device reset occurred — a reset another initiator or the drive's own
    /// firmware made) or 2A/01 (mode parameters changed by another initiator).
    /// Injected while faults are delayed ([`Self::delay_faults`]), it waits for the delay too.
    pub fn inject_unit_attention(&mut self, code: (u8, u8)) {
        if self.faults.delay > 0 {
            self.faults.delayed_unit_attention = Some(code);
        } else {
            self.push_ua(Sense::new(key::UNIT_ATTENTION, code));
        }
    }

    /// The next `n` commands (selections included) run clean whatever is injected; the
    /// not-ready, selection-timeout, BUSY, bus-reset, hang and short-data faults apply from
    /// the command after them (e.g. past the ROM's own reads at boot, to reach the driver's).
    /// Medium errors are per block and apply at once.
    pub fn delay_faults(&mut self, n: u32) {
        self.faults.delay = n;
    }

    /// Every command with `opcode` after the next `after` of them ends in CHECK CONDITION,
    /// HARDWARE ERROR 04/44/00 (internal target failure), until [`Self::clear_opcode_failure`]:
    /// a drive that answers some commands and not others (e.g. READ CAPACITY, or the driver's
    /// READ(10) of the map while the ROM's READ(6) still works).
    pub fn inject_opcode_failure(&mut self, opcode: u8, after: u32) {
        self.faults.failing_opcode = Some((opcode, after));
    }

    /// REQUEST SENSE (and so a SCSI Manager's autosense) returns at most `n` bytes, as many
    /// targets do: 18 (the default), 14 (ASC/ASCQ, additional length 6), 8 (the sense key
    /// only, additional length 0) or 4 (SCSI-1's non-extended format: error class 0, code 0,
    /// no sense key; the logical block address when the sense carries one). Other values
    /// cut the extended format at `n` with the additional length it had.
    pub fn set_sense_length(&mut self, n: usize) {
        self.sense_length = n.clamp(4, sense::SENSE_LEN);
    }

    /// The sense data a REQUEST SENSE for `s` returns with the configured length.
    fn sense_bytes(&self, s: &Sense) -> Vec<u8> {
        let mut d = s.to_fixed().to_vec();
        match self.sense_length {
            4 => {
                // Non-extended: byte 0 = valid bit, class 0, code 0; bytes 1–3 the LBA.
                let info = s.info.unwrap_or(0);
                vec![
                    if s.info.is_some() { 0x80 } else { 0 },
                    (info >> 16) as u8 & 0x1F,
                    (info >> 8) as u8,
                    info as u8,
                ]
            }
            n @ (8 | 14) => {
                d[7] = (n - 8) as u8;
                d.truncate(n);
                d
            }
            n => {
                d.truncate(n);
                d
            }
        }
    }

    /// The next `n` READ(10)/WRITE(10) commands of more than `blocks` blocks move only their
    /// first `blocks` blocks, then end with CHECK CONDITION and the sense `(key, asc, ascq)`
    /// (e.g. RECOVERED ERROR 01/17/01 or NO SENSE 00/00/00, which a drive whose error
    /// recovery parameters end the transfer at a recovered block reports), the information
    /// field the first block not moved.
    pub fn inject_short_with_sense(&mut self, n: u32, blocks: u64, sense: (u8, u8, u8)) {
        let s = Sense::new(sense.0, (sense.1, sense.2));
        self.short_with_sense = (n > 0).then_some((n, blocks, s));
    }

    /// Forget [`Self::inject_opcode_failure`].
    pub fn clear_opcode_failure(&mut self) {
        self.faults.failing_opcode = None;
    }

    // ----- command machinery -----

    /// [`DiskTarget::inject_short_with_sense`] on a READ(10)/WRITE(10) that would move more.
    fn stop_early_with_sense(&mut self, cdb: &[u8], phase: &mut DataPhase) {
        let Some((n, blocks, s)) = self.short_with_sense else {
            return;
        };
        if !matches!(cdb.first(), Some(&op::READ_10) | Some(&op::WRITE_10))
            || self.status != status::GOOD
        {
            return;
        }
        let bs = self.bs();
        let lba = u32::from_be_bytes([cdb[2], cdb[3], cdb[4], cdb[5]]) as u64;
        let keep = blocks as usize * bs;
        match phase {
            DataPhase::In(v) if v.len() > keep => v.truncate(keep),
            DataPhase::Out(len) if *len > keep => *len = keep,
            _ => return,
        }
        self.short_with_sense = (n > 1).then_some((n - 1, blocks, s));
        self.check_at_status = Some(s.with_info((lba + blocks) as u32));
    }

    fn push_ua(&mut self, s: Sense) {
        if !self.unit_attention.contains(&s) {
            self.unit_attention.push_back(s);
        }
    }

    fn overhead(&self) -> u64 {
        self.cfg.timing.command_overhead_ns
    }

    fn model(&self) -> Model<'_> {
        Model {
            cfg: &self.cfg.timing,
            capacity: self.blocks,
            block_size: self.cfg.block_size,
        }
    }

    /// CHECK CONDITION with `s` as the pending sense.
    fn check(&mut self, s: Sense) -> DataPhase {
        self.fail(s);
        DataPhase::None
    }

    fn fail(&mut self, s: Sense) {
        self.sense = Some(s);
        self.status = status::CHECK_CONDITION;
    }

    fn io_failed(&mut self, e: io::Error) -> Sense {
        self.last_io_error = Some(e.to_string());
        Sense::new(key::HARDWARE_ERROR, asc::INTERNAL_FAILURE)
    }

    fn store_write(&mut self, lba: u64, data: &[u8]) -> Result<(), Sense> {
        let limit = self.limit();
        let at = lba * u64::from(self.cfg.block_size);
        match self.store.write_at(at, data, limit) {
            Ok(()) => {
                self.stats.store_blocks_written += (data.len() / self.bs()) as u64;
                Ok(())
            }
            Err(e) => Err(self.io_failed(e)),
        }
    }

    fn store_read(&mut self, lba: u64, buf: &mut [u8]) -> Result<(), Sense> {
        let limit = self.limit();
        let at = lba * u64::from(self.cfg.block_size);
        match self.store.read_at(at, buf, limit) {
            Ok(()) => {
                self.stats.store_blocks_read += (buf.len() / self.bs()) as u64;
                Ok(())
            }
            Err(e) => Err(self.io_failed(e)),
        }
    }

    /// Write the dirty blocks in `[start, end)` to the store; returns the modelled time.
    fn flush_range(&mut self, start: u64, end: u64) -> Result<u64, Sense> {
        self.stats.flushes += 1;
        let dirty = self.cache.take_range(start, end);
        self.write_out(dirty)
    }

    /// Write cached blocks to the store. A block with an injected write error is not written
    /// (its data is lost); the others are, and the first failing LBA is reported as MEDIUM
    /// ERROR 03/0C/00.
    fn write_out(&mut self, blocks: Vec<(u64, Vec<u8>)>) -> Result<u64, Sense> {
        let lbas: Vec<u64> = blocks.iter().map(|(l, _)| *l).collect();
        let mut failed = None;
        for (lba, d) in &blocks {
            if self.faults.write_errors.contains(lba) {
                failed = failed.or(Some(*lba));
                continue;
            }
            self.store_write(*lba, d)?;
        }
        if let Some(lba) = failed {
            return Err(Sense::new(key::MEDIUM_ERROR, asc::WRITE_ERROR).with_info(lba as u32));
        }
        let mut head = self.head;
        let t = self.model().write_runs(&mut head, &lbas);
        self.head = head;
        Ok(t)
    }

    /// Queue a deferred error (71h) for the next command.
    fn defer(&mut self, s: Sense) {
        self.deferred.push_back(s.as_deferred());
    }

    /// Write back `[start, end)` on the drive's own initiative: a failure becomes a deferred
    /// error.
    fn write_back_deferred(&mut self, start: u64, end: u64) {
        if let Err(s) = self.flush_range(start, end) {
            self.defer(s);
        }
    }

    /// The drive's background write-back before a command.
    fn background_writeback(&mut self) {
        let n = self.cfg.background_writeback_blocks as usize;
        if n == 0 || self.cache.is_empty() {
            return;
        }
        let blocks = self.cache.take_oldest(n);
        // Done while the bus was free: its time is not the command's.
        if let Err(s) = self.write_out(blocks) {
            self.defer(s);
        }
    }

    fn range_ok(&self, lba: u64, blocks: u64) -> bool {
        lba.checked_add(blocks)
            .is_some_and(|end| end <= self.blocks)
    }

    fn inquiry_data(&self, qualifier_type: u8) -> Vec<u8> {
        let mut d = vec![0u8; INQUIRY_LEN];
        d[0] = qualifier_type;
        d[1] = if self.cfg.removable { 0x80 } else { 0 };
        d[2] = self.cfg.ansi_version;
        d[3] = self.cfg.response_data_format & 0x0F;
        d[4] = (INQUIRY_LEN - 5) as u8;
        // Validated at construction.
        d[8..16].copy_from_slice(&ascii_field("vendor", &self.cfg.vendor, 8).unwrap());
        d[16..32].copy_from_slice(&ascii_field("product", &self.cfg.product, 16).unwrap());
        d[32..36].copy_from_slice(&ascii_field("revision", &self.cfg.revision, 4).unwrap());
        d
    }

    fn medium_info(&self) -> MediumInfo {
        MediumInfo {
            blocks: self.blocks,
            block_size: self.cfg.block_size,
            write_protected: self.write_protected,
        }
    }

    fn truncated(mut v: Vec<u8>, alloc: usize) -> DataPhase {
        v.truncate(alloc);
        DataPhase::In(v)
    }

    /// A command to a LUN other than the disk's.
    fn other_lun(&mut self, cdb: &[u8]) -> DataPhase {
        let not_supported = Sense::illegal(asc::LUN_NOT_SUPPORTED);
        match cdb::parse(cdb) {
            Ok(Command::Inquiry {
                evpd: false, alloc, ..
            }) => {
                // Peripheral qualifier 3 (no device possible here), type 1Fh.
                DiskTarget::truncated(self.inquiry_data(0x7F), alloc)
            }
            Ok(Command::RequestSense { alloc }) => {
                let alloc = if alloc == 0 {
                    REQUEST_SENSE_ZERO_ALLOC_BYTES
                } else {
                    alloc
                };
                let d = self.sense_bytes(&not_supported);
                DiskTarget::truncated(d, alloc)
            }
            _ => {
                self.status = status::CHECK_CONDITION;
                DataPhase::None
            }
        }
    }

    fn own_lun(&mut self, cdb: &[u8]) -> DataPhase {
        // Any command clears the pending sense; REQUEST SENSE returns it first.
        let prior = self.sense.take();
        let opcode = cdb.first().copied();
        if !matches!(opcode, Some(op::INQUIRY) | Some(op::REQUEST_SENSE))
            && let Some(ua) = self.unit_attention.pop_front()
        {
            return self.check(ua);
        }
        if opcode != Some(op::REQUEST_SENSE) {
            self.background_writeback();
            // A deferred error ends the command it is reported on, which is not performed.
            if let Some(d) = self.deferred.pop_front() {
                return self.check(d);
            }
        }
        let cmd = match cdb::parse(cdb) {
            Ok(c) => c,
            Err(s) => return self.check(s),
        };
        if let (Some(code), Some((failing, after))) = (opcode, self.faults.failing_opcode)
            && code == failing
        {
            if after == 0 {
                return self.check(Sense::new(key::HARDWARE_ERROR, asc::INTERNAL_FAILURE));
            }
            self.faults.failing_opcode = Some((failing, after - 1));
        }
        if cmd.needs_ready() {
            if !self.medium_present {
                return self.check(Sense::new(key::NOT_READY, asc::MEDIUM_NOT_PRESENT));
            }
            if self.faults.not_ready > 0 {
                self.faults.not_ready -= 1;
                let code = match self.faults.not_ready_cause {
                    Some(NotReadyCause::NeedsStart) => asc::NEEDS_START,
                    _ => asc::BECOMING_READY,
                };
                return self.check(Sense::new(key::NOT_READY, code));
            }
            if !self.started {
                return self.check(Sense::new(key::NOT_READY, asc::NEEDS_START));
            }
        }
        self.execute(cmd, prior)
    }

    fn execute(&mut self, cmd: Command, prior: Option<Sense>) -> DataPhase {
        let bs = self.bs();
        match cmd {
            Command::TestUnitReady => DataPhase::None,
            Command::RezeroUnit => {
                self.busy += self.cfg.timing.seek_ns(self.head.lba, 0, self.blocks);
                self.head = Head::default();
                DataPhase::None
            }
            Command::RequestSense { alloc } => {
                let alloc = if alloc == 0 {
                    REQUEST_SENSE_ZERO_ALLOC_BYTES
                } else {
                    alloc
                };
                let s = prior.unwrap_or(Sense::none());
                let d = self.sense_bytes(&s);
                DiskTarget::truncated(d, alloc)
            }
            Command::Inquiry {
                evpd: false, alloc, ..
            } => DiskTarget::truncated(self.inquiry_data(self.cfg.device_type), alloc),
            Command::Inquiry {
                evpd: true,
                page,
                alloc,
            } => {
                let t = self.cfg.device_type;
                let d = match page {
                    0x00 => vec![t, 0x00, 0, 2, 0x00, 0x80],
                    0x80 => {
                        let mut d = vec![t, 0x80, 0, self.cfg.serial.len() as u8];
                        d.extend_from_slice(self.cfg.serial.as_bytes());
                        d
                    }
                    _ => return self.check(Sense::illegal(asc::INVALID_FIELD_IN_CDB)),
                };
                DiskTarget::truncated(d, alloc)
            }
            Command::ReadCapacity { .. } => {
                let last = self.blocks.saturating_sub(1).min(0xFFFF_FFFF) as u32;
                let mut d = last.to_be_bytes().to_vec();
                d.extend_from_slice(&self.cfg.block_size.to_be_bytes());
                DataPhase::In(d)
            }
            Command::ReadCapacity16 { alloc } => {
                // SBC-2: last LBA (8 bytes), block length (4), then protection and
                // provisioning fields this disk leaves at 0.
                let mut d = vec![0u8; 32];
                d[0..8].copy_from_slice(&self.blocks.saturating_sub(1).to_be_bytes());
                d[8..12].copy_from_slice(&self.cfg.block_size.to_be_bytes());
                DiskTarget::truncated(d, alloc)
            }
            Command::Read { lba, blocks, fua } => self.read(lba, u64::from(blocks), fua),
            Command::Write { lba, blocks, fua } => {
                let n = u64::from(blocks);
                if !self.range_ok(lba, n) {
                    return self.check(Sense::illegal(asc::LBA_OUT_OF_RANGE));
                }
                if self.write_protected {
                    return self.check(Sense::new(key::DATA_PROTECT, asc::WRITE_PROTECTED));
                }
                if n == 0 {
                    return DataPhase::None;
                }
                self.pending = Pending::Write { lba, fua };
                DataPhase::Out(n as usize * bs)
            }
            Command::Verify {
                lba,
                blocks,
                bytchk,
            } => {
                let n = u64::from(blocks);
                if !self.range_ok(lba, n) {
                    return self.check(Sense::illegal(asc::LBA_OUT_OF_RANGE));
                }
                if n == 0 {
                    return DataPhase::None;
                }
                if bytchk {
                    self.pending = Pending::Verify { lba };
                    return DataPhase::Out(n as usize * bs);
                }
                let mut head = self.head;
                self.busy += self.model().access(&mut head, lba, n);
                self.head = head;
                if let Some(bad) = self.first_read_error(lba, n) {
                    return self.check(
                        Sense::new(key::MEDIUM_ERROR, asc::UNRECOVERED_READ).with_info(bad as u32),
                    );
                }
                DataPhase::None
            }
            Command::ModeSense {
                ten,
                dbd,
                pc,
                page,
                alloc,
            } => {
                let pages = match self.pages.sense_pages(pc, page) {
                    Ok(p) => p,
                    Err(s) => return self.check(s),
                };
                let d = mode_pages::mode_sense_data(ten, dbd, &self.medium_info(), &pages);
                DiskTarget::truncated(d, alloc)
            }
            Command::ModeSelect {
                ten,
                pf: _,
                sp,
                len,
            } => {
                if sp && !self.pages.saving_supported {
                    return self.check(Sense::illegal(asc::INVALID_FIELD_IN_CDB));
                }
                if len == 0 {
                    return DataPhase::None;
                }
                self.pending = Pending::ModeSelect { ten, sp };
                DataPhase::Out(len)
            }
            Command::StartStop { immed, loej, start } => self.start_stop(immed, loej, start),
            Command::PreventAllow { prevent } => {
                self.prevented = prevent;
                DataPhase::None
            }
            Command::FormatUnit { fmtdata, .. } => {
                if self.write_protected {
                    return self.check(Sense::new(key::DATA_PROTECT, asc::WRITE_PROTECTED));
                }
                if fmtdata {
                    self.pending = Pending::Format;
                    return DataPhase::Out(4);
                }
                self.format();
                DataPhase::None
            }
            Command::ReassignBlocks => {
                if self.write_protected {
                    return self.check(Sense::new(key::DATA_PROTECT, asc::WRITE_PROTECTED));
                }
                self.pending = Pending::Reassign;
                DataPhase::Out(4 + 4 * self.cfg.reassign_max_lbas)
            }
            Command::SynchronizeCache { immed, lba, blocks } => {
                let end = if blocks == 0 {
                    self.blocks
                } else {
                    lba.saturating_add(u64::from(blocks))
                };
                if lba >= self.blocks.max(1) || end > self.blocks {
                    return self.check(Sense::illegal(asc::LBA_OUT_OF_RANGE));
                }
                match self.flush_range(lba, end) {
                    Ok(t) if !immed => self.busy += t,
                    Ok(_) => {}
                    Err(s) => return self.check(s),
                }
                DataPhase::None
            }
        }
    }

    /// The first LBA in `[lba, lba + n)` with an injected read error that the write cache
    /// does not cover.
    fn first_read_error(&self, lba: u64, n: u64) -> Option<u64> {
        self.faults
            .read_errors
            .range(lba..lba + n)
            .copied()
            .find(|&l| self.cache.get(l).is_none())
    }

    fn read(&mut self, lba: u64, n: u64, fua: bool) -> DataPhase {
        if !self.range_ok(lba, n) {
            return self.check(Sense::illegal(asc::LBA_OUT_OF_RANGE));
        }
        if n == 0 {
            return DataPhase::None;
        }
        if fua {
            // FUA: dirty cached blocks of the range go to the medium first, then the medium
            // is read.
            let dirty = self.cache.take_range(lba, lba + n);
            match self.write_out(dirty) {
                Ok(t) => self.busy += t,
                Err(s) => return self.check(s),
            }
        }
        self.log_access(lba, n, false);
        let bad = self.first_read_error(lba, n);
        let good = bad.map_or(n, |b| b - lba);
        let bs = self.bs();
        let mut data = vec![0u8; good as usize * bs];
        if let Err(s) = self.store_read(lba, &mut data) {
            return self.check(s);
        }
        let mut from_cache = 0;
        if !self.cache.is_empty() {
            for i in 0..good {
                if let Some(d) = self.cache.get(lba + i) {
                    data[i as usize * bs..(i as usize + 1) * bs].copy_from_slice(d);
                    from_cache += 1;
                }
            }
        }
        self.stats.write_cache_read_hits += from_cache;
        if from_cache < good || bad.is_some() {
            let touched = if bad.is_some() { good + 1 } else { good };
            let read_cache = !self.pages.rcd() && !fua;
            let mut head = self.head;
            let (t, hits) = self.model().read(&mut head, lba, touched, read_cache);
            self.head = head;
            self.busy += t;
            self.stats.read_ahead_hits += hits;
        }
        if let Some(b) = bad {
            self.fail(Sense::new(key::MEDIUM_ERROR, asc::UNRECOVERED_READ).with_info(b as u32));
        }
        DataPhase::In(data)
    }

    fn start_stop(&mut self, immed: bool, loej: bool, start: bool) -> DataPhase {
        if loej && !self.cfg.removable {
            return self.check(Sense::illegal(asc::INVALID_FIELD_IN_CDB));
        }
        if start {
            if !self.medium_present {
                return self.check(Sense::new(key::NOT_READY, asc::MEDIUM_NOT_PRESENT));
            }
            if !self.started && !immed {
                self.busy += self.cfg.timing.spin_up_ns;
            }
            self.started = true;
            if self.faults.not_ready_cause == Some(NotReadyCause::NeedsStart) {
                self.faults.not_ready = 0;
            }
            return DataPhase::None;
        }
        if loej && self.prevented {
            return self.check(Sense::illegal(asc::REMOVAL_PREVENTED));
        }
        // STOP (and eject) writes the cache first.
        match self.flush_range(0, u64::MAX) {
            Ok(t) if !immed => self.busy += t,
            Ok(_) => {}
            Err(s) => return self.check(s),
        }
        self.started = false;
        self.head.segment = None;
        if loej {
            self.medium_present = false;
        }
        DataPhase::None
    }

    fn format(&mut self) {
        self.cache.clear();
        let limit = self.limit();
        if let Err(e) = self.store.zero(limit) {
            let s = self.io_failed(e);
            self.fail(s);
            return;
        }
        self.busy += self.cfg.timing.media_ns(limit);
        self.head = Head::default();
    }

    fn write_data(&mut self, lba: u64, fua: bool, data: &[u8]) {
        let bs = self.bs();
        let n = (data.len() / bs) as u64;
        self.log_access(lba, n, true);
        let cached = self.pages.wce() && !fua;
        // Into the cache, a bad block is taken like any other: its error shows at write-back.
        let bad = if cached {
            None
        } else {
            self.faults.write_errors.range(lba..lba + n).next().copied()
        };
        let good = bad.map_or(n, |b| b - lba);
        let data = &data[..good as usize * bs];
        let result = if cached {
            let mut evicted = Vec::new();
            for i in 0..good as usize {
                evicted.extend(
                    self.cache
                        .insert(lba + i as u64, data[i * bs..(i + 1) * bs].to_vec()),
                );
            }
            self.stats.cached_block_writes += good;
            self.stats.evicted_blocks += evicted.len() as u64;
            // An evicted block belongs to an earlier command: its failure is deferred.
            match self.write_out(evicted) {
                Err(s) if s.key == key::MEDIUM_ERROR => {
                    self.defer(s);
                    Ok(0)
                }
                r => r,
            }
        } else {
            self.cache.take_range(lba, lba + good);
            let r = self.store_write(lba, data);
            let mut head = self.head;
            let t = self
                .model()
                .access_write(&mut head, lba, good + u64::from(bad.is_some()));
            self.head = head;
            r.map(|()| t)
        };
        match result {
            Ok(t) => self.busy += t,
            Err(s) => return self.fail(s),
        }
        if let Some(b) = bad {
            self.fail(Sense::new(key::MEDIUM_ERROR, asc::WRITE_ERROR).with_info(b as u32));
        }
    }

    fn verify_data(&mut self, lba: u64, data: &[u8]) {
        let bs = self.bs();
        let n = (data.len() / bs) as u64;
        self.log_access(lba, n, false);
        let mut head = self.head;
        self.busy += self.model().access(&mut head, lba, n);
        self.head = head;
        if let Some(bad) = self.first_read_error(lba, n) {
            return self
                .fail(Sense::new(key::MEDIUM_ERROR, asc::UNRECOVERED_READ).with_info(bad as u32));
        }
        let medium = match self.read_visible(lba, n) {
            Ok(m) => m,
            Err(e) => {
                let s = self.io_failed(e);
                return self.fail(s);
            }
        };
        self.stats.store_blocks_read += n;
        if let Some(k) = medium.iter().zip(data).position(|(a, b)| a != b) {
            // Information: byte offset of the first miscompare in the DATA OUT buffer.
            self.fail(Sense::new(key::MISCOMPARE, asc::MISCOMPARE_VERIFY).with_info(k as u32));
        }
    }

    fn mode_select_data(&mut self, ten: bool, sp: bool, data: &[u8]) {
        let info = self.medium_info();
        let effect = mode_pages::select_header(data, ten, &info)
            .and_then(|pages| self.pages.select_pages(pages, sp));
        match effect {
            Err(s) => self.fail(s),
            Ok(e) => {
                if e.wce_before && !e.wce_after {
                    match self.flush_range(0, u64::MAX) {
                        Ok(t) => self.busy += t,
                        Err(s) => self.fail(s),
                    }
                }
                if self.pages.rcd() {
                    self.head.segment = None;
                }
            }
        }
    }

    fn format_data(&mut self, data: &[u8]) {
        if data.len() < 4 {
            return self.fail(Sense::illegal(asc::PARAM_LIST_LENGTH));
        }
        let list_len = u16::from_be_bytes([data[2], data[3]]);
        // IP (byte 1 bit 3): initialization patterns are not supported; nor are defect lists.
        if data[1] & 0x08 != 0 || list_len != 0 {
            return self.fail(Sense::illegal(asc::INVALID_FIELD_IN_PARAM));
        }
        self.format();
    }

    fn reassign_data(&mut self, data: &[u8]) {
        if data.len() < 4 {
            return self.fail(Sense::illegal(asc::PARAM_LIST_LENGTH));
        }
        let len = u16::from_be_bytes([data[2], data[3]]) as usize;
        if !len.is_multiple_of(4) {
            return self.fail(Sense::illegal(asc::INVALID_FIELD_IN_PARAM));
        }
        if 4 + len > data.len() {
            return self.fail(Sense::illegal(asc::PARAM_LIST_LENGTH));
        }
        let lbas: Vec<u64> = data[4..4 + len]
            .chunks(4)
            .map(|c| u64::from(u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
            .collect();
        if let Some(&bad) = lbas.iter().find(|&&l| l >= self.blocks) {
            return self.fail(Sense::illegal(asc::LBA_OUT_OF_RANGE).with_info(bad as u32));
        }
        let zero = vec![0u8; self.bs()];
        for lba in lbas {
            if self.faults.read_errors.remove(&lba) {
                // The old block was unreadable: its data is lost.
                self.cache.take_range(lba, lba + 1);
                if let Err(s) = self.store_write(lba, &zero) {
                    return self.fail(s);
                }
            }
            self.faults.write_errors.remove(&lba);
            self.reassigned.insert(lba);
            let mut head = self.head;
            self.busy += self.model().access(&mut head, lba, 1);
            self.head = head;
        }
    }
}

impl ScsiTarget for DiskTarget {
    fn selectable(&mut self) -> bool {
        if self.faults.offline {
            self.stats.refused_selections += 1;
            return false;
        }
        if self.faults.selection_timeouts > 0 && self.faults.delay == 0 {
            self.faults.selection_timeouts -= 1;
            self.stats.refused_selections += 1;
            return false;
        }
        true
    }

    fn command(&mut self, lun: u8, cdb: &[u8]) -> DataPhase {
        self.status = status::GOOD;
        self.check_at_status = None;
        self.busy = self.overhead();
        self.pending = Pending::None;
        self.asked = 0;
        self.stats.commands += 1;
        if let Some(&opcode) = cdb.first() {
            *self.stats.by_opcode.entry(opcode).or_default() += 1;
        }
        if self.faults.delay > 0 {
            // A clean command: the injected bus faults wait (`delay_faults`).
            self.faults.delay -= 1;
            let saved = (self.faults.not_ready, self.faults.short_data);
            self.faults.not_ready = 0;
            self.faults.short_data = 0;
            let phase = if lun != self.cfg.lun {
                self.other_lun(cdb)
            } else {
                self.own_lun(cdb)
            };
            (self.faults.not_ready, self.faults.short_data) = saved;
            if let DataPhase::Out(n) = phase {
                self.asked = n;
            }
            return phase;
        }
        if let Some(n) = self.faults.power_loss_in {
            if n <= 1 {
                self.faults.power_loss_in = None;
                self.power_loss();
                self.busy = 0;
                return DataPhase::BusReset;
            }
            self.faults.power_loss_in = Some(n - 1);
        }
        if let Some(code) = self.faults.delayed_unit_attention.take() {
            self.push_ua(Sense::new(key::UNIT_ATTENTION, code));
        }
        if self.faults.hangs > 0 {
            self.faults.hangs -= 1;
            return DataPhase::Hang;
        }
        if let Some(n) = self.faults.bus_reset_in {
            if n <= 1 {
                self.faults.bus_reset_in = None;
                self.busy = 0;
                return DataPhase::BusReset;
            }
            self.faults.bus_reset_in = Some(n - 1);
        }
        if self.faults.busy > 0 {
            self.faults.busy -= 1;
            self.status = status::BUSY;
            return DataPhase::None;
        }
        let mut phase = if lun != self.cfg.lun {
            self.other_lun(cdb)
        } else {
            self.own_lun(cdb)
        };
        let short = self.faults.short_data > 0;
        match &mut phase {
            DataPhase::In(v) if short && !v.is_empty() => {
                self.faults.short_data -= 1;
                let keep = v.len().saturating_sub(self.faults.short_by);
                v.truncate(keep);
            }
            DataPhase::Out(n) if short && *n > 0 => {
                self.faults.short_data -= 1;
                *n = n.saturating_sub(self.faults.short_by);
            }
            _ => {}
        }
        self.stop_early_with_sense(cdb, &mut phase);
        if let DataPhase::Out(n) = phase {
            self.asked = n;
        }
        phase
    }

    fn data_out(&mut self, data: &[u8]) {
        let pending = std::mem::replace(&mut self.pending, Pending::None);
        if data.len() < self.asked {
            // The initiator stopped early (the bus normally pads): nothing is done.
            return self.fail(Sense::new(key::ABORTED_COMMAND, asc::DATA_PHASE_ERROR));
        }
        match pending {
            Pending::None => {}
            Pending::Write { lba, fua } => self.write_data(lba, fua, data),
            Pending::Verify { lba } => self.verify_data(lba, data),
            Pending::ModeSelect { ten, sp } => self.mode_select_data(ten, sp, data),
            Pending::Format => self.format_data(data),
            Pending::Reassign => self.reassign_data(data),
        }
    }

    fn status(&mut self) -> u8 {
        self.pending = Pending::None;
        if let Some(s) = self.check_at_status.take() {
            self.fail(s);
        }
        self.status
    }

    fn busy_ns(&self) -> u64 {
        self.busy
    }

    fn bus_reset(&mut self) {
        self.stats.bus_resets += 1;
        let wce_was = self.pages.wce();
        self.pages.restore_saved();
        if wce_was && !self.pages.wce() {
            self.write_back_deferred(0, u64::MAX);
        }
        self.after_reset();
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
