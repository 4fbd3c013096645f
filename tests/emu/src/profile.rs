//! Machine profiles: the CPU, its clock and the SCSI Manager's own cost on a given Mac, for
//! benchmarks (`tests/driver_bench.rs`, `docs/BENCHMARKS.md`).
//!
//! Every Mac OS service in the emulated Mac is a host routine that costs no CPU cycles, so
//! without a profile a SCSI command takes exactly the bus and disk time the virtual bus
//! models. A profile set with [`crate::scsi_manager::set_profile`] makes both SCSI Manager
//! models add the time the real SCSI Manager's code would have kept the CPU busy:
//!
//! * per command ([`ScsiCost::command_ns_old`] / [`ScsiCost::command_ns_v43`]): arbitration,
//!   selection, sending the CDB, status and message phases, the trap dispatch and, under SCSI
//!   Manager 4.3, queueing and the completion interrupt. The original manager charges it when
//!   a selection is made (`SCSISelect`/`SCSISelAtn`), SCSI Manager 4.3 with each `SCSIExecIO`;
//! * per data byte, by transfer kind ([`TransferKind`]): the CPU loop that moves the byte
//!   (polled: waits for REQ on every byte; blind: no per-byte wait — on the Mac Plus a plain
//!   loop, on the SE/30 and II family pseudo-DMA with the hardware handshake, on the Quadra
//!   900/950 the same through the 53C96 FIFO, on the 840AV real DMA that costs the CPU
//!   nothing per byte). The CPU loop and the bus handshake run together, so the data phase
//!   takes the slower of the two: what is charged as SCSI Manager time is only the CPU time
//!   *beyond* the bus's own transfer time for those bytes (see [`ScsiCost::data_ns`]).
//!
//! The SCSI Manager's time is kept in its own counter ([`crate::scsi_manager::counters`]),
//! apart from the bus/disk time ([`crate::scsi::ScsiBus::time_ns`]) and the driver's own CPU
//! cycles ([`crate::Stats::cycles`]), so a benchmark can split a request's time three ways.
//! The figures and their sources are in `docs/BENCHMARKS.md` ("Profiles").

use crate::cpu::CpuModel;
use crate::scsi::TimingConfig;

/// How the SCSI Manager moves a data phase's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferKind {
    /// Polled: the CPU waits for REQ before every byte (`SCSIRead`/`SCSIWrite`, or a 4.3
    /// request with `scsiTransferType` = polled).
    Polled,
    /// Blind: `SCSIRBlind`/`SCSIWBlind`, or a 4.3 request with `scsiTransferType` = blind
    /// (the machine's fastest path: pseudo-DMA or DMA where it has one).
    Blind,
}

/// Which SCSI Manager ran a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manager {
    /// The original SCSI Manager (`_SCSIDispatch`).
    Original,
    /// SCSI Manager 4.3 (`_SCSIAtomic`).
    V43,
}

/// The SCSI Manager's CPU cost on one machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScsiCost {
    /// Per command under the original SCSI Manager, ns.
    pub command_ns_old: u64,
    /// Per command under SCSI Manager 4.3, ns.
    pub command_ns_v43: u64,
    /// CPU time per byte of a polled transfer, picoseconds.
    pub polled_ps_per_byte: u64,
    /// CPU time per byte of a blind transfer, picoseconds (0 = DMA).
    pub blind_ps_per_byte: u64,
}

impl ScsiCost {
    /// Per-command time under `manager`.
    pub fn command_ns(&self, manager: Manager) -> u64 {
        match manager {
            Manager::Original => self.command_ns_old,
            Manager::V43 => self.command_ns_v43,
        }
    }

    /// The CPU's time to move `bytes` by `kind`, ns.
    pub fn cpu_data_ns(&self, kind: TransferKind, bytes: u64) -> u64 {
        let ps = match kind {
            TransferKind::Polled => self.polled_ps_per_byte,
            TransferKind::Blind => self.blind_ps_per_byte,
        };
        (bytes * ps).div_ceil(1000)
    }

    /// SCSI Manager time charged for a data phase of `bytes` by `kind` on a bus moving
    /// `bus_bytes_per_sec`: the CPU's time beyond the bus's own transfer time (the two run
    /// together, so the slower sets the pace and the bus already counts its part).
    pub fn data_ns(&self, kind: TransferKind, bytes: u64, bus_bytes_per_sec: u64) -> u64 {
        let bus = (bytes * 1_000_000_000).div_ceil(bus_bytes_per_sec.max(1));
        self.cpu_data_ns(kind, bytes).saturating_sub(bus)
    }
}

/// A Mac model for benchmarks: CPU, clock, SCSI chip and the SCSI Manager's cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineProfile {
    /// Short name (tables, file names).
    pub name: &'static str,
    /// The Mac and its SCSI hardware, for people.
    pub description: &'static str,
    pub cpu: CpuModel,
    pub clock_hz: u32,
    /// The SCSI Managers it can run: the ROM's, and SCSI Manager 4.3 where it exists.
    pub original: bool,
    pub v43: bool,
    /// The SCSI bus rate, bytes/s (the virtual bus's [`crate::scsi::ScsiBus::bytes_per_sec`]).
    pub bus_bytes_per_sec: u64,
    pub cost: ScsiCost,
}

impl MachineProfile {
    /// Macintosh Plus: 68000 at 7.8336 MHz, NCR 5380 without a hardware handshake for blind
    /// transfers (the driver's `auto` mode runs polled on a 68000), original SCSI Manager.
    pub const fn mac_plus() -> MachineProfile {
        MachineProfile {
            name: "Mac Plus",
            description: "68000 7.83 MHz, NCR 5380 (no blind handshake), original SCSI Manager",
            cpu: CpuModel::M68000,
            clock_hz: 7_833_600,
            original: true,
            v43: false,
            bus_bytes_per_sec: 5_000_000,
            cost: ScsiCost {
                command_ns_old: 800_000,
                command_ns_v43: 800_000,
                polled_ps_per_byte: 4_000_000,
                blind_ps_per_byte: 3_000_000,
            },
        }
    }

    /// Macintosh II: 68020 at 15.6672 MHz, NCR 5380 with pseudo-DMA (the same SCSI hardware
    /// and ROM SCSI Manager as the SE/30; SCSI Manager 4.3 was never offered for it). The
    /// SCSI Manager's own cost is the SE/30's: its time is dominated by the 5380's bus cycles,
    /// not by the CPU's caches.
    pub const fn mac_ii() -> MachineProfile {
        MachineProfile {
            name: "Mac II",
            description: "68020 15.67 MHz, NCR 5380 with pseudo-DMA, original SCSI Manager",
            cpu: CpuModel::M68020,
            clock_hz: 15_667_200,
            original: true,
            v43: false,
            bus_bytes_per_sec: 5_000_000,
            cost: MachineProfile::se30().cost,
        }
    }

    /// Macintosh SE/30 (and the II family): 68030 at 15.6672 MHz, NCR 5380 with pseudo-DMA
    /// (the hardware handshake holds the CPU's bus cycle until the 5380 is ready), original
    /// SCSI Manager.
    pub const fn se30() -> MachineProfile {
        MachineProfile {
            name: "SE/30",
            description: "68030 15.67 MHz, NCR 5380 with pseudo-DMA, original SCSI Manager",
            cpu: CpuModel::M68030,
            clock_hz: 15_667_200,
            original: true,
            v43: false,
            bus_bytes_per_sec: 5_000_000,
            cost: ScsiCost {
                command_ns_old: 250_000,
                command_ns_v43: 250_000,
                polled_ps_per_byte: 1_200_000,
                blind_ps_per_byte: 550_000,
            },
        }
    }

    /// Quadra 900/950: 68040 at 25 MHz, NCR 53C96 (the CPU moves data through the chip's
    /// FIFO with the hardware handshake), internal bus up to 5 MB/s; original SCSI Manager
    /// in ROM, SCSI Manager 4.3 from System 7.5.
    pub const fn quadra_900() -> MachineProfile {
        MachineProfile {
            name: "Quadra 900",
            description: "68040 25 MHz, NCR 53C96 (pseudo-DMA through the FIFO), original SCSI Manager or 4.3",
            cpu: CpuModel::M68040,
            clock_hz: 25_000_000,
            original: true,
            v43: true,
            bus_bytes_per_sec: 5_000_000,
            cost: ScsiCost {
                command_ns_old: 150_000,
                command_ns_v43: 150_000,
                polled_ps_per_byte: 500_000,
                blind_ps_per_byte: 100_000,
            },
        }
    }

    /// Quadra 840AV: 68040 at 40 MHz, NCR 53C96 with DMA (the PSC), SCSI Manager 4.3 in ROM.
    pub const fn quadra_840av() -> MachineProfile {
        MachineProfile {
            name: "Quadra 840AV",
            description: "68040 40 MHz, NCR 53C96 with DMA, SCSI Manager 4.3 in ROM",
            cpu: CpuModel::M68040,
            clock_hz: 40_000_000,
            original: false,
            v43: true,
            bus_bytes_per_sec: 5_000_000,
            cost: ScsiCost {
                command_ns_old: 100_000,
                command_ns_v43: 100_000,
                polled_ps_per_byte: 350_000,
                blind_ps_per_byte: 0,
            },
        }
    }

    /// Every machine profile, oldest first.
    pub const ALL: [MachineProfile; 5] = [
        MachineProfile::mac_plus(),
        MachineProfile::mac_ii(),
        MachineProfile::se30(),
        MachineProfile::quadra_900(),
        MachineProfile::quadra_840av(),
    ];
}

/// A disk for benchmarks: a name and the virtual disk's timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskProfile {
    pub name: &'static str,
    pub timing: TimingConfig,
}

impl DiskProfile {
    /// Every disk profile: 5400 rpm and 7200 rpm 1990s drives, a 10k-rpm drive, an SD-card
    /// emulator. The drives' read-ahead streams at the media rate
    /// ([`TimingConfig::read_ahead_at_media_rate`]).
    pub const ALL: [DiskProfile; 4] = [
        DiskProfile {
            name: "5400 rpm",
            timing: TimingConfig {
                read_ahead_at_media_rate: true,
                ..TimingConfig::hdd_5400_1990s()
            },
        },
        DiskProfile {
            name: "7200 rpm",
            timing: TimingConfig {
                read_ahead_at_media_rate: true,
                ..TimingConfig::hdd_7200_1990s()
            },
        },
        DiskProfile {
            name: "10k rpm",
            timing: TimingConfig {
                read_ahead_at_media_rate: true,
                ..TimingConfig::hdd_10k()
            },
        },
        DiskProfile {
            name: "SD emulator",
            timing: TimingConfig::sd_emulator_slow_writes(),
        },
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_time_is_the_cpu_excess_over_the_bus() {
        let c = MachineProfile::mac_plus().cost;
        // 512 polled bytes: 2,048 µs of CPU, 102.4 µs of bus → 1,945.6 µs charged.
        assert_eq!(
            c.data_ns(TransferKind::Polled, 512, 5_000_000),
            2_048_000 - 102_400
        );
        // DMA: nothing per byte.
        let q = MachineProfile::quadra_840av().cost;
        assert_eq!(q.data_ns(TransferKind::Blind, 1 << 20, 5_000_000), 0);
        // Pseudo-DMA faster than the bus: nothing beyond the bus time.
        let q9 = MachineProfile::quadra_900().cost;
        assert_eq!(q9.data_ns(TransferKind::Blind, 4096, 5_000_000), 0);
        assert!(q9.data_ns(TransferKind::Polled, 4096, 5_000_000) > 0);
    }
}
