//! Pascal strings: a length byte, then up to 255 bytes of Mac Roman text (no terminator).

/// A `Str255` buffer (256 bytes, as the Toolbox expects for `VAR s: Str255`).
/// Word-aligned: the Toolbox may read it a word at a time, which faults at an odd address on
/// the 68000.
#[derive(Clone, Copy)]
#[repr(C, align(2))]
pub struct Str255 {
    bytes: [u8; 256],
}

impl Default for Str255 {
    fn default() -> Self {
        Str255 { bytes: [0; 256] }
    }
}

impl Str255 {
    /// An empty string.
    pub const fn new() -> Str255 {
        Str255 { bytes: [0; 256] }
    }
    /// The Mac Roman encoding of `s`, cut at 255 bytes (characters without a Mac Roman
    /// form become `?`).
    #[allow(clippy::should_implement_trait)] // infallible, unlike `FromStr`
    pub fn from_str(s: &str) -> Str255 {
        let mut p = Str255::new();
        p.push_str(s);
        p
    }
    /// Pascal string bytes (`[len, text…]`), cut at 255 text bytes.
    pub fn from_pascal(b: &[u8]) -> Str255 {
        let mut p = Str255::new();
        if let Some((&len, text)) = b.split_first() {
            p.push_bytes(&text[..(len as usize).min(text.len())]);
        }
        p
    }
    /// Append `s` (Mac Roman), as much as fits.
    pub fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            if !self.push_byte(mac_roman(c)) {
                break;
            }
        }
    }
    /// Append raw Mac Roman bytes, as many as fit.
    pub fn push_bytes(&mut self, b: &[u8]) {
        for &c in b {
            if !self.push_byte(c) {
                break;
            }
        }
    }
    /// Append one byte; false when the string is full.
    pub fn push_byte(&mut self, c: u8) -> bool {
        let len = self.bytes[0] as usize;
        if len == 255 {
            return false;
        }
        self.bytes[len + 1] = c;
        self.bytes[0] = len as u8 + 1;
        true
    }
    /// The text bytes.
    pub fn text(&self) -> &[u8] {
        &self.bytes[1..=self.bytes[0] as usize]
    }
    /// Number of text bytes.
    pub fn len(&self) -> usize {
        self.bytes[0] as usize
    }
    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes[0] == 0
    }
    /// The address to pass to the Toolbox (`StringPtr`).
    pub fn as_ptr(&self) -> *const u8 {
        self.bytes.as_ptr()
    }
    /// For `VAR s: Str255` parameters.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr()
    }
}

impl core::fmt::Write for Str255 {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

/// The Mac Roman byte for `c` (ASCII, and the few symbols a user interface needs).
pub fn mac_roman(c: char) -> u8 {
    match c {
        '\0'..='\x7F' => c as u8,
        '…' => 0xC9,
        '©' => 0xA9,
        '®' => 0xA8,
        '™' => 0xAA,
        '•' => 0xA5,
        '–' => 0xD0,
        '—' => 0xD1,
        '“' => 0xD2,
        '”' => 0xD3,
        '‘' => 0xD4,
        '’' => 0xD5,
        '\u{A0}' => 0xCA,
        _ => b'?',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::fmt::Write;

    #[test]
    fn pascal_strings() {
        let s = Str255::from_str("About Ferrite Setup…");
        assert_eq!(s.len(), 20);
        assert_eq!(s.text().last(), Some(&0xC9));
        let mut long = Str255::new();
        for _ in 0..300 {
            long.push_str("x");
        }
        assert_eq!(long.len(), 255);
        let mut f = Str255::new();
        write!(f, "ID {} {:>5}", 3, "MB").unwrap();
        assert_eq!(f.text(), b"ID 3    MB");
        assert_eq!(
            Str255::from_pascal(&[3, b'a', b'b', b'c', b'd']).text(),
            b"abc"
        );
        assert_eq!(
            Str255::from_pascal(&[9, b'a']).text(),
            b"a",
            "a short buffer is cut"
        );
        assert_eq!(mac_roman('é'), b'?');
    }
}
