//! The bus scan against a model transport: absent IDs, unit attentions, INQUIRY strings,
//! capacities, partition maps and the driver identification.

use std::collections::BTreeMap;

use ferrite_emu::test_disk::TestDisk;
use ferrite_setup::bus::{self, Capacity, ScsiError, Slot, Transport};
use ferrite_setup::label::{Driver, Label};
use ferrite_shared::driver_blob;

struct Target {
    inquiry: [u8; 36],
    image: Vec<u8>,
    /// CHECK CONDITION answers still owed (a unit attention after power-on).
    attentions: u32,
}

#[derive(Default)]
struct Model {
    targets: BTreeMap<u8, Target>,
    log: Vec<(u8, u8)>,
}

fn inquiry(dtype: u8, vendor: &str, product: &str, rev: &str) -> [u8; 36] {
    let mut b = [b' '; 36];
    b[..8].fill(0);
    b[0] = dtype;
    b[8..8 + vendor.len()].copy_from_slice(vendor.as_bytes());
    b[16..16 + product.len()].copy_from_slice(product.as_bytes());
    b[32..32 + rev.len()].copy_from_slice(rev.as_bytes());
    b
}

impl Transport for Model {
    fn command(&mut self, id: u8, cdb: &[u8], data: &mut [u8]) -> Result<(), ScsiError> {
        self.log.push((id, cdb[0]));
        assert_ne!(
            id,
            bus::HOST_ID,
            "the scan must not select the Mac's own ID"
        );
        let t = self.targets.get_mut(&id).ok_or(ScsiError::NoDevice)?;
        if cdb[0] == 0x03 {
            data.fill(0);
            return Ok(());
        }
        if t.attentions > 0 && cdb[0] != 0x12 {
            t.attentions -= 1;
            return Err(ScsiError::Status(2));
        }
        match cdb[0] {
            0x12 => data.copy_from_slice(&t.inquiry[..data.len()]),
            0x25 => {
                let last = (t.image.len() / 512) as u32 - 1;
                data[..4].copy_from_slice(&last.to_be_bytes());
                data[4..8].copy_from_slice(&512u32.to_be_bytes());
            }
            0x28 => {
                let lba = u32::from_be_bytes([cdb[2], cdb[3], cdb[4], cdb[5]]) as usize;
                let b = t
                    .image
                    .get(lba * 512..lba * 512 + 512)
                    .ok_or(ScsiError::Status(2))?;
                data.copy_from_slice(b);
            }
            op => panic!("unexpected opcode {op:#x}"),
        }
        Ok(())
    }
    fn command_out(&mut self, _: u8, cdb: &[u8], _: &[u8]) -> Result<(), ScsiError> {
        panic!("the scan must never write (opcode {:#x})", cdb[0])
    }
    fn name(&self) -> &'static str {
        "model"
    }
}

fn ferrite_blob(version: [u8; 3]) -> Vec<u8> {
    let mut b = vec![0u8; 1024];
    b[driver_blob::MAGIC_OFFSET..driver_blob::MAGIC_OFFSET + 4]
        .copy_from_slice(&driver_blob::MAGIC);
    b[driver_blob::DRIVER_VERSION_OFFSET..driver_blob::DRIVER_VERSION_OFFSET + 3]
        .copy_from_slice(&version);
    b
}

#[test]
fn scan_lists_devices_and_what_is_on_them() {
    let mut m = Model::default();
    let (ferrite, _) = TestDisk {
        total_blocks: 16384,
        ..TestDisk::new(ferrite_blob([0, 3, 1]))
    }
    .build();
    m.targets.insert(
        0,
        Target {
            inquiry: inquiry(0, "QUANTUM", "LPS40S", "0230"),
            image: ferrite,
            attentions: 1,
        },
    );
    let (other, _) = TestDisk {
        total_blocks: 8192,
        driver_name: "SilverLining".into(),
        ..TestDisk::new(vec![0x4E; 512])
    }
    .build();
    m.targets.insert(
        2,
        Target {
            inquiry: inquiry(0, "SEAGATE", "ST1096N", "A"),
            image: other,
            attentions: 0,
        },
    );
    m.targets.insert(
        4,
        Target {
            inquiry: inquiry(0, "IBM", "BLANK", "1"),
            image: vec![0; 512 * 2048],
            attentions: 2,
        },
    );
    m.targets.insert(
        5,
        Target {
            inquiry: inquiry(0x7F, "", "", ""),
            image: vec![],
            attentions: 0,
        },
    );
    m.targets.insert(
        6,
        Target {
            inquiry: inquiry(0x05, "SONY", "CDU-8003A", "1.9a"),
            image: vec![0; 512 * 16],
            attentions: 0,
        },
    );
    let slots = bus::scan(&mut m);
    assert_eq!(
        slots.iter().map(|s| s.0).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5, 6]
    );
    let Slot::Present(d0) = &slots[0].1 else {
        panic!("{:?}", slots[0])
    };
    assert_eq!(
        (
            d0.inquiry.vendor.as_str(),
            d0.inquiry.product.as_str(),
            d0.inquiry.revision.as_str()
        ),
        ("QUANTUM", "LPS40S", "0230")
    );
    assert_eq!(
        d0.capacity,
        Some(Ok(Capacity {
            blocks: 16384,
            block_len: 512
        }))
    );
    assert_eq!(
        d0.label,
        Some(Label::Apm {
            partitions: 4,
            hfs: 1,
            driver: Some(Driver::Ferrite {
                version: Some([0, 3, 1])
            })
        })
    );
    assert_eq!(slots[1].1, Slot::Absent);
    // Not Ferrite's blob, not Apple's name: another formatter's driver.
    let Slot::Present(d2) = &slots[2].1 else {
        panic!()
    };
    assert!(
        matches!(&d2.label, Some(Label::Apm { driver: Some(Driver::Other { kind, .. }), .. }) if kind == "Apple_Driver43")
    );
    assert_eq!(
        bus::rows(2, &slots[2].1)[1..],
        [
            "      4.0 MB, 8192 blocks of 512",
            "      Apple partition map, 4 entries (1 HFS); other driver (Apple_Driver43 \"SilverLining\")"
        ]
    );
    let Slot::Present(d4) = &slots[4].1 else {
        panic!()
    };
    assert_eq!(
        d4.label,
        Some(Label::Unformatted),
        "two unit attentions are retried"
    );
    assert_eq!(
        slots[5].1,
        Slot::Absent,
        "device type 1Fh with qualifier 3: nothing there"
    );
    assert_eq!(
        bus::rows(0, &slots[0].1),
        [
            "ID 0  disk  QUANTUM LPS40S 0230",
            "      8.0 MB, 16384 blocks of 512",
            "      Apple partition map, 4 entries (1 HFS); Ferrite 0.3.1 driver"
        ]
    );
    assert_eq!(bus::rows(1, &slots[1].1), ["ID 1  no device"]);
    assert_eq!(
        bus::rows(6, &slots[6].1)[0],
        "ID 6  CD-ROM  SONY CDU-8003A 1.9a"
    );
    assert!(!m.log.iter().any(|&(id, _)| id == 7));
}

#[test]
fn sizes_read_as_the_finder_counts() {
    assert_eq!(bus::format_size(41_943_040), "40.0 MB");
    assert_eq!(bus::format_size(1_084_489_728), "1.0 GB");
    assert_eq!(bus::format_size(2_147_483_648), "2.0 GB");
    assert_eq!(bus::format_size(524_288), "512.0 KB");
    assert_eq!(bus::format_size(20 * (1 << 20) + (1 << 19)), "20.5 MB");
}

#[test]
fn apple_driver_is_recognised_by_name_and_signature() {
    // TestDisk writes what Apple's tools write: name "Macintosh", pmPad $00010600.
    let (mut image, layout) = TestDisk {
        total_blocks: 8192,
        ..TestDisk::new(vec![0x4E; 512])
    }
    .build();
    let mut m = Model::default();
    m.targets.insert(
        3,
        Target {
            inquiry: inquiry(0, "APPLE", "HD20SC", "1.0"),
            image: image.clone(),
            attentions: 0,
        },
    );
    let Slot::Present(d) = bus::probe(&mut m, 3) else {
        panic!()
    };
    assert!(
        matches!(
            d.label,
            Some(Label::Apm {
                driver: Some(Driver::Apple),
                ..
            })
        ),
        "{:?}",
        d.label
    );
    // Without the signature it is someone else's driver.
    for lba in 1..8 {
        let e = &mut image[lba * 512..lba * 512 + 512];
        if e[0..2] == *b"PM"
            && u32::from_be_bytes([e[8], e[9], e[10], e[11]]) == layout.driver_start
        {
            e[136..140].fill(0);
        }
    }
    m.targets.get_mut(&3).unwrap().image = image;
    let Slot::Present(d) = bus::probe(&mut m, 3) else {
        panic!()
    };
    assert!(
        matches!(
            d.label,
            Some(Label::Apm {
                driver: Some(Driver::Other { .. }),
                ..
            })
        ),
        "{:?}",
        d.label
    );
}

/// A bus the original SCSI Manager refuses (`SCSIGet` → `scMgrBusyErr`) is reported as busy,
/// not as devices that fail INQUIRY.
#[test]
fn a_busy_bus_is_reported_as_busy() {
    struct Busy;
    impl Transport for Busy {
        fn command(&mut self, _: u8, _: &[u8], _: &mut [u8]) -> Result<(), ScsiError> {
            Err(ScsiError::BusBusy)
        }
        fn command_out(&mut self, _: u8, _: &[u8], _: &[u8]) -> Result<(), ScsiError> {
            Err(ScsiError::BusBusy)
        }
        fn name(&self) -> &'static str {
            "busy"
        }
    }
    let scan = bus::scan(&mut Busy);
    assert_eq!(scan.len(), 7);
    for (id, slot) in &scan {
        assert_eq!(*slot, Slot::BusBusy);
        let rows = bus::rows(*id, slot);
        assert_eq!(
            rows,
            [format!(
                "ID {id}  not scanned: the SCSI Manager reports the bus busy (scMgrBusyErr); Rescan later"
            )]
        );
        assert!(!rows[0].contains("INQUIRY"));
    }
    assert_eq!(
        bus::describe_error(&ScsiError::Manager(5)),
        "wrong bus phase (scPhaseErr), SCSI Manager error 5"
    );
}
