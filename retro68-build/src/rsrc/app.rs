//! Application packaging: a flat image becomes `CODE` 0 and `CODE` 1 (mac-facts §12.1–12.3), the
//! whole application a resource fork, and the file a MacBinary II file (mac-facts §15.1; the
//! formatter's writer).
//!
//! # Design
//! * One segment, the near model. `CODE` 0 = A5-world sizes and one jump-table entry
//!   (`0000 3F3C 0001 A9F0`: routine at offset 0 of `CODE` 1).
//! * `CODE` 1 = near header `0000 0001`, the start-up stub (`stub/app_start.S`, assembled
//!   from its source by [`stub`] whenever the build packages an application), a 16-byte
//!   parameter block, the image **with its bss stored as zeros**, then the compact relocation
//!   table. [`parse_code1`] reads the layout back (`cargo xtask verify`).
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

/// The start-up stub's source: the relocation walk (a macro shared with `stub/relocate.S`)
/// and the stub that uses it; [`stub`] assembles it.
pub const STUB_SOURCE: &str = concat!(
    include_str!("../../stub/reloc_walk.S"),
    include_str!("../../stub/app_start.S")
);
/// Bytes of the near segment header.
pub const SEGMENT_HEADER_LEN: usize = 4;
/// Bytes of the stub's parameter block (entry offset, table offset, relocated flag, 0, code
/// length).
pub const PARAMS_LEN: usize = 16;
/// `lea (d16,%pc),%a1`: the stub's first instruction, which addresses the parameter block
/// right after the stub.
pub const STUB_FIRST_WORD: u16 = 0x43FA;

/// The start-up stub: [`STUB_SOURCE`] assembled with `m68k-linux-gnu-as -m68000` and checked
/// by the verifier (once per process). It must be position-independent, end 4-aligned, and
/// start with `lea params(%pc),%a1` where `params` is its end.
pub fn stub() -> Result<&'static [u8]> {
    static STUB: std::sync::OnceLock<std::result::Result<Vec<u8>, String>> =
        std::sync::OnceLock::new();
    let r = STUB.get_or_init(|| {
        let img =
            crate::asm::assemble_flat("app_start", STUB_SOURCE).map_err(|e| format!("{e:#}"))?;
        if img.relocs.iter().any(|&b| b != 0) {
            return Err(
                "the start-up stub must be position-independent (it has relocations)".into(),
            );
        }
        check_stub(&img.image).map_err(|e| e.to_string())?;
        Ok(img.image)
    });
    match r {
        Ok(v) => Ok(v),
        Err(e) => bail!("assembling stub/app_start.S: {e}"),
    }
}

/// Check that `stub` has the shape [`code1`] relies on (module docs); returns its length.
pub fn check_stub(stub: &[u8]) -> Result<usize> {
    if stub.len() < 4 || !stub.len().is_multiple_of(4) {
        bail!(
            "the start-up stub is {} bytes, not a positive multiple of 4",
            stub.len()
        );
    }
    let first = u16::from_be_bytes([stub[0], stub[1]]);
    let disp = u16::from_be_bytes([stub[2], stub[3]]) as usize;
    if first != STUB_FIRST_WORD || disp + 2 != stub.len() {
        bail!(
            "the start-up stub must start with `lea params(%pc),%a1` addressing its own end              (found {first:#06x} {disp:#06x}, length {})",
            stub.len()
        );
    }
    Ok(stub.len())
}

/// Offset of the image in `CODE` 1 for a stub of `stub_len` bytes (a multiple of 4, so the
/// image keeps the linker's 4-byte alignment when the handle is 4-aligned).
pub fn image_offset_for(stub_len: usize) -> usize {
    SEGMENT_HEADER_LEN + stub_len + PARAMS_LEN
}

/// Offset of the image in the `CODE` 1 the build makes (with [`stub`]).
pub fn image_offset() -> Result<usize> {
    Ok(image_offset_for(stub()?.len()))
}

/// The application parameters above A5 (mac-facts §12.1).
pub const APP_PARAMS_LEN: u32 = 32;
/// `CurJTOffset`: the jump table's offset from A5.
pub const JUMP_TABLE_OFFSET: u32 = 32;
/// Bytes below A5: none, the globals live in `CODE` 1 (see the module docs).
pub const BELOW_A5: u32 = 0;
/// `_LoadSeg`.
pub const LOAD_SEG: u16 = 0xA9F0;
/// `move.w #imm,-(sp)`.
pub const MOVE_W_IMM_PUSH: u16 = 0x3F3C;

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

/// `CODE` 1: header, `stub` (see [`stub`]), parameters, image + bss zeros, relocation table.
/// `entry` names the export control goes to (the application's main; it must end with
/// `_ExitToShell`).
pub fn code1(image: &FlatImage, entry: &str, stub: &[u8]) -> Result<Vec<u8>> {
    let image_offset = image_offset_for(check_stub(stub)?);
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
    // The stub and the relocation table after the image want word alignment: an image (plus
    // bss) of odd length gets one more zero byte, which no address in the image names.
    let stored = (image.image.len() + image.bss_len as usize).next_multiple_of(2);
    let mut out = Vec::with_capacity(image_offset + stored + image.relocs.len());
    out.extend_from_slice(&[0x00, 0x00, 0x00, 0x01]); // first entry at jump-table offset 0, 1 entry
    out.extend_from_slice(stub);
    out.extend_from_slice(&entry_offset.to_be_bytes());
    out.extend_from_slice(&(stored as u32).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&code_len.to_be_bytes());
    debug_assert_eq!(out.len(), image_offset);
    out.extend_from_slice(&image.image);
    out.resize(image_offset + stored, 0);
    out.extend_from_slice(&image.relocs);
    Ok(out)
}

/// Where the parts of a `CODE` 1 made by [`code1`] are (offsets in the resource).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code1Layout {
    /// The start-up stub: `[SEGMENT_HEADER_LEN, stub_end)`.
    pub stub_end: usize,
    /// The image (bss stored as zeros) starts here.
    pub image_offset: usize,
    /// The entry, from the image start.
    pub entry: u32,
    /// Bytes of instructions at the image start.
    pub code_len: u32,
    /// Bytes of the image as stored (text, data, bss zeros); the relocation table follows.
    pub stored_len: u32,
}

/// Read the layout of a `CODE` 1 resource made by [`code1`]: the stub's first instruction
/// gives the parameter block, which gives the rest. Fails on anything else.
pub fn parse_code1(code1: &[u8]) -> Result<Code1Layout> {
    let long = |at: usize| -> Result<u32> {
        match code1.get(at..at + 4) {
            Some(b) => Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
            None => bail!(
                "CODE 1 ends at {} bytes, inside its parameter block",
                code1.len()
            ),
        }
    };
    if code1.get(..4) != Some(&[0, 0, 0, 1][..]) {
        bail!("CODE 1 does not start with the near segment header 0000 0001");
    }
    let Some(w) = code1.get(SEGMENT_HEADER_LEN..SEGMENT_HEADER_LEN + 4) else {
        bail!("CODE 1 has no start-up stub");
    };
    let disp = u16::from_be_bytes([w[2], w[3]]) as usize;
    if u16::from_be_bytes([w[0], w[1]]) != STUB_FIRST_WORD
        || disp < 2
        || !(disp + 2).is_multiple_of(4)
    {
        bail!("CODE 1's stub does not start with `lea params(%pc),%a1`");
    }
    let stub_end = SEGMENT_HEADER_LEN + disp + 2;
    let image_offset = stub_end + PARAMS_LEN;
    let layout = Code1Layout {
        stub_end,
        image_offset,
        entry: long(stub_end)?,
        stored_len: long(stub_end + 4)?,
        code_len: long(stub_end + 12)?,
    };
    if long(stub_end + 8)? != 0 {
        bail!("CODE 1's relocated flag or reserved word is not 0");
    }
    if image_offset + layout.stored_len as usize > code1.len() {
        bail!(
            "CODE 1's image ({} bytes) runs past its end",
            layout.stored_len
        );
    }
    if layout.code_len == 0
        || !layout.code_len.is_multiple_of(2)
        || layout.code_len > layout.stored_len
    {
        bail!(
            "CODE 1's code length {} is not an even length within the image",
            layout.code_len
        );
    }
    if !layout.entry.is_multiple_of(2) || layout.entry >= layout.code_len {
        bail!(
            "CODE 1's entry {:#x} is not an even offset in the code",
            layout.entry
        );
    }
    Ok(layout)
}

/// The application's resource fork: `CODE` 0 and 1 from `image` plus `resources` (which
/// must not hold `CODE` resources). `CODE` 1 is marked locked and preloaded? No: the
/// Segment Loader loads and locks it; both are written without attributes (as Retro68 does).
pub fn application_fork(
    image: &FlatImage,
    entry: &str,
    resources: &ResourceFork,
) -> Result<ResourceFork> {
    application_fork_with_stub(image, entry, resources, stub()?)
}

/// [`application_fork`] with a given start-up stub (see [`check_stub`]).
pub fn application_fork_with_stub(
    image: &FlatImage,
    entry: &str,
    resources: &ResourceFork,
    stub: &[u8],
) -> Result<ResourceFork> {
    if let Some(r) = resources.resources.iter().find(|r| &r.rtype == b"CODE") {
        bail!(
            "the resource source defines CODE {}; CODE resources come from the image",
            r.id
        );
    }
    let mut fork = resources.clone();
    fork.add(Resource::new(*b"CODE", 0, code0()));
    fork.add(Resource::new(*b"CODE", 1, code1(image, entry, stub)?));
    fork.to_bytes()?;
    Ok(fork)
}

/// Finder flag `hasBundle` (mac-facts §12.5).
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
/// clear (mac-facts §12.5), empty data fork.
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

    /// A stand-in stub of `words` words: `lea params(%pc),%a1`, then NOPs.
    fn fake_stub(words: usize) -> Vec<u8> {
        let mut v = vec![0x43, 0xFA];
        v.extend_from_slice(&((words * 2 - 2) as u16).to_be_bytes());
        for _ in 2..words {
            v.extend_from_slice(&[0x4E, 0x71]);
        }
        v
    }

    #[test]
    fn code1_layout() {
        let img = image();
        let stub = fake_stub(6);
        let c = code1(&img, "main", &stub).unwrap();
        assert_eq!(&c[0..4], &[0, 0, 0, 1]);
        assert_eq!(&c[4..16], &stub[..], "the stub first");
        let p = SEGMENT_HEADER_LEN + stub.len();
        assert_eq!(
            &c[p..p + 16],
            &[0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 8],
            "entry, table offset, flag, reserved, code length"
        );
        let at = image_offset_for(stub.len());
        assert_eq!(at, 32);
        assert_eq!(&c[at..at + 12], &img.image[..]);
        assert_eq!(&c[at + 12..at + 16], &[0; 4], "bss stored as zeros");
        assert_eq!(&c[at + 16..], &img.relocs[..]);
        assert_eq!(
            parse_code1(&c).unwrap(),
            Code1Layout {
                stub_end: p,
                image_offset: at,
                entry: 0,
                code_len: 8,
                stored_len: 16,
            }
        );
        assert!(code1(&img, "nope", &stub).is_err());
        let mut bad = img.clone();
        bad.cpu = 68020;
        assert!(code1(&bad, "main", &stub).is_err());
        // Stubs that do not address their own end, or are not 4-aligned, are refused.
        let mut wrong = stub.clone();
        wrong[3] += 2;
        assert!(code1(&img, "main", &wrong).is_err());
        assert!(code1(&img, "main", &fake_stub(5)).is_err());
    }

    #[test]
    fn an_odd_image_is_padded_not_refused() {
        let mut img = image();
        img.image.push(0xAB);
        img.bss_len = 0;
        let c = code1(&img, "main", &fake_stub(6)).unwrap();
        let l = parse_code1(&c).unwrap();
        assert_eq!(l.stored_len, 14, "13 bytes stored as 14");
        let at = l.image_offset;
        assert_eq!(&c[at..at + 13], &img.image[..]);
        assert_eq!(c[at + 13], 0, "the pad byte is zero");
        assert_eq!(
            &c[at + 14..],
            &img.relocs[..],
            "relocations word-aligned after it"
        );
    }

    #[test]
    fn parse_code1_refuses_what_code1_does_not_make() {
        let c = code1(&image(), "main", &fake_stub(6)).unwrap();
        let p = SEGMENT_HEADER_LEN + 12;
        let set = |at: usize, v: u32| {
            let mut c = c.clone();
            c[at..at + 4].copy_from_slice(&v.to_be_bytes());
            c
        };
        assert!(parse_code1(&c).is_ok());
        assert!(parse_code1(&set(0, 2)).is_err(), "segment header");
        assert!(parse_code1(&set(4, 0x4E71_4E71)).is_err(), "no lea first");
        assert!(parse_code1(&set(p, 9)).is_err(), "entry past the code");
        assert!(parse_code1(&set(p + 4, 400)).is_err(), "image past the end");
        assert!(parse_code1(&set(p + 8, 1)).is_err(), "already relocated");
        assert!(parse_code1(&set(p + 12, 0)).is_err(), "no code length");
        assert!(
            parse_code1(&set(p + 12, 18)).is_err(),
            "code past the image"
        );
        assert!(parse_code1(&c[..p + 8]).is_err(), "truncated");
    }

    #[test]
    fn fork_and_macbinary() {
        let mut res = ResourceFork::new();
        res.add(Resource::new(
            *b"SIZE",
            -1,
            super::super::types::size(0x80, 1 << 20, 1 << 19).unwrap(),
        ));
        let fork = application_fork_with_stub(&image(), "main", &res, &fake_stub(6)).unwrap();
        let bytes = fork.to_bytes().unwrap();
        let back = ResourceFork::parse(&bytes).unwrap();
        assert_eq!(back.get(b"CODE", 0).unwrap().data, code0());
        assert!(back.get(b"SIZE", -1).is_some());
        let mut with_code = res.clone();
        with_code.add(Resource::new(*b"CODE", 2, vec![]));
        assert!(application_fork_with_stub(&image(), "main", &with_code, &fake_stub(6)).is_err());

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
    fn the_stub_is_assembled_from_its_source() {
        let stub = stub().unwrap();
        assert_eq!(check_stub(stub).unwrap(), stub.len());
        // What the stub does with the parameter block matches `code1`'s layout: the image at
        // params + 16, the relocated flag at params + 8, the table offset at params + 4.
        let report = crate::m68k::verify(stub, 0, crate::m68k::Cpu::M68000, &[]);
        assert!(report.is_clean(), "{report}");
        let words: Vec<u16> = stub
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(
            &words[2..4],
            &[0x41E9, PARAMS_LEN as u16],
            "lea 16(%a1),%a0"
        );
        assert!(
            words
                .windows(2)
                .any(|w| w == [0x41F0, 0x0800 | PARAMS_LEN as u16]),
            "lea 16(%a0,%d0.l),%a0 to the entry"
        );
        let c = code1(&image(), "main", stub).unwrap();
        let layout = parse_code1(&c).unwrap();
        assert_eq!(layout.image_offset, image_offset().unwrap());
        assert_eq!(&c[SEGMENT_HEADER_LEN..layout.stub_end], stub);
    }
}
