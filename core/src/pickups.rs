//! Schedule pickup (4.7), cancel and get a pickup; and the shipment checks pickups and
//! manifests share (the customer's own, not voided, one carrier matching `carrierCode`).
//!
//! Choices where the spec is silent: a pickup date may be today or later (times are the
//! pickup address's local times, so a window earlier today is not refused); a shipment
//! may be on one pickup that is not cancelled at a time (`CONFLICT`), so cancelling
//! frees it for another; a cancelled pickup stays readable.

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};

use crate::address::{self, AddressUse};
use crate::catalog::{Carrier, Catalog};
use crate::error::{Error, ErrorCategory, FieldError, Problems, Result};
use crate::events;
use crate::limits::MAX_SHIPMENTS;
use crate::store::{args, Read, Tx};
use crate::wire::{self, CompactString, WireAddress};

/// A shipment listed in a pickup or manifest request.
pub(crate) struct Listed {
    pub book_number: String,
    pub carrier_code: String,
    pub service_code: String,
    pub family: String,
    pub view: wire::ShipmentView,
}

/// Loads the customer's shipments `book_numbers` for a pickup or manifest of
/// `carrier_code`, recording rule violations in `p`: `NOT_FOUND` (returned at once) for a
/// book number that is unknown or another customer's; in `p` a missing or unknown
/// carrier, an empty or repeated list, a voided shipment, shipments of more than one
/// carrier, or a carrier other than `carrierCode`.
pub(crate) fn listed(
    conn: &Read<'_>,
    catalog: &Catalog,
    p: &mut Problems,
    customer_id: &str,
    carrier_code: &str,
    book_numbers: &[String],
) -> Result<Vec<Listed>> {
    if book_numbers.len() > MAX_SHIPMENTS {
        return Err(Error::fields(
            ErrorCategory::LimitExceeded,
            vec![FieldError {
                field: "bookNumbers".into(),
                message: format!("at most {MAX_SHIPMENTS} shipments, found {}", book_numbers.len()),
            }],
        ));
    }
    let mut stmt =
        conn.query("SELECT carrier_code, service_code, family, voided, view FROM shipments WHERE book_number = ?1 AND customer_id = ?2")?;
    let mut missing = Vec::new();
    let mut found = Vec::new();
    for (i, bn) in book_numbers.iter().enumerate() {
        let row: Option<(String, String, String, bool, String)> =
            stmt.row(args![bn.as_str(), customer_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?;
        match row {
            None => missing.push(FieldError { field: format!("bookNumbers[{i}]"), message: format!("no shipment {bn:?} was found") }),
            Some((carrier_code, service_code, family, voided, view)) => {
                let mut view: wire::ShipmentView =
                    serde_json::from_str(&view).map_err(|e| Error::internal(format!("shipment {bn} is unreadable: {e}")).with_source(e))?;
                view.voided = voided;
                found.push((i, Listed { book_number: bn.clone(), carrier_code, service_code, family, view }));
            }
        }
    }
    if !missing.is_empty() {
        return Err(Error::fields(ErrorCategory::NotFound, missing));
    }
    let carrier_code = carrier_code.trim();
    if carrier_code.is_empty() {
        p.push("carrierCode", "is required");
    } else if catalog.carrier(carrier_code).is_none() {
        p.push("carrierCode", format!("unknown carrier {carrier_code:?}"));
    }
    if book_numbers.is_empty() {
        p.push("bookNumbers", "must list at least one shipment");
    }
    for (i, bn) in book_numbers.iter().enumerate() {
        if book_numbers[..i].contains(bn) {
            p.push(format!("bookNumbers[{i}]"), format!("{bn} is listed twice"));
        }
    }
    for (i, s) in &found {
        if s.view.voided {
            p.push(format!("bookNumbers[{i}]"), format!("shipment {} is voided", s.book_number));
        }
    }
    let mut carriers: Vec<&str> = found.iter().map(|(_, s)| s.carrier_code.as_str()).collect();
    carriers.sort_unstable();
    carriers.dedup();
    match carriers.as_slice() {
        [] => {}
        [one] => {
            if !carrier_code.is_empty() && *one != carrier_code {
                p.push("carrierCode", format!("must match the carrier of the shipments, {one}; found {carrier_code:?}"));
            }
        }
        many => p.push("bookNumbers", format!("only one carrier per request: the shipments are of {}", many.join(", "))),
    }
    Ok(found.into_iter().map(|(_, s)| s).collect())
}

/// The flat address fields of a pickup or manifest request, as an address.
pub(crate) fn flat_address(fields: [&Option<String>; 9]) -> WireAddress {
    let [name, company, address1, address2, city, state, zip, country, phone] = fields.map(|f| f.as_deref().map(CompactString::from));
    WireAddress { name, company, address1, address2, city, state, zip: zip.map(Some), country, phone, email: None }
}

fn time(p: &mut Problems, field: &str, text: &str) -> Option<NaiveTime> {
    let t = text.trim();
    let parsed = if t.len() == 8 { NaiveTime::parse_from_str(t, "%H:%M:%S").ok() } else { None };
    if parsed.is_none() {
        p.push(field, format!("expected a time as HH:MM:SS, found {text:?}"));
    }
    parsed
}

/// Schedule pickup (4.7) in `tx`.
pub(crate) fn schedule(
    tx: &Tx<'_>,
    catalog: &Catalog,
    customer_id: &str,
    req: &wire::SchedulePickupRequest,
    today: NaiveDate,
    now: DateTime<Utc>,
) -> Result<wire::PickupIdResponse> {
    let mut p = Problems::new();
    let shipments = listed(tx, catalog, &mut p, customer_id, &req.carrier_code, &req.book_numbers)?;
    match crate::dates::parse_date(&req.pickup_date) {
        None => p.push("pickupDate", format!("expected a date as YYYY-MM-DD, found {:?}", req.pickup_date)),
        Some(d) if d < today => p.push("pickupDate", format!("{d} is in the past; the earliest pickup date is today, {today}")),
        Some(d) if d > crate::shipment::latest_date(today) => p.push(
            "pickupDate",
            format!("{d} is more than a year ahead; the latest pickup date is {}", crate::shipment::latest_date(today)),
        ),
        Some(_) => {}
    }
    let ready = time(&mut p, "readyTime", &req.ready_time);
    let close = time(&mut p, "closeTime", &req.close_time);
    if let (Some(r), Some(c)) = (ready, close) {
        if c <= r {
            p.push("closeTime", format!("must be after readyTime ({r}); found {c}"));
        }
    }
    let r = req;
    let wire_address = flat_address([&r.name, &r.company, &r.address1, &r.address2, &r.city, &r.state, &r.zip, &r.country, &r.phone]);
    let address = address::validate(&mut p, "", &wire_address, AddressUse::Pickup);
    let carrier = req.carrier_code.trim();
    let offers = |capability: fn(&Carrier) -> bool| catalog.carrier(carrier).is_some_and(capability);
    if offers(|c| c.pickups_by_family) {
        let ground = shipments.iter().any(|s| s.family == "ground");
        let express = shipments.iter().any(|s| s.family != "ground");
        if ground && express {
            p.push(
                "bookNumbers",
                format!("carrier {carrier} picks up Ground and Express shipments separately: schedule one pickup for each"),
            );
        }
    }
    if req.package_location.is_some() && !offers(|c| c.pickup_package_location) {
        let by = catalog.offered_by(&|c| c.pickup_package_location);
        p.push("packageLocation", format!("applies only to pickups of {by}, not {carrier}"));
    }
    for (field, value, max) in [("specialInstructions", &req.special_instructions, 250), ("packageLocation", &req.package_location, 100)] {
        if value.as_ref().is_some_and(|v| v.chars().count() > max) {
            p.push(field, format!("must be at most {max} characters"));
        }
    }
    p.finish()?;

    let mut busy = tx.query(
        "SELECT p.id FROM pickup_shipments ps JOIN pickups p ON p.customer_id = ps.customer_id AND p.id = ps.pickup_id
         WHERE ps.customer_id = ?2 AND ps.book_number = ?1 AND p.cancelled = 0",
    )?;
    let mut conflicts = Vec::new();
    for (i, s) in shipments.iter().enumerate() {
        if let Some(id) = busy.row(args![s.book_number.as_str(), customer_id], |r| r.get::<String>(0))? {
            conflicts.push(FieldError {
                field: format!("bookNumbers[{i}]"),
                message: format!("shipment {} is already on pickup {id}; cancel that pickup first", s.book_number),
            });
        }
    }
    if !conflicts.is_empty() {
        return Err(Error::fields(ErrorCategory::Conflict, conflicts));
    }

    let id = format!("P{:07}", crate::store::next_id(tx, "pickup")?);
    tx.execute(
        "INSERT INTO pickups (id, customer_id, carrier_code, pickup_date, ready_time, close_time, address, residential,
            special_instructions, package_location, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        args![
            id,
            customer_id,
            carrier,
            req.pickup_date.trim(),
            req.ready_time.trim(),
            req.close_time.trim(),
            wire::to_json(&address)?,
            req.residential.unwrap_or(false),
            req.special_instructions,
            req.package_location,
            crate::dates::timestamp(now),
        ],
    )?;
    let mut stmt = tx.statement("INSERT INTO pickup_shipments (pickup_id, position, book_number, customer_id) VALUES (?1, ?2, ?3, ?4)")?;
    for (i, s) in shipments.iter().enumerate() {
        stmt.execute(args![id, i64::try_from(i).unwrap_or(i64::MAX), s.book_number, customer_id])?;
    }
    events::append(tx, customer_id, events::Type::PickupScheduled, &id, now, &get(tx, customer_id, &id)?)?;
    Ok(wire::PickupIdResponse { pickup_id: id })
}

/// The customer's pickup `id`, or `NOT_FOUND`.
pub(crate) fn get(conn: &Read<'_>, customer_id: &str, id: &str) -> Result<wire::Pickup> {
    type Row = (String, String, String, String, String, bool, Option<String>, Option<String>, bool);
    let row: Option<Row> = conn.row(
        "SELECT carrier_code, pickup_date, ready_time, close_time, address, residential, special_instructions,
                    package_location, cancelled
             FROM pickups WHERE id = ?1 AND customer_id = ?2",
        args![id, customer_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?)),
    )?;
    let (carrier_code, pickup_date, ready_time, close_time, address, residential, special_instructions, package_location, cancelled) =
        row.ok_or_else(|| Error::not_found("pickup", id))?;
    let address = serde_json::from_str(&address).map_err(|e| Error::internal(format!("pickup {id} is unreadable: {e}")).with_source(e))?;
    let book_numbers = conn.rows(
        "SELECT book_number FROM pickup_shipments WHERE customer_id = ?2 AND pickup_id = ?1 ORDER BY position",
        args![id, customer_id],
        |r| r.get(0),
    )?;
    Ok(wire::Pickup {
        pickup_id: id.to_string(),
        carrier_code,
        pickup_date,
        ready_time,
        close_time,
        book_numbers,
        address,
        residential,
        special_instructions,
        package_location,
        cancelled,
    })
}

/// Cancel pickup: `{"cancelled": true}`; a second cancel is `CONFLICT`.
pub(crate) fn cancel(
    tx: &Tx<'_>,
    customer_id: &str,
    id: &str,
    req: &wire::CancelPickupRequest,
    now: DateTime<Utc>,
) -> Result<wire::Pickup> {
    let pickup = get(tx, customer_id, id)?;
    if !req.cancelled {
        return Err(Error::invalid("cancelled", "must be true: a cancelled pickup cannot be restored; schedule a new one"));
    }
    if pickup.cancelled {
        return Err(Error::conflict(format!("Pickup {id} is already cancelled.")));
    }
    tx.execute(
        "UPDATE pickups SET cancelled = 1, cancelled_at = ?2 WHERE customer_id = ?3 AND id = ?1",
        args![id, &crate::dates::timestamp(now), customer_id],
    )?;
    let pickup = wire::Pickup { cancelled: true, ..pickup };
    events::append(tx, customer_id, events::Type::PickupCancelled, id, now, &pickup)?;
    Ok(pickup)
}
