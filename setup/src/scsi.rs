//! The two SCSI Managers as [`Transport`]s for the bus scan (synchronous calls only).

use ferrite_macrt::sys;
use ferrite_shared::mac::ScsiExecIoPb;
use ferrite_shared::scsi::status;
use ferrite_shared::scsi_manager::original::{SC_INC, SC_MGR_BUSY, SC_STOP};
use ferrite_shared::scsi_manager::v43::{
    DIR_IN, DIR_NONE, SCSI_DATA_RUN_ERROR, SCSI_EXEC_IO, SCSI_NON_ZERO_STATUS, SCSI_SELECT_TIMEOUT,
    SIMQ_NO_FREEZE,
};
use zerocopy::{FromZeros, IntoBytes};

use crate::bus::{ScsiError, Transport};

/// SCSI Manager 4.3: `SCSIExecIO` with no completion routine (synchronous) and autosense.
pub struct Scsi43 {
    sense: [u8; 18],
}

impl Scsi43 {
    pub fn new() -> Scsi43 {
        Scsi43 { sense: [0; 18] }
    }
}

impl Transport for Scsi43 {
    fn command(&mut self, id: u8, cdb: &[u8], data: &mut [u8]) -> Result<(), ScsiError> {
        let mut pb = ScsiExecIoPb::new_zeroed();
        pb.scsi_pb_length
            .set(core::mem::size_of::<ScsiExecIoPb>() as u16);
        pb.scsi_function_code = SCSI_EXEC_IO;
        pb.scsi_device = [0, 0, id, 0];
        pb.scsi_flags
            .set(if data.is_empty() { DIR_NONE } else { DIR_IN } | SIMQ_NO_FREEZE);
        pb.scsi_data_ptr.set(data.as_mut_ptr() as u32);
        pb.scsi_data_length.set(data.len() as u32);
        pb.scsi_sense_ptr.set(self.sense.as_mut_ptr() as u32);
        pb.scsi_sense_length = self.sense.len() as u8;
        pb.scsi_cdb_length = cdb.len() as u8;
        pb.scsi_cdb[..cdb.len()].copy_from_slice(cdb);
        // SAFETY: the PB, the data buffer and the sense buffer outlive the synchronous call.
        let r = unsafe { sys::rt_SCSIAction(pb.as_mut_bytes().as_mut_ptr()) } as i16;
        let r = if r != 0 { r } else { pb.scsi_result.get() };
        let st = pb.scsi_scsi_status;
        match r {
            0 => Ok(()),
            SCSI_SELECT_TIMEOUT => Err(ScsiError::NoDevice),
            SCSI_DATA_RUN_ERROR if st == status::GOOD => Ok(()),
            SCSI_NON_ZERO_STATUS | SCSI_DATA_RUN_ERROR => Err(ScsiError::Status(st)),
            r => Err(ScsiError::Manager(r)),
        }
    }
    fn name(&self) -> &'static str {
        "SCSI Manager 4.3"
    }
}

/// Ticks `SCSIComplete` waits for the status phase.
const COMPLETE_WAIT_TICKS: u32 = 300;
/// Mask of the status byte in `SCSIComplete`'s status word.
const STATUS_MASK: u16 = 0x3E;

/// The original SCSI Manager (`_SCSIDispatch`): SCSIGet, SCSISelect, SCSICmd, a polled
/// SCSIRead and SCSIComplete.
pub struct ScsiOld;

impl Transport for ScsiOld {
    fn command(&mut self, id: u8, cdb: &[u8], data: &mut [u8]) -> Result<(), ScsiError> {
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
            if cmd == 0 && !data.is_empty() {
                let mut tib = [0u8; 20];
                tib[0..2].copy_from_slice(&SC_INC.to_be_bytes());
                tib[2..6].copy_from_slice(&(data.as_mut_ptr() as u32).to_be_bytes());
                tib[6..10].copy_from_slice(&(data.len() as u32).to_be_bytes());
                tib[10..12].copy_from_slice(&SC_STOP.to_be_bytes());
                // A short answer ends the data phase early (scPhaseErr): not an error here.
                let _ = sys::rt_SCSIRead(tib.as_ptr());
            }
            let (mut stat, mut msg) = (0u16, 0u16);
            let done = sys::rt_SCSIComplete(&mut stat, &mut msg, COMPLETE_WAIT_TICKS);
            if done != 0 {
                return Err(ScsiError::Manager(done as i16));
            }
            if cmd != 0 {
                return Err(ScsiError::Manager(cmd as i16));
            }
            match (stat & STATUS_MASK) as u8 {
                status::GOOD => Ok(()),
                s => Err(ScsiError::Status(s)),
            }
        }
    }
    fn name(&self) -> &'static str {
        "original SCSI Manager"
    }
}
