//! `ferrite init`: making a disk (partition map, driver, volumes, Ferrite Setup) and its driver settings, run as a user
//! runs it (`CARGO_BIN_EXE_ferrite`).
//!
//! Most tests install a stand-in driver (`--driver FILE`) and, where they make a complete
//! disk, a stand-in Ferrite Setup (`--setup-app FILE`, [`test_app`]; the others pass
//! `--no-setup-app`) so that they run on a fresh clone; the tests that boot the disks in the
//! emulated Mac need the real driver embedded in the binary (`cargo xtask test` builds it
//! first) and are `#[ignore]`d in a plain `cargo test`, as are the oracle tests (parted,
//! hfsutils, macutils, machfs).

use ferrite_formatter::apm::{Layout, read_map};
use ferrite_formatter::hfs::{EntryKind, FormatOptions, Volume, format_volume};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{Region, macbinary};
use ferrite_shared::driver_blob::Settings;

mod common;
mod support;
use common::*;
use support::resource_fork;

#[test]
fn init_default_makes_one_volume_filling_the_disk() {
    let s = Scratch::new("init-default");
    let drv = s.fake_ferrite(9000, true);
    let out = s.init_with_setup("disk.hda --size 20M");
    assert!(out.contains("Macintosh HD"), "{out}");
    assert!(
        out.contains("Ferrite Setup (APPL/FRRT") && out.contains("every volume"),
        "{out}"
    );
    assert_eq!(
        std::fs::metadata(s.path("disk.hda")).unwrap().len(),
        20 << 20
    );
    let parts = partitions(&s.path("disk.hda"), 512);
    let kinds: Vec<(&str, &str, u32, u32)> = parts
        .iter()
        .map(|p| (p.kind.as_str(), p.name.as_str(), p.start, p.blocks))
        .collect();
    assert_eq!(
        kinds,
        [
            ("Apple_partition_map", "Apple", 1, 63),
            ("Apple_Driver43", "Macintosh", 64, 96),
            ("Apple_HFS", "Macintosh HD", 160, 40960 - 160)
        ]
    );
    assert_eq!(
        driver_on_disk(&s.path("disk.hda")),
        std::fs::read(&drv).unwrap()
    );
    assert_setup_app(&s.path("disk.hda"), 0, &test_app());
    assert!(volume_clean(&s.path("disk.hda"), 0));
}

#[test]
fn init_multi_volume_and_free_space() {
    let s = Scratch::new("init-multi");
    s.init_with_setup("d.hda --size 64M --volume System:20M --volume Data:30M");
    let parts = partitions(&s.path("d.hda"), 512);
    let summary: Vec<(&str, &str, u32)> = parts
        .iter()
        .map(|p| (p.kind.as_str(), p.name.as_str(), p.blocks))
        .collect();
    assert_eq!(
        summary,
        [
            ("Apple_partition_map", "Apple", 63),
            ("Apple_Driver43", "Macintosh", 96),
            ("Apple_HFS", "System", 40960),
            ("Apple_HFS", "Data", 61440),
            ("Apple_Free", "Extra", 131072 - 160 - 40960 - 61440)
        ]
    );
    let ls = ok(&s, &["ls", "d.hda"]);
    assert!(ls.contains("System:") && ls.contains("Data:"), "{ls}");
    // The last volume without a size takes the rest.
    s.init_with_setup("e.hda --size 64M --volume A:20M --volume B");
    let parts = partitions(&s.path("e.hda"), 512);
    assert_eq!(parts.last().unwrap().name, "B");
    assert_eq!(
        parts.last().unwrap().start + parts.last().unwrap().blocks,
        131072
    );
    assert!(volume_clean(&s.path("e.hda"), 0) && volume_clean(&s.path("e.hda"), 1));
    for n in 0..2 {
        assert_setup_app(&s.path("e.hda"), n, &test_app());
    }
}

#[test]
fn init_into_a_directory_uses_bluescsi_names() {
    let s = Scratch::new("init-dir");
    std::fs::create_dir(s.path("sd")).unwrap();
    s.init_with_setup("sd --size 8M");
    assert!(s.path("sd/HD00_512.hda").is_file());
    s.init_with_setup("sd --size 8M");
    assert!(s.path("sd/HD10_512.hda").is_file(), "the next free ID");
    std::fs::write(s.path("sd/CD20.iso"), b"").unwrap();
    s.init_with_setup("sd --size 8M --block-size 2048");
    assert!(
        s.path("sd/HD30_2048.hda").is_file(),
        "ID 2 is taken by the CD image"
    );
    let info = ok(&s, &["info", &s.p("sd/HD30_2048.hda")]);
    assert!(
        info.contains("blocks of 2048 bytes") && info.contains(", 1 files,"),
        "{info}"
    );
    let mb = test_app();
    let ls = ok(&s, &["ls", &s.p("sd/HD30_2048.hda")]);
    assert!(
        ls.starts_with(&format!(
            "APPL/FRRT {:>10} {:>10} ",
            mb.data.len(),
            mb.rsrc.len()
        )) && ls.trim_end().ends_with("  Ferrite Setup"),
        "Ferrite Setup on a 2048-byte-block disk: {ls}"
    );
    assert!(ok(&s, &["check", &s.p("sd/HD30_2048.hda")]).contains("no problems"));
    assert_eq!(
        partitions(&s.path("sd/HD30_2048.hda"), 2048)[2].blocks,
        4096 - 160
    );
    // The block size comes from the file name when not given.
    s.init_with_setup("HD50_1024.hda --size 8M");
    assert!(ok(&s, &["info", "HD50_1024.hda"]).contains("blocks of 1024 bytes"));
}

#[test]
fn init_refuses_an_existing_disk_without_force() {
    let s = Scratch::new("init-force");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    s.init_with_setup("d.hda --size 8M");
    std::fs::write(s.path("a.txt"), b"keep me").unwrap();
    ok(&s, &["add", "d.hda", "a.txt"]);
    let err = fails(
        &s,
        &cmd(
            "init d.hda --size 8M --driver {} --setup-app {}",
            &[&drv, &app],
        ),
    );
    assert!(
        err.contains("already holds a partition map") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        read_file(&s.path("d.hda"), 0, &[b"a.txt"]).0,
        b"keep me",
        "untouched"
    );
    // A bare HFS volume is protected too.
    let mut img = ImageFile::create(&s.path("bare.dsk"), 1 << 20).unwrap();
    format_volume(&mut img, &FormatOptions::new(b"Bare", 3_000_000_000)).unwrap();
    drop(img);
    let err = fails(
        &s,
        &cmd("init bare.dsk --driver {} --setup-app {}", &[&drv, &app]),
    );
    assert!(err.contains("an HFS volume"), "{err}");
    // --force erases; an existing file keeps its size unless --size is given.
    s.init_with_setup("d.hda --force --volume New");
    assert_eq!(std::fs::metadata(s.path("d.hda")).unwrap().len(), 8 << 20);
    let ls = ok(&s, &["ls", "d.hda"]);
    assert!(
        ls.lines().count() == 1 && ls.contains("Ferrite Setup") && !ls.contains("a.txt"),
        "only the new Ferrite Setup: {ls}"
    );
    assert_eq!(partitions(&s.path("d.hda"), 512)[2].name, "New");
}

#[test]
fn init_errors_name_the_problem() {
    let s = Scratch::new("init-errors");
    let drv = s.fake_ferrite(9000, true);
    let vendor = s.third_party(5000);
    // The command line ({} is the driver) and the words its error must contain.
    let cases: [(&str, &str, &[&str]); 9] = [
        (
            "init d.hda --size 12Q --driver {}",
            &drv,
            &["bad size", "2G"],
        ),
        (
            "init d.hda --size 100K --driver {}",
            &drv,
            &["too small", "--size"],
        ),
        (
            "init d.hda --size 64M --volume A --volume B --driver {}",
            &drv,
            &["only the last"],
        ),
        (
            "init d.hda --size 64M --volume A:100M --driver {}",
            &drv,
            &["too small"],
        ),
        (
            "init d.hda --size 64M --volume Bad:Name:1M --driver {}",
            &drv,
            &["':'"],
        ),
        (
            "init d.hda --size 64M --block-size 600 --driver {}",
            &drv,
            &["block size 600"],
        ),
        (
            "init d.hda --size 8M --driver {}",
            "missing.drvr",
            &["missing.drvr"],
        ),
        (
            "init nowhere/d.hda --size 8M --driver {}",
            &drv,
            &["does not exist"],
        ),
        (
            "init d.hda --size 8M --driver {} --write-cache off",
            &vendor,
            &["Ferrite"],
        ),
    ];
    for (line, driver, words) in cases {
        let err = fails(&s, &cmd(&format!("{line} --no-setup-app"), &[driver]));
        for w in words {
            assert!(err.contains(w), "`{line}`: no {w:?} in {err}");
        }
    }
    assert!(
        !s.path("d.hda").exists(),
        "nothing is created when the arguments are wrong"
    );
}

// ---- Ferrite Setup on the volumes init makes ----

#[test]
fn init_puts_ferrite_setup_on_every_volume() {
    let s = Scratch::new("setup-every");
    let out = s.init_with_setup(
        "d.hda --size 48M --volume System:12M --volume Apps:12M --volume Small:400K --volume Data",
    );
    assert!(out.contains("Ferrite Setup (APPL/FRRT"), "{out}");
    for n in 0..4 {
        assert_setup_app(&s.path("d.hda"), n, &test_app());
        assert!(volume_clean(&s.path("d.hda"), n), "volume {n}");
    }
    let ls = ok(&s, &["ls", "d.hda"]);
    assert_eq!(
        ls.lines()
            .filter(|l| l.starts_with("APPL/FRRT") && l.ends_with("  Ferrite Setup"))
            .count(),
        4,
        "{ls}"
    );
    let info = ok(&s, &["info", "d.hda"]);
    assert_eq!(info.matches(", 1 files, ").count(), 4, "{info}");
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
    // The volumes take more files beside it.
    std::fs::write(s.path("note.txt"), b"beside Ferrite Setup").unwrap();
    ok(&s, &["add", "d.hda:Small", "note.txt"]);
    assert_setup_app(&s.path("d.hda"), 2, &test_app());
    assert_eq!(
        read_file(&s.path("d.hda"), 2, &[b"note.txt"]).0,
        b"beside Ferrite Setup"
    );
    assert!(volume_clean(&s.path("d.hda"), 2));
}

#[test]
fn init_no_setup_app_leaves_it_out() {
    let s = Scratch::new("setup-none");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    let out = s.init_stand_in("d.hda --size 16M --volume One:6M --volume Two");
    assert!(out.contains("no Ferrite Setup"), "{out}");
    for v in ["One", "Two"] {
        let ls = ok(&s, &["ls", &format!("d.hda:{v}")]);
        assert!(ls.contains("(empty)"), "{v}: {ls}");
    }
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
    // Not both.
    let err = fails(
        &s,
        &cmd(
            "init e.hda --size 8M --driver {} --setup-app {} --no-setup-app",
            &[&drv, &app],
        ),
    );
    assert!(err.contains("cannot be used with"), "{err}");
    assert!(!s.path("e.hda").exists());
}

#[test]
fn init_uses_the_embedded_setup_app_or_says_how_to_build_it() {
    let s = Scratch::new("setup-embedded");
    let drv = s.fake_ferrite(9000, true);
    if EMBEDDED_SETUP_APP.is_empty() {
        // Built before `cargo xtask build`: refused in one line naming the fixes, nothing made.
        let err = fails(&s, &cmd("init d.hda --size 8M --driver {}", &[&drv]));
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("without Ferrite Setup")
                && err.contains("cargo xtask build")
                && err.contains("--setup-app FILE")
                && err.contains("--no-setup-app"),
            "{err}"
        );
        assert!(!s.path("d.hda").exists());
    } else {
        // The real application: type APPL, creator FRRT, hasBundle, CODE in its resource fork.
        let mb = macbinary::parse(EMBEDDED_SETUP_APP).expect("the embedded MacBinary parses");
        ok(&s, &cmd("init d.hda --size 8M --driver {}", &[&drv]));
        let (e, data, rsrc) = file_entry(&s.path("d.hda"), 0, b"Ferrite Setup");
        let EntryKind::File {
            file_type,
            creator,
            finder_flags,
            ..
        } = e.kind
        else {
            panic!("a folder")
        };
        assert_eq!((&file_type, &creator), (b"APPL", b"FRRT"));
        assert_eq!(finder_flags & (HAS_BUNDLE | HAS_BEEN_INITED), HAS_BUNDLE);
        assert!(data == mb.data && rsrc == mb.rsrc);
        assert!(rsrc.windows(4).any(|w| w == b"CODE"));
        assert!(volume_clean(&s.path("d.hda"), 0));
    }
}

#[test]
fn init_refuses_a_bad_setup_app_before_touching_the_disk() {
    let s = Scratch::new("setup-bad");
    let drv = s.fake_ferrite(9000, true);
    s.init_with_setup("d.hda --size 8M");
    std::fs::write(s.path("a.txt"), b"keep me").unwrap();
    ok(&s, &["add", "d.hda", "a.txt"]);
    let before = std::fs::read(s.path("d.hda")).unwrap();
    let good = macbinary::encode(&test_app());
    let with = |f: &dyn Fn(&mut macbinary::MacFile)| {
        let mut a = test_app();
        f(&mut a);
        macbinary::encode(&a)
    };
    let mut bad_crc = good.clone();
    bad_crc[5] ^= 0x20; // a letter of the name: the header CRC no longer matches
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("crc.bin", bad_crc, "MacBinary header CRC"),
        (
            "text.bin",
            with(&|a| a.file_type = *b"TEXT"),
            "type 'TEXT', not an application ('APPL')",
        ),
        (
            "plain.bin",
            b"plain text, not MacBinary\n".repeat(20),
            "not MacBinary (bytes 0, 74 and 82",
        ),
        (
            "cut.bin",
            good[..good.len() - 300].to_vec(),
            "MacBinary file truncated",
        ),
        ("norsrc.bin", with(&|a| a.rsrc.clear()), "it is empty"),
        (
            "junk.bin",
            with(&|a| a.rsrc = vec![0xA5; 700]),
            "the resource fork is not valid (its header",
        ),
        (
            "nocode.bin",
            with(&|a| a.rsrc = resource_fork(&[(b"CODE", 0, b"jt"), (b"STR ", 128, b"\x01x")])),
            "no 'CODE' 1",
        ),
    ];
    for (name, bytes, says) in cases {
        std::fs::write(s.path(name), bytes).unwrap();
        let err = fails(
            &s,
            &cmd(
                "init d.hda --force --driver {} --setup-app {}",
                &[&drv, name],
            ),
        );
        assert!(
            err.contains(says) && err.contains(name) && err.contains("--no-setup-app"),
            "{name}: {err}"
        );
        assert!(
            std::fs::read(s.path("d.hda")).unwrap() == before,
            "{name}: the disk was changed"
        );
        fails(
            &s,
            &cmd(
                "init new.hda --size 8M --driver {} --setup-app {}",
                &[&drv, name],
            ),
        );
        assert!(!s.path("new.hda").exists(), "{name}: a disk was created");
    }
    let err = fails(
        &s,
        &cmd(
            "init d.hda --force --driver {} --setup-app missing.bin",
            &[&drv],
        ),
    );
    assert!(err.contains("missing.bin"), "{err}");
    // An application too big for a volume is refused before anything is written.
    std::fs::write(s.path("big.bin"), with(&|a| a.data = vec![1; 500 << 10])).unwrap();
    let err = fails(
        &s,
        &cmd(
            "init d.hda --force --volume Tiny:400K --volume Rest --driver {} --setup-app big.bin",
            &[&drv],
        ),
    );
    assert!(
        err.contains("\"Tiny\"") && err.contains("too little for Ferrite Setup"),
        "{err}"
    );
    assert!(std::fs::read(s.path("d.hda")).unwrap() == before);
    assert_eq!(read_file(&s.path("d.hda"), 0, &[b"a.txt"]).0, b"keep me");
}

#[test]
fn write_cache_setting_is_written_into_the_driver() {
    let s = Scratch::new("write-cache");
    s.init_stand_in("d.hda --size 8M --write-cache off");
    assert!(
        !Settings::read(&driver_on_disk(&s.path("d.hda")))
            .unwrap()
            .write_cache
    );
    assert!(ok(&s, &["info", "d.hda"]).contains("write cache off"));
    assert!(
        ok(&s, &["check", "d.hda"]).contains("no problems"),
        "the checksum covers the changed settings"
    );
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn idle_flush_is_written_and_shown() {
    let s = Scratch::new("idleflush");
    let init = |extra: &[&str]| {
        let mut args = vec!["init", "d.hda", "--size", "8M", "--no-setup-app", "--force"];
        args.extend_from_slice(extra);
        ok(&s, &args)
    };
    let on_disk = || Settings::read(&driver_on_disk(&s.path("d.hda"))).unwrap();
    // The built-in driver carries half a second.
    init(&[]);
    assert_eq!(on_disk().idle_flush_ticks, 30);
    let info = ok(&s, &["info", "d.hda"]);
    assert!(info.contains("cache flushed after 30 ticks"), "{info}");
    init(&["--idle-flush", "120"]);
    assert_eq!(on_disk().idle_flush_ticks, 120);
    init(&["--idle-flush", "0"]);
    assert_eq!(on_disk().idle_flush_ticks, 0);
    let info = ok(&s, &["info", "d.hda"]);
    assert!(info.contains("no idle flush"), "{info}");
    // Updating the driver gives the new driver's idle flush unless the option says otherwise.
    ok(&s, &["install-driver", "d.hda"]);
    assert_eq!(on_disk().idle_flush_ticks, 30);
    ok(&s, &["install-driver", "d.hda", "--idle-flush", "45"]);
    assert_eq!(on_disk().idle_flush_ticks, 45);
    // Write-through: nothing to flush, nothing said about it.
    init(&["--write-cache", "off"]);
    assert!(!ok(&s, &["info", "d.hda"]).contains("flush"));
}

#[test]
fn transfer_settings_are_written_shown_and_kept() {
    use ferrite_shared::driver_blob::TransferMode;
    let s = Scratch::new("transfer");
    let drv = s.fake_ferrite_v2(9000);
    let init = |extra: &[&str]| {
        let mut args = vec!["init", "d.hda", "--size", "8M", "--driver", &drv];
        args.extend_from_slice(&["--no-setup-app", "--force"]);
        args.extend_from_slice(extra);
        ok(&s, &args)
    };
    let on_disk = || Settings::read(&driver_on_disk(&s.path("d.hda"))).unwrap();
    init(&[]);
    assert_eq!(on_disk().transfer, TransferMode::Auto);
    assert_eq!(on_disk().max_blocks_old, 128);
    init(&["--transfer-mode", "polled", "--max-blocks", "64"]);
    assert_eq!(on_disk().transfer, TransferMode::Polled);
    assert_eq!(on_disk().max_blocks_old, 64);
    let info = ok(&s, &["info", "d.hda"]);
    assert!(
        info.contains("transfer mode polled") && info.contains("at most 64 blocks per command"),
        "{info}"
    );
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
    // An update keeps them; options change them.
    let drv2 = s.fake_ferrite_v2(9500);
    ok(&s, &["install-driver", "d.hda", "--driver", &drv2]);
    assert_eq!(
        (on_disk().transfer, on_disk().max_blocks_old),
        (TransferMode::Polled, 64)
    );
    let out = ok(
        &s,
        &cmd(
            "install-driver d.hda --driver {} --transfer-mode blind --max-blocks 0",
            &[&drv2],
        ),
    );
    assert!(out.contains("transfer mode blind, no cap"), "{out}");
    assert_eq!(
        (on_disk().transfer, on_disk().max_blocks_old),
        (TransferMode::Blind, 0)
    );
    // A driver from before the transfer settings (settings block version 1) cannot take them.
    let v1 = s.fake_ferrite(9000, true);
    let err = fails(
        &s,
        &cmd(
            "init e.hda --size 8M --driver {} --no-setup-app --transfer-mode polled",
            &[&v1],
        ),
    );
    assert!(err.contains("predates the transfer-mode settings"), "{err}");
    fails(&s, &cmd("init e.hda --size 8M --transfer-mode fast", &[]));
    // Over a version-1 driver, the new driver starts with its own transfer defaults.
    ok(
        &s,
        &cmd("init f.hda --size 8M --driver {} --no-setup-app", &[&v1]),
    );
    ok(&s, &["install-driver", "f.hda", "--driver", &drv2]);
    let f = Settings::read(&driver_on_disk(&s.path("f.hda"))).unwrap();
    assert_eq!((f.transfer, f.max_blocks_old), (TransferMode::Auto, 128));
}

#[test]
fn sizes_are_parsed_like_people_write_them() {
    let s = Scratch::new("sizes");
    let drv = s.fake_ferrite(9000, true);
    for (arg, bytes) in [
        ("1.5M", 3 << 19),
        ("2048K", 2 << 20),
        ("3MiB", 3 << 20),
        ("4194304", 4 << 20),
    ] {
        let name = format!("d{bytes}.hda");
        ok(
            &s,
            &cmd(
                "init {} --size {} --driver {} --no-setup-app",
                &[&name, arg, &drv],
            ),
        );
        assert_eq!(
            std::fs::metadata(s.path(&name)).unwrap().len(),
            bytes,
            "{arg}"
        );
    }
    for bad in ["", "M", "1.5", "-3M", "2X"] {
        let err = fails(
            &s,
            &cmd(
                "init bad.hda {} --driver {} --no-setup-app",
                &[&format!("--size={bad}"), &drv],
            ),
        );
        assert!(err.contains("size"), "{bad}: {err}");
    }
}

#[test]
fn init_with_a_date_makes_the_same_disk_twice() {
    let s = Scratch::new("init-date");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, false);
    let args = |disk: &'static str| {
        [
            "init",
            disk,
            "--size",
            "20M",
            "--date",
            "2026-12-01T10:00:00Z",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ]
        .map(str::to_string)
    };
    let a = args("a.hda");
    ok(&s, &a.iter().map(String::as_str).collect::<Vec<_>>());
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let b = args("b.hda");
    ok(&s, &b.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        std::fs::read(s.path("a.hda")).unwrap() == std::fs::read(s.path("b.hda")).unwrap(),
        "two runs of the same `ferrite init --date` differ"
    );
    // The volume carries that date (Mac seconds, UTC).
    let mut img = ImageFile::open(&s.path("a.hda")).unwrap();
    let map = read_map(&mut img).unwrap();
    let p = map.hfs_partitions().next().unwrap().clone();
    let r = Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap();
    let v = Volume::open(r).unwrap();
    let date_2026_12_01_10h = 2_082_844_800u32 + 1_796_119_200;
    assert_eq!(v.info().created, date_2026_12_01_10h);
    let e = fails(
        &s,
        &cmd("init c.hda --date 2026-02-30 --driver {}", &[&drv]),
    );
    assert!(e.contains("no such day"), "{e}");
}

/// `ferrite init` writes exactly what the formatter core's `init::initialize` writes for the
/// same choices — the function Ferrite Setup runs on the Mac (setup/tests/ops.rs compares the
/// app's disk with the same core call), so the two make the same disk apart from dates.
#[test]
fn init_writes_what_the_core_initialize_writes() {
    use ferrite_formatter::init::{self, InitOptions, VolumeSpec};
    let s = Scratch::new("init-core");
    let drv = s.fake_ferrite_v2(14_000);
    ok(
        &s,
        &cmd(
            "init {} --size 20M --volume System:10M --volume Data --driver {} --write-cache off --no-setup-app --date 2027-01-01",
            &[&s.p("disk.img"), &drv],
        ),
    );
    let written = std::fs::read(s.path("disk.img")).unwrap();
    let first = ferrite_formatter::apm::read_map(&mut ferrite_formatter::MemDisk::from_bytes(
        written.clone(),
    ))
    .unwrap();
    let hfs = first.hfs_partitions().next().unwrap();
    let mut date = [0u8; 4];
    date.copy_from_slice(&written[hfs.start as usize * 512 + 1024 + 2..][..4]);
    let date = u32::from_be_bytes(date);

    let mut blob = std::fs::read(&drv).unwrap();
    let mut st = Settings::read(&blob).unwrap();
    st.write_cache = false;
    st.write(&mut blob).unwrap();
    let blocks = written.len() as u64 / 512;
    let specs = init::plan(
        &[
            VolumeSpec {
                name: "System".into(),
                blocks: Some(20_480),
            },
            VolumeSpec {
                name: "Data".into(),
                blocks: None,
            },
        ],
        blocks,
        512,
        blob.len(),
        None,
    )
    .unwrap();
    let mut core = ferrite_formatter::MemDisk::new(blocks);
    init::initialize(
        &mut core,
        &InitOptions {
            layout: Layout {
                driver: Some(&blob),
                driver_slot_blocks: ferrite_formatter::apm::DEFAULT_DRIVER_SLOT_BLOCKS,
                hfs: specs,
            },
            date,
            file: None,
        },
        &mut |_, _, _| true,
    )
    .unwrap();
    assert!(
        core.as_bytes() == &written[..],
        "ferrite init and the core initialize differ"
    );
}
