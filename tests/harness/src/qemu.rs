//! The second, independent 68k core: QEMU's user-mode emulator (`qemu-m68k`, Debian package
//! `qemu-user`) running a freestanding m68k Linux executable.
//!
//! The codegen suite's `linux` build has a hand-written `_start` (`tests/codegen/linux_start.S`)
//! that runs cases `FIRST..count` and writes binary records to stdout: per case
//! `index:u32 length:u32` (big-endian; length `0xFFFFFFFF` = overflow) and `length` bytes,
//! then `END!` and the case count.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// QEMU CPU models we run.
pub const QEMU_CPUS: &[&str] = &["m68000", "m68040"];

/// Output of one QEMU run of the suite.
#[derive(Debug, Clone, Default)]
pub struct QemuOutput {
    /// Case index → output bytes (`None` = the case reported overflow).
    pub cases: BTreeMap<u32, Option<Vec<u8>>>,
    /// The count in the `END!` record, if the program got that far.
    pub end_count: Option<u32>,
    /// Exit status code (`None` if killed by a signal).
    pub exit_code: Option<i32>,
    /// What QEMU printed on stderr (e.g. "illegal instruction").
    pub stderr: String,
}

/// Case index → output bytes (`None` = overflow), and the count in the `END!` record.
pub type Parsed = (BTreeMap<u32, Option<Vec<u8>>>, Option<u32>);

/// Parse the suite's binary stdout. A truncated last record is ignored (the program died
/// while writing it).
pub fn parse_output(stdout: &[u8]) -> Result<Parsed, String> {
    let mut cases = BTreeMap::new();
    let mut end = None;
    let mut p = 0usize;
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    while p + 8 <= stdout.len() {
        let first = be(&stdout[p..]);
        let second = be(&stdout[p + 4..]);
        p += 8;
        if first == u32::from_be_bytes(*b"END!") {
            end = Some(second);
            break;
        }
        let val = if second == u32::MAX {
            None
        } else {
            let n = second as usize;
            if n > 1 << 20 || cases.contains_key(&first) {
                // Not a record: something else wrote to stdout. Keep what parsed so far; the
                // caller treats the next case as the one that went wrong.
                break;
            }
            if p + n > stdout.len() {
                break;
            }
            let v = stdout[p..p + n].to_vec();
            p += n;
            Some(v)
        };
        if cases.insert(first, val).is_some() {
            return Err(format!("case {first} reported twice"));
        }
    }
    Ok((cases, end))
}

/// Is `qemu-m68k` installed?
pub fn available() -> bool {
    Command::new("qemu-m68k")
        .arg("-version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Most output a run may produce; a miscompiled program can print forever.
pub const MAX_STDOUT: u64 = 16 << 20;

/// Run `elf FIRST` under `qemu-m68k -cpu <cpu>` with a timeout and an output cap.
pub fn run(elf: &Path, cpu: &str, first: u32, timeout: Duration) -> Result<QemuOutput, String> {
    use std::io::Read;
    use std::process::Stdio;
    if !available() {
        return Err(
            "qemu-m68k is not installed (Debian package qemu-user); `cargo xtask test` installs it"
                .into(),
        );
    }
    let mut child = Command::new("timeout")
        .arg("--signal=KILL")
        .arg(format!("{}", timeout.as_secs().max(1)))
        .arg("qemu-m68k")
        .args(["-cpu", cpu])
        .arg(elf)
        .arg(first.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start qemu-m68k: {e}"))?;
    let mut stdout_bytes = Vec::new();
    let mut pipe = child.stdout.take().expect("piped stdout");
    let read = pipe
        .by_ref()
        .take(MAX_STDOUT)
        .read_to_end(&mut stdout_bytes);
    drop(pipe); // a program still writing now gets SIGPIPE
    let overflowed = stdout_bytes.len() as u64 >= MAX_STDOUT;
    if overflowed {
        let _ = child.kill();
    }
    let mut stderr_bytes = Vec::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.by_ref().take(64 << 10).read_to_end(&mut stderr_bytes);
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for qemu-m68k: {e}"))?;
    read.map_err(|e| format!("reading qemu-m68k output: {e}"))?;
    if overflowed {
        return Err(format!(
            "the program printed more than {MAX_STDOUT} bytes (runaway loop?)"
        ));
    }
    let out = std::process::Output {
        status,
        stdout: stdout_bytes,
        stderr: stderr_bytes,
    };
    let (cases, end_count) = parse_output(&out.stdout)?;
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
        let mut out = Vec::new();
        out.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 2, 0x00, 0xff]);
        out.extend_from_slice(&[0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]);
        out.extend_from_slice(&[0, 0, 0, 2, 0, 0, 0, 0]);
        out.extend_from_slice(b"END!\0\0\0\x03");
        let (cases, end) = parse_output(&out).unwrap();
        assert_eq!(cases[&0], Some(vec![0, 0xff]));
        assert_eq!(cases[&1], None);
        assert_eq!(cases[&2], Some(vec![]));
        assert_eq!(end, Some(3));
        // A record cut short by a crash is dropped, not misread.
        let (cases, end) = parse_output(&out[..9]).unwrap();
        assert!(cases.is_empty() && end.is_none());
        // Garbage after a good record: the good record is kept, parsing stops there.
        let mut junk = out[..10].to_vec();
        junk.extend_from_slice(b"0111111111111111");
        let (cases, end) = parse_output(&junk).unwrap();
        assert_eq!(cases.len(), 1);
        assert!(end.is_none());
    }
}
