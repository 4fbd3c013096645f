//! The second, independent 68k core: QEMU's user-mode emulator (`qemu-m68k`, Debian package
//! `qemu-user`) running a freestanding m68k Linux executable.
//!
//! The codegen suite's `linux` build runs every case and prints one line per case,
//! `<index> <lowercase hex of the output>` (or `<index> ERR`), then `END <count>`, and exits 0.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// QEMU CPU models we run.
pub const QEMU_CPUS: &[&str] = &["m68000", "m68040"];

/// Output of one QEMU run of the suite.
#[derive(Debug, Clone, Default)]
pub struct QemuOutput {
    /// Case index → output bytes (`None` = the case reported ERR).
    pub cases: BTreeMap<u32, Option<Vec<u8>>>,
    /// The count on the `END` line, if the program got that far.
    pub end_count: Option<u32>,
    /// Exit status code (`None` if killed by a signal).
    pub exit_code: Option<i32>,
    /// What QEMU printed on stderr (e.g. "illegal instruction").
    pub stderr: String,
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

/// Parse the suite's stdout.
pub fn parse_output(stdout: &str) -> Result<(BTreeMap<u32, Option<Vec<u8>>>, Option<u32>), String> {
    let mut cases = BTreeMap::new();
    let mut end = None;
    for (n, line) in stdout.lines().enumerate() {
        let mut parts = line.splitn(2, ' ');
        let first = parts.next().unwrap_or("");
        let rest = parts.next().unwrap_or("");
        if first == "END" {
            end = Some(rest.trim().parse().map_err(|_| format!("line {}: bad END line `{line}`", n + 1))?);
            continue;
        }
        let idx: u32 = first.parse().map_err(|_| format!("line {}: unexpected output `{line}`", n + 1))?;
        let val = if rest == "ERR" {
            None
        } else {
            Some(unhex(rest).ok_or_else(|| format!("line {}: bad hex for case {idx}", n + 1))?)
        };
        if cases.insert(idx, val).is_some() {
            return Err(format!("case {idx} reported twice"));
        }
    }
    Ok((cases, end))
}

/// Is `qemu-m68k` installed?
pub fn available() -> bool {
    Command::new("qemu-m68k").arg("-version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// Run `elf` under `qemu-m68k -cpu <cpu>` with a timeout.
pub fn run(elf: &Path, cpu: &str, timeout: Duration) -> Result<QemuOutput, String> {
    if !available() {
        return Err("qemu-m68k is not installed (Debian package qemu-user); `cargo xtask test` installs it".into());
    }
    let out = Command::new("timeout")
        .arg("--signal=KILL")
        .arg(format!("{}", timeout.as_secs().max(1)))
        .arg("qemu-m68k")
        .args(["-cpu", cpu])
        .arg(elf)
        .output()
        .map_err(|e| format!("could not start qemu-m68k: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (cases, end_count) = parse_output(&stdout)?;
    Ok(QemuOutput {
        cases,
        end_count,
        exit_code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_suite_output() {
        let (cases, end) = parse_output("0 00ff\n1 ERR\n2 \nEND 3\n").unwrap();
        assert_eq!(cases[&0], Some(vec![0, 0xff]));
        assert_eq!(cases[&1], None);
        assert_eq!(cases[&2], Some(vec![]));
        assert_eq!(end, Some(3));
        assert!(parse_output("x 00\n").is_err());
        assert!(parse_output("0 0\n").is_err());
        assert!(parse_output("0 00\n0 00\n").is_err());
    }
}
