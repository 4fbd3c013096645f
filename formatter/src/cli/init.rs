//! `ferrite init` and `ferrite convert`.

use super::add::Prepared;
use super::disk::{self, DriverOptions, apply_settings, driver_blob, mac_name};
use super::setup_app::{SETUP_APP_NAME, setup_app};
use super::{human, mac_now, progress};
use anyhow::{Context, Result, anyhow, bail};
use ferrite_formatter::apm::{
    DEFAULT_DRIVER_SLOT_BLOCKS, DRIVER_START_BLOCK, HfsPartitionSpec, Layout, PartSize, write_map,
};
use ferrite_formatter::hfs::{CLASSIC_68K_MAX_VOLUME_BYTES, Volume, cnid};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::init::{self, InitError, InitOptions, VolumeSpec};
use ferrite_formatter::{BlockDevice, MemDisk, Region};
use std::path::{Path, PathBuf};

pub struct InitArgs {
    pub disk: PathBuf,
    pub size: Option<u64>,
    pub volumes: Vec<String>,
    pub block_size: Option<u32>,
    /// `--write-cache`, `--transfer-mode`, `--max-blocks`.
    pub settings: DriverOptions,
    pub driver: Option<PathBuf>,
    /// `--setup-app FILE`: the Ferrite Setup MacBinary to use instead of the embedded one.
    pub setup_app: Option<PathBuf>,
    /// `--no-setup-app`.
    pub no_setup_app: bool,
    /// `--date`: the volumes' dates (Mac seconds) instead of the clock.
    pub date: Option<u32>,
    pub force: bool,
}

pub struct ConvertArgs {
    pub volume: PathBuf,
    pub disk: PathBuf,
    pub size: Option<u64>,
    /// `--write-cache`, `--transfer-mode`, `--max-blocks`.
    pub settings: DriverOptions,
    pub driver: Option<PathBuf>,
    /// `--setup-app FILE`: the Ferrite Setup MacBinary to use instead of the embedded one.
    pub setup_app: Option<PathBuf>,
    /// `--no-setup-app`.
    pub no_setup_app: bool,
    pub force: bool,
}

/// The default size of a new image.
pub const DEFAULT_SIZE: u64 = 2 << 30;
/// The default volume name.
pub const DEFAULT_VOLUME: &str = "Macintosh HD";

fn check_block_size(bs: u32) -> Result<u32> {
    if ![512, 1024, 2048, 4096].contains(&bs) {
        bail!("block size {bs} is not supported: use 512, 1024, 2048 or 4096");
    }
    Ok(bs)
}

/// Where the disk goes and what is there: (path, block size, existing size if any).
fn prepare_target(
    path: &Path,
    block_size: Option<u32>,
    force: bool,
) -> Result<(PathBuf, u32, Option<u64>, bool)> {
    let path = if path.is_dir() {
        disk::default_disk_path(path, check_block_size(block_size.unwrap_or(512))?)?
    } else {
        path.to_path_buf()
    };
    let bs = check_block_size(block_size.or(disk::scsi_name_info(&path).1).unwrap_or(512))?;
    if !path.exists() {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && !parent.is_dir()
        {
            bail!(
                "{}: the folder {} does not exist",
                path.display(),
                parent.display()
            );
        }
        return Ok((path, bs, None, false));
    }
    let meta = std::fs::metadata(&path)?;
    #[cfg(unix)]
    let is_device = std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type());
    #[cfg(not(unix))]
    let is_device = false;
    if !meta.is_file() && !is_device {
        bail!(
            "{} is neither a regular file nor a block device",
            path.display()
        );
    }
    let c = disk::sniff(&path)?;
    if !force {
        let what = if c.map {
            Some("a partition map".to_string())
        } else if c.hfs_plus {
            Some("an HFS Plus volume".into())
        } else if c.hfs {
            Some("an HFS volume".into())
        } else {
            disk::first_data(&path)?.map(|at| format!("data (a non-zero byte at offset {at})"))
        };
        if let Some(what) = what {
            bail!(
                "{} already holds {what}: add --force to erase it (everything on it is lost), or choose another file",
                path.display()
            );
        }
    }
    let size = if is_device {
        ImageFile::open_with(&path, false, 512)?.size_bytes()
    } else {
        meta.len()
    };
    Ok((path, bs, Some(size), is_device))
}

/// Create (regular file) or open (device) the disk with `bytes` bytes of `bs`-byte blocks.
fn create_disk(path: &Path, bytes: u64, bs: u32, is_device: bool) -> Result<ImageFile> {
    if !is_device {
        ImageFile::create(path, bytes)
            .with_context(|| format!("cannot create {}", path.display()))?;
    }
    let img = ImageFile::open_with(path, true, bs)
        .with_context(|| format!("cannot open {} for writing", path.display()))?;
    if img.block_count() == 0 {
        bail!("{} is empty", path.display());
    }
    Ok(img)
}

/// What `--volume` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeRequest {
    pub name: String,
    pub bytes: Option<u64>,
}

pub fn parse_volume(text: &str) -> Result<VolumeRequest> {
    let (name, size) = match text.rsplit_once(':') {
        Some((n, s)) => (
            n,
            Some(super::size::parse_size(s).map_err(|e| anyhow!("--volume {text:?}: {e}"))?),
        ),
        None => (text, None),
    };
    mac_name(name, 27, "volume name")?;
    Ok(VolumeRequest {
        name: name.to_string(),
        bytes: size,
    })
}

fn blocks_of(bytes: u64, bs: u32) -> u64 {
    bytes / bs as u64
}

/// The layout's HFS partitions ([`ferrite_formatter::init::plan`]), with every error in the
/// command's words (what to change, which option).
fn plan(
    vols: &[VolumeRequest],
    disk_blocks: u64,
    bs: u32,
    driver_len: usize,
    app: Option<&Prepared>,
) -> Result<Vec<HfsPartitionSpec>> {
    let specs: Vec<VolumeSpec> = vols
        .iter()
        .map(|v| VolumeSpec {
            name: v.name.clone(),
            blocks: v.bytes.map(|b| blocks_of(b, bs)),
        })
        .collect();
    let file = app.map(|a| (a.data.len(), a.rsrc.len()));
    init::plan(&specs, disk_blocks, bs, driver_len, file).map_err(|e| {
        let bytes_of = |name: &str| {
            vols.iter()
                .find(|v| v.name == name)
                .and_then(|v| v.bytes)
                .unwrap_or(0)
        };
        match e {
            InitError::VolumeTooSmall {
                name, min_blocks, ..
            } => anyhow!(
                "volume \"{name}\" of {} is too small: HFS needs at least {}",
                human(bytes_of(&name)),
                human(min_blocks * bs as u64)
            ),
            InitError::VolumeTooLarge { name, .. } => anyhow!(
                "volume \"{name}\" of {} is too large for a partition map entry",
                human(bytes_of(&name))
            ),
            InitError::NoSize { name } => anyhow!(
                "volume \"{name}\" has no size: only the last --volume may leave it out (it takes the rest)"
            ),
            InitError::DiskTooSmall {
                index,
                volumes,
                first,
                used,
                disk_blocks,
                need,
            } => anyhow!(
                "the disk is too small: {} holds the map and driver ({}){} but it has only {}; give a larger --size (at least {}) or smaller volumes",
                if volumes == 1 {
                    "one volume plus what"
                } else {
                    "the volumes plus what"
                },
                human(first * bs as u64),
                if index > 0 {
                    format!(", volumes 1-{index} take {}", human(used * bs as u64))
                } else {
                    String::new()
                },
                human(disk_blocks * bs as u64),
                human(need * bs as u64)
            ),
            InitError::NoRoomForFile {
                name,
                blocks,
                free,
                need,
            } => anyhow!(
                "volume \"{name}\" ({}) has {} free, too little for Ferrite Setup ({}): make it larger, or pass --no-setup-app",
                human(blocks * bs as u64),
                human(free),
                human(need)
            ),
            e => anyhow!("{e}"),
        }
    })
}

fn warn_sizes(name: &str, bytes: u64) {
    if bytes > CLASSIC_68K_MAX_VOLUME_BYTES {
        eprintln!(
            "ferrite: warning: volume \"{name}\" is {}: 68k Macs mount HFS volumes up to 4 GB (2 GB before System 7.5)",
            human(bytes)
        );
    } else if bytes > 2 << 30 {
        eprintln!(
            "ferrite: note: volume \"{name}\" is {}: System 7.5 or later is needed for volumes over 2 GB",
            human(bytes)
        );
    }
}

pub fn init(a: &InitArgs) -> Result<()> {
    let mut blob = driver_blob(a.driver.as_deref())?;
    apply_settings(&mut blob, &a.settings)?;
    let now = a.date.unwrap_or_else(mac_now);
    // Read and check Ferrite Setup before the target is touched.
    let app = setup_app(a.setup_app.as_deref(), a.no_setup_app, now)?;
    let vols: Vec<VolumeRequest> = if a.volumes.is_empty() {
        vec![VolumeRequest {
            name: DEFAULT_VOLUME.into(),
            bytes: None,
        }]
    } else {
        a.volumes
            .iter()
            .map(|v| parse_volume(v))
            .collect::<Result<_>>()?
    };
    let (path, bs, existing, is_device) = prepare_target(&a.disk, a.block_size, a.force)?;
    if bs != 512 {
        // The map and volumes are valid at any block size, but the driver checks READ
        // CAPACITY's block length at install and serves 512-byte blocks only.
        eprintln!(
            "ferrite: warning: block size {bs}: Ferrite's driver serves 512-byte-block disks only, \
             so this disk will not boot or mount with it; use --block-size 512 for a Mac boot disk"
        );
    }
    let size = match (a.size, existing, is_device) {
        (Some(s), Some(have), true) if s / bs as u64 != have / bs as u64 => {
            bail!(
                "--size {}: a device is always used whole ({}): leave --size out",
                human(s),
                human(have)
            )
        }
        (Some(s), _, _) => s,
        (None, Some(have), _) if have > 0 => have,
        (None, _, _) => DEFAULT_SIZE,
    };
    let disk_blocks = size / bs as u64;
    if disk_blocks > u32::MAX as u64 {
        bail!(
            "{} is too large: a partition map addresses at most 2^32 blocks ({} with {bs}-byte blocks)",
            human(size),
            human((u32::MAX as u64) * bs as u64)
        );
    }
    let specs = plan(&vols, disk_blocks, bs, blob.len(), app.as_ref())?;
    let created = disk::Created::new(&path, existing.is_none() && !is_device);
    let mut img = create_disk(&path, disk_blocks * bs as u64, bs, is_device)?;
    let layout = Layout {
        driver: Some(&blob),
        driver_slot_blocks: DEFAULT_DRIVER_SLOT_BLOCKS,
        hfs: specs,
    };
    let pb = progress(disk_blocks * bs as u64, "formatting");
    let opts = InitOptions {
        layout,
        date: now,
        file: app.as_ref().map(|p| p.new_file(&p.data)),
    };
    let map = init::initialize(&mut img, &opts, &mut |_, done, total| {
        pb.set_length(total * bs as u64);
        pb.set_position(done * bs as u64);
        true
    })
    .map_err(|e| match e {
        InitError::Map(e) => anyhow!("{}: {e}", path.display()),
        InitError::AddFile { name, error } => anyhow!(
            "volume \"{name}\": cannot add {}: {error}",
            ferrite_formatter::macroman::lossy(SETUP_APP_NAME)
        ),
        e => anyhow!("{e}"),
    })?;
    pb.finish_and_clear();
    println!(
        "{}: {} disk, {bs}-byte blocks, Ferrite driver ({} bytes)",
        path.display(),
        human(disk_blocks * bs as u64),
        blob.len()
    );
    match &app {
        Some(p) => println!(
            "  {} ({}/{}, data {}, resource {}) in every volume's root folder",
            ferrite_formatter::macroman::lossy(&p.name),
            ferrite_formatter::macroman::lossy(&p.file_type),
            ferrite_formatter::macroman::lossy(&p.creator),
            human(p.data.len() as u64),
            human(p.rsrc.len() as u64)
        ),
        None => println!("  no Ferrite Setup (--no-setup-app)"),
    }
    for p in map.hfs_partitions() {
        let bytes = p.blocks as u64 * bs as u64;
        println!(
            "  volume \"{}\": {} at block {}",
            p.name,
            human(bytes),
            p.start
        );
        warn_sizes(&p.name, bytes);
    }
    created.keep();
    Ok(())
}

pub fn convert(a: &ConvertArgs) -> Result<()> {
    let mut blob = driver_blob(a.driver.as_deref())?;
    apply_settings(&mut blob, &a.settings)?;
    let now = mac_now();
    // Read and check Ferrite Setup before the target is touched.
    let app = setup_app(a.setup_app.as_deref(), a.no_setup_app, now)?;
    let mut app_kept = false;
    if !a.volume.is_file() {
        bail!("{}: no such volume image", a.volume.display());
    }
    let mut src: Box<dyn BlockDevice> = match diskcopy42(&a.volume)? {
        Some(mem) => Box::new(mem),
        None => Box::new(
            ImageFile::open_read_only(&a.volume)
                .with_context(|| format!("cannot open {}", a.volume.display()))?,
        ),
    };
    let vol_bytes = src.size_bytes();
    let name = {
        let v = Volume::open(&mut *src).map_err(|e| {
            anyhow!(
                "{} is not a bare HFS volume image: {e} (convert takes a raw .dsk/.img of one volume or a DiskCopy 4.2 image)",
                a.volume.display()
            )
        })?;
        let i = v.info();
        if let Some(app) = &app {
            match v.lookup(cnid::ROOT, SETUP_APP_NAME) {
                Some(_) => {
                    eprintln!(
                        "ferrite: note: volume \"{}\" already holds a \"Ferrite Setup\" in its root folder: kept as it is",
                        ferrite_formatter::macroman::lossy(&i.name)
                    );
                    app_kept = true;
                }
                None => {
                    let blk = i.alloc_block_size as u64;
                    let need = (app.data.len() as u64).div_ceil(blk)
                        + (app.rsrc.len() as u64).div_ceil(blk);
                    if need > i.free_blocks as u64 {
                        bail!(
                            "volume \"{}\" has {} free, too little for Ferrite Setup ({}): free some space on it, or pass --no-setup-app",
                            ferrite_formatter::macroman::lossy(&i.name),
                            human(i.free_blocks as u64 * blk),
                            human(need * blk)
                        );
                    }
                }
            }
        }
        i.name
    };
    let name_text = ferrite_formatter::macroman::lossy(&name);
    let (path, bs, existing, is_device) = prepare_target(&a.disk, None, a.force)?;
    if path.canonicalize().ok() == a.volume.canonicalize().ok() {
        bail!("the volume image and the disk are the same file: name a new disk image");
    }
    let part_blocks = vol_bytes.div_ceil(bs as u64);
    let driver_slot =
        ferrite_formatter::apm::driver_partition_blocks(blob.len(), bs, DEFAULT_DRIVER_SLOT_BLOCKS);
    let needed = DRIVER_START_BLOCK as u64 + driver_slot + part_blocks;
    let disk_blocks = match (a.size, existing, is_device) {
        (Some(s), Some(have), true) if s / bs as u64 != have / bs as u64 => {
            bail!(
                "--size {}: a device is always used whole ({}): leave --size out",
                human(s),
                human(have)
            )
        }
        (Some(s), _, _) => s / bs as u64,
        (None, Some(have), true) => have / bs as u64,
        _ => needed,
    };
    if disk_blocks < needed {
        bail!(
            "the disk is too small: the volume ({}) plus the map and driver need {}; give --size {} or more",
            human(vol_bytes),
            human(needed * bs as u64),
            human(needed * bs as u64)
        );
    }
    if part_blocks > u32::MAX as u64 || disk_blocks > u32::MAX as u64 {
        bail!("the disk is too large for a partition map");
    }
    let created = disk::Created::new(&path, existing.is_none() && !is_device);
    let mut img = create_disk(&path, disk_blocks * bs as u64, bs, is_device)?;
    let layout = Layout {
        driver: Some(&blob),
        driver_slot_blocks: DEFAULT_DRIVER_SLOT_BLOCKS,
        hfs: vec![HfsPartitionSpec {
            name: name_text.chars().take(31).collect(),
            size: PartSize::Blocks(part_blocks as u32),
        }],
    };
    let map = write_map(&mut img, &layout).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let p = map
        .hfs_partitions()
        .next()
        .expect("one HFS partition")
        .clone();
    let mut dst =
        Region::new(&mut img, p.start as u64, p.blocks as u64).map_err(|e| anyhow!("{e}"))?;
    const CHUNK: u64 = 1 << 20;
    let pb = progress(vol_bytes, "copying the volume");
    let mut buf = vec![0u8; CHUNK as usize];
    let mut off = 0u64;
    while off < vol_bytes {
        let n = CHUNK.min(vol_bytes - off) as usize;
        ferrite_formatter::device::read_bytes(&mut *src, off, &mut buf[..n])
            .map_err(|e| anyhow!("{}: {e}", a.volume.display()))?;
        // A fresh image is zero: skip zero chunks so that it stays sparse.
        if is_device || buf[..n].iter().any(|&b| b != 0) {
            ferrite_formatter::device::write_bytes(&mut dst, off, &buf[..n])
                .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        }
        off += n as u64;
        pb.set_position(off);
    }
    pb.finish_and_clear();
    dst.flush().map_err(|e| anyhow!("{e}"))?;
    let mut v =
        Volume::open(&mut dst).map_err(|e| anyhow!("the copied volume does not open: {e}"))?;
    let added = match &app {
        Some(app) if !app_kept => {
            v.set_clock(now);
            let r = v
                .add_file(cnid::ROOT, &app.new_file(&app.data))
                .and_then(|_| v.flush());
            if let Err(e) = r {
                drop(v);
                drop(img);
                if !is_device {
                    let _ = std::fs::remove_file(&path);
                }
                bail!(
                    "volume \"{name_text}\": cannot add Ferrite Setup: {e}{}; pass --no-setup-app to convert without it",
                    if is_device {
                        ""
                    } else {
                        " (the new disk was removed)"
                    }
                );
            }
            true
        }
        _ => false,
    };
    println!(
        "{}: volume \"{name_text}\" ({}) wrapped in a partition map with the Ferrite driver; disk {}",
        path.display(),
        human(vol_bytes),
        human(disk_blocks * bs as u64)
    );
    match &app {
        Some(p) if added => println!(
            "  {} ({}/{}, data {}, resource {}) added to its root folder",
            ferrite_formatter::macroman::lossy(&p.name),
            ferrite_formatter::macroman::lossy(&p.file_type),
            ferrite_formatter::macroman::lossy(&p.creator),
            human(p.data.len() as u64),
            human(p.rsrc.len() as u64)
        ),
        Some(_) => println!("  Ferrite Setup: the one already in its root folder"),
        None => println!("  no Ferrite Setup (--no-setup-app)"),
    }
    created.keep();
    Ok(())
}

/// A DiskCopy 4.2 image (84-byte header, then the data, then the tags) as a disk in memory;
/// `None` for anything else.
pub fn diskcopy42(path: &Path) -> Result<Option<MemDisk>> {
    let len = std::fs::metadata(path)?.len();
    if !(84..=(64 << 20)).contains(&len) {
        return Ok(None);
    }
    let b = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(ferrite_formatter::diskcopy::data(&b).map(|d| MemDisk::from_bytes(d.to_vec())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volume_requests() {
        assert_eq!(
            parse_volume("Data:100M").unwrap(),
            VolumeRequest {
                name: "Data".into(),
                bytes: Some(100 << 20)
            }
        );
        assert_eq!(parse_volume("Macintosh HD").unwrap().bytes, None);
        assert!(parse_volume("Data:lots").is_err());
        assert!(parse_volume("a name that is far too long for HFS").is_err());
    }

    #[test]
    fn plans_check_sizes() {
        let v = |n: &str, b: Option<u64>| VolumeRequest {
            name: n.into(),
            bytes: b,
        };
        assert!(plan(&[v("A", None)], 100_000, 512, 14_000, None).is_ok());
        assert!(
            plan(
                &[v("A", Some(10 << 20)), v("B", None)],
                100_000,
                512,
                14_000,
                None
            )
            .is_ok()
        );
        assert!(plan(&[v("A", None), v("B", None)], 100_000, 512, 14_000, None).is_err());
        assert!(plan(&[v("A", None)], 500, 512, 14_000, None).is_err());
        assert!(plan(&[v("A", Some(100 << 20))], 100_000, 512, 14_000, None).is_err());
        assert!(
            plan(&[v("A", Some(100 << 10))], 100_000, 512, 14_000, None).is_err(),
            "under 400 KiB"
        );
    }

    #[test]
    fn plans_leave_room_for_ferrite_setup() {
        let v = |n: &str, b: Option<u64>| VolumeRequest {
            name: n.into(),
            bytes: b,
        };
        let app = |rsrc: usize| Prepared {
            source: "t.bin".into(),
            name: SETUP_APP_NAME.to_vec(),
            file_type: *b"APPL",
            creator: *b"FRRT",
            finder_flags: 0x2000,
            data: Vec::new(),
            rsrc: vec![0; rsrc],
            created: 1,
            modified: 1,
            how: "MacBinary",
        };
        // A 400 KiB volume: 794 allocation blocks of 512 bytes, 2 × 8 for the trees.
        let small = [v("A", Some(400 << 10)), v("B", None)];
        assert!(plan(&small, 100_000, 512, 14_000, Some(&app(778 * 512))).is_ok());
        let err = plan(&small, 100_000, 512, 14_000, Some(&app(778 * 512 + 1)))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"A\"") && err.contains("--no-setup-app"),
            "{err}"
        );
    }
}
