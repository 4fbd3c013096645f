//! Ferrite Setup, the classic Mac application `ferrite init` puts in the root folder of every
//! HFS volume it makes: the one built into `ferrite` (`cargo xtask build` writes it as
//! MacBinary II to `target/m68k/FerriteSetup.bin`, `build.rs` embeds it) or `--setup-app FILE`.

use super::add::Prepared;
use anyhow::{Context, Result, anyhow, bail};
pub use ferrite_formatter::rsrc::{resource, resources};
use std::path::Path;

/// Ferrite Setup as MacBinary II, built into this binary (empty when it was built before
/// `cargo xtask build`).
pub static EMBEDDED_SETUP_APP: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/FerriteSetup.bin"));

/// The name the application gets on every volume, whatever its MacBinary header says.
pub const SETUP_APP_NAME: &[u8] = b"Ferrite Setup";

/// `fdFlags` hasBeenInited (`docs/mac-facts.md` §12.5). Cleared on the copy so that the Finder
/// registers the application's bundle (its icon) on the new volume; docs/mac-facts.md marks that
/// behaviour UNVERIFIED but widely relied on.
const HAS_BEEN_INITED: u16 = 0x0100;

/// The resources an application cannot start without (`docs/mac-facts.md` §12.6).
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A resource fork holding `res` (type, ID, data), laid out as in docs/mac-facts.md.
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
