//! What several of the formatter's integration tests build the same way: a resource fork
//! from a list of resources, and a disk that loses power after a given number of writes.
//! Each test binary uses part of it.
#![allow(dead_code)]

use ferrite_formatter::{BlockDevice, DeviceError, MemDisk};

/// A resource fork holding `res` (type, ID, data), laid out as `docs/mac-facts.md` §11 says:
/// header, data at 256 (a length word before each resource), then the map (type list at
/// map + 28, one reference list per type, an empty name list).
pub fn resource_fork(res: &[(&[u8; 4], i16, &[u8])]) -> Vec<u8> {
    let mut types: Vec<[u8; 4]> = Vec::new();
    for (t, _, _) in res {
        if !types.contains(t) {
            types.push(**t);
        }
    }
    let mut data = Vec::new();
    let mut at = Vec::new();
    for (_, _, d) in res {
        at.push(data.len() as u32);
        data.extend_from_slice(&(d.len() as u32).to_be_bytes());
        data.extend_from_slice(d);
    }
    let list_len = 2 + 8 * types.len();
    let mut list = ((types.len() as u16).wrapping_sub(1))
        .to_be_bytes()
        .to_vec();
    let mut refs = Vec::new();
    for t in &types {
        let mine: Vec<usize> = (0..res.len()).filter(|&i| res[i].0 == t).collect();
        list.extend_from_slice(t);
        list.extend_from_slice(&(mine.len() as u16 - 1).to_be_bytes());
        list.extend_from_slice(&((list_len + refs.len()) as u16).to_be_bytes());
        for i in mine {
            refs.extend_from_slice(&res[i].1.to_be_bytes());
            refs.extend_from_slice(&0xFFFFu16.to_be_bytes()); // no name
            refs.extend_from_slice(&at[i].to_be_bytes()); // attributes 0, 24-bit offset
            refs.extend_from_slice(&[0; 4]);
        }
    }
    let mut map = vec![0u8; 28];
    map[24..26].copy_from_slice(&28u16.to_be_bytes());
    map[26..28].copy_from_slice(&((28 + list.len() + refs.len()) as u16).to_be_bytes());
    map.extend_from_slice(&list);
    map.extend_from_slice(&refs);
    let mut fork = vec![0u8; 256];
    fork[0..4].copy_from_slice(&256u32.to_be_bytes());
    fork[4..8].copy_from_slice(&(256 + data.len() as u32).to_be_bytes());
    fork[8..12].copy_from_slice(&(data.len() as u32).to_be_bytes());
    fork[12..16].copy_from_slice(&(map.len() as u32).to_be_bytes());
    fork.extend_from_slice(&data);
    fork.extend_from_slice(&map);
    fork
}

/// A disk that loses power after `left` more blocks are written: every later write fails
/// and changes nothing. Writes go one block at a time, in the order asked.
pub struct StopAfter<'a> {
    pub disk: &'a mut MemDisk,
    pub left: usize,
    pub written: usize,
}

impl BlockDevice for StopAfter<'_> {
    fn block_size(&self) -> u32 {
        self.disk.block_size()
    }
    fn block_count(&self) -> u64 {
        self.disk.block_count()
    }
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        self.disk.read_blocks(block, buf)
    }
    fn write_blocks(&mut self, block: u64, buf: &[u8]) -> Result<(), DeviceError> {
        let bs = self.block_size() as usize;
        for (i, b) in buf.chunks(bs).enumerate() {
            if self.left == 0 {
                return Err(DeviceError::Io("power lost (test)".into()));
            }
            self.disk.write_blocks(block + i as u64, b)?;
            self.left -= 1;
            self.written += 1;
        }
        Ok(())
    }
}

/// A disk of `blocks` 512-byte blocks as `ferrite init` made it before the flight-record area
/// (Ferrite 0.1): `driver` alone in a 32-block `Apple_Driver43` partition at block 64 (or,
/// for a driver larger than Ferrite 0.1's 16 KiB — today's real driver, installed by a test
/// as the "old" one — a partition just large enough for it, still without a record area),
/// then HFS volumes of `volumes` blocks each (`None`: the rest of the disk),
/// formatted. Made with the current layout writer and a one-block driver (whose partition
/// is then 32 blocks), then the real driver written over the partition and its entry and
/// descriptor made to match — so the partition holds no record area.
pub fn old_ferrite_disk(blocks: u64, driver: &[u8], volumes: &[Option<u32>]) -> MemDisk {
    use ferrite_formatter::apm::{HfsPartitionSpec, Layout, PartSize, write_map};
    use ferrite_formatter::hfs::{FormatOptions, format_volume};
    use ferrite_shared::partition_map::boot_checksum;
    let slot = driver.len().div_ceil(512).max(32) as u32;
    let mut d = MemDisk::new(blocks);
    let layout = Layout {
        driver: Some(&[0x4E]),
        driver_slot_blocks: slot,
        hfs: volumes
            .iter()
            .enumerate()
            .map(|(i, v)| HfsPartitionSpec {
                name: format!("Vol{i}"),
                size: v.map_or(PartSize::Rest, PartSize::Blocks),
            })
            .collect(),
    };
    let map = write_map(&mut d, &layout).unwrap();
    assert_eq!(
        (map.partitions[1].start, map.partitions[1].blocks),
        (64, slot)
    );
    let b = d.as_bytes_mut();
    b[64 * 512..(64 + slot as usize) * 512].fill(0);
    b[64 * 512..64 * 512 + driver.len()].copy_from_slice(driver);
    // The driver entry (map block 2): pmBootSize, pmBootCksum; block 0: ddSize.
    b[1024 + 96..1024 + 100].copy_from_slice(&(driver.len() as u32).to_be_bytes());
    b[1024 + 116..1024 + 120].copy_from_slice(&(boot_checksum(driver) as u32).to_be_bytes());
    b[22..24].copy_from_slice(&(driver.len().div_ceil(512) as u16).to_be_bytes());
    let map = ferrite_formatter::apm::read_map(&mut d).unwrap();
    for p in map.hfs_partitions() {
        format_volume(
            &mut ferrite_formatter::Region::new(&mut d, p.start as u64, p.blocks as u64).unwrap(),
            &FormatOptions::new(p.name.as_bytes(), 3_000_000_000),
        )
        .unwrap();
    }
    d
}
