//! `ferrite add --system DISK[:VOLUME] SOURCE`: copy a System Folder the user owns onto a
//! volume and make the volume start up from it, without running an Installer. SOURCE is a host
//! folder of MacBinary/AppleDouble files or a folder on another disk or bare volume image,
//! `IMAGE[:VOLUME][:FOLDER...]` ([`parse_source`], [`split_image_spec`]); both are read into
//! the same items, then checked, copied, blessed and given boot blocks the same way.
//!
//! What makes an HFS volume a startup volume (docs/formatter.md, "Startup volumes"):
//! - the MDB's Finder information word 0 (`drFndrInfo[0]`) holds the directory ID of the
//!   blessed System Folder (Technical Note TN1150 documents the words, carried over into HFS
//!   Plus: [1] the startup application's folder, [2] a folder to open at mount, [3] and [5]
//!   Mac OS 8/9 and Mac OS X System Folders on HFS Plus, [6..7] a volume identifier);
//! - the boot blocks (the volume's first 1024 bytes, starting 'LK') hold the boot block header
//!   and code; the Mac's own software writes them from the System file's `'boot'` resource ID 1
//!   when it blesses a System Folder (Apple's `bless` tool for Mac OS 9 Systems reads the same
//!   resource), so ferrite does too.
//!
//! Rules (refused with the reason, nothing written): the folder must hold a System file
//! (type 'zsys', or a file named "System") with a `'boot'` 1 resource of 1024 bytes starting
//! 'LK' whose System file name (`bbSysName`) names a file in the folder; the System must be
//! 6.0 or later (what Ferrite supports) and earlier than 8.5 (8.5 and later need a PowerPC);
//! the volume must be at most 2 GB for a System before 7.5, and at most 4 GB for any (68k Macs
//! start up from HFS volumes up to 4 GB); the volume must not already have a blessed folder.

use super::add::{Item, Prepared, collect_folder, copy_items};
use super::disk;
use super::setup_app::resource;
use super::{human, mac_now};
use anyhow::{Result, anyhow, bail};
use ferrite_formatter::hfs::{CLASSIC_68K_MAX_VOLUME_BYTES, EntryKind, Fork, cnid};
use ferrite_formatter::macroman::lossy;
use std::path::{Path, PathBuf};

/// The System file's type and creator.
pub const SYSTEM_TYPE: [u8; 4] = *b"zsys";
/// The resource the boot blocks come from: `'boot'` ID 1.
pub const BOOT_RESOURCE: (&[u8; 4], i16) = (b"boot", 1);
/// Size of the boot blocks (sectors 0 and 1 of the volume).
pub const BOOT_BLOCKS_BYTES: usize = 1024;
/// Offset of `bbSysName` (Str15) and `bbShellName` (Str15) in the boot block header.
pub const BB_SYS_NAME: usize = 10;
pub const BB_SHELL_NAME: usize = 26;

/// A System version from its `'vers'` 1 resource: (major, minor, bug).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SysVersion(pub u8, pub u8, pub u8);

impl std::fmt::Display for SysVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)?;
        if self.2 != 0 {
            write!(f, ".{}", self.2)?;
        }
        Ok(())
    }
}

/// The numeric version in a `'vers'` resource: byte 0 the major version in BCD, byte 1 the
/// minor (high nibble) and bug-fix (low nibble) versions.
pub fn parse_vers(vers: &[u8]) -> Option<SysVersion> {
    let (a, b) = (*vers.first()?, *vers.get(1)?);
    let bcd = |x: u8| (x >> 4) * 10 + (x & 0xF);
    if a & 0xF > 9 || a >> 4 > 9 {
        return None;
    }
    Some(SysVersion(bcd(a), b >> 4, b & 0xF))
}

/// A Pascal string of at most `max` bytes at `at`.
fn pstr(b: &[u8], at: usize, max: usize) -> Vec<u8> {
    let n = (b[at] as usize).min(max);
    b[at + 1..at + 1 + n].to_vec()
}

/// The System file name the boot blocks load (`bbSysName`); `None` if they are not boot
/// blocks ('LK').
pub fn boot_system_name(bb: &[u8]) -> Option<Vec<u8>> {
    (bb.len() >= BOOT_BLOCKS_BYTES && bb[..2] == *b"LK").then(|| pstr(bb, BB_SYS_NAME, 15))
}

/// Checks on the System Folder: which file is the System, its boot blocks and version.
pub struct SystemFolder {
    pub name: Vec<u8>,
    pub system_name: Vec<u8>,
    pub boot_blocks: Vec<u8>,
    pub version: Option<SysVersion>,
    pub warnings: Vec<String>,
}

fn same_name(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Find and check the System file among `items` (a collected System Folder; `shown` names
/// where it came from in messages).
pub fn check_system_folder(shown: &str, items: &[Item]) -> Result<SystemFolder> {
    let folder_name = items
        .first()
        .and_then(|(rel, _)| rel.first().cloned())
        .ok_or_else(|| anyhow!("{shown}: an empty folder"))?;
    let files: Vec<&super::add::Prepared> = items
        .iter()
        .filter(|(rel, p)| rel.len() == 1 && p.is_some())
        .filter_map(|(_, p)| p.as_ref())
        .collect();
    let system = files
        .iter()
        .find(|p| p.file_type == SYSTEM_TYPE)
        .or_else(|| files.iter().find(|p| same_name(&p.name, b"System")))
        .ok_or_else(|| {
            anyhow!(
                "{shown} holds no System file (a file of type 'zsys' or named \"System\", directly in the folder; from the host, as MacBinary or AppleDouble so that its resource fork comes along): give the folder of a System you own"
            )
        })?;
    let sys = lossy(&system.name);
    let bad = |why: String| {
        anyhow!(
            "{shown}: the System file \"{sys}\" {why}; its boot blocks come from that resource, so the volume would not start up (is the file's resource fork there? copy it as MacBinary or AppleDouble)"
        )
    };
    let boot = resource(&system.rsrc, BOOT_RESOURCE.0, BOOT_RESOURCE.1)
        .map_err(|e| bad(format!("has a damaged resource fork ({e})")))?
        .ok_or_else(|| bad("has no 'boot' 1 resource".into()))?;
    if boot.len() != BOOT_BLOCKS_BYTES || boot[..2] != *b"LK" {
        return Err(bad(format!(
            "has a 'boot' 1 resource of {} bytes{}, not 1024 bytes of boot blocks starting 'LK'",
            boot.len(),
            if boot.len() >= 2 && boot[..2] != *b"LK" {
                " without the 'LK' signature"
            } else {
                ""
            }
        )));
    }
    let load = boot_system_name(&boot).expect("checked");
    if !same_name(&load, &system.name) {
        let other = files.iter().any(|p| same_name(&p.name, &load));
        if !other {
            bail!(
                "{shown}: the boot blocks in \"{sys}\" load a System file named \"{}\", which the folder does not hold",
                lossy(&load)
            );
        }
    }
    let mut warnings = Vec::new();
    let version = match resource(&system.rsrc, b"vers", 1) {
        Ok(Some(v)) => parse_vers(&v),
        _ => None,
    };
    match version {
        Some(v) if v < SysVersion(6, 0, 0) => bail!(
            "{shown}: System {v} is too old: Ferrite supports System 6.0 and later"
        ),
        Some(v) if v >= SysVersion(8, 5, 0) => bail!(
            "{shown}: Mac OS {v} runs only on PowerPC Macs; the last System for 68k Macs is Mac OS 8.1"
        ),
        Some(_) => {}
        None => warnings.push(format!(
            "the System file \"{sys}\" has no readable 'vers' 1 resource: its version (and so whether it suits this volume) is unknown"
        )),
    }
    let shell = pstr(&boot, BB_SHELL_NAME, 15);
    if !shell.is_empty() && !files.iter().any(|p| same_name(&p.name, &shell)) {
        warnings.push(format!(
            "the folder holds no \"{}\", the application the boot blocks start after the System (bbShellName)",
            lossy(&shell)
        ));
    }
    Ok(SystemFolder {
        name: folder_name,
        system_name: system.name.clone(),
        boot_blocks: boot,
        version,
        warnings,
    })
}

/// Whether System `v` (unknown: `None`) can start up from a volume of `bytes`.
pub fn check_volume_size(v: Option<SysVersion>, bytes: u64) -> Result<(), String> {
    if bytes > CLASSIC_68K_MAX_VOLUME_BYTES {
        return Err(format!(
            "the volume is {}: 68k Macs start up from HFS volumes of at most 4 GB",
            human(bytes)
        ));
    }
    match v {
        Some(v) if v < SysVersion(7, 5, 0) && bytes > 2 << 30 => Err(format!(
            "the volume is {}: System {v} uses volumes of at most 2 GB (System 7.5 or later is needed for larger ones)",
            human(bytes)
        )),
        _ => Ok(()),
    }
}

/// Where `--system` takes the System Folder from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A host folder of MacBinary/AppleDouble files.
    Host(PathBuf),
    /// A folder on an HFS volume of a disk image (partitioned or a bare volume image):
    /// `IMAGE[:VOLUME][:FOLDER...]`, `spec` being what follows the first ':' (`None`: none).
    Image { disk: PathBuf, spec: Option<String> },
}

/// Tell a host folder from an image: an existing host directory is a host folder; an existing
/// file (or device) is an image whose first volume's blessed System Folder is taken; otherwise
/// the longest prefix before a ':' that is an existing file is the image and the rest is a
/// Mac path `[VOLUME:]FOLDER[:FOLDER...]`.
pub fn parse_source(arg: &Path) -> Result<Source> {
    if arg.is_dir() {
        return Ok(Source::Host(arg.into()));
    }
    if arg.exists() {
        return Ok(Source::Image {
            disk: arg.into(),
            spec: None,
        });
    }
    let text = arg.to_string_lossy();
    for (i, _) in text.rmatch_indices(':') {
        let disk = Path::new(&text[..i]);
        if i > 0 && disk.exists() {
            if disk.is_dir() {
                bail!(
                    "{}: a folder on the host followed by ':' — give the System Folder itself ({}/...), or IMAGE:FOLDER for a folder on a disk image",
                    arg.display(),
                    disk.display()
                );
            }
            return Ok(Source::Image {
                disk: disk.into(),
                spec: Some(text[i + 1..].to_string()),
            });
        }
    }
    let hint = match text.split_once(':') {
        Some((disk, _)) if !disk.is_empty() => {
            format!(" (there is no disk image \"{disk}\" either)")
        }
        _ => String::new(),
    };
    bail!(
        "{}: no such folder on the host, and no disk image before a ':' in it{hint}: --system takes a System Folder on the host (MacBinary or AppleDouble files) or one on a disk image, IMAGE[:VOLUME]:FOLDER",
        arg.display()
    )
}

/// Split the Mac path after `IMAGE:` into (volume, folder path). A leading ':' or a first name
/// that is no volume of the image means the image's first volume; an empty folder path means
/// the volume's blessed System Folder.
pub fn split_image_spec<'a>(
    spec: Option<&'a str>,
    volume_names: &[String],
) -> (Option<usize>, Vec<&'a str>) {
    let Some(spec) = spec else {
        return (None, Vec::new());
    };
    let (relative, rest) = match spec.strip_prefix(':') {
        Some(r) => (true, r),
        None => (false, spec),
    };
    let parts: Vec<&str> = rest.split(':').filter(|p| !p.is_empty()).collect();
    if !relative
        && let Some(first) = parts.first()
        && let Some(i) = volume_names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(first))
    {
        return (Some(i), parts[1..].to_vec());
    }
    (None, parts)
}

/// What a source image's first 2 KiB say it is not, for the refusal.
fn not_hfs_reason(disk: &Path) -> Result<Option<&'static str>> {
    use std::io::Read;
    let c = disk::sniff(disk)?;
    if c.hfs_plus {
        return Ok(Some(
            "an HFS Plus (Mac OS Extended) volume, which ferrite does not read and 68k Macs do not start up from",
        ));
    }
    if c.anything() {
        return Ok(None);
    }
    let mut b = [0u8; 1026];
    let mut f = std::fs::File::open(disk)?;
    let got = f.read(&mut b).unwrap_or(0);
    if got == b.len() && b[1024..1026] == [0xD2, 0xD7] {
        return Ok(Some(
            "an MFS volume (the flat file system of 400K disks), not HFS",
        ));
    }
    Ok(Some(
        "neither a disk with a partition map nor a bare HFS volume image (a Disk Copy 4.2 or compressed image must be converted to a raw one first)",
    ))
}

/// Read a folder, recursively, from a disk image's HFS volume: returns how to name it in
/// messages and its items, as [`collect_folder`] gives them for a host folder.
pub fn collect_from_image(disk_path: &Path, spec: Option<&str>) -> Result<(String, Vec<Item>)> {
    let shown_disk = disk_path.display().to_string();
    if let Some(why) = not_hfs_reason(disk_path)? {
        bail!(
            "{shown_disk} is {why}: --system takes a folder (a System Folder of MacBinary or AppleDouble files) or IMAGE[:VOLUME]:FOLDER on an HFS disk or volume image"
        );
    }
    let mut img = disk::open_disk(disk_path, false)?;
    let (_, slots) = disk::volume_slots(&mut img).map_err(|e| anyhow!("{shown_disk}: {e}"))?;
    if slots.is_empty() {
        bail!("{shown_disk}: its partition map has no HFS volume to take a System Folder from");
    }
    let names = disk::volume_names(&mut img, &slots);
    let (vol_index, path) = split_image_spec(spec, &names);
    let slot = slots[vol_index.unwrap_or(0)].clone();
    let vol_name = names[slot.number - 1].clone();
    let mut vol = disk::open_volume(&mut img, &slot).map_err(|e| anyhow!("{shown_disk}: {e}"))?;
    let all_volumes = || {
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let folder = if path.is_empty() {
        let blessed = vol.finder_info()[0];
        match vol
            .walk()
            .into_iter()
            .find(|(_, e)| blessed != 0 && e.id == blessed && e.is_folder())
        {
            Some((_, e)) => e,
            None => bail!(
                "{shown_disk}: volume \"{vol_name}\" has no blessed System Folder: name the folder, as in {shown_disk}:{vol_name}:System Folder"
            ),
        }
    } else {
        let mac: Vec<Vec<u8>> = path
            .iter()
            .map(|p| disk::mac_name(p, 31, "folder name"))
            .collect::<Result<_>>()?;
        let refs: Vec<&[u8]> = mac.iter().map(|p| p.as_slice()).collect();
        match vol.lookup_path(&refs) {
            Ok(e) if e.is_folder() => e,
            Ok(_) => bail!(
                "{shown_disk}: \"{vol_name}:{}\" is a file, not a folder: --system takes a System Folder",
                path.join(":")
            ),
            Err(ferrite_formatter::hfs::HfsError::NotFound(_)) => {
                let root: Vec<String> = vol
                    .list(cnid::ROOT)
                    .iter()
                    .filter(|e| e.is_folder())
                    .map(|e| format!("\"{}\"", e.display_name()))
                    .collect();
                let named_volume = if vol_index.is_none() && path.len() > 1 {
                    format!(" and \"{}\" is no volume of it", path[0])
                } else {
                    String::new()
                };
                bail!(
                    "{shown_disk}: volume \"{vol_name}\" has no folder \"{}\"{named_volume} (its root folder holds {}; the image's volumes are {}; write IMAGE:VOLUME:FOLDER for a folder on another volume)",
                    path.join(":"),
                    if root.is_empty() {
                        "no folders".to_string()
                    } else {
                        format!("the folders {}", root.join(", "))
                    },
                    all_volumes()
                )
            }
            Err(e) => bail!("{shown_disk}: volume \"{vol_name}\": {e} (see `ferrite check`)"),
        }
    };
    let base = format!("{shown_disk}:{vol_name}");
    let mut items = Vec::new();
    collect_hfs_folder(&mut vol, &folder, &base, &mut Vec::new(), &mut items)?;
    Ok((format!("{base}:{}", folder.display_name()), items))
}

/// Add HFS folder `dir` and everything in it to `out` (the folder first, then its files and
/// folders in catalog order), with both forks, type, creator, Finder flags and dates.
fn collect_hfs_folder<D: ferrite_formatter::BlockDevice>(
    vol: &mut ferrite_formatter::hfs::Volume<D>,
    dir: &ferrite_formatter::hfs::DirEntry,
    base: &str,
    rel: &mut Vec<Vec<u8>>,
    out: &mut Vec<Item>,
) -> Result<()> {
    rel.push(dir.name.clone());
    if rel.len() > 100 {
        bail!("{base}: folders nested more than 100 deep");
    }
    out.push((rel.clone(), None));
    let here: Vec<String> = rel.iter().map(|n| lossy(n)).collect();
    let here = format!("{base}:{}", here.join(":"));
    for e in vol.list(dir.id) {
        match e.kind {
            EntryKind::Folder { .. } => collect_hfs_folder(vol, &e, base, rel, out)?,
            EntryKind::File {
                file_type,
                creator,
                finder_flags,
                ..
            } => {
                let shown = format!("{here}:{}", e.display_name());
                let data = vol
                    .read_fork(&e, Fork::Data)
                    .map_err(|err| anyhow!("{shown}: cannot read its data fork: {err}"))?;
                let rsrc = vol
                    .read_fork(&e, Fork::Resource)
                    .map_err(|err| anyhow!("{shown}: cannot read its resource fork: {err}"))?;
                out.push((
                    rel.clone(),
                    Some(Prepared {
                        source: PathBuf::from(shown),
                        name: e.name.clone(),
                        file_type,
                        creator,
                        finder_flags,
                        data,
                        rsrc,
                        created: e.created,
                        modified: e.modified,
                        how: "HFS volume",
                    }),
                ));
            }
        }
    }
    rel.pop();
    Ok(())
}

/// Read the System Folder `arg` names: a host folder or a folder on a disk image.
pub fn collect_source(arg: &Path) -> Result<(String, Vec<Item>)> {
    match parse_source(arg)? {
        Source::Host(dir) => {
            let mut items = Vec::new();
            collect_folder(&dir, &mut Vec::new(), &mut items)?;
            Ok((dir.display().to_string(), items))
        }
        Source::Image { disk, spec } => collect_from_image(&disk, spec.as_deref()),
    }
}

pub fn add_system(target: &str, files: &[PathBuf]) -> Result<()> {
    let [source] = files else {
        bail!("--system takes one folder, the System Folder to copy");
    };
    let t = disk::parse_target(target)?;
    if !t.path.is_empty() {
        bail!(
            "{target}: the System Folder goes in the volume's root folder: give DISK or DISK:VOLUME"
        );
    }
    // Everything is read before the target is opened for writing (the source may be another
    // volume of the same disk).
    let (shown, items) = collect_source(source)?;
    let sf = check_system_folder(&shown, &items)?;
    install_system(&t, &sf, &items)
}

/// Copy a checked System Folder to the root of the target volume, write its boot blocks and
/// bless it: the same for every source.
fn install_system(t: &disk::Target, sf: &SystemFolder, items: &[Item]) -> Result<()> {
    let mut img = disk::open_disk(&t.disk, true)?;
    let (_, slots) = disk::volume_slots(&mut img)?;
    let names = disk::volume_names(&mut img, &slots);
    let slot = disk::choose_volume(&slots, &names, t.volume.as_deref())?.clone();
    let vol_name = names[slot.number - 1].clone();
    let mut vol = disk::open_volume(&mut img, &slot)?;
    let bytes = vol.info().sectors * 512;
    check_volume_size(sf.version, bytes).map_err(|e| {
        anyhow!(
            "volume \"{vol_name}\": {e}; nothing was copied{}",
            sf.version
                .map(|v| format!(" (System {v})"))
                .unwrap_or_default()
        )
    })?;
    let blessed = vol.finder_info()[0];
    if blessed != 0
        && let Some((path, _)) = vol
            .walk()
            .into_iter()
            .find(|(_, e)| e.id == blessed && e.is_folder())
    {
        let shown: Vec<String> = path.iter().map(|n| lossy(n)).collect();
        bail!(
            "volume \"{vol_name}\" already starts up from its System Folder \"{}\": a volume has one blessed System Folder; nothing was copied",
            shown.join(":")
        );
    }
    vol.set_clock(mac_now());
    copy_items(&mut vol, &vol_name, &[], cnid::ROOT, items, false)?;
    let folder = vol
        .lookup(cnid::ROOT, &sf.name)
        .filter(|e| e.is_folder())
        .ok_or_else(|| anyhow!("the copied System Folder is not in the root folder"))?;
    vol.write_boot_blocks(&sf.boot_blocks)
        .map_err(|e| anyhow!("cannot write the boot blocks: {e}"))?;
    let mut fi = vol.finder_info();
    fi[0] = folder.id;
    vol.set_finder_info(fi);
    vol.flush()
        .map_err(|e| anyhow!("cannot write the volume information: {e}"))?;
    for w in &sf.warnings {
        eprintln!("ferrite: warning: {w}");
    }
    let info = vol.info();
    println!(
        "volume \"{vol_name}\" starts up from \"{}\" (directory ID {}): {}, boot blocks from its 'boot' 1 resource; {} files, {} free",
        lossy(&sf.name),
        folder.id,
        match sf.version {
            Some(v) => format!("System {v} (\"{}\")", lossy(&sf.system_name)),
            None => format!("System file \"{}\"", lossy(&sf.system_name)),
        },
        info.files,
        human(info.free_blocks as u64 * info.alloc_block_size as u64)
    );
    Ok(())
}

/// What `ferrite info` says about a volume's startup information; `None` when it has none.
pub fn describe_startup<D: ferrite_formatter::BlockDevice>(
    vol: &mut ferrite_formatter::hfs::Volume<D>,
) -> Option<String> {
    let blessed = vol.finder_info()[0];
    let bb = vol.boot_blocks().ok()?;
    let load = boot_system_name(&bb);
    if blessed == 0 && load.is_none() {
        return None;
    }
    let folder = vol
        .walk()
        .into_iter()
        .find(|(_, e)| e.id == blessed && e.is_folder());
    let system_there = |name: &[u8]| {
        vol.list(blessed)
            .iter()
            .any(|e| same_name(&e.name, name) && matches!(e.kind, EntryKind::File { .. }))
    };
    Some(match (&folder, &load) {
        (Some((path, _)), Some(sys)) if system_there(sys) => format!(
            "startup volume: blessed System Folder \"{}\" (directory ID {blessed}), boot blocks load \"{}\"",
            path.iter().map(|n| lossy(n)).collect::<Vec<_>>().join(":"),
            lossy(sys)
        ),
        (Some((path, _)), Some(sys)) => format!(
            "not a startup volume: the boot blocks load \"{}\", which the blessed folder \"{}\" does not hold",
            lossy(sys),
            path.iter().map(|n| lossy(n)).collect::<Vec<_>>().join(":")
        ),
        (Some((path, _)), None) => format!(
            "not a startup volume: System Folder \"{}\" is blessed but the boot blocks are empty",
            path.iter().map(|n| lossy(n)).collect::<Vec<_>>().join(":")
        ),
        (None, _) if blessed != 0 => format!(
            "not a startup volume: the blessed folder (directory ID {blessed}) does not exist"
        ),
        (None, _) => "not a startup volume: boot blocks but no blessed System Folder".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vers_numbers_are_bcd() {
        assert_eq!(
            parse_vers(&[0x07, 0x55, 0x80, 0]),
            Some(SysVersion(7, 5, 5))
        );
        assert_eq!(parse_vers(&[0x08, 0x10]), Some(SysVersion(8, 1, 0)));
        assert_eq!(parse_vers(&[0x10, 0x00]), Some(SysVersion(10, 0, 0)));
        assert_eq!(parse_vers(&[0x0A, 0x00]), None);
        assert_eq!(parse_vers(&[0x07]), None);
        assert_eq!(SysVersion(7, 5, 5).to_string(), "7.5.5");
        assert_eq!(SysVersion(7, 1, 0).to_string(), "7.1");
    }

    #[test]
    fn volume_size_rules() {
        let v = |a, b| Some(SysVersion(a, b, 0));
        assert!(check_volume_size(v(7, 1), 2 << 30).is_ok());
        assert!(check_volume_size(v(7, 1), (2 << 30) + 512).is_err());
        assert!(check_volume_size(v(7, 5), (2 << 30) + 512).is_ok());
        assert!(check_volume_size(v(8, 1), CLASSIC_68K_MAX_VOLUME_BYTES).is_ok());
        assert!(check_volume_size(v(8, 1), CLASSIC_68K_MAX_VOLUME_BYTES + 512).is_err());
        assert!(check_volume_size(None, 3 << 30).is_ok());
    }

    #[test]
    fn image_specs() {
        let names = ["Macintosh HD".to_string(), "Old HD".to_string()];
        let split = |s: Option<&'static str>| split_image_spec(s, &names);
        assert_eq!(split(None), (None, vec![]));
        assert_eq!(split(Some("")), (None, vec![]));
        assert_eq!(
            split(Some("old hd:System Folder")),
            (Some(1), vec!["System Folder"])
        );
        assert_eq!(split(Some("Old HD")), (Some(1), vec![]));
        assert_eq!(split(Some("Old HD:")), (Some(1), vec![]));
        assert_eq!(split(Some("System Folder")), (None, vec!["System Folder"]));
        assert_eq!(
            split(Some(":Old HD:System Folder")),
            (None, vec!["Old HD", "System Folder"])
        );
        assert_eq!(
            split(Some("Macintosh HD:Systems:7.5")),
            (Some(0), vec!["Systems", "7.5"])
        );
    }

    #[test]
    fn sources() {
        let dir = std::env::temp_dir().join(format!("ferrite-src-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("System Folder")).unwrap();
        std::fs::write(dir.join("a.dsk"), b"x").unwrap();
        let host = dir.join("System Folder");
        assert_eq!(parse_source(&host).unwrap(), Source::Host(host.clone()));
        let img = dir.join("a.dsk");
        assert_eq!(
            parse_source(&img).unwrap(),
            Source::Image {
                disk: img.clone(),
                spec: None
            }
        );
        let with = PathBuf::from(format!("{}:Old HD:System Folder", img.display()));
        assert_eq!(
            parse_source(&with).unwrap(),
            Source::Image {
                disk: img.clone(),
                spec: Some("Old HD:System Folder".into())
            }
        );
        let err = parse_source(&dir.join("b.dsk:System Folder")).unwrap_err();
        assert!(
            err.to_string().contains("no disk image before a ':'"),
            "{err}"
        );
        let err = parse_source(&PathBuf::from(format!("{}:x", host.display()))).unwrap_err();
        assert!(err.to_string().contains("a folder on the host"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
