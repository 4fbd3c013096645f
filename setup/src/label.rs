//! What is on a disk: its partition map and the driver in it.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use ferrite_shared::driver_blob;
use ferrite_shared::partition_map::{
    self, DDM_SIGNATURE, DriverDescriptorMap, PM_SIGNATURE, PartitionEntry,
};

/// Most map entries the scan reads (a map is rarely longer; Apple's tools make 63 at most).
pub const MAX_ENTRIES: u32 = 64;
/// Offset of `pmPad` in a map entry, whose first long is the driver signature (mac-facts §1.6).
const PM_PAD: usize = 136;

/// Which driver a disk carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Driver {
    /// Ferrite's blob ('FRRT' at +4); the version when the blob records it.
    Ferrite { version: Option<[u8; 3]> },
    /// Apple's SCSI driver as Apple HD SC Setup / Drive Setup install it: partition name
    /// "Macintosh" and the `pmPad` signature `$00010600`, without Ferrite's magic.
    Apple,
    /// Anything else in an `Apple_Driver…` partition: its name and type.
    Other { name: String, kind: String },
}

/// The disk's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Label {
    /// Block 0 is not a Driver Descriptor Map ('ER'): blank or foreign.
    Unformatted,
    /// A DDM, but block 1 is no 'PM' entry.
    NoMap,
    /// An Apple partition map.
    Apm {
        partitions: u32,
        hfs: u32,
        driver: Option<Driver>,
    },
}

fn text(b: &[u8]) -> String {
    b.iter()
        .map(|&c| {
            if (0x20..0x7F).contains(&c) {
                c as char
            } else {
                '?'
            }
        })
        .collect()
}

/// Read the label through `read(lba)` (512-byte blocks; `None` = the read failed).
pub fn read_label(read: &mut dyn FnMut(u32) -> Option<Vec<u8>>) -> Option<Label> {
    let b0 = read(0)?;
    let ddm = DriverDescriptorMap::read(&b0)?;
    if ddm.sig.get() != DDM_SIGNATURE {
        return Some(Label::Unformatted);
    }
    let first = PartitionEntry::read(&read(1)?)?;
    if first.sig.get() != PM_SIGNATURE {
        return Some(Label::NoMap);
    }
    let count = first.map_block_count.get().min(MAX_ENTRIES);
    let (mut partitions, mut hfs, mut driver) = (0, 0, None);
    for lba in 1..=count {
        let block = if lba == 1 { None } else { Some(read(lba)?) };
        let e = match &block {
            None => first,
            Some(b) => PartitionEntry::read(b)?,
        };
        if e.sig.get() != PM_SIGNATURE {
            break;
        }
        partitions += 1;
        let kind = e.type_bytes();
        if kind == partition_map::part_type::HFS.as_bytes() {
            hfs += 1;
        }
        if driver.is_none() && kind.starts_with(partition_map::part_type::DRIVER.as_bytes()) {
            let raw = match &block {
                None => read(1)?,
                Some(b) => b.clone(),
            };
            driver = Some(identify_driver(&e, &raw, read));
        }
    }
    Some(Label::Apm {
        partitions,
        hfs,
        driver,
    })
}

fn identify_driver(
    e: &PartitionEntry,
    raw_entry: &[u8],
    read: &mut dyn FnMut(u32) -> Option<Vec<u8>>,
) -> Driver {
    if let Some(code) = read(e.start.get())
        && code.get(driver_blob::MAGIC_OFFSET..driver_blob::MAGIC_OFFSET + 4)
            == Some(&driver_blob::MAGIC[..])
    {
        return Driver::Ferrite {
            version: driver_blob::driver_version(&code),
        };
    }
    let pad = u32::from_be_bytes([
        raw_entry[PM_PAD],
        raw_entry[PM_PAD + 1],
        raw_entry[PM_PAD + 2],
        raw_entry[PM_PAD + 3],
    ]);
    if e.name_bytes() == b"Macintosh" && pad == partition_map::SCSI_DRIVER_PAD_SIGNATURE {
        return Driver::Apple;
    }
    Driver::Other {
        name: text(e.name_bytes()),
        kind: text(e.type_bytes()),
    }
}

impl Driver {
    /// "Ferrite 0.1.0 driver", "Apple driver", "other driver (…)".
    pub fn describe(&self) -> String {
        let mut s = String::new();
        match self {
            Driver::Ferrite {
                version: Some([a, b, c]),
            } => {
                let _ = write!(s, "Ferrite {a}.{b}.{c} driver");
            }
            Driver::Ferrite { version: None } => s.push_str("Ferrite driver (old, no version)"),
            Driver::Apple => s.push_str("Apple driver"),
            Driver::Other { name, kind } => {
                let _ = write!(s, "other driver ({kind} \"{name}\")");
            }
        }
        s
    }
}

impl Label {
    /// One line for the device list.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        match self {
            Label::Unformatted => s.push_str("no partition map"),
            Label::NoMap => s.push_str("driver descriptor map, but no partition map"),
            Label::Apm {
                partitions,
                hfs,
                driver,
            } => {
                let _ = write!(s, "Apple partition map, {partitions} entries ({hfs} HFS); ");
                match driver {
                    Some(d) => s.push_str(&d.describe()),
                    None => s.push_str("no driver"),
                }
            }
        }
        s
    }
}
