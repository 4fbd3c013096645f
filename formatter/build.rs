//! Embeds the m68k artifacts `ferrite init` writes onto a disk into the `ferrite` command:
//!
//! - the Ferrite driver blob, `cargo xtask build`'s `target/m68k/ferrite-driver.bin` (or the
//!   file named by `FERRITE_DRIVER_BIN`);
//! - the Ferrite Setup application as MacBinary II, `target/m68k/FerriteSetup.bin` (or the
//!   file named by `FERRITE_SETUP_BIN`).
//!
//! When a file is missing (a fresh clone, `cargo test --workspace` before any m68k build) an
//! empty file is embedded and `ferrite init` refuses with a message saying to run
//! `cargo xtask build` first — plain `cargo build` never breaks. A file named by the
//! environment variable must exist.

use std::path::{Path, PathBuf};

/// Copy `default` (relative to the workspace root) or `$env` into `OUT_DIR/name`, empty when
/// the default is missing; `OUT_DIR/name.source` holds the path embedded ("" for none).
fn embed(out: &Path, manifest: &Path, env: &str, default: &str, name: &str) {
    println!("cargo::rerun-if-env-changed={env}");
    let given = std::env::var_os(env);
    let path = match &given {
        Some(p) => PathBuf::from(p),
        None => manifest.join("..").join(default),
    };
    // Rerun when the file appears or changes (a missing file counts as changed, so a later
    // `cargo xtask build` is picked up by the next build).
    println!("cargo::rerun-if-changed={}", path.display());
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if given.is_some() => panic!("{env}={}: cannot read it: {e}", path.display()),
        Err(_) => Vec::new(),
    };
    std::fs::write(out.join(name), &bytes).unwrap_or_else(|e| panic!("write OUT_DIR/{name}: {e}"));
    let source = if bytes.is_empty() {
        String::new()
    } else {
        path.display().to_string()
    };
    std::fs::write(out.join(format!("{name}.source")), source)
        .unwrap_or_else(|e| panic!("write OUT_DIR/{name}.source: {e}"));
}

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    embed(
        &out,
        &manifest,
        "FERRITE_DRIVER_BIN",
        "target/m68k/ferrite-driver.bin",
        "ferrite-driver.bin",
    );
    embed(
        &out,
        &manifest,
        "FERRITE_SETUP_BIN",
        "target/m68k/FerriteSetup.bin",
        "FerriteSetup.bin",
    );
}
