//! The drive queue: `_AddDrive` and the queue at `DrvQHdr` ($308), read from the host.
//!
//! Facts: `docs/mac-facts.md` §5. A `DrvQEl` is 16 bytes preceded by 4 flag
//! bytes (`writeProt`, `diskInPlace`, `installed`, `sides` at −4…−1). `_AddDrive` ($A04E):
//! A0 = the element (its `qLink`), D0 = drive number << 16 | refNum; it stores `dQDrive` and
//! `dQRefNum`, links the element and returns D0 = 0. It does not touch `qType`, the size or
//! the flags. Removing is `_Dequeue` ($A96E, A0 = element, A1 = `DrvQHdr`,
//! [`crate::os_utils`]).
//!
//! Modelling decisions:
//! * [`ADD_DRIVE_AT_TAIL`]: `_AddDrive` appends at the tail (UNCONFIRMED in docs/mac-facts.md).
//! * Guest misuse that fails the run: an element at an odd address or outside a
//!   nonrelocatable block / host-loaded image ([`crate::os_utils::check_static_element`],
//!   prefix included); an element already in the queue; a drive number already used by
//!   another element (numbers must be unique, mac-facts §5.3); drive number 0 or negative.

use crate::error::Fault;
use crate::lowmem;
use crate::machine::Machine;
use crate::os_utils::{check_static_element, queue_append, queue_elements};
use crate::traps::TrapCall;

/// `_AddDrive` enqueues at the tail of `DrvQHdr` (UNCONFIRMED; false = at the head).
pub const ADD_DRIVE_AT_TAIL: bool = true;

/// Flag byte `writeProt` (bit 7 set = locked), at element − 4.
pub const DQ_WRITE_PROT: i32 = -4;
/// Flag byte `diskInPlace`, at element − 3.
pub const DQ_DISK_IN_PLACE: i32 = -3;
/// Flag byte `installed`, at element − 2.
pub const DQ_INSTALLED: i32 = -2;
/// Flag byte `sides`, at element − 1.
pub const DQ_SIDES: i32 = -1;
/// `qLink`.
pub const DQ_QLINK: u32 = 0;
/// `qType`: 0 = size in `dQDrvSz` only, 1 = `dQDrvSz2` × 65536 + `dQDrvSz`.
pub const DQ_QTYPE: u32 = 4;
/// `dQDrive`.
pub const DQ_DRIVE: u32 = 6;
/// `dQRefNum`.
pub const DQ_REFNUM: u32 = 8;
/// `dQFSID`.
pub const DQ_FSID: u32 = 10;
/// `dQDrvSz` (low word of the size in 512-byte blocks).
pub const DQ_DRV_SZ: u32 = 12;
/// `dQDrvSz2` (high word, valid if `qType` = 1).
pub const DQ_DRV_SZ2: u32 = 14;
/// Size of a `DrvQEl` (without the prefix).
pub const DRVQEL_SIZE: u32 = 16;

/// One drive-queue element as the host sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drive {
    /// Address of the element (its `qLink`).
    pub element: u32,
    pub number: i16,
    pub ref_num: i16,
    pub q_type: u16,
    pub fsid: i16,
    /// Size in 512-byte blocks per the `qType` rule.
    pub blocks: u32,
    pub write_prot: u8,
    pub disk_in_place: u8,
    pub installed: u8,
    pub sides: u8,
}

impl Drive {
    /// `writeProt` bit 7.
    pub fn locked(&self) -> bool {
        self.write_prot & 0x80 != 0
    }
}

fn read_drive(m: &Machine, e: u32) -> Drive {
    let q_type = m.read_u16(e + DQ_QTYPE);
    let lo = m.read_u16(e + DQ_DRV_SZ) as u32;
    let hi = m.read_u16(e + DQ_DRV_SZ2) as u32;
    let flag = |o: i32| m.read_u8(e.wrapping_add(o as u32));
    Drive {
        element: e,
        number: m.read_u16(e + DQ_DRIVE) as i16,
        ref_num: m.read_u16(e + DQ_REFNUM) as i16,
        q_type,
        fsid: m.read_u16(e + DQ_FSID) as i16,
        blocks: if q_type == 1 { (hi << 16) | lo } else { lo },
        write_prot: flag(DQ_WRITE_PROT),
        disk_in_place: flag(DQ_DISK_IN_PLACE),
        installed: flag(DQ_INSTALLED),
        sides: flag(DQ_SIDES),
    }
}

impl Machine {
    /// The drive queue, head first. Panics if the queue is corrupt (use
    /// [`Machine::try_drives`] to get the message).
    pub fn drives(&self) -> Vec<Drive> {
        self.try_drives().expect("drive queue is readable")
    }

    /// The drive queue, or why it cannot be walked.
    pub fn try_drives(&self) -> Result<Vec<Drive>, String> {
        Ok(queue_elements(self, lowmem::DRV_Q_HDR)?
            .into_iter()
            .map(|e| read_drive(self, e))
            .collect())
    }

    /// The drive with number `n`.
    pub fn drive(&self, n: i16) -> Option<Drive> {
        self.drives().into_iter().find(|d| d.number == n)
    }
}

/// `_AddDrive` $A04E.
fn add_drive(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let e = m.a(0);
    let d0 = m.d(0);
    let number = (d0 >> 16) as u16 as i16;
    let ref_num = d0 as u16 as i16;
    check_static_element(m, e, 4, DRVQEL_SIZE, "_AddDrive: the drive-queue element")
        .map_err(|s| Fault::misuse(call.word, s))?;
    let drives = m.try_drives().map_err(|s| Fault::misuse(call.word, s))?;
    if drives.iter().any(|d| d.element == e) {
        return Err(Fault::misuse(
            call.word,
            format!("_AddDrive: element ${e:08X} is already in the drive queue"),
        ));
    }
    if number <= 0 {
        return Err(Fault::misuse(
            call.word,
            format!("_AddDrive: drive number {number} (D0 high word) is not positive"),
        ));
    }
    if let Some(d) = drives.iter().find(|d| d.number == number) {
        return Err(Fault::misuse(
            call.word,
            format!(
                "_AddDrive: drive number {number} is already used by the element at ${:08X} (refNum {}); drive numbers must be unique",
                d.element, d.ref_num
            ),
        ));
    }
    m.write_u16(e + DQ_DRIVE, number as u16);
    m.write_u16(e + DQ_REFNUM, ref_num as u16);
    let hdr = lowmem::DRV_Q_HDR;
    if ADD_DRIVE_AT_TAIL {
        queue_append(m, hdr, e);
    } else {
        let head = m.read_u32(hdr + 2);
        m.write_u32(e + DQ_QLINK, head);
        m.write_u32(hdr + 2, e);
        if head == 0 {
            m.write_u32(hdr + 6, e);
        }
    }
    m.set_d(0, 0);
    Ok(())
}

/// Register `_AddDrive`.
pub fn install(m: &mut Machine) {
    m.register_trap(0xA04E, "AddDrive", add_drive);
}
