//! Catalog and extents keys and records (mac-facts §14.6–14.8) and the Mac's name ordering.

use super::{Be16, Be32};
use alloc::vec::Vec;
use core::cmp::Ordering;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The Mac Roman ordering table (mac-facts §14.7): names compare byte by byte after mapping.
#[rustfmt::skip]
pub const CHAR_ORDER: [u8; 256] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
    0x20, 0x22, 0x23, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2F, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36,
    0x37, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46,
    0x47, 0x48, 0x58, 0x5A, 0x5E, 0x60, 0x67, 0x69, 0x6B, 0x6D, 0x73, 0x75, 0x77, 0x79, 0x7B, 0x7F,
    0x8D, 0x8F, 0x91, 0x93, 0x96, 0x98, 0x9F, 0xA1, 0xA3, 0xA5, 0xA8, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE,
    0x54, 0x48, 0x58, 0x5A, 0x5E, 0x60, 0x67, 0x69, 0x6B, 0x6D, 0x73, 0x75, 0x77, 0x79, 0x7B, 0x7F,
    0x8D, 0x8F, 0x91, 0x93, 0x96, 0x98, 0x9F, 0xA1, 0xA3, 0xA5, 0xA8, 0xAF, 0xB0, 0xB1, 0xB2, 0xB3,
    0x4C, 0x50, 0x5C, 0x62, 0x7D, 0x81, 0x9A, 0x55, 0x4A, 0x56, 0x4C, 0x4E, 0x50, 0x5C, 0x62, 0x64,
    0x65, 0x66, 0x6F, 0x70, 0x71, 0x72, 0x7D, 0x89, 0x8A, 0x8B, 0x81, 0x83, 0x9C, 0x9D, 0x9E, 0x9A,
    0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0x95, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF, 0xC0, 0x52, 0x85,
    0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0x57, 0x8C, 0xCC, 0x52, 0x85,
    0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3, 0x26, 0x27, 0xD4, 0x20, 0x4A, 0x4E, 0x83, 0x87, 0x87,
    0xD5, 0xD6, 0x24, 0x25, 0x2D, 0x2E, 0xD7, 0xD8, 0xA7, 0xD9, 0xDA, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF,
    0xE0, 0xE1, 0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xEB, 0xEC, 0xED, 0xEE, 0xEF,
    0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF,
];

/// Compare two names as the Mac does (case-insensitive, diacritics ordered).
pub fn compare_names(a: &[u8], b: &[u8]) -> Ordering {
    let ma = a.iter().map(|&c| CHAR_ORDER[c as usize]);
    let mb = b.iter().map(|&c| CHAR_ORDER[c as usize]);
    ma.cmp(mb)
}

/// A catalog key: parent folder ID and name (empty for threads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatKey {
    pub parent: u32,
    pub name: Vec<u8>,
}

impl CatKey {
    pub fn new(parent: u32, name: &[u8]) -> Self {
        CatKey {
            parent,
            name: name.into(),
        }
    }
    /// Catalog order: parent ID, then name through [`CHAR_ORDER`].
    pub fn cmp_mac(&self, other: &CatKey) -> Ordering {
        self.parent
            .cmp(&other.parent)
            .then_with(|| compare_names(&self.name, &other.name))
    }
    /// Leaf key bytes with the key length byte, padded form (libhfs/makehfs): the length
    /// counts the pad byte, so the key plus its length byte is even.
    pub fn leaf_bytes(&self) -> Vec<u8> {
        let n = self.name.len();
        let key_len = 5 + ((n + 2) & !1);
        let mut v = Vec::with_capacity(key_len + 1);
        v.push(key_len as u8);
        v.push(0);
        v.extend_from_slice(&self.parent.to_be_bytes());
        v.push(n as u8);
        v.extend_from_slice(&self.name);
        v.resize(key_len + 1, 0);
        v
    }
    /// Index key bytes: fixed key length 0x25, zero-padded to 38 bytes.
    pub fn index_bytes(&self) -> Vec<u8> {
        let mut v = self.leaf_bytes();
        v[0] = 0x25;
        v.resize(38, 0);
        v
    }
    /// Parse a key at the start of a record; returns the key and the offset of the data (the
    /// first even offset at or after the key).
    pub fn parse(rec: &[u8]) -> Option<(CatKey, usize)> {
        let key_len = *rec.first()? as usize;
        if !(6..=0x25).contains(&key_len) || rec.len() < 1 + key_len {
            return None;
        }
        let parent = u32::from_be_bytes(rec[2..6].try_into().ok()?);
        let n = rec[6] as usize;
        if n > 31 || 6 + n > key_len {
            return None;
        }
        let name = rec[7..7 + n].to_vec();
        Some((CatKey { parent, name }, (1 + key_len + 1) & !1))
    }
}

/// Record type bytes.
pub mod rec_type {
    pub const FOLDER: u8 = 1;
    pub const FILE: u8 = 2;
    pub const FOLDER_THREAD: u8 = 3;
    pub const FILE_THREAD: u8 = 4;
}

/// One extent: first allocation block and count.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    FromBytes,
    IntoBytes,
    KnownLayout,
    Immutable,
    Unaligned,
)]
#[repr(C)]
pub struct Extent {
    pub start: Be16,
    pub count: Be16,
}

impl Extent {
    pub fn new(start: u16, count: u16) -> Self {
        Extent {
            start: start.into(),
            count: count.into(),
        }
    }
}

/// Three extents.
pub type ExtentRecord = [Extent; 3];

/// Finder info of a file (`FInfo`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    FromBytes,
    IntoBytes,
    KnownLayout,
    Immutable,
    Unaligned,
)]
#[repr(C)]
pub struct FInfo {
    pub file_type: [u8; 4],
    pub creator: [u8; 4],
    pub flags: Be16,
    pub location_v: Be16,
    pub location_h: Be16,
    pub folder: Be16,
}

/// Folder record (70 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct CatFolder {
    pub rec_type: u8,
    pub reserved: u8,
    pub flags: Be16,
    pub valence: Be16,
    pub dir_id: Be32,
    pub cr_date: Be32,
    pub md_date: Be32,
    pub bk_date: Be32,
    pub usr_info: [u8; 16],
    pub fndr_info: [u8; 16],
    pub reserved2: [u8; 16],
}

/// File record (102 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct CatFile {
    pub rec_type: u8,
    pub reserved: u8,
    pub flags: u8,
    pub fil_typ: u8,
    pub usr_wds: FInfo,
    pub fl_num: Be32,
    pub st_blk: Be16,
    pub lg_len: Be32,
    pub py_len: Be32,
    pub r_st_blk: Be16,
    pub r_lg_len: Be32,
    pub r_py_len: Be32,
    pub cr_date: Be32,
    pub md_date: Be32,
    pub bk_date: Be32,
    pub fndr_info: [u8; 16],
    pub clp_size: Be16,
    pub ext_rec: ExtentRecord,
    pub r_ext_rec: ExtentRecord,
    pub reserved2: Be32,
}

/// Thread record (46 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct CatThread {
    pub rec_type: u8,
    pub reserved: u8,
    pub reserved2: [u8; 8],
    pub parent: Be32,
    /// Str31.
    pub name: [u8; 32],
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<CatFolder>() == 70);
    assert!(offset_of!(CatFolder, valence) == 4);
    assert!(offset_of!(CatFolder, dir_id) == 6);
    assert!(offset_of!(CatFolder, cr_date) == 10);
    assert!(offset_of!(CatFolder, usr_info) == 22);
    assert!(offset_of!(CatFolder, fndr_info) == 38);
    assert!(size_of::<CatFile>() == 102);
    assert!(offset_of!(CatFile, usr_wds) == 4);
    assert!(offset_of!(CatFile, fl_num) == 20);
    assert!(offset_of!(CatFile, st_blk) == 24);
    assert!(offset_of!(CatFile, lg_len) == 26);
    assert!(offset_of!(CatFile, py_len) == 30);
    assert!(offset_of!(CatFile, r_st_blk) == 34);
    assert!(offset_of!(CatFile, r_lg_len) == 36);
    assert!(offset_of!(CatFile, r_py_len) == 40);
    assert!(offset_of!(CatFile, cr_date) == 44);
    assert!(offset_of!(CatFile, md_date) == 48);
    assert!(offset_of!(CatFile, bk_date) == 52);
    assert!(offset_of!(CatFile, fndr_info) == 56);
    assert!(offset_of!(CatFile, clp_size) == 72);
    assert!(offset_of!(CatFile, ext_rec) == 74);
    assert!(offset_of!(CatFile, r_ext_rec) == 86);
    assert!(size_of::<CatThread>() == 46);
    assert!(offset_of!(CatThread, parent) == 10);
    assert!(offset_of!(CatThread, name) == 14);
};

impl CatFolder {
    pub fn new(dir_id: u32, date: u32) -> Self {
        let mut f = <Self as zerocopy::FromZeros>::new_zeroed();
        f.rec_type = rec_type::FOLDER;
        f.dir_id.set(dir_id);
        f.cr_date.set(date);
        f.md_date.set(date);
        f
    }
}

impl CatFile {
    pub fn zeroed() -> Self {
        <Self as zerocopy::FromZeros>::new_zeroed()
    }
}

impl CatThread {
    pub fn new(kind: u8, parent: u32, name: &[u8]) -> Self {
        let mut t = <Self as zerocopy::FromZeros>::new_zeroed();
        t.rec_type = kind;
        t.parent.set(parent);
        let n = name.len().min(31);
        t.name[0] = n as u8;
        t.name[1..1 + n].copy_from_slice(&name[..n]);
        t
    }
    /// The name (bounded to 31 bytes).
    pub fn name(&self) -> &[u8] {
        let n = (self.name[0] as usize).min(31);
        &self.name[1..1 + n]
    }
    pub fn is_folder_thread(&self) -> bool {
        self.rec_type == rec_type::FOLDER_THREAD
    }
}

/// A parsed catalog leaf record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatData {
    Folder(CatFolder),
    File(CatFile),
    Thread(CatThread),
}

impl CatData {
    /// Parse record data (after the key).
    pub fn parse(data: &[u8]) -> Option<CatData> {
        match *data.first()? {
            rec_type::FOLDER => CatFolder::read_from_prefix(data)
                .ok()
                .map(|(r, _)| CatData::Folder(r)),
            rec_type::FILE => CatFile::read_from_prefix(data)
                .ok()
                .map(|(r, _)| CatData::File(r)),
            rec_type::FOLDER_THREAD | rec_type::FILE_THREAD => CatThread::read_from_prefix(data)
                .ok()
                .map(|(r, _)| CatData::Thread(r)),
            _ => None,
        }
    }
    pub fn bytes(&self) -> &[u8] {
        match self {
            CatData::Folder(r) => r.as_bytes(),
            CatData::File(r) => r.as_bytes(),
            CatData::Thread(r) => r.as_bytes(),
        }
    }
}

/// A whole leaf record: key bytes (with length byte and pad) then data.
pub fn leaf_record(key: &CatKey, data: &CatData) -> Vec<u8> {
    let mut v = key.leaf_bytes();
    v.extend_from_slice(data.bytes());
    v
}

/// An extents-overflow key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtKey {
    /// 0x00 data, 0xFF resource.
    pub fork: u8,
    pub file: u32,
    /// Fork-relative allocation block where this record starts.
    pub start: u16,
}

impl ExtKey {
    pub fn parse(rec: &[u8]) -> Option<(ExtKey, usize)> {
        if rec.len() < 8 || rec[0] != 7 {
            return None;
        }
        Some((
            ExtKey {
                fork: rec[1],
                file: u32::from_be_bytes(rec[2..6].try_into().ok()?),
                start: u16::from_be_bytes([rec[6], rec[7]]),
            },
            8,
        ))
    }
    pub fn bytes(&self) -> [u8; 8] {
        let f = self.file.to_be_bytes();
        let s = self.start.to_be_bytes();
        [7, self.fork, f[0], f[1], f[2], f[3], s[0], s[1]]
    }
    pub fn cmp_key(&self, o: &ExtKey) -> Ordering {
        (self.file, self.fork, self.start).cmp(&(o.file, o.fork, o.start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_order_is_case_insensitive() {
        assert_eq!(compare_names(b"ReadMe", b"README"), Ordering::Equal);
        assert_eq!(compare_names(b"a", b"B"), Ordering::Less);
        assert_eq!(compare_names(b"ab", b"a"), Ordering::Greater);
        assert_eq!(CHAR_ORDER[b'a' as usize], 0x48);
        assert_eq!(CHAR_ORDER[b'A' as usize], 0x48);
    }

    #[test]
    fn keys_match_the_libhfs_bytes_in_the_facts_doc() {
        let k = CatKey::new(1, b"Test Vol");
        let mut expect = alloc::vec![0x0F, 0, 0, 0, 0, 1, 8];
        expect.extend_from_slice(b"Test Vol");
        expect.push(0);
        assert_eq!(k.leaf_bytes(), expect);
        assert_eq!(CatKey::new(2, b"").leaf_bytes(), [7, 0, 0, 0, 0, 2, 0, 0]);
        let (back, data_at) = CatKey::parse(&expect).unwrap();
        assert_eq!(back, k);
        assert_eq!(data_at, 16);
        // Minimal key length form (6 + n) is read too.
        let minimal = [6 + 1, 0, 0, 0, 0, 9, 1, b'x', 0xAA];
        let (k2, at) = CatKey::parse(&minimal).unwrap();
        assert_eq!((k2.parent, k2.name.as_slice(), at), (9, &b"x"[..], 8));
        assert_eq!(CatKey::new(5, b"abc").index_bytes().len(), 38);
    }
}
