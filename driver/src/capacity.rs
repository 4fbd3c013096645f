//! READ CAPACITY answers → the number of blocks the driver serves.
//!
//! READ CAPACITY(10) reports the last LBA in 32 bits; a disk of 2³² blocks (2 TB of 512-byte
//! blocks) or more reports `$FFFFFFFF` there and the real size only through READ
//! CAPACITY(16) (SBC-2). The driver addresses the disk with READ(10)/WRITE(10) and the Apple
//! partition map describes partitions in 32-bit blocks, so it serves the first
//! 2³² − 1 blocks of a larger disk (every partition the map can place below that end works;
//! what lies beyond is never addressed). See `docs/driver.md`, "Large disks".

/// Bytes of READ CAPACITY(16) data the driver asks for.
pub const RC16_LEN: u32 = 32;

/// What READ CAPACITY(10) said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capacity10 {
    /// The disk's size in blocks and its block length.
    Blocks { blocks: u32, block_len: u32 },
    /// The last LBA saturated: ask READ CAPACITY(16).
    AskLonger { block_len: u32 },
}

/// Read READ CAPACITY(10) data (its first 8 bytes) where the driver received it, in its
/// block buffer.
pub fn from_rc10(d: &[u8; 512]) -> Capacity10 {
    let last = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
    let block_len = u32::from_be_bytes([d[4], d[5], d[6], d[7]]);
    if last == u32::MAX {
        Capacity10::AskLonger { block_len }
    } else {
        Capacity10::Blocks {
            blocks: last + 1,
            block_len,
        }
    }
}

/// Blocks served and block length from READ CAPACITY(16) data (its first 12 bytes, in the
/// driver's block buffer); a disk larger than 32-bit block numbers reach is served up to
/// block 2³² − 2.
pub fn from_rc16(d: &[u8; 512]) -> (u32, u32) {
    // 32-bit halves: no 64-bit arithmetic on the 68000.
    let high = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
    let low = u32::from_be_bytes([d[4], d[5], d[6], d[7]]);
    let block_len = u32::from_be_bytes([d[8], d[9], d[10], d[11]]);
    let blocks = if high != 0 {
        u32::MAX
    } else {
        low.saturating_add(1)
    };
    (blocks, block_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(head: &[u8]) -> [u8; 512] {
        let mut b = [0u8; 512];
        b[..head.len()].copy_from_slice(head);
        b
    }

    #[test]
    fn a_saturated_rc10_asks_for_rc16() {
        let d = buf(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 2, 0]);
        assert_eq!(from_rc10(&d), Capacity10::AskLonger { block_len: 512 });
        let d = buf(&[0xFF, 0xFF, 0xFF, 0xFE, 0, 0, 2, 0]);
        assert_eq!(
            from_rc10(&d),
            Capacity10::Blocks {
                blocks: u32::MAX,
                block_len: 512
            }
        );
        let d = buf(&[0, 0, 0x0F, 0xFF, 0, 0, 2, 0]);
        assert_eq!(
            from_rc10(&d),
            Capacity10::Blocks {
                blocks: 4096,
                block_len: 512
            }
        );
    }

    #[test]
    fn rc16_beyond_32_bits_is_served_up_to_what_fits() {
        let mut d = [0u8; 512];
        d[3] = 1; // last LBA 2^32: one block past what 32 bits reach
        d[10] = 2;
        assert_eq!(from_rc16(&d), (u32::MAX, 512));
        let mut d = [0u8; 512];
        d[4..8].copy_from_slice(&0xFFFF_FFFFu32.to_be_bytes()); // last = 2^32 − 1
        d[10] = 2;
        assert_eq!(from_rc16(&d), (u32::MAX, 512));
        let mut d = [0u8; 512];
        d[4..8].copy_from_slice(&0x1000u32.to_be_bytes());
        d[10] = 2;
        assert_eq!(from_rc16(&d), (0x1001, 512));
        assert_eq!(from_rc16(&buf(&[0xFF; 12])).0, u32::MAX);
    }
}
