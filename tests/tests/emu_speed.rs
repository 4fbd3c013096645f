//! Emulator speed: emulated instructions per host second (print with `--nocapture`; measure
//! with `cargo test --release -p ferrite-tests --test emu_speed -- --nocapture`).

use ferrite_emu::testing::flat_image;
use ferrite_emu::{CpuModel, Machine};

/// `loop(n)`: `move.l 4(sp),d1; moveq #0,d0; 1: add.l d1,d0; subq.l #1,d1; bne.s 1b; rts`
/// (3n + 3 instructions).
fn loop_image() -> ferrite_shared::flat::FlatImage {
    flat_image(
        &[0x222f, 0x0004, 0x7000, 0xd081, 0x5381, 0x66fa, 0x4e75],
        &[],
        &[("loop", 0)],
        0,
    )
}

#[test]
fn instructions_per_host_second() {
    let n = if cfg!(debug_assertions) {
        100_000
    } else {
        2_000_000
    };
    for cpu in CpuModel::ALL {
        let mut m = Machine::new(cpu);
        m.load(&loop_image()).unwrap();
        let r = m.call("loop", &[n]).unwrap();
        assert_eq!(
            r.instructions,
            3 * n as u64 + 3,
            "instruction count is exact"
        );
        assert_eq!(r.d0, (n as u64 * (n as u64 + 1) / 2) as u32);
        let s = m.stats();
        println!(
            "{cpu}: {} instructions, {} cycles in {:?}: {:.1} M instructions/s",
            s.instructions,
            s.cycles,
            s.host_time,
            s.instructions_per_second() / 1e6
        );
        assert!(s.instructions_per_second() > 0.0);
    }
}
