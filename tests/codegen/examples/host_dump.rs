//! Prints every case the way the m68k `linux` build does under qemu-m68k:
//! `<index> <lowercase hex>` (or `<index> ERR`) per case, then `END <count>`.
//!
//! `cargo run -p codegen-suite --example host_dump > host.txt`, then diff against
//! `qemu-m68k -cpu m68040 cg.elf > m68k.txt`. `--names` appends the case name to each line.
use codegen_suite::{CASES, MAX_OUTPUT, run_case};
use std::io::Write;

fn main() {
    let names = std::env::args().any(|a| a == "--names");
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let mut buf = [0u8; MAX_OUTPUT];
    for i in 0..CASES.len() as u32 {
        write!(w, "{i} ").unwrap();
        match run_case(i, &mut buf) {
            Some(n) => {
                for b in &buf[..n] {
                    write!(w, "{b:02x}").unwrap();
                }
            }
            None => write!(w, "ERR").unwrap(),
        }
        if names {
            write!(w, " {}", CASES[i as usize].name).unwrap();
        }
        writeln!(w).unwrap();
    }
    writeln!(w, "END {}", CASES.len()).unwrap();
}
