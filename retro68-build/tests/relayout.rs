//! The post-link relayout and the flag-hazard repair, on hand-assembled
//! samples (encodings checked with `m68k-linux-gnu-as -m68000`) and, when it
//! has been built, on the codegen suite.

use retro68_build::m68k::{
    Cpu, Edit, Kind, LinkedImage, Piece, Rule, Symbol, decode, hazards, legalize, relayout,
    repair_flag_hazards, verify,
};
use retro68_build::pipeline::REPAIR_MAX_GAP;

fn code(words: &[u16]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn rd32(b: &[u8], off: u32) -> u32 {
    u32::from_be_bytes(b[off as usize..off as usize + 4].try_into().unwrap())
}

/// Decodes the text linearly: (addr, insn).
fn insns(text: &[u8], base: u32) -> Vec<retro68_build::m68k::Insn> {
    let mut out = Vec::new();
    let mut off = 0;
    while off < text.len() {
        let i = decode(text, off, base + off as u32).expect("decodes");
        off += i.len;
        out.push(i);
    }
    out
}

/// The real codegen suite: legalize, repair, verify again, check the mapping.
#[test]
#[ignore = "needs m68k artifacts: run `cargo xtask test`"]
fn codegen_suite() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = root.join("target/m68k-build/standard/codegen-suite.elf");
    let data = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `cargo xtask test`, which builds it",
            path.display()
        )
    });
    let mut l = retro68_build::elf::read_linked(&data).unwrap();
    let cl = l.code_len as usize;
    let leg = legalize(&mut l.image[..cl], l.base, Cpu::M68000).unwrap();
    l.abs32.extend(leg.new_abs32.iter().map(|&a| a - l.base));
    l.abs32.sort_unstable();
    let syms: Vec<Symbol> = l
        .functions
        .iter()
        .map(|f| Symbol {
            name: f.name.clone(),
            addr: f.addr,
            size: f.size,
        })
        .collect();
    let before = verify(&l.image[..cl], l.base, Cpu::M68000, &syms);
    let n_before = before.with_rule(Rule::FlagHazard).count();
    let gap: usize = std::env::var("RELAYOUT_MAX_GAP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(REPAIR_MAX_GAP);
    let (r, rep) = repair_flag_hazards(l.as_image(&syms), gap).unwrap();
    let new_syms: Vec<Symbol> = syms
        .iter()
        .map(|s| Symbol {
            name: s.name.clone(),
            addr: r.map(s.addr),
            size: 0,
        })
        .collect();
    let after = verify(
        &r.image[..r.code_len as usize],
        l.base,
        Cpu::M68000,
        &new_syms,
    );
    let n_after = after.with_rule(Rule::FlagHazard).count();
    eprintln!(
        "codegen suite: {n_before} hazards; repaired {}, unrepaired {}; after: {n_after} \
         hazards; text {} -> {} (+{}, shift {}), widened {}\nbefore: {}\nafter: {}",
        rep.repaired.len(),
        rep.unrepaired.len(),
        l.code_len,
        r.code_len,
        rep.growth,
        r.shift,
        r.widened,
        before.summary(),
        after.summary()
    );
    eprintln!("{rep}");
    assert_eq!(n_after, rep.unrepaired.len());
    assert!(r.abs32.len() >= l.abs32.len());
    // Every branch of an instruction that is still the same kind of
    // instruction lands on the relocated target.
    let old_text = &l.image[..cl];
    let new_text = &r.image[..r.code_len as usize];
    let mut checked = 0;
    for i in insns(old_text, l.base)
        .iter()
        .filter(|i| i.flow.target.is_some())
    {
        let a = r.map(i.addr);
        let n = decode(new_text, (a - l.base) as usize, a).unwrap();
        if std::mem::discriminant(&n.kind) == std::mem::discriminant(&i.kind) {
            let t = i.flow.target.unwrap();
            assert_eq!(n.flow.target, Some(r.map(t)), "{} at {:#x}", i.text, i.addr);
            checked += 1;
        }
    }
    eprintln!("{checked} branches checked");
    // Everything but flag hazards is unchanged.
    let others = |v: &retro68_build::m68k::VerifyReport| {
        v.findings
            .iter()
            .filter(|f| f.rule != Rule::FlagHazard)
            .count()
    };
    assert_eq!(others(&before), others(&after), "{after}");
    // Every relocated value maps.
    for (&o, &n) in l
        .abs32
        .iter()
        .filter(|&&o| o >= l.code_len)
        .zip(r.abs32.iter().filter(|&&n| n >= r.code_len))
    {
        assert_eq!(n, o + r.shift);
        assert_eq!(rd32(&r.image, n), r.map(rd32(&l.image, o)));
    }
    // Data bytes other than relocations are unchanged.
    assert_eq!(r.image.len() as u32, l.image.len() as u32 + r.shift);
}

const BASE: u32 = 0x1000;

/// `s.s` in the module docs of the tests below, assembled with
/// `m68k-linux-gnu-as -m68000` and linked with `ld -q -Ttext=0x1000`:
///
/// ```text
/// 1000 f:      moveq #0,%d0
/// 1002 1:      addq.l #1,%d0
/// 1004         cmp.l #10,%d0
/// 100a         bcs.s 1b                  | backward loop, no hazard
/// 100c         bra.s 3f                  | forward across the insertion point
/// 100e         nop
/// 1010 memset_loop: move.l %d0,(%a1)+
/// 1012         sub.l #16,%d1
/// 1018         move.b %d0,%d4            | hazard
/// 101a         bcs.s memset_loop
/// 101c 3:      lea (table,%pc),%a0       | into rodata
/// 1020         move.w (2,%a0),%d2
/// 1024         add.w %d2,%d2
/// 1026         jmp (2,%pc,%d2.w)         | (d8,pc,Xn) into the bra table
/// 102a         bra.w case0
/// 102e         bra.w case1
/// 1032 case0:  moveq #1,%d3
/// 1034         rts
/// 1036 case1:  move.l (jt,%pc),%a2       | into the absolute jump table
/// 103a         jmp (%a2)
/// 103c g:      cmp.l %d1,%d0
/// 103e         move.l %d6,%d7            | hazard, beq.w
/// 1040         beq.w g
/// 1044         move.l #f,%d5             | absolute relocation in text
/// 104a         rts
/// 104c table:  .short 1,2,3,4            (.rodata)
/// 1054 jt:     .long case0, case1, g
/// ```
const SAMPLE: [u16; 48] = [
    0x7000, 0x5280, 0x0c80, 0x0000, 0x000a, 0x65f6, 0x600e, 0x4e71, 0x22c0, 0x0481, 0x0000, 0x0010,
    0x1800, 0x65f4, 0x41fa, 0x002e, 0x3428, 0x0002, 0xd442, 0x4efb, 0x2002, 0x6000, 0x0006, 0x6000,
    0x0006, 0x7601, 0x4e75, 0x247a, 0x001c, 0x4ed2, 0xb081, 0x2e06, 0x6700, 0xfffa, 0x2a3c, 0x0000,
    0x1000, 0x4e75, 0x0001, 0x0002, 0x0003, 0x0004, 0x0000, 0x1032, 0x0000, 0x1036, 0x0000, 0x103c,
];
const SAMPLE_CODE_LEN: u32 = 0x4c;
const SAMPLE_ABS32: [u32; 4] = [0x46, 0x54, 0x58, 0x5c];

fn sample_syms() -> Vec<Symbol> {
    vec![
        Symbol {
            name: "f".into(),
            addr: 0x1000,
            size: 0x3c,
        },
        Symbol {
            name: "g".into(),
            addr: 0x103c,
            size: 0x10,
        },
    ]
}

/// The target of the PC-relative EA whose extension word is word `k` of the
/// instruction at `addr` (`short`: brief-format index word).
fn ea_target(image: &[u8], addr: u32, k: u32, short: bool) -> u32 {
    let off = (addr - BASE + 2 * k) as usize;
    let w = u16::from_be_bytes([image[off], image[off + 1]]);
    let d = if short {
        i32::from(w as u8 as i8)
    } else {
        i32::from(w as i16)
    };
    (addr + 2 * k).wrapping_add(d as u32)
}

#[test]
fn sample_is_what_the_verifier_sees() {
    let image = code(&SAMPLE);
    let v = verify(
        &image[..SAMPLE_CODE_LEN as usize],
        BASE,
        Cpu::M68000,
        &sample_syms(),
    );
    let found: Vec<(u32, Rule)> = v.findings.iter().map(|f| (f.addr, f.rule)).collect();
    assert_eq!(
        found,
        vec![(0x101a, Rule::FlagHazard), (0x1040, Rule::FlagHazard)],
        "{v}"
    );
    assert_eq!(
        hazards(&image[..SAMPLE_CODE_LEN as usize], BASE, &sample_syms()),
        vec![(0x1018, 0x101a), (0x103e, 0x1040)]
    );
}

#[test]
fn sample_repair() {
    let image = code(&SAMPLE);
    let old = insns(&image[..SAMPLE_CODE_LEN as usize], BASE);
    let (r, rep) = repair_flag_hazards(
        LinkedImage {
            image: &image,
            base: BASE,
            code_len: SAMPLE_CODE_LEN,
            bss_len: 0,
            abs32: &SAMPLE_ABS32,
            functions: &sample_syms(),
        },
        0,
    )
    .unwrap();
    assert_eq!(rep.repaired, vec![(0x1018, 0x101a), (0x103e, 0x1040)]);
    assert!(rep.unrepaired.is_empty());
    let text = &r.image[..r.code_len as usize];
    let new_syms: Vec<Symbol> = sample_syms()
        .iter()
        .map(|s| Symbol {
            name: s.name.clone(),
            addr: r.map(s.addr),
            size: 0,
        })
        .collect();
    let v = verify(text, BASE, Cpu::M68000, &new_syms);
    assert!(v.is_clean(), "{v}");
    for i in insns(text, BASE) {
        eprintln!("{:#x}: {}", i.addr, i.text);
    }
    // Data alignment kept, rodata moved intact.
    assert_eq!(r.shift % 4, 0);
    assert_eq!(r.code_len, SAMPLE_CODE_LEN + r.shift);
    assert_eq!(
        &r.image[r.code_len as usize..][..8],
        &image[SAMPLE_CODE_LEN as usize..][..8]
    );
    assert_eq!(r.map(0x104c), 0x104c + r.shift);
    assert_eq!(r.map(0x1000), 0x1000);
    assert_eq!(r.map(0x0fff), 0x0fff);

    // Every branch of an untouched instruction lands on the relocated target.
    let new_at = |a: u32| decode(text, (a - BASE) as usize, a).unwrap();
    for i in &old {
        if [0x1018, 0x101a, 0x103e, 0x1040].contains(&i.addr) {
            continue;
        }
        let n = new_at(r.map(i.addr));
        assert_eq!(
            n.mnemonic.split('.').next(),
            i.mnemonic.split('.').next(),
            "{} vs {}",
            i.text,
            n.text
        );
        if let Some(t) = i.flow.target {
            assert_eq!(
                n.flow.target,
                Some(r.map(t)),
                "{} at {:#x} -> {}",
                i.text,
                i.addr,
                n.text
            );
        }
    }
    // PC-relative EAs.
    assert_eq!(ea_target(&r.image, r.map(0x101c), 1, false), r.map(0x104c)); // lea table
    assert_eq!(ea_target(&r.image, r.map(0x1026), 1, true), r.map(0x102a)); // jmp (d8,pc,d2.w)
    assert_eq!(ea_target(&r.image, r.map(0x1036), 1, false), r.map(0x1054)); // move.l jt
    // Absolute relocations: same count, each moved and pointing at the relocated target.
    assert_eq!(r.abs32.len(), 4);
    assert_eq!(r.abs32[0], r.map(0x1044) + 2 - BASE);
    for (&o, &n) in SAMPLE_ABS32.iter().zip(&r.abs32) {
        assert_eq!(
            rd32(&r.image, n),
            r.map(rd32(&image, o)),
            "reloc {o:#x} -> {n:#x}"
        );
    }
    assert_eq!(rd32(&r.image, r.abs32[1]), r.map(0x1032));
    assert_eq!(rd32(&r.image, r.abs32[3]), r.map(0x103c));

    // The repaired sites: `bcs T' ; move.b %d0,%d4`, T' = `move.b %d0,%d4 ; bra memset_loop`.
    for (m, c, copy) in [
        (0x1018, 0x101a, "move.b %d0,%d4"),
        (0x103e, 0x1040, "move.l %d6,%d7"),
    ] {
        let old_c = decode(&image, (c - BASE) as usize, c).unwrap();
        let b = new_at(r.map(m));
        assert!(matches!(b.kind, Kind::Bcc(..)), "{}", b.text);
        assert_eq!(b.cond(), old_c.cond());
        assert_eq!(new_at(b.end()).text, copy);
        let t = b.flow.target.unwrap();
        assert_eq!(new_at(t).text, copy);
        let back = new_at(new_at(t).end());
        assert!(matches!(back.kind, Kind::Bra(_)), "{}", back.text);
        assert_eq!(back.flow.target, Some(r.map(old_c.flow.target.unwrap())));
        // Trampoline after the function (f ends at 0x103c, g at the end of text).
        let f_end = if m < 0x103c {
            r.map(0x103c)
        } else {
            r.code_len + BASE
        };
        assert!(t < f_end && t > r.map(c), "trampoline at {t:#x}");
    }
    // Deterministic.
    let (r2, _) = repair_flag_hazards(
        LinkedImage {
            image: &image,
            base: BASE,
            code_len: SAMPLE_CODE_LEN,
            bss_len: 0,
            abs32: &SAMPLE_ABS32,
            functions: &sample_syms(),
        },
        0,
    )
    .unwrap();
    assert_eq!(r, r2);
}

/// A `bcc.s` reaching exactly 126 bytes forward and one reaching -128
/// backward, across an insertion of 2 bytes: both must become `.w`; one that
/// does not cross stays `.s`.
#[test]
fn widening() {
    let mut w = vec![0x6700 | 126]; // 0x00: beq.s 0x80
    w.extend(std::iter::repeat_n(0x4E71, 62)); // 0x02..0x7e
    w.push(0x4E75); // 0x7e: rts; 0x80: target
    w.push(0x4E75); // 0x80: rts
    w.push(0x6600 | 0x80); // 0x82: bne.s 0x04 (-128)
    w.push(0x6602); // 0x84: bne.s 0x88
    w.push(0x4E71); // 0x86
    w.push(0x4E75); // 0x88
    let image = code(&w);
    let len = image.len() as u32;
    let edit = Edit {
        offset: 0x40,
        len: 0,
        with: vec![Piece::Bytes(vec![0x4E, 0x71])],
    };
    let r = relayout(LinkedImage::text(&image, BASE, len), &[edit]).unwrap();
    assert_eq!(r.widened, 2);
    let text = &r.image[..r.code_len as usize];
    let at = |a: u32| decode(text, (a - BASE) as usize, a).unwrap();
    let b0 = at(BASE);
    assert!(
        matches!(b0.kind, Kind::Bcc(_, retro68_build::m68k::BranchSize::Word)),
        "{}",
        b0.text
    );
    assert_eq!(b0.flow.target, Some(r.map(BASE + 0x80)));
    assert_eq!(r.map(BASE + 0x80), BASE + 0x80 + 4); // insertion + widening
    let b1 = at(r.map(BASE + 0x82));
    assert!(
        matches!(b1.kind, Kind::Bcc(_, retro68_build::m68k::BranchSize::Word)),
        "{}",
        b1.text
    );
    assert_eq!(b1.flow.target, Some(r.map(BASE + 4)));
    let b2 = at(r.map(BASE + 0x84));
    assert!(
        matches!(
            b2.kind,
            Kind::Bcc(_, retro68_build::m68k::BranchSize::Short)
        ),
        "{}",
        b2.text
    );
    assert_eq!(b2.flow.target, Some(r.map(BASE + 0x88)));
    // Growth 2 + 2 + 2 = 6, rounded to 8 with a nop.
    assert_eq!(r.shift, 8);
    assert_eq!(&text[text.len() - 2..], &[0x4E, 0x71]);
    // Without the insertion nothing changes.
    let same = relayout(LinkedImage::text(&image, BASE, len), &[]).unwrap();
    assert_eq!(same.image, image);
    assert_eq!(same.widened, 0);
}

/// A `.w` branch that no longer fits is an error, and so is a `(d8,pc,Xn)`.
#[test]
fn out_of_range() {
    let mut w = vec![0x6000, 0x7FFE]; // bra.w +32766 -> 0x8000
    w.extend(std::iter::repeat_n(0x4E71, (0x8000 - 4) / 2));
    w.push(0x4E75);
    let image = code(&w);
    let edit = Edit {
        offset: 0x10,
        len: 0,
        with: vec![Piece::Bytes(vec![0x4E, 0x71])],
    };
    let e = relayout(LinkedImage::text(&image, BASE, image.len() as u32), &[edit]).unwrap_err();
    assert!(
        matches!(e, retro68_build::m68k::RelayoutError::OutOfRange { .. }),
        "{e}"
    );

    // jmp (126,%pc,%d0.w) ; nops ; target
    let mut w = vec![0x4EFB, 0x007E];
    w.extend(std::iter::repeat_n(0x4E71, 64));
    let image = code(&w);
    let edit = Edit {
        offset: 0x10,
        len: 0,
        with: vec![Piece::Bytes(vec![0x4E, 0x71, 0x4E, 0x71])],
    };
    let e = relayout(LinkedImage::text(&image, BASE, image.len() as u32), &[edit]).unwrap_err();
    assert!(
        matches!(e, retro68_build::m68k::RelayoutError::OutOfRange { .. }),
        "{e}"
    );
}

/// DBcc and Scc repairs, and the cases left alone.
#[test]
fn dbcc_and_scc() {
    let w = [
        0xb081, 0x2e06, 0x56cb, 0xfffa, // cmp ; move.l %d6,%d7 ; dbne %d3,0  -> repaired
        0xb081, 0x2e03, 0x56cb, 0xfff2, // cmp ; move.l %d3,%d7 ; dbne %d3,0  -> counter used
        0xb081, 0x2e06, 0x57c2, // cmp ; move.l %d6,%d7 ; seq %d2 -> swapped
        0xb081, 0x2e02, 0x57c2, // cmp ; move.l %d2,%d7 ; seq %d2 -> seq %d7 ; exg %d2,%d7
        0x4e75,
    ];
    let image = code(&w);
    let len = image.len() as u32;
    let syms = [Symbol {
        name: "f".into(),
        addr: BASE,
        size: len,
    }];
    let (r, rep) = repair_flag_hazards(
        LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&image, BASE, len)
        },
        0,
    )
    .unwrap();
    assert_eq!(
        rep.repaired[..3],
        [(0x1002, 0x1004), (0x1012, 0x1014), (0x1018, 0x101a)]
    );
    // The one the reordering leaves (the DBcc counter is the copy's) is repaired by making the
    // copy flag-neutral.
    assert_eq!(rep.repaired.len(), 4, "{rep}");
    assert!(rep.unrepaired.is_empty(), "{rep}");
    let text = &r.image[..r.code_len as usize];
    let at = |a: u32| decode(text, (a - BASE) as usize, a).unwrap();
    let db = at(r.map(0x1002));
    assert_eq!(db.mnemonic, "dbne");
    assert_eq!(at(db.end()).text, "move.l %d6,%d7");
    let t = db.flow.target.unwrap();
    assert_eq!(at(t).text, "move.l %d6,%d7");
    assert_eq!(at(at(t).end()).flow.target, Some(r.map(0x1000)));
    let s = at(r.map(0x1012));
    assert_eq!(s.text, "seq %d2");
    assert_eq!(at(s.end()).text, "move.l %d6,%d7");
    let s = at(r.map(0x1018));
    assert_eq!(s.text, "seq %d7");
    assert_eq!(at(s.end()).text, "exg %d2,%d7");
    assert_eq!(at(r.map(0x100a)).text, "movem.l %d3,-(%sp)");
    let v = verify(text, BASE, Cpu::M68000, &[]);
    assert_eq!(v.with_rule(Rule::FlagHazard).count(), 0, "{v}");
}

/// Copies separated from the branch by flag-neutral instructions need
/// `max_gap`; a chain of two copies needs two passes.
#[test]
fn gaps_and_chains() {
    let w = [
        0xb081, // 0: cmp.l %d1,%d0
        0x2e06, // 2: move.l %d6,%d7
        0x2447, // 4: movea.l %d7,%a2
        0x6500, 0xfff8, // 6: bcs.w 0
        0xb081, // a: cmp.l %d1,%d0
        0x2e06, // c: move.l %d6,%d7
        0x2a04, // e: move.l %d4,%d5
        0x65ee, // 10: bcs.s 0
        0x4e75, // 12
    ];
    let image = code(&w);
    let len = image.len() as u32;
    let syms = [Symbol {
        name: "f".into(),
        addr: BASE,
        size: len,
    }];
    let (r0, rep) = repair_flag_hazards(
        LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&image, BASE, len)
        },
        0,
    )
    .unwrap();
    // The gap is left to the last pass, which makes the copy flag-neutral; the chain is
    // repaired in two passes even without a gap.
    assert!(rep.unrepaired.is_empty(), "{rep}");
    assert_eq!(rep.passes, 3);
    let text0 = &r0.image[..r0.code_len as usize];
    assert_eq!(
        decode(text0, 2, BASE + 2).unwrap().text,
        "movem.l %d6,-(%sp)"
    );
    let (r, rep) = repair_flag_hazards(
        LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&image, BASE, len)
        },
        2,
    )
    .unwrap();
    assert!(rep.unrepaired.is_empty(), "{rep}");
    assert_eq!(rep.passes, 2);
    let text = &r.image[..r.code_len as usize];
    let v = verify(text, BASE, Cpu::M68000, &[]);
    assert!(v.is_clean(), "{v}");
    let at = |a: u32| decode(text, (a - BASE) as usize, a).unwrap();
    let b = at(r.map(0x1002));
    assert_eq!(b.mnemonic, "bcs.s");
    assert_eq!(at(b.end()).text, "move.l %d6,%d7");
    assert_eq!(at(at(b.end()).end()).text, "movea.l %d7,%a2");
    let t = b.flow.target.unwrap();
    assert_eq!(at(t).text, "move.l %d6,%d7");
    assert_eq!(at(at(t).end()).text, "movea.l %d7,%a2");
    assert_eq!(at(at(at(t).end()).end()).flow.target, Some(r.map(0x1000)));
    // The chain: bcs first, then both copies in order on both paths.
    let b = at(r.map(0x100c));
    assert!(matches!(b.kind, Kind::Bcc(..)), "{}", b.text);
    assert_eq!(at(b.end()).text, "move.l %d6,%d7");
    assert_eq!(at(at(b.end()).end()).text, "move.l %d4,%d5");
    let mut p = b.flow.target.unwrap();
    let mut seen = Vec::new();
    loop {
        let i = at(p);
        if let Some(t) = i.flow.target
            && !i.flow.falls_through
        {
            if t == r.map(0x1000) {
                break;
            }
            p = t;
            continue;
        }
        seen.push(i.text.clone());
        p = i.end();
    }
    assert_eq!(seen, vec!["move.l %d6,%d7", "move.l %d4,%d5"]);
}

/// A hazard at a join: the copy of a `select` on the fall-through path
/// before an Scc and a Bcc that read the flags the branch tested.
#[test]
fn join_hazards() {
    let w = [
        0x0c06, 0x0000, // 1000: cmpi.b #0,%d6
        0x6a02, //         1004: bpl.s 1008
        0x1003, //         1006: move.b %d3,%d0   (fall-through path only)
        0x5ec7, //         1008: sgt %d7          (join)
        0x5bc4, //         100a: smi %d4
        0x4e75, //         100c: rts
        0xb081, //         100e: cmp.l %d1,%d0
        0x6502, //         1010: bcs.s 1014
        0x2203, //         1012: move.l %d3,%d1
        0x55c3, //         1014: scs %d3          (join, shares %d3)
        0x6ef6, //         1016: bgt.s 100e
        0x4e75, //         1018: rts
    ];
    let image = code(&w);
    let len = image.len() as u32;
    let syms = [Symbol {
        name: "f".into(),
        addr: BASE,
        size: len,
    }];
    let before = verify(&image, BASE, Cpu::M68000, &syms);
    assert_eq!(before.with_rule(Rule::FlagHazard).count(), 4, "{before}");
    let (r, rep) = repair_flag_hazards(
        LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&image, BASE, len)
        },
        0,
    )
    .unwrap();
    assert!(rep.unrepaired.is_empty(), "{rep}");
    let text = &r.image[..r.code_len as usize];
    let at = |a: u32| decode(text, (a - BASE) as usize, a).unwrap();
    // Fall-through path: sgt ; smi ; move.b ; bra past the run.
    let a = r.map(0x1006);
    let run: Vec<String> = (0..3)
        .scan(a, |p, _| {
            let i = at(*p);
            *p = i.end();
            Some(i.text)
        })
        .collect();
    assert_eq!(run, ["sgt %d7", "smi %d4", "move.b %d3,%d0"]);
    let bra = at(at(at(at(a).end()).end()).end());
    assert_eq!(bra.flow.target, Some(r.map(0x100c)));
    // The branch path still reaches the original run.
    assert_eq!(at(r.map(0x1004)).flow.target, Some(r.map(0x1008)));
    assert_eq!(at(r.map(0x1008)).text, "sgt %d7");
    // Second join: scs %d1 ; exg ; then the Bcc with its trampoline.
    let a = r.map(0x1012);
    assert_eq!(at(a).text, "scs %d1");
    let b = at(at(a).end());
    assert!(b.mnemonic.starts_with("bgt"), "{}", b.text);
    let e = at(b.end());
    assert_eq!(e.text, "exg %d3,%d1");
    assert_eq!(at(e.end()).flow.target, Some(r.map(0x1018)));
    let t = b.flow.target.unwrap();
    assert_eq!(at(t).text, "exg %d3,%d1");
    assert_eq!(at(at(t).end()).flow.target, Some(r.map(0x100e)));
    let after = verify(text, BASE, Cpu::M68000, &[]);
    assert_eq!(after.with_rule(Rule::FlagHazard).count(), 0, "{after}");
}

/// Seed 3 program 6 of `cargo xtask fuzz-codegen`, as linked: a compare, a byte copy, five
/// flag-neutral instructions, a long copy over the compared register, six more, then the
/// branch. The byte copy has no flag-neutral form and the long copy overwrites what the
/// compare read, so only moving both below the branch repairs it, with gaps of 5 and 6.
#[test]
fn byte_copy_and_long_copy_far_from_the_branch() {
    let w = [
        0x0c81, 0x0000, 0x0000, // 1000 cmpi.l #0,%d1
        0x1006, // 1006 move.b %d6,%d0
        0x48af, 0x0001, 0x0042, // 1008 movem.w %d0,(66,%sp)
        0x48ef, 0x0040, 0x0038, // 100e movem.l %d6,(56,%sp)
        0x3846, // 1014 movea.w %d6,%a4
        0x48ef, 0x0008, 0x0058, // 1016 movem.l %d3,(88,%sp)
        0x48ef, 0x0004, 0x0050, // 101c movem.l %d2,(80,%sp)
        0x2202, // 1022 move.l %d2,%d1
        0x4cef, 0x0004, 0x0074, // 1024 movem.l (116,%sp),%d2
        0x48ef, 0x0010, 0x0064, // 102a movem.l %d4,(100,%sp)
        0x48ef, 0x0010, 0x0044, // 1030 movem.l %d4,(68,%sp)
        0x47ef, 0x0078, // 1036 lea (120,%sp),%a3
        0x48ef, 0x0020, 0x0060, // 103a movem.l %d5,(96,%sp)
        0x48ef, 0x0080, 0x0054, // 1040 movem.l %d7,(84,%sp)
        0x6602, // 1046 bne.s 104a
        0x7001, // 1048 moveq #1,%d0
        0x4e75, // 104a rts
    ];
    let image = code(&w);
    let len = image.len() as u32;
    let v = verify(&image, BASE, Cpu::M68000, &[]);
    let found: Vec<u32> = v.with_rule(Rule::FlagHazard).map(|f| f.addr).collect();
    assert_eq!(found, vec![0x1046], "{v}");
    let syms = [Symbol {
        name: "f".into(),
        addr: BASE,
        size: len,
    }];
    let img = || LinkedImage {
        functions: &syms,
        ..LinkedImage::text(&image, BASE, len)
    };
    // The gap the pipeline used before: the hazard stays.
    let (_, rep) = repair_flag_hazards(img(), 4).unwrap();
    assert!(!rep.unrepaired.is_empty(), "{rep}");
    let (r, rep) = repair_flag_hazards(img(), REPAIR_MAX_GAP).unwrap();
    assert!(rep.unrepaired.is_empty(), "{rep}");
    let text = &r.image[..r.code_len as usize];
    let after = verify(text, BASE, Cpu::M68000, &[]);
    assert!(after.is_clean(), "{after}");
    // The branch reads the compare's flags; both paths run both copies and every spill in
    // their order, then meet again.
    let at = |a: u32| decode(text, (a - BASE) as usize, a).unwrap();
    let b = at(at(r.map(0x1000)).end());
    assert!(matches!(b.kind, Kind::Bcc(..)), "{}", b.text);
    let path = |mut p: u32| {
        let mut seen = Vec::new();
        loop {
            let i = at(p);
            if i.text == "moveq #1,%d0" || i.text == "rts" {
                seen.push(i.text.clone());
                return seen;
            }
            if let Some(t) = i.flow.target
                && !i.flow.falls_through
            {
                p = t;
                continue;
            }
            seen.push(i.text.clone());
            p = i.end();
        }
    };
    let original: Vec<String> = insns(&image[6..0x46], BASE + 6)
        .into_iter()
        .map(|i| i.text)
        .collect();
    let taken = path(b.flow.target.unwrap());
    let fall = path(b.end());
    assert_eq!(taken[..taken.len() - 1], original[..], "{taken:?}");
    assert_eq!(taken.last().unwrap(), "rts");
    assert_eq!(fall[..fall.len() - 1], original[..], "{fall:?}");
    assert_eq!(fall.last().unwrap(), "moveq #1,%d0");
}

/// Ferrite Setup's size formatting: `cmp ; bne L ; M ; L: bne T` — the second branch is a join
/// whose fall-through path reads the copy's flags. Found, repaired, and clean afterwards.
#[test]
fn consumer_at_a_branch_target() {
    let w = [
        0xb081, // 1000 cmp.l %d1,%d0
        0x6602, // 1002 bne.s 1006
        0x2609, // 1004 move.l %a1,%d3
        0x6602, // 1006 bne.s 100a
        0x2848, // 1008 movea.l %a0,%a4
        0x4e75, // 100a rts
    ];
    let image = code(&w);
    let len = image.len() as u32;
    let v = verify(&image, BASE, Cpu::M68000, &[]);
    assert_eq!(
        v.with_rule(Rule::FlagHazard)
            .map(|f| f.addr)
            .collect::<Vec<_>>(),
        vec![0x1006],
        "{v}"
    );
    let syms = [Symbol {
        name: "f".into(),
        addr: BASE,
        size: len,
    }];
    let (r, rep) = repair_flag_hazards(
        LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&image, BASE, len)
        },
        0,
    )
    .unwrap();
    assert_eq!(rep.repaired.len(), 1, "{rep:?}");
    assert!(rep.unrepaired.is_empty());
    let text = &r.image[..r.code_len as usize];
    assert!(verify(text, BASE, Cpu::M68000, &[]).is_clean());
    // The path that jumps to the join still finds its conditional there.
    let at = |a: u32| decode(text, (a - BASE) as usize, a).unwrap();
    let first = at(r.map(0x1002));
    assert_eq!(at(first.flow.target.unwrap()).mnemonic, "bne.s");
}

/// A second branch on flags already tested, reached only through copies: `or ; move ; beq L1 ;
/// move ; L1: beq` (the gap the all-ones rewrite once met). On both paths into `L1` the last
/// flag writer is a copy, behind which the `or`'s Z was already tested by a `beq`: the rule
/// reports it, the repair makes the copies flag-neutral, and the result is clean.
#[test]
fn second_branch_behind_copies_on_every_path() {
    let w = [
        0x8081, // 1000 or.l %d1,%d0
        0x2001, // 1002 move.l %d1,%d0
        0x6702, // 1004 beq.s 1008
        0x2009, // 1006 move.l %a1,%d0
        0x6702, // 1008 beq.s 100c
        0x2208, // 100a move.l %a0,%d1
        0x4e75, // 100c rts
    ];
    let image = code(&w);
    let len = image.len() as u32;
    let v = verify(&image, BASE, Cpu::M68000, &[]);
    let found: Vec<u32> = v.with_rule(Rule::FlagHazard).map(|f| f.addr).collect();
    assert!(found.contains(&0x1008), "{v}");
    let syms = [Symbol {
        name: "f".into(),
        addr: BASE,
        size: len,
    }];
    let (r, rep) = repair_flag_hazards(
        LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&image, BASE, len)
        },
        0,
    )
    .unwrap();
    assert!(rep.unrepaired.is_empty(), "{rep:?}");
    let text = &r.image[..r.code_len as usize];
    let after = verify(text, BASE, Cpu::M68000, &[]);
    assert!(after.is_clean(), "{after}");
}

/// The driver's install entry (`(bus, target, lun) = if kind == 0 { … } else { … }`): byte
/// copies on both paths into a second `beq` on the compare's Z. Byte copies have no
/// flag-neutral form; the compare only reads `%d5`, which nothing on the way names, so the
/// repair runs it again right before the `beq`, on both paths.
#[test]
fn byte_copies_before_a_retested_branch() {
    let w = [
        0x0c85, 0x0000, 0x0000, // 1000 cmpi.l #0,%d5
        0x6702, // 1006 beq.s 100a
        0x1c01, // 1008 move.b %d1,%d6
        0x1202, // 100a move.b %d2,%d1
        0x6704, // 100c beq.s 1012
        0x1403, // 100e move.b %d3,%d2
        0x1200, // 1010 move.b %d0,%d1
        0x4e75, // 1012 rts
    ];
    let image = code(&w);
    let len = image.len() as u32;
    let v = verify(&image, BASE, Cpu::M68000, &[]);
    let found: Vec<u32> = v.with_rule(Rule::FlagHazard).map(|f| f.addr).collect();
    assert_eq!(found, vec![0x100c], "{v}");
    let syms = [Symbol {
        name: "f".into(),
        addr: BASE,
        size: len,
    }];
    let (r, rep) = repair_flag_hazards(
        LinkedImage {
            functions: &syms,
            ..LinkedImage::text(&image, BASE, len)
        },
        0,
    )
    .unwrap();
    assert!(rep.unrepaired.is_empty(), "{rep:?}");
    let text = &r.image[..r.code_len as usize];
    let after = verify(text, BASE, Cpu::M68000, &[]);
    assert!(after.is_clean(), "{after}");
    // The compare again, right before the second `beq`, which both paths reach.
    let at = |a: u32| decode(text, (a - BASE) as usize, a).unwrap();
    let retest = at(r.map(0x100c));
    assert_eq!(retest.text, "cmpi.l #0,%d5");
    assert_eq!(at(retest.end()).mnemonic, "beq.s");
    assert_eq!(at(r.map(0x1006)).flow.target, Some(r.map(0x100a)));
}

/// Seed 1 program 110 of `cargo xtask fuzz-codegen`, as linked: `v2 == 0` is tested once by an
/// OR of its halves, and LLVM M68k reads those flags twice — a `seq` materializes the
/// condition for a later select and a `beq` skips the remainder call — with the phi copy
/// `move.l %a3,%d1` (the 0 of the skipped path) between them. The copy sets Z from `%a3`
/// (always 0), so the branch always skipped the call and `checked_rem` gave 0 on all five
/// targets. The verifier's walk back from the copy stopped at the `seq` (a reader of the
/// flags that is not a branch), so it reported nothing and the repair left it; an Scc on the
/// same flags is now passed like a branch on them.
#[test]
fn copy_between_an_scc_and_a_branch_on_the_same_flags() {
    let w = [
        0x97cb, // 1000 suba.l %a3,%a3
        0x8c81, // 1002 or.l %d1,%d6
        0x2a40, // 1004 movea.l %d0,%a5
        0x57c0, // 1006 seq %d0
        0x48af, 0x0001, 0x0022, // 1008 movem.w %d0,(34,%sp)
        0x220b, // 100e move.l %a3,%d1
        0x6702, // 1010 beq.s 1014
        0x7001, // 1012 moveq #1,%d0
        0x4e75, // 1014 rts
    ];
    let image = code(&w);
    let len = image.len() as u32;
    let v = verify(&image, BASE, Cpu::M68000, &[]);
    let found: Vec<u32> = v.with_rule(Rule::FlagHazard).map(|f| f.addr).collect();
    assert_eq!(found, vec![0x1010], "{v}");
    let syms = [Symbol {
        name: "f".into(),
        addr: BASE,
        size: len,
    }];
    let img = LinkedImage {
        functions: &syms,
        ..LinkedImage::text(&image, BASE, len)
    };
    let (r, rep) = repair_flag_hazards(img, REPAIR_MAX_GAP).unwrap();
    assert!(rep.unrepaired.is_empty(), "{rep}");
    let text = &r.image[..r.code_len as usize];
    let after = verify(text, BASE, Cpu::M68000, &[]);
    assert!(after.is_clean(), "{after}");
    // The conditional branch now follows the OR (or a re-test of its result) with no copy
    // between them.
    let mut p = r.map(0x1002);
    let mut seen = Vec::new();
    loop {
        let i = decode(text, (p - BASE) as usize, p).unwrap();
        if matches!(i.kind, Kind::Bcc(..)) {
            break;
        }
        seen.push(i.text.clone());
        p = i.end();
    }
    let last_flag_writer = seen
        .iter()
        .rev()
        .find(|t| !t.starts_with("movem") && !t.starts_with("movea") && !t.starts_with("s"))
        .unwrap();
    assert!(
        last_flag_writer.starts_with("or.l") || last_flag_writer.starts_with("tst"),
        "{seen:?}"
    );
}
