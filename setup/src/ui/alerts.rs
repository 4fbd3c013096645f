//! The app's alerts (ALRT/DITL in `setup/resources.rdef`): the text goes in `^0`.

use ferrite_macrt::pstr::Str255;
use ferrite_macrt::toolbox as tb;

/// Stop alert: something failed or was refused (`^0` says what and what to do). OK.
pub const ERROR: i16 = 131;
/// Note alert: an operation finished (`^0`). OK.
pub const DONE: i16 = 132;
/// Caution alert confirming Initialize (`^0` the drive, `^1` the volumes, `^2` the
/// low-level format's warning or nothing): Cancel (1), Initialize (2).
pub const CONFIRM_INITIALIZE: i16 = 130;
/// Caution alert confirming Update Driver (`^0` the drive, `^1` old → new): Cancel, Update.
pub const CONFIRM_UPDATE: i16 = 133;
/// Caution alert confirming Reassign (`^0` the drive, `^1` the blocks): Cancel, Reassign.
pub const CONFIRM_REASSIGN: i16 = 134;
/// The confirming button of the caution alerts (Cancel is item 1, the default).
pub const CONFIRMED: i16 = 2;

fn params(a: &str, b: &str) {
    params3(a, b, "");
}

fn params3(a: &str, b: &str, c: &str) {
    let (a, b, c, e) = (
        Str255::from_str(a),
        Str255::from_str(b),
        Str255::from_str(c),
        Str255::new(),
    );
    tb::param_text([&a, &b, &c, &e]);
}

/// Show a failure or refusal.
pub fn error(text: &str) {
    params(text, "");
    tb::stop_alert(ERROR);
}

/// Show a result.
pub fn done(text: &str) {
    params(text, "");
    tb::note_alert(DONE);
}

/// Ask before a destructive action: true when the user confirmed.
pub fn confirm(alert: i16, what: &str, detail: &str) -> bool {
    params(what, detail);
    tb::caution_alert(alert) == CONFIRMED
}

/// [`confirm`] with a third text (`^2`), e.g. the low-level format's warning.
pub fn confirm_with_note(alert: i16, what: &str, detail: &str, note: &str) -> bool {
    params3(what, detail, note);
    tb::caution_alert(alert) == CONFIRMED
}
