//! Which SCSI devices the Mac itself is using, from its drive queue and `BootDrive`, and the
//! refusal a destructive command gives for them.
//!
//! A SCSI disk's driver takes unit 32 + ID, so its drive queue elements carry refNum
//! −(33 + ID) (`docs/mac-facts.md` §1, §4). A drive in the queue for an ID means the Mac may
//! have a volume of that disk mounted, and writing under it would corrupt it: Initialize and
//! the other destructive commands refuse such a disk, and say so differently when the drive
//! is the startup drive (`BootDrive`). The app does not read the VCB queue: it refuses every
//! disk with a drive, mounted or not (the harder case; a user puts the volumes away and
//! restarts without the driver, or initializes from another Mac).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// One drive queue element as the app reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriveEntry {
    pub drive: i16,
    pub ref_num: i16,
}

/// The SCSI ID whose driver a refNum names (−33 … −39 → 0 … 6).
pub fn scsi_id_of(ref_num: i16) -> Option<u8> {
    (-39..=-33)
        .contains(&ref_num)
        .then(|| (-33 - ref_num) as u8)
}

/// Why the app must not write to a disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InUse {
    /// The Mac started up from it.
    Startup { drive: i16 },
    /// It has drives in the drive queue (its volumes may be mounted).
    Drives(Vec<i16>),
}

/// Whether the Mac is using the disk at `id`.
pub fn in_use(id: u8, queue: &[DriveEntry], boot_drive: i16) -> Option<InUse> {
    let drives: Vec<i16> = queue
        .iter()
        .filter(|e| scsi_id_of(e.ref_num) == Some(id))
        .map(|e| e.drive)
        .collect();
    if drives.contains(&boot_drive) {
        Some(InUse::Startup { drive: boot_drive })
    } else if drives.is_empty() {
        None
    } else {
        Some(InUse::Drives(drives))
    }
}

impl InUse {
    /// The refusal, naming the disk and the way out.
    pub fn refusal(&self, id: u8, command: &str) -> String {
        let mut s = String::new();
        match self {
            InUse::Startup { drive } => {
                let _ = write!(
                    s,
                    "{command} refused: ID {id} is the startup disk (drive {drive}). Start up from another disk to change it."
                );
            }
            InUse::Drives(d) => {
                let _ = write!(s, "{command} refused: the Mac is using ID {id} (drive");
                if d.len() > 1 {
                    s.push('s');
                }
                let mut sep = " ";
                for n in d {
                    s.push_str(sep);
                    let _ = write!(s, "{n}");
                    sep = ", ";
                }
                s.push_str(
                    "); its volumes may be mounted. Put them away (drag them to the Trash) and restart without its driver, then try again.",
                );
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drives_of_an_id() {
        let q = [
            DriveEntry {
                drive: 1,
                ref_num: -5,
            },
            DriveEntry {
                drive: 8,
                ref_num: -33,
            },
            DriveEntry {
                drive: 9,
                ref_num: -36,
            },
            DriveEntry {
                drive: 10,
                ref_num: -36,
            },
        ];
        assert_eq!(scsi_id_of(-33), Some(0));
        assert_eq!(scsi_id_of(-39), Some(6));
        assert_eq!(scsi_id_of(-40), None);
        assert_eq!(in_use(0, &q, 8), Some(InUse::Startup { drive: 8 }));
        assert_eq!(in_use(3, &q, 8), Some(InUse::Drives(alloc::vec![9, 10])));
        assert_eq!(in_use(5, &q, 8), None);
        assert_eq!(
            in_use(3, &q, 8).unwrap().refusal(3, "Initialize"),
            "Initialize refused: the Mac is using ID 3 (drives 9, 10); its volumes may be mounted. Put them away (drag them to the Trash) and restart without its driver, then try again."
        );
        assert_eq!(
            in_use(0, &q, 8).unwrap().refusal(0, "Initialize"),
            "Initialize refused: ID 0 is the startup disk (drive 8). Start up from another disk to change it."
        );
    }
}
