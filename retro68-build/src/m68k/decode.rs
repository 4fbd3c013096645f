//! A table-driven decoder for the Motorola 68000-family integer instruction set.
//!
//! The decoder knows the complete 68000 instruction set (every opcode, every
//! addressing mode, every extension word), the 68010/68020/68030/68040 integer
//! additions (enough to name them and compute their length: `bra.l`, 32-bit
//! multiply/divide, bit fields, `cas2`, the full-format extension word, …) and a
//! best-effort view of F-line coprocessor instructions (FPU, MMU, 68040
//! `move16` and cache operations).  A-line words are Macintosh OS/Toolbox traps
//! and decode as ordinary two-byte instructions.
//!
//! Besides the length, each [`Insn`] records what the verifier needs: the least
//! CPU that executes it, whether it is supervisor-only, whether its operand
//! combination is illegal, how it changes the condition codes, which condition
//! codes it reads and how it transfers control.
//!
//! Bit patterns and instruction semantics follow the *M68000 Family
//! Programmer's Reference Manual*; mnemonics use the Motorola names with a
//! `.b`/`.w`/`.l` size suffix and `%`-prefixed registers (as GNU `as` accepts
//! them).

use std::fmt;
use std::ops::{BitAnd, BitOr};

/// A member of the 68000 family, ordered from oldest to newest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cpu {
    /// MC68000 (Mac 128K … Plus, SE, Classic, PowerBook 100).
    M68000,
    /// MC68010.
    M68010,
    /// MC68020 (Mac II, LC).
    M68020,
    /// MC68030 (SE/30, IIx, IIci, …).
    M68030,
    /// MC68040 (Quadra, Centris, …).
    M68040,
}

impl fmt::Display for Cpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cpu::M68000 => "68000",
            Cpu::M68010 => "68010",
            Cpu::M68020 => "68020",
            Cpu::M68030 => "68030",
            Cpu::M68040 => "68040",
        })
    }
}

/// Operand size of an integer operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Size {
    /// 8 bits (`.b`).
    Byte,
    /// 16 bits (`.w`).
    Word,
    /// 32 bits (`.l`).
    Long,
}

impl Size {
    /// The assembler suffix without the dot: `b`, `w` or `l`.
    pub fn suffix(self) -> &'static str {
        match self {
            Size::Byte => "b",
            Size::Word => "w",
            Size::Long => "l",
        }
    }
}

/// A set of condition-code (CCR) bits: X, N, Z, V and C.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Ccr(u8);

impl Ccr {
    /// No bit.
    pub const NONE: Ccr = Ccr(0);
    /// Carry.
    pub const C: Ccr = Ccr(0x01);
    /// Overflow.
    pub const V: Ccr = Ccr(0x02);
    /// Zero.
    pub const Z: Ccr = Ccr(0x04);
    /// Negative.
    pub const N: Ccr = Ccr(0x08);
    /// Extend.
    pub const X: Ccr = Ccr(0x10);
    /// N, Z, V and C (everything but X).
    pub const NZVC: Ccr = Ccr(0x0F);
    /// All five bits.
    pub const ALL: Ccr = Ccr(0x1F);

    /// The raw bits, laid out as in the CCR register (X = 0x10 … C = 0x01).
    pub const fn bits(self) -> u8 {
        self.0
    }
    /// True if no bit is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// True if every bit of `other` is in `self`.
    pub const fn contains(self, other: Ccr) -> bool {
        self.0 & other.0 == other.0
    }
    /// True if `self` and `other` share a bit.
    pub const fn intersects(self, other: Ccr) -> bool {
        self.0 & other.0 != 0
    }
}

impl BitOr for Ccr {
    type Output = Ccr;
    fn bitor(self, rhs: Ccr) -> Ccr {
        Ccr(self.0 | rhs.0)
    }
}

impl BitAnd for Ccr {
    type Output = Ccr;
    fn bitand(self, rhs: Ccr) -> Ccr {
        Ccr(self.0 & rhs.0)
    }
}

impl fmt::Debug for Ccr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Ccr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("-");
        }
        for (bit, name) in [(0x10, 'X'), (8, 'N'), (4, 'Z'), (2, 'V'), (1, 'C')] {
            if self.0 & bit != 0 {
                write!(f, "{name}")?;
            }
        }
        Ok(())
    }
}

/// One of the sixteen integer condition codes (bits 11–8 of Bcc/Scc/DBcc/TRAPcc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cond {
    /// Always true (BRA, ST, DBT).
    T,
    /// Always false (SF, DBF = DBRA; the slot is BSR for branches).
    F,
    /// Higher: !C & !Z.
    Hi,
    /// Lower or same: C | Z.
    Ls,
    /// Carry clear (= HS).
    Cc,
    /// Carry set (= LO).
    Cs,
    /// Not equal: !Z.
    Ne,
    /// Equal: Z.
    Eq,
    /// Overflow clear.
    Vc,
    /// Overflow set.
    Vs,
    /// Plus: !N.
    Pl,
    /// Minus: N.
    Mi,
    /// Greater or equal: N == V.
    Ge,
    /// Less than: N != V.
    Lt,
    /// Greater than: !Z & N == V.
    Gt,
    /// Less or equal: Z | N != V.
    Le,
}

const CONDS: [Cond; 16] = [
    Cond::T,
    Cond::F,
    Cond::Hi,
    Cond::Ls,
    Cond::Cc,
    Cond::Cs,
    Cond::Ne,
    Cond::Eq,
    Cond::Vc,
    Cond::Vs,
    Cond::Pl,
    Cond::Mi,
    Cond::Ge,
    Cond::Lt,
    Cond::Gt,
    Cond::Le,
];

impl Cond {
    /// The condition encoded in the low four bits of `bits`.
    pub fn from_bits(bits: u16) -> Cond {
        CONDS[usize::from(bits & 15)]
    }

    /// Its four-bit encoding.
    pub fn bits(self) -> u16 {
        self as u16
    }

    /// Lower-case mnemonic suffix (`eq`, `cs`, …).
    pub fn name(self) -> &'static str {
        [
            "t", "f", "hi", "ls", "cc", "cs", "ne", "eq", "vc", "vs", "pl", "mi", "ge", "lt", "gt",
            "le",
        ][self as usize]
    }

    /// The condition-code bits this condition tests.
    pub fn reads(self) -> Ccr {
        match self {
            Cond::T | Cond::F => Ccr::NONE,
            Cond::Hi | Cond::Ls => Ccr::C | Ccr::Z,
            Cond::Cc | Cond::Cs => Ccr::C,
            Cond::Ne | Cond::Eq => Ccr::Z,
            Cond::Vc | Cond::Vs => Ccr::V,
            Cond::Pl | Cond::Mi => Ccr::N,
            Cond::Ge | Cond::Lt => Ccr::N | Ccr::V,
            Cond::Gt | Cond::Le => Ccr::N | Ccr::V | Ccr::Z,
        }
    }
}

/// How an instruction changes the condition codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlagClass {
    /// Leaves the CCR alone (MOVEA, LEA, PEA, MOVEM, EXG, ADDA, ADDQ to An, LINK, JMP, Bcc, NOP, …).
    None,
    /// A data copy that sets N and Z from the value moved and clears V and C
    /// (MOVE to a data register or memory, MOVEQ, CLR).  X is unaffected.
    Copy,
    /// A flag producer: arithmetic, logic, compares, tests, shifts, bit tests,
    /// explicit writes to CCR/SR.
    Arith,
    /// Flags afterwards are not known from the instruction stream: calls,
    /// traps (including A-line OS traps), returns.
    Unknown,
}

/// The flag behaviour of an instruction: its class and the CCR bits it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlagEffect {
    /// What kind of writer it is.
    pub class: FlagClass,
    /// The bits it writes (bits the manual calls "undefined" count as written).
    pub writes: Ccr,
}

impl FlagEffect {
    /// Does not touch the CCR.
    pub const NONE: FlagEffect = FlagEffect {
        class: FlagClass::None,
        writes: Ccr::NONE,
    };
    /// MOVE/MOVEQ/CLR: N, Z from the data, V = C = 0.
    pub const COPY: FlagEffect = FlagEffect {
        class: FlagClass::Copy,
        writes: Ccr::NZVC,
    };
    /// Logic, compare and test operations: N Z V C (X untouched).
    pub const NZVC: FlagEffect = FlagEffect {
        class: FlagClass::Arith,
        writes: Ccr::NZVC,
    };
    /// Arithmetic that also sets X: ADD, SUB, NEG, shifts, …
    pub const XNZVC: FlagEffect = FlagEffect {
        class: FlagClass::Arith,
        writes: Ccr::ALL,
    };
    /// Bit tests: Z only.
    pub const Z: FlagEffect = FlagEffect {
        class: FlagClass::Arith,
        writes: Ccr::Z,
    };
    /// Calls, traps, returns: everything unknown afterwards.
    pub const UNKNOWN: FlagEffect = FlagEffect {
        class: FlagClass::Unknown,
        writes: Ccr::ALL,
    };
}

/// Whether an instruction may run in user mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Privilege {
    /// Runs in user mode on every family member.
    User,
    /// Supervisor-only on every family member that has it.
    Supervisor,
    /// User mode on the 68000, supervisor-only from the 68010 on (MOVE from SR).
    SupervisorFrom68010,
}

/// Branch displacement size of Bcc/BRA/BSR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BranchSize {
    /// 8-bit displacement in the opcode word (`.s`).
    Short,
    /// 16-bit displacement word (`.w`).
    Word,
    /// 32-bit displacement (`.l`, opcode low byte 0xFF; 68020+).
    Long,
}

/// The instruction classes that the legalizer and verifier look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Anything not listed below.
    Other,
    /// BRA.
    Bra(BranchSize),
    /// BSR.
    Bsr(BranchSize),
    /// Conditional branch Bcc (never BRA/BSR).
    Bcc(Cond, BranchSize),
    /// DBcc (DBF is DBRA).
    DBcc(Cond),
    /// Scc.
    Scc(Cond),
    /// TRAPcc (68020+) and TRAPV (as `TrapCc(Cond::Vs)`).
    TrapCc(Cond),
    /// An A-line word: a Mac OS or Toolbox trap call.
    ALineTrap(u16),
    /// An F-line word: coprocessor (FPU/MMU) or 68040 cache/MOVE16 instruction.
    FLine,
    /// The ILLEGAL instruction (0x4AFC), a deliberate trap.
    Illegal,
}

/// Control flow of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flow {
    /// Execution may continue with the next instruction.
    pub falls_through: bool,
    /// Target of a PC-relative branch, call or jump (`bra`, `bsr`, `dbcc`,
    /// `jmp (d16,%pc)`, …).
    pub target: Option<u32>,
    /// Target of a jump or call to an absolute address (`jmp (xxx).l`), as linked.
    pub abs_target: Option<u32>,
    /// A subroutine call (BSR, JSR, CALLM) or a trap into the OS (TRAP, A-line).
    pub is_call: bool,
    /// A return (RTS, RTE, RTR, RTD, RTM).
    pub is_return: bool,
    /// A jump or call whose target is computed at run time (`jmp (%a0)`, `jsr (4,%a1,%d0.w)`).
    pub is_indirect: bool,
}

impl Flow {
    const SEQ: Flow = Flow {
        falls_through: true,
        target: None,
        abs_target: None,
        is_call: false,
        is_return: false,
        is_indirect: false,
    };
}

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insn {
    /// Run-time address of the opcode word.
    pub addr: u32,
    /// Length in bytes, opcode and all extension words.
    pub len: usize,
    /// The raw words.
    pub words: Vec<u16>,
    /// Mnemonic with size suffix, e.g. `move.l`.
    pub mnemonic: String,
    /// Full text, e.g. `move.l %d6,%d7` or `bra.l 0x1234`.
    pub text: String,
    /// Instruction class of interest.
    pub kind: Kind,
    /// Least CPU that executes this encoding as decoded.
    pub min_cpu: Cpu,
    /// Supervisor-only?
    pub privilege: Privilege,
    /// `Some(reason)` if no 68k accepts this operand combination (e.g. a
    /// PC-relative destination); the length is then a best guess.
    pub illegal: Option<String>,
    /// How the instruction changes the CCR.
    pub flags: FlagEffect,
    /// CCR bits it reads (a conditional's condition, X for ADDX, …).
    pub reads: Ccr,
    /// Control flow.
    pub flow: Flow,
}

impl Insn {
    /// Address of the next instruction.
    pub fn end(&self) -> u32 {
        self.addr.wrapping_add(self.len as u32)
    }

    /// The condition tested by a conditional instruction (Bcc, DBcc, Scc,
    /// TRAPcc), if it actually tests flags (not BRA/BSR/ST/SF/DBT/DBF).
    pub fn cond(&self) -> Option<Cond> {
        let c = match self.kind {
            Kind::Bcc(c, _) | Kind::DBcc(c) | Kind::Scc(c) | Kind::TrapCc(c) => c,
            _ => return None,
        };
        (!c.reads().is_empty()).then_some(c)
    }
}

impl fmt::Display for Insn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why [`decode`] produced no instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The instruction (or its opcode) does not fit in the code: it needs
    /// `needed` bytes from `offset`.
    #[error(
        "instruction at offset {offset:#x} runs off the end of the code (needs {needed} bytes)"
    )]
    Truncated {
        /// Offset of the opcode word.
        offset: usize,
        /// Bytes the instruction needs (as far as known).
        needed: usize,
    },
    /// No 68000-family processor decodes this opcode word.
    #[error("no 68k instruction has the opcode word {word:#06x}")]
    Unknown {
        /// The opcode word.
        word: u16,
    },
}

// ---------------------------------------------------------------------------
// Effective addresses

/// The twelve effective-addressing modes; `Invalid` is mode 7 with register 5–7.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Dn,
    An,
    Ind,
    PostInc,
    PreDec,
    Disp,
    Index,
    AbsW,
    AbsL,
    PcDisp,
    PcIndex,
    Imm,
    Invalid,
}

impl Mode {
    fn of(mode: u16, reg: u16) -> Mode {
        match (mode & 7, reg & 7) {
            (0, _) => Mode::Dn,
            (1, _) => Mode::An,
            (2, _) => Mode::Ind,
            (3, _) => Mode::PostInc,
            (4, _) => Mode::PreDec,
            (5, _) => Mode::Disp,
            (6, _) => Mode::Index,
            (7, 0) => Mode::AbsW,
            (7, 1) => Mode::AbsL,
            (7, 2) => Mode::PcDisp,
            (7, 3) => Mode::PcIndex,
            (7, 4) => Mode::Imm,
            _ => Mode::Invalid,
        }
    }

    /// This mode's bit in a [`Modes`] set.
    fn bit(self) -> Modes {
        match self {
            Mode::Invalid => 0,
            m => 1 << (m as u16),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Mode::Dn => "data register direct",
            Mode::An => "address register direct",
            Mode::Ind => "address register indirect",
            Mode::PostInc => "postincrement",
            Mode::PreDec => "predecrement",
            Mode::Disp => "(d16,An)",
            Mode::Index => "(d8,An,Xn)",
            Mode::AbsW => "absolute short",
            Mode::AbsL => "absolute long",
            Mode::PcDisp => "PC-relative (d16,PC)",
            Mode::PcIndex => "PC-relative (d8,PC,Xn)",
            Mode::Imm => "immediate",
            Mode::Invalid => "nonexistent (mode 7, register 5-7)",
        }
    }
}

/// A set of addressing modes (Motorola's addressing categories).
type Modes = u16;
const M_DN: Modes = 1 << Mode::Dn as u16;
const M_AN: Modes = 1 << Mode::An as u16;
const M_IND: Modes = 1 << Mode::Ind as u16;
const M_POSTINC: Modes = 1 << Mode::PostInc as u16;
const M_PREDEC: Modes = 1 << Mode::PreDec as u16;
const M_DISP: Modes = 1 << Mode::Disp as u16;
const M_INDEX: Modes = 1 << Mode::Index as u16;
const M_ABSW: Modes = 1 << Mode::AbsW as u16;
const M_ABSL: Modes = 1 << Mode::AbsL as u16;
const M_PCDISP: Modes = 1 << Mode::PcDisp as u16;
const M_PCINDEX: Modes = 1 << Mode::PcIndex as u16;
const M_IMM: Modes = 1 << Mode::Imm as u16;
/// Every mode.
const ALL: Modes = 0x0FFF;
/// Data addressing modes (all but An).
const DATA: Modes = ALL & !M_AN;
/// Memory addressing modes.
const MEM: Modes = DATA & !M_DN;
/// Control addressing modes.
const CTRL: Modes = M_IND | M_DISP | M_INDEX | M_ABSW | M_ABSL | M_PCDISP | M_PCINDEX;
/// Alterable addressing modes.
const ALT: Modes = M_DN | M_AN | M_IND | M_POSTINC | M_PREDEC | M_DISP | M_INDEX | M_ABSW | M_ABSL;
const DATA_ALT: Modes = ALT & DATA;
const MEM_ALT: Modes = ALT & MEM;
const CTRL_ALT: Modes = CTRL & ALT;
const PC_REL: Modes = M_PCDISP | M_PCINDEX;

/// A decoded effective address.
struct Ea {
    mode: Mode,
    text: String,
    /// Statically known target of a `(d16,PC)` operand.
    pc_target: Option<u32>,
    /// Value of an absolute `(xxx).w`/`(xxx).l` operand.
    abs: Option<u32>,
}

fn dreg(n: u16) -> String {
    format!("%d{}", n & 7)
}

fn areg(n: u16) -> String {
    match n & 7 {
        7 => "%sp".to_string(),
        6 => "%fp".to_string(),
        n => format!("%a{n}"),
    }
}

/// `%dN` or `%aN` from a 4-bit D/A + register field (bit 3 = address register).
fn da_reg(n: u16) -> String {
    if n & 8 != 0 { areg(n) } else { dreg(n) }
}

fn signed(v: u32, size: Size) -> i64 {
    match size {
        Size::Byte => i64::from(v as u8 as i8),
        Size::Word => i64::from(v as u16 as i16),
        Size::Long => i64::from(v as i32),
    }
}

fn imm_text(v: u32, size: Size) -> String {
    let s = signed(v, size);
    if (-4096..=4096).contains(&s) {
        format!("#{s}")
    } else {
        format!("#{v:#x}")
    }
}

/// A MOVEM register list; `mask` bit 0 is D0 … bit 15 is A7, or reversed for `-(An)`.
fn reg_list(mask: u16, predec: bool) -> String {
    let mask = if predec { mask.reverse_bits() } else { mask };
    if mask == 0 {
        return "#0".to_string();
    }
    let mut parts = Vec::new();
    for (base, name) in [(0u16, 'd'), (8u16, 'a')] {
        let mut i = 0;
        while i < 8 {
            if mask & (1 << (base + i)) == 0 {
                i += 1;
                continue;
            }
            let start = i;
            while i + 1 < 8 && mask & (1 << (base + i + 1)) != 0 {
                i += 1;
            }
            let reg = |n: u16| if name == 'a' { areg(n) } else { dreg(n) };
            if start == i {
                parts.push(reg(start));
            } else {
                parts.push(format!("{}-{}", reg(start), reg(i)));
            }
            i += 1;
        }
    }
    parts.join("/")
}

// ---------------------------------------------------------------------------
// The decoder state

struct Dec<'a> {
    code: &'a [u8],
    start: usize,
    pos: usize,
    addr: u32,
    op: u16,
    words: Vec<u16>,
    mnemonic: String,
    operands: Vec<String>,
    kind: Kind,
    min_cpu: Cpu,
    privilege: Privilege,
    illegal: Option<String>,
    flags: FlagEffect,
    reads: Ccr,
    flow: Flow,
}

type R<T> = Result<T, DecodeError>;

impl<'a> Dec<'a> {
    fn word(&mut self) -> R<u16> {
        match self.code.get(self.pos..self.pos + 2) {
            Some(b) => {
                let w = u16::from_be_bytes([b[0], b[1]]);
                self.pos += 2;
                self.words.push(w);
                Ok(w)
            }
            None => Err(DecodeError::Truncated {
                offset: self.start,
                needed: self.pos + 2 - self.start,
            }),
        }
    }

    fn long(&mut self) -> R<u32> {
        let hi = u32::from(self.word()?);
        let lo = u32::from(self.word()?);
        Ok(hi << 16 | lo)
    }

    /// Run-time address of the next unread word.
    fn here(&self) -> u32 {
        self.addr.wrapping_add((self.pos - self.start) as u32)
    }

    fn unknown(&self) -> DecodeError {
        DecodeError::Unknown { word: self.op }
    }

    fn need(&mut self, cpu: Cpu) {
        self.min_cpu = self.min_cpu.max(cpu);
    }

    fn bad(&mut self, why: impl Into<String>) {
        if self.illegal.is_none() {
            self.illegal = Some(why.into());
        }
    }

    fn set(&mut self, mnemonic: impl Into<String>, flags: FlagEffect) {
        self.mnemonic = mnemonic.into();
        self.flags = flags;
    }

    fn arg(&mut self, s: impl Into<String>) {
        self.operands.push(s.into());
    }

    fn imm(&mut self, size: Size) -> R<u32> {
        Ok(match size {
            Size::Byte => u32::from(self.word()? & 0xFF),
            Size::Word => u32::from(self.word()?),
            Size::Long => self.long()?,
        })
    }

    /// Decodes the EA in the low six bits of the opcode (mode in bits 5–3).
    fn ea(&mut self, size: Size, allowed: Modes) -> R<Ea> {
        let (mode, reg) = ((self.op >> 3) & 7, self.op & 7);
        self.ea_at(mode, reg, size, allowed, allowed)
    }

    /// Like [`Dec::ea`], with the larger set of modes the 68020 accepts.
    fn ea020(&mut self, size: Size, allowed: Modes, allowed020: Modes) -> R<Ea> {
        let (mode, reg) = ((self.op >> 3) & 7, self.op & 7);
        self.ea_at(mode, reg, size, allowed, allowed020)
    }

    /// Decodes an EA given as mode and register, reading its extension words.
    fn ea_at(
        &mut self,
        mode: u16,
        reg: u16,
        size: Size,
        allowed: Modes,
        allowed020: Modes,
    ) -> R<Ea> {
        let m = Mode::of(mode, reg);
        if m.bit() & allowed == 0 {
            if m.bit() & allowed020 != 0 {
                self.need(Cpu::M68020);
            } else if m.bit() & (PC_REL | M_IMM) != 0 && allowed & !ALT == 0 {
                self.bad(format!(
                    "{} destination operand is not writable",
                    m.describe()
                ));
            } else {
                self.bad(format!(
                    "{} addressing mode is not allowed here",
                    m.describe()
                ));
            }
        }
        let mut ea = Ea {
            mode: m,
            text: String::new(),
            pc_target: None,
            abs: None,
        };
        ea.text = match m {
            Mode::Dn => dreg(reg),
            Mode::An => areg(reg),
            Mode::Ind => format!("({})", areg(reg)),
            Mode::PostInc => format!("({})+", areg(reg)),
            Mode::PreDec => format!("-({})", areg(reg)),
            Mode::Disp => format!("({},{})", self.word()? as i16, areg(reg)),
            Mode::Index => self.index(&areg(reg))?,
            Mode::AbsW => {
                let w = self.word()?;
                ea.abs = Some(w as i16 as i32 as u32);
                format!("({w:#x}).w")
            }
            Mode::AbsL => {
                let l = self.long()?;
                ea.abs = Some(l);
                format!("({l:#x}).l")
            }
            Mode::PcDisp => {
                let base = self.here();
                let d = self.word()? as i16;
                ea.pc_target = Some(base.wrapping_add(d as i32 as u32));
                format!("({d},%pc)")
            }
            Mode::PcIndex => self.index("%pc")?,
            Mode::Imm => {
                let v = self.imm(size)?;
                imm_text(v, size)
            }
            Mode::Invalid => "?".to_string(),
        };
        Ok(ea)
    }

    /// Decodes a brief or full-format index extension word for base `base`.
    fn index(&mut self, base: &str) -> R<String> {
        let ext = self.word()?;
        let xn = format!(
            "{}.{}",
            da_reg(ext >> 12),
            if ext & 0x800 != 0 { "l" } else { "w" }
        );
        let scale = 1u16 << ((ext >> 9) & 3);
        let xn = if scale != 1 {
            format!("{xn}*{scale}")
        } else {
            xn
        };
        if scale != 1 {
            // The 68000/68010 ignore the scale bits: the encoding means
            // something else there.
            self.need(Cpu::M68020);
        }
        if ext & 0x100 == 0 {
            let d8 = ext as u8 as i8;
            return Ok(format!("({d8},{base},{xn})"));
        }
        // Full-format extension word (68020+).
        self.need(Cpu::M68020);
        let bs = ext & 0x80 != 0;
        let is = ext & 0x40 != 0;
        if ext & 0x08 != 0 {
            self.bad("full extension word with reserved bit 3 set");
        }
        let bd: i64 = match (ext >> 4) & 3 {
            0 => {
                self.bad("full extension word with reserved base displacement size");
                0
            }
            1 => 0,
            2 => i64::from(self.word()? as i16),
            _ => i64::from(self.long()? as i32),
        };
        let iis = ext & 7;
        let (indirect, post, od): (bool, bool, i64) = match (is, iis) {
            (_, 0) => (false, false, 0),
            (false, 1) => (true, false, 0),
            (false, 2) => (true, false, i64::from(self.word()? as i16)),
            (false, 3) => (true, false, i64::from(self.long()? as i32)),
            (false, 5) => (true, true, 0),
            (false, 6) => (true, true, i64::from(self.word()? as i16)),
            (false, 7) => (true, true, i64::from(self.long()? as i32)),
            (true, 1) => (true, false, 0),
            (true, 2) => (true, false, i64::from(self.word()? as i16)),
            (true, 3) => (true, false, i64::from(self.long()? as i32)),
            _ => {
                self.bad("full extension word with reserved index/indirect selection");
                (false, false, 0)
            }
        };
        let mut inner = vec![bd.to_string()];
        if !bs {
            inner.push(base.to_string());
        }
        let index = (!is).then_some(xn);
        if !indirect {
            inner.extend(index);
            return Ok(format!("({})", inner.join(",")));
        }
        if !post {
            inner.extend(index.clone());
        }
        let mut outer = vec![format!("[{}]", inner.join(","))];
        if post {
            outer.extend(index);
        }
        outer.push(od.to_string());
        Ok(format!("({})", outer.join(",")))
    }

    /// Marks byte-sized access to an address register as illegal.
    fn no_byte_an(&mut self, ea: &Ea, size: Size) {
        if size == Size::Byte && ea.mode == Mode::An {
            self.bad("byte-size operation on an address register");
        }
    }

    fn finish(self) -> Insn {
        let text = if self.operands.is_empty() {
            self.mnemonic.clone()
        } else {
            format!("{} {}", self.mnemonic, self.operands.join(","))
        };
        Insn {
            addr: self.addr,
            len: self.pos - self.start,
            words: self.words,
            mnemonic: self.mnemonic,
            text,
            kind: self.kind,
            min_cpu: self.min_cpu,
            privilege: self.privilege,
            illegal: self.illegal,
            flags: self.flags,
            reads: self.reads,
            flow: self.flow,
        }
    }
}

/// Size from bits 7–6 (00 byte, 01 word, 10 long; 11 is not a size).
fn size67(op: u16) -> Option<Size> {
    match (op >> 6) & 3 {
        0 => Some(Size::Byte),
        1 => Some(Size::Word),
        2 => Some(Size::Long),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// The opcode table

type Handler = fn(&mut Dec<'_>) -> R<()>;

/// `opcode & mask == bits` selects `handler`; the first match wins, so more
/// specific patterns come first.
struct Entry {
    mask: u16,
    bits: u16,
    handler: Handler,
}

const fn e(mask: u16, bits: u16, handler: Handler) -> Entry {
    Entry {
        mask,
        bits,
        handler,
    }
}

static TABLE: &[Entry] = &[
    // Line 0: bit manipulation, MOVEP, immediate.
    e(0xFFBF, 0x003C, h_logic_ccr_sr), // ORI to CCR/SR
    e(0xFFBF, 0x023C, h_logic_ccr_sr), // ANDI to CCR/SR
    e(0xFFBF, 0x0A3C, h_logic_ccr_sr), // EORI to CCR/SR
    e(0xFDFF, 0x0CFC, h_cas2),
    e(0xFFF0, 0x06C0, h_rtm),
    e(0xFFC0, 0x06C0, h_callm),
    e(0xF9C0, 0x00C0, h_chk2_cmp2),
    e(0xFF00, 0x0800, h_bit_static),
    e(0xF9C0, 0x08C0, h_cas),
    e(0xF138, 0x0108, h_movep),
    e(0xF100, 0x0100, h_bit_dynamic),
    e(0xFF00, 0x0E00, h_moves),
    e(0xF100, 0x0000, h_immediate),
    // Lines 1-3: MOVE, MOVEA.
    e(0xF000, 0x1000, h_move),
    e(0xF000, 0x2000, h_move),
    e(0xF000, 0x3000, h_move),
    // Line 4: miscellaneous.
    e(0xFFFF, 0x4AFC, h_illegal),
    e(0xFFF8, 0x4E70, h_4e7x),
    e(0xFFFE, 0x4E7A, h_movec),
    e(0xFFF0, 0x4E40, h_trap),
    e(0xFFF8, 0x4E50, h_link),
    e(0xFFF8, 0x4E58, h_unlk),
    e(0xFFF0, 0x4E60, h_move_usp),
    e(0xFF80, 0x4E80, h_jsr_jmp),
    e(0xFFF8, 0x4808, h_link_l),
    e(0xFFF8, 0x4840, h_swap),
    e(0xFFF8, 0x4848, h_bkpt),
    e(0xFFF8, 0x4880, h_ext), // EXT.W
    e(0xFFF8, 0x48C0, h_ext), // EXT.L
    e(0xFFF8, 0x49C0, h_ext), // EXTB.L
    e(0xFFC0, 0x4800, h_nbcd),
    e(0xFFC0, 0x4840, h_pea),
    e(0xFB80, 0x4880, h_movem),
    e(0xFFC0, 0x4C00, h_mul_l),
    e(0xFFC0, 0x4C40, h_div_l),
    e(0xF9C0, 0x40C0, h_move_sr_ccr), // MOVE from SR/CCR, to CCR/SR
    e(0xFFC0, 0x4AC0, h_tas),
    e(0xF900, 0x4000, h_unary), // NEGX, CLR, NEG, NOT
    e(0xFF00, 0x4A00, h_tst),
    e(0xF1C0, 0x41C0, h_lea),
    e(0xF140, 0x4100, h_chk),
    // Line 5: ADDQ, SUBQ, Scc, DBcc, TRAPcc.
    e(0xF0F8, 0x50C8, h_dbcc),
    e(0xF0F8, 0x50F8, h_trapcc),
    e(0xF0C0, 0x50C0, h_scc),
    e(0xF000, 0x5000, h_addq_subq),
    // Line 6: Bcc, BRA, BSR.  Line 7: MOVEQ.
    e(0xF000, 0x6000, h_bcc),
    e(0xF100, 0x7000, h_moveq),
    // Line 8: OR, DIVU/DIVS, SBCD, PACK, UNPK.
    e(0xF0C0, 0x80C0, h_div_w),
    e(0xF1F0, 0x8100, h_abcd_sbcd),
    e(0xF1F0, 0x8140, h_pack_unpk),
    e(0xF1F0, 0x8180, h_pack_unpk),
    e(0xF000, 0x8000, h_or_and),
    // Line 9: SUB, SUBA, SUBX.
    e(0xF0C0, 0x90C0, h_adda_suba),
    e(0xF130, 0x9100, h_addx_subx),
    e(0xF000, 0x9000, h_add_sub),
    // Line A: Mac OS traps.
    e(0xF000, 0xA000, h_aline),
    // Line B: CMP, CMPA, CMPM, EOR.
    e(0xF0C0, 0xB0C0, h_cmpa),
    e(0xF138, 0xB108, h_cmpm),
    e(0xF100, 0xB100, h_eor),
    e(0xF100, 0xB000, h_cmp),
    // Line C: AND, MULU/MULS, ABCD, EXG.
    e(0xF0C0, 0xC0C0, h_mul_w),
    e(0xF1F0, 0xC100, h_abcd_sbcd),
    e(0xF1F8, 0xC140, h_exg),
    e(0xF1F8, 0xC148, h_exg),
    e(0xF1F8, 0xC188, h_exg),
    e(0xF000, 0xC000, h_or_and),
    // Line D: ADD, ADDA, ADDX.
    e(0xF0C0, 0xD0C0, h_adda_suba),
    e(0xF130, 0xD100, h_addx_subx),
    e(0xF000, 0xD000, h_add_sub),
    // Line E: shifts, rotates, bit fields.
    e(0xF8C0, 0xE8C0, h_bitfield),
    e(0xF8C0, 0xE0C0, h_shift_memory),
    e(0xF000, 0xE000, h_shift_register),
    // Line F: coprocessor, MOVE16, cache.
    e(0xF000, 0xF000, h_fline),
];

/// Decodes the instruction at `code[offset..]` (big-endian words) whose
/// run-time address is `addr`.
pub fn decode(code: &[u8], offset: usize, addr: u32) -> Result<Insn, DecodeError> {
    let mut d = Dec {
        code,
        start: offset,
        pos: offset,
        addr,
        op: 0,
        words: Vec::with_capacity(3),
        mnemonic: String::new(),
        operands: Vec::new(),
        kind: Kind::Other,
        min_cpu: Cpu::M68000,
        privilege: Privilege::User,
        illegal: None,
        flags: FlagEffect::NONE,
        reads: Ccr::NONE,
        flow: Flow::SEQ,
    };
    let op = d.word()?;
    d.op = op;
    let entry = TABLE
        .iter()
        .find(|e| op & e.mask == e.bits)
        .ok_or(DecodeError::Unknown { word: op })?;
    (entry.handler)(&mut d)?;
    Ok(d.finish())
}

// ---------------------------------------------------------------------------
// Line 0

fn h_logic_ccr_sr(d: &mut Dec<'_>) -> R<()> {
    let name = match d.op & 0x0F00 {
        0x0000 => "ori",
        0x0200 => "andi",
        _ => "eori",
    };
    let to_sr = d.op & 0x40 != 0;
    let v = d.word()?;
    if to_sr {
        d.set(format!("{name}.w"), FlagEffect::XNZVC);
        d.privilege = Privilege::Supervisor;
        d.arg(imm_text(u32::from(v), Size::Word));
        d.arg("%sr");
    } else {
        d.set(format!("{name}.b"), FlagEffect::XNZVC);
        d.arg(imm_text(u32::from(v & 0xFF), Size::Byte));
        d.arg("%ccr");
    }
    d.reads = Ccr::ALL;
    Ok(())
}

fn h_immediate(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    let (name, flags) = match (d.op >> 9) & 7 {
        0 => ("ori", FlagEffect::NZVC),
        1 => ("andi", FlagEffect::NZVC),
        2 => ("subi", FlagEffect::XNZVC),
        3 => ("addi", FlagEffect::XNZVC),
        5 => ("eori", FlagEffect::NZVC),
        6 => ("cmpi", FlagEffect::NZVC),
        _ => return Err(d.unknown()),
    };
    let v = d.imm(size)?;
    let dst = if name == "cmpi" {
        d.ea020(size, DATA_ALT, DATA_ALT | PC_REL)?
    } else {
        d.ea(size, DATA_ALT)?
    };
    d.set(format!("{name}.{}", size.suffix()), flags);
    d.arg(imm_text(v, size));
    d.arg(dst.text);
    Ok(())
}

const BIT_OPS: [&str; 4] = ["btst", "bchg", "bclr", "bset"];

fn h_bit_static(d: &mut Dec<'_>) -> R<()> {
    let ty = usize::from((d.op >> 6) & 3);
    let n = d.word()?;
    let allowed = if ty == 0 { DATA & !M_IMM } else { DATA_ALT };
    let ea = d.ea(Size::Byte, allowed)?;
    d.set(BIT_OPS[ty], FlagEffect::Z);
    d.arg(format!("#{}", n & 0xFF));
    d.arg(ea.text);
    Ok(())
}

fn h_bit_dynamic(d: &mut Dec<'_>) -> R<()> {
    let ty = usize::from((d.op >> 6) & 3);
    let allowed = if ty == 0 { DATA } else { DATA_ALT };
    let ea = d.ea(Size::Byte, allowed)?;
    d.set(BIT_OPS[ty], FlagEffect::Z);
    d.arg(dreg(d.op >> 9));
    d.arg(ea.text);
    Ok(())
}

fn h_movep(d: &mut Dec<'_>) -> R<()> {
    let opmode = (d.op >> 6) & 3;
    let disp = d.word()? as i16;
    let mem = format!("({disp},{})", areg(d.op));
    let reg = dreg(d.op >> 9);
    d.set(
        if opmode & 1 != 0 {
            "movep.l"
        } else {
            "movep.w"
        },
        FlagEffect::NONE,
    );
    if opmode & 2 != 0 {
        d.arg(reg);
        d.arg(mem);
    } else {
        d.arg(mem);
        d.arg(reg);
    }
    Ok(())
}

fn h_moves(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    let ext = d.word()?;
    if ext & 0x07FF != 0 {
        d.bad("MOVES extension word with reserved bits set");
    }
    let ea = d.ea(size, MEM_ALT)?;
    d.need(Cpu::M68010);
    d.privilege = Privilege::Supervisor;
    d.set(format!("moves.{}", size.suffix()), FlagEffect::NONE);
    let reg = da_reg(ext >> 12);
    if ext & 0x0800 != 0 {
        d.arg(reg);
        d.arg(ea.text);
    } else {
        d.arg(ea.text);
        d.arg(reg);
    }
    Ok(())
}

fn h_cas(d: &mut Dec<'_>) -> R<()> {
    let size = match (d.op >> 9) & 3 {
        1 => Size::Byte,
        2 => Size::Word,
        _ => Size::Long,
    };
    let ext = d.word()?;
    let ea = d.ea(size, MEM_ALT)?;
    d.need(Cpu::M68020);
    d.set(format!("cas.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(dreg(ext));
    d.arg(dreg(ext >> 6));
    d.arg(ea.text);
    Ok(())
}

fn h_cas2(d: &mut Dec<'_>) -> R<()> {
    let size = if d.op & 0x0200 != 0 {
        Size::Long
    } else {
        Size::Word
    };
    let e1 = d.word()?;
    let e2 = d.word()?;
    d.need(Cpu::M68020);
    d.set(format!("cas2.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(format!("{}:{}", dreg(e1), dreg(e2)));
    d.arg(format!("{}:{}", dreg(e1 >> 6), dreg(e2 >> 6)));
    d.arg(format!("({}):({})", da_reg(e1 >> 12), da_reg(e2 >> 12)));
    Ok(())
}

fn h_chk2_cmp2(d: &mut Dec<'_>) -> R<()> {
    let size = match (d.op >> 9) & 3 {
        0 => Size::Byte,
        1 => Size::Word,
        _ => Size::Long,
    };
    let ext = d.word()?;
    let ea = d.ea(size, CTRL)?;
    d.need(Cpu::M68020);
    let name = if ext & 0x0800 != 0 { "chk2" } else { "cmp2" };
    d.set(format!("{name}.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(ea.text);
    d.arg(da_reg(ext >> 12));
    Ok(())
}

fn h_callm(d: &mut Dec<'_>) -> R<()> {
    let ext = d.word()?;
    let ea = d.ea(Size::Long, CTRL)?;
    d.need(Cpu::M68020);
    d.set("callm", FlagEffect::UNKNOWN);
    d.arg(format!("#{}", ext & 0xFF));
    d.arg(ea.text);
    d.flow.is_call = true;
    d.flow.is_indirect = true;
    Ok(())
}

fn h_rtm(d: &mut Dec<'_>) -> R<()> {
    d.need(Cpu::M68020);
    d.set("rtm", FlagEffect::UNKNOWN);
    d.arg(da_reg(d.op));
    d.flow.falls_through = false;
    d.flow.is_return = true;
    Ok(())
}

// ---------------------------------------------------------------------------
// Lines 1-3

fn h_move(d: &mut Dec<'_>) -> R<()> {
    let size = match (d.op >> 12) & 3 {
        1 => Size::Byte,
        3 => Size::Word,
        _ => Size::Long,
    };
    let src = d.ea(size, ALL)?;
    d.no_byte_an(&src, size);
    let (dmode, dreg_) = ((d.op >> 6) & 7, (d.op >> 9) & 7);
    if dmode == 1 {
        if size == Size::Byte {
            d.bad("MOVEA has no byte size");
        }
        d.set(format!("movea.{}", size.suffix()), FlagEffect::NONE);
        d.arg(src.text);
        d.arg(areg(dreg_));
    } else {
        let dst = d.ea_at(dmode, dreg_, size, DATA_ALT, DATA_ALT)?;
        d.set(format!("move.{}", size.suffix()), FlagEffect::COPY);
        d.arg(src.text);
        d.arg(dst.text);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Line 4

fn h_illegal(d: &mut Dec<'_>) -> R<()> {
    d.set("illegal", FlagEffect::UNKNOWN);
    d.kind = Kind::Illegal;
    d.flow.falls_through = false;
    Ok(())
}

fn h_4e7x(d: &mut Dec<'_>) -> R<()> {
    match d.op & 7 {
        0 => {
            d.set("reset", FlagEffect::NONE);
            d.privilege = Privilege::Supervisor;
        }
        1 => d.set("nop", FlagEffect::NONE),
        2 => {
            let v = d.word()?;
            d.set("stop", FlagEffect::XNZVC);
            d.arg(format!("#{v:#x}"));
            d.privilege = Privilege::Supervisor;
        }
        3 => {
            d.set("rte", FlagEffect::UNKNOWN);
            d.privilege = Privilege::Supervisor;
            d.flow.falls_through = false;
            d.flow.is_return = true;
        }
        4 => {
            let disp = d.word()? as i16;
            d.need(Cpu::M68010);
            d.set("rtd", FlagEffect::UNKNOWN);
            d.arg(format!("#{disp}"));
            d.flow.falls_through = false;
            d.flow.is_return = true;
        }
        5 => {
            d.set("rts", FlagEffect::UNKNOWN);
            d.flow.falls_through = false;
            d.flow.is_return = true;
        }
        6 => {
            d.set("trapv", FlagEffect::NONE);
            d.kind = Kind::TrapCc(Cond::Vs);
            d.reads = Ccr::V;
        }
        _ => {
            d.set("rtr", FlagEffect::UNKNOWN);
            d.flow.falls_through = false;
            d.flow.is_return = true;
        }
    }
    Ok(())
}

/// Name and least CPU of a MOVEC control register.
fn control_register(code: u16) -> Option<(&'static str, Cpu)> {
    Some(match code {
        0x000 => ("%sfc", Cpu::M68010),
        0x001 => ("%dfc", Cpu::M68010),
        0x800 => ("%usp", Cpu::M68010),
        0x801 => ("%vbr", Cpu::M68010),
        0x002 => ("%cacr", Cpu::M68020),
        0x802 => ("%caar", Cpu::M68020),
        0x803 => ("%msp", Cpu::M68020),
        0x804 => ("%isp", Cpu::M68020),
        0x003 => ("%tc", Cpu::M68040),
        0x004 => ("%itt0", Cpu::M68040),
        0x005 => ("%itt1", Cpu::M68040),
        0x006 => ("%dtt0", Cpu::M68040),
        0x007 => ("%dtt1", Cpu::M68040),
        0x805 => ("%mmusr", Cpu::M68040),
        0x806 => ("%urp", Cpu::M68040),
        0x807 => ("%srp", Cpu::M68040),
        _ => return None,
    })
}

fn h_movec(d: &mut Dec<'_>) -> R<()> {
    let ext = d.word()?;
    d.need(Cpu::M68010);
    d.privilege = Privilege::Supervisor;
    let ctrl = match control_register(ext & 0x0FFF) {
        Some((name, cpu)) => {
            d.need(cpu);
            name.to_string()
        }
        None => {
            d.bad("MOVEC with an unknown control register");
            format!("#{:#x}", ext & 0x0FFF)
        }
    };
    d.set("movec", FlagEffect::NONE);
    let reg = da_reg(ext >> 12);
    if d.op & 1 != 0 {
        d.arg(reg);
        d.arg(ctrl);
    } else {
        d.arg(ctrl);
        d.arg(reg);
    }
    Ok(())
}

fn h_trap(d: &mut Dec<'_>) -> R<()> {
    d.set("trap", FlagEffect::UNKNOWN);
    d.arg(format!("#{}", d.op & 15));
    d.flow.is_call = true;
    Ok(())
}

fn h_link(d: &mut Dec<'_>) -> R<()> {
    let disp = d.word()? as i16;
    d.set("link.w", FlagEffect::NONE);
    d.arg(areg(d.op));
    d.arg(format!("#{disp}"));
    Ok(())
}

fn h_link_l(d: &mut Dec<'_>) -> R<()> {
    let disp = d.long()? as i32;
    d.need(Cpu::M68020);
    d.set("link.l", FlagEffect::NONE);
    d.arg(areg(d.op));
    d.arg(format!("#{disp}"));
    Ok(())
}

fn h_unlk(d: &mut Dec<'_>) -> R<()> {
    d.set("unlk", FlagEffect::NONE);
    d.arg(areg(d.op));
    Ok(())
}

fn h_move_usp(d: &mut Dec<'_>) -> R<()> {
    d.set("move.l", FlagEffect::NONE);
    d.privilege = Privilege::Supervisor;
    if d.op & 8 != 0 {
        d.arg("%usp");
        d.arg(areg(d.op));
    } else {
        d.arg(areg(d.op));
        d.arg("%usp");
    }
    Ok(())
}

fn h_jsr_jmp(d: &mut Dec<'_>) -> R<()> {
    let jsr = d.op & 0x40 == 0;
    let ea = d.ea(Size::Long, CTRL)?;
    d.flow.target = ea.pc_target;
    d.flow.abs_target = ea.abs;
    d.flow.is_indirect = ea.pc_target.is_none() && ea.abs.is_none();
    if jsr {
        d.set("jsr", FlagEffect::UNKNOWN);
        d.flow.is_call = true;
    } else {
        d.set("jmp", FlagEffect::NONE);
        d.flow.falls_through = false;
    }
    d.arg(ea.text);
    Ok(())
}

fn h_swap(d: &mut Dec<'_>) -> R<()> {
    d.set("swap", FlagEffect::NZVC);
    d.arg(dreg(d.op));
    Ok(())
}

fn h_bkpt(d: &mut Dec<'_>) -> R<()> {
    d.need(Cpu::M68010);
    d.set("bkpt", FlagEffect::UNKNOWN);
    d.arg(format!("#{}", d.op & 7));
    d.flow.is_call = true;
    Ok(())
}

fn h_ext(d: &mut Dec<'_>) -> R<()> {
    let name = match d.op & 0x01C0 {
        0x0080 => "ext.w",
        0x00C0 => "ext.l",
        0x01C0 => {
            d.need(Cpu::M68020);
            "extb.l"
        }
        _ => return Err(d.unknown()),
    };
    d.set(name, FlagEffect::NZVC);
    d.arg(dreg(d.op));
    Ok(())
}

fn h_nbcd(d: &mut Dec<'_>) -> R<()> {
    let ea = d.ea(Size::Byte, DATA_ALT)?;
    d.set("nbcd", FlagEffect::XNZVC);
    d.reads = Ccr::X | Ccr::Z;
    d.arg(ea.text);
    Ok(())
}

fn h_pea(d: &mut Dec<'_>) -> R<()> {
    let ea = d.ea(Size::Long, CTRL)?;
    d.set("pea", FlagEffect::NONE);
    d.arg(ea.text);
    Ok(())
}

fn h_movem(d: &mut Dec<'_>) -> R<()> {
    let to_regs = d.op & 0x0400 != 0;
    let size = if d.op & 0x40 != 0 {
        Size::Long
    } else {
        Size::Word
    };
    let mask = d.word()?;
    let ea = if to_regs {
        d.ea(size, CTRL | M_POSTINC)?
    } else {
        d.ea(size, CTRL_ALT | M_PREDEC)?
    };
    let list = reg_list(mask, ea.mode == Mode::PreDec);
    d.set(format!("movem.{}", size.suffix()), FlagEffect::NONE);
    if to_regs {
        d.arg(ea.text);
        d.arg(list);
    } else {
        d.arg(list);
        d.arg(ea.text);
    }
    Ok(())
}

fn h_mul_l(d: &mut Dec<'_>) -> R<()> {
    let ext = d.word()?;
    let ea = d.ea(Size::Long, DATA)?;
    d.need(Cpu::M68020);
    if ext & 0x83F8 != 0 {
        d.bad("MULx.L extension word with reserved bits set");
    }
    let name = if ext & 0x0800 != 0 {
        "muls.l"
    } else {
        "mulu.l"
    };
    d.set(name, FlagEffect::NZVC);
    d.arg(ea.text);
    let dl = dreg(ext >> 12);
    if ext & 0x0400 != 0 {
        d.arg(format!("{}:{dl}", dreg(ext)));
    } else {
        d.arg(dl);
    }
    Ok(())
}

fn h_div_l(d: &mut Dec<'_>) -> R<()> {
    let ext = d.word()?;
    let ea = d.ea(Size::Long, DATA)?;
    d.need(Cpu::M68020);
    if ext & 0x83F8 != 0 {
        d.bad("DIVx.L extension word with reserved bits set");
    }
    let signed = ext & 0x0800 != 0;
    let (dq, dr) = ((ext >> 12) & 7, ext & 7);
    let base = if signed { "divs" } else { "divu" };
    d.flags = FlagEffect::NZVC;
    d.arg(ea.text);
    if ext & 0x0400 != 0 {
        d.mnemonic = format!("{base}.l");
        d.arg(format!("{}:{}", dreg(dr), dreg(dq)));
    } else if dr == dq {
        d.mnemonic = format!("{base}.l");
        d.arg(dreg(dq));
    } else {
        d.mnemonic = format!("{base}l.l");
        d.arg(format!("{}:{}", dreg(dr), dreg(dq)));
    }
    Ok(())
}

fn h_move_sr_ccr(d: &mut Dec<'_>) -> R<()> {
    match (d.op >> 9) & 3 {
        0 => {
            // MOVE from SR: user mode on the 68000 only.
            let ea = d.ea(Size::Word, DATA_ALT)?;
            d.set("move.w", FlagEffect::NONE);
            d.privilege = Privilege::SupervisorFrom68010;
            d.reads = Ccr::ALL;
            d.arg("%sr");
            d.arg(ea.text);
        }
        1 => {
            let ea = d.ea(Size::Word, DATA_ALT)?;
            d.need(Cpu::M68010);
            d.set("move.w", FlagEffect::NONE);
            d.reads = Ccr::ALL;
            d.arg("%ccr");
            d.arg(ea.text);
        }
        n => {
            let ea = d.ea(Size::Word, DATA)?;
            d.set("move.w", FlagEffect::XNZVC);
            d.arg(ea.text);
            if n == 2 {
                d.arg("%ccr");
            } else {
                d.arg("%sr");
                d.privilege = Privilege::Supervisor;
            }
        }
    }
    Ok(())
}

fn h_tas(d: &mut Dec<'_>) -> R<()> {
    let ea = d.ea(Size::Byte, DATA_ALT)?;
    d.set("tas", FlagEffect::NZVC);
    d.arg(ea.text);
    Ok(())
}

fn h_unary(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    let ea = d.ea(size, DATA_ALT)?;
    let (name, flags) = match (d.op >> 9) & 3 {
        0 => {
            d.reads = Ccr::X | Ccr::Z;
            ("negx", FlagEffect::XNZVC)
        }
        1 => ("clr", FlagEffect::COPY),
        2 => ("neg", FlagEffect::XNZVC),
        _ => ("not", FlagEffect::NZVC),
    };
    d.set(format!("{name}.{}", size.suffix()), flags);
    d.arg(ea.text);
    Ok(())
}

fn h_tst(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    let ea = d.ea020(size, DATA_ALT, ALL)?;
    d.no_byte_an(&ea, size);
    d.set(format!("tst.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(ea.text);
    Ok(())
}

fn h_lea(d: &mut Dec<'_>) -> R<()> {
    let ea = d.ea(Size::Long, CTRL)?;
    d.set("lea", FlagEffect::NONE);
    d.arg(ea.text);
    d.arg(areg(d.op >> 9));
    Ok(())
}

fn h_chk(d: &mut Dec<'_>) -> R<()> {
    let size = if d.op & 0x80 != 0 {
        Size::Word
    } else {
        Size::Long
    };
    let ea = d.ea(size, DATA)?;
    if size == Size::Long {
        d.need(Cpu::M68020);
    }
    d.set(format!("chk.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(ea.text);
    d.arg(dreg(d.op >> 9));
    Ok(())
}

// ---------------------------------------------------------------------------
// Line 5

fn h_dbcc(d: &mut Dec<'_>) -> R<()> {
    let cond = Cond::from_bits(d.op >> 8);
    let base = d.here();
    let disp = d.word()? as i16;
    let target = base.wrapping_add(disp as i32 as u32);
    d.set(format!("db{}", cond.name()), FlagEffect::NONE);
    d.kind = Kind::DBcc(cond);
    d.reads = cond.reads();
    d.flow.target = Some(target);
    d.arg(dreg(d.op));
    d.arg(format!("{target:#x}"));
    Ok(())
}

fn h_trapcc(d: &mut Dec<'_>) -> R<()> {
    let cond = Cond::from_bits(d.op >> 8);
    let name = format!("trap{}", cond.name());
    match d.op & 7 {
        0 | 1 => return h_scc(d),
        2 => {
            let v = d.word()?;
            d.set(format!("{name}.w"), FlagEffect::NONE);
            d.arg(imm_text(u32::from(v), Size::Word));
        }
        3 => {
            let v = d.long()?;
            d.set(format!("{name}.l"), FlagEffect::NONE);
            d.arg(imm_text(v, Size::Long));
        }
        4 => d.set(name, FlagEffect::NONE),
        _ => return Err(d.unknown()),
    }
    d.need(Cpu::M68020);
    d.kind = Kind::TrapCc(cond);
    d.reads = cond.reads();
    Ok(())
}

fn h_scc(d: &mut Dec<'_>) -> R<()> {
    let cond = Cond::from_bits(d.op >> 8);
    let ea = d.ea(Size::Byte, DATA_ALT)?;
    d.set(format!("s{}", cond.name()), FlagEffect::NONE);
    d.kind = Kind::Scc(cond);
    d.reads = cond.reads();
    d.arg(ea.text);
    Ok(())
}

fn h_addq_subq(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    let data = match (d.op >> 9) & 7 {
        0 => 8,
        n => n,
    };
    let ea = d.ea(size, ALT)?;
    let name = if d.op & 0x100 != 0 { "subq" } else { "addq" };
    let flags = if ea.mode == Mode::An {
        d.no_byte_an(&ea, size);
        FlagEffect::NONE
    } else {
        FlagEffect::XNZVC
    };
    d.set(format!("{name}.{}", size.suffix()), flags);
    d.arg(format!("#{data}"));
    d.arg(ea.text);
    Ok(())
}

// ---------------------------------------------------------------------------
// Lines 6-7

fn h_bcc(d: &mut Dec<'_>) -> R<()> {
    let cond = Cond::from_bits(d.op >> 8);
    let base = d.here();
    let (disp, size) = match d.op & 0xFF {
        0x00 => (i32::from(d.word()? as i16), BranchSize::Word),
        0xFF => (d.long()? as i32, BranchSize::Long),
        b => (i32::from(b as u8 as i8), BranchSize::Short),
    };
    if size == BranchSize::Long {
        d.need(Cpu::M68020);
    }
    let target = base.wrapping_add(disp as u32);
    let suffix = match size {
        BranchSize::Short => "s",
        BranchSize::Word => "w",
        BranchSize::Long => "l",
    };
    d.flow.target = Some(target);
    match cond {
        Cond::T => {
            d.set(format!("bra.{suffix}"), FlagEffect::NONE);
            d.kind = Kind::Bra(size);
            d.flow.falls_through = false;
        }
        Cond::F => {
            d.set(format!("bsr.{suffix}"), FlagEffect::UNKNOWN);
            d.kind = Kind::Bsr(size);
            d.flow.is_call = true;
        }
        c => {
            d.set(format!("b{}.{suffix}", c.name()), FlagEffect::NONE);
            d.kind = Kind::Bcc(c, size);
            d.reads = c.reads();
        }
    }
    d.arg(format!("{target:#x}"));
    Ok(())
}

fn h_moveq(d: &mut Dec<'_>) -> R<()> {
    d.set("moveq", FlagEffect::COPY);
    d.arg(format!("#{}", d.op as u8 as i8));
    d.arg(dreg(d.op >> 9));
    Ok(())
}

// ---------------------------------------------------------------------------
// Lines 8, 9, B, C, D

fn h_div_w(d: &mut Dec<'_>) -> R<()> {
    let ea = d.ea(Size::Word, DATA)?;
    let name = if d.op & 0x100 != 0 {
        "divs.w"
    } else {
        "divu.w"
    };
    d.set(name, FlagEffect::NZVC);
    d.arg(ea.text);
    d.arg(dreg(d.op >> 9));
    Ok(())
}

fn h_mul_w(d: &mut Dec<'_>) -> R<()> {
    let ea = d.ea(Size::Word, DATA)?;
    let name = if d.op & 0x100 != 0 {
        "muls.w"
    } else {
        "mulu.w"
    };
    d.set(name, FlagEffect::NZVC);
    d.arg(ea.text);
    d.arg(dreg(d.op >> 9));
    Ok(())
}

/// Operands of the register/predecrement pairs (ABCD, SBCD, ADDX, SUBX, PACK, UNPK).
fn rm_pair(op: u16) -> (String, String) {
    if op & 8 != 0 {
        (format!("-({})", areg(op)), format!("-({})", areg(op >> 9)))
    } else {
        (dreg(op), dreg(op >> 9))
    }
}

fn h_abcd_sbcd(d: &mut Dec<'_>) -> R<()> {
    let name = if d.op & 0xF000 == 0xC000 {
        "abcd"
    } else {
        "sbcd"
    };
    d.set(name, FlagEffect::XNZVC);
    d.reads = Ccr::X | Ccr::Z;
    let (src, dst) = rm_pair(d.op);
    d.arg(src);
    d.arg(dst);
    Ok(())
}

fn h_pack_unpk(d: &mut Dec<'_>) -> R<()> {
    let adj = d.word()?;
    d.need(Cpu::M68020);
    let name = if d.op & 0x40 != 0 { "pack" } else { "unpk" };
    d.set(name, FlagEffect::NONE);
    let (src, dst) = rm_pair(d.op);
    d.arg(src);
    d.arg(dst);
    d.arg(format!("#{adj}"));
    Ok(())
}

fn h_or_and(d: &mut Dec<'_>) -> R<()> {
    let name = if d.op & 0xF000 == 0x8000 { "or" } else { "and" };
    let size = size67(d.op).ok_or(d.unknown())?;
    let reg = dreg(d.op >> 9);
    d.set(format!("{name}.{}", size.suffix()), FlagEffect::NZVC);
    if d.op & 0x100 == 0 {
        let ea = d.ea(size, DATA)?;
        d.arg(ea.text);
        d.arg(reg);
    } else {
        let ea = d.ea(size, MEM_ALT)?;
        d.arg(reg);
        d.arg(ea.text);
    }
    Ok(())
}

fn h_exg(d: &mut Dec<'_>) -> R<()> {
    let (x, y) = match d.op & 0x01F8 {
        0x0140 => (dreg(d.op >> 9), dreg(d.op)),
        0x0148 => (areg(d.op >> 9), areg(d.op)),
        _ => (dreg(d.op >> 9), areg(d.op)),
    };
    d.set("exg", FlagEffect::NONE);
    d.arg(x);
    d.arg(y);
    Ok(())
}

fn add_or_sub(op: u16) -> &'static str {
    if op & 0xF000 == 0xD000 { "add" } else { "sub" }
}

fn h_add_sub(d: &mut Dec<'_>) -> R<()> {
    let name = add_or_sub(d.op);
    let size = size67(d.op).ok_or(d.unknown())?;
    let reg = dreg(d.op >> 9);
    d.set(format!("{name}.{}", size.suffix()), FlagEffect::XNZVC);
    if d.op & 0x100 == 0 {
        let ea = d.ea(size, ALL)?;
        d.no_byte_an(&ea, size);
        d.arg(ea.text);
        d.arg(reg);
    } else {
        let ea = d.ea(size, MEM_ALT)?;
        d.arg(reg);
        d.arg(ea.text);
    }
    Ok(())
}

fn h_adda_suba(d: &mut Dec<'_>) -> R<()> {
    let size = if d.op & 0x100 != 0 {
        Size::Long
    } else {
        Size::Word
    };
    let ea = d.ea(size, ALL)?;
    d.set(
        format!("{}a.{}", add_or_sub(d.op), size.suffix()),
        FlagEffect::NONE,
    );
    d.arg(ea.text);
    d.arg(areg(d.op >> 9));
    Ok(())
}

fn h_addx_subx(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    d.set(
        format!("{}x.{}", add_or_sub(d.op), size.suffix()),
        FlagEffect::XNZVC,
    );
    d.reads = Ccr::X | Ccr::Z;
    let (src, dst) = rm_pair(d.op);
    d.arg(src);
    d.arg(dst);
    Ok(())
}

fn h_cmpa(d: &mut Dec<'_>) -> R<()> {
    let size = if d.op & 0x100 != 0 {
        Size::Long
    } else {
        Size::Word
    };
    let ea = d.ea(size, ALL)?;
    d.set(format!("cmpa.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(ea.text);
    d.arg(areg(d.op >> 9));
    Ok(())
}

fn h_cmpm(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    d.set(format!("cmpm.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(format!("({})+", areg(d.op)));
    d.arg(format!("({})+", areg(d.op >> 9)));
    Ok(())
}

fn h_eor(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    let ea = d.ea(size, DATA_ALT)?;
    d.set(format!("eor.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(dreg(d.op >> 9));
    d.arg(ea.text);
    Ok(())
}

fn h_cmp(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    let ea = d.ea(size, ALL)?;
    d.no_byte_an(&ea, size);
    d.set(format!("cmp.{}", size.suffix()), FlagEffect::NZVC);
    d.arg(ea.text);
    d.arg(dreg(d.op >> 9));
    Ok(())
}

// ---------------------------------------------------------------------------
// Line A

fn h_aline(d: &mut Dec<'_>) -> R<()> {
    d.set("aline", FlagEffect::UNKNOWN);
    d.arg(format!("#{:#06x}", d.op));
    d.kind = Kind::ALineTrap(d.op);
    d.flow.is_call = true;
    Ok(())
}

// ---------------------------------------------------------------------------
// Line E

/// Shift/rotate type (bits 4–3 of a register shift, 10–9 of a memory shift):
/// name stem, flag effect and flags read.
fn shift_kind(ty: u16) -> (&'static str, FlagEffect, Ccr) {
    match ty & 3 {
        0 => ("as", FlagEffect::XNZVC, Ccr::NONE),
        1 => ("ls", FlagEffect::XNZVC, Ccr::NONE),
        2 => ("rox", FlagEffect::XNZVC, Ccr::X),
        _ => ("ro", FlagEffect::NZVC, Ccr::NONE),
    }
}

fn h_shift_register(d: &mut Dec<'_>) -> R<()> {
    let size = size67(d.op).ok_or(d.unknown())?;
    let (stem, flags, reads) = shift_kind(d.op >> 3);
    let dir = if d.op & 0x100 != 0 { "l" } else { "r" };
    let count = (d.op >> 9) & 7;
    d.set(format!("{stem}{dir}.{}", size.suffix()), flags);
    d.reads = reads;
    if d.op & 0x20 != 0 {
        d.arg(dreg(count));
    } else {
        d.arg(format!("#{}", if count == 0 { 8 } else { count }));
    }
    d.arg(dreg(d.op));
    Ok(())
}

fn h_shift_memory(d: &mut Dec<'_>) -> R<()> {
    let (stem, flags, reads) = shift_kind(d.op >> 9);
    let dir = if d.op & 0x100 != 0 { "l" } else { "r" };
    let ea = d.ea(Size::Word, MEM_ALT)?;
    d.set(format!("{stem}{dir}.w"), flags);
    d.reads = reads;
    d.arg(ea.text);
    Ok(())
}

fn h_bitfield(d: &mut Dec<'_>) -> R<()> {
    const NAMES: [&str; 8] = [
        "bftst", "bfextu", "bfchg", "bfexts", "bfclr", "bfffo", "bfset", "bfins",
    ];
    let ty = usize::from((d.op >> 8) & 7);
    let ext = d.word()?;
    let allowed = match ty {
        0 | 1 | 3 | 5 => CTRL | M_DN,
        _ => CTRL_ALT | M_DN,
    };
    let ea = d.ea(Size::Long, allowed)?;
    d.need(Cpu::M68020);
    if ext & 0x8000 != 0 {
        d.bad("bit field extension word with reserved bit 15 set");
    }
    let offset = if ext & 0x0800 != 0 {
        dreg(ext >> 6)
    } else {
        format!("#{}", (ext >> 6) & 31)
    };
    let width = if ext & 0x20 != 0 {
        dreg(ext)
    } else {
        format!(
            "#{}",
            match ext & 31 {
                0 => 32,
                w => w,
            }
        )
    };
    let field = format!("{}{{{offset}:{width}}}", ea.text);
    d.set(NAMES[ty], FlagEffect::NZVC);
    let reg = dreg(ext >> 12);
    match ty {
        1 | 3 | 5 => {
            d.arg(field);
            d.arg(reg);
        }
        7 => {
            d.arg(reg);
            d.arg(field);
        }
        _ => d.arg(field),
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Line F (best effort)

const FPU_CONDS: [&str; 32] = [
    "f", "eq", "ogt", "oge", "olt", "ole", "ogl", "or", "un", "ueq", "ugt", "uge", "ult", "ule",
    "ne", "t", "sf", "seq", "gt", "ge", "lt", "le", "gl", "gle", "ngle", "ngl", "nle", "nlt",
    "nge", "ngt", "sneq", "st",
];

fn fpu_op_name(opmode: u16) -> Option<&'static str> {
    Some(match opmode {
        0x00 => "fmove",
        0x01 => "fint",
        0x02 => "fsinh",
        0x03 => "fintrz",
        0x04 => "fsqrt",
        0x06 => "flognp1",
        0x08 => "fetoxm1",
        0x09 => "ftanh",
        0x0A => "fatan",
        0x0C => "fasin",
        0x0D => "fatanh",
        0x0E => "fsin",
        0x0F => "ftan",
        0x10 => "fetox",
        0x11 => "ftwotox",
        0x12 => "ftentox",
        0x14 => "flogn",
        0x15 => "flog10",
        0x16 => "flog2",
        0x18 => "fabs",
        0x19 => "fcosh",
        0x1A => "fneg",
        0x1C => "facos",
        0x1D => "fcos",
        0x1E => "fgetexp",
        0x1F => "fgetman",
        0x20 => "fdiv",
        0x21 => "fmod",
        0x22 => "fadd",
        0x23 => "fmul",
        0x24 => "fsgldiv",
        0x25 => "frem",
        0x26 => "fscale",
        0x27 => "fsglmul",
        0x28 => "fsub",
        0x30..=0x37 => "fsincos",
        0x38 => "fcmp",
        0x3A => "ftst",
        0x40 => "fsmove",
        0x41 => "fssqrt",
        0x44 => "fdmove",
        0x45 => "fdsqrt",
        0x58 => "fsabs",
        0x5A => "fsneg",
        0x5C => "fdabs",
        0x5E => "fdneg",
        0x60 => "fsdiv",
        0x62 => "fsadd",
        0x63 => "fsmul",
        0x64 => "fddiv",
        0x66 => "fdadd",
        0x67 => "fdmul",
        0x68 => "fssub",
        0x6C => "fdsub",
        _ => return None,
    })
}

fn h_fline(d: &mut Dec<'_>) -> R<()> {
    d.kind = Kind::FLine;
    d.flags = FlagEffect::NONE;
    d.need(Cpu::M68020);
    let cpid = (d.op >> 9) & 7;
    let ty = (d.op >> 6) & 7;
    match (cpid, ty) {
        (0, _) => fline_mmu(d),
        (1, _) => fline_fpu(d),
        (2, 0..=3) => fline_cache(d),
        (2, _) => fline_pflush040(d),
        (3, 0) if d.op & 0xFFC0 == 0xF600 => fline_move16(d),
        _ => {
            d.set("fline", FlagEffect::NONE);
            d.arg(format!("#{:#06x}", d.op));
            d.bad("unassigned coprocessor instruction");
            Ok(())
        }
    }
}

/// PMMU condition names (68851), bits 3–0 of the condition field.
const PMMU_CONDS: [&str; 16] = [
    "bs", "bc", "ls", "lc", "ss", "sc", "as", "ac", "ws", "wc", "is", "ic", "gs", "gc", "cs", "cc",
];

fn fline_mmu(d: &mut Dec<'_>) -> R<()> {
    // 68030 on-chip PMMU (PMOVE, PFLUSH, PLOAD, PTEST) or 68851: command word + EA.
    if (d.op >> 6) & 7 != 0 {
        // 68851 PBcc, PScc/PDBcc/PTRAPcc, PSAVE, PRESTORE.
        return fline_cp_control(d, "p", &PMMU_CONDS);
    }
    d.need(Cpu::M68030);
    d.privilege = Privilege::Supervisor;
    let cmd = d.word()?;
    let ea = d.ea(Size::Long, ALL)?;
    d.set("pmmu", FlagEffect::NONE);
    d.arg(format!("#{cmd:#06x}"));
    d.arg(ea.text);
    Ok(())
}

fn fline_cache(d: &mut Dec<'_>) -> R<()> {
    d.need(Cpu::M68040);
    d.privilege = Privilege::Supervisor;
    let caches = ["%nc", "%dc", "%ic", "%bc"][usize::from((d.op >> 6) & 3)];
    let push = d.op & 0x20 != 0;
    let scope = match (d.op >> 3) & 3 {
        1 => "l",
        2 => "p",
        3 => "a",
        _ => return Err(d.unknown()),
    };
    d.set(
        format!("{}{scope}", if push { "cpush" } else { "cinv" }),
        FlagEffect::NONE,
    );
    d.arg(caches);
    if scope != "a" {
        d.arg(format!("({})", areg(d.op)));
    }
    Ok(())
}

fn fline_pflush040(d: &mut Dec<'_>) -> R<()> {
    d.need(Cpu::M68040);
    d.privilege = Privilege::Supervisor;
    let an = format!("({})", areg(d.op));
    match d.op & 0xFFF8 {
        0xF500 => {
            d.set("pflushn", FlagEffect::NONE);
            d.arg(an);
        }
        0xF508 => {
            d.set("pflush", FlagEffect::NONE);
            d.arg(an);
        }
        0xF510 => d.set("pflushan", FlagEffect::NONE),
        0xF518 => d.set("pflusha", FlagEffect::NONE),
        0xF548 => {
            d.set("ptestw", FlagEffect::NONE);
            d.arg(an);
        }
        0xF568 => {
            d.set("ptestr", FlagEffect::NONE);
            d.arg(an);
        }
        _ => return Err(d.unknown()),
    }
    Ok(())
}

fn fline_move16(d: &mut Dec<'_>) -> R<()> {
    d.need(Cpu::M68040);
    d.set("move16", FlagEffect::NONE);
    if d.op & 0xFFF8 == 0xF620 {
        let ext = d.word()?;
        if ext & 0x8FFF != 0x8000 {
            d.bad("MOVE16 extension word with reserved bits set");
        }
        d.arg(format!("({})+", areg(d.op)));
        d.arg(format!("({})+", areg(ext >> 12)));
        return Ok(());
    }
    if d.op & 0xFFE0 != 0xF600 {
        return Err(d.unknown());
    }
    let abs = format!("({:#x}).l", d.long()?);
    let an = areg(d.op);
    let (src, dst) = match (d.op >> 3) & 3 {
        0 => (format!("({an})+"), abs),
        1 => (abs, format!("({an})+")),
        2 => (format!("({an})"), abs),
        _ => (abs, format!("({an})")),
    };
    d.arg(src);
    d.arg(dst);
    Ok(())
}

/// Operand size in bytes of an FPU data format (bits 12–10 of the command word).
fn fpu_format(fmt: u16) -> (&'static str, Size, u32) {
    match fmt & 7 {
        0 => ("l", Size::Long, 1),
        1 => ("s", Size::Long, 1),
        2 => ("x", Size::Long, 3),
        3 => ("p", Size::Long, 3),
        4 => ("w", Size::Word, 1),
        5 => ("d", Size::Long, 2),
        6 => ("b", Size::Byte, 1),
        _ => ("p", Size::Long, 3),
    }
}

/// Reads an FPU EA; an immediate operand is `longs` long words (or one word/byte).
fn fpu_ea(d: &mut Dec<'_>, size: Size, longs: u32, allowed: Modes) -> R<String> {
    let (mode, reg) = ((d.op >> 3) & 7, d.op & 7);
    if Mode::of(mode, reg) == Mode::Imm && longs > 1 {
        if allowed & M_IMM == 0 {
            d.bad("immediate operand is not allowed here");
        }
        let mut parts = Vec::new();
        for _ in 0..longs {
            parts.push(format!("{:08x}", d.long()?));
        }
        return Ok(format!("#0x{}", parts.join("")));
    }
    Ok(d.ea(size, allowed)?.text)
}

fn fline_fpu(d: &mut Dec<'_>) -> R<()> {
    if (d.op >> 6) & 7 == 0 {
        fpu_general(d)
    } else {
        fline_cp_control(d, "f", &FPU_CONDS)
    }
}

/// Coprocessor conditional and context instructions (types 1–5): cpScc,
/// cpDBcc, cpTRAPcc, cpBcc (word and long), cpSAVE, cpRESTORE.  `prefix` is
/// `f` for the FPU and `p` for the 68851 PMMU.
fn fline_cp_control(d: &mut Dec<'_>, prefix: &str, conds: &[&str]) -> R<()> {
    let ty = (d.op >> 6) & 7;
    match ty {
        1 => {
            let cond_word = d.word()?;
            let cond = conds
                .get(usize::from(cond_word & 0x3F))
                .copied()
                .unwrap_or("?");
            if cond_word & 0xFFC0 != 0 || usize::from(cond_word & 0x3F) >= conds.len() {
                d.bad("coprocessor condition word with reserved bits set");
            }
            let (mode, reg) = ((d.op >> 3) & 7, d.op & 7);
            if mode == 1 {
                let base = d.here();
                let disp = d.word()? as i16;
                let target = base.wrapping_add(disp as i32 as u32);
                d.set(format!("{prefix}db{cond}"), FlagEffect::NONE);
                d.arg(dreg(reg));
                d.arg(format!("{target:#x}"));
                d.flow.target = Some(target);
            } else if mode == 7 && (2..=4).contains(&reg) {
                d.set(format!("{prefix}trap{cond}"), FlagEffect::NONE);
                match reg {
                    2 => {
                        let v = d.word()?;
                        d.mnemonic.push_str(".w");
                        d.arg(imm_text(u32::from(v), Size::Word));
                    }
                    3 => {
                        let v = d.long()?;
                        d.mnemonic.push_str(".l");
                        d.arg(imm_text(v, Size::Long));
                    }
                    _ => {}
                }
            } else {
                let ea = d.ea(Size::Byte, DATA_ALT)?;
                d.set(format!("{prefix}s{cond}"), FlagEffect::NONE);
                d.arg(ea.text);
            }
            Ok(())
        }
        2 | 3 => {
            let cond = conds.get(usize::from(d.op & 0x3F)).copied();
            if cond.is_none() {
                d.bad("coprocessor branch with a reserved condition");
            }
            let base = d.here();
            let disp = if ty == 2 {
                i32::from(d.word()? as i16)
            } else {
                d.long()? as i32
            };
            let target = base.wrapping_add(disp as u32);
            if d.op == 0xF280 && disp == 0 {
                d.set("fnop", FlagEffect::NONE);
                return Ok(());
            }
            let sfx = if ty == 2 { "w" } else { "l" };
            d.set(
                format!("{prefix}b{}.{sfx}", cond.unwrap_or("?")),
                FlagEffect::NONE,
            );
            d.arg(format!("{target:#x}"));
            d.flow.target = Some(target);
            Ok(())
        }
        4 => {
            let ea = d.ea(Size::Long, CTRL_ALT | M_PREDEC)?;
            d.privilege = Privilege::Supervisor;
            d.set(format!("{prefix}save"), FlagEffect::NONE);
            d.arg(ea.text);
            Ok(())
        }
        5 => {
            let ea = d.ea(Size::Long, CTRL | M_POSTINC)?;
            d.privilege = Privilege::Supervisor;
            d.set(format!("{prefix}restore"), FlagEffect::NONE);
            d.arg(ea.text);
            Ok(())
        }
        _ => Err(d.unknown()),
    }
}

fn fpu_general(d: &mut Dec<'_>) -> R<()> {
    let cmd = d.word()?;
    let fpn = |n: u16| format!("%fp{}", n & 7);
    let dst = (cmd >> 7) & 7;
    match cmd >> 13 {
        0 | 2 => {
            let rm = cmd & 0x4000 != 0;
            let opmode = cmd & 0x7F;
            if rm && (cmd >> 10) & 7 == 7 {
                // FMOVECR: constant ROM.
                d.set("fmovecr", FlagEffect::NONE);
                d.arg(format!("#{:#x}", opmode));
                d.arg(fpn(dst));
                return Ok(());
            }
            let name = match fpu_op_name(opmode) {
                Some(n) => n,
                None => {
                    d.bad("unknown FPU operation");
                    "fop"
                }
            };
            if rm {
                let (sfx, size, longs) = fpu_format(cmd >> 10);
                let src = fpu_ea(d, size, longs, DATA)?;
                d.set(format!("{name}.{sfx}"), FlagEffect::NONE);
                d.arg(src);
            } else {
                d.set(format!("{name}.x"), FlagEffect::NONE);
                d.arg(fpn(cmd >> 10));
            }
            if name != "ftst" {
                d.arg(fpn(dst));
            }
        }
        3 => {
            let (sfx, size, longs) = fpu_format(cmd >> 10);
            let ea = fpu_ea(d, size, longs, DATA_ALT)?;
            d.set(format!("fmove.{sfx}"), FlagEffect::NONE);
            d.arg(fpn(dst));
            d.arg(ea);
        }
        4 | 5 => {
            let regs = (cmd >> 10) & 7;
            let n = regs.count_ones();
            let mut names = Vec::new();
            for (bit, name) in [(4, "%fpcr"), (2, "%fpsr"), (1, "%fpiar")] {
                if regs & bit != 0 {
                    names.push(name);
                }
            }
            let list = if names.is_empty() {
                "#0".to_string()
            } else {
                names.join("/")
            };
            let to_ctrl = cmd >> 13 == 4;
            let allowed = if to_ctrl { ALL } else { ALT };
            let ea = fpu_ea(d, Size::Long, n.max(1), allowed)?;
            d.set(if n > 1 { "fmovem.l" } else { "fmove.l" }, FlagEffect::NONE);
            if to_ctrl {
                d.arg(ea);
                d.arg(list);
            } else {
                d.arg(list);
                d.arg(ea);
            }
        }
        6 | 7 => {
            let to_mem = cmd >> 13 == 7;
            let list = if cmd & 0x0800 != 0 {
                dreg(cmd >> 4)
            } else {
                format!("#{:#x}", cmd & 0xFF)
            };
            let ea = if to_mem {
                d.ea(Size::Long, CTRL_ALT | M_PREDEC)?
            } else {
                d.ea(Size::Long, CTRL | M_POSTINC)?
            };
            d.set("fmovem.x", FlagEffect::NONE);
            if to_mem {
                d.arg(list);
                d.arg(ea.text);
            } else {
                d.arg(ea.text);
                d.arg(list);
            }
        }
        _ => return Err(d.unknown()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(words: &[u16]) -> Insn {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        decode(&bytes, 0, 0x1000).expect("decodes")
    }

    #[test]
    fn memset_pattern_parts() {
        let sub = dec(&[0x9EBC, 0x0000, 0x0010]);
        assert_eq!(sub.text, "sub.l #16,%d7");
        assert_eq!(sub.len, 6);
        assert_eq!(sub.flags, FlagEffect::XNZVC);
        let mv = dec(&[0x2E06]);
        assert_eq!(mv.text, "move.l %d6,%d7");
        assert_eq!(mv.flags.class, FlagClass::Copy);
        let b = dec(&[0x65F0]);
        assert_eq!(b.kind, Kind::Bcc(Cond::Cs, BranchSize::Short));
        assert_eq!(b.flow.target, Some(0x1002 - 16));
        assert_eq!(b.reads, Ccr::C);
    }

    #[test]
    fn bra_l_needs_68020() {
        let i = dec(&[0x60FF, 0x0000, 0x0692]);
        assert_eq!(i.text, "bra.l 0x1694");
        assert_eq!(i.min_cpu, Cpu::M68020);
        assert_eq!(i.len, 6);
        assert!(!i.flow.falls_through);
    }

    #[test]
    fn pc_relative_destination_is_illegal() {
        let i = dec(&[0x15FC, 0x0001, 0x0008]);
        assert_eq!(i.len, 6);
        assert!(
            i.illegal.as_deref().unwrap().contains("PC-relative"),
            "{:?}",
            i.illegal
        );
    }

    #[test]
    fn aline_is_a_call() {
        let i = dec(&[0xA51E]);
        assert_eq!(i.kind, Kind::ALineTrap(0xA51E));
        assert!(i.flow.is_call && i.flow.falls_through);
        assert_eq!(i.flags.class, FlagClass::Unknown);
    }

    #[test]
    fn full_format_extension() {
        // move.l ([8,%a0,%d1.l*4],16),%d0
        let i = dec(&[0x2030, 0x1D22, 0x0008, 0x0010]);
        assert_eq!(i.len, 8);
        assert_eq!(i.min_cpu, Cpu::M68020);
        assert_eq!(i.text, "move.l ([8,%a0,%d1.l*4],16),%d0");
    }

    #[test]
    fn movem_lists() {
        assert_eq!(dec(&[0x48E7, 0x3020]).text, "movem.l %d2-%d3/%a2,-(%sp)");
        assert_eq!(
            dec(&[0x4CEF, 0x000C, 0x0014]).text,
            "movem.l (20,%sp),%d2-%d3"
        );
    }

    #[test]
    fn byte_access_to_address_registers_is_illegal() {
        // subq.b #8,%a0 (gas accepts it, the PRM does not) and add.b %a0,%d0.
        assert!(dec(&[0x5108]).illegal.is_some());
        assert!(dec(&[0xD008]).illegal.is_some());
        let addq_w = dec(&[0x5048]);
        assert_eq!(addq_w.text, "addq.w #8,%a0");
        assert!(addq_w.illegal.is_none());
        assert_eq!(addq_w.flags, FlagEffect::NONE);
    }

    #[test]
    fn similar_looking_opcodes() {
        // 0x4980 is CHK.W, not EXT; 0x49C0 is EXTB.L.
        assert_eq!(dec(&[0x4980]).text, "chk.w %d0,%d4");
        assert_eq!(dec(&[0x49C0]).text, "extb.l %d0");
        // ADDX, not ADD Dn,<ea> with a data register destination.
        assert_eq!(dec(&[0xD381]).text, "addx.l %d1,%d1");
        // CMPM, not EOR with An.
        assert_eq!(dec(&[0xB549]).text, "cmpm.w (%a1)+,(%a2)+");
        // EXG, not AND.
        assert_eq!(dec(&[0xC38A]).text, "exg %d1,%a2");
        // MOVEP, not BTST with An.
        assert_eq!(dec(&[0x0309, 0x0008]).text, "movep.w (8,%a1),%d1");
    }

    #[test]
    fn sixty_eight_twenty_relaxations() {
        let tst_an = dec(&[0x4A88]);
        assert_eq!(
            (tst_an.min_cpu, tst_an.illegal.is_none()),
            (Cpu::M68020, true)
        );
        let cmpi_pc = dec(&[0x0C7A, 0x0001, 0x0010]);
        assert_eq!(
            (cmpi_pc.min_cpu, cmpi_pc.illegal.is_none()),
            (Cpu::M68020, true)
        );
        assert!(dec(&[0x0C40, 0x0001]).min_cpu == Cpu::M68000);
    }

    #[test]
    fn coprocessor_traps_include_their_operand() {
        // ftrapne.w #1 and ftrapgt.l #0x12345 as gas emits them (objdump
        // shows them two bytes short).
        assert_eq!(dec(&[0xF27A, 0x000E, 0x0001]).len, 6);
        assert_eq!(dec(&[0xF27B, 0x0012, 0x0001, 0x2345]).len, 8);
    }

    #[test]
    fn flags_and_conditions() {
        let scs = dec(&[0x55C0]);
        assert_eq!((scs.kind, scs.reads), (Kind::Scc(Cond::Cs), Ccr::C));
        assert_eq!(dec(&[0x50C0]).cond(), None); // st
        assert_eq!(dec(&[0x51C8, 0xFFFE]).cond(), None); // dbf = dbra
        assert_eq!(dec(&[0xD380]).reads, Ccr::X | Ccr::Z); // addx
        assert_eq!(dec(&[0xE390]).reads, Ccr::X); // roxl.l #1,%d0
        assert_eq!(dec(&[0x4E75]).flags.class, FlagClass::Unknown);
        assert_eq!(dec(&[0x41FA, 0x0010]).flags, FlagEffect::NONE); // lea
        assert_eq!(dec(&[0x4280]).flags.class, FlagClass::Copy); // clr.l
        assert_eq!(dec(&[0x4A80]).flags.class, FlagClass::Arith); // tst.l
        let sr = dec(&[0x40C0]);
        assert_eq!(
            (sr.privilege, sr.reads),
            (Privilege::SupervisorFrom68010, Ccr::ALL)
        );
    }

    #[test]
    fn truncated() {
        assert_eq!(
            decode(&[0x20, 0x3C, 0x00], 0, 0),
            Err(DecodeError::Truncated {
                offset: 0,
                needed: 4
            })
        );
    }
}
