//! Work-around for the M68k backend's extension into an address register.
//!
//! `MOVZXd32d16` and `MOVSXd32d16`, the pseudos for `zext`/`anyext`/`sext` from `i16` to
//! `i32` in a register, have an `XR32` destination (`M68kInstrData.td`: `MxPseudoMove_RR<
//! MxType32r, MxType16r>`; the 8-bit ones use `MxType32d`), so the register allocator may give
//! them an address register. After register allocation `M68kInstrInfo::ExpandMOVSZX_RR`
//! expands them into a move and `AND32di #$ffff` (zero extension) or `EXT32` (sign extension)
//! *on that register*: `and.l #65535,%a4` or `ext.l %a4`, which do not exist. The encoder writes
//! the register number into a data-register field, so the object holds `and.l #65535,%d4` or
//! `ext.l %d4`: the address register keeps its garbage upper word and an unrelated data
//! register is changed.
//!
//! The object cannot tell the two apart, but `llc`'s assembly output can: it still prints
//! `%a4`. So the stack-index wrapper also has `llc` write the assembly of each codegen unit,
//! finds these instructions there, and patches them in the object, in place and with the same
//! length:
//!
//! - `and.l #65535,%aN` (6 bytes) becomes `move.w %aN,-(%sp) ; clr.w -(%sp) ;
//!   movea.l (%sp)+,%aN`;
//! - `ext.l %aN` (2 bytes) becomes `movea.w %aN,%aN`.
//!
//! Both leave the CCR differently, which does not matter: the pseudos' CCR definition is dead
//! (instruction selection never reads it). Any other data-only operation on an address register
//! in the assembly is an error, so that no object with one is shipped.

use crate::m68k::decode;
use anyhow::{Context, Result, bail};
use std::collections::HashMap;

/// One patchable instruction: `and.l #65535,%rN` or `ext.l %rN` (`r` = a or d).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Ext {
    Zext(u16),
    Sext(u16),
}

fn reg(op: &str) -> Option<(bool, u16)> {
    let b = op.as_bytes();
    if b.len() == 3
        && b[0] == b'%'
        && (b[1] == b'a' || b[1] == b'd')
        && (b'0'..=b'7').contains(&b[2])
    {
        return Some((b[1] == b'a', (b[2] - b'0') as u16));
    }
    if op == "%sp" {
        return Some((true, 7));
    }
    if op == "%fp" {
        return Some((true, 6));
    }
    None
}

/// Data-register-only operations (the destination may not be an address register).
const DATA_ONLY: &[&str] = &[
    "and", "or", "eor", "not", "neg", "negx", "ext", "extb", "clr", "lsl", "lsr", "asl", "asr",
    "rol", "ror", "roxl", "roxr", "swap", "muls", "mulu", "divs", "divu", "divsl", "divul", "btst",
    "bset", "bclr", "bchg",
];

/// Per function (by symbol name): the patchable instructions in order, with whether each names
/// an address register.
fn scan_asm(asm: &str) -> Result<HashMap<String, Vec<(Ext, bool)>>> {
    let mut out: HashMap<String, Vec<(Ext, bool)>> = HashMap::new();
    let mut pending: Option<String> = None;
    let mut current: Option<String> = None;
    for line in asm.lines() {
        if let Some(rest) = line.trim_start().strip_prefix(".type\t") {
            if let Some(name) = rest.strip_suffix(",@function") {
                pending = Some(name.trim().to_string());
            }
            continue;
        }
        if let Some(p) = &pending
            && line
                .strip_prefix(p.as_str())
                .is_some_and(|r| r.starts_with(':'))
        {
            current = pending.take();
            continue;
        }
        if line.starts_with(".Lfunc_end") {
            current = None;
            continue;
        }
        let Some(f) = &current else { continue };
        let Some(t) = line.strip_prefix('\t') else {
            continue;
        };
        if t.starts_with('.') || t.starts_with(';') {
            continue;
        }
        let t = t.split(';').next().unwrap_or("").trim_end();
        let (mnem, ops) = t.split_once('\t').unwrap_or((t, ""));
        let ops: Vec<&str> = ops
            .split(", ")
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .collect();
        let base = mnem.split('.').next().unwrap_or("");
        let e = match (mnem, ops.as_slice()) {
            ("and.l", ["#65535", r]) => reg(r).map(|(a, n)| (Ext::Zext(n), a)),
            ("ext.l", [r]) => reg(r).map(|(a, n)| (Ext::Sext(n), a)),
            _ => None,
        };
        if let Some(e) = e {
            out.entry(f.clone()).or_default().push(e);
            continue;
        }
        if DATA_ONLY.contains(&base) && ops.iter().any(|o| reg(o).is_some_and(|(a, _)| a)) {
            bail!(
                "{f}: `{t}`: a data-register operation on an address register, which the build cannot repair"
            );
        }
    }
    Ok(out)
}

fn be16(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}
fn be32(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// `(name, file offset, size)` of each section of a 32-bit big-endian ELF object.
fn sections(obj: &[u8]) -> Result<Vec<(String, usize, usize)>> {
    if obj.len() < 52 || &obj[..4] != b"\x7fELF" || obj[4] != 1 || obj[5] != 2 {
        bail!("not a 32-bit big-endian ELF object");
    }
    let shoff = be32(obj, 32) as usize;
    let shentsize = be16(obj, 46) as usize;
    let shnum = be16(obj, 48) as usize;
    let shstrndx = be16(obj, 50) as usize;
    let sh = |i: usize| -> Result<(u32, usize, usize)> {
        let o = shoff + i * shentsize;
        if o + 40 > obj.len() {
            bail!("section header {i} out of range");
        }
        Ok((
            be32(obj, o),
            be32(obj, o + 16) as usize,
            be32(obj, o + 20) as usize,
        ))
    };
    let (_, stroff, strsize) = sh(shstrndx)?;
    let strtab = obj
        .get(stroff..stroff + strsize)
        .context("bad section name table")?;
    let mut v = Vec::with_capacity(shnum);
    for i in 0..shnum {
        let (name, off, size) = sh(i)?;
        let s = strtab.get(name as usize..).context("bad section name")?;
        let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
        v.push((String::from_utf8_lossy(&s[..end]).into_owned(), off, size));
    }
    Ok(v)
}

/// Patch, in the object `obj` that `llc` wrote, the extensions into address registers that its
/// assembly output `asm` (same input, same options) shows. Returns how many were patched.
pub fn repair(asm: &str, obj: &mut [u8]) -> Result<usize> {
    let wanted = scan_asm(asm)?;
    let secs = sections(obj)?;
    let mut patched = 0;
    for (func, list) in &wanted {
        if !list.iter().any(|&(_, a)| a) {
            continue;
        }
        let sec = format!(".text.{func}");
        let &(_, off, size) = secs
            .iter()
            .find(|(n, _, _)| *n == sec)
            .with_context(|| format!("no section {sec} for {func}"))?;
        let code = obj
            .get(off..off + size)
            .context("section out of range")?
            .to_vec();
        // The same instructions in the object, in order (an address register is encoded as
        // the data register of the same number).
        let mut found = Vec::new();
        let mut pos = 0;
        while pos < code.len() {
            let insn = decode::decode(&code, pos, pos as u32)
                .map_err(|e| anyhow::anyhow!("{func}+{pos:#x}: cannot decode: {e:?}"))?;
            let w = &insn.words;
            if w.len() == 3 && w[0] & 0xF1FF == 0xC0BC && w[1] == 0 && w[2] == 0xFFFF {
                found.push((Ext::Zext((w[0] >> 9) & 7), pos));
            } else if w.len() == 1 && w[0] & 0xFFF8 == 0x48C0 {
                found.push((Ext::Sext(w[0] & 7), pos));
            }
            pos += insn.len;
        }
        if found.len() != list.len() || found.iter().zip(list).any(|((f, _), (l, _))| f != l) {
            bail!(
                "{func}: the object's extensions do not match llc's assembly ({found:?} vs {list:?})"
            );
        }
        for (k, &(e, is_a)) in list.iter().enumerate() {
            if !is_a {
                continue;
            }
            let at = off + found[k].1;
            let bytes: Vec<u16> = match e {
                Ext::Zext(n) if n != 7 => vec![0x3F08 | n, 0x4267, 0x205F | (n << 9)],
                Ext::Sext(n) if n != 7 => vec![0x3048 | (n << 9) | n],
                _ => bail!("{func}: extension into %sp"),
            };
            for (i, w) in bytes.iter().enumerate() {
                obj[at + 2 * i..at + 2 * i + 2].copy_from_slice(&w.to_be_bytes());
            }
            patched += 1;
        }
    }
    Ok(patched)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_extensions_into_address_registers() {
        let asm = "\t.type\tf,@function\nf:                ; @f\n\tmove.l\t%d1, %a4\n\tand.l\t#65535, %a4\n\tand.l\t#65535, %d2\n\
                   \text.l\t%a1\n\trts\n.Lfunc_end0:\n\t.type\tg,@function\ng:\n\tand.l\t#255, %d0\n\trts\n.Lfunc_end1:\n";
        let m = scan_asm(asm).unwrap();
        assert_eq!(
            m["f"],
            vec![
                (Ext::Zext(4), true),
                (Ext::Zext(2), false),
                (Ext::Sext(1), true)
            ]
        );
        assert!(!m.contains_key("g"));
        assert!(scan_asm("\t.type\th,@function\nh:\n\tlsl.l\t#2, %a0\n.Lfunc_end2:\n").is_err());
    }
}
