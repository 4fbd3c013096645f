//! Operating System Utilities a disk driver uses: OS queues (`_Enqueue`/`_Dequeue` and the
//! host-side queue helpers the other managers share), `_Gestalt`, and the `_HWPriv` selectors
//! beyond the built-in ones.
//!
//! `_Delay`, `_SysBeep`, `_Debugger`, `_DebugStr`, `_SysError`, `_GetTrapAddress` and the
//! cache-flushing `_HWPriv` selectors 1/3/9 are built into the dispatcher ([`crate::traps`]);
//! [`install`] replaces `_HWPriv` with a version that also knows selectors 0 and 2.
//!
//! # OS queues (IM Operating System Utilities ch. 6)
//! A queue header `QHdr` is `{qFlags.w @0, qHead.l @2, qTail.l @6}`; every element starts with
//! `qLink.l @0, qType.w @4`. [`queue_append`] and [`queue_remove`] edit such a queue in guest
//! memory; the Device Manager (`dCtlQHdr`) and the drive queue (`DrvQHdr`) use them.
//!
//! # Where a queue element may live
//! [`check_static_element`]: an element the OS keeps a pointer to (a drive-queue element, a
//! VBL task) must not move, so it has to lie inside a nonrelocatable heap block or inside an
//! image the host loaded at a fixed address. A relocatable block, the stack or the A5 world
//! is guest misuse (modelling rule: the real OS would not notice until the block moves).
//!
//! # Gestalt
//! [`GestaltTable`] holds the selectors the emulated Mac answers (defaults in
//! [`GestaltTable::defaults`]); tests and other models change it with
//! [`Machine::set_gestalt`]. Unknown selectors return `gestaltUndefSelectorErr` (−5551).
//! `_NewGestalt`/`_ReplaceGestalt` (same trap number) are not modelled and fail the run.

use std::collections::BTreeMap;

use crate::error::Fault;
use crate::machine::Machine;
use crate::memory_manager::BlockKind;
use crate::traps::{SavedReg, TrapCall};

/// `QHdr.qFlags` offset.
pub const QHDR_FLAGS: u32 = 0;
/// `QHdr.qHead` offset.
pub const QHDR_HEAD: u32 = 2;
/// `QHdr.qTail` offset.
pub const QHDR_TAIL: u32 = 6;
/// Element `qLink` offset.
pub const Q_LINK: u32 = 0;
/// Element `qType` offset.
pub const Q_TYPE: u32 = 4;
/// `qErr`: element not found in the queue.
pub const Q_ERR: i16 = -1;
/// Longest queue the helpers walk before calling it corrupt (a cycle).
pub const MAX_QUEUE_LEN: usize = 10_000;

/// `gestaltUndefSelectorErr`.
pub const GESTALT_UNDEF_SELECTOR_ERR: i16 = -5551;

/// Four-character code as a big-endian long.
pub const fn ostype(s: &[u8; 4]) -> u32 {
    u32::from_be_bytes(*s)
}

/// The elements of the queue whose header is at `hdr`, head first. Fails on a cycle, an odd
/// link or a link outside RAM.
pub fn queue_elements(m: &Machine, hdr: u32) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    let mut e = m.read_u32(hdr + QHDR_HEAD);
    while e != 0 {
        if e & 1 != 0 || !m.bus().in_ram(e, 6) {
            return Err(format!(
                "queue at ${hdr:08X} links to ${e:08X}, which is odd or outside RAM"
            ));
        }
        if out.len() >= MAX_QUEUE_LEN || out.contains(&e) {
            return Err(format!("queue at ${hdr:08X} has a cycle through ${e:08X}"));
        }
        out.push(e);
        e = m.read_u32(e + Q_LINK);
    }
    Ok(out)
}

/// Append `elem` at the tail of the queue at `hdr` (its `qLink` becomes 0).
pub fn queue_append(m: &mut Machine, hdr: u32, elem: u32) {
    m.write_u32(elem + Q_LINK, 0);
    let tail = m.read_u32(hdr + QHDR_TAIL);
    if tail == 0 || m.read_u32(hdr + QHDR_HEAD) == 0 {
        m.write_u32(hdr + QHDR_HEAD, elem);
    } else {
        m.write_u32(tail + Q_LINK, elem);
    }
    m.write_u32(hdr + QHDR_TAIL, elem);
}

/// Remove `elem` from the queue at `hdr`; false if it is not in it.
pub fn queue_remove(m: &mut Machine, hdr: u32, elem: u32) -> Result<bool, String> {
    let list = queue_elements(m, hdr)?;
    let Some(i) = list.iter().position(|&e| e == elem) else {
        return Ok(false);
    };
    let next = list.get(i + 1).copied().unwrap_or(0);
    if i == 0 {
        m.write_u32(hdr + QHDR_HEAD, next);
    } else {
        m.write_u32(list[i - 1] + Q_LINK, next);
    }
    if next == 0 {
        let new_tail = if i == 0 { 0 } else { list[i - 1] };
        m.write_u32(hdr + QHDR_TAIL, new_tail);
    }
    Ok(true)
}

/// Check that `[addr - prefix, addr + len)` is a place the OS may keep a pointer to: `addr`
/// even, inside one nonrelocatable heap block or one host-loaded image. `what` names the
/// element for the error sentence.
pub fn check_static_element(
    m: &Machine,
    addr: u32,
    prefix: u32,
    len: u32,
    what: &str,
) -> Result<(), String> {
    if addr & 1 != 0 {
        return Err(format!("{what} at ${addr:08X} is at an odd address"));
    }
    let start = addr.wrapping_sub(prefix);
    let end = addr.wrapping_add(len);
    if start > addr || !m.bus().in_ram(start, end - start) {
        return Err(format!("{what} at ${addr:08X} lies outside RAM"));
    }
    if m.images()
        .iter()
        .any(|i| i.heap_block.is_none() && i.base <= start && end <= i.end())
    {
        return Ok(());
    }
    match m.memory_manager().block_containing(start) {
        Some(b) if b.kind == BlockKind::Pointer => {
            if b.data() <= start && end <= b.data() + b.size {
                Ok(())
            } else {
                Err(format!(
                    "{what} ${start:08X}..${end:08X} does not fit inside the nonrelocatable block at ${:08X} ({} bytes)",
                    b.data(),
                    b.size
                ))
            }
        }
        Some(b) if matches!(b.kind, BlockKind::Relocatable { .. }) => Err(format!(
            "{what} at ${addr:08X} lies in a relocatable block (handle data may move; the OS keeps a pointer to it): use a nonrelocatable block"
        )),
        _ => {
            let l = m.layout();
            let place = if (l.stack.0..l.stack.1).contains(&start) {
                "on the stack"
            } else if (l.a5_world.0..l.a5_world.1).contains(&start) {
                "in the A5 world"
            } else {
                "outside any heap block"
            };
            Err(format!(
                "{what} at ${addr:08X} lies {place}; the OS keeps a pointer to it, so it must be in a nonrelocatable block"
            ))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// _Enqueue / _Dequeue

/// `_Enqueue` $A96F: A0 = element, A1 = queue header; appends at the tail. D0 = 0.
fn enqueue(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let (e, h) = (m.a(0), m.a(1));
    for (what, a) in [("element", e), ("queue header", h)] {
        if a & 1 != 0 || !m.bus().in_ram(a, 10) {
            return Err(Fault::misuse(
                call.word,
                format!("_Enqueue: {what} ${a:08X} is odd or outside RAM"),
            ));
        }
    }
    let list = queue_elements(m, h).map_err(|s| Fault::misuse(call.word, s))?;
    if list.contains(&e) {
        return Err(Fault::misuse(
            call.word,
            format!("_Enqueue: element ${e:08X} is already in the queue at ${h:08X}"),
        ));
    }
    queue_append(m, h, e);
    m.set_d(0, 0);
    call.returns_in(0);
    Ok(())
}

/// `_Dequeue` $A96E: A0 = element, A1 = queue header. D0 = 0, or `qErr` (−1) if absent.
fn dequeue(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let (e, h) = (m.a(0), m.a(1));
    if h & 1 != 0 || !m.bus().in_ram(h, 10) {
        return Err(Fault::misuse(
            call.word,
            format!("_Dequeue: queue header ${h:08X} is odd or outside RAM"),
        ));
    }
    let found = queue_remove(m, h, e).map_err(|s| Fault::misuse(call.word, s))?;
    m.set_d(0, if found { 0 } else { Q_ERR as i32 as u32 });
    call.returns_in(0);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Gestalt

/// The selectors `_Gestalt` answers.
#[derive(Debug, Clone, Default)]
pub struct GestaltTable {
    pub selectors: BTreeMap<u32, u32>,
}

impl GestaltTable {
    /// Defaults for a machine with `cpu`:
    /// * `'sysv'` = $0755 (System 7.5.5; modelling choice),
    /// * `'sysa'` = 1 (68k),
    /// * `'proc'` = `CPUFlag` + 1 (gestalt68000 = 1 … gestalt68040 = 5),
    /// * `'cput'` = `CPUFlag` (gestaltCPU68000 = 0 … gestaltCPU68040 = 4),
    /// * `'mmu '` = 0 (none) on the 68000, 3 (68030 MMU) / 4 (68040 MMU) / 1 (AMU, 68020),
    /// * `'vm  '` = 0 (virtual memory off).
    ///
    /// `'scsi'` is absent (no SCSI Manager 4.3) until a SCSI model or a test sets it with
    /// [`Machine::set_gestalt`] (bit 0 `gestaltAsyncSCSI` = 4.3 present).
    pub fn defaults(cpu: crate::CpuModel) -> GestaltTable {
        let flag = cpu.cpu_flag() as u32;
        let mmu = match flag {
            0 => 0,
            2 => 1,
            3 => 3,
            _ => 4,
        };
        let mut t = BTreeMap::new();
        t.insert(ostype(b"sysv"), 0x0755);
        t.insert(ostype(b"sysa"), 1);
        t.insert(ostype(b"proc"), flag + 1);
        t.insert(ostype(b"cput"), flag);
        t.insert(ostype(b"mmu "), mmu);
        t.insert(ostype(b"vm  "), 0);
        GestaltTable { selectors: t }
    }
}

#[derive(Default)]
struct GestaltState {
    table: Option<GestaltTable>,
}

fn gestalt_table(m: &mut Machine) -> &mut GestaltTable {
    let cpu = m.model();
    m.state::<GestaltState>()
        .table
        .get_or_insert_with(|| GestaltTable::defaults(cpu))
}

impl Machine {
    /// Set (`Some`) or remove (`None`) a `_Gestalt` selector, e.g.
    /// `m.set_gestalt(ostype(b"scsi"), Some(1))` for "SCSI Manager 4.3 present".
    pub fn set_gestalt(&mut self, selector: u32, value: Option<u32>) {
        let t = gestalt_table(self);
        match value {
            Some(v) => {
                t.selectors.insert(selector, v);
            }
            None => {
                t.selectors.remove(&selector);
            }
        }
    }

    /// What `_Gestalt` answers for `selector`.
    pub fn gestalt(&mut self, selector: u32) -> Option<u32> {
        gestalt_table(self).selectors.get(&selector).copied()
    }
}

/// `_Gestalt` $A1AD: D0 = selector; A0 = response, D0 = result.
fn gestalt(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    if call.word & 0x0600 != 0 {
        return Err(Fault::misuse(
            call.word,
            "_NewGestalt/_ReplaceGestalt (Gestalt trap with bit 9 or 10 set) is not modelled",
        ));
    }
    let sel = m.d(0);
    match m.gestalt(sel) {
        Some(v) => {
            m.set_a(0, v);
            m.set_d(0, 0);
        }
        None => {
            m.set_a(0, 0);
            m.set_d(0, GESTALT_UNDEF_SELECTOR_ERR as i32 as u32);
        }
    }
    call.keep(SavedReg::A0);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// _HWPriv

/// `_HWPriv` with the cache-switching selectors 0 and 2 as well as the flushes: the one
/// definition is [`crate::traps::hw_priv`].
fn hw_priv_extended(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    crate::traps::hw_priv(m, call, true)
}

/// Register `_Enqueue`, `_Dequeue`, `_Gestalt` and the extended `_HWPriv`.
pub fn install(m: &mut Machine) {
    m.register_trap(0xA96F, "Enqueue", enqueue);
    m.register_trap(0xA96E, "Dequeue", dequeue);
    m.register_trap(0xA1AD, "Gestalt", gestalt);
    m.register_trap(0xA198, "HWPriv", hw_priv_extended);
    gestalt_table(m);
}
