//! `ferrite qemu` with the real QEMU (`qemu-system-m68k`, Debian package `qemu-system-misc`,
//! which `cargo xtask` installs): ferrite starts QEMU's Quadra 800 with the arguments it
//! prints, a stand-in ROM (1 MiB made here, not an Apple ROM), paused (`-S`) and with a
//! monitor on a UNIX socket; the monitor's `info block` and `info qtree` show the disk, the
//! PRAM file and the CD attached where ferrite put them. No Mac code runs.
#![cfg(unix)]

use ferrite_harness::qemu_monitor::{Monitor, QemuProcess, parse_info_block, parse_qtree_scsi};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("ferrite-qemu-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn ferrite(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferrite"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ferrite")
}

/// A stand-in Ferrite driver (the blob header and settings block, filler code).
fn stand_in_driver(dir: &Path) -> String {
    let mut b: Vec<u8> = (0..9000u32).map(|i| (i * 13 + 5) as u8).collect();
    b[4..8].copy_from_slice(b"FRRT");
    b[16..48].fill(0);
    b[16..20].copy_from_slice(b"FSET");
    b[20..22].copy_from_slice(&1u16.to_be_bytes());
    std::fs::write(dir.join("ferrite.drvr"), b).unwrap();
    dir.join("ferrite.drvr").to_str().unwrap().into()
}

/// Start `ferrite qemu ARGS -- -S -display none -serial none -monitor unix:… -pidfile …`
/// and connect to the monitor.
fn start(s: &Scratch, args: &[&str]) -> (QemuProcess, Monitor) {
    let sock = s.0.join("monitor.sock");
    let pidfile = s.0.join("qemu.pid");
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.extend(
        [
            "--",
            "-S",
            "-display",
            "none",
            "-serial",
            "none",
            "-monitor",
            &format!("unix:{},server=on,wait=off", sock.display()),
            "-pidfile",
            pidfile.to_str().unwrap(),
        ]
        .map(String::from),
    );
    let child = Command::new(env!("CARGO_BIN_EXE_ferrite"))
        .args(&all)
        .current_dir(&s.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ferrite qemu");
    let mut q = QemuProcess { child, pidfile };
    match Monitor::connect(&sock, Duration::from_secs(15)) {
        Ok(m) => (q, m),
        Err(e) => {
            let _ = q.child.kill();
            let out = q.child.wait_with_output_ref();
            panic!("{e}\n{out}")
        }
    }
}

trait OutputOf {
    fn wait_with_output_ref(&mut self) -> String;
}

impl OutputOf for std::process::Child {
    fn wait_with_output_ref(&mut self) -> String {
        use std::io::Read;
        let mut o = String::new();
        if let Some(mut e) = self.stderr.take() {
            let _ = e.read_to_string(&mut o);
        }
        o
    }
}

#[test]
#[ignore = "needs qemu-system-m68k (Debian qemu-system-misc): run `cargo xtask test`"]
fn qemu_attaches_the_disk_where_ferrite_says() {
    let s = Scratch::new("attach");
    let drv = stand_in_driver(&s.0);
    let out = ferrite(
        &s.0,
        &[
            "init",
            "HD20_512.hda",
            "--size",
            "20M",
            "--driver",
            &drv,
            "--no-setup-app",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rom: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 + 1) as u8).collect();
    std::fs::write(s.0.join("stand-in.rom"), rom).unwrap();
    std::fs::write(s.0.join("install.iso"), vec![0u8; 1 << 20]).unwrap();

    let (mut q, mut m) = start(
        &s,
        &[
            "qemu",
            "HD20_512.hda",
            "--rom",
            "stand-in.rom",
            "--cdrom",
            "install.iso",
        ],
    );
    let block = m.command("info block").unwrap();
    let qtree = m.command("info qtree").unwrap();
    let status = m.command("info status").unwrap();
    m.quit();
    let st = q
        .wait_timeout(Duration::from_secs(15))
        .expect("ferrite and QEMU end after quit");
    let mut stdout = String::new();
    std::io::Read::read_to_string(q.child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    assert!(st.success(), "ferrite qemu: {st}");
    assert!(status.contains("paused"), "{status}");

    let blocks = parse_info_block(&block);
    let find = |id: &str| {
        blocks
            .iter()
            .find(|b| b.id == id)
            .unwrap_or_else(|| panic!("no {id} in info block:\n{block}"))
    };
    let hd = find("hd2");
    assert_eq!(
        (hd.file.as_str(), hd.format.as_str()),
        ("HD20_512.hda", "raw")
    );
    assert!(hd.attached_to.is_some(), "{block}");
    let cd = find("cd3");
    // The disk is writable; QEMU opens a CD read-only.
    assert_eq!(
        (cd.file.as_str(), cd.format.as_str()),
        ("install.iso", "raw, read-only")
    );
    let pram = blocks
        .iter()
        .find(|b| b.file == "HD20_512.pram")
        .expect("PRAM drive");
    assert_eq!(pram.format, "raw");
    assert!(
        pram.attached_to.is_some(),
        "the VIA took the PRAM file:\n{block}"
    );
    assert_eq!(
        std::fs::read(s.0.join("HD20_512.pram")).unwrap(),
        vec![0u8; 256]
    );

    let scsi = parse_qtree_scsi(&qtree);
    let ids: Vec<(&str, &str, u32)> = scsi
        .iter()
        .map(|d| (d.kind.as_str(), d.drive.as_str(), d.scsi_id))
        .collect();
    assert!(ids.contains(&("scsi-hd", "hd2", 2)), "{ids:?}\n{qtree}");
    assert!(ids.contains(&("scsi-cd", "cd3", 3)), "{ids:?}");
    assert_eq!(ids.len(), 2, "{ids:?}");
    // The command ferrite printed is the one QEMU ran.
    assert!(
        stdout.starts_with("qemu-system-m68k -M q800 -m 128 -bios stand-in.rom ")
            && stdout.contains(" -S -display none "),
        "{stdout}"
    );

    // --id 5: the disk moves, the CD stays on 3.
    let (q, mut m) = start(
        &s,
        &["qemu", "HD20_512.hda", "--rom", "stand-in.rom", "--id", "5"],
    );
    let scsi = parse_qtree_scsi(&m.command("info qtree").unwrap());
    let block = parse_info_block(&m.command("info block").unwrap());
    m.quit();
    drop(q);
    assert_eq!(scsi.len(), 1);
    assert_eq!((scsi[0].drive.as_str(), scsi[0].scsi_id), ("hd5", 5));
    assert!(
        block
            .iter()
            .any(|b| b.id == "hd5" && b.file == "HD20_512.hda")
    );
}

/// Bad input is refused by ferrite before QEMU starts: nothing is printed or run.
#[test]
#[ignore = "needs qemu-system-m68k (Debian qemu-system-misc): run `cargo xtask test`"]
fn bad_input_stops_before_qemu_starts() {
    let s = Scratch::new("bad");
    let drv = stand_in_driver(&s.0);
    ferrite(
        &s.0,
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
    std::fs::write(s.0.join("big.rom"), vec![1u8; 2 << 20]).unwrap();
    for (args, says) in [
        (vec!["qemu", "d.hda", "--rom", "big.rom"], "2097152 bytes"),
        (
            vec!["qemu", "d.hda", "--rom", "none.rom"],
            "cannot read the ROM file none.rom",
        ),
    ] {
        let out = ferrite(&s.0, &args);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains(says), "{e}");
        assert!(out.stdout.is_empty(), "no command printed, nothing started");
    }
}
