//! `cargo xtask test`: the order of its steps, the time each takes, and how the test binaries
//! share the machine's cores.
//!
//! Every step is timed ([`Timings`]); at the end of the run — also when a step fails — a table
//! lists the ten slowest units (one m68k artifact build, one test binary under one seed, one
//! harness run) and the wall time of each step, and the times are kept in
//! `target/test-times.tsv` so the next run can start the longest test binaries first.
//!
//! The tests run as compiled test binaries, not through one `cargo test` per step: cargo
//! builds every test binary of the workspace once (`cargo test --workspace --no-run`), then a
//! pool of workers (one per core, `FERRITE_TEST_JOBS` to change) runs each binary with
//! `--include-ignored` — the driver suites also once per extra seed — longest first. A
//! binary's output goes to `target/test-logs/`; a failure prints it whole with the command
//! that reproduces it. The doc tests run through `cargo test --doc`.

use crate::{Options, check_coverage, driver_coverage, fresh_coverage_dir, pipeline, status};
use anyhow::{Context, Result, bail};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The driver suites also run under `FERRITE_SEED` = 1..=`EXTRA_SEEDS` (seed 0 is the suites'
/// default seed, the run without `FERRITE_SEED`).
pub(crate) const EXTRA_SEEDS: u64 = 20;

/// How many slow units the closing table lists.
const SLOWEST: usize = 10;

/// One timed unit of the run.
struct Timed {
    /// The step it belongs to (`build`, `tests`, …).
    step: &'static str,
    /// What ran: `ferrite-driver`, `ferrite-tests/driver_io seed 3`, ….
    what: String,
    took: Duration,
    ok: bool,
}

/// The times of one run of `cargo xtask test`.
pub(crate) struct Timings {
    started: Instant,
    /// Top-level steps in the order they ran.
    steps: Vec<(&'static str, Duration, bool)>,
    /// Every unit, for the slowest-ten table.
    units: Vec<Timed>,
}

impl Timings {
    pub(crate) fn new() -> Timings {
        Timings {
            started: Instant::now(),
            steps: Vec::new(),
            units: Vec::new(),
        }
    }

    /// Run the top-level step `name`, timing it; a step that records no units of its own
    /// counts as one unit.
    pub(crate) fn step<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Timings) -> Result<T>,
    ) -> Result<T> {
        let start = Instant::now();
        let units_before = self.units.len();
        eprintln!("xtask test: {name}");
        let r = f(self);
        let took = start.elapsed();
        self.steps.push((name, took, r.is_ok()));
        if self.units.len() == units_before {
            self.units.push(Timed {
                step: name,
                what: name.to_string(),
                took,
                ok: r.is_ok(),
            });
        }
        r
    }

    /// Run `jobs` on `workers` threads, in the order given (longest first); after a failure
    /// no job starts. Every job is timed (its wall time, on shared cores) and recorded as a
    /// step. Fails with the first failure, after the running jobs have finished.
    pub(crate) fn pool(
        &mut self,
        jobs: Vec<(&'static str, Lane<'_>)>,
        workers: usize,
    ) -> Result<()> {
        let queue = Mutex::new(jobs.into_iter().collect::<VecDeque<_>>());
        let done = Mutex::new(Vec::new());
        let failed = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    while !failed.load(std::sync::atomic::Ordering::SeqCst) {
                        let Some((name, f)) = queue.lock().expect("queue").pop_front() else {
                            break;
                        };
                        eprintln!("xtask test: {name}");
                        let start = Instant::now();
                        let r: Result<()> = f();
                        if r.is_err() {
                            failed.store(true, std::sync::atomic::Ordering::SeqCst);
                        }
                        done.lock().expect("done").push((name, start.elapsed(), r));
                    }
                });
            }
        });
        let mut first_error = None;
        for (name, took, r) in done.into_inner().expect("done") {
            self.steps.push((name, took, r.is_ok()));
            self.unit(name, name.to_string(), took, r.is_ok());
            if let Err(e) = r {
                first_error.get_or_insert(e.context(name));
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Record one unit of the step `step`.
    fn unit(&mut self, step: &'static str, what: String, took: Duration, ok: bool) {
        self.units.push(Timed {
            step,
            what,
            took,
            ok,
        });
    }

    /// The closing report: every step's wall time, the ten slowest units and, per test
    /// binary, the time summed over its seeds.
    pub(crate) fn report(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let secs = |d: &Duration| d.as_secs_f64();
        let _ = writeln!(s, "\nxtask test: time per step (wall)");
        let _ = writeln!(s, "| step | seconds | result |\n|---|---:|---|");
        for (name, took, ok) in &self.steps {
            let _ = writeln!(
                s,
                "| {name} | {:.1} | {} |",
                secs(took),
                if *ok { "ok" } else { "FAILED" }
            );
        }
        let mut units: Vec<&Timed> = self.units.iter().collect();
        units.sort_by_key(|u| std::cmp::Reverse(u.took));
        let _ = writeln!(s, "\nxtask test: the {SLOWEST} slowest steps");
        let _ = writeln!(s, "| step | what | seconds |\n|---|---|---:|");
        for u in units.iter().take(SLOWEST) {
            let _ = writeln!(
                s,
                "| {} | {}{} | {:.1} |",
                u.step,
                u.what,
                if u.ok { "" } else { " (FAILED)" },
                secs(&u.took)
            );
        }
        // Per test binary, over all seeds: where the seeded runs' time goes.
        let mut per_binary: BTreeMap<&str, (Duration, usize)> = BTreeMap::new();
        for u in self.units.iter().filter(|u| u.step == TESTS_STEP) {
            let key = u.what.split(" seed ").next().unwrap_or(&u.what);
            let e = per_binary.entry(key).or_default();
            e.0 += u.took;
            e.1 += 1;
        }
        let mut per_binary: Vec<_> = per_binary.into_iter().collect();
        per_binary.sort_by_key(|p| std::cmp::Reverse(p.1.0));
        if !per_binary.is_empty() {
            let _ = writeln!(
                s,
                "\nxtask test: the {SLOWEST} slowest test binaries, all seeds together (CPU-core seconds of the pool)"
            );
            let _ = writeln!(s, "| test binary | runs | seconds |\n|---|---:|---:|");
            for (name, (took, runs)) in per_binary.iter().take(SLOWEST) {
                let _ = writeln!(s, "| {name} | {runs} | {:.1} |", secs(took));
            }
        }
        let _ = writeln!(
            s,
            "\nxtask test: {:.0} s in all",
            self.started.elapsed().as_secs_f64()
        );
        s
    }

    /// Keep the test binaries' times for the next run's ordering.
    fn save(&self, path: &Path) {
        let text: String = self
            .units
            .iter()
            .filter(|u| u.step == TESTS_STEP)
            .map(|u| format!("{}\t{:.3}\n", u.what, u.took.as_secs_f64()))
            .collect();
        let _ = std::fs::write(path, text);
    }
}

const TESTS_STEP: &str = "tests";

/// A step run by [`Timings::pool`].
pub(crate) type Lane<'a> = Box<dyn FnOnce() -> Result<()> + Send + 'a>;

/// `cargo xtask test`.
pub(crate) fn run(root: &Path) -> Result<()> {
    let mut t = Timings::new();
    let r = steps(root, &mut t);
    t.save(&root.join("target/test-times.tsv"));
    print!("{}", t.report());
    if r.is_ok() {
        println!("xtask test: all passed");
    }
    r
}

fn steps(root: &Path, t: &mut Timings) -> Result<()> {
    t.step("prerequisites", |_| crate::prereq::ensure_all())?;
    // 0. The code is formatted and clippy-clean (host crates, every target).
    t.step("cargo fmt --check", |_| {
        cargo(root, "fmt --all --check", " (run `cargo fmt --all`)")
    })?;
    t.step("cargo clippy", |_| {
        cargo(
            root,
            "clippy --quiet --workspace --all-targets -- -D warnings",
            "",
        )
    })?;
    t.step("product crates link no test crate", |_| {
        crate::command_links_no_harness(root)
    })?;
    let opts = Options::standard(root);
    let built = t.step("m68k build", |t| {
        let mut built = Vec::new();
        for a in pipeline::ARTIFACTS {
            eprintln!("xtask: building {} for the 68k", a.name);
            let start = Instant::now();
            let b = pipeline::build_artifact(a, &opts);
            t.unit("m68k build", a.name.to_string(), start.elapsed(), b.is_ok());
            built.push(b?);
        }
        Ok(built)
    })?;
    print!("{}", pipeline::size_table(&built));
    let m68k_dir = opts.out_dir.clone();

    // 0b. Every file in target/m68k/ that ships passes the verifier as shipped.
    t.step("verify shipped files", |_| crate::verify_shipped(&m68k_dir))?;

    // 0c. The figures the README and docs quote are the build's and the code's.
    t.step("docs quote true figures", |_| {
        crate::figures::check(root, &m68k_dir)
    })?;

    // 4. Byte-for-byte reproducible: a second build from scratch gives the same files. It
    // needs only the first build, so it runs beside the tests (which leave cores idle at
    // times: a binary with one long test, the single-threaded harness runs).
    let coverage_dir = fresh_coverage_dir(root)?;
    retro68_build::skips::clear()?;
    std::thread::scope(|s| -> Result<()> {
        let second = s.spawn(|| {
            eprintln!("xtask test: reproducible (second build from scratch, beside the tests)");
            let start = Instant::now();
            let r = crate::reproducible(root, &built);
            (start.elapsed(), r)
        });
        let checks = tests_and_checks(root, t, &m68k_dir, &coverage_dir, &built);
        let (took, r) = second.join().expect("the reproducibility build panicked");
        let name = "reproducible (second build from scratch)";
        t.steps.push((name, took, r.is_ok()));
        t.unit(name, name.to_string(), took, r.is_ok());
        checks?;
        r
    })?;

    // 5. A fixed sample of driver mutants, each killed by some suite. It edits `driver/src`
    // while it runs, so only after the reproducibility build has read the sources.
    t.step("driver mutants sample", |_| {
        retro68_build::mutants::test_sample(root)
    })?;
    retro68_build::skips::summary();
    Ok(())
}

/// The tests and the harness runs, from the m68k artifacts in `m68k_dir`.
fn tests_and_checks(
    root: &Path,
    t: &mut Timings,
    m68k_dir: &Path,
    coverage_dir: &Path,
    built: &[pipeline::Built],
) -> Result<()> {
    // 1. Everything `cargo test --workspace` runs, plus the tests that need m68k artifacts;
    // 1b. the driver suites again under more seeds: each seed is one reproducible choice
    // among what a real Mac may do (SCSI Manager 4.3 completion timing, underrun reporting).
    // Every emulated run records which driver instructions it executed.
    let env = [
        ("FERRITE_M68K_DIR", m68k_dir.to_path_buf()),
        (ferrite_emu::coverage::DIR_ENV, coverage_dir.to_path_buf()),
    ];
    let binaries = t.step("cargo test --no-run (build the test binaries)", |_| {
        test_binaries(root)
    })?;
    t.step("cargo test --doc", |_| {
        let mut cmd = crate::cargo_stable(root);
        cmd.args([
            "test",
            "--quiet",
            "--workspace",
            "--doc",
            "--",
            "--include-ignored",
        ]);
        for (k, v) in &env {
            cmd.env(k, v);
        }
        status(&mut cmd, "cargo test --workspace --doc")
    })?;
    let jobs = jobs(&binaries, EXTRA_SEEDS);
    let counts = t.step(TESTS_STEP, |t| run_pool(root, t, &binaries, jobs, &env))?;
    println!("{}", counts.summary(EXTRA_SEEDS));

    // 1c. Coverage of the shipped driver over all of the above.
    t.step("driver coverage", |_| {
        let cov = driver_coverage(root, m68k_dir, coverage_dir)?;
        println!("{}", cov.summary());
        check_coverage(root, &cov)
    })?;

    // The harness runs are single-threaded and long (the conformance suite executes about a
    // billion instructions per emulated CPU): one job per target, shared by a pool of workers,
    // longest first. Their binaries are built once, here.
    t.step("cargo build --release -p ferrite-harness", |_| {
        cargo(
            root,
            "build --quiet --release -p ferrite-harness --bins",
            "",
        )
    })?;
    let harness = |bin: &str| Command::new(root.join("target/release").join(bin));
    // 2. Codegen conformance on the m68k crate's 68000/68020/68040 and on QEMU, one target
    // per job ("68040" runs both 68040 cores, which the runner cross-checks).
    let conformance = |only: &'static str| -> Lane<'_> {
        Box::new(move || {
            status(
                harness("codegen-conformance")
                    .arg(m68k_dir.join("test/codegen-suite.flat"))
                    .arg(m68k_dir.join("test/codegen-suite-linux.elf"))
                    .arg("--known")
                    .arg(root.join("tests/codegen/known-miscompiles.txt"))
                    .args(["--only", only]),
                &format!("codegen conformance on {only}"),
            )
        })
    };
    // 2b. The on-target differential tests, short run: the driver's logic modules and the
    // shared parsers on random inputs, every 68k target against the host.
    let difftest = |only: &'static str| -> Lane<'_> {
        Box::new(move || {
            let (n, seed) = (crate::DIFFTEST_SHORT, crate::DIFFTEST_SEED);
            status(
                harness("difftest")
                    .arg(m68k_dir.join("test/ferrite-difftest.flat"))
                    .arg(m68k_dir.join("test/ferrite-difftest-linux.elf"))
                    .args(["--iterations", &n.to_string()])
                    .args(["--seed", &seed.to_string()])
                    .args(["--only", only, "--quiet"]),
                &format!("the differential tests on {only} (seed {seed}, {n} inputs per function)"),
            )
        })
    };
    // Longest first: the emulated conformance runs, the no-flag proof (a build and two
    // conformance runs on the 68040), the codegen fuzz (builds), then the differential tests.
    let mut jobs: Vec<(&'static str, Lane<'_>)> = HARNESS_TARGETS[..3]
        .iter()
        .map(|((c, _), only)| (*c, conformance(only)))
        .collect();
    // 3. Proof that the LLVM flag matters: without it, the build must be caught.
    jobs.push((
        "without the LLVM flag it is caught",
        Box::new(|| {
            let with_flag = built
                .iter()
                .find(|b| b.artifact.name == "codegen-suite")
                .expect("suite built");
            crate::no_flag_is_caught(root, with_flag)
        }),
    ));
    // 2c. The random differential run of the compiler, short, with a fixed seed.
    jobs.push((
        "codegen fuzz (short)",
        Box::new(|| crate::fuzz_codegen_short(root)),
    ));
    for ((_, d), only) in &HARNESS_TARGETS {
        jobs.push((d, difftest(only)));
    }
    let ((qemu_conformance, _), only) = HARNESS_TARGETS[3];
    jobs.push((qemu_conformance, conformance(only)));
    t.pool(jobs, workers())
}

/// The harness targets, split for the pool: (conformance step, difftest step) and the
/// runners' `--only` filter. Every target of the runners is in one of them: the emulated
/// 68000, 68020 and 68040 (`M680x0`) and QEMU's 68000 and 68040 (`qemu-m68k -cpu m680x0`).
const HARNESS_TARGETS: [((&str, &str), &str); 4] = [
    (("conformance M68000", "difftest M68000"), "M68000"),
    (("conformance M68020", "difftest M68020"), "M68020"),
    (
        (
            "conformance 68040 (emulated and QEMU)",
            "difftest 68040 (emulated and QEMU)",
        ),
        "68040",
    ),
    (
        ("conformance QEMU 68000", "difftest QEMU 68000"),
        "cpu m68000",
    ),
];

/// Workers for the pools: `FERRITE_TEST_JOBS`, else one per core.
fn workers() -> usize {
    std::env::var("FERRITE_TEST_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1)
}

/// `cargo ARGS` in `root`; a failure names the command and `hint`.
fn cargo(root: &Path, args: &str, hint: &str) -> Result<()> {
    status(
        crate::cargo_stable(root).args(args.split_whitespace()),
        &format!("cargo {args}{hint}"),
    )
}

/// One compiled test binary of the workspace.
struct TestBinary {
    /// `package/target` (`ferrite-tests/driver_io`, `ferrite-emu/lib`).
    label: String,
    exe: PathBuf,
    /// The package's directory: cargo runs a test binary there.
    manifest_dir: PathBuf,
    package: String,
    /// A driver suite, run under the extra seeds too.
    seeded: bool,
}

/// Build every test binary of the workspace and list them (`cargo test --no-run`, with the
/// same packages, profile and features as `cargo test --workspace`, so nothing rebuilds).
fn test_binaries(root: &Path) -> Result<Vec<TestBinary>> {
    let out = crate::cargo_stable(root)
        .args([
            "test",
            "--workspace",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .stderr(Stdio::inherit())
        .output()
        .context("could not run cargo test --no-run")?;
    if !out.status.success() {
        bail!("cargo test --workspace --no-run failed ({})", out.status);
    }
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" || msg["profile"]["test"] != true {
            continue;
        }
        let Some(exe) = msg["executable"].as_str() else {
            continue;
        };
        let manifest = PathBuf::from(msg["manifest_path"].as_str().unwrap_or_default());
        let manifest_dir = manifest
            .parent()
            .context("a manifest path without a directory")?
            .to_path_buf();
        let package = msg["package_id"]
            .as_str()
            .and_then(package_name)
            .unwrap_or("?")
            .to_string();
        let target = msg["target"]["name"].as_str().unwrap_or("?");
        let kind = msg["target"]["kind"][0].as_str().unwrap_or("?");
        let target = match kind {
            "test" => target.to_string(),
            "lib" | "rlib" | "proc-macro" => "lib".to_string(),
            k => format!("{k} {target}"),
        };
        let seeded = package == "ferrite-tests"
            && kind == "test"
            && (target.starts_with("driver_") || target == "start_manager_boot");
        found.push(TestBinary {
            label: format!("{package}/{target}"),
            exe: PathBuf::from(exe),
            manifest_dir,
            package,
            seeded,
        });
    }
    if !found.iter().any(|b| b.seeded) {
        bail!("cargo test --no-run listed no driver suite: the list of test binaries is stale");
    }
    Ok(found)
}

/// The package name in a cargo package id (`path+file:///…/tests#ferrite-tests@0.1.0`, or
/// `path+file:///…/driver#0.1.0` when the folder is the name).
fn package_name(id: &str) -> Option<&str> {
    let (path, frag) = id.rsplit_once('#')?;
    match frag.split_once('@') {
        Some((name, _)) => Some(name),
        None => path.rsplit('/').next(),
    }
}

/// One run of one test binary.
#[derive(Clone, Copy)]
struct Job {
    binary: usize,
    seed: Option<u64>,
}

fn jobs(binaries: &[TestBinary], extra_seeds: u64) -> Vec<Job> {
    let mut jobs: Vec<Job> = (0..binaries.len())
        .map(|binary| Job { binary, seed: None })
        .collect();
    for seed in 1..=extra_seeds {
        for (binary, b) in binaries.iter().enumerate() {
            if b.seeded {
                jobs.push(Job {
                    binary,
                    seed: Some(seed),
                });
            }
        }
    }
    jobs
}

fn job_label(b: &TestBinary, j: &Job) -> String {
    match j.seed {
        Some(s) => format!("{} seed {s}", b.label),
        None => b.label.clone(),
    }
}

/// What the test binaries reported.
#[derive(Default)]
struct Counts {
    binaries: usize,
    runs: usize,
    passed_default: usize,
    passed_seeded: usize,
    seeded_binaries: usize,
}

impl Counts {
    fn summary(&self, extra_seeds: u64) -> String {
        format!(
            "tests: {} test binaries, {} tests passed under the default seed; {} driver suites \
             under seeds 1..={extra_seeds}: {} more test runs passed ({} binary runs in all)",
            self.binaries, self.passed_default, self.seeded_binaries, self.passed_seeded, self.runs
        )
    }
}

/// Run `jobs` on a pool of workers, longest first (by the last run's times); stop starting
/// jobs after the first failure.
fn run_pool(
    root: &Path,
    t: &mut Timings,
    binaries: &[TestBinary],
    mut jobs: Vec<Job>,
    env: &[(&str, PathBuf)],
) -> Result<Counts> {
    let logs = root.join("target/test-logs");
    let _ = std::fs::remove_dir_all(&logs);
    std::fs::create_dir_all(&logs)?;
    let previous: BTreeMap<String, f64> =
        std::fs::read_to_string(root.join("target/test-times.tsv"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
            .collect();
    // Unknown binaries first (they may be long), then by the last run's time.
    let estimate = |j: &Job| {
        previous
            .get(&job_label(&binaries[j.binary], j))
            .copied()
            .unwrap_or(f64::MAX)
    };
    jobs.sort_by(|a, b| estimate(b).total_cmp(&estimate(a)));
    let workers = workers();
    let queue = Mutex::new(jobs.into_iter().collect::<VecDeque<Job>>());
    let done = Mutex::new(Vec::<(Job, Duration, Outcome)>::new());
    let failed = std::sync::atomic::AtomicBool::new(false);
    let total = queue.lock().expect("queue").len();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    if failed.load(std::sync::atomic::Ordering::SeqCst) {
                        break;
                    }
                    let Some(job) = queue.lock().expect("queue").pop_front() else {
                        break;
                    };
                    let b = &binaries[job.binary];
                    let start = Instant::now();
                    let outcome = run_job(b, &job, env, &logs);
                    let took = start.elapsed();
                    if !outcome.ok {
                        failed.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                    let mut done = done.lock().expect("done");
                    eprintln!(
                        "[{:>3}/{total}] {} {:>6.1} s  {}: {}",
                        done.len() + 1,
                        if outcome.ok { "ok  " } else { "FAIL" },
                        took.as_secs_f64(),
                        job_label(b, &job),
                        outcome.line
                    );
                    done.push((job, took, outcome));
                }
            });
        }
    });
    let done = done.into_inner().expect("done");
    let mut counts = Counts {
        binaries: binaries.len(),
        seeded_binaries: binaries.iter().filter(|b| b.seeded).count(),
        ..Counts::default()
    };
    let mut failures = Vec::new();
    for (job, took, outcome) in &done {
        let b = &binaries[job.binary];
        t.unit(TESTS_STEP, job_label(b, job), *took, outcome.ok);
        counts.runs += 1;
        match job.seed {
            None => counts.passed_default += outcome.passed,
            Some(_) => counts.passed_seeded += outcome.passed,
        }
        if !outcome.ok {
            failures.push((job, b, outcome));
        }
    }
    if failures.is_empty() && counts.runs != total {
        bail!("{} of {total} test binary runs ran", counts.runs);
    }
    for (job, b, outcome) in &failures {
        let log = std::fs::read_to_string(&outcome.log).unwrap_or_default();
        eprintln!(
            "---- {} ({}) ----\n{log}",
            job_label(b, job),
            outcome.log.display()
        );
    }
    if let Some((job, b, _)) = failures.first() {
        let seed = job
            .seed
            .map(|s| format!("FERRITE_SEED={s} "))
            .unwrap_or_default();
        let target = b.label.split_once('/').map_or("", |x| x.1);
        let select = match target {
            "lib" => "--lib".to_string(),
            t if t.contains(' ') => format!("--{t}"),
            t => format!("--test {t}"),
        };
        bail!(
            "{} test binary runs failed; reproduce the first with: {seed}FERRITE_M68K_DIR=target/m68k \
             cargo test -p {} {select} -- --include-ignored",
            failures.len(),
            b.package
        );
    }
    Ok(counts)
}

/// How one run of a test binary ended.
struct Outcome {
    ok: bool,
    /// Tests passed (from libtest's `test result:` line).
    passed: usize,
    /// libtest's `test result:` line, or why there is none.
    line: String,
    log: PathBuf,
}

fn run_job(b: &TestBinary, job: &Job, env: &[(&str, PathBuf)], logs: &Path) -> Outcome {
    let log = logs.join(format!(
        "{}.log",
        job_label(b, job).replace(['/', ' '], "_")
    ));
    let fail = |line: String| Outcome {
        ok: false,
        passed: 0,
        line,
        log: log.clone(),
    };
    let file = match std::fs::File::create(&log) {
        Ok(f) => f,
        Err(e) => return fail(format!("cannot create {}: {e}", log.display())),
    };
    let Ok(file2) = file.try_clone() else {
        return fail("cannot share the log file".into());
    };
    let mut cmd = Command::new(&b.exe);
    cmd.arg("--include-ignored")
        .current_dir(&b.manifest_dir)
        .env("CARGO_MANIFEST_DIR", &b.manifest_dir)
        .env("CARGO_PKG_NAME", &b.package)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(file2);
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some(s) = job.seed {
        cmd.env(ferrite_emu::seed::SEED_VAR, s.to_string());
    }
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) => return fail(format!("could not start {}: {e}", b.exe.display())),
    };
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with("test result:"))
        .unwrap_or("no `test result:` line")
        .to_string();
    let passed = line
        .split_once(". ")
        .and_then(|(_, r)| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Outcome {
        ok: status.success(),
        passed,
        line: if status.success() {
            line
        } else {
            format!("{line} ({status})")
        },
        log,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_from_cargo_ids() {
        assert_eq!(
            package_name("path+file:///w/tests#ferrite-tests@0.1.0"),
            Some("ferrite-tests")
        );
        assert_eq!(package_name("path+file:///w/driver#0.1.0"), Some("driver"));
    }

    #[test]
    fn the_seeded_suites_run_once_per_extra_seed() {
        let bin = |label: &str, seeded| TestBinary {
            label: label.into(),
            exe: PathBuf::new(),
            manifest_dir: PathBuf::new(),
            package: "p".into(),
            seeded,
        };
        let b = [
            bin("p/a", false),
            bin("p/driver_x", true),
            bin("p/c", false),
        ];
        let j = jobs(&b, 20);
        assert_eq!(j.len(), 3 + 20);
        assert!(j[3..].iter().all(|j| j.binary == 1));
        let seeds: Vec<u64> = j.iter().filter_map(|j| j.seed).collect();
        assert_eq!(seeds, (1..=20).collect::<Vec<_>>());
    }

    #[test]
    fn the_report_lists_the_slowest_ten_slowest_first() {
        let mut t = Timings::new();
        for i in 0..12u64 {
            t.unit(TESTS_STEP, format!("p/s{i}"), Duration::from_secs(i), true);
        }
        let r = t.report();
        let table = r.split("slowest steps").nth(1).expect("table");
        assert!(table.find("p/s11").expect("s11") < table.find("p/s10").expect("s10"));
        assert!(!table.split("\n\n").next().unwrap().contains("p/s1 |"));
    }
}
