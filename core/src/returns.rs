//! Scan-based return labels (4.5 `scanBasedReturnLabel`, carrier B): a second label of
//! a booking, from its receiver back to `returnTo` (the sender when absent), that costs
//! nothing until it is used. Its price, the same service on the reversed route, is fixed
//! at booking ([`Price`]); the first carrier-feed event for its tracking number charges
//! it to the prepay ledger, once, as a debt when the balance cannot pay it. Voiding the
//! shipment (allowed until the carrier reports more than `Info Received` for either
//! label) voids the return label with it, refunding its charge if it had one: it no
//! longer prints, and a scan of it is refused.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use crate::documents::{self, LabelData, LabelLayout};
use crate::error::{Error, ErrorCategory, FieldError, Result};
use crate::events;
use crate::labels::{self, Books};
use crate::money::{format2, from_cents};
use crate::store::{args, Read, Tx};
use crate::{customers, ledger, prepay, shipments, wire};

/// What a return costs, fixed at booking.
pub(crate) struct Price {
    /// The zone of the reversed route.
    pub zone: String,
    /// In the shipment's currency.
    pub total: Decimal,
    /// In USD cents, as the ledger charges it.
    pub cost_cents: i64,
}

/// A shipment's return label as stored.
pub(crate) struct ReturnLabel {
    pub tracking_number: String,
    pub return_to: wire::ViewAddress,
    pub zone: String,
    pub cost_cents: i64,
    /// When its first scan charged it; `None` while unused.
    pub used_at: Option<String>,
}

/// Stores the return label `tracking_number` of the customer's new shipment
/// `book_number`, going back to `return_to` at `price`.
pub(crate) fn record(
    tx: &Tx<'_>,
    customer_id: &str,
    book_number: &str,
    tracking_number: &str,
    return_to: &wire::ViewAddress,
    price: &Price,
) -> Result<()> {
    tx.execute(
        "INSERT INTO return_labels (customer_id, book_number, tracking_number, return_to, zone, total_amount, cost_cents)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        args![customer_id, book_number, tracking_number, wire::to_json(return_to)?, price.zone, price.total.to_string(), price.cost_cents],
    )?;
    tx.execute(
        "INSERT INTO return_tracking_numbers (tracking_number, customer_id, book_number) VALUES (?1, ?2, ?3)",
        args![tracking_number, customer_id, book_number],
    )?;
    Ok(())
}

/// The return label of the customer's shipment `book_number`, if it has one.
pub(crate) fn find(conn: &Read<'_>, customer_id: &str, book_number: &str) -> Result<Option<ReturnLabel>> {
    let row: Option<(String, String, String, i64, Option<String>)> = conn.row(
        "SELECT tracking_number, return_to, zone, cost_cents, used_at FROM return_labels WHERE customer_id = ?1 AND book_number = ?2",
        args![customer_id, book_number],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    )?;
    row.map(|(tracking_number, return_to, zone, cost_cents, used_at)| {
        let return_to = serde_json::from_str(&return_to).map_err(|e| {
            Error::internal(format!("the stored return address of shipment {book_number} is unreadable: {e}")).with_source(e)
        })?;
        Ok(ReturnLabel { tracking_number, return_to, zone, cost_cents, used_at })
    })
    .transpose()
}

/// The shipment a return label belongs to, as the carrier-keyed feed finds it.
pub(crate) struct Owner {
    pub customer_id: String,
    pub book_number: String,
    /// The shipment is voided, and the return label with it.
    pub voided: bool,
}

/// The shipment whose return label is `tracking_number`: the lookup table names the
/// customer, and the customer's rows say the rest.
pub(crate) fn owner(conn: &Read<'_>, tracking_number: &str) -> Result<Option<Owner>> {
    let Some((customer_id, book_number)) =
        conn.row("SELECT customer_id, book_number FROM return_tracking_numbers WHERE tracking_number = ?1", args![tracking_number], |r| {
            Ok((r.get::<String>(0)?, r.get::<String>(1)?))
        })?
    else {
        return Ok(None);
    };
    let voided: Option<bool> = conn.row(
        "SELECT s.voided FROM return_labels r
             JOIN shipments s ON s.customer_id = r.customer_id AND s.book_number = r.book_number
             WHERE r.customer_id = ?1 AND r.book_number = ?2",
        args![customer_id, book_number],
        |r| r.get(0),
    )?;
    Ok(voided.map(|voided| Owner { customer_id, book_number, voided }))
}

/// Refuses the scan (`CONFLICT` on `field`) of the return label of shipment
/// `book_number` when it is `voided`: the void voided the label too.
pub(crate) fn refuse_if_voided(voided: bool, book_number: &str, field: &str) -> Result<()> {
    if voided {
        let message = format!("the return label of shipment {book_number} was voided with it and cannot be used");
        return Err(Error::fields(ErrorCategory::Conflict, vec![FieldError { field: field.into(), message }]));
    }
    Ok(())
}

/// Charges the return label of the customer's shipment `book_number` on its first scan:
/// a ledger charge naming it, recharging the prepay balance first when it falls short
/// and a payment method is on file (pay on use is the customer's standing consent), and
/// taken as a debt when it cannot be recharged: the carrier carried it, so the scan is
/// never refused for money. A label already used is not charged again. Its
/// `return_label.used` event follows the charge's.
pub(crate) fn charge_first_use(tx: &Tx<'_>, customer_id: &str, book_number: &str, now: DateTime<Utc>) -> Result<()> {
    let Some(label) = find(tx, customer_id, book_number)?.filter(|l| l.used_at.is_none()) else {
        return Ok(());
    };
    let customer = customers::find(tx, customer_id)?;
    let balance = prepay::charge_carried(tx, &customer, label.cost_cents, &reference(&label, book_number), now)?;
    let used_at = crate::dates::timestamp(now);
    tx.execute(
        "UPDATE return_labels SET used_at = ?3 WHERE customer_id = ?1 AND book_number = ?2",
        args![customer_id, book_number, used_at],
    )?;
    let used = wire::ReturnLabelUse {
        book_number: book_number.to_string(),
        return_tracking_number: label.tracking_number,
        charge: format2(from_cents(label.cost_cents)),
        balance_after: format2(from_cents(balance)),
        used_at,
    };
    events::append(tx, customer_id, events::Type::ReturnLabelUsed, book_number, now, &used)
}

/// How the ledger names the return label of shipment `book_number`.
fn reference(label: &ReturnLabel, book_number: &str) -> String {
    format!("return label {} of shipment {book_number}", label.tracking_number)
}

/// Refunds the return label of the customer's shipment `book_number`, being voided, if
/// its first scan (an `Info Received`: any later one stops the void) charged it. Returns
/// the balance after, or `None` when nothing was charged.
pub(crate) fn refund_on_void(tx: &Tx<'_>, customer_id: &str, book_number: &str, now: DateTime<Utc>) -> Result<Option<i64>> {
    match find(tx, customer_id, book_number)? {
        Some(label) if label.used_at.is_some() => {
            let reference = format!("{} voided", reference(&label, book_number));
            Ok(Some(ledger::append(tx, customer_id, ledger::EntryKind::Refund, label.cost_cents, &reference, now)?))
        }
        _ => Ok(None),
    }
}

/// Retrieve return label: the return label of the customer's shipment `book_number` in
/// `format_code` (any case; `None` is the format chosen at booking), on `layout`'s paper.
///
/// # Errors
/// `NOT_FOUND` for an unknown shipment or one without a return label; `CONFLICT` for a
/// voided one; `INVALID_REQUEST` for a format the carrier does not print, or sheets in
/// ZPL or EPL2.
pub(crate) fn label(
    conn: &Read<'_>,
    books: &Books,
    customer_id: &str,
    book_number: &str,
    format_code: Option<&str>,
    layout: LabelLayout,
) -> Result<wire::LabelResponse> {
    let s = shipments::find(conn, customer_id, book_number)?;
    let Some(ret) = find(conn, customer_id, book_number)? else {
        return Err(Error::new(
            ErrorCategory::NotFound,
            format!("Shipment {book_number} has no scan-based return label: it was booked without scanBasedReturnLabel."),
        ));
    };
    if s.voided {
        return Err(Error::conflict(format!("Shipment {book_number} is voided, and its return label with it; it must not be printed.")));
    }
    let format_code = format_code.unwrap_or(&s.label_format);
    let format = labels::requested_format(format_code, layout)?;
    let carrier = labels::carrier_prints(books, &s, format)?;
    let service_label = books.catalog.service(&s.service_code).map_or(s.service_code.clone(), |sv| sv.label.clone());
    let data = label_data(&s.view, &ret, &carrier.label, &service_label);
    let image = if layout == LabelLayout::Label {
        labels::render(format, std::slice::from_ref(&data))?.pop().unwrap_or_default()
    } else {
        documents::render_labels_pdf_on(std::slice::from_ref(&data), layout)
            .map_err(|e| Error::internal(format!("could not render the return label: {e}")).with_source(e))?
    };
    Ok(wire::LabelResponse { label_image_format: format.code().to_string(), base64_images: vec![documents::base64(&image)] })
}

/// What the return label prints: from the shipment's receiver to the return address,
/// under its own tracking number and the reversed route's zone.
pub(crate) fn label_data(view: &wire::ShipmentView, ret: &ReturnLabel, carrier_label: &str, service_label: &str) -> LabelData {
    LabelData {
        carrier_label: carrier_label.to_string(),
        service_label: format!("{service_label} Return Service"),
        tracking_number: ret.tracking_number.clone(),
        book_number: view.book_number.clone(),
        sender: shipments::label_address(&view.receiver),
        receiver: shipments::label_address(&ret.return_to),
        weight: view.pieces.first().map(|p| format!("{} {}", p.weight, view.weight_unit)).unwrap_or_default(),
        reference: view.shipper_reference.clone(),
        shipment_date: crate::dates::parse_date(&view.shipment_date).unwrap_or_default(),
        piece: (1, 1),
        zone: ret.zone.clone(),
        customs: None,
    }
}
