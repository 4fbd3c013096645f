//! The Ferrite flat image: a position-independent blob of 68k code and data plus a compact
//! table of absolute 32-bit relocations that a tiny stub applies at load time.
//!
//! `retro68-build` links every m68k artifact at address 0 with GNU ld (`-q`, keeping
//! relocations), lays `.text`, `.rodata` and `.data` out back to back, and records the image
//! offset of every `R_68K_32` relocation. Loading at address `B` means: copy the image to `B`,
//! zero `bss_len` bytes after it, and add `B` to the big-endian 32-bit word at each recorded
//! offset.
//!
//! # Relocation table encoding
//!
//! Offsets are even and strictly increasing, and two relocated words never overlap. The
//! table walks a *cursor* that starts at 0; each entry gives the distance `d` (even, ≥ 0) from
//! the cursor to the next relocated word, after which the cursor moves to that word's offset
//! plus 4. With `k = d / 2`:
//!
//! | bytes                | meaning                                   | range of `d`      |
//! |----------------------|-------------------------------------------|-------------------|
//! | `00`                 | end of table                              | —                 |
//! | `01`..`7F`           | `k = b − 1`                               | 0 ..= 252         |
//! | `80`..`FE` `nn`      | `k = (b & 7F) << 8 │ nn`                  | 0 ..= 64 510      |
//! | `FF` `nn nn nn nn`   | `d` = the 32-bit big-endian value         | any even          |
//!
//! A typical driver relocation costs one byte. The decoder is a dozen 68k instructions.
//!
//! # Container file (`*.flat`)
//!
//! The build tool writes a self-describing container; the boot blob and code resources made
//! from it (later issues) embed the image and the table in their own layouts. All fields are
//! big-endian.
//!
//! | offset | size | field                                                              |
//! |--------|------|--------------------------------------------------------------------|
//! | 0      | 4    | magic `FRFL`                                                        |
//! | 4      | 2    | version (1)                                                         |
//! | 6      | 2    | header length (32)                                                  |
//! | 8      | 4    | image length (bytes stored; text + rodata + data)                   |
//! | 12     | 4    | bss length (zero bytes that follow the image in memory)             |
//! | 16     | 4    | relocation table length in bytes, terminator included, even (padded with `00`) |
//! | 20     | 4    | export table length in bytes                                        |
//! | 24     | 4    | target CPU (68000, 68020, 68030, 68040)                              |
//! | 28     | 4    | code length: the image starts with this many bytes of instructions (`.text`) |
//! | 32     | …    | image, then relocation table, then export table                     |
//!
//! An export entry is `u32 offset, u8 name length, name bytes`, padded to an even length.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// `FRFL`.
pub const MAGIC: [u8; 4] = *b"FRFL";
/// Current container version.
pub const VERSION: u16 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 32;

/// Errors found while encoding, decoding or applying a flat image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlatError {
    /// A relocation offset is odd; the 68000 cannot read a long word there.
    OddOffset(u32),
    /// Offsets are not strictly increasing or two relocated words overlap.
    Unordered { previous: u32, next: u32 },
    /// A relocated word lies (partly) outside the image.
    OutOfImage { offset: u32, image_len: u32 },
    /// The relocation table ends without its `00` terminator.
    Unterminated,
    /// The container is shorter than its header says, or has a bad magic or version.
    BadContainer(&'static str),
}

impl fmt::Display for FlatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlatError::OddOffset(o) => write!(f, "relocation at odd offset {o:#x}"),
            FlatError::Unordered { previous, next } => {
                write!(
                    f,
                    "relocation at {next:#x} overlaps or precedes the one at {previous:#x}"
                )
            }
            FlatError::OutOfImage { offset, image_len } => {
                write!(
                    f,
                    "relocation at {offset:#x} lies outside the {image_len}-byte image"
                )
            }
            FlatError::Unterminated => write!(f, "relocation table has no terminator"),
            FlatError::BadContainer(why) => write!(f, "not a Ferrite flat image: {why}"),
        }
    }
}

/// Encode sorted relocation offsets into the compact table (terminator included).
pub fn encode_relocs(offsets: &[u32]) -> Result<Vec<u8>, FlatError> {
    let mut out = Vec::with_capacity(offsets.len() + 1);
    let mut cursor: u32 = 0;
    let mut previous: Option<u32> = None;
    for &off in offsets {
        if off % 2 != 0 {
            return Err(FlatError::OddOffset(off));
        }
        if off < cursor {
            return Err(FlatError::Unordered {
                previous: previous.unwrap_or(0),
                next: off,
            });
        }
        let d = off - cursor;
        let k = d / 2;
        if k <= 0x7E {
            out.push(k as u8 + 1);
        } else if k <= 0x7EFF {
            out.push(0x80 | (k >> 8) as u8);
            out.push(k as u8);
        } else {
            out.push(0xFF);
            out.extend_from_slice(&d.to_be_bytes());
        }
        previous = Some(off);
        cursor = off + 4;
    }
    out.push(0);
    Ok(out)
}

/// Iterator over the offsets of an encoded relocation table.
#[derive(Clone)]
pub struct Relocs<'a> {
    table: &'a [u8],
    pos: usize,
    cursor: u32,
    done: bool,
}

impl<'a> Relocs<'a> {
    /// Walk `table`; the iterator yields `Err(Unterminated)` if it runs off the end.
    pub fn new(table: &'a [u8]) -> Self {
        Relocs {
            table,
            pos: 0,
            cursor: 0,
            done: false,
        }
    }

    /// Bytes consumed so far (after the iterator is exhausted: the table length including
    /// the terminator).
    pub fn consumed(&self) -> usize {
        self.pos
    }

    fn byte(&mut self) -> Option<u8> {
        let b = *self.table.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }
}

impl Iterator for Relocs<'_> {
    type Item = Result<u32, FlatError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let Some(b) = self.byte() else {
            self.done = true;
            return Some(Err(FlatError::Unterminated));
        };
        let d = match b {
            0 => {
                self.done = true;
                return None;
            }
            0x01..=0x7F => (b as u32 - 1) * 2,
            0x80..=0xFE => {
                let Some(n) = self.byte() else {
                    self.done = true;
                    return Some(Err(FlatError::Unterminated));
                };
                ((((b & 0x7F) as u32) << 8) | n as u32) * 2
            }
            0xFF => {
                let mut v = [0u8; 4];
                for slot in &mut v {
                    match self.byte() {
                        Some(x) => *slot = x,
                        None => {
                            self.done = true;
                            return Some(Err(FlatError::Unterminated));
                        }
                    }
                }
                u32::from_be_bytes(v)
            }
        };
        let off = self.cursor.wrapping_add(d);
        self.cursor = off.wrapping_add(4);
        Some(Ok(off))
    }
}

/// Decode a table into offsets, checking each against `image_len`.
pub fn decode_relocs(table: &[u8], image_len: u32) -> Result<Vec<u32>, FlatError> {
    let mut v = Vec::new();
    for r in Relocs::new(table) {
        let off = r?;
        if off % 2 != 0 {
            return Err(FlatError::OddOffset(off));
        }
        if off.checked_add(4).is_none_or(|end| end > image_len) {
            return Err(FlatError::OutOfImage {
                offset: off,
                image_len,
            });
        }
        v.push(off);
    }
    Ok(v)
}

/// Apply the table to `image` as if it were loaded at `base` (what the 68k stub does).
pub fn apply_relocs(image: &mut [u8], table: &[u8], base: u32) -> Result<usize, FlatError> {
    let offsets = decode_relocs(table, image.len() as u32)?;
    for &off in &offsets {
        let o = off as usize;
        let w = u32::from_be_bytes([image[o], image[o + 1], image[o + 2], image[o + 3]]);
        image[o..o + 4].copy_from_slice(&w.wrapping_add(base).to_be_bytes());
    }
    Ok(offsets.len())
}

/// A named entry point or data symbol of a flat image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub name: String,
    pub offset: u32,
}

/// A parsed or to-be-written flat image container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatImage {
    /// Code and initialised data, linked at address 0.
    pub image: Vec<u8>,
    /// Zeroed bytes that follow the image in memory.
    pub bss_len: u32,
    /// Encoded relocation table (see the module docs).
    pub relocs: Vec<u8>,
    /// Exported symbols.
    pub exports: Vec<Export>,
    /// Target CPU as a number: 68000, 68020, 68030 or 68040.
    pub cpu: u32,
    /// Length of the code (`.text`) at the start of the image; the rest is data.
    pub code_len: u32,
}

impl FlatImage {
    /// Look an export up by name.
    pub fn export(&self, name: &str) -> Option<u32> {
        self.exports
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.offset)
    }

    /// Decoded relocation offsets.
    pub fn reloc_offsets(&self) -> Result<Vec<u32>, FlatError> {
        decode_relocs(&self.relocs, self.image.len() as u32)
    }

    /// Serialize into the container format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut relocs = self.relocs.clone();
        if !relocs.len().is_multiple_of(2) {
            relocs.push(0);
        }
        let mut exports = Vec::new();
        for e in &self.exports {
            exports.extend_from_slice(&e.offset.to_be_bytes());
            let name = e.name.as_bytes();
            let n = name.len().min(255);
            exports.push(n as u8);
            exports.extend_from_slice(&name[..n]);
            if exports.len() % 2 != 0 {
                exports.push(0);
            }
        }
        let mut out =
            Vec::with_capacity(HEADER_LEN + self.image.len() + relocs.len() + exports.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_be_bytes());
        out.extend_from_slice(&(HEADER_LEN as u16).to_be_bytes());
        out.extend_from_slice(&(self.image.len() as u32).to_be_bytes());
        out.extend_from_slice(&self.bss_len.to_be_bytes());
        out.extend_from_slice(&(relocs.len() as u32).to_be_bytes());
        out.extend_from_slice(&(exports.len() as u32).to_be_bytes());
        out.extend_from_slice(&self.cpu.to_be_bytes());
        out.extend_from_slice(&self.code_len.to_be_bytes());
        out.extend_from_slice(&self.image);
        out.extend_from_slice(&relocs);
        out.extend_from_slice(&exports);
        out
    }

    /// Parse a container.
    pub fn parse(bytes: &[u8]) -> Result<FlatImage, FlatError> {
        let be32 = |o: usize| -> Result<u32, FlatError> {
            bytes
                .get(o..o + 4)
                .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
                .ok_or(FlatError::BadContainer("truncated header"))
        };
        if bytes.len() < HEADER_LEN {
            return Err(FlatError::BadContainer("shorter than its header"));
        }
        if bytes[0..4] != MAGIC {
            return Err(FlatError::BadContainer("bad magic (expected FRFL)"));
        }
        let version = u16::from_be_bytes([bytes[4], bytes[5]]);
        if version != VERSION {
            return Err(FlatError::BadContainer("unsupported version"));
        }
        let header_len = u16::from_be_bytes([bytes[6], bytes[7]]) as usize;
        let image_len = be32(8)? as usize;
        let bss_len = be32(12)?;
        let reloc_len = be32(16)? as usize;
        let export_len = be32(20)? as usize;
        let cpu = be32(24)?;
        let code_len = be32(28)?;
        // The sum in 64 bits: the verdict must not depend on the width of `usize` (on the
        // 68k the sum of the four lengths could overflow it, on the host never).
        let total = header_len as u64 + image_len as u64 + reloc_len as u64 + export_len as u64;
        if total > bytes.len() as u64 {
            return Err(FlatError::BadContainer("truncated body"));
        }
        let img_start = header_len;
        let rel_start = img_start + image_len;
        let exp_start = rel_start + reloc_len;
        let end = exp_start + export_len;
        if code_len as usize > image_len {
            return Err(FlatError::BadContainer("code length exceeds image length"));
        }
        let image = bytes[img_start..rel_start].to_vec();
        let relocs = bytes[rel_start..exp_start].to_vec();
        decode_relocs(&relocs, image_len as u32)?;
        let mut exports = Vec::new();
        let mut p = exp_start;
        while p < end {
            if p + 5 > end {
                return Err(FlatError::BadContainer("truncated export entry"));
            }
            let offset = be32(p)?;
            let n = bytes[p + 4] as usize;
            let name_end = p + 5 + n;
            if name_end > end {
                return Err(FlatError::BadContainer("truncated export name"));
            }
            let name = core::str::from_utf8(&bytes[p + 5..name_end])
                .map_err(|_| FlatError::BadContainer("export name is not UTF-8"))?;
            exports.push(Export {
                name: String::from(name),
                offset,
            });
            p = name_end + (name_end - exp_start) % 2;
        }
        Ok(FlatImage {
            image,
            bss_len,
            relocs,
            exports,
            cpu,
            code_len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn lengths_past_4_gb_are_a_truncated_body_on_every_target() {
        // Found by the on-target differential tests: the 68k (32-bit `usize`) said "lengths
        // overflow" where the host said "truncated body".
        let mut b = FlatImage {
            image: alloc::vec![0; 8],
            bss_len: 0,
            relocs: alloc::vec![0],
            exports: Vec::new(),
            cpu: 68000,
            code_len: 0,
        }
        .to_bytes();
        b[8..12].copy_from_slice(&0xFFFF_FFF0u32.to_be_bytes());
        b[16..20].copy_from_slice(&0x20u32.to_be_bytes());
        assert_eq!(
            FlatImage::parse(&b),
            Err(FlatError::BadContainer("truncated body"))
        );
    }

    #[test]
    fn round_trip_all_encodings() {
        let offs = vec![
            0,
            4,
            8,
            10 + 4,
            300,
            300 + 4 + 252,
            100_000,
            100_004 + 64_510,
            10_000_000,
        ];
        let t = encode_relocs(&offs).unwrap();
        assert_eq!(*t.last().unwrap(), 0);
        // 0,4,8: one byte each; 14: one byte; 300: two bytes; 556: one byte (d=252);
        // 100000: five bytes; 164514: two bytes (d = 64510); 10M: five bytes; terminator.
        assert_eq!(t.len(), 1 + 1 + 1 + 1 + 2 + 1 + 5 + 2 + 5 + 1);
        let back: Vec<u32> = Relocs::new(&t).map(|r| r.unwrap()).collect();
        assert_eq!(back, offs);
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(encode_relocs(&[3]), Err(FlatError::OddOffset(3)));
        assert!(matches!(
            encode_relocs(&[8, 10]),
            Err(FlatError::Unordered { .. })
        ));
        assert_eq!(decode_relocs(&[0x02], 100), Err(FlatError::Unterminated));
        assert_eq!(
            decode_relocs(&encode_relocs(&[98]).unwrap(), 100),
            Err(FlatError::OutOfImage {
                offset: 98,
                image_len: 100
            })
        );
    }

    #[test]
    fn apply_adds_base() {
        let mut img = vec![0u8; 16];
        img[4..8].copy_from_slice(&0x10u32.to_be_bytes());
        img[12..16].copy_from_slice(&0xFFFF_FFF0u32.to_be_bytes());
        let t = encode_relocs(&[4, 12]).unwrap();
        assert_eq!(apply_relocs(&mut img, &t, 0x40_0000).unwrap(), 2);
        assert_eq!(&img[4..8], &0x40_0010u32.to_be_bytes());
        assert_eq!(&img[12..16], &0x003F_FFF0u32.to_be_bytes());
    }

    #[test]
    fn container_round_trip() {
        let f = FlatImage {
            image: vec![0x4E, 0x75, 1, 2, 3],
            bss_len: 12,
            relocs: encode_relocs(&[]).unwrap(),
            exports: vec![
                Export {
                    name: "entry".into(),
                    offset: 0,
                },
                Export {
                    name: "ab".into(),
                    offset: 2,
                },
            ],
            cpu: 68000,
            code_len: 2,
        };
        let bytes = f.to_bytes();
        let mut g = FlatImage::parse(&bytes).unwrap();
        // The table is padded to even length in the file.
        assert_eq!(g.relocs, vec![0, 0]);
        g.relocs = f.relocs.clone();
        assert_eq!(g, f);
        assert_eq!(g.export("ab"), Some(2));
        assert!(FlatImage::parse(&bytes[..20]).is_err());
    }
}
