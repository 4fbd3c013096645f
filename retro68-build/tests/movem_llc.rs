//! The MOVEM-collapse check (`retro68_build::movem`) against the pinned nightly's own `llc`:
//! `-run-pass=m68k-collapse-movem` merges runs of single-register spill MOVEMs, and for each run
//! below the test requires that the pass really produces the merged MOVEM the replay predicts,
//! that the replay reports the runs whose merged MOVEM moves a register to another slot (the
//! bug that gave seed 2 program 54 of `cargo xtask fuzz-codegen` a wrong `v0`), and that it
//! reports none of the runs the pass merges correctly. Ignored by default: it needs rustup's
//! `llvm-tools` for the pinned nightly, which `cargo xtask` installs.

use std::path::PathBuf;
use std::process::Command;

use retro68_build::movem::{BadMerge, bad_merges};
use retro68_build::stackidx::pinned_llvm_tool;

fn llc() -> PathBuf {
    pinned_llvm_tool("llc").unwrap()
}

/// A one-block function whose body is `movems` (MIR instructions) and `RTS`.
fn mir(movems: &[&str]) -> String {
    let mut s = String::from(
        "--- |\n  target datalayout = \"E-m:e-p:32:16:32-i8:8:8-i16:16:16-i32:16:32-n8:16:32-a:0:16-S16\"\n  \
         target triple = \"m68k\"\n  define void @f() { ret void }\n...\n---\nname: f\n\
         tracksRegLiveness: false\nbody: |\n  bb.0:\n",
    );
    for m in movems {
        s.push_str(&format!("    {m}\n"));
    }
    s.push_str("    RTS\n...\n");
    s
}

/// The MOVEMs the pinned `llc`'s collapse pass leaves of `movems`, as MIR text.
fn collapsed(llc: &PathBuf, movems: &[&str]) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("ferrite-movem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.mir");
    std::fs::write(&path, mir(movems)).unwrap();
    let out = Command::new(llc)
        .args(["-mcpu=M68000", "-run-pass=m68k-collapse-movem", "-o", "-"])
        .arg(&path)
        .output()
        .expect("llc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let body = text.split("bb.0:").nth(1).unwrap();
    body.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("MOVM32"))
        .map(|l| l.split(", implicit").next().unwrap().to_string())
        .collect()
}

/// `(run, what the pass makes of it, merged out of register order)`.
const RUNS: &[(&[&str], &[&str], bool)] = &[
    // Program 54's spills: d5 at 92, d7 appended at 96, d6 prepended at 88 (0x40 < 0xA0),
    // merged as d5-d7 at 88: d5 and d6 trade slots.
    (
        &[
            "MOVM32pm 92, $sp, 32, implicit $d5",
            "MOVM32pm 96, $sp, 128, implicit $d7",
            "MOVM32pm 88, $sp, 64, implicit $d6",
        ],
        &["MOVM32pm 88, $sp, 224"],
        true,
    ),
    // The same slots in register order: right.
    (
        &[
            "MOVM32pm 88, $sp, 32, implicit $d5",
            "MOVM32pm 92, $sp, 64, implicit $d6",
            "MOVM32pm 96, $sp, 128, implicit $d7",
        ],
        &["MOVM32pm 88, $sp, 224"],
        false,
    ),
    // Reloads, prepended in descending order: right.
    (
        &[
            "MOVM32mp 4, 8, $sp, implicit-def $d2",
            "MOVM32mp 2, 4, $sp, implicit-def $d1",
            "MOVM32mp 1, 0, $sp, implicit-def $d0",
        ],
        &["MOVM32mp 7, 0, $sp"],
        false,
    ),
    // Reloads: a0 from 8, then d3 from 4 and d7 from 0, both prepended (0x08 < 0x100,
    // 0x80 < 0x108): merged as d3/d7/a0 from 0, so d3 and d7 trade slots.
    (
        &[
            "MOVM32mp 256, 8, $sp, implicit-def $a0",
            "MOVM32mp 8, 4, $sp, implicit-def $d3",
            "MOVM32mp 128, 0, $sp, implicit-def $d7",
        ],
        &["MOVM32mp 392, 0, $sp"],
        true,
    ),
    // Not adjacent: nothing merged.
    (
        &[
            "MOVM32pm 0, $sp, 1, implicit $d0",
            "MOVM32pm 8, $sp, 2, implicit $d1",
        ],
        &["MOVM32pm 0, $sp, 1", "MOVM32pm 8, $sp, 2"],
        false,
    ),
];

/// The offset operand of `MOVM32pm OFF, $sp, MASK` or `MOVM32mp MASK, OFF, $sp`.
fn offset(movem: &str) -> i32 {
    let ops: Vec<&str> = movem.split_once(' ').unwrap().1.split(", ").collect();
    let i = if movem.starts_with("MOVM32pm") { 0 } else { 1 };
    ops[i].parse().unwrap()
}

#[test]
#[ignore = "needs the pinned nightly's llvm-tools (cargo xtask installs them)"]
fn replay_matches_llc_and_reports_wrong_merges() {
    let llc = llc();
    for (run, want, wrong) in RUNS {
        assert_eq!(&collapsed(&llc, run), want, "llc on {run:?}");
        let found: Vec<BadMerge> = bad_merges(&mir(run));
        assert_eq!(!found.is_empty(), *wrong, "{run:?}: {found:?}");
        for b in &found {
            assert_eq!(b.function, "f");
            // The merged MOVEM's offset is the one llc emits.
            assert_eq!(offset(want[0]), b.start, "{b}");
        }
    }
}
