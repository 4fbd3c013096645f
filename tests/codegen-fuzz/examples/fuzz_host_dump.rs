//! The host's checksums of the batch: `<index> <name> <hex>` per program.
//! `cargo xtask fuzz-codegen` runs it with `FERRITE_CODEGEN_FUZZ_PROGRAMS` set.
use codegen_fuzz::{OUTPUT_LEN, PROGRAMS, run_case};
use std::io::Write;

fn main() {
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let mut buf = [0u8; OUTPUT_LEN];
    for (i, p) in PROGRAMS.iter().enumerate() {
        let n = run_case(i as u32, &mut buf).expect("host run");
        let hex: String = buf[..n].iter().map(|b| format!("{b:02x}")).collect();
        writeln!(w, "{i} {} {hex}", p.name).unwrap();
    }
}
