//! Book shipment (4.5): validate every rule, price it (from its quote, or now), charge
//! the prepay ledger (with automatic recharges), give it a book number and tracking
//! numbers, render its labels, record `Info Received`, and keep the idempotency record:
//! all in the caller's one transaction, so that a booking happens whole or not at all.
//!
//! The rules of a booking are in `validation.rs`, the quote lock (a booking by
//! `quoteId`) in `quote_lock.rs`, the stored view of the booked shipment in `view.rs`
//! and void shipment in `void.rs`.

mod quote_lock;
mod validation;
mod view;
mod void;

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;

use crate::address::Address;
use crate::catalog::{Carrier, Catalog, PackageType, Profile, Service};
use crate::customers::Customer;
use crate::documents::LabelFormat;
use crate::error::{Error, ErrorCategory, FieldError, Result};
use crate::events;
use crate::labels::{customs_declaration, label_data, render};
use crate::money::{format2, from_cents, round_cents, to_cents};
use crate::prepay::{charge, refuse_in_debt};
use crate::quoting::{self, ValidShipment};
use crate::rating::{self, Currency, PieceInput, RateBook};
use crate::shipment::ValidPiece;
use crate::shipments::view_shape;
use crate::tracking_number;
use crate::{store, wire};

use crate::store::{args, Tx};
use quote_lock::{bookable_quote, differs_from_quote, quoted_shipment};
use validation::validate;
use view::{view_address, view_of};

pub(crate) use void::void;

/// What booking reads besides the request.
pub(crate) struct Context<'a> {
    pub catalog: &'a Catalog,
    pub rates: &'a RateBook,
    pub profile: &'a Profile,
    pub customer: &'a Customer,
    pub today: NaiveDate,
    pub now: DateTime<Utc>,
    /// Render and store labels now (else on first retrieval).
    pub labels_at_booking: bool,
}

/// A booking that passed validation.
struct Valid<'a> {
    service: &'a Service,
    carrier: &'a Carrier,
    package: &'a PackageType,
    shipment: ValidShipment,
    label_format: LabelFormat,
    billed_to_prepay: bool,
    /// Where a scan-based return label goes back to (`returnTo`, else the sender); `None`
    /// when the booking asked for none.
    return_to: Option<Address>,
}

/// The price of the scan-based return label of `v` going back to `to`: the same service
/// and package on the reversed route (from the receiver), without the outbound options
/// (residential delivery, signature, Saturday or 10:30 delivery, insurance), in the
/// shipment's currency. Fixed at booking and charged on the label's first scan.
///
/// # Errors
/// `SERVICE_NOT_AVAILABLE` on `scanBasedReturnLabel` when the service does not carry
/// the reversed route or no rate prices it.
fn price_return(ctx: &Context, v: &Valid, to: &Address) -> Result<crate::returns::Price> {
    let reversed = ValidShipment {
        sender: v.shipment.receiver.clone(),
        receiver: to.clone(),
        residential: false,
        signature: None,
        saturday: false,
        am_delivery: false,
        dangerous_goods: None,
        pieces: v.shipment.pieces.iter().map(|p| ValidPiece { insurance: None, ..p.clone() }).collect(),
        ..v.shipment.clone()
    };
    let refused = |message: String| {
        Error::fields(ErrorCategory::ServiceNotAvailable, vec![FieldError { field: "scanBasedReturnLabel".into(), message }])
    };
    let (from, back) = (&reversed.sender, &reversed.receiver);
    if !ctx.catalog.serves(v.service, &from.country, &back.country, &back.state) {
        return Err(refused(format!("{} carries no returns from {} to {}", v.service.label, from.country, back.country)));
    }
    let card = ctx.rates.card(&v.carrier.code, &v.service.code, &v.package.code);
    let mut buf: Vec<PieceInput> = Vec::new();
    let quote = quoting::rate_one(ctx.rates, card, &reversed, v.carrier, v.service, v.package, ctx.profile.markup_percent, &mut buf)
        .map_err(|(_, reason)| refused(format!("the return cannot be priced: {reason}")))?;
    let total = quote.rate.total;
    let usd = round_cents(ctx.rates.convert(total, reversed.currency, Currency::Usd));
    let cost_cents = to_cents(usd).ok_or_else(|| refused("the return costs more than can be charged".into()))?;
    Ok(crate::returns::Price { zone: quote.rate.zone.as_str().to_string(), total, cost_cents })
}

/// The price of a booking: from its quote, or rated now.
/// The total is in the shipment's currency: a quote is only booked in its own.
struct Priced {
    total: Decimal,
    zone: String,
    quote_id: Option<i64>,
}

fn price(ctx: &Context, v: &Valid, quote: Option<quoting::StoredQuote>) -> Result<Priced> {
    if let Some(stored) = quote {
        let q = &stored.quote;
        let id = q.quote_id;
        if q.carrier_code != v.carrier.code || q.service_code != v.service.code || q.package_type_code != v.package.code {
            return Err(Error::invalid(
                "quoteId",
                format!(
                    "quote {id} is for {}/{}/{}, not {}/{}/{}",
                    q.carrier_code, q.service_code, q.package_type_code, v.carrier.code, v.service.code, v.package.code
                ),
            ));
        }
        let quoted = quoted_shipment(ctx, &stored, &v.shipment)?;
        if let Some(difference) = differs_from_quote(&quoted, &v.shipment, v.carrier, v.package) {
            return Err(Error::invalid("quoteId", format!("quote {id} priced another shipment: {difference}; quote this one again")));
        }
        return Ok(Priced { total: q.total_amount, zone: q.zone.clone(), quote_id: Some(id) });
    }
    let mut buf: Vec<PieceInput> = Vec::new();
    let card = ctx.rates.card(&v.carrier.code, &v.service.code, &v.package.code);
    let quote = quoting::rate_one(ctx.rates, card, &v.shipment, v.carrier, v.service, v.package, ctx.profile.markup_percent, &mut buf)
        .map_err(|(category, reason)| Error::fields(category, vec![FieldError { field: "serviceCode".into(), message: reason }]))?;
    Ok(Priced { total: quote.rate.total, zone: quote.rate.zone.as_str().to_string(), quote_id: None })
}

/// When the booked shipment `v` arrives, priced in `zone`: its service's transit time
/// and its carrier's calendar from the shipment date (`None` without a transit time).
fn arrival(ctx: &Context, v: &Valid, zone: &str) -> Option<NaiveDate> {
    let card = ctx.rates.card(&v.carrier.code, &v.service.code, &v.package.code)?;
    let zone = rating::Zone::new(zone)?;
    ctx.rates.arrival(card, zone, v.shipment.date, v.shipment.saturday).map(|a| a.date)
}

/// Book shipment (4.5) in `tx`.
pub(crate) fn book(tx: &Tx<'_>, ctx: &Context, req: &wire::BookShipmentRequest) -> Result<wire::BookShipmentResponse> {
    // The request as JSON identifies a repeat of an idempotent booking; only those need it.
    let canonical = req.idempotency_key.as_ref().map(|_| wire::to_json(req)).transpose()?;
    if let (Some(key), Some(canonical)) = (&req.idempotency_key, &canonical) {
        if key.chars().count() > 200 {
            return Err(Error::invalid("idempotencyKey", "must be at most 200 characters"));
        }
        let seen: Option<(String, String)> = tx.row(
            "SELECT request, response FROM idempotency_keys WHERE customer_id = ?1 AND key = ?2",
            args![ctx.customer.id, key],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if let Some((request, response)) = seen {
            if &request != canonical {
                return Err(Error::fields(
                    ErrorCategory::Conflict,
                    vec![FieldError { field: "idempotencyKey".into(), message: format!("{key:?} was used for another booking") }],
                ));
            }
            return serde_json::from_str(&response)
                .map_err(|e| Error::internal(format!("stored idempotent answer is unreadable: {e}")).with_source(e));
        }
    }
    let quote = req.quote_id.map(|q| bookable_quote(tx, ctx, q.0)).transpose()?;
    let v = validate(tx, ctx, req)?;
    let priced = price(ctx, &v, quote)?;
    let arrives = arrival(ctx, &v, &priced.zone);
    let return_price = v.return_to.as_ref().map(|to| price_return(ctx, &v, to)).transpose()?;

    // The numbers the booking takes below, taken together.
    let pieces = v.shipment.pieces.len();
    let numbers = pieces + usize::from(return_price.is_some());
    let tracking_sequence = format!("tracking_{}", v.carrier.code);
    let mut wanted = vec![("book_number", 1), (tracking_sequence.as_str(), numbers)];
    if v.billed_to_prepay {
        wanted.push(("ledger_entry", 1));
    }
    store::reserve_ids(tx, &wanted)?;
    let seq = store::next_id(tx, "book_number")?;
    let book_number = format!("{}", 1_000_000_000 + seq);
    let cost_usd = round_cents(ctx.rates.convert(priced.total, v.shipment.currency, Currency::Usd));
    let cost_cents = to_cents(cost_usd).ok_or_else(|| Error::invalid("pieces", "the shipment costs more than can be charged"))?;
    let (approve, reference) = (req.approve_prepay_recharge.unwrap_or(false), format!("shipment {book_number}"));
    let balance = if v.billed_to_prepay {
        charge(tx, ctx.customer, cost_cents, approve, &reference, ctx.now)?
    } else {
        refuse_in_debt(tx, ctx.customer, approve, &reference, ctx.now)?
    };

    let kind = v
        .carrier
        .tracking_kind(&v.service.family)
        .ok_or_else(|| Error::internal(format!("carrier {} has no tracking number format", v.carrier.code)))?;
    // One reservation for the pieces' numbers and the return label's, which comes last.
    let first_serial = store::next_ids(tx, &tracking_sequence, numbers)?;
    let mut serials = (first_serial..).take(numbers).map(|n| tracking_number::generate(kind, n as u64, &ctx.customer.id));
    let tracking_numbers: Vec<String> = serials.by_ref().take(pieces).collect();
    let return_tracking = serials.next();
    let first_tracking = tracking_numbers.first().cloned().unwrap_or_default();
    let piece_costs = split_cost(priced.total, &v.shipment.pieces);

    // The number of the order fulfilled shows where clients look for it, when the
    // booking names none (an unknown order is refused below, by `orders::fulfil`).
    let order_number = match (&req.order_number, &req.fulfillment) {
        (Some(number), _) => number.clone(),
        (None, Some(f)) => crate::orders::order_number(tx, &ctx.customer.id, f)?.unwrap_or_default(),
        (None, None) => String::new(),
    };
    let mut view = view_of(&book_number, &tracking_numbers, &v, req, priced.total, order_number);
    view.return_tracking_number.clone_from(&return_tracking);
    view.estimated_delivery_date = arrives;
    let search = crate::search::entry(tx, &ctx.customer.id, seq, &view)?;
    // The first tracking event is kept on the shipment row: it commits with the booking.
    let booked = crate::tracking::booked_event(&v.shipment.sender, ctx.now);
    let view_json = wire::to_json(&view)?;
    tx.execute_later(
        "INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family, tracking_number,
            shipment_date, zone, currency, total_amount, charged_cents, label_format, quote_id, view, view_shape, created_at, search_rowid,
            search_body, booked_event_time, booked_event_area, booked_event_country)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
        args![
            book_number,
            ctx.customer.id,
            v.carrier.code,
            v.service.code,
            v.package.code,
            v.service.family,
            first_tracking,
            v.shipment.date.to_string(),
            priced.zone,
            v.shipment.currency.as_str(),
            priced.total.to_string(),
            if v.billed_to_prepay { cost_cents } else { 0 },
            v.label_format.code(),
            priced.quote_id,
            view_json,
            view_shape(),
            crate::dates::timestamp(ctx.now),
            search.rowid,
            search.body,
            booked.time,
            booked.area,
            booked.country,
        ],
    )?;
    let shipment_rowid = tx.last_rowid();
    let invoice = req.commercial_invoice.as_ref().map(|invoice| {
        let weight = v.shipment.pieces.iter().fold(Decimal::ZERO, |sum, p| sum.saturating_add(p.weight));
        let data =
            crate::invoices::invoice_data(&view, invoice, &v.carrier.label, &v.service.label, weight, v.shipment.weight_unit.as_str());
        (data, invoice.send_electronically.unwrap_or(false))
    });
    let labels = if ctx.labels_at_booking {
        let customs = customs_declaration(ctx.catalog, &view, invoice.as_ref().map(|(data, _)| data), ctx.rates);
        render(v.label_format, &label_data(&view, &v.carrier.label, &v.service.label, &priced.zone, customs.as_ref()))?
    } else {
        Vec::new()
    };
    for (i, tn) in tracking_numbers.iter().enumerate() {
        let cost = piece_costs.get(i).copied().unwrap_or_default();
        tx.execute_later(
            "INSERT INTO shipment_pieces (customer_id, book_number, piece_index, tracking_number, shipping_cost) VALUES (?1, ?2, ?3, ?4, ?5)",
            args![ctx.customer.id, book_number, i as i64, tn, cost.to_string()],
        )?;
        tx.execute_later(crate::tracking::RECORD_TRACKING_NUMBER, args![tn, ctx.customer.id, book_number, i as i64])?;
        if let Some(label) = labels.get(i) {
            tx.execute_later(
                "INSERT INTO labels (customer_id, book_number, piece_index, format, data) VALUES (?1, ?2, ?3, ?4, ?5)",
                args![ctx.customer.id, book_number, i as i64, v.label_format.code(), label],
            )?;
        }
    }
    if let Some((data, send_electronically)) = &invoice {
        crate::invoices::record(tx, &ctx.customer.id, data, *send_electronically, ctx.labels_at_booking)?;
    }
    if let (Some(price), Some(tracking), Some(to)) = (&return_price, &return_tracking, &v.return_to) {
        crate::returns::record(tx, &ctx.customer.id, &book_number, tracking, &view_address(to), price)?;
    }
    crate::store::search::after_booking(tx, shipment_rowid)?;
    events::append_json(tx, &ctx.customer.id, events::Type::ShipmentBooked, &book_number, ctx.now, &view_json)?;
    if let Some(f) = &req.fulfillment {
        crate::orders::fulfil(tx, &ctx.customer.id, &book_number, f, ctx.now)?;
    }

    let pieces = (v.carrier.pieces_in_answer && tracking_numbers.len() > 1).then(|| {
        tracking_numbers
            .iter()
            .zip(&piece_costs)
            .map(|(tn, cost)| wire::BookedPiece { tracking_number: tn.clone(), shipping_cost: format2(*cost) })
            .collect()
    });
    let response = wire::BookShipmentResponse {
        book_number,
        tracking_number: first_tracking,
        prepay_balance: format2(from_cents(balance)),
        zone: priced.zone,
        pieces,
        total_shipping_cost: priced.total,
        currency: v.shipment.currency.as_str().to_string(),
        tracking_numbers,
        return_tracking_number: return_tracking,
        estimated_delivery_date: arrives,
    };
    if let Some(key) = &req.idempotency_key {
        tx.execute(
            "INSERT INTO idempotency_keys (customer_id, key, request, response, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            args![ctx.customer.id, key, canonical, wire::to_json(&response)?, crate::dates::timestamp(ctx.now)],
        )?;
    }
    Ok(response)
}

/// Splits `total` over the pieces in proportion to their weights, to the cent, so that
/// the shares add up to the total exactly (the first pieces take the leftover cents).
fn split_cost(total: Decimal, pieces: &[ValidPiece]) -> Vec<Decimal> {
    let n = pieces.len();
    let weight: Decimal = pieces.iter().map(|p| p.weight).sum();
    if n <= 1 || weight.is_zero() {
        // One piece takes it all (weights are validated positive, so zero cannot happen).
        return (0..n).map(|i| if i == 0 { total } else { Decimal::ZERO }).collect();
    }
    let total_cents = to_cents(total).unwrap_or(0);
    // Each share rounded down to the cent, then the leftover cents one at a time.
    let mut shares: Vec<i64> =
        pieces.iter().map(|p| i64::try_from((Decimal::from(total_cents) * p.weight / weight).floor()).unwrap_or(0)).collect();
    let left = total_cents - shares.iter().sum::<i64>();
    for share in shares.iter_mut().take(usize::try_from(left).unwrap_or(0)) {
        *share += 1;
    }
    shares.into_iter().map(from_cents).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn pieces(weights: &[Decimal]) -> Vec<ValidPiece> {
        weights.iter().map(|&weight| ValidPiece { weight, dims: None, insurance: None, declared_value: None }).collect()
    }

    #[test]
    fn shares_add_up_to_the_total_exactly() {
        let shares = split_cost(dec!(10.00), &pieces(&[dec!(1), dec!(1), dec!(1)]));
        assert_eq!(shares, [dec!(3.34), dec!(3.33), dec!(3.33)]);
        let shares = split_cost(dec!(37.05), &pieces(&[dec!(20), dec!(12)]));
        assert_eq!(shares.iter().sum::<Decimal>(), dec!(37.05));
        assert_eq!(split_cost(dec!(5.00), &pieces(&[dec!(2)])), [dec!(5.00)]);
    }
}
