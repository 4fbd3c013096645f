//! Work-around for 128-bit shifts by a variable amount: the M68k backend legalizes them through
//! a stack temporary that it then indexes with the stack-index bug (see `stackidx`).
//!
//! `shl`/`lshr`/`ashr i128 %x, %s` with a non-constant `%s` has no legal form on the M68k (not
//! even `i64` is legal), so LLVM's type legalizer (`DAGTypeLegalizer::ExpandIntRes_Shift` →
//! `ExpandIntRes_ShiftThroughStack`, `LegalizeIntegerTypes.cpp`) stores `%x` and words of zeros
//! or sign into a 32-byte stack slot and loads the result words at `slot + (s >> 5) * 4`. That address is `FrameIndex + register`,
//! whose register `SelectARID` drops (`M68kISelDAGToDAG.cpp`): the loads read `(0,%sp)`,
//! `(4,%sp)`, … whatever the amount, and `a << 32` is `a`. The stack slot is made during
//! instruction selection, so the stack-index rewrite cannot see it.
//!
//! This rewrite replaces each such shift by the same shift on the two `i64` halves (variable
//! `i64` shifts are lowered with `SHL_PARTS`/`SRL_PARTS`/`SRA_PARTS` on registers), selected by
//! `s > 63`, and reassembles the `i128`. `llvm.fshl.i128`/`llvm.fshr.i128` (rotations) with a
//! variable amount are first written as shifts, which are then split the same way.

use anyhow::{Result, bail};

const PREFIX: &str = "%__ferrite_wsh";

/// Is `v` (an operand as printed) a constant?
fn is_const(v: &str) -> bool {
    !v.starts_with('%')
}

/// The fresh-name prefix `%__ferrite_wshN` not yet used in `ll`.
fn fresh(ll: &str, n: &mut usize) -> String {
    loop {
        *n += 1;
        let p = format!("{PREFIX}{n}");
        if !ll.contains(&format!("{p}.")) {
            return p;
        }
    }
}

/// The instructions computing `%dst = OP i128 %x, %s` on `i64` halves (`op`: shl, lshr, ashr).
fn split_shift(p: &str, dst: &str, op: &str, x: &str, s: &str) -> String {
    let mut o = String::new();
    let mut l = |t: String| {
        o.push_str("  ");
        o.push_str(&t);
        o.push('\n');
    };
    l(format!("{p}.lo = trunc i128 {x} to i64"));
    l(format!("{p}.h0 = lshr i128 {x}, 64"));
    l(format!("{p}.hi = trunc i128 {p}.h0 to i64"));
    l(format!("{p}.s = trunc i128 {s} to i64"));
    l(format!("{p}.m = and i64 {p}.s, 63"));
    l(format!("{p}.inv = xor i64 {p}.m, 63"));
    l(format!("{p}.big = icmp ugt i64 {p}.s, 63"));
    match op {
        "shl" => {
            // small: lo << m, (hi << m) | (lo >> 1 >> (63 - m)); big: 0, lo << m
            l(format!("{p}.a = shl i64 {p}.lo, {p}.m"));
            l(format!("{p}.b = shl i64 {p}.hi, {p}.m"));
            l(format!("{p}.c0 = lshr i64 {p}.lo, 1"));
            l(format!("{p}.c = lshr i64 {p}.c0, {p}.inv"));
            l(format!("{p}.d = or i64 {p}.b, {p}.c"));
            l(format!("{p}.rlo = select i1 {p}.big, i64 0, i64 {p}.a"));
            l(format!("{p}.rhi = select i1 {p}.big, i64 {p}.a, i64 {p}.d"));
        }
        _ => {
            // small: (lo >> m) | (hi << 1 << (63 - m)), hi >> m; big: hi >> m, 0 or sign
            l(format!("{p}.a = {op} i64 {p}.hi, {p}.m"));
            l(format!("{p}.b = lshr i64 {p}.lo, {p}.m"));
            l(format!("{p}.c0 = shl i64 {p}.hi, 1"));
            l(format!("{p}.c = shl i64 {p}.c0, {p}.inv"));
            l(format!("{p}.d = or i64 {p}.b, {p}.c"));
            let fill = if op == "ashr" {
                l(format!("{p}.sg = ashr i64 {p}.hi, 63"));
                format!("{p}.sg")
            } else {
                "0".to_string()
            };
            l(format!("{p}.rlo = select i1 {p}.big, i64 {p}.a, i64 {p}.d"));
            l(format!(
                "{p}.rhi = select i1 {p}.big, i64 {fill}, i64 {p}.a"
            ));
        }
    }
    l(format!("{p}.zl = zext i64 {p}.rlo to i128"));
    l(format!("{p}.zh = zext i64 {p}.rhi to i128"));
    l(format!("{p}.sh = shl i128 {p}.zh, 64"));
    l(format!("{dst} = or i128 {p}.sh, {p}.zl"));
    o
}

/// Split `shl`/`lshr`/`ashr i128` by a variable amount into `i64` halves, after writing
/// `llvm.fshl.i128`/`llvm.fshr.i128` calls with a variable amount as shifts (module docs).
/// Returns the new IR and how many shifts and funnel shifts were rewritten.
pub fn split_i128_shifts(ll: &str) -> Result<(String, usize)> {
    let mut n = 0usize;
    let mut count = 0usize;
    // Pass 1: funnel shifts → shifts.
    let mut pass1 = String::with_capacity(ll.len());
    for line in ll.lines() {
        let t = line.trim_start();
        let fun = if line.contains("@llvm.fshl.i128(") {
            Some("fshl")
        } else if line.contains("@llvm.fshr.i128(") {
            Some("fshr")
        } else {
            None
        };
        let (Some(fun), Some((dst, rhs))) = (fun, t.split_once(" = ")) else {
            pass1.push_str(line);
            pass1.push('\n');
            continue;
        };
        if !dst.starts_with('%') || !rhs.contains("call i128 @llvm.fsh") {
            pass1.push_str(line);
            pass1.push('\n');
            continue;
        }
        let args_start =
            rhs.find(&format!("@llvm.{fun}.i128(")).unwrap() + format!("@llvm.{fun}.i128(").len();
        let Some(args_len) = rhs[args_start..].find(')') else {
            bail!("unparsed funnel shift: {line}")
        };
        let args: Vec<&str> = rhs[args_start..args_start + args_len]
            .split(',')
            .map(str::trim)
            .collect();
        let vals: Vec<&str> = args.iter().filter_map(|a| a.rsplit(' ').next()).collect();
        if args.len() != 3 || !args.iter().all(|a| a.starts_with("i128 ")) {
            bail!("unparsed funnel shift: {line}");
        }
        let (a, b, s) = (vals[0], vals[1], vals[2]);
        if is_const(s) {
            pass1.push_str(line);
            pass1.push('\n');
            continue;
        }
        let p = fresh(ll, &mut n);
        count += 1;
        let mut l = |t: String| {
            pass1.push_str("  ");
            pass1.push_str(&t);
            pass1.push('\n');
        };
        l(format!("{p}.k = and i128 {s}, 127"));
        l(format!("{p}.inv = xor i128 {p}.k, 127"));
        if fun == "fshl" {
            // (a << k) | (b >> 1 >> (127 - k))
            l(format!("{p}.x = shl i128 {a}, {p}.k"));
            l(format!("{p}.b1 = lshr i128 {b}, 1"));
            l(format!("{p}.y = lshr i128 {p}.b1, {p}.inv"));
        } else {
            // (b >> k) | (a << 1 << (127 - k))
            l(format!("{p}.x = lshr i128 {b}, {p}.k"));
            l(format!("{p}.a1 = shl i128 {a}, 1"));
            l(format!("{p}.y = shl i128 {p}.a1, {p}.inv"));
        }
        l(format!("{dst} = or i128 {p}.x, {p}.y"));
    }
    // Pass 2: variable i128 shifts → i64 halves.
    let mut out = String::with_capacity(pass1.len() + pass1.len() / 8);
    for line in pass1.lines() {
        let t = line.trim_start();
        let parsed = t.split_once(" = ").and_then(|(dst, rhs)| {
            let mut w = rhs.split(' ');
            let op = w.next()?;
            if !matches!(op, "shl" | "lshr" | "ashr") {
                return None;
            }
            let rest: Vec<&str> = w
                .filter(|x| !matches!(*x, "nuw" | "nsw" | "exact"))
                .collect();
            // i128 X, S [, !metadata…]
            if rest.first() != Some(&"i128") || rest.len() < 3 {
                return None;
            }
            let x = rest[1].strip_suffix(',')?;
            let s = rest[2].trim_end_matches(',');
            (dst.starts_with('%') && !is_const(s)).then_some((dst, op, x, s))
        });
        match parsed {
            Some((dst, op, x, s)) => {
                let p = fresh(&pass1, &mut n);
                count += 1;
                out.push_str(&split_shift(&p, dst, op, x, s));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok((out, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_variable_shifts() {
        let ir = "  %1 = shl i128 %_4, %0\n  %2 = lshr exact i128 %1, 64\n  %3 = ashr i128 %x, %s, !dbg !5\n  %4 = lshr i128 %x, %s\n";
        let (out, n) = split_i128_shifts(ir).unwrap();
        assert_eq!(n, 3, "{out}");
        assert!(
            out.contains("  %__ferrite_wsh1.lo = trunc i128 %_4 to i64\n"),
            "{out}"
        );
        assert!(out.contains("  %__ferrite_wsh1.rhi = select i1 %__ferrite_wsh1.big, i64 %__ferrite_wsh1.a, i64 %__ferrite_wsh1.d\n"));
        assert!(out.contains("  %1 = or i128 %__ferrite_wsh1.sh, %__ferrite_wsh1.zl\n"));
        // A constant amount stays.
        assert!(out.contains("  %2 = lshr exact i128 %1, 64\n"));
        assert!(out.contains("  %__ferrite_wsh2.sg = ashr i64 %__ferrite_wsh2.hi, 63\n"));
        assert!(out.contains("  %__ferrite_wsh2.rhi = select i1 %__ferrite_wsh2.big, i64 %__ferrite_wsh2.sg, i64 %__ferrite_wsh2.a\n"));
        assert!(out.contains(
            "  %__ferrite_wsh3.rhi = select i1 %__ferrite_wsh3.big, i64 0, i64 %__ferrite_wsh3.a\n"
        ));
        assert!(out.contains("  %4 = or i128 %__ferrite_wsh3.sh, %__ferrite_wsh3.zl\n"));
        // i64 and constant shifts are left alone.
        let ir = "  %1 = shl i64 %a, %b\n  %2 = shl i128 %a, 3\n";
        assert_eq!(split_i128_shifts(ir).unwrap(), (ir.to_string(), 0));
    }

    #[test]
    fn rewrites_funnel_shifts() {
        let ir = "  %r = tail call i128 @llvm.fshl.i128(i128 %a, i128 %a, i128 %s)\n  %q = call i128 @llvm.fshr.i128(i128 %a, i128 %b, i128 5)\n";
        let (out, n) = split_i128_shifts(ir).unwrap();
        assert_eq!(n, 3, "{out}"); // the funnel shift and its two variable shifts
        assert!(
            out.contains("  %__ferrite_wsh1.k = and i128 %s, 127\n"),
            "{out}"
        );
        assert!(
            out.contains("  %r = or i128 %__ferrite_wsh1.x, %__ferrite_wsh1.y\n"),
            "{out}"
        );
        assert!(!out.contains("shl i128 %a, %__ferrite_wsh1.k"), "{out}");
        assert!(out.contains("@llvm.fshr.i128(i128 %a, i128 %b, i128 5)"));
    }
}
