//! Void shipment: refused once the carrier has the shipment in hand, else it marks the
//! shipment voided and refunds what its booking (and its return label) charged.

use chrono::{DateTime, Utc};

use crate::error::{Error, Result};
use crate::events;
use crate::ledger::{self, EntryKind};
use crate::money::{format2, from_cents};
use crate::shipments::find;
use crate::store::{args, Tx};
use crate::wire;

/// Void shipment: marks it voided and refunds its prepay charge (once), and its return
/// label's if an `Info Received` scan of it charged it.
pub(crate) fn void(
    tx: &Tx<'_>,
    customer_id: &str,
    book_number: &str,
    req: &wire::VoidRequest,
    now: DateTime<Utc>,
) -> Result<wire::VoidResponse> {
    if !req.voided {
        return Err(Error::invalid("voided", "must be true: a voided shipment cannot be un-voided"));
    }
    let s = find(tx, customer_id, book_number)?;
    if s.voided {
        return Err(Error::conflict(format!("Shipment {book_number} is already voided.")));
    }
    // Once the carrier has the shipment (it is on a manifest, or the carrier scanned it),
    // a void would refund a shipment that is being carried.
    let manifest: Option<String> = tx.row(
        "SELECT manifest_id FROM manifest_shipments WHERE customer_id = ?1 AND book_number = ?2",
        args![customer_id, book_number],
        |r| r.get(0),
    )?;
    if let Some(manifest) = manifest {
        return Err(Error::conflict(format!(
            "Shipment {book_number} is on manifest {manifest}: the carrier has it in hand, so it can no longer be voided."
        )));
    }
    // The events of the shipment's pieces and of its return label, stored alike; the
    // earliest, and of events at the same time the first in key order.
    let scanned: Option<(String, String, String)> = tx.row(
        "SELECT tracking_number, event_status, event_time FROM tracking_events
         WHERE customer_id = ?1 AND book_number = ?2 AND event_status <> ?3
         ORDER BY event_time, tracking_number, event_status, event, service_area LIMIT 1",
        args![customer_id, book_number, crate::tracking::INFO_RECEIVED],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    if let Some((tracking_number, status, time)) = scanned {
        let label = if s.view.return_tracking_number.as_deref() == Some(tracking_number.as_str()) { "return label" } else { "label" };
        return Err(Error::conflict(format!(
            "Shipment {book_number} has been scanned by the carrier ({status} at {time}, {label} {tracking_number}), so it can no longer be voided."
        )));
    }
    tx.execute(
        "UPDATE shipments SET voided = 1, voided_at = ?2 WHERE customer_id = ?3 AND book_number = ?1",
        args![book_number, &crate::dates::timestamp(now), customer_id],
    )?;
    let mut view = s.view;
    view.voided = true;
    events::append(tx, customer_id, events::Type::ShipmentVoided, book_number, now, &view)?;
    crate::orders::on_void(tx, customer_id, book_number, now)?;
    let refunded = if s.charged_cents > 0 {
        Some(ledger::append(tx, customer_id, EntryKind::Refund, s.charged_cents, &format!("shipment {book_number} voided"), now)?)
    } else {
        None
    };
    let balance = match crate::returns::refund_on_void(tx, customer_id, book_number, now)?.or(refunded) {
        Some(balance) => balance,
        None => ledger::balance_cents(tx, customer_id)?,
    };
    Ok(wire::VoidResponse { book_number: book_number.to_string(), voided: true, prepay_balance: format2(from_cents(balance)) })
}
