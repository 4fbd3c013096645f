//! The SCSI bus scan: which devices answer, what they are, and the rows the window shows.
//! The transport (SCSI Manager 4.3 or the original one) is behind [`Transport`].

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write;

use ferrite_shared::scsi;

use crate::label::{Label, read_label};

/// The Macintosh's own ID: never probed.
pub const HOST_ID: u8 = 7;
/// Bytes of INQUIRY data asked for (the standard 36).
pub const INQUIRY_LEN: usize = 36;
/// Commands that end in CHECK CONDITION are retried this many times (after REQUEST SENSE),
/// which clears the unit attention a device reports after power-on or reset.
pub const RETRIES: u32 = 2;

/// Why a command failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScsiError {
    /// Nothing answered the selection.
    NoDevice,
    /// The command ended with this status byte (not GOOD).
    Status(u8),
    /// The SCSI Manager reported this error.
    Manager(i16),
    /// The original SCSI Manager would not give us the bus: `SCSIGet` kept answering
    /// `scMgrBusyErr` (another request of the system holds it).
    BusBusy,
}

/// SCSI commands to target `id`, LUN 0.
pub trait Transport {
    /// One command reading into `data` (empty: no data phase). Reading fewer bytes than
    /// `data.len()` is not an error.
    fn command(&mut self, id: u8, cdb: &[u8], data: &mut [u8]) -> Result<(), ScsiError>;
    /// One command writing `data` to the target (a data-out phase: WRITE, MODE SELECT,
    /// REASSIGN BLOCKS…; empty: no data phase).
    fn command_out(&mut self, id: u8, cdb: &[u8], data: &[u8]) -> Result<(), ScsiError>;
    /// The sense data the transport already fetched for the last command that ended in
    /// CHECK CONDITION (SCSI Manager 4.3's autosense); `None`: ask with REQUEST SENSE.
    fn autosense(&mut self) -> Option<[u8; 18]> {
        None
    }
    /// "SCSI Manager 4.3" or "original SCSI Manager".
    fn name(&self) -> &'static str;
}

/// Standard INQUIRY data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inquiry {
    /// Peripheral qualifier (bits 7–5) and device type (bits 4–0).
    pub qualifier: u8,
    pub device_type: u8,
    pub removable: bool,
    pub vendor: String,
    pub product: String,
    pub revision: String,
}

fn ascii(b: &[u8]) -> String {
    let s: String = b
        .iter()
        .map(|&c| {
            if (0x20..0x7F).contains(&c) {
                c as char
            } else {
                ' '
            }
        })
        .collect();
    String::from(s.trim())
}

impl Inquiry {
    pub fn parse(b: &[u8]) -> Option<Inquiry> {
        if b.len() < INQUIRY_LEN {
            return None;
        }
        Some(Inquiry {
            qualifier: b[0] >> 5,
            device_type: b[0] & 0x1F,
            removable: b[1] & 0x80 != 0,
            vendor: ascii(&b[8..16]),
            product: ascii(&b[16..32]),
            revision: ascii(&b[32..36]),
        })
    }
    /// Whether a device is really there (qualifier 0; type 1Fh = unknown/no device).
    pub fn present(&self) -> bool {
        self.qualifier == 0 && self.device_type != 0x1F
    }
    /// The SCSI-2 device type in words.
    pub fn type_name(&self) -> &'static str {
        match self.device_type {
            0x00 => "disk",
            0x01 => "tape",
            0x02 => "printer",
            0x03 => "processor",
            0x04 => "WORM",
            0x05 => "CD-ROM",
            0x06 => "scanner",
            0x07 => "optical",
            0x08 => "changer",
            0x09 => "comms",
            _ => "device",
        }
    }
    /// Block devices whose capacity and label the scan reads.
    pub fn is_block_device(&self) -> bool {
        matches!(self.device_type, 0x00 | 0x04 | 0x05 | 0x07)
    }
}

/// READ CAPACITY's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    pub blocks: u64,
    pub block_len: u32,
}

impl Capacity {
    pub fn parse(b: &[u8; 8]) -> Capacity {
        let last = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        Capacity {
            blocks: last as u64 + 1,
            block_len: u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
        }
    }
    pub fn bytes(&self) -> u64 {
        self.blocks * self.block_len as u64
    }
}

/// "40.0 MB", "1.9 GB" (binary units, as the Finder counts), "512 KB".
pub fn format_size(bytes: u64) -> String {
    let mut s = String::new();
    let (unit, shift) = if bytes >= 1 << 30 {
        ("GB", 30)
    } else if bytes >= 1 << 20 {
        ("MB", 20)
    } else {
        ("KB", 10)
    };
    let tenths = (bytes * 10) >> shift;
    let _ = write!(s, "{}.{} {unit}", tenths / 10, tenths % 10);
    s
}

/// What the scan found at one ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// No answer to selection (or the peripheral qualifier says nothing is there).
    Absent,
    /// The device answered but INQUIRY failed.
    Failed(ScsiError),
    /// Not probed: the SCSI Manager refused the bus (`scMgrBusyErr`).
    BusBusy,
    Present(Device),
}

/// A device that answered INQUIRY.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    pub inquiry: Inquiry,
    /// `Err` when READ CAPACITY failed (e.g. no medium); `None` for devices without blocks.
    pub capacity: Option<Result<Capacity, ScsiError>>,
    /// The partition map (disks with 512-byte blocks whose blocks 0/1 could be read).
    pub label: Option<Label>,
}

/// A command with the CHECK CONDITION retry: REQUEST SENSE (which clears a unit attention)
/// and try again.
fn command(t: &mut dyn Transport, id: u8, cdb: &[u8], data: &mut [u8]) -> Result<(), ScsiError> {
    let mut tries = 0;
    loop {
        match t.command(id, cdb, data) {
            Err(ScsiError::Status(scsi::status::CHECK_CONDITION)) if tries < RETRIES => {
                tries += 1;
                let mut sense = [0u8; 18];
                let _ = t.command(id, &scsi::request_sense(18), &mut sense);
            }
            r => return r,
        }
    }
}

/// Probe one ID.
pub fn probe(t: &mut dyn Transport, id: u8) -> Slot {
    let mut inq = [0u8; INQUIRY_LEN];
    match command(t, id, &scsi::inquiry(INQUIRY_LEN as u8), &mut inq) {
        Err(ScsiError::NoDevice) => return Slot::Absent,
        Err(ScsiError::BusBusy) => return Slot::BusBusy,
        Err(e) => return Slot::Failed(e),
        Ok(()) => {}
    }
    let Some(inquiry) = Inquiry::parse(&inq) else {
        return Slot::Failed(ScsiError::Manager(0));
    };
    if !inquiry.present() {
        return Slot::Absent;
    }
    let (mut capacity, mut label) = (None, None);
    if inquiry.is_block_device() {
        let mut cap = [0u8; 8];
        let c = command(t, id, &scsi::read_capacity_10(), &mut cap).map(|()| Capacity::parse(&cap));
        if let Ok(c) = c
            && c.block_len == 512
        {
            let mut read = |lba: u32| {
                let mut b = vec![0u8; 512];
                command(t, id, &scsi::read_10(lba, 1), &mut b)
                    .ok()
                    .map(|()| b)
            };
            label = read_label(&mut read);
        }
        capacity = Some(c);
    }
    Slot::Present(Device {
        inquiry,
        capacity,
        label,
    })
}

/// Probe every ID but the Mac's own, in order.
pub fn scan(t: &mut dyn Transport) -> Vec<(u8, Slot)> {
    (0..8u8)
        .filter(|&id| id != HOST_ID)
        .map(|id| (id, probe(t, id)))
        .collect()
}

/// The indent of a device's lines after its first.
pub const INDENT: &str = "      ";

/// The lines the window shows for one ID: the device, then (for block devices) its size and
/// what is on it (the window wraps a line too long for it: `ui::bus_list`).
pub fn rows(id: u8, slot: &Slot) -> Vec<String> {
    let mut first = String::new();
    let _ = write!(first, "ID {id}  ");
    match slot {
        Slot::Absent => {
            first.push_str("no device");
            vec![first]
        }
        Slot::Failed(e) => {
            let _ = write!(first, "does not answer INQUIRY ({})", describe_error(e));
            vec![first]
        }
        Slot::BusBusy => {
            first.push_str(
                "not scanned: the SCSI Manager reports the bus busy (scMgrBusyErr); Rescan later",
            );
            vec![first]
        }
        Slot::Present(d) => {
            let i = &d.inquiry;
            let _ = write!(
                first,
                "{}  {} {} {}",
                i.type_name(),
                i.vendor,
                i.product,
                i.revision
            );
            if i.removable {
                first.push_str("  (removable)");
            }
            let mut lines = vec![first];
            if let Some(c) = &d.capacity {
                let mut second = String::from(INDENT);
                match c {
                    Ok(c) => {
                        let _ = write!(
                            second,
                            "{}, {} blocks of {}",
                            format_size(c.bytes()),
                            c.blocks,
                            c.block_len
                        );
                        lines.push(second);
                        // What is on it, on a line of its own (a 512-pixel screen's window
                        // has room for 77 characters of Monaco 9).
                        let mut third = String::from(INDENT);
                        match &d.label {
                            Some(l) => third.push_str(&l.describe()),
                            None if c.block_len != 512 => {
                                third.push_str("partition map not read (block size)")
                            }
                            None => third.push_str("blocks 0-1 unreadable"),
                        }
                        lines.push(third);
                    }
                    Err(e) => {
                        let _ = write!(second, "capacity unknown ({})", describe_error(e));
                        lines.push(second);
                    }
                }
            }
            lines
        }
    }
}

/// The original SCSI Manager's result codes in words (Inside Macintosh: Devices, "SCSI
/// Manager" result codes).
fn manager_error_name(r: i16) -> Option<&'static str> {
    Some(match r {
        2 => "communication failed (scCommErr)",
        3 => "arbitration failed (scArbNBErr)",
        4 => "bad parameter (scBadParmsErr)",
        5 => "wrong bus phase (scPhaseErr)",
        6 => "data compare failed (scCompareErr)",
        7 => "bus busy (scMgrBusyErr)",
        8 => "calls out of order (scSequenceErr)",
        9 => "bus timeout (scBusTOErr)",
        10 => "completion phase error (scComplPhaseErr)",
        _ => return None,
    })
}

pub fn describe_error(e: &ScsiError) -> String {
    let mut s = String::new();
    match e {
        ScsiError::NoDevice => s.push_str("no device"),
        ScsiError::Status(st) => {
            let _ = write!(s, "status {st:#04x}");
        }
        ScsiError::Manager(r) => match manager_error_name(*r) {
            Some(name) => {
                let _ = write!(s, "{name}, SCSI Manager error {r}");
            }
            None => {
                let _ = write!(s, "SCSI Manager error {r}");
            }
        },
        ScsiError::BusBusy => s.push_str("bus busy (scMgrBusyErr)"),
    }
    s
}
