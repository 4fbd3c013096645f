//! Ferrite Setup, the classic Mac application `ferrite init` puts in the root folder of every
//! HFS volume it makes: the one built into `ferrite` (`cargo xtask build` writes it as
//! MacBinary II to `target/m68k/FerriteSetup.bin`, `build.rs` embeds it) or `--setup-app FILE`.

use super::add::Prepared;
use anyhow::{Context, Result, anyhow, bail};
use std::path::Path;

/// Ferrite Setup as MacBinary II, built into this binary (empty when it was built before
/// `cargo xtask build`).
pub static EMBEDDED_SETUP_APP: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/FerriteSetup.bin"));

/// The name the application gets on every volume, whatever its MacBinary header says.
pub const SETUP_APP_NAME: &[u8] = b"Ferrite Setup";

/// `fdFlags` hasBeenInited (mac-app-hfs-facts §2.5). Cleared on the copy so that the Finder
/// registers the application's bundle (its icon) on the new volume; the facts doc marks that
/// behaviour UNVERIFIED but widely relied on.
const HAS_BEEN_INITED: u16 = 0x0100;

/// The resources an application cannot start without (mac-app-hfs-facts §2.6).
const REQUIRED: [(&[u8; 4], i16); 2] = [(b"CODE", 0), (b"CODE", 1)];

/// Ferrite Setup to install: `None` with `--no-setup-app`, else `--setup-app FILE` or the
/// embedded one, checked (MacBinary CRC, type 'APPL', a resource fork holding `CODE` 0 and 1)
/// and renamed "Ferrite Setup"; `now` dates it when its MacBinary header has no dates.
/// Nothing is written anywhere.
pub fn setup_app(file: Option<&Path>, skip: bool, now: u32) -> Result<Option<Prepared>> {
    if skip {
        return Ok(None);
    }
    let (bytes, what, source, fix) = match file {
        Some(p) => (
            std::fs::read(p)
                .with_context(|| format!("cannot read the Ferrite Setup file {}", p.display()))?,
            format!("--setup-app {}", p.display()),
            p,
            "give the MacBinary II file of Ferrite Setup (`cargo xtask build` writes \
             target/m68k/FerriteSetup.bin), or --no-setup-app",
        ),
        None if EMBEDDED_SETUP_APP.is_empty() => bail!(
            "this ferrite was built without Ferrite Setup: run `cargo xtask build` first (it writes \
             target/m68k/FerriteSetup.bin), then rebuild ferrite; or pass --setup-app FILE, or \
             --no-setup-app to leave it off the volumes"
        ),
        None => (
            EMBEDDED_SETUP_APP.to_vec(),
            "the Ferrite Setup built into ferrite".to_string(),
            Path::new("(built into ferrite)"),
            "run `cargo xtask build` and rebuild ferrite, or pass --setup-app FILE or --no-setup-app",
        ),
    };
    let mut p =
        Prepared::from_macbinary(source, &bytes, now).map_err(|e| anyhow!("{what}: {e}; {fix}"))?;
    if p.file_type != *b"APPL" {
        bail!(
            "{what}: a file of type '{}', not an application ('APPL'); {fix}",
            ferrite_formatter::macroman::lossy(&p.file_type)
        );
    }
    let have = resources(&p.rsrc)
        .map_err(|e| anyhow!("{what}: the resource fork is not valid ({e}); {fix}"))?;
    for (t, id) in REQUIRED {
        if !have.contains(&(*t, id)) {
            bail!(
                "{what}: the resource fork has no '{}' {id}, which every application needs; {fix}",
                String::from_utf8_lossy(t)
            );
        }
    }
    p.name = SETUP_APP_NAME.to_vec();
    p.finder_flags &= !HAS_BEEN_INITED;
    Ok(Some(p))
}

/// The (type, ID) of every resource in a resource fork (mac-app-hfs-facts §1), checking that
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
fn resource_list(fork: &[u8]) -> Result<Vec<([u8; 4], i16, std::ops::Range<usize>)>, String> {
    let be16 = |at: usize| -> Result<usize, String> {
        fork.get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]) as usize)
            .ok_or_else(|| format!("offset {at} is past its end ({} bytes)", fork.len()))
    };
    let be32 = |at: usize| -> Result<usize, String> {
        fork.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| format!("offset {at} is past its end ({} bytes)", fork.len()))
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
        return Err(format!(
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
            return Err(format!("type {t} of {types} lies past the end of the map"));
        }
        let kind: [u8; 4] = fork[entry..entry + 4].try_into().expect("4 bytes");
        let count = be16(entry + 4)? + 1;
        let refs_at = types_at + be16(entry + 6)?;
        for r in 0..count {
            let at = refs_at + 12 * r;
            if at + 12 > map_end {
                return Err(format!(
                    "reference {r} of type '{}' lies past the end of the map",
                    String::from_utf8_lossy(&kind)
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
                return Err(format!(
                    "the data of '{}' {id} lies past the end of the data area",
                    String::from_utf8_lossy(&kind)
                ));
            }
            let at = data_at + off + 4;
            out.push((kind, id, at..at + len));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resource fork holding `res` (type, ID, data), laid out as in the facts doc.
    pub fn fork(res: &[(&[u8; 4], i16, &[u8])]) -> Vec<u8> {
        let mut types: Vec<&[u8; 4]> = res.iter().map(|r| r.0).collect();
        types.dedup();
        let mut data = Vec::new();
        let mut offsets = Vec::new();
        for (_, _, d) in res {
            offsets.push(data.len() as u32);
            data.extend_from_slice(&(d.len() as u32).to_be_bytes());
            data.extend_from_slice(d);
        }
        let mut map = vec![0u8; 28];
        map[24..26].copy_from_slice(&28u16.to_be_bytes());
        let list_len = 2 + 8 * types.len();
        map.extend_from_slice(&((types.len() as u16).wrapping_sub(1)).to_be_bytes());
        let mut refs = Vec::new();
        for t in &types {
            let mine: Vec<usize> = (0..res.len()).filter(|&i| res[i].0 == *t).collect();
            map.extend_from_slice(*t);
            map.extend_from_slice(&(mine.len() as u16 - 1).to_be_bytes());
            map.extend_from_slice(&((list_len + refs.len()) as u16).to_be_bytes());
            for i in mine {
                refs.extend_from_slice(&res[i].1.to_be_bytes());
                refs.extend_from_slice(&0xFFFFu16.to_be_bytes());
                refs.extend_from_slice(&offsets[i].to_be_bytes());
                refs.extend_from_slice(&[0; 4]);
            }
        }
        map.extend_from_slice(&refs);
        let names_at = map.len() as u16;
        map[26..28].copy_from_slice(&names_at.to_be_bytes());
        let mut f = vec![0u8; 256];
        f[0..4].copy_from_slice(&256u32.to_be_bytes());
        f[4..8].copy_from_slice(&(256 + data.len() as u32).to_be_bytes());
        f[8..12].copy_from_slice(&(data.len() as u32).to_be_bytes());
        f[12..16].copy_from_slice(&(map.len() as u32).to_be_bytes());
        f.extend_from_slice(&data);
        f.extend_from_slice(&map);
        f
    }

    #[test]
    fn lists_resources_and_refuses_damage() {
        let f = fork(&[
            (b"CODE", 0, b"jump table"),
            (b"CODE", 1, b"code"),
            (b"STR ", -16396, b"\x05hello"),
        ]);
        assert_eq!(
            resources(&f).unwrap(),
            vec![(*b"CODE", 0), (*b"CODE", 1), (*b"STR ", -16396)]
        );
        assert_eq!(
            resource(&f, b"STR ", -16396).unwrap().unwrap(),
            b"\x05hello"
        );
        assert_eq!(resource(&f, b"CODE", 1).unwrap().unwrap(), b"code");
        assert_eq!(resource(&f, b"CODE", 2).unwrap(), None);
        assert!(resources(&[]).is_err());
        assert!(resources(&f[..f.len() - 1]).is_err(), "map cut short");
        let mut bad = f.clone();
        bad[256..260].copy_from_slice(&1000u32.to_be_bytes());
        assert!(resources(&bad).unwrap_err().contains("'CODE' 0"));
        let mut bad = f;
        let map_at = u32::from_be_bytes(bad[4..8].try_into().unwrap()) as usize;
        bad[map_at + 28..map_at + 30].copy_from_slice(&40u16.to_be_bytes());
        assert!(resources(&bad).is_err(), "41 types in a 3-type map");
    }
}
