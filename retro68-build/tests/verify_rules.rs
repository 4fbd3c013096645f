//! The verifier's rules and the legalizer, on hand-encoded samples: each bad
//! sample must be caught with the right rule at the right address, each good
//! one must pass.  (The encodings are checked against GNU as in
//! `decode_vs_objdump.rs`, `hand_encodings_match_gas`.)

use retro68_build::m68k::{
    Cpu, Finding, LegalizeError, RewriteKind, Rule, Symbol, VerifyReport, legalize, verify,
};

fn code(words: &[u16]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn check(words: &[u16], cpu: Cpu) -> VerifyReport {
    verify(&code(words), 0, cpu, &[])
}

/// The findings as (address, rule) pairs.
fn found(report: &VerifyReport) -> Vec<(u32, Rule)> {
    report.findings.iter().map(|f| (f.addr, f.rule)).collect()
}

fn assert_clean(words: &[u16], cpu: Cpu) {
    let r = check(words, cpu);
    assert!(r.is_clean(), "expected no findings, got:\n{r}");
}

// Encodings used below.
const RTS: u16 = 0x4E75;
const NOP: u16 = 0x4E71;
/// `sub.l #16,%d7` (SUB <ea>,Dn with an immediate source, as LLVM emits it).
const SUB_L_16_D7: [u16; 3] = [0x9EBC, 0x0000, 0x0010];
/// `move.l %d6,%d7`.
const MOVE_L_D6_D7: u16 = 0x2E06;
/// `cmp.l %d1,%d0`.
const CMP_L_D1_D0: u16 = 0xB081;
/// `move.l (%a0),%d0`.
const MOVE_L_IND_A0_D0: u16 = 0x2010;
/// `moveq #0,%d0` and `moveq #0,%d2`.
const MOVEQ_0_D0: u16 = 0x7000;
const MOVEQ_0_D2: u16 = 0x7400;
/// `clr.l %d1`.
const CLR_L_D1: u16 = 0x4281;
/// `tst.w %d0`.
const TST_W_D0: u16 = 0x4A40;
/// `move.l %d0,(8,%sp)` (a spill store).
const MOVE_L_D0_8SP: [u16; 2] = [0x2F40, 0x0008];
/// `movem.l %d0,(8,%sp)` (LLVM's flag-preserving spill).
const MOVEM_L_D0_8SP: [u16; 3] = [0x48EF, 0x0001, 0x0008];
/// `_NewPtrSys` Mac OS trap.
const NEWPTR_SYS: u16 = 0xA51E;

/// `bcc.s` with condition `cond` from `at` to `target`.
fn bcc_s(cond: u16, at: u32, target: u32) -> u16 {
    let disp = target.wrapping_sub(at + 2) as i8;
    0x6000 | cond << 8 | u16::from(disp as u8)
}
const EQ: u16 = 7;
const NE: u16 = 6;
const CS: u16 = 5;
const HI: u16 = 2;

// ---------------------------------------------------------------------------
// FlagHazard

#[test]
fn memset_miscompile_is_a_flag_hazard() {
    // 0: sub.l #16,%d7 ; 6: move.l %d6,%d7 ; 8: bcs.s 0 ; a: rts
    let words = [
        SUB_L_16_D7[0],
        SUB_L_16_D7[1],
        SUB_L_16_D7[2],
        MOVE_L_D6_D7,
        bcc_s(CS, 8, 0),
        RTS,
    ];
    let r = check(&words, Cpu::M68000);
    assert_eq!(found(&r), [(8, Rule::FlagHazard)], "{r}");
    let f = &r.findings[0];
    assert_eq!(f.text, "bcs.s 0x0");
    assert!(f.message.contains("move.l %d6,%d7"), "{}", f.message);
    assert!(f.message.contains("sub.l #16,%d7"), "{}", f.message);
}

#[test]
fn memset_done_right_passes() {
    // move.l %d6,%d7 ; sub.l #16,%d7 ; bcs.s 0 ; rts
    let words = [
        MOVE_L_D6_D7,
        SUB_L_16_D7[0],
        SUB_L_16_D7[1],
        SUB_L_16_D7[2],
        bcc_s(CS, 8, 0),
        RTS,
    ];
    assert_clean(&words, Cpu::M68000);
}

#[test]
fn spill_store_between_compare_and_branch() {
    // 0: cmp.l %d1,%d0 ; 2: move.l %d0,(8,%sp) ; 6: bne.s a ; 8: rts ; a: rts
    let words = [
        CMP_L_D1_D0,
        MOVE_L_D0_8SP[0],
        MOVE_L_D0_8SP[1],
        bcc_s(NE, 6, 0xA),
        RTS,
        RTS,
    ];
    assert_eq!(found(&check(&words, Cpu::M68000)), [(6, Rule::FlagHazard)]);
}

#[test]
fn movem_spill_between_compare_and_branch_passes() {
    // MOVEM does not touch the CCR: this is how LLVM spills while flags are live.
    let words = [
        CMP_L_D1_D0,
        MOVEM_L_D0_8SP[0],
        MOVEM_L_D0_8SP[1],
        MOVEM_L_D0_8SP[2],
        bcc_s(NE, 8, 0xC),
        RTS,
        RTS,
    ];
    assert_clean(&words, Cpu::M68000);
}

#[test]
fn moveq_between_compare_and_branch() {
    // 0: cmp.l %d1,%d0 ; 2: moveq #0,%d2 ; 4: beq.s 8 ; 6: rts ; 8: rts
    let words = [CMP_L_D1_D0, MOVEQ_0_D2, bcc_s(EQ, 4, 8), RTS, RTS];
    assert_eq!(found(&check(&words, Cpu::M68000)), [(4, Rule::FlagHazard)]);
}

#[test]
fn clr_between_test_and_branch() {
    // 0: tst.w %d0 ; 2: clr.l %d1 ; 4: bne.s 8 ; 6: rts ; 8: rts
    let words = [TST_W_D0, CLR_L_D1, bcc_s(NE, 4, 8), RTS, RTS];
    assert_eq!(found(&check(&words, Cpu::M68000)), [(4, Rule::FlagHazard)]);
}

#[test]
fn scc_and_dbcc_read_flags_too() {
    // 0: cmp.l %d1,%d0 ; 2: move.l %d6,%d7 ; 4: scs %d0 ; 6: rts
    let words = [CMP_L_D1_D0, MOVE_L_D6_D7, 0x55C0, RTS];
    assert_eq!(found(&check(&words, Cpu::M68000)), [(4, Rule::FlagHazard)]);
    // 0: cmp.l %d1,%d0 ; 2: moveq #0,%d2 ; 4: dbne %d1,0 ; 8: rts
    let words = [CMP_L_D1_D0, MOVEQ_0_D2, 0x56C9, 0xFFFA, RTS];
    assert_eq!(found(&check(&words, Cpu::M68000)), [(4, Rule::FlagHazard)]);
    // dbra (dbf) reads no flags.
    let words = [CMP_L_D1_D0, MOVEQ_0_D2, 0x51C9, 0xFFFA, RTS];
    assert_clean(&words, Cpu::M68000);
}

#[test]
fn carry_test_after_a_move_is_never_intended() {
    // 0: move.l (%a0),%d0 ; 2: bhi.s 6 ; 4: rts ; 6: rts — C and V are always 0 here.
    let words = [MOVE_L_IND_A0_D0, bcc_s(HI, 2, 6), RTS, RTS];
    let r = check(&words, Cpu::M68000);
    assert_eq!(found(&r), [(2, Rule::FlagHazard)]);
    assert!(
        r.findings[0].message.contains("clears V and C"),
        "{}",
        r.findings[0].message
    );
}

#[test]
fn test_by_move_passes() {
    // move.l (%a0),%d0 ; beq.s 6 ; rts ; rts
    assert_clean(&[MOVE_L_IND_A0_D0, bcc_s(EQ, 2, 6), RTS, RTS], Cpu::M68000);
    // moveq #0,%d0 ; rts
    assert_clean(&[MOVEQ_0_D0, RTS], Cpu::M68000);
    // cmp.l ; beq.s ; move.l (%a0),%d0 ; bne.s — the compare's flags were used.
    let words = [
        CMP_L_D1_D0,
        bcc_s(EQ, 2, 0xA),
        MOVE_L_IND_A0_D0,
        bcc_s(NE, 6, 0xA),
        RTS,
        RTS,
    ];
    assert_clean(&words, Cpu::M68000);
}

#[test]
fn second_branch_on_a_copy_is_caught() {
    // cmp.l ; bne.s a ; move.l %d6,%d7 ; bne.s a ; rts ; rts — no join: the second bne is
    // meant to re-read the compare's Z but reads the register copy's.
    let words = [
        CMP_L_D1_D0,
        bcc_s(NE, 2, 0xA),
        MOVE_L_D6_D7,
        bcc_s(NE, 6, 0xA),
        RTS,
        RTS,
    ];
    assert_eq!(found(&check(&words, Cpu::M68000)), [(6, Rule::FlagHazard)]);
    // The same with a branch on other flags first (bcs reads C, beq Z): a deliberate test.
    let words = [
        CMP_L_D1_D0,
        bcc_s(CS, 2, 0xA),
        MOVE_L_D6_D7,
        bcc_s(EQ, 6, 0xA),
        RTS,
        RTS,
    ];
    assert_clean(&words, Cpu::M68000);
}

#[test]
fn a_line_trap_then_branch_passes() {
    // _NewPtrSys ; beq.s 6 ; rts ; rts — the trap dispatcher sets the flags.
    assert_clean(&[NEWPTR_SYS, bcc_s(EQ, 2, 6), RTS, RTS], Cpu::M68000);
    // cmp.l ; _NewPtrSys ; move.l (%a0),%d0 ; beq.s — the trap ends the scan.
    let words = [
        CMP_L_D1_D0,
        NEWPTR_SYS,
        MOVE_L_IND_A0_D0,
        bcc_s(EQ, 6, 0xA),
        RTS,
        RTS,
    ];
    assert_clean(&words, Cpu::M68000);
}

#[test]
fn a_label_between_producer_and_copy_ends_the_scan() {
    // 0: cmp.l %d1,%d0 ; 2: move.l (%a0),%d0 ; 4: beq.s 8 ; 6: bra.s 2 ; 8: rts
    // 2 is a branch target, so the move starts a new basic block.
    let words = [CMP_L_D1_D0, MOVE_L_IND_A0_D0, bcc_s(EQ, 4, 8), 0x60FA, RTS];
    assert_clean(&words, Cpu::M68000);
    // Without the back edge the same code is a hazard.
    let words = [CMP_L_D1_D0, MOVE_L_IND_A0_D0, bcc_s(EQ, 4, 8), RTS, RTS];
    assert_eq!(found(&check(&words, Cpu::M68000)), [(4, Rule::FlagHazard)]);
}

#[test]
fn a_symbol_start_between_producer_and_copy_ends_the_scan() {
    // 0: cmp.l %d1,%d0 ; 2: move.l (%a0),%d0 ; 4: beq.s 8 ; 6: rts ; 8: rts
    let words = code(&[CMP_L_D1_D0, MOVE_L_IND_A0_D0, bcc_s(EQ, 4, 8), RTS, RTS]);
    assert_eq!(
        found(&verify(&words, 0, Cpu::M68000, &[])),
        [(4, Rule::FlagHazard)]
    );
    // With a function starting at 2 the compare is in another function.
    let syms = [Symbol {
        name: "f".into(),
        addr: 2,
        size: 6,
    }];
    assert!(verify(&words, 0, Cpu::M68000, &syms).is_clean());
}

// ---------------------------------------------------------------------------
// Privileged

#[test]
fn move_from_sr_is_privileged_even_for_the_68000() {
    // 0: move.w %sr,%d0 ; 2: rts
    let r = check(&[0x40C0, RTS], Cpu::M68000);
    assert_eq!(found(&r), [(0, Rule::Privileged)]);
    assert!(
        r.findings[0].message.contains("68010"),
        "{}",
        r.findings[0].message
    );
}

#[test]
fn supervisor_instructions_are_privileged() {
    let cases: &[&[u16]] = &[
        &[0x46FC, 0x2700], // move.w #0x2700,%sr
        &[0x007C, 0x0700], // ori.w #0x700,%sr
        &[0x027C, 0xF8FF], // andi.w #0xf8ff,%sr
        &[0x0A7C, 0x0001], // eori.w #1,%sr
        &[0x4E73],         // rte
        &[0x4E72, 0x2000], // stop #0x2000
        &[0x4E70],         // reset
        &[0x4E60],         // move.l %a0,%usp
        &[0x4E68],         // move.l %usp,%a0
    ];
    for words in cases {
        let r = check(words, Cpu::M68000);
        assert_eq!(found(&r), [(0, Rule::Privileged)], "{words:04x?}: {r}");
    }
    // movec and moves are 68010+ and privileged.
    let r = check(&[0x4E7B, 0x0801], Cpu::M68000); // movec %d0,%vbr
    assert_eq!(
        found(&r),
        [(0, Rule::CpuTooNew), (0, Rule::Privileged)],
        "{r}"
    );
    let r = check(&[0x0E90, 0x0800], Cpu::M68040); // moves.l %d0,(%a0)
    assert_eq!(found(&r), [(0, Rule::Privileged)], "{r}");
}

#[test]
fn user_mode_ccr_access_passes() {
    // move.w %d0,%ccr ; ori.b #1,%ccr ; rts
    assert_clean(&[0x44C0, 0x003C, 0x0001, RTS], Cpu::M68000);
    // move.w %ccr,%d0 is 68010+, but fine there.
    assert_clean(&[0x42C0, RTS], Cpu::M68040);
    assert_eq!(
        found(&check(&[0x42C0, RTS], Cpu::M68000)),
        [(0, Rule::CpuTooNew)]
    );
}

// ---------------------------------------------------------------------------
// IllegalEncoding

#[test]
fn pc_relative_destination_is_illegal() {
    // move.b #1,(8,%pc) — LLVM 15+ emitted this for stores to statics.
    // 0001 010 111 111 100: MOVE.B, destination mode 7/2, source mode 7/4.
    // (gas refuses to assemble it and objdump shows it as `.short`.)
    let r = check(&[0x15FC, 0x0001, 0x0008, RTS], Cpu::M68000);
    assert_eq!(found(&r), [(0, Rule::IllegalEncoding)], "{r}");
    assert!(
        r.findings[0].message.contains("PC-relative"),
        "{}",
        r.findings[0].message
    );
    // The decoder still knows its length: the rts after it decodes.
    assert_eq!(r.instructions, 2);
    // move.b #1,(8,%a0) is fine.
    assert_clean(&[0x117C, 0x0001, 0x0008, RTS], Cpu::M68000);
}

#[test]
fn illegal_operand_combinations() {
    let cases: &[&[u16]] = &[
        &[0x13FC, 0x0001, 0x0000, 0x1234], // fine: move.b #1,(0x1234).l
        &[0x1040],                         // movea.b %d0,%a0: no byte MOVEA
        &[0xD008],                         // add.b %a0,%d0: byte access to An
        &[0x5108],                         // subq.b #8,%a0
        &[0x4AFD],                         // tas with mode 7/5
        &[0x203D],                         // move.l with source mode 7/5
        &[0x4EC0],                         // jmp %d0
        &[0x23FC, 0, 0, 0, 0][..3],        // truncated move.l #imm,(xxx).l
    ];
    assert_clean(cases[0], Cpu::M68000);
    for words in &cases[1..] {
        let r = check(words, Cpu::M68000);
        assert_eq!(found(&r), [(0, Rule::IllegalEncoding)], "{words:04x?}: {r}");
    }
}

#[test]
fn unknown_words_and_truncation() {
    // 0x4E7C is no instruction; decoding resumes after it.
    let r = check(&[0x4E7C, RTS], Cpu::M68000);
    assert_eq!(found(&r), [(0, Rule::IllegalEncoding)]);
    assert_eq!(r.instructions, 1);
    // move.l #imm,%d0 cut short.
    let r = check(&[NOP, 0x203C, 0x1234], Cpu::M68000);
    assert_eq!(found(&r), [(2, Rule::IllegalEncoding)]);
    assert!(
        r.findings[0].message.contains("runs off the end"),
        "{}",
        r.findings[0].message
    );
    // An odd trailing byte.
    let r = verify(&[0x4E, 0x75, 0x00], 0, Cpu::M68000, &[]);
    assert_eq!(found(&r), [(2, Rule::IllegalEncoding)]);
}

// ---------------------------------------------------------------------------
// CpuTooNew

#[test]
fn bra_l_in_a_68000_build() {
    // 0: bra.l 6 ; 6: rts
    let words = [0x60FF, 0x0000, 0x0004, RTS];
    let r = check(&words, Cpu::M68000);
    assert_eq!(found(&r), [(0, Rule::CpuTooNew)]);
    assert!(
        r.findings[0].message.contains("legalizer"),
        "{}",
        r.findings[0].message
    );
    assert_clean(&words, Cpu::M68020);
}

#[test]
fn other_68020_features() {
    let cases: &[&[u16]] = &[
        &[0x4C01, 0x0000],         // mulu.l %d1,%d0 (LLVM: overflow-checked multiply)
        &[0x4C41, 0x0800],         // divs.l %d1,%d0
        &[0x49C0],                 // extb.l %d0
        &[0x4808, 0x0001, 0x0000], // link.l %a0,#0x10000
        &[0x2030, 0x1C00],         // move.l (0,%a0,%d1.l*4),%d0: scaled index
        &[0x2030, 0x0170, 0x0001, 0x0000], // move.l (0x10000,%a0),%d0: full format
        &[0xE9C0, 0x1108],         // bfextu %d0{#4:#8},%d1
        &[0x4A48],                 // tst.w %a0
        &[0x4E74, 0x0004],         // rtd #4 (68010)
        &[0xF200, 0x0022],         // fadd.x %fp0,%fp0
        &[0xF620, 0x9000],         // move16 (%a0)+,(%a1)+ (68040)
    ];
    for words in cases {
        let r = check(words, Cpu::M68000);
        assert_eq!(found(&r), [(0, Rule::CpuTooNew)], "{words:04x?}: {r}");
        assert!(check(words, Cpu::M68040).is_clean(), "{words:04x?}");
    }
}

// ---------------------------------------------------------------------------
// BadBranchTarget

#[test]
fn bad_branch_targets() {
    // bra.s to 3 (odd).
    let r = check(&[0x6001, NOP, RTS], Cpu::M68000);
    assert_eq!(found(&r), [(0, Rule::BadBranchTarget)]);
    assert!(r.findings[0].message.contains("odd"));
    // bra.w to 0x102, past the end.
    let r = check(&[0x6000, 0x0100, RTS], Cpu::M68000);
    assert_eq!(found(&r), [(0, Rule::BadBranchTarget)]);
    assert!(r.findings[0].message.contains("outside"));
    // beq.s to 4, inside move.l #0x12345678,%d0 at 2.
    let r = check(&[0x6702, 0x203C, 0x1234, 0x5678, RTS], Cpu::M68000);
    assert_eq!(found(&r), [(0, Rule::BadBranchTarget)]);
    assert!(
        r.findings[0]
            .message
            .contains("inside the instruction `move.l"),
        "{}",
        r.findings[0].message
    );
    // jsr (d16,%pc) counts too: jsr (0,%pc) → target 2, inside itself.
    let r = check(&[0x4EBA, 0x0000, RTS], Cpu::M68000);
    assert_eq!(found(&r), [(0, Rule::BadBranchTarget)]);
    // Good: beq.s to 8, the rts after the move.
    assert_clean(&[0x6706, 0x203C, 0x1234, 0x5678, RTS], Cpu::M68000);
}

// ---------------------------------------------------------------------------
// Reporting

#[test]
fn findings_name_function_address_and_instruction() {
    // memset at 0x100: nop ; sub.l #16,%d7 ; move.l %d6,%d7 ; bcs.s 0x102 ; rts
    let words = [
        NOP,
        SUB_L_16_D7[0],
        SUB_L_16_D7[1],
        SUB_L_16_D7[2],
        MOVE_L_D6_D7,
        0x65F6,
        RTS,
    ];
    let syms = [Symbol {
        name: "memset".into(),
        addr: 0x100,
        size: 14,
    }];
    let r = verify(&code(&words), 0x100, Cpu::M68000, &syms);
    assert_eq!(r.instructions, 5);
    let [f]: &[Finding] = &r.findings[..] else {
        panic!("{r}")
    };
    assert_eq!((f.addr, f.rule), (0x10A, Rule::FlagHazard));
    assert_eq!(f.location.as_deref(), Some("memset+0xa"));
    let line = f.to_string();
    assert!(
        line.starts_with("0x0000010a in `memset+0xa`: `bcs.s 0x102` [flag-hazard]"),
        "{line}"
    );
    assert!(
        r.to_string()
            .starts_with("5 instructions decoded, 1 finding(s)\n"),
        "{r}"
    );
}

// ---------------------------------------------------------------------------
// Legalizer

#[test]
fn legalize_long_branches_to_word_and_nop() {
    // 0: bra.l c ; 6: bsr.l c ; c: beq.l 0 (backwards) ; 12: rts
    let words = [
        0x60FF, 0, 0x000A, 0x61FF, 0, 0x0004, 0x67FF, 0xFFFF, 0xFFF2, RTS,
    ];
    let mut text = code(&words);
    assert_eq!(found(&verify(&text, 0, Cpu::M68000, &[])).len(), 3);
    let report = legalize(&mut text, 0, Cpu::M68000).unwrap();
    assert_eq!(report.rewritten(), 3);
    assert_eq!(report.word_rewrites(), 3);
    assert!(report.new_abs32.is_empty());
    assert!(
        report
            .rewrites
            .iter()
            .all(|r| r.kind == RewriteKind::WordAndNop && r.reloc_offset.is_none())
    );
    assert_eq!(report.rewrites[0].after, "bra.w 0xc; nop");
    assert_eq!(
        text,
        code(&[
            0x6000, 0x000A, NOP, 0x6100, 0x0004, NOP, 0x6700, 0xFFF2, NOP, RTS
        ])
    );
    let r = verify(&text, 0, Cpu::M68000, &[]);
    assert!(r.is_clean(), "{r}");
}

#[test]
fn legalize_far_branches_to_absolute_jumps() {
    // Linked at 0x1000: 0: bra.l 0x11008 ; 6: bsr.l 0x11008 ; c…: nops ; 0x10008: rts
    let len = 0x1000A;
    let mut text = vec![0u8; len];
    for off in (0..len).step_by(2) {
        text[off..off + 2].copy_from_slice(&NOP.to_be_bytes());
    }
    text[..12].copy_from_slice(&code(&[0x60FF, 0x0001, 0x0006, 0x61FF, 0x0001, 0x0000]));
    text[len - 2..].copy_from_slice(&RTS.to_be_bytes());
    let report = legalize(&mut text, 0x1000, Cpu::M68000).unwrap();
    assert_eq!((report.rewritten(), report.absolute_rewrites()), (2, 2));
    assert_eq!(report.rewrites[0].kind, RewriteKind::BraToJmp);
    assert_eq!(report.rewrites[1].kind, RewriteKind::BsrToJsr);
    assert_eq!(report.rewrites[0].reloc_offset, Some(2));
    assert_eq!(report.rewrites[1].reloc_offset, Some(8));
    assert_eq!(report.new_abs32, [0x1002, 0x1008]);
    assert_eq!(report.rewrites[0].after, "jmp (0x11008).l");
    assert_eq!(
        &text[..12],
        code(&[0x4EF9, 0x0001, 0x1008, 0x4EB9, 0x0001, 0x1008])
    );
    let r = verify(&text, 0x1000, Cpu::M68000, &[]);
    assert!(r.is_clean(), "{r}");
}

#[test]
fn legalize_refuses_far_conditional_branches() {
    // bcs.l +0x10000 cannot become a 6-byte 68000 instruction.
    let mut text = code(&[NOP, 0x65FF, 0x0001, 0x0000]);
    let err = legalize(&mut text, 0, Cpu::M68000).unwrap_err();
    assert_eq!(
        err,
        LegalizeError::BccOutOfRange {
            addr: 2,
            text: "bcs.l 0x10004".into(),
            target: 0x10004
        }
    );
    assert!(err.to_string().contains("bcs.l"));
}

#[test]
fn legalize_leaves_68020_code_alone() {
    let words = [0x60FF, 0x0000, 0x0004, RTS];
    let mut text = code(&words);
    let report = legalize(&mut text, 0, Cpu::M68020).unwrap();
    assert_eq!(report.rewritten(), 0);
    assert_eq!(text, code(&words));
}

// ---------------------------------------------------------------------------
// A5Write (applications)

/// Each instruction that changes A5 is reported, at its address; instructions that only read
/// A5 (through it, or as a source, or in a compare) pass.
#[test]
fn application_a5_writes_are_found() {
    use retro68_build::m68k::a5_writes;
    let writers: &[(&[u16], &str)] = &[
        (&[0x4BEF, 0x0018], "lea (24,%sp),%a5"),
        (&[0x2A48], "movea.l %a0,%a5"),
        (&[0x201D], "move.l (%a5)+,%d0"),
        (&[0x2B00], "move.l %d0,-(%a5)"),
        (&[0x4CDF, 0x2004], "movem.l (%sp)+,%d2/%a5"),
        (&[0xC38D], "exg %d1,%a5"),
        (&[0x4E55, 0xFFF8], "link.w %a5,#-8"),
        (&[0x4E5D], "unlk %a5"),
        (&[0x5A8D], "addq.l #5,%a5"),
    ];
    let readers: &[(&[u16], &str)] = &[
        (&[0xBBC8], "cmpa.l %a0,%a5"),
        (&[0x200D], "move.l %a5,%d0"),
        (&[0x202D, 0x0004], "move.l (4,%a5),%d0"),
        (&[0x48E7, 0x0024], "movem.l %d2/%a5,-(%sp)"),
        (&[0x2B40, 0x0004], "move.l %d0,(4,%a5)"),
        (&[0x4855], "pea (%a5)"),
    ];
    for (words, what) in writers {
        let mut all = words.to_vec();
        all.push(RTS);
        let f = a5_writes(&code(&all), 0, &[]);
        assert_eq!(f.len(), 1, "`{what}` writes A5: {f:?}");
        assert_eq!((f[0].addr, f[0].rule), (0, Rule::A5Write), "{what}");
        assert_eq!(f[0].text, *what, "decoded text");
    }
    for (words, what) in readers {
        let mut all = words.to_vec();
        all.push(RTS);
        let f = a5_writes(&code(&all), 0, &[]);
        assert!(f.is_empty(), "`{what}` only reads A5: {f:?}");
    }
}

/// `cmpi.l #1,%d0`.
const CMPI_L_1_D0: [u16; 3] = [0x0C80, 0x0000, 0x0001];
/// `subx.l %d1,%d1` (LLVM's all-ones-if-carry).
const SUBX_L_D1_D1: u16 = 0x9381;
/// `subq.l #1,%d0`.
const SUBQ_L_1_D0: u16 = 0x5380;
/// `clr.w %d1` and `addx.w %d1,%d1` (capturing X as a value).
const CLR_W_D1: u16 = 0x4241;
const ADDX_W_D1_D1: u16 = 0xD341;

#[test]
fn subx_after_a_compare_reads_a_stale_x() {
    // `(x / 512).min(u32::MAX as u64) as u32`: CMP sets C, SUBX subtracts X.
    let w = [
        CMPI_L_1_D0[0],
        CMPI_L_1_D0[1],
        CMPI_L_1_D0[2],
        SUBX_L_D1_D1,
        RTS,
    ];
    assert_eq!(found(&check(&w, Cpu::M68000)), [(6, Rule::StaleX)]);
    // Through a copy (MOVE leaves X alone, and LLVM does not count it as a CCR writer).
    let w = [
        CMPI_L_1_D0[0],
        CMPI_L_1_D0[1],
        CMPI_L_1_D0[2],
        MOVE_L_D6_D7,
        SUBX_L_D1_D1,
        RTS,
    ];
    assert_eq!(found(&check(&w, Cpu::M68000)), [(8, Rule::StaleX)]);
}

#[test]
fn subx_after_a_subtraction_or_capturing_x_passes() {
    // SUBQ sets X: the 64-bit subtraction idiom, with a copy in between.
    assert_clean(&[SUBQ_L_1_D0, MOVE_L_D6_D7, SUBX_L_D1_D1, RTS], Cpu::M68000);
    // `clr.w ; addx.w` reads X on purpose (the `move.w %sr` repair, `stub/mul32.S`).
    assert_clean(&[CMP_L_D1_D0, CLR_W_D1, ADDX_W_D1_D1, RTS], Cpu::M68000);
}
