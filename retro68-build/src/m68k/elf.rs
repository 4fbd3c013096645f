//! Reading the `.text` section and its function symbols out of a linked ELF
//! file, for [`verify`](super::verify::verify).

use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

use super::decode::Cpu;
use super::verify::{Symbol, VerifyReport, verify};

/// The `.text` section of an ELF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfText {
    /// Link address of `.text`.
    pub addr: u32,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Function (and other text) symbols inside it, sorted by address.
    pub symbols: Vec<Symbol>,
}

/// Why an ELF file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    /// The `object` crate could not parse it.
    #[error("cannot parse ELF: {0}")]
    Parse(#[from] object::Error),
    /// It has no `.text` section.
    #[error("ELF file has no .text section")]
    NoText,
}

/// Extracts `.text` and its symbols from an ELF image.
pub fn read_elf_text(elf: &[u8]) -> Result<ElfText, ElfError> {
    let file = object::File::parse(elf)?;
    let section = file.section_by_name(".text").ok_or(ElfError::NoText)?;
    let index = section.index();
    let mut symbols: Vec<Symbol> = file
        .symbols()
        .filter(|s| s.section_index() == Some(index))
        .filter(|s| {
            matches!(
                s.kind(),
                SymbolKind::Text | SymbolKind::Label | SymbolKind::Unknown
            )
        })
        .filter_map(|s| {
            let name = s.name().ok()?;
            // Mapping symbols and local labels are not function starts.
            if name.is_empty() || name.starts_with(".L") || name.starts_with('$') {
                return None;
            }
            Some(Symbol {
                name: name.to_string(),
                addr: s.address() as u32,
                size: s.size() as u32,
            })
        })
        .collect();
    symbols.sort_by_key(|s| (s.addr, s.name.clone()));
    Ok(ElfText {
        addr: section.address() as u32,
        bytes: section.data()?.to_vec(),
        symbols,
    })
}

/// Verifies the `.text` section of a linked ELF image for `cpu`.
pub fn verify_elf(elf: &[u8], cpu: Cpu) -> Result<VerifyReport, ElfError> {
    let text = read_elf_text(elf)?;
    Ok(verify(&text.bytes, text.addr, cpu, &text.symbols))
}
