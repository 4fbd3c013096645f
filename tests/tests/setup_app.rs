//! Ferrite Setup (`target/m68k/FerriteSetup.bin`, built by `cargo xtask build`) launched in
//! the emulated Mac the way the Finder would, on the 68000 and the 68040, with two disks of
//! different vendors and sizes on SCSI IDs 0 and 3, under SCSI Manager 4.3 and under the
//! original SCSI Manager: the window lists exactly those two, About and Quit work, and the
//! application leaves with intact heaps.

#[path = "support/setup.rs"]
mod support;

use ferrite_emu::scsi_manager::{self, ScsiCall};
use ferrite_emu::toolbox::{AlertKind, Input, Launch, Seen};
use ferrite_formatter::macbinary;
use support::{CPUS, m68k_file, two_disk_bus};

/// The application's resource fork, from the MacBinary file the build ships.
fn checked_setup_fork() -> Vec<u8> {
    let mb =
        macbinary::parse(&m68k_file("FerriteSetup.bin")).expect("FerriteSetup.bin is MacBinary");
    assert_eq!(mb.file_type, *b"APPL");
    assert_eq!(mb.creator, *b"FRRT");
    assert_eq!(mb.name, b"Ferrite Setup");
    mb.rsrc
}

fn driver_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

fn expected_rows(via: &str) -> Vec<String> {
    vec![
        format!("SCSI bus, through the {via}"),
        "ID 0  disk  QUANTUM LPS40S 0230".into(),
        "      40.0 MB, 81920 blocks of 512".into(),
        format!(
            "      Apple partition map, 4 entries (1 HFS); Ferrite {} driver",
            driver_version()
        ),
        "ID 1  no device".into(),
        "ID 2  no device".into(),
        "ID 3  disk  IBM DORS-31080 WA6A".into(),
        "      1.0 GB, 2118144 blocks of 512".into(),
        "      no partition map".into(),
        "ID 4  no device".into(),
        "ID 5  no device".into(),
        "ID 6  no device".into(),
    ]
}

#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn lists_the_bus_under_both_scsi_managers_then_about_and_quit() {
    let fork = checked_setup_fork();
    for cpu in CPUS {
        for v43 in [true, false] {
            let via = if v43 {
                "SCSI Manager 4.3"
            } else {
                "original SCSI Manager"
            };
            let mut m = two_disk_bus(cpu, v43);
            let script = vec![
                Input::Menu {
                    menu: "Apple".into(),
                    item: "About Ferrite Setup…".into(),
                },
                Input::DialogItem(1),
                Input::CommandKey('q'),
            ];
            let run = m
                .launch_application(&Launch {
                    name: b"Ferrite Setup".to_vec(),
                    fork: fork.clone(),
                    script,
                })
                .unwrap_or_else(|e| panic!("{cpu} {via}: {e}"));
            let s = &run.screen;
            let ctx = format!("{cpu} {via}:\n{}", s.transcript());
            assert_eq!(
                s.seen.first(),
                Some(&Seen::MenuBar(vec![
                    "Apple".into(),
                    "File".into(),
                    "Edit".into(),
                    "Drive".into()
                ])),
                "{ctx}"
            );
            assert_eq!(s.window_titles(), ["SCSI Bus"], "{ctx}");
            assert_eq!(s.strings_drawn(), expected_rows(via), "{ctx}");
            assert_eq!(
                s.alerts(),
                [&Seen::Alert {
                    kind: AlertKind::Note,
                    id: 128,
                    texts: vec![format!(
                        "Ferrite Setup {}, a free SCSI disk formatter and driver for 68k Macs. Scanning through the {via}.",
                        env!("CARGO_PKG_VERSION")
                    )],
                    buttons: vec!["OK".into()],
                    hit: 1
                }],
                "{ctx}"
            );
            assert_eq!(
                s.seen[s.seen.len() - 2],
                Seen::WindowClosed {
                    title: "SCSI Bus".into()
                },
                "{ctx}"
            );
            assert_eq!(s.seen.last(), Some(&Seen::Exit), "{ctx}");
            assert!(run.unused_input.is_empty(), "{ctx}");
            m.check_heaps().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
            // The scan went through the manager it found, and never touched ID 7.
            let calls = scsi_manager::calls(&mut m);
            if v43 {
                assert!(
                    calls
                        .iter()
                        .any(|c| matches!(c, ScsiCall::Action { function: 1, .. })),
                    "{cpu}: no SCSIExecIO"
                );
                assert!(
                    !calls.iter().any(|c| matches!(c, ScsiCall::Old { .. })),
                    "{cpu}: old calls with 4.3 present"
                );
                assert!(!calls.iter().any(
                    |c| matches!(c, ScsiCall::Action { device, .. } if (device >> 8) & 0xFF == 7)
                ));
            } else {
                assert!(
                    calls.iter().any(|c| matches!(
                        c,
                        ScsiCall::Old {
                            name: "SCSISelect",
                            ..
                        }
                    )),
                    "{cpu}: no SCSISelect"
                );
            }
            println!(
                "{cpu} {via}: {} instructions; traps: {:?}",
                run.instructions,
                m.stats().trap_counts
            );
        }
    }
}

/// On a 512 × 342 screen (Plus, SE, Classic) every line of the SCSI Bus window fits in the
/// window: measured with the emulated Mac's font metrics (the face QuickDraw drew each string
/// with), on the 68000 and the 68040. The bus holds the longest kinds of line: a Ferrite disk,
/// another formatter's driver with a 31-character partition name, a removable drive and a
/// 1 GB blank disk; a line too long wraps onto one more line of the same device.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn every_bus_line_fits_the_window_on_a_512_by_342_screen() {
    use ferrite_emu::CpuModel;
    use ferrite_emu::scsi::{DiskConfig, DiskTarget};
    use ferrite_emu::test_disk::TestDisk;
    use ferrite_emu::toolbox::render_font;
    for cpu in CPUS {
        let mut m = two_disk_bus(cpu, cpu == CpuModel::M68040);
        m.set_screen_size(512, 342);
        let mut other = TestDisk::new((0..6000u32).map(|i| (i * 7 + 3) as u8).collect());
        other.driver_name = "SilverLining Pro 6.2.1 (custom)".into();
        assert_eq!(other.driver_name.len(), 31);
        other.total_blocks = 20_480;
        let cfg = DiskConfig {
            vendor: "SEAGATE".into(),
            product: "ST31200N".into(),
            revision: "8648".into(),
            ..DiskConfig::default()
        };
        let mut t = DiskTarget::in_memory(20_480, cfg).unwrap();
        t.write_store(0, &other.build().0).unwrap();
        scsi_manager::bus(&mut m).attach(1, Box::new(t));
        let cfg = DiskConfig {
            vendor: "SyQuest".into(),
            product: "SQ5110C".into(),
            revision: "4A".into(),
            removable: true,
            ..DiskConfig::default()
        };
        scsi_manager::bus(&mut m).attach(2, Box::new(DiskTarget::in_memory(86_016, cfg).unwrap()));
        let run = m
            .launch_application(&Launch {
                name: b"Ferrite Setup".to_vec(),
                fork: checked_setup_fork(),
                script: vec![Input::CommandKey('q')],
            })
            .unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let s = &run.screen;
        let ctx = format!("{cpu}:\n{}", s.transcript());
        let width = s
            .seen
            .iter()
            .find_map(|x| match x {
                Seen::WindowOpened { title, bounds, .. } if title == "SCSI Bus" => {
                    assert!(bounds[3] <= 512 && bounds[2] <= 342, "{ctx}");
                    Some(bounds[3] - bounds[1])
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no SCSI Bus window\n{ctx}"));
        let mut lines = 0;
        for x in &s.seen {
            if let Seen::Text {
                window,
                h,
                font,
                size,
                text,
                ..
            } = x
                && window == "SCSI Bus"
            {
                let w = render_font::for_port(*font, *size).width(text.as_bytes());
                assert!(
                    h + w <= width,
                    "{cpu}: {text:?} is {w} pixels wide from {h}: past the window's {width}\n{ctx}"
                );
                lines += 1;
            }
        }
        let drawn = s.strings_drawn();
        // The other driver's line wrapped at a space onto an indented line; nothing lost.
        let joined = drawn
            .iter()
            .map(|l| l.trim_start())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            joined.contains(
                "Apple partition map, 4 entries (1 HFS); other driver (Apple_Driver43 \"SilverLining Pro 6.2.1 (custom)\")"
            ),
            "{ctx}"
        );
        assert!(
            !drawn
                .iter()
                .any(|l| l.contains("other driver (Apple_Driver43 \"SilverLining")),
            "{ctx}: the line did not wrap"
        );
        assert!(drawn.iter().any(|l| l.ends_with("(removable)")), "{ctx}");
        assert_eq!(lines, drawn.len(), "{ctx}");
        assert!(lines >= 14, "{ctx}");
    }
}

/// System 6 without MultiFinder has no `WaitNextEvent`: the application polls with
/// `SystemTask` + `GetNextEvent` (the model fails a call to an unimplemented trap). Rescan
/// Bus scans again and redraws.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn without_wait_next_event_and_rescan() {
    let fork = checked_setup_fork();
    for cpu in CPUS {
        let mut m = two_disk_bus(cpu, false);
        m.install_toolbox();
        m.traps_mut().unregister(0xA860);
        let script = vec![
            Input::CommandKey('r'),
            Input::Menu {
                menu: "File".into(),
                item: "Quit".into(),
            },
        ];
        let run = m
            .launch_application(&Launch {
                name: b"Ferrite Setup".to_vec(),
                fork: fork.clone(),
                script,
            })
            .unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let s = &run.screen;
        let ctx = format!("{cpu}:\n{}", s.transcript());
        let rows = expected_rows("original SCSI Manager");
        let mut twice = rows.clone();
        twice.extend(rows);
        assert_eq!(s.strings_drawn(), twice, "{ctx}");
        assert!(
            s.seen.contains(&Seen::MenuChosen {
                menu: "File".into(),
                item: "Rescan Bus".into()
            }),
            "{ctx}"
        );
        assert_eq!(s.seen.last(), Some(&Seen::Exit), "{ctx}");
        let counts = &m.stats().trap_counts;
        assert!(
            counts.get("GetNextEvent") > Some(&0) && counts.get("SystemTask") > Some(&0),
            "{cpu}: {counts:?}"
        );
        assert_eq!(counts.get("WaitNextEvent"), None);
        m.check_heaps().unwrap();
    }
}

/// A Rust panic in the application (here: its window template is missing) shows the
/// runtime's stop alert with the message, then returns to the Finder.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn a_panic_shows_an_alert_and_returns_to_the_finder() {
    use retro68_build::rsrc::ResourceFork;
    let mut fork = ResourceFork::parse(&checked_setup_fork()).unwrap();
    fork.resources
        .retain(|r| !(&r.rtype == b"WIND" && r.id == 128));
    let fork = fork.to_bytes().unwrap();
    for cpu in CPUS {
        let mut m = two_disk_bus(cpu, true);
        let run = m
            .launch_application(&Launch {
                name: b"Ferrite Setup".to_vec(),
                fork: fork.clone(),
                script: vec![Input::DialogItem(1)],
            })
            .unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let s = &run.screen;
        let alerts = s.alerts();
        let [
            Seen::Alert {
                kind: AlertKind::Stop,
                id: 200,
                texts,
                buttons,
                hit: 1,
            },
        ] = alerts.as_slice()
        else {
            panic!("{cpu}: {}", s.transcript())
        };
        assert_eq!(buttons, &["Quit"]);
        assert!(texts[0].starts_with("Ferrite Setup has to quit: no WIND 128 resource (or no memory) (macrt/src/toolbox.rs:"), "{}", texts[0]);
        assert_eq!(s.seen.last(), Some(&Seen::Exit));
        assert!(s.window_titles().is_empty());
    }
}

/// The shipped file as independent tools read it: `macunpack` (macutils) unpacks the
/// MacBinary into the same resource fork, Python `rsrcfork` lists the same resources, and the
/// verifier accepts the code.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn shipped_file_passes_macunpack_rsrcfork_and_the_verifier() {
    use std::process::Command;
    let bin = m68k_file("FerriteSetup.bin");
    let fork = checked_setup_fork();
    let dir = std::env::temp_dir().join(format!("ferrite-setup-oracles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("FerriteSetup.bin"), &bin).unwrap();
    let out = Command::new("macunpack")
        .arg("-3")
        .arg("FerriteSetup.bin")
        .current_dir(&dir)
        .output()
        .expect("macunpack: run `cargo xtask test`");
    assert!(
        out.status.success(),
        "macunpack: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let rsrc = names
        .iter()
        .find(|n| n.ends_with(".rsrc"))
        .unwrap_or_else(|| panic!("no .rsrc among {names:?}"));
    assert_eq!(
        std::fs::read(dir.join(rsrc)).unwrap(),
        fork,
        "macunpack's resource fork"
    );

    let list = r#"
import sys, rsrcfork
with rsrcfork.open(sys.argv[1], fork="data") as rf:
    for t, reses in rf.items():
        for rid in reses:
            print(t.decode("mac_roman"), rid)
"#;
    let path = dir.join(rsrc);
    let out = Command::new("python3")
        .arg("-c")
        .arg(list)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    got.sort();
    for want in [
        "CODE 0", "CODE 1", "MENU 128", "MENU 129", "MENU 130", "MENU 131", "MBAR 128", "WIND 128",
        "WIND 129", "DLOG 129", "DLOG 130", "ALRT 128", "ALRT 130", "ALRT 131", "ALRT 132",
        "ALRT 200", "SIZE -1", "BNDL 128", "FREF 128", "FRRT 0", "ICN# 128", "vers 1",
    ] {
        assert!(
            got.iter().any(|g| g == want),
            "rsrcfork does not list {want}: {got:?}"
        );
    }

    let img = ferrite_shared::flat::FlatImage::parse(&m68k_file("ferrite-setup.flat")).unwrap();
    let report = retro68_build::m68k::verify(
        &img.image[..img.code_len as usize],
        0,
        retro68_build::m68k::Cpu::M68000,
        &[],
    );
    assert!(report.is_clean(), "{report}");
    assert!(report.instructions > 5000, "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 32 point 7: a transfer shorter than asked for, with GOOD status, is an error for a
/// block read or READ CAPACITY (the buffer's stale contents must not be taken for data).
/// ID 3 answers READ CAPACITY with 4 of its 8 bytes; ID 5 (a Ferrite disk) answers the read
/// of block 0 with nothing; both with GOOD status, under both SCSI Managers. The bus list
/// must say the capacity is unknown and blocks 0–1 unreadable, not show a size or a label
/// made from a zeroed buffer.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn short_reads_with_good_status_are_errors() {
    use ferrite_emu::scsi::{DiskConfig, DiskTarget};
    let mut disk = ferrite_emu::test_disk::TestDisk::new(m68k_file("ferrite-driver.bin"));
    disk.total_blocks = 40_960;
    let ferrite = disk.build().0;
    for (cpu, v43) in support::both() {
        let bus = |faults: Option<(u32, u32)>| {
            let mut m = support::machine(cpu, v43, 0);
            support::attach_blank(&mut m, 3, 40_960, support::ibm());
            support::attach_image(&mut m, 5, &ferrite, DiskConfig::default());
            if let Some((cap, block0)) = faults {
                let bus = scsi_manager::bus(&mut m);
                let t = bus.target_as_mut::<DiskTarget>(3).unwrap();
                t.delay_faults(cap); // clean up to READ CAPACITY, which is short
                t.inject_short_data(1, 4);
                let t = bus.target_as_mut::<DiskTarget>(5).unwrap();
                t.delay_faults(block0); // clean up to the read of block 0, which is empty
                t.inject_short_data(1, 512);
            }
            m
        };
        // Where the READ CAPACITY that answers (the first one meets the power-on unit
        // attention) and READ(10) of block 0 fall among each disk's commands.
        let mut m = bus(None);
        support::launch(&mut m, vec![Input::CommandKey('q')]);
        let nth = |m: &mut ferrite_emu::Machine, id: u8, op: u8| {
            scsi_manager::bus(m)
                .log()
                .iter()
                .filter(|e| e.id == id)
                .enumerate()
                .filter(|(_, e)| e.cdb[0] == op && e.status == Some(0))
                .map(|(i, _)| i as u32)
                .next()
                .unwrap()
        };
        let (cap, block0) = (nth(&mut m, 3, 0x25), nth(&mut m, 5, 0x28));
        let mut m = bus(Some((cap, block0)));
        let run = support::launch(&mut m, vec![Input::CommandKey('q')]);
        let texts: Vec<String> = run
            .screen
            .seen
            .iter()
            .filter_map(|s| match s {
                Seen::Text { window, text, .. } if window == support::BUS_WINDOW => {
                    Some(text.clone())
                }
                _ => None,
            })
            .collect();
        let log: Vec<String> = scsi_manager::bus(&mut m)
            .log()
            .iter()
            .filter(|e| e.id == 3 || e.id == 5)
            .map(|e| {
                format!(
                    "ID {} {:02X} offered {} moved {} status {:?}",
                    e.id, e.cdb[0], e.data_in_offered, e.data_in_moved, e.status
                )
            })
            .collect();
        let ctx = format!(
            "{cpu} v43={v43} (READ CAPACITY is command {cap} of ID 3, block 0's read command {block0} of ID 5):\n{}\n{}",
            log.join("\n"),
            run.screen.transcript()
        );
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("      capacity unknown (")),
            "{ctx}: the short READ CAPACITY of ID 3 was taken for a size"
        );
        assert!(
            !texts.iter().any(|t| t.contains("blocks of 0")),
            "{ctx}: a size made from a half-filled buffer"
        );
        assert!(
            texts.iter().any(|t| t == "      blocks 0-1 unreadable"),
            "{ctx}: the empty read of ID 5's block 0 was taken for data"
        );
        assert!(
            !texts.iter().any(|t| t == "      no partition map"),
            "{ctx}: a label made from a zeroed buffer"
        );
    }
}

/// Issue 32 point 6: the SCSI Bus window is erased before it is redrawn. The emulated Window
/// Manager, like a real one, does not erase a region the application invalidated itself
/// (`InvalRect`): its old pixels stay until the application draws. ID 0 selected, then ↓
/// (ID 3) and ↑ bring the same selection back after two more updates: the screen must be the same
/// pixels as after the first (without the erase, the second `InvertRect` of a row turns it
/// back to white and the rows are printed over the old ones).
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn the_bus_window_looks_the_same_after_every_update() {
    for (cpu, v43) in support::both() {
        let mut m = two_disk_bus(cpu, v43);
        m.capture_screens(true);
        let run = support::launch(
            &mut m,
            vec![
                support::click_line(0),
                Input::Key('\u{1F}'),
                Input::Key('\u{1E}'),
                Input::CommandKey('q'),
            ],
        );
        let shots = m.captured_screens();
        let ctx = format!("{cpu} v43={v43}:\n{}", run.screen.transcript());
        assert_eq!(shots.len(), 4, "{ctx}");
        assert!(
            shots[0].screen != shots[1].screen,
            "{ctx}: the click selected nothing visible"
        );
        assert!(
            shots[1].screen != shots[2].screen,
            "{ctx}: ↓ changed nothing visible"
        );
        if shots[1].screen != shots[3].screen {
            let dir = std::env::temp_dir();
            let (a, b) = (
                dir.join(format!("bus-window-{cpu}-{v43}-first.png")),
                dir.join(format!("bus-window-{cpu}-{v43}-again.png")),
            );
            std::fs::write(&a, shots[1].screen.png()).unwrap();
            std::fs::write(&b, shots[3].screen.png()).unwrap();
            panic!(
                "{ctx}: the same selection after two more updates is drawn differently: {} vs {}",
                a.display(),
                b.display()
            );
        }
    }
}
