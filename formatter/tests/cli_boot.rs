//! `ferrite boot`: the disks `ferrite` makes or converts, booted in the emulated Mac, run as a user
//! runs it (`CARGO_BIN_EXE_ferrite`).
//!
//! Most tests install a stand-in driver (`--driver FILE`) and, where they make a complete
//! disk, a stand-in Ferrite Setup (`--setup-app FILE`, [`test_app`]; the others pass
//! `--no-setup-app`) so that they run on a fresh clone; the tests that boot the disks in the
//! emulated Mac need the real driver embedded in the binary (`cargo xtask test` builds it
//! first) and are `#[ignore]`d in a plain `cargo test`, as are the oracle tests (parted,
//! hfsutils, macutils, machfs).

use ferrite_formatter::macbinary;

mod common;
mod support;
use common::*;

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn init_disks_boot_with_their_volumes_mounted() {
    let s = Scratch::new("boot-init");
    let app = s.setup_app();
    real_driver_available(&s);
    ok(
        &s,
        &cmd("init HD00_512.hda --size 32M --setup-app {}", &[&app]),
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
        &cmd(
            "init HD30_512.hda --size 64M --volume System:20M --volume Apps:20M --volume Data --setup-app {}",
            &[&app],
        ),
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
        &cmd(
            "init HD40_512.hda --size 32M --write-cache off --setup-app {}",
            &[&app],
        ),
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
        &cmd(
            "init HD20_512.hda --size 16M --volume Vendor --driver {} --setup-app {}",
            &[&vendor, &app],
        ),
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
    assert!(listing.contains(":64s:159s:96s::Macintosh:;"), "{listing}");
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn boot_fails_clearly_without_a_driver() {
    let s = Scratch::new("boot-nodrv");
    bare_volume(&s, "old.dsk");
    let err = fails(&s, &["boot", "old.dsk"]);
    assert!(err.contains("no driver was loaded"), "{err}");
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
            &cmd(
                "boot HD20_512.hda --cpu {} --rom {} --launch {}",
                &[cpu, rom, "Macintosh HD:Ferrite Setup"],
            ),
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
