//! The ready images of `emulator-images/` (`cargo xtask images`): the committed manifest is
//! well formed and documented, and its smallest image, re-made from its manifest line with
//! this tree's `ferrite`, has the recorded size and SHA-256 (twice), passes `ferrite check`
//! and holds the Ferrite driver and Ferrite Setup.

use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

struct Line {
    path: String,
    bytes: u64,
    sha256: String,
    command: Vec<String>,
}

struct Manifest {
    inputs: Vec<(String, u64, String)>,
    images: Vec<Line>,
}

fn manifest() -> Manifest {
    let text = std::fs::read_to_string(repo().join("emulator-images/manifest.txt"))
        .expect("emulator-images/manifest.txt: run `cargo xtask images`");
    let mut m = Manifest {
        inputs: Vec::new(),
        images: Vec::new(),
    };
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let bytes = |s: &str| {
            s.parse::<u64>()
                .unwrap_or_else(|_| panic!("manifest line {}: {s:?} is not a size", n + 1))
        };
        let sha = |s: &str| {
            assert!(
                s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()),
                "manifest line {}: {s:?} is not a SHA-256",
                n + 1
            );
            s.to_string()
        };
        match f[..] {
            ["input", name, b, h] => m.inputs.push((name.into(), bytes(b), sha(h))),
            ["image", path, b, h, command, _for_whom] => m.images.push(Line {
                path: path.into(),
                bytes: bytes(b),
                sha256: sha(h),
                command: command.split(' ').map(str::to_string).collect(),
            }),
            _ => panic!(
                "manifest line {}: {line:?} is neither input nor image",
                n + 1
            ),
        }
    }
    m
}

fn sha256(path: &Path) -> (u64, String) {
    let mut f = std::fs::File::open(path).unwrap();
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0;
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        total += n as u64;
    }
    (
        total,
        h.finalize().iter().map(|b| format!("{b:02x}")).collect(),
    )
}

fn ferrite(dir: &Path, args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ferrite"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ferrite");
    assert!(
        out.status.success(),
        "`ferrite {}` failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_manifest_lists_reproducible_documented_images() {
    let m = manifest();
    assert!(
        m.inputs
            .iter()
            .map(|i| i.0.as_str())
            .eq(["ferrite-driver.bin", "FerriteSetup.bin"]),
        "the manifest records the driver and Ferrite Setup the images hold"
    );
    assert!(!m.images.is_empty());
    let readme = std::fs::read_to_string(repo().join("emulator-images/README.md")).unwrap();
    let gitignore = std::fs::read_to_string(repo().join(".gitignore")).unwrap();
    for l in &m.images {
        let name = Path::new(&l.path).file_name().unwrap().to_str().unwrap();
        assert_eq!(l.command[..3], ["ferrite", "init", name], "{}", l.path);
        assert!(
            l.command.iter().any(|a| a == "--date"),
            "{}: without --date the image is not reproducible",
            l.path
        );
        assert!(l.bytes.is_multiple_of(512), "{}", l.path);
        assert!(
            readme.contains(&format!("`{}`", l.path)),
            "emulator-images/README.md does not mention `{}`",
            l.path
        );
        let ext = Path::new(&l.path).extension().unwrap().to_str().unwrap();
        assert!(
            gitignore.contains(&format!("/emulator-images/**/*.{ext}")),
            ".gitignore does not keep the .{ext} images out of git"
        );
    }
}

#[test]
#[ignore = "needs the m68k driver and Ferrite Setup: run `cargo xtask test`"]
fn the_smallest_ready_image_is_remade_byte_for_byte() {
    let m = manifest();
    // The images hold the driver and the application this tree builds.
    let m68k = std::env::var_os("FERRITE_M68K_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/m68k"));
    for (name, bytes, sha) in &m.inputs {
        let (b, h) = sha256(&m68k.join(name));
        assert!(
            b == *bytes && h == *sha,
            "{name} is not the one emulator-images/manifest.txt records ({b} bytes, {h}): \
             the driver or Ferrite Setup changed, so the ready images did too; \
             run `cargo xtask images` and commit emulator-images/manifest.txt"
        );
    }
    let l = m.images.iter().min_by_key(|l| l.bytes).unwrap();
    let name = Path::new(&l.path).file_name().unwrap().to_str().unwrap();
    let mut hashes = Vec::new();
    for run in 0..2 {
        let dir = std::env::temp_dir().join(format!("ferrite-images-{}-{run}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        ferrite(&dir, &l.command[1..]);
        let disk = dir.join(name);
        hashes.push(sha256(&disk));
        if run == 0 {
            let d = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
            assert!(ferrite(&dir, &d(&["check", name])).contains("no problems"));
            let info = ferrite(&dir, &d(&["info", name]));
            assert!(info.contains("Ferrite"), "{info}");
            assert!(ferrite(&dir, &d(&["ls", name])).contains("Ferrite Setup"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert_eq!(
        hashes[0],
        hashes[1],
        "two runs of `{}` differ",
        l.command.join(" ")
    );
    assert_eq!(
        hashes[0],
        (l.bytes, l.sha256.clone()),
        "`{}` does not make the {} the manifest records: run `cargo xtask images` and commit emulator-images/manifest.txt",
        l.command.join(" "),
        l.path
    );
}
