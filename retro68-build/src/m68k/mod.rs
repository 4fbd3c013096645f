//! 68k instruction decoding, the 68000 legalizer and the binary verifier.
//!
//! * [`decode`] decodes one instruction of the 68000 family (complete 68000
//!   set, 68010–68040 integer additions, best-effort F-line).
//! * [`legalize`] rewrites the 68020-only `bra.l`/`bsr.l`/`bcc.l` that LLVM
//!   emits for the 68000 into 68000 instructions of the same length.
//! * [`verify`] checks a whole code image: illegal encodings, instructions too
//!   new for the target CPU, privileged instructions, bad branch targets and
//!   the LLVM M68k flag-clobbering miscompile.
//! * [`relayout`] applies insertions to a linked image and fixes every
//!   displacement and relocation; [`repair_flag_hazards`] uses it to repair
//!   the flag hazards in the linked image.
//! * [`verify_elf`] runs [`verify`] over the `.text` of a linked ELF file.

pub mod decode;
pub mod elf;
pub mod join;
pub mod legalize;
pub mod relayout;
pub mod repair68000;
pub mod verify;

pub use decode::{
    BranchSize, Ccr, Cond, Cpu, DecodeError, FlagClass, FlagEffect, Flow, Insn, Kind, Privilege,
    Size, decode,
};
pub use elf::{ElfError, ElfText, read_elf_text, verify_elf};
pub use join::{JoinHazard, JoinReport, join_hazards, repair_join_hazards};
pub use legalize::{LegalizeError, LegalizeReport, Rewrite, RewriteKind, legalize};
pub use relayout::{
    Edit, LinkedImage, Piece, Relaid, RelayoutError, RepairReport, Target, Unrepaired, relayout,
    repair_flag_hazards,
};
pub use repair68000::{
    Construct68000, Left68000, Repair68000Report, move_from_sr_sequence, mul_call_sequence,
    repair_68000,
};
pub use verify::{
    Finding, Rule, Symbol, VerifyReport, a5_writes, hazards, verify, verify_with_data, writes_a5,
};
