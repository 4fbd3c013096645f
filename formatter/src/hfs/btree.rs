//! B*-tree files (mac-facts §14.5): node parsing with bounds checks, the header record, reading
//! every leaf record, and building a whole tree from sorted leaf records.

use super::{HfsError, NODE_SIZE};
use alloc::vec;
use alloc::vec::Vec;

/// One node of a tree level being built: (node number, its first record's index key, the
/// records).
type LevelNode = (u32, Vec<u8>, Vec<Vec<u8>>);

/// Node kinds (`ndType`).
pub mod kind {
    pub const INDEX: i8 = 0;
    pub const HEADER: i8 = 1;
    pub const MAP: i8 = 2;
    pub const LEAF: i8 = -1;
}

/// Nodes whose use is recorded in the header node's map record (256 bytes).
pub const HEADER_MAP_NODES: u32 = 256 * 8;
/// Nodes recorded by one map node (492-byte record, TN 1041).
pub const MAP_NODE_NODES: u32 = 492 * 8;
/// Map node height written (libhfs writes 0, machfs 1; the Mac's choice is unverified).
pub const MAP_NODE_HEIGHT: u8 = 0;

/// The header record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    pub depth: u16,
    pub root: u32,
    pub leaf_records: u32,
    pub first_leaf: u32,
    pub last_leaf: u32,
    pub node_size: u16,
    pub max_key_len: u16,
    pub total_nodes: u32,
    pub free_nodes: u32,
}

impl Header {
    pub fn parse(rec: &[u8]) -> Option<Header> {
        if rec.len() < 106 {
            return None;
        }
        let u16_at = |o: usize| u16::from_be_bytes([rec[o], rec[o + 1]]);
        let u32_at = |o: usize| u32::from_be_bytes([rec[o], rec[o + 1], rec[o + 2], rec[o + 3]]);
        Some(Header {
            depth: u16_at(0),
            root: u32_at(2),
            leaf_records: u32_at(6),
            first_leaf: u32_at(10),
            last_leaf: u32_at(14),
            node_size: u16_at(18),
            max_key_len: u16_at(20),
            total_nodes: u32_at(22),
            free_nodes: u32_at(26),
        })
    }
    pub fn bytes(&self) -> [u8; 106] {
        let mut b = [0u8; 106];
        b[0..2].copy_from_slice(&self.depth.to_be_bytes());
        b[2..6].copy_from_slice(&self.root.to_be_bytes());
        b[6..10].copy_from_slice(&self.leaf_records.to_be_bytes());
        b[10..14].copy_from_slice(&self.first_leaf.to_be_bytes());
        b[14..18].copy_from_slice(&self.last_leaf.to_be_bytes());
        b[18..20].copy_from_slice(&self.node_size.to_be_bytes());
        b[20..22].copy_from_slice(&self.max_key_len.to_be_bytes());
        b[22..26].copy_from_slice(&self.total_nodes.to_be_bytes());
        b[26..30].copy_from_slice(&self.free_nodes.to_be_bytes());
        b
    }
}

/// A node's descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    pub flink: u32,
    pub blink: u32,
    pub kind: i8,
    pub height: u8,
    pub records: u16,
}

pub type NodeBuf = [u8; NODE_SIZE];

/// The descriptor of a node.
pub fn descriptor(node: &NodeBuf) -> Descriptor {
    Descriptor {
        flink: u32::from_be_bytes([node[0], node[1], node[2], node[3]]),
        blink: u32::from_be_bytes([node[4], node[5], node[6], node[7]]),
        kind: node[8] as i8,
        height: node[9],
        records: u16::from_be_bytes([node[10], node[11]]),
    }
}

/// The records of a node, checking the offsets table: offsets ≥ 14, strictly increasing, the
/// free-space offset below the table.
pub fn records(node: &NodeBuf) -> Result<Vec<&[u8]>, &'static str> {
    let n = descriptor(node).records as usize;
    if 14 + 2 * (n + 1) > NODE_SIZE {
        return Err("more records than fit in a node");
    }
    let off = |i: usize| {
        u16::from_be_bytes([node[NODE_SIZE - 2 - 2 * i], node[NODE_SIZE - 1 - 2 * i]]) as usize
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (a, b) = (off(i), off(i + 1));
        if a < 14 || b <= a {
            return Err("record offsets are not increasing from 14");
        }
        out.push((a, b));
    }
    if off(n) > NODE_SIZE - 2 * (n + 1) || (n == 0 && off(0) < 14) {
        return Err("records overlap the offsets table");
    }
    Ok(out.into_iter().map(|(a, b)| &node[a..b]).collect())
}

/// Build a node from its records.
pub fn make_node(kind: i8, height: u8, flink: u32, blink: u32, recs: &[&[u8]]) -> NodeBuf {
    let mut node = [0u8; NODE_SIZE];
    node[0..4].copy_from_slice(&flink.to_be_bytes());
    node[4..8].copy_from_slice(&blink.to_be_bytes());
    node[8] = kind as u8;
    node[9] = height;
    node[10..12].copy_from_slice(&(recs.len() as u16).to_be_bytes());
    let mut at = 14;
    for (i, r) in recs.iter().enumerate() {
        node[at..at + r.len()].copy_from_slice(r);
        node[NODE_SIZE - 2 - 2 * i..NODE_SIZE - 2 * i].copy_from_slice(&(at as u16).to_be_bytes());
        at += r.len();
    }
    let i = recs.len();
    node[NODE_SIZE - 2 - 2 * i..NODE_SIZE - 2 * i].copy_from_slice(&(at as u16).to_be_bytes());
    node
}

/// True if `recs` fit in one node.
pub fn fits(recs_len: usize, count: usize) -> bool {
    14 + recs_len + 2 * (count + 1) <= NODE_SIZE
}

/// Number of map nodes a tree of `total` nodes needs.
pub fn map_nodes_needed(total: u32) -> u32 {
    total
        .saturating_sub(HEADER_MAP_NODES)
        .div_ceil(MAP_NODE_NODES)
}

/// A tree laid out in memory: `(node number, bytes)` for every used node.
#[derive(Debug, Clone)]
pub struct Built {
    pub header: Header,
    pub nodes: Vec<(u32, NodeBuf)>,
}

/// Lay out a tree of `total_nodes` nodes holding `leaves` (whole leaf records, sorted).
/// `index_key` makes an index key from a leaf record. Node 0 is the header, then map nodes,
/// then leaves, then index levels bottom-up. Errors with the number of nodes needed if they
/// do not fit.
pub fn build(
    leaves: &[Vec<u8>],
    index_key: &dyn Fn(&[u8]) -> Vec<u8>,
    max_key_len: u16,
    total_nodes: u32,
) -> Result<Built, u32> {
    let maps = map_nodes_needed(total_nodes);
    let mut next = 1 + maps;
    let mut nodes: Vec<(u32, NodeBuf)> = Vec::new();
    // Each level: (node number, first record's index key, the records).
    let mut level: Vec<LevelNode> = Vec::new();
    let mut cur: Vec<Vec<u8>> = Vec::new();
    let mut cur_len = 0;
    let flush_into =
        |level: &mut Vec<LevelNode>, cur: &mut Vec<Vec<u8>>, next: &mut u32, key: Vec<u8>| {
            level.push((*next, key, core::mem::take(cur)));
            *next += 1;
        };
    for r in leaves {
        if !cur.is_empty() && !fits(cur_len + r.len(), cur.len() + 1) {
            let key = index_key(&cur[0]);
            flush_into(&mut level, &mut cur, &mut next, key);
            cur_len = 0;
        }
        cur_len += r.len();
        cur.push(r.clone());
    }
    if !cur.is_empty() {
        let key = index_key(&cur[0]);
        flush_into(&mut level, &mut cur, &mut next, key);
    }
    let mut header = Header {
        node_size: NODE_SIZE as u16,
        max_key_len,
        total_nodes,
        leaf_records: leaves.len() as u32,
        ..Header::default()
    };
    let mut height = 1u8;
    let emit = |level: &[LevelNode], height: u8, nodes: &mut Vec<(u32, NodeBuf)>| {
        for (i, (num, _, recs)) in level.iter().enumerate() {
            let flink = level.get(i + 1).map_or(0, |n| n.0);
            let blink = if i > 0 { level[i - 1].0 } else { 0 };
            let refs: Vec<&[u8]> = recs.iter().map(|r| r.as_slice()).collect();
            let k = if height == 1 { kind::LEAF } else { kind::INDEX };
            nodes.push((*num, make_node(k, height, flink, blink, &refs)));
        }
    };
    if !level.is_empty() {
        header.first_leaf = level[0].0;
        header.last_leaf = level[level.len() - 1].0;
        loop {
            emit(&level, height, &mut nodes);
            header.depth = height as u16;
            if level.len() == 1 {
                header.root = level[0].0;
                break;
            }
            // Next index level up.
            let mut up: Vec<(u32, Vec<u8>, Vec<Vec<u8>>)> = Vec::new();
            let mut cur: Vec<Vec<u8>> = Vec::new();
            let mut cur_len = 0;
            for (num, key, _) in &level {
                let mut rec = key.clone();
                rec.extend_from_slice(&num.to_be_bytes());
                if !cur.is_empty() && !fits(cur_len + rec.len(), cur.len() + 1) {
                    let k = cur[0][..cur[0].len() - 4].to_vec();
                    flush_into(&mut up, &mut cur, &mut next, k);
                    cur_len = 0;
                }
                cur_len += rec.len();
                cur.push(rec);
            }
            let k = cur[0][..cur[0].len() - 4].to_vec();
            flush_into(&mut up, &mut cur, &mut next, k);
            level = up;
            height += 1;
        }
    }
    let used = next;
    if used > total_nodes {
        return Err(used);
    }
    header.free_nodes = total_nodes - used;
    // Map: nodes 0..used are in use.
    let mut bits = vec![0u8; (HEADER_MAP_NODES / 8 + maps * MAP_NODE_NODES / 8) as usize];
    for n in 0..used as usize {
        bits[n / 8] |= 0x80 >> (n % 8);
    }
    let hdr = header.bytes();
    let user = [0u8; 128];
    let first_map = if maps > 0 { 1 } else { 0 };
    nodes.push((
        0,
        make_node(kind::HEADER, 0, first_map, 0, &[&hdr, &user, &bits[..256]]),
    ));
    for m in 0..maps {
        let lo = 256 + (m * 492) as usize;
        let flink = if m + 1 < maps { m + 2 } else { 0 };
        nodes.push((
            1 + m,
            make_node(kind::MAP, MAP_NODE_HEIGHT, flink, 0, &[&bits[lo..lo + 492]]),
        ));
    }
    nodes.sort_by_key(|n| n.0);
    Ok(Built { header, nodes })
}

/// Where a B*-tree file lives: its extents (allocation block runs, in fork order) and length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    pub name: &'static str,
    pub extents: Vec<(u32, u32)>,
    pub len: u64,
}

impl TreeFile {
    /// Nodes in the file by its length.
    pub fn nodes(&self) -> u32 {
        (self.len / NODE_SIZE as u64).min(u32::MAX as u64) as u32
    }

    pub fn err(&self, node: u32, what: &'static str) -> HfsError {
        HfsError::BadBTree {
            tree: self.name,
            node,
            what,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_round_trip_and_bad_offsets() {
        let n = make_node(kind::LEAF, 1, 5, 0, &[b"abcd", b"efghij"]);
        let d = descriptor(&n);
        assert_eq!(
            (d.flink, d.kind, d.height, d.records),
            (5, kind::LEAF, 1, 2)
        );
        let r = records(&n).unwrap();
        assert_eq!(r, [&b"abcd"[..], &b"efghij"[..]]);
        assert_eq!(&n[506..512], &[0, 24, 0, 18, 0, 14]);
        let mut bad = n;
        bad[510..512].copy_from_slice(&[0, 30]);
        assert!(records(&bad).is_err());
        let mut bad = n;
        bad[10..12].copy_from_slice(&[1, 0]);
        assert!(records(&bad).is_err());
    }

    #[test]
    fn header_node_matches_the_facts_doc() {
        let b = build(&[], &|r| r.to_vec(), 7, 8).unwrap();
        assert_eq!(b.nodes.len(), 1);
        let h = &b.nodes[0].1;
        assert_eq!(
            &h[504..512],
            &[0x01, 0xF8, 0x00, 0xF8, 0x00, 0x78, 0x00, 0x0E]
        );
        assert_eq!(h[0xF8], 0x80);
        assert_eq!(b.header.free_nodes, 7);
        assert_eq!((b.header.depth, b.header.root), (0, 0));
    }

    #[test]
    fn many_records_make_index_levels_and_map_nodes() {
        let leaves: Vec<Vec<u8>> = (0..3000u32)
            .map(|i| {
                let mut r = vec![7u8, 0];
                r.extend_from_slice(&i.to_be_bytes());
                r.extend_from_slice(&[0; 2]);
                r.extend_from_slice(&[0xEE; 100]);
                r
            })
            .collect();
        let b = build(&leaves, &|r| r[..8].to_vec(), 7, 5000).unwrap();
        assert_eq!(b.header.depth, 3);
        assert_eq!(b.header.leaf_records, 3000);
        assert_eq!(map_nodes_needed(5000), 1);
        let map = b.nodes.iter().find(|n| n.0 == 1).unwrap();
        assert_eq!(descriptor(&map.1).kind, kind::MAP);
        assert_eq!(descriptor(&b.nodes[0].1).flink, 1);
        assert!(build(&leaves, &|r| r[..8].to_vec(), 7, 100).is_err());
    }
}
