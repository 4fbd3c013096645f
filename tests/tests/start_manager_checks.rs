//! The ROM's disk checks (`start_manager::checks`) on disks built by `test_disk`.

use ferrite_emu::start_manager::{
    DriverEntry, RomChecks, RomGeneration, SkipReason, Verdict, examine_disk,
};
use ferrite_emu::test_disk::TestDisk;

fn verdict(img: &[u8], rom: RomGeneration, checks: &RomChecks) -> Verdict {
    let mut read = |lba: u32, n: u32| -> Result<Vec<u8>, String> {
        let s = lba as usize * 512;
        let e = s + n as usize * 512;
        img.get(s..e)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| format!("LBA {lba}+{n} beyond the disk"))
    };
    examine_disk(rom, checks, &mut read)
}

fn driver_bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + 3) as u8).collect()
}

#[test]
fn a_good_disk_loads_with_the_entry_of_each_rom() {
    let drv = driver_bytes(1500);
    let (img, layout) = TestDisk::new(drv.clone()).build();
    assert_eq!(layout.driver_start, 64);
    for (rom, entry) in [
        (RomGeneration::OriginalScsiManager, DriverEntry::Original),
        (RomGeneration::ScsiManager43, DriverEntry::Scsi43),
    ] {
        let Verdict::Load { driver, image } = verdict(&img, rom, &RomChecks::default()) else {
            panic!("{rom:?} refused a good disk");
        };
        assert_eq!(driver.entry, entry);
        assert!(driver.checksum_checked);
        assert_eq!(driver.block, 64);
        assert_eq!(driver.load_bytes, 3 * 512, "ddSize × sbBlkSize");
        assert_eq!(&image[..1500], &drv[..]);
    }
    // An old-style driver type is entered at +0 even by a 4.3 ROM.
    let mut d = TestDisk::new(drv);
    d.driver_type = "Apple_Driver".into();
    let (img, _) = d.build();
    let Verdict::Load { driver, .. } =
        verdict(&img, RomGeneration::ScsiManager43, &RomChecks::default())
    else {
        panic!()
    };
    assert_eq!(driver.entry, DriverEntry::Original);
}

#[test]
fn bad_disks_are_skipped_with_the_reason() {
    let drv = driver_bytes(700);
    let rom = RomGeneration::OriginalScsiManager;
    let checks = RomChecks::default();

    let mut d = TestDisk::new(drv.clone());
    d.corrupt_checksum = true;
    let (img, _) = d.build();
    assert!(matches!(
        verdict(&img, rom, &checks),
        Verdict::Skip(SkipReason::ChecksumMismatch { .. })
    ));
    // The checksum is only checked for names starting with "Maci".
    d.driver_name = "Driver".into();
    let (img, _) = d.build();
    assert!(matches!(verdict(&img, rom, &checks), Verdict::Load { .. }));

    let mut d = TestDisk::new(drv.clone());
    d.volumes.clear();
    let (img, _) = d.build();
    assert_eq!(
        verdict(&img, rom, &checks),
        Verdict::Skip(SkipReason::NoHfsPartition)
    );
    let relaxed = RomChecks {
        require_hfs: false,
        ..RomChecks::default()
    };
    assert!(matches!(verdict(&img, rom, &relaxed), Verdict::Load { .. }));

    let (mut img, _) = TestDisk::new(drv.clone()).build();
    img[0] = 0;
    assert!(matches!(
        verdict(&img, rom, &checks),
        Verdict::Skip(SkipReason::NotFormatted { .. })
    ));
    let (mut img, _) = TestDisk::new(drv.clone()).build();
    img[512] = b'T';
    img[513] = b'S';
    assert!(matches!(
        verdict(&img, rom, &checks),
        Verdict::Skip(SkipReason::NoPartitionMap { sig: 0x5453 })
    ));
    let (mut img, _) = TestDisk::new(drv.clone()).build();
    img[18 + 7] = 2; // ddType 1 → 2
    assert!(matches!(
        verdict(&img, rom, &checks),
        Verdict::Skip(SkipReason::NoDriverForOsType { os_type: 1 })
    ));
    let (mut img, _) = TestDisk::new(drv).build();
    img[2 * 512 + 48 + 6] = b'X'; // "Apple_Xriver43"
    assert_eq!(
        verdict(&img, rom, &checks),
        Verdict::Skip(SkipReason::NoDriverEntry)
    );
    // A disk too short to hold its own map is skipped, never a panic.
    assert!(matches!(
        verdict(&img[..600], rom, &checks),
        Verdict::Skip(SkipReason::ReadFailed(_))
    ));
}
