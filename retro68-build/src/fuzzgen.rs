//! A random program generator for differential testing of the 68k code generator
//! (`cargo xtask fuzz-codegen`, `tests/codegen-fuzz`).
//!
//! Each program is a function from a seed-derived `u64` input to a `u64` checksum, aimed at
//! what the LLVM M68k backend gets wrong (`docs/codegen-conformance.md`): 8/16/32/64-bit
//! integer arithmetic with wrapping, checked, saturating and overflowing operations, shifts
//! and rotations, comparisons feeding branches and selects at joins, loops with early exits,
//! arrays and slices indexed by computed values, a small struct passed and returned by value,
//! calls with many arguments, 64-bit multiply, divide and remainder, flag-heavy boolean code
//! and `match` on integers; and, from a second stream ([`extras`]), `Option`/`Result` with `?`,
//! `match` on an enum with data, `&mut` to a stack struct across a call, and iterator chains.
//!
//! The programs are well defined on every target, so the host's checksum is the reference:
//! no `+ - *` that can overflow (wrapping, checked, saturating or overflowing forms only),
//! division through `checked_*` or by a divisor with its low bit set, indices reduced modulo
//! the length as `u32` (never `usize`, which differs in width), loops with constant bounds,
//! no floats, no pointers or `usize` in the checksum.
//!
//! A program's statements form a tree ([`Stmt`]); [`GenProgram::render`] can leave any of them
//! out (every variable is declared before the statements), which is how a mismatch is reduced.

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// SplitMix64: small, fast and fully determined by the seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u32) as usize]
    }
}

/// An integer type of the generated code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
}

const TYS: [Ty; 8] = [
    Ty::U8,
    Ty::I8,
    Ty::U16,
    Ty::I16,
    Ty::U32,
    Ty::I32,
    Ty::U64,
    Ty::I64,
];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::U8 => "u8",
            Ty::I8 => "i8",
            Ty::U16 => "u16",
            Ty::I16 => "i16",
            Ty::U32 => "u32",
            Ty::I32 => "i32",
            Ty::U64 => "u64",
            Ty::I64 => "i64",
        }
    }
    fn bits(self) -> u32 {
        match self {
            Ty::U8 | Ty::I8 => 8,
            Ty::U16 | Ty::I16 => 16,
            Ty::U32 | Ty::I32 => 32,
            Ty::U64 | Ty::I64 => 64,
        }
    }
    fn signed(self) -> bool {
        matches!(self, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64)
    }
    /// `v` (the low `bits` taken) as a literal of this type.
    fn lit(self, v: u64) -> String {
        let bits = self.bits();
        let v = if bits == 64 { v } else { v & ((1 << bits) - 1) };
        if !self.signed() {
            return format!("{v:#x}{}", self.name());
        }
        let s = ((v << (64 - bits)) as i64) >> (64 - bits);
        if s == i64::MIN >> (64 - bits) {
            format!("{}::MIN", self.name())
        } else if s < 0 {
            format!("(-{}{})", s.unsigned_abs(), self.name())
        } else {
            format!("{s}{}", self.name())
        }
    }
}

/// A statement of a generated program: a line, or a block whose parts can be left out.
#[derive(Debug, Clone)]
pub enum Stmt {
    Line(String),
    /// `head { body } tail` (`if c {`, `} else {`, loops: the head opens, the tail closes).
    Block {
        head: String,
        body: Vec<Stmt>,
        mid: Option<(String, Vec<Stmt>)>,
        tail: String,
    },
}

/// One generated program.
#[derive(Debug, Clone)]
pub struct GenProgram {
    pub name: String,
    pub input: u64,
    /// Items outside the function (the struct, the helpers).
    items: String,
    /// Declarations of every local (never left out).
    decls: Vec<String>,
    pub body: Vec<Stmt>,
    /// The checksum over every local.
    epilogue: String,
}

impl GenProgram {
    /// The number of statements (blocks and lines, nested ones included).
    pub fn statement_count(&self) -> usize {
        fn count(s: &[Stmt]) -> usize {
            s.iter()
                .map(|s| match s {
                    Stmt::Line(_) => 1,
                    Stmt::Block { body, mid, .. } => {
                        1 + count(body) + mid.as_ref().map_or(0, |(_, m)| count(m))
                    }
                })
                .sum()
        }
        count(&self.body)
    }

    /// The program's Rust source, without the statements numbered in `skip` (preorder).
    pub fn render(&self, skip: &BTreeSet<usize>) -> String {
        fn emit(s: &[Stmt], skip: &BTreeSet<usize>, n: &mut usize, ind: usize, out: &mut String) {
            for st in s {
                let id = *n;
                *n += 1;
                let gone = skip.contains(&id);
                match st {
                    Stmt::Line(l) => {
                        if !gone {
                            let _ = writeln!(out, "{:ind$}{l}", "");
                        }
                    }
                    Stmt::Block {
                        head,
                        body,
                        mid,
                        tail,
                    } => {
                        let mut inner = String::new();
                        emit(body, skip, n, ind + 4, &mut inner);
                        let mut mid_text = None;
                        if let Some((m, b)) = mid {
                            let mut t = String::new();
                            emit(b, skip, n, ind + 4, &mut t);
                            mid_text = Some((m, t));
                        }
                        if gone {
                            continue;
                        }
                        let _ = writeln!(out, "{:ind$}{head}", "");
                        out.push_str(&inner);
                        if let Some((m, t)) = mid_text {
                            let _ = writeln!(out, "{:ind$}{m}", "");
                            out.push_str(&t);
                        }
                        let _ = writeln!(out, "{:ind$}{tail}", "");
                    }
                }
            }
        }
        let mut out = self.items.clone();
        let _ = writeln!(
            out,
            "#[inline(never)]\npub fn {}(input: u64) -> u64 {{",
            self.name
        );
        for d in &self.decls {
            let _ = writeln!(out, "    {d}");
        }
        let mut n = 0;
        emit(&self.body, skip, &mut n, 4, &mut out);
        out.push_str(&self.epilogue);
        out.push_str("}\n");
        out
    }
}

/// The source of a batch for `tests/codegen-fuzz` (its `PROGRAMS` and their functions). Each
/// program is a module of its own, so variants of one program can share a batch.
pub fn batch_source(programs: &[(GenProgram, BTreeSet<usize>)]) -> String {
    let mut out = String::from(
        "// Generated by `cargo xtask fuzz-codegen` (retro68-build/src/fuzzgen.rs).\n",
    );
    out.push_str("pub static PROGRAMS: &[crate::Program] = &[\n");
    for (k, (p, _)) in programs.iter().enumerate() {
        let _ = writeln!(
            out,
            "    crate::Program {{ name: \"{0}\", input: {1:#x}, run: m{k}::{0} }},",
            p.name, p.input
        );
    }
    out.push_str("];\n\n");
    for (k, (p, skip)) in programs.iter().enumerate() {
        let _ = writeln!(out, "pub mod m{k} {{");
        out.push_str(&p.render(skip));
        out.push_str("}\n\n");
    }
    out
}

struct Helper {
    name: String,
    args: Vec<Ty>,
    ret: Ty,
}

struct Gen<'a> {
    rng: &'a mut Rng,
    /// Scalars in scope: name, type, writable.
    vars: Vec<(String, Ty, bool)>,
    bools: Vec<String>,
    arrays: Vec<(String, Ty, u32)>,
    /// The struct's name and fields (none inside helpers).
    strukt: Option<(String, Vec<(String, Ty)>)>,
    struct_vars: Vec<String>,
    struct_helper: Option<String>,
    helpers: Vec<Helper>,
    loop_depth: usize,
    loops: usize,
}

impl Gen<'_> {
    fn ty(&mut self) -> Ty {
        // 64-bit types a little more often: their multiply/divide are library calls.
        if self.rng.chance(15) {
            *self.rng.pick(&[Ty::U64, Ty::I64])
        } else {
            *self.rng.pick(&TYS)
        }
    }

    fn literal(&mut self, ty: Ty) -> String {
        let v = match self.rng.below(8) {
            0 => 0,
            1 => 1,
            2 => u64::MAX,
            3 => 1 << (ty.bits() - 1),
            4 => (1 << (ty.bits() - 1)) - 1,
            5 => u64::from(self.rng.below(16)),
            _ => self.rng.next_u64(),
        };
        ty.lit(v)
    }

    fn leaf(&mut self, ty: Ty) -> String {
        let same: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.1 == ty)
            .map(|v| v.0.clone())
            .collect();
        match self.rng.below(10) {
            0..=4 if !same.is_empty() => self.rng.pick(&same).clone(),
            5 | 6 if !self.vars.is_empty() => {
                let v = self.rng.pick(&self.vars).0.clone();
                format!("({v} as {})", ty.name())
            }
            7 if !self.arrays.is_empty() => {
                let (a, aty, len) = self.rng.pick(&self.arrays).clone();
                let i = self.index(len);
                let e = format!("{a}[{i}]");
                if aty == ty {
                    e
                } else {
                    format!("({e} as {})", ty.name())
                }
            }
            8 if !self.struct_vars.is_empty() => {
                let s = self.rng.pick(&self.struct_vars).clone();
                let (_, fields) = self.strukt.clone().expect("struct");
                let (f, fty) = self.rng.pick(&fields).clone();
                if fty == ty {
                    format!("{s}.{f}")
                } else {
                    format!("({s}.{f} as {})", ty.name())
                }
            }
            _ => self.literal(ty),
        }
    }

    /// An index expression in `0..len`.
    fn index(&mut self, len: u32) -> String {
        let t = self.ty();
        let e = self.expr(t, 1);
        format!("(({e}) as u32 % {len}) as usize")
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if depth == 0 || self.rng.chance(20) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        let t = ty.name();
        match self.rng.below(17) {
            0 => {
                let op = self
                    .rng
                    .pick(&["wrapping_add", "wrapping_sub", "wrapping_mul"]);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{a}.{op}({b})")
            }
            1 => {
                let op = self.rng.pick(&["^", "&", "|"]);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("({a} {op} {b})")
            }
            2 => {
                let op = self.rng.pick(&[
                    "wrapping_shl",
                    "wrapping_shr",
                    "rotate_left",
                    "rotate_right",
                ]);
                let a = self.expr(ty, d);
                let st = self.ty();
                let s = self.expr(st, d);
                format!("{a}.{op}(({s}) as u32)")
            }
            3 => {
                let op = self.rng.pick(&[
                    "checked_add",
                    "checked_sub",
                    "checked_mul",
                    "checked_div",
                    "checked_rem",
                    "checked_div_euclid",
                    "checked_rem_euclid",
                ]);
                let (a, b, c) = (self.expr(ty, d), self.expr(ty, d), self.expr(ty, d));
                format!("{a}.{op}({b}).unwrap_or({c})")
            }
            4 => {
                let op = self
                    .rng
                    .pick(&["saturating_add", "saturating_sub", "saturating_mul"]);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{a}.{op}({b})")
            }
            5 => {
                let op = self
                    .rng
                    .pick(&["overflowing_add", "overflowing_sub", "overflowing_mul"]);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{a}.{op}({b}).0")
            }
            6 => {
                let from = self.ty();
                let e = self.expr(from, d);
                format!("(({e}) as {t})")
            }
            7 => {
                let c = self.bexpr(d);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("(if {c} {{ {a} }} else {{ {b} }})")
            }
            8 => self.match_expr(ty, d),
            9 => {
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                match self.rng.below(3) {
                    0 => format!("{a}.min({b})"),
                    1 => format!("{a}.max({b})"),
                    _ => format!("({a}.abs_diff({b}) as {t})"),
                }
            }
            10 => {
                let a = self.expr(ty, d);
                match self.rng.below(8) {
                    0 => format!("(!{a})"),
                    1 => format!("{a}.wrapping_neg()"),
                    2 => format!("({a}.count_ones() as {t})"),
                    3 => format!("({a}.leading_zeros() as {t})"),
                    4 => format!("({a}.trailing_zeros() as {t})"),
                    5 => format!("{a}.swap_bytes()"),
                    6 => format!("{a}.reverse_bits()"),
                    _ if ty.signed() => format!("{a}.wrapping_abs()"),
                    _ => format!("{a}.wrapping_shr(1)"),
                }
            }
            11 if !self.helpers.is_empty() => {
                let k = self.rng.below(self.helpers.len() as u32) as usize;
                let (name, args, ret) = {
                    let h = &self.helpers[k];
                    (h.name.clone(), h.args.clone(), h.ret)
                };
                let a: Vec<String> = args.iter().map(|&at| self.expr(at, d.min(1))).collect();
                let call = format!("{name}({})", a.join(", "));
                if ret == ty {
                    call
                } else {
                    format!("({call} as {t})")
                }
            }
            12 => {
                let op = self.rng.pick(&["wrapping_div", "wrapping_rem"]);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{a}.{op}({b} | 1)")
            }
            13 => {
                let c = self.bexpr(d);
                format!("({c} as {t})")
            }
            14 if !self.arrays.is_empty() => {
                let (a, aty, len) = self.rng.pick(&self.arrays).clone();
                let at = aty.name();
                let i = self.expr(Ty::U32, d);
                match self.rng.below(3) {
                    0 => format!(
                        "({a}[..((({i}) % {}) as usize)].iter().fold(0u32, |s, &x| s.rotate_left(3) ^ (x as u32)) as {t})",
                        len + 1
                    ),
                    1 => {
                        let v = self.expr(aty, d);
                        format!(
                            "({a}.iter().position(|&x| x == {v}).map_or({len}u32, |p| p as u32) as {t})"
                        )
                    }
                    _ => format!(
                        "({a}[(({i}) % {len}) as usize..].iter().copied().fold(0 as {at}, |s, x| s.wrapping_add(x)) as {t})"
                    ),
                }
            }
            15 if ty.bits() == 64 => {
                // 64-bit multiply, divide and remainder: library calls on the 68k.
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                let op = self
                    .rng
                    .pick(&["wrapping_mul", "wrapping_div", "wrapping_rem"]);
                if *op == "wrapping_mul" {
                    format!("{a}.{op}({b})")
                } else {
                    format!("{a}.{op}({b} | 1)")
                }
            }
            _ => {
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{a}.wrapping_add({b})")
            }
        }
    }

    fn match_expr(&mut self, ty: Ty, d: u32) -> String {
        let st = self.ty();
        let s = self.expr(st, d);
        let arms: Vec<String> = (0..4).map(|_| self.expr(ty, d)).collect();
        if st.signed() && self.rng.chance(50) {
            let (x, y) = (self.rng.next_u64(), self.rng.next_u64());
            let shift = 64 - st.bits();
            let (x, y) = (
                ((x << shift) as i64) >> shift,
                ((y << shift) as i64) >> shift,
            );
            let (lo, hi) = (x.min(y), x.max(y));
            if lo == hi || lo == i64::MIN >> shift {
                return format!(
                    "(match ({s}) as u8 % 4 {{ 0 => {}, 1 => {}, 2 => {}, _ => {} }})",
                    arms[0], arms[1], arms[2], arms[3]
                );
            }
            let n = st.name();
            format!(
                "(match {s} {{ ..={lo}{n} => {}, {}{n}..={hi}{n} => {}, _ => {} }})",
                arms[0],
                lo + 1,
                arms[1],
                arms[2]
            )
        } else {
            format!(
                "(match ({s}) as u8 % 8 {{ 0 => {}, 1 | 2 => {}, 3..=5 => {}, _ => {} }})",
                arms[0], arms[1], arms[2], arms[3]
            )
        }
    }

    fn bexpr(&mut self, depth: u32) -> String {
        let d = depth.saturating_sub(1);
        let choice = if depth == 0 {
            self.rng.below(3)
        } else {
            self.rng.below(9)
        };
        match choice {
            0 if !self.bools.is_empty() => self.rng.pick(&self.bools).clone(),
            0 | 1 => {
                let ty = self.ty();
                let (a, b) = (self.leaf(ty), self.leaf(ty));
                let op = self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                format!("({a} {op} {b})")
            }
            2 => {
                let ty = self.ty();
                let a = self.leaf(ty);
                format!("({a} & 1 == 1)")
            }
            3 | 4 => {
                let ty = self.ty();
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                let op = self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                format!("({a} {op} {b})")
            }
            5 => {
                let (a, b) = (self.bexpr(d), self.bexpr(d));
                let op = self.rng.pick(&["&&", "||", "^", "!=", "&"]);
                format!("({a} {op} {b})")
            }
            6 => {
                let a = self.bexpr(d);
                format!("(!{a})")
            }
            7 => {
                let ty = self.ty();
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                let op = self
                    .rng
                    .pick(&["overflowing_add", "overflowing_sub", "overflowing_mul"]);
                format!("{a}.{op}({b}).1")
            }
            _ => {
                let ty = self.ty();
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                let op =
                    self.rng
                        .pick(&["checked_add", "checked_sub", "checked_mul", "checked_div"]);
                format!("{a}.{op}({b}).is_none()")
            }
        }
    }

    fn stmts(&mut self, n: u32, depth: u32) -> Vec<Stmt> {
        (0..n).map(|_| self.stmt(depth)).collect()
    }

    fn writable(&self) -> Vec<(String, Ty)> {
        self.vars
            .iter()
            .filter(|v| v.2)
            .map(|v| (v.0.clone(), v.1))
            .collect()
    }

    fn stmt(&mut self, depth: u32) -> Stmt {
        let w = self.writable();
        match self.rng.below(14) {
            0..=3 if !w.is_empty() => {
                let (v, ty) = self.rng.pick(&w).clone();
                let e = self.expr(ty, 3);
                if self.rng.chance(40) {
                    let op = self
                        .rng
                        .pick(&["wrapping_add", "wrapping_sub", "wrapping_mul"]);
                    Stmt::Line(format!("{v} = {v}.{op}({e});"))
                } else {
                    Stmt::Line(format!("{v} = {e};"))
                }
            }
            4 if !self.bools.is_empty() => {
                let b = self.rng.pick(&self.bools).clone();
                let e = self.bexpr(2);
                Stmt::Line(format!("{b} = {e};"))
            }
            5 | 6 if !self.arrays.is_empty() => {
                let (a, ty, len) = self.rng.pick(&self.arrays).clone();
                let i = self.index(len);
                let e = self.expr(ty, 2);
                Stmt::Line(format!("{a}[{i}] = {e};"))
            }
            7 if !self.struct_vars.is_empty() => {
                let s = self.rng.pick(&self.struct_vars).clone();
                let (_, fields) = self.strukt.clone().expect("struct");
                if let Some(h) = self.struct_helper.clone().filter(|_| self.rng.chance(60)) {
                    let x = self.expr(Ty::U32, 2);
                    let other = self.rng.pick(&self.struct_vars).clone();
                    Stmt::Line(format!("{s} = {h}({other}, {x});"))
                } else {
                    let (f, fty) = self.rng.pick(&fields).clone();
                    let e = self.expr(fty, 2);
                    Stmt::Line(format!("{s}.{f} = {e};"))
                }
            }
            8 | 9 if depth < 2 => {
                let c = self.bexpr(2);
                let n = 1 + self.rng.below(3);
                let body = self.stmts(n, depth + 1);
                let mid = if self.rng.chance(60) {
                    let n = 1 + self.rng.below(3);
                    Some(("} else {".to_string(), self.stmts(n, depth + 1)))
                } else {
                    None
                };
                Stmt::Block {
                    head: format!("if {c} {{"),
                    body,
                    mid,
                    tail: "}".into(),
                }
            }
            10 | 11 if depth < 2 && self.loop_depth < 2 => self.loop_stmt(depth),
            12 if depth == 0 && !w.is_empty() => {
                let c = self.bexpr(2);
                let (v, _) = self.rng.pick(&w).clone();
                Stmt::Line(format!(
                    "if {c} {{ return (input ^ ({v} as u64)).rotate_left(7); }}"
                ))
            }
            _ if !w.is_empty() => {
                let (v, ty) = self.rng.pick(&w).clone();
                let e = self.expr(ty, 2);
                Stmt::Line(format!("{v} ^= {e};"))
            }
            _ => Stmt::Line(";".into()),
        }
    }

    fn loop_stmt(&mut self, depth: u32) -> Stmt {
        let k = format!("i{}", self.loops);
        self.loops += 1;
        let bound = 1 + self.rng.below(12);
        self.loop_depth += 1;
        self.vars.push((k.clone(), Ty::U32, false));
        let n = 1 + self.rng.below(4);
        let mut body = self.stmts(n, depth + 1);
        if self.rng.chance(60) {
            let c = self.bexpr(2);
            let what = if self.rng.chance(70) {
                "break"
            } else {
                "continue"
            };
            let at = self.rng.below(body.len() as u32 + 1) as usize;
            body.insert(at, Stmt::Line(format!("if {c} {{ {what}; }}")));
        }
        self.vars.pop();
        self.loop_depth -= 1;
        if self.rng.chance(50) {
            Stmt::Block {
                head: format!("for {k} in 0..{bound}u32 {{"),
                body,
                mid: None,
                tail: "}".into(),
            }
        } else {
            // The counter steps first, so a `continue` cannot skip it, and in the head, so the
            // reducer (which leaves statements out) cannot make the loop endless.
            Stmt::Block {
                head: format!("{{ let mut {k}: u32 = 0; while {k} < {bound} {{ {k} += 1;"),
                body,
                mid: None,
                tail: "} }".into(),
            }
        }
    }
}

/// Generate program `index` of the campaign with seed `seed`.
pub fn generate(seed: u64, index: u32) -> GenProgram {
    let mut rng = Rng::new(seed ^ u64::from(index).wrapping_mul(0xA076_1D64_78BD_642F));
    let name = format!("p{index}");
    let input = rng.next_u64();
    let mut items = String::new();

    // The struct, passed and returned by value.
    let sname = format!("S{index}");
    let nfields = 2 + rng.below(3);
    let fields: Vec<(String, Ty)> = (0..nfields)
        .map(|i| (format!("f{i}"), *rng.pick(&TYS)))
        .collect();
    let _ = writeln!(
        items,
        "#[derive(Clone, Copy)]\npub struct {sname} {{ {} }}",
        fields
            .iter()
            .map(|(f, t)| format!("{f}: {}", t.name()))
            .collect::<Vec<_>>()
            .join(", ")
    );

    let mut g = Gen {
        rng: &mut rng,
        vars: Vec::new(),
        bools: Vec::new(),
        arrays: Vec::new(),
        strukt: Some((sname.clone(), fields.clone())),
        struct_vars: Vec::new(),
        struct_helper: None,
        helpers: Vec::new(),
        loop_depth: 0,
        loops: 0,
    };

    // Helpers with many arguments.
    for h in 0..1 + g.rng.below(3) {
        let nargs = 3 + g.rng.below(8);
        let args: Vec<Ty> = (0..nargs).map(|_| g.ty()).collect();
        let ret = g.ty();
        g.vars = args
            .iter()
            .enumerate()
            .map(|(i, &t)| (format!("a{i}"), t, false))
            .collect();
        let (saved_struct, saved_helpers) = (g.strukt.take(), std::mem::take(&mut g.helpers));
        let e1 = g.expr(ret, 3);
        let c = g.bexpr(2);
        let e2 = g.expr(ret, 3);
        g.strukt = saved_struct;
        g.helpers = saved_helpers;
        let hname = format!("{name}_h{h}");
        let params: Vec<String> = args
            .iter()
            .enumerate()
            .map(|(i, t)| format!("a{i}: {}", t.name()))
            .collect();
        let _ = writeln!(
            items,
            "#[inline(never)]\nfn {hname}({}) -> {} {{\n    let r = {e1};\n    if {c} {{ r }} else {{ r ^ {e2} }}\n}}",
            params.join(", "),
            ret.name()
        );
        g.helpers.push(Helper {
            name: hname,
            args,
            ret,
        });
    }
    // The struct helper: takes the struct by value, returns a new one.
    {
        g.vars = fields
            .iter()
            .map(|(f, t)| (format!("s.{f}"), *t, false))
            .chain(std::iter::once(("x".to_string(), Ty::U32, false)))
            .collect();
        let (saved_struct, saved_helpers) = (g.strukt.take(), std::mem::take(&mut g.helpers));
        let inits: Vec<String> = fields
            .iter()
            .map(|(f, t)| format!("{f}: {}", g.expr(*t, 2)))
            .collect();
        g.strukt = saved_struct;
        g.helpers = saved_helpers;
        let hname = format!("{name}_hs");
        let _ = writeln!(
            items,
            "#[inline(never)]\nfn {hname}(s: {sname}, x: u32) -> {sname} {{\n    {sname} {{ {} }}\n}}",
            inits.join(", ")
        );
        g.struct_helper = Some(hname);
    }

    // Locals, all derived from the input.
    g.vars.clear();
    let mut decls = Vec::new();
    for i in 0..4 + g.rng.below(5) {
        let ty = g.ty();
        let sh = g.rng.below(64);
        decls.push(format!(
            "let mut v{i}: {} = (input.rotate_left({sh}) ^ {:#x}) as {};",
            ty.name(),
            g.rng.next_u64(),
            ty.name()
        ));
        g.vars.push((format!("v{i}"), ty, true));
    }
    for i in 0..1 + g.rng.below(3) {
        let sh = g.rng.below(64);
        decls.push(format!("let mut b{i}: bool = (input >> {sh}) & 1 == 1;"));
        g.bools.push(format!("b{i}"));
    }
    for i in 0..1 + g.rng.below(2) {
        let ty = g.ty();
        let len = 2 + g.rng.below(9);
        let elems: Vec<String> = (0..len)
            .map(|k| {
                if g.rng.chance(50) {
                    format!("(input >> {}) as {}", k * 5 % 64, ty.name())
                } else {
                    g.literal(ty)
                }
            })
            .collect();
        decls.push(format!(
            "let mut r{i}: [{}; {len}] = [{}];",
            ty.name(),
            elems.join(", ")
        ));
        g.arrays.push((format!("r{i}"), ty, len));
    }
    for i in 0..1 + g.rng.below(2) {
        let inits: Vec<String> = fields
            .iter()
            .map(|(f, t)| format!("{f}: (input >> {}) as {}", 3 + 7 * i, t.name()))
            .collect();
        decls.push(format!(
            "let mut s{i} = {sname} {{ {} }};",
            inits.join(", ")
        ));
        g.struct_vars.push(format!("s{i}"));
    }

    let n = 8 + g.rng.below(16);
    let mut body = g.stmts(n, 0);

    // Constructs the driver and Ferrite Setup use that the statements above cannot make:
    // `Option`/`Result` with `?`, `match` on an enum with data, `&mut` to a stack struct
    // across a call, iterator chains. Drawn from a second generator, so the statements above
    // are the ones this seed and index always made; a few lines are inserted among them.
    let mut rng2 = Rng::new(seed ^ u64::from(index).wrapping_mul(0xE703_7ED1_A0B4_28DB) ^ 0x5EED);
    extras(
        &mut rng2,
        &name,
        &sname,
        &fields,
        &g.vars,
        &g.arrays,
        &g.struct_vars,
        &mut items,
        &mut body,
    );

    // The checksum: FNV-1a style over every local.
    let mut epi = String::from("    let mut ck: u64 = 0xcbf2_9ce4_8422_2325;\n");
    let mut mix = |e: String| {
        let _ = writeln!(epi, "    ck = (ck ^ ({e})).wrapping_mul(0x100_0000_01b3);");
    };
    for (v, _, _) in &g.vars {
        mix(format!("{v} as u64"));
    }
    for b in &g.bools {
        mix(format!("{b} as u64"));
    }
    for (a, _, _) in &g.arrays {
        mix(format!(
            "{a}.iter().fold(0u64, |s, &x| s.rotate_left(9) ^ (x as u64))"
        ));
    }
    for s in &g.struct_vars {
        for (f, _) in &fields {
            mix(format!("{s}.{f} as u64"));
        }
    }
    epi.push_str("    ck\n");

    GenProgram {
        name,
        input,
        items,
        decls,
        body,
        epilogue: epi,
    }
}

/// The helpers of [`extras`] (items) and 2 to 4 statements using them, inserted at random
/// top-level positions of `body`.
#[allow(clippy::too_many_arguments)]
fn extras(
    rng: &mut Rng,
    name: &str,
    sname: &str,
    fields: &[(String, Ty)],
    vars: &[(String, Ty, bool)],
    arrays: &[(String, Ty, u32)],
    struct_vars: &[String],
    items: &mut String,
    body: &mut Vec<Stmt>,
) {
    let k = |rng: &mut Rng| rng.next_u64() as u32;
    // `Option` with `?`: three checked steps, any of which may give up.
    let _ = writeln!(
        items,
        "#[inline(never)]\nfn {name}_hq(a: u32, b: u32) -> Option<u32> {{\n    let x = a.checked_add(b)?;\n    let y = x.checked_mul((b & {}) | 1)?;\n    let z = y.checked_sub(a >> {})?;\n    Some(z ^ {:#x})\n}}",
        1 + rng.below(15),
        rng.below(32),
        k(rng)
    );
    // `Result` with `?` and `map_err`.
    let _ = writeln!(
        items,
        "#[inline(never)]\nfn {name}_hr(a: u64, b: u64) -> Result<u64, u8> {{\n    let q = a.checked_div(b >> {}).ok_or(1u8)?;\n    let r = u32::try_from(q).map_err(|_| 2u8)?;\n    Ok(u64::from(r) + 1)\n}}",
        rng.below(64)
    );
    // An enum with data, made and matched by two helpers.
    let _ = writeln!(
        items,
        "#[derive(Clone, Copy)]\npub enum E{name} {{ A(u32), B(u16, i8), C }}\n#[inline(never)]\nfn {name}_he(x: u32, y: u16) -> E{name} {{\n    match x % 3 {{ 0 => E{name}::A(x ^ {:#x}), 1 => E{name}::B(y, x as i8), _ => E{name}::C }}\n}}\n#[inline(never)]\nfn {name}_hm(e: E{name}) -> u32 {{\n    match e {{ E{name}::A(v) => v.rotate_left({}), E{name}::B(a, b) => (a as u32).wrapping_mul({:#x}) ^ (b as i32 as u32), E{name}::C => {:#x} }}\n}}",
        k(rng),
        rng.below(32),
        k(rng),
        k(rng)
    );
    // `&mut` to a stack struct across a call.
    let updates: Vec<String> = fields
        .iter()
        .map(|(f, t)| {
            format!(
                "s.{f} = s.{f}.wrapping_add(x as {}).rotate_left({});",
                t.name(),
                rng.below(t.bits())
            )
        })
        .collect();
    let (f0, t0) = &fields[0];
    let _ = writeln!(
        items,
        "#[inline(never)]\nfn {name}_hmut(s: &mut {sname}, x: u32) {{\n    {}\n    if x & 1 == 1 {{ s.{f0} = s.{f0}.wrapping_sub(1 as {}); }}\n}}",
        updates.join("\n    "),
        t0.name()
    );

    let writable: Vec<&(String, Ty, bool)> = vars.iter().filter(|v| v.2).collect();
    if writable.is_empty() {
        return;
    }
    // A `u32`/`u64`/`u16` view of a local, for the helpers' arguments.
    let arg = |rng: &mut Rng, ty: &str| {
        let v = &rng.pick(&writable).0;
        format!("({v} as {ty})")
    };
    for _ in 0..2 + rng.below(3) {
        let (v, ty, _) = (*rng.pick(&writable)).clone();
        let t = ty.name();
        let line = match rng.below(6) {
            0 => {
                let (a, b) = (arg(rng, "u32"), arg(rng, "u32"));
                format!(
                    "{v} ^= ({name}_hq({a}, {b}).unwrap_or({:#x}) as {t});",
                    k(rng)
                )
            }
            1 => {
                let (a, b) = (arg(rng, "u64"), arg(rng, "u64"));
                format!(
                    "{v} = {v}.wrapping_add((match {name}_hr({a}, {b}) {{ Ok(x) => x, Err(e) => (e as u64).wrapping_mul({:#x}) }}) as {t});",
                    rng.next_u64()
                )
            }
            2 if !struct_vars.is_empty() => {
                let s = rng.pick(struct_vars).clone();
                let x = arg(rng, "u32");
                format!("{name}_hmut(&mut {s}, {x});")
            }
            3 | 4 if !arrays.is_empty() => {
                let (a, _, _) = rng.pick(arrays).clone();
                if rng.chance(50) {
                    format!(
                        "{v} = {v}.wrapping_add(({a}.iter().zip({a}.iter().skip(1)).map(|(&x, &y)| (x as u64) ^ (y as u64).rotate_left({})).filter(|x| x & 3 != 0).fold(0u64, |s, x| s.wrapping_add(x))) as {t});",
                        rng.below(64)
                    )
                } else {
                    format!(
                        // Forward only: `rev()` over a stack array meets the open loop-pointer
                        // class (docs/codegen-conformance.md) on most programs; it would hide
                        // everything else until it is repaired.
                        "{v} ^= ({a}.iter().take_while(|&&x| (x as u64) & {} != 0).count() as {t});",
                        1 + rng.below(15)
                    )
                }
            }
            _ => {
                let (x, y) = (arg(rng, "u32"), arg(rng, "u16"));
                format!("{v} ^= ({name}_hm({name}_he({x}, {y})) as {t});")
            }
        };
        let at = rng.below(body.len() as u32 + 1) as usize;
        body.insert(at, Stmt::Line(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_have_their_type() {
        assert_eq!(Ty::I8.lit(0x80), "i8::MIN");
        assert_eq!(Ty::I8.lit(0xff), "(-1i8)");
        assert_eq!(Ty::U16.lit(0x1_0005), "0x5u16");
        assert_eq!(Ty::I64.lit(5), "5i64");
    }

    #[test]
    fn generation_is_determined_by_the_seed() {
        let a = generate(7, 3).render(&BTreeSet::new());
        let b = generate(7, 3).render(&BTreeSet::new());
        let c = generate(8, 3).render(&BTreeSet::new());
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn leaving_statements_out_shortens_the_program() {
        let p = generate(1, 0);
        let all = p.render(&BTreeSet::new());
        let fewer = p.render(&(0..p.statement_count()).collect());
        assert!(fewer.len() < all.len());
        assert!(fewer.contains("let mut ck"));
    }

    /// Every construct of `extras` shows up in a few dozen programs, and the extra lines can
    /// be left out like any other statement.
    #[test]
    fn programs_use_option_result_enums_mut_refs_and_iterators() {
        let all: String = (0..40)
            .map(|i| generate(5, i).render(&BTreeSet::new()))
            .collect();
        for construct in [
            "_hq(",
            "-> Option<u32>",
            "?;",
            "-> Result<u64, u8>",
            "Err(e) =>",
            "pub enum E",
            "_hm(",
            "_hmut(&mut s",
            ".zip(",
            ".take_while(",
        ] {
            assert!(all.contains(construct), "no `{construct}` in 40 programs");
        }
        let p = generate(5, 1);
        let bare = p.render(&(0..p.statement_count()).collect());
        assert!(!bare.lines().any(|l| l.trim_start().starts_with("p1_hmut(")));
    }

    /// The reducer leaves out any statement it likes: whatever it leaves out, every `while`
    /// loop still steps its counter (no reduced variant runs forever on the host).
    #[test]
    fn no_statement_left_out_makes_a_loop_endless() {
        let mut whiles = 0;
        for index in 0..200 {
            let p = generate(2, index);
            let bare = p.render(&(0..p.statement_count()).collect());
            let all = p.render(&BTreeSet::new());
            for text in [bare, all] {
                for line in text.lines().filter(|l| l.contains("while ")) {
                    whiles += 1;
                    let counter = line
                        .split("let mut ")
                        .nth(1)
                        .and_then(|r| r.split(':').next());
                    let counter = counter.expect("a while loop declares its counter");
                    assert!(
                        line.contains(&format!("{{ {counter} += 1;")),
                        "program {index}: {line}"
                    );
                }
            }
        }
        assert!(
            whiles > 0,
            "no while loop generated: the test checks nothing"
        );
    }
}
