//! The stored shipment: the row a booking writes and the view it keeps, as the
//! operations after booking read it back (labels, invoices, returns, search, tracking,
//! void and list shipments).

use std::sync::OnceLock;

use crate::documents::LabelAddress;
use crate::error::{Error, Result};
use crate::refdata::US_POSTAL_TERRITORIES;
use crate::store::{args, Read, Row};
use crate::wire;

/// True if the shipment stays in one country; for a carrier whose catalog entry says
/// `usTerritoriesDomestic` (`us_territories_domestic`), the US and its territories count
/// as one.
pub(crate) fn is_domestic(us_territories_domestic: bool, sender: &str, receiver: &str) -> bool {
    let us = |c: &str| c == "US" || US_POSTAL_TERRITORIES.contains(&c);
    sender == receiver || (us_territories_domestic && us(sender) && us(receiver))
}

pub(crate) fn label_address(a: &wire::ViewAddress) -> LabelAddress {
    LabelAddress {
        name: a.name.clone(),
        company: a.company.clone(),
        address1: a.address1.clone(),
        address2: a.address2.clone(),
        city: a.city.clone(),
        state: a.state.clone(),
        zip: a.zip.clone().unwrap_or_default(),
        country: a.country.clone(),
        phone: a.phone.clone(),
    }
}

/// The currency its customs documents value a shipment's contents in: `customsCurrency`,
/// else the shipment's own.
pub(crate) fn customs_currency(view: &wire::ShipmentView) -> String {
    view.customs_currency.clone().filter(|c| !c.trim().is_empty()).unwrap_or_else(|| view.currency.clone())
}

/// The customer's shipment `book_number` as stored, or `NOT_FOUND`.
pub(crate) fn find(conn: &Read<'_>, customer_id: &str, book_number: &str) -> Result<StoredShipment> {
    conn.row(
        "SELECT book_number, carrier_code, service_code, package_type_code, family, tracking_number, zone, currency, total_amount,
                charged_cents, label_format, voided, view
         FROM shipments WHERE book_number = ?1 AND customer_id = ?2",
        args![book_number, customer_id],
        StoredShipment::from_row,
    )?
    .ok_or_else(|| Error::not_found("shipment", book_number))
}

/// A shipment row.
#[derive(Debug, Clone)]
pub(crate) struct StoredShipment {
    pub carrier_code: String,
    pub service_code: String,
    pub zone: String,
    /// The label format chosen at booking (`PDF`, `ZPL`, `EPL2`).
    pub label_format: String,
    pub charged_cents: i64,
    pub voided: bool,
    pub view: wire::ShipmentView,
}

/// A view with every field present, nested ones included (no null, no empty list), for
/// [`view_shape`]. A field added to the view's types must be added here with a value;
/// a test checks that nothing is missing.
const SAMPLE_VIEW: &str = r#"{"bookNumber": "1000000001", "trackingNumber": "T1", "trackingNumbers": ["T1"], "voided": false,
    "carrierCode": "c", "serviceCode": "s", "packageTypeCode": "p", "shipmentDate": "2026-11-25", "shipperReference": "r",
    "shipmentReference": "r", "shipperReference2": "r", "contentDescription": "d",
    "sender": {"name": "n", "company": "c", "address1": "a", "address2": "a", "city": "c", "state": "s", "zip": "z",
        "country": "US", "phone": "p", "email": "e"},
    "receiver": {"name": "n", "company": "c", "address1": "a", "address2": "a", "city": "c", "state": "s", "zip": "z",
        "country": "US", "phone": "p", "email": "e"},
    "residential": false, "signatureOptionCode": "direct", "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
    "customsCurrency": "USD",
    "pieces": [{"weight": "1", "length": "1", "width": "1", "height": "1", "insuranceAmount": 1.5, "declaredValue": 1.5}],
    "fulfillment": {"orderId": "o", "integrationId": "i", "items": [{"productId": "p", "sku": "s", "lineId": "l", "quantity": 1}]},
    "totalShippingCost": 1.25, "orderId": "o", "orderNumber": "n", "commercialInvoice": {"sendElectronically": true},
    "returnTrackingNumber": "R1", "estimatedDeliveryDate": "2026-11-30"}"#;

/// The shape of the views this build stores: a hash (FNV-1a) of [`SAMPLE_VIEW`] as this
/// build writes it, so that any change to the view's fields, their order or how one is
/// written changes it. Stored with each view (`shipments.view_shape`): a view of today's
/// shape is what this build would write for it, and search sends it as stored.
pub(crate) fn view_shape() -> i64 {
    static SHAPE: OnceLock<i64> = OnceLock::new();
    *SHAPE.get_or_init(|| {
        let written = serde_json::from_str::<wire::ShipmentView>(SAMPLE_VIEW).and_then(|v| serde_json::to_string(&v));
        // A sample that does not parse matches no stored view: every view then goes the
        // typed way (and the sample's test fails).
        let bytes = written.unwrap_or_default().into_bytes();
        let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        i64::from_ne_bytes(hash.to_ne_bytes())
    })
}

/// A shipment's stored view. Views stored before the view had `orderId` get it from
/// their fulfilment, as a booking now stores it.
pub(crate) fn parse_view(text: &str) -> serde_json::Result<wire::ShipmentView> {
    let mut view: wire::ShipmentView = serde_json::from_str(text)?;
    if view.order_id.is_none() {
        view.order_id = view.fulfillment.as_ref().map(|f| f.order_id.clone());
    }
    Ok(view)
}

impl StoredShipment {
    /// The shipment of a row `SELECT book_number, carrier_code, service_code,
    /// package_type_code, family, tracking_number, zone, currency, total_amount,
    /// charged_cents, label_format, voided, view`.
    fn from_row(r: &Row<'_>) -> Result<StoredShipment> {
        let view: String = r.get(12)?;
        let voided: bool = r.get(11)?;
        let mut view = parse_view(&view).map_err(|e| {
            let book_number = r.get::<String>(0).unwrap_or_default();
            Error::internal(format!("the stored view (column view) of shipment {book_number} is unreadable: {e}")).with_source(e)
        })?;
        view.voided = voided;
        Ok(StoredShipment {
            carrier_code: r.get(1)?,
            service_code: r.get(2)?,
            zone: r.get(6)?,
            label_format: r.get(10)?,
            charged_cents: r.get(9)?,
            voided,
            view,
        })
    }
}

/// The lower bound of list shipments (`minBookNumber`) as stored book numbers compare:
/// the number it is (leading zeros allowed; empty is from the first), written as book
/// numbers are, in ten digits. `None` when it is above every ten-digit number.
///
/// # Errors
/// `INVALID_REQUEST` on `minBookNumber` for anything but digits.
pub(crate) fn list_bound(text: &str) -> Result<Option<String>> {
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        let shown: String = text.chars().take(40).collect();
        return Err(Error::invalid("minBookNumber", format!("expected a book number, digits only, found {shown:?}")));
    }
    let digits = text.trim_start_matches('0');
    Ok((digits.len() <= 10).then(|| format!("{digits:0>10}")))
}

/// List shipments: the customer's shipments by book number from `min`, at most `limit`.
pub(crate) fn list(conn: &Read<'_>, customer_id: &str, min: &str, limit: i64) -> Result<wire::ShipmentsResponse> {
    let shipments = conn.rows(
        "SELECT book_number, carrier_code, service_code, package_type_code, family, tracking_number, zone, currency, total_amount,
                charged_cents, label_format, voided, view
         FROM shipments WHERE customer_id = ?1 AND book_number >= ?2 ORDER BY book_number LIMIT ?3",
        args![customer_id, min, limit],
        |r| StoredShipment::from_row(r).map(|s| s.view),
    )?;
    Ok(wire::ShipmentsResponse { shipments })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample holds every field of the view's types, nested ones included, so that a
    /// field added anywhere changes the shape. (An added field the sample lacks shows as
    /// null, or fails to parse.)
    #[test]
    fn the_sample_view_holds_every_field_with_a_value() {
        fn holes(value: &serde_json::Value, path: &str, found: &mut Vec<String>) {
            match value {
                serde_json::Value::Null => found.push(path.to_string()),
                serde_json::Value::Array(items) if items.is_empty() => found.push(path.to_string()),
                serde_json::Value::Array(items) => items.iter().for_each(|v| holes(v, &format!("{path}[]"), found)),
                serde_json::Value::Object(fields) => fields.iter().for_each(|(k, v)| holes(v, &format!("{path}.{k}"), found)),
                _ => {}
            }
        }
        let view: wire::ShipmentView = serde_json::from_str(SAMPLE_VIEW).expect("SAMPLE_VIEW parses as a ShipmentView");
        let mut found = Vec::new();
        holes(&serde_json::to_value(&view).unwrap(), "", &mut found);
        assert!(found.is_empty(), "SAMPLE_VIEW needs a value for {found:?}");
        assert_ne!(view_shape(), i64::from_ne_bytes(0xcbf2_9ce4_8422_2325_u64.to_ne_bytes()), "the shape hashes the sample's text");
    }
}
