//! `cargo xtask`: the one entry point for building, verifying and testing Ferrite.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use retro68_build::m68k::Cpu;
use retro68_build::pipeline::{self, ARTIFACTS, Built, Options};
use retro68_build::prereq;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod figures;
mod testrun;

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Build, verify and test Ferrite (m68k Mac SCSI driver and formatter)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Install what is missing, then build, legalize and verify every m68k artifact.
    Build,
    /// The main job: build everything, make a 256 MB disk image with `ferrite`, copy a file
    /// onto it, boot it in the emulated Quadra and read the file back through the driver.
    Demo,
    /// Run every test: the workspace's `cargo test` plus the emulator suites.
    Test,
    /// Build everything, then make the ready disk images in emulator-images/ (BlueSCSI,
    /// ZuluSCSI, SCSI2SD, PiSCSI, QEMU q800, MAME, Snow) and write their manifest.
    Images,
    /// Decode every instruction of an m68k file as it ships and report what the target CPU
    /// would reject, privileged instructions and compare/branch flag hazards. Without a file
    /// (or with --shipped): every file the build ships in target/m68k/, for the 68000.
    Verify {
        /// An m68k ELF (linked), a Ferrite flat image (`.flat`), the driver blob
        /// (`ferrite-driver.bin`), a MacBinary application (`FerriteSetup.bin`) or an
        /// application's resource fork (`.rsrc`).
        file: Option<PathBuf>,
        /// Verify every shipped file in target/m68k/ (the default without a file).
        #[arg(long, conflicts_with = "file")]
        shipped: bool,
        /// Target CPU: 68000, 68020, 68030 or 68040.
        #[arg(long, default_value = "68000")]
        cpu: u32,
        /// The image is a classic Mac application's: also report every instruction that
        /// writes A5 (the A5 world must hold `CurrentA5` whenever the Toolbox runs).
        #[arg(long)]
        app: bool,
    },
    /// Opt-in check with a real ROM: with FERRITE_Q800_ROM=FILE (a Quadra 800 ROM you own),
    /// boot a Ferrite disk in QEMU's q800 and read the Mac's low memory through QEMU's monitor
    /// to confirm the Ferrite driver is in the unit table and its volume in the drive queue.
    /// Without the variable it prints SKIPPED and exits with status 77 (neither pass nor fail).
    QemuCheck,
    /// Rewrite the fault matrix in docs/RELIABILITY.md (tests/tests/driver_fault_matrix.rs:
    /// every injected fault × operation × SCSI Manager × write cache) after a build.
    Reliability,
    /// Rewrite the benchmark tables in docs/BENCHMARKS.md (tests/tests/driver_bench_profiles.rs:
    /// KB/s versus request size, sustained 768 KB transfers, transactions per second and
    /// access time on every machine × disk profile, from emulated time only) after a build.
    Bench,
    /// Rewrite docs/screenshots/*.png and their page docs/SCREENSHOTS.md
    /// (tests/tests/screenshots.rs: Ferrite Setup's windows and alerts as the emulated Mac
    /// draws them, one scripted scene each) after a build.
    Screenshots,
    /// The long soak of the driver (tests/tests/driver_soak.rs): random reads and writes —
    /// synchronous, asynchronous, immediate, with KillIO —, faults and power losses, checked
    /// against a shadow of what the driver acknowledged, on every ROM model and CPU.
    Soak {
        /// The seed (default: the suite's default seed); a failure prints it.
        #[arg(long)]
        seed: Option<u64>,
        /// Operations per machine.
        #[arg(long, default_value_t = 100_000)]
        ops: u64,
    },
    /// The long fuzzing run: each libFuzzer target in fuzz/ (`cargo fuzz`, nightly) for
    /// --seconds, one after the other, starting from its seed corpus in fuzzing/corpus/;
    /// prints executions and crashes per target (crash inputs go to target/fuzz/artifacts/).
    Fuzz {
        /// Seconds per target.
        #[arg(long, default_value = "120")]
        seconds: u64,
        /// Only this target (a file name in fuzz/fuzz_targets/ without `.rs`).
        #[arg(long)]
        target: Option<String>,
    },
    /// Driver instruction coverage: run the tests as `cargo xtask test` does (the workspace,
    /// then the driver suites under every seed) recording which instructions of the shipped
    /// driver blob ran, then print `driver coverage: N/M instructions (P%)` and the
    /// never-executed ranges by function. `cargo xtask test` measures it the same way and
    /// checks the threshold and docs/COVERAGE.md.
    Coverage {
        /// Rewrite the generated table in docs/COVERAGE.md.
        #[arg(long)]
        write_docs: bool,
        /// Do not run the suites: measure what the last run left in target/coverage/driver/.
        #[arg(long)]
        reuse: bool,
    },
    /// The long run of the on-target differential tests (tests/difftest): the driver's logic
    /// modules and the shared parsers on random inputs on the emulated 68000/68020/68040 and
    /// under QEMU's 68000/68040, every result compared with the host's.
    Difftest {
        /// Inputs per function (20,000: about 15 minutes on one core).
        #[arg(long, default_value_t = 20_000)]
        iterations: u32,
        /// The seed; a mismatch prints it with the input's index.
        #[arg(long, default_value_t = 13)]
        seed: u32,
        /// Only the targets whose name contains this (`M68000`, `qemu`, …).
        #[arg(long)]
        only: Option<String>,
        /// Only this function (a name, or part of one, from tests/difftest/src/lib.rs).
        #[arg(long)]
        function: Option<String>,
    },
    /// The random differential run of the compiler (tests/codegen-fuzz): batches of generated
    /// UB-free programs built for the host and, through the whole pipeline, for the 68k, run
    /// on the emulated 68000/68020/68040 and under QEMU's 68000/68040, checksums compared.
    /// A mismatching program is written to target/codegen-fuzz/ and reduced.
    FuzzCodegen {
        /// Programs in all.
        #[arg(long, default_value_t = 2000)]
        programs: u32,
        /// The campaign's seed (program i of seed s is always the same program).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Programs per build.
        #[arg(long, default_value_t = 60)]
        batch: u32,
        /// Start at this program (to repeat and reduce one: `--first 54 --programs 1`).
        #[arg(long, default_value_t = 0)]
        first: u32,
        /// Start no batch after this many seconds.
        #[arg(long)]
        seconds: Option<u64>,
        /// Build without the binary repairs (to measure what the verifier flags).
        #[arg(long)]
        no_repair: bool,
        /// Do not reduce mismatching programs.
        #[arg(long)]
        no_reduce: bool,
        /// Only the short fixed-seed run of `cargo xtask test` (the other options are ignored).
        #[arg(long)]
        short: bool,
        /// Run `--programs` programs of every seed of A..B (or A..=B) and record the summary in
        /// docs/records/codegen-fuzz/ and docs/codegen-conformance.md (replaces `--seed`).
        #[arg(long)]
        seeds: Option<String>,
        /// Only regenerate the table of recorded runs in docs/codegen-conformance.md.
        #[arg(long)]
        update_records_doc: bool,
        /// Build and run this batch file (a hand-edited `mismatch-*.rs`) instead of generating.
        #[arg(long)]
        source: Option<PathBuf>,
    },
    /// Verifier recall: build the codegen suite and a batch of generated programs without
    /// the binary repairs, and count how many of the cases that then differ from the host
    /// (and agree with the repairs) run an instruction the verifier flags.
    CodegenRecall {
        /// Generated programs (one batch; 0 for the suite alone).
        #[arg(long, default_value_t = 40)]
        programs: u32,
        /// Their seed.
        #[arg(long, default_value_t = 3)]
        seed: u64,
    },
    /// Mutation testing of the driver (retro68-build/src/mutants.rs): mutants of driver/src
    /// (cargo-mutants' list, negated branches and dropped register saves in the assembly), each
    /// built through the pipeline and run through the driver suites; writes docs/MUTANTS.md.
    Mutants {
        /// Test this many mutants, drawn with --seed (default: all).
        #[arg(long)]
        sample: Option<usize>,
        /// The sample's seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only the mutants whose name contains this (`planted`: the planted bugs); the doc
        /// is not rewritten.
        #[arg(long)]
        only: Option<String>,
        /// List the mutants and stop.
        #[arg(long)]
        list: bool,
        /// Only the suites whose name contains this (the doc is not rewritten).
        #[arg(long)]
        suite: Option<String>,
        /// Start no mutant after this many minutes (the doc holds those tested).
        #[arg(long)]
        minutes: Option<u64>,
    },
    /// Install the prerequisites only.
    Setup,
}

fn workspace_root() -> PathBuf {
    // CARGO_MANIFEST_DIR is retro68-build/ at compile time.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn main() -> ExitCode {
    // The m68k builds run cargo with this binary as RUSTC_WRAPPER (see `stackidx`).
    if let Ok(spec) = std::env::var(retro68_build::stackidx::WRAPPER_ENV) {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        if !args.is_empty() {
            return match retro68_build::stackidx::wrapper_main(&spec, args) {
                Ok(0) => ExitCode::SUCCESS,
                Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
                Err(e) => {
                    eprintln!("xtask (rustc wrapper): error: {e:#}");
                    ExitCode::FAILURE
                }
            };
        }
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let root = workspace_root();
    // Before anything can rebuild target/debug/xtask (`cargo test` does), keep a copy of this
    // binary for the m68k builds' rustc wrapper.
    pipeline::pin_wrapper(&root)?;
    match cli.cmd {
        Cmd::Setup => {
            prereq::ensure_all()?;
            println!("xtask: all prerequisites are installed");
        }
        Cmd::Build => {
            prereq::ensure_all()?;
            let built = build_all(&Options::standard(&root))?;
            print!("{}", pipeline::size_table(&built));
        }
        Cmd::Demo => {
            prereq::ensure_all()?;
            let opts = Options::standard(&root);
            let built = build_all(&opts)?;
            println!("\nFerrite m68k artifacts (built for the 68000, legalized and verified):\n");
            print!("{}", pipeline::size_table(&built));
            demo(&root, &opts.out_dir.join("ferrite-driver.bin"))?;
        }
        Cmd::Images => {
            prereq::ensure_all()?;
            let opts = Options::standard(&root);
            build_all(&opts)?;
            images(&root, &opts.out_dir)?;
        }
        Cmd::Verify {
            file: Some(file),
            cpu,
            app,
            ..
        } => return verify_file(&file, cpu, app),
        Cmd::Verify { file: None, .. } => {
            verify_shipped(&Options::standard(&root).out_dir)?;
        }
        Cmd::Test => test(&root)?,
        Cmd::QemuCheck => return qemu_check(&root),
        Cmd::Reliability => {
            prereq::ensure_all()?;
            let opts = Options::standard(&root);
            build_all(&opts)?;
            write_suite_docs(
                &root,
                &opts.out_dir,
                "driver_fault_matrix",
                "docs/RELIABILITY.md",
            )?;
        }
        Cmd::Screenshots => {
            prereq::ensure_all()?;
            let opts = Options::standard(&root);
            build_all(&opts)?;
            write_suite_docs(&root, &opts.out_dir, "screenshots", "docs/SCREENSHOTS.md")?;
        }
        Cmd::Bench => {
            prereq::ensure_all()?;
            let opts = Options::standard(&root);
            build_all(&opts)?;
            write_suite_docs(
                &root,
                &opts.out_dir,
                "driver_bench_profiles",
                "docs/BENCHMARKS.md",
            )?;
        }
        Cmd::Soak { seed, ops } => {
            prereq::ensure_all()?;
            let opts = Options::standard(&root);
            build_all(&opts)?;
            soak(&root, &opts.out_dir, seed, ops)?;
        }
        Cmd::Fuzz { seconds, target } => return fuzz(&root, seconds, target.as_deref()),
        Cmd::Coverage { write_docs, reuse } => {
            prereq::ensure_all()?;
            let opts = Options::standard(&root);
            build_all(&opts)?;
            let dir = root.join("target/coverage/driver");
            if !reuse {
                fresh_coverage_dir(&root)?;
                status(
                    cargo_stable(&root)
                        .args(["test", "--workspace", "--", "--include-ignored"])
                        .env("FERRITE_M68K_DIR", &opts.out_dir)
                        .env(ferrite_emu::coverage::DIR_ENV, &dir),
                    "cargo test --workspace",
                )?;
                driver_suites_under_seeds(&root, &opts.out_dir, &dir)?;
            }
            let cov = driver_coverage(&root, &opts.out_dir, &dir)?;
            print!("{}", cov.table());
            println!("{}", cov.summary());
            if write_docs {
                write_coverage_docs(&root, &cov)?;
            }
        }
        Cmd::FuzzCodegen {
            programs,
            seed,
            batch,
            first,
            seconds,
            no_repair,
            no_reduce,
            short,
            seeds,
            update_records_doc,
            source,
        } => {
            if update_records_doc {
                retro68_build::fuzzrun::update_records_doc(&root)?;
                return Ok(ExitCode::SUCCESS);
            }
            prereq::ensure_all()?;
            if short {
                fuzz_codegen_short(&root)?;
                return Ok(ExitCode::SUCCESS);
            }
            let campaign = retro68_build::fuzzrun::Campaign {
                root: root.clone(),
                seed,
                first,
                programs,
                batch: batch.max(1),
                time_limit: seconds.map(std::time::Duration::from_secs),
                reduce: !no_reduce,
                repair: !no_repair,
                // Runs from another first program may run beside the campaign.
                work_dir: root.join(format!(
                    "target/codegen-fuzz{}{}",
                    if no_repair { "-norepair" } else { "" },
                    if first > 0 { "-from" } else { "" }
                )),
            };
            if let Some(file) = source {
                let text = std::fs::read_to_string(&file)?;
                let r = campaign.run_source("source", &text, &|| emu_bin(&root, "codegen-fuzz"))?;
                println!(
                    "codegen fuzz: {} mismatching, {} verifier findings",
                    r.mismatches.len(),
                    r.verifier_findings
                );
                for (i, t) in &r.mismatches {
                    println!("  program {i}: {}", t.join(" | "));
                }
                return Ok(ExitCode::SUCCESS);
            }
            if let Some(seeds) = seeds {
                let seeds = retro68_build::fuzzrun::parse_seeds(&seeds)?;
                let (r, file) = retro68_build::fuzzrun::run_recorded(&campaign, seeds, &|| {
                    emu_bin(&root, "codegen-fuzz")
                })?;
                println!("codegen fuzz: recorded in {}", file.display());
                return Ok(if r.found.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                });
            }
            let s = campaign.run(&|| emu_bin(&root, "codegen-fuzz"))?;
            print_fuzz_summary(&s);
            if !s.found.is_empty() {
                return Ok(ExitCode::FAILURE);
            }
        }
        Cmd::Mutants {
            sample,
            seed,
            only,
            list,
            suite,
            minutes,
        } => {
            let args = retro68_build::mutants::Args {
                sample,
                seed,
                only,
                list,
                suite,
                minutes,
            };
            return retro68_build::mutants::main(&root, &args);
        }
        Cmd::CodegenRecall { programs, seed } => codegen_recall(&root, programs, seed)?,
        Cmd::Difftest {
            iterations,
            seed,
            only,
            function,
        } => {
            prereq::ensure_all()?;
            let opts = Options::standard(&root);
            build_all(&opts)?;
            difftest(
                &root,
                &opts.out_dir,
                iterations,
                seed,
                only.as_deref(),
                function.as_deref(),
                false,
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `cargo xtask demo` after the build: the `ferrite` command, run as users run it
/// (`cargo run --release --bin ferrite`), from the workspace root.
fn demo(root: &Path, driver: &Path) -> Result<()> {
    // formatter/build.rs embeds target/m68k/ferrite-driver.bin, which build_all just wrote.
    if !driver.is_file() {
        bail!("{} was not built", driver.display());
    }
    let dir = root.join("target/demo");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(
        dir.join("Welcome.txt"),
        "Hello from Ferrite!\n\nThis file was copied onto an HFS volume by `ferrite add` and read back\n\
         on an emulated Quadra (68040, SCSI Manager 4.3 ROM) through the Ferrite SCSI driver.\n",
    )?;
    eprintln!("xtask: building the ferrite command (release)");
    status(
        cargo_stable(root).args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "ferrite-formatter",
            "--bin",
            "ferrite",
        ]),
        "cargo build --release --bin ferrite",
    )?;
    let ferrite = |args: &[&str]| -> Result<()> {
        println!(
            "\n$ ferrite {}",
            args.iter()
                .map(|a| if a.contains(' ') {
                    format!("'{a}'")
                } else {
                    a.to_string()
                })
                .collect::<Vec<_>>()
                .join(" ")
        );
        status(
            cargo_stable(root)
                .args([
                    "run",
                    "--quiet",
                    "--release",
                    "-p",
                    "ferrite-formatter",
                    "--bin",
                    "ferrite",
                    "--",
                ])
                .args(args),
            &format!("ferrite {}", args[0]),
        )
    };
    let disk = "target/demo/HD00_512.hda";
    ferrite(&["init", disk, "--size", "256M", "--force"])?;
    ferrite(&["add", "--text", disk, "target/demo/Welcome.txt"])?;
    ferrite(&[
        "boot",
        disk,
        "--rom",
        "scsi43",
        "--cpu",
        "68040",
        "--cat",
        "Macintosh HD:Welcome.txt",
        "--launch",
        "Macintosh HD:Ferrite Setup",
    ])?;
    println!(
        "\nxtask demo: {disk} boots in the emulated Quadra, the file came back through the driver, and \
         Ferrite Setup, read from the disk through the driver, ran and listed the SCSI bus."
    );
    println!(
        "Put it on a BlueSCSI/ZuluSCSI SD card, or see `cargo run --release --bin ferrite -- --help`."
    );
    Ok(())
}

/// `cargo xtask images` after the build: the release `ferrite` (with the driver and Ferrite
/// Setup just built embedded) makes every ready image; the manifest records them.
fn images(root: &Path, m68k_dir: &Path) -> Result<()> {
    let start = std::time::Instant::now();
    eprintln!("xtask: building the ferrite command (release)");
    status(
        cargo_stable(root).args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "ferrite-formatter",
            "--bin",
            "ferrite",
        ]),
        "cargo build --release --bin ferrite",
    )?;
    let ferrite = root
        .join("target/release/ferrite")
        .with_extension(std::env::consts::EXE_EXTENSION);
    let made = std::time::Instant::now();
    let manifest = retro68_build::images::images(root, &ferrite, m68k_dir)?;
    println!(
        "\nxtask images: {} images in emulator-images/ made, checked and hashed in {:.1} s; manifest {}",
        retro68_build::images::READY_IMAGES.len(),
        made.elapsed().as_secs_f64(),
        manifest.strip_prefix(root).unwrap_or(&manifest).display()
    );
    println!(
        "(total {:.1} s with the build). See emulator-images/README.md for each device and emulator.",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The environment variable naming the Quadra 800 ROM for `cargo xtask qemu-check`.
const Q800_ROM_ENV: &str = "FERRITE_Q800_ROM";
/// How long `qemu-check` gives the ROM to load the driver (QEMU emulates at a few times a
/// real Quadra's speed; the ROM's memory test and SCSI scan take seconds).
const QEMU_CHECK_SECONDS: u64 = 90;

/// The exit status of `cargo xtask qemu-check` when it did not run (no ROM): neither a pass
/// (0) nor a failure (1), so no script mistakes a skip for either (77: the "skipped" status of
/// the GNU test drivers).
const QEMU_CHECK_SKIPPED: u8 = 77;

/// `cargo xtask qemu-check`: see [`Cmd::QemuCheck`].
fn qemu_check(root: &Path) -> Result<ExitCode> {
    use ferrite_harness::qemu_monitor::{Monitor, MonitorMemory, QemuProcess, find_ferrite};
    use std::time::{Duration, Instant};
    let Some(rom) = std::env::var_os(Q800_ROM_ENV) else {
        println!(
            "xtask qemu-check: SKIPPED (exit status {QEMU_CHECK_SKIPPED}): {Q800_ROM_ENV} is not set. The check boots a real Quadra 800 ROM \
             in QEMU with a Ferrite disk, and no Apple ROM ships with Ferrite or may be used in its CI; \
             run `{Q800_ROM_ENV}=/path/to/Quadra800.rom cargo xtask qemu-check` with a ROM you own."
        );
        return Ok(ExitCode::from(QEMU_CHECK_SKIPPED));
    };
    let rom = std::path::absolute(PathBuf::from(rom))?;
    if !rom.is_file() {
        bail!("{Q800_ROM_ENV}={}: no such file", rom.display());
    }
    prereq::ensure_all()?;
    let opts = Options::standard(root);
    build_all(&opts)?;
    status(
        cargo_stable(root).args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "ferrite-formatter",
            "--bin",
            "ferrite",
        ]),
        "cargo build --release --bin ferrite",
    )?;
    let ferrite = root
        .join("target/release/ferrite")
        .with_extension(std::env::consts::EXE_EXTENSION);
    let dir = root.join("target/qemu-check");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    status(
        Command::new(&ferrite)
            .args(["init", "HD00_512.hda", "--size", "64M", "--force"])
            .current_dir(&dir),
        "ferrite init",
    )?;
    let sock = dir.join("monitor.sock");
    let pidfile = dir.join("qemu.pid");
    let child = Command::new(&ferrite)
        .arg("qemu")
        .arg("HD00_512.hda")
        .arg("--rom")
        .arg(&rom)
        .args(["--", "-display", "none", "-serial", "none", "-monitor"])
        .arg(format!("unix:{},server=on,wait=off", sock.display()))
        .arg("-pidfile")
        .arg(&pidfile)
        .current_dir(&dir)
        .spawn()
        .context("could not run ferrite qemu")?;
    let mut qemu = QemuProcess { child, pidfile };
    let mut m = Monitor::connect(&sock, Duration::from_secs(20)).map_err(anyhow::Error::msg)?;
    let start = Instant::now();
    let mut last = String::new();
    while start.elapsed() < Duration::from_secs(QEMU_CHECK_SECONDS) {
        std::thread::sleep(Duration::from_secs(3));
        if let Ok(Some(st)) = qemu.child.try_wait() {
            bail!(
                "QEMU stopped ({st}) after {:.0} s, before the Ferrite driver was found{}: is {} a Quadra 800 ROM?",
                start.elapsed().as_secs_f64(),
                if last.is_empty() {
                    String::new()
                } else {
                    format!(" ({last})")
                },
                rom.display()
            );
        }
        let mut mem = MonitorMemory {
            run: |c: &str| m.command(c),
        };
        match find_ferrite(&mut mem) {
            Ok(f) => {
                println!(
                    "xtask qemu-check: after {:.0} s the Ferrite driver is in the unit table (unit {}, refNum {}, DCE ${:08X}, driver at ${:08X}) and its drive{} in the drive queue: {}",
                    start.elapsed().as_secs_f64(),
                    f.unit,
                    f.ref_num,
                    f.dce,
                    f.driver,
                    if f.drives.len() == 1 { " is" } else { "s are" },
                    f.drives
                        .iter()
                        .map(|(d, n)| format!("drive {d}, {n} blocks"))
                        .collect::<Vec<_>>()
                        .join("; ")
                );
                m.quit();
                return Ok(ExitCode::SUCCESS);
            }
            Err(e) => last = e,
        }
    }
    m.quit();
    bail!(
        "after {QEMU_CHECK_SECONDS} s of QEMU with {}: {last}",
        rom.display()
    )
}

fn cpu_from_number(n: u32) -> Result<Cpu> {
    Ok(match n {
        68000 => Cpu::M68000,
        68010 => Cpu::M68010,
        68020 => Cpu::M68020,
        68030 => Cpu::M68030,
        68040 => Cpu::M68040,
        _ => bail!("unknown CPU {n}: use 68000, 68010, 68020, 68030 or 68040"),
    })
}

fn build_all(opts: &Options) -> Result<Vec<Built>> {
    let mut built = Vec::new();
    for a in ARTIFACTS {
        eprintln!("xtask: building {} for the 68k", a.name);
        built.push(pipeline::build_artifact(a, opts)?);
    }
    Ok(built)
}

fn verify_file(file: &Path, cpu: u32, app: bool) -> Result<ExitCode> {
    let cpu = cpu_from_number(cpu)?;
    let data = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let report = retro68_build::shipped::verify_bytes(&data, cpu, app)
        .with_context(|| format!("verifying {}", file.display()))?;
    print_file_report(file, &report);
    Ok(if report.finding_count() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_file_report(file: &Path, report: &retro68_build::shipped::FileReport) {
    for (part, f) in report.findings() {
        println!("{} ({part}): {f}", file.display());
    }
    println!(
        "{} ({}): {} instructions decoded, {} findings",
        file.display(),
        report.kind,
        report.instructions(),
        report.finding_count()
    );
}

/// `cargo xtask verify` without a file: every file the build ships, as shipped.
fn verify_shipped(dir: &Path) -> Result<()> {
    let reports = retro68_build::shipped::verify_shipped(dir)?;
    let mut bad = 0;
    for (path, r) in &reports {
        print_file_report(path, r);
        bad += usize::from(r.finding_count() > 0);
    }
    if bad > 0 {
        bail!(
            "{bad} of {} shipped files have verifier findings",
            reports.len()
        );
    }
    println!(
        "verify: {} shipped files in {}, 0 findings",
        reports.len(),
        dir.display()
    );
    Ok(())
}

fn cargo_stable(root: &Path) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root);
    cmd
}

fn status(cmd: &mut Command, what: &str) -> Result<()> {
    let st = cmd
        .status()
        .with_context(|| format!("could not start {what}"))?;
    if !st.success() {
        bail!("{what} failed ({st})");
    }
    Ok(())
}

/// `cargo xtask test`: every check, each step timed (see `testrun`).
fn test(root: &Path) -> Result<()> {
    testrun::run(root)
}

/// The product crates link no test or harness crate: the `ferrite` command (formatter) and
/// the emulated Mac it boots disks in link no codegen suite, differential tests, qemu-m68k
/// runner or integration suite (those are `ferrite-harness`, `codegen-suite`,
/// `ferrite-difftest` and `ferrite-tests`).
fn command_links_no_harness(root: &Path) -> Result<()> {
    for product in ["ferrite-formatter", "ferrite-emu", "ferrite-shared"] {
        let out = cargo_stable(root)
            .args([
                "tree", "--quiet", "-p", product, "--edges", "normal", "--prefix", "none",
            ])
            .output()
            .context("could not run cargo tree")?;
        if !out.status.success() {
            bail!("cargo tree -p {product} failed");
        }
        let tree = String::from_utf8_lossy(&out.stdout);
        if !tree.lines().any(|l| l.starts_with(&format!("{product} "))) {
            bail!("cargo tree -p {product} does not list {product}: the check is stale");
        }
        let linked: Vec<&str> = [
            "codegen-suite",
            "ferrite-difftest",
            "ferrite-harness",
            "ferrite-tests",
        ]
        .into_iter()
        .filter(|c| tree.lines().any(|l| l.starts_with(&format!("{c} "))))
        .collect();
        if !linked.is_empty() {
            bail!(
                "{product} links {}: a product crate must not depend on a test or harness crate",
                linked.join(", ")
            );
        }
    }
    Ok(())
}

/// Where the emulated suites record driver coverage; emptied first.
fn fresh_coverage_dir(root: &Path) -> Result<PathBuf> {
    let dir = root.join("target/coverage/driver");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("emptying {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// The shipped blob's coverage from the files in `dir`.
fn driver_coverage(
    root: &Path,
    m68k_dir: &Path,
    dir: &Path,
) -> Result<retro68_build::coverage::DriverCoverage> {
    let blob = std::fs::read(m68k_dir.join("ferrite-driver.bin"))?;
    let syms = root.join("target/m68k-build/standard/ferrite-driver.syms");
    let syms =
        std::fs::read_to_string(&syms).with_context(|| format!("reading {}", syms.display()))?;
    retro68_build::coverage::measure(&blob, &syms, dir)
}

/// The least driver coverage `cargo xtask test` accepts, per mille of instructions.
const COVERAGE_MIN_PER_MILLE: usize = 900;

/// The coverage reaches [`COVERAGE_MIN_PER_MILLE`], and docs/COVERAGE.md gives a reason for
/// every function with instructions no test executed (it names the function in backquotes
/// outside its generated table).
fn check_coverage(root: &Path, cov: &retro68_build::coverage::DriverCoverage) -> Result<()> {
    if cov.per_mille() < COVERAGE_MIN_PER_MILLE {
        print!("{}", cov.table());
        bail!(
            "driver coverage fell below {}% ({}): add tests for the paths above",
            COVERAGE_MIN_PER_MILLE / 10,
            cov.summary()
        );
    }
    let path = root.join("docs/COVERAGE.md");
    let doc =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let reasons = match (doc.find(COVERAGE_BEGIN), doc.find(COVERAGE_END)) {
        (Some(b), Some(e)) => format!("{}{}", &doc[..b], &doc[e..]),
        _ => doc.clone(),
    };
    let missing: Vec<&str> = cov
        .functions
        .iter()
        .filter(|f| f.executed < f.instructions)
        .map(|f| f.name.as_str())
        .filter(|n| !reasons.contains(&format!("`{n}`")))
        .collect();
    if !missing.is_empty() {
        print!("{}", cov.table());
        bail!(
            "no test executes some instructions of {}, and docs/COVERAGE.md gives no reason: \
             add a test, or the reason (`cargo xtask coverage --write-docs` updates the table)",
            missing.join(", ")
        );
    }
    Ok(())
}

const COVERAGE_BEGIN: &str = "<!-- generated by `cargo xtask coverage --write-docs`: begin -->";
const COVERAGE_END: &str = "<!-- generated: end -->";

/// Replace the generated part of docs/COVERAGE.md (between its markers).
fn write_coverage_docs(root: &Path, cov: &retro68_build::coverage::DriverCoverage) -> Result<()> {
    const BEGIN: &str = COVERAGE_BEGIN;
    const END: &str = COVERAGE_END;
    let path = root.join("docs/COVERAGE.md");
    let doc =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        bail!("{} lacks the markers {BEGIN} … {END}", path.display());
    };
    let new = format!(
        "{}{BEGIN}\n\n{}\n\n{}\n{}",
        &doc[..b],
        cov.summary(),
        cov.table(),
        &doc[e..]
    );
    std::fs::write(&path, new)?;
    println!("xtask coverage: wrote {}", path.display());
    Ok(())
}

/// `cargo xtask fuzz`: every libFuzzer target (or `only`) for `seconds` each, one at a time
/// (libFuzzer uses one core). The working corpus grows in target/fuzz/corpus/<target>/; the
/// committed seeds (fuzzing/corpus/) and regressions (fuzzing/regressions/) are read only.
fn fuzz(root: &Path, seconds: u64, only: Option<&str>) -> Result<ExitCode> {
    let mut targets: Vec<String> = std::fs::read_dir(root.join("fuzz/fuzz_targets"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".rs").map(str::to_string))
        .collect();
    targets.sort();
    if let Some(t) = only {
        if !targets.iter().any(|n| n == t) {
            bail!("no fuzz target {t}; the targets: {}", targets.join(", "));
        }
        targets.retain(|n| n == t);
    }
    let has_cargo_fuzz = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_cargo_fuzz {
        status(
            Command::new("cargo").args(["install", "cargo-fuzz"]),
            "cargo install cargo-fuzz",
        )?;
    }
    // The formatter's build script embeds the m68k artifacts and reruns whenever one is
    // missing; the targets do not use them, so an empty stand-in keeps the build fresh.
    let empty = root.join("target/fuzz/empty.bin");
    std::fs::create_dir_all(empty.parent().expect("parent"))?;
    std::fs::write(&empty, [])?;
    let nightly = format!("+{}", prereq::NIGHTLY);
    status(
        Command::new("cargo")
            .current_dir(root.join("fuzz"))
            .env("FERRITE_DRIVER_BIN", &empty)
            .env("FERRITE_SETUP_BIN", &empty)
            .args([nightly.as_str(), "fuzz", "build"]),
        "cargo fuzz build",
    )?;
    let bin_dir = root.join("fuzz/target/x86_64-unknown-linux-gnu/release");
    let mut rows = Vec::new();
    for t in &targets {
        let corpus = root.join("target/fuzz/corpus").join(t);
        let artifacts = root.join("target/fuzz/artifacts").join(t);
        std::fs::create_dir_all(&corpus)?;
        std::fs::create_dir_all(&artifacts)?;
        let mut cmd = Command::new(bin_dir.join(t));
        cmd.arg(&corpus).arg(root.join("fuzzing/corpus").join(t));
        let regressions = root.join("fuzzing/regressions").join(t);
        if regressions.is_dir() {
            cmd.arg(&regressions);
        }
        cmd.arg(format!("-max_total_time={seconds}"))
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .arg("-print_final_stats=1")
            .arg("-max_len=262144")
            .arg("-rss_limit_mb=2048")
            .arg("-timeout=10");
        println!("xtask fuzz: {t} for {seconds} s");
        let out = cmd
            .stderr(std::process::Stdio::piped())
            .output()
            .with_context(|| format!("could not start {}", bin_dir.join(t).display()))?;
        let log = String::from_utf8_lossy(&out.stderr);
        let stat = |name: &str| {
            log.lines()
                .find_map(|l| l.strip_prefix(&format!("stat::{name}:")))
                .map(|v| v.trim().to_string())
                .unwrap_or_else(|| "?".into())
        };
        let crashes = std::fs::read_dir(&artifacts)?.count();
        if !out.status.success() || crashes > 0 {
            eprintln!("{log}");
        }
        rows.push((
            t.clone(),
            stat("number_of_executed_units"),
            stat("average_exec_per_sec"),
            crashes,
            out.status.success(),
        ));
    }
    let record = retro68_build::records::fuzz_record(
        root,
        seconds,
        &rows
            .iter()
            .map(|r| retro68_build::records::FuzzRow {
                target: r.0.clone(),
                executions: r.1.parse().ok(),
                executions_per_second: r.2.parse().ok(),
                crashes: r.3,
                finished: r.4,
            })
            .collect::<Vec<_>>(),
    );
    let path = retro68_build::records::write(root, &record)?;
    println!(
        "xtask fuzz: record {} (docs/RELIABILITY.md's tables regenerated)",
        path.display()
    );
    println!(
        "\n{:<20} {:>14} {:>10} {:>8}",
        "target", "executions", "exec/s", "crashes"
    );
    for (t, execs, rate, crashes, _) in &rows {
        println!("{t:<20} {execs:>14} {rate:>10} {crashes:>8}");
    }
    if rows.iter().any(|r| r.3 > 0 || !r.4) {
        eprintln!(
            "xtask fuzz: crashes found; each input is in target/fuzz/artifacts/<target>/: \
             add it to fuzzing/regressions/<target>/ and fix the parser"
        );
        return Ok(ExitCode::FAILURE);
    }
    println!("xtask fuzz: no crashes");
    Ok(ExitCode::SUCCESS)
}

/// Seeds 1..=[`DRIVER_SEEDS`] (the workspace run above used seed 0).
const DRIVER_SEEDS: u64 = 20;

/// Run every driver suite (`tests/tests/driver_*.rs`, the boot suite) under
/// `FERRITE_SEED` = 1..=DRIVER_SEEDS; a failure names the seed and how to reproduce it.
/// `cargo xtask soak`: the soak suite with many operations, its report printed.
fn soak(root: &Path, m68k_dir: &Path, seed: Option<u64>, ops: u64) -> Result<()> {
    let started = std::time::Instant::now();
    let mut cmd = cargo_stable(root);
    cmd.args([
        "test",
        "--quiet",
        "-p",
        "ferrite-tests",
        "--test",
        "driver_soak",
    ])
    .args(["--", "--include-ignored", "--nocapture"])
    .env("FERRITE_M68K_DIR", m68k_dir)
    .env("FERRITE_SOAK_OPS", ops.to_string())
    .env("FERRITE_SOAK_RECORD", "1");
    if let Some(s) = seed {
        cmd.env("FERRITE_SEED", s.to_string());
    }
    let status = cmd.status().context("could not run cargo test")?;
    if !status.success() {
        bail!(
            "the soak failed{}; its message names the machine and operation",
            seed.map(|s| format!(" under --seed {s}"))
                .unwrap_or_default()
        );
    }
    println!(
        "xtask soak: {ops} operations on each of 5 machines passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `cargo xtask reliability`, `bench` and `screenshots`: run the suite `suite` under the
/// default seed with `FERRITE_WRITE_DOCS=1`, which rewrites its generated section of `doc`
/// (one test at a time, so its progress reads in order).
fn write_suite_docs(root: &Path, m68k_dir: &Path, suite: &str, doc: &str) -> Result<()> {
    let status = cargo_stable(root)
        .args(["test", "--quiet", "-p", "ferrite-tests", "--test", suite])
        .args([
            "--",
            "--include-ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("FERRITE_M68K_DIR", m68k_dir)
        .env("FERRITE_WRITE_DOCS", "1")
        .env_remove("FERRITE_SEED")
        .status()
        .context("could not run cargo test")?;
    if !status.success() {
        bail!("tests/tests/{suite}.rs failed (its message names the cell or check)");
    }
    println!("xtask: {doc} rewritten from tests/tests/{suite}.rs");
    Ok(())
}

fn driver_suites_under_seeds(root: &Path, m68k_dir: &Path, coverage_dir: &Path) -> Result<()> {
    let mut suites: Vec<String> = std::fs::read_dir(root.join("tests/tests"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("driver_") && n.ends_with(".rs"))
        .map(|n| n.trim_end_matches(".rs").to_string())
        .collect();
    suites.push("start_manager_boot".into());
    suites.sort();
    let started = std::time::Instant::now();
    for seed in 1..=DRIVER_SEEDS {
        let mut cmd = cargo_stable(root);
        cmd.args(["test", "--quiet", "-p", "ferrite-tests"]);
        for s in &suites {
            cmd.args(["--test", s]);
        }
        cmd.args(["--", "--include-ignored"])
            .env("FERRITE_M68K_DIR", m68k_dir)
            .env(ferrite_emu::coverage::DIR_ENV, coverage_dir)
            .env("FERRITE_SEED", seed.to_string());
        let out = cmd.output().context("could not run cargo test")?;
        if !out.status.success() {
            print!("{}", String::from_utf8_lossy(&out.stdout));
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
            bail!(
                "the driver suites failed under FERRITE_SEED={seed}; reproduce with: \
                 FERRITE_SEED={seed} FERRITE_M68K_DIR=target/m68k cargo test -p ferrite-tests \
                 --test <suite> -- --include-ignored"
            );
        }
    }
    println!(
        "driver suites: {} suites passed under seeds 0..={DRIVER_SEEDS} ({:.0} s for the extra seeds)",
        suites.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn print_fuzz_summary(s: &retro68_build::fuzzrun::Summary) {
    println!(
        "codegen fuzz: {} programs ({} batches) in {:.0} s on 5 targets; {} mismatching; {} verifier findings in the builds",
        s.programs,
        s.batches,
        s.elapsed.as_secs_f64(),
        s.found.len(),
        s.verifier_findings
    );
    for f in &s.found {
        println!(
            "  seed {} program {}: {} ({} targets){}",
            f.seed,
            f.index,
            f.file.display(),
            f.targets.len(),
            f.reduced
                .as_ref()
                .map(|r| format!(", reduced: {}", r.display()))
                .unwrap_or_default()
        );
    }
}

/// `cargo xtask codegen-recall` (see `retro68_build::recall`).
fn codegen_recall(root: &Path, programs: u32, seed: u64) -> Result<()> {
    use retro68_build::recall;
    prereq::ensure_all()?;
    let work = root.join("target/codegen-recall");
    std::fs::create_dir_all(&work)?;
    let with = Options::standard(root);
    // The same crates (same build directory and flags); only the passes after linking differ.
    let without = Options {
        repair_hazards: false,
        out_dir: root.join("target/m68k-norepair"),
        ..Options::standard(root)
    };
    let suite = |o: &Options| -> Result<Vec<Built>> {
        ["codegen-suite", "codegen-suite-linux"]
            .iter()
            .map(|n| {
                let a = ARTIFACTS
                    .iter()
                    .find(|a| a.name == *n)
                    .expect("suite artifact");
                pipeline::build_artifact(a, o)
            })
            .collect()
    };
    let mismatching = |b: &[Built], tag: &str| -> Result<std::collections::BTreeSet<String>> {
        let known = work.join(format!("{tag}.known.txt"));
        let _ = std::fs::remove_file(&known);
        conformance_runner(root)
            .arg(&b[0].path)
            .arg(&b[1].path)
            .arg("--quiet")
            .arg("--write-known")
            .arg(&known)
            .output()
            .context("could not run the codegen conformance runner")?;
        recall::read_known(&known)
    };
    eprintln!("xtask: building the codegen suite with and without the repairs");
    let b_with = suite(&with)?;
    let b_without = suite(&without)?;
    let bad_with = mismatching(&b_with, "with")?;
    let bad_without = mismatching(&b_without, "without")?;
    let dump = cargo_stable(root)
        .args([
            "run",
            "--quiet",
            "--release",
            "-p",
            "codegen-suite",
            "--example",
            "host_dump",
            "--",
            "--names",
        ])
        .output()
        .context("could not run the codegen suite's host_dump")?;
    let names: Vec<String> = String::from_utf8_lossy(&dump.stdout)
        .lines()
        .filter(|l| !l.starts_with("END"))
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect();
    let addrs: Vec<u32> = b_without[0]
        .verify
        .findings
        .iter()
        .map(|f| f.addr)
        .collect();
    let sites = recall::executed_sites(
        emu_bin(root, "codegen-fuzz"),
        &work.join("suite"),
        &b_without[0].path,
        &addrs,
    )?;
    let r = recall::compute(
        "codegen suite",
        &names,
        &bad_without,
        &bad_with,
        &sites,
        addrs.len(),
    )?;
    println!("{}", r.summary());

    if programs > 0 {
        let campaign = |repair: bool, dir: &str| retro68_build::fuzzrun::Campaign {
            root: root.to_path_buf(),
            seed,
            first: 0,
            programs,
            batch: programs,
            time_limit: None,
            reduce: false,
            repair,
            work_dir: work.join(dir),
        };
        let progs: Vec<_> = (0..programs)
            .map(|i| {
                (
                    retro68_build::fuzzgen::generate(seed, i),
                    Default::default(),
                )
            })
            .collect();
        let names: Vec<String> = progs.iter().map(|(p, _)| p.name.clone()).collect();
        let runner = || emu_bin(root, "codegen-fuzz");
        let with = campaign(true, "fuzz-with").run_batch("recall", &progs, &runner)?;
        let without = campaign(false, "fuzz-without").run_batch("recall", &progs, &runner)?;
        let sites = recall::executed_sites(
            emu_bin(root, "codegen-fuzz"),
            &work.join("fuzz"),
            &without.flat,
            &without.finding_addrs,
        )?;
        let r = recall::compute(
            &format!("{programs} generated programs, seed {seed}"),
            &names,
            &recall::names_of(&without.mismatches, &names),
            &recall::names_of(&with.mismatches, &names),
            &sites,
            without.finding_addrs.len(),
        )?;
        println!("{}", r.summary());
    }
    Ok(())
}

/// The short random differential run in `cargo xtask test`: fixed seed, one batch.
const FUZZ_SHORT_SEED: u64 = 2;
const FUZZ_SHORT_PROGRAMS: u32 = 12;

fn fuzz_codegen_short(root: &Path) -> Result<()> {
    let campaign = retro68_build::fuzzrun::Campaign {
        root: root.to_path_buf(),
        seed: FUZZ_SHORT_SEED,
        first: 0,
        programs: FUZZ_SHORT_PROGRAMS,
        batch: FUZZ_SHORT_PROGRAMS,
        time_limit: None,
        reduce: false,
        repair: true,
        work_dir: root.join("target/codegen-fuzz-short"),
    };
    let s = campaign.run(&|| emu_bin(root, "codegen-fuzz"))?;
    print_fuzz_summary(&s);
    if s.programs != FUZZ_SHORT_PROGRAMS {
        bail!("the short codegen fuzz run ran {} programs", s.programs);
    }
    if !s.found.is_empty() {
        bail!(
            "the short codegen fuzz run found {} mismatching programs (a new miscompile, see docs/codegen-conformance.md)",
            s.found.len()
        );
    }
    Ok(())
}

/// Inputs per function of the differential tests in `cargo xtask test`.
const DIFFTEST_SHORT: u32 = 2000;
/// Their seed (`cargo xtask difftest --seed` picks another).
const DIFFTEST_SEED: u32 = 13;

/// The on-target differential tests (`tests/harness/src/bin/difftest.rs`).
fn difftest(
    root: &Path,
    m68k_dir: &Path,
    iterations: u32,
    seed: u32,
    only: Option<&str>,
    function: Option<&str>,
    quiet: bool,
) -> Result<()> {
    let mut cmd = emu_bin(root, "difftest");
    cmd.arg(m68k_dir.join("test/ferrite-difftest.flat"))
        .arg(m68k_dir.join("test/ferrite-difftest-linux.elf"))
        .args(["--iterations", &iterations.to_string()])
        .args(["--seed", &seed.to_string()]);
    if let Some(o) = only {
        cmd.args(["--only", o]);
    }
    if let Some(f) = function {
        cmd.args(["--function", f]);
    }
    if quiet {
        cmd.arg("--quiet");
    }
    status(
        &mut cmd,
        &format!("the differential tests (seed {seed}, {iterations} inputs per function)"),
    )
}

/// `cargo run --release` of one of ferrite-harness's binaries (`codegen-conformance`,
/// `difftest`); the caller adds its arguments.
fn emu_bin(root: &Path, bin: &str) -> Command {
    let mut cmd = cargo_stable(root);
    cmd.args([
        "run",
        "--quiet",
        "--release",
        "-p",
        "ferrite-harness",
        "--bin",
        bin,
        "--",
    ]);
    cmd
}

fn conformance_runner(root: &Path) -> Command {
    emu_bin(root, "codegen-conformance")
}

/// Passed/total from a `codegen conformance: P/T on TARGET` line.
fn passed_on(output: &str, target: &str) -> Option<(u32, u32)> {
    output
        .lines()
        .find(|l| l.starts_with("codegen conformance:") && l.contains(&format!(" on {target}")))
        .and_then(|l| {
            let frac = l.split_whitespace().nth(2)?;
            let (p, t) = frac.split_once('/')?;
            Some((p.parse().ok()?, t.parse().ok()?))
        })
}

fn reproducible(root: &Path, first: &[Built]) -> Result<()> {
    let opts = Options {
        root: root.to_path_buf(),
        phi_flag: true,
        build_dir: root.join("target/m68k-build/reproducibility"),
        out_dir: root.join("target/m68k-reproducibility"),
        strict: true,
        repair_hazards: true,
        stackidx_rewrite: true,
        crate_env: Vec::new(),
    };
    let _ = std::fs::remove_dir_all(&opts.build_dir);
    eprintln!(
        "xtask: building every artifact a second time, from scratch, to check reproducibility"
    );
    let second = build_all(&opts)?;
    for (a, b) in first.iter().zip(&second) {
        let x = std::fs::read(&a.path)?;
        let y = std::fs::read(&b.path)?;
        if x != y {
            bail!(
                "{} is not reproducible: {} and {} differ",
                a.artifact.name,
                a.path.display(),
                b.path.display()
            );
        }
    }
    println!(
        "reproducible: {} artifacts byte-for-byte identical across two clean builds",
        first.len()
    );
    Ok(())
}

fn no_flag_is_caught(root: &Path, with_flag: &Built) -> Result<()> {
    let opts = Options {
        root: root.to_path_buf(),
        phi_flag: false,
        build_dir: root.join("target/m68k-build/no-phi-flag"),
        out_dir: root.join("target/m68k-no-phi-flag"),
        strict: false,
        // Measure what the compiler itself produces (the stack-index rewrite stays: it is
        // part of how every m68k crate is compiled).
        repair_hazards: false,
        stackidx_rewrite: true,
        crate_env: Vec::new(),
    };
    let a = ARTIFACTS
        .iter()
        .find(|a| a.name == "codegen-suite")
        .expect("codegen-suite artifact");
    let l = ARTIFACTS
        .iter()
        .find(|a| a.name == "codegen-suite-linux")
        .expect("codegen-suite-linux artifact");
    eprintln!(
        "xtask: building the codegen suite WITHOUT {} (expected to be caught)",
        pipeline::PHI_FLAG
    );
    let built = pipeline::build_artifact(a, &opts)?;
    let built_linux = pipeline::build_artifact(l, &opts)?;
    let (h_with, h_without) = (with_flag.raw_hazards, built.raw_hazards);
    let run = |flat: &Path| -> Result<Option<(u32, u32)>> {
        let out = conformance_runner(root)
            .arg(flat)
            .arg(&built_linux.path)
            .args(["--only", "M68040", "--quiet"])
            .output()
            .context("could not run the codegen conformance runner")?;
        Ok(passed_on(&String::from_utf8_lossy(&out.stdout), "M68040"))
    };
    let p_with = run(&with_flag.path)?;
    let p_without = run(&built.path)?;
    println!(
        "without {}: the verifier finds {h_without} flag hazards (with it: {h_with}); the suite passes {} on the 68040 (with it: {})",
        pipeline::PHI_FLAG,
        p_without
            .map(|(p, t)| format!("{p}/{t}"))
            .unwrap_or_else(|| "nothing".into()),
        p_with
            .map(|(p, t)| format!("{p}/{t}"))
            .unwrap_or_else(|| "?".into()),
    );
    let verifier_caught = h_without > h_with;
    let suite_caught = match (p_without, p_with) {
        (None, _) => true,
        (Some((pw, _)), Some((p, _))) => pw < p,
        (Some(_), None) => false,
    };
    if !verifier_caught && !suite_caught {
        bail!(
            "building without {} was NOT caught by the verifier or the suite",
            pipeline::PHI_FLAG
        );
    }
    Ok(())
}
