//! Embeds the driver blob Ferrite Setup installs: `cargo xtask build`'s
//! `target/m68k/ferrite-driver.bin` (or the file named by `FERRITE_DRIVER_BIN`, which
//! `cargo xtask build` sets to the blob it has just built — the driver is built before the
//! application). When the default file is missing (a fresh clone, host tests before any m68k
//! build) an empty blob is embedded and Initialize / Update Driver refuse in words; a file
//! named by the variable must exist.

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    println!("cargo::rerun-if-env-changed=FERRITE_DRIVER_BIN");
    let given = std::env::var_os("FERRITE_DRIVER_BIN");
    let path = match &given {
        Some(p) => PathBuf::from(p),
        None => manifest.join("../target/m68k/ferrite-driver.bin"),
    };
    println!("cargo::rerun-if-changed={}", path.display());
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if given.is_some() => {
            panic!("FERRITE_DRIVER_BIN={}: cannot read it: {e}", path.display())
        }
        Err(_) => Vec::new(),
    };
    std::fs::write(out.join("ferrite-driver.bin"), &bytes)
        .expect("write OUT_DIR/ferrite-driver.bin");
}
