//! The targets: one function per parser of outside data, each asserting that parser's
//! invariants (see the crate documentation).

use std::sync::OnceLock;

use ferrite_driver::partition::{MAX_DRIVES, MAX_MAP_ENTRIES, MapBlock, examine};
use ferrite_formatter::hfs::btree::{self, Header, NodeBuf};
use ferrite_formatter::hfs::catalog::{CatData, ExtKey, compare_names};
use ferrite_formatter::hfs::{
    CatKey, EntryKind, Fork, HFS_SIGNATURE, Mdb, NODE_SIZE, NewFile, Volume, check_volume,
};
use ferrite_formatter::{
    BlockDevice, MemDisk, Region, apm, appledouble, diskcopy, macbinary, rsrc,
};
use ferrite_shared::driver_blob::{
    self, SETTINGS_LEN, SETTINGS_OFFSET, SETTINGS_VERSION, Settings, TransferMode,
};
use ferrite_shared::partition_map::{
    DriverDescriptorMap, MAX_DRIVER_DESCRIPTORS, PartitionEntry, part_type,
};
use retro68_build::rsrc::fork::ResourceFork;
use zerocopy::IntoBytes;

/// Largest disk a target builds from its input (an input may name a bigger one in its DDM or
/// MDB; the disk is then zero-filled to this size at most).
pub const MAX_DISK_BYTES: usize = 4 << 20;

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}
fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// A disk of `block_size` blocks holding `data`, zero-filled to at least `min_bytes` (capped
/// at [`MAX_DISK_BYTES`]) and to at least `min_blocks` blocks.
fn disk(data: &[u8], block_size: u32, min_bytes: u64, min_blocks: u64) -> MemDisk {
    let data = &data[..data.len().min(MAX_DISK_BYTES)];
    let bs = block_size as u64;
    let want = (data.len() as u64)
        .max(min_bytes.min(MAX_DISK_BYTES as u64))
        .div_ceil(bs)
        .max(min_blocks);
    let mut d = MemDisk::with_block_size(want, block_size);
    d.as_bytes_mut()[..data.len()].copy_from_slice(data);
    d
}

/// A whole disk from `data`: the block size its DDM names (512 unless it names 1024, 2048
/// or 4096), as many blocks as its DDM claims (within [`MAX_DISK_BYTES`]).
pub fn map_disk(data: &[u8]) -> MemDisk {
    let bs = match be16(data, 2) {
        Some(s @ (1024 | 2048 | 4096)) if be16(data, 0) == Some(0x4552) => s as u32,
        _ => 512,
    };
    let claimed = be32(data, 4).unwrap_or(0) as u64 * bs as u64;
    disk(data, bs, claimed, 2)
}

/// An HFS volume from `data`: at least 5 sectors, and as long as its MDB says the
/// allocation blocks reach (within [`MAX_DISK_BYTES`]) plus the alternate MDB.
pub fn volume_disk(data: &[u8]) -> MemDisk {
    let mut need = 0u64;
    if let Some(m) = data.get(1024..).and_then(Mdb::read)
        && m.sig_word.get() == HFS_SIGNATURE
    {
        need = m.al_bl_st.get() as u64 * 512
            + m.nm_al_blks.get() as u64 * m.al_blk_siz.get() as u64
            + 1024;
    }
    let mut d = disk(data, 512, need, 5);
    fill_alt_mdb(d.as_bytes_mut());
    d
}

/// The seeds are stored without their trailing zeros, alternate MDB included: a zero
/// sector where the alternate MDB goes (the sector before the last) is taken as a copy of
/// the MDB.
pub fn fill_alt_mdb(vol: &mut [u8]) {
    if vol.len() >= 4 * 512 {
        let alt = vol.len() - 1024;
        if vol[alt..alt + 512].iter().all(|&b| b == 0) {
            vol.copy_within(1024..1536, alt);
        }
    }
}

// ---- partition map ----

/// The driver's scan at install (driver/src/core): entry 1 gives the map's length (at most
/// [`MAX_MAP_ENTRIES`]), the scan stops at the first block that is not an entry, and keeps
/// the first [`MAX_DRIVES`] HFS partitions.
fn driver_scan(dev: &mut MemDisk, disk_blocks: u32) -> Vec<(u32, u32)> {
    let mut block = vec![0u8; dev.block_size() as usize];
    let mut out = Vec::new();
    let mut count = 1;
    let mut b = 1;
    while b <= count && (b as u64) < dev.block_count() {
        dev.read_blocks(b as u64, &mut block)
            .expect("inside the disk");
        match examine(&block, disk_blocks) {
            MapBlock::End => break,
            MapBlock::Entry { hfs, map_entries } => {
                assert!(map_entries <= MAX_MAP_ENTRIES, "the scan is bounded");
                if b == 1 {
                    count = map_entries;
                }
                if let Some(e) = hfs {
                    assert!(e.blocks > 0);
                    if disk_blocks != 0 {
                        assert!(
                            e.start as u64 + e.blocks as u64 <= disk_blocks as u64,
                            "the driver serves a partition past the disk's end"
                        );
                    }
                    if out.len() < MAX_DRIVES {
                        out.push((e.start, e.blocks));
                    }
                }
            }
        }
        b += 1;
    }
    out
}

/// Partition map: block 0 and entries as structures (read, validate, written back byte for
/// byte), the whole map as the formatter reads it (`apm::read_map`, what `ferrite check`,
/// `info` and `install-driver` start with) and the driver's own scan; where the formatter
/// accepts a map, the driver finds the same HFS partitions.
pub fn partition_map(data: &[u8]) {
    for (i, block) in data.chunks_exact(512).take(64).enumerate() {
        let ddm = DriverDescriptorMap::read(block).expect("512 bytes");
        assert_eq!(ddm.as_bytes(), block, "DDM does not write back");
        assert!(ddm.descriptors().len() <= MAX_DRIVER_DESCRIPTORS);
        let _ = ddm.validate(512, i as u64 * 1000);
        let e = PartitionEntry::read(block).expect("512 bytes");
        assert_eq!(e.as_bytes(), block, "entry does not write back");
        if e.validate(i as u32, e.map_block_count.get(), 1 << 32)
            .is_ok()
        {
            assert!(e.overlaps(&e), "a valid entry is not empty");
        }
        assert!(e.name_bytes().len() <= 32 && e.type_bytes().len() <= 32);
        if e.driver_checksum_checked() {
            assert!(e.is_driver());
        }
    }

    let mut dev = map_disk(data);
    let device_blocks = dev.block_count();
    if let Ok(map) = apm::read_map(&mut dev) {
        assert!(map.disk_blocks as u64 <= device_blocks);
        assert_eq!(map.block_size, dev.block_size());
        let n = map.partitions.len();
        assert!(n >= 1 && (n as u64) < device_blocks);
        for (i, p) in map.partitions.iter().enumerate() {
            assert!(p.blocks > 0, "empty partition accepted");
            assert!(
                p.start as u64 + p.blocks as u64 <= map.disk_blocks as u64,
                "partition past the disk accepted"
            );
            for q in &map.partitions[i + 1..] {
                assert!(!p.entry.overlaps(&q.entry), "overlap accepted");
            }
        }
        assert!(
            map.partitions
                .iter()
                .any(|p| p.kind == part_type::PARTITION_MAP && p.start == 1),
            "no map partition"
        );
        // The driver, on the same disk, serves the same HFS partitions.
        let hfs: Vec<(u32, u32)> = map
            .hfs_partitions()
            .map(|p| (p.start, p.blocks))
            .take(MAX_DRIVES)
            .collect();
        if n as u32 <= MAX_MAP_ENTRIES {
            let disk_blocks = device_blocks.min(u32::MAX as u64) as u32;
            assert_eq!(driver_scan(&mut dev, disk_blocks), hfs);
        }
    }
    // The driver's scan of any disk, whether or not the formatter accepts its map.
    let disk_blocks = be32(data, 4).unwrap_or(0);
    driver_scan(&mut dev, disk_blocks);
    driver_scan(&mut dev, 0);
}

// ---- driver settings block ----

/// The driver's settings block: `Settings::read` (the formatter, Ferrite Setup) and
/// `Settings::for_driver` (the driver) agree — the block's settings for a version-2 block
/// that reads, write-through [`Settings::FALLBACK`] otherwise; settings written back read
/// back and change nothing outside the block; the head's tables stay inside the blob.
pub fn driver_settings(data: &[u8]) {
    let read = Settings::read(data);
    let driver = Settings::for_driver(data);
    match read {
        Ok(s) if Settings::version(data) == Ok(SETTINGS_VERSION) => assert_eq!(driver, s),
        _ => assert_eq!(
            driver,
            Settings::FALLBACK,
            "a bad block must mean write-through"
        ),
    }
    if let Ok(s) = read {
        let version = Settings::version(data).expect("it reads");
        // The same settings written back.
        let mut b = data.to_vec();
        s.write(&mut b).expect("settings that read write back");
        assert_eq!(Settings::read(&b), Ok(s));
        assert_eq!(b[..SETTINGS_OFFSET], data[..SETTINGS_OFFSET]);
        assert_eq!(
            b[SETTINGS_OFFSET + SETTINGS_LEN..],
            data[SETTINGS_OFFSET + SETTINGS_LEN..]
        );
        // Other settings, taken from the input's last bytes.
        let tail = |i: usize| data[data.len() - 1 - i % data.len()];
        let other = Settings {
            write_cache: tail(0) & 1 != 0,
            read_ahead: u16::from_be_bytes([tail(1), tail(2)]),
            transfer: TransferMode::from_code(tail(3) % 3).expect("0..=2"),
            max_blocks_old: u16::from_be_bytes([tail(4), tail(5)]),
            idle_flush_ticks: u16::from_be_bytes([tail(6), tail(7)]),
        };
        let mut b = data.to_vec();
        match other.write(&mut b) {
            Ok(()) => {
                let back = Settings::read(&b).expect("written settings read");
                if version == SETTINGS_VERSION {
                    assert_eq!(back, other);
                    assert_eq!(Settings::for_driver(&b), other);
                } else {
                    assert_eq!(
                        (back.write_cache, back.read_ahead),
                        (other.write_cache, other.read_ahead)
                    );
                }
            }
            Err(_) => assert_eq!(version, 1, "only a version-1 block refuses settings"),
        }
    }
    if let Some(end) = driver_blob::head_table_offset(data) {
        assert!(end <= data.len());
    }
    if let Some(ranges) = driver_blob::head_data(data) {
        for (a, b) in ranges {
            assert!(a <= b && b <= data.len(), "head data past the blob");
        }
    }
    if let Some(ptrs) = driver_blob::head_pointers(data) {
        for p in ptrs {
            assert!(p + 4 <= data.len(), "head pointer past the blob");
        }
    }
    let _ = driver_blob::driver_version(data);
}

// ---- HFS ----

/// A small volume made by the formatter: a folder, a file with both forks in it and one in
/// the root. The MDB and B-tree targets put their input into a copy of it.
pub fn template_volume() -> &'static [u8] {
    static T: OnceLock<Vec<u8>> = OnceLock::new();
    T.get_or_init(|| crate::seeds::small_volume(800))
}

/// Run everything the formatter does with a volume it reads: `check_volume` (`ferrite
/// check`), open, list, walk, look up and read every fork (`ferrite ls`, `extract`), and
/// add a file (`ferrite add`). A volume `check_volume` finds clean must read completely,
/// and stay clean after a file is added.
pub fn exercise_volume(dev: &mut MemDisk) {
    let report = check_volume(&mut *dev);
    let clean = report.as_ref().is_ok_and(|r| r.is_clean());
    let Ok(mut vol) = Volume::open(&mut *dev) else {
        assert!(report.is_err(), "check_volume read a volume open refuses");
        return;
    };
    let info = vol.info();
    assert!(!info.name.is_empty() && info.name.len() <= 27);
    let root = vol.root();
    if clean {
        root.as_ref().expect("a clean volume has a root folder");
    }
    let items = vol.walk();
    for (path, e) in &items {
        if let EntryKind::File {
            data_len, rsrc_len, ..
        } = e.kind
        {
            for (fork, len) in [(Fork::Data, data_len), (Fork::Resource, rsrc_len)] {
                match vol.read_fork(e, fork) {
                    Ok(bytes) => assert_eq!(bytes.len(), len as usize),
                    Err(err) if clean => {
                        panic!("check_volume finds no problem, yet {path:?} reads: {err}")
                    }
                    Err(_) => {}
                }
            }
        }
        if clean {
            let names: Vec<&[u8]> = path.iter().map(|n| n.as_slice()).collect();
            let found = vol
                .lookup_path(&names)
                .unwrap_or_else(|err| panic!("clean volume: {path:?} not found: {err}"));
            assert_eq!(found.id, e.id, "clean volume: {path:?} finds another item");
        }
    }
    drop(vol);
    if !clean {
        return;
    }
    // A clean volume stays clean with one more file.
    let mut copy = dev.clone();
    let mut vol = Volume::open(&mut copy).expect("opened before");
    let file = NewFile {
        name: b"fuzz added",
        file_type: *b"TEXT",
        creator: *b"ttxt",
        finder_flags: 0,
        data: &[0x5A; 700],
        rsrc: &[],
        created: 0x8000_0000,
        modified: 0x8000_0000,
    };
    let Ok(id) = vol.add_file(2, &file) else {
        return;
    };
    if vol.flush().is_err() {
        return;
    }
    drop(vol);
    let after = check_volume(&mut copy).expect("a volume just written opens");
    assert!(
        after.is_clean(),
        "adding a file to a clean volume left problems: {:?}",
        after.problems
    );
    let mut vol = Volume::open(&mut copy).expect("opens");
    let e = vol
        .lookup(2, b"fuzz added")
        .expect("the file added is there");
    assert_eq!(e.id, id);
    assert_eq!(vol.read_fork(&e, Fork::Data).expect("reads"), file.data);
}

/// The MDB: read as a structure and written back byte for byte; then put in place of the
/// template volume's and the volume used as the formatter would.
pub fn hfs_mdb(data: &[u8]) {
    let mut sector = [0u8; 512];
    let n = data.len().min(512);
    sector[..n].copy_from_slice(&data[..n]);
    let mdb = Mdb::read(&sector).expect("512 bytes");
    assert_eq!(mdb.as_bytes(), &sector[..mdb.as_bytes().len()]);
    assert!(mdb.name().len() <= 27);
    let mut dev = MemDisk::from_bytes(template_volume().to_vec());
    dev.as_bytes_mut()[1024..1536].copy_from_slice(&sector);
    exercise_volume(&mut dev);
}

/// Where node `n` of the template's catalog (`catalog`) or extents tree lies.
fn template_node_offset(catalog: bool, n: usize) -> usize {
    let t = template_volume();
    let mdb = Mdb::read(&t[1024..]).expect("MDB");
    let ext = if catalog {
        mdb.ct_ext_rec[0]
    } else {
        mdb.xt_ext_rec[0]
    };
    mdb.al_bl_st.get() as usize * 512
        + ext.start.get() as usize * mdb.al_blk_siz.get() as usize
        + n * NODE_SIZE
}

/// Check one B-tree node on its own: its records, written back into a node, read back the
/// same; every record's key and data round-trip as catalog and extents records.
fn node_round_trip(node: &NodeBuf) {
    let d = btree::descriptor(node);
    let Ok(recs) = btree::records(node) else {
        return;
    };
    assert_eq!(recs.len(), d.records as usize);
    let again = btree::make_node(d.kind, d.height, d.flink, d.blink, &recs);
    assert_eq!(btree::descriptor(&again), d);
    assert_eq!(btree::records(&again).expect("written node reads"), recs);
    for r in &recs {
        hfs_catalog_record(r);
    }
    if let Some(h) = recs.first().and_then(|r| Header::parse(r)) {
        assert_eq!(Header::parse(&h.bytes()), Some(h));
    }
}

/// A B-tree node: byte 0 picks the tree (bit 0: catalog or extents) and the node (bits 1-2),
/// the rest is the node. Checked alone ([`node_round_trip`]), then put in place of that node
/// of the template volume and the volume used as the formatter would.
pub fn hfs_btree_node(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let mut node = [0u8; NODE_SIZE];
    let n = rest.len().min(NODE_SIZE);
    node[..n].copy_from_slice(&rest[..n]);
    node_round_trip(&node);
    let at = template_node_offset(pick & 1 != 0, (pick as usize >> 1) & 3);
    let mut dev = MemDisk::from_bytes(template_volume().to_vec());
    dev.as_bytes_mut()[at..at + NODE_SIZE].copy_from_slice(&node);
    exercise_volume(&mut dev);
}

/// A catalog or extents record: keys and data parsed, written and parsed again the same;
/// the catalog's name order is a total order (the first key against the record's second
/// half read as a key).
pub fn hfs_catalog_record(rec: &[u8]) {
    if let Some((key, at)) = CatKey::parse(rec) {
        assert!(at <= rec.len() + 1 && at.is_multiple_of(2));
        assert!(key.name.len() <= 31);
        let bytes = key.leaf_bytes();
        let (back, back_at) = CatKey::parse(&bytes).expect("written key reads");
        assert_eq!(back, key);
        assert_eq!(back_at, bytes.len());
        assert_eq!(key.cmp_mac(&key), core::cmp::Ordering::Equal);
        let index = key.index_bytes();
        assert_eq!(index.len(), 38);
        assert_eq!(CatKey::parse(&index).expect("index key reads").0, key);
        if let Some(data) = rec.get(at..)
            && let Some(d) = CatData::parse(data)
        {
            assert_eq!(d.bytes(), &data[..d.bytes().len()]);
            assert_eq!(CatData::parse(d.bytes()), Some(d.clone()));
            let leaf = ferrite_formatter::hfs::catalog::leaf_record(&key, &d);
            let (k2, at2) = CatKey::parse(&leaf).expect("leaf record reads");
            assert_eq!(k2, key);
            assert_eq!(CatData::parse(&leaf[at2..]), Some(d));
        }
        let half = rec.len() / 2;
        if let Some((other, _)) = CatKey::parse(&rec[half..]) {
            assert_eq!(key.cmp_mac(&other), other.cmp_mac(&key).reverse());
            assert_eq!(
                compare_names(&key.name, &other.name),
                compare_names(&other.name, &key.name).reverse()
            );
        }
    }
    if let Some((key, at)) = ExtKey::parse(rec) {
        assert_eq!(at, 8);
        assert_eq!(ExtKey::parse(&key.bytes()), Some((key, 8)));
    }
}

/// A whole HFS volume (a bare volume image: `ferrite convert`'s input, or a partition's
/// contents), used as the formatter would ([`exercise_volume`]).
pub fn hfs_volume(data: &[u8]) {
    let mut dev = volume_disk(data);
    exercise_volume(&mut dev);
}

/// A whole disk as `ferrite check` reads it: the partition map, then every HFS partition's
/// volume checked and used.
pub fn disk_image(data: &[u8]) {
    let mut dev = map_disk(data);
    let Ok(map) = apm::read_map(&mut dev) else {
        return;
    };
    let bs = map.block_size as u64;
    for p in map.hfs_partitions().take(4) {
        let r = Region::new(&mut dev, p.start as u64, p.blocks as u64)
            .expect("read_map keeps partitions on the disk");
        let mut bytes = vec![0u8; (r.block_count() * bs).min(MAX_DISK_BYTES as u64) as usize];
        let mut r = r;
        r.read_blocks(0, &mut bytes).expect("inside the partition");
        fill_alt_mdb(&mut bytes);
        exercise_volume(&mut MemDisk::from_bytes(bytes));
    }
}

// ---- files brought in ----

/// MacBinary II/III: what reads is written (`encode`) and reads back the same; the forks
/// lie in the input.
pub fn macbinary(data: &[u8]) {
    let parsed = macbinary::parse(data);
    assert_eq!(macbinary::is_macbinary(data), parsed.is_ok());
    let Ok(f) = parsed else {
        return;
    };
    assert!(128 + f.data.len() + f.rsrc.len() <= data.len());
    assert!((1..=63).contains(&f.name.len()));
    let bytes = macbinary::encode(&f);
    assert_eq!(
        macbinary::parse(&bytes),
        Ok(f.clone()),
        "MacBinary round trip"
    );
    assert_eq!(
        bytes.len(),
        128 + f.data.len().div_ceil(128) * 128 + f.rsrc.len().div_ceil(128) * 128
    );
}

/// AppleSingle/AppleDouble: every entry taken lies in the input; the kind follows the
/// magic number.
pub fn appledouble(data: &[u8]) {
    let Ok(ad) = appledouble::parse(data) else {
        return;
    };
    assert_eq!(
        ad.single,
        be32(data, 0) == Some(appledouble::APPLE_SINGLE_MAGIC)
    );
    for part in [
        ad.data.as_deref(),
        Some(&ad.rsrc[..]),
        ad.real_name.as_deref(),
    ]
    .into_iter()
    .flatten()
    {
        assert!(part.len() <= data.len());
    }
    let _ = (ad.file_type(), ad.creator(), ad.finder_flags());
}

/// DiskCopy 4.2: the data area is a whole number of sectors inside the image, and the
/// volume in it is used as `ferrite convert` would.
pub fn diskcopy(data: &[u8]) {
    let Some(d) = diskcopy::data(data) else {
        return;
    };
    assert!(!d.is_empty() && d.len().is_multiple_of(512));
    assert_eq!(
        d,
        &data[diskcopy::HEADER_LEN..diskcopy::HEADER_LEN + d.len()]
    );
    exercise_volume(&mut volume_disk(d));
}

/// Resource forks: the formatter's reader (`ferrite add --system`, Ferrite Setup's check)
/// keeps every resource's data inside the fork, and agrees with the build tool's reader
/// (`cargo xtask verify FILE.rsrc`) on every fork that one accepts; what the build tool
/// reads, it writes, and reads back the same.
pub fn resource_fork(data: &[u8]) {
    let formatter = rsrc::resource_list(data);
    if let Ok(list) = &formatter {
        for (_, _, r) in list {
            assert!(r.start <= r.end && r.end <= data.len());
        }
        let ids = rsrc::resources(data).expect("same check");
        assert_eq!(ids.len(), list.len());
        if let Some(&(t, id, ref r)) = list.first() {
            assert_eq!(
                rsrc::resource(data, &t, id).expect("reads"),
                Some(data[r.clone()].to_vec())
            );
        }
    }
    let Ok(fork) = ResourceFork::parse(data) else {
        return;
    };
    let list = formatter.expect("the formatter refuses a fork the build tool reads");
    assert_eq!(list.len(), fork.resources.len());
    for ((t, id, r), res) in list.iter().zip(&fork.resources) {
        assert_eq!(
            (*t, *id, &data[r.clone()]),
            (res.rtype, res.id, &res.data[..])
        );
    }
    if let Ok(bytes) = fork.to_bytes() {
        let back = ResourceFork::parse(&bytes).expect("a written fork reads");
        let mut a = fork.resources.clone();
        let mut b = back.resources;
        a.sort_by_key(|r| (r.rtype, r.id));
        b.sort_by_key(|r| (r.rtype, r.id));
        assert_eq!(a, b, "resource fork round trip");
        assert_eq!(rsrc::resources(&bytes).map(|v| v.len()), Ok(a.len()));
    }
}
