//! Tests that did not check what they name are counted, never silent: such a test calls
//! [`skipped`] with its reason, which prints `SKIPPED`, leaves a file in `target/skipped/`,
//! and fails the test when the `CI` environment variable is set (a CI run skips nothing).
//! `cargo xtask test` empties the folder first ([`clear`]) and prints the count and the
//! reasons at the end ([`summary`]).

use anyhow::Result;
use std::path::{Path, PathBuf};

/// `target/skipped/` of the workspace.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .join("target/skipped")
}

/// The test `test` did not run what it checks, for `reason`.
pub fn skipped(test: &str, reason: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{test}: SKIPPED in CI, which must run every check: {reason}");
    }
    eprintln!("SKIPPED {test}: {reason}");
    let d = dir();
    let _ = std::fs::create_dir_all(&d);
    let name: String = test
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let _ = std::fs::write(
        d.join(format!("{name}-{}.txt", std::process::id())),
        format!("{test}: {reason}\n"),
    );
}

/// Empty `target/skipped/`.
pub fn clear() -> Result<()> {
    let d = dir();
    if d.exists() {
        std::fs::remove_dir_all(&d)?;
    }
    Ok(())
}

/// The skipped tests recorded since [`clear`], one line each.
pub fn list() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .map(|s| s.trim().to_string())
        .collect();
    out.sort();
    out
}

/// Print the count of skipped tests and their reasons (`cargo xtask test`'s summary).
pub fn summary() {
    let l = list();
    println!("xtask test: {} SKIPPED", l.len());
    for s in l {
        println!("  SKIPPED {s}");
    }
}
