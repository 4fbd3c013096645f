//! Line and bar charts for `docs/BENCHMARKS.md`, drawn with `plotters` into an RGB buffer
//! (lines, bars, grid, frame) and labelled with the emulated Mac's own 9-point bitmap face
//! (`ferrite_emu::toolbox::render_font`), then encoded by the `png` crate without ancillary
//! chunks: no system font is involved, so the same numbers give the same bytes everywhere.

use ferrite_emu::toolbox::render_font::{BitmapFont, monaco};
use plotters::prelude::*;

/// Picture size.
const W: u32 = 640;
const H: u32 = 400;
/// The plot area inside the picture: left, top, right, bottom.
const AREA: (i32, i32, i32, i32) = (64, 34, 476, 352);

/// Series colours (distinct in print and for the common colour-vision deficiencies).
const COLOURS: [RGBColor; 6] = [
    RGBColor(0, 0, 0),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
];

/// One line of a line chart: its label, whether it is dashed, and its y for each x.
pub struct Line {
    pub label: String,
    pub dashed: bool,
    /// Index into the colour list.
    pub colour: usize,
    pub ys: Vec<f64>,
}

/// A picture being drawn.
struct Canvas {
    rgb: Vec<u8>,
}

impl Canvas {
    fn new() -> Canvas {
        Canvas {
            rgb: vec![255; (W * H * 3) as usize],
        }
    }

    /// Draw with plotters.
    fn draw(&mut self, f: impl FnOnce(&DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>)) {
        let root = BitMapBackend::with_buffer(&mut self.rgb, (W, H)).into_drawing_area();
        f(&root);
        root.present().expect("drawing into memory");
    }

    /// Text in the 9-point bitmap face with its baseline at `v`; `align` 0 = left from `h`,
    /// 1 = centred on `h`, 2 = right up to `h`.
    fn text(&mut self, h: i32, v: i32, s: &str, align: u8) {
        let font: &BitmapFont = monaco();
        let bytes: Vec<u8> = s
            .chars()
            .map(|c| if c.is_ascii() { c as u8 } else { b'?' })
            .collect();
        let width = font.width(&bytes) as i32;
        let pen = match align {
            0 => h,
            1 => h - width / 2,
            _ => h - width,
        };
        for (x, y) in font.ink(pen, v, &bytes).0 {
            if (0..W as i32).contains(&x) && (0..H as i32).contains(&y) {
                let i = ((y as u32 * W + x as u32) * 3) as usize;
                self.rgb[i..i + 3].fill(0);
            }
        }
    }

    fn png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, W, H);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_compression(png::Compression::High);
            let mut w = enc.write_header().expect("PNG header into memory");
            w.write_image_data(&self.rgb).expect("PNG data into memory");
        }
        out
    }
}

/// A "nice" upper bound and step for an axis from 0 to `max`.
fn axis(max: f64) -> (f64, f64) {
    let max = max.max(1e-9);
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| s * 5.0 >= max)
        .unwrap_or(10.0 * mag);
    ((max / step).ceil() * step, step)
}

fn number(v: f64) -> String {
    if v >= 1000.0 {
        let n = v.round() as u64;
        format!("{},{:03}", n / 1000, n % 1000)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Title, y-axis name, frame and horizontal grid with labels; returns the y scale's top.
fn frame(c: &mut Canvas, title: &str, y_name: &str, y_max: f64) -> f64 {
    let (top, step) = axis(y_max);
    let (l, t, r, b) = AREA;
    c.draw(|root| {
        root.fill(&WHITE).expect("fill");
        let grey = RGBColor(210, 210, 210);
        let mut y = 0.0;
        while y <= top + step / 2.0 {
            let py = b - ((y / top) * (b - t) as f64).round() as i32;
            root.draw(&PathElement::new(vec![(l, py), (r, py)], grey))
                .expect("grid");
            y += step;
        }
        root.draw(&Rectangle::new([(l, t), (r, b)], BLACK))
            .expect("frame");
    });
    c.text(W as i32 / 2, 16, title, 1);
    c.text(l, t - 6, y_name, 0);
    let mut y = 0.0;
    while y <= top + step / 2.0 {
        let py = b - ((y / top) * (b - t) as f64).round() as i32;
        c.text(l - 4, py + 3, &number(y), 2);
        y += step;
    }
    top
}

/// The pieces of the segment `a`–`b`: itself, or 6-pixel dashes with 4-pixel gaps.
fn dashes(a: (i32, i32), b: (i32, i32), dashed: bool) -> Vec<Vec<(i32, i32)>> {
    if !dashed {
        return vec![vec![a, b]];
    }
    let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
    let len = (dx * dx + dy * dy).sqrt();
    let at = |d: f64| {
        let f = (d / len).min(1.0);
        (a.0 + (dx * f).round() as i32, a.1 + (dy * f).round() as i32)
    };
    let mut out = Vec::new();
    let mut d = 0.0;
    while d < len {
        out.push(vec![at(d), at(d + 6.0)]);
        d += 10.0;
    }
    out
}

/// A line chart: `xs` are the x labels (equally spaced), one line per [`Line`].
pub fn lines(title: &str, x_name: &str, y_name: &str, xs: &[String], series: &[Line]) -> Vec<u8> {
    let mut c = Canvas::new();
    let y_max = series
        .iter()
        .flat_map(|s| s.ys.iter().copied())
        .fold(0.0, f64::max);
    let top = frame(&mut c, title, y_name, y_max);
    let (l, t, r, b) = AREA;
    let n = xs.len().max(2) - 1;
    let px = |i: usize| l + 8 + (i as i32 * (r - l - 16)) / n as i32;
    let py = |y: f64| b - ((y / top) * (b - t) as f64).round() as i32;
    c.draw(|root| {
        for s in series {
            let colour = COLOURS[s.colour % COLOURS.len()];
            let points: Vec<(i32, i32)> =
                s.ys.iter()
                    .enumerate()
                    .map(|(i, &y)| (px(i), py(y)))
                    .collect();
            for w in points.windows(2) {
                for piece in dashes(w[0], w[1], s.dashed) {
                    root.draw(&PathElement::new(piece, colour.stroke_width(2)))
                        .expect("line");
                }
            }
            for &p in &points {
                let mark: ShapeStyle = if s.dashed {
                    colour.stroke_width(1)
                } else {
                    colour.filled()
                };
                root.draw(&Circle::new(p, 3, mark)).expect("mark");
            }
        }
    });
    for (i, x) in xs.iter().enumerate() {
        c.text(px(i), b + 14, x, 1);
    }
    c.text((l + r) / 2, b + 30, x_name, 1);
    legend(
        &mut c,
        series
            .iter()
            .map(|s| (s.label.as_str(), s.colour, s.dashed)),
    );
    c.png()
}

/// A bar chart: one group per label, one bar per series value, with each series' name in
/// the legend; `limits` (same shape as `values`), when given, are drawn as a tick above each
/// bar: the profile's limit.
pub fn bars(
    title: &str,
    y_name: &str,
    groups: &[String],
    names: &[&str],
    values: &[Vec<f64>],
    limits: Option<&[Vec<f64>]>,
) -> Vec<u8> {
    let mut c = Canvas::new();
    let y_max = values
        .iter()
        .chain(limits.into_iter().flatten())
        .flatten()
        .copied()
        .fold(0.0, f64::max);
    let top = frame(&mut c, title, y_name, y_max);
    let (l, t, r, b) = AREA;
    let group_w = (r - l) / groups.len().max(1) as i32;
    let bar_w = (group_w - 12) / names.len().max(1) as i32;
    let py = |y: f64| b - ((y / top) * (b - t) as f64).round() as i32;
    c.draw(|root| {
        for (g, vals) in values.iter().enumerate() {
            for (k, &v) in vals.iter().enumerate() {
                let x0 = l + g as i32 * group_w + 6 + k as i32 * bar_w;
                let colour = COLOURS[(k + 1) % COLOURS.len()];
                root.draw(&Rectangle::new(
                    [(x0 + 1, py(v)), (x0 + bar_w - 1, b)],
                    colour.filled(),
                ))
                .expect("bar");
                if let Some(lim) = limits {
                    let y = py(lim[g][k]);
                    root.draw(&PathElement::new(
                        vec![(x0, y), (x0 + bar_w, y)],
                        BLACK.stroke_width(2),
                    ))
                    .expect("limit");
                }
            }
        }
    });
    for (g, name) in groups.iter().enumerate() {
        let centre = l + g as i32 * group_w + group_w / 2;
        // Two lines where the label has a " / ".
        match name.split_once(" / ") {
            Some((a, z)) => {
                c.text(centre, b + 14, a, 1);
                c.text(centre, b + 26, z, 1);
            }
            None => c.text(centre, b + 14, name, 1),
        }
    }
    let mut entries: Vec<(&str, usize, bool)> = names
        .iter()
        .enumerate()
        .map(|(k, n)| (*n, k + 1, false))
        .collect();
    if limits.is_some() {
        entries.push(("limit", 0, false));
    }
    legend(&mut c, entries.into_iter());
    c.png()
}

/// The legend, right of the plot area.
fn legend<'a>(c: &mut Canvas, entries: impl Iterator<Item = (&'a str, usize, bool)>) {
    let (_, t, r, _) = AREA;
    let x = r + 12;
    let entries: Vec<_> = entries.collect();
    c.draw(|root| {
        for (i, (_, colour, dashed)) in entries.iter().enumerate() {
            let y = t + 8 + i as i32 * 16;
            let col = COLOURS[colour % COLOURS.len()];
            if *dashed {
                root.draw(&PathElement::new(
                    vec![(x, y), (x + 6, y)],
                    col.stroke_width(2),
                ))
                .expect("legend");
                root.draw(&PathElement::new(
                    vec![(x + 12, y), (x + 18, y)],
                    col.stroke_width(2),
                ))
                .expect("legend");
            } else {
                root.draw(&PathElement::new(
                    vec![(x, y), (x + 18, y)],
                    col.stroke_width(2),
                ))
                .expect("legend");
            }
        }
    });
    for (i, (label, _, _)) in entries.iter().enumerate() {
        c.text(x + 24, t + 12 + i as i32 * 16, label, 0);
    }
}
