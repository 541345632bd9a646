//! Pricing a valid shipment: every service and package type that can carry it, rated
//! on its rate card, with the quote errors of those that cannot. Booking prices with
//! [`rate_one`] and compares quotes through [`rate_input`].

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::address::Address;
use crate::catalog::{Carrier, Catalog, PackageType, Service};
use crate::error::{Error, ErrorCategory, Result};
use crate::rating::{CardId, DimUnit, PieceInput, Place, RateBook, RateError, RateInput};
use crate::wire;

use super::validation::{package_refusal, service_refusal, Heaviest, Refusal, ValidShipment};
use super::{Context, PricedQuote};

/// The quotes and quote errors of one shipment.
#[derive(Debug, Default)]
pub(crate) struct Priced<'c> {
    pub quotes: Vec<PricedQuote<'c>>,
    pub errors: Vec<wire::QuoteError>,
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
