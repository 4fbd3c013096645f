//! What other tools (parted, hfsutils, macutils, machfs) read of the disks `ferrite` makes, run as a user
//! runs it (`CARGO_BIN_EXE_ferrite`).
//!
//! Most tests install a stand-in driver (`--driver FILE`) and, where they make a complete
//! disk, a stand-in Ferrite Setup (`--setup-app FILE`, [`test_app`]; the others pass
//! `--no-setup-app`) so that they run on a fresh clone; the tests that boot the disks in the
//! emulated Mac need the real driver embedded in the binary (`cargo xtask test` builds it
//! first) and are `#[ignore]`d in a plain `cargo test`, as are the oracle tests (parted,
//! hfsutils, macutils, machfs).

use ferrite_formatter::apm::read_map;
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, macbinary};

mod common;
mod support;
use common::*;

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

// ---- oracles ----

/// `hls -l` in the mounted volume lists Ferrite Setup as an application with `want`'s fork
/// sizes; returns the listing.
fn hls_lists_the_app(s: &Scratch, want: &macbinary::MacFile) -> String {
    let ls = s.tool("hls", &["-l"]);
    let line = ls
        .lines()
        .find(|l| l.ends_with(" Ferrite Setup"))
        .unwrap_or_else(|| panic!("hls -l does not list Ferrite Setup:\n{ls}"));
    let cols: Vec<&str> = line.split_whitespace().collect();
    let (rsrc, data) = (want.rsrc.len().to_string(), want.data.len().to_string());
    assert_eq!(cols[..4], ["f", "APPL/FRRT", &rsrc, &data], "{line}");
    ls
}

#[test]
#[ignore = "needs parted, hfsutils and machfs: run `cargo xtask test`"]
fn parted_and_hfsutils_read_what_ferrite_makes() {
    let s = Scratch::new("oracle");
    s.init_with_setup("d.hda --size 40M --volume First:16M --volume Second");
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
            "2:64s:159s:96s::Macintosh:;",
            "3:160s:32927s:32768s:hfs:First:;",
            "4:32928s:81919s:48992s:hfs:Second:;"
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
        &cmd(
            "init f.hda --size 2G --driver {} --setup-app {}",
            &[&drv, &app],
        ),
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

#[test]
#[ignore = "needs hfsutils, macutils and machfs: run `cargo xtask test`"]
fn hfsutils_macutils_and_machfs_read_ferrite_setup() {
    let s = Scratch::new("oracle-setup");
    s.init_with_setup("d.hda --size 24M --volume First:8M --volume Second");
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
        hls_lists_the_app(&s, &want);
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
        &cmd(
            "convert old.dsk d.hda --driver {} --setup-app {}",
            &[&drv, &app],
        ),
    );
    let want = test_app();
    let mounted = s.tool("hmount", &[&s.p("d.hda"), "1"]);
    assert!(mounted.contains("Volume name is \"Old Disk\""), "{mounted}");
    let ls = hls_lists_the_app(&s, &want);
    assert!(ls.lines().any(|l| l.ends_with(" ReadMe")), "{ls}");
    s.tool("hcopy", &["-m", ":Ferrite Setup", "out.bin"]);
    s.tool("humount", &[]);
    let mb = macbinary::parse(&std::fs::read(s.path("out.bin")).unwrap()).unwrap();
    assert_eq!(mb.name, b"Ferrite Setup");
    assert!(mb.data == want.data && mb.rsrc == want.rsrc);
}
