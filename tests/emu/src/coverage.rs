//! Instruction coverage of the Ferrite driver: which of its instructions the emulated Mac
//! executed, collected over whole test runs.
//!
//! Off unless `FERRITE_COVERAGE_DIR` names a directory. Then every machine watches each
//! Ferrite driver image it loads (from a disk at boot, or as a flat image) and records the
//! offsets of the instructions executed inside it. An image is known by its code key
//! (`ferrite_shared::driver_blob::code_key`), which leaves out the settings block, so a test
//! that changes the settings still counts for the shipped driver. When a machine is dropped, its hits are merged into the process's and
//! written to `<dir>/<key>-<pid>.cov` (one bit per even offset, a bitmap as long as the
//! code); `cargo xtask test` unions the files of the shipped blob's key and prints the
//! figure (`retro68-build/src/coverage.rs`).
//!
//! A hit counts only while the opcode word at the PC is still the image's own word there, so
//! memory freed and reused after the driver is gone is never credited to it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use ferrite_shared::driver_blob::code_key;

/// The environment variable naming the output directory.
pub const DIR_ENV: &str = "FERRITE_COVERAGE_DIR";

/// One watched image in one machine.
struct Region {
    base: u32,
    key: u64,
    /// The image's code as loaded before relocation (opcode words are never relocated).
    code: Vec<u8>,
    /// One bit per even offset.
    hits: Vec<u64>,
}

/// A machine's recorder (present only when [`DIR_ENV`] is set).
pub(crate) struct Recorder {
    dir: PathBuf,
    regions: Vec<Region>,
}

impl Recorder {
    /// A recorder if coverage is on.
    pub(crate) fn from_env() -> Option<Recorder> {
        let dir = std::env::var_os(DIR_ENV).filter(|d| !d.is_empty())?;
        Some(Recorder {
            dir: PathBuf::from(dir),
            regions: Vec::new(),
        })
    }

    /// Watch `image` loaded at `base`, if it is a Ferrite driver. A region it overlaps is
    /// dropped (merged first): that memory holds other code now.
    pub(crate) fn watch(&mut self, base: u32, image: &[u8]) {
        let Some((key, code_len)) = code_key(image) else {
            return;
        };
        let end = base + code_len as u32;
        let (gone, kept): (Vec<Region>, Vec<Region>) = std::mem::take(&mut self.regions)
            .into_iter()
            .partition(|r| r.base < end && base < r.base + r.code.len() as u32);
        self.regions = kept;
        merge(gone);
        self.regions.push(Region {
            base,
            key,
            code: image[..code_len].to_vec(),
            hits: vec![0; code_len.div_ceil(128)],
        });
    }

    /// Record the instruction at `pc` (already decoded to a bus address) if it lies in a
    /// watched image; `opcode` is the word there now.
    #[inline]
    pub(crate) fn hit(&mut self, pc: u32, opcode: u16) {
        for r in &mut self.regions {
            let off = pc.wrapping_sub(r.base) as usize;
            if off + 1 < r.code.len() && off.is_multiple_of(2) {
                if u16::from_be_bytes([r.code[off], r.code[off + 1]]) == opcode {
                    r.hits[off / 128] |= 1 << ((off / 2) % 64);
                }
                return;
            }
        }
    }

    /// Whether any image is watched (the run loop reads the opcode only then).
    #[inline]
    pub(crate) fn watching(&self) -> bool {
        !self.regions.is_empty()
    }

    /// Merge into the process's record and write its files.
    pub(crate) fn finish(&mut self) {
        merge(std::mem::take(&mut self.regions));
        let all = PROCESS.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = std::fs::create_dir_all(&self.dir) {
            eprintln!("coverage: cannot create {}: {e}", self.dir.display());
            return;
        }
        for (key, hits) in all.iter() {
            let path = self
                .dir
                .join(format!("{key:016x}-{}.cov", std::process::id()));
            let bytes: Vec<u8> = hits.iter().flat_map(|w| w.to_le_bytes()).collect();
            // Written whole under a temporary name, then renamed: a reader never sees half.
            let tmp = path.with_extension("tmp");
            if std::fs::write(&tmp, &bytes)
                .and_then(|()| std::fs::rename(&tmp, &path))
                .is_err()
            {
                eprintln!("coverage: cannot write {}", path.display());
            }
        }
    }
}

/// The process's union of hits, by code key.
static PROCESS: Mutex<BTreeMap<u64, Vec<u64>>> = Mutex::new(BTreeMap::new());

fn merge(regions: Vec<Region>) {
    if regions.is_empty() {
        return;
    }
    let mut all = PROCESS.lock().unwrap_or_else(|e| e.into_inner());
    for r in regions {
        let slot = all.entry(r.key).or_insert_with(|| vec![0; r.hits.len()]);
        for (a, b) in slot.iter_mut().zip(&r.hits) {
            *a |= b;
        }
    }
}

/// Read a `.cov` file's bitmap: whether the instruction at even offset `off` ran.
pub fn ran(bitmap: &[u8], off: usize) -> bool {
    let bit = off / 2;
    bitmap
        .get(bit / 8)
        .is_some_and(|b| b & (1 << (bit % 8)) != 0)
}
