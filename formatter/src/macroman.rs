//! Mac Roman text: names on HFS volumes are Mac Roman bytes. The core keeps names as bytes;
//! these helpers convert printable ASCII exactly and show other bytes escaped.

use alloc::string::String;
use core::fmt::Write;

/// Mac Roman bytes as text: printable ASCII as is, anything else as `\xNN`.
pub fn lossy(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7F).contains(&b) && b != b'\\' {
            s.push(b as char);
        } else {
            let _ = write!(s, "\\x{b:02X}");
        }
    }
    s
}

/// Text to Mac Roman bytes: printable ASCII only (the encoding of the other 128 characters is
/// left to the caller, who can pass raw bytes instead).
pub fn from_ascii(text: &str) -> Option<alloc::vec::Vec<u8>> {
    if text.bytes().all(|b| (0x20..0x7F).contains(&b)) {
        Some(text.as_bytes().into())
    } else {
        None
    }
}
