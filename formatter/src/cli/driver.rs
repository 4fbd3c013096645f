//! `ferrite install-driver`: put the driver on an existing disk beside the one it replaces,
//! switch the driver descriptor map to it, retire the old driver partition, and leave every
//! volume alone — [`ferrite_formatter::install`], the core Ferrite Setup runs too, with the
//! command's options and words.
//!
//! The write order keeps the disk bootable with the old or the new driver if it stops after
//! any block (`docs/formatter.md`, "How install-driver writes"): the new driver's code goes
//! to blocks no map entry the ROM follows points at (an `Apple_Free` partition, space no
//! entry covers, or the unused tail of the map partition); its map entry is written while the
//! block 0 descriptor still names the old driver; block 0 — one block — is the switch; the
//! old driver partition becomes `Apple_Free` (the room for the next update) after it.

use super::disk::{self, DriverOptions, apply_settings, describe_settings, driver_blob};
use super::human;
use anyhow::{Result, anyhow, bail};
use ferrite_formatter::BlockDevice;
use ferrite_formatter::apm::{MAX_DRIVER_BYTES, RECORD_AREA_BLOCKS};
pub use ferrite_formatter::install::Installed;
use ferrite_formatter::install::{self as core, InstallError};
use std::path::Path;

pub fn install_driver(path: &Path, options: &DriverOptions, driver: Option<&Path>) -> Result<()> {
    let blob = driver_blob(driver)?;
    if blob.len() > MAX_DRIVER_BYTES {
        bail!(
            "the driver is {} bytes; a partition map driver can be at most {MAX_DRIVER_BYTES}",
            blob.len()
        );
    }
    let mut img = disk::open_disk(path, true)?;
    let c = disk::sniff(path)?;
    if !c.map {
        bail!(
            "{} has no partition map{}: a driver lives in a partition map (`ferrite convert` wraps a bare volume in one)",
            path.display(),
            if c.hfs {
                " (it is a bare HFS volume)"
            } else {
                ""
            }
        );
    }
    let done =
        install(&mut img, blob, options).map_err(|e| anyhow!("{}: {e:#}", path.display()))?;
    println!(
        "{}: Ferrite driver ({} bytes) installed in partition {} at block {}, {} blocks{}",
        path.display(),
        done.bytes,
        done.map_block,
        done.start,
        done.blocks,
        match &done.was {
            Some((name, kind, at)) =>
                format!(" (was \"{name}\" {kind} at block {at}, now free space)"),
            None if done.already => " (it was installed already)".into(),
            None => " (new partition)".into(),
        }
    );
    if let Some(s) = &done.settings {
        println!("driver settings: {}", describe_settings(s));
    }
    match done.record_area {
        Some(at) => println!(
            "flight-record area: blocks {at}-{}",
            at + RECORD_AREA_BLOCKS - 1
        ),
        None => println!(
            "note: no room for the flight-record area ({RECORD_AREA_BLOCKS} blocks after the driver): \
             the driver was installed without one, so `ferrite report` will have no record to show. \
             Free {RECORD_AREA_BLOCKS} more blocks after the last partition and run install-driver again to add it"
        ),
    }
    Ok(())
}

/// [`core::install`] with the command's `--write-cache`… options and its words for errors.
pub fn install<D: BlockDevice + ?Sized>(
    dev: &mut D,
    blob: Vec<u8>,
    options: &DriverOptions,
) -> Result<Installed> {
    core::install(dev, blob, &mut |b| {
        apply_settings(b, options).map_err(|e| format!("{e:#}"))
    })
    .map_err(|e| match e {
        InstallError::Map(e) => anyhow!("{e} (see `ferrite check`)"),
        InstallError::NoRoom {
            need,
            have,
            block_size,
        } => {
            let bytes = need * block_size as u64;
            anyhow!(
                "there is no room for the new driver and its flight-record area ({}) beside the \
                 {}: it goes to free space (an Apple_Free partition, space no partition covers, \
                 or the unused end of the partition map) so that the disk always keeps a driver \
                 that boots. Free {} after the last partition (make the last volume smaller), \
                 or back up the volumes and run `ferrite init --force`",
                human(bytes),
                if have.is_some() {
                    "installed driver"
                } else {
                    "partitions"
                },
                human(bytes)
            )
        }
        e => anyhow!("{e}"),
    })
}
