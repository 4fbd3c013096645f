//! Embeds the Ferrite driver blob into the `ferrite` command.
//!
//! The blob is `cargo xtask build`'s `target/m68k/ferrite-driver.bin` (or the file named by
//! `FERRITE_DRIVER_BIN`). When neither exists (a fresh clone, `cargo test --workspace` before
//! any m68k build) an empty blob is embedded and `ferrite init` refuses with a message saying
//! to run `cargo xtask build` first — plain `cargo build` never breaks.

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    println!("cargo::rerun-if-env-changed=FERRITE_DRIVER_BIN");
    let path = match std::env::var_os("FERRITE_DRIVER_BIN") {
        Some(p) => PathBuf::from(p),
        None => manifest.join("../target/m68k/ferrite-driver.bin"),
    };
    // Rerun when the blob appears or changes (a missing file counts as changed, so a later
    // `cargo xtask build` is picked up by the next build).
    println!("cargo::rerun-if-changed={}", path.display());
    let blob = match std::fs::read(&path) {
        Ok(b) => b,
        Err(_) if std::env::var_os("FERRITE_DRIVER_BIN").is_some() => {
            panic!("FERRITE_DRIVER_BIN={}: cannot read it", path.display())
        }
        Err(_) => Vec::new(),
    };
    std::fs::write(out.join("ferrite-driver.bin"), &blob)
        .expect("write OUT_DIR/ferrite-driver.bin");
    let source = if blob.is_empty() {
        String::new()
    } else {
        path.display().to_string()
    };
    std::fs::write(out.join("ferrite-driver.source"), source)
        .expect("write OUT_DIR/ferrite-driver.source");
}
