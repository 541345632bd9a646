//! Serde types of every request and response, named after the spec's operations.
//!
//! They mirror the JSON exactly and carry no rules: conversion into domain values (in the
//! operation modules) is where validation happens. Decimals and integers accept a JSON
//! number or a numeric string, as real clients of this interface send both (DECISIONS 1).

mod accounts;
mod after_booking;
mod booking;
pub(crate) mod bounded;
mod customers;
mod events;
mod numbers;
mod quotes;
mod stored;
mod strict;
#[cfg(feature = "webhooks")]
mod webhooks;

pub use accounts::{
    CreateIntegrationRequest, CreateIntegrationResponse, IntegratedQuotingOption, IntegratedQuotingOptions, PackageTypeEntry,
    ProviderAccount, ProviderAccountsResponse, PutProviderAccountRequest, RegionalShipmentTypesResponse, ServiceEntry, ServicesResponse,
    SignatureOptionEntry,
};
pub use after_booking::{
    CancelPickupRequest, CarrierEvent, CreateManifestRequest, ManifestResponse, Order, OrderItem, OrderPackage, Pickup, PickupIdResponse,
    RecordTrackingEventsRequest, RecordTrackingEventsResponse, SchedulePickupRequest, SearchShipmentsRequest, TrackingEvent,
};
pub use booking::{
    AddQuotesRequest, Batch, BatchBookRequest, BatchBookResponse, BatchBookResult, BatchQuote, BatchSummary, BatchesResponse, BookPiece,
    BookShipmentRequest, BookShipmentResponse, BookedPiece, CreateBatchRequest, CreateBatchResponse, Fulfillment, FulfillmentItem,
    InvoiceResponse, LabelResponse, LabelsRequest, ShipmentView, ShipmentsResponse, ViewAddress, ViewInvoice, ViewPiece, VoidRequest,
    VoidResponse,
};
pub use customers::{
    ConnectCustomerRequest, CreateCustomerRequest, CustomerIdResponse, LedgerEntry, Partner, PartnersResponse, PaymentMethod,
    PrepayResponse, PrepaySettings, UpdatePaymentMethodRequest, Utm,
};
pub use events::{CommittedEvent, Event, EventsResponse, ReturnLabelUse, TrackingUpdate};
pub(crate) use numbers::decimal_text;
pub use numbers::{Dec, Int};
#[cfg(any(test, feature = "bench"))]
pub(crate) use quotes::quote_fields;
#[cfg(any(test, feature = "bench"))]
pub(crate) use quotes::write_quotes;
pub(crate) use quotes::{fill_ids, quote_json_size, write_quoted_result, write_quotes_marked, QuoteFields, QuotedWeight};
pub use quotes::{
    BatchQuoteRequest, BatchQuoteResponse, Billing, CommercialInvoice, DutiableParty, InvoiceItem, LineItem, Piece, Quote, QuoteAnswer,
    QuoteError, QuoteShipment, QuoteSurcharge, QuotesResponse, ShipmentQuotes, TaxId,
};
pub(crate) use stored::shipment_json;
#[cfg(feature = "webhooks")]
pub use webhooks::{
    CreatedWebhook, ReplayWebhookRequest, Webhook, WebhookDeliveriesResponse, WebhookDelivery, WebhookRequest, WebhookSecret,
    WebhooksResponse,
};

/// The string type of an address's fields as sent: text of up to 24 bytes, as address
/// fields nearly always are, is held inline, without an allocation of its own.
pub use compact_str::CompactString;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCategory, FieldError};

/// An address as sent (2.1); which fields are required depends on the endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(rename = "Address", optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct WireAddress {
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub name: Option<CompactString>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub company: Option<CompactString>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub address1: Option<CompactString>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub address2: Option<CompactString>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub city: Option<CompactString>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub state: Option<CompactString>,
    /// `None` when the key is absent, `Some(None)` for null: the booking payload
    /// requires the key even where its value may be null.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub zip: Option<Option<CompactString>>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub country: Option<CompactString>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub phone: Option<CompactString>,
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub email: Option<CompactString>,
}

/// A validated address. Absent optional text is the empty string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    /// Person name.
    pub name: CompactString,
    /// Company name (may be empty).
    pub company: CompactString,
    /// Street line 1.
    pub address1: CompactString,
    /// Street line 2 (may be empty).
    pub address2: CompactString,
    /// City.
    pub city: CompactString,
    /// State or province code (two characters for US and CA).
    pub state: CompactString,
    /// ZIP or postal code; `None` only for countries without postal codes.
    pub zip: Option<CompactString>,
    /// ISO 3166-1 alpha-2 country code, upper case.
    pub country: CompactString,
    /// Phone number as given.
    pub phone: CompactString,
    /// E-mail address (may be empty).
    pub email: CompactString,
}

impl Address {
    /// True when the country uses US states and ZIP codes.
    pub fn is_us(&self) -> bool {
        self.country == "US"
    }
}

/// `{"ok": true}`, the answer of operations that return nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OkResponse {
    /// Always true.
    pub ok: bool,
}

impl OkResponse {
    /// `{"ok": true}`.
    pub const OK: OkResponse = OkResponse { ok: true };
}

/// Parses a request body into `T`, naming the field at fault on a type error.
///
/// # Errors
/// `INVALID_REQUEST` when the body is not a JSON object, is malformed, has a field of the
/// wrong type, or lacks a required field.
pub fn parse_body<T: DeserializeOwned>(body: &str) -> Result<T, Error> {
    parse_borrowed(body)
}

/// As [`parse_body`], for a `T` that may borrow from `body`.
pub(crate) fn parse_borrowed<'de, T: Deserialize<'de>>(body: &'de str) -> Result<T, Error> {
    let trimmed = body.trim_start();
    if !trimmed.starts_with('{') {
        let found = if trimmed.is_empty() { "an empty body".to_string() } else { describe_json_start(trimmed) };
        return Err(Error::new(ErrorCategory::InvalidRequest, format!("The request body must be a JSON object, found {found}.")));
    }
    // Tracking the path of every field was most of the cost of parsing a batch quote;
    // only a failed parse needs it, so that one parses again with tracking to name the
    // field at fault.
    if let Some(value) = parse_if_whole(body) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_str(body);
    let value: T =
        serde_path_to_error::deserialize(strict::Strict(&mut de)).map_err(|e| from_serde(e.path().to_string(), e.into_inner()))?;
    de.end().map_err(|e| from_serde(String::new(), e))?;
    Ok(value)
}

/// `body` read as a `T` (strictly: a struct only from a JSON object) if it is one, else
/// `None`, without saying why: for a caller with another way to read it that names
/// what is wrong.
pub(crate) fn parse_if_whole<'de, T: Deserialize<'de>>(body: &'de str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(body);
    let value = T::deserialize(strict::Strict(&mut de)).ok()?;
    de.end().is_ok().then_some(value)
}

fn describe_json_start(s: &str) -> String {
    match s.as_bytes()[0] {
        b'[' => "an array".into(),
        b'"' => "a string".into(),
        b't' | b'f' => "a boolean".into(),
        b'n' => "null".into(),
        b'-' | b'0'..=b'9' => "a number".into(),
        _ => "text that is not JSON".into(),
    }
}

fn from_serde(path: String, e: serde_json::Error) -> Error {
    use serde_json::error::Category;
    let full = e.to_string();
    let message = full.rfind(" at line ").map_or(full.as_str(), |i| &full[..i]).to_string();
    match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => {
            Error::new(ErrorCategory::InvalidRequest, format!("The request body is not valid JSON: {full}."))
        }
        Category::Data => {
            let path = if path == "." { String::new() } else { path };
            if let Some(limit) = bounded::limit_message(&message) {
                let field = if path.is_empty() { "body".to_string() } else { path };
                return Error::fields(ErrorCategory::LimitExceeded, vec![FieldError { field, message: limit.to_string() }]);
            }
            // serde reports a missing or repeated field at its parent's path; name the field itself.
            for (prefix, problem) in [("missing field `", "is required"), ("duplicate field `", "is given more than once")] {
                if let Some(name) = message.strip_prefix(prefix).and_then(|m| m.strip_suffix('`')) {
                    let field = crate::error::join_path(&path, name);
                    return Error::fields(ErrorCategory::InvalidRequest, vec![FieldError { field, message: problem.into() }]);
                }
            }
            // serde quotes the value it could not read; a secret's must not come back.
            let message = if path == "accountFields" {
                "must be an object of text fields".to_string()
            } else if crate::secrets::is_secret_field(&path) {
                "must be a string".to_string()
            } else {
                message
            };
            let field = if path.is_empty() { "body".to_string() } else { path };
            Error::fields(ErrorCategory::InvalidRequest, vec![FieldError { field, message }])
        }
    }
}

/// Serialises a response. Serialising our own types cannot fail; if it ever did, that is
/// reported as an `INTERNAL` error rather than a panic.
pub(crate) fn to_json<T: Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|e| Error::internal(format!("could not serialise the response: {e}")))
}

/// For "key required, value may be null": `None` when the key is absent (with
/// `#[serde(default)]`), `Some(None)` for null (or an empty string), `Some(Some(v))` else.
pub(crate) fn present<'de, D: serde::Deserializer<'de>, S: Deserialize<'de> + AsRef<str>>(d: D) -> Result<Option<Option<S>>, D::Error> {
    let v: Option<S> = Option::deserialize(d)?;
    Ok(Some(v.filter(|s| !s.as_ref().trim().is_empty())))
}

/// Deserialises an optional string where the empty string means absent.
pub(crate) fn empty_as_none<'de, D: serde::Deserializer<'de>, S: Deserialize<'de> + AsRef<str>>(d: D) -> Result<Option<S>, D::Error> {
    let v: Option<S> = Option::deserialize(d)?;
    Ok(v.filter(|s| !s.as_ref().trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        items: Vec<Inner>,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        name: String,
        qty: Int,
    }

    #[test]
    fn type_errors_name_the_field_path() {
        let e = parse_body::<Outer>(r#"{"items":[{"name":"a","qty":1},{"name":5,"qty":1}]}"#).unwrap_err();
        assert_eq!(e.details()[0].field, "items[1].name");
        let e = parse_body::<Outer>(r#"{"items":[{"name":"a"}]}"#).unwrap_err();
        assert_eq!(e.details()[0].field, "items[0].qty");
        assert_eq!(e.details()[0].message, "is required");
        let e = parse_body::<Outer>(r#"{"items":[{"name":"a","qty":1,"qty":2}]}"#).unwrap_err();
        assert_eq!(e.details()[0].field, "items[0].qty");
    }

    #[test]
    fn non_objects_and_malformed_json_are_refused() {
        for body in ["", "[]", "null", "42", "{", "{\"items\": [}", "{} trailing"] {
            let e = parse_body::<Outer>(body).unwrap_err();
            assert_eq!(e.category(), ErrorCategory::InvalidRequest, "{body}");
        }
    }
}
