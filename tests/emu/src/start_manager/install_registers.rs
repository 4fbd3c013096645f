//! The registers the ROM hands a driver's install routine, and the diagnosis when a driver
//! relies on one it does not.
//!
//! What is specified (mac-facts §2.2, §2.3, §2.5):
//! * both entries: **D5** — the SCSI ID at +0, the DeviceIdent at +8 (IM Devices ch. 4);
//! * +0 (ROMs without SCSI Manager 4.3): **A0** → a copy of the driver's partition map entry
//!   (a third-party ROM analysis; not Apple documentation), modelled as a 512-byte copy in
//!   the loader's stack frame, just above the return address;
//! * **A7**, the stack, with the ROM's return address on top.
//!
//! Everything else — D0–D4, D6, D7, A1–A6 (A0 too at +8: IM Devices says the 4.3 entry
//! receives nothing but D5) — is **poisoned**: a seeded random value that is odd (a word or
//! long access through it is an address error on the 68000) and, with the high byte dropped
//! on a 24-bit machine, outside RAM and the ROM (any access through it is a bus error). A
//! driver that uses one as a pointer fails, and [`InstallRegisters::diagnose`] names the
//! register.

use crate::error::{Fault, RunError};
use crate::machine::Machine;
use crate::seed::Rng;

use super::checks::DriverEntry;
use super::rom_model::RomModel;

/// Register names by index (0–7 = D0–D7, 8–14 = A0–A6).
pub const REGISTER_NAMES: [&str; 15] = [
    "D0", "D1", "D2", "D3", "D4", "D5", "D6", "D7", "A0", "A1", "A2", "A3", "A4", "A5", "A6",
];

/// How close (below, above) to a poisoned value an access must be to be blamed on it.
const BLAME_BELOW: u32 = 0x100;
const BLAME_ABOVE: u32 = 0x1_0000;

/// The registers of one install call.
#[derive(Debug, Clone)]
pub struct InstallRegisters {
    /// D0–D7, A0–A6 at entry.
    pub values: [u32; 15],
    /// Which registers carry a specified value, and what it is.
    pub specified: Vec<(usize, &'static str)>,
    /// The seed the poison came from.
    pub seed: u64,
    /// The entry called.
    pub entry: DriverEntry,
    address_mask: u32,
}

impl InstallRegisters {
    /// Registers for calling `entry` of the driver for SCSI ID `id` with `d5`, and `a0` (the
    /// map-entry copy) on the original entry; the rest poisoned from `seed` (and `id`) for a
    /// machine whose bus decodes `address_mask` and has `ram_size` bytes of RAM.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        seed: u64,
        id: u8,
        entry: DriverEntry,
        d5: u32,
        a0: u32,
        address_mask: u32,
        ram_size: u32,
        rom: &RomModel,
    ) -> InstallRegisters {
        let mut rng = Rng::new(seed, 0x01A5_7A11 + id as u64);
        let mut values = [0u32; 15];
        for i in 0..15 {
            values[i] = loop {
                let v = rng.next_u32() | 1;
                let seen = v & address_mask;
                let plus_rom_mirror = 0x40_0000..0x60_0000;
                // Far enough from the others that a fault is blamed on one register only.
                let apart = values[..i].iter().all(|&o| {
                    let o = o & address_mask;
                    seen.abs_diff(o) > 2 * (BLAME_ABOVE + BLAME_BELOW)
                });
                if seen >= ram_size
                    && !rom.contains(seen)
                    && !plus_rom_mirror.contains(&seen)
                    && apart
                {
                    break v;
                }
            };
        }
        let mut specified = vec![(
            5,
            match entry {
                DriverEntry::Original => "D5 = SCSI ID",
                DriverEntry::Scsi43 => "D5 = DeviceIdent",
            },
        )];
        values[5] = d5;
        if entry == DriverEntry::Original {
            values[8] = a0;
            specified.push((8, "A0 = a copy of the driver's partition map entry"));
        }
        InstallRegisters {
            values,
            specified,
            seed,
            entry,
            address_mask,
        }
    }

    /// `(index, value)` pairs for [`Machine::call_from_rom`].
    pub fn as_regs(&self) -> Vec<(usize, u32)> {
        self.values.iter().copied().enumerate().collect()
    }

    fn is_specified(&self, i: usize) -> bool {
        self.specified.iter().any(|&(r, _)| r == i)
    }

    /// The poisoned register an access at `addr` came through, if any.
    pub fn poisoned_register_near(&self, addr: u32) -> Option<usize> {
        let addr = addr & self.address_mask;
        (0..15)
            .filter(|&i| !self.is_specified(i))
            .filter(|&i| {
                let p = self.values[i] & self.address_mask;
                addr.wrapping_sub(p) < BLAME_ABOVE || p.wrapping_sub(addr) < BLAME_BELOW
            })
            .min_by_key(|&i| (self.values[i] & self.address_mask).abs_diff(addr))
    }

    /// The address of the access that failed, when the fault says it.
    fn fault_address(m: &Machine, err: &RunError) -> Option<u32> {
        match &err.fault {
            Fault::BusError { address, .. } => Some(*address),
            // The 68000's address-error frame holds the access address; the m68k crate
            // stacks PC (4), SR (2), IR (2), then the address (4) and the status word (2).
            Fault::Exception { vector: 3, .. } if m.config().cpu == crate::CpuModel::M68000 => {
                Some(m.read_u32(m.sp().wrapping_add(8)))
            }
            _ => None,
        }
    }

    /// Turn a failed install call into a diagnosis naming the poisoned register it used, if
    /// the failing access (or the PC) came from one; otherwise return `err` unchanged.
    pub fn diagnose(&self, m: &Machine, err: RunError) -> RunError {
        let culprit = Self::fault_address(m, &err)
            .and_then(|a| self.poisoned_register_near(a).map(|r| (r, a)))
            .or_else(|| self.poisoned_register_near(err.pc).map(|r| (r, err.pc)));
        let Some((r, addr)) = culprit else {
            let mut err = err;
            err.notes.push(format!(
                "in the install call, every register but {} held garbage (seed {}, \
                 FERRITE_SEED)",
                self.specified
                    .iter()
                    .map(|&(i, _)| REGISTER_NAMES[i])
                    .collect::<Vec<_>>()
                    .join(" and "),
                self.seed
            ));
            return err;
        };
        let given: Vec<&str> = self.specified.iter().map(|&(_, s)| s).collect();
        let entry = match self.entry {
            DriverEntry::Original => "+0 (ROM without SCSI Manager 4.3)",
            DriverEntry::Scsi43 => "+8 (SCSI Manager 4.3 ROM)",
        };
        let message = format!(
            "the driver's install routine used {reg} as an address (access at ${addr:08X}; {reg} \
             held ${val:08X} at entry), but the ROM does not set {reg} when it calls the entry at \
             {entry}: it passes only {given}, and the stack. Every other register holds whatever \
             the ROM's loader left there (modelled as garbage, seed {seed}; set FERRITE_SEED to \
             vary it). Fix the driver: derive everything from D5{a0} and low memory, and save and \
             restore the registers it changes. Original failure: {fault}",
            reg = REGISTER_NAMES[r],
            val = self.values[r],
            given = given.join(", "),
            seed = self.seed,
            a0 = if self.entry == DriverEntry::Original {
                " (and A0)"
            } else {
                ""
            },
            fault = err.fault,
        );
        RunError {
            fault: Fault::Misuse {
                trap: None,
                message,
            },
            ..err
        }
    }
}
