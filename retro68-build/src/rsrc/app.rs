//! Application packaging: a flat image becomes `CODE` 0 and `CODE` 1 (facts §2.1–2.3), the
//! whole application a resource fork, and the file a MacBinary II file (facts §5.1; the
//! formatter's writer).
//!
//! # Design
//! * One segment, the near model. `CODE` 0 = A5-world sizes and one jump-table entry
//!   (`0000 3F3C 0001 A9F0`: routine at offset 0 of `CODE` 1).
//! * `CODE` 1 = near header `0000 0001`, the start-up stub (`stub/app_start.S`, assembled
//!   below as [`STUB`]), a 12-byte parameter block, the image **with its bss stored as
//!   zeros**, then the compact relocation table.
//! * **Globals live in the segment** (as in Retro68's single-segment apps): text, data and
//!   bss stay contiguous exactly as linked, so PC-relative references between them remain
//!   right, and the stub relocates the image in place. `CODE` 1 must therefore stay locked
//!   (`_LoadSeg` locks it) and never be unloaded. The A5 world below A5 is empty
//!   ([`BELOW_A5`] = 0); the application keeps its QuickDraw globals in its own bss and
//!   passes their `thePort` to `InitGraf`. The price is that bss costs file space: keep big
//!   buffers on the heap (`NewPtr`).

use anyhow::{Result, bail};
use ferrite_formatter::macbinary::{self, MacFile};
use ferrite_shared::flat::{FlatImage, decode_relocs};

use super::fork::{Resource, ResourceFork};

/// The start-up stub (`stub/app_start.S`, assembled with `m68k-linux-gnu-as -m68000`; the
/// ignored test `stub_matches_its_source` re-assembles it and compares).
pub const STUB: [u16; 54] = [
    0x43FA, 0x006A, 0x41E9, 0x000C, 0x4A69, 0x0008, 0x6652, 0x337C, 0x0001, 0x0008, 0x2208, 0x2248,
    0xD3FA, 0x0056, 0x7000, 0x1019, 0x6728, 0x6B0A, 0x5340, 0xD080, 0xD1C0, 0xD398, 0x60EE, 0x0C00,
    0x00FF, 0x670A, 0x0240, 0x007F, 0xE148, 0x1019, 0x60E8, 0x7403, 0xE188, 0x1019, 0x51CA, 0xFFFA,
    0x60DE, 0x303C, 0xA198, 0xA346, 0x2248, 0x303C, 0xA89F, 0xA746, 0xB3C8, 0x6704, 0x7001, 0xA198,
    0x41FA, 0x000A, 0x2010, 0x41F0, 0x080C, 0x4ED0,
];
/// Bytes of the near segment header.
pub const SEGMENT_HEADER_LEN: usize = 4;
/// Bytes of the stub.
pub const STUB_LEN: usize = STUB.len() * 2;
/// Bytes of the stub's parameter block (entry offset, table offset, relocated flag, 0).
pub const PARAMS_LEN: usize = 12;
/// Offset of the image in `CODE` 1 (a multiple of 4, so the image keeps the linker's
/// 4-byte alignment when the handle is 4-aligned).
pub const IMAGE_OFFSET: usize = SEGMENT_HEADER_LEN + STUB_LEN + PARAMS_LEN;
/// The application parameters above A5 (facts §2.1).
pub const APP_PARAMS_LEN: u32 = 32;
/// `CurJTOffset`: the jump table's offset from A5.
pub const JUMP_TABLE_OFFSET: u32 = 32;
/// Bytes below A5: none, the globals live in `CODE` 1 (see the module docs).
pub const BELOW_A5: u32 = 0;
/// `_LoadSeg`.
pub const LOAD_SEG: u16 = 0xA9F0;
/// `move.w #imm,-(sp)`.
pub const MOVE_W_IMM_PUSH: u16 = 0x3F3C;

const _: () = assert!(IMAGE_OFFSET.is_multiple_of(4));

/// `CODE` 0 for a single-segment application: above A5 = 32 + 8, below A5 = [`BELOW_A5`],
/// one unloaded near entry for offset 0 of segment 1.
pub fn code0() -> Vec<u8> {
    let mut out = Vec::with_capacity(24);
    out.extend_from_slice(&(APP_PARAMS_LEN + 8).to_be_bytes());
    out.extend_from_slice(&BELOW_A5.to_be_bytes());
    out.extend_from_slice(&8u32.to_be_bytes());
    out.extend_from_slice(&JUMP_TABLE_OFFSET.to_be_bytes());
    for w in [0x0000, MOVE_W_IMM_PUSH, 0x0001, LOAD_SEG] {
        out.extend_from_slice(&u16::to_be_bytes(w));
    }
    out
}

/// `CODE` 1: header, stub, parameters, image + bss zeros, relocation table. `entry` names
/// the export control goes to (the application's main; it must end with `_ExitToShell`).
pub fn code1(image: &FlatImage, entry: &str) -> Result<Vec<u8>> {
    let Some(entry_offset) = image.export(entry) else {
        bail!(
            "the image exports no `{entry}` (exports: {:?})",
            image.exports.iter().map(|e| &e.name).collect::<Vec<_>>()
        );
    };
    let code_len = if image.code_len == 0 {
        image.image.len() as u32
    } else {
        image.code_len
    };
    if entry_offset % 2 != 0 || entry_offset >= code_len {
        bail!(
            "entry `{entry}` at {entry_offset:#x} is not an even offset in the {code_len}-byte code"
        );
    }
    if image.cpu > 68000 && image.cpu != 0 {
        bail!(
            "the image is built for the {}; an application for every 68k Mac must be 68000 code",
            image.cpu
        );
    }
    decode_relocs(&image.relocs, image.image.len() as u32)
        .map_err(|e| anyhow::anyhow!("bad relocation table: {e}"))?;
    if !image.image.len().is_multiple_of(2) {
        bail!("image length {} is odd", image.image.len());
    }
    let stored = image.image.len() + image.bss_len as usize;
    let mut out = Vec::with_capacity(IMAGE_OFFSET + stored + image.relocs.len());
    out.extend_from_slice(&[0x00, 0x00, 0x00, 0x01]); // first entry at jump-table offset 0, 1 entry
    for w in STUB {
        out.extend_from_slice(&w.to_be_bytes());
    }
    out.extend_from_slice(&entry_offset.to_be_bytes());
    out.extend_from_slice(&(stored as u32).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    debug_assert_eq!(out.len(), IMAGE_OFFSET);
    out.extend_from_slice(&image.image);
    out.resize(IMAGE_OFFSET + stored, 0);
    out.extend_from_slice(&image.relocs);
    Ok(out)
}

/// The application's resource fork: `CODE` 0 and 1 from `image` plus `resources` (which
/// must not hold `CODE` resources). `CODE` 1 is marked locked and preloaded? No: the
/// Segment Loader loads and locks it; both are written without attributes (as Retro68 does).
pub fn application_fork(
    image: &FlatImage,
    entry: &str,
    resources: &ResourceFork,
) -> Result<ResourceFork> {
    if let Some(r) = resources.resources.iter().find(|r| &r.rtype == b"CODE") {
        bail!(
            "the resource source defines CODE {}; CODE resources come from the image",
            r.id
        );
    }
    let mut fork = resources.clone();
    fork.add(Resource::new(*b"CODE", 0, code0()));
    fork.add(Resource::new(*b"CODE", 1, code1(image, entry)?));
    fork.to_bytes()?;
    Ok(fork)
}

/// Finder flag `hasBundle` (facts §2.5).
pub const HAS_BUNDLE: u16 = 0x2000;

/// What the catalog (or a MacBinary header) says about the application file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppFile {
    /// Mac Roman file name (1..=31 bytes).
    pub name: Vec<u8>,
    /// Creator = the signature in the `BNDL`.
    pub creator: [u8; 4],
    /// Mac dates (seconds since 1904).
    pub created: u32,
    pub modified: u32,
}

/// The application as a MacBinary II file: type `APPL`, `hasBundle` set, `hasBeenInited`
/// clear (facts §2.5), empty data fork.
pub fn macbinary(file: &AppFile, fork: &ResourceFork) -> Result<Vec<u8>> {
    if file.name.is_empty() || file.name.len() > 31 {
        bail!("a Mac file name has 1..=31 bytes, not {}", file.name.len());
    }
    if file.name.contains(&b':') {
        bail!("a Mac file name cannot contain ':'");
    }
    Ok(macbinary::encode(&MacFile {
        name: file.name.clone(),
        file_type: *b"APPL",
        creator: file.creator,
        finder_flags: HAS_BUNDLE,
        created: file.created,
        modified: file.modified,
        data: Vec::new(),
        rsrc: fork.to_bytes()?,
        ..MacFile::default()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrite_shared::flat::{Export, encode_relocs};

    fn image() -> FlatImage {
        // code: 8 bytes (a long to relocate at 2), data: a long at 8 pointing at bss (12).
        let mut img = vec![0x4E, 0x71, 0, 0, 0, 8, 0x4E, 0x75, 0, 0, 0, 12];
        img.truncate(12);
        FlatImage {
            image: img,
            bss_len: 4,
            relocs: encode_relocs(&[2, 8]).unwrap(),
            exports: vec![Export {
                name: "main".into(),
                offset: 0,
            }],
            cpu: 68000,
            code_len: 8,
        }
    }

    #[test]
    fn code0_layout() {
        assert_eq!(
            code0(),
            [
                0, 0, 0, 0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0x20, 0, 0, 0x3F, 0x3C, 0, 1, 0xA9,
                0xF0
            ]
        );
    }

    #[test]
    fn code1_layout() {
        let img = image();
        let c = code1(&img, "main").unwrap();
        assert_eq!(&c[0..4], &[0, 0, 0, 1]);
        assert_eq!(&c[4..6], &[0x43, 0xFA], "stub first: lea params(pc),a1");
        // lea params(pc) at offset 0 of the stub: displacement + 2 = the stub's length.
        assert_eq!(u16::from_be_bytes([c[6], c[7]]) as usize + 2, STUB_LEN);
        let p = SEGMENT_HEADER_LEN + STUB_LEN;
        assert_eq!(&c[p..p + 12], &[0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0]);
        assert_eq!(&c[IMAGE_OFFSET..IMAGE_OFFSET + 12], &img.image[..]);
        assert_eq!(
            &c[IMAGE_OFFSET + 12..IMAGE_OFFSET + 16],
            &[0; 4],
            "bss stored as zeros"
        );
        assert_eq!(&c[IMAGE_OFFSET + 16..], &img.relocs[..]);
        assert!(code1(&img, "nope").is_err());
        let mut bad = img.clone();
        bad.cpu = 68020;
        assert!(code1(&bad, "main").is_err());
    }

    #[test]
    fn fork_and_macbinary() {
        let mut res = ResourceFork::new();
        res.add(Resource::new(
            *b"SIZE",
            -1,
            super::super::types::size(0x80, 1 << 20, 1 << 19).unwrap(),
        ));
        let fork = application_fork(&image(), "main", &res).unwrap();
        let bytes = fork.to_bytes().unwrap();
        let back = ResourceFork::parse(&bytes).unwrap();
        assert_eq!(back.get(b"CODE", 0).unwrap().data, code0());
        assert!(back.get(b"SIZE", -1).is_some());
        let mut with_code = res.clone();
        with_code.add(Resource::new(*b"CODE", 2, vec![]));
        assert!(application_fork(&image(), "main", &with_code).is_err());

        let file = AppFile {
            name: b"Ferrite Setup".to_vec(),
            creator: *b"FRRT",
            created: 1,
            modified: 2,
        };
        let mb = macbinary(&file, &fork).unwrap();
        assert_eq!(mb[1], 13);
        assert_eq!(&mb[65..73], b"APPLFRRT");
        assert_eq!(
            (mb[73], mb[101]),
            (0x20, 0x00),
            "hasBundle in the high byte"
        );
        assert_eq!(&mb[83..87], &[0; 4], "empty data fork");
        assert_eq!(
            u32::from_be_bytes(mb[87..91].try_into().unwrap()) as usize,
            bytes.len()
        );
        assert_eq!((mb[122], mb[123]), (129, 129));
        let crc = macbinary::crc16_xmodem(&mb[..124]);
        assert_eq!(u16::from_be_bytes([mb[124], mb[125]]), crc);
        assert_eq!(mb.len(), 128 + bytes.len().div_ceil(128) * 128);
        assert_eq!(&mb[128..128 + bytes.len()], &bytes[..]);
        let parsed = macbinary::parse(&mb).unwrap();
        assert_eq!(parsed.rsrc, bytes);
        assert!(
            macbinary(
                &AppFile {
                    name: vec![b'x'; 32],
                    ..file
                },
                &fork
            )
            .is_err()
        );
    }

    #[test]
    #[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
    fn stub_matches_its_source() {
        let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/stub/app_start.S"))
            .unwrap();
        let img = crate::asm::assemble_flat("app_start", &src).unwrap();
        let words: Vec<u16> = img
            .image
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(&words[..STUB.len()], &STUB[..]);
        assert_eq!(
            img.image.len(),
            STUB_LEN,
            "the stub ends at `params` (4-aligned)"
        );
        assert!(img.relocs == [0], "the stub is position-independent");
    }
}
