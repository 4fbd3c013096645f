//! The flat image container and its relocation table (`ferrite_shared::flat`).

use crate::{Rng, Trace};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use ferrite_shared::flat::{
    Export, FlatError, FlatImage, Relocs, apply_relocs, decode_relocs, encode_relocs,
};

fn trace_error(t: &mut Trace, e: &FlatError) {
    t.u8(match e {
        FlatError::OddOffset(_) => 1,
        FlatError::Unordered { .. } => 2,
        FlatError::OutOfImage { .. } => 3,
        FlatError::Unterminated => 4,
        FlatError::BadContainer(_) => 5,
    });
    t.text(e);
}

/// Relocation offsets: increasing, even, spaced to hit every encoding (1, 2 and 5 bytes); a
/// few out of order or odd.
fn offsets(r: &mut Rng, image_len: u32) -> Vec<u32> {
    let n = r.below(24);
    let mut v = Vec::new();
    let mut at = 0u32;
    for _ in 0..n {
        let gap = match r.below(8) {
            0..=3 => r.below(64) * 2,
            4 => 252 + r.below(4) * 2,
            5 => 64_508 + r.below(6) * 2,
            6 => r.below(0x8000) * 2,
            _ => r.edgy_u32() & !1,
        };
        at = at.wrapping_add(gap);
        v.push(at);
        at = at.wrapping_add(4);
    }
    if r.chance(24) && !v.is_empty() {
        let k = r.below(v.len() as u32) as usize;
        v[k] = if r.bool() { v[k] | 1 } else { v[k] / 3 };
    }
    if r.chance(128) {
        // Keep them inside the image.
        v.retain(|&o| o.checked_add(4).is_some_and(|e| e <= image_len));
    }
    // `encode_relocs` takes the build tool's own offsets, never within 4 bytes of 4 GB (its
    // cursor would overflow: a panic on the host with overflow checks, a wrap on the 68k).
    v.retain(|&o| o <= 0xFFFF_0000);
    v
}

/// Encode offsets, decode the table (and mutated tables) with the iterator and against an
/// image, and apply it at a random base.
pub fn relocations(r: &mut Rng, t: &mut Trace) {
    let image_len = r.below(600) & !1;
    let offs = offsets(r, image_len);
    let base = r.edgy_u32();
    t.u32(image_len);
    t.u16(offs.len() as u16);
    for &o in &offs {
        t.u32(o);
    }
    t.u32(base);
    t.tag(0xC1);
    let mut table = match encode_relocs(&offs) {
        Ok(tb) => {
            t.u8(1);
            t.blob(&tb);
            tb
        }
        Err(e) => {
            t.u8(0);
            trace_error(t, &e);
            let mut tb = vec![0u8; r.below(40) as usize];
            r.fill(&mut tb);
            tb
        }
    };
    if r.chance(64) {
        r.mutate(&mut table, 3);
        t.blob(&table);
    }
    let mut it = Relocs::new(&table);
    for _ in 0..40 {
        match it.next() {
            None => {
                t.u8(0);
                break;
            }
            Some(Ok(o)) => {
                t.u8(1);
                t.u32(o);
            }
            Some(Err(e)) => {
                t.u8(2);
                trace_error(t, &e);
            }
        }
    }
    t.u32(it.consumed() as u32);
    match decode_relocs(&table, image_len) {
        Ok(v) => {
            t.u8(1);
            t.u16(v.len() as u16);
            for o in v {
                t.u32(o);
            }
        }
        Err(e) => {
            t.u8(0);
            trace_error(t, &e);
        }
    }
    let mut image = vec![0u8; image_len as usize];
    r.fill(&mut image);
    match apply_relocs(&mut image, &table, base) {
        Ok(n) => {
            t.u8(1);
            t.u32(n as u32);
            t.blob(&image);
        }
        Err(e) => {
            t.u8(0);
            trace_error(t, &e);
        }
    }
}

const NAMES: [&str; 5] = ["cg_run_case", "main", "", "ferrite_drvr_header", "x"];

/// A container: written by `to_bytes` from random parts (mostly valid), often mutated, or
/// random bytes; parsed, and what parses written back and parsed again.
pub fn container(r: &mut Rng, t: &mut Trace) {
    let mut bytes = if r.chance(24) {
        let mut b = vec![0u8; r.below(120) as usize];
        r.fill(&mut b);
        if r.bool() && b.len() >= 8 {
            b[..4].copy_from_slice(b"FRFL");
            b[4..8].copy_from_slice(&[0, 1, 0, 32]);
        }
        b
    } else {
        let image_len = r.below(160) & !1;
        let mut image = vec![0u8; image_len as usize];
        r.fill(&mut image);
        let offs = offsets(r, image_len);
        let relocs = encode_relocs(&offs).unwrap_or_else(|_| vec![0]);
        let mut exports = Vec::new();
        for _ in 0..r.below(4) {
            exports.push(Export {
                name: String::from(r.pick(&NAMES)),
                offset: if r.bool() {
                    r.below(image_len + 1)
                } else {
                    r.edgy_u32()
                },
            });
        }
        let f = FlatImage {
            image,
            bss_len: r.edgy_u32(),
            relocs,
            exports,
            cpu: r.pick(&[68000, 68020, 68040, 0]),
            code_len: if r.chance(220) {
                r.below(image_len + 1)
            } else {
                r.edgy_u32()
            },
        };
        let mut b = f.to_bytes();
        if r.chance(128) {
            r.mutate(&mut b, 4);
        }
        if r.chance(32) {
            b.truncate(r.below(b.len() as u32 + 1) as usize);
        }
        b
    };
    if bytes.len() > 1200 {
        bytes.truncate(1200);
    }
    let wanted = r.pick(&NAMES);
    t.blob(&bytes);
    t.blob(wanted.as_bytes());
    t.tag(0xC2);
    match FlatImage::parse(&bytes) {
        Ok(f) => {
            t.u8(1);
            t.u32(f.image.len() as u32);
            t.u32(f.bss_len);
            t.blob(&f.relocs);
            t.u32(f.cpu);
            t.u32(f.code_len);
            t.u16(f.exports.len() as u16);
            for e in &f.exports {
                t.blob(e.name.as_bytes());
                t.u32(e.offset);
            }
            t.option(f.export(wanted), |t, o| t.u32(o));
            match f.reloc_offsets() {
                Ok(v) => {
                    t.u8(1);
                    t.u16(v.len() as u16);
                    for o in v {
                        t.u32(o);
                    }
                }
                Err(e) => trace_error(t, &e),
            }
            let again = f.to_bytes();
            t.bool(again == bytes);
            t.bool(FlatImage::parse(&again).as_ref() == Ok(&f));
        }
        Err(e) => {
            t.u8(0);
            trace_error(t, &e);
        }
    }
}
