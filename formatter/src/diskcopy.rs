//! DiskCopy 4.2 images (an 84-byte header, then the data, then the tags), as `ferrite
//! convert` reads them: only the structure is checked (the checksums are not).

/// Size of the header.
pub const HEADER_LEN: usize = 84;

/// The data area (the disk's sectors) of a DiskCopy 4.2 image; `None` for anything else: a
/// name longer than 63 bytes, a private word other than $0100, lengths that do not add up to
/// the file's, or a data length that is zero or not a whole number of 512-byte sectors.
pub fn data(b: &[u8]) -> Option<&[u8]> {
    if b.len() < HEADER_LEN {
        return None;
    }
    let be32 = |o: usize| u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as u64;
    let (data, tags) = (be32(64), be32(68));
    if b[82..84] != [0x01, 0x00]
        || b[0] > 63
        || HEADER_LEN as u64 + data + tags != b.len() as u64
        || data == 0
        || !data.is_multiple_of(512)
    {
        return None;
    }
    Some(&b[HEADER_LEN..HEADER_LEN + data as usize])
}
