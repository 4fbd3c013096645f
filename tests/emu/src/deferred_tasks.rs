//! The Deferred Task Manager: `_DTInstall` ($A082) queues a task that runs at the end of the
//! interrupt that installed it, after interrupts are re-enabled (IM Processes ch. 6).
//!
//! * The task record: `qLink` (0), `qType` (4, must be `dtQType` = 7, else `vTypErr` and the
//!   task is not queued), `dtFlags` (6), `dtAddr` (8), `dtParm` (12, loaded into A1),
//!   `dtReserved` (16). The record must lie where the OS may keep a pointer to it (a
//!   nonrelocatable block or a loaded image), as for VBL tasks; the system owns it until the
//!   task is entered (TN 1003), so installing it twice before it ran fails the run.
//! * When the outermost interrupt handler returns, the queued tasks run in order with the
//!   interrupt mask at 0 — other interrupts (and the VBL, so `Ticks`) are taken meanwhile —
//!   but still at interrupt time: the interrupt-time rules apply (`traps`). A task may change
//!   D0–D3/A0–A3 and must keep the rest (IM Processes, "Deferred Tasks").
//! * Availability: from System 7.0 on every Mac; not on a Macintosh Plus or SE under System
//!   6.0 (IM Processes, "Checking for the Deferred Task Manager"). The model's 68000 Mac is the
//!   Plus under System 6, the harder case: `_DTInstall` is not registered there, so it is
//!   `_Unimplemented` and the trap-availability test says so; on the other CPUs it exists.

use crate::error::Fault;
use crate::loader::Preserved;
use crate::machine::Machine;
use crate::os_utils::check_static_element;
use crate::traps::TrapCall;

/// `_DTInstall`.
pub const DT_INSTALL: u16 = 0xA082;
/// `dtQType`.
pub const DT_QTYPE: u16 = 7;
/// `vTypErr`.
const V_TYP_ERR: i16 = -2;
/// Bytes of a deferred task record.
const DT_SIZE: u32 = 20;
/// What a deferred task must keep: D4–D7, A4–A6 (it may change D0–D3/A0–A3).
const DT_PRESERVED: Preserved = Preserved(0b111_0000_1111_0000);

/// Queued tasks, oldest first.
#[derive(Default)]
pub(crate) struct DeferredTasks {
    queue: Vec<u32>,
    /// Tasks run so far (for tests).
    ran: u64,
}

fn state(m: &mut Machine) -> &mut DeferredTasks {
    m.state::<DeferredTasks>()
}

/// `_DTInstall` $A082: A0 = the task record; D0 = `noErr` or `vTypErr`.
fn dt_install(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let t = m.a(0);
    check_static_element(m, t, 0, DT_SIZE, "_DTInstall: the deferred task")
        .map_err(|s| Fault::misuse(call.word, s))?;
    if m.read_u16(t + 4) != DT_QTYPE {
        m.set_d(0, V_TYP_ERR as i32 as u32);
        return Ok(());
    }
    if state(m).queue.contains(&t) {
        return Err(Fault::misuse(
            call.word,
            format!("_DTInstall: the deferred task at ${t:08X} is already queued"),
        ));
    }
    state(m).queue.push(t);
    m.set_d(0, 0);
    Ok(())
}

/// Register `_DTInstall` unless the machine is the model's Plus under System 6 (the 68000).
pub(crate) fn install(m: &mut Machine) {
    if m.model() != crate::CpuModel::M68000 {
        m.register_trap(DT_INSTALL, "DTInstall", dt_install);
    }
}

/// Run the queued deferred tasks (called when the outermost interrupt handler has returned,
/// with the interrupted context's registers saved by the caller): each with A1 = `dtParm`,
/// the mask at 0, still at interrupt time.
pub(crate) fn run_queued(m: &mut Machine) -> Result<(), Fault> {
    while !state(m).queue.is_empty() {
        let t = state(m).queue.remove(0);
        let (addr, parm) = (m.read_u32(t + 8), m.read_u32(t + 12));
        state(m).ran += 1;
        m.call_with_registers(addr, &[(9, parm)], DT_PRESERVED)
            .map_err(|e| e.fault)?;
    }
    Ok(())
}

/// Deferred tasks run so far.
pub fn tasks_run(m: &mut Machine) -> u64 {
    state(m).ran
}
