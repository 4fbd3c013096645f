//! Work-around for the M68k backend's stack-index miscompile.
//!
//! LLVM's M68k instruction selector drops the index of an address of the form
//! `FrameIndex + register`: `SelectARID` (`M68kISelDAGToDAG.cpp`) matches the frame index as
//! the base, `matchAddressBase` parks the index register in the addressing mode, and because
//! `hasIndexReg()` is false for a frame-index base, `SelectARID` accepts the address as
//! `(disp, FI)` and the index is never used. `tmp[i] = v` on a local array becomes
//! `move.b v,(0,%sp)`.
//!
//! No LLVM option avoids it (see `docs/codegen-conformance.md`), so every m68k crate is compiled
//! in two steps: rustc optimizes and writes the LLVM bitcode of each codegen unit, this module
//! rewrites it so that no stack address with a variable offset reaches instruction selection,
//! and `llc` (rustup's `llvm-tools`, the same LLVM) produces the object that goes into the
//! rlib or static library in place of rustc's.
//!
//! The rewrite: within each function, the pointers derived from an `alloca` by constant-index
//! `getelementptr`s form the set of *stack addresses*. Where a stack address is the base of a
//! `getelementptr` with a non-constant index, or an operand of a pointer `select` or of a
//! `ptrtoint` (from which the selection DAG could rebuild `FrameIndex + register`), it is first
//! passed through an empty inline assembly statement (`"=a,0"`): the instruction selector sees
//! an address register, not a frame index, and selects `(d8,An,Xn)` with the index intact.

use anyhow::{Context, Result, bail};
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable that puts the `xtask` binary in rustc-wrapper mode; its value is the
/// path of the m68k target spec whose builds are rewritten.
pub const WRAPPER_ENV: &str = "FERRITE_STACKIDX_TARGET";

/// Extra `llc` options that reproduce what rustc's target machine gets from `m68k.json` and
/// its own defaults (the CPU and the function attributes come with the bitcode).
pub const LLC_ARGS: &[&str] = &[
    "-mcpu=M68000",
    "-relocation-model=static",
    "-code-model=medium",
    "--function-sections",
    "--data-sections",
    "-trap-unreachable",
    "--no-trap-after-noreturn",
];

/// What [`launder_ir`] changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LaunderStats {
    pub functions: usize,
    pub allocas: usize,
    /// Variable-index `getelementptr`s on a stack address.
    pub geps: usize,
    /// Stack addresses in pointer `select`s and `ptrtoint`s.
    pub others: usize,
    /// `sret` parameters of `fastcc` functions and calls marked `inreg` (see [`sret_inreg`]).
    pub srets: usize,
    /// 8- and 16-bit `llvm.{u,s}mul.with.overflow` calls widened to `i32` (see [`widen_mulo`]).
    pub mulos: usize,
    /// Selects and min/max calls with an all-ones constant rewritten as masked merges
    /// (`crate::allones`).
    pub allones: usize,
    /// One-bit tests of a value shifted by a constant passed through an opaque value
    /// (`crate::bittest`).
    pub bittests: usize,
    /// Extensions into address registers patched in the objects (`crate::anext`).
    pub anext: usize,
    /// Spill MOVEMs merged out of register order, whose codegen unit was compiled again with
    /// [`crate::movem::FALLBACK_LLC_ARGS`].
    pub movem: usize,
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_')
}

/// The local name (`%x` or `%"x y"`) at the start of `s`, if any.
fn local_at(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    if b.first() != Some(&b'%') {
        return None;
    }
    if b.get(1) == Some(&b'"') {
        let end = s[2..].find('"')? + 2;
        return Some(&s[..=end]);
    }
    let n = b[1..].iter().take_while(|&&c| is_name_char(c)).count();
    (n > 0).then(|| &s[..1 + n])
}

/// Split `s` at top-level commas (outside (), [], {}, <> and quotes); each piece with its byte
/// offset in `s`, trimmed.
fn split_top(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut start = 0;
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'"' => quoted = !quoted,
            _ if quoted => {}
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                out.push((start, &s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, &s[start..]));
    out.into_iter()
        .map(|(o, p)| {
            let lead = p.len() - p.trim_start().len();
            (o + lead, p.trim())
        })
        .collect()
}

/// One instruction of interest: where its pointer operands are (byte ranges in the line).
#[derive(Debug)]
enum Inst<'a> {
    Alloca,
    /// `getelementptr`: the base operand's range and name, and whether every index is constant.
    Gep {
        base: (usize, &'a str),
        constant: bool,
    },
    /// `select` or `ptrtoint`: its `ptr` operands.
    PtrUse(Vec<(usize, &'a str)>),
}

/// Parse the right-hand side of `%x = ...` (at byte `off` of the line).
fn parse_rhs(rhs: &str, off: usize) -> Option<Inst<'_>> {
    let word_end = rhs.find(' ').unwrap_or(rhs.len());
    let (op, mut rest) = (&rhs[..word_end], rhs[word_end..].trim_start());
    let mut pos = off + (rhs.len() - rest.len());
    match op {
        "alloca" => Some(Inst::Alloca),
        "getelementptr" => {
            loop {
                let w = rest.split(' ').next().unwrap_or("");
                let skip = if matches!(w, "inbounds" | "nuw" | "nusw") {
                    w.len()
                } else if w.starts_with("inrange(") {
                    rest.find(')')? + 1
                } else {
                    break;
                };
                let r2 = rest[skip..].trim_start();
                pos += rest.len() - r2.len();
                rest = r2;
            }
            let parts = split_top(rest);
            // parts[0]: source element type; parts[1]: `ptr %base`; then the indices.
            let (boff, bpart) = *parts.get(1)?;
            let v = bpart.strip_prefix("ptr ")?;
            let name = local_at(v)?;
            let base = (pos + boff + 4, name);
            let mut constant = true;
            for &(_, idx) in &parts[2..] {
                if idx.starts_with('!') {
                    break;
                }
                let val = idx.rsplit(' ').next().unwrap_or("");
                if val.starts_with('%') {
                    constant = false;
                }
            }
            Some(Inst::Gep { base, constant })
        }
        "select" | "ptrtoint" => {
            let mut ptrs = Vec::new();
            for (o, p) in split_top(rest) {
                if let Some(v) = p.strip_prefix("ptr ")
                    && let Some(name) = local_at(v)
                {
                    ptrs.push((pos + o + 4, name));
                }
            }
            Some(Inst::PtrUse(ptrs))
        }
        _ => None,
    }
}

/// Rewrite LLVM IR text (as printed by `llvm-dis`) so that no variable offset from a stack
/// slot reaches the M68k instruction selector as `FrameIndex + register` (module docs).
pub fn launder_ir(ll: &str) -> Result<(String, LaunderStats)> {
    let mut stats = LaunderStats::default();
    // 128-bit shifts by a variable amount (`crate::wideshift`).
    let (ll_wide, _) = crate::wideshift::split_i128_shifts(ll)?;
    // Stores of extended loads, selected as too-wide memory-to-memory moves (`crate::extstore`).
    let (ll_wide, _) = crate::extstore::freeze_ext_stores(&ll_wide)?;
    // All-ones select arms, lowered as a compare and a SUBX that reads X (`crate::allones`).
    let (ll_wide, allones) = crate::allones::hide_all_ones_arms(&ll_wide)?;
    stats.allones = allones;
    // One-bit tests of a value shifted by a constant, selected as `btst #REG` (`crate::bittest`).
    let (ll_wide, bittests) = crate::bittest::hide_shifted_bit_tests(&ll_wide)?;
    stats.bittests = bittests;
    let (ll_mulo, mulos) = widen_mulo(&ll_wide)?;
    stats.mulos = mulos;
    let (ll_sret, srets) = sret_inreg(&ll_mulo);
    stats.srets = srets;
    let ll = ll_sret.as_str();
    let lines: Vec<&str> = ll.lines().collect();
    let mut out = String::with_capacity(ll.len() + ll.len() / 16);
    let mut fresh = 0usize;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        out.push_str(line);
        out.push('\n');
        i += 1;
        if !(line.starts_with("define ") && line.trim_end().ends_with('{')) {
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i] != "}" {
            i += 1;
        }
        if i == lines.len() {
            bail!("function without a closing brace: {line}");
        }
        stats.functions += 1;
        let body = &lines[start..i];

        // Parse the definitions we care about.
        let mut insts: Vec<Option<Inst>> = Vec::with_capacity(body.len());
        for l in body {
            let t = l.trim_start();
            let lead = l.len() - t.len();
            let parsed = local_at(t).and_then(|name| {
                let after = &t[name.len()..];
                let rhs = after.strip_prefix(" = ")?;
                let off = lead + name.len() + 3;
                parse_rhs(rhs, off).map(|inst| (name, inst))
            });
            insts.push(parsed.map(|(_, inst)| inst));
        }
        // Names of the stack addresses: allocas and constant GEPs of them, to a fixed point
        // (textual order need not follow dominance).
        let defs: Vec<Option<&str>> = body
            .iter()
            .map(|l| {
                let t = l.trim_start();
                local_at(t).filter(|n| t[n.len()..].starts_with(" = "))
            })
            .collect();
        let mut stack: HashSet<&str> = HashSet::new();
        for (k, inst) in insts.iter().enumerate() {
            if let Some(Inst::Alloca) = inst {
                stack.insert(defs[k].expect("alloca has a name"));
                stats.allocas += 1;
            }
        }
        if stack.is_empty() {
            for l in body {
                out.push_str(l);
                out.push('\n');
            }
            continue;
        }
        let const_geps: HashMap<&str, &str> = insts
            .iter()
            .enumerate()
            .filter_map(|(k, inst)| match inst {
                Some(Inst::Gep {
                    base,
                    constant: true,
                }) => Some((defs[k]?, base.1)),
                _ => None,
            })
            .collect();
        loop {
            let before = stack.len();
            for (&d, &b) in &const_geps {
                if stack.contains(b) {
                    stack.insert(d);
                }
            }
            if stack.len() == before {
                break;
            }
        }

        // Emit the body, laundering stack operands of the instructions that need it.
        for (k, l) in body.iter().enumerate() {
            let operands: Vec<(usize, &str)> = match &insts[k] {
                Some(Inst::Gep {
                    base,
                    constant: false,
                }) if stack.contains(base.1) => {
                    stats.geps += 1;
                    vec![*base]
                }
                Some(Inst::PtrUse(ptrs)) => {
                    let v: Vec<(usize, &str)> = ptrs
                        .iter()
                        .copied()
                        .filter(|p| stack.contains(p.1))
                        .collect();
                    stats.others += v.len();
                    v
                }
                _ => Vec::new(),
            };
            if operands.is_empty() {
                out.push_str(l);
                out.push('\n');
                continue;
            }
            let mut rewritten = String::with_capacity(l.len() + 16);
            let mut last = 0;
            for (at, name) in operands {
                if &l[at..at + name.len()] != name {
                    bail!("internal error: operand {name} not at {at} in `{l}`");
                }
                let fresh_name = loop {
                    fresh += 1;
                    let n = format!("%__ferrite_sp{fresh}");
                    if !ll.contains(&n) {
                        break n;
                    }
                };
                out.push_str(&format!(
                    "  {fresh_name} = call ptr asm \"\", \"=a,0\"(ptr {name})\n"
                ));
                rewritten.push_str(&l[last..at]);
                rewritten.push_str(&fresh_name);
                last = at + name.len();
            }
            rewritten.push_str(&l[last..]);
            out.push_str(&rewritten);
            out.push('\n');
        }
    }
    Ok((out, stats))
}

/// Second work-around, for the M68k backend's `sret` miscompile: mark the `sret` parameter of
/// every `fastcc` function (definitions and call sites alike) `inreg`.
///
/// `M68kISelLowering.cpp` treats a first parameter with `sret` and without `inreg` as a
/// *stack* struct return (`callIsStructReturn`, `argsAreStructReturn`): the callee pops 4 bytes
/// on return (`setBytesToPopOnReturn(4)`) and the caller re-reserves them after the call
/// (`NumBytesForCalleeToPop = 4`). That is the i386 convention, where the hidden pointer is on
/// the stack. But `CC_M68k_Fast` (`M68kCallingConv.td`) passes the pointer in a register
/// (`%a0`), so nothing was pushed: the callee's `move.l (%sp),%a1 ; adda.l #4,%sp ;
/// move.l %a1,(%sp) ; rts` writes its return address over the caller's 4 bytes at `(0,%sp)`.
/// LLVM's optimizer makes internal Rust functions `fastcc`, so a caller with a live value there
/// (an array returned by value, a spill) is corrupted. With `inreg` the return is a register
/// struct return: no pop, no re-reserve, and `CC_M68k_Fast` ignores `inreg`, so the pointer
/// stays in `%a0`. (`CC_M68k_C` would pass an `inreg` pointer in `%d0`, so C-convention
/// functions, whose pointer really is pushed and popped consistently, are left alone.)
pub fn sret_inreg(ll: &str) -> (String, usize) {
    let mut out = String::with_capacity(ll.len() + 64);
    let mut n = 0;
    for line in ll.lines() {
        let t = line.trim_start();
        let decl =
            (t.starts_with("define ") || t.starts_with("declare ")) && line.contains(" fastcc ");
        let call = line.contains("call fastcc ") || line.contains("invoke fastcc ");
        if !(line.contains(" sret(") && (decl || call)) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find(" sret(") {
            out.push_str(&rest[..at]);
            if !rest[..at].ends_with(" inreg") {
                out.push_str(" inreg");
                n += 1;
            }
            out.push_str(" sret(");
            rest = &rest[at + " sret(".len()..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    (out, n)
}

/// Third work-around, for the M68k backend's 8/16-bit overflow-checked multiply: every
/// `%r = [tail] call { iN, i1 } @llvm.umul.with.overflow.iN(iN %a, iN %b)` with N = 8 or 16
/// (and the `smul` form) becomes an `i32` multiply of the zero- (`umul`) or sign-extended
/// (`smul`) operands, whose low N bits are the value and whose overflow bit is "the product
/// does not survive a round trip through iN"; `%r` is rebuilt with two `insertvalue`s, so its
/// uses are unchanged.
///
/// The backend lowers `ISD::UMULO`/`SMULO` of `i8`/`i16` with a 16×16→32 `mulu.w`/`muls.w` and
/// takes the overflow bit from V, which those instructions always clear: the overflow bit is
/// constant false (`a.overflowing_mul(b).1` for `u8` is `moveq #0,%d0`). The `i32` forms are
/// right and are left alone. Both operands fit in 16 bits, so the `i32` product cannot itself
/// overflow (it becomes `mulu.w`/`muls.w` or a `__mulsi3` call).
///
/// Operands may carry attributes (`i16 range(i16 0, 256) %x`, which rustc writes once the
/// operand's range is known). Fails closed: any other use of these intrinsics (an `invoke`, a
/// shape not parsed) is an error, not code left to the backend.
pub fn widen_mulo(ll: &str) -> Result<(String, usize)> {
    const PREFIX: &str = "%__ferrite_mulo";
    let mut out = String::with_capacity(ll.len() + 64);
    let mut n = 0usize;
    let mut fresh = 0usize;
    for line in ll.lines() {
        let Some(m) = parse_mulo_call(line) else {
            if uses_narrow_mulo(line) {
                bail!(
                    "an 8- or 16-bit multiply with overflow in a shape the rewrite does not \
                     know (LLVM M68k would compile its overflow bit to a constant false): {}",
                    line.trim()
                );
            }
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let ext = if m.signed { "sext" } else { "zext" };
        let ty = m.ty;
        // Fresh names: a unique prefix and a counter, skipping any name the module already has.
        let base = loop {
            fresh += 1;
            let b = format!("{PREFIX}{fresh}");
            if !ll.contains(&format!("{b}.")) {
                break b;
            }
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        let (a, b) = (m.a, m.b);
        let r = m.result;
        out.push_str(&format!("{indent}{base}.a = {ext} {ty} {a} to i32\n"));
        out.push_str(&format!("{indent}{base}.b = {ext} {ty} {b} to i32\n"));
        out.push_str(&format!("{indent}{base}.p = mul i32 {base}.a, {base}.b\n"));
        out.push_str(&format!("{indent}{base}.v = trunc i32 {base}.p to {ty}\n"));
        out.push_str(&format!("{indent}{base}.w = {ext} {ty} {base}.v to i32\n"));
        out.push_str(&format!(
            "{indent}{base}.o = icmp ne i32 {base}.w, {base}.p\n"
        ));
        out.push_str(&format!(
            "{indent}{base}.s = insertvalue {{ {ty}, i1 }} poison, {ty} {base}.v, 0\n"
        ));
        out.push_str(&format!(
            "{indent}{r} = insertvalue {{ {ty}, i1 }} {base}.s, i1 {base}.o, 1\n"
        ));
        n += 1;
    }
    Ok((out, n))
}

/// Whether `line` uses `llvm.{u,s}mul.with.overflow.i8`/`.i16` other than in a declaration:
/// LLVM M68k lowers them with an overflow bit that is always false (`widen_mulo`).
pub fn uses_narrow_mulo(line: &str) -> bool {
    let t = line.trim_start();
    !t.starts_with("declare ")
        && ["umul", "smul"].iter().any(|op| {
            ["i8", "i16"]
                .iter()
                .any(|ty| t.contains(&format!("@llvm.{op}.with.overflow.{ty}(")))
        })
}

/// The lines of `ll` that still use an 8- or 16-bit multiply with overflow ([`uses_narrow_mulo`]):
/// none after [`widen_mulo`], or it fails.
pub fn narrow_mulo_uses(ll: &str) -> Vec<&str> {
    ll.lines().filter(|l| uses_narrow_mulo(l)).collect()
}

struct MuloCall<'a> {
    result: &'a str,
    signed: bool,
    ty: &'a str,
    a: &'a str,
    b: &'a str,
}

/// `%r = [tail|musttail|notail] call [attrs] { iN, i1 } @llvm.Xmul.with.overflow.iN(iN [attrs]
/// A, iN [attrs] B)[ #N][, !md ...]` with N = 8 or 16. Anything else is `None` (other widths
/// stay as they are; [`widen_mulo`] fails on an 8- or 16-bit use it cannot parse).
fn parse_mulo_call<'a>(line: &'a str) -> Option<MuloCall<'a>> {
    let t = line.trim_start();
    let result = local_at(t)?;
    let rhs = t[result.len()..].strip_prefix(" = ")?;
    let (signed, ty, at) = ["umul", "smul"].iter().find_map(|op| {
        ["i8", "i16"].iter().find_map(|ty| {
            let callee = format!(" {{ {ty}, i1 }} @llvm.{op}.with.overflow.{ty}(");
            rhs.find(&callee)
                .map(|at| (*op == "smul", *ty, at + callee.len()))
        })
    })?;
    // Before the callee: only call markers and (return) attributes.
    let head = &rhs[..rhs.find(" { ")?];
    let mut words = head.split(' ').filter(|w| !w.is_empty());
    let mut saw_call = false;
    for w in words.by_ref() {
        match w {
            "tail" | "musttail" | "notail" if !saw_call => {}
            "call" if !saw_call => saw_call = true,
            _ if saw_call => {}
            _ => return None,
        }
    }
    if !saw_call {
        return None;
    }
    // The argument list ends at the parenthesis that closes the call; an operand's
    // attributes may hold parentheses and commas of their own (`i16 range(i16 0, 256) %x`).
    let args_and_tail = &rhs[at..];
    let mut depth = 0i32;
    let close = args_and_tail.char_indices().find_map(|(i, c)| {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
        None
    })?;
    let args = &args_and_tail[..close];
    let rest = args_and_tail[close + 1..].trim();
    // Only function attribute groups and metadata may follow.
    if !(rest.is_empty() || rest.starts_with('#') || rest.starts_with(',')) {
        return None;
    }
    let ops = split_top(args);
    let [(_, x), (_, y)] = ops.as_slice() else {
        return None;
    };
    // `iN [attributes] VALUE`: the value is the last word (`%a`, `3`, `-1`; rustc's names
    // have no spaces).
    let value = |arg: &'a str| -> Option<&'a str> {
        arg.strip_prefix(ty)?.strip_prefix(' ')?.rsplit(' ').next()
    };
    let (a, b) = (value(x)?, value(y)?);
    let plain = |v: &str| !v.is_empty() && !v.contains([' ', '(', ')', '"']);
    if !(plain(a) && plain(b)) {
        return None;
    }
    Some(MuloCall {
        result,
        signed,
        ty,
        a,
        b,
    })
}

// ---------------------------------------------------------------------------------------------
// rustc wrapper mode

/// `tool` (`llc`, `opt`) of the pinned nightly's LLVM, found through `rustup` (for tests and
/// tools that run it outside a build, where no `rustc` path is at hand).
pub fn pinned_llvm_tool(tool: &str) -> Result<PathBuf> {
    let out = Command::new("rustup")
        .args(["which", "--toolchain", crate::prereq::NIGHTLY, "rustc"])
        .output()
        .context("running rustup which")?;
    anyhow::ensure!(
        out.status.success(),
        "rustup has no {} rustc: run `cargo xtask build` first",
        crate::prereq::NIGHTLY
    );
    llvm_tool(Path::new(String::from_utf8_lossy(&out.stdout).trim()), tool)
}

/// `llc`, `llvm-dis` and friends of the toolchain whose `rustc` is `rustc`.
pub fn llvm_tool(rustc: &Path, tool: &str) -> Result<PathBuf> {
    let out = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .context("running rustc --print sysroot")?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let vv = Command::new(rustc)
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    let host = String::from_utf8_lossy(&vv.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .context("rustc -vV printed no host")?;
    let p = sysroot
        .join("lib/rustlib")
        .join(host)
        .join("bin")
        .join(tool);
    if !p.is_file() {
        bail!(
            "{} is missing: install it with `rustup component add llvm-tools`",
            p.display()
        );
    }
    Ok(p)
}

fn run_ok(cmd: &mut Command) -> Result<std::process::Output> {
    let out = cmd
        .output()
        .with_context(|| format!("could not start {cmd:?}"))?;
    if !out.status.success() {
        bail!(
            "{cmd:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out)
}

fn arg_value<'a>(args: &'a [String], flag: &str) -> Vec<&'a str> {
    let mut v = Vec::new();
    let eq = format!("{flag}=");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == flag {
            if let Some(x) = it.next() {
                v.push(x.as_str());
            }
        } else if let Some(x) = a.strip_prefix(&eq) {
            v.push(x);
        }
    }
    v
}

/// `-C key=value` options.
fn codegen_opts(args: &[String]) -> Vec<(&str, &str)> {
    let mut v = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let kv = if a == "-C" {
            it.next().map(String::as_str)
        } else {
            a.strip_prefix("-C")
        };
        if let Some(kv) = kv
            && let Some((k, val)) = kv.split_once('=')
        {
            v.push((k, val));
        }
    }
    v
}

/// Run as `RUSTC_WRAPPER`: `args[0]` is rustc, the rest its arguments. Invocations for the m68k
/// target spec in [`WRAPPER_ENV`] that produce code get the rewrite; all others pass through.
pub fn wrapper_main(target_spec: &str, args: Vec<OsString>) -> Result<i32> {
    let rustc = PathBuf::from(&args[0]);
    let rest: Vec<String> = args[1..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let is_target = arg_value(&rest, "--target")
        .iter()
        .any(|t| Path::new(t) == Path::new(target_spec));
    let emit = arg_value(&rest, "--emit");
    let links = emit
        .iter()
        .any(|e| e.split(',').any(|k| k == "link" || k.starts_with("link=")));
    if !is_target || !links {
        let status = Command::new(&rustc)
            .args(&args[1..])
            .status()
            .context("could not run rustc")?;
        return Ok(status.code().unwrap_or(1));
    }

    let crate_name = arg_value(&rest, "--crate-name")
        .first()
        .context("no --crate-name")?
        .to_string();
    let out_dir = PathBuf::from(
        arg_value(&rest, "--out-dir")
            .first()
            .context("no --out-dir")?,
    );
    let cg = codegen_opts(&rest);
    let extra = cg
        .iter()
        .find(|(k, _)| *k == "extra-filename")
        .map_or("", |(_, v)| v);
    let stem = format!("{crate_name}{extra}");
    let opt = cg
        .iter()
        .rev()
        .find(|(k, _)| *k == "opt-level")
        .map_or("0", |(_, v)| v);
    let llc_opt = match opt {
        "0" => "-O0",
        "1" => "-O1",
        "3" => "-O3",
        _ => "-O2", // 2, s, z: rustc's codegen level for these is Default
    };
    let llvm_args: Vec<&str> = cg
        .iter()
        .filter(|(k, _)| *k == "llvm-args")
        .flat_map(|(_, v)| v.split(' '))
        .collect();

    // Ask for the optimized bitcode of every codegen unit besides the usual outputs.
    let work = out_dir.join(format!("{stem}.stackidx"));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    for e in std::fs::read_dir(&out_dir)? {
        let p = e?.path();
        let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if n.starts_with(&format!("{stem}.")) && n.ends_with(".rcgu.bc") {
            std::fs::remove_file(&p)?; // stale, from an earlier build of the same unit
        }
    }
    let mut new_args: Vec<String> = Vec::with_capacity(rest.len() + 2);
    for a in &rest {
        if let Some(e) = a.strip_prefix("--emit=") {
            new_args.push(format!(
                "--emit={e},llvm-bc={}",
                work.join(format!("{stem}.bc")).display()
            ));
        } else {
            new_args.push(a.clone());
        }
    }
    let status = Command::new(&rustc)
        .args(&new_args)
        .status()
        .context("could not run rustc")?;
    if !status.success() {
        return Ok(status.code().unwrap_or(1));
    }

    let llc = llvm_tool(&rustc, "llc")?;
    let dis = llvm_tool(&rustc, "llvm-dis")?;

    // The bitcode files: one `{stem}.{cgu}.rcgu.bc` per codegen unit in the output directory
    // (rustc keeps them because bitcode was asked for); with one unit, rustc may also (or only)
    // have copied it to the `llvm-bc` path, `{stem}.bc` in `work`.
    let per_cgu = |dir: &Path| -> Result<Vec<PathBuf>> {
        let mut v = Vec::new();
        for e in std::fs::read_dir(dir)? {
            let p = e?.path();
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if n.starts_with(&format!("{stem}.")) && n.ends_with(".rcgu.bc") {
                v.push(p);
            }
        }
        Ok(v)
    };
    let mut bcs = per_cgu(&out_dir)?;
    if bcs.is_empty() {
        let single = work.join(format!("{stem}.bc"));
        if single.is_file() {
            bcs.push(single);
        }
    }
    bcs.sort();

    let mut archives = Vec::new();
    for t in arg_value(&rest, "--crate-type") {
        for t in t.split(',') {
            match t {
                "lib" | "rlib" => archives.push(out_dir.join(format!("lib{stem}.rlib"))),
                "staticlib" => archives.push(out_dir.join(format!("lib{stem}.a"))),
                other => bail!("stack-index rewrite: crate type {other} is not supported"),
            }
        }
    }

    let mut total = LaunderStats::default();
    let mut movem_bad: Vec<crate::movem::BadMerge> = Vec::new();
    let mut objects: Vec<(String, PathBuf)> = Vec::new(); // (member name, object)
    for bc in &bcs {
        let n = bc.file_name().unwrap().to_str().unwrap();
        let ll = run_ok(Command::new(&dis).arg(bc).arg("-o").arg("-"))?;
        let text = String::from_utf8(ll.stdout).context("llvm-dis output is not UTF-8")?;
        // FERRITE_STACKIDX_IDENTITY=1: compile the bitcode unchanged (to check that llc with
        // LLC_ARGS reproduces rustc's own code).
        let (rewritten, stats) = if std::env::var_os("FERRITE_STACKIDX_IDENTITY").is_some() {
            (text, LaunderStats::default())
        } else {
            launder_ir(&text).with_context(|| format!("rewriting {n}"))?
        };
        total.functions += stats.functions;
        total.allocas += stats.allocas;
        total.geps += stats.geps;
        total.others += stats.others;
        total.srets += stats.srets;
        total.mulos += stats.mulos;
        total.allones += stats.allones;
        total.bittests += stats.bittests;
        let ll_path = work.join(n.replace(".bc", ".ll"));
        std::fs::write(&ll_path, rewritten)?;
        // The member this replaces: `{stem}.{cgu}.rcgu.o`.
        let member = if let Some(cgu) = n.strip_suffix(".rcgu.bc") {
            format!("{cgu}.rcgu.o")
        } else {
            String::new() // single unit: found in the archive below
        };
        let obj = work.join(if member.is_empty() {
            format!("{stem}.o")
        } else {
            member.clone()
        });
        // `llc` with the rustc-derived options and `extra`, writing `-filetype=KIND` to `out`.
        let llc_run = |extra: &[&str], kind: &str, out: &Path| {
            run_ok(
                Command::new(&llc)
                    .arg(llc_opt)
                    .args(LLC_ARGS)
                    .args(llvm_args.iter().filter(|a| !a.is_empty()))
                    .args(extra)
                    .arg(format!("-filetype={kind}"))
                    .arg("-o")
                    .arg(out)
                    .arg(&ll_path),
            )
        };
        // The same code as text, to find the extensions into address registers that the
        // object encodes as data-register instructions (`crate::anext`).
        let asm_path = ll_path.with_extension("s");
        // Spills merged out of register order (`crate::movem`), checked on the machine code
        // before the merging pass: a unit with one is compiled again with the fallback
        // options; what remains is listed for the link (`crate::movem::LIST_SUFFIX`).
        let mir_path = ll_path.with_extension("mir");
        let compile = |extra: &[&str]| -> Result<(String, Vec<crate::movem::BadMerge>)> {
            llc_run(extra, "obj", &obj)?;
            // A crash of the assembly printer is reported by its class, not as a backtrace.
            llc_run(extra, "asm", &asm_path).map_err(|e| {
                match crate::bittest::crash_class(&format!("{e:#}")) {
                    Some(class) => {
                        // The random run reads the class from here (`crate::fuzzrun`).
                        if let Some(log) = std::env::var_os(crate::bittest::CRASH_LOG_ENV) {
                            use std::io::Write as _;
                            if let Ok(mut f) = std::fs::OpenOptions::new()
                                .create(true)
                                .append(true)
                                .open(log)
                            {
                                let _ = writeln!(f, "{n}: {}", class.replace('\n', " "));
                            }
                        }
                        anyhow::anyhow!("{n}: {class}")
                    }
                    None => e,
                }
            })?;
            let asm = std::fs::read_to_string(&asm_path)?;
            if !crate::movem::has_merged_movem(&asm) {
                return Ok((asm, Vec::new()));
            }
            run_ok(
                Command::new(&llc)
                    .arg(llc_opt)
                    .args(LLC_ARGS)
                    .args(llvm_args.iter().filter(|a| !a.is_empty()))
                    .args(extra)
                    .arg("-stop-before=m68k-collapse-movem")
                    .arg("-o")
                    .arg(&mir_path)
                    .arg(&ll_path),
            )?;
            let bad = crate::movem::bad_merges(&std::fs::read_to_string(&mir_path)?);
            Ok((asm, bad))
        };
        let (mut asm, mut bad) = compile(&[])?;
        if !bad.is_empty() {
            total.movem += bad.len();
            (asm, bad) = compile(crate::movem::FALLBACK_LLC_ARGS)?;
        }
        movem_bad.extend(bad);
        let mut bytes = std::fs::read(&obj)?;
        total.anext +=
            crate::anext::repair(&asm, &mut bytes).with_context(|| format!("repairing {n}"))?;
        std::fs::write(&obj, bytes)?;
        objects.push((member, obj));
        if n.ends_with(".rcgu.bc") && bc.parent() == Some(out_dir.as_path()) {
            std::fs::remove_file(bc)?;
        }
    }
    if objects.is_empty() {
        bail!("rustc wrote no bitcode for {stem}");
    }

    for ar in &archives {
        let listing = run_ok(Command::new("m68k-linux-gnu-ar").arg("t").arg(ar))?;
        let members: Vec<String> = String::from_utf8_lossy(&listing.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        // This crate's codegen units: `{stem}.{crate}.{hash}-cgu.N.rcgu.o`. Other members are
        // upstream crates (already rewritten) or rustc's generated allocator shim
        // (`{stem}.{hash}.rcgu.o`, no stack arrays), which stay as rustc made them.
        let cgu_prefix = format!("{stem}.{crate_name}.");
        let local: Vec<&String> = members
            .iter()
            .filter(|m| m.starts_with(&cgu_prefix) && m.contains("-cgu.") && m.ends_with(".rcgu.o"))
            .collect();
        let mut replaced = 0;
        for (member, obj) in &objects {
            let name = if member.is_empty() {
                match local.as_slice() {
                    [one] => (*one).clone(),
                    _ => bail!(
                        "{}: cannot tell which of {local:?} is the one codegen unit",
                        ar.display()
                    ),
                }
            } else {
                if !local.contains(&member) {
                    bail!("{}: no member {member} to replace", ar.display());
                }
                member.clone()
            };
            let target = work.join("ar").join(&name);
            std::fs::create_dir_all(target.parent().unwrap())?;
            std::fs::copy(obj, &target)?;
            run_ok(
                Command::new("m68k-linux-gnu-ar")
                    .arg("rD")
                    .arg(ar)
                    .arg(&target),
            )?;
            replaced += 1;
        }
        if replaced != local.len() {
            bail!(
                "{}: replaced {replaced} of {} codegen units",
                ar.display(),
                local.len()
            );
        }
    }
    std::fs::write(
        out_dir.join(format!("{stem}{}", crate::movem::LIST_SUFFIX)),
        crate::movem::list(&movem_bad),
    )?;
    std::fs::write(
        out_dir.join(format!("{stem}.stackidx.txt")),
        format!(
            "functions {}\nallocas {}\ngeps {}\nothers {}\nsrets {}\nmulos {}\nallones {}\nbittests {}\nanext {}\nmovem {}\n",
            total.functions,
            total.allocas,
            total.geps,
            total.others,
            total.srets,
            total.mulos,
            total.allones,
            total.bittests,
            total.anext,
            total.movem
        ),
    )?;
    // FERRITE_STACKIDX_KEEP=1 keeps the IR, assembly, MIR and objects (to read a miscompile).
    if std::env::var_os("FERRITE_STACKIDX_KEEP").is_none() {
        std::fs::remove_dir_all(&work)?;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IR: &str = r#"target triple = "m68k"

define i8 @f(i32 %i, i32 %j, i8 %v) {
start:
  %tmp = alloca [16 x i8], align 1
  %s = alloca { i16, i32 }, align 2
  %0 = getelementptr inbounds nuw i8, ptr %tmp, i32 %i
  store i8 %v, ptr %0, align 1
  %c = getelementptr inbounds nuw i8, ptr %tmp, i32 4
  %1 = getelementptr inbounds [4 x { i16, ptr }], ptr %c, i32 0, i32 %j, i32 1
  %2 = getelementptr inbounds nuw i8, ptr %tmp, i32 3
  %p = select i1 true, ptr %2, ptr %c
  %q = ptrtoint ptr %"odd name" to i32
  %"odd name" = getelementptr i8, ptr %tmp, i32 1
  %3 = getelementptr inbounds i8, ptr %arg, i32 %j
  %r = load i8, ptr %1, align 1
  ret i8 %r
}

define void @g(ptr %x, i32 %i) {
  %a = getelementptr i8, ptr %x, i32 %i
  ret void
}
"#;

    #[test]
    fn launders_variable_offsets_from_stack_slots() {
        let (out, stats) = launder_ir(IR).unwrap();
        assert_eq!(
            stats,
            LaunderStats {
                functions: 2,
                allocas: 2,
                geps: 2,
                others: 3,
                srets: 0,
                mulos: 0,
                allones: 0,
                bittests: 0,
                anext: 0,
                movem: 0
            }
        );
        assert!(out.contains(
            "  %__ferrite_sp1 = call ptr asm \"\", \"=a,0\"(ptr %tmp)\n  %0 = getelementptr inbounds nuw i8, ptr %__ferrite_sp1, i32 %i\n"
        ));
        // Through a constant GEP, with a type that contains commas.
        assert!(out.contains(
            "(ptr %c)\n  %1 = getelementptr inbounds [4 x { i16, ptr }], ptr %__ferrite_sp2, i32 0, i32 %j, i32 1\n"
        ));
        assert!(out.contains("%p = select i1 true, ptr %__ferrite_sp3, ptr %__ferrite_sp4\n"));
        // A constant GEP defined after its textual use still counts.
        assert!(out.contains("(ptr %\"odd name\")\n  %q = ptrtoint ptr %__ferrite_sp5 to i32\n"));
        // Not stack addresses: untouched.
        assert!(out.contains("  %3 = getelementptr inbounds i8, ptr %arg, i32 %j\n"));
        assert!(out.contains("  %a = getelementptr i8, ptr %x, i32 %i\n"));
        assert!(out.contains("  %c = getelementptr inbounds nuw i8, ptr %tmp, i32 4\n"));
        assert_eq!(out.matches("call ptr asm").count(), 5);
    }

    #[test]
    fn marks_fastcc_sret_inreg() {
        let ir = "define internal fastcc void @v(ptr noalias sret([10 x i8]) align 1 %_0) {\n  ret void\n}\n\
                  define void @c(ptr sret([4 x i8]) %r) {\n  %va = alloca [10 x i8], align 1\n\
                  call fastcc void @v(ptr noalias sret([10 x i8]) align 1 %va)\n\
                  tail call fastcc void @v(ptr inreg sret([10 x i8]) align 1 %va)\n\
                  call void @c(ptr sret([4 x i8]) %r)\n  ret void\n}\n";
        let (out, stats) = launder_ir(ir).unwrap();
        assert_eq!(stats.srets, 2);
        assert!(out.contains(
            "define internal fastcc void @v(ptr noalias inreg sret([10 x i8]) align 1 %_0) {"
        ));
        assert!(out.contains("call fastcc void @v(ptr noalias inreg sret([10 x i8]) align 1 %va)"));
        assert!(out.contains("tail call fastcc void @v(ptr inreg sret([10 x i8]) align 1 %va)"));
        // The C convention passes the pointer on the stack and pops it consistently: untouched.
        assert!(out.contains("define void @c(ptr sret([4 x i8]) %r) {"));
        assert!(out.contains("call void @c(ptr sret([4 x i8]) %r)"));
    }

    #[test]
    fn widens_8_and_16_bit_mulo() {
        let ir = "define i8 @f(i8 %a, i8 %b) {\n\
                  start:\n  %0 = tail call { i8, i1 } @llvm.umul.with.overflow.i8(i8 %a, i8 %b)\n\
                  \x20 %1 = extractvalue { i8, i1 } %0, 1\n  ret i8 0\n}\n\
                  define i16 @g(i16 %x) {\n\
                  \x20 %r = call { i16, i1 } @llvm.smul.with.overflow.i16(i16 noundef %x, i16 -3) #4, !dbg !7\n\
                  \x20 ret i16 0\n}\n\
                  declare { i8, i1 } @llvm.umul.with.overflow.i8(i8, i8) #1\n\
                  declare { i16, i1 } @llvm.smul.with.overflow.i16(i16, i16) #1\n";
        let (out, n) = widen_mulo(ir).unwrap();
        assert_eq!(n, 2);
        let want_f = "start:\n\
                      \x20 %__ferrite_mulo1.a = zext i8 %a to i32\n\
                      \x20 %__ferrite_mulo1.b = zext i8 %b to i32\n\
                      \x20 %__ferrite_mulo1.p = mul i32 %__ferrite_mulo1.a, %__ferrite_mulo1.b\n\
                      \x20 %__ferrite_mulo1.v = trunc i32 %__ferrite_mulo1.p to i8\n\
                      \x20 %__ferrite_mulo1.w = zext i8 %__ferrite_mulo1.v to i32\n\
                      \x20 %__ferrite_mulo1.o = icmp ne i32 %__ferrite_mulo1.w, %__ferrite_mulo1.p\n\
                      \x20 %__ferrite_mulo1.s = insertvalue { i8, i1 } poison, i8 %__ferrite_mulo1.v, 0\n\
                      \x20 %0 = insertvalue { i8, i1 } %__ferrite_mulo1.s, i1 %__ferrite_mulo1.o, 1\n\
                      \x20 %1 = extractvalue { i8, i1 } %0, 1\n";
        assert!(out.contains(want_f), "{out}");
        let want_g = "  %__ferrite_mulo2.a = sext i16 %x to i32\n\
                      \x20 %__ferrite_mulo2.b = sext i16 -3 to i32\n\
                      \x20 %__ferrite_mulo2.p = mul i32 %__ferrite_mulo2.a, %__ferrite_mulo2.b\n\
                      \x20 %__ferrite_mulo2.v = trunc i32 %__ferrite_mulo2.p to i16\n\
                      \x20 %__ferrite_mulo2.w = sext i16 %__ferrite_mulo2.v to i32\n\
                      \x20 %__ferrite_mulo2.o = icmp ne i32 %__ferrite_mulo2.w, %__ferrite_mulo2.p\n\
                      \x20 %__ferrite_mulo2.s = insertvalue { i16, i1 } poison, i16 %__ferrite_mulo2.v, 0\n\
                      \x20 %r = insertvalue { i16, i1 } %__ferrite_mulo2.s, i1 %__ferrite_mulo2.o, 1\n\
                      \x20 ret i16 0\n";
        assert!(out.contains(want_g), "{out}");
        assert!(!out.contains("call { i8, i1 }") && !out.contains("call { i16, i1 }"));
        // The declarations stay (unused declarations are harmless).
        assert!(out.contains("declare { i8, i1 } @llvm.umul.with.overflow.i8(i8, i8) #1\n"));
        // launder_ir runs it and counts it.
        let (_, stats) = launder_ir(ir).unwrap();
        assert_eq!(stats.mulos, 2);
    }

    #[test]
    fn mulo_operands_with_attributes_are_widened() {
        // rustc writes the range of a `u8` widened to `u16` as an operand attribute (seed
        // 20261204 program 4: `0xaa7bu16.saturating_mul(v1 as u16)`).
        let ir = "  %31 = tail call { i16, i1 } @llvm.umul.with.overflow.i16(i16 range(i16 0, 256) %_168, i16 -21893)\n";
        assert_eq!(narrow_mulo_uses(ir).len(), 1);
        let (out, n) = widen_mulo(ir).unwrap();
        assert_eq!(n, 1);
        assert!(
            out.contains("  %__ferrite_mulo1.a = zext i16 %_168 to i32\n")
                && out.contains("  %__ferrite_mulo1.b = zext i16 -21893 to i32\n"),
            "{out}"
        );
        assert!(narrow_mulo_uses(&out).is_empty(), "{out}");
    }

    #[test]
    fn unknown_narrow_mulo_shape_fails() {
        let ir = "  %0 = invoke { i8, i1 } @llvm.umul.with.overflow.i8(i8 %a, i8 %b) to label %ok unwind label %bad\n";
        let e = widen_mulo(ir).unwrap_err().to_string();
        assert!(e.contains("constant false"), "{e}");
    }

    #[test]
    fn mulo_fresh_names_avoid_existing_ones() {
        let ir = "  %__ferrite_mulo1.a = add i8 1, 2\n  %0 = tail call { i8, i1 } @llvm.smul.with.overflow.i8(i8 %a, i8 %b)\n";
        let (out, n) = widen_mulo(ir).unwrap();
        assert_eq!(n, 1);
        assert!(
            out.contains("  %__ferrite_mulo2.a = sext i8 %a to i32\n"),
            "{out}"
        );
        assert_eq!(out.matches("%__ferrite_mulo1.").count(), 1);
    }

    #[test]
    fn leaves_i32_mulo_and_other_shapes_alone() {
        let ir = "  %0 = tail call { i32, i1 } @llvm.umul.with.overflow.i32(i32 %a, i32 %b)\n\
                  \x20 %1 = tail call { i32, i1 } @llvm.smul.with.overflow.i32(i32 %a, i32 %b)\n\
                  \x20 %2 = tail call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %a, i64 %b)\n\
                  \x20 %3 = tail call { i16, i1 } @llvm.uadd.with.overflow.i16(i16 %a, i16 %b)\n\
                  declare { i8, i1 } @llvm.umul.with.overflow.i8(i8, i8) #1\n";
        let (out, n) = widen_mulo(ir).unwrap();
        assert_eq!(n, 0);
        assert_eq!(out, ir);
    }

    #[test]
    fn leaves_ir_without_allocas_alone() {
        let ir = "define void @g(ptr %x, i32 %i) {\n  %a = getelementptr i8, ptr %x, i32 %i\n  ret void\n}\n";
        let (out, stats) = launder_ir(ir).unwrap();
        assert_eq!(out, ir);
        assert_eq!(stats.geps, 0);
    }
}
