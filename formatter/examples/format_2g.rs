//! Measure formatting a 2 GB sparse image: wall time, heap allocations, bytes allocated and
//! the file's allocated size on disk. `cargo run --release -p ferrite-formatter --example format_2g [PATH]`

use ferrite_formatter::apm::{Layout, write_map};
use ferrite_formatter::hfs::{FormatOptions, Volume, check_volume, format_volume};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::{BlockDevice, Region};
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: AllocLayout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(l.size() as u64, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: AllocLayout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        std::env::temp_dir()
            .join("ferrite-2g.img")
            .display()
            .to_string()
    });
    let t = Instant::now();
    let (a0, b0) = (
        ALLOCS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    let mut img = ImageFile::create(path.as_ref(), 2 << 30).unwrap();
    let driver = vec![0x4E; 20_000];
    let map = write_map(&mut img, &Layout::single(Some(&driver), "MacOS")).unwrap();
    let p = map.hfs_partitions().next().unwrap().clone();
    let mut r = Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap();
    let g = format_volume(&mut r, &FormatOptions::new(b"Big", 3_000_000_000)).unwrap();
    r.flush().unwrap();
    let took = t.elapsed();
    let (a1, b1) = (
        ALLOCS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    println!(
        "partition {} blocks: drAlBlkSiz {} B, {} allocation blocks, tree files {} B each",
        p.blocks,
        g.alloc_block_size,
        g.alloc_blocks,
        Volume::open(&mut r).unwrap().info().catalog_bytes
    );
    println!(
        "map + format: {:?}, {} allocations, {} bytes allocated",
        took,
        a1 - a0,
        b1 - b0
    );
    let t = Instant::now();
    let report = check_volume(&mut r).unwrap();
    println!("check: {:?}, clean: {}", t.elapsed(), report.is_clean());
    let meta = std::fs::metadata(&path).unwrap();
    #[cfg(unix)]
    println!(
        "file size {} B, on disk {} KiB",
        meta.len(),
        std::os::unix::fs::MetadataExt::blocks(&meta) / 2
    );
    std::fs::remove_file(&path).unwrap();
}
