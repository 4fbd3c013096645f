//! Turning the drive's write cache on: from MODE SENSE(6) data of the caching page (current
//! and changeable values, block descriptors disabled) to the MODE SELECT(6) parameter list,
//! as `docs/mac-facts.md` §8.2 describes: the page exactly as the drive returned it, its
//! own length byte, PS cleared, WCE set; the header's mode data length is 0.

use ferrite_shared::scsi::caching;

/// Longest parameter list built: 4-byte header + page header + up to 0x1A page bytes.
pub const MAX_LIST: usize = 32;

/// The caching page inside MODE SENSE(6) data: `(offset, length including its 2-byte header)`.
fn find_page(data: &[u8]) -> Option<(usize, usize)> {
    if data.len() < 4 {
        return None;
    }
    let start = 4 + data[3] as usize;
    let page = data.get(start..start + 2)?;
    if page[0] & 0x3F != caching::PAGE {
        return None;
    }
    let len = 2 + page[1] as usize;
    if len < 3 || start + len > data.len() || 4 + len > MAX_LIST {
        return None;
    }
    Some((start, len))
}

/// Byte 2 of the caching page's changeable mask (MODE SENSE with PC = 1). The mask has the
/// page where the current values have it; its page code and length bytes may be the page's
/// own or zero (a mask of the header itself: drives differ, and the emulated disk zeroes
/// them), so both are accepted.
fn changeable_byte2(changeable: &[u8]) -> Option<u8> {
    if changeable.len() < 4 {
        return None;
    }
    let start = 4 + changeable[3] as usize;
    let code = *changeable.get(start)? & 0x3F;
    if code != caching::PAGE && code != 0 {
        return None;
    }
    changeable.get(start + 2).copied()
}

/// Is the write cache on in this MODE SENSE data?
pub fn wce_on(current: &[u8]) -> Option<bool> {
    let (o, _) = find_page(current)?;
    Some(current[o + 2] & caching::WCE != 0)
}

/// The parameter list that enables WCE, written to `out`; returns its length, or `None` when
/// there is nothing to do or it cannot be done (no caching page, WCE already on, WCE not
/// changeable).
pub fn enable_wce_list(current: &[u8], changeable: &[u8], out: &mut [u8]) -> Option<usize> {
    let (o, len) = find_page(current)?;
    if current[o + 2] & caching::WCE != 0 || changeable_byte2(changeable)? & caching::WCE == 0 {
        return None;
    }
    let total = 4 + len;
    let out = out.get_mut(..total)?;
    out[..4].fill(0);
    out[4..].copy_from_slice(&current[o..o + len]);
    out[4] &= !caching::PS;
    out[6] |= caching::WCE;
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sense(ps: bool, byte2: u8, page_len: u8) -> alloc_free::Buf {
        let mut b = alloc_free::Buf::default();
        b.0[0] = 3 + page_len; // mode data length
        b.0[3] = 0; // no block descriptors
        b.0[4] = 0x08 | if ps { 0x80 } else { 0 };
        b.0[5] = page_len;
        b.0[6] = byte2;
        b.0[7] = 0xAB;
        b.1 = 4 + 2 + page_len as usize;
        b
    }

    mod alloc_free {
        #[derive(Default)]
        pub struct Buf(pub [u8; 32], pub usize);
        impl Buf {
            pub fn bytes(&self) -> &[u8] {
                &self.0[..self.1]
            }
        }
    }

    #[test]
    fn builds_the_select_list_from_the_drives_page() {
        let cur = sense(true, 0x00, 0x12);
        let chg = sense(false, caching::WCE, 0x12);
        let mut out = [0u8; MAX_LIST];
        let n = enable_wce_list(cur.bytes(), chg.bytes(), &mut out).unwrap();
        assert_eq!(n, 4 + 2 + 0x12);
        assert_eq!(
            &out[..4],
            &[0, 0, 0, 0],
            "mode data length reserved in MODE SELECT"
        );
        assert_eq!(out[4], 0x08, "PS cleared");
        assert_eq!(out[5], 0x12, "the drive's own page length");
        assert_eq!(out[6], caching::WCE);
        assert_eq!(out[7], 0xAB, "other bytes as returned");
        // A mask whose page code and length are zero (the emulated disk's).
        let mut zeroed = sense(false, caching::WCE, 0x12);
        zeroed.0[4] = 0;
        zeroed.0[5] = 0;
        assert_eq!(
            enable_wce_list(cur.bytes(), zeroed.bytes(), &mut out),
            Some(4 + 2 + 0x12)
        );
        // SCSI-2 page length 0Ah too.
        let cur = sense(false, caching::RCD, 0x0A);
        let chg = sense(false, caching::WCE, 0x0A);
        assert_eq!(
            enable_wce_list(cur.bytes(), chg.bytes(), &mut out),
            Some(16)
        );
        assert_eq!(out[6], caching::WCE | caching::RCD);
    }

    #[test]
    fn nothing_to_do_or_not_possible() {
        let mut out = [0u8; MAX_LIST];
        let on = sense(false, caching::WCE, 0x12);
        let chg = sense(false, caching::WCE, 0x12);
        assert_eq!(enable_wce_list(on.bytes(), chg.bytes(), &mut out), None);
        let off = sense(false, 0, 0x12);
        let fixed = sense(false, 0, 0x12);
        assert_eq!(enable_wce_list(off.bytes(), fixed.bytes(), &mut out), None);
        let mut other = sense(false, 0, 0x12);
        other.0[4] = 0x01;
        assert_eq!(enable_wce_list(other.bytes(), chg.bytes(), &mut out), None);
        assert_eq!(enable_wce_list(&[0, 0], chg.bytes(), &mut out), None);
        assert_eq!(wce_on(on.bytes()), Some(true));
        assert_eq!(wce_on(off.bytes()), Some(false));
    }

    /// A drive that sends less than its page's length says (a short transfer): the page is
    /// not used, even when it would fit a parameter list.
    #[test]
    fn a_page_longer_than_the_data_is_refused() {
        let mut out = [0u8; MAX_LIST];
        let mut short = sense(false, caching::WCE, 0x12);
        short.1 = 4 + 2 + 4;
        let chg = sense(false, caching::WCE, 0x12);
        assert_eq!(wce_on(short.bytes()), None);
        assert_eq!(enable_wce_list(short.bytes(), chg.bytes(), &mut out), None);
    }
}
