//! The virtual SCSI bus: phases, the command log and modelled bus time.
//!
//! Phase order of one command (SCSI-2): BUS FREE → ARBITRATION → SELECTION (with or without
//! ATN; with ATN the initiator sends IDENTIFY, which carries the LUN) → COMMAND → DATA IN or
//! DATA OUT (or none) → STATUS → MESSAGE IN (COMMAND COMPLETE) → BUS FREE. The command goes
//! to the logical unit the IDENTIFY message named; without IDENTIFY, to the one in the CDB's
//! LUN field (byte 1 bits 7–5, SCSI-1 style), which SCSI-2 has the target ignore once
//! IDENTIFY was sent. Every method
//! checks that the bus is in the phase it needs and refuses otherwise with a [`PhaseError`],
//! so a SCSI Manager model built on it cannot skip a phase by accident.
//!
//! Time: each command accumulates modelled time — arbitration and selection, command bytes and
//! data bytes at [`ScsiBus::bytes_per_sec`], plus the target's own time
//! ([`super::ScsiTarget::busy_ns`]). Models of time here are deliberately simple and
//! configurable; they feed benchmarks, not correctness.

use super::disk::cdb::cdb_lun;
use super::target::{DataPhase, ScsiTarget};

/// The Mac's own ID on the bus.
pub const INITIATOR_ID: u8 = 7;

/// Where the bus is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusPhase {
    BusFree,
    /// The initiator won arbitration and may select.
    Arbitrated,
    Command {
        id: u8,
    },
    DataIn {
        id: u8,
    },
    DataOut {
        id: u8,
    },
    Status {
        id: u8,
    },
    MessageIn {
        id: u8,
    },
}

/// Selection failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectError {
    /// Nobody answered (no device at that ID, or an injected timeout).
    Timeout,
    /// The ID is not 0–6.
    InvalidId,
    /// The bus is not free / not arbitrated (phase given).
    WrongPhase(BusPhase),
}

/// A phase method was called in the wrong phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseError {
    pub expected: &'static str,
    pub actual: BusPhase,
}

impl std::fmt::Display for PhaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bus is in {:?}, not {}", self.actual, self.expected)
    }
}

/// One command as the log records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub id: u8,
    /// The logical unit the command addressed (IDENTIFY's, else the CDB's LUN field).
    pub lun: u8,
    pub cdb: Vec<u8>,
    /// Bytes the target offered in DATA IN / bytes it asked for in DATA OUT.
    pub data_in_offered: usize,
    pub data_out_asked: usize,
    /// Bytes actually moved.
    pub data_in_moved: usize,
    pub data_out_moved: usize,
    /// Status byte; `None` if the command never reached status (bus reset).
    pub status: Option<u8>,
    /// Modelled time of the whole command in nanoseconds.
    pub time_ns: u64,
}

/// The outcome of [`ScsiBus::execute`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exec {
    /// Status byte, `None` if the bus was reset during the command.
    pub status: Option<u8>,
    /// DATA IN bytes received (at most the initiator's maximum).
    pub data_in: Vec<u8>,
    /// DATA IN bytes the target offered beyond the initiator's maximum (discarded).
    pub data_in_overrun: usize,
    /// DATA OUT bytes the target asked for.
    pub data_out_asked: usize,
    /// DATA OUT bytes the target took.
    pub data_out_taken: usize,
    /// Modelled time in nanoseconds.
    pub time_ns: u64,
}

struct Current {
    id: u8,
    /// The IDENTIFY LUN at selection; at COMMAND, the LUN the command addresses.
    lun: u8,
    /// Selection was with ATN and an IDENTIFY message.
    identify: bool,
    cdb: Vec<u8>,
    data_in: Vec<u8>,
    in_pos: usize,
    out_asked: usize,
    out_buf: Vec<u8>,
    status: Option<u8>,
    start_ns: u64,
}

/// The bus with up to seven targets.
pub struct ScsiBus {
    targets: [Option<Box<dyn ScsiTarget>>; 7],
    phase: BusPhase,
    cur: Option<Current>,
    /// Asynchronous/synchronous transfer rate used for command and data bytes.
    pub bytes_per_sec: u64,
    /// Arbitration + selection + reselection overheads per command, in nanoseconds.
    pub selection_ns: u64,
    time_ns: u64,
    log: Vec<LogEntry>,
    resets: u32,
    /// The target on the bus stopped responding after its CDB.
    hung: bool,
}

impl Default for ScsiBus {
    fn default() -> Self {
        ScsiBus::new()
    }
}

impl ScsiBus {
    /// An empty bus: 5 MB/s, 20 µs per command for arbitration, selection and messages.
    pub fn new() -> ScsiBus {
        ScsiBus {
            targets: Default::default(),
            phase: BusPhase::BusFree,
            cur: None,
            bytes_per_sec: 5_000_000,
            selection_ns: 20_000,
            time_ns: 0,
            log: Vec::new(),
            resets: 0,
            hung: false,
        }
    }

    /// Put `target` at `id` (0–6). Panics on a bad or taken ID (a test setup error).
    pub fn attach(&mut self, id: u8, target: Box<dyn ScsiTarget>) {
        assert!(
            id < INITIATOR_ID,
            "SCSI ID {id}: targets use 0–6 (7 is the Mac)"
        );
        assert!(self.targets[id as usize].is_none(), "SCSI ID {id} is taken");
        self.targets[id as usize] = Some(target);
    }

    /// Remove and return the target at `id`.
    pub fn detach(&mut self, id: u8) -> Option<Box<dyn ScsiTarget>> {
        self.targets.get_mut(id as usize)?.take()
    }

    /// The target at `id`.
    pub fn target(&self, id: u8) -> Option<&dyn ScsiTarget> {
        self.targets.get(id as usize)?.as_deref()
    }

    /// The target at `id`, mutable.
    pub fn target_mut(&mut self, id: u8) -> Option<&mut (dyn ScsiTarget + 'static)> {
        self.targets.get_mut(id as usize)?.as_deref_mut()
    }

    /// The target at `id` as its concrete type.
    pub fn target_as<T: ScsiTarget>(&self, id: u8) -> Option<&T> {
        self.target(id)?.as_any().downcast_ref()
    }

    /// The target at `id` as its concrete type, mutable.
    pub fn target_as_mut<T: ScsiTarget>(&mut self, id: u8) -> Option<&mut T> {
        self.target_mut(id)?.as_any_mut().downcast_mut()
    }

    /// IDs with a target attached.
    pub fn ids(&self) -> Vec<u8> {
        (0..7)
            .filter(|&i| self.targets[i as usize].is_some())
            .collect()
    }

    /// The current phase.
    pub fn phase(&self) -> BusPhase {
        self.phase
    }

    /// Every command so far, in order.
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Forget the log.
    pub fn clear_log(&mut self) {
        self.log.clear();
    }

    /// Total modelled bus time in nanoseconds.
    pub fn time_ns(&self) -> u64 {
        self.time_ns
    }

    /// Bus resets so far.
    pub fn resets(&self) -> u32 {
        self.resets
    }

    fn transfer_ns(&self, bytes: usize) -> u64 {
        (bytes as u64 * 1_000_000_000).div_ceil(self.bytes_per_sec.max(1))
    }

    fn wrong(&self, expected: &'static str) -> PhaseError {
        PhaseError {
            expected,
            actual: self.phase,
        }
    }

    // ----- phases -----

    /// ARBITRATION: the Mac takes the bus. Fails unless the bus is free.
    pub fn arbitrate(&mut self) -> Result<(), PhaseError> {
        if self.phase != BusPhase::BusFree {
            return Err(self.wrong("BusFree"));
        }
        self.phase = BusPhase::Arbitrated;
        Ok(())
    }

    /// SELECTION of `id`; with `atn`, the IDENTIFY message carries `lun`. On a timeout the bus
    /// goes free again.
    pub fn select(&mut self, id: u8, atn: bool, lun: u8) -> Result<(), SelectError> {
        if self.phase != BusPhase::Arbitrated {
            return Err(SelectError::WrongPhase(self.phase));
        }
        if id >= INITIATOR_ID {
            self.phase = BusPhase::BusFree;
            return Err(SelectError::InvalidId);
        }
        let start_ns = self.time_ns;
        let answered = match self.targets[id as usize].as_mut() {
            Some(t) => t.selectable(),
            None => false,
        };
        if !answered {
            // A selection timeout costs the selection abort time (250 ms by the SCSI-2
            // recommendation) — modelled, because it dominates a bus scan.
            self.time_ns += 250_000_000;
            self.phase = BusPhase::BusFree;
            return Err(SelectError::Timeout);
        }
        self.time_ns += self.selection_ns;
        self.cur = Some(Current {
            id,
            lun: if atn { lun } else { 0 },
            identify: atn,
            cdb: Vec::new(),
            data_in: Vec::new(),
            in_pos: 0,
            out_asked: 0,
            out_buf: Vec::new(),
            status: None,
            start_ns,
        });
        self.phase = BusPhase::Command { id };
        Ok(())
    }

    /// COMMAND: send the CDB. Returns the next phase (data in, data out, status, or bus free
    /// after an injected bus reset).
    pub fn command(&mut self, cdb: &[u8]) -> Result<BusPhase, PhaseError> {
        let BusPhase::Command { id } = self.phase else {
            return Err(self.wrong("Command"));
        };
        self.time_ns += self.transfer_ns(cdb.len());
        let cur = self
            .cur
            .as_mut()
            .expect("a command phase has a current command");
        cur.cdb = cdb.to_vec();
        if !cur.identify {
            cur.lun = cdb_lun(cdb);
        }
        let lun = cur.lun;
        let phase = self.targets[id as usize]
            .as_mut()
            .expect("selected target exists")
            .command(lun, cdb);
        let cur = self.cur.as_mut().unwrap();
        self.phase = match phase {
            DataPhase::None => BusPhase::Status { id },
            DataPhase::In(data) if data.is_empty() => BusPhase::Status { id },
            DataPhase::In(data) => {
                cur.data_in = data;
                BusPhase::DataIn { id }
            }
            DataPhase::Out(0) => {
                self.targets[id as usize].as_mut().unwrap().data_out(&[]);
                BusPhase::Status { id }
            }
            DataPhase::Out(n) => {
                cur.out_asked = n;
                BusPhase::DataOut { id }
            }
            DataPhase::BusReset => {
                self.reset();
                return Ok(BusPhase::BusFree);
            }
            // The phase stays COMMAND with the CDB taken: nothing more will happen.
            DataPhase::Hang => {
                self.hung = true;
                BusPhase::Command { id }
            }
        };
        Ok(self.phase)
    }

    /// DATA IN: take up to `max` bytes. When the target has no more, the bus moves to STATUS.
    pub fn read(&mut self, max: usize) -> Result<Vec<u8>, PhaseError> {
        let BusPhase::DataIn { id } = self.phase else {
            return Err(self.wrong("DataIn"));
        };
        let cur = self.cur.as_mut().unwrap();
        let n = max.min(cur.data_in.len() - cur.in_pos);
        let out = cur.data_in[cur.in_pos..cur.in_pos + n].to_vec();
        cur.in_pos += n;
        if cur.in_pos == cur.data_in.len() {
            self.phase = BusPhase::Status { id };
        }
        self.time_ns += self.transfer_ns(n);
        Ok(out)
    }

    /// DATA IN bytes still waiting (0 outside DATA IN).
    pub fn data_in_remaining(&self) -> usize {
        match (&self.phase, &self.cur) {
            (BusPhase::DataIn { .. }, Some(c)) => c.data_in.len() - c.in_pos,
            _ => 0,
        }
    }

    /// DATA OUT: send bytes; returns how many the target took. When it has all it asked for,
    /// the bus moves to STATUS.
    pub fn write(&mut self, data: &[u8]) -> Result<usize, PhaseError> {
        let BusPhase::DataOut { id } = self.phase else {
            return Err(self.wrong("DataOut"));
        };
        let cur = self.cur.as_mut().unwrap();
        let n = data.len().min(cur.out_asked - cur.out_buf.len());
        cur.out_buf.extend_from_slice(&data[..n]);
        if cur.out_buf.len() == cur.out_asked {
            let buf = std::mem::take(&mut cur.out_buf);
            let t = self.targets[id as usize].as_mut().unwrap();
            t.data_out(&buf);
            self.cur.as_mut().unwrap().out_buf = buf;
            self.phase = BusPhase::Status { id };
        }
        self.time_ns += self.transfer_ns(n);
        Ok(n)
    }

    /// DATA OUT bytes the target still wants (0 outside DATA OUT).
    pub fn data_out_remaining(&self) -> usize {
        match (&self.phase, &self.cur) {
            (BusPhase::DataOut { .. }, Some(c)) => c.out_asked - c.out_buf.len(),
            _ => 0,
        }
    }

    /// Leave a data phase early, as `SCSIComplete` does when it must skip to status: the rest
    /// of DATA IN is drained and discarded, DATA OUT is padded with zeros (what a real
    /// initiator sends when it has nothing left). Returns the bytes skipped.
    pub fn skip_to_status(&mut self) -> Result<usize, PhaseError> {
        match self.phase {
            BusPhase::DataIn { .. } => {
                let n = self.data_in_remaining();
                self.read(n)?;
                Ok(n)
            }
            BusPhase::DataOut { .. } => {
                let n = self.data_out_remaining();
                self.write(&vec![0; n])?;
                Ok(n)
            }
            BusPhase::Status { .. } => Ok(0),
            _ => Err(self.wrong("a data phase or Status")),
        }
    }

    /// STATUS: the status byte; the bus moves to MESSAGE IN.
    pub fn status(&mut self) -> Result<u8, PhaseError> {
        let BusPhase::Status { id } = self.phase else {
            return Err(self.wrong("Status"));
        };
        let target = self.targets[id as usize].as_mut().unwrap();
        let st = target.status();
        let busy = target.busy_ns();
        self.time_ns += busy + self.transfer_ns(1);
        self.cur.as_mut().unwrap().status = Some(st);
        self.phase = BusPhase::MessageIn { id };
        Ok(st)
    }

    /// MESSAGE IN: COMMAND COMPLETE (0); the bus goes free and the command is logged.
    pub fn message_in(&mut self) -> Result<u8, PhaseError> {
        let BusPhase::MessageIn { .. } = self.phase else {
            return Err(self.wrong("MessageIn"));
        };
        self.time_ns += self.transfer_ns(1);
        self.finish_log();
        self.phase = BusPhase::BusFree;
        Ok(0)
    }

    fn finish_log(&mut self) {
        if let Some(c) = self.cur.take() {
            self.log.push(LogEntry {
                id: c.id,
                lun: c.lun,
                data_in_offered: c.data_in.len(),
                data_out_asked: c.out_asked,
                data_in_moved: c.in_pos,
                data_out_moved: c.out_buf.len(),
                status: c.status,
                time_ns: self.time_ns - c.start_ns,
                cdb: c.cdb,
            });
        }
    }

    /// Bus reset (by the Mac or injected by a target): the open command is abandoned (logged
    /// without status) and every target is told.
    pub fn reset(&mut self) {
        self.finish_log();
        self.resets += 1;
        self.hung = false;
        for t in self.targets.iter_mut().flatten() {
            t.bus_reset();
        }
        self.phase = BusPhase::BusFree;
    }

    /// The time the connected target still works on its command before it sends its status
    /// (a long VERIFY or FORMAT, a spin-up, a slow card: [`super::ScsiTarget::busy_ns`]); 0
    /// with no target connected.
    pub fn target_busy_ns(&self) -> u64 {
        match self.cur.as_ref() {
            Some(c) => self.targets[c.id as usize]
                .as_ref()
                .map_or(0, |t| t.busy_ns()),
            None => 0,
        }
    }

    /// The target on the bus took its command and stopped responding (only a bus reset ends
    /// that).
    pub fn is_hung(&self) -> bool {
        self.hung
    }

    /// One whole command, as SCSI Manager 4.3 runs it: arbitrate, select with ATN (IDENTIFY
    /// with `lun`), send `cdb`, move data (`data_out` for DATA OUT; at most `data_in_max`
    /// bytes kept for DATA IN), status, message. A target asking for more DATA OUT than
    /// `data_out` holds gets the bytes there are, then the phase is left (padding), as an
    /// overrun; the caller sees it in [`Exec::data_out_taken`]/[`Exec::data_out_asked`].
    pub fn execute(
        &mut self,
        id: u8,
        lun: u8,
        cdb: &[u8],
        data_out: &[u8],
        data_in_max: usize,
    ) -> Result<Exec, SelectError> {
        let t0 = self.time_ns;
        if self.phase != BusPhase::BusFree {
            return Err(SelectError::WrongPhase(self.phase));
        }
        self.arbitrate().expect("bus is free");
        self.select(id, true, lun)?;
        let mut exec = Exec {
            status: None,
            data_in: Vec::new(),
            data_in_overrun: 0,
            data_out_asked: 0,
            data_out_taken: 0,
            time_ns: 0,
        };
        let mut phase = self.command(cdb).expect("in command phase");
        loop {
            match phase {
                BusPhase::BusFree => break,
                BusPhase::DataIn { .. } => {
                    let want = data_in_max - exec.data_in.len();
                    if want == 0 {
                        exec.data_in_overrun += self.skip_to_status().unwrap();
                    } else {
                        let got = self.read(want).unwrap();
                        exec.data_in.extend_from_slice(&got);
                    }
                }
                BusPhase::DataOut { .. } => {
                    exec.data_out_asked = self.data_out_remaining() + exec.data_out_taken;
                    let rest = &data_out[exec.data_out_taken.min(data_out.len())..];
                    if rest.is_empty() {
                        self.skip_to_status().unwrap();
                    } else {
                        exec.data_out_taken += self.write(rest).unwrap();
                    }
                }
                BusPhase::Status { .. } => {
                    exec.status = Some(self.status().unwrap());
                    self.message_in().unwrap();
                    break;
                }
                BusPhase::Command { .. } if self.hung => {
                    // A hung target: the caller's timeout resets the bus.
                    self.reset();
                    break;
                }
                other => unreachable!("phase {other:?} after command"),
            }
            phase = self.phase;
        }
        exec.time_ns = self.time_ns - t0;
        Ok(exec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scsi::target::status;
    use std::any::Any;

    /// Echo target: opcode 0x01 returns N bytes (N = cdb[4]); 0x02 takes N bytes; 0x03 resets.
    #[derive(Default)]
    struct Echo {
        got: Vec<u8>,
        resets: u32,
    }
    impl ScsiTarget for Echo {
        fn command(&mut self, _lun: u8, cdb: &[u8]) -> DataPhase {
            match cdb[0] {
                1 => DataPhase::In((0..cdb[4]).collect()),
                2 => DataPhase::Out(cdb[4] as usize),
                3 => DataPhase::BusReset,
                _ => DataPhase::None,
            }
        }
        fn data_out(&mut self, data: &[u8]) {
            self.got = data.to_vec();
        }
        fn status(&mut self) -> u8 {
            status::GOOD
        }
        fn bus_reset(&mut self) {
            self.resets += 1;
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
        fn as_any_mut(&mut self) -> &mut dyn Any {
            self
        }
    }

    #[test]
    fn phases_in_order_and_wrong_phase_refused() {
        let mut bus = ScsiBus::new();
        bus.attach(3, Box::new(Echo::default()));
        assert!(bus.command(&[0; 6]).is_err(), "no command before selection");
        assert_eq!(
            bus.select(3, false, 0),
            Err(SelectError::WrongPhase(BusPhase::BusFree))
        );
        bus.arbitrate().unwrap();
        assert_eq!(bus.select(2, false, 0), Err(SelectError::Timeout));
        assert_eq!(bus.phase(), BusPhase::BusFree);
        bus.arbitrate().unwrap();
        bus.select(3, false, 0).unwrap();
        assert_eq!(
            bus.command(&[1, 0, 0, 0, 5, 0]).unwrap(),
            BusPhase::DataIn { id: 3 }
        );
        assert!(bus.status().is_err());
        assert_eq!(bus.read(2).unwrap(), vec![0, 1]);
        assert_eq!(bus.read(100).unwrap(), vec![2, 3, 4]);
        assert_eq!(bus.status().unwrap(), 0);
        assert_eq!(bus.message_in().unwrap(), 0);
        assert_eq!(bus.phase(), BusPhase::BusFree);
        assert_eq!(bus.log().len(), 1);
        assert_eq!(bus.log()[0].data_in_moved, 5);
    }

    #[test]
    fn execute_moves_data_both_ways_and_reports_overruns() {
        let mut bus = ScsiBus::new();
        bus.attach(0, Box::new(Echo::default()));
        let e = bus.execute(0, 0, &[1, 0, 0, 0, 8, 0], &[], 4).unwrap();
        assert_eq!(
            (e.status, e.data_in.len(), e.data_in_overrun),
            (Some(0), 4, 4)
        );
        let e = bus
            .execute(0, 0, &[2, 0, 0, 0, 3, 0], &[9, 8, 7], 0)
            .unwrap();
        assert_eq!((e.data_out_asked, e.data_out_taken), (3, 3));
        assert_eq!(bus.target_as::<Echo>(0).unwrap().got, vec![9, 8, 7]);
        let e = bus.execute(0, 0, &[2, 0, 0, 0, 4, 0], &[1], 0).unwrap();
        assert_eq!((e.data_out_asked, e.data_out_taken), (4, 1));
        assert_eq!(bus.target_as::<Echo>(0).unwrap().got, vec![1, 0, 0, 0]);
        let e = bus.execute(0, 0, &[3, 0, 0, 0, 0, 0], &[], 0).unwrap();
        assert_eq!(e.status, None);
        assert_eq!(bus.resets(), 1);
        assert_eq!(bus.target_as::<Echo>(0).unwrap().resets, 1);
        assert_eq!(
            bus.execute(5, 0, &[0; 6], &[], 0),
            Err(SelectError::Timeout)
        );
        assert!(bus.time_ns() >= 250_000_000);
    }
}
