//! Host I/O (feature `std`): disk image files and raw devices as [`BlockDevice`]s.

use crate::device::{BlockDevice, DeviceError, check_transfer};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::string::ToString;

/// A disk image file or a raw block device. Its size is fixed when it is opened: a transfer
/// outside it fails and nothing past the end is ever written.
#[derive(Debug)]
pub struct ImageFile {
    file: File,
    blocks: u64,
    block_size: u32,
}

fn io_err(e: io::Error) -> DeviceError {
    DeviceError::Io(e.to_string())
}

impl ImageFile {
    /// Create (or replace) a sparse image of `bytes` bytes (rounded down to 512-byte blocks).
    pub fn create(path: &Path, bytes: u64) -> io::Result<Self> {
        let blocks = bytes / 512;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        file.set_len(blocks * 512)?;
        Ok(ImageFile {
            file,
            blocks,
            block_size: 512,
        })
    }

    /// Open an existing image file or raw block device for reading and writing, without
    /// truncating it. The size is found by seeking to the end; a trailing partial block is
    /// ignored. Anything that is neither a regular file nor a block device is refused.
    pub fn open(path: &Path) -> io::Result<Self> {
        Self::open_with(path, true, 512)
    }

    /// Open read-only.
    pub fn open_read_only(path: &Path) -> io::Result<Self> {
        Self::open_with(path, false, 512)
    }

    /// Open with a block size other than 512 (a multiple of 512).
    pub fn open_with(path: &Path, write: bool, block_size: u32) -> io::Result<Self> {
        if block_size < 512 || !block_size.is_multiple_of(512) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "block size must be a multiple of 512",
            ));
        }
        let meta = std::fs::metadata(path)?;
        let ft = meta.file_type();
        #[cfg(unix)]
        let is_block = std::os::unix::fs::FileTypeExt::is_block_device(&ft);
        #[cfg(not(unix))]
        let is_block = false;
        if !ft.is_file() && !is_block {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                std::format!(
                    "{} is neither a regular file nor a block device",
                    path.display()
                ),
            ));
        }
        let mut file = OpenOptions::new().read(true).write(write).open(path)?;
        let len = file.seek(SeekFrom::End(0))?;
        Ok(ImageFile {
            file,
            blocks: len / block_size as u64,
            block_size,
        })
    }
}

impl BlockDevice for ImageFile {
    fn block_size(&self) -> u32 {
        self.block_size
    }
    fn block_count(&self) -> u64 {
        self.blocks
    }
    fn read_blocks(&mut self, block: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        check_transfer(block, buf.len(), self.block_size, self.blocks)?;
        self.file
            .seek(SeekFrom::Start(block * self.block_size as u64))
            .map_err(io_err)?;
        self.file.read_exact(buf).map_err(io_err)
    }
    fn write_blocks(&mut self, block: u64, buf: &[u8]) -> Result<(), DeviceError> {
        check_transfer(block, buf.len(), self.block_size, self.blocks)?;
        self.file
            .seek(SeekFrom::Start(block * self.block_size as u64))
            .map_err(io_err)?;
        self.file.write_all(buf).map_err(io_err)
    }
    fn flush(&mut self) -> Result<(), DeviceError> {
        self.file.flush().map_err(io_err)?;
        self.file.sync_data().map_err(io_err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_file_is_sparse_and_bounded() {
        let dir = std::env::temp_dir().join(std::format!("ferrite-img-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.img");
        let mut img = ImageFile::create(&path, 1 << 20).unwrap();
        assert_eq!(img.block_count(), 2048);
        img.write_blocks(2047, &[7; 512]).unwrap();
        assert!(img.write_blocks(2048, &[7; 512]).is_err());
        drop(img);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 1 << 20);
        let mut img = ImageFile::open(&path).unwrap();
        let mut b = [0; 512];
        img.read_blocks(2047, &mut b).unwrap();
        assert_eq!(b, [7; 512]);
        assert!(
            ImageFile::open(&dir).is_err(),
            "a directory must be refused"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
