//! Tracking events (4.6, 2.9): what carriers report about a booked shipment.

use chrono::{DateTime, Utc};
use rusqlite::Transaction;

use crate::address::Address;
use crate::error::Result;

/// The closed list of `eventStatus` values (2.9), spelled as the interface spells them.
pub const EVENT_STATUSES: [&str; 9] = [
    "Info Received",
    "In Transit",
    "Out for Delivery",
    "Delivery Arragned",
    "With Delivery Courier",
    "Delivered to Broker",
    "Failed Attempt",
    "Delivered",
    "Exception",
];

/// `YYYY-MM-DD HH:MM:SS`, the event time format of 4.6.
pub(crate) fn event_time(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// The `id_sequences` row that numbers tracking events in the order they are recorded.
const EVENT_IDS: &str = "tracking_event";

/// Records the first event of a booking: `Info Received` for every piece, at the sender.
pub(crate) fn record_booked(
    tx: &Transaction,
    book_number: &str,
    carrier: &str,
    tracking_numbers: &[String],
    sender: &Address,
    now: DateTime<Utc>,
) -> Result<()> {
    let first_id = crate::store::next_ids(tx, EVENT_IDS, tracking_numbers.len())?;
    let mut stmt = tx.prepare_cached(
        "INSERT INTO tracking_events (id, book_number, tracking_number, carrier, event, event_status, event_time, service_area, service_area_country)
         VALUES (?1, ?2, ?3, ?4, ?5, 'Info Received', ?6, ?7, ?8)",
    )?;
    let area = if sender.state.is_empty() { sender.city.to_string() } else { format!("{}, {}", sender.city, sender.state) };
    for (id, tn) in (first_id..).zip(tracking_numbers) {
        stmt.execute(rusqlite::params![
            id,
            book_number,
            tn,
            carrier,
            "Shipment information received; label created",
            event_time(now),
            area,
            sender.country.as_str()
        ])?;
    }
    Ok(())
}

/// Most events one feed request may carry.
pub const MAX_FEED_EVENTS: usize = 1000;

/// The tracking events of shipment `book_number`, newest first (4.6). Events of the same
/// time are listed latest recorded first.
pub(crate) fn events(conn: &rusqlite::Connection, book_number: &str) -> Result<Vec<crate::wire::TrackingEvent>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tracking_number, carrier, event, event_status, event_time, service_area, service_area_country
         FROM tracking_events WHERE book_number = ?1 ORDER BY event_time DESC, id DESC",
    )?;
    let rows = stmt
        .query_map([book_number], |r| {
            Ok(crate::wire::TrackingEvent {
                tracking_number: r.get("tracking_number")?,
                carrier: r.get("carrier")?,
                event: r.get("event")?,
                event_status: r.get("event_status")?,
                event_time: r.get("event_time")?,
                service_area: r.get("service_area")?,
                service_area_country: r.get("service_area_country")?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The carriers whose feed may report events for a shipment of `shipment_carrier`: its
/// own, and for the e-commerce carrier also the postal carrier, which delivers its
/// packages on the final mile under the same IMpb numbers.
pub(crate) fn accepted_carriers(shipment_carrier: &str) -> Vec<&str> {
    if shipment_carrier == "ecommerce" {
        vec!["ecommerce", "postal"]
    } else {
        vec![shipment_carrier]
    }
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
    if time.len() != 19 || chrono::NaiveDateTime::parse_from_str(time, "%Y-%m-%d %H:%M:%S").is_err() {
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

/// Stores checked events of shipment `book_number`; an event already stored (same
/// tracking number, status, time, text and place) is a duplicate and ignored. Returns
/// (recorded, duplicates).
pub(crate) fn store(tx: &Transaction, book_number: &str, events: &[crate::wire::TrackingEvent]) -> Result<(usize, usize)> {
    let first_id = crate::store::next_ids(tx, EVENT_IDS, events.len())?;
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO tracking_events (id, book_number, tracking_number, carrier, event, event_status, event_time, service_area, service_area_country)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let mut recorded = 0;
    for (id, e) in (first_id..).zip(events) {
        recorded += stmt.execute(rusqlite::params![
            id,
            book_number,
            e.tracking_number,
            e.carrier,
            e.event,
            e.event_status,
            e.event_time,
            e.service_area,
            e.service_area_country
        ])?;
    }
    Ok((recorded, events.len() - recorded))
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

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

    /// Events stored under schema 7 (duplicate check keyed by tracking number) are listed
    /// after the upgrades to schemas 8 and 11, in the same order, and a repeat of one is
    /// still a duplicate.
    #[test]
    fn the_upgrade_keeps_events_and_their_duplicate_check() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::store::configure(&conn).unwrap();
        crate::store::migrate_to(&mut conn, 7).unwrap();
        conn.execute_batch(
            "INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
                minimum_balance_cents, recharge_amount_cents, created_at) VALUES ('C1', 'a', 'a', '', 'Default', '{}', '{}', 0, 0, '');
             INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family,
                tracking_number, shipment_date, zone, currency, total_amount, charged_cents, label_format, view, created_at)
             VALUES ('1000000001', 'C1', 'postal', 's', 'p', 'ground', 'T1', '2026-11-21', '8', 'USD', '1', 100, 'PDF', '{}', '');",
        )
        .unwrap();
        let old = [event("T1", "Info Received", "2026-11-21 10:00:00"), event("T1", "In Transit", "2026-11-22 08:00:00")];
        {
            let tx = conn.transaction().unwrap();
            assert_eq!(store(&tx, "1000000001", &old).unwrap(), (2, 0));
            tx.commit().unwrap();
        }
        crate::store::migrate(&mut conn).unwrap();
        let listed = events(&conn, "1000000001").unwrap();
        assert_eq!(listed, [old[1].clone(), old[0].clone()]);
        let tx = conn.transaction().unwrap();
        let newer = event("T1", "Delivered", "2026-11-23 09:00:00");
        assert_eq!(store(&tx, "1000000001", &[old[1].clone(), newer.clone()]).unwrap(), (1, 1));
        tx.commit().unwrap();
        assert_eq!(events(&conn, "1000000001").unwrap(), [newer, old[1].clone(), old[0].clone()]);
        // one B-tree, keyed by the duplicate check (schema 11)
        let btrees: i64 = conn
            .query_row("SELECT count(DISTINCT rootpage) FROM sqlite_schema WHERE tbl_name = 'tracking_events'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(btrees, 1);
        let plan: String = conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT event FROM tracking_events WHERE book_number = ?1 ORDER BY event_time DESC, id DESC",
                ["1000000001"],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("PRIMARY KEY (book_number=?)"), "{plan}");
    }
}
