//! ZPL II output: the label layout at 203 dpi (812 x 1218 dots).
//!
//! Text fields use the scalable font `^A0`. Every field goes through `^FH`, and every
//! byte that is not plain printable ASCII, as well as `^`, `~`, `_` and `\` (the command
//! prefixes, the hex indicator and the field-block escape), is written as `_XX`. With
//! `^CI28` the printer reads the unescaped bytes as UTF-8, so accented names print while
//! the command stream stays ASCII and no data can end a field early.

use std::fmt::Write;

use super::code128;
use super::layout::Element;
use super::text::{fit_winansi, shrink_to_fit};

/// Points to dots at 203 dpi, rounded.
pub(crate) fn dots(pt: u32) -> u32 {
    (pt * 203 + 36) / 72
}

/// Where a Code 128 barcode of `data` goes in a band `max_width` points wide from `x`:
/// its left edge and the width of its narrow bar, in dots, centred in the band; `None`
/// when `data` is not Code 128 or its bars cannot be a dot wide in the band. ZPL and
/// EPL2 place their barcodes alike.
pub(crate) fn barcode_place(x: u32, max_width: u32, data: &str) -> Option<(u32, u32)> {
    let modules = code128::module_count(data)?;
    let band = dots(max_width);
    let narrow = (band / (modules + 20)).min(4);
    (narrow > 0).then(|| (dots(x) + band.saturating_sub(modules * narrow) / 2, narrow))
}

/// The Unicode character of a WinAnsi (Windows-1252) byte; bytes the code page leaves
/// undefined become `?`.
pub(crate) fn winansi_char(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '?', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '?', 'Ž', '?', '?', '‘', '’', '“', '”', '•', '–', '—', '˜', '™',
        'š', '›', 'œ', '?', 'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9F => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// `s` as `^FH` field data: printable ASCII as is, everything else hex-escaped.
fn field_data(out: &mut String, s: impl Iterator<Item = char>) {
    for c in s {
        let mut buf = [0u8; 4];
        for &b in c.encode_utf8(&mut buf).as_bytes() {
            match b {
                b'^' | b'~' | b'_' | b'\\' => {
                    let _ = write!(out, "_{b:02X}");
                }
                0x20..=0x7E => out.push(char::from(b)),
                _ => {
                    let _ = write!(out, "_{b:02X}");
                }
            }
        }
    }
}

/// The ZPL II commands of a label.
pub(crate) fn render(elements: &[Element]) -> String {
    let mut out = String::with_capacity(2048);
    out.push_str("^XA\n^CI28\n^PW812\n^LL1218\n^LH0,0\n");
    for e in elements {
        match e {
            Element::Text { x, y, size, min_size, font, max_width, center, text } => {
                let size = if min_size < size { shrink_to_fit(text, *font, *size, *min_size, *max_width) } else { *size };
                let bytes = fit_winansi(text, *font, size, *max_width);
                if bytes.is_empty() {
                    continue;
                }
                let h = dots(size);
                let _ = write!(out, "^FO{},{}^A0N,{h},{h}", dots(*x), dots(*y));
                if *center {
                    let _ = write!(out, "^FB{},1,0,C,0", dots(*max_width));
                }
                out.push_str("^FH^FD");
                field_data(&mut out, bytes.iter().map(|&b| winansi_char(b)));
                out.push_str("^FS\n");
            }
            Element::Rule { x, y, width, height } => {
                let (w, h) = (dots(*width).max(1), dots(*height).max(1));
                let _ = writeln!(out, "^FO{},{}^GB{w},{h},{}^FS", dots(*x), dots(*y), w.min(h));
            }
            Element::Barcode { x, y, height, max_width, data } => {
                let Some((left, narrow)) = barcode_place(*x, *max_width, data) else {
                    continue;
                };
                let _ = write!(out, "^FO{left},{}^BY{narrow}^BCN,{},N,N,N,A^FH^FD", dots(*y), dots(*height));
                // Automatic mode (the last `A`) lets the printer pick the code sets.
                field_data(&mut out, data.chars());
                out.push_str("^FS\n");
            }
        }
    }
    out.push_str("^PQ1\n^XZ\n");
    out
}
