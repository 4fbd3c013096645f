//! The emulated Mac's address bus: flat big-endian RAM from address 0, nothing else.
//!
//! Modelling choices:
//! * There is no ROM and no I/O space. Any access at or beyond the end of RAM is a **bus
//!   error**: the bus refuses it, the CPU takes its bus-error exception, and the run loop
//!   reports the faulting address and PC. (A real Mac would hit ROM, I/O or mirrored RAM
//!   there; reading a silent 0 would hide wild pointers.)
//! * Writes to the first 256 bytes (vectors 0–63, i.e. the "NULL page" a NIL pointer reaches)
//!   are refused the same way while [`MacBus::protect_low_vectors`] is set. On a real Mac such
//!   a write silently corrupts the exception vectors; no Ferrite code has a reason to do it.
//!   Reads there are allowed (real Macs return the vectors, and harmless code such as
//!   `tst.l (a0)` on a NIL handle is common enough that a read fault would be noise).
//! * On a 24-bit machine ([`MacBus::set_address_mask`] with `$00FF_FFFF`) the bus ignores the
//!   high byte of every address, as a 68000's 24 address lines (or a Mac II's HMMU in 24-bit
//!   mode) do: the CPU already drops it, and the host helpers below drop it too, so the
//!   modelled ROM and OS follow a pointer with flags in its high byte exactly as the hardware
//!   would. On a 32-bit machine the mask is all ones and such a pointer lies beyond RAM.
//! * Every write — by the guest or by the host helpers — marks the written 16-bit words in a
//!   "written since the last instruction-cache flush" bitmap, which the run loop checks
//!   before executing each instruction (see [`crate::machine`]).

use m68k::AddressBus;
use m68k::core::memory::{BusFault, BusFaultKind};

/// Size of the area whose writes are refused while [`MacBus::protect_low_vectors`] is set.
pub const NULL_PAGE_LEN: u32 = 0x100;

/// How an access that failed used the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A data read.
    Read,
    /// A data write.
    Write,
    /// An instruction-stream read.
    Fetch,
}

impl core::fmt::Display for Access {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Fetch => "instruction fetch",
        })
    }
}

/// Why the bus refused an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusFaultCause {
    /// The address lies at or beyond the end of RAM.
    BeyondRam,
    /// A write into the protected first 256 bytes (NIL-pointer write).
    NullPageWrite,
    /// A write into the ROM region ([`MacBus::set_rom`]).
    RomWrite,
}

/// The first refused access since the bus was last asked (see [`MacBus::take_fault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BusFaultRecord {
    /// The (CPU-masked) address of the refused access.
    pub address: u32,
    /// Bytes in the access.
    pub size: u8,
    /// Read, write or fetch.
    pub access: Access,
    /// Why it was refused.
    pub cause: BusFaultCause,
}

/// RAM plus fault and cache-coherency bookkeeping.
pub struct MacBus {
    ram: Vec<u8>,
    /// One bit per 16-bit word: written since the last instruction-cache flush.
    stale: Vec<u64>,
    /// Whether any bit in `stale` is set (lets a flush of a clean cache be free).
    any_stale: bool,
    fault: Option<BusFaultRecord>,
    /// Refuse writes below [`NULL_PAGE_LEN`].
    pub protect_low_vectors: bool,
    /// Address lines decoded: `$00FF_FFFF` on a 24-bit machine, else all ones.
    address_mask: u32,
    /// The ROM's range `[start, end)`: reads return [`ROM_FILL`], writes are refused.
    rom: Option<(u32, u32)>,
}

/// Call `f(index, mask)` for each `u64` of a one-bit-per-word map with the bits of words
/// `first..=last` in `mask`: a whole range costs one step per 64 words, not one per word.
#[inline]
fn for_word_bits(first: u32, last: u32, mut f: impl FnMut(usize, u64)) {
    let (fi, li) = ((first / 64) as usize, (last / 64) as usize);
    let low = u64::MAX << (first % 64);
    let high = u64::MAX >> (63 - last % 64);
    if fi == li {
        f(fi, low & high);
        return;
    }
    f(fi, low);
    for i in fi + 1..li {
        f(i, u64::MAX);
    }
    f(li, high);
}

/// What every word of the ROM region reads as: `ILLEGAL`. The model has no ROM code, only the
/// address range (a CPU prefetching at a return address in the ROM must be able to read it).
pub const ROM_FILL: u16 = 0x4AFC;

impl MacBus {
    /// `ram_size` bytes of zeroed RAM (rounded up to a multiple of 64 bytes).
    pub fn new(ram_size: u32) -> MacBus {
        let ram_size = ram_size.div_ceil(64) * 64;
        let words = ram_size as usize / 2;
        MacBus {
            ram: vec![0; ram_size as usize],
            stale: vec![0; words.div_ceil(64)],
            any_stale: false,
            fault: None,
            protect_low_vectors: true,
            address_mask: u32::MAX,
            rom: None,
        }
    }

    /// Map a ROM region `[start, end)` (or none): readable, reading [`ROM_FILL`]; writes fail.
    pub fn set_rom(&mut self, region: Option<(u32, u32)>) {
        self.rom = region;
    }

    /// The ROM word or long at `address` if it lies in the ROM region.
    #[inline]
    fn rom_read(&self, address: u32, size: u8) -> Option<u32> {
        let (lo, hi) = self.rom?;
        let a = self.decode(address);
        if !(lo..hi).contains(&a) {
            return None;
        }
        let w = ROM_FILL as u32;
        Some(match size {
            1 => {
                if a & 1 == 0 {
                    w >> 8
                } else {
                    w & 0xFF
                }
            }
            2 => w,
            _ => (w << 16) | w,
        })
    }

    /// Decode only the address bits in `mask` (`$00FF_FFFF`: a 24-bit machine).
    pub fn set_address_mask(&mut self, mask: u32) {
        self.address_mask = mask;
    }

    /// The address bits the bus decodes.
    pub fn address_mask(&self) -> u32 {
        self.address_mask
    }

    /// `addr` as the bus sees it (the high byte dropped on a 24-bit machine).
    #[inline]
    pub fn decode(&self, addr: u32) -> u32 {
        addr & self.address_mask
    }

    /// RAM size in bytes.
    pub fn ram_size(&self) -> u32 {
        self.ram.len() as u32
    }

    /// The whole of RAM (host view).
    pub fn ram(&self) -> &[u8] {
        &self.ram
    }

    /// Whether `[addr, addr + len)` lies inside RAM.
    pub fn in_ram(&self, addr: u32, len: u32) -> bool {
        let addr = self.decode(addr);
        (addr as u64) + (len as u64) <= self.ram.len() as u64
    }

    /// The first fault recorded since the last call, cleared.
    pub fn take_fault(&mut self) -> Option<BusFaultRecord> {
        self.fault.take()
    }

    fn refuse(&mut self, address: u32, size: u8, access: Access, cause: BusFaultCause) -> BusFault {
        if self.fault.is_none() {
            self.fault = Some(BusFaultRecord {
                address,
                size,
                access,
                cause,
            });
        }
        BusFault {
            kind: BusFaultKind::BusError,
            address,
        }
    }

    #[inline]
    fn check(&mut self, address: u32, size: u8, access: Access) -> Result<usize, BusFault> {
        let address = self.decode(address);
        let end = address as u64 + size as u64;
        if access == Access::Write && self.rom_read(address, size).is_some() {
            return Err(self.refuse(address, size, access, BusFaultCause::RomWrite));
        }
        if end > self.ram.len() as u64 {
            return Err(self.refuse(address, size, access, BusFaultCause::BeyondRam));
        }
        if access == Access::Write && self.protect_low_vectors && address < NULL_PAGE_LEN {
            return Err(self.refuse(address, size, access, BusFaultCause::NullPageWrite));
        }
        Ok(address as usize)
    }

    #[inline]
    fn mark_stale(&mut self, address: u32, len: u32) {
        if len == 0 {
            return;
        }
        let address = self.decode(address);
        let first = address / 2;
        let last = (address + len - 1) / 2;
        for_word_bits(first, last, |i, bits| self.stale[i] |= bits);
        self.any_stale = true;
    }

    /// Whether the word at `address` was written since the last instruction-cache flush.
    #[inline]
    pub fn is_stale(&self, address: u32) -> bool {
        if !self.any_stale {
            return false;
        }
        let w = self.decode(address) / 2;
        self.stale
            .get((w / 64) as usize)
            .is_some_and(|b| b & (1 << (w % 64)) != 0)
    }

    /// The first stale word in `[address, address + len)`, if any.
    pub fn first_stale(&self, address: u32, len: u32) -> Option<u32> {
        if !self.any_stale {
            return None;
        }
        let address = self.decode(address);
        let mut a = address & !1;
        while a < address.saturating_add(len) {
            if self.is_stale(a) {
                return Some(a);
            }
            a += 2;
        }
        None
    }

    /// Forget every write: the whole instruction cache was flushed.
    pub fn flush_all(&mut self) {
        if self.any_stale {
            self.stale.iter_mut().for_each(|b| *b = 0);
            self.any_stale = false;
        }
    }

    /// Forget writes to `[address, address + len)` (a ranged flush).
    pub fn flush_range(&mut self, address: u32, len: u32) {
        if !self.any_stale || len == 0 {
            return;
        }
        let address = self.decode(address);
        let first = address / 2;
        let last = (address.saturating_add(len - 1) / 2).min(self.ram.len() as u32 / 2 - 1);
        if first > last {
            return;
        }
        for_word_bits(first, last, |i, bits| self.stale[i] &= !bits);
    }

    // ----- host-side access (no fault, no protection; panics outside RAM) -----

    /// Host read of `len` bytes. Panics if the range is outside RAM.
    pub fn bytes(&self, address: u32, len: u32) -> &[u8] {
        let address = self.decode(address);
        &self.ram[address as usize..address as usize + len as usize]
    }

    /// Host write of bytes; marks them written for the instruction-cache rule.
    pub fn write_bytes_host(&mut self, address: u32, data: &[u8]) {
        let address = self.decode(address);
        self.ram[address as usize..address as usize + data.len()].copy_from_slice(data);
        self.mark_stale(address, data.len() as u32);
    }

    /// Host fill of a range.
    pub fn fill_host(&mut self, address: u32, len: u32, byte: u8) {
        let address = self.decode(address);
        self.ram[address as usize..address as usize + len as usize].fill(byte);
        self.mark_stale(address, len);
    }

    /// Host `memmove` inside RAM.
    pub fn copy_within_host(&mut self, src: u32, dst: u32, len: u32) {
        let (src, dst) = (self.decode(src), self.decode(dst));
        self.ram
            .copy_within(src as usize..src as usize + len as usize, dst as usize);
        self.mark_stale(dst, len);
    }

    /// Host big-endian word read.
    pub fn peek_u16(&self, a: u32) -> u16 {
        let a = self.decode(a) as usize;
        u16::from_be_bytes([self.ram[a], self.ram[a + 1]])
    }

    /// Host big-endian long read.
    pub fn peek_u32(&self, a: u32) -> u32 {
        let a = self.decode(a) as usize;
        u32::from_be_bytes([
            self.ram[a],
            self.ram[a + 1],
            self.ram[a + 2],
            self.ram[a + 3],
        ])
    }

    /// Host big-endian word write.
    pub fn poke_u16(&mut self, a: u32, v: u16) {
        self.write_bytes_host(a, &v.to_be_bytes());
    }

    /// Host big-endian long write.
    pub fn poke_u32(&mut self, a: u32, v: u32) {
        self.write_bytes_host(a, &v.to_be_bytes());
    }

    #[inline]
    fn rd<const N: usize>(&self, a: usize) -> [u8; N] {
        let mut out = [0u8; N];
        out.copy_from_slice(&self.ram[a..a + N]);
        out
    }

    #[inline]
    fn wr(&mut self, a: usize, data: &[u8]) {
        self.ram[a..a + data.len()].copy_from_slice(data);
        self.mark_stale(a as u32, data.len() as u32);
    }
}

// The infallible methods are only reached through the crate's non-precise helper paths; they
// record a fault and read as 0 / drop the write so that the run loop still reports the access.
impl AddressBus for MacBus {
    fn read_byte(&mut self, address: u32) -> u8 {
        self.try_read_byte(address).unwrap_or(0)
    }
    fn read_word(&mut self, address: u32) -> u16 {
        self.try_read_word(address).unwrap_or(0)
    }
    fn read_long(&mut self, address: u32) -> u32 {
        self.try_read_long(address).unwrap_or(0)
    }
    fn write_byte(&mut self, address: u32, value: u8) {
        let _ = self.try_write_byte(address, value);
    }
    fn write_word(&mut self, address: u32, value: u16) {
        let _ = self.try_write_word(address, value);
    }
    fn write_long(&mut self, address: u32, value: u32) {
        let _ = self.try_write_long(address, value);
    }

    #[inline]
    fn try_read_byte(&mut self, address: u32) -> Result<u8, BusFault> {
        if let Some(v) = self.rom_read(address, 1) {
            return Ok(v as u8);
        }
        let a = self.check(address, 1, Access::Read)?;
        Ok(self.ram[a])
    }
    #[inline]
    fn try_read_word(&mut self, address: u32) -> Result<u16, BusFault> {
        if let Some(v) = self.rom_read(address, 2) {
            return Ok(v as u16);
        }
        let a = self.check(address, 2, Access::Read)?;
        Ok(u16::from_be_bytes(self.rd(a)))
    }
    #[inline]
    fn try_read_long(&mut self, address: u32) -> Result<u32, BusFault> {
        if let Some(v) = self.rom_read(address, 4) {
            return Ok(v);
        }
        let a = self.check(address, 4, Access::Read)?;
        Ok(u32::from_be_bytes(self.rd(a)))
    }
    #[inline]
    fn try_write_byte(&mut self, address: u32, value: u8) -> Result<(), BusFault> {
        let a = self.check(address, 1, Access::Write)?;
        self.wr(a, &[value]);
        Ok(())
    }
    #[inline]
    fn try_write_word(&mut self, address: u32, value: u16) -> Result<(), BusFault> {
        let a = self.check(address, 2, Access::Write)?;
        self.wr(a, &value.to_be_bytes());
        Ok(())
    }
    #[inline]
    fn try_write_long(&mut self, address: u32, value: u32) -> Result<(), BusFault> {
        let a = self.check(address, 4, Access::Write)?;
        self.wr(a, &value.to_be_bytes());
        Ok(())
    }
    fn read_immediate_word(&mut self, address: u32) -> u16 {
        self.try_read_immediate_word(address).unwrap_or(0)
    }
    fn read_immediate_long(&mut self, address: u32) -> u32 {
        self.try_read_immediate_long(address).unwrap_or(0)
    }
    #[inline]
    fn try_read_immediate_word(&mut self, address: u32) -> Result<u16, BusFault> {
        if let Some(v) = self.rom_read(address, 2) {
            return Ok(v as u16);
        }
        let a = self.check(address, 2, Access::Fetch)?;
        Ok(u16::from_be_bytes(self.rd(a)))
    }
    #[inline]
    fn try_read_immediate_long(&mut self, address: u32) -> Result<u32, BusFault> {
        if let Some(v) = self.rom_read(address, 4) {
            return Ok(v);
        }
        let a = self.check(address, 4, Access::Fetch)?;
        Ok(u32::from_be_bytes(self.rd(a)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_ram_is_refused_and_recorded() {
        let mut bus = MacBus::new(0x1000);
        assert!(bus.try_read_long(0xFFE).is_err());
        let f = bus.take_fault().unwrap();
        assert_eq!(
            (f.address, f.access, f.cause),
            (0xFFE, Access::Read, BusFaultCause::BeyondRam)
        );
        assert!(bus.try_read_word(0xFFE).is_ok());
        assert!(bus.take_fault().is_none());
    }

    /// The ranged stale-bit updates mark and clear exactly the words a word-by-word loop
    /// would, across `u64` boundaries, for odd and even starts and lengths.
    #[test]
    fn ranged_stale_marks_match_word_by_word() {
        let ram = 0x1000u32;
        for (start, len) in [
            (0x400, 1),
            (0x401, 2),
            (0x47E, 4),
            (0x400, 128),
            (0x402, 300),
            (0x7F, 0x900),
        ] {
            let mut bus = MacBus::new(ram);
            bus.fill_host(start, len, 0xAA);
            for a in (0..ram).step_by(2) {
                let want = a / 2 >= start / 2 && a / 2 <= (start + len - 1) / 2;
                assert_eq!(bus.is_stale(a), want, "mark {start:#x}+{len}: word {a:#x}");
            }
            let (fs, fl) = (start + 6, len / 2);
            bus.flush_range(fs, fl);
            for a in (0..ram).step_by(2) {
                let marked = a / 2 >= start / 2 && a / 2 <= (start + len - 1) / 2;
                let flushed = fl > 0 && a / 2 >= fs / 2 && a / 2 <= (fs + fl - 1) / 2;
                assert_eq!(
                    bus.is_stale(a),
                    marked && !flushed,
                    "flush {fs:#x}+{fl}: word {a:#x}"
                );
            }
        }
    }

    #[test]
    fn null_page_writes_are_refused() {
        let mut bus = MacBus::new(0x1000);
        assert!(bus.try_write_word(0x10, 1).is_err());
        assert_eq!(
            bus.take_fault().unwrap().cause,
            BusFaultCause::NullPageWrite
        );
        assert!(bus.try_write_word(0x100, 1).is_ok());
    }

    #[test]
    fn stale_tracking() {
        let mut bus = MacBus::new(0x1000);
        assert!(!bus.is_stale(0x200));
        bus.try_write_byte(0x201, 7).unwrap();
        assert!(bus.is_stale(0x200));
        assert_eq!(bus.first_stale(0x1F0, 0x20), Some(0x200));
        bus.flush_range(0x200, 2);
        assert!(!bus.is_stale(0x200));
        bus.poke_u32(0x300, 1);
        bus.flush_all();
        assert!(!bus.is_stale(0x302));
    }
}
