//! The figures the README and the docs quote, checked against what the build and the code
//! say, so a quoted figure cannot go stale.
//!
//! A figure in a Markdown file stands between two markers naming it:
//!
//! ```text
//! the blob is <!-- figure:driver-blob-bytes -->16,208<!-- /figure --> bytes
//! ```
//!
//! (the markers are HTML comments, so they do not show when the page is rendered).
//! `cargo xtask test` computes every figure ([`actual`]) and fails on a marker whose text
//! differs or whose name is unknown, naming the file, line and the true value.

use anyhow::{Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const OPEN: &str = "<!-- figure:";
const CLOSE: &str = "<!-- /figure -->";

/// The files that may quote figures: the README, ARCHITECTURE.md, every Markdown file in
/// docs/ and emulator-images/README.md.
pub(crate) fn quoting_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = vec![
        root.join("README.md"),
        root.join("ARCHITECTURE.md"),
        root.join("emulator-images/README.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    Ok(files)
}

/// `n` with a comma between thousands, as the docs write numbers (16,208).
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "a, b and c".
fn listing(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The names of the figures [`actual`] computes.
pub(crate) const NAMES: [&str; 7] = [
    "driver-blob-bytes",
    "driver-blob-max",
    "setup-app-bytes",
    "codegen-cases",
    "driver-seeds",
    "machine-profiles",
    "machine-profile-count",
];

/// Every figure the docs may quote, computed from the built artifacts in `m68k_dir` and the
/// code.
pub(crate) fn actual(m68k_dir: &Path) -> Result<BTreeMap<&'static str, String>> {
    let blob = std::fs::metadata(m68k_dir.join("ferrite-driver.bin"))
        .map_err(|e| anyhow::anyhow!("{}: {e}", m68k_dir.join("ferrite-driver.bin").display()))?
        .len() as usize;
    let setup = std::fs::metadata(m68k_dir.join("FerriteSetup.bin"))
        .map_err(|e| anyhow::anyhow!("{}: {e}", m68k_dir.join("FerriteSetup.bin").display()))?
        .len() as usize;
    let machines: Vec<&str> = ferrite_emu::profile::MachineProfile::ALL
        .iter()
        .map(|m| m.name)
        .collect();
    let mut f = BTreeMap::new();
    f.insert("driver-blob-bytes", thousands(blob));
    f.insert(
        "driver-blob-max",
        thousands(retro68_build::pipeline::DRIVER_BLOB_MAX),
    );
    f.insert("setup-app-bytes", thousands(setup));
    f.insert("codegen-cases", thousands(codegen_suite::CASES.len()));
    f.insert(
        "driver-seeds",
        (crate::testrun::EXTRA_SEEDS + 1).to_string(),
    );
    f.insert("machine-profiles", listing(&machines));
    f.insert("machine-profile-count", machines.len().to_string());
    if !f
        .keys()
        .eq(NAMES.iter().collect::<std::collections::BTreeSet<_>>())
    {
        bail!("figures::NAMES does not list the figures `actual` computes");
    }
    Ok(f)
}

/// One quoted figure that is not the true one.
#[derive(Debug, PartialEq)]
pub(crate) struct Stale {
    pub line: usize,
    pub name: String,
    pub quoted: String,
    /// `None`: no figure has this name.
    pub actual: Option<String>,
}

/// The figures quoted in `text` that differ from `actual` (or that name no figure); also the
/// number of figures quoted.
pub(crate) fn check_text(
    text: &str,
    actual: &BTreeMap<&'static str, String>,
) -> Result<(usize, Vec<Stale>)> {
    let mut stale = Vec::new();
    let mut quoted = 0;
    let mut rest = text;
    let mut offset = 0;
    while let Some(at) = rest.find(OPEN) {
        let start = offset + at;
        let after = &text[start + OPEN.len()..];
        let line = text[..start].lines().count().max(1);
        let Some(name_end) = after.find("-->") else {
            bail!("line {line}: a figure marker without its closing `-->`");
        };
        let name = after[..name_end].trim();
        let body = &after[name_end + 3..];
        let Some(body_end) = body.find(CLOSE) else {
            bail!("line {line}: figure `{name}` has no {CLOSE}");
        };
        let value = &body[..body_end];
        quoted += 1;
        match actual.get(name) {
            Some(a) if a == value => {}
            a => stale.push(Stale {
                line,
                name: name.to_string(),
                quoted: value.to_string(),
                actual: a.cloned(),
            }),
        }
        let consumed = (start + OPEN.len() + name_end + 3 + body_end + CLOSE.len()) - offset;
        rest = &rest[consumed..];
        offset += consumed;
    }
    Ok((quoted, stale))
}

/// The `cargo xtask test` step: every quoting file checked; fails naming each stale figure.
pub(crate) fn check(root: &Path, m68k_dir: &Path) -> Result<()> {
    let actual = actual(m68k_dir)?;
    let mut quoted = 0;
    let mut problems = Vec::new();
    for file in quoting_files(root)? {
        let text = std::fs::read_to_string(&file)?;
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        let (n, stale) = check_text(&text, &actual).map_err(|e| anyhow::anyhow!("{rel}: {e}"))?;
        quoted += n;
        for s in stale {
            problems.push(match s.actual {
                Some(a) => format!(
                    "{rel}:{}: figure `{}` says {:?}, the build and code say {a:?}",
                    s.line, s.name, s.quoted
                ),
                None => format!(
                    "{rel}:{}: figure `{}` is not one xtask knows (retro68-build/src/figures.rs)",
                    s.line, s.name
                ),
            });
        }
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("{p}");
        }
        bail!(
            "{} of {quoted} quoted figures are stale; correct the text between the markers",
            problems.len()
        );
    }
    println!("figures: {quoted} quoted figures in the docs match the build and the code");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> BTreeMap<&'static str, String> {
        BTreeMap::from([("driver-blob-bytes", "16,208".to_string())])
    }

    #[test]
    fn numbers_are_written_with_thousands_commas() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(16_208), "16,208");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(listing(&["a", "b", "c"]), "a, b and c");
    }

    #[test]
    fn a_true_figure_passes_and_a_stale_or_unknown_one_is_named() {
        let good = "x\nblob <!-- figure:driver-blob-bytes -->16,208<!-- /figure --> bytes\n";
        assert_eq!(check_text(good, &figures()).unwrap(), (1, vec![]));
        let bad = "x\n\nblob <!-- figure:driver-blob-bytes -->16,264<!-- /figure -->, \
                   <!-- figure:nothing -->1<!-- /figure -->\n";
        let (n, stale) = check_text(bad, &figures()).unwrap();
        assert_eq!(n, 2);
        assert_eq!(
            stale,
            vec![
                Stale {
                    line: 3,
                    name: "driver-blob-bytes".into(),
                    quoted: "16,264".into(),
                    actual: Some("16,208".into()),
                },
                Stale {
                    line: 3,
                    name: "nothing".into(),
                    quoted: "1".into(),
                    actual: None,
                },
            ]
        );
        assert!(check_text("<!-- figure:driver-blob-bytes -->1", &figures()).is_err());
    }

    /// Every figure the repository's docs quote is one xtask computes (the values are
    /// checked by `cargo xtask test`, which has the artifacts).
    #[test]
    fn the_docs_quote_only_known_figures() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let names: BTreeMap<&'static str, String> =
            NAMES.iter().map(|n| (*n, String::new())).collect();
        let mut quoted = 0;
        for file in quoting_files(&root).unwrap() {
            let text = std::fs::read_to_string(&file).unwrap();
            let (n, stale) = check_text(&text, &names).unwrap();
            quoted += n;
            let unknown: Vec<_> = stale.iter().filter(|s| s.actual.is_none()).collect();
            assert!(unknown.is_empty(), "{}: {unknown:?}", file.display());
        }
        assert!(quoted >= 5, "the docs quote {quoted} checked figures");
    }
}
