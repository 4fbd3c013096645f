//! [`Machine::install_mac_os`]: every OS manager model a disk driver needs, in one call.

use crate::machine::Machine;

#[derive(Default)]
struct Installed(bool);

impl Machine {
    /// Install the OS models (idempotent): Operating System Utilities ([`crate::os_utils`]:
    /// queues, `_Gestalt`, `_HWPriv`), the Vertical Retrace Manager ([`crate::vbl`]), the
    /// event posting ([`crate::events`]), the drive queue ([`crate::drive_queue`]) and the
    /// Device Manager ([`crate::device_manager`]) and File-Manager-lite
    /// ([`crate::file_manager`]). Tick hooks run in that order each tick:
    /// events mask, VBL tasks, `accRun`.
    pub fn install_mac_os(&mut self) {
        if self.state::<Installed>().0 {
            return;
        }
        self.state::<Installed>().0 = true;
        crate::os_utils::install(self);
        crate::events::install(self);
        crate::vbl::install(self);
        crate::deferred_tasks::install(self);
        crate::drive_queue::install(self);
        crate::device_manager::install(self);
        crate::file_manager::install(self);
    }
}
