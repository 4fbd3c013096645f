//! The drive's caching mode page (08h): MODE SENSE(6) of the current, changeable and saved
//! values, and MODE SELECT(6) with PF = 1 (SP = 1 only when the page is savable).

use alloc::vec::Vec;

use ferrite_shared::scsi::{self, caching, page_control, sense_key};

use crate::bus::Transport;
use crate::disk::{Data, run};
use crate::ops::{CachingPage, OpError};

/// Bytes asked for: the 4-byte mode parameter header and the 20-byte caching page.
const ALLOC: u8 = 36;
/// The mode parameter header's length (MODE SENSE(6)/MODE SELECT(6)).
const HEADER: usize = 4;
/// Device-specific parameter bit 7 of a direct-access device: write-protected.
const WP: u8 = 0x80;

/// One MODE SENSE(6) of the caching page: (header, page bytes).
fn sense_page(t: &mut dyn Transport, id: u8, pc: u8) -> Result<([u8; HEADER], Vec<u8>), OpError> {
    let mut b = [0u8; ALLOC as usize];
    run(
        t,
        id,
        "MODE SENSE",
        &scsi::mode_sense_6(caching::PAGE, pc, ALLOC),
        Data::In(&mut b),
    )?;
    let len = (b[0] as usize + 1).min(b.len());
    let at = HEADER + b[3] as usize;
    let page = b.get(at..len).unwrap_or(&[]);
    if page.len() < 3 || page[0] & 0x3F != caching::PAGE {
        return Err(OpError::BadModePage);
    }
    let plen = (page[1] as usize + 2).min(page.len());
    Ok(([b[0], b[1], b[2], b[3]], page[..plen].to_vec()))
}

/// The caching page as the drive has it now, what of it can change, and whether it can be
/// saved.
pub fn caching(t: &mut dyn Transport, id: u8) -> Result<CachingPage, OpError> {
    let (_, cur) = sense_page(t, id, page_control::CURRENT)?;
    let changeable_wce = match sense_page(t, id, page_control::CHANGEABLE) {
        Ok((_, ch)) => ch[2] & caching::WCE != 0,
        Err(OpError::Sense {
            key: sense_key::ILLEGAL_REQUEST,
            ..
        }) => false,
        Err(e) => return Err(e),
    };
    Ok(CachingPage {
        wce: cur[2] & caching::WCE != 0,
        rcd: cur[2] & caching::RCD != 0,
        changeable_wce,
        savable: cur[0] & caching::PS != 0,
    })
}

/// Whether the drive reports its medium write-protected (the mode parameter header's WP
/// bit); a drive without the caching page is asked for all pages; `false` when it answers
/// neither.
pub fn write_protected(t: &mut dyn Transport, id: u8) -> bool {
    for page in [caching::PAGE, 0x3F] {
        let mut b = [0u8; 4];
        if run(
            t,
            id,
            "MODE SENSE",
            &scsi::mode_sense_6(page, page_control::CURRENT, 4),
            Data::In(&mut b),
        )
        .is_ok()
        {
            return b[2] & WP != 0;
        }
    }
    false
}

/// Turn the write cache on or off with MODE SELECT(6): the current page with WCE changed
/// (PS cleared, as MODE SELECT requires), saved (SP = 1) when the page is savable.
pub fn set_drive_write_cache(t: &mut dyn Transport, id: u8, on: bool) -> Result<(), OpError> {
    let now = caching(t, id)?;
    if !now.changeable_wce {
        return Err(OpError::CacheNotChangeable);
    }
    let (_, mut page) = sense_page(t, id, page_control::CURRENT)?;
    page[0] &= !caching::PS;
    if on {
        page[2] |= caching::WCE;
    } else {
        page[2] &= !caching::WCE;
    }
    let mut list = Vec::with_capacity(HEADER + page.len());
    // Mode data length is reserved in MODE SELECT; medium type and device-specific 0; no
    // block descriptor.
    list.extend_from_slice(&[0, 0, 0, 0]);
    list.extend_from_slice(&page);
    run(
        t,
        id,
        "MODE SELECT",
        &scsi::mode_select_6(now.savable, list.len() as u8),
        Data::Out(&list),
    )
}
