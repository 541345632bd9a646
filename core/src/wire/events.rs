//! The event feed's types: an event, a page of them, and the data of the events that
//! have no retrieve route of their own.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::TrackingEvent;

/// One event of a customer's feed (`GET .../events`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The event's number in the customer's feed, from 1, in commit order.
    pub id: i64,
    /// The event's type: one of `consign::EVENT_TYPES`, such as `shipment.booked`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The id of what changed: a book number, a batch, pickup or manifest id,
    /// `<integrationId>/<orderId>` for an order, a ledger entry id for prepay events.
    pub subject_id: String,
    /// When the change committed, by the service's clock (RFC 3339, UTC).
    pub created_at: String,
    /// What changed, after the change: the JSON its retrieve route answers (the
    /// shipment, batch, pickup, manifest, order or ledger entry), or for tracking and
    /// return label events a [`TrackingUpdate`] or [`ReturnLabelUse`].
    #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
    pub data: Box<RawValue>,
}

/// An event of a commit, as `ShippingBuilder::on_commit` gives it: the customer whose
/// feed holds it, and the event as the feed shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CommittedEvent {
    /// The customer whose feed holds the event.
    pub customer_id: String,
    /// The event.
    pub event: Event,
}

/// A page of events (`GET .../events?after=&limit=&types=`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EventsResponse {
    /// The events after the cursor, oldest first.
    pub events: Vec<Event>,
    /// The cursor of the next page: send it as `after`.
    pub next_cursor: String,
    /// Whether events after `nextCursor` exist now (more may come at any time).
    pub has_more: bool,
}

/// The data of `tracking.updated` and `shipment.delivered`: the events just recorded
/// and where the shipment stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TrackingUpdate {
    /// The shipment's book number.
    pub book_number: String,
    /// The status of the shipment's latest event (as trackShipment lists them, first).
    pub status: String,
    /// The events recorded by this change (duplicates left out), as trackShipment shows them.
    pub new_events: Vec<TrackingEvent>,
}

/// The data of `return_label.used`: a scan-based return label's first scan, and its charge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReturnLabelUse {
    /// The shipment's book number.
    pub book_number: String,
    /// The return label's tracking number.
    pub return_tracking_number: String,
    /// What the return cost, charged to the prepay balance (USD, 2 decimals).
    pub charge: String,
    /// The prepay balance after the charge (USD, 2 decimals; negative for a debt).
    pub balance_after: String,
    /// When the label was first scanned (RFC 3339, UTC).
    pub used_at: String,
}
