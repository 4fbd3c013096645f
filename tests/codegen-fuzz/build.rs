//! The programs of one batch come from the file named by `FERRITE_CODEGEN_FUZZ_PROGRAMS`
//! (written by `cargo xtask fuzz-codegen`); without it the crate has no programs.
use std::path::PathBuf;

const ENV: &str = "FERRITE_CODEGEN_FUZZ_PROGRAMS";

fn main() {
    println!("cargo:rerun-if-env-changed={ENV}");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("programs.rs");
    let text = match std::env::var_os(ENV).filter(|p| !p.is_empty()) {
        Some(path) => {
            let path = PathBuf::from(path);
            println!("cargo:rerun-if-changed={}", path.display());
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{ENV}={}: {e}", path.display()))
        }
        None => "pub static PROGRAMS: &[crate::Program] = &[];\n".to_string(),
    };
    // Written only when it changes, so that cargo's fingerprint stays put otherwise.
    if std::fs::read_to_string(&out).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&out, text).expect("writing programs.rs");
    }
}
