//! The virtual SCSI bus and its targets, below both SCSI Managers.
//!
//! * [`bus`]: the bus (IDs 0–6 for targets, 7 for the Mac), its phases (bus free →
//!   arbitration → selection → command → data in/out → status → message in → bus free), the
//!   command log and the modelled bus time. Both SCSI Manager models drive it: SCSI Manager
//!   4.3 with [`bus::ScsiBus::execute`], the original SCSI Manager phase by phase.
//! * [`target`]: what a device on the bus must do ([`target::ScsiTarget`]).
//! * [`disk`]: the direct-access disk target backed by an image file.
pub mod bus;
pub mod disk;
pub mod target;

pub use bus::{BusPhase, Exec, LogEntry, ScsiBus, SelectError};
pub use disk::sense::Sense;
pub use disk::timing::{Head, TimingConfig};
pub use disk::{DiskConfig, DiskStats, DiskTarget, NotReadyCause};
pub use target::{DataPhase, ScsiTarget, status};
