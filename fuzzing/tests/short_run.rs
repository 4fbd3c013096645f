//! The fuzz targets' short run (part of `cargo test`, hence `cargo xtask test`): each target
//! over its seed corpus, its regression inputs and deterministic mutations of them. The long
//! run is `cargo xtask fuzz` (libFuzzer).

use std::path::{Path, PathBuf};
use std::time::Instant;

use ferrite_fuzz::mutate::{Rng, mutate};
use ferrite_fuzz::{TARGETS, seeds};

/// Mutations per target (each a few changes to one corpus input).
const MUTATIONS: usize = 2000;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The files in `dir`, sorted by name (none if it does not exist).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("readable"),
            )
        })
        .collect();
    out.sort();
    out
}

/// The committed seeds are what `seeds::all` makes; FERRITE_FUZZ_WRITE_SEEDS=1 rewrites them.
#[test]
fn seed_corpus_is_current() {
    // Only `=1` rewrites the committed files (any other value, `0` included, checks them).
    let write = std::env::var_os("FERRITE_FUZZ_WRITE_SEEDS").is_some_and(|v| v == "1");
    let made = seeds::all();
    for &(target, _) in TARGETS {
        let d = dir().join("corpus").join(target);
        let mut want: Vec<(String, Vec<u8>)> = made
            .iter()
            .filter(|(t, _, _)| *t == target)
            .map(|(_, n, b)| (n.clone(), b.clone()))
            .collect();
        want.sort();
        assert!(!want.is_empty(), "{target} has no seeds");
        if write {
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            for (n, b) in &want {
                std::fs::write(d.join(n), b).unwrap();
            }
        }
        let have = files(&d);
        assert!(
            have == want,
            "{}: the seeds differ from what seeds::all() makes; run \
             FERRITE_FUZZ_WRITE_SEEDS=1 cargo test -p ferrite-fuzz --test short_run",
            d.display()
        );
        for (n, b) in &have {
            assert!(b.len() <= 96 << 10, "{target}/{n}: seeds stay small");
        }
    }
}

/// Every libFuzzer binary in fuzz/ calls a target of the same name, and every target has one.
#[test]
fn every_target_has_a_libfuzzer_binary() {
    let bins = dir().join("../fuzz/fuzz_targets");
    let mut have: Vec<String> = files(&bins)
        .into_iter()
        .map(|(n, _)| n.trim_end_matches(".rs").to_string())
        .collect();
    have.sort();
    let mut want: Vec<String> = TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    want.push("boot_disk".into());
    want.sort();
    assert_eq!(have, want);
    let boot = std::fs::read_to_string(bins.join("boot_disk.rs")).unwrap();
    assert!(boot.contains("ferrite_fuzz::boot::boot_disk("));
    let manifest = std::fs::read_to_string(dir().join("../fuzz/Cargo.toml")).unwrap();
    for (n, _) in TARGETS {
        let body = std::fs::read_to_string(bins.join(format!("{n}.rs"))).unwrap();
        assert!(
            body.contains(&format!("ferrite_fuzz::targets::{n}(")),
            "{n}.rs"
        );
        assert!(
            manifest.contains(&format!("name = \"{n}\"")),
            "{n} in fuzz/Cargo.toml"
        );
    }
}

fn run_target(name: &str, f: fn(&[u8])) {
    let started = Instant::now();
    let mut inputs = files(&dir().join("corpus").join(name));
    let regressions = files(&dir().join("regressions").join(name));
    assert!(!inputs.is_empty(), "{name}: no corpus");
    for (n, b) in regressions.iter().chain(&inputs) {
        eprintln!("{name}: {n}");
        f(b);
    }
    inputs.extend(regressions);
    let mut rng = Rng::new(name.len() as u64 * 7919 + name.as_bytes()[0] as u64);
    for i in 0..MUTATIONS {
        let a = &inputs[rng.below(inputs.len())].1;
        let b = &inputs[rng.below(inputs.len())].1;
        let m = mutate(&mut rng, a, b);
        let r = std::panic::catch_unwind(|| f(&m));
        if r.is_err() {
            let out = dir()
                .join("../target/fuzz-short-run")
                .join(format!("{name}-{i}"));
            std::fs::create_dir_all(out.parent().unwrap()).unwrap();
            std::fs::write(&out, &m).unwrap();
            panic!(
                "{name}: mutation {i} broke an invariant; the input is in {}",
                out.display()
            );
        }
    }
    eprintln!(
        "{name}: {} inputs + {MUTATIONS} mutations in {:.1} s",
        inputs.len(),
        started.elapsed().as_secs_f64()
    );
}

macro_rules! short_runs {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run_target(stringify!($name), ferrite_fuzz::targets::$name);
            }
        )*
        /// The list above is every target.
        #[test]
        fn short_runs_cover_every_target() {
            let mut listed = vec![$(stringify!($name)),*];
            listed.sort();
            let mut all: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
            all.sort();
            assert_eq!(listed, all);
        }
    };
}

short_runs!(
    partition_map,
    driver_settings,
    hfs_mdb,
    hfs_btree_node,
    hfs_catalog_record,
    hfs_volume,
    disk_image,
    macbinary,
    appledouble,
    diskcopy,
    resource_fork,
);

/// The seeds reach deep: each is accepted by its parser (and the volumes are clean), so the
/// mutations start from inputs that get past the first checks.
#[test]
fn seeds_are_valid_inputs() {
    use ferrite_formatter::hfs::check_volume;
    use ferrite_formatter::{MemDisk, apm, appledouble, diskcopy, macbinary, rsrc};
    use ferrite_fuzz::targets::{map_disk, template_volume, volume_disk};
    let seeds = |t: &str| files(&dir().join("corpus").join(t));
    let clean = |dev: &mut MemDisk| {
        let r = check_volume(dev).expect("opens");
        assert!(r.is_clean(), "{:?}", r.problems);
    };
    for (n, b) in seeds("hfs_volume") {
        eprintln!("hfs_volume/{n}");
        clean(&mut volume_disk(&b));
    }
    for (n, b) in seeds("hfs_mdb") {
        eprintln!("hfs_mdb/{n}");
        if n == "filled" {
            let mut t = template_volume().to_vec();
            t[1024..1536].copy_from_slice(&b);
            clean(&mut MemDisk::from_bytes(t));
        }
    }
    for t in ["partition_map", "disk_image"] {
        for (n, b) in seeds(t) {
            let map = apm::read_map(&mut map_disk(&b)).unwrap_or_else(|e| panic!("{t}/{n}: {e}"));
            assert!(map.hfs_partitions().count() >= 1);
        }
    }
    for (_, b) in seeds("macbinary") {
        macbinary::parse(&b).unwrap();
    }
    for (_, b) in seeds("appledouble") {
        appledouble::parse(&b).unwrap();
    }
    for (_, b) in seeds("diskcopy") {
        assert!(diskcopy::data(&b).is_some());
    }
    for (_, b) in seeds("resource_fork") {
        rsrc::resources(&b).unwrap();
        retro68_build::rsrc::fork::ResourceFork::parse(&b).unwrap();
    }
    for (_, b) in seeds("driver_settings") {
        ferrite_shared::driver_blob::Settings::read(&b).unwrap();
    }
}

/// Mutated disks booted in the emulated Mac with the real driver (`ferrite_fuzz::boot`):
/// first the unmutated disk on both machines, which must mount both volumes (so the target
/// really reaches the driver), then edits of the map aimed at the fields the driver reads.
#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn boot_disk() {
    use ferrite_fuzz::boot;
    let started = Instant::now();
    let blob =
        boot::driver_blob().expect("target/m68k/ferrite-driver.bin: run `cargo xtask build`");
    assert_eq!(
        boot::mutated_image(blob, &[0]),
        boot::mutated_image(blob, &[1])
    );
    for machine in [0u8, 1] {
        assert_eq!(
            boot::boot_and_check(blob, &[machine]),
            boot::Outcome::Served(2)
        );
    }
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    // Edits: block, offset (16 bits), value. The offsets the driver reads in a map entry:
    // signature 0–1, map count 4–7, start 8–11, size 12–15, type 48–79, data start/count
    // 80–87, status 88–91; in block 0: block size 2–3, block count 4–7.
    const FIELDS: [u16; 16] = [0, 1, 4, 7, 8, 10, 11, 12, 14, 15, 48, 53, 80, 84, 88, 91];
    let mut rng = Rng::new(0xB007);
    const RUNS: usize = 1000;
    for i in 0..RUNS {
        let mut input = vec![rng.below(2) as u8];
        for _ in 0..1 + rng.below(6) {
            let block = rng.below(6) as u8;
            let off = if rng.below(4) == 0 {
                rng.below(512) as u16
            } else {
                FIELDS[rng.below(FIELDS.len())]
            };
            let value = match rng.below(4) {
                0 => 0,
                1 => 0xFF,
                _ => rng.below(256) as u8,
            };
            input.extend_from_slice(&[block, (off >> 8) as u8, off as u8, value]);
        }
        let r = std::panic::catch_unwind(|| boot::boot_and_check(blob, &input));
        if let Ok(o) = r {
            *outcomes.entry(format!("{o:?}")).or_default() += 1;
        } else {
            let out = dir()
                .join("../target/fuzz-short-run")
                .join(format!("boot_disk-{i}"));
            std::fs::create_dir_all(out.parent().unwrap()).unwrap();
            std::fs::write(&out, &input).unwrap();
            panic!(
                "boot_disk: run {i} broke an invariant; the input is in {}",
                out.display()
            );
        }
    }
    eprintln!(
        "boot_disk: {RUNS} mutated boots in {:.1} s: {outcomes:?}",
        started.elapsed().as_secs_f64()
    );
    // The edits must reach the driver: most boots load it, and what it serves varies.
    let count = |k: &str| outcomes.get(k).copied().unwrap_or(0);
    assert!(
        count("NotLoaded") < RUNS / 2,
        "the ROM refused too many: {outcomes:?}"
    );
    assert!(
        outcomes.keys().filter(|k| k.starts_with("Served")).count() >= 2,
        "too few kinds of outcome: {outcomes:?}"
    );
}
