//! The commercial invoice PDF (spec 4.5 `commercialInvoice`): US Letter pages, A4 when
//! the exporter is outside the US and Canada. The first page carries the parties and the
//! shipment; the items table runs over as many pages as it needs; the last page ends
//! with the total, the declaration and a signature line.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::layout::{city_line, iso_date};
use super::pages::TablePages;
use super::pdf::{Canvas, Document};
use super::text::Font;
use super::{DocumentError, LabelAddress};

/// The paper of a document of office pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Paper {
    /// US Letter, 8.5 x 11 in (612 x 792 pt).
    Letter,
    /// ISO A4, 210 x 297 mm (595 x 842 pt).
    A4,
}

impl Paper {
    /// The paper a shipper in `country` (ISO two-letter code) prints on: Letter in the
    /// US (with its territories, which have their own codes) and Canada, A4 elsewhere.
    pub fn for_country(country: &str) -> Paper {
        const LETTER: [&str; 7] = ["US", "CA", "PR", "VI", "GU", "AS", "MP"];
        if LETTER.iter().any(|c| c.eq_ignore_ascii_case(country.trim())) {
            Paper::Letter
        } else {
            Paper::A4
        }
    }

    /// Width and height in points.
    pub fn size(self) -> (u32, u32) {
        match self {
            Paper::Letter => (612, 792),
            Paper::A4 => (595, 842),
        }
    }
}

/// A line of the invoice's items table; amounts and weights as printed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvoiceLine {
    /// What the goods are.
    pub description: String,
    /// Harmonized Tariff Schedule number.
    pub hts_number: String,
    /// Country of origin, ISO two-letter code.
    pub country_of_origin: String,
    /// Quantity.
    pub quantity: String,
    /// Value of one unit, in the invoice's currency.
    pub unit_value: String,
    /// Quantity times unit value.
    pub line_value: String,
    /// Weight of the line with its unit, or empty.
    pub weight: String,
}

/// A tax id of the carrier's own list (`dhlTaxIds`), as printed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarrierTaxId {
    /// Its type: EOR, VAT, FTZ, CNP, EIN or FED.
    pub kind: String,
    /// The number.
    pub number: String,
    /// The issuing country, or empty.
    pub issuer_country: String,
}

/// Everything printed on a commercial invoice (stored with the booking as JSON, so that
/// it renders the same later).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvoiceData {
    /// The paper: [`Paper::for_country`] of the exporter.
    pub paper: Paper,
    /// Date of the invoice: the shipment date.
    pub date: chrono::NaiveDate,
    /// The shipment's book number.
    pub book_number: String,
    /// The carrier tracking numbers, one per package.
    pub tracking_numbers: Vec<String>,
    /// Carrier name as printed.
    pub carrier_label: String,
    /// Service name as printed.
    pub service_label: String,
    /// The sender.
    pub exporter: LabelAddress,
    /// The exporter's tax id (`senderVatTaxId`).
    pub exporter_tax_id: String,
    /// Its type (`senderTaxIdNumberType`): EIN, DNS or FGN.
    pub exporter_tax_id_type: String,
    /// The receiver.
    pub importer: LabelAddress,
    /// The importer's tax id (`receiverTaxId`).
    pub importer_tax_id: String,
    /// The carrier's tax ids, where given.
    pub carrier_tax_ids: Vec<CarrierTaxId>,
    /// Incoterm: CIP, CPT, DAP, DAT, DDP, EXW or FCA.
    pub terms_of_trade: String,
    /// FTR exemption, or empty.
    pub ftr_number: String,
    /// ITN, or empty.
    pub itn_number: String,
    /// Package marks.
    pub package_marks: String,
    /// Number of packages.
    pub packages: u32,
    /// Total weight with its unit.
    pub total_weight: String,
    /// The items.
    pub lines: Vec<InvoiceLine>,
    /// Sum of the line values.
    pub total_value: String,
    /// Currency of every value (the customs currency).
    pub currency: String,
}

/// The exporter's declaration printed above the signature line.
pub const DECLARATION: &str =
    "I declare that all the information contained in this invoice is true and correct, and that the goods are of the origin stated.";

const MARGIN: u32 = 36;
const ROW: u32 = 14;
/// Top of the items table on the first page and on the following ones.
const FIRST_TABLE_TOP: u32 = 330;
const NEXT_TABLE_TOP: u32 = 76;
/// Height of the total, declaration and signature block after the last row.
const CLOSING_HEIGHT: u32 = 120;

/// Table columns on Letter (A4 is 17 pt narrower: the description gives them up):
/// heading, left edge, width.
const COLUMNS: [(&str, u32, u32); 7] = [
    ("Description", 36, 172),
    ("HTS number", 210, 70),
    ("Origin", 282, 34),
    ("Qty", 318, 34),
    ("Unit value", 354, 72),
    ("Line value", 428, 76),
    ("Weight", 506, 70),
];

/// The columns on a page `width` points wide.
fn columns(width: u32) -> [(&'static str, u32, u32); 7] {
    let narrower = 612u32.saturating_sub(width);
    COLUMNS.map(|(title, x, w)| if x == 36 { (title, x, w - narrower) } else { (title, x - narrower, w) })
}

/// Splits `n` lines into pages for paper `height` points tall (see [`TablePages`]).
fn paginate(n: usize, height: u32) -> Vec<Range<usize>> {
    TablePages { first_top: FIRST_TABLE_TOP, next_top: NEXT_TABLE_TOP, row: ROW, bottom: height - 50, closing: CLOSING_HEIGHT }.paginate(n)
}

/// Renders a commercial invoice: the parties with their tax ids, the shipment (date,
/// book and tracking numbers, carrier and service, terms of trade, FTR or ITN, package
/// marks, packages and total weight), the items table over as many pages as it needs,
/// the total value in the invoice's currency, the declaration and a signature line.
///
/// # Errors
///
/// [`DocumentError::TooLarge`] only for invoices of hundreds of millions of lines.
pub fn render_invoice_pdf(inv: &InvoiceData) -> Result<Vec<u8>, DocumentError> {
    let book: String = inv.book_number.chars().take(64).collect();
    let mut doc = Document::new(&format!("Commercial invoice {book}"));
    let (width, height) = inv.paper.size();
    let columns = columns(width);
    let pages = paginate(inv.lines.len(), height);
    let page_count = pages.len();
    for (p, rows) in pages.iter().enumerate() {
        let mut c = Canvas::new(width, height);
        let first = p == 0;
        let mut y = if first {
            header(&mut c, inv);
            FIRST_TABLE_TOP
        } else {
            c.text(MARGIN, 36, 12, 12, Font::Bold, 300, false, "COMMERCIAL INVOICE (continued)");
            c.text(MARGIN, 54, 9, 9, Font::Regular, width - 2 * MARGIN, false, &format!("Book number {}", inv.book_number));
            NEXT_TABLE_TOP
        };
        if !rows.is_empty() || first {
            for (title, x, w) in columns {
                c.text(x, y, 8, 8, Font::Bold, w, false, title);
            }
            c.rect(MARGIN, y + 11, width - 2 * MARGIN, 1);
            y += ROW;
        }
        for i in rows.clone() {
            let Some(line) = inv.lines.get(i) else { break };
            let cells = [
                &line.description,
                &line.hts_number,
                &line.country_of_origin,
                &line.quantity,
                &line.unit_value,
                &line.line_value,
                &line.weight,
            ];
            for ((_, x, w), cell) in columns.iter().zip(cells) {
                c.text(*x, y + 2, 8, 6, Font::Regular, w - 4, false, cell);
            }
            y += ROW;
        }
        if p + 1 == page_count {
            closing(&mut c, inv, y + 8);
        }
        let footer = format!("Page {} of {}", p + 1, page_count);
        c.text(MARGIN, height - 36, 8, 8, Font::Regular, width - 2 * MARGIN, true, &footer);
        doc.add_page(c)?;
    }
    doc.finish()
}

/// The first page above the table: title, shipment, parties and shipment details.
fn header(c: &mut Canvas, inv: &InvoiceData) {
    let width = c.width();
    let half = (width - 2 * MARGIN) / 2;
    let right = MARGIN + half + 8;
    c.text(MARGIN, 36, 18, 12, Font::Bold, half, false, "COMMERCIAL INVOICE");
    c.text(MARGIN, 60, 10, 10, Font::Regular, half, false, &format!("Date: {}", iso_date(inv.date)));
    c.text(MARGIN, 74, 10, 7, Font::Regular, half, false, &format!("Book number: {}", inv.book_number));
    c.text(MARGIN, 88, 10, 6, Font::Regular, half, false, &format!("Tracking: {}", inv.tracking_numbers.join(", ")));
    c.text(right, 36, 10, 7, Font::Bold, half - 8, false, &inv.carrier_label);
    c.text(right, 50, 10, 7, Font::Regular, half - 8, false, &inv.service_label);

    let exporter_id = if inv.exporter_tax_id.trim().is_empty() {
        String::new()
    } else {
        format!("Tax id ({}): {}", inv.exporter_tax_id_type, inv.exporter_tax_id.trim())
    };
    let importer_id = if inv.importer_tax_id.trim().is_empty() { String::new() } else { format!("Tax id: {}", inv.importer_tax_id.trim()) };
    party(c, MARGIN, 112, half - 8, "EXPORTER", &inv.exporter, &exporter_id);
    party(c, right, 112, half - 8, "IMPORTER", &inv.importer, &importer_id);

    let mut y = 232;
    c.rect(MARGIN, y - 6, width - 2 * MARGIN, 1);
    let export_id = match (inv.ftr_number.trim(), inv.itn_number.trim()) {
        ("", "") => String::new(),
        (ftr, "") => format!("FTR: {ftr}"),
        (_, itn) => format!("ITN: {itn}"),
    };
    let details = [
        format!("Terms of trade: {}", inv.terms_of_trade),
        export_id,
        format!("Packages: {}", inv.packages),
        format!("Total weight: {}", inv.total_weight.trim()),
    ];
    let quarter = (width - 2 * MARGIN) / 4;
    for (i, detail) in (0u32..).zip(&details) {
        c.text(MARGIN + i * quarter, y, 9, 6, Font::Regular, quarter - 6, false, detail);
    }
    y += 14;
    c.text(MARGIN, y, 9, 6, Font::Regular, width - 2 * MARGIN, false, &format!("Package marks: {}", inv.package_marks.trim()));
    y += 14;
    if !inv.carrier_tax_ids.is_empty() {
        let ids: Vec<String> = inv
            .carrier_tax_ids
            .iter()
            .map(|t| {
                if t.issuer_country.trim().is_empty() {
                    format!("{} {}", t.kind, t.number)
                } else {
                    format!("{} {} ({})", t.kind, t.number, t.issuer_country)
                }
            })
            .collect();
        c.text(MARGIN, y, 9, 6, Font::Regular, width - 2 * MARGIN, false, &format!("Carrier tax ids: {}", ids.join(", ")));
    }
}

/// A party's block: its title, address lines, phone and tax id line.
fn party(c: &mut Canvas, x: u32, y: u32, width: u32, title: &str, a: &LabelAddress, tax_id: &str) {
    c.text(x, y, 8, 8, Font::Bold, width, false, title);
    let phone = if a.phone.trim().is_empty() { String::new() } else { format!("Tel: {}", a.phone.trim()) };
    let city = city_line(a);
    let mut y = y + 11;
    for line in [&a.name, &a.company, &a.address1, &a.address2, &city, &a.country, &phone, &tax_id.to_string()] {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        c.text(x, y, 9, 6, Font::Regular, width, false, line);
        y += 11;
    }
}

/// The total, the declaration and the signature line, from `y` down.
fn closing(c: &mut Canvas, inv: &InvoiceData, y: u32) {
    let width = c.width() - 2 * MARGIN;
    c.rect(MARGIN, y, width, 1);
    let total = format!("Total value: {} {}", inv.total_value, inv.currency);
    c.text(MARGIN, y + 8, 11, 7, Font::Bold, width, false, &total);
    c.text(MARGIN, y + 32, 8, 5, Font::Regular, width, false, DECLARATION);
    let line_y = y + 84;
    c.rect(MARGIN, line_y, 250, 1);
    c.rect(320, line_y, 120, 1);
    c.text(MARGIN, line_y + 3, 7, 7, Font::Regular, 250, false, "Signature of the exporter, name and title");
    c.text(320, line_y + 3, 7, 7, Font::Regular, 120, false, "Date");
}
