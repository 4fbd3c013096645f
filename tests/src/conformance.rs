//! Codegen conformance: every case of `codegen-suite` runs on the host (natively), in the
//! emulated Mac (the `m68k` crate, 68000/68020/68040 models, allocator on `_NewPtr`) and
//! under `qemu-m68k`, and the output bytes must agree.

use crate::{CpuModel, Machine, MachineConfig, ZoneId, qemu};
use ferrite_shared::flat::FlatImage;
use std::path::Path;
use std::time::{Duration, Instant};

/// CPU models the suite runs on.
pub const MODELS: &[CpuModel] = &[CpuModel::M68000, CpuModel::M68020, CpuModel::M68040];

/// One case that did not match the host.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub index: u32,
    pub name: &'static str,
    pub expected: Vec<u8>,
    /// What the 68k produced, or why it produced nothing.
    pub got: Result<Vec<u8>, String>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex = |b: &[u8]| -> String {
            let s: String = b.iter().take(48).map(|x| format!("{x:02x}")).collect();
            if b.len() > 48 { format!("{s}… ({} bytes)", b.len()) } else { s }
        };
        match &self.got {
            Ok(got) => {
                let first = self.expected.iter().zip(got).position(|(a, b)| a != b).unwrap_or(got.len().min(self.expected.len()));
                write!(
                    f,
                    "case {} `{}`: expected {} got {} (first difference at byte {first})",
                    self.index,
                    self.name,
                    hex(&self.expected),
                    hex(got)
                )
            }
            Err(e) => write!(f, "case {} `{}`: {e}", self.index, self.name),
        }
    }
}

/// The outcome on one CPU (or QEMU model).
#[derive(Debug, Clone)]
pub struct Outcome {
    pub target: String,
    pub total: u32,
    pub mismatches: Vec<Mismatch>,
    pub instructions: u64,
    pub cycles: u64,
    pub host_time: Duration,
}

impl Outcome {
    pub fn passed(&self) -> u32 {
        self.total - self.mismatches.len() as u32
    }
}

/// The host's output of case `index`.
pub fn host_output(index: u32) -> Vec<u8> {
    let mut buf = vec![0u8; codegen_suite::MAX_OUTPUT];
    let n = codegen_suite::run_case(index, &mut buf).expect("host run of a codegen case failed");
    buf.truncate(n);
    buf
}

/// Run every case in the emulated Mac on `model`.
pub fn run_emulated(flat: &FlatImage, model: CpuModel) -> Result<Outcome, String> {
    let total = codegen_suite::CASES.len() as u32;
    let mut m = Machine::with_config(MachineConfig::new(model))?;
    m.load(flat).map_err(|e| format!("loading the suite: {e}"))?;
    let count = m.call("cg_case_count", &[]).map_err(|e| format!("cg_case_count: {e}"))?.d0;
    if count != total {
        return Err(format!("the 68k build has {count} cases, the host {total}: rebuild with `cargo xtask build`"));
    }
    let cap = codegen_suite::MAX_OUTPUT as u32;
    let buf = m.new_ptr(ZoneId::Application, cap, true).map_err(|e| format!("NewPtr for the output buffer: {e}"))?;
    let mut outcome = Outcome {
        target: format!("M{model}"),
        total,
        mismatches: Vec::new(),
        instructions: 0,
        cycles: 0,
        host_time: Duration::ZERO,
    };
    for index in 0..total {
        let name = codegen_suite::CASES[index as usize].name;
        let expected = host_output(index);
        let got = match m.call("cg_run_case", &[index, buf, cap]) {
            Ok(r) => {
                outcome.instructions += r.instructions;
                outcome.cycles += r.cycles;
                outcome.host_time += r.host_time;
                if r.d0 == u32::MAX {
                    Err("the 68k reported overflow or a bad index".to_string())
                } else if r.d0 > cap {
                    Err(format!("the 68k returned length {} > capacity {cap}", r.d0))
                } else {
                    Ok(m.read_bytes(buf, r.d0))
                }
            }
            Err(e) => {
                let msg = format!("{e}");
                // A fault leaves the machine in an unknown state: start a fresh one.
                m = Machine::with_config(MachineConfig::new(model))?;
                m.load(flat).map_err(|e| format!("reloading the suite: {e}"))?;
                Err(msg)
            }
        };
        if got.as_ref() != Ok(&expected) {
            outcome.mismatches.push(Mismatch { index, name, expected, got });
        }
    }
    Ok(outcome)
}

/// Run the `linux` build under `qemu-m68k -cpu <cpu>` and compare with the host.
pub fn run_qemu(elf: &Path, cpu: &str) -> Result<Outcome, String> {
    let total = codegen_suite::CASES.len() as u32;
    let start = Instant::now();
    let out = qemu::run(elf, cpu, Duration::from_secs(300))?;
    let host_time = start.elapsed();
    let mut outcome = Outcome {
        target: format!("qemu-m68k -cpu {cpu}"),
        total,
        mismatches: Vec::new(),
        instructions: 0,
        cycles: 0,
        host_time,
    };
    let stopped = if out.end_count != Some(total) || out.exit_code != Some(0) {
        Some(format!(
            "QEMU stopped early (exit {:?}, END {:?}): {}",
            out.exit_code,
            out.end_count,
            out.stderr.lines().next().unwrap_or("")
        ))
    } else {
        None
    };
    for index in 0..total {
        let name = codegen_suite::CASES[index as usize].name;
        let expected = host_output(index);
        let got = match out.cases.get(&index) {
            Some(Some(bytes)) => Ok(bytes.clone()),
            Some(None) => Err("the 68k reported overflow".to_string()),
            None => Err(stopped.clone().unwrap_or_else(|| "no output for this case".to_string())),
        };
        if got.as_ref() != Ok(&expected) {
            outcome.mismatches.push(Mismatch { index, name, expected, got });
        }
    }
    Ok(outcome)
}
