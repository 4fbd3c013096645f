//! `ferrite qemu`: the QEMU q800 command line, what it refuses and running it, run as a user
//! runs it (`CARGO_BIN_EXE_ferrite`).
//!
//! Most tests install a stand-in driver (`--driver FILE`) and, where they make a complete
//! disk, a stand-in Ferrite Setup (`--setup-app FILE`, [`test_app`]; the others pass
//! `--no-setup-app`) so that they run on a fresh clone; the tests that boot the disks in the
//! emulated Mac need the real driver embedded in the binary (`cargo xtask test` builds it
//! first) and are `#[ignore]`d in a plain `cargo test`, as are the oracle tests (parted,
//! hfsutils, macutils, machfs).

use ferrite_formatter::apm::{HfsPartitionSpec, Layout, PartSize, write_map};
use ferrite_formatter::image::ImageFile;
use std::path::Path;
use std::process::{Command, Output};

mod common;
mod support;
use common::*;

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
        &cmd(
            "init {} --size 20M --driver {} --no-setup-app",
            &[disk, &drv],
        ),
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
        &cmd(
            "qemu HD20_512.hda --rom {} --cdrom install.iso --dry-run",
            &[&rom],
        ),
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
        &cmd(
            "qemu HD20_512.hda --rom {} --cdrom install.iso --id 3 --ram 64 --pram HD20_512.pram --dry-run -- -g 1152x870x8",
            &[&rom],
        ),
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
    let out = ok(
        &s,
        &cmd("qemu {} --rom {} --dry-run", &["My Disk,1.hda", &rom]),
    );
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
            &cmd("qemu HD20_512.hda --rom {} --dry-run", &[&other]),
        )
        .stderr,
    )
    .into_owned();
    assert!(e.contains("12345678 is not one ferrite knows"), "{e}");
    let damaged = fake_rom(&s, "damaged.rom", 1 << 20, 0xF1AC_AD13, false);
    let e = String::from_utf8_lossy(
        &ferrite_in(
            &s.0,
            &cmd("qemu HD20_512.hda --rom {} --dry-run", &[&damaged]),
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
    let e = fails(&s, &cmd("qemu HD00_512.hda --rom {} --dry-run", &[&small]));
    assert!(
        e.contains("524288 bytes") && e.contains("1 MiB") && e.contains("F1ACAD13"),
        "{e}"
    );
    let q700 = fake_rom(&s, "q700.rom", 1 << 20, 0x420D_BFF3, true);
    let e = fails(&s, &cmd("qemu HD00_512.hda --rom {} --dry-run", &[&q700]));
    assert!(e.contains("Quadra 700") && e.contains("F1ACAD13"), "{e}");
    let e = fails(
        &s,
        &cmd("qemu HD00_512.hda --rom missing.rom --dry-run", &[]),
    );
    assert!(e.contains("cannot read the ROM file missing.rom"), "{e}");
    bare_volume(&s, "old.dsk");
    let e = fails(&s, &cmd("qemu old.dsk --rom {} --dry-run", &[&rom]));
    assert!(
        e.contains("bare volume") && e.contains("ferrite convert"),
        "{e}"
    );
    let e = fails(
        &s,
        &cmd("qemu HD00_512.hda --rom {} --id 7 --dry-run", &[&rom]),
    );
    assert!(e.contains("0 to 6"), "{e}");
    let e = fails(
        &s,
        &cmd("qemu HD00_512.hda --rom {} --ram 2048 --dry-run", &[&rom]),
    );
    assert!(e.contains("1024"), "{e}");
    std::fs::write(s.path("HD00_512.pram"), [0u8; 100]).unwrap();
    let e = fails(&s, &cmd("qemu HD00_512.hda --rom {} --dry-run", &[&rom]));
    assert!(e.contains("100 bytes") && e.contains("256"), "{e}");
    std::fs::remove_file(s.path("HD00_512.pram")).unwrap();
    // A SCSI ID taken twice: the disk's, or the CD's, by a device in the extra arguments.
    let e = fails(
        &s,
        &cmd(
            "qemu HD00_512.hda --rom {} --dry-run -- -device scsi-hd,scsi-id=0,drive=x",
            &[&rom],
        ),
    );
    assert!(
        e.contains("SCSI ID 0 is in use") && e.contains("the disk"),
        "{e}"
    );
    let e = fails(
        &s,
        &cmd(
            "qemu HD00_512.hda --rom {} --cdrom install.iso --dry-run -- -device scsi-hd,drive=x,scsi-id=3",
            &[&rom],
        ),
    );
    assert!(
        e.contains("SCSI ID 3 is in use") && e.contains("the CD"),
        "{e}"
    );
    ok(
        &s,
        &cmd(
            "qemu HD00_512.hda --rom {} --dry-run -- -device scsi-hd,scsi-id=5,drive=x",
            &[&rom],
        ),
    );
    // A partition map without a driver; another vendor's driver is only noted.
    ok(
        &s,
        &cmd(
            "init nodrv.hda --size 8M --no-setup-app --driver {}",
            &[&s.third_party(7000)],
        ),
    );
    let out = ferrite_in(&s.0, &cmd("qemu nodrv.hda --rom {} --dry-run", &[&rom]));
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
    let e = fails(&s, &cmd("qemu mapped.hda --rom {} --dry-run", &[&rom]));
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
