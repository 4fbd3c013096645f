//! Ferrite Setup's operations (`ferrite_setup::ops`) against a model SCSI disk
//! (`common::ModelDisk`): what they write is compared with what the formatter core writes
//! for the same plan (the code `ferrite init` runs) and read back with the formatter's own
//! map reader and HFS checker; refusals leave the disk as it was.

mod common;

use common::{Bus, ModelDisk, Recorder, ferrite_blob};
use ferrite_formatter::apm::{self, ApmError, Layout, PartitionMap, read_map};
use ferrite_formatter::hfs::check_volume;
use ferrite_formatter::init::{self, InitOptions};
use ferrite_formatter::{MemDisk, Region};
use ferrite_setup::bus::ScsiError;
use ferrite_setup::label::{Driver, Label};
use ferrite_setup::ops::{
    self, InitPlan, OpError, Quiet, Stage, VolumeRequest, driver_with_write_cache,
};
use ferrite_shared::driver_blob::{Settings, TransferMode};
use ferrite_shared::partition_map::{MapError, PartitionEntry};

const ID: u8 = 3;
const BLOCKS: u64 = 40_960;
const DATE: u32 = 3_900_000_000;

fn plan(write_cache: bool) -> InitPlan {
    InitPlan {
        volumes: vec![
            VolumeRequest {
                name: "System".into(),
                blocks: Some(20_000),
            },
            VolumeRequest {
                name: "Data".into(),
                blocks: None,
            },
        ],
        write_cache,
        transfer: Default::default(),
        low_level_format: false,
        date: DATE,
    }
}

/// A model disk holding old data everywhere (what the new layout must not depend on).
fn used_disk() -> ModelDisk {
    let mut d = ModelDisk::new(ID, BLOCKS);
    for (i, b) in d.image.iter_mut().enumerate() {
        *b = (i as u32).wrapping_mul(2_654_435_761).to_be_bytes()[0];
    }
    d
}

fn mem(image: &[u8]) -> MemDisk {
    let mut m = MemDisk::new(image.len() as u64 / 512);
    m.as_bytes_mut().copy_from_slice(image);
    m
}

fn map_of(image: &[u8]) -> Result<PartitionMap, ApmError> {
    read_map(&mut mem(image))
}

fn check_all_volumes(image: &[u8]) {
    let mut m = mem(image);
    let map = read_map(&mut m).unwrap();
    for p in map.hfs_partitions() {
        let r = Region::new(&mut m, p.start as u64, p.blocks as u64).unwrap();
        check_volume(r).unwrap_or_else(|e| panic!("volume {}: {e}", p.name));
    }
}

fn hfs_bytes(image: &[u8]) -> Vec<(String, Vec<u8>)> {
    let map = map_of(image).unwrap();
    map.hfs_partitions()
        .map(|p| {
            let a = p.start as usize * 512;
            (
                p.name.clone(),
                image[a..a + p.blocks as usize * 512].to_vec(),
            )
        })
        .collect()
}

#[test]
fn initialize_writes_what_the_formatter_core_writes() {
    let blob = ferrite_blob(14_000, [0, 2, 0], 7);
    let mut bus = Bus::with(used_disk());
    let before = bus.disk(ID).image.clone();
    let mut rec = Recorder::default();
    let report =
        ops::initialize_with_driver(&mut bus, ID, &plan(true), blob.clone(), &mut rec).unwrap();
    let d = bus.disk(ID);

    // The same plan through the core on an in-memory copy of the old disk.
    let mut reference = mem(&before);
    let with_cache = driver_with_write_cache(blob.clone(), true).unwrap();
    let specs = ops::plan_layout(&plan(true), BLOCKS, &with_cache).unwrap();
    init::initialize(
        &mut reference,
        &InitOptions {
            layout: Layout {
                driver: Some(&with_cache),
                driver_slot_blocks: apm::DEFAULT_DRIVER_SLOT_BLOCKS,
                hfs: specs,
            },
            date: DATE,
            file: None,
        },
        &mut |_, _, _| true,
    )
    .unwrap();
    assert!(
        d.image == reference.as_bytes(),
        "the app's disk differs from the core's"
    );

    let map = map_of(&d.image).unwrap();
    let names: Vec<_> = map.hfs_partitions().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["System", "Data"]);
    assert_eq!(map.hfs_partitions().next().unwrap().blocks, 20_000);
    check_all_volumes(&d.image);
    // The driver partition holds the blob with the write cache recorded.
    let drv = map.partitions.iter().find(|p| p.entry.is_driver()).unwrap();
    let at = drv.start as usize * 512;
    let installed = &d.image[at..at + with_cache.len()];
    assert!(Settings::read(installed).unwrap().write_cache);
    assert_eq!(installed, &with_cache[..]);
    // Block 0 first (zeroed) and last.
    assert_eq!(d.writes.first(), Some(&(0, 1)));
    assert_eq!(d.writes.last(), Some(&(0, 1)));
    // The drive's cache follows the choice, saved (the page is savable).
    assert!(d.wce && d.saved_wce);
    assert_eq!(d.mode_selects.len(), 1);
    assert!(d.mode_selects[0].0, "SP = 1 on a savable page");
    assert_eq!(report.write_cache_set, Some(true));
    assert_eq!(report.driver, "Ferrite 0.2.0");
    assert_eq!(report.partitions.len(), map.partitions.len());
    // Progress: every stage in order, done never past total.
    let stages: Vec<Stage> = rec.calls.iter().map(|c| c.0).fold(Vec::new(), |mut v, s| {
        if v.last() != Some(&s) {
            v.push(s);
        }
        v
    });
    assert_eq!(stages, [Stage::Volumes, Stage::Driver, Stage::Map]);
    assert!(rec.calls.iter().all(|&(_, done, total)| done <= total));

    // What the bus list and the Partition window then show.
    let info = ops::drive_info(&mut bus, ID).unwrap();
    assert_eq!(info.vendor, "QUANTUM");
    assert_eq!(info.blocks, BLOCKS);
    assert!(!info.write_protected);
    assert_eq!(
        info.label,
        Label::Apm {
            partitions: 4,
            hfs: 2,
            driver: Some(Driver::Ferrite {
                version: Some([0, 2, 0])
            })
        }
    );
    let rows = ops::partitions(&mut bus, ID).unwrap();
    let kinds: Vec<_> = rows.iter().map(|r| (r.kind.as_str(), r.hfs)).collect();
    assert_eq!(
        kinds,
        [
            ("Apple_partition_map", false),
            ("Apple_Driver43", false),
            ("Apple_HFS", true),
            ("Apple_HFS", true),
            ("Apple_Free", false),
        ][..map.partitions.len()]
    );
}

#[test]
fn initialize_cancel_format_unit_and_refusals_write_nothing() {
    let blob = ferrite_blob(9000, [0, 2, 0], 1);
    // Cancelled at the first progress call: nothing sent that changes the disk.
    let mut bus = Bus::with(used_disk());
    let before = bus.disk(ID).image.clone();
    let mut p = plan(false);
    p.low_level_format = true;
    let mut rec = Recorder {
        cancel_at: Some(0),
        ..Default::default()
    };
    let e = ops::initialize_with_driver(&mut bus, ID, &p, blob.clone(), &mut rec).unwrap_err();
    assert_eq!(e, OpError::Cancelled);
    assert_eq!(e.to_string(), "Cancelled: nothing was written.");
    let d = bus.disk(ID);
    assert_eq!(d.image, before);
    assert!(
        !d.log.contains(&0x2A) && !d.log.contains(&0x04),
        "{:x?}",
        d.log
    );

    // Cancelled after FORMAT UNIT, at the first stage after it: the words say the disk is
    // erased, and nothing else is written.
    let mut fresh = Bus::with(used_disk());
    let mut rec = Recorder {
        cancel_at: Some(2),
        ..Default::default()
    };
    let e = ops::initialize_with_driver(&mut fresh, ID, &p, blob.clone(), &mut rec).unwrap_err();
    assert_eq!(e, OpError::CancelledAfterFormat);
    assert_eq!(
        e.to_string(),
        "Cancelled after the low-level format: the disk is erased and holds no volumes."
    );
    let d = fresh.disk(ID);
    assert_eq!(d.formatted, 1);
    assert!(!d.log.contains(&0x2A), "{:x?}", d.log);

    // FORMAT UNIT first, then the writes.
    let mut rec = Recorder::default();
    ops::initialize_with_driver(&mut bus, ID, &p, blob.clone(), &mut rec).unwrap();
    let d = bus.disk(ID);
    assert_eq!(d.formatted, 1);
    let fmt = d.log.iter().position(|&o| o == 0x04).unwrap();
    let first_write = d.log.iter().position(|&o| o == 0x2A).unwrap();
    assert!(fmt < first_write);
    assert_eq!(rec.calls[0].0, Stage::LowLevelFormat);
    check_all_volumes(&d.image);

    // A write-protected drive: refused before any write, in words.
    let mut wp = used_disk();
    wp.write_protected = true;
    let mut bus = Bus::with(wp);
    let before = bus.disk(ID).image.clone();
    let e = ops::initialize_with_driver(&mut bus, ID, &plan(true), blob.clone(), &mut Quiet)
        .unwrap_err();
    assert_eq!(e, OpError::WriteProtected);
    assert!(e.to_string().contains("write-protected"), "{e}");
    assert_eq!(bus.disk(ID).image, before);
    assert!(!bus.disk(ID).log.contains(&0x2A));
    assert!(ops::drive_info(&mut bus, ID).unwrap().write_protected);

    // A plan that does not fit: refused before any write.
    let mut bus = Bus::with(used_disk());
    let mut big = plan(true);
    big.volumes[0].blocks = Some(BLOCKS);
    let e = ops::initialize_with_driver(&mut bus, ID, &big, blob.clone(), &mut Quiet).unwrap_err();
    assert!(matches!(e, OpError::Plan(_)), "{e:?}");
    assert!(e.to_string().contains("too small"), "{e}");
    assert!(!bus.disk(ID).log.contains(&0x2A));

    // Blocks of another size: refused in words.
    let mut odd = ModelDisk::new(ID, 1000);
    odd.block_len = 2048;
    odd.image = vec![0; 1000 * 2048];
    let mut bus = Bus::with(odd);
    let e = ops::initialize_with_driver(&mut bus, ID, &plan(true), blob, &mut Quiet).unwrap_err();
    assert_eq!(e, OpError::BlockSize(2048));
    assert!(e.to_string().contains("512-byte blocks only"), "{e}");
}

#[test]
fn a_drive_vanishing_mid_initialize_leaves_an_unformatted_disk() {
    let blob = ferrite_blob(9000, [0, 2, 0], 2);
    // An initialized disk to start from, so that "as it was" is a formatted disk.
    let mut bus = Bus::with(used_disk());
    ops::initialize_with_driver(&mut bus, ID, &plan(false), blob.clone(), &mut Quiet).unwrap();
    let mut old = bus.disk(ID).clone();
    old.writes.clear();
    old.log.clear();
    let full_writes = {
        let mut b = Bus::with(old.clone());
        ops::initialize_with_driver(&mut b, ID, &plan(true), blob.clone(), &mut Quiet).unwrap();
        b.disk(ID).writes.len()
    };
    assert!(full_writes > 10);
    for n in 0..full_writes {
        let mut d = old.clone();
        d.writes.clear();
        d.log.clear();
        d.writes_left = Some(n);
        let mut bus = Bus::with(d);
        let e = ops::initialize_with_driver(&mut bus, ID, &plan(true), blob.clone(), &mut Quiet)
            .unwrap_err();
        assert!(
            matches!(
                e,
                OpError::Scsi {
                    error: ScsiError::NoDevice,
                    ..
                }
            ),
            "after {n} writes: {e:?}"
        );
        assert!(e.to_string().contains("did not answer"), "{e}");
        let image = &bus.disk(ID).image;
        if n == 0 {
            assert!(image == &old.image, "nothing written: the disk as it was");
        } else {
            assert!(
                matches!(
                    map_of(image),
                    Err(ApmError::Map(MapError::NoDdmSignature { found: 0 }))
                ),
                "after {n} of {full_writes} writes the disk must read as unformatted"
            );
        }
    }
}

/// A disk made by the formatter with `driver`, one 12,000-block volume and free space.
fn disk_with_driver(driver: &[u8]) -> ModelDisk {
    let mut m = MemDisk::new(BLOCKS);
    let specs = init::plan(
        &[init::VolumeSpec {
            name: "Work".into(),
            blocks: Some(12_000),
        }],
        BLOCKS,
        512,
        driver.len(),
        None,
    )
    .unwrap();
    init::initialize(
        &mut m,
        &InitOptions {
            layout: Layout {
                driver: Some(driver),
                driver_slot_blocks: apm::DEFAULT_DRIVER_SLOT_BLOCKS,
                hfs: specs,
            },
            date: DATE,
            file: None,
        },
        &mut |_, _, _| true,
    )
    .unwrap();
    let mut d = ModelDisk::new(ID, BLOCKS);
    d.image = m.as_bytes().to_vec();
    d
}

/// Rename the driver entry (map block 2), as another vendor's formatter names it.
fn rename_driver_entry(d: &mut ModelDisk, name: &str) {
    let b = &mut d.image[1024..1536];
    let mut e = PartitionEntry::read(b).unwrap();
    e.name = [0; 32];
    ferrite_shared::partition_map::set_c_field(&mut e.name, name);
    b.copy_from_slice(zerocopy::IntoBytes::as_bytes(&e));
}

fn installed_driver(image: &[u8]) -> Vec<u8> {
    let map = map_of(image).unwrap();
    let dd = map.ddm.descriptors()[0];
    let p = map
        .partitions
        .iter()
        .find(|p| p.start == dd.block.get())
        .unwrap();
    let n = p.entry.boot_size.get() as usize;
    image[p.start as usize * 512..p.start as usize * 512 + n].to_vec()
}

#[test]
fn update_driver_over_ferrite_apple_and_foreign_drivers_keeps_every_volume() {
    let new = ferrite_blob(15_000, [0, 3, 0], 9);
    let mut older = ferrite_blob(12_000, [0, 1, 0], 4);
    // The installed driver has the write cache off: the update keeps it.
    let mut s = Settings::read(&older).unwrap();
    s.write_cache = false;
    s.write(&mut older).unwrap();
    let vendor: Vec<u8> = (0..9000u32).map(|i| (i * 31 + 1) as u8).collect();
    let mut foreign = disk_with_driver(&vendor);
    rename_driver_entry(&mut foreign, "SilverLining");
    for (disk, old_name) in [
        (disk_with_driver(&older), "Ferrite 0.1.0"),
        (disk_with_driver(&vendor), "Apple"),
        (foreign, "other (SilverLining)"),
    ] {
        let volumes = hfs_bytes(&disk.image);
        let mut bus = Bus::with(disk);
        let mut rec = Recorder::default();
        let r = ops::update_driver_with(&mut bus, ID, new.clone(), &mut rec).unwrap();
        assert_eq!(r.old, old_name);
        assert_eq!(r.new, "Ferrite 0.3.0");
        let image = &bus.disk(ID).image;
        assert_eq!(
            hfs_bytes(image),
            volumes,
            "{old_name}: volumes byte for byte"
        );
        check_all_volumes(image);
        let got = installed_driver(image);
        assert_eq!(got.len(), new.len());
        let want_cache = old_name != "Ferrite 0.1.0";
        assert_eq!(Settings::read(&got).unwrap().write_cache, want_cache);
        let mut expect = new.clone();
        let mut s = Settings::read(&expect).unwrap();
        s.write_cache = want_cache;
        s.write(&mut expect).unwrap();
        assert_eq!(got, expect);
        // The label the bus list shows now.
        assert!(matches!(
            ops::drive_info(&mut bus, ID).unwrap().label,
            Label::Apm {
                driver: Some(Driver::Ferrite {
                    version: Some([0, 3, 0])
                }),
                ..
            }
        ));
    }
}

#[test]
fn update_driver_refuses_when_the_driver_partition_is_too_small_and_nothing_is_free() {
    // One volume filling the disk: no Apple_Free; a new driver larger than the slot and the
    // unused end of the map partition.
    let mut m = MemDisk::new(BLOCKS);
    let old = ferrite_blob(9000, [0, 1, 0], 3);
    init::initialize(
        &mut m,
        &InitOptions {
            layout: Layout::single(Some(&old), "Full"),
            date: DATE,
            file: None,
        },
        &mut |_, _, _| true,
    )
    .unwrap();
    let mut d = ModelDisk::new(ID, BLOCKS);
    d.image = m.as_bytes().to_vec();
    let before = d.image.clone();
    let mut bus = Bus::with(d);
    let big = ferrite_blob(31_000, [0, 3, 0], 5);
    // Found out before anything is written or confirmed: the same refusal, no writes.
    let e = ops::check_update_with(&mut bus, ID, big.clone()).unwrap_err();
    assert_eq!(e, OpError::DriverTooSmall { have: 96, need: 69 });
    assert!(bus.disk(ID).writes.is_empty());
    // A driver that fits passes the check, still without a write.
    ops::check_update_with(&mut bus, ID, ferrite_blob(9000, [0, 3, 0], 5)).unwrap();
    assert!(bus.disk(ID).writes.is_empty());
    let e = ops::update_driver_with(&mut bus, ID, big, &mut Quiet).unwrap_err();
    assert_eq!(e, OpError::DriverTooSmall { have: 96, need: 69 });
    let text = e.to_string();
    assert!(
        text.contains("too small") && text.contains("no free space"),
        "{text}"
    );
    assert_eq!(bus.disk(ID).image, before);
    assert!(bus.disk(ID).writes.is_empty());

    // No map at all: said so.
    let mut bus = Bus::with(ModelDisk::new(ID, 4096));
    let e = ops::check_update_with(&mut bus, ID, ferrite_blob(9000, [0, 3, 0], 1)).unwrap_err();
    assert_eq!(e, OpError::NoMap);
    let e = ops::update_driver_with(&mut bus, ID, ferrite_blob(9000, [0, 3, 0], 1), &mut Quiet)
        .unwrap_err();
    assert_eq!(e, OpError::NoMap);
    assert!(e.to_string().contains("Initialize"), "{e}");
}

#[test]
fn caching_page_and_write_cache_setting() {
    // Savable page: MODE SELECT with SP = 1; the driver's settings block follows.
    let blob = ferrite_blob(9000, [0, 2, 0], 6);
    let mut bus = Bus::with(used_disk());
    ops::initialize_with_driver(&mut bus, ID, &plan(true), blob.clone(), &mut Quiet).unwrap();
    let volumes = hfs_bytes(&bus.disk(ID).image);
    let c = ops::caching(&mut bus, ID).unwrap();
    assert_eq!(
        c,
        ops::CachingPage {
            wce: true,
            rcd: false,
            changeable_wce: true,
            savable: true
        }
    );
    ops::set_write_cache(&mut bus, ID, false).unwrap();
    let d = bus.disk(ID);
    assert!(!d.wce && !d.saved_wce);
    let (sp, list) = d.mode_selects.last().unwrap();
    assert!(*sp);
    assert_eq!(list[4] & 0x80, 0, "PS cleared in MODE SELECT");
    assert_eq!(list[4] & 0x3F, 0x08);
    assert!(
        !Settings::read(&installed_driver(&d.image))
            .unwrap()
            .write_cache
    );
    assert_eq!(hfs_bytes(&d.image), volumes);
    check_all_volumes(&d.image);
    assert!(!ops::caching(&mut bus, ID).unwrap().wce);

    // Not savable: SP = 0, the current value changes, the saved one does not.
    let mut d = ModelDisk::new(ID, 4096);
    d.savable = false;
    d.saved_wce = false;
    let mut bus = Bus::with(d);
    ops::set_write_cache(&mut bus, ID, true).unwrap();
    let d = bus.disk(ID);
    assert!(d.wce && !d.saved_wce);
    assert!(!d.mode_selects[0].0, "SP = 0 when the page is not savable");

    // Not changeable: refused, nothing sent.
    let mut d = ModelDisk::new(ID, 4096);
    d.wce_changeable = false;
    let mut bus = Bus::with(d);
    let e = ops::set_write_cache(&mut bus, ID, true).unwrap_err();
    assert_eq!(e, OpError::CacheNotChangeable);
    assert!(bus.disk(ID).mode_selects.is_empty());
    assert!(!bus.disk(ID).log.contains(&0x15));

    // No caching page: the error in words.
    let mut d = ModelDisk::new(ID, 4096);
    d.no_caching_page = true;
    let mut bus = Bus::with(d);
    let e = ops::caching(&mut bus, ID).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("MODE SENSE failed: illegal request, invalid field in the command"),
        "{text}"
    );
}

#[test]
fn surface_test_finds_exactly_the_bad_blocks_with_verify_or_read() {
    let bad = [5u64, 6, 3000, 20_479, BLOCKS - 1];
    for refuses_verify in [false, true] {
        let mut d = ModelDisk::new(ID, BLOCKS);
        d.bad = bad.iter().copied().collect();
        d.refuses_verify = refuses_verify;
        let mut bus = Bus::with(d);
        let mut rec = Recorder::default();
        let found = ops::surface_test(&mut bus, ID, &mut rec).unwrap();
        assert_eq!(found, bad, "refuses VERIFY: {refuses_verify}");
        let log = &bus.disk(ID).log;
        let verifies = log.iter().filter(|&&o| o == 0x2F).count();
        let reads = log.iter().filter(|&&o| o == 0x28).count();
        if refuses_verify {
            assert_eq!(verifies, 1, "VERIFY is tried once, then READ");
            assert!(reads > 0);
        } else {
            assert_eq!(reads, 0);
        }
        let last = rec.calls.last().unwrap();
        assert_eq!((last.0, last.1, last.2), (Stage::Verify, BLOCKS, BLOCKS));
        assert!(rec.calls.windows(2).all(|w| w[0].1 <= w[1].1));

        // Reassign them, and the next test finds none.
        ops::reassign(&mut bus, ID, &found).unwrap();
        let d = bus.disk(ID);
        assert_eq!(
            d.reassigned,
            bad.iter().map(|&b| b as u32).collect::<Vec<_>>()
        );
        assert!(
            ops::surface_test(&mut bus, ID, &mut Quiet)
                .unwrap()
                .is_empty()
        );
    }
    // Cancel between chunks: stops there, with what it found so far.
    let mut d = ModelDisk::new(ID, BLOCKS);
    d.bad = bad.iter().copied().collect();
    let mut bus = Bus::with(d);
    let mut rec = Recorder {
        cancel_at: Some(2),
        ..Default::default()
    };
    let found = ops::surface_test(&mut bus, ID, &mut rec).unwrap();
    assert_eq!(found, [5, 6, 3000], "the first two chunks");
    assert_eq!(rec.calls.len(), 3);
    // A drive that disappears: an error, not a bad block.
    let mut d = ModelDisk::new(ID, 4096);
    d.gone = true;
    let mut bus = Bus::with(d);
    assert!(matches!(
        ops::surface_test(&mut bus, ID, &mut Quiet),
        Err(OpError::Scsi {
            error: ScsiError::NoDevice,
            ..
        })
    ));
}

#[test]
fn partitions_add_rename_delete_touch_only_their_entries() {
    let blob = ferrite_blob(9000, [0, 2, 0], 8);
    let mut one = plan(false);
    one.volumes.truncate(1);
    let mut bus = Bus::with(used_disk());
    ops::initialize_with_driver(&mut bus, ID, &one, blob, &mut Quiet).unwrap();
    let system = hfs_bytes(&bus.disk(ID).image);
    let rows = ops::partitions(&mut bus, ID).unwrap();
    let free = rows
        .iter()
        .find(|r| r.kind == "Apple_Free")
        .unwrap()
        .clone();

    // Add 8,000 blocks: a formatted volume where the free space was, the rest still free.
    ops::add_volume(&mut bus, ID, "Data", Some(8000), DATE).unwrap();
    let image = bus.disk(ID).image.clone();
    check_all_volumes(&image);
    assert_eq!(
        hfs_bytes(&image)[0],
        system[0],
        "the other volume untouched"
    );
    let rows = ops::partitions(&mut bus, ID).unwrap();
    let data = rows.iter().find(|r| r.name == "Data").unwrap().clone();
    assert!(data.hfs);
    assert_eq!((data.start, data.blocks), (free.start, 8000));
    let rest = rows.iter().find(|r| r.kind == "Apple_Free").unwrap();
    assert_eq!(
        (rest.start, rest.blocks),
        (free.start + 8000, free.blocks - 8000)
    );
    // Asking for more than is free: refused, nothing written.
    bus.disk(ID).writes.clear();
    let e = ops::add_volume(&mut bus, ID, "Huge", Some(BLOCKS), DATE).unwrap_err();
    assert!(matches!(e, OpError::NoRoom { .. }), "{e:?}");
    assert!(bus.disk(ID).writes.is_empty());

    // Rename: one block, the entry's own.
    ops::rename_partition(&mut bus, ID, data.index, "Stuff").unwrap();
    assert_eq!(bus.disk(ID).writes, [(data.index, 1)]);
    let rows = ops::partitions(&mut bus, ID).unwrap();
    assert_eq!(
        rows.iter().find(|r| r.index == data.index).unwrap().name,
        "Stuff"
    );

    // Delete: one block, the entry becomes free space; the map and driver are refused.
    bus.disk(ID).writes.clear();
    ops::delete_partition(&mut bus, ID, data.index).unwrap();
    assert_eq!(bus.disk(ID).writes, [(data.index, 1)]);
    let rows = ops::partitions(&mut bus, ID).unwrap();
    assert_eq!(
        rows.iter().find(|r| r.index == data.index).unwrap().kind,
        "Apple_Free"
    );
    assert_eq!(hfs_bytes(&bus.disk(ID).image), system);
    bus.disk(ID).writes.clear();
    for index in [1, 2] {
        let e = ops::delete_partition(&mut bus, ID, index).unwrap_err();
        assert!(matches!(e, OpError::Protected { .. }), "{e:?}");
        assert!(e.to_string().contains("cannot be changed"), "{e}");
    }
    assert!(matches!(
        ops::rename_partition(&mut bus, ID, 99, "X"),
        Err(OpError::NoSuchPartition(99))
    ));
    assert!(bus.disk(ID).writes.is_empty());
    map_of(&bus.disk(ID).image).unwrap();
}

#[test]
fn errors_are_words() {
    let e = OpError::Sense {
        command: "READ(10)",
        key: 3,
        asc: 0x11,
        ascq: 0,
        lba: Some(1234),
    };
    assert_eq!(
        e.to_string(),
        "READ(10) failed: medium error, unrecovered read error (block 1234). The medium is damaged there: run Test and reassign the bad blocks."
    );
    let e = OpError::Scsi {
        command: "WRITE(10)",
        error: ScsiError::Manager(-7925),
    };
    assert_eq!(
        e.to_string(),
        "WRITE(10) failed: the device stopped answering (scsiCommandTimeout)."
    );
    let e = OpError::Scsi {
        command: "INQUIRY",
        error: ScsiError::BusBusy,
    };
    assert!(e.to_string().contains("SCSI Manager is busy"));
    // No message is a bare number.
    for e in [
        OpError::NoMap,
        OpError::NoDriver,
        OpError::WriteProtected,
        OpError::BadModePage,
        OpError::Cancelled,
        OpError::CacheNotChangeable,
    ] {
        assert!(e.to_string().len() > 20, "{e:?}");
    }
}

/// The driver this build embeds is the real one `cargo xtask build` made.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn the_embedded_driver_is_a_ferrite_driver() {
    assert!(!ops::EMBEDDED_DRIVER.is_empty());
    Settings::read(ops::EMBEDDED_DRIVER).unwrap();
    let blob = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/m68k/ferrite-driver.bin"
    ))
    .unwrap();
    assert_eq!(ops::EMBEDDED_DRIVER, &blob[..]);
}

/// Adding a volume, stopped after every WRITE: the map always reads valid, the other volume
/// is untouched, and the new volume is listed only once it is formatted.
#[test]
fn add_volume_stopped_after_every_write_keeps_a_valid_map() {
    let blob = ferrite_blob(9000, [0, 2, 0], 8);
    let mut one = plan(false);
    one.volumes.truncate(1);
    let mut bus = Bus::with(used_disk());
    ops::initialize_with_driver(&mut bus, ID, &one, blob, &mut Quiet).unwrap();
    let mut start = bus.disk(ID).clone();
    start.writes.clear();
    let system = hfs_bytes(&start.image);
    let total = {
        let mut b = Bus::with(start.clone());
        ops::add_volume(&mut b, ID, "Data", Some(8000), DATE).unwrap();
        b.disk(ID).writes.len()
    };
    for n in 0..total {
        let mut d = start.clone();
        d.writes_left = Some(n);
        let mut bus = Bus::with(d);
        assert!(ops::add_volume(&mut bus, ID, "Data", Some(8000), DATE).is_err());
        let image = &bus.disk(ID).image;
        let map = map_of(image).unwrap_or_else(|e| panic!("after {n} of {total} writes: {e}"));
        let vols = hfs_bytes(image);
        assert_eq!(vols[0], system[0], "after {n} writes");
        if vols.len() == 2 {
            check_all_volumes(image);
        }
        assert!(map.hfs_partitions().count() <= 2);
    }
}

/// Drive Settings' transfer mode: recorded in the settings block of the installed Ferrite
/// driver (everything else in it kept, the volumes untouched); refused in words on a disk
/// without a Ferrite driver.
#[test]
fn transfer_mode_is_recorded_in_the_installed_driver() {
    let blob = ferrite_blob(9000, [0, 2, 0], 6);
    let mut bus = Bus::with(used_disk());
    ops::initialize_with_driver(&mut bus, ID, &plan(true), blob, &mut Quiet).unwrap();
    let volumes = hfs_bytes(&bus.disk(ID).image);
    let before = Settings::read(&installed_driver(&bus.disk(ID).image)).unwrap();
    assert_eq!(before.transfer, TransferMode::Auto);
    ops::set_transfer_mode(&mut bus, ID, TransferMode::Polled).unwrap();
    let after = Settings::read(&installed_driver(&bus.disk(ID).image)).unwrap();
    assert_eq!(
        after,
        Settings {
            transfer: TransferMode::Polled,
            ..before
        }
    );
    assert_eq!(ops::installed_settings(&mut bus, ID).unwrap(), Some(after));
    assert_eq!(hfs_bytes(&bus.disk(ID).image), volumes);
    check_all_volumes(&bus.disk(ID).image);

    let mut bus = Bus::with(ModelDisk::new(ID, 4096));
    let e = ops::set_transfer_mode(&mut bus, ID, TransferMode::Blind).unwrap_err();
    assert_eq!(e, OpError::NoFerriteDriver);
    assert!(e.to_string().contains("no Ferrite driver"));
}
