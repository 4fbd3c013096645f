//! Memory Manager traps: register-based OS traps served by [`crate::memory_manager`].
//!
//! Every handler first verifies all heap guards (so corruption by guest code is reported at
//! the next Memory Manager call at the latest) and sets `MemErr` from its result.

use crate::error::Fault;
use crate::lowmem;
use crate::machine::Machine;
use crate::memory_manager::{STATE_LOCKED, STATE_PURGEABLE, STATE_RESOURCE, ZoneId};
use crate::traps::{SavedReg, TrapCall, TrapTable};

/// The zone an allocation goes to: `SysZone` with the SYS bit, else `TheZone`.
fn target_zone(m: &Machine, call: &TrapCall) -> Result<ZoneId, Fault> {
    if call.sys_or_async() {
        return Ok(ZoneId::System);
    }
    let z = m.read_u32(lowmem::THE_ZONE);
    m.memory_manager().zone_by_header(z).ok_or_else(|| {
        Fault::misuse(
            call.word,
            format!("TheZone holds ${z:08X}, which is not a heap zone"),
        )
    })
}

fn set_result(m: &mut Machine, err: i16) {
    m.set_d(0, err as i32 as u32);
    m.write_u16(lowmem::MEM_ERR, err as u16);
}

fn misuse(call: &TrapCall) -> impl Fn(String) -> Fault + '_ {
    move |s| Fault::misuse(call.word, s)
}

type Handler = fn(&mut Machine, &mut TrapCall) -> Result<(), Fault>;

/// Wrap a handler with the heap check that precedes every Memory Manager call.
fn checked(h: Handler) -> impl Fn(&mut Machine, &mut TrapCall) -> Result<(), Fault> + Send + Sync {
    move |m, call| {
        m.check_heaps()?;
        h(m, call)
    }
}

fn new_ptr(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let zone = target_zone(m, call)?;
    let size = m.d(0);
    let (mm, bus) = m.memory_manager_and_bus();
    match mm.new_ptr(bus, zone, size, call.clear_or_immed()) {
        Ok(p) => {
            m.set_a(0, p);
            set_result(m, 0);
        }
        Err(e) => {
            m.set_a(0, 0);
            set_result(m, e);
        }
    }
    call.keep(SavedReg::A0);
    Ok(())
}

fn dispose_ptr(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let p = m.a(0);
    let (mm, bus) = m.memory_manager_and_bus();
    mm.dispose_ptr(bus, p).map_err(misuse(call))?;
    set_result(m, 0);
    Ok(())
}

fn get_ptr_size(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let size = m.memory_manager().ptr_size(m.a(0)).map_err(misuse(call))?;
    m.write_u16(lowmem::MEM_ERR, 0);
    m.set_d(0, size);
    Ok(())
}

fn set_ptr_size(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let (p, size) = (m.a(0), m.d(0));
    let (mm, bus) = m.memory_manager_and_bus();
    let r = mm.set_ptr_size(bus, p, size).map_err(misuse(call))?;
    set_result(m, r.err().unwrap_or(0));
    Ok(())
}

fn new_handle(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let zone = target_zone(m, call)?;
    let size = m.d(0);
    let (mm, bus) = m.memory_manager_and_bus();
    match mm.new_handle(bus, zone, size, call.clear_or_immed()) {
        Ok(h) => {
            m.set_a(0, h);
            set_result(m, 0);
        }
        Err(e) => {
            m.set_a(0, 0);
            set_result(m, e);
        }
    }
    call.keep(SavedReg::A0);
    Ok(())
}

fn dispose_handle(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let h = m.a(0);
    let (mm, bus) = m.memory_manager_and_bus();
    mm.dispose_handle(bus, h).map_err(misuse(call))?;
    set_result(m, 0);
    Ok(())
}

fn get_handle_size(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let size = m
        .memory_manager()
        .handle_size(m.bus(), m.a(0))
        .map_err(misuse(call))?;
    m.write_u16(lowmem::MEM_ERR, 0);
    m.set_d(0, size);
    Ok(())
}

fn set_handle_size(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let (h, size) = (m.a(0), m.d(0));
    let (mm, bus) = m.memory_manager_and_bus();
    let r = mm.set_handle_size(bus, h, size).map_err(misuse(call))?;
    set_result(m, r.err().unwrap_or(0));
    Ok(())
}

fn recover_handle(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    // IM: D0 is not changed by RecoverHandle; only A0 and MemErr.
    let h = m
        .memory_manager()
        .recover_handle(m.a(0))
        .map_err(misuse(call))?;
    m.set_a(0, h);
    m.write_u16(lowmem::MEM_ERR, 0);
    call.keep(SavedReg::A0);
    Ok(())
}

/// Shared body of `_HLock`, `_HUnlock`, `_HPurge`, `_HNoPurge`, `_HSetRBit`, `_HClrRBit`.
fn change_state(m: &mut Machine, call: &TrapCall, set: u8, clear: u8) -> Result<(), Fault> {
    let h = m.a(0);
    let s = m
        .memory_manager()
        .handle_state(m.bus(), h)
        .map_err(misuse(call))?;
    let (mm, bus) = m.memory_manager_and_bus();
    mm.set_handle_state(bus, h, (s | set) & !clear)
        .map_err(misuse(call))?;
    set_result(m, 0);
    Ok(())
}

fn h_lock(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    change_state(m, call, STATE_LOCKED, 0)
}
fn h_unlock(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    change_state(m, call, 0, STATE_LOCKED)
}
fn h_purge(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    change_state(m, call, STATE_PURGEABLE, 0)
}
fn h_no_purge(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    change_state(m, call, 0, STATE_PURGEABLE)
}
fn h_set_r_bit(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    change_state(m, call, STATE_RESOURCE, 0)
}
fn h_clr_r_bit(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    change_state(m, call, 0, STATE_RESOURCE)
}

fn h_get_state(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let s = m
        .memory_manager()
        .handle_state(m.bus(), m.a(0))
        .map_err(misuse(call))?;
    m.write_u16(lowmem::MEM_ERR, 0);
    m.set_d(0, s as u32);
    Ok(())
}

fn h_set_state(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let (h, s) = (m.a(0), m.d(0) as u8);
    let (mm, bus) = m.memory_manager_and_bus();
    mm.set_handle_state(bus, h, s).map_err(misuse(call))?;
    set_result(m, 0);
    Ok(())
}

/// A call that may move memory in `zone`: the heap scramble, when on, moves blocks now.
fn may_move(m: &mut Machine, zone: ZoneId, name: &'static str) {
    let (mm, bus) = m.memory_manager_and_bus();
    mm.may_move_memory(bus, zone, name);
}

fn move_hhi(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    // Without the heap scramble the block stays put (moving it high is an optimisation the
    // caller cannot rely on); with it, every unlocked block of the zone moves.
    let h = m.a(0);
    m.memory_manager()
        .handle_state(m.bus(), h)
        .map_err(misuse(call))?;
    let zone = m.memory_manager().zone_of(h).unwrap_or(ZoneId::Application);
    may_move(m, zone, "MoveHHi");
    set_result(m, 0);
    Ok(())
}

/// `_BlockMove` $A02E / `_BlockMoveData` $A22E: A0 = source, A1 = destination, D0 = count.
/// Overlapping moves are handled (memmove). `_BlockMove` also flushes the instruction cache
/// for the destination range; `_BlockMoveData` does not. Modelling choice: only the
/// destination is flushed (the real routine may flush more), which is the guarantee code may
/// rely on.
fn block_move(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let (src, dst, count) = (m.a(0), m.a(1), m.d(0) as i32);
    if count > 0 {
        let n = count as u32;
        for (what, a) in [("source", src), ("destination", dst)] {
            if !m.bus().in_ram(a, n) {
                return Err(Fault::misuse(
                    call.word,
                    format!("{what} ${a:08X}..+{n} lies beyond the end of RAM"),
                ));
            }
        }
        if dst < crate::bus::NULL_PAGE_LEN && m.bus().protect_low_vectors {
            return Err(Fault::misuse(
                call.word,
                format!("destination ${dst:08X} is in the NIL page"),
            ));
        }
        m.bus_mut().copy_within_host(src, dst, n);
        if call.word & 0x0200 == 0 {
            m.flush_icache_range(dst, n);
        }
        // Catch an overrun by this very move with exact attribution.
        m.check_heaps()?;
    }
    m.set_d(0, 0);
    Ok(())
}

fn free_mem(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let zone = target_zone(m, call)?;
    let n = m.memory_manager().free_mem(zone);
    m.set_d(0, n);
    m.write_u16(lowmem::MEM_ERR, 0);
    Ok(())
}

fn max_block(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let zone = target_zone(m, call)?;
    let n = m.memory_manager().max_block(zone);
    m.set_d(0, n);
    m.write_u16(lowmem::MEM_ERR, 0);
    Ok(())
}

/// `_MaxMem` $A11D: D0 = largest block, A0 = how much the zone could grow (0: zones are fixed).
fn max_mem(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let zone = target_zone(m, call)?;
    may_move(m, zone, "MaxMem");
    max_block(m, call)?;
    m.set_a(0, 0);
    call.keep(SavedReg::A0);
    Ok(())
}

/// `_CompactMem` $A04C: D0 = size wanted in, largest free block out (blocks move only under
/// the heap scramble).
fn compact_mem(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let zone = target_zone(m, call)?;
    may_move(m, zone, "CompactMem");
    max_block(m, call)
}

/// `_PurgeMem` $A04D: nothing is purgeable in this model; D0 = 0 if a block of D0 bytes fits,
/// else memFullErr.
fn purge_mem(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let zone = target_zone(m, call)?;
    may_move(m, zone, "PurgeMem");
    let want = m.d(0);
    let r = if m.memory_manager().max_block(zone) >= want {
        0
    } else {
        -108
    };
    set_result(m, r);
    Ok(())
}

fn get_zone(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let z = m.read_u32(lowmem::THE_ZONE);
    m.set_a(0, z);
    set_result(m, 0);
    call.keep(SavedReg::A0);
    Ok(())
}

fn set_zone(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let z = m.a(0);
    if m.memory_manager().zone_by_header(z).is_none() {
        return Err(Fault::misuse(
            call.word,
            format!("${z:08X} is not a heap zone"),
        ));
    }
    m.write_u32(lowmem::THE_ZONE, z);
    set_result(m, 0);
    Ok(())
}

/// `_HandleZone` $A126 / `_PtrZone` $A148: A0 = block → A0 = its zone header.
fn block_zone(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let a = m.a(0);
    let Some(z) = m.memory_manager().zone_of(a) else {
        return Err(Fault::misuse(
            call.word,
            format!("${a:08X} is not a live block or handle"),
        ));
    };
    let header = m.memory_manager().zone(z).header;
    m.set_a(0, header);
    set_result(m, 0);
    call.keep(SavedReg::A0);
    Ok(())
}

/// Register every Memory Manager handler.
pub(crate) fn install(t: &mut TrapTable) {
    let list: &[(u16, &'static str, Handler)] = &[
        (0xA11E, "NewPtr", new_ptr),
        (0xA01F, "DisposePtr", dispose_ptr),
        (0xA020, "SetPtrSize", set_ptr_size),
        (0xA021, "GetPtrSize", get_ptr_size),
        (0xA122, "NewHandle", new_handle),
        (0xA023, "DisposeHandle", dispose_handle),
        (0xA024, "SetHandleSize", set_handle_size),
        (0xA025, "GetHandleSize", get_handle_size),
        (0xA128, "RecoverHandle", recover_handle),
        (0xA029, "HLock", h_lock),
        (0xA02A, "HUnlock", h_unlock),
        (0xA049, "HPurge", h_purge),
        (0xA04A, "HNoPurge", h_no_purge),
        (0xA067, "HSetRBit", h_set_r_bit),
        (0xA068, "HClrRBit", h_clr_r_bit),
        (0xA069, "HGetState", h_get_state),
        (0xA06A, "HSetState", h_set_state),
        (0xA064, "MoveHHi", move_hhi),
        (0xA02E, "BlockMove", block_move),
        (0xA01C, "FreeMem", free_mem),
        (0xA061, "MaxBlock", max_block),
        (0xA11D, "MaxMem", max_mem),
        (0xA04C, "CompactMem", compact_mem),
        (0xA04D, "PurgeMem", purge_mem),
        (0xA11A, "GetZone", get_zone),
        (0xA01B, "SetZone", set_zone),
        (0xA126, "HandleZone", block_zone),
        (0xA148, "PtrZone", block_zone),
    ];
    for &(word, name, h) in list {
        t.register(word, name, checked(h));
    }
}
