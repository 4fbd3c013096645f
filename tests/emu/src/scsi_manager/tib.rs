//! The TIB (transfer instruction block) interpreter, shared by `SCSIRead`/`SCSIWrite`/
//! `SCSIRBlind`/`SCSIWBlind` and by `SCSIExecIO` with `scsiDataTIB` (mac-facts §7.2).
//!
//! A TIB is an array of 10-byte instructions `{opcode: u16, param1: u32, param2: u32}` in
//! guest memory, modified in place:
//! * `scInc` (1): move `param2` bytes at `param1`, then `param1 += param2`, written back.
//! * `scNoInc` (2): move `param2` bytes at `param1`; pointer unchanged.
//! * `scAdd` (3): `*(u32*)param1 += param2`.
//! * `scMove` (4): `*(u32*)param2 = *(u32*)param1`.
//! * `scLoop` (5): `param2 -= 1` (written back); if still non-zero, continue at this
//!   instruction's address + `param1` (signed).
//! * `scNop` (6); `scStop` (7) ends the TIB.
//! * `scComp` (8): compare `param2` incoming bytes with memory at `param1` (memory is not
//!   written), then `param1 += param2` like `scInc`.
//!
//! # Polled vs blind (modelling decisions)
//! * Every transfer instruction first waits for the bus to be in the data phase of the call's
//!   direction; if it is not (the target moved on to STATUS), the TIB stops there, cleanly:
//!   [`TibEnd::PhaseChanged`] (the old manager returns `scPhaseErr`). Blind transfers poll for
//!   the first byte of each instruction too (mac-facts §7.2), so the same holds for them.
//! * Inside an instruction, a **polled** transfer handshakes every byte, so a phase change
//!   mid-instruction also stops cleanly with the bytes received so far (`PhaseChanged`). A
//!   **blind** transfer does not look: a data phase that ends mid-instruction is a bus timeout
//!   on a real Mac ([`TibEnd::BlindTimeout`], `scBusTOErr`). The bytes that did arrive are
//!   stored; the pointer of an `scInc` is advanced by them.
//! * A target that pauses mid-block (`ScsiManagerConfig::stalls_mid_block`, seeded: one blind
//!   transfer instruction in four, at a random byte) is harmless where the hardware holds each
//!   byte to the target's handshake (`blind_handshake`; the SE and later). Without it (the
//!   Plus, the model's 68000) the Mac does not wait: a blind **read** stores the stale byte
//!   again at the pause and everything after it one byte late, the target's last byte staying
//!   on the bus (so `SCSIComplete` skips it: `scComplPhaseErr`); a blind **write** loses the
//!   byte sent during the pause, the target taking the rest one byte early and asking for one
//!   more, which `SCSIComplete` pads with zero. Polled transfers handshake every byte and are
//!   never affected (Guide to the Macintosh Family Hardware, the 5380 and blind transfers).
//! * `scComp` in a write TIB, an unknown opcode, or an `scLoop` offset that is not a multiple
//!   of 10 end the TIB with [`TibEnd::BadInstruction`] (`scBadParmsErr`). A TIB whose
//!   instructions or pointers leave guest RAM is guest misuse (a crash on a real Mac), and so
//!   is a TIB still running after [`MAX_TIB_STEPS`] instructions (a runaway loop).

use crate::error::Fault;
use crate::machine::Machine;
use crate::scsi::BusPhase;

use super::{mapped, state};

pub const SC_INC: u16 = 1;
pub const SC_NO_INC: u16 = 2;
pub const SC_ADD: u16 = 3;
pub const SC_MOVE: u16 = 4;
pub const SC_LOOP: u16 = 5;
pub const SC_NOP: u16 = 6;
pub const SC_STOP: u16 = 7;
pub const SC_COMP: u16 = 8;

/// Instructions one TIB may execute before it counts as a runaway loop.
pub const MAX_TIB_STEPS: u64 = 4_000_000;

/// Direction of the data phase the TIB serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TibDir {
    /// DATA IN (reads).
    In,
    /// DATA OUT (writes).
    Out,
}

/// How a TIB ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TibEnd {
    /// `scStop` reached.
    Stop,
    /// The bus left the data phase (at instruction address `at`); transfer stopped cleanly.
    PhaseChanged { at: u32 },
    /// A blind transfer ran past the end of the data phase mid-instruction.
    BlindTimeout { at: u32 },
    /// `scComp` found a difference.
    CompareMismatch { at: u32 },
    /// Unknown opcode or bad parameter.
    BadInstruction { at: u32, why: String },
}

/// The outcome of one TIB run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TibRun {
    pub end: TibEnd,
    /// Data bytes moved over the bus.
    pub moved: usize,
}

fn misuse(trap: u16, message: String) -> Fault {
    Fault::misuse(trap, message)
}

/// Seed stream of the mid-block pauses.
const STALL_STREAM: u64 = 0x5_7A11;

/// Whether the target pauses during a blind transfer instruction of `len` bytes on a Mac
/// without the hardware handshake, and at which byte (1..len): see the module docs.
fn blind_stall(m: &mut Machine, len: usize) -> Option<usize> {
    let cfg = &state(m).config;
    if !cfg.stalls_mid_block || len < 2 {
        return None;
    }
    let handshake = cfg
        .blind_handshake
        .unwrap_or(m.model() != crate::CpuModel::M68000);
    if handshake {
        return None;
    }
    let seed = state(m).config.seed;
    let rng = state(m)
        .stall_rng
        .get_or_insert_with(|| crate::seed::Rng::new(seed, STALL_STREAM));
    (rng.below(4) == 0).then(|| 1 + rng.below(len - 1))
}

/// Run the TIB at `tib` against the current command on the bus, in direction `dir`.
/// `trap` is the trap word for fault messages.
pub fn run(
    m: &mut Machine,
    tib: u32,
    dir: TibDir,
    blind: bool,
    trap: u16,
) -> Result<TibRun, Fault> {
    let mut pc = tib;
    let mut moved = 0usize;
    let mut steps = 0u64;
    loop {
        steps += 1;
        if steps > MAX_TIB_STEPS {
            return Err(misuse(
                trap,
                format!(
                    "the TIB at ${tib:08X} ran {MAX_TIB_STEPS} instructions without scStop (runaway scLoop?)"
                ),
            ));
        }
        if !mapped(m, pc, 10) || !pc.is_multiple_of(2) {
            return Err(misuse(
                trap,
                format!("TIB instruction at ${pc:08X} (TIB ${tib:08X}) is outside RAM or odd"),
            ));
        }
        let op = m.read_u16(pc);
        let p1 = m.read_u32(pc + 2);
        let p2 = m.read_u32(pc + 6);
        match op {
            SC_INC | SC_NO_INC | SC_COMP => {
                if op == SC_COMP && dir == TibDir::Out {
                    return Ok(TibRun {
                        end: TibEnd::BadInstruction {
                            at: pc,
                            why: "scComp in a write TIB".into(),
                        },
                        moved,
                    });
                }
                let want = p2 as usize;
                if want > 0 {
                    let in_phase = matches!(
                        (dir, state(m).bus.phase()),
                        (TibDir::In, BusPhase::DataIn { .. })
                            | (TibDir::Out, BusPhase::DataOut { .. })
                    );
                    if !in_phase {
                        return Ok(TibRun {
                            end: TibEnd::PhaseChanged { at: pc },
                            moved,
                        });
                    }
                }
                let got = match dir {
                    TibDir::In => {
                        let avail = state(m).bus.data_in_remaining().min(want);
                        if !mapped(m, p1, avail as u32) {
                            return Err(misuse(
                                trap,
                                format!(
                                    "TIB instruction at ${pc:08X}: buffer ${p1:08X}+{avail} is outside RAM"
                                ),
                            ));
                        }
                        let stall = if blind { blind_stall(m, avail) } else { None };
                        let mut data = state(m)
                            .bus
                            .read(avail - stall.map_or(0, |_| 1))
                            .expect("checked DATA IN");
                        if let Some(k) = stall {
                            // The stale byte again at the pause; the rest one byte late.
                            data.insert(k, data[k - 1]);
                        }
                        if op == SC_COMP {
                            let mem = m.read_bytes(p1, data.len() as u32);
                            if mem != data {
                                moved += data.len();
                                return Ok(TibRun {
                                    end: TibEnd::CompareMismatch { at: pc },
                                    moved,
                                });
                            }
                        } else {
                            m.write_bytes(p1, &data);
                        }
                        data.len()
                    }
                    TibDir::Out => {
                        let avail = state(m).bus.data_out_remaining().min(want);
                        if !mapped(m, p1, avail as u32) {
                            return Err(misuse(
                                trap,
                                format!(
                                    "TIB instruction at ${pc:08X}: buffer ${p1:08X}+{avail} is outside RAM"
                                ),
                            ));
                        }
                        let mut data = m.read_bytes(p1, avail as u32);
                        let stall = if blind { blind_stall(m, avail) } else { None };
                        if let Some(k) = stall {
                            // The byte sent during the pause is lost.
                            data.remove(k);
                            state(m).bus.write(&data).expect("checked DATA OUT");
                            avail
                        } else {
                            state(m).bus.write(&data).expect("checked DATA OUT")
                        }
                    }
                };
                moved += got;
                if op != SC_NO_INC {
                    m.write_u32(pc + 2, p1.wrapping_add(got as u32));
                }
                if got < want {
                    let end = if blind {
                        TibEnd::BlindTimeout { at: pc }
                    } else {
                        TibEnd::PhaseChanged { at: pc }
                    };
                    return Ok(TibRun { end, moved });
                }
                pc += 10;
            }
            SC_ADD => {
                if !mapped(m, p1, 4) || !p1.is_multiple_of(2) {
                    return Err(misuse(
                        trap,
                        format!("scAdd at ${pc:08X}: ${p1:08X} is not a long in RAM"),
                    ));
                }
                let v = m.read_u32(p1).wrapping_add(p2);
                m.write_u32(p1, v);
                pc += 10;
            }
            SC_MOVE => {
                if !mapped(m, p1, 4)
                    || !mapped(m, p2, 4)
                    || !p1.is_multiple_of(2)
                    || !p2.is_multiple_of(2)
                {
                    return Err(misuse(
                        trap,
                        format!("scMove at ${pc:08X}: ${p1:08X} → ${p2:08X} is not longs in RAM"),
                    ));
                }
                let v = m.read_u32(p1);
                m.write_u32(p2, v);
                pc += 10;
            }
            SC_LOOP => {
                let off = p1 as i32;
                if off % 10 != 0 {
                    return Ok(TibRun {
                        end: TibEnd::BadInstruction {
                            at: pc,
                            why: format!("scLoop offset {off} is not a multiple of 10"),
                        },
                        moved,
                    });
                }
                let count = p2.wrapping_sub(1);
                m.write_u32(pc + 6, count);
                if count != 0 {
                    pc = pc.wrapping_add(off as u32);
                } else {
                    pc += 10;
                }
            }
            SC_NOP => pc += 10,
            SC_STOP => {
                return Ok(TibRun {
                    end: TibEnd::Stop,
                    moved,
                });
            }
            other => {
                return Ok(TibRun {
                    end: TibEnd::BadInstruction {
                        at: pc,
                        why: format!("unknown TIB opcode {other}"),
                    },
                    moved,
                });
            }
        }
    }
}
