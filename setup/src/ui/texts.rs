//! Sentences the app shows: what a confirmation names, what a refusal says.

use alloc::string::String;
use core::fmt::Write;

use crate::bus::format_size;

/// What the Initialize confirmation adds when the low-level format is chosen: the time it
/// can take, and that it cannot be stopped (FORMAT UNIT runs in the drive until it is done).
pub const LOW_LEVEL_WARNING: &str = " It is low-level formatted first (FORMAT UNIT): that can take an hour or more and cannot be stopped.";

/// A drive as a confirmation names it: "ID 3, IBM DORS-31080 (1.0 GB, 2118144 blocks)".
pub fn drive_name(id: u8, vendor: &str, product: &str, blocks: u64, block_len: u32) -> String {
    let mut s = String::new();
    let _ = write!(s, "ID {id}, {vendor} {product} (");
    s.push_str(&format_size(blocks * block_len as u64));
    let _ = write!(s, ", {blocks} blocks)");
    s
}

/// The volumes a plan makes, for the confirmation: "“System” (20.0 MB) and “Data” (the
/// rest)".
pub fn volume_list(volumes: &[(String, Option<u64>)]) -> String {
    let mut s = String::new();
    for (i, (name, blocks)) in volumes.iter().enumerate() {
        if i > 0 {
            s.push_str(if i + 1 == volumes.len() {
                " and "
            } else {
                ", "
            });
        }
        let _ = write!(s, "\u{201C}{name}\u{201D} (");
        match blocks {
            Some(b) => s.push_str(&format_size(b * 512)),
            None => s.push_str("the rest"),
        }
        s.push(')');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            drive_name(3, "IBM", "DORS-31080", 2_118_144, 512),
            "ID 3, IBM DORS-31080 (1.0 GB, 2118144 blocks)"
        );
        assert_eq!(
            volume_list(&[("System".into(), Some(40960)), ("Data".into(), None)]),
            "\u{201C}System\u{201D} (20.0 MB) and \u{201C}Data\u{201D} (the rest)"
        );
    }
}
