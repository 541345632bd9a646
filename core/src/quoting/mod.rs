//! Batch quote (4.1) and single quote (DECISIONS 9): validate each shipment, price it
//! for every service and package type that can carry it, and persist the quotes.
//!
//! Which package types are quoted when `packageTypeCode` is open: a shipment whose
//! pieces carry dimensions describes its own box, so the services' custom package
//! types are quoted; a shipment without dimensions (`dimUnit` null) is quoted in the
//! preset and envelope package types that can carry its weight. A named package type is
//! quoted as named, and what stops it is a `quoteErrors` entry.
//!
//! A request goes one way, whatever its front end, in two steps. Pricing only reads:
//! each shipment is read on its own and validated and priced in turn ([`price_all`]);
//! its quotes are numbered from 0 ([`number`]), its rows taken out ([`rows`]) and the
//! answer built from the priced quotes ([`answer`], or [`answer_json_marked`] written
//! straight from them for the JSON interface, with the places of the quote ids marked).
//! Storing is one short transaction: the quote ids are reserved, the rows stored
//! ([`store`]) and the ids written into the answer ([`PricedQuotes`]). So a server can
//! price on any connection, in parallel, and only store on its writer.
//!
//! Persistence: the quotes of one shipment are stored as one row holding the shipment
//! as it was read (serde's JSON of the typed [`wire::QuoteShipment`]: fields the
//! interface does not know are not kept) and the quotes packed (see [`packed`]),
//! with a contiguous range of quote ids; a quote is found by its id inside that range.
//! One row per shipment instead of one per quote keeps a 500-shipment batch to 500
//! inserts.
//!
//! Each customer may store at most a number of quoted shipments per UTC day
//! ([`crate::ShippingBuilder::quoted_shipments_per_day`]): a request is refused before it
//! is priced when its shipments, were every one quoted, would take the day's count over
//! it ([`check_daily_cap`]), and again when it is stored.
//!
//! The parts: the rules of a shipment ([`validation`]), its pricing for every service
//! ([`pricing`]), which booking prices with too, and the stored quotes ([`stored`]) in
//! their packed form ([`packed`]).

mod pricing;
mod stored;
mod validation;

pub(crate) mod packed;

use std::borrow::Cow;

use chrono::NaiveDate;

use crate::catalog::{Catalog, Profile, Service};
use crate::error::{Error, ErrorCategory, Result};
use crate::limits::MAX_BATCH;
use crate::rating::{Arrival, CardId, PieceInput, Rate, RateBook};
use crate::wire;

use packed::LineName;
use pricing::price;

pub(crate) use pricing::{rate_input, rate_one};
pub(crate) use stored::{check_daily_cap, count_stored, expired_rows, find, purge_expired, purge_rows, store, stored_on};
pub use stored::{ExpiredQuotes, StoredQuote, QUOTE_LIFETIME_SECS};
pub(crate) use validation::{package_refusal, service_refusal, validate, Heaviest, ValidShipment};

/// Which request a shipment to quote came in; they differ in what a client must send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// A shipment of a batch quote (4.1): `shipmentDate`, `shipmentReference` and
    /// `currency` are required, as the spec's table says, and so is the state of a US or
    /// Canadian address.
    Batch,
    /// The single-shipment quote (DECISIONS 9), a reduced booking body as the public
    /// clients send it: without `shipmentDate` it quotes for today, without `currency` in
    /// USD; the reference may be left out; an address needs only its country and, for the
    /// US and Canada, its ZIP or postal code (a US state left out is the state of the
    /// ZIP's prefix).
    Single,
}

/// What quoting needs beyond the shipment: the data in force and the customer's view.
pub(crate) struct Context<'a> {
    /// The request the shipments came in.
    pub form: Form,
    pub catalog: &'a Catalog,
    pub rates: &'a RateBook,
    pub profile: &'a Profile,
    pub today: NaiveDate,
    /// Ids of the customer's provider accounts.
    pub provider_accounts: &'a [String],
    /// The rate card of each service's package types, see [`card_table`].
    pub cards: &'a CardTable,
}

/// The rate card of every (service, package type) of the catalog in `rates`:
/// `table[service index][index in service.package_types]`. Looked up once per request
/// rather than once per service quote (a three-string search of the book).
pub(crate) type CardTable = Vec<Vec<Option<CardId>>>;

/// Builds the [`CardTable`] of `catalog` in `rates`.
pub(crate) fn card_table(catalog: &Catalog, rates: &RateBook) -> CardTable {
    catalog
        .services()
        .iter()
        .map(|service| service.package_types.iter().map(|sp| rates.card(&service.carrier, &service.code, &sp.package_type)).collect())
        .collect()
}

/// A priced quote that borrows its names from the catalog. [`write_quotes_json`] writes
/// it as exactly the JSON of the [`wire::Quote`] that [`PricedQuote::to_wire`] builds (a
/// test pins this), and it is packed as that quote would be packed, so the answer and
/// the stored row are written from it directly, without the eight `String`s of a
/// `wire::Quote` that would only be serialised and dropped.
#[derive(Debug, Clone)]
pub(crate) struct PricedQuote<'c> {
    pub quote_id: i64,
    pub service: &'c Service,
    pub package_type: &'c str,
    pub rate: Rate,
    /// When it arrives; `None` when the service has no transit time for the route.
    pub arrival: Option<Arrival>,
}

impl PricedQuote<'_> {
    /// The quote as the typed interface returns it.
    pub fn to_wire(&self) -> wire::Quote {
        let rate = &self.rate;
        wire::Quote {
            quote_id: self.quote_id,
            carrier_code: self.service.carrier.clone(),
            service_code: self.service.code.clone(),
            service_description: self.service.label.clone(),
            package_type_code: self.package_type.to_string(),
            currency: rate.currency.as_str().to_string(),
            total_amount: rate.total,
            base_amount: rate.base,
            zone: rate.zone.as_str().to_string(),
            quoted_weight: rate.quoted_weight.normalize().to_string(),
            quoted_weight_type: rate.weight_type.as_str().to_string(),
            transit_days: self.arrival.map(|a| a.transit_days),
            estimated_delivery_date: self.arrival.map(|a| a.date),
            delivery_date_guaranteed: self.arrival.is_some_and(|a| a.guaranteed),
            surcharges: rate
                .surcharges
                .iter()
                .map(|l| wire::QuoteSurcharge { description: l.description().to_string(), amount: l.amount })
                .collect(),
        }
    }
}

impl PricedQuote<'_> {
    /// The fields of [`PricedQuote::to_wire`]'s quote, borrowed.
    fn fields(&self) -> wire::QuoteFields<'_> {
        let rate = &self.rate;
        wire::QuoteFields {
            quote_id: self.quote_id,
            carrier_code: &self.service.carrier,
            service_code: &self.service.code,
            service_description: &self.service.label,
            package_type_code: self.package_type,
            currency: rate.currency.as_str(),
            total_amount: rate.total,
            base_amount: rate.base,
            zone: rate.zone.as_str(),
            quoted_weight: wire::QuotedWeight::Number(rate.quoted_weight.normalize()),
            quoted_weight_type: rate.weight_type.as_str(),
            transit_days: self.arrival.map(|a| a.transit_days),
            estimated_delivery_date: self.arrival.map(|a| a.date),
            delivery_date_guaranteed: self.arrival.is_some_and(|a| a.guaranteed),
        }
    }
}

/// Appends `quotes` as a JSON array to `out`, as serde writes their [`wire::Quote`]s
/// (see [`wire::write_quotes`]): what [`answer_json_marked`] writes once its ids are
/// filled in.
#[cfg(test)]
pub(crate) fn write_quotes_json(out: &mut String, quotes: &[PricedQuote<'_>]) {
    wire::write_quotes(out, quotes.iter().map(|q| (q.fields(), q.rate.surcharges.iter().map(|l| (l.description(), l.amount)))));
}

/// Appends `quotes` to `out` in the packed form of [`packed`].
fn pack(out: &mut Vec<u8>, quotes: &[PricedQuote<'_>]) {
    packed::write_quotes(out, quotes.iter().map(|q| (q.fields(), q.rate.surcharges.iter().map(|l| (LineName::Kind(l.kind), l.amount)))));
}

/// One shipment of a quote request as it was read, or why it could not be read.
pub(crate) type Requested<'a> = Result<Cow<'a, wire::QuoteShipment>>;

/// The quotes and quote errors of one shipment of a request, with what its row keeps:
/// the shipment's JSON as serde writes it and the quotes packed (see [`packed`]).
#[derive(Debug)]
pub(crate) struct Quoted<'c> {
    pub quotes: Vec<PricedQuote<'c>>,
    pub errors: Vec<wire::QuoteError>,
    pub shipment_json: String,
    pub packed: Vec<u8>,
}

/// What became of one shipment of a quote request.
pub(crate) type Outcome<'c> = Result<Quoted<'c>>;

/// Validates and prices each shipment of `requested` in order: the outcome of each. A
/// shipment that could not be read, or breaks a shipment-level rule, fails alone; the
/// answer puts its index in the field paths ([`answer`], [`answer_json`]). (`dyn`: one
/// copy of the pricing for every way shipments are read, which the size of the WASM
/// package needs.)
pub(crate) fn price_all<'c>(ctx: &Context<'c>, requested: &mut dyn Iterator<Item = Requested<'_>>) -> Vec<Outcome<'c>> {
    let mut buf: Vec<PieceInput> = Vec::new();
    requested
        .map(|read| {
            read.and_then(|s| {
                // the row keeps the shipment as it was read, as serde writes it: what the
                // client sent beyond the fields of a shipment is not kept
                let shipment_json = wire::shipment_json(&s);
                let valid = validate(ctx, s.into_owned())?;
                let priced = price(ctx, &valid, ctx.profile.markup_percent, &mut buf)?;
                // (quote ids are not part of the packed form: it can be written now, into
                // room for it: a packed quote is about 96 bytes)
                let mut packed = Vec::new();
                if !priced.quotes.is_empty() {
                    packed.reserve(1 + 96 * priced.quotes.len());
                    pack(&mut packed, &priced.quotes);
                }
                Ok(Quoted { quotes: priced.quotes, errors: priced.errors, shipment_json, packed })
            })
        })
        .collect()
}

/// Gives the quotes of `outcomes` the ids `first`, `first + 1`, ...: consecutive, in
/// order, so that each shipment's quotes are a range from its first. Returns how many
/// quotes there are.
pub(crate) fn number(outcomes: &mut [Outcome<'_>], first: i64) -> usize {
    let quotes = outcomes.iter_mut().filter_map(|o| o.as_mut().ok()).flat_map(|quoted| quoted.quotes.iter_mut());
    let mut n = 0;
    for (id, q) in (first..).zip(quotes) {
        q.quote_id = id;
        n += 1;
    }
    n
}

/// The row of one quoted shipment to store: its quotes' ids are `first` on from the
/// first id of its request.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The first quote's id, counted from the request's first (see [`number`]).
    pub first: i64,
    pub count: i64,
    /// The shipment's JSON (see [`Quoted`]).
    pub shipment: String,
    pub packed: Vec<u8>,
}

/// The rows of `outcomes` (numbered from 0 by [`number`]), one per shipment that has
/// quotes, taken out of them: the answer needs only the quotes and the errors.
pub(crate) fn rows(outcomes: &mut [Outcome<'_>]) -> Vec<Row> {
    outcomes
        .iter_mut()
        .filter_map(|o| o.as_mut().ok())
        .filter_map(|quoted| {
            let first = quoted.quotes.first()?.quote_id;
            Some(Row {
                first,
                count: quoted.quotes.len() as i64,
                shipment: std::mem::take(&mut quoted.shipment_json),
                packed: std::mem::take(&mut quoted.packed),
            })
        })
        .collect()
}

/// The answer of a quote request (4.1) from the outcome of each of its shipments.
pub(crate) fn answer(outcomes: Vec<Outcome<'_>>) -> wire::BatchQuoteResponse {
    let results = outcomes
        .into_iter()
        .enumerate()
        .map(|(i, outcome)| match outcome {
            Ok(q) => wire::ShipmentQuotes {
                quotes: Some(q.quotes.iter().map(PricedQuote::to_wire).collect()),
                quote_errors: Some(q.errors),
                ..result(i, "success")
            },
            Err(e) => failed(i, e),
        })
        .collect();
    wire::BatchQuoteResponse { results }
}

/// The JSON of [`answer`]'s answer (a test pins this), with each shipment's quotes
/// written straight into it from their rates and the catalog's names: the answer of an
/// all-services request is 7,000 quotes and megabytes of JSON. Written before the ids
/// are known: the place of each quote's id is marked (see [`wire::fill_ids`]).
pub(crate) fn answer_json_marked(outcomes: &[Outcome<'_>]) -> Result<(String, Vec<usize>)> {
    let mut marks = Vec::with_capacity(outcomes.iter().map(|o| o.as_ref().map_or(0, |q| q.quotes.len())).sum());
    let text = write_answer(outcomes, |out, quotes| {
        wire::write_quotes_marked(
            out,
            quotes.iter().map(|q| (q.fields(), q.rate.surcharges.iter().map(|l| (l.description(), l.amount)))),
            &mut marks,
        );
    })?;
    Ok((text, marks))
}

/// The JSON of [`answer`]'s answer with the quotes' ids written: what
/// [`answer_json_marked`] gives once its ids are filled in.
#[cfg(test)]
pub(crate) fn answer_json(outcomes: &[Outcome<'_>]) -> Result<String> {
    write_answer(outcomes, write_quotes_json)
}

/// The answer's JSON with each shipment's quotes written by `quotes`.
fn write_answer(outcomes: &[Outcome<'_>], mut quotes: impl FnMut(&mut String, &[PricedQuote<'_>])) -> Result<String> {
    let size: usize = outcomes
        .iter()
        .map(|o| o.as_ref().map_or(0, |q| q.quotes.iter().map(|q| wire::quote_json_size(q.rate.surcharges.len())).sum()) + 100)
        .sum();
    let mut out = String::with_capacity(size + 16);
    out.push_str("{\"results\":[");
    for (i, outcome) in outcomes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match outcome {
            Ok(q) => wire::write_quoted_result(&mut out, i, |out| quotes(out, &q.quotes), &q.errors),
            Err(e) => out.push_str(&wire::to_json(&failed(i, e.clone()))?),
        }
    }
    out.push_str("]}");
    Ok(out)
}

/// A result of the answer with its index and status and nothing else.
fn result(shipment_index: usize, status: &str) -> wire::ShipmentQuotes {
    wire::ShipmentQuotes {
        shipment_index,
        status: status.into(),
        quotes: None,
        quote_errors: None,
        error: None,
        error_category: None,
        details: None,
    }
}

/// The result of shipment `i`, which failed with `e`: its field paths under
/// `shipments[i]`.
fn failed(i: usize, e: Error) -> wire::ShipmentQuotes {
    let e = e.within(&format!("shipments[{i}]"));
    wire::ShipmentQuotes {
        error: Some(e.message().to_string()),
        error_category: Some(e.category().code().to_string()),
        details: (!e.details().is_empty()).then(|| e.details().to_vec()),
        ..result(i, "error")
    }
}

/// A quote request priced and answered, whose quotes are not yet stored: what
/// [`crate::Shipping::prepare_as`] makes of a batch or single quote on any connection, for
/// [`crate::Shipping::store_priced`] to store on the one that writes. Quote ids are given
/// when the quotes are stored.
#[derive(Debug)]
pub struct PricedQuotes {
    pub(crate) customer_id: String,
    /// The rows to store, their ids counted from 0.
    pub(crate) rows: Vec<Row>,
    /// How many quotes the rows hold.
    pub(crate) quotes: usize,
    pub(crate) answer: PricedAnswer,
}

/// The answer of a [`PricedQuotes`], its quote ids counted from 0 until they are stored.
#[derive(Debug)]
pub(crate) enum PricedAnswer {
    /// A batch quote's JSON, with the places of its quote ids (see [`wire::fill_ids`]).
    Batch { text: String, marks: Vec<usize> },
    /// A single quote's answer.
    Single(wire::QuoteAnswer),
}

impl PricedQuotes {
    /// How many quoted shipments (rows) storing these quotes writes.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// The JSON answer of the request (status 200) once its quotes are stored from
    /// `first` on.
    pub(crate) fn answer_body(self, first: i64) -> Result<String> {
        let body = match self.answer {
            PricedAnswer::Batch { text, marks } => wire::fill_ids(&text, &marks, first),
            PricedAnswer::Single(mut answer) => {
                match &mut answer {
                    wire::QuoteAnswer::One(q) => q.quote_id += first,
                    wire::QuoteAnswer::Many(many) => many.quotes.iter_mut().for_each(|q| q.quote_id += first),
                }
                wire::to_json(&answer)?
            }
        };
        Ok(body)
    }
}

/// Refuses a request of more than [`MAX_BATCH`] shipments, before any is read.
///
/// # Errors
/// `LIMIT_EXCEEDED` on `shipments`.
pub(crate) fn check_batch_size(n: usize) -> Result<()> {
    if n > MAX_BATCH {
        return Err(Error::fields(
            ErrorCategory::LimitExceeded,
            vec![crate::FieldError { field: "shipments".into(), message: format!("at most {MAX_BATCH} shipments per request, found {n}") }],
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    use rust_decimal::Decimal;

    use super::*;
    use crate::rating::{Currency, Lines, Surcharge, SurchargeKind, WeightType, WeightUnit, Zone};
    use crate::wire;

    /// The quotes writer writes what serde writes, for priced and for wire quotes: names
    /// that need escaping, amounts of every scale, no surcharges and several.
    #[test]
    fn quotes_are_written_as_serde_writes_them() {
        let catalog = Catalog::default_catalog().unwrap();
        let mut odd = catalog.services()[0].clone();
        odd.label = "Parcel \"Night\" \\ Owl\t\u{1}é".into();
        let services = [catalog.services()[0].clone(), odd];
        let amount = |text: &str| text.parse::<Decimal>().unwrap();
        let mut quotes = Vec::new();
        for (i, service) in services.iter().enumerate() {
            for (j, lines) in [vec![], vec![(SurchargeKind::Fuel, "1.20"), (SurchargeKind::Insurance, "0.001")]].into_iter().enumerate() {
                let surcharges = Lines::of(&lines.into_iter().map(|(kind, a)| Surcharge { kind, amount: amount(a) }).collect::<Vec<_>>());
                quotes.push(PricedQuote {
                    quote_id: 1_000_000_007 + (i * 2 + j) as i64,
                    service,
                    package_type: if j == 0 { "parcel_custom" } else { "a\"b" },
                    rate: Rate {
                        zone: Zone::new("8").unwrap(),
                        base: amount(["12.50", "0", "1000000.00", "-0.5"][i * 2 + j]),
                        surcharges,
                        total: amount(["13.70", "0.00", "79228162514264337593543950335", "7.9228162514264337593543950335"][i * 2 + j]),
                        quoted_weight: amount(["2.500", "0.5", "31", "100"][i * 2 + j]),
                        quoted_weight_unit: WeightUnit::Lb,
                        weight_type: if j == 0 { WeightType::Actual } else { WeightType::Dimensional },
                        currency: Currency::Usd,
                    },
                    arrival: [
                        None,
                        NaiveDate::from_ymd_opt(2026, 11, 30).map(|date| Arrival { transit_days: 2, date, guaranteed: true }),
                        NaiveDate::from_ymd_opt(2027, 1, 4).map(|date| Arrival { transit_days: 12, date, guaranteed: false }),
                        NaiveDate::from_ymd_opt(10_000, 1, 1).map(|date| Arrival { transit_days: 0, date, guaranteed: false }),
                    ][i * 2 + j],
                });
            }
        }
        for n in 0..=quotes.len() {
            let mut written = String::new();
            write_quotes_json(&mut written, &quotes[..n]);
            let wire: Vec<wire::Quote> = quotes[..n].iter().map(PricedQuote::to_wire).collect();
            assert_eq!(written, serde_json::to_string(&wire).unwrap());
        }
    }

    /// The answer written before the ids are known, its ids then filled in, is byte for
    /// byte the answer written with them: over quotes, failed shipments and shipments
    /// without quotes, from any first id.
    #[test]
    fn an_answer_with_its_ids_filled_in_is_the_answer_written_with_them() {
        let catalog = Catalog::default_catalog().unwrap();
        let quote = |service: usize, total: &str| PricedQuote {
            quote_id: 0,
            service: &catalog.services()[service],
            package_type: "parcel_custom",
            rate: Rate {
                zone: Zone::new("5").unwrap(),
                base: Decimal::ONE,
                surcharges: Lines::of(&[Surcharge { kind: SurchargeKind::Fuel, amount: Decimal::TWO }]),
                total: total.parse().unwrap(),
                quoted_weight: Decimal::TEN,
                quoted_weight_unit: WeightUnit::Lb,
                weight_type: WeightType::Actual,
                currency: Currency::Usd,
            },
            arrival: None,
        };
        let outcomes = || -> Vec<Outcome> {
            let quoted = |quotes| Ok(Quoted { quotes, errors: vec![], shipment_json: String::new(), packed: vec![] });
            vec![
                quoted(vec![quote(0, "3.00"), quote(1, "4.50")]),
                Err(Error::invalid("receiver.state", "is not a state")),
                quoted(vec![]),
                quoted((0..12).map(|i| quote(i % 3, "9.99")).collect()),
            ]
        };
        for first in [1, 9, 10, 99_999, 1_000_000_007] {
            let mut marked = outcomes();
            assert_eq!(number(&mut marked, 0), 14);
            let (text, marks) = answer_json_marked(&marked).unwrap();
            let mut direct = outcomes();
            number(&mut direct, first);
            assert_eq!(wire::fill_ids(&text, &marks, first), answer_json(&direct).unwrap());
        }
    }
}
