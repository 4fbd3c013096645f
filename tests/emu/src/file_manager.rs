//! File-Manager-lite: just enough of the File Manager to mount HFS volumes **through the disk
//! driver**, the way the system does after boot.
//!
//! `_MountVol` ($A00F, A0 = parameter block, `ioVRefNum` = drive number) finds the drive in
//! the drive queue, reads the volume's Master Directory Block (1024 bytes into the volume,
//! `docs/mac-facts.md` §14.3) with a synchronous `_Read` issued as guest code (so it goes
//! through the Device Manager model to the driver's Prime), checks the 'BD' signature and
//! records the volume: name, size and free space, on the host and as a volume control block
//! in the VCB queue (`VCBQHdr` $356), which applications read to learn what is mounted
//! (IM Files, "Volume Control Blocks"; the fields the model fills are listed at [`VCB_LEN`]).
//! A driver may call `_MountVol` itself (e.g.
//! from `accRun`); the boot model calls it for the boot drive and for every disk-inserted
//! event, as the system's `SystemEvent` would.
//!
//! Results: `noErr`; `nsDrvErr` (−56) no such drive; `volOnLinErr` (−55) already mounted;
//! `noMacDskErr` (−57) not an HFS volume; the `_Read` result when the read fails.
//! Modelling choices: the MDB read is one 512-byte `_Read` at byte offset 1024
//! (`ioPosMode` = fsFromStart); the boot-block read ('LK', first 1024 bytes) is the boot
//! model's, not `_MountVol`'s; volume reference numbers count down from −1 and are not
//! reused after an unmount.
//!
//! `_UnmountVol` ($A00E, A0 = parameter block; IM Files, `PBUnmountVol`) names the volume by
//! `ioNamePtr` ("Name:" or "Name") or else `ioVRefNum` (a volume reference number, a drive
//! number, or 0 for the default volume, which in this model is the startup volume). It fails
//! with `fBsyErr` (−47) while a file is open on the volume ([`FileManager::open_file`]: the
//! model has no `_Open`, so tests say which files other programs hold) and for the startup
//! volume (the drive in `BootDrive`: the System file is always open on it; IM warns that
//! unmounting it crashes the Mac), `nsvErr` (−35) when no mounted volume matches; otherwise
//! the VCB leaves the VCB queue and is disposed, and the drive stays in the drive queue — a
//! later `_MountVol` of it mounts the volume again. Nothing is flushed: the model caches
//! nothing.
//!
//! `_Eject` ($A017; IM Files `PBEject`) names the volume like `_UnmountVol` (or a drive with
//! no volume). It takes the volume off line first, as the real File Manager does — flushed
//! (nothing to flush here), its VCB marked ejected (`vcbDrvNum` = 0, `vcbDRefNum` = the
//! drive number, positive: Apple Technote FL 34, "VCBs and Drive Numbers: The Real Story") —
//! and then calls the drive's driver with Control `csCode` 7 (`ejectCode`, `ioVRefNum` = the
//! drive), returning its result. The volume stays mounted (an access would ask for the disk
//! again; the model has none) and no longer holds its drive: a new medium in that drive
//! mounts as another volume.
//!
//! **Which medium a volume lives on.** `_MountVol` notes the disk target and the medium
//! ([`crate::scsi::DiskTarget::medium_id`]) its MDB was read from, and the blocks of that
//! medium the volume covers. From then on every Prime for the volume's drive while it is on
//! line (the File Manager's own reads and writes of the volume: anything sent to its drive)
//! is watched from the Device Manager's start of it to its end (IODone, or the immediate
//! call's return): a transfer that reached the volume's blocks on another medium of that
//! target in between fails the run as a **misdirected I/O** — the real File Manager would
//! have read another disk's data as this volume's, or written over it. Transfers to the
//! medium the volume lives on, or to blocks outside it, are not judged.

use crate::drive_queue::Drive;
use crate::error::Fault;
use crate::machine::Machine;
use crate::memory_manager::ZoneId;
use crate::traps::TrapCall;

/// `IOParam` offsets (§3.3).
const IO_COMPLETION: u32 = 12;
const IO_RESULT: u32 = 16;
const IO_VREFNUM: u32 = 22;
const IO_REFNUM: u32 = 24;
const IO_BUFFER: u32 = 32;
const IO_REQCOUNT: u32 = 36;
const IO_ACTCOUNT: u32 = 40;
const IO_POSMODE: u32 = 44;
const IO_POSOFFSET: u32 = 46;
const IOPARAM_SIZE: u32 = 50;
/// `csCode` of a `CntrlParam`, and the block's size.
const CS_CODE: u32 = 26;
const CNTRL_PARAM_SIZE: u32 = 50;
/// MDB offsets (`docs/mac-facts.md` §14.3).
const DR_SIG_WORD: usize = 0x00;
const DR_NM_AL_BLKS: usize = 0x12;
const DR_AL_BLK_SIZ: usize = 0x14;
const DR_FREE_BKS: usize = 0x22;
const DR_VN: usize = 0x24;
const HFS_SIGNATURE: u16 = 0x4244;

/// A volume control block (IM Files, "Volume Control Blocks"): 178 bytes. The model fills
/// `qType`, `vcbSigWord`, `vcbNmAlBlks`, `vcbAlBlkSiz`, `vcbFreeBks`, `vcbVN`, `vcbDrvNum`,
/// `vcbDRefNum` and `vcbVRefNum`; the rest stays zero.
pub const VCB_LEN: u32 = 178;
const VCB_Q_TYPE: u32 = 4;
const VCB_SIG_WORD: u32 = 8;
const VCB_NM_AL_BLKS: u32 = 26;
const VCB_AL_BLK_SIZ: u32 = 28;
const VCB_FREE_BKS: u32 = 42;
const VCB_VN: u32 = 44;
const VCB_DRV_NUM: u32 = 72;
const VCB_DREF_NUM: u32 = 74;
const VCB_VREF_NUM: u32 = 78;
/// `qType` of a VCB in the VCB queue (`fsQType`).
const FS_Q_TYPE: u16 = 3;

pub const NS_DRV_ERR: i16 = -56;
pub const VOL_ON_LIN_ERR: i16 = -55;
pub const NO_MAC_DSK_ERR: i16 = -57;
/// `nsvErr`: no such volume.
pub const NSV_ERR: i16 = -35;
/// `fBsyErr`: one or more files are open (or the volume is the startup volume).
pub const F_BSY_ERR: i16 = -47;
/// `ioNamePtr`.
const IO_NAME_PTR: u32 = 18;

/// A mounted volume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    /// Its VCB in the VCB queue.
    pub vcb: u32,
    pub vref_num: i16,
    pub drive: u16,
    pub driver_ref_num: i16,
    pub name: String,
    pub alloc_block_size: u32,
    pub alloc_blocks: u16,
    pub free_alloc_blocks: u16,
    /// On line: its drive serves it (false once `_Eject` took it off line).
    pub online: bool,
    /// Where its MDB was read from (None: no disk target saw the read).
    pub medium: Option<VolumeMedium>,
}

/// The medium a mounted volume lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VolumeMedium {
    /// The disk target's SCSI ID.
    pub target: u8,
    /// Its [`crate::scsi::DiskTarget::medium_id`] when the volume was mounted.
    pub medium: u64,
    /// The volume's first block on that medium and its size in blocks.
    pub start: u64,
    pub blocks: u64,
}

/// A Prime for a mounted volume, in progress.
#[derive(Debug, Clone, Copy)]
struct Watch {
    pb: u32,
    vref_num: i16,
    on: VolumeMedium,
    /// The target's [`crate::scsi::DiskTarget::medium_seq`] when it started.
    seq: u64,
}

impl Volume {
    /// Volume size in bytes (allocation blocks × their size).
    pub fn size_bytes(&self) -> u64 {
        self.alloc_blocks as u64 * self.alloc_block_size as u64
    }
    /// Free bytes.
    pub fn free_bytes(&self) -> u64 {
        self.free_alloc_blocks as u64 * self.alloc_block_size as u64
    }
}

/// File-Manager-lite state.
#[derive(Debug, Default)]
pub struct FileManager {
    pub volumes: Vec<Volume>,
    /// Guest stub `move.l 4(sp),a0; _Read; rts` and its scratch PB + buffer.
    read_stub: Option<(u32, u32, u32)>,
    /// Guest stub `move.l 4(sp),a0; _UnmountVol; rts` and its parameter block.
    unmount_stub: Option<(u32, u32)>,
    /// Volume reference numbers given so far.
    vrefs_given: i16,
    /// One entry per file open on a volume (its vRefNum), as tests say other programs hold.
    open_files: Vec<i16>,
    /// Guest stub `move.l 4(sp),a0; _Control; rts` and its parameter block (`_Eject`).
    control_stub: Option<(u32, u32)>,
    /// Guest stub `move.l 4(sp),a0; _Eject; rts` and its parameter block.
    eject_stub: Option<(u32, u32)>,
    /// Primes for mounted volumes in progress.
    watches: Vec<Watch>,
    /// Working directories: (wdRefNum, the volume's vRefNum) ([`open_working_dir`]).
    pub working_dirs: Vec<(i16, i16)>,
}

/// The first working-directory reference number given: WD refNums are negative numbers far
/// from the volumes' (IM Files, "Working Directory Reference Numbers").
pub const FIRST_WD_REF_NUM: i16 = -32_766;

/// Open a working directory on the volume `vref` (the system does so for the System Folder
/// of the startup volume and leaves its refNum in `BootDrive`): its wdRefNum.
pub fn open_working_dir(m: &mut Machine, vref: i16) -> i16 {
    let fm = m.state::<FileManager>();
    let wd = FIRST_WD_REF_NUM + fm.working_dirs.len() as i16;
    fm.working_dirs.push((wd, vref));
    wd
}

/// The mounted volume `vref` names: a volume reference number, a working-directory
/// reference number, or a drive number (positive); 0 is the default volume, the startup
/// volume here.
pub fn volume_of(m: &mut Machine, vref: i16) -> Option<Volume> {
    let vref = if vref == 0 {
        m.read_u16(crate::lowmem::BOOT_DRIVE) as i16
    } else {
        vref
    };
    let fm = m.state::<FileManager>();
    let vref = fm
        .working_dirs
        .iter()
        .find(|w| w.0 == vref)
        .map_or(vref, |w| w.1);
    fm.volumes
        .iter()
        .find(|v| {
            (vref < 0 && v.vref_num == vref) || (vref > 0 && v.online && v.drive == vref as u16)
        })
        .cloned()
}

impl FileManager {
    /// A program opens a file on the volume `vref_num` (the model has no `_Open`):
    /// `_UnmountVol` of it fails with `fBsyErr` until [`FileManager::close_file`].
    pub fn open_file(&mut self, vref_num: i16) {
        self.open_files.push(vref_num);
    }
    /// The file [`FileManager::open_file`] opened is closed.
    pub fn close_file(&mut self, vref_num: i16) {
        if let Some(i) = self.open_files.iter().position(|&v| v == vref_num) {
            self.open_files.remove(i);
        }
    }
}

/// Install `_MountVol` and `_UnmountVol` (part of [`Machine::install_mac_os`]).
pub fn install(m: &mut Machine) {
    m.register_trap(0xA00F, "MountVol", mount_vol_trap);
    m.register_trap(0xA00E, "UnmountVol", unmount_vol_trap);
    m.register_trap(0xA207, "HGetVInfo", hget_vinfo_trap);
    m.register_trap(0xA017, "Eject", eject_trap);
}

/// Each disk target's SCSI ID and [`DiskTarget::medium_seq`](crate::scsi::DiskTarget::medium_seq).
fn medium_seqs(m: &mut Machine) -> Vec<(u8, u64)> {
    let bus = crate::scsi_manager::bus(m);
    (0..7u8)
        .filter_map(|id| {
            bus.target_as::<crate::scsi::DiskTarget>(id)
                .map(|t| (id, t.medium_seq()))
        })
        .collect()
}

/// The Device Manager starts a Prime (`pb`): watched when it is for an on-line volume's drive.
pub(crate) fn io_started(m: &mut Machine, pb: u32) {
    let drive = m.read_u16(pb + IO_VREFNUM);
    let ref_num = m.read_u16(pb + IO_REFNUM) as i16;
    let fm = m.state::<FileManager>();
    fm.watches.retain(|w| w.pb != pb);
    let Some((vref_num, on)) = fm
        .volumes
        .iter()
        .find(|v| v.online && v.drive == drive && v.driver_ref_num == ref_num)
        .and_then(|v| v.medium.map(|on| (v.vref_num, on)))
    else {
        return;
    };
    let seq = crate::scsi_manager::bus(m)
        .target_as::<crate::scsi::DiskTarget>(on.target)
        .map_or(0, |t| t.medium_seq());
    m.state::<FileManager>().watches.push(Watch {
        pb,
        vref_num,
        on,
        seq,
    });
}

/// The Prime `pb` ended (IODone, or the immediate call returned): a transfer since its start
/// that reached the volume's blocks on another medium fails the run.
pub(crate) fn io_ended(m: &mut Machine, pb: u32) -> Result<(), Fault> {
    let fm = m.state::<FileManager>();
    let Some(i) = fm.watches.iter().position(|w| w.pb == pb) else {
        return Ok(());
    };
    let w = fm.watches.remove(i);
    let name = fm
        .volumes
        .iter()
        .find(|v| v.vref_num == w.vref_num)
        .map_or_else(String::new, |v| v.name.clone());
    let on = w.on;
    let Some(t) = crate::scsi_manager::bus(m).target_as::<crate::scsi::DiskTarget>(on.target)
    else {
        return Ok(());
    };
    let wrong = t.medium_log().iter().find(|a| {
        a.seq > w.seq
            && a.medium != on.medium
            && a.lba < on.start + on.blocks
            && on.start < a.lba + a.blocks
    });
    if let Some(a) = wrong {
        return Err(Fault::Misuse {
            trap: Some(if a.write { 0xA003 } else { 0xA002 }),
            message: format!(
                "misdirected I/O: a {} of {} block(s) at LBA {} for volume \"{name}\" (mounted from medium {} of SCSI ID {}, blocks {}..{}) reached medium {} — the medium was changed under a mounted volume and the driver served the new one under its drive",
                if a.write { "write" } else { "read" },
                a.blocks,
                a.lba,
                on.medium,
                on.target,
                on.start,
                on.start + on.blocks,
                a.medium
            ),
        });
    }
    Ok(())
}

fn eject_trap(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    let pb = m.a(0);
    let name_ptr = m.read_u32(pb + IO_NAME_PTR);
    let name = (name_ptr != 0).then(|| {
        let len = m.read_u8(name_ptr) as u32;
        let mut n = m.read_bytes(name_ptr + 1, len);
        if n.last() == Some(&b':') {
            n.pop();
        }
        n
    });
    let vref = m.read_u16(pb + IO_VREFNUM) as i16;
    let code = eject(m, name.as_deref(), vref)?;
    m.write_u16(pb + IO_RESULT, code as u16);
    m.set_d(0, code as i32 as u32);
    Ok(())
}

/// `_Eject` of the volume named `name` (without its colon), else `vref` (a volume reference
/// number, a drive number, or 0: the startup volume): the volume off line, then the driver's
/// Control 7 for its drive. Its result.
pub fn eject(m: &mut Machine, name: Option<&[u8]>, vref: i16) -> Result<i16, Fault> {
    let boot_drive = volume_of(m, 0).map_or(0, |v| v.drive);
    let fm = m.state::<FileManager>();
    let found = fm.volumes.iter().position(|v| {
        v.online
            && match name {
                Some(n) => v.name.as_bytes().eq_ignore_ascii_case(n),
                None if vref < 0 => v.vref_num == vref,
                None if vref > 0 => v.drive == vref as u16,
                None => boot_drive != 0 && v.drive == boot_drive,
            }
    });
    let drive = match found {
        Some(i) => {
            let v = &mut fm.volumes[i];
            v.online = false;
            let (vcb, drive) = (v.vcb, v.drive);
            // Ejected: vcbDrvNum 0, vcbDRefNum the drive number (Technote FL 34).
            m.write_u16(vcb + VCB_DRV_NUM, 0);
            m.write_u16(vcb + VCB_DREF_NUM, drive);
            drive
        }
        None if name.is_none() && vref > 0 => vref as u16,
        None => return Ok(NSV_ERR),
    };
    let all = m.try_drives().map_err(|e| Fault::Misuse {
        trap: Some(0xA017),
        message: e,
    })?;
    let Some(d) = all.into_iter().find(|d| d.number as u16 == drive) else {
        return Ok(NS_DRV_ERR);
    };
    call_control(m, d.ref_num, drive, 7)
}

/// `_Eject` of `vref` (a vRefNum or a drive number) run as guest code: its result.
pub fn call_eject(m: &mut Machine, vref: i16) -> Result<i16, Fault> {
    let (stub, pb) = match m.state::<FileManager>().eject_stub {
        Some(s) => s,
        None => {
            let map = |e: i16| Fault::setup(format!("File-Manager-lite: no memory ({e})"));
            let stub = m.new_ptr(ZoneId::System, 8, false).map_err(map)?;
            // move.l 4(sp),a0 ; _Eject ($A017) ; rts
            m.write_code_words(stub, &[0x206F, 0x0004, 0xA017, 0x4E75]);
            m.flush_icache_range(stub, 8);
            let pb = m.new_ptr(ZoneId::System, IOPARAM_SIZE, true).map_err(map)?;
            m.state::<FileManager>().eject_stub = Some((stub, pb));
            (stub, pb)
        }
    };
    m.bus_mut().fill_host(pb, IOPARAM_SIZE, 0);
    m.write_u16(pb + IO_VREFNUM, vref as u16);
    m.call_address(stub, &[pb])?;
    Ok(m.read_u16(pb + IO_RESULT) as i16)
}

/// A synchronous `_Control` (`cs_code`) of driver `ref_num` for `drive`, run as guest code.
fn call_control(m: &mut Machine, ref_num: i16, drive: u16, cs_code: i16) -> Result<i16, Fault> {
    let (stub, pb) = match m.state::<FileManager>().control_stub {
        Some(s) => s,
        None => {
            let map = |e: i16| Fault::setup(format!("File-Manager-lite: no memory ({e})"));
            let stub = m.new_ptr(ZoneId::System, 8, false).map_err(map)?;
            // move.l 4(sp),a0 ; _Control ($A004) ; rts
            m.write_code_words(stub, &[0x206F, 0x0004, 0xA004, 0x4E75]);
            m.flush_icache_range(stub, 8);
            let pb = m
                .new_ptr(ZoneId::System, CNTRL_PARAM_SIZE, true)
                .map_err(map)?;
            m.state::<FileManager>().control_stub = Some((stub, pb));
            (stub, pb)
        }
    };
    m.bus_mut().fill_host(pb, CNTRL_PARAM_SIZE, 0);
    m.write_u16(pb + IO_VREFNUM, drive);
    m.write_u16(pb + IO_REFNUM, ref_num as u16);
    m.write_u16(pb + CS_CODE, cs_code as u16);
    m.call_address(stub, &[pb])?;
    Ok(m.read_u16(pb + IO_RESULT) as i16)
}

/// `HParamBlockRec` (`HVolumeParam`) offsets of `_HGetVInfo` (IM Files, `PBHGetVInfo`).
const IO_VOL_INDEX: u32 = 28;
const IO_V_SIG_WORD: u32 = 64;
const IO_V_DRV_INFO: u32 = 66;
const IO_V_DREF_NUM: u32 = 68;
const HVOLUME_PARAM_SIZE: u32 = 122;

/// `_HGetVInfo` ($A207; `_GetVolInfo` with the HFS bit): the volume by `ioVolIndex` (> 0:
/// the n-th mounted volume), else by `ioVRefNum` (a vRefNum, a wdRefNum or a drive number;
/// 0: the default volume). The model fills `ioVRefNum`, the name (when `ioNamePtr` is not
/// NIL), `ioVNmAlBlks`, `ioVAlBlkSiz`, `ioVFrBlk`, `ioVSigWord`, `ioVDrvInfo` (the drive
/// number) and `ioVDRefNum` (the driver's refNum), and fills every other field with $EE
/// (garbage a program must not read). `_GetVolInfo` without the HFS bit is not modelled.
fn hget_vinfo_trap(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    if call.word & 0x0200 == 0 {
        return Err(Fault::misuse(
            call.word,
            "_GetVolInfo without the HFS bit is not modelled (use PBHGetVInfo)",
        ));
    }
    let pb = m.a(0);
    check_pb(m, call, pb, HVOLUME_PARAM_SIZE)?;
    let index = m.read_u16(pb + IO_VOL_INDEX) as i16;
    let vref = m.read_u16(pb + IO_VREFNUM) as i16;
    let found = if index > 0 {
        m.state::<FileManager>()
            .volumes
            .get(index as usize - 1)
            .cloned()
    } else {
        volume_of(m, vref)
    };
    let code = match found {
        None => NSV_ERR,
        Some(v) => {
            m.bus_mut()
                .fill_host(pb + 30, HVOLUME_PARAM_SIZE - 30, 0xEE);
            let name_ptr = m.read_u32(pb + IO_NAME_PTR);
            if name_ptr != 0 {
                m.write_pstring(name_ptr, v.name.as_bytes());
            }
            m.write_u16(pb + IO_VREFNUM, v.vref_num as u16);
            m.write_u16(pb + 46, v.alloc_blocks);
            m.write_u32(pb + 48, v.alloc_block_size);
            m.write_u16(pb + 62, v.free_alloc_blocks);
            m.write_u16(pb + IO_V_SIG_WORD, HFS_SIGNATURE);
            m.write_u16(pb + IO_V_DRV_INFO, v.drive);
            m.write_u16(pb + IO_V_DREF_NUM, v.driver_ref_num as u16);
            0
        }
    };
    m.write_u16(pb + IO_RESULT, code as u16);
    m.set_d(0, code as i32 as u32);
    Ok(())
}

fn unmount_vol_trap(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let pb = m.a(0);
    check_pb(m, call, pb, IOPARAM_SIZE)?;
    let name_ptr = m.read_u32(pb + IO_NAME_PTR);
    let name = (name_ptr != 0).then(|| {
        let len = m.read_u8(name_ptr) as u32;
        let mut n = m.read_bytes(name_ptr + 1, len);
        if n.last() == Some(&b':') {
            n.pop();
        }
        n
    });
    let vref = m.read_u16(pb + IO_VREFNUM) as i16;
    let code = match unmount(m, name.as_deref(), vref)? {
        Ok(()) => 0,
        Err(e) => e,
    };
    m.write_u16(pb + IO_RESULT, code as u16);
    m.set_d(0, code as i32 as u32);
    Ok(())
}

/// Unmount the volume named `name` (without its colon), else `vref` (a volume reference
/// number, a drive number, or 0: the startup volume), as `_UnmountVol` does.
pub fn unmount(m: &mut Machine, name: Option<&[u8]>, vref: i16) -> Result<Result<(), i16>, Fault> {
    let boot_drive = volume_of(m, 0).map_or(0, |v| v.drive);
    let fm = m.state::<FileManager>();
    let found = fm.volumes.iter().position(|v| match name {
        Some(n) => v.name.as_bytes().eq_ignore_ascii_case(n),
        None if vref < 0 => v.vref_num == vref,
        None if vref > 0 => v.online && v.drive == vref as u16,
        None => boot_drive != 0 && v.online && v.drive == boot_drive,
    });
    let Some(i) = found else {
        return Ok(Err(NSV_ERR));
    };
    let v = fm.volumes[i].clone();
    if v.online && v.drive == boot_drive || fm.open_files.contains(&v.vref_num) {
        return Ok(Err(F_BSY_ERR));
    }
    fm.volumes.remove(i);
    let gone = crate::os_utils::queue_remove(m, crate::lowmem::VCB_Q_HDR, v.vcb).map_err(|e| {
        Fault::Misuse {
            trap: Some(0xA00E),
            message: format!("the VCB queue is damaged: {e}"),
        }
    })?;
    if !gone {
        return Err(Fault::Misuse {
            trap: Some(0xA00E),
            message: format!(
                "the VCB of \"{}\" left the VCB queue behind the File Manager's back",
                v.name
            ),
        });
    }
    m.dispose_ptr(v.vcb)
        .map_err(|e| Fault::setup(format!("File-Manager-lite: disposing a VCB: {e}")))?;
    Ok(Ok(()))
}

/// `_UnmountVol` of `vref` (a vRefNum or a drive number) run as guest code: its result.
pub fn call_unmount_vol(m: &mut Machine, vref: i16) -> Result<i16, Fault> {
    let (stub, pb) = match m.state::<FileManager>().unmount_stub {
        Some(s) => s,
        None => {
            let map = |e: i16| Fault::setup(format!("File-Manager-lite: no memory ({e})"));
            let stub = m.new_ptr(ZoneId::System, 8, false).map_err(map)?;
            // move.l 4(sp),a0 ; _UnmountVol ($A00E) ; rts
            m.write_code_words(stub, &[0x206F, 0x0004, 0xA00E, 0x4E75]);
            m.flush_icache_range(stub, 8);
            let pb = m.new_ptr(ZoneId::System, IOPARAM_SIZE, true).map_err(map)?;
            m.state::<FileManager>().unmount_stub = Some((stub, pb));
            (stub, pb)
        }
    };
    m.bus_mut().fill_host(pb, IOPARAM_SIZE, 0);
    m.write_u16(pb + IO_VREFNUM, vref as u16);
    m.call_address(stub, &[pb])?;
    Ok(m.read_u16(pb + IO_RESULT) as i16)
}

/// A File Manager parameter block must be word-aligned and in RAM (the 68000 faults on an
/// odd word access; IM Files: parameter blocks are records of words and longs).
fn check_pb(m: &Machine, call: &TrapCall, pb: u32, len: u32) -> Result<(), Fault> {
    if pb & 1 != 0 || !m.bus().in_ram(pb, len) {
        return Err(Fault::misuse(
            call.word,
            format!("parameter block at ${pb:08X} is odd or outside RAM"),
        ));
    }
    Ok(())
}

fn mount_vol_trap(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let pb = m.a(0);
    check_pb(m, call, pb, IOPARAM_SIZE)?;
    let drive = m.read_u16(pb + IO_VREFNUM);
    let r = mount(m, drive)?;
    let code = match r {
        Ok(v) => {
            // ioVRefNum returns the new volume's reference number.
            m.write_u16(pb + IO_VREFNUM, v as u16);
            0
        }
        Err(e) => e,
    };
    m.write_u16(pb + IO_RESULT, code as u16);
    m.set_d(0, code as i32 as u32);
    Ok(())
}

/// Read `len` bytes at byte `offset` of `drive` through its driver with a synchronous `_Read`
/// run as guest code. Returns the bytes or the `ioResult`.
pub fn read_through_driver(
    m: &mut Machine,
    drive: &Drive,
    offset: u32,
    len: u32,
) -> Result<Result<Vec<u8>, i16>, Fault> {
    assert!(len <= 1024);
    let (stub, pb, buf) = match m.state::<FileManager>().read_stub {
        Some(s) => s,
        None => {
            let map = |e: i16| Fault::setup(format!("File-Manager-lite: no memory ({e})"));
            let stub = m.new_ptr(ZoneId::System, 8, false).map_err(map)?;
            // move.l 4(sp),a0 ; _Read ($A002) ; rts
            m.write_code_words(stub, &[0x206F, 0x0004, 0xA002, 0x4E75]);
            m.flush_icache_range(stub, 8);
            let pb = m.new_ptr(ZoneId::System, IOPARAM_SIZE, true).map_err(map)?;
            let buf = m.new_ptr(ZoneId::System, 1024, true).map_err(map)?;
            m.state::<FileManager>().read_stub = Some((stub, pb, buf));
            (stub, pb, buf)
        }
    };
    m.bus_mut().fill_host(pb, IOPARAM_SIZE, 0);
    m.write_u32(pb + IO_COMPLETION, 0);
    m.write_u16(pb + IO_VREFNUM, drive.number as u16);
    m.write_u16(pb + IO_REFNUM, drive.ref_num as u16);
    m.write_u32(pb + IO_BUFFER, buf);
    m.write_u32(pb + IO_REQCOUNT, len);
    m.write_u16(pb + IO_POSMODE, 1);
    m.write_u32(pb + IO_POSOFFSET, offset);
    m.call_address(stub, &[pb])?;
    let result = m.read_u16(pb + IO_RESULT) as i16;
    if result != 0 {
        return Ok(Err(result));
    }
    let got = m.read_u32(pb + IO_ACTCOUNT);
    if got != len {
        return Err(Fault::Misuse {
            trap: Some(0xA002),
            message: format!(
                "the driver completed a {len}-byte _Read with noErr but ioActCount {got}"
            ),
        });
    }
    Ok(Ok(m.read_bytes(buf, len)))
}

/// Mount the volume on `drive`: `Ok(vRefNum)` or a Mac OS error code.
pub fn mount(m: &mut Machine, drive: u16) -> Result<Result<i16, i16>, Fault> {
    let all = m.try_drives().map_err(|e| Fault::Misuse {
        trap: None,
        message: e,
    })?;
    let Some(d) = all.into_iter().find(|d| d.number as u16 == drive) else {
        return Ok(Err(NS_DRV_ERR));
    };
    if m.state::<FileManager>()
        .volumes
        .iter()
        .any(|v| v.online && v.drive == drive)
    {
        return Ok(Err(VOL_ON_LIN_ERR));
    }
    let before = medium_seqs(m);
    let mdb = match read_through_driver(m, &d, 1024, 512)? {
        Ok(b) => b,
        Err(e) => return Ok(Err(e)),
    };
    // The medium the MDB came from: the transfer of the volume's block 2 the read made.
    let medium = before.iter().find_map(|&(id, seq)| {
        let t = crate::scsi_manager::bus(m).target_as::<crate::scsi::DiskTarget>(id)?;
        let a = t
            .medium_log()
            .iter()
            .rev()
            .find(|a| a.seq > seq && !a.write && a.lba >= 2)?;
        Some(VolumeMedium {
            target: id,
            medium: a.medium,
            start: a.lba - 2,
            blocks: u64::from(d.blocks),
        })
    });
    let be16 = |o: usize| u16::from_be_bytes([mdb[o], mdb[o + 1]]);
    if be16(DR_SIG_WORD) != HFS_SIGNATURE {
        return Ok(Err(NO_MAC_DSK_ERR));
    }
    let name_len = (mdb[DR_VN] as usize).min(27);
    let vref = {
        let fm = m.state::<FileManager>();
        fm.vrefs_given += 1;
        -fm.vrefs_given
    };
    // The VCB, in the system heap, queued at VCBQHdr.
    let vcb = m
        .new_ptr(ZoneId::System, VCB_LEN, true)
        .map_err(|e| Fault::setup(format!("File-Manager-lite: no memory for a VCB ({e})")))?;
    m.write_u16(vcb + VCB_Q_TYPE, FS_Q_TYPE);
    m.write_u16(vcb + VCB_SIG_WORD, HFS_SIGNATURE);
    m.write_u16(vcb + VCB_NM_AL_BLKS, be16(DR_NM_AL_BLKS));
    m.write_bytes(vcb + VCB_AL_BLK_SIZ, &mdb[DR_AL_BLK_SIZ..DR_AL_BLK_SIZ + 4]);
    m.write_u16(vcb + VCB_FREE_BKS, be16(DR_FREE_BKS));
    m.write_bytes(vcb + VCB_VN, &mdb[DR_VN..DR_VN + 1 + name_len]);
    m.write_u8(vcb + VCB_VN, name_len as u8);
    m.write_u16(vcb + VCB_DRV_NUM, drive);
    m.write_u16(vcb + VCB_DREF_NUM, d.ref_num as u16);
    m.write_u16(vcb + VCB_VREF_NUM, vref as u16);
    crate::os_utils::queue_append(m, crate::lowmem::VCB_Q_HDR, vcb);
    let fm = m.state::<FileManager>();
    fm.volumes.push(Volume {
        vcb,
        vref_num: vref,
        drive,
        driver_ref_num: d.ref_num,
        name: String::from_utf8_lossy(&mdb[DR_VN + 1..DR_VN + 1 + name_len]).into_owned(),
        alloc_block_size: u32::from_be_bytes([
            mdb[DR_AL_BLK_SIZ],
            mdb[DR_AL_BLK_SIZ + 1],
            mdb[DR_AL_BLK_SIZ + 2],
            mdb[DR_AL_BLK_SIZ + 3],
        ]),
        alloc_blocks: be16(DR_NM_AL_BLKS),
        free_alloc_blocks: be16(DR_FREE_BKS),
        online: true,
        medium,
    });
    Ok(Ok(vref))
}
