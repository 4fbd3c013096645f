//! The Ferrite driver under the Memory Manager's heap scramble: every allocation (the boot's,
//! the driver's own `_NewPtr`s, the test's parameter blocks and buffers in the system heap)
//! moves every unlocked relocatable block, here including relocatable blocks of "other
//! system software" allocated before the boot. The driver must boot, and its reads and writes
//! must match the disk, whatever the seed (`FERRITE_SEED`). The whole driver suite can also
//! be run scrambled: `FERRITE_HEAP_SCRAMBLE=1 cargo test -p ferrite-tests`.

#[path = "support/ferrite.rs"]
mod ferrite;

use ferrite::*;
use ferrite_emu::scsi::DiskConfig;
use ferrite_emu::{MachineConfig, ZoneId};

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn ferrite_boots_and_serves_io_while_the_heap_scrambles() {
    let seed = ferrite_emu::seed::seed_from_env();
    for cpu in CPUS {
        for rom in ROMS {
            let mut cfg = MachineConfig::new(cpu);
            cfg.heap_scramble = Some(seed);
            let mut m = new_machine_with(cfg, rom);
            let (mm, bus) = m.memory_manager_and_bus();
            let others: Vec<u32> = (0..8)
                .map(|i| {
                    mm.new_handle(bus, ZoneId::System, 48 + 16 * i, false)
                        .unwrap()
                })
                .collect();
            let disk = disk_with_volumes(driver_blob(), 2, 3000);
            let mut r = boot_disk_on(m, rom, &disk, DiskConfig::default());
            let what = format!("{} (FERRITE_SEED={seed})", r.what());
            let moved_at_boot = r.m.memory_manager().scramble_moves();
            assert!(moved_at_boot > 0, "{what}: the scramble moved blocks");
            let mut rng = Rng(seed ^ (cpu as u64) << 4 ^ rom as u64);
            for round in 0..12 {
                let drive = round % 2;
                let blocks = 1 + rng.below(16) as u32;
                let first = rng.below((3000 - blocks) as u64) as u32;
                let count = blocks * 512;
                let buf = r.alloc(count);
                let data = rng.bytes(count as usize);
                r.m.write_bytes(buf, &data);
                let (e, act) = r.prime(WRITE, drive, FS_FROM_START, first * 512, buf, count);
                assert_eq!((e, act), (0, count), "{what} round {round}: write");
                let back = r.alloc(count);
                let (e, act) = r.prime(READ, drive, FS_FROM_START, first * 512, back, count);
                assert_eq!((e, act), (0, count), "{what} round {round}: read");
                assert!(
                    r.m.read_bytes(back, count) == data,
                    "{what} round {round}: read back what was written"
                );
                let lba = r.lba(drive, first as u64 * 512);
                assert_eq!(r.visible(lba, blocks as u64), data, "{what}: on the disk");
            }
            assert!(
                r.m.memory_manager().scramble_moves() > moved_at_boot,
                "{what}: blocks kept moving during I/O"
            );
            for (i, h) in others.into_iter().enumerate() {
                assert_eq!(
                    r.m.memory_manager().handle_size(r.m.bus(), h),
                    Ok(48 + 16 * i as u32),
                    "{what}: the other system software's blocks survived"
                );
            }
            r.m.check_heaps().unwrap_or_else(|e| panic!("{what}: {e}"));
        }
    }
}
