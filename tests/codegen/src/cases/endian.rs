//! Big-endian conversions through `zerocopy` (byteorder types, derived `FromBytes`/`IntoBytes`,
//! `ref_from_bytes`) and the `byteorder` crate, plus `to_be_bytes`/`from_be_bytes`.

use super::case;
use super::util::*;
use crate::{Case, Out};
use byteorder::{BigEndian as BoBe, ByteOrder, LittleEndian as BoLe};
use zerocopy::byteorder::{BigEndian, I16, I32, LittleEndian, U16, U32, U64};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout, Unaligned};

static RAW: [u8; 64] = [
    0x45, 0x52, 0x02, 0x00, 0x00, 0x01, 0x2A, 0xC0, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x50, 0x4D, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3F,
    0x80, 0x00, 0x00, 0x01, 0xFF, 0xFE, 0xFD, 0xFC, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0,
    0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF,
];

fn raw() -> &'static [u8] {
    bb(&RAW[..])
}

/// A Driver Descriptor Map-like header (block 0 of a Mac disk), all fields big-endian.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy)]
#[repr(C)]
struct Ddm {
    sig: U16<BigEndian>,
    block_size: U16<BigEndian>,
    block_count: U32<BigEndian>,
    dev_type: U16<BigEndian>,
    dev_id: U16<BigEndian>,
    data: U32<BigEndian>,
    drvr_count: U16<BigEndian>,
    pad: [u8; 2],
}

/// A partition-map-entry-like record with mixed widths.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Pme {
    sig: U16<BigEndian>,
    res: U16<BigEndian>,
    map_count: U32<BigEndian>,
    start: U32<BigEndian>,
    count: U32<BigEndian>,
}

fn zc_ref_from_bytes(o: &mut Out) {
    let r = raw();
    match Ddm::ref_from_bytes(&r[..20]) {
        Ok(d) => {
            o.u16(d.sig.get());
            o.u16(d.block_size.get());
            o.u32(d.block_count.get());
            o.u16(d.dev_type.get());
            o.u16(d.dev_id.get());
            o.u32(d.data.get());
            o.u16(d.drvr_count.get());
        }
        Err(_) => o.u8(0xEE),
    }
    o.bool(Ddm::ref_from_bytes(&r[..19]).is_err());
    match Pme::ref_from_prefix(&r[16..]) {
        Ok((p, rest)) => {
            o.u16(p.sig.get());
            o.u32(p.map_count.get());
            o.u32(p.start.get());
            o.u32(p.count.get());
            o.u32(rest.len() as u32);
        }
        Err(_) => o.u8(0xEE),
    }
}

fn zc_read_write(o: &mut Out) {
    let r = raw();
    let mut d = Ddm::read_from_bytes(&r[..20]).unwrap_or_else(|_| Ddm::new_zeroed());
    d.block_count.set(d.block_count.get().wrapping_mul(bb(3)));
    d.dev_id = U16::new(bb(0xBEEF));
    d.data = U32::from(bb(0x0102_0304u32));
    o.bytes(d.as_bytes());
    let mut buf = [0u8; 24];
    let buf = bb(&mut buf);
    let _ = d.write_to_prefix(&mut buf[..]);
    o.bytes(&buf[..]);
}

fn zc_mut_from_bytes(o: &mut Out) {
    let mut buf = [0u8; 16];
    let buf = bb(&mut buf);
    buf.copy_from_slice(&raw()[32..48]);
    if let Ok(p) = Pme::mut_from_bytes(&mut buf[..]) {
        p.start.set(p.start.get() ^ 0xFFFF_0000);
        p.count = U32::new(p.count.get().rotate_left(bb(4)));
        p.sig.set(0x504D);
    }
    o.bytes(&buf[..]);
}

fn zc_scalars(o: &mut Out) {
    let r = raw();
    for i in 0..bb(8usize) {
        let w = &r[i * 8..i * 8 + 8];
        if let Ok(v) = U64::<BigEndian>::read_from_bytes(w) {
            o.u64(v.get());
        }
        if let Ok(v) = U64::<LittleEndian>::read_from_bytes(w) {
            o.u64(v.get());
        }
        if let Ok((v, _)) = I32::<BigEndian>::read_from_prefix(w) {
            o.i32(v.get());
        }
        if let Ok((v, _)) = I16::<LittleEndian>::read_from_prefix(&w[1..]) {
            o.i16(v.get());
        }
    }
    let x = U32::<LittleEndian>::new(bb(0x1122_3344));
    o.bytes(x.as_bytes());
    let y = U16::<BigEndian>::new(bb(0xA1B2));
    o.bytes(y.as_bytes());
}

fn zc_slice_of_words(o: &mut Out) {
    let r = raw();
    match <[U16<BigEndian>]>::ref_from_bytes(&r[2..34]) {
        Ok(ws) => {
            let mut sum = 0u32;
            for w in ws {
                sum = sum.wrapping_add(w.get() as u32);
                o.u16(w.get());
            }
            o.u32(sum);
        }
        Err(_) => o.u8(0xEE),
    }
    // a checksum like the Mac driver checksum: rotate-left-add over bytes
    let mut ck = 0u16;
    for &b in &r[..48] {
        ck = ck.wrapping_add(b as u16).rotate_left(1);
    }
    o.u16(ck);
}

fn bo_read(o: &mut Out) {
    let r = raw();
    for off in 0..bb(4usize) {
        o.u16(BoBe::read_u16(&r[off..]));
        o.u32(BoBe::read_u32(&r[off + 2..]));
        o.u64(BoBe::read_u64(&r[off + 8..]));
        o.i16(BoBe::read_i16(&r[off + 40..]));
        o.i32(BoBe::read_i32(&r[off + 32..]));
        o.u16(BoLe::read_u16(&r[off..]));
        o.u32(BoLe::read_u32(&r[off + 2..]));
        o.u64(BoLe::read_u64(&r[off + 8..]));
        o.u32(BoBe::read_u24(&r[off + 41..]));
        o.u64(BoBe::read_uint(&r[off + 20..], 5));
    }
}

fn bo_write(o: &mut Out) {
    let mut buf = [0u8; 40];
    let b = bb(&mut buf);
    for off in 0..bb(4usize) {
        b.fill(0);
        BoBe::write_u16(&mut b[off..], bb(0x1234));
        BoBe::write_u32(&mut b[off + 2..], bb(0x89AB_CDEF));
        BoBe::write_u64(&mut b[off + 6..], bb(0x0102_0304_0506_0708));
        BoLe::write_u16(&mut b[off + 14..], bb(0x1234));
        BoLe::write_u32(&mut b[off + 16..], bb(0x89AB_CDEF));
        BoLe::write_i64(&mut b[off + 20..], bb(-2));
        BoBe::write_i32(&mut b[off + 28..], bb(-0x7FFF_FFFF));
        o.bytes(&b[..]);
    }
    let mut words = [0u32; 4];
    BoBe::read_u32_into(&RAW[..16], bb(&mut words));
    for w in words {
        o.u32(w);
    }
    let mut out = [0u8; 8];
    BoLe::write_u16_into(&[bb(0xA0B0u16), 0x0102, 0xFFFE, 7], bb(&mut out));
    o.bytes(&out);
}

fn be_std_bytes(o: &mut Out) {
    let r = raw();
    let mut acc = 0u64;
    for c in r.chunks_exact(8) {
        let a: [u8; 8] = [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]];
        let be = u64::from_be_bytes(a);
        let le = u64::from_le_bytes(a);
        let ne = u64::from_ne_bytes(a);
        acc = acc.rotate_left(9) ^ be ^ le.swap_bytes();
        o.bool(ne == be || ne == le);
        o.u32(u32::from_be_bytes([c[1], c[2], c[3], c[4]]));
        o.i16(i16::from_le_bytes([c[6], c[7]]));
    }
    o.u64(acc);
    o.bytes(&bb(0x0123_4567_89AB_CDEFu64).to_be_bytes());
    o.bytes(&bb(0x0123_4567_89AB_CDEFu64).to_le_bytes());
    o.bytes(&bb(-1234i32).to_be_bytes());
    o.bytes(&bb(0xBEEFu16).to_le_bytes());
}

/// A SCSI READ(10) CDB built and parsed with byteorder.
fn be_scsi_cdb(o: &mut Out) {
    for (lba, blocks) in [(0u32, 1u16), (0x0012_3456, 0x80), (0xFFFF_FFFF, 0xFFFF)] {
        let mut cdb = [0u8; 10];
        let c = bb(&mut cdb);
        c[0] = 0x28;
        BoBe::write_u32(&mut c[2..6], bb(lba));
        BoBe::write_u16(&mut c[7..9], bb(blocks));
        o.bytes(c);
        o.u32(BoBe::read_u32(&c[2..6]));
        o.u16(BoBe::read_u16(&c[7..9]));
        // READ CAPACITY(10) data: last LBA + block length
        let cap = [c[2], c[3], c[4], c[5], 0, 0, 2, 0];
        o.u64((BoBe::read_u32(&cap[..4]) as u64 + 1) * BoBe::read_u32(&cap[4..]) as u64);
    }
}

pub const CASES: &[Case] = &[
    case!(zc_ref_from_bytes),
    case!(zc_read_write),
    case!(zc_mut_from_bytes),
    case!(zc_scalars),
    case!(zc_slice_of_words),
    case!(bo_read),
    case!(bo_write),
    case!(be_std_bytes),
    case!(be_scsi_cdb),
];
