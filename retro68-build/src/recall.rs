//! Verifier recall (`cargo xtask codegen-recall`): how many of the miscompiles the binary
//! repairs fix does the verifier flag when the repairs are off?
//!
//! A case (of the codegen suite, or a generated program of [`crate::fuzzrun`]) is **known
//! bad** when, built without the binary repairs (flag-hazard, join and 68000 repairs; the IR
//! rewrites stay, they are how every crate is compiled), its output differs from the host's on
//! at least one of the five targets, and built with them it agrees on all five. It is
//! **flagged** when, on the emulated 68000, it executes an instruction the verifier reports in
//! the build without repairs. Recall = flagged / known bad. A flagged site that a case executes
//! is not proof that this site caused the difference, so the figure is an upper bound on what
//! the rules explain; the cases that are not flagged are certainly missed.

use anyhow::{Context, Result, bail};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The result for one set of cases.
#[derive(Debug, Default)]
pub struct Recall {
    pub what: String,
    pub cases: usize,
    /// Names of the known-bad cases, and whether each is flagged.
    pub known_bad: Vec<(String, bool)>,
    /// Cases that differ even with the repairs (not counted).
    pub bad_with_repair: usize,
    /// Verifier findings in the build without repairs.
    pub findings: usize,
    /// Cases that run a flagged instruction and still agree with the host without repairs.
    pub flagged_but_right: usize,
}

impl Recall {
    pub fn flagged(&self) -> usize {
        self.known_bad.iter().filter(|(_, f)| *f).count()
    }

    pub fn summary(&self) -> String {
        let missed: Vec<&str> = self
            .known_bad
            .iter()
            .filter(|(_, f)| !f)
            .map(|(n, _)| n.as_str())
            .collect();
        let mut s = format!(
            "verifier recall ({}): {}/{} known-bad cases flagged ({} cases; {} verifier findings without the repairs; {} cases run a flagged instruction and agree with the host anyway; {} differ even with the repairs)",
            self.what,
            self.flagged(),
            self.known_bad.len(),
            self.cases,
            self.findings,
            self.flagged_but_right,
            self.bad_with_repair
        );
        if !missed.is_empty() {
            s.push_str(&format!("\n  not flagged: {}", missed.join(", ")));
        }
        s
    }
}

/// Per case index: which flagged offsets it executed (`codegen-fuzz --executed-sites`).
pub fn executed_sites(
    sites_runner: Command,
    work: &Path,
    flat: &Path,
    addrs: &[u32],
) -> Result<Vec<BTreeSet<u32>>> {
    std::fs::create_dir_all(work)?;
    let sites = work.join("sites.txt");
    let text: String = addrs.iter().map(|a| format!("{a:x}\n")).collect();
    std::fs::write(&sites, text)?;
    let mut cmd = sites_runner;
    let out = cmd
        .arg("--executed-sites")
        .arg(&sites)
        .arg(flat)
        .output()
        .context("could not run codegen-fuzz --executed-sites")?;
    if !out.status.success() {
        bail!(
            "codegen-fuzz --executed-sites failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut per_case = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(rest) = line.strip_prefix("SITES ") else {
            continue;
        };
        let mut w = rest.split_whitespace();
        let i: usize = w
            .next()
            .and_then(|i| i.parse().ok())
            .context("bad SITES line")?;
        if i != per_case.len() {
            bail!("SITES lines out of order");
        }
        per_case.push(
            w.map(|a| u32::from_str_radix(a, 16))
                .collect::<Result<_, _>>()?,
        );
    }
    Ok(per_case)
}

/// Combine: `names[i]` is case i; `bad_without`/`bad_with` the names differing on any target.
pub fn compute(
    what: &str,
    names: &[String],
    bad_without: &BTreeSet<String>,
    bad_with: &BTreeSet<String>,
    sites: &[BTreeSet<u32>],
    findings: usize,
) -> Result<Recall> {
    if sites.len() != names.len() {
        bail!(
            "{what}: {} cases ran for the sites, {} on the host",
            sites.len(),
            names.len()
        );
    }
    let mut r = Recall {
        what: what.to_string(),
        cases: names.len(),
        findings,
        ..Recall::default()
    };
    for (i, name) in names.iter().enumerate() {
        let flagged = !sites[i].is_empty();
        if bad_with.contains(name) {
            r.bad_with_repair += 1;
        } else if bad_without.contains(name) {
            r.known_bad.push((name.clone(), flagged));
        } else if flagged {
            r.flagged_but_right += 1;
        }
    }
    Ok(r)
}

/// Case names that differ on any target, from a `codegen-conformance --write-known` file.
pub fn read_known(path: &Path) -> Result<BTreeSet<String>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':').map(|(n, _)| n.trim().to_string()))
        .collect())
}

/// The mismatching program names of a generated batch, by index → name.
pub fn names_of(mismatches: &BTreeMap<u32, Vec<String>>, names: &[String]) -> BTreeSet<String> {
    mismatches
        .keys()
        .filter_map(|&k| names.get(k as usize).cloned())
        .collect()
}
