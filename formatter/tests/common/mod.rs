//! What the `ferrite` command's tests (`cli_*.rs`, one file per command) share: a scratch
//! folder, running `ferrite` and checking its exit, a stand-in driver and Ferrite Setup, and
//! reading back what a disk holds. Each test binary uses part of it.
#![allow(dead_code)]

use crate::support::resource_fork;
use ferrite_formatter::apm::read_map;
use ferrite_formatter::hfs::{
    DirEntry, EntryKind, Fork, FormatOptions, NewFile, Volume, check_volume, format_volume,
};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region, macbinary};
use ferrite_shared::driver_blob::Settings;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const NEEDS_DRIVER: &str =
    "the real driver must be embedded: run `cargo xtask test` (or `cargo xtask build` first)";

pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("ferrite-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    pub fn p(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }
    /// A stand-in Ferrite driver: the blob header, the settings block, code-like filler.
    pub fn fake_ferrite(&self, len: usize, write_cache: bool) -> String {
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
    /// `ferrite init {line}` with the standard stand-in driver ([`Scratch::fake_ferrite`],
    /// 9,000 bytes, write cache on) and no Ferrite Setup; it must succeed. Returns stdout.
    pub fn init_stand_in(&self, line: &str) -> String {
        let drv = self.fake_ferrite(9000, true);
        ok(
            self,
            &cmd(
                &format!("init {line} --driver {{}} --no-setup-app"),
                &[&drv],
            ),
        )
    }
    /// `ferrite init {line}` with the standard stand-in driver and the stand-in Ferrite Setup
    /// ([`Scratch::setup_app`]); it must succeed. Returns stdout.
    pub fn init_with_setup(&self, line: &str) -> String {
        let (drv, app) = (self.fake_ferrite(9000, true), self.setup_app());
        ok(
            self,
            &cmd(
                &format!("init {line} --driver {{}} --setup-app {{}}"),
                &[&drv, &app],
            ),
        )
    }
    /// A stand-in Ferrite driver with a version-2 settings block (transfer mode auto, cap
    /// 128), as `entry.S` has it.
    pub fn fake_ferrite_v2(&self, len: usize) -> String {
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
    pub fn setup_app(&self) -> String {
        let path = self.path("Test Setup.bin");
        std::fs::write(&path, macbinary::encode(&test_app())).unwrap();
        path.to_str().unwrap().into()
    }
    /// Another vendor's driver: no Ferrite header.
    pub fn third_party(&self, len: usize) -> String {
        let b: Vec<u8> = (0..len as u32).map(|i| (i * 31 + 1) as u8).collect();
        let path = self.path("vendor.drvr");
        std::fs::write(&path, b).unwrap();
        path.to_str().unwrap().into()
    }
    pub fn run_in(&self, dir: &Path, cmd: &str, args: &[&str]) -> Output {
        Command::new(cmd)
            .args(args)
            .env("HOME", &self.0)
            .current_dir(dir)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {cmd}: {e}"))
    }
    pub fn tool(&self, cmd: &str, args: &[&str]) -> String {
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

/// A `ferrite` command line: the words of `line`, each `{}` replaced by the next of `values`
/// (a path or a name with spaces stays one argument).
pub fn cmd(line: &str, values: &[&str]) -> Vec<String> {
    let mut values = values.iter();
    let args: Vec<String> = line
        .split_whitespace()
        .map(|w| match w {
            "{}" => values.next().expect("fewer values than {}").to_string(),
            w => w.to_string(),
        })
        .collect();
    assert!(values.next().is_none(), "more values than {{}} in {line:?}");
    args
}

/// The arguments as one line, for messages.
fn joined<A: AsRef<str>>(args: &[A]) -> String {
    args.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(" ")
}

/// Run ferrite in `dir` with `args` (`&[&str]`, or [`cmd`]'s words).
pub fn ferrite_in<A: AsRef<str>>(dir: &Path, args: &[A]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrite"))
        .args(args.iter().map(AsRef::as_ref))
        .current_dir(dir)
        .output()
        .expect("run ferrite")
}

/// Run ferrite; it must succeed; returns stdout.
pub fn ok<A: AsRef<str>>(s: &Scratch, args: &[A]) -> String {
    let out = ferrite_in(&s.0, args);
    assert!(
        out.status.success(),
        "`ferrite {}` failed:\n{}{}",
        joined(args),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Run ferrite; it must fail with a non-zero exit; returns stderr.
pub fn fails<A: AsRef<str>>(s: &Scratch, args: &[A]) -> String {
    let out = ferrite_in(&s.0, args);
    assert!(
        !out.status.success(),
        "`ferrite {}` succeeded:\n{}",
        joined(args),
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.trim().is_empty(), "no error message");
    err
}

/// hasBundle and hasBeenInited (`fdFlags`).
pub const HAS_BUNDLE: u16 = 0x2000;

pub const HAS_BEEN_INITED: u16 = 0x0100;

/// A stand-in for Ferrite Setup: an application by another name (`ferrite init` renames it),
/// hasBeenInited set (init clears it), a small data fork and a resource fork with `CODE` 0
/// and 1 (over several allocation blocks), the signature resource and a `STR#`.
pub fn test_app() -> macbinary::MacFile {
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
pub fn file_entry(path: &Path, n: usize, name: &[u8]) -> (DirEntry, Vec<u8>, Vec<u8>) {
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
pub fn assert_setup_app(path: &Path, n: usize, app: &macbinary::MacFile) {
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

pub struct Part {
    pub kind: String,
    pub name: String,
    pub start: u32,
    pub blocks: u32,
}

pub fn partitions(path: &Path, bs: u32) -> Vec<Part> {
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
pub fn read_file(path: &Path, n: usize, name: &[&[u8]]) -> (Vec<u8>, Vec<u8>, [u8; 4], [u8; 4]) {
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

pub fn volume_clean(path: &Path, n: usize) -> bool {
    let mut img = ImageFile::open(path).unwrap();
    let map = read_map(&mut img).unwrap();
    let p = map.hfs_partitions().nth(n).unwrap().clone();
    check_volume(Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap())
        .unwrap()
        .is_clean()
}

pub fn driver_on_disk(path: &Path) -> Vec<u8> {
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

/// The Ferrite Setup this test binary's `ferrite` was built with (`build.rs`'s output; empty
/// when `target/m68k/FerriteSetup.bin` did not exist).
pub const EMBEDDED_SETUP_APP: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/FerriteSetup.bin"));

/// A bare HFS volume image with one file.
pub fn bare_volume(s: &Scratch, name: &str) -> PathBuf {
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

// ---- with the real driver: boot in the emulated Mac ----

pub fn real_driver_available(s: &Scratch) {
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

pub fn boots(s: &Scratch, disk: &str, volumes: &[&str], cat: Option<(&str, &str)>) {
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
