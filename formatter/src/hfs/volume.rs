//! An open HFS volume: listing, reading forks, adding files and folders.
//!
//! The catalog is held in memory as sorted leaf records and written back as a freshly packed
//! B*-tree by [`Volume::flush`] (into the same catalog file, grown by a clump if needed). The
//! extents overflow file is read (forks of volumes made by other tools may use it) but never
//! written: every fork this code writes is one contiguous extent.

use super::btree::{self, Header, NodeBuf, TreeFile};
use super::catalog::{
    CatData, CatFile, CatFolder, CatKey, CatThread, ExtKey, Extent, ExtentRecord, FInfo, rec_type,
};
use super::{ATRB_SOFTWARE_LOCK, HFS_SIGNATURE, HfsError, Mdb, NODE_SIZE, check_name, cnid};
use crate::device::{BlockDevice, read_bytes, write_bytes, zero_bytes};
use crate::macroman::lossy;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use zerocopy::{FromBytes, IntoBytes};

/// Which fork.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fork {
    Data,
    Resource,
}

impl Fork {
    fn key_byte(self) -> u8 {
        match self {
            Fork::Data => 0x00,
            Fork::Resource => 0xFF,
        }
    }
}

/// A file or folder in a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// Mac Roman name.
    pub name: Vec<u8>,
    /// The containing folder's ID.
    pub parent: u32,
    /// This item's CNID.
    pub id: u32,
    pub created: u32,
    pub modified: u32,
    pub kind: EntryKind,
}

impl DirEntry {
    pub fn is_folder(&self) -> bool {
        matches!(self.kind, EntryKind::Folder { .. })
    }
    /// The name as text (non-ASCII bytes escaped).
    pub fn display_name(&self) -> String {
        lossy(&self.name)
    }
}

/// What a listed item is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    Folder {
        valence: u16,
    },
    File {
        file_type: [u8; 4],
        creator: [u8; 4],
        finder_flags: u16,
        data_len: u32,
        rsrc_len: u32,
        locked: bool,
    },
}

/// A file to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFile<'a> {
    pub name: &'a [u8],
    pub file_type: [u8; 4],
    pub creator: [u8; 4],
    pub finder_flags: u16,
    pub data: &'a [u8],
    pub rsrc: &'a [u8],
    pub created: u32,
    pub modified: u32,
}

/// A folder to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFolder<'a> {
    pub name: &'a [u8],
    pub created: u32,
    pub modified: u32,
}

/// Volume-level numbers from the MDB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeInfo {
    pub name: Vec<u8>,
    pub created: u32,
    pub modified: u32,
    pub attributes: u16,
    pub sectors: u64,
    pub alloc_block_size: u32,
    pub alloc_blocks: u16,
    pub free_blocks: u16,
    pub first_alloc_sector: u16,
    pub files: u32,
    pub folders: u32,
    pub next_cnid: u32,
    pub catalog_bytes: u32,
    pub extents_bytes: u32,
    pub bootable: bool,
}

/// An index key for the catalog: the leaf key with key length 0x25, padded to 38 bytes.
pub fn catalog_index_key(rec: &[u8]) -> Vec<u8> {
    match CatKey::parse(rec) {
        Some((k, _)) => k.index_bytes(),
        None => vec![0x25; 38],
    }
}

/// An open volume.
#[derive(Debug)]
pub struct Volume<D: BlockDevice> {
    pub(crate) dev: D,
    pub(crate) mdb: Mdb,
    pub(crate) sectors: u64,
    pub(crate) bitmap: Vec<u8>,
    pub(crate) catalog: Vec<(CatKey, CatData)>,
    pub(crate) overflow: Vec<(ExtKey, ExtentRecord)>,
    pub(crate) cat_file: TreeFile,
    pub(crate) ext_file: TreeFile,
    pub(crate) cat_header: Header,
    /// Catalog nodes marked used in the map when opened (zeroed on flush if now unused).
    pub(crate) old_cat_nodes: Vec<u32>,
    pub(crate) clock: Option<u32>,
    pub(crate) dirty: bool,
}

impl<D: BlockDevice> Volume<D> {
    /// Open the volume on `dev`: read the MDB, bitmap, extents overflow records and the
    /// whole catalog. Damage that prevents reading is an error; deeper consistency is
    /// [`check_volume`](super::check_volume)'s job.
    pub fn open(mut dev: D) -> Result<Self, HfsError> {
        let sectors = dev.size_bytes() / 512;
        if sectors < 5 {
            return Err(HfsError::BadMdb("volume smaller than 5 sectors"));
        }
        let mut sector = [0u8; 512];
        read_bytes(&mut dev, 1024, &mut sector)?;
        let mdb = Mdb::read(&sector).expect("512 bytes");
        if mdb.sig_word.get() != HFS_SIGNATURE {
            return Err(HfsError::NotHfs {
                signature: mdb.sig_word.get(),
            });
        }
        let blk = mdb.al_blk_siz.get() as u64;
        if blk == 0 || !blk.is_multiple_of(512) {
            return Err(HfsError::BadMdb("drAlBlkSiz is not a multiple of 512"));
        }
        let nm = mdb.nm_al_blks.get() as u64;
        let bitmap_sectors = nm.div_ceil(4096) as u32;
        let vbm = mdb.vbm_st.get() as u64;
        if vbm < 3 || vbm + bitmap_sectors as u64 > mdb.al_bl_st.get() as u64 {
            return Err(HfsError::BadMdb(
                "the volume bitmap overlaps the MDB or the allocation blocks",
            ));
        }
        if mdb.al_bl_st.get() as u64 * 512 + nm * blk > sectors.saturating_sub(2) * 512 {
            return Err(HfsError::BadMdb(
                "the allocation blocks run past the end of the volume",
            ));
        }
        if mdb.free_bks.get() > mdb.nm_al_blks.get() {
            return Err(HfsError::BadMdb("more free blocks than blocks"));
        }
        if mdb.vn[0] == 0 || mdb.vn[0] > 27 {
            return Err(HfsError::BadMdb("volume name length is not 1..=27"));
        }
        let mut bitmap = vec![0u8; bitmap_sectors as usize * 512];
        read_bytes(&mut dev, vbm * 512, &mut bitmap)?;
        let mut vol = Volume {
            dev,
            mdb,
            sectors,
            bitmap,
            catalog: Vec::new(),
            overflow: Vec::new(),
            cat_file: TreeFile {
                name: "catalog",
                extents: Vec::new(),
                len: 0,
            },
            ext_file: TreeFile {
                name: "extents",
                extents: Vec::new(),
                len: 0,
            },
            cat_header: Header::default(),
            old_cat_nodes: Vec::new(),
            clock: None,
            dirty: false,
        };
        vol.ext_file = vol.tree_file("extents", &mdb.xt_ext_rec, mdb.xt_fl_size.get(), None)?;
        let (_, ext_recs) = vol.read_leaves(&vol.ext_file.clone())?;
        for r in ext_recs {
            let (k, at) = ExtKey::parse(&r).ok_or(vol.ext_file.err(0, "bad extents key"))?;
            let rec = ExtentRecord::read_from_prefix(r.get(at..).unwrap_or(&[]))
                .map_err(|_| vol.ext_file.err(0, "short extents record"))?
                .0;
            vol.overflow.push((k, rec));
        }
        vol.overflow.sort_by(|a, b| a.0.cmp_key(&b.0));
        vol.cat_file = vol.tree_file(
            "catalog",
            &mdb.ct_ext_rec,
            mdb.ct_fl_size.get(),
            Some(cnid::CATALOG),
        )?;
        let (header, recs) = vol.read_leaves(&vol.cat_file.clone())?;
        vol.cat_header = header;
        for r in recs {
            let (k, at) = CatKey::parse(&r).ok_or(HfsError::BadRecord {
                what: "bad catalog key",
                parent: 0,
            })?;
            let d = CatData::parse(r.get(at..).unwrap_or(&[])).ok_or(HfsError::BadRecord {
                what: "unknown or short record",
                parent: k.parent,
            })?;
            vol.catalog.push((k, d));
        }
        vol.catalog.sort_by(|a, b| a.0.cmp_mac(&b.0));
        vol.old_cat_nodes = vol.used_nodes(&vol.cat_file.clone(), &header)?;
        Ok(vol)
    }

    /// Byte offset on the device of allocation block `b`.
    pub(crate) fn block_offset(&self, b: u64) -> u64 {
        self.mdb.al_bl_st.get() as u64 * 512 + b * self.mdb.al_blk_siz.get() as u64
    }

    /// A fork's extents: the three in `first`, then overflow records for `overflow_id`.
    /// Checks that every extent lies on the volume and that they cover `len` bytes.
    pub(crate) fn fork_extents(
        &self,
        first: &ExtentRecord,
        len: u64,
        overflow: Option<(u32, u8)>,
    ) -> Result<Vec<(u32, u32)>, &'static str> {
        let blk = self.mdb.al_blk_siz.get() as u64;
        let nm = self.mdb.nm_al_blks.get() as u32;
        let mut out: Vec<(u32, u32)> = Vec::new();
        let mut have: u64 = 0;
        let push =
            |e: &Extent, out: &mut Vec<(u32, u32)>, have: &mut u64| -> Result<(), &'static str> {
                let (s, c) = (e.start.get() as u32, e.count.get() as u32);
                if c == 0 {
                    return Ok(());
                }
                if s + c > nm {
                    return Err("an extent runs past the last allocation block");
                }
                out.push((s, c));
                *have += c as u64 * blk;
                Ok(())
            };
        for e in first {
            push(e, &mut out, &mut have)?;
        }
        if have < len
            && let Some((id, fork)) = overflow
        {
            let mut fabn: u64 = out.iter().map(|e| e.1 as u64).sum();
            for (k, rec) in self
                .overflow
                .iter()
                .filter(|(k, _)| k.file == id && k.fork == fork)
            {
                if have >= len {
                    break;
                }
                if k.start as u64 != fabn {
                    return Err("extents overflow records do not continue the fork");
                }
                for e in rec {
                    push(e, &mut out, &mut have)?;
                }
                fabn = out.iter().map(|e| e.1 as u64).sum();
            }
        }
        if have < len {
            return Err("the fork's extents are shorter than its length");
        }
        Ok(out)
    }

    fn tree_file(
        &self,
        name: &'static str,
        rec: &ExtentRecord,
        len: u32,
        id: Option<u32>,
    ) -> Result<TreeFile, HfsError> {
        let extents = self
            .fork_extents(rec, len as u64, id.map(|i| (i, 0)))
            .map_err(|what| HfsError::BadBTree {
                tree: name,
                node: 0,
                what,
            })?;
        if len == 0 || !(len as usize).is_multiple_of(NODE_SIZE) {
            return Err(HfsError::BadBTree {
                tree: name,
                node: 0,
                what: "file length is not a whole number of nodes",
            });
        }
        Ok(TreeFile {
            name,
            extents,
            len: len as u64,
        })
    }

    /// Byte offset on the device of byte `pos` of a fork with `extents`.
    fn fork_offset(&self, extents: &[(u32, u32)], pos: u64) -> Option<u64> {
        let blk = self.mdb.al_blk_siz.get() as u64;
        let mut base = 0u64;
        for &(s, c) in extents {
            let bytes = c as u64 * blk;
            if pos < base + bytes {
                return Some(self.block_offset(s as u64) + (pos - base));
            }
            base += bytes;
        }
        None
    }

    pub(crate) fn read_node(&mut self, file: &TreeFile, n: u32) -> Result<NodeBuf, HfsError> {
        if n >= file.nodes() {
            return Err(file.err(n, "node number beyond the end of the file"));
        }
        let off = self
            .fork_offset(&file.extents, n as u64 * NODE_SIZE as u64)
            .ok_or(file.err(n, "node not covered by the file's extents"))?;
        let mut buf = [0u8; NODE_SIZE];
        read_bytes(&mut self.dev, off, &mut buf)?;
        Ok(buf)
    }

    pub(crate) fn read_header(&mut self, file: &TreeFile) -> Result<Header, HfsError> {
        let node = self.read_node(file, 0)?;
        let d = btree::descriptor(&node);
        if d.kind != btree::kind::HEADER {
            return Err(file.err(0, "node 0 is not a header node"));
        }
        let recs = btree::records(&node).map_err(|w| file.err(0, w))?;
        let h = recs
            .first()
            .and_then(|r| Header::parse(r))
            .ok_or(file.err(0, "short header record"))?;
        if h.node_size as usize != NODE_SIZE {
            return Err(file.err(0, "node size is not 512"));
        }
        Ok(h)
    }

    /// Every leaf record, following the leaf chain from `bthFNode`.
    pub(crate) fn read_leaves(
        &mut self,
        file: &TreeFile,
    ) -> Result<(Header, Vec<Vec<u8>>), HfsError> {
        let h = self.read_header(file)?;
        let mut out = Vec::new();
        let mut n = h.first_leaf;
        let mut seen = 0u32;
        let mut prev = 0u32;
        while n != 0 {
            seen += 1;
            if seen > file.nodes() {
                return Err(file.err(n, "the leaf chain loops"));
            }
            let node = self.read_node(file, n)?;
            let d = btree::descriptor(&node);
            if d.kind != btree::kind::LEAF {
                return Err(file.err(n, "a node in the leaf chain is not a leaf"));
            }
            if d.blink != prev {
                return Err(file.err(n, "a leaf's back link does not name the previous leaf"));
            }
            for r in btree::records(&node).map_err(|w| file.err(n, w))? {
                out.push(r.to_vec());
            }
            prev = n;
            n = d.flink;
        }
        Ok((h, out))
    }

    /// The node numbers marked used in a tree's map (header record 2 and map nodes).
    pub(crate) fn used_nodes(&mut self, file: &TreeFile, h: &Header) -> Result<Vec<u32>, HfsError> {
        let total = file.nodes();
        let mut used = Vec::new();
        let mut node_no = 0u32;
        let mut base = 0u32;
        let mut hops = 0;
        loop {
            let node = self.read_node(file, node_no)?;
            let recs = btree::records(&node).map_err(|w| file.err(node_no, w))?;
            let map = if node_no == 0 {
                recs.get(2)
            } else {
                recs.first()
            };
            let map = map.ok_or(file.err(node_no, "missing map record"))?;
            for (i, byte) in map.iter().enumerate() {
                for bit in 0..8 {
                    let n = base as u64 + (i * 8 + bit) as u64;
                    if byte & (0x80 >> bit) != 0 && n < total as u64 {
                        used.push(n as u32);
                    }
                }
            }
            base = base.saturating_add(map.len() as u32 * 8);
            let next = btree::descriptor(&node).flink;
            hops += 1;
            if next == 0 || hops > total || base >= total {
                break;
            }
            node_no = next;
        }
        let _ = h;
        Ok(used)
    }

    // ---- queries ----

    /// The underlying device.
    pub fn device(&mut self) -> &mut D {
        &mut self.dev
    }

    /// Close, returning the device (call [`Volume::flush`] first to keep changes).
    pub fn into_device(self) -> D {
        self.dev
    }

    /// Volume-level numbers.
    pub fn info(&self) -> VolumeInfo {
        let m = &self.mdb;
        VolumeInfo {
            name: m.name().to_vec(),
            created: m.cr_date.get(),
            modified: m.ls_mod.get(),
            attributes: m.atrb.get(),
            sectors: self.sectors,
            alloc_block_size: m.al_blk_siz.get(),
            alloc_blocks: m.nm_al_blks.get(),
            free_blocks: m.free_bks.get(),
            first_alloc_sector: m.al_bl_st.get(),
            files: m.fil_cnt.get(),
            folders: m.dir_cnt.get(),
            next_cnid: m.nxt_cnid.get(),
            catalog_bytes: m.ct_fl_size.get(),
            extents_bytes: m.xt_fl_size.get(),
            bootable: m.fndr_info[0].get() != 0,
        }
    }

    /// The MDB as read (and as changed since).
    pub fn mdb(&self) -> &Mdb {
        &self.mdb
    }

    /// The boot blocks: the volume's first 1024 bytes (sectors 0 and 1).
    pub fn boot_blocks(&mut self) -> Result<[u8; 1024], HfsError> {
        let mut bb = [0u8; 1024];
        read_bytes(&mut self.dev, 0, &mut bb)?;
        Ok(bb)
    }

    /// Write the boot blocks (written at once, not at [`Volume::flush`]). They must be 1024
    /// bytes starting with the 'LK' signature, as a startup volume's are.
    pub fn write_boot_blocks(&mut self, bb: &[u8]) -> Result<(), HfsError> {
        if bb.len() != 1024 || u16::from_be_bytes([bb[0], bb[1]]) != super::BOOT_SIGNATURE {
            return Err(HfsError::BadBootBlocks);
        }
        Ok(write_bytes(&mut self.dev, 0, bb)?)
    }

    /// The MDB's Finder information (`drFndrInfo`, 8 longs), written at the next
    /// [`Volume::flush`]. Word 0 is the blessed System Folder's directory ID (0: none).
    pub fn set_finder_info(&mut self, words: [u32; 8]) {
        for (w, v) in self.mdb.fndr_info.iter_mut().zip(words) {
            w.set(v);
        }
        self.dirty = true;
    }

    /// The MDB's Finder information (`drFndrInfo`).
    pub fn finder_info(&self) -> [u32; 8] {
        core::array::from_fn(|i| self.mdb.fndr_info[i].get())
    }

    /// The date used for the volume's and folders' modification dates on change (otherwise
    /// the dates of the added items are used).
    pub fn set_clock(&mut self, mac_time: u32) {
        self.clock = Some(mac_time);
    }

    fn find(&self, key: &CatKey) -> Result<usize, usize> {
        self.catalog.binary_search_by(|(k, _)| k.cmp_mac(key))
    }

    fn entry_of(key: &CatKey, d: &CatData) -> Option<DirEntry> {
        match d {
            CatData::Folder(f) => Some(DirEntry {
                name: key.name.clone(),
                parent: key.parent,
                id: f.dir_id.get(),
                created: f.cr_date.get(),
                modified: f.md_date.get(),
                kind: EntryKind::Folder {
                    valence: f.valence.get(),
                },
            }),
            CatData::File(f) => Some(DirEntry {
                name: key.name.clone(),
                parent: key.parent,
                id: f.fl_num.get(),
                created: f.cr_date.get(),
                modified: f.md_date.get(),
                kind: EntryKind::File {
                    file_type: f.usr_wds.file_type,
                    creator: f.usr_wds.creator,
                    finder_flags: f.usr_wds.flags.get(),
                    data_len: f.lg_len.get(),
                    rsrc_len: f.r_lg_len.get(),
                    locked: f.flags & 1 != 0,
                },
            }),
            CatData::Thread(_) => None,
        }
    }

    /// The root folder.
    pub fn root(&self) -> Result<DirEntry, HfsError> {
        let i = self
            .find(&CatKey::new(cnid::ROOT_PARENT, self.mdb.name()))
            .map_err(|_| HfsError::BadRecord {
                what: "no root folder record under the volume name",
                parent: 1,
            })?;
        Self::entry_of(&self.catalog[i].0, &self.catalog[i].1)
            .filter(|e| e.id == cnid::ROOT && e.is_folder())
            .ok_or(HfsError::BadRecord {
                what: "the root record is not folder 2",
                parent: 1,
            })
    }

    /// The items directly in folder `dir_id`, in catalog order.
    pub fn list(&self, dir_id: u32) -> Vec<DirEntry> {
        let start = self.catalog.partition_point(|(k, _)| k.parent < dir_id);
        self.catalog[start..]
            .iter()
            .take_while(|(k, _)| k.parent == dir_id)
            .filter_map(|(k, d)| Self::entry_of(k, d))
            .collect()
    }

    /// The item named `name` in folder `parent`.
    pub fn lookup(&self, parent: u32, name: &[u8]) -> Option<DirEntry> {
        let i = self.find(&CatKey::new(parent, name)).ok()?;
        Self::entry_of(&self.catalog[i].0, &self.catalog[i].1)
    }

    /// Follow a path of names from the root.
    pub fn lookup_path(&self, path: &[&[u8]]) -> Result<DirEntry, HfsError> {
        let mut cur = self.root()?;
        let mut walked = String::new();
        for name in path {
            walked.push(':');
            walked.push_str(&lossy(name));
            if !cur.is_folder() {
                return Err(HfsError::NotAFolder(walked));
            }
            cur = self
                .lookup(cur.id, name)
                .ok_or_else(|| HfsError::NotFound(walked.clone()))?;
        }
        Ok(cur)
    }

    /// Every item on the volume with its path (names from the root), depth first, in catalog
    /// order within each folder.
    pub fn walk(&self) -> Vec<(Vec<Vec<u8>>, DirEntry)> {
        let mut out = Vec::new();
        let mut visited = vec![cnid::ROOT];
        self.walk_into(cnid::ROOT, &mut Vec::new(), &mut visited, &mut out);
        out
    }

    fn walk_into(
        &self,
        dir: u32,
        path: &mut Vec<Vec<u8>>,
        visited: &mut Vec<u32>,
        out: &mut Vec<(Vec<Vec<u8>>, DirEntry)>,
    ) {
        // Folder nesting deeper than this only happens on a damaged volume.
        if path.len() > 100 {
            return;
        }
        for e in self.list(dir) {
            path.push(e.name.clone());
            out.push((path.clone(), e.clone()));
            if e.is_folder() && !visited.contains(&e.id) {
                visited.push(e.id);
                self.walk_into(e.id, path, visited, out);
            }
            path.pop();
        }
    }

    fn file_record(&self, e: &DirEntry) -> Result<CatFile, HfsError> {
        let i = self
            .find(&CatKey::new(e.parent, &e.name))
            .map_err(|_| HfsError::NotFound(e.display_name()))?;
        match &self.catalog[i].1 {
            CatData::File(f) => Ok(*f),
            _ => Err(HfsError::NotFound(e.display_name())),
        }
    }

    /// A fork's bytes.
    pub fn read_fork(&mut self, e: &DirEntry, fork: Fork) -> Result<Vec<u8>, HfsError> {
        let f = self.file_record(e)?;
        let id = f.fl_num.get();
        let (len, py, rec) = match fork {
            Fork::Data => (f.lg_len.get(), f.py_len.get(), f.ext_rec),
            Fork::Resource => (f.r_lg_len.get(), f.r_py_len.get(), f.r_ext_rec),
        };
        if len > py {
            return Err(HfsError::BadFork {
                file: id,
                what: "logical length exceeds physical length",
            });
        }
        let extents = self
            .fork_extents(&rec, len as u64, Some((id, fork.key_byte())))
            .map_err(|what| HfsError::BadFork { file: id, what })?;
        let blk = self.mdb.al_blk_siz.get() as u64;
        let mut out = vec![0u8; len as usize];
        let mut done = 0u64;
        for (s, c) in extents {
            if done >= len as u64 {
                break;
            }
            let n = (c as u64 * blk).min(len as u64 - done);
            let off = self.block_offset(s as u64);
            read_bytes(
                &mut self.dev,
                off,
                &mut out[done as usize..(done + n) as usize],
            )?;
            done += n;
        }
        Ok(out)
    }

    // ---- changes ----

    fn check_writable(&self) -> Result<(), HfsError> {
        if self.mdb.atrb.get() & (ATRB_SOFTWARE_LOCK | 0x0080) != 0 {
            Err(HfsError::Locked)
        } else {
            Ok(())
        }
    }

    /// The folder record index of folder `id` (via its thread).
    fn folder_index(&self, id: u32) -> Result<usize, HfsError> {
        let not_found = || HfsError::NotFound(alloc::format!("folder {id}"));
        let t = self.find(&CatKey::new(id, b"")).map_err(|_| not_found())?;
        let (parent, name) = match &self.catalog[t].1 {
            CatData::Thread(th) if th.is_folder_thread() => (th.parent.get(), th.name().to_vec()),
            CatData::Thread(_) => return Err(HfsError::NotAFolder(alloc::format!("item {id}"))),
            _ => return Err(not_found()),
        };
        let i = self
            .find(&CatKey::new(parent, &name))
            .map_err(|_| not_found())?;
        match &self.catalog[i].1 {
            CatData::Folder(f) if f.dir_id.get() == id => Ok(i),
            _ => Err(HfsError::BadRecord {
                what: "a folder thread names a record that is not that folder",
                parent,
            }),
        }
    }

    fn take_cnid(&mut self) -> Result<u32, HfsError> {
        let id = self.mdb.nxt_cnid.get().max(cnid::FIRST_USER);
        let next = id.checked_add(1).ok_or(HfsError::NoMoreCnids)?;
        self.mdb.nxt_cnid.set(next);
        Ok(id)
    }

    fn insert(&mut self, key: CatKey, data: CatData) -> Result<(), HfsError> {
        match self.find(&key) {
            Ok(_) => Err(HfsError::Exists(lossy(&key.name))),
            Err(i) => {
                self.catalog.insert(i, (key, data));
                Ok(())
            }
        }
    }

    /// Allocate `count` contiguous blocks (first fit); returns the first.
    fn allocate(&mut self, count: u32) -> Result<u16, HfsError> {
        if count == 0 {
            return Ok(0);
        }
        let nm = self.mdb.nm_al_blks.get() as u32;
        let free = self.mdb.free_bks.get() as u32;
        if count > free {
            return Err(HfsError::DiskFull {
                needed: count,
                free,
            });
        }
        let used = |b: u32| self.bitmap[(b / 8) as usize] & (0x80 >> (b % 8)) != 0;
        let (mut run_start, mut run, mut largest) = (0u32, 0u32, 0u32);
        let mut found = None;
        for b in 0..nm {
            if used(b) {
                run = 0;
                run_start = b + 1;
            } else {
                run += 1;
                largest = largest.max(run);
                if run == count {
                    found = Some(run_start);
                    break;
                }
            }
        }
        let start = found.ok_or(HfsError::TooFragmented {
            needed: count,
            largest_run: largest,
        })?;
        for b in start..start + count {
            self.bitmap[(b / 8) as usize] |= 0x80 >> (b % 8);
        }
        self.mdb.free_bks.set((free - count) as u16);
        Ok(start as u16)
    }

    fn touch_folder(&mut self, idx: usize, delta_valence: i32, date: u32) {
        if let CatData::Folder(f) = &mut self.catalog[idx].1 {
            let v = (f.valence.get() as i32 + delta_valence).clamp(0, u16::MAX as i32) as u16;
            f.valence.set(v);
            f.md_date
                .set(self.clock.unwrap_or(date).max(f.md_date.get()));
        }
    }

    /// Run `change`; if it or the catalog layout fails, put the in-memory state back.
    fn transaction<T>(
        &mut self,
        change: impl FnOnce(&mut Self) -> Result<T, HfsError>,
    ) -> Result<T, HfsError> {
        let saved = (
            self.mdb,
            self.bitmap.clone(),
            self.catalog.clone(),
            self.cat_file.clone(),
        );
        let result = change(self).and_then(|v| self.layout_catalog().map(|_| v));
        if result.is_err() {
            (self.mdb, self.bitmap, self.catalog, self.cat_file) = saved;
        } else {
            self.dirty = true;
        }
        result
    }

    /// Add a file to folder `parent` (2 = root); returns its CNID. The forks are written now,
    /// the catalog, bitmap and MDB by [`Volume::flush`].
    pub fn add_file(&mut self, parent: u32, file: &NewFile<'_>) -> Result<u32, HfsError> {
        self.check_writable()?;
        check_name(file.name)?;
        for len in [file.data.len(), file.rsrc.len()] {
            if len > i32::MAX as usize {
                return Err(HfsError::ForkTooLarge(len as u64));
            }
        }
        let blk = self.mdb.al_blk_siz.get() as u64;
        let mut writes: Vec<(u16, &[u8])> = Vec::new();
        let id = self.transaction(|v| {
            let pidx = v.folder_index(parent)?;
            if v.find(&CatKey::new(parent, file.name)).is_ok() {
                return Err(HfsError::Exists(lossy(file.name)));
            }
            let id = v.take_cnid()?;
            let mut rec = CatFile::zeroed();
            rec.rec_type = rec_type::FILE;
            rec.flags = 0x02; // a file thread exists
            rec.usr_wds = FInfo {
                file_type: file.file_type,
                creator: file.creator,
                flags: file.finder_flags.into(),
                ..FInfo::default()
            };
            rec.fl_num.set(id);
            rec.cr_date.set(file.created);
            rec.md_date.set(file.modified);
            for (fork, bytes) in [(Fork::Data, file.data), (Fork::Resource, file.rsrc)] {
                let blocks = (bytes.len() as u64).div_ceil(blk);
                if blocks > u16::MAX as u64 {
                    return Err(HfsError::ForkTooLarge(bytes.len() as u64));
                }
                let start = v.allocate(blocks as u32)?;
                let ext = if blocks > 0 {
                    Extent::new(start, blocks as u16)
                } else {
                    Extent::default()
                };
                let py = (blocks * blk) as u32;
                match fork {
                    Fork::Data => {
                        rec.st_blk.set(ext.start.get());
                        rec.lg_len.set(bytes.len() as u32);
                        rec.py_len.set(py);
                        rec.ext_rec[0] = ext;
                    }
                    Fork::Resource => {
                        rec.r_st_blk.set(ext.start.get());
                        rec.r_lg_len.set(bytes.len() as u32);
                        rec.r_py_len.set(py);
                        rec.r_ext_rec[0] = ext;
                    }
                }
                if blocks > 0 {
                    writes.push((start, bytes));
                }
            }
            v.insert(CatKey::new(parent, file.name), CatData::File(rec))?;
            v.insert(
                CatKey::new(id, b""),
                CatData::Thread(CatThread::new(rec_type::FILE_THREAD, parent, file.name)),
            )?;
            // Indices moved by the inserts: look the parent up again.
            let _ = pidx;
            let pidx = v.folder_index(parent)?;
            v.touch_folder(pidx, 1, file.modified);
            if parent == cnid::ROOT {
                v.mdb.nm_fls.set(v.mdb.nm_fls.get().saturating_add(1));
            }
            v.mdb.fil_cnt.set(v.mdb.fil_cnt.get().saturating_add(1));
            v.bump_modified(file.modified);
            Ok(id)
        })?;
        for (start, bytes) in writes {
            let off = self.block_offset(start as u64);
            write_bytes(&mut self.dev, off, bytes)?;
            let tail = (bytes.len() as u64).div_ceil(blk) * blk - bytes.len() as u64;
            zero_bytes(&mut self.dev, off + bytes.len() as u64, tail)?;
        }
        Ok(id)
    }

    /// Create a folder in folder `parent`; returns its CNID.
    pub fn create_folder(&mut self, parent: u32, folder: &NewFolder<'_>) -> Result<u32, HfsError> {
        self.check_writable()?;
        check_name(folder.name)?;
        self.transaction(|v| {
            v.folder_index(parent)?;
            if v.find(&CatKey::new(parent, folder.name)).is_ok() {
                return Err(HfsError::Exists(lossy(folder.name)));
            }
            let id = v.take_cnid()?;
            let mut rec = CatFolder::new(id, folder.created);
            rec.md_date.set(folder.modified);
            v.insert(CatKey::new(parent, folder.name), CatData::Folder(rec))?;
            v.insert(
                CatKey::new(id, b""),
                CatData::Thread(CatThread::new(rec_type::FOLDER_THREAD, parent, folder.name)),
            )?;
            let pidx = v.folder_index(parent)?;
            v.touch_folder(pidx, 1, folder.modified);
            if parent == cnid::ROOT {
                v.mdb
                    .nm_rt_dirs
                    .set(v.mdb.nm_rt_dirs.get().saturating_add(1));
            }
            v.mdb.dir_cnt.set(v.mdb.dir_cnt.get().saturating_add(1));
            v.bump_modified(folder.modified);
            Ok(id)
        })
    }

    /// Create every missing folder along `path` from the root; returns the last one's CNID.
    pub fn make_folders(&mut self, path: &[&[u8]], date: u32) -> Result<u32, HfsError> {
        let mut cur = cnid::ROOT;
        for name in path {
            cur = match self.lookup(cur, name) {
                Some(e) if e.is_folder() => e.id,
                Some(e) => return Err(HfsError::NotAFolder(e.display_name())),
                None => self.create_folder(
                    cur,
                    &NewFolder {
                        name,
                        created: date,
                        modified: date,
                    },
                )?,
            };
        }
        Ok(cur)
    }

    fn bump_modified(&mut self, date: u32) {
        let d = self.clock.unwrap_or(date).max(self.mdb.ls_mod.get());
        self.mdb.ls_mod.set(d);
    }

    fn leaf_records(&self) -> Vec<Vec<u8>> {
        self.catalog
            .iter()
            .map(|(k, d)| super::catalog::leaf_record(k, d))
            .collect()
    }

    /// Pack the catalog into its file, growing the file by a clump (or what is needed) when
    /// it is too small.
    fn layout_catalog(&mut self) -> Result<btree::Built, HfsError> {
        let recs = self.leaf_records();
        for _ in 0..4 {
            match btree::build(&recs, &catalog_index_key, 0x25, self.cat_file.nodes()) {
                Ok(b) => return Ok(b),
                Err(needed) => self.grow_catalog(needed)?,
            }
        }
        Err(HfsError::CatalogFull {
            nodes_needed: 0,
            nodes: self.cat_file.nodes(),
        })
    }

    fn grow_catalog(&mut self, nodes_needed: u32) -> Result<(), HfsError> {
        let blk = self.mdb.al_blk_siz.get() as u64;
        let have = self.cat_file.nodes();
        let full = HfsError::CatalogFull {
            nodes_needed,
            nodes: have,
        };
        let need_bytes = (nodes_needed - have) as u64 * NODE_SIZE as u64;
        let clump = (self.mdb.ct_clp_siz.get() as u64).max(blk);
        let blocks = need_bytes
            .max(clump)
            .max(self.cat_file.len)
            .div_ceil(blk)
            .min(0xFFFF) as u32;
        // Only the MDB's three extents are used (the extents file is never written).
        let rec = &mut self.mdb.ct_ext_rec;
        let slot = rec.iter().position(|e| e.count.get() == 0);
        let last = rec
            .iter()
            .rposition(|e| e.count.get() != 0)
            .ok_or(full.clone())?;
        let end = rec[last].start.get() as u32 + rec[last].count.get() as u32;
        let bit = |bm: &Vec<u8>, b: u32| bm[(b / 8) as usize] & (0x80 >> (b % 8)) != 0;
        let nm = self.mdb.nm_al_blks.get() as u32;
        let can_extend = end + blocks <= nm
            && (end..end + blocks).all(|b| !bit(&self.bitmap, b))
            && rec[last].count.get() as u32 + blocks <= 0xFFFF;
        let new_len = self.cat_file.len + blocks as u64 * blk;
        if new_len > u32::MAX as u64 {
            return Err(full);
        }
        if can_extend {
            for b in end..end + blocks {
                self.bitmap[(b / 8) as usize] |= 0x80 >> (b % 8);
            }
            let free = self.mdb.free_bks.get();
            self.mdb
                .free_bks
                .set(free.checked_sub(blocks as u16).ok_or(full.clone())?);
            let rec = &mut self.mdb.ct_ext_rec;
            rec[last].count.set(rec[last].count.get() + blocks as u16);
        } else {
            let slot = slot.ok_or(full.clone())?;
            let start = self.allocate(blocks).map_err(|_| full.clone())?;
            self.mdb.ct_ext_rec[slot] = Extent::new(start, blocks as u16);
        }
        self.mdb.ct_fl_size.set(new_len as u32);
        let rec = self.mdb.ct_ext_rec;
        self.cat_file.extents = rec
            .iter()
            .filter(|e| e.count.get() > 0)
            .map(|e| (e.start.get() as u32, e.count.get() as u32))
            .collect();
        self.cat_file.len = new_len;
        // Zero the new part so stale bytes never look like nodes.
        let old_nodes = have;
        for n in old_nodes..self.cat_file.nodes() {
            if let Some(off) =
                self.fork_offset(&self.cat_file.extents.clone(), n as u64 * NODE_SIZE as u64)
            {
                write_bytes(&mut self.dev, off, &[0u8; NODE_SIZE])?;
            }
        }
        Ok(())
    }

    /// Write the catalog, the bitmap and both MDB copies.
    pub fn flush(&mut self) -> Result<(), HfsError> {
        if !self.dirty {
            return Ok(());
        }
        let built = self.layout_catalog()?;
        let file = self.cat_file.clone();
        let mut written: Vec<u32> = Vec::with_capacity(built.nodes.len());
        for (n, node) in &built.nodes {
            let off = self
                .fork_offset(&file.extents, *n as u64 * NODE_SIZE as u64)
                .ok_or(file.err(*n, "node outside the file"))?;
            write_bytes(&mut self.dev, off, node)?;
            written.push(*n);
        }
        for n in core::mem::take(&mut self.old_cat_nodes) {
            if !written.contains(&n)
                && let Some(off) = self.fork_offset(&file.extents, n as u64 * NODE_SIZE as u64)
            {
                write_bytes(&mut self.dev, off, &[0u8; NODE_SIZE])?;
            }
        }
        self.old_cat_nodes = written;
        self.cat_header = built.header;
        write_bytes(
            &mut self.dev,
            self.mdb.vbm_st.get() as u64 * 512,
            &self.bitmap,
        )?;
        self.mdb.wr_cnt.set(self.mdb.wr_cnt.get().wrapping_add(1));
        let mut sector = [0u8; 512];
        read_bytes(&mut self.dev, 1024, &mut sector)?;
        sector[..162].copy_from_slice(self.mdb.as_bytes());
        write_bytes(&mut self.dev, 1024, &sector)?;
        write_bytes(&mut self.dev, (self.sectors - 2) * 512, &sector)?;
        self.dev.flush()?;
        self.dirty = false;
        Ok(())
    }
}
