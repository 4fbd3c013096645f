//! The emulated Mac: a 68k CPU, RAM, low memory, a trap dispatcher, a Memory Manager, and
//! the run loop that ties them together.
//!
//! # Memory layout (defaults for 8 MB; see [`Layout`])
//! | range | use |
//! |---|---|
//! | `$0000–$03FF` | exception vectors, every one pointing into the catcher |
//! | `$0100–$2FFF` | low-memory globals ([`crate::lowmem`]) |
//! | `$3000–$31FF` | exception catcher: vector *n* → `$3000 + 2n` (`ILLEGAL` words) |
//! | `$3200–$32FF` | call sentinels (return addresses of host-initiated calls) |
//! | `$3300–$33FF` | host routines ([`Machine::add_host_routine`]), e.g. `JIODone` |
//! | `$3400–$47FF` | trap stubs returned by `_GetTrapAddress` (OS, then Toolbox) |
//! | `$10000–` start of the system heap | free for [`Machine::load_at`] |
//! | system heap | default 1 MB–3 MB |
//! | application heap | up to the A5 world |
//! | A5 world (32 KB) | `CurrentA5` = its middle |
//! | stack (256 KB) | up to the end of RAM; SP starts at `MemTop` |
//!
//! # CPU state
//! The CPU runs in supervisor mode (as the classic Mac OS does) with interrupts enabled at
//! level 0; nothing raises interrupts. The m68k crate's precise `step()` is used for every
//! instruction, so cycle counts are the crate's per-model timing.
//!
//! # How failures are detected
//! * `step()` *surfaces* A-line, F-line, `TRAP #n`, `BKPT` and illegal instructions without
//!   taking their exceptions: A-line goes to the trap dispatcher, the others fail the run.
//! * Other exceptions (bus error, address error, zero divide, CHK, TRAPV, privilege
//!   violation, …) are *taken* inside `step()`: the crate records the vector in
//!   `CpuCore::last_exception_vector`, which the run loop checks after every instruction. The
//!   vector table also points every vector into the catcher, as a second line of defence (a
//!   PC that reaches it fails too).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::time::Duration;

use m68k::{CpuCore, StepResult};

use crate::bus::MacBus;
use crate::cpu::CpuModel;
use crate::error::{ChainSource, Fault, ReturnAddress, RunError};
use crate::loader::LoadedImage;
use crate::lowmem;
use crate::memory_manager::{MemoryManager, ZoneId};
use crate::traps::{self, TrapCall, TrapHandler, TrapTable};

/// `ILLEGAL`: fills the catcher, sentinels and host-routine slots.
const ILLEGAL: u16 = 0x4AFC;
/// `RTS`.
const RTS: u16 = 0x4E75;

/// How to build a [`Machine`].
#[derive(Debug, Clone)]
pub struct MachineConfig {
    /// CPU model.
    pub cpu: CpuModel,
    /// RAM size in bytes (at least 4 MB with the default heap placement).
    pub ram_size: u32,
    /// Start of the system heap zone.
    pub system_heap_start: u32,
    /// Size of the system heap zone.
    pub system_heap_size: u32,
    /// Stack size at the top of RAM.
    pub stack_size: u32,
    /// Instructions one top-level call may execute before it fails as a hang.
    pub instruction_budget: u64,
    /// Fail when the CPU executes a word written after the last instruction-cache flush.
    /// Enforced on every model (the 68000 has no cache, but the same binary runs on 68020+).
    pub enforce_icache_flush: bool,
    /// Refuse writes to `$0–$FF` (NIL-pointer writes).
    pub protect_null_page: bool,
    /// CPU clock for `Ticks` (default per model, [`CpuModel::default_clock_hz`]).
    pub clock_hz: u32,
    /// 24-bit mode: the bus ignores the high byte of addresses, `_StripAddress` clears it, and
    /// the Memory Manager keeps each handle's flags in its master pointer's high byte (see
    /// [`crate::memory_manager`]). Default: true on the 68000 only (a 68020+ set to 24-bit
    /// models a Mac II's HMMU in 24-bit mode: its address mask becomes 24 bits too).
    pub addressing_24bit: bool,
    /// Heap scramble (see [`crate::memory_manager`]): with `Some(seed)`, every Memory Manager
    /// call that may move memory moves every unlocked relocatable block of its zone. Default:
    /// off, or on with [`crate::seed::seed_from_env`] when `FERRITE_HEAP_SCRAMBLE` is set to
    /// a non-empty value other than `0`.
    pub heap_scramble: Option<u64>,
    /// After each top-level call, verify heap guards.
    pub check_heaps_after_call: bool,
    /// After each call, verify SP and the callee-saved registers D2–D7/A2–A6 (C ABI).
    pub check_callee_saved: bool,
}

impl MachineConfig {
    /// Defaults for `cpu`: 8 MB RAM (4 MB on the 68000: a Plus-class Mac's RAM ends where its
    /// ROM begins, at `$400000`), 2 MB system heap at 1 MB, 256 KB stack, budget 200 M.
    pub fn new(cpu: CpuModel) -> MachineConfig {
        MachineConfig {
            cpu,
            ram_size: if cpu == CpuModel::M68000 {
                4 << 20
            } else {
                8 << 20
            },
            system_heap_start: 1 << 20,
            system_heap_size: 2 << 20,
            stack_size: 256 << 10,
            instruction_budget: 200_000_000,
            enforce_icache_flush: true,
            protect_null_page: true,
            clock_hz: cpu.default_clock_hz(),
            addressing_24bit: cpu == CpuModel::M68000,
            heap_scramble: heap_scramble_from_env(),
            check_heaps_after_call: true,
            check_callee_saved: true,
        }
    }
}

/// Environment variable that turns the heap scramble on for every machine built with
/// [`MachineConfig::new`] (the seed is `FERRITE_SEED`'s, [`crate::seed`]).
pub const HEAP_SCRAMBLE_VAR: &str = "FERRITE_HEAP_SCRAMBLE";

fn heap_scramble_from_env() -> Option<u64> {
    match std::env::var(HEAP_SCRAMBLE_VAR) {
        Ok(v) if !v.is_empty() && v != "0" => Some(crate::seed::seed_from_env()),
        _ => None,
    }
}

impl Default for MachineConfig {
    fn default() -> Self {
        MachineConfig::new(CpuModel::M68000)
    }
}

/// Where the machine keeps things in RAM.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub ram_size: u32,
    /// Vector *n* points at `catcher + 2n`.
    pub catcher: u32,
    /// Return addresses for host calls: nesting depth *d* uses `sentinels + 2d`.
    pub sentinels: u32,
    /// Host routine *i* lives at `host_routines + 2i`.
    pub host_routines: u32,
    /// OS trap stubs (`trap; rts`, 4 bytes each, by trap number).
    pub os_stubs: u32,
    /// Toolbox trap stubs.
    pub toolbox_stubs: u32,
    /// `[start, end)` free for [`Machine::load_at`].
    pub free_area: (u32, u32),
    pub system_heap: (u32, u32),
    pub application_heap: (u32, u32),
    /// A5 world `[start, end)`; `CurrentA5` is its middle.
    pub a5_world: (u32, u32),
    /// `[bottom, top)`; SP starts at `top`.
    pub stack: (u32, u32),
}

const MAX_SENTINELS: u32 = 128;
const MAX_HOST_ROUTINES: u32 = 128;

impl Layout {
    fn new(c: &MachineConfig) -> Result<Layout, String> {
        let ram = c.ram_size;
        let stack_top = ram;
        let stack_bottom = stack_top
            .checked_sub(c.stack_size)
            .ok_or("stack larger than RAM")?;
        let a5_end = stack_bottom;
        let a5_start = a5_end.checked_sub(0x8000).ok_or("RAM too small")?;
        let sys_start = c.system_heap_start;
        let sys_end = sys_start
            .checked_add(c.system_heap_size)
            .ok_or("system heap overflows")?;
        if sys_start < 0x1_0000 || !sys_start.is_multiple_of(16) {
            return Err("system heap must start at or above $10000, 16-byte aligned".into());
        }
        if sys_end + 0x1_0000 > a5_start {
            return Err(format!(
                "RAM of {ram} bytes leaves no application heap after a system heap ending at ${sys_end:X}"
            ));
        }
        Ok(Layout {
            ram_size: ram,
            catcher: 0x3000,
            sentinels: 0x3200,
            host_routines: 0x3300,
            os_stubs: 0x3400,
            toolbox_stubs: 0x3800,
            free_area: (0x1_0000, sys_start),
            system_heap: (sys_start, sys_end),
            application_heap: (sys_end, a5_start),
            a5_world: (a5_start, a5_end),
            stack: (stack_bottom, stack_top),
        })
    }

    /// Address of the stub for `word`'s trap number.
    pub fn trap_stub(&self, word: u16) -> u32 {
        if word & 0x0800 == 0 {
            self.os_stubs + 4 * (word & 0xFF) as u32
        } else {
            self.toolbox_stubs + 4 * (word & 0x3FF) as u32
        }
    }

    /// Whether `addr` lies in the trap stubs.
    pub fn is_trap_stub(&self, addr: u32) -> bool {
        (self.os_stubs..self.toolbox_stubs + 4 * 1024).contains(&addr)
    }

    /// The exception vector whose catcher slot is `addr`.
    pub fn catcher_vector(&self, addr: u32) -> Option<u32> {
        (self.catcher..self.catcher + 512)
            .contains(&addr)
            .then(|| (addr - self.catcher) / 2)
    }

    /// `CurrentA5`.
    pub fn current_a5(&self) -> u32 {
        (self.a5_world.0 + self.a5_world.1) / 2
    }
}

/// Counters for speed measurement.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Instructions executed (A-line traps count as one).
    pub instructions: u64,
    /// CPU cycles per the m68k crate's model (HLE traps cost 0).
    pub cycles: u64,
    /// Host time spent inside top-level calls.
    pub host_time: Duration,
    /// A-line traps dispatched to handlers.
    pub traps: u64,
    /// Top-level calls.
    pub calls: u64,
    /// `_SysBeep` calls.
    pub beeps: u32,
    /// Traps dispatched, by handler name.
    pub trap_counts: std::collections::BTreeMap<&'static str, u64>,
}

impl Stats {
    /// Emulated instructions per host second over all calls so far.
    pub fn instructions_per_second(&self) -> f64 {
        let s = self.host_time.as_secs_f64();
        if s > 0.0 {
            self.instructions as f64 / s
        } else {
            0.0
        }
    }
}

/// A routine implemented on the host, reachable at a fixed guest address.
#[derive(Clone)]
struct HostRoutine {
    name: &'static str,
    handler: Option<TrapHandler>,
}

/// The emulated Mac.
pub struct Machine {
    cpu: CpuCore,
    bus: MacBus,
    config: MachineConfig,
    layout: Layout,
    traps: TrapTable,
    mm: MemoryManager,
    pub(crate) images: Vec<LoadedImage>,
    host_routines: Vec<HostRoutine>,
    stats: Stats,
    /// Cycles of emulated time added by `_Delay` etc.
    idle_cycles: u64,
    /// Vertical retraces since start-up: hardware time, whatever the interrupt mask.
    retrace_count: u32,
    next_tick_at: u64,
    /// `Ticks` ($16A) as the guest sees it: counted by the level-1 VBL interrupt, so it stands
    /// still while that interrupt is masked and loses the retraces it missed.
    guest_ticks: u32,
    /// Instructions executed since the current top-level call started.
    pub(crate) run_instructions: u64,
    /// Depth of nested calls (0 = none running).
    pub(crate) depth: u32,
    extensions: HashMap<TypeId, Box<dyn Any + Send>>,
    pub(crate) irq: crate::interrupts::Interrupts,
    /// The ROM's address range `[start, end)`, when a ROM model set one: the run ends when
    /// the PC reaches a call's return address there, and fails on any other ROM address.
    rom_region: Option<(u32, u32)>,
    /// Driver instruction coverage, when `FERRITE_COVERAGE_DIR` is set ([`crate::coverage`]).
    coverage: Option<crate::coverage::Recorder>,
    /// Addresses whose execution is recorded ([`Machine::watch_pcs`]), and those reached.
    pc_watch: Option<(
        std::collections::HashSet<u32>,
        std::collections::BTreeSet<u32>,
    )>,
    /// Cycles and instructions per executed address while a profile is on
    /// ([`Machine::start_pc_profile`]).
    pc_profile: Option<std::collections::BTreeMap<u32, PcCount>>,
    /// Where Ferrite driver images were placed (decoded address, code bytes), in load order.
    ferrite_code: Vec<(u32, u32)>,
    /// The application's stack while one runs ([`Machine::watch_stack`]).
    stack_watch: Option<StackWatch>,
}

/// The running application's stack: its base (`CurStackBase`) and the lowest SP seen. The
/// run loop fails with system error 28 when SP goes below `ApplLimit` ($130): the stack has
/// run into the application heap (docs/emulated-mac.md, "The application's stack").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackWatch {
    pub base: u32,
    pub lowest: u32,
}

/// `dsStknHeap`: the system error the stack sniffer raises when the stack meets the heap.
pub const DS_STKN_HEAP: i16 = 28;

/// What a profile counted at one address ([`Machine::start_pc_profile`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PcCount {
    pub cycles: u64,
    pub instructions: u64,
}

impl Machine {
    /// Record from now on which of `pcs` (bus addresses) the CPU executes; replaces an
    /// earlier watch and forgets its hits. [`Machine::watched_hits`] reads them.
    pub fn watch_pcs(&mut self, pcs: impl IntoIterator<Item = u32>) {
        self.pc_watch = Some((pcs.into_iter().collect(), Default::default()));
    }

    /// Watch the application stack based at `base` (None: stop): every instruction's SP is
    /// compared with the lowest so far, and a new low under `ApplLimit` fails the run.
    pub fn watch_stack(&mut self, base: Option<u32>) {
        self.stack_watch = base.map(|base| StackWatch { base, lowest: base });
    }

    /// The application stack's watch: its base and the lowest SP reached.
    pub fn stack_watch(&self) -> Option<StackWatch> {
        self.stack_watch
    }

    /// A new lowest SP of the watched stack: below `ApplLimit` it is system error 28.
    fn stack_low(&mut self, sp: u32) -> Result<(), Fault> {
        let Some(w) = self.stack_watch.as_mut() else {
            return Ok(());
        };
        w.lowest = sp;
        let base = w.base;
        let limit = self.bus.peek_u32(lowmem::APPL_LIMIT);
        if sp < limit {
            return Err(Fault::Debugger {
                word: 0xA9C9,
                message: format!(
                    "system error {DS_STKN_HEAP} (dsStknHeap): the stack (based at ${base:08X}) \
                     reached ${sp:08X}, below ApplLimit ${limit:08X}: {} bytes used, {} allowed \
                     (the stack ran into the application heap)",
                    base - sp,
                    base.saturating_sub(limit)
                ),
            });
        }
        Ok(())
    }

    /// The watched addresses executed since [`Machine::watch_pcs`].
    pub fn watched_hits(&self) -> std::collections::BTreeSet<u32> {
        self.pc_watch
            .as_ref()
            .map(|(_, hits)| hits.clone())
            .unwrap_or_default()
    }

    /// A machine with the default configuration for `cpu`.
    pub fn new(cpu: CpuModel) -> Machine {
        Machine::with_config(MachineConfig::new(cpu)).expect("default configuration is valid")
    }

    /// A machine with an explicit configuration.
    pub fn with_config(config: MachineConfig) -> Result<Machine, String> {
        let layout = Layout::new(&config)?;
        let mut bus = MacBus::new(config.ram_size);
        let address_mask = if config.addressing_24bit || config.cpu == CpuModel::M68000 {
            0x00FF_FFFF
        } else {
            u32::MAX
        };
        bus.set_address_mask(address_mask);
        // Vectors: every one points at its own catcher slot.
        for v in 0..256u32 {
            bus.poke_u32(4 * v, layout.catcher + 2 * v);
            bus.poke_u16(layout.catcher + 2 * v, ILLEGAL);
        }
        for s in 0..MAX_SENTINELS {
            bus.poke_u16(layout.sentinels + 2 * s, ILLEGAL);
        }
        for h in 0..MAX_HOST_ROUTINES {
            bus.poke_u16(layout.host_routines + 2 * h, ILLEGAL);
        }
        for n in 0..256u16 {
            let w = 0xA000 | n;
            bus.poke_u16(layout.trap_stub(w), w);
            bus.poke_u16(layout.trap_stub(w) + 2, RTS);
        }
        for n in 0..1024u16 {
            let w = 0xA800 | n;
            bus.poke_u16(layout.trap_stub(w), w);
            bus.poke_u16(layout.trap_stub(w) + 2, RTS);
        }
        let mut mm = MemoryManager::new(&mut bus, layout.system_heap, layout.application_heap);
        mm.set_flags_in_master_pointers(config.addressing_24bit);
        if let Some(seed) = config.heap_scramble {
            mm.set_heap_scramble(Some(seed));
        }

        let mut cpu = CpuCore::new();
        cpu.set_cpu_type(config.cpu.cpu_type());
        cpu.address_mask = address_mask;
        // Reset with SSP = top of stack and PC = the first sentinel; the vectors 0/1 are then
        // pointed back at the catcher (they are only read at reset).
        bus.poke_u32(0, layout.stack.1);
        bus.poke_u32(4, layout.sentinels);
        cpu.reset(&mut bus);
        bus.poke_u32(0, layout.catcher);
        bus.poke_u32(4, layout.catcher + 2);
        cpu.cacr_pending_ops = 0;
        cpu.set_sr(0x2000);
        bus.protect_low_vectors = config.protect_null_page;

        let mut m = Machine {
            cpu,
            bus,
            layout,
            traps: TrapTable::default(),
            mm,
            images: Vec::new(),
            host_routines: Vec::new(),
            stats: Stats::default(),
            idle_cycles: 0,
            retrace_count: 0,
            next_tick_at: 0,
            guest_ticks: 0,
            stack_watch: None,
            run_instructions: 0,
            depth: 0,
            extensions: HashMap::new(),
            irq: Default::default(),
            rom_region: None,
            coverage: crate::coverage::Recorder::from_env(),
            pc_watch: None,
            pc_profile: None,
            ferrite_code: Vec::new(),
            config,
        };
        m.next_tick_at = m.cycles_for_tick(1);
        traps::install_builtins(&mut m.traps);
        crate::mm_traps::install(&mut m.traps);

        let jiodone =
            m.add_host_routine("JIODone (IODone; no Device Manager model installed)", None);
        let unit_table = {
            let (mm, bus) = (&mut m.mm, &mut m.bus);
            mm.new_ptr(
                bus,
                ZoneId::System,
                4 * lowmem::UNIT_TABLE_ENTRIES as u32,
                true,
            )
            .map_err(|e| format!("cannot allocate the unit table: {e}"))?
        };
        let (a5s, a5e) = m.layout.a5_world;
        m.bus.fill_host(a5s, a5e - a5s, 0);
        lowmem::init(
            &mut m.bus,
            &lowmem::LowMemInit {
                ram_size: m.layout.ram_size,
                cpu_flag: m.config.cpu.cpu_flag(),
                sys_zone: m.layout.system_heap.0,
                appl_zone: m.layout.application_heap.0,
                appl_zone_end: m.layout.application_heap.1,
                unit_table,
                current_a5: m.layout.current_a5(),
                jiodone,
            },
        );
        m.flush_icache();
        Ok(m)
    }

    // ----- parts -----

    /// The CPU model.
    pub fn model(&self) -> CpuModel {
        self.config.cpu
    }
    /// The configuration.
    pub fn config(&self) -> &MachineConfig {
        &self.config
    }
    /// The memory layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The m68k crate's CPU.
    pub fn cpu(&self) -> &CpuCore {
        &self.cpu
    }
    /// The m68k crate's CPU, mutable.
    pub fn cpu_mut(&mut self) -> &mut CpuCore {
        &mut self.cpu
    }
    /// The bus (RAM).
    pub fn bus(&self) -> &MacBus {
        &self.bus
    }
    /// The bus, mutable.
    pub fn bus_mut(&mut self) -> &mut MacBus {
        &mut self.bus
    }
    /// The trap table.
    pub fn traps(&self) -> &TrapTable {
        &self.traps
    }
    /// The trap table, mutable (register handlers here or with [`Machine::register_trap`]).
    pub fn traps_mut(&mut self) -> &mut TrapTable {
        &mut self.traps
    }
    /// Register a trap handler (see [`TrapTable::register`]).
    pub fn register_trap<F>(&mut self, word: u16, name: &'static str, handler: F)
    where
        F: Fn(&mut Machine, &mut TrapCall) -> Result<(), Fault> + Send + Sync + 'static,
    {
        self.traps.register(word, name, handler);
    }
    /// The Memory Manager model.
    pub fn memory_manager(&self) -> &MemoryManager {
        &self.mm
    }
    /// The Memory Manager model and the bus, both mutable (for allocating from host code).
    pub fn memory_manager_and_bus(&mut self) -> (&mut MemoryManager, &mut MacBus) {
        (&mut self.mm, &mut self.bus)
    }
    /// Counters.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }
    /// Counters, mutable.
    pub fn stats_mut(&mut self) -> &mut Stats {
        &mut self.stats
    }
    /// Images loaded so far.
    pub fn images(&self) -> &[LoadedImage] {
        &self.images
    }

    /// Per-machine state of type `T` for trap handlers of later models (Device Manager, SCSI,
    /// …), created with `T::default()` on first use.
    pub fn state<T: Any + Send + Default>(&mut self) -> &mut T {
        self.extensions
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()))
            .downcast_mut::<T>()
            .expect("extension map keyed by TypeId")
    }

    /// Make a host routine reachable at a guest address (returned). Guest code that jumps or
    /// calls there runs `handler` (same signature as a trap handler, with `word` = $4AFC),
    /// then returns as `RTS` would. With `handler = None` reaching it fails the run naming
    /// `name` (how `JIODone` starts out).
    pub fn add_host_routine(&mut self, name: &'static str, handler: Option<TrapHandler>) -> u32 {
        let i = self.host_routines.len() as u32;
        assert!(i < MAX_HOST_ROUTINES, "too many host routines");
        self.host_routines.push(HostRoutine { name, handler });
        self.layout.host_routines + 2 * i
    }

    /// Replace the handler of the host routine at `addr`.
    pub fn set_host_routine(&mut self, addr: u32, handler: Option<TrapHandler>) {
        let i = ((addr - self.layout.host_routines) / 2) as usize;
        self.host_routines[i].handler = handler;
    }

    /// Declare the ROM's address range `[start, end)` (nothing is mapped there: the model has
    /// no ROM code). Code reaching it other than at the return address of a
    /// [`Machine::call_from_rom`] fails the run.
    pub fn set_rom_region(&mut self, region: Option<(u32, u32)>) {
        self.rom_region = region;
        self.bus.set_rom(region);
    }

    /// The ROM's address range, if declared.
    pub fn rom_region(&self) -> Option<(u32, u32)> {
        self.rom_region
    }

    // ----- registers -----

    /// Data register `n`.
    pub fn d(&self, n: usize) -> u32 {
        self.cpu.dar[n & 7]
    }
    /// Set data register `n`.
    pub fn set_d(&mut self, n: usize, v: u32) {
        self.cpu.dar[n & 7] = v;
    }
    /// Address register `n` (A7 = the active stack pointer).
    pub fn a(&self, n: usize) -> u32 {
        self.cpu.dar[8 + (n & 7)]
    }
    /// Set address register `n`.
    pub fn set_a(&mut self, n: usize, v: u32) {
        self.cpu.dar[8 + (n & 7)] = v;
    }
    /// Stack pointer.
    pub fn sp(&self) -> u32 {
        self.a(7)
    }
    /// Set the stack pointer.
    pub fn set_sp(&mut self, v: u32) {
        self.set_a(7, v);
    }
    /// Program counter.
    pub fn pc(&self) -> u32 {
        self.cpu.pc
    }
    /// Set the program counter (clears the 68000 prefetch queue).
    pub fn set_pc(&mut self, v: u32) {
        self.cpu.pc = v;
        self.cpu.invalidate_prefetch();
    }
    /// Status register.
    pub fn sr(&self) -> u16 {
        self.cpu.get_sr()
    }

    // ----- memory helpers (host view; panic outside RAM) -----

    fn host_check(&self, a: u32, n: u32) {
        assert!(
            self.bus.in_ram(a, n),
            "host access ${a:08X}+{n} is outside the {}-byte RAM",
            self.layout.ram_size
        );
    }
    /// Read a byte.
    pub fn read_u8(&self, a: u32) -> u8 {
        self.host_check(a, 1);
        self.bus.ram()[self.bus.decode(a) as usize]
    }
    /// Read a big-endian word.
    pub fn read_u16(&self, a: u32) -> u16 {
        self.host_check(a, 2);
        self.bus.peek_u16(a)
    }
    /// Read a big-endian long.
    pub fn read_u32(&self, a: u32) -> u32 {
        self.host_check(a, 4);
        self.bus.peek_u32(a)
    }
    /// Read bytes.
    pub fn read_bytes(&self, a: u32, n: u32) -> Vec<u8> {
        self.host_check(a, n);
        self.bus.bytes(a, n).to_vec()
    }
    /// Read a Pascal string (length byte + text); returns the text.
    pub fn read_pstring(&self, a: u32) -> Vec<u8> {
        let n = self.read_u8(a) as u32;
        self.read_bytes(a + 1, n)
    }
    /// Write a byte.
    pub fn write_u8(&mut self, a: u32, v: u8) {
        self.host_check(a, 1);
        self.bus.write_bytes_host(a, &[v]);
    }
    /// Write a big-endian word.
    pub fn write_u16(&mut self, a: u32, v: u16) {
        self.host_check(a, 2);
        self.bus.poke_u16(a, v);
    }
    /// Write a big-endian long.
    pub fn write_u32(&mut self, a: u32, v: u32) {
        self.host_check(a, 4);
        self.bus.poke_u32(a, v);
    }
    /// Write bytes. Counts as a write for the instruction-cache rule: code written this way
    /// must be followed by [`Machine::flush_icache`] (or use [`Machine::write_code`]).
    pub fn write_bytes(&mut self, a: u32, data: &[u8]) {
        self.host_check(a, data.len() as u32);
        self.bus.write_bytes_host(a, data);
    }
    /// Write code and flush the instruction cache for it (what a loader does).
    pub fn write_code(&mut self, a: u32, code: &[u8]) {
        self.write_bytes(a, code);
        self.flush_icache_range(a, code.len() as u32);
    }
    /// Write 16-bit words (big-endian) as code and flush them; handy for hand-assembled tests.
    pub fn write_code_words(&mut self, a: u32, words: &[u16]) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        self.write_code(a, &bytes);
    }
    /// Write a Pascal string (panics if longer than 255 bytes).
    pub fn write_pstring(&mut self, a: u32, text: &[u8]) {
        assert!(text.len() <= 255, "Pascal strings hold at most 255 bytes");
        self.write_u8(a, text.len() as u8);
        self.write_bytes(a + 1, text);
    }
    /// Push a long on the guest stack.
    pub fn push_u32(&mut self, v: u32) {
        let sp = self.sp() - 4;
        self.write_u32(sp, v);
        self.set_sp(sp);
    }

    /// Pop `bytes` of Pascal arguments for a Toolbox trap handler (keeping a stub's return
    /// address on top when the trap was reached through a stub).
    pub fn pascal_pop(&mut self, call: &TrapCall, bytes: u32) {
        let sp = self.sp();
        if call.via_stub {
            let ret = self.read_u32(sp);
            self.write_u32(sp + bytes, ret);
        }
        self.set_sp(sp + bytes);
    }

    // ----- host-side Memory Manager shortcuts -----

    /// Allocate a nonrelocatable block from host code (`_NewPtr` semantics).
    pub fn new_ptr(&mut self, zone: ZoneId, size: u32, clear: bool) -> Result<u32, i16> {
        self.mm.new_ptr(&mut self.bus, zone, size, clear)
    }

    /// Dispose a nonrelocatable block from host code (`_DisposePtr` semantics).
    pub fn dispose_ptr(&mut self, ptr: u32) -> Result<(), String> {
        self.mm.dispose_ptr(&mut self.bus, ptr)
    }

    /// Verify every heap block's guards and master pointer.
    pub fn check_heaps(&self) -> Result<(), Fault> {
        self.mm.check(&self.bus)
    }

    // ----- instruction cache -----

    /// Flush the whole instruction cache: forget every write so far.
    pub fn flush_icache(&mut self) {
        self.bus.flush_all();
    }
    /// Flush the instruction cache for `[addr, addr + len)`.
    pub fn flush_icache_range(&mut self, addr: u32, len: u32) {
        self.bus.flush_range(addr, len);
    }

    // ----- time -----

    /// The CPU clock used for `Ticks`.
    pub fn clock_hz(&self) -> u32 {
        self.config.clock_hz
    }
    /// `Ticks` now, as the guest reads it at $16A: it advances only when the level-1 VBL
    /// interrupt is taken (Inside Macintosh: Operating System Utilities, "TickCount"; the VIA
    /// raises one pending VBL interrupt per retrace, so retraces that pass while level 1 is
    /// masked are lost, not counted later).
    pub fn ticks(&self) -> u32 {
        self.guest_ticks
    }
    /// Vertical retraces since start-up (hardware time, counted whatever the mask).
    pub fn retraces(&self) -> u32 {
        self.retrace_count
    }
    /// The level-1 VBL interrupt counts a tick (called when it is delivered).
    pub(crate) fn count_tick(&mut self) {
        self.guest_ticks = self.guest_ticks.wrapping_add(1);
        self.bus.poke_u32(lowmem::TICKS, self.guest_ticks);
    }
    /// Emulated cycle of the next vertical retrace.
    pub(crate) fn next_retrace_at(&self) -> u64 {
        self.next_tick_at
    }
    /// Wait `n` ticks the way guest code polling `Ticks` does (`_Delay`, the ROM's SCSI
    /// timeouts): interrupts are delivered while it waits. With the level-1 interrupt masked
    /// `Ticks` never moves, so a real Mac hangs: that fails the run, naming `what`.
    pub fn wait_ticks(&mut self, n: u32, what: &str) -> Result<(), Fault> {
        let mask = self.interrupt_mask();
        if mask >= 1 {
            return Err(Fault::Misuse {
                trap: None,
                message: format!(
                    "{what} waits {n} ticks at interrupt level (mask {mask}): Ticks only advance in the level-1 VBL interrupt, so a real Mac hangs here; defer the wait (a VBL task, a Deferred Task, the completion routine)"
                ),
            });
        }
        let target = self.guest_ticks.wrapping_add(n);
        let outer = std::mem::replace(&mut self.irq.waiting_for_ticks, true);
        let r = self.idle_until(move |m| m.ticks() >= target, n + 2, what);
        self.irq.waiting_for_ticks = outer;
        r
    }
    fn cycles_for_tick(&self, tick: u32) -> u64 {
        // 60.15 ticks per second.
        (tick as f64 * self.config.clock_hz as f64 / 60.15) as u64
    }
    /// Emulated cycles since start-up (executed + idle).
    pub fn emulated_cycles(&self) -> u64 {
        self.stats.cycles + self.idle_cycles
    }
    /// Let `n` retraces of emulated time pass without executing anything or delivering
    /// interrupts (at most one VBL interrupt stays pending, as on the VIA). To wait the way
    /// the guest does, use [`Machine::wait_ticks`] or [`Machine::idle_until`].
    pub fn advance_ticks(&mut self, n: u32) {
        let target = self.cycles_for_tick(self.retrace_count + n);
        self.idle_cycles += target.saturating_sub(self.emulated_cycles());
        self.update_ticks();
    }
    /// Let emulated time pass without executing anything, up to emulated cycle `at`.
    pub fn idle_to_cycle(&mut self, at: u64) {
        self.idle_cycles += at.saturating_sub(self.emulated_cycles());
        self.update_ticks();
    }
    fn update_ticks(&mut self) {
        let now = self.emulated_cycles();
        let mut passed = 0;
        while now >= self.next_tick_at {
            self.retrace_count += 1;
            self.next_tick_at = self.cycles_for_tick(self.retrace_count + 1);
            passed += 1;
        }
        if passed > 0 {
            self.owe_ticks(passed);
        }
    }

    // ----- the run loop -----

    /// Symbol for `addr`: `"export+0x12"` if it lies in a loaded image.
    pub fn symbolize(&self, addr: u32) -> Option<String> {
        if let Some(v) = self.layout.catcher_vector(addr) {
            return Some(format!("exception catcher, vector {v}"));
        }
        if self.layout.is_trap_stub(addr) {
            return Some("trap stub".into());
        }
        self.images.iter().find_map(|img| img.symbolize(addr))
    }

    fn in_loaded_code(&self, addr: u32) -> bool {
        self.images.iter().any(|i| i.contains(addr))
    }

    /// Whether the instruction before `ret` plausibly is a `BSR`/`JSR` that returns to `ret`.
    fn looks_like_return_address(&self, ret: u32) -> bool {
        if !ret.is_multiple_of(2) || !self.in_loaded_code(ret) || ret < 6 {
            return false;
        }
        let w = |back: u32| self.bus.peek_u16(ret - back);
        let bsr = |x: u16| x & 0xFF00 == 0x6100;
        (bsr(w(2)) && w(2) & 0xFF != 0 && w(2) & 0xFF != 0xFF)
            || w(4) == 0x6100
            || w(6) == 0x61FF
            || (w(2) & 0xFFF8) == 0x4E90
            || matches!(w(4) & 0xFFF8, 0x4EA8 | 0x4EB0)
            || matches!(w(4), 0x4EBA | 0x4EBB | 0x4EB8)
            || w(6) == 0x4EB9
    }

    /// The chain of return addresses, innermost first: the A6 `LINK` chain if it is valid,
    /// otherwise a scan of the stack for longs that look like return addresses into loaded
    /// code.
    pub fn return_chain(&self) -> (Vec<ReturnAddress>, ChainSource) {
        let sp = self.sp();
        let top = self.layout.stack.1;
        let mk = |a: u32| ReturnAddress {
            address: a,
            symbol: self.symbolize(a),
        };
        let in_stack = |a: u32| a >= sp && a < top - 4 && a.is_multiple_of(2);
        let mut chain = Vec::new();
        let mut fp = self.a(6);
        while in_stack(fp) && chain.len() < 64 {
            let ret = self.bus.peek_u32(fp + 4);
            if !self.in_loaded_code(ret) {
                break;
            }
            chain.push(mk(ret));
            let next = self.bus.peek_u32(fp);
            if next <= fp {
                break;
            }
            fp = next;
        }
        if !chain.is_empty() {
            return (chain, ChainSource::LinkChain);
        }
        let mut a = sp & !1;
        while a + 4 <= top && chain.len() < 16 {
            let v = self.bus.peek_u32(a);
            if self.looks_like_return_address(v) {
                chain.push(mk(v));
            }
            a += 2;
        }
        (chain, ChainSource::StackScan)
    }

    /// Wrap a fault into a [`RunError`] at `pc`.
    pub fn fail(&self, fault: Fault, pc: u32) -> RunError {
        let (return_chain, chain_source) = self.return_chain();
        RunError {
            fault,
            pc,
            pc_symbol: self.symbolize(pc),
            return_chain,
            chain_source,
            instructions: self.run_instructions,
            cpu: self.config.cpu,
            notes: self
                .mm
                .heap_scramble_seed()
                .map(|seed| {
                    format!(
                        "heap scramble on (FERRITE_SEED={seed}, {} blocks moved so far)",
                        self.mm.scramble_moves()
                    )
                })
                .into_iter()
                .collect(),
        }
    }

    /// Count the instructions of `image`, just placed at `base`, for driver coverage (a no-op
    /// unless coverage is on and the image is a Ferrite driver).
    pub(crate) fn watch_code(&mut self, base: u32, image: &[u8]) {
        let base = self.bus.decode(base);
        if let Some((_, code_len)) = ferrite_shared::driver_blob::code_key(image) {
            self.ferrite_code.push((base, code_len as u32));
        }
        if let Some(c) = self.coverage.as_mut() {
            c.watch(base, image);
        }
    }

    /// Where the last Ferrite driver image loaded sits: its (decoded) base address and code
    /// bytes. Offsets from the base are the blob's, as its symbol map names them.
    pub fn ferrite_driver_code(&self) -> Option<(u32, u32)> {
        self.ferrite_code.last().copied()
    }

    /// Start counting every executed instruction's cycles by (decoded) address, from zero.
    /// The counts are exact: the same cycles [`Stats::cycles`] adds up.
    pub fn start_pc_profile(&mut self) {
        self.pc_profile = Some(Default::default());
    }

    /// Stop the profile and return its counts by address (empty if none was started).
    pub fn take_pc_profile(&mut self) -> std::collections::BTreeMap<u32, PcCount> {
        self.pc_profile.take().unwrap_or_default()
    }

    fn opcode_at(&self, pc: u32) -> u16 {
        if self.bus.in_ram(pc & !1, 2) {
            self.bus.peek_u16(pc & !1)
        } else {
            0
        }
    }

    fn exception_fault(&mut self, vector: u32) -> Fault {
        let opcode = self.opcode_at(self.cpu.ppc);
        if vector == 2
            && let Some(f) = self.bus.take_fault()
        {
            return Fault::BusError {
                address: f.address,
                access: f.access,
                size: f.size,
                cause: f.cause,
                opcode,
            };
        }
        Fault::Exception {
            vector,
            name: vector_name(vector),
            opcode,
        }
    }

    /// Bytes of a flow-control instruction whose length cannot be seen from the PC change.
    fn flow_insn_len(opcode: u16) -> Option<u32> {
        match opcode {
            o if o >> 12 == 6 => Some(match o & 0xFF {
                0 => 4,
                0xFF => 6,
                _ => 2,
            }),
            o if o & 0xF0F8 == 0x50C8 => Some(4),
            o if o & 0xFF80 == 0x4E80 => Some(match o & 0x3F {
                0x39 => 6,
                m if m >> 3 == 2 => 2,
                _ => 4,
            }),
            o if o & 0xFFF0 == 0x4E70 => Some(2),
            _ => None,
        }
    }

    fn handle_cache_ops(&mut self) {
        let ops = std::mem::take(&mut self.cpu.cacr_pending_ops);
        if ops & m68k::CACR_CI != 0 {
            self.bus.flush_all();
        } else if ops & m68k::CACR_CEI != 0 {
            // One cache entry/line at CAAR: flush its 16 bytes.
            let a = self.cpu.caar & !15;
            self.bus.flush_range(a, 16);
        }
    }

    /// Run until the PC reaches `sentinel` (not executed). Budget, exceptions, traps and the
    /// instruction-cache rule are enforced here.
    pub(crate) fn run_until(&mut self, sentinel: u32) -> Result<(), RunError> {
        let budget = self.config.instruction_budget;
        let icache = self.config.enforce_icache_flush;
        loop {
            let pc = self.cpu.pc;
            if pc == sentinel {
                return Ok(());
            }
            if let Some((lo, hi)) = self.rom_region
                && (lo..hi).contains(&self.bus.decode(pc))
            {
                let f = Fault::Misuse {
                    trap: None,
                    message: format!(
                        "the PC reached ${pc:08X} in the ROM (${lo:08X}-${:08X}), which is not the \
                         return address the ROM called with (${sentinel:08X}): a wrong return \
                         (unbalanced stack, or RTS from a routine that was entered by JMP)",
                        hi - 1
                    ),
                };
                return Err(self.fail(f, pc));
            }
            if self.run_instructions >= budget {
                return Err(self.fail(Fault::BudgetExhausted { budget }, pc));
            }
            if icache && self.bus.is_stale(pc) {
                let opcode = self.opcode_at(pc);
                return Err(self.fail(
                    Fault::StaleCode {
                        address: pc,
                        opcode,
                    },
                    pc,
                ));
            }
            if let Some(v) = self.layout.catcher_vector(pc) {
                // Reached only if an exception escaped `last_exception_vector` (or code
                // jumped through a vector).
                let f = Fault::Exception {
                    vector: v,
                    name: vector_name(v),
                    opcode: 0,
                };
                return Err(self.fail(f, pc));
            }
            if let Some((watch, hits)) = self.pc_watch.as_mut() {
                let at = self.bus.decode(pc);
                if watch.contains(&at) {
                    hits.insert(at);
                }
            }
            if self.coverage.as_ref().is_some_and(|c| c.watching()) {
                let (at, opcode) = (self.bus.decode(pc), self.opcode_at(pc));
                if let Some(c) = self.coverage.as_mut() {
                    c.hit(at, opcode);
                }
            }
            let result = self.cpu.step(&mut self.bus);
            match result {
                StepResult::Ok { cycles } => {
                    self.run_instructions += 1;
                    self.stats.instructions += 1;
                    self.stats.cycles += cycles.max(0) as u64;
                    if let Some(p) = self.pc_profile.as_mut() {
                        let e = p.entry(self.bus.decode(pc)).or_default();
                        e.cycles += cycles.max(0) as u64;
                        e.instructions += 1;
                    }
                    if let Some(w) = self.stack_watch
                        && self.cpu.dar[15] < w.lowest
                        && let Err(f) = self.stack_low(self.cpu.dar[15])
                    {
                        return Err(self.fail(f, pc));
                    }
                    if let Some(v) = self.cpu.last_exception_vector.take() {
                        let at = self.cpu.ppc;
                        let f = self.exception_fault(v);
                        return Err(self.fail(f, at));
                    }
                    if self.cpu.stopped != 0 {
                        let f = Fault::Halted {
                            stopped_by_stop: !self.cpu.is_halted(),
                        };
                        return Err(self.fail(f, self.cpu.ppc));
                    }
                    if let Some(f) = self.bus.take_fault() {
                        // A refused access the CPU did not turn into an exception.
                        let opcode = self.opcode_at(self.cpu.ppc);
                        let f = Fault::BusError {
                            address: f.address,
                            access: f.access,
                            size: f.size,
                            cause: f.cause,
                            opcode,
                        };
                        return Err(self.fail(f, self.cpu.ppc));
                    }
                    if self.cpu.cacr_pending_ops != 0 {
                        self.handle_cache_ops();
                    }
                    if icache {
                        let ppc = self.cpu.ppc;
                        let op = self.opcode_at(ppc);
                        let len = match Self::flow_insn_len(op) {
                            Some(l) => l,
                            None => {
                                let d = self.cpu.pc.wrapping_sub(ppc);
                                if (2..=22).contains(&d) { d } else { 2 }
                            }
                        };
                        if let Some(a) = self.bus.first_stale(ppc + 2, len - 2) {
                            let f = Fault::StaleCode {
                                address: a,
                                opcode: op,
                            };
                            return Err(self.fail(f, ppc));
                        }
                    }
                    let now = self.emulated_cycles();
                    if now >= self.next_tick_at {
                        self.update_ticks();
                    }
                    if self.irq.check_needed(now)
                        && let Err(f) = self.deliver_interrupts()
                    {
                        return Err(self.fail(f, self.cpu.pc));
                    }
                }
                StepResult::AlineTrap { opcode } => {
                    let at = self.cpu.ppc;
                    self.run_instructions += 1;
                    self.stats.instructions += 1;
                    if let Err(f) = traps::dispatch(self, opcode, at) {
                        return Err(self.fail(f, at));
                    }
                    if let Some(w) = self.stack_watch
                        && self.cpu.dar[15] < w.lowest
                        && let Err(f) = self.stack_low(self.cpu.dar[15])
                    {
                        return Err(self.fail(f, at));
                    }
                    self.cpu.invalidate_prefetch();
                    if self.irq.check_needed(self.emulated_cycles())
                        && let Err(f) = self.deliver_interrupts()
                    {
                        return Err(self.fail(f, self.cpu.pc));
                    }
                }
                StepResult::IllegalInstruction { opcode } => {
                    let at = self.cpu.ppc;
                    let slot = at.wrapping_sub(self.layout.host_routines) / 2;
                    if opcode == ILLEGAL
                        && at >= self.layout.host_routines
                        && (slot as usize) < self.host_routines.len()
                    {
                        self.run_instructions += 1;
                        self.stats.instructions += 1;
                        let r = self.host_routines[slot as usize].clone();
                        let Some(h) = r.handler else {
                            let f = Fault::Misuse {
                                trap: None,
                                message: format!(
                                    "reached host routine {}, which is not modelled",
                                    r.name
                                ),
                            };
                            return Err(self.fail(f, at));
                        };
                        let mut call = TrapCall::host_routine(at, r.name);
                        if let Err(f) = h(self, &mut call) {
                            return Err(self.fail(f, at));
                        }
                        let sp = self.sp();
                        let ret = self.read_u32(sp);
                        self.set_sp(sp + 4);
                        self.set_pc(ret);
                        continue;
                    }
                    let name = if self.layout.sentinels <= at
                        && at < self.layout.sentinels + 2 * MAX_SENTINELS
                    {
                        "ILLEGAL at a call sentinel (returned from an outer call level?)"
                    } else {
                        vector_name(4)
                    };
                    return Err(self.fail(
                        Fault::Exception {
                            vector: 4,
                            name,
                            opcode,
                        },
                        at,
                    ));
                }
                StepResult::FlineTrap { opcode } => {
                    let at = self.cpu.ppc;
                    return Err(self.fail(
                        Fault::Exception {
                            vector: 11,
                            name: vector_name(11),
                            opcode,
                        },
                        at,
                    ));
                }
                StepResult::TrapInstruction { trap_num } => {
                    let at = self.cpu.ppc;
                    let v = 32 + trap_num as u32;
                    let f = Fault::Exception {
                        vector: v,
                        name: vector_name(v),
                        opcode: self.opcode_at(at),
                    };
                    return Err(self.fail(f, at));
                }
                StepResult::Breakpoint { bp_num } => {
                    let at = self.cpu.ppc;
                    let f = Fault::Exception {
                        vector: 4,
                        name: if bp_num == 0 { "BKPT #0" } else { "BKPT" },
                        opcode: self.opcode_at(at),
                    };
                    return Err(self.fail(f, at));
                }
                StepResult::Stopped => {
                    let f = Fault::Halted {
                        stopped_by_stop: !self.cpu.is_halted(),
                    };
                    return Err(self.fail(f, self.cpu.pc));
                }
            }
        }
    }

    /// Reset the CPU's per-run state (after a previous run failed mid-instruction).
    pub(crate) fn prepare_cpu(&mut self) {
        self.cpu.stopped = 0;
        self.cpu.run_mode = 0;
        self.cpu.exception_processing = false;
        self.cpu.last_exception_vector = None;
        self.cpu.invalidate_prefetch();
        let _ = self.bus.take_fault();
        // A top-level call made by an interrupt handler (host code waiting in `idle_until` at
        // depth 0) keeps the handler's interrupt mask, so the guest code it runs is not
        // interrupted by its own level.
        let mask = if self.at_interrupt_level() {
            self.cpu.get_sr() & 0x0700
        } else {
            0
        };
        self.cpu.set_sr(0x2000 | mask);
    }

    pub(crate) fn sentinel(&self, depth: u32) -> u32 {
        assert!(depth < MAX_SENTINELS, "calls nested too deeply");
        self.layout.sentinels + 2 * depth
    }
}

/// Human name of exception vector `v`.
pub fn vector_name(v: u32) -> &'static str {
    match v {
        0 | 1 => "reset vector",
        2 => "bus error",
        3 => "address error (odd word/long access or odd PC on the 68000)",
        4 => "illegal instruction",
        5 => "zero divide",
        6 => "CHK/CHK2 out of bounds",
        7 => "TRAPV overflow",
        8 => "privilege violation",
        9 => "trace",
        10 => "A-line trap taken as an exception",
        11 => "F-line (unimplemented coprocessor/FPU instruction)",
        13 => "coprocessor protocol violation",
        14 => "format error (bad RTE frame)",
        15 => "uninitialized interrupt",
        24 => "spurious interrupt",
        25..=31 => "autovector interrupt",
        32..=47 => "unhandled TRAP #n instruction",
        48..=54 => "FPU exception",
        55 => "FPU unsupported data type",
        56..=58 => "MMU exception",
        60 => "unimplemented effective address",
        61 => "unimplemented integer instruction",
        _ => "unassigned/user exception vector",
    }
}

impl std::fmt::Debug for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Machine")
            .field("cpu", &self.config.cpu)
            .field("pc", &format_args!("${:08X}", self.cpu.pc))
            .field(
                "d",
                &self.cpu.dar[..8]
                    .iter()
                    .map(|v| format!("{v:08X}"))
                    .collect::<Vec<_>>(),
            )
            .field(
                "a",
                &self.cpu.dar[8..]
                    .iter()
                    .map(|v| format!("{v:08X}"))
                    .collect::<Vec<_>>(),
            )
            .field("sr", &format_args!("${:04X}", self.cpu.get_sr()))
            .field("images", &self.images.len())
            .finish()
    }
}

/// `Machine` must stay `Send` so suites can build one per thread.
#[allow(dead_code)]
fn assert_send() {
    fn is_send<T: Send>() {}
    is_send::<Machine>();
}

impl Drop for Machine {
    fn drop(&mut self) {
        if let Some(c) = self.coverage.as_mut() {
            c.finish();
        }
    }
}
