//! CPU model selection.

use m68k::CpuType;

/// The 68k models a Ferrite machine can run as.
///
/// Each maps onto one `m68k::CpuType`; cycle counts come from that type's timing model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CpuModel {
    /// MC68000 (Mac Plus/SE/Classic): 24-bit addresses, no caches, word/long accesses must be
    /// even (address error otherwise).
    M68000,
    /// MC68020 (Mac II, LC): 256-byte instruction cache, 32-bit addresses. No FPU is modelled
    /// unless the m68k crate provides one for this type (it does not by default).
    M68020,
    /// MC68030 (IIx/IIci/SE/30): full `CpuType::M68030`, PMMU present but disabled.
    M68030,
    /// MC68040 (Quadra): full `CpuType::M68040` with FPU; PMMU present but disabled.
    M68040,
}

impl CpuModel {
    /// Every model, oldest first (handy for "run on all CPUs" tests).
    pub const ALL: [CpuModel; 4] = [
        CpuModel::M68000,
        CpuModel::M68020,
        CpuModel::M68030,
        CpuModel::M68040,
    ];

    /// The m68k crate's CPU type.
    pub fn cpu_type(self) -> CpuType {
        match self {
            CpuModel::M68000 => CpuType::M68000,
            CpuModel::M68020 => CpuType::M68020,
            CpuModel::M68030 => CpuType::M68030,
            CpuModel::M68040 => CpuType::M68040,
        }
    }

    /// The low-memory `CPUFlag` byte value (0 = 68000 … 4 = 68040).
    pub fn cpu_flag(self) -> u8 {
        match self {
            CpuModel::M68000 => 0,
            CpuModel::M68020 => 2,
            CpuModel::M68030 => 3,
            CpuModel::M68040 => 4,
        }
    }

    /// The number used in a flat image's `cpu` field (68000, 68020, 68030, 68040).
    pub fn number(self) -> u32 {
        match self {
            CpuModel::M68000 => 68000,
            CpuModel::M68020 => 68020,
            CpuModel::M68030 => 68030,
            CpuModel::M68040 => 68040,
        }
    }

    /// Whether the model has an instruction cache (the 68000 has none; the cache-flush rule is
    /// still enforced on it by default because the same binary runs on every model).
    pub fn has_icache(self) -> bool {
        self != CpuModel::M68000
    }

    /// A representative clock for the emulated `Ticks` counter: Mac Plus 7.8336 MHz, Mac II
    /// 15.6672 MHz, IIci 25 MHz, Quadra 700 25 MHz. Modelling choice; change with
    /// [`crate::MachineConfig::clock_hz`].
    pub fn default_clock_hz(self) -> u32 {
        match self {
            CpuModel::M68000 => 7_833_600,
            CpuModel::M68020 => 15_667_200,
            CpuModel::M68030 => 25_000_000,
            CpuModel::M68040 => 25_000_000,
        }
    }
}

impl core::fmt::Display for CpuModel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.number())
    }
}
