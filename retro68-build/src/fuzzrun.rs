//! The random differential campaign of `cargo xtask fuzz-codegen` (and its short run in
//! `cargo xtask test`): batches of programs from [`crate::fuzzgen`] are built into
//! `tests/codegen-fuzz` for the host and, through the whole pipeline, for the 68k, run in the
//! emulated Mac (68000/68020/68040) and under QEMU (68000/68040) by ferrite-harness's
//! `codegen-fuzz` runner, and their checksums compared with the host's. A mismatching program
//! is written to a file and reduced by leaving statements out while it still mismatches.

use crate::fuzzgen::{self, GenProgram};
use crate::pipeline::{self, FUZZ_ARTIFACTS, Options};
use anyhow::{Context, Result, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The variable `tests/codegen-fuzz/build.rs` reads the batch from.
pub const PROGRAMS_ENV: &str = "FERRITE_CODEGEN_FUZZ_PROGRAMS";

/// How the campaign marks a program whose 68k build fails (a compiler crash).
pub const BUILD_FAILED: &str = "the 68k build failed";
const M68K_BUILD: &str = "building for the 68k:";

/// What a campaign does.
pub struct Campaign {
    pub root: PathBuf,
    pub seed: u64,
    /// The index of the first program.
    pub first: u32,
    /// Programs in all (at least one batch).
    pub programs: u32,
    pub batch: u32,
    /// Stop starting batches after this long.
    pub time_limit: Option<Duration>,
    /// Reduce each mismatching program.
    pub reduce: bool,
    /// Build without the binary repairs (verifier recall; see [`crate::m68k`]).
    pub repair: bool,
    /// Where batches, reports and mismatching programs go.
    pub work_dir: PathBuf,
}

/// One program that did not match the host.
#[derive(Debug, Clone)]
pub struct Found {
    pub seed: u64,
    pub index: u32,
    /// `M68000`, `qemu-m68k_-cpu_m68040`, … with the runner's message.
    pub targets: Vec<String>,
    pub file: PathBuf,
    pub reduced: Option<PathBuf>,
}

/// What a campaign measured.
#[derive(Debug, Default)]
pub struct Summary {
    pub programs: u32,
    pub batches: u32,
    pub elapsed: Duration,
    pub found: Vec<Found>,
    /// Verifier findings left in the batches' 68k builds (after the repairs, if any).
    pub verifier_findings: usize,
    /// Programs in batches with at least one verifier finding in the Mac build.
    pub flagged_batches: u32,
}

/// Outcome of running one batch.
pub struct BatchRun {
    /// Program index in the batch → the targets (with messages) where it differed.
    pub mismatches: std::collections::BTreeMap<u32, Vec<String>>,
    pub verifier_findings: usize,
    /// The Mac build (flat image) and the image offsets of its verifier findings.
    pub flat: PathBuf,
    pub finding_addrs: Vec<u32>,
}

impl Campaign {
    fn options(&self, batch_file: &Path) -> Options {
        let mut o = Options::standard(&self.root);
        // One build directory per work directory: campaigns may run side by side.
        let variant = self
            .work_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "codegen-fuzz".into());
        o.build_dir = self.root.join("target/m68k-build").join(variant);
        o.out_dir = self.work_dir.join("m68k");
        o.repair_hazards = self.repair;
        o.crate_env = vec![(PROGRAMS_ENV, batch_file.to_path_buf())];
        o
    }

    /// A new build directory starts as a copy of the codegen suite's cargo target directories
    /// of the standard build, when they exist: the same `core`, `alloc` and
    /// `compiler_builtins`, built with the same flags, so only the programs are compiled.
    fn seed_build_dir(&self, opts: &Options) -> Result<()> {
        let standard = self.root.join("target/m68k-build/standard");
        for (fuzz, suite) in [
            ("codegen-fuzz", "codegen-suite"),
            ("codegen-fuzz-linux", "codegen-suite-linux"),
        ] {
            let (from, to) = (standard.join(suite), opts.build_dir.join(fuzz));
            if to.exists() || !from.is_dir() {
                continue;
            }
            std::fs::create_dir_all(&opts.build_dir)?;
            let st = Command::new("cp")
                .arg("-a")
                .arg(&from)
                .arg(&to)
                .status()
                .context("could not run cp")?;
            if !st.success() {
                bail!("copying {} to {} failed", from.display(), to.display());
            }
        }
        Ok(())
    }

    /// Build and run `programs` (with statements left out as given); `runner` is ferrite-harness's
    /// `codegen-fuzz` binary (a `cargo run` command the arguments are appended to).
    pub fn run_batch(
        &self,
        tag: &str,
        programs: &[(GenProgram, BTreeSet<usize>)],
        runner: &dyn Fn() -> Command,
    ) -> Result<BatchRun> {
        std::fs::create_dir_all(&self.work_dir)?;
        let batch_file = self.work_dir.join(format!("{tag}.rs"));
        std::fs::write(&batch_file, fuzzgen::batch_source(programs))?;
        // The host's checksums.
        let host = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(&self.root)
            .args([
                "run",
                "--quiet",
                "--release",
                "-p",
                "codegen-fuzz",
                "--example",
                "fuzz_host_dump",
            ])
            .env(PROGRAMS_ENV, &batch_file)
            .output()
            .context("could not run cargo for the host build of the programs")?;
        if !host.status.success() {
            bail!(
                "the host build or run of {} failed (a generator bug):\n{}",
                batch_file.display(),
                String::from_utf8_lossy(&host.stderr)
            );
        }
        let host_file = self.work_dir.join(format!("{tag}.host.txt"));
        std::fs::write(&host_file, &host.stdout)?;
        // The 68k builds, through the whole pipeline.
        let opts = self.options(&batch_file);
        self.seed_build_dir(&opts)?;
        let mut paths = Vec::new();
        let mut verifier_findings = 0;
        let mut finding_addrs = Vec::new();
        for a in FUZZ_ARTIFACTS {
            let b = pipeline::build_artifact(a, &opts)
                .with_context(|| format!("{M68K_BUILD} {}", batch_file.display()))?;
            if matches!(a.kind, pipeline::Kind::Flat { .. }) {
                verifier_findings = b.verify.findings.len();
                finding_addrs = b.verify.findings.iter().map(|f| f.addr).collect();
            }
            paths.push(b.path);
        }
        let out = runner()
            .arg(&paths[0])
            .arg(&paths[1])
            .arg(&host_file)
            .output()
            .context("could not run the codegen-fuzz runner")?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut mismatches = std::collections::BTreeMap::<u32, Vec<String>>::new();
        let mut targets_seen = 0;
        for line in text.lines() {
            if line.starts_with("codegen fuzz: ") {
                targets_seen += 1;
                if line.contains("the run failed") {
                    bail!("the codegen-fuzz runner failed on {tag}: {line}");
                }
            }
            if let Some(rest) = line.strip_prefix("MISMATCH ") {
                let mut f = rest.splitn(3, ' ');
                let index: u32 = f
                    .next()
                    .and_then(|i| i.parse().ok())
                    .context("bad MISMATCH line")?;
                let _name = f.next();
                mismatches
                    .entry(index)
                    .or_default()
                    .push(f.next().unwrap_or("").to_string());
            }
        }
        if targets_seen != 5 {
            bail!(
                "the codegen-fuzz runner reported {targets_seen} targets, not 5:\n{text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(BatchRun {
            mismatches,
            verifier_findings,
            flat: paths[0].clone(),
            finding_addrs,
        })
    }

    /// Run the campaign.
    pub fn run(&self, runner: &dyn Fn() -> Command) -> Result<Summary> {
        let start = Instant::now();
        let mut s = Summary::default();
        let mut next = self.first;
        let end = self.first.saturating_add(self.programs);
        while next < end {
            if self.time_limit.is_some_and(|t| start.elapsed() >= t) {
                break;
            }
            let n = self.batch.min(end - next);
            let programs: Vec<(GenProgram, BTreeSet<usize>)> = (next..next + n)
                .map(|i| (fuzzgen::generate(self.seed, i), BTreeSet::new()))
                .collect();
            let tag = format!("batch-{}-{next}", self.seed);
            let mut results = Vec::new();
            self.run_split(&tag, &programs, 0, runner, &mut s, &mut results)?;
            for (k, targets) in results {
                let (p, _) = &programs[k as usize];
                let index = next + k;
                let file = self
                    .work_dir
                    .join(format!("mismatch-seed{}-p{index}.rs", self.seed));
                std::fs::write(
                    &file,
                    fuzzgen::batch_source(&[(p.clone(), BTreeSet::new())]),
                )?;
                println!(
                    "codegen fuzz: MISMATCH seed {} program {index} on {} targets: {}",
                    self.seed,
                    targets.len(),
                    file.display()
                );
                for t in &targets {
                    println!("  {t}");
                }
                let build_failed = targets.iter().any(|t| t.starts_with(BUILD_FAILED));
                let reduced = if self.reduce && !build_failed {
                    Some(self.reduce_one(p, index, runner)?)
                } else {
                    None
                };
                s.found.push(Found {
                    seed: self.seed,
                    index,
                    targets,
                    file,
                    reduced,
                });
            }
            next += n;
            s.batches += 1;
            s.programs = next - self.first;
            println!(
                "codegen fuzz: {} programs in {} batches, {:.0} s, {} mismatching",
                s.programs,
                s.batches,
                start.elapsed().as_secs_f64(),
                s.found.len()
            );
        }
        s.elapsed = start.elapsed();
        Ok(s)
    }

    /// Run `programs` (numbered from `first` in the batch) and add their mismatches to `out`.
    /// When the 68k build fails, the halves are built apart, down to the program that
    /// makes it fail (recorded as a mismatch on [`BUILD_FAILED`]).
    fn run_split(
        &self,
        tag: &str,
        programs: &[(GenProgram, BTreeSet<usize>)],
        first: u32,
        runner: &dyn Fn() -> Command,
        s: &mut Summary,
        out: &mut Vec<(u32, Vec<String>)>,
    ) -> Result<()> {
        match self.run_batch(tag, programs, runner) {
            Ok(r) => {
                s.verifier_findings += r.verifier_findings;
                s.flagged_batches += u32::from(r.verifier_findings > 0);
                out.extend(r.mismatches.into_iter().map(|(k, t)| (first + k, t)));
                Ok(())
            }
            Err(e) if format!("{e:#}").contains(M68K_BUILD) => {
                if programs.len() == 1 {
                    let why = format!("{e:#}");
                    let line = why.lines().last().unwrap_or("").trim().to_string();
                    out.push((first, vec![format!("{BUILD_FAILED}: {line}")]));
                    return Ok(());
                }
                let half = programs.len() / 2;
                self.run_split(&format!("{tag}a"), &programs[..half], first, runner, s, out)?;
                self.run_split(
                    &format!("{tag}b"),
                    &programs[half..],
                    first + half as u32,
                    runner,
                    s,
                    out,
                )
            }
            Err(e) => Err(e),
        }
    }

    /// Leave statements out of `p` while it still mismatches: each round builds one batch of
    /// variants (halves, quarters, … down to single statements left out of what remains) and
    /// keeps the one with the most statements left out that still mismatches.
    fn reduce_one(
        &self,
        p: &GenProgram,
        index: u32,
        runner: &dyn Fn() -> Command,
    ) -> Result<PathBuf> {
        let total = p.statement_count();
        let mut skip = BTreeSet::new();
        for round in 0..12 {
            let live: Vec<usize> = (0..total).filter(|i| !skip.contains(i)).collect();
            if live.is_empty() {
                break;
            }
            let mut variants: Vec<BTreeSet<usize>> = Vec::new();
            let mut chunk = live.len().div_ceil(2);
            loop {
                for c in live.chunks(chunk) {
                    let mut v = skip.clone();
                    v.extend(c.iter().copied());
                    variants.push(v);
                }
                if chunk == 1 || variants.len() > 40 {
                    break;
                }
                chunk = chunk.div_ceil(2);
            }
            let batch: Vec<(GenProgram, BTreeSet<usize>)> =
                variants.iter().map(|v| (p.clone(), v.clone())).collect();
            let tag = format!("reduce-{}-p{index}-{round}", self.seed);
            let r = match self.run_batch(&tag, &batch, runner) {
                Ok(r) => r,
                Err(e) => {
                    println!("codegen fuzz: reduction of program {index} stopped: {e:#}");
                    break;
                }
            };
            let best = r
                .mismatches
                .keys()
                .map(|&k| &variants[k as usize])
                .max_by_key(|v| v.len());
            match best {
                Some(v) if v.len() > skip.len() => skip = v.clone(),
                _ => break,
            }
            println!(
                "codegen fuzz: reducing program {index}: {} of {total} statements left",
                total - skip.len()
            );
        }
        let file = self
            .work_dir
            .join(format!("mismatch-seed{}-p{index}-reduced.rs", self.seed));
        std::fs::write(&file, fuzzgen::batch_source(&[(p.clone(), skip)]))?;
        println!(
            "codegen fuzz: reduced program written to {}",
            file.display()
        );
        Ok(file)
    }
}
