//! The flight record: what the driver saw during a boot, kept on the disk so that
//! `ferrite report` can tell what happened on a Mac nobody here can watch.
//!
//! **Where.** The record area is the last [`RECORD_AREA_BLOCKS`] device blocks of the driver
//! partition (`Apple_Driver43`), past the driver's bytes: the ROM loads only `ddSize` blocks
//! and checksums only `pmBootSize` bytes, so the area is invisible to it and to other
//! formatters (which replace the whole partition). The formatter writes the area's header
//! ([`AreaHeader`], area block 0) when it makes the partition; the two slots are area
//! blocks 1 and 2, one record each (its first 512 bytes; the rest of a larger block is
//! zero); blocks 3 to 7 are reserved (zero). [`area_start`] says where the area is.
//!
//! **Identified.** A driver writes a record only where [`AreaHeader::check`] accepts the
//! header and the header names the partition's own first block: an old disk whose driver
//! partition has no area (or one a partition editor moved) is never written.
//!
//! **Crash-safe.** A record carries a sequence number, at its start and again in its last
//! four bytes, and a Fletcher-32 checksum. Record `n` goes to slot `n % 2` ([`next_write`]),
//! so a write that stops half-way tears only the slot being written and the previous record,
//! in the other slot, stays whole; [`latest`] picks the newer valid one and ignores a torn
//! slot.
//!
//! Every multi-byte field is big-endian and every structure an unaligned byte image, with its
//! offsets asserted below (`docs/formatter.md`, "The flight record").

use zerocopy::byteorder::{BigEndian, U16, U32, U64};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout, Unaligned};

type Be16 = U16<BigEndian>;
type Be32 = U32<BigEndian>;
type Be64 = U64<BigEndian>;

/// Device blocks of the record area, at the end of the driver partition.
pub const RECORD_AREA_BLOCKS: u32 = 8;
/// Area block of the header.
pub const HEADER_BLOCK: u32 = 0;
/// Area block of slot 0; slot 1 follows it.
pub const FIRST_SLOT_BLOCK: u32 = 1;
/// Slots (records kept).
pub const SLOTS: u32 = 2;
/// Bytes of one record (the first 512 bytes of its block).
pub const RECORD_LEN: usize = 512;

/// The area header's magic, "FRCA".
pub const AREA_MAGIC: [u8; 4] = *b"FRCA";
/// Area header version this code writes and reads.
pub const AREA_VERSION: u16 = 1;
/// A record's magic, "FREC".
pub const RECORD_MAGIC: [u8; 4] = *b"FREC";
/// Record version this code writes and reads.
pub const RECORD_VERSION: u16 = 1;
/// Errors kept in a record (the newest ones).
pub const ERRORS_KEPT: usize = 8;

/// Where the record area of a driver partition starts (a device block), or `None` when the
/// partition has no room for one past the driver's `boot_size` bytes.
pub fn area_start(
    partition_start: u32,
    partition_blocks: u32,
    boot_size: u32,
    bs: u32,
) -> Option<u32> {
    if bs == 0 {
        return None;
    }
    let code_blocks = boot_size.div_ceil(bs);
    let first = partition_blocks.checked_sub(RECORD_AREA_BLOCKS)?;
    (first >= code_blocks).then(|| partition_start + first)
}

/// Fletcher-32 over big-endian 16-bit words (an odd last byte is padded with zero), the words
/// at byte offsets `skip..skip + 4` read as zero (the checksum field itself). Each sum stays
/// below 65,535 by one subtraction per step, so the 68000 needs no division.
pub fn fletcher32(bytes: &[u8], skip: usize) -> u32 {
    let (mut a, mut b) = (0u32, 0u32);
    let mut i = 0;
    while i < bytes.len() {
        let hi = bytes[i] as u32;
        let lo = bytes.get(i + 1).copied().unwrap_or(0) as u32;
        let w = if i >= skip && i < skip + 4 {
            0
        } else {
            hi << 8 | lo
        };
        a += w;
        if a >= 65_535 {
            a -= 65_535;
        }
        b += a;
        if b >= 65_535 {
            b -= 65_535;
        }
        i += 2;
    }
    b << 16 | a
}

/// The record area's header (area block 0; 32 bytes, the rest of the block zero).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AreaHeader {
    /// [`AREA_MAGIC`].
    pub magic: [u8; 4],
    /// [`AREA_VERSION`].
    pub version: Be16,
    /// Bytes of this header (32).
    pub length: Be16,
    /// [`RECORD_AREA_BLOCKS`].
    pub area_blocks: Be16,
    /// Device blocks per slot (1).
    pub slot_blocks: Be16,
    /// Area block of slot 0 ([`FIRST_SLOT_BLOCK`]).
    pub first_slot: Be16,
    /// [`SLOTS`].
    pub slots: Be16,
    /// First block of the driver partition the area belongs to.
    pub partition_start: Be32,
    /// [`fletcher32`] of these 32 bytes, this field read as zero.
    pub checksum: Be32,
    pub reserved: [u8; 8],
}

/// Why an area header is not one a driver may write under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AreaError {
    /// No header (no magic): an area never made, or not an area at all.
    Missing,
    /// A header of another version or shape.
    Unknown,
    /// The checksum does not match.
    Damaged,
    /// The header names another partition (the partition was moved or copied).
    OtherPartition { names: u32 },
}

impl core::fmt::Display for AreaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            AreaError::Missing => f.write_str("no record area"),
            AreaError::Unknown => f.write_str("a record area of an unknown version"),
            AreaError::Damaged => f.write_str("the record area's header is damaged"),
            AreaError::OtherPartition { names } => write!(
                f,
                "the record area names a partition at block {names}, not this one"
            ),
        }
    }
}

impl AreaHeader {
    /// Bytes of the header.
    pub const LEN: usize = 32;

    /// The header for the driver partition starting at `partition_start`.
    pub fn new(partition_start: u32) -> AreaHeader {
        let mut h = AreaHeader::new_zeroed();
        h.magic = AREA_MAGIC;
        h.version.set(AREA_VERSION);
        h.length.set(Self::LEN as u16);
        h.area_blocks.set(RECORD_AREA_BLOCKS as u16);
        h.slot_blocks.set(1);
        h.first_slot.set(FIRST_SLOT_BLOCK as u16);
        h.slots.set(SLOTS as u16);
        h.partition_start.set(partition_start);
        h.checksum.set(fletcher32(h.as_bytes(), 20));
        h
    }

    /// The header at the start of `block` (`None`: shorter than a header).
    pub fn read(block: &[u8]) -> Option<AreaHeader> {
        AreaHeader::read_from_prefix(block).ok().map(|(h, _)| h)
    }

    /// Whether a driver of the partition at `partition_start` may write records under this
    /// header.
    pub fn check(&self, partition_start: u32) -> Result<(), AreaError> {
        if self.magic != AREA_MAGIC {
            return Err(AreaError::Missing);
        }
        if fletcher32(self.as_bytes(), 20) != self.checksum.get() {
            return Err(AreaError::Damaged);
        }
        if self.version.get() != AREA_VERSION
            || self.length.get() as usize != Self::LEN
            || self.area_blocks.get() as u32 != RECORD_AREA_BLOCKS
            || self.slot_blocks.get() != 1
            || self.first_slot.get() as u32 != FIRST_SLOT_BLOCK
            || self.slots.get() as u32 != SLOTS
        {
            return Err(AreaError::Unknown);
        }
        if self.partition_start.get() != partition_start {
            return Err(AreaError::OtherPartition {
                names: self.partition_start.get(),
            });
        }
        Ok(())
    }
}

/// The boot stages a record can show reached (bits of [`FlightRecord::stages`]).
pub mod stage {
    /// The ROM entered the driver at +0 (original SCSI Manager convention, D5 = SCSI ID).
    pub const ENTERED_AT_0: u32 = 1 << 0;
    /// The ROM entered the driver at +8 (SCSI Manager 4.3 convention, D5 = DeviceIdent).
    pub const ENTERED_AT_8: u32 = 1 << 1;
    /// The driver relocated itself.
    pub const RELOCATED: u32 = 1 << 2;
    /// A SCSI Manager was found (which: [`super::FlightRecord::scsi_manager`]).
    pub const SCSI_MANAGER_FOUND: u32 = 1 << 3;
    /// `_DrvrInstall` succeeded.
    pub const DRVR_INSTALLED: u32 = 1 << 4;
    /// The drive answered INQUIRY.
    pub const INQUIRY: u32 = 1 << 5;
    /// The drive answered READ CAPACITY.
    pub const CAPACITY: u32 = 1 << 6;
    /// The partition map was read and parsed.
    pub const MAP_PARSED: u32 = 1 << 7;
    /// At least one drive was added to the drive queue.
    pub const DRIVES_ADDED: u32 = 1 << 8;
    /// The write cache setting was applied (or left as the drive has it, as set).
    pub const WRITE_CACHE_SET: u32 = 1 << 9;
    /// The first read through the driver (the ROM's boot-block read) completed.
    pub const FIRST_IO: u32 = 1 << 10;
    /// The first accRun (the system gives the driver time: the File Manager is up).
    pub const FIRST_ACCRUN: u32 = 1 << 11;
    /// SCSI Manager 4.3 arrived after boot and the driver moved to it.
    pub const SWITCHED_TO_43: u32 = 1 << 12;
    /// Goodbye (shutdown or restart) was seen.
    pub const GOODBYE: u32 = 1 << 13;
    /// The safe-start key was held: write-through, polled, no idle work, recorder off.
    pub const SAFE_START: u32 = 1 << 14;
    /// The settings block failed its check; the fallback settings were used.
    pub const SETTINGS_FALLBACK: u32 = 1 << 15;

    /// Every stage with its name, in boot order.
    pub const ALL: [(u32, &str); 16] = [
        (ENTERED_AT_0, "entered at +0"),
        (ENTERED_AT_8, "entered at +8"),
        (RELOCATED, "relocated"),
        (SCSI_MANAGER_FOUND, "SCSI Manager found"),
        (DRVR_INSTALLED, "driver installed"),
        (INQUIRY, "INQUIRY"),
        (CAPACITY, "capacity"),
        (MAP_PARSED, "map parsed"),
        (DRIVES_ADDED, "drives added"),
        (WRITE_CACHE_SET, "write cache set"),
        (FIRST_IO, "first I/O"),
        (FIRST_ACCRUN, "first accRun"),
        (SWITCHED_TO_43, "switched to SCSI Manager 4.3"),
        (GOODBYE, "goodbye"),
        (SAFE_START, "safe start"),
        (SETTINGS_FALLBACK, "settings fallback"),
    ];
}

/// Why a record was written ([`FlightRecord::reason`]).
pub mod reason {
    /// At the end of install.
    pub const INSTALL: u8 = 1;
    /// At the first accRun.
    pub const FIRST_ACCRUN: u8 = 2;
    /// At goodbye.
    pub const GOODBYE: u8 = 3;
    /// After an error worth keeping (at task level, never at interrupt level).
    pub const ERROR: u8 = 4;
}

/// Which SCSI Manager the driver used ([`FlightRecord::scsi_manager`]).
pub mod scsi_manager {
    pub const UNKNOWN: u8 = 0;
    /// The original SCSI Manager (`_SCSIDispatch` transactions).
    pub const ORIGINAL: u8 = 1;
    /// SCSI Manager 4.3, present at install.
    pub const V43: u8 = 2;
}

/// What became of the drive's write cache ([`FlightRecord::write_cache`]).
pub mod write_cache {
    pub const UNKNOWN: u8 = 0;
    /// Left as the drive had it (settings: off, or nothing to change).
    pub const LEFT: u8 = 1;
    /// Enabled with MODE SELECT.
    pub const ENABLED: u8 = 2;
    /// The drive has no caching page (MODE SENSE of page 08h failed).
    pub const NO_PAGE: u8 = 3;
    /// The drive refused MODE SELECT.
    pub const SELECT_REFUSED: u8 = 4;
}

/// The driver's counters since install.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    FromBytes,
    IntoBytes,
    KnownLayout,
    Immutable,
    Unaligned,
)]
#[repr(C)]
pub struct Counters {
    /// SCSI commands sent.
    pub commands: Be32,
    /// Retries because the target was busy (status BUSY or a failed selection).
    pub retries_busy: Be32,
    /// Retries after a UNIT ATTENTION.
    pub retries_unit_attention: Be32,
    /// Retries after a timeout.
    pub retries_timeout: Be32,
    /// Retries after a transfer error (phase, parity, a blind transfer that fell back).
    pub retries_transfer: Be32,
    /// Retries for any other cause.
    pub retries_other: Be32,
    /// SCSI bus resets the driver asked for or saw.
    pub bus_resets: Be32,
    /// Commands that timed out.
    pub timeouts: Be32,
    /// UNIT ATTENTION conditions.
    pub unit_attentions: Be32,
    /// Deferred errors (sense response code 71h).
    pub deferred_errors: Be32,
    /// Writes the drive reported lost (deferred errors on cached writes).
    pub lost_writes: Be32,
    /// Read requests that failed.
    pub read_errors: Be32,
    /// Write requests that failed.
    pub write_errors: Be32,
    /// Blind transfers that fell back to polled ones.
    pub polled_fallbacks: Be32,
    pub reserved: [Be32; 2],
}

/// One error kept in a record.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    FromBytes,
    IntoBytes,
    KnownLayout,
    Immutable,
    Unaligned,
)]
#[repr(C)]
pub struct ErrorEntry {
    /// `Ticks` when it happened.
    pub ticks: Be32,
    /// The first block of the command (0 when it has none).
    pub lba: Be32,
    /// The Mac OS result returned (an `OSErr`, negative).
    pub result: Be16,
    /// The CDB's operation code.
    pub opcode: u8,
    /// The SCSI status byte (0xFF: none, the command did not complete).
    pub status: u8,
    /// Sense key, ASC, ASCQ (zero without sense).
    pub sense_key: u8,
    pub asc: u8,
    pub ascq: u8,
    /// Retries made before giving up.
    pub retries: u8,
}

/// One record (512 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct FlightRecord {
    /// [`RECORD_MAGIC`].
    pub magic: [u8; 4],
    /// [`RECORD_VERSION`].
    pub version: Be16,
    /// [`RECORD_LEN`].
    pub length: Be16,
    /// The record's number on this disk: record `n` lives in slot `n % 2`.
    pub sequence: Be32,
    /// [`fletcher32`] of the 512 bytes, this field read as zero.
    pub checksum: Be32,
    /// Boots this area has seen (1 = the first).
    pub boot: Be32,
    /// `Ticks` when the record was written.
    pub ticks: Be32,
    /// [`stage`] bits reached this boot.
    pub stages: Be32,
    /// [`reason`].
    pub reason: u8,
    /// The entry the ROM used: 0 or 8 (0xFF: unknown).
    pub entry: u8,
    /// [`scsi_manager`].
    pub scsi_manager: u8,
    /// `CPUFlag`: 0 = 68000 … 4 = 68040 (0xFF: unknown).
    pub cpu: u8,
    /// D5 at entry (the SCSI ID, or the DeviceIdent).
    pub d5: Be32,
    /// The SCSI Manager's version (4.3: its BCD version; 0 unknown).
    pub scsi_manager_version: Be16,
    /// The machine: Gestalt `'mach'` (0: unknown).
    pub machine: Be16,
    /// The ROM version word (`ROM85`-era: the word at ROMBase + 8; 0 unknown).
    pub rom_version: Be16,
    /// `SysVersion` (0 at install: the System is not read yet).
    pub system_version: Be16,
    /// The driver's version: major, minor, patch, 0.
    pub driver_version: [u8; 4],
    /// The settings in force: the settings block's flags.
    pub settings_flags: Be32,
    /// Read-ahead in blocks.
    pub read_ahead: Be16,
    /// Transfer mode byte (`driver_blob::TransferMode::code`).
    pub transfer: u8,
    /// 0: the block's settings; 1: the fallback (the block failed its check); 2: safe start.
    pub settings_source: u8,
    /// Most blocks per command on the original SCSI Manager.
    pub max_blocks_old: Be16,
    /// Idle-flush ticks.
    pub idle_flush_ticks: Be16,
    /// [`write_cache`].
    pub write_cache: u8,
    /// Map entries read.
    pub map_entries: u8,
    /// `Apple_HFS` partitions found.
    pub hfs_partitions: u8,
    /// Drives added to the drive queue.
    pub drives_added: u8,
    /// The drive's block size (READ CAPACITY).
    pub block_size: Be32,
    /// The drive's blocks (READ CAPACITY: last LBA + 1).
    pub capacity_blocks: Be64,
    /// The result of the first I/O (0 = noErr).
    pub first_io_result: Be16,
    /// The drive number of the first drive added.
    pub first_drive: Be16,
    /// The drive's standard INQUIRY data (the first 36 bytes).
    pub inquiry: [u8; 36],
    pub reserved1: [u8; 12],
    /// Counters since install.
    pub counters: Counters,
    /// Errors since install (the newest [`ERRORS_KEPT`] are kept).
    pub error_total: Be32,
    /// Where the next error goes in `errors`.
    pub error_next: u8,
    pub reserved2: [u8; 3],
    /// The newest errors, a ring ([`FlightRecord::recent_errors`]).
    pub errors: [ErrorEntry; ERRORS_KEPT],
    pub reserved3: [u8; 180],
    /// The sequence number again, the last bytes written: a record cut short shows it.
    pub sequence_end: Be32,
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<AreaHeader>() == AreaHeader::LEN);
    assert!(offset_of!(AreaHeader, version) == 4);
    assert!(offset_of!(AreaHeader, area_blocks) == 8);
    assert!(offset_of!(AreaHeader, first_slot) == 12);
    assert!(offset_of!(AreaHeader, slots) == 14);
    assert!(offset_of!(AreaHeader, partition_start) == 16);
    assert!(offset_of!(AreaHeader, checksum) == 20);
    assert!(size_of::<Counters>() == 64);
    assert!(size_of::<ErrorEntry>() == 16);
    assert!(offset_of!(ErrorEntry, result) == 8);
    assert!(offset_of!(ErrorEntry, opcode) == 10);
    assert!(offset_of!(ErrorEntry, sense_key) == 12);
    assert!(offset_of!(ErrorEntry, retries) == 15);
    assert!(size_of::<FlightRecord>() == RECORD_LEN);
    assert!(offset_of!(FlightRecord, version) == 4);
    assert!(offset_of!(FlightRecord, length) == 6);
    assert!(offset_of!(FlightRecord, sequence) == 8);
    assert!(offset_of!(FlightRecord, checksum) == 12);
    assert!(offset_of!(FlightRecord, boot) == 16);
    assert!(offset_of!(FlightRecord, ticks) == 20);
    assert!(offset_of!(FlightRecord, stages) == 24);
    assert!(offset_of!(FlightRecord, reason) == 28);
    assert!(offset_of!(FlightRecord, entry) == 29);
    assert!(offset_of!(FlightRecord, scsi_manager) == 30);
    assert!(offset_of!(FlightRecord, cpu) == 31);
    assert!(offset_of!(FlightRecord, d5) == 32);
    assert!(offset_of!(FlightRecord, scsi_manager_version) == 36);
    assert!(offset_of!(FlightRecord, machine) == 38);
    assert!(offset_of!(FlightRecord, rom_version) == 40);
    assert!(offset_of!(FlightRecord, system_version) == 42);
    assert!(offset_of!(FlightRecord, driver_version) == 44);
    assert!(offset_of!(FlightRecord, settings_flags) == 48);
    assert!(offset_of!(FlightRecord, read_ahead) == 52);
    assert!(offset_of!(FlightRecord, transfer) == 54);
    assert!(offset_of!(FlightRecord, settings_source) == 55);
    assert!(offset_of!(FlightRecord, max_blocks_old) == 56);
    assert!(offset_of!(FlightRecord, idle_flush_ticks) == 58);
    assert!(offset_of!(FlightRecord, write_cache) == 60);
    assert!(offset_of!(FlightRecord, map_entries) == 61);
    assert!(offset_of!(FlightRecord, hfs_partitions) == 62);
    assert!(offset_of!(FlightRecord, drives_added) == 63);
    assert!(offset_of!(FlightRecord, block_size) == 64);
    assert!(offset_of!(FlightRecord, capacity_blocks) == 68);
    assert!(offset_of!(FlightRecord, first_io_result) == 76);
    assert!(offset_of!(FlightRecord, first_drive) == 78);
    assert!(offset_of!(FlightRecord, inquiry) == 80);
    assert!(offset_of!(FlightRecord, counters) == 128);
    assert!(offset_of!(FlightRecord, error_total) == 192);
    assert!(offset_of!(FlightRecord, error_next) == 196);
    assert!(offset_of!(FlightRecord, errors) == 200);
    assert!(offset_of!(FlightRecord, reserved3) == 328);
    assert!(offset_of!(FlightRecord, sequence_end) == 508);
};

/// Byte offset of [`FlightRecord::checksum`].
const RECORD_CHECKSUM_AT: usize = 12;

/// What a slot holds.
// The record inline: the driver has no allocator, and a slot is read a few times per boot.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// No record (no magic: never written).
    Empty,
    /// A record that does not check: cut short, damaged, or of an unknown version.
    Torn,
    /// A whole record.
    Valid(FlightRecord),
}

impl FlightRecord {
    /// A zeroed record with its magic, version and length set, sequence `sequence`.
    pub fn new(sequence: u32) -> FlightRecord {
        let mut r = FlightRecord::new_zeroed();
        r.magic = RECORD_MAGIC;
        r.version.set(RECORD_VERSION);
        r.length.set(RECORD_LEN as u16);
        r.entry = 0xFF;
        r.cpu = 0xFF;
        r.sequence.set(sequence);
        r
    }

    /// Set the sequence number (both copies) and the checksum: the record as written.
    pub fn seal(&mut self, sequence: u32) {
        self.sequence.set(sequence);
        self.sequence_end.set(sequence);
        self.checksum.set(0);
        self.checksum
            .set(fletcher32(self.as_bytes(), RECORD_CHECKSUM_AT));
    }

    /// What the first [`RECORD_LEN`] bytes of a slot's block hold.
    pub fn read_slot(block: &[u8]) -> Slot {
        let Ok((r, _)) = FlightRecord::read_from_prefix(block) else {
            return Slot::Torn;
        };
        if r.magic != RECORD_MAGIC {
            return if block[..RECORD_LEN].iter().all(|&b| b == 0) {
                Slot::Empty
            } else {
                Slot::Torn
            };
        }
        if r.version.get() != RECORD_VERSION
            || r.length.get() as usize != RECORD_LEN
            || r.sequence_end.get() != r.sequence.get()
            || fletcher32(r.as_bytes(), RECORD_CHECKSUM_AT) != r.checksum.get()
        {
            return Slot::Torn;
        }
        Slot::Valid(r)
    }

    /// Record an error in the ring (and count it).
    pub fn push_error(&mut self, e: ErrorEntry) {
        let at = self.error_next as usize % ERRORS_KEPT;
        self.errors[at] = e;
        self.error_next = ((at + 1) % ERRORS_KEPT) as u8;
        self.error_total.set(self.error_total.get().wrapping_add(1));
    }

    /// The errors kept, newest first.
    pub fn recent_errors(&self) -> impl Iterator<Item = &ErrorEntry> {
        let kept = (self.error_total.get() as usize).min(ERRORS_KEPT);
        let next = self.error_next as usize % ERRORS_KEPT;
        (1..=kept).map(move |k| &self.errors[(next + ERRORS_KEPT - k) % ERRORS_KEPT])
    }

    /// Whether every bit of `bits` was reached.
    pub fn reached(&self, bits: u32) -> bool {
        self.stages.get() & bits == bits
    }
}

/// Whether sequence `a` is newer than `b` (serial-number order: wraps at 2^32).
pub fn newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// The newest whole record of the two slots' blocks: its slot and the record. A torn slot is
/// ignored; two whole records with the same sequence (a slot copied by hand) yield slot 0's.
pub fn latest(slots: [&[u8]; 2]) -> Option<(usize, FlightRecord)> {
    let a = FlightRecord::read_slot(slots[0]);
    let b = FlightRecord::read_slot(slots[1]);
    match (a, b) {
        (Slot::Valid(x), Slot::Valid(y)) if newer(y.sequence.get(), x.sequence.get()) => {
            Some((1, y))
        }
        (Slot::Valid(x), _) => Some((0, x)),
        (_, Slot::Valid(y)) => Some((1, y)),
        _ => None,
    }
}

/// Where the next record goes and its sequence number: one past the newest whole record
/// (1 on an empty area), in slot `sequence % 2` — never the slot holding that newest record.
pub fn next_write(slots: [&[u8]; 2]) -> (usize, u32) {
    let seq = match latest(slots) {
        Some((_, r)) => r.sequence.get().wrapping_add(1),
        None => 1,
    };
    ((seq % 2) as usize, seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(r: &FlightRecord) -> [u8; 512] {
        let mut b = [0u8; 512];
        b.copy_from_slice(r.as_bytes());
        b
    }

    fn sealed(seq: u32) -> FlightRecord {
        let mut r = FlightRecord::new(seq);
        r.stages.set(stage::ENTERED_AT_0 | stage::MAP_PARSED);
        r.boot.set(seq);
        r.seal(seq);
        r
    }

    #[test]
    fn fletcher_matches_hand_computed_values() {
        // Words 0x0102, 0x0304: a = 0x0102 + 0x0304 = 0x0406, b = 0x0102 + 0x0406 = 0x0508.
        assert_eq!(fletcher32(&[1, 2, 3, 4], 100), 0x0508_0406);
        // An odd byte is padded: one word 0x0500.
        assert_eq!(fletcher32(&[5], 100), 0x0500_0500);
        // The skipped field reads as zero.
        assert_eq!(
            fletcher32(&[1, 2, 0xFF, 0xFF, 0xEE, 0xEE], 2),
            fletcher32(&[1, 2, 0, 0, 0, 0], 100)
        );
        // Sums are taken mod 65,535: 0xFFFF counts as 0.
        assert_eq!(fletcher32(&[0xFF, 0xFF, 0xFF, 0xFF], 100), 0);
        assert_eq!(fletcher32(&[0xFF, 0xFF, 0, 1], 100), 0x0001_0001);
    }

    #[test]
    fn a_sealed_record_reads_back_and_any_flipped_byte_is_torn() {
        let r = sealed(7);
        let b = block(&r);
        assert_eq!(FlightRecord::read_slot(&b), Slot::Valid(r));
        for i in 0..512 {
            let mut t = b;
            t[i] ^= 0x40;
            assert_eq!(FlightRecord::read_slot(&t), Slot::Torn, "byte {i}");
        }
        assert_eq!(FlightRecord::read_slot(&[0u8; 512]), Slot::Empty);
    }

    #[test]
    fn a_record_cut_short_is_torn() {
        // The new record's first half over the old record's second half.
        let old = block(&sealed(4));
        let mut new = sealed(5);
        new.counters.commands.set(1234);
        new.seal(5);
        let new = block(&new);
        for cut in [12, 64, 256, 508] {
            let mut t = old;
            t[..cut].copy_from_slice(&new[..cut]);
            assert_eq!(FlightRecord::read_slot(&t), Slot::Torn, "cut at {cut}");
        }
    }

    #[test]
    fn the_newer_whole_slot_wins_and_a_torn_one_is_ignored() {
        let (a, b) = (block(&sealed(10)), block(&sealed(11)));
        assert_eq!(
            latest([&a, &b]).map(|(s, r)| (s, r.sequence.get())),
            Some((1, 11))
        );
        assert_eq!(
            latest([&b, &a]).map(|(s, r)| (s, r.sequence.get())),
            Some((0, 11))
        );
        let mut torn = b;
        torn[300] ^= 1;
        assert_eq!(
            latest([&a, &torn]).map(|(s, r)| (s, r.sequence.get())),
            Some((0, 10))
        );
        // The next write replaces the torn slot, never the whole one.
        assert_eq!(next_write([&a, &torn]), (1, 11));
        assert_eq!(next_write([&a, &b]), (0, 12));
        let empty = [0u8; 512];
        assert_eq!(latest([&empty, &empty]), None);
        assert_eq!(next_write([&empty, &empty]), (1, 1));
        // Across the wrap, u32::MAX is older than 0.
        let (x, y) = (block(&sealed(u32::MAX)), block(&sealed(0)));
        assert_eq!(latest([&y, &x]).map(|(s, _)| s), Some(0));
        assert!(newer(0, u32::MAX) && !newer(u32::MAX, 0));
    }

    #[test]
    fn the_area_header_identifies_its_partition() {
        let h = AreaHeader::new(64);
        let mut b = [0u8; 512];
        b[..32].copy_from_slice(h.as_bytes());
        let r = AreaHeader::read(&b).unwrap();
        assert_eq!(r.check(64), Ok(()));
        assert_eq!(r.check(120), Err(AreaError::OtherPartition { names: 64 }));
        assert_eq!(
            AreaHeader::read(&[0u8; 512]).unwrap().check(64),
            Err(AreaError::Missing)
        );
        let mut d = b;
        d[17] ^= 1;
        assert_eq!(
            AreaHeader::read(&d).unwrap().check(64),
            Err(AreaError::Damaged)
        );
        let mut v = h;
        v.version.set(2);
        v.checksum.set(fletcher32(v.as_bytes(), 20));
        assert_eq!(v.check(64), Err(AreaError::Unknown));
    }

    #[test]
    fn the_area_is_the_partitions_tail_past_the_driver() {
        // 96 blocks at 64 with a 16,208-byte driver (32 blocks): blocks 152..160.
        assert_eq!(area_start(64, 96, 16_208, 512), Some(152));
        // An old 32-block partition holding a 32-block driver has no room.
        assert_eq!(area_start(64, 32, 16_208, 512), None);
        assert_eq!(area_start(64, 40, 16_208, 512), Some(96));
        assert_eq!(area_start(64, 40, 16_385, 512), None);
        assert_eq!(area_start(64, 4, 0, 512), None);
    }

    #[test]
    fn errors_ring_keeps_the_newest_newest_first() {
        let mut r = FlightRecord::new(1);
        for i in 0..11u32 {
            let mut e = ErrorEntry::default();
            e.lba.set(i);
            r.push_error(e);
        }
        let lbas: [u32; 8] = core::array::from_fn(|k| r.recent_errors().nth(k).unwrap().lba.get());
        assert_eq!(lbas, [10, 9, 8, 7, 6, 5, 4, 3]);
        assert_eq!(r.error_total.get(), 11);
        let mut s = FlightRecord::new(1);
        s.push_error(ErrorEntry {
            asc: 0x29,
            ..Default::default()
        });
        assert_eq!(s.recent_errors().count(), 1);
    }
}
