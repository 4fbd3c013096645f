//! `ferrite boot`: boot a disk in the emulated Mac (`ferrite-emu`) and, with `--cat`, read a
//! file back **through the driver** — the bytes come from `_Read` calls the emulated Device
//! Manager hands to the driver on the disk, which talks SCSI to the emulated drive.

use super::disk;
use anyhow::{Result, anyhow, bail};
use ferrite_emu::drive_queue::Drive;
use ferrite_emu::file_manager::read_through_driver;
use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::scsi_manager::{self, ScsiManagerConfig};
use ferrite_emu::start_manager::{BootConfig, RomGeneration};
use ferrite_emu::toolbox::{Input, Launch, Seen};
use ferrite_emu::{CpuModel, Machine};
use ferrite_formatter::hfs::{Fork, Volume};
use ferrite_formatter::{BlockDevice, DeviceError, Region};
use std::path::Path;

/// A drive of the emulated Mac as a block device: every read is a synchronous `_Read` run as
/// guest code, so it goes through the Device Manager to the driver's Prime routine. Writes
/// are refused (this is for reading back what the host wrote).
pub struct DriverDisk<'a> {
    pub m: &'a mut Machine,
    pub drive: Drive,
    /// `_Read` calls made.
    pub reads: u64,
}

/// Bytes per `_Read` (File-Manager-lite's buffer).
const READ_CHUNK: usize = 1024;

impl BlockDevice for DriverDisk<'_> {
    fn block_count(&self) -> u64 {
        self.drive.blocks as u64
    }
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        ferrite_formatter::device::check_transfer(block, buf.len(), 512, self.block_count())?;
        let mut off = block * 512;
        for chunk in buf.chunks_mut(READ_CHUNK) {
            let at = u32::try_from(off).map_err(|_| {
                DeviceError::Io(format!(
                    "byte offset {off} is beyond what _Read's ioPosOffset can address"
                ))
            })?;
            let got = read_through_driver(self.m, &self.drive, at, chunk.len() as u32)
                .map_err(|f| DeviceError::Io(format!("the emulated Mac faulted in _Read: {f}")))?
                .map_err(|code| {
                    DeviceError::Io(format!(
                        "_Read at byte {at} of drive {} returned {code}",
                        self.drive.number
                    ))
                })?;
            chunk.copy_from_slice(&got);
            self.reads += 1;
            off += chunk.len() as u64;
        }
        Ok(())
    }
    fn write_blocks(&mut self, _block: u64, _buf: &[u8]) -> Result<(), DeviceError> {
        Err(DeviceError::Io("reading through the driver only".into()))
    }
}

pub fn boot(
    path: &Path,
    rom: RomGeneration,
    cpu: u32,
    id: Option<u8>,
    cat: Option<&str>,
    launch: Option<&str>,
) -> Result<()> {
    let cpu = match cpu {
        68000 => CpuModel::M68000,
        68040 => CpuModel::M68040,
        n => bail!("--cpu {n}: the emulated Mac has a 68000 or a 68040"),
    };
    let id = id.or(disk::scsi_name_info(path).0).unwrap_or(0);
    if id > 6 {
        bail!("--id {id}: SCSI IDs 0-6 are for disks (7 is the Mac)");
    }
    // What the host sees, to know what must mount and to check the bytes read back.
    let mut img = disk::open_disk(path, false)?;
    let (_, slots) = disk::volume_slots(&mut img)?;
    let names = disk::volume_names(&mut img, &slots);
    let bs = img.block_size();

    let mut m = Machine::new(cpu);
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: rom == RomGeneration::ScsiManager43,
            ..Default::default()
        },
    );
    let target = DiskTarget::open(
        path,
        DiskConfig {
            block_size: bs,
            ..Default::default()
        },
    )
    .map_err(|e| {
        anyhow!(
            "cannot attach {} to the emulated SCSI bus: {e}",
            path.display()
        )
    })?;
    scsi_manager::bus(&mut m).attach(id, Box::new(target));
    let report = ferrite_emu::start_manager::boot(&mut m, &BootConfig::new(rom))
        .map_err(|e| anyhow!("the emulated Mac stopped during the boot: {e}"))?;
    println!("{report}");
    if report.drivers().count() == 0 {
        bail!(
            "no driver was loaded from {} (see the SCSI scan above; `ferrite check` and `ferrite install-driver` may help)",
            path.display()
        );
    }
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !report.volumes.iter().any(|v| &v.name == *n))
        .collect();
    if !missing.is_empty() {
        bail!("volumes not mounted: {missing:?} (see the report above)");
    }
    println!(
        "{} of {} volumes mounted through the driver",
        report.volumes.len(),
        names.len()
    );

    if let Some(spec) = cat {
        let (name, file_path, bytes, reads) =
            read_file(&mut m, &report, &mut img, &slots, &names, spec, Fork::Data)?;
        println!(
            "\n{name}:{file_path} — {} bytes read through the driver ({reads} _Read calls), identical to the image:\n",
            bytes.len()
        );
        let text = bytes
            .iter()
            .map(|&b| if b == b'\r' { '\n' } else { b as char })
            .collect::<String>();
        print!("{text}");
        if !text.ends_with('\n') {
            println!();
        }
    }
    if let Some(spec) = launch {
        let (name, file_path, rsrc, reads) = read_file(
            &mut m,
            &report,
            &mut img,
            &slots,
            &names,
            spec,
            Fork::Resource,
        )?;
        println!(
            "\n{name}:{file_path} — resource fork of {} bytes read through the driver ({reads} _Read calls); launching it, then ⌘Q:\n",
            rsrc.len()
        );
        let app_name = file_path.rsplit([':', '/']).next().unwrap_or(file_path);
        let run = m
            .launch_application(&Launch {
                name: disk::mac_name(app_name, 31, "application name")?,
                fork: rsrc,
                script: vec![Input::CommandKey('q')],
            })
            .map_err(|e| anyhow!("{file_path} failed in the emulated Mac: {e}"))?;
        for title in run.screen.window_titles() {
            println!("  window \"{title}\":");
        }
        for line in run.screen.strings_drawn() {
            println!("    {line}");
        }
        println!(
            "  (quit to the Finder after {} emulated instructions)",
            run.instructions
        );
        if !run.screen.seen.contains(&Seen::Exit) {
            bail!("{file_path} did not return to the Finder");
        }
    }
    Ok(())
}

/// Read one fork of `[VOLUME:]PATH` through the driver, and check it against the same fork
/// read straight from the image. Returns the volume name, the path, the bytes and the number
/// of `_Read` calls.
fn read_file<'s>(
    m: &mut Machine,
    report: &ferrite_emu::start_manager::BootReport,
    img: &mut ferrite_formatter::image::ImageFile,
    slots: &[disk::VolumeSlot],
    names: &[String],
    spec: &'s str,
    fork: Fork,
) -> Result<(String, &'s str, Vec<u8>, u64)> {
    let (vol_name, file_path) = match spec.split_once(':') {
        Some((v, p)) => (Some(v), p),
        None => (None, spec),
    };
    let slot = disk::choose_volume(slots, names, vol_name)?;
    let name = names[slot.number - 1].clone();
    let mounted = report
        .volumes
        .iter()
        .find(|v| v.name == name)
        .expect("checked above");
    let drive = m.drive(mounted.drive as i16).ok_or_else(|| {
        anyhow!(
            "drive {} of volume \"{name}\" is gone from the drive queue",
            mounted.drive
        )
    })?;
    let parts: Vec<Vec<u8>> = file_path
        .split([':', '/'])
        .filter(|s| !s.is_empty())
        .map(|s| disk::mac_name(s, 31, "name"))
        .collect::<Result<_>>()?;
    let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
    let mut dev = DriverDisk { m, drive, reads: 0 };
    let bytes = {
        let mut vol = Volume::open(&mut dev)
            .map_err(|e| anyhow!("opening \"{name}\" through the driver: {e}"))?;
        let e = vol
            .lookup_path(&refs)
            .map_err(|e| anyhow!("volume \"{name}\": {e}"))?;
        if e.is_folder() {
            bail!("{name}:{file_path} is a folder: give a file");
        }
        vol.read_fork(&e, fork)
            .map_err(|e| anyhow!("reading {file_path} through the driver: {e}"))?
    };
    let reads = dev.reads;
    // The same fork read straight from the image must match.
    let r = Region::new(img, slot.start, slot.blocks).map_err(|e| anyhow!("{e}"))?;
    let mut host = Volume::open(r).map_err(|e| anyhow!("{e}"))?;
    let he = host.lookup_path(&refs).map_err(|e| anyhow!("{e}"))?;
    let direct = host.read_fork(&he, fork).map_err(|e| anyhow!("{e}"))?;
    if direct != bytes {
        bail!(
            "{name}:{file_path}: the {} bytes read through the driver differ from the image's",
            bytes.len()
        );
    }
    Ok((name, file_path, bytes, reads))
}
