//! MacBinary II (mac-facts §15.1): a 128-byte header, the data fork and the resource fork, each
//! padded to 128 bytes. Reading also accepts MacBinary III (same header plus 'mBIN').

use alloc::vec::Vec;
use core::fmt;

/// A Mac file outside a volume.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MacFile {
    /// Mac Roman name, 1..=63 bytes.
    pub name: Vec<u8>,
    pub file_type: [u8; 4],
    pub creator: [u8; 4],
    /// `fdFlags` (both bytes).
    pub finder_flags: u16,
    pub location_v: u16,
    pub location_h: u16,
    pub folder_id: u16,
    pub protected: bool,
    pub created: u32,
    pub modified: u32,
    pub data: Vec<u8>,
    pub rsrc: Vec<u8>,
}

/// Why bytes are not a MacBinary II file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacBinaryError {
    TooShort,
    /// Byte 0, 74 or 82 is not zero.
    NotMacBinary,
    BadNameLength(u8),
    /// The header CRC does not match (MacBinary I files have none and are refused).
    BadCrc {
        stored: u16,
        computed: u16,
    },
    /// The forks run past the end of the input.
    Truncated {
        need: u64,
        have: u64,
    },
    /// The file needs a newer reader (byte 123 > 129).
    TooNew(u8),
}

impl fmt::Display for MacBinaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MacBinaryError::TooShort => write!(f, "shorter than a MacBinary header"),
            MacBinaryError::NotMacBinary => {
                write!(f, "not MacBinary (bytes 0, 74 and 82 must be zero)")
            }
            MacBinaryError::BadNameLength(n) => write!(f, "not MacBinary (name length {n})"),
            MacBinaryError::BadCrc { stored, computed } => {
                write!(
                    f,
                    "MacBinary header CRC is ${stored:04X}, computed ${computed:04X}"
                )
            }
            MacBinaryError::Truncated { need, have } => write!(
                f,
                "MacBinary file truncated: {need} bytes needed, {have} present"
            ),
            MacBinaryError::TooNew(v) => write!(f, "MacBinary file needs reader version {v}"),
        }
    }
}

impl core::error::Error for MacBinaryError {}

/// CRC-16/XMODEM (polynomial 0x1021, initial 0, no reflection).
pub fn crc16_xmodem(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= (b as u16) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// True if `bytes` look like MacBinary II/III (structure and CRC).
pub fn is_macbinary(bytes: &[u8]) -> bool {
    parse(bytes).is_ok()
}

/// Parse a MacBinary II or III file.
pub fn parse(bytes: &[u8]) -> Result<MacFile, MacBinaryError> {
    if bytes.len() < 128 {
        return Err(MacBinaryError::TooShort);
    }
    let h = &bytes[..128];
    if h[0] != 0 || h[74] != 0 || h[82] != 0 {
        return Err(MacBinaryError::NotMacBinary);
    }
    let stored = be16(h, 124);
    let computed = crc16_xmodem(&h[..124]);
    if stored != computed {
        return Err(MacBinaryError::BadCrc { stored, computed });
    }
    if h[123] > 129 {
        return Err(MacBinaryError::TooNew(h[123]));
    }
    let n = h[1];
    if !(1..=63).contains(&n) {
        return Err(MacBinaryError::BadNameLength(n));
    }
    let dlen = be32(h, 83) as u64;
    let rlen = be32(h, 87) as u64;
    let secondary = be16(h, 120) as u64;
    let data_at = 128 + secondary.div_ceil(128) * 128;
    let rsrc_at = data_at + dlen.div_ceil(128) * 128;
    let need = rsrc_at + rlen;
    if need > bytes.len() as u64 {
        return Err(MacBinaryError::Truncated {
            need,
            have: bytes.len() as u64,
        });
    }
    Ok(MacFile {
        name: h[2..2 + n as usize].to_vec(),
        file_type: h[65..69].try_into().unwrap_or_default(),
        creator: h[69..73].try_into().unwrap_or_default(),
        finder_flags: (h[73] as u16) << 8 | h[101] as u16,
        location_v: be16(h, 75),
        location_h: be16(h, 77),
        folder_id: be16(h, 79),
        protected: h[81] & 1 != 0,
        created: be32(h, 91),
        modified: be32(h, 95),
        data: bytes[data_at as usize..(data_at + dlen) as usize].to_vec(),
        rsrc: bytes[rsrc_at as usize..(rsrc_at + rlen) as usize].to_vec(),
    })
}

/// Write a MacBinary II file. Names longer than 63 bytes are cut.
pub fn encode(f: &MacFile) -> Vec<u8> {
    let mut h = [0u8; 128];
    let n = f.name.len().min(63);
    h[1] = n as u8;
    h[2..2 + n].copy_from_slice(&f.name[..n]);
    h[65..69].copy_from_slice(&f.file_type);
    h[69..73].copy_from_slice(&f.creator);
    h[73] = (f.finder_flags >> 8) as u8;
    h[75..77].copy_from_slice(&f.location_v.to_be_bytes());
    h[77..79].copy_from_slice(&f.location_h.to_be_bytes());
    h[79..81].copy_from_slice(&f.folder_id.to_be_bytes());
    h[81] = f.protected as u8;
    h[83..87].copy_from_slice(&(f.data.len() as u32).to_be_bytes());
    h[87..91].copy_from_slice(&(f.rsrc.len() as u32).to_be_bytes());
    h[91..95].copy_from_slice(&f.created.to_be_bytes());
    h[95..99].copy_from_slice(&f.modified.to_be_bytes());
    h[101] = f.finder_flags as u8;
    h[122] = 129;
    h[123] = 129;
    let crc = crc16_xmodem(&h[..124]);
    h[124..126].copy_from_slice(&crc.to_be_bytes());
    let mut out = Vec::with_capacity(128 + f.data.len() + f.rsrc.len() + 256);
    out.extend_from_slice(&h);
    for fork in [&f.data, &f.rsrc] {
        out.extend_from_slice(fork);
        out.resize(out.len().div_ceil(128) * 128, 0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_check_value() {
        // CRC-16/XMODEM of "123456789" is 0x31C3.
        assert_eq!(crc16_xmodem(b"123456789"), 0x31C3);
    }

    #[test]
    fn round_trip_and_rejects() {
        let f = MacFile {
            name: b"Read Me".to_vec(),
            file_type: *b"TEXT",
            creator: *b"ttxt",
            finder_flags: 0x2100,
            created: 100,
            modified: 200,
            data: (0..300u32).map(|i| i as u8).collect(),
            rsrc: b"rsrc".to_vec(),
            ..MacFile::default()
        };
        let bytes = encode(&f);
        assert_eq!(bytes.len(), 128 + 384 + 128);
        assert_eq!(parse(&bytes).unwrap(), f);
        let mut bad = bytes.clone();
        bad[10] ^= 1;
        assert!(matches!(parse(&bad), Err(MacBinaryError::BadCrc { .. })));
        assert!(matches!(
            parse(&bytes[..514]),
            Err(MacBinaryError::Truncated { .. })
        ));
        assert_eq!(parse(&bytes[..100]), Err(MacBinaryError::TooShort));
        let mut bad = bytes;
        bad[0] = 1;
        assert_eq!(parse(&bad), Err(MacBinaryError::NotMacBinary));
    }
}
