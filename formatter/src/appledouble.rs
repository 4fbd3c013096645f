//! AppleSingle / AppleDouble version 2 (mac-facts §15.2): reading the entries `add` needs.

use alloc::vec::Vec;
use core::fmt;

pub const APPLE_SINGLE_MAGIC: u32 = 0x0005_1600;
pub const APPLE_DOUBLE_MAGIC: u32 = 0x0005_1607;

/// Entry IDs.
pub mod entry {
    pub const DATA_FORK: u32 = 1;
    pub const RESOURCE_FORK: u32 = 2;
    pub const REAL_NAME: u32 = 3;
    pub const FILE_DATES: u32 = 8;
    pub const FINDER_INFO: u32 = 9;
}

/// What an AppleSingle/AppleDouble file holds (the data fork only for AppleSingle; with
/// AppleDouble it is the companion plain file).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AppleDouble {
    pub single: bool,
    pub data: Option<Vec<u8>>,
    pub rsrc: Vec<u8>,
    pub real_name: Option<Vec<u8>>,
    /// FInfo (16) + FXInfo (16).
    pub finder_info: Option<[u8; 32]>,
}

impl AppleDouble {
    pub fn file_type(&self) -> Option<[u8; 4]> {
        self.finder_info.map(|f| [f[0], f[1], f[2], f[3]])
    }
    pub fn creator(&self) -> Option<[u8; 4]> {
        self.finder_info.map(|f| [f[4], f[5], f[6], f[7]])
    }
    pub fn finder_flags(&self) -> Option<u16> {
        self.finder_info.map(|f| u16::from_be_bytes([f[8], f[9]]))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppleDoubleError {
    BadMagic(u32),
    BadVersion(u32),
    /// An entry lies outside the file.
    EntryOutOfRange {
        id: u32,
    },
    TooShort,
}

impl fmt::Display for AppleDoubleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppleDoubleError::BadMagic(m) => {
                write!(f, "not AppleSingle/AppleDouble (magic ${m:08X})")
            }
            AppleDoubleError::BadVersion(v) => {
                write!(f, "unsupported AppleSingle/AppleDouble version ${v:08X}")
            }
            AppleDoubleError::EntryOutOfRange { id } => {
                write!(f, "entry {id} lies outside the file")
            }
            AppleDoubleError::TooShort => {
                write!(f, "shorter than an AppleSingle/AppleDouble header")
            }
        }
    }
}

impl core::error::Error for AppleDoubleError {}

/// Parse an AppleSingle or AppleDouble (version 2) file.
pub fn parse(bytes: &[u8]) -> Result<AppleDouble, AppleDoubleError> {
    if bytes.len() < 26 {
        return Err(AppleDoubleError::TooShort);
    }
    let be32 =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let magic = be32(0);
    let single = match magic {
        APPLE_SINGLE_MAGIC => true,
        APPLE_DOUBLE_MAGIC => false,
        m => return Err(AppleDoubleError::BadMagic(m)),
    };
    if be32(4) != 0x0002_0000 {
        return Err(AppleDoubleError::BadVersion(be32(4)));
    }
    let n = u16::from_be_bytes([bytes[24], bytes[25]]) as usize;
    if bytes.len() < 26 + 12 * n {
        return Err(AppleDoubleError::TooShort);
    }
    let mut out = AppleDouble {
        single,
        ..AppleDouble::default()
    };
    for i in 0..n {
        let at = 26 + 12 * i;
        let (id, off, len) = (be32(at), be32(at + 4) as usize, be32(at + 8) as usize);
        let body = off
            .checked_add(len)
            .and_then(|end| bytes.get(off..end))
            .ok_or(AppleDoubleError::EntryOutOfRange { id })?;
        match id {
            entry::DATA_FORK => out.data = Some(body.to_vec()),
            entry::RESOURCE_FORK => out.rsrc = body.to_vec(),
            entry::REAL_NAME => out.real_name = Some(body.to_vec()),
            entry::FINDER_INFO => {
                let mut fi = [0u8; 32];
                let k = body.len().min(32);
                fi[..k].copy_from_slice(&body[..k]);
                out.finder_info = Some(fi);
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(magic: u32) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&magic.to_be_bytes());
        b.extend_from_slice(&0x0002_0000u32.to_be_bytes());
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&2u16.to_be_bytes());
        // entry 9 at 50 (32 bytes), entry 2 at 82 (5 bytes)
        for (id, off, len) in [(9u32, 50u32, 32u32), (2, 82, 5)] {
            b.extend_from_slice(&id.to_be_bytes());
            b.extend_from_slice(&off.to_be_bytes());
            b.extend_from_slice(&len.to_be_bytes());
        }
        let mut fi = [0u8; 32];
        fi[..8].copy_from_slice(b"APPLFeRR");
        fi[8] = 0x21;
        b.extend_from_slice(&fi);
        b.extend_from_slice(b"hello");
        b
    }

    #[test]
    fn reads_finder_info_and_resource_fork() {
        let ad = parse(&sample(APPLE_DOUBLE_MAGIC)).unwrap();
        assert!(!ad.single);
        assert_eq!(ad.file_type(), Some(*b"APPL"));
        assert_eq!(ad.creator(), Some(*b"FeRR"));
        assert_eq!(ad.finder_flags(), Some(0x2100));
        assert_eq!(ad.rsrc, b"hello");
        let mut bad = sample(APPLE_DOUBLE_MAGIC);
        bad.truncate(85);
        assert_eq!(
            parse(&bad),
            Err(AppleDoubleError::EntryOutOfRange { id: 2 })
        );
        assert_eq!(
            parse(&sample(0x1234)),
            Err(AppleDoubleError::BadMagic(0x1234))
        );
        assert!(parse(&sample(APPLE_SINGLE_MAGIC)).unwrap().single);
    }
}
