//! Helpers for tests that use hand-assembled 68k code.

use ferrite_shared::flat::{Export, FlatImage, encode_relocs};

/// Big-endian bytes of 16-bit words.
pub fn words_to_bytes(words: &[u16]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// A flat image from code words, relocation offsets (bytes, ascending), exports
/// `(name, byte offset)` and a bss length. Target CPU 0 (unspecified); the whole image counts
/// as code.
pub fn flat_image(
    words: &[u16],
    relocs: &[u32],
    exports: &[(&str, u32)],
    bss_len: u32,
) -> FlatImage {
    FlatImage {
        image: words_to_bytes(words),
        bss_len,
        relocs: encode_relocs(relocs).expect("relocation offsets are even and ascending"),
        exports: exports
            .iter()
            .map(|(n, o)| Export {
                name: (*n).into(),
                offset: *o,
            })
            .collect(),
        cpu: 0,
        code_len: (words.len() * 2) as u32,
    }
}
