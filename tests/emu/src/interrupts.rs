//! Interrupts and emulated time: work that happens *between* the guest's instructions.
//!
//! A real Mac does asynchronous work at interrupt level: the VBL (level 1, every tick) runs
//! VBL tasks and the Device Manager's `accRun` timing; the SCSI controller's interrupt (level
//! 2 on most Macs) ends an asynchronous transfer and calls its completion routine, which may
//! call `IODone`. The emulated Mac models that with **scheduled interrupts**: host closures
//! that run at an instruction boundary once their time has come *and* the CPU's interrupt
//! mask (SR bits 8–10) is below their level, the way the 68k takes an interrupt.
//!
//! While an interrupt handler runs, the interrupted context (all registers, PC, SR) is saved,
//! SR is set to supervisor mode with the mask raised to the handler's level, and the handler
//! may call guest code (completion routines, VBL tasks) with [`Machine::call_address`]; when
//! it returns, the context is restored exactly. A handler that fails fails the run with the PC
//! of the interrupted instruction.
//!
//! **Waiting.** A synchronous Mac OS call that waits for asynchronous work (a synchronous
//! `_Read` spinning on `ioResult`) uses [`Machine::idle_until`]: emulated time jumps to the
//! next due interrupt, which is delivered, until the condition holds. Waiting with the
//! interrupt mask at or above the level of every pending interrupt would hang a real Mac; here
//! it fails with a clear fault instead.
//!
//! Modelling choices (not settled by docs/mac-facts.md): interrupts of the same level are taken in
//! the order they were scheduled; a level-7 interrupt is taken even when masked (NMI); the
//! exception-frame and vector fetch of a real interrupt are not modelled (the handler is host
//! code), so an interrupt costs no emulated cycles beyond the guest code it calls.

use std::sync::Arc;

use crate::error::Fault;
use crate::machine::Machine;

/// Host work done at interrupt level. It may call guest code through the machine.
pub type InterruptHandler = Box<dyn FnOnce(&mut Machine) -> Result<(), Fault> + Send>;

/// Work done at every tick (60.15 Hz) at interrupt level 1, like the VBL interrupt.
pub type TickHook = Arc<dyn Fn(&mut Machine) -> Result<(), Fault> + Send + Sync>;

/// Handle of a scheduled interrupt, to cancel it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InterruptId(u64);

struct Pending {
    id: u64,
    at: u64,
    level: u8,
    name: &'static str,
    handler: InterruptHandler,
}

/// Interrupt state of a [`Machine`].
pub struct Interrupts {
    pending: Vec<Pending>,
    next_id: u64,
    tick_hooks: Vec<(&'static str, TickHook)>,
    /// Ticks that have passed but whose tick hooks have not run yet (masked).
    ticks_owed: u32,
    /// Nesting depth of interrupt handlers now running.
    depth: u32,
    /// Interrupts delivered so far (for tests and reports).
    delivered: u64,
    /// Earliest `at` of `pending` (u64::MAX if none): the run loop's cheap check.
    due: u64,
    /// A wait for `Ticks` ([`Machine::wait_ticks`]) is in progress: the VBL alone can end it.
    pub(crate) waiting_for_ticks: bool,
}

impl Default for Interrupts {
    fn default() -> Self {
        Interrupts {
            pending: Vec::new(),
            next_id: 0,
            tick_hooks: Vec::new(),
            ticks_owed: 0,
            depth: 0,
            delivered: 0,
            due: u64::MAX,
            waiting_for_ticks: false,
        }
    }
}

impl Interrupts {
    fn recompute_due(&mut self) {
        self.due = self.pending.iter().map(|p| p.at).min().unwrap_or(u64::MAX);
    }

    /// Nesting depth of interrupt handlers now running (0 = not at interrupt level). The
    /// Device Manager uses it to tell an IODone made by interrupt-level code apart from one
    /// made by the routine an immediate call entered.
    pub(crate) fn depth_now(&self) -> u32 {
        self.depth
    }

    /// Does the run loop need to call `deliver_interrupts` at emulated cycle `now`?
    #[inline]
    pub(crate) fn check_needed(&self, now: u64) -> bool {
        self.ticks_owed > 0 || now >= self.due
    }
}

impl Machine {
    /// Schedule `handler` to run at interrupt `level` (1–7) after `delay_cycles` emulated CPU
    /// cycles (0 = at the next instruction boundary where the mask allows it).
    pub fn schedule_interrupt(
        &mut self,
        delay_cycles: u64,
        level: u8,
        name: &'static str,
        handler: InterruptHandler,
    ) -> InterruptId {
        assert!(
            (1..=7).contains(&level),
            "interrupt level {level} is not 1..7"
        );
        let at = self.emulated_cycles() + delay_cycles;
        let irq = self.interrupts_mut();
        let id = irq.next_id;
        irq.next_id += 1;
        irq.pending.push(Pending {
            id,
            at,
            level,
            name,
            handler,
        });
        irq.recompute_due();
        InterruptId(id)
    }

    /// Cancel a scheduled interrupt; false if it already ran or was cancelled.
    pub fn cancel_interrupt(&mut self, id: InterruptId) -> bool {
        let irq = self.interrupts_mut();
        let before = irq.pending.len();
        irq.pending.retain(|p| p.id != id.0);
        irq.recompute_due();
        irq.pending.len() != before
    }

    /// Names of the interrupts scheduled and not yet delivered.
    pub fn pending_interrupts(&self) -> Vec<&'static str> {
        self.interrupts().pending.iter().map(|p| p.name).collect()
    }

    /// Scheduled interrupts delivered since the machine started (VBL interrupts are counted
    /// in `Ticks`).
    pub fn interrupts_delivered(&self) -> u64 {
        self.interrupts().delivered
    }

    /// Run `hook` at level 1 on every tick (the VBL interrupt). Hooks run in the order added.
    pub fn add_tick_hook(&mut self, name: &'static str, hook: TickHook) {
        self.interrupts_mut().tick_hooks.push((name, hook));
    }

    /// The CPU's interrupt mask (SR bits 8–10).
    pub fn interrupt_mask(&self) -> u8 {
        ((self.sr() >> 8) & 7) as u8
    }

    /// True while an interrupt handler (or guest code it called) runs.
    pub fn at_interrupt_level(&self) -> bool {
        self.interrupts().depth > 0
    }

    /// Called by the run loop and by [`Machine::idle_until`]: deliver every interrupt that is
    /// due and not masked, and the owed tick hooks. Returns whether anything ran.
    pub(crate) fn deliver_interrupts(&mut self) -> Result<bool, Fault> {
        let mut any = false;
        loop {
            let now = self.emulated_cycles();
            let mask = self.interrupt_mask();
            let takes = |level: u8| level == 7 || level > mask;
            // The VBL interrupt first (level 1): count the tick, then the tick hooks.
            if self.interrupts().ticks_owed > 0 && takes(1) {
                self.interrupts_mut().ticks_owed -= 1;
                let hooks: Vec<TickHook> = self
                    .interrupts()
                    .tick_hooks
                    .iter()
                    .map(|(_, h)| h.clone())
                    .collect();
                self.run_at_level(1, false, |m| {
                    m.count_tick();
                    for h in &hooks {
                        h(m)?;
                    }
                    Ok(())
                })?;
                any = true;
                continue;
            }
            // The highest-level due interrupt the mask allows; FIFO within a level.
            let pick = self
                .interrupts()
                .pending
                .iter()
                .enumerate()
                .filter(|(_, p)| p.at <= now && takes(p.level))
                .max_by(|(ia, a), (ib, b)| a.level.cmp(&b.level).then(ib.cmp(ia)))
                .map(|(i, _)| i);
            let Some(i) = pick else { break };
            let p = self.interrupts_mut().pending.remove(i);
            self.interrupts_mut().recompute_due();
            self.run_at_level(p.level, true, p.handler)?;
            any = true;
        }
        Ok(any)
    }

    /// Run `f` as an interrupt handler at `level`; `scheduled` counts it in
    /// [`Machine::interrupts_delivered`] (the VBL's own interrupts are counted as ticks).
    fn run_at_level(
        &mut self,
        level: u8,
        scheduled: bool,
        f: impl FnOnce(&mut Machine) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        let saved_dar = self.cpu().dar;
        let saved_pc = self.pc();
        let saved_sr = self.sr();
        let new_sr = (saved_sr & !0x0700) | 0x2000 | ((level as u16) << 8);
        self.cpu_mut().set_sr(new_sr);
        self.interrupts_mut().depth += 1;
        if scheduled {
            self.interrupts_mut().delivered += 1;
        }
        let mut r = f(self);
        if r.is_ok() && self.interrupts().depth == 1 {
            // The end of the outermost interrupt: deferred tasks run with interrupts enabled
            // (still at interrupt time).
            let sr = self.sr();
            self.cpu_mut().set_sr(sr & !0x0700);
            r = crate::deferred_tasks::run_queued(self);
        }
        self.interrupts_mut().depth -= 1;
        self.cpu_mut().dar = saved_dar;
        self.cpu_mut().set_sr(saved_sr);
        self.set_pc(saved_pc);
        self.cpu_mut().invalidate_prefetch();
        r
    }

    pub(crate) fn interrupts(&self) -> &Interrupts {
        &self.irq
    }
    pub(crate) fn interrupts_mut(&mut self) -> &mut Interrupts {
        &mut self.irq
    }

    /// Record that retraces passed: the VIA's VBL flag is set (one pending interrupt however
    /// many retraces passed while it was masked).
    pub(crate) fn owe_ticks(&mut self, n: u32) {
        if n > 0 {
            self.interrupts_mut().ticks_owed = 1;
        }
    }

    /// Let emulated time pass up to cycle `at` while the CPU stays busy inside a call at the
    /// interrupt mask it has (the original SCSI Manager moving bytes, polled or blind): with
    /// level 1 open, time moves one retrace at a time and the VBL interrupt (and whatever else
    /// is due that the mask allows) is taken on the way, so `Ticks` counts every retrace of a
    /// long transfer, as on a Mac where the transfer loop runs with interrupts enabled; with
    /// level 1 masked the retraces are lost, as with [`Machine::idle_to_cycle`].
    pub fn pass_time_taking_interrupts(&mut self, at: u64) -> Result<(), Fault> {
        if self.interrupt_mask() >= 1 {
            self.idle_to_cycle(at);
            return Ok(());
        }
        while self.emulated_cycles() < at {
            let next = self.next_retrace_at().min(at);
            self.idle_to_cycle(next);
            self.deliver_interrupts()?;
        }
        Ok(())
    }

    /// Let emulated time pass without executing guest instructions, delivering interrupts as
    /// they come due, until `done(machine)` holds. Fails if nothing deliverable is left to
    /// wait for (a real Mac would hang) or after `timeout_ticks` ticks.
    pub fn idle_until(
        &mut self,
        mut done: impl FnMut(&Machine) -> bool,
        timeout_ticks: u32,
        what: &str,
    ) -> Result<(), Fault> {
        // The deadline is hardware time: guest Ticks stand still while level 1 is masked.
        let deadline = self.retraces() + timeout_ticks;
        loop {
            self.deliver_interrupts()?;
            if done(self) {
                return Ok(());
            }
            if self.retraces() >= deadline {
                return Err(Fault::Misuse {
                    trap: None,
                    message: format!(
                        "{what}: still waiting after {timeout_ticks} ticks (would hang a real Mac)"
                    ),
                });
            }
            let mask = self.interrupt_mask();
            let next = self
                .interrupts()
                .pending
                .iter()
                .filter(|p| p.level == 7 || p.level > mask)
                .map(|p| p.at)
                .min();
            // With level 1 open, time moves one retrace at a time so that no VBL is lost.
            let next = match next {
                Some(at) if mask < 1 => Some(at.min(self.next_retrace_at())),
                other => other,
            };
            match next {
                Some(at) if at > self.emulated_cycles() => self.idle_to_cycle(at),
                Some(_) => {}
                // The VBL keeps counting Ticks: worth waiting for when tick hooks (VBL
                // tasks) run or the caller waits for Ticks themselves.
                None if mask < 1
                    && (!self.interrupts().tick_hooks.is_empty()
                        || self.interrupts().waiting_for_ticks) =>
                {
                    self.advance_ticks(1)
                }
                None => {
                    let masked: Vec<&str> =
                        self.interrupts().pending.iter().map(|p| p.name).collect();
                    return Err(Fault::Misuse {
                        trap: None,
                        message: if masked.is_empty() {
                            format!(
                                "{what}: waiting, but nothing is pending that could finish it (would hang a real Mac)"
                            )
                        } else {
                            format!(
                                "{what}: waiting with the interrupt mask at {mask}, which blocks {} (would hang a real Mac)",
                                masked.join(", ")
                            )
                        },
                    });
                }
            }
        }
    }
}
