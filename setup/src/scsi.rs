//! The two SCSI Managers as [`Transport`]s (synchronous calls only), reading and writing.

use ferrite_macrt::sys;
use ferrite_shared::mac::ScsiExecIoPb;
use ferrite_shared::scsi::{op, status};
use ferrite_shared::scsi_manager::original::{SC_INC, SC_MGR_BUSY, SC_PHASE_ERR, SC_STOP};
use ferrite_shared::scsi_manager::v43::{
    DIR_IN, DIR_NONE, DIR_OUT, SCSI_AUTOSENSE_VALID, SCSI_DATA_RUN_ERROR, SCSI_EXEC_IO,
    SCSI_NON_ZERO_STATUS, SCSI_SELECT_TIMEOUT, SIMQ_NO_FREEZE,
};
use zerocopy::{FromZeros, IntoBytes};

use crate::bus::{ScsiError, Transport};

/// Whether a command must move exactly the bytes asked for: block reads and writes and READ
/// CAPACITY (a short answer would leave stale buffer contents taken for data). INQUIRY,
/// MODE SENSE and REQUEST SENSE may answer with less than their allocation length.
fn exact_length(opcode: u8) -> bool {
    matches!(
        opcode,
        op::READ_6 | op::READ_10 | op::WRITE_6 | op::WRITE_10 | op::READ_CAPACITY_10
    )
}

/// SCSI Manager 4.3: `SCSIExecIO` with no completion routine (synchronous) and autosense.
pub struct Scsi43 {
    sense: [u8; 18],
    /// Whether `sense` holds the autosense of the last command.
    sense_valid: bool,
}

impl Scsi43 {
    pub fn new() -> Scsi43 {
        Scsi43 {
            sense: [0; 18],
            sense_valid: false,
        }
    }

    /// One `SCSIExecIO`: `dir` is `DIR_IN`, `DIR_OUT` or `DIR_NONE` (with `len` 0).
    fn exec(
        &mut self,
        id: u8,
        cdb: &[u8],
        ptr: u32,
        len: usize,
        dir: u32,
    ) -> Result<(), ScsiError> {
        let mut pb = ScsiExecIoPb::new_zeroed();
        pb.scsi_pb_length
            .set(core::mem::size_of::<ScsiExecIoPb>() as u16);
        pb.scsi_function_code = SCSI_EXEC_IO;
        pb.scsi_device = [0, 0, id, 0];
        pb.scsi_flags
            .set(if len == 0 { DIR_NONE } else { dir } | SIMQ_NO_FREEZE);
        pb.scsi_data_ptr.set(ptr);
        pb.scsi_data_length.set(len as u32);
        pb.scsi_sense_ptr.set(self.sense.as_mut_ptr() as u32);
        pb.scsi_sense_length = self.sense.len() as u8;
        pb.scsi_cdb_length = cdb.len() as u8;
        pb.scsi_cdb[..cdb.len()].copy_from_slice(cdb);
        self.sense_valid = false;
        // SAFETY: the PB, the data buffer and the sense buffer outlive the synchronous call.
        let r = unsafe { sys::rt_SCSIAction(pb.as_mut_bytes().as_mut_ptr()) } as i16;
        let r = if r != 0 { r } else { pb.scsi_result.get() };
        let st = pb.scsi_scsi_status;
        self.sense_valid =
            st == status::CHECK_CONDITION && pb.scsi_result_flags.get() & SCSI_AUTOSENSE_VALID != 0;
        match r {
            // SCSI Manager 4.3 may report an underrun as GOOD with a residual instead of
            // scsiDataRunError (IM Devices ch. 4 allows both): a block transfer must have
            // moved every byte.
            0 if exact_length(cdb[0]) && pb.scsi_data_residual.get() != 0 => {
                Err(ScsiError::Manager(SCSI_DATA_RUN_ERROR))
            }
            0 => Ok(()),
            SCSI_SELECT_TIMEOUT => Err(ScsiError::NoDevice),
            // An underrun with GOOD status: fine for INQUIRY and its kind, an error for a
            // block transfer.
            SCSI_DATA_RUN_ERROR if st == status::GOOD && !exact_length(cdb[0]) => Ok(()),
            SCSI_DATA_RUN_ERROR if st == status::GOOD => Err(ScsiError::Manager(r)),
            SCSI_NON_ZERO_STATUS | SCSI_DATA_RUN_ERROR => Err(ScsiError::Status(st)),
            r => Err(ScsiError::Manager(r)),
        }
    }
}

impl Transport for Scsi43 {
    fn command(&mut self, id: u8, cdb: &[u8], data: &mut [u8]) -> Result<(), ScsiError> {
        self.exec(id, cdb, data.as_mut_ptr() as u32, data.len(), DIR_IN)
    }
    fn command_out(&mut self, id: u8, cdb: &[u8], data: &[u8]) -> Result<(), ScsiError> {
        self.exec(id, cdb, data.as_ptr() as u32, data.len(), DIR_OUT)
    }
    fn autosense(&mut self) -> Option<[u8; 18]> {
        core::mem::take(&mut self.sense_valid).then_some(self.sense)
    }
    fn name(&self) -> &'static str {
        "SCSI Manager 4.3"
    }
}

/// Ticks `SCSIComplete` waits for the status phase.
const COMPLETE_WAIT_TICKS: u32 = 300;
/// Ticks it waits for FORMAT UNIT, which answers when the whole medium is done (SCSI
/// Manager 4.3 is given no timeout at all): two hours.
const FORMAT_WAIT_TICKS: u32 = 2 * 60 * 60 * 60;
/// Ticks it waits for REASSIGN BLOCKS (the drive may rewrite a track per block): a minute.
const REASSIGN_WAIT_TICKS: u32 = 60 * 60;
/// Mask of the status byte in `SCSIComplete`'s status word.
const STATUS_MASK: u16 = 0x3E;

/// The original SCSI Manager (`_SCSIDispatch`): SCSIGet, SCSISelect, SCSICmd, a polled
/// SCSIRead and SCSIComplete.
pub struct ScsiOld;

unsafe extern "C" {
    /// `SCSIWrite` (`_SCSIDispatch` selector 6) with a TIB: `setup/src/scsi_glue.S`.
    fn ferrite_SCSIWrite(tib: *const u8) -> i32;
}

/// Which way the data phase goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    In,
    Out,
}

impl ScsiOld {
    fn exec(
        &mut self,
        id: u8,
        cdb: &[u8],
        ptr: u32,
        len: usize,
        dir: Dir,
    ) -> Result<(), ScsiError> {
        // SAFETY: every pointer passed (CDB, TIB, data, status, message) outlives its call.
        unsafe {
            let mut busy = 0;
            loop {
                match sys::rt_SCSIGet() {
                    0 => break,
                    r if r == SC_MGR_BUSY as i32 && busy < 20 => busy += 1,
                    r if r == SC_MGR_BUSY as i32 => return Err(ScsiError::BusBusy),
                    r => return Err(ScsiError::Manager(r as i16)),
                }
            }
            if sys::rt_SCSISelect(id as i32) != 0 {
                return Err(ScsiError::NoDevice);
            }
            let cmd = sys::rt_SCSICmd(cdb.as_ptr(), cdb.len() as i32);
            let mut moved = 0;
            if cmd == 0 && len != 0 {
                // Word-aligned: the SCSI Manager reads the TIB's words and longs.
                #[repr(C, align(2))]
                struct Tib([u8; 20]);
                let mut tib = Tib([0u8; 20]);
                let tib = &mut tib.0;
                tib[0..2].copy_from_slice(&SC_INC.to_be_bytes());
                tib[2..6].copy_from_slice(&ptr.to_be_bytes());
                tib[6..10].copy_from_slice(&(len as u32).to_be_bytes());
                tib[10..12].copy_from_slice(&SC_STOP.to_be_bytes());
                // Every result counts. A short answer ends the data phase early (scPhaseErr):
                // allowed for INQUIRY and its kind, an error for a block transfer.
                moved = match dir {
                    Dir::In => sys::rt_SCSIRead(tib.as_ptr()),
                    Dir::Out => ferrite_SCSIWrite(tib.as_ptr()),
                };
            }
            let (mut stat, mut msg) = (0u16, 0u16);
            let wait = match cdb[0] {
                op::FORMAT_UNIT => FORMAT_WAIT_TICKS,
                op::REASSIGN_BLOCKS => REASSIGN_WAIT_TICKS,
                _ => COMPLETE_WAIT_TICKS,
            };
            let done = sys::rt_SCSIComplete(&mut stat, &mut msg, wait);
            if done != 0 {
                return Err(ScsiError::Manager(done as i16));
            }
            if cmd != 0 {
                return Err(ScsiError::Manager(cmd as i16));
            }
            match (stat & STATUS_MASK) as u8 {
                status::GOOD
                    if moved != 0 && (moved != SC_PHASE_ERR as i32 || exact_length(cdb[0])) =>
                {
                    Err(ScsiError::Manager(moved as i16))
                }
                status::GOOD => Ok(()),
                s => Err(ScsiError::Status(s)),
            }
        }
    }
}

impl Transport for ScsiOld {
    fn command(&mut self, id: u8, cdb: &[u8], data: &mut [u8]) -> Result<(), ScsiError> {
        self.exec(id, cdb, data.as_mut_ptr() as u32, data.len(), Dir::In)
    }
    fn command_out(&mut self, id: u8, cdb: &[u8], data: &[u8]) -> Result<(), ScsiError> {
        self.exec(id, cdb, data.as_ptr() as u32, data.len(), Dir::Out)
    }
    fn name(&self) -> &'static str {
        "original SCSI Manager"
    }
}
