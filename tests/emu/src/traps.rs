//! The A-line trap dispatcher: every trap word goes to a named Rust handler.
//!
//! # Decoding
//! * Bit 11 clear: an **OS trap**; the trap number is the low 8 bits. Bit 8 set means the
//!   routine returns a value in A0 (e.g. `_NewPtr` $A11E), so A0 is not restored. Bits 9 and
//!   10 are modifiers whose meaning depends on the trap: bit 9 ($0200) is `CLEAR` for the
//!   Memory Manager and `IMMED` for the Device Manager, bit 10 ($0400) is `SYS` for the Memory
//!   Manager and `ASYNC` for the Device Manager. Handlers get the full trap word.
//! * Bit 11 set: a **Toolbox trap**; the trap number is the low 10 bits, bit 10 is auto-pop.
//!
//! A handler is registered for a trap *number* (one OS handler covers $A01E, $A11E, $A31E,
//! $A51E, $A71E) with [`TrapTable::register`] or [`crate::Machine::register_trap`].
//!
//! # Register convention (what the real dispatcher does; IM Operating System Utilities ch. 8)
//! * OS traps: arguments in A0/D0 (etc.), result code in D0. The dispatcher passes the trap
//!   word in D1, and saves and restores D1, D2, A1, A2 and — unless bit 8 is set — A0 around
//!   the routine. A handler that returns a value in one of those registers says so with
//!   [`TrapCall::keep`]. On return the condition codes are set from D0.W as `TST.W D0` would
//!   (N, Z from D0.W; V, C cleared; X unchanged). That last point is UNCONFIRMED (mac-facts
//!   §9.2); switch it off with [`TrapTable::set_ccr_from_d0`].
//! * Toolbox traps: Pascal stack convention. Nothing is saved or restored; the handler pops its
//!   arguments and stores its result on the stack ([`crate::Machine::pascal_pop`]). A Toolbox
//!   routine may change D0–D2 and A0–A1 (IM Operating System Utilities ch. 8, "The Trap
//!   Dispatcher"; the Pascal register convention), and real ones do: on return the model
//!   gives each of them a seeded garbage value ([`TrapTable::set_scratch_garbage`]), except
//!   the registers a register-based Toolbox routine returns a result in
//!   ([`TrapCall::returns_in`], e.g. `_Dequeue`'s D0). Code that keeps a value there across
//!   a Toolbox trap then fails as it would on some Mac. Also for a Toolbox routine called
//!   through its address (a stub). OS traps change only what they return (above).
//!
//! # Trap addresses
//! `_GetTrapAddress` returns, for a trap with a handler, the address of a 4-byte *stub*
//! (`trap word; RTS`) so guest code can `JSR` to it; for a trap without one it returns the
//! `_Unimplemented` stub (that is how code tests whether a trap exists). A Toolbox handler
//! reached through a stub sees the stub's return address on top of the stack:
//! [`TrapCall::via_stub`] tells it so, and [`TrapCall::pascal_args`] skips it. An OS routine
//! reached through a stub runs without the dispatcher's register saving and CCR setting (as
//! calling a routine's address directly does on a Mac).
//! `_SetTrapAddress` (patching) is not modelled: it fails as unimplemented.

use std::sync::Arc;

use crate::error::Fault;
use crate::machine::Machine;
use crate::seed::{Rng, seed_from_env};
use crate::trap_names::{is_os_trap, trap_name, trap_number};

/// Modifier bit 8 of an OS trap: the routine returns a value in A0.
pub const OS_RETURNS_A0: u16 = 0x0100;
/// Modifier bit 9 of an OS trap: `CLEAR` (Memory Manager) / `IMMED` (Device Manager).
pub const OS_CLEAR: u16 = 0x0200;
/// Same bit as [`OS_CLEAR`], Device Manager meaning.
pub const OS_IMMED: u16 = 0x0200;
/// Modifier bit 10 of an OS trap: `SYS` (Memory Manager) / `ASYNC` (Device Manager).
pub const OS_SYS: u16 = 0x0400;
/// Same bit as [`OS_SYS`], Device Manager meaning.
pub const OS_ASYNC: u16 = 0x0400;
/// Bit 10 of a Toolbox trap: auto-pop (discard the caller's return address).
pub const TOOLBOX_AUTO_POP: u16 = 0x0400;

/// A trap handler. Return `Err` to fail the run (the dispatcher adds PC and return chain).
pub type TrapHandler = Arc<dyn Fn(&mut Machine, &mut TrapCall) -> Result<(), Fault> + Send + Sync>;

/// A register the OS-trap dispatcher saves and restores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavedReg {
    D1,
    D2,
    A0,
    A1,
    A2,
}

impl SavedReg {
    const ALL: [SavedReg; 5] = [
        SavedReg::D1,
        SavedReg::D2,
        SavedReg::A0,
        SavedReg::A1,
        SavedReg::A2,
    ];
    fn bit(self) -> u8 {
        1 << self as u8
    }
    fn index(self) -> usize {
        match self {
            SavedReg::D1 => 1,
            SavedReg::D2 => 2,
            SavedReg::A0 => 8,
            SavedReg::A1 => 9,
            SavedReg::A2 => 10,
        }
    }
}

/// One trap being dispatched.
#[derive(Debug, Clone)]
pub struct TrapCall {
    /// The full trap word, modifier bits included.
    pub word: u16,
    /// Address of the trap word.
    pub pc: u32,
    /// Reached by `JSR` to a stub from `_GetTrapAddress` (the stub's return address is on the
    /// stack above any Pascal arguments).
    pub via_stub: bool,
    /// Name the handler was registered under.
    pub name: &'static str,
    restore: u8,
    /// Toolbox traps: the scratch registers (bit = index in D0–D7/A0–A7) that carry results.
    results: u16,
}

impl TrapCall {
    /// The call record a host routine's handler receives (`word` = $4AFC, `ILLEGAL`).
    pub(crate) fn host_routine(pc: u32, name: &'static str) -> TrapCall {
        TrapCall {
            word: 0x4AFC,
            pc,
            via_stub: false,
            name,
            restore: 0,
            results: 0,
        }
    }

    /// An OS trap (bit 11 clear)?
    pub fn is_os(&self) -> bool {
        is_os_trap(self.word)
    }
    /// The trap number (OS: low 8 bits; Toolbox: low 10 bits).
    pub fn number(&self) -> u16 {
        trap_number(self.word)
    }
    /// OS trap with bit 10 (`SYS` / `ASYNC`).
    pub fn sys_or_async(&self) -> bool {
        self.is_os() && self.word & OS_SYS != 0
    }
    /// OS trap with bit 9 (`CLEAR` / `IMMED`).
    pub fn clear_or_immed(&self) -> bool {
        self.is_os() && self.word & OS_CLEAR != 0
    }
    /// A Toolbox trap returns a result in register `index` (0–7 D0–D7, 8–15 A0–A7): it keeps
    /// the handler's value instead of scratch garbage.
    pub fn returns_in(&mut self, index: usize) {
        self.results |= 1 << index;
    }
    /// Do not restore `reg` after the handler: the trap returns a value there.
    pub fn keep(&mut self, reg: SavedReg) {
        self.restore &= !reg.bit();
    }
    /// Address of the first (last-pushed) Pascal argument.
    pub fn pascal_args(&self, m: &Machine) -> u32 {
        m.sp() + if self.via_stub { 4 } else { 0 }
    }
}

#[derive(Clone)]
struct Entry {
    name: &'static str,
    handler: TrapHandler,
}

/// Trap number → handler, for OS and Toolbox traps.
#[derive(Clone)]
pub struct TrapTable {
    os: Vec<Option<Entry>>,
    toolbox: Vec<Option<Entry>>,
    ccr_from_d0: bool,
    /// Garbage for the registers a Toolbox trap may change; `None`: left as the handler left
    /// them.
    scratch_garbage: Option<Rng>,
}

/// Seed stream of the Toolbox scratch-register garbage.
const GARBAGE_STREAM: u64 = 0x7A_A5C4;

/// The registers a Toolbox trap may change: D0–D2, A0–A1 (indices into D0–D7/A0–A7).
const TOOLBOX_SCRATCH: [usize; 5] = [0, 1, 2, 8, 9];

impl Default for TrapTable {
    fn default() -> Self {
        TrapTable {
            os: vec![None; 256],
            toolbox: vec![None; 1024],
            ccr_from_d0: true,
            scratch_garbage: Some(Rng::new(seed_from_env(), GARBAGE_STREAM)),
        }
    }
}

fn check_word(word: u16) {
    assert!(
        word & 0xF000 == 0xA000,
        "${word:04X} is not an A-line trap word"
    );
}

impl TrapTable {
    fn slot(&mut self, word: u16) -> &mut Option<Entry> {
        check_word(word);
        let n = trap_number(word) as usize;
        if is_os_trap(word) {
            &mut self.os[n]
        } else {
            &mut self.toolbox[n]
        }
    }

    /// Register `handler` under `name` for the trap number of `word` (a full trap word such as
    /// `0xA11E`; modifier bits are ignored for the lookup and passed to the handler). Replaces
    /// any previous handler. Panics if `word` is not $Axxx.
    pub fn register<F>(&mut self, word: u16, name: &'static str, handler: F)
    where
        F: Fn(&mut Machine, &mut TrapCall) -> Result<(), Fault> + Send + Sync + 'static,
    {
        *self.slot(word) = Some(Entry {
            name,
            handler: Arc::new(handler),
        });
    }

    /// Remove the handler for `word`'s trap number (the trap then fails as unimplemented).
    pub fn unregister(&mut self, word: u16) {
        *self.slot(word) = None;
    }

    /// Name of the handler registered for `word`, if any.
    pub fn handler_name(&self, word: u16) -> Option<&'static str> {
        self.lookup(word).map(|(n, _)| n)
    }

    /// Whether a handler is registered for `word`'s trap number.
    pub fn is_implemented(&self, word: u16) -> bool {
        self.lookup(word).is_some()
    }

    fn lookup(&self, word: u16) -> Option<(&'static str, TrapHandler)> {
        if word & 0xF000 != 0xA000 {
            return None;
        }
        let n = trap_number(word) as usize;
        let e = if is_os_trap(word) {
            &self.os[n]
        } else {
            &self.toolbox[n]
        };
        e.as_ref().map(|e| (e.name, e.handler.clone()))
    }

    /// Whether OS traps return with the CCR set from D0.W (default true; UNCONFIRMED fact).
    pub fn set_ccr_from_d0(&mut self, on: bool) {
        self.ccr_from_d0 = on;
    }

    /// Whether Toolbox traps return with seeded garbage in D0–D2/A0–A1 (default on, seeded
    /// with `FERRITE_SEED`); off, they keep what the handler left (a lenient Mac, for a
    /// test that shows the difference).
    pub fn set_scratch_garbage(&mut self, on: bool) {
        self.scratch_garbage = on.then(|| Rng::new(seed_from_env(), GARBAGE_STREAM));
    }

    /// Garbage for one scratch register: mostly odd values and addresses outside RAM, so a
    /// pointer kept there faults at once and a count or flag is wildly off.
    fn garbage(&mut self) -> Option<u32> {
        let rng = self.scratch_garbage.as_mut()?;
        Some(rng.next_u32() | 0x8000_0001)
    }
}

/// A Toolbox routine returned: every register it may change and that carries no result
/// gets a garbage value ([`TrapTable::set_scratch_garbage`]).
fn clobber_toolbox_scratch(m: &mut Machine, call: &TrapCall) {
    for i in TOOLBOX_SCRATCH {
        if call.results & 1 << i != 0 {
            continue;
        }
        let Some(v) = m.traps_mut().garbage() else {
            return;
        };
        m.cpu_mut().dar[i] = v;
    }
}

/// Run the handler for the trap `word` found at `pc`. Called by the run loop with the CPU's
/// PC already past the trap word.
pub(crate) fn dispatch(m: &mut Machine, word: u16, pc: u32) -> Result<(), Fault> {
    let Some((name, handler)) = m.traps().lookup(word) else {
        return Err(Fault::UnimplementedTrap {
            word,
            name: trap_name(word),
        });
    };
    m.stats_mut().traps += 1;
    *m.stats_mut().trap_counts.entry(name).or_insert(0) += 1;
    let via_stub = m.layout().is_trap_stub(pc);
    let os = is_os_trap(word);
    let mut call = TrapCall {
        word,
        pc,
        via_stub,
        name,
        restore: 0,
        results: 0,
    };
    if m.at_interrupt_level() {
        forbidden_at_interrupt_time(word)?;
    }
    if !os {
        // An application must call the Toolbox inside its A5 world.
        crate::toolbox::segment_loader::check_a5_world(m, &call)?;
    }
    if !os {
        // Toolbox traps save nothing, and their routines use D0–D2/A0–A1 freely.
        handler(m, &mut call)?;
        clobber_toolbox_scratch(m, &call);
        return Ok(());
    }
    if via_stub {
        // A stub reached by JSR stands for calling the routine's address directly, which
        // bypasses the dispatcher and so its register saving too.
        return handler(m, &mut call);
    }
    call.restore = SavedReg::ALL.iter().fold(0, |acc, r| acc | r.bit());
    if word & OS_RETURNS_A0 != 0 {
        call.restore &= !SavedReg::A0.bit();
    }
    let saved: Vec<u32> = SavedReg::ALL
        .iter()
        .map(|r| m.cpu().dar[r.index()])
        .collect();
    m.cpu_mut().dar[1] = word as u32;
    handler(m, &mut call)?;
    for (r, v) in SavedReg::ALL.iter().zip(saved) {
        if call.restore & r.bit() != 0 {
            m.cpu_mut().dar[r.index()] = v;
        }
    }
    if m.traps().ccr_from_d0 {
        let d0 = m.d(0) as u16;
        let x = m.cpu().get_ccr() & 0x10;
        let n = if d0 & 0x8000 != 0 { 0x08 } else { 0 };
        let z = if d0 == 0 { 0x04 } else { 0 };
        m.cpu_mut().set_ccr(x | n | z);
    }
    Ok(())
}

/// OS traps that may allocate, release, move or purge memory (IM Memory, appendix A; IM
/// Processes: code run at interrupt time "must not allocate, move, or purge memory"): the
/// Memory Manager is not re-entrant, and the interrupted code may be inside it.
const MOVES_MEMORY: [(u16, &str); 14] = [
    (0x1E, "NewPtr"),
    (0x1F, "DisposePtr"),
    (0x20, "SetPtrSize"),
    (0x22, "NewHandle"),
    (0x23, "DisposeHandle"),
    (0x24, "SetHandleSize"),
    (0x27, "ReallocHandle"),
    (0x36, "MoreMasters"),
    (0x40, "ResrvMem"),
    (0x4C, "CompactMem"),
    (0x4D, "PurgeMem"),
    (0x64, "MoveHHi"),
    (0x66, "NewEmptyHandle"),
    (0x1D, "MaxMem"),
];

/// Device and File Manager traps that, made synchronously (neither `ASYNC` nor `IMMED`), wait
/// for the request queue: at interrupt time the request ahead cannot finish while the
/// interrupt runs, so a real Mac hangs (IM Devices ch. 1, IM Files ch. 2: make only
/// asynchronous calls at interrupt time). `_Open` and `_Close` of a driver, `_Read`,
/// `_Write`, `_Control`, `_Status`, `_HFSDispatch`.
const WAITS_FOR_THE_QUEUE: [(u16, &str); 7] = [
    (0x00, "_Open"),
    (0x01, "_Close"),
    (0x02, "_Read"),
    (0x03, "_Write"),
    (0x04, "_Control"),
    (0x05, "_Status"),
    (0x60, "_HFSDispatch"),
];

/// A trap that code running at interrupt time may not make fails the run with the reason.
fn forbidden_at_interrupt_time(word: u16) -> Result<(), Fault> {
    if !is_os_trap(word) {
        return Ok(());
    }
    let n = word & 0xFF;
    if let Some((_, name)) = MOVES_MEMORY.iter().find(|(t, _)| *t == n) {
        return Err(Fault::misuse(
            word,
            format!(
                "_{name} at interrupt time: the Memory Manager may move or purge memory and is not re-entrant (IM Memory, appendix A); defer the allocation (allocate beforehand, or a Deferred Task / application-level work)"
            ),
        ));
    }
    if word & (OS_ASYNC | OS_IMMED) == 0
        && let Some((_, name)) = WAITS_FOR_THE_QUEUE.iter().find(|(t, _)| *t == n)
    {
        return Err(Fault::misuse(
            word,
            format!(
                "synchronous {name} at interrupt time: it waits for the request queue, which cannot move while the interrupt runs (a real Mac hangs); make the call asynchronously or immediately"
            ),
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Built-in handlers that are not Memory Manager calls.

/// `_Debugger` $A9FF: fail the run.
fn debugger(_m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    Err(Fault::Debugger {
        word: call.word,
        message: "(no message)".into(),
    })
}

/// `_DebugStr` $ABFF: the Pascal string pointer is on the stack; fail with its text.
fn debug_str(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let p = m.read_u32(call.pascal_args(m));
    let message = if m.bus().in_ram(p, 1) && m.bus().in_ram(p, 1 + m.read_u8(p) as u32) {
        String::from_utf8_lossy(&m.read_pstring(p)).into_owned()
    } else {
        format!("(string pointer ${p:08X} is outside RAM)")
    };
    Err(Fault::Debugger {
        word: call.word,
        message: format!("\"{message}\""),
    })
}

/// `_SysError` $A9C9: D0 = error; the "bomb" box. Fails the run.
fn sys_error(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    Err(Fault::Debugger {
        word: call.word,
        message: format!("system error {}", m.d(0) as i16),
    })
}

/// `_SysBeep` $A9C8: pops the duration word and counts the beep in [`crate::Stats::beeps`].
fn sys_beep(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    m.pascal_pop(call, 2);
    m.stats_mut().beeps += 1;
    Ok(())
}

/// `_StripAddress` $A055: D0 in, D0 out. Clears the high byte in 24-bit mode (modelled as: the
/// 68000; 68020+ machines run in 32-bit mode — see [`crate::MachineConfig::addressing_24bit`]).
fn strip_address(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    if m.config().addressing_24bit {
        let v = m.d(0) & 0x00FF_FFFF;
        m.set_d(0, v);
    }
    Ok(())
}

/// `_Delay` $A03B: A0 = ticks to wait; D0 = `Ticks` at the end. Waits as the ROM does, by
/// watching `Ticks`: interrupts are delivered meanwhile; with level 1 masked it would never
/// return on a real Mac, which fails the run ([`Machine::wait_ticks`]).
fn delay(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    let ticks = m.a(0);
    if ticks as i32 > 0 {
        m.wait_ticks(ticks, "_Delay")?;
    }
    let now = m.ticks();
    m.set_d(0, now);
    Ok(())
}

/// `_GetTrapAddress` $A146 / `_GetOSTrapAddress` $A346 / `_GetToolTrapAddress` $A746:
/// D0 = trap number (or word); A0 = address.
///
/// With bit 9 set the trap kind comes from bit 10 (set: Toolbox). The old form ($A146) decides
/// from D0: a full $Axxx word by its bit 11, otherwise numbers below $50 are OS traps — an
/// approximation of the old-style rule (modelling choice).
fn get_trap_address(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let d0 = m.d(0) as u16;
    let toolbox = if call.word & 0x0200 != 0 {
        call.word & 0x0400 != 0
    } else if d0 & 0xF000 == 0xA000 {
        d0 & 0x0800 != 0
    } else {
        (d0 & 0x3FF) >= 0x50
    };
    let word = if toolbox {
        0xA800 | (d0 & 0x3FF)
    } else {
        0xA000 | (d0 & 0xFF)
    };
    let addr = if m.traps().is_implemented(word) {
        m.layout().trap_stub(word)
    } else {
        m.layout().trap_stub(0xA89F)
    };
    m.set_a(0, addr);
    m.set_d(0, 0);
    Ok(())
}

/// `_HWPriv` $A198 (interfaces also emit $A098): D0 = selector.
/// * 0 `SwapInstructionCache` (A0 = enable): returns the old state (1, on) in A0. Turning the
///   cache off is not modelled (the instruction-cache rule would have to follow it) and fails.
/// * 1 `FlushInstructionCache`: forget every write for the instruction-cache rule.
/// * 2 `SwapDataCache` (A0 = enable): returns 1 in A0; the data cache is not modelled.
/// * 3 `FlushDataCache`: no-op (no data cache is modelled).
/// * 9 `FlushCodeCacheRange` (A0 = address, A1 = count).
///
/// Selectors 0 and 2 only with `cache_switches` (the dispatcher's built-in handler knows the
/// flushes; [`crate::os_utils::install`] adds the switches). Other selectors fail the run.
/// D0 = 0.
pub(crate) fn hw_priv(
    m: &mut Machine,
    call: &mut TrapCall,
    cache_switches: bool,
) -> Result<(), Fault> {
    match m.d(0) {
        0 if cache_switches => {
            if m.a(0) == 0 {
                return Err(Fault::misuse(
                    call.word,
                    "_HWPriv SwapInstructionCache(false): running with the instruction cache off is not modelled",
                ));
            }
            m.set_a(0, 1);
            call.keep(SavedReg::A0);
        }
        1 => m.flush_icache(),
        2 if cache_switches => {
            m.set_a(0, 1);
            call.keep(SavedReg::A0);
        }
        3 => {}
        9 => {
            let (a, n) = (m.a(0), m.a(1));
            m.flush_icache_range(a, n);
        }
        s => {
            return Err(Fault::misuse(
                call.word,
                format!("_HWPriv selector {s} is not modelled"),
            ));
        }
    }
    m.set_d(0, 0);
    Ok(())
}

/// The dispatcher's own `_HWPriv`: the cache flushes ([`hw_priv`] without the switches).
fn hw_priv_flushes(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    hw_priv(m, call, false)
}

/// Register the built-in handlers above.
pub(crate) fn install_builtins(t: &mut TrapTable) {
    t.register(0xA9FF, "Debugger", debugger);
    t.register(0xABFF, "DebugStr", debug_str);
    t.register(0xA9C9, "SysError", sys_error);
    t.register(0xA9C8, "SysBeep", sys_beep);
    t.register(0xA055, "StripAddress", strip_address);
    t.register(0xA03B, "Delay", delay);
    t.register(0xA146, "GetTrapAddress", get_trap_address);
    t.register(0xA198, "HWPriv", hw_priv_flushes);
}
