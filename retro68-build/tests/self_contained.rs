//! The repository is self-contained: no tracked file refers to documents outside it (the
//! facts it relies on are in `docs/mac-facts.md`) or to an absolute path of the machine it
//! was written on.

use std::path::Path;
use std::process::Command;

/// Spelled in pieces so that this file does not match itself.
fn forbidden() -> Vec<String> {
    vec![
        ["shared", "/docs"].concat(),
        ["mac-driver", "-facts"].concat(),
        ["mac-app-hfs", "-facts"].concat(),
        ["/wo", "rk/"].concat(),
    ]
}

#[test]
fn no_tracked_file_refers_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output();
    // Without git or outside a checkout there is no list of tracked files to check: that is
    // a failure with its reason, never a pass.
    let out = match out {
        Ok(o) if o.status.success() => o.stdout,
        Ok(o) => panic!(
            "`git ls-files` failed in {} ({}): the check needs a git checkout of Ferrite: {}",
            root.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => panic!("cannot run git ({e}): the check needs git and a checkout of Ferrite"),
    };
    assert!(
        out.split(|&b| b == 0).any(|n| n == b"Cargo.toml"),
        "`git ls-files` in {} does not list Cargo.toml: not Ferrite's checkout",
        root.display()
    );
    let patterns = forbidden();
    let mut found = Vec::new();
    for name in out.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        // A tracked file deleted in the work tree is not there to read.
        let Ok(bytes) = std::fs::read(root.join(&name)) else {
            continue;
        };
        for p in &patterns {
            let p = p.as_bytes();
            for (i, w) in bytes.windows(p.len()).enumerate() {
                if w == p {
                    let line = 1 + bytes[..i].iter().filter(|&&b| b == b'\n').count();
                    found.push(format!("{name}:{line}: {}", String::from_utf8_lossy(p)));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "tracked files refer to documents or paths outside the repository (state the fact in \
         docs/mac-facts.md with its public source and cite that instead):\n{}",
        found.join("\n")
    );
}
