//! Oracle tests: other people's tools read what we write, and we read what they write.
//! parted (partition map), hfsutils (`hformat`, `hmount`, `hls`, `hcopy`, `hattrib`, `hmkdir`)
//! and Python `machfs`. Installed by `cargo xtask setup` / `cargo xtask test`; these tests
//! fail (never skip) when run with `--include-ignored` on a machine without them.

use ferrite_formatter::apm::{HfsPartitionSpec, Layout, PartSize, read_map, write_map};
use ferrite_formatter::hfs::{
    EntryKind, Fork, FormatOptions, NewFile, Volume, check_volume, format_volume,
};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region, macbinary};
use std::path::{Path, PathBuf};
use std::process::Command;

const T0: u32 = 3_000_000_000;

/// A scratch directory that is also `$HOME` for hfsutils (it keeps its mount state in
/// `~/.hcwd`), so parallel tests do not share a current volume.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("ferrite-oracle-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    /// Run a tool; panic with its output if it fails or is missing.
    fn run(&self, cmd: &str, args: &[&str]) -> String {
        let out = Command::new(cmd).args(args).env("HOME", &self.0).current_dir(&self.0).output().unwrap_or_else(|e| {
            panic!("cannot run `{cmd}` ({e}): the oracle tools are missing; run `cargo xtask setup` (installs parted, hfsutils and machfs)")
        });
        assert!(
            out.status.success(),
            "`{cmd} {}` failed ({}):\n{}\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    fn python(&self, script: &str, args: &[&str]) -> String {
        let mut a = vec!["-c", script];
        a.extend_from_slice(args);
        self.run("python3", &a)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn need_machfs(s: &Scratch) {
    let ok = Command::new("python3")
        .args(["-c", "import machfs"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "Python module machfs is missing: run `cargo xtask setup` (installs parted, hfsutils and machfs)"
    );
    let _ = s;
}

struct Sample {
    name: &'static [u8],
    folder: &'static [&'static [u8]],
    file_type: [u8; 4],
    creator: [u8; 4],
    flags: u16,
    data: Vec<u8>,
    rsrc: Vec<u8>,
}

fn samples() -> Vec<Sample> {
    vec![
        Sample {
            name: b"Read Me",
            folder: &[],
            file_type: *b"TEXT",
            creator: *b"ttxt",
            flags: 0,
            data: b"Hello from Ferrite\r".repeat(100),
            rsrc: Vec::new(),
        },
        Sample {
            name: b"Ferrite Setup",
            folder: &[b"Apps"],
            file_type: *b"APPL",
            creator: *b"FeRR",
            flags: 0x2000,
            data: Vec::new(),
            rsrc: (0..5000u32).map(|i| (i * 31 % 251) as u8).collect(),
        },
        Sample {
            name: b"Both",
            folder: &[b"Apps", b"Deep"],
            file_type: *b"BINA",
            creator: *b"????",
            flags: 0x0100,
            data: (0..70_000u32).map(|i| (i % 253) as u8).collect(),
            rsrc: b"resource fork bytes".to_vec(),
        },
    ]
}

fn fill<D: BlockDevice>(dev: D, name: &[u8]) {
    let mut dev = dev;
    format_volume(&mut dev, &FormatOptions::new(name, T0)).unwrap();
    let mut v = Volume::open(dev).unwrap();
    for s in samples() {
        let dir = v.make_folders(s.folder, T0).unwrap();
        v.add_file(
            dir,
            &NewFile {
                name: s.name,
                file_type: s.file_type,
                creator: s.creator,
                finder_flags: s.flags,
                data: &s.data,
                rsrc: &s.rsrc,
                created: T0 + 10,
                modified: T0 + 20,
            },
        )
        .unwrap();
    }
    v.flush().unwrap();
}

fn hfs_path(s: &Sample) -> String {
    let mut p = String::from(":");
    for f in s.folder {
        p.push_str(std::str::from_utf8(f).unwrap());
        p.push(':');
    }
    p.push_str(std::str::from_utf8(s.name).unwrap());
    p
}

/// A 40 MiB disk: driver, two HFS volumes, free space.
fn partitioned_image(s: &Scratch) -> PathBuf {
    let path = s.path("disk.img");
    let mut img = ImageFile::create(&path, 40 << 20).unwrap();
    let driver: Vec<u8> = (0..9000u32).map(|i| (i * 7) as u8).collect();
    let layout = Layout {
        driver: Some(&driver),
        driver_slot_blocks: 32,
        hfs: vec![
            HfsPartitionSpec {
                name: "MacOS".into(),
                size: PartSize::Blocks(40_000),
            },
            HfsPartitionSpec {
                name: "Data".into(),
                size: PartSize::Blocks(20_000),
            },
        ],
    };
    let map = write_map(&mut img, &layout).unwrap();
    let parts: Vec<_> = map.hfs_partitions().cloned().collect();
    for (p, name) in parts.iter().zip([&b"Ferrite HD"[..], b"Second"]) {
        fill(
            Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap(),
            name,
        );
    }
    path
}

#[test]
#[ignore = "needs parted, hfsutils and machfs: run `cargo xtask test`"]
fn parted_lists_our_partitions() {
    let s = Scratch::new("parted");
    let img = partitioned_image(&s);
    let out = s.run(
        "parted",
        &["-m", "-s", img.to_str().unwrap(), "unit", "s", "print"],
    );
    let lines: Vec<&str> = out.lines().skip(2).collect();
    assert_eq!(
        lines,
        [
            "1:1s:63s:63s::Apple:;",
            "2:64s:95s:32s::Macintosh:;",
            "3:96s:40095s:40000s:hfs:MacOS:;",
            "4:40096s:60095s:20000s:hfs:Data:;",
        ],
        "parted printed:\n{out}"
    );
    // parted shows the Apple_Free "Extra" entry as free space, not as a partition.
    let free = s.run(
        "parted",
        &[
            "-m",
            "-s",
            img.to_str().unwrap(),
            "unit",
            "s",
            "print",
            "free",
        ],
    );
    assert!(
        free.lines()
            .any(|l| l.ends_with(":60096s:81919s:21824s:free;")),
        "parted printed:\n{free}"
    );
    assert!(
        out.lines()
            .nth(1)
            .unwrap()
            .contains(":81920s:file:512:512:mac:"),
        "{out}"
    );
}

#[test]
#[ignore = "needs parted, hfsutils and machfs: run `cargo xtask test`"]
fn hfsutils_lists_and_extracts_our_files() {
    let s = Scratch::new("hfsutils");
    let img = partitioned_image(&s);
    let img = img.to_str().unwrap();
    for (part, vol) in [("1", "Ferrite HD"), ("2", "Second")] {
        let out = s.run("hmount", &[img, part]);
        assert!(out.contains(&format!("Volume name is \"{vol}\"")), "{out}");
        let listing = s.run("hls", &["-laR"]);
        for smp in samples() {
            let name = std::str::from_utf8(smp.name).unwrap();
            let tc = format!(
                "{}/{}",
                String::from_utf8_lossy(&smp.file_type),
                String::from_utf8_lossy(&smp.creator)
            );
            let line = listing
                .lines()
                .find(|l| l.ends_with(name))
                .unwrap_or_else(|| panic!("{name} not listed:\n{listing}"));
            let cols: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(
                &cols[..4],
                [
                    "f",
                    &tc,
                    &smp.rsrc.len().to_string(),
                    &smp.data.len().to_string()
                ],
                "{line}"
            );
            // MacBinary out of hcopy -m: both forks, type, creator, flags.
            s.run("hcopy", &["-m", &hfs_path(&smp), "out.bin"]);
            let mb = macbinary::parse(&std::fs::read(s.path("out.bin")).unwrap()).unwrap();
            assert_eq!(mb.name, smp.name);
            assert_eq!((mb.file_type, mb.creator), (smp.file_type, smp.creator));
            assert_eq!(mb.finder_flags & 0xFF00, smp.flags & 0xFF00);
            assert_eq!(mb.data, smp.data);
            assert_eq!(mb.rsrc, smp.rsrc);
            assert_eq!((mb.created, mb.modified), (T0 + 10, T0 + 20));
            s.run("hcopy", &["-r", &hfs_path(&smp), "out.raw"]);
            assert_eq!(std::fs::read(s.path("out.raw")).unwrap(), smp.data);
        }
        // hfsutils changes our volume; we still read it and it still checks clean.
        s.run("hattrib", &["-t", "ttro", "-c", "R*ch", ":Read Me"]);
        std::fs::write(s.path("new.txt"), b"written by hcopy\n").unwrap();
        s.run("hcopy", &["-r", "new.txt", ":Apps:From hcopy"]);
        s.run("humount", &[]);
    }
    let mut dev = ImageFile::open(Path::new(img)).unwrap();
    let map = read_map(&mut dev).unwrap();
    let p = map.hfs_partitions().next().unwrap().clone();
    let mut r = Region::new(&mut dev, p.start as u64, p.blocks as u64).unwrap();
    let report = check_volume(&mut r).unwrap();
    assert!(report.is_clean(), "{:?}", report.problems);
    let mut v = Volume::open(r).unwrap();
    let e = v.lookup_path(&[b"Read Me"]).unwrap();
    assert!(
        matches!(e.kind, EntryKind::File { file_type: t, creator: c, .. } if &t == b"ttro" && &c == b"R*ch")
    );
    let e = v.lookup_path(&[b"Apps", b"From hcopy"]).unwrap();
    assert_eq!(v.read_fork(&e, Fork::Data).unwrap(), b"written by hcopy\n");
}

const MACHFS_DUMP: &str = r#"
import sys, machfs
v = machfs.Volume()
v.read(open(sys.argv[1], 'rb').read())
for path, obj in sorted(v.iter_paths()):
    if isinstance(obj, machfs.File):
        print('FILE', ':'.join(path), obj.type.decode('mac_roman'), obj.creator.decode('mac_roman'),
              obj.flags, len(obj.data), len(obj.rsrc), obj.data.hex()[:64], obj.rsrc.hex()[:64])
    else:
        print('DIR', ':'.join(path))
"#;

#[test]
#[ignore = "needs parted, hfsutils and machfs: run `cargo xtask test`"]
fn machfs_reads_our_bare_volume() {
    let s = Scratch::new("machfs");
    need_machfs(&s);
    let path = s.path("bare.img");
    fill(ImageFile::create(&path, 8 << 20).unwrap(), b"Bare Volume");
    let out = s.python(MACHFS_DUMP, &[path.to_str().unwrap()]);
    // (machfs's reader leaves the volume name at "Untitled", so it is not compared.)
    let mut expect = vec!["DIR Apps".to_string(), "DIR Apps:Deep".into()];
    for smp in samples() {
        let p = hfs_path(&smp)[1..].to_string();
        expect.push(format!(
            "FILE {p} {} {} {} {} {} {} {}",
            String::from_utf8_lossy(&smp.file_type),
            String::from_utf8_lossy(&smp.creator),
            smp.flags,
            smp.data.len(),
            smp.rsrc.len(),
            hex(&smp.data[..smp.data.len().min(32)]),
            hex(&smp.rsrc[..smp.rsrc.len().min(32)]),
        ));
    }
    let mut got: Vec<String> = out.lines().map(|l| l.trim_end().to_string()).collect();
    got.sort();
    expect.sort();
    let expect: Vec<String> = expect
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect();
    assert_eq!(got, expect, "machfs printed:\n{out}");
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Put the sample files on the mounted volume with hcopy (MacBinary for both forks).
fn hcopy_samples_in(s: &Scratch) {
    for smp in samples() {
        let mut dir = String::from(":");
        for f in smp.folder {
            dir.push_str(std::str::from_utf8(f).unwrap());
            let _ = Command::new("hmkdir").arg(&dir).env("HOME", &s.0).output();
            dir.push(':');
        }
        let mb = macbinary::encode(&macbinary::MacFile {
            name: smp.name.to_vec(),
            file_type: smp.file_type,
            creator: smp.creator,
            finder_flags: smp.flags,
            created: T0,
            modified: T0,
            data: smp.data.clone(),
            rsrc: smp.rsrc.clone(),
            ..Default::default()
        });
        std::fs::write(s.path("in.bin"), mb).unwrap();
        s.run("hcopy", &["-m", "in.bin", &dir]);
    }
}

fn assert_samples_readable<D: BlockDevice>(dev: D) {
    let mut v = Volume::open(dev).unwrap();
    for smp in samples() {
        let mut path: Vec<&[u8]> = smp.folder.to_vec();
        path.push(smp.name);
        let e = v.lookup_path(&path).unwrap();
        match e.kind {
            EntryKind::File {
                file_type,
                creator,
                finder_flags,
                ..
            } => {
                assert_eq!((file_type, creator), (smp.file_type, smp.creator));
                // hcopy clears hasBeenInited (0x0100) when it copies a file in.
                assert_eq!(finder_flags & 0xFE00, smp.flags & 0xFE00);
            }
            _ => panic!("not a file"),
        }
        assert_eq!(v.read_fork(&e, Fork::Data).unwrap(), smp.data);
        assert_eq!(v.read_fork(&e, Fork::Resource).unwrap(), smp.rsrc);
    }
    assert_eq!(v.walk().len(), 5);
}

#[test]
#[ignore = "needs parted, hfsutils and machfs: run `cargo xtask test`"]
fn we_read_hformat_volumes() {
    let s = Scratch::new("hformat");
    // 1. A raw volume.
    let raw = s.path("raw.img");
    ImageFile::create(&raw, 12 << 20).unwrap();
    s.run("hformat", &["-l", "Raw Vol", raw.to_str().unwrap()]);
    hcopy_samples_in(&s);
    s.run("humount", &[]);
    let mut dev = ImageFile::open(&raw).unwrap();
    let report = check_volume(&mut dev).unwrap();
    assert!(report.is_clean(), "{:?}", report.problems);
    assert_eq!((report.files, report.folders), (3, 2));
    assert_samples_readable(&mut dev);

    // 2. hformat on a partition of a map written by us.
    let ours = s.path("ours.img");
    let mut img = ImageFile::create(&ours, 16 << 20).unwrap();
    write_map(&mut img, &Layout::single(Some(&[0x4E, 0x75]), "MacOS")).unwrap();
    drop(img);
    s.run(
        "hformat",
        &["-l", "On Our Map", ours.to_str().unwrap(), "1"],
    );
    hcopy_samples_in(&s);
    s.run("humount", &[]);
    let mut dev = ImageFile::open(&ours).unwrap();
    let p = read_map(&mut dev)
        .unwrap()
        .hfs_partitions()
        .next()
        .unwrap()
        .clone();
    let mut r = Region::new(&mut dev, p.start as u64, p.blocks as u64).unwrap();
    assert!(check_volume(&mut r).unwrap().is_clean());
    assert_samples_readable(&mut r);
    assert_eq!(Volume::open(&mut r).unwrap().info().name, b"On Our Map");

    // 3. hformat on a partition of a map written by parted.
    let pm = s.path("parted.img");
    ImageFile::create(&pm, 16 << 20).unwrap();
    s.run(
        "parted",
        &[
            "-s",
            pm.to_str().unwrap(),
            "mklabel",
            "mac",
            "mkpart",
            "Vol",
            "hfs",
            "64s",
            "30000s",
        ],
    );
    s.run("hformat", &["-l", "On Parted", pm.to_str().unwrap(), "1"]);
    hcopy_samples_in(&s);
    s.run("humount", &[]);
    let mut dev = ImageFile::open(&pm).unwrap();
    let map = read_map(&mut dev).unwrap();
    let p = map.hfs_partitions().next().unwrap().clone();
    assert_eq!((p.start, p.blocks), (64, 29_937));
    let mut r = Region::new(&mut dev, p.start as u64, p.blocks as u64).unwrap();
    assert!(check_volume(&mut r).unwrap().is_clean());
    assert_samples_readable(&mut r);
}
