//! `ferrite add`: copy host files onto a volume.

use super::disk::{self, mac_name};
use super::{human, mac_now, progress};
use anyhow::{Context, Result, anyhow, bail};
use ferrite_formatter::hfs::{HfsError, NewFile, mac_time_from_unix};
use ferrite_formatter::{appledouble, macbinary};
use std::path::{Path, PathBuf};

/// A file ready to go onto the volume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub source: PathBuf,
    pub name: Vec<u8>,
    pub file_type: [u8; 4],
    pub creator: [u8; 4],
    pub finder_flags: u16,
    pub data: Vec<u8>,
    pub rsrc: Vec<u8>,
    pub created: u32,
    pub modified: u32,
    /// How the input was read ("MacBinary", "AppleDouble", "plain").
    pub how: &'static str,
}

impl Prepared {
    /// A MacBinary II/III file (header CRC checked): name, type, creator, Finder flags, dates
    /// and both forks from the header; a date the header leaves at 0 becomes `date`.
    pub fn from_macbinary(
        source: &Path,
        bytes: &[u8],
        date: u32,
    ) -> Result<Prepared, macbinary::MacBinaryError> {
        let f = macbinary::parse(bytes)?;
        Ok(Prepared {
            source: source.into(),
            name: f.name,
            file_type: f.file_type,
            creator: f.creator,
            finder_flags: f.finder_flags,
            data: f.data,
            rsrc: f.rsrc,
            created: if f.created != 0 { f.created } else { date },
            modified: if f.modified != 0 { f.modified } else { date },
            how: "MacBinary",
        })
    }

    /// The file as a volume takes it, with `data` as its data fork (`&self.data`, or a
    /// converted copy).
    pub fn new_file<'a>(&'a self, data: &'a [u8]) -> NewFile<'a> {
        NewFile {
            name: &self.name,
            file_type: self.file_type,
            creator: self.creator,
            finder_flags: self.finder_flags,
            data,
            rsrc: &self.rsrc,
            created: self.created,
            modified: self.modified,
        }
    }
}

/// Type and creator for a plain file's extension (lower case, without the dot).
pub fn type_creator_for(ext: &str) -> ([u8; 4], [u8; 4]) {
    let t = |a: &[u8; 4], b: &[u8; 4]| (*a, *b);
    match ext {
        "txt" | "text" | "md" | "c" | "h" | "s" | "a" | "p" | "r" | "rs" | "py" | "me" | "1st" => {
            t(b"TEXT", b"ttxt")
        }
        "htm" | "html" => t(b"TEXT", b"MOSS"),
        "pict" | "pct" => t(b"PICT", b"ttxt"),
        "gif" => t(b"GIFf", b"ogle"),
        "jpg" | "jpeg" => t(b"JPEG", b"ogle"),
        "png" => t(b"PNGf", b"ogle"),
        "tif" | "tiff" => t(b"TIFF", b"ogle"),
        "sit" => t(b"SIT!", b"SITx"),
        "sea" => t(b"APPL", b"aust"),
        "cpt" => t(b"PACT", b"CPCT"),
        "hqx" => t(b"TEXT", b"SITx"),
        "zip" => t(b"ZIP ", b"SITx"),
        "pdf" => t(b"PDF ", b"CARO"),
        "mov" => t(b"MooV", b"TVOD"),
        "aif" | "aiff" => t(b"AIFF", b"TVOD"),
        "wav" => t(b"WAVE", b"TVOD"),
        "mid" | "midi" => t(b"Midi", b"TVOD"),
        "img" | "image" | "dsk" => t(b"rohd", b"ddsk"),
        "rtf" => t(b"TEXT", b"MSWD"),
        _ => t(b"BINA", b"????"),
    }
}

fn unix_time(meta: &std::fs::Metadata) -> u32 {
    let t = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    t.map_or_else(mac_now, mac_time_from_unix)
}

fn appledouble_companion(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    Some(path.with_file_name(format!("._{name}")))
}

/// Read one input: MacBinary (by content), AppleSingle, an AppleDouble `._NAME` header (with
/// its data file NAME beside it), a plain file with a `._NAME` beside it, or a plain file.
pub fn prepare(path: &Path) -> Result<Prepared> {
    let meta = std::fs::metadata(path)
        .with_context(|| format!("{}: cannot read it (no such file?)", path.display()))?;
    if meta.is_dir() {
        bail!(
            "{} is a folder (folders are copied by `ferrite add`, not read as a file)",
            path.display()
        );
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let date = unix_time(&meta);
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    if macbinary::is_macbinary(&bytes) {
        return Prepared::from_macbinary(path, &bytes, date)
            .map_err(|e| anyhow!("{}: damaged MacBinary file: {e}", path.display()));
    }
    let magic = bytes
        .get(..4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let is_single = magic == Some(appledouble::APPLE_SINGLE_MAGIC);
    let is_double = magic == Some(appledouble::APPLE_DOUBLE_MAGIC);
    if is_single || is_double {
        let ad = appledouble::parse(&bytes).map_err(|e| {
            anyhow!(
                "{}: damaged AppleSingle/AppleDouble file: {e}",
                path.display()
            )
        })?;
        let (data, default_name) = if is_single {
            (ad.data.clone().unwrap_or_default(), file_name.clone())
        } else {
            // `._NAME`: the data fork is NAME beside it.
            let real = file_name
                .strip_prefix("._")
                .unwrap_or(&file_name)
                .to_string();
            let data_path = path.with_file_name(&real);
            let data = if data_path.is_file() && real != file_name {
                std::fs::read(&data_path)?
            } else {
                Vec::new()
            };
            (data, real)
        };
        let name = match &ad.real_name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => mac_name(&default_name, 31, "file name")?,
        };
        return Ok(Prepared {
            source: path.into(),
            name,
            file_type: ad.file_type().unwrap_or(*b"BINA"),
            creator: ad.creator().unwrap_or(*b"????"),
            finder_flags: ad.finder_flags().unwrap_or(0),
            data,
            rsrc: ad.rsrc,
            created: date,
            modified: date,
            how: if is_single {
                "AppleSingle"
            } else {
                "AppleDouble"
            },
        });
    }
    let name = mac_name(&file_name, 31, "file name")?;
    if let Some(c) = appledouble_companion(path).filter(|c| c.is_file()) {
        let hdr = std::fs::read(&c)?;
        if let Ok(ad) = appledouble::parse(&hdr) {
            return Ok(Prepared {
                source: path.into(),
                name,
                file_type: ad.file_type().unwrap_or(*b"BINA"),
                creator: ad.creator().unwrap_or(*b"????"),
                finder_flags: ad.finder_flags().unwrap_or(0),
                data: bytes,
                rsrc: ad.rsrc,
                created: date,
                modified: date,
                how: "AppleDouble",
            });
        }
    }
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let (file_type, creator) = type_creator_for(&ext);
    Ok(Prepared {
        source: path.into(),
        name,
        file_type,
        creator,
        finder_flags: 0,
        data: bytes,
        rsrc: Vec::new(),
        created: date,
        modified: date,
        how: "plain",
    })
}

/// LF and CR LF to CR.
pub fn mac_line_endings(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'\r', Some(b'\n')) => {
                out.push(b'\r');
                i += 2;
                continue;
            }
            (b'\n', _) => out.push(b'\r'),
            (c, _) => out.push(c),
        }
        i += 1;
    }
    out
}

/// A folder to create (`None`) or a file to add, with its folder path below the target.
pub type Item = (Vec<Vec<u8>>, Option<Prepared>);

/// Expand a host folder: the folder itself, its files (AppleDouble `._NAME` companions go
/// with NAME; other dot files are skipped) and its folders, in name order.
pub fn collect_folder(dir: &Path, rel: &mut Vec<Vec<u8>>, out: &mut Vec<Item>) -> Result<()> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow!("{}: a folder needs a name", dir.display()))?;
    rel.push(mac_name(name, 31, "folder name")?);
    if rel.len() > 100 {
        bail!("{}: folders nested more than 100 deep", dir.display());
    }
    out.push((rel.clone(), None));
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for p in entries {
        let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(real) = n.strip_prefix("._") {
            if p.with_file_name(real).exists() {
                continue;
            }
        } else if n.starts_with('.') {
            continue;
        }
        if p.is_dir() {
            collect_folder(&p, rel, out)?;
        } else {
            out.push((rel.clone(), Some(prepare(&p)?)));
        }
    }
    rel.pop();
    Ok(())
}

pub fn add(target: &str, files: &[PathBuf], text: bool) -> Result<()> {
    let t = disk::parse_target(target)?;
    // Read every input first: a bad input changes nothing on the disk.
    let mut inputs: Vec<Item> = Vec::new();
    for f in files {
        // `._NAME` given next to NAME: NAME's entry already takes it.
        if let Some(n) = f.file_name().and_then(|n| n.to_str())
            && let Some(real) = n.strip_prefix("._")
            && files
                .iter()
                .any(|g| g.file_name().and_then(|x| x.to_str()) == Some(real))
        {
            continue;
        }
        if f.is_dir() {
            collect_folder(f, &mut Vec::new(), &mut inputs)?;
        } else {
            inputs.push((Vec::new(), Some(prepare(f)?)));
        }
    }
    let mut img = disk::open_disk(&t.disk, true)?;
    let (_, slots) = disk::volume_slots(&mut img)?;
    let names = disk::volume_names(&mut img, &slots);
    let slot = disk::choose_volume(&slots, &names, t.volume.as_deref())?.clone();
    let vol_name = names[slot.number - 1].clone();
    let mut vol = disk::open_volume(&mut img, &slot)?;
    vol.set_clock(mac_now());
    let path: Vec<Vec<u8>> = t
        .path
        .iter()
        .map(|p| mac_name(p, 31, "folder name"))
        .collect::<Result<_>>()?;
    let refs: Vec<&[u8]> = path.iter().map(|p| p.as_slice()).collect();
    check_room(&vol, &vol_name, &inputs)?;
    let folder = match vol.lookup_path(&refs) {
        Ok(e) if e.is_folder() => e.id,
        Ok(_) => bail!("{vol_name}:{} is a file, not a folder", t.path.join(":")),
        Err(HfsError::NotFound(_)) => vol
            .make_folders(&refs, mac_now())
            .map_err(|e| anyhow!("cannot create the folder: {e}"))?,
        Err(e) => bail!("{e}"),
    };
    copy_items(&mut vol, &vol_name, &refs, folder, &inputs, text)?;
    let info = vol.info();
    println!(
        "volume \"{vol_name}\": {} files, {} free",
        info.files,
        human(info.free_blocks as u64 * info.alloc_block_size as u64)
    );
    Ok(())
}

/// Refuse, before anything is written, files whose forks need more allocation blocks than
/// the volume has free.
pub fn check_room<D: ferrite_formatter::BlockDevice>(
    vol: &ferrite_formatter::hfs::Volume<D>,
    vol_name: &str,
    inputs: &[Item],
) -> Result<()> {
    let info = vol.info();
    let abs = info.alloc_block_size.max(1) as u64;
    let need: u64 = inputs
        .iter()
        .filter_map(|(_, p)| p.as_ref())
        .map(|p| (p.data.len() as u64).div_ceil(abs) + (p.rsrc.len() as u64).div_ceil(abs))
        .sum();
    if need > info.free_blocks as u64 {
        bail!(
            "disk full: volume \"{vol_name}\" has {} free but the files need {} ({need} allocation blocks of \
             {abs} bytes, {} free): add fewer files or use a bigger volume; nothing was copied",
            human(info.free_blocks as u64 * abs),
            human(need * abs),
            info.free_blocks
        );
    }
    Ok(())
}

/// Copy `inputs` into the folder `folder` (at `refs` below the root) of `vol`, then write the
/// catalog. Refused before anything changes when a file is already there; after a failure,
/// what was copied before it is kept.
pub fn copy_items<D: ferrite_formatter::BlockDevice>(
    vol: &mut ferrite_formatter::hfs::Volume<D>,
    vol_name: &str,
    refs: &[&[u8]],
    folder: u32,
    inputs: &[Item],
    text: bool,
) -> Result<()> {
    // Refuse before changing anything when a file is already there.
    for (rel, item) in inputs {
        let Some(p) = item else { continue };
        let full: Vec<&[u8]> = refs
            .iter()
            .copied()
            .chain(rel.iter().map(|r| r.as_slice()))
            .chain([p.name.as_slice()])
            .collect();
        if vol.lookup_path(&full).is_ok() {
            let shown: Vec<String> = full
                .iter()
                .map(|n| ferrite_formatter::macroman::lossy(n))
                .collect();
            bail!(
                "{vol_name}:{} already exists on the volume: rename the file you add (files are never replaced); nothing was copied",
                shown.join(":")
            );
        }
    }
    check_room(vol, vol_name, inputs)?;
    let total: u64 = inputs
        .iter()
        .filter_map(|(_, p)| p.as_ref())
        .map(|p| (p.data.len() + p.rsrc.len()) as u64)
        .sum();
    let pb = progress(total, "copying");
    let mut result = Ok(());
    for (rel, item) in inputs {
        let folder = if rel.is_empty() {
            folder
        } else {
            let full: Vec<&[u8]> = refs
                .iter()
                .copied()
                .chain(rel.iter().map(|r| r.as_slice()))
                .collect();
            match vol.make_folders(&full, mac_now()) {
                Ok(id) => id,
                Err(e) => {
                    result = Err(anyhow!("cannot create the folder: {e}"));
                    break;
                }
            }
        };
        let Some(p) = item else {
            let shown: Vec<String> = rel
                .iter()
                .map(|r| ferrite_formatter::macroman::lossy(r))
                .collect();
            pb.suspend(|| println!("folder {}", shown.join("/")));
            continue;
        };
        let converted;
        let data = if text && p.how == "plain" && &p.file_type == b"TEXT" {
            converted = mac_line_endings(&p.data);
            &converted
        } else {
            &p.data
        };
        let nf = p.new_file(data);
        let shown = ferrite_formatter::macroman::lossy(&p.name);
        match vol.add_file(folder, &nf) {
            Ok(_) => {
                pb.suspend(|| {
                    println!(
                        "added {shown} ({}/{}, data {}, resource {}; {} from {})",
                        String::from_utf8_lossy(&p.file_type),
                        String::from_utf8_lossy(&p.creator),
                        human(p.data.len() as u64),
                        human(p.rsrc.len() as u64),
                        p.how,
                        p.source.display()
                    )
                });
                pb.inc((p.data.len() + p.rsrc.len()) as u64);
            }
            Err(HfsError::Exists(_)) => {
                result = Err(anyhow!(
                    "{vol_name}:{shown} already exists on the volume: rename the file you add (files are never replaced)"
                ));
                break;
            }
            Err(e) => {
                result = Err(anyhow!("cannot add {}: {e}", p.source.display()));
                break;
            }
        }
    }
    pb.finish_and_clear();
    // Keep what was added before a failure.
    vol.flush()
        .map_err(|e| anyhow!("cannot write the catalog: {e}"))?;
    result
}
