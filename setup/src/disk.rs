//! The drive as the formatter core sees it: a [`BlockDevice`] over a [`Transport`] and a
//! SCSI ID (READ(10)/WRITE(10), 512-byte blocks only), and the one way every operation runs a
//! SCSI command ([`run`]: CHECK CONDITION becomes the sense in words, a unit attention is
//! retried).

use alloc::string::ToString;
use alloc::vec;

use ferrite_formatter::{BlockDevice, DeviceError};
use ferrite_shared::scsi::{self, Sense, sense_key, status};

use crate::bus::{Capacity, RETRIES, ScsiError, Transport};
use crate::ops::OpError;

/// The only block length Ferrite's driver (and so Ferrite Setup) serves.
pub const BLOCK_LEN: u32 = 512;
/// Most blocks one READ(10)/WRITE(10) moves (32 KiB: a buffer the app can always allocate).
pub const MAX_TRANSFER_BLOCKS: u64 = 64;

/// The data phase of a command.
pub enum Data<'a> {
    None,
    In(&'a mut [u8]),
    Out(&'a [u8]),
}

/// The sense of the last CHECK CONDITION: the transport's autosense, or REQUEST SENSE.
fn sense(t: &mut dyn Transport, id: u8) -> Option<Sense> {
    if let Some(s) = t.autosense() {
        return Sense::parse(&s);
    }
    let mut s = [0u8; 18];
    t.command(id, &scsi::request_sense(18), &mut s).ok()?;
    Sense::parse(&s)
}

/// Run one command; `what` names it in errors ("WRITE(10)"). A unit attention (power-on,
/// reset, medium change) is retried [`RETRIES`] times; other CHECK CONDITIONs become
/// [`OpError::Sense`], DATA PROTECT becomes [`OpError::WriteProtected`].
pub fn run(
    t: &mut dyn Transport,
    id: u8,
    what: &'static str,
    cdb: &[u8],
    mut data: Data<'_>,
) -> Result<(), OpError> {
    let mut tries = 0;
    loop {
        let r = match &mut data {
            Data::None => t.command(id, cdb, &mut []),
            Data::In(b) => t.command(id, cdb, b),
            Data::Out(b) => t.command_out(id, cdb, b),
        };
        match r {
            Ok(()) => return Ok(()),
            Err(ScsiError::Status(status::CHECK_CONDITION)) => {
                let Some(s) = sense(t, id) else {
                    return Err(OpError::Scsi {
                        command: what,
                        error: ScsiError::Status(status::CHECK_CONDITION),
                    });
                };
                match s.key {
                    sense_key::UNIT_ATTENTION if tries < RETRIES => tries += 1,
                    sense_key::NO_SENSE | sense_key::RECOVERED_ERROR => return Ok(()),
                    sense_key::DATA_PROTECT => return Err(OpError::WriteProtected),
                    _ => {
                        return Err(OpError::Sense {
                            command: what,
                            key: s.key,
                            asc: s.asc,
                            ascq: s.ascq,
                            lba: s.information,
                        });
                    }
                }
            }
            Err(error) => {
                return Err(OpError::Scsi {
                    command: what,
                    error,
                });
            }
        }
    }
}

/// READ CAPACITY(10).
pub fn capacity(t: &mut dyn Transport, id: u8) -> Result<Capacity, OpError> {
    let mut cap = [0u8; 8];
    run(
        t,
        id,
        "READ CAPACITY",
        &scsi::read_capacity_10(),
        Data::In(&mut cap),
    )?;
    Ok(Capacity::parse(&cap))
}

/// The drive at `id` as a block device. Errors of the last transfer are kept in
/// [`ScsiDisk::last_error`] so that an operation can report them as they were, not as the
/// formatter's text.
pub struct ScsiDisk<'t> {
    t: &'t mut dyn Transport,
    id: u8,
    blocks: u64,
    pub last_error: Option<OpError>,
    /// Blocks written so far (for progress).
    pub written: u64,
}

impl<'t> ScsiDisk<'t> {
    /// Open the drive: READ CAPACITY, refusing any block length but 512 bytes.
    pub fn open(t: &'t mut dyn Transport, id: u8) -> Result<ScsiDisk<'t>, OpError> {
        let c = capacity(t, id)?;
        if c.block_len != BLOCK_LEN {
            return Err(OpError::BlockSize(c.block_len));
        }
        Ok(ScsiDisk {
            t,
            id,
            blocks: c.blocks,
            last_error: None,
            written: 0,
        })
    }

    pub fn id(&self) -> u8 {
        self.id
    }

    pub fn transport(&mut self) -> &mut dyn Transport {
        &mut *self.t
    }

    /// The error to report for a formatter failure: the SCSI one behind it if there was one.
    pub fn error_or(&mut self, other: impl FnOnce() -> OpError) -> OpError {
        self.last_error.take().unwrap_or_else(other)
    }

    fn fail(&mut self, e: OpError) -> DeviceError {
        let text = e.to_string();
        self.last_error = Some(e);
        DeviceError::Io(text)
    }
}

impl BlockDevice for ScsiDisk<'_> {
    fn block_count(&self) -> u64 {
        self.blocks
    }

    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        let n =
            ferrite_formatter::device::check_transfer(block, buf.len(), BLOCK_LEN, self.blocks)?;
        let mut done = 0u64;
        while done < n {
            let k = (n - done).min(MAX_TRANSFER_BLOCKS);
            let at = (done * BLOCK_LEN as u64) as usize;
            let end = at + (k * BLOCK_LEN as u64) as usize;
            let cdb = scsi::read_10((block + done) as u32, k as u16);
            if let Err(e) = run(
                self.t,
                self.id,
                "READ(10)",
                &cdb,
                Data::In(&mut buf[at..end]),
            ) {
                return Err(self.fail(e));
            }
            done += k;
        }
        Ok(())
    }

    fn write_blocks(&mut self, block: u64, buf: &[u8]) -> Result<(), DeviceError> {
        let n =
            ferrite_formatter::device::check_transfer(block, buf.len(), BLOCK_LEN, self.blocks)?;
        let mut done = 0u64;
        while done < n {
            let k = (n - done).min(MAX_TRANSFER_BLOCKS);
            let at = (done * BLOCK_LEN as u64) as usize;
            let end = at + (k * BLOCK_LEN as u64) as usize;
            let cdb = scsi::write_10((block + done) as u32, k as u16, false);
            if let Err(e) = run(self.t, self.id, "WRITE(10)", &cdb, Data::Out(&buf[at..end])) {
                return Err(self.fail(e));
            }
            done += k;
            self.written += k;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), DeviceError> {
        match run(
            self.t,
            self.id,
            "SYNCHRONIZE CACHE",
            &scsi::synchronize_cache_10(),
            Data::None,
        ) {
            // A drive without the command (SCSI-1) has no write cache to flush.
            Err(OpError::Sense {
                key: sense_key::ILLEGAL_REQUEST,
                ..
            })
            | Ok(()) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }
}

/// A zeroed buffer of `blocks` blocks.
pub fn buffer(blocks: u64) -> alloc::vec::Vec<u8> {
    vec![0u8; (blocks * BLOCK_LEN as u64) as usize]
}
