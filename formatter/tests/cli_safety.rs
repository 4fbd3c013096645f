//! CLI safety (issue 13, item 7): every `ferrite` subcommand that writes is run in a fresh
//! folder, and the folder — every file's name, size and SHA-256, the target's siblings
//! included — is compared before and after:
//!
//! - a command that succeeds changes the target and the output the user named, nothing else;
//! - a destructive command refuses a disk that holds data (a partition map, an HFS volume,
//!   or any other non-zero bytes) without `--force`, says what is there and how to go on, and
//!   leaves it byte for byte as it was;
//! - a command that stops on an error it can see before writing (bad size, volume too big,
//!   no System file, no room for the driver, unreadable input...) exits non-zero with a
//!   message naming the problem, leaves an existing target byte for byte as it was and
//!   leaves no new file behind.
//!
//! The commands run with `HOME` and `TMPDIR` inside the folder, so that a stray file would
//! show up in the comparison. Stand-in drivers and applications, as in `cli.rs`: a fresh
//! clone runs these in a plain `cargo test`.

use ferrite_formatter::hfs::{FormatOptions, NewFile, Volume, format_volume};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::macbinary;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::resource_fork;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("ferrite-safety-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    fn write(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.path(name), bytes).unwrap();
    }
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ferrite"))
            .args(args)
            .current_dir(&self.0)
            .env("HOME", &self.0)
            .env("TMPDIR", self.0.join("tmp"))
            .output()
            .expect("run ferrite")
    }
    /// Every file below the folder: relative path → (size, SHA-256).
    fn snapshot(&self) -> BTreeMap<String, (u64, Vec<u8>)> {
        fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (u64, Vec<u8>)>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                if p.is_dir() {
                    out.insert(format!("{rel}/"), (0, Vec::new()));
                    walk(root, &p, out);
                } else {
                    let b = std::fs::read(&p).unwrap();
                    out.insert(rel, (b.len() as u64, Sha256::digest(&b).to_vec()));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.0, &self.0, &mut out);
        out
    }
    /// Run `args`; check success or failure, and that only `may_change` changed (created,
    /// modified or removed). Returns stdout (success) or stderr (failure).
    fn check(&self, args: &[&str], succeeds: bool, may_change: &[&str]) -> String {
        let before = self.snapshot();
        let out = self.run(args);
        let after = self.snapshot();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.success(),
            succeeds,
            "`ferrite {}`:\n{stdout}{stderr}",
            args.join(" ")
        );
        let mut changed: Vec<String> = before
            .keys()
            .chain(after.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .cloned()
            .collect();
        changed.sort();
        changed.dedup();
        let stray: Vec<&String> = changed
            .iter()
            .filter(|c| !may_change.contains(&c.as_str()))
            .collect();
        assert!(
            stray.is_empty(),
            "`ferrite {}` changed {stray:?} (allowed: {may_change:?})\n{stdout}{stderr}",
            args.join(" ")
        );
        if succeeds {
            stdout
        } else {
            assert!(stderr.contains("error:"), "no error message: {stderr}");
            stderr
        }
    }
    /// `check` for a command that must fail and change nothing at all.
    fn refused(&self, args: &[&str]) -> String {
        self.check(args, false, &[])
    }
    fn ok(&self, args: &[&str], may_change: &[&str]) -> String {
        self.check(args, true, may_change)
    }
    /// A stand-in Ferrite driver of `len` bytes (blob header, settings block, filler).
    fn driver(&self, name: &str, len: usize) -> String {
        let mut b: Vec<u8> = (0..len as u32).map(|i| (i * 13 + 5) as u8).collect();
        b[4..8].copy_from_slice(b"FRRT");
        b[16..48].fill(0);
        b[16..20].copy_from_slice(b"FSET");
        b[20..22].copy_from_slice(&2u16.to_be_bytes());
        b[24..28].copy_from_slice(&1u32.to_be_bytes());
        b[32..34].copy_from_slice(&128u16.to_be_bytes());
        self.write(name, &b);
        name.into()
    }
    /// A bare HFS volume image holding one file.
    fn bare_volume(&self, name: &str, bytes: u64) {
        let mut img = ImageFile::create(&self.path(name), bytes).unwrap();
        format_volume(&mut img, &FormatOptions::new(b"Old Disk", 3_000_000_000)).unwrap();
        let mut v = Volume::open(&mut img).unwrap();
        v.add_file(
            2,
            &NewFile {
                name: b"ReadMe",
                file_type: *b"TEXT",
                creator: *b"ttxt",
                finder_flags: 0,
                data: b"from a .dsk",
                rsrc: b"",
                created: 3_000_000_000,
                modified: 3_000_000_000,
            },
        )
        .unwrap();
        v.flush().unwrap();
    }
    /// A stand-in application (MacBinary II, type APPL, CODE 0 and 1).
    fn app(&self, name: &str) -> String {
        self.write(name, &macbinary::encode(&test_app()));
        name.into()
    }
    /// `ferrite init NAME` with a stand-in driver, 8 MB, two volumes.
    fn disk(&self, name: &str) {
        let drv = self.driver("drv.bin", 12_000);
        self.ok(
            &[
                "init",
                name,
                "--size",
                "8M",
                "--volume",
                "A:3M",
                "--volume",
                "B",
                "--driver",
                &drv,
                "--no-setup-app",
                "--date",
                "2026-12-01",
            ],
            &[name],
        );
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A stand-in application (type APPL, `CODE` 0 and 1, what Ferrite Setup's check needs).
fn test_app() -> macbinary::MacFile {
    let code1: Vec<u8> = (0..3000u32).map(|i| (i * 7 + 3) as u8).collect();
    macbinary::MacFile {
        name: b"Test Setup".to_vec(),
        file_type: *b"APPL",
        creator: *b"FRRT",
        created: 3_100_000_000,
        modified: 3_100_000_500,
        data: b"data fork".to_vec(),
        rsrc: resource_fork(&[
            (
                b"CODE",
                0,
                &[0, 0, 0, 0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0x20],
            ),
            (b"CODE", 1, &code1),
        ]),
        ..Default::default()
    }
}

fn has(text: &str, words: &[&str]) {
    for w in words {
        assert!(text.contains(w), "{w:?} missing in: {text}");
    }
}

#[test]
fn init_writes_only_its_disk() {
    let s = Scratch::new("init");
    s.write("neighbour.hda", b"another disk's bytes");
    let drv = s.driver("drv.bin", 12_000);
    let app = s.app("app.bin");
    s.ok(
        &[
            "init",
            "d.hda",
            "--size",
            "6M",
            "--driver",
            &drv,
            "--setup-app",
            &app,
        ],
        &["d.hda"],
    );
    // A folder as DISK: the BlueSCSI name inside it, the neighbours kept.
    std::fs::create_dir(s.path("sd")).unwrap();
    s.write("sd/HD00_512.hda", b"");
    s.write("sd/HD00_512.hda", &[0u8; 512]);
    s.ok(
        &[
            "init",
            "sd",
            "--size",
            "4M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
        &["sd/HD10_512.hda"],
    );
    // --force over an existing disk: only that disk.
    s.ok(
        &[
            "init",
            "d.hda",
            "--force",
            "--size",
            "5M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
        &["d.hda"],
    );
}

#[test]
fn init_and_convert_refuse_existing_data_without_force() {
    let s = Scratch::new("refuse");
    let drv = s.driver("drv.bin", 12_000);
    s.disk("map.hda");
    s.bare_volume("vol.dsk", 1 << 20);
    // Not a Mac disk, but data all the same (a FAT boot sector, text, a byte at the end).
    let mut fat = vec![0u8; 4 << 20];
    fat[0..3].copy_from_slice(&[0xEB, 0x3C, 0x90]);
    fat[510..512].copy_from_slice(&[0x55, 0xAA]);
    s.write("fat.img", &fat);
    s.write("notes.txt", b"my notes, not a disk\n");
    let mut tail = vec![0u8; 4 << 20];
    *tail.last_mut().unwrap() = 1;
    s.write("tail.img", &tail);
    for (file, what) in [
        ("map.hda", "a partition map"),
        ("vol.dsk", "an HFS volume"),
        ("fat.img", "data"),
        ("notes.txt", "data"),
        ("tail.img", "data"),
    ] {
        let err = s.refused(&["init", file, "--driver", &drv, "--no-setup-app"]);
        has(&err, &[file, what, "--force"]);
        let err = s.refused(&["convert", "vol.dsk", file, "--driver", &drv]);
        has(&err, &[file, what, "--force"]);
    }
    // An all-zero file is not data: used without --force, keeping its size.
    s.write("zero.img", &vec![0u8; 3 << 20]);
    s.ok(
        &["init", "zero.img", "--driver", &drv, "--no-setup-app"],
        &["zero.img"],
    );
    assert_eq!(
        std::fs::metadata(s.path("zero.img")).unwrap().len(),
        3 << 20
    );
    // With --force the data goes.
    s.ok(
        &[
            "init",
            "fat.img",
            "--force",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
        &["fat.img"],
    );
}

#[test]
fn init_errors_before_writing_leave_the_target_as_it_was() {
    let s = Scratch::new("init-errors");
    let drv = s.driver("drv.bin", 12_000);
    s.disk("d.hda");
    s.write("junk.bin", &[0x55; 3000]);
    s.write("big.drv", &vec![1u8; 70_000]);
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["--size", "8M", "--volume", "A:20M"],
            vec!["too small", "--size"],
        ),
        (
            vec!["--size", "8M", "--volume", "A:4M", "--volume", "B:5M"],
            vec!["B"],
        ),
        (vec!["--size", "100K"], vec!["100"]),
        (vec!["--size", "lots"], vec!["lots"]),
        (vec!["--volume", "Caf\u{e9}"], vec!["Caf\u{e9}", "ASCII"]),
        (
            vec!["--volume", "A name far longer than HFS allows"],
            vec!["A name far longer", "27"],
        ),
        (vec!["--block-size", "999"], vec!["999"]),
        (vec!["--setup-app", "missing.bin"], vec!["missing.bin"]),
        (vec!["--setup-app", "junk.bin"], vec!["junk.bin"]),
    ];
    for (extra, words) in &cases {
        for target in ["d.hda", "new.hda"] {
            let mut args = vec!["init", target, "--force", "--driver", &drv];
            if !extra.contains(&"--setup-app") {
                args.push("--no-setup-app");
            }
            args.extend(extra);
            let err = s.refused(&args);
            has(&err, words);
        }
    }
    // The driver: missing, or too big for a partition map.
    for (d, words) in [
        ("missing.drv", vec!["missing.drv"]),
        ("big.drv", vec!["70000", "65535"]),
    ] {
        for target in ["d.hda", "new.hda"] {
            let err = s.refused(&["init", target, "--force", "--driver", d, "--no-setup-app"]);
            has(&err, &words);
        }
    }
    // The folder for the new disk does not exist.
    let err = s.refused(&["init", "nowhere/d.hda", "--driver", &drv, "--no-setup-app"]);
    has(&err, &["nowhere", "does not exist"]);
}

#[test]
fn convert_writes_only_its_disk_and_refuses_bad_input() {
    let s = Scratch::new("convert");
    let drv = s.driver("drv.bin", 12_000);
    s.bare_volume("vol.dsk", 1 << 20);
    s.ok(
        &[
            "convert",
            "vol.dsk",
            "out.hda",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
        &["out.hda"],
    );
    let app = s.app("app.bin");
    s.ok(
        &[
            "convert",
            "vol.dsk",
            "out2.hda",
            "--driver",
            &drv,
            "--setup-app",
            &app,
            "--size",
            "4M",
        ],
        &["out2.hda"],
    );
    s.write("text.txt", b"not a volume at all");
    s.write("zeros.dsk", &[0u8; 8192]);
    for (input, words) in [
        ("missing.dsk", vec!["missing.dsk"]),
        ("text.txt", vec!["text.txt"]),
        ("zeros.dsk", vec!["zeros.dsk"]),
        ("out.hda", vec!["out.hda"]),
    ] {
        let err = s.refused(&["convert", input, "new.hda", "--driver", &drv]);
        has(&err, &words);
    }
    // A disk smaller than the volume, and a volume with no room for Ferrite Setup.
    let err = s.refused(&[
        "convert", "vol.dsk", "new.hda", "--driver", &drv, "--size", "512K",
    ]);
    has(&err, &["too small", "--size"]);
    s.bare_volume("tiny.dsk", 400 << 10);
    let big_app = macbinary::MacFile {
        data: vec![7u8; 600 << 10],
        ..test_app()
    };
    s.write("big.bin", &macbinary::encode(&big_app));
    let err = s.refused(&[
        "convert",
        "tiny.dsk",
        "new.hda",
        "--driver",
        &drv,
        "--setup-app",
        "big.bin",
    ]);
    has(&err, &["Ferrite Setup", "--no-setup-app"]);
}

#[test]
fn add_and_extract_write_only_their_targets() {
    let s = Scratch::new("add");
    s.disk("d.hda");
    s.write("a.txt", b"hello\n");
    std::fs::create_dir(s.path("dir")).unwrap();
    s.write("dir/b.txt", b"inside\n");
    s.ok(&["add", "d.hda:B/Docs", "a.txt", "dir"], &["d.hda"]);
    s.ok(&["add", "--text", "d.hda:A", "a.txt"], &["d.hda"]);
    s.ok(&["extract", "d.hda:B", "B.dsk"], &["B.dsk"]);
    // Readers write nothing.
    for args in [
        vec!["info", "d.hda"],
        vec!["check", "d.hda"],
        vec!["report", "d.hda"],
        vec!["report", "d.hda", "--json"],
        vec!["ls", "-R", "d.hda:B"],
    ] {
        s.ok(&args, &[]);
    }
    // Extract over an existing file only with --force.
    let err = s.refused(&["extract", "d.hda:A", "B.dsk"]);
    has(&err, &["B.dsk", "exists", "--force"]);
    s.ok(&["extract", "d.hda:A", "B.dsk", "--force"], &["B.dsk"]);
    let err = s.refused(&["extract", "d.hda:Nope", "C.dsk"]);
    has(&err, &["Nope"]);
    let err = s.refused(&["extract", "d.hda", "d.hda", "--force"]);
    has(&err, &["same file"]);
    // A volume whose MDB is gone: nothing to copy, no file made.
    let map =
        ferrite_formatter::apm::read_map(&mut ImageFile::open(&s.path("d.hda")).unwrap()).unwrap();
    let b = map.hfs_partitions().nth(1).unwrap().start as usize;
    let mut bytes = std::fs::read(s.path("d.hda")).unwrap();
    bytes[b * 512 + 1024..b * 512 + 1026].fill(0);
    s.write("d.hda", &bytes);
    let err = s.refused(&["extract", "d.hda:2", "broken.dsk"]);
    has(&err, &["volume 2", "ferrite check"]);
}

#[test]
fn add_errors_before_writing_leave_the_disk_as_it_was() {
    let s = Scratch::new("add-errors");
    s.disk("d.hda");
    s.write("a.txt", b"hello\n");
    s.ok(&["add", "d.hda:A", "a.txt"], &["d.hda"]);
    s.write("huge.bin", &vec![9u8; 4 << 20]);
    s.write("b.bin", &vec![3u8; 1200 << 10]);
    s.write("c.bin", &vec![4u8; 1200 << 10]);
    s.write("e.bin", &vec![5u8; 1200 << 10]);
    s.write("bad.bin", &{
        let mut b = macbinary::encode(&test_app());
        b[124] ^= 0xFF; // the header CRC no longer matches... kept as a plain file
        b
    });
    let long = "a".repeat(40) + ".txt";
    s.write(&long, b"x");
    for (args, words) in [
        (vec!["add", "d.hda:A", "missing.txt"], vec!["missing.txt"]),
        (
            vec!["add", "d.hda:A", "a.txt"],
            vec!["a.txt", "already exists"],
        ),
        (vec!["add", "d.hda:C", "a.txt"], vec!["\"C\""]),
        (
            vec!["add", "d.hda:A", "huge.bin"],
            vec!["\"A\"", "free", "nothing was copied"],
        ),
        // Room for each file but not for all of them; into a folder not there yet.
        (
            vec!["add", "d.hda:A/New", "b.bin", "c.bin", "e.bin"],
            vec!["free", "nothing was copied"],
        ),
        (
            vec!["add", "d.hda:A", "a.txt", "missing.txt"],
            vec!["missing.txt"],
        ),
        (vec!["add", "d.hda:A", &long], vec![&long[..10]]),
        (vec!["add", "nodisk.hda:A", "a.txt"], vec!["nodisk.hda"]),
        // --system: no System file in the folder.
        (vec!["add", "--system", "d.hda:B", "a.txt"], vec!["a.txt"]),
    ] {
        let err = s.refused(&args);
        has(&err, &words);
    }
    // Each of them fits.
    s.ok(&["add", "d.hda:B", "e.bin"], &["d.hda"]);
    std::fs::create_dir(s.path("Empty Folder")).unwrap();
    s.write("Empty Folder/Finder.txt", b"not a System");
    let err = s.refused(&["add", "--system", "d.hda:B", "Empty Folder"]);
    has(&err, &["System"]);
}

#[test]
fn install_driver_writes_only_its_disk_and_refuses_before_writing() {
    let s = Scratch::new("install");
    s.disk("d.hda");
    let drv2 = s.driver("drv2.bin", 12_400);
    s.ok(&["install-driver", "d.hda", "--driver", &drv2], &["d.hda"]);
    s.ok(
        &[
            "install-driver",
            "d.hda",
            "--driver",
            &drv2,
            "--write-cache",
            "off",
        ],
        &["d.hda"],
    );
    s.bare_volume("vol.dsk", 1 << 20);
    s.write("big.drv", &vec![1u8; 70_000]);
    s.write("empty.drv", b"");
    let huge = s.driver("huge.bin", 60_000);
    let vendor: Vec<u8> = (0..9000u32).map(|i| (i * 31 + 1) as u8).collect();
    s.write("vendor.drv", &vendor);
    s.write("plain.txt", b"not a disk");
    // A map whose second entry is gone.
    let mut broken = std::fs::read(s.path("d.hda")).unwrap();
    broken[2 * 512..2 * 512 + 2].fill(0);
    s.write("broken.hda", &broken);
    for (args, words) in [
        (
            vec!["install-driver", "broken.hda", "--driver", &drv2],
            vec!["broken.hda", "ferrite check"],
        ),
        (
            vec!["install-driver", "vol.dsk", "--driver", &drv2],
            vec!["vol.dsk", "no partition map", "ferrite convert"],
        ),
        (
            vec!["install-driver", "plain.txt", "--driver", &drv2],
            vec!["plain.txt", "no partition map"],
        ),
        (
            vec!["install-driver", "missing.hda", "--driver", &drv2],
            vec!["missing.hda", "ferrite init"],
        ),
        (
            vec!["install-driver", "d.hda", "--driver", "missing.drv"],
            vec!["missing.drv"],
        ),
        (
            vec!["install-driver", "d.hda", "--driver", "empty.drv"],
            vec!["empty.drv", "empty"],
        ),
        (
            vec!["install-driver", "d.hda", "--driver", "big.drv"],
            vec!["70000", "65535"],
        ),
        (
            vec!["install-driver", "d.hda", "--driver", &huge],
            vec!["no room for the new driver", "ferrite init --force"],
        ),
        (
            vec![
                "install-driver",
                "d.hda",
                "--driver",
                "vendor.drv",
                "--write-cache",
                "on",
            ],
            vec!["Ferrite driver", "leave the options out"],
        ),
    ] {
        let err = s.refused(&args);
        has(&err, &words);
    }
}

/// `boot` attaches the disk to the emulated Mac and reads through the driver: the disk and
/// its folder do not change.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn boot_writes_nothing() {
    let s = Scratch::new("boot");
    let app = s.app("app.bin");
    s.ok(
        &["init", "HD00_512.hda", "--size", "8M", "--setup-app", &app],
        &["HD00_512.hda"],
    );
    s.write("a.txt", b"read back through the driver\n");
    s.ok(&["add", "HD00_512.hda", "a.txt"], &["HD00_512.hda"]);
    let out = s.ok(
        &[
            "boot",
            "HD00_512.hda",
            "--cat",
            "a.txt",
            "--rom",
            "old",
            "--cpu",
            "68000",
        ],
        &[],
    );
    has(&out, &["read back through the driver", "mounted"]);
    s.ok(&["boot", "HD00_512.hda"], &[]);
}

/// `qemu --dry-run` makes the PRAM file it names and nothing else; errors before it write
/// nothing.
#[test]
fn qemu_makes_only_its_pram_file() {
    let s = Scratch::new("qemu");
    s.disk("HD20_512.hda");
    // A stand-in Quadra 800 ROM: 1 MiB whose words after the first four bytes sum to the
    // checksum those bytes hold.
    let mut rom = vec![0u8; 1 << 20];
    let sum: u32 = 0xF1AC_AD13;
    rom[..4].copy_from_slice(&sum.to_be_bytes());
    let (mut left, mut at) = (sum as u64, 4);
    while left > 0 {
        let w = left.min(0xFFFF);
        rom[at..at + 2].copy_from_slice(&(w as u16).to_be_bytes());
        left -= w;
        at += 2;
    }
    s.write("Q800.ROM", &rom);
    let out = s.ok(
        &["qemu", "HD20_512.hda", "--rom", "Q800.ROM", "--dry-run"],
        &["HD20_512.pram"],
    );
    has(&out, &["qemu-system-m68k", "HD20_512.pram"]);
    // Kept the second time.
    s.ok(
        &["qemu", "HD20_512.hda", "--rom", "Q800.ROM", "--dry-run"],
        &[],
    );
    s.write("short.rom", &rom[..1000]);
    for (args, words) in [
        (
            vec![
                "qemu",
                "HD20_512.hda",
                "--rom",
                "short.rom",
                "--dry-run",
                "--pram",
                "x.pram",
            ],
            vec!["short.rom"],
        ),
        (
            vec![
                "qemu",
                "missing.hda",
                "--rom",
                "Q800.ROM",
                "--dry-run",
                "--pram",
                "y.pram",
            ],
            vec!["missing.hda"],
        ),
    ] {
        let err = s.refused(&args);
        has(&err, &words);
    }
}
