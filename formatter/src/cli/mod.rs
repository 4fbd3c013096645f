//! The `ferrite` command's implementation (a module of the `ferrite` binary, not of the
//! `no_std` library).

pub mod add;
pub mod bench;
pub mod boot;
pub mod date;
pub mod disk;
pub mod driver;
pub mod extract;
pub mod info;
pub mod init;
pub mod qemu;
pub mod report;
pub mod setup_app;
pub mod size;
pub mod system;

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in Mac seconds (UTC: the host's time zone is not known here).
pub fn mac_now() -> u32 {
    let unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    ferrite_formatter::hfs::mac_time_from_unix(unix)
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress(total: u64, what: &str) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new(total);
    pb.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg:24} [{bar:40}] {bytes}/{total_bytes} ({eta})",
        )
        .expect("template")
        .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

/// Bytes as a short human size.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else if v >= 100.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
