//! Block devices: the [`BlockDevice`] trait, an in-memory disk ([`MemDisk`]) and a window onto
//! part of another device ([`Region`], e.g. one partition). Byte-addressed helpers
//! ([`read_bytes`], [`write_bytes`]) handle transfers that do not start or end on a block.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

/// Why a device transfer failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceError {
    /// The transfer would touch blocks past the end of the device.
    OutOfRange {
        block: u64,
        blocks: u64,
        device_blocks: u64,
    },
    /// The buffer is not a whole number of blocks.
    Misaligned { len: usize, block_size: u32 },
    /// The host reported an error (message kept as text so the core stays `no_std`).
    Io(alloc::string::String),
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::OutOfRange {
                block,
                blocks,
                device_blocks,
            } => write!(
                f,
                "transfer of {blocks} blocks at block {block} goes past the end of the {device_blocks}-block device"
            ),
            DeviceError::Misaligned { len, block_size } => {
                write!(
                    f,
                    "transfer of {len} bytes is not a whole number of {block_size}-byte blocks"
                )
            }
            DeviceError::Io(m) => write!(f, "I/O error: {m}"),
        }
    }
}

impl core::error::Error for DeviceError {}

/// A device addressed in fixed-size blocks (512 bytes unless it says otherwise).
pub trait BlockDevice {
    /// Bytes per block: a multiple of 512.
    fn block_size(&self) -> u32 {
        512
    }
    /// Number of blocks.
    fn block_count(&self) -> u64;
    /// Read `buf.len() / block_size` blocks starting at `block`.
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError>;
    /// Write `buf.len() / block_size` blocks starting at `block`.
    fn write_blocks(&mut self, block: u64, buf: &[u8]) -> Result<(), DeviceError>;
    /// Push buffered writes to the medium.
    fn flush(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }
    /// Size in bytes.
    fn size_bytes(&self) -> u64 {
        self.block_count() * self.block_size() as u64
    }
}

impl<T: BlockDevice + ?Sized> BlockDevice for &mut T {
    fn block_size(&self) -> u32 {
        (**self).block_size()
    }
    fn block_count(&self) -> u64 {
        (**self).block_count()
    }
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        (**self).read_blocks(block, buf)
    }
    fn write_blocks(&mut self, block: u64, buf: &[u8]) -> Result<(), DeviceError> {
        (**self).write_blocks(block, buf)
    }
    fn flush(&mut self) -> Result<(), DeviceError> {
        (**self).flush()
    }
}

/// Check a transfer of `len` bytes at `block` against a device's geometry; returns the block
/// count.
pub fn check_transfer(
    block: u64,
    len: usize,
    block_size: u32,
    device_blocks: u64,
) -> Result<u64, DeviceError> {
    if !len.is_multiple_of(block_size as usize) {
        return Err(DeviceError::Misaligned { len, block_size });
    }
    let blocks = (len / block_size as usize) as u64;
    match block.checked_add(blocks) {
        Some(end) if end <= device_blocks => Ok(blocks),
        _ => Err(DeviceError::OutOfRange {
            block,
            blocks,
            device_blocks,
        }),
    }
}

/// A disk held in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemDisk {
    data: Vec<u8>,
    block_size: u32,
}

impl MemDisk {
    /// A zero-filled disk of `blocks` 512-byte blocks.
    pub fn new(blocks: u64) -> Self {
        Self::with_block_size(blocks, 512)
    }
    /// A zero-filled disk with another block size (a multiple of 512).
    pub fn with_block_size(blocks: u64, block_size: u32) -> Self {
        assert!(
            block_size >= 512 && block_size.is_multiple_of(512),
            "block size must be a multiple of 512"
        );
        MemDisk {
            data: vec![0; (blocks * block_size as u64) as usize],
            block_size,
        }
    }
    /// A disk over existing bytes (length rounded down to whole 512-byte blocks).
    pub fn from_bytes(mut data: Vec<u8>) -> Self {
        let len = data.len() / 512 * 512;
        data.truncate(len);
        MemDisk {
            data,
            block_size: 512,
        }
    }
    /// The disk's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data
    }
    /// The disk's bytes, mutable (to corrupt them in tests).
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        &mut self.data
    }
    /// The bytes, consuming the disk.
    pub fn into_bytes(self) -> Vec<u8> {
        self.data
    }
}

impl BlockDevice for MemDisk {
    fn block_size(&self) -> u32 {
        self.block_size
    }
    fn block_count(&self) -> u64 {
        self.data.len() as u64 / self.block_size as u64
    }
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        check_transfer(block, buf.len(), self.block_size, self.block_count())?;
        let at = (block * self.block_size as u64) as usize;
        buf.copy_from_slice(&self.data[at..at + buf.len()]);
        Ok(())
    }
    fn write_blocks(&mut self, block: u64, buf: &[u8]) -> Result<(), DeviceError> {
        check_transfer(block, buf.len(), self.block_size, self.block_count())?;
        let at = (block * self.block_size as u64) as usize;
        self.data[at..at + buf.len()].copy_from_slice(buf);
        Ok(())
    }
}

/// A window of `blocks` blocks starting at `first` on another device (e.g. a partition).
/// Transfers outside the window fail; nothing outside it is ever touched.
#[derive(Debug)]
pub struct Region<D> {
    dev: D,
    first: u64,
    blocks: u64,
}

impl<D: BlockDevice> Region<D> {
    /// The window; fails if it does not fit on the device.
    pub fn new(dev: D, first: u64, blocks: u64) -> Result<Self, DeviceError> {
        check_transfer(first, 0, dev.block_size(), dev.block_count())?;
        match first.checked_add(blocks) {
            Some(end) if end <= dev.block_count() => Ok(Region { dev, first, blocks }),
            _ => Err(DeviceError::OutOfRange {
                block: first,
                blocks,
                device_blocks: dev.block_count(),
            }),
        }
    }
    /// The first block of the window on the underlying device.
    pub fn first_block(&self) -> u64 {
        self.first
    }
    /// The underlying device.
    pub fn into_inner(self) -> D {
        self.dev
    }
}

impl<D: BlockDevice> BlockDevice for Region<D> {
    fn block_size(&self) -> u32 {
        self.dev.block_size()
    }
    fn block_count(&self) -> u64 {
        self.blocks
    }
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        check_transfer(block, buf.len(), self.block_size(), self.blocks)?;
        self.dev.read_blocks(self.first + block, buf)
    }
    fn write_blocks(&mut self, block: u64, buf: &[u8]) -> Result<(), DeviceError> {
        check_transfer(block, buf.len(), self.block_size(), self.blocks)?;
        self.dev.write_blocks(self.first + block, buf)
    }
    fn flush(&mut self) -> Result<(), DeviceError> {
        self.dev.flush()
    }
}

/// Read `buf.len()` bytes at byte `offset` of the device (any alignment).
pub fn read_bytes<D: BlockDevice + ?Sized>(
    dev: &mut D,
    offset: u64,
    buf: &mut [u8],
) -> Result<(), DeviceError> {
    let bs = dev.block_size() as u64;
    let end = offset
        .checked_add(buf.len() as u64)
        .ok_or(DeviceError::OutOfRange {
            block: offset / bs,
            blocks: u64::MAX,
            device_blocks: dev.block_count(),
        })?;
    if end > dev.size_bytes() {
        return Err(DeviceError::OutOfRange {
            block: offset / bs,
            blocks: (end - offset).div_ceil(bs),
            device_blocks: dev.block_count(),
        });
    }
    if offset.is_multiple_of(bs) && (buf.len() as u64).is_multiple_of(bs) {
        return dev.read_blocks(offset / bs, buf);
    }
    let first = offset / bs;
    let last = end.div_ceil(bs);
    let mut tmp = vec![0u8; ((last - first) * bs) as usize];
    dev.read_blocks(first, &mut tmp)?;
    let skip = (offset - first * bs) as usize;
    buf.copy_from_slice(&tmp[skip..skip + buf.len()]);
    Ok(())
}

/// Write `buf` at byte `offset` of the device (any alignment; partial blocks are read,
/// modified and written back).
pub fn write_bytes<D: BlockDevice + ?Sized>(
    dev: &mut D,
    offset: u64,
    buf: &[u8],
) -> Result<(), DeviceError> {
    let bs = dev.block_size() as u64;
    let end = offset.saturating_add(buf.len() as u64);
    if end > dev.size_bytes() {
        return Err(DeviceError::OutOfRange {
            block: offset / bs,
            blocks: (buf.len() as u64).div_ceil(bs),
            device_blocks: dev.block_count(),
        });
    }
    if offset.is_multiple_of(bs) && (buf.len() as u64).is_multiple_of(bs) {
        return dev.write_blocks(offset / bs, buf);
    }
    let first = offset / bs;
    let last = end.div_ceil(bs);
    let mut tmp = vec![0u8; ((last - first) * bs) as usize];
    dev.read_blocks(first, &mut tmp)?;
    let skip = (offset - first * bs) as usize;
    tmp[skip..skip + buf.len()].copy_from_slice(buf);
    dev.write_blocks(first, &tmp)
}

/// Write `len` zero bytes at byte `offset`, in bounded chunks.
pub fn zero_bytes<D: BlockDevice + ?Sized>(
    dev: &mut D,
    offset: u64,
    len: u64,
) -> Result<(), DeviceError> {
    const CHUNK: u64 = 64 * 1024;
    let zeros = vec![0u8; CHUNK.min(len) as usize];
    let mut done = 0;
    while done < len {
        let n = CHUNK.min(len - done);
        write_bytes(dev, offset + done, &zeros[..n as usize])?;
        done += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_disk_bounds() {
        let mut d = MemDisk::new(4);
        assert_eq!(d.block_count(), 4);
        let mut b = [0u8; 512];
        assert!(d.read_blocks(3, &mut b).is_ok());
        assert!(matches!(
            d.read_blocks(4, &mut b),
            Err(DeviceError::OutOfRange { .. })
        ));
        assert!(matches!(
            d.read_blocks(0, &mut b[..100]),
            Err(DeviceError::Misaligned { .. })
        ));
        assert!(matches!(
            d.write_blocks(u64::MAX, &b),
            Err(DeviceError::OutOfRange { .. })
        ));
    }

    #[test]
    fn region_confines_transfers() {
        let mut d = MemDisk::new(10);
        {
            let mut r = Region::new(&mut d, 2, 3).unwrap();
            assert_eq!(r.block_count(), 3);
            r.write_blocks(0, &[0xAA; 1024]).unwrap();
            assert!(r.write_blocks(2, &[0xBB; 1024]).is_err());
        }
        assert_eq!(d.as_bytes()[1023], 0);
        assert_eq!(d.as_bytes()[1024], 0xAA);
        assert_eq!(d.as_bytes()[2047], 0xAA);
        assert_eq!(d.as_bytes()[2048], 0);
        assert!(Region::new(&mut d, 8, 3).is_err());
    }

    #[test]
    fn unaligned_bytes_round_trip() {
        let mut d = MemDisk::with_block_size(4, 2048);
        write_bytes(&mut d, 1000, &[1, 2, 3, 4, 5]).unwrap();
        write_bytes(&mut d, 2046, &[9, 9, 9, 9]).unwrap();
        let mut b = [0u8; 7];
        read_bytes(&mut d, 999, &mut b).unwrap();
        assert_eq!(b, [0, 1, 2, 3, 4, 5, 0]);
        read_bytes(&mut d, 2045, &mut b[..6]).unwrap();
        assert_eq!(&b[..6], &[0, 9, 9, 9, 9, 0]);
        assert!(read_bytes(&mut d, 8190, &mut b).is_err());
        assert!(write_bytes(&mut d, 8190, &b).is_err());
    }
}
