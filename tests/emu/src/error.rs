//! Why a run stopped: every failure names what happened, where (PC) and how we got there
//! (the chain of return addresses).

use crate::bus::{Access, BusFaultCause};
use crate::cpu::CpuModel;
use core::fmt;

/// What went wrong. Trap handlers return these; the run loop wraps them in a [`RunError`] with
/// the PC and the return chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The bus refused an access (beyond RAM, or a write to the NIL page).
    BusError {
        address: u32,
        access: Access,
        size: u8,
        cause: BusFaultCause,
        opcode: u16,
    },
    /// The CPU took an exception other than a bus error (address error, illegal instruction,
    /// zero divide, CHK, TRAPV, privilege violation, F-line, TRAP #n, …).
    Exception {
        vector: u32,
        name: &'static str,
        opcode: u16,
    },
    /// An A-line trap nobody registered a handler for.
    UnimplementedTrap {
        word: u16,
        name: Option<&'static str>,
    },
    /// `_Debugger`, `_DebugStr` or `_SysError`.
    Debugger { word: u16, message: String },
    /// The guest broke a rule of a Mac OS service (disposing a pointer twice, a bad handle,
    /// a bad trap selector …). `trap` is the trap word when it happened inside a trap.
    Misuse { trap: Option<u16>, message: String },
    /// A heap block's guard bytes or a master pointer were overwritten.
    HeapCorruption { message: String },
    /// The instruction budget ran out (probable hang).
    BudgetExhausted { budget: u64 },
    /// The CPU executed a word written after the last instruction-cache flush.
    StaleCode { address: u32, opcode: u16 },
    /// STOP executed, or the CPU halted after a double fault.
    Halted { stopped_by_stop: bool },
    /// A C call returned with the stack pointer or a callee-saved register changed.
    AbiViolation { message: String },
    /// Loading or calling failed before any guest code ran.
    Setup { message: String },
    /// Guest code called by a trap handler (a nested call) failed.
    Nested { error: Box<RunError> },
}

impl From<RunError> for Fault {
    fn from(error: RunError) -> Fault {
        Fault::Nested {
            error: Box::new(error),
        }
    }
}

impl Fault {
    /// A guest-misuse fault raised inside trap `word`.
    pub fn misuse(word: u16, message: impl Into<String>) -> Fault {
        Fault::Misuse {
            trap: Some(word),
            message: message.into(),
        }
    }
    /// A setup fault.
    pub fn setup(message: impl Into<String>) -> Fault {
        Fault::Setup {
            message: message.into(),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::BusError {
                address,
                access,
                size,
                cause,
                opcode,
            } => {
                let why = match cause {
                    BusFaultCause::BeyondRam => "beyond the end of RAM",
                    BusFaultCause::NullPageWrite => {
                        "into the NIL page $0-$FF (NULL pointer write?)"
                    }
                    BusFaultCause::RomWrite => "into the ROM",
                };
                write!(
                    f,
                    "bus error: {size}-byte {access} at ${address:08X} {why} (opcode ${opcode:04X})"
                )?;
                if let Some(g) = crate::lowmem::global_at(*address) {
                    write!(f, " [low-memory global {g}]")?;
                }
                Ok(())
            }
            Fault::Exception {
                vector,
                name,
                opcode,
            } => {
                write!(
                    f,
                    "CPU exception: {name} (vector {vector}), opcode ${opcode:04X}"
                )
            }
            Fault::UnimplementedTrap { word, name } => match name {
                Some(n) => write!(f, "unimplemented trap ${word:04X} _{n}"),
                None => write!(f, "unimplemented trap ${word:04X} (unknown name)"),
            },
            Fault::Debugger { word, message } => {
                let n = crate::trap_names::trap_name(*word).unwrap_or("?");
                write!(f, "_{n} (${word:04X}): {message}")
            }
            Fault::Misuse { trap, message } => match trap {
                Some(w) => {
                    let n = crate::trap_names::trap_name(*w).unwrap_or("?");
                    write!(f, "guest misuse in _{n} (${w:04X}): {message}")
                }
                None => write!(f, "guest misuse: {message}"),
            },
            Fault::HeapCorruption { message } => write!(f, "heap corruption: {message}"),
            Fault::BudgetExhausted { budget } => {
                write!(f, "instruction budget of {budget} exhausted (hang?)")
            }
            Fault::StaleCode { address, opcode } => write!(
                f,
                "executed ${opcode:04X} at ${address:08X}, written after the last instruction-cache \
                 flush (missing _FlushInstructionCache / BlockMove?)"
            ),
            Fault::Halted { stopped_by_stop } => {
                if *stopped_by_stop {
                    write!(
                        f,
                        "STOP executed (nothing will ever interrupt the emulated CPU)"
                    )
                } else {
                    write!(f, "CPU halted after a double fault")
                }
            }
            Fault::AbiViolation { message } => write!(f, "C ABI violation: {message}"),
            Fault::Setup { message } => write!(f, "setup: {message}"),
            Fault::Nested { error } => {
                write!(f, "in guest code called from a trap handler: {error}")
            }
        }
    }
}

/// One entry of a return chain: a return address and, when it lies in loaded code, the
/// nearest export at or below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnAddress {
    pub address: u32,
    /// `"export+0x12"` when known.
    pub symbol: Option<String>,
}

impl fmt::Display for ReturnAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.symbol {
            Some(s) => write!(f, "${:08X} ({s})", self.address),
            None => write!(f, "${:08X}", self.address),
        }
    }
}

/// How the return chain was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainSource {
    /// Followed the A6 `LINK` chain.
    LinkChain,
    /// Scanned the stack for longs pointing into loaded code (may include stale values).
    StackScan,
}

/// A run that stopped with an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    pub fault: Fault,
    /// PC of the instruction (or trap word) that failed.
    pub pc: u32,
    /// `"export+0x12"` for `pc` when it lies in loaded code.
    pub pc_symbol: Option<String>,
    /// Return addresses, innermost first.
    pub return_chain: Vec<ReturnAddress>,
    pub chain_source: ChainSource,
    /// Instructions executed in this call before the failure.
    pub instructions: u64,
    pub cpu: CpuModel,
    /// Context that may explain the failure (e.g. the heap scramble's seed, to replay it).
    pub notes: Vec<String>,
}

impl RunError {
    /// A failure before any guest code ran.
    pub fn setup(cpu: CpuModel, message: impl Into<String>) -> RunError {
        RunError {
            fault: Fault::setup(message),
            pc: 0,
            pc_symbol: None,
            return_chain: Vec::new(),
            chain_source: ChainSource::StackScan,
            instructions: 0,
            cpu,
            notes: Vec::new(),
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at PC ${:08X}", self.fault, self.pc)?;
        if let Some(s) = &self.pc_symbol {
            write!(f, " ({s})")?;
        }
        write!(f, " on the {}", self.cpu)?;
        if !self.return_chain.is_empty() {
            let how = match self.chain_source {
                ChainSource::LinkChain => "A6 link chain",
                ChainSource::StackScan => "stack scan",
            };
            write!(f, "; return chain ({how}):")?;
            for r in &self.return_chain {
                write!(f, " <- {r}")?;
            }
        }
        write!(f, "; after {} instructions", self.instructions)?;
        for n in &self.notes {
            write!(f, "; {n}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RunError {}
