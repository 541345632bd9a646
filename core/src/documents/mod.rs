//! Shipping documents: 4x6 in labels as PDF, ZPL II or EPL2, manifest PDFs and
//! commercial invoice PDFs (DECISIONS 8, interface spec 4.5 and 4.10).
//!
//! Everything here is pure: data in, bytes out, no I/O and no clock. The label is laid
//! out once (in points on a 288 x 432 pt page) and drawn by each format, so all three
//! carry the same fields:
//!
//! - the sender (FROM) and receiver (SHIP TO) addresses,
//! - carrier, service, zone, shipment date, weight, piece `n OF m`,
//! - the tracking number as a Code 128 barcode with the number printed under it,
//! - the shipment reference and book number.
//!
//! PDFs use the standard Type 1 fonts Helvetica and Helvetica-Bold (no embedded font
//! data, text extractable). Text those fonts cannot show is transliterated or replaced
//! by `?`; text too long for its place is shrunk, then cut with `...`. A tracking number
//! that is empty or not printable ASCII is printed without a barcode rather than with a
//! barcode of something else. So any input renders; the errors are about the document
//! as a whole (no labels at all, a document too large to number its objects).

mod code128;
mod customs;
mod epl2;
mod invoice;
mod layout;
mod manifest;
mod pages;
mod pdf;
mod text;
mod zpl;

pub use customs::{CustomsDeclaration, CustomsForm, CustomsItem, SHORT_FORM_LIMIT_USD};
pub use invoice::{render_invoice_pdf, CarrierTaxId, InvoiceData, InvoiceLine, Paper};
pub use manifest::render_manifest_pdf;

use layout::{Element, LABEL_HEIGHT, LABEL_WIDTH};
use pdf::{Canvas, Document};

/// An address as printed on a label, a manifest or an invoice. Empty fields are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LabelAddress {
    /// Person's name.
    pub name: String,
    /// Company name.
    pub company: String,
    /// First street line.
    pub address1: String,
    /// Second street line.
    pub address2: String,
    /// City.
    pub city: String,
    /// State or province code.
    pub state: String,
    /// Postal code.
    pub zip: String,
    /// ISO two-letter country code.
    pub country: String,
    /// Phone number.
    pub phone: String,
}

/// Everything printed on one shipping label (one piece of a shipment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelData {
    /// Carrier name as printed, e.g. `"Parcel carrier"`.
    pub carrier_label: String,
    /// Service name as printed, e.g. `"Ground"`.
    pub service_label: String,
    /// The carrier tracking number; drawn as a Code 128 barcode and printed under it.
    pub tracking_number: String,
    /// The shipment's book number.
    pub book_number: String,
    /// Sender, printed as FROM.
    pub sender: LabelAddress,
    /// Receiver, printed as SHIP TO.
    pub receiver: LabelAddress,
    /// Weight with its unit, e.g. `"2 lb"`.
    pub weight: String,
    /// The shipment reference (invoice number, ...).
    pub reference: String,
    /// Shipment date, printed `YYYY-MM-DD`.
    pub shipment_date: chrono::NaiveDate,
    /// This piece and the piece count, printed `n OF m`.
    pub piece: (u32, u32),
    /// The zone used for the price.
    pub zone: String,
    /// The postal customs declaration printed after the label (carrier B abroad), if any.
    pub customs: Option<CustomsDeclaration>,
}

/// The output format of a label, the spec's `labelImageFormat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LabelFormat {
    /// A PDF with one 4x6 in page (288 x 432 pt).
    Pdf,
    /// ZPL II for Zebra-compatible printers at 203 dpi (812 x 1218 dots), UTF-8
    /// (`^CI28`) with every non-ASCII byte written as a `^FH` hex escape, so the output
    /// itself is plain ASCII.
    Zpl,
    /// EPL2 for Eltron/Zebra desktop printers at 203 dpi, plain ASCII (text outside ASCII
    /// is transliterated).
    Epl2,
}

impl LabelFormat {
    /// The format for a spec `labelImageFormat` value: exactly `PDF`, `ZPL` or `EPL2`.
    /// Which carriers allow which format (spec 4.5) is the booking's rule, not this one.
    pub fn from_code(code: &str) -> Option<LabelFormat> {
        match code {
            "PDF" => Some(LabelFormat::Pdf),
            "ZPL" => Some(LabelFormat::Zpl),
            "EPL2" => Some(LabelFormat::Epl2),
            _ => None,
        }
    }

    /// The spec's spelling of the format: `PDF`, `ZPL` or `EPL2`.
    pub fn code(self) -> &'static str {
        match self {
            LabelFormat::Pdf => "PDF",
            LabelFormat::Zpl => "ZPL",
            LabelFormat::Epl2 => "EPL2",
        }
    }
}

/// A shipment line of a manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestLine {
    /// The shipment's book number.
    pub book_number: String,
    /// Its carrier tracking number.
    pub tracking_number: String,
    /// Service name as printed.
    pub service_label: String,
    /// Weight with its unit, e.g. `"2 lb"`.
    pub weight: String,
    /// Destination, e.g. `"Austin, TX 78701, US"`.
    pub destination: String,
}

/// A manifest: the shipments one carrier picks up from one shipper.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestData {
    /// The manifest id; printed and drawn as a Code 128 barcode.
    pub manifest_id: String,
    /// Carrier name as printed.
    pub carrier_label: String,
    /// The day the manifest was created.
    pub created: chrono::NaiveDate,
    /// The shipper (the sender address of the manifest request).
    pub shipper: LabelAddress,
    /// One line per shipment, printed in this order.
    pub lines: Vec<ManifestLine>,
    /// Total weight with its unit, as printed in the totals.
    pub total_weight: String,
}

/// Why a document could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// A multi-label PDF was asked for with no labels.
    #[error("labels: expected at least one label, found none")]
    NoLabels,
    /// The document would need more PDF objects than a PDF can number.
    #[error("document: too many pages for one PDF")]
    TooLarge,
}

/// Renders one label in `format`: PDF bytes, or ZPL II / EPL2 printer commands as ASCII
/// bytes.
///
/// # Errors
///
/// None in practice for a single label: every input renders (see the module docs). The
/// `Result` is kept so callers handle document errors in one way.
pub fn render_label(format: LabelFormat, label: &LabelData) -> Result<Vec<u8>, DocumentError> {
    let drawings = drawings(std::slice::from_ref(label));
    match format {
        LabelFormat::Pdf => render_labels_pdf(std::slice::from_ref(label)),
        LabelFormat::Zpl => Ok(drawings.iter().map(|d| zpl::render(d)).collect::<String>().into_bytes()),
        LabelFormat::Epl2 => Ok(drawings.iter().map(|d| epl2::render(d)).collect::<String>().into_bytes()),
    }
}

/// The 4x6 drawings of `labels` in print order: each label, then its customs
/// declaration if it has one.
fn drawings(labels: &[LabelData]) -> Vec<Vec<Element>> {
    let mut out = Vec::with_capacity(labels.len());
    for label in labels {
        out.push(layout::label(label));
        if let Some(declaration) = &label.customs {
            out.push(customs::layout(declaration));
        }
    }
    out
}

/// Renders several labels into one PDF, one 4x6 in page per label in the given order
/// (typically one per piece of a shipment).
///
/// # Errors
///
/// [`DocumentError::NoLabels`] when `labels` is empty; [`DocumentError::TooLarge`] past
/// about a billion pages.
pub fn render_labels_pdf(labels: &[LabelData]) -> Result<Vec<u8>, DocumentError> {
    let first = labels.first().ok_or(DocumentError::NoLabels)?;
    let number: String = first.tracking_number.chars().take(64).collect();
    let mut doc = Document::new(&format!("Shipping label {number}"));
    for drawing in drawings(labels) {
        let mut canvas = Canvas::new(LABEL_WIDTH, LABEL_HEIGHT);
        draw(&mut canvas, &drawing);
        doc.add_page(canvas)?;
    }
    doc.finish()
}

/// How PDF labels are put on paper: one 4x6 in label per page (for label printers), or
/// two side by side on an office sheet with cut marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LabelLayout {
    /// A 4x6 in page per label (288 x 432 pt).
    #[default]
    Label,
    /// Two labels per US Letter sheet.
    Letter,
    /// Two labels per A4 sheet.
    A4,
}

impl LabelLayout {
    /// The layout of a `layout` query value: `4x6`, `letter` or `a4`, in any case.
    pub fn from_code(code: &str) -> Option<LabelLayout> {
        match code.trim().to_ascii_lowercase().as_str() {
            "4x6" => Some(LabelLayout::Label),
            "letter" => Some(LabelLayout::Letter),
            "a4" => Some(LabelLayout::A4),
            _ => None,
        }
    }
}

/// Length of a cut mark, and its gap to the label's corner, in points.
const CUT_MARK: u32 = 12;
const CUT_GAP: u32 = 4;

/// Renders labels as [`render_labels_pdf`] does on `layout`'s paper: on a sheet, two
/// labels side by side (the first on the left), centred, with cut marks at the corners
/// of each label, outside it; the last sheet of an odd count holds one.
///
/// # Errors
/// As [`render_labels_pdf`].
pub fn render_labels_pdf_on(labels: &[LabelData], layout: LabelLayout) -> Result<Vec<u8>, DocumentError> {
    let paper = match layout {
        LabelLayout::Label => return render_labels_pdf(labels),
        LabelLayout::Letter => invoice::Paper::Letter,
        LabelLayout::A4 => invoice::Paper::A4,
    };
    let first = labels.first().ok_or(DocumentError::NoLabels)?;
    let number: String = first.tracking_number.chars().take(64).collect();
    let mut doc = Document::new(&format!("Shipping labels {number}"));
    let (width, height) = paper.size();
    let gap = 2 * CUT_GAP;
    let left = (width - 2 * LABEL_WIDTH - gap) / 2;
    let top = (height - LABEL_HEIGHT) / 2;
    for sheet in drawings(labels).chunks(2) {
        let mut canvas = Canvas::new(width, height);
        for (i, drawing) in (0u32..).zip(sheet) {
            let x = left + i * (LABEL_WIDTH + gap);
            // Level marks go in the sheet's margins: left of the first label, right of the last.
            let outer = (i == 0, i == 1 || sheet.len() == 1);
            cut_marks(&mut canvas, x, top, left, outer);
            canvas.set_origin(x, top);
            draw(&mut canvas, drawing);
            canvas.set_origin(0, 0);
        }
        doc.add_page(canvas)?;
    }
    doc.finish()
}

/// Cut marks at the four corners of the label at (`x`, `y`), outside it: upright ones
/// above and below each corner (where its sides are cut), and level ones at its top and
/// bottom (where those are cut) in the sheet's `margin`, on the sides `outer` says
/// (left, right) face it.
fn cut_marks(c: &mut Canvas, x: u32, y: u32, margin: u32, outer: (bool, bool)) {
    let bottom = y + LABEL_HEIGHT;
    for corner_x in [x, x + LABEL_WIDTH] {
        c.rect(corner_x, y - CUT_GAP - CUT_MARK, 1, CUT_MARK);
        c.rect(corner_x, bottom + CUT_GAP, 1, CUT_MARK);
    }
    // A4 leaves a margin of a few points: the level marks shrink to fit it.
    let level = CUT_MARK.min(margin.saturating_sub(2));
    if level == 0 {
        return;
    }
    for (facing, mark_x) in [(outer.0, x.saturating_sub(1 + level)), (outer.1, x + LABEL_WIDTH + 1)] {
        if facing {
            c.rect(mark_x, y, level, 1);
            c.rect(mark_x, bottom, level, 1);
        }
    }
}

/// Draws laid-out elements on a PDF page.
fn draw(canvas: &mut Canvas, elements: &[Element]) {
    for e in elements {
        match e {
            Element::Text { x, y, size, min_size, font, max_width, center, text } => {
                canvas.text(*x, *y, *size, *min_size, *font, *max_width, *center, text);
            }
            Element::Rule { x, y, width, height } => canvas.rect(*x, *y, *width, *height),
            Element::Barcode { x, y, height, max_width, data } => {
                canvas.barcode(*x, *y, *height, *max_width, data);
            }
        }
    }
}

/// Standard base64 (RFC 4648, with padding), as the interface sends label and
/// manifest bytes in JSON.
pub(crate) fn base64(bytes: &[u8]) -> String {
    use ::base64::Engine as _;
    ::base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests;
