//! Consistency check: the MDB against the bitmap and the catalog, fork extents, and the
//! structure of both B*-trees. [`check_volume`] fails only when the volume cannot be read at
//! all; everything else is a [`Problem`] in the report.

use super::btree::{self, Header, TreeFile};
use super::catalog::{CatData, CatKey, ExtKey};
use super::{HFS_SIGNATURE, HfsError, NODE_SIZE, Volume, cnid};
use crate::device::{BlockDevice, read_bytes};
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;

/// Who owns an allocation block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    ExtentsFile,
    CatalogFile,
    /// File CNID and fork (false = data, true = resource).
    Fork {
        file: u32,
        resource: bool,
    },
}

/// One inconsistency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The alternate MDB (sector N−2) has no 'BD' signature.
    AltMdbMissing,
    /// `drFreeBks` disagrees with the bitmap.
    FreeCount { mdb: u16, bitmap: u32 },
    /// A block some fork uses is free in the bitmap (first such block, how many).
    UsedBlockMarkedFree { first: u32, count: u32 },
    /// A block marked in use belongs to nothing (first such block, how many).
    LeakedBlocks { first: u32, count: u32 },
    /// Two extents share a block.
    Overlap {
        block: u32,
        first: Owner,
        second: Owner,
    },
    /// A fork's extents are unusable (beyond the volume, too short...).
    BadFork { owner: Owner, what: &'static str },
    /// Physical length ≠ allocated blocks × block size, or logical > physical.
    ForkLength {
        owner: Owner,
        logical: u32,
        physical: u32,
        allocated: u64,
    },
    /// MDB counts disagree with the catalog.
    Count {
        field: &'static str,
        mdb: u32,
        catalog: u32,
    },
    /// A CNID is ≥ `drNxtCNID`.
    CnidNotBelowNext { cnid: u32, next: u32 },
    /// The same CNID is used twice.
    DuplicateCnid(u32),
    /// A folder's valence disagrees with its contents.
    Valence {
        folder: u32,
        recorded: u16,
        actual: u32,
    },
    /// A folder has no thread record, or its thread names another key.
    FolderThread { folder: u32 },
    /// A file thread does not name the file's key.
    FileThread { file: u32 },
    /// A record's parent is not a folder on the volume.
    Orphan { parent: u32 },
    /// The root folder record is missing or wrong.
    Root,
    /// A B*-tree structure problem.
    Tree {
        tree: &'static str,
        node: u32,
        what: &'static str,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::AltMdbMissing => write!(f, "the alternate MDB is missing"),
            Problem::FreeCount { mdb, bitmap } => {
                write!(f, "the MDB says {mdb} free blocks, the bitmap has {bitmap}")
            }
            Problem::UsedBlockMarkedFree { first, count } => {
                write!(
                    f,
                    "{count} blocks in use are free in the bitmap (first: {first})"
                )
            }
            Problem::LeakedBlocks { first, count } => {
                write!(
                    f,
                    "{count} blocks are marked in use but belong to nothing (first: {first})"
                )
            }
            Problem::Overlap {
                block,
                first,
                second,
            } => {
                write!(f, "block {block} belongs to both {first:?} and {second:?}")
            }
            Problem::BadFork { owner, what } => write!(f, "{owner:?}: {what}"),
            Problem::ForkLength {
                owner,
                logical,
                physical,
                allocated,
            } => write!(
                f,
                "{owner:?}: logical length {logical}, physical length {physical}, allocated {allocated} bytes"
            ),
            Problem::Count {
                field,
                mdb,
                catalog,
            } => {
                write!(
                    f,
                    "{field} is {mdb} in the MDB but {catalog} in the catalog"
                )
            }
            Problem::CnidNotBelowNext { cnid, next } => {
                write!(f, "CNID {cnid} is not below drNxtCNID {next}")
            }
            Problem::DuplicateCnid(id) => write!(f, "CNID {id} is used twice"),
            Problem::Valence {
                folder,
                recorded,
                actual,
            } => {
                write!(
                    f,
                    "folder {folder} has valence {recorded} but holds {actual} items"
                )
            }
            Problem::FolderThread { folder } => {
                write!(f, "folder {folder} has no matching thread record")
            }
            Problem::FileThread { file } => {
                write!(f, "file {file}'s thread record does not match it")
            }
            Problem::Orphan { parent } => write!(f, "a record's parent {parent} is not a folder"),
            Problem::Root => write!(f, "the root folder record is missing or wrong"),
            Problem::Tree { tree, node, what } => write!(f, "{tree} B*-tree node {node}: {what}"),
        }
    }
}

/// What [`check_volume`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    pub problems: Vec<Problem>,
    pub files: u32,
    pub folders: u32,
    pub used_blocks: u32,
}

impl CheckReport {
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tree {
    Catalog,
    Extents,
}

fn key_cmp(t: Tree, a: &[u8], b: &[u8]) -> Option<Ordering> {
    match t {
        Tree::Catalog => Some(CatKey::parse(a)?.0.cmp_mac(&CatKey::parse(b)?.0)),
        Tree::Extents => Some(ExtKey::parse(a)?.0.cmp_key(&ExtKey::parse(b)?.0)),
    }
}

/// Check the volume on `dev`.
pub fn check_volume<D: BlockDevice>(dev: D) -> Result<CheckReport, HfsError> {
    let mut v = Volume::open(dev)?;
    let mut problems = Vec::new();
    let mut alt = [0u8; 2];
    read_bytes(&mut v.dev, (v.sectors - 2) * 512, &mut alt)?;
    if u16::from_be_bytes(alt) != HFS_SIGNATURE {
        problems.push(Problem::AltMdbMissing);
    }
    let cat_file = v.cat_file.clone();
    let ext_file = v.ext_file.clone();
    check_tree(&mut v, &cat_file, Tree::Catalog, &mut problems)?;
    check_tree(&mut v, &ext_file, Tree::Extents, &mut problems)?;
    let (files, folders) = check_catalog(&v, &mut problems);
    let used_blocks = check_allocation(&v, &mut problems);
    Ok(CheckReport {
        problems,
        files,
        folders,
        used_blocks,
    })
}

fn check_tree<D: BlockDevice>(
    v: &mut Volume<D>,
    file: &TreeFile,
    t: Tree,
    problems: &mut Vec<Problem>,
) -> Result<(), HfsError> {
    let tree = file.name;
    let mut bad = |node: u32, what: &'static str| problems.push(Problem::Tree { tree, node, what });
    let h: Header = v.read_header(file)?;
    if h.total_nodes != file.nodes() {
        bad(0, "bthNNodes is not the file length in nodes");
    }
    let want_key = if t == Tree::Catalog { 0x25 } else { 7 };
    if h.max_key_len != want_key {
        bad(0, "bthKeyLen is wrong for this tree");
    }
    // Walk from the root, level by level, collecting every node reached.
    let mut reached: Vec<u32> = vec![0];
    let mut leaves_in_order: Vec<u32> = Vec::new();
    let mut leaf_records = 0u32;
    if h.root == 0 {
        if h.depth != 0 || h.leaf_records != 0 || h.first_leaf != 0 || h.last_leaf != 0 {
            bad(
                0,
                "empty tree (root 0) with nonzero depth, records or leaf links",
            );
        }
    } else {
        // (node, expected height, expected first key or none)
        let mut level: Vec<(u32, Option<Vec<u8>>)> = vec![(h.root, None)];
        let mut height = h.depth;
        let mut prev_last_key: Option<Vec<u8>> = None;
        while height >= 1 && !level.is_empty() {
            let mut next_level = Vec::new();
            let mut prev_node = 0u32;
            for (i, (n, first_key)) in level.iter().enumerate() {
                if reached.contains(n) || reached.len() as u32 > file.nodes() {
                    bad(*n, "node reached twice (cycle or shared child)");
                    return Ok(());
                }
                reached.push(*n);
                let node = match v.read_node(file, *n) {
                    Ok(node) => node,
                    Err(_) => {
                        bad(*n, "index points outside the file");
                        continue;
                    }
                };
                let d = btree::descriptor(&node);
                let want_kind = if height == 1 {
                    btree::kind::LEAF
                } else {
                    btree::kind::INDEX
                };
                if d.kind != want_kind || d.height as u16 != height {
                    bad(*n, "wrong node kind or height for its level");
                }
                if d.blink != prev_node {
                    bad(*n, "back link does not name the previous node of the level");
                }
                let want_flink = level.get(i + 1).map_or(0, |x| x.0);
                if d.flink != want_flink {
                    bad(*n, "forward link does not name the next node of the level");
                }
                prev_node = *n;
                let recs = match btree::records(&node) {
                    Ok(r) => r,
                    Err(w) => {
                        bad(*n, w);
                        continue;
                    }
                };
                if recs.is_empty() {
                    bad(*n, "node has no records");
                    continue;
                }
                if let Some(k) = first_key
                    && key_cmp(t, k, recs[0]) != Some(Ordering::Equal)
                {
                    bad(*n, "index key differs from the child's first key");
                }
                for r in &recs {
                    if let Some(p) = &prev_last_key
                        && key_cmp(t, p, r) != Some(Ordering::Less)
                    {
                        bad(*n, "keys out of order");
                    }
                    prev_last_key = Some(r.to_vec());
                    if height > 1 {
                        let klen = r[0] as usize + 1;
                        let at = (klen + 1) & !1;
                        let at = if t == Tree::Catalog { klen } else { at };
                        match r.get(at..at + 4) {
                            Some(p) => next_level.push((
                                u32::from_be_bytes(p.try_into().unwrap_or_default()),
                                Some(r[..klen].to_vec()),
                            )),
                            None => bad(*n, "short index record"),
                        }
                    }
                }
                if height == 1 {
                    leaves_in_order.push(*n);
                    leaf_records += recs.len() as u32;
                }
            }
            level = next_level;
            prev_last_key = None;
            height -= 1;
        }
        if leaves_in_order.first() != Some(&h.first_leaf)
            || leaves_in_order.last() != Some(&h.last_leaf)
        {
            bad(0, "bthFNode/bthLNode do not name the first and last leaves");
        }
        if leaf_records != h.leaf_records {
            bad(0, "bthNRecs differs from the records in the leaves");
        }
    }
    // Map nodes.
    let mut m = btree::descriptor(&v.read_node(file, 0)?).flink;
    let mut hops = 0;
    while m != 0 && hops <= file.nodes() {
        reached.push(m);
        match v.read_node(file, m) {
            Ok(node) if btree::descriptor(&node).kind == btree::kind::MAP => {
                m = btree::descriptor(&node).flink
            }
            _ => {
                bad(m, "map chain names a node that is not a map node");
                break;
            }
        }
        hops += 1;
    }
    let marked = v.used_nodes(file, &h)?;
    for n in &reached {
        if !marked.contains(n) {
            bad(*n, "node in use but free in the map");
        }
    }
    if marked.len() != reached.len() {
        bad(0, "the map marks nodes that the tree does not use");
    }
    if h.free_nodes as u64 + marked.len() as u64 != h.total_nodes as u64 {
        bad(0, "bthFree is not the number of unmarked nodes");
    }
    let _ = NODE_SIZE;
    Ok(())
}

fn check_catalog<D: BlockDevice>(v: &Volume<D>, problems: &mut Vec<Problem>) -> (u32, u32) {
    let next = v.mdb.nxt_cnid.get();
    let mut ids: BTreeMap<u32, ()> = BTreeMap::new();
    let mut folders: BTreeMap<u32, (usize, u32)> = BTreeMap::new(); // id -> (index, children)
    let (mut files, mut dirs, mut root_files, mut root_dirs) = (0u32, 0u32, 0u32, 0u32);
    let mut use_id = |id: u32, problems: &mut Vec<Problem>| {
        if ids.insert(id, ()).is_some() {
            problems.push(Problem::DuplicateCnid(id));
        }
        if id >= next && id >= cnid::FIRST_USER {
            problems.push(Problem::CnidNotBelowNext { cnid: id, next });
        }
    };
    for (i, (k, d)) in v.catalog.iter().enumerate() {
        match d {
            CatData::Folder(f) => {
                use_id(f.dir_id.get(), problems);
                folders.insert(f.dir_id.get(), (i, 0));
                if f.dir_id.get() != cnid::ROOT {
                    dirs += 1;
                    if k.parent == cnid::ROOT {
                        root_dirs += 1;
                    }
                }
            }
            CatData::File(f) => {
                use_id(f.fl_num.get(), problems);
                files += 1;
                if k.parent == cnid::ROOT {
                    root_files += 1;
                }
            }
            CatData::Thread(_) => {}
        }
    }
    match v.root() {
        Ok(r) if r.parent == cnid::ROOT_PARENT => {}
        _ => problems.push(Problem::Root),
    }
    let find = |key: &CatKey| v.catalog.binary_search_by(|(k, _)| k.cmp_mac(key)).ok();
    for (k, d) in &v.catalog {
        match d {
            CatData::Folder(_) | CatData::File(_) => {
                if k.parent == cnid::ROOT_PARENT {
                    continue;
                }
                match folders.get_mut(&k.parent) {
                    Some(e) => e.1 += 1,
                    None => problems.push(Problem::Orphan { parent: k.parent }),
                }
            }
            CatData::Thread(t) => {
                let target = find(&CatKey::new(t.parent.get(), t.name()));
                let ok = match (target.map(|i| &v.catalog[i].1), t.is_folder_thread()) {
                    (Some(CatData::Folder(f)), true) => f.dir_id.get() == k.parent,
                    (Some(CatData::File(f)), false) => f.fl_num.get() == k.parent,
                    _ => false,
                };
                if !ok {
                    if t.is_folder_thread() {
                        problems.push(Problem::FolderThread { folder: k.parent });
                    } else {
                        problems.push(Problem::FileThread { file: k.parent });
                    }
                }
            }
        }
    }
    for (id, (i, children)) in &folders {
        if let CatData::Folder(f) = &v.catalog[*i].1
            && f.valence.get() as u32 != *children
        {
            problems.push(Problem::Valence {
                folder: *id,
                recorded: f.valence.get(),
                actual: *children,
            });
        }
        if find(&CatKey::new(*id, b"")).is_none() {
            problems.push(Problem::FolderThread { folder: *id });
        }
    }
    let m = &v.mdb;
    for (field, mdb, cat) in [
        ("drNmFls", m.nm_fls.get() as u32, root_files),
        ("drNmRtDirs", m.nm_rt_dirs.get() as u32, root_dirs),
        ("drFilCnt", m.fil_cnt.get(), files),
        ("drDirCnt", m.dir_cnt.get(), dirs),
    ] {
        if mdb != cat {
            problems.push(Problem::Count {
                field,
                mdb,
                catalog: cat,
            });
        }
    }
    (files, dirs)
}

fn check_allocation<D: BlockDevice>(v: &Volume<D>, problems: &mut Vec<Problem>) -> u32 {
    let nm = v.mdb.nm_al_blks.get() as usize;
    let blk = v.mdb.al_blk_siz.get() as u64;
    let mut owner: Vec<Option<Owner>> = vec![None; nm];
    let mut claim = |o: Owner, extents: &[(u32, u32)], problems: &mut Vec<Problem>| {
        for &(s, c) in extents {
            for b in s..s + c {
                match owner.get_mut(b as usize) {
                    Some(slot @ None) => *slot = Some(o),
                    Some(Some(prev)) => problems.push(Problem::Overlap {
                        block: b,
                        first: *prev,
                        second: o,
                    }),
                    None => {}
                }
            }
        }
    };
    claim(Owner::ExtentsFile, &v.ext_file.extents, problems);
    claim(Owner::CatalogFile, &v.cat_file.extents, problems);
    for (_, d) in &v.catalog {
        let CatData::File(f) = d else { continue };
        let id = f.fl_num.get();
        for (resource, lg, py, rec) in [
            (false, f.lg_len.get(), f.py_len.get(), &f.ext_rec),
            (true, f.r_lg_len.get(), f.r_py_len.get(), &f.r_ext_rec),
        ] {
            let o = Owner::Fork { file: id, resource };
            match v.fork_extents(rec, py as u64, Some((id, if resource { 0xFF } else { 0 }))) {
                Ok(ext) => {
                    let allocated: u64 = ext.iter().map(|e| e.1 as u64 * blk).sum();
                    if lg > py || allocated != py as u64 {
                        problems.push(Problem::ForkLength {
                            owner: o,
                            logical: lg,
                            physical: py,
                            allocated,
                        });
                    }
                    claim(o, &ext, problems);
                }
                Err(what) => problems.push(Problem::BadFork { owner: o, what }),
            }
        }
    }
    let bit = |b: usize| v.bitmap[b / 8] & (0x80 >> (b % 8)) != 0;
    let (mut free, mut used) = (0u32, 0u32);
    // The first allocation block found marked free while in use, and the first in use while
    // free, as (block, count) runs.
    let mut marked_free: Option<(u32, u32)> = None;
    let mut leaked: Option<(u32, u32)> = None;
    for (b, o) in owner.iter().enumerate() {
        let set = bit(b);
        if set {
            used += 1;
        } else {
            free += 1;
        }
        if o.is_some() && !set {
            let e = marked_free.get_or_insert((b as u32, 0));
            e.1 += 1;
        }
        if o.is_none() && set {
            let e = leaked.get_or_insert((b as u32, 0));
            e.1 += 1;
        }
    }
    if let Some((first, count)) = marked_free {
        problems.push(Problem::UsedBlockMarkedFree { first, count });
    }
    if let Some((first, count)) = leaked {
        problems.push(Problem::LeakedBlocks { first, count });
    }
    if free != v.mdb.free_bks.get() as u32 {
        problems.push(Problem::FreeCount {
            mdb: v.mdb.free_bks.get(),
            bitmap: free,
        });
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::MemDisk;
    use crate::hfs::{FormatOptions, NewFile, NewFolder, format_volume};

    fn volume() -> MemDisk {
        let mut d = MemDisk::new(4000);
        format_volume(&mut d, &FormatOptions::new(b"Check", 1000)).unwrap();
        let mut v = Volume::open(&mut d).unwrap();
        let f = v
            .create_folder(
                2,
                &NewFolder {
                    name: b"F",
                    created: 1,
                    modified: 1,
                },
            )
            .unwrap();
        for (p, n) in [(2, &b"a"[..]), (f, b"b")] {
            let nf = NewFile {
                name: n,
                file_type: *b"TEXT",
                creator: *b"ttxt",
                finder_flags: 0,
                data: &[1; 1500],
                rsrc: &[2; 10],
                created: 1,
                modified: 1,
            };
            v.add_file(p, &nf).unwrap();
        }
        v.flush().unwrap();
        d
    }

    fn problems_after(change: impl FnOnce(&mut Volume<&mut MemDisk>)) -> Vec<Problem> {
        let mut d = volume();
        let mut v = Volume::open(&mut d).unwrap();
        change(&mut v);
        v.dirty = true;
        v.flush().unwrap();
        check_volume(&mut d).unwrap().problems
    }

    #[test]
    fn clean_volume_has_no_problems() {
        let mut d = volume();
        let r = check_volume(&mut d).unwrap();
        assert_eq!(r.problems, []);
        assert_eq!((r.files, r.folders), (2, 1));
    }

    #[test]
    fn counts_and_bitmap_mismatches_are_found() {
        let p = problems_after(|v| v.mdb.free_bks.set(v.mdb.free_bks.get() - 1));
        assert!(matches!(p[..], [Problem::FreeCount { .. }]), "{p:?}");
        let p = problems_after(|v| v.mdb.fil_cnt.set(7));
        assert_eq!(
            p,
            [Problem::Count {
                field: "drFilCnt",
                mdb: 7,
                catalog: 2
            }]
        );
        let p = problems_after(|v| v.bitmap[0] &= 0x7F);
        assert!(
            p.contains(&Problem::UsedBlockMarkedFree { first: 0, count: 1 }),
            "{p:?}"
        );
        let p = problems_after(|v| v.bitmap[100] |= 1);
        assert!(
            p.contains(&Problem::LeakedBlocks {
                first: 807,
                count: 1
            }),
            "{p:?}"
        );
    }

    #[test]
    fn catalog_damage_is_found() {
        let p = problems_after(|v| {
            for (_, d) in v.catalog.iter_mut() {
                if let CatData::Folder(f) = d
                    && f.dir_id.get() == 2
                {
                    f.valence.set(5);
                }
            }
        });
        assert_eq!(
            p,
            [Problem::Valence {
                folder: 2,
                recorded: 5,
                actual: 2
            }]
        );
        let p = problems_after(|v| {
            let files: Vec<usize> = v
                .catalog
                .iter()
                .enumerate()
                .filter(|(_, r)| matches!(r.1, CatData::File(_)))
                .map(|(i, _)| i)
                .collect();
            let first = match &v.catalog[files[0]].1 {
                CatData::File(f) => f.ext_rec[0],
                _ => unreachable!(),
            };
            if let CatData::File(f) = &mut v.catalog[files[1]].1 {
                f.ext_rec[0] = first;
            }
        });
        assert!(
            p.iter().any(|x| matches!(x, Problem::Overlap { .. })),
            "{p:?}"
        );
        let p = problems_after(|v| {
            let t = v
                .catalog
                .iter()
                .position(|(k, _)| k.parent == 2 && k.name.is_empty())
                .unwrap();
            v.catalog.remove(t);
        });
        assert_eq!(p, [Problem::FolderThread { folder: 2 }]);
    }

    #[test]
    fn tree_damage_is_found() {
        let mut d = volume();
        let v = Volume::open(&mut d).unwrap();
        let cat_at = v.block_offset(v.cat_file.extents[0].0 as u64) as usize;
        drop(v);
        // bthNRecs in the catalog header record (node 0, offset 14 + 6).
        d.as_bytes_mut()[cat_at + 14 + 9] ^= 1;
        let p = check_volume(&mut d).unwrap().problems;
        assert!(
            p.contains(&Problem::Tree {
                tree: "catalog",
                node: 0,
                what: "bthNRecs differs from the records in the leaves"
            }),
            "{p:?}"
        );
    }
}
