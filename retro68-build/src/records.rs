//! Records of the long runs: `cargo xtask soak` and `cargo xtask fuzz` each leave one JSON
//! file in `docs/records/` (date, commit, the driver blob's hash, seeds, operations or
//! executions, failures), and the long-run tables of `docs/RELIABILITY.md` are generated
//! from those files ([`tables`]), so every figure there is backed by a kept record.
//! `retro68-build/tests/records.rs` fails when the tables and the records disagree.

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the records are kept (relative to the workspace root).
pub const DIR: &str = "docs/records";
/// The document with the generated tables, and its markers.
pub const DOC: &str = "docs/RELIABILITY.md";
pub const BEGIN: &str = "<!-- generated from docs/records/ by `cargo xtask soak`/`fuzz`: begin -->";
pub const END: &str = "<!-- records: end -->";

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// `HEAD`'s commit, with `-dirty` when tracked files differ from it.
pub fn commit(root: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = git(&["rev-parse", "HEAD"]) else {
        return "unknown".into();
    };
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_none_or(|s| !s.is_empty());
    format!("{head}{}", if dirty { "-dirty" } else { "" })
}

/// The SHA-256 of a file, in hex (`None` when it cannot be read).
pub fn sha256_of(path: &Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    let data = std::fs::read(path).ok()?;
    Some(
        Sha256::digest(&data)
            .iter()
            .fold(String::new(), |mut s, b| {
                let _ = write!(s, "{b:02x}");
                s
            }),
    )
}

/// Write `record` (which has `kind` and `date`) to `docs/records/` and regenerate the
/// tables of `docs/RELIABILITY.md`; returns the file written.
pub fn write(root: &Path, record: &Value) -> Result<PathBuf> {
    let kind = record["kind"].as_str().context("a record has a kind")?;
    let date = record["date"].as_str().context("a record has a date")?;
    let commit = record["commit"].as_str().unwrap_or("unknown");
    let dir = root.join(DIR);
    std::fs::create_dir_all(&dir)?;
    let stamp: String = date.chars().filter(char::is_ascii_alphanumeric).collect();
    let path = dir.join(format!(
        "{kind}-{stamp}-{}.json",
        &commit[..commit.len().min(10)]
    ));
    std::fs::write(&path, serde_json::to_string_pretty(record)? + "\n")?;
    update_doc(root)?;
    Ok(path)
}

/// Every record, oldest first.
pub fn read_all(root: &Path) -> Result<Vec<Value>> {
    let dir = root.join(DIR);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        let v: Value =
            serde_json::from_str(&text).with_context(|| format!("{}: not JSON", f.display()))?;
        out.push(v);
    }
    out.sort_by(|a, b| a["date"].as_str().cmp(&b["date"].as_str()));
    Ok(out)
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn short(v: &Value, n: usize) -> String {
    let s = v.as_str().unwrap_or("?");
    s.chars().take(n).collect()
}

/// A commit as the tables show it: 10 digits, and `-dirty` when the tree had changes.
fn commit_cell(v: &Value) -> String {
    let s = v.as_str().unwrap_or("?");
    let dirty = if s.ends_with("-dirty") { "-dirty" } else { "" };
    format!("{}{dirty}", &s[..s.len().min(10)])
}

/// The generated tables: one row per soak run, one row per fuzz target and run.
pub fn tables(records: &[Value]) -> String {
    let mut t = String::new();
    let soaks: Vec<&Value> = records.iter().filter(|r| r["kind"] == "soak").collect();
    let fuzzes: Vec<&Value> = records.iter().filter(|r| r["kind"] == "fuzz").collect();
    let _ = writeln!(
        t,
        "\n**Soak runs** (`cargo xtask soak`; every machine runs the operations):\n"
    );
    if soaks.is_empty() {
        let _ = writeln!(t, "No record yet.");
    } else {
        let _ = writeln!(
            t,
            "| Date (UTC) | Commit | Blob (SHA-256) | Seed | Machines × operations | Reads checked | Writes acknowledged | Power losses | Faults | Result |\n|---|---|---|---:|---:|---:|---:|---:|---:|---|"
        );
        for r in soaks {
            let machines = r["machines"].as_array().map_or(&[][..], |v| v.as_slice());
            let sum = |k: &str| machines.iter().filter_map(|m| m[k].as_u64()).sum::<u64>();
            let result = match r["failure"].as_str() {
                Some(f) => format!("**failed**: {}", f.replace('|', "\\|")),
                None => "passed".into(),
            };
            let _ = writeln!(
                t,
                "| {} | `{}` | `{}` | {} | {} × {} | {} | {} | {} | {} | {result} |",
                short(&r["date"], 16).replace('T', " "),
                commit_cell(&r["commit"]),
                short(&r["blob_sha256"], 12),
                r["seed"].as_u64().map_or("?".into(), |s| s.to_string()),
                machines.len(),
                thousands(r["ops_per_machine"].as_u64().unwrap_or(0)),
                thousands(sum("reads_checked")),
                thousands(sum("writes_acknowledged")),
                thousands(sum("power_losses")),
                thousands(sum("faults")),
            );
        }
    }
    let _ = writeln!(
        t,
        "\n**Fuzz runs** (`cargo xtask fuzz`; libFuzzer's own counts):\n"
    );
    if fuzzes.is_empty() {
        let _ = writeln!(t, "No record yet.");
    } else {
        let _ = writeln!(
            t,
            "| Date (UTC) | Commit | Blob (SHA-256) | Target | Seconds | Executions | Executions/s | Crashes |\n|---|---|---|---|---:|---:|---:|---:|"
        );
        for r in fuzzes {
            for x in r["targets"].as_array().map_or(&[][..], |v| v.as_slice()) {
                let n = |k: &str| x[k].as_u64().map_or("?".into(), thousands);
                let _ = writeln!(
                    t,
                    "| {} | `{}` | `{}` | `{}` | {} | {} | {} | {}{} |",
                    short(&r["date"], 16).replace('T', " "),
                    commit_cell(&r["commit"]),
                    short(&r["blob_sha256"], 12),
                    x["target"].as_str().unwrap_or("?"),
                    r["seconds_per_target"].as_u64().unwrap_or(0),
                    n("executions"),
                    n("executions_per_second"),
                    n("crashes"),
                    if x["finished"] == false {
                        " (did not finish)"
                    } else {
                        ""
                    }
                );
            }
        }
    }
    t
}

/// The document's generated section as the records make it.
pub fn wanted_doc(root: &Path) -> Result<(String, String)> {
    let path = root.join(DOC);
    let doc = std::fs::read_to_string(&path).with_context(|| format!("reading {DOC}"))?;
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        bail!("{DOC} lacks the markers {BEGIN} … {END}");
    };
    let new = format!(
        "{}{BEGIN}\n{}{}",
        &doc[..b],
        tables(&read_all(root)?),
        &doc[e..]
    );
    Ok((doc, new))
}

/// Regenerate the tables of `docs/RELIABILITY.md` from the records.
pub fn update_doc(root: &Path) -> Result<()> {
    let (old, new) = wanted_doc(root)?;
    if old != new {
        std::fs::write(root.join(DOC), new)?;
    }
    Ok(())
}

/// One fuzz target's figures, as `cargo xtask fuzz` read them from libFuzzer.
pub struct FuzzRow {
    pub target: String,
    pub executions: Option<u64>,
    pub executions_per_second: Option<u64>,
    pub crashes: usize,
    pub finished: bool,
}

/// The record of one `cargo xtask fuzz` run.
pub fn fuzz_record(root: &Path, seconds: u64, rows: &[FuzzRow]) -> Value {
    json!({
        "kind": "fuzz",
        "date": now_utc(),
        "commit": commit(root),
        "blob_sha256": sha256_of(&root.join("target/m68k/ferrite-driver.bin")),
        "seconds_per_target": seconds,
        "targets": rows.iter().map(|r| json!({
            "target": r.target,
            "executions": r.executions,
            "executions_per_second": r.executions_per_second,
            "crashes": r.crashes,
            "finished": r.finished,
        })).collect::<Vec<_>>(),
        "failures": rows.iter().filter(|r| r.crashes > 0 || !r.finished).count(),
    })
}

/// One machine of a soak run.
#[derive(Debug, Clone, Default)]
pub struct SoakMachine {
    pub machine: String,
    pub reads_checked: u64,
    pub writes_acknowledged: u64,
    pub requests_failed: u64,
    pub aborted: u64,
    pub power_losses: u64,
    pub faults: u64,
    pub unknown_blocks: u64,
}

/// The record of one soak run (`failure`: the first failure's message; the machines after
/// it did not run).
pub fn soak_record(
    root: &Path,
    blob: &[u8],
    seed: u64,
    ops_per_machine: u64,
    machines: &[SoakMachine],
    failure: Option<&str>,
    seconds: f64,
) -> Value {
    use sha2::{Digest, Sha256};
    let sha = Sha256::digest(blob).iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    });
    json!({
        "kind": "soak",
        "date": now_utc(),
        "commit": commit(root),
        "blob_sha256": sha,
        "blob_bytes": blob.len(),
        "seed": seed,
        "ops_per_machine": ops_per_machine,
        "seconds": seconds.round() as u64,
        "machines": machines.iter().map(|m| json!({
            "machine": m.machine,
            "reads_checked": m.reads_checked,
            "writes_acknowledged": m.writes_acknowledged,
            "requests_failed": m.requests_failed,
            "aborted": m.aborted,
            "power_losses": m.power_losses,
            "faults": m.faults,
            "unknown_blocks": m.unknown_blocks,
        })).collect::<Vec<_>>(),
        "failure": failure,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil_utc() {
        let d = now_utc();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.starts_with("20") && d.ends_with('Z'), "{d}");
        assert_eq!(thousands(10_253_212), "10,253,212");
        assert_eq!(thousands(120), "120");
    }

    #[test]
    fn tables_sum_the_machines_and_name_failures() {
        let r = vec![
            json!({"kind": "soak", "date": "2026-12-08T00:00:00Z", "commit": "abcdef0123456",
                "blob_sha256": "00112233445566778899", "seed": 7, "ops_per_machine": 1000,
                "machines": [
                    {"machine": "a", "reads_checked": 10, "writes_acknowledged": 5,
                     "power_losses": 1, "faults": 2},
                    {"machine": "b", "reads_checked": 20, "writes_acknowledged": 6,
                     "power_losses": 0, "faults": 3}],
                "failure": "b op 3: block 9 lost"}),
            json!({"kind": "fuzz", "date": "2026-12-08T01:00:00Z", "commit": "c",
                "blob_sha256": null, "seconds_per_target": 60,
                "targets": [{"target": "hfs_mdb", "executions": 1234567,
                    "executions_per_second": 20576, "crashes": 0, "finished": true}]}),
        ];
        let t = tables(&r);
        assert!(
            t.contains("| 2026-12-08 00:00 | `abcdef0123` | `001122334455` | 7 | 2 × 1,000 | 30 | 11 | 1 | 5 | **failed**: b op 3: block 9 lost |"),
            "{t}"
        );
        assert!(
            t.contains("| `hfs_mdb` | 60 | 1,234,567 | 20,576 | 0 |"),
            "{t}"
        );
    }
}
