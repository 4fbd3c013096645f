//! The renderer on a modal dialog: the hand-written test application (`asm/test_app.S`)
//! opens its "Bus Info" dialog (`DLOG 129`: a button, two static texts, an edit text, one
//! static text set by the application with `SetDialogItemText`); the screen taken while the
//! dialog waits for the user shows the dialog box and each item where its `DITL` puts it,
//! over the inactive document window.

use ferrite_emu::toolbox::render_bitmap::Bitmap;
use ferrite_emu::toolbox::render_chrome::TITLE_BAR_HEIGHT;
use ferrite_emu::toolbox::render_font;
use ferrite_emu::toolbox::{Input, Launch, Seen, WindowKind};
use ferrite_emu::{CpuModel, Machine};
use retro68_build::rsrc::app::application_fork;
use retro68_build::rsrc::compile;

fn fork() -> Vec<u8> {
    let src = format!(
        "        .set    BUG, 0\n        .set    USE_GNE, 0\n{}",
        include_str!("../asm/test_app.S")
    );
    let image = retro68_build::asm::assemble_flat("test_app", &src).unwrap();
    let rsrc = compile(include_str!("../asm/test_app.rdef")).unwrap();
    application_fork(&image, "main", &rsrc)
        .unwrap()
        .to_bytes()
        .unwrap()
}

/// Black pixels of `text` in the system font at baseline (`h`, `v`), from the glyphs.
fn ink(h: i32, v: i32, text: &[u8]) -> Vec<(i32, i32)> {
    let f = render_font::system();
    let mut out = Vec::new();
    let mut pen = h;
    for &c in text {
        let g = f.glyph(c);
        for (row, bits) in g.rows.iter().enumerate() {
            for (col, &b) in bits.iter().enumerate() {
                if b {
                    out.push((pen + col as i32, v - g.above as i32 + row as i32));
                }
            }
        }
        pen += f.advance(c) as i32;
    }
    out
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn bus_info_dialog_pixels() {
    let fork = fork();
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        let mut m = Machine::new(cpu);
        m.capture_screens(true);
        let run = m
            .launch_application(&Launch {
                name: b"Ferrite Test".to_vec(),
                fork: fork.clone(),
                script: vec![
                    Input::CommandKey('i'),
                    Input::DialogItem(4),
                    Input::Return,
                    Input::Menu {
                        menu: "File".into(),
                        item: "Quit".into(),
                    },
                ],
            })
            .unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let ctx = format!("{cpu}:\n{}", run.screen.transcript());
        let shots = m.captured_screens();
        assert_eq!(shots.len(), 4, "one screen per input; {ctx}");
        assert_eq!(shots[1].before, Input::DialogItem(4));
        let screen: &Bitmap = &shots[1].screen;
        let px = |x: i32, y: i32| screen.get(x, y);
        // DLOG 129: content 60 40 200 400; the double border 8 pixels out.
        let (t, l, b, r) = (60, 40, 200, 400);
        assert!(
            (l - 8..r + 8).all(|x| px(x, t - 8) && px(x, b + 7)),
            "border; {ctx}"
        );
        assert!(
            (l..r).all(|x| !px(x, t - 7) && px(x, t - 5) && px(x, t - 4) && !px(x, t - 3)),
            "border; {ctx}"
        );
        // Item 1, button 100 280 120 340 "OK": straight edges, title centred, no outline.
        let (bt, bl, bb, br) = (t + 100, l + 280, t + 120, l + 340);
        assert!(
            (bl + 8..br - 8).all(|x| px(x, bt) && px(x, bb - 1) && !px(x, bt - 3)),
            "button; {ctx}"
        );
        let f = render_font::system();
        let ok = ink((bl + br) / 2 - f.width(b"OK") as i32 / 2, bt + 14, b"OK");
        assert!(ok.iter().all(|&(x, y)| px(x, y)), "OK; {ctx}");
        // Item 2, static 10 20 30 340: the text the application set ("SCSI bus").
        let want = ink(l + 20, t + 10 + f.ascent as i32, b"SCSI bus");
        for y in t + 10..t + 30 {
            for x in l + 20..l + 120 {
                assert_eq!(
                    px(x, y),
                    want.contains(&(x, y)),
                    "item 2 at ({x}, {y}); {ctx}"
                );
            }
        }
        // Item 3, an empty static text: white.
        assert!(
            (t + 40..t + 60).all(|y| (l + 20..l + 340).all(|x| !px(x, y))),
            "item 3; {ctx}"
        );
        // Item 4, edit text 70 20 86 200 "7": a frame 3 pixels out, the text inside.
        let (et, el, eb, er) = (t + 70, l + 20, t + 86, l + 200);
        assert!(
            (el - 3..er + 3).all(|x| px(x, et - 3) && px(x, eb + 2)),
            "edit frame; {ctx}"
        );
        assert!(
            (et - 3..eb + 3).all(|y| px(el - 3, y) && px(er + 2, y)),
            "edit frame; {ctx}"
        );
        let seven = ink(el, et + f.ascent as i32, b"7");
        assert!(seven.iter().all(|&(x, y)| px(x, y)), "edit text; {ctx}");
        // The document window behind: framed, inactive (no stripes while the dialog is up).
        let Some(Seen::WindowOpened { bounds: w, .. }) = run.screen.seen.iter().find(|s| {
            matches!(
                s,
                Seen::WindowOpened {
                    kind: WindowKind::Document,
                    ..
                }
            )
        }) else {
            panic!("no document window; {ctx}")
        };
        let top = w[0] as i32 - TITLE_BAR_HEIGHT as i32;
        let left = w[1] as i32;
        assert!(
            px(left - 1, top + 5) && px(left + 10, top),
            "window frame; {ctx}"
        );
        assert!(
            (0..6).all(|k| !px(left + 4, top + 4 + 2 * k)),
            "inactive title bar; {ctx}"
        );
        // Before the dialog (input 0), the same window was active.
        assert!(
            (0..6).all(|k| shots[0].screen.get(left + 4, top + 4 + 2 * k)),
            "active title bar; {ctx}"
        );
    }
}
