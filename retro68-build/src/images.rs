//! `cargo xtask images`: the ready disk images in `emulator-images/` and their manifest.
//!
//! Every image is `ferrite init` run in the image's folder with a fixed `--date`, so the same
//! driver and Ferrite Setup give the same bytes on every machine. The images are git-ignored;
//! `emulator-images/manifest.txt` (committed) lists each one's path, size, SHA-256 and the
//! command that makes it, plus the SHA-256 of the driver and application inside. The test
//! `formatter/tests/images.rs` re-makes the smallest image from its manifest line and checks
//! the bytes, so the manifest cannot drift from what the tree builds.

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The date every ready image's volume carries (UTC).
pub const IMAGE_DATE: &str = "2026-12-01";

/// The manifest, relative to the workspace root.
pub const MANIFEST: &str = "emulator-images/manifest.txt";

/// One ready image.
#[derive(Debug, Clone, Copy)]
pub struct ReadyImage {
    /// Path under `emulator-images/`.
    pub path: &'static str,
    /// `--size` as ferrite takes it.
    pub size: &'static str,
    /// Who it is for.
    pub for_whom: &'static str,
}

/// The ready images. Sizes stay modest: every byte is hashed by `cargo xtask images`, and a
/// System and applications fit in a few hundred MB; users who want more run `ferrite init`.
pub const READY_IMAGES: &[ReadyImage] = &[
    ReadyImage {
        path: "bluescsi-zuluscsi/500M/HD00_512.hda",
        size: "500M",
        for_whom: "BlueSCSI, ZuluSCSI (SD card, SCSI ID 0)",
    },
    ReadyImage {
        path: "bluescsi-zuluscsi/1G/HD00_512.hda",
        size: "1G",
        for_whom: "BlueSCSI, ZuluSCSI (SD card, SCSI ID 0)",
    },
    ReadyImage {
        path: "bluescsi-zuluscsi/2G/HD00_512.hda",
        size: "2G",
        for_whom: "BlueSCSI, ZuluSCSI (SD card, SCSI ID 0)",
    },
    ReadyImage {
        path: "scsi2sd/ferrite-1G.img",
        size: "1G",
        for_whom: "SCSI2SD (raw, written to the card)",
    },
    ReadyImage {
        path: "piscsi/ferrite-1G.hds",
        size: "1G",
        for_whom: "PiSCSI (attach as a hard disk)",
    },
    ReadyImage {
        path: "qemu-q800/ferrite-1G.img",
        size: "1G",
        for_whom: "QEMU q800 (`ferrite qemu`)",
    },
    ReadyImage {
        path: "mame/ferrite-500M.hdv",
        size: "500M",
        for_whom: "MAME (raw hard disk image)",
    },
    ReadyImage {
        path: "snow/ferrite-250M.hda",
        size: "250M",
        for_whom: "Snow (device image)",
    },
];

/// SHA-256 of a file, read in 1 MiB pieces (holes in a sparse file read as zeros).
pub fn sha256_file(path: &Path) -> Result<(u64, String)> {
    let mut f =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = f
            .read(&mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        total += n as u64;
    }
    let hex = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok((total, hex))
}

/// The `ferrite` arguments that make `img` in its folder.
pub fn init_args(img: &ReadyImage) -> Vec<String> {
    let name = Path::new(img.path)
        .file_name()
        .and_then(|n| n.to_str())
        .expect("file name");
    vec![
        "init".into(),
        name.into(),
        "--size".into(),
        img.size.into(),
        "--date".into(),
        IMAGE_DATE.into(),
    ]
}

/// What `cargo xtask images` made.
pub struct Made {
    pub image: ReadyImage,
    pub bytes: u64,
    pub sha256: String,
    /// Bytes the file takes on disk (it is sparse).
    pub allocated: u64,
}

fn allocated(path: &Path) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).map_or(0, |m| m.blocks() * 512)
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(path).map_or(0, |m| m.len())
    }
}

fn run(ferrite: &Path, dir: &Path, args: &[String]) -> Result<String> {
    let out = Command::new(ferrite)
        .args(args)
        .current_dir(dir)
        .output()
        .with_context(|| format!("could not start {}", ferrite.display()))?;
    if !out.status.success() {
        bail!(
            "`ferrite {}` in {} failed:\n{}{}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Make every ready image under `out_dir` with the `ferrite` binary, check each with
/// `ferrite check`, and hash it.
pub fn make_all(ferrite: &Path, out_dir: &Path) -> Result<Vec<Made>> {
    let mut made = Vec::new();
    for img in READY_IMAGES {
        let path = out_dir.join(img.path);
        let dir = path.parent().expect("folder").to_path_buf();
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        if path.exists() {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove the old {}", path.display()))?;
        }
        run(ferrite, &dir, &init_args(img))?;
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let check = run(ferrite, &dir, &["check".into(), name.clone()])?;
        if !check.contains("no problems") {
            bail!(
                "`ferrite check {}` found problems:\n{check}",
                path.display()
            );
        }
        let ls = run(ferrite, &dir, &["ls".into(), name])?;
        if !ls.contains("Ferrite Setup") {
            bail!("{} has no Ferrite Setup:\n{ls}", path.display());
        }
        let (bytes, sha256) = sha256_file(&path)?;
        made.push(Made {
            image: *img,
            bytes,
            sha256,
            allocated: allocated(&path),
        });
    }
    Ok(made)
}

/// The manifest text for `made`, with the driver and application they hold.
pub fn manifest(made: &[Made], inputs: &[(&str, u64, String)]) -> String {
    let mut s = String::from(
        "# Ferrite's ready disk images. `cargo xtask images` makes them in this folder (they are\n\
         # git-ignored) and writes this file; `cargo xtask test` re-makes the smallest and checks it.\n\
         # Each image is the `ferrite init` command on its line, run in the image's folder: the\n\
         # Ferrite driver and Ferrite Setup below, one empty HFS volume \"Macintosh HD\", fixed dates.\n\
         # Columns are separated by tabs. Check a file with `sha256sum FILE`.\n\
         #\n\
         # input<TAB>file<TAB>bytes<TAB>sha256\n",
    );
    for (name, bytes, sha) in inputs {
        s += &format!("input\t{name}\t{bytes}\t{sha}\n");
    }
    s += "#\n# image<TAB>path<TAB>bytes<TAB>sha256<TAB>command<TAB>for\n";
    for m in made {
        s += &format!(
            "image\t{}\t{}\t{}\tferrite {}\t{}\n",
            m.image.path,
            m.bytes,
            m.sha256,
            init_args(&m.image).join(" "),
            m.image.for_whom
        );
    }
    s
}

/// `cargo xtask images` after the build: make the images with `ferrite`, write the manifest.
pub fn images(root: &Path, ferrite: &Path, m68k_dir: &Path) -> Result<PathBuf> {
    let out_dir = root.join("emulator-images");
    let made = make_all(ferrite, &out_dir)?;
    let mut inputs = Vec::new();
    for name in ["ferrite-driver.bin", "FerriteSetup.bin"] {
        let (bytes, sha) = sha256_file(&m68k_dir.join(name))?;
        inputs.push((name, bytes, sha));
    }
    let text = manifest(&made, &inputs);
    let path = root.join(MANIFEST);
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    for m in &made {
        println!(
            "{:40} {:>6} MiB ({:>4} KiB on disk)  {}",
            m.image.path,
            m.bytes >> 20,
            m.allocated >> 10,
            m.image.for_whom
        );
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_named_for_their_device() {
        for img in READY_IMAGES {
            let p = Path::new(img.path);
            let name = p.file_name().unwrap().to_str().unwrap();
            let ext = p.extension().unwrap().to_str().unwrap();
            match p.components().next().unwrap().as_os_str().to_str().unwrap() {
                "bluescsi-zuluscsi" => assert_eq!(name, "HD00_512.hda"),
                "piscsi" => assert_eq!(ext, "hds"),
                "mame" => assert_eq!(ext, "hdv"),
                "scsi2sd" | "qemu-q800" => assert_eq!(ext, "img"),
                "snow" => assert_eq!(ext, "hda"),
                other => panic!("{other}: a device without naming rules here"),
            }
            assert!(init_args(img).contains(&"--date".to_string()));
        }
    }

    #[test]
    fn sha256_of_a_known_text() {
        let dir = std::env::temp_dir().join(format!("xtask-sha-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("abc");
        std::fs::write(&f, b"abc").unwrap();
        let (n, h) = sha256_file(&f).unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            h,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
