//! A Memory Manager model: a system heap zone and an application heap zone in emulated RAM.
//!
//! The bookkeeping (which ranges are free, which blocks exist) lives on the host; the blocks,
//! the zone headers and the master pointers live in emulated RAM, so guest code can use them
//! the way it would on a Mac (`move.l (a0),a0` dereferences a handle).
//!
//! Modelling choices (all chosen to make guest misuse fail loudly):
//! * **Blocks never move.** Relocatable blocks stay where they were allocated; `_HLock` and
//!   `_HUnlock` only record the state. Code that forgets to lock a handle therefore still
//!   works here. (A "heap scramble" option that moves unlocked blocks on every call that may
//!   move memory would catch that; not implemented yet.) `_SetHandleSize` on an unlocked
//!   handle that cannot grow in place does move the block, as the real one would.
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
//! * Handle flags (`_HGetState` byte: bit 7 locked, 6 purgeable, 5 resource) are kept apart
//!   from the master pointer, as in the 32-bit Memory Manager; nothing is ever purged.
//! * Zone headers hold only `bkLim` (+0) and `zcbFree` (+12); the rest of the 52-byte header
//!   is zero.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::bus::MacBus;
use crate::error::Fault;

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
    flags: u8,
    zone: ZoneId,
}

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
        };
        for z in 0..2 {
            let (h, end) = (mm.zones[z].header, mm.zones[z].end);
            bus.fill_host(h, ZONE_HEADER_LEN, 0);
            bus.poke_u32(h, end);
            mm.write_zone_free(bus, z);
        }
        mm
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
        match self.blocks.get(&ptr) {
            Some(b) if b.kind == BlockKind::Pointer => Ok(*b),
            _ => Err(self.describe_bad(ptr, "pointer")),
        }
    }

    /// `_DisposePtr`.
    pub fn dispose_ptr(&mut self, bus: &mut MacBus, ptr: u32) -> Result<(), String> {
        self.pointer_block(ptr)?;
        self.release(bus, ptr);
        self.disposed_ptrs.insert(ptr);
        Ok(())
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
        self.pointer_block(ptr)?;
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
        let master = self.new_master(bus, zone)?;
        match self.place(bus, zone, size, clear, BlockKind::Relocatable { master }) {
            Ok(b) => {
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
        if !self.handles.contains_key(&h) {
            return Err(self.describe_bad(h, "handle"));
        }
        let data = bus.peek_u32(h);
        match self.blocks.get(&data) {
            Some(b) if b.kind == BlockKind::Relocatable { master: h } => Ok(*b),
            _ => Err(format!(
                "master pointer of handle ${h:08X} was overwritten (holds ${data:08X})"
            )),
        }
    }

    /// `_DisposeHandle`.
    pub fn dispose_handle(&mut self, bus: &mut MacBus, h: u32) -> Result<(), String> {
        let b = self.handle_block(bus, h)?;
        self.release(bus, b.data());
        self.handles.remove(&h);
        self.disposed_handles.insert(h);
        bus.poke_u32(h, DISPOSED_MASTER);
        Ok(())
    }

    /// `_GetHandleSize`.
    pub fn handle_size(&self, bus: &MacBus, h: u32) -> Result<u32, String> {
        self.handle_block(bus, h).map(|b| b.size)
    }

    /// `_HGetState`.
    pub fn handle_state(&self, bus: &MacBus, h: u32) -> Result<u8, String> {
        self.handle_block(bus, h)?;
        Ok(self.handles[&h].flags)
    }

    /// `_HSetState` (and `_HLock`/`_HUnlock`/`_HPurge`/… through it).
    pub fn set_handle_state(&mut self, bus: &MacBus, h: u32, flags: u8) -> Result<(), String> {
        self.handle_block(bus, h)?;
        self.handles.get_mut(&h).unwrap().flags =
            flags & (STATE_LOCKED | STATE_PURGEABLE | STATE_RESOURCE);
        Ok(())
    }

    /// `_SetHandleSize`: in place if possible, else (unlocked only) by moving the block.
    pub fn set_handle_size(
        &mut self,
        bus: &mut MacBus,
        h: u32,
        size: u32,
    ) -> Result<Result<(), i16>, String> {
        let b = self.handle_block(bus, h)?;
        match self.resize_in_place(bus, b.data(), size) {
            Ok(true) => return Ok(Ok(())),
            Ok(false) => {}
            Err(e) => return Ok(Err(e)),
        }
        if self.handles[&h].flags & STATE_LOCKED != 0 {
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
        bus.poke_u32(h, nb.data());
        Ok(Ok(()))
    }

    /// `_RecoverHandle`: the handle whose block starts at `ptr`.
    pub fn recover_handle(&self, ptr: u32) -> Result<u32, String> {
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
                if mp != b.data() {
                    return Err(Fault::HeapCorruption {
                        message: format!(
                            "master pointer ${master:08X} should hold ${:08X} but holds ${mp:08X}",
                            b.data()
                        ),
                    });
                }
            }
        }
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
        mm.set_handle_state(&bus, h, STATE_LOCKED).unwrap();
        assert_eq!(mm.handle_state(&bus, h), Ok(STATE_LOCKED));
        // Block a neighbour so growing must move; a locked handle cannot.
        let _blocker = mm.new_ptr(&mut bus, ZoneId::Application, 4, false).unwrap();
        assert_eq!(
            mm.set_handle_size(&mut bus, h, 4000).unwrap(),
            Err(MEM_FULL_ERR)
        );
        mm.set_handle_state(&bus, h, 0).unwrap();
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
}
