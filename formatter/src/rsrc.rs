//! Reading a classic Mac resource fork (`docs/mac-facts.md` §11): the System file's `'boot'`
//! and `'vers'` resources for `ferrite add --system`, Ferrite Setup's `CODE` resources. The
//! fork comes from outside (a MacBinary or AppleDouble file): every offset is checked.

use alloc::string::String;
use alloc::vec::Vec;

/// The (type, ID) of every resource in a resource fork (`docs/mac-facts.md` §11), checking that
/// the header, the map, the type and reference lists and every resource's data lie inside it.
pub fn resources(fork: &[u8]) -> Result<Vec<([u8; 4], i16)>, String> {
    Ok(resource_list(fork)?
        .into_iter()
        .map(|(t, id, _)| (t, id))
        .collect())
}

/// The data of resource (`kind`, `id`) in a resource fork (`None` when it has none), the
/// fork checked as [`resources`] does.
pub fn resource(fork: &[u8], kind: &[u8; 4], id: i16) -> Result<Option<Vec<u8>>, String> {
    Ok(resource_list(fork)?
        .into_iter()
        .find(|(t, i, _)| t == kind && *i == id)
        .map(|(_, _, r)| fork[r].to_vec()))
}

/// Every resource's (type, ID, byte range of its data in the fork).
#[allow(clippy::type_complexity)]
pub fn resource_list(fork: &[u8]) -> Result<Vec<([u8; 4], i16, core::ops::Range<usize>)>, String> {
    let be16 = |at: usize| -> Result<usize, String> {
        fork.get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]) as usize)
            .ok_or_else(|| alloc::format!("offset {at} is past its end ({} bytes)", fork.len()))
    };
    let be32 = |at: usize| -> Result<usize, String> {
        fork.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| alloc::format!("offset {at} is past its end ({} bytes)", fork.len()))
    };
    if fork.is_empty() {
        return Err("it is empty".into());
    }
    // Header (§1.1): data offset, map offset, data length, map length.
    let (data_at, map_at, data_len, map_len) = (be32(0)?, be32(4)?, be32(8)?, be32(12)?);
    if data_at.checked_add(data_len).is_none_or(|e| e > fork.len())
        || map_at.checked_add(map_len).is_none_or(|e| e > fork.len())
        || map_len < 30
    {
        return Err(alloc::format!(
            "its header puts the data at {data_at}+{data_len} and the map at {map_at}+{map_len} in {} bytes",
            fork.len()
        ));
    }
    let map_end = map_at + map_len;
    // Map (§1.3): type list offset at +24; the list starts with (number of types - 1).
    let types_at = map_at + be16(map_at + 24)?;
    let types = (be16(types_at)? + 1) & 0xFFFF;
    let mut out = Vec::new();
    for t in 0..types {
        let entry = types_at + 2 + 8 * t;
        if entry + 8 > map_end {
            return Err(alloc::format!(
                "type {t} of {types} lies past the end of the map"
            ));
        }
        let kind: [u8; 4] = fork[entry..entry + 4].try_into().expect("4 bytes");
        let count = be16(entry + 4)? + 1;
        let refs_at = types_at + be16(entry + 6)?;
        for r in 0..count {
            let at = refs_at + 12 * r;
            if at + 12 > map_end {
                return Err(alloc::format!(
                    "reference {r} of type '{}' lies past the end of the map",
                    alloc::string::String::from_utf8_lossy(&kind)
                ));
            }
            let id = be16(at)? as u16 as i16;
            let off = be32(at + 4)? & 0x00FF_FFFF;
            let len = if off + 4 <= data_len {
                be32(data_at + off)?
            } else {
                usize::MAX
            };
            if off + 4 > data_len || len > data_len - off - 4 {
                return Err(alloc::format!(
                    "the data of '{}' {id} lies past the end of the data area",
                    alloc::string::String::from_utf8_lossy(&kind)
                ));
            }
            let at = data_at + off + 4;
            // Every reference takes 12 bytes of the map: more than fit there means types
            // share reference lists, and a small fork could make this list huge.
            if out.len() >= map_len / 12 {
                return Err(alloc::format!(
                    "it lists more resources than its {map_len}-byte map can hold"
                ));
            }
            out.push((kind, id, at..at + len));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fork whose `types` type entries all point at one list of `refs` references.
    fn shared_lists(types: usize, refs: usize) -> alloc::vec::Vec<u8> {
        let data = [0u8, 0, 0, 0]; // one empty resource at offset 0
        let map_header = 28;
        let type_list = 2 + 8 * types;
        let map_len = map_header + type_list + 12 * refs;
        let mut f = alloc::vec![0u8; 16 + data.len() + map_len];
        let (data_at, map_at) = (16usize, 16 + data.len());
        f[0..4].copy_from_slice(&(data_at as u32).to_be_bytes());
        f[4..8].copy_from_slice(&(map_at as u32).to_be_bytes());
        f[8..12].copy_from_slice(&(data.len() as u32).to_be_bytes());
        f[12..16].copy_from_slice(&(map_len as u32).to_be_bytes());
        let m = map_at;
        f[m + 24..m + 26].copy_from_slice(&(map_header as u16).to_be_bytes());
        let t = m + map_header;
        f[t..t + 2].copy_from_slice(&((types - 1) as u16).to_be_bytes());
        for k in 0..types {
            let e = t + 2 + 8 * k;
            f[e..e + 4].copy_from_slice(b"TEST");
            f[e + 4..e + 6].copy_from_slice(&((refs - 1) as u16).to_be_bytes());
            f[e + 6..e + 8].copy_from_slice(&(type_list as u16).to_be_bytes());
        }
        for r in 0..refs {
            let at = t + type_list + 12 * r;
            f[at..at + 2].copy_from_slice(&(r as u16).to_be_bytes());
        }
        f
    }

    #[test]
    fn one_list_per_type_reads() {
        let l = resource_list(&shared_lists(1, 50)).unwrap();
        assert_eq!(l.len(), 50);
        assert_eq!(l[49].1, 49);
    }

    #[test]
    fn types_sharing_a_reference_list_are_refused_not_multiplied() {
        // 2,000 types × 1,000 references would be two million entries from a 28 KB fork.
        let e = resource_list(&shared_lists(2000, 1000)).unwrap_err();
        assert!(e.contains("more resources than"), "{e}");
    }
}
