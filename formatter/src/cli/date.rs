//! `--date`: a fixed date (UTC) instead of the clock, so that a disk made twice is
//! byte-for-byte the same (`cargo xtask images` relies on it).

use anyhow::{Result, bail};
use ferrite_formatter::hfs::mac_time_from_unix;

/// Days from 1970-01-01 to `year`-`month`-`day` (proleptic Gregorian calendar).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS` (a trailing `Z` is allowed; the
/// time is UTC) as seconds since 1904-01-01, the Mac's epoch. HFS dates run from 1904 to
/// 2040.
pub fn parse_mac_date(text: &str) -> Result<u32> {
    let bad = || {
        anyhow::anyhow!(
            "--date {text:?}: write the date as YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] (UTC), e.g. 2026-12-01 or 2026-12-01T12:00:00"
        )
    };
    let t = text.trim().trim_end_matches(['Z', 'z']);
    let (date, time) = match t.split_once(['T', 't', ' ']) {
        Some((d, tm)) => (d, Some(tm)),
        None => (t, None),
    };
    let num = |s: &str, len: usize| -> Result<u32> {
        if s.len() != len || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse().map_err(|_| bad())
    };
    let d: Vec<&str> = date.split('-').collect();
    let [y, m, dd] = d[..] else {
        return Err(bad());
    };
    let (year, month, day) = (num(y, 4)? as i64, num(m, 2)?, num(dd, 2)?);
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        bail!("--date {text:?}: there is no such day");
    }
    let (h, mi, s) = match time {
        None => (0, 0, 0),
        Some(tm) => {
            let p: Vec<&str> = tm.split(':').collect();
            match p[..] {
                [h, mi] => (num(h, 2)?, num(mi, 2)?, 0),
                [h, mi, s] => (num(h, 2)?, num(mi, 2)?, num(s, 2)?),
                _ => return Err(bad()),
            }
        }
    };
    if h > 23 || mi > 59 || s > 59 {
        bail!("--date {text:?}: there is no such time of day");
    }
    let unix = days_from_civil(year, month, day) * 86_400 + (h * 3600 + mi * 60 + s) as i64;
    let mac = mac_time_from_unix(unix);
    if mac == 0 || mac == u32::MAX {
        bail!("--date {text:?}: HFS dates run from 1904-01-01 to 2040-02-06");
    }
    Ok(mac)
}

/// Clap value parser for `--date`.
pub fn parse_date_arg(text: &str) -> Result<u32, String> {
    parse_mac_date(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_become_mac_seconds() {
        // 1970-01-01 is 2,082,844,800 seconds after 1904-01-01.
        assert_eq!(parse_mac_date("1970-01-01").unwrap(), 2_082_844_800);
        assert_eq!(
            parse_mac_date("1970-01-02T00:00:01Z").unwrap(),
            2_082_931_201
        );
        assert_eq!(parse_mac_date("1904-01-01T00:00:01").unwrap(), 1);
        // 2000-03-01 (after a leap day in a year divisible by 400).
        assert_eq!(
            parse_mac_date("2000-03-01").unwrap(),
            2_082_844_800 + 951_868_800
        );
        assert_eq!(
            parse_mac_date("2026-12-01T12:30").unwrap(),
            parse_mac_date("2026-12-01").unwrap() + 45_000
        );
    }

    #[test]
    fn bad_dates_are_refused() {
        for t in [
            "2026-13-01",
            "2026-02-29",
            "2026-1-1",
            "yesterday",
            "2026-12-01T25:00",
            "1903-12-31",
            "2041-01-01",
        ] {
            assert!(parse_mac_date(t).is_err(), "{t}");
        }
        assert!(parse_mac_date("2024-02-29").is_ok());
    }
}
