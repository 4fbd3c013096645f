//! Sizes on the command line: `512K`, `800M`, `2G`, `1.5G`, `2GiB`, `1000000` (bytes).

/// Parse a size in bytes. Suffixes K, M, G, T (powers of 1024; `B`, `iB` accepted after
/// them); a plain number is bytes; a fraction is allowed with a suffix.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad =
        || format!("bad size {text:?}: write it like 512K, 800M, 2G or 1.5G (or a byte count)");
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    if num.is_empty() {
        return Err(bad());
    }
    let suffix = suffix.trim().to_ascii_uppercase();
    let unit: u64 = match suffix.as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => return Err(bad()),
    };
    let (int, frac) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int.is_empty() && frac.is_empty() || frac.contains('.') || (!frac.is_empty() && unit == 1) {
        return Err(bad());
    }
    let int: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| bad())?
    };
    let mut bytes = int
        .checked_mul(unit)
        .ok_or_else(|| format!("size {text:?} is too large"))?;
    if !frac.is_empty() {
        if frac.len() > 9 {
            return Err(bad());
        }
        let f: u64 = frac.parse().map_err(|_| bad())?;
        let scale = 10u64.pow(frac.len() as u32);
        bytes = bytes
            .checked_add((f as u128 * unit as u128 / scale as u128) as u64)
            .ok_or_else(|| format!("size {text:?} is too large"))?;
    }
    if bytes == 0 {
        return Err(format!("size {text:?} is zero"));
    }
    Ok(bytes)
}

/// For clap.
pub fn parse_size_arg(text: &str) -> Result<u64, String> {
    parse_size(text)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("256M"), Ok(256 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("2 GB"), Ok(2 << 30));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1T"), Ok(1 << 40));
        for bad in [
            "",
            "G",
            "2X",
            "1.5",
            "-1",
            "1..2G",
            "0",
            "0M",
            "99999999999999999999G",
            "1.2.3M",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }
}
