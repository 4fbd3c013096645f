//! `ferrite add` and `ferrite ls`: files, folders and a System folder put on a volume, run as a user
//! runs it (`CARGO_BIN_EXE_ferrite`).
//!
//! Most tests install a stand-in driver (`--driver FILE`) and, where they make a complete
//! disk, a stand-in Ferrite Setup (`--setup-app FILE`, [`test_app`]; the others pass
//! `--no-setup-app`) so that they run on a fresh clone; the tests that boot the disks in the
//! emulated Mac need the real driver embedded in the binary (`cargo xtask test` builds it
//! first) and are `#[ignore]`d in a plain `cargo test`, as are the oracle tests (parted,
//! hfsutils, macutils, machfs).

use ferrite_formatter::apm::read_map;
use ferrite_formatter::hfs::{EntryKind, Fork, Volume};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region, macbinary};
use std::path::{Path, PathBuf};

mod common;
mod support;
use common::*;
use support::resource_fork;

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
        &cmd(
            "init {} --size {} --driver {} --no-setup-app",
            &[name, size, &drv],
        ),
    );
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
        &cmd(
            "init src.hda --size 24M --volume {} --volume Other --driver {} --no-setup-app",
            &["Old HD:12M", &drv],
        ),
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

#[test]
fn add_plain_files_get_type_and_creator_from_the_extension() {
    let s = Scratch::new("add-plain");
    s.init_stand_in("d.hda --size 16M");
    std::fs::write(s.path("notes.txt"), b"line 1\nline 2\n").unwrap();
    std::fs::write(s.path("photo.JPG"), vec![0xFF; 70_000]).unwrap();
    std::fs::write(s.path("blob"), vec![7; 3]).unwrap();
    let out = ok(&s, &cmd("add d.hda notes.txt photo.JPG blob", &[]));
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
        &cmd("add --text {} dos.txt blob", &["d.hda:Macintosh HD/T"]),
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
    s.init_stand_in("d.hda --size 16M --volume One:6M --volume Two");
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
        &cmd("add d.hda:Two/Stuff/Inner SimpleText.bin Doc ._Doc", &[]),
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
    s.init_stand_in("d.hda --size 16M");
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
    s.init_stand_in("d.hda --size 8M");
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
