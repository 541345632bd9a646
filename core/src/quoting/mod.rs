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

use std::borrow::Cow;

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::Connection;
use rust_decimal::Decimal;

use crate::address::{self, Address, AddressUse};
use crate::catalog::{Carrier, Catalog, PackageType, Profile, Service, ServicePackage};
use crate::error::{Error, ErrorCategory, Problems, Result};
use crate::limits::MAX_BATCH;
use crate::rating::{self, Arrival, CardId, Currency, DimUnit, PieceInput, Place, Rate, RateBook, RateError, RateInput, WeightUnit};
use crate::shipment::{self, ValidPiece};
use crate::wire::{self, CompactString};
use packed::LineName;

pub(crate) mod packed;

/// How long a quote can be booked: 30 x 24 hours (DECISIONS 3).
pub const QUOTE_LIFETIME_SECS: i64 = 30 * 24 * 3600;

/// A shipment that passed every shipment-level rule.
#[derive(Debug, Clone)]
pub(crate) struct ValidShipment {
    pub carrier: Option<CompactString>,
    pub service: Option<CompactString>,
    pub package_type: Option<CompactString>,
    pub date: NaiveDate,
    pub sender: Address,
    pub receiver: Address,
    pub residential: bool,
    pub signature: Option<CompactString>,
    pub saturday: bool,
    pub am_delivery: bool,
    pub dangerous_goods: Option<CompactString>,
    pub weight_unit: WeightUnit,
    pub dim_unit: Option<DimUnit>,
    pub currency: Currency,
    pub pieces: Vec<ValidPiece>,
    /// The latest arrival wanted (`deliverBy`): services estimated later are quote errors.
    pub deliver_by: Option<NaiveDate>,
}

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

/// Validates one shipment of a quote request (every shipment-level rule of 4.1 and 7).
pub(crate) fn validate(ctx: &Context, mut s: wire::QuoteShipment) -> Result<ValidShipment> {
    shipment::check_limits(&s.pieces, s.commercial_invoice.as_ref())?;
    let mut p = Problems::new();
    let catalog = ctx.catalog;
    let single = ctx.form == Form::Single;
    let usage = if single { AddressUse::ReducedQuote } else { AddressUse::Quote };
    let sender = address::validate_owned(&mut p, "sender", std::mem::take(&mut s.sender), usage);
    let receiver = address::validate_owned(&mut p, "receiver", std::mem::take(&mut s.receiver), usage);
    // What the single quote may leave out (or send empty, DECISIONS 1) is absent there.
    fn given(v: &Option<CompactString>, single: bool) -> Option<&str> {
        v.as_deref().filter(|t| !(single && t.trim().is_empty()))
    }
    let date = match given(&s.shipment_date, single) {
        Some(text) => shipment::shipment_date(&mut p, "shipmentDate", text, ctx.today),
        None if single => Some(ctx.today),
        None => {
            p.push("shipmentDate", "is required");
            None
        }
    };
    match &s.shipment_reference {
        Some(r) if r.chars().count() > 100 => p.push("shipmentReference", "must be at most 100 characters"),
        None if !single => p.push("shipmentReference", "is required"),
        _ => {}
    }
    let deliver_by = s.deliver_by.as_deref().and_then(|text| {
        let by = crate::dates::parse_date(text);
        match (by, date) {
            (None, _) => p.push("deliverBy", format!("expected a date as YYYY-MM-DD, found {text:?}")),
            (Some(by), Some(date)) if by < date => p.push("deliverBy", format!("{by} is before the shipment date {date}")),
            _ => {}
        }
        by
    });
    let currency_text = match given(&s.currency, single) {
        Some(text) => Some(text),
        None if single => Some(Currency::Usd.as_str()),
        None => {
            p.push("currency", "is required");
            None
        }
    };
    let (weight_unit, dim_unit, currency) =
        shipment::units(&mut p, &s.weight_unit, s.dim_unit.as_ref().map(Option::as_deref), currency_text);
    let domestic = !sender.country.is_empty() && sender.country == receiver.country;
    let pieces = shipment::pieces(&mut p, &s.pieces, domestic, dim_unit, matches!(s.dim_unit, Some(None)));

    if let Some(c) = &s.carrier_code {
        if catalog.carrier(c).is_none_or(|_| !catalog.services_for(ctx.profile).any(|sv| sv.carrier == *c)) {
            p.push("carrierCode", format!("{c:?} is not a carrier offered to this customer"));
        }
    }
    if let Some(code) = &s.service_code {
        match catalog.services_for(ctx.profile).find(|sv| sv.code == *code) {
            None => p.push("serviceCode", format!("{code:?} is not a service offered to this customer")),
            Some(sv) if s.carrier_code.as_ref().is_some_and(|c| *c != sv.carrier) => p.push(
                "serviceCode",
                format!("{code:?} is a service of {}, not of {}", sv.carrier, s.carrier_code.as_deref().unwrap_or("")),
            ),
            Some(_) => {}
        }
    }
    if let Some(code) = &s.package_type_code {
        let known = catalog.document().carriers.iter().any(|c| c.package_types.iter().any(|pt| pt.code == *code));
        if !known {
            p.push("packageTypeCode", format!("{code:?} is not a package type of the catalog"));
        }
    }
    if crate::catalog::signature_asked(s.signature_option_code.as_deref()).is_none() {
        s.signature_option_code = None;
    }
    if let Some(code) = &s.signature_option_code {
        if !catalog.document().carriers.iter().any(|c| c.signature_option(code).is_some()) {
            p.push("signatureOptionCode", format!("{code:?} is not a signature option of any carrier; list services shows them"));
        }
    }
    if let Some(id) = &s.provider_account_id {
        if !ctx.provider_accounts.iter().any(|a| a == id) {
            p.push("providerAccountId", format!("{id:?} is not one of this customer's provider accounts"));
        }
    }
    shipment::billing(&mut p, s.billing.as_ref());
    if let (Some(invoice), Some(unit)) = (&s.commercial_invoice, weight_unit) {
        let package_weight = pieces.iter().fold(Decimal::ZERO, |acc, piece| acc.checked_add(piece.weight).unwrap_or(Decimal::MAX));
        shipment::quote_invoice(&mut p, invoice, package_weight, unit.as_str())?;
    }
    p.finish()?;
    let (Some(date), Some(weight_unit), Some(currency)) = (date, weight_unit, currency) else {
        return Err(Error::internal("a shipment passed validation without its date or units"));
    };
    Ok(ValidShipment {
        carrier: s.carrier_code,
        service: s.service_code,
        package_type: s.package_type_code,
        date,
        sender,
        receiver,
        residential: s.residential.unwrap_or(false),
        signature: s.signature_option_code,
        saturday: s.saturday_delivery.unwrap_or(false),
        am_delivery: s.postal_express_am_delivery.unwrap_or(false),
        dangerous_goods: s.dangerous_goods_code,
        weight_unit,
        dim_unit,
        currency,
        pieces,
        deliver_by,
    })
}

/// The quotes and quote errors of one shipment.
#[derive(Debug, Default)]
pub(crate) struct Priced<'c> {
    pub quotes: Vec<PricedQuote<'c>>,
    pub errors: Vec<wire::QuoteError>,
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

fn quote_error(service: &Service, package_type: &str, category: ErrorCategory, error: String) -> wire::QuoteError {
    wire::QuoteError {
        carrier_code: service.carrier.clone(),
        service_code: service.code.clone(),
        service_description: service.label.clone(),
        package_type_code: package_type.to_string(),
        error,
        error_category: category.code().to_string(),
        estimated_delivery_date: None,
    }
}

/// `None` when `quote` arrives by `by`; else the quote error `DELIVERY_DATE_NOT_MET`
/// that says when it would arrive (or that it cannot promise a date).
fn late(quote: &PricedQuote<'_>, by: NaiveDate) -> Option<wire::QuoteError> {
    let label = &quote.service.label;
    let (message, date) = match quote.arrival {
        Some(a) if a.date <= by => return None,
        Some(a) => (format!("{label} is estimated to arrive on {}, after deliverBy {by}", a.date), Some(a.date)),
        None => (format!("{label} has no transit time for this route, so it cannot promise arrival by {by}"), None),
    };
    let mut e = quote_error(quote.service, quote.package_type, ErrorCategory::DeliveryDateNotMet, message);
    e.estimated_delivery_date = date;
    Some(e)
}

/// Why a service cannot take the shipment at all, whatever the package type.
pub(crate) fn service_refusal(today: NaiveDate, s: &ValidShipment, service: &Service, carrier: &Carrier) -> Option<(&'static str, String)> {
    if let Some(lead) = carrier.lead_days {
        let days = (s.date - today).num_days();
        if days > i64::from(lead) {
            return Some((
                "shipmentDate",
                format!("{} accepts shipment dates at most {lead} days ahead; {} is {days} days ahead", carrier.label, s.date),
            ));
        }
    }
    // A quote may leave the name out (the booking cannot): only a name sent is checked.
    if carrier.requires_sender_full_name && !s.sender.name.is_empty() && s.sender.name.split_whitespace().count() < 2 {
        return Some((
            "sender.name",
            format!("{} requires the sender name to include both first and last name, found {:?}", carrier.label, s.sender.name),
        ));
    }
    if let Some(sig) = &s.signature {
        if carrier.signature_option(sig).is_none() {
            return Some(("signatureOptionCode", format!("signature option {sig:?} is not offered by {}", carrier.label)));
        }
    }
    if s.saturday && !service.saturday_delivery {
        return Some(("saturdayDelivery", format!("{} does not offer Saturday delivery", service.label)));
    }
    if s.am_delivery && !service.am_delivery {
        return Some(("postalExpressAmDelivery", format!("{} does not offer 10:30 AM delivery", service.label)));
    }
    if let Some(code) = &s.dangerous_goods {
        let accepted = service.dangerous_goods_codes.as_deref().is_some_and(|list| list.split(',').any(|c| c.trim() == code));
        if !accepted {
            return Some(("dangerousGoodsCode", format!("{} does not accept dangerous goods code {code:?}", service.label)));
        }
    }
    None
}

/// The heaviest piece of a shipment in each weight unit, worked out once per unit: a
/// shipment is checked against the maximum weight of every package type of every service,
/// and nearly always passes.
#[derive(Debug, Default)]
pub(crate) struct Heaviest([Option<Decimal>; 4]);

impl Heaviest {
    fn get(&mut self, s: &ValidShipment, unit: WeightUnit) -> Decimal {
        let slot = match unit {
            WeightUnit::Lb => 0,
            WeightUnit::Oz => 1,
            WeightUnit::Kg => 2,
            WeightUnit::G => 3,
        };
        *self.0[slot].get_or_insert_with(|| {
            s.pieces.iter().map(|p| rating::convert_weight(p.weight, s.weight_unit, unit)).max().unwrap_or(Decimal::ZERO)
        })
    }
}

/// Why a package type cannot carry a shipment; worded only when an answer shows it
/// (an all-services quote meets many refusals and shows few).
#[derive(Debug)]
pub(crate) enum Refusal<'a> {
    /// More than one piece for a single-piece package type.
    Multipiece { label: &'a str, pieces: usize },
    /// A custom package type and a piece without dimensions.
    NeedsDims { label: &'a str },
    /// The first piece above the maximum weight, in the package type's unit.
    TooHeavy { piece: usize, weight: Decimal, max: Decimal, unit: WeightUnit, label: &'a str },
}

impl std::fmt::Display for Refusal<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Multipiece { label, pieces } => write!(f, "{label} does not take multipiece shipments ({pieces} pieces given)"),
            Refusal::NeedsDims { label } => write!(f, "{label} needs the length, width and height of every piece (and dimUnit)"),
            Refusal::TooHeavy { piece, weight, max, unit, label } => write!(
                f,
                "pieces[{piece}] weighs {} {}, above the {} {} maximum per piece of {label}",
                weight.round_dp(2).normalize(),
                unit.as_str(),
                max.normalize(),
                unit.as_str()
            ),
        }
    }
}

/// Why `pt` (as offered by the service) cannot carry the shipment, if it cannot.
/// `heaviest` is the shipment's (a fresh one will do; keeping it saves the conversions).
pub(crate) fn package_refusal<'a>(
    s: &ValidShipment,
    sp: &ServicePackage,
    pt: &'a PackageType,
    heaviest: &mut Heaviest,
) -> Option<Refusal<'a>> {
    if s.pieces.len() > 1 && !sp.multipiece {
        return Some(Refusal::Multipiece { label: &pt.label, pieces: s.pieces.len() });
    }
    if pt.is_custom() && s.pieces.iter().any(|piece| piece.dims.is_none()) {
        return Some(Refusal::NeedsDims { label: &pt.label });
    }
    let max = sp.max_weight.unwrap_or(pt.max_weight);
    let unit: WeightUnit = pt.weight_unit.parse().unwrap_or(WeightUnit::Lb);
    if heaviest.get(s, unit) <= max {
        return None;
    }
    s.pieces.iter().enumerate().find_map(|(piece, p)| {
        let weight = rating::convert_weight(p.weight, s.weight_unit, unit);
        (weight > max).then_some(Refusal::TooHeavy { piece, weight, max, unit, label: &pt.label })
    })
}

/// Prices one validated shipment for every service of the profile that serves it.
///
/// # Errors
/// `SERVICE_NOT_AVAILABLE` when no service serves the route and none was named.
pub(crate) fn price<'c>(ctx: &Context<'c>, s: &ValidShipment, markup: Decimal, buf: &mut Vec<PieceInput>) -> Result<Priced<'c>> {
    let catalog = ctx.catalog;
    // Service codes are unique in a catalog: a named service is one place in the list,
    // found once instead of being compared in every round of the loop.
    let services = catalog.services();
    let (first, count) = match s.service.as_deref() {
        Some(code) => services.iter().position(|sv| sv.code == code).map_or((0, 0), |i| (i, 1)),
        None => (0, services.len()),
    };
    // Room for every quote of a named service (one per package type at most), or for
    // those of a domestic box over all services (up to 18 in the default catalog), so
    // that the vector of these large values neither grows nor is far too big.
    let room = match s.service {
        Some(_) => services.iter().skip(first).take(count).map(|sv| sv.package_types.len()).sum(),
        None => 20,
    };
    let mut out = Priced { quotes: Vec::with_capacity(room), ..Priced::default() };
    let mut served = false;
    let mut heaviest = Heaviest::default();
    // The first service that served the route but had no package type to quote or
    // refuse: why it has nothing is told only when nothing else is (see [`unquoted`]).
    let mut silent: Option<(usize, &Service)> = None;
    for (i, (service, cards)) in services.iter().zip(ctx.cards).enumerate().skip(first).take(count) {
        if !catalog.offers(ctx.profile, service) {
            continue;
        }
        let carrier = catalog.carrier_of(i);
        if s.carrier.as_ref().is_some_and(|c| *c != service.carrier) {
            continue;
        }
        let named_package = s.package_type.as_deref();
        if !carrier.is_some_and(|c| catalog.serves_at(i, c, &s.sender.country, &s.receiver.country, &s.receiver.state)) {
            if s.service.is_some() {
                out.errors.push(quote_error(
                    service,
                    named_package.unwrap_or(""),
                    ErrorCategory::ServiceNotAvailable,
                    format!("{} does not serve {} to {}", service.label, s.sender.country, s.receiver.country),
                ));
            }
            continue;
        }
        if named_package.is_some_and(|code| !service.package_types.iter().any(|sp| sp.package_type == code)) {
            // A package type of another carrier or service: not this service's concern
            // unless the service itself was named.
            if s.service.is_some() {
                out.errors.push(quote_error(
                    service,
                    named_package.unwrap_or(""),
                    ErrorCategory::InvalidRequest,
                    format!("{} does not offer package type {:?}", service.label, named_package.unwrap_or("")),
                ));
            }
            continue;
        }
        served = true;
        let Some(carrier) = carrier else { continue };
        if let Some((_, reason)) = service_refusal(ctx.today, s, service, carrier) {
            out.errors.push(quote_error(service, named_package.unwrap_or(""), ErrorCategory::InvalidRequest, reason));
            continue;
        }
        let has_dims = s.pieces.iter().all(|piece| piece.dims.is_some());
        let errors_before = out.errors.len();
        let mut first_refusal: Option<(&str, Refusal)> = None;
        let mut quoted_any = false;
        for (j, (sp, card)) in service.package_types.iter().zip(cards).enumerate() {
            let Some(pt) = catalog.offered_package(i, j) else { continue };
            match named_package {
                Some(code) if code != pt.code => continue,
                None if pt.is_custom() != has_dims => continue,
                _ => {}
            }
            if let Some(reason) = package_refusal(s, sp, pt, &mut heaviest) {
                if named_package.is_some() {
                    out.errors.push(quote_error(service, &pt.code, ErrorCategory::InvalidRequest, reason.to_string()));
                } else if first_refusal.is_none() {
                    first_refusal = Some((&pt.code, reason));
                }
                continue;
            }
            match rate_one(ctx.rates, *card, s, carrier, service, pt, markup, buf) {
                Ok(quote) => match s.deliver_by.and_then(|by| late(&quote, by)) {
                    Some(late) => out.errors.push(late),
                    None => {
                        quoted_any = true;
                        out.quotes.push(quote);
                    }
                },
                Err((category, reason)) => out.errors.push(quote_error(service, &pt.code, category, reason)),
            }
        }
        if named_package.is_none() && !quoted_any {
            if let Some((code, reason)) = first_refusal {
                out.errors.push(quote_error(service, code, ErrorCategory::InvalidRequest, reason.to_string()));
            }
        }
        if !quoted_any && silent.is_none() && out.errors.len() == errors_before {
            silent = Some((i, service));
        }
    }
    // A success with neither quotes nor quote errors would not say why a service was
    // not quoted (a named one, for instance a custom-only service for pieces without
    // dimensions): the first service that served the route says it.
    if let (true, true, Some((i, service))) = (out.quotes.is_empty(), out.errors.is_empty(), silent) {
        let (code, reason) = unquoted(catalog, i, service, s);
        out.errors.push(quote_error(service, code, ErrorCategory::InvalidRequest, reason));
    }
    if !served && s.service.is_none() {
        let what = s.carrier.as_deref().map_or(String::new(), |c| format!(" of carrier {c}"));
        return Err(Error::new(
            ErrorCategory::ServiceNotAvailable,
            format!("No service{what} offered to this customer ships from {} to {}.", s.sender.country, s.receiver.country),
        ));
    }
    Ok(out)
}

/// Why `service` (the `index`-th of the catalog), which serves the route of `s`, had no
/// package type to quote or refuse: the package type code to name and the reason.
fn unquoted<'c>(catalog: &'c Catalog, index: usize, service: &'c Service, s: &ValidShipment) -> (&'c str, String) {
    let offered: Vec<&PackageType> = (0..service.package_types.len()).filter_map(|j| catalog.offered_package(index, j)).collect();
    if let Some(code) = s.package_type.as_deref() {
        let code = service.package_types.iter().find(|sp| sp.package_type == code).map_or("", |sp| sp.package_type.as_str());
        return (code, format!("{} lists package type {code:?}, but its carrier has no such package type in the catalog", service.label));
    }
    let has_dims = s.pieces.iter().all(|piece| piece.dims.is_some());
    match offered.iter().find(|pt| pt.is_custom()) {
        Some(custom) if !has_dims => (&custom.code, Refusal::NeedsDims { label: &custom.label }.to_string()),
        _ if offered.is_empty() => ("", format!("{} offers no package type", service.label)),
        _ => {
            let codes: Vec<&str> = offered.iter().map(|pt| pt.code.as_str()).collect();
            (
                "",
                format!(
                    "{} has no custom packaging for pieces with dimensions; name one of its package types ({}) in packageTypeCode",
                    service.label,
                    codes.join(", ")
                ),
            )
        }
    }
}

/// Rates `s` in package type `pt` of `service` (of `carrier`) on `card`.
#[expect(clippy::too_many_arguments, reason = "each is an input of the rate; the quote loop has them apart")]
pub(crate) fn rate_one<'c>(
    rates: &RateBook,
    card: Option<CardId>,
    s: &ValidShipment,
    carrier: &Carrier,
    service: &'c Service,
    pt: &'c PackageType,
    markup: Decimal,
    buf: &mut Vec<PieceInput>,
) -> std::result::Result<PricedQuote<'c>, (ErrorCategory, String)> {
    let card = card.ok_or_else(|| {
        (ErrorCategory::ServiceNotAvailable, format!("no rate card prices {} in {}; import one", service.label, pt.label))
    })?;
    let input = rate_input(s, carrier, pt, markup, buf);
    let rate = rates.rate(card, &input).map_err(|e| {
        let category = match e {
            RateError::RouteNotPriced { .. } | RateError::ZoneNotPriced(_) | RateError::UnknownCard => ErrorCategory::ServiceNotAvailable,
            _ => ErrorCategory::InvalidRequest,
        };
        (category, e.to_string())
    })?;
    let arrival = rates.arrival(card, rate.zone, s.date, s.saturday);
    Ok(PricedQuote { quote_id: 0, service, package_type: &pt.code, rate, arrival })
}

/// Everything the price of `s` in package type `pt` depends on besides the rate card:
/// what a quote priced, and what a booking by its `quoteId` must match. Preset package
/// types are priced at their own dimensions, whatever the pieces say.
pub(crate) fn rate_input<'a>(
    s: &'a ValidShipment,
    carrier: &'a Carrier,
    pt: &PackageType,
    markup: Decimal,
    buf: &'a mut Vec<PieceInput>,
) -> RateInput<'a> {
    let (dims, dim_unit) = if pt.is_preset() {
        (pt.preset_dims(), pt.dim_unit.as_deref().and_then(|u| u.parse().ok()).unwrap_or(DimUnit::In))
    } else {
        (None, s.dim_unit.unwrap_or(DimUnit::In))
    };
    buf.clear();
    buf.extend(s.pieces.iter().map(|piece| PieceInput {
        weight: piece.weight,
        dims: if pt.is_custom() { piece.dims } else { dims },
        insurance: piece.insurance,
    }));
    RateInput {
        sender: place(&s.sender),
        receiver: place(&s.receiver),
        residential: s.residential,
        weight_unit: s.weight_unit,
        dim_unit,
        pieces: buf,
        // the carrier's own code of the option, however it was named
        signature_option: s.signature.as_deref().map(|sig| carrier.signature_option(sig).map_or(sig, |o| o.code.as_str())),
        saturday_delivery: s.saturday,
        am_delivery: s.am_delivery,
        dangerous_goods: s.dangerous_goods.is_some(),
        currency: s.currency,
        markup_percent: markup,
    }
}

fn place(a: &Address) -> Place<'_> {
    Place { country: a.country.as_str(), state: a.state.as_str(), zip: a.zip.as_deref() }
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

/// Stores `rows`, whose ids start at `first` (reserved by the caller), with their
/// shipments' JSON and their quotes packed.
pub(crate) fn store(tx: &Connection, customer_id: &str, now: DateTime<Utc>, first: i64, rows: &[Row]) -> Result<()> {
    let created = now.timestamp();
    let mut insert = tx.prepare_cached(
        "INSERT INTO quoted_shipments (customer_id, first_quote_id, quote_count, shipment, quotes, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for row in rows {
        insert.execute(rusqlite::params![
            customer_id,
            first + row.first,
            row.count,
            row.shipment,
            row.packed,
            created,
            created + QUOTE_LIFETIME_SECS
        ])?;
    }
    Ok(())
}

/// How many quoted shipments of the customer were stored on `day` (UTC).
pub(crate) fn stored_on(conn: &Connection, customer_id: &str, day: NaiveDate) -> Result<u64> {
    let mut count = conn.prepare_cached("SELECT shipments FROM quote_days WHERE customer_id = ?1 AND day = ?2")?;
    let n: Option<i64> =
        rusqlite::OptionalExtension::optional(count.query_row(rusqlite::params![customer_id, day.to_string()], |r| r.get(0)))?;
    Ok(n.map_or(0, |n| u64::try_from(n).unwrap_or(0)))
}

/// Adds `n` quoted shipments of the customer to the count of `day` (UTC); the count of
/// an earlier day is replaced.
pub(crate) fn count_stored(tx: &Connection, customer_id: &str, day: NaiveDate, n: u64) -> Result<()> {
    let mut upsert = tx.prepare_cached(
        "INSERT INTO quote_days (customer_id, day, shipments) VALUES (?1, ?2, ?3)
         ON CONFLICT (customer_id) DO UPDATE SET
             shipments = CASE WHEN day = excluded.day THEN shipments + excluded.shipments ELSE excluded.shipments END,
             day = excluded.day",
    )?;
    upsert.execute(rusqlite::params![customer_id, day.to_string(), i64::try_from(n).unwrap_or(i64::MAX)])?;
    Ok(())
}

/// Refuses `n` more quoted shipments of a customer who stored `stored` on the UTC day of
/// `now`, when they would take the day's count over `cap`.
///
/// # Errors
/// `TOO_MANY_REQUESTS`, to be retried at the next UTC midnight.
pub(crate) fn check_daily_cap(stored: u64, n: u64, cap: u64, now: DateTime<Utc>) -> Result<()> {
    if stored.saturating_add(n) <= cap {
        return Ok(());
    }
    let midnight = now.date_naive().succ_opt().and_then(|d| d.and_hms_opt(0, 0, 0)).map(|t| t.and_utc());
    let wait = midnight.map_or(86_400, |m| (m - now).num_seconds().max(1));
    let left = cap.saturating_sub(stored);
    Err(Error::new(
        ErrorCategory::TooManyRequests,
        format!(
            "A customer may store at most {cap} quoted shipments per day (UTC); {left} are left today and this request has {n}. \
             Quote again after midnight UTC."
        ),
    )
    .with_retry_after(u64::try_from(wait).unwrap_or(1)))
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

/// Removes the stored quotes (of every customer) that expired at or before `cutoff`
/// (unix seconds), except those a batch holds, and returns how many quotes it removed.
///
/// A booking keeps its own copy of what it was booked at, so its quote can go. A batch
/// shows its quotes and books from them, so a quoted shipment stays while any of its
/// quotes is in a batch (an open batch's expired quotes cannot be booked anyway; they
/// go once the batch is deleted). One pass over the table: the purge is a maintenance
/// task, and an index on `expires_at` would cost every quote stored.
pub(crate) fn purge_expired(tx: &Connection, cutoff: i64) -> Result<u64> {
    let mut delete =
        tx.prepare(&format!("DELETE FROM quoted_shipments WHERE expires_at <= ?1 AND rowid NOT IN ({HELD}) RETURNING quote_count"))?;
    let counts = delete.query_map([cutoff], |r| r.get::<_, i64>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(counts.into_iter().map(|n| u64::try_from(n).unwrap_or(0)).sum())
}

/// The rowids of the rows of `quoted_shipments` that hold a quote of a batch.
const HELD: &str = "SELECT kept FROM (
        SELECT (SELECT q.rowid FROM quoted_shipments q
                WHERE q.customer_id = b.customer_id AND q.first_quote_id <= b.quote_id
                ORDER BY q.first_quote_id DESC LIMIT 1) AS kept
        FROM batch_quotes b)
    WHERE kept IS NOT NULL";

/// The rows of `quoted_shipments` expired at or before `cutoff`, oldest first: what
/// [`purge_expired`] would remove and the batches' rows, found without writing.
pub(crate) fn expired_rows(conn: &Connection, cutoff: i64) -> Result<Vec<i64>> {
    let mut select = conn.prepare("SELECT rowid FROM quoted_shipments WHERE expires_at <= ?1 ORDER BY rowid")?;
    let rows = select.query_map([cutoff], |r| r.get::<_, i64>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Removes the rows `rows` (from [`expired_rows`]) that are still expired at `cutoff`
/// and hold no quote of a batch, and returns how many quotes they held.
pub(crate) fn purge_rows(tx: &Connection, cutoff: i64, rows: &[i64]) -> Result<u64> {
    let list = serde_json::to_string(rows).map_err(|e| Error::internal(format!("rows to purge: {e}")))?;
    let mut delete = tx.prepare_cached(&format!(
        "DELETE FROM quoted_shipments WHERE rowid IN (SELECT value FROM json_each(?2)) AND expires_at <= ?1
         AND rowid NOT IN ({HELD}) RETURNING quote_count"
    ))?;
    let counts = delete.query_map(rusqlite::params![cutoff, list], |r| r.get::<_, i64>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(counts.into_iter().map(|n| u64::try_from(n).unwrap_or(0)).sum())
}

/// Expired quotes found without writing by [`crate::Shipping::expired_quotes`], to be
/// removed a few rows at a time by [`crate::Shipping::purge_some_expired_quotes`], so
/// that no removal holds the write lock for long.
#[derive(Debug, Clone, Default)]
pub struct ExpiredQuotes {
    pub(crate) cutoff: i64,
    /// Rowids of `quoted_shipments`, oldest first.
    pub(crate) rows: Vec<i64>,
}

impl ExpiredQuotes {
    /// True when nothing is left to remove.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The first `at_most` rows (quoted shipments) to remove, taken out of these.
    pub fn take(&mut self, at_most: usize) -> ExpiredQuotes {
        let rest = self.rows.split_off(at_most.min(self.rows.len()));
        ExpiredQuotes { cutoff: self.cutoff, rows: std::mem::replace(&mut self.rows, rest) }
    }
}

/// A stored quote with the shipment it was made for.
#[derive(Debug, Clone)]
pub struct StoredQuote {
    /// The quote as answered.
    pub quote: wire::Quote,
    /// The request shipment's JSON as its row keeps it: read it with
    /// [`StoredQuote::shipment`].
    pub(crate) shipment_json: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it stops being bookable.
    pub expires_at: DateTime<Utc>,
}

impl StoredQuote {
    /// The shipment the quote was made for, as it was read from the request.
    ///
    /// # Errors
    /// `INTERNAL_ERROR` when its stored row is damaged.
    pub fn shipment(&self) -> Result<wire::QuoteShipment> {
        serde_json::from_str(&self.shipment_json)
            .map_err(|e| Error::internal(format!("quote {}'s shipment is unreadable: {e}", self.quote.quote_id)))
    }
}

/// The customer's quote `quote_id`, or `None` (unknown or another customer's).
pub(crate) fn find(conn: &Connection, customer_id: &str, quote_id: i64) -> Result<Option<StoredQuote>> {
    // The customer's row whose id range starts at or below the quote: one step down its
    // key. Another customer's quote is simply not found.
    let mut statement = conn.prepare_cached(
        "SELECT customer_id, first_quote_id, quote_count, shipment, quotes, created_at, expires_at FROM quoted_shipments
         WHERE customer_id = ?2 AND first_quote_id <= ?1 ORDER BY first_quote_id DESC LIMIT 1",
    )?;
    let mut rows = statement.query(rusqlite::params![quote_id, customer_id])?;
    let Some(row) = rows.next()? else { return Ok(None) };
    let (owner, first, count): (String, i64, i64) = (row.get(0)?, row.get(1)?, row.get(2)?);
    if owner != customer_id || quote_id >= first + count {
        return Ok(None);
    }
    let unreadable = |what: &str, e: String| Error::internal(format!("stored {what} of quote {quote_id} is unreadable: {e}"));
    let shipment_json: String = row.get(3)?;
    let packed = row.get_ref(4)?.as_blob().map_err(|e| unreadable("quotes", e.to_string()))?;
    let quotes = packed::unpack_quotes(packed, first).map_err(|e| unreadable("quotes", e))?;
    let Some(quote) = usize::try_from(quote_id - first).ok().and_then(|i| quotes.into_iter().nth(i)) else { return Ok(None) };
    let at = |secs: i64| DateTime::from_timestamp(secs, 0).unwrap_or_default();
    Ok(Some(StoredQuote { quote, shipment_json, created_at: at(row.get(5)?), expires_at: at(row.get(6)?) }))
}

#[cfg(test)]
mod tests {

    use rust_decimal::Decimal;

    use super::*;
    use crate::rating::{Lines, Surcharge, SurchargeKind, WeightType, Zone};
    use crate::wire;

    /// A request's quotes are numbered in order and stored packed, exactly as
    /// `packed::pack_quotes` packs the quotes the answer shows, beside the shipment's JSON
    /// (the row keeps the text it is given), and each quote is found again with it.
    #[test]
    fn quotes_are_stored_packed_and_found_again() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::store::configure(&conn).unwrap();
        crate::store::migrate(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
                minimum_balance_cents, recharge_amount_cents, created_at) VALUES ('C1', 'a', 'a', '', 'Default', '{}', '{}', 0, 0, '');",
        )
        .unwrap();
        let catalog = Catalog::default_catalog().unwrap();
        let amount = |text: &str| text.parse::<Decimal>().unwrap();
        let quote = |service: usize, lines: Vec<(SurchargeKind, &str)>| PricedQuote {
            quote_id: 0,
            service: &catalog.services()[service],
            package_type: "parcel_custom",
            rate: Rate {
                zone: Zone::new("5").unwrap(),
                base: amount("11.69"),
                surcharges: Lines::of(&lines.into_iter().map(|(kind, a)| Surcharge { kind, amount: amount(a) }).collect::<Vec<_>>()),
                total: amount("25.05"),
                quoted_weight: amount("2.50"),
                quoted_weight_unit: WeightUnit::Lb,
                weight_type: WeightType::Actual,
                currency: Currency::Usd,
            },
            arrival: None,
        };
        // a shipment with line items, and a plain one
        let with_items = r#"{ "shipmentDate": "2026-11-23", "shipmentReference": "R1", "sender": {"name": "Ann \"A\" Lee", "zip": "19106"},
            "receiver": {"zip": null}, "weightUnit": "lb", "dimUnit": null, "currency": "USD",
            "pieces": [{"weight": 2, "lineItems": [{"sku": "A", "productName": "Mug", "quantity": 2}]}] }"#;
        let plain = with_items.replace(r#", "lineItems": [{"sku": "A", "productName": "Mug", "quantity": 2}]"#, "");
        let parse = |json: &str| serde_json::from_str::<wire::QuoteShipment>(json).unwrap();
        fn quoted<'c>(quotes: Vec<PricedQuote<'c>>, json: &str) -> Outcome<'c> {
            let mut packed = Vec::new();
            pack(&mut packed, &quotes);
            Ok(Quoted { quotes, errors: vec![], shipment_json: json.to_string(), packed })
        }
        // the first as written by hand, the second as serde writes it; a failed shipment
        // and one without quotes store nothing
        let typed = wire::to_json(&parse(&plain)).unwrap();
        let mut outcomes: Vec<Outcome> = vec![
            quoted(vec![quote(0, vec![(SurchargeKind::Fuel, "3.26")]), quote(1, vec![])], with_items),
            Err(Error::invalid("x", "y")),
            quoted(vec![], "{}"),
            quoted(vec![quote(2, vec![(SurchargeKind::Residential, "5.95"), (SurchargeKind::Insurance, "4.15")])], &typed),
        ];
        let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let tx = conn.transaction().unwrap();
        assert_eq!(number(&mut outcomes, 0), 3);
        let rows = rows(&mut outcomes);
        let first = crate::store::next_ids(&tx, "quote", 3).unwrap();
        store(&tx, "C1", now, first, &rows).unwrap();
        tx.commit().unwrap();
        for q in outcomes.iter_mut().filter_map(|o| o.as_mut().ok()).flat_map(|q| q.quotes.iter_mut()) {
            q.quote_id += first;
        }
        // first quote id, the shipment's JSON, the quotes' type and bytes
        type Row = (i64, String, String, Vec<u8>);
        let stored: Vec<Row> = conn
            .prepare("SELECT first_quote_id, shipment, typeof(quotes), quotes FROM quoted_shipments ORDER BY first_quote_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(stored.len(), 2);
        let (first, second) = match &outcomes[..] {
            [Ok(first), _, _, Ok(second)] => (
                first.quotes.iter().map(PricedQuote::to_wire).collect::<Vec<_>>(),
                second.quotes.iter().map(PricedQuote::to_wire).collect::<Vec<_>>(),
            ),
            _ => unreachable!(),
        };
        assert_eq!((first[0].quote_id + 1, first[1].quote_id + 1), (first[1].quote_id, second[0].quote_id));
        let expected = [(&first, with_items), (&second, typed.as_str())];
        for ((first_id, shipment, quotes_type, quotes), (wire, json)) in stored.iter().zip(expected) {
            assert_eq!((shipment.as_str(), quotes_type.as_str()), (json, "blob"));
            assert_eq!(*quotes, packed::pack_quotes(wire));
            assert_eq!(*first_id, wire[0].quote_id);
            for q in wire {
                let found = find(&conn, "C1", q.quote_id).unwrap().unwrap();
                assert_eq!(found.quote, *q);
                assert_eq!(found.shipment().unwrap(), parse(json));
                assert_eq!(found.expires_at.timestamp(), 1_800_000_000 + QUOTE_LIFETIME_SECS);
            }
        }
        assert!(find(&conn, "C2", first[0].quote_id).unwrap().is_none());
        assert!(find(&conn, "C1", second[0].quote_id + 1).unwrap().is_none());
    }

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
