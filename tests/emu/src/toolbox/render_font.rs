//! The emulated Mac's bitmap fonts: two faces drawn for this project as text bitmaps
//! (`render_fonts/*.txt`, MIT OR Apache-2.0; no other font's bitmaps), with the metrics of
//! the period's system faces: a proportional 12-point system font (ascent 12, descent 3,
//! leading 1) and a 9-point fixed-width face (advance 6, ascent 9, descent 2, leading 0).
//! QuickDraw's `StringWidth` and pen advance use these widths, and the renderer draws with
//! them. Font choice: font 4 (Monaco) and any size below 12 → the 9-point face; everything else
//! → the 12-point face (sizes are not scaled; see docs/emulated-mac.md).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One glyph: its rows (top first), `true` = ink.
#[derive(Debug, Clone)]
pub struct Glyph {
    pub width: u16,
    /// Rows above the baseline (the last of them touches it).
    pub above: u16,
    pub rows: Vec<Vec<bool>>,
}

/// A bitmap font.
#[derive(Debug)]
pub struct BitmapFont {
    pub name: &'static str,
    pub ascent: i16,
    pub descent: i16,
    pub leading: i16,
    /// By Mac Roman code.
    pub glyphs: BTreeMap<u8, Glyph>,
    /// Drawn for codes without a glyph (a hollow box, as QuickDraw's missing symbol).
    pub missing: Glyph,
}

/// `FONT` number of Monaco.
pub const MONACO: i16 = 4;

impl BitmapFont {
    /// Parse a glyph file (format in `render_fonts/system12.txt`).
    pub fn parse(
        name: &'static str,
        text: &str,
        ascent: i16,
        descent: i16,
        leading: i16,
    ) -> Result<BitmapFont, String> {
        let mut glyphs = BTreeMap::new();
        let mut current: Option<(u8, Vec<&str>)> = None;
        let finish = |g: (u8, Vec<&str>), glyphs: &mut BTreeMap<u8, Glyph>| -> Result<(), String> {
            let (code, lines) = g;
            let split = lines.iter().position(|l| *l == "-");
            let above = split.unwrap_or(lines.len());
            let rows: Vec<Vec<bool>> = lines
                .iter()
                .filter(|l| **l != "-")
                .map(|l| l.chars().map(|c| c == '#').collect())
                .collect();
            let width = rows.first().map_or(0, Vec::len);
            if rows.is_empty() || rows.iter().any(|r| r.len() != width) || above == 0 {
                return Err(format!("{name}: glyph ${code:02X} has ragged or no rows"));
            }
            if above as i16 > ascent || (rows.len() - above) as i16 > descent {
                return Err(format!(
                    "{name}: glyph ${code:02X} is taller than the font's ascent or descent"
                ));
            }
            glyphs.insert(
                code,
                Glyph {
                    width: width as u16,
                    above: above as u16,
                    rows,
                },
            );
            Ok(())
        };
        for line in text.lines() {
            if line.starts_with("# ") || line.is_empty() {
                continue;
            }
            if let Some(head) = line.strip_prefix(':') {
                if let Some(g) = current.take() {
                    finish(g, &mut glyphs)?;
                }
                let code = match head {
                    "space" => b' ',
                    h if h.starts_with("0x") => u8::from_str_radix(&h[2..], 16)
                        .map_err(|e| format!("{name}: glyph {h}: {e}"))?,
                    h if h.len() == 1 => h.as_bytes()[0],
                    h => return Err(format!("{name}: bad glyph name {h:?}")),
                };
                current = Some((code, Vec::new()));
            } else if line == "-" || line.chars().all(|c| c == '.' || c == '#') {
                current
                    .as_mut()
                    .ok_or_else(|| format!("{name}: rows before the first glyph"))?
                    .1
                    .push(line);
            } else {
                return Err(format!("{name}: stray line {line:?}"));
            }
        }
        if let Some(g) = current.take() {
            finish(g, &mut glyphs)?;
        }
        let h = (ascent - 3).max(3) as usize;
        let w = (h / 2).max(3);
        let missing = Glyph {
            width: w as u16,
            above: h as u16,
            rows: (0..h)
                .map(|y| {
                    (0..w)
                        .map(|x| y == 0 || y == h - 1 || x == 0 || x == w - 1)
                        .collect()
                })
                .collect(),
        };
        Ok(BitmapFont {
            name,
            ascent,
            descent,
            leading,
            glyphs,
            missing,
        })
    }

    /// The glyph drawn for `c`.
    pub fn glyph(&self, c: u8) -> &Glyph {
        self.glyphs.get(&c).unwrap_or(&self.missing)
    }

    /// Pen advance of `c` (glyph width + 1).
    pub fn advance(&self, c: u8) -> i16 {
        self.glyph(c).width as i16 + 1
    }

    /// Width of a string (sum of advances), as `StringWidth` answers.
    pub fn width(&self, text: &[u8]) -> i16 {
        text.iter()
            .fold(0i16, |w, &c| w.saturating_add(self.advance(c)))
    }

    /// The pixels `text` inks with its base line starting at (`h`, `v`), left to right, and
    /// the pen position after it: what `DrawString` draws, before any clipping.
    pub fn ink(&self, h: i32, v: i32, text: &[u8]) -> (Vec<(i32, i32)>, i32) {
        let mut pen = h;
        let mut out = Vec::new();
        for &c in text {
            let g = self.glyph(c);
            let top = v - g.above as i32;
            for (row, bits) in g.rows.iter().enumerate() {
                for (col, &ink) in bits.iter().enumerate() {
                    if ink {
                        out.push((pen + col as i32, top + row as i32));
                    }
                }
            }
            pen += self.advance(c) as i32;
        }
        (out, pen)
    }

    /// Line height (ascent + descent + leading).
    pub fn line_height(&self) -> i16 {
        self.ascent + self.descent + self.leading
    }
}

/// The proportional 12-point system face.
pub fn system() -> &'static BitmapFont {
    static F: OnceLock<BitmapFont> = OnceLock::new();
    F.get_or_init(|| {
        BitmapFont::parse(
            "system12",
            include_str!("render_fonts/system12.txt"),
            12,
            3,
            1,
        )
        .expect("render_fonts/system12.txt parses")
    })
}

/// The fixed-width 9-point face.
pub fn monaco() -> &'static BitmapFont {
    static F: OnceLock<BitmapFont> = OnceLock::new();
    F.get_or_init(|| {
        BitmapFont::parse("monaco9", include_str!("render_fonts/monaco9.txt"), 9, 2, 0)
            .expect("render_fonts/monaco9.txt parses")
    })
}

/// The face QuickDraw draws `font` at `size` with.
pub fn for_port(font: i16, size: i16) -> &'static BitmapFont {
    if font == MONACO || (size > 0 && size < 12) {
        monaco()
    } else {
        system()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_faces_parse_and_cover_printable_ascii() {
        for f in [system(), monaco()] {
            for c in 0x20u8..=0x7E {
                assert!(
                    f.glyphs.contains_key(&c),
                    "{}: no glyph for {:?}",
                    f.name,
                    c as char
                );
            }
        }
        // The fixed face is fixed.
        assert!(monaco().glyphs.values().all(|g| g.width == 5));
        assert_eq!(monaco().width(b"ID 0  disk"), 60);
        // The system face is proportional.
        assert!(system().width(b"iiii") < system().width(b"MMMM"));
    }
}
