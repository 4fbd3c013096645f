//! The driver's target-independent modules.

use crate::{Rng, Trace};
use ferrite_driver::cache::{MAX_LIST, enable_wce_list, wce_on};
use ferrite_driver::capacity::{Capacity10, from_rc10, from_rc16};
use ferrite_driver::gestalt::{GestaltInfo, VERSION, ostype, respond};
use ferrite_driver::partition::{MAX_DRIVES, MapBlock, examine};
use ferrite_driver::request::{BLOCK, Extent, next_chunk, plan};
use ferrite_driver::sense::{Recovery, classify};
use ferrite_shared::partition_map::{PM_SIGNATURE, PartitionEntry, part_type, set_c_field};
use ferrite_shared::scsi::{Sense, caching};
use zerocopy::IntoBytes;

/// `plan` of a Prime request against a partition, then the transfer split into commands as
/// the driver's Prime does (`next_chunk` until nothing remains, for short transfers).
pub fn request_plan(r: &mut Rng, t: &mut Trace) {
    let extent = Extent {
        start: r.edgy_u32(),
        blocks: if r.chance(64) {
            r.below(100_000)
        } else {
            r.edgy_u32()
        },
    };
    let pos = match r.below(4) {
        // A block inside (or just past) the partition.
        0 => (r.below(extent.blocks.saturating_add(2).max(1)) as u64) * BLOCK as u64,
        1 => r.edgy_u64(),
        2 => (r.edgy_u32() as u64) * BLOCK as u64 + r.below(3) as u64,
        _ => r.edgy_u64() & !0x1FF,
    };
    let count = match r.below(3) {
        0 => r.below(300) * BLOCK,
        1 => r.edgy_u32(),
        _ => r.edgy_u32() & !0x1FF,
    };
    let cap = r.pick(&[0, 0, 1, 2, 16, 128, 256, 65_535, 65_536, 100_000]) as u32;
    t.u32(extent.start);
    t.u32(extent.blocks);
    t.u64(pos);
    t.u32(count);
    t.u32(cap);
    t.tag(0xA1);
    match plan(extent, pos, count) {
        Ok(tr) => {
            t.u8(1);
            t.u32(tr.lba);
            t.u32(tr.blocks);
            // The commands, while there are few.
            let mut remaining = tr.blocks;
            let mut lba = tr.lba;
            let mut commands = 0;
            while remaining > 0 && commands < 40 {
                let n = next_chunk(remaining, cap);
                t.u32(lba);
                t.u32(n);
                lba = lba.wrapping_add(n);
                remaining -= n;
                commands += 1;
            }
            t.u32(remaining);
        }
        Err(e) => {
            t.u8(0);
            t.i16(e);
        }
    }
    let rem = r.edgy_u32();
    t.u32(rem);
    t.u32(next_chunk(rem, cap));
}

/// Sense data: random bytes, or fixed format (70h/71h, with or without VALID) with the keys
/// and the codes the driver tells apart, cut to a random length.
pub fn sense_bytes(r: &mut Rng, buf: &mut [u8; 18]) -> usize {
    /// (ASC, ASCQ) pairs `sense::classify` looks at, and neighbours.
    const CODES: [(u8, u8); 12] = [
        (0x04, 0x01),
        (0x04, 0x02),
        (0x04, 0x03),
        (0x04, 0x00),
        (0x3A, 0x00),
        (0x3A, 0x01),
        (0x28, 0x00),
        (0x29, 0x00),
        (0x21, 0x00),
        (0x11, 0x00),
        (0x0C, 0x00),
        (0x27, 0x00),
    ];
    r.fill(buf);
    if r.chance(200) {
        buf[0] = r.pick(&[0x70, 0x71, 0xF0, 0xF1, 0x70, 0xF0, 0x72, 0x00]);
        buf[2] = match r.below(8) {
            0 => r.u8(),
            1 => r.below(16) as u8,
            // The keys the driver tells apart.
            _ => r.pick(&[0, 1, 2, 3, 4, 5, 6, 7, 0xB, 0xE]),
        };
        buf[7] = 10;
        (buf[12], buf[13]) = if r.chance(200) {
            r.pick(&CODES)
        } else {
            (r.u8(), r.u8())
        };
    }
    if r.chance(220) {
        18
    } else {
        r.below(19) as usize
    }
}

fn trace_sense(t: &mut Trace, s: Sense) {
    t.u8(s.key);
    t.u8(s.asc);
    t.u8(s.ascq);
    t.option(s.information, |t, v| t.u32(v));
    t.bool(s.deferred);
}

/// `classify` of a status byte and the sense the driver parsed.
pub fn sense_classify(r: &mut Rng, t: &mut Trace) {
    let status = if r.chance(128) {
        0x02
    } else if r.chance(200) {
        r.pick(&[0x00, 0x02, 0x04, 0x08, 0x10, 0x14, 0x18, 0x22, 0x28, 0x30])
    } else {
        r.u8()
    };
    let mut buf = [0u8; 18];
    let n = sense_bytes(r, &mut buf);
    let write = r.bool();
    t.u8(status);
    t.blob(&buf[..n]);
    t.bool(write);
    t.tag(0xA2);
    let sense = Sense::parse(&buf[..n]);
    t.option(sense, trace_sense);
    match classify(status, sense, write) {
        Recovery::Done => t.u8(1),
        Recovery::Retry => t.u8(2),
        Recovery::RetryLater => t.u8(3),
        Recovery::StartUnit => t.u8(4),
        Recovery::Fail(e) => {
            t.u8(5);
            t.i16(e);
        }
        Recovery::Transport(e) => {
            t.u8(6);
            t.i16(e);
        }
    }
}

const TYPES: [&str; 7] = [
    part_type::HFS,
    part_type::HFS,
    part_type::DRIVER43,
    part_type::PARTITION_MAP,
    part_type::FREE,
    "Apple_HFSX",
    "Apple_HF",
];

/// A partition map entry: mostly a valid one (some `Apple_HFS`), often mutated; or random.
pub fn map_block(r: &mut Rng, block: &mut [u8; 512]) {
    if r.chance(32) {
        r.fill(block);
        return;
    }
    let mut e = PartitionEntry::zeroed();
    e.sig.set(if r.chance(240) {
        PM_SIGNATURE
    } else {
        r.edgy_u16()
    });
    e.map_block_count.set(if r.chance(200) {
        1 + r.below(8)
    } else {
        r.edgy_u32()
    });
    e.start.set(if r.chance(128) {
        1 + r.below(100_000)
    } else {
        r.edgy_u32()
    });
    e.block_count.set(if r.chance(128) {
        1 + r.below(1_000_000)
    } else {
        r.edgy_u32()
    });
    set_c_field(
        &mut e.name,
        r.pick(&["Macintosh HD", "Macintosh", "Extra", ""]),
    );
    set_c_field(&mut e.kind, r.pick(&TYPES));
    e.data_start.set(r.below(3));
    e.data_count.set(r.edgy_u32());
    e.status.set(r.edgy_u32());
    block.copy_from_slice(e.as_bytes());
    if r.chance(96) {
        r.mutate(block, 6);
    }
}

/// A disk size in blocks: unknown (0), plausible, or an edge value.
fn disk_blocks(r: &mut Rng) -> u32 {
    match r.below(4) {
        0 => 0,
        1 | 2 => r.below(2_000_000),
        _ => r.edgy_u32(),
    }
}

fn trace_map_block(t: &mut Trace, m: MapBlock) {
    match m {
        MapBlock::End => t.u8(0),
        MapBlock::Entry { hfs, map_entries } => {
            t.u8(1);
            t.u32(map_entries);
            t.option(hfs, |t, e| {
                t.u32(e.start);
                t.u32(e.blocks);
            });
        }
    }
}

/// `examine` of one map block, against a disk size (0 = unknown).
pub fn partition_examine(r: &mut Rng, t: &mut Trace) {
    let mut block = [0u8; 512];
    map_block(r, &mut block);
    let len = if r.chance(240) { 512 } else { r.below(513) } as usize;
    let disk = disk_blocks(r);
    t.blob(&block[..len]);
    t.u32(disk);
    t.tag(0xA3);
    trace_map_block(t, examine(&block[..len], disk));
}

/// The map scan of install (`core::install::read_map`): blocks 1..=entries until one is not
/// an entry, HFS partitions added as drives up to `MAX_DRIVES`. The map is up to 12 blocks
/// here; blocks past it read as zeros.
pub fn partition_scan(r: &mut Rng, t: &mut Trace) {
    const BLOCKS: usize = 12;
    let mut map = [[0u8; 512]; BLOCKS];
    let present = 1 + r.below(BLOCKS as u32) as usize;
    let entries = if r.chance(200) {
        present as u32
    } else {
        r.edgy_u32()
    };
    for b in map.iter_mut().take(present) {
        map_block(r, b);
        if r.chance(220) {
            b[4..8].copy_from_slice(&entries.to_be_bytes());
        }
    }
    let disk = disk_blocks(r);
    for b in &map[..present] {
        t.bytes(&b[..16]);
        t.bytes(&b[48..60]);
    }
    t.u32(disk);
    t.tag(0xA4);
    let mut drives = 0usize;
    let mut block = 1u32;
    let mut entries = 1u32;
    let zero = [0u8; 512];
    while block <= entries {
        let data = map.get(block as usize - 1).unwrap_or(&zero);
        let m = examine(data, disk);
        trace_map_block(t, m);
        match m {
            MapBlock::End => break,
            MapBlock::Entry { hfs, map_entries } => {
                entries = map_entries;
                if let Some(e) = hfs
                    && drives < MAX_DRIVES
                {
                    drives += 1;
                    t.u8(block as u8);
                    t.u32(e.start);
                    t.u32(e.blocks);
                }
            }
        }
        block += 1;
    }
    t.u32(block);
    t.u8(drives as u8);
}

/// READ CAPACITY(10) and (16) data in the driver's block buffer.
pub fn capacity(r: &mut Rng, t: &mut Trace) {
    let mut d = [0u8; 512];
    for at in [0, 4, 8] {
        let v = if r.chance(180) { r.edgy_u32() } else { r.u32() };
        d[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }
    d[12] = r.u8();
    t.bytes(&d[..13]);
    t.tag(0xA5);
    match from_rc10(&d) {
        Capacity10::Blocks { blocks, block_len } => {
            t.u8(1);
            t.u32(blocks);
            t.u32(block_len);
        }
        Capacity10::AskLonger { block_len } => {
            t.u8(2);
            t.u32(block_len);
        }
    }
    let (blocks, block_len) = from_rc16(&d);
    t.u32(blocks);
    t.u32(block_len);
}

/// MODE SENSE(6) data with a caching page (or not), current and changeable, into the MODE
/// SELECT list.
pub fn cache(r: &mut Rng, t: &mut Trace) {
    fn sense_data(r: &mut Rng, buf: &mut [u8; 48]) -> usize {
        r.fill(buf);
        if r.chance(40) {
            return r.below(49) as usize;
        }
        let bd = if r.chance(200) {
            0
        } else {
            r.pick(&[8u8, 3, 40])
        };
        let page_len = r.pick(&[0x12u8, 0x0A, 0x12, 0x12, 0x0A, 0x1A, 0, 1, 0x1B, 0x40]);
        buf[1] = 0;
        buf[2] = r.pick(&[0, 0x80]);
        buf[3] = bd;
        let p = 4 + bd as usize;
        if p + 2 <= buf.len() {
            buf[p] = r.pick(&[0x08u8, 0x88, 0x08, 0x00, 0x48, 0x07]);
            buf[p + 1] = page_len;
        }
        let total = (p + 2 + page_len as usize).min(buf.len());
        buf[0] = (total - 1) as u8;
        if r.chance(64) {
            r.mutate(&mut buf[..total], 3);
        }
        if r.chance(200) {
            total
        } else {
            r.below(total as u32 + 1) as usize
        }
    }
    let mut cur = [0u8; 48];
    let mut chg = [0u8; 48];
    let nc = sense_data(r, &mut cur);
    let nm = if r.chance(128) {
        // The changeable mask of the same page: the write cache bit (or not), the page
        // header sometimes zeroed.
        chg = cur;
        let p = 4 + chg[3] as usize;
        if p + 3 <= chg.len() {
            chg[p + 2] = r.pick(&[caching::WCE, 0xFF, 0x05, 0]);
            if r.bool() {
                chg[p] = 0;
                chg[p + 1] = 0;
            }
        }
        if r.chance(200) {
            let q = 4 + cur[3] as usize;
            if q + 3 <= cur.len() {
                cur[q + 2] = r.pick(&[0, caching::RCD, caching::WCE, 0xFB]);
            }
        }
        nc
    } else {
        sense_data(r, &mut chg)
    };
    let out_len = if r.chance(220) {
        MAX_LIST
    } else {
        r.below(MAX_LIST as u32 + 1) as usize
    };
    t.blob(&cur[..nc]);
    t.blob(&chg[..nm]);
    t.u8(out_len as u8);
    t.tag(0xA6);
    t.option(wce_on(&cur[..nc]), |t, v| t.bool(v));
    let mut out = [0x5Au8; MAX_LIST];
    let n = enable_wce_list(&cur[..nc], &chg[..nm], &mut out[..out_len]);
    t.option(n, |t, n| t.u8(n as u8));
    t.bytes(&out);
}

/// DriverGestalt answers for the selectors asked and others.
pub fn gestalt(r: &mut Rng, t: &mut Trace) {
    const SELECTORS: [&[u8; 4]; 15] = [
        b"vers", b"devt", b"intf", b"sync", b"boot", b"wide", b"purg", b"lpwr", b"dAPI", b"ejec",
        b"flus", b"vmop", b"dvrf", b"xxxx", b"VERS",
    ];
    let info = GestaltInfo {
        version: if r.bool() { VERSION } else { r.u32() },
        removable: r.bool(),
        bus: r.u8(),
        target: r.u8(),
        lun: r.u8(),
        partition: r.u8(),
        write_cache: r.bool(),
        driver: r.u32(),
    };
    t.u32(info.version);
    t.bool(info.removable);
    t.u8(info.bus);
    t.u8(info.target);
    t.u8(info.lun);
    t.u8(info.partition);
    t.bool(info.write_cache);
    t.u32(info.driver);
    t.tag(0xA7);
    for _ in 0..4 {
        let sel = if r.chance(200) {
            ostype(r.pick(&SELECTORS))
        } else {
            r.u32()
        };
        t.u32(sel);
        t.option(respond(sel, &info), |t, [a, b]| {
            t.u32(a);
            t.u32(b);
        });
    }
}
