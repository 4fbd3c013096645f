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
    let write = std::env::var_os("FERRITE_FUZZ_WRITE_SEEDS").is_some();
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
    want.sort();
    assert_eq!(have, want);
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
