//! Font Manager model: `InitFonts` (after `InitGraf`). Fonts are not rendered; QuickDraw
//! records the font number and size with each string.

use super::{Frame, Ret, require};
use crate::error::Fault;
use crate::machine::Machine;
use crate::traps::TrapCall;

/// `InitFonts`.
fn init_fonts(m: &mut Machine, call: &mut TrapCall) -> Result<(), Fault> {
    let f = Frame::new(m, call, &[], 0)?;
    let done = m.toolbox().initialized.graf;
    require(m, call, done, "InitGraf")?;
    m.toolbox().initialized.fonts = true;
    f.ret(m, call, Ret::None)
}

pub(crate) fn install(m: &mut Machine) {
    m.register_trap(0xA8FE, "InitFonts", init_fonts);
}
