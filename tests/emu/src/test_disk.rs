//! A builder for small partitioned disk images used by the emulator's own tests (the
//! formatter, not this, is what users get). It writes block 0, a partition map in the layout
//! of `docs/mac-facts.md` §1.8, a driver image and, per HFS partition, just enough of an
//! HFS Master Directory Block (`docs/mac-facts.md` §14.3) for a mount to read name, size
//! and free space.

use ferrite_shared::partition_map::{
    DDM_SIGNATURE, DriverDescriptorMap, PM_SIGNATURE, PartitionEntry, SCSI_DRIVER_PAD_SIGNATURE,
    boot_checksum, dd_type, part_type, set_c_field, status,
};
use zerocopy::IntoBytes;

/// One HFS partition of a [`TestDisk`].
#[derive(Debug, Clone)]
pub struct TestVolume {
    pub name: String,
    pub blocks: u32,
    /// Allocation block size in bytes (multiple of 512).
    pub alloc_block_size: u32,
    /// Free allocation blocks recorded in the MDB.
    pub free_alloc_blocks: u16,
}

/// Description of a test disk.
#[derive(Debug, Clone)]
pub struct TestDisk {
    pub total_blocks: u32,
    pub driver: Vec<u8>,
    /// `pmParType` of the driver partition.
    pub driver_type: String,
    /// `pmPartName` of the driver partition ("Macintosh" makes the ROM check the checksum).
    pub driver_name: String,
    pub volumes: Vec<TestVolume>,
    /// Store a wrong checksum (for skip tests).
    pub corrupt_checksum: bool,
}

/// Where things landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestDiskLayout {
    pub driver_start: u32,
    pub driver_blocks: u32,
    /// (start, blocks) per volume.
    pub volumes: Vec<(u32, u32)>,
}

impl TestDisk {
    /// A disk with one driver and one 2 MB volume "Test HD".
    pub fn new(driver: Vec<u8>) -> TestDisk {
        TestDisk {
            total_blocks: 8192,
            driver,
            driver_type: part_type::DRIVER43.into(),
            driver_name: "Macintosh".into(),
            volumes: vec![TestVolume {
                name: "Test HD".into(),
                blocks: 4096,
                alloc_block_size: 512,
                free_alloc_blocks: 3000,
            }],
            corrupt_checksum: false,
        }
    }

    /// The image bytes and the layout.
    pub fn build(&self) -> (Vec<u8>, TestDiskLayout) {
        let mut img = vec![0u8; self.total_blocks as usize * 512];
        let driver_start = 64u32;
        let driver_blocks = (self.driver.len() as u32).div_ceil(512).max(1);
        let mut next = driver_start + driver_blocks;
        let mut vols = Vec::new();
        for v in &self.volumes {
            vols.push((next, v.blocks));
            next += v.blocks;
        }
        assert!(
            next <= self.total_blocks,
            "test disk too small for its partitions"
        );
        let map_entries = 2 + self.volumes.len() as u32 + u32::from(next < self.total_blocks);

        let mut ddm = DriverDescriptorMap::zeroed();
        ddm.sig.set(DDM_SIGNATURE);
        ddm.block_size.set(512);
        ddm.block_count.set(self.total_blocks);
        ddm.driver_count.set(1);
        ddm.drivers[0].block.set(driver_start);
        ddm.drivers[0].size.set(driver_blocks as u16);
        ddm.drivers[0].kind.set(dd_type::MAC_SCSI);
        img[..512].copy_from_slice(ddm.as_bytes());

        fn put(img: &mut [u8], blk: u32, e: &PartitionEntry) {
            let o = blk as usize * 512;
            img[o..o + 512].copy_from_slice(e.as_bytes());
        }
        let entry = |name: &str, kind: &str, start: u32, len: u32, st: u32| {
            let mut e = PartitionEntry::zeroed();
            e.sig.set(PM_SIGNATURE);
            e.map_block_count.set(map_entries);
            e.start.set(start);
            e.block_count.set(len);
            set_c_field(&mut e.name, name);
            set_c_field(&mut e.kind, kind);
            e.data_count.set(len);
            e.status.set(st);
            e
        };
        put(
            &mut img,
            1,
            &entry(
                "Apple",
                part_type::PARTITION_MAP,
                1,
                63,
                status::MAP_PARTITION,
            ),
        );
        let mut d = entry(
            &self.driver_name,
            &self.driver_type,
            driver_start,
            driver_blocks,
            status::DRIVER_PARTITION,
        );
        d.boot_size.set(self.driver.len() as u32);
        let ck = boot_checksum(&self.driver) as u32;
        d.boot_checksum
            .set(if self.corrupt_checksum { ck ^ 1 } else { ck });
        set_c_field(&mut d.processor, "68000");
        d.pad[..4].copy_from_slice(&SCSI_DRIVER_PAD_SIGNATURE.to_be_bytes());
        put(&mut img, 2, &d);
        for (i, (v, &(start, len))) in self.volumes.iter().zip(&vols).enumerate() {
            put(
                &mut img,
                3 + i as u32,
                &entry("MacOS", part_type::HFS, start, len, status::HFS_PARTITION),
            );
            write_mdb(&mut img[(start as usize + 2) * 512..][..512], v);
        }
        if next < self.total_blocks {
            let blk = 3 + self.volumes.len() as u32;
            put(
                &mut img,
                blk,
                &entry("Extra", part_type::FREE, next, self.total_blocks - next, 0),
            );
        }
        let o = driver_start as usize * 512;
        img[o..o + self.driver.len()].copy_from_slice(&self.driver);
        (
            img,
            TestDiskLayout {
                driver_start,
                driver_blocks,
                volumes: vols,
            },
        )
    }
}

/// MDB offsets (`docs/mac-facts.md` §14.3).
pub mod mdb {
    pub const DR_SIG_WORD: usize = 0x00;
    pub const DR_NM_AL_BLKS: usize = 0x12;
    pub const DR_AL_BLK_SIZ: usize = 0x14;
    pub const DR_AL_BL_ST: usize = 0x1C;
    pub const DR_FREE_BKS: usize = 0x22;
    pub const DR_VN: usize = 0x24;
    pub const HFS_SIGNATURE: u16 = 0x4244;
}

fn write_mdb(b: &mut [u8], v: &TestVolume) {
    let abs = v.alloc_block_size.max(512);
    let al_bl_st = 4u32;
    let n = ((v.blocks - al_bl_st - 2) / (abs / 512)).min(65535) as u16;
    b[mdb::DR_SIG_WORD..][..2].copy_from_slice(&mdb::HFS_SIGNATURE.to_be_bytes());
    b[mdb::DR_NM_AL_BLKS..][..2].copy_from_slice(&n.to_be_bytes());
    b[mdb::DR_AL_BLK_SIZ..][..4].copy_from_slice(&abs.to_be_bytes());
    b[mdb::DR_AL_BL_ST..][..2].copy_from_slice(&(al_bl_st as u16).to_be_bytes());
    b[mdb::DR_FREE_BKS..][..2].copy_from_slice(&v.free_alloc_blocks.min(n).to_be_bytes());
    let name = &v.name.as_bytes()[..v.name.len().min(27)];
    b[mdb::DR_VN] = name.len() as u8;
    b[mdb::DR_VN + 1..][..name.len()].copy_from_slice(name);
}
