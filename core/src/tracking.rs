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

/// Records the first event of a booking: `Info Received` for every piece, at the sender.
pub(crate) fn record_booked(
    tx: &Transaction,
    book_number: &str,
    carrier: &str,
    tracking_numbers: &[String],
    sender: &Address,
    now: DateTime<Utc>,
) -> Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO tracking_events (book_number, tracking_number, carrier, event, event_status, event_time, service_area, service_area_country)
         VALUES (?1, ?2, ?3, ?4, 'Info Received', ?5, ?6, ?7)",
    )?;
    let area = if sender.state.is_empty() { sender.city.clone() } else { format!("{}, {}", sender.city, sender.state) };
    for tn in tracking_numbers {
        stmt.execute(rusqlite::params![
            book_number,
            tn,
            carrier,
            "Shipment information received; label created",
            event_time(now),
            area,
            sender.country
        ])?;
    }
    Ok(())
}
