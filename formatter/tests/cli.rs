//! The `ferrite` command, run as a user runs it (`CARGO_BIN_EXE_ferrite`).
//!
//! Most tests install a stand-in driver (`--driver FILE`) and, where they make a complete
//! disk, a stand-in Ferrite Setup (`--setup-app FILE`, [`test_app`]; the others pass
//! `--no-setup-app`) so that they run on a fresh clone; the tests that boot the disks in the
//! emulated Mac need the real driver embedded in the binary (`cargo xtask test` builds it
//! first) and are `#[ignore]`d in a plain `cargo test`, as are the oracle tests (parted,
//! hfsutils, macutils, machfs).

use ferrite_formatter::apm::{HfsPartitionSpec, Layout, PartSize, read_map, write_map};
use ferrite_formatter::hfs::{
    DirEntry, EntryKind, Fork, FormatOptions, NewFile, Volume, check_volume, format_volume,
};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region, macbinary};
use ferrite_shared::driver_blob::Settings;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::{old_ferrite_disk, resource_fork};

const NEEDS_DRIVER: &str =
    "the real driver must be embedded: run `cargo xtask test` (or `cargo xtask build` first)";

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("ferrite-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    fn p(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }
    /// A stand-in Ferrite driver: the blob header, the settings block, code-like filler.
    fn fake_ferrite(&self, len: usize, write_cache: bool) -> String {
        let mut b: Vec<u8> = (0..len as u32).map(|i| (i * 13 + 5) as u8).collect();
        b[4..8].copy_from_slice(b"FRRT");
        b[16..48].fill(0);
        b[16..20].copy_from_slice(b"FSET");
        b[20..22].copy_from_slice(&1u16.to_be_bytes());
        b[24..28].copy_from_slice(&(write_cache as u32).to_be_bytes());
        assert_eq!(Settings::read(&b).unwrap().write_cache, write_cache);
        let path = self.path(&format!("ferrite-{len}.drvr"));
        std::fs::write(&path, b).unwrap();
        path.to_str().unwrap().into()
    }
    /// A stand-in Ferrite driver with a version-2 settings block (transfer mode auto, cap
    /// 128), as `entry.S` has it.
    fn fake_ferrite_v2(&self, len: usize) -> String {
        let path = self.fake_ferrite(len, true);
        let mut b = std::fs::read(&path).unwrap();
        b[20..22].copy_from_slice(&2u16.to_be_bytes());
        b[32..34].copy_from_slice(&128u16.to_be_bytes());
        assert_eq!(Settings::read(&b).unwrap().max_blocks_old, 128);
        let path = self.path(&format!("ferrite-v2-{len}.drvr"));
        std::fs::write(&path, b).unwrap();
        path.to_str().unwrap().into()
    }
    /// A stand-in Ferrite Setup ([`test_app`]) as MacBinary II; returns its path.
    fn setup_app(&self) -> String {
        let path = self.path("Test Setup.bin");
        std::fs::write(&path, macbinary::encode(&test_app())).unwrap();
        path.to_str().unwrap().into()
    }
    /// Another vendor's driver: no Ferrite header.
    fn third_party(&self, len: usize) -> String {
        let b: Vec<u8> = (0..len as u32).map(|i| (i * 31 + 1) as u8).collect();
        let path = self.path("vendor.drvr");
        std::fs::write(&path, b).unwrap();
        path.to_str().unwrap().into()
    }
    fn run_in(&self, dir: &Path, cmd: &str, args: &[&str]) -> Output {
        Command::new(cmd)
            .args(args)
            .env("HOME", &self.0)
            .current_dir(dir)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {cmd}: {e}"))
    }
    fn tool(&self, cmd: &str, args: &[&str]) -> String {
        let out = self.run_in(&self.0, cmd, args);
        assert!(
            out.status.success(),
            "`{cmd} {}` failed: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn ferrite_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrite"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ferrite")
}

/// Run ferrite; it must succeed; returns stdout.
fn ok(s: &Scratch, args: &[&str]) -> String {
    let out = ferrite_in(&s.0, args);
    assert!(
        out.status.success(),
        "`ferrite {}` failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Run ferrite; it must fail with a non-zero exit; returns stderr.
fn fails(s: &Scratch, args: &[&str]) -> String {
    let out = ferrite_in(&s.0, args);
    assert!(
        !out.status.success(),
        "`ferrite {}` succeeded:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.trim().is_empty(), "no error message");
    err
}

/// hasBundle and hasBeenInited (`fdFlags`).
const HAS_BUNDLE: u16 = 0x2000;
const HAS_BEEN_INITED: u16 = 0x0100;

/// A stand-in for Ferrite Setup: an application by another name (`ferrite init` renames it),
/// hasBeenInited set (init clears it), a small data fork and a resource fork with `CODE` 0
/// and 1 (over several allocation blocks), the signature resource and a `STR#`.
fn test_app() -> macbinary::MacFile {
    let code1: Vec<u8> = (0..6000u32).map(|i| (i * 7 + 3) as u8).collect();
    macbinary::MacFile {
        name: b"Test Setup".to_vec(),
        file_type: *b"APPL",
        creator: *b"FRRT",
        finder_flags: HAS_BUNDLE | HAS_BEEN_INITED,
        created: 3_100_000_000,
        modified: 3_100_000_500,
        data: b"Ferrite Setup data fork".to_vec(),
        rsrc: resource_fork(&[
            (
                b"CODE",
                0,
                &[0, 0, 0, 0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0x20],
            ),
            (b"CODE", 1, &code1),
            (b"FRRT", 0, b"\x0dFerrite Setup"),
            (b"STR#", 128, b"\x00\x01\x05Hello"),
        ]),
        ..Default::default()
    }
}

/// Everything about the file `name` in the root of HFS partition `n` (0-based) of `path`:
/// (entry, data fork, resource fork).
fn file_entry(path: &Path, n: usize, name: &[u8]) -> (DirEntry, Vec<u8>, Vec<u8>) {
    let mut img = ImageFile::open(path).unwrap();
    let map = read_map(&mut img).unwrap();
    let p = map.hfs_partitions().nth(n).unwrap().clone();
    let mut v =
        Volume::open(Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap()).unwrap();
    let e = v
        .lookup_path(&[name])
        .unwrap_or_else(|err| panic!("volume {n}: {err}"));
    let data = v.read_fork(&e, Fork::Data).unwrap();
    let rsrc = v.read_fork(&e, Fork::Resource).unwrap();
    (e, data, rsrc)
}

/// Ferrite Setup is in the root folder of HFS partition `n` with `app`'s forks, type, creator,
/// dates, and Finder flags less hasBeenInited.
fn assert_setup_app(path: &Path, n: usize, app: &macbinary::MacFile) {
    let (e, data, rsrc) = file_entry(path, n, b"Ferrite Setup");
    assert_eq!(e.parent, 2, "in the root folder");
    let EntryKind::File {
        file_type,
        creator,
        finder_flags,
        data_len,
        rsrc_len,
        ..
    } = e.kind
    else {
        panic!("Ferrite Setup is a folder")
    };
    assert_eq!((file_type, creator), (app.file_type, app.creator));
    assert_eq!(finder_flags, app.finder_flags & !HAS_BEEN_INITED);
    assert_eq!((e.created, e.modified), (app.created, app.modified));
    assert_eq!(
        (data_len as usize, rsrc_len as usize),
        (app.data.len(), app.rsrc.len())
    );
    assert!(data == app.data, "data fork differs on volume {n}");
    assert!(rsrc == app.rsrc, "resource fork differs on volume {n}");
}

struct Part {
    kind: String,
    name: String,
    start: u32,
    blocks: u32,
}

fn partitions(path: &Path, bs: u32) -> Vec<Part> {
    let mut img = ImageFile::open_with(path, false, bs).unwrap();
    read_map(&mut img)
        .unwrap()
        .partitions
        .into_iter()
        .map(|p| Part {
            kind: p.kind,
            name: p.name,
            start: p.start,
            blocks: p.blocks,
        })
        .collect()
}

/// The data fork, type and creator of `name` in the root of HFS partition `n` (0-based).
fn read_file(path: &Path, n: usize, name: &[&[u8]]) -> (Vec<u8>, Vec<u8>, [u8; 4], [u8; 4]) {
    let mut img = ImageFile::open(path).unwrap();
    let map = read_map(&mut img).unwrap();
    let p = map.hfs_partitions().nth(n).unwrap().clone();
    let mut v =
        Volume::open(Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap()).unwrap();
    let e = v.lookup_path(name).unwrap();
    let EntryKind::File {
        file_type, creator, ..
    } = e.kind
    else {
        panic!("not a file")
    };
    (
        v.read_fork(&e, Fork::Data).unwrap(),
        v.read_fork(&e, Fork::Resource).unwrap(),
        file_type,
        creator,
    )
}

fn volume_clean(path: &Path, n: usize) -> bool {
    let mut img = ImageFile::open(path).unwrap();
    let map = read_map(&mut img).unwrap();
    let p = map.hfs_partitions().nth(n).unwrap().clone();
    check_volume(Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap())
        .unwrap()
        .is_clean()
}

fn driver_on_disk(path: &Path) -> Vec<u8> {
    let mut img = ImageFile::open(path).unwrap();
    let map = read_map(&mut img).unwrap();
    let d = map.ddm.descriptors()[0];
    let p = map
        .partitions
        .iter()
        .find(|p| p.start == d.block.get())
        .unwrap();
    let n = p.entry.boot_size.get() as usize;
    let mut b = vec![0u8; n.div_ceil(512) * 512];
    img.read_blocks(p.start as u64, &mut b).unwrap();
    b.truncate(n);
    b
}

#[test]
fn init_default_makes_one_volume_filling_the_disk() {
    let s = Scratch::new("init-default");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    let out = ok(
        &s,
        &[
            "init",
            "disk.hda",
            "--size",
            "20M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
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
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "64M",
            "--volume",
            "System:20M",
            "--volume",
            "Data:30M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
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
    ok(
        &s,
        &[
            "init",
            "e.hda",
            "--size",
            "64M",
            "--volume",
            "A:20M",
            "--volume",
            "B",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
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
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    std::fs::create_dir(s.path("sd")).unwrap();
    ok(
        &s,
        &[
            "init",
            "sd",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
    assert!(s.path("sd/HD00_512.hda").is_file());
    ok(
        &s,
        &[
            "init",
            "sd",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
    assert!(s.path("sd/HD10_512.hda").is_file(), "the next free ID");
    std::fs::write(s.path("sd/CD20.iso"), b"").unwrap();
    ok(
        &s,
        &[
            "init",
            "sd",
            "--size",
            "8M",
            "--block-size",
            "2048",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
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
    ok(
        &s,
        &[
            "init",
            "HD50_1024.hda",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
    assert!(ok(&s, &["info", "HD50_1024.hda"]).contains("blocks of 1024 bytes"));
}

#[test]
fn init_refuses_an_existing_disk_without_force() {
    let s = Scratch::new("init-force");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
    std::fs::write(s.path("a.txt"), b"keep me").unwrap();
    ok(&s, &["add", "d.hda", "a.txt"]);
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
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
        &["init", "bare.dsk", "--driver", &drv, "--setup-app", &app],
    );
    assert!(err.contains("an HFS volume"), "{err}");
    // --force erases; an existing file keeps its size unless --size is given.
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--force",
            "--volume",
            "New",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
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
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "12Q",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("bad size") && err.contains("2G"), "{err}");
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "100K",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("too small") && err.contains("--size"), "{err}");
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "64M",
            "--volume",
            "A",
            "--volume",
            "B",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("only the last"), "{err}");
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "64M",
            "--volume",
            "A:100M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("too small"), "{err}");
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "64M",
            "--volume",
            "Bad:Name:1M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("':'"), "{err}");
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "64M",
            "--block-size",
            "600",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("block size 600"), "{err}");
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--driver",
            "missing.drvr",
            "--no-setup-app",
        ],
    );
    assert!(err.contains("missing.drvr"), "{err}");
    let err = fails(
        &s,
        &[
            "init",
            "nowhere/d.hda",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("does not exist"), "{err}");
    let vendor = s.third_party(5000);
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--driver",
            &vendor,
            "--write-cache",
            "off",
            "--no-setup-app",
        ],
    );
    assert!(err.contains("Ferrite"), "{err}");
    assert!(
        !s.path("d.hda").exists(),
        "nothing is created when the arguments are wrong"
    );
}

// ---- Ferrite Setup on the volumes init makes ----

#[test]
fn init_puts_ferrite_setup_on_every_volume() {
    let s = Scratch::new("setup-every");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    let out = ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "48M",
            "--volume",
            "System:12M",
            "--volume",
            "Apps:12M",
            "--volume",
            "Small:400K",
            "--volume",
            "Data",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
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
    let out = ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "16M",
            "--volume",
            "One:6M",
            "--volume",
            "Two",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(out.contains("no Ferrite Setup"), "{out}");
    for v in ["One", "Two"] {
        let ls = ok(&s, &["ls", &format!("d.hda:{v}")]);
        assert!(ls.contains("(empty)"), "{v}: {ls}");
    }
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
    // Not both.
    let err = fails(
        &s,
        &[
            "init",
            "e.hda",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("cannot be used with"), "{err}");
    assert!(!s.path("e.hda").exists());
}

/// The Ferrite Setup this test binary's `ferrite` was built with (`build.rs`'s output; empty
/// when `target/m68k/FerriteSetup.bin` did not exist).
const EMBEDDED_SETUP_APP: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/FerriteSetup.bin"));

#[test]
fn init_uses_the_embedded_setup_app_or_says_how_to_build_it() {
    let s = Scratch::new("setup-embedded");
    let drv = s.fake_ferrite(9000, true);
    if EMBEDDED_SETUP_APP.is_empty() {
        // Built before `cargo xtask build`: refused in one line naming the fixes, nothing made.
        let err = fails(&s, &["init", "d.hda", "--size", "8M", "--driver", &drv]);
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
        ok(&s, &["init", "d.hda", "--size", "8M", "--driver", &drv]);
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
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
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
            &[
                "init",
                "d.hda",
                "--force",
                "--driver",
                &drv,
                "--setup-app",
                name,
            ],
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
            &[
                "init",
                "new.hda",
                "--size",
                "8M",
                "--driver",
                &drv,
                "--setup-app",
                name,
            ],
        );
        assert!(!s.path("new.hda").exists(), "{name}: a disk was created");
    }
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--force",
            "--driver",
            &drv,
            "--setup-app",
            "missing.bin",
        ],
    );
    assert!(err.contains("missing.bin"), "{err}");
    // An application too big for a volume is refused before anything is written.
    std::fs::write(s.path("big.bin"), with(&|a| a.data = vec![1; 500 << 10])).unwrap();
    let err = fails(
        &s,
        &[
            "init",
            "d.hda",
            "--force",
            "--volume",
            "Tiny:400K",
            "--volume",
            "Rest",
            "--driver",
            &drv,
            "--setup-app",
            "big.bin",
        ],
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
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--write-cache",
            "off",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
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
        &[
            "install-driver",
            "d.hda",
            "--driver",
            &drv2,
            "--transfer-mode",
            "blind",
            "--max-blocks",
            "0",
        ],
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
        &[
            "init",
            "e.hda",
            "--size",
            "8M",
            "--driver",
            &v1,
            "--no-setup-app",
            "--transfer-mode",
            "polled",
        ],
    );
    assert!(err.contains("predates the transfer-mode settings"), "{err}");
    fails(
        &s,
        &["init", "e.hda", "--size", "8M", "--transfer-mode", "fast"],
    );
    // Over a version-1 driver, the new driver starts with its own transfer defaults.
    ok(
        &s,
        &[
            "init",
            "f.hda",
            "--size",
            "8M",
            "--driver",
            &v1,
            "--no-setup-app",
        ],
    );
    ok(&s, &["install-driver", "f.hda", "--driver", &drv2]);
    let f = Settings::read(&driver_on_disk(&s.path("f.hda"))).unwrap();
    assert_eq!((f.transfer, f.max_blocks_old), (TransferMode::Auto, 128));
}

#[test]
fn add_plain_files_get_type_and_creator_from_the_extension() {
    let s = Scratch::new("add-plain");
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "16M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    std::fs::write(s.path("notes.txt"), b"line 1\nline 2\n").unwrap();
    std::fs::write(s.path("photo.JPG"), vec![0xFF; 70_000]).unwrap();
    std::fs::write(s.path("blob"), vec![7; 3]).unwrap();
    let out = ok(&s, &["add", "d.hda", "notes.txt", "photo.JPG", "blob"]);
    assert!(out.contains("added notes.txt (TEXT/ttxt"), "{out}");
    let (data, rsrc, t, c) = read_file(&s.path("d.hda"), 0, &[b"notes.txt"]);
    assert_eq!(
        (data.as_slice(), rsrc.len(), &t, &c),
        (&b"line 1\nline 2\n"[..], 0, b"TEXT", b"ttxt")
    );
    let (data, _, t, c) = read_file(&s.path("d.hda"), 0, &[b"photo.JPG"]);
    assert_eq!((data.len(), &t, &c), (70_000, b"JPEG", b"ogle"));
    let (_, _, t, c) = read_file(&s.path("d.hda"), 0, &[b"blob"]);
    assert_eq!((&t, &c), (b"BINA", b"????"));
    let ls = ok(&s, &["ls", "d.hda"]);
    assert!(
        ls.lines()
            .any(|l| l.starts_with("TEXT/ttxt") && l.contains(" 14 ") && l.ends_with("notes.txt")),
        "{ls}"
    );
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
    // --text: Mac line endings for text files only.
    std::fs::write(s.path("dos.txt"), b"a\r\nb\nc").unwrap();
    ok(
        &s,
        &["add", "--text", "d.hda:Macintosh HD/T", "dos.txt", "blob"],
    );
    assert_eq!(
        read_file(&s.path("d.hda"), 0, &[b"T", b"dos.txt"]).0,
        b"a\rb\rc"
    );
    assert_eq!(
        read_file(&s.path("d.hda"), 0, &[b"T", b"blob"]).0,
        vec![7; 3]
    );
    // Adding the same name again is refused and changes nothing.
    let err = fails(&s, &["add", "d.hda", "notes.txt"]);
    assert!(
        err.contains("already exists") && err.contains("rename"),
        "{err}"
    );
    assert!(volume_clean(&s.path("d.hda"), 0));
}

#[test]
fn add_macbinary_and_appledouble_keep_forks_and_types() {
    let s = Scratch::new("add-mac");
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "16M",
            "--volume",
            "One:6M",
            "--volume",
            "Two",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    let mb = macbinary::MacFile {
        name: b"SimpleText".to_vec(),
        file_type: *b"APPL",
        creator: *b"ttxt",
        finder_flags: 0x2000,
        data: b"data fork".to_vec(),
        rsrc: (0..5000u32).map(|i| i as u8).collect(),
        created: 3_000_000_000,
        modified: 3_000_000_100,
        ..Default::default()
    };
    std::fs::write(s.path("SimpleText.bin"), macbinary::encode(&mb)).unwrap();
    // AppleDouble: `._Doc` (header: Finder info and resource fork) beside `Doc` (data fork).
    std::fs::write(s.path("Doc"), b"the data").unwrap();
    let rsrc = b"RSRC bytes".to_vec();
    let mut ad = Vec::new();
    ad.extend_from_slice(&0x0005_1607u32.to_be_bytes());
    ad.extend_from_slice(&0x0002_0000u32.to_be_bytes());
    ad.extend_from_slice(&[0; 16]);
    ad.extend_from_slice(&2u16.to_be_bytes());
    let base = 26u32 + 2 * 12;
    for (id, off, len) in [(9u32, base, 32u32), (2, base + 32, rsrc.len() as u32)] {
        ad.extend_from_slice(&id.to_be_bytes());
        ad.extend_from_slice(&off.to_be_bytes());
        ad.extend_from_slice(&len.to_be_bytes());
    }
    let mut finfo = [0u8; 32];
    finfo[..8].copy_from_slice(b"WDBNMSWD");
    ad.extend_from_slice(&finfo);
    ad.extend_from_slice(&rsrc);
    std::fs::write(s.path("._Doc"), &ad).unwrap();
    let out = ok(
        &s,
        &[
            "add",
            "d.hda:Two/Stuff/Inner",
            "SimpleText.bin",
            "Doc",
            "._Doc",
        ],
    );
    assert!(
        out.contains("MacBinary") && out.contains("AppleDouble"),
        "{out}"
    );
    let (data, r, t, c) = read_file(&s.path("d.hda"), 1, &[b"Stuff", b"Inner", b"SimpleText"]);
    assert_eq!(
        (data, r, t, c),
        (mb.data.clone(), mb.rsrc.clone(), *b"APPL", *b"ttxt")
    );
    let (data, r, t, c) = read_file(&s.path("d.hda"), 1, &[b"Stuff", b"Inner", b"Doc"]);
    assert_eq!(
        (data.as_slice(), r, &t, &c),
        (&b"the data"[..], rsrc, b"WDBN", b"MSWD")
    );
    // ls of a folder, recursive, of one file; the other volume stays empty.
    assert!(ok(&s, &["ls", "d.hda:Two/Stuff"]).contains("Inner/"));
    let rec = ok(&s, &["ls", "-R", "d.hda:Two"]);
    assert!(
        rec.contains("Stuff/Inner/SimpleText") && rec.contains("Stuff/Inner/Doc"),
        "{rec}"
    );
    assert!(ok(&s, &["ls", "d.hda:2/Stuff/Inner/Doc"]).starts_with("WDBN/MSWD"));
    assert!(ok(&s, &["ls", "d.hda:one"]).contains("(empty)"));
    assert!(volume_clean(&s.path("d.hda"), 1));
}

#[test]
fn add_copies_folders_recursively() {
    let s = Scratch::new("add-tree");
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "16M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    for (p, body) in [
        ("Games/readme.txt", "r"),
        ("Games/Chess/board.txt", "b"),
        ("Games/.DS_Store", "x"),
    ] {
        let path = s.path(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    std::fs::create_dir_all(s.path("Games/Empty")).unwrap();
    let out = ok(&s, &["add", "d.hda:Macintosh HD/Stuff", "Games"]);
    assert!(out.contains("folder Games/Empty"), "{out}");
    assert_eq!(
        read_file(
            &s.path("d.hda"),
            0,
            &[b"Stuff", b"Games", b"Chess", b"board.txt"]
        )
        .0,
        b"b"
    );
    assert_eq!(
        read_file(&s.path("d.hda"), 0, &[b"Stuff", b"Games", b"readme.txt"]).0,
        b"r"
    );
    let ls = ok(&s, &["ls", "-R", "d.hda"]);
    assert!(
        ls.contains("Stuff/Games/Empty/") && !ls.contains("DS_Store"),
        "{ls}"
    );
    // Adding into an existing folder merges; a file already there is refused.
    std::fs::write(s.path("Games/new.txt"), "n").unwrap();
    let err = fails(&s, &["add", "d.hda:Macintosh HD/Stuff", "Games"]);
    assert!(
        err.contains("Stuff:Games:Chess:board.txt already exists")
            && err.contains("nothing was copied"),
        "{err}"
    );
    assert!(
        !ok(&s, &["ls", "-R", "d.hda"]).contains("new.txt"),
        "nothing was copied"
    );
    assert!(volume_clean(&s.path("d.hda"), 0));
}

#[test]
fn add_and_ls_errors_name_the_problem() {
    let s = Scratch::new("add-errors");
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    let err = fails(&s, &["add", "d.hda", "missing.txt"]);
    assert!(
        err.contains("missing.txt") && err.contains("no such file"),
        "{err}"
    );
    let err = fails(&s, &["add", "nodisk.hda", "missing.txt"]);
    assert!(
        err.contains("nodisk.hda") && err.contains("ferrite init"),
        "{err}"
    );
    std::fs::write(s.path("x.txt"), b"x").unwrap();
    let err = fails(&s, &["add", "d.hda:Nope", "x.txt"]);
    assert!(
        err.contains("no volume \"Nope\"") && err.contains("Macintosh HD"),
        "{err}"
    );
    let err = fails(&s, &["ls", "d.hda:Macintosh HD/missing"]);
    assert!(err.contains("missing: not found"), "{err}");
    std::fs::write(s.path("big.bin"), vec![1u8; 9 << 20]).unwrap();
    let err = fails(&s, &["add", "d.hda", "big.bin"]);
    assert!(err.contains("disk full"), "{err}");
    std::fs::write(s.path("zeros.img"), vec![0u8; 1 << 20]).unwrap();
    let err = fails(&s, &["ls", "zeros.img"]);
    assert!(err.contains("no partition map and no HFS volume"), "{err}");
    assert!(volume_clean(&s.path("d.hda"), 0));
}

/// A bare HFS volume image with one file.
fn bare_volume(s: &Scratch, name: &str) -> PathBuf {
    let path = s.path(name);
    let mut img = ImageFile::create(&path, 3 << 20).unwrap();
    format_volume(&mut img, &FormatOptions::new(b"Old Disk", 3_000_000_000)).unwrap();
    let mut v = Volume::open(&mut img).unwrap();
    let f = NewFile {
        name: b"ReadMe",
        file_type: *b"TEXT",
        creator: *b"ttxt",
        finder_flags: 0,
        data: b"from a .dsk",
        rsrc: b"",
        created: 3_000_000_000,
        modified: 3_000_000_000,
    };
    v.add_file(2, &f).unwrap();
    v.flush().unwrap();
    path
}

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
        &[
            "convert",
            "old.dsk",
            "new.hda",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
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
        &[
            "convert",
            "old.dsk",
            "big.hda",
            "--size",
            "10M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert_eq!(
        partitions(&s.path("big.hda"), 512).last().unwrap().kind,
        "Apple_Free"
    );
    let err = fails(
        &s,
        &[
            "convert",
            "old.dsk",
            "new.hda",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("--force"), "{err}");
    let err = fails(
        &s,
        &[
            "convert",
            "old.dsk",
            "small.hda",
            "--size",
            "1M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(err.contains("too small"), "{err}");
    // A DiskCopy 4.2 image of the same volume.
    let raw = std::fs::read(s.path("old.dsk")).unwrap();
    std::fs::write(s.path("old.image"), diskcopy42(&raw)).unwrap();
    ok(
        &s,
        &[
            "convert",
            "old.image",
            "dc.hda",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert_eq!(
        read_file(&s.path("dc.hda"), 0, &[b"ReadMe"]).0,
        b"from a .dsk"
    );
    std::fs::write(s.path("junk.dsk"), vec![0u8; 1 << 20]).unwrap();
    let err = fails(
        &s,
        &[
            "convert",
            "junk.dsk",
            "j.hda",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
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
        &[
            "convert",
            "old.dsk",
            "new.hda",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
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
        &[
            "convert",
            "old.dsk",
            "bare.hda",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
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
        &[
            "convert",
            "again.dsk",
            "again.hda",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
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
        &[
            "convert",
            "full.dsk",
            "full.hda",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
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
        &[
            "convert",
            "full.dsk",
            "full.hda",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );

    // A bad application: refused before the disk is made.
    std::fs::write(s.path("junk.bin"), b"not MacBinary").unwrap();
    let err = fails(
        &s,
        &[
            "convert",
            "old.dsk",
            "junk.hda",
            "--driver",
            &drv,
            "--setup-app",
            "junk.bin",
        ],
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
        &[
            "init",
            "d.hda",
            "--size",
            "16M",
            "--volume",
            "A:6M",
            "--volume",
            "B",
            "--driver",
            &vendor,
            "--no-setup-app",
        ],
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
        &[
            "install-driver",
            "d.hda",
            "--driver",
            &drv,
            "--write-cache",
            "off",
        ],
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
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "8M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
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
            &[
                "init",
                &name,
                "--size",
                arg,
                "--driver",
                &drv,
                "--no-setup-app",
            ],
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
            &[
                "init",
                "bad.hda",
                &format!("--size={bad}"),
                "--driver",
                &drv,
                "--no-setup-app",
            ],
        );
        assert!(err.contains("size"), "{bad}: {err}");
    }
}

// ---- with the real driver: boot in the emulated Mac ----

fn real_driver_available(s: &Scratch) {
    let out = ferrite_in(
        &s.0,
        &["init", "probe.hda", "--size", "2M", "--no-setup-app"],
    );
    assert!(
        out.status.success(),
        "{NEEDS_DRIVER}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn boots(s: &Scratch, disk: &str, volumes: &[&str], cat: Option<(&str, &str)>) {
    for (cpu, roms) in [
        ("68000", &["old", "scsi43"][..]),
        ("68040", &["old", "scsi43", "quadra"]),
    ] {
        for &rom in roms {
            let mut args = vec!["boot", disk, "--cpu", cpu, "--rom", rom];
            if let Some((spec, _)) = cat {
                args.extend(["--cat", spec]);
            }
            let out = ok(s, &args);
            for v in volumes {
                assert!(
                    out.contains(&format!("\"{v}\" (vRefNum")),
                    "{cpu} {rom}: {v} not mounted:\n{out}"
                );
            }
            assert!(
                out.contains(&format!(
                    "{} of {} volumes mounted",
                    volumes.len(),
                    volumes.len()
                )),
                "{out}"
            );
            if let Some((_, text)) = cat {
                assert!(
                    out.contains("read through the driver") && out.contains(text),
                    "{cpu} {rom}:\n{out}"
                );
            }
        }
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
        &["init", "c.hda", "--date", "2026-02-30", "--driver", &drv],
    );
    assert!(e.contains("no such day"), "{e}");
}

#[test]
fn extract_writes_one_volume_of_a_disk_to_a_file() {
    let s = Scratch::new("extract");
    let drv = s.fake_ferrite(9000, false);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "20M",
            "--volume",
            "System:8M",
            "--volume",
            "Data",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
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
        &[
            "convert",
            "Data.dsk",
            "HD10_512.hda",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(ok(&s, &["ls", "HD10_512.hda"]).contains("note.txt"));
}

/// A 1 MiB stand-in Mac ROM: `checksum` in its first 4 bytes and, when `consistent`, words
/// after them that add up to it.
fn fake_rom(s: &Scratch, name: &str, bytes: usize, checksum: u32, consistent: bool) -> String {
    let mut rom = vec![0u8; bytes];
    rom[..4].copy_from_slice(&checksum.to_be_bytes());
    let mut left = if consistent { checksum as u64 } else { 0 };
    let mut at = 4;
    while left > 0 {
        let w = left.min(0xFFFF);
        rom[at..at + 2].copy_from_slice(&(w as u16).to_be_bytes());
        left -= w;
        at += 2;
    }
    std::fs::write(s.path(name), rom).unwrap();
    name.to_string()
}

fn ferrite_env(dir: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ferrite"));
    c.args(args).current_dir(dir);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run ferrite")
}

/// A disk for `ferrite qemu` (stand-in driver) and an install CD image.
fn qemu_disk(s: &Scratch, disk: &str) {
    let drv = s.fake_ferrite(9000, false);
    ok(
        s,
        &[
            "init",
            disk,
            "--size",
            "20M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    std::fs::write(s.path("install.iso"), vec![0u8; 4096]).unwrap();
}

#[test]
fn qemu_dry_run_prints_the_command() {
    let s = Scratch::new("qemu-dry");
    qemu_disk(&s, "HD20_512.hda");
    let rom = fake_rom(&s, "Q800.ROM", 1 << 20, 0xF1AC_AD13, true);
    let out = ferrite_in(
        &s.0,
        &[
            "qemu",
            "HD20_512.hda",
            "--rom",
            &rom,
            "--cdrom",
            "install.iso",
            "--dry-run",
        ],
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}{stderr}");
    assert_eq!(
        stdout.trim_end(),
        "qemu-system-m68k -M q800 -m 128 -bios Q800.ROM \
         -drive file=HD20_512.pram,format=raw,if=mtd \
         -drive file=HD20_512.hda,format=raw,media=disk,if=none,id=hd2 \
         -device scsi-hd,scsi-id=2,drive=hd2 \
         -drive file=install.iso,format=raw,media=cdrom,if=none,id=cd3 \
         -device scsi-cd,scsi-id=3,drive=cd3"
    );
    assert!(
        stderr.contains("Quadra 800")
            && stderr.contains("F1ACAD13")
            && stderr.contains("tested with"),
        "{stderr}"
    );
    assert!(
        stderr.contains("made the PRAM file HD20_512.pram"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(s.path("HD20_512.pram")).unwrap(),
        vec![0u8; 256]
    );
    // The PRAM file is kept; the ID, RAM and more QEMU arguments as asked; the CD moves off ID 3.
    let out = ok(
        &s,
        &[
            "qemu",
            "HD20_512.hda",
            "--rom",
            &rom,
            "--cdrom",
            "install.iso",
            "--id",
            "3",
            "--ram",
            "64",
            "--pram",
            "HD20_512.pram",
            "--dry-run",
            "--",
            "-g",
            "1152x870x8",
        ],
    );
    assert!(
        out.contains(" -m 64 ")
            && out.contains("scsi-hd,scsi-id=3,drive=hd3")
            && out.contains("scsi-cd,scsi-id=4,drive=cd4")
            && out.trim_end().ends_with(" -g 1152x870x8"),
        "{out}"
    );
    // Paths with spaces are quoted for the shell; commas are doubled inside -drive.
    std::fs::copy(s.path("HD20_512.hda"), s.path("My Disk,1.hda")).unwrap();
    let out = ok(&s, &["qemu", "My Disk,1.hda", "--rom", &rom, "--dry-run"]);
    assert!(
        out.contains("'file=My Disk,,1.pram,format=raw,if=mtd'")
            && out.contains("scsi-id=0,drive=hd0"),
        "{out}"
    );
    // A ROM ferrite does not know, and one whose contents do not match its checksum.
    let other = fake_rom(&s, "other.rom", 1 << 20, 0x1234_5678, true);
    let e = String::from_utf8_lossy(
        &ferrite_in(
            &s.0,
            &["qemu", "HD20_512.hda", "--rom", &other, "--dry-run"],
        )
        .stderr,
    )
    .into_owned();
    assert!(e.contains("12345678 is not one ferrite knows"), "{e}");
    let damaged = fake_rom(&s, "damaged.rom", 1 << 20, 0xF1AC_AD13, false);
    let e = String::from_utf8_lossy(
        &ferrite_in(
            &s.0,
            &["qemu", "HD20_512.hda", "--rom", &damaged, "--dry-run"],
        )
        .stderr,
    )
    .into_owned();
    assert!(e.contains("may be damaged"), "{e}");
}

#[test]
fn qemu_refuses_what_cannot_boot() {
    let s = Scratch::new("qemu-bad");
    qemu_disk(&s, "HD00_512.hda");
    let rom = fake_rom(&s, "Q800.ROM", 1 << 20, 0xF1AC_AD13, true);
    let small = fake_rom(&s, "small.rom", 512 << 10, 0x0102_0304, true);
    let e = fails(&s, &["qemu", "HD00_512.hda", "--rom", &small, "--dry-run"]);
    assert!(
        e.contains("524288 bytes") && e.contains("1 MiB") && e.contains("F1ACAD13"),
        "{e}"
    );
    let q700 = fake_rom(&s, "q700.rom", 1 << 20, 0x420D_BFF3, true);
    let e = fails(&s, &["qemu", "HD00_512.hda", "--rom", &q700, "--dry-run"]);
    assert!(e.contains("Quadra 700") && e.contains("F1ACAD13"), "{e}");
    let e = fails(
        &s,
        &["qemu", "HD00_512.hda", "--rom", "missing.rom", "--dry-run"],
    );
    assert!(e.contains("cannot read the ROM file missing.rom"), "{e}");
    bare_volume(&s, "old.dsk");
    let e = fails(&s, &["qemu", "old.dsk", "--rom", &rom, "--dry-run"]);
    assert!(
        e.contains("bare volume") && e.contains("ferrite convert"),
        "{e}"
    );
    let e = fails(
        &s,
        &[
            "qemu",
            "HD00_512.hda",
            "--rom",
            &rom,
            "--id",
            "7",
            "--dry-run",
        ],
    );
    assert!(e.contains("0 to 6"), "{e}");
    let e = fails(
        &s,
        &[
            "qemu",
            "HD00_512.hda",
            "--rom",
            &rom,
            "--ram",
            "2048",
            "--dry-run",
        ],
    );
    assert!(e.contains("1024"), "{e}");
    std::fs::write(s.path("HD00_512.pram"), [0u8; 100]).unwrap();
    let e = fails(&s, &["qemu", "HD00_512.hda", "--rom", &rom, "--dry-run"]);
    assert!(e.contains("100 bytes") && e.contains("256"), "{e}");
    std::fs::remove_file(s.path("HD00_512.pram")).unwrap();
    // A SCSI ID taken twice: the disk's, or the CD's, by a device in the extra arguments.
    let e = fails(
        &s,
        &[
            "qemu",
            "HD00_512.hda",
            "--rom",
            &rom,
            "--dry-run",
            "--",
            "-device",
            "scsi-hd,scsi-id=0,drive=x",
        ],
    );
    assert!(
        e.contains("SCSI ID 0 is in use") && e.contains("the disk"),
        "{e}"
    );
    let e = fails(
        &s,
        &[
            "qemu",
            "HD00_512.hda",
            "--rom",
            &rom,
            "--cdrom",
            "install.iso",
            "--dry-run",
            "--",
            "-device",
            "scsi-hd,drive=x,scsi-id=3",
        ],
    );
    assert!(
        e.contains("SCSI ID 3 is in use") && e.contains("the CD"),
        "{e}"
    );
    ok(
        &s,
        &[
            "qemu",
            "HD00_512.hda",
            "--rom",
            &rom,
            "--dry-run",
            "--",
            "-device",
            "scsi-hd,scsi-id=5,drive=x",
        ],
    );
    // A partition map without a driver; another vendor's driver is only noted.
    ok(
        &s,
        &[
            "init",
            "nodrv.hda",
            "--size",
            "8M",
            "--no-setup-app",
            "--driver",
            &s.third_party(7000),
        ],
    );
    let out = ferrite_in(&s.0, &["qemu", "nodrv.hda", "--rom", &rom, "--dry-run"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("another vendor's driver"));
    let mut img = ImageFile::create(&s.path("mapped.hda"), 8 << 20).unwrap();
    write_map(
        &mut img,
        &Layout {
            driver: None,
            driver_slot_blocks: 64,
            hfs: vec![HfsPartitionSpec {
                name: "Data".into(),
                size: PartSize::Rest,
            }],
        },
    )
    .unwrap();
    drop(img);
    let e = fails(&s, &["qemu", "mapped.hda", "--rom", &rom, "--dry-run"]);
    assert!(
        e.contains("no driver") && e.contains("ferrite install-driver"),
        "{e}"
    );
}

#[test]
fn qemu_without_qemu_says_how_to_install_it() {
    let s = Scratch::new("qemu-missing");
    qemu_disk(&s, "HD00_512.hda");
    let rom = fake_rom(&s, "Q800.ROM", 1 << 20, 0xF1AC_AD13, true);
    std::fs::create_dir_all(s.path("empty-bin")).unwrap();
    let path = s.path("empty-bin");
    let out = ferrite_env(
        &s.0,
        &["qemu", "HD00_512.hda", "--rom", &rom],
        &[("PATH", path.as_os_str())],
    );
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        e.contains("qemu-system-m68k was not found")
            && e.contains("apt install qemu-system-misc")
            && e.contains("brew install qemu"),
        "{e}"
    );
    // The command is still printed, to run once QEMU is there.
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("qemu-system-m68k -M q800"));
}

#[cfg(unix)]
#[test]
fn qemu_runs_qemu_with_the_printed_command() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new("qemu-run");
    qemu_disk(&s, "HD00_512.hda");
    let rom = fake_rom(&s, "Q800.ROM", 1 << 20, 0xF1AC_AD13, true);
    let bin = s.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("qemu-system-m68k");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n",
            s.path("qemu-args.txt").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = ferrite_env(
        &s.0,
        &["qemu", "HD00_512.hda", "--rom", &rom],
        &[("PATH", bin.as_os_str())],
    );
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ran = std::fs::read_to_string(s.path("qemu-args.txt")).unwrap();
    assert_eq!(
        format!(
            "qemu-system-m68k {}",
            ran.lines().collect::<Vec<_>>().join(" ")
        ),
        printed.trim_end()
    );
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn init_disks_boot_with_their_volumes_mounted() {
    let s = Scratch::new("boot-init");
    let app = s.setup_app();
    real_driver_available(&s);
    ok(
        &s,
        &["init", "HD00_512.hda", "--size", "32M", "--setup-app", &app],
    );
    std::fs::write(s.path("hello.txt"), b"Hello through the driver\n").unwrap();
    ok(&s, &["add", "HD00_512.hda", "hello.txt"]);
    boots(
        &s,
        "HD00_512.hda",
        &["Macintosh HD"],
        Some(("hello.txt", "Hello through the driver")),
    );
    ok(
        &s,
        &[
            "init",
            "HD30_512.hda",
            "--size",
            "64M",
            "--volume",
            "System:20M",
            "--volume",
            "Apps:20M",
            "--volume",
            "Data",
            "--setup-app",
            &app,
        ],
    );
    ok(&s, &["add", "HD30_512.hda:Data/Docs", "hello.txt"]);
    boots(
        &s,
        "HD30_512.hda",
        &["System", "Apps", "Data"],
        Some(("Data:Docs/hello.txt", "Hello through the driver")),
    );
    ok(
        &s,
        &[
            "init",
            "HD40_512.hda",
            "--size",
            "32M",
            "--write-cache",
            "off",
            "--setup-app",
            &app,
        ],
    );
    boots(&s, "HD40_512.hda", &["Macintosh HD"], None);
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn converted_and_reinstalled_disks_boot() {
    let s = Scratch::new("boot-convert");
    let app = s.setup_app();
    real_driver_available(&s);
    bare_volume(&s, "old.dsk");
    ok(&s, &["convert", "old.dsk", "HD10_512.hda"]);
    // With the Ferrite Setup built into ferrite on the volume.
    let mb = macbinary::parse(EMBEDDED_SETUP_APP).expect("the embedded MacBinary parses");
    let (_, data, rsrc) = file_entry(&s.path("HD10_512.hda"), 0, b"Ferrite Setup");
    assert!(data == mb.data && rsrc == mb.rsrc);
    boots(
        &s,
        "HD10_512.hda",
        &["Old Disk"],
        Some(("ReadMe", "from a .dsk")),
    );
    // Over another vendor's driver: install-driver makes it boot with Ferrite.
    let vendor = s.third_party(7000);
    ok(
        &s,
        &[
            "init",
            "HD20_512.hda",
            "--size",
            "16M",
            "--volume",
            "Vendor",
            "--driver",
            &vendor,
            "--setup-app",
            &app,
        ],
    );
    ok(
        &s,
        &["install-driver", "HD20_512.hda", "--write-cache", "off"],
    );
    boots(&s, "HD20_512.hda", &["Vendor"], None);
}

#[test]
#[ignore = "needs the m68k driver, parted and hfsutils: run `cargo xtask test`"]
fn a_parted_and_hformat_disk_gets_the_driver_and_boots() {
    let s = Scratch::new("boot-parted");
    real_driver_available(&s);
    std::fs::File::create(s.path("HD60_512.hda"))
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    s.tool("parted", &["-s", "HD60_512.hda", "mklabel", "mac"]);
    s.tool(
        "parted",
        &[
            "-s",
            "HD60_512.hda",
            "mkpart",
            "primary",
            "hfs",
            "2048s",
            "100%",
        ],
    );
    s.tool("hformat", &["-l", "Parted Vol", "HD60_512.hda", "1"]);
    let err = fails(&s, &["boot", "HD60_512.hda"]);
    assert!(err.contains("no driver was loaded"), "{err}");
    let out = ok(&s, &["install-driver", "HD60_512.hda"]);
    assert!(out.contains("new partition"), "{out}");
    std::fs::write(s.path("t.txt"), b"parted disk").unwrap();
    ok(&s, &["add", "HD60_512.hda", "t.txt"]);
    boots(
        &s,
        "HD60_512.hda",
        &["Parted Vol"],
        Some(("t.txt", "parted disk")),
    );
    let listing = s.tool(
        "parted",
        &["-m", "-s", "HD60_512.hda", "unit", "s", "print"],
    );
    assert!(listing.contains(":64s:95s:32s::Macintosh:;"), "{listing}");
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn boot_fails_clearly_without_a_driver() {
    let s = Scratch::new("boot-nodrv");
    bare_volume(&s, "old.dsk");
    let err = fails(&s, &["boot", "old.dsk"]);
    assert!(err.contains("no driver was loaded"), "{err}");
}

// ---- oracles ----

#[test]
#[ignore = "needs parted, hfsutils and machfs: run `cargo xtask test`"]
fn parted_and_hfsutils_read_what_ferrite_makes() {
    let s = Scratch::new("oracle");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "40M",
            "--volume",
            "First:16M",
            "--volume",
            "Second",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
    std::fs::write(s.path("a.txt"), b"alpha").unwrap();
    std::fs::write(s.path("b.gif"), b"GIF89a").unwrap();
    ok(&s, &["add", "d.hda:Second", "a.txt", "b.gif"]);
    let disk = s.p("d.hda");
    let out = s.tool("parted", &["-m", "-s", &disk, "unit", "s", "print"]);
    let lines: Vec<&str> = out.lines().skip(2).collect();
    assert_eq!(
        lines,
        [
            "1:1s:63s:63s::Apple:;",
            "2:64s:95s:32s::Macintosh:;",
            "3:96s:32863s:32768s:hfs:First:;",
            "4:32864s:81919s:49056s:hfs:Second:;"
        ],
        "{out}"
    );
    let mounted = s.tool("hmount", &[&disk, "2"]);
    assert!(mounted.contains("Volume name is \"Second\""), "{mounted}");
    let ls = s.tool("hls", &["-l"]);
    assert!(
        ls.lines()
            .any(|l| l.contains("TEXT/ttxt") && l.ends_with("a.txt")),
        "{ls}"
    );
    assert!(
        ls.lines()
            .any(|l| l.contains("GIFf/ogle") && l.ends_with("b.gif")),
        "{ls}"
    );
    s.tool("humount", &[]);
}

#[test]
#[ignore = "needs parted, hfsutils and machfs: run `cargo xtask test`"]
fn measure_init_2g_against_parted_and_hformat() {
    let s = Scratch::new("measure");
    let app = s.setup_app();
    let drv = s.fake_ferrite(14_000, true);
    let t = std::time::Instant::now();
    ok(
        &s,
        &[
            "init",
            "f.hda",
            "--size",
            "2G",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
    let ours = t.elapsed();
    let t = std::time::Instant::now();
    std::fs::File::create(s.path("p.img"))
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    s.tool("parted", &["-s", &s.p("p.img"), "mklabel", "mac"]);
    s.tool(
        "parted",
        &[
            "-s",
            &s.p("p.img"),
            "mkpart",
            "primary",
            "hfs",
            "64s",
            "100%",
        ],
    );
    s.tool("hformat", &["-l", "Macintosh HD", &s.p("p.img"), "1"]);
    let theirs = t.elapsed();
    let alloc = |p: &str| {
        #[cfg(unix)]
        {
            std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(s.path(p)).unwrap()) / 2
        }
        #[cfg(not(unix))]
        0
    };
    println!(
        "2 GB image: ferrite init {ours:?} ({} KiB allocated); parted mklabel mac + mkpart + hformat {theirs:?} ({} KiB allocated)",
        alloc("f.hda"),
        alloc("p.img")
    );
    assert!(volume_clean(&s.path("f.hda"), 0));
}

/// machfs reads a bare volume image (argv 1) and writes Ferrite Setup's data and resource
/// forks to argv 2 and 3; prints type, creator and Finder flags.
const MACHFS_FERRITE_SETUP: &str = r#"
import sys, machfs
v = machfs.Volume()
v.read(open(sys.argv[1], 'rb').read())
f = v['Ferrite Setup']
open(sys.argv[2], 'wb').write(f.data)
open(sys.argv[3], 'wb').write(f.rsrc)
print(f.type.decode('mac_roman'), f.creator.decode('mac_roman'), f.flags)
"#;

#[test]
#[ignore = "needs hfsutils, macutils and machfs: run `cargo xtask test`"]
fn hfsutils_macutils_and_machfs_read_ferrite_setup() {
    let s = Scratch::new("oracle-setup");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    ok(
        &s,
        &[
            "init",
            "d.hda",
            "--size",
            "24M",
            "--volume",
            "First:8M",
            "--volume",
            "Second",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
    let want = test_app();
    let disk = s.p("d.hda");
    let mut img = ImageFile::open(&s.path("d.hda")).unwrap();
    let parts: Vec<_> = read_map(&mut img)
        .unwrap()
        .hfs_partitions()
        .cloned()
        .collect();
    drop(img);
    assert_eq!(parts.len(), 2);
    for (n, p) in parts.iter().enumerate() {
        // hfsutils: listed with its type, creator and fork sizes; copied out as MacBinary.
        let mounted = s.tool("hmount", &[&disk, &(n + 1).to_string()]);
        assert!(
            mounted.contains(&format!("Volume name is \"{}\"", p.name)),
            "{mounted}"
        );
        let ls = s.tool("hls", &["-l"]);
        let line = ls
            .lines()
            .find(|l| l.ends_with(" Ferrite Setup"))
            .unwrap_or_else(|| panic!("hls -l does not list Ferrite Setup:\n{ls}"));
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            cols[..4],
            [
                "f",
                "APPL/FRRT",
                &want.rsrc.len().to_string(),
                &want.data.len().to_string()
            ],
            "{line}"
        );
        let out = format!("out{n}.bin");
        s.tool("hcopy", &["-m", ":Ferrite Setup", &out]);
        s.tool("humount", &[]);
        let mb = macbinary::parse(&std::fs::read(s.path(&out)).unwrap()).unwrap();
        assert_eq!(mb.name, b"Ferrite Setup");
        assert_eq!((&mb.file_type, &mb.creator), (b"APPL", b"FRRT"));
        assert_eq!(
            mb.finder_flags & 0xFF00,
            HAS_BUNDLE,
            "hasBundle, not inited"
        );
        assert_eq!((mb.created, mb.modified), (want.created, want.modified));

        // macutils: macunpack splits hcopy's MacBinary into the same two forks.
        let dir = s.path(&format!("unpacked{n}"));
        std::fs::create_dir(&dir).unwrap();
        let o = s.run_in(&dir, "macunpack", &["-3", &s.p(&out)]);
        assert!(
            o.status.success(),
            "macunpack: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let fork = |ext: &str| {
            let f = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.extension().is_some_and(|e| e == ext))
                .unwrap_or_else(|| panic!("macunpack wrote no .{ext} file"));
            std::fs::read(f).unwrap()
        };
        assert!(fork("data") == want.data, "macunpack's data fork differs");
        assert!(
            fork("rsrc") == want.rsrc,
            "macunpack's resource fork differs"
        );

        // machfs: reads the volume (cut out of the disk) and finds the same forks.
        let mut img = ImageFile::open(&s.path("d.hda")).unwrap();
        let mut vol = vec![0u8; p.blocks as usize * 512];
        img.read_blocks(p.start as u64, &mut vol).unwrap();
        let vol_path = s.path(&format!("vol{n}.img"));
        std::fs::write(&vol_path, vol).unwrap();
        let (d, r) = (s.p(&format!("m{n}.data")), s.p(&format!("m{n}.rsrc")));
        let printed = s.tool(
            "python3",
            &[
                "-c",
                MACHFS_FERRITE_SETUP,
                vol_path.to_str().unwrap(),
                &d,
                &r,
            ],
        );
        assert_eq!(printed.trim(), format!("APPL FRRT {HAS_BUNDLE}"));
        assert!(std::fs::read(&d).unwrap() == want.data, "machfs: data fork");
        assert!(
            std::fs::read(&r).unwrap() == want.rsrc,
            "machfs: resource fork"
        );
    }
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
}

/// The whole chain with the real build: `ferrite init` puts the embedded Ferrite Setup on the
/// disk, the emulated Mac boots the disk with the Ferrite driver, the application's resource
/// fork is read back through the driver and launched, and its window lists this very disk.
#[test]
#[ignore = "needs the m68k driver and Ferrite Setup: run `cargo xtask test`"]
fn the_setup_app_on_an_init_disk_runs_and_lists_the_disk() {
    let s = Scratch::new("launch");
    real_driver_available(&s);
    ok(&s, &["init", "HD20_512.hda", "--size", "20M"]);
    for (cpu, rom, via) in [
        ("68000", "old", "original SCSI Manager"),
        ("68040", "scsi43", "SCSI Manager 4.3"),
    ] {
        let out = ok(
            &s,
            &[
                "boot",
                "HD20_512.hda",
                "--cpu",
                cpu,
                "--rom",
                rom,
                "--launch",
                "Macintosh HD:Ferrite Setup",
            ],
        );
        assert!(out.contains("window \"SCSI Bus\":"), "{cpu}:\n{out}");
        assert!(
            out.contains(&format!("SCSI bus, through the {via}")),
            "{cpu}:\n{out}"
        );
        assert!(
            out.contains("ID 2  disk  FERRITE EMULATED DISK 1.0"),
            "{cpu}:\n{out}"
        );
        // The bus list gives the size and what is on the disk on lines of their own.
        assert!(
            out.contains("20.0 MB, 40960 blocks of 512\n"),
            "{cpu}:\n{out}"
        );
        assert!(
            out.contains(&format!(
                "Apple partition map, 3 entries (1 HFS); Ferrite {} driver",
                env!("CARGO_PKG_VERSION")
            )),
            "{cpu}:\n{out}"
        );
        assert!(
            out.contains("ID 0  no device") && out.contains("ID 6  no device"),
            "{cpu}:\n{out}"
        );
        assert!(out.contains("quit to the Finder"), "{cpu}:\n{out}");
    }
}

/// hfsutils reads Ferrite Setup on a volume `ferrite convert` wrapped: listed with its type,
/// creator and fork sizes, and copied out (MacBinary) with the same forks.
#[test]
#[ignore = "needs hfsutils: run `cargo xtask test`"]
fn hfsutils_reads_ferrite_setup_on_a_converted_volume() {
    let s = Scratch::new("oracle-convert");
    let app = s.setup_app();
    let drv = s.fake_ferrite(9000, true);
    bare_volume(&s, "old.dsk");
    ok(
        &s,
        &[
            "convert",
            "old.dsk",
            "d.hda",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
    );
    let want = test_app();
    let mounted = s.tool("hmount", &[&s.p("d.hda"), "1"]);
    assert!(mounted.contains("Volume name is \"Old Disk\""), "{mounted}");
    let ls = s.tool("hls", &["-l"]);
    let line = ls
        .lines()
        .find(|l| l.ends_with(" Ferrite Setup"))
        .unwrap_or_else(|| panic!("hls -l does not list Ferrite Setup:\n{ls}"));
    let cols: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        cols[..4],
        [
            "f",
            "APPL/FRRT",
            &want.rsrc.len().to_string(),
            &want.data.len().to_string()
        ],
        "{line}"
    );
    assert!(ls.lines().any(|l| l.ends_with(" ReadMe")), "{ls}");
    s.tool("hcopy", &["-m", ":Ferrite Setup", "out.bin"]);
    s.tool("humount", &[]);
    let mb = macbinary::parse(&std::fs::read(s.path("out.bin")).unwrap()).unwrap();
    assert_eq!(mb.name, b"Ferrite Setup");
    assert!(mb.data == want.data && mb.rsrc == want.rsrc);
}

/// Boot blocks for a stand-in System: the 'LK' signature, a BRA.S over the header (bbEntry),
/// version $0017, the System and shell names, and recognisable filler for the code.
fn stand_in_boot_blocks(system: &str, shell: &str) -> Vec<u8> {
    let mut bb: Vec<u8> = (0..1024u32).map(|i| (i * 29 + 11) as u8).collect();
    bb[0..2].copy_from_slice(b"LK");
    bb[2..6].copy_from_slice(&[0x60, 0x00, 0x00, 0x86]);
    bb[6..8].copy_from_slice(&0x0017u16.to_be_bytes());
    for (at, name) in [(10, system), (26, shell)] {
        bb[at..at + 16].fill(0);
        bb[at] = name.len() as u8;
        bb[at + 1..at + 1 + name.len()].copy_from_slice(name.as_bytes());
    }
    bb
}

/// A host "System Folder" (MacBinary files) holding a stand-in System file of `version`
/// (`'vers'` 1 bytes) with `boot` as its `'boot'` 1 resource (left out when `None`), and a
/// stand-in Finder. No Apple software: the bytes are made here.
fn stand_in_system_folder(
    s: &Scratch,
    dir: &str,
    version: Option<[u8; 2]>,
    boot: Option<&[u8]>,
) -> PathBuf {
    let folder = s.path(dir).join("System Folder");
    std::fs::create_dir_all(&folder).unwrap();
    let mut res: Vec<(&[u8; 4], i16, &[u8])> = Vec::new();
    if let Some(b) = boot {
        res.push((b"boot", 1, b));
        res.push((b"boot", 2, b"stand-in boot code"));
    }
    let vers;
    if let Some(v) = version {
        vers = [v[0], v[1], 0x80, 0, 0, 0, 1, b'x', 1, b'x'];
        res.push((b"vers", 1, &vers));
    }
    res.push((b"STR ", 0, b"\x07Ferrite"));
    let system = macbinary::MacFile {
        name: b"System".to_vec(),
        file_type: *b"zsys",
        creator: *b"MACS",
        finder_flags: 0x1000,
        created: 3_000_000_000,
        modified: 3_000_000_000,
        rsrc: resource_fork(&res),
        ..Default::default()
    };
    let finder = macbinary::MacFile {
        name: b"Finder".to_vec(),
        file_type: *b"FNDR",
        creator: *b"MACS",
        finder_flags: 0x1000,
        created: 3_000_000_000,
        modified: 3_000_000_000,
        rsrc: resource_fork(&[(b"CODE", 0, b"stand-in Finder")]),
        ..Default::default()
    };
    std::fs::write(folder.join("System.bin"), macbinary::encode(&system)).unwrap();
    std::fs::write(folder.join("Finder.bin"), macbinary::encode(&finder)).unwrap();
    folder
}

/// The first 1024 bytes and the MDB's Finder information (8 longs) of HFS partition `n`,
/// read from the image bytes.
fn boot_and_finder_info(path: &Path, n: usize) -> (Vec<u8>, [u32; 8]) {
    let mut img = ImageFile::open(path).unwrap();
    let p = read_map(&mut img)
        .unwrap()
        .hfs_partitions()
        .nth(n)
        .unwrap()
        .clone();
    let mut b = vec![0u8; 1536];
    img.read_blocks(p.start as u64, &mut b).unwrap();
    let fi = std::array::from_fn(|i| {
        let at = 1024 + 0x5C + 4 * i;
        u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
    });
    b.truncate(1024);
    (b, fi)
}

fn system_disk(s: &Scratch, name: &str, size: &str) {
    let drv = s.fake_ferrite(9000, false);
    ok(
        s,
        &[
            "init",
            name,
            "--size",
            size,
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
}

/// `ferrite add --system` copies a System Folder, blesses it (drFndrInfo[0] = its directory
/// ID) and writes the System file's `'boot'` 1 resource as the boot blocks; `ferrite info`
/// then reports a startup volume.
#[test]
fn add_system_makes_a_startup_volume() {
    let s = Scratch::new("add-system");
    system_disk(&s, "d.hda", "20M");
    let boot = stand_in_boot_blocks("System", "Finder");
    let folder = stand_in_system_folder(&s, "host", Some([0x07, 0x55]), Some(&boot));
    let info = ok(&s, &["info", "d.hda"]);
    assert!(!info.contains("startup volume"), "{info}");
    assert_eq!(
        boot_and_finder_info(&s.path("d.hda"), 0),
        (vec![0; 1024], [0; 8])
    );

    let out = ok(&s, &["add", "--system", "d.hda", folder.to_str().unwrap()]);
    assert!(
        out.contains("starts up from \"System Folder\"") && out.contains("System 7.5.5"),
        "{out}"
    );
    let (bb, fi) = boot_and_finder_info(&s.path("d.hda"), 0);
    assert!(bb == boot, "the boot blocks are the 'boot' 1 resource");
    let mut img = ImageFile::open(&s.path("d.hda")).unwrap();
    let p = read_map(&mut img)
        .unwrap()
        .hfs_partitions()
        .next()
        .unwrap()
        .clone();
    let v = Volume::open(Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap()).unwrap();
    let sf = v.lookup_path(&[b"System Folder"]).unwrap();
    assert!(sf.is_folder() && sf.parent == 2);
    assert_eq!(fi, [sf.id, 0, 0, 0, 0, 0, 0, 0], "only word 0 is set");
    let sys = v.lookup_path(&[b"System Folder", b"System"]).unwrap();
    let EntryKind::File {
        file_type, creator, ..
    } = sys.kind
    else {
        panic!("System is a folder")
    };
    assert_eq!((&file_type, &creator), (b"zsys", b"MACS"));
    assert!(v.lookup_path(&[b"System Folder", b"Finder"]).is_ok());
    drop(v);
    drop(img);
    assert!(volume_clean(&s.path("d.hda"), 0));
    let info = ok(&s, &["info", "d.hda"]);
    assert!(
        info.contains(&format!(
            "startup volume: blessed System Folder \"System Folder\" (directory ID {}), boot blocks load \"System\"",
            sf.id
        )),
        "{info}"
    );
    assert!(ok(&s, &["check", "d.hda"]).contains("no problems"));
    // One blessed System Folder per volume.
    let other = stand_in_system_folder(&s, "other", Some([0x07, 0x55]), Some(&boot));
    let err = fails(&s, &["add", "--system", "d.hda", other.to_str().unwrap()]);
    assert!(
        err.contains("already starts up from its System Folder \"System Folder\""),
        "{err}"
    );
}

#[test]
fn add_system_refuses_what_would_not_start_up() {
    let s = Scratch::new("add-system-bad");
    system_disk(&s, "d.hda", "20M");
    let boot = stand_in_boot_blocks("System", "Finder");
    let refuses = |dir: &str, version: Option<[u8; 2]>, boot: Option<&[u8]>, says: &[&str]| {
        let f = stand_in_system_folder(&s, dir, version, boot);
        let err = fails(&s, &["add", "--system", "d.hda", f.to_str().unwrap()]);
        for w in says {
            assert!(err.contains(w), "{dir}: {err}");
        }
    };
    refuses(
        "noboot",
        Some([0x07, 0x55]),
        None,
        &["no 'boot' 1 resource"],
    );
    refuses(
        "short",
        Some([0x07, 0x55]),
        Some(&boot[..512]),
        &["512 bytes"],
    );
    let mut nolk = boot.clone();
    nolk[0..2].copy_from_slice(b"XX");
    refuses("nolk", Some([0x07, 0x55]), Some(&nolk), &["'LK'"]);
    refuses(
        "ppc",
        Some([0x08, 0x60]),
        Some(&boot),
        &["Mac OS 8.6 runs only on PowerPC", "8.1"],
    );
    refuses(
        "old",
        Some([0x05, 0x00]),
        Some(&boot),
        &["System 5.0 is too old", "6.0"],
    );
    let elsewhere = stand_in_boot_blocks("System 7", "Finder");
    refuses(
        "name",
        Some([0x07, 0x55]),
        Some(&elsewhere),
        &["\"System 7\""],
    );
    // No System file at all.
    let f = stand_in_system_folder(&s, "nosys", Some([0x07, 0x55]), Some(&boot));
    std::fs::remove_file(f.join("System.bin")).unwrap();
    let err = fails(&s, &["add", "--system", "d.hda", f.to_str().unwrap()]);
    assert!(err.contains("holds no System file"), "{err}");
    // A file, not a folder; a path below the volume.
    let err = fails(
        &s,
        &[
            "add",
            "--system",
            "d.hda",
            f.join("Finder.bin").to_str().unwrap(),
        ],
    );
    assert!(err.contains("takes a folder"), "{err}");
    let good = stand_in_system_folder(&s, "good", Some([0x07, 0x10]), Some(&boot));
    let err = fails(
        &s,
        &["add", "--system", "d.hda:1/Sub", good.to_str().unwrap()],
    );
    assert!(err.contains("root folder"), "{err}");
    // Nothing of that was written.
    assert_eq!(
        boot_and_finder_info(&s.path("d.hda"), 0),
        (vec![0; 1024], [0; 8])
    );
    assert!(!ok(&s, &["ls", "d.hda"]).contains("System Folder"));
    // System 7.1 and a 3 GB volume: over its 2 GB; 7.5 takes it.
    system_disk(&s, "big.hda", "3G");
    let err = fails(&s, &["add", "--system", "big.hda", good.to_str().unwrap()]);
    assert!(
        err.contains("System 7.1 uses volumes of at most 2 GB"),
        "{err}"
    );
    let ok75 = stand_in_system_folder(&s, "ok75", Some([0x07, 0x50]), Some(&boot));
    ok(&s, &["add", "--system", "big.hda", ok75.to_str().unwrap()]);
    assert!(ok(&s, &["info", "big.hda"]).contains("startup volume: blessed"));
}

/// One file of a folder tree, as the volume has it: path below the folder, type, creator,
/// Finder flags, dates and both forks (folders have empty forks and type "fold").
type TreeItem = (
    Vec<Vec<u8>>,
    [u8; 4],
    [u8; 4],
    u16,
    u32,
    u32,
    Vec<u8>,
    Vec<u8>,
);

/// Every item below `folder` on `v`, depth first, read with the formatter's HFS reader.
fn folder_tree<D: BlockDevice>(v: &mut Volume<D>, folder: u32) -> Vec<TreeItem> {
    fn into<D: BlockDevice>(
        v: &mut Volume<D>,
        dir: u32,
        rel: &mut Vec<Vec<u8>>,
        out: &mut Vec<TreeItem>,
    ) {
        for e in v.list(dir) {
            rel.push(e.name.clone());
            match e.kind {
                EntryKind::Folder { .. } => {
                    out.push((rel.clone(), *b"fold", [0; 4], 0, 0, 0, vec![], vec![]));
                    into(v, e.id, rel, out);
                }
                EntryKind::File {
                    file_type,
                    creator,
                    finder_flags,
                    ..
                } => {
                    let d = v.read_fork(&e, Fork::Data).unwrap();
                    let r = v.read_fork(&e, Fork::Resource).unwrap();
                    out.push((
                        rel.clone(),
                        file_type,
                        creator,
                        finder_flags,
                        e.created,
                        e.modified,
                        d,
                        r,
                    ));
                }
            }
            rel.pop();
        }
    }
    let mut out = Vec::new();
    into(v, folder, &mut Vec::new(), &mut out);
    out
}

/// `folder_tree` of `path` on HFS partition `n` of a partitioned image (`None`: a bare volume
/// image), with the folder's directory ID.
fn tree_on(image: &Path, n: Option<usize>, path: &[&[u8]]) -> (u32, Vec<TreeItem>) {
    let mut img = ImageFile::open(image).unwrap();
    let region = match n {
        Some(n) => {
            let p = read_map(&mut img)
                .unwrap()
                .hfs_partitions()
                .nth(n)
                .unwrap()
                .clone();
            (p.start as u64, p.blocks as u64)
        }
        None => (0, img.block_count()),
    };
    let mut v = Volume::open(Region::new(&mut img, region.0, region.1).unwrap()).unwrap();
    let f = v.lookup_path(path).unwrap();
    assert!(f.is_folder());
    let tree = folder_tree(&mut v, f.id);
    (f.id, tree)
}

/// A source disk "src.hda" with volumes "Old HD" and "Other"; "Old HD" holds the stand-in
/// System Folder (System, Finder, and an Extensions folder with a two-fork extension and a
/// plain file), copied there with `ferrite add`. Returns the 'boot' 1 resource.
fn system_source_disk(s: &Scratch) -> Vec<u8> {
    let drv = s.fake_ferrite(9000, false);
    ok(
        s,
        &[
            "init",
            "src.hda",
            "--size",
            "24M",
            "--volume",
            "Old HD:12M",
            "--volume",
            "Other",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    let boot = stand_in_boot_blocks("System", "Finder");
    let folder = stand_in_system_folder(s, "srchost", Some([0x07, 0x55]), Some(&boot));
    let ext = folder.join("Extensions");
    std::fs::create_dir_all(&ext).unwrap();
    let inits = macbinary::MacFile {
        name: b"Stand-in INIT".to_vec(),
        file_type: *b"INIT",
        creator: *b"FRRT",
        finder_flags: 0x0100,
        created: 3_100_000_000,
        modified: 3_100_000_123,
        data: (0..70_000u32).map(|i| (i * 7 + 3) as u8).collect(),
        rsrc: resource_fork(&[(b"INIT", 0, b"stand-in init code")]),
        ..Default::default()
    };
    std::fs::write(ext.join("init.bin"), macbinary::encode(&inits)).unwrap();
    std::fs::write(ext.join("Read Me.txt"), b"plain data fork\n").unwrap();
    ok(s, &["add", "src.hda:Old HD", folder.to_str().unwrap()]);
    boot
}

/// `ferrite add --system DISK IMAGE:VOLUME:FOLDER` takes the System Folder from another disk
/// image's HFS volume: the copy has every file with both forks, type, creator, Finder flags
/// and dates of the source, the boot blocks are the System's 'boot' 1 resource and the copied
/// folder is blessed. From a bare volume image (`ferrite extract`), `IMAGE` alone takes its
/// blessed System Folder and `IMAGE:FOLDER` a named one.
#[test]
fn add_system_from_a_disk_image() {
    let s = Scratch::new("add-system-image");
    let boot = system_source_disk(&s);
    let (_, want) = tree_on(&s.path("src.hda"), Some(0), &[b"System Folder"]);
    assert_eq!(
        want.len(),
        5,
        "{:?}",
        want.iter().map(|t| &t.0).collect::<Vec<_>>()
    );
    assert!(
        want.iter()
            .any(|t| t.1 == *b"INIT" && t.6.len() == 70_000 && !t.7.is_empty())
    );

    system_disk(&s, "d.hda", "20M");
    let out = ok(
        &s,
        &["add", "--system", "d.hda", "src.hda:Old HD:System Folder"],
    );
    assert!(
        out.contains("starts up from \"System Folder\"") && out.contains("System 7.5.5"),
        "{out}"
    );
    assert!(
        out.contains("from src.hda:Old HD:System Folder:System"),
        "{out}"
    );
    let (bb, fi) = boot_and_finder_info(&s.path("d.hda"), 0);
    assert!(bb == boot, "the boot blocks are the 'boot' 1 resource");
    let (id, got) = tree_on(&s.path("d.hda"), Some(0), &[b"System Folder"]);
    assert_eq!(fi, [id, 0, 0, 0, 0, 0, 0, 0]);
    assert!(got == want, "the copy differs from the source");
    assert!(volume_clean(&s.path("d.hda"), 0));
    let info = ok(&s, &["info", "d.hda"]);
    assert!(
        info.contains(&format!(
            "startup volume: blessed System Folder \"System Folder\" (directory ID {id}), boot blocks load \"System\""
        )),
        "{info}"
    );
    // The source is unchanged.
    assert_eq!(
        boot_and_finder_info(&s.path("src.hda"), 0),
        (vec![0; 1024], [0; 8])
    );

    // A bare volume image of the startup volume: IMAGE alone is its blessed System Folder,
    // IMAGE:FOLDER and IMAGE::FOLDER name it.
    ok(&s, &["extract", "d.hda", "boot.dsk"]);
    for (disk, src) in [
        ("e.hda", "boot.dsk"),
        ("f.hda", "boot.dsk:System Folder"),
        ("g.hda", "boot.dsk::System Folder"),
    ] {
        system_disk(&s, disk, "20M");
        ok(&s, &["add", "--system", disk, src]);
        let (bb, fi) = boot_and_finder_info(&s.path(disk), 0);
        assert!(bb == boot, "{src}: boot blocks");
        let (id, got) = tree_on(&s.path(disk), Some(0), &[b"System Folder"]);
        assert_eq!(fi[0], id, "{src}: blessed");
        assert!(got == want, "{src}: the copy differs from the source");
        assert!(ok(&s, &["info", disk]).contains("startup volume: blessed"));
    }
    let (_, bare) = tree_on(&s.path("boot.dsk"), None, &[b"System Folder"]);
    assert!(bare == want);

    // Another volume of the same disk as the source.
    ok(
        &s,
        &[
            "add",
            "--system",
            "src.hda:Other",
            "src.hda:Old HD:System Folder",
        ],
    );
    let (bb, fi) = boot_and_finder_info(&s.path("src.hda"), 1);
    let (id, got) = tree_on(&s.path("src.hda"), Some(1), &[b"System Folder"]);
    assert!(bb == boot && fi[0] == id && got == want);
}

/// What `add --system` refuses from a disk image, with nothing written: a missing image, a
/// file that is no HFS image, a folder or volume that is not there, a volume with no blessed
/// folder, a file in place of the folder, and a folder without a System file.
#[test]
fn add_system_from_a_disk_image_refuses() {
    let s = Scratch::new("add-system-image-bad");
    system_source_disk(&s);
    // A folder on the source without a System file.
    let empty = s.path("nosys").join("Empty Folder");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("note.txt"), b"no System here").unwrap();
    ok(&s, &["add", "src.hda:Old HD", empty.to_str().unwrap()]);
    std::fs::write(s.path("junk.bin"), vec![0x55u8; 4096]).unwrap();
    system_disk(&s, "d.hda", "20M");
    let refuses = |src: &str, says: &[&str]| {
        let err = fails(&s, &["add", "--system", "d.hda", src]);
        for w in says {
            assert!(err.contains(w), "{src}: {err}");
        }
    };
    refuses(
        "nothere.hda:Old HD:System Folder",
        &[
            "no such folder on the host, and no disk image",
            "no disk image \"nothere.hda\"",
        ],
    );
    refuses(
        "junk.bin",
        &["junk.bin is neither a disk", "takes a folder"],
    );
    refuses("junk.bin:System Folder", &["junk.bin is neither a disk"]);
    refuses(
        "src.hda:Old HD:Nowhere",
        &[
            "volume \"Old HD\" has no folder \"Nowhere\"",
            "\"System Folder\"",
        ],
    );
    refuses(
        "src.hda:Missing HD:System Folder",
        &[
            "has no folder \"Missing HD:System Folder\"",
            "\"Missing HD\" is no volume of it",
            "volumes are \"Old HD\", \"Other\"",
        ],
    );
    refuses(
        "src.hda:Other:System Folder",
        &["volume \"Other\" has no folder \"System Folder\""],
    );
    refuses(
        "src.hda:Old HD",
        &["\"Old HD\" has no blessed System Folder"],
    );
    refuses("src.hda", &["\"Old HD\" has no blessed System Folder"]);
    refuses(
        "src.hda:Old HD:System Folder:System",
        &["is a file, not a folder"],
    );
    refuses(
        "src.hda:Old HD:Empty Folder",
        &["src.hda:Old HD:Empty Folder holds no System file"],
    );
    assert_eq!(
        boot_and_finder_info(&s.path("d.hda"), 0),
        (vec![0; 1024], [0; 8])
    );
    assert!(!ok(&s, &["ls", "d.hda"]).contains("System Folder"));
}

/// hfsutils agrees on the blessing `ferrite add --system` writes: `hls -i` shows the System
/// Folder's catalog ID equal to drFndrInfo[0], and `hattrib -b` (hfsutils' own bless) asked
/// to bless that folder leaves the Finder information exactly as ferrite wrote it. A folder
/// blessed by `hattrib -b` alone (no boot blocks) is reported as not starting up.
#[test]
#[ignore = "needs hfsutils: run `cargo xtask test`"]
fn hfsutils_agrees_with_the_blessed_system_folder() {
    let s = Scratch::new("oracle-bless");
    system_disk(&s, "d.hda", "20M");
    let boot = stand_in_boot_blocks("System", "Finder");
    let folder = stand_in_system_folder(&s, "host", Some([0x07, 0x55]), Some(&boot));
    ok(&s, &["add", "--system", "d.hda", folder.to_str().unwrap()]);
    let (_, fi) = boot_and_finder_info(&s.path("d.hda"), 0);
    s.tool("hmount", &[&s.p("d.hda"), "1"]);
    let ls = s.tool("hls", &["-i"]);
    let id: u32 = ls
        .lines()
        .find(|l| l.trim_end().ends_with("System Folder"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("hls -i does not list the System Folder:\n{ls}"));
    assert_eq!(fi[0], id);
    let inside = s.tool("hls", &["-l", ":System Folder"]);
    assert!(
        inside
            .lines()
            .any(|l| l.contains("zsys/MACS") && l.ends_with(" System")),
        "{inside}"
    );
    s.tool("hattrib", &["-b", ":System Folder"]);
    s.tool("humount", &[]);
    assert_eq!(
        boot_and_finder_info(&s.path("d.hda"), 0).1,
        fi,
        "hattrib -b agrees"
    );
    assert!(ok(&s, &["info", "d.hda"]).contains("startup volume: blessed"));

    // hfsutils alone: a blessed folder without boot blocks.
    system_disk(&s, "h.hda", "20M");
    s.tool("hmount", &[&s.p("h.hda"), "1"]);
    s.tool("hmkdir", &[":System Folder"]);
    s.tool("hattrib", &["-b", ":System Folder"]);
    s.tool("humount", &[]);
    let (bb, hfi) = boot_and_finder_info(&s.path("h.hda"), 0);
    assert!(bb.iter().all(|&b| b == 0) && hfi[0] != 0 && hfi[1..] == [0; 7]);
    let info = ok(&s, &["info", "h.hda"]);
    assert!(
        info.contains("not a startup volume: System Folder \"System Folder\" is blessed but the boot blocks are empty"),
        "{info}"
    );
}

/// A System Folder on a bare volume image that hfsutils wrote (an emulator-style `.dsk`, no
/// partition map: `hformat`, `hmkdir`, `hcopy -m` of the stand-in MacBinary files, `hattrib
/// -b` to bless it), taken by `ferrite add --system d.hda basilisk.dsk` and by
/// `basilisk.dsk:"System Folder"`; hfsutils reads the copy back: `hcopy -m` gives the same
/// forks, type and creator, and `hls -i` the blessed folder's ID.
#[test]
#[ignore = "needs hfsutils: run `cargo xtask test`"]
fn hfsutils_volume_image_as_the_system_source() {
    let s = Scratch::new("oracle-sysimg");
    let boot = stand_in_boot_blocks("System", "Finder");
    let folder = stand_in_system_folder(&s, "host", Some([0x07, 0x10]), Some(&boot));
    let dsk = s.path("basilisk.dsk");
    std::fs::write(&dsk, vec![0u8; 4 << 20]).unwrap();
    s.tool("hformat", &["-l", "Basilisk HD", &s.p("basilisk.dsk")]);
    s.tool("hmount", &[&s.p("basilisk.dsk")]);
    s.tool("hmkdir", &[":System Folder"]);
    for f in ["System.bin", "Finder.bin"] {
        s.tool(
            "hcopy",
            &["-m", folder.join(f).to_str().unwrap(), ":System Folder:"],
        );
    }
    s.tool("hattrib", &["-b", ":System Folder"]);
    s.tool("humount", &[]);
    let want: Vec<macbinary::MacFile> = ["System.bin", "Finder.bin"]
        .iter()
        .map(|f| macbinary::parse(&std::fs::read(folder.join(f)).unwrap()).unwrap())
        .collect();
    for (disk, src) in [
        ("d.hda", "basilisk.dsk"),
        ("e.hda", "basilisk.dsk:System Folder"),
        ("f.hda", "basilisk.dsk:Basilisk HD:System Folder"),
    ] {
        system_disk(&s, disk, "20M");
        let out = ok(&s, &["add", "--system", disk, src]);
        assert!(out.contains("System 7.1"), "{out}");
        let (bb, fi) = boot_and_finder_info(&s.path(disk), 0);
        assert!(
            bb == boot,
            "{src}: the boot blocks are the 'boot' 1 resource"
        );
        s.tool("hmount", &[&s.p(disk), "1"]);
        let ls = s.tool("hls", &["-i"]);
        let id: u32 = ls
            .lines()
            .find(|l| l.trim_end().ends_with("System Folder"))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("hls -i does not list the System Folder:\n{ls}"));
        assert_eq!(fi[0], id, "{src}: blessed");
        let inside = s.tool("hls", &["-l", ":System Folder"]);
        for w in &want {
            let name = String::from_utf8(w.name.clone()).unwrap();
            let tc = format!(
                "{}/{}",
                String::from_utf8_lossy(&w.file_type),
                String::from_utf8_lossy(&w.creator)
            );
            assert!(
                inside
                    .lines()
                    .any(|l| l.contains(&tc) && l.ends_with(&format!(" {name}"))),
                "{src}: {name} {tc}:\n{inside}"
            );
            let out = format!("{disk}-{name}.bin");
            s.tool(
                "hcopy",
                &["-m", &format!(":System Folder:{name}"), &s.p(&out)],
            );
            let got = macbinary::parse(&std::fs::read(s.path(&out)).unwrap()).unwrap();
            assert!(
                got.data == w.data && got.rsrc == w.rsrc,
                "{src}: {name}'s forks"
            );
            assert_eq!((got.file_type, got.creator), (w.file_type, w.creator));
        }
        s.tool("humount", &[]);
        assert!(ok(&s, &["info", disk]).contains("startup volume: blessed"));
    }
}

/// The benchmark's series as (name, object) pairs from `ferrite bench --json`'s first disk.
fn bench_series(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    v["series"]
        .as_array()
        .expect("series")
        .iter()
        .map(|r| (r["series"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn bench_times_the_disks_driver_and_never_writes_the_image() {
    let s = Scratch::new("bench");
    real_driver_available(&s);
    ok(
        &s,
        &[
            "init",
            "on.hda",
            "--size",
            "24M",
            "--no-setup-app",
            "--date",
            "2026-12-01",
        ],
    );
    ok(
        &s,
        &[
            "init",
            "off.hda",
            "--size",
            "24M",
            "--no-setup-app",
            "--date",
            "2026-12-01",
            "--write-cache",
            "off",
        ],
    );
    let before = std::fs::read(s.path("on.hda")).unwrap();
    let out = ok(
        &s,
        &[
            "bench",
            "on.hda",
            "off.hda",
            "--quick",
            "--json",
            "--write-cache",
            "off",
        ],
    );
    // Writes went to the emulated drive's copy, never to the files.
    assert!(std::fs::read(s.path("on.hda")).unwrap() == before);
    let v: serde_json::Value = serde_json::from_str(&out).expect("--json prints JSON");
    let disks = v.as_array().expect("one object per disk");
    assert_eq!(disks.len(), 2);
    for d in disks {
        assert!(d["driver"].as_str().unwrap().starts_with(".Ferrite"), "{d}");
        assert_eq!(d["volume"], "Macintosh HD");
        for (name, r) in bench_series(d) {
            let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{name}: {k}"));
            assert!(n("requests") > 0, "{name}");
            // Ferrite sends one command per contiguous request.
            assert_eq!(n("commands"), n("requests"), "{name}");
            // The parts fit in the whole (the SCSI Manager's time may overlap the bus's by
            // a completion's latency, never more than 1 %), and no driver beats the limit.
            let parts = n("driver_ns") + n("scsi_manager_ns") + n("bus_disk_ns");
            assert!(n("total_ns") >= n("bus_disk_ns") && parts <= n("total_ns") * 101 / 100);
            assert!(
                n("limit_ns") <= n("total_ns") + n("total_ns") / 1000,
                "{name}: {r}"
            );
            assert!(n("driver_cycles") > 0, "{name}");
        }
    }
    // The drive started with its write cache off: Ferrite's default settings turn it on,
    // the disk initialized with `--write-cache off` leaves it off.
    assert_eq!(disks[0]["write_cache_after"], true);
    assert_eq!(disks[1]["write_cache_after"], false);
    let kbps = |d: &serde_json::Value, series: &str| {
        bench_series(d)
            .into_iter()
            .find(|(n, _)| n == series)
            .map(|(_, r)| r["kb_per_s"].as_f64().unwrap())
            .unwrap()
    };
    // Reads don't care; single-block writes gain from the cache.
    let read = "sustained read (20 × 768 KB)";
    assert!((kbps(&disks[0], read) / kbps(&disks[1], read) - 1.0).abs() < 0.01);
    let small = "300 small files: write";
    assert!(kbps(&disks[0], small) > kbps(&disks[1], small) * 1.05);
    // The same run twice gives the same numbers (emulated time only).
    let again = ok(
        &s,
        &[
            "bench",
            "on.hda",
            "off.hda",
            "--quick",
            "--json",
            "--write-cache",
            "off",
        ],
    );
    assert_eq!(out, again);
    // The text form names the driver and compares the disks.
    let text = ok(&s, &["bench", "on.hda", "off.hda", "--quick"]);
    assert!(
        text.contains("side by side") && text.contains("driver: .Ferrite"),
        "{text}"
    );
    // A disk with no driver: said in words, non-zero exit.
    std::fs::write(s.path("blank.hda"), vec![0u8; 16 << 20]).unwrap();
    let e = fails(&s, &["bench", "blank.hda"]);
    assert!(e.contains("no driver was loaded"), "{e}");
    let e = fails(&s, &["bench", "on.hda", "--machine", "iici"]);
    assert!(
        e.contains("the profiles are plus, macii, se30, quadra900, 840av"),
        "{e}"
    );
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
        &[
            "init",
            &s.p("disk.img"),
            "--size",
            "20M",
            "--volume",
            "System:10M",
            "--volume",
            "Data",
            "--driver",
            &drv,
            "--write-cache",
            "off",
            "--no-setup-app",
            "--date",
            "2027-01-01",
        ],
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
