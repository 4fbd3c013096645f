//! `ferrite bench`: timing a disk's driver in the emulated Mac without writing the image, run as a user
//! runs it (`CARGO_BIN_EXE_ferrite`).
//!
//! Most tests install a stand-in driver (`--driver FILE`) and, where they make a complete
//! disk, a stand-in Ferrite Setup (`--setup-app FILE`, [`test_app`]; the others pass
//! `--no-setup-app`) so that they run on a fresh clone; the tests that boot the disks in the
//! emulated Mac need the real driver embedded in the binary (`cargo xtask test` builds it
//! first) and are `#[ignore]`d in a plain `cargo test`, as are the oracle tests (parted,
//! hfsutils, macutils, machfs).

mod common;
mod support;
use common::*;

/// The benchmark's series as (name, object) pairs from `ferrite bench --json`'s first disk.
fn bench_series(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    v["series"]
        .as_array()
        .expect("series")
        .iter()
        .map(|r| (r["series"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

#[test]
#[ignore = "needs the m68k driver: run `cargo xtask test`"]
fn bench_times_the_disks_driver_and_never_writes_the_image() {
    let s = Scratch::new("bench");
    real_driver_available(&s);
    ok(
        &s,
        &cmd(
            "init on.hda --size 24M --no-setup-app --date 2026-12-01",
            &[],
        ),
    );
    ok(
        &s,
        &cmd(
            "init off.hda --size 24M --no-setup-app --date 2026-12-01 --write-cache off",
            &[],
        ),
    );
    let before = std::fs::read(s.path("on.hda")).unwrap();
    let out = ok(
        &s,
        &cmd("bench on.hda off.hda --quick --json --write-cache off", &[]),
    );
    // Writes went to the emulated drive's copy, never to the files.
    assert!(std::fs::read(s.path("on.hda")).unwrap() == before);
    let v: serde_json::Value = serde_json::from_str(&out).expect("--json prints JSON");
    let disks = v.as_array().expect("one object per disk");
    assert_eq!(disks.len(), 2);
    for d in disks {
        assert!(d["driver"].as_str().unwrap().starts_with(".Ferrite"), "{d}");
        assert_eq!(d["volume"], "Macintosh HD");
        for (name, r) in bench_series(d) {
            let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{name}: {k}"));
            assert!(n("requests") > 0, "{name}");
            // Ferrite sends one command per contiguous request.
            assert_eq!(n("commands"), n("requests"), "{name}");
            // The parts fit in the whole (the SCSI Manager's time may overlap the bus's by
            // a completion's latency, never more than 1 %), and no driver beats the limit.
            let parts = n("driver_ns") + n("scsi_manager_ns") + n("bus_disk_ns");
            assert!(n("total_ns") >= n("bus_disk_ns") && parts <= n("total_ns") * 101 / 100);
            assert!(
                n("limit_ns") <= n("total_ns") + n("total_ns") / 1000,
                "{name}: {r}"
            );
            assert!(n("driver_cycles") > 0, "{name}");
        }
    }
    // The drive started with its write cache off: Ferrite's default settings turn it on,
    // the disk initialized with `--write-cache off` leaves it off.
    assert_eq!(disks[0]["write_cache_after"], true);
    assert_eq!(disks[1]["write_cache_after"], false);
    let kbps = |d: &serde_json::Value, series: &str| {
        bench_series(d)
            .into_iter()
            .find(|(n, _)| n == series)
            .map(|(_, r)| r["kb_per_s"].as_f64().unwrap())
            .unwrap()
    };
    // Reads don't care; single-block writes gain from the cache.
    let read = "sustained read (20 × 768 KB)";
    assert!((kbps(&disks[0], read) / kbps(&disks[1], read) - 1.0).abs() < 0.01);
    let small = "300 small files: write";
    assert!(kbps(&disks[0], small) > kbps(&disks[1], small) * 1.05);
    // The same run twice gives the same numbers (emulated time only).
    let again = ok(
        &s,
        &cmd("bench on.hda off.hda --quick --json --write-cache off", &[]),
    );
    assert_eq!(out, again);
    // The text form names the driver and compares the disks.
    let text = ok(&s, &["bench", "on.hda", "off.hda", "--quick"]);
    assert!(
        text.contains("side by side") && text.contains("driver: .Ferrite"),
        "{text}"
    );
    // A disk with no driver: said in words, non-zero exit.
    std::fs::write(s.path("blank.hda"), vec![0u8; 16 << 20]).unwrap();
    let e = fails(&s, &["bench", "blank.hda"]);
    assert!(e.contains("no driver was loaded"), "{e}");
    let e = fails(&s, &["bench", "on.hda", "--machine", "iici"]);
    assert!(
        e.contains("the profiles are plus, macii, se30, quadra900, 840av"),
        "{e}"
    );
}
