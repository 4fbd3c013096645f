//! The contract between the bus and a device on it.
//!
//! A command is one exchange: [`ScsiTarget::command`] receives the CDB (the command phase is
//! over) and says which data phase follows; then the bus hands over the data-out bytes with
//! [`ScsiTarget::data_out`] (if any); [`ScsiTarget::status`] ends the command with its status
//! byte. The bus calls these in that order, once per command, and never starts a command on a
//! target while another one on the same target is open.

use std::any::Any;

/// Status bytes (SCSI-2).
pub mod status {
    pub const GOOD: u8 = 0x00;
    pub const CHECK_CONDITION: u8 = 0x02;
    pub const CONDITION_MET: u8 = 0x04;
    pub const BUSY: u8 = 0x08;
    pub const INTERMEDIATE: u8 = 0x10;
    pub const RESERVATION_CONFLICT: u8 = 0x18;
    pub const COMMAND_TERMINATED: u8 = 0x22;
    pub const QUEUE_FULL: u8 = 0x28;
}

/// The data phase a command asks for, decided when its CDB arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataPhase {
    /// No data phase: straight to status.
    None,
    /// DATA IN: these bytes go to the initiator (may be fewer than the allocation length:
    /// the target ends the phase early, as a real target does).
    In(Vec<u8>),
    /// DATA OUT: the target wants this many bytes from the initiator.
    Out(usize),
    /// The target (fault injection) resets the bus during the command: no data, no status.
    BusReset,
    /// The target (fault injection) takes the command and stops responding: it keeps BSY and
    /// never asks for anything again, until a bus reset.
    Hang,
}

/// A device on the virtual bus.
pub trait ScsiTarget: Send + Any {
    /// Whether the target answers selection now (false: selection times out).
    fn selectable(&mut self) -> bool {
        true
    }
    /// The CDB of a new command arrived for logical unit `lun` (the IDENTIFY message's, or
    /// without IDENTIFY the CDB's LUN field). Decide the data phase.
    fn command(&mut self, lun: u8, cdb: &[u8]) -> DataPhase;
    /// The data-out bytes the initiator sent; fewer than asked if it stopped early.
    fn data_out(&mut self, data: &[u8]);
    /// End the command: its status byte.
    fn status(&mut self) -> u8;
    /// Modelled target time of the command just ended, in nanoseconds (command overhead,
    /// seek, rotation, media transfer, cache hits) — not counting the bus transfer itself.
    fn busy_ns(&self) -> u64 {
        0
    }
    /// A bus reset happened (reset the target's state, raise UNIT ATTENTION).
    fn bus_reset(&mut self);
    /// For downcasting to the concrete target in tests.
    fn as_any(&self) -> &dyn Any;
    /// For downcasting to the concrete target in tests.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}
