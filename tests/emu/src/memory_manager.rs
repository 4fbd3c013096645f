//! A Memory Manager model: a system heap zone and an application heap zone in emulated RAM.
//!
//! The bookkeeping (which ranges are free, which blocks exist) lives on the host; the blocks,
//! the zone headers and the master pointers live in emulated RAM, so guest code can use them
//! the way it would on a Mac (`move.l (a0),a0` dereferences a handle).
//!
//! Modelling choices (all chosen to make guest misuse fail loudly):
//! * **Blocks move only when the Memory Manager may move memory.** Without the heap scramble,
//!   relocatable blocks stay where they were allocated, except that `_SetHandleSize` on an
//!   unlocked handle that cannot grow in place moves the block, as the real one would.
//! * **Heap scramble** ([`MemoryManager::set_heap_scramble`], seeded): every call that may
//!   move memory (IM Memory's list: `_NewPtr`, `_NewHandle`, `_SetHandleSize`,
//!   `_SetPtrSize`, `_ReallocHandle`, `_MoveHHi`, `_CompactMem`, `_PurgeMem`, `_MaxMem`,
//!   `_ResrvMem`) first moves **every unlocked relocatable block** of its zone to another
//!   free range, in a seeded random order, and updates the master pointers. This is the worst
//!   case the documentation allows — a compaction may move any unlocked block at such a call
//!   — and it is what Apple's debugging aids did deliberately (the "heap scramble" option of
//!   MacsBug's heap commands and of the debugging tools built on it) to shake out code that
//!   keeps a dereferenced handle across a call that can move memory. Locked blocks (`_HLock`,
//!   or the lock flag set through `_HSetState`) never move. The range a block left is filled
//!   with [`FREED_BYTE`], so a stale pointer reads garbage; a write through one is caught by
//!   [`MemoryManager::check`] (free memory that was vacated must keep its fill), naming the
//!   handle, where its block went and the call that moved it.
//! * **No block headers.** A real block is preceded by an 8- or 12-byte header; here every
//!   block is preceded and followed by [`GUARD_LEN`] bytes of [`GUARD_BYTE`] (the tail guard also
//!   covers the rounding up to a multiple of 4). The guards are verified on every Memory
//!   Manager call and by [`MemoryManager::check`]; a write past a block's end is caught there.
//! * Fresh blocks that are not `CLEAR`ed are filled with [`FRESH_BYTE`], and disposed blocks
//!   with [`FREED_BYTE`], so that code relying on zeroed or still-valid memory misbehaves
//!   visibly instead of by luck.
//! * Disposing something that is not a live block (never allocated, already disposed, a
//!   handle passed as a pointer or vice versa, NIL) fails the run: on a real Mac it corrupts
//!   the heap.
//! * Master pointers are allocated in nonrelocatable blocks of [`MASTERS_PER_BLOCK`]. A
//!   disposed handle's master pointer is set to [`DISPOSED_MASTER`] (odd, outside RAM) and never
//!   reused, so a stale handle faults when dereferenced.
//! * **Handle flags** (`_HGetState` byte: bit 7 locked, 6 purgeable, 5 resource). On a 24-bit
//!   machine ([`MemoryManager::set_flags_in_master_pointers`]) they live where the 24-bit
//!   Memory Manager keeps them, in the **high byte of the master pointer** (IM II, Memory
//!   Manager, "the master pointer's high-order byte holds the flags"; IM Memory, `HGetState`,
//!   `StripAddress`): the byte is the state, so guest code that sets bit 7 itself locks the
//!   block, and a master pointer read as a 32-bit value carries the flags — harmless as an
//!   address only because the bus ignores the high byte, wrong as a number (comparing it with
//!   a pointer, arithmetic on it). On a 32-bit machine the flags are kept apart, as in the
//!   32-bit Memory Manager, and the master pointer is a clean address: code that sets bits in
//!   its high byte (24-bit-era "bset #7,(a0)" locking) is reported by [`MemoryManager::check`].
//!   Nothing is ever purged.
//! * Zone headers hold only `bkLim` (+0) and `zcbFree` (+12); the rest of the 52-byte header
//!   is zero. A zone can be limited to a prefix of its range ([`MemoryManager::limit_zone`]),
//!   as the system heap is while the ROM loads drivers, and grown back.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::bus::MacBus;
use crate::error::Fault;
use crate::seed::Rng;

/// Guard bytes before and (at least) after every block.
pub const GUARD_LEN: u32 = 16;
/// Value of every guard byte.
pub const GUARD_BYTE: u8 = 0xFD;
/// Fill of a fresh block allocated without `CLEAR`.
pub const FRESH_BYTE: u8 = 0xA5;
/// Fill of a disposed block.
pub const FREED_BYTE: u8 = 0xDD;
/// Master pointers per master-pointer block.
pub const MASTERS_PER_BLOCK: u32 = 64;
/// What a disposed handle's master pointer holds.
pub const DISPOSED_MASTER: u32 = 0xDEAD_BEEF;
/// Size of a zone header (`Zone` record).
pub const ZONE_HEADER_LEN: u32 = 52;

/// `memFullErr`: not enough room in the zone.
pub const MEM_FULL_ERR: i16 = -108;
/// `nilHandleErr`.
pub const NIL_HANDLE_ERR: i16 = -109;
/// `memWZErr`: operation on a free block.
pub const MEM_WZ_ERR: i16 = -111;
/// `memLockedErr`: block is locked.
pub const MEM_LOCKED_ERR: i16 = -117;

/// `_HGetState` bit: locked.
pub const STATE_LOCKED: u8 = 0x80;
/// `_HGetState` bit: purgeable.
pub const STATE_PURGEABLE: u8 = 0x40;
/// `_HGetState` bit: resource.
pub const STATE_RESOURCE: u8 = 0x20;

/// Which heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZoneId {
    /// The system heap (`SysZone`).
    System,
    /// The application heap (`ApplZone`).
    Application,
}

impl ZoneId {
    fn index(self) -> usize {
        match self {
            ZoneId::System => 0,
            ZoneId::Application => 1,
        }
    }
}

/// What a live block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// A nonrelocatable block (`_NewPtr`).
    Pointer,
    /// A relocatable block (`_NewHandle`) and its master pointer.
    Relocatable { master: u32 },
    /// A block of master pointers (allocated by the model itself).
    MasterPointers,
}

/// A live block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// First byte of the front guard.
    pub raw: u32,
    /// Guard + data + tail guard.
    pub raw_len: u32,
    /// Logical size (what `_GetPtrSize` returns).
    pub size: u32,
    pub kind: BlockKind,
    pub zone: ZoneId,
}

impl Block {
    /// Address of the data (what `_NewPtr` returns).
    pub fn data(&self) -> u32 {
        self.raw + GUARD_LEN
    }
}

/// A heap zone's extent and free list.
#[derive(Debug, Clone)]
pub struct Zone {
    pub id: ZoneId,
    /// Zone header address (what `SysZone`/`ApplZone`/`TheZone` hold).
    pub header: u32,
    /// First byte after the zone (`bkLim`).
    pub end: u32,
    /// Free ranges: start → length.
    free: BTreeMap<u32, u32>,
    /// Master pointers not in use.
    free_masters: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct HandleInfo {
    /// The flags on a 32-bit machine (on a 24-bit one the master pointer's high byte is).
    flags: u8,
    zone: ZoneId,
}

/// Mask of the address part of a master pointer on a 24-bit machine.
const ADDRESS_24: u32 = 0x00FF_FFFF;

/// The heap scramble's state.
#[derive(Debug, Clone)]
struct Scramble {
    seed: u64,
    rng: Rng,
    /// Calls that scrambled a zone, and blocks moved in all.
    passes: u64,
    moves: u64,
}

/// A range a relocatable block was moved away from (kept while it stays free).
#[derive(Debug, Clone)]
struct Vacated {
    start: u32,
    len: u32,
    /// The handle whose block it was (0: a disposed pointer).
    handle: u32,
    /// Where the block went (`None`: it was disposed).
    moved_to: Option<u32>,
    pass: u64,
    call: &'static str,
}

/// How many vacated ranges [`MemoryManager::check`] watches (the most recent ones).
const VACATED_WATCHED: usize = 256;

/// The Memory Manager model.
#[derive(Debug, Clone)]
pub struct MemoryManager {
    zones: [Zone; 2],
    /// Live blocks by data address.
    blocks: BTreeMap<u32, Block>,
    /// Live handles by master-pointer address.
    handles: HashMap<u32, HandleInfo>,
    /// Data addresses of disposed pointers (until reused), for "disposed twice" messages.
    disposed_ptrs: HashSet<u32>,
    /// Disposed handles (their master pointers are never reused).
    disposed_handles: HashSet<u32>,
    /// 24-bit machine: handle flags live in the master pointers' high bytes.
    flags_in_master: bool,
    scramble: Option<Scramble>,
    /// Ranges blocks were moved away from, most recent last.
    vacated: Vec<Vacated>,
    /// Full extent of each zone, when [`MemoryManager::limit_zone`] has cut it short.
    full_end: [Option<u32>; 2],
}

fn round4(n: u32) -> u32 {
    n.wrapping_add(3) & !3
}

impl MemoryManager {
    /// Set up the two zones: the system zone occupies `[sys_start, sys_end)`, the application
    /// zone `[appl_start, appl_end)`. Writes the zone headers.
    pub fn new(bus: &mut MacBus, sys: (u32, u32), appl: (u32, u32)) -> MemoryManager {
        let mk = |id, (start, end): (u32, u32)| {
            let first = (start + ZONE_HEADER_LEN + 15) & !15;
            let mut free = BTreeMap::new();
            free.insert(first, end - first);
            Zone {
                id,
                header: start,
                end,
                free,
                free_masters: Vec::new(),
            }
        };
        let mm = MemoryManager {
            zones: [mk(ZoneId::System, sys), mk(ZoneId::Application, appl)],
            blocks: BTreeMap::new(),
            handles: HashMap::new(),
            disposed_ptrs: HashSet::new(),
            disposed_handles: HashSet::new(),
            flags_in_master: false,
            scramble: None,
            vacated: Vec::new(),
            full_end: [None; 2],
        };
        for z in 0..2 {
            let (h, end) = (mm.zones[z].header, mm.zones[z].end);
            bus.fill_host(h, ZONE_HEADER_LEN, 0);
            bus.poke_u32(h, end);
            mm.write_zone_free(bus, z);
        }
        mm
    }

    /// 24-bit machine: keep each handle's flags in its master pointer's high byte.
    pub fn set_flags_in_master_pointers(&mut self, on: bool) {
        self.flags_in_master = on;
    }

    /// Whether handle flags live in the master pointers (24-bit machine).
    pub fn flags_in_master_pointers(&self) -> bool {
        self.flags_in_master
    }

    /// Turn the heap scramble on with `seed` (or off with `None`).
    pub fn set_heap_scramble(&mut self, seed: Option<u64>) {
        self.scramble = seed.map(|seed| Scramble {
            seed,
            rng: Rng::new(seed, 0x4E61),
            passes: 0,
            moves: 0,
        });
    }

    /// The heap scramble's seed, when it is on.
    pub fn heap_scramble_seed(&self) -> Option<u64> {
        self.scramble.as_ref().map(|s| s.seed)
    }

    /// Blocks the heap scramble has moved so far.
    pub fn scramble_moves(&self) -> u64 {
        self.scramble.as_ref().map_or(0, |s| s.moves)
    }

    /// `addr` as the 24-bit Memory Manager sees it: on a 24-bit machine it ignores the high
    /// byte of the pointers and handles it is given, as the bus does (a dereferenced locked
    /// handle carries its flags there).
    fn clean(&self, addr: u32) -> u32 {
        if self.flags_in_master {
            addr & ADDRESS_24
        } else {
            addr
        }
    }

    /// The address a master pointer's value points at (its flags byte dropped on a 24-bit
    /// machine).
    fn master_target(&self, bus: &MacBus, h: u32) -> u32 {
        let v = bus.peek_u32(h);
        if self.flags_in_master {
            v & ADDRESS_24
        } else {
            v
        }
    }

    /// Store `data` in master pointer `h`, keeping the flags byte on a 24-bit machine.
    fn write_master(&self, bus: &mut MacBus, h: u32, data: u32) {
        let v = if self.flags_in_master {
            (bus.peek_u32(h) & !ADDRESS_24) | (data & ADDRESS_24)
        } else {
            data
        };
        bus.poke_u32(h, v);
    }

    fn flags_of(&self, bus: &MacBus, h: u32) -> u8 {
        if self.flags_in_master {
            bus.bytes(h, 1)[0] & (STATE_LOCKED | STATE_PURGEABLE | STATE_RESOURCE)
        } else {
            self.handles[&h].flags
        }
    }

    fn is_locked(&self, bus: &MacBus, h: u32) -> bool {
        self.flags_of(bus, h) & STATE_LOCKED != 0
    }

    /// A call that may move memory in `zone` (`call` names it for diagnostics): with the heap
    /// scramble on, every unlocked relocatable block of the zone moves now.
    pub fn may_move_memory(&mut self, bus: &mut MacBus, zone: ZoneId, call: &'static str) {
        let Some(mut sc) = self.scramble.take() else {
            return;
        };
        sc.passes += 1;
        let z = zone.index();
        let mut movable: Vec<u32> = self
            .blocks
            .values()
            .filter(|b| b.zone == zone)
            .filter_map(|b| match b.kind {
                BlockKind::Relocatable { master } if !self.is_locked(bus, master) => Some(b.data()),
                _ => None,
            })
            .collect();
        sc.rng.shuffle(&mut movable);
        for data in movable {
            let b = self.blocks[&data];
            let fits: Vec<(u32, u32)> = self.zones[z]
                .free
                .iter()
                .filter(|(_, l)| **l >= b.raw_len)
                .map(|(s, l)| (*s, *l))
                .collect();
            if fits.is_empty() {
                continue;
            }
            let (start, len) = fits[sc.rng.below(fits.len())];
            let at = if sc.rng.next_u32() & 1 == 0 {
                start
            } else {
                start + ((len - b.raw_len) & !15)
            };
            let master = self.move_block(bus, data, start, len, at);
            self.vacated.push(Vacated {
                start: b.data(),
                len: b.size,
                handle: master,
                moved_to: Some(at + GUARD_LEN),
                pass: sc.passes,
                call,
            });
            sc.moves += 1;
        }
        self.trim_vacated();
        self.write_zone_free(bus, z);
        self.scramble = Some(sc);
    }

    /// Move relocatable block `data` to `at`, inside the free range `[start, start + len)`;
    /// update its master pointer. Returns the handle.
    fn move_block(&mut self, bus: &mut MacBus, data: u32, start: u32, len: u32, at: u32) -> u32 {
        let b = self.blocks[&data];
        let z = b.zone.index();
        self.zones[z].free.remove(&start);
        if at > start {
            self.zones[z].free.insert(start, at - start);
        }
        if start + len > at + b.raw_len {
            self.zones[z]
                .free
                .insert(at + b.raw_len, start + len - at - b.raw_len);
        }
        bus.copy_within_host(b.raw, at, b.raw_len);
        // The real Memory Manager moves blocks with BlockMove, which keeps the instruction
        // cache coherent.
        bus.flush_range(at, b.raw_len);
        let moved = Block { raw: at, ..b };
        self.blocks.remove(&data);
        self.blocks.insert(moved.data(), moved);
        bus.fill_host(b.raw, b.raw_len, FREED_BYTE);
        self.give_free(z, b.raw, b.raw_len);
        let BlockKind::Relocatable { master } = b.kind else {
            unreachable!("only relocatable blocks move")
        };
        self.write_master(bus, master, moved.data());
        master
    }

    fn trim_vacated(&mut self) {
        if self.vacated.len() > VACATED_WATCHED {
            let extra = self.vacated.len() - VACATED_WATCHED;
            self.vacated.drain(..extra);
        }
    }

    /// Limit zone `id` to its first `len` bytes (header included), as the system heap is while
    /// the ROM loads drivers; the rest of its range must be free. [`MemoryManager::unlimit_zone`]
    /// gives it back.
    pub fn limit_zone(&mut self, bus: &mut MacBus, id: ZoneId, len: u32) -> Result<(), String> {
        let z = id.index();
        let new_end = (self.zones[z].header + len) & !15;
        if new_end >= self.zones[z].end {
            return Ok(());
        }
        // Unlocked relocatable blocks beyond the limit (the heap scramble may have put them
        // anywhere) move below it first, as a compaction would.
        let beyond: Vec<u32> = self
            .blocks
            .values()
            .filter(|b| b.zone == id && b.raw + b.raw_len > new_end)
            .filter_map(|b| match b.kind {
                BlockKind::Relocatable { master } if !self.is_locked(bus, master) => Some(b.data()),
                _ => None,
            })
            .collect();
        for data in beyond {
            let raw_len = self.blocks[&data].raw_len;
            let below = self.zones[z]
                .free
                .iter()
                .find(|(s, l)| **l >= raw_len && **s + raw_len <= new_end)
                .map(|(s, l)| (*s, *l));
            if let Some((start, len)) = below {
                self.move_block(bus, data, start, len, start);
            }
        }
        let zone = &self.zones[z];
        let tail = zone
            .free
            .range(..=new_end)
            .next_back()
            .map(|(&s, &l)| (s, l))
            .filter(|&(s, l)| s + l == zone.end);
        let Some((s, l)) = tail else {
            let used_to = self
                .blocks
                .values()
                .filter(|b| b.zone == id)
                .map(|b| b.raw + b.raw_len)
                .max()
                .unwrap_or(zone.header);
            return Err(format!(
                "the {id:?} zone cannot be limited to {len} bytes: blocks already reach ${used_to:08X} \
                 (beyond ${new_end:08X})"
            ));
        };
        self.zones[z].free.remove(&s);
        if new_end > s {
            self.zones[z].free.insert(s, new_end - s);
        }
        let _ = l;
        if self.full_end[z].is_none() {
            self.full_end[z] = Some(self.zones[z].end);
        }
        self.zones[z].end = new_end;
        bus.poke_u32(self.zones[z].header, new_end);
        self.write_zone_free(bus, z);
        Ok(())
    }

    /// Give zone `id` back its whole range after [`MemoryManager::limit_zone`].
    pub fn unlimit_zone(&mut self, bus: &mut MacBus, id: ZoneId) {
        let z = id.index();
        let Some(full) = self.full_end[z].take() else {
            return;
        };
        let end = self.zones[z].end;
        bus.fill_host(end, full - end, FREED_BYTE);
        self.give_free(z, end, full - end);
        self.zones[z].end = full;
        bus.poke_u32(self.zones[z].header, full);
        self.write_zone_free(bus, z);
    }

    /// Empty zone `id`, as `InitApplZone` does when the Segment Loader launches an
    /// application: every block and master pointer of the zone is gone, its whole range is
    /// free again and filled with [`FREED_BYTE`] (a pointer kept from the last application
    /// reads garbage). Returns how many live blocks were dropped.
    pub fn reinit_zone(&mut self, bus: &mut MacBus, id: ZoneId) -> usize {
        self.unlimit_zone(bus, id);
        let z = id.index();
        let (start, end) = (self.zones[z].header, self.zones[z].end);
        let inside = |a: u32| (start..end).contains(&a);
        let gone: Vec<u32> = self
            .blocks
            .values()
            .filter(|b| b.zone == id)
            .map(|b| b.data())
            .collect();
        for d in &gone {
            self.blocks.remove(d);
        }
        self.handles.retain(|&mp, _| !inside(mp));
        self.disposed_handles.retain(|&mp| !inside(mp));
        self.disposed_ptrs.retain(|&p| !inside(p));
        self.vacated.retain(|v| !inside(v.start));
        let first = (start + ZONE_HEADER_LEN + 15) & !15;
        self.zones[z].free = BTreeMap::from([(first, end - first)]);
        self.zones[z].free_masters.clear();
        bus.fill_host(first, end - first, FREED_BYTE);
        self.write_zone_free(bus, z);
        gone.len()
    }

    /// The zone with this id.
    pub fn zone(&self, id: ZoneId) -> &Zone {
        &self.zones[id.index()]
    }

    /// The zone whose header is at `header` (the value of `TheZone`).
    pub fn zone_by_header(&self, header: u32) -> Option<ZoneId> {
        self.zones.iter().find(|z| z.header == header).map(|z| z.id)
    }

    /// All live blocks, by data address.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.blocks.values()
    }

    /// The live block whose data starts at `ptr`.
    pub fn block(&self, ptr: u32) -> Option<&Block> {
        self.blocks.get(&ptr)
    }

    /// The live block whose guarded extent contains `addr`.
    pub fn block_containing(&self, addr: u32) -> Option<&Block> {
        self.blocks
            .range(..=addr.saturating_add(GUARD_LEN))
            .next_back()
            .map(|(_, b)| b)
            .filter(|b| (b.raw..b.raw + b.raw_len).contains(&addr))
    }

    fn write_zone_free(&self, bus: &mut MacBus, z: usize) {
        let free: u32 = self.zones[z].free.values().sum();
        bus.poke_u32(self.zones[z].header + 12, free);
    }

    /// Total free bytes in a zone (`_FreeMem`): the free ranges minus one block's guard
    /// overhead each.
    pub fn free_mem(&self, id: ZoneId) -> u32 {
        self.zones[id.index()]
            .free
            .values()
            .map(|&l| l.saturating_sub(2 * GUARD_LEN))
            .sum()
    }

    /// Largest block that could be allocated now (`_MaxBlock`).
    pub fn max_block(&self, id: ZoneId) -> u32 {
        self.zones[id.index()]
            .free
            .values()
            .map(|&l| l.saturating_sub(2 * GUARD_LEN) & !3)
            .max()
            .unwrap_or(0)
    }

    fn raw_len_for(size: u32) -> Option<u32> {
        round4(size)
            .checked_add(2 * GUARD_LEN)
            .filter(|_| size < 0x8000_0000)
    }

    /// Carve a raw range of `raw_len` bytes (multiple of 16) out of a zone's free list.
    fn take_free(&mut self, z: usize, raw_len: u32) -> Option<u32> {
        let raw_len = (raw_len + 15) & !15;
        let (&start, &len) = self.zones[z].free.iter().find(|(_, l)| **l >= raw_len)?;
        self.zones[z].free.remove(&start);
        if len > raw_len {
            self.zones[z].free.insert(start + raw_len, len - raw_len);
        }
        Some(start)
    }

    fn give_free(&mut self, z: usize, start: u32, len: u32) {
        let free = &mut self.zones[z].free;
        let (mut s, mut l) = (start, len);
        if let Some((&ps, &pl)) = free.range(..s).next_back()
            && ps + pl == s
        {
            free.remove(&ps);
            s = ps;
            l += pl;
        }
        if let Some(&nl) = free.get(&(s + l)) {
            free.remove(&(s + l));
            l += nl;
        }
        free.insert(s, l);
    }

    fn place(
        &mut self,
        bus: &mut MacBus,
        zone: ZoneId,
        size: u32,
        clear: bool,
        kind: BlockKind,
    ) -> Result<Block, i16> {
        let z = zone.index();
        let raw_len = Self::raw_len_for(size).ok_or(MEM_FULL_ERR)?;
        let raw_len = (raw_len + 15) & !15;
        let raw = self.take_free(z, raw_len).ok_or(MEM_FULL_ERR)?;
        let block = Block {
            raw,
            raw_len,
            size,
            kind,
            zone,
        };
        bus.fill_host(raw, GUARD_LEN, GUARD_BYTE);
        bus.fill_host(block.data(), size, if clear { 0 } else { FRESH_BYTE });
        bus.fill_host(block.data() + size, raw_len - GUARD_LEN - size, GUARD_BYTE);
        self.blocks.insert(block.data(), block);
        self.disposed_ptrs.remove(&block.data());
        self.write_zone_free(bus, z);
        Ok(block)
    }

    fn release(&mut self, bus: &mut MacBus, data: u32) -> Block {
        let b = self.blocks.remove(&data).expect("release of a live block");
        bus.fill_host(b.raw, b.raw_len, FREED_BYTE);
        self.give_free(b.zone.index(), b.raw, b.raw_len);
        self.write_zone_free(bus, b.zone.index());
        b
    }

    /// `_NewPtr`: a nonrelocatable block of `size` bytes, or `memFullErr`.
    pub fn new_ptr(
        &mut self,
        bus: &mut MacBus,
        zone: ZoneId,
        size: u32,
        clear: bool,
    ) -> Result<u32, i16> {
        self.may_move_memory(bus, zone, "NewPtr");
        self.place(bus, zone, size, clear, BlockKind::Pointer)
            .map(|b| b.data())
    }

    fn describe_bad(&self, addr: u32, wanted: &str) -> String {
        if addr == 0 {
            return format!("NIL passed where a {wanted} was expected");
        }
        if self.disposed_ptrs.contains(&addr) {
            return format!("${addr:08X} was already disposed (disposed twice?)");
        }
        if self.disposed_handles.contains(&addr) {
            return format!("handle ${addr:08X} was already disposed (disposed twice?)");
        }
        if self.handles.contains_key(&addr) {
            return format!("${addr:08X} is a handle, not a {wanted}");
        }
        if let Some(b) = self.blocks.get(&addr) {
            return match b.kind {
                BlockKind::Relocatable { master } => format!(
                    "${addr:08X} is the data of relocatable block (handle ${master:08X}), not a {wanted}"
                ),
                BlockKind::MasterPointers => format!("${addr:08X} is a master-pointer block"),
                BlockKind::Pointer => format!("${addr:08X} is a pointer, not a {wanted}"),
            };
        }
        if let Some(b) = self.block_containing(addr) {
            return format!(
                "${addr:08X} points inside the block at ${:08X} (size {}), not at its start",
                b.data(),
                b.size
            );
        }
        format!("${addr:08X} was never allocated as a {wanted}")
    }

    fn pointer_block(&self, ptr: u32) -> Result<Block, String> {
        let ptr = self.clean(ptr);
        match self.blocks.get(&ptr) {
            Some(b) if b.kind == BlockKind::Pointer => Ok(*b),
            _ => Err(self.describe_bad(ptr, "pointer")),
        }
    }

    /// `_DisposePtr`.
    pub fn dispose_ptr(&mut self, bus: &mut MacBus, ptr: u32) -> Result<(), String> {
        let b = self.pointer_block(ptr)?;
        let ptr = b.data();
        self.release(bus, ptr);
        self.disposed_ptrs.insert(ptr);
        self.watch_disposed(b, 0, "DisposePtr");
        Ok(())
    }

    fn watch_disposed(&mut self, b: Block, handle: u32, call: &'static str) {
        let pass = self.scramble.as_ref().map_or(0, |s| s.passes);
        self.vacated.push(Vacated {
            start: b.data(),
            len: b.size,
            handle,
            moved_to: None,
            pass,
            call,
        });
        self.trim_vacated();
    }

    /// `_GetPtrSize`.
    pub fn ptr_size(&self, ptr: u32) -> Result<u32, String> {
        self.pointer_block(ptr).map(|b| b.size)
    }

    /// Try to resize the block at `data` in place; true on success.
    fn resize_in_place(&mut self, bus: &mut MacBus, data: u32, new_size: u32) -> Result<bool, i16> {
        let b = self.blocks[&data];
        let need = (Self::raw_len_for(new_size).ok_or(MEM_FULL_ERR)? + 15) & !15;
        let z = b.zone.index();
        if need <= b.raw_len {
            // Shrink (or same): give back the tail.
            if need < b.raw_len {
                self.give_free(z, b.raw + need, b.raw_len - need);
                bus.fill_host(b.raw + need, b.raw_len - need, FREED_BYTE);
            }
        } else {
            let next = b.raw + b.raw_len;
            match self.zones[z].free.get(&next) {
                Some(&l) if b.raw_len + l >= need => {
                    self.zones[z].free.remove(&next);
                    let extra = need - b.raw_len;
                    if l > extra {
                        self.zones[z].free.insert(next + extra, l - extra);
                    }
                }
                _ => return Ok(false),
            }
        }
        if new_size > b.size {
            bus.fill_host(data + b.size, new_size - b.size, FRESH_BYTE);
        }
        bus.fill_host(data + new_size, need - GUARD_LEN - new_size, GUARD_BYTE);
        let nb = self.blocks.get_mut(&data).unwrap();
        nb.raw_len = need;
        nb.size = new_size;
        self.write_zone_free(bus, z);
        Ok(true)
    }

    /// `_SetPtrSize`: nonrelocatable blocks can only change size in place.
    pub fn set_ptr_size(
        &mut self,
        bus: &mut MacBus,
        ptr: u32,
        size: u32,
    ) -> Result<Result<(), i16>, String> {
        let b = self.pointer_block(ptr)?;
        let ptr = b.data();
        self.may_move_memory(bus, b.zone, "SetPtrSize");
        Ok(match self.resize_in_place(bus, ptr, size) {
            Ok(true) => Ok(()),
            Ok(false) => Err(MEM_FULL_ERR),
            Err(e) => Err(e),
        })
    }

    fn new_master(&mut self, bus: &mut MacBus, zone: ZoneId) -> Result<u32, i16> {
        let z = zone.index();
        if self.zones[z].free_masters.is_empty() {
            let b = self.place(
                bus,
                zone,
                MASTERS_PER_BLOCK * 4,
                true,
                BlockKind::MasterPointers,
            )?;
            // Hand them out in ascending order.
            self.zones[z]
                .free_masters
                .extend((0..MASTERS_PER_BLOCK).rev().map(|i| b.data() + 4 * i));
        }
        Ok(self.zones[z].free_masters.pop().unwrap())
    }

    /// `_NewHandle`: a relocatable block and its master pointer; returns the handle.
    pub fn new_handle(
        &mut self,
        bus: &mut MacBus,
        zone: ZoneId,
        size: u32,
        clear: bool,
    ) -> Result<u32, i16> {
        self.may_move_memory(bus, zone, "NewHandle");
        let master = self.new_master(bus, zone)?;
        match self.place(bus, zone, size, clear, BlockKind::Relocatable { master }) {
            Ok(b) => {
                // A new handle is unlocked, unpurgeable, not a resource: flags byte 0.
                bus.poke_u32(master, b.data());
                self.handles.insert(master, HandleInfo { flags: 0, zone });
                Ok(master)
            }
            Err(e) => {
                self.zones[zone.index()].free_masters.push(master);
                Err(e)
            }
        }
    }

    fn handle_block(&self, bus: &MacBus, h: u32) -> Result<Block, String> {
        let h = self.clean(h);
        if !self.handles.contains_key(&h) {
            return Err(self.describe_bad(h, "handle"));
        }
        let data = self.master_target(bus, h);
        match self.blocks.get(&data) {
            Some(b) if b.kind == BlockKind::Relocatable { master: h } => Ok(*b),
            _ => Err(format!(
                "master pointer of handle ${h:08X} was overwritten (holds ${:08X})",
                bus.peek_u32(h)
            )),
        }
    }

    /// `_DisposeHandle`.
    pub fn dispose_handle(&mut self, bus: &mut MacBus, h: u32) -> Result<(), String> {
        let h = self.clean(h);
        let b = self.handle_block(bus, h)?;
        self.release(bus, b.data());
        self.handles.remove(&h);
        self.disposed_handles.insert(h);
        bus.poke_u32(h, DISPOSED_MASTER);
        self.watch_disposed(b, h, "DisposeHandle");
        Ok(())
    }

    /// `_GetHandleSize`.
    pub fn handle_size(&self, bus: &MacBus, h: u32) -> Result<u32, String> {
        self.handle_block(bus, h).map(|b| b.size)
    }

    /// `_HGetState`.
    pub fn handle_state(&self, bus: &MacBus, h: u32) -> Result<u8, String> {
        let h = self.clean(h);
        self.handle_block(bus, h)?;
        Ok(self.flags_of(bus, h))
    }

    /// `_HSetState` (and `_HLock`/`_HUnlock`/`_HPurge`/… through it).
    pub fn set_handle_state(&mut self, bus: &mut MacBus, h: u32, flags: u8) -> Result<(), String> {
        let h = self.clean(h);
        self.handle_block(bus, h)?;
        let flags = flags & (STATE_LOCKED | STATE_PURGEABLE | STATE_RESOURCE);
        self.handles.get_mut(&h).unwrap().flags = flags;
        if self.flags_in_master {
            bus.write_bytes_host(h, &[flags]);
        }
        Ok(())
    }

    /// `_SetHandleSize`: in place if possible, else (unlocked only) by moving the block.
    pub fn set_handle_size(
        &mut self,
        bus: &mut MacBus,
        h: u32,
        size: u32,
    ) -> Result<Result<(), i16>, String> {
        let h = self.clean(h);
        let zone = self.handle_block(bus, h)?.zone;
        self.may_move_memory(bus, zone, "SetHandleSize");
        let b = self.handle_block(bus, h)?;
        match self.resize_in_place(bus, b.data(), size) {
            Ok(true) => return Ok(Ok(())),
            Ok(false) => {}
            Err(e) => return Ok(Err(e)),
        }
        if self.is_locked(bus, h) {
            return Ok(Err(MEM_FULL_ERR));
        }
        let nb = match self.place(
            bus,
            b.zone,
            size,
            false,
            BlockKind::Relocatable { master: h },
        ) {
            Ok(nb) => nb,
            Err(e) => return Ok(Err(e)),
        };
        bus.copy_within_host(b.data(), nb.data(), b.size.min(size));
        self.release(bus, b.data());
        self.write_master(bus, h, nb.data());
        Ok(Ok(()))
    }

    /// `_RecoverHandle`: the handle whose block starts at `ptr`.
    pub fn recover_handle(&self, ptr: u32) -> Result<u32, String> {
        let ptr = self.clean(ptr);
        match self.blocks.get(&ptr) {
            Some(Block {
                kind: BlockKind::Relocatable { master },
                ..
            }) => Ok(*master),
            _ => Err(self.describe_bad(ptr, "relocatable block")),
        }
    }

    /// The zone a live block or handle belongs to (`_PtrZone`/`_HandleZone`).
    pub fn zone_of(&self, addr: u32) -> Option<ZoneId> {
        let addr = self.clean(addr);
        self.blocks
            .get(&addr)
            .map(|b| b.zone)
            .or_else(|| self.handles.get(&addr).map(|h| h.zone))
    }

    /// Verify every block's guards and every master pointer.
    pub fn check(&self, bus: &MacBus) -> Result<(), Fault> {
        for b in self.blocks.values() {
            let front = bus.bytes(b.raw, GUARD_LEN);
            if let Some(i) = front.iter().position(|&x| x != GUARD_BYTE) {
                return Err(Fault::HeapCorruption {
                    message: format!(
                        "{} before {:?} block ${:08X} (size {}) was overwritten: byte at ${:08X} is ${:02X} \
                         (write before the start of the block?)",
                        "front guard",
                        b.kind,
                        b.data(),
                        b.size,
                        b.raw + i as u32,
                        front[i]
                    ),
                });
            }
            let tail_at = b.data() + b.size;
            let tail = bus.bytes(tail_at, b.raw + b.raw_len - tail_at);
            if let Some(i) = tail.iter().position(|&x| x != GUARD_BYTE) {
                return Err(Fault::HeapCorruption {
                    message: format!(
                        "write past the end of {:?} block ${:08X} (size {}): byte at ${:08X} (offset {}) is ${:02X}",
                        b.kind,
                        b.data(),
                        b.size,
                        tail_at + i as u32,
                        b.size + i as u32,
                        tail[i]
                    ),
                });
            }
            if let BlockKind::Relocatable { master } = b.kind {
                let mp = bus.peek_u32(master);
                let target = self.master_target(bus, master);
                if target != b.data() {
                    let hint = if !self.flags_in_master && mp & ADDRESS_24 == b.data() {
                        format!(
                            " — its high byte ${:02X} was set: 24-bit-era flag handling (e.g. \
                             `bset #7,(a0)` to lock, or OR-ing flags into a master pointer) on a \
                             32-bit machine, where the master pointer is a plain address; use \
                             _HLock/_HSetState and _StripAddress",
                            mp >> 24
                        )
                    } else {
                        String::new()
                    };
                    return Err(Fault::HeapCorruption {
                        message: format!(
                            "master pointer ${master:08X} should hold ${:08X} but holds ${mp:08X}{hint}",
                            b.data()
                        ),
                    });
                }
            }
        }
        self.check_vacated(bus)?;
        for z in &self.zones {
            if bus.peek_u32(z.header) != z.end {
                return Err(Fault::HeapCorruption {
                    message: format!(
                        "{:?} zone header at ${:08X} was overwritten (bkLim)",
                        z.id, z.header
                    ),
                });
            }
        }
        Ok(())
    }
}

impl MemoryManager {
    /// Free ranges of `zone` that overlap `[start, start + len)`, clipped to it.
    fn free_parts(&self, zone: ZoneId, start: u32, len: u32) -> Vec<(u32, u32)> {
        let end = start + len;
        let free = &self.zones[zone.index()].free;
        let first = free
            .range(..=start)
            .next_back()
            .map(|(&s, _)| s)
            .unwrap_or(start);
        free.range(first..end)
            .filter_map(|(&s, &l)| {
                let (a, b) = (s.max(start), (s + l).min(end));
                (a < b).then(|| (a, b - a))
            })
            .collect()
    }

    /// Vacated ranges (blocks moved away or disposed) that are still free must keep their
    /// fill: a changed byte there is a write through a stale pointer.
    fn check_vacated(&self, bus: &MacBus) -> Result<(), Fault> {
        for v in self.vacated.iter().rev() {
            let Some(zone) = self
                .zones
                .iter()
                .find(|z| {
                    (z.header..z.end.max(self.full_end[z.id.index()].unwrap_or(0)))
                        .contains(&v.start)
                })
                .map(|z| z.id)
            else {
                continue;
            };
            for (a, n) in self.free_parts(zone, v.start, v.len) {
                let bytes = bus.bytes(a, n);
                let Some(i) = bytes.iter().position(|&x| x != FREED_BYTE) else {
                    continue;
                };
                let at = a + i as u32;
                let off = at - v.start;
                let what = match v.moved_to {
                    Some(to) => format!(
                        "the block of handle ${:08X} was here until the heap scramble moved it to \
                         ${to:08X} (at _{}, seed {}, pass {}): the guest dereferenced the handle, \
                         kept the pointer across a call that may move memory and wrote through it. \
                         Lock the handle (_HLock/_HSetState) around such calls, or dereference it \
                         again after each one",
                        v.handle,
                        v.call,
                        self.heap_scramble_seed().unwrap_or(0),
                        v.pass
                    ),
                    None if v.handle != 0 => format!(
                        "the block of handle ${:08X} was here until _{} released it: write after \
                         dispose",
                        v.handle, v.call
                    ),
                    None => format!(
                        "the nonrelocatable block ${:08X} was here until _{} released it: write \
                         after dispose",
                        v.start, v.call
                    ),
                };
                return Err(Fault::HeapCorruption {
                    message: format!(
                        "write into free memory at ${at:08X} (offset {off}, now ${:02X}): {what}",
                        bytes[i]
                    ),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mm() -> (MacBus, MemoryManager) {
        let mut bus = MacBus::new(0x10_0000);
        let mm = MemoryManager::new(&mut bus, (0x1000, 0x8000), (0x8000, 0x20000));
        (bus, mm)
    }

    #[test]
    fn ptr_round_trip_and_reuse() {
        let (mut bus, mut mm) = mm();
        let p = mm.new_ptr(&mut bus, ZoneId::System, 10, true).unwrap();
        assert!((0x1000..0x8000).contains(&p));
        assert_eq!(bus.bytes(p, 10), &[0; 10]);
        assert_eq!(mm.ptr_size(p), Ok(10));
        mm.check(&bus).unwrap();
        mm.dispose_ptr(&mut bus, p).unwrap();
        assert!(
            mm.dispose_ptr(&mut bus, p)
                .unwrap_err()
                .contains("disposed twice")
        );
        let q = mm.new_ptr(&mut bus, ZoneId::System, 10, false).unwrap();
        assert_eq!(q, p, "first fit reuses the freed range");
        assert_eq!(bus.bytes(q, 2), &[FRESH_BYTE; 2]);
    }

    #[test]
    fn overrun_is_caught() {
        let (mut bus, mut mm) = mm();
        let p = mm.new_ptr(&mut bus, ZoneId::Application, 5, false).unwrap();
        bus.write_bytes_host(p + 5, &[0]);
        let e = mm.check(&bus).unwrap_err();
        assert!(e.to_string().contains("past the end"), "{e}");
    }

    #[test]
    fn full_zone_reports_mem_full() {
        let (mut bus, mut mm) = mm();
        assert_eq!(
            mm.new_ptr(&mut bus, ZoneId::System, 0x8000, false),
            Err(MEM_FULL_ERR)
        );
        let max = mm.max_block(ZoneId::System);
        let p = mm.new_ptr(&mut bus, ZoneId::System, max, false).unwrap();
        assert_eq!(mm.max_block(ZoneId::System), 0);
        mm.dispose_ptr(&mut bus, p).unwrap();
        assert_eq!(mm.max_block(ZoneId::System), max, "free ranges coalesce");
    }

    #[test]
    fn handles() {
        let (mut bus, mut mm) = mm();
        let h = mm
            .new_handle(&mut bus, ZoneId::Application, 8, true)
            .unwrap();
        let data = bus.peek_u32(h);
        assert_eq!(mm.recover_handle(data), Ok(h));
        assert!(mm.dispose_ptr(&mut bus, data).is_err());
        mm.set_handle_state(&mut bus, h, STATE_LOCKED).unwrap();
        assert_eq!(mm.handle_state(&bus, h), Ok(STATE_LOCKED));
        // Block a neighbour so growing must move; a locked handle cannot.
        let _blocker = mm.new_ptr(&mut bus, ZoneId::Application, 4, false).unwrap();
        assert_eq!(
            mm.set_handle_size(&mut bus, h, 4000).unwrap(),
            Err(MEM_FULL_ERR)
        );
        mm.set_handle_state(&mut bus, h, 0).unwrap();
        bus.write_bytes_host(data, b"abcdefgh");
        assert_eq!(mm.set_handle_size(&mut bus, h, 4000).unwrap(), Ok(()));
        let moved = bus.peek_u32(h);
        assert_ne!(moved, data);
        assert_eq!(bus.bytes(moved, 8), b"abcdefgh");
        mm.check(&bus).unwrap();
        mm.dispose_handle(&mut bus, h).unwrap();
        assert_eq!(bus.peek_u32(h), DISPOSED_MASTER);
        assert!(
            mm.dispose_handle(&mut bus, h)
                .unwrap_err()
                .contains("disposed twice")
        );
    }

    #[test]
    fn a_limited_zone_allocates_only_in_its_prefix_and_grows_back() {
        let (mut bus, mut mm) = mm();
        mm.limit_zone(&mut bus, ZoneId::System, 0x1000).unwrap();
        assert_eq!(bus.peek_u32(0x1000), 0x2000, "bkLim follows the limit");
        assert_eq!(
            mm.new_ptr(&mut bus, ZoneId::System, 0x1000, false),
            Err(MEM_FULL_ERR)
        );
        let p = mm.new_ptr(&mut bus, ZoneId::System, 0x800, false).unwrap();
        assert!(p + 0x800 <= 0x2000);
        mm.check(&bus).unwrap();
        mm.unlimit_zone(&mut bus, ZoneId::System);
        assert_eq!(bus.peek_u32(0x1000), 0x8000);
        mm.new_ptr(&mut bus, ZoneId::System, 0x4000, false).unwrap();
        mm.check(&bus).unwrap();
        // A zone whose blocks already reach beyond the limit cannot be cut.
        assert!(mm.limit_zone(&mut bus, ZoneId::System, 0x800).is_err());
    }

    #[test]
    fn the_scramble_moves_unlocked_blocks_and_keeps_their_contents() {
        let (mut bus, mut mm) = mm();
        mm.set_heap_scramble(Some(3));
        let a = mm
            .new_handle(&mut bus, ZoneId::Application, 8, false)
            .unwrap();
        let b = mm
            .new_handle(&mut bus, ZoneId::Application, 8, false)
            .unwrap();
        bus.write_bytes_host(bus.peek_u32(a), b"unlocked");
        bus.write_bytes_host(bus.peek_u32(b), b"locked!!");
        mm.set_handle_state(&mut bus, b, STATE_LOCKED).unwrap();
        let (pa, pb) = (bus.peek_u32(a), bus.peek_u32(b));
        mm.new_ptr(&mut bus, ZoneId::Application, 4, false).unwrap();
        assert_ne!(bus.peek_u32(a), pa);
        assert_eq!(bus.peek_u32(b), pb);
        assert_eq!(bus.bytes(bus.peek_u32(a), 8), b"unlocked");
        assert_eq!(bus.bytes(pa, 4), &[FREED_BYTE; 4]);
        assert!(mm.scramble_moves() >= 1);
        mm.check(&bus).unwrap();
        bus.write_bytes_host(pa, &[0]);
        let e = mm.check(&bus).unwrap_err().to_string();
        assert!(e.contains("heap scramble moved it"), "{e}");
    }

    #[test]
    fn on_24_bit_the_master_pointer_high_byte_is_the_state() {
        let (mut bus, mut mm) = mm();
        mm.set_flags_in_master_pointers(true);
        let h = mm
            .new_handle(&mut bus, ZoneId::Application, 8, false)
            .unwrap();
        let p = bus.peek_u32(h);
        mm.set_handle_state(&mut bus, h, STATE_LOCKED | STATE_RESOURCE)
            .unwrap();
        assert_eq!(bus.peek_u32(h), p | 0xA000_0000);
        assert_eq!(
            mm.handle_size(&bus, h),
            Ok(8),
            "the flagged pointer still resolves"
        );
        // Guest code clearing the byte by hand unlocks the block.
        bus.write_bytes_host(h, &[0]);
        assert_eq!(mm.handle_state(&bus, h), Ok(0));
        mm.check(&bus).unwrap();
    }

    #[test]
    fn limiting_a_zone_compacts_unlocked_blocks_below_the_limit() {
        let (mut bus, mut mm) = mm();
        mm.set_heap_scramble(Some(11));
        let h = mm.new_handle(&mut bus, ZoneId::System, 32, false).unwrap();
        for _ in 0..64 {
            if bus.peek_u32(h) > 0x2000 {
                break;
            }
            mm.may_move_memory(&mut bus, ZoneId::System, "CompactMem");
        }
        assert!(bus.peek_u32(h) > 0x2000, "the scramble put the block high");
        mm.limit_zone(&mut bus, ZoneId::System, 0x1000).unwrap();
        assert!(bus.peek_u32(h) < 0x2000, "moved below the limit");
        mm.check(&bus).unwrap();
    }
}
