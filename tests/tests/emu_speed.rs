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
        // The machine's totals are this one call's, and its host time was measured (a speed
        // of 0 would mean the clock never ran).
        assert_eq!(
            (s.calls, s.instructions, s.cycles, s.host_time),
            (1, r.instructions, r.cycles, r.host_time),
            "{cpu}: the machine's statistics are the call's"
        );
        assert!(
            !s.host_time.is_zero(),
            "{cpu}: the call's host time was measured"
        );
        if cpu == CpuModel::M68000 {
            // MC68000 User's Manual §8 (instruction execution times): MOVE.L d16(An),Dn 16,
            // MOVEQ 4, ADD.L Dn,Dn 8, SUBQ.L #,Dn 8, BNE.S 10 taken / 8 not, RTS 16 cycles.
            let n = u64::from(n);
            assert_eq!(
                s.cycles,
                16 + 4 + 26 * n - 2 + 16,
                "68000 cycles of loop({n})"
            );
        }
    }
}
