//! Work-around for the M68k backend's all-ones `select`: `select (x == 0), -1, y` (and the
//! three other polarities) is lowered to a compare that leaves the X flag alone and a SUBX that
//! reads it, so the result depends on whatever last wrote X.
//!
//! `M68kTargetLowering::LowerSELECT` (`M68kISelLowering.cpp`) turns a `select` of an 8-, 16- or
//! 32-bit value whose condition is `x == 0` or `x != 0` and one of whose arms is all ones into
//! `(sign_bit (x - 1)) | y`: `M68kISD::CMP 1, x` followed by `M68kISD::SETCC_CARRY`, which is
//! selected as `subx.l %dN,%dN` ("all ones if the carry is set"). On the 68k, CMP sets C but
//! not X, and SUBX subtracts X, not C (the code was carried over from the x86 back end, where
//! SBB reads the carry a CMP sets): `cmpi.l #1,%d0 ; subx.l %d1,%d1` gives 0 or -1 depending on
//! the last ADD, SUB, NEG or shift before it. `(t / 512u64).min(u32::MAX as u64) as u32`
//! (`llvm.umin.i64(x, 4294967295)`, whose low half becomes `select (hi != 0), -1, lo`) gave
//! 0xFFFF_FFFF for every input (codegen case `u64_min_then_truncate`). The same path handles
//! `llvm.umax.i64(x, 4294967295)`, `select (x == 0), -1, y` written out, and `select (x <u 1)`.
//! The other all-ones shapes of `LowerSELECT` are right: `(x != 0) ? -1 : 0` uses NEG, which
//! sets X, and `a <u b ? -1 : 0` uses SUB.
//!
//! The condition reaches the DAG in many forms (an `i64` compare with a constant becomes a
//! compare of one half with zero), so this rewrite does not look at it. Every integer `select`
//! with an all-ones constant arm (for types wider than 32 bits: an all-ones 32-bit part, since
//! the type legalizer splits them into 32-bit selects), and every `llvm.{u,s}{min,max}` with
//! such a constant operand (first written as `icmp` and `select`), becomes a masked merge
//! without a `select`:
//!
//! ```text
//! %z = zext i1 %c to i32
//! %o = call i32 asm "", "=d,0"(i32 %z)      ; opaque: the selector cannot rebuild a select
//! %m = sub i32 0, %o                         ; all ones if %c (NEG: sets X, reads nothing)
//! ; trunc or sext %m to the type, %n = xor %m, -1
//! %r = or (and A, %m), (and B, %n)
//! ```
//!
//! The type legalizer makes such selects itself from a 64-bit funnel shift by a variable
//! amount (`llvm.fshl.i64`/`llvm.fshr.i64`, Rust's `u64::rotate_left`/`rotate_right`): it
//! splits the operands into 32-bit halves and picks each half of the result with a `select`
//! on bit 5 of the amount; when it knows a half to be all ones (`(-41i64 as u64).rotate_right(s)`,
//! `(x | 0xFFFF_FFFF_0000_0000).rotate_left(s)`), that select is lowered as `cmp #1 ; subx`
//! (seed 2 program 115 of `cargo xtask fuzz-codegen`). Every such call gets operands whose
//! halves pass through the same empty inline assembly statement, so no half is known:
//!
//! ```text
//! %l = trunc i64 A to i32                    ; and %h, the high half
//! %lo = call i32 asm "", "=d,0"(i32 %l)      ; and %ho
//! %a = or i64 (shl (zext %ho), 32), (zext %lo)
//! %r = call i64 @llvm.fshr.i64(i64 %a, i64 %a, i64 %s)
//! ```
//!
//! A rotation by a constant amount needs no select and is left alone; a 64-bit funnel shift
//! whose arguments the rewrite cannot read stops the build.
//!
//! The masked merge is branch-free, so it also adds no compare-and-branch diamond whose register copies the
//! flag-hazard repairs would have to handle. What the rewrite cannot see (a select the DAG
//! combiner makes from other nodes) the verifier's `stale-x` rule reports, and a shipped
//! artifact with a finding is not written.

use anyhow::{Result, bail};

const PREFIX: &str = "%__ferrite_ao";

/// A name prefix not used in `ll`: `%__ferrite_ao`, with `_` appended until it is new.
fn prefix(ll: &str) -> String {
    let mut p = PREFIX.to_string();
    while ll.contains(&p) {
        p.push('_');
    }
    p
}

/// The bit width of an integer type token (`i32` → 32).
fn int_width(ty: &str) -> Option<u32> {
    ty.strip_prefix('i')?.parse::<u32>().ok()
}

/// The value of an integer literal of type `iN`, masked to `N` bits (`N` ≤ 128).
fn literal(v: &str, n: u32) -> Option<u128> {
    let x: i128 = v.parse().ok()?;
    let mask = if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    };
    Some(x as u128 & mask)
}

/// Which parts of an `iN` literal the selector can meet as an all-ones select arm: the whole
/// value for `N` ≤ 32 (8, 16, 32), else each all-ones 32-bit part (index from the low end).
/// Empty if none.
fn all_ones_parts(v: &str, n: u32) -> Vec<u32> {
    let Some(x) = literal(v, n) else {
        return Vec::new();
    };
    if n <= 1 || n > 128 {
        return Vec::new();
    }
    if n <= 32 {
        let mask = (1u128 << n) - 1;
        return if x == mask { vec![0] } else { Vec::new() };
    }
    (0..n.div_ceil(32))
        .filter(|&k| {
            let bits = (n - 32 * k).min(32);
            let mask = (1u128 << bits) - 1;
            bits == 32 && (x >> (32 * k)) & mask == mask
        })
        .collect()
}

/// `select i1 C, TY A, TY B…`: the condition, the type and the two arm values.
fn select_arms(t: &str) -> Option<(String, &str, [&str; 2])> {
    let rhs_at = t.find(" = select ")? + " = select ".len();
    let rest = &t[rhs_at..];
    let mut parts = rest.splitn(4, ", ");
    let cond = parts.next()?;
    let a = parts.next()?;
    let b = parts.next()?;
    let (ty, av) = a.split_once(' ')?;
    let (ty_b, bv) = b.split_once(' ')?;
    if ty != ty_b || int_width(ty).is_none() || av.contains(' ') || bv.contains(' ') {
        return None;
    }
    let c = cond.strip_prefix("i1 ")?;
    (!c.contains(' ')).then(|| (c.to_string(), ty, [av, bv]))
}

/// The top-level arguments of the call whose argument list opens right after `open` (the index
/// after its `(`), and the index of its closing parenthesis. Arguments may carry attributes
/// with their own parentheses and commas (`i32 range(i32 0, -1) %x`).
fn call_args(t: &str, open: usize) -> Option<(Vec<&str>, usize)> {
    let mut depth = 0usize;
    let mut cuts = vec![open];
    let mut close = None;
    for (k, c) in t[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                close = Some(open + k);
                break;
            }
            ')' => depth -= 1,
            ',' if depth == 0 => cuts.push(open + k + 2),
            _ => {}
        }
    }
    let close = close?;
    let mut args = Vec::with_capacity(cuts.len());
    for (k, &at) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).map_or(close, |&next| next - 2);
        args.push(t.get(at..end)?.trim());
    }
    Some((args, close))
}

/// `… call … @llvm.{u,s}{min,max}.iN(TY A, TY B)`: the `icmp` predicate that selects `A`, the
/// type and the two operand values.
fn minmax_args(t: &str) -> Option<(&'static str, &str, [&str; 2])> {
    let (at, pred) = [
        ("@llvm.umin.", "ult"),
        ("@llvm.umax.", "ugt"),
        ("@llvm.smin.", "slt"),
        ("@llvm.smax.", "sgt"),
    ]
    .iter()
    .find_map(|(k, p)| t.find(k).map(|at| (at, *p)))?;
    let open = at + t[at..].find('(')? + 1;
    let (args, _) = call_args(t, open)?;
    let [a, b] = args.as_slice() else {
        return None;
    };
    let ty = a.split(' ').next()?;
    int_width(ty)?;
    let av = a.rsplit(' ').next()?;
    let bv = b.rsplit(' ').next()?;
    Some((pred, ty, [av, bv]))
}

/// The intrinsics of a 64-bit funnel shift (a rotation when both operands are the same).
const FUNNEL64: [&str; 2] = ["@llvm.fshl.i64(", "@llvm.fshr.i64("];

/// `… call … @llvm.fsh{l,r}.i64(i64 A, i64 B, i64 S)` with a variable `S`: the index of the
/// argument list's `(` + 1, of its `)`, and the three arguments' values. `Ok(None)` for any
/// other line, and for a constant `S` (the halves are then picked at compile time, no
/// `select`). An `Err` for such a call whose arguments this cannot read.
fn funnel64_args(t: &str) -> Result<Option<(usize, usize, [&str; 3])>> {
    let Some(at) = FUNNEL64
        .iter()
        .find_map(|k| t.find(k).map(|at| at + k.len()))
    else {
        return Ok(None);
    };
    let parsed = call_args(t, at).and_then(|(args, close)| {
        let [a, b, s] = args.as_slice() else {
            return None;
        };
        fn value(arg: &str) -> Option<&str> {
            let v = arg.rsplit(' ').next()?;
            (arg.starts_with("i64 ") && !v.is_empty()).then_some(v)
        }
        Some((at, close, [value(a)?, value(b)?, value(s)?]))
    });
    let Some((open, close, [a, b, s])) = parsed else {
        bail!("all-ones rewrite: cannot read the arguments of the 64-bit funnel shift `{t}`");
    };
    Ok((literal(s, 64).is_none()).then_some((open, close, [a, b, s])))
}

/// Emit `v` (an `i64` value) as a new value whose two 32-bit halves pass through empty inline
/// assembly statements, so that instruction selection cannot know either half; returns its name.
fn opaque_halves(
    out: &mut String,
    indent: &str,
    name: &mut dyn FnMut() -> String,
    v: &str,
) -> String {
    let lo = name();
    out.push_str(&format!("{indent}{lo} = trunc i64 {v} to i32\n"));
    let hi64 = name();
    out.push_str(&format!("{indent}{hi64} = lshr i64 {v}, 32\n"));
    let hi = name();
    out.push_str(&format!("{indent}{hi} = trunc i64 {hi64} to i32\n"));
    let mut wide = Vec::new();
    for half in [lo, hi] {
        let o = name();
        out.push_str(&format!(
            "{indent}{o} = call i32 asm \"\", \"=d,0\"(i32 {half})\n"
        ));
        let z = name();
        out.push_str(&format!("{indent}{z} = zext i32 {o} to i64\n"));
        wide.push(z);
    }
    let up = name();
    out.push_str(&format!("{indent}{up} = shl i64 {}, 32\n", wide[1]));
    let r = name();
    out.push_str(&format!("{indent}{r} = or i64 {up}, {}\n", wide[0]));
    r
}

/// Emit `dst = select i1 c, ty a, ty b` without a `select`: `(a & m) | (b & !m)` with the mask
/// `m = 0 - zext(c)` made opaque to the selector (module docs).
fn masked_select(
    out: &mut String,
    indent: &str,
    name: &mut dyn FnMut() -> String,
    dst: &str,
    (c, ty, a, b): (&str, &str, &str, &str),
) {
    let n = int_width(ty).expect("integer type");
    let z = name();
    out.push_str(&format!("{indent}{z} = zext i1 {c} to i32\n"));
    let zo = name();
    out.push_str(&format!(
        "{indent}{zo} = call i32 asm \"\", \"=d,0\"(i32 {z})\n"
    ));
    let m32 = name();
    out.push_str(&format!("{indent}{m32} = sub i32 0, {zo}\n"));
    let m = if n == 32 {
        m32
    } else {
        let m = name();
        let op = if n < 32 { "trunc" } else { "sext" };
        out.push_str(&format!("{indent}{m} = {op} i32 {m32} to {ty}\n"));
        m
    };
    let nm = name();
    out.push_str(&format!("{indent}{nm} = xor {ty} {m}, -1\n"));
    let ta = name();
    out.push_str(&format!("{indent}{ta} = and {ty} {a}, {m}\n"));
    let tb = name();
    out.push_str(&format!("{indent}{tb} = and {ty} {b}, {nm}\n"));
    out.push_str(&format!("{indent}{dst} = or {ty} {ta}, {tb}\n"));
}

/// Rewrite every integer `select` with an all-ones constant arm, and every integer min/max
/// intrinsic with an all-ones constant operand, as a masked merge, and give the operands of
/// every 64-bit funnel shift by a variable amount opaque halves (module docs). Returns the
/// rewritten IR and the number of selects and calls rewritten. Fails on a 64-bit funnel shift
/// whose arguments it cannot read.
pub fn hide_all_ones_arms(ll: &str) -> Result<(String, usize)> {
    let mut out = String::with_capacity(ll.len() + ll.len() / 64);
    let base = prefix(ll);
    let mut fresh = 0usize;
    let mut count = 0usize;
    for line in ll.lines() {
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        let dst = t
            .split_once(" = ")
            .map(|(d, _)| d)
            .filter(|d| d.starts_with('%') && !d.contains(' '));
        if dst.is_some()
            && !indent.is_empty()
            && t.contains(" call ")
            && let Some((open, close, [a, b, s])) = funnel64_args(t)?
        {
            // A 64-bit funnel shift by a variable amount: the type legalizer picks each half
            // of the result with a `select` on bit 5 of the amount, and a half it knows to be
            // all ones makes that an all-ones select. Both operands get opaque halves.
            count += 1;
            let mut name = || {
                fresh += 1;
                format!("{base}{fresh}")
            };
            let a2 = opaque_halves(&mut out, indent, &mut name, a);
            let b2 = if b == a {
                a2.clone()
            } else {
                opaque_halves(&mut out, indent, &mut name, b)
            };
            out.push_str(&format!(
                "{indent}{}i64 {a2}, i64 {b2}, i64 {s}{}\n",
                &t[..open],
                &t[close..]
            ));
            continue;
        }
        let found = match dst {
            None => None,
            _ if indent.is_empty() => None,
            Some(_) if t.contains(" = select ") => {
                select_arms(t).map(|(c, ty, arms)| (None, Some(c), ty, arms))
            }
            Some(_) if t.contains(" call ") => {
                minmax_args(t).map(|(p, ty, arms)| (Some(p), None, ty, arms))
            }
            _ => None,
        };
        let hit = found.filter(|(_, _, ty, arms)| {
            let n = int_width(ty).expect("integer type");
            arms.iter().any(|v| !all_ones_parts(v, n).is_empty())
        });
        let (Some(dst), Some((pred, cond, ty, [a, b]))) = (dst, hit) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        count += 1;
        let mut name = || {
            fresh += 1;
            format!("{base}{fresh}")
        };
        let c = match (pred, cond) {
            (_, Some(c)) => c,
            (Some(p), None) => {
                let c = name();
                out.push_str(&format!("{indent}{c} = icmp {p} {ty} {a}, {b}\n"));
                c
            }
            (None, None) => unreachable!(),
        };
        masked_select(&mut out, indent, &mut name, dst, (&c, ty, a, b));
    }
    Ok((out, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_ones_parts_of_literals() {
        assert_eq!(all_ones_parts("-1", 32), [0]);
        assert_eq!(all_ones_parts("-1", 8), [0]);
        assert_eq!(all_ones_parts("255", 8), [0]);
        assert!(all_ones_parts("65535", 32).is_empty());
        assert!(all_ones_parts("-2", 16).is_empty());
        assert!(all_ones_parts("%x", 32).is_empty());
        assert!(all_ones_parts("true", 1).is_empty());
        assert_eq!(all_ones_parts("4294967295", 64), [0]);
        assert_eq!(all_ones_parts("-4294967296", 64), [1]);
        assert_eq!(all_ones_parts("-1", 64), [0, 1]);
        assert_eq!(all_ones_parts("8589934591", 64), [0]);
        assert_eq!(all_ones_parts("9223372036854775807", 64), [0]);
        assert!(all_ones_parts("2147483647", 64).is_empty());
        assert_eq!(all_ones_parts("-1", 128), [0, 1, 2, 3]);
    }

    #[test]
    fn select_becomes_a_masked_merge() {
        let ir = "define i32 @f(i32 %x, i32 %y) {\nstart:\n  %c = icmp eq i32 %x, 0\n  %r = select i1 %c, i32 -1, i32 %y, !prof !3\n  ret i32 %r\n}\n";
        let (out, n) = hide_all_ones_arms(ir).unwrap();
        assert_eq!(n, 1);
        assert!(
            out.contains(concat!(
                "  %c = icmp eq i32 %x, 0\n",
                "  %__ferrite_ao1 = zext i1 %c to i32\n",
                "  %__ferrite_ao2 = call i32 asm \"\", \"=d,0\"(i32 %__ferrite_ao1)\n",
                "  %__ferrite_ao3 = sub i32 0, %__ferrite_ao2\n",
                "  %__ferrite_ao4 = xor i32 %__ferrite_ao3, -1\n",
                "  %__ferrite_ao5 = and i32 -1, %__ferrite_ao3\n",
                "  %__ferrite_ao6 = and i32 %y, %__ferrite_ao4\n",
                "  %r = or i32 %__ferrite_ao5, %__ferrite_ao6\n",
                "  ret i32 %r\n"
            )),
            "{out}"
        );
        assert!(!out.contains("select"), "{out}");
    }

    #[test]
    fn narrow_and_wide_masks() {
        let ir = "define i16 @f(i1 %c, i16 %y, i64 %z) {\nstart:\n  %r = select i1 %c, i16 %y, i16 -1\n  %s = select i1 %c, i64 0, i64 9223372036854775807\n  ret i16 %r\n}\n";
        let (out, n) = hide_all_ones_arms(ir).unwrap();
        assert_eq!(n, 2);
        assert!(
            out.contains("%__ferrite_ao4 = trunc i32 %__ferrite_ao3 to i16\n"),
            "{out}"
        );
        assert!(
            out.contains("%__ferrite_ao7 = and i16 -1, %__ferrite_ao5\n  %r = or i16"),
            "{out}"
        );
        assert!(
            out.contains("%__ferrite_ao11 = sext i32 %__ferrite_ao10 to i64\n"),
            "{out}"
        );
        assert!(
            out.contains("and i64 9223372036854775807, %__ferrite_ao12\n  %s = or i64"),
            "{out}"
        );
    }

    #[test]
    fn u64_min_with_u32_max_becomes_compare_and_merge() {
        let ir = "define i32 @f(i64 %x) {\nstart:\n  %_0.i = tail call noundef i64 @llvm.umin.i64(i64 %x, i64 4294967295)\n  %_0 = trunc nuw i64 %_0.i to i32\n  ret i32 %_0\n}\n";
        let (out, n) = hide_all_ones_arms(ir).unwrap();
        assert_eq!(n, 1);
        assert!(
            out.contains("  %__ferrite_ao1 = icmp ult i64 %x, 4294967295\n  %__ferrite_ao2 = zext i1 %__ferrite_ao1 to i32\n"),
            "{out}"
        );
        assert!(
            out.contains("  %_0.i = or i64 %__ferrite_ao7, %__ferrite_ao8\n  %_0 = trunc"),
            "{out}"
        );
        assert!(!out.contains("@llvm.umin"), "{out}");
    }

    #[test]
    fn signed_max_and_operand_attributes() {
        let ir = "define i32 @f(i32 %a, i32 %b) {\nstart:\n  %_0.i.i = tail call noundef i32 @llvm.umax.i32(i32 range(i32 0, -1) %a, i32 %b)\n  %m = call i32 @llvm.smax.i32(i32 range(i32 0, -1) %a, i32 -1)\n  ret i32 %m\n}\n";
        let (out, n) = hide_all_ones_arms(ir).unwrap();
        assert_eq!(n, 1, "{out}");
        assert!(
            out.contains("@llvm.umax.i32(i32 range(i32 0, -1) %a, i32 %b)\n"),
            "{out}"
        );
        assert!(
            out.contains("  %__ferrite_ao1 = icmp sgt i32 %a, -1\n"),
            "{out}"
        );
        assert!(out.contains("  %m = or i32 "), "{out}");
    }

    #[test]
    fn funnel_shift_operands_get_opaque_halves() {
        let ir = "define i64 @f(i64 %x, i64 %s) {\nstart:\n  %_0.i439 = tail call noundef i64 @llvm.fshr.i64(i64 -41, i64 -41, i64 %s)\n  %g = call i64 @llvm.fshl.i64(i64 %x, i64 noundef %_0.i439, i64 range(i64 0, 64) %s), !dbg !4\n  %k = call i64 @llvm.fshl.i64(i64 -41, i64 -41, i64 11)\n  ret i64 %g\n}\n";
        let (out, n) = hide_all_ones_arms(ir).unwrap();
        assert_eq!(n, 2, "{out}");
        assert!(
            out.contains(concat!(
                "  %__ferrite_ao1 = trunc i64 -41 to i32\n",
                "  %__ferrite_ao2 = lshr i64 -41, 32\n",
                "  %__ferrite_ao3 = trunc i64 %__ferrite_ao2 to i32\n",
                "  %__ferrite_ao4 = call i32 asm \"\", \"=d,0\"(i32 %__ferrite_ao1)\n",
                "  %__ferrite_ao5 = zext i32 %__ferrite_ao4 to i64\n",
                "  %__ferrite_ao6 = call i32 asm \"\", \"=d,0\"(i32 %__ferrite_ao3)\n",
                "  %__ferrite_ao7 = zext i32 %__ferrite_ao6 to i64\n",
                "  %__ferrite_ao8 = shl i64 %__ferrite_ao7, 32\n",
                "  %__ferrite_ao9 = or i64 %__ferrite_ao8, %__ferrite_ao5\n",
                "  %_0.i439 = tail call noundef i64 @llvm.fshr.i64(i64 %__ferrite_ao9, i64 %__ferrite_ao9, i64 %s)\n",
            )),
            "{out}"
        );
        assert!(
            out.contains("  %__ferrite_ao10 = trunc i64 %x to i32\n"),
            "{out}"
        );
        assert!(
            out.contains("  %__ferrite_ao19 = trunc i64 %_0.i439 to i32\n"),
            "{out}"
        );
        assert!(
            out.contains("  %g = call i64 @llvm.fshl.i64(i64 %__ferrite_ao18, i64 %__ferrite_ao27, i64 %s), !dbg !4\n"),
            "{out}"
        );
        assert!(
            out.contains("  %k = call i64 @llvm.fshl.i64(i64 -41, i64 -41, i64 11)\n"),
            "{out}"
        );
    }

    #[test]
    fn unreadable_funnel_shift_stops_the_rewrite() {
        let ir = "define i64 @f(i64 %s) {\nstart:\n  %r = call i64 @llvm.fshr.i64(i64 -41, i64 %s)\n  ret i64 %r\n}\n";
        let e = hide_all_ones_arms(ir).unwrap_err();
        assert!(format!("{e}").contains("64-bit funnel shift"), "{e}");
    }

    #[test]
    fn other_selects_and_calls_are_left_alone() {
        let ir = "define i32 @f(i1 %c, i32 %y, ptr %p) {\nstart:\n  %a = select i1 %c, i32 0, i32 %y\n  %b = select i1 %c, ptr %p, ptr null\n  %d = call i32 @llvm.umin.i32(i32 %y, i32 65535)\n  %e = call i32 @g(i32 -1, i32 %y)\n  %f = select i1 %c, i1 true, i1 false\n  call void @h(i32 -1)\n  ret i32 %a\n}\n";
        let (out, n) = hide_all_ones_arms(ir).unwrap();
        assert_eq!(n, 0, "{out}");
        assert_eq!(out, ir);
    }
}
