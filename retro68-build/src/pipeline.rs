//! The m68k pipeline: `cargo +nightly rustc` (build-std, `m68k.json`) → static library →
//! GNU ld `-q` with a project linker script → ELF → legalize → flat image or patched ELF →
//! verify. Every artifact goes through every step; a verifier finding fails the build.

use crate::elf::{Linked, read_linked};
use crate::m68k::{self, Cpu};
use crate::prereq::NIGHTLY;
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The LLVM option that keeps the M68k backend from putting register copies between a
/// compare and its branch (see docs/codegen-conformance.md, "The bugs"). Passed to every m68k crate,
/// `core`, `alloc` and `compiler_builtins` included.
pub const PHI_FLAG: &str = "-C llvm-args=-phi-elim-split-all-critical-edges";

/// Bumped whenever the stack-index rewrite (`crate::stackidx`) changes: it is passed as a
/// `--cfg` so that cargo rebuilds every crate (cargo does not see a new wrapper binary).
pub const STACKIDX_REWRITE: &str = "--cfg ferrite_stackidx_rewrite_v14";

/// Hand-written 68000 helpers that replace `mulu.l`/`muls.l` (see `m68k::repair_68000`),
/// linked into every artifact built from Rust.
pub const MUL32_HELPERS: &str = "retro68-build/stub/mul32.S";

/// Hand-written `memcpy`/`memmove`/`memset`/`memcmp`/`bcmp`, linked into every artifact built
/// from Rust instead of compiler_builtins' (which LLVM compiles into odd-address word
/// accesses on the 68000; see `stub/mem.S`).
pub const MEM_HELPERS: &str = "retro68-build/stub/mem.S";
const MUL32_SYMBOLS: [&str; 2] = ["__ferrite_mulu32", "__ferrite_muls32"];

/// How many flag-neutral instructions (`movea`, `movem`, …) between the copy and the
/// conditional may move with the copy when a hazard is repaired. Seed 3 program 6 of the
/// random run had 5 of them behind a byte copy and 6 behind a long copy that overwrote the
/// compared register (`retro68-build/tests/relayout.rs`,
/// `byte_copy_and_long_copy_far_from_the_branch`); with 4 neither could move, and a byte copy
/// has no flag-neutral form for the last pass.
pub const REPAIR_MAX_GAP: usize = 8;

/// What an artifact becomes after linking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Linked at 0 with `link/flat.ld`; written as a `.flat` container.
    Flat { exports: &'static [&'static str] },
    /// A freestanding m68k Linux executable (`link/linux.ld`) for `qemu-m68k`.
    LinuxElf,
    /// The driver: a flat image (for tests) and the boot blob `NAME.bin` = image followed by
    /// its relocation table, with the table's offset written at
    /// `ferrite_shared::driver_blob::RELOC_OFFSET_FIELD` (see `driver/src/entry.S`).
    DriverBlob { exports: &'static [&'static str] },
    /// A classic Mac application (`rsrc::app`): the flat image (for tests), the resource fork
    /// `NAME.rsrc` (CODE 0/1 from the image + the resources compiled from `resources`) and the
    /// MacBinary II file `<file_stem>.bin` of the application `file_name`.
    Application {
        /// The export control goes to (it must end with `_ExitToShell`).
        entry: &'static str,
        /// The resource source (workspace-relative), in `rsrc::compile`'s format.
        resources: &'static str,
        /// The Finder name of the application.
        file_name: &'static str,
        /// The MacBinary file's name without `.bin`.
        file_stem: &'static str,
        /// Creator code (the `BNDL` signature).
        creator: [u8; 4],
    },
}

/// The rustc flag every application's crates (build-std included) are compiled with: LLVM's
/// M68k feature that keeps A5 out of register allocation. A classic Mac application must keep
/// A5 = `CurrentA5` whenever it calls the Toolbox (Inside Macintosh: Memory, "The A5 world");
/// the verifier checks that no application instruction writes A5 ([`m68k::a5_writes`]).
pub const APP_RESERVE_A5: &str = "-Ctarget-feature=+reserve-a5";

/// Creation and modification date of the applications the build writes (2026-01-01 00:00,
/// seconds since 1904-01-01), so that their MacBinary files are reproducible.
pub const APP_DATE: u32 = 3_850_070_400;

/// Largest driver blob the build accepts: what every driver partition Ferrite makes holds
/// besides its flight-record area (`ferrite_shared::driver_blob::DRIVER_BLOB_MAX`, 45,056
/// bytes; ARCHITECTURE.md, "Invariants").
pub const DRIVER_BLOB_MAX: usize = ferrite_shared::driver_blob::DRIVER_BLOB_MAX;

/// Where an artifact's code comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A Cargo package built for the 68k as a static library.
    Crate {
        package: &'static str,
        features: &'static [&'static str],
        /// `opt-level` for this artifact.
        opt_level: &'static str,
    },
    /// A hand-written assembly file (path relative to the workspace root), assembled for the
    /// 68000 with GNU as.
    Asm { file: &'static str },
}

/// One m68k artifact.
#[derive(Debug, Clone, Copy)]
pub struct Artifact {
    /// File stem under `target/m68k/` (or `target/m68k/test/`).
    pub name: &'static str,
    pub source: Source,
    pub kind: Kind,
    /// Hand-written assembly files linked in as well (paths relative to the workspace root).
    pub extra_asm: &'static [&'static str],
    /// Shipped artifacts go to `target/m68k/`; test artifacts to `target/m68k/test/`.
    pub shipped: bool,
    /// Extra rustc flags for this artifact's crates (all of them, build-std included).
    pub rustflags: &'static [&'static str],
}

/// Every artifact `cargo xtask build` makes.
pub const ARTIFACTS: &[Artifact] = &[
    Artifact {
        name: "ferrite-driver",
        source: Source::Crate {
            package: "ferrite-driver",
            features: &[],
            opt_level: "s",
        },
        kind: Kind::DriverBlob {
            exports: &[
                "ferrite_blob_start",
                "ferrite_drvr_header",
                "ferrite_settings",
            ],
        },
        extra_asm: &[
            "driver/src/entry.S",
            "driver/src/glue.S",
            "retro68-build/stub/relocate.S",
        ],
        shipped: true,
        // A panic is a bug: stop at once instead of formatting a message (keeps core::fmt,
        // 6 KB, out of the blob).
        rustflags: &["-Zunstable-options", "-Cpanic=immediate-abort"],
    },
    Artifact {
        name: "ferrite-relocate",
        source: Source::Asm {
            file: "retro68-build/stub/relocate.S",
        },
        kind: Kind::Flat {
            exports: &["ferrite_relocate"],
        },
        extra_asm: &[],
        shipped: true,
        rustflags: &[],
    },
    Artifact {
        name: "ferrite-setup",
        source: Source::Crate {
            package: "ferrite-setup",
            features: &[],
            opt_level: "s",
        },
        kind: Kind::Application {
            entry: "main",
            resources: "setup/resources.rdef",
            file_name: "Ferrite Setup",
            file_stem: "FerriteSetup",
            creator: *b"FRRT",
        },
        extra_asm: &[
            "macrt/src/glue.S",
            "setup/src/scsi_glue.S",
            "setup/src/mount_glue.S",
        ],
        shipped: true,
        // A5 belongs to the A5 world (QuickDraw globals, CurrentA5): never a general register.
        rustflags: &[APP_RESERVE_A5],
    },
    Artifact {
        name: "codegen-suite",
        source: Source::Crate {
            package: "codegen-suite",
            features: &["mac"],
            opt_level: "s",
        },
        kind: Kind::Flat {
            exports: &["cg_case_count", "cg_run_case"],
        },
        extra_asm: &[],
        shipped: false,
        rustflags: &[],
    },
    Artifact {
        name: "codegen-suite-linux",
        source: Source::Crate {
            package: "codegen-suite",
            features: &["linux"],
            opt_level: "s",
        },
        kind: Kind::LinuxElf,
        extra_asm: &["tests/codegen/linux_start.S"],
        shipped: false,
        rustflags: &[],
    },
    // The on-target differential tests (`tests/difftest`): the driver's logic modules and the
    // shared parsers on random inputs, compared with the host (`docs/RELIABILITY.md`).
    Artifact {
        name: "ferrite-difftest",
        source: Source::Crate {
            package: "ferrite-difftest",
            features: &["mac"],
            opt_level: "s",
        },
        kind: Kind::Flat {
            exports: &["dt_function_count", "dt_run", "dt_trace"],
        },
        extra_asm: &[],
        shipped: false,
        rustflags: &[],
    },
    Artifact {
        name: "ferrite-difftest-linux",
        source: Source::Crate {
            package: "ferrite-difftest",
            features: &["linux"],
            opt_level: "s",
        },
        kind: Kind::LinuxElf,
        extra_asm: &["tests/difftest/linux_start.S"],
        shipped: false,
        rustflags: &[],
    },
];

/// The generated programs of `cargo xtask fuzz-codegen` (`tests/codegen-fuzz`), built like the
/// codegen suite; not part of `cargo xtask build`.
pub const FUZZ_ARTIFACTS: &[Artifact] = &[
    Artifact {
        name: "codegen-fuzz",
        source: Source::Crate {
            package: "codegen-fuzz",
            features: &["mac"],
            opt_level: "s",
        },
        kind: Kind::Flat {
            exports: &["cg_case_count", "cg_run_case"],
        },
        extra_asm: &[],
        shipped: false,
        rustflags: &[],
    },
    Artifact {
        name: "codegen-fuzz-linux",
        source: Source::Crate {
            package: "codegen-fuzz",
            features: &["linux"],
            opt_level: "s",
        },
        kind: Kind::LinuxElf,
        extra_asm: &["tests/codegen/linux_start.S"],
        shipped: false,
        rustflags: &[],
    },
];

/// Options for one pipeline run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Workspace root.
    pub root: PathBuf,
    /// Pass [`PHI_FLAG`] (always, except for the test that proves its absence is caught).
    pub phi_flag: bool,
    /// Where cargo builds (`target/m68k-build/<variant>`).
    pub build_dir: PathBuf,
    /// Where artifacts are written.
    pub out_dir: PathBuf,
    /// Fail on verifier findings.
    pub strict: bool,
    /// Run the flag-hazard repair pass (always, except to measure the raw compiler).
    pub repair_hazards: bool,
    /// Compile every crate through the stack-index rewrite (`crate::stackidx`): always,
    /// except to measure the raw compiler.
    pub stackidx_rewrite: bool,
    /// Environment variables for the crate builds (the batch of `tests/codegen-fuzz`).
    pub crate_env: Vec<(&'static str, PathBuf)>,
}

impl Options {
    /// The normal configuration under `root`.
    pub fn standard(root: &Path) -> Options {
        Options {
            root: root.to_path_buf(),
            phi_flag: true,
            build_dir: root.join("target/m68k-build/standard"),
            out_dir: root.join("target/m68k"),
            strict: true,
            repair_hazards: true,
            stackidx_rewrite: true,
            crate_env: Vec::new(),
        }
    }
}

/// What building one artifact produced.
#[derive(Debug, Clone)]
pub struct Built {
    pub artifact: Artifact,
    /// The written file (`.flat` or `.elf`).
    pub path: PathBuf,
    pub code_len: u32,
    pub data_len: u32,
    pub bss_len: u32,
    pub relocs: u32,
    pub reloc_table_len: u32,
    pub file_len: u64,
    pub legalized: m68k::LegalizeReport,
    /// Flag hazards the compiler left (before the repair pass).
    pub raw_hazards: usize,
    /// What the repair passes did, if they ran.
    pub repair: Option<(m68k::RepairReport, m68k::Repair68000Report)>,
    pub verify: m68k::VerifyReport,
}

/// The toolchain m68k code is built with: [`NIGHTLY`], or `FERRITE_M68K_TOOLCHAIN` when set
/// (for trying other compilers; the result is still legalized, verified and tested).
pub fn toolchain() -> String {
    std::env::var("FERRITE_M68K_TOOLCHAIN").unwrap_or_else(|_| NIGHTLY.to_string())
}

fn nightly_cargo(opts: &Options) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.arg(format!("+{}", toolchain()));
    // Do not let the outer (stable) cargo's settings leak into the nightly build.
    for var in [
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTUP_TOOLCHAIN",
        "CARGO_BUILD_TARGET",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    cmd.current_dir(&opts.root);
    cmd
}

/// RUSTFLAGS for m68k builds: the LLVM flag, and a path remapping so that the checkout's
/// location (which ends up in panic locations) does not change the binary.
fn rustflags(opts: &Options, extra: &[&str]) -> String {
    let mut flags = format!("--remap-path-prefix={}=/ferrite", opts.root.display());
    if opts.phi_flag {
        flags.push(' ');
        flags.push_str(PHI_FLAG);
    }
    if opts.stackidx_rewrite {
        flags.push(' ');
        flags.push_str(STACKIDX_REWRITE);
    }
    for f in extra {
        flags.push(' ');
        flags.push_str(f);
    }
    flags
}

static WRAPPER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Copy the running `xtask` binary to `target/m68k-build/wrapper/xtask` and use that copy as
/// the m68k builds' `RUSTC_WRAPPER` (the stack-index rewrite). Later `cargo` runs in the same
/// `xtask` process (`cargo test --workspace` in `xtask test`) may rebuild and replace
/// `target/debug/xtask`; the copy stays. Replaced atomically, only when it differs.
pub fn pin_wrapper(root: &Path) -> Result<()> {
    if WRAPPER.get().is_some() {
        return Ok(());
    }
    let exe = std::env::current_exe().context("cannot find the xtask binary")?;
    let data = std::fs::read(&exe).with_context(|| format!("reading {}", exe.display()))?;
    let dir = root.join("target/m68k-build/wrapper");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let dest = dir.join("xtask");
    if std::fs::read(&dest).ok().as_deref() != Some(&data[..]) {
        let tmp = dir.join(format!("xtask.{}.tmp", std::process::id()));
        std::fs::write(&tmp, &data)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
        std::fs::rename(&tmp, &dest)?;
    }
    let _ = WRAPPER.set(dest);
    Ok(())
}

/// Compile `a` for the 68k; returns the path of the object or static library to link.
pub fn compile(a: &Artifact, opts: &Options) -> Result<PathBuf> {
    match a.source {
        Source::Crate {
            package,
            features,
            opt_level,
        } => cargo_build(a.name, package, features, opt_level, a.rustflags, opts),
        Source::Asm { file } => assemble(a.name, &opts.root.join(file), opts),
    }
}

/// Assemble `a`'s extra assembly files; returns the objects.
pub fn extra_objects(a: &Artifact, opts: &Options) -> Result<Vec<PathBuf>> {
    let mut files: Vec<&str> = a.extra_asm.to_vec();
    if matches!(a.source, Source::Crate { .. }) {
        files.push(MUL32_HELPERS);
        files.push(MEM_HELPERS);
    }
    files
        .iter()
        .enumerate()
        .map(|(i, f)| assemble(&format!("{}-extra{i}", a.name), &opts.root.join(f), opts))
        .collect()
}

fn assemble(name: &str, file: &Path, opts: &Options) -> Result<PathBuf> {
    std::fs::create_dir_all(&opts.build_dir)?;
    let obj = opts.build_dir.join(format!("{name}.o"));
    // `.include` finds files next to the source (stub/relocate.S includes reloc_walk.S).
    let dir = file.parent().unwrap_or(Path::new("."));
    let out = Command::new("m68k-linux-gnu-as")
        .args(["-m68000", "-o"])
        .arg(&obj)
        .arg("-I")
        .arg(dir)
        .arg(file)
        .output()
        .context("could not run m68k-linux-gnu-as")?;
    if !out.status.success() {
        bail!(
            "assembling {} failed:\n{}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(obj)
}

/// Build the static library of a package for the 68k; returns its path.
pub fn cargo_build(
    name: &str,
    package: &str,
    features: &[&str],
    opt_level: &str,
    extra_rustflags: &[&str],
    opts: &Options,
) -> Result<PathBuf> {
    let target_dir = opts.build_dir.join(name);
    let mut cmd = nightly_cargo(opts);
    cmd.args([
        "rustc",
        "--quiet",
        "--release",
        "--lib",
        "-p",
        package,
        "--crate-type",
        "staticlib",
    ])
    .arg("--target")
    .arg(opts.root.join("m68k.json"))
    .args(["-Zjson-target-spec", "-Zbuild-std=core,alloc"])
    .env("CARGO_TARGET_DIR", &target_dir)
    .env("RUSTFLAGS", rustflags(opts, extra_rustflags))
    .env(
        "CARGO_PROFILE_RELEASE_OPT_LEVEL",
        std::env::var("FERRITE_M68K_OPT_LEVEL").unwrap_or_else(|_| opt_level.to_string()),
    )
    .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
    .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
    .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
    .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false");
    if !features.is_empty() {
        cmd.arg("--features").arg(features.join(","));
    }
    for (k, v) in &opts.crate_env {
        cmd.env(k, v);
    }
    // Ferrite Setup embeds the driver blob (setup/build.rs): the one this build just wrote
    // (ARTIFACTS builds the driver first), wherever --out-dir put it.
    let blob = opts.out_dir.join("ferrite-driver.bin");
    if blob.exists() {
        cmd.env("FERRITE_DRIVER_BIN", blob);
    }
    if opts.stackidx_rewrite {
        // This binary, in rustc-wrapper mode, compiles every m68k crate through the rewrite.
        let exe = match WRAPPER.get() {
            Some(p) => p.clone(),
            None => std::env::current_exe().context("cannot find the xtask binary")?,
        };
        if exe.file_stem().and_then(|s| s.to_str()) != Some("xtask") {
            bail!(
                "the stack-index rewrite needs the xtask binary as rustc wrapper, not {}",
                exe.display()
            );
        }
        cmd.env("RUSTC_WRAPPER", exe)
            .env(crate::stackidx::WRAPPER_ENV, opts.root.join("m68k.json"));
    }
    let status = cmd
        .status()
        .with_context(|| format!("could not run cargo +{NIGHTLY}"))?;
    if !status.success() {
        bail!("building {name} for the 68k failed ({status})");
    }
    let lib = target_dir
        .join("m68k/release")
        .join(format!("lib{}.a", package.replace('-', "_")));
    if !lib.is_file() {
        bail!("cargo finished but {} is missing", lib.display());
    }
    Ok(lib)
}

/// Link `lib` (and `extra` objects) with GNU ld.
pub fn link(a: &Artifact, lib: &Path, extra: &[PathBuf], opts: &Options) -> Result<PathBuf> {
    let elf = opts.build_dir.join(format!("{}.elf", a.name));
    let mut cmd = Command::new("m68k-linux-gnu-ld");
    cmd.args([
        "-q",
        "--gc-sections",
        "--no-warn-rwx-segments",
        "--build-id=none",
    ]);
    match a.kind {
        Kind::Flat { exports } | Kind::DriverBlob { exports } => {
            cmd.arg("-T")
                .arg(opts.root.join("retro68-build/link/flat.ld"));
            cmd.arg("-e").arg("0");
            for e in exports {
                cmd.arg(format!("--require-defined={e}"));
            }
        }
        Kind::Application { entry, .. } => {
            cmd.arg("-T")
                .arg(opts.root.join("retro68-build/link/flat.ld"));
            cmd.arg("-e").arg("0");
            cmd.arg(format!("--require-defined={entry}"));
        }
        Kind::LinuxElf => {
            cmd.arg("-T")
                .arg(opts.root.join("retro68-build/link/linux.ld"));
            cmd.arg("--require-defined=_start");
        }
    }
    if matches!(a.source, Source::Crate { .. }) {
        for sym in MUL32_SYMBOLS {
            cmd.arg(format!("--undefined={sym}"));
        }
    }
    cmd.arg("-o").arg(&elf).args(extra).arg(lib);
    let out = cmd.output().context("could not run m68k-linux-gnu-ld")?;
    if !out.status.success() {
        bail!(
            "linking {} failed:\n{}",
            a.name,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(elf)
}

/// Take a relaid image: new bytes, code length and relocations, symbols moved with the code.
fn adopt(linked: &mut Linked, relaid: m68k::Relaid) {
    for f in &mut linked.functions {
        f.addr = relaid.map(f.addr);
    }
    for s in &mut linked.symbols {
        s.1 = relaid.map(s.1);
    }
    linked.image = relaid.image;
    linked.code_len = relaid.code_len;
    linked.abs32 = relaid.abs32;
}

fn to_verifier_symbols(linked: &Linked) -> Vec<m68k::Symbol> {
    linked
        .functions
        .iter()
        .map(|f| m68k::Symbol {
            name: f.name.clone(),
            addr: f.addr,
            size: f.size,
        })
        .collect()
}

/// What [`code_passes`] did: legalizer report, flag hazards LLVM left, repair reports, and
/// the relayouts in order (to map addresses).
type PassResults = (
    m68k::LegalizeReport,
    usize,
    Option<(m68k::RepairReport, m68k::Repair68000Report)>,
    Vec<m68k::Relaid>,
);

/// The code passes on `linked`'s text: legalize, repair flag hazards, repair 68020-only
/// instructions.
fn code_passes(a: &Artifact, linked: &mut Linked, opts: &Options) -> Result<PassResults> {
    let mut maps = Vec::new();
    // Legalize the code for the 68000 in place.
    let code_len = linked.code_len as usize;
    let legalized = m68k::legalize(&mut linked.image[..code_len], linked.base, Cpu::M68000)
        .map_err(|e| anyhow::anyhow!("legalizing {}: {e}", a.name))?;
    // A far BRA/BSR became JMP/JSR absolute: its operand moves with the load address (flat
    // images) and with the relayout below (both kinds).
    linked
        .abs32
        .extend(legalized.new_abs32.iter().map(|&addr| addr - linked.base));
    linked.abs32.sort_unstable();

    // Repair the compare/copy/branch miscompiles (see `m68k::relayout`).
    let raw_hazards = m68k::hazards(
        &linked.image[..code_len],
        linked.base,
        &to_verifier_symbols(linked),
    )
    .len();
    let repair = if opts.repair_hazards {
        let (relaid, report) = m68k::repair_flag_hazards(
            linked.as_image(&to_verifier_symbols(linked)),
            REPAIR_MAX_GAP,
        )
        .map_err(|e| anyhow::anyhow!("repairing flag hazards in {}: {e}", a.name))?;
        maps.push(relaid.clone());
        adopt(linked, relaid);

        // Then the 68020-only multiplies and the privileged MOVE from SR.
        let helpers = match (
            linked.symbol(MUL32_SYMBOLS[0]),
            linked.symbol(MUL32_SYMBOLS[1]),
        ) {
            (Some(u), Some(s)) => Some((u, s)),
            _ => None,
        };
        let (relaid, report68) =
            m68k::repair_68000(linked.as_image(&to_verifier_symbols(linked)), helpers).map_err(
                |e| anyhow::anyhow!("repairing 68020-only instructions in {}: {e}", a.name),
            )?;
        maps.push(relaid.clone());
        adopt(linked, relaid);
        Some((report, report68))
    } else {
        None
    };
    Ok((legalized, raw_hazards, repair, maps))
}

/// The part of `linked` after the first `head_len` bytes, as an image of its own linked at
/// `head_len` (text, rodata, data; relocations and symbols rebased).
fn split_body(linked: &Linked, head_len: u32) -> Result<Linked> {
    if linked.base != 0 || head_len > linked.code_len || !head_len.is_multiple_of(2) {
        bail!("the driver head ({head_len} bytes) must be an even prefix of the text linked at 0");
    }
    let mut body = linked.clone();
    body.image = linked.image[head_len as usize..].to_vec();
    body.base = head_len;
    body.code_len = linked.code_len - head_len;
    body.abs32 = linked
        .abs32
        .iter()
        .filter(|&&o| o >= head_len)
        .map(|&o| o - head_len)
        .collect();
    body.functions.retain(|f| f.addr >= head_len);
    body.symbols.retain(|s| s.1 >= head_len);
    body.text_objects.retain(|o| o.0 >= head_len);
    if !body.text_objects.is_empty() {
        bail!(
            "data objects in the driver's text outside its head: {:x?}",
            body.text_objects
        );
    }
    Ok(body)
}

/// Put the processed body back behind the head; head words that point into the body (its
/// relocations) follow the body's relayouts.
fn merge_body(linked: &mut Linked, head_len: u32, body: Linked, maps: &[m68k::Relaid]) {
    let map = |mut v: u32| {
        for m in maps {
            v = m.map(v);
        }
        v
    };
    let mut image = linked.image[..head_len as usize].to_vec();
    let head_abs: Vec<u32> = linked
        .abs32
        .iter()
        .copied()
        .filter(|&o| o < head_len)
        .collect();
    for &o in &head_abs {
        let o = o as usize;
        let v = u32::from_be_bytes([image[o], image[o + 1], image[o + 2], image[o + 3]]);
        if v >= head_len {
            image[o..o + 4].copy_from_slice(&map(v).to_be_bytes());
        }
    }
    image.extend_from_slice(&body.image);
    linked.image = image;
    linked.code_len = head_len + body.code_len;
    linked.bss_len = body.bss_len;
    linked.abs32 = head_abs
        .into_iter()
        .chain(body.abs32.iter().map(|&o| o + head_len))
        .collect();
    linked.functions.retain(|f| f.addr < head_len);
    linked.functions.extend(body.functions);
    linked.symbols.retain(|s| s.1 < head_len);
    linked.symbols.extend(body.symbols);
}

/// Verify the hand-written head: every instruction outside its data objects.
fn verify_head(linked: &Linked, head_len: u32) -> Vec<m68k::Finding> {
    let symbols: Vec<m68k::Symbol> = linked
        .symbols
        .iter()
        .filter(|s| s.1 < head_len && !linked.text_objects.iter().any(|o| o.0 == s.1))
        .map(|(n, a)| m68k::Symbol {
            name: n.clone(),
            addr: *a,
            size: 0,
        })
        .collect();
    let report = m68k::verify(&linked.image[..head_len as usize], 0, Cpu::M68000, &symbols);
    report
        .findings
        .into_iter()
        .filter(|f| {
            !linked
                .text_objects
                .iter()
                .any(|&(s, e)| (s..e).contains(&f.addr))
        })
        .collect()
}

/// Build, link, legalize, flatten and verify one artifact.
pub fn build_artifact(a: &Artifact, opts: &Options) -> Result<Built> {
    let lib = compile(a, opts)?;
    let extra = extra_objects(a, opts)?;
    let elf_path = link(a, &lib, &extra, opts)?;
    let mut elf_bytes = std::fs::read(&elf_path)?;
    let mut linked =
        read_linked(&elf_bytes).with_context(|| format!("reading {}", elf_path.display()))?;

    // The driver's hand-written head (entries, settings, DRVR header: data among code) is
    // neither legalized nor relaid; the code passes run on the rest.
    let head_len = match a.kind {
        Kind::DriverBlob { .. } => linked
            .symbol("ferrite_head_end")
            .context("the driver has no `ferrite_head_end` (link/flat.ld defines it)")?,
        _ => 0,
    };
    // Every PC-relative relocation is one the relayout re-encodes, or the build stops.
    linked
        .check_pc_relative(head_len)
        .with_context(|| format!("linking {}", a.name))?;
    let (legalized, raw_hazards, repair, mut verify) = if head_len == 0 {
        let (legalized, raw_hazards, repair, _) = code_passes(a, &mut linked, opts)?;
        let code_len = linked.code_len as usize;
        let symbols = to_verifier_symbols(&linked);
        let code = &linked.image[..code_len];
        let mut verify = m68k::verify(code, linked.base, Cpu::M68000, &symbols);
        if matches!(a.kind, Kind::Application { .. }) {
            // The A5 world: no application instruction may write A5 (built with reserve-a5).
            verify
                .findings
                .extend(m68k::a5_writes(code, linked.base, &symbols));
            verify.findings.sort_by_key(|f| (f.addr, f.rule));
        }
        (legalized, raw_hazards, repair, verify)
    } else {
        let mut body = split_body(&linked, head_len)?;
        let (legalized, raw_hazards, repair, maps) = code_passes(a, &mut body, opts)?;
        let code_len = body.code_len as usize;
        let mut verify = m68k::verify(
            &body.image[..code_len],
            body.base,
            Cpu::M68000,
            &to_verifier_symbols(&body),
        );
        merge_body(&mut linked, head_len, body, &maps);
        verify.findings.extend(verify_head(&linked, head_len));
        verify.findings.sort_by_key(|f| f.addr);
        (legalized, raw_hazards, repair, verify)
    };
    // Functions whose spills LLVM merged out of register order (`crate::movem`), as the crate
    // builds listed them, if this artifact links them.
    for (addr, name, why) in
        crate::movem::linked_findings(&opts.build_dir.join(a.name), &linked.symbols)
            .with_context(|| format!("reading the MOVEM lists of {}", a.name))?
    {
        verify.findings.push(m68k::verify::Finding {
            addr,
            text: name,
            rule: m68k::verify::Rule::MovemOrder,
            message: why,
            location: None,
        });
    }
    if opts.strict && !a.shipped && !verify.findings.is_empty() {
        // Test artifacts exist to expose the compiler: report, and let the emulators show
        // which findings change results. Shipped artifacts must be clean (below).
        eprintln!(
            "xtask: warning: {} (test artifact) has {} verifier findings: {}",
            a.name,
            verify.findings.len(),
            verify.summary()
        );
    }
    if opts.strict && a.shipped && !verify.findings.is_empty() {
        let mut msg = format!(
            "{}: the verifier rejected the code ({} findings):\n",
            a.name,
            verify.findings.len()
        );
        for f in verify.findings.iter().take(40) {
            let _ = writeln!(msg, "  {f}");
        }
        bail!(msg);
    }

    let out_dir = if a.shipped {
        opts.out_dir.clone()
    } else {
        opts.out_dir.join("test")
    };
    std::fs::create_dir_all(&out_dir)?;
    let (path, file_len, relocs, reloc_table_len) = match a.kind {
        Kind::Flat { exports } => {
            let flat = linked.to_flat(exports, 68000)?;
            let bytes = flat.to_bytes();
            let path = out_dir.join(format!("{}.flat", a.name));
            std::fs::write(&path, &bytes)?;
            (
                path,
                bytes.len() as u64,
                linked.abs32.len() as u32,
                flat.relocs.len() as u32,
            )
        }
        Kind::DriverBlob { exports } => {
            stamp_code_len(&mut linked)?;
            let flat = linked.to_flat(exports, 68000)?;
            let bytes = flat.to_bytes();
            std::fs::write(out_dir.join(format!("{}.flat", a.name)), &bytes)?;
            let blob = driver_blob(&flat).with_context(|| format!("making the {} blob", a.name))?;
            let path = out_dir.join(format!("{}.bin", a.name));
            std::fs::write(&path, &blob)?;
            // The final addresses of its symbols (after relayout), for driver coverage.
            std::fs::write(
                opts.build_dir.join(format!("{}.syms", a.name)),
                crate::coverage::symbol_map(&linked),
            )?;
            (
                path,
                blob.len() as u64,
                linked.abs32.len() as u32,
                flat.relocs.len() as u32,
            )
        }
        Kind::Application {
            entry,
            resources,
            file_name,
            file_stem,
            creator,
        } => {
            let flat = linked.to_flat(&[entry], 68000)?;
            let bytes = flat.to_bytes();
            std::fs::write(out_dir.join(format!("{}.flat", a.name)), &bytes)?;
            let src_path = opts.root.join(resources);
            let src = std::fs::read_to_string(&src_path)
                .with_context(|| format!("reading {}", src_path.display()))?;
            let res = crate::rsrc::compile(&src)
                .map_err(|e| anyhow::anyhow!("{}: {e}", src_path.display()))?;
            let fork = crate::rsrc::app::application_fork(&flat, entry, &res)?;
            std::fs::write(out_dir.join(format!("{}.rsrc", a.name)), fork.to_bytes()?)?;
            // Fixed dates keep the file reproducible: 2026-01-01 00:00 (Mac epoch 1904).
            let file = crate::rsrc::app::AppFile {
                name: file_name.as_bytes().to_vec(),
                creator,
                created: APP_DATE,
                modified: APP_DATE,
            };
            let mb = crate::rsrc::app::macbinary(&file, &fork)?;
            let path = out_dir.join(format!("{file_stem}.bin"));
            std::fs::write(&path, &mb)?;
            (
                path,
                mb.len() as u64,
                linked.abs32.len() as u32,
                flat.relocs.len() as u32,
            )
        }
        Kind::LinuxElf => {
            let elf_bytes = if repair
                .as_ref()
                .is_some_and(|(r, r68)| r.growth > 0 || r68.growth > 0)
            {
                let entry = linked.symbol("_start").context("no _start")?;
                crate::elf::write_exec(
                    &linked.image,
                    linked.base,
                    linked.code_len,
                    linked.bss_len,
                    entry,
                )
            } else {
                let off = linked.text_file_offset as usize;
                let code_len = linked.code_len as usize;
                elf_bytes[off..off + code_len].copy_from_slice(&linked.image[..code_len]);
                elf_bytes
            };
            let path = out_dir.join(format!("{}.elf", a.name));
            std::fs::write(&path, &elf_bytes)?;
            // qemu-m68k (like the kernel) only runs files with execute permission.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
            (path, elf_bytes.len() as u64, 0, 0)
        }
    };
    if opts.strict && a.shipped {
        // What ships, read back as shipped: `cargo xtask verify` must pass on every file.
        for (name, app) in crate::shipped::shipped_files(a) {
            let file = out_dir.join(&name);
            let data = std::fs::read(&file)?;
            let r = crate::shipped::verify_bytes(&data, Cpu::M68000, app)
                .with_context(|| format!("verifying {} as shipped", file.display()))?;
            if r.finding_count() > 0 {
                let mut msg = format!("{name}: the verifier rejected the shipped file:\n");
                for (part, f) in r.findings().take(40) {
                    let _ = writeln!(msg, "  {part}: {f}");
                }
                bail!(msg);
            }
        }
    }
    Ok(Built {
        artifact: *a,
        path,
        code_len: linked.code_len,
        data_len: linked.image.len() as u32 - linked.code_len,
        bss_len: linked.bss_len,
        relocs,
        reloc_table_len,
        file_len,
        legalized,
        raw_hazards,
        repair,
        verify,
    })
}

/// Write the code length (head and text) into the driver head's field
/// (`ferrite_shared::driver_blob::CODE_LEN_OFFSET`), which must be 0 until then.
fn stamp_code_len(linked: &mut Linked) -> Result<()> {
    use ferrite_shared::driver_blob::CODE_LEN_OFFSET;
    let field = linked
        .image
        .get_mut(CODE_LEN_OFFSET..CODE_LEN_OFFSET + 4)
        .context("the driver image is too short for its head")?;
    if field != [0; 4] {
        bail!("the code-length field of the driver head is not 0 before the build writes it");
    }
    field.copy_from_slice(&linked.code_len.to_be_bytes());
    Ok(())
}

/// The driver's boot blob: the image (its bss must be empty: the driver keeps its state in a
/// heap block) followed by the relocation table, whose offset goes into the blob head.
pub fn driver_blob(flat: &ferrite_shared::flat::FlatImage) -> Result<Vec<u8>> {
    use ferrite_shared::driver_blob::{MAGIC, MAGIC_OFFSET, RELOC_OFFSET_FIELD};
    if flat.bss_len != 0 {
        bail!(
            "the driver has {} bytes of zero-initialised statics; the ROM loads only the blob, so \
             keep state in the globals block instead",
            flat.bss_len
        );
    }
    let mut blob = flat.image.clone();
    if blob.get(MAGIC_OFFSET..MAGIC_OFFSET + 4) != Some(&MAGIC[..]) {
        bail!("the image does not start with the driver head (entry.S must be linked first)");
    }
    if blob[RELOC_OFFSET_FIELD..RELOC_OFFSET_FIELD + 4] != [0; 4] {
        bail!("the relocation-offset field is not 0 before the build writes it");
    }
    let at = blob.len() as u32;
    blob[RELOC_OFFSET_FIELD..RELOC_OFFSET_FIELD + 4].copy_from_slice(&at.to_be_bytes());
    blob.extend_from_slice(&flat.relocs);
    if blob.len() > DRIVER_BLOB_MAX {
        bail!(
            "the driver blob is {} bytes, more than the {DRIVER_BLOB_MAX} bytes a Ferrite driver partition holds",
            blob.len()
        );
    }
    Ok(blob)
}

/// A size table for the console and for `docs/`.
pub fn size_table(built: &[Built]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| artifact | kind | code | data | bss | relocations (table bytes) | legalized branches | flag hazards repaired / left by LLVM | mul.l, move sr repaired | instructions verified | findings | file |"
    );
    let _ = writeln!(
        s,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
    );
    for b in built {
        let kind = match b.artifact.kind {
            Kind::Flat { .. } => "flat",
            Kind::LinuxElf => "linux elf",
            Kind::DriverBlob { .. } => "driver blob",
            Kind::Application { .. } => "application",
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} ({}) | {} | {} / {} | {}, {} | {} | {} | {} |",
            b.path.file_name().and_then(|n| n.to_str()).unwrap_or("?"),
            kind,
            b.code_len,
            b.data_len,
            b.bss_len,
            b.relocs,
            b.reloc_table_len,
            b.legalized.rewritten(),
            b.repair.as_ref().map_or(0, |(r, _)| r.repaired.len()),
            b.raw_hazards,
            b.repair.as_ref().map_or(0, |(_, r)| r.mul_repaired.len()),
            b.repair.as_ref().map_or(0, |(_, r)| r.sr_repaired.len()),
            b.verify.instructions,
            b.verify.summary(),
            b.file_len
        );
    }
    s
}
