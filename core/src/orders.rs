//! Orders of REST API integrations (4.2): put (create or replace), get, delete, and the
//! fulfilment status that bookings move.
//!
//! A booking with `fulfillment` links its shipment to the order. The order's
//! `fulfillmentStatus` is then recomputed from every non-voided shipment linked to it:
//! each shipped item is matched to an order line by `lineId`, else `productId`, else
//! `sku`; when every line's quantity is shipped the order is `fulfilled`, when some is
//! `partial`. A fulfilment without items ships the whole order. Voiding a linked shipment
//! recomputes the status the same way, so it moves back (to `pending` when nothing
//! shipped remains). A put replaces the order, status included, as the spec says.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use crate::address::{self, AddressUse};
use crate::error::{Error, ErrorCategory, FieldError, Problems, Result};
use crate::events;
use crate::limits::MAX_ORDER_LINES;
use crate::shipment;
use crate::store::{args, Read, Tx};
use crate::wire;

/// The values of `fulfillmentStatus`.
pub const FULFILLMENT_STATUSES: [&str; 3] = ["pending", "fulfilled", "partial"];

fn integration(conn: &Read<'_>, customer_id: &str, integration_id: &str) -> Result<()> {
    if crate::accounts::owns_integration(conn, customer_id, integration_id)? {
        Ok(())
    } else {
        Err(Error::not_found("integration", integration_id))
    }
}

/// `YYYY-MM-DD` exactly, or an RFC 3339 time as sent (no spaces around it).
fn is_date(text: &str) -> bool {
    crate::dates::parse_date(text).is_some() || DateTime::parse_from_rfc3339(text).is_ok()
}

fn non_negative(p: &mut Problems, field: &str, value: Option<Decimal>) {
    if let Some(v) = value {
        if v < Decimal::ZERO {
            p.push(field, format!("must be zero or more, found {v}"));
        }
    }
}

/// `LIMIT_EXCEEDED` on `field` when `count` is above [`MAX_ORDER_LINES`].
pub(crate) fn check_lines(field: &str, count: usize) -> Result<()> {
    if count > MAX_ORDER_LINES {
        return Err(Error::fields(
            ErrorCategory::LimitExceeded,
            vec![FieldError { field: field.into(), message: format!("at most {MAX_ORDER_LINES} are accepted, found {count}") }],
        ));
    }
    Ok(())
}

/// Checks an order against every rule of 4.2; returns it with `shipperReference`
/// defaulted.
fn validate(order_id: &str, req: &wire::Order) -> Result<wire::Order> {
    check_lines("items", req.items.as_ref().map_or(0, Vec::len))?;
    let mut p = Problems::new();
    if req.order_id != order_id {
        p.push("orderId", format!("must equal the order id of the path, {order_id:?}; found {:?}", req.order_id));
    }
    if order_id.chars().count() > 100 {
        p.push("orderId", "must be at most 100 characters");
    }
    if !is_date(&req.order_date) {
        p.push("orderDate", format!("expected a date as YYYY-MM-DD, found {:?}", req.order_date));
    }
    if !FULFILLMENT_STATUSES.contains(&req.fulfillment_status.as_str()) {
        p.push("fulfillmentStatus", format!("expected one of pending, fulfilled, partial, found {:?}", req.fulfillment_status));
    }
    // (a nullable key left out is null: the wire type reads it so)
    for (field, value) in [
        ("orderNumber", &req.order_number),
        ("shippingService", &req.shipping_service),
        ("weightUnit", &req.weight_unit),
        ("dimUnit", &req.dim_unit),
        ("dueByDate", &req.due_by_date),
        ("orderGroup", &req.order_group),
        ("shipperReference", &req.shipper_reference),
        ("shipperReference2", &req.shipper_reference2),
        ("contentDescription", &req.content_description),
    ] {
        if value.as_ref().is_some_and(|v| v.chars().count() > 100) {
            p.push(field, "must be at most 100 characters");
        }
    }
    if let Some(v) = req.shipping_total {
        shipment::amount(&mut p, "shippingTotal", v.0);
    }
    let weight_unit = &req.weight_unit;
    if let Some(u) = weight_unit {
        if !matches!(u.as_str(), "lb" | "kg") {
            p.push("weightUnit", format!("expected lb, kg or null, found {u:?}"));
        }
    }
    let dim_unit = &req.dim_unit;
    if let Some(u) = dim_unit {
        if !matches!(u.as_str(), "in" | "cm") {
            p.push("dimUnit", format!("expected in, cm or null, found {u:?}"));
        }
    }
    if let Some(d) = &req.due_by_date {
        if !is_date(d) {
            p.push("dueByDate", format!("expected a date as YYYY-MM-DD or null, found {d:?}"));
        }
    }
    let sender = address::validate(&mut p, "sender", &req.sender, AddressUse::Order);
    let receiver = address::validate(&mut p, "receiver", &req.receiver, AddressUse::Order);
    if let Some(r) = &req.return_to {
        address::validate(&mut p, "returnTo", r, AddressUse::ReturnTo);
    }
    let domestic = !sender.country.is_empty() && sender.country == receiver.country;

    let mut weights = false;
    if let Some(items) = &req.items {
        for (i, item) in items.iter().enumerate() {
            let at = |f: &str| format!("items[{i}].{f}");
            non_negative(&mut p, &at("price"), item.price.map(|d| d.0));
            if let Some(q) = item.quantity {
                if q.0 < 1 {
                    p.push(at("quantity"), format!("must be at least 1, found {}", q.0));
                }
            }
            non_negative(&mut p, &at("weight"), item.weight.map(|d| d.0));
            weights |= item.weight.is_some();
            if let Some(c) = &item.country_of_origin {
                if c.len() != 2 || crate::refdata::country(&c.to_ascii_uppercase()).is_none() {
                    p.push(at("countryOfOrigin"), format!("expected an ISO 3166-1 two-letter country code or null, found {c:?}"));
                }
            }
        }
    }
    let mut dims = false;
    if let Some(packages) = &req.packages {
        for (i, pkg) in packages.iter().enumerate() {
            let at = |f: &str| format!("packages[{i}].{f}");
            for (name, value) in [("weight", pkg.weight), ("length", pkg.length), ("width", pkg.width), ("height", pkg.height)] {
                non_negative(&mut p, &at(name), value.map(|d| d.0));
            }
            weights |= pkg.weight.is_some();
            dims |= pkg.length.is_some() || pkg.width.is_some() || pkg.height.is_some();
            if let Some(v) = pkg.insurance_amount {
                shipment::amount(&mut p, &at("insuranceAmount"), v.0);
            }
            if let Some(v) = pkg.declared_value {
                if domestic {
                    p.push(at("declaredValue"), "must be null for a domestic order (sender and receiver in one country)");
                } else {
                    shipment::amount(&mut p, &at("declaredValue"), v.0);
                }
            }
        }
    }
    if weights && weight_unit.is_none() {
        p.push("weightUnit", "must be lb or kg when items or packages have weights");
    }
    if dims && dim_unit.is_none() {
        p.push("dimUnit", "must be in or cm when packages have dimensions");
    }
    p.finish()?;

    let mut order = req.clone();
    if order.shipper_reference.is_none() {
        order.shipper_reference = Some(req.order_number.clone().unwrap_or_else(|| req.order_id.clone()));
    }
    Ok(order)
}

/// Put order (4.2): creates or replaces the order.
pub(crate) fn put(
    tx: &Tx<'_>,
    customer_id: &str,
    integration_id: &str,
    order_id: &str,
    req: &wire::Order,
    now: DateTime<Utc>,
) -> Result<wire::OkResponse> {
    integration(tx, customer_id, integration_id)?;
    let order = validate(order_id, req)?;
    let at = crate::dates::timestamp(now);
    let existed = tx
        .row(
            "SELECT 1 FROM orders WHERE integration_id = ?1 AND order_id = ?2 AND customer_id = ?3",
            args![integration_id, order_id, customer_id],
            |_| Ok(()),
        )?
        .is_some();
    tx.execute(
        "INSERT INTO orders (integration_id, order_id, customer_id, fulfillment_status, document, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
         ON CONFLICT (customer_id, integration_id, order_id) DO UPDATE
         SET fulfillment_status = excluded.fulfillment_status, document = excluded.document, updated_at = excluded.updated_at",
        args![integration_id, order_id, customer_id, order.fulfillment_status, wire::to_json(&order)?, at],
    )?;
    let kind = if existed { events::Type::OrderUpdated } else { events::Type::OrderCreated };
    announce(tx, customer_id, integration_id, order_id, kind, now)?;
    Ok(wire::OkResponse::OK)
}

/// Appends the event `kind` of the order, with the order as get order shows it now.
fn announce(tx: &Tx<'_>, customer_id: &str, integration_id: &str, order_id: &str, kind: events::Type, now: DateTime<Utc>) -> Result<()> {
    match load(tx, customer_id, integration_id, order_id)? {
        Some(order) => events::append(tx, customer_id, kind, &subject(integration_id, order_id), now, &order),
        None => Ok(()),
    }
}

/// The subject id of an order's events: `<integrationId>/<orderId>`.
fn subject(integration_id: &str, order_id: &str) -> String {
    format!("{integration_id}/{order_id}")
}

fn load(conn: &Read<'_>, customer_id: &str, integration_id: &str, order_id: &str) -> Result<Option<wire::Order>> {
    let row: Option<(String, String)> = conn.row(
        "SELECT fulfillment_status, document FROM orders WHERE integration_id = ?1 AND order_id = ?2 AND customer_id = ?3",
        args![integration_id, order_id, customer_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    row.map(|(status, doc)| {
        let mut order: wire::Order =
            serde_json::from_str(&doc).map_err(|e| Error::internal(format!("order {order_id} is unreadable: {e}")).with_source(e))?;
        order.fulfillment_status = status;
        Ok(order)
    })
    .transpose()
}

/// The order number of the order `f` fulfils; `None` when it has none or does not
/// exist.
pub(crate) fn order_number(conn: &Read<'_>, customer_id: &str, f: &wire::Fulfillment) -> Result<Option<String>> {
    Ok(load(conn, customer_id, &f.integration_id, &f.order_id)?.and_then(|order| order.order_number))
}

/// Get order: the order as put, with its current status.
pub(crate) fn get(conn: &Read<'_>, customer_id: &str, integration_id: &str, order_id: &str) -> Result<wire::Order> {
    integration(conn, customer_id, integration_id)?;
    load(conn, customer_id, integration_id, order_id)?.ok_or_else(|| Error::not_found("order", order_id))
}

/// Delete order. Shipments that fulfilled it keep their `fulfillment` link.
pub(crate) fn delete(tx: &Tx<'_>, customer_id: &str, integration_id: &str, order_id: &str, now: DateTime<Utc>) -> Result<wire::OkResponse> {
    integration(tx, customer_id, integration_id)?;
    let order = load(tx, customer_id, integration_id, order_id)?.ok_or_else(|| Error::not_found("order", order_id))?;
    tx.execute(
        "DELETE FROM orders WHERE integration_id = ?1 AND order_id = ?2 AND customer_id = ?3",
        args![integration_id, order_id, customer_id],
    )?;
    events::append(tx, customer_id, events::Type::OrderDeleted, &subject(integration_id, order_id), now, &order)?;
    tx.execute(
        "DELETE FROM order_shipments WHERE customer_id = ?3 AND integration_id = ?1 AND order_id = ?2",
        args![integration_id, order_id, customer_id],
    )?;
    Ok(wire::OkResponse::OK)
}

/// The lines of an order by `lineId`, `productId` and `sku` (the first line with a
/// value, as a scan would find it), so that matching a fulfilment's items is linear.
struct LineIndex<'a> {
    by_line: HashMap<&'a str, usize>,
    by_product: HashMap<&'a str, usize>,
    by_sku: HashMap<&'a str, usize>,
}

impl<'a> LineIndex<'a> {
    fn of(lines: &'a [wire::OrderItem]) -> LineIndex<'a> {
        let index = |key: fn(&wire::OrderItem) -> &Option<String>| {
            let mut map = HashMap::with_capacity(lines.len());
            for (i, line) in lines.iter().enumerate() {
                if let Some(k) = key(line).as_deref() {
                    map.entry(k).or_insert(i);
                }
            }
            map
        };
        LineIndex { by_line: index(|l| &l.line_id), by_product: index(|l| &l.product_id), by_sku: index(|l| &l.sku) }
    }

    /// The order line an item of a fulfilment ships: by `lineId`, else `productId`, else
    /// `sku`.
    fn line_of(&self, item: &wire::FulfillmentItem) -> Option<usize> {
        if !item.line_id.is_empty() {
            self.by_line.get(item.line_id.as_str()).copied()
        } else if !item.product_id.is_empty() {
            self.by_product.get(item.product_id.as_str()).copied()
        } else if !item.sku.is_empty() {
            self.by_sku.get(item.sku.as_str()).copied()
        } else {
            None
        }
    }
}

fn ordered(line: &wire::OrderItem) -> i64 {
    line.quantity.map_or(1, |q| q.0)
}

/// The non-voided shipments' fulfilments of an order.
fn shipped(conn: &Read<'_>, customer_id: &str, integration_id: &str, order_id: &str) -> Result<Vec<wire::Fulfillment>> {
    let views = conn.rows(
        "SELECT s.view FROM order_shipments o JOIN shipments s ON s.customer_id = o.customer_id AND s.book_number = o.book_number
         WHERE o.customer_id = ?3 AND o.integration_id = ?1 AND o.order_id = ?2 AND s.voided = 0",
        args![integration_id, order_id, customer_id],
        |r| r.get::<String>(0),
    )?;
    views
        .into_iter()
        .map(|v| {
            let view: wire::ShipmentView =
                serde_json::from_str(&v).map_err(|e| Error::internal(format!("a stored shipment is unreadable: {e}")).with_source(e))?;
            Ok(view.fulfillment.unwrap_or_default())
        })
        .collect()
}

/// Recomputes the status of an order from its non-voided shipments; a change of it is
/// written, with its `order.status_changed` event.
fn recompute(tx: &Tx<'_>, customer_id: &str, integration_id: &str, order_id: &str, now: DateTime<Utc>) -> Result<()> {
    let Some(order) = load(tx, customer_id, integration_id, order_id)? else { return Ok(()) };
    let lines = order.items.unwrap_or_default();
    let index = LineIndex::of(&lines);
    let fulfilments = shipped(tx, customer_id, integration_id, order_id)?;
    let mut counts = vec![0i64; lines.len()];
    let mut whole = false;
    for f in &fulfilments {
        whole |= f.items.is_empty();
        for item in &f.items {
            if let Some(j) = index.line_of(item) {
                counts[j] = counts[j].saturating_add(item.quantity.0);
            }
        }
    }
    let status = if fulfilments.is_empty() {
        "pending"
    } else if whole || lines.iter().zip(&counts).all(|(l, n)| *n >= ordered(l)) {
        "fulfilled"
    } else if counts.iter().any(|n| *n > 0) {
        "partial"
    } else {
        "pending"
    };
    if status == order.fulfillment_status {
        return Ok(());
    }
    tx.execute(
        "UPDATE orders SET fulfillment_status = ?3 WHERE customer_id = ?4 AND integration_id = ?1 AND order_id = ?2",
        args![integration_id, order_id, status, customer_id],
    )?;
    announce(tx, customer_id, integration_id, order_id, events::Type::OrderStatusChanged, now)
}

/// Links booked shipment `book_number` to the order of its fulfilment, after checking
/// that the order exists (else `NOT_FOUND`), that each item matches an order line and
/// that no line is shipped beyond its quantity; then moves the order's status.
pub(crate) fn fulfil(tx: &Tx<'_>, customer_id: &str, book_number: &str, f: &wire::Fulfillment, now: DateTime<Utc>) -> Result<()> {
    let order = load(tx, customer_id, &f.integration_id, &f.order_id)?.ok_or_else(|| {
        Error::fields(
            ErrorCategory::NotFound,
            vec![FieldError {
                field: "fulfillment.orderId".into(),
                message: format!("no order {:?} in integration {:?}", f.order_id, f.integration_id),
            }],
        )
    })?;
    let lines = order.items.unwrap_or_default();
    let index = LineIndex::of(&lines);
    let mut counts = vec![0i64; lines.len()];
    for earlier in shipped(tx, customer_id, &f.integration_id, &f.order_id)? {
        for item in &earlier.items {
            if let Some(j) = index.line_of(item) {
                counts[j] = counts[j].saturating_add(item.quantity.0);
            }
        }
    }
    let mut p = Problems::new();
    for (i, item) in f.items.iter().enumerate() {
        match index.line_of(item) {
            None => {
                p.push(format!("fulfillment.items[{i}]"), format!("matches no line of order {} (by lineId, productId or sku)", f.order_id))
            }
            Some(j) => {
                let left = ordered(&lines[j]) - counts[j];
                if item.quantity.0 > left {
                    p.push(
                        format!("fulfillment.items[{i}].quantity"),
                        format!("{} exceeds the {} left to ship of that order line", item.quantity.0, left.max(0)),
                    );
                }
                counts[j] = counts[j].saturating_add(item.quantity.0);
            }
        }
    }
    p.finish()?;
    tx.execute(
        "INSERT INTO order_shipments (integration_id, order_id, book_number, customer_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
        args![f.integration_id, f.order_id, book_number, customer_id],
    )?;
    recompute(tx, customer_id, &f.integration_id, &f.order_id, now)
}

/// After shipment `book_number` was voided: recomputes the status of the order it fulfilled.
pub(crate) fn on_void(tx: &Tx<'_>, customer_id: &str, book_number: &str, now: DateTime<Utc>) -> Result<()> {
    let links: Vec<(String, String)> = tx.rows(
        "SELECT integration_id, order_id FROM order_shipments WHERE customer_id = ?1 AND book_number = ?2",
        args![customer_id, book_number],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    for (integration_id, order_id) in links {
        recompute(tx, customer_id, &integration_id, &order_id, now)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An item finds the first line that carries its key, by `lineId`, else `productId`,
    /// else `sku`, as a scan from the top would: repeated keys and lines without one
    /// included.
    #[test]
    fn items_find_the_first_line_with_their_key() {
        let line = |line_id: Option<&str>, product: Option<&str>, sku: Option<&str>| wire::OrderItem {
            line_id: line_id.map(String::from),
            product_id: product.map(String::from),
            sku: sku.map(String::from),
            ..Default::default()
        };
        let lines = [
            line(None, None, None),
            line(Some("L1"), Some("P1"), Some("MUG")),
            line(Some("L2"), Some("P1"), Some("MUG")),
            line(Some("L1"), None, Some("BOWL")),
        ];
        let item = |line_id: &str, product_id: &str, sku: &str| wire::FulfillmentItem {
            line_id: line_id.into(),
            product_id: product_id.into(),
            sku: sku.into(),
            quantity: wire::Int(1),
        };
        let index = LineIndex::of(&lines);
        for (it, expected) in [
            (item("L1", "", ""), Some(1)),
            (item("L2", "P1", "BOWL"), Some(2)),
            (item("", "P1", "BOWL"), Some(1)),
            (item("", "", "BOWL"), Some(3)),
            (item("L9", "P1", "MUG"), None),
            (item("", "", ""), None),
        ] {
            assert_eq!(index.line_of(&it), expected, "{it:?}");
        }
    }
}
