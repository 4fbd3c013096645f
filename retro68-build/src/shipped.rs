//! `cargo xtask verify` on files as they ship: every m68k instruction of a linked ELF, a flat
//! image, the driver's boot blob or a classic Mac application (MacBinary file or bare resource
//! fork) is decoded and checked by [`crate::m68k::verify`]; the data that sits among the code
//! (the driver head's magic, settings block, DRVR header and pointer table; an application's
//! parameter block, rodata and data) is found from each container's own layout and never
//! decoded. Anything the layout does not explain is an error, not a skipped byte.
//!
//! What each container says about its code:
//! * flat image (`*.flat`): the container's code length; a driver image (the blob magic at
//!   offset 4) has its head's data at the places `ferrite_shared::driver_blob` names.
//! * driver blob (`ferrite-driver.bin`): the relocation-table offset at +12 and the code
//!   length at +36 (settings block +20), both written by the build; the head as above.
//! * application: `CODE` 0's jump table must enter `CODE` 1 at an instruction; `CODE` 1 holds
//!   the start-up stub (code up to the parameter block it addresses first), the parameter
//!   block (entry, table offset, flag, code length) and the image. No other code resource
//!   may be present.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use ferrite_shared::driver_blob;
use ferrite_shared::flat::{self, FlatImage, Relocs};

use crate::elf::read_linked;
use crate::m68k::verify::sweep_with_data;
use crate::m68k::{self, Cpu, Finding, Rule, Symbol, VerifyReport};
use crate::pipeline::{ARTIFACTS, Artifact, Kind};
use crate::rsrc::ResourceFork;
use crate::rsrc::app::{self, SEGMENT_HEADER_LEN};

/// One decoded piece of a file (a whole flat image, or an application's stub).
#[derive(Debug, Clone)]
pub struct Part {
    /// What the piece is, e.g. `CODE 1 stub`.
    pub name: String,
    pub report: VerifyReport,
}

/// What [`verify_bytes`] found in one file.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// What the file was read as, e.g. `driver blob`.
    pub kind: &'static str,
    pub parts: Vec<Part>,
}

impl FileReport {
    pub fn instructions(&self) -> usize {
        self.parts.iter().map(|p| p.report.instructions).sum()
    }

    pub fn findings(&self) -> impl Iterator<Item = (&str, &Finding)> {
        self.parts
            .iter()
            .flat_map(|p| p.report.findings.iter().map(move |f| (p.name.as_str(), f)))
    }

    pub fn finding_count(&self) -> usize {
        self.parts.iter().map(|p| p.report.findings.len()).sum()
    }
}

/// Verify a file's bytes for `cpu`, reading the container from its content. `app`: the code
/// is a classic Mac application's (also report writes of A5); MacBinary files and resource
/// forks are applications by construction.
pub fn verify_bytes(data: &[u8], cpu: Cpu, app: bool) -> Result<FileReport> {
    if data.starts_with(b"\x7fELF") {
        return verify_elf(data, cpu, app);
    }
    if data.starts_with(&flat::MAGIC) {
        let flat = FlatImage::parse(data).map_err(|e| anyhow::anyhow!("{e}"))?;
        return verify_flat(&flat, cpu, app);
    }
    if data.get(driver_blob::MAGIC_OFFSET..driver_blob::MAGIC_OFFSET + 4)
        == Some(&driver_blob::MAGIC[..])
    {
        return verify_driver_blob(data, cpu);
    }
    if let Ok(file) = ferrite_formatter::macbinary::parse(data) {
        if !file.data.is_empty() {
            bail!("the application's data fork is not empty");
        }
        let fork = ResourceFork::parse(&file.rsrc).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut r = verify_application(&fork, cpu)?;
        r.kind = "MacBinary application";
        return Ok(r);
    }
    if let Ok(fork) = ResourceFork::parse(data) {
        return verify_application(&fork, cpu);
    }
    bail!(
        "not an m68k ELF, a Ferrite flat image, a Ferrite driver blob, a MacBinary file or a \
         resource fork"
    )
}

fn one_part(kind: &'static str, name: &str, report: VerifyReport) -> FileReport {
    FileReport {
        kind,
        parts: vec![Part {
            name: name.to_string(),
            report,
        }],
    }
}

fn verify_elf(data: &[u8], cpu: Cpu, app: bool) -> Result<FileReport> {
    let linked = read_linked(data)?;
    let syms: Vec<Symbol> = linked
        .functions
        .iter()
        .map(|f| Symbol {
            name: f.name.clone(),
            addr: f.addr,
            size: f.size,
        })
        .collect();
    let data_objects: Vec<(u32, u32)> = linked.text_objects.clone();
    let code = &linked.image[..linked.code_len as usize];
    let mut r = m68k::verify_with_data(code, linked.base, cpu, &syms, &data_objects);
    if app {
        r.findings.extend(m68k::a5_writes(code, linked.base, &syms));
    }
    Ok(one_part("ELF", ".text", r))
}

fn verify_flat(flat: &FlatImage, cpu: Cpu, app: bool) -> Result<FileReport> {
    let syms: Vec<Symbol> = flat
        .exports
        .iter()
        .map(|e| Symbol {
            name: e.name.clone(),
            addr: e.offset,
            size: 0,
        })
        .collect();
    let relocs = flat
        .reloc_offsets()
        .map_err(|e| anyhow::anyhow!("relocation table: {e}"))?;
    if flat.code_len as usize > flat.image.len() || !flat.code_len.is_multiple_of(2) {
        bail!(
            "the code length {} is not an even length within the image",
            flat.code_len
        );
    }
    if is_driver(&flat.image) {
        let r = verify_driver(&flat.image, flat.code_len, &relocs, cpu, &syms)?;
        return Ok(one_part("driver flat image", "image", r));
    }
    let code = &flat.image[..flat.code_len as usize];
    let mut r = m68k::verify(code, 0, cpu, &syms);
    if app {
        r.findings.extend(m68k::a5_writes(code, 0, &syms));
        r.findings.sort_by_key(|f| (f.addr, f.rule));
    }
    Ok(one_part("flat image", "image", r))
}

/// A driver image starts with `bra.w`, the blob magic, `bra.w`.
fn is_driver(image: &[u8]) -> bool {
    image.len() > driver_blob::DRVR_HEADER_OFFSET
        && image[driver_blob::MAGIC_OFFSET..driver_blob::MAGIC_OFFSET + 4] == driver_blob::MAGIC
        && image[driver_blob::ENTRY_ORIGINAL..driver_blob::ENTRY_ORIGINAL + 2] == [0x60, 0x00]
        && image[driver_blob::ENTRY_43..driver_blob::ENTRY_43 + 2] == [0x60, 0x00]
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The boot blob: image, relocation table at the offset in its head, code length in its head.
fn verify_driver_blob(blob: &[u8], cpu: Cpu) -> Result<FileReport> {
    if !is_driver(blob) {
        bail!("the blob does not start with `bra.w`, \"FRRT\", `bra.w`");
    }
    let field = |at: usize| be32(blob, at);
    let table_at = field(driver_blob::RELOC_OFFSET_FIELD) as usize;
    let code_len = field(driver_blob::CODE_LEN_OFFSET);
    if code_len == 0 {
        bail!(
            "the blob has no code length at +{} (built before the field existed): verify its \
             .flat image instead",
            driver_blob::CODE_LEN_OFFSET
        );
    }
    if table_at > blob.len() || !table_at.is_multiple_of(2) || (code_len as usize) > table_at {
        bail!(
            "relocation table at {table_at:#x} and code length {code_len:#x} do not fit the \
             {}-byte blob",
            blob.len()
        );
    }
    let (image, table) = blob.split_at(table_at);
    let relocs = flat::decode_relocs(table, image.len() as u32)
        .map_err(|e| anyhow::anyhow!("relocation table: {e}"))?;
    let mut walk = Relocs::new(table);
    for _ in walk.by_ref() {}
    let rest = &table[walk.consumed()..];
    if rest.len() > 1 || rest.iter().any(|&b| b != 0) {
        bail!(
            "{} bytes follow the relocation table's end: the blob holds something the build \
             did not put there",
            rest.len()
        );
    }
    let r = verify_driver(image, code_len, &relocs, cpu, &[])?;
    Ok(one_part("driver blob", "image", r))
}

/// The driver image `image` (head, body text of `code_len` bytes in all, then rodata and
/// data) with relocated words at `relocs`.
fn verify_driver(
    image: &[u8],
    code_len: u32,
    relocs: &[u32],
    cpu: Cpu,
    syms: &[Symbol],
) -> Result<VerifyReport> {
    let stamped = be32(image, driver_blob::CODE_LEN_OFFSET);
    if stamped != code_len {
        bail!("the head's code length {stamped:#x} is not the image's {code_len:#x}");
    }
    let data = driver_blob::head_data(image).context("the image is too short for its head")?;
    let data: Vec<(u32, u32)> = data.iter().map(|&(s, e)| (s as u32, e as u32)).collect();
    let head_end = data.last().map_or(0, |d| d.1);
    if head_end > code_len {
        bail!("the head's data ends at {head_end:#x}, past the code ({code_len:#x} bytes)");
    }
    let code = &image[..code_len as usize];
    let mut report = m68k::verify_with_data(code, 0, cpu, syms, &data);
    // The entries the Mac calls, and the head's pointers: each must be an instruction.
    let starts: std::collections::BTreeSet<u32> = sweep_with_data(code, 0, syms, &data)
        .insns
        .iter()
        .map(|i| i.addr)
        .collect();
    let mut entries: Vec<(u32, String)> = vec![
        (
            driver_blob::ENTRY_ORIGINAL as u32,
            "original-ROM entry".into(),
        ),
        (
            driver_blob::ENTRY_43 as u32,
            "SCSI Manager 4.3 entry".into(),
        ),
    ];
    let hdr = driver_blob::DRVR_HEADER_OFFSET;
    for (i, name) in ["open", "prime", "control", "status", "close"]
        .iter()
        .enumerate()
    {
        let at = hdr + driver_blob::DRVR_ROUTINES_AT + 2 * i;
        let off = u16::from_be_bytes([image[at], image[at + 1]]) as u32;
        entries.push((hdr as u32 + off, format!("DRVR {name} routine")));
    }
    let pointers = driver_blob::head_pointers(image).context("no pointer table")?;
    for at in pointers {
        if relocs.binary_search(&(at as u32)).is_err() {
            bail!("the head's pointer at {at:#x} is not in the relocation table");
        }
        entries.push((be32(image, at), format!("head pointer at {at:#x}")));
    }
    for (target, what) in entries {
        if !starts.contains(&target) {
            report.findings.push(Finding {
                addr: target,
                text: String::new(),
                rule: Rule::BadBranchTarget,
                message: format!("the {what} leads to {target:#x}, which is not an instruction"),
                location: None,
            });
        }
    }
    report.findings.sort_by_key(|f| (f.addr, f.rule));
    Ok(report)
}

/// An application's resource fork: `CODE` 0 (jump table) and `CODE` 1 (stub + image).
fn verify_application(fork: &ResourceFork, cpu: Cpu) -> Result<FileReport> {
    for r in &fork.resources {
        let code_like = matches!(
            &r.rtype,
            b"CODE" | b"DRVR" | b"MDEF" | b"WDEF" | b"CDEF" | b"LDEF" | b"INIT" | b"PACK"
        );
        if code_like && !(&r.rtype == b"CODE" && (r.id == 0 || r.id == 1)) {
            bail!(
                "{} {} holds code this verifier does not know how to find",
                String::from_utf8_lossy(&r.rtype),
                r.id
            );
        }
    }
    let code0 = &fork.get(b"CODE", 0).context("no CODE 0")?.data;
    let code1 = &fork.get(b"CODE", 1).context("no CODE 1")?.data;
    let layout = app::parse_code1(code1)?;

    // The stub: offsets in CODE 1 as addresses.
    let stub = &code1[SEGMENT_HEADER_LEN..layout.stub_end];
    let base = SEGMENT_HEADER_LEN as u32;
    let mut stub_report = m68k::verify(stub, base, cpu, &[]);
    stub_report
        .findings
        .extend(m68k::a5_writes(stub, base, &[]));
    let stub_starts: std::collections::BTreeSet<u32> = crate::m68k::verify::sweep(stub, base, &[])
        .insns
        .iter()
        .map(|i| i.addr)
        .collect();

    // The image, at its link address 0.
    let image = &code1[layout.image_offset..layout.image_offset + layout.stored_len as usize];
    let table = &code1[layout.image_offset + layout.stored_len as usize..];
    flat::decode_relocs(table, layout.stored_len)
        .map_err(|e| anyhow::anyhow!("CODE 1's relocation table: {e}"))?;
    let code = &image[..layout.code_len as usize];
    let syms = [Symbol {
        name: "entry".into(),
        addr: layout.entry,
        size: 0,
    }];
    let mut image_report = m68k::verify(code, 0, cpu, &syms);
    image_report
        .findings
        .extend(m68k::a5_writes(code, 0, &syms));
    image_report.findings.sort_by_key(|f| (f.addr, f.rule));
    let image_starts: std::collections::BTreeSet<u32> = crate::m68k::verify::sweep(code, 0, &syms)
        .insns
        .iter()
        .map(|i| i.addr)
        .collect();
    if !image_starts.contains(&layout.entry) {
        image_report.findings.push(Finding {
            addr: layout.entry,
            text: String::new(),
            rule: Rule::BadBranchTarget,
            message: "the stub's parameter block enters the image here, not at an instruction"
                .into(),
            location: None,
        });
    }

    // CODE 0: header, then 8-byte entries `offset, move.w #seg,-(sp), _LoadSeg`.
    if code0.len() < 16 {
        bail!("CODE 0 is shorter than its header");
    }
    let jt_len = be32(code0, 8) as usize;
    if !jt_len.is_multiple_of(8) || 16 + jt_len != code0.len() || jt_len == 0 {
        bail!("CODE 0's jump table ({jt_len} bytes) does not fill it in 8-byte entries");
    }
    for e in code0[16..].chunks(8) {
        let w = |i: usize| u16::from_be_bytes([e[i], e[i + 1]]);
        if w(2) != app::MOVE_W_IMM_PUSH || w(6) != app::LOAD_SEG || w(4) != 1 {
            bail!("a CODE 0 entry is not `move.w #1,-(sp); _LoadSeg` (only CODE 1 exists)");
        }
        let target = base + w(0) as u32;
        if !stub_starts.contains(&target) {
            stub_report.findings.push(Finding {
                addr: target,
                text: String::new(),
                rule: Rule::BadBranchTarget,
                message: "a CODE 0 jump-table entry enters CODE 1 here, not at a stub instruction"
                    .into(),
                location: None,
            });
        }
    }
    Ok(FileReport {
        kind: "application resource fork",
        parts: vec![
            Part {
                name: "CODE 1 stub".into(),
                report: stub_report,
            },
            Part {
                name: "CODE 1 image".into(),
                report: image_report,
            },
        ],
    })
}

/// The files `a` ships (names in the output folder) and whether they hold application code.
pub fn shipped_files(a: &Artifact) -> Vec<(String, bool)> {
    match a.kind {
        Kind::Flat { .. } => vec![(format!("{}.flat", a.name), false)],
        Kind::DriverBlob { .. } => vec![
            (format!("{}.flat", a.name), false),
            (format!("{}.bin", a.name), false),
        ],
        Kind::Application { file_stem, .. } => vec![
            (format!("{}.flat", a.name), true),
            (format!("{}.rsrc", a.name), true),
            (format!("{file_stem}.bin"), true),
        ],
        Kind::LinuxElf => vec![(format!("{}.elf", a.name), false)],
    }
}

/// Verify every file the build ships in `dir` (`target/m68k/`) for the 68000. A missing file
/// is an error; so is a file in `dir` that no shipped artifact makes (stale or foreign).
pub fn verify_shipped(dir: &Path) -> Result<Vec<(PathBuf, FileReport)>> {
    let expected: Vec<(String, bool)> = ARTIFACTS
        .iter()
        .filter(|a| a.shipped)
        .flat_map(shipped_files)
        .collect();
    let mut out = Vec::new();
    for (name, is_app) in &expected {
        let path = dir.join(name);
        let data = std::fs::read(&path)
            .with_context(|| format!("{} is missing: run `cargo xtask build`", path.display()))?;
        let r = verify_bytes(&data, Cpu::M68000, *is_app)
            .with_context(|| format!("verifying {}", path.display()))?;
        out.push((path, r));
    }
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type()?.is_file() && !expected.iter().any(|(n, _)| *n == name) {
            bail!(
                "{} is in {} but no shipped artifact makes it: remove it, or teach the build \
                 (pipeline::ARTIFACTS) and the verifier about it",
                name,
                dir.display()
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsrc::Resource;
    use ferrite_shared::flat::{Export, encode_relocs};

    const RTS: u16 = 0x4E75;
    const NOP: u16 = 0x4E71;
    const RTE: u16 = 0x4E73;
    /// `movea.l %d0,%a5`.
    const MOVEA_D0_A5: u16 = 0x2A40;

    /// A driver image in the blob's layout: `bra.w` entries at 0 and 8, a DRVR header named
    /// "X" at 48 (ending at 68), a pointer table with one pointer at 72, code from 76 (`body`
    /// words), then 4 bytes of rodata. Entries, routines and the pointer lead to 76.
    fn driver_image(body: &[u16]) -> (Vec<u8>, u32, Vec<u32>) {
        let mut img = vec![0u8; 76];
        img[0..4].copy_from_slice(&[0x60, 0x00, 0x00, 74]); // bra.w 76
        img[4..8].copy_from_slice(b"FRRT");
        img[8..12].copy_from_slice(&[0x60, 0x00, 0x00, 66]); // bra.w 76
        img[16..20].copy_from_slice(b"FSET");
        for i in 0..5 {
            img[56 + 2 * i..58 + 2 * i].copy_from_slice(&28u16.to_be_bytes()); // 48 + 28 = 76
        }
        img[66] = 1;
        img[67] = b'X';
        img[68..70].copy_from_slice(&1u16.to_be_bytes());
        img[72..76].copy_from_slice(&76u32.to_be_bytes());
        for w in body {
            img.extend_from_slice(&w.to_be_bytes());
        }
        let code_len = img.len() as u32;
        img[36..40].copy_from_slice(&code_len.to_be_bytes());
        img.extend_from_slice(b"data");
        (img, code_len, vec![72])
    }

    fn blob(image: &[u8], relocs: &[u32]) -> Vec<u8> {
        let mut b = image.to_vec();
        b[12..16].copy_from_slice(&(image.len() as u32).to_be_bytes());
        b.extend_from_slice(&encode_relocs(relocs).unwrap());
        b
    }

    fn flat(image: &[u8], code_len: u32, relocs: &[u32]) -> Vec<u8> {
        FlatImage {
            image: image.to_vec(),
            bss_len: 0,
            relocs: encode_relocs(relocs).unwrap(),
            exports: vec![],
            cpu: 68000,
            code_len,
        }
        .to_bytes()
    }

    fn rules(r: &FileReport) -> Vec<Rule> {
        r.findings().map(|(_, f)| f.rule).collect()
    }

    #[test]
    fn a_driver_blob_and_its_flat_image_verify_around_the_head_data() {
        let (img, code_len, relocs) = driver_image(&[RTS, NOP]);
        let b = verify_bytes(&blob(&img, &relocs), Cpu::M68000, false).unwrap();
        assert_eq!(b.kind, "driver blob");
        assert_eq!(rules(&b), [], "{:?}", b.parts);
        // bra.w, bra.w, rts, nop: nothing of the head's data was decoded.
        assert_eq!(b.instructions(), 4);
        let f = verify_bytes(&flat(&img, code_len, &relocs), Cpu::M68000, false).unwrap();
        assert_eq!(f.kind, "driver flat image");
        assert_eq!((rules(&f), f.instructions()), (vec![], 4));
    }

    #[test]
    fn bad_code_in_a_driver_is_flagged() {
        let (img, code_len, relocs) = driver_image(&[RTE, NOP]);
        let b = verify_bytes(&blob(&img, &relocs), Cpu::M68000, false).unwrap();
        assert_eq!(rules(&b), [Rule::Privileged]);
        let f = verify_bytes(&flat(&img, code_len, &relocs), Cpu::M68000, false).unwrap();
        assert_eq!(rules(&f), [Rule::Privileged]);
    }

    #[test]
    fn driver_entries_must_lead_to_instructions() {
        // The pointer leads into the DRVR header; the close routine into the pointer table.
        let (mut img, _, relocs) = driver_image(&[RTS, NOP]);
        img[72..76].copy_from_slice(&48u32.to_be_bytes());
        img[64..66].copy_from_slice(&22u16.to_be_bytes());
        let b = verify_bytes(&blob(&img, &relocs), Cpu::M68000, false).unwrap();
        assert_eq!(rules(&b), [Rule::BadBranchTarget, Rule::BadBranchTarget]);
        // An entry branch into the settings block.
        let (mut img, _, relocs) = driver_image(&[RTS, NOP]);
        img[2..4].copy_from_slice(&18u16.to_be_bytes());
        let b = verify_bytes(&blob(&img, &relocs), Cpu::M68000, false).unwrap();
        assert!(rules(&b).contains(&Rule::BadBranchTarget), "{:?}", b.parts);
    }

    #[test]
    fn malformed_driver_blobs_are_refused() {
        let (img, _, relocs) = driver_image(&[RTS, NOP]);
        let good = blob(&img, &relocs);
        assert!(verify_bytes(&good, Cpu::M68000, false).is_ok());
        // The head's pointer is not relocated.
        assert!(verify_bytes(&blob(&img, &[]), Cpu::M68000, false).is_err());
        // No code length (a blob from before the field).
        let mut old = good.clone();
        old[36..40].fill(0);
        assert!(verify_bytes(&old, Cpu::M68000, false).is_err());
        // Code length past the relocation table.
        let mut long = good.clone();
        long[36..40].copy_from_slice(&0x1000u32.to_be_bytes());
        assert!(verify_bytes(&long, Cpu::M68000, false).is_err());
        // Something after the relocation table.
        let mut tail = good.clone();
        tail.extend_from_slice(&[0x4E, 0x75]);
        assert!(verify_bytes(&tail, Cpu::M68000, false).is_err());
        // A truncated table.
        let mut cut = good.clone();
        cut.pop();
        assert!(verify_bytes(&cut, Cpu::M68000, false).is_err());
    }

    /// A stand-in stub: `lea params(%pc),%a1`, `nop`s, `rts`.
    fn stub() -> Vec<u8> {
        let mut v = vec![0x43, 0xFA, 0x00, 0x06];
        v.extend_from_slice(&[0x4E, 0x71, 0x4E, 0x75]);
        v
    }

    fn app_fork(code: &[u16]) -> ResourceFork {
        let mut image: Vec<u8> = code.iter().flat_map(|w| w.to_be_bytes()).collect();
        let code_len = image.len() as u32;
        image.extend_from_slice(&[0, 0, 0, 0]); // a pointer to main
        let img = FlatImage {
            image,
            bss_len: 4,
            relocs: encode_relocs(&[code_len]).unwrap(),
            exports: vec![Export {
                name: "main".into(),
                offset: 0,
            }],
            cpu: 68000,
            code_len,
        };
        app::application_fork_with_stub(&img, "main", &ResourceFork::new(), &stub()).unwrap()
    }

    fn macbinary(fork: &ResourceFork) -> Vec<u8> {
        app::macbinary(
            &app::AppFile {
                name: b"T".to_vec(),
                creator: *b"TEST",
                created: 0,
                modified: 0,
            },
            fork,
        )
        .unwrap()
    }

    #[test]
    fn an_application_verifies_as_stub_and_image() {
        let fork = app_fork(&[NOP, RTS]);
        let r = verify_bytes(&fork.to_bytes().unwrap(), Cpu::M68000, true).unwrap();
        assert_eq!(r.kind, "application resource fork");
        assert_eq!((rules(&r), r.instructions()), (vec![], 5));
        let r = verify_bytes(&macbinary(&fork), Cpu::M68000, true).unwrap();
        assert_eq!(r.kind, "MacBinary application");
        assert_eq!((rules(&r), r.instructions()), (vec![], 5));
    }

    #[test]
    fn bad_application_code_is_flagged() {
        let fork = app_fork(&[MOVEA_D0_A5, RTE]);
        let r = verify_bytes(&macbinary(&fork), Cpu::M68000, true).unwrap();
        assert_eq!(rules(&r), [Rule::A5Write, Rule::Privileged]);
        // A jump-table entry into the middle of the stub's `lea`.
        let mut fork = app_fork(&[NOP, RTS]);
        let mut code0 = app::code0();
        code0[17] = 2;
        fork.resources
            .retain(|r| !(&r.rtype == b"CODE" && r.id == 0));
        fork.add(Resource::new(*b"CODE", 0, code0));
        let r = verify_bytes(&fork.to_bytes().unwrap(), Cpu::M68000, true).unwrap();
        assert_eq!(rules(&r), [Rule::BadBranchTarget]);
        // Code the verifier cannot place is refused.
        let mut fork = app_fork(&[NOP, RTS]);
        fork.add(Resource::new(*b"CODE", 2, vec![0x4E, 0x75]));
        assert!(verify_bytes(&fork.to_bytes().unwrap(), Cpu::M68000, true).is_err());
    }
}
