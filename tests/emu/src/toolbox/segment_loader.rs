//! Segment Loader model: launching an application the way the Finder would (mac-facts §12.1–12.3).
//!
//! [`Machine::launch_application`] reads `CODE` 0, allocates the A5 world, copies the jump
//! table to A5 + `CurJTOffset` (32), sets `CurrentA5`, `CurStackBase`, `CurApName`,
//! `CurJTOffset` and `CurMap`, and calls **jump-table entry 0 + 2**, which executes
//! `move.w #1,-(sp); _LoadSeg`. `_LoadSeg` loads and locks `CODE` n, rewrites every entry
//! the segment's header claims into the loaded form (`seg, jmp abs.l`), flushes the
//! instruction cache for the segment and the table, and resumes at the patched entry + 2.
//! `_ExitToShell` ends the run cleanly (back to the "Finder"); returning from the entry point
//! instead is a fault ([`RETURN_FROM_MAIN_IS_EXIT`]).
//!
//! Modelling choices (not settled by docs/mac-facts.md):
//! * **The partition** (docs/emulated-mac.md, "The application's partition and stack"): the
//!   application zone is cut to a partition of [`Toolbox::partition`](super::Toolbox) bytes
//!   (default: the `SIZE -1` resource's minimum size, the least a Finder may give it; the
//!   whole application area without a `SIZE`). The A5 world (below A5 + above A5 bytes, left
//!   unzeroed except the application parameters) sits at the partition's top; the stack
//!   grows down from just below it (`CurStackBase`); `ApplLimit` = `CurStackBase` −
//!   the machine's default stack (`DefltStack`: 8 KB on the 68000's compact Macs, 24 KB on
//!   Color QuickDraw Macs), and the heap ends there. `_SetApplLimit` moves the limit (the
//!   heap cannot shrink once `_MaxApplZone` grew it); SP below `ApplLimit` is system error
//!   28 ([`crate::machine::StackWatch`]). [`AppRun::stack`] reports the stack's use.
//! * `_LoadSeg` must be executed from a jump-table entry (at entry + 6, as the unloaded near
//!   entry does); how the real one finds the entry is UNVERIFIED (mac-facts §12.3).

use super::resources::{self, APP_REF_NUM, CUR_MAP, ResEntry};
use super::{Frame, Ret, Seen};
use crate::error::{Fault, RunError};
use crate::loader::Preserved;
use crate::lowmem;
use crate::machine::Machine;
use crate::memory_manager::{STATE_LOCKED, STATE_RESOURCE, ZoneId};
use crate::traps::TrapCall;

/// `CurStackBase` (mac-facts §9.1).
pub const CUR_STACK_BASE: u32 = 0x908;
/// `CurApName` (Str31, mac-facts §9.1).
pub const CUR_AP_NAME: u32 = 0x910;
/// `CurJTOffset` (word, mac-facts §12.1).
pub const CUR_JT_OFFSET: u32 = 0x934;
/// `CurrentA5` (mac-facts §9.1).
pub const CURRENT_A5: u32 = 0x904;
/// Bytes of application parameters above A5 (mac-facts §12.1).
pub const APP_PARAMS_LEN: u32 = 32;
/// Does an application's entry point returning (RTS) count as quitting? docs/mac-facts.md does
/// not say what a real launch leaves as return address; we fail the run instead.
pub const RETURN_FROM_MAIN_IS_EXIT: bool = false;

// CODE 0 fields (mac-facts §12.1).
const C0_ABOVE_A5: usize = 0;
const C0_BELOW_A5: usize = 4;
const C0_JT_LEN: usize = 8;
const C0_JT_OFFSET: usize = 12;
const C0_JT: usize = 16;
/// `move.w #imm,-(sp)`.
const MOVE_W_IMM_PUSH: u16 = 0x3F3C;
/// `_LoadSeg`.
const LOAD_SEG: u16 = 0xA9F0;
/// `jmp abs.l`.
const JMP_ABS_L: u16 = 0x4EF9;

/// What to launch.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The application's name (Mac Roman, ≤ 31 bytes): `CurApName`.
    pub name: Vec<u8>,
    /// Its resource fork.
    pub fork: Vec<u8>,
    /// The user's actions.
    pub script: Vec<super::Input>,
}

/// How a launched application ended.
#[derive(Debug, Clone)]
pub struct AppRun {
    /// What the user saw.
    pub screen: super::ScreenRecord,
    /// Scripted input the application never consumed.
    pub unused_input: Vec<super::Input>,
    /// A5 of the application.
    pub a5: u32,
    /// Instructions executed.
    pub instructions: u64,
    /// The stack: its size and deepest use.
    pub stack: StackReport,
}

/// How much of its stack an application used ([`AppRun::stack`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackReport {
    /// The partition's size in bytes.
    pub partition: u32,
    /// `CurStackBase`.
    pub base: u32,
    /// The stack's size when the application quit: `CurStackBase` − `ApplLimit`.
    pub size: u32,
    /// The most bytes below `CurStackBase` SP ever reached.
    pub deepest: u32,
}

impl StackReport {
    /// Bytes of the stack never used.
    pub fn unused(&self) -> u32 {
        self.size.saturating_sub(self.deepest)
    }
}

impl std::fmt::Display for StackReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "stack high-water: {} of {} bytes used, {} unused (partition {} KB)",
            self.deepest,
            self.size,
            self.unused(),
            self.partition >> 10
        )
    }
}

/// `DefltStack` ($322): the default stack size the machine gives an application.
pub const DEFLT_STACK: u32 = 0x322;
/// The default stack of a Mac without Color QuickDraw (Plus, SE, Classic, Portable): 8 KB.
pub const STACK_COMPACT: u32 = 8 << 10;
/// The default stack of a Color QuickDraw Mac (the 68020+ models here): 24 KB.
pub const STACK_COLOR: u32 = 24 << 10;

/// Segment Loader state.
#[derive(Default)]
pub struct SegmentState {
    pub a5: u32,
    pub a5_block: u32,
    pub jt_len: u32,
    /// Loaded segments: number → handle.
    pub segments: Vec<(i16, u32)>,
    pub exited: bool,
    exit_pc: u32,
    exit_sp: u32,
    running: bool,
    /// `_MaxApplZone` ran: the heap reaches `ApplLimit` and cannot shrink.
    pub zone_maxed: bool,
}

fn ds(e: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]])
}

impl Machine {
    /// Launch an application from its resource fork and run it until `_ExitToShell`.
    pub fn launch_application(&mut self, app: &Launch) -> Result<AppRun, RunError> {
        self.install_toolbox();
        let setup = |m: &Machine, msg: String| RunError::setup(m.model(), msg);
        if self.depth != 0 || self.toolbox().sl.running {
            return Err(setup(
                self,
                "launch_application runs at the top level, one application at a time".into(),
            ));
        }
        if app.name.is_empty() || app.name.len() > 31 {
            return Err(setup(self, "an application name has 1..=31 bytes".into()));
        }
        let entries: Vec<ResEntry> = resources::parse_fork(&app.fork)
            .map_err(|e| setup(self, format!("resource fork: {e}")))?;
        let Some(code0) = entries
            .iter()
            .find(|e| &e.rtype == b"CODE" && e.id == 0)
            .map(|e| e.data.clone())
        else {
            return Err(setup(self, "the application has no CODE 0".into()));
        };
        if code0.len() < C0_JT {
            return Err(setup(
                self,
                format!(
                    "CODE 0 is {} bytes, shorter than its 16-byte header",
                    code0.len()
                ),
            ));
        }
        let (above, below, jt_len, jt_off) = (
            ds(&code0, C0_ABOVE_A5),
            ds(&code0, C0_BELOW_A5),
            ds(&code0, C0_JT_LEN),
            ds(&code0, C0_JT_OFFSET),
        );
        if jt_off != 32
            || jt_len == 0
            || jt_len % 8 != 0
            || above != APP_PARAMS_LEN + jt_len
            || code0.len() as u32 != C0_JT as u32 + jt_len
        {
            return Err(setup(
                self,
                format!(
                    "CODE 0 is inconsistent: above A5 {above}, below A5 {below}, jump table {jt_len} bytes at offset {jt_off}, resource {} bytes (mac-facts §12.1: offset 32, above = 32 + table, 16 + table bytes)",
                    code0.len()
                ),
            ));
        }
        // A launch starts with an empty application heap (`InitApplZone`): nothing of an
        // earlier application's heap survives, nor its windows, menus or dialogs.
        {
            let (mm, bus) = self.memory_manager_and_bus();
            mm.reinit_zone(bus, ZoneId::Application);
            let tb = self.toolbox();
            tb.wm = Default::default();
            tb.mm = Default::default();
            tb.dm = Default::default();
        }
        {
            let tb = self.toolbox();
            tb.rm.entries = entries;
            tb.rm.loaded.clear();
            tb.script = app.script.iter().cloned().collect();
            tb.screen = Default::default();
        }
        let (block, stack_base, partition) = self.make_partition(below + above)?;
        let a5 = block + below;
        self.bus_mut().fill_host(a5, APP_PARAMS_LEN, 0);
        let jt = a5 + jt_off;
        self.write_code(jt, &code0[C0_JT..]);
        let top = self.layout().stack.1;
        self.write_u32(CURRENT_A5, a5);
        self.write_u32(CUR_STACK_BASE, stack_base);
        let mut name = app.name.clone();
        name.resize(31, 0);
        self.write_u8(CUR_AP_NAME, app.name.len() as u8);
        self.write_bytes(CUR_AP_NAME + 1, &name);
        self.write_u16(CUR_JT_OFFSET, jt_off as u16);
        self.write_u16(CUR_MAP, APP_REF_NUM);
        let sentinel = self.sentinel(self.depth);
        {
            let sl = &mut self.toolbox().sl;
            *sl = SegmentState {
                a5,
                a5_block: block,
                jt_len,
                exit_pc: sentinel,
                exit_sp: top,
                running: true,
                ..Default::default()
            };
        }
        // The entry runs on the partition's stack: a start-up stub in a scrap block of the
        // system heap sets SP = CurStackBase and calls the entry; should the entry return,
        // the stub puts the machine's SP back and returns to the sentinel.
        let boot = self
            .new_ptr(ZoneId::System, 20, false)
            .map_err(|e| setup(self, format!("no room for the start-up stub: {e}")))?;
        let mut stub = vec![0x2E, 0x7C];
        stub.extend_from_slice(&stack_base.to_be_bytes()); // movea.l #base,sp
        stub.extend_from_slice(&[0x4E, 0xB9]);
        stub.extend_from_slice(&(jt + 2).to_be_bytes()); // jsr entry
        stub.extend_from_slice(&[0x2E, 0x7C]);
        stub.extend_from_slice(&(top - 4).to_be_bytes()); // movea.l #machine SP,sp
        stub.extend_from_slice(&[0x4E, 0x75]); // rts (to the sentinel)
        self.write_code(boot, &stub);
        self.watch_stack(Some(stack_base));
        let r = self.call_with_registers(boot, &[], Preserved::NONE);
        let watch = self.stack_watch();
        self.watch_stack(None);
        self.toolbox().sl.running = false;
        let limit = self.read_u32(lowmem::APPL_LIMIT);
        self.end_partition();
        let _ = self.dispose_ptr(boot);
        let (res, _) = r?;
        if !self.toolbox().sl.exited && !RETURN_FROM_MAIN_IS_EXIT {
            let f = Fault::Misuse {
                trap: None,
                message:
                    "the application returned from its entry point instead of calling _ExitToShell"
                        .into(),
            };
            return Err(self.fail(f, jt + 2));
        }
        let tb = self.toolbox();
        Ok(AppRun {
            screen: tb.screen.clone(),
            unused_input: tb.script.iter().cloned().collect(),
            a5,
            instructions: res.instructions,
            stack: StackReport {
                partition,
                base: stack_base,
                size: stack_base.saturating_sub(limit),
                deepest: watch.map_or(0, |w| stack_base - w.lowest),
            },
        })
    }

    /// Cut the application zone to the partition: `(A5 world block, CurStackBase, partition
    /// size)`, with `ApplLimit`, `HeapEnd` and `DefltStack` set.
    fn make_partition(&mut self, a5_world: u32) -> Result<(u32, u32, u32), RunError> {
        let setup = |m: &Machine, msg: String| RunError::setup(m.model(), msg);
        let size_min = self.toolbox().rm.entries.iter().find_map(|e| {
            (&e.rtype == b"SIZE" && e.id == -1 && e.data.len() >= 10).then(|| ds(&e.data, 6))
        });
        let (start, full_end) = self.layout().application_heap;
        let available = full_end - start;
        let partition = self
            .toolbox()
            .partition
            .or(size_min)
            .unwrap_or(available)
            .min(available);
        let header = self.memory_manager().zone(ZoneId::Application).header;
        let top = (start + partition) & !15;
        let block = (top - a5_world) & !15;
        let stack_base = block;
        let deflt = if self.model() == crate::CpuModel::M68000 {
            STACK_COMPACT
        } else {
            STACK_COLOR
        };
        let limit = stack_base
            .checked_sub(deflt)
            .filter(|&l| l > header + 0x4000)
            .ok_or_else(|| {
                setup(
                    self,
                    format!(
                        "a {partition}-byte partition leaves no heap below a {deflt}-byte stack"
                    ),
                )
            })?;
        self.set_appl_limit_zone(limit).map_err(|e| {
            setup(
                self,
                format!("the application zone cannot be cut to the partition: {e}"),
            )
        })?;
        self.write_u32(DEFLT_STACK, deflt);
        Ok((block, stack_base, partition))
    }

    /// Set `ApplLimit` and end the application zone there (`HeapEnd`).
    fn set_appl_limit_zone(&mut self, limit: u32) -> Result<(), String> {
        let header = self.memory_manager().zone(ZoneId::Application).header;
        let end = self.memory_manager().zone(ZoneId::Application).end;
        let (mm, bus) = self.memory_manager_and_bus();
        if limit > end {
            mm.unlimit_zone(bus, ZoneId::Application);
        }
        mm.limit_zone(bus, ZoneId::Application, limit - header)?;
        let end = self.memory_manager().zone(ZoneId::Application).end;
        self.write_u32(lowmem::APPL_LIMIT, limit);
        self.write_u32(lowmem::HEAP_END, end);
        Ok(())
    }

    /// After a run the partition stays as the application left it (its A5 world and heap
    /// can be inspected); the next launch empties the zone and gives it its whole range.
    fn end_partition(&mut self) {}
}

/// Whether `addr` lies in one of the running application's loaded `CODE` segments.
fn in_application_code(m: &mut Machine, addr: u32) -> bool {
    let segments = m.toolbox().sl.segments.clone();
    segments.iter().any(|&(_, h)| {
        let p = m.read_u32(h);
        let size = m.memory_manager().handle_size(m.bus(), h).unwrap_or(0);
        (p..p.wrapping_add(size)).contains(&addr)
    })
}

/// The A5 world rule, checked at every Toolbox trap: while an application runs, a Toolbox
/// trap called from its code must find A5 = `CurrentA5`. QuickDraw and every manager that
/// draws find the application's globals through A5 (`thePort` at 0(A5)); with any other A5
/// a real Mac writes through a stray pointer (Inside Macintosh: Memory, "The A5 world";
/// Inside Macintosh: Imaging With QuickDraw, "QuickDraw global variables"). Code that is
/// not the application's (a driver calling `_SCSIDispatch` at interrupt time) is not held
/// to it; an application's completion routine is, as soon as it calls the Toolbox.
pub(crate) fn check_a5_world(m: &mut Machine, call: &TrapCall) -> Result<(), Fault> {
    if !m.toolbox().sl.running {
        return Ok(());
    }
    let caller = if call.via_stub {
        m.read_u32(m.sp())
    } else {
        call.pc
    };
    if !in_application_code(m, caller) {
        return Ok(());
    }
    let current = m.read_u32(CURRENT_A5);
    let a5 = m.a(5);
    if a5 != current {
        return Err(Fault::misuse(
            call.word,
            format!(
                "the application called {} with A5 = ${a5:08X}, not CurrentA5 = ${current:08X}: \
                 the Toolbox finds QuickDraw's globals through A5, so this writes through a stray \
                 pointer on a real Mac (keep A5 = CurrentA5 whenever the Toolbox runs; compiled \
                 code must not use A5 as a general register: LLVM's reserve-a5)",
                call.name
            ),
        ));
    }
    Ok(())
}

/// `_LoadSeg(segID: INTEGER)`, executed from an unloaded jump-table entry.
fn load_seg(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[2], 0)?;
    let seg = f.int(m, 0);
    let (a5, jt_len) = (m.toolbox().sl.a5, m.toolbox().sl.jt_len);
    let jt = a5 + m.read_u16(CUR_JT_OFFSET) as u32;
    let at = call.pc;
    if a5 == 0 || at < jt + 6 || at >= jt + jt_len || (at - jt) % 8 != 6 {
        return Err(f.misuse(format!("executed at ${at:08X}, not at +6 of a jump-table entry (the model loads segments only through the jump table)")));
    }
    let entry = at - 6;
    if m.read_u16(entry + 2) != MOVE_W_IMM_PUSH || m.read_u16(entry + 4) as i16 != seg {
        return Err(f.misuse(format!(
            "the jump-table entry at ${entry:08X} does not push segment {seg}"
        )));
    }
    let h = match m.toolbox().sl.segments.iter().find(|(s, _)| *s == seg) {
        Some(&(_, h)) => h,
        None => {
            let Some(h) = resources::load(m, *b"CODE", seg)? else {
                return Err(f.misuse(format!("the application has no CODE {seg}")));
            };
            let (mm, bus) = m.memory_manager_and_bus();
            mm.set_handle_state(bus, h, STATE_LOCKED | STATE_RESOURCE)
                .map_err(Fault::setup)?;
            let size = mm.handle_size(bus, h).map_err(Fault::setup)?;
            let p = m.read_u32(h);
            m.flush_icache_range(p, size);
            m.toolbox().sl.segments.push((seg, h));
            h
        }
    };
    let p = m.read_u32(h);
    let size = m
        .memory_manager()
        .handle_size(m.bus(), h)
        .map_err(Fault::setup)?;
    if size < 4 {
        return Err(f.misuse(format!(
            "CODE {seg} is {size} bytes, shorter than its near header"
        )));
    }
    let first = m.read_u16(p) as u32;
    let count = m.read_u16(p + 2) as u32;
    if first == 0xFFFF {
        return Err(f.misuse(format!(
            "CODE {seg} has a far (32-bit) header; the model loads near segments only"
        )));
    }
    if !first.is_multiple_of(8)
        || first + 8 * count > jt_len
        || !(first..first + 8 * count).contains(&(entry - jt))
    {
        return Err(f.misuse(format!("CODE {seg}'s header claims entries {first:#x}+{count}×8, which do not hold the entry being loaded (or pass the {jt_len}-byte table)")));
    }
    for k in 0..count {
        let e = jt + first + 8 * k;
        let off = m.read_u16(e) as u32;
        if m.read_u16(e + 2) == JMP_ABS_L {
            continue; // already loaded
        }
        if m.read_u16(e + 2) != MOVE_W_IMM_PUSH
            || m.read_u16(e + 4) as i16 != seg
            || m.read_u16(e + 6) != LOAD_SEG
        {
            return Err(f.misuse(format!(
                "jump-table entry at ${e:08X} is not an unloaded entry of segment {seg}"
            )));
        }
        if 4 + off >= size {
            return Err(f.misuse(format!(
                "entry at ${e:08X} names offset {off:#x}, past CODE {seg}'s {size} bytes"
            )));
        }
        m.write_u16(e, seg as u16);
        m.write_u16(e + 2, JMP_ABS_L);
        m.write_u32(e + 4, p + 4 + off);
        m.flush_icache_range(e, 8);
    }
    f.ret(m, call, Ret::None)?;
    m.set_pc(entry + 2);
    Ok(())
}

/// `_UnloadSeg(routineAddr: Ptr)`: the model keeps every segment loaded (segment 1 holds
/// the globals of our applications and must never move); the address must lie in one.
fn unload_seg(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let addr = f.long(m, 0);
    let segs = m.toolbox().sl.segments.clone();
    let inside = segs.iter().any(|&(_, h)| {
        let p = m.read_u32(h);
        let size = m.memory_manager().handle_size(m.bus(), h).unwrap_or(0);
        (p..p + size).contains(&addr)
    });
    if !inside {
        return Err(f.misuse(format!("${addr:08X} is not in a loaded segment")));
    }
    f.ret(m, call, Ret::None)
}

/// `_ExitToShell`: back to the Finder; the run ends here.
fn exit_to_shell(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 0)?;
    f.ret(m, call, Ret::None)?;
    let sl = &mut m.toolbox().sl;
    if !sl.running {
        return Err(Fault::misuse(
            call.word,
            "_ExitToShell with no application launched by launch_application",
        ));
    }
    sl.exited = true;
    let (pc, sp) = (sl.exit_pc, sl.exit_sp);
    m.toolbox().screen.seen.push(Seen::Exit);
    m.set_sp(sp);
    m.set_pc(pc);
    Ok(())
}

/// `_MaxApplZone` (OS trap, no arguments): the model's application zone already reaches
/// `ApplLimit`; from now on it cannot shrink (`_SetApplLimit` below it fails).
fn max_appl_zone(m: &mut Machine, _call: &mut TrapCall) -> Result<(), Fault> {
    m.toolbox().sl.zone_maxed = true;
    m.set_d(0, 0);
    Ok(())
}

/// `_SetApplLimit` (OS trap, A0 = the new limit; D0 = the result): the heap may grow up to
/// the new limit, and the stack down to it. A limit above `CurStackBase`, inside the zone's
/// blocks, or below the heap `_MaxApplZone` already grew (a real heap does not shrink back)
/// is refused with `memFullErr` and changes nothing.
fn set_appl_limit(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let limit = m.a(0) & !1;
    let base = m.read_u32(CUR_STACK_BASE);
    let end = m.memory_manager().zone(ZoneId::Application).end;
    let maxed = m.toolbox().sl.zone_maxed;
    let ok = m.toolbox().sl.running
        && limit < base
        && !(maxed && limit < end)
        && m.set_appl_limit_zone(limit).is_ok();
    let err: i16 = if ok {
        0
    } else {
        crate::memory_manager::MEM_FULL_ERR
    };
    m.set_d(0, err as i32 as u32);
    m.write_u16(lowmem::MEM_ERR, err as u16);
    let _ = call;
    Ok(())
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA9F0, "LoadSeg", load_seg);
    m.register_trap(0xA9F1, "UnloadSeg", unload_seg);
    m.register_trap(0xA9F4, "ExitToShell", exit_to_shell);
    m.register_trap(0xA063, "MaxApplZone", max_appl_zone);
    m.register_trap(0xA02D, "SetApplLimit", set_appl_limit);
}
