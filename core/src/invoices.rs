//! Commercial invoices (4.5 `commercialInvoice`): what a booking's invoice prints, kept
//! with the booking, rendered at booking (or on retrieval with lazy labels, as labels
//! are), and retrieved as `{"type": "application/pdf", "data": "<base64>"}`.

use rust_decimal::Decimal;

use crate::documents::{self, CarrierTaxId, InvoiceData, InvoiceLine, Paper};
use crate::error::{Error, Result};
use crate::money::{format2, round_cents};
use crate::store::{args, Read, Tx};
use crate::wire;

/// What the invoice of a booking prints: the booked shipment (`view`), the invoice the
/// booking carries, the carrier's and service's names, and the pieces' total weight in
/// the booking's weight unit `unit`. Amounts are in the customs currency (the
/// shipment's currency when none is given).
pub(crate) fn invoice_data(
    view: &wire::ShipmentView,
    invoice: &wire::CommercialInvoice,
    carrier_label: &str,
    service_label: &str,
    total_weight: Decimal,
    unit: &str,
) -> InvoiceData {
    let text = |v: &Option<String>| v.as_deref().unwrap_or_default().trim().to_string();
    let given = |v: &Option<Option<String>>| v.clone().flatten().unwrap_or_default().trim().to_string();
    let mut total = Decimal::ZERO;
    let lines: Vec<InvoiceLine> = invoice
        .items
        .iter()
        .flatten()
        .map(|item| {
            let quantity = item.quantity.map_or(0, |q| q.0);
            let unit_value = item.unit_value.map_or(Decimal::ZERO, |v| v.0);
            let value = line_value(quantity, unit_value);
            total = total.saturating_add(value);
            InvoiceLine {
                description: text(&item.description),
                hts_number: text(&item.hts_number),
                country_of_origin: text(&item.country_of_origin),
                quantity: quantity.to_string(),
                unit_value: unit_amount(unit_value),
                line_value: format2(value),
                weight: item.weight.map(|w| format!("{} {unit}", w.0.normalize())).unwrap_or_default(),
            }
        })
        .collect();
    InvoiceData {
        paper: Paper::for_country(&view.sender.country),
        date: crate::dates::parse_date(&view.shipment_date).unwrap_or_default(),
        book_number: view.book_number.clone(),
        tracking_numbers: view.tracking_numbers.clone(),
        carrier_label: carrier_label.to_string(),
        service_label: service_label.to_string(),
        exporter: crate::shipments::label_address(&view.sender),
        exporter_tax_id: text(&invoice.sender_vat_tax_id),
        exporter_tax_id_type: invoice.sender_tax_id_number_type.as_deref().unwrap_or("ein").to_ascii_uppercase(),
        importer: crate::shipments::label_address(&view.receiver),
        importer_tax_id: text(&invoice.receiver_tax_id),
        carrier_tax_ids: invoice
            .dhl_tax_ids
            .iter()
            .flatten()
            .map(|t| CarrierTaxId { kind: text(&t.kind), number: text(&t.number), issuer_country: text(&t.issuer_country) })
            .collect(),
        terms_of_trade: text(&invoice.terms_of_trade),
        ftr_number: given(&invoice.ftr_number),
        itn_number: given(&invoice.itn_number),
        package_marks: text(&invoice.package_marks),
        packages: u32::try_from(view.tracking_numbers.len()).unwrap_or(u32::MAX),
        total_weight: format!("{} {unit}", total_weight.normalize()),
        lines,
        total_value: format2(total),
        currency: crate::shipments::customs_currency(view),
    }
}

/// A unit value as given, with at least two decimals: a unit value of fractions of a
/// cent is printed whole, so that quantity times it makes the line value.
fn unit_amount(value: Decimal) -> String {
    let value = value.normalize();
    if value.scale() <= 2 {
        format2(value)
    } else {
        value.to_string()
    }
}

/// Quantity times unit value, to the cent (saturating: booking has checked both).
fn line_value(quantity: i64, unit_value: Decimal) -> Decimal {
    round_cents(unit_value.saturating_mul(Decimal::from(quantity)))
}

/// Keeps the invoice of the shipment `book_number`, rendered now when `render_now`.
pub(crate) fn record(tx: &Tx<'_>, customer_id: &str, data: &InvoiceData, send_electronically: bool, render_now: bool) -> Result<()> {
    let pdf = render_now.then(|| render(data)).transpose()?;
    tx.execute(
        "INSERT INTO commercial_invoices (customer_id, book_number, send_electronically, data, pdf) VALUES (?1, ?2, ?3, ?4, ?5)",
        args![customer_id, data.book_number, send_electronically, wire::to_json(data)?, pdf],
    )?;
    Ok(())
}

fn render(data: &InvoiceData) -> Result<Vec<u8>> {
    documents::render_invoice_pdf(data).map_err(|e| Error::internal(format!("could not render the commercial invoice: {e}")).with_source(e))
}

/// What the invoice of the customer's shipment `book_number` prints, if it has one.
pub(crate) fn stored_data(conn: &Read<'_>, customer_id: &str, book_number: &str) -> Result<Option<InvoiceData>> {
    let data: Option<String> = conn.row(
        "SELECT data FROM commercial_invoices WHERE customer_id = ?1 AND book_number = ?2",
        args![customer_id, book_number],
        |r| r.get(0),
    )?;
    data.map(|d| parse(book_number, &d)).transpose()
}

/// The stored JSON of an invoice, read back.
fn parse(book_number: &str, data: &str) -> Result<InvoiceData> {
    serde_json::from_str(data)
        .map_err(|e| Error::internal(format!("the commercial invoice of {book_number} is unreadable: {e}")).with_source(e))
}

/// Retrieve commercial invoice: the PDF of the shipment's invoice, as kept or rendered now.
///
/// # Errors
/// `NOT_FOUND` for an unknown shipment, another customer's, or one booked without an
/// invoice; `CONFLICT` for a voided shipment, whose documents must not be printed (as
/// its labels).
pub(crate) fn document(conn: &Read<'_>, customer_id: &str, book_number: &str) -> Result<wire::InvoiceResponse> {
    Ok(wire::InvoiceResponse { kind: "application/pdf".into(), data: crate::documents::base64(&pdf(conn, customer_id, book_number)?) })
}

/// The commercial invoice's PDF, as [`document`] answers it in base64.
///
/// # Errors
/// As [`document`].
pub(crate) fn pdf(conn: &Read<'_>, customer_id: &str, book_number: &str) -> Result<Vec<u8>> {
    if crate::shipments::find(conn, customer_id, book_number)?.voided {
        return Err(Error::conflict(format!("Shipment {book_number} is voided; its commercial invoice must not be printed.")));
    }
    let row: Option<(String, Option<Vec<u8>>)> = conn.row(
        "SELECT data, pdf FROM commercial_invoices WHERE customer_id = ?1 AND book_number = ?2",
        args![customer_id, book_number],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let Some((data, pdf)) = row else {
        return Err(Error::new(crate::ErrorCategory::NotFound, format!("Shipment {book_number} was booked without a commercial invoice.")));
    };
    match pdf {
        Some(pdf) => Ok(pdf),
        None => render(&parse(book_number, &data)?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(sender_country: &str, customs_currency: Option<&str>) -> wire::ShipmentView {
        let address = |country: &str| {
            serde_json::json!({"name": "n", "company": "", "address1": "a", "address2": "", "city": "c", "state": "", "zip": "1",
                "country": country, "phone": "", "email": ""})
        };
        serde_json::from_value(serde_json::json!({
            "bookNumber": "1000000001", "trackingNumber": "T1", "trackingNumbers": ["T1", "T2"], "voided": false,
            "carrierCode": "c", "serviceCode": "s", "packageTypeCode": "p", "shipmentDate": "2026-11-25",
            "shipperReference": "", "shipmentReference": "", "shipperReference2": "", "contentDescription": "",
            "sender": address(sender_country), "receiver": address("GB"), "residential": false, "signatureOptionCode": null,
            "weightUnit": "kg", "dimUnit": "cm", "currency": "USD", "customsCurrency": customs_currency,
            "pieces": [], "fulfillment": null, "totalShippingCost": 1, "orderId": null, "orderNumber": "", "commercialInvoice": null
        }))
        .unwrap()
    }

    fn invoice(items: serde_json::Value) -> wire::CommercialInvoice {
        serde_json::from_value(serde_json::json!({"ftrNumber": null, "itnNumber": null, "aesNumber": null, "termsOfTrade": "DDP",
            "receiverTaxId": "R", "senderVatTaxId": "S", "packageMarks": "M", "items": items}))
        .unwrap()
    }

    #[test]
    fn line_values_are_quantity_times_unit_value_to_the_cent_and_summed() {
        let items = serde_json::json!([
            {"description": "a", "quantity": 3, "unitValue": "0.335", "htsNumber": "1", "countryOfOrigin": "US"},
            {"description": "b", "quantity": "2", "unitValue": "19.99", "weight": "0.50", "htsNumber": "2", "countryOfOrigin": "CN"}
        ]);
        let data = invoice_data(&view("US", None), &invoice(items), "Carrier", "Service", Decimal::new(25, 1), "kg");
        let values: Vec<(&str, &str, &str)> =
            data.lines.iter().map(|l| (l.unit_value.as_str(), l.line_value.as_str(), l.weight.as_str())).collect();
        assert_eq!(values, [("0.335", "1.01", ""), ("19.99", "39.98", "0.5 kg")]);
        assert_eq!((data.total_value.as_str(), data.currency.as_str()), ("40.99", "USD"));
        assert_eq!((data.packages, data.total_weight.as_str(), data.exporter_tax_id_type.as_str()), (2, "2.5 kg", "EIN"));
        assert_eq!(data.paper, Paper::Letter);
    }

    #[test]
    fn the_paper_follows_the_sender_and_the_currency_the_customs_currency() {
        let data = invoice_data(&view("DE", Some("EUR")), &invoice(serde_json::json!([])), "C", "S", Decimal::ONE, "kg");
        assert_eq!((data.paper, data.currency.as_str(), data.total_value.as_str()), (Paper::A4, "EUR", "0.00"));
    }
}
