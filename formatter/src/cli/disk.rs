//! Disks on the command line: opening images and devices with the right block size, the
//! BlueSCSI/ZuluSCSI file names, `DISK[:VOLUME][/PATH]` targets, choosing a volume, and the
//! driver blob to install.

use anyhow::{Context, Result, anyhow, bail};
use ferrite_formatter::apm::{self, PartitionMap};
use ferrite_formatter::hfs::{HFS_SIGNATURE, Volume};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region};
use ferrite_shared::driver_blob::{Settings, TransferMode};
use std::path::{Path, PathBuf};

/// The driver built into this binary (empty when it was built before `cargo xtask build`).
pub static EMBEDDED_DRIVER: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/ferrite-driver.bin"));

/// The driver blob to install: `--driver FILE` or the embedded one.
pub fn driver_blob(file: Option<&Path>) -> Result<Vec<u8>> {
    match file {
        Some(p) => {
            let b = std::fs::read(p)
                .with_context(|| format!("cannot read the driver {}", p.display()))?;
            if b.is_empty() {
                bail!("the driver {} is empty", p.display());
            }
            if b.len() > ferrite_formatter::apm::MAX_DRIVER_BYTES {
                bail!(
                    "the driver {} is {} bytes; a partition map driver can be at most {} \
                     (pmBootSize is summed as a 16-bit count): use a smaller driver",
                    p.display(),
                    b.len(),
                    ferrite_formatter::apm::MAX_DRIVER_BYTES
                );
            }
            Ok(b)
        }
        None if EMBEDDED_DRIVER.is_empty() => bail!(
            "this ferrite was built without the driver: run `cargo xtask build` first (it writes \
             target/m68k/ferrite-driver.bin), then rebuild ferrite; or pass --driver FILE"
        ),
        None => Ok(EMBEDDED_DRIVER.to_vec()),
    }
}

/// The driver settings given on the command line (`None`: keep the blob's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DriverOptions {
    /// `--write-cache on|off`.
    pub write_cache: Option<bool>,
    /// `--transfer-mode auto|blind|polled`.
    pub transfer: Option<TransferMode>,
    /// `--max-blocks N`: most blocks per command on the original SCSI Manager (0 = no cap).
    pub max_blocks: Option<u16>,
    /// `--idle-flush TICKS`: ticks of write idleness before the driver flushes the drive's
    /// cache (0 = never).
    pub idle_flush: Option<u16>,
}

impl DriverOptions {
    fn is_empty(&self) -> bool {
        *self == DriverOptions::default()
    }
}

/// Apply the driver options to a driver blob (only a Ferrite driver has the settings; the
/// transfer settings need one with a version-2 settings block).
pub fn apply_settings(blob: &mut [u8], o: &DriverOptions) -> Result<()> {
    if o.is_empty() {
        return Ok(());
    }
    let mut s = Settings::read(blob).map_err(|e| {
        anyhow!(
            "--write-cache, --transfer-mode, --max-blocks and --idle-flush need a Ferrite \
             driver, and this driver's settings block cannot be read ({e}); leave the options \
             out"
        )
    })?;
    if let Some(on) = o.write_cache {
        s.write_cache = on;
    }
    if let Some(t) = o.transfer {
        s.transfer = t;
    }
    if let Some(n) = o.max_blocks {
        s.max_blocks_old = n;
    }
    if let Some(t) = o.idle_flush {
        s.idle_flush_ticks = t;
    }
    s.write(blob).map_err(|e| {
        anyhow!("cannot write the driver settings: {e}; use a newer driver or leave --transfer-mode, --max-blocks and --idle-flush out")
    })
}

/// The settings `ferrite info` and `install-driver` show.
pub fn describe_settings(s: &Settings) -> String {
    let mut out = format!(
        "write cache {}, transfer mode {}, ",
        if s.write_cache { "on" } else { "off" },
        s.transfer.name()
    );
    if s.max_blocks_old == 0 {
        out.push_str("no cap on blocks per command (original SCSI Manager)");
    } else {
        out.push_str(&format!(
            "at most {} blocks per command (original SCSI Manager)",
            s.max_blocks_old
        ));
    }
    if s.write_cache {
        if s.idle_flush_ticks == 0 {
            out.push_str(", no idle flush (the cache is flushed at shutdown and eject only)");
        } else {
            out.push_str(&format!(
                ", cache flushed after {} ticks ({:.2} s) without writes",
                s.idle_flush_ticks,
                f64::from(s.idle_flush_ticks) / 60.15
            ));
        }
    }
    if s.read_ahead != 0 {
        out.push_str(&format!(", read-ahead {} blocks", s.read_ahead));
    }
    out
}

/// The (SCSI ID, block size) in a BlueSCSI/ZuluSCSI image name: `HD<id>[<lun>][_<bs>][...].hda`
/// (also CD, FD, MO, RE, TP prefixes for the ID).
pub fn scsi_name_info(path: &Path) -> (Option<u8>, Option<u32>) {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return (None, None);
    };
    let b = name.as_bytes();
    if b.len() < 3
        || !b[0].is_ascii_alphabetic()
        || !b[1].is_ascii_alphabetic()
        || !b[2].is_ascii_digit()
    {
        return (None, None);
    }
    let id = b[2] - b'0';
    let id = (id <= 7).then_some(id);
    let bs = name.split('_').nth(1).and_then(|rest| {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse::<u32>().ok()
    });
    let bs = bs.filter(|b| [512, 1024, 2048, 4096].contains(b));
    (id, bs)
}

/// `HD<id>0_<bs>.hda` in `dir` with the first SCSI ID (0..=6) no image there uses.
pub fn default_disk_path(dir: &Path, block_size: u32) -> Result<PathBuf> {
    let mut used = [false; 8];
    for e in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let e = e?;
        let p = e.path();
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_ascii_uppercase();
        let known = ["HD", "CD", "FD", "MO", "RE", "TP"]
            .iter()
            .any(|k| name.starts_with(k));
        if let (true, (Some(id), _)) = (known, scsi_name_info(&p)) {
            used[id as usize] = true;
        }
    }
    match (0..7u8).find(|&i| !used[i as usize]) {
        Some(id) => Ok(dir.join(format!("HD{id}0_{block_size}.hda"))),
        None => bail!(
            "{} already has images for SCSI IDs 0-6 (ID 7 is the Mac): name the image file yourself",
            dir.display()
        ),
    }
}

/// What the first blocks of an existing disk hold.
#[derive(Debug, Default)]
pub struct Contents {
    pub map: bool,
    pub hfs: bool,
    pub hfs_plus: bool,
    /// `sbBlkSize` when block 0 is a driver descriptor map.
    pub ddm_block_size: Option<u32>,
}

impl Contents {
    pub fn anything(&self) -> bool {
        self.map || self.hfs || self.hfs_plus
    }
}

/// Look at the first 2 KiB of `path` (regular file or device).
pub fn sniff(path: &Path) -> Result<Contents> {
    use std::io::Read;
    let mut f =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut b = vec![0u8; 2048];
    let mut got = 0;
    while got < b.len() {
        match f.read(&mut b[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }
    b.truncate(got);
    let be16 = |o: usize| b.get(o..o + 2).map(|s| u16::from_be_bytes([s[0], s[1]]));
    let mut c = Contents::default();
    if be16(0) == Some(0x4552) {
        let bs = be16(2).unwrap_or(0) as u32;
        c.ddm_block_size = (bs >= 512 && bs.is_multiple_of(512)).then_some(bs);
        c.map = true;
    }
    let pm = be16(512);
    if pm == Some(0x504D)
        || pm == Some(0x5453)
        || c.ddm_block_size
            .is_some_and(|bs| be16(bs as usize) == Some(0x504D))
    {
        c.map = true;
    }
    c.hfs = be16(1024) == Some(HFS_SIGNATURE);
    c.hfs_plus = be16(1024) == Some(0x482B) || be16(1024) == Some(0x4858);
    Ok(c)
}

/// Bytes [`first_data`] reads at each end of a disk.
pub const DATA_PROBE_BYTES: u64 = 1 << 20;

/// The offset of the first non-zero byte in the first and last MiB of `path` (where
/// partition tables, boot sectors, volume headers and their backups live), or `None` when
/// both are zero: what `init` and `convert` take as a disk holding data.
pub fn first_data(path: &Path) -> Result<Option<u64>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let len = f
        .seek(SeekFrom::End(0))
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut spans = vec![(0, len.min(DATA_PROBE_BYTES))];
    if len > DATA_PROBE_BYTES {
        let at = (len - DATA_PROBE_BYTES).max(DATA_PROBE_BYTES);
        spans.push((at, len - at));
    }
    let mut buf = vec![0u8; DATA_PROBE_BYTES as usize];
    for (at, n) in spans {
        let b = &mut buf[..n as usize];
        f.seek(SeekFrom::Start(at))
            .and_then(|_| f.read_exact(b))
            .with_context(|| format!("cannot read {}", path.display()))?;
        if let Some(i) = b.iter().position(|&x| x != 0) {
            return Ok(Some(at + i as u64));
        }
    }
    Ok(None)
}

/// A disk image file this run created: removed again unless [`Created::keep`] is called, so
/// that a command failing halfway leaves no half-made disk behind.
pub struct Created(Option<PathBuf>);

impl Created {
    pub fn new(path: &Path, new_file: bool) -> Self {
        Created(new_file.then(|| path.to_path_buf()))
    }
    pub fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for Created {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Open an existing disk with its block size (from block 0's `sbBlkSize`, else the file
/// name, else 512).
pub fn open_disk(path: &Path, write: bool) -> Result<ImageFile> {
    if !path.exists() {
        bail!(
            "{}: no such disk image or device (make one with `ferrite init {}`)",
            path.display(),
            path.display()
        );
    }
    if path.is_dir() {
        bail!(
            "{} is a directory: name the disk image inside it",
            path.display()
        );
    }
    let c = sniff(path)?;
    let bs = c.ddm_block_size.or(scsi_name_info(path).1).unwrap_or(512);
    let img = ImageFile::open_with(path, write, bs).with_context(|| {
        format!(
            "cannot open {}{}",
            path.display(),
            if write { " for writing" } else { "" }
        )
    })?;
    Ok(img)
}

/// One HFS volume on a disk.
#[derive(Debug, Clone)]
pub struct VolumeSlot {
    /// 1-based number among the disk's HFS volumes.
    pub number: usize,
    /// First block and length in device blocks.
    pub start: u64,
    pub blocks: u64,
    /// The partition name (or "" for a bare volume).
    pub partition_name: String,
}

/// The HFS volumes of a disk: its `Apple_HFS` partitions, or the whole disk when it is a bare
/// HFS volume without a map.
pub fn volume_slots(img: &mut ImageFile) -> Result<(Option<PartitionMap>, Vec<VolumeSlot>)> {
    let mut b = [0u8; 2048];
    let readable = ferrite_formatter::device::read_bytes(img, 0, &mut b).is_ok();
    let has_ddm = readable && b[0..2] == [0x45, 0x52];
    if !has_ddm && readable && u16::from_be_bytes([b[1024], b[1025]]) == HFS_SIGNATURE {
        let blocks = img.block_count();
        return Ok((
            None,
            vec![VolumeSlot {
                number: 1,
                start: 0,
                blocks,
                partition_name: String::new(),
            }],
        ));
    }
    if !has_ddm {
        bail!("no partition map and no HFS volume on this disk: make one with `ferrite init`");
    }
    let map = apm::read_map(img)
        .map_err(|e| anyhow!("{e} (see `ferrite check`; `ferrite init --force` starts over)"))?;
    let slots = map
        .hfs_partitions()
        .enumerate()
        .map(|(i, p)| VolumeSlot {
            number: i + 1,
            start: p.start as u64,
            blocks: p.blocks as u64,
            partition_name: p.name.clone(),
        })
        .collect();
    Ok((Some(map), slots))
}

/// A parsed `DISK[:VOLUME][/PATH]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub disk: PathBuf,
    pub volume: Option<String>,
    pub path: Vec<String>,
}

/// Split `DISK[:VOLUME][/PATH]`: DISK is the longest prefix before a ':' that exists.
pub fn parse_target(text: &str) -> Result<Target> {
    if Path::new(text).exists() {
        return Ok(Target {
            disk: text.into(),
            volume: None,
            path: Vec::new(),
        });
    }
    let colons: Vec<usize> = text.match_indices(':').map(|(i, _)| i).collect();
    for &i in colons.iter().rev() {
        let disk = &text[..i];
        if !disk.is_empty() && Path::new(disk).exists() {
            let rest = &text[i + 1..];
            let (vol, path) = match rest.split_once('/') {
                Some((v, p)) => (v, p),
                None => (rest, ""),
            };
            return Ok(Target {
                disk: disk.into(),
                volume: (!vol.is_empty()).then(|| vol.to_string()),
                path: path
                    .split('/')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            });
        }
    }
    let disk = colons.first().map_or(text, |&i| &text[..i]);
    bail!("{disk}: no such disk image or device (make one with `ferrite init {disk}`)")
}

/// Choose a volume by name (case-insensitive) or number; `None` = the first.
pub fn choose_volume<'a>(
    slots: &'a [VolumeSlot],
    names: &[String],
    want: Option<&str>,
) -> Result<&'a VolumeSlot> {
    let list = || {
        slots
            .iter()
            .zip(names)
            .map(|(s, n)| format!("{} \"{n}\"", s.number))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if slots.is_empty() {
        bail!(
            "this disk has no HFS volume (add one with `ferrite init --force`, which erases the disk)"
        );
    }
    let Some(w) = want else { return Ok(&slots[0]) };
    if let Some(i) = slots
        .iter()
        .zip(names)
        .position(|(_, n)| n.eq_ignore_ascii_case(w))
    {
        return Ok(&slots[i]);
    }
    if let Ok(n) = w.parse::<usize>()
        && let Some(s) = slots.iter().find(|s| s.number == n)
    {
        return Ok(s);
    }
    bail!(
        "no volume \"{w}\" on this disk; its volumes are: {}",
        list()
    )
}

/// The volume names (from each MDB; the partition name when the volume cannot be read).
pub fn volume_names(img: &mut ImageFile, slots: &[VolumeSlot]) -> Vec<String> {
    slots
        .iter()
        .map(|s| {
            match Region::new(&mut *img, s.start, s.blocks)
                .map_err(|e| e.to_string())
                .and_then(|r| {
                    let mut b = [0u8; 512];
                    let mut r = r;
                    ferrite_formatter::device::read_bytes(&mut r, 1024, &mut b)
                        .map_err(|e| e.to_string())?;
                    let n = (b[0x24] as usize).min(27);
                    Ok(ferrite_formatter::macroman::lossy(&b[0x25..0x25 + n]))
                }) {
                Ok(n) if !n.is_empty() => n,
                _ => s.partition_name.clone(),
            }
        })
        .collect()
}

/// Open volume `slot` on `img`.
pub fn open_volume<'a>(
    img: &'a mut ImageFile,
    slot: &VolumeSlot,
) -> Result<Volume<Region<&'a mut ImageFile>>> {
    let r = Region::new(img, slot.start, slot.blocks).map_err(|e| anyhow!("{e}"))?;
    Volume::open(r).map_err(|e| anyhow!("volume {}: {e} (see `ferrite check`)", slot.number))
}

/// Text to a Mac name (printable ASCII; ':' is not allowed).
pub fn mac_name(text: &str, max: usize, what: &str) -> Result<Vec<u8>> {
    let b = ferrite_formatter::macroman::from_ascii(text).ok_or_else(|| {
        anyhow!("{what} {text:?} has characters other than printable ASCII: rename it")
    })?;
    if b.is_empty() {
        bail!("{what} is empty");
    }
    if b.len() > max {
        bail!(
            "{what} {text:?} is {} bytes long; HFS allows {max}: shorten it",
            b.len()
        );
    }
    if b.contains(&b':') {
        bail!("{what} {text:?} contains ':', which the Mac uses to separate folders: rename it");
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scsi_names() {
        assert_eq!(
            scsi_name_info(Path::new("x/HD00_512.hda")),
            (Some(0), Some(512))
        );
        assert_eq!(
            scsi_name_info(Path::new("HD30_2048 Mac.hda")),
            (Some(3), Some(2048))
        );
        assert_eq!(scsi_name_info(Path::new("HD5.hda")), (Some(5), None));
        assert_eq!(scsi_name_info(Path::new("disk.img")), (None, None));
        assert_eq!(scsi_name_info(Path::new("HD10_999.hda")), (Some(1), None));
    }
}
