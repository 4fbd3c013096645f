//! The layout of Ferrite's driver blob — what the formatter writes into the driver partition
//! and the ROM loads (see `driver/src/entry.S`): fixed offsets the formatter and the build
//! tool rely on.

/// `bra.w` to the original-ROM install entry.
pub const ENTRY_ORIGINAL: usize = 0;
/// Blob magic "FRRT".
pub const MAGIC_OFFSET: usize = 4;
pub const MAGIC: [u8; 4] = *b"FRRT";
/// `bra.w` to the SCSI Manager 4.3 install entry.
pub const ENTRY_43: usize = 8;
/// Big-endian offset of the relocation table from the blob start (0 until the build tool
/// writes it).
pub const RELOC_OFFSET_FIELD: usize = 12;
/// The settings block.
pub const SETTINGS_OFFSET: usize = 16;
pub const SETTINGS_LEN: usize = 32;
/// The DRVR header: flags, delay, event mask, menu, the five routine offsets (words, from
/// the header), then the driver name as a Pascal string, padded to an even length.
pub const DRVR_HEADER_OFFSET: usize = 48;
/// Bytes of the DRVR header before its name.
pub const DRVR_FIXED_LEN: usize = 18;
/// Offset in the DRVR header of the first of its five routine offsets (open, prime,
/// control, status, close).
pub const DRVR_ROUTINES_AT: usize = 8;

/// Big-endian length, from the blob start, of the instructions: the head and the body's text
/// (the rodata and data that follow are not code). Written by the build tool, like the
/// relocation offset; 0 in blobs built before the field existed. It lives in a word of the
/// settings block that versions 1 and 2 reserve; the formatter never writes it.
pub const CODE_LEN_OFFSET: usize = SETTINGS_OFFSET + 20;

/// The head's pointer table follows the DRVR header (at [`head_table_offset`]): a word `n`,
/// the word the install code sets once the blob is relocated, then `n` relocated longs, the
/// only way the head reaches the body. All of it is data.
pub const HEAD_TABLE_FIXED_LEN: usize = 4;

/// End of the DRVR header (offset of the head's pointer table), from its name length;
/// `None` when `blob` is too short.
pub fn head_table_offset(blob: &[u8]) -> Option<usize> {
    let name_len = *blob.get(DRVR_HEADER_OFFSET + DRVR_FIXED_LEN)? as usize;
    let end = DRVR_HEADER_OFFSET + DRVR_FIXED_LEN + 1 + name_len;
    let end = end + end % 2;
    (end <= blob.len()).then_some(end)
}

/// The head's data, `[start, end)` offsets in order: the magic, the relocation offset and
/// settings block, the DRVR header and the pointer table. Everything else in the head is
/// code. `None` when `blob` is too short for its own head.
pub fn head_data(blob: &[u8]) -> Option<[(usize, usize); 3]> {
    let table = head_table_offset(blob)?;
    let n = u16::from_be_bytes([*blob.get(table)?, *blob.get(table + 1)?]) as usize;
    let end = table + HEAD_TABLE_FIXED_LEN + 4 * n;
    (end <= blob.len()).then_some([
        (MAGIC_OFFSET, MAGIC_OFFSET + 4),
        (RELOC_OFFSET_FIELD, SETTINGS_OFFSET + SETTINGS_LEN),
        (DRVR_HEADER_OFFSET, end),
    ])
}

/// The head's pointers: the offsets of the `n` relocated longs of the pointer table.
pub fn head_pointers(blob: &[u8]) -> Option<impl Iterator<Item = usize>> {
    let table = head_table_offset(blob)?;
    let n = u16::from_be_bytes([*blob.get(table)?, *blob.get(table + 1)?]) as usize;
    let first = table + HEAD_TABLE_FIXED_LEN;
    (first + 4 * n <= blob.len()).then(|| (0..n).map(move |i| first + 4 * i))
}

/// The *code key* of a driver image (a blob, or a flat image's bytes before relocation) and
/// its code length: an FNV-1a hash of the bytes from the DRVR header to the end of the code.
/// It leaves out the entries and the settings block, so a blob whose settings were changed
/// keeps its key. `None` for anything that is not a Ferrite driver with a code length. Used
/// to match driver coverage recorded in the emulated Mac with the blob that ships.
pub fn code_key(image: &[u8]) -> Option<(u64, usize)> {
    if image.get(MAGIC_OFFSET..MAGIC_OFFSET + 4)? != MAGIC {
        return None;
    }
    let c = image.get(CODE_LEN_OFFSET..CODE_LEN_OFFSET + 4)?;
    let code_len = u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as usize;
    let code = image.get(DRVR_HEADER_OFFSET..code_len)?;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in code {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Some((h, code_len))
}

/// The driver's version in the settings block: major, minor, patch, 0 (all zero in blobs
/// built before the field existed).
pub const DRIVER_VERSION_OFFSET: usize = SETTINGS_OFFSET + 28;

/// The version of a Ferrite driver blob (`None` when `blob` is not one, or predates the field).
pub fn driver_version(blob: &[u8]) -> Option<[u8; 3]> {
    if blob.get(MAGIC_OFFSET..MAGIC_OFFSET + 4)? != MAGIC {
        return None;
    }
    let v = blob.get(DRIVER_VERSION_OFFSET..DRIVER_VERSION_OFFSET + 3)?;
    (v != [0, 0, 0]).then(|| [v[0], v[1], v[2]])
}

/// Settings block magic "FSET".
pub const SETTINGS_MAGIC: [u8; 4] = *b"FSET";
/// Settings block version this code writes. Version 1 (write cache, read-ahead) is still
/// read: its transfer fields read as [`TransferMode::Auto`] with no cap.
pub const SETTINGS_VERSION: u16 = 2;
/// Flag bit: enable the drive's write cache at open.
pub const FLAG_WRITE_CACHE: u32 = 1;
/// Flag bit: the flight recorder is off — the driver writes no record to the disk
/// (`crate::flight_record`). Defined for settings block version 2 (older drivers ignore the
/// bit); **not yet honoured**: no driver writes a record so far, so none reads it yet.
pub const FLAG_RECORDER_OFF: u32 = 2;

/// Device blocks of the driver partition `ferrite init` and Ferrite Setup's Initialize make
/// (48 KiB on a 512-byte-block disk): the driver's bytes, then the flight-record area in the
/// last [`crate::flight_record::RECORD_AREA_BLOCKS`]. Apple's Drive Setup makes 54-, 56- and
/// 74-block driver partitions; HD SC Setup-era disks and Ferrite disks before 0.2 have 32.
pub const DRIVER_PARTITION_BLOCKS: u32 = 96;

/// Largest driver blob the build accepts: what every driver partition Ferrite makes holds
/// besides its record area (88 blocks of 512 bytes, 45,056 bytes). Below the two limits of
/// the ROM's loader (`docs/mac-facts.md` §1.5, §1.7): 65,535 bytes (the checksum's 16-bit
/// count) and 255 blocks (`ddSize` read with one READ(6)).
pub const DRIVER_BLOB_MAX: usize =
    (DRIVER_PARTITION_BLOCKS - crate::flight_record::RECORD_AREA_BLOCKS) as usize * 512;

const _: () = assert!(DRIVER_BLOB_MAX <= 0xFFFF && DRIVER_BLOB_MAX / 512 < 256);

/// Offset in the block of the transfer mode byte (version 2).
pub const TRANSFER_MODE_AT: usize = 14;
/// Offset in the block of the big-endian word: most blocks per command on the original SCSI
/// Manager, 0 = no cap (version 2).
pub const MAX_BLOCKS_OLD_AT: usize = 16;
/// The cap a new driver carries: 128 blocks (64 KB) per command on the original SCSI
/// Manager. QEMU's Quadra 800 is reported to hang in the ROM's polled `SCSIWrite` past about
/// 256 blocks in one transfer; half of that leaves a margin, and 64 KB commands cost a real
/// disk almost nothing (`docs/driver.md`, "Transfer mode").
pub const DEFAULT_MAX_BLOCKS_OLD: u16 = 128;
/// Offset in the block of the big-endian word: ticks (1/60 s) of write idleness after which
/// the driver flushes the drive's write cache, 0 = never (version 2; blocks written before
/// the field existed hold 0, and their drivers never flushed on their own).
pub const IDLE_FLUSH_AT: usize = 18;
/// The idle-flush time a new driver carries: 30 ticks, half a second (`docs/driver.md`,
/// "Write-back window").
pub const DEFAULT_IDLE_FLUSH_TICKS: u16 = 30;

/// How the driver moves data on the original SCSI Manager (SCSI Manager 4.3 moves it itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TransferMode {
    /// Polled on a 68000 Mac (its 5380 has no hardware handshake for blind transfers),
    /// blind elsewhere.
    #[default]
    Auto,
    /// `SCSIRBlind`/`SCSIWBlind` on every Mac.
    Blind,
    /// `SCSIRead`/`SCSIWrite` (the SCSI Manager polls every byte's handshake).
    Polled,
}

impl TransferMode {
    /// The byte stored in the settings block.
    pub const fn code(self) -> u8 {
        match self {
            TransferMode::Auto => 0,
            TransferMode::Blind => 1,
            TransferMode::Polled => 2,
        }
    }

    /// The mode of a stored byte (`None`: unknown).
    pub const fn from_code(b: u8) -> Option<TransferMode> {
        match b {
            0 => Some(TransferMode::Auto),
            1 => Some(TransferMode::Blind),
            2 => Some(TransferMode::Polled),
            _ => None,
        }
    }

    /// Whether the driver starts with blind transfers on a Mac whose CPU is a 68000
    /// (`cpu_68000`) or not. Blind transfers fall back to polled ones after a failure.
    pub const fn starts_blind(self, cpu_68000: bool) -> bool {
        match self {
            TransferMode::Auto => !cpu_68000,
            TransferMode::Blind => true,
            TransferMode::Polled => false,
        }
    }

    /// The name used on the command line and by `ferrite info`.
    pub const fn name(self) -> &'static str {
        match self {
            TransferMode::Auto => "auto",
            TransferMode::Blind => "blind",
            TransferMode::Polled => "polled",
        }
    }
}

/// The settings a user can change without rebuilding the driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub write_cache: bool,
    /// Read-ahead in blocks (0 = leave the drive's own setting).
    pub read_ahead: u16,
    /// Blind or polled transfers on the original SCSI Manager.
    pub transfer: TransferMode,
    /// Most blocks per command on the original SCSI Manager (0 = no cap).
    pub max_blocks_old: u16,
    /// Ticks of write idleness before the driver flushes the drive's cache (0 = never).
    pub idle_flush_ticks: u16,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            write_cache: true,
            read_ahead: 0,
            transfer: TransferMode::Auto,
            max_blocks_old: DEFAULT_MAX_BLOCKS_OLD,
            idle_flush_ticks: DEFAULT_IDLE_FLUSH_TICKS,
        }
    }
}

/// Why a blob's settings block cannot be read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsError {
    TooShort,
    NotAFerriteDriver,
    UnknownVersion(u16),
    /// The transfer-mode byte holds no known mode.
    UnknownTransferMode(u8),
    /// The block is version 1, which has no room for these settings (an older driver).
    OlderDriver,
}

impl core::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SettingsError::TooShort => write!(f, "the driver is too short for a settings block"),
            SettingsError::NotAFerriteDriver => write!(f, "not a Ferrite driver"),
            SettingsError::UnknownVersion(v) => write!(f, "settings block version {v} is unknown"),
            SettingsError::UnknownTransferMode(b) => write!(f, "transfer mode {b} is unknown"),
            SettingsError::OlderDriver => write!(
                f,
                "this Ferrite driver predates the transfer-mode settings (settings block version 1)"
            ),
        }
    }
}

impl Settings {
    /// What the driver uses when its settings block fails the check: everything as by
    /// default except the write cache, which stays as the drive has it (write-through is the
    /// safe reading of a block the driver cannot trust).
    pub const FALLBACK: Settings = Settings {
        write_cache: false,
        read_ahead: 0,
        transfer: TransferMode::Auto,
        max_blocks_old: DEFAULT_MAX_BLOCKS_OLD,
        idle_flush_ticks: DEFAULT_IDLE_FLUSH_TICKS,
    };

    /// The settings the driver runs with: the block's, or [`Settings::FALLBACK`]. The same
    /// reading as [`Settings::read`] for the block a driver carries (version 2: the driver
    /// reads its own), without the error detail — every byte counts in the driver.
    pub fn for_driver(blob: &[u8]) -> Settings {
        let Some(b) = blob.get(..SETTINGS_OFFSET + SETTINGS_LEN) else {
            return Settings::FALLBACK;
        };
        let word = |at: usize| u16::from_be_bytes([b[at], b[at + 1]]);
        let long = |at: usize| u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let s = SETTINGS_OFFSET;
        let transfer = TransferMode::from_code(b[s + TRANSFER_MODE_AT]);
        match transfer {
            Some(transfer)
                if long(MAGIC_OFFSET) == u32::from_be_bytes(MAGIC)
                    && long(s) == u32::from_be_bytes(SETTINGS_MAGIC)
                    && word(s + 4) == SETTINGS_VERSION =>
            {
                Settings {
                    write_cache: b[s + 11] & FLAG_WRITE_CACHE as u8 != 0,
                    read_ahead: word(s + 12),
                    transfer,
                    max_blocks_old: word(s + MAX_BLOCKS_OLD_AT),
                    idle_flush_ticks: word(s + IDLE_FLUSH_AT),
                }
            }
            _ => Settings::FALLBACK,
        }
    }

    /// Read the settings block of `blob`.
    pub fn read(blob: &[u8]) -> Result<Settings, SettingsError> {
        let b = blob
            .get(SETTINGS_OFFSET..SETTINGS_OFFSET + SETTINGS_LEN)
            .ok_or(SettingsError::TooShort)?;
        if blob[MAGIC_OFFSET..MAGIC_OFFSET + 4] != MAGIC || b[0..4] != SETTINGS_MAGIC {
            return Err(SettingsError::NotAFerriteDriver);
        }
        let version = u16::from_be_bytes([b[4], b[5]]);
        if version != 1 && version != SETTINGS_VERSION {
            return Err(SettingsError::UnknownVersion(version));
        }
        let flags = u32::from_be_bytes([b[8], b[9], b[10], b[11]]);
        let mut s = Settings {
            write_cache: flags & FLAG_WRITE_CACHE != 0,
            read_ahead: u16::from_be_bytes([b[12], b[13]]),
            transfer: TransferMode::Auto,
            max_blocks_old: 0,
            idle_flush_ticks: 0,
        };
        if version >= 2 {
            let mode = b[TRANSFER_MODE_AT];
            s.transfer =
                TransferMode::from_code(mode).ok_or(SettingsError::UnknownTransferMode(mode))?;
            s.max_blocks_old = u16::from_be_bytes([b[MAX_BLOCKS_OLD_AT], b[MAX_BLOCKS_OLD_AT + 1]]);
            s.idle_flush_ticks = u16::from_be_bytes([b[IDLE_FLUSH_AT], b[IDLE_FLUSH_AT + 1]]);
        }
        Ok(s)
    }

    /// The version of `blob`'s settings block (it must read).
    pub fn version(blob: &[u8]) -> Result<u16, SettingsError> {
        Settings::read(blob)?;
        let at = SETTINGS_OFFSET + 4;
        Ok(u16::from_be_bytes([blob[at], blob[at + 1]]))
    }

    /// Whether the flight recorder is off in `blob`'s settings block ([`FLAG_RECORDER_OFF`]).
    pub fn recorder_off(blob: &[u8]) -> Result<bool, SettingsError> {
        Settings::read(blob)?;
        let at = SETTINGS_OFFSET + 8;
        let flags = u32::from_be_bytes([blob[at], blob[at + 1], blob[at + 2], blob[at + 3]]);
        Ok(flags & FLAG_RECORDER_OFF != 0)
    }

    /// Turn the flight recorder off (or on) in `blob`'s settings block, leaving every other
    /// setting as it is. A version-1 block has no such bit (its driver predates the recorder).
    pub fn set_recorder_off(blob: &mut [u8], off: bool) -> Result<(), SettingsError> {
        if Settings::version(blob)? == 1 {
            return if off {
                Err(SettingsError::OlderDriver)
            } else {
                Ok(())
            };
        }
        let at = SETTINGS_OFFSET + 8;
        let mut flags = u32::from_be_bytes([blob[at], blob[at + 1], blob[at + 2], blob[at + 3]]);
        flags = if off {
            flags | FLAG_RECORDER_OFF
        } else {
            flags & !FLAG_RECORDER_OFF
        };
        blob[at..at + 4].copy_from_slice(&flags.to_be_bytes());
        Ok(())
    }

    /// Write these settings into `blob` (which must already hold a readable block). A
    /// version-1 block takes only the write cache and read-ahead, and refuses transfer
    /// settings other than what its driver does (auto, no cap).
    pub fn write(&self, blob: &mut [u8]) -> Result<(), SettingsError> {
        let version = Settings::version(blob)?;
        if version == 1
            && (self.transfer != TransferMode::Auto
                || self.max_blocks_old != 0
                || self.idle_flush_ticks != 0)
        {
            return Err(SettingsError::OlderDriver);
        }
        let b = &mut blob[SETTINGS_OFFSET..SETTINGS_OFFSET + SETTINGS_LEN];
        let mut flags = u32::from_be_bytes([b[8], b[9], b[10], b[11]]) & !FLAG_WRITE_CACHE;
        if self.write_cache {
            flags |= FLAG_WRITE_CACHE;
        }
        b[8..12].copy_from_slice(&flags.to_be_bytes());
        b[12..14].copy_from_slice(&self.read_ahead.to_be_bytes());
        if version >= 2 {
            b[TRANSFER_MODE_AT] = self.transfer.code();
            b[MAX_BLOCKS_OLD_AT..MAX_BLOCKS_OLD_AT + 2]
                .copy_from_slice(&self.max_blocks_old.to_be_bytes());
            b[IDLE_FLUSH_AT..IDLE_FLUSH_AT + 2]
                .copy_from_slice(&self.idle_flush_ticks.to_be_bytes());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob head with a settings block of `version` and the given transfer bytes.
    fn blob(version: u16, flags: u32, mode: u8, cap: u16) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[MAGIC_OFFSET..MAGIC_OFFSET + 4].copy_from_slice(&MAGIC);
        let s = &mut b[SETTINGS_OFFSET..SETTINGS_OFFSET + SETTINGS_LEN];
        s[0..4].copy_from_slice(&SETTINGS_MAGIC);
        s[4..6].copy_from_slice(&version.to_be_bytes());
        s[6..8].copy_from_slice(&(SETTINGS_LEN as u16).to_be_bytes());
        s[8..12].copy_from_slice(&flags.to_be_bytes());
        s[TRANSFER_MODE_AT] = mode;
        s[MAX_BLOCKS_OLD_AT..MAX_BLOCKS_OLD_AT + 2].copy_from_slice(&cap.to_be_bytes());
        b
    }

    #[test]
    fn version_2_round_trips_every_mode_and_cap() {
        for mode in [
            TransferMode::Auto,
            TransferMode::Blind,
            TransferMode::Polled,
        ] {
            for cap in [0, 1, 128, 65_535] {
                let mut b = blob(2, 1, 0, 0);
                let s = Settings {
                    write_cache: false,
                    read_ahead: 7,
                    transfer: mode,
                    max_blocks_old: cap,
                    idle_flush_ticks: cap ^ 0x55,
                };
                s.write(&mut b).unwrap();
                assert_eq!(Settings::read(&b), Ok(s));
                assert_eq!(b[SETTINGS_OFFSET + TRANSFER_MODE_AT], mode.code());
            }
        }
    }

    #[test]
    fn turning_the_write_cache_on_keeps_the_other_flags() {
        let mut b = blob(2, 0x8000_0002, 0, 0);
        let s = Settings {
            write_cache: true,
            ..Settings::read(&b).unwrap()
        };
        s.write(&mut b).unwrap();
        let at = SETTINGS_OFFSET + 8;
        let flags = u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        assert_eq!(flags, 0x8000_0002 | FLAG_WRITE_CACHE);
        assert!(Settings::read(&b).unwrap().write_cache);
    }

    #[test]
    fn the_head_pointers_follow_the_table_count() {
        // A DRVR name of 3 bytes: the table starts at the next even offset after it.
        let mut b = [0u8; 256];
        b[DRVR_HEADER_OFFSET + DRVR_FIXED_LEN] = 3;
        let table = head_table_offset(&b).unwrap();
        assert_eq!(table, DRVR_HEADER_OFFSET + DRVR_FIXED_LEN + 4);
        // A count of 0x0003 (its high byte 0, the byte before it not).
        b[table - 1] = 0x7F;
        b[table..table + 2].copy_from_slice(&3u16.to_be_bytes());
        let first = table + HEAD_TABLE_FIXED_LEN;
        let mut p = head_pointers(&b).unwrap();
        assert_eq!(
            [p.next(), p.next(), p.next(), p.next()],
            [Some(first), Some(first + 4), Some(first + 8), None]
        );
        // A table running past the blob is refused.
        assert!(head_pointers(&b[..first + 8]).is_none());
    }

    #[test]
    fn a_version_1_block_reads_as_auto_without_a_cap() {
        let b = blob(1, 1, 0, 0);
        let s = Settings::read(&b).unwrap();
        assert_eq!(s.transfer, TransferMode::Auto);
        assert_eq!(s.max_blocks_old, 0);
        assert!(s.write_cache);
    }

    #[test]
    fn a_version_1_block_takes_only_what_its_driver_knows() {
        let mut b = blob(1, 1, 0, 0);
        let mut s = Settings::read(&b).unwrap();
        s.write_cache = false;
        s.write(&mut b).unwrap();
        assert!(!Settings::read(&b).unwrap().write_cache);
        s.transfer = TransferMode::Polled;
        assert_eq!(s.write(&mut b), Err(SettingsError::OlderDriver));
        s.transfer = TransferMode::Auto;
        s.max_blocks_old = 128;
        assert_eq!(s.write(&mut b), Err(SettingsError::OlderDriver));
        assert_eq!(
            b[SETTINGS_OFFSET + MAX_BLOCKS_OLD_AT + 1],
            0,
            "nothing written"
        );
    }

    #[test]
    fn a_block_that_fails_its_check_means_write_through() {
        let mut bad_magic = blob(2, 1, 0, 128);
        bad_magic[SETTINGS_OFFSET] = b'X';
        let future = blob(3, 1, 0, 128);
        let bad_mode = blob(2, 1, 9, 128);
        assert_eq!(
            Settings::read(&bad_mode),
            Err(SettingsError::UnknownTransferMode(9))
        );
        for b in [&bad_magic[..], &future[..], &bad_mode[..], &bad_magic[..20]] {
            let s = Settings::for_driver(b);
            assert_eq!(s, Settings::FALLBACK);
            assert!(!s.write_cache);
        }
        assert!(Settings::for_driver(&blob(2, 1, 0, 128)).write_cache);
    }

    #[test]
    fn the_drivers_reading_agrees_with_read_on_version_2_blocks() {
        for flags in [0, 1, 3] {
            for mode in [0, 1, 2, 3] {
                for cap in [0, 128] {
                    let mut b = blob(2, flags, mode, cap);
                    b[SETTINGS_OFFSET + 12] = 0x12;
                    b[SETTINGS_OFFSET + IDLE_FLUSH_AT + 1] = 45;
                    let want = Settings::read(&b).unwrap_or(Settings::FALLBACK);
                    assert_eq!(Settings::for_driver(&b), want, "{flags} {mode} {cap}");
                }
            }
        }
    }

    #[test]
    fn the_recorder_bit_is_its_own_and_survives_settings_writes() {
        let mut b = blob(2, FLAG_WRITE_CACHE, 0, 128);
        assert_eq!(Settings::recorder_off(&b), Ok(false));
        Settings::set_recorder_off(&mut b, true).unwrap();
        assert_eq!(Settings::recorder_off(&b), Ok(true));
        assert_eq!(
            b[SETTINGS_OFFSET + 8..SETTINGS_OFFSET + 12],
            (FLAG_WRITE_CACHE | FLAG_RECORDER_OFF).to_be_bytes()
        );
        // Writing the other settings keeps it; the driver's reading is unchanged by it.
        let mut s = Settings::read(&b).unwrap();
        s.write_cache = false;
        s.write(&mut b).unwrap();
        assert_eq!(Settings::recorder_off(&b), Ok(true));
        assert_eq!(Settings::for_driver(&b), s);
        Settings::set_recorder_off(&mut b, false).unwrap();
        assert_eq!(Settings::recorder_off(&b), Ok(false));
        // A version-1 block has no room for it.
        let mut old = blob(1, 1, 0, 0);
        assert_eq!(
            Settings::set_recorder_off(&mut old, true),
            Err(SettingsError::OlderDriver)
        );
        assert_eq!(Settings::set_recorder_off(&mut old, false), Ok(()));
    }

    #[test]
    fn auto_is_polled_only_on_a_68000() {
        assert!(!TransferMode::Auto.starts_blind(true));
        assert!(TransferMode::Auto.starts_blind(false));
        assert!(TransferMode::Blind.starts_blind(true));
        assert!(!TransferMode::Polled.starts_blind(false));
        for m in [
            TransferMode::Auto,
            TransferMode::Blind,
            TransferMode::Polled,
        ] {
            assert_eq!(TransferMode::from_code(m.code()), Some(m));
        }
        assert_eq!(TransferMode::from_code(3), None);
    }
}
