//! Search (4.3), tracking (4.6) and its carrier feed, pickups (4.7), manifests (4.10)
//! and orders (4.2).

use serde::{Deserialize, Serialize};

use super::bounded;
use super::numbers::{Dec, Int};
use super::WireAddress;
use crate::limits::{MAX_FEED_EVENTS, MAX_ORDER_LINES, MAX_SHIPMENTS};

/// Body of `POST .../searchShipments` (4.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SearchShipmentsRequest {
    /// Matched, case-insensitively and as a substring, on names, companies, phones,
    /// e-mails, tracking numbers, order ids, book number, order number and references.
    pub keyword: String,
}

/// One tracking event (4.6); also the shape a carrier feed posts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TrackingEvent {
    /// The piece's tracking number.
    pub tracking_number: String,
    /// Carrier code.
    pub carrier: String,
    /// Free text.
    pub event: String,
    /// One of the nine values of 2.9, e.g. `In Transit`.
    #[cfg_attr(feature = "typescript", ts(type = "EventStatus"))]
    pub event_status: String,
    /// `YYYY-MM-DD HH:MM:SS`.
    pub event_time: String,
    /// Location name; may be empty.
    pub service_area: String,
    /// ISO two-letter country code.
    pub service_area_country: String,
}

/// One event as a carrier reports it for a tracking number it names separately
/// ([`crate::Shipping::record_tracking_event`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CarrierEvent {
    /// Free text.
    pub event: String,
    /// One of the nine values of 2.9.
    pub event_status: String,
    /// `YYYY-MM-DD HH:MM:SS`.
    pub event_time: String,
    /// Location name; may be empty.
    pub service_area: String,
    /// ISO two-letter country code.
    pub service_area_country: String,
}

/// Body of `POST .../shipments/:bookNumber/tracking-events` (DECISIONS 9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RecordTrackingEventsRequest {
    /// The events, in the shape of 4.6; at most 1000.
    #[serde(deserialize_with = "bounded::at_most::<_, _, MAX_FEED_EVENTS>")]
    pub events: Vec<TrackingEvent>,
}

/// Answer of recording tracking events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RecordTrackingEventsResponse {
    /// Events stored now.
    pub recorded: usize,
    /// Events already stored before (or repeated in the request), ignored.
    pub duplicates: usize,
}

/// Body of `POST .../pickups` (4.7): the pickup address fields are flat.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct SchedulePickupRequest {
    /// Carrier of every shipment listed.
    pub carrier_code: String,
    /// `YYYY-MM-DD`, today or later.
    pub pickup_date: String,
    /// `HH:MM:SS`, start of the window.
    pub ready_time: String,
    /// `HH:MM:SS`, end of the window, after `readyTime`.
    pub close_time: String,
    /// The shipments to pick up.
    #[serde(deserialize_with = "bounded::at_most::<_, _, MAX_SHIPMENTS>")]
    pub book_numbers: Vec<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub company: Option<String>,
    #[serde(default)]
    pub address1: Option<String>,
    #[serde(default)]
    pub address2: Option<String>,
    #[serde(default)]
    pub city: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub zip: Option<String>,
    #[serde(default)]
    pub country: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    /// The pickup address is residential.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residential: Option<bool>,
    /// For the driver.
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub special_instructions: Option<String>,
    /// Where the packages wait (carrier C only).
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub package_location: Option<String>,
}

/// Answer of schedule pickup (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PickupIdResponse {
    /// The new pickup's id.
    pub pickup_id: String,
}

/// Body of cancel pickup: `{"cancelled": true}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CancelPickupRequest {
    /// Must be true.
    pub cancelled: bool,
}

/// A scheduled pickup, as `GET .../pickups/:pickupId` and cancel show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Pickup {
    /// Its id.
    pub pickup_id: String,
    /// Carrier.
    pub carrier_code: String,
    /// Day of the pickup.
    pub pickup_date: String,
    /// Start of the window.
    pub ready_time: String,
    /// End of the window.
    pub close_time: String,
    /// The shipments.
    pub book_numbers: Vec<String>,
    /// Where.
    #[cfg_attr(feature = "typescript", ts(type = "ViewAddress"))]
    pub address: super::Address,
    /// Residential pickup address.
    pub residential: bool,
    /// For the driver.
    pub special_instructions: Option<String>,
    /// Where the packages wait (carrier C).
    pub package_location: Option<String>,
    /// True once cancelled.
    pub cancelled: bool,
}

/// Body of `POST .../manifest` (4.10): the sender address fields are flat.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct CreateManifestRequest {
    /// Carrier of every shipment listed.
    pub carrier_code: String,
    /// The shipments; each may be on one manifest only.
    #[serde(deserialize_with = "bounded::at_most::<_, _, MAX_SHIPMENTS>")]
    pub book_numbers: Vec<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub company: Option<String>,
    #[serde(default)]
    pub address1: Option<String>,
    #[serde(default)]
    pub address2: Option<String>,
    #[serde(default)]
    pub city: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub zip: Option<String>,
    #[serde(default)]
    pub country: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
}

/// Answer of create manifest (201) and of `GET .../manifest/:manifestId`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ManifestResponse {
    /// The manifest's id.
    pub manifest_id: String,
    /// The data type of `data`: `application/pdf`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The document, base64.
    pub data: String,
    /// Extension: the shipments on it, in order.
    pub book_numbers: Vec<String>,
}

/// Body of `PUT .../integrations/:integrationId/orders/:orderId` (4.2), and the order as
/// `GET` shows it. The spec marks the nullable keys required; clients leave out those
/// whose value is null, so a missing nullable key reads as null (DECISIONS 1). The keys
/// whose value may not be null stay required.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct Order {
    /// Must equal `:orderId`.
    pub order_id: String,
    /// `YYYY-MM-DD` (a full RFC 3339 time is accepted).
    pub order_date: String,
    /// Invoice number, or null.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub order_number: Option<String>,
    /// `pending`, `fulfilled` or `partial`.
    pub fulfillment_status: String,
    /// Shipping service name, or null.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub shipping_service: Option<String>,
    /// Label reference; defaults to the order number, else the order id.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub shipper_reference: Option<String>,
    /// Second reference.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub shipper_reference2: Option<String>,
    /// What the order holds.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub content_description: Option<String>,
    /// What the buyer paid for shipping, or null.
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub shipping_total: Option<Dec>,
    /// `lb`, `kg` or null.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub weight_unit: Option<String>,
    /// `in`, `cm` or null.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub dim_unit: Option<String>,
    /// `YYYY-MM-DD` or null.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub due_by_date: Option<String>,
    /// Order group or null.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub order_group: Option<String>,
    /// Ship from: name, address1, city, state, zip, country required.
    pub sender: WireAddress,
    /// Where returns go; every field optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_to: Option<WireAddress>,
    /// Ship to: name, address1, city, state, zip, country required.
    pub receiver: WireAddress,
    /// Order lines, or null.
    #[serde(default, deserialize_with = "bounded::opt_at_most::<_, _, MAX_ORDER_LINES>")]
    pub items: Option<Vec<OrderItem>>,
    /// Precalculated packages, or null.
    #[serde(default, deserialize_with = "bounded::opt_at_most::<_, _, MAX_ORDER_LINES>")]
    pub packages: Option<Vec<OrderPackage>>,
}

/// An order line (4.2 `items[n]`); every field optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct OrderItem {
    #[serde(default)]
    pub product_id: Option<String>,
    #[serde(default)]
    pub sku: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// Per-unit price.
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub price: Option<Dec>,
    /// Units ordered (1 when absent).
    #[serde(default, deserialize_with = "super::numbers::opt_int")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "number | string | null"))]
    pub quantity: Option<Int>,
    /// Per-unit weight in the order's `weightUnit`.
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub weight: Option<Dec>,
    #[serde(default)]
    pub img_url: Option<String>,
    #[serde(default)]
    pub hts_number: Option<String>,
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub country_of_origin: Option<String>,
    #[serde(default)]
    pub line_id: Option<String>,
    #[serde(default)]
    pub pick_location: Option<String>,
}

/// A precalculated package (4.2 `packages[n]`); every field optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct OrderPackage {
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub weight: Option<Dec>,
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub length: Option<Dec>,
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub width: Option<Dec>,
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub height: Option<Dec>,
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub insurance_amount: Option<Dec>,
    #[serde(default, deserialize_with = "super::numbers::opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub declared_value: Option<Dec>,
}
