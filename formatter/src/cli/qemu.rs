//! `ferrite qemu`: start QEMU's Quadra 800 (`qemu-system-m68k -M q800`) with a disk on its
//! SCSI bus, so that the Mac's ROM loads the disk's own driver as a real Quadra does.
//!
//! What `ferrite` does for the user: it checks the ROM file (size, the checksum in its first
//! 4 bytes against ROMs it knows, the contents against that checksum), makes the 256-byte
//! PRAM file QEMU keeps the Mac's parameter RAM in, checks that the disk is a device image
//! (partition map and driver, not a bare volume), and prints the exact command before it runs
//! it, so that users can adapt it. It installs nothing.
//!
//! Facts (QEMU's `hw/m68k/q800.c` and `hw/misc/mac_via.c`, QEMU 8.2 and later): the ROM is
//! loaded with `-bios` (default name `MacROM.bin`) and may be at most 1 MiB; the PRAM is an
//! `if=mtd` drive; RAM is at most 1024 MiB; the machine's SCSI bus takes `scsi-hd` and
//! `scsi-cd` devices by SCSI ID. QEMU's developers boot Mac OS 7.1–8.1 with the Quadra 800
//! ROM whose checksum is F1ACAD13 and 128 MB of RAM.

use super::disk::{scsi_name_info, sniff};
use anyhow::{Context, Result, anyhow, bail};
use ferrite_formatter::BlockDevice;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The QEMU program `ferrite qemu` runs (found on `PATH`).
pub const QEMU_PROGRAM: &str = "qemu-system-m68k";
/// Size of the PRAM file QEMU's q800 machine takes (its VIA1 model refuses others).
pub const PRAM_BYTES: u64 = 256;
/// Size of a Quadra 800 ROM.
pub const ROM_BYTES: usize = 1 << 20;
/// The checksum (first 4 bytes) of the ROM QEMU's q800 is developed and tested with.
pub const Q800_ROM_CHECKSUM: u32 = 0xF1AC_AD13;
/// RAM QEMU's developers give the q800 when they boot Mac OS (MB).
pub const DEFAULT_RAM_MB: u32 = 128;
/// QEMU's own limit for the q800 machine (MB).
pub const MAX_RAM_MB: u32 = 1024;
/// SCSI ID of the CD-ROM drive (Apple's usual choice), or the next one when the disk has it.
pub const CDROM_ID: u8 = 3;

/// How well a known ROM fits QEMU's q800 machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RomFit {
    /// The ROM QEMU's q800 is tested with.
    Tested,
    /// Another version of the Quadra 800 ROM: same hardware, not what QEMU is tested with.
    SameMachine,
    /// A ROM of another Mac: the q800 machine cannot run it.
    OtherMac,
}

/// A Mac ROM known by the checksum in its first 4 bytes (MAME names its Mac ROM dumps by this
/// checksum; the models are those MAME and other emulators list for each dump).
#[derive(Debug, Clone, Copy)]
pub struct KnownRom {
    pub checksum: u32,
    pub macs: &'static str,
    pub fit: RomFit,
}

pub const KNOWN_ROMS: &[KnownRom] = &[
    KnownRom {
        checksum: 0xF1AC_AD13,
        macs: "Quadra 800, 610 and 650 (version 23F2)",
        fit: RomFit::Tested,
    },
    KnownRom {
        checksum: 0xF1A6_F343,
        macs: "Centris 610 and 650, early Quadra 800 (version 23F1)",
        fit: RomFit::SameMachine,
    },
    KnownRom {
        checksum: 0x420D_BFF3,
        macs: "Quadra 700, 900 and PowerBook 140, 145, 170",
        fit: RomFit::OtherMac,
    },
    KnownRom {
        checksum: 0x3DC2_7823,
        macs: "Quadra 950",
        fit: RomFit::OtherMac,
    },
    KnownRom {
        checksum: 0xFF74_39EE,
        macs: "Quadra 605 and LC 475, 575",
        fit: RomFit::OtherMac,
    },
    KnownRom {
        checksum: 0x5BF1_0FD1,
        macs: "Quadra 660AV, 840AV",
        fit: RomFit::OtherMac,
    },
    KnownRom {
        checksum: 0x368C_ADFE,
        macs: "Macintosh IIci",
        fit: RomFit::OtherMac,
    },
    KnownRom {
        checksum: 0x9722_1136,
        macs: "Macintosh IIx, IIcx, SE/30",
        fit: RomFit::OtherMac,
    },
    KnownRom {
        checksum: 0x4D1F_8172,
        macs: "Macintosh Plus (third version)",
        fit: RomFit::OtherMac,
    },
];

/// The checksum a Mac ROM stores in its first 4 bytes: the 32-bit sum of every big-endian
/// 16-bit word after them.
pub fn rom_checksum(rom: &[u8]) -> u32 {
    rom.get(4..)
        .unwrap_or(&[])
        .chunks_exact(2)
        .fold(0u32, |s, w| {
            s.wrapping_add(u16::from_be_bytes([w[0], w[1]]) as u32)
        })
}

/// What the ROM check found: notes to print; an `Err` when QEMU's q800 cannot use the file.
pub fn check_rom(path: &Path, rom: &[u8]) -> Result<Vec<String>> {
    let name = path.display();
    let stored = rom
        .get(..4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let known = stored.and_then(|c| KNOWN_ROMS.iter().find(|k| k.checksum == c));
    let want = format!(
        "QEMU's q800 machine needs the Quadra 800 ROM: 1 MiB ({ROM_BYTES} bytes) whose first 4 bytes, its checksum, are {Q800_ROM_CHECKSUM:08X}"
    );
    if let Some(k) = known
        && k.fit == RomFit::OtherMac
    {
        bail!(
            "{name} is the {} ROM (checksum {:08X}, {} bytes): {want}",
            k.macs,
            k.checksum,
            rom.len()
        );
    }
    if rom.len() != ROM_BYTES {
        bail!(
            "{name} is {} bytes, not a Quadra 800 ROM: {want}; check that the file is the ROM itself (not a ZIP archive or a part of a ROM set)",
            rom.len()
        );
    }
    let stored = stored.expect("1 MiB");
    let mut notes = Vec::new();
    match known {
        Some(k) if k.fit == RomFit::Tested => notes.push(format!(
            "ROM {name}: the {} ROM (checksum {stored:08X}), the one QEMU's q800 is tested with",
            k.macs
        )),
        Some(k) => notes.push(format!(
            "warning: ROM {name}: the {} ROM (checksum {stored:08X}); QEMU's q800 is tested with the {Q800_ROM_CHECKSUM:08X} version, this one may or may not start",
            k.macs
        )),
        None => notes.push(format!(
            "warning: ROM {name}: checksum {stored:08X} is not one ferrite knows; {want}; trying it anyway"
        )),
    }
    let computed = rom_checksum(rom);
    if computed != stored {
        notes.push(format!(
            "warning: ROM {name}: its contents add up to {computed:08X}, not to the checksum {stored:08X} in its first 4 bytes: the dump may be damaged or patched"
        ));
    }
    Ok(notes)
}

pub struct QemuArgs {
    pub disk: PathBuf,
    pub rom: PathBuf,
    pub cdrom: Option<PathBuf>,
    pub id: Option<u8>,
    pub ram_mb: u32,
    pub pram: Option<PathBuf>,
    pub dry_run: bool,
    /// More QEMU arguments, passed after ferrite's.
    pub extra: Vec<String>,
}

/// A path inside a QEMU `-drive` option: commas are doubled.
fn drive_path(p: &Path) -> String {
    p.display().to_string().replace(',', ",,")
}

/// One argument as a POSIX shell word.
pub fn shell_word(a: &str) -> String {
    let plain = !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-+=/.,:@%".contains(&b));
    if plain {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

/// The PRAM file next to the disk: `DISK` with the extension `.pram`.
pub fn default_pram(disk: &Path) -> PathBuf {
    disk.with_extension("pram")
}

/// Make the PRAM file (256 zero bytes; the Mac sets it up at its first start) or check the
/// one there. Returns whether it was made.
fn prepare_pram(path: &Path) -> Result<bool> {
    match std::fs::metadata(path) {
        Ok(m) if m.len() == PRAM_BYTES => Ok(false),
        Ok(m) => bail!(
            "the PRAM file {} is {} bytes; QEMU's q800 takes exactly {PRAM_BYTES}: delete it (ferrite then makes a new one) or give --pram FILE",
            path.display(),
            m.len()
        ),
        Err(_) => {
            std::fs::write(path, [0u8; PRAM_BYTES as usize])
                .with_context(|| format!("cannot make the PRAM file {}", path.display()))?;
            Ok(true)
        }
    }
}

/// Check that `disk` is something a Mac ROM can boot from.
fn check_disk(disk: &Path) -> Result<()> {
    let meta = std::fs::metadata(disk).map_err(|_| {
        anyhow!(
            "{}: no such disk image (make one with `ferrite init {}`)",
            disk.display(),
            disk.display()
        )
    })?;
    if meta.is_dir() {
        bail!(
            "{} is a folder: name the disk image inside it",
            disk.display()
        );
    }
    let c = sniff(disk)?;
    if !c.map && (c.hfs || c.hfs_plus) {
        bail!(
            "{} is a bare volume image (no partition map, no driver), which a Mac's ROM does not boot from SCSI: wrap it with `ferrite convert {} HD00_512.hda` and start that",
            disk.display(),
            disk.display()
        );
    }
    if !c.map {
        bail!(
            "{} has no partition map: make a disk with `ferrite init {}` (or `ferrite convert` a volume image)",
            disk.display(),
            disk.display()
        );
    }
    let mut img = ferrite_formatter::image::ImageFile::open_read_only(disk)
        .with_context(|| format!("cannot open {}", disk.display()))?;
    let map = ferrite_formatter::apm::read_map(&mut img)
        .map_err(|e| anyhow!("{}: the partition map cannot be read: {e}", disk.display()))?;
    if map.ddm.descriptors().is_empty() {
        bail!(
            "{} has a partition map but no driver, so the Mac's ROM cannot start it: install Ferrite's with `ferrite install-driver {}`",
            disk.display(),
            disk.display()
        );
    }
    if !map.partitions.iter().any(|p| {
        p.entry.is_driver() && {
            let mut b = vec![0u8; img.block_size() as usize];
            img.read_blocks(p.start as u64, &mut b).is_ok()
                && ferrite_shared::driver_blob::Settings::read(&b).is_ok()
        }
    }) {
        eprintln!(
            "ferrite: note: {} has another vendor's driver, not Ferrite's (`ferrite install-driver` puts Ferrite's there)",
            disk.display()
        );
    }
    if meta.is_file() && !meta.len().is_multiple_of(512) {
        eprintln!(
            "ferrite: warning: {} is not a whole number of 512-byte blocks; QEMU ignores the rest",
            disk.display()
        );
    }
    Ok(())
}

/// Find `program` on `PATH`.
fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        let names = [
            dir.join(program),
            dir.join(format!("{program}{}", std::env::consts::EXE_SUFFIX)),
        ];
        names.into_iter().find(|p| is_executable(p))
    })
}

fn is_executable(p: &Path) -> bool {
    let Ok(m) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        m.is_file() && m.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        m.is_file()
    }
}

/// How to get QEMU, for the error when it is missing.
pub const INSTALL_HINT: &str = "install QEMU 8.2 or later: Debian/Ubuntu `sudo apt install qemu-system-misc`, \
Fedora `sudo dnf install qemu-system-m68k`, macOS `brew install qemu`";

/// The arguments of the QEMU command line (without the program).
pub fn qemu_args(a: &QemuArgs, id: u8, cdrom_id: u8, pram: &Path) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "-M".into(),
        "q800".into(),
        "-m".into(),
        a.ram_mb.to_string(),
        "-bios".into(),
        a.rom.display().to_string(),
        "-drive".into(),
        format!("file={},format=raw,if=mtd", drive_path(pram)),
        "-drive".into(),
        format!(
            "file={},format=raw,media=disk,if=none,id=hd{id}",
            drive_path(&a.disk)
        ),
        "-device".into(),
        format!("scsi-hd,scsi-id={id},drive=hd{id}"),
    ];
    if let Some(cd) = &a.cdrom {
        v.extend([
            "-drive".into(),
            format!(
                "file={},format=raw,media=cdrom,if=none,id=cd{cdrom_id}",
                drive_path(cd)
            ),
            "-device".into(),
            format!("scsi-cd,scsi-id={cdrom_id},drive=cd{cdrom_id}"),
        ]);
    }
    v.extend(a.extra.iter().cloned());
    v
}

pub fn qemu(a: &QemuArgs) -> Result<()> {
    let rom = std::fs::read(&a.rom)
        .with_context(|| format!("cannot read the ROM file {}", a.rom.display()))?;
    let notes = check_rom(&a.rom, &rom)?;
    check_disk(&a.disk)?;
    if let Some(cd) = &a.cdrom
        && !cd.is_file()
    {
        bail!(
            "{}: no such CD image (an ISO or raw CD image file)",
            cd.display()
        );
    }
    let id = match a.id.or(scsi_name_info(&a.disk).0) {
        Some(id) if id <= 6 => id,
        Some(id) => bail!("SCSI ID {id}: use 0 to 6 (ID 7 is the Mac itself)"),
        None => 0,
    };
    if a.ram_mb == 0 || a.ram_mb > MAX_RAM_MB {
        bail!(
            "--ram {}: QEMU's q800 takes 1 to {MAX_RAM_MB} MB; {DEFAULT_RAM_MB} is what QEMU's developers use with Mac OS",
            a.ram_mb
        );
    }
    let cdrom_id = if id == CDROM_ID {
        CDROM_ID + 1
    } else {
        CDROM_ID
    };
    let ours: Vec<(u8, &str)> = std::iter::once((id, "the disk"))
        .chain(a.cdrom.as_ref().map(|_| (cdrom_id, "the CD")))
        .collect();
    for arg in &a.extra {
        for (taken, what) in &ours {
            if arg
                .split(',')
                .any(|kv| kv.trim() == format!("scsi-id={taken}"))
            {
                bail!(
                    "SCSI ID {taken} is in use: {what} is there, and the extra QEMU argument {arg:?} puts another device on it; give the disk another --id, or the device another scsi-id"
                );
            }
        }
    }
    let pram = a.pram.clone().unwrap_or_else(|| default_pram(&a.disk));
    for n in &notes {
        eprintln!("ferrite: {n}");
    }
    if a.ram_mb > DEFAULT_RAM_MB {
        eprintln!(
            "ferrite: warning: --ram {}: users report the Quadra 800 ROM failing to start with more than about 355 MB in QEMU (unconfirmed); {DEFAULT_RAM_MB} is known to work",
            a.ram_mb
        );
    }
    if prepare_pram(&pram)? {
        eprintln!(
            "ferrite: made the PRAM file {} ({PRAM_BYTES} zero bytes; the Mac sets it up at its first start and keeps its settings there)",
            pram.display()
        );
    }
    let args = qemu_args(a, id, cdrom_id, &pram);
    println!(
        "{} {}",
        QEMU_PROGRAM,
        args.iter()
            .map(|s| shell_word(s))
            .collect::<Vec<_>>()
            .join(" ")
    );
    eprintln!(
        "ferrite: disk {} on SCSI ID {id}{}",
        a.disk.display(),
        a.cdrom
            .as_ref()
            .map(|c| format!(", CD {} on SCSI ID {cdrom_id}", c.display()))
            .unwrap_or_default()
    );
    let found = find_on_path(QEMU_PROGRAM);
    if a.dry_run {
        if found.is_none() {
            eprintln!("ferrite: note: {QEMU_PROGRAM} is not on PATH: {INSTALL_HINT}");
        }
        return Ok(());
    }
    let Some(program) = found else {
        bail!("{QEMU_PROGRAM} was not found on PATH: {INSTALL_HINT}; then run the command above");
    };
    let status = Command::new(&program)
        .args(&args)
        .status()
        .with_context(|| format!("could not start {}", program.display()))?;
    if !status.success() {
        bail!("{QEMU_PROGRAM} stopped with {status}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rom_checksum_sums_the_words_after_the_first_four_bytes() {
        assert_eq!(
            rom_checksum(&[0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01, 0xFF, 0xFF]),
            0x1_0000
        );
        assert_eq!(rom_checksum(&[0, 0, 0, 0]), 0);
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("file=a.img,format=raw"), "file=a.img,format=raw");
        assert_eq!(shell_word("My Disk.hda"), "'My Disk.hda'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn known_roms_other_than_the_quadra_800_are_refused() {
        let mut rom = vec![0u8; 512 << 10];
        rom[..4].copy_from_slice(&0x368C_ADFEu32.to_be_bytes());
        let e = check_rom(Path::new("iici.rom"), &rom)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Macintosh IIci") && e.contains("F1ACAD13"),
            "{e}"
        );
    }
}
