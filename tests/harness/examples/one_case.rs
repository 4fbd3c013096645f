//! Run one codegen case in the emulator and show the outcome (debugging aid).
//! With a third argument `diff`, also print the first differing bytes (host vs. 68k); with
//! `dump`, both outputs in hex.
use ferrite_emu::CpuModel;
use ferrite_harness::conformance::{SuiteRunner, host_output};
use ferrite_shared::flat::FlatImage;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flat = FlatImage::parse(&std::fs::read(&args[1]).unwrap()).unwrap();
    let name = &args[2];
    let index = codegen_suite::CASES
        .iter()
        .position(|c| c.name == name.as_str())
        .expect("case") as u32;
    let mut r = SuiteRunner::new(&flat, CpuModel::M68040).unwrap();
    let mut stats = (0, 0, std::time::Duration::ZERO);
    let got = r.run_case(index, Some(&mut stats));
    let want = host_output(index);
    match got {
        Ok(g) => {
            println!(
                "{name}: {} bytes, equal: {}, instructions {}",
                g.len(),
                g == want,
                stats.0
            );
            if args.get(3).map(String::as_str) == Some("dump") {
                let hex = |v: &[u8]| v.iter().map(|b| format!("{b:02x}")).collect::<String>();
                println!("host {}", hex(&want));
                println!("m68k {}", hex(&g));
            }
            if args.get(3).map(String::as_str) == Some("diff") {
                let diffs = (0..g.len().max(want.len())).filter(|&i| want.get(i) != g.get(i));
                for i in diffs.take(40) {
                    println!("  @{i}: host {:02x?} m68k {:02x?}", want.get(i), g.get(i));
                }
            }
        }
        Err(e) => println!("{name}: error {e}; instructions {}", stats.0),
    }
}
