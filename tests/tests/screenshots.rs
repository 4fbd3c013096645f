//! Screenshots of Ferrite Setup (`target/m68k/FerriteSetup.bin`) as the emulated Mac draws
//! it, and UI tests that read the pixels.
//!
//! [`SCENES`] lists scripted scenes: a machine (CPU, SCSI Manager, the two disks of
//! tests/tests/setup_app.rs), the application's resource fork (optionally changed), a
//! script, and the input before which the screen is taken. Each scene's PNG is in
//! `docs/screenshots/`, and `docs/SCREENSHOTS.md` shows them between its markers; the test
//! fails when either is stale. `cargo xtask screenshots` (or `FERRITE_WRITE_DOCS=1`) rewrites
//! them. Adding a screen is one more [`Scene`] (see docs/SCREENSHOTS.md).

#[path = "support/setup.rs"]
mod support;

use std::path::PathBuf;

use ferrite_emu::CpuModel;
use ferrite_emu::toolbox::render_bitmap::Bitmap;
use ferrite_emu::toolbox::render_chrome::{self as chrome, MENU_BAR_HEIGHT, TITLE_BAR_HEIGHT};
use ferrite_emu::toolbox::render_font::{self, BitmapFont};
use ferrite_emu::toolbox::{Input, Launch, ScreenRecord, Seen, WindowKind};
use support::{setup_fork, two_disk_bus};

/// One screenshot: a scripted run and the moment to take the screen.
struct Scene {
    /// `docs/screenshots/<file>.png`.
    file: &'static str,
    /// The caption in docs/SCREENSHOTS.md.
    caption: &'static str,
    cpu: CpuModel,
    /// SCSI Manager 4.3 present (else the original SCSI Manager).
    scsi43: bool,
    /// Changes to the application's resource fork (identity for most scenes).
    fork: fn(Vec<u8>) -> Vec<u8>,
    /// What the user does.
    script: fn() -> Vec<Input>,
    /// The screen is taken just before the script's input number `at` (0-based).
    at: usize,
    /// When that input is a menu choice: show the menu pulled down, the item highlighted.
    menu_open: bool,
}

fn same(fork: Vec<u8>) -> Vec<u8> {
    fork
}

fn about_then_quit() -> Vec<Input> {
    vec![
        Input::Menu {
            menu: "Apple".into(),
            item: "About Ferrite Setup…".into(),
        },
        Input::DialogItem(1),
        Input::CommandKey('q'),
    ]
}

/// The fork without its window template: the runtime's panic alert comes up.
fn without_wind(fork: Vec<u8>) -> Vec<u8> {
    use retro68_build::rsrc::ResourceFork;
    let mut f = ResourceFork::parse(&fork).unwrap();
    f.resources
        .retain(|r| !(&r.rtype == b"WIND" && r.id == 128));
    f.to_bytes().unwrap()
}

fn quit_from_the_file_menu() -> Vec<Input> {
    vec![Input::Menu {
        menu: "File".into(),
        item: "Quit".into(),
    }]
}

fn quit_button() -> Vec<Input> {
    vec![Input::DialogItem(1)]
}

/// A click on the first line of ID 0 (the Quantum) or ID 3 (the IBM disk; ID 0 has three
/// lines, IDs 1 and 2 one each) in the SCSI Bus window (setup/src/ui/bus_list.rs geometry).
fn click_id(id: u8) -> Input {
    let line = if id == 0 { 0 } else { 5 };
    Input::Click {
        window: "SCSI Bus".into(),
        h: 60,
        v: 34 + 12 * line - 3,
    }
}

fn drive_menu(item: &str) -> Input {
    Input::Menu {
        menu: "Drive".into(),
        item: item.into(),
    }
}

/// Initialize… on the blank IBM disk, then Cancel.
fn initialize_dialog() -> Vec<Input> {
    vec![
        click_id(3),
        drive_menu("Initialize…"),
        Input::Type {
            item: 7,
            text: "200".into(),
        },
        Input::Type {
            item: 9,
            text: "Data".into(),
        },
        Input::DialogItem(2),
        Input::CommandKey('q'),
    ]
}

/// Test… on the Quantum, cancelled with ⌘-period from the progress window.
fn test_progress() -> Vec<Input> {
    vec![
        click_id(0),
        drive_menu("Test…"),
        Input::CommandKey('.'),
        Input::DialogItem(1),
        Input::CommandKey('q'),
    ]
}

/// Test… on the Quantum to the end: the result.
fn test_result() -> Vec<Input> {
    vec![
        click_id(0),
        drive_menu("Test…"),
        Input::DialogItem(1),
        Input::CommandKey('q'),
    ]
}

/// Partition… on the Quantum: its map, the volume selected.
fn partition_list() -> Vec<Input> {
    vec![
        click_id(0),
        drive_menu("Partition…"),
        Input::DialogItem(8),
        Input::DialogItem(1),
        Input::CommandKey('q'),
    ]
}

/// Drive Settings… of the Quantum, then Cancel.
fn drive_settings() -> Vec<Input> {
    vec![
        click_id(0),
        drive_menu("Drive Settings…"),
        Input::DialogItem(2),
        Input::CommandKey('q'),
    ]
}

/// The scenes, in the order docs/SCREENSHOTS.md shows them.
const SCENES: &[Scene] = &[
    Scene {
        file: "bus-window",
        caption: "The SCSI bus window on a compact Mac (68000, 512×342, original SCSI Manager): a 40 MB Quantum with a Ferrite-formatted map on ID 0, a blank 1 GB IBM disk on ID 3",
        cpu: CpuModel::M68000,
        scsi43: false,
        fork: same,
        script: about_then_quit,
        at: 0,
        menu_open: false,
    },
    Scene {
        file: "bus-window-quadra",
        caption: "The same bus on a Quadra (68040, 640×480, SCSI Manager 4.3)",
        cpu: CpuModel::M68040,
        scsi43: true,
        fork: same,
        script: about_then_quit,
        at: 0,
        menu_open: false,
    },
    Scene {
        file: "file-menu",
        caption: "The File menu pulled down, Quit about to be chosen",
        cpu: CpuModel::M68000,
        scsi43: false,
        fork: same,
        script: quit_from_the_file_menu,
        at: 0,
        menu_open: true,
    },
    Scene {
        file: "about",
        caption: "About Ferrite Setup (Apple menu), a note alert",
        cpu: CpuModel::M68000,
        scsi43: false,
        fork: same,
        script: about_then_quit,
        at: 1,
        menu_open: false,
    },
    Scene {
        file: "panic",
        caption: "The runtime's stop alert after a Rust panic (here: the window template is missing)",
        cpu: CpuModel::M68000,
        scsi43: true,
        fork: without_wind,
        script: quit_button,
        at: 0,
        menu_open: false,
    },
    Scene {
        file: "drive-menu",
        caption: "The Drive menu with the Quantum selected (68000, original SCSI Manager)",
        cpu: CpuModel::M68000,
        scsi43: false,
        fork: same,
        script: partition_list,
        at: 1,
        menu_open: true,
    },
    Scene {
        file: "initialize-dialog",
        caption: "Initialize… on the blank 1 GB IBM disk: two volumes (the first 200 MB, “Data” the rest), the write cache on",
        cpu: CpuModel::M68000,
        scsi43: false,
        fork: same,
        script: initialize_dialog,
        at: 4,
        menu_open: false,
    },
    Scene {
        file: "progress",
        caption: "The progress window while Test… reads every block of the Quantum (⌘-period or Cancel stops it)",
        cpu: CpuModel::M68000,
        scsi43: false,
        fork: same,
        script: test_progress,
        at: 2,
        menu_open: false,
    },
    Scene {
        file: "test-result",
        caption: "Test… finished: every block of the Quantum reads back",
        cpu: CpuModel::M68040,
        scsi43: true,
        fork: same,
        script: test_result,
        at: 2,
        menu_open: false,
    },
    Scene {
        file: "partition-list",
        caption: "Partition… on the Quantum: its map (type, name, start, size, mounted or not), the HFS volume selected",
        cpu: CpuModel::M68000,
        scsi43: false,
        fork: same,
        script: partition_list,
        at: 3,
        menu_open: false,
    },
    Scene {
        file: "drive-settings",
        caption: "Drive Settings… of the Quantum: its caching page in words and the write-cache check box",
        cpu: CpuModel::M68000,
        scsi43: false,
        fork: same,
        script: drive_settings,
        at: 2,
        menu_open: false,
    },
];

/// Run `scene`: its screen and what the user saw.
fn shoot(scene: &Scene) -> (Bitmap, ScreenRecord) {
    let mut m = two_disk_bus(scene.cpu, scene.scsi43);
    m.capture_screens(true);
    let script = (scene.script)();
    let want = script[scene.at].clone();
    let run = m
        .launch_application(&Launch {
            name: b"Ferrite Setup".to_vec(),
            fork: (scene.fork)(setup_fork()),
            script,
        })
        .unwrap_or_else(|e| panic!("scene {}: {e}", scene.file));
    let shots = m.captured_screens();
    let shot = shots.get(scene.at).unwrap_or_else(|| {
        panic!(
            "scene {}: {} screens captured, none before input {}",
            scene.file,
            shots.len(),
            scene.at
        )
    });
    assert_eq!(shot.before, want, "scene {}", scene.file);
    let screen = if scene.menu_open {
        shot.menu_open
            .clone()
            .unwrap_or_else(|| panic!("scene {}: input {} is no menu choice", scene.file, scene.at))
    } else {
        shot.screen.clone()
    };
    (screen, run.screen)
}

fn docs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs")
}

const BEGIN: &str = "<!-- screenshots: generated by tests/tests/screenshots.rs -->";
const END: &str = "<!-- screenshots: end -->";

/// Every scene's PNG is what the emulated Mac draws now (twice the same bytes), and
/// docs/SCREENSHOTS.md shows each; `FERRITE_WRITE_DOCS=1` rewrites them.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn screenshots_are_current() {
    let write = std::env::var_os("FERRITE_WRITE_DOCS").is_some_and(|v| v == "1");
    let dir = docs_dir().join("screenshots");
    let mut stale = Vec::new();
    let mut section = String::from("\n");
    for s in SCENES {
        let png = shoot(s).0.png();
        assert_eq!(
            png,
            shoot(s).0.png(),
            "scene {}: two runs drew different screens",
            s.file
        );
        let path = dir.join(format!("{}.png", s.file));
        if std::fs::read(&path).ok().as_deref() != Some(png.as_slice()) {
            if write {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &png).unwrap();
                eprintln!("{}: rewritten", path.display());
            } else {
                stale.push(format!("docs/screenshots/{}.png", s.file));
            }
        }
        section.push_str(&format!(
            "### {}\n\n{}.\n\n![{}](screenshots/{}.png)\n\n",
            s.file, s.caption, s.caption, s.file
        ));
    }
    // No PNG in docs/screenshots without a scene.
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let known = SCENES.iter().any(|s| format!("{}.png", s.file) == name);
        assert!(
            known,
            "docs/screenshots/{name} belongs to no scene of tests/tests/screenshots.rs: delete it"
        );
    }
    let path = docs_dir().join("SCREENSHOTS.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("docs/SCREENSHOTS.md has no `{BEGIN}` … `{END}` section");
    };
    if doc[b + BEGIN.len()..e] != section {
        if write {
            let new = format!("{}{BEGIN}{section}{}", &doc[..b], &doc[e..]);
            std::fs::write(&path, new).unwrap();
            eprintln!("docs/SCREENSHOTS.md: rewritten");
        } else {
            stale.push("docs/SCREENSHOTS.md".into());
        }
    }
    assert!(
        stale.is_empty(),
        "stale: {stale:?}; regenerate with `cargo xtask screenshots` (or FERRITE_WRITE_DOCS=1 \
         FERRITE_M68K_DIR=$PWD/target/m68k cargo test -p ferrite-tests --test screenshots -- \
         --include-ignored)"
    );
}

/// `font`'s rendering of `text` at baseline (`h`, `v`), drawn here from the glyph bitmaps
/// (independently of the renderer's text routine): the black pixels.
fn expected_ink(font: &BitmapFont, h: i32, v: i32, text: &[u8]) -> Vec<(i32, i32)> {
    let mut ink = Vec::new();
    let mut pen = h;
    for &c in text {
        let g = font.glyph(c);
        for (row, bits) in g.rows.iter().enumerate() {
            for (col, &b) in bits.iter().enumerate() {
                if b {
                    ink.push((pen + col as i32, v - g.above as i32 + row as i32));
                }
            }
        }
        pen += g.width as i32 + 1;
    }
    ink
}

/// The bus window, on both screen sizes: the PNG decodes to the machine's screen size at
/// 1-bit depth; the menu bar holds exactly its titles; the window's frame and title bar
/// surround the content the Window Manager recorded; every row of text the application drew
/// is at the pen position the record says, pixel for pixel, clipped to the window; the rest
/// of the content is white.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn bus_window_pixels_match_the_recorded_layout() {
    for scene in &SCENES[..2] {
        let (screen, record) = shoot(scene);
        let ctx = format!("scene {}:\n{}", scene.file, record.transcript());
        // The PNG.
        let png = screen.png();
        let info = png::Decoder::new(std::io::Cursor::new(&png))
            .read_info()
            .unwrap()
            .info()
            .clone();
        let (w, h) = if scene.cpu == CpuModel::M68000 {
            (512, 342)
        } else {
            (640, 480)
        };
        assert_eq!((info.width, info.height), (w, h), "{ctx}");
        assert_eq!(info.bit_depth, png::BitDepth::One);
        assert_eq!(info.color_type, png::ColorType::Grayscale);
        let screen = Bitmap::from_png(&png).unwrap();
        let px = |x: i32, y: i32| screen.get(x, y);

        // Menu bar: black bottom line across the screen; inside, exactly the titles' ink.
        let sys = render_font::system();
        assert!(
            (0..w as i32).all(|x| px(x, MENU_BAR_HEIGHT as i32 - 1)),
            "{ctx}"
        );
        let titles: Vec<Vec<u8>> = vec![
            vec![0x14],
            b"File".to_vec(),
            b"Edit".to_vec(),
            b"Drive".to_vec(),
        ];
        let mut ink = Vec::new();
        for (t, (l, _)) in titles.iter().zip(chrome::menu_title_spans(&titles)) {
            ink.extend(expected_ink(
                sys,
                (l + chrome::MENU_TITLE_PAD) as i32,
                chrome::MENU_BASELINE as i32,
                t,
            ));
        }
        let corner = chrome::SCREEN_CORNER as i32;
        for y in 0..MENU_BAR_HEIGHT as i32 - 1 {
            for x in corner..w as i32 - corner {
                assert_eq!(
                    px(x, y),
                    ink.contains(&(x, y)),
                    "menu bar pixel ({x}, {y}); {ctx}"
                );
            }
        }

        // The window, where the Window Manager put it.
        let [
            Seen::WindowOpened {
                bounds: b,
                kind: WindowKind::Document,
                visible: true,
                ..
            },
        ] = record
            .seen
            .iter()
            .filter(|s| matches!(s, Seen::WindowOpened { .. }))
            .collect::<Vec<_>>()[..]
        else {
            panic!("one document window expected; {ctx}")
        };
        let [t, l, bt, r] = b.map(i32::from);
        let top = t - TITLE_BAR_HEIGHT as i32;
        assert!(
            (l - 1..=r).all(|x| px(x, top) && px(x, t - 1) && px(x, bt)),
            "frame rows; {ctx}"
        );
        assert!(
            (top..=bt).all(|y| px(l - 1, y) && px(r, y)),
            "frame columns; {ctx}"
        );
        assert!((top + 1..=bt + 1).all(|y| px(r + 1, y)), "shadow; {ctx}");
        assert!(
            !px(r + 1, top) && !px(l - 1, bt + 1),
            "shadow offset; {ctx}"
        );
        // Active: title-bar stripes left of the title.
        assert!(
            (0..6).all(|k| px(l + 4, top + 4 + 2 * k) && !px(l + 4, top + 5 + 2 * k)),
            "stripes; {ctx}"
        );

        // Content: the rows of text, and nothing else.
        let mut ink = Vec::new();
        let mut rows = 0;
        for s in &record.seen {
            if let Seen::Text {
                window,
                h,
                v,
                font,
                size,
                text,
            } = s
                && window == "SCSI Bus"
            {
                let f = render_font::for_port(*font, *size);
                assert_eq!(f.name, "monaco9", "the bus rows are in Monaco 9; {ctx}");
                ink.extend(expected_ink(
                    f,
                    l + *h as i32,
                    t + *v as i32,
                    text.as_bytes(),
                ));
                rows += 1;
            }
        }
        assert_eq!(rows, 12, "a heading and eleven rows; {ctx}");
        let mut black = 0;
        for y in t..bt {
            for x in l..r {
                let want = ink.contains(&(x, y));
                black += want as u32;
                assert_eq!(px(x, y), want, "content pixel ({x}, {y}); {ctx}");
            }
        }
        assert!(black > 500, "{black} pixels of text; {ctx}");
    }
}

/// The About alert: a dialog box at the ALRT's rectangle, the note icon, the OK button with
/// the default outline, the text wrapped inside its item, over an inactive bus window.
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn about_alert_pixels() {
    let scene = SCENES.iter().find(|s| s.file == "about").unwrap();
    let (screen, record) = shoot(scene);
    let ctx = record.transcript();
    let px = |x: i32, y: i32| screen.get(x, y);
    // ALRT 128: rect 60 60 180 420; OK button 88 280 108 340 (local).
    let (t, l, b, r) = (60, 60, 180, 420);
    assert!(
        (l - 8..r + 8).all(|x| px(x, t - 8) && px(x, b + 7)),
        "outer border; {ctx}"
    );
    assert!(
        (l..r).all(|x| !px(x, t - 7) && px(x, t - 5) && px(x, t - 4) && !px(x, t - 3)),
        "double border; {ctx}"
    );
    // The button: its frame's straight edges, white inside around the title, default ring.
    let (bt, bl, bb, br) = (t + 88, l + 280, t + 108, l + 340);
    assert!(
        (bl + 8..br - 8).all(|x| px(x, bt) && px(x, bb - 1)),
        "button edges; {ctx}"
    );
    // Round corners: on the button's top row, white between the default ring and the
    // button's curved edge (a square corner would be black there).
    assert!(
        !px(bl + 4, bt) && !px(br - 5, bb - 1) && px(bl + 8, bt),
        "button corners are round; {ctx}"
    );
    assert!(
        (bl + 8..br - 8).all(|x| px(x, bt - 4) && px(x, bt - 2) && !px(x, bt - 1)),
        "default ring; {ctx}"
    );
    let sys = render_font::system();
    let ok = expected_ink(
        sys,
        ((bl + br) / 2 - sys.width(b"OK") as i32 / 2) as i32,
        bt + 14,
        b"OK",
    );
    assert!(ok.iter().all(|&(x, y)| px(x, y)), "OK; {ctx}");
    // The note icon at (10, 20) in the content, and the text's first word at (70, 10).
    assert!((0..32).any(|y| px(l + 20 + 16, t + 10 + y)), "icon; {ctx}");
    let first = expected_ink(sys, l + 70, t + 10 + sys.ascent as i32, b"Ferrite");
    assert!(first.iter().all(|&(x, y)| px(x, y)), "static text; {ctx}");
    // The bus window behind is inactive: no stripes.
    let top = 44 - TITLE_BAR_HEIGHT as i32;
    assert!(
        !px(16 + 4, top + 4),
        "the window behind an alert is inactive; {ctx}"
    );
}

/// The File menu pulled down: its title inverted, the menu box under it with Rescan Bus ⌘R,
/// a separator and Quit ⌘Q, Quit highlighted (inverted text on black).
#[test]
#[ignore = "needs the m68k build: run `cargo xtask test`"]
fn file_menu_pixels() {
    let scene = SCENES.iter().find(|s| s.file == "file-menu").unwrap();
    let (screen, record) = shoot(scene);
    let ctx = record.transcript();
    let px = |x: i32, y: i32| screen.get(x, y);
    let titles: Vec<Vec<u8>> = vec![
        vec![0x14],
        b"File".to_vec(),
        b"Edit".to_vec(),
        b"Drive".to_vec(),
    ];
    let (l, r) = chrome::menu_title_spans(&titles)[1];
    let (l, r) = (l as i32, r as i32);
    assert!(
        px(l, 1) && px(r - 1, 1) && !px(r, 1),
        "File title inverted; {ctx}"
    );
    let item = chrome::MENU_ITEM_HEIGHT as i32;
    let top = MENU_BAR_HEIGHT as i32 - 1;
    // Three items: the box's left edge runs down to the bottom line, the shadow right of it.
    let bottom = top + 3 * item + 1;
    assert!((top..=bottom).all(|y| px(l, y)), "menu box; {ctx}");
    assert!(!px(l, bottom + 1) && px(l + 2, bottom + 1), "shadow; {ctx}");
    // Rescan Bus (row 1): paper at its left margin and ink of its text; Quit (row 3): ink
    // at its left margin (highlighted) and paper inside its text.
    let sys = render_font::system();
    let rescan = expected_ink(sys, l + 14, top + 1 + 12, b"Rescan Bus");
    assert!(rescan.iter().all(|&(x, y)| px(x, y)), "Rescan Bus; {ctx}");
    assert!(
        !px(l + 3, top + 1 + item / 2),
        "Rescan Bus is not highlighted; {ctx}"
    );
    let quit = expected_ink(sys, l + 14, top + 1 + 2 * item + 12, b"Quit");
    assert!(
        quit.iter().all(|&(x, y)| !px(x, y)),
        "Quit, white on black; {ctx}"
    );
    assert!(
        px(l + 3, top + 1 + 2 * item + item / 2),
        "Quit highlighted; {ctx}"
    );
}
