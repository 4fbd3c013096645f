//! Host checks of the differential tests: every function runs on every input it draws
//! without a panic or an overlong trace, deterministically, and its inputs reach past the
//! first checks of the code under test often enough.

use ferrite_difftest::{FUNCTIONS, MAX_TRACE, Rng, digest, run, trace, trace_parts};

const SEED: u32 = 13;
const N: u32 = 2000;

fn function(name: &str) -> u32 {
    FUNCTIONS
        .iter()
        .position(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}")) as u32
}

/// The results of every input of `name` (the part of the trace after the input).
fn results(name: &str) -> Vec<Vec<u8>> {
    let f = function(name);
    let mut buf = vec![0u8; MAX_TRACE];
    (0..N)
        .map(|i| {
            let (at, n) = trace_parts(f, SEED, i, &mut buf)
                .unwrap_or_else(|| panic!("{name} input {i}: trace overflowed"));
            assert!(at > 0 && at <= n, "{name} input {i}: no tag");
            buf[at..n].to_vec()
        })
        .collect()
}

/// At least `min` of the inputs' results satisfy `pred`.
fn at_least(v: &[Vec<u8>], min: f64, what: &str, pred: impl Fn(&[u8]) -> bool) {
    let share = v.iter().filter(|r| pred(r)).count() as f64 / v.len() as f64;
    assert!(share >= min, "{what}: {share:.3} of the inputs, want {min}");
}

#[test]
fn every_function_is_deterministic_and_fits() {
    let mut a = vec![0u8; MAX_TRACE];
    let mut b = vec![0xFFu8; MAX_TRACE];
    for (f, func) in FUNCTIONS.iter().enumerate() {
        let f = f as u32;
        let mut digests = Vec::new();
        for i in 0..300 {
            let na = trace(f, SEED, i, &mut a).unwrap_or_else(|| panic!("{} {i}", func.name));
            let nb = trace(f, SEED, i, &mut b).unwrap();
            assert_eq!(a[..na], b[..nb], "{} input {i}", func.name);
            digests.push(digest(f, SEED, i).unwrap());
        }
        // Inputs differ from each other (the digest covers the input).
        digests.sort_unstable();
        digests.dedup();
        assert!(
            digests.len() > 290,
            "{}: only {} distinct",
            func.name,
            digests.len()
        );
        // `run` writes the same digests.
        let mut out = vec![0u8; 40];
        assert_eq!(run(f, SEED, 5, 10, &mut out), Some(40));
        for k in 0..10 {
            assert_eq!(
                out[4 * k..4 * k + 4],
                digest(f, SEED, 5 + k as u32).unwrap().to_be_bytes()
            );
        }
    }
    assert_eq!(run(FUNCTIONS.len() as u32, SEED, 0, 1, &mut [0; 4]), None);
    assert_eq!(run(0, SEED, 0, 2, &mut [0; 4]), None, "output too small");
}

#[test]
fn a_changed_result_changes_the_digest() {
    // The digest is what the harness compares: one byte off anywhere must show.
    let mut buf = vec![0u8; MAX_TRACE];
    let n = trace(0, SEED, 1, &mut buf).unwrap();
    let mut t = ferrite_difftest::Trace::hashing();
    t.bytes(&buf[..n]);
    assert_eq!(t.digest(), digest(0, SEED, 1).unwrap());
    for at in [0, n / 2, n - 1] {
        let mut c = buf[..n].to_vec();
        c[at] ^= 0x10;
        let mut t = ferrite_difftest::Trace::hashing();
        t.bytes(&c);
        assert_ne!(t.digest(), digest(0, SEED, 1).unwrap(), "byte {at}");
    }
}

#[test]
fn the_generator_is_the_documented_xorshift() {
    let mut r = Rng::for_input(0, 0, 0);
    let a = r.u32();
    let mut x = a;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    assert_eq!(r.u32(), x);
    assert_ne!(Rng::for_input(1, 0, 0).u32(), Rng::for_input(0, 0, 0).u32());
    assert_ne!(Rng::for_input(0, 1, 0).u32(), Rng::for_input(0, 0, 0).u32());
    assert_ne!(Rng::for_input(0, 0, 1).u32(), Rng::for_input(0, 0, 0).u32());
}

#[test]
fn inputs_reach_the_deep_paths() {
    let plan = results("driver::request::plan+next_chunk");
    at_least(&plan, 0.15, "plan accepts", |r| r[0] == 1);
    at_least(&plan, 0.15, "plan refuses", |r| r[0] == 0);
    let cl = results("driver::sense::classify");
    at_least(&cl, 0.3, "sense parses", |r| r[0] == 1);
    // Every way out of `classify` (the last byte or three of the results).
    // (A Fail ends with a negative error code, whose high byte is FF; the byte before the
    // other verdicts ends the sense and is 0 or 1.)
    let last = |r: &[u8], k: u8| r[r.len() - 2] != 0xFF && r[r.len() - 1] == k;
    for (k, min, what) in [
        (1, 0.05, "Done"),
        (2, 0.05, "Retry"),
        (3, 0.01, "RetryLater"),
        (4, 0.002, "StartUnit"),
    ] {
        at_least(&cl, min, what, |r| last(r, k));
    }
    at_least(&cl, 0.2, "Fail", |r| {
        r[r.len() - 2] == 0xFF && r[r.len() - 3] == 5
    });
    let ex = results("driver::partition::examine");
    at_least(&ex, 0.5, "an entry", |r| r[0] == 1);
    at_least(&ex, 0.15, "an HFS partition", |r| r.len() > 5 && r[5] == 1);
    let scan = results("driver::partition::examine (map scan)");
    at_least(&scan, 0.1, "two drives or more", |r| r[r.len() - 1] >= 2);
    let cache = results("driver::cache::wce_on+enable_wce_list");
    at_least(&cache, 0.2, "a caching page", |r| r[0] == 1);
    at_least(&cache, 0.05, "a MODE SELECT list", |r| {
        let at = if r[0] == 1 { 2 } else { 1 };
        r[at] == 1
    });
    let ddm = results("shared::partition_map::DriverDescriptorMap");
    at_least(&ddm, 0.9, "block 0 reads", |r| r[0] == 1);
    at_least(&ddm, 0.05, "block 0 is valid", |r| r[r.len() - 1] == 1);
    at_least(&ddm, 0.3, "block 0 is refused", |r| r[r.len() - 1] != 1);
    let settings = results("shared::driver_blob::Settings");
    at_least(&settings, 0.4, "settings read", |r| r[0] == 1);
    at_least(&settings, 0.1, "settings refused", |r| r[0] == 0);
    let head = results("shared::driver_blob::head");
    at_least(&head, 0.5, "a pointer table", |r| r[0] == 1);
    let rel = results("shared::flat::relocations");
    at_least(&rel, 0.5, "offsets encode", |r| r[0] == 1);
    let flat = results("shared::flat::FlatImage");
    at_least(&flat, 0.3, "containers parse", |r| r[0] == 1);
    at_least(&flat, 0.2, "containers refused", |r| r[0] == 0);
}
