//! Scrap Manager model: `ZeroScrap` and `PutScrap`, the desk scrap an application writes when
//! the user chooses Copy (IM: More Macintosh Toolbox, ch. 2 "Scrap Manager"; IM I-457).
//!
//! * `ZeroScrap: LONGINT` empties the scrap, adds one to `ScrapCount` ($968, word) and sets
//!   `ScrapSize` ($960, long) to 0; result `noErr`.
//! * `PutScrap(length: LONGINT; theType: ResType; source: Ptr): LONGINT` appends one item —
//!   type, length, data padded to an even length — and adds its size to `ScrapSize`. Strict
//!   choices: before any `ZeroScrap` of this launch it answers `noScrapErr` (−100: the scrap
//!   is not initialized for writing; IM tells applications to call `ZeroScrap` first); a
//!   negative length or a source outside application memory fails the run.
//!
//! The scrap is kept on the host ([`ScrapState`], `Machine::toolbox().scrap`): `ScrapHandle`
//! ($964) is not maintained, and `GetScrap`/`LoadScrap`/`UnloadScrap`/`InfoScrap` are not
//! modelled (they fail as unimplemented).

use super::{Frame, Ret, check_range};
use crate::error::Fault;
use crate::machine::Machine;
use crate::traps::TrapCall;

/// `ScrapSize` ($960) and `ScrapCount` ($968).
pub const SCRAP_SIZE: u32 = 0x960;
pub const SCRAP_COUNT: u32 = 0x968;
/// `noScrapErr`.
pub const NO_SCRAP_ERR: i32 = -100;

/// The desk scrap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScrapState {
    /// `ZeroScrap` ran in this launch.
    pub zeroed: bool,
    /// `ZeroScrap` calls so far.
    pub zero_count: u32,
    /// The items, in the order written: type and data.
    pub items: Vec<([u8; 4], Vec<u8>)>,
}

impl ScrapState {
    /// The data of the first item of `rtype`.
    pub fn get(&self, rtype: &[u8; 4]) -> Option<&[u8]> {
        self.items
            .iter()
            .find(|(t, _)| t == rtype)
            .map(|(_, d)| d.as_slice())
    }
}

fn zero_scrap(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 4)?;
    let s = &mut m.toolbox().scrap;
    s.zeroed = true;
    s.zero_count += 1;
    s.items.clear();
    let count = m.read_u16(SCRAP_COUNT).wrapping_add(1);
    m.write_u16(SCRAP_COUNT, count);
    m.write_u32(SCRAP_SIZE, 0);
    f.ret(m, call, Ret::Long(0))
}

fn put_scrap(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[4, 4, 4], 4)?;
    let length = f.long(m, 0) as i32;
    let rtype = f.long(m, 1).to_be_bytes();
    let source = f.long(m, 2);
    if length < 0 {
        return Err(f.misuse(format!("length {length} is negative")));
    }
    if !m.toolbox().scrap.zeroed {
        return f.ret(m, call, Ret::Long(NO_SCRAP_ERR as u32));
    }
    if length > 0 {
        check_range(
            m,
            call.word,
            "_PutScrap source",
            source,
            length as u32,
            false,
        )?;
    }
    let data = m.read_bytes(source, length as u32);
    let size = m.read_u32(SCRAP_SIZE) + 8 + ((length as u32 + 1) & !1);
    m.write_u32(SCRAP_SIZE, size);
    m.toolbox().scrap.items.push((rtype, data));
    f.ret(m, call, Ret::Long(0))
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA9FC, "ZeroScrap", zero_scrap);
    m.register_trap(0xA9FE, "PutScrap", put_scrap);
}
