//! The Toolbox model running a packaged application: the hand-written test application
//! (`asm/test_app.S` + `asm/test_app.rdef`) is packaged by `retro68_build::rsrc::app` into a
//! resource fork and launched the way the Finder would, on the 68000 and the 68040, with
//! scripted input; the screen record shows what a user would see.

use ferrite_emu::toolbox::{AlertKind, Input, Launch, Seen, WindowKind};
use ferrite_emu::{CpuModel, Fault, Machine, RunError};
use ferrite_shared::flat::{Export, FlatImage};
use retro68_build::rsrc::app::{application_fork, image_offset};
use retro68_build::rsrc::compile;

const CPUS: [CpuModel; 2] = [CpuModel::M68000, CpuModel::M68040];
const NEEDS: &str = "needs binutils-m68k-linux-gnu: run `cargo xtask test`";

fn resources() -> retro68_build::rsrc::ResourceFork {
    compile(include_str!("../asm/test_app.rdef")).unwrap()
}

fn package(image: &FlatImage) -> Vec<u8> {
    application_fork(image, "main", &resources())
        .unwrap()
        .to_bytes()
        .unwrap()
}

fn app_image(bug: u32) -> FlatImage {
    app_image_with(bug, false)
}

fn app_image_with(bug: u32, gne: bool) -> FlatImage {
    let src = format!(
        "        .set    BUG, {bug}\n        .set    USE_GNE, {}\n{}",
        gne as u32,
        include_str!("../asm/test_app.S")
    );
    retro68_build::asm::assemble_flat("test_app", &src).unwrap()
}

fn launch(
    cpu: CpuModel,
    fork: Vec<u8>,
    script: Vec<Input>,
) -> (Machine, Result<ferrite_emu::toolbox::AppRun, RunError>) {
    let mut m = Machine::new(cpu);
    let r = m.launch_application(&Launch {
        name: b"Ferrite Test".to_vec(),
        fork,
        script,
    });
    (m, r)
}

fn about_then_quit_by_key() -> Vec<Input> {
    vec![
        Input::Menu {
            menu: "Apple".into(),
            item: "About Ferrite Test…".into(),
        },
        Input::DialogItem(1),
        Input::CommandKey('q'),
    ]
}

/// Where export `name` of the image lives once CODE 1 is loaded.
fn image_address(m: &mut Machine, image: &FlatImage, name: &str) -> u32 {
    let (seg, h) = m.toolbox().sl.segments[0];
    assert_eq!(seg, 1);
    m.read_u32(h) + image_offset().unwrap() as u32 + image.export(name).unwrap()
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn test_app_about_and_quit() {
    let _ = NEEDS;
    let image = app_image(0);
    for cpu in CPUS {
        let (mut m, r) = launch(cpu, package(&image), about_then_quit_by_key());
        let run = r.unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let s = &run.screen;
        assert_eq!(
            s.seen.first(),
            Some(&Seen::MenuBar(vec!["Apple".into(), "File".into()])),
            "{cpu}:\n{}",
            s.transcript()
        );
        assert_eq!(s.window_titles(), ["Ferrite Test"], "{cpu}");
        assert!(matches!(
            &s.seen[1],
            Seen::WindowOpened {
                kind: WindowKind::Document,
                bounds: [50, 20, 250, 420],
                visible: true,
                ..
            }
        ));
        assert_eq!(
            s.strings_drawn(),
            ["Hello from Ferrite", "SCSI bus: 7 IDs"],
            "{cpu}:\n{}",
            s.transcript()
        );
        assert!(s.seen.contains(&Seen::Text {
            window: "Ferrite Test".into(),
            h: 20,
            v: 50,
            font: 3,
            size: 12,
            text: "SCSI bus: 7 IDs".into()
        }));
        assert_eq!(
            s.alerts(),
            [&Seen::Alert {
                kind: AlertKind::Note,
                id: 128,
                texts: vec!["Ferrite Test 0.1d0".into()],
                buttons: vec!["OK".into()],
                hit: 1
            }],
            "{cpu}"
        );
        let chosen: Vec<&Seen> = s
            .seen
            .iter()
            .filter(|x| matches!(x, Seen::MenuChosen { .. }))
            .collect();
        assert_eq!(
            chosen,
            [
                &Seen::MenuChosen {
                    menu: "Apple".into(),
                    item: "About Ferrite Test…".into()
                },
                &Seen::MenuChosen {
                    menu: "File".into(),
                    item: "Quit".into()
                }
            ]
        );
        assert_eq!(
            s.seen[s.seen.len() - 2],
            Seen::WindowClosed {
                title: "Ferrite Test".into()
            }
        );
        assert_eq!(s.seen.last(), Some(&Seen::Exit));
        assert!(run.unused_input.is_empty());
        assert_eq!(m.stats().beeps, 1, "NoteAlert stage 1 of 0x5555 beeps once");
        let hit = image_address(&mut m, &image, "alert_hit");
        assert_eq!(m.read_u16(hit), 1);
        let updates = image_address(&mut m, &image, "update_count");
        assert_eq!(m.read_u32(updates), 1, "one update event answered");
        m.check_heaps().unwrap();
        assert_eq!(m.toolbox().mm.hilited, 0);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn test_app_quits_from_the_file_menu() {
    for gne in [false, true] {
        let image = app_image_with(0, gne);
        for cpu in CPUS {
            let (_, r) = launch(
                cpu,
                package(&image),
                vec![Input::Menu {
                    menu: "File".into(),
                    item: "Quit".into(),
                }],
            );
            let run = r.unwrap_or_else(|e| panic!("{cpu}, GetNextEvent {gne}: {e}"));
            assert!(run.screen.alerts().is_empty());
            assert_eq!(run.screen.strings_drawn().len(), 2);
            assert_eq!(run.screen.seen.last(), Some(&Seen::Exit));
        }
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn test_app_modal_dialog_with_a_resource_string() {
    let image = app_image(0);
    for cpu in CPUS {
        let script = vec![
            Input::CommandKey('i'),
            Input::DialogItem(4),
            Input::Return,
            Input::Menu {
                menu: "File".into(),
                item: "Quit".into(),
            },
        ];
        let (mut m, r) = launch(cpu, package(&image), script);
        let run = r.unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let s = &run.screen;
        assert_eq!(
            s.window_titles(),
            ["Ferrite Test", "Bus Info"],
            "{cpu}:\n{}",
            s.transcript()
        );
        let i = s
            .seen
            .iter()
            .position(|x| matches!(x, Seen::MenuChosen { item, .. } if item == "Bus Info…"))
            .unwrap();
        assert_eq!(
            s.seen[i + 1..i + 7],
            [
                Seen::WindowOpened {
                    title: "Bus Info".into(),
                    kind: WindowKind::Dialog,
                    bounds: [60, 40, 200, 400],
                    visible: true
                },
                Seen::DialogItemText {
                    dialog: "Bus Info".into(),
                    item: 2,
                    text: "SCSI bus".into()
                },
                Seen::Dialog {
                    title: "Bus Info".into(),
                    items: vec!["OK".into(), "SCSI bus".into(), "".into(), "7".into()]
                },
                Seen::DialogHit {
                    dialog: "Bus Info".into(),
                    item: 4
                },
                Seen::DialogHit {
                    dialog: "Bus Info".into(),
                    item: 1
                },
                Seen::WindowClosed {
                    title: "Bus Info".into()
                },
            ],
            "{cpu}:\n{}",
            s.transcript()
        );
        assert_eq!(s.seen.last(), Some(&Seen::Exit));
        let loaded: Vec<([u8; 4], i16)> = m.toolbox().rm.loaded.keys().copied().collect();
        assert_eq!(
            loaded,
            [(*b"CODE", 1)],
            "STR# 128 was released; CODE 1 stays"
        );
        assert!(m.toolbox().dm.dialogs.is_empty());
        m.check_heaps().unwrap();
    }
    // A click on the disabled static text is not something a user can do.
    let script = vec![Input::CommandKey('i'), Input::DialogItem(3)];
    let (_, r) = launch(CpuModel::M68000, package(&image), script);
    let e = r.unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Setup { message } if message.contains("item 3")),
        "{e}"
    );
}

fn misuse_message(r: Result<ferrite_emu::toolbox::AppRun, RunError>) -> String {
    match r {
        Ok(run) => panic!("the bug went unnoticed:\n{}", run.screen.transcript()),
        Err(e) => match &e.fault {
            Fault::Misuse { message, .. } => message.clone(),
            other => panic!("expected a misuse fault, got {other:?} ({e})"),
        },
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn wrong_glue_fails_loudly() {
    let cases: [(u32, &str); 7] = [
        (1, "WaitNextEvent"),
        (2, "GetNewWindow"),
        (3, "CHAR"),
        (4, "Boolean"),
        (5, "returned from its entry point"),
        (6, "thePort is NIL"),
        (7, "called SetPort with A5 = "),
    ];
    for (bug, needle) in cases {
        let image = app_image(bug);
        for cpu in CPUS {
            let (_, r) = launch(cpu, package(&image), about_then_quit_by_key());
            let msg = misuse_message(r);
            assert!(msg.contains(needle), "BUG {bug} on {cpu}: {msg}");
            if cpu == CpuModel::M68000 {
                eprintln!("BUG {bug}: {msg}");
            }
        }
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn scripts_that_do_not_fit_fail() {
    let image = app_image(0);
    // A dialog click while no dialog is up.
    let (_, r) = launch(
        CpuModel::M68000,
        package(&image),
        vec![Input::DialogItem(1)],
    );
    let e = r.unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Setup { message } if message.contains("no modal dialog")),
        "{e}"
    );
    // A menu item that does not exist.
    let (_, r) = launch(
        CpuModel::M68000,
        package(&image),
        vec![Input::Menu {
            menu: "File".into(),
            item: "Save".into(),
        }],
    );
    let e = r.unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Setup { message } if message.contains("Save")),
        "{e}"
    );
    // The script ends and the application never quits.
    let (_, r) = launch(CpuModel::M68000, package(&image), vec![]);
    let e = r.unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Misuse { message, .. } if message.contains("never quit")),
        "{e}"
    );
    // The alert waits for an answer the script does not give.
    let (_, r) = launch(
        CpuModel::M68000,
        package(&image),
        vec![Input::Menu {
            menu: "Apple".into(),
            item: "About Ferrite Test…".into(),
        }],
    );
    let e = r.unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Setup { message } if message.contains("alert 128")),
        "{e}"
    );
}

/// A hand-assembled application needing no binutils: `main` is `_ExitToShell`, preceded by
/// a relocated long in its data that points at `main`.
fn tiny_image() -> FlatImage {
    FlatImage {
        image: vec![0xA9, 0xF4, 0x4E, 0x71, 0x00, 0x00, 0x00, 0x00],
        bss_len: 4,
        relocs: ferrite_shared::flat::encode_relocs(&[4]).unwrap(),
        exports: vec![
            Export {
                name: "main".into(),
                offset: 0,
            },
            Export {
                name: "ptr".into(),
                offset: 4,
            },
        ],
        cpu: 68000,
        code_len: 4,
    }
}

#[test]
fn tiny_app_launches_relocates_and_exits() {
    let image = tiny_image();
    for cpu in CPUS {
        let (mut m, r) = launch(cpu, package(&image), vec![]);
        let run = r.unwrap_or_else(|e| panic!("{cpu}: {e}"));
        assert_eq!(run.screen.seen, [Seen::Exit]);
        let main = image_address(&mut m, &image, "main");
        let ptr = image_address(&mut m, &image, "ptr");
        assert_eq!(
            m.read_u32(ptr),
            main,
            "{cpu}: the stub relocated the image in place"
        );
        // The jump table entry is in its loaded form: segment 1, jmp abs.l to the stub.
        let a5 = run.a5;
        assert_eq!(m.read_u32(0x904), a5);
        assert_eq!(m.read_u16(a5 + 32), 1);
        assert_eq!(m.read_u16(a5 + 34), 0x4EF9);
        let (_, h) = m.toolbox().sl.segments[0];
        assert_eq!(m.read_u32(a5 + 36), m.read_u32(h) + 4);
        assert_eq!(m.read_u16(0x934), 32, "CurJTOffset");
        assert_eq!(m.read_pstring(0x910), b"Ferrite Test", "CurApName");
        let state = m.memory_manager().handle_state(m.bus(), h).unwrap();
        assert_eq!(state & 0x80, 0x80, "CODE 1 is locked");
        m.check_heaps().unwrap();
    }
}

#[test]
fn launch_refuses_a_bad_code0() {
    let fork = package(&tiny_image());
    let mut parsed = retro68_build::rsrc::ResourceFork::parse(&fork).unwrap();
    let c0 = parsed
        .resources
        .iter_mut()
        .find(|r| &r.rtype == b"CODE" && r.id == 0)
        .unwrap();
    c0.data[15] = 0x28; // jump-table offset 40
    let (_, r) = launch(CpuModel::M68000, parsed.to_bytes().unwrap(), vec![]);
    let e = r.unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Setup { message } if message.contains("CODE 0 is inconsistent")),
        "{e}"
    );
    let mut none = retro68_build::rsrc::ResourceFork::parse(&fork).unwrap();
    none.resources.retain(|r| &r.rtype != b"CODE" || r.id != 1);
    let (_, r) = launch(CpuModel::M68000, none.to_bytes().unwrap(), vec![]);
    let e = r.unwrap_err();
    assert!(
        matches!(&e.fault, Fault::Misuse { message, .. } if message.contains("no CODE 1")),
        "{e}"
    );
}
