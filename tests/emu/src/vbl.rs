//! The Vertical Retrace Manager: `_VInstall` / `_VRemove` and the VBL tasks run every tick.
//!
//! `VBLTask` (mac-facts §9.3): `qLink` @0, `qType` @4 (must be `vType` = 1), `vblAddr` @6,
//! `vblCount` @10 (word), `vblPhase` @12 (word). A tick hook (level 1, like the VBL
//! interrupt) walks the installed tasks in installation order: a task whose `vblCount` is
//! nonzero has it decremented; when it reaches 0 the task runs (A0 = the task, Mac OS
//! register convention: D3–D7/A2–A6 preserved, checked). A task must set `vblCount` again to
//! run again; one that leaves it 0 stays installed but inactive.
//!
//! Modelling decisions: `vblPhase` is ignored (every task is considered on every tick); the
//! task list is kept on the host and mirrored only in the tasks' `qLink` fields (the
//! low-memory `VBLQueue` header is not modelled); a `vblCount` that is negative counts down
//! (wrapping) like any nonzero count; a task record must not be in a relocatable block, on the
//! stack or outside the heaps/loaded images (fails the run, [`crate::os_utils::check_static_element`]);
//! installing a task twice fails the run; slot VBL tasks (`_SlotVInstall`) are not modelled.

use std::sync::Arc;

use crate::error::Fault;
use crate::loader::Preserved;
use crate::machine::Machine;
use crate::os_utils::check_static_element;
use crate::traps::TrapCall;

/// `qType` of a VBL task (`vType`).
pub const V_TYPE: u16 = 1;
/// `vblAddr`.
pub const VBL_ADDR: u32 = 6;
/// `vblCount`.
pub const VBL_COUNT: u32 = 10;
/// `vblPhase`.
pub const VBL_PHASE: u32 = 12;
/// Size of a `VBLTask`.
pub const VBL_TASK_SIZE: u32 = 14;
/// `vTypErr`: `qType` is not `vType`.
pub const V_TYP_ERR: i16 = -2;
/// `qErr`: the task is not installed.
pub const Q_ERR: i16 = -1;

/// VBL state of a machine.
#[derive(Debug, Default)]
pub struct VblState {
    /// Installed tasks, oldest first.
    pub tasks: Vec<u32>,
    /// Task runs so far.
    pub runs: u64,
}

fn state(m: &mut Machine) -> &mut VblState {
    m.state::<VblState>()
}

fn relink(m: &mut Machine) {
    let tasks = state(m).tasks.clone();
    for (i, &t) in tasks.iter().enumerate() {
        let next = tasks.get(i + 1).copied().unwrap_or(0);
        m.write_u32(t, next);
    }
}

impl Machine {
    /// The installed VBL tasks, oldest first.
    pub fn vbl_tasks(&mut self) -> Vec<u32> {
        state(self).tasks.clone()
    }
}

/// `_VInstall` $A033: A0 = task.
fn vinstall(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let t = m.a(0);
    check_static_element(m, t, 0, VBL_TASK_SIZE, "_VInstall: the VBL task")
        .map_err(|s| Fault::misuse(call.word, s))?;
    if m.read_u16(t + 4) != V_TYPE {
        m.set_d(0, V_TYP_ERR as i32 as u32);
        return Ok(());
    }
    if state(m).tasks.contains(&t) {
        return Err(Fault::misuse(
            call.word,
            format!("_VInstall: the VBL task at ${t:08X} is already installed"),
        ));
    }
    state(m).tasks.push(t);
    relink(m);
    m.set_d(0, 0);
    Ok(())
}

/// `_VRemove` $A034: A0 = task.
fn vremove(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    let t = m.a(0);
    if t & 1 != 0 || !m.bus().in_ram(t, VBL_TASK_SIZE) {
        m.set_d(0, Q_ERR as i32 as u32);
        return Ok(());
    }
    if m.read_u16(t + 4) != V_TYPE {
        m.set_d(0, V_TYP_ERR as i32 as u32);
        return Ok(());
    }
    let s = state(m);
    let Some(i) = s.tasks.iter().position(|&x| x == t) else {
        m.set_d(0, Q_ERR as i32 as u32);
        return Ok(());
    };
    s.tasks.remove(i);
    m.write_u32(t, 0);
    relink(m);
    m.set_d(0, 0);
    Ok(())
}

fn vbl_tick(m: &mut Machine) -> Result<(), Fault> {
    let tasks = state(m).tasks.clone();
    for t in tasks {
        if !state(m).tasks.contains(&t) {
            continue;
        }
        let count = m.read_u16(t + VBL_COUNT);
        if count == 0 {
            continue;
        }
        let count = count.wrapping_sub(1);
        m.write_u16(t + VBL_COUNT, count);
        if count != 0 {
            continue;
        }
        let addr = m.read_u32(t + VBL_ADDR);
        if addr & 1 != 0 || !m.bus().in_ram(addr, 2) {
            return Err(Fault::Misuse {
                trap: None,
                message: format!(
                    "VBL task at ${t:08X} has vblAddr ${addr:08X}, which is odd or outside RAM"
                ),
            });
        }
        state(m).runs += 1;
        m.call_with_registers(addr, &[(8, t)], Preserved::MAC_OS)?;
    }
    Ok(())
}

/// Register `_VInstall`/`_VRemove` and the tick hook that runs the tasks.
pub fn install(m: &mut Machine) {
    m.register_trap(0xA033, "VInstall", vinstall);
    m.register_trap(0xA034, "VRemove", vremove);
    m.add_tick_hook("VBL tasks", Arc::new(vbl_tick));
}
