//! HFS volumes: format, add, list, read, check, on memory disks.

use ferrite_formatter::hfs::{
    self, EntryKind, Fork, FormatOptions, HfsError, NewFile, NewFolder, Volume, check_volume,
    format_volume,
};
use ferrite_formatter::{BlockDevice, MemDisk};

const T0: u32 = 3_000_000_000;

fn fresh(sectors: u64, name: &[u8]) -> MemDisk {
    let mut d = MemDisk::new(sectors);
    format_volume(&mut d, &FormatOptions::new(name, T0)).unwrap();
    d
}

fn file<'a>(name: &'a [u8], data: &'a [u8], rsrc: &'a [u8]) -> NewFile<'a> {
    NewFile {
        name,
        file_type: *b"TEXT",
        creator: *b"ttxt",
        finder_flags: 0x0100,
        data,
        rsrc,
        created: T0 + 1,
        modified: T0 + 2,
    }
}

#[test]
fn fresh_volume_matches_the_libhfs_layout() {
    let d = fresh(40_960, b"Test Vol");
    let b = d.as_bytes();
    assert!(b[..1024].iter().all(|&x| x == 0), "boot blocks are zero");
    let mdb = &b[1024..1536];
    assert_eq!(&mdb[0..2], b"BD");
    assert_eq!(&mdb[0x0A..0x0C], &[0x01, 0x00]);
    assert_eq!(&mdb[0x0E..0x10], &[0, 3]);
    assert_eq!(u16::from_be_bytes([mdb[0x12], mdb[0x13]]), 40_945);
    assert_eq!(u16::from_be_bytes([mdb[0x1C], mdb[0x1D]]), 13);
    assert_eq!(u32::from_be_bytes(mdb[0x1E..0x22].try_into().unwrap()), 16);
    assert_eq!(&mdb[0x24..0x2D], b"\x08Test Vol");
    assert_eq!(&b[40_958 * 512..40_959 * 512], mdb, "alternate MDB");
    // Catalog leaf (node 1): the bytes of mac-facts §14.9.
    let blk = 512usize;
    let tree_blocks = u16::from_be_bytes([mdb[0x98], mdb[0x99]]) as usize;
    let cat = 13 * 512 + tree_blocks * blk;
    let leaf = &b[cat + 512..cat + 1024];
    assert_eq!(leaf[8], 0xFF);
    assert_eq!(leaf[9], 1);
    assert_eq!(&leaf[10..12], &[0, 2]);
    assert_eq!(&leaf[14..30], b"\x0F\x00\x00\x00\x00\x01\x08Test Vol\x00");
    assert_eq!(&leaf[100..108], &[7, 0, 0, 0, 0, 2, 0, 0]);
    assert_eq!(&leaf[108..122], &[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert_eq!(&leaf[506..512], &[0, 154, 0, 100, 0, 14]);
    let v = Volume::open(d).unwrap();
    let info = v.info();
    assert_eq!(info.name, b"Test Vol");
    assert_eq!(info.files, 0);
    assert_eq!(v.root().unwrap().id, 2);
    assert!(v.list(2).is_empty());
}

#[test]
fn add_files_and_folders_then_read_them_back() {
    let d = fresh(20_000, b"Work");
    let mut v = Volume::open(d).unwrap();
    let data: Vec<u8> = (0..3000u32).map(|i| i as u8).collect();
    let rsrc = vec![0x5A; 700];
    let id = v.add_file(2, &file(b"Hello", &data, &rsrc)).unwrap();
    assert_eq!(id, 16);
    let apps = v
        .create_folder(
            2,
            &NewFolder {
                name: b"Apps",
                created: T0,
                modified: T0,
            },
        )
        .unwrap();
    let deep = v.make_folders(&[b"Apps", b"Deep", b"Deeper"], T0).unwrap();
    v.add_file(deep, &file(b"Empty", b"", b"")).unwrap();
    v.add_file(apps, &file(b"OnlyRsrc", b"", b"resource!"))
        .unwrap();
    assert!(matches!(
        v.add_file(2, &file(b"HELLO", b"x", b"")),
        Err(HfsError::Exists(_))
    ));
    assert!(matches!(
        v.add_file(99, &file(b"x", b"x", b"")),
        Err(HfsError::NotFound(_))
    ));
    assert!(matches!(
        v.add_file(2, &file(b"a:b", b"x", b"")),
        Err(HfsError::BadName(_))
    ));
    v.flush().unwrap();
    let d = v.into_device();

    let report = check_volume(d.clone()).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let mut v = Volume::open(d).unwrap();
    let info = v.info();
    assert_eq!((info.files, info.folders), (3, 3));
    assert_eq!(v.mdb().nm_fls.get(), 1);
    assert_eq!(v.mdb().nm_rt_dirs.get(), 1);
    let hello = v.lookup_path(&[b"hello"]).unwrap();
    match hello.kind {
        EntryKind::File {
            file_type,
            creator,
            finder_flags,
            data_len,
            rsrc_len,
            ..
        } => {
            assert_eq!(
                (&file_type, &creator, finder_flags, data_len, rsrc_len),
                (b"TEXT", b"ttxt", 0x0100, 3000, 700)
            );
        }
        _ => panic!("not a file"),
    }
    assert_eq!(v.read_fork(&hello, Fork::Data).unwrap(), data);
    assert_eq!(v.read_fork(&hello, Fork::Resource).unwrap(), rsrc);
    let only = v.lookup_path(&[b"Apps", b"OnlyRsrc"]).unwrap();
    assert_eq!(v.read_fork(&only, Fork::Resource).unwrap(), b"resource!");
    assert!(v.read_fork(&only, Fork::Data).unwrap().is_empty());
    let names: Vec<String> = v
        .walk()
        .iter()
        .map(|(p, _)| {
            p.iter()
                .map(|n| String::from_utf8_lossy(n))
                .collect::<Vec<_>>()
                .join(":")
        })
        .collect();
    assert_eq!(
        names,
        [
            "Apps",
            "Apps:Deep",
            "Apps:Deep:Deeper",
            "Apps:Deep:Deeper:Empty",
            "Apps:OnlyRsrc",
            "Hello"
        ]
    );
    assert_eq!(v.root().unwrap().kind, EntryKind::Folder { valence: 2 });
}

#[test]
fn many_files_split_the_catalog_and_grow_it() {
    // Tiny catalog (4 KiB = 8 nodes) forces index nodes and growth.
    let mut d = MemDisk::new(4000);
    let mut opts = FormatOptions::new(b"Many", T0);
    opts.tree_bytes = Some(4096);
    format_volume(&mut d, &opts).unwrap();
    let mut v = Volume::open(d).unwrap();
    for i in 0..40u32 {
        let name = format!("File number {i:03}");
        let body = format!("contents of {i}");
        v.add_file(2, &file(name.as_bytes(), body.as_bytes(), b""))
            .unwrap();
    }
    v.flush().unwrap();
    let d = v.into_device();
    let report = check_volume(d.clone()).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let mut v = Volume::open(d).unwrap();
    assert_eq!(v.list(2).len(), 40);
    assert!(v.info().catalog_bytes > 4096);
    let e = v.lookup(2, b"file NUMBER 023").unwrap();
    assert_eq!(v.read_fork(&e, Fork::Data).unwrap(), b"contents of 23");
}

#[test]
fn full_and_fragmented_volumes_fail_cleanly() {
    let d = fresh(1000, b"Small");
    let mut v = Volume::open(d).unwrap();
    let free = v.info().free_blocks as usize;
    let big = vec![1u8; (free + 1) * 512];
    assert!(matches!(
        v.add_file(2, &file(b"Big", &big, b"")),
        Err(HfsError::DiskFull { .. })
    ));
    // Nothing changed.
    assert_eq!(v.info().free_blocks as usize, free);
    // Fragment: fill with one-block files, then free every other... (no delete): fill and
    // ask for more than the largest run.
    let a = vec![2u8; (free / 2) * 512];
    v.add_file(2, &file(b"A", &a, b"")).unwrap();
    let rest = v.info().free_blocks as usize;
    let too = vec![3u8; (rest + 1) * 512];
    assert!(matches!(
        v.add_file(2, &file(b"B", &too, b"")),
        Err(HfsError::DiskFull { .. })
    ));
    v.flush().unwrap();
    let report = check_volume(v.into_device()).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

#[test]
fn boot_blocks_and_limits() {
    let mut d = MemDisk::new(1000);
    let mut bb = [0u8; 1024];
    let mut o = FormatOptions::new(b"Boot", T0);
    o.boot_blocks = Some(&bb);
    assert_eq!(format_volume(&mut d, &o), Err(HfsError::BadBootBlocks));
    bb[0..2].copy_from_slice(b"LK");
    bb[100] = 9;
    let o = FormatOptions {
        boot_blocks: Some(&bb),
        ..FormatOptions::new(b"Boot", T0)
    };
    format_volume(&mut d, &o).unwrap();
    assert_eq!(&d.as_bytes()[..1024], &bb);
    assert!(matches!(
        format_volume(&mut MemDisk::new(799), &FormatOptions::new(b"x", T0)),
        Err(HfsError::VolumeSize { sectors: 799 })
    ));
    assert!(matches!(
        format_volume(
            &mut MemDisk::new(1000),
            &FormatOptions::new(b"a name that is too long here", T0)
        ),
        Err(HfsError::BadName(_))
    ));
    assert_eq!(hfs::mac_time_from_unix(0), 2_082_844_800);
}

#[test]
fn other_block_sizes_hold_a_volume() {
    let mut d = MemDisk::with_block_size(500, 2048);
    format_volume(&mut d, &FormatOptions::new(b"CD", T0)).unwrap();
    let mut v = Volume::open(&mut d).unwrap();
    v.add_file(2, &file(b"f", b"abc", b"")).unwrap();
    v.flush().unwrap();
    let e = v.lookup(2, b"f").unwrap();
    assert_eq!(v.read_fork(&e, Fork::Data).unwrap(), b"abc");
    assert_eq!(d.block_count(), 500);
}
