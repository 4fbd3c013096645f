//! Codegen conformance: every case of `codegen-suite` runs on the host (natively), in the
//! emulated Mac (the `m68k` crate, 68000/68020/68040 models, allocator on `_NewPtr`) and
//! under `qemu-m68k`, and the output bytes must agree.

use crate::qemu;
use ferrite_emu::{CpuModel, Machine, MachineConfig, ZoneId};
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
            if b.len() > 48 {
                format!("{s}… ({} bytes)", b.len())
            } else {
                s
            }
        };
        match &self.got {
            Ok(got) => {
                let first = self
                    .expected
                    .iter()
                    .zip(got)
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(self.expected.len()));
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

/// Instructions one case may take before it counts as hung. The slowest correct cases need
/// about 85 M on the 68000 (`mem_eq_*`: 100 k FNV multiplies through the shift-and-add
/// `__mulsi3`).
pub const CASE_BUDGET: u64 = 100_000_000;

fn config(model: CpuModel) -> MachineConfig {
    let mut c = MachineConfig::new(model);
    c.instruction_budget = CASE_BUDGET;
    c
}

/// The suite loaded in an emulated Mac, with an output buffer in its application heap.
///
/// The buffer belongs to the machine it was allocated in. A fault leaves the machine in an
/// unknown state, so [`SuiteRunner::run_case`] then starts a fresh one, and that one needs its
/// own buffer: the old address is free memory in the new heap, where the next cases' own
/// blocks would land and overwrite (and be overwritten by) the output.
pub struct SuiteRunner<'a> {
    flat: &'a FlatImage,
    model: CpuModel,
    machine: Machine,
    buf: u32,
    /// Where the image was loaded (image offset 0).
    base: u32,
}

impl<'a> SuiteRunner<'a> {
    /// Output buffer size.
    pub const CAP: u32 = codegen_suite::MAX_OUTPUT as u32;

    pub fn new(flat: &'a FlatImage, model: CpuModel) -> Result<SuiteRunner<'a>, String> {
        let (machine, buf, base) = Self::fresh(flat, model)?;
        Ok(SuiteRunner {
            flat,
            model,
            machine,
            buf,
            base,
        })
    }

    fn fresh(flat: &FlatImage, model: CpuModel) -> Result<(Machine, u32, u32), String> {
        let mut m = Machine::with_config(config(model))?;
        let base = m
            .load(flat)
            .map_err(|e| format!("loading the suite: {e}"))?
            .base;
        let buf = m
            .new_ptr(ZoneId::Application, Self::CAP, true)
            .map_err(|e| format!("NewPtr for the output buffer: {e}"))?;
        Ok((m, buf, base))
    }

    /// Replace the machine by a fresh one, with a new output buffer.
    pub fn restart(&mut self) -> Result<(), String> {
        (self.machine, self.buf, self.base) = Self::fresh(self.flat, self.model)?;
        Ok(())
    }

    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    pub fn machine_mut(&mut self) -> &mut Machine {
        &mut self.machine
    }

    /// Address of the output buffer in the current machine.
    pub fn buffer(&self) -> u32 {
        self.buf
    }

    /// Run case `index`: its output, or why there is none. After a fault the machine is
    /// restarted. `stats` receives the instructions, cycles and host time of a completed call.
    pub fn run_case(
        &mut self,
        index: u32,
        stats: Option<&mut (u64, u64, Duration)>,
    ) -> Result<Vec<u8>, String> {
        let cap = Self::CAP;
        match self.machine.call("cg_run_case", &[index, self.buf, cap]) {
            Ok(r) => {
                if let Some(s) = stats {
                    s.0 += r.instructions;
                    s.1 += r.cycles;
                    s.2 += r.host_time;
                }
                if r.d0 == u32::MAX {
                    Err("the 68k reported overflow or a bad index".to_string())
                } else if r.d0 > cap {
                    Err(format!("the 68k returned length {} > capacity {cap}", r.d0))
                } else {
                    Ok(self.machine.read_bytes(self.buf, r.d0))
                }
            }
            Err(e) => {
                let msg = format!("{e}");
                self.restart()
                    .map_err(|e| format!("restarting after case {index}: {e}"))?;
                Err(msg)
            }
        }
    }
}

/// For every case of `flat` (run on `model`), which of the image offsets `sites` it executed
/// (the verifier's findings, to tell which miscompiled cases run a flagged instruction).
pub fn sites_executed(
    flat: &FlatImage,
    model: CpuModel,
    sites: &[u32],
) -> Result<Vec<std::collections::BTreeSet<u32>>, String> {
    let mut runner = SuiteRunner::new(flat, model)?;
    let count = runner
        .machine_mut()
        .call("cg_case_count", &[])
        .map_err(|e| format!("cg_case_count: {e}"))?
        .d0;
    let mut out = Vec::new();
    for index in 0..count {
        let base = runner.base;
        runner
            .machine_mut()
            .watch_pcs(sites.iter().map(|s| base + s));
        // A fault restarts the machine (and drops the watch): take the hits first.
        let hits = match runner
            .machine
            .call("cg_run_case", &[index, runner.buf, SuiteRunner::CAP])
        {
            Ok(_) => runner.machine.watched_hits(),
            Err(_) => {
                let h = runner.machine.watched_hits();
                runner.restart()?;
                h
            }
        };
        out.push(hits.into_iter().map(|a| a - base).collect());
    }
    Ok(out)
}

/// What the host produced: every case's name and output bytes, by index.
pub struct Reference {
    pub names: Vec<&'static str>,
    pub outputs: Vec<Vec<u8>>,
}

impl Reference {
    /// The codegen suite's cases, run on the host.
    pub fn suite() -> Reference {
        let total = codegen_suite::CASES.len() as u32;
        Reference {
            names: codegen_suite::CASES.iter().map(|c| c.name).collect(),
            outputs: (0..total).map(host_output).collect(),
        }
    }

    fn total(&self) -> u32 {
        self.names.len() as u32
    }
}

/// Run every case in the emulated Mac on `model`.
pub fn run_emulated(flat: &FlatImage, model: CpuModel) -> Result<Outcome, String> {
    run_emulated_against(flat, model, &Reference::suite())
}

/// Run every case of `flat` (a build of the suite or of any crate with the same entry points)
/// in the emulated Mac on `model`, compared with `reference`.
pub fn run_emulated_against(
    flat: &FlatImage,
    model: CpuModel,
    reference: &Reference,
) -> Result<Outcome, String> {
    let total = reference.total();
    let mut runner = SuiteRunner::new(flat, model)?;
    let count = runner
        .machine_mut()
        .call("cg_case_count", &[])
        .map_err(|e| format!("cg_case_count: {e}"))?
        .d0;
    if count != total {
        return Err(format!(
            "the 68k build has {count} cases, the host {total}: rebuild with `cargo xtask build`"
        ));
    }
    let mut stats = (0u64, 0u64, Duration::ZERO);
    let mut mismatches = Vec::new();
    for index in 0..total {
        let name = reference.names[index as usize];
        let expected = reference.outputs[index as usize].clone();
        let got = runner.run_case(index, Some(&mut stats));
        if got.as_ref() != Ok(&expected) {
            mismatches.push(Mismatch {
                index,
                name,
                expected,
                got,
            });
        }
    }
    Ok(Outcome {
        target: format!("M{model}"),
        total,
        mismatches,
        instructions: stats.0,
        cycles: stats.1,
        host_time: stats.2,
    })
}

/// Seconds one QEMU run may take before the case it is in counts as hung.
pub const QEMU_TIMEOUT_SECS: u64 = 10;

/// Run the `linux` build under `qemu-m68k -cpu <cpu>` and compare with the host. A case that
/// kills the program is recorded with QEMU's message, and the run resumes after it.
pub fn run_qemu(elf: &Path, cpu: &str) -> Result<Outcome, String> {
    run_qemu_against(elf, cpu, &Reference::suite())
}

/// Like [`run_qemu`], for any build with the suite's entry points, compared with `reference`.
pub fn run_qemu_against(elf: &Path, cpu: &str, reference: &Reference) -> Result<Outcome, String> {
    let total = reference.total();
    let start = Instant::now();
    let mut results: std::collections::BTreeMap<u32, Result<Vec<u8>, String>> = Default::default();
    let mut first = 0;
    while first < total {
        let out = qemu::run(elf, cpu, first, Duration::from_secs(QEMU_TIMEOUT_SECS))?;
        for (&i, v) in &out.cases {
            results.insert(
                i,
                v.clone()
                    .ok_or_else(|| "the 68k reported overflow".to_string()),
            );
        }
        if out.end_count.is_some()
            && out.exit_code == Some(0)
            && out.cases.len() as u32 == total - first
        {
            if out.end_count != Some(total) {
                return Err(format!(
                    "the 68k build has {:?} cases, the host {total}",
                    out.end_count
                ));
            }
            break;
        }
        // The program died in the first case it did not report.
        let dead = (first..total)
            .find(|i| !out.cases.contains_key(i))
            .unwrap_or(total);
        if dead < total {
            let why = out
                .stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
                .trim()
                .to_string();
            let what = if out.exit_code == Some(0) {
                "wrote stray output"
            } else {
                "died"
            };
            results.insert(
                dead,
                Err(format!(
                    "QEMU: the program {what} (exit {:?}): {why}",
                    out.exit_code
                )),
            );
        }
        first = dead + 1;
    }
    let mut outcome = Outcome {
        target: format!("qemu-m68k -cpu {cpu}"),
        total,
        mismatches: Vec::new(),
        instructions: 0,
        cycles: 0,
        host_time: start.elapsed(),
    };
    for index in 0..total {
        let name = reference.names[index as usize];
        let expected = reference.outputs[index as usize].clone();
        let got = results
            .remove(&index)
            .unwrap_or_else(|| Err("no output for this case".to_string()));
        if got.as_ref() != Ok(&expected) {
            outcome.mismatches.push(Mismatch {
                index,
                name,
                expected,
                got,
            });
        }
    }
    Ok(outcome)
}
