//! DriverGestalt (Status 43) answers (`docs/mac-facts.md` §4.2). Responses are the longs
//! stored from `driverGestaltResponse` (csParam+4) on; Booleans live in the first byte.

/// Four-character code as a big-endian long.
pub const fn ostype(s: &[u8; 4]) -> u32 {
    u32::from_be_bytes(*s)
}

/// What the answers depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GestaltInfo {
    /// NumVersion of the driver.
    pub version: u32,
    pub removable: bool,
    /// The device: SCSI Manager 4.3 bus (0 on the original SCSI Manager), target, LUN.
    pub bus: u8,
    pub target: u8,
    pub lun: u8,
    /// The asked drive's partition (its map entry, 1 = the first; 0 = not one of ours).
    pub partition: u8,
    /// The drive's write cache is on (so 'flus' matters).
    pub write_cache: bool,
    /// Address of the driver (for 'purg').
    pub driver: u32,
}

/// The driver's NumVersion: 0.1.0 development.
pub const VERSION: u32 = 0x0010_2000;

/// The selectors answered, in the order of [`respond`]'s arms.
const SELECTORS: [[u8; 4]; 13] = [
    *b"vers", *b"devt", *b"intf", *b"sync", *b"boot", *b"wide", *b"purg", *b"lpwr", *b"dAPI",
    *b"ejec", *b"flus", *b"vmop", *b"dvrf",
];

/// The response longs for `selector`, or `None` (→ `statusErr`). The selector is looked up
/// in a table first: a `match` on four-byte strings compiles to a long chain of byte
/// compares on the 68k.
pub fn respond(selector: u32, i: &GestaltInfo) -> Option<[u32; 2]> {
    const TRUE: u32 = 0x0100_0000;
    let sel = selector.to_be_bytes();
    let index = SELECTORS.iter().position(|s| *s == sel)?;
    let r = match index {
        0 => [i.version, 0],
        1 => [
            if i.removable {
                ostype(b"rdsk")
            } else {
                ostype(b"disk")
            },
            0,
        ],
        2 => [ostype(b"scsi"), 0],
        // DriverGestaltBootResponse {extDev = target<<3 | LUN, partition, slot 0, sRsrc 0}:
        // the value the Startup Disk control panel stores in PRAM for this drive.
        4 => [
            (((i.target as u32) << 3) | (i.lun as u32 & 7)) << 24 | (i.partition as u32) << 16,
            0,
        ],
        // 'wide': yes.
        5 => [TRUE, 0],
        // 'purg': purgePermission 0 (never purge), reserved, driver pointer.
        6 => [0, i.driver],
        // 'ejec': fixed disks: don't eject at restart or shutdown.
        9 => [if i.removable { 0 } else { 3 }, 0],
        // 'flus': {canFlush, needsFlush, pad}
        10 => [TRUE | if i.write_cache { 0x0001_0000 } else { 0 }, 0],
        // 'vmop': paging allowed, read and write.
        11 => [3, 0],
        // 'dvrf': the device reference, for SCSI the DeviceIdent ($00 bus target LUN).
        12 => [
            (i.bus as u32) << 16 | (i.target as u32) << 8 | i.lun as u32,
            0,
        ],
        // 'sync', 'lpwr', 'dAPI': zero.
        _ => [0, 0],
    };
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const I: GestaltInfo = GestaltInfo {
        version: VERSION,
        removable: false,
        bus: 0,
        target: 3,
        lun: 0,
        partition: 0,
        write_cache: true,
        driver: 0x1234,
    };

    #[test]
    fn every_selector_system_7_5_asks() {
        for s in [
            b"vers", b"devt", b"intf", b"sync", b"boot", b"wide", b"purg", b"lpwr", b"dAPI",
            b"ejec", b"flus", b"vmop", b"dvrf",
        ] {
            assert!(
                respond(ostype(s), &I).is_some(),
                "{}",
                core::str::from_utf8(s).unwrap()
            );
        }
        assert_eq!(respond(ostype(b"xxxx"), &I), None);
        assert_eq!(respond(ostype(b"boot"), &I), Some([3 << 27, 0]));
        let p = GestaltInfo { partition: 4, ..I };
        assert_eq!(respond(ostype(b"boot"), &p), Some([3 << 27 | 4 << 16, 0]));
        assert_eq!(respond(ostype(b"devt"), &I), Some([ostype(b"disk"), 0]));
        assert_eq!(respond(ostype(b"flus"), &I), Some([0x0101_0000, 0]));
        assert_eq!(respond(ostype(b"purg"), &I), Some([0, 0x1234]));
        assert_eq!(respond(ostype(b"dvrf"), &I), Some([0x0000_0300, 0]));
    }

    #[test]
    fn boot_and_dvrf_name_the_lun_and_dvrf_the_bus() {
        let i = GestaltInfo {
            bus: 1,
            lun: 5,
            partition: 3,
            ..I
        };
        assert_eq!(
            respond(ostype(b"boot"), &i),
            Some([(3 << 3 | 5) << 24 | 3 << 16, 0])
        );
        assert_eq!(respond(ostype(b"dvrf"), &i), Some([0x0001_0305, 0]));
    }
}
