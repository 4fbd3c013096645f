//! The surface test (VERIFY(10) in chunks, or READ(10) where the drive refuses VERIFY; a
//! failing chunk is narrowed to its exact bad blocks) and REASSIGN BLOCKS.

use alloc::vec::Vec;

use ferrite_shared::scsi::{self, op, sense_key};

use crate::bus::Transport;
use crate::disk::{self, BLOCK_LEN, Data, MAX_TRANSFER_BLOCKS, run};
use crate::ops::{Monitor, OpError, Stage};

/// Blocks one VERIFY checks (1 MiB).
pub const VERIFY_CHUNK: u64 = 2048;
/// Most LBAs one REASSIGN BLOCKS carries.
pub const REASSIGN_CHUNK: usize = 64;

/// How the blocks are checked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    Verify,
    Read,
}

/// Check `n` blocks at `lba`: `Ok(true)` good, `Ok(false)` a medium error, `Err` anything
/// else (the drive gone, refused, …).
fn check(
    t: &mut dyn Transport,
    id: u8,
    method: Method,
    lba: u64,
    n: u64,
    buf: &mut Vec<u8>,
) -> Result<bool, OpError> {
    let r = match method {
        Method::Verify => run(
            t,
            id,
            "VERIFY",
            &scsi::verify_10(lba as u32, n as u16),
            Data::None,
        ),
        Method::Read => {
            let mut r = Ok(());
            let mut done = 0;
            while done < n && r.is_ok() {
                let k = (n - done).min(MAX_TRANSFER_BLOCKS);
                let len = (k * BLOCK_LEN as u64) as usize;
                if buf.len() < len {
                    buf.resize(len, 0);
                }
                r = run(
                    t,
                    id,
                    "READ(10)",
                    &scsi::read_10((lba + done) as u32, k as u16),
                    Data::In(&mut buf[..len]),
                );
                done += k;
            }
            r
        }
    };
    match r {
        Ok(()) => Ok(true),
        Err(OpError::Sense {
            key: sense_key::MEDIUM_ERROR,
            ..
        }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether an error is the drive refusing the command itself (ILLEGAL REQUEST: invalid
/// operation code or field).
fn refused(e: &OpError) -> bool {
    matches!(
        e,
        OpError::Sense {
            key: sense_key::ILLEGAL_REQUEST,
            asc: 0x20 | 0x24,
            ..
        }
    )
}

/// Narrow a failing range to its bad blocks by halving.
fn narrow(
    t: &mut dyn Transport,
    id: u8,
    method: Method,
    lba: u64,
    n: u64,
    buf: &mut Vec<u8>,
    bad: &mut Vec<u64>,
) -> Result<(), OpError> {
    if n == 1 {
        bad.push(lba);
        return Ok(());
    }
    let half = n / 2;
    for (at, k) in [(lba, half), (lba + half, n - half)] {
        if !check(t, id, method, at, k, buf)? {
            narrow(t, id, method, at, k, buf, bad)?;
        }
    }
    Ok(())
}

/// Read-verify every block of the drive at `id`; the bad LBAs in order. `m` sees
/// [`Stage::Verify`] after every chunk; when it returns `false` the test stops there and
/// the bad blocks found so far are returned.
pub fn surface_test(
    t: &mut dyn Transport,
    id: u8,
    m: &mut dyn Monitor,
) -> Result<Vec<u64>, OpError> {
    let cap = disk::capacity(t, id)?;
    if cap.block_len != BLOCK_LEN {
        return Err(OpError::BlockSize(cap.block_len));
    }
    let total = cap.blocks;
    let mut method = Method::Verify;
    let mut bad = Vec::new();
    let mut buf = Vec::new();
    let mut lba = 0u64;
    if !m.progress(Stage::Verify, 0, total) {
        return Ok(bad);
    }
    while lba < total {
        let n = (total - lba).min(VERIFY_CHUNK);
        let good = match check(t, id, method, lba, n, &mut buf) {
            Err(e) if method == Method::Verify && refused(&e) => {
                method = Method::Read;
                check(t, id, method, lba, n, &mut buf)?
            }
            r => r?,
        };
        if !good {
            narrow(t, id, method, lba, n, &mut buf, &mut bad)?;
        }
        lba += n;
        if !m.progress(Stage::Verify, lba, total) {
            break;
        }
    }
    Ok(bad)
}

/// REASSIGN BLOCKS for `bad` (the drive maps each to a spare and, as SCSI-2 says, keeps
/// whatever data it could recover), in commands of [`REASSIGN_CHUNK`] LBAs.
pub fn reassign(t: &mut dyn Transport, id: u8, bad: &[u64]) -> Result<(), OpError> {
    for chunk in bad.chunks(REASSIGN_CHUNK) {
        let mut list = Vec::with_capacity(4 + 4 * chunk.len());
        list.extend_from_slice(&[0, 0]);
        list.extend_from_slice(&((4 * chunk.len()) as u16).to_be_bytes());
        for &lba in chunk {
            let lba = u32::try_from(lba).map_err(|_| OpError::NoSuchBlock(lba))?;
            list.extend_from_slice(&lba.to_be_bytes());
        }
        run(
            t,
            id,
            "REASSIGN BLOCKS",
            &[op::REASSIGN_BLOCKS, 0, 0, 0, 0, 0],
            Data::Out(&list),
        )?;
    }
    Ok(())
}
