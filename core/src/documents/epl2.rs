//! EPL2 output: the label layout at 203 dpi (812 x 1218 dots, 24-dot gap).
//!
//! EPL2's resident fonts 1-4 are fixed-pitch and only promise ASCII, so text is
//! transliterated to ASCII (`Zürich` → `Zurich`) and cut by character count. Field data
//! is quoted, with `"` and `\` escaped by a backslash as EPL2 requires. EPL2 has no bold
//! face; the layout's bold text prints in the regular one.

use std::fmt::Write;

use super::layout::Element;
use super::text::fit_ascii;
use super::zpl::{barcode_place, dots};

/// A resident font option: font number, multiplier, height and cell width in dots.
#[derive(Debug, Clone, Copy)]
struct FontOption {
    font: u8,
    mult: u32,
    height: u32,
    cell: u32,
}

/// The resident fonts at 203 dpi (character cell including the inter-character gap),
/// largest first.
const FONTS: [FontOption; 5] = [
    FontOption { font: 4, mult: 2, height: 48, cell: 32 },
    FontOption { font: 4, mult: 1, height: 24, cell: 16 },
    FontOption { font: 3, mult: 1, height: 20, cell: 14 },
    FontOption { font: 2, mult: 1, height: 16, cell: 12 },
    FontOption { font: 1, mult: 1, height: 12, cell: 10 },
];

/// Picks the largest font no taller than `size`, going down towards `min_size` while
/// the text does not fit.
fn pick(chars: usize, size: u32, min_size: u32, width: u32) -> FontOption {
    let (hi, lo) = (dots(size), dots(min_size));
    let mut chosen = FONTS[FONTS.len() - 1];
    let mut first = true;
    for f in FONTS.iter().filter(|f| f.height <= hi.max(12)) {
        if !first && f.height + 6 < lo {
            break;
        }
        chosen = *f;
        first = false;
        if usize::try_from(width / f.cell).unwrap_or(0) >= chars {
            break;
        }
    }
    chosen
}

/// `s` quoted for an EPL2 command.
fn quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// The EPL2 commands of a label.
pub(crate) fn render(elements: &[Element]) -> String {
    let mut out = String::with_capacity(2048);
    out.push_str("\nN\nq812\nQ1218,24\n");
    for e in elements {
        match e {
            Element::Text { x, y, size, min_size, max_width, center, text, .. } => {
                let width = dots(*max_width);
                // No line of a 4-inch label holds more than 81 characters.
                let full = fit_ascii(text, 100);
                let f = pick(full.len(), *size, (*min_size).min(*size), width);
                let max_chars = usize::try_from(width / (f.cell * f.mult).max(1)).unwrap_or(0);
                let line = fit_ascii(&full, max_chars);
                if line.is_empty() {
                    continue;
                }
                let mut x = dots(*x);
                if *center {
                    let used = u32::try_from(line.len()).unwrap_or(u32::MAX).saturating_mul(f.cell);
                    x += width.saturating_sub(used) / 2;
                }
                let _ = write!(out, "A{x},{},0,{},{},{},N,", dots(*y), f.font, f.mult, f.mult);
                quoted(&mut out, &line);
                out.push('\n');
            }
            Element::Rule { x, y, width, height } => {
                let (w, h) = (dots(*width).max(1), dots(*height).max(1));
                let _ = writeln!(out, "LO{},{},{w},{h}", dots(*x), dots(*y));
            }
            Element::Barcode { x, y, height, max_width, data } => {
                let Some((left, narrow)) = barcode_place(*x, *max_width, data) else {
                    continue;
                };
                // Barcode type 1: Code 128 with automatic A/B/C code sets. The wide bar
                // width is ignored by Code 128 but must be given.
                let _ = write!(out, "B{left},{},0,1,{narrow},{},{},N,", dots(*y), (narrow * 2).max(2), dots(*height));
                quoted(&mut out, data);
                out.push('\n');
            }
        }
    }
    out.push_str("P1\n");
    out
}
