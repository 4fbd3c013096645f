//! `ferrite info`, `ferrite ls`, `ferrite check`.

use super::disk::{self, VolumeSlot};
use super::human;
use anyhow::{Result, anyhow, bail};
use ferrite_formatter::apm::{self, PartitionMap};
use ferrite_formatter::hfs::{DirEntry, EntryKind, check_volume};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region};
use ferrite_shared::driver_blob::Settings;
use ferrite_shared::partition_map::boot_checksum;
use std::path::Path;

/// A description of the driver in a driver partition.
pub fn describe_driver(img: &mut ImageFile, map: &PartitionMap, p: &apm::PartitionInfo) -> String {
    let bs = map.block_size as u64;
    let size = p.entry.boot_size.get() as usize;
    let mut bytes = vec![0u8; (size as u64).div_ceil(bs) as usize * bs as usize];
    if size == 0 || img.read_blocks(p.start as u64, &mut bytes).is_err() {
        return format!("\"{}\" ({}), {} bytes", p.name, p.kind, size);
    }
    bytes.truncate(size);
    let sum_ok = boot_checksum(&bytes) as u32 == p.entry.boot_checksum.get();
    let who = match Settings::read(&bytes) {
        Ok(s) => format!("Ferrite driver, {}", super::disk::describe_settings(&s)),
        Err(_) => "not a Ferrite driver".into(),
    };
    format!(
        "\"{}\" ({}), {} bytes, checksum {}; {who}",
        p.name,
        p.kind,
        size,
        if sum_ok { "good" } else { "WRONG" }
    )
}

pub fn info(path: &Path) -> Result<()> {
    let mut img = disk::open_disk(path, false)?;
    let bs = img.block_size();
    println!(
        "{}: {} ({} blocks of {bs} bytes)",
        path.display(),
        human(img.size_bytes()),
        img.block_count()
    );
    let (map, slots) = disk::volume_slots(&mut img)?;
    match &map {
        None => println!("no partition map: a bare HFS volume"),
        Some(map) => {
            println!("partition map ({} entries):", map.partitions.len());
            println!(
                "  {:>2}  {:<24} {:<24} {:>10} {:>10} {:>10}",
                "#", "type", "name", "start", "blocks", "size"
            );
            for p in &map.partitions {
                println!(
                    "  {:>2}  {:<24} {:<24} {:>10} {:>10} {:>10}",
                    p.map_block,
                    p.kind,
                    format!("\"{}\"", p.name),
                    p.start,
                    p.blocks,
                    human(p.blocks as u64 * bs as u64)
                );
            }
            let descriptors = map.ddm.descriptors();
            if descriptors.is_empty() {
                println!(
                    "no driver: this disk does not boot (add one with `ferrite install-driver`)"
                );
            }
            for d in descriptors {
                let at = d.block.get();
                match map
                    .partitions
                    .iter()
                    .find(|p| p.start == at && p.entry.is_driver())
                {
                    Some(p) => println!(
                        "driver (type {}): {}",
                        d.kind.get(),
                        describe_driver(&mut img, map, p)
                    ),
                    None => println!("driver (type {}) at block {at}: no partition", d.kind.get()),
                }
            }
        }
    }
    let names = disk::volume_names(&mut img, &slots);
    for (s, name) in slots.iter().zip(&names) {
        match disk::open_volume(&mut img, s) {
            Ok(mut v) => {
                let i = v.info();
                println!(
                    "volume {} \"{name}\": {}, {} free, {} files, {} folders, allocation block {} B",
                    s.number,
                    human(i.sectors * 512),
                    human(i.free_blocks as u64 * i.alloc_block_size as u64),
                    i.files,
                    i.folders,
                    i.alloc_block_size
                );
                if let Some(startup) = super::system::describe_startup(&mut v) {
                    println!("  {startup}");
                }
            }
            Err(e) => println!("volume {} \"{name}\": cannot be read: {e}", s.number),
        }
    }
    Ok(())
}

fn date(mac: u32) -> String {
    // Days since 1904-01-01 to a civil date (proleptic Gregorian).
    let secs = mac as i64 - ferrite_formatter::hfs::MAC_EPOCH_OFFSET;
    let days = secs.div_euclid(86_400);
    let (h, m) = (
        (secs.rem_euclid(86_400)) / 3600,
        (secs.rem_euclid(3600)) / 60,
    );
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (mo <= 2) as i64;
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02}")
}

fn line(prefix: &str, e: &DirEntry) -> String {
    match &e.kind {
        EntryKind::Folder { valence } => {
            format!(
                "{:<9} {:>10} {:>10}  {}  {prefix}{}/  ({valence} items)",
                "folder",
                "",
                "",
                date(e.modified),
                e.display_name()
            )
        }
        EntryKind::File {
            file_type,
            creator,
            data_len,
            rsrc_len,
            ..
        } => format!(
            "{}/{} {:>10} {:>10}  {}  {prefix}{}",
            ferrite_formatter::macroman::lossy(file_type),
            ferrite_formatter::macroman::lossy(creator),
            data_len,
            rsrc_len,
            date(e.modified),
            e.display_name()
        ),
    }
}

pub fn ls(target: &str, recursive: bool) -> Result<()> {
    let t = disk::parse_target(target)?;
    let mut img = disk::open_disk(&t.disk, false)?;
    let (_, slots) = disk::volume_slots(&mut img)?;
    let names = disk::volume_names(&mut img, &slots);
    let chosen: Vec<VolumeSlot> = match (&t.volume, slots.len()) {
        (None, n) if n > 1 && t.path.is_empty() => slots.clone(),
        _ => vec![disk::choose_volume(&slots, &names, t.volume.as_deref())?.clone()],
    };
    let many = chosen.len() > 1;
    for s in &chosen {
        let name = &names[s.number - 1];
        let vol = disk::open_volume(&mut img, s)?;
        let path: Vec<Vec<u8>> = t
            .path
            .iter()
            .map(|p| disk::mac_name(p, 31, "name"))
            .collect::<Result<_>>()?;
        let refs: Vec<&[u8]> = path.iter().map(|p| p.as_slice()).collect();
        let at = vol
            .lookup_path(&refs)
            .map_err(|e| anyhow!("volume \"{name}\": {e}"))?;
        if many {
            println!("{name}:");
        }
        if !at.is_folder() {
            println!("{}", line("", &at));
            continue;
        }
        if recursive {
            for (p, e) in vol.walk() {
                if p.len() > refs.len()
                    && p[..refs.len()]
                        .iter()
                        .zip(&refs)
                        .all(|(a, b)| a.eq_ignore_ascii_case(b))
                {
                    let prefix: String = p[refs.len()..p.len() - 1]
                        .iter()
                        .map(|c| format!("{}/", ferrite_formatter::macroman::lossy(c)))
                        .collect();
                    println!("{}", line(&prefix, &e));
                }
            }
        } else {
            let items = vol.list(at.id);
            if items.is_empty() {
                println!("(empty)");
            }
            for e in items {
                println!("{}", line("", &e));
            }
        }
    }
    Ok(())
}

pub fn check(path: &Path) -> Result<()> {
    let mut img = disk::open_disk(path, false)?;
    let mut problems = 0usize;
    if disk::sniff(path)?.ddm_block_size.is_some()
        && let Err(e) = apm::read_map(&mut img)
    {
        let hint = match &e {
            apm::ApmError::Map(ferrite_shared::partition_map::MapError::DriverChecksum {
                ..
            }) => {
                "the driver is damaged: `ferrite install-driver` writes it again (the volumes are kept)"
            }
            _ => "copy the files off if you can and start over with `ferrite init --force`",
        };
        bail!("{}: {e}; {hint}", path.display());
    }
    let (map, slots) =
        disk::volume_slots(&mut img).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if let Some(map) = &map {
        println!("partition map: valid, {} entries", map.partitions.len());
        if !map.stale_counts.is_empty() {
            println!(
                "partition map: entries {:?} still give the map's old length (an install-driver \
                 stopped before it finished; the Mac reads block 1's): `ferrite install-driver` \
                 rewrites them",
                map.stale_counts
            );
        }
        if map.ddm.descriptors().is_empty() {
            println!("driver: none (the disk will not boot; `ferrite install-driver` adds one)");
        } else {
            println!("driver: checksum valid");
        }
    }
    let names = disk::volume_names(&mut img, &slots);
    for (s, name) in slots.iter().zip(&names) {
        let r = Region::new(&mut img, s.start, s.blocks).map_err(|e| anyhow!("{e}"))?;
        match check_volume(r) {
            Ok(rep) if rep.is_clean() => {
                println!(
                    "volume {} \"{name}\": clean ({} files, {} folders)",
                    s.number, rep.files, rep.folders
                )
            }
            Ok(rep) => {
                println!(
                    "volume {} \"{name}\": {} problems",
                    s.number,
                    rep.problems.len()
                );
                for p in &rep.problems {
                    println!("  {p}");
                }
                problems += rep.problems.len();
            }
            Err(e) => {
                println!("volume {} \"{name}\": cannot be read: {e}", s.number);
                problems += 1;
            }
        }
    }
    if problems > 0 {
        bail!(
            "{problems} problems found on {} (copy the files off and re-create the volume with `ferrite init --force`)",
            path.display()
        );
    }
    println!("{}: no problems", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::date(0), "1904-01-01 00:00");
        assert_eq!(
            super::date(ferrite_formatter::hfs::mac_time_from_unix(951_782_400)),
            "2000-02-29 00:00"
        );
    }
}
