//! Shared set-up for the tests of the Ferrite driver blob (`target/m68k/ferrite-driver.bin`)
//! in the emulated Mac: boot a disk, find the driver's drives, make Device Manager calls from
//! the host (`Machine::device_call`, exactly what guest code executing the trap would do).
//!
//! Parameter-block offsets are literal constants from `docs/mac-facts.md` §3.3.
#![allow(dead_code)]

use std::path::PathBuf;

use ferrite_emu::drive_queue::Drive;
use ferrite_emu::memory_manager::ZoneId;
use ferrite_emu::scsi::{DiskConfig, DiskTarget, LogEntry};
use ferrite_emu::scsi_manager::{self, ScsiManagerConfig};
use ferrite_emu::start_manager::{BootConfig, BootReport, RomGeneration, boot};
use ferrite_emu::test_disk::{TestDisk, TestDiskLayout, TestVolume};
use ferrite_emu::{CpuModel, Machine, MachineConfig};
use ferrite_shared::driver_blob::Settings;

// ---- parameter blocks (mac-facts §3.3) ----
pub const IO_COMPLETION: u32 = 12;
pub const IO_RESULT: u32 = 16;
pub const IO_VREFNUM: u32 = 22;
pub const IO_REFNUM: u32 = 24;
pub const CS_CODE: u32 = 26;
pub const CS_PARAM: u32 = 28;
pub const IO_BUFFER: u32 = 32;
pub const IO_REQ_COUNT: u32 = 36;
pub const IO_ACT_COUNT: u32 = 40;
pub const IO_POS_MODE: u32 = 44;
pub const IO_POS_OFFSET: u32 = 46;
/// `ioWPosOffset` (XIOParam): high long at $2E, low long at $32.
pub const IO_WPOS_OFFSET: u32 = 46;
/// `kUseWidePositioning`.
pub const WIDE: u16 = 0x0100;
/// `fsFromStart`, `fsFromMark`.
pub const FS_FROM_START: u16 = 1;
pub const FS_FROM_MARK: u16 = 3;
/// Bytes the tests allocate per PB (XIOParam is 54; the rest is scratch for completions).
pub const PB_SIZE: u32 = 72;
/// Scratch words the test completion routine writes (after the XIOParam).
pub const PB_DONE_D0: u32 = 56;
pub const PB_DONE_IORESULT: u32 = 58;
pub const PB_DONE_COUNT: u32 = 60;
/// `kill_completion` calls `_KillIO` with the PB whose address is here and stores its D0 at
/// [`PB_KILL_D0`].
pub const PB_KILL_PB: u32 = 64;
pub const PB_KILL_D0: u32 = 68;
/// DCE `dCtlPosition`.
pub const DCTL_POSITION: u32 = 16;

pub const READ: u16 = 0xA002;
pub const WRITE: u16 = 0xA003;
pub const CONTROL: u16 = 0xA004;
pub const STATUS: u16 = 0xA005;
pub const KILLIO: u16 = 0xA006;
pub const ASYNC: u16 = 0x0400;
pub const IMMED: u16 = 0x0200;

/// The SCSI ID the disk sits at.
pub const ID: u8 = 2;

pub const CPUS: [CpuModel; 2] = [CpuModel::M68000, CpuModel::M68040];
pub const ROMS: [RomGeneration; 2] = [
    RomGeneration::OriginalScsiManager,
    RomGeneration::ScsiManager43,
];

pub fn driver_blob() -> Vec<u8> {
    let dir = std::env::var_os("FERRITE_M68K_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/m68k"));
    let path = dir.join("ferrite-driver.bin");
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run `cargo xtask test`", path.display()))
}

/// The blob with its settings block changed.
pub fn driver_blob_with(settings: Settings) -> Vec<u8> {
    let mut b = driver_blob();
    settings
        .write(&mut b)
        .expect("the blob has a readable settings block");
    b
}

/// A disk with the driver and `n` HFS volumes of `blocks` blocks each.
pub fn disk_with_volumes(blob: Vec<u8>, n: usize, blocks: u32) -> TestDisk {
    let mut disk = TestDisk::new(blob);
    disk.volumes.clear();
    for i in 0..n {
        disk.volumes.push(TestVolume {
            name: format!("Vol {}", i + 1),
            blocks,
            alloc_block_size: 512,
            free_alloc_blocks: 100,
        });
    }
    disk.total_blocks = 64 + 40 + n as u32 * blocks + 100;
    disk
}

/// A booted machine with the Ferrite driver on a disk at [`ID`] (or on several disks, one
/// driver each: [`boot_targets_with`]; [`Rig::select`] picks the one the calls go to).
pub struct Rig {
    pub m: Machine,
    pub report: BootReport,
    pub cpu: CpuModel,
    pub rom: RomGeneration,
    /// The selected disk's SCSI ID, layout, driver and drives.
    pub id: u8,
    pub layout: TestDiskLayout,
    pub ref_num: i16,
    /// The driver's drives, in drive-queue order (= partition order).
    pub drives: Vec<Drive>,
    /// Every disk booted, in the order given to [`boot_targets_with`].
    pub units: Vec<Unit>,
    completion: u32,
    kill_completion: u32,
}

/// One disk of a [`Rig`] and the driver that serves it.
#[derive(Debug, Clone)]
pub struct Unit {
    pub id: u8,
    pub layout: TestDiskLayout,
    pub ref_num: i16,
    /// The drives whose `dQRefNum` is this driver's, in drive-queue order.
    pub drives: Vec<Drive>,
}

pub fn new_machine(cpu: CpuModel, rom: RomGeneration) -> Machine {
    new_machine_with(MachineConfig::new(cpu), rom)
}

/// Boot `disk` on a fresh in-memory target configured with `cfg`.
pub fn boot_disk(cpu: CpuModel, rom: RomGeneration, disk: &TestDisk, cfg: DiskConfig) -> Rig {
    let (image, layout) = disk.build();
    let mut target = DiskTarget::in_memory((image.len() / 512) as u64, cfg).unwrap();
    target.write_store(0, &image).unwrap();
    boot_target(cpu, rom, target, layout)
}

/// Boot a prepared target.
pub fn boot_target(
    cpu: CpuModel,
    rom: RomGeneration,
    target: DiskTarget,
    layout: TestDiskLayout,
) -> Rig {
    boot_target_on(new_machine(cpu, rom), rom, target, layout)
}

/// A machine set up like [`new_machine`] from an explicit configuration.
pub fn new_machine_with(cfg: MachineConfig, rom: RomGeneration) -> Machine {
    let mut m = Machine::with_config(cfg).expect("valid machine configuration");
    m.install_mac_os();
    scsi_manager::install(
        &mut m,
        ScsiManagerConfig {
            v43_present: rom == RomGeneration::ScsiManager43,
            ..Default::default()
        },
    );
    m
}

/// Boot `disk` on machine `m` (from [`new_machine`] or [`new_machine_with`]).
pub fn boot_disk_on(m: Machine, rom: RomGeneration, disk: &TestDisk, cfg: DiskConfig) -> Rig {
    let (image, layout) = disk.build();
    let mut target = DiskTarget::in_memory((image.len() / 512) as u64, cfg).unwrap();
    target.write_store(0, &image).unwrap();
    boot_target_on(m, rom, target, layout)
}

/// Boot a prepared target on machine `m`.
pub fn boot_target_on(
    m: Machine,
    rom: RomGeneration,
    target: DiskTarget,
    layout: TestDiskLayout,
) -> Rig {
    boot_target_with(m, &BootConfig::new(rom), target, layout)
}

/// Boot `disk` on machine `m` with an explicit boot configuration.
pub fn boot_disk_with(m: Machine, cfg: &BootConfig, disk: &TestDisk, dcfg: DiskConfig) -> Rig {
    let (image, layout) = disk.build();
    let mut target = DiskTarget::in_memory((image.len() / 512) as u64, dcfg).unwrap();
    target.write_store(0, &image).unwrap();
    boot_target_with(m, cfg, target, layout)
}

/// Boot a prepared target on machine `m` with an explicit boot configuration.
pub fn boot_target_with(
    m: Machine,
    cfg: &BootConfig,
    target: DiskTarget,
    layout: TestDiskLayout,
) -> Rig {
    boot_targets_with(m, cfg, vec![(ID, target, layout)])
}

/// Boot prepared targets at the given SCSI IDs on machine `m`: each must get a driver. The
/// rig starts with the first one selected.
pub fn boot_targets_with(
    mut m: Machine,
    cfg: &BootConfig,
    targets: Vec<(u8, DiskTarget, TestDiskLayout)>,
) -> Rig {
    let cpu = m.model();
    let rom = cfg.rom;
    let mut ids = Vec::new();
    for (id, target, layout) in targets {
        scsi_manager::bus(&mut m).attach(id, Box::new(target));
        ids.push((id, layout));
    }
    let report = boot(&mut m, cfg).unwrap_or_else(|e| panic!("{cpu} {rom:?}: {e}"));
    rig_after_boot(m, rom, report, ids).unwrap_or_else(|(_, report, id)| {
        panic!("{cpu} {rom:?}: no driver installed for ID {id}\n{report}")
    })
}

/// The rig of a finished boot (`ids`: the SCSI IDs and layouts of the disks, in order), or,
/// when a disk got no driver, the machine, the report and that ID back.
#[allow(clippy::result_large_err)]
pub fn rig_after_boot(
    m: Machine,
    rom: RomGeneration,
    report: BootReport,
    ids: Vec<(u8, TestDiskLayout)>,
) -> Result<Rig, (Machine, BootReport, u8)> {
    let cpu = m.model();
    let mut units = Vec::new();
    for (id, layout) in ids {
        let Some(ref_num) = report
            .drivers()
            .find(|d| d.id == id)
            .and_then(|d| d.ref_num)
        else {
            return Err((m, report, id));
        };
        let drives = report
            .drives
            .iter()
            .filter(|d| d.ref_num == ref_num)
            .cloned()
            .collect();
        units.push(Unit {
            id,
            layout,
            ref_num,
            drives,
        });
    }
    let first = units[0].clone();
    let mut rig = Rig {
        m,
        report,
        cpu,
        rom,
        id: first.id,
        layout: first.layout,
        ref_num: first.ref_num,
        drives: first.drives,
        units,
        completion: 0,
        kill_completion: 0,
    };
    rig.load_completions();
    Ok(rig)
}

/// The completion routine the async tests use: A0 = PB, D0 = result; it records D0, the
/// `ioResult` it sees and a call count in the PB's scratch words.
const COMPLETION_SRC: &str = "
        .text
        .globl  completion
completion:
        move.w  %d0,56(%a0)
        move.w  16(%a0),58(%a0)
        addq.w  #1,60(%a0)
        rts
        .globl  kill_completion
kill_completion:
        move.w  %d0,56(%a0)
        move.w  16(%a0),58(%a0)
        addq.w  #1,60(%a0)
        move.l  %a0,-(%sp)
        movea.l 64(%a0),%a0
        .short  0xA006                  | _KillIO
        movea.l (%sp)+,%a0
        move.w  %d0,68(%a0)
        rts
";

impl Rig {
    pub fn what(&self) -> String {
        if self.units.len() > 1 {
            format!("{} {:?} ID {}", self.cpu, self.rom, self.id)
        } else {
            format!("{} {:?}", self.cpu, self.rom)
        }
    }

    /// Direct the rig's calls (and [`Rig::disk`]) to disk `k` of [`Rig::units`].
    pub fn select(&mut self, k: usize) {
        let u = self.units[k].clone();
        self.id = u.id;
        self.layout = u.layout;
        self.ref_num = u.ref_num;
        self.drives = u.drives;
    }

    fn load_completions(&mut self) {
        let img = retro68_build::asm::assemble_flat("ferrite_test_completion", COMPLETION_SRC)
            .expect("assembles");
        let li = self.m.load(&img).unwrap();
        self.completion = li.symbol("completion").expect("completion symbol");
        self.kill_completion = li
            .symbol("kill_completion")
            .expect("kill_completion symbol");
    }

    /// The recording completion routine.
    pub fn completion(&self) -> u32 {
        self.completion
    }

    /// The recording completion routine that also calls `_KillIO`.
    pub fn kill_completion(&self) -> u32 {
        self.kill_completion
    }

    /// An asynchronous Prime with the recording completion routine; returns the PB and D0.
    pub fn prime_async(
        &mut self,
        word: u16,
        drive: usize,
        mode: u16,
        offset: u32,
        buf: u32,
        count: u32,
    ) -> (u32, i16) {
        let pb = self.pb();
        self.set_io(pb, drive, mode, offset, buf, count);
        self.m.write_u32(pb + IO_COMPLETION, self.completion);
        let d0 = self
            .m
            .device_call(word | ASYNC, pb)
            .unwrap_or_else(|e| panic!("{}: {e}", self.what())) as i16;
        (pb, d0)
    }

    /// Let emulated time pass until every PB in `pbs` has run its completion routine.
    pub fn wait_completions(&mut self, pbs: &[u32]) {
        let pbs = pbs.to_vec();
        let what = self.what();
        self.m
            .idle_until(
                move |m| pbs.iter().all(|&p| m.read_u16(p + PB_DONE_COUNT) > 0),
                600,
                "async completions",
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }

    pub fn disk(&mut self) -> &mut DiskTarget {
        scsi_manager::bus(&mut self.m)
            .target_as_mut::<DiskTarget>(self.id)
            .expect("the disk")
    }

    pub fn bus_log(&mut self) -> Vec<LogEntry> {
        scsi_manager::bus(&mut self.m).log().to_vec()
    }

    pub fn clear_bus_log(&mut self) {
        scsi_manager::bus(&mut self.m).clear_log();
    }

    /// Opcodes of the commands on the bus since the last clear.
    pub fn opcodes(&mut self) -> Vec<u8> {
        self.bus_log().iter().map(|e| e.cdb[0]).collect()
    }

    pub fn dce(&self) -> u32 {
        self.m
            .dce_for_refnum(self.ref_num)
            .expect("the driver's DCE")
    }

    pub fn alloc(&mut self, n: u32) -> u32 {
        self.m
            .new_ptr(ZoneId::System, n.max(2), true)
            .expect("system heap")
    }

    pub fn pb(&mut self) -> u32 {
        self.alloc(PB_SIZE)
    }

    /// Fill `pb` for a Prime call of drive index `drive`.
    pub fn set_io(&mut self, pb: u32, drive: usize, mode: u16, offset: u32, buf: u32, count: u32) {
        self.m.bus_mut().fill_host(pb, PB_SIZE, 0);
        let number = self.drives[drive].number;
        self.m.write_u16(pb + IO_VREFNUM, number as u16);
        self.m.write_u16(pb + IO_REFNUM, self.ref_num as u16);
        self.m.write_u32(pb + IO_BUFFER, buf);
        self.m.write_u32(pb + IO_REQ_COUNT, count);
        self.m.write_u16(pb + IO_POS_MODE, mode);
        self.m.write_u32(pb + IO_POS_OFFSET, offset);
    }

    /// A synchronous Prime; returns (D0, ioActCount).
    pub fn prime(
        &mut self,
        word: u16,
        drive: usize,
        mode: u16,
        offset: u32,
        buf: u32,
        count: u32,
    ) -> (i16, u32) {
        let pb = self.pb();
        self.set_io(pb, drive, mode, offset, buf, count);
        let d0 = self
            .m
            .device_call(word, pb)
            .unwrap_or_else(|e| panic!("{}: {e}", self.what())) as i16;
        assert_eq!(
            self.m.read_u16(pb + IO_RESULT) as i16,
            d0,
            "{}: ioResult = D0",
            self.what()
        );
        (d0, self.m.read_u32(pb + IO_ACT_COUNT))
    }

    /// A synchronous Prime at a 64-bit byte position (kUseWidePositioning).
    pub fn prime_wide(
        &mut self,
        word: u16,
        drive: usize,
        pos: u64,
        buf: u32,
        count: u32,
    ) -> (i16, u32) {
        let pb = self.pb();
        self.set_io(pb, drive, WIDE | FS_FROM_START, 0, buf, count);
        self.m.write_u32(pb + IO_WPOS_OFFSET, (pos >> 32) as u32);
        self.m.write_u32(pb + IO_WPOS_OFFSET + 4, pos as u32);
        let d0 = self
            .m
            .device_call(word, pb)
            .unwrap_or_else(|e| panic!("{}: {e}", self.what())) as i16;
        (d0, self.m.read_u32(pb + IO_ACT_COUNT))
    }

    /// Control/Status with `params` in `csParam`; returns (D0, csParam after).
    pub fn cs(
        &mut self,
        word: u16,
        drive: Option<usize>,
        code: i16,
        params: &[u8],
    ) -> (i16, Vec<u8>) {
        let pb = self.pb();
        let number = drive.map(|d| self.drives[d].number).unwrap_or(0);
        self.m.write_u16(pb + IO_VREFNUM, number as u16);
        self.m.write_u16(pb + IO_REFNUM, self.ref_num as u16);
        self.m.write_u16(pb + CS_CODE, code as u16);
        self.m.write_bytes(pb + CS_PARAM, params);
        let d0 = self
            .m
            .device_call(word, pb)
            .unwrap_or_else(|e| panic!("{}: {e}", self.what())) as i16;
        assert_eq!(
            self.m.read_u16(pb + IO_RESULT) as i16,
            d0,
            "{}: ioResult = D0",
            self.what()
        );
        (d0, self.m.read_bytes(pb + CS_PARAM, 22))
    }

    pub fn control(&mut self, drive: Option<usize>, code: i16, params: &[u8]) -> (i16, Vec<u8>) {
        self.cs(CONTROL, drive, code, params)
    }

    pub fn status(&mut self, drive: Option<usize>, code: i16, params: &[u8]) -> (i16, Vec<u8>) {
        self.cs(STATUS, drive, code, params)
    }

    /// Absolute LBA of byte position `pos` of drive `drive`.
    pub fn lba(&self, drive: usize, pos: u64) -> u64 {
        self.layout.volumes[drive].0 as u64 + pos / 512
    }

    /// What the disk would return now for `blocks` blocks at `lba`.
    pub fn visible(&mut self, lba: u64, blocks: u64) -> Vec<u8> {
        self.disk().read_visible(lba, blocks).unwrap()
    }
}

/// A deterministic pseudo-random generator (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}
