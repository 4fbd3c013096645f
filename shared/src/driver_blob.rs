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
/// The DRVR header.
pub const DRVR_HEADER_OFFSET: usize = 48;

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
/// Settings block version this code reads and writes.
pub const SETTINGS_VERSION: u16 = 1;
/// Flag bit: enable the drive's write cache at open.
pub const FLAG_WRITE_CACHE: u32 = 1;

/// The settings a user can change without rebuilding the driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub write_cache: bool,
    /// Read-ahead in blocks (0 = leave the drive's own setting).
    pub read_ahead: u16,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            write_cache: true,
            read_ahead: 0,
        }
    }
}

/// Why a blob's settings block cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsError {
    TooShort,
    NotAFerriteDriver,
    UnknownVersion(u16),
}

impl Settings {
    /// Read the settings block of `blob`.
    pub fn read(blob: &[u8]) -> Result<Settings, SettingsError> {
        let b = blob
            .get(SETTINGS_OFFSET..SETTINGS_OFFSET + SETTINGS_LEN)
            .ok_or(SettingsError::TooShort)?;
        if blob[MAGIC_OFFSET..MAGIC_OFFSET + 4] != MAGIC || b[0..4] != SETTINGS_MAGIC {
            return Err(SettingsError::NotAFerriteDriver);
        }
        let version = u16::from_be_bytes([b[4], b[5]]);
        if version != SETTINGS_VERSION {
            return Err(SettingsError::UnknownVersion(version));
        }
        let flags = u32::from_be_bytes([b[8], b[9], b[10], b[11]]);
        Ok(Settings {
            write_cache: flags & FLAG_WRITE_CACHE != 0,
            read_ahead: u16::from_be_bytes([b[12], b[13]]),
        })
    }

    /// Write these settings into `blob` (which must already hold a version-1 block).
    pub fn write(&self, blob: &mut [u8]) -> Result<(), SettingsError> {
        Settings::read(blob)?;
        let b = &mut blob[SETTINGS_OFFSET..SETTINGS_OFFSET + SETTINGS_LEN];
        let mut flags = u32::from_be_bytes([b[8], b[9], b[10], b[11]]) & !FLAG_WRITE_CACHE;
        if self.write_cache {
            flags |= FLAG_WRITE_CACHE;
        }
        b[8..12].copy_from_slice(&flags.to_be_bytes());
        b[12..14].copy_from_slice(&self.read_ahead.to_be_bytes());
        Ok(())
    }
}
