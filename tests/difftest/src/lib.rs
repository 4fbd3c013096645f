//! On-target differential tests (issue 13, item 5).
//!
//! The driver's target-independent modules (`request`, `sense`, `partition`, `capacity`,
//! `cache`, `gestalt`) and the parsers of `ferrite-shared` (partition map, settings block and
//! blob head, sense data, flat images) are run on random inputs. The same crate is compiled
//! for the host and, through the whole m68k pipeline, for the 68k (run in the emulated Mac and
//! under `qemu-m68k`); every output must agree.
//!
//! Each [`Function`] draws one input from a [`Rng`] seeded by `(seed, function, index)`, so
//! any input can be made again alone, writes the input and everything the code under test
//! returns (values, parsed fields, error variants and their `Display` text) into a [`Trace`],
//! and the trace's [`Trace::digest`] is compared. A mismatch names the function, the seed and
//! the input index; [`trace`] gives the whole trace of that input on either side.
//!
//! Rules: no floats, no `usize` or addresses in a trace, no panics on any input (a panic on
//! the 68k is reported as such, on the host it fails the reference run).
#![no_std]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]

extern crate alloc;

mod driver;
mod flat;
#[cfg(target_arch = "m68k")]
mod m68k;
mod rng;
mod shared;

pub use rng::Rng;

/// Most bytes one input's trace may hold.
pub const MAX_TRACE: usize = 4096;

/// Where a function writes its input and its results: big-endian fixed-width integers, bytes
/// and text, hashed as they come and, when a buffer is given, kept.
pub struct Trace<'a> {
    buf: Option<&'a mut [u8]>,
    len: usize,
    /// Where the results start (after the first [`Trace::tag`]).
    results_at: Option<usize>,
    hash: u32,
    overflow: bool,
}

impl<'a> Trace<'a> {
    /// A trace that only hashes.
    pub fn hashing() -> Trace<'static> {
        Trace {
            buf: None,
            len: 0,
            results_at: None,
            hash: HASH_START,
            overflow: false,
        }
    }
    /// A trace that keeps its bytes in `buf` (and hashes them).
    pub fn keeping(buf: &'a mut [u8]) -> Trace<'a> {
        Trace {
            buf: Some(buf),
            len: 0,
            results_at: None,
            hash: HASH_START,
            overflow: false,
        }
    }
    /// Bytes written.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Nothing written yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// More than [`MAX_TRACE`] bytes were written (or more than the buffer holds).
    pub fn overflowed(&self) -> bool {
        self.overflow
    }
    /// The digest compared between host and 68k: the hash of every byte, then the length.
    pub fn digest(&self) -> u32 {
        mix(mix(self.hash, self.len as u32), self.overflow as u32)
    }
    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.hash = mix(self.hash, x as u32);
        }
        let end = self.len + b.len();
        let cap = self
            .buf
            .as_ref()
            .map_or(MAX_TRACE, |k| k.len().min(MAX_TRACE));
        if end > cap {
            self.overflow = true;
        } else if let Some(k) = self.buf.as_deref_mut() {
            k[self.len..end].copy_from_slice(b);
        }
        self.len = end.min(cap);
    }
    pub fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn i16(&mut self, v: i16) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn bool(&mut self, v: bool) {
        self.u8(v as u8);
    }
    /// A length-prefixed byte string (lengths up to 65,535).
    pub fn blob(&mut self, b: &[u8]) {
        self.u16(b.len() as u16);
        self.bytes(b);
    }
    /// A marker byte between the input and the results (so that a shift shows where it
    /// starts).
    pub fn tag(&mut self, t: u8) {
        self.u8(t);
        self.results_at.get_or_insert(self.len);
    }
    /// An `Option`: 0, or 1 and what `some` writes.
    pub fn option<T>(&mut self, v: Option<T>, some: impl FnOnce(&mut Self, T)) {
        match v {
            None => self.u8(0),
            Some(x) => {
                self.u8(1);
                some(self, x);
            }
        }
    }
    /// `Display` text of `v`, length-prefixed (core::fmt runs on the 68k too).
    pub fn text(&mut self, v: &dyn core::fmt::Display) {
        let mut counter = Counter(0);
        let _ = core::fmt::write(&mut counter, format_args!("{v}"));
        self.u16(counter.0 as u16);
        let _ = core::fmt::write(self, format_args!("{v}"));
    }
}

struct Counter(usize);
impl core::fmt::Write for Counter {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

impl core::fmt::Write for Trace<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}

const HASH_START: u32 = 0x2545_F491;

/// One step of the trace hash: multiply-free (a 32-bit multiply is a `__mulsi3` call on the
/// 68000), and any single changed byte changes the result.
fn mix(h: u32, x: u32) -> u32 {
    let h = (h ^ x).rotate_left(11);
    h.wrapping_add(h.rotate_left(19) ^ 0x9E37_79B9)
}

/// One function under test.
#[derive(Clone, Copy)]
pub struct Function {
    /// What it calls, `crate::module::item` style.
    pub name: &'static str,
    /// Draws one input from the generator and traces it and the results.
    pub run: fn(&mut Rng, &mut Trace),
}

/// Every function; the index in this slice is the function number.
pub static FUNCTIONS: &[Function] = &[
    Function {
        name: "driver::request::plan+next_chunk",
        run: driver::request_plan,
    },
    Function {
        name: "driver::sense::classify",
        run: driver::sense_classify,
    },
    Function {
        name: "driver::partition::examine",
        run: driver::partition_examine,
    },
    Function {
        name: "driver::partition::examine (map scan)",
        run: driver::partition_scan,
    },
    Function {
        name: "driver::capacity::from_rc10+from_rc16",
        run: driver::capacity,
    },
    Function {
        name: "driver::cache::wce_on+enable_wce_list",
        run: driver::cache,
    },
    Function {
        name: "driver::gestalt::respond",
        run: driver::gestalt,
    },
    Function {
        name: "shared::scsi::Sense::parse+CDBs",
        run: shared::scsi,
    },
    Function {
        name: "shared::partition_map::DriverDescriptorMap",
        run: shared::ddm,
    },
    Function {
        name: "shared::partition_map::PartitionEntry",
        run: shared::entry,
    },
    Function {
        name: "shared::partition_map::boot_checksum",
        run: shared::checksum,
    },
    Function {
        name: "shared::driver_blob::Settings",
        run: shared::settings,
    },
    Function {
        name: "shared::driver_blob::head",
        run: shared::head,
    },
    Function {
        name: "shared::flat::relocations",
        run: flat::relocations,
    },
    Function {
        name: "shared::flat::FlatImage",
        run: flat::container,
    },
];

/// The generator of input `index` of `function` under `seed`.
pub fn input_rng(seed: u32, function: u32, index: u32) -> Rng {
    Rng::for_input(seed, function, index)
}

/// Run input `index` of `function` under `seed`, keeping its trace in `buf`: the trace's
/// length, or `None` for a bad function number or a trace that did not fit.
pub fn trace(function: u32, seed: u32, index: u32, buf: &mut [u8]) -> Option<usize> {
    trace_parts(function, seed, index, buf).map(|(_, n)| n)
}

/// Like [`trace`]; also where the results start in the trace (the input comes before).
pub fn trace_parts(function: u32, seed: u32, index: u32, buf: &mut [u8]) -> Option<(usize, usize)> {
    let f = FUNCTIONS.get(function as usize)?;
    let mut rng = input_rng(seed, function, index);
    let mut t = Trace::keeping(buf);
    (f.run)(&mut rng, &mut t);
    (!t.overflowed()).then_some((t.results_at.unwrap_or(0), t.len()))
}

/// The digest of input `index` of `function` under `seed` (`None` for a bad function).
pub fn digest(function: u32, seed: u32, index: u32) -> Option<u32> {
    let f = FUNCTIONS.get(function as usize)?;
    let mut rng = input_rng(seed, function, index);
    let mut t = Trace::hashing();
    (f.run)(&mut rng, &mut t);
    Some(t.digest())
}

/// Digests of inputs `first .. first + count` of `function`, big-endian, 4 bytes each, into
/// `out`: the bytes written, or `None` for a bad function or too small an `out`.
pub fn run(function: u32, seed: u32, first: u32, count: u32, out: &mut [u8]) -> Option<usize> {
    if function as usize >= FUNCTIONS.len() {
        return None;
    }
    let n = (count as usize).checked_mul(4)?;
    let out = out.get_mut(..n)?;
    for (k, slot) in out.chunks_exact_mut(4).enumerate() {
        let d = digest(function, seed, first.wrapping_add(k as u32))?;
        slot.copy_from_slice(&d.to_be_bytes());
    }
    Some(n)
}
