//! `repair_68000`: `move.w %sr,%dN` and `mulu.l`/`muls.l` replaced by 68000
//! code, checked by decoding hand-assembled samples and by running a test
//! program (assembled with GNU as, linked with `stub/mul32.S`) under
//! `qemu-m68k -cpu m68000` and `-cpu m68040` (installed by `cargo xtask test`).

use std::path::{Path, PathBuf};
use std::process::Command;

use retro68_build::m68k::{
    Construct68000, Cpu, LinkedImage, Rule, Symbol, decode, repair_68000, verify,
};

fn code(words: &[u16]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn texts(text: &[u8], base: u32) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut off = 0;
    while off < text.len() {
        let i = decode(text, off, base + off as u32).expect("decodes");
        off += i.len;
        out.push((i.addr, i.text));
    }
    out
}

const BASE: u32 = 0x1000;

#[test]
fn move_from_sr_becomes_user_mode_68000_code() {
    // move.w %sr,%d3 ; bra.s back to it ; rts
    let img = code(&[0x40C3, 0x60FC, 0x4E75]);
    let (r, rep) = repair_68000(LinkedImage::text(&img, BASE, 6), None).unwrap();
    assert_eq!(rep.sr_repaired, vec![BASE]);
    assert!(rep.left.is_empty());
    let t = texts(&r.image[..r.code_len as usize], BASE);
    let s: Vec<&str> = t.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(
        &s[..7],
        &[
            "scs -(%sp)",
            "svs -(%sp)",
            "seq -(%sp)",
            "smi -(%sp)",
            "clr.w %d3",
            "addx.w %d3,%d3",
            "lsl.w #4,%d3"
        ][..],
        "{s:?}"
    );
    for (k, bit) in [8, 4, 2, 1].iter().enumerate() {
        assert_eq!(s[7 + 3 * k], "tst.b (%sp)+");
        assert!(s[8 + 3 * k].starts_with("beq.s"), "{}", s[8 + 3 * k]);
        assert_eq!(s[9 + 3 * k], format!("ori.w #{bit},%d3"));
        // The beq skips exactly the ori.
        assert_eq!(t[8 + 3 * k].0 + 6, t[10 + 3 * k].0);
    }
    assert_eq!(s[19], "move.w %d3,%ccr");
    assert!(s[20].starts_with("bra"), "{}", s[20]);
    // The branch back still goes to the start of the replacement.
    let bra = decode(&r.image, (t[20].0 - BASE) as usize, t[20].0).unwrap();
    assert_eq!(bra.flow.target, Some(BASE));
    let v = verify(&r.image[..r.code_len as usize], BASE, Cpu::M68000, &[]);
    assert_eq!(v.with_rule(Rule::Privileged).count(), 0);
    assert_eq!(v.with_rule(Rule::CpuTooNew).count(), 0);
}

#[test]
fn mul_long_becomes_helper_call() {
    // 0x1000 mulu.l %d1,%d2 ; 0x1004 muls.l #-7,%d5 ; 0x100c rts ;
    // 0x100e "mulu helper" rts ; 0x1010 "muls helper" rts
    let img = code(&[
        0x4C01, 0x2000, 0x4C3C, 0x5800, 0xFFFF, 0xFFF9, 0x4E75, 0x4E75, 0x4E75,
    ]);
    // An absolute relocation (in data) to the muls helper must follow it.
    let mut img2 = img.clone();
    img2.extend(0x1010u32.to_be_bytes());
    let (r, rep) = repair_68000(
        LinkedImage {
            image: &img2,
            base: BASE,
            code_len: 18,
            bss_len: 0,
            abs32: &[18],
            functions: &[],
        },
        Some((0x100E, 0x1010)),
    )
    .unwrap();
    assert_eq!(rep.mul_repaired, vec![0x1000, 0x1004]);
    assert!(rep.left.is_empty(), "{rep}");
    let cl = r.code_len as usize;
    let s: Vec<String> = texts(&r.image[..cl], BASE)
        .into_iter()
        .map(|x| x.1)
        .collect();
    let new_mulu = r.map(0x100E);
    let new_muls = r.map(0x1010);
    assert_ne!(new_mulu, 0x100E);
    assert_eq!(
        &s[..6],
        &[
            "move.l %d1,-(%sp)".to_string(),
            "move.l %d2,-(%sp)".into(),
            format!("jsr ({new_mulu:#x}).l"),
            "move.l (%sp)+,%d2".into(),
            "move.w (%sp)+,%ccr".into(),
            "lea (2,%sp),%sp".into(),
        ][..],
        "{s:?}"
    );
    assert_eq!(
        &s[6..12],
        &[
            "move.l #-7,-(%sp)".to_string(),
            "move.l %d5,-(%sp)".into(),
            format!("jsr ({new_muls:#x}).l"),
            "move.l (%sp)+,%d5".into(),
            "move.w (%sp)+,%ccr".into(),
            "lea (2,%sp),%sp".into(),
        ][..],
        "{s:?}"
    );
    // Both jsr operands are relocations, and so is the moved data word.
    let jsr1 = 2 + 2 + 2;
    let jsr2 = 18 + 6 + 2 + 2;
    let data = cl as u32;
    assert_eq!(r.abs32, vec![jsr1, jsr2, data]);
    let rd = |o: u32| u32::from_be_bytes(r.image[o as usize..o as usize + 4].try_into().unwrap());
    assert_eq!(
        (rd(jsr1), rd(jsr2), rd(data)),
        (new_mulu, new_muls, new_muls)
    );
    let v = verify(&r.image[..cl], BASE, Cpu::M68000, &[]);
    assert_eq!(v.with_rule(Rule::CpuTooNew).count(), 0, "{}", v.summary());
}

#[test]
fn unsupported_forms_are_left_and_reported() {
    // mulu.l (%a0),%d1 ; mulu.l %d0,%d2:%d1 (64-bit) ; muls.l %d0,%d1 ;
    // move.w %sr,-(%sp) ; rts
    let img = code(&[
        0x4C10, 0x1000, 0x4C00, 0x1402, 0x4C00, 0x1800, 0x40E7, 0x4E75,
    ]);
    let (r, rep) = repair_68000(LinkedImage::text(&img, BASE, 16), Some((0x100E, 0x100E))).unwrap();
    assert_eq!(rep.mul_repaired, vec![0x1008]);
    let left: Vec<(u32, Construct68000)> = rep.left.iter().map(|l| (l.addr, l.kind)).collect();
    assert_eq!(
        left,
        vec![
            (0x1000, Construct68000::MulLong),
            (0x1004, Construct68000::MulLong),
            (0x100C, Construct68000::MoveFromSr),
        ]
    );
    assert!(rep.left[1].why.contains("64-bit"), "{rep}");
    assert_eq!(r.map(0x1000), 0x1000);
    // Without helpers, every mulu.l/muls.l is left.
    let (_, rep) = repair_68000(LinkedImage::text(&img, BASE, 16), None).unwrap();
    assert!(rep.mul_repaired.is_empty());
    assert_eq!(rep.left_of(Construct68000::MulLong), 3);
    assert!(rep.to_string().contains("3 left"), "{rep}");
}

// ---------------------------------------------------------------- execution

fn tool(name: &str) -> String {
    let ok = Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "{name} is missing: run `cargo xtask test`, which installs binutils-m68k-linux-gnu and qemu-user"
    );
    name.to_string()
}

fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}; run `cargo xtask test`"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[derive(Clone, Copy)]
enum Src {
    Reg(u8),
    Imm,
}

struct MulCase {
    signed: bool,
    a: u32,
    b: u32,
    src: Src,
    dl: u8,
    ccr_in: u8,
}

/// Expected: product, then the bytes cs, vs, eq, mi, x.
fn model_mul(c: &MulCase) -> (u32, [u8; 5]) {
    let (p, v) = if c.signed {
        let p = i64::from(c.a as i32) * i64::from(c.b as i32);
        (p as u32, i32::try_from(p).is_err())
    } else {
        let p = u64::from(c.a) * u64::from(c.b);
        (p as u32, p > 0xFFFF_FFFF)
    };
    let b = |x: bool| if x { 0xFF } else { 0 };
    (
        p,
        [0, b(v), b(p == 0), b((p as i32) < 0), (c.ccr_in >> 4) & 1],
    )
}

fn mul_cases() -> Vec<MulCase> {
    let m = |signed, a: i64, b: i64, src, dl, ccr_in| MulCase {
        signed,
        a: a as u32,
        b: b as u32,
        src,
        dl,
        ccr_in,
    };
    use Src::*;
    vec![
        m(false, 3, 5, Reg(1), 0, 0x00),
        m(false, 3, 5, Reg(1), 0, 0x1F),
        m(false, 0x10000, 0x10000, Reg(2), 3, 0x10), // overflow, zero result
        m(false, 0xFFFF_FFFF, 0xFFFF_FFFF, Reg(4), 5, 0x00),
        m(false, 0x1234_5678, 0, Reg(6), 1, 0x1F),  // zero
        m(false, 0xFFFF, 0x10001, Reg(0), 2, 0x00), // 0xffffffff, N
        m(false, 0x10002, 0xFFFF, Reg(3), 4, 0x10), // just overflows
        m(false, 0x8000_0000, 2, Reg(5), 6, 0x0F),
        m(false, 0x1234, 0x5678, Imm, 2, 0x11),
        m(false, 0x0001_0000, 0xFFFF_0000, Imm, 4, 0x00),
        m(true, -3, 5, Reg(1), 0, 0x10),
        m(true, -1, -1, Reg(2), 3, 0x00),
        m(true, i64::from(i32::MIN), -1, Reg(3), 4, 0x1F), // overflow
        m(true, 0x10000, -0x8000, Reg(4), 5, 0x00),        // exactly i32::MIN
        m(true, 0x10000, 0x8000, Reg(5), 6, 0x10),         // 2^31: overflow
        m(true, 0x4000_0000, 2, Reg(6), 0, 0x00),
        m(true, 0, -5, Reg(0), 1, 0x1F),              // zero
        m(true, -0x10000, -0x10000, Reg(1), 2, 0x00), // 2^32: overflow, zero
        m(true, 0x7FFF_FFFF, 1, Reg(2), 3, 0x00),
        m(true, -46341, 46341, Reg(3), 4, 0x10), // just below -2^31: overflow
        m(true, 123_456, -7, Imm, 5, 0x10),
        m(true, -2, i64::from(i32::MIN), Imm, 6, 0x00), // overflow, zero
        m(false, 7, 7, Reg(3), 3, 0x10),                // same register: 49
        m(true, -9, -9, Reg(5), 5, 0x00),
    ]
}

/// Test program: for each multiply case, sets up the registers and the CCR,
/// multiplies, stores cs, vs, eq, mi (Scc), the product and X; for each
/// `move.w %sr,%dN` case, stores the same flags, the whole %dN and X; then
/// writes the buffer to stdout.
fn program(cases: &[MulCase], sr: &[(u8, u8)]) -> String {
    let mut s = String::from(
        "\t.text\n\t.globl _start\n\t.type _start,@function\n_start:\n\tlea buf,%a0\n",
    );
    let flags = |s: &mut String, d: u8| {
        s.push_str("\tscs (%a0)+\n\tsvs (%a0)+\n\tseq (%a0)+\n\tsmi (%a0)+\n");
        s.push_str(&format!("\tmove.l %d{d},(%a0)+\n"));
        s.push_str("\tmoveq #0,%d7\n\taddx.b %d7,%d7\n\tmove.b %d7,(%a0)+\n");
    };
    for c in cases {
        s.push_str(&format!("\tmove.l #{:#x},%d{}\n", c.a, c.dl));
        let op = if c.signed { "muls.l" } else { "mulu.l" };
        let src = match c.src {
            Src::Reg(r) => {
                if r != c.dl {
                    s.push_str(&format!("\tmove.l #{:#x},%d{r}\n", c.b));
                }
                format!("%d{r}")
            }
            Src::Imm => format!("#{:#x}", c.b),
        };
        s.push_str(&format!(
            "\tmove.w #{:#x},%ccr\n\t{op} {src},%d{}\n",
            c.ccr_in, c.dl
        ));
        flags(&mut s, c.dl);
    }
    for &(d, ccr) in sr {
        s.push_str(&format!(
            "\tmove.l #0xdead5a5a,%d{d}\n\tmove.w #{ccr:#x},%ccr\n\tmove.w %sr,%d{d}\n"
        ));
        flags(&mut s, d);
    }
    s.push_str(
        "\tmoveq #4,%d0\n\tmoveq #1,%d1\n\tmove.l #buf,%d2\n\tmove.l %a0,%d3\n\tsub.l %d2,%d3\n\
         \ttrap #0\n\tmoveq #1,%d0\n\tmoveq #0,%d1\n\ttrap #0\n\t.size _start,.-_start\n\
         \t.data\nbuf:\t.space 1024\n",
    );
    s
}

fn expected(cases: &[MulCase], sr: &[(u8, u8)]) -> Vec<u8> {
    let mut out = Vec::new();
    for c in cases {
        let (p, f) = model_mul(c);
        out.extend_from_slice(&f[..4]);
        out.extend(p.to_be_bytes());
        out.push(f[4]);
    }
    for &(_, ccr) in sr {
        let b = |x: u8| if ccr & x != 0 { 0xFF } else { 0 };
        out.extend([b(1), b(2), b(4), b(8)]);
        out.extend((0xdead_0000u32 | u32::from(ccr & 0x1F)).to_be_bytes());
        out.push((ccr >> 4) & 1);
    }
    out
}

fn tmpdir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("repair68000");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn qemu(cpu: &str, elf: &Path) -> Vec<u8> {
    run(Command::new(tool("qemu-m68k")).args(["-cpu", cpu]).arg(elf))
}

#[test]
fn repaired_program_runs_on_68000_and_68040() {
    let (as_, ld) = (tool("m68k-linux-gnu-as"), tool("m68k-linux-gnu-ld"));
    tool("qemu-m68k");
    let dir = tmpdir();
    let cases = mul_cases();
    let sr: Vec<(u8, u8)> = vec![
        (0, 0x00),
        (1, 0x1F),
        (2, 0x10),
        (3, 0x0F),
        (4, 0x15),
        (5, 0x0A),
        (6, 0x04),
        (1, 0x11),
        (2, 0x08),
        (3, 0x01),
        (4, 0x02),
        (0, 0x1B),
    ];
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("stub/mul32.S");
    run(Command::new(&as_)
        .args(["-m68000", "-o"])
        .arg(dir.join("mul32.o"))
        .arg(&stub));
    let build = |name: &str, src: String| -> PathBuf {
        let (s, o, e) = (
            dir.join(format!("{name}.S")),
            dir.join(format!("{name}.o")),
            dir.join(format!("{name}.elf")),
        );
        std::fs::write(&s, src).unwrap();
        run(Command::new(&as_).args(["-m68020", "-o"]).arg(&o).arg(&s));
        run(Command::new(&ld)
            .args(["-q", "-Ttext=0x80000", "-e", "_start", "-o"])
            .arg(&e)
            .arg(&o)
            .arg(dir.join("mul32.o")));
        e
    };
    let elf = build("t", program(&cases, &sr));

    // The model agrees with the real instructions: mulu.l/muls.l on the
    // 68040, move from SR on the 68000 (where it is not privileged).
    let want = expected(&cases, &sr);
    let real_mul = qemu("m68040", &build("mul-only", program(&cases, &[])));
    assert_eq!(
        real_mul,
        expected(&cases, &[]),
        "model vs real mulu.l/muls.l on the 68040"
    );
    let real_sr = qemu("m68000", &build("sr-only", program(&[], &sr)));
    assert_eq!(
        real_sr,
        expected(&[], &sr),
        "model vs real move from SR on the 68000"
    );
    // Unrepaired, the program runs on neither CPU.
    for cpu in ["m68000", "m68040"] {
        let st = Command::new("qemu-m68k")
            .args(["-cpu", cpu])
            .arg(&elf)
            .output()
            .unwrap();
        assert!(!st.status.success(), "unrepaired program ran on {cpu}");
    }

    let data = std::fs::read(&elf).unwrap();
    let l = retro68_build::elf::read_linked(&data).unwrap();
    let sym = |n: &str| {
        l.symbols
            .iter()
            .find(|(s, _)| s == n)
            .unwrap_or_else(|| panic!("{n}"))
            .1
    };
    let syms: Vec<Symbol> = l
        .functions
        .iter()
        .map(|f| Symbol {
            name: f.name.clone(),
            addr: f.addr,
            size: f.size,
        })
        .collect();
    let cl = l.code_len as usize;
    let before = verify(&l.image[..cl], l.base, Cpu::M68000, &syms);
    assert_eq!(before.with_rule(Rule::CpuTooNew).count(), cases.len());
    assert_eq!(before.with_rule(Rule::Privileged).count(), sr.len());

    let helpers = (sym("__ferrite_mulu32"), sym("__ferrite_muls32"));
    let (r, rep) = repair_68000(l.as_image(&syms), Some(helpers)).unwrap();
    assert_eq!(
        (
            rep.mul_repaired.len(),
            rep.sr_repaired.len(),
            rep.left.len()
        ),
        (cases.len(), sr.len(), 0),
        "{rep}"
    );
    let after = verify(&r.image[..r.code_len as usize], l.base, Cpu::M68000, &[]);
    assert_eq!(
        after.with_rule(Rule::CpuTooNew).count(),
        0,
        "{}",
        after.summary()
    );
    assert_eq!(
        after.with_rule(Rule::Privileged).count(),
        0,
        "{}",
        after.summary()
    );

    let entry = r.map(sym("_start"));
    let out = retro68_build::elf::write_exec(&r.image, l.base, r.code_len, l.bss_len, entry);
    let fixed = dir.join("t-fixed.elf");
    std::fs::write(&fixed, out).unwrap();
    // QEMU refuses (silently, exit status 1) a file without the x bit.
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fixed, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for cpu in ["m68000", "m68040"] {
        let got = qemu(cpu, &fixed);
        assert_eq!(got, want, "repaired program on {cpu}");
    }
}

/// The real codegen suite (without the helpers linked in: only counts).
#[test]
#[ignore = "needs m68k artifacts: run `cargo xtask test`"]
fn codegen_suite_counts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = root.join("target/m68k-build/standard/codegen-suite.elf");
    let data = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `cargo xtask test`, which builds it",
            path.display()
        )
    });
    let mut l = retro68_build::elf::read_linked(&data).unwrap();
    let cl = l.code_len as usize;
    let leg = retro68_build::m68k::legalize(&mut l.image[..cl], l.base, Cpu::M68000).unwrap();
    l.abs32.extend(leg.new_abs32.iter().map(|&a| a - l.base));
    l.abs32.sort_unstable();
    let syms: Vec<Symbol> = l
        .functions
        .iter()
        .map(|f| Symbol {
            name: f.name.clone(),
            addr: f.addr,
            size: f.size,
        })
        .collect();
    let before = verify(&l.image[..cl], l.base, Cpu::M68000, &syms);
    let (r, rep) = repair_68000(l.as_image(&syms), None).unwrap();
    let new_syms: Vec<Symbol> = syms
        .iter()
        .map(|s| Symbol {
            name: s.name.clone(),
            addr: r.map(s.addr),
            size: 0,
        })
        .collect();
    let after = verify(
        &r.image[..r.code_len as usize],
        l.base,
        Cpu::M68000,
        &new_syms,
    );
    eprintln!(
        "codegen suite: {rep}before: {}\nafter: {}",
        before.summary(),
        after.summary()
    );
    assert_eq!(
        after.with_rule(Rule::Privileged).count(),
        0,
        "{}",
        after.summary()
    );
    // The helpers are not linked into this build yet: with a stand-in address
    // (not runnable, counts only) every multiply of the suite is of a form the
    // repair handles, and the relayout goes through.
    let stand_in = l.base;
    let (r2, rep2) = repair_68000(l.as_image(&syms), Some((stand_in, stand_in))).unwrap();
    let after2 = verify(&r2.image[..r2.code_len as usize], l.base, Cpu::M68000, &[]);
    eprintln!("with stand-in helpers: {rep2}after: {}", after2.summary());
    assert_eq!(
        after2.with_rule(Rule::CpuTooNew).count(),
        0,
        "{}",
        after2.summary()
    );
}
