//! `ferrite install-driver`: put the driver into an existing disk's driver partition (growing
//! it into free space after it when needed, or making one out of an `Apple_Free` partition),
//! point the driver descriptor map at it, and leave every volume alone.

use super::disk::{self, DriverOptions, apply_settings, describe_settings, driver_blob};
use super::human;
use anyhow::{Result, anyhow, bail};
use ferrite_formatter::apm::{self, DEFAULT_DRIVER_SLOT_BLOCKS, MAX_DRIVER_BYTES};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, DeviceError};
use ferrite_shared::driver_blob::{SETTINGS_VERSION, Settings, TransferMode};
use ferrite_shared::partition_map::{
    DriverDescriptorMap, MAX_DRIVER_DESCRIPTORS, PartitionEntry, SCSI_DRIVER_PAD_SIGNATURE,
    boot_checksum, dd_type, part_type, set_c_field, status,
};
use std::path::Path;
use zerocopy::IntoBytes;

fn entry_end(e: &PartitionEntry) -> u64 {
    e.start.get() as u64 + e.block_count.get() as u64
}

pub fn install_driver(path: &Path, options: &DriverOptions, driver: Option<&Path>) -> Result<()> {
    let mut blob = driver_blob(driver)?;
    if blob.len() > MAX_DRIVER_BYTES {
        bail!(
            "the driver is {} bytes; a partition map driver can be at most {MAX_DRIVER_BYTES}",
            blob.len()
        );
    }
    let mut img = disk::open_disk(path, true)?;
    let c = disk::sniff(path)?;
    if !c.map {
        bail!(
            "{} has no partition map{}: a driver lives in a partition map (`ferrite convert` wraps a bare volume in one)",
            path.display(),
            if c.hfs {
                " (it is a bare HFS volume)"
            } else {
                ""
            }
        );
    }
    let map = read_map_for_replacing(&mut img)
        .map_err(|e| anyhow!("{}: {e} (see `ferrite check`)", path.display()))?;
    let bs = map.block_size as u64;

    // The driver partition to use: the one a Mac SCSI descriptor names, else any
    // Apple_Driver43/Apple_Driver partition.
    let by_ddm = map
        .ddm
        .descriptors()
        .iter()
        .filter(|d| d.kind.get() == dd_type::MAC_SCSI)
        .find_map(|d| {
            map.partitions
                .iter()
                .position(|p| p.start == d.block.get() && p.entry.is_driver())
        });
    let by_type = || {
        map.partitions
            .iter()
            .position(|p| p.kind == part_type::DRIVER43)
            .or_else(|| {
                map.partitions
                    .iter()
                    .position(|p| p.kind == part_type::DRIVER)
            })
    };
    let old = by_ddm.or_else(by_type);

    // Keep the installed Ferrite driver's settings unless told otherwise.
    if let Some(i) = old {
        let p = &map.partitions[i];
        let n = p.entry.boot_size.get() as usize;
        if n > 0 && n as u64 <= p.blocks as u64 * bs {
            let mut b = vec![0u8; (n as u64).div_ceil(bs) as usize * bs as usize];
            img.read_blocks(p.start as u64, &mut b)
                .map_err(|e| anyhow!("{e}"))?;
            if let (Ok(s), Ok(mut new)) = (Settings::read(&b[..n]), Settings::read(&blob)) {
                new.write_cache = s.write_cache;
                new.read_ahead = s.read_ahead;
                // A version-1 block has no transfer settings: the new driver's defaults.
                if Settings::version(&b[..n]) == Ok(SETTINGS_VERSION) {
                    new.transfer = s.transfer;
                    new.max_blocks_old = s.max_blocks_old;
                }
                // The idle flush is the new driver's: drivers made before it existed hold 0
                // there, which would turn it off (`--idle-flush` sets it).
                // Into an older driver (`--driver FILE`) only what it has room for.
                if new.write(&mut blob).is_err() {
                    let mut old_kind = new;
                    old_kind.transfer = TransferMode::Auto;
                    old_kind.max_blocks_old = 0;
                    old_kind.idle_flush_ticks = 0;
                    old_kind.write(&mut blob).map_err(|e| anyhow!("{e}"))?;
                }
            }
        }
    }
    apply_settings(&mut blob, options)?;

    let need = (blob.len() as u64).div_ceil(bs);
    let mut entries: Vec<PartitionEntry> = map.partitions.iter().map(|p| p.entry).collect();
    let map_capacity = map
        .partitions
        .iter()
        .find(|p| p.kind == part_type::PARTITION_MAP)
        .map_or(0, |p| p.blocks as usize);
    let drv_index = match old {
        Some(i) => {
            let have = entries[i].block_count.get() as u64;
            if have < need {
                grow(&mut entries, i, need, map.disk_blocks as u64, map_capacity)?;
            }
            i
        }
        // Room to grow later when the free space allows it.
        None => take_free(
            &mut entries,
            need.max(DEFAULT_DRIVER_SLOT_BLOCKS as u64),
            map_capacity,
        )
        .or_else(|| take_free(&mut entries, need, map_capacity))
        .ok_or_else(|| {
            anyhow!(
                "{} has no driver partition and no free space of {} for one: back up the volumes and run `ferrite init --force`",
                path.display(),
                human(need * bs)
            )
        })?,
    };
    let count = entries.len() as u32;
    let was = entries[drv_index];
    {
        let e = &mut entries[drv_index];
        set_c_field(&mut e.name, "Macintosh");
        set_c_field(&mut e.kind, part_type::DRIVER43);
        e.data_start.set(0);
        e.data_count.set(e.block_count.get());
        e.status.set(status::DRIVER_PARTITION);
        e.boot_start.set(0);
        e.boot_size.set(blob.len() as u32);
        e.boot_addr.set(0);
        e.boot_entry.set(0);
        e.boot_checksum.set(boot_checksum(&blob) as u32);
        set_c_field(&mut e.processor, "68000");
        e.pad.fill(0);
        e.pad[..4].copy_from_slice(&SCSI_DRIVER_PAD_SIGNATURE.to_be_bytes());
    }
    let start = entries[drv_index].start.get();
    let slot = entries[drv_index].block_count.get() as u64;

    // Block 0: our driver first, then the descriptors of other kinds (ATA...) that still
    // point at a driver partition; other Mac SCSI drivers are dropped so that the ROM loads ours.
    let mut b0 = vec![0u8; bs as usize];
    img.read_blocks(0, &mut b0).map_err(|e| anyhow!("{e}"))?;
    let mut ddm = DriverDescriptorMap::read(&b0).expect("512+ bytes");
    let mut keep: Vec<_> = map
        .ddm
        .descriptors()
        .iter()
        .filter(|d| d.kind.get() != dd_type::MAC_SCSI && d.block.get() != start)
        .copied()
        .collect();
    keep.truncate(MAX_DRIVER_DESCRIPTORS - 1);
    let mut ours = ddm.drivers[0];
    ours.block.set(start);
    ours.size.set(blob.len().div_ceil(512) as u16);
    ours.kind.set(dd_type::MAC_SCSI);
    ddm.drivers
        .iter_mut()
        .for_each(|d| *d = zerocopy::FromZeros::new_zeroed());
    ddm.drivers[0] = ours;
    for (i, d) in keep.iter().enumerate() {
        ddm.drivers[i + 1] = *d;
    }
    ddm.driver_count.set(1 + keep.len() as u16);

    // Write the driver first, then the map entries, then block 0.
    let mut img_bytes = vec![0u8; slot as usize * bs as usize];
    img_bytes[..blob.len()].copy_from_slice(&blob);
    img.write_blocks(start as u64, &img_bytes)
        .map_err(|e| anyhow!("{e}"))?;
    let mut blk = vec![0u8; bs as usize];
    let old_count = map.partitions.len() as u32;
    for b in 1..=count.max(old_count) {
        blk.fill(0);
        if let Some(e) = entries.get(b as usize - 1) {
            let mut e = *e;
            e.map_block_count.set(count);
            blk[..512].copy_from_slice(e.as_bytes());
        }
        img.write_blocks(b as u64, &blk)
            .map_err(|e| anyhow!("{e}"))?;
    }
    b0[..512].copy_from_slice(ddm.as_bytes());
    img.write_blocks(0, &b0).map_err(|e| anyhow!("{e}"))?;
    img.flush().map_err(|e| anyhow!("{e}"))?;
    let check =
        apm::read_map(&mut img).map_err(|e| anyhow!("the map written does not read back: {e}"))?;
    let p = check
        .partitions
        .iter()
        .find(|p| p.start == start)
        .expect("driver partition");
    println!(
        "{}: Ferrite driver ({} bytes) installed in partition {} at block {start}, {} blocks{}",
        path.display(),
        blob.len(),
        p.map_block,
        p.blocks,
        if was.is_driver() {
            format!(
                " (was \"{}\" {})",
                String::from_utf8_lossy(was.name_bytes()),
                String::from_utf8_lossy(was.type_bytes())
            )
        } else {
            " (new partition)".into()
        }
    );
    if let Ok(s) = Settings::read(&blob) {
        println!("driver settings: {}", describe_settings(&s));
    }
    Ok(())
}

/// Read the map as [`apm::read_map`] does, except that a driver whose checksum is wrong (a
/// damaged driver, about to be replaced) is accepted: the check runs over a copy of its entry
/// holding the checksum the driver has, in memory only.
fn read_map_for_replacing(img: &mut ImageFile) -> Result<apm::PartitionMap, apm::ApmError> {
    use ferrite_shared::partition_map::MapError;
    /// `pmBootCksum`'s offset in an entry.
    const PM_BOOT_CKSUM: usize = 116;
    let mut patches: Vec<(u64, Vec<u8>)> = Vec::new();
    loop {
        let mut view = Patched {
            dev: &mut *img,
            patches: &patches,
        };
        match apm::read_map(&mut view) {
            Err(apm::ApmError::Map(MapError::DriverChecksum {
                block, computed, ..
            })) if patches.len() < 64 && !patches.iter().any(|(b, _)| *b == block as u64) => {
                let mut b = vec![0u8; img.block_size() as usize];
                img.read_blocks(block as u64, &mut b)?;
                b[PM_BOOT_CKSUM..PM_BOOT_CKSUM + 4]
                    .copy_from_slice(&(computed as u32).to_be_bytes());
                patches.push((block as u64, b));
            }
            r => return r,
        }
    }
}

/// A device with some blocks replaced in memory (reads only).
struct Patched<'a> {
    dev: &'a mut ImageFile,
    patches: &'a [(u64, Vec<u8>)],
}

impl BlockDevice for Patched<'_> {
    fn block_size(&self) -> u32 {
        self.dev.block_size()
    }
    fn block_count(&self) -> u64 {
        self.dev.block_count()
    }
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        self.dev.read_blocks(block, buf)?;
        let bs = self.block_size() as u64;
        for (b, data) in self.patches {
            if (block..block + buf.len() as u64 / bs).contains(b) {
                let at = ((b - block) * bs) as usize;
                buf[at..at + bs as usize].copy_from_slice(data);
            }
        }
        Ok(())
    }
    fn write_blocks(&mut self, _block: u64, _buf: &[u8]) -> Result<(), DeviceError> {
        Err(DeviceError::Io("read-only view".into()))
    }
}

/// Grow entry `i` to `need` blocks into the space right after it: an `Apple_Free` partition
/// or space no entry covers.
fn grow(
    entries: &mut Vec<PartitionEntry>,
    i: usize,
    need: u64,
    disk_blocks: u64,
    map_capacity: usize,
) -> Result<()> {
    let _ = map_capacity;
    let end = entry_end(&entries[i]);
    let extra = need - entries[i].block_count.get() as u64;
    let next = entries
        .iter()
        .enumerate()
        .filter(|(j, e)| *j != i && e.start.get() as u64 >= end)
        .min_by_key(|(_, e)| e.start.get());
    let gap = next.map_or(disk_blocks, |(_, e)| e.start.get() as u64) - end;
    if gap >= extra {
        entries[i].block_count.set(need as u32);
        return Ok(());
    }
    if let Some((j, e)) = next
        && e.type_bytes() == part_type::FREE.as_bytes()
        && gap + e.block_count.get() as u64 >= extra
    {
        let take = extra - gap;
        let left = e.block_count.get() as u64 - take;
        entries[i].block_count.set(need as u32);
        if left == 0 {
            entries.remove(j);
        } else {
            let f = &mut entries[j];
            f.start.set((f.start.get() as u64 + take) as u32);
            f.block_count.set(left as u32);
            f.data_count.set(left as u32);
        }
        return Ok(());
    }
    let what = next.map_or("the end of the disk".to_string(), |(_, e)| {
        format!(
            "partition \"{}\" ({})",
            String::from_utf8_lossy(e.name_bytes()),
            String::from_utf8_lossy(e.type_bytes())
        )
    });
    bail!(
        "the driver needs {need} blocks but its partition has {} and {what} follows it: there is no room to grow it. \
         Back up the volumes and run `ferrite init --force`, or install a smaller driver",
        entries[i].block_count.get()
    )
}

/// Carve a driver partition of `need` blocks out of the first `Apple_Free` partition that
/// holds it (adding a map entry when something is left over). Returns its index.
fn take_free(entries: &mut Vec<PartitionEntry>, need: u64, map_capacity: usize) -> Option<usize> {
    let j = entries.iter().position(|e| {
        e.type_bytes() == part_type::FREE.as_bytes() && e.block_count.get() as u64 >= need
    })?;
    let left = entries[j].block_count.get() as u64 - need;
    if left > 0 {
        if entries.len() + 1 > map_capacity {
            return None;
        }
        let mut rest = entries[j];
        rest.start.set((rest.start.get() as u64 + need) as u32);
        rest.block_count.set(left as u32);
        rest.data_count.set(left as u32);
        entries.insert(j + 1, rest);
    }
    entries[j].block_count.set(need as u32);
    Some(j)
}
