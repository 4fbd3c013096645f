//! Resource Manager model: the launched application's resource fork (the only open resource
//! file; the System file is not modelled, so system resources are "not found").
//!
//! The fork is parsed here with offsets written from docs/mac-facts.md (§11), independently of
//! the writer in `retro68-build`. Loading a resource makes a handle in the application heap
//! with the resource bit set (and locked if `resLocked`); asking again returns the same
//! handle until `_ReleaseResource`.

use std::collections::BTreeMap;

use super::{Frame, Ret};
use crate::error::Fault;
use crate::machine::Machine;
use crate::memory_manager::{STATE_LOCKED, STATE_RESOURCE, ZoneId};
use crate::traps::TrapCall;

// Fork header (mac-facts §11.1).
const HDR_DATA_OFFSET: usize = 0;
const HDR_MAP_OFFSET: usize = 4;
const HDR_DATA_LEN: usize = 8;
const HDR_MAP_LEN: usize = 12;
// Map (mac-facts §11.3).
const MAP_TYPE_LIST_OFFSET: usize = 24;
const MAP_NAME_LIST_OFFSET: usize = 26;
const REF_LEN: usize = 12;
/// `resLocked` attribute bit.
const RES_LOCKED: u8 = 0x10;

/// `ResErr` low-memory global (word). Not in docs/mac-facts.md: IM More Macintosh Toolbox's
/// low-memory list ($0A60). UNVERIFIED.
pub const RES_ERR: u32 = 0xA60;
/// `CurMap` (mac-facts §9.1): reference number of the current resource file.
pub const CUR_MAP: u32 = 0xA5A;
/// `resNotFound`. Not in docs/mac-facts.md (IM: −192). UNVERIFIED.
pub const RES_NOT_FOUND: i16 = -192;
/// Reference number the model gives the application's resource file (modelling choice).
pub const APP_REF_NUM: u16 = 2;

/// One resource of the open file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResEntry {
    pub rtype: [u8; 4],
    pub id: i16,
    pub name: Option<Vec<u8>>,
    pub attributes: u8,
    pub data: Vec<u8>,
}

/// Parse a resource fork.
pub fn parse_fork(b: &[u8]) -> Result<Vec<ResEntry>, String> {
    let u16_at = |a: usize| -> Result<u16, String> {
        b.get(a..a + 2)
            .map(|s| u16::from_be_bytes([s[0], s[1]]))
            .ok_or(format!("offset {a:#x} is past the fork's end"))
    };
    let u32_at = |a: usize| -> Result<u32, String> {
        b.get(a..a + 4)
            .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
            .ok_or(format!("offset {a:#x} is past the fork's end"))
    };
    let data = u32_at(HDR_DATA_OFFSET)? as usize;
    let map = u32_at(HDR_MAP_OFFSET)? as usize;
    let data_len = u32_at(HDR_DATA_LEN)? as usize;
    let map_len = u32_at(HDR_MAP_LEN)? as usize;
    if data + data_len > b.len() || map + map_len > b.len() {
        return Err("the header's data or map area passes the fork's end".into());
    }
    let types = map + u16_at(map + MAP_TYPE_LIST_OFFSET)? as usize;
    let names = map + u16_at(map + MAP_NAME_LIST_OFFSET)? as usize;
    let ntypes = u16_at(types)?.wrapping_add(1) as usize;
    let mut out = Vec::new();
    for t in 0..ntypes {
        let e = types + 2 + 8 * t;
        let rtype: [u8; 4] = b
            .get(e..e + 4)
            .ok_or("type list past the end")?
            .try_into()
            .unwrap();
        let n = u16_at(e + 4)? as usize + 1;
        let refs = types + u16_at(e + 6)? as usize;
        for k in 0..n {
            let r = refs + REF_LEN * k;
            let id = u16_at(r)? as i16;
            let name_off = u16_at(r + 2)?;
            let attributes = *b.get(r + 4).ok_or("reference past the end")?;
            let off = (u32_at(r + 4)? & 0x00FF_FFFF) as usize;
            let len = u32_at(data + off)? as usize;
            if off + 4 + len > data_len {
                return Err(format!(
                    "resource {id} of type {rtype:?} passes the data area's end"
                ));
            }
            let body = b[data + off + 4..data + off + 4 + len].to_vec();
            let name = if name_off == 0xFFFF {
                None
            } else {
                let at = names + name_off as usize;
                let l = *b.get(at).ok_or("name past the end")? as usize;
                Some(
                    b.get(at + 1..at + 1 + l)
                        .ok_or("name past the end")?
                        .to_vec(),
                )
            };
            out.push(ResEntry {
                rtype,
                id,
                name,
                attributes,
                data: body,
            });
        }
    }
    Ok(out)
}

/// Resource Manager state.
#[derive(Default)]
pub struct ResourceState {
    /// The open application file.
    pub entries: Vec<ResEntry>,
    /// Loaded resources: (type, id) → handle.
    pub loaded: BTreeMap<([u8; 4], i16), u32>,
}

impl ResourceState {
    /// A resource's bytes (host access for the other managers).
    pub fn data(&self, rtype: &[u8; 4], id: i16) -> Option<&[u8]> {
        self.entries
            .iter()
            .find(|e| &e.rtype == rtype && e.id == id)
            .map(|e| e.data.as_slice())
    }
}

fn set_res_err(m: &mut Machine, e: i16) {
    m.write_u16(RES_ERR, e as u16);
}

/// Load resource `(rtype, id)` into a handle (or return the one already loaded).
pub fn load(m: &mut Machine, rtype: [u8; 4], id: i16) -> Result<Option<u32>, Fault> {
    if let Some(&h) = m.toolbox().rm.loaded.get(&(rtype, id)) {
        set_res_err(m, 0);
        return Ok(Some(h));
    }
    let Some(e) = m
        .toolbox()
        .rm
        .entries
        .iter()
        .find(|e| e.rtype == rtype && e.id == id)
        .cloned()
    else {
        set_res_err(m, RES_NOT_FOUND);
        return Ok(None);
    };
    let (mm, bus) = m.memory_manager_and_bus();
    let h = mm
        .new_handle(bus, ZoneId::Application, e.data.len() as u32, false)
        .map_err(|err| {
            Fault::setup(format!(
                "no room for resource {id} ({} bytes) in the application heap: {err}",
                e.data.len()
            ))
        })?;
    let flags = STATE_RESOURCE
        | if e.attributes & RES_LOCKED != 0 {
            STATE_LOCKED
        } else {
            0
        };
    mm.set_handle_state(bus, h, flags).map_err(Fault::setup)?;
    let p = m.read_u32(h);
    m.write_bytes(p, &e.data);
    m.toolbox().rm.loaded.insert((rtype, id), h);
    set_res_err(m, 0);
    Ok(Some(h))
}

/// `GetResource(theType: ResType; theID: INTEGER): Handle` (and `Get1Resource`: one file).
fn get_resource(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 2], 4)?;
    let rtype = f.long(m, 0).to_be_bytes();
    let id = f.int(m, 1);
    let h = load(m, rtype, id)?.unwrap_or(0);
    f.ret(m, call, Ret::Long(h))
}

fn find_loaded(m: &mut Machine, h: u32) -> Option<([u8; 4], i16)> {
    m.toolbox()
        .rm
        .loaded
        .iter()
        .find(|(_, v)| **v == h)
        .map(|(k, _)| *k)
}

/// `ReleaseResource(theResource: Handle)`: dispose the handle; a handle that is not a loaded
/// resource sets `ResErr` = resNotFound (documented behaviour, not a fault).
fn release_resource(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let h = f.long(m, 0);
    match find_loaded(m, h) {
        Some(k) => {
            m.toolbox().rm.loaded.remove(&k);
            let (mm, bus) = m.memory_manager_and_bus();
            mm.dispose_handle(bus, h)
                .map_err(|e| f.misuse(format!("resource handle ${h:08X}: {e}")))?;
            set_res_err(m, 0);
        }
        None => set_res_err(m, RES_NOT_FOUND),
    }
    f.ret(m, call, Ret::None)
}

/// `DetachResource(theResource: Handle)`: the handle stays, the Resource Manager forgets it.
fn detach_resource(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4], 0)?;
    let h = f.long(m, 0);
    match find_loaded(m, h) {
        Some(k) => {
            m.toolbox().rm.loaded.remove(&k);
            let (mm, bus) = m.memory_manager_and_bus();
            let s = mm.handle_state(bus, h).map_err(Fault::setup)?;
            mm.set_handle_state(bus, h, s & !STATE_RESOURCE)
                .map_err(Fault::setup)?;
            set_res_err(m, 0);
        }
        None => set_res_err(m, RES_NOT_FOUND),
    }
    f.ret(m, call, Ret::None)
}

/// `ResError: INTEGER`.
fn res_error(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 2)?;
    let e = m.read_u16(RES_ERR);
    f.ret(m, call, Ret::Word(e))
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA9A0, "GetResource", get_resource);
    m.register_trap(0xA81F, "Get1Resource", get_resource);
    m.register_trap(0xA9A3, "ReleaseResource", release_resource);
    m.register_trap(0xA992, "DetachResource", detach_resource);
    m.register_trap(0xA9AF, "ResError", res_error);
}
