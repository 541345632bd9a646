//! Book shipment (4.5), the booked shipment as search and retrieve show it (4.3), void,
//! labels, and batches (DECISIONS 9).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::bounded;
use super::numbers::{Dec, Int};
use super::quotes::{Billing, CommercialInvoice};
use super::WireAddress;
use crate::limits::{MAX_BATCH_QUOTES, MAX_ORDER_LINES, MAX_PIECES};

/// Body of `POST .../shipments` (4.5), with the extensions of DECISIONS 6.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct BookShipmentRequest {
    /// Carrier code.
    pub carrier_code: String,
    /// Service code.
    pub service_code: String,
    /// Package type code.
    pub package_type_code: String,
    /// `YYYY-MM-DD`.
    pub shipment_date: String,
    /// Reference, e.g. an invoice number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipment_reference: Option<String>,
    /// Second reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipment_reference2: Option<String>,
    /// What the shipment holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_description: Option<String>,
    /// Carrier-specific content type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Invoice number of the order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_number: Option<String>,
    /// Ship from; every field required, zip may be null.
    pub sender: WireAddress,
    /// Ship to; every field required, zip may be null.
    pub receiver: WireAddress,
    /// Where returns go; every field optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_to: Option<WireAddress>,
    /// The receiver address is residential.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residential: Option<bool>,
    /// Signature option; null for none.
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub signature_option_code: Option<String>,
    /// Dangerous goods code (carrier E only).
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub dangerous_goods_code: Option<String>,
    /// 10:30 AM delivery (carrier B only).
    #[serde(default, alias = "<postal>ExpressAmDelivery", skip_serializing_if = "Option::is_none")]
    pub postal_express_am_delivery: Option<bool>,
    /// Saturday delivery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturday_delivery: Option<bool>,
    /// `lb`, `oz`, `kg` or `g`.
    pub weight_unit: String,
    /// `in`, `cm`, or null for preset package types. The key is required.
    #[serde(default, deserialize_with = "super::present")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>", optional = false))]
    pub dim_unit: Option<Option<String>>,
    /// Currency of insurance, declared and customs values.
    pub currency: String,
    /// Currency of customs values, when it differs.
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub customs_currency: Option<String>,
    /// `PDF` (default), `EPL2` (carrier D) or `ZPL` (carriers A, B, D).
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub label_image_format: Option<String>,
    /// The packages; every piece carries all six keys.
    #[serde(deserialize_with = "bounded::at_most::<_, _, MAX_PIECES>")]
    pub pieces: Vec<BookPiece>,
    /// Recharge the prepay balance automatically when it runs low.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approve_prepay_recharge: Option<bool>,
    /// Scan-based return label (carrier B only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_based_return_label: Option<bool>,
    /// Commercial invoice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commercial_invoice: Option<CommercialInvoice>,
    /// Who pays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing: Option<Billing>,
    /// A provider account of the customer for this carrier.
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub provider_account_id: Option<String>,
    /// Postal endorsement (carrier E only).
    #[serde(default, alias = "<postal>Endorsement", deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub postal_endorsement: Option<String>,
    /// Extension: book this quote at its price.
    #[serde(default, deserialize_with = "super::numbers::opt_int", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "number | string | null"))]
    pub quote_id: Option<Int>,
    /// Extension: the same key and payload give the same answer, charged once.
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// Extension: the order this shipment fulfils.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fulfillment: Option<Fulfillment>,
}

/// A piece of a booking: weight, dimensions, insurance and declared value, every key
/// present (values may be null except the weight).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BookPiece {
    /// Weight in `weightUnit`.
    #[cfg_attr(feature = "typescript", ts(type = "Decimal"))]
    pub weight: Dec,
    /// Length; null for preset package types.
    #[serde(default, deserialize_with = "super::numbers::present_dec")]
    #[cfg_attr(feature = "typescript", ts(type = "Decimal | null"))]
    pub length: Option<Option<Dec>>,
    /// Width.
    #[serde(default, deserialize_with = "super::numbers::present_dec")]
    #[cfg_attr(feature = "typescript", ts(type = "Decimal | null"))]
    pub width: Option<Option<Dec>>,
    /// Height.
    #[serde(default, deserialize_with = "super::numbers::present_dec")]
    #[cfg_attr(feature = "typescript", ts(type = "Decimal | null"))]
    pub height: Option<Option<Dec>>,
    /// Insured value; null for none.
    #[serde(default, deserialize_with = "super::numbers::present_dec")]
    #[cfg_attr(feature = "typescript", ts(type = "Decimal | null"))]
    pub insurance_amount: Option<Option<Dec>>,
    /// Declared value; null when domestic.
    #[serde(default, deserialize_with = "super::numbers::present_dec")]
    #[cfg_attr(feature = "typescript", ts(type = "Decimal | null"))]
    pub declared_value: Option<Option<Dec>>,
}

/// The order a shipment fulfils (extension; also shown by search).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Fulfillment {
    /// The order's id.
    pub order_id: String,
    /// The integration the order belongs to.
    pub integration_id: String,
    /// What this shipment carries of the order.
    #[serde(default, deserialize_with = "bounded::at_most::<_, _, MAX_ORDER_LINES>")]
    pub items: Vec<FulfillmentItem>,
}

/// An order line shipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FulfillmentItem {
    /// Product id.
    #[serde(default)]
    pub product_id: String,
    /// SKU.
    #[serde(default)]
    pub sku: String,
    /// Order line id.
    #[serde(default)]
    pub line_id: String,
    /// Quantity shipped.
    #[cfg_attr(feature = "typescript", ts(type = "number | string"))]
    pub quantity: Int,
}

/// Answer of book shipment (201).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BookShipmentResponse {
    /// Unique id of the shipment.
    pub book_number: String,
    /// Carrier tracking number (of the first piece).
    pub tracking_number: String,
    /// Prepay balance after booking, 2 decimals.
    pub prepay_balance: String,
    /// Zone used for the cost.
    pub zone: String,
    /// Carrier B multipiece shipments only: tracking number and cost of each piece.
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<Vec<BookedPiece>>,
    /// Extension: what the shipment cost, in `currency`.
    #[cfg_attr(feature = "typescript", ts(type = "number"))]
    pub total_shipping_cost: Decimal,
    /// Extension: currency of `totalShippingCost`.
    pub currency: String,
    /// Extension: every tracking number, one per piece.
    pub tracking_numbers: Vec<String>,
    /// The tracking number of the scan-based return label, when the booking asked for
    /// one (`scanBasedReturnLabel`, carrier B); absent otherwise.
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_tracking_number: Option<String>,
    /// Extension: the estimated delivery date, `YYYY-MM-DD`, by the service's transit
    /// time and its carrier's calendar; null when the service has none for the route.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(type = "string | null"))]
    pub estimated_delivery_date: Option<chrono::NaiveDate>,
}

/// A piece of a carrier B multipiece booking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BookedPiece {
    /// The piece's tracking number.
    pub tracking_number: String,
    /// The piece's share of the cost, 2 decimals.
    pub shipping_cost: String,
}

/// A booked shipment as search (4.3) and retrieve show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShipmentView {
    /// Unique id.
    pub book_number: String,
    /// Tracking number of the first piece.
    pub tracking_number: String,
    /// All tracking numbers.
    pub tracking_numbers: Vec<String>,
    /// True once voided.
    pub voided: bool,
    /// Carrier code.
    pub carrier_code: String,
    /// Service code.
    pub service_code: String,
    /// Package type code.
    pub package_type_code: String,
    /// Shipment date.
    pub shipment_date: String,
    /// Reference.
    pub shipper_reference: String,
    /// The same reference under the name of the example payload.
    pub shipment_reference: String,
    /// Second reference.
    pub shipper_reference2: String,
    /// What the shipment holds.
    pub content_description: String,
    /// Ship from.
    pub sender: ViewAddress,
    /// Ship to.
    pub receiver: ViewAddress,
    /// Residential delivery.
    pub residential: bool,
    /// Signature option.
    pub signature_option_code: Option<String>,
    /// `lb` or `kg` (bookings in oz or g are converted).
    pub weight_unit: String,
    /// `in`, `cm` or null.
    pub dim_unit: Option<String>,
    /// Currency of values.
    pub currency: String,
    /// Currency of customs values.
    pub customs_currency: Option<String>,
    /// The pieces, numbers as numeric strings.
    pub pieces: Vec<ViewPiece>,
    /// The order this shipment fulfils.
    pub fulfillment: Option<Fulfillment>,
    /// What the shipment cost.
    #[cfg_attr(feature = "typescript", ts(type = "number"))]
    pub total_shipping_cost: Decimal,
    /// Extension: the id of the order this shipment fulfils (`fulfillment.orderId`,
    /// where clients look for it), or null.
    #[serde(default)]
    pub order_id: Option<String>,
    /// Extension: internal order number: as booked, else the number of the order the
    /// shipment fulfils.
    pub order_number: String,
    /// Extension: the shipment's commercial invoice, or null when it was booked without
    /// one.
    #[serde(default)]
    pub commercial_invoice: Option<ViewInvoice>,
    /// Extension: the tracking number of the shipment's scan-based return label, or null
    /// when it was booked without one.
    #[serde(default)]
    pub return_tracking_number: Option<String>,
    /// Extension: the estimated delivery date at booking, `YYYY-MM-DD`; null when the
    /// service has no transit time for the route (or for shipments booked before
    /// consign estimated dates).
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(type = "string | null"))]
    pub estimated_delivery_date: Option<chrono::NaiveDate>,
}

/// A booked shipment's commercial invoice, as retrieve shipment and search show it; the
/// document is at `GET .../shipments/:bookNumber/commercialInvoice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ViewInvoice {
    /// Whether the booking asked for the invoice to be sent to the carrier electronically
    /// (`commercialInvoice.sendElectronically`).
    pub send_electronically: bool,
}

/// An address as search shows it (with phone and e-mail, which search matches).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[allow(missing_docs)]
pub struct ViewAddress {
    pub name: String,
    pub company: String,
    pub address1: String,
    pub address2: String,
    pub city: String,
    pub state: String,
    pub zip: Option<String>,
    pub country: String,
    pub phone: String,
    pub email: String,
}

/// A piece as search shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ViewPiece {
    /// Weight in the view's `weightUnit`, numeric string.
    pub weight: String,
    /// Length, numeric string, or null.
    pub length: Option<String>,
    /// Width.
    pub width: Option<String>,
    /// Height.
    pub height: Option<String>,
    /// Insured value.
    #[cfg_attr(feature = "typescript", ts(as = "Option<f64>"))]
    pub insurance_amount: Option<Decimal>,
    /// Declared value.
    #[cfg_attr(feature = "typescript", ts(as = "Option<f64>"))]
    pub declared_value: Option<Decimal>,
}

/// Body of void shipment: `{"voided": true}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct VoidRequest {
    /// Must be true.
    pub voided: bool,
}

/// Answer of void shipment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct VoidResponse {
    /// The shipment.
    pub book_number: String,
    /// True.
    pub voided: bool,
    /// Prepay balance after the refund, 2 decimals.
    pub prepay_balance: String,
}

/// Answer of retrieve label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelResponse {
    /// `PDF`, `ZPL` or `EPL2`.
    pub label_image_format: String,
    /// One label per piece, base64.
    pub base64_images: Vec<String>,
}

/// Body of `POST .../shipments/multiple/labels/:labelImageFormat`: the shipments whose
/// labels to print together, in that order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelsRequest {
    /// Book numbers of the customer's shipments, at most 500.
    #[serde(deserialize_with = "bounded::at_most::<_, _, { crate::limits::MAX_SHIPMENTS }>")]
    pub book_numbers: Vec<String>,
}

/// Answer of retrieve commercial invoice (the shape of the manifest answer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct InvoiceResponse {
    /// The data type of `data`: `application/pdf`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The document, base64.
    pub data: String,
}

/// Answer of list shipments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ShipmentsResponse {
    /// Shipments by book number.
    pub shipments: Vec<ShipmentView>,
}

/// Body of create batch (optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct CreateBatchRequest {
    /// A name for people (optional).
    #[serde(default)]
    pub name: Option<String>,
}

/// Answer of create batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CreateBatchResponse {
    /// The new batch's id.
    pub batch_id: String,
}

/// Body of add quotes to batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AddQuotesRequest {
    /// Quotes to add, from batch quote.
    #[cfg_attr(feature = "typescript", ts(type = "Array<number | string>"))]
    #[serde(deserialize_with = "bounded::at_most::<_, _, MAX_BATCH_QUOTES>")]
    pub quote_ids: Vec<Int>,
}

/// A batch with its quotes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Batch {
    /// Id.
    pub batch_id: String,
    /// Name, or empty.
    pub name: String,
    /// `open` or `booked`.
    pub status: String,
    /// When it was created.
    pub created_at: String,
    /// Its quotes in the order they were added, with the book number once booked.
    pub quotes: Vec<BatchQuote>,
}

/// A quote of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BatchQuote {
    /// The quote.
    #[serde(flatten)]
    pub quote: super::Quote,
    /// Book number once booked.
    pub book_number: Option<String>,
}

/// Answer of list batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BatchesResponse {
    /// The customer's batches, newest first.
    pub batches: Vec<BatchSummary>,
}

/// A batch in a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BatchSummary {
    /// Id.
    pub batch_id: String,
    /// Name, or empty.
    pub name: String,
    /// `open` or `booked`.
    pub status: String,
    /// When it was created.
    pub created_at: String,
    /// How many quotes it holds.
    pub quote_count: usize,
}

/// Body of batch book.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct BatchBookRequest {
    /// The batch to book.
    pub batch_id: String,
    /// Label format for every shipment (PDF by default).
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub label_image_format: Option<String>,
    /// Recharge the prepay balance automatically when it runs low.
    #[serde(default)]
    pub approve_prepay_recharge: Option<bool>,
}

/// Answer of batch book.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BatchBookResponse {
    /// The batch.
    pub batch_id: String,
    /// One result per quote, in batch order.
    pub results: Vec<BatchBookResult>,
    /// Prepay balance after all the bookings, 2 decimals.
    pub prepay_balance: String,
    /// One PDF, base64, with every label of every quote booked (voided shipments left
    /// out), a page per label in the order of `results`; null when none is booked.
    pub labels_pdf: Option<String>,
}

/// The booking of one quote of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BatchBookResult {
    /// The quote.
    pub quote_id: i64,
    /// `success` or `error`.
    #[cfg_attr(feature = "typescript", ts(type = "\"success\" | \"error\""))]
    pub status: String,
    /// Book number (success).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_number: Option<String>,
    /// Tracking number (success).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_number: Option<String>,
    /// Zone (success).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
    /// What it cost (success).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<f64>"))]
    pub total_shipping_cost: Option<Decimal>,
    /// Reason (error).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Error category (error).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_category: Option<String>,
    /// Fields at fault (error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "FieldError[]"))]
    pub details: Option<Vec<crate::FieldError>>,
}
