//! The manifest PDF: US Letter pages listing every shipment, with totals and a Code 128
//! barcode of the manifest id (spec 4.10).

use std::ops::Range;

use super::layout::{city_line, iso_date};
use super::pages::TablePages;
use super::pdf::{Canvas, Document};
use super::text::Font;
use super::{DocumentError, ManifestData};

const PAGE_WIDTH: u32 = 612;
const PAGE_HEIGHT: u32 = 792;
const MARGIN: u32 = 36;
const ROW: u32 = 14;
/// Lowest point a table row may reach; the page footer sits below it.
const BOTTOM: u32 = PAGE_HEIGHT - 50;
/// Top of the table header on the first page and on the following ones.
const FIRST_TABLE_TOP: u32 = 206;
const NEXT_TABLE_TOP: u32 = 76;
/// Height of the totals and signature block after the last row.
const TOTALS_HEIGHT: u32 = 104;

/// Table columns: heading, left edge, width.
const COLUMNS: [(&str, u32, u32); 6] = [
    ("#", 36, 24),
    ("Book number", 62, 90),
    ("Tracking number", 154, 128),
    ("Service", 284, 106),
    ("Weight", 392, 50),
    ("Destination", 444, 132),
];

/// Splits `n` lines into pages: the rows on each page, and whether the totals fit on
/// the last page (if not, they get a page of their own, which is included here as an
/// empty range).
pub(super) fn paginate(n: usize) -> Vec<Range<usize>> {
    TablePages { first_top: FIRST_TABLE_TOP, next_top: NEXT_TABLE_TOP, row: ROW, bottom: BOTTOM, closing: TOTALS_HEIGHT }.paginate(n)
}

/// Renders a manifest as a PDF of US Letter pages: a header with the shipper, carrier,
/// date and a Code 128 barcode of the manifest id, a table of every shipment continued
/// over as many pages as it needs, the totals (shipment count and total weight) and
/// signature lines for the shipper and the carrier's driver.
///
/// # Errors
///
/// [`DocumentError::TooLarge`] only for manifests of hundreds of millions of lines.
pub fn render_manifest_pdf(m: &ManifestData) -> Result<Vec<u8>, DocumentError> {
    let id: String = m.manifest_id.chars().take(64).collect();
    let mut doc = Document::new(&format!("Manifest {id}"));
    let pages = paginate(m.lines.len());
    let page_count = pages.len();
    for (p, rows) in pages.iter().enumerate() {
        let mut c = Canvas::new(PAGE_WIDTH, PAGE_HEIGHT);
        let first = p == 0;
        let mut y = if first {
            header(&mut c, m);
            FIRST_TABLE_TOP
        } else {
            c.text(MARGIN, 36, 12, 12, Font::Bold, 300, false, "SHIPPING MANIFEST (continued)");
            let line = format!("{}  |  Manifest {}", m.carrier_label, m.manifest_id);
            c.text(MARGIN, 54, 9, 9, Font::Regular, PAGE_WIDTH - 2 * MARGIN, false, &line);
            NEXT_TABLE_TOP
        };
        if !rows.is_empty() || first {
            for (title, x, w) in COLUMNS {
                c.text(x, y, 8, 8, Font::Bold, w, false, title);
            }
            c.rect(MARGIN, y + 11, PAGE_WIDTH - 2 * MARGIN, 1);
            y += ROW;
        }
        if first && m.lines.is_empty() {
            c.text(MARGIN, y + 2, 9, 9, Font::Regular, 300, false, "No shipments.");
            y += ROW;
        }
        for i in rows.clone() {
            let Some(line) = m.lines.get(i) else { break };
            let number = (i + 1).to_string();
            let cells = [
                number.as_str(),
                line.book_number.as_str(),
                line.tracking_number.as_str(),
                line.service_label.as_str(),
                line.weight.as_str(),
                line.destination.as_str(),
            ];
            for ((_, x, w), cell) in COLUMNS.iter().zip(cells) {
                c.text(*x, y + 2, 8, 8, Font::Regular, w - 4, false, cell);
            }
            y += ROW;
        }
        if p + 1 == page_count {
            totals(&mut c, m, y + 8);
        }
        let footer = format!("Page {} of {}", p + 1, page_count);
        c.text(MARGIN, PAGE_HEIGHT - 36, 8, 8, Font::Regular, PAGE_WIDTH - 2 * MARGIN, true, &footer);
        doc.add_page(c)?;
    }
    doc.finish()
}

/// The first page's header: title, carrier, id, date, shipper and the id barcode.
fn header(c: &mut Canvas, m: &ManifestData) {
    let left = 300;
    c.text(MARGIN, 36, 18, 12, Font::Bold, left, false, "SHIPPING MANIFEST");
    c.text(MARGIN, 60, 12, 8, Font::Bold, left, false, &m.carrier_label);
    c.text(MARGIN, 78, 10, 7, Font::Regular, left, false, &format!("Manifest ID: {}", m.manifest_id));
    c.text(MARGIN, 92, 10, 10, Font::Regular, left, false, &format!("Created: {}", iso_date(m.created)));

    c.text(MARGIN, 112, 8, 8, Font::Bold, left, false, "SHIPPER");
    let s = &m.shipper;
    let phone = if s.phone.trim().is_empty() { String::new() } else { format!("Tel: {}", s.phone.trim()) };
    let city = city_line(s);
    let mut y = 123;
    for line in [&s.name, &s.company, &s.address1, &s.address2, &city, &s.country, &phone] {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        c.text(MARGIN, y, 9, 7, Font::Regular, left, false, line);
        y += 11;
    }

    let band_x = 340;
    let band = c.width() - MARGIN - band_x;
    c.barcode(band_x, 36, 44, band, &m.manifest_id);
    c.text(band_x, 84, 10, 6, Font::Bold, band, true, &m.manifest_id);
}

/// Totals and signature lines, from `y` down.
fn totals(c: &mut Canvas, m: &ManifestData, y: u32) {
    let width = PAGE_WIDTH - 2 * MARGIN;
    c.rect(MARGIN, y, width, 1);
    let count = format!("Total shipments: {}", m.lines.len());
    c.text(MARGIN, y + 8, 10, 10, Font::Bold, 250, false, &count);
    let weight = format!("Total weight: {}", m.total_weight.trim());
    c.text(300, y + 8, 10, 7, Font::Bold, width - 264, false, &weight);
    for (i, who) in ["Shipper signature", "Carrier signature"].into_iter().enumerate() {
        let line_y = y + 52 + 30 * u32::try_from(i).unwrap_or(0);
        c.rect(MARGIN, line_y, 250, 1);
        c.rect(300, line_y, 120, 1);
        c.text(MARGIN, line_y + 3, 7, 7, Font::Regular, 250, false, who);
        c.text(300, line_y + 3, 7, 7, Font::Regular, 120, false, "Date");
    }
}
