//! The direct-access disk target (`ferrite_emu::scsi::disk`), command by command against the
//! SCSI-2 rules, through `ScsiBus::execute` and through its plain functions.

use ferrite_emu::scsi::disk::cdb::{self, Command, op};
use ferrite_emu::scsi::disk::mode_pages::{self, CACHING_WCE, MediumInfo, pc};
use ferrite_emu::scsi::disk::sense::{SENSE_LEN, asc, key};
use ferrite_emu::scsi::{
    DiskConfig, DiskTarget, Exec, NotReadyCause, ScsiBus, SelectError, Sense, TimingConfig, status,
};

const ID: u8 = 0;

fn cfg() -> DiskConfig {
    DiskConfig {
        timing: TimingConfig::instant(),
        ..DiskConfig::default()
    }
}

/// A bus with `t` at ID 0, power-on unit attention still pending.
fn bus_with(t: DiskTarget) -> ScsiBus {
    let mut bus = ScsiBus::new();
    bus.attach(ID, Box::new(t));
    bus
}

/// A bus with an in-memory disk, the power-on unit attention consumed.
fn ready(blocks: u64, cfg: DiskConfig) -> ScsiBus {
    let mut bus = bus_with(DiskTarget::in_memory(blocks, cfg).unwrap());
    let s = check(&mut bus, &tur(), &[], 0);
    assert_eq!(s.triple(), (key::UNIT_ATTENTION, 0x29, 0x00));
    good(&mut bus, &tur(), &[], 0);
    bus
}

fn disk(bus: &ScsiBus) -> &DiskTarget {
    bus.target_as::<DiskTarget>(ID).unwrap()
}

fn disk_mut(bus: &mut ScsiBus) -> &mut DiskTarget {
    bus.target_as_mut::<DiskTarget>(ID).unwrap()
}

fn cmd(bus: &mut ScsiBus, cdb: &[u8], out: &[u8], max: usize) -> Exec {
    bus.execute(ID, 0, cdb, out, max).unwrap()
}

fn good(bus: &mut ScsiBus, cdb: &[u8], out: &[u8], max: usize) -> Exec {
    let e = cmd(bus, cdb, out, max);
    let s = disk(bus).pending_sense();
    assert_eq!(e.status, Some(status::GOOD), "{cdb:02x?}: sense {s:?}");
    e
}

fn request_sense(bus: &mut ScsiBus) -> Sense {
    let e = good(bus, &[op::REQUEST_SENSE, 0, 0, 0, 18, 0], &[], 255);
    assert_eq!(e.data_in.len(), SENSE_LEN);
    Sense::from_fixed(&e.data_in).unwrap()
}

/// Run `cdb`, expect CHECK CONDITION, return the sense REQUEST SENSE gives.
fn check(bus: &mut ScsiBus, cdb: &[u8], out: &[u8], max: usize) -> Sense {
    let e = cmd(bus, cdb, out, max);
    assert_eq!(e.status, Some(status::CHECK_CONDITION), "{cdb:02x?}");
    request_sense(bus)
}

fn triple(bus: &mut ScsiBus, cdb: &[u8], out: &[u8], max: usize) -> (u8, u8, u8) {
    check(bus, cdb, out, max).triple()
}

const ILLEGAL_OPCODE: (u8, u8, u8) = (key::ILLEGAL_REQUEST, 0x20, 0x00);
const OUT_OF_RANGE: (u8, u8, u8) = (key::ILLEGAL_REQUEST, 0x21, 0x00);
const BAD_CDB: (u8, u8, u8) = (key::ILLEGAL_REQUEST, 0x24, 0x00);
const BAD_PARAM: (u8, u8, u8) = (key::ILLEGAL_REQUEST, 0x26, 0x00);
const PARAM_LEN: (u8, u8, u8) = (key::ILLEGAL_REQUEST, 0x1A, 0x00);

fn tur() -> [u8; 6] {
    [op::TEST_UNIT_READY, 0, 0, 0, 0, 0]
}

fn read6(lba: u32, n: u8) -> [u8; 6] {
    [
        op::READ_6,
        (lba >> 16) as u8 & 0x1F,
        (lba >> 8) as u8,
        lba as u8,
        n,
        0,
    ]
}

fn write6(lba: u32, n: u8) -> [u8; 6] {
    [
        op::WRITE_6,
        (lba >> 16) as u8 & 0x1F,
        (lba >> 8) as u8,
        lba as u8,
        n,
        0,
    ]
}

fn rw10(opcode: u8, flags: u8, lba: u32, n: u16) -> [u8; 10] {
    let l = lba.to_be_bytes();
    let c = n.to_be_bytes();
    [opcode, flags, l[0], l[1], l[2], l[3], 0, c[0], c[1], 0]
}

fn read10(lba: u32, n: u16) -> [u8; 10] {
    rw10(op::READ_10, 0, lba, n)
}

fn write10(lba: u32, n: u16) -> [u8; 10] {
    rw10(op::WRITE_10, 0, lba, n)
}

fn sync_cache(lba: u32, n: u16) -> [u8; 10] {
    rw10(op::SYNCHRONIZE_CACHE_10, 0, lba, n)
}

/// Distinct content for `n` blocks starting at `lba`.
fn pattern(lba: u64, n: u64, bs: usize, salt: u8) -> Vec<u8> {
    (0..n as usize * bs)
        .map(|i| (i as u64 / bs as u64 + lba) as u8 ^ (i % 251) as u8 ^ salt)
        .collect()
}

fn mode_sense6(dbd: bool, pcv: u8, page: u8, alloc: u8) -> [u8; 6] {
    [
        op::MODE_SENSE_6,
        if dbd { 0x08 } else { 0 },
        (pcv << 6) | page,
        0,
        alloc,
        0,
    ]
}

fn mode_select6(sp: bool, len: u8) -> [u8; 6] {
    [op::MODE_SELECT_6, 0x10 | u8::from(sp), 0, 0, len, 0]
}

/// The page `code` from MODE SENSE(6) with DBD.
fn sense_page(bus: &mut ScsiBus, pcv: u8, code: u8) -> Vec<u8> {
    let e = good(bus, &mode_sense6(true, pcv, code, 255), &[], 255);
    assert_eq!(e.data_in[3], 0, "DBD: no block descriptor");
    e.data_in[4..].to_vec()
}

/// MODE SELECT(6) parameter list: empty header, then `page` with PS cleared.
fn select_list(page: &[u8]) -> Vec<u8> {
    let mut l = vec![0, 0, 0, 0];
    l.extend_from_slice(page);
    l[4] &= 0x3F;
    l
}

fn set_wce(bus: &mut ScsiBus, on: bool, sp: bool) {
    let mut page = sense_page(bus, pc::CURRENT, 0x08);
    if on {
        page[2] |= CACHING_WCE;
    } else {
        page[2] &= !CACHING_WCE;
    }
    let list = select_list(&page);
    good(bus, &mode_select6(sp, list.len() as u8), &list, 0);
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "ferrite-scsi-disk-{}-{name}.img",
        std::process::id()
    ))
}

// ---------------------------------------------------------------------------------------------
// Unit attention and sense handling

#[test]
fn power_on_unit_attention_is_reported_once_and_not_by_inquiry_or_request_sense() {
    let mut bus = bus_with(DiskTarget::in_memory(64, cfg()).unwrap());
    // INQUIRY runs normally and keeps the unit attention.
    let e = good(&mut bus, &[op::INQUIRY, 0, 0, 0, 36, 0], &[], 255);
    assert_eq!(e.data_in.len(), 36);
    // REQUEST SENSE neither reports nor clears it: NO SENSE.
    assert_eq!(request_sense(&mut bus).triple(), (key::NO_SENSE, 0, 0));
    assert_eq!(disk(&bus).pending_unit_attentions().len(), 1);
    // The first other command gets it ...
    assert_eq!(
        triple(&mut bus, &read10(0, 1), &[], 512),
        (key::UNIT_ATTENTION, 0x29, 0x00)
    );
    // ... once.
    good(&mut bus, &read10(0, 1), &[], 512);
    good(&mut bus, &tur(), &[], 0);
}

#[test]
fn unit_attention_comes_before_an_invalid_opcode() {
    let mut bus = bus_with(DiskTarget::in_memory(64, cfg()).unwrap());
    assert_eq!(
        triple(&mut bus, &[0x02, 0, 0, 0, 0, 0], &[], 0),
        (key::UNIT_ATTENTION, 0x29, 0)
    );
    assert_eq!(
        triple(&mut bus, &[0x02, 0, 0, 0, 0, 0], &[], 0),
        ILLEGAL_OPCODE
    );
}

#[test]
fn bus_reset_raises_unit_attention_and_clears_sense_and_prevent() {
    let mut bus = ready(
        64,
        DiskConfig {
            removable: true,
            ..cfg()
        },
    );
    good(&mut bus, &[op::PREVENT_ALLOW, 0, 0, 0, 1, 0], &[], 0);
    assert_eq!(
        triple(&mut bus, &[0xFF, 0, 0, 0, 0, 0], &[], 0),
        ILLEGAL_OPCODE
    );
    let _ = cmd(&mut bus, &[0x02, 0, 0, 0, 0, 0], &[], 0); // a fresh pending sense
    assert!(disk(&bus).pending_sense().is_some());
    bus.reset();
    assert_eq!(disk(&bus).pending_sense(), None);
    assert!(!disk(&bus).removal_prevented());
    assert_eq!(disk(&bus).stats().bus_resets, 1);
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::UNIT_ATTENTION, 0x29, 0x00)
    );
    good(&mut bus, &tur(), &[], 0);
}

#[test]
fn sense_is_kept_until_the_next_command() {
    let mut bus = ready(64, cfg());
    // REQUEST SENSE returns it then clears it.
    let _ = cmd(&mut bus, &[0x02, 0, 0, 0, 0, 0], &[], 0);
    assert_eq!(request_sense(&mut bus).triple(), ILLEGAL_OPCODE);
    assert_eq!(request_sense(&mut bus).triple(), (key::NO_SENSE, 0, 0));
    // Any other command clears it too.
    let e = cmd(&mut bus, &[0x02, 0, 0, 0, 0, 0], &[], 0);
    assert_eq!(e.status, Some(status::CHECK_CONDITION));
    good(&mut bus, &tur(), &[], 0);
    assert_eq!(request_sense(&mut bus).triple(), (key::NO_SENSE, 0, 0));
    // And INQUIRY clears it as well.
    let _ = cmd(&mut bus, &[0x02, 0, 0, 0, 0, 0], &[], 0);
    good(&mut bus, &[op::INQUIRY, 0, 0, 0, 36, 0], &[], 255);
    assert_eq!(request_sense(&mut bus).triple(), (key::NO_SENSE, 0, 0));
}

#[test]
fn request_sense_data_layout_and_allocation_length() {
    let mut bus = ready(64, cfg());
    let _ = cmd(&mut bus, &read10(64, 1), &[], 512);
    let e = good(&mut bus, &[op::REQUEST_SENSE, 0, 0, 0, 18, 0], &[], 255);
    let d = &e.data_in;
    assert_eq!(d[0], 0x70, "current error, no information field");
    assert_eq!(d[2], key::ILLEGAL_REQUEST);
    assert_eq!(d[7], 10, "additional length");
    assert_eq!((d[12], d[13]), (0x21, 0x00));
    // Truncated to the allocation length.
    let _ = cmd(&mut bus, &read10(64, 1), &[], 512);
    let e = good(&mut bus, &[op::REQUEST_SENSE, 0, 0, 0, 8, 0], &[], 255);
    assert_eq!(e.data_in.len(), 8);
    assert_eq!(e.data_in[2], key::ILLEGAL_REQUEST);
    // More than 18 asked: 18 given.
    let e = good(&mut bus, &[op::REQUEST_SENSE, 0, 0, 0, 252, 0], &[], 255);
    assert_eq!(e.data_in.len(), 18);
    // Allocation length 0: four bytes (SCSI-1/-2 rule, the target's named constant).
    let e = good(&mut bus, &[op::REQUEST_SENSE, 0, 0, 0, 0, 0], &[], 255);
    assert_eq!(
        e.data_in.len(),
        ferrite_emu::scsi::disk::REQUEST_SENSE_ZERO_ALLOC_BYTES
    );
}

// ---------------------------------------------------------------------------------------------
// INQUIRY, LUNs, invalid CDBs

#[test]
fn inquiry_standard_data_and_truncation() {
    let c = DiskConfig {
        vendor: "ACME".into(),
        product: "FASTDISK 2000".into(),
        revision: "1.2".into(),
        ansi_version: 2,
        ..cfg()
    };
    let mut bus = ready(64, c);
    let e = good(&mut bus, &[op::INQUIRY, 0, 0, 0, 255, 0], &[], 255);
    let d = &e.data_in;
    assert_eq!(d.len(), 36);
    assert_eq!(d[0], 0x00, "qualifier 0, direct access");
    assert_eq!(d[1], 0x00, "not removable");
    assert_eq!(d[2], 2, "SCSI-2");
    assert_eq!(d[3] & 0x0F, 2, "response data format");
    assert_eq!(d[4], 31, "additional length");
    assert_eq!(&d[8..16], b"ACME    ");
    assert_eq!(&d[16..32], b"FASTDISK 2000   ");
    assert_eq!(&d[32..36], b"1.2 ");
    let e = good(&mut bus, &[op::INQUIRY, 0, 0, 0, 5, 0], &[], 255);
    assert_eq!(e.data_in, d[..5].to_vec());
    // Allocation length 0: no data phase, GOOD.
    let e = good(&mut bus, &[op::INQUIRY, 0, 0, 0, 0, 0], &[], 255);
    assert!(e.data_in.is_empty());
    assert_eq!(bus.log().last().unwrap().data_in_offered, 0);
    // Removable bit and another ANSI version.
    let mut bus = ready(
        64,
        DiskConfig {
            removable: true,
            ansi_version: 1,
            ..cfg()
        },
    );
    let e = good(&mut bus, &[op::INQUIRY, 0, 0, 0, 36, 0], &[], 255);
    assert_eq!((e.data_in[1], e.data_in[2]), (0x80, 1));
}

#[test]
fn inquiry_vital_product_data_pages() {
    let mut bus = ready(
        64,
        DiskConfig {
            serial: "SN42".into(),
            ..cfg()
        },
    );
    let e = good(&mut bus, &[op::INQUIRY, 1, 0x00, 0, 255, 0], &[], 255);
    assert_eq!(e.data_in, vec![0, 0x00, 0, 2, 0x00, 0x80]);
    let e = good(&mut bus, &[op::INQUIRY, 1, 0x80, 0, 255, 0], &[], 255);
    assert_eq!(e.data_in, vec![0, 0x80, 0, 4, b'S', b'N', b'4', b'2']);
    assert_eq!(
        triple(&mut bus, &[op::INQUIRY, 1, 0x83, 0, 255, 0], &[], 255),
        BAD_CDB
    );
    // A page code without EVPD is an invalid field.
    assert_eq!(
        triple(&mut bus, &[op::INQUIRY, 0, 0x80, 0, 255, 0], &[], 255),
        BAD_CDB
    );
}

#[test]
fn unsupported_lun_gets_qualifier_3_and_25_00() {
    let mut bus = ready(64, cfg());
    let e = bus
        .execute(ID, 1, &[op::INQUIRY, 0, 0, 0, 36, 0], &[], 255)
        .unwrap();
    assert_eq!(e.status, Some(status::GOOD));
    assert_eq!(e.data_in[0], 0x7F, "qualifier 3, type 1Fh");
    let e = bus.execute(ID, 2, &tur(), &[], 0).unwrap();
    assert_eq!(e.status, Some(status::CHECK_CONDITION));
    let e = bus
        .execute(ID, 2, &[op::REQUEST_SENSE, 0, 0, 0, 18, 0], &[], 255)
        .unwrap();
    assert_eq!(e.status, Some(status::GOOD));
    assert_eq!(
        Sense::from_fixed(&e.data_in).unwrap().triple(),
        (key::ILLEGAL_REQUEST, 0x25, 0)
    );
    // The LUN field of the CDB (no IDENTIFY, the original SCSI Manager's way).
    bus.arbitrate().unwrap();
    bus.select(ID, false, 0).unwrap();
    bus.command(&[op::READ_10, 0x20, 0, 0, 0, 0, 0, 0, 1, 0])
        .unwrap();
    assert_eq!(bus.status().unwrap(), status::CHECK_CONDITION);
    bus.message_in().unwrap();
    // LUN 0 is untouched by all that.
    assert_eq!(request_sense(&mut bus).triple(), (key::NO_SENSE, 0, 0));
    good(&mut bus, &read10(0, 1), &[], 512);
}

#[test]
fn a_disk_at_lun_1_answers_only_lun_1() {
    let mut bus = bus_with(DiskTarget::in_memory(64, DiskConfig { lun: 1, ..cfg() }).unwrap());
    let inquiry = [op::INQUIRY, 0, 0, 0, 36, 0];
    let at = |bus: &mut ScsiBus, lun: u8, cdb: &[u8], max: usize| {
        bus.execute(ID, lun, cdb, &[], max).unwrap()
    };
    // LUN 0 is not there: qualifier 3, and ILLEGAL REQUEST 25/00 for anything but INQUIRY
    // and REQUEST SENSE — reads included, and no unit attention (that belongs to LUN 1).
    let e = at(&mut bus, 0, &inquiry, 255);
    assert_eq!((e.status, e.data_in[0]), (Some(status::GOOD), 0x7F));
    let e = at(&mut bus, 0, &read10(0, 1), 512);
    assert_eq!(
        (e.status, e.data_in.len()),
        (Some(status::CHECK_CONDITION), 0)
    );
    let e = at(&mut bus, 0, &[op::REQUEST_SENSE, 0, 0, 0, 18, 0], 255);
    assert_eq!(
        Sense::from_fixed(&e.data_in).unwrap().triple(),
        (key::ILLEGAL_REQUEST, 0x25, 0)
    );
    // LUN 1 is the disk: its power-on unit attention, then data.
    let e = at(&mut bus, 1, &inquiry, 255);
    assert_eq!((e.status, e.data_in[0]), (Some(status::GOOD), 0x00));
    let e = at(&mut bus, 1, &tur(), 0);
    assert_eq!(e.status, Some(status::CHECK_CONDITION), "unit attention");
    let e = at(&mut bus, 1, &read10(0, 1), 512);
    assert_eq!((e.status, e.data_in.len()), (Some(status::GOOD), 512));
    // With IDENTIFY the CDB's LUN field is ignored (SCSI-2): IDENTIFY 0 with CDB LUN 1 is
    // LUN 0; without IDENTIFY the CDB field is the LUN.
    let e = at(
        &mut bus,
        0,
        &[op::READ_10, 0x20, 0, 0, 0, 0, 0, 0, 1, 0],
        512,
    );
    assert_eq!(e.status, Some(status::CHECK_CONDITION));
    bus.arbitrate().unwrap();
    bus.select(ID, false, 0).unwrap();
    bus.command(&[op::READ_10, 0x20, 0, 0, 0, 0, 0, 0, 1, 0])
        .unwrap();
    assert_eq!(bus.read(512).unwrap().len(), 512);
    assert_eq!(bus.status().unwrap(), status::GOOD);
    bus.message_in().unwrap();
    let luns: Vec<u8> = bus.log().iter().map(|e| e.lun).collect();
    assert_eq!(
        luns,
        [0, 0, 0, 1, 1, 1, 0, 1],
        "the log names the LUN addressed"
    );
    // LUNs 0–7 only.
    assert!(DiskTarget::in_memory(64, DiskConfig { lun: 8, ..cfg() }).is_err());
}

#[test]
fn invalid_opcodes_and_cdb_fields() {
    let mut bus = ready(64, cfg());
    for opcode in [0x02u8, 0x05, 0x0B, 0x1D, 0x3B, 0xA8, 0xFF] {
        let len = cdb::cdb_len(opcode).unwrap_or(6);
        let mut c = vec![0u8; len];
        c[0] = opcode;
        assert_eq!(
            triple(&mut bus, &c, &[], 255),
            ILLEGAL_OPCODE,
            "opcode {opcode:#04x}"
        );
    }
    // Link bit, Flag bit.
    assert_eq!(triple(&mut bus, &[0, 0, 0, 0, 0, 0x01], &[], 0), BAD_CDB);
    assert_eq!(triple(&mut bus, &[0, 0, 0, 0, 0, 0x02], &[], 0), BAD_CDB);
    // A CDB shorter than its group.
    assert_eq!(
        triple(&mut bus, &[op::READ_10, 0, 0, 0, 0, 0], &[], 512),
        BAD_CDB
    );
    // RelAdr.
    assert_eq!(
        triple(&mut bus, &rw10(op::READ_10, 0x01, 0, 1), &[], 512),
        BAD_CDB
    );
    // Reserved PREVENT bits.
    assert_eq!(
        triple(&mut bus, &[op::PREVENT_ALLOW, 0, 0, 0, 2, 0], &[], 0),
        BAD_CDB
    );
}

// ---------------------------------------------------------------------------------------------
// READ CAPACITY, READ, WRITE, VERIFY

#[test]
fn read_capacity() {
    let mut bus = ready(1000, cfg());
    let e = good(
        &mut bus,
        &[op::READ_CAPACITY_10, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        &[],
        255,
    );
    assert_eq!(e.data_in, vec![0, 0, 0x03, 0xE7, 0, 0, 0x02, 0x00]);
    // PMI = 0 with an LBA: invalid field.
    let c = [op::READ_CAPACITY_10, 0, 0, 0, 0, 5, 0, 0, 0, 0];
    assert_eq!(triple(&mut bus, &c, &[], 255), BAD_CDB);
    // PMI = 1: the last LBA (no delay boundary modelled).
    let c = [op::READ_CAPACITY_10, 0, 0, 0, 0, 5, 0, 0, 1, 0];
    assert_eq!(
        good(&mut bus, &c, &[], 255).data_in[..4],
        [0, 0, 0x03, 0xE7]
    );
}

#[test]
fn write_and_read_10_round_trip_and_zero_length() {
    let mut bus = ready(256, cfg());
    let data = pattern(10, 3, 512, 1);
    let e = good(&mut bus, &write10(10, 3), &data, 0);
    assert_eq!((e.data_out_asked, e.data_out_taken), (1536, 1536));
    let e = good(&mut bus, &read10(10, 3), &[], 4096);
    assert_eq!(e.data_in, data);
    assert_eq!(disk_mut(&mut bus).read_store(10, 3).unwrap(), data);
    // Length 0 = nothing: no data phase at all.
    let e = good(&mut bus, &read10(10, 0), &[], 4096);
    assert!(e.data_in.is_empty());
    let e = good(&mut bus, &write10(10, 0), &[], 0);
    assert_eq!(e.data_out_asked, 0);
    assert_eq!(bus.log().last().unwrap().data_out_asked, 0);
}

#[test]
fn read_write_6_length_zero_is_256_blocks_and_lba_is_21_bits() {
    let path = temp_path("rw6");
    let blocks = (1u64 << 21) + 10;
    let d = DiskTarget::create(&path, blocks, cfg()).unwrap();
    let mut bus = bus_with(d);
    let _ = cmd(&mut bus, &tur(), &[], 0);
    let data = pattern(0, 256, 512, 7);
    let e = good(&mut bus, &write6(5, 0), &data, 0);
    assert_eq!(e.data_out_asked, 256 * 512);
    let e = good(&mut bus, &read6(5, 0), &[], 1 << 20);
    assert_eq!(e.data_in, data);
    // Highest READ(6) LBA: 1FFFFFh.
    let one = pattern(0x1F_FFFF, 1, 512, 3);
    good(&mut bus, &write6(0x1F_FFFF, 1), &one, 0);
    assert_eq!(good(&mut bus, &read10(0x1F_FFFF, 1), &[], 512).data_in, one);
    // Bits 7–5 of byte 1 are the LUN, not LBA bits: 21 bits only.
    assert_eq!(
        cdb::parse(&[op::READ_6, 0x1F, 0xFF, 0xFF, 1, 0]).unwrap(),
        Command::Read {
            lba: 0x1F_FFFF,
            blocks: 1,
            fua: false
        }
    );
    drop(bus);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn reads_and_writes_past_the_capacity_are_lba_out_of_range() {
    let mut bus = ready(100, cfg());
    assert_eq!(triple(&mut bus, &read10(100, 1), &[], 512), OUT_OF_RANGE);
    assert_eq!(triple(&mut bus, &read10(99, 2), &[], 1024), OUT_OF_RANGE);
    assert_eq!(
        triple(&mut bus, &read10(u32::MAX, 1), &[], 512),
        OUT_OF_RANGE
    );
    assert_eq!(triple(&mut bus, &read6(98, 3), &[], 2048), OUT_OF_RANGE);
    let e = cmd(&mut bus, &write10(99, 2), &[0xAA; 1024], 0);
    assert_eq!(e.status, Some(status::CHECK_CONDITION));
    assert_eq!(e.data_out_asked, 0, "no data phase for a refused write");
    assert_eq!(request_sense(&mut bus).triple(), OUT_OF_RANGE);
    assert_eq!(
        triple(&mut bus, &write6(100, 1), &[0xAA; 512], 0),
        OUT_OF_RANGE
    );
    // The last block is fine.
    good(&mut bus, &write10(99, 1), &[0x55; 512], 0);
    assert_eq!(
        good(&mut bus, &read10(99, 1), &[], 512).data_in,
        vec![0x55; 512]
    );
}

#[test]
fn verify_without_and_with_byte_check() {
    let mut bus = ready(100, cfg());
    let data = pattern(20, 2, 512, 9);
    good(&mut bus, &write10(20, 2), &data, 0);
    let verify = |flags: u8, lba: u32, n: u16| rw10(op::VERIFY_10, flags, lba, n);
    // BytChk 0: no data phase.
    let e = good(&mut bus, &verify(0, 20, 2), &[], 0);
    assert_eq!(e.data_out_asked, 0);
    // BytChk 1: takes the data and compares.
    let e = good(&mut bus, &verify(0x02, 20, 2), &data, 0);
    assert_eq!(e.data_out_asked, 1024);
    let mut wrong = data.clone();
    wrong[700] ^= 1;
    let s = check(&mut bus, &verify(0x02, 20, 2), &wrong, 0);
    assert_eq!(s.triple(), (key::MISCOMPARE, 0x1D, 0x00));
    assert_eq!(s.info, Some(700), "offset of the first miscompare");
    // Medium error.
    disk_mut(&mut bus).inject_read_error(21);
    let s = check(&mut bus, &verify(0, 20, 2), &[], 0);
    assert_eq!(
        (s.triple(), s.info),
        ((key::MEDIUM_ERROR, 0x11, 0), Some(21))
    );
    let s = check(&mut bus, &verify(0x02, 20, 2), &data, 0);
    assert_eq!(
        (s.triple(), s.info),
        ((key::MEDIUM_ERROR, 0x11, 0), Some(21))
    );
    // Out of range, length 0.
    assert_eq!(triple(&mut bus, &verify(0, 99, 2), &[], 0), OUT_OF_RANGE);
    good(&mut bus, &verify(0x02, 0, 0), &[], 0);
}

// ---------------------------------------------------------------------------------------------
// Mode pages

#[test]
fn mode_sense_6_header_block_descriptor_and_all_pages() {
    let mut bus = ready(1000, cfg());
    let e = good(
        &mut bus,
        &mode_sense6(false, pc::CURRENT, 0x3F, 255),
        &[],
        255,
    );
    let d = &e.data_in;
    assert_eq!(d[0] as usize, d.len() - 1, "mode data length");
    assert_eq!(d[1], 0, "medium type");
    assert_eq!(d[2], 0x10, "device-specific: DPOFUA, not WP");
    assert_eq!(d[3], 8, "one block descriptor");
    assert_eq!(&d[4..12], &[0, 0, 0x03, 0xE8, 0, 0, 0x02, 0x00]);
    // Pages in ascending order with their lengths and PS bits.
    let mut at = 12;
    let mut seen = Vec::new();
    while at < d.len() {
        seen.push((d[at], d[at + 1]));
        at += d[at + 1] as usize + 2;
    }
    assert_eq!(at, d.len());
    assert_eq!(
        seen,
        vec![(0x81, 0x0A), (0x03, 0x16), (0x04, 0x16), (0x88, 0x0A)]
    );
    // DBD.
    let e = good(
        &mut bus,
        &mode_sense6(true, pc::CURRENT, 0x08, 255),
        &[],
        255,
    );
    assert_eq!(e.data_in.len(), 4 + 12);
    assert_eq!((e.data_in[0], e.data_in[3]), (15, 0));
    // Truncation keeps the full mode data length.
    let e = good(
        &mut bus,
        &mode_sense6(false, pc::CURRENT, 0x3F, 6),
        &[],
        255,
    );
    assert_eq!(e.data_in.len(), 6);
    assert_eq!(e.data_in[0] as usize, d.len() - 1);
    // Unknown page.
    assert_eq!(
        triple(&mut bus, &mode_sense6(false, 0, 0x0A, 255), &[], 255),
        BAD_CDB
    );
    assert_eq!(
        triple(&mut bus, &mode_sense6(false, 0, 0x02, 255), &[], 255),
        BAD_CDB
    );
}

#[test]
fn mode_sense_10_header() {
    let mut bus = ready(1000, cfg());
    let c = [op::MODE_SENSE_10, 0, 0x08, 0, 0, 0, 0, 0x01, 0x00, 0];
    let e = good(&mut bus, &c, &[], 255);
    let d = &e.data_in;
    assert_eq!(u16::from_be_bytes([d[0], d[1]]) as usize, d.len() - 2);
    assert_eq!(d[3], 0x10);
    assert_eq!(u16::from_be_bytes([d[6], d[7]]), 8);
    assert_eq!(&d[8..16], &[0, 0, 0x03, 0xE8, 0, 0, 0x02, 0x00]);
    assert_eq!(&d[16..18], &[0x88, 0x0A]);
    assert_eq!(d.len(), 8 + 8 + 12);
}

#[test]
fn mode_page_masks_defaults_and_saved_values() {
    let mut bus = ready(1000, cfg());
    // Changeable values.
    let m = sense_page(&mut bus, pc::CHANGEABLE, 0x08);
    assert_eq!(m[0], 0x88, "PS shown with the mask too");
    assert_eq!(m[2], 0x05, "WCE and RCD changeable");
    assert!(m[3..].iter().all(|&b| b == 0));
    let m = sense_page(&mut bus, pc::CHANGEABLE, 0x01);
    assert_eq!(
        (m[2], m[3], m[8], m[10], m[11]),
        (0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
    );
    assert!(
        sense_page(&mut bus, pc::CHANGEABLE, 0x03)[2..]
            .iter()
            .all(|&b| b == 0)
    );
    assert!(
        sense_page(&mut bus, pc::CHANGEABLE, 0x04)[2..]
            .iter()
            .all(|&b| b == 0)
    );
    // Defaults: WCE off.
    let p = sense_page(&mut bus, pc::DEFAULT, 0x08);
    assert_eq!(p[2] & CACHING_WCE, 0);
    // Format device: bytes per sector; rigid geometry: heads, rpm 0 (instant timing).
    let f = sense_page(&mut bus, pc::CURRENT, 0x03);
    assert_eq!(u16::from_be_bytes([f[12], f[13]]), 512);
    let g = sense_page(&mut bus, pc::CURRENT, 0x04);
    assert_eq!(g[5], 8);
    let cyl = u32::from_be_bytes([0, g[2], g[3], g[4]]);
    assert!(cyl as u64 * 8 * 64 >= 1000);
    // Current vs saved: SP=0 changes current only.
    set_wce(&mut bus, true, false);
    assert_ne!(sense_page(&mut bus, pc::CURRENT, 0x08)[2] & CACHING_WCE, 0);
    assert_eq!(sense_page(&mut bus, pc::SAVED, 0x08)[2] & CACHING_WCE, 0);
    assert_eq!(sense_page(&mut bus, pc::DEFAULT, 0x08)[2] & CACHING_WCE, 0);
    // SP=1 saves.
    set_wce(&mut bus, true, true);
    assert_ne!(sense_page(&mut bus, pc::SAVED, 0x08)[2] & CACHING_WCE, 0);
    // Saved values survive a power cycle and become current.
    disk_mut(&mut bus).power_loss();
    let _ = cmd(&mut bus, &tur(), &[], 0);
    assert!(disk(&bus).write_cache_enabled());
}

#[test]
fn mode_select_applies_only_valid_parameter_lists() {
    let mut bus = ready(1000, cfg());
    let page = sense_page(&mut bus, pc::CURRENT, 0x08);
    let good_list = select_list(&page);
    let n = good_list.len() as u8;
    // Mode data length must be 0.
    let mut l = good_list.clone();
    l[0] = n - 1;
    assert_eq!(triple(&mut bus, &mode_select6(false, n), &l, 0), BAD_PARAM);
    // PS must be 0.
    let mut l = good_list.clone();
    l[4] |= 0x80;
    assert_eq!(triple(&mut bus, &mode_select6(false, n), &l, 0), BAD_PARAM);
    // Page length must match.
    let mut l = good_list.clone();
    l[5] = 0x12;
    l.extend_from_slice(&[0; 8]);
    assert_eq!(
        triple(&mut bus, &mode_select6(false, l.len() as u8), &l, 0),
        BAD_PARAM
    );
    // A non-changeable bit (caching page byte 3, retention priorities).
    let mut l = good_list.clone();
    l[4 + 3] = 0x11;
    assert_eq!(triple(&mut bus, &mode_select6(false, n), &l, 0), BAD_PARAM);
    // Unknown page.
    let l = [0, 0, 0, 0, 0x0A, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    assert_eq!(triple(&mut bus, &mode_select6(false, 16), &l, 0), BAD_PARAM);
    // Medium type other than 0.
    let mut l = good_list.clone();
    l[1] = 0x01;
    assert_eq!(triple(&mut bus, &mode_select6(false, n), &l, 0), BAD_PARAM);
    // A list cut short inside the page.
    assert_eq!(
        triple(
            &mut bus,
            &mode_select6(false, n - 2),
            &good_list[..n as usize - 2],
            0
        ),
        PARAM_LEN
    );
    // A list shorter than the header.
    assert_eq!(
        triple(&mut bus, &mode_select6(false, 3), &[0, 0, 0], 0),
        PARAM_LEN
    );
    // Block descriptor: must describe the current block size.
    let mut with_bd = vec![0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0x04, 0x00];
    with_bd.extend_from_slice(&page);
    with_bd[12] &= 0x3F;
    with_bd[14] |= CACHING_WCE;
    let nb = with_bd.len() as u8;
    assert_eq!(
        triple(&mut bus, &mode_select6(false, nb), &with_bd, 0),
        BAD_PARAM
    );
    with_bd[10] = 0x02;
    assert!(
        !disk(&bus).write_cache_enabled(),
        "no refused list changed anything"
    );
    good(&mut bus, &mode_select6(false, nb), &with_bd, 0);
    assert!(disk(&bus).write_cache_enabled());
    // Parameter list length 0: nothing moves, GOOD.
    let e = good(&mut bus, &mode_select6(false, 0), &[], 0);
    assert_eq!(e.data_out_asked, 0);
}

#[test]
fn mode_select_is_all_or_nothing_across_pages() {
    let mut bus = ready(1000, cfg());
    let mut caching = sense_page(&mut bus, pc::CURRENT, 0x08);
    caching[0] &= 0x3F;
    caching[2] |= CACHING_WCE;
    let mut recovery = sense_page(&mut bus, pc::CURRENT, 0x01);
    recovery[0] &= 0x3F;
    recovery[4] = 0x33; // correction span: not changeable
    let mut l = vec![0, 0, 0, 0];
    l.extend_from_slice(&caching);
    l.extend_from_slice(&recovery);
    assert_eq!(
        triple(&mut bus, &mode_select6(false, l.len() as u8), &l, 0),
        BAD_PARAM
    );
    assert!(!disk(&bus).write_cache_enabled());
    // Changeable fields of page 01 are accepted (and stored).
    let n = l.len();
    l[n - recovery.len() + 4] = recovery_default_byte4(&mut bus);
    l[n - recovery.len() + 3] = 3; // read retry count
    good(&mut bus, &mode_select6(false, l.len() as u8), &l, 0);
    assert!(disk(&bus).write_cache_enabled());
    assert_eq!(sense_page(&mut bus, pc::CURRENT, 0x01)[3], 3);
}

fn recovery_default_byte4(bus: &mut ScsiBus) -> u8 {
    sense_page(bus, pc::CURRENT, 0x01)[4]
}

#[test]
fn mode_select_and_sense_10() {
    let mut bus = ready(1000, cfg());
    let mut page = sense_page(&mut bus, pc::CURRENT, 0x08);
    page[0] &= 0x3F;
    page[2] |= CACHING_WCE;
    let mut l = vec![0u8; 8];
    l.extend_from_slice(&page);
    let n = (l.len() as u16).to_be_bytes();
    let c = [op::MODE_SELECT_10, 0x10, 0, 0, 0, 0, 0, n[0], n[1], 0];
    good(&mut bus, &c, &l, 0);
    assert!(disk(&bus).write_cache_enabled());
    // Mode data length non-zero in the 10-byte header.
    l[1] = 5;
    assert_eq!(triple(&mut bus, &c, &l, 0), BAD_PARAM);
}

#[test]
fn saving_unsupported_refuses_sp_and_saved_values() {
    let mut bus = ready(
        100,
        DiskConfig {
            saving_supported: false,
            ..cfg()
        },
    );
    let page = sense_page(&mut bus, pc::CURRENT, 0x08);
    assert_eq!(page[0], 0x08, "no PS bit");
    let l = select_list(&page);
    assert_eq!(
        triple(&mut bus, &mode_select6(true, l.len() as u8), &l, 0),
        BAD_CDB
    );
    good(&mut bus, &mode_select6(false, l.len() as u8), &l, 0);
    assert_eq!(
        triple(&mut bus, &mode_sense6(true, pc::SAVED, 0x08, 255), &[], 255),
        (key::ILLEGAL_REQUEST, 0x39, 0x00)
    );
}

// ---------------------------------------------------------------------------------------------
// START STOP UNIT, PREVENT ALLOW, removable media

#[test]
fn start_stop_unit() {
    let mut bus = ready(100, cfg());
    good(&mut bus, &[op::START_STOP_UNIT, 0, 0, 0, 0, 0], &[], 0);
    assert!(!disk(&bus).started());
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::NOT_READY, 0x04, 0x02)
    );
    assert_eq!(
        triple(&mut bus, &read10(0, 1), &[], 512),
        (key::NOT_READY, 0x04, 0x02)
    );
    // INQUIRY and MODE SENSE still work while stopped.
    good(&mut bus, &[op::INQUIRY, 0, 0, 0, 36, 0], &[], 255);
    good(&mut bus, &mode_sense6(false, 0, 0x3F, 255), &[], 255);
    good(&mut bus, &[op::START_STOP_UNIT, 0, 0, 0, 1, 0], &[], 0);
    good(&mut bus, &tur(), &[], 0);
    // LoEj on a fixed disk.
    assert_eq!(
        triple(&mut bus, &[op::START_STOP_UNIT, 0, 0, 0, 2, 0], &[], 0),
        BAD_CDB
    );
}

#[test]
fn motor_start_required_at_power_on() {
    let d = DiskTarget::in_memory(
        100,
        DiskConfig {
            motor_start_required: true,
            ..cfg()
        },
    );
    let mut bus = bus_with(d.unwrap());
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::UNIT_ATTENTION, 0x29, 0x00)
    );
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::NOT_READY, 0x04, 0x02)
    );
    good(&mut bus, &[op::START_STOP_UNIT, 1, 0, 0, 1, 0], &[], 0);
    good(&mut bus, &tur(), &[], 0);
}

#[test]
fn removable_medium_eject_prevent_and_insert() {
    let mut bus = ready(
        100,
        DiskConfig {
            removable: true,
            ..cfg()
        },
    );
    let eject = [op::START_STOP_UNIT, 0, 0, 0, 0x02, 0];
    good(&mut bus, &[op::PREVENT_ALLOW, 0, 0, 0, 1, 0], &[], 0);
    assert!(disk(&bus).removal_prevented());
    assert_eq!(
        triple(&mut bus, &eject, &[], 0),
        (key::ILLEGAL_REQUEST, 0x53, 0x02)
    );
    assert!(disk(&bus).medium_present());
    assert!(
        !disk_mut(&mut bus).remove_medium(),
        "the user cannot pull it out either"
    );
    good(&mut bus, &[op::PREVENT_ALLOW, 0, 0, 0, 0, 0], &[], 0);
    good(&mut bus, &eject, &[], 0);
    assert!(!disk(&bus).medium_present());
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::NOT_READY, 0x3A, 0x00)
    );
    assert_eq!(
        triple(&mut bus, &read10(0, 1), &[], 512),
        (key::NOT_READY, 0x3A, 0x00)
    );
    // Load with no medium.
    let load = [op::START_STOP_UNIT, 0, 0, 0, 0x03, 0];
    assert_eq!(
        triple(&mut bus, &load, &[], 0),
        (key::NOT_READY, 0x3A, 0x00)
    );
    good(&mut bus, &[op::INQUIRY, 0, 0, 0, 36, 0], &[], 255);
    disk_mut(&mut bus).insert_medium();
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::UNIT_ATTENTION, 0x28, 0x00)
    );
    good(&mut bus, &tur(), &[], 0);
    // The user removes it again.
    assert!(disk_mut(&mut bus).remove_medium());
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::NOT_READY, 0x3A, 0x00)
    );
}

// ---------------------------------------------------------------------------------------------
// FORMAT UNIT, REASSIGN BLOCKS, SYNCHRONIZE CACHE

#[test]
fn format_unit_zeroes_the_medium() {
    let mut bus = ready(64, cfg());
    good(&mut bus, &write10(3, 1), &[0xEE; 512], 0);
    let e = good(&mut bus, &[op::FORMAT_UNIT, 0, 0, 0, 0, 0], &[], 0);
    assert_eq!(e.data_out_asked, 0, "FmtData = 0: no data phase");
    assert_eq!(
        good(&mut bus, &read10(3, 1), &[], 512).data_in,
        vec![0; 512]
    );
    // FmtData = 1 with an empty defect list.
    good(&mut bus, &write10(3, 1), &[0xEE; 512], 0);
    let e = good(
        &mut bus,
        &[op::FORMAT_UNIT, 0x10, 0, 0, 0, 0],
        &[0, 0, 0, 0],
        0,
    );
    assert_eq!(e.data_out_asked, 4);
    assert_eq!(
        good(&mut bus, &read10(3, 1), &[], 512).data_in,
        vec![0; 512]
    );
    // A defect list is not supported.
    let s = triple(
        &mut bus,
        &[op::FORMAT_UNIT, 0x10, 0, 0, 0, 0],
        &[0, 0, 0, 4, 0, 0, 0, 1],
        0,
    );
    assert_eq!(s, BAD_PARAM);
    // Write protected.
    disk_mut(&mut bus).set_write_protected(true);
    let s = triple(&mut bus, &[op::FORMAT_UNIT, 0, 0, 0, 0, 0], &[], 0);
    assert_eq!(s, (key::DATA_PROTECT, 0x27, 0x00));
}

#[test]
fn medium_error_then_reassign_blocks() {
    let mut bus = ready(
        64,
        DiskConfig {
            reassign_max_lbas: 4,
            ..cfg()
        },
    );
    let data = pattern(8, 4, 512, 5);
    good(&mut bus, &write10(8, 4), &data, 0);
    disk_mut(&mut bus).inject_read_error(10);
    disk_mut(&mut bus).inject_read_error(40);
    let e = cmd(&mut bus, &read10(8, 4), &[], 4096);
    assert_eq!(e.status, Some(status::CHECK_CONDITION));
    assert_eq!(
        e.data_in,
        data[..1024].to_vec(),
        "the good blocks before the error"
    );
    let s = request_sense(&mut bus);
    assert_eq!(
        (s.triple(), s.info),
        ((key::MEDIUM_ERROR, 0x11, 0x00), Some(10))
    );
    let raw = good(&mut bus, &[op::REQUEST_SENSE, 0, 0, 0, 18, 0], &[], 255).data_in;
    assert_eq!(raw[0] & 0x80, 0, "VALID clear once the sense was taken");
    let _ = cmd(&mut bus, &read10(10, 1), &[], 512);
    let raw = good(&mut bus, &[op::REQUEST_SENSE, 0, 0, 0, 18, 0], &[], 255).data_in;
    assert_eq!(
        (raw[0], &raw[3..7]),
        (0xF0, &[0u8, 0, 0, 10][..]),
        "VALID + information"
    );
    // Reassign 10 and 40 (list of 2, 8 bytes); the target asks for 4 + 4 × 4.
    let list = [0, 0, 0, 8, 0, 0, 0, 10, 0, 0, 0, 40];
    let e = good(&mut bus, &[op::REASSIGN_BLOCKS, 0, 0, 0, 0, 0], &list, 0);
    assert_eq!(e.data_out_asked, 20);
    assert_eq!(
        disk(&bus).reassigned().iter().copied().collect::<Vec<_>>(),
        vec![10, 40]
    );
    let e = good(&mut bus, &read10(8, 4), &[], 4096);
    assert_eq!(e.data_in[..1024], data[..1024]);
    assert_eq!(
        e.data_in[1024..1536],
        [0; 512],
        "the unreadable block's data is lost"
    );
    assert_eq!(e.data_in[1536..], data[1536..]);
    good(&mut bus, &read10(40, 1), &[], 512);
    // Bad lists.
    let reassign = [op::REASSIGN_BLOCKS, 0, 0, 0, 0, 0];
    let s = check(&mut bus, &reassign, &[0, 0, 0, 4, 0, 0, 0, 64], 0);
    assert_eq!((s.triple(), s.info), (OUT_OF_RANGE, Some(64)));
    assert_eq!(
        triple(&mut bus, &reassign, &[0, 0, 0, 6, 0, 0, 0, 1, 0, 0], 0),
        BAD_PARAM
    );
    assert_eq!(triple(&mut bus, &reassign, &[0, 0, 0, 20], 0), PARAM_LEN);
}

#[test]
fn synchronize_cache_ranges() {
    let mut bus = ready(64, cfg());
    set_wce(&mut bus, true, false);
    good(&mut bus, &write10(1, 1), &[1; 512], 0);
    good(&mut bus, &write10(30, 1), &[2; 512], 0);
    assert_eq!(disk(&bus).cached_blocks(), 2);
    good(&mut bus, &sync_cache(0, 10), &[], 0);
    assert_eq!(disk(&bus).cached_blocks(), 1);
    assert_eq!(disk_mut(&mut bus).read_store(1, 1).unwrap(), vec![1; 512]);
    assert_eq!(disk_mut(&mut bus).read_store(30, 1).unwrap(), vec![0; 512]);
    // Count 0 = to the end of the medium.
    good(&mut bus, &sync_cache(20, 0), &[], 0);
    assert_eq!(disk(&bus).cached_blocks(), 0);
    assert_eq!(disk_mut(&mut bus).read_store(30, 1).unwrap(), vec![2; 512]);
    assert_eq!(triple(&mut bus, &sync_cache(64, 0), &[], 0), OUT_OF_RANGE);
    assert_eq!(triple(&mut bus, &sync_cache(60, 5), &[], 0), OUT_OF_RANGE);
    assert_eq!(disk(&bus).stats().flushes, 2);
}

// ---------------------------------------------------------------------------------------------
// Write cache and power loss

#[test]
fn cached_write_is_lost_on_power_loss() {
    let mut bus = ready(64, cfg());
    set_wce(&mut bus, true, false);
    good(&mut bus, &write10(5, 2), &[0xAB; 1024], 0);
    assert_eq!(disk(&bus).cached_blocks(), 2);
    assert_eq!(
        disk_mut(&mut bus).read_store(5, 2).unwrap(),
        vec![0; 1024],
        "not on the medium"
    );
    assert_eq!(
        good(&mut bus, &read10(5, 2), &[], 1024).data_in,
        vec![0xAB; 1024],
        "reads see it"
    );
    assert_eq!(disk(&bus).stats().write_cache_read_hits, 2);
    disk_mut(&mut bus).power_loss();
    assert_eq!(disk(&bus).cached_blocks(), 0);
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::UNIT_ATTENTION, 0x29, 0x00)
    );
    assert_eq!(
        good(&mut bus, &read10(5, 2), &[], 1024).data_in,
        vec![0; 1024],
        "gone"
    );
    assert!(!disk(&bus).write_cache_enabled(), "WCE was not saved");
}

#[test]
fn synchronized_write_survives_power_loss() {
    let mut bus = ready(64, cfg());
    set_wce(&mut bus, true, false);
    good(&mut bus, &write10(5, 2), &[0xAB; 1024], 0);
    good(&mut bus, &sync_cache(0, 0), &[], 0);
    assert_eq!(disk(&bus).cached_blocks(), 0);
    disk_mut(&mut bus).power_loss();
    let _ = cmd(&mut bus, &tur(), &[], 0);
    assert_eq!(
        good(&mut bus, &read10(5, 2), &[], 1024).data_in,
        vec![0xAB; 1024]
    );
}

#[test]
fn fua_write_goes_straight_to_the_medium() {
    let mut bus = ready(64, cfg());
    set_wce(&mut bus, true, false);
    good(&mut bus, &write10(7, 1), &[1; 512], 0); // cached
    good(&mut bus, &rw10(op::WRITE_10, 0x08, 7, 1), &[2; 512], 0); // FUA
    assert_eq!(
        disk(&bus).cached_blocks(),
        0,
        "the stale cached copy is superseded"
    );
    assert_eq!(disk_mut(&mut bus).read_store(7, 1).unwrap(), vec![2; 512]);
    disk_mut(&mut bus).power_loss();
    let _ = cmd(&mut bus, &tur(), &[], 0);
    assert_eq!(
        good(&mut bus, &read10(7, 1), &[], 512).data_in,
        vec![2; 512]
    );
}

#[test]
fn fua_read_flushes_the_range_first() {
    let mut bus = ready(64, cfg());
    set_wce(&mut bus, true, false);
    good(&mut bus, &write10(7, 2), &[3; 1024], 0);
    let e = good(&mut bus, &rw10(op::READ_10, 0x08, 7, 1), &[], 512);
    assert_eq!(e.data_in, vec![3; 512]);
    assert_eq!(disk(&bus).cached_blocks(), 1);
    assert_eq!(disk_mut(&mut bus).read_store(7, 1).unwrap(), vec![3; 512]);
}

#[test]
fn turning_wce_off_stop_and_host_flush_write_the_cache() {
    let mut bus = ready(64, cfg());
    set_wce(&mut bus, true, false);
    good(&mut bus, &write10(1, 1), &[1; 512], 0);
    set_wce(&mut bus, false, false);
    assert_eq!(disk(&bus).cached_blocks(), 0);
    assert_eq!(disk_mut(&mut bus).read_store(1, 1).unwrap(), vec![1; 512]);
    // STOP.
    set_wce(&mut bus, true, false);
    good(&mut bus, &write10(2, 1), &[2; 512], 0);
    good(&mut bus, &[op::START_STOP_UNIT, 0, 0, 0, 0, 0], &[], 0);
    assert_eq!(disk(&bus).cached_blocks(), 0);
    assert_eq!(disk_mut(&mut bus).read_store(2, 1).unwrap(), vec![2; 512]);
    good(&mut bus, &[op::START_STOP_UNIT, 0, 0, 0, 1, 0], &[], 0);
    // Host flush.
    good(&mut bus, &write10(3, 1), &[3; 512], 0);
    let flushes = disk(&bus).stats().flushes;
    disk_mut(&mut bus).flush().unwrap();
    assert_eq!(disk(&bus).stats().flushes, flushes + 1);
    assert_eq!(disk_mut(&mut bus).read_store(3, 1).unwrap(), vec![3; 512]);
    // A bus reset keeps dirty data (the drive keeps it) but restores saved WCE = 0: flushed.
    good(&mut bus, &write10(4, 1), &[4; 512], 0);
    bus.reset();
    assert!(!disk(&bus).write_cache_enabled());
    assert_eq!(disk_mut(&mut bus).read_store(4, 1).unwrap(), vec![4; 512]);
}

#[test]
fn full_cache_evicts_oldest_first() {
    let mut bus = ready(
        64,
        DiskConfig {
            cache_bytes: 4 * 512,
            ..cfg()
        },
    );
    assert_eq!(disk(&bus).cache_capacity_blocks(), 4);
    set_wce(&mut bus, true, false);
    for lba in [10u32, 20, 30, 40] {
        good(&mut bus, &write10(lba, 1), &[lba as u8; 512], 0);
    }
    // Rewriting 10 makes it the newest; 20 is now the oldest.
    good(&mut bus, &write10(10, 1), &[11; 512], 0);
    assert_eq!(disk(&bus).stats().evicted_blocks, 0);
    good(&mut bus, &write10(50, 2), &[50; 1024], 0);
    assert_eq!(disk(&bus).stats().evicted_blocks, 2);
    assert_eq!(disk(&bus).cached_blocks(), 4);
    let d = disk_mut(&mut bus);
    assert_eq!(d.read_store(20, 1).unwrap(), vec![20; 512]);
    assert_eq!(d.read_store(30, 1).unwrap(), vec![30; 512]);
    assert_eq!(d.read_store(40, 1).unwrap(), vec![0; 512]);
    assert_eq!(d.read_store(10, 1).unwrap(), vec![0; 512]);
    assert_eq!(d.stats().store_blocks_written, 2);
    assert_eq!(d.stats().cached_block_writes, 7);
    d.power_loss();
    let _ = cmd(&mut bus, &tur(), &[], 0);
    assert_eq!(
        good(&mut bus, &read10(20, 1), &[], 512).data_in,
        vec![20; 512],
        "evicted = kept"
    );
    assert_eq!(
        good(&mut bus, &read10(40, 1), &[], 512).data_in,
        vec![0; 512]
    );
}

#[test]
fn write_cache_enabled_by_configuration() {
    let bus = ready(
        64,
        DiskConfig {
            write_cache_enabled: true,
            ..cfg()
        },
    );
    assert!(disk(&bus).write_cache_enabled());
    let mut bus = bus;
    assert_ne!(sense_page(&mut bus, pc::DEFAULT, 0x08)[2] & CACHING_WCE, 0);
    assert_ne!(sense_page(&mut bus, pc::SAVED, 0x08)[2] & CACHING_WCE, 0);
}

// ---------------------------------------------------------------------------------------------
// Fault injection

#[test]
fn injected_write_error() {
    let mut bus = ready(64, cfg());
    disk_mut(&mut bus).inject_write_error(12);
    let s = check(&mut bus, &write10(10, 4), &[7; 2048], 0);
    assert_eq!(
        (s.triple(), s.info),
        ((key::MEDIUM_ERROR, 0x0C, 0x00), Some(12))
    );
    let d = disk_mut(&mut bus);
    assert_eq!(
        d.read_store(10, 2).unwrap(),
        vec![7; 1024],
        "blocks before the error written"
    );
    assert_eq!(d.read_store(12, 2).unwrap(), vec![0; 1024]);
    assert!(!s.deferred, "a write to the medium reports a current error");
    // With the write cache on, the write is taken into the cache (GOOD) and the error shows
    // at write-back: here the SYNCHRONIZE CACHE that writes it back gets a current error.
    set_wce(&mut bus, true, false);
    good(&mut bus, &write10(11, 2), &[9; 1024], 0);
    let s = check(&mut bus, &sync_cache(0, 0), &[], 0);
    assert_eq!(
        (s.triple(), s.info, s.deferred),
        ((key::MEDIUM_ERROR, 0x0C, 0x00), Some(12), false)
    );
    let d = disk_mut(&mut bus);
    assert_eq!(
        d.read_store(11, 1).unwrap(),
        vec![9; 512],
        "good block written"
    );
    assert_eq!(
        d.read_store(12, 1).unwrap(),
        vec![0; 512],
        "bad block's data lost"
    );
    assert_eq!(d.cached_blocks(), 0);
}

#[test]
fn deferred_write_error_after_background_writeback() {
    let mut c = cfg();
    c.background_writeback_blocks = 1;
    let mut bus = ready(64, c);
    set_wce(&mut bus, true, false);
    disk_mut(&mut bus).inject_write_error(5);
    good(&mut bus, &write10(5, 1), &[3; 512], 0);
    assert!(disk_mut(&mut bus).pending_deferred_errors().is_empty());
    // Before the next command the drive writes block 5 back, fails, and reports a deferred
    // error (71h) on that command, which it does not perform.
    let s = check(&mut bus, &write10(20, 1), &[4; 512], 0);
    assert_eq!(
        (s.triple(), s.info, s.deferred),
        ((key::MEDIUM_ERROR, 0x0C, 0x00), Some(5), true)
    );
    let d = disk_mut(&mut bus);
    assert_eq!(
        d.read_visible(20, 1).unwrap(),
        vec![0; 512],
        "not performed"
    );
    assert_eq!(d.read_store(5, 1).unwrap(), vec![0; 512], "lost");
    // Reported once: the command sent again is performed.
    good(&mut bus, &write10(20, 1), &[4; 512], 0);
    assert_eq!(
        disk_mut(&mut bus).read_visible(20, 1).unwrap(),
        vec![4; 512]
    );
}

#[test]
fn deferred_write_error_after_eviction() {
    let mut c = cfg();
    c.cache_bytes = 2 * 512;
    let mut bus = ready(64, c);
    set_wce(&mut bus, true, false);
    disk_mut(&mut bus).inject_write_error(1);
    good(&mut bus, &write10(1, 1), &[1; 512], 0);
    good(&mut bus, &write10(2, 1), &[2; 512], 0);
    // Block 1 is evicted to make room: this write ends GOOD, the next command hears of it.
    good(&mut bus, &write10(3, 1), &[3; 512], 0);
    assert_eq!(disk_mut(&mut bus).pending_deferred_errors().len(), 1);
    let s = check(&mut bus, &read10(2, 1), &[], 512);
    assert_eq!((s.info, s.deferred), (Some(1), true));
    // A power loss forgets deferred errors with the cache.
    good(&mut bus, &write10(1, 1), &[1; 512], 0);
    disk_mut(&mut bus).flush().unwrap();
    assert_eq!(disk_mut(&mut bus).pending_deferred_errors().len(), 1);
    disk_mut(&mut bus).power_loss();
    assert!(disk_mut(&mut bus).pending_deferred_errors().is_empty());
}

#[test]
fn injected_not_ready_becoming_ready() {
    let mut bus = ready(64, cfg());
    disk_mut(&mut bus).inject_not_ready(2, NotReadyCause::BecomingReady);
    // INQUIRY is not a media command: it does not consume the fault.
    good(&mut bus, &[op::INQUIRY, 0, 0, 0, 36, 0], &[], 255);
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::NOT_READY, 0x04, 0x01)
    );
    assert_eq!(
        triple(&mut bus, &read10(0, 1), &[], 512),
        (key::NOT_READY, 0x04, 0x01)
    );
    good(&mut bus, &tur(), &[], 0);
}

#[test]
fn injected_not_ready_needs_start() {
    let mut bus = ready(64, cfg());
    disk_mut(&mut bus).inject_not_ready(100, NotReadyCause::NeedsStart);
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::NOT_READY, 0x04, 0x02)
    );
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::NOT_READY, 0x04, 0x02)
    );
    good(&mut bus, &[op::START_STOP_UNIT, 0, 0, 0, 1, 0], &[], 0);
    good(&mut bus, &tur(), &[], 0);
}

#[test]
fn injected_selection_timeouts() {
    let mut bus = ready(64, cfg());
    disk_mut(&mut bus).inject_selection_timeouts(2);
    assert_eq!(
        bus.execute(ID, 0, &tur(), &[], 0),
        Err(SelectError::Timeout)
    );
    assert_eq!(
        bus.execute(ID, 0, &tur(), &[], 0),
        Err(SelectError::Timeout)
    );
    good(&mut bus, &tur(), &[], 0);
    disk_mut(&mut bus).set_offline(true);
    for _ in 0..5 {
        assert_eq!(
            bus.execute(ID, 0, &tur(), &[], 0),
            Err(SelectError::Timeout)
        );
    }
    disk_mut(&mut bus).set_offline(false);
    good(&mut bus, &tur(), &[], 0);
    assert_eq!(
        disk(&bus).opcode_count(op::TEST_UNIT_READY),
        4,
        "timed-out ones never arrived"
    );
}

#[test]
fn injected_busy_status() {
    let mut bus = ready(64, cfg());
    good(&mut bus, &write10(0, 1), &[9; 512], 0);
    disk_mut(&mut bus).inject_busy(2);
    let e = cmd(&mut bus, &read10(0, 1), &[], 512);
    assert_eq!((e.status, e.data_in.len()), (Some(status::BUSY), 0));
    let e = cmd(&mut bus, &write10(0, 1), &[1; 512], 0);
    assert_eq!((e.status, e.data_out_asked), (Some(status::BUSY), 0));
    assert_eq!(
        good(&mut bus, &read10(0, 1), &[], 512).data_in,
        vec![9; 512]
    );
}

#[test]
fn injected_bus_reset_mid_command() {
    let mut bus = ready(64, cfg());
    disk_mut(&mut bus).inject_bus_reset(2);
    good(&mut bus, &tur(), &[], 0);
    let e = cmd(&mut bus, &write10(0, 1), &[1; 512], 0);
    assert_eq!(e.status, None, "no status: the bus was reset");
    assert_eq!(bus.resets(), 1);
    assert_eq!(bus.log().last().unwrap().status, None);
    assert_eq!(disk_mut(&mut bus).read_store(0, 1).unwrap(), vec![0; 512]);
    assert_eq!(
        triple(&mut bus, &tur(), &[], 0),
        (key::UNIT_ATTENTION, 0x29, 0x00)
    );
    good(&mut bus, &tur(), &[], 0);
}

#[test]
fn injected_short_data_phases() {
    let mut bus = ready(64, cfg());
    good(&mut bus, &write10(0, 2), &[5; 1024], 0);
    disk_mut(&mut bus).inject_short_data(2, 100);
    // TEST UNIT READY has no data phase: does not consume the fault.
    good(&mut bus, &tur(), &[], 0);
    let e = good(&mut bus, &read10(0, 2), &[], 1024);
    assert_eq!(e.data_in.len(), 924, "DATA IN ends early, status GOOD");
    let e = good(&mut bus, &write10(0, 2), &[6; 1024], 0);
    assert_eq!((e.data_out_asked, e.data_out_taken), (924, 924));
    let d = disk_mut(&mut bus);
    assert_eq!(
        d.read_store(0, 1).unwrap(),
        vec![6; 512],
        "the whole block it got"
    );
    assert_eq!(
        d.read_store(1, 1).unwrap(),
        vec![5; 512],
        "the partial block is dropped"
    );
    assert_eq!(good(&mut bus, &read10(0, 2), &[], 1024).data_in.len(), 1024);
}

#[test]
fn write_protect() {
    let mut bus = ready(
        64,
        DiskConfig {
            write_protected: true,
            ..cfg()
        },
    );
    let e = cmd(&mut bus, &write10(0, 1), &[1; 512], 0);
    assert_eq!(
        (e.status, e.data_out_asked),
        (Some(status::CHECK_CONDITION), 0)
    );
    assert_eq!(
        request_sense(&mut bus).triple(),
        (key::DATA_PROTECT, 0x27, 0x00)
    );
    assert_eq!(
        triple(&mut bus, &write6(0, 1), &[1; 512], 0),
        (key::DATA_PROTECT, 0x27, 0x00)
    );
    let e = good(&mut bus, &mode_sense6(false, 0, 0x08, 255), &[], 255);
    assert_eq!(e.data_in[2] & 0x80, 0x80, "WP in the mode header");
    assert_eq!(disk_mut(&mut bus).read_store(0, 1).unwrap(), vec![0; 512]);
    // Reads work; the tab can be flipped.
    good(&mut bus, &read10(0, 1), &[], 512);
    disk_mut(&mut bus).set_write_protected(false);
    good(&mut bus, &write10(0, 1), &[1; 512], 0);
    let e = good(&mut bus, &mode_sense6(false, 0, 0x08, 255), &[], 255);
    assert_eq!(e.data_in[2] & 0x80, 0);
}

// ---------------------------------------------------------------------------------------------
// Image files and block sizes

#[test]
fn sparse_image_stays_within_its_size() {
    let path = temp_path("sparse");
    let blocks = 2048u64;
    let mut bus = bus_with(DiskTarget::create(&path, blocks, cfg()).unwrap());
    let _ = cmd(&mut bus, &tur(), &[], 0);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), blocks * 512);
    good(&mut bus, &write10(blocks as u32 - 1, 1), &[0x5A; 512], 0);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), blocks * 512);
    let before = std::fs::read(&path).unwrap();
    assert_eq!(before[before.len() - 512..], [0x5A; 512]);
    // Past the end: refused, file untouched.
    assert_eq!(
        triple(&mut bus, &write10(blocks as u32 - 1, 2), &[1; 1024], 0),
        OUT_OF_RANGE
    );
    assert_eq!(
        triple(&mut bus, &write10(blocks as u32, 1), &[1; 512], 0),
        OUT_OF_RANGE
    );
    assert_eq!(
        triple(&mut bus, &read10(blocks as u32, 1), &[], 512),
        OUT_OF_RANGE
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // The host helpers refuse too.
    assert!(disk_mut(&mut bus).read_store(blocks, 1).is_err());
    assert!(disk_mut(&mut bus).write_store(blocks, &[0; 512]).is_err());
    assert_eq!(std::fs::metadata(&path).unwrap().len(), blocks * 512);
    // Reopen: capacity from the length, data kept.
    drop(bus);
    let mut bus = bus_with(DiskTarget::open(&path, cfg()).unwrap());
    assert_eq!(disk(&bus).blocks(), blocks);
    let _ = cmd(&mut bus, &tur(), &[], 0);
    assert_eq!(
        good(&mut bus, &read10(blocks as u32 - 1, 1), &[], 512).data_in,
        vec![0x5A; 512]
    );
    drop(bus);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn format_keeps_the_image_size() {
    let path = temp_path("format");
    let mut bus = bus_with(DiskTarget::create(&path, 128, cfg()).unwrap());
    let _ = cmd(&mut bus, &tur(), &[], 0);
    good(&mut bus, &write10(127, 1), &[1; 512], 0);
    good(&mut bus, &[op::FORMAT_UNIT, 0, 0, 0, 0, 0], &[], 0);
    assert_eq!(std::fs::read(&path).unwrap(), vec![0; 128 * 512]);
    drop(bus);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn other_block_sizes() {
    for bs in [256u32, 1024, 2048, 4096] {
        let mut bus = ready(
            100,
            DiskConfig {
                block_size: bs,
                ..cfg()
            },
        );
        let e = good(
            &mut bus,
            &[op::READ_CAPACITY_10, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            &[],
            8,
        );
        assert_eq!(e.data_in[4..], bs.to_be_bytes(), "block size {bs}");
        let data = pattern(50, 3, bs as usize, 1);
        let e = good(&mut bus, &write10(50, 3), &data, 0);
        assert_eq!(e.data_out_asked, 3 * bs as usize);
        assert_eq!(good(&mut bus, &read6(50, 3), &[], 1 << 16).data_in, data);
        assert_eq!(triple(&mut bus, &read10(98, 3), &[], 1 << 16), OUT_OF_RANGE);
        let e = good(&mut bus, &mode_sense6(false, 0, 0x03, 255), &[], 255);
        assert_eq!(
            u32::from_be_bytes([0, e.data_in[9], e.data_in[10], e.data_in[11]]),
            bs
        );
        assert_eq!(
            u16::from_be_bytes([e.data_in[12 + 12], e.data_in[12 + 13]]) as u32,
            bs
        );
    }
    for bad in [0u32, 100, 520, 8192] {
        let r = DiskTarget::in_memory(
            10,
            DiskConfig {
                block_size: bad,
                ..cfg()
            },
        );
        assert!(r.is_err(), "block size {bad}");
    }
    assert!(
        DiskTarget::in_memory(
            10,
            DiskConfig {
                vendor: "TOO LONG!".into(),
                ..cfg()
            }
        )
        .is_err()
    );
}

// ---------------------------------------------------------------------------------------------
// Timing and counters

fn timed(t: TimingConfig) -> ScsiBus {
    ready(1 << 20, DiskConfig { timing: t, ..cfg() })
}

fn busy_of(bus: &mut ScsiBus, c: &[u8], out: &[u8], max: usize) -> u64 {
    good(bus, c, out, max);
    bus.target(ID).unwrap().busy_ns()
}

#[test]
fn timing_model_seek_rotation_and_caches() {
    let t = TimingConfig::hdd_7200_1990s();
    let mut bus = timed(t);
    let bs = 512u64;
    // A far random read: overhead + seek + half a revolution + transfer.
    let far = busy_of(&mut bus, &read10(900_000, 8), &[], 8 * 512);
    let expect = t.command_overhead_ns
        + t.seek_ns(0, 900_000, 1 << 20)
        + t.half_rev_ns()
        + t.media_ns(8 * bs);
    assert_eq!(far, expect);
    assert_eq!(t.half_rev_ns(), 4_166_666);
    // Sequential: served from the read-ahead segment, overhead only.
    let seq = busy_of(&mut bus, &read10(900_008, 8), &[], 8 * 512);
    assert_eq!(seq, t.command_overhead_ns);
    assert_eq!(disk(&bus).stats().read_ahead_hits, 8);
    // RCD = 1 disables it.
    let mut page = sense_page(&mut bus, pc::CURRENT, 0x08);
    page[2] |= 0x01;
    let l = select_list(&page);
    good(&mut bus, &mode_select6(false, l.len() as u8), &l, 0);
    good(&mut bus, &read10(1000, 8), &[], 8 * 512);
    let seq = busy_of(&mut bus, &read10(1008, 8), &[], 8 * 512);
    assert_eq!(
        seq,
        t.command_overhead_ns + t.half_rev_ns() + t.media_ns(8 * bs)
    );
    // Write-through vs a cached write.
    let wt = busy_of(&mut bus, &write10(5000, 8), &[0; 4096], 0);
    assert!(wt > t.half_rev_ns());
    set_wce(&mut bus, true, false);
    let cached = busy_of(&mut bus, &write10(7000, 8), &[0; 4096], 0);
    assert_eq!(cached, t.command_overhead_ns);
    // Seeks grow with distance.
    assert!(t.seek_ns(0, 10, 1 << 20) < t.seek_ns(0, 1 << 19, 1 << 20));
    assert_eq!(t.seek_ns(0, 1 << 20, 1 << 20), t.full_stroke_seek_ns);
    assert_eq!(t.seek_ns(5, 5, 1 << 20), 0);
}

#[test]
fn timing_presets_sd_card_and_instant() {
    let t = TimingConfig::sd_card_emulator();
    let mut bus = timed(t);
    let a = busy_of(&mut bus, &read10(900_000, 8), &[], 4096);
    let b = busy_of(&mut bus, &read10(3, 8), &[], 4096);
    assert_eq!(a, b, "no seek, no rotation");
    assert_eq!(a, t.command_overhead_ns + t.media_ns(4096));
    let mut bus = timed(TimingConfig::instant());
    assert_eq!(busy_of(&mut bus, &read10(900_000, 8), &[], 4096), 0);
    // The bus adds the target's time to the command's.
    let mut bus = timed(TimingConfig::hdd_7200_1990s());
    let e = good(&mut bus, &read10(900_000, 1), &[], 512);
    assert!(e.time_ns > bus.target(ID).unwrap().busy_ns());
}

#[test]
fn commands_are_counted_by_opcode() {
    let mut bus = ready(64, cfg());
    good(&mut bus, &read10(0, 1), &[], 512);
    good(&mut bus, &read10(1, 1), &[], 512);
    let _ = cmd(&mut bus, &[0x02, 0, 0, 0, 0, 0], &[], 0);
    let _ = request_sense(&mut bus);
    let d = disk(&bus);
    assert_eq!(d.opcode_count(op::READ_10), 2);
    assert_eq!(d.opcode_count(0x02), 1);
    assert_eq!(d.opcode_count(op::REQUEST_SENSE), 2, "one in ready()");
    assert_eq!(d.opcode_count(op::TEST_UNIT_READY), 2, "the two in ready()");
    assert_eq!(d.stats().commands, 7);
    assert_eq!(d.stats().store_blocks_read, 2);
}

// ---------------------------------------------------------------------------------------------
// Plain functions

#[test]
fn cdb_parsing() {
    assert_eq!(
        cdb::parse(&[op::READ_6, 0, 0, 9, 0, 0]).unwrap(),
        Command::Read {
            lba: 9,
            blocks: 256,
            fua: false
        }
    );
    assert_eq!(
        cdb::parse(&rw10(op::WRITE_10, 0x08, 0x01020304, 0)).unwrap(),
        Command::Write {
            lba: 0x01020304,
            blocks: 0,
            fua: true
        }
    );
    assert_eq!(
        cdb::parse(&[op::MODE_SENSE_6, 0x08, 0xC8, 0, 40, 0]).unwrap(),
        Command::ModeSense {
            ten: false,
            dbd: true,
            pc: 3,
            page: 8,
            alloc: 40
        }
    );
    assert_eq!(
        cdb::parse(&[op::START_STOP_UNIT, 1, 0, 0, 3, 0]).unwrap(),
        Command::StartStop {
            immed: true,
            loej: true,
            start: true
        }
    );
    assert_eq!(cdb::parse(&[]).unwrap_err().triple(), BAD_CDB);
    assert_eq!(
        cdb::parse(&[0x02, 0, 0, 0, 0, 0]).unwrap_err().triple(),
        ILLEGAL_OPCODE
    );
    assert_eq!(cdb::cdb_lun(&[0, 0xA0, 0, 0, 0, 0]), 5);
}

#[test]
fn sense_encoding() {
    let s = Sense::new(key::MEDIUM_ERROR, asc::UNRECOVERED_READ).with_info(0x01020304);
    let d = s.to_fixed();
    assert_eq!(d[0], 0xF0);
    assert_eq!(&d[2..7], &[3, 1, 2, 3, 4]);
    assert_eq!((d[7], d[12], d[13]), (10, 0x11, 0));
    assert_eq!(Sense::from_fixed(&d), Some(s));
    assert_eq!(Sense::none().to_fixed()[0], 0x70);
    assert_eq!(Sense::from_fixed(&[0x00; 18]), None);
}

#[test]
fn mode_functions() {
    let m = MediumInfo {
        blocks: 0x0123_4567,
        block_size: 1024,
        write_protected: true,
    };
    assert_eq!(
        mode_pages::block_descriptor(&m),
        [0, 0xFF, 0xFF, 0xFF, 0, 0, 0x04, 0]
    );
    let d = mode_pages::mode_sense_data(false, true, &m, &[0x08, 0x02, 0, 0]);
    assert_eq!(d, vec![7, 0, 0x90, 0, 0x08, 0x02, 0, 0]);
    // MODE SELECT header: the pages part, or the error.
    let m = MediumInfo {
        blocks: 100,
        block_size: 512,
        write_protected: false,
    };
    let l = [0, 0, 0x80, 0, 9, 9];
    assert_eq!(
        mode_pages::select_header(&l, false, &m).unwrap(),
        &[9, 9],
        "WP ignored"
    );
    let l = [0, 0, 0, 4, 0, 0, 0, 0];
    assert_eq!(
        mode_pages::select_header(&l, false, &m)
            .unwrap_err()
            .triple(),
        BAD_PARAM
    );
    let l = [0, 0, 0, 8, 0, 0, 0, 100, 0, 0, 2, 0];
    assert!(mode_pages::select_header(&l, false, &m).unwrap().is_empty());
    let l = [0, 0, 0, 8, 0, 0, 0, 99, 0, 0, 2, 0];
    assert_eq!(
        mode_pages::select_header(&l, false, &m)
            .unwrap_err()
            .triple(),
        BAD_PARAM
    );
}

#[test]
fn flush_costs_one_positioning_per_contiguous_run() {
    let t = TimingConfig::hdd_7200_1990s();
    let mut bus = timed(t);
    set_wce(&mut bus, true, false);
    good(&mut bus, &read10(0, 1), &[], 512); // head at LBA 1
    good(&mut bus, &write10(100, 2), &[0; 1024], 0);
    good(&mut bus, &write10(102, 2), &[0; 1024], 0);
    good(&mut bus, &write10(5000, 1), &[0; 512], 0);
    assert_eq!(disk(&bus).cached_blocks(), 5);
    let cap = 1 << 20;
    let expect = t.command_overhead_ns
        + t.seek_ns(1, 100, cap)
        + t.half_rev_ns()
        + t.media_ns(4 * 512)
        + t.seek_ns(104, 5000, cap)
        + t.half_rev_ns()
        + t.media_ns(512);
    assert_eq!(busy_of(&mut bus, &sync_cache(0, 0), &[], 0), expect);
    // IMMED: the command returns before the writes.
    good(&mut bus, &write10(9, 1), &[0; 512], 0);
    let c = rw10(op::SYNCHRONIZE_CACHE_10, 0x02, 0, 0);
    assert_eq!(busy_of(&mut bus, &c, &[], 0), t.command_overhead_ns);
    assert_eq!(disk(&bus).cached_blocks(), 0);
}
