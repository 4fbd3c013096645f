//! The resource fork container (mac-facts §11): a 256-byte header area, the data area (each
//! resource is a 4-byte length then its bytes) and the map (header copy, type list, reference
//! lists, name list). [`ResourceFork::to_bytes`] writes it; [`ResourceFork::parse`] reads it
//! back (checking every offset against the fork's length).

use std::collections::BTreeSet;
use std::fmt;

/// `resSysHeap`.
pub const RES_SYS_HEAP: u8 = 0x40;
/// `resPurgeable`.
pub const RES_PURGEABLE: u8 = 0x20;
/// `resLocked`.
pub const RES_LOCKED: u8 = 0x10;
/// `resProtected`.
pub const RES_PROTECTED: u8 = 0x08;
/// `resPreload`.
pub const RES_PRELOAD: u8 = 0x04;
/// `resChanged`: never set on disk.
pub const RES_CHANGED: u8 = 0x02;

/// Offset of the data area from the start of the fork: every writer examined uses 0x100.
pub const DATA_OFFSET: u32 = 0x100;
/// Length of the map header (16 header copy + 4 next map + 2 refnum + 2 attributes + 2 + 2).
pub const MAP_HEADER_LEN: u32 = 28;
/// Write a copy of the fork header into the map's first 16 bytes? Per mac-facts §11.3 zeros are
/// accepted (Retro68 writes zeros), a copy is harmless. We write zeros.
pub const MAP_HEADER_COPY: bool = false;

/// A four-character resource type, e.g. `*b"CODE"`.
pub type ResType = [u8; 4];

/// One resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub rtype: ResType,
    pub id: i16,
    /// Mac Roman name (at most 255 bytes), if any.
    pub name: Option<Vec<u8>>,
    /// Attribute byte (`RES_*`); `resChanged` is refused.
    pub attributes: u8,
    pub data: Vec<u8>,
}

impl Resource {
    /// An unnamed resource with no attributes.
    pub fn new(rtype: ResType, id: i16, data: Vec<u8>) -> Resource {
        Resource {
            rtype,
            id,
            name: None,
            attributes: 0,
            data,
        }
    }
}

/// Why a fork cannot be written or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForkError {
    Duplicate {
        rtype: ResType,
        id: i16,
    },
    NameTooLong {
        rtype: ResType,
        id: i16,
    },
    BadAttributes {
        rtype: ResType,
        id: i16,
        attributes: u8,
    },
    /// The data area would pass 16 MiB (24-bit offsets).
    DataTooLarge(u64),
    /// The map would pass 64 KiB (16-bit offsets).
    MapTooLarge(u64),
    /// Reading: the bytes are not a well-formed fork.
    Malformed(String),
}

impl fmt::Display for ForkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ForkError::Duplicate { rtype, id } => {
                write!(f, "two resources '{}' {id}", show_type(rtype))
            }
            ForkError::NameTooLong { rtype, id } => {
                write!(
                    f,
                    "name of '{}' {id} is longer than 255 bytes",
                    show_type(rtype)
                )
            }
            ForkError::BadAttributes {
                rtype,
                id,
                attributes,
            } => write!(
                f,
                "'{}' {id}: attributes {attributes:#04x} (resChanged, resSysRef and bit 0 are not for files we write)",
                show_type(rtype)
            ),
            ForkError::DataTooLarge(n) => {
                write!(f, "resource data area of {n} bytes passes 16 MiB")
            }
            ForkError::MapTooLarge(n) => write!(f, "resource map of {n} bytes passes 64 KiB"),
            ForkError::Malformed(why) => write!(f, "malformed resource fork: {why}"),
        }
    }
}

impl std::error::Error for ForkError {}

/// A type code as text (Mac Roman bytes shown as Latin-1; `\xNN` for control bytes).
pub fn show_type(t: &ResType) -> String {
    t.iter()
        .map(|&b| {
            if (0x20..0x7F).contains(&b) {
                (b as char).to_string()
            } else {
                format!("\\x{b:02X}")
            }
        })
        .collect()
}

/// A set of resources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceFork {
    pub resources: Vec<Resource>,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl ResourceFork {
    /// An empty fork.
    pub fn new() -> ResourceFork {
        ResourceFork::default()
    }

    /// Add a resource (duplicates are reported by [`ResourceFork::to_bytes`]).
    pub fn add(&mut self, r: Resource) {
        self.resources.push(r);
    }

    /// Look a resource up.
    pub fn get(&self, rtype: &ResType, id: i16) -> Option<&Resource> {
        self.resources
            .iter()
            .find(|r| &r.rtype == rtype && r.id == id)
    }

    /// Types in map order (sorted).
    pub fn types(&self) -> Vec<ResType> {
        self.resources
            .iter()
            .map(|r| r.rtype)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// Write the fork: data at 0x100, the map right after the data, types and IDs sorted
    /// (mac-facts §11.3: sorting costs nothing), names in the same order.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ForkError> {
        let mut sorted: Vec<&Resource> = self.resources.iter().collect();
        sorted.sort_by_key(|r| (r.rtype, r.id));
        for w in sorted.windows(2) {
            if w[0].rtype == w[1].rtype && w[0].id == w[1].id {
                return Err(ForkError::Duplicate {
                    rtype: w[0].rtype,
                    id: w[0].id,
                });
            }
        }
        for r in &sorted {
            if r.name.as_ref().is_some_and(|n| n.len() > 255) {
                return Err(ForkError::NameTooLong {
                    rtype: r.rtype,
                    id: r.id,
                });
            }
            if r.attributes
                & !(RES_SYS_HEAP | RES_PURGEABLE | RES_LOCKED | RES_PROTECTED | RES_PRELOAD)
                != 0
            {
                return Err(ForkError::BadAttributes {
                    rtype: r.rtype,
                    id: r.id,
                    attributes: r.attributes,
                });
            }
        }
        // Data area.
        let mut data = Vec::new();
        let mut data_offsets = Vec::with_capacity(sorted.len());
        for r in &sorted {
            data_offsets.push(data.len() as u64);
            data.extend_from_slice(&(r.data.len() as u32).to_be_bytes());
            data.extend_from_slice(&r.data);
        }
        if let Some(&last) = data_offsets.last()
            && last > 0x00FF_FFFF
        {
            return Err(ForkError::DataTooLarge(data.len() as u64));
        }
        if data.len() as u64 > u32::MAX as u64 - 0x1_0000 {
            return Err(ForkError::DataTooLarge(data.len() as u64));
        }
        // Map.
        let types = {
            let mut t: Vec<ResType> = sorted.iter().map(|r| r.rtype).collect();
            t.dedup();
            t
        };
        let type_list_len = 2 + 8 * types.len() as u64;
        let ref_lists_len = 12 * sorted.len() as u64;
        let mut names = Vec::new();
        let mut name_offsets = Vec::with_capacity(sorted.len());
        for r in &sorted {
            name_offsets.push(match &r.name {
                Some(n) => {
                    let o = names.len() as u64;
                    names.push(n.len() as u8);
                    names.extend_from_slice(n);
                    Some(o)
                }
                None => None,
            });
        }
        let name_list_offset = MAP_HEADER_LEN as u64 + type_list_len + ref_lists_len;
        let map_len = name_list_offset + names.len() as u64;
        if map_len > 0xFFFF || name_offsets.iter().flatten().any(|&o| o >= 0xFFFF) {
            return Err(ForkError::MapTooLarge(map_len));
        }
        let map_offset = DATA_OFFSET as u64 + data.len() as u64;
        let mut header = [0u8; 16];
        header[0..4].copy_from_slice(&DATA_OFFSET.to_be_bytes());
        header[4..8].copy_from_slice(&(map_offset as u32).to_be_bytes());
        header[8..12].copy_from_slice(&(data.len() as u32).to_be_bytes());
        header[12..16].copy_from_slice(&(map_len as u32).to_be_bytes());

        let mut map = Vec::with_capacity(map_len as usize);
        if MAP_HEADER_COPY {
            map.extend_from_slice(&header);
        } else {
            map.extend_from_slice(&[0; 16]);
        }
        map.extend_from_slice(&[0; 4]); // handle to next map
        map.extend_from_slice(&[0; 2]); // file reference number
        map.extend_from_slice(&[0; 2]); // file attributes
        map.extend_from_slice(&(MAP_HEADER_LEN as u16).to_be_bytes());
        map.extend_from_slice(&(name_list_offset as u16).to_be_bytes());
        // Type list: count - 1 (0xFFFF when empty), entries.
        map.extend_from_slice(&(types.len() as u16).wrapping_sub(1).to_be_bytes());
        let mut ref_offset = type_list_len; // from the type list's start
        for t in &types {
            let n = sorted.iter().filter(|r| &r.rtype == t).count() as u64;
            map.extend_from_slice(t);
            map.extend_from_slice(&((n - 1) as u16).to_be_bytes());
            map.extend_from_slice(&(ref_offset as u16).to_be_bytes());
            ref_offset += 12 * n;
        }
        for (i, r) in sorted.iter().enumerate() {
            map.extend_from_slice(&r.id.to_be_bytes());
            map.extend_from_slice(&name_offsets[i].map_or(0xFFFF, |o| o as u16).to_be_bytes());
            map.push(r.attributes);
            map.extend_from_slice(&(data_offsets[i] as u32).to_be_bytes()[1..]);
            map.extend_from_slice(&[0; 4]);
        }
        map.extend_from_slice(&names);
        debug_assert_eq!(map.len() as u64, map_len);

        let mut out = Vec::with_capacity(map_offset as usize + map.len());
        out.extend_from_slice(&header);
        out.resize(DATA_OFFSET as usize, 0);
        out.extend_from_slice(&data);
        out.extend_from_slice(&map);
        Ok(out)
    }

    /// Read a fork. Every offset is checked against the fork's length; resources are returned
    /// in map order.
    pub fn parse(bytes: &[u8]) -> Result<ResourceFork, ForkError> {
        let bad = |why: String| ForkError::Malformed(why);
        if bytes.len() < 16 {
            return Err(bad(format!(
                "{} bytes is shorter than the 16-byte header",
                bytes.len()
            )));
        }
        let data_off = be32(bytes, 0) as usize;
        let map_off = be32(bytes, 4) as usize;
        let data_len = be32(bytes, 8) as usize;
        let map_len = be32(bytes, 12) as usize;
        if data_off
            .checked_add(data_len)
            .is_none_or(|e| e > bytes.len())
        {
            return Err(bad(format!(
                "data area {data_off:#x}+{data_len:#x} passes the end ({:#x})",
                bytes.len()
            )));
        }
        if map_off.checked_add(map_len).is_none_or(|e| e > bytes.len())
            || map_len < MAP_HEADER_LEN as usize + 2
        {
            return Err(bad(format!(
                "map {map_off:#x}+{map_len:#x} passes the end or is too short"
            )));
        }
        let map = &bytes[map_off..map_off + map_len];
        let data = &bytes[data_off..data_off + data_len];
        let tl = be16(map, 24) as usize;
        let nl = be16(map, 26) as usize;
        if tl + 2 > map.len() || nl > map.len() {
            return Err(bad(format!(
                "type list {tl:#x} or name list {nl:#x} outside the map"
            )));
        }
        let ntypes = be16(map, tl).wrapping_add(1) as usize;
        let mut resources = Vec::new();
        for t in 0..ntypes {
            let e = tl + 2 + 8 * t;
            if e + 8 > map.len() {
                return Err(bad(format!("type entry {t} outside the map")));
            }
            let rtype: ResType = map[e..e + 4].try_into().unwrap();
            let count = be16(map, e + 4) as usize + 1;
            let refs = tl + be16(map, e + 6) as usize;
            for k in 0..count {
                let r = refs + 12 * k;
                if r + 12 > map.len() {
                    return Err(bad(format!(
                        "reference {k} of '{}' outside the map",
                        show_type(&rtype)
                    )));
                }
                let id = be16(map, r) as i16;
                let name_off = be16(map, r + 2);
                let attributes = map[r + 4];
                let doff = (be32(map, r + 4) & 0x00FF_FFFF) as usize;
                if doff + 4 > data.len() {
                    return Err(bad(format!(
                        "'{}' {id}: data offset {doff:#x} outside the data area",
                        show_type(&rtype)
                    )));
                }
                let len = be32(data, doff) as usize;
                if doff + 4 + len > data.len() {
                    return Err(bad(format!(
                        "'{}' {id}: {len} bytes pass the end of the data area",
                        show_type(&rtype)
                    )));
                }
                let name = if name_off == 0xFFFF {
                    None
                } else {
                    let at = nl + name_off as usize;
                    let n = *map.get(at).ok_or_else(|| {
                        bad(format!(
                            "'{}' {id}: name outside the map",
                            show_type(&rtype)
                        ))
                    })? as usize;
                    if at + 1 + n > map.len() {
                        return Err(bad(format!(
                            "'{}' {id}: name passes the end of the map",
                            show_type(&rtype)
                        )));
                    }
                    Some(map[at + 1..at + 1 + n].to_vec())
                };
                // Every reference takes 12 bytes of the map: more than fit there means types
                // share reference lists (the formatter's reader refuses the same).
                if resources.len() >= map.len() / 12 {
                    return Err(bad(format!(
                        "more resources than the {}-byte map can hold",
                        map.len()
                    )));
                }
                resources.push(Resource {
                    rtype,
                    id,
                    name,
                    attributes,
                    data: data[doff + 4..doff + 4 + len].to_vec(),
                });
            }
        }
        Ok(ResourceFork { resources })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_fork_layout() {
        let b = ResourceFork::new().to_bytes().unwrap();
        assert_eq!(b.len(), 0x100 + 30);
        assert_eq!(
            &b[0..16],
            &[0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 30]
        );
        let map = &b[0x100..];
        assert_eq!(&map[24..30], &[0, 28, 0, 30, 0xFF, 0xFF]);
        assert_eq!(ResourceFork::parse(&b).unwrap(), ResourceFork::new());
    }

    #[test]
    fn two_resources_byte_for_byte() {
        let mut f = ResourceFork::new();
        f.add(Resource {
            rtype: *b"STR ",
            id: 128,
            name: Some(b"Hi".to_vec()),
            attributes: RES_PURGEABLE,
            data: b"\x02ok".to_vec(),
        });
        f.add(Resource::new(*b"CODE", 0, vec![0xAA]));
        let b = f.to_bytes().unwrap();
        // Data: CODE 0 first (sorted), then STR 128.
        assert_eq!(
            &b[0x100..0x10C],
            &[0, 0, 0, 1, 0xAA, 0, 0, 0, 3, 2, b'o', b'k']
        );
        let map = &b[0x10C..];
        assert_eq!(&b[4..8], &0x10Cu32.to_be_bytes());
        assert_eq!(&b[8..12], &12u32.to_be_bytes());
        // Type list at 28: count-1 = 1; CODE: 0 more, refs at 18; 'STR ': refs at 30.
        assert_eq!(
            &map[28..46],
            &[
                0, 1, b'C', b'O', b'D', b'E', 0, 0, 0, 18, b'S', b'T', b'R', b' ', 0, 0, 0, 30
            ]
        );
        // References: CODE 0 no name, data 0; STR 128 name at 0, purgeable, data at 5.
        assert_eq!(&map[46..58], &[0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&map[58..70], &[0, 128, 0, 0, 0x20, 0, 0, 5, 0, 0, 0, 0]);
        assert_eq!(&map[26..28], &70u16.to_be_bytes());
        assert_eq!(&map[70..], b"\x02Hi");
        assert_eq!(&b[12..16], &(map.len() as u32).to_be_bytes());
        let back = ResourceFork::parse(&b).unwrap();
        assert_eq!(back.resources.len(), 2);
        assert_eq!(back.get(b"STR ", 128), f.get(b"STR ", 128));
        assert_eq!(back.get(b"CODE", 0), f.get(b"CODE", 0));
    }

    #[test]
    fn refuses_duplicates_and_bad_input() {
        let mut f = ResourceFork::new();
        f.add(Resource::new(*b"STR#", 1, vec![]));
        f.add(Resource::new(*b"STR#", 1, vec![]));
        assert!(matches!(f.to_bytes(), Err(ForkError::Duplicate { .. })));
        let mut f = ResourceFork::new();
        f.add(Resource {
            attributes: RES_CHANGED,
            ..Resource::new(*b"STR#", 1, vec![])
        });
        assert!(matches!(f.to_bytes(), Err(ForkError::BadAttributes { .. })));
        let mut f = ResourceFork::new();
        f.add(Resource::new(*b"DATA", 1, vec![1, 2, 3]));
        let b = f.to_bytes().unwrap();
        for cut in [0, 10, 0x100, b.len() - 1] {
            assert!(ResourceFork::parse(&b[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = b.clone();
        bad[0x100 + 3] = 200; // resource length past the data area
        assert!(ResourceFork::parse(&bad).is_err());
    }
}
