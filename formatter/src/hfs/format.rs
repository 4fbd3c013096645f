//! Writing a fresh HFS volume (mac-facts §14.1–14.5, §14.9).

use super::btree;
use super::catalog::{CatData, CatFolder, CatKey, CatThread, Extent, leaf_record, rec_type};
use super::{
    ATRB_UNMOUNTED, BOOT_SIGNATURE, HFS_SIGNATURE, HfsError, MAX_VOLUME_SECTORS,
    MIN_VOLUME_SECTORS, Mdb, NODE_SIZE, check_name_len, cnid,
};
use crate::device::{BlockDevice, write_bytes, zero_bytes};
use alloc::vec;
use zerocopy::IntoBytes;

/// How a volume is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Volume size in 512-byte sectors.
    pub sectors: u64,
    /// `drAlBlkSiz`.
    pub alloc_block_size: u32,
    /// Bitmap sectors (from sector 3).
    pub bitmap_sectors: u32,
    /// `drAlBlSt`.
    pub first_alloc_sector: u16,
    /// `drNmAlBlks`.
    pub alloc_blocks: u16,
}

/// The geometry of a volume of `sectors` sectors. The allocation block size is Apple's rule
/// (`newfs_hfs`: 512 × ((sectors >> 16) + 1)) unless `alloc_block_size` is given (a multiple
/// of 512 that leaves at most 65535 blocks).
pub fn geometry_for(sectors: u64, alloc_block_size: Option<u32>) -> Result<Geometry, HfsError> {
    if !(MIN_VOLUME_SECTORS..=MAX_VOLUME_SECTORS).contains(&sectors) {
        return Err(HfsError::VolumeSize { sectors });
    }
    let blk = match alloc_block_size {
        Some(b) if b == 0 || b % 512 != 0 => {
            return Err(HfsError::BadMdb(
                "allocation block size must be a multiple of 512",
            ));
        }
        Some(b) => b as u64,
        None => 512 * ((sectors >> 16) + 1),
    };
    let spb = blk / 512;
    let estimate = ((sectors - 5) / spb).min(65535);
    let bitmap_sectors = estimate.div_ceil(4096).max(1);
    let first = 3 + bitmap_sectors;
    let blocks = (sectors - first - 2) / spb;
    if blocks > 65535 {
        return Err(HfsError::BadMdb(
            "allocation block size too small: more than 65535 blocks",
        ));
    }
    Ok(Geometry {
        sectors,
        alloc_block_size: blk as u32,
        bitmap_sectors: bitmap_sectors as u32,
        first_alloc_sector: first as u16,
        alloc_blocks: blocks as u16,
    })
}

/// What [`format_volume`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatOptions<'a> {
    /// Volume name, Mac Roman, 1..=27 bytes, no ':'.
    pub name: &'a [u8],
    /// Creation (and modification) date, Mac seconds since 1904 (local time by convention).
    /// Fixed by the caller so that images are reproducible.
    pub created: u32,
    /// Boot blocks (1024 bytes starting 'LK'); `None` writes zeros (not a startup volume).
    pub boot_blocks: Option<&'a [u8]>,
    /// Override Apple's allocation block size rule.
    pub alloc_block_size: Option<u32>,
    /// Override the size of the catalog and extents files (bytes; rounded up to whole
    /// allocation blocks).
    pub tree_bytes: Option<u64>,
}

impl<'a> FormatOptions<'a> {
    pub fn new(name: &'a [u8], created: u32) -> Self {
        FormatOptions {
            name,
            created,
            boot_blocks: None,
            alloc_block_size: None,
            tree_bytes: None,
        }
    }
}

/// Default file clump: 4 allocation blocks, or 1 if that exceeds 1 MiB (Apple's newfs).
pub fn file_clump(blk: u32) -> u32 {
    if blk as u64 * 4 > 1 << 20 {
        blk
    } else {
        blk * 4
    }
}

/// Default catalog/extents file size in allocation blocks: 1/128 of the volume, at least
/// 4 KiB, at most 1 MiB (what the header node's map covers), in whole allocation blocks.
pub fn tree_blocks(g: &Geometry, bytes: Option<u64>) -> u32 {
    let want = bytes.unwrap_or_else(|| (g.sectors * 512 / 128).clamp(4096, 1 << 20));
    (want.div_ceil(g.alloc_block_size as u64))
        .max(1)
        .min(u16::MAX as u64) as u32
}

/// Write an empty HFS volume over the whole device: boot blocks, MDB and its copy, bitmap,
/// the extents overflow file (header node only) and the catalog (root folder and its thread).
/// Only those sectors are written; the rest keeps whatever it held (a sparse image stays
/// sparse).
pub fn format_volume<D: BlockDevice + ?Sized>(
    dev: &mut D,
    opts: &FormatOptions<'_>,
) -> Result<Geometry, HfsError> {
    check_name_len(opts.name, 27)?;
    let g = geometry_for(dev.size_bytes() / 512, opts.alloc_block_size)?;
    let blk = g.alloc_block_size as u64;
    let tb = tree_blocks(&g, opts.tree_bytes);
    if (2 * tb as u64) >= g.alloc_blocks as u64 || tb as u64 * blk < 2 * NODE_SIZE as u64 {
        return Err(HfsError::VolumeSize { sectors: g.sectors });
    }
    let tree_len = tb as u64 * blk;
    // `u64::min` followed by a truncating cast is miscompiled by LLVM's M68k
    // back end (docs/codegen-conformance.md, case `u64_min_then_truncate`);
    // `try_from` states the same saturation without it.
    let nodes = u32::try_from(tree_len / NODE_SIZE as u64).unwrap_or(u32::MAX);
    let block_offset = |b: u64| g.first_alloc_sector as u64 * 512 + b * blk;

    // Boot blocks.
    let mut boot = [0u8; 1024];
    if let Some(bb) = opts.boot_blocks {
        if bb.len() != 1024 || u16::from_be_bytes([bb[0], bb[1]]) != BOOT_SIGNATURE {
            return Err(HfsError::BadBootBlocks);
        }
        boot.copy_from_slice(bb);
    }
    write_bytes(dev, 0, &boot)?;

    // Extents file: header node only.
    let ext = btree::build(&[], &|r| r[..8].to_vec(), 7, nodes)
        .map_err(|_| HfsError::VolumeSize { sectors: g.sectors })?;
    zero_bytes(dev, block_offset(0), tree_len)?;
    for (n, node) in &ext.nodes {
        write_bytes(dev, block_offset(0) + *n as u64 * NODE_SIZE as u64, node)?;
    }

    // Catalog: root folder and its thread.
    let mut root = CatFolder::new(cnid::ROOT, opts.created);
    root.valence.set(0);
    let recs = [
        leaf_record(
            &CatKey::new(cnid::ROOT_PARENT, opts.name),
            &CatData::Folder(root),
        ),
        leaf_record(
            &CatKey::new(cnid::ROOT, b""),
            &CatData::Thread(CatThread::new(
                rec_type::FOLDER_THREAD,
                cnid::ROOT_PARENT,
                opts.name,
            )),
        ),
    ];
    let cat = btree::build(&recs, &super::volume::catalog_index_key, 0x25, nodes)
        .map_err(|_| HfsError::VolumeSize { sectors: g.sectors })?;
    zero_bytes(dev, block_offset(tb as u64), tree_len)?;
    for (n, node) in &cat.nodes {
        write_bytes(
            dev,
            block_offset(tb as u64) + *n as u64 * NODE_SIZE as u64,
            node,
        )?;
    }

    // Bitmap.
    let mut bitmap = vec![0u8; g.bitmap_sectors as usize * 512];
    for b in 0..(2 * tb) as usize {
        bitmap[b / 8] |= 0x80 >> (b % 8);
    }
    write_bytes(dev, 3 * 512, &bitmap)?;

    // MDB and its copy.
    let mut m = Mdb::zeroed();
    m.sig_word.set(HFS_SIGNATURE);
    m.cr_date.set(opts.created);
    m.ls_mod.set(opts.created);
    m.atrb.set(ATRB_UNMOUNTED);
    m.vbm_st.set(3);
    m.nm_al_blks.set(g.alloc_blocks);
    m.al_blk_siz.set(g.alloc_block_size);
    m.clp_siz.set(file_clump(g.alloc_block_size));
    m.al_bl_st.set(g.first_alloc_sector);
    m.nxt_cnid.set(cnid::FIRST_USER);
    m.free_bks.set(g.alloc_blocks - 2 * tb as u16);
    m.vn[0] = opts.name.len() as u8;
    m.vn[1..1 + opts.name.len()].copy_from_slice(opts.name);
    m.xt_clp_siz.set(tree_len as u32);
    m.ct_clp_siz.set(tree_len as u32);
    m.xt_fl_size.set(tree_len as u32);
    m.xt_ext_rec[0] = Extent::new(0, tb as u16);
    m.ct_fl_size.set(tree_len as u32);
    m.ct_ext_rec[0] = Extent::new(tb as u16, tb as u16);
    let mut sector = [0u8; 512];
    sector[..162].copy_from_slice(m.as_bytes());
    write_bytes(dev, 2 * 512, &sector)?;
    write_bytes(dev, (g.sectors - 2) * 512, &sector)?;
    write_bytes(dev, (g.sectors - 1) * 512, &[0u8; 512])?;
    dev.flush()?;
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_the_facts_table() {
        let rows: [(u64, u32, u32, u16, u16); 6] = [
            (40_960, 512, 10, 13, 40_945),
            (204_800, 2_048, 13, 16, 51_195),
            (1_024_000, 8_192, 16, 19, 63_998),
            (2_097_152, 16_896, 16, 19, 63_549),
            (4_194_303, 32_768, 16, 19, 65_535),
            (8_388_607, 65_536, 16, 19, 65_535),
        ];
        for (sectors, blk, bm, st, n) in rows {
            let g = geometry_for(sectors, None).unwrap();
            assert_eq!(
                (
                    g.alloc_block_size,
                    g.bitmap_sectors,
                    g.first_alloc_sector,
                    g.alloc_blocks
                ),
                (blk, bm, st, n),
                "{sectors} sectors"
            );
        }
        assert!(geometry_for(799, None).is_err());
        assert!(geometry_for(1 << 32, None).is_err());
        let g = geometry_for(u32::MAX as u64, None).unwrap();
        assert!(g.alloc_blocks >= 65_000);
        assert!(geometry_for(200_000, Some(512)).is_err());
    }
}
