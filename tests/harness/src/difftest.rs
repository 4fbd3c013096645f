//! On-target differential tests (`ferrite-difftest`): the driver's logic modules and the
//! shared parsers, compiled for the 68k through the whole pipeline, run on the same random
//! inputs in the emulated Mac (68000, 68020, 68040) and under `qemu-m68k` (68000, 68040); every
//! input's trace digest must equal the host's. A mismatch is reported with the function, the
//! seed, the input index and both traces.

use crate::qemu;
use ferrite_difftest::{FUNCTIONS, MAX_TRACE};
use ferrite_emu::{CpuModel, Machine, MachineConfig, ZoneId};
use ferrite_shared::flat::FlatImage;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Inputs per 68k call (the emulated Mac) or per QEMU run.
pub const CHUNK: u32 = 500;

/// Instructions one call of [`CHUNK`] inputs may take before it counts as hung.
pub const CALL_BUDGET: u64 = 400_000_000;

/// Seconds one QEMU run may take.
pub const QEMU_TIMEOUT_SECS: u64 = 60;

/// The host's digests of inputs `first .. first + count`.
pub fn host_digests(function: u32, seed: u32, first: u32, count: u32) -> Vec<u32> {
    (0..count)
        .map(|k| {
            ferrite_difftest::digest(function, seed, first + k).expect("a function of the table")
        })
        .collect()
}

/// The host's trace of one input.
pub fn host_trace(function: u32, seed: u32, index: u32) -> Vec<u8> {
    let mut buf = vec![0u8; MAX_TRACE];
    let n = ferrite_difftest::trace(function, seed, index, &mut buf).unwrap_or(MAX_TRACE);
    buf.truncate(n);
    buf
}

/// One input whose result differs from the host's.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub function: u32,
    pub seed: u32,
    pub index: u32,
    /// The host's trace (the input, then the results).
    pub host: Vec<u8>,
    /// The 68k's trace, or why there is none.
    pub got: Result<Vec<u8>, String>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = FUNCTIONS[self.function as usize].name;
        write!(
            f,
            "function {} `{name}`, seed {}, input {}: ",
            self.function, self.seed, self.index
        )?;
        let hex = |b: &[u8], from: usize| -> String {
            let end = (from + 48).min(b.len());
            let s: String = b[from.min(end)..end]
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect();
            format!("{s}{}", if end < b.len() { "…" } else { "" })
        };
        match &self.got {
            Ok(got) => {
                let first = self
                    .host
                    .iter()
                    .zip(got)
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(self.host.len()));
                let from = first.saturating_sub(8);
                write!(
                    f,
                    "the traces differ at byte {first} (host {} bytes, 68k {} bytes); from byte {from}: host {} 68k {}",
                    self.host.len(),
                    got.len(),
                    hex(&self.host, from),
                    hex(got, from)
                )?;
                write!(f, "\n    host trace: {}", hex(&self.host, 0))
            }
            Err(e) => write!(f, "{e}; host trace {}", hex(&self.host, 0)),
        }
    }
}

/// What one target did with one function.
#[derive(Debug, Clone)]
pub struct FunctionOutcome {
    pub function: u32,
    pub inputs: u32,
    pub mismatches: Vec<Mismatch>,
    pub instructions: u64,
    pub host_time: Duration,
}

/// What one target did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub target: String,
    pub functions: Vec<FunctionOutcome>,
}

impl Outcome {
    pub fn mismatches(&self) -> usize {
        self.functions.iter().map(|f| f.mismatches.len()).sum()
    }
    pub fn inputs(&self) -> u64 {
        self.functions.iter().map(|f| f.inputs as u64).sum()
    }
}

/// Most mismatches kept per function (the rest are counted).
pub const KEEP: usize = 5;

/// Compare `got` digests (or a failure of the whole range) with the host's; for each
/// difference, `trace(index)` fetches the 68k's whole trace of that input.
fn compare(
    fo: &mut FunctionOutcome,
    seed: u32,
    first: u32,
    got: &[u32],
    mut trace: impl FnMut(u32) -> Result<Vec<u8>, String>,
) {
    let want = host_digests(fo.function, seed, first, got.len() as u32);
    for (k, (w, g)) in want.iter().zip(got).enumerate() {
        if w != g {
            let index = first + k as u32;
            let got = if fo.mismatches.len() < KEEP {
                trace(index)
            } else {
                Err("not traced".into())
            };
            fo.mismatches.push(Mismatch {
                function: fo.function,
                seed,
                index,
                host: host_trace(fo.function, seed, index),
                got,
            });
        }
    }
}

fn be32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The program in an emulated Mac, with an output buffer in its application heap; a fault
/// leaves the machine in an unknown state, so the runner then starts a fresh one.
struct Runner<'a> {
    flat: &'a FlatImage,
    model: CpuModel,
    machine: Machine,
    buf: u32,
}

impl<'a> Runner<'a> {
    const CAP: u32 = CHUNK * 4;

    fn new(flat: &'a FlatImage, model: CpuModel) -> Result<Runner<'a>, String> {
        let (machine, buf) = Self::fresh(flat, model)?;
        Ok(Runner {
            flat,
            model,
            machine,
            buf,
        })
    }

    fn fresh(flat: &FlatImage, model: CpuModel) -> Result<(Machine, u32), String> {
        let mut c = MachineConfig::new(model);
        c.instruction_budget = CALL_BUDGET;
        let mut m = Machine::with_config(c)?;
        m.load(flat)
            .map_err(|e| format!("loading the differential tests: {e}"))?;
        let buf = m
            .new_ptr(ZoneId::Application, Self::CAP.max(MAX_TRACE as u32), true)
            .map_err(|e| format!("NewPtr for the output buffer: {e}"))?;
        Ok((m, buf))
    }

    /// Call `name` with `args` followed by the buffer and its capacity; the bytes it wrote.
    fn call(
        &mut self,
        name: &str,
        args: &[u32],
        instructions: &mut u64,
    ) -> Result<Vec<u8>, String> {
        let cap = Self::CAP.max(MAX_TRACE as u32);
        let mut all = args.to_vec();
        all.extend([self.buf, cap]);
        match self.machine.call(name, &all) {
            Ok(r) => {
                *instructions += r.instructions;
                if r.d0 == u32::MAX || r.d0 > cap {
                    Err(format!("{name} returned {:#x}", r.d0))
                } else {
                    Ok(self.machine.read_bytes(self.buf, r.d0))
                }
            }
            Err(e) => {
                let msg = format!("{e}");
                (self.machine, self.buf) = Self::fresh(self.flat, self.model)
                    .map_err(|e| format!("restarting after a fault: {e}"))?;
                Err(msg)
            }
        }
    }
}

/// Run `iterations` inputs of every function (or of `only`) in the emulated Mac on `model`.
pub fn run_emulated(
    flat: &FlatImage,
    model: CpuModel,
    seed: u32,
    iterations: u32,
    only: Option<u32>,
) -> Result<Outcome, String> {
    let mut runner = Runner::new(flat, model)?;
    let count = runner
        .machine
        .call("dt_function_count", &[])
        .map_err(|e| format!("dt_function_count: {e}"))?
        .d0;
    if count != FUNCTIONS.len() as u32 {
        return Err(format!(
            "the 68k build has {count} functions, the host {}: rebuild with `cargo xtask build`",
            FUNCTIONS.len()
        ));
    }
    let mut outcome = Outcome {
        target: format!("M{model}"),
        functions: Vec::new(),
    };
    for function in 0..count {
        if only.is_some_and(|o| o != function) {
            continue;
        }
        let mut fo = FunctionOutcome {
            function,
            inputs: iterations,
            mismatches: Vec::new(),
            instructions: 0,
            host_time: Duration::ZERO,
        };
        let start = Instant::now();
        let mut first = 0;
        while first < iterations {
            let n = CHUNK.min(iterations - first);
            let mut ins = 0;
            match runner.call("dt_run", &[function, seed, first, n], &mut ins) {
                Ok(bytes) if bytes.len() == 4 * n as usize => {
                    let mut ins2 = 0;
                    compare(&mut fo, seed, first, &be32s(&bytes), |i| {
                        runner.call("dt_trace", &[function, seed, i], &mut ins2)
                    });
                }
                other => {
                    // The range failed as a whole: find the inputs one by one.
                    let why = match other {
                        Ok(b) => format!("dt_run wrote {} bytes for {n} inputs", b.len()),
                        Err(e) => e,
                    };
                    for i in first..first + n {
                        let mut ins2 = 0;
                        match runner.call("dt_run", &[function, seed, i, 1], &mut ins2) {
                            Ok(b) if b.len() == 4 => {
                                compare(&mut fo, seed, i, &be32s(&b), |i| {
                                    runner.call("dt_trace", &[function, seed, i], &mut ins2)
                                });
                            }
                            r => fo.mismatches.push(Mismatch {
                                function,
                                seed,
                                index: i,
                                host: host_trace(function, seed, i),
                                got: Err(format!(
                                    "{} (the range {first}..{}: {why})",
                                    r.err().unwrap_or_else(|| "bad output".into()),
                                    first + n
                                )),
                            }),
                        }
                    }
                }
            }
            fo.instructions += ins;
            first += n;
        }
        fo.host_time = start.elapsed();
        outcome.functions.push(fo);
    }
    Ok(outcome)
}

/// One run of the `linux` build: the record it printed, or why it printed none.
fn qemu_once(elf: &Path, cpu: &str, args: &[u32], trace: bool) -> Result<Vec<u8>, String> {
    if !qemu::available() {
        return Err(
            "qemu-m68k is not installed (Debian package qemu-user); `cargo xtask test` installs it"
                .into(),
        );
    }
    let mut cmd = Command::new("timeout");
    cmd.arg("--signal=KILL")
        .arg(QEMU_TIMEOUT_SECS.to_string())
        .arg("qemu-m68k")
        .args(["-cpu", cpu])
        .arg(elf)
        .args(args.iter().map(u32::to_string));
    if trace {
        cmd.arg("t");
    }
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not start qemu-m68k: {e}"))?;
    let s = &out.stdout;
    let be = |at: usize| {
        s.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let why = || {
        let err = String::from_utf8_lossy(&out.stderr);
        format!(
            "QEMU: the program died ({}): {}",
            out.status,
            err.lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
                .trim()
        )
    };
    let len = be(0).ok_or_else(why)?;
    if len == u32::MAX {
        return Err("the 68k reported a bad function or too much output".into());
    }
    let end = 4 + len as usize;
    let data = s.get(4..end).ok_or_else(why)?.to_vec();
    if s.get(end..end + 4) != Some(b"END!") || !out.status.success() {
        return Err(why());
    }
    if be(end + 4) != Some(FUNCTIONS.len() as u32) {
        return Err(format!(
            "the 68k build has {:?} functions, the host {}: rebuild with `cargo xtask build`",
            be(end + 4),
            FUNCTIONS.len()
        ));
    }
    Ok(data)
}

/// Run `iterations` inputs of every function (or of `only`) under `qemu-m68k -cpu <cpu>`.
pub fn run_qemu(
    elf: &Path,
    cpu: &str,
    seed: u32,
    iterations: u32,
    only: Option<u32>,
) -> Result<Outcome, String> {
    let mut outcome = Outcome {
        target: format!("qemu-m68k -cpu {cpu}"),
        functions: Vec::new(),
    };
    // A run that cannot even start fails the target, not each input.
    qemu_once(elf, cpu, &[0, seed, 0, 0], false)?;
    for function in 0..FUNCTIONS.len() as u32 {
        if only.is_some_and(|o| o != function) {
            continue;
        }
        let start = Instant::now();
        let mut fo = FunctionOutcome {
            function,
            inputs: iterations,
            mismatches: Vec::new(),
            instructions: 0,
            host_time: Duration::ZERO,
        };
        let trace = |i: u32| qemu_once(elf, cpu, &[function, seed, i, 1], true);
        let mut first = 0;
        let big = 16 * CHUNK;
        while first < iterations {
            let n = big.min(iterations - first);
            match qemu_once(elf, cpu, &[function, seed, first, n], false) {
                Ok(b) if b.len() == 4 * n as usize => {
                    compare(&mut fo, seed, first, &be32s(&b), trace);
                }
                other => {
                    let why = match other {
                        Ok(b) => format!("{} bytes for {n} inputs", b.len()),
                        Err(e) => e,
                    };
                    // Find the inputs: in chunks, then one by one in a failing chunk.
                    let mut c = first;
                    while c < first + n {
                        let m = CHUNK.min(first + n - c);
                        match qemu_once(elf, cpu, &[function, seed, c, m], false) {
                            Ok(b) if b.len() == 4 * m as usize => {
                                compare(&mut fo, seed, c, &be32s(&b), trace)
                            }
                            _ => {
                                for i in c..c + m {
                                    match qemu_once(elf, cpu, &[function, seed, i, 1], false) {
                                        Ok(b) if b.len() == 4 => {
                                            compare(&mut fo, seed, i, &be32s(&b), trace)
                                        }
                                        r => fo.mismatches.push(Mismatch {
                                            function,
                                            seed,
                                            index: i,
                                            host: host_trace(function, seed, i),
                                            got: Err(format!(
                                                "{} (the range {first}..{}: {why})",
                                                r.err().unwrap_or_else(|| "bad output".into()),
                                                first + n
                                            )),
                                        }),
                                    }
                                }
                            }
                        }
                        c += m;
                    }
                }
            }
            first += n;
        }
        fo.host_time = start.elapsed();
        outcome.functions.push(fo);
    }
    Ok(outcome)
}
