//! A 1-bit bitmap (one byte per pixel on the host, `true` = black as on a Mac screen) with the
//! QuickDraw-style operations the renderer needs: rectangles, lines, rounded rectangles,
//! ovals, text in a [`BitmapFont`], copying, and PNG encoding (1-bit grayscale, the `png`
//! crate). Rectangles are QuickDraw's `[top, left, bottom, right]`: they cover the pixels
//! `left..right` × `top..bottom`.

use super::render_font::BitmapFont;

/// A QuickDraw rectangle: top, left, bottom, right.
pub type Rect = [i16; 4];

/// `r` grown by `d` on every side (shrunk when negative).
pub fn outset(r: Rect, d: i16) -> Rect {
    [r[0] - d, r[1] - d, r[2] + d, r[3] + d]
}

/// `r` moved by (`dh`, `dv`).
pub fn offset(r: Rect, dh: i16, dv: i16) -> Rect {
    [r[0] + dv, r[1] + dh, r[2] + dv, r[3] + dh]
}

/// A 1-bit picture.
#[derive(Clone, PartialEq, Eq)]
pub struct Bitmap {
    pub width: usize,
    pub height: usize,
    px: Vec<bool>,
}

impl std::fmt::Debug for Bitmap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bitmap {}×{}", self.width, self.height)
    }
}

impl Bitmap {
    /// All white.
    pub fn new(width: usize, height: usize) -> Bitmap {
        Bitmap {
            width,
            height,
            px: vec![false; width * height],
        }
    }

    /// The pixel at (`x`, `y`) (false = white; outside = white).
    pub fn get(&self, x: i32, y: i32) -> bool {
        self.index(x, y).is_some_and(|i| self.px[i])
    }

    fn index(&self, x: i32, y: i32) -> Option<usize> {
        (x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height)
            .then(|| y as usize * self.width + x as usize)
    }

    /// Set a pixel (ignored outside).
    pub fn set(&mut self, x: i32, y: i32, black: bool) {
        if let Some(i) = self.index(x, y) {
            self.px[i] = black;
        }
    }

    /// Every pixel of `r` (clipped to the bitmap) for which `inside` holds gets `ink(x, y)`.
    fn shade(
        &mut self,
        r: Rect,
        inside: impl Fn(i32, i32) -> bool,
        ink: impl Fn(i32, i32, bool) -> bool,
    ) {
        let (t, l) = (r[0].max(0) as i32, r[1].max(0) as i32);
        let b = (r[2] as i32).min(self.height as i32);
        let rt = (r[3] as i32).min(self.width as i32);
        for y in t..b {
            for x in l..rt {
                if inside(x, y) {
                    let i = y as usize * self.width + x as usize;
                    self.px[i] = ink(x, y, self.px[i]);
                }
            }
        }
    }

    /// Fill `r` with black or white.
    pub fn fill(&mut self, r: Rect, black: bool) {
        self.shade(r, |_, _| true, |_, _, _| black);
    }

    /// Fill `r` with the 50% gray pattern (QuickDraw's `gray`: $AA55…).
    pub fn fill_gray(&mut self, r: Rect) {
        self.shade(r, |_, _| true, |x, y, _| (x + y) % 2 == 1);
    }

    /// Invert `r`.
    pub fn invert(&mut self, r: Rect) {
        self.shade(r, |_, _| true, |_, _, p| !p);
    }

    /// A one-pixel black frame just inside `r` (`FrameRect` with a 1×1 pen).
    pub fn frame(&mut self, r: Rect) {
        self.frame_thick(r, 1);
    }

    /// A black frame `t` pixels thick just inside `r`.
    pub fn frame_thick(&mut self, r: Rect, t: i16) {
        let inner = outset(r, -t);
        self.shade(
            r,
            |x, y| {
                !(x >= inner[1] as i32
                    && x < inner[3] as i32
                    && y >= inner[0] as i32
                    && y < inner[2] as i32)
            },
            |_, _, _| true,
        );
    }

    /// A line from (`h0`, `v0`) to (`h1`, `v1`), both ends included (`LineTo` with a 1×1 pen).
    pub fn line(&mut self, h0: i32, v0: i32, h1: i32, v1: i32) {
        let (dx, dy) = ((h1 - h0).abs(), -(v1 - v0).abs());
        let (sx, sy) = (if h0 < h1 { 1 } else { -1 }, if v0 < v1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (h0, v0, dx + dy);
        loop {
            self.set(x, y, true);
            if x == h1 && y == v1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// Whether (`x`, `y`) lies inside the rounded rectangle `r` with corner radius `rad`.
    fn in_round(r: Rect, rad: i32, x: i32, y: i32) -> bool {
        let (t, l, b, rt) = (r[0] as i32, r[1] as i32, r[2] as i32, r[3] as i32);
        if x < l || x >= rt || y < t || y >= b {
            return false;
        }
        let rad = rad.min((rt - l) / 2).min((b - t) / 2).max(0);
        // Distance into the corner square, measured at pixel centres (doubled).
        let cx = if x < l + rad {
            2 * (l + rad - x) - 1
        } else if x >= rt - rad {
            2 * (x - (rt - rad)) + 1
        } else {
            return true;
        };
        let cy = if y < t + rad {
            2 * (t + rad - y) - 1
        } else if y >= b - rad {
            2 * (y - (b - rad)) + 1
        } else {
            return true;
        };
        cx * cx + cy * cy <= 4 * rad * rad
    }

    /// Fill the rounded rectangle `r` (corner radius `rad`) with black or white.
    pub fn fill_round(&mut self, r: Rect, rad: i16, black: bool) {
        self.shade(
            r,
            |x, y| Self::in_round(r, rad as i32, x, y),
            |_, _, _| black,
        );
    }

    /// Frame the rounded rectangle `r` with a pen `t` pixels thick (`FrameRoundRect`).
    pub fn frame_round(&mut self, r: Rect, rad: i16, t: i16) {
        let inner = outset(r, -t);
        self.shade(
            r,
            |x, y| {
                Self::in_round(r, rad as i32, x, y)
                    && !Self::in_round(inner, (rad - t).max(0) as i32, x, y)
            },
            |_, _, _| true,
        );
    }

    /// Draw `text` with its baseline at `v`, starting at `h` (QuickDraw `srcOr`: ink is
    /// black, paper leaves what was there), clipped to `clip`. Returns the pen's new `h`.
    pub fn text(&mut self, font: &BitmapFont, h: i32, v: i32, text: &[u8], clip: Rect) -> i32 {
        let (ink, pen) = font.ink(h, v, text);
        for (x, y) in ink {
            if x >= clip[1] as i32
                && x < clip[3] as i32
                && y >= clip[0] as i32
                && y < clip[2] as i32
            {
                self.set(x, y, true);
            }
        }
        pen
    }

    /// The whole bitmap as a rectangle.
    pub fn bounds(&self) -> Rect {
        [0, 0, self.height as i16, self.width as i16]
    }

    /// Copy `src` with its top-left corner at (`h`, `v`), only inside `clip`.
    pub fn copy_from(&mut self, src: &Bitmap, h: i32, v: i32, clip: Rect) {
        for y in 0..src.height as i32 {
            for x in 0..src.width as i32 {
                let (dx, dy) = (h + x, v + y);
                if dx >= clip[1] as i32
                    && dx < clip[3] as i32
                    && dy >= clip[0] as i32
                    && dy < clip[2] as i32
                {
                    self.set(dx, dy, src.get(x, y));
                }
            }
        }
    }

    /// PNG: 1-bit grayscale (0 = black), no ancillary chunks, so the same picture always
    /// encodes to the same bytes.
    pub fn png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width as u32, self.height as u32);
            enc.set_color(png::ColorType::Grayscale);
            enc.set_depth(png::BitDepth::One);
            enc.set_compression(png::Compression::High);
            let mut w = enc.write_header().expect("PNG header into memory");
            let stride = self.width.div_ceil(8);
            let mut data = vec![0u8; stride * self.height];
            for y in 0..self.height {
                for x in 0..self.width {
                    if !self.px[y * self.width + x] {
                        data[y * stride + x / 8] |= 0x80 >> (x % 8);
                    }
                }
            }
            w.write_image_data(&data).expect("PNG data into memory");
        }
        out
    }

    /// Decode a 1-bit grayscale PNG as [`Bitmap::png`] writes it.
    pub fn from_png(bytes: &[u8]) -> Result<Bitmap, String> {
        let dec = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut r = dec.read_info().map_err(|e| e.to_string())?;
        let info = r.info();
        if info.color_type != png::ColorType::Grayscale || info.bit_depth != png::BitDepth::One {
            return Err(format!(
                "not 1-bit grayscale: {:?} {:?}",
                info.color_type, info.bit_depth
            ));
        }
        let (w, h) = (info.width as usize, info.height as usize);
        let mut buf = vec![0u8; r.output_buffer_size().ok_or("PNG too large")?];
        let frame = r.next_frame(&mut buf).map_err(|e| e.to_string())?;
        let stride = frame.line_size;
        let mut bm = Bitmap::new(w, h);
        for y in 0..h {
            for x in 0..w {
                bm.px[y * w + x] = buf[y * stride + x / 8] & (0x80 >> (x % 8)) == 0;
            }
        }
        Ok(bm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolbox::render_font;

    #[test]
    fn png_round_trips_at_one_bit_and_is_deterministic() {
        let mut bm = Bitmap::new(13, 7);
        bm.frame([0, 0, 7, 13]);
        bm.line(0, 0, 12, 6);
        let png = bm.png();
        assert_eq!(png, bm.png());
        assert_eq!(Bitmap::from_png(&png).unwrap(), bm);
        // An 8-bit PNG is refused.
        let mut out = Vec::new();
        {
            let mut e = png::Encoder::new(&mut out, 2, 2);
            e.set_color(png::ColorType::Grayscale);
            e.set_depth(png::BitDepth::Eight);
            e.write_header().unwrap().write_image_data(&[0; 4]).unwrap();
        }
        assert!(Bitmap::from_png(&out).is_err());
    }

    #[test]
    fn text_sits_on_its_baseline_and_is_clipped() {
        let f = render_font::system();
        let mut bm = Bitmap::new(40, 20);
        let end = bm.text(f, 2, 12, b"H", [0, 0, 20, 40]);
        assert_eq!(end, 2 + f.advance(b'H') as i32);
        // H: nine rows of stems ending on the row above the baseline.
        assert!((3..12).all(|y| bm.get(2, y) && bm.get(3, y)));
        assert!(!bm.get(2, 12) && !bm.get(2, 2));
        let mut clipped = Bitmap::new(40, 20);
        clipped.text(f, 2, 12, b"H", [0, 0, 8, 40]);
        assert!(clipped.get(2, 7) && !clipped.get(2, 8));
    }
}
