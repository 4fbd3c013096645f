//! The binary verifier: decodes every instruction of an m68k code image and
//! reports what the target CPU cannot run and the known LLVM M68k miscompiles.
//!
//! Rules (see [`Rule`]): illegal encodings, instructions newer than the target
//! CPU, supervisor-only instructions, PC-relative branches to impossible
//! targets, the flag hazard of a MOVE/MOVEQ/CLR scheduled between a flag
//! producer and the conditional that reads its flags, and an X reader (SUBX, …)
//! after a compare that leaves X alone.

use std::collections::BTreeSet;
use std::fmt;

use super::decode::{Ccr, Cpu, DecodeError, FlagClass, Insn, Kind, Privilege, decode};

/// A named code range, used to name the function a finding is in and as a
/// place where linear decoding restarts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Symbol name (as in the ELF symbol table).
    pub name: String,
    /// Run-time address (same address space as `base`).
    pub addr: u32,
    /// Size in bytes; 0 if unknown.
    pub size: u32,
}

/// What a [`Finding`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// No 68k decodes the word(s), the operand combination is illegal (e.g. a
    /// PC-relative or immediate destination), or decoding ran off the end.
    IllegalEncoding,
    /// Needs a newer CPU than the target.
    CpuTooNew,
    /// Supervisor-only in user mode (on the target or on any later family member).
    Privileged,
    /// A conditional reads condition codes last written by a MOVE/MOVEQ/CLR.
    FlagHazard,
    /// A PC-relative branch to an odd address, outside the code, or into the
    /// middle of an instruction.
    BadBranchTarget,
    /// An application instruction that writes A5, which must hold `CurrentA5` whenever the
    /// Toolbox runs (see [`a5_writes`]).
    A5Write,
    /// An instruction that reads X (ADDX, SUBX, NEGX, ROXL, ROXR, ABCD, SBCD, NBCD) whose block
    /// last set flags with an instruction that leaves X alone (CMP, TST, AND, …): LLVM M68k
    /// meant the carry of that compare (see [`stale_x`]).
    StaleX,
    /// A function whose spills LLVM M68k's MOVEM collapse merged out of register order, so a
    /// register goes to or comes from another register's slot (`crate::movem`).
    MovemOrder,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::IllegalEncoding => "illegal-encoding",
            Rule::CpuTooNew => "cpu-too-new",
            Rule::Privileged => "privileged",
            Rule::FlagHazard => "flag-hazard",
            Rule::BadBranchTarget => "bad-branch-target",
            Rule::A5Write => "a5-write",
            Rule::StaleX => "stale-x",
            Rule::MovemOrder => "movem-order",
        })
    }
}

/// One problem found by [`verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Address of the offending instruction.
    pub addr: u32,
    /// The instruction's text (or `.short 0x....` for undecodable words).
    pub text: String,
    /// Which rule it breaks.
    pub rule: Rule,
    /// What is wrong, in a sentence.
    pub message: String,
    /// Containing symbol and offset, e.g. ``memset+0x1a``, if known.
    pub location: Option<String>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}", self.addr)?;
        if let Some(loc) = &self.location {
            write!(f, " in `{loc}`")?;
        }
        write!(f, ": `{}` [{}] {}", self.text, self.rule, self.message)
    }
}

/// The result of [`verify`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VerifyReport {
    /// Number of instructions decoded.
    pub instructions: usize,
    /// Problems, in address order.
    pub findings: Vec<Finding>,
}

impl VerifyReport {
    /// True if nothing was found.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// Counts by rule, e.g. `46 flag-hazard, 14 privileged`.
    pub fn summary(&self) -> String {
        let rules = [
            Rule::IllegalEncoding,
            Rule::CpuTooNew,
            Rule::Privileged,
            Rule::FlagHazard,
            Rule::BadBranchTarget,
            Rule::A5Write,
            Rule::StaleX,
        ];
        let parts: Vec<String> = rules
            .iter()
            .map(|&r| (r, self.with_rule(r).count()))
            .filter(|&(_, n)| n > 0)
            .map(|(r, n)| format!("{n} {r}"))
            .collect();
        if parts.is_empty() {
            "clean".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// The findings under `rule`.
    pub fn with_rule(&self, rule: Rule) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.rule == rule)
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} instructions decoded, {} finding(s)",
            self.instructions,
            self.findings.len()
        )?;
        for finding in &self.findings {
            writeln!(f, "{finding}")?;
        }
        Ok(())
    }
}

/// The outcome of decoding a code image by linear sweep.
pub(crate) struct Sweep {
    /// Decoded instructions in address order.
    pub insns: Vec<Insn>,
    /// Problems met while sweeping (undecodable words, truncation, desync).
    pub problems: Vec<(u32, String, String)>,
    /// Addresses where decoding (re)started after a gap or a symbol start.
    pub restarts: BTreeSet<u32>,
}

/// Decodes `code` (run-time address `base`) from start to end, restarting at
/// every symbol start inside the code; an undecodable word is skipped.
pub(crate) fn sweep(code: &[u8], base: u32, symbols: &[Symbol]) -> Sweep {
    sweep_with_data(code, base, symbols, &[])
}

/// [`sweep`] that steps over the data ranges `data` (`[start, end)` run-time addresses, even,
/// sorted, disjoint): they are not decoded, and decoding restarts after each. An instruction
/// that runs into a data range is a problem (code and data overlap).
pub(crate) fn sweep_with_data(
    code: &[u8],
    base: u32,
    symbols: &[Symbol],
    data: &[(u32, u32)],
) -> Sweep {
    let end = base.wrapping_add(code.len() as u32);
    let sym_starts: BTreeSet<u32> = symbols
        .iter()
        .map(|s| s.addr)
        .filter(|&a| a >= base && a < end && (a - base).is_multiple_of(2))
        .collect();
    let mut out = Sweep {
        insns: Vec::new(),
        problems: Vec::new(),
        restarts: BTreeSet::new(),
    };
    let mut off = 0usize;
    let mut data = data.iter().copied().peekable();
    let mut restart = true;
    while off < code.len() {
        let addr = base.wrapping_add(off as u32);
        // Past the data ranges that end here or before; over the one that starts here.
        while data.next_if(|&(_, e)| e <= addr).is_some() {}
        if let Some(&(s, e)) = data.peek()
            && s <= addr
        {
            off = (e.min(end) - base) as usize;
            restart = true;
            continue;
        }
        if std::mem::take(&mut restart) {
            out.restarts.insert(addr);
        }
        if code.len() - off == 1 {
            out.problems.push((
                addr,
                format!(".byte {:#04x}", code[off]),
                "odd trailing byte".into(),
            ));
            break;
        }
        match decode(code, off, addr) {
            Ok(insn) => {
                let next_sym = sym_starts.range(addr + 1..insn.end()).next().copied();
                if let Some(&(s, _)) = data.peek()
                    && s < insn.end()
                {
                    out.problems.push((
                        addr,
                        insn.text.clone(),
                        format!("instruction runs into the data at {s:#x}: code and data overlap"),
                    ));
                    off = (s - base) as usize;
                    continue;
                }
                off += insn.len;
                out.insns.push(insn);
                if let Some(s) = next_sym {
                    let last = out.insns.last().expect("just pushed");
                    out.problems.push((
                        last.addr,
                        last.text.clone(),
                        format!(
                            "instruction overlaps the symbol start {s:#x}: data in code or \
                             misaligned decoding; decoding restarts there"
                        ),
                    ));
                    off = (s - base) as usize;
                    out.restarts.insert(s);
                }
            }
            Err(DecodeError::Unknown { word }) => {
                out.problems.push((
                    addr,
                    format!(".short {word:#06x}"),
                    "no 68k instruction has this opcode word".into(),
                ));
                off += 2;
                out.restarts.insert(addr + 2);
            }
            Err(DecodeError::Truncated { needed, .. }) => {
                let word = u16::from_be_bytes([code[off], code[off + 1]]);
                out.problems.push((
                    addr,
                    format!(".short {word:#06x}"),
                    format!("instruction needs {needed} bytes and runs off the end of the code"),
                ));
                break;
            }
        }
    }
    out
}

/// Names `addr` as `symbol+0xoff` using the innermost symbol that contains it
/// (or, for symbols of unknown size, the nearest one before it).
fn locate(symbols: &[Symbol], addr: u32) -> Option<String> {
    let sym = symbols
        .iter()
        .filter(|s| s.addr <= addr && (s.size == 0 || addr - s.addr < s.size))
        .max_by_key(|s| (s.addr, s.size != 0))?;
    Some(if addr == sym.addr {
        sym.name.clone()
    } else {
        format!("{}+{:#x}", sym.name, addr - sym.addr)
    })
}

/// Verifies the code image `code` that runs at address `base` for `cpu`.
///
/// Decoding is a linear sweep from `base` that restarts at each symbol start;
/// `symbols` also name the function of each finding.
pub fn verify(code: &[u8], base: u32, cpu: Cpu, symbols: &[Symbol]) -> VerifyReport {
    verify_with_data(code, base, cpu, symbols, &[])
}

/// [`verify`] for code with data among it: the ranges `data` (`[start, end)` run-time
/// addresses, even, sorted, disjoint; e.g. a driver head's DRVR header) are not decoded, and
/// a branch into one is a [`Rule::BadBranchTarget`].
pub fn verify_with_data(
    code: &[u8],
    base: u32,
    cpu: Cpu,
    symbols: &[Symbol],
    data: &[(u32, u32)],
) -> VerifyReport {
    let sw = sweep_with_data(code, base, symbols, data);
    let end = base.wrapping_add(code.len() as u32);
    let mut findings: Vec<Finding> = Vec::new();
    let mut add = |addr: u32, text: &str, rule: Rule, message: String| {
        findings.push(Finding {
            addr,
            text: text.to_string(),
            rule,
            message,
            location: locate(symbols, addr),
        });
    };

    for (addr, text, message) in &sw.problems {
        add(*addr, text, Rule::IllegalEncoding, message.clone());
    }

    let starts: BTreeSet<u32> = sw.insns.iter().map(|i| i.addr).collect();
    for insn in &sw.insns {
        if let Some(why) = &insn.illegal {
            add(
                insn.addr,
                &insn.text,
                Rule::IllegalEncoding,
                format!("{why}; no 68k executes it"),
            );
        }
        if insn.min_cpu > cpu {
            let extra = match insn.kind {
                Kind::Bra(_) | Kind::Bsr(_) | Kind::Bcc(..)
                    if cpu < Cpu::M68020 && insn.words[0] & 0xFF == 0xFF =>
                {
                    " (on a 68000 this word is a short branch to an odd address; \
                     run the legalizer)"
                }
                _ => "",
            };
            add(
                insn.addr,
                &insn.text,
                Rule::CpuTooNew,
                format!("needs a {} but the target is a {cpu}{extra}", insn.min_cpu),
            );
        }
        match insn.privilege {
            Privilege::User => {}
            Privilege::Supervisor => add(
                insn.addr,
                &insn.text,
                Rule::Privileged,
                "supervisor-only instruction in user-mode code".into(),
            ),
            Privilege::SupervisorFrom68010 => add(
                insn.addr,
                &insn.text,
                Rule::Privileged,
                "MOVE from SR is supervisor-only on the 68010 and later (68020/030/040 Macs); \
                 read the CCR another way"
                    .into(),
            ),
        }
        if let Some(target) = insn.flow.target {
            let problem = if target % 2 != 0 {
                Some(format!("branch target {target:#x} is odd"))
            } else if target < base || target >= end {
                Some(format!(
                    "branch target {target:#x} is outside the code ({base:#x}..{end:#x})"
                ))
            } else if !starts.contains(&target) {
                let inside = sw
                    .insns
                    .iter()
                    .find(|i| i.addr < target && target < i.end());
                Some(match inside {
                    Some(i) => format!(
                        "branch target {target:#x} is inside the instruction `{}` at {:#x}",
                        i.text, i.addr
                    ),
                    None => format!("branch target {target:#x} is not an instruction start"),
                })
            } else {
                None
            };
            if let Some(message) = problem {
                add(insn.addr, &insn.text, Rule::BadBranchTarget, message);
            }
        }
    }

    let in_block = flag_hazards(&sw, symbols);
    let mut reported: BTreeSet<u32> = in_block.iter().map(|h| h.1).collect();
    for (_, addr, text, message) in in_block {
        add(addr, &text, Rule::FlagHazard, message);
    }
    for h in super::join::join_hazards_in(&sw, symbols) {
        // The in-block rules already report joins a copy falls into (`join_writer`).
        if !reported.insert(h.consumers[0]) {
            continue;
        }
        if let Some(c) = sw.insns.iter().find(|i| i.addr == h.consumers[0]) {
            let message = format!(
                "condition `{}` at a join reads flags that, on the path falling through `b{}` at {:#x}, come from the copy at {:#x} (LLVM M68k put a select's register copy between the compare and this conditional)",
                c.cond().map_or("?", |c| c.name()),
                h.cond.name(),
                h.branch,
                h.copy
            );
            add(c.addr, &c.text, Rule::FlagHazard, message);
        }
    }
    for h in super::join::path_hazards_in(&sw, symbols) {
        if reported.contains(&h.consumer) {
            continue;
        }
        if let Some(c) = sw.insns.iter().find(|i| i.addr == h.consumer) {
            let message = format!(
                "condition `{}` reads flags that come from the arithmetic at {} on one path and \
                 from the register copies at {} on another (LLVM M68k's copies clobber the flags)",
                c.cond().map_or("?", |c| c.name()),
                h.producers
                    .iter()
                    .map(|a| format!("{a:#x}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                h.copies
                    .iter()
                    .map(|a| format!("{a:#x}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            add(c.addr, &c.text, Rule::FlagHazard, message);
        }
    }

    for (addr, text, message) in stale_x(&sw, symbols) {
        add(addr, &text, Rule::StaleX, message);
    }

    findings.sort_by_key(|f| (f.addr, f.rule));
    VerifyReport {
        instructions: sw.insns.len(),
        findings,
    }
}

/// Mnemonics (without size suffix) whose last operand is only read.
const READS_LAST_OPERAND: &[&str] = &[
    "cmp", "cmpa", "cmpi", "cmpm", "tst", "btst", "chk", "chk2", "cmp2", "pea", "jmp", "jsr",
];

/// Whether `insn` changes A5: A5 as a written operand, `(%a5)+`/`-(%a5)` anywhere, `exg`
/// with A5, `movem` into a list holding A5, `link`/`unlk` on A5.
pub fn writes_a5(insn: &Insn) -> bool {
    let (mnemonic, args) = insn
        .text
        .split_once(' ')
        .unwrap_or((insn.text.as_str(), ""));
    let base = mnemonic.split('.').next().unwrap_or(mnemonic);
    if args.contains("(%a5)+") || args.contains("-(%a5)") {
        return true;
    }
    // MOVEM to registers: opcode 0100 1d00 1sxx xxxx with d = 1; mask bit 13 is A5 (the
    // mask is in register order for every mode but predecrement, which writes memory).
    if insn.words[0] & 0xFB80 == 0x4880 && insn.words[0] & 0x0400 != 0 {
        return insn.words.get(1).is_some_and(|m| m & (1 << 13) != 0);
    }
    let operands = top_level_operands(args);
    match base {
        "exg" => operands.contains(&"%a5"),
        "link" | "unlk" => operands.first() == Some(&"%a5"),
        _ if READS_LAST_OPERAND.contains(&base) => false,
        _ => operands.last() == Some(&"%a5"),
    }
}

/// The operands of an instruction's text, split at commas outside parentheses.
pub(crate) fn top_level_operands(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in args.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(args[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !args.trim().is_empty() {
        out.push(args[start..].trim());
    }
    out
}

/// The A5 rule for applications: every instruction of `code` (run-time address `base`)
/// that writes A5. A classic Mac application's A5 must equal `CurrentA5` whenever it calls
/// the Toolbox or the Toolbox calls it (QuickDraw finds its globals through A5; Inside
/// Macintosh: Memory, "The A5 world"), so compiled code must never use A5 as a general
/// register (the build passes LLVM's `reserve-a5`). The start-up stub that sets A5 is not part
/// of the image checked here.
pub fn a5_writes(code: &[u8], base: u32, symbols: &[Symbol]) -> Vec<Finding> {
    let sw = sweep(code, base, symbols);
    sw.insns
        .iter()
        .filter(|i| writes_a5(i))
        .map(|i| Finding {
            addr: i.addr,
            text: i.text.clone(),
            rule: Rule::A5Write,
            message: "an application instruction writes A5, which must stay the application's \
                      A5 world (CurrentA5) for the Toolbox; build with LLVM's reserve-a5"
                .into(),
            location: locate(symbols, i.addr),
        })
        .collect()
}

/// The flag hazards of `code` (run-time address `base`) as
/// `(copy_addr, consumer_addr)` pairs, in address order: the MOVE/MOVEQ/CLR
/// that last wrote the flags and the conditional that reads them (the
/// [`Rule::FlagHazard`] findings of [`verify`]).
pub fn hazards(code: &[u8], base: u32, symbols: &[Symbol]) -> Vec<(u32, u32)> {
    let sw = sweep(code, base, symbols);
    let mut out: Vec<(u32, u32)> = flag_hazards(&sw, symbols)
        .into_iter()
        .map(|(w, c, _, _)| (w, c))
        .collect();
    out.sort_by_key(|&(w, c)| (c, w));
    out
}

/// Basic-block leaders: decoding restarts, symbol starts, branch and jump
/// targets, and every instruction after one that does not fall through or
/// after a gap.
fn leaders(sw: &Sweep, symbols: &[Symbol]) -> BTreeSet<u32> {
    let mut set = sw.restarts.clone();
    set.extend(symbols.iter().map(|s| s.addr));
    for (i, insn) in sw.insns.iter().enumerate() {
        set.extend(insn.flow.target);
        set.extend(insn.flow.abs_target);
        if let Some(next) = sw.insns.get(i + 1)
            && (!insn.flow.falls_through || next.addr != insn.end())
        {
            set.insert(next.addr);
        }
    }
    set
}

/// Finds conditionals whose flags come from a Copy-class instruction
/// (MOVE/MOVEQ/CLR) when that is unlikely to be intended.
pub(crate) fn flag_hazards(sw: &Sweep, symbols: &[Symbol]) -> Vec<(u32, u32, String, String)> {
    let leaders = leaders(sw, symbols);
    let insns = &sw.insns;
    // Targets of conditional branches: their flags are live into the target.
    let cond_targets: BTreeSet<u32> = insns
        .iter()
        .filter(|i| matches!(i.kind, Kind::Bcc(..)) && i.cond().is_some())
        .filter_map(|i| i.flow.target)
        .collect();
    let mut out = Vec::new();
    for (i, cond_insn) in insns.iter().enumerate() {
        let Some(cond) = cond_insn.cond() else {
            continue;
        };
        let reads = cond.reads();

        // The last writer of any bit the condition reads, within the block.
        let Some(w) = last_writer(insns, &leaders, i, reads) else {
            if let Some((w, b)) = join_writer(insns, &leaders, &cond_targets, i, reads) {
                let writer = &insns[w];
                out.push((
                    writer.addr,
                    cond_insn.addr,
                    cond_insn.text.clone(),
                    format!(
                        "condition `{}` at a join reads flags that the fall-through path took from \
                         `{}` at {:#x}, while a conditional branch to {:#x} brings the flags it \
                         tested (LLVM M68k put a register copy of a `select` between the compare \
                         and a later use of its flags)",
                        cond.name(),
                        writer.text,
                        writer.addr,
                        insns[b].addr
                    ),
                ));
            }
            continue;
        };
        let writer = &insns[w];
        if writer.flags.class != FlagClass::Copy {
            continue;
        }
        let producer = match unconsumed_producer(insns, &leaders, w, reads) {
            // Past a branch on the same flags, a load (`cmp ; beq ; move.l (%a0),%d0 ; bne`)
            // is a deliberate test-by-move; a register copy or constant is LLVM's hazard.
            Some((_, true)) if loads_memory(writer) => None,
            p => p.map(|(k, _)| k),
        };
        let copy = format!("`{}` at {:#x}", writer.text, writer.addr);
        let cond_name = cond.name();
        if reads.intersects(Ccr::C | Ccr::V) {
            let mut msg = format!(
                "condition `{cond_name}` reads {}, but the last flag writer {copy} is a \
                 MOVE/MOVEQ/CLR, which always clears V and C",
                reads & (Ccr::C | Ccr::V)
            );
            if let Some(p) = producer {
                msg.push_str(&format!(
                    "; the flags were meant to come from `{}` at {:#x} (LLVM M68k scheduled a \
                     register copy between compare and branch)",
                    insns[p].text, insns[p].addr
                ));
            }
            out.push((writer.addr, cond_insn.addr, cond_insn.text.clone(), msg));
        } else if let Some(p) = producer {
            out.push((
                writer.addr,
                cond_insn.addr,
                cond_insn.text.clone(),
                format!(
                    "condition `{cond_name}` reads flags set by {copy}, but the flags of `{}` \
                     at {:#x} were never used: LLVM M68k probably scheduled a register copy \
                     between compare and branch",
                    insns[p].text, insns[p].addr
                ),
            ));
        }
    }
    out
}

/// Instructions that read X while the flags their block last set come from an instruction that
/// leaves X alone: `(address, text, message)`.
///
/// LLVM M68k models the CCR as one register, so the flags an X reader gets are those of the
/// last CCR definition it scheduled before it. A compare, a test or a logical operation sets C
/// but not X; `M68kTargetLowering::LowerSELECT` nevertheless lowers `select (x == 0), -1, y` as
/// `cmp #1,x ; subx %dN,%dN`, which then subtracts whatever X an earlier ADD, SUB, NEG or shift
/// left (`docs/codegen-conformance.md`, the all-ones select). Copies (MOVE, MOVEQ, CLR, which
/// leave X alone and are not CCR definitions for LLVM) and instructions that leave the CCR
/// alone are looked past; the walk ends at the block start or at a call, trap or return
/// (no finding: hand-written code reads X on entry, as `clr.w ; addx.w` does).
pub(crate) fn stale_x(sw: &Sweep, symbols: &[Symbol]) -> Vec<(u32, String, String)> {
    let leaders = leaders(sw, symbols);
    let insns = &sw.insns;
    let mut out = Vec::new();
    for (i, reader) in insns.iter().enumerate() {
        let mnemonic = reader.text.split(['.', ' ']).next().unwrap_or("");
        if !reader.reads.intersects(Ccr::X) || !X_READERS.contains(&mnemonic) {
            continue;
        }
        // `clr.w %dN ; addx.w %dN,%dN` (or `moveq #0`): capturing X as a value, as the
        // `move.w %sr` repair and `stub/mul32.S` do on purpose.
        if i > 0 && mnemonic == "addx" && captures_x(&insns[i - 1], reader) {
            continue;
        }
        let mut j = i;
        while j > 0 && !leaders.contains(&insns[j].addr) {
            j -= 1;
            let p = &insns[j];
            if p.flags.class == FlagClass::Unknown || p.flow.is_call {
                break;
            }
            if matches!(p.flags.class, FlagClass::None | FlagClass::Copy)
                || p.flags.writes.is_empty()
            {
                continue;
            }
            if !p.flags.writes.intersects(Ccr::X) {
                out.push((
                    reader.addr,
                    reader.text.clone(),
                    format!(
                        "reads X, but the last flag writer `{}` at {:#x} sets C and leaves X \
                         alone: LLVM M68k meant its carry (a `select` of all ones lowered as \
                         `cmp #1 ; subx`)",
                        p.text, p.addr
                    ),
                ));
            }
            break;
        }
    }
    out
}

/// Mnemonics (without size) of the instructions that read X as an operand.
const X_READERS: &[&str] = &[
    "addx", "subx", "negx", "roxl", "roxr", "abcd", "sbcd", "nbcd",
];

/// `prev ; reader` is `clr %dN ; addx %dN,%dN` or `moveq #0,%dN ; addx %dN,%dN`.
fn captures_x(prev: &Insn, reader: &Insn) -> bool {
    let Some((_, ops)) = reader.text.split_once(' ') else {
        return false;
    };
    let Some((src, dst)) = ops.split_once(',') else {
        return false;
    };
    if src != dst || !src.starts_with("%d") {
        return false;
    }
    let p = prev.text.as_str();
    (p.starts_with("clr") && p.ends_with(&format!(" {src}"))) || p == format!("moveq #0,{src}")
}

/// Index of the last instruction before `i` in the same basic block that
/// writes any bit of `bits`.
fn last_writer(insns: &[Insn], leaders: &BTreeSet<u32>, i: usize, bits: Ccr) -> Option<usize> {
    let mut j = i;
    while j > 0 && !leaders.contains(&insns[j].addr) {
        j -= 1;
        if insns[j].flags.writes.intersects(bits) {
            return Some(j);
        }
    }
    None
}

/// For a conditional at `i` whose block (starting at `b`, a leader) writes no
/// bit it reads: if a conditional branch targets `b` (so the flags the branch
/// tested are live into the block) and the fall-through predecessor of `b` is
/// a MOVE/MOVEQ/CLR that writes one of those bits, that copy's index and `b`.
fn join_writer(
    insns: &[Insn],
    leaders: &BTreeSet<u32>,
    cond_targets: &BTreeSet<u32>,
    i: usize,
    bits: Ccr,
) -> Option<(usize, usize)> {
    let mut b = i;
    while !leaders.contains(&insns[b].addr) {
        if b == 0 {
            return None;
        }
        b -= 1;
    }
    if b == 0 || !cond_targets.contains(&insns[b].addr) {
        return None;
    }
    let p = &insns[b - 1];
    (p.flow.falls_through
        && p.end() == insns[b].addr
        && p.flags.class == FlagClass::Copy
        && p.flags.writes.intersects(bits))
    .then_some((b - 1, b))
}

/// Looks back from the copy at `w` for an arithmetic flag producer (writing
/// any of `bits`) whose flags are still wanted: nothing consumed them, or only
/// conditional branches on the same bits did (`cmp ; bne X ; move ; bne Y` reads
/// the `cmp`'s flags twice). Stops at the block start, at calls and traps, and at other
/// flag consumers.
fn unconsumed_producer(
    insns: &[Insn],
    leaders: &BTreeSet<u32>,
    w: usize,
    bits: Ccr,
) -> Option<(usize, bool)> {
    let mut k = w;
    let mut passed_branch = false;
    while k > 0 && !leaders.contains(&insns[k].addr) {
        k -= 1;
        let p = &insns[k];
        // An earlier branch or Scc on the same flag bits means the producer's flags are wanted
        // again (`or.l ; seq ; move.l %a3,%d1 ; beq`: LLVM M68k kept the compare's flags for
        // both the Scc and the branch and put a register copy between them; seed 1 program
        // 110 of the random run); a branch on other bits (`subq ; bcs ; move ; beq`) ends the
        // search.
        let branch_on_flags = matches!(p.kind, Kind::Bcc(..) | Kind::Scc(_))
            && p.flags.writes.is_empty()
            && p.reads.intersects(bits);
        if p.flags.class == FlagClass::Unknown
            || p.flow.is_call
            || (!p.reads.is_empty() && !branch_on_flags)
        {
            return None;
        }
        passed_branch |= branch_on_flags;
        if p.flags.class == FlagClass::Arith && p.flags.writes.intersects(bits) {
            return Some((k, passed_branch));
        }
    }
    None
}

/// Whether a copy's source operand is in memory (`move.l (%a0),%d0`, `move.w 4(%a1),%d2`).
pub(crate) fn loads_memory(insn: &Insn) -> bool {
    let ops = insn
        .text
        .split_once(' ')
        .map(|(_, o)| o.trim())
        .unwrap_or("");
    let mut depth = 0;
    for (i, c) in ops.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => return ops[..i].contains('('),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_names_offsets() {
        let syms = vec![
            Symbol {
                name: "a".into(),
                addr: 0x10,
                size: 0x10,
            },
            Symbol {
                name: "b".into(),
                addr: 0x20,
                size: 0,
            },
        ];
        assert_eq!(locate(&syms, 0x10).as_deref(), Some("a"));
        assert_eq!(locate(&syms, 0x1a).as_deref(), Some("a+0xa"));
        assert_eq!(locate(&syms, 0x30).as_deref(), Some("b+0x10"));
        assert_eq!(locate(&syms, 0x4), None);
    }

    #[test]
    fn data_ranges_are_not_decoded() {
        // bra.s +4 ; "DATA" (0x4441 0x5441 would decode as neg.b/chk) ; rts
        let code = [0x60, 0x04, 0x44, 0x41, 0x54, 0x41, 0x4E, 0x75];
        let plain = verify(&code, 0, Cpu::M68000, &[]);
        assert_eq!(plain.instructions, 4, "without the range the data decodes");
        let r = verify_with_data(&code, 0, Cpu::M68000, &[], &[(2, 6)]);
        assert!(r.is_clean(), "{r}");
        assert_eq!(r.instructions, 2);
        // A branch into the data is flagged.
        let into = [0x60, 0x02, 0x44, 0x41, 0x54, 0x41, 0x4E, 0x75];
        let r = verify_with_data(&into, 0, Cpu::M68000, &[], &[(2, 6)]);
        assert_eq!(r.findings.len(), 1, "{r}");
        assert_eq!(r.findings[0].rule, Rule::BadBranchTarget);
        // An instruction that runs into the data is flagged.
        let over = [0x4E, 0x71, 0x30, 0x3C, 0x00, 0x01, 0x4E, 0x75]; // nop ; move.w #1,%d0
        let r = verify_with_data(&over, 0, Cpu::M68000, &[], &[(4, 6)]);
        assert_eq!(
            r.with_rule(Rule::IllegalEncoding).count(),
            1,
            "code and data overlap: {r}"
        );
    }
}
