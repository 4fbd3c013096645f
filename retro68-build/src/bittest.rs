//! Work-around for the M68k backend's bit test with a constant bit number: instruction
//! selection builds `BTST32di` (the immediate form, `btst #N,%dM`) with a register as its
//! bit-number operand.
//!
//! A branch or select on one bit of a value shifted by a constant, `(x >> 10) & 1 == 1` in Rust,
//! `trunc (lshr i32 %x, 10) to i1` or `icmp ne (and (lshr i32 %x, 10), 1), 0` in the IR, reaches
//! the selection DAG of its block as `brcond`/`setcc` of `(and (srl X, 10), 1)`. The backend's
//! lowering turns that into a bit-test node whose bit number is the constant `10`; the selector
//! puts the constant in a register (`moveq #10,%d0`) and then picks the immediate-operand
//! pattern with that register as the operand. The object encodes the register's number as the
//! bit number (`btst #0,%d1`: bit 0 is tested instead of bit 10), and `llc`'s assembly printer
//! dies on the operand (`M68kInstPrinter::printImmediate`, SIGILL). Found by `cargo xtask
//! fuzz-codegen` (seed 1 programs 4, 37, 92; seed 20261204 program 0). Shapes checked with the
//! pinned `llc` (`tests/bittest_llc.rs`): `lshr` and `ashr` of `i8`, `i16`, `i32` and the low half
//! of an `i64`, tested by `trunc … to i1` in a branch, or by `and …, 1` with `icmp eq`/`ne` in a
//! branch or a select. A constant mask (`and i32 %x, 1024`) and a variable shift amount (`btst
//! %dN,%dM`) are selected right.
//!
//! The DAG is built per basic block, so only a shift of the same block can meet the test. This
//! rewrite passes such a shifted value through an empty inline assembly statement before the
//! one-bit test:
//!
//! ```text
//! %s = lshr i32 %x, 10
//! %b = call i32 asm "", "=d,0"(i32 %s)      ; opaque: the selector sees no shift
//! %c = trunc i32 %b to i1
//! ```
//!
//! and the bit is tested with `and.b #1` and a compare (`moveq #10,%d0 ; lsr.l %d0,%d1 ;
//! andi.b #1,%d1 ; cmpi.b #0,%d1`). Values wider than 32 bits pass their low half (the tested
//! bit is bit 0). What the rewrite cannot see still stops the build: the rustc wrapper prints
//! every unit's assembly, and when `llc` crashes in `printImmediate` it names this class and
//! the function ([`crash_class`]).

use anyhow::Result;
use std::collections::HashMap;

const PREFIX: &str = "%__ferrite_bt";

/// When set, the rustc wrapper appends the message of every classified `llc` crash to this
/// file (the random run sets it to read the class of a failed build).
pub const CRASH_LOG_ENV: &str = "FERRITE_LLC_CRASH_LOG";

/// A name prefix not used in `ll`: `%__ferrite_bt`, with `_` appended until it is new.
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

/// What the rewrite knows about a value defined in the current block.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `lshr`/`ashr` by a constant amount.
    ConstShift,
    /// `trunc`/`zext` of another value (followed back to a shift).
    Cast,
}

/// `%x = OP …` for the opcodes the rewrite follows: the defined name, its kind and its value
/// operand (for casts).
fn parse_def(t: &str) -> Option<(&str, Kind, Option<&str>)> {
    let (dst, rhs) = t.split_once(" = ")?;
    if !dst.starts_with('%') || dst.contains(' ') {
        return None;
    }
    let w: Vec<&str> = rhs
        .split_whitespace()
        .filter(|x| !matches!(*x, "nuw" | "nsw" | "exact" | "nneg"))
        .collect();
    match *w.first()? {
        // lshr TY A, C
        "lshr" | "ashr" => {
            let amount = w.get(3)?;
            let c: u32 = amount.parse().ok()?;
            (c > 0 && w.get(2)?.ends_with(',')).then_some((dst, Kind::ConstShift, None))
        }
        // trunc/zext TY V to TY2
        "trunc" | "zext" => Some((dst, Kind::Cast, Some(w.get(2)?))),
        _ => None,
    }
}

/// Does `v` reach a constant shift of the current block through casts?
fn from_const_shift(defs: &HashMap<String, (Kind, Option<String>)>, v: &str) -> bool {
    let mut v = v.to_string();
    for _ in 0..6 {
        match defs.get(&v) {
            Some((Kind::ConstShift, _)) => return true,
            Some((Kind::Cast, Some(src))) => v = src.clone(),
            _ => return false,
        }
    }
    false
}

/// A one-bit test of the current line: `trunc TY V to i1` or `and TY V, 1` (either order).
/// Returns the type and the tested value.
fn one_bit_test(t: &str) -> Option<(&str, &str)> {
    let (_, rhs) = t.split_once(" = ")?;
    let w: Vec<&str> = rhs
        .split_whitespace()
        .filter(|x| !matches!(*x, "nuw" | "nsw"))
        .collect();
    match *w.first()? {
        "trunc" => {
            let (ty, v) = (*w.get(1)?, w.get(2)?);
            (w.get(3) == Some(&"to") && w.get(4).map(|x| x.trim_end_matches(',')) == Some("i1"))
                .then_some((ty, *v))
        }
        "and" => {
            let ty = *w.get(1)?;
            let a = w.get(2)?.strip_suffix(',')?;
            let b = w.get(3)?.trim_end_matches(',');
            match (a, b) {
                (v, "1") if v.starts_with('%') => Some((ty, v)),
                ("1", v) if v.starts_with('%') => Some((ty, v)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Pass each value shifted by a constant that a one-bit test of the same block reads through
/// an empty inline assembly statement (module docs). Returns the rewritten IR and the number
/// of tests changed.
pub fn hide_shifted_bit_tests(ll: &str) -> Result<(String, usize)> {
    let mut out = String::with_capacity(ll.len() + ll.len() / 64);
    let mut defs: HashMap<String, (Kind, Option<String>)> = HashMap::new();
    let base = prefix(ll);
    let mut count = 0usize;
    for line in ll.lines() {
        let t = line.trim_start();
        if line.len() == t.len() {
            // A label, `define`, `}` or a global: a new block (or none).
            defs.clear();
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let hit = one_bit_test(t).filter(|(ty, v)| {
            int_width(ty).is_some_and(|w| (2..=128).contains(&w)) && from_const_shift(&defs, v)
        });
        if let Some((dst, kind, src)) = parse_def(t) {
            defs.insert(dst.to_string(), (kind, src.map(str::to_string)));
        }
        let Some((ty, v)) = hit else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        count += 1;
        let indent = &line[..line.len() - t.len()];
        let p = format!("{base}{count}");
        let w = int_width(ty).unwrap_or(32);
        if w <= 32 {
            out.push_str(&format!(
                "{indent}{p} = call {ty} asm \"\", \"=d,0\"({ty} {v})\n"
            ));
        } else {
            out.push_str(&format!("{indent}{p}.l = trunc {ty} {v} to i32\n"));
            out.push_str(&format!(
                "{indent}{p}.o = call i32 asm \"\", \"=d,0\"(i32 {p}.l)\n"
            ));
            out.push_str(&format!("{indent}{p} = zext i32 {p}.o to {ty}\n"));
        }
        // Replace the operand (the first occurrence of `V` as a whole token after `=`).
        let (lhs, rhs) = line.split_once(" = ").expect("a one-bit test has a result");
        let rhs = replace_token(rhs, v, &p);
        out.push_str(lhs);
        out.push_str(" = ");
        out.push_str(&rhs);
        out.push('\n');
    }
    Ok((out, count))
}

/// `s` with the first whole-token occurrence of the local `v` replaced by `by`.
fn replace_token(s: &str, v: &str, by: &str) -> String {
    let mut from = 0;
    while let Some(k) = s[from..].find(v) {
        let at = from + k;
        let end = at + v.len();
        let next = s[end..].chars().next();
        let whole = !next.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$'));
        if whole {
            return format!("{}{by}{}", &s[..at], &s[end..]);
        }
        from = end;
    }
    s.to_string()
}

/// The class of an `llc` failure this module is about: `Some(message)` naming the bit-test
/// class and the function when `stderr` is `llc`'s crash in `printImmediate`.
pub fn crash_class(stderr: &str) -> Option<String> {
    if !stderr.contains("M68kInstPrinter::printImmediate") {
        return None;
    }
    let function = stderr
        .lines()
        .find_map(|l| {
            let at = l.find("Running pass 'M68k Assembly Printer' on function '")?;
            let rest = &l[at + "Running pass 'M68k Assembly Printer' on function '".len()..];
            Some(rest.trim_end_matches('\'').to_string())
        })
        .unwrap_or_else(|| "(not named in llc's output)".into());
    Some(format!(
        "the M68k backend selected a bit test with a register as its immediate bit number \
         (class `btst-register-as-immediate`, docs/codegen-conformance.md: a branch or select \
         on `(x >> CONSTANT) & 1` that the bit-test rewrite, retro68-build/src/bittest.rs, did \
         not see) in function {function}; the object would test the wrong bit, so the build \
         stops. Rewrite the condition (e.g. `x & (1 << CONSTANT) != 0`) or extend the rewrite."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trunc_of_a_constant_shift_is_hidden() {
        let ir = "define i32 @f(i32 %x) {\nstart:\n  %s = lshr i32 %x, 10\n  %c = trunc nuw i32 %s to i1\n  br i1 %c, label %a, label %b\n}\n";
        let (out, n) = hide_shifted_bit_tests(ir).unwrap();
        assert_eq!(n, 1);
        assert!(
            out.contains(
                "  %__ferrite_bt1 = call i32 asm \"\", \"=d,0\"(i32 %s)\n  %c = trunc nuw i32 %__ferrite_bt1 to i1\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn and_one_of_a_shift_through_casts_and_wide_values() {
        let ir = "define i32 @f(i64 %x, i16 %y) {\nstart:\n  %s = ashr exact i64 %x, 40\n  %a = and i64 %s, 1\n  %t = lshr i16 %y, 3\n  %u = trunc i16 %t to i8\n  %v = and i8 1, %u\n  ret i32 0\n}\n";
        let (out, n) = hide_shifted_bit_tests(ir).unwrap();
        assert_eq!(n, 2, "{out}");
        assert!(
            out.contains(
                "  %__ferrite_bt1.l = trunc i64 %s to i32\n  %__ferrite_bt1.o = call i32 asm \"\", \"=d,0\"(i32 %__ferrite_bt1.l)\n  %__ferrite_bt1 = zext i32 %__ferrite_bt1.o to i64\n  %a = and i64 %__ferrite_bt1, 1\n"
            ),
            "{out}"
        );
        assert!(
            out.contains("(i8 %u)\n  %v = and i8 1, %__ferrite_bt2\n"),
            "{out}"
        );
    }

    #[test]
    fn other_shapes_are_left_alone() {
        // A shift of another block, a variable amount, a mask of more than one bit, a plain
        // truncation, and a name that only starts like the shifted one.
        let ir = "define i32 @f(i32 %x, i32 %n) {\nstart:\n  %s = lshr i32 %x, 10\n  %v = lshr i32 %x, %n\n  %w = trunc i32 %v to i1\n  %m = and i32 %s, 3\n  %p = trunc i32 %x to i1\n  br label %next\nnext:\n  %c = trunc i32 %s to i1\n  %s2 = add i32 %x, 1\n  %d = and i32 %s2, 1\n  ret i32 0\n}\n";
        let (out, n) = hide_shifted_bit_tests(ir).unwrap();
        assert_eq!(n, 0, "{out}");
        assert_eq!(out, ir);
    }

    #[test]
    fn replaces_whole_tokens_only() {
        assert_eq!(
            replace_token("and i32 %s1, %s", "%s", "%b"),
            "and i32 %s1, %b"
        );
    }

    #[test]
    fn names_the_class_and_function_of_a_printer_crash() {
        let stderr = "Stack dump:\n1.\tRunning pass 'Function Pass Manager' on module 'x.ll'.\n2.\tRunning pass 'M68k Assembly Printer' on function '@_ZN4core3fmt5write17h'\n #3 0x00007f llvm::M68kInstPrinter::printImmediate(llvm::MCInst const*, unsigned int, llvm::raw_ostream&)\n";
        let m = crash_class(stderr).unwrap();
        assert!(m.contains("btst-register-as-immediate"), "{m}");
        assert!(m.contains("@_ZN4core3fmt5write17h"), "{m}");
        assert!(crash_class("error: something else").is_none());
    }
}
