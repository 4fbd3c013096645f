//! Constants of the two Mac SCSI Managers (IM Devices ch. 3 and 4; `docs/mac-facts.md` §6–7)
//! that the driver and Ferrite Setup both use. The parameter-block layout is
//! [`crate::mac::ScsiExecIoPb`].

/// SCSI Manager 4.3 (`_SCSIAtomic`, `SCSIAction`).
pub mod v43 {
    /// `scsiFunctionCode` of `SCSIExecIO`.
    pub const SCSI_EXEC_IO: u8 = 1;
    /// Result codes.
    pub const SCSI_REQUEST_IN_PROGRESS: i16 = 1;
    pub const SCSI_NON_ZERO_STATUS: i16 = -7932;
    pub const SCSI_SELECT_TIMEOUT: i16 = -7926;
    /// `scsiCommandTimeout`: `scsiTimeout` ran out (the target stopped answering).
    pub const SCSI_COMMAND_TIMEOUT: i16 = -7925;
    pub const SCSI_BUS_RESET: i16 = -7922;
    /// `scsiDataRunError`: the target moved less (or more) data than `scsiDataLength`.
    pub const SCSI_DATA_RUN_ERROR: i16 = -7918;
    /// `scsiResultFlags` bit: autosense data valid.
    pub const SCSI_AUTOSENSE_VALID: u16 = 2;
    /// `scsiFlags`: data direction, and "do not freeze the queue on an error".
    pub const DIR_IN: u32 = 0x4000_0000;
    pub const DIR_OUT: u32 = 0x8000_0000;
    pub const DIR_NONE: u32 = 0xC000_0000;
    pub const SIMQ_NO_FREEZE: u32 = 0x0004_0000;
}

/// The original SCSI Manager (`_SCSIDispatch`).
pub mod original {
    /// Routine selectors.
    pub const SCSI_GET: u16 = 1;
    pub const SCSI_SELECT: u16 = 2;
    pub const SCSI_CMD: u16 = 3;
    pub const SCSI_COMPLETE: u16 = 4;
    pub const SCSI_READ: u16 = 5;
    pub const SCSI_WRITE: u16 = 6;
    pub const SCSI_RBLIND: u16 = 8;
    pub const SCSI_WBLIND: u16 = 9;
    /// `scPhaseErr`: the target left the data phase before the TIB was done.
    pub const SC_PHASE_ERR: i16 = 5;
    /// `scMgrBusyErr`: the bus is taken; try again.
    pub const SC_MGR_BUSY: i16 = 7;
    /// TIB opcodes (10-byte instructions: opcode word, two longs).
    pub const SC_INC: u16 = 1;
    pub const SC_LOOP: u16 = 5;
    pub const SC_STOP: u16 = 7;
}

#[cfg(test)]
mod tests {
    use super::v43::*;

    /// The result codes as `docs/mac-facts.md` gives them (Inside Macintosh: Devices, SCSI
    /// Manager 4.3 result codes).
    #[test]
    fn result_codes_are_the_published_ones() {
        assert_eq!(
            [
                SCSI_NON_ZERO_STATUS,
                SCSI_SELECT_TIMEOUT,
                SCSI_COMMAND_TIMEOUT,
                SCSI_BUS_RESET,
                SCSI_DATA_RUN_ERROR
            ],
            [-7932, -7926, -7925, -7922, -7918]
        );
        assert_eq!(SCSI_REQUEST_IN_PROGRESS, 1);
    }
}
