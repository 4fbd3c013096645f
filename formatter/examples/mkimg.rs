use ferrite_formatter::apm::{Layout, write_map};
use ferrite_formatter::hfs::{FormatOptions, NewFile, Volume, format_volume};
use ferrite_formatter::image::ImageFile;
use ferrite_formatter::Region;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mut img = ImageFile::create(path.as_ref(), 20 << 20).unwrap();
    let drv = vec![0x4Eu8; 3000];
    let map = write_map(&mut img, &Layout::single(Some(&drv), "MacOS")).unwrap();
    let p = map.hfs_partitions().next().unwrap().clone();
    let mut r = Region::new(&mut img, p.start as u64, p.blocks as u64).unwrap();
    format_volume(&mut r, &FormatOptions::new(b"Ferrite", 3_000_000_000)).unwrap();
    let mut v = Volume::open(r).unwrap();
    let f = v.make_folders(&[b"Sub"], 3_000_000_000).unwrap();
    v.add_file(2, &NewFile { name: b"Hello", file_type: *b"TEXT", creator: *b"ttxt", finder_flags: 0, data: b"hello world\r", rsrc: b"RSRC", created: 3_000_000_001, modified: 3_000_000_002 }).unwrap();
    v.add_file(f, &NewFile { name: b"Inner", file_type: *b"APPL", creator: *b"FeRR", finder_flags: 0x2000, data: b"", rsrc: &[1,2,3,4,5], created: 3_000_000_001, modified: 3_000_000_002 }).unwrap();
    v.flush().unwrap();
}
