//! Prerequisites: the pinned nightly toolchain and the Debian packages the m68k pipeline and
//! the emulator suites need. `cargo xtask` installs what is missing (rustup for the
//! toolchain; `apt-get` when running as root) and otherwise prints the exact command to run.

use anyhow::{Context, Result, bail};
use std::process::Command;

/// The nightly that builds m68k code (stable 1.95 crashes building `compiler_builtins`).
pub const NIGHTLY: &str = "nightly-2026-10-01";

/// A Debian package and the command by which we recognise it is installed.
#[derive(Debug, Clone, Copy)]
pub struct Package {
    pub command: &'static str,
    pub package: &'static str,
    pub why: &'static str,
}

/// What the foundation needs from Debian.
pub const PACKAGES: &[Package] = &[
    Package {
        command: "m68k-linux-gnu-ld",
        package: "binutils-m68k-linux-gnu",
        why: "links m68k code (GNU ld -q)",
    },
    Package {
        command: "m68k-linux-gnu-objdump",
        package: "binutils-m68k-linux-gnu",
        why: "second opinion on instruction decoding in tests",
    },
    Package {
        command: "m68k-linux-gnu-as",
        package: "binutils-m68k-linux-gnu",
        why: "assembles the relocation stub and decoder test corpora",
    },
    Package {
        command: "qemu-m68k",
        package: "qemu-user",
        why: "second, independent 68k core for the codegen suite",
    },
    Package {
        command: "parted",
        package: "parted",
        why: "is the formatter tests' oracle for the Apple partition map",
    },
    Package {
        command: "hformat",
        package: "hfsutils",
        why: "makes HFS volumes the formatter tests read (oracle)",
    },
    Package {
        command: "hmount",
        package: "hfsutils",
        why: "mounts the formatter's HFS volumes in the oracle tests",
    },
    Package {
        command: "hcopy",
        package: "hfsutils",
        why: "extracts files from the formatter's HFS volumes in the oracle tests",
    },
    Package {
        command: "qemu-system-m68k",
        package: "qemu-system-misc",
        why: "runs QEMU's Quadra 800 (q800) in the `ferrite qemu` tests (a stand-in ROM, paused)",
    },
    Package {
        command: "macunpack",
        package: "macutils",
        why: "unpacks the packaged application's MacBinary file in the oracle tests",
    },
];

/// A Python module (from PyPI) and the package that provides it.
#[derive(Debug, Clone, Copy)]
pub struct PythonModule {
    pub module: &'static str,
    pub package: &'static str,
    pub why: &'static str,
}

/// What the tests need from PyPI.
pub const PYTHON_MODULES: &[PythonModule] = &[
    PythonModule {
        module: "machfs",
        package: "machfs",
        why: "is the formatter tests' second, independent HFS reader",
    },
    PythonModule {
        module: "rsrcfork",
        package: "rsrcfork",
        why: "is the resource compiler tests' independent resource-fork reader",
    },
];

fn have_python_module(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Make sure every Python module in `wanted` imports, installing missing ones with
/// `python3 -m pip install` (retrying with `--break-system-packages` where pip refuses to
/// touch a distribution-managed Python).
pub fn ensure_python_modules(wanted: &[PythonModule]) -> Result<()> {
    let missing: Vec<&PythonModule> = wanted
        .iter()
        .filter(|m| !have_python_module(m.module))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !have_command("python3") {
        bail!("python3 is missing: run `sudo apt-get install -y python3 python3-pip`, then retry");
    }
    let names: Vec<&str> = missing.iter().map(|m| m.package).collect();
    for m in &missing {
        eprintln!(
            "xtask: missing Python module `{}` (PyPI package {}), which {}",
            m.module, m.package, m.why
        );
    }
    let pip = |extra: &[&str]| {
        run(Command::new("python3")
            .args(["-m", "pip", "install", "--quiet"])
            .args(extra)
            .args(&names))
    };
    if pip(&[]).is_err() {
        pip(&["--break-system-packages"]).with_context(|| {
            format!(
                "installing {} failed; run `python3 -m pip install {}` by hand",
                names.join(" "),
                names.join(" ")
            )
        })?;
    }
    let still: Vec<&str> = wanted
        .iter()
        .filter(|m| !have_python_module(m.module))
        .map(|m| m.module)
        .collect();
    if !still.is_empty() {
        bail!(
            "after pip install these Python modules still do not import: {}",
            still.join(", ")
        );
    }
    Ok(())
}

/// True if `cmd` is found on PATH.
pub fn have_command(cmd: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(cmd).is_file()))
        .unwrap_or(false)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("xtask: running {cmd:?}");
    let status = cmd
        .status()
        .with_context(|| format!("could not start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

/// Make sure the pinned nightly with `rust-src` is installed.
pub fn ensure_nightly() -> Result<()> {
    if !have_command("rustup") {
        bail!(
            "rustup is not installed: the m68k build needs `rustup toolchain install {NIGHTLY} \
             --profile minimal --component rust-src`; install rustup first (https://rustup.rs)"
        );
    }
    let installed = Command::new("rustup")
        .args(["component", "list", "--installed", "--toolchain", NIGHTLY])
        .output()
        .context("could not run rustup")?;
    let listing = String::from_utf8_lossy(&installed.stdout);
    let ok = installed.status.success() && listing.lines().any(|l| l.starts_with("rust-src"));
    if !ok {
        eprintln!("xtask: toolchain {NIGHTLY} with rust-src is missing; installing it");
        run(Command::new("rustup").args([
            "toolchain",
            "install",
            NIGHTLY,
            "--profile",
            "minimal",
            "--component",
            "rust-src",
        ]))
        .with_context(|| {
            format!(
                "installing {NIGHTLY} failed; run `rustup toolchain install {NIGHTLY} \
                 --profile minimal --component rust-src` by hand and look at its error"
            )
        })?;
    }
    // `llc` and `llvm-dis` of the same LLVM, for the stack-index rewrite (`stackidx`).
    let installed = Command::new("rustup")
        .args(["component", "list", "--installed", "--toolchain", NIGHTLY])
        .output()
        .context("could not run rustup")?;
    if !String::from_utf8_lossy(&installed.stdout)
        .lines()
        .any(|l| l.starts_with("llvm-tools"))
    {
        eprintln!("xtask: llvm-tools of {NIGHTLY} is missing; installing it");
        run(Command::new("rustup").args([
            "component",
            "add",
            "llvm-tools",
            "--toolchain",
            NIGHTLY,
        ]))
        .with_context(|| {
            format!("run `rustup component add llvm-tools --toolchain {NIGHTLY}` by hand")
        })?;
    }
    Ok(())
}

/// Make sure every Debian package in `wanted` is installed: with apt-get as root, otherwise
/// stop with one line per missing package and the exact command to run.
pub fn ensure_packages(wanted: &[Package]) -> Result<()> {
    let missing: Vec<&Package> = wanted.iter().filter(|p| !have_command(p.command)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut names: Vec<&str> = missing.iter().map(|p| p.package).collect();
    names.sort_unstable();
    names.dedup();
    let command = format!("apt-get install -y {}", names.join(" "));
    for p in &missing {
        eprintln!(
            "xtask: missing `{}` (Debian package {}), which {}",
            p.command, p.package, p.why
        );
    }
    if !is_root() {
        bail!("missing prerequisites: run `sudo apt-get update && sudo {command}`, then retry");
    }
    run(Command::new("apt-get")
        .arg("update")
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "--no-install-recommends"])
        .args(&names)
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    let still: Vec<&str> = wanted
        .iter()
        .filter(|p| !have_command(p.command))
        .map(|p| p.command)
        .collect();
    if !still.is_empty() {
        bail!(
            "after `{command}` these commands are still missing: {}",
            still.join(", ")
        );
    }
    Ok(())
}

/// Everything `build`, `test` and `demo` need.
pub fn ensure_all() -> Result<()> {
    ensure_packages(PACKAGES)?;
    ensure_python_modules(PYTHON_MODULES)?;
    ensure_lint_tools()?;
    ensure_cargo_mutants()?;
    ensure_nightly()
}

/// The version of `cargo-mutants` whose mutant list `cargo xtask mutants` (and the sample in
/// `cargo xtask test`) reads.
const CARGO_MUTANTS_VERSION: &str = "27.1.0";

/// `cargo mutants` (the source of the driver's Rust mutants, `mutants.rs`), installed with
/// `cargo install --locked` when missing.
fn ensure_cargo_mutants() -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let works = Command::new(&cargo)
        .args(["mutants", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        return Ok(());
    }
    eprintln!("xtask: cargo-mutants is missing; installing it (cargo install --locked)");
    let st = Command::new(&cargo)
        .args([
            "install",
            "--locked",
            "cargo-mutants",
            "--version",
            CARGO_MUTANTS_VERSION,
        ])
        .status()
        .context("could not run cargo install")?;
    if !st.success() {
        bail!(
            "`cargo install --locked cargo-mutants --version {CARGO_MUTANTS_VERSION}` failed ({st})"
        );
    }
    Ok(())
}

/// `rustfmt` and `clippy` of the host toolchain (the test's formatting and lint gates).
fn ensure_lint_tools() -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let works = |sub: &str| {
        Command::new(&cargo)
            .args([sub, "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if works("fmt") && works("clippy") {
        return Ok(());
    }
    eprintln!("xtask: rustfmt or clippy is missing; installing them with rustup");
    let st = Command::new("rustup")
        .args(["component", "add", "rustfmt", "clippy"])
        .status()
        .context("could not run rustup (install rustfmt and clippy for your toolchain)")?;
    if !st.success() {
        bail!("`rustup component add rustfmt clippy` failed ({st})");
    }
    Ok(())
}
