//! `ferrite_setup::boot_driver` against a model SCSI disk: after Initialize it returns the
//! driver the app wrote, with the entry its partition type asks for; a foreign driver, a
//! damaged checksum and a blank disk are refused with their reason.

mod common;

use common::{Bus, ModelDisk, Recorder, ferrite_blob};
use ferrite_formatter::MemDisk;
use ferrite_formatter::apm::read_map;
use ferrite_setup::boot_driver::{self, Entry, NotLoaded};
use ferrite_setup::ops::{self, InitPlan, VolumeRequest, driver_with_write_cache};

const ID: u8 = 3;
const BLOCKS: u64 = 40_960;

fn initialized(blob: &[u8]) -> Bus {
    let mut bus = Bus::with(ModelDisk::new(ID, BLOCKS));
    let plan = InitPlan {
        volumes: vec![VolumeRequest {
            name: "Mac".into(),
            blocks: None,
        }],
        write_cache: true,
        transfer: Default::default(),
        low_level_format: false,
        date: 3_900_000_000,
    };
    ops::initialize_with_driver(&mut bus, ID, &plan, blob.to_vec(), &mut Recorder::default())
        .unwrap();
    bus
}

/// The driver entry's first block on the disk.
fn driver_start(bus: &mut Bus) -> usize {
    let mut m = MemDisk::from_bytes(bus.disk(ID).image.clone());
    let map = read_map(&mut m).unwrap();
    map.ddm.descriptors()[0].block.get() as usize
}

#[test]
fn reads_the_driver_initialize_wrote() {
    let blob = ferrite_blob(14_000, [0, 2, 0], 7);
    let mut bus = initialized(&blob);
    let d = boot_driver::read(&mut bus, ID).unwrap();
    let written = driver_with_write_cache(blob.clone(), true).unwrap();
    assert_eq!(&d.code[..written.len()], &written[..]);
    assert_eq!(d.code.len() % 512, 0);
    assert_eq!(d.entry, Entry::Scsi43);
    assert_eq!(d.version, Some([0, 2, 0]));
}

#[test]
fn refuses_a_blank_disk_a_foreign_driver_and_a_bad_checksum() {
    let mut blank = Bus::with(ModelDisk::new(ID, BLOCKS));
    assert_eq!(
        boot_driver::read(&mut blank, ID).unwrap_err(),
        NotLoaded::NoDriver
    );
    let blob = ferrite_blob(14_000, [0, 2, 0], 7);
    let mut bus = initialized(&blob);
    let at = driver_start(&mut bus) * 512;
    // A byte of the code changed: the checksum in the entry no longer holds.
    bus.disk(ID).image[at + 600] ^= 0x55;
    assert_eq!(
        boot_driver::read(&mut bus, ID).unwrap_err(),
        NotLoaded::BadChecksum
    );
    // Another vendor's code (no FRRT magic), in an entry whose name the ROM does not
    // checksum (map block 2 holds the driver's entry; `pmPartName` is at +16).
    let mut bus = initialized(&blob);
    bus.disk(ID).image[at + 4..at + 8].copy_from_slice(b"XXXX");
    bus.disk(ID).image[1024 + 16..1024 + 48].copy_from_slice(&[0; 32]);
    bus.disk(ID).image[1024 + 16..1024 + 22].copy_from_slice(b"Vendor");
    assert_eq!(
        boot_driver::read(&mut bus, ID).unwrap_err(),
        NotLoaded::Foreign
    );
}
