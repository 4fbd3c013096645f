//! The core initialize (`ferrite_formatter::init::initialize`, which `ferrite init` and
//! Ferrite Setup both run) stopped after every block it writes: the disk must be either as it
//! was (nothing written yet) or one the map reader calls unformatted (no 'ER' block 0) —
//! never a map pointing at half-made volumes. Run to the end, the same write gives a disk the
//! map reader and the HFS checker accept.

use ferrite_formatter::apm::{self, ApmError, HfsPartitionSpec, Layout, read_map};
use ferrite_formatter::hfs::{NewFile, Volume, check_volume, cnid};
use ferrite_formatter::init::{self, InitError, InitOptions, InitStage, VolumeSpec};
use ferrite_formatter::{BlockDevice, DeviceError, MemDisk, Region};
use ferrite_shared::partition_map::MapError;

mod support;
use support::StopAfter;

fn driver(len: usize, seed: u32) -> Vec<u8> {
    (0..len as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 13) as u8)
        .collect()
}

const APP_RSRC: &[u8] = &[0x5A; 3000];
const APP_DATA: &[u8] = b"not much";

fn app() -> NewFile<'static> {
    NewFile {
        name: b"Ferrite Setup",
        file_type: *b"APPL",
        creator: *b"FRRT",
        finder_flags: 0,
        data: APP_DATA,
        rsrc: APP_RSRC,
        created: 3_900_000_000,
        modified: 3_900_000_000,
    }
}

/// The disk before: an older layout (one volume) with a file on it.
fn old_disk(blocks: u64) -> MemDisk {
    let mut d = MemDisk::new(blocks);
    let drv = driver(9000, 1);
    let specs = init::plan(
        &[VolumeSpec {
            name: "Old".into(),
            blocks: None,
        }],
        blocks,
        512,
        drv.len(),
        None,
    )
    .unwrap();
    let opts = InitOptions {
        layout: Layout {
            driver: Some(&drv),
            driver_slot_blocks: apm::DEFAULT_DRIVER_SLOT_BLOCKS,
            hfs: specs,
        },
        date: 3_800_000_000,
        file: Some(app()),
    };
    init::initialize(&mut d, &opts, &mut |_, _, _| true).unwrap();
    d
}

fn new_specs(blocks: u64, drv: &[u8]) -> Vec<HfsPartitionSpec> {
    init::plan(
        &[
            VolumeSpec {
                name: "System".into(),
                blocks: Some(3000),
            },
            VolumeSpec {
                name: "Data".into(),
                blocks: None,
            },
        ],
        blocks,
        512,
        drv.len(),
        Some((APP_DATA.len(), APP_RSRC.len())),
    )
    .unwrap()
}

#[test]
fn initialize_stopped_at_every_block_leaves_the_old_disk_or_an_unformatted_one() {
    const BLOCKS: u64 = 8192;
    let old = old_disk(BLOCKS);
    let drv = driver(12_000, 2);
    let opts = InitOptions {
        layout: Layout {
            driver: Some(&drv),
            driver_slot_blocks: apm::DEFAULT_DRIVER_SLOT_BLOCKS,
            hfs: new_specs(BLOCKS, &drv),
        },
        date: 3_900_000_000,
        file: Some(app()),
    };
    // The full run: how many blocks it writes, and the disk it makes.
    let mut full = old.clone();
    let mut dev = StopAfter {
        disk: &mut full,
        left: usize::MAX,
        written: 0,
    };
    let map = init::initialize(&mut dev, &opts, &mut |_, _, _| true).unwrap();
    let total = dev.written;
    assert!(total > 100, "{total} blocks written");
    let names: Vec<_> = map.hfs_partitions().map(|p| p.name.clone()).collect();
    assert_eq!(names, ["System", "Data"]);
    for p in map.hfs_partitions() {
        let r = Region::new(&mut full, p.start as u64, p.blocks as u64).unwrap();
        check_volume(r).unwrap();
        let r = Region::new(&mut full, p.start as u64, p.blocks as u64).unwrap();
        let v = Volume::open(r).unwrap();
        v.lookup(cnid::ROOT, b"Ferrite Setup").unwrap();
    }

    let (mut as_old, mut unformatted) = (0, 0);
    for k in 0..total {
        let mut d = old.clone();
        let r = init::initialize(
            &mut StopAfter {
                disk: &mut d,
                left: k,
                written: 0,
            },
            &opts,
            &mut |_, _, _| true,
        );
        assert!(
            matches!(
                &r,
                Err(InitError::Device(_) | InitError::Volume { .. } | InitError::AddFile { .. })
            ),
            "stopped after {k} blocks: {r:?}"
        );
        if d == old {
            as_old += 1;
            continue;
        }
        match read_map(&mut d) {
            Err(ApmError::Map(MapError::NoDdmSignature { found: 0 })) => unformatted += 1,
            other => panic!(
                "stopped after {k} of {total} blocks: the disk is neither the old one nor unformatted ({other:?})"
            ),
        }
    }
    assert_eq!(
        as_old, 1,
        "only a stop before the first write leaves the old disk"
    );
    assert_eq!(unformatted, total - 1);
    // Block 0 is the last block written: one block short of the full run is still
    // unformatted, the full run is not.
    assert_ne!(full, old);
}

#[test]
fn initialize_writes_block_zero_first_and_last_and_cancels_before_writing() {
    const BLOCKS: u64 = 4096;
    let mut d = MemDisk::new(BLOCKS);
    let drv = driver(5000, 3);
    let opts = InitOptions {
        layout: Layout::single(Some(&drv), "Solo"),
        date: 3_900_000_000,
        file: None,
    };
    let before = d.clone();
    let r = init::initialize(&mut d, &opts, &mut |_, _, _| false);
    assert_eq!(r.unwrap_err(), InitError::Cancelled);
    assert_eq!(d, before, "a cancel writes nothing");

    struct Log<'a> {
        disk: &'a mut MemDisk,
        order: Vec<u64>,
    }
    impl BlockDevice for Log<'_> {
        fn block_count(&self) -> u64 {
            self.disk.block_count()
        }
        fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
            self.disk.read_blocks(block, buf)
        }
        fn write_blocks(&mut self, block: u64, buf: &[u8]) -> Result<(), DeviceError> {
            self.order.push(block);
            self.disk.write_blocks(block, buf)
        }
    }
    let mut log = Log {
        disk: &mut d,
        order: Vec::new(),
    };
    let mut stages = Vec::new();
    init::initialize(&mut log, &opts, &mut |s, done, total| {
        assert!(done <= total);
        if stages.last() != Some(&s) {
            stages.push(s);
        }
        true
    })
    .unwrap();
    assert_eq!(log.order.first(), Some(&0));
    assert_eq!(log.order.last(), Some(&0));
    let map_at = log.order.iter().position(|&b| b == 1).unwrap();
    let drv_at = log.order.iter().position(|&b| b == 64).unwrap();
    let vol_at = log.order.iter().position(|&b| b >= 96).unwrap();
    assert!(vol_at < drv_at && drv_at < map_at, "{:?}", log.order);
    assert_eq!(
        stages,
        [InitStage::Volumes, InitStage::Driver, InitStage::Map]
    );
}

#[test]
fn plan_errors_say_what_to_change() {
    let v = |name: &str, blocks: Option<u64>| VolumeSpec {
        name: name.into(),
        blocks,
    };
    let e = init::plan(&[v("A", None), v("B", Some(2000))], 10_000, 512, 5000, None).unwrap_err();
    assert!(
        matches!(&e, InitError::NoSize { name } if name == "A"),
        "{e}"
    );
    let e = init::plan(&[v("A", Some(100))], 10_000, 512, 5000, None).unwrap_err();
    assert!(e.to_string().contains("too small"), "{e}");
    let e = init::plan(&[v("A", Some(9300)), v("B", None)], 10_000, 512, 5000, None).unwrap_err();
    assert!(matches!(e, InitError::DiskTooSmall { index: 1, .. }), "{e}");
    let e = init::plan(&[v("A:B", None)], 10_000, 512, 5000, None).unwrap_err();
    assert!(e.to_string().contains("':'"), "{e}");
    let e = init::plan(&[v("A", None)], 1700, 512, 5000, Some((0, 2_000_000))).unwrap_err();
    assert!(matches!(e, InitError::NoRoomForFile { .. }), "{e}");
    assert!(init::plan(&[], 10_000, 512, 5000, None).is_err());
}
