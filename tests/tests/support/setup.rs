//! Shared set-up for the scripted tests of Ferrite Setup (`target/m68k/FerriteSetup.bin`) in
//! the emulated Mac: a machine with the SCSI Manager and virtual disks, the application
//! launched with a script, the disk images afterwards, and `ferrite init` on the host for
//! comparison.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::scsi_manager::{self, ScsiManagerConfig};
use ferrite_emu::toolbox::{AlertKind, AppRun, Input, Launch, Seen};
use ferrite_emu::{CpuModel, Machine};
use ferrite_formatter::macbinary;

pub const CPUS: [CpuModel; 2] = [CpuModel::M68000, CpuModel::M68040];
pub const NEEDS: &str = "needs the m68k build: run `cargo xtask test`";
/// Low-memory `Time` ($20C): the Mac's clock in seconds since 1904, which `GetDateTime`
/// returns (the model does not run the clock: a test sets it).
pub const TIME: u32 = 0x20C;
/// The SCSI Bus window's title and list geometry (setup/src/ui/bus_list.rs: the first row's
/// base line is 34, rows are 12 pixels apart, each starting 9 pixels above its base line).
pub const BUS_WINDOW: &str = "SCSI Bus";
pub const FIRST_BASE: i16 = 34;
pub const LINE_HEIGHT: i16 = 12;
/// The 512 × 342 screen of the compact Macs: every window must fit.
pub const SMALL_SCREEN: [i16; 4] = [0, 0, 342, 512];

pub fn m68k_dir() -> PathBuf {
    std::env::var_os("FERRITE_M68K_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/m68k"))
}

pub fn m68k_file(name: &str) -> Vec<u8> {
    let path = m68k_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}; {NEEDS}", path.display()))
}

/// The application's resource fork, from the MacBinary file the build ships.
pub fn setup_fork() -> Vec<u8> {
    macbinary::parse(&m68k_file("FerriteSetup.bin"))
        .expect("FerriteSetup.bin is MacBinary")
        .rsrc
}

/// A Mac with the SCSI Manager (4.3 or the original one) and the clock at `date`.
pub fn machine(cpu: CpuModel, v43: bool, date: u32) -> Machine {
    let mut m = Machine::new(cpu);
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: v43,
            ..Default::default()
        },
    );
    m.write_u32(TIME, date);
    m
}

/// The bus of the launch tests and the screenshots: ID 0, a 40 MB Quantum with a
/// Ferrite-formatted map (the emulator's test-disk layout); ID 3, a blank 1 GB IBM disk. The
/// clock is left at the model's default.
pub fn two_disk_bus(cpu: CpuModel, v43: bool) -> Machine {
    let mut m = Machine::new(cpu);
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: v43,
            ..Default::default()
        },
    );
    let mut disk = ferrite_emu::test_disk::TestDisk::new(m68k_file("ferrite-driver.bin"));
    disk.total_blocks = 81_920;
    let (image, _) = disk.build();
    assert_eq!(image.len(), 81_920 * 512);
    let cfg = DiskConfig {
        vendor: "QUANTUM".into(),
        product: "LPS40S".into(),
        revision: "0230".into(),
        ..DiskConfig::default()
    };
    attach_image(&mut m, 0, &image, cfg);
    attach_blank(&mut m, 3, 2_118_144, ibm());
    m
}

/// A blank IBM disk of `blocks` at `id`.
pub fn attach_blank(m: &mut Machine, id: u8, blocks: u64, cfg: DiskConfig) {
    scsi_manager::bus(m).attach(id, Box::new(DiskTarget::in_memory(blocks, cfg).unwrap()));
}

pub fn ibm() -> DiskConfig {
    DiskConfig {
        vendor: "IBM".into(),
        product: "DORS-31080".into(),
        revision: "WA6A".into(),
        ..DiskConfig::default()
    }
}

/// Every CPU the Setup tests run on, each under SCSI Manager 4.3 (`true`) and the original one.
pub fn both() -> impl Iterator<Item = (CpuModel, bool)> {
    CPUS.into_iter().flat_map(|c| [(c, true), (c, false)])
}

/// A disk holding `image` (its size), answering as `cfg`, at `id`.
pub fn attach_image(m: &mut Machine, id: u8, image: &[u8], cfg: DiskConfig) {
    let mut t = DiskTarget::in_memory((image.len() / 512) as u64, cfg).unwrap();
    t.write_store(0, image).unwrap();
    scsi_manager::bus(m).attach(id, Box::new(t));
}

/// The first stop alert's text ("" when there was none).
pub fn stop_alert_text(seen: &[Seen]) -> String {
    seen.iter()
        .find_map(|s| match s {
            Seen::Alert {
                kind: AlertKind::Stop,
                texts,
                ..
            } => Some(texts[0].clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// Bytes of its stack the application must leave unused at its deepest: room for the ROM's
/// own frames below the deepest trap call and for interrupts (docs/emulated-mac.md, "The
/// application's partition and stack").
pub const STACK_SPARE: u32 = 1024;

/// Launch Ferrite Setup with `script` in its `SIZE` minimum partition, with the stack the
/// app sets up for itself; prints the stack's high-water mark and asserts that at least
/// [`STACK_SPARE`] bytes of it stayed unused.
pub fn launch(m: &mut Machine, script: Vec<Input>) -> AppRun {
    let run = launch_unchecked(m, script);
    eprintln!("Ferrite Setup on the {:?}: {}", m.model(), run.stack);
    assert!(
        run.stack.unused() >= STACK_SPARE,
        "Ferrite Setup left only {} bytes of its stack unused ({}); at least {STACK_SPARE} must stay free",
        run.stack.unused(),
        run.stack
    );
    run
}

/// The stack Ferrite Setup gives itself (`setup/src/application.rs` `STACK_BYTES`).
pub const APP_STACK: u32 = 16 << 10;

/// Issue 32: on the 68000 (the Plus, whose default stack is 8 KB) the run had the `SIZE`
/// minimum partition of 512 KB and the stack the app set up for itself, and left at least
/// [`STACK_SPARE`] of it unused ([`launch`] checked that); prints what `what` used.
pub fn assert_plus_stack(m: &Machine, run: &AppRun, what: &str) {
    if m.model() != CpuModel::M68000 {
        return;
    }
    println!("{what} on the emulated Plus: {}", run.stack);
    assert_eq!(run.stack.partition, 512 << 10, "{what}: {}", run.stack);
    assert_eq!(
        run.stack.size, APP_STACK,
        "{what}: the app's SetApplLimit did not give it its own stack: {}",
        run.stack
    );
    assert!(run.stack.unused() >= STACK_SPARE, "{what}: {}", run.stack);
}

/// [`launch`] without the stack assertion.
pub fn launch_unchecked(m: &mut Machine, script: Vec<Input>) -> AppRun {
    m.launch_application(&Launch {
        name: b"Ferrite Setup".to_vec(),
        fork: setup_fork(),
        script,
    })
    .unwrap_or_else(|e| {
        let p = m.toolbox().dm.params.clone();
        let t = m.toolbox().screen.transcript();
        panic!(
            "{e}\n^0 = {:?}\n^1 = {:?}\n{t}",
            String::from_utf8_lossy(&p[0]),
            String::from_utf8_lossy(&p[1]),
        )
    })
}

/// A click on line `line` (0 = the first row, ID 0) of the SCSI Bus window.
pub fn click_line(line: i16) -> Input {
    Input::Click {
        window: BUS_WINDOW.into(),
        h: 60,
        v: FIRST_BASE + LINE_HEIGHT * line - 3,
    }
}

pub fn menu(menu: &str, item: &str) -> Input {
    Input::Menu {
        menu: menu.into(),
        item: item.into(),
    }
}

pub fn typing(item: i16, text: &str) -> Input {
    Input::Type {
        item,
        text: text.into(),
    }
}

/// The whole store of the disk at `id`.
pub fn image(m: &mut Machine, id: u8) -> Vec<u8> {
    let t = scsi_manager::bus(m)
        .target_as_mut::<DiskTarget>(id)
        .expect("a DiskTarget");
    let blocks = t.blocks();
    t.read_store(0, blocks).unwrap()
}

/// Every window and dialog the application opened lies on a 512 × 342 screen.
pub fn assert_fits_small_screen(seen: &[Seen]) {
    for s in seen {
        if let Seen::WindowOpened { title, bounds, .. } = s {
            assert!(
                bounds[0] >= 20
                    && bounds[1] >= 0
                    && bounds[2] <= SMALL_SCREEN[2]
                    && bounds[3] <= SMALL_SCREEN[3],
                "{title:?} at {bounds:?} does not fit a 512 × 342 screen below the menu bar"
            );
        }
    }
}

/// Mac seconds (since 1904-01-01 UTC) of a UTC date and time.
pub fn mac_seconds(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> u32 {
    // Days from the civil date (proleptic Gregorian), relative to 1904-01-01.
    let days = |y: i64, m: i64, d: i64| {
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe
    };
    let n = days(y, mo, d) - days(1904, 1, 1);
    (n * 86_400 + h * 3600 + mi * 60 + s) as u32
}

/// The host `ferrite` command (built next to the test binaries by `cargo test --workspace`;
/// built here when missing).
pub fn ferrite_command() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let bin = dir.join("ferrite");
    if !bin.exists() {
        // The profile of this test binary (`target/release` or `target/debug`), so the command
        // is built where it is looked for.
        let release = dir.file_name().is_some_and(|n| n == "release");
        let st = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args([
                "build",
                "--quiet",
                "-p",
                "ferrite-formatter",
                "--bin",
                "ferrite",
            ])
            .args(release.then_some("--release"))
            .status()
            .expect("cargo build of the ferrite command");
        assert!(st.success());
    }
    bin
}

/// `ferrite init` of a `blocks`-block image at `path` with these extra arguments, the
/// m68k build's driver and no Ferrite Setup on the volumes.
pub fn ferrite_init(path: &Path, blocks: u64, args: &[&str]) -> Vec<u8> {
    let _ = std::fs::remove_file(path);
    let out = Command::new(ferrite_command())
        .arg("init")
        .arg(path)
        .arg("--size")
        .arg(format!("{}", blocks * 512))
        .arg("--no-setup-app")
        .arg("--driver")
        .arg(m68k_dir().join("ferrite-driver.bin"))
        .args(args)
        .output()
        .expect("runs ferrite");
    assert!(
        out.status.success(),
        "ferrite init: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let img = std::fs::read(path).unwrap();
    let _ = std::fs::remove_file(path);
    img
}

/// The alerts' first texts, in order.
pub fn alert_texts(seen: &[Seen]) -> Vec<String> {
    seen.iter()
        .filter_map(|s| match s {
            Seen::Alert { texts, .. } => texts.first().cloned(),
            _ => None,
        })
        .collect()
}

/// `VCBQHdr` ($356): the VCB queue header; a VCB's `vcbVN` is at 44, `vcbDrvNum` 72,
/// `vcbDRefNum` 74 (IM Files, "Volume Control Blocks").
pub const VCB_Q_HDR: u32 = 0x356;

/// The volumes in the guest's VCB queue: (name, drive, driver refNum).
pub fn vcb_queue(m: &Machine) -> Vec<(String, i16, i16)> {
    let mut v = Vec::new();
    let mut el = m.read_u32(VCB_Q_HDR + 2);
    while el != 0 {
        let len = m.read_bytes(el + 44, 1)[0] as u32;
        let name = String::from_utf8_lossy(&m.read_bytes(el + 45, len)).into_owned();
        v.push((name, m.read_u16(el + 72) as i16, m.read_u16(el + 74) as i16));
        el = m.read_u32(el);
        assert!(v.len() < 64, "the VCB queue has a cycle");
    }
    v
}
