//! Reading linked m68k ELF files (GNU ld output with `-q`, relocations kept) with the
//! `object` crate, and turning a flat-linked one into a [`FlatImage`].

use anyhow::{Context, Result, bail};
use ferrite_shared::flat::{Export, FlatImage, encode_relocs};
use object::elf;
use object::read::elf::{ElfFile32, FileHeader};
use object::{
    Endianness, Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget,
    SectionKind, SymbolKind, SymbolSection,
};

/// A function symbol: name, address, size in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuncSymbol {
    pub name: String,
    pub addr: u32,
    pub size: u32,
}

/// The parts of a linked ELF the pipeline needs.
#[derive(Debug, Clone)]
pub struct Linked {
    /// Bytes of every allocated PROGBITS section, laid out from `base`; gaps zero.
    pub image: Vec<u8>,
    /// Address of `image[0]`.
    pub base: u32,
    /// Length of `.text` at the start of the image.
    pub code_len: u32,
    /// Zero-initialised bytes after the image.
    pub bss_len: u32,
    /// Image offsets of `R_68K_32` relocations against symbols inside the image.
    pub abs32: Vec<u32>,
    /// Function symbols inside `.text`.
    pub functions: Vec<FuncSymbol>,
    /// Every defined, named symbol (name → address).
    pub symbols: Vec<(String, u32)>,
    /// Data objects inside `.text` (`.type x,@object` with a `.size`): `[start, end)`
    /// addresses, e.g. the driver's DRVR header. Not decoded as instructions.
    pub text_objects: Vec<(u32, u32)>,
    /// File offset of `.text` (to patch the ELF in place).
    pub text_file_offset: u64,
    /// The PC-relative relocations `ld -q` kept, all inside `.text` (elsewhere they are an
    /// error): the linker resolved them, but a relayout must re-encode each one, so
    /// [`Linked::check_pc_relative`] requires every one to be the PC-relative field of an
    /// instruction that reaches its target.
    pub pc_relative: Vec<PcRelative>,
}

/// A PC-relative relocation in `.text` (addresses as linked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcRelative {
    /// Address of the relocated field.
    pub addr: u32,
    /// Its size in bytes (1, 2 or 4).
    pub size: u8,
    /// Symbol + addend: the field holds this minus `addr` (for a branch, the target is
    /// this plus the distance from `addr` back to the opcode word's end).
    pub target: u32,
}

fn demangle(name: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(name))
}

/// Read a linked, executable m68k ELF.
pub fn read_linked(data: &[u8]) -> Result<Linked> {
    let file: ElfFile32<Endianness> = ElfFile32::parse(data).context("not a 32-bit ELF file")?;
    let header = file.elf_header();
    let endian = header.endian().context("bad ELF endianness")?;
    if header.e_machine(endian) != elf::EM_68K {
        bail!(
            "ELF is not for the 68k (e_machine {})",
            header.e_machine(endian)
        );
    }

    // Allocated sections in address order.
    let mut alloc: Vec<_> = file
        .sections()
        .filter(|s| s.address() != 0 || s.size() != 0)
        .filter(|s| {
            matches!(
                s.kind(),
                SectionKind::Text
                    | SectionKind::Data
                    | SectionKind::ReadOnlyData
                    | SectionKind::ReadOnlyString
                    | SectionKind::UninitializedData
                    | SectionKind::ReadOnlyDataWithRel
            )
        })
        .filter(|s| s.size() > 0)
        .collect();
    alloc.sort_by_key(|s| s.address());
    let text = file.section_by_name(".text").context("no .text section")?;
    let base = text.address() as u32;
    if alloc.first().map(|s| s.address()) != Some(text.address()) {
        bail!("the linker script must put .text first");
    }
    let mut image = Vec::new();
    let mut bss_end = 0u64;
    let mut seen_bss = false;
    for s in &alloc {
        let name = s.name().unwrap_or("?");
        let start = s.address() - base as u64;
        let end = start + s.size();
        if s.kind() == SectionKind::UninitializedData {
            seen_bss = true;
            bss_end = bss_end.max(end);
            continue;
        }
        if seen_bss {
            bail!("section {name} follows .bss; the linker script must put .bss last");
        }
        if (start as usize) < image.len() {
            bail!("section {name} overlaps the one before it");
        }
        image.resize(start as usize, 0);
        image.extend_from_slice(s.data().with_context(|| format!("reading {name}"))?);
        debug_assert_eq!(image.len() as u64, end);
    }
    let bss_len = bss_end.saturating_sub(image.len() as u64) as u32;

    let mut abs32 = Vec::new();
    let mut pc_relative = Vec::new();
    let text_range = text.address()..text.address() + text.size();
    for s in file.sections() {
        for (offset, reloc) in s.relocations() {
            let RelocationFlags::Elf { r_type } = reloc.flags() else {
                bail!("unexpected relocation kind in {}", s.name().unwrap_or("?"));
            };
            // With -q the section data already holds the final value; what matters is
            // whether the value depends on the load address.
            let mut target_addr = None;
            let target_is_absolute = match reloc.target() {
                RelocationTarget::Symbol(idx) => {
                    let sym = file.symbol_by_index(idx)?;
                    target_addr = Some(sym.address().wrapping_add(reloc.addend() as u64) as u32);
                    match sym.section() {
                        SymbolSection::Absolute => true,
                        SymbolSection::Undefined => {
                            bail!(
                                "undefined symbol `{}` in the linked image",
                                sym.name().unwrap_or("?")
                            )
                        }
                        _ => false,
                    }
                }
                RelocationTarget::Section(_) => false,
                RelocationTarget::Absolute => true,
                _ => bail!("unexpected relocation target"),
            };
            // r_offset of an executable's relocation is a virtual address.
            let addr = offset as u32;
            match r_type {
                elf::R_68K_NONE => {}
                elf::R_68K_PC32 | elf::R_68K_PC16 | elf::R_68K_PC8 => {
                    let size = match r_type {
                        elf::R_68K_PC32 => 4,
                        elf::R_68K_PC16 => 2,
                        _ => 1,
                    };
                    if !text_range.contains(&(addr as u64)) {
                        bail!(
                            "a PC-relative relocation at {addr:#x} (in {}) lies outside .text: \
                             nothing would keep it right when the build re-lays the code \
                             (use an absolute address, which the loader relocates)",
                            s.name().unwrap_or("?")
                        );
                    }
                    let Some(target) = target_addr else {
                        bail!("the PC-relative relocation at {addr:#x} has no symbol");
                    };
                    pc_relative.push(PcRelative { addr, size, target });
                }
                elf::R_68K_32 if !target_is_absolute => {
                    let off = addr.wrapping_sub(base);
                    if off as usize + 4 > image.len() {
                        bail!("R_68K_32 at {addr:#x} lies outside the image (in bss?)");
                    }
                    abs32.push(off);
                }
                elf::R_68K_32 | elf::R_68K_16 | elf::R_68K_8 if target_is_absolute => {}
                elf::R_68K_16 | elf::R_68K_8 => bail!(
                    "a {}-bit absolute relocation at {addr:#x} cannot be relocated at load time \
                     (the image must use 32-bit absolute or PC-relative addressing)",
                    if r_type == elf::R_68K_16 { 16 } else { 8 }
                ),
                other => bail!("unsupported relocation type {other} at {addr:#x}"),
            }
        }
    }
    abs32.sort_unstable();
    abs32.dedup();

    let mut functions = Vec::new();
    let mut symbols = Vec::new();
    let mut text_objects = Vec::new();
    for sym in file.symbols() {
        let Ok(name) = sym.name() else { continue };
        if name.is_empty() || sym.is_undefined() {
            continue;
        }
        symbols.push((name.to_string(), sym.address() as u32));
        if sym.kind() == SymbolKind::Data && sym.size() > 0 && text_range.contains(&sym.address()) {
            text_objects.push((sym.address() as u32, (sym.address() + sym.size()) as u32));
        }
        if sym.kind() == SymbolKind::Text && text_range.contains(&sym.address()) {
            functions.push(FuncSymbol {
                name: demangle(name),
                addr: sym.address() as u32,
                size: sym.size() as u32,
            });
        }
    }
    functions.sort_by(|a, b| a.addr.cmp(&b.addr).then(a.name.cmp(&b.name)));
    functions.dedup_by_key(|f| f.addr);
    symbols.sort();
    text_objects.sort_unstable();

    let (text_file_offset, _) = text.file_range().context(".text has no file data")?;
    Ok(Linked {
        image,
        base,
        code_len: text.size() as u32,
        bss_len,
        abs32,
        functions,
        symbols,
        text_objects,
        text_file_offset,
        pc_relative,
    })
}

impl Linked {
    /// The image as the relayout and repair passes read it, with `functions` (the
    /// verifier's form of [`Linked::functions`]) as decoding restart points.
    pub fn as_image<'a>(
        &'a self,
        functions: &'a [crate::m68k::Symbol],
    ) -> crate::m68k::LinkedImage<'a> {
        crate::m68k::LinkedImage {
            image: &self.image,
            base: self.base,
            code_len: self.code_len,
            bss_len: self.bss_len,
            abs32: &self.abs32,
            functions,
        }
    }

    /// Check that each PC-relative relocation in `[from, code_len)` is the displacement of
    /// an instruction (decoded from `from`, restarting at the function symbols) that has a
    /// PC-relative operand, and, for a branch, reaches the relocation's target; each one in
    /// `[0, from)` (a part the build does not re-lay) must point into `[0, from)` too.
    pub fn check_pc_relative(&self, from: u32) -> Result<()> {
        let end = self.base + self.code_len;
        let start = self.base + from;
        let symbols: Vec<crate::m68k::Symbol> = self
            .functions
            .iter()
            .map(|f| crate::m68k::Symbol {
                name: f.name.clone(),
                addr: f.addr,
                size: f.size,
            })
            .collect();
        let code = &self.image[from as usize..self.code_len as usize];
        let insns = crate::m68k::verify::sweep(code, start, &symbols).insns;
        for r in &self.pc_relative {
            if r.addr < start {
                if r.target.wrapping_add(2) > start {
                    bail!(
                        "the PC-relative relocation at {:#x} reaches {:#x}, past the part the \
                         build does not re-lay (it ends at {start:#x})",
                        r.addr,
                        r.target
                    );
                }
                continue;
            }
            if r.addr >= end {
                bail!(
                    "the PC-relative relocation at {:#x} lies past the code",
                    r.addr
                );
            }
            let i = insns.partition_point(|i| i.end() <= r.addr);
            let ok = insns.get(i).is_some_and(|insn| {
                let field_end = r.addr + r.size as u32;
                // A short branch's displacement is the opcode word's low byte.
                insn.addr + if r.size == 1 { 1 } else { 2 } <= r.addr
                    && field_end <= insn.end()
                    && match insn.flow.target {
                        // The field holds target − field address (the linker's S + A − P);
                        // the CPU adds it to the address after the opcode word.
                        Some(t) => t == r.target.wrapping_sub(r.addr).wrapping_add(insn.addr + 2),
                        None => insn.text.contains("%pc"),
                    }
            });
            if !ok {
                bail!(
                    "the PC-relative relocation at {:#x} (to {:#x}) is not the displacement of an \
                     instruction that reaches it: a relayout would leave it wrong",
                    r.addr,
                    r.target
                );
            }
        }
        Ok(())
    }

    /// Address of a defined symbol.
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.symbols
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| *a)
    }

    /// Make the flat container, exporting `exports` (each must be defined).
    pub fn to_flat(&self, exports: &[&str], cpu: u32) -> Result<FlatImage> {
        if self.base != 0 {
            bail!(
                "a flat image must be linked at address 0 (this one starts at {:#x})",
                self.base
            );
        }
        let mut ex = Vec::new();
        for name in exports {
            let addr = self
                .symbol(name)
                .with_context(|| format!("exported symbol `{name}` is not defined in the image"))?;
            ex.push(Export {
                name: (*name).to_string(),
                offset: addr,
            });
        }
        Ok(FlatImage {
            image: self.image.clone(),
            bss_len: self.bss_len,
            relocs: encode_relocs(&self.abs32).map_err(|e| anyhow::anyhow!("{e}"))?,
            exports: ex,
            cpu,
            code_len: self.code_len,
        })
    }
}

/// Write a minimal static m68k executable: one loadable RWX segment at `base` holding
/// `image` (text first, `code_len` bytes of it) followed by `bss_len` zero bytes, with
/// section headers for `.text`, `.data`, `.bss` so that `read_linked` and objdump can read it.
/// Used for the QEMU test executables after the relayout pass has changed their size.
pub fn write_exec(image: &[u8], base: u32, code_len: u32, bss_len: u32, entry: u32) -> Vec<u8> {
    const EHDR: usize = 52;
    const PHDR: usize = 32;
    const SHDR: usize = 40;
    const BODY: usize = 0x2000; // file offset ≡ base (mod the 8 KB m68k page size)
    let shstrtab: &[u8] = b"\0.text\0.data\0.bss\0.shstrtab\0";
    let (n_text, n_data, n_bss, n_shstr) = (1u32, 7u32, 13u32, 18u32);
    let image_len = image.len() as u32;
    let data_len = image_len - code_len;
    let shstr_off = BODY + image.len();
    let shoff = (shstr_off + shstrtab.len() + 3) & !3;

    let mut out = vec![0u8; BODY];
    let put16 =
        |o: &mut Vec<u8>, at: usize, v: u16| o[at..at + 2].copy_from_slice(&v.to_be_bytes());
    let put32 =
        |o: &mut Vec<u8>, at: usize, v: u32| o[at..at + 4].copy_from_slice(&v.to_be_bytes());
    out[0..4].copy_from_slice(b"\x7fELF");
    out[4] = 1; // ELFCLASS32
    out[5] = 2; // ELFDATA2MSB
    out[6] = 1; // EV_CURRENT
    put16(&mut out, 16, 2); // ET_EXEC
    put16(&mut out, 18, elf::EM_68K);
    put32(&mut out, 20, 1);
    put32(&mut out, 24, entry);
    put32(&mut out, 28, EHDR as u32); // e_phoff
    put32(&mut out, 32, shoff as u32);
    put16(&mut out, 40, EHDR as u16);
    put16(&mut out, 42, PHDR as u16);
    put16(&mut out, 44, 1);
    put16(&mut out, 46, SHDR as u16);
    put16(&mut out, 48, 5);
    put16(&mut out, 50, 4); // e_shstrndx
    // PT_LOAD
    let ph = EHDR;
    put32(&mut out, ph, 1);
    put32(&mut out, ph + 4, BODY as u32);
    put32(&mut out, ph + 8, base);
    put32(&mut out, ph + 12, base);
    put32(&mut out, ph + 16, image_len);
    put32(&mut out, ph + 20, image_len + bss_len);
    put32(&mut out, ph + 24, 7); // R W X
    put32(&mut out, ph + 28, BODY as u32);

    out.extend_from_slice(image);
    out.extend_from_slice(shstrtab);
    out.resize(shoff + 5 * SHDR, 0);
    let mut sh =
        |i: usize, name: u32, ty: u32, flags: u32, addr: u32, off: u32, size: u32, align: u32| {
            let at = shoff + i * SHDR;
            put32(&mut out, at, name);
            put32(&mut out, at + 4, ty);
            put32(&mut out, at + 8, flags);
            put32(&mut out, at + 12, addr);
            put32(&mut out, at + 16, off);
            put32(&mut out, at + 20, size);
            put32(&mut out, at + 32, align);
        };
    let body = BODY as u32;
    sh(
        1,
        n_text,
        elf::SHT_PROGBITS,
        elf::SHF_ALLOC | elf::SHF_EXECINSTR,
        base,
        body,
        code_len,
        2,
    );
    sh(
        2,
        n_data,
        elf::SHT_PROGBITS,
        elf::SHF_ALLOC | elf::SHF_WRITE,
        base + code_len,
        body + code_len,
        data_len,
        4,
    );
    sh(
        3,
        n_bss,
        elf::SHT_NOBITS,
        elf::SHF_ALLOC | elf::SHF_WRITE,
        base + image_len,
        body + image_len,
        bss_len,
        4,
    );
    sh(
        4,
        n_shstr,
        elf::SHT_STRTAB,
        0,
        0,
        shstr_off as u32,
        shstrtab.len() as u32,
        1,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_exec_round_trips_through_read_linked() {
        let image = [0x4E, 0x71, 0x4E, 0x75, 1, 2, 3, 4];
        let bytes = write_exec(&image, 0x80000, 4, 12, 0x80000);
        let l = read_linked(&bytes).unwrap();
        assert_eq!(l.base, 0x80000);
        assert_eq!(l.image, image);
        assert_eq!(l.code_len, 4);
        assert_eq!(l.bss_len, 12);
        assert!(l.abs32.is_empty());
    }
}
