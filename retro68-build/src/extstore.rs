//! Work-around for memory-to-memory moves of an extending load: the M68k backend stores a
//! narrow load widened with `zext`/`sext` by copying the wider size from the load's address.
//!
//! `store i32 (zext i16 (load i16 %p)), %q` in one basic block becomes one DAG node pair
//! `(store (i32 (zextloadi16 %p)), %q)` after the DAG combiner folds the extension into the load,
//! and the M68k memory-to-memory MOVE patterns (`MxMove_MM_Safe` in `M68kInstrData.td`, with the
//! fragments `Mxstoreloadi{8,16,32}_safe` of `M68kInstrInfo.td`: `(store (iN (unindexedload
//! $src)), $dst)` guarded only by `isSafeStoreLoad`) match it regardless of the load's
//! extension type: `move.l (%p),(%q)`. That copies the two bytes at `%p` and the two after
//! them; on the big-endian 68k the 16-bit value ends up in the upper half. The same happens for
//! `sext`, for `i8` loads (`move.l`/`move.w` from a byte address: a wrong value, an address
//! error at an odd address on the 68000), and for the loads the combiner narrows itself
//! (`and (load i32), 65535` or `lshr (load i32), 16` become a `zextloadi16`). In `alloc`'s
//! `BTreeMap::range` (`find_upper_bound_index` returning `(self.len(), AllIncluded)`) the
//! index became `len << 16 | parent_idx`.
//!
//! This rewrite puts a `freeze` between such a value and its store: `freeze` is a no-op on a
//! value that is not poison, but the DAG keeps it as a node, so the store no longer sees a load
//! and the value goes through a data register (`move.w (%p),%d0 ; and.l #65535,%d0 ; move.l
//! %d0,(%q)`). It applies to a `store` of an integer of 16 bits or more whose value is a `zext`,
//! `sext`, `and`, `lshr` or `ashr` of the same basic block that reaches (through those and
//! `trunc`) a `load` of the same block: the DAG is built per block, so only then can the
//! combiner make the extending load the store's direct operand.

use anyhow::Result;

const PREFIX: &str = "%__ferrite_xs";

/// A name prefix not used in `ll`: `%__ferrite_xs`, with `_` appended until it is new.
fn prefix(ll: &str) -> String {
    let mut p = PREFIX.to_string();
    while ll.contains(&p) {
        p.push('_');
    }
    p
}

/// An instruction of the current block: its opcode and its value operands.
struct Def {
    op: String,
    args: Vec<String>,
}

/// Parse `%x = OP …` into `(x, Def)` for the opcodes the rewrite follows.
fn parse_def(t: &str) -> Option<(String, Def)> {
    let (dst, rhs) = t.split_once(" = ")?;
    if !dst.starts_with('%') {
        return None;
    }
    let mut w = rhs
        .split_whitespace()
        .filter(|x| !matches!(*x, "nuw" | "nsw" | "exact" | "nneg" | "disjoint"));
    let op = w.next()?;
    let rest: Vec<&str> = w.collect();
    let args = match op {
        "load" => Vec::new(),
        // zext/sext/trunc TY %v to TY2
        "zext" | "sext" | "trunc" => vec![rest.get(1)?.to_string()],
        // and/lshr/ashr TY %a, %b
        "and" | "lshr" | "ashr" => {
            vec![
                rest.get(1)?.trim_end_matches(',').to_string(),
                rest.get(2)?.trim_end_matches(',').to_string(),
            ]
        }
        _ => return None,
    };
    Some((
        dst.to_string(),
        Def {
            op: op.to_string(),
            args,
        },
    ))
}

/// Does `v` reach a `load` of the current block through the followed opcodes?
fn reaches_load(defs: &std::collections::HashMap<String, Def>, v: &str, depth: usize) -> bool {
    let Some(d) = defs.get(v) else { return false };
    if d.op == "load" {
        return true;
    }
    depth < 8 && d.args.iter().any(|a| reaches_load(defs, a, depth + 1))
}

/// Is the type token an integer of 16 bits or more?
fn wide_int(ty: &str) -> bool {
    ty.strip_prefix('i')
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| n >= 16)
}

/// Insert a `freeze` before each store of an extended load (module docs). Returns the rewritten
/// IR and the number of stores changed.
pub fn freeze_ext_stores(ll: &str) -> Result<(String, usize)> {
    let mut out = String::with_capacity(ll.len() + ll.len() / 32);
    let mut defs: std::collections::HashMap<String, Def> = Default::default();
    let base = prefix(ll);
    let mut count = 0usize;
    for line in ll.lines() {
        let t = line.trim_start();
        let indented = line.len() != t.len();
        if !indented {
            // A label, `define`, `}` or a global: a new block (or none).
            defs.clear();
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if let Some((dst, d)) = parse_def(t) {
            defs.insert(dst, d);
        }
        // store [volatile] TY VAL, ptr …
        let store = t
            .strip_prefix("store ")
            .map(|r| r.strip_prefix("volatile ").unwrap_or(r));
        let hit = store.and_then(|r| {
            let mut w = r.splitn(3, ' ');
            let ty = w.next()?;
            let val = w.next()?.strip_suffix(',')?;
            let d = defs.get(val)?;
            (wide_int(ty)
                && matches!(d.op.as_str(), "zext" | "sext" | "and" | "lshr" | "ashr")
                && reaches_load(&defs, val, 0))
            .then(|| (ty.to_string(), val.to_string()))
        });
        match hit {
            Some((ty, val)) => {
                count += 1;
                let p = format!("{base}{count}");
                let indent = &line[..line.len() - t.len()];
                out.push_str(&format!("{indent}{p} = freeze {ty} {val}\n"));
                let from = format!("{ty} {val},");
                out.push_str(&line.replacen(&from, &format!("{ty} {p},"), 1));
                out.push('\n');
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
    fn zext_of_a_load_is_frozen() {
        let ir = "define void @f(ptr %o, ptr %n) {\nstart:\n  %0 = getelementptr inbounds nuw i8, ptr %n, i32 50\n  %_3 = load i16, ptr %0, align 2, !noundef !4\n  %1 = zext i16 %_3 to i32\n  store i32 %1, ptr %o, align 2\n  ret void\n}\n";
        let (out, n) = freeze_ext_stores(ir).unwrap();
        assert_eq!(n, 1);
        assert!(
            out.contains(
                "  %__ferrite_xs1 = freeze i32 %1\n  store i32 %__ferrite_xs1, ptr %o, align 2\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn narrowed_loads_and_sext_are_frozen() {
        let ir = "define void @f(ptr %o, ptr %n) {\nstart:\n  %a = load i32, ptr %n, align 2\n  %b = and i32 %a, 65535\n  store i32 %b, ptr %o, align 2\n  %c = lshr exact i32 %a, 16\n  store volatile i32 %c, ptr %o, align 2\n  %d = load i8, ptr %n, align 1\n  %e = sext i8 %d to i16\n  store i16 %e, ptr %o, align 2\n  %t = trunc nuw i32 %a to i16\n  %z = zext i16 %t to i64\n  store i64 %z, ptr %o, align 2\n  ret void\n}\n";
        let (out, n) = freeze_ext_stores(ir).unwrap();
        assert_eq!(n, 4, "{out}");
        assert!(
            out.contains("store volatile i32 %__ferrite_xs2, ptr %o"),
            "{out}"
        );
        assert!(out.contains("%__ferrite_xs4 = freeze i64 %z\n"), "{out}");
    }

    #[test]
    fn other_stores_are_left_alone() {
        // A load from another block, a register value, a byte store, a plain copy.
        let ir = "define void @f(ptr %o, ptr %n, i16 %r) {\nstart:\n  %a = load i16, ptr %n, align 2\n  %x = zext i16 %r to i32\n  store i32 %x, ptr %o, align 2\n  br label %bb1\n\nbb1:                                              ; preds = %start\n  %b = zext i16 %a to i32\n  store i32 %b, ptr %o, align 2\n  %c = load i16, ptr %n, align 2\n  %d = zext i16 %c to i32\n  %e = trunc i32 %d to i8\n  store i8 %e, ptr %o, align 1\n  %f = load i32, ptr %n, align 2\n  store i32 %f, ptr %o, align 2\n  ret void\n}\n";
        let (out, n) = freeze_ext_stores(ir).unwrap();
        assert_eq!(n, 0, "{out}");
        assert_eq!(out, ir);
    }
}
