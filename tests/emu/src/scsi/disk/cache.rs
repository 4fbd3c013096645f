//! The volatile write cache: dirty blocks waiting for the backing store, evicted oldest
//! first when full. Only data lives here; timing is in [`super::timing`].

use std::collections::{BTreeMap, HashMap};

/// Dirty blocks by LBA, with their age.
#[derive(Debug, Clone, Default)]
pub struct WriteCache {
    capacity_blocks: usize,
    blocks: HashMap<u64, (u64, Vec<u8>)>,
    /// Age (write sequence number) → LBA; the oldest first.
    order: BTreeMap<u64, u64>,
    next_seq: u64,
}

impl WriteCache {
    /// A cache holding at most `capacity_blocks` blocks (at least 1).
    pub fn new(capacity_blocks: usize) -> WriteCache {
        WriteCache {
            capacity_blocks: capacity_blocks.max(1),
            ..Default::default()
        }
    }

    /// Capacity in blocks.
    pub fn capacity_blocks(&self) -> usize {
        self.capacity_blocks
    }

    /// Dirty blocks held.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether nothing is dirty.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The LBAs of the dirty blocks, ascending.
    pub fn lbas(&self) -> Vec<u64> {
        let mut l: Vec<u64> = self.blocks.keys().copied().collect();
        l.sort_unstable();
        l
    }

    /// The cached data of `lba`, if dirty.
    pub fn get(&self, lba: u64) -> Option<&[u8]> {
        self.blocks.get(&lba).map(|(_, d)| d.as_slice())
    }

    /// Put a block in the cache (a rewrite makes it the newest). Returns the blocks evicted to
    /// make room, oldest first — the caller writes them to the store.
    pub fn insert(&mut self, lba: u64, data: Vec<u8>) -> Vec<(u64, Vec<u8>)> {
        if let Some((seq, _)) = self.blocks.remove(&lba) {
            self.order.remove(&seq);
        }
        let mut evicted = Vec::new();
        while self.blocks.len() >= self.capacity_blocks {
            let (_, old) = self
                .order
                .pop_first()
                .expect("a full cache has an oldest block");
            let (_, d) = self.blocks.remove(&old).unwrap();
            evicted.push((old, d));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.order.insert(seq, lba);
        self.blocks.insert(lba, (seq, data));
        evicted
    }

    /// Remove and return the dirty blocks in `[start, end)`, in LBA order.
    pub fn take_range(&mut self, start: u64, end: u64) -> Vec<(u64, Vec<u8>)> {
        let mut lbas: Vec<u64> = self
            .blocks
            .keys()
            .copied()
            .filter(|&l| l >= start && l < end)
            .collect();
        lbas.sort_unstable();
        lbas.into_iter()
            .map(|l| {
                let (seq, d) = self.blocks.remove(&l).unwrap();
                self.order.remove(&seq);
                (l, d)
            })
            .collect()
    }

    /// Remove and return the `n` oldest dirty blocks, oldest first.
    pub fn take_oldest(&mut self, n: usize) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        while out.len() < n {
            let Some((_, lba)) = self.order.pop_first() else {
                break;
            };
            let (_, d) = self.blocks.remove(&lba).expect("ordered blocks are held");
            out.push((lba, d));
        }
        out
    }

    /// Remove and return every dirty block, in LBA order.
    pub fn take_all(&mut self) -> Vec<(u64, Vec<u8>)> {
        self.take_range(0, u64::MAX)
    }

    /// Drop everything (power loss).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.order.clear();
    }
}
