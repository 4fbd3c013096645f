//! `ferrite extract`: copy one HFS volume out of a partitioned disk into a bare volume image,
//! the kind emulators without SCSI mount (Mini vMac; Basilisk II and SheepShaver take either).

use super::disk::{self, choose_volume, open_disk, parse_target, volume_names, volume_slots};
use super::{human, progress};
use anyhow::{Context, Result, anyhow, bail};
use ferrite_formatter::hfs::Volume;
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region};
use std::path::Path;

pub fn extract(target: &str, out: &Path, force: bool) -> Result<()> {
    let t = parse_target(target)?;
    if !t.path.is_empty() {
        bail!(
            "{target}: extract copies a whole volume: name the disk and the volume (DISK or DISK:VOLUME), not a folder"
        );
    }
    let mut img = open_disk(&t.disk, false)?;
    let (map, slots) = volume_slots(&mut img)?;
    if map.is_none() {
        bail!(
            "{} is already a bare HFS volume (no partition map): use the file as it is",
            t.disk.display()
        );
    }
    let names = volume_names(&mut img, &slots);
    let slot = choose_volume(&slots, &names, t.volume.as_deref())?.clone();
    let name = &names[slot.number - 1];
    if out.is_dir() {
        bail!(
            "{} is a folder: name the volume image to write, e.g. {}",
            out.display(),
            out.join(format!("{name}.dsk")).display()
        );
    }
    if out.exists() {
        if out.canonicalize().ok() == t.disk.canonicalize().ok() {
            bail!("the volume image and the disk are the same file: name a new file");
        }
        if !force {
            bail!(
                "{} already exists: add --force to overwrite it, or choose another name",
                out.display()
            );
        }
    }
    // A volume that does not open would be copied to no use: refuse before creating OUT.
    disk::open_volume(&mut img, &slot).map_err(|e| {
        anyhow!(
            "{e}: nothing was written; `ferrite check {}` tells more",
            t.disk.display()
        )
    })?;
    let bs = img.block_size() as u64;
    let bytes = slot.blocks * bs;
    let created = disk::Created::new(out, !out.exists());
    let mut dst = ImageFile::create(out, bytes)
        .with_context(|| format!("cannot create {}", out.display()))?;
    let mut src = Region::new(&mut img, slot.start, slot.blocks).map_err(|e| anyhow!("{e}"))?;
    const CHUNK: u64 = 1 << 20;
    let pb = progress(bytes, "copying the volume");
    let mut buf = vec![0u8; CHUNK as usize];
    let mut off = 0u64;
    while off < bytes {
        let n = CHUNK.min(bytes - off) as usize;
        ferrite_formatter::device::read_bytes(&mut src, off, &mut buf[..n])
            .map_err(|e| anyhow!("{}: {e}", t.disk.display()))?;
        // The new file is zero: skip zero chunks so that it stays sparse.
        if buf[..n].iter().any(|&b| b != 0) {
            ferrite_formatter::device::write_bytes(&mut dst, off, &buf[..n])
                .map_err(|e| anyhow!("{}: {e}", out.display()))?;
        }
        off += n as u64;
        pb.set_position(off);
    }
    pb.finish_and_clear();
    dst.flush().map_err(|e| anyhow!("{e}"))?;
    Volume::open(&mut dst).map_err(|e| {
        anyhow!(
            "{}: the copied volume does not open ({e}); see `ferrite check {}`",
            out.display(),
            t.disk.display()
        )
    })?;
    println!(
        "{}: volume {} \"{name}\" ({}) of {}, as a bare HFS volume image",
        out.display(),
        slot.number,
        human(bytes),
        t.disk.display()
    );
    created.keep();
    Ok(())
}
