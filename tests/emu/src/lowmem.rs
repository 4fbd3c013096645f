//! Low-memory globals: the fixed addresses below $1000-ish that the Mac OS keeps its state in.
//!
//! Addresses are from Universal Interfaces `LowMemEqu.a` as summarised in
//! `docs/mac-facts.md` §9.1 (Inside Macintosh numbers). Each constant's doc says
//! what the emulated Mac stores there; [`LOW_MEM_GLOBALS`] lists them by name for diagnostics.
//! Values whose meaning public sources leave open (marked UNCONFIRMED in docs/mac-facts.md) are
//! set in [`init`] only where noted, so they are easy to change in one place.

/// `MemTop` (long): address just past the end of RAM. Set to the RAM size.
pub const MEM_TOP: u32 = 0x108;
/// `BufPtr` (long): top of the memory applications may use. Set to `MemTop` (nothing is
/// reserved above the stack in the emulated Mac).
pub const BUF_PTR: u32 = 0x10C;
/// `HeapEnd` (long): end of the application heap zone.
pub const HEAP_END: u32 = 0x114;
/// `TheZone` (long): the current heap zone; `_NewPtr`/`_NewHandle` without the SYS bit allocate
/// here. Initialised to `ApplZone`.
pub const THE_ZONE: u32 = 0x118;
/// `UTableBase` (long): pointer to the unit table (array of DCE handles indexed by unit number).
/// Initialised to a zeroed table of [`UNIT_TABLE_ENTRIES`] entries in the system heap.
pub const UTABLE_BASE: u32 = 0x11C;
/// `CPUFlag` (byte): 0 = 68000, 1 = 68010, 2 = 68020, 3 = 68030, 4 = 68040.
pub const CPU_FLAG: u32 = 0x12F;
/// `ApplLimit` (long): application heap limit. Set to the end of the application zone.
/// (Address from `LowMemEqu.a`; not in the table of docs/mac-facts.md §9.1.)
pub const APPL_LIMIT: u32 = 0x130;
/// `SysEvtMask` (word): system event mask. Left 0 here (whether it is 0 during ROM boot is
/// UNCONFIRMED); [`crate::events::install`] sets it to the post-`InitEvents` value and
/// [`crate::Machine::events_off_until`] holds it at 0 for a while.
pub const SYS_EVT_MASK: u32 = 0x144;
/// `Ticks` (long): 60.15 Hz tick count since startup; advanced from emulated CPU cycles (see
/// [`crate::Machine::clock_hz`]) and by `_Delay`.
pub const TICKS: u32 = 0x16A;
/// `UnitNtryCnt` (word): number of entries in the unit table at `UTableBase`.
pub const UNIT_NTRY_CNT: u32 = 0x1D2;
/// `BootDrive` (word): drive number of the startup drive. Initialised to 0 (none yet).
pub const BOOT_DRIVE: u32 = 0x210;
/// `MemErr` (word): result of the last Memory Manager call; every modelled Memory Manager trap
/// sets it.
pub const MEM_ERR: u32 = 0x220;
/// `ROM85` (word): high bit clear on the Mac Plus ROM and later. Set to $7FFF.
pub const ROM85: u32 = 0x28E;
/// `SysZone` (long): the system heap zone header.
pub const SYS_ZONE: u32 = 0x2A6;
/// `ApplZone` (long): the application heap zone header.
pub const APPL_ZONE: u32 = 0x2AA;
/// `ROMBase` (long): base of ROM. The emulated Mac has no ROM; left 0.
pub const ROM_BASE: u32 = 0x2AE;
/// `RAMBase` (long): base of RAM, 0.
pub const RAM_BASE: u32 = 0x2B2;
/// `DrvQHdr` (10 bytes): drive queue header `{qFlags.w, qHead.l, qTail.l}`; empty.
pub const DRV_Q_HDR: u32 = 0x308;
/// `VCBQHdr` (10 bytes): the volume-control-block queue header `{qFlags.w, qHead.l,
/// qTail.l}`; empty until the File Manager model mounts a volume.
pub const VCB_Q_HDR: u32 = 0x356;
/// `Lo3Bytes` (long): the constant $00FFFFFF.
pub const LO3_BYTES: u32 = 0x31A;
/// `JIODone` (long): the IODone vector drivers jump through (`MOVE.L JIODone,-(SP); RTS`).
/// Points at a host routine that fails the run until the Device Manager model
/// ([`crate::device_manager::install`]) gives it the real IODone behaviour.
pub const JIO_DONE: u32 = 0x8FC;
/// `CurrentA5` (long): the application's A5 world; A5 is set to the same value at each call.
pub const CURRENT_A5: u32 = 0x904;
/// `MinusOne` (long): the constant $FFFFFFFF.
pub const MINUS_ONE: u32 = 0xA06;

/// Unit table size the emulated Mac starts with (System 7 uses 64 or more; modelling choice).
pub const UNIT_TABLE_ENTRIES: u16 = 64;

/// `(name, address, size in bytes)` of every global above.
pub const LOW_MEM_GLOBALS: &[(&str, u32, u32)] = &[
    ("MemTop", MEM_TOP, 4),
    ("BufPtr", BUF_PTR, 4),
    ("HeapEnd", HEAP_END, 4),
    ("TheZone", THE_ZONE, 4),
    ("UTableBase", UTABLE_BASE, 4),
    ("CPUFlag", CPU_FLAG, 1),
    ("ApplLimit", APPL_LIMIT, 4),
    ("SysEvtMask", SYS_EVT_MASK, 2),
    ("Ticks", TICKS, 4),
    ("UnitNtryCnt", UNIT_NTRY_CNT, 2),
    ("BootDrive", BOOT_DRIVE, 2),
    ("MemErr", MEM_ERR, 2),
    ("ROM85", ROM85, 2),
    ("SysZone", SYS_ZONE, 4),
    ("ApplZone", APPL_ZONE, 4),
    ("ROMBase", ROM_BASE, 4),
    ("RAMBase", RAM_BASE, 4),
    ("DrvQHdr", DRV_Q_HDR, 10),
    ("VCBQHdr", VCB_Q_HDR, 10),
    ("Lo3Bytes", LO3_BYTES, 4),
    ("JIODone", JIO_DONE, 4),
    ("CurrentA5", CURRENT_A5, 4),
    ("MinusOne", MINUS_ONE, 4),
];

/// The low-memory global containing `addr`, if any (for error messages).
pub fn global_at(addr: u32) -> Option<&'static str> {
    LOW_MEM_GLOBALS
        .iter()
        .find(|(_, a, n)| (*a..*a + *n).contains(&addr))
        .map(|(name, _, _)| *name)
}

/// Values the machine fills in at start-up (the zone and table addresses come from the
/// machine's memory layout).
#[derive(Debug, Clone, Copy)]
pub struct LowMemInit {
    pub ram_size: u32,
    pub cpu_flag: u8,
    pub sys_zone: u32,
    pub appl_zone: u32,
    pub appl_zone_end: u32,
    pub unit_table: u32,
    pub current_a5: u32,
    pub jiodone: u32,
}

/// Write the start-up values of every modelled global.
pub fn init(bus: &mut crate::bus::MacBus, v: &LowMemInit) {
    bus.poke_u32(MEM_TOP, v.ram_size);
    bus.poke_u32(BUF_PTR, v.ram_size);
    bus.poke_u32(HEAP_END, v.appl_zone_end);
    bus.poke_u32(APPL_LIMIT, v.appl_zone_end);
    bus.poke_u32(SYS_ZONE, v.sys_zone);
    bus.poke_u32(APPL_ZONE, v.appl_zone);
    bus.poke_u32(THE_ZONE, v.appl_zone);
    bus.poke_u32(UTABLE_BASE, v.unit_table);
    bus.poke_u16(UNIT_NTRY_CNT, UNIT_TABLE_ENTRIES);
    bus.write_bytes_host(CPU_FLAG, &[v.cpu_flag]);
    bus.poke_u32(TICKS, 0);
    bus.poke_u16(BOOT_DRIVE, 0);
    bus.poke_u16(MEM_ERR, 0);
    bus.poke_u16(ROM85, 0x7FFF);
    bus.poke_u32(ROM_BASE, 0);
    bus.poke_u32(RAM_BASE, 0);
    bus.write_bytes_host(DRV_Q_HDR, &[0; 10]);
    bus.write_bytes_host(VCB_Q_HDR, &[0; 10]);
    bus.poke_u32(LO3_BYTES, 0x00FF_FFFF);
    bus.poke_u32(JIO_DONE, v.jiodone);
    bus.poke_u32(CURRENT_A5, v.current_a5);
    bus.poke_u32(MINUS_ONE, 0xFFFF_FFFF);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globals_do_not_overlap() {
        for (i, (n1, a1, s1)) in LOW_MEM_GLOBALS.iter().enumerate() {
            for (n2, a2, s2) in &LOW_MEM_GLOBALS[i + 1..] {
                assert!(a1 + s1 <= *a2 || a2 + s2 <= *a1, "{n1} overlaps {n2}");
            }
        }
        assert_eq!(global_at(0x16B), Some("Ticks"));
        assert_eq!(global_at(0x2A6), Some("SysZone"));
    }
}
