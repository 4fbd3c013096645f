//! The parsers of `ferrite-shared` the driver and the formatter read outside data with.

use crate::driver::{map_block, sense_bytes};
use crate::{Rng, Trace};
use ferrite_shared::driver_blob::{
    self, DRIVER_VERSION_OFFSET, DRVR_FIXED_LEN, DRVR_HEADER_OFFSET, FLAG_WRITE_CACHE,
    IDLE_FLUSH_AT, MAGIC, MAGIC_OFFSET, MAX_BLOCKS_OLD_AT, SETTINGS_LEN, SETTINGS_MAGIC,
    SETTINGS_OFFSET, Settings, SettingsError, TRANSFER_MODE_AT, TransferMode,
};
use ferrite_shared::partition_map::{
    DDM_SIGNATURE, DriverDescriptorMap, MapError, PartitionEntry, boot_checksum, c_field, dd_type,
};
use ferrite_shared::scsi::{self, Sense};
use zerocopy::IntoBytes;

fn trace_map_result(t: &mut Trace, r: Result<(), MapError>) {
    match r {
        Ok(()) => t.u8(1),
        Err(e) => {
            t.u8(0);
            t.text(&e);
        }
    }
}

/// `Sense::parse`, and the CDB builders fed with random fields.
pub fn scsi(r: &mut Rng, t: &mut Trace) {
    let mut buf = [0u8; 18];
    let n = sense_bytes(r, &mut buf);
    t.blob(&buf[..n]);
    let (lba, blocks, alloc, flags) = (r.edgy_u32(), r.edgy_u16(), r.u8(), r.u8());
    let (a, b) = (r.bool(), r.bool());
    t.u32(lba);
    t.u16(blocks);
    t.u8(alloc);
    t.u8(flags);
    t.bool(a);
    t.bool(b);
    t.tag(0xB1);
    t.option(Sense::parse(&buf[..n]), |t, s| {
        t.u8(s.key);
        t.u8(s.asc);
        t.u8(s.ascq);
        t.option(s.information, |t, v| t.u32(v));
        t.bool(s.deferred);
    });
    t.bytes(&scsi::rw10(flags, alloc, lba, blocks));
    t.bytes(&scsi::read_10(lba, blocks));
    t.bytes(&scsi::write_10(lba, blocks, a));
    t.bytes(&scsi::verify_10(lba, blocks));
    t.bytes(&scsi::start_stop_unit(a, b));
    t.bytes(&scsi::prevent_allow(a));
    t.bytes(&scsi::mode_sense_6(flags, alloc >> 6, alloc));
    t.bytes(&scsi::mode_select_6(b, alloc));
    t.bytes(&scsi::read_capacity_16(alloc));
    t.bytes(&scsi::inquiry(alloc));
    t.bytes(&scsi::request_sense(alloc));
}

/// Block 0: a valid Driver Descriptor Map (often mutated) or random bytes; read, its
/// descriptors, and `validate` against a device.
pub fn ddm(r: &mut Rng, t: &mut Trace) {
    let mut block = [0u8; 512];
    if r.chance(40) {
        r.fill(&mut block);
    } else {
        let mut m = DriverDescriptorMap::zeroed();
        m.sig.set(if r.chance(240) {
            DDM_SIGNATURE
        } else {
            r.edgy_u16()
        });
        m.block_size
            .set(if r.chance(220) { 512 } else { r.edgy_u16() });
        m.block_count.set(r.edgy_u32());
        let count = if r.chance(220) {
            r.below(4) as u16
        } else {
            r.edgy_u16()
        };
        m.driver_count.set(count);
        for d in m.drivers.iter_mut().take(4) {
            d.block.set(if r.bool() { 64 } else { r.edgy_u32() });
            d.size.set(if r.bool() { 32 } else { r.edgy_u16() });
            d.kind.set(r.pick(&[
                dd_type::MAC_SCSI,
                dd_type::MAC_ATA,
                dd_type::MAC_SCSI_CHAINED,
                0x0F00,
            ]));
        }
        block.copy_from_slice(m.as_bytes());
        if r.chance(96) {
            r.mutate(&mut block, 4);
        }
    }
    let len = if r.chance(240) { 512 } else { r.below(513) } as usize;
    let bs = r.pick(&[512, 512, 1024, 2048, 256, 0]);
    let device = if r.bool() {
        r.edgy_u64()
    } else {
        r.edgy_u32() as u64
    };
    t.blob(&block[..len]);
    t.u32(bs);
    t.u64(device);
    t.tag(0xB2);
    let Some(m) = DriverDescriptorMap::read(&block[..len]) else {
        t.u8(0);
        return;
    };
    t.u8(1);
    t.u16(m.sig.get());
    t.u16(m.block_size.get());
    t.u32(m.block_count.get());
    let d = m.descriptors();
    t.u8(d.len() as u8);
    for x in d {
        t.u32(x.block.get());
        t.u16(x.size.get());
        t.u16(x.kind.get());
    }
    trace_map_result(t, m.validate(bs, device));
}

/// A map entry: `read`, `validate` at a block against a map length and disk, `overlaps` with
/// a second entry, the driver tests and the C fields.
pub fn entry(r: &mut Rng, t: &mut Trace) {
    let mut a = [0u8; 512];
    let mut b = [0u8; 512];
    map_block(r, &mut a);
    map_block(r, &mut b);
    if r.chance(64) {
        // A driver entry named like Apple's, whose checksum the ROM checks.
        let name: &[u8] = r.pick(&[b"Macintosh\0".as_slice(), b"Maci", b"MACI\0"]);
        a[16..16 + name.len()].copy_from_slice(name);
        let kind: &[u8] = r.pick(&[
            b"Apple_Driver43\0".as_slice(),
            b"Apple_Driver\0",
            b"Apple_Drive\0",
        ]);
        a[48..48 + kind.len()].copy_from_slice(kind);
    }
    let len = if r.chance(240) { 512 } else { r.below(513) } as usize;
    let block_no = r.edgy_u32();
    let map_count = if r.bool() {
        u32::from_be_bytes([a[4], a[5], a[6], a[7]])
    } else {
        r.edgy_u32()
    };
    let disk = r.edgy_u64();
    t.bytes(&a[..136]);
    t.u16(len as u16);
    t.bytes(&b[..16]);
    t.u32(block_no);
    t.u32(map_count);
    t.u64(disk);
    t.tag(0xB3);
    let Some(e) = PartitionEntry::read(&a[..len]) else {
        t.u8(0);
        return;
    };
    t.u8(1);
    t.blob(e.name_bytes());
    t.blob(e.type_bytes());
    t.blob(c_field(&e.processor));
    t.bool(e.is_driver());
    t.bool(e.driver_checksum_checked());
    trace_map_result(t, e.validate(block_no, map_count, disk));
    if let Some(o) = PartitionEntry::read(&b) {
        t.bool(e.overlaps(&o));
        t.bool(o.overlaps(&e));
    }
}

/// `boot_checksum` (Technote DV 12) over random bytes of random length.
pub fn checksum(r: &mut Rng, t: &mut Trace) {
    let mut buf = [0u8; 700];
    let len = match r.below(4) {
        0 => r.below(8),
        1 => r.below(700),
        _ => r.pick(&[512, 511, 513, 700, 1, 0]),
    } as usize;
    r.fill(&mut buf[..len]);
    if r.chance(32) {
        buf[..len].fill(r.pick(&[0, 0xFF]));
    }
    t.u16(len as u16);
    t.u32(r.u32());
    t.tag(0xB4);
    t.u16(boot_checksum(&buf[..len]));
    t.u16(boot_checksum(&buf[..len / 2]));
}

fn trace_settings(t: &mut Trace, s: &Settings) {
    t.bool(s.write_cache);
    t.u16(s.read_ahead);
    t.u8(s.transfer.code());
    t.u16(s.max_blocks_old);
    t.u16(s.idle_flush_ticks);
}

fn trace_settings_result(t: &mut Trace, r: &Result<Settings, SettingsError>) {
    match r {
        Ok(s) => {
            t.u8(1);
            trace_settings(t, s);
        }
        Err(e) => {
            t.u8(0);
            t.text(e);
        }
    }
}

/// A blob head with a settings block: valid (version 1 or 2) and mutated, or random.
fn blob_head(r: &mut Rng, b: &mut [u8; 160]) {
    r.fill(b);
    if r.chance(32) {
        return;
    }
    b[MAGIC_OFFSET..MAGIC_OFFSET + 4].copy_from_slice(&MAGIC);
    let s = SETTINGS_OFFSET;
    b[s..s + 4].copy_from_slice(&SETTINGS_MAGIC);
    let version = r.pick(&[2u16, 2, 2, 1, 1, 0, 3, 0xFFFF]);
    b[s + 4..s + 6].copy_from_slice(&version.to_be_bytes());
    b[s + 8..s + 12].copy_from_slice(&r.pick(&[0u32, FLAG_WRITE_CACHE, 0xFFFF_FFFF]).to_be_bytes());
    b[s + TRANSFER_MODE_AT] = if r.chance(220) {
        r.below(3) as u8
    } else {
        r.u8()
    };
    b[s + MAX_BLOCKS_OLD_AT..s + MAX_BLOCKS_OLD_AT + 2]
        .copy_from_slice(&r.edgy_u16().to_be_bytes());
    b[s + IDLE_FLUSH_AT..s + IDLE_FLUSH_AT + 2].copy_from_slice(&r.edgy_u16().to_be_bytes());
    // The DRVR name and the head's pointer table behind it.
    let name_len = if r.chance(200) {
        r.below(16) as u8
    } else {
        r.u8()
    };
    b[DRVR_HEADER_OFFSET + DRVR_FIXED_LEN] = name_len;
    if let Some(table) = driver_blob::head_table_offset(b) {
        let n = if r.chance(200) {
            r.below(8) as u16
        } else {
            r.edgy_u16()
        };
        if table + 2 <= b.len() {
            b[table..table + 2].copy_from_slice(&n.to_be_bytes());
        }
    }
    if r.chance(200) {
        b[DRIVER_VERSION_OFFSET..DRIVER_VERSION_OFFSET + 4].copy_from_slice(&[0, 1, 0, 0]);
    }
    if r.chance(64) {
        r.mutate(b, 4);
    }
}

/// `Settings::read`, `for_driver`, `version`, and `write` with random settings read back.
pub fn settings(r: &mut Rng, t: &mut Trace) {
    let mut b = [0u8; 160];
    blob_head(r, &mut b);
    let len = if r.chance(220) {
        b.len()
    } else {
        r.below(b.len() as u32 + 1) as usize
    };
    let new = Settings {
        write_cache: r.bool(),
        read_ahead: r.edgy_u16(),
        transfer: r.pick(&[
            TransferMode::Auto,
            TransferMode::Blind,
            TransferMode::Polled,
        ]),
        max_blocks_old: if r.bool() { 0 } else { r.edgy_u16() },
        idle_flush_ticks: if r.bool() { 0 } else { r.edgy_u16() },
    };
    t.bytes(&b[..SETTINGS_OFFSET + SETTINGS_LEN]);
    t.u16(len as u16);
    trace_settings(t, &new);
    t.tag(0xB5);
    let blob = &mut b[..len];
    trace_settings_result(t, &Settings::read(blob));
    trace_settings(t, &Settings::for_driver(blob));
    match Settings::version(blob) {
        Ok(v) => {
            t.u8(1);
            t.u16(v);
        }
        Err(e) => {
            t.u8(0);
            t.text(&e);
        }
    }
    match new.write(blob) {
        Ok(()) => {
            t.u8(1);
            t.bytes(&blob[SETTINGS_OFFSET..SETTINGS_OFFSET + SETTINGS_LEN]);
            trace_settings_result(t, &Settings::read(blob));
            trace_settings(t, &Settings::for_driver(blob));
        }
        Err(e) => {
            t.u8(0);
            t.text(&e);
        }
    }
}

/// The head's layout: the pointer table, the data ranges, the pointers, the version, and the
/// transfer mode codes.
pub fn head(r: &mut Rng, t: &mut Trace) {
    let mut b = [0u8; 160];
    blob_head(r, &mut b);
    let len = if r.chance(128) {
        b.len()
    } else {
        r.below(b.len() as u32 + 1) as usize
    };
    let code = if r.bool() { r.below(4) as u8 } else { r.u8() };
    let cpu_68000 = r.bool();
    t.bytes(&b[..len]);
    t.u8(code);
    t.bool(cpu_68000);
    t.tag(0xB6);
    let blob = &b[..len];
    t.option(driver_blob::head_table_offset(blob), |t, v| t.u32(v as u32));
    t.option(driver_blob::head_data(blob), |t, d| {
        for (s, e) in d {
            t.u32(s as u32);
            t.u32(e as u32);
        }
    });
    match driver_blob::head_pointers(blob) {
        None => t.u8(0),
        Some(p) => {
            t.u8(1);
            let mut n = 0u32;
            for (k, at) in p.enumerate() {
                if k < 24 {
                    t.u32(at as u32);
                }
                n += 1;
            }
            t.u32(n);
        }
    }
    t.option(driver_blob::driver_version(blob), |t, v| t.bytes(&v));
    t.option(TransferMode::from_code(code), |t, m| {
        t.u8(m.code());
        t.bool(m.starts_blind(cpu_68000));
        t.blob(m.name().as_bytes());
    });
}
