//! The seed corpus, made with Ferrite's own code (the formatter, the build tool's resource
//! fork writer, the settings block writer): a few small inputs per target that reach deep
//! into its parser. Committed under `corpus/<target>/`; `tests/short_run.rs` checks the
//! files are what this module makes.

use ferrite_formatter::apm::{self, HfsPartitionSpec, Layout, PartSize};
use ferrite_formatter::hfs::btree;
use ferrite_formatter::hfs::{
    FormatOptions, Mdb, NODE_SIZE, NewFile, NewFolder, Volume, format_volume,
};
use ferrite_formatter::{MemDisk, macbinary};
use ferrite_shared::driver_blob::{
    self, MAGIC, MAGIC_OFFSET, SETTINGS_LEN, SETTINGS_MAGIC, SETTINGS_OFFSET, Settings,
    TransferMode,
};
use retro68_build::rsrc::fork::{Resource, ResourceFork};

/// The date on everything (1 Jan 2020, Mac time), so the seeds are reproducible.
const DATE: u32 = 3_660_681_600;

/// `bytes` without its trailing zeros (the targets zero-fill disks back to their size).
fn trimmed(mut bytes: Vec<u8>) -> Vec<u8> {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    bytes.truncate(end);
    bytes
}

/// A pseudo-random but fixed byte pattern.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_be_bytes()[0] ^ seed)
        .collect()
}

/// A resource fork as the build tool writes it.
fn resource_fork(with_names: bool) -> Vec<u8> {
    let mut f = ResourceFork::new();
    f.add(Resource::new(*b"CODE", 0, pattern(40, 1)));
    f.add(Resource::new(*b"CODE", 1, pattern(90, 2)));
    let mut s = Resource::new(*b"STR ", -16396, b"\x05hello".to_vec());
    if with_names {
        s.name = Some(b"greeting".to_vec());
        s.attributes = 0x20;
    }
    f.add(s);
    f.add(Resource::new(*b"vers", 1, vec![0x07, 0x55, 0x80, 0, 0, 0]));
    f.to_bytes().expect("a valid fork")
}

/// Fill a formatted volume: a folder, a file with both forks in it, a file in the root.
fn fill(dev: &mut MemDisk) {
    let mut v = Volume::open(&mut *dev).expect("just formatted");
    let folder = v
        .create_folder(
            2,
            &NewFolder {
                name: b"Folder",
                created: DATE,
                modified: DATE,
            },
        )
        .expect("folder");
    let rsrc = resource_fork(true);
    let data = pattern(1500, 7);
    for (parent, name, data, rsrc) in [
        (folder, &b"Read Me"[..], &data[..], &rsrc[..]),
        (2, &b"Empty"[..], &[][..], &[][..]),
    ] {
        v.add_file(
            parent,
            &NewFile {
                name,
                file_type: *b"TEXT",
                creator: *b"ttxt",
                finder_flags: 0,
                data,
                rsrc,
                created: DATE,
                modified: DATE,
            },
        )
        .expect("file");
    }
    v.flush().expect("flush");
}

/// An HFS volume of `sectors` sectors, formatted and filled by the formatter.
pub fn small_volume(sectors: u64) -> Vec<u8> {
    let mut dev = MemDisk::new(sectors);
    format_volume(&mut dev, &FormatOptions::new(b"Fuzz Seed", DATE)).expect("format");
    fill(&mut dev);
    dev.into_bytes()
}

/// An empty formatted volume.
fn empty_volume(sectors: u64) -> Vec<u8> {
    let mut dev = MemDisk::new(sectors);
    format_volume(&mut dev, &FormatOptions::new(b"E", DATE)).expect("format");
    dev.into_bytes()
}

/// A driver blob head as Ferrite's driver has it: magic, a settings block of `version`,
/// the DRVR header with its name and the head's pointer table; then some code bytes.
fn driver_head(version: u16, settings: Settings) -> Vec<u8> {
    let mut b = vec![0u8; 160];
    b[MAGIC_OFFSET..MAGIC_OFFSET + 4].copy_from_slice(&MAGIC);
    let s = &mut b[SETTINGS_OFFSET..SETTINGS_OFFSET + SETTINGS_LEN];
    s[0..4].copy_from_slice(&SETTINGS_MAGIC);
    s[4..6].copy_from_slice(&version.to_be_bytes());
    s[6..8].copy_from_slice(&(SETTINGS_LEN as u16).to_be_bytes());
    b[driver_blob::DRIVER_VERSION_OFFSET..driver_blob::DRIVER_VERSION_OFFSET + 3]
        .copy_from_slice(&[0, 1, 0]);
    let name = b".Ferrite";
    let at = driver_blob::DRVR_HEADER_OFFSET + driver_blob::DRVR_FIXED_LEN;
    b[at] = name.len() as u8;
    b[at + 1..at + 1 + name.len()].copy_from_slice(name);
    let table = driver_blob::head_table_offset(&b).expect("fits");
    b[table..table + 2].copy_from_slice(&3u16.to_be_bytes());
    settings.write(&mut b).expect("a readable block");
    b
}

/// A whole disk as `ferrite init` lays it out: the map, a driver (a stand-in blob: the map
/// checks its checksum, not its code) and `hfs` HFS partitions of 800 sectors, formatted;
/// `free` blocks left over at the end.
fn disk(hfs: usize, driver: bool, free: u64) -> Vec<u8> {
    let drv = driver_head(2, Settings::default());
    let blocks = apm::DRIVER_START_BLOCK as u64
        + apm::DEFAULT_DRIVER_SLOT_BLOCKS as u64 * driver as u64
        + 800 * hfs as u64
        + free;
    let mut dev = MemDisk::new(blocks);
    let layout = Layout {
        driver: driver.then_some(&drv[..]),
        driver_slot_blocks: apm::DEFAULT_DRIVER_SLOT_BLOCKS,
        hfs: (0..hfs)
            .map(|i| HfsPartitionSpec {
                name: format!("Volume {i}"),
                size: PartSize::Blocks(800),
            })
            .collect(),
    };
    let map = apm::write_map(&mut dev, &layout).expect("map");
    for (i, p) in map.hfs_partitions().enumerate() {
        let at = p.start as usize * 512;
        let vol = if i == 0 {
            small_volume(p.blocks as u64)
        } else {
            empty_volume(p.blocks as u64)
        };
        dev.as_bytes_mut()[at..at + vol.len()].copy_from_slice(&vol);
    }
    dev.into_bytes()
}

/// Zero the alternate MDB (the sector before the last) of the volume at `at`..`at + len`:
/// the seeds are stored without it, so their trailing zeros can go; the targets take a zero
/// sector there as a copy of the MDB.
fn drop_alt_mdb(bytes: &mut [u8], at: usize, len: usize) {
    let alt = at + len - 1024;
    bytes[alt..alt + 512].fill(0);
}

fn macfile(name: &[u8], data: Vec<u8>, rsrc: Vec<u8>) -> macbinary::MacFile {
    macbinary::MacFile {
        name: name.to_vec(),
        file_type: *b"APPL",
        creator: *b"FRRT",
        finder_flags: 0x2100,
        location_v: 40,
        location_h: 80,
        folder_id: 0,
        protected: false,
        created: DATE,
        modified: DATE,
        data,
        rsrc,
    }
}

/// AppleSingle (`single`) or AppleDouble with the given entries (id, body).
fn apple_single_double(single: bool, entries: &[(u32, &[u8])]) -> Vec<u8> {
    let magic = if single {
        ferrite_formatter::appledouble::APPLE_SINGLE_MAGIC
    } else {
        ferrite_formatter::appledouble::APPLE_DOUBLE_MAGIC
    };
    let mut b = Vec::new();
    b.extend_from_slice(&magic.to_be_bytes());
    b.extend_from_slice(&0x0002_0000u32.to_be_bytes());
    b.extend_from_slice(&[0; 16]);
    b.extend_from_slice(&(entries.len() as u16).to_be_bytes());
    let mut off = 26 + 12 * entries.len();
    for (id, body) in entries {
        b.extend_from_slice(&id.to_be_bytes());
        b.extend_from_slice(&(off as u32).to_be_bytes());
        b.extend_from_slice(&(body.len() as u32).to_be_bytes());
        off += body.len();
    }
    for (_, body) in entries {
        b.extend_from_slice(body);
    }
    b
}

/// A DiskCopy 4.2 image of `data` with `tags` tag bytes.
fn diskcopy42(name: &[u8], data: &[u8], tags: usize) -> Vec<u8> {
    let mut h = vec![0u8; 84];
    h[0] = name.len() as u8;
    h[1..1 + name.len()].copy_from_slice(name);
    h[64..68].copy_from_slice(&(data.len() as u32).to_be_bytes());
    h[68..72].copy_from_slice(&(tags as u32).to_be_bytes());
    h[80] = 3; // 1440 KB MFM
    h[81] = 0x22;
    h[82..84].copy_from_slice(&[0x01, 0x00]);
    h.extend_from_slice(data);
    h.extend(pattern(tags, 9));
    h
}

/// Every seed: (target, file name, bytes).
pub fn all() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut out: Vec<(&'static str, String, Vec<u8>)> = Vec::new();
    let mut add = |t: &'static str, name: &str, b: Vec<u8>| out.push((t, name.to_string(), b));

    // Partition maps: the first blocks of whole disks (map, driver), the rest zero-filled
    // back by the target from the DDM's block count.
    for (name, hfs, driver, free) in [
        ("one-volume", 1, true, 0),
        ("two-volumes-free", 2, true, 40),
        ("no-driver", 1, false, 0),
    ] {
        let d = disk(hfs, driver, free);
        let head = 64 + apm::DEFAULT_DRIVER_SLOT_BLOCKS as usize * driver as usize;
        add("partition_map", name, trimmed(d[..head * 512].to_vec()));
    }

    // Whole disks (map, driver, HFS volumes).
    for (name, hfs, free) in [("one-volume", 1, 0), ("one-volume-free", 1, 40)] {
        let mut d = disk(hfs, true, free);
        let first = 64 + apm::DEFAULT_DRIVER_SLOT_BLOCKS as usize;
        for i in 0..hfs {
            drop_alt_mdb(&mut d, (first + 800 * i) * 512, 800 * 512);
        }
        add("disk_image", name, trimmed(d));
    }

    // Driver settings blocks.
    let s = Settings {
        write_cache: true,
        read_ahead: 16,
        transfer: TransferMode::Blind,
        max_blocks_old: 64,
        idle_flush_ticks: 30,
    };
    add(
        "driver_settings",
        "version-2-default",
        driver_head(2, Settings::default()),
    );
    add("driver_settings", "version-2-blind", driver_head(2, s));
    add(
        "driver_settings",
        "version-1",
        driver_head(
            1,
            Settings {
                write_cache: true,
                read_ahead: 8,
                transfer: TransferMode::Auto,
                max_blocks_old: 0,
                idle_flush_ticks: 0,
            },
        ),
    );

    // HFS volumes, their MDBs, B-tree nodes and catalog records.
    let full = small_volume(800);
    let mut v = full.clone();
    let len = v.len();
    drop_alt_mdb(&mut v, 0, len);
    add("hfs_volume", "filled", trimmed(v));
    let mut e = empty_volume(800);
    let len = e.len();
    drop_alt_mdb(&mut e, 0, len);
    add("hfs_volume", "empty", trimmed(e.clone()));
    add("hfs_mdb", "filled", full[1024..1536].to_vec());
    add("hfs_mdb", "empty", e[1024..1536].to_vec());
    let mdb = Mdb::read(&full[1024..]).expect("MDB");
    let node_at = |catalog: bool, n: usize| {
        let ext = if catalog {
            mdb.ct_ext_rec[0]
        } else {
            mdb.xt_ext_rec[0]
        };
        mdb.al_bl_st.get() as usize * 512
            + ext.start.get() as usize * mdb.al_blk_siz.get() as usize
            + n * NODE_SIZE
    };
    for (catalog, n) in [(true, 0), (true, 1), (true, 2), (false, 0)] {
        let at = node_at(catalog, n);
        let node: &[u8; NODE_SIZE] = full[at..at + NODE_SIZE].try_into().expect("512");
        let mut seed = vec![catalog as u8 | (n as u8) << 1];
        seed.extend_from_slice(&trimmed(node.to_vec()));
        let tree = if catalog { "catalog" } else { "extents" };
        add("hfs_btree_node", &format!("{tree}-node-{n}"), seed);
        if catalog && btree::descriptor(node).kind == btree::kind::LEAF {
            for (i, r) in btree::records(node)
                .expect("records")
                .iter()
                .enumerate()
                .take(4)
            {
                add(
                    "hfs_catalog_record",
                    &format!("leaf-{n}-record-{i}"),
                    r.to_vec(),
                );
            }
        }
    }
    let ext_key = ferrite_formatter::hfs::catalog::ExtKey {
        fork: 0xFF,
        file: 20,
        start: 3,
    };
    let mut ext = ext_key.bytes().to_vec();
    ext.extend_from_slice(&[0, 10, 0, 4, 0, 30, 0, 2, 0, 0, 0, 0]);
    add("hfs_catalog_record", "extents-record", ext);

    // Files brought in.
    add(
        "macbinary",
        "application",
        macbinary::encode(&macfile(
            b"Ferrite Setup",
            pattern(300, 3),
            resource_fork(false),
        )),
    );
    add(
        "macbinary",
        "data-only",
        macbinary::encode(&macfile(b"x", pattern(128, 4), Vec::new())),
    );
    let finder = {
        let mut f = [0u8; 32];
        f[..8].copy_from_slice(b"TEXTttxt");
        f[8] = 0x01;
        f
    };
    let rsrc = resource_fork(false);
    add(
        "appledouble",
        "appledouble",
        apple_single_double(false, &[(9, &finder), (2, &rsrc), (3, b"Read Me")]),
    );
    add(
        "appledouble",
        "applesingle",
        apple_single_double(true, &[(3, b"Note"), (1, &pattern(200, 5)), (9, &finder)]),
    );
    add(
        "diskcopy",
        "two-sectors",
        diskcopy42(b"Tiny", &pattern(1024, 6), 0),
    );
    add(
        "diskcopy",
        "with-tags",
        diskcopy42(b"Tags", &pattern(1536, 8), 36),
    );
    add("resource_fork", "unnamed", resource_fork(false));
    add("resource_fork", "named", resource_fork(true));
    add(
        "resource_fork",
        "empty",
        ResourceFork::new().to_bytes().expect("empty"),
    );
    out
}
