//! The boot itself: scan the SCSI bus, load and call drivers, let the system come up, mount.
//!
//! Sequence (mac-facts §2.1–§2.3; every step the doc marks UNCONFIRMED is a [`BootConfig`]
//! field or a commented choice here):
//! 1. `SysEvtMask` = 0 while drivers load (UNCONFIRMED that it is 0 then; it makes a driver's
//!    `_PostEvent` at install fail with `evtNotEnb`, the case a careful driver must survive).
//! 2. IDs 6 → 0: read block 0 and the map with READ(6) (READ(10) beyond 21 bits or 255
//!    blocks) straight on the bus, one retry on CHECK CONDITION or BUSY; apply
//!    [`super::checks::examine_disk`]; load the driver into a `_NewPtrSys`-style block of the
//!    system heap, flush the instruction cache, set the ID's bit in `SCSIDrvrs` ($B2E), and
//!    `JSR` to it from the ROM ([`super::rom_model`]: the return address lies in the ROM's
//!    address range): +0 with D5 = SCSI ID and A0 → a copy of the driver's map entry, or
//!    (4.3 ROM, `Apple_Driver43`) +8 with D5 = DeviceIdent (`$00 bus target LUN`: the bus is
//!    SCSI Manager 4.3's number for the virtual bus, [`scsi_manager::bus_number`]; the LUN
//!    is 0 unless [`BootConfig::scan_luns`] makes the 4.3 ROM look at more LUNs of each
//!    target). Every other register is poisoned
//!    ([`super::install_registers`]). While drivers load, the system heap is limited to the
//!    ROM model's boot-time size; it gets its full size back once every driver is loaded (the
//!    boot blocks and the System file size it later).
//! 3. After the call: the old ROM expects a DCE in unit 32 + ID; the 4.3 ROM looks up the
//!    driver's refNum cross-reference (see [`BootConfig::require_xref`]).
//! 4. The system comes up: `SysEvtMask` = $FFFF (all events), then `settle_ticks` ticks run
//!    (VBL tasks, `accRun`, scheduled interrupts).
//! 5. The boot drive (the first drive a loaded driver added) gets its boot blocks read
//!    through the driver ('LK' is recorded, not required) and `BootDrive` ($210) set; it is
//!    mounted with `_MountVol`'s logic, then every drive named by a disk-inserted event.
//! 6. [`RomGeneration::Quadra`] only: SCSI Manager 4.3 arrives with the System 7.5 extension
//!    ([`scsi_manager::arrive_v43`]) at the point [`BootConfig::extension_arrival`] names —
//!    after the boot volume is mounted (the extension is a file on it, loaded with the other
//!    extensions; from 7.5.3 part of the System file) and before or after the other volumes
//!    mount — then the event loop runs `settle_ticks` more ticks (`SystemTask`, so drivers get
//!    `accRun`) as INITs load and the Finder starts.

use std::fmt;

use crate::drive_queue::Drive;
use crate::error::{Fault, RunError};
use crate::file_manager::{self, Volume};
use crate::loader::Preserved;
use crate::lowmem;
use crate::machine::Machine;
use crate::memory_manager::ZoneId;
use crate::scsi::{ScsiBus, SelectError, status};
use crate::scsi_manager;

use super::checks::{
    DriverChoice, DriverEntry, RomChecks, RomGeneration, SkipReason, Verdict, examine_disk,
};
use super::install_registers::InstallRegisters;
use super::rom_model::RomModel;

/// Low-memory `SCSIDrvrs` (word bitmap of IDs with a loaded driver; name and address from
/// resource_dasm's table — UNCONFIRMED use by the ROM).
pub const SCSI_DRVRS: u32 = 0xB2E;
/// Unit-table entry of the driver for SCSI ID n: 32 + n.
pub const SCSI_UNIT_BASE: u16 = 32;

/// How to boot.
#[derive(Debug, Clone)]
pub struct BootConfig {
    pub rom: RomGeneration,
    pub checks: RomChecks,
    /// Ticks the system runs after the drivers are loaded.
    pub settle_ticks: u32,
    /// Registers a driver's install routine must give back (UNCONFIRMED what the ROM needs;
    /// default D3–D7/A2–A6, the recommendation in docs/mac-facts.md being stricter still).
    pub install_preserves: Preserved,
    /// 4.3 ROM: a driver entered at +8 must have registered with `SCSICreateRefNumXref`.
    /// What a real 4.3 ROM does with a driver that registers none is not documented, and
    /// old-API drivers (which take +8 to the same install and never register) are reported
    /// to boot on such machines; so the default (false) loads it and puts a warning in the
    /// boot report ([`BootReport::warnings`]); true fails the load as "no driver".
    pub require_xref: bool,
    /// The ROM's address range and boot-time system heap; `None`: from the machine
    /// ([`RomModel::for_machine`]).
    pub rom_model: Option<RomModel>,
    /// Seed of the garbage in the registers the ROM does not set at the install call
    /// (default: `FERRITE_SEED`, [`crate::seed`]).
    pub register_seed: u64,
    /// [`RomGeneration::Quadra`]: when SCSI Manager 4.3 arrives (default: drawn with the seed
    /// between the two boot points).
    pub extension_arrival: ExtensionArrival,
    /// [`RomGeneration::Quadra`]: what 4.3 does with the drivers already installed (default:
    /// drawn with the seed; no public source settles it).
    pub extension_xrefs: scsi_manager::ArrivalXrefs,
    /// [`RomGeneration::ScsiManager43`]: how many LUNs of each target the scan reads, from
    /// LUN 0 up (1–8; default 1, LUN 0 only, which is what a 4.3 ROM is believed to do — no
    /// public source says; IM Devices ch. 4 passes the LUN in the DeviceIdent, so a ROM or
    /// SIM that boots a disk at another LUN enters its driver with that LUN in D5). The
    /// other ROMs read LUN 0 only: their +0 entry gets a SCSI ID and nothing else.
    pub scan_luns: u8,
}

/// When SCSI Manager 4.3 arrives on the [`RomGeneration::Quadra`] model. The extension is a
/// file of the boot volume's System Folder (System 7.5; from 7.5.3 a part of the System file,
/// TIL 17019), so it cannot load before the boot volume is mounted; whether the other volumes
/// are mounted before it (their disk-inserted events are handled by the event loop) is not
/// documented, so both orders are modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtensionArrival {
    /// Right after the boot volume is mounted, before the other volumes.
    AfterBootVolume,
    /// After every volume is mounted.
    AfterMounts,
    /// Not during the boot: the test calls [`scsi_manager::arrive_v43`] itself (e.g. while a
    /// request is in flight).
    Never,
}

/// Seed stream of the Quadra model's choices.
const QUADRA_SEED_STREAM: u64 = 0x0A_0043;

impl BootConfig {
    /// Defaults for `rom`.
    pub fn new(rom: RomGeneration) -> BootConfig {
        let seed = crate::seed::seed_from_env();
        let mut rng = crate::seed::Rng::new(seed, QUADRA_SEED_STREAM);
        let extension_arrival = if rng.below(2) == 0 {
            ExtensionArrival::AfterBootVolume
        } else {
            ExtensionArrival::AfterMounts
        };
        let extension_xrefs = if rng.below(2) == 0 {
            scsi_manager::ArrivalXrefs::None
        } else {
            scsi_manager::ArrivalXrefs::ForInstalledDrivers
        };
        BootConfig {
            rom,
            checks: RomChecks::default(),
            settle_ticks: 120,
            install_preserves: Preserved::MAC_OS,
            require_xref: false,
            rom_model: None,
            register_seed: seed,
            extension_arrival,
            extension_xrefs,
            scan_luns: 1,
        }
    }
}

/// What happened at one SCSI ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanOutcome {
    NoDevice,
    Skipped(SkipReason),
    Loaded(LoadedDriver),
    /// The driver was called but did not install itself as the ROM expects.
    Failed(String),
}

/// A driver the boot loaded and called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedDriver {
    pub id: u8,
    /// The LUN the driver was loaded from (0 unless [`BootConfig::scan_luns`] > 1).
    pub lun: u8,
    pub choice: DriverChoice,
    /// Where the image was loaded, and the entry called.
    pub address: u32,
    pub entry_address: u32,
    /// The ROM address the install routine returned to.
    pub return_address: u32,
    pub d5: u32,
    /// D0 the install routine returned.
    pub install_result: u32,
    /// refNum found in the unit table (old entry) or the xref table (4.3 entry).
    pub ref_num: Option<i16>,
    /// Emulated instructions the install took.
    pub instructions: u64,
}

/// The result of [`boot`].
#[derive(Debug, Clone, Default)]
pub struct BootReport {
    pub rom: Option<RomGeneration>,
    /// The ROM's place and boot-time system heap.
    pub rom_model: Option<RomModel>,
    /// Free bytes in the (limited) system heap when the scan ended.
    pub boot_heap_free: u32,
    pub scan: Vec<(u8, ScanOutcome)>,
    pub drives: Vec<Drive>,
    pub boot_drive: Option<u16>,
    pub boot_blocks_signature: Option<u16>,
    pub volumes: Vec<Volume>,
    /// Events posted (what, message) in order.
    pub events: Vec<(u16, u32)>,
    /// Traps used during the boot, by name.
    pub traps: Vec<(&'static str, u64)>,
    /// Problems that did not stop the boot (a guest failure stops it: see [`boot`]).
    pub errors: Vec<String>,
    /// What a real ROM might treat differently (the model went on).
    pub warnings: Vec<String>,
    pub ticks: u32,
    /// [`RomGeneration::Quadra`]: where SCSI Manager 4.3 arrived, and `Ticks` then.
    pub v43_arrived: Option<(ExtensionArrival, u32)>,
}

impl BootReport {
    /// Drivers that were loaded.
    pub fn drivers(&self) -> impl Iterator<Item = &LoadedDriver> {
        self.scan.iter().filter_map(|(_, o)| match o {
            ScanOutcome::Loaded(d) => Some(d),
            _ => None,
        })
    }
}

/// Read `n` blocks at `lba` from target `id`, logical unit `lun` (named by IDENTIFY), as the
/// ROM does: READ(6) where it fits, else READ(10); one retry on CHECK CONDITION or BUSY.
pub fn rom_read(bus: &mut ScsiBus, id: u8, lun: u8, lba: u32, n: u32) -> Result<Vec<u8>, String> {
    let cdb: Vec<u8> = if lba < 1 << 21 && (1..=255).contains(&n) {
        vec![
            0x08,
            (lba >> 16) as u8 & 0x1F,
            (lba >> 8) as u8,
            lba as u8,
            n as u8,
            0,
        ]
    } else {
        let mut c = vec![0x28, 0];
        c.extend_from_slice(&lba.to_be_bytes());
        c.extend_from_slice(&[0, (n >> 8) as u8, n as u8, 0]);
        c
    };
    let want = n as usize * 512;
    let mut last = String::new();
    for _attempt in 0..2 {
        match bus.execute(id, lun, &cdb, &[], want) {
            Err(SelectError::Timeout) => return Err("selection timeout".into()),
            Err(e) => return Err(format!("{e:?}")),
            Ok(e) => match e.status {
                Some(status::GOOD) if e.data_in.len() == want => return Ok(e.data_in),
                Some(status::GOOD) => {
                    return Err(format!("short read: {} of {want} bytes", e.data_in.len()));
                }
                Some(s @ (status::CHECK_CONDITION | status::BUSY)) => {
                    last = format!("status ${s:02X}");
                }
                Some(s) => return Err(format!("status ${s:02X}")),
                None => last = "bus reset".into(),
            },
        }
    }
    Err(format!("{last} twice"))
}

fn unit_dce(m: &Machine, unit: u16) -> Option<u32> {
    let count = m.read_u16(lowmem::UNIT_NTRY_CNT);
    if unit >= count {
        return None;
    }
    let table = m.read_u32(lowmem::UTABLE_BASE);
    let h = m.read_u32(table + 4 * unit as u32);
    (h != 0).then_some(h)
}

/// The refNum the 4.3 XPT has for `device`, if the SCSI Manager 4.3 model keeps one.
fn xref_lookup(m: &mut Machine, device: u32) -> Option<i16> {
    crate::scsi_manager::xref_lookup(m, device)
}

/// Boot the machine from the disks on its SCSI bus ([`scsi_manager::bus`]). A failure
/// of guest code (a driver crashing, an unimplemented trap) ends the boot with that error.
pub fn boot(m: &mut Machine, cfg: &BootConfig) -> Result<BootReport, RunError> {
    let traps_before = m.stats().trap_counts.clone();
    let rom_model = cfg.rom_model.unwrap_or_else(|| RomModel::for_machine(m));
    let mut report = BootReport {
        rom: Some(cfg.rom),
        rom_model: Some(rom_model),
        ..Default::default()
    };
    if m.config().ram_size > rom_model.rom_base {
        return Err(RunError::setup(
            m.model(),
            format!(
                "{} RAM bytes overlap the {} (a Plus-class Mac has at most 4 MB)",
                m.config().ram_size,
                rom_model.name
            ),
        ));
    }
    if cfg.rom == RomGeneration::Quadra {
        if m.model() != crate::CpuModel::M68040 {
            return Err(RunError::setup(
                m.model(),
                "the Quadra model (original SCSI Manager, then the 4.3 extension) is a 68040 Mac",
            ));
        }
        if scsi_manager::v43_present(m) {
            return Err(RunError::setup(
                m.model(),
                "the Quadra model boots without SCSI Manager 4.3: install the SCSI Managers with \
                 `v43_present` off",
            ));
        }
    }
    m.set_rom_region(Some(rom_model.region()));
    {
        let (mm, bus) = m.memory_manager_and_bus();
        mm.limit_zone(bus, ZoneId::System, rom_model.boot_system_heap)
            .map_err(|e| RunError::setup(m.model(), format!("{}: {e}", rom_model.name)))?;
    }
    m.set_sys_evt_mask(0);
    let luns = match cfg.rom {
        RomGeneration::ScsiManager43 => cfg.scan_luns.clamp(1, 8),
        _ => 1,
    };
    for id in (0..=6u8).rev() {
        for lun in 0..luns {
            scan_target(m, cfg, &rom_model, id, lun, &mut report)?;
        }
    }
    report.boot_heap_free = m.memory_manager().free_mem(ZoneId::System);
    {
        // The boot blocks and the System file give the system heap its working size.
        let (mm, bus) = m.memory_manager_and_bus();
        mm.unlimit_zone(bus, ZoneId::System);
    }

    // The system comes up: events on, time passes.
    m.set_sys_evt_mask(0xFFFF);
    m.run_event_loop(cfg.settle_ticks)
        .map_err(|f| m.fail(f, m.pc()))?;

    let loaded_refs: Vec<i16> = report.drivers().filter_map(|d| d.ref_num).collect();
    report.drives = m.try_drives().map_err(|e| {
        m.fail(
            Fault::Misuse {
                trap: None,
                message: e,
            },
            m.pc(),
        )
    })?;
    if let Some(boot) = report
        .drives
        .iter()
        .find(|d| loaded_refs.contains(&d.ref_num))
        .cloned()
    {
        report.boot_drive = Some(boot.number as u16);
        m.write_u16(lowmem::BOOT_DRIVE, boot.number as u16);
        match file_manager::read_through_driver(m, &boot, 0, 1024).map_err(|f| m.fail(f, m.pc()))? {
            Ok(b) => report.boot_blocks_signature = Some(u16::from_be_bytes([b[0], b[1]])),
            Err(e) => report
                .errors
                .push(format!("boot blocks of drive {}: error {e}", boot.number)),
        }
        mount_recording(m, boot.number as u16, &mut report)?;
        // Once the startup volume is mounted, `BootDrive` holds a working-directory refNum
        // of it (the System Folder's), no longer the drive number (docs/emulated-mac.md).
        if let Some(v) = file_manager::volume_of(m, boot.number) {
            let wd = file_manager::open_working_dir(m, v.vref_num);
            m.write_u16(lowmem::BOOT_DRIVE, wd as u16);
        }
    }
    if cfg.extension_arrival == ExtensionArrival::AfterBootVolume {
        extension_arrives(m, cfg, &mut report)?;
    }
    report.events = m
        .posted_events()
        .iter()
        .map(|e| (e.code, e.message))
        .collect();
    let disk_events: Vec<u16> = m.disk_events().iter().map(|&d| d as u16).collect();
    for drive in disk_events {
        if report.boot_drive == Some(drive) {
            continue;
        }
        mount_recording(m, drive, &mut report)?;
    }
    if cfg.extension_arrival == ExtensionArrival::AfterMounts {
        extension_arrives(m, cfg, &mut report)?;
    }
    report.volumes = m.state::<file_manager::FileManager>().volumes.clone();
    report.ticks = m.ticks();
    let after = &m.stats().trap_counts;
    report.traps = after
        .iter()
        .map(|(k, v)| (*k, v - traps_before.get(k).copied().unwrap_or(0)))
        .filter(|(_, n)| *n > 0)
        .collect();
    Ok(report)
}

/// Scan logical unit `lun` of target `id`: read its block 0 and map, load and call its
/// driver, and record the outcome (at LUN 0 always; at another LUN only when a disk answers
/// there — a LUN the target does not have fails the reads, as no disk).
fn scan_target(
    m: &mut Machine,
    cfg: &BootConfig,
    rom_model: &RomModel,
    id: u8,
    lun: u8,
    report: &mut BootReport,
) -> Result<(), RunError> {
    if !scsi_manager::bus(m).ids().contains(&id) {
        // A real ROM sees a selection timeout here; keep the scan cheap and say so.
        if lun == 0 {
            report.scan.push((id, ScanOutcome::NoDevice));
        }
        return Ok(());
    }
    let verdict = {
        let bus = scsi_manager::bus(m);
        examine_disk(cfg.rom, &cfg.checks, &mut |lba, n| {
            rom_read(bus, id, lun, lba, n)
        })
    };
    let (choice, image) = match verdict {
        Verdict::Skip(SkipReason::ReadFailed(_)) if lun != 0 => return Ok(()),
        Verdict::Skip(SkipReason::ReadFailed(e)) if e == "selection timeout" => {
            report.scan.push((id, ScanOutcome::NoDevice));
            return Ok(());
        }
        Verdict::Skip(r) => {
            report.scan.push((id, ScanOutcome::Skipped(r)));
            return Ok(());
        }
        Verdict::Load { driver, image } => (driver, image),
    };
    let outcome = load_and_call(m, cfg, rom_model, id, lun, choice, &image)?;
    if let ScanOutcome::Loaded(d) = &outcome
        && d.choice.entry == DriverEntry::Scsi43
        && d.ref_num.is_none()
    {
        report.warnings.push(format!(
            "the driver for ID {id} was entered at +8 (SCSI Manager 4.3) but registered no refNum cross-reference (SCSICreateRefNumXref); what a real 4.3 ROM does then is not documented: the model keeps the driver"
        ));
    }
    report.scan.push((id, outcome));
    Ok(())
}

/// [`RomGeneration::Quadra`]: SCSI Manager 4.3 arrives, then the system keeps running.
fn extension_arrives(
    m: &mut Machine,
    cfg: &BootConfig,
    report: &mut BootReport,
) -> Result<(), RunError> {
    if cfg.rom != RomGeneration::Quadra {
        return Ok(());
    }
    scsi_manager::arrive_v43(m, cfg.extension_xrefs);
    report.v43_arrived = Some((cfg.extension_arrival, m.ticks()));
    m.run_event_loop(cfg.settle_ticks)
        .map_err(|f| m.fail(f, m.pc()))
}

fn mount_recording(m: &mut Machine, drive: u16, report: &mut BootReport) -> Result<(), RunError> {
    match file_manager::mount(m, drive).map_err(|f| m.fail(f, m.pc()))? {
        Ok(_) => {}
        Err(file_manager::VOL_ON_LIN_ERR) => {}
        Err(e) => report
            .errors
            .push(format!("mounting drive {drive}: error {e}")),
    }
    Ok(())
}

/// Let `n` ticks pass, delivering VBL tasks and interrupts as they come due.
pub fn run_ticks(m: &mut Machine, n: u32) -> Result<(), Fault> {
    for _ in 0..n {
        m.advance_ticks(1);
        m.deliver_interrupts()?;
    }
    Ok(())
}

fn load_and_call(
    m: &mut Machine,
    cfg: &BootConfig,
    rom_model: &RomModel,
    id: u8,
    lun: u8,
    choice: DriverChoice,
    image: &[u8],
) -> Result<ScanOutcome, RunError> {
    let address = match m.new_ptr(ZoneId::System, image.len() as u32, false) {
        Ok(a) => a,
        Err(e) => {
            return Ok(ScanOutcome::Failed(format!(
                "no room for the {}-byte driver of ID {id} in the {}-byte boot-time system heap \
                 of the {} (error {e}; {} bytes free)",
                image.len(),
                rom_model.boot_system_heap,
                rom_model.name,
                m.memory_manager().free_mem(ZoneId::System)
            )));
        }
    };
    m.write_bytes(address, image);
    m.watch_code(address, image);
    m.flush_icache(); // the ROM flushes after loading code
    let bits = m.read_u16(SCSI_DRVRS);
    m.write_u16(SCSI_DRVRS, bits | 1 << id);
    let d5 = match choice.entry {
        DriverEntry::Original => id as u32,
        // DeviceIdent: diReserved 0, the virtual bus's number, target id, the LUN.
        DriverEntry::Scsi43 => {
            (scsi_manager::bus_number(m) as u32) << 16 | (id as u32) << 8 | lun as u32
        }
    };
    let entry_address = address + choice.entry.offset();
    // The original loader's frame holds a copy of the driver's map entry; A0 points at it.
    let frame: Vec<u32> = match choice.entry {
        DriverEntry::Original => {
            let entry =
                rom_read(scsi_manager::bus(m), id, lun, choice.map_block, 1).map_err(|e| {
                    RunError::setup(m.model(), format!("re-reading the map entry: {e}"))
                })?;
            entry
                .chunks(4)
                .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }
        DriverEntry::Scsi43 => Vec::new(),
    };
    let a0 = m.stack_top() - 4 * frame.len() as u32;
    let registers = InstallRegisters::new(
        cfg.register_seed,
        id,
        choice.entry,
        d5,
        a0,
        m.bus().address_mask(),
        m.config().ram_size,
        rom_model,
    );
    let return_address = rom_model.install_return_address();
    let (r, _) = m
        .call_from_rom(
            entry_address,
            &frame,
            &registers.as_regs(),
            cfg.install_preserves,
            return_address,
        )
        .map_err(|e| registers.diagnose(m, e))?;
    let unit = SCSI_UNIT_BASE + id as u16;
    let ref_num = match choice.entry {
        DriverEntry::Scsi43 => xref_lookup(m, d5),
        DriverEntry::Original => unit_dce(m, unit).map(|_| !(unit as i16)),
    };
    let loaded = LoadedDriver {
        id,
        lun,
        choice,
        address,
        entry_address,
        return_address,
        d5,
        install_result: r.d0,
        ref_num,
        instructions: r.instructions,
    };
    if ref_num.is_none() && (cfg.require_xref || loaded.choice.entry == DriverEntry::Original) {
        let what = match loaded.choice.entry {
            DriverEntry::Scsi43 => "registered no refNum cross-reference (SCSICreateRefNumXref)",
            DriverEntry::Original => "left unit-table entry 32+ID empty",
        };
        return Ok(ScanOutcome::Failed(format!("driver for ID {id} {what}")));
    }
    Ok(ScanOutcome::Loaded(loaded))
}

impl fmt::Display for BootReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rom = match self.rom {
            Some(RomGeneration::OriginalScsiManager) => {
                "original SCSI Manager ROM (Mac II/Quadra 800 class)"
            }
            Some(RomGeneration::ScsiManager43) => "SCSI Manager 4.3 ROM (Quadra 840AV class)",
            Some(RomGeneration::Quadra) => {
                "original SCSI Manager ROM, then the System 7.5 SCSI Manager 4.3 extension \
                 (Quadra 700/800/900/950, Centris)"
            }
            None => "?",
        };
        writeln!(f, "Boot report — {rom}")?;
        if let Some(r) = &self.rom_model {
            writeln!(
                f,
                "ROM: {}; system heap while drivers loaded: {} bytes ({} free after the scan)",
                r.name, r.boot_system_heap, self.boot_heap_free
            )?;
        }
        writeln!(f, "SCSI scan:")?;
        for (id, o) in &self.scan {
            match o {
                ScanOutcome::NoDevice => writeln!(f, "  ID {id}: no device")?,
                ScanOutcome::Skipped(r) => writeln!(f, "  ID {id}: skipped — {r}")?,
                ScanOutcome::Failed(r) => writeln!(f, "  ID {id}: FAILED — {r}")?,
                ScanOutcome::Loaded(d) => writeln!(
                    f,
                    "  ID {id} LUN {}: loaded \"{}\" ({}) from block {}, {} bytes at ${:08X}, entry +{} with D5=${:08X}, refNum {}, {} instructions",
                    d.lun,
                    d.choice.name,
                    d.choice.kind,
                    d.choice.block,
                    d.choice.load_bytes,
                    d.address,
                    d.choice.entry.offset(),
                    d.d5,
                    d.ref_num.map_or("none".to_string(), |r| r.to_string()),
                    d.instructions
                )?,
            }
        }
        writeln!(f, "Drive queue:")?;
        for d in &self.drives {
            writeln!(
                f,
                "  drive {}: refNum {}, {} blocks, flags {:02X} {:02X} {:02X} {:02X}{}",
                d.number,
                d.ref_num,
                d.blocks,
                d.write_prot,
                d.disk_in_place,
                d.installed,
                d.sides,
                if Some(d.number as u16) == self.boot_drive {
                    " (boot drive)"
                } else {
                    ""
                }
            )?;
        }
        writeln!(f, "Volumes:")?;
        for v in &self.volumes {
            writeln!(
                f,
                "  \"{}\" (vRefNum {}) on drive {}: {} KB, {} KB free",
                v.name,
                v.vref_num,
                v.drive,
                v.size_bytes() / 1024,
                v.free_bytes() / 1024
            )?;
        }
        if let Some((at, tick)) = self.v43_arrived {
            writeln!(f, "SCSI Manager 4.3 arrived: {at:?}, at tick {tick}")?;
        }
        writeln!(f, "Events: {:?}", self.events)?;
        let traps: Vec<String> = self.traps.iter().map(|(n, c)| format!("{n}×{c}")).collect();
        writeln!(f, "Traps: {}", traps.join(", "))?;
        for e in &self.errors {
            writeln!(f, "Error: {e}")?;
        }
        for w in &self.warnings {
            writeln!(f, "Warning: {w}")?;
        }
        Ok(())
    }
}
