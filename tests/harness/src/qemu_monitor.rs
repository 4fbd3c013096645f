//! QEMU's system emulator (`qemu-system-m68k -M q800`, Debian package `qemu-system-misc`)
//! seen through its human monitor: a client for a monitor on a UNIX socket, parsers for
//! `info block`, `info qtree` and `xp`, and the check that a booted Mac has the Ferrite
//! driver in its unit table and its volume in the drive queue (`cargo xtask qemu-check`).
//!
//! The memory walk uses the low-memory globals and record layouts of *Inside Macintosh:
//! Devices* and *Files* (the same constants the emulated Mac uses: [`ferrite_emu::lowmem`],
//! [`ferrite_emu::device_manager`], [`ferrite_emu::drive_queue`]): `UTableBase` ($11C) points to the unit
//! table, `UnitNtryCnt` ($1D2) counts its entries, each a handle to a device control entry
//! whose `dCtlDriver` is a pointer to the driver (a handle when `dRAMBased` is set); the driver
//! header's name is at +18; the drive queue header `DrvQHdr` ($308) has `qHead` at +2.

use ferrite_emu::device_manager::{D_RAM_BASED, DCTL_DRIVER, DCTL_FLAGS, DCTL_REFNUM};
use ferrite_emu::drive_queue::{DQ_DRIVE, DQ_DRV_SZ, DQ_DRV_SZ2, DQ_QLINK, DQ_REFNUM};
use ferrite_emu::lowmem::{DRV_Q_HDR, UNIT_NTRY_CNT, UTABLE_BASE};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// Offset of the name (a Pascal string) in a driver header.
pub const DRVR_NAME: u32 = 18;
/// The Ferrite driver's name.
pub const FERRITE_NAME: &[u8] = b".Ferrite";

/// Remove terminal escape sequences and carriage returns from monitor output.
pub fn clean(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    while let Some(&d) = chars.peek() {
                        chars.next();
                        if d.is_ascii_alphabetic() {
                            break;
                        }
                    }
                }
            }
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// A QEMU human monitor on a UNIX socket (`-monitor unix:PATH,server=on,wait=off`).
pub struct Monitor {
    stream: std::os::unix::net::UnixStream,
}

const PROMPT: &str = "(qemu) ";

impl Monitor {
    /// Connect, retrying until `timeout` (QEMU makes the socket as it starts), and read the
    /// greeting up to the first prompt.
    pub fn connect(path: &Path, timeout: Duration) -> Result<Monitor, String> {
        let start = Instant::now();
        loop {
            match std::os::unix::net::UnixStream::connect(path) {
                Ok(stream) => {
                    stream
                        .set_read_timeout(Some(Duration::from_secs(10)))
                        .map_err(|e| e.to_string())?;
                    let mut m = Monitor { stream };
                    m.read_to_prompt()?;
                    return Ok(m);
                }
                Err(e) if start.elapsed() > timeout => {
                    return Err(format!(
                        "no QEMU monitor at {} after {timeout:?}: {e}",
                        path.display()
                    ));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    fn read_to_prompt(&mut self) -> Result<String, String> {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = self
                .stream
                .read(&mut chunk)
                .map_err(|e| format!("reading the QEMU monitor: {e}"))?;
            if n == 0 {
                return Err("the QEMU monitor closed".into());
            }
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf);
            if clean(&text).ends_with(PROMPT) {
                return Ok(clean(&text));
            }
        }
    }

    /// Run a monitor command; returns what it printed (the echoed command line left out).
    pub fn command(&mut self, cmd: &str) -> Result<String, String> {
        self.stream
            .write_all(format!("{cmd}\n").as_bytes())
            .map_err(|e| format!("writing to the QEMU monitor: {e}"))?;
        let text = self.read_to_prompt()?;
        let body = text.strip_suffix(PROMPT).unwrap_or(&text);
        // The monitor echoes the command line (redrawn as it is typed) before the output.
        Ok(body
            .split_once('\n')
            .map_or("", |(_, rest)| rest)
            .to_string())
    }

    /// Ask QEMU to quit, and wait (up to the read timeout) until it closes the connection:
    /// closing the socket first can leave the command unread.
    pub fn quit(mut self) {
        if self.stream.write_all(b"quit\n").is_ok() {
            let mut sink = [0u8; 1024];
            while matches!(self.stream.read(&mut sink), Ok(n) if n > 0) {}
        }
    }
}

/// A QEMU started for a test or check: killed (by the process ID it wrote with `-pidfile`,
/// and through the process that started it) when dropped.
pub struct QemuProcess {
    pub child: Child,
    pub pidfile: PathBuf,
}

impl QemuProcess {
    /// Wait up to `timeout` for the starting process to end; its exit status.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for QemuProcess {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(&self.pidfile)
            && let Ok(pid) = pid.trim().parse::<u32>()
            && self.child.try_wait().ok().flatten().is_none()
        {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A block device in `info block`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockInfo {
    pub id: String,
    pub file: String,
    pub format: String,
    pub attached_to: Option<String>,
}

/// The devices with media in `info block` output (`ID (#blockN): FILE (FORMAT)` and an
/// indented `Attached to:` line).
pub fn parse_info_block(text: &str) -> Vec<BlockInfo> {
    let mut out: Vec<BlockInfo> = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') {
            let Some((head, rest)) = line.split_once(": ") else {
                continue;
            };
            let id = head.split_whitespace().next().unwrap_or("").to_string();
            let Some(open) = rest.rfind(" (") else {
                continue;
            };
            let format = rest[open + 2..].trim_end_matches(')').to_string();
            out.push(BlockInfo {
                id,
                file: rest[..open].to_string(),
                format,
                attached_to: None,
            });
        } else if let Some(a) = line.trim().strip_prefix("Attached to:")
            && let Some(last) = out.last_mut()
        {
            last.attached_to = Some(a.trim().to_string());
        }
    }
    out
}

/// A device on a SCSI bus in `info qtree`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScsiDevice {
    pub kind: String,
    pub drive: String,
    pub scsi_id: u32,
}

/// The `scsi-hd`/`scsi-cd` devices in `info qtree` output, with their `drive` and `scsi-id`.
pub fn parse_qtree_scsi(text: &str) -> Vec<ScsiDevice> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, ScsiDevice)> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if let Some((ind, _)) = &cur
            && indent <= *ind
        {
            out.push(cur.take().expect("some").1);
        }
        if let Some(rest) = t.strip_prefix("dev: ") {
            let kind = rest.split(',').next().unwrap_or("").to_string();
            if kind.starts_with("scsi-") {
                cur = Some((
                    indent,
                    ScsiDevice {
                        kind,
                        drive: String::new(),
                        scsi_id: u32::MAX,
                    },
                ));
            }
        } else if let Some((_, d)) = &mut cur {
            if let Some(v) = t.strip_prefix("drive = ") {
                d.drive = v.trim_matches('"').to_string();
            } else if let Some(v) = t.strip_prefix("scsi-id = ") {
                d.scsi_id = v
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(u32::MAX);
            }
        }
    }
    if let Some((_, d)) = cur {
        out.push(d);
    }
    out
}

/// The bytes in `xp /Nxb ADDR` output (`ADDR: 0x12 0x34 ...`, 8 to a line), checked to start
/// at `addr` and to run on without gaps.
pub fn parse_xp_bytes(text: &str, addr: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (a, rest) = line
            .split_once(':')
            .ok_or_else(|| format!("not a memory dump line: {line:?}"))?;
        let a =
            u64::from_str_radix(a.trim(), 16).map_err(|_| format!("bad address in {line:?}"))?;
        if a != addr as u64 + out.len() as u64 {
            return Err(format!(
                "memory dump line at {a:#x}, expected {:#x}",
                addr as u64 + out.len() as u64
            ));
        }
        for w in rest.split_whitespace() {
            let h = w
                .strip_prefix("0x")
                .ok_or_else(|| format!("not a byte: {w:?}"))?;
            out.push(u8::from_str_radix(h, 16).map_err(|_| format!("not a byte: {w:?}"))?);
        }
    }
    Ok(out)
}

/// Physical memory of the emulated Mac, read through monitor commands: `run` executes one
/// command and returns its output (a [`Monitor`], or a test's stand-in).
pub struct MonitorMemory<F: FnMut(&str) -> Result<String, String>> {
    pub run: F,
}

impl<F: FnMut(&str) -> Result<String, String>> MonitorMemory<F> {
    pub fn read(&mut self, addr: u32, len: usize) -> Result<Vec<u8>, String> {
        let text = (self.run)(&format!("xp /{len}xb {addr:#x}"))?;
        let b = parse_xp_bytes(&text, addr)?;
        if b.len() != len {
            return Err(format!(
                "asked for {len} bytes at {addr:#x}, the monitor gave {}",
                b.len()
            ));
        }
        Ok(b)
    }
    pub fn u16(&mut self, addr: u32) -> Result<u16, String> {
        let b = self.read(addr, 2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    pub fn u32(&mut self, addr: u32) -> Result<u32, String> {
        let b = self.read(addr, 4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// What [`find_ferrite`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FerriteFound {
    pub unit: u16,
    pub ref_num: i16,
    pub dce: u32,
    pub driver: u32,
    /// The drive queue elements served by the driver: (drive number, size in blocks).
    pub drives: Vec<(i16, u32)>,
}

/// Walk the unit table for a driver named ".Ferrite" and the drive queue for its drives.
/// `Err` says what was missing (the Mac has not booted that far, or not with Ferrite).
pub fn find_ferrite<F: FnMut(&str) -> Result<String, String>>(
    mem: &mut MonitorMemory<F>,
) -> Result<FerriteFound, String> {
    // 24-bit or 32-bit: addresses are taken as they are (the Quadra runs 32-bit clean).
    let table = mem.u32(UTABLE_BASE)?;
    let count = mem.u16(UNIT_NTRY_CNT)?;
    if table == 0 || count == 0 || count > 1024 {
        return Err(format!(
            "no unit table yet (UTableBase ${table:08X}, UnitNtryCnt {count})"
        ));
    }
    let entries = mem.read(table, 4 * count as usize)?;
    let mut seen = Vec::new();
    for unit in 0..count {
        let i = 4 * unit as usize;
        let h = u32::from_be_bytes(entries[i..i + 4].try_into().expect("4"));
        if h == 0 {
            continue;
        }
        let dce = mem.u32(h)?;
        if dce == 0 {
            continue;
        }
        let flags = mem.u16(dce + DCTL_FLAGS)?;
        let mut drv = mem.u32(dce + DCTL_DRIVER)?;
        if flags & D_RAM_BASED != 0 && drv != 0 {
            drv = mem.u32(drv)?;
        }
        if drv == 0 {
            continue;
        }
        let name = mem.read(drv + DRVR_NAME, 16)?;
        let n = (name[0] as usize).min(15);
        let name = &name[1..1 + n];
        seen.push(String::from_utf8_lossy(name).into_owned());
        if name != FERRITE_NAME {
            continue;
        }
        let ref_num = mem.u16(dce + DCTL_REFNUM)? as i16;
        let mut drives = Vec::new();
        let mut el = mem.u32(DRV_Q_HDR + 2)?;
        let mut steps = 0;
        while el != 0 && steps < 64 {
            if mem.u16(el + DQ_REFNUM)? as i16 == ref_num {
                let lo = mem.u16(el + DQ_DRV_SZ)? as u32;
                let hi = mem.u16(el + DQ_DRV_SZ2)? as u32;
                drives.push((mem.u16(el + DQ_DRIVE)? as i16, (hi << 16) | lo));
            }
            el = mem.u32(el + DQ_QLINK)?;
            steps += 1;
        }
        let found = FerriteFound {
            unit,
            ref_num,
            dce,
            driver: drv,
            drives,
        };
        if found.drives.is_empty() {
            return Err(format!(
                "the Ferrite driver is in the unit table (unit {unit}, refNum {ref_num}) but no drive queue element names it"
            ));
        }
        return Ok(found);
    }
    Err(format!(
        "no .Ferrite driver in the unit table ({count} entries; drivers: {})",
        if seen.is_empty() {
            "none".into()
        } else {
            seen.join(", ")
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A stand-in monitor: answers `xp /Nxb ADDR` from `ram` in QEMU's format.
    fn answer(ram: &BTreeMap<u32, u8>, cmd: &str) -> Result<String, String> {
        let rest = cmd.strip_prefix("xp /").ok_or("unknown command")?;
        let (n, addr) = rest.split_once("xb ").ok_or("bad xp")?;
        let n: u32 = n.parse().map_err(|_| "bad count")?;
        let addr =
            u32::from_str_radix(addr.trim_start_matches("0x"), 16).map_err(|_| "bad address")?;
        let mut out = String::new();
        for line in (0..n).step_by(8) {
            out += &format!("{:016x}:", addr + line);
            for i in line..(line + 8).min(n) {
                out += &format!(" 0x{:02x}", ram.get(&(addr + i)).copied().unwrap_or(0));
            }
            out += "\n";
        }
        Ok(out)
    }

    fn put(ram: &mut BTreeMap<u32, u8>, at: u32, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            ram.insert(at + i as u32, *b);
        }
    }

    /// Low memory as a booted Mac has it: a unit table of 48 entries with the Sony driver at
    /// unit 4 and Ferrite (RAM-based, a handle) at unit 32, and two drive queue elements.
    fn booted(ferrite_in_queue: bool) -> BTreeMap<u32, u8> {
        let mut ram = BTreeMap::new();
        put(&mut ram, UTABLE_BASE, &0x0001_0000u32.to_be_bytes());
        put(&mut ram, UNIT_NTRY_CNT, &48u16.to_be_bytes());
        // Sony: DCE handle at unit 4 -> DCE $20000, ROM driver $40800000 (a pointer).
        put(&mut ram, 0x0001_0000 + 16, &0x0001_1000u32.to_be_bytes());
        put(&mut ram, 0x0001_1000, &0x0002_0000u32.to_be_bytes());
        put(&mut ram, 0x0002_0000, &0x4080_0000u32.to_be_bytes());
        put(&mut ram, 0x4080_0000 + DRVR_NAME, b"\x05.Sony");
        // Ferrite: unit 32 -> handle $11004 -> DCE $21000, dRAMBased, driver handle $11008.
        put(&mut ram, 0x0001_0000 + 128, &0x0001_1004u32.to_be_bytes());
        put(&mut ram, 0x0001_1004, &0x0002_1000u32.to_be_bytes());
        put(&mut ram, 0x0002_1000, &0x0001_1008u32.to_be_bytes());
        put(&mut ram, 0x0002_1000 + DCTL_FLAGS, &0x0040u16.to_be_bytes());
        put(&mut ram, 0x0002_1000 + DCTL_REFNUM, &(-33i16).to_be_bytes());
        put(&mut ram, 0x0001_1008, &0x0003_0000u32.to_be_bytes());
        put(&mut ram, 0x0003_0000 + DRVR_NAME, b"\x08.Ferrite");
        // Drive queue: drive 1 (Sony, -5) -> drive 8 (Ferrite, -33, 40960 blocks).
        put(&mut ram, DRV_Q_HDR + 2, &0x0004_0000u32.to_be_bytes());
        put(
            &mut ram,
            0x0004_0000 + DQ_QLINK,
            &0x0004_0100u32.to_be_bytes(),
        );
        put(&mut ram, 0x0004_0000 + DQ_DRIVE, &1u16.to_be_bytes());
        put(&mut ram, 0x0004_0000 + DQ_REFNUM, &(-5i16).to_be_bytes());
        put(&mut ram, 0x0004_0100 + DQ_DRIVE, &8u16.to_be_bytes());
        let r: i16 = if ferrite_in_queue { -33 } else { -40 };
        put(&mut ram, 0x0004_0100 + DQ_REFNUM, &r.to_be_bytes());
        put(&mut ram, 0x0004_0100 + DQ_DRV_SZ, &40960u16.to_be_bytes());
        ram
    }

    #[test]
    fn finds_ferrite_in_the_unit_table_and_drive_queue() {
        let ram = booted(true);
        let mut mem = MonitorMemory {
            run: |c: &str| answer(&ram, c),
        };
        let f = find_ferrite(&mut mem).unwrap();
        assert_eq!(
            f,
            FerriteFound {
                unit: 32,
                ref_num: -33,
                dce: 0x0002_1000,
                driver: 0x0003_0000,
                drives: vec![(8, 40960)],
            }
        );
    }

    #[test]
    fn says_what_is_missing() {
        let ram = booted(false);
        let mut mem = MonitorMemory {
            run: |c: &str| answer(&ram, c),
        };
        let e = find_ferrite(&mut mem).unwrap_err();
        assert!(e.contains("no drive queue element"), "{e}");
        let mut ram = booted(true);
        put(&mut ram, 0x0003_0000 + DRVR_NAME, b"\x08.Vendor1");
        let mut mem = MonitorMemory {
            run: |c: &str| answer(&ram, c),
        };
        let e = find_ferrite(&mut mem).unwrap_err();
        assert!(
            e.contains("no .Ferrite driver") && e.contains(".Sony, .Vendor1"),
            "{e}"
        );
        let ram = BTreeMap::new();
        let mut mem = MonitorMemory {
            run: |c: &str| answer(&ram, c),
        };
        assert!(
            find_ferrite(&mut mem)
                .unwrap_err()
                .contains("no unit table yet")
        );
    }

    #[test]
    fn parses_monitor_output() {
        let block = "mtd0 (#block118): d.pram (raw)\n    Attached to:      /machine/unattached/device[2]\n    Cache mode:       writeback\n\nhd2 (#block312): /tmp/a b.hda (raw)\n    Attached to:      /machine/peripheral-anon/device[0]\n\nfloppy0: [not inserted]\n    Removable device: not locked, tray closed\n";
        let b = parse_info_block(block);
        assert_eq!(b.len(), 2, "{b:?}");
        assert_eq!(
            b[1],
            BlockInfo {
                id: "hd2".into(),
                file: "/tmp/a b.hda".into(),
                format: "raw".into(),
                attached_to: Some("/machine/peripheral-anon/device[0]".into())
            }
        );
        let qtree = "  dev: sysbus-esp, id \"\"\n    bus: scsi.0\n      type SCSI\n      dev: scsi-cd, id \"\"\n        drive = \"cd3\"\n        scsi-id = 3 (0x3)\n      dev: scsi-hd, id \"\"\n        drive = \"hd2\"\n        scsi-id = 2 (0x2)\n        lun = 0 (0x0)\n  dev: escc, id \"\"\n";
        assert_eq!(
            parse_qtree_scsi(qtree),
            vec![
                ScsiDevice {
                    kind: "scsi-cd".into(),
                    drive: "cd3".into(),
                    scsi_id: 3
                },
                ScsiDevice {
                    kind: "scsi-hd".into(),
                    drive: "hd2".into(),
                    scsi_id: 2
                }
            ]
        );
        assert_eq!(
            parse_xp_bytes("000000000000011c: 0x01 0x02\n", 0x11c).unwrap(),
            vec![1, 2]
        );
        assert!(parse_xp_bytes("0000000000000120: 0x01\n", 0x11c).is_err());
        assert_eq!(
            clean("(qemu) i\u{1b}[K\u{1b}[Din\u{1b}[K\r\nout\r\n"),
            "(qemu) iin\nout\n"
        );
    }
}
