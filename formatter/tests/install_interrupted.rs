//! `ferrite install-driver` stopped at every block it writes: the disk must still hold a
//! valid partition map and boot the old driver or the new one, byte for byte, with every
//! volume untouched.
//!
//! The install runs through the same code as the command (the `cli` module, compiled in
//! here) on an in-memory disk behind [`StopAfter`], which writes one block at a time and
//! fails every write after the first `k` blocks — a power loss or a pulled cable at block
//! `k`. For each `k` from 0 to the number of blocks a full install writes, the disk is then
//! read with the formatter (`apm::read_map`: map, driver descriptor, the checksum of the
//! driver block 0 names), with the emulated Mac's ROM checks (`examine_disk`: which driver the
//! ROM would load), and every HFS volume is compared with the original and checked. A second,
//! uninterrupted `install-driver` must then finish the job.

#[path = "../src/cli/mod.rs"]
#[allow(dead_code)]
mod cli;

use cli::disk::DriverOptions;
use ferrite_emu::start_manager::{RomChecks, RomGeneration, Verdict, examine_disk};
use ferrite_formatter::apm::{self, HfsPartitionSpec, Layout, PartSize, read_map, write_map};
use ferrite_formatter::hfs::{FormatOptions, check_volume, format_volume};
use ferrite_formatter::{BlockDevice, MemDisk, Region};
use ferrite_shared::driver_blob::Settings;
use ferrite_shared::partition_map::{boot_checksum, dd_type};

mod support;
use support::{StopAfter, old_ferrite_disk};

/// The first block of the flight-record area of the driver partition block 0 names, when
/// there is one whose header names the partition.
fn record_area(d: &mut MemDisk) -> Option<u32> {
    use ferrite_shared::flight_record::{AreaHeader, area_start};
    let map = read_map(d).unwrap();
    let dd = map.ddm.descriptors()[0];
    let p = map
        .partitions
        .iter()
        .find(|p| p.start == dd.block.get())
        .unwrap();
    let at = area_start(p.start, p.blocks, p.entry.boot_size.get(), 512)?;
    let b = &d.as_bytes()[at as usize * 512..];
    AreaHeader::read(b)?.check(p.start).ok().map(|_| at)
}

/// A stand-in Ferrite driver (blob header, a version-2 settings block, code-like filler
/// from `seed`).
fn ferrite_blob(len: usize, seed: u32) -> Vec<u8> {
    let mut b: Vec<u8> = (0..len as u32)
        .map(|i| (i.wrapping_mul(13).wrapping_add(seed)) as u8)
        .collect();
    b[4..8].copy_from_slice(b"FRRT");
    b[16..48].fill(0);
    b[16..20].copy_from_slice(b"FSET");
    b[20..22].copy_from_slice(&2u16.to_be_bytes());
    b[24..28].copy_from_slice(&1u32.to_be_bytes());
    b[32..34].copy_from_slice(&128u16.to_be_bytes());
    assert!(Settings::read(&b).is_ok());
    b
}

/// Another vendor's driver: no Ferrite header.
fn vendor_blob(len: usize) -> Vec<u8> {
    (0..len as u32).map(|i| (i * 31 + 1) as u8).collect()
}

/// A disk of `blocks` blocks with `driver` in a slot of `slot` blocks and HFS volumes.
fn disk(blocks: u64, driver: &[u8], slot: u32, hfs: &[(&str, PartSize)]) -> MemDisk {
    let mut d = MemDisk::new(blocks);
    let layout = Layout {
        driver: Some(driver),
        driver_slot_blocks: slot,
        hfs: hfs
            .iter()
            .map(|(name, size)| HfsPartitionSpec {
                name: (*name).into(),
                size: *size,
            })
            .collect(),
    };
    let map = write_map(&mut d, &layout).unwrap();
    for p in map.hfs_partitions() {
        format_volume(
            &mut Region::new(&mut d, p.start as u64, p.blocks as u64).unwrap(),
            &FormatOptions::new(p.name.as_bytes(), 3_000_000_000),
        )
        .unwrap();
    }
    d
}

/// The driver block 0 names, as the formatter reads it (the map must read).
fn driver_of(d: &mut MemDisk) -> Result<Vec<u8>, String> {
    let map = read_map(d).map_err(|e| format!("map does not read: {e}"))?;
    let dd = map
        .ddm
        .descriptors()
        .iter()
        .find(|x| x.kind.get() == dd_type::MAC_SCSI)
        .copied()
        .ok_or("no Mac SCSI driver descriptor")?;
    let p = map
        .partitions
        .iter()
        .find(|p| p.start == dd.block.get() && p.entry.is_driver())
        .ok_or("the descriptor names no driver partition")?;
    let n = p.entry.boot_size.get() as usize;
    if dd.size.get() as usize != n.div_ceil(512) {
        return Err(format!("ddSize {} for {n} bytes", dd.size.get()));
    }
    let mut b = vec![0u8; n.div_ceil(512) * 512];
    d.read_blocks(p.start as u64, &mut b).unwrap();
    b.truncate(n);
    if p.entry.boot_checksum.get() != boot_checksum(&b) as u32 {
        return Err("checksum".into());
    }
    Ok(b)
}

/// The driver the emulated ROM would load (its checks, both ROM generations).
fn rom_loads(d: &MemDisk, len: usize) -> Result<Vec<u8>, String> {
    let mut out = None;
    for rom in [
        RomGeneration::OriginalScsiManager,
        RomGeneration::ScsiManager43,
    ] {
        let bytes = d.as_bytes();
        let mut read = |lba: u32, n: u32| -> Result<Vec<u8>, String> {
            let (a, b) = (lba as usize * 512, (lba + n) as usize * 512);
            bytes
                .get(a..b)
                .map(<[u8]>::to_vec)
                .ok_or("past the end".into())
        };
        match examine_disk(rom, &RomChecks::default(), &mut read) {
            Verdict::Load { driver, image } => {
                if !driver.checksum_checked {
                    return Err("the ROM would not check the checksum".into());
                }
                let img = image[..(driver.boot_size as usize).min(image.len())].to_vec();
                if out.as_ref().is_some_and(|o| *o != img) {
                    return Err("the two ROMs load different drivers".into());
                }
                out = Some(img);
            }
            Verdict::Skip(why) => return Err(format!("the ROM skips the disk: {why}")),
        }
    }
    let img = out.unwrap();
    if img.len() != len {
        return Err(format!("{} bytes loaded and checked, not {len}", img.len()));
    }
    Ok(img)
}

/// The HFS volumes' bytes (the map's Apple_HFS partitions).
fn volumes(d: &mut MemDisk) -> Vec<(u32, Vec<u8>)> {
    let map = read_map(d).unwrap();
    map.hfs_partitions()
        .map(|p| {
            let a = p.start as usize * 512;
            (
                p.start,
                d.as_bytes()[a..a + p.blocks as usize * 512].to_vec(),
            )
        })
        .collect()
}

/// Install `new` on `original`, stopping after every possible number of blocks; check
/// every state. Returns the finished disk, the number of blocks a full install writes and
/// the number of stops that left entries with the map's old length.
fn every_stop(what: &str, original: &MemDisk, new: &[u8]) -> (MemDisk, usize, usize) {
    let opts = DriverOptions::default();
    let mut probe = MemDisk::from_bytes(original.as_bytes().to_vec());
    let old = driver_of(&mut probe).expect("the original disk reads");
    let vols = volumes(&mut probe);
    assert!(!vols.is_empty());
    // The full install: how many blocks, and the driver it leaves.
    let mut done = MemDisk::from_bytes(original.as_bytes().to_vec());
    let total = {
        let mut dev = StopAfter {
            disk: &mut done,
            left: usize::MAX,
            written: 0,
        };
        cli::driver::install(&mut dev, new.to_vec(), &opts)
            .unwrap_or_else(|e| panic!("{what}: install: {e:#}"));
        dev.written
    };
    let installed = driver_of(&mut done).expect("the installed driver reads");
    assert_ne!(
        installed, old,
        "{what}: the new driver differs from the old one"
    );
    assert!(read_map(&mut done).unwrap().stale_counts.is_empty());
    let mut switched_at = None;
    let mut stale_stops = 0;
    for k in 0..=total {
        let mut d = MemDisk::from_bytes(original.as_bytes().to_vec());
        let r = {
            let mut dev = StopAfter {
                disk: &mut d,
                left: k,
                written: 0,
            };
            cli::driver::install(&mut dev, new.to_vec(), &opts)
        };
        assert_eq!(
            r.is_ok(),
            k == total,
            "{what}: stop after {k} of {total} blocks"
        );
        let now = driver_of(&mut d)
            .unwrap_or_else(|e| panic!("{what}: stopped after {k} of {total} blocks: {e}"));
        let is_new = if now == old {
            false
        } else if now == installed {
            true
        } else {
            panic!("{what}: stopped after {k} of {total} blocks: a driver that is neither")
        };
        // A stop between block 1 and the tidying: entries still giving the old length.
        // `ferrite check` accepts the disk (and says so).
        if !read_map(&mut d).unwrap().stale_counts.is_empty() {
            stale_stops += 1;
            let path = std::env::temp_dir().join(format!(
                "ferrite-stale-{}-{}.hda",
                std::process::id(),
                what.replace(' ', "-")
            ));
            std::fs::write(&path, d.as_bytes()).unwrap();
            let r = cli::info::check(&path);
            std::fs::remove_file(&path).unwrap();
            r.unwrap_or_else(|e| panic!("{what}: check after {k} blocks: {e:#}"));
        }
        let rom = rom_loads(&d, now.len())
            .unwrap_or_else(|e| panic!("{what}: stopped after {k} of {total} blocks: {e}"));
        assert!(
            rom == now,
            "{what}: after {k} blocks the ROM loads another driver than the map names"
        );
        match (is_new, switched_at) {
            (true, None) => switched_at = Some(k),
            (false, Some(s)) => panic!("{what}: new driver after {s} blocks, old after {k}"),
            _ => {}
        }
        assert_eq!(
            volumes(&mut d),
            vols,
            "{what}: after {k} blocks the volumes moved or changed"
        );
        for (start, bytes) in &vols {
            let mut m = MemDisk::from_bytes(bytes.clone());
            let rep = check_volume(&mut m).unwrap();
            assert!(
                rep.is_clean(),
                "{what}: volume at {start}: {:?}",
                rep.problems
            );
        }
        // Running it again finishes the job: the new driver, a tidy map.
        let mut dev = StopAfter {
            disk: &mut d,
            left: usize::MAX,
            written: 0,
        };
        cli::driver::install(&mut dev, new.to_vec(), &opts)
            .unwrap_or_else(|e| panic!("{what}: rerun after {k} blocks: {e:#}"));
        assert_eq!(
            driver_of(&mut d).unwrap(),
            installed,
            "{what}: rerun after {k}"
        );
        let m = apm::read_map(&mut d).unwrap();
        assert!(m.stale_counts.is_empty(), "{what}: rerun after {k}");
        assert_eq!(volumes(&mut d), vols, "{what}: rerun after {k}");
    }
    let s = switched_at.expect("the new driver after the full install");
    assert!(
        s > 0 && s < total + 1,
        "{what}: switched after {s} of {total}"
    );
    (done, total, stale_stops)
}

/// The layout `ferrite init` made before the record area (the driver's 32-block slot full,
/// the volume right after it, no free space): the first update goes to the end of the map
/// partition with its record area (40 blocks); the next one, with room only for the driver
/// in the old driver's partition, goes there without an area; the third gets one again.
#[test]
fn updating_a_ferrite_driver_stopped_at_every_block() {
    // 32 blocks, like the real driver (16,130 bytes) in its 32-block slot.
    let old = ferrite_blob(16_130, 5);
    let mut d = old_ferrite_disk(8192, &old, &[None]);
    assert_eq!(record_area(&mut d), None);
    let (mut d, n1, stale) = every_stop("first update", &d, &ferrite_blob(16_000, 9));
    // Block 1 is written before block 0, the stale count of the HFS entry last: stops
    // after 42, 43 and 44 blocks.
    assert_eq!(stale, 3);
    assert_eq!(record_area(&mut d), Some(24 + 40 - 8));
    let map = read_map(&mut MemDisk::from_bytes(d.as_bytes().to_vec())).unwrap();
    let kinds: Vec<(&str, u32, u32)> = map
        .partitions
        .iter()
        .map(|p| (p.kind.as_str(), p.start, p.blocks))
        .collect();
    assert_eq!(
        kinds,
        [
            ("Apple_partition_map", 1, 23),
            ("Apple_Free", 64, 32),
            ("Apple_HFS", 96, 8096),
            ("Apple_Driver43", 24, 40)
        ]
    );
    // The next update swaps back without touching the map's length, into the 32 blocks of
    // the old partition: no room for the area there.
    let (mut d, n2, stale) = every_stop("second update", &d, &ferrite_blob(16_100, 11));
    assert_eq!(record_area(&mut d), None);
    assert_eq!(stale, 0, "the map keeps its length");
    let map = read_map(&mut MemDisk::from_bytes(d.as_bytes().to_vec())).unwrap();
    assert!(
        map.partitions
            .iter()
            .any(|p| p.kind == "Apple_Driver43" && p.start == 64),
        "{:?}",
        map.partitions
    );
    // 32 code blocks and 8 of the area; then the new entry (block 4), block 1 (map shrunk,
    // count 4), block 0, the old entry retired (block 2) and the HFS entry's count (block 3).
    // The second: 32, the free entry become the driver's, block 0, the old entry retired.
    assert_eq!((n1, n2), (45, 35));
    let (mut d, _, _) = every_stop("third update", &d, &ferrite_blob(15_000, 13));
    assert_eq!(record_area(&mut d), Some(24 + 40 - 8));
}

/// An older disk with free space after its volume: the update makes the full 96-block
/// partition (driver and record area) in the free space, and the old 32 blocks become free.
#[test]
fn an_old_driver_partition_grows_into_free_space_stopped_at_every_block() {
    let old = ferrite_blob(16_130, 5);
    let d = old_ferrite_disk(12_000, &old, &[Some(8000)]);
    let (mut d, _, _) = every_stop("grow", &d, &ferrite_blob(30_000, 6));
    let map = read_map(&mut d).unwrap();
    let drv = map
        .partitions
        .iter()
        .find(|p| p.kind == "Apple_Driver43")
        .unwrap();
    assert_eq!((drv.start, drv.blocks), (96 + 8000, 96));
    assert_eq!(record_area(&mut d), Some(96 + 8000 + 88));
    assert!(
        map.partitions
            .iter()
            .any(|p| p.kind == "Apple_Free" && (p.start, p.blocks) == (64, 32))
    );
}

/// Another vendor's driver (no Ferrite settings to keep) and two volumes.
#[test]
fn replacing_another_vendors_driver_stopped_at_every_block() {
    let d = disk(
        12_000,
        &vendor_blob(7000),
        16,
        &[("A", PartSize::Blocks(4000)), ("B", PartSize::Rest)],
    );
    every_stop("vendor driver", &d, &ferrite_blob(16_130, 7));
}

/// A driver larger than its partition, free space at the end of the disk: the new driver
/// goes there (carved out of the Apple_Free partition, which grows the map by one entry).
#[test]
fn a_larger_driver_into_free_space_stopped_at_every_block() {
    let old = ferrite_blob(9000, 3);
    let d = disk(
        12_000,
        &old,
        18,
        &[("A", PartSize::Blocks(3000)), ("B", PartSize::Blocks(3000))],
    );
    let (mut d, _, _) = every_stop("larger driver", &d, &ferrite_blob(30_000, 4));
    let map = read_map(&mut d).unwrap();
    let drv = map
        .partitions
        .iter()
        .find(|p| p.kind == "Apple_Driver43")
        .unwrap();
    assert_eq!(
        drv.blocks, 96,
        "59 blocks of driver, the area, the default partition"
    );
    assert!(drv.start as u64 >= 64 + 26 + 6000, "{:?}", map.partitions);
    assert_eq!(record_area(&mut d), Some(drv.start + 88));
}

/// The real driver, stopped at the first block, halfway through its code, just before and
/// just after the switch and at the end: every such disk boots in the emulated Mac (a 68040
/// with SCSI Manager 4.3, and a 68000 with the original SCSI Manager), the driver the map
/// names loads and the volume mounts through it.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn interrupted_installs_of_the_real_driver_boot() {
    let real = cli::disk::EMBEDDED_DRIVER;
    assert!(
        !real.is_empty(),
        "the real driver must be embedded: run `cargo xtask test` (or `cargo xtask build` first)"
    );
    // The installed driver: write cache off; the update turns it on (other bytes).
    let mut old = real.to_vec();
    cli::disk::apply_settings(
        &mut old,
        &DriverOptions {
            write_cache: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    // A disk as Ferrite 0.1 made it: the update grows the driver partition.
    let original = old_ferrite_disk(16_384, &old, &[None]);
    let opts = DriverOptions {
        write_cache: Some(true),
        ..Default::default()
    };
    let run = |k: usize| {
        let mut d = MemDisk::from_bytes(original.as_bytes().to_vec());
        let mut dev = StopAfter {
            disk: &mut d,
            left: k,
            written: 0,
        };
        let r = cli::driver::install(&mut dev, real.to_vec(), &opts);
        let n = dev.written;
        (d, r.is_ok(), n)
    };
    let (mut done, ok, total) = run(usize::MAX);
    assert!(ok);
    let new = driver_of(&mut done).unwrap();
    assert_ne!(new, old);
    // The switch: the first k at which the map names the new driver.
    let switch = (0..=total)
        .find(|&k| driver_of(&mut run(k).0).unwrap() == new)
        .unwrap();
    let dir = std::env::temp_dir().join(format!("ferrite-interrupted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut seen = (false, false);
    for k in [0, 16, switch - 1, switch, total] {
        let (mut d, _, _) = run(k);
        let names = driver_of(&mut d).unwrap();
        assert!(names == old || names == new, "after {k} blocks");
        if names == new {
            seen.1 = true;
        } else {
            seen.0 = true;
        }
        let path = dir.join(format!("HD00_512-{k}.hda"));
        std::fs::write(&path, d.as_bytes()).unwrap();
        for (rom, cpu) in [
            (RomGeneration::ScsiManager43, 68040),
            (RomGeneration::OriginalScsiManager, 68000),
        ] {
            cli::boot::boot(&path, rom, cpu, Some(0), None, None).unwrap_or_else(|e| {
                panic!("stopped after {k} of {total} blocks (switch at {switch}): {e:#}")
            });
        }
        std::fs::remove_file(&path).unwrap();
    }
    assert_eq!(seen, (true, true), "both the old and the new driver booted");
    let _ = std::fs::remove_dir_all(&dir);
}
