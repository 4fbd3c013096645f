//! Placing flat images in emulated RAM and calling their exports with the C ABI.
//!
//! # Calling convention (C ABI of the m68k target, as LLVM implements it)
//! Every argument is passed as a 32-bit long on the stack, pushed right to left; the caller
//! pops them. The result is in D0 (64-bit results: D0 = high long, D1 = low long); a pointer
//! result may come back in A0 — [`CallResult`] carries D0, D1 and A0. D0–D1/A0–A1 are
//! scratch; D2–D7/A2–A6 are callee-saved, and the call fails if the callee changes them or
//! returns with a different SP (checked unless [`crate::MachineConfig::check_callee_saved`] is
//! off).
//!
//! Before a top-level call the scratch registers hold `$D0D0D0D0`, `$D1D1D1D1`, `$A0A0A0A0`,
//! `$A1A1A1A1` and D2–D7/A2–A4 hold `$D2D2D2D2`…/`$A2A2A2A2`… (garbage addresses outside
//! RAM, so using one as a pointer faults); A5 = `CurrentA5`; A6 = 0 (ends the LINK chain);
//! SP = top of the stack. The return address is a *sentinel* in the machine's own area; the
//! run ends when the PC reaches it.
//!
//! A trap handler may call guest code itself ([`Machine::call_address`] from inside a handler):
//! the nested call runs on the current stack below the caller's SP, uses its own sentinel, and
//! restores every register afterwards.

use std::time::{Duration, Instant};

use ferrite_shared::flat::{Export, FlatImage, apply_relocs};

use crate::error::{Fault, RunError};
use crate::lowmem;
use crate::machine::Machine;
use crate::memory_manager::ZoneId;

/// A flat image placed in RAM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedImage {
    /// Load address (image offset 0).
    pub base: u32,
    /// Bytes of text + rodata + data.
    pub image_len: u32,
    /// Bytes of code (`.text`) at the start of the image (0 in old containers: all code).
    pub code_len: u32,
    /// Zeroed bytes after the image.
    pub bss_len: u32,
    /// Exports (offsets relative to `base`).
    pub exports: Vec<Export>,
    /// The heap block holding the image, when it was loaded into a heap.
    pub heap_block: Option<u32>,
    /// The image's target CPU number (0 = unspecified).
    pub cpu: u32,
}

impl LoadedImage {
    /// Absolute address of an export.
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.exports
            .iter()
            .find(|e| e.name == name)
            .map(|e| self.base + e.offset)
    }
    /// First byte after the bss.
    pub fn end(&self) -> u32 {
        self.base + self.image_len + self.bss_len
    }
    /// Whether `addr` lies in the image's code (used to recognise return addresses).
    pub fn contains(&self, addr: u32) -> bool {
        let len = if self.code_len == 0 {
            self.image_len
        } else {
            self.code_len
        };
        (self.base..self.base + len).contains(&addr)
    }
    /// `"export+0x12"` for an address in the image (nearest export at or below it).
    pub fn symbolize(&self, addr: u32) -> Option<String> {
        if !(self.base..self.end()).contains(&addr) {
            return None;
        }
        let off = addr - self.base;
        let best = self
            .exports
            .iter()
            .filter(|e| e.offset <= off)
            .max_by_key(|e| e.offset);
        Some(match best {
            Some(e) if off == e.offset => e.name.clone(),
            Some(e) => format!("{}+{:#x}", e.name, off - e.offset),
            None => format!("image@${:08X}+{off:#x}", self.base),
        })
    }
}

/// What a successful call returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallResult {
    /// D0: the result (high long of a 64-bit result).
    pub d0: u32,
    /// D1: low long of a 64-bit result.
    pub d1: u32,
    /// A0: where a pointer result may come back.
    pub a0: u32,
    /// Instructions executed (traps count one each; nested calls included).
    pub instructions: u64,
    /// CPU cycles per the m68k crate's timing for the machine's model.
    pub cycles: u64,
    /// Host time the call took (top-level calls only; 0 for nested calls).
    pub host_time: Duration,
}

impl Machine {
    fn check_image_cpu(&self, image: &FlatImage) -> Result<(), RunError> {
        if image.cpu != 0 && image.cpu > self.model().number() {
            return Err(RunError::setup(
                self.model(),
                format!(
                    "image built for the {} cannot run on the {}",
                    image.cpu,
                    self.model()
                ),
            ));
        }
        Ok(())
    }

    fn place(
        &mut self,
        image: &FlatImage,
        base: u32,
        heap_block: Option<u32>,
    ) -> Result<LoadedImage, RunError> {
        let mut bytes = image.image.clone();
        apply_relocs(&mut bytes, &image.relocs, base)
            .map_err(|e| RunError::setup(self.model(), format!("bad relocation table: {e}")))?;
        self.write_bytes(base, &bytes);
        self.watch_code(base, &image.image);
        self.bus_mut()
            .fill_host(base + bytes.len() as u32, image.bss_len, 0);
        // As the ROM's loader does: flush the instruction cache after placing code.
        self.flush_icache();
        let loaded = LoadedImage {
            base,
            image_len: bytes.len() as u32,
            code_len: image.code_len,
            bss_len: image.bss_len,
            exports: image.exports.clone(),
            heap_block,
            cpu: image.cpu,
        };
        self.images.push(loaded.clone());
        Ok(loaded)
    }

    /// Place `image` at `base` (even) inside [`crate::Layout::free_area`], zero its bss, apply
    /// its relocations and flush the instruction cache.
    pub fn load_at(&mut self, image: &FlatImage, base: u32) -> Result<LoadedImage, RunError> {
        self.check_image_cpu(image)?;
        let len = image.image.len() as u32 + image.bss_len;
        let (lo, hi) = self.layout().free_area;
        if !base.is_multiple_of(2) {
            return Err(RunError::setup(
                self.model(),
                format!("load address ${base:08X} is odd"),
            ));
        }
        if base < lo || base.checked_add(len).is_none_or(|end| end > hi) {
            return Err(RunError::setup(
                self.model(),
                format!("${base:08X}..+{len} is outside the free load area ${lo:08X}..${hi:08X}"),
            ));
        }
        if let Some(other) = self
            .images
            .iter()
            .find(|i| base < i.end() && i.base < base + len)
        {
            return Err(RunError::setup(
                self.model(),
                format!(
                    "${base:08X}..+{len} overlaps the image loaded at ${:08X}",
                    other.base
                ),
            ));
        }
        self.place(image, base, None)
    }

    /// Place `image` in a nonrelocatable block of the system heap (as the ROM loads a driver
    /// with `_NewPtrSys`), zero its bss, relocate, flush.
    pub fn load(&mut self, image: &FlatImage) -> Result<LoadedImage, RunError> {
        self.load_in_heap(image, ZoneId::System)
    }

    /// Like [`Machine::load`], in the given heap zone.
    pub fn load_in_heap(
        &mut self,
        image: &FlatImage,
        zone: ZoneId,
    ) -> Result<LoadedImage, RunError> {
        self.check_image_cpu(image)?;
        let len = image.image.len() as u32 + image.bss_len;
        let block = self.new_ptr(zone, len, true).map_err(|e| {
            RunError::setup(
                self.model(),
                format!("no room for a {len}-byte image in the {zone:?} heap ({e})"),
            )
        })?;
        self.place(image, block, Some(block))
    }

    /// Absolute address of export `name` in any loaded image (fails if missing or ambiguous).
    pub fn export_address(&self, name: &str) -> Result<u32, RunError> {
        let found: Vec<u32> = self.images.iter().filter_map(|i| i.symbol(name)).collect();
        match found.as_slice() {
            [a] => Ok(*a),
            [] => Err(RunError::setup(
                self.model(),
                format!("no loaded image exports `{name}`"),
            )),
            _ => Err(RunError::setup(
                self.model(),
                format!(
                    "`{name}` is exported by {} loaded images; use call_address",
                    found.len()
                ),
            )),
        }
    }

    /// Call export `name` with the C ABI (see the module docs).
    pub fn call(&mut self, name: &str, args: &[u32]) -> Result<CallResult, RunError> {
        let addr = self.export_address(name)?;
        self.call_address(addr, args)
    }

    /// Call the code at `addr` with the C ABI.
    pub fn call_address(&mut self, addr: u32, args: &[u32]) -> Result<CallResult, RunError> {
        self.call_guest(addr, args, &[], Preserved::C_ABI, None)
            .map(|(r, _)| r)
    }

    /// Call a register-based Mac OS routine at `addr` (a completion routine, a VBL task, a
    /// driver entry point): `regs` are set before the call (`(index, value)`, 0–7 = D0–D7,
    /// 8–14 = A0–A6), `preserved` says which registers the routine must give back unchanged.
    /// Returns the result and every register (D0–D7, A0–A7) after the return.
    pub fn call_with_registers(
        &mut self,
        addr: u32,
        regs: &[(usize, u32)],
        preserved: Preserved,
    ) -> Result<(CallResult, [u32; 16]), RunError> {
        self.call_guest(addr, &[], regs, preserved, None)
    }

    /// A top-level call as ROM code makes it: `stack` (longs, lowest address first) is pushed
    /// as the caller's frame, then `return_address` (an address in the ROM region,
    /// [`Machine::set_rom_region`]) as the return address; the run ends when the PC reaches
    /// it. Otherwise like [`Machine::call_with_registers`]; the caller's frame starts at
    /// `stack_top() - 4 * stack.len()`.
    pub fn call_from_rom(
        &mut self,
        addr: u32,
        stack: &[u32],
        regs: &[(usize, u32)],
        preserved: Preserved,
        return_address: u32,
    ) -> Result<(CallResult, [u32; 16]), RunError> {
        assert_eq!(self.depth, 0, "the ROM calls drivers only at top level");
        self.call_guest(addr, stack, regs, preserved, Some(return_address))
    }

    /// Where SP starts for a top-level call.
    pub fn stack_top(&self) -> u32 {
        self.layout().stack.1
    }

    fn call_guest(
        &mut self,
        addr: u32,
        args: &[u32],
        regs: &[(usize, u32)],
        preserved: Preserved,
        return_to: Option<u32>,
    ) -> Result<(CallResult, [u32; 16]), RunError> {
        let nested = self.depth > 0;
        let sentinel = return_to.unwrap_or_else(|| self.sentinel(self.depth));
        let saved_dar = self.cpu().dar;
        let saved_pc = self.cpu().pc;
        let saved_sr = self.sr();
        let start_sp = if nested {
            (self.sp().wrapping_sub(64)) & !3
        } else {
            self.prepare_cpu();
            self.run_instructions = 0;
            for n in 0..8 {
                self.set_d(n, 0xD0D0_D0D0u32.wrapping_add(0x0101_0101 * n as u32));
            }
            for n in 0..5 {
                self.set_a(n, 0xA0A0_A0A0u32.wrapping_add(0x0101_0101 * n as u32));
            }
            let a5 = self.read_u32(lowmem::CURRENT_A5);
            self.set_a(5, a5);
            self.set_a(6, 0);
            self.layout().stack.1
        };
        self.set_sp(start_sp);
        for &arg in args.iter().rev() {
            self.push_u32(arg);
        }
        let expected_sp = self.sp();
        self.push_u32(sentinel);
        for &(i, v) in regs {
            assert!(i < 15, "register index {i} (A7 is the stack pointer)");
            self.cpu_mut().dar[i] = v;
        }
        let before: [u32; 16] = self.cpu().dar;
        self.set_pc(addr);

        let t0 = Instant::now();
        let (i0, c0) = (self.run_instructions, self.stats().cycles);
        self.depth += 1;
        let r = self.run_until(sentinel);
        self.depth -= 1;
        let host_time = if nested { Duration::ZERO } else { t0.elapsed() };
        if !nested {
            self.stats_mut().host_time += host_time;
            self.stats_mut().calls += 1;
        }
        r?;

        let result = CallResult {
            d0: self.d(0),
            d1: self.d(1),
            a0: self.a(0),
            instructions: self.run_instructions - i0,
            cycles: self.stats().cycles - c0,
            host_time,
        };
        if self.config().check_callee_saved {
            if self.sp() != expected_sp {
                let f = Fault::AbiViolation {
                    message: format!(
                        "SP after return is ${:08X}, expected ${expected_sp:08X} (callee popped {} bytes)",
                        self.sp(),
                        self.sp() as i64 - expected_sp as i64
                    ),
                };
                return Err(self.fail(f, addr));
            }
            const NAMES: [&str; 15] = [
                "D0", "D1", "D2", "D3", "D4", "D5", "D6", "D7", "A0", "A1", "A2", "A3", "A4", "A5",
                "A6",
            ];
            let now = self.cpu().dar;
            for (i, n) in NAMES.iter().enumerate() {
                if preserved.0 & (1 << i) != 0 && before[i] != now[i] {
                    let f = Fault::AbiViolation {
                        message: format!(
                            "{} {n} changed from ${:08X} to ${:08X}",
                            preserved.describe(),
                            before[i],
                            now[i]
                        ),
                    };
                    return Err(self.fail(f, addr));
                }
            }
        }
        if !nested && self.config().check_heaps_after_call {
            self.check_heaps().map_err(|f| self.fail(f, addr))?;
        }
        let after = self.cpu().dar;
        if nested {
            self.cpu_mut().dar = saved_dar;
            self.cpu_mut().set_sr(saved_sr);
            self.set_pc(saved_pc);
        }
        Ok((result, after))
    }
}

/// Which of D0–D7 (bits 0–7) and A0–A6 (bits 8–14) a called routine must preserve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preserved(pub u16);

impl Preserved {
    /// The C ABI: D2–D7 and A2–A6.
    pub const C_ABI: Preserved = Preserved(0b111_1100_1111_1100);
    /// Mac OS register-based routines (completion routines, VBL tasks, Time Manager tasks):
    /// D0–D2 and A0–A1 are scratch; D3–D7 and A2–A6 must be preserved (IM Devices /
    /// IM Processes).
    pub const MAC_OS: Preserved = Preserved(0b111_1100_1111_1000);
    /// Nothing checked.
    pub const NONE: Preserved = Preserved(0);

    fn describe(self) -> &'static str {
        match self {
            Preserved::C_ABI => "callee-saved (C ABI)",
            Preserved::MAC_OS => "preserved (Mac OS register convention)",
            _ => "preserved",
        }
    }
}
