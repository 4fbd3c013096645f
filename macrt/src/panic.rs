//! A Rust panic in an application: show it in a stop alert, then return to the Finder.

use core::fmt::Write;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::pstr::Str255;
use crate::sys;

/// The `ALRT` every application using this runtime defines for panics: a stop alert with
/// one OK button and a static text containing `^0` (the message) and `^1` (where).
pub const PANIC_ALERT_ID: i16 = 200;

static PANICKING: AtomicBool = AtomicBool::new(false);

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    // A panic while showing a panic: leave at once.
    // (load + store, not swap: the 68000 has no atomic exchange and one thread runs here)
    if PANICKING.load(Ordering::Relaxed) {
        // SAFETY: _ExitToShell never returns.
        unsafe { sys::rt_ExitToShell() }
    }
    PANICKING.store(true, Ordering::Relaxed);
    let mut message = Str255::new();
    let _ = write!(message, "{}", info.message());
    let mut place = Str255::new();
    if let Some(l) = info.location() {
        let _ = write!(place, "{}:{}", l.file(), l.line());
    }
    let empty = Str255::new();
    // SAFETY: the strings live until the alert is gone; the glue follows the Pascal convention.
    unsafe {
        if !crate::toolbox::initialised() {
            // Before InitDialogs there is no alert to show.
            sys::rt_SysBeep(30);
            sys::rt_ExitToShell()
        }
        sys::rt_InitCursor();
        sys::rt_ParamText(
            message.as_ptr(),
            place.as_ptr(),
            empty.as_ptr(),
            empty.as_ptr(),
        );
        if sys::rt_StopAlert(PANIC_ALERT_ID as i32, 0) < 0 {
            // No alert resource: at least make a sound.
            sys::rt_SysBeep(30);
        }
        sys::rt_ExitToShell()
    }
}

/// `abort`, which core's code calls where it must stop at once (e.g. a sort whose comparison
/// panicked mid-way: the LLVM M68k backend lowers that trap to a call to `abort`). The
/// runtime has no C library, so it is here: the same alert as a panic, then the Finder.
#[unsafe(no_mangle)]
pub extern "C" fn abort() -> ! {
    panic!("abort: the program stopped itself (a Rust runtime check failed)")
}
