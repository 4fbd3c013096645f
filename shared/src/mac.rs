//! Mac OS structures a disk driver shares with the system: parameter blocks, the Device
//! Control Entry, the DRVR header, the drive-queue element, SCSI Manager 4.3 parameter
//! blocks, VBL tasks. Offsets and sizes are asserted against `docs/mac-facts.md` §3, §5, §6
//! and §9.3. All fields big-endian; "mac68k" alignment (no padding beyond 2-byte alignment).

use zerocopy::byteorder::{BigEndian, I16, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub type Be16 = U16<BigEndian>;
pub type Be32 = U32<BigEndian>;
pub type BeI16 = I16<BigEndian>;
pub type BeI32 = I32<BigEndian>;

macro_rules! mac_struct {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
        #[repr(C)]
        pub struct $name { $($(#[$fm])* pub $f: $t,)* }
    };
}

mac_struct! {
    /// `IOParam` (Read/Write), 50 bytes; the 24-byte common header first.
    pub struct IoParam {
        pub q_link: Be32,
        pub q_type: Be16,
        pub io_trap: Be16,
        pub io_cmd_addr: Be32,
        pub io_completion: Be32,
        pub io_result: BeI16,
        pub io_name_ptr: Be32,
        /// For disk drivers: the drive number.
        pub io_vref_num: BeI16,
        pub io_ref_num: BeI16,
        pub io_vers_num: u8,
        pub io_permssn: u8,
        pub io_misc: Be32,
        pub io_buffer: Be32,
        pub io_req_count: Be32,
        pub io_act_count: Be32,
        pub io_pos_mode: Be16,
        pub io_pos_offset: Be32,
    }
}

mac_struct! {
    /// `XIOParam` tail: `ioWPosOffset` (64-bit) replaces `ioPosOffset`; 54 bytes.
    pub struct XIoParamTail {
        pub io_wpos_offset_hi: Be32,
        pub io_wpos_offset_lo: Be32,
    }
}

mac_struct! {
    /// `CntrlParam` (Control/Status), 50 bytes.
    pub struct CntrlParam {
        pub q_link: Be32,
        pub q_type: Be16,
        pub io_trap: Be16,
        pub io_cmd_addr: Be32,
        pub io_completion: Be32,
        pub io_result: BeI16,
        pub io_name_ptr: Be32,
        pub io_vref_num: BeI16,
        pub io_cref_num: BeI16,
        pub cs_code: BeI16,
        pub cs_param: [u8; 22],
    }
}

mac_struct! {
    /// Device Control Entry (AuxDCE through `dCtlNodeID`), 56 bytes.
    pub struct Dce {
        pub d_ctl_driver: Be32,
        pub d_ctl_flags: Be16,
        pub d_ctl_q_flags: Be16,
        pub d_ctl_q_head: Be32,
        pub d_ctl_q_tail: Be32,
        pub d_ctl_position: Be32,
        pub d_ctl_storage: Be32,
        pub d_ctl_ref_num: BeI16,
        pub d_ctl_cur_ticks: Be32,
        pub d_ctl_window: Be32,
        pub d_ctl_delay: Be16,
        pub d_ctl_emask: Be16,
        pub d_ctl_menu: Be16,
        pub d_ctl_slot: u8,
        pub d_ctl_slot_id: u8,
        pub d_ctl_dev_base: Be32,
        pub d_ctl_owner: Be32,
        pub d_ctl_ext_dev: u8,
        pub fill_byte: u8,
        pub d_ctl_node_id: Be32,
    }
}

mac_struct! {
    /// DRVR header up to the name's length byte (the name follows), 19 bytes.
    pub struct DrvrHeader {
        pub drvr_flags: Be16,
        pub drvr_delay: Be16,
        pub drvr_emask: Be16,
        pub drvr_menu: Be16,
        pub drvr_open: Be16,
        pub drvr_prime: Be16,
        pub drvr_ctl: Be16,
        pub drvr_status: Be16,
        pub drvr_close: Be16,
        pub drvr_name_len: u8,
    }
}

mac_struct! {
    /// Drive-queue element with its 4 prefix bytes (20 bytes; the element proper, whose
    /// address `_AddDrive` takes, starts at `q_link`, offset 4).
    pub struct DrvQElWithFlags {
        pub write_prot: u8,
        pub disk_in_place: u8,
        pub installed: u8,
        pub sides: u8,
        pub q_link: Be32,
        pub q_type: Be16,
        pub dq_drive: Be16,
        pub dq_ref_num: BeI16,
        pub dq_fsid: Be16,
        pub dq_drv_sz: Be16,
        pub dq_drv_sz2: Be16,
    }
}

mac_struct! {
    /// SCSI Manager 4.3 `SCSIExecIOPB`, 176 bytes (header 36 bytes).
    pub struct ScsiExecIoPb {
        pub q_link: Be32,
        pub scsi_reserved1: Be16,
        pub scsi_pb_length: Be16,
        pub scsi_function_code: u8,
        pub scsi_reserved2: u8,
        pub scsi_result: BeI16,
        /// DeviceIdent: diReserved, bus, targetID, LUN.
        pub scsi_device: [u8; 4],
        pub scsi_completion: Be32,
        pub scsi_flags: Be32,
        pub scsi_driver_storage: Be32,
        pub scsi_xpt_private: Be32,
        pub scsi_reserved3: Be32,
        pub scsi_result_flags: Be16,
        pub scsi_reserved3pt5: Be16,
        pub scsi_data_ptr: Be32,
        pub scsi_data_length: Be32,
        pub scsi_sense_ptr: Be32,
        pub scsi_sense_length: u8,
        pub scsi_cdb_length: u8,
        pub scsi_sg_list_count: Be16,
        pub scsi_reserved4: Be32,
        pub scsi_scsi_status: u8,
        pub scsi_sense_residual: i8,
        pub scsi_reserved5: Be16,
        pub scsi_data_residual: BeI32,
        pub scsi_cdb: [u8; 16],
        pub scsi_timeout: BeI32,
        pub scsi_reserved5pt5: Be32,
        pub scsi_reserved5pt6: Be16,
        pub scsi_io_flags: Be16,
        pub scsi_tag_action: u8,
        pub scsi_reserved6: u8,
        pub scsi_reserved7: Be16,
        pub scsi_select_timeout: Be16,
        pub scsi_data_type: u8,
        pub scsi_transfer_type: u8,
        pub scsi_reserved8: Be32,
        pub scsi_reserved9: Be32,
        pub scsi_handshake: [Be16; 8],
        pub scsi_reserved10: Be32,
        pub scsi_reserved11: Be32,
        pub scsi_command_link: Be32,
        pub scsi_sim_publics: [u8; 8],
        pub scsi_apple_reserved6: [u8; 8],
        pub scsi_current_phase: Be16,
        pub scsi_selector: BeI16,
        pub scsi_old_call_result: BeI16,
        pub scsi_scsi_message: u8,
        pub xpt_private_flags: u8,
        pub xpt_extras: [u8; 12],
    }
}

mac_struct! {
    /// SCSI Manager 4.3 `SCSIDriverPB` (refNum cross-reference calls), 44 bytes.
    pub struct ScsiDriverPb {
        pub q_link: Be32,
        pub scsi_reserved1: Be16,
        pub scsi_pb_length: Be16,
        pub scsi_function_code: u8,
        pub scsi_reserved2: u8,
        pub scsi_result: BeI16,
        pub scsi_device: [u8; 4],
        pub scsi_completion: Be32,
        pub scsi_flags: Be32,
        pub scsi_driver_storage: Be32,
        pub scsi_xpt_private: Be32,
        pub scsi_reserved3: Be32,
        pub scsi_driver: BeI16,
        pub scsi_driver_flags: Be16,
        pub scsi_next_device: [u8; 4],
    }
}

mac_struct! {
    /// `VBLTask`, 14 bytes.
    pub struct VblTask {
        pub q_link: Be32,
        pub q_type: Be16,
        pub vbl_addr: Be32,
        pub vbl_count: BeI16,
        pub vbl_phase: BeI16,
    }
}

/// Trap words and numbers the driver uses.
pub mod trap {
    pub const READ: u16 = 0xA002;
    pub const WRITE: u16 = 0xA003;
    pub const NEW_PTR_SYS_CLEAR: u16 = 0xA71E;
    pub const DRVR_INSTALL: u16 = 0xA03D;
    pub const ADD_DRIVE: u16 = 0xA04E;
    pub const POST_EVENT: u16 = 0xA02F;
    pub const SCSI_ATOMIC: u16 = 0xA089;
    pub const SCSI_DISPATCH: u16 = 0xA815;
    pub const HW_PRIV: u16 = 0xA198;
    pub const UNIMPLEMENTED: u16 = 0xA89F;
}

/// Mac OS result codes a disk driver returns.
pub mod err {
    pub const NO_ERR: i16 = 0;
    pub const CONTROL_ERR: i16 = -17;
    pub const STATUS_ERR: i16 = -18;
    pub const READ_ERR: i16 = -19;
    pub const WRIT_ERR: i16 = -20;
    pub const BAD_UNIT_ERR: i16 = -21;
    pub const UNIT_EMPTY_ERR: i16 = -22;
    pub const OPEN_ERR: i16 = -23;
    pub const CLOS_ERR: i16 = -24;
    pub const ABORT_ERR: i16 = -27;
    pub const NOT_OPEN_ERR: i16 = -28;
    pub const UNIT_TBL_FULL_ERR: i16 = -29;
    pub const IO_ERR: i16 = -36;
    pub const WPR_ERR: i16 = -44;
    pub const PARAM_ERR: i16 = -50;
    pub const NS_DRV_ERR: i16 = -56;
    pub const NO_MAC_DSK_ERR: i16 = -57;
    pub const NO_DRIVE_ERR: i16 = -64;
    pub const OFF_LIN_ERR: i16 = -65;
    pub const DATA_VER_ERR: i16 = -68;
    pub const MEM_FULL_ERR: i16 = -108;
}

/// `drvrFlags` / `dCtlFlags` bits.
pub mod drvr_flags {
    pub const D_READ_ENABLE: u16 = 0x0100;
    pub const D_WRIT_ENABLE: u16 = 0x0200;
    pub const D_CTL_ENABLE: u16 = 0x0400;
    pub const D_STAT_ENABLE: u16 = 0x0800;
    pub const D_NEED_GOODBYE: u16 = 0x1000;
    pub const D_NEED_TIME: u16 = 0x2000;
    pub const D_NEED_LOCK: u16 = 0x4000;
    pub const D_VM_IMMUNE: u16 = 0x0001;
    pub const DRIVER_GESTALT_ENABLE: u16 = 0x0004;
    pub const D_OPENED: u16 = 0x0020;
    pub const D_RAM_BASED: u16 = 0x0040;
    pub const DRVR_ACTIVE: u16 = 0x0080;
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<IoParam>() == 50);
    assert!(offset_of!(IoParam, io_trap) == 6);
    assert!(offset_of!(IoParam, io_completion) == 12);
    assert!(offset_of!(IoParam, io_result) == 16);
    assert!(offset_of!(IoParam, io_vref_num) == 22);
    assert!(offset_of!(IoParam, io_ref_num) == 24);
    assert!(offset_of!(IoParam, io_buffer) == 32);
    assert!(offset_of!(IoParam, io_req_count) == 36);
    assert!(offset_of!(IoParam, io_act_count) == 40);
    assert!(offset_of!(IoParam, io_pos_mode) == 44);
    assert!(offset_of!(IoParam, io_pos_offset) == 46);
    assert!(size_of::<IoParam>() + size_of::<XIoParamTail>() - 4 == 54);
    assert!(size_of::<CntrlParam>() == 50);
    assert!(offset_of!(CntrlParam, io_cref_num) == 24);
    assert!(offset_of!(CntrlParam, cs_code) == 26);
    assert!(offset_of!(CntrlParam, cs_param) == 28);
    assert!(size_of::<Dce>() == 56);
    assert!(offset_of!(Dce, d_ctl_flags) == 4);
    assert!(offset_of!(Dce, d_ctl_q_head) == 8);
    assert!(offset_of!(Dce, d_ctl_position) == 16);
    assert!(offset_of!(Dce, d_ctl_storage) == 20);
    assert!(offset_of!(Dce, d_ctl_ref_num) == 24);
    assert!(offset_of!(Dce, d_ctl_delay) == 34);
    assert!(offset_of!(Dce, d_ctl_slot) == 40);
    assert!(offset_of!(Dce, d_ctl_dev_base) == 42);
    assert!(offset_of!(Dce, d_ctl_ext_dev) == 50);
    assert!(offset_of!(Dce, d_ctl_node_id) == 52);
    assert!(size_of::<DrvrHeader>() == 19);
    assert!(offset_of!(DrvrHeader, drvr_open) == 8);
    assert!(offset_of!(DrvrHeader, drvr_close) == 16);
    assert!(offset_of!(DrvrHeader, drvr_name_len) == 18);
    assert!(size_of::<DrvQElWithFlags>() == 20);
    assert!(offset_of!(DrvQElWithFlags, q_link) == 4);
    assert!(offset_of!(DrvQElWithFlags, dq_drive) == 4 + 6);
    assert!(offset_of!(DrvQElWithFlags, dq_ref_num) == 4 + 8);
    assert!(offset_of!(DrvQElWithFlags, dq_drv_sz) == 4 + 12);
    assert!(offset_of!(DrvQElWithFlags, dq_drv_sz2) == 4 + 14);
    assert!(size_of::<ScsiExecIoPb>() == 176);
    assert!(offset_of!(ScsiExecIoPb, scsi_pb_length) == 6);
    assert!(offset_of!(ScsiExecIoPb, scsi_function_code) == 8);
    assert!(offset_of!(ScsiExecIoPb, scsi_result) == 10);
    assert!(offset_of!(ScsiExecIoPb, scsi_device) == 12);
    assert!(offset_of!(ScsiExecIoPb, scsi_completion) == 16);
    assert!(offset_of!(ScsiExecIoPb, scsi_flags) == 20);
    assert!(offset_of!(ScsiExecIoPb, scsi_driver_storage) == 24);
    assert!(offset_of!(ScsiExecIoPb, scsi_result_flags) == 36);
    assert!(offset_of!(ScsiExecIoPb, scsi_data_ptr) == 40);
    assert!(offset_of!(ScsiExecIoPb, scsi_data_length) == 44);
    assert!(offset_of!(ScsiExecIoPb, scsi_sense_ptr) == 48);
    assert!(offset_of!(ScsiExecIoPb, scsi_sense_length) == 52);
    assert!(offset_of!(ScsiExecIoPb, scsi_cdb_length) == 53);
    assert!(offset_of!(ScsiExecIoPb, scsi_sg_list_count) == 54);
    assert!(offset_of!(ScsiExecIoPb, scsi_scsi_status) == 60);
    assert!(offset_of!(ScsiExecIoPb, scsi_sense_residual) == 61);
    assert!(offset_of!(ScsiExecIoPb, scsi_data_residual) == 64);
    assert!(offset_of!(ScsiExecIoPb, scsi_cdb) == 68);
    assert!(offset_of!(ScsiExecIoPb, scsi_timeout) == 84);
    assert!(offset_of!(ScsiExecIoPb, scsi_io_flags) == 94);
    assert!(offset_of!(ScsiExecIoPb, scsi_tag_action) == 96);
    assert!(offset_of!(ScsiExecIoPb, scsi_select_timeout) == 100);
    assert!(offset_of!(ScsiExecIoPb, scsi_data_type) == 102);
    assert!(offset_of!(ScsiExecIoPb, scsi_transfer_type) == 103);
    assert!(offset_of!(ScsiExecIoPb, scsi_handshake) == 112);
    assert!(offset_of!(ScsiExecIoPb, scsi_command_link) == 136);
    assert!(offset_of!(ScsiExecIoPb, scsi_sim_publics) == 140);
    assert!(offset_of!(ScsiExecIoPb, scsi_current_phase) == 156);
    assert!(offset_of!(ScsiExecIoPb, scsi_scsi_message) == 162);
    assert!(offset_of!(ScsiExecIoPb, xpt_extras) == 164);
    assert!(size_of::<ScsiDriverPb>() == 44);
    assert!(offset_of!(ScsiDriverPb, scsi_driver) == 36);
    assert!(offset_of!(ScsiDriverPb, scsi_driver_flags) == 38);
    assert!(offset_of!(ScsiDriverPb, scsi_next_device) == 40);
    assert!(size_of::<VblTask>() == 14);
    assert!(offset_of!(VblTask, vbl_addr) == 6);
    assert!(offset_of!(VblTask, vbl_count) == 10);
    assert!(offset_of!(VblTask, vbl_phase) == 12);
};
