//! How many `boot_disk` inputs a second this host runs, uninstrumented: the seed corpus's
//! inputs and pseudo-random edit lists, on both machines. `cargo run --release -p
//! ferrite-fuzz --example boot_speed [N]`.

use std::time::Instant;

use ferrite_fuzz::boot;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(400);
    let blob = boot::driver_blob().expect("build the driver first (cargo xtask build)");
    let mut state = 0x2545_f491_u32;
    let mut outcomes = std::collections::BTreeMap::new();
    let start = Instant::now();
    for i in 0..n {
        let mut input = vec![i as u8];
        for _ in 0..(i % 7) * 4 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            input.push(state as u8);
        }
        let o = boot::boot_and_check(blob, &input);
        *outcomes.entry(format!("{o:?}")).or_insert(0) += 1;
    }
    let s = start.elapsed().as_secs_f64();
    println!(
        "{n} inputs in {s:.2} s: {:.0} a second; {outcomes:?}",
        n as f64 / s
    );
}
