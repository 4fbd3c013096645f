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
        o.crate_env = vec![
            (PROGRAMS_ENV, batch_file.to_path_buf()),
            (crate::bittest::CRASH_LOG_ENV, self.crash_log()),
        ];
        o
    }

    /// Where the rustc wrapper writes the class of an `llc` crash ([`crate::bittest`]).
    fn crash_log(&self) -> PathBuf {
        self.work_dir.join("llc-crashes.txt")
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
        self.run_source(tag, &fuzzgen::batch_source(programs), runner)
    }

    /// Build and run a batch given as source (the layout of [`fuzzgen::batch_source`]: a
    /// `PROGRAMS` table of `crate::Program`s), e.g. hand-made variants of a reduced program.
    pub fn run_source(
        &self,
        tag: &str,
        source: &str,
        runner: &dyn Fn() -> Command,
    ) -> Result<BatchRun> {
        std::fs::create_dir_all(&self.work_dir)?;
        let batch_file = self.work_dir.join(format!("{tag}.rs"));
        std::fs::write(&batch_file, source)?;
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
        let _ = std::fs::remove_file(self.crash_log());
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
                    let mut line = why.lines().last().unwrap_or("").trim().to_string();
                    // The class of an `llc` crash, as the wrapper logged it for this build.
                    if let Ok(log) = std::fs::read_to_string(self.crash_log())
                        && let Some(last) = log.lines().last()
                    {
                        line = format!("{line}; {last}");
                    }
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

// ---------------------------------------------------------------------------------------------
// Recorded runs (`cargo xtask fuzz-codegen --seeds A..B`): one JSON file per run in
// docs/records/codegen-fuzz/, and the table of them in docs/codegen-conformance.md.

/// Where recorded runs are kept, relative to the repository root.
pub const RECORDS_DIR: &str = "docs/records/codegen-fuzz";
/// The document whose generated section lists the recorded runs.
pub const RECORDS_DOC: &str = "docs/codegen-conformance.md";
const SECTION_BEGIN: &str =
    "<!-- codegen-fuzz records: generated by `cargo xtask fuzz-codegen --seeds`; do not edit -->";
const SECTION_END: &str = "<!-- end of codegen-fuzz records -->";

/// The class name of a program whose 68k build failed, from the build's message.
pub fn crash_class_of(message: &str) -> String {
    if message.contains("btst-register-as-immediate") {
        "btst-register-as-immediate".into()
    } else if message.contains("printImmediate") {
        "llc-printImmediate".into()
    } else if message.contains("llc") {
        "llc-other".into()
    } else {
        "build-other".into()
    }
}

/// The summary of one recorded run over several seeds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    /// `git rev-parse --short HEAD` (with `+dirty` when the work tree has changes).
    pub commit: String,
    /// UTC date of the start, `YYYY-MM-DD`.
    pub date: String,
    /// The stack-index rewrite version (`crate::pipeline::STACKIDX_REWRITE`).
    pub rewrite: String,
    pub seed_first: u64,
    pub seed_last: u64,
    /// Programs asked for per seed.
    pub programs_per_seed: u32,
    /// Programs run in all (a time limit may stop a run early).
    pub programs: u32,
    /// Wrong checksums: `(class, count)`; the class is `unclassified` until a human names it
    /// (the programs are listed in `found`).
    pub mismatches: Vec<(String, u32)>,
    /// 68k builds that failed: `(class, count)` ([`crash_class_of`]).
    pub crashes: Vec<(String, u32)>,
    /// Verifier findings left in the batches' builds.
    pub verifier_findings: usize,
    pub wall_seconds: u64,
    /// `seed/program: what` for every program that mismatched or did not build.
    pub found: Vec<String>,
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_unstr(s: &str) -> Option<String> {
    let s = s.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut o = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            o.push(c);
            continue;
        }
        match it.next()? {
            'n' => o.push('\n'),
            'u' => {
                let h: String = it.by_ref().take(4).collect();
                o.push(char::from_u32(u32::from_str_radix(&h, 16).ok()?)?);
            }
            c => o.push(c),
        }
    }
    Some(o)
}

impl Record {
    /// Programs per wrong result or failed build, for the table (`—` when none).
    pub fn total_mismatches(&self) -> u32 {
        self.mismatches.iter().map(|(_, n)| n).sum()
    }
    pub fn total_crashes(&self) -> u32 {
        self.crashes.iter().map(|(_, n)| n).sum()
    }

    /// The record as JSON, one field per line (the layout [`Record::from_json`] reads).
    pub fn to_json(&self) -> String {
        let classes = |v: &[(String, u32)]| {
            let inner: Vec<String> = v
                .iter()
                .map(|(c, n)| format!("{}: {n}", json_str(c)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        };
        let found: Vec<String> = self.found.iter().map(|f| json_str(f)).collect();
        format!(
            "{{\n  \"commit\": {},\n  \"date\": {},\n  \"rewrite\": {},\n  \"seeds\": [{}, {}],\n  \"programs_per_seed\": {},\n  \"programs\": {},\n  \"mismatches\": {},\n  \"crashes\": {},\n  \"verifier_findings\": {},\n  \"wall_seconds\": {},\n  \"found\": [{}]\n}}\n",
            json_str(&self.commit),
            json_str(&self.date),
            json_str(&self.rewrite),
            self.seed_first,
            self.seed_last,
            self.programs_per_seed,
            self.programs,
            classes(&self.mismatches),
            classes(&self.crashes),
            self.verifier_findings,
            self.wall_seconds,
            found.join(", ")
        )
    }

    /// Read a record written by [`Record::to_json`].
    pub fn from_json(text: &str) -> Result<Record> {
        let mut r = Record::default();
        let classes = |v: &str| -> Result<Vec<(String, u32)>> {
            let inner = v
                .trim()
                .strip_prefix('{')
                .and_then(|v| v.strip_suffix('}'))
                .context("a class map is not an object")?;
            let mut out = Vec::new();
            for part in inner.split(", ").filter(|p| !p.trim().is_empty()) {
                let (k, n) = part.rsplit_once(": ").context("bad class entry")?;
                out.push((json_unstr(k).context("bad class name")?, n.trim().parse()?));
            }
            Ok(out)
        };
        for line in text.lines() {
            let Some((k, v)) = line.trim().split_once(": ") else {
                continue;
            };
            let v = v.trim_end_matches(',');
            match k.trim_matches('"') {
                "commit" => r.commit = json_unstr(v).context("commit")?,
                "date" => r.date = json_unstr(v).context("date")?,
                "rewrite" => r.rewrite = json_unstr(v).context("rewrite")?,
                "seeds" => {
                    let (a, b) = v
                        .trim_matches(['[', ']'])
                        .split_once(", ")
                        .context("seeds")?;
                    r.seed_first = a.parse()?;
                    r.seed_last = b.parse()?;
                }
                "programs_per_seed" => r.programs_per_seed = v.parse()?,
                "programs" => r.programs = v.parse()?,
                "mismatches" => r.mismatches = classes(v)?,
                "crashes" => r.crashes = classes(v)?,
                "verifier_findings" => r.verifier_findings = v.parse()?,
                "wall_seconds" => r.wall_seconds = v.parse()?,
                "found" => {
                    let inner = v.trim_start_matches('[').trim_end_matches(']');
                    r.found = inner
                        .split("\", \"")
                        .filter(|s| !s.is_empty())
                        .map(|s| {
                            let s = s.trim_matches('"');
                            json_unstr(&format!("\"{s}\"")).unwrap_or_else(|| s.to_string())
                        })
                        .collect();
                }
                _ => {}
            }
        }
        anyhow::ensure!(!r.commit.is_empty(), "a record without a commit");
        Ok(r)
    }

    /// The file name of the record: `DATE-seedsA-B-COMMIT.json`.
    pub fn file_name(&self) -> String {
        format!(
            "{}-seeds{}-{}-{}.json",
            self.date,
            self.seed_first,
            self.seed_last,
            self.commit.replace('+', "-")
        )
    }
}

/// Every record in `root`'s [`RECORDS_DIR`], oldest first (by date, then first seed).
pub fn read_records(root: &Path) -> Result<Vec<Record>> {
    let dir = root.join(RECORDS_DIR);
    let files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect(),
        Err(_) => Vec::new(),
    };
    let mut records = files
        .iter()
        .map(|f| {
            Record::from_json(&std::fs::read_to_string(f)?)
                .with_context(|| format!("reading {}", f.display()))
        })
        .collect::<Result<Vec<Record>>>()?;
    records.sort_by(|a, b| (&a.date, a.seed_first).cmp(&(&b.date, b.seed_first)));
    Ok(records)
}

/// The generated section of [`RECORDS_DOC`]: a table of the records, oldest first.
pub fn records_section(records: &[Record]) -> String {
    let mut s = String::new();
    s.push_str(SECTION_BEGIN);
    s.push_str("\n\n| date | commit | rewrite | seeds | programs | wrong results | compiler crashes | verifier findings | wall time | programs per failure |\n|---|---|---|---|---:|---|---|---:|---:|---:|\n");
    let classes = |v: &[(String, u32)]| {
        if v.is_empty() {
            "0".to_string()
        } else {
            v.iter()
                .map(|(c, n)| format!("{n} `{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    for r in records {
        let failures = r.total_mismatches() + r.total_crashes();
        let rate = if failures == 0 {
            format!("> {}", r.programs)
        } else {
            format!("{:.0}", f64::from(r.programs) / f64::from(failures))
        };
        s.push_str(&format!(
            "| {} | `{}` | {} | {}..={} | {} | {} | {} | {} | {} s | {} |\n",
            r.date,
            r.commit,
            r.rewrite,
            r.seed_first,
            r.seed_last,
            r.programs,
            classes(&r.mismatches),
            classes(&r.crashes),
            r.verifier_findings,
            r.wall_seconds,
            rate
        ));
    }
    s.push('\n');
    s.push_str(SECTION_END);
    s
}

/// `doc` with its generated section replaced by [`records_section`] (appended at the end when
/// the markers are missing).
pub fn with_records_section(doc: &str, records: &[Record]) -> String {
    let section = records_section(records);
    match (doc.find(SECTION_BEGIN), doc.find(SECTION_END)) {
        (Some(a), Some(b)) if b > a => {
            format!("{}{section}{}", &doc[..a], &doc[b + SECTION_END.len()..])
        }
        _ => format!("{}\n{section}\n", doc.trim_end()),
    }
}

/// Rewrite the generated section of `root`'s [`RECORDS_DOC`] from the records.
pub fn update_records_doc(root: &Path) -> Result<()> {
    let path = root.join(RECORDS_DOC);
    let doc = std::fs::read_to_string(&path)?;
    let new = with_records_section(&doc, &read_records(root)?);
    if new != doc {
        std::fs::write(&path, new)?;
    }
    Ok(())
}

fn git_commit(root: &Path) -> String {
    let head = Command::new("git")
        .current_dir(root)
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let dirty = Command::new("git")
        .current_dir(root)
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    if dirty { format!("{head}+dirty") } else { head }
}

fn utc_date() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Run `template` (its seed and first program are replaced) for every seed of `seeds`, record
/// the run in [`RECORDS_DIR`] and regenerate the table in [`RECORDS_DOC`]. A time limit of the
/// template applies to the whole run. Returns the record and its file.
pub fn run_recorded(
    template: &Campaign,
    seeds: std::ops::RangeInclusive<u64>,
    runner: &dyn Fn() -> Command,
) -> Result<(Record, PathBuf)> {
    let start = Instant::now();
    let mut r = Record {
        commit: git_commit(&template.root),
        date: utc_date(),
        rewrite: pipeline::STACKIDX_REWRITE
            .rsplit('_')
            .next()
            .unwrap_or("")
            .to_string(),
        seed_first: *seeds.start(),
        seed_last: *seeds.end(),
        programs_per_seed: template.programs,
        ..Record::default()
    };
    let mut mism = std::collections::BTreeMap::<String, u32>::new();
    let mut crashes = std::collections::BTreeMap::<String, u32>::new();
    let dir = template.root.join(RECORDS_DIR);
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(r.file_name());
    for seed in seeds {
        let left = template
            .time_limit
            .map(|t| t.saturating_sub(start.elapsed()));
        if left.is_some_and(|l| l.is_zero()) {
            break;
        }
        let c = Campaign {
            root: template.root.clone(),
            seed,
            first: template.first,
            programs: template.programs,
            batch: template.batch,
            time_limit: left,
            reduce: template.reduce,
            repair: template.repair,
            work_dir: template.work_dir.clone(),
        };
        let s = c.run(runner)?;
        r.programs += s.programs;
        r.verifier_findings += s.verifier_findings;
        for f in &s.found {
            match f.targets.iter().find(|t| t.starts_with(BUILD_FAILED)) {
                Some(t) => {
                    let class = crash_class_of(t);
                    r.found.push(format!(
                        "seed {} program {}: build failed ({class})",
                        f.seed, f.index
                    ));
                    *crashes.entry(class).or_default() += 1;
                }
                None => {
                    r.found.push(format!(
                        "seed {} program {}: wrong on {} targets",
                        f.seed,
                        f.index,
                        f.targets.len()
                    ));
                    *mism.entry("unclassified".into()).or_default() += 1;
                }
            }
        }
        // Written after every seed, so a run stopped early still leaves its record (the
        // seeds field then names the range asked for; `programs` is what ran).
        r.mismatches = mism.clone().into_iter().collect();
        r.crashes = crashes.clone().into_iter().collect();
        r.wall_seconds = start.elapsed().as_secs();
        std::fs::write(&file, r.to_json())?;
        update_records_doc(&template.root)?;
    }
    Ok((r, file))
}

#[cfg(test)]
mod records_tests {
    use super::*;

    fn sample() -> Record {
        Record {
            commit: "0d47946+dirty".into(),
            date: "2026-12-08".into(),
            rewrite: "v14".into(),
            seed_first: 1,
            seed_last: 3,
            programs_per_seed: 40,
            programs: 120,
            mismatches: vec![("unclassified".into(), 1)],
            crashes: vec![("btst-register-as-immediate".into(), 2)],
            verifier_findings: 0,
            wall_seconds: 900,
            found: vec![
                "seed 1 program 110: wrong on 5 targets".into(),
                "seed 1 program 4: build failed (btst-register-as-immediate)".into(),
            ],
        }
    }

    #[test]
    fn a_record_reads_back() {
        let r = sample();
        assert_eq!(Record::from_json(&r.to_json()).unwrap(), r);
        let empty = Record {
            mismatches: vec![],
            crashes: vec![],
            found: vec![],
            ..sample()
        };
        assert_eq!(Record::from_json(&empty.to_json()).unwrap(), empty);
        assert_eq!(r.file_name(), "2026-12-08-seeds1-3-0d47946-dirty.json");
    }

    #[test]
    fn the_section_is_replaced_in_place() {
        let doc = format!("# T\n\nbefore\n\n{}\n\nafter\n", records_section(&[]));
        let new = with_records_section(&doc, &[sample()]);
        assert!(new.starts_with("# T\n\nbefore\n\n"), "{new}");
        assert!(new.ends_with("\n\nafter\n"), "{new}");
        assert!(
            new.contains("| 2026-12-08 | `0d47946+dirty` | v14 | 1..=3 | 120 | 1 `unclassified` | 2 `btst-register-as-immediate` | 0 | 900 s | 40 |"),
            "{new}"
        );
        assert_eq!(with_records_section(&new, &[sample()]), new);
    }

    #[test]
    fn crash_messages_are_classified() {
        assert_eq!(
            crash_class_of(
                "the 68k build failed: x.rcgu.bc: … (class `btst-register-as-immediate`, …"
            ),
            "btst-register-as-immediate"
        );
        assert_eq!(
            crash_class_of("llc failed: printImmediate"),
            "llc-printImmediate"
        );
        assert_eq!(crash_class_of("link error"), "build-other");
    }

    /// The table in the document is the one the committed records make.
    #[test]
    fn the_document_shows_the_committed_records() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let records = read_records(root).unwrap();
        let doc = std::fs::read_to_string(root.join(RECORDS_DOC)).unwrap();
        assert_eq!(
            with_records_section(&doc, &records),
            doc,
            "run `cargo xtask fuzz-codegen --update-records-doc`"
        );
    }
}

/// `A..B` (B excluded), `A..=B` or `A` as a range of seeds.
pub fn parse_seeds(s: &str) -> Result<std::ops::RangeInclusive<u64>> {
    let r = if let Some((a, b)) = s.split_once("..=") {
        a.trim().parse()?..=b.trim().parse()?
    } else if let Some((a, b)) = s.split_once("..") {
        let (a, b): (u64, u64) = (a.trim().parse()?, b.trim().parse()?);
        anyhow::ensure!(b > a, "empty seed range {s}");
        a..=b - 1
    } else {
        let a = s.trim().parse()?;
        a..=a
    };
    anyhow::ensure!(r.start() <= r.end(), "empty seed range {s}");
    Ok(r)
}

#[cfg(test)]
#[test]
fn seed_ranges() {
    assert_eq!(parse_seeds("1..4").unwrap(), 1..=3);
    assert_eq!(parse_seeds("1..=4").unwrap(), 1..=4);
    assert_eq!(parse_seeds("7").unwrap(), 7..=7);
    assert!(parse_seeds("4..4").is_err());
}
