//! The 4x6 label, laid out once in points and drawn by each output format.
//!
//! Coordinates are whole points from the top-left corner of the 288 x 432 pt label;
//! the thermal formats scale them to 203 dpi (812 x 1218 dots), the PDF flips the y
//! axis. Keeping one layout means the PDF, ZPL and EPL2 labels carry the same fields in
//! the same places.

use chrono::Datelike;

use super::text::Font;
use super::{LabelAddress, LabelData};

/// Label width in points (4 in).
pub(crate) const LABEL_WIDTH: u32 = 288;
/// Label height in points (6 in).
pub(crate) const LABEL_HEIGHT: u32 = 432;
const MARGIN: u32 = 10;

/// One thing drawn on a label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Element {
    /// A line of text whose top is at `y`; cut to `max_width` when too long, after
    /// shrinking down to `min_size` where that is allowed.
    Text { x: u32, y: u32, size: u32, min_size: u32, font: Font, max_width: u32, center: bool, text: String },
    /// A filled rectangle (rules and boxes).
    Rule { x: u32, y: u32, width: u32, height: u32 },
    /// The Code 128 barcode of `data` with its top at `y`, centred in the band of
    /// `max_width` points from `x`.
    Barcode { x: u32, y: u32, height: u32, max_width: u32, data: String },
}

fn text(x: u32, y: u32, size: u32, font: Font, max_width: u32, s: impl Into<String>) -> Element {
    Element::Text { x, y, size, min_size: size, font, max_width, center: false, text: s.into() }
}

/// The date as the labels print it, `YYYY-MM-DD`.
pub(crate) fn iso_date(d: chrono::NaiveDate) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day())
}

/// `City, ST ZIP` with the empty parts left out.
pub(crate) fn city_line(a: &LabelAddress) -> String {
    let mut s = String::with_capacity(a.city.len() + a.state.len() + a.zip.len() + 3);
    s.push_str(a.city.trim());
    let state = a.state.trim();
    if !state.is_empty() {
        if !s.is_empty() {
            s.push_str(", ");
        }
        s.push_str(state);
    }
    let zip = a.zip.trim();
    if !zip.is_empty() {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(zip);
    }
    s
}

/// The lines of an address block, each with its size and font, empty fields skipped.
fn address_lines(a: &LabelAddress, big: bool) -> Vec<(u32, Font, String)> {
    let (name, body, city) = if big { (12, 10, 12) } else { (8, 7, 7) };
    let mut lines = Vec::with_capacity(7);
    let mut push = |size: u32, font: Font, s: &str| {
        let s = s.trim();
        if !s.is_empty() {
            lines.push((size, font, s.to_string()));
        }
    };
    push(name, Font::Bold, &a.name);
    push(body, Font::Regular, &a.company);
    push(body, Font::Regular, &a.address1);
    push(body, Font::Regular, &a.address2);
    push(city, Font::Bold, &city_line(a));
    push(body, Font::Regular, &a.country);
    if !a.phone.trim().is_empty() {
        push(body - 1, Font::Regular, &format!("Tel: {}", a.phone.trim()));
    }
    lines
}

/// Places address lines from `y` down, at most down to `bottom`.
fn address_block(out: &mut Vec<Element>, lines: Vec<(u32, Font, String)>, x: u32, mut y: u32, bottom: u32, max_width: u32) {
    for (size, font, s) in lines {
        if y + size > bottom {
            break;
        }
        out.push(Element::Text { x, y, size, min_size: size.saturating_sub(3).max(6), font, max_width, center: false, text: s });
        y += size + 2;
    }
}

/// The elements of one label.
pub(crate) fn label(l: &LabelData) -> Vec<Element> {
    let inner = LABEL_WIDTH - 2 * MARGIN;
    let mut out = Vec::with_capacity(48);

    // Sender block (top left) and shipment facts (top right).
    out.push(text(MARGIN, 8, 7, Font::Bold, 40, "FROM:"));
    address_block(&mut out, address_lines(&l.sender, false), MARGIN, 17, 100, 160);
    let rx = 180;
    let rw = LABEL_WIDTH - MARGIN - rx;
    out.push(Element::Text {
        x: rx,
        y: 8,
        size: 11,
        min_size: 7,
        font: Font::Bold,
        max_width: rw,
        center: false,
        text: l.carrier_label.clone(),
    });
    let facts = [
        format!("DATE: {}", iso_date(l.shipment_date)),
        format!("WGT: {}", l.weight.trim()),
        format!("PKG: {} OF {}", l.piece.0, l.piece.1),
    ];
    for (i, f) in facts.into_iter().enumerate() {
        let y = 24 + 11 * u32::try_from(i).unwrap_or(0);
        out.push(text(rx, y, 8, Font::Regular, rw, f));
    }
    out.push(Element::Rule { x: 0, y: 102, width: LABEL_WIDTH, height: 1 });

    // Receiver block.
    out.push(text(MARGIN, 108, 8, Font::Bold, 60, "SHIP TO:"));
    address_block(&mut out, address_lines(&l.receiver, true), MARGIN + 14, 120, 214, inner - 14);
    out.push(Element::Rule { x: 0, y: 216, width: LABEL_WIDTH, height: 3 });

    // Service band with the zone box on the right.
    let zone_box = 64;
    out.push(Element::Text {
        x: MARGIN,
        y: 226,
        size: 18,
        min_size: 10,
        font: Font::Bold,
        max_width: inner - zone_box - 6,
        center: false,
        text: l.service_label.clone(),
    });
    let zx = LABEL_WIDTH - MARGIN - zone_box;
    out.push(Element::Rule { x: zx, y: 222, width: zone_box, height: 1 });
    out.push(Element::Rule { x: zx, y: 262, width: zone_box, height: 1 });
    out.push(Element::Rule { x: zx, y: 222, width: 1, height: 41 });
    out.push(Element::Rule { x: zx + zone_box - 1, y: 222, width: 1, height: 41 });
    out.push(Element::Text {
        x: zx + 4,
        y: 225,
        size: 7,
        min_size: 7,
        font: Font::Bold,
        max_width: zone_box - 8,
        center: true,
        text: "ZONE".into(),
    });
    out.push(Element::Text {
        x: zx + 4,
        y: 236,
        size: 20,
        min_size: 8,
        font: Font::Bold,
        max_width: zone_box - 8,
        center: true,
        text: l.zone.clone(),
    });
    out.push(Element::Rule { x: 0, y: 268, width: LABEL_WIDTH, height: 1 });

    // Tracking barcode with the number under it.
    out.push(text(MARGIN, 274, 8, Font::Bold, inner, "TRACKING #:"));
    out.push(Element::Barcode { x: MARGIN, y: 286, height: 72, max_width: inner, data: l.tracking_number.clone() });
    out.push(Element::Text {
        x: MARGIN,
        y: 364,
        size: 12,
        min_size: 6,
        font: Font::Bold,
        max_width: inner,
        center: true,
        text: l.tracking_number.clone(),
    });
    out.push(Element::Rule { x: 0, y: 384, width: LABEL_WIDTH, height: 1 });

    // References.
    out.push(text(MARGIN, 392, 8, Font::Regular, inner, format!("REF: {}", l.reference.trim())));
    out.push(text(MARGIN, 404, 8, Font::Regular, inner, format!("BOOK #: {}", l.book_number.trim())));
    out
}
