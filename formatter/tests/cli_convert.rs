//! `ferrite convert`, `install-driver`, `check` and `extract`: disks that exist already, run as a user
//! runs it (`CARGO_BIN_EXE_ferrite`).
//!
//! Most tests install a stand-in driver (`--driver FILE`) and, where they make a complete
//! disk, a stand-in Ferrite Setup (`--setup-app FILE`, [`test_app`]; the others pass
//! `--no-setup-app`) so that they run on a fresh clone; the tests that boot the disks in the
//! emulated Mac need the real driver embedded in the binary (`cargo xtask test` builds it
//! first) and are `#[ignore]`d in a plain `cargo test`, as are the oracle tests (parted,
//! hfsutils, macutils, machfs).

use ferrite_formatter::apm::{HfsPartitionSpec, Layout, PartSize, read_map, write_map};
use ferrite_formatter::hfs::{FormatOptions, NewFile, Volume, format_volume};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region};
use ferrite_shared::driver_blob::Settings;

mod common;
mod support;
use common::*;
use support::old_ferrite_disk;

/// A DiskCopy 4.2 image holding `raw` (no tags).
fn diskcopy42(raw: &[u8]) -> Vec<u8> {
    let mut h = vec![0u8; 84];
    h[0] = 8;
    h[1..9].copy_from_slice(b"Old Disk");
    h[64..68].copy_from_slice(&(raw.len() as u32).to_be_bytes());
    h[80] = 3;
    h[81] = 0x22;
    h[82..84].copy_from_slice(&[0x01, 0x00]);
    h.extend_from_slice(raw);
    h
}

#[test]
fn convert_wraps_a_bare_volume() {
    let s = Scratch::new("convert");
    let drv = s.fake_ferrite(9000, true);
    bare_volume(&s, "old.dsk");
    // The bare volume itself can be listed and checked.
    assert!(ok(&s, &["ls", "old.dsk"]).contains("ReadMe"));
    ok(&s, &["check", "old.dsk"]);
    let out = ok(
        &s,
        &cmd(
            "convert old.dsk new.hda --driver {} --no-setup-app",
            &[&drv],
        ),
    );
    assert!(out.contains("Old Disk"), "{out}");
    let parts = partitions(&s.path("new.hda"), 512);
    assert_eq!(parts.len(), 3);
    assert_eq!(
        (
            parts[2].kind.as_str(),
            parts[2].name.as_str(),
            parts[2].blocks
        ),
        ("Apple_HFS", "Old Disk", 6144)
    );
    assert_eq!(
        read_file(&s.path("new.hda"), 0, &[b"ReadMe"]).0,
        b"from a .dsk"
    );
    assert!(ok(&s, &["check", "new.hda"]).contains("no problems"));
    // --size leaves room after the volume; refuses to overwrite; a non-HFS input is refused.
    ok(
        &s,
        &cmd(
            "convert old.dsk big.hda --size 10M --driver {} --no-setup-app",
            &[&drv],
        ),
    );
    assert_eq!(
        partitions(&s.path("big.hda"), 512).last().unwrap().kind,
        "Apple_Free"
    );
    let err = fails(
        &s,
        &cmd(
            "convert old.dsk new.hda --driver {} --no-setup-app",
            &[&drv],
        ),
    );
    assert!(err.contains("--force"), "{err}");
    let err = fails(
        &s,
        &cmd(
            "convert old.dsk small.hda --size 1M --driver {} --no-setup-app",
            &[&drv],
        ),
    );
    assert!(err.contains("too small"), "{err}");
    // A DiskCopy 4.2 image of the same volume.
    let raw = std::fs::read(s.path("old.dsk")).unwrap();
    std::fs::write(s.path("old.image"), diskcopy42(&raw)).unwrap();
    ok(
        &s,
        &cmd(
            "convert old.image dc.hda --driver {} --no-setup-app",
            &[&drv],
        ),
    );
    assert_eq!(
        read_file(&s.path("dc.hda"), 0, &[b"ReadMe"]).0,
        b"from a .dsk"
    );
    std::fs::write(s.path("junk.dsk"), vec![0u8; 1 << 20]).unwrap();
    let err = fails(
        &s,
        &cmd("convert junk.dsk j.hda --driver {} --no-setup-app", &[&drv]),
    );
    assert!(err.contains("not a bare HFS volume"), "{err}");
}

/// `ferrite convert` puts Ferrite Setup in the converted volume's root folder, as `init` does;
/// `--no-setup-app` leaves it out; one already there is kept; a volume without room for it,
/// or a bad application, is refused before the new disk is made.
#[test]
fn convert_puts_ferrite_setup_on_the_volume() {
    let s = Scratch::new("convert-setup");
    let drv = s.fake_ferrite(9000, true);
    let app = s.setup_app();
    bare_volume(&s, "old.dsk");
    let before = std::fs::read(s.path("old.dsk")).unwrap();
    let out = ok(
        &s,
        &cmd(
            "convert old.dsk new.hda --driver {} --setup-app {}",
            &[&drv, &app],
        ),
    );
    assert!(
        out.contains("Ferrite Setup (APPL/FRRT") && out.contains("root folder"),
        "{out}"
    );
    assert_setup_app(&s.path("new.hda"), 0, &test_app());
    assert_eq!(
        read_file(&s.path("new.hda"), 0, &[b"ReadMe"]).0,
        b"from a .dsk"
    );
    assert!(volume_clean(&s.path("new.hda"), 0));
    assert!(ok(&s, &["check", "new.hda"]).contains("no problems"));
    assert!(
        std::fs::read(s.path("old.dsk")).unwrap() == before,
        "the source volume is not changed"
    );

    // --no-setup-app: the volume as it was.
    let out = ok(
        &s,
        &cmd(
            "convert old.dsk bare.hda --driver {} --no-setup-app",
            &[&drv],
        ),
    );
    assert!(out.contains("no Ferrite Setup (--no-setup-app)"), "{out}");
    let ls = ok(&s, &["ls", "bare.hda"]);
    assert!(
        ls.contains("ReadMe") && !ls.contains("Ferrite Setup"),
        "{ls}"
    );

    // Converting a volume that already holds Ferrite Setup keeps that one.
    ok(&s, &["extract", "new.hda", "again.dsk"]);
    let o = ferrite_in(
        &s.0,
        &cmd(
            "convert again.dsk again.hda --driver {} --setup-app {}",
            &[&drv, &app],
        ),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("already holds a \"Ferrite Setup\""), "{err}");
    assert_setup_app(&s.path("again.hda"), 0, &test_app());

    // A full volume: refused, and no disk is made.
    let full = s.path("full.dsk");
    let mut img = ImageFile::create(&full, 1 << 20).unwrap();
    format_volume(&mut img, &FormatOptions::new(b"Full", 3_000_000_000)).unwrap();
    let mut v = Volume::open(&mut img).unwrap();
    let i = v.info();
    let filler = vec![0x5Au8; (i.free_blocks as usize - 2) * i.alloc_block_size as usize];
    v.add_file(
        2,
        &NewFile {
            name: b"Big",
            file_type: *b"BINA",
            creator: *b"????",
            finder_flags: 0,
            data: &filler,
            rsrc: b"",
            created: 3_000_000_000,
            modified: 3_000_000_000,
        },
    )
    .unwrap();
    v.flush().unwrap();
    drop(v);
    drop(img);
    let err = fails(
        &s,
        &cmd(
            "convert full.dsk full.hda --driver {} --setup-app {}",
            &[&drv, &app],
        ),
    );
    assert!(
        err.contains("\"Full\"")
            && err.contains("too little for Ferrite Setup")
            && err.contains("--no-setup-app"),
        "{err}"
    );
    assert!(!s.path("full.hda").exists(), "no disk is made");
    ok(
        &s,
        &cmd(
            "convert full.dsk full.hda --driver {} --no-setup-app",
            &[&drv],
        ),
    );

    // A bad application: refused before the disk is made.
    std::fs::write(s.path("junk.bin"), b"not MacBinary").unwrap();
    let err = fails(
        &s,
        &cmd(
            "convert old.dsk junk.hda --driver {} --setup-app junk.bin",
            &[&drv],
        ),
    );
    assert!(err.contains("--setup-app junk.bin"), "{err}");
    assert!(!s.path("junk.hda").exists());
}

#[test]
fn install_driver_over_a_third_party_driver_keeps_the_volumes() {
    let s = Scratch::new("install-driver");
    let vendor = s.third_party(7000);
    ok(
        &s,
        &cmd(
            "init d.hda --size 16M --volume A:6M --volume B --driver {} --no-setup-app",
            &[&vendor],
        ),
    );
    std::fs::write(s.path("f.txt"), b"survives").unwrap();
    ok(&s, &["add", "d.hda:B", "f.txt"]);
    assert!(ok(&s, &["info", "d.hda"]).contains("not a Ferrite driver"));
    let drv = s.fake_ferrite(12_000, true);
    let out = ok(&s, &["install-driver", "d.hda", "--driver", &drv]);
    assert!(
        out.contains("installed") && out.contains("driver settings: write cache on"),
        "{out}"
    );
    assert_eq!(
        driver_on_disk(&s.path("d.hda")),
        std::fs::read(&drv).unwrap()
    );
    assert_eq!(read_file(&s.path("d.hda"), 1, &[b"f.txt"]).0, b"survives");
    assert!(volume_clean(&s.path("d.hda"), 0) && volume_clean(&s.path("d.hda"), 1));
    // Only the settings change: the flag flips, the checksum follows.
    ok(
        &s,
        &cmd(
            "install-driver d.hda --driver {} --write-cache off",
            &[&drv],
        ),
    );
    assert!(
        !Settings::read(&driver_on_disk(&s.path("d.hda")))
            .unwrap()
            .write_cache
    );
    // An update keeps the installed settings.
    let drv2 = s.fake_ferrite(12_500, true);
    ok(&s, &["install-driver", "d.hda", "--driver", &drv2]);
    let on_disk = driver_on_disk(&s.path("d.hda"));
    assert_eq!(on_disk.len(), 12_500);
    assert!(!Settings::read(&on_disk).unwrap().write_cache, "kept off");
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
    // A driver larger than any free space (the old driver's partition and the end of the
    // map, volumes right after them): refused, untouched.
    let huge = s.fake_ferrite(50_000, true);
    let before = std::fs::read(s.path("d.hda")).unwrap();
    let err = fails(&s, &["install-driver", "d.hda", "--driver", &huge]);
    assert!(
        err.contains("no room for the new driver") && err.contains("ferrite init --force"),
        "{err}"
    );
    assert!(std::fs::read(s.path("d.hda")).unwrap() == before);
    assert_eq!(driver_on_disk(&s.path("d.hda")).len(), 12_500);
}

#[test]
fn install_driver_adds_and_grows_a_driver_partition_in_free_space() {
    let s = Scratch::new("install-grow");
    // A disk without a driver (as hformat or another tool leaves it), free space at the end.
    let path = s.path("nodrv.hda");
    let mut img = ImageFile::create(&path, 16 << 20).unwrap();
    let layout = Layout {
        driver: None,
        driver_slot_blocks: 0,
        hfs: vec![HfsPartitionSpec {
            name: "Vol".into(),
            size: PartSize::Blocks(20_000),
        }],
    };
    let map = write_map(&mut img, &layout).unwrap();
    let p = map.hfs_partitions().next().unwrap().clone();
    format_volume(
        &mut Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap(),
        &FormatOptions::new(b"Vol", 3_000_000_000),
    )
    .unwrap();
    drop(img);
    assert!(ok(&s, &["info", "nodrv.hda"]).contains("no driver"));
    let drv = s.fake_ferrite(9000, false);
    let out = ok(&s, &["install-driver", "nodrv.hda", "--driver", &drv]);
    assert!(out.contains("new partition"), "{out}");
    let parts = partitions(&path, 512);
    let d = parts.iter().find(|p| p.kind == "Apple_Driver43").unwrap();
    assert_eq!(
        d.blocks, 96,
        "18 blocks and the 8-block record area needed, the default partition taken"
    );
    assert!(
        out.contains(&format!(
            "flight-record area: blocks {}-{}",
            d.start + 88,
            d.start + 95
        )),
        "{out}"
    );
    assert_eq!(parts.last().unwrap().kind, "Apple_Free");
    // A bigger driver goes to the free space after it (never over the installed one, so
    // that a stop halfway leaves a driver that boots); the old partition becomes free.
    let big = s.fake_ferrite(60_000, false);
    ok(&s, &["install-driver", "nodrv.hda", "--driver", &big]);
    let parts = partitions(&path, 512);
    let d2 = parts.iter().find(|p| p.kind == "Apple_Driver43").unwrap();
    assert_eq!((d2.start, d2.blocks), (d.start + 96, 118 + 8));
    let old = parts.iter().find(|p| p.start == d.start).unwrap();
    assert_eq!((old.kind.as_str(), old.blocks), ("Apple_Free", 96));
    let free = parts.last().unwrap();
    assert_eq!(
        (free.kind.as_str(), free.start, free.start + free.blocks),
        ("Apple_Free", d.start + 96 + 126, 32768)
    );
    assert_eq!(driver_on_disk(&path), std::fs::read(&big).unwrap());
    assert!(volume_clean(&path, 0));
    // A bare volume has no map to put a driver in.
    bare_volume(&s, "bare.dsk");
    let err = fails(&s, &["install-driver", "bare.dsk", "--driver", &drv]);
    assert!(err.contains("ferrite convert"), "{err}");
}

/// A disk as Ferrite 0.1 made it: the driver's 32-block partition full, the volume filling
/// the rest. The first update grows the driver partition into the unused end of the map
/// partition (driver and record area); one with room for the driver but not the area goes
/// in without it, saying so; one with room for neither is refused in words, the disk
/// untouched.
#[test]
fn install_driver_grows_an_old_driver_partition_or_refuses_in_words() {
    let s = Scratch::new("install-old");
    let old = std::fs::read(s.fake_ferrite_v2(16_130)).unwrap();
    std::fs::write(
        s.path("old.hda"),
        old_ferrite_disk(8192, &old, &[None]).as_bytes(),
    )
    .unwrap();
    std::fs::write(
        s.path("full.hda"),
        std::fs::read(s.path("old.hda")).unwrap(),
    )
    .unwrap();
    // 40 blocks of driver and the 8-block area: the map partition's end (63 blocks, 3
    // entries) has 59 to spare.
    let drv = s.fake_ferrite_v2(20_000);
    let out = ok(&s, &["install-driver", "old.hda", "--driver", &drv]);
    assert!(
        out.contains("installed in partition 4 at block 16, 48 blocks")
            && out.contains("flight-record area: blocks 56-63"),
        "{out}"
    );
    assert!(ok(&s, &["check", "old.hda"]).contains("no problems"));
    // The next update: the old 32 blocks are too small, the map's end is taken: refused.
    let before = std::fs::read(s.path("old.hda")).unwrap();
    let bigger = s.fake_ferrite_v2(20_500);
    let err = fails(&s, &["install-driver", "old.hda", "--driver", &bigger]);
    assert!(
        err.contains("no room for the new driver and its flight-record area (24.5 KiB)")
            && err.contains("make the last volume smaller")
            && err.contains("ferrite init --force"),
        "{err}"
    );
    assert!(std::fs::read(s.path("old.hda")).unwrap() == before);
    // 55 blocks of driver fit the map's end, the area does not: installed without one.
    let tight = s.fake_ferrite_v2(28_000);
    let out = ok(&s, &["install-driver", "full.hda", "--driver", &tight]);
    assert!(
        out.contains("55 blocks") && out.contains("note: no room for the flight-record area"),
        "{out}"
    );
    assert!(ok(&s, &["check", "full.hda"]).contains("no problems"));
    assert_eq!(driver_on_disk(&s.path("full.hda")).len(), 28_000);
}

#[test]
fn check_reports_damage_with_a_non_zero_exit() {
    let s = Scratch::new("check");
    let drv = s.fake_ferrite(9000, true);
    s.init_stand_in("d.hda --size 8M");
    // Corrupt drFreeBks in the volume's MDB (partition at block 160, MDB at +1024, field
    // +0x22, its low byte).
    let mut b = std::fs::read(s.path("d.hda")).unwrap();
    let at = 160 * 512 + 1024 + 0x23;
    b[at] ^= 0x01;
    std::fs::write(s.path("d.hda"), &b).unwrap();
    let out = ferrite_in(&s.0, &["check", "d.hda"]);
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1 problems"), "{text}");
    // A damaged driver fails the map check.
    b[at] ^= 0x01;
    b[64 * 512 + 100] ^= 0xFF;
    std::fs::write(s.path("d.hda"), &b).unwrap();
    let err = fails(&s, &["check", "d.hda"]);
    assert!(
        err.contains("pmBootCksum") && err.contains("ferrite install-driver"),
        "{err}"
    );
    ok(&s, &["install-driver", "d.hda", "--driver", &drv]);
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
}

#[test]
fn extract_writes_one_volume_of_a_disk_to_a_file() {
    let s = Scratch::new("extract");
    let drv = s.fake_ferrite(9000, false);
    ok(
        &s,
        &cmd(
            "init d.hda --size 20M --volume System:8M --volume Data --driver {} --no-setup-app",
            &[&drv],
        ),
    );
    std::fs::write(s.path("note.txt"), b"kept\n").unwrap();
    ok(&s, &["add", "d.hda:Data", "note.txt"]);
    let out = ok(&s, &["extract", "d.hda:Data", "Data.dsk"]);
    assert!(out.contains("volume 2 \"Data\""), "{out}");
    // The file holds exactly the partition's bytes.
    let mut img = ImageFile::open(&s.path("d.hda")).unwrap();
    let map = read_map(&mut img).unwrap();
    let p = map.hfs_partitions().nth(1).unwrap().clone();
    let mut want = vec![0u8; p.blocks as usize * 512];
    img.read_blocks(p.start as u64, &mut want).unwrap();
    assert!(std::fs::read(s.path("Data.dsk")).unwrap() == want);
    assert!(ok(&s, &["ls", "Data.dsk"]).contains("note.txt"));
    assert!(ok(&s, &["check", "Data.dsk"]).contains("no problems"));
    // The first volume when none is named; by number; --force to overwrite.
    let out = ok(&s, &["extract", "d.hda", "System.dsk"]);
    assert!(out.contains("volume 1 \"System\""), "{out}");
    let e = fails(&s, &["extract", "d.hda:2", "Data.dsk"]);
    assert!(e.contains("--force"), "{e}");
    ok(&s, &["extract", "d.hda:2", "Data.dsk", "--force"]);
    let e = fails(&s, &["extract", "Data.dsk", "x.dsk"]);
    assert!(e.contains("already a bare HFS volume"), "{e}");
    let e = fails(&s, &["extract", "d.hda:Nope", "x.dsk"]);
    assert!(
        e.contains("no volume \"Nope\"") && e.contains("2 \"Data\""),
        "{e}"
    );
    // And back into a disk.
    ok(
        &s,
        &cmd(
            "convert Data.dsk HD10_512.hda --driver {} --no-setup-app",
            &[&drv],
        ),
    );
    assert!(ok(&s, &["ls", "HD10_512.hda"]).contains("note.txt"));
}
