//! Every opcode word, with several kinds of extension words, decodes without
//! panicking, to a self-consistent instruction; every truncation of it is
//! reported as truncated; and the verifier survives arbitrary bytes.

use retro68_build::m68k::{Cpu, DecodeError, Kind, decode, verify};

/// Extension-word fillers: zeros, ones, full-format-looking words, random.
fn fillers() -> Vec<[u16; 10]> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u16
    };
    let mut v = vec![
        [0u16; 10],
        [0xFFFF; 10],
        [0x0170; 10],
        [0x8000; 10],
        [0x0133; 10],
    ];
    for _ in 0..3 {
        v.push(std::array::from_fn(|_| rnd()));
    }
    v
}

#[test]
fn every_opcode_word_decodes_consistently() {
    let mut decoded = 0usize;
    let mut max_len = 0usize;
    for filler in fillers() {
        for op in 0..=u16::MAX {
            let mut code = op.to_be_bytes().to_vec();
            code.extend(filler.iter().flat_map(|w| w.to_be_bytes()));
            let insn = match decode(&code, 0, 0x1000) {
                Ok(i) => i,
                Err(DecodeError::Unknown { word }) => {
                    assert_eq!(word, op);
                    continue;
                }
                Err(e) => panic!("{op:#06x}: {e}"),
            };
            decoded += 1;
            max_len = max_len.max(insn.len);
            assert_eq!(insn.len, insn.words.len() * 2, "{op:#06x}");
            assert_eq!(insn.words[0], op);
            assert!(
                (2..=22).contains(&insn.len),
                "{op:#06x}: {} bytes",
                insn.len
            );
            assert!(!insn.text.is_empty() && insn.text.starts_with(&insn.mnemonic));
            assert_eq!(insn.addr, 0x1000);
            if let Kind::Bra(_) | Kind::Bsr(_) | Kind::Bcc(..) | Kind::DBcc(_) = insn.kind {
                assert!(insn.flow.target.is_some(), "{op:#06x}");
            }
            if matches!(insn.kind, Kind::ALineTrap(_)) {
                assert_eq!((insn.len, insn.min_cpu), (2, Cpu::M68000));
            }
            if op >> 12 == 0xF {
                assert!(insn.min_cpu >= Cpu::M68020, "{op:#06x}: F-line on a 68000");
            }
            // Every shorter prefix is reported as truncated, never misread.
            for cut in (0..insn.len).step_by(2) {
                match decode(&code[..cut], 0, 0x1000) {
                    Err(DecodeError::Truncated { offset: 0, .. }) => {}
                    other => panic!("{op:#06x} cut to {cut} bytes: {other:?}"),
                }
            }
            // Decoding does not depend on the offset in the buffer.
            let mut shifted = vec![0x4E, 0x71];
            shifted.extend(&code);
            let again = decode(&shifted, 2, 0x1000).unwrap();
            assert_eq!(again, insn);
        }
    }
    assert!(decoded > 400_000, "{decoded}");
    assert_eq!(max_len, 22);
}

#[test]
fn verifier_survives_random_bytes() {
    let mut x: u64 = 0xDEAD_BEEF_CAFE_F00D;
    for round in 0..200 {
        let len = 1 + round * 7;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for cpu in [Cpu::M68000, Cpu::M68040] {
            let r = verify(&bytes, 0x4000, cpu, &[]);
            for f in &r.findings {
                assert!(f.addr >= 0x4000 && f.addr < 0x4000 + len as u32, "{f}");
            }
        }
    }
}
