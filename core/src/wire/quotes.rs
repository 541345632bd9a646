//! Batch quote (4.1), single quote (DECISIONS 9) and the quote object (2.5).

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::bounded;
use super::numbers::{opt_dec, Dec, Int};
use super::{CompactString, WireAddress};
use crate::limits::{MAX_BATCH, MAX_INVOICE_ITEMS, MAX_LINE_ITEMS, MAX_PIECES, MAX_TAX_IDS};

/// Body of `POST .../batch-quote`. Shipments stay raw so that one malformed shipment
/// fails alone (DECISIONS 2).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BatchQuoteRequest {
    /// The shipments, at most 500.
    #[cfg_attr(feature = "typescript", ts(as = "Vec<QuoteShipment>"))]
    #[serde(deserialize_with = "bounded::at_most::<_, _, MAX_BATCH>")]
    pub shipments: Vec<Box<RawValue>>,
}

/// One shipment to quote (4.1; addresses, pieces and billing as in the booking payload).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct QuoteShipment {
    /// Carrier to quote; empty or absent for all.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::empty_as_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub carrier_code: Option<CompactString>,
    /// Service to quote; empty or absent for all.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::empty_as_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub service_code: Option<CompactString>,
    /// Package type to quote; empty or absent for all that fit.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::empty_as_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub package_type_code: Option<CompactString>,
    /// `YYYY-MM-DD`, today or later. Required in a batch quote; the single quote
    /// quotes for today without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub shipment_date: Option<CompactString>,
    /// Customer-provided reference. Required in a batch quote; optional in the single
    /// quote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub shipment_reference: Option<CompactString>,
    /// What the shipment holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub content_description: Option<CompactString>,
    /// Ship from.
    pub sender: WireAddress,
    /// Ship to.
    pub receiver: WireAddress,
    /// The receiver address is residential.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residential: Option<bool>,
    /// Signature option code, null for none.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::empty_as_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub signature_option_code: Option<CompactString>,
    /// Saturday delivery (as in the booking payload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturday_delivery: Option<bool>,
    /// 10:30 AM delivery of the postal carrier (as in the booking payload).
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "<postal>ExpressAmDelivery")]
    pub postal_express_am_delivery: Option<bool>,
    /// Dangerous goods code (as in the booking payload).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::empty_as_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub dangerous_goods_code: Option<CompactString>,
    /// `lb`, `oz`, `kg` or `g`.
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    pub weight_unit: CompactString,
    /// `in`, `cm`, or null for preset package types. The key is required.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::present")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>", optional = false))]
    pub dim_unit: Option<Option<CompactString>>,
    /// `USD`, `GBP`, `CAD` or `EUR`. Required in a batch quote; the single quote
    /// quotes in USD without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub currency: Option<CompactString>,
    /// The packages.
    #[serde(deserialize_with = "bounded::at_most::<_, _, MAX_PIECES>")]
    pub pieces: Vec<Piece>,
    /// Who pays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing: Option<Billing>,
    /// A provider account of the customer.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::empty_as_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub provider_account_id: Option<CompactString>,
    /// Commercial invoice for international shipments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commercial_invoice: Option<CommercialInvoice>,
    /// Extension: `YYYY-MM-DD`, the latest arrival wanted. Services estimated to
    /// arrive later are reported in `quoteErrors` as `DELIVERY_DATE_NOT_MET`.
    #[serde(default, deserialize_with = "super::empty_as_none", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>", optional))]
    pub deliver_by: Option<CompactString>,
}

/// A package (2.2).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct Piece {
    /// Weight in the shipment's `weightUnit`.
    #[cfg_attr(feature = "typescript", ts(type = "Decimal"))]
    pub weight: Dec,
    /// Length in `dimUnit`; null for preset package types.
    #[serde(default, deserialize_with = "opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub length: Option<Dec>,
    /// Width.
    #[serde(default, deserialize_with = "opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub width: Option<Dec>,
    /// Height.
    #[serde(default, deserialize_with = "opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub height: Option<Dec>,
    /// Value to insure; null for none.
    #[serde(default, deserialize_with = "opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub insurance_amount: Option<Dec>,
    /// Declared value; null when domestic.
    #[serde(default, deserialize_with = "opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub declared_value: Option<Dec>,
    /// Line items (batch quote), order and duplicates kept.
    #[serde(default, deserialize_with = "bounded::opt_at_most::<_, _, MAX_LINE_ITEMS>")]
    pub line_items: Option<Vec<LineItem>>,
}

/// A line item of a piece.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LineItem {
    /// SKU; may be empty.
    pub sku: String,
    /// Product name.
    pub product_name: String,
    /// Quantity.
    #[cfg_attr(feature = "typescript", ts(type = "number | string"))]
    pub quantity: Int,
}

/// Billing (2.3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct Billing {
    /// `sender`, `receiver` or `third_party`.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub party: Option<String>,
    /// Billing account number.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub account: Option<String>,
    /// Billing country.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub country: Option<String>,
    /// Billing zip.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub zip: Option<String>,
    /// Who pays duties.
    #[serde(default)]
    pub dutiable_party: Option<DutiableParty>,
}

/// Duty payment of a shipment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct DutiableParty {
    /// `sender`, `receiver` or `third_party`.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub duty_payment_type: Option<String>,
    /// Account paying duties (required for receiver and third_party).
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub duty_payment_account_number: Option<String>,
}

/// Commercial invoice (4.5; the batch quote adds the tax fields).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct CommercialInvoice {
    /// Submit electronically.
    #[serde(default)]
    pub send_electronically: Option<bool>,
    /// FTR exemption; null when another is present.
    #[serde(default, deserialize_with = "super::present")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub ftr_number: Option<Option<String>>,
    /// ITN; null when another is present.
    #[serde(default, deserialize_with = "super::present")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub itn_number: Option<Option<String>>,
    /// AES number; must be null.
    #[serde(default, deserialize_with = "super::present")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<String>"))]
    pub aes_number: Option<Option<String>>,
    /// Incoterm.
    #[serde(default)]
    pub terms_of_trade: Option<String>,
    /// Receiver's tax id.
    #[serde(default)]
    pub receiver_tax_id: Option<String>,
    /// Sender's VAT/tax id.
    #[serde(default)]
    pub sender_vat_tax_id: Option<String>,
    /// Package marks.
    #[serde(default)]
    pub package_marks: Option<String>,
    /// Invoice items.
    #[serde(default, deserialize_with = "bounded::opt_at_most::<_, _, MAX_INVOICE_ITEMS>")]
    pub items: Option<Vec<InvoiceItem>>,
    /// Type of `senderVatTaxId`: `ein`, `dns` or `fgn` (default `ein`).
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub sender_tax_id_number_type: Option<String>,
    /// Tax ids for carrier C (at most two).
    #[serde(default, deserialize_with = "bounded::opt_at_most::<_, _, MAX_TAX_IDS>")]
    pub dhl_tax_ids: Option<Vec<TaxId>>,
}

/// An invoice item.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct InvoiceItem {
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// Quantity.
    #[serde(default, deserialize_with = "super::numbers::opt_int")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "number | string | null"))]
    pub quantity: Option<Int>,
    /// Per-unit value.
    #[serde(default, deserialize_with = "opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub unit_value: Option<Dec>,
    /// Weight of the line, in the shipment's `weightUnit`.
    #[serde(default, deserialize_with = "opt_dec")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "Decimal | null"))]
    pub weight: Option<Dec>,
    /// Harmonized Tariff Schedule number.
    #[serde(default)]
    pub hts_number: Option<String>,
    /// Country of origin.
    #[serde(default)]
    pub country_of_origin: Option<String>,
}

/// A carrier C tax id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct TaxId {
    /// The number; non-empty.
    #[serde(default)]
    pub number: Option<String>,
    /// `EOR`, `VAT`, `FTZ`, `CNP`, `EIN` or `FED`.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Issuer country.
    #[serde(default, deserialize_with = "super::empty_as_none")]
    pub issuer_country: Option<String>,
}

/// A priced, bookable result (2.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Quote {
    /// Id to book or batch it with.
    pub quote_id: i64,
    /// Carrier code.
    pub carrier_code: String,
    /// Service code.
    pub service_code: String,
    /// Service name.
    pub service_description: String,
    /// Package type code.
    pub package_type_code: String,
    /// Currency of the amounts.
    pub currency: String,
    /// Total including surcharges.
    #[serde(serialize_with = "super::numbers::json_decimal")]
    #[cfg_attr(feature = "typescript", ts(type = "number"))]
    pub total_amount: Decimal,
    /// Base charge.
    #[serde(serialize_with = "super::numbers::json_decimal")]
    #[cfg_attr(feature = "typescript", ts(type = "number"))]
    pub base_amount: Decimal,
    /// Zone used.
    pub zone: String,
    /// Weight used for quoting.
    pub quoted_weight: String,
    /// `Actual` or `Dimensional`.
    pub quoted_weight_type: String,
    /// Extension: business days in transit; null when the service has no transit time
    /// for the route.
    pub transit_days: Option<u8>,
    /// Extension: the estimated delivery date, `YYYY-MM-DD`; null when the service has
    /// no transit time for the route.
    #[cfg_attr(feature = "typescript", ts(type = "string | null"))]
    pub estimated_delivery_date: Option<NaiveDate>,
    /// Extension: whether the carrier guarantees the date.
    pub delivery_date_guaranteed: bool,
    /// Surcharge lines.
    pub surcharges: Vec<QuoteSurcharge>,
}

/// A surcharge line of a quote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct QuoteSurcharge {
    /// What it is for.
    pub description: String,
    /// Amount.
    #[serde(serialize_with = "super::numbers::json_decimal")]
    #[cfg_attr(feature = "typescript", ts(type = "number"))]
    pub amount: Decimal,
}

/// A service that could not be quoted for an otherwise processed shipment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QuoteError {
    /// Carrier code.
    pub carrier_code: String,
    /// Service code.
    pub service_code: String,
    /// Service name.
    pub service_description: String,
    /// Package type code (empty when no package type applied).
    pub package_type_code: String,
    /// Reason.
    pub error: String,
    /// Error category code.
    pub error_category: String,
    /// Extension: when the service would arrive, for `DELIVERY_DATE_NOT_MET` (absent
    /// otherwise, and when the service has no transit time for the route).
    #[cfg_attr(feature = "typescript", ts(type = "string", optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_delivery_date: Option<NaiveDate>,
}

/// Answer of batch quote.
#[derive(Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BatchQuoteResponse {
    /// One result per request shipment, in order.
    pub results: Vec<ShipmentQuotes>,
}

/// The result of one shipment of a batch quote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShipmentQuotes {
    /// Zero-based index into the request's shipments.
    pub shipment_index: usize,
    /// `success` or `error`.
    #[cfg_attr(feature = "typescript", ts(type = "\"success\" | \"error\""))]
    pub status: String,
    /// Quotes (success only).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub quotes: Option<Vec<Quote>>,
    /// Services that could not be quoted (success only).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub quote_errors: Option<Vec<QuoteError>>,
    /// Reason (error only).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// Error category (error only).
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error_category: Option<String>,
    /// The fields at fault (error only; an extension naming them like the error body).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "typescript", ts(optional, type = "FieldError[]"))]
    pub details: Option<Vec<crate::FieldError>>,
}

/// Answer of the single-shipment quote when carrier, service or package type is open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QuotesResponse {
    /// Quotes.
    pub quotes: Vec<Quote>,
    /// Services that could not be quoted.
    pub quote_errors: Vec<QuoteError>,
}

/// Answer of the single-shipment quote: one quote when carrier, service and package
/// type were all named, else the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum QuoteAnswer {
    /// The one quote asked for.
    One(Box<Quote>),
    /// Quotes and quote errors.
    Many(QuotesResponse),
}

/// The fields of a quote that [`write_quotes`] writes, borrowed.
pub(crate) struct QuoteFields<'a> {
    pub quote_id: i64,
    pub carrier_code: &'a str,
    pub service_code: &'a str,
    pub service_description: &'a str,
    pub package_type_code: &'a str,
    pub currency: &'a str,
    pub total_amount: Decimal,
    pub base_amount: Decimal,
    pub zone: &'a str,
    pub quoted_weight: QuotedWeight<'a>,
    pub quoted_weight_type: &'a str,
    pub transit_days: Option<u8>,
    pub estimated_delivery_date: Option<NaiveDate>,
    pub delivery_date_guaranteed: bool,
}

/// The quoted weight of [`QuoteFields`]: the text of a [`Quote`], or the number a
/// priced quote holds (written as its `Display` text, without a `String` for it).
pub(crate) enum QuotedWeight<'a> {
    #[cfg_attr(not(any(test, feature = "bench")), allow(dead_code, reason = "the text of a wire quote: the bench floor and tests"))]
    Text(&'a str),
    Number(Decimal),
}

/// Appends quotes, each its fields and its surcharge lines (description, amount), as a
/// JSON array to `out`: byte for byte what serde_json writes for [`Quote`]s (a test pins
/// this), written directly. The quotes are most of a batch answer and of its stored rows,
/// and serde's general path (an escape loop per string, each amount re-parsed to be
/// written raw) was 40% of an all-services batch.
#[cfg(any(test, feature = "bench"))]
pub(crate) fn write_quotes<'a, L>(out: &mut String, quotes: impl Iterator<Item = (QuoteFields<'a>, L)>)
where
    L: Iterator<Item = (&'a str, Decimal)>,
{
    write_quotes_with(out, quotes, super::numbers::push_int);
}

/// Appends quotes as [`write_quotes`] does, but without their ids: the place of each
/// id in `out` goes into `marks`, in order, for [`fill_ids`] to write the ids there once
/// they are known.
pub(crate) fn write_quotes_marked<'a, L>(out: &mut String, quotes: impl Iterator<Item = (QuoteFields<'a>, L)>, marks: &mut Vec<usize>)
where
    L: Iterator<Item = (&'a str, Decimal)>,
{
    write_quotes_with(out, quotes, |out, _| marks.push(out.len()));
}

/// `text` with the ids `first`, `first + 1`, ... written at `marks` (in order), as
/// [`write_quotes`] writes them.
pub(crate) fn fill_ids(text: &str, marks: &[usize], first: i64) -> String {
    let mut out = String::with_capacity(text.len() + 12 * marks.len());
    let mut from = 0;
    for (id, &at) in (first..).zip(marks) {
        out.push_str(text.get(from..at).unwrap_or_default());
        super::numbers::push_int(&mut out, id);
        from = at;
    }
    out.push_str(text.get(from..).unwrap_or_default());
    out
}

/// [`write_quotes`], with each quote's id written by `id`.
fn write_quotes_with<'a, L>(out: &mut String, quotes: impl Iterator<Item = (QuoteFields<'a>, L)>, mut id: impl FnMut(&mut String, i64))
where
    L: Iterator<Item = (&'a str, Decimal)>,
{
    // Each key is written with the quotes around it and the value's opening quote, and
    // the next key with the closing one: two appends per string field instead of five.
    let amount = super::numbers::push_decimal;
    out.push('[');
    for (i, (q, lines)) in quotes.enumerate() {
        out.push_str(if i > 0 { ",{\"quoteId\":" } else { "{\"quoteId\":" });
        id(out, q.quote_id);
        let strings = [
            (",\"carrierCode\":\"", q.carrier_code),
            ("\",\"serviceCode\":\"", q.service_code),
            ("\",\"serviceDescription\":\"", q.service_description),
            ("\",\"packageTypeCode\":\"", q.package_type_code),
            ("\",\"currency\":\"", q.currency),
        ];
        for (key, value) in strings {
            out.push_str(key);
            json_str_body(out, value);
        }
        out.push_str("\",\"totalAmount\":");
        amount(out, q.total_amount);
        out.push_str(",\"baseAmount\":");
        amount(out, q.base_amount);
        out.push_str(",\"zone\":\"");
        json_str_body(out, q.zone);
        out.push_str("\",\"quotedWeight\":\"");
        match q.quoted_weight {
            QuotedWeight::Text(text) => json_str_body(out, text),
            // A decimal's text is digits, a sign and a point: nothing to escape.
            QuotedWeight::Number(d) => amount(out, d),
        }
        out.push_str("\",\"quotedWeightType\":\"");
        json_str_body(out, q.quoted_weight_type);
        out.push_str("\",\"transitDays\":");
        match q.transit_days {
            Some(days) => super::numbers::push_int(out, i64::from(days)),
            None => out.push_str("null"),
        }
        out.push_str(",\"estimatedDeliveryDate\":");
        match q.estimated_delivery_date {
            Some(date) => push_date(out, date),
            None => out.push_str("null"),
        }
        out.push_str(if q.delivery_date_guaranteed {
            ",\"deliveryDateGuaranteed\":true,\"surcharges\":["
        } else {
            ",\"deliveryDateGuaranteed\":false,\"surcharges\":["
        });
        for (j, (description, value)) in lines.enumerate() {
            out.push_str(if j > 0 { ",{\"description\":\"" } else { "{\"description\":\"" });
            json_str_body(out, description);
            out.push_str("\",\"amount\":");
            amount(out, value);
            out.push('}');
        }
        out.push_str("]}");
    }
    out.push(']');
}

/// Room for the JSON of a quote of the catalog with `lines` surcharge lines: about 300
/// bytes and 55 a line, rounded up so that the text is written without growing.
pub(crate) const fn quote_json_size(lines: usize) -> usize {
    320 + 64 * lines
}

/// Appends the result of shipment `index` of a batch answer that was quoted, as serde
/// writes a [`ShipmentQuotes`] of status `success`: its quotes written by `quotes`, then
/// `errors`.
pub(crate) fn write_quoted_result(out: &mut String, index: usize, quotes: impl FnOnce(&mut String), errors: &[QuoteError]) {
    out.push_str("{\"shipmentIndex\":");
    super::numbers::push_int(out, index as i64);
    out.push_str(",\"status\":\"success\",\"quotes\":");
    quotes(out);
    out.push_str(",\"quoteErrors\":");
    write_quote_errors(out, errors);
    out.push('}');
}

/// Appends `errors` as a JSON array to `out`: byte for byte what serde_json writes (a
/// test pins this), written directly, as the quotes are written. A batch over every
/// service has a quote error for many of its shipments.
pub(crate) fn write_quote_errors(out: &mut String, errors: &[QuoteError]) {
    out.push('[');
    for (i, e) in errors.iter().enumerate() {
        out.push_str(if i > 0 { ",{" } else { "{" });
        let fields = [
            ("\"carrierCode\":\"", &e.carrier_code),
            ("\",\"serviceCode\":\"", &e.service_code),
            ("\",\"serviceDescription\":\"", &e.service_description),
            ("\",\"packageTypeCode\":\"", &e.package_type_code),
            ("\",\"error\":\"", &e.error),
            ("\",\"errorCategory\":\"", &e.error_category),
        ];
        for (key, value) in fields {
            out.push_str(key);
            json_str_body(out, value);
        }
        out.push('"');
        if let Some(date) = e.estimated_delivery_date {
            out.push_str(",\"estimatedDeliveryDate\":");
            push_date(out, date);
        }
        out.push('}');
    }
    out.push(']');
}

/// Appends `date` as serde writes a [`NaiveDate`]: `"YYYY-MM-DD"`, quotes included.
fn push_date(out: &mut String, date: NaiveDate) {
    use std::fmt::Write as _;
    let (y, m, d) = (date.year(), date.month(), date.day());
    if (0..=9999).contains(&y) {
        let digits = [y / 1000, y / 100 % 10, y / 10 % 10, y % 10];
        out.push('"');
        digits.iter().for_each(|&n| out.push(char::from(b'0' + n as u8)));
        for (sep, n) in [('-', m), ('-', d)] {
            out.push(sep);
            out.push(char::from(b'0' + (n / 10) as u8));
            out.push(char::from(b'0' + (n % 10) as u8));
        }
        out.push('"');
    } else {
        let _ = write!(out, "\"{date}\"");
    }
}

/// The fields of `q` to write.
#[cfg(any(test, feature = "bench"))]
pub(crate) fn quote_fields(q: &Quote) -> QuoteFields<'_> {
    QuoteFields {
        quote_id: q.quote_id,
        carrier_code: &q.carrier_code,
        service_code: &q.service_code,
        service_description: &q.service_description,
        package_type_code: &q.package_type_code,
        currency: &q.currency,
        total_amount: q.total_amount,
        base_amount: q.base_amount,
        zone: &q.zone,
        quoted_weight: QuotedWeight::Text(&q.quoted_weight),
        quoted_weight_type: &q.quoted_weight_type,
        transit_days: q.transit_days,
        estimated_delivery_date: q.estimated_delivery_date,
        delivery_date_guaranteed: q.delivery_date_guaranteed,
    }
}

/// The inside of `s` as a JSON string (without its quotes): `s` itself when nothing in
/// it needs escaping (the catalog's codes and names), else as serde_json escapes it.
pub(super) fn json_str_body(out: &mut String, s: &str) {
    // No early exit: the compiler turns this into a vector loop, which for the short
    // strings here is several times faster than a byte-by-byte `all`.
    let plain = s.bytes().fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'));
    if plain {
        out.push_str(s);
    } else if let Ok(quoted) = serde_json::to_string(s) {
        // serde_json writes a string as `"` escaped text `"`: the text is between them
        out.push_str(quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or_default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_errors_are_written_as_serde_writes_them() {
        let error = |i: usize, text: &str| QuoteError {
            carrier_code: format!("c{i}"),
            service_code: "s".into(),
            service_description: "Parcel \"Night\" \\ Owl\t\u{1}é".into(),
            package_type_code: String::new(),
            error: text.into(),
            error_category: "INVALID_REQUEST".into(),
            estimated_delivery_date: (i == 1).then(|| NaiveDate::from_ymd_opt(2026, 12, 1)).flatten(),
        };
        for errors in [vec![], vec![error(0, "too heavy")], vec![error(0, "a\nb"), error(1, "ok"), error(2, "\u{7f}\u{2028}")]] {
            let mut out = String::from("x");
            write_quote_errors(&mut out, &errors);
            assert_eq!(out, format!("x{}", serde_json::to_string(&errors).unwrap()));
        }
    }
}
