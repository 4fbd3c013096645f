//! The backing store: an image file (sparse: created with `set_len`, only touched inside its
//! length) or memory. Every access is checked against the capacity before it happens, so a
//! bug above cannot read or grow the file past its end.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Where the blocks live.
#[derive(Debug)]
pub enum Store {
    File {
        file: File,
        path: PathBuf,
        writable: bool,
    },
    Memory(Vec<u8>),
}

impl Store {
    /// Create (or truncate) `path` as a sparse file of `bytes`.
    pub fn create_file(path: &Path, bytes: u64) -> io::Result<Store> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        file.set_len(bytes)?;
        Ok(Store::File {
            file,
            path: path.to_owned(),
            writable: true,
        })
    }

    /// Open an existing image read-write, or read-only if that is all the file allows.
    pub fn open_file(path: &Path) -> io::Result<Store> {
        match OpenOptions::new().read(true).write(true).open(path) {
            Ok(file) => Ok(Store::File {
                file,
                path: path.to_owned(),
                writable: true,
            }),
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                let file = File::open(path)?;
                Ok(Store::File {
                    file,
                    path: path.to_owned(),
                    writable: false,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// A zeroed in-memory store.
    pub fn memory(bytes: u64) -> Store {
        Store::Memory(vec![0; bytes as usize])
    }

    /// Size in bytes (the file's length).
    pub fn len(&self) -> io::Result<u64> {
        match self {
            Store::File { file, .. } => Ok(file.metadata()?.len()),
            Store::Memory(v) => Ok(v.len() as u64),
        }
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Whether the host lets us write.
    pub fn writable(&self) -> bool {
        match self {
            Store::File { writable, .. } => *writable,
            Store::Memory(_) => true,
        }
    }

    /// The image path, for file stores.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Store::File { path, .. } => Some(path),
            Store::Memory(_) => None,
        }
    }

    fn check(&self, offset: u64, len: usize, limit: u64) -> io::Result<()> {
        match offset.checked_add(len as u64) {
            Some(end) if end <= limit => Ok(()),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("store access {offset}+{len} outside the {limit}-byte image"),
            )),
        }
    }

    /// Read `buf.len()` bytes at `offset`; both must lie within `limit` (the capacity).
    pub fn read_at(&mut self, offset: u64, buf: &mut [u8], limit: u64) -> io::Result<()> {
        self.check(offset, buf.len(), limit)?;
        match self {
            Store::File { file, .. } => {
                file.seek(SeekFrom::Start(offset))?;
                file.read_exact(buf)
            }
            Store::Memory(v) => {
                let o = offset as usize;
                buf.copy_from_slice(&v[o..o + buf.len()]);
                Ok(())
            }
        }
    }

    /// Write `data` at `offset`; it must lie within `limit` (the capacity).
    pub fn write_at(&mut self, offset: u64, data: &[u8], limit: u64) -> io::Result<()> {
        self.check(offset, data.len(), limit)?;
        match self {
            Store::File { file, writable, .. } => {
                if !*writable {
                    return Err(io::Error::new(
                        io::ErrorKind::PermissionDenied,
                        "image file opened read-only",
                    ));
                }
                file.seek(SeekFrom::Start(offset))?;
                file.write_all(data)
            }
            Store::Memory(v) => {
                let o = offset as usize;
                v[o..o + data.len()].copy_from_slice(data);
                Ok(())
            }
        }
    }

    /// Zero the first `bytes` (FORMAT UNIT). A file is cut to 0 and grown back: the holes
    /// read as zeros and the image stays sparse.
    pub fn zero(&mut self, bytes: u64) -> io::Result<()> {
        match self {
            Store::File { file, writable, .. } => {
                if !*writable {
                    return Err(io::Error::new(
                        io::ErrorKind::PermissionDenied,
                        "image file opened read-only",
                    ));
                }
                let len = file.metadata()?.len();
                file.set_len(0)?;
                file.set_len(len.max(bytes))
            }
            Store::Memory(v) => {
                v.iter_mut().for_each(|b| *b = 0);
                Ok(())
            }
        }
    }

    /// Push written data to the host OS (host `flush()`; not needed for correctness).
    pub fn sync(&mut self) -> io::Result<()> {
        match self {
            Store::File { file, .. } => file.flush(),
            Store::Memory(_) => Ok(()),
        }
    }
}
