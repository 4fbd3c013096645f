//! Independent checks of the resource-fork writer and the application packaging: Python's
//! `rsrcfork` lists every resource of the fork, `macunpack` (macutils) unpacks the MacBinary
//! file. Ignored by default (they need the prerequisites `cargo xtask` installs).

use std::process::Command;

use ferrite_shared::flat::{Export, FlatImage, encode_relocs};
use retro68_build::rsrc::app::{AppFile, application_fork, macbinary};
use retro68_build::rsrc::{ResourceFork, compile};

fn sample_fork() -> ResourceFork {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/asm/test_app.rdef"
    ))
    .unwrap();
    let mut res = compile(&src).unwrap();
    res.resources[0].name = Some(b"Apple \xC9".to_vec()); // a Mac Roman name
    let image = FlatImage {
        image: vec![0x4E, 0x71, 0x4E, 0x75, 0, 0, 0, 0],
        bss_len: 8,
        relocs: encode_relocs(&[4]).unwrap(),
        exports: vec![Export {
            name: "main".into(),
            offset: 0,
        }],
        cpu: 68000,
        code_len: 4,
    };
    application_fork(&image, "main", &res).unwrap()
}

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ferrite-rsrc-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

const LIST: &str = r#"
import sys, rsrcfork
with rsrcfork.open(sys.argv[1], fork="data") as rf:
    for t, reses in rf.items():
        for rid, r in reses.items():
            name = r.name.decode("mac_roman") if r.name is not None else "-"
            print(f"{t.hex()}|{rid}|{name}|{len(r.data)}|{r.attributes.value}")
"#;

#[test]
#[ignore = "needs Python rsrcfork: run `cargo xtask test`"]
fn rsrcfork_lists_every_resource() {
    let fork = sample_fork();
    let path = temp("app.rsrc");
    std::fs::write(&path, fork.to_bytes().unwrap()).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg(LIST)
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
    let mut want: Vec<String> = fork
        .resources
        .iter()
        .map(|r| {
            let name = r.name.as_ref().map_or("-".to_string(), |n| {
                n.iter()
                    .map(|&b| if b == 0xC9 { '…' } else { b as char })
                    .collect()
            });
            let hex: String = r.rtype.iter().map(|b| format!("{b:02x}")).collect();
            format!("{hex}|{}|{name}|{}|{}", r.id, r.data.len(), r.attributes)
        })
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(got.len(), 17, "CODE 0/1 + 15 resources from the source");
}

#[test]
#[ignore = "needs macutils (macunpack): run `cargo xtask test`"]
fn macunpack_unpacks_the_macbinary() {
    let fork = sample_fork();
    let file = AppFile {
        name: b"Ferrite Test".to_vec(),
        creator: *b"FRRT",
        created: 0xE000_0000,
        modified: 0xE000_0001,
    };
    let mb = macbinary(&file, &fork).unwrap();
    let dir = temp("unpack");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("app.bin"), &mb).unwrap();
    let out = Command::new("macunpack")
        .arg("-3")
        .arg("app.bin")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "macunpack: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let rsrc = names
        .iter()
        .find(|n| n.ends_with(".rsrc"))
        .unwrap_or_else(|| panic!("no .rsrc among {names:?}"));
    assert_eq!(
        std::fs::read(dir.join(rsrc)).unwrap(),
        fork.to_bytes().unwrap()
    );
    let info = names
        .iter()
        .find(|n| n.ends_with(".info"))
        .unwrap_or_else(|| panic!("no .info among {names:?}"));
    let info = std::fs::read(dir.join(info)).unwrap();
    assert_eq!(&info[65..73], b"APPLFRRT");
    assert_eq!(info[73] & 0x20, 0x20, "hasBundle");
}
