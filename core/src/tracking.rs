//! Tracking events (4.6, 2.9): what carriers report about a booked shipment.

use chrono::{DateTime, Utc};

use crate::address::Address;
use crate::catalog::Catalog;
use crate::error::{Error, ErrorCategory, FieldError, Problems, Result};
use crate::limits::MAX_FEED_EVENTS;
use crate::shipments::StoredShipment;
use crate::store::{args, Read, Tx};
use crate::{events as feed, wire};

/// The status of the event a booking records: the carrier knows of the shipment but
/// has not had it in hand yet.
pub(crate) const INFO_RECEIVED: &str = "Info Received";
/// The status of a delivery (2.9).
const DELIVERED: &str = "Delivered";

/// The closed list of `eventStatus` values (2.9), spelled as the interface spells them.
pub const EVENT_STATUSES: [&str; 9] = [
    INFO_RECEIVED,
    "In Transit",
    "Out for Delivery",
    "Delivery Arragned",
    "With Delivery Courier",
    "Delivered to Broker",
    "Failed Attempt",
    DELIVERED,
    "Exception",
];

/// `YYYY-MM-DD HH:MM:SS`, the event time format of 4.6.
pub(crate) fn event_time(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Whether `text` is a real time written exactly `YYYY-MM-DD HH:MM:SS` (two digits each
/// but the year's four; no sign), as chrono's format alone does not check.
fn is_event_time(text: &str) -> bool {
    let b = text.as_bytes();
    let shape = b.len() == 19
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b' ',
            13 | 16 => *c == b':',
            _ => c.is_ascii_digit(),
        });
    shape && chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").is_ok()
}

/// The `id_sequences` row that numbers tracking events in the order they are recorded.
const EVENT_IDS: &str = "tracking_event";

/// Records a piece's tracking number in the lookup table the carrier feed finds
/// shipments by, beside its row of `shipment_pieces`: `(tracking_number, customer_id,
/// book_number, piece_index)`.
pub(crate) const RECORD_TRACKING_NUMBER: &str =
    "INSERT INTO tracking_numbers (tracking_number, customer_id, book_number, piece_index) VALUES (?1, ?2, ?3, ?4)";

/// The text of a booking's first event.
const BOOKED_EVENT: &str = "Shipment information received; label created";

/// The first event of a booking, `Info Received` for every piece at the sender, as its
/// `shipments` row keeps it: the time, the place and the place's country.
/// The rest (tracking numbers, carrier) is the shipment's own.
pub(crate) struct BookedEvent {
    /// `YYYY-MM-DD HH:MM:SS`.
    pub time: String,
    /// The sender's city, and `, ` and state when there is a state.
    pub area: String,
    /// The sender's country.
    pub country: String,
}

/// The first event of a shipment booked `now` from `sender`.
pub(crate) fn booked_event(sender: &Address, now: DateTime<Utc>) -> BookedEvent {
    let area = if sender.state.is_empty() { sender.city.to_string() } else { format!("{}, {}", sender.city, sender.state) };
    BookedEvent { time: event_time(now), area, country: sender.country.to_string() }
}

/// The first events of shipment `book_number` read from its row, one per piece in piece
/// order (none for a row stored without one, as the benchmark loader's copies are).
fn booked_events(conn: &Read<'_>, customer_id: &str, book_number: &str) -> Result<Vec<crate::wire::TrackingEvent>> {
    conn.rows(
        "SELECT p.tracking_number, s.carrier_code, s.booked_event_time, s.booked_event_area, s.booked_event_country
         FROM shipments s JOIN shipment_pieces p ON p.customer_id = s.customer_id AND p.book_number = s.book_number
         WHERE s.customer_id = ?1 AND s.book_number = ?2 AND s.booked_event_time IS NOT NULL ORDER BY p.piece_index",
        args![customer_id, book_number],
        |r| {
            Ok(crate::wire::TrackingEvent {
                tracking_number: r.get(0)?,
                carrier: r.get(1)?,
                event: BOOKED_EVENT.to_string(),
                event_status: INFO_RECEIVED.to_string(),
                event_time: r.get(2)?,
                service_area: r.get(3)?,
                service_area_country: r.get(4)?,
            })
        },
    )
}

/// Whether two events are the same event: what the duplicate check compares.
fn same_event(a: &crate::wire::TrackingEvent, b: &crate::wire::TrackingEvent) -> bool {
    a.tracking_number == b.tracking_number
        && a.event_status == b.event_status
        && a.event_time == b.event_time
        && a.event == b.event
        && a.service_area == b.service_area
}

/// The tracking events of shipment `book_number`, newest first (4.6). Events of the same
/// time are listed latest recorded first; the booking's own first events were recorded
/// before any other.
pub(crate) fn events(conn: &Read<'_>, customer_id: &str, book_number: &str) -> Result<Vec<crate::wire::TrackingEvent>> {
    let mut rows = conn.rows(
        "SELECT tracking_number, carrier, event, event_status, event_time, service_area, service_area_country
         FROM tracking_events WHERE customer_id = ?1 AND book_number = ?2 ORDER BY event_time DESC, id DESC",
        args![customer_id, book_number],
        |r| {
            Ok(crate::wire::TrackingEvent {
                tracking_number: r.get(0)?,
                carrier: r.get(1)?,
                event: r.get(2)?,
                event_status: r.get(3)?,
                event_time: r.get(4)?,
                service_area: r.get(5)?,
                service_area_country: r.get(6)?,
            })
        },
    )?;
    // Each first event goes after the stored events of a later or the same time (they
    // were recorded after it), and the later pieces' first events before the earlier
    // (the last piece's is placed first, and each earlier one after it).
    for booked in booked_events(conn, customer_id, book_number)?.into_iter().rev() {
        let at = rows.iter().position(|e| e.event_time < booked.event_time).unwrap_or(rows.len());
        rows.insert(at, booked);
    }
    Ok(rows)
}

/// The carriers whose feed may report events for a shipment of `shipment_carrier`: its
/// own, and those its catalog entry names in `acceptsEventsOf` (the e-commerce carrier's
/// final-mile postal carrier, which delivers its packages under the same IMpb numbers).
pub(crate) fn accepted_carriers<'a>(catalog: &'a Catalog, shipment_carrier: &'a str) -> Vec<&'a str> {
    let mut accepted = vec![shipment_carrier];
    if let Some(carrier) = catalog.carrier(shipment_carrier) {
        accepted.extend(carrier.accepts_events_of.iter().map(String::as_str));
    }
    accepted
}

/// Checks one event's own fields (everything but which shipment it belongs to),
/// recording problems under `at` (e.g. `events[2]`). Returns the normalised event.
pub(crate) fn check_event(p: &mut crate::error::Problems, at: &str, e: &crate::wire::TrackingEvent) -> crate::wire::TrackingEvent {
    let field = |name: &str| crate::error::join_path(at, name);
    let event = e.event.trim();
    if event.is_empty() {
        p.push(field("event"), "must not be empty: describe the event");
    } else if event.chars().count() > 200 {
        p.push(field("event"), format!("must be at most 200 characters, found {}", event.chars().count()));
    }
    if !EVENT_STATUSES.contains(&e.event_status.as_str()) {
        p.push(field("eventStatus"), format!("expected one of {}, found {:?}", EVENT_STATUSES.join(", "), e.event_status));
    }
    let time = e.event_time.trim();
    if !is_event_time(time) {
        p.push(field("eventTime"), format!("expected a time as YYYY-MM-DD HH:MM:SS, found {:?}", e.event_time));
    }
    let area = e.service_area.trim();
    if area.chars().count() > 100 {
        p.push(field("serviceArea"), format!("must be at most 100 characters, found {}", area.chars().count()));
    }
    let country = e.service_area_country.trim().to_ascii_uppercase();
    if country.len() != 2 || crate::refdata::country(&country).is_none() {
        p.push(field("serviceAreaCountry"), format!("expected an ISO 3166-1 two-letter country code, found {:?}", e.service_area_country));
    }
    crate::wire::TrackingEvent {
        tracking_number: e.tracking_number.trim().to_string(),
        carrier: e.carrier.trim().to_string(),
        event: event.to_string(),
        event_status: e.event_status.clone(),
        event_time: time.to_string(),
        service_area: area.to_string(),
        service_area_country: country,
    }
}

/// Stores checked events of shipment `book_number`, and announces those it recorded: a
/// `tracking.updated` event, and `shipment.delivered` when one of them is a delivery of
/// the shipment (`return_number` is its return label's tracking number, whose delivery
/// is not the shipment's). An event already stored (same tracking number, status, time,
/// text and place) is a duplicate and ignored. Returns (recorded, duplicates).
fn store(
    tx: &Tx<'_>,
    customer_id: &str,
    book_number: &str,
    events: &[crate::wire::TrackingEvent],
    return_number: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(usize, usize)> {
    let new_events = insert_new(tx, customer_id, book_number, events)?;
    let recorded = new_events.len();
    if recorded > 0 {
        let delivered = new_events.iter().any(|e| e.event_status == DELIVERED && Some(e.tracking_number.as_str()) != return_number);
        let status = self::events(tx, customer_id, book_number)?.into_iter().next().map(|e| e.event_status).unwrap_or_default();
        let update = wire::TrackingUpdate { book_number: book_number.to_string(), status, new_events };
        let data = wire::to_json(&update)?;
        feed::append_json(tx, customer_id, feed::Type::TrackingUpdated, book_number, now, &data)?;
        if delivered {
            feed::append_json(tx, customer_id, feed::Type::ShipmentDelivered, book_number, now, &data)?;
        }
    }
    Ok((recorded, events.len() - recorded))
}

/// Stores checked events of shipment `book_number`, leaving out duplicates (same
/// tracking number, status, time, text and place as one stored); returns those stored.
fn insert_new(
    tx: &Tx<'_>,
    customer_id: &str,
    book_number: &str,
    events: &[crate::wire::TrackingEvent],
) -> Result<Vec<crate::wire::TrackingEvent>> {
    let booked = booked_events(tx, customer_id, book_number)?;
    let first_id = crate::store::next_ids(tx, EVENT_IDS, events.len())?;
    let mut stmt = tx.statement(
        "INSERT INTO tracking_events (id, book_number, tracking_number, carrier, event, event_status, event_time, service_area, service_area_country, customer_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT DO NOTHING",
    )?;
    let mut recorded = Vec::new();
    for (id, e) in (first_id..).zip(events) {
        if booked.iter().any(|b| same_event(b, e)) {
            continue;
        }
        let inserted = stmt.execute(args![
            id,
            book_number,
            e.tracking_number,
            e.carrier,
            e.event,
            e.event_status,
            e.event_time,
            e.service_area,
            e.service_area_country,
            customer_id
        ])?;
        if inserted > 0 {
            recorded.push(e.clone());
        }
    }
    Ok(recorded)
}

/// Records the events a carrier feed sends for `shipment` (DECISIONS 9), all or none;
/// events already stored are counted as duplicates. Events may be for the shipment's
/// pieces or its scan-based return label; the first for the return label charges it
/// (`now` dates the ledger entry).
///
/// # Errors
/// `NOT_FOUND` for an event whose tracking number is not one of the shipment's
/// (`events[i].trackingNumber`); `INVALID_REQUEST` for no events, a carrier that cannot
/// be tracked, a status outside 2.9, a time not `YYYY-MM-DD HH:MM:SS`, a country that is
/// not ISO, or a carrier other than the shipment's; `LIMIT_EXCEEDED` past
/// [`MAX_FEED_EVENTS`] events; `CONFLICT` for an event of the return label of a voided
/// shipment. Never `INSUFFICIENT_FUNDS`: a return the balance cannot pay is a debt.
pub(crate) fn record(
    tx: &Tx<'_>,
    catalog: &Catalog,
    customer_id: &str,
    shipment: &StoredShipment,
    events: &[wire::TrackingEvent],
    now: DateTime<Utc>,
) -> Result<wire::RecordTrackingEventsResponse> {
    let book_number = &shipment.view.book_number;
    if events.is_empty() {
        return Err(Error::invalid("events", "must hold at least one event"));
    }
    if events.len() > MAX_FEED_EVENTS {
        return Err(Error::fields(
            ErrorCategory::LimitExceeded,
            vec![FieldError {
                field: "events".into(),
                message: format!("at most {MAX_FEED_EVENTS} events per request, found {}", events.len()),
            }],
        ));
    }
    if !catalog.carrier(&shipment.carrier_code).is_some_and(|c| c.trackable) {
        return Err(Error::invalid("events", format!("shipments of carrier {} cannot be tracked", shipment.carrier_code)));
    }
    let accepted = accepted_carriers(catalog, &shipment.carrier_code);
    // The view names the return label's number: no query for shipments without one.
    let is_return = |tn: &str| shipment.view.return_tracking_number.as_deref() == Some(tn);
    let mut p = Problems::new();
    let mut unknown = Vec::new();
    let mut checked = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let at = format!("events[{i}]");
        let e = check_event(&mut p, &at, e);
        if is_return(&e.tracking_number) {
            crate::returns::refuse_if_voided(shipment.voided, book_number, &format!("{at}.trackingNumber"))?;
        } else if !shipment.view.tracking_numbers.contains(&e.tracking_number) {
            unknown.push(FieldError {
                field: format!("{at}.trackingNumber"),
                message: format!("{:?} is not a tracking number of shipment {book_number}", e.tracking_number),
            });
        }
        if !accepted.contains(&e.carrier.as_str()) {
            p.push(format!("{at}.carrier"), format!("expected {} (the shipment's carrier), found {:?}", accepted.join(" or "), e.carrier));
        }
        checked.push(e);
    }
    if !unknown.is_empty() {
        return Err(Error::fields(ErrorCategory::NotFound, unknown));
    }
    p.finish()?;
    let (recorded, duplicates) = store(tx, customer_id, book_number, &checked, shipment.view.return_tracking_number.as_deref(), now)?;
    if checked.iter().any(|e| is_return(&e.tracking_number)) {
        crate::returns::charge_first_use(tx, customer_id, book_number, now)?;
    }
    Ok(wire::RecordTrackingEventsResponse { recorded, duplicates })
}

/// Records one event that `carrier` reports for its `tracking_number`, found across all
/// customers as carriers key their data (a shipment is also found under the carriers
/// its carrier accepts events of, and the return labels of a carrier that prints them by
/// their own number). The first event of a return label charges it (`now` dates the
/// entry).
///
/// # Errors
/// `INVALID_REQUEST` for a carrier that cannot be tracked or an invalid event;
/// `NOT_FOUND` when no shipment of `carrier` has the tracking number; `CONFLICT` for the
/// return label of a voided shipment. Never `INSUFFICIENT_FUNDS`: a return the balance
/// cannot pay is a debt.
pub(crate) fn record_for_carrier(
    tx: &Tx<'_>,
    catalog: &Catalog,
    carrier: &str,
    tracking_number: &str,
    event: &wire::CarrierEvent,
    now: DateTime<Utc>,
) -> Result<wire::RecordTrackingEventsResponse> {
    let Some(feed) = catalog.carrier(carrier).filter(|c| c.trackable) else {
        return Err(Error::invalid("carrier", format!("expected a carrier whose shipments can be tracked, found {carrier:?}")));
    };
    // Carriers know a tracking number only: the lookup table finds the customers' pieces
    // that carry it, in key order (which the ORDER BY names, so that it costs no sort),
    // and each customer's shipment says its carrier.
    let candidates = tx.rows(
        "SELECT customer_id, book_number FROM tracking_numbers WHERE tracking_number = ?1
         ORDER BY customer_id, book_number, piece_index",
        args![tracking_number],
        |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?)),
    )?;
    let mut shipment = None;
    for (customer, book_number) in candidates {
        let carrier_code: Option<String> =
            tx.row("SELECT carrier_code FROM shipments WHERE customer_id = ?1 AND book_number = ?2", args![customer, book_number], |r| {
                r.get(0)
            })?;
        if carrier_code.is_some_and(|c| accepted_carriers(catalog, &c).contains(&carrier)) {
            shipment = Some((customer, book_number));
            break;
        }
    }
    // Return labels are scanned by the carriers that print them.
    let returned = match shipment {
        None if feed.scan_based_return_labels => crate::returns::owner(tx, tracking_number)?,
        _ => None,
    };
    let (customer_id, book_number) = shipment
        .or_else(|| returned.as_ref().map(|r| (r.customer_id.clone(), r.book_number.clone())))
        .ok_or_else(|| Error::new(ErrorCategory::NotFound, format!("No {carrier} shipment has tracking number {tracking_number:?}.")))?;
    // A return label's first event charges the customer.
    crate::store::lock_customer(tx, &customer_id)?;
    let full = wire::TrackingEvent {
        tracking_number: tracking_number.to_string(),
        carrier: carrier.to_string(),
        event: event.event.clone(),
        event_status: event.event_status.clone(),
        event_time: event.event_time.clone(),
        service_area: event.service_area.clone(),
        service_area_country: event.service_area_country.clone(),
    };
    let mut p = Problems::new();
    let checked = check_event(&mut p, "", &full);
    p.finish()?;
    if let Some(r) = &returned {
        crate::returns::refuse_if_voided(r.voided, &r.book_number, "trackingNumber")?;
    }
    let return_number = returned.as_ref().map(|_| tracking_number);
    let (recorded, duplicates) = store(tx, &customer_id, &book_number, &[checked], return_number, now)?;
    if returned.is_some() {
        crate::returns::charge_first_use(tx, &customer_id, &book_number, now)?;
    }
    Ok(wire::RecordTrackingEventsResponse { recorded, duplicates })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::wire::TrackingEvent;

    fn event(tracking_number: &str, status: &str, time: &str) -> TrackingEvent {
        TrackingEvent {
            tracking_number: tracking_number.into(),
            carrier: "postal".into(),
            event: format!("{status} at the depot"),
            event_status: status.into(),
            event_time: time.into(),
            service_area: "Philadelphia, PA".into(),
            service_area_country: "US".into(),
        }
    }

    #[test]
    fn event_times_are_exactly_the_shape() {
        assert!(is_event_time("2026-11-21 10:00:00"));
        for bad in ["+2026-1-05 10:00:00", "2026-11-21 1:00:000", "2026-11-21T10:00:00", "2026-11-31 10:00:00", "2026-11-21 24:00:00"] {
            assert!(!is_event_time(bad), "{bad}");
        }
        assert!(chrono::NaiveDateTime::parse_from_str("+2026-1-05 10:00:00", "%Y-%m-%d %H:%M:%S").is_ok(), "why the shape is checked");
    }

    /// Events stored in a database of the baseline schema (keyed by customer, shipment and
    /// the duplicate check) are listed after an upgrade, in the same order, and a repeat
    /// of one is still a duplicate.
    #[test]
    fn the_upgrade_keeps_events_and_their_duplicate_check() {
        let mut conn = crate::store::testing::with_customer(Some(1));
        conn.execute_batch(
            "INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family,
                tracking_number, shipment_date, zone, currency, total_amount, charged_cents, label_format, view, created_at)
             VALUES ('1000000001', 'C1', 'postal', 's', 'p', 'ground', 'T1', '2026-11-21', '8', 'USD', '1', 100, 'PDF', '{}', '');",
        )
        .unwrap();
        let old = [event("T1", "Info Received", "2026-11-21 10:00:00"), event("T1", "In Transit", "2026-11-22 08:00:00")];
        // stored as schema 1 stores them
        let tx = conn.transaction().unwrap();
        assert_eq!(insert_new(&crate::store::Tx::of(&tx), "C1", "1000000001", &old).unwrap(), old);
        tx.commit().unwrap();
        crate::store::migrate(&mut conn).unwrap();
        let listed = events(&crate::store::Read::of(&conn), "C1", "1000000001").unwrap();
        assert_eq!(listed, [old[1].clone(), old[0].clone()]);
        let tx = conn.transaction().unwrap();
        let newer = event("T1", "Delivered", "2026-11-23 09:00:00");
        assert_eq!(
            insert_new(&crate::store::Tx::of(&tx), "C1", "1000000001", &[old[1].clone(), newer.clone()]).unwrap(),
            std::slice::from_ref(&newer)
        );
        tx.commit().unwrap();
        assert_eq!(events(&crate::store::Read::of(&conn), "C1", "1000000001").unwrap(), [newer, old[1].clone(), old[0].clone()]);
        // one B-tree, keyed by the customer, the shipment and the duplicate check
        let btrees: i64 = conn
            .query_row("SELECT count(DISTINCT rootpage) FROM sqlite_schema WHERE tbl_name = 'tracking_events'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(btrees, 1);
        let plan: String = conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT event FROM tracking_events WHERE customer_id = ?1 AND book_number = ?2
                 ORDER BY event_time DESC, id DESC",
                ["C1", "1000000001"],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("PRIMARY KEY (customer_id=? AND book_number=?)"), "{plan}");
    }

    /// A booking's first events come from its shipment row: listed after the
    /// stored events of the same time, the last piece's first, and a feed's repeat of one
    /// is a duplicate.
    #[test]
    fn first_events_are_read_from_the_shipment() {
        let mut conn = crate::store::testing::with_customer(None);
        conn.execute_batch(
            "INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family,
                tracking_number, shipment_date, zone, currency, total_amount, charged_cents, label_format, view, created_at,
                booked_event_time, booked_event_area, booked_event_country)
             VALUES ('1000000001', 'C1', 'postal', 's', 'p', 'ground', 'T1', '2026-11-21', '8', 'USD', '1', 100, 'PDF', '{}', '',
                '2026-11-21 10:00:00', 'Philadelphia, PA', 'US');
             INSERT INTO shipment_pieces (customer_id, book_number, piece_index, tracking_number, shipping_cost)
             VALUES ('C1', '1000000001', 0, 'T1', '1'), ('C1', '1000000001', 1, 'T2', '1');",
        )
        .unwrap();
        let booked = |tn: &str| crate::wire::TrackingEvent {
            tracking_number: tn.into(),
            carrier: "postal".into(),
            event: BOOKED_EVENT.into(),
            event_status: "Info Received".into(),
            event_time: "2026-11-21 10:00:00".into(),
            service_area: "Philadelphia, PA".into(),
            service_area_country: "US".into(),
        };
        assert_eq!(events(&crate::store::Read::of(&conn), "C1", "1000000001").unwrap(), [booked("T2"), booked("T1")]);
        let same_time = event("T1", "In Transit", "2026-11-21 10:00:00");
        let later = event("T2", "Delivered", "2026-11-22 09:00:00");
        let earlier = event("T1", "Exception", "2026-11-20 09:00:00");
        let tx = conn.transaction().unwrap();
        let sent = [booked("T1"), same_time.clone(), later.clone(), booked("T2"), earlier.clone()];
        let now = chrono::TimeZone::with_ymd_and_hms(&Utc, 2026, 11, 22, 10, 0, 0).unwrap();
        let counted = store(&crate::store::Tx::of(&tx), "C1", "1000000001", &sent, None, now).unwrap();
        assert_eq!(counted, (3, 2), "the first events are there already");
        tx.commit().unwrap();
        assert_eq!(
            events(&crate::store::Read::of(&conn), "C1", "1000000001").unwrap(),
            [later, same_time, booked("T2"), booked("T1"), earlier]
        );
        let stored: i64 = conn.query_row("SELECT count(*) FROM tracking_events", [], |r| r.get(0)).unwrap();
        assert_eq!(stored, 3);
    }
}
