//! The ROM the Start Manager model stands for: where it lies in the address space (the
//! driver's install routine returns there) and how large the system heap is while it loads
//! drivers.
//!
//! Two classes, chosen by the machine's addressing mode:
//! * **Plus class** (68000, 24-bit): the 128 KB ROM of the Macintosh Plus at `$400000`
//!   (the Plus memory map: RAM from 0 to at most 4 MB, ROM at `$400000–$41FFFF`, I/O above).
//!   The system heap while drivers load: **48 KB** — Apple's TIL article "Macintosh:
//!   Definition of System Heap" gives the classic system heap as `$B00–$CAFF`, i.e. `$C000`
//!   bytes. The boot blocks resize the heap only later (Technote DV 03 "Boot Blocks": the
//!   size at boot-block offset `$86` applies after the boot blocks are read), so at
//!   driver-load time the ROM's own figure is what a driver gets. How much of it is already
//!   used by the ROM at that moment is not documented: the model charges what the emulated
//!   OS itself has allocated there (unit table etc.).
//! * **Quadra class** (68020+, 32-bit): a 1 MB ROM at `$40800000` (the Mac II-family and
//!   Quadra ROM base). The system heap while drivers load: no public source gives it; the
//!   model assumes **128 KB** — deliberately small (System 7 grows the system heap only once
//!   the System file runs, IM Memory ch. 2 and Q&A OPS 02 "Expanding the System Heap"), so a
//!   driver that allocates generously at install fails here first.
//!
//! Either class can be overridden through [`super::BootConfig::rom_model`].

use crate::machine::Machine;

/// A ROM's place in the address space and the heap it leaves a boot driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RomModel {
    /// Name used in reports.
    pub name: &'static str,
    /// First byte of the ROM.
    pub rom_base: u32,
    /// Bytes of ROM (the region the model treats as ROM).
    pub rom_len: u32,
    /// Offset in the ROM of the instruction after the loader's `JSR` to the driver.
    pub install_return_offset: u32,
    /// Bytes of system heap zone (header included) while drivers load.
    pub boot_system_heap: u32,
}

impl RomModel {
    /// A Macintosh Plus-class ROM (68000, 24-bit addressing).
    pub const PLUS_CLASS: RomModel = RomModel {
        name: "Plus-class ROM at $400000",
        rom_base: 0x0040_0000,
        rom_len: 0x0002_0000,
        install_return_offset: 0x0000_1C3A,
        boot_system_heap: 0xC000,
    };

    /// A Quadra-class ROM (68020+ Mac II family and Quadras, 32-bit addressing).
    pub const QUADRA_CLASS: RomModel = RomModel {
        name: "Quadra-class ROM at $40800000",
        rom_base: 0x4080_0000,
        rom_len: 0x0010_0000,
        install_return_offset: 0x0000_8D4E,
        boot_system_heap: 0x2_0000,
    };

    /// The class of `m`: Plus class on a 24-bit machine, else Quadra class.
    pub fn for_machine(m: &Machine) -> RomModel {
        if m.config().addressing_24bit {
            RomModel::PLUS_CLASS
        } else {
            RomModel::QUADRA_CLASS
        }
    }

    /// Where the driver's install routine returns to.
    pub fn install_return_address(&self) -> u32 {
        self.rom_base + self.install_return_offset
    }

    /// The ROM's range `[start, end)`.
    pub fn region(&self) -> (u32, u32) {
        (self.rom_base, self.rom_base + self.rom_len)
    }

    /// Whether `addr` lies in the ROM.
    pub fn contains(&self, addr: u32) -> bool {
        let (lo, hi) = self.region();
        (lo..hi).contains(&addr)
    }
}
