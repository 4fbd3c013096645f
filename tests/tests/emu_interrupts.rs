//! Scheduled interrupts, tick hooks and idle waiting (`ferrite_emu::interrupts`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use ferrite_emu::{CpuModel, Fault, Machine};
use retro68_build::asm::assemble_flat_supervisor;

const SOURCE: &str = r#"
        .text
| spin(n): count down n, then return how often `counter` was bumped by interrupts.
        .globl spin
spin:   move.l  4(%sp),%d1
1:      subq.l  #1,%d1
        bne.s   1b
        move.l  counter,%d0
        rts
| masked_spin(n): the same with the interrupt mask at 7 (level 1..6 held off).
        .globl masked_spin
masked_spin:
        move.w  %sr,-(%sp)
        ori.w   #0x0700,%sr
        move.l  6(%sp),%d1
1:      subq.l  #1,%d1
        bne.s   1b
        move.l  counter,%d0
        move.w  (%sp)+,%sr
        rts
| masked_ticks(n): spin n times with level 1 masked; D0 = how far Ticks moved meanwhile.
        .globl masked_ticks
masked_ticks:
        move.w  %sr,-(%sp)
        ori.w   #0x0100,%sr
        andi.w  #0xF9FF,%sr             | mask = 1: the VBL is held off
        move.l  0x16A,%d0
        move.l  6(%sp),%d1
1:      subq.l  #1,%d1
        bne.s   1b
        sub.l   0x16A,%d0               | read Ticks before the mask drops
        neg.l   %d0
        move.w  (%sp)+,%sr
        rts
| delay(n, mask): _Delay n ticks with the interrupt mask at `mask`; D0 = Ticks moved.
        .globl delay
delay:  move.w  %sr,-(%sp)
        move.l  10(%sp),%d0
        lsl.w   #8,%d0
        move.w  %sr,%d1
        andi.w  #0xF8FF,%d1
        or.w    %d0,%d1
        move.w  %d1,%sr
        move.l  0x16A,%d1
        movea.l 6(%sp),%a0
        move.l  %d1,-(%sp)
        .short  0xA03B                  | _Delay
        sub.l   (%sp)+,%d0
        move.w  (%sp)+,%sr
        rts
| bump: the "completion routine" an interrupt calls; trashes d0-d2/a0-a1 freely.
        .globl bump
bump:   addq.l  #1,counter
        moveq   #-1,%d0
        moveq   #-1,%d1
        move.l  %d1,%a0
        move.w  %sr,%d2
        move.w  %d2,level
        rts
| alloc(n): _NewPtr(n); D0 = the pointer. alloc_d0: the same with n in D0.
        .globl alloc, alloc_d0
alloc:  move.l  4(%sp),%d0
alloc_d0:
        .short  0xA11E
        move.l  %a0,%d0
        rts
| read_a0: _Read of the PB at A0, synchronous.
        .globl read_a0
read_a0:
        .short  0xA002
        rts
| install_dt: _DTInstall(dt_record); D0 = its result.
        .globl install_dt
install_dt:
        lea     dt_record,%a0
        .short  0xA082
        rts
| dt_task: records A1 and SR, then waits 2 ticks with _Delay (Ticks advance: interrupts on).
        .globl dt_task
dt_task:
        move.l  %a1,dt_parm
        move.w  %sr,dt_sr
        movea.l #2,%a0
        .short  0xA03B
        move.l  %d0,dt_ticks
        rts
        .data
        .globl dt_record, dt_parm, dt_sr, dt_ticks
dt_record:
        .long   0
        .short  7
        .short  0
        .long   dt_task
        .long   0x12345678
        .long   0
dt_parm: .long 0
dt_ticks: .long 0
dt_sr:  .short 0
        .globl counter
        .bss
counter: .long 0
        .globl level
level:  .word 0
"#;

fn machine(cpu: CpuModel) -> Machine {
    let img = assemble_flat_supervisor("interrupts", SOURCE).expect("assembles");
    let mut m = Machine::new(cpu);
    m.load(&img).unwrap();
    m
}

fn bump_interrupt(m: &mut Machine, delay: u64, level: u8) {
    let bump = m.export_address("bump").unwrap();
    m.schedule_interrupt(
        delay,
        level,
        "test bump",
        Box::new(move |m: &mut Machine| {
            m.call_with_registers(bump, &[], ferrite_emu::Preserved::MAC_OS)?;
            Ok(())
        }),
    );
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn interrupt_runs_guest_code_between_instructions_and_restores_the_context() {
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        let mut m = machine(cpu);
        bump_interrupt(&mut m, 1000, 2);
        bump_interrupt(&mut m, 5000, 2);
        let r = m.call("spin", &[20_000]).unwrap();
        assert_eq!(r.d0, 2, "both interrupts ran during the loop on {cpu}");
        let level = m.read_u16(m.export_address("level").unwrap());
        assert_eq!(
            (level >> 8) & 7,
            2,
            "the handler ran with the mask at its level: SR={level:04X}"
        );
        assert!(m.pending_interrupts().is_empty());
        assert_eq!(m.interrupts_delivered(), 2);
    }
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn masked_interrupt_waits_until_the_mask_drops() {
    let mut m = machine(CpuModel::M68040);
    bump_interrupt(&mut m, 10, 3);
    let r = m.call("masked_spin", &[5_000]).unwrap();
    assert_eq!(r.d0, 0, "held off while SR mask is 7");
    // Delivered once the mask came back down (at the RTS boundary or later).
    let counter = m.export_address("counter").unwrap();
    m.call("spin", &[10]).unwrap();
    assert_eq!(m.read_u32(counter), 1);
    // A level-7 interrupt is not maskable.
    bump_interrupt(&mut m, 10, 7);
    let r = m.call("masked_spin", &[5_000]).unwrap();
    assert_eq!(r.d0, 2, "NMI taken under mask 7");
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn idle_until_delivers_due_interrupts_and_fails_when_nothing_can_finish() {
    let mut m = machine(CpuModel::M68000);
    let counter = m.export_address("counter").unwrap();
    bump_interrupt(&mut m, 2_000_000, 2);
    let t0 = m.emulated_cycles();
    m.idle_until(|m| m.read_u32(counter) == 1, 600, "test wait")
        .unwrap();
    assert!(
        m.emulated_cycles() >= t0 + 2_000_000,
        "time jumped to the interrupt"
    );
    let err = m
        .idle_until(|m| m.read_u32(counter) == 2, 600, "test wait")
        .unwrap_err();
    assert!(
        matches!(err, Fault::Misuse { .. }) && format!("{err:?}").contains("nothing is pending"),
        "{err:?}"
    );
}

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn tick_hooks_run_once_per_tick_at_level_1() {
    let mut m = machine(CpuModel::M68040);
    let seen = Arc::new(AtomicU32::new(0));
    let s2 = seen.clone();
    m.add_tick_hook(
        "count",
        Arc::new(move |m: &mut Machine| {
            assert_eq!(m.interrupt_mask(), 1);
            assert!(m.at_interrupt_level());
            s2.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }),
    );
    let t0 = m.ticks();
    m.call("spin", &[400_000]).unwrap();
    let passed = m.ticks() - t0;
    assert!(passed >= 2, "the loop spans ticks ({passed})");
    assert_eq!(seen.load(Ordering::Relaxed), passed);
    m.idle_until(|m| m.ticks() >= t0 + passed + 5, 100, "ticks")
        .unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), passed + 5);
}

/// `Ticks` is counted by the level-1 VBL interrupt: it stands still while level 1 is masked
/// (and the retraces missed are lost, not replayed), and `_Delay` with level 1 masked fails
/// the run as the hang it would be on a Mac; unmasked, `_Delay` waits as long as asked.
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn ticks_stop_while_the_vbl_is_masked_and_delay_there_is_a_hang() {
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        let mut m = machine(cpu);
        let r0 = m.retraces();
        let moved = m.call("masked_ticks", &[400_000]).unwrap().d0;
        let retraces = m.retraces() - r0;
        assert!(retraces >= 3, "{cpu}: the loop spans retraces ({retraces})");
        assert_eq!(moved, 0, "{cpu}: Ticks moved while level 1 was masked");
        // Unmasked again: one VBL was pending, the others are lost.
        let t0 = m.ticks();
        m.call("spin", &[10]).unwrap();
        assert!(m.ticks() - t0 <= 1, "{cpu}: missed retraces replayed");
        // _Delay at mask 0 waits; at mask 1 or 2 it is a hang.
        let waited = m.call("delay", &[10, 0]).unwrap().d0;
        assert_eq!(waited, 10, "{cpu}");
        for mask in [1, 2] {
            let e = m.call("delay", &[10, mask]).unwrap_err();
            let text = format!("{e}");
            assert!(
                text.contains("_Delay waits 10 ticks at interrupt level"),
                "{cpu}: {text}"
            );
        }
    }
}

/// Run the register-based `routine` (with D0 = `d0`, A0 = `a0`) from a level-2 interrupt
/// during a spin loop; the run's error, if any.
fn from_an_interrupt(m: &mut Machine, routine: &str, d0: u32, a0: u32) -> Option<String> {
    let at = m.export_address(routine).unwrap();
    m.schedule_interrupt(
        1000,
        2,
        "test call",
        Box::new(move |m: &mut Machine| {
            m.call_with_registers(at, &[(0, d0), (8, a0)], ferrite_emu::Preserved::MAC_OS)?;
            Ok(())
        }),
    );
    m.call("spin", &[20_000]).err().map(|e| format!("{e}"))
}

/// Code at interrupt time may not allocate, move or purge memory (IM Memory, appendix A) nor
/// make a synchronous Device or File Manager call (it waits for a queue that cannot move while
/// the interrupt runs): the emulated Mac fails the run naming the call. The same calls at
/// application level are fine.
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn memory_manager_and_synchronous_io_at_interrupt_time_fail_the_run() {
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        let mut m = machine(cpu);
        m.install_mac_os();
        let p = m.call("alloc", &[64]).unwrap().d0;
        assert_ne!(p, 0, "{cpu}: _NewPtr at application level");
        let e = from_an_interrupt(&mut m, "alloc_d0", 64, 0).expect("the run fails");
        assert!(e.contains("_NewPtr at interrupt time"), "{cpu}: {e}");

        let mut m = machine(cpu);
        m.install_mac_os();
        let e = from_an_interrupt(&mut m, "read_a0", 0, 0x1000).expect("the run fails");
        assert!(
            e.contains("synchronous _Read at interrupt time"),
            "{cpu}: {e}"
        );
    }
}

/// `_DTInstall` from an interrupt handler: the task runs when the interrupt ends, with A1 =
/// `dtParm` and the mask at 0, so `Ticks` advance and a `_Delay` inside it returns (IM
/// Processes ch. 6). On the 68000 — the model's Plus under System 6, which has no Deferred
/// Task Manager — the trap is unimplemented.
#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn deferred_tasks_run_after_the_interrupt_with_interrupts_enabled() {
    for cpu in [CpuModel::M68000, CpuModel::M68040] {
        let mut m = machine(cpu);
        m.install_mac_os();
        let r = from_an_interrupt(&mut m, "install_dt", 0, 0);
        if cpu == CpuModel::M68000 {
            let e = r.expect("no _DTInstall on the Plus under System 6");
            assert!(e.contains("DTInstall"), "{cpu}: {e}");
            continue;
        }
        assert_eq!(r, None, "{cpu}");
        assert_eq!(ferrite_emu::deferred_tasks::tasks_run(&mut m), 1, "{cpu}");
        let at = |m: &Machine, s: &str| m.export_address(s).unwrap();
        assert_eq!(
            m.read_u32(at(&m, "dt_parm")),
            0x1234_5678,
            "{cpu}: A1 = dtParm"
        );
        assert_eq!((m.read_u16(at(&m, "dt_sr")) >> 8) & 7, 0, "{cpu}: mask 0");
        assert!(
            m.read_u32(at(&m, "dt_ticks")) >= 2,
            "{cpu}: _Delay returned"
        );
    }
}
