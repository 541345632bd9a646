//! Retrieve label: a booked shipment's labels in the format chosen at booking or another
//! its carrier prints, of one shipment or several at once, on 4x6 labels or office
//! sheets, each with the postal customs declaration where one is printed.

use rust_decimal::Decimal;

use crate::catalog::{Carrier, Catalog};
use crate::documents::{self, base64, LabelData, LabelFormat, LabelLayout};
use crate::error::{Error, ErrorCategory, FieldError, Result};
use crate::limits::MAX_LABEL_PAGES;
use crate::money::format2;
use crate::rating::{Currency, RateBook};
use crate::shipments::{customs_currency, find, is_domestic, label_address, StoredShipment};
use crate::store::{args, Read};
use crate::wire;

/// The postal customs declaration printed after each label of a shipment abroad by a
/// carrier that prints one (`customsDeclarationsAbroad`), or `None` for any other
/// shipment. The contents are the commercial invoice's items when the booking carried
/// one, else its content description valued at the pieces' declared values; the short
/// form up to 400 USD of contents (converted with `rates`), the long form above.
pub(crate) fn customs_declaration(
    catalog: &Catalog,
    view: &wire::ShipmentView,
    invoice: Option<&documents::InvoiceData>,
    rates: &RateBook,
) -> Option<documents::CustomsDeclaration> {
    if !needs_customs(catalog, view) {
        return None;
    }
    let currency_code = customs_currency(view);
    let weight: Decimal = view.pieces.iter().filter_map(|p| p.weight.parse::<Decimal>().ok()).sum();
    let total_weight = format!("{} {}", weight.normalize(), view.weight_unit);
    let (items, total) = match invoice {
        Some(inv) => (
            inv.lines
                .iter()
                .map(|l| documents::CustomsItem {
                    description: l.description.clone(),
                    quantity: l.quantity.clone(),
                    value: format!("{} {}", l.line_value, inv.currency),
                    weight: l.weight.clone(),
                    hts_number: l.hts_number.clone(),
                    origin: l.country_of_origin.clone(),
                })
                .collect(),
            inv.total_value.parse::<Decimal>().unwrap_or_default(),
        ),
        None => {
            let declared: Decimal = view.pieces.iter().filter_map(|p| p.declared_value).sum();
            let description = if view.content_description.trim().is_empty() { "Merchandise" } else { view.content_description.trim() };
            let item = documents::CustomsItem {
                description: description.to_string(),
                quantity: view.pieces.len().to_string(),
                value: format!("{} {currency_code}", format2(declared)),
                weight: total_weight.clone(),
                hts_number: String::new(),
                origin: String::new(),
            };
            (vec![item], declared)
        }
    };
    let usd = currency_code.parse::<Currency>().map_or(total, |c| rates.convert(total, c, Currency::Usd));
    let form =
        if usd <= Decimal::from(documents::SHORT_FORM_LIMIT_USD) { documents::CustomsForm::Short } else { documents::CustomsForm::Long };
    Some(documents::CustomsDeclaration {
        form,
        sender: label_address(&view.sender),
        receiver: label_address(&view.receiver),
        items,
        total_value: format!("{} {currency_code}", format2(total)),
        total_weight,
        tracking_number: view.tracking_number.clone(),
        date: crate::dates::parse_date(&view.shipment_date).unwrap_or_default(),
    })
}

/// Whether the shipment prints a postal customs declaration: its carrier prints them
/// (`customsDeclarationsAbroad`) and it goes abroad.
pub(crate) fn needs_customs(catalog: &Catalog, view: &wire::ShipmentView) -> bool {
    prints_customs(catalog.carrier(&view.carrier_code), &view.sender.country, &view.receiver.country)
}

/// Whether `carrier` prints a postal customs declaration for a shipment from `sender` to
/// `receiver` (country codes).
fn prints_customs(carrier: Option<&Carrier>, sender: &str, receiver: &str) -> bool {
    carrier.is_some_and(|c| c.customs_declarations_abroad && !is_domestic(c.us_territories_domestic, sender, receiver))
}

/// The label data of each piece of a booked shipment, each with the shipment's customs
/// declaration (for the piece's tracking number) when it has one.
pub(crate) fn label_data(
    view: &wire::ShipmentView,
    carrier_label: &str,
    service_label: &str,
    zone: &str,
    customs: Option<&documents::CustomsDeclaration>,
) -> Vec<LabelData> {
    let n = u32::try_from(view.tracking_numbers.len()).unwrap_or(u32::MAX);
    let date = crate::dates::parse_date(&view.shipment_date).unwrap_or_default();
    view.tracking_numbers
        .iter()
        .enumerate()
        .map(|(i, tn)| LabelData {
            carrier_label: carrier_label.to_string(),
            service_label: service_label.to_string(),
            tracking_number: tn.clone(),
            book_number: view.book_number.clone(),
            sender: label_address(&view.sender),
            receiver: label_address(&view.receiver),
            weight: view.pieces.get(i).map(|p| format!("{} {}", p.weight, view.weight_unit)).unwrap_or_default(),
            reference: view.shipper_reference.clone(),
            shipment_date: date,
            piece: (u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1), n),
            zone: zone.to_string(),
            customs: customs.map(|c| documents::CustomsDeclaration { tracking_number: tn.clone(), ..c.clone() }),
        })
        .collect()
}

pub(crate) fn render(format: LabelFormat, labels: &[LabelData]) -> Result<Vec<Vec<u8>>> {
    labels
        .iter()
        .map(|l| documents::render_label(format, l).map_err(|e| Error::internal(format!("could not render a label: {e}")).with_source(e)))
        .collect()
}

/// The 4x6 pages the labels of a shipment of `pieces` pieces by `carrier` from `sender`
/// to `receiver` (country codes) take: a page per piece, two where a customs
/// declaration is printed.
pub(crate) fn label_pages(catalog: &Catalog, carrier: &str, sender: &str, receiver: &str, pieces: usize) -> usize {
    let customs = prints_customs(catalog.carrier(carrier), sender, receiver);
    pieces.saturating_mul(if customs { 2 } else { 1 })
}

/// The pages of a booked shipment's labels, as [`label_pages`] counts them.
pub(crate) fn view_label_pages(catalog: &Catalog, view: &wire::ShipmentView) -> usize {
    label_pages(catalog, &view.carrier_code, &view.sender.country, &view.receiver.country, view.tracking_numbers.len())
}

/// Labels as bytes: the format and one document per entry (a PDF, or ZPL or EPL2 text).
pub(crate) struct LabelImages {
    pub format: LabelFormat,
    pub images: Vec<Vec<u8>>,
}

impl LabelImages {
    /// The answer of the label routes: each document in base64.
    pub(crate) fn into_response(self) -> wire::LabelResponse {
        wire::LabelResponse {
            label_image_format: self.format.code().to_string(),
            base64_images: self.images.iter().map(|b| base64(b)).collect(),
        }
    }
}

/// Retrieve label: the stored labels in the booked format, or rendered now in another
/// format the carrier prints; on office sheets (`layout`), one PDF. `format_code` is
/// matched in any case (`pdf`); `None` is the format chosen at booking. With
/// `one_document`, PDF labels of several pieces come as one PDF of a page per label
/// (the answer the HTTP adapter sends as `application/pdf`); without it, one PDF per
/// piece (`base64Images`).
pub(crate) fn label(
    conn: &Read<'_>,
    books: &Books,
    customer_id: &str,
    book_number: &str,
    format_code: Option<&str>,
    layout: LabelLayout,
    one_document: bool,
) -> Result<LabelImages> {
    let s = find(conn, customer_id, book_number)?;
    if s.voided {
        return Err(Error::conflict(format!("Shipment {book_number} is voided; its label must not be printed.")));
    }
    let format_code = format_code.unwrap_or(&s.label_format);
    let format = requested_format(format_code, layout)?;
    let merged = one_document && format == LabelFormat::Pdf && s.view.tracking_numbers.len() > 1;
    if merged {
        carrier_prints(books, &s, format)?;
    }
    if layout != LabelLayout::Label || merged {
        let pdf = documents::render_labels_pdf_on(&labels_of_shipment(conn, books, customer_id, &s)?, layout)
            .map_err(|e| Error::internal(format!("could not render the labels: {e}")).with_source(e))?;
        return Ok(LabelImages { format, images: vec![pdf] });
    }
    let stored: Vec<Vec<u8>> = conn.rows(
        "SELECT data FROM labels WHERE customer_id = ?3 AND book_number = ?1 AND format = ?2 ORDER BY piece_index",
        args![book_number, format.code(), customer_id],
        |r| r.get::<Vec<u8>>(0),
    )?;
    let images = if !stored.is_empty() {
        stored
    } else {
        carrier_prints(books, &s, format)?;
        render(format, &labels_of_shipment(conn, books, customer_id, &s)?)?
    };
    Ok(LabelImages { format, images })
}

/// The carrier of the shipment `s`; refuses `format` when that carrier does not print it
/// (`INVALID_REQUEST` on `labelImageFormat`).
pub(crate) fn carrier_prints<'b>(books: &'b Books, s: &StoredShipment, format: LabelFormat) -> Result<&'b crate::catalog::Carrier> {
    let carrier =
        books.catalog.carrier(&s.carrier_code).ok_or_else(|| Error::internal(format!("carrier {} left the catalog", s.carrier_code)))?;
    if !carrier.prints(format) {
        return Err(Error::invalid(
            "labelImageFormat",
            format!("{} labels are not available for carrier {}", format.code(), s.carrier_code),
        ));
    }
    Ok(carrier)
}

/// Retrieve the labels of several shipments: every label (one per piece) of each of
/// `book_numbers`, in that order; in PDF one document of a page per label, in ZPL or
/// EPL2 one entry per label. `format_code` is matched in any case.
///
/// # Errors
/// `LIMIT_EXCEEDED` past 500 book numbers (before any is looked up), or on `bookNumbers`
/// past [`MAX_LABEL_PAGES`] pages (before any is rendered); `INVALID_REQUEST` for none,
/// a book number given twice (the later one), an unknown format, or a shipment whose
/// carrier does not print it; `NOT_FOUND` for a book number that is unknown or another
/// customer's; `CONFLICT` for a voided shipment. Each names `bookNumbers[i]`.
pub(crate) fn labels_of(
    conn: &Read<'_>,
    books: &Books,
    customer_id: &str,
    book_numbers: &[String],
    format_code: &str,
    layout: LabelLayout,
) -> Result<LabelImages> {
    crate::wire::bounded::check("bookNumbers", book_numbers.len(), crate::limits::MAX_SHIPMENTS)?;
    let format = requested_format(format_code, layout)?;
    if book_numbers.is_empty() {
        return Err(Error::invalid("bookNumbers", "expected at least one book number"));
    }
    let mut first_at = std::collections::HashMap::with_capacity(book_numbers.len());
    for (i, book_number) in book_numbers.iter().enumerate() {
        if let Some(first) = first_at.get(book_number.as_str()) {
            return Err(Error::invalid(
                format!("bookNumbers[{i}]"),
                format!("shipment {book_number} is already bookNumbers[{first}]; each shipment's labels are printed once"),
            ));
        }
        first_at.insert(book_number.as_str(), i);
    }
    let mut shipments = Vec::with_capacity(book_numbers.len());
    let mut pages = 0usize;
    for (i, book_number) in book_numbers.iter().enumerate() {
        let at = format!("bookNumbers[{i}]");
        let field = |category, message: String| Error::fields(category, vec![FieldError { field: at.clone(), message }]);
        let s = find(conn, customer_id, book_number).map_err(|e| {
            if e.category() == ErrorCategory::NotFound {
                field(ErrorCategory::NotFound, format!("no shipment {book_number:?} was found"))
            } else {
                e
            }
        })?;
        if s.voided {
            return Err(field(ErrorCategory::Conflict, format!("shipment {book_number} is voided; its label must not be printed")));
        }
        let carrier = books
            .catalog
            .carrier(&s.carrier_code)
            .ok_or_else(|| Error::internal(format!("carrier {} left the catalog", s.carrier_code)))?;
        if !carrier.prints(format) {
            let message = format!("{} labels are not available for carrier {}", format.code(), s.carrier_code);
            return Err(field(ErrorCategory::InvalidRequest, message));
        }
        pages = pages.saturating_add(view_label_pages(books.catalog, &s.view));
        if pages > MAX_LABEL_PAGES {
            return Err(too_many_pages("bookNumbers", format!("the labels up to {at} take {pages} pages")));
        }
        shipments.push(s);
    }
    let mut labels = Vec::with_capacity(pages);
    for s in &shipments {
        labels.extend(labels_of_shipment(conn, books, customer_id, s)?);
    }
    let images = match format {
        LabelFormat::Pdf => vec![documents::render_labels_pdf_on(&labels, layout)
            .map_err(|e| Error::internal(format!("could not render the labels: {e}")).with_source(e))?],
        _ => render(format, &labels)?,
    };
    Ok(LabelImages { format, images })
}

/// `LIMIT_EXCEEDED` on `field`: labels of more than [`MAX_LABEL_PAGES`] pages, as `found` says.
pub(crate) fn too_many_pages(field: &str, found: String) -> Error {
    Error::fields(
        ErrorCategory::LimitExceeded,
        vec![FieldError {
            field: field.to_string(),
            message: format!("{found}, more than the {MAX_LABEL_PAGES} of one answer; ask for fewer shipments at once"),
        }],
    )
}

/// The label format a label route names (`format_code`, in any case) for `layout`.
///
/// # Errors
/// `INVALID_REQUEST` on `labelImageFormat` for an unknown format, or on `layout` for
/// sheets in ZPL or EPL2.
pub(crate) fn requested_format(format_code: &str, layout: LabelLayout) -> Result<LabelFormat> {
    let format = LabelFormat::from_code(&format_code.to_ascii_uppercase())
        .ok_or_else(|| Error::invalid("labelImageFormat", format!("expected one of PDF, EPL2, ZPL, found {format_code:?}")))?;
    sheets_are_pdf(format, layout)?;
    Ok(format)
}

/// Office sheets (`layout` letter or a4) are printed from PDF: ZPL and EPL2 go to label
/// printers, which print 4x6 labels.
fn sheets_are_pdf(format: LabelFormat, layout: LabelLayout) -> Result<()> {
    if layout != LabelLayout::Label && format != LabelFormat::Pdf {
        return Err(Error::invalid("layout", format!("sheets of labels are PDF; {} labels are 4x6 for label printers", format.code())));
    }
    Ok(())
}

/// The label data of each piece of the customer's stored shipment `s`, with its
/// carrier's and service's names and its customs declaration.
fn labels_of_shipment(conn: &Read<'_>, books: &Books, customer_id: &str, s: &StoredShipment) -> Result<Vec<LabelData>> {
    let carrier =
        books.catalog.carrier(&s.carrier_code).ok_or_else(|| Error::internal(format!("carrier {} left the catalog", s.carrier_code)))?;
    let service_label = books.catalog.service(&s.service_code).map_or(s.service_code.clone(), |sv| sv.label.clone());
    // Only a customs declaration reads the invoice: most labels need no query more.
    let customs = if needs_customs(books.catalog, &s.view) {
        let invoice = crate::invoices::stored_data(conn, customer_id, &s.view.book_number)?;
        customs_declaration(books.catalog, &s.view, invoice.as_ref(), books.rates)
    } else {
        None
    };
    Ok(label_data(&s.view, &carrier.label, &service_label, &s.zone, customs.as_ref()))
}

/// The catalog and the rate book labels are drawn with.
pub(crate) struct Books<'a> {
    pub catalog: &'a Catalog,
    pub rates: &'a RateBook,
}

/// One PDF with a page per label, in order.
fn merged_pdf(labels: &[LabelData]) -> Result<Vec<u8>> {
    documents::render_labels_pdf(labels).map_err(|e| Error::internal(format!("could not render the labels: {e}")).with_source(e))
}

/// Batch book's `labelsPdf`: one PDF of every label of the shipments `book_numbers` of
/// the customer (voided ones left out), in that order; `None` when there are none.
pub(crate) fn labels_pdf(conn: &Read<'_>, books: &Books, customer_id: &str, book_numbers: &[&str]) -> Result<Option<String>> {
    let mut labels = Vec::new();
    for book_number in book_numbers {
        let s = find(conn, customer_id, book_number)?;
        if !s.voided {
            labels.extend(labels_of_shipment(conn, books, customer_id, &s)?);
        }
    }
    if labels.is_empty() {
        return Ok(None);
    }
    Ok(Some(base64(&merged_pdf(&labels)?)))
}
