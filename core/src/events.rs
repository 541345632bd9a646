//! The event feed: what changed in a customer's data, appended in the transaction of
//! the change, read back a page at a time.
//!
//! Every operation that changes a customer's data appends its events ([`append`]) in
//! its own transaction (a savepoint of it in a group commit), so an event exists if and
//! only if its change committed. Events are numbered per customer from 1, in commit
//! order (`store::event_log` says how), and carry the subject's view after the change,
//! the JSON its retrieve route answers. Quotes are not events.
//!
//! A reader pages with a cursor ([`page`]): the number of the last event it has, `0`
//! for none; `nextCursor` is where the next page starts. Events are kept
//! [`KEPT_DAYS`] days ([`purge`]); a cursor whose next events were purged is `GONE`
//! (410), naming the oldest cursor kept, so that a reader that fell behind learns it
//! missed events rather than silently skipping them.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::dates::timestamp;
use crate::error::{Error, ErrorCategory, Result};
use crate::store::{args, event_log, Read, Tx};
use crate::wire;

/// The kinds of event, in the order of [`TYPES`]. An event stores its type's bit
/// (`1 << place`), which the type filter tests: never reorder them, add new ones last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    /// A shipment was booked; data: the shipment (retrieve shipment).
    ShipmentBooked,
    /// A shipment was voided; data: the shipment.
    ShipmentVoided,
    /// Tracking events were recorded; data: [`wire::TrackingUpdate`].
    TrackingUpdated,
    /// A shipment was delivered; data: [`wire::TrackingUpdate`].
    ShipmentDelivered,
    /// A scan-based return label was used and charged; data: [`wire::ReturnLabelUse`].
    ReturnLabelUsed,
    /// A batch was booked; data: the batch (get batch).
    BatchBooked,
    /// A pickup was scheduled; data: the pickup (get pickup).
    PickupScheduled,
    /// A pickup was cancelled; data: the pickup.
    PickupCancelled,
    /// A manifest was created; data: the manifest (get manifest).
    ManifestCreated,
    /// An order was created; data: the order (get order).
    OrderCreated,
    /// An order was replaced; data: the order.
    OrderUpdated,
    /// An order's fulfilment status changed (a booking fulfilled it, a void undid it);
    /// data: the order.
    OrderStatusChanged,
    /// An order was deleted; data: the order as it was.
    OrderDeleted,
    /// The prepay balance was charged; data: the ledger entry.
    PrepayCharged,
    /// The prepay balance was recharged; data: the ledger entry.
    PrepayRecharged,
    /// A charge was refunded to the prepay balance; data: the ledger entry.
    PrepayRefunded,
    /// A webhook endpoint was disabled after its last retry failed; data: the endpoint
    /// (get webhook).
    #[cfg_attr(not(feature = "webhooks"), expect(dead_code, reason = "only webhooks disable themselves"))]
    WebhookDisabled,
}

/// The name of every event type, in the order of the kinds of event (`events::Type`).
pub const TYPES: [&str; 17] = [
    "shipment.booked",
    "shipment.voided",
    "tracking.updated",
    "shipment.delivered",
    "return_label.used",
    "batch.booked",
    "pickup.scheduled",
    "pickup.cancelled",
    "manifest.created",
    "order.created",
    "order.updated",
    "order.status_changed",
    "order.deleted",
    "prepay.charged",
    "prepay.recharged",
    "prepay.refunded",
    "webhook.disabled",
];

/// Days an event is kept: the purge removes older ones (except each customer's newest).
pub const KEPT_DAYS: u32 = 90;

/// Most events a page holds (`limit`); 100 when the reader names none.
pub const MAX_PAGE: i64 = 1000;

/// Events a page holds when the reader names no `limit`.
const DEFAULT_PAGE: i64 = 100;

/// Most bytes of `data` a page holds: a page ends before the event that would pass it
/// (it holds at least one event), so that a page of manifests, which carry their PDF,
/// stays a few megabytes.
pub const MAX_PAGE_BYTES: usize = 4 * 1024 * 1024;

/// Most events a page with a type filter reads: past them, the page ends there, with
/// the events that matched (perhaps none) and a cursor after what it read, so that a
/// filter matching nothing costs a bounded read per page.
pub const MAX_SCANNED: i64 = 10_000;

impl Type {
    /// The type's name, as events show it.
    pub(crate) fn name(self) -> &'static str {
        TYPES[self as usize]
    }

    /// The type's bit, as events store it.
    pub(crate) fn bit(self) -> i64 {
        1 << self as u32
    }
}

/// Appends an event of `kind` about `subject_id` at `now`, with `data` as its JSON, to
/// `customer_id`'s feed.
///
/// # Errors
/// A storage failure.
pub(crate) fn append_json(tx: &Tx<'_>, customer_id: &str, kind: Type, subject_id: &str, now: DateTime<Utc>, data: &str) -> Result<()> {
    event_log::append(tx, customer_id, kind.name(), kind.bit(), subject_id, &timestamp(now), data)
}

/// Appends an event of `kind` about `subject_id` at `now`, with `data` written as its
/// JSON, to `customer_id`'s feed.
///
/// # Errors
/// A storage failure.
pub(crate) fn append(
    tx: &Tx<'_>,
    customer_id: &str,
    kind: Type,
    subject_id: &str,
    now: DateTime<Utc>,
    data: &impl Serialize,
) -> Result<()> {
    append_json(tx, customer_id, kind, subject_id, now, &wire::to_json(data)?)
}

/// The type filter of `types`, a comma-separated list of type names and of `prefix.*`
/// (every type of the prefix): the bits of the types it names. `None` (every type) when
/// `types` is empty.
///
/// # Errors
/// `INVALID_REQUEST` on `types` naming what matches no type.
pub(crate) fn filter(types: &str) -> Result<Option<i64>> {
    let mut bits = 0;
    for name in types.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let matched = match name.strip_suffix(".*") {
            Some(prefix) => TYPES.iter().enumerate().filter(|(_, t)| t.split('.').next() == Some(prefix)).fold(0, |b, (i, _)| b | 1 << i),
            None => TYPES.iter().position(|t| *t == name).map_or(0, |i| 1 << i),
        };
        if matched == 0 {
            let shown: String = name.chars().take(60).collect();
            return Err(Error::invalid(
                "types",
                format!("{shown:?} is no event type; expected names such as shipment.booked, or shipment.*"),
            ));
        }
        bits |= matched;
    }
    Ok((bits != 0).then_some(bits))
}

/// The cursor `after` as sent: a whole number from 0.
///
/// # Errors
/// `INVALID_REQUEST` on `after` for anything else.
pub(crate) fn cursor(after: &str) -> Result<i64> {
    after.parse::<i64>().ok().filter(|n| *n >= 0 && after.bytes().all(|b| b.is_ascii_digit())).ok_or_else(|| {
        Error::invalid(
            "after",
            format!("expected a cursor (a whole number from 0), found {:?}", after.chars().take(40).collect::<String>()),
        )
    })
}

/// The page's size as asked (`limit`): 1 to [`MAX_PAGE`], [`DEFAULT_PAGE`] when `None`.
///
/// # Errors
/// `INVALID_REQUEST` on `limit` outside 1 to [`MAX_PAGE`].
pub(crate) fn page_size(limit: Option<i64>) -> Result<i64> {
    match limit {
        None => Ok(DEFAULT_PAGE),
        Some(n) if (1..=MAX_PAGE).contains(&n) => Ok(n),
        Some(n) => Err(Error::invalid("limit", format!("expected a whole number from 1 to {MAX_PAGE}, found {n}"))),
    }
}

/// The events of `customer_id` after the cursor `after` (from the oldest kept when
/// `None`), of the types of `types` (every type when `None`, see [`filter`]), at most
/// `limit` of them, oldest first.
///
/// # Errors
/// `GONE` when events after `after` were purged, naming the oldest cursor kept;
/// `INVALID_REQUEST` on `after` when it is past the customer's newest event.
pub(crate) fn page(conn: &Read<'_>, customer_id: &str, after: Option<i64>, types: Option<i64>, limit: i64) -> Result<wire::EventsResponse> {
    let (oldest, newest): (Option<i64>, Option<i64>) =
        conn.one("SELECT MIN(id), MAX(id) FROM events WHERE customer_id = ?1", args![customer_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let (oldest_cursor, newest) = (oldest.map_or(0, |id| id - 1), newest.unwrap_or(0));
    let after = after.unwrap_or(oldest_cursor);
    if after > newest {
        return Err(Error::invalid("after", format!("the cursor {after} is past the newest event, {newest}")));
    }
    if after < oldest_cursor {
        return Err(Error::new(
            ErrorCategory::Gone,
            format!(
                "The events after cursor {after} are no longer kept (events are kept {KEPT_DAYS} days); the oldest cursor kept is {oldest_cursor}."
            ),
        ));
    }
    // A filtered page reads at most MAX_SCANNED events; `read_to` is the last it may read.
    let read_to = match types {
        Some(_) => after.saturating_add(MAX_SCANNED).min(newest),
        None => newest,
    };
    let mut bytes = 0;
    let mut events = Vec::new();
    let mut full = false;
    conn.query(
        "SELECT id, type, subject_id, created_at, data FROM events
         WHERE customer_id = ?1 AND id > ?2 AND id <= ?3 AND type_bit & ?4 <> 0 ORDER BY id LIMIT ?5",
    )?
    .each(args![customer_id, after, read_to, types.unwrap_or(-1), limit], |r| {
        if full {
            return Ok(());
        }
        let data = r.get::<String>(4)?;
        bytes += data.len();
        if bytes > MAX_PAGE_BYTES && !events.is_empty() {
            full = true;
            return Ok(());
        }
        let data = RawValue::from_string(data)
            .map_err(|e| Error::internal(format!("the stored data of an event is not JSON: {e}")).with_source(e))?;
        events.push(wire::Event { id: r.get(0)?, kind: r.get(1)?, subject_id: r.get(2)?, created_at: r.get(3)?, data });
        Ok(())
    })?;
    // A page cut short (by `limit` or the bytes) ends at its last event; one that read
    // everything up to `read_to` ends there, matching or not.
    let next = match events.last() {
        Some(last) if full || events.len() as i64 == limit => last.id,
        _ => read_to,
    };
    Ok(wire::EventsResponse { events, next_cursor: next.to_string(), has_more: next < newest })
}

/// Removes at most `at_most` events older than [`KEPT_DAYS`] days at `now`, the oldest
/// first (never a customer's newest, which numbers the next); returns how many.
///
/// # Errors
/// A storage failure.
pub(crate) fn purge(tx: &Tx<'_>, now: DateTime<Utc>, at_most: u32) -> Result<u64> {
    event_log::purge(tx, &timestamp(now - chrono::Duration::days(i64::from(KEPT_DAYS))), at_most)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page filtered by type reads at most [`MAX_SCANNED`] events: past them it ends
    /// with what matched and a cursor after what it read, so that a reader pages on.
    #[test]
    fn a_filtered_page_reads_a_bounded_number_of_events() {
        let conn = crate::store::testing::with_customer(None);
        let row = |id: i64, kind: Type| {
            conn.execute(
                "INSERT INTO events (customer_id, id, type, type_bit, subject_id, created_at, data) VALUES ('C1', ?1, ?2, ?3, 'S', '', '{}')",
                rusqlite::params![id, kind.name(), kind.bit()],
            )
            .unwrap();
        };
        let last = MAX_SCANNED + 50;
        for id in 1..=last {
            row(id, if id == last { Type::PickupScheduled } else { Type::PrepayCharged });
        }
        let read = crate::store::Read::of(&conn);
        let pickups = filter("pickup.*").unwrap();
        let first = page(&read, "C1", Some(0), pickups, 10).unwrap();
        assert!(first.events.is_empty());
        assert_eq!((first.next_cursor.as_str(), first.has_more), (MAX_SCANNED.to_string().as_str(), true));
        let second = page(&read, "C1", Some(MAX_SCANNED), pickups, 10).unwrap();
        assert_eq!(second.events.iter().map(|e| e.id).collect::<Vec<_>>(), [last]);
        assert_eq!((second.next_cursor, second.has_more), (last.to_string(), false));
        // Unfiltered, a page ends at its limit.
        let all = page(&read, "C1", None, None, 3).unwrap();
        assert_eq!((all.events.len(), all.next_cursor.as_str(), all.has_more), (3, "3", true));
    }

    /// Names and prefixes each give their types' bits; what matches no type is refused.
    #[test]
    fn the_type_filter_reads_names_and_prefixes() {
        let bit = |t: Type| t.bit();
        assert_eq!(filter("").unwrap(), None);
        assert_eq!(filter(" , ").unwrap(), None);
        assert_eq!(filter("pickup.*").unwrap(), Some(bit(Type::PickupScheduled) | bit(Type::PickupCancelled)));
        assert_eq!(filter("order.deleted, shipment.booked").unwrap(), Some(bit(Type::OrderDeleted) | bit(Type::ShipmentBooked)));
        for bad in ["order", "order.*.*", "*", "ORDER.DELETED", "prepay.charged,x"] {
            assert_eq!(filter(bad).unwrap_err().details()[0].field, "types", "{bad}");
        }
        for (i, name) in TYPES.iter().enumerate() {
            assert_eq!(filter(name).unwrap(), Some(1 << i));
        }
    }
}
