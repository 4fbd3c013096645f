//! The driver's install entry as the ROM models call it: the return address lies in the
//! ROM's address range, only the documented registers carry values (D5; A0 → a copy of the
//! driver's map entry at the original entry), every other register is poisoned, and the
//! system heap has the ROM model's boot-time size. Hand-assembled probe drivers (no binutils
//! needed) observe the call and misbehave on purpose.

use ferrite_emu::scsi::{DiskConfig, DiskTarget};
use ferrite_emu::scsi_manager::{self, ScsiManagerConfig};
use ferrite_emu::start_manager::{
    BootConfig, BootReport, RomGeneration, RomModel, ScanOutcome, boot,
};
use ferrite_emu::test_disk::TestDisk;
use ferrite_emu::testing::words_to_bytes;
use ferrite_emu::{CpuModel, Fault, Machine, MachineConfig, RunError, ZoneId};

const ID: u8 = 4;
const ROMS: [RomGeneration; 2] = [
    RomGeneration::OriginalScsiManager,
    RomGeneration::ScsiManager43,
];
/// A Plus-class (24-bit 68000) and a Quadra-class (32-bit 68040) machine.
const CPUS: [CpuModel; 2] = [CpuModel::M68000, CpuModel::M68040];

/// Where the probes write (the free load area below the system heap).
const PROBE_REGS: u32 = 0x1_0000;
const PROBE_RETURN: u32 = 0x1_003C;
const PROBE_VALUE: u32 = 0x1_0040;

/// ```text
/// +0  bra.w probe; .long 1
/// +8  bra.w probe
/// probe: movem.l d0-d7/a0-a6,$10000; move.l (sp),$1003C   — registers and return address
///        _FreeMem,SYS ($A41C); move.l d0,$10040            — free system heap at install
///        moveq #0,d0; rts                                   — installs nothing
/// ```
const PROBE: [u16; 19] = [
    0x6000, 0x000a, 0x0000, 0x0001, 0x6000, 0x0002, 0x48f9, 0x7fff, 0x0001, 0x0000, 0x23d7, 0x0001,
    0x003c, 0xa41c, 0x23c0, 0x0001, 0x0040, 0x7000, 0x4e75,
];

/// `move.l (a3),d0; rts` at +0 and +8: trusts A3, which no ROM sets.
const USES_A3: [u16; 6] = [0x2013, 0x4e75, 0x4e71, 0x4e71, 0x2013, 0x4e75];

/// `move.l 48(a0),$10040; rts` behind both entries: reads `pmParType` through A0.
const READS_A0: [u16; 11] = [
    0x600a, 0x4e71, 0x4e71, 0x4e71, 0x6002, 0x4e71, 0x23e8, 0x0030, 0x0001, 0x0040, 0x4e75,
];

/// `addq.l #2,(sp); rts` behind both entries: returns past the ROM's return address.
const WRONG_RETURN: [u16; 6] = [0x5497, 0x4e75, 0x4e71, 0x4e71, 0x5497, 0x4e75];

fn machine(cpu: CpuModel, rom: RomGeneration, driver: &[u16]) -> Machine {
    machine_with(MachineConfig::new(cpu), rom, driver)
}

fn machine_with(cfg: MachineConfig, rom: RomGeneration, driver: &[u16]) -> Machine {
    let mut m = Machine::with_config(cfg).unwrap();
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: rom == RomGeneration::ScsiManager43,
            ..Default::default()
        },
    );
    let (image, _) = TestDisk::new(words_to_bytes(driver)).build();
    let mut disk =
        DiskTarget::in_memory((image.len() / 512) as u64, DiskConfig::default()).unwrap();
    disk.write_store(0, &image).unwrap();
    scsi_manager::bus(&mut m).attach(ID, Box::new(disk));
    m
}

fn boot_ok(m: &mut Machine, rom: RomGeneration) -> BootReport {
    boot(m, &BootConfig::new(rom)).unwrap_or_else(|e| panic!("{} {rom:?}: {e}", m.model()))
}

fn boot_err(m: &mut Machine, rom: RomGeneration) -> RunError {
    match boot(m, &BootConfig::new(rom)) {
        Ok(r) => panic!("{} {rom:?}: the boot should fail:\n{r}", m.model()),
        Err(e) => e,
    }
}

fn entry_offset(rom: RomGeneration) -> u32 {
    match rom {
        RomGeneration::OriginalScsiManager | RomGeneration::Quadra => 0,
        RomGeneration::ScsiManager43 => 8,
    }
}

#[test]
fn the_install_entry_returns_into_the_rom_with_only_the_documented_registers_set() {
    // The Quadra model (old ROM, 4.3 arriving later) installs exactly as the old ROM does.
    let cases = CPUS
        .iter()
        .flat_map(|&cpu| ROMS.iter().map(move |&rom| (cpu, rom)))
        .chain([(CpuModel::M68040, RomGeneration::Quadra)]);
    for (cpu, rom) in cases {
        {
            let mut m = machine(cpu, rom, &PROBE);
            let report = boot_ok(&mut m, rom);
            let model = RomModel::for_machine(&m);
            assert_eq!(report.rom_model, Some(model));
            let ret = m.read_u32(PROBE_RETURN);
            assert_eq!(ret, model.install_return_address(), "{cpu} {rom:?}");
            assert!(
                model.contains(ret),
                "{cpu} {rom:?}: ${ret:08X} is in the ROM"
            );
            let expected_rom_base = if cpu == CpuModel::M68000 {
                0x40_0000
            } else {
                0x4080_0000
            };
            assert_eq!(model.rom_base, expected_rom_base);

            let regs: Vec<u32> = (0..15).map(|i| m.read_u32(PROBE_REGS + 4 * i)).collect();
            let d5 = match rom {
                RomGeneration::OriginalScsiManager | RomGeneration::Quadra => ID as u32,
                RomGeneration::ScsiManager43 => (ID as u32) << 8,
            };
            assert_eq!(regs[5], d5, "{cpu} {rom:?}: D5");
            let a0_given = rom != RomGeneration::ScsiManager43;
            if a0_given {
                // A0 → a copy of the driver's partition map entry.
                let a0 = regs[8];
                assert_eq!(m.read_u16(a0), 0x504D, "'PM'");
                assert_eq!(m.read_bytes(a0 + 48, 14), b"Apple_Driver43");
            }
            let ram = m.config().ram_size;
            let mask = m.bus().address_mask();
            for (i, &v) in regs.iter().enumerate() {
                if i == 5 || (i == 8 && a0_given) {
                    continue;
                }
                assert!(
                    v & 1 == 1 && (v & mask) >= ram && !model.contains(v & mask),
                    "{cpu} {rom:?}: register {i} = ${v:08X} is not poisoned"
                );
            }
            // The entry really was the one the ROM generation uses.
            // The probe installs nothing: on the original ROM a failed load; on the 4.3 ROM a
            // driver without a cross-reference, kept with a warning.
            let d = match &report.scan.iter().find(|(id, _)| *id == ID).unwrap().1 {
                ScanOutcome::Failed(why) => why.clone(),
                ScanOutcome::Loaded(l) if rom == RomGeneration::ScsiManager43 => {
                    assert_eq!(l.ref_num, None);
                    report.warnings.join("\n")
                }
                other => panic!("{cpu} {rom:?}: the probe installs nothing: {other:?}"),
            };
            assert!(d.contains(&format!("ID {ID}")), "{d}");
            let _ = entry_offset(rom);
        }
    }
}

#[test]
fn poisoned_registers_differ_with_the_seed() {
    let probe = |seed: u64| {
        let mut m = machine(CpuModel::M68040, RomGeneration::ScsiManager43, &PROBE);
        let mut cfg = BootConfig::new(RomGeneration::ScsiManager43);
        cfg.register_seed = seed;
        boot(&mut m, &cfg).unwrap();
        (0..15)
            .map(|i| m.read_u32(PROBE_REGS + 4 * i))
            .collect::<Vec<_>>()
    };
    assert_eq!(probe(1), probe(1));
    assert_ne!(probe(1), probe(2));
}

#[test]
fn a_driver_that_uses_a_register_the_rom_does_not_set_is_named() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut m = machine(cpu, rom, &USES_A3);
            let e = boot_err(&mut m, rom);
            let Fault::Misuse { message, .. } = &e.fault else {
                panic!("{cpu} {rom:?}: {e}");
            };
            for needle in [
                "used A3 as an address",
                "the ROM does not set A3",
                "D5 = ",
                "FERRITE_SEED",
            ] {
                assert!(
                    message.contains(needle),
                    "{cpu} {rom:?}: {needle:?} in {message}"
                );
            }
        }
    }
}

#[test]
fn the_map_entry_in_a0_is_given_only_at_the_original_entry() {
    for cpu in CPUS {
        let rom = RomGeneration::OriginalScsiManager;
        let mut m = machine(cpu, rom, &READS_A0);
        boot_ok(&mut m, rom);
        assert_eq!(&m.read_u32(PROBE_VALUE).to_be_bytes(), b"Appl", "{cpu}");

        let rom = RomGeneration::ScsiManager43;
        let mut m = machine(cpu, rom, &READS_A0);
        let e = boot_err(&mut m, rom);
        assert!(
            e.to_string().contains("used A0 as an address"),
            "{cpu}: IM Devices gives the 4.3 entry nothing but D5: {e}"
        );
    }
}

#[test]
fn returning_anywhere_else_in_the_rom_is_caught() {
    for cpu in CPUS {
        for rom in ROMS {
            let mut m = machine(cpu, rom, &WRONG_RETURN);
            let e = boot_err(&mut m, rom);
            let ret = RomModel::for_machine(&m).install_return_address();
            assert_eq!(e.pc, ret + 2, "{cpu} {rom:?}: {e}");
            assert!(
                e.to_string().contains("not the return address"),
                "{cpu} {rom:?}: {e}"
            );
        }
    }
}

#[test]
fn drivers_load_into_the_rom_models_boot_time_system_heap() {
    for cpu in CPUS {
        let rom = RomGeneration::OriginalScsiManager;
        let mut m = machine(cpu, rom, &PROBE);
        let report = boot_ok(&mut m, rom);
        let model = RomModel::for_machine(&m);
        let free_at_install = m.read_u32(PROBE_VALUE);
        assert!(
            free_at_install > 0 && free_at_install < model.boot_system_heap,
            "{cpu}: {free_at_install} bytes free of a {}-byte boot heap",
            model.boot_system_heap
        );
        assert_eq!(report.boot_heap_free, free_at_install);
        // Afterwards the system heap has its working size again.
        let (s0, s1) = m.layout().system_heap;
        assert_eq!(m.read_u32(s0), s1, "bkLim restored");
        assert!(m.memory_manager().free_mem(ZoneId::System) > model.boot_system_heap);
    }
    // Plus class: 48 KB; Quadra class: 128 KB.
    assert_eq!(RomModel::PLUS_CLASS.boot_system_heap, 48 << 10);
    assert_eq!(RomModel::QUADRA_CLASS.boot_system_heap, 128 << 10);
}

#[test]
fn a_driver_too_large_for_the_boot_heap_is_not_loaded() {
    let rom = RomGeneration::OriginalScsiManager;
    let mut big = PROBE.to_vec();
    big.resize(30_000, 0x4e71); // 60 KB: more than a Plus-class boot heap
    let mut m = machine(CpuModel::M68000, rom, &big);
    let report = boot_ok(&mut m, rom);
    let outcome = &report.scan.iter().find(|(id, _)| *id == ID).unwrap().1;
    assert!(
        matches!(outcome, ScanOutcome::Failed(why) if why.contains("boot-time system heap")),
        "{outcome:?}"
    );
    // The same image loads on a Quadra-class machine.
    let mut m = machine(CpuModel::M68040, rom, &big);
    let report = boot_ok(&mut m, rom);
    let outcome = &report.scan.iter().find(|(id, _)| *id == ID).unwrap().1;
    assert!(
        !matches!(outcome, ScanOutcome::Failed(why) if why.contains("boot-time system heap")),
        "{outcome:?}"
    );
}

#[test]
fn a_plus_class_machine_cannot_have_ram_over_its_rom() {
    let mut cfg = MachineConfig::new(CpuModel::M68000);
    cfg.ram_size = 8 << 20;
    let rom = RomGeneration::OriginalScsiManager;
    let mut m = machine_with(cfg, rom, &PROBE);
    let e = boot_err(&mut m, rom);
    assert!(e.to_string().contains("at most 4 MB"), "{e}");
}
