//! Damaged input never panics: random byte changes in a formatted, populated volume and in a
//! partition map give errors or problem reports, never a panic.

use ferrite_formatter::apm::{Layout, read_map, write_map};
use ferrite_formatter::hfs::{Fork, FormatOptions, NewFile, Volume, check_volume, format_volume};
use ferrite_formatter::{MemDisk, appledouble, macbinary};
use proptest::prelude::*;
use std::sync::OnceLock;

fn populated() -> &'static MemDisk {
    static DISK: OnceLock<MemDisk> = OnceLock::new();
    DISK.get_or_init(|| {
        let mut d = MemDisk::new(1600);
        let mut o = FormatOptions::new(b"Fuzz", 1);
        o.tree_bytes = Some(4096);
        format_volume(&mut d, &o).unwrap();
        let mut v = Volume::open(&mut d).unwrap();
        let dir = v.make_folders(&[b"A", b"B"], 1).unwrap();
        for i in 0..12u32 {
            let name = format!("file {i}");
            let data = vec![i as u8; 700 * i as usize];
            v.add_file(
                if i % 2 == 0 { 2 } else { dir },
                &NewFile {
                    name: name.as_bytes(),
                    file_type: *b"TEXT",
                    creator: *b"ttxt",
                    finder_flags: 0,
                    data: &data,
                    rsrc: &data[..data.len() / 3],
                    created: 1,
                    modified: 1,
                },
            )
            .unwrap();
        }
        v.flush().unwrap();
        d
    })
}

/// Read everything the reader offers; errors are fine, panics are not.
fn exercise(d: MemDisk) {
    let _ = check_volume(d.clone());
    if let Ok(mut v) = Volume::open(d) {
        let _ = v.info();
        let _ = v.root();
        for (_, e) in v.walk() {
            if !e.is_folder() {
                let _ = v.read_fork(&e, Fork::Data);
                let _ = v.read_fork(&e, Fork::Resource);
            }
        }
        let _ = v.add_file(
            2,
            &NewFile {
                name: b"new",
                file_type: *b"TEXT",
                creator: *b"ttxt",
                finder_flags: 0,
                data: b"x",
                rsrc: b"",
                created: 1,
                modified: 1,
            },
        );
        let _ = v.flush();
    }
}

/// Where the metadata lives in the populated volume (boot blocks, MDB, bitmap, the two B-tree
/// files): flips there are the interesting ones.
const METADATA_BYTES: usize = 512 * 40;

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn byte_flips_in_metadata_never_panic(flips in prop::collection::vec((0..METADATA_BYTES, any::<u8>()), 1..8)) {
        let mut d = populated().clone();
        for (at, x) in flips {
            d.as_bytes_mut()[at] ^= x | 1;
        }
        exercise(d);
    }

    #[test]
    fn byte_flips_anywhere_never_panic(flips in prop::collection::vec((0..1600 * 512usize, any::<u8>()), 1..16)) {
        let mut d = populated().clone();
        for (at, x) in flips {
            d.as_bytes_mut()[at] ^= x | 1;
        }
        exercise(d);
    }

    #[test]
    fn truncated_volumes_never_panic(len in 0..1600 * 512usize) {
        exercise(MemDisk::from_bytes(populated().as_bytes()[..len].to_vec()));
    }

    #[test]
    fn damaged_partition_maps_never_panic(flips in prop::collection::vec((0..6 * 512usize, any::<u8>()), 1..8), len in 0..200usize) {
        let mut d = MemDisk::new(200);
        write_map(&mut d, &Layout::single(Some(&[1, 2, 3]), "V")).unwrap();
        for (at, x) in flips {
            d.as_bytes_mut()[at] ^= x | 1;
        }
        let _ = read_map(&mut d);
        let _ = read_map(&mut MemDisk::from_bytes(d.as_bytes()[..len * 512].to_vec()));
    }

    #[test]
    fn container_parsers_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = macbinary::parse(&bytes);
        let _ = appledouble::parse(&bytes);
        let mut ad = bytes.clone();
        if ad.len() >= 8 {
            ad[..8].copy_from_slice(&[0, 5, 0x16, 7, 0, 2, 0, 0]);
            let _ = appledouble::parse(&ad);
        }
    }
}

#[test]
fn the_populated_volume_is_clean() {
    let r = check_volume(populated().clone()).unwrap();
    assert!(r.is_clean(), "{:?}", r.problems);
    assert_eq!((r.files, r.folders), (12, 2));
}
