//! The structure-aware target that boots mutated disks in the emulated Mac (issue 13,
//! item 4): the real 68k driver, loaded by the emulated ROM from a disk whose partition map
//! the input has changed, must decline what it cannot serve and never hang the boot, fault,
//! or break the heap; every drive it adds must read to its last block.
//!
//! The disk: the shipped driver (`target/m68k/ferrite-driver.bin`, or `$FERRITE_M68K_DIR`)
//! and two small HFS volumes, laid out by the emulator's test-disk builder. The input is a
//! list of edits, four bytes each — block (mod 6: the driver descriptor map and map entries
//! 1–5), offset (16 bits, mod 512), value — applied to that disk; then the fields the ROM
//! uses to find and load the driver are put back (block 0's signature and first driver
//! descriptor, the driver's map entry), since a ROM that loads garbage as a driver tests the
//! ROM, not the driver. What the driver reads — the map's own entry and its count, the
//! volumes' entries, the entries after them, the rest of block 0 — stays mutated. The first
//! input byte also picks the machine: a 68040 with SCSI Manager 4.3 or a 68000 with the
//! original SCSI Manager.

use std::path::PathBuf;
use std::sync::OnceLock;

use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::scsi_manager::{self, ScsiManagerConfig};
use ferrite_emu::start_manager::{BootConfig, RomGeneration, boot};
use ferrite_emu::test_disk::{TestDisk, TestVolume};
use ferrite_emu::{CpuModel, Machine, MachineConfig};

const ID: u8 = 0;
/// The device blocks the edits reach: block 0 and map entries 1–5.
const EDIT_BLOCKS: usize = 6;
/// Map entry of the driver in the test disk's layout.
const DRIVER_ENTRY: usize = 2;

/// The shipped driver blob, if it was built.
pub fn driver_blob() -> Option<&'static [u8]> {
    static BLOB: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    BLOB.get_or_init(|| {
        let dir = std::env::var_os("FERRITE_M68K_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/m68k"));
        std::fs::read(dir.join("ferrite-driver.bin")).ok()
    })
    .as_deref()
}

/// The unmutated disk image.
fn base_image(blob: &[u8]) -> &'static [u8] {
    static IMAGE: OnceLock<Vec<u8>> = OnceLock::new();
    IMAGE.get_or_init(|| {
        let mut disk = TestDisk::new(blob.to_vec());
        disk.volumes = (1..=2)
            .map(|i| TestVolume {
                name: format!("Vol {i}"),
                blocks: 400,
                alloc_block_size: 512,
                free_alloc_blocks: 100,
            })
            .collect();
        disk.total_blocks = 64 + 40 + 800 + 100;
        disk.build().0
    })
}

/// The mutated image for `data` (see the module doc).
pub fn mutated_image(blob: &[u8], data: &[u8]) -> Vec<u8> {
    let base = base_image(blob);
    let mut img = base.to_vec();
    for e in data.get(1..).unwrap_or(&[]).chunks_exact(4) {
        let block = e[0] as usize % EDIT_BLOCKS;
        let off = u16::from_be_bytes([e[1], e[2]]) as usize % 512;
        img[block * 512 + off] = e[3];
    }
    // What the ROM reads to choose and load the driver, as it was.
    img[..2].copy_from_slice(&base[..2]);
    img[16..26].copy_from_slice(&base[16..26]);
    let d = DRIVER_ENTRY * 512;
    img[d..d + 512].copy_from_slice(&base[d..d + 512]);
    img
}

/// What a boot came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The ROM did not load the driver (the mutation broke what it checks).
    NotLoaded,
    /// The driver ran and declined the disk (nothing installed).
    Declined,
    /// The driver serves this many drives, each read at both ends.
    Served(usize),
}

/// The libFuzzer entry: [`boot_and_check`], without a built driver a no-op (the short run's
/// test refuses to run then, so that is never silent).
pub fn boot_disk(data: &[u8]) {
    if let Some(blob) = driver_blob() {
        boot_and_check(blob, data);
    }
}

/// Boot the disk mutated by `data`; panic if an invariant breaks.
pub fn boot_and_check(blob: &[u8], data: &[u8]) -> Outcome {
    let image = mutated_image(blob, data);
    let total = (image.len() / 512) as u32;
    let (cpu, rom) = if data.first().is_some_and(|b| b & 1 == 1) {
        (CpuModel::M68000, RomGeneration::OriginalScsiManager)
    } else {
        (CpuModel::M68040, RomGeneration::ScsiManager43)
    };
    let mut cfg = MachineConfig::new(cpu);
    // A hang shows as the budget running out long before libFuzzer's timeout.
    cfg.instruction_budget = 20_000_000;
    let mut m = Machine::with_config(cfg).expect("machine");
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: rom == RomGeneration::ScsiManager43,
            ..Default::default()
        },
    );
    let mut target = DiskTarget::in_memory(total as u64, DiskConfig::default()).expect("disk");
    target.write_store(0, &image).expect("disk");
    scsi_manager::bus(&mut m).attach(ID, Box::new(target));
    let report = boot(&mut m, &BootConfig::new(rom))
        .unwrap_or_else(|e| panic!("{cpu} {rom:?}: the boot failed: {e}"));
    let Some(loaded) = report.drivers().find(|d| d.id == ID) else {
        return Outcome::NotLoaded;
    };
    let Some(ref_num) = loaded.ref_num else {
        return Outcome::Declined; // nothing installed is a fine answer to a bad map
    };
    let mut served = 0;
    for d in report.drives.iter().filter(|d| d.ref_num == ref_num) {
        served += 1;
        assert!(
            d.blocks > 0 && d.blocks <= total,
            "{cpu} {rom:?}: drive {} has {} blocks on a {total}-block disk",
            d.number,
            d.blocks
        );
        for block in [0, d.blocks - 1] {
            let e = read_block(&mut m, ref_num, d.number, block);
            assert_eq!(
                e, 0,
                "{cpu} {rom:?}: drive {} ({} blocks) cannot read its block {block}",
                d.number, d.blocks
            );
        }
    }
    Outcome::Served(served)
}

/// `_Read` of one block of drive `number` through the driver; the result code.
fn read_block(m: &mut Machine, ref_num: i16, number: i16, block: u32) -> i16 {
    let pb = m
        .new_ptr(ferrite_emu::memory_manager::ZoneId::System, 80, true)
        .expect("room for a parameter block");
    let buf = m
        .new_ptr(ferrite_emu::memory_manager::ZoneId::System, 512, true)
        .expect("room for a buffer");
    m.write_u16(pb + 22, number as u16); // ioVRefNum
    m.write_u16(pb + 24, ref_num as u16); // ioRefNum
    m.write_u32(pb + 32, buf); // ioBuffer
    m.write_u32(pb + 36, 512); // ioReqCount
    m.write_u16(pb + 44, 1); // ioPosMode fsFromStart
    m.write_u32(pb + 46, block * 512); // ioPosOffset
    let e = m
        .device_call(0xA002, pb)
        .unwrap_or_else(|f| panic!("reading block {block} of drive {number}: {f}"));
    e as i16
}
