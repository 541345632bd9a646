//! The quote lock (docs/DECISIONS.md, "Booking"): a booking by `quoteId` books the
//! shipment its quote priced, exactly as it was quoted, at the quoted price, once.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::catalog::{Carrier, PackageType};
use crate::error::{Error, ErrorCategory, FieldError, Result};
use crate::quoting::{self, ValidShipment};
use crate::rating;
use crate::wire;

use super::Context;
use crate::store::{args, Read};

/// The customer's quote `id`, if it is still bookable: unknown or another customer's is
/// `NOT_FOUND`, older than 30 days `QUOTE_EXPIRED`. Checked before anything else about
/// the booking, as the reason that matters most.
pub(super) fn bookable_quote(conn: &Read<'_>, ctx: &Context, id: i64) -> Result<quoting::StoredQuote> {
    let stored = quoting::find(conn, &ctx.customer.id, id)?.ok_or_else(|| Error::not_found("quote", &id.to_string()))?;
    if ctx.now >= stored.expires_at {
        return Err(Error::new(
            ErrorCategory::QuoteExpired,
            format!("Quote {id} expired on {}; quote the shipment again.", stored.expires_at.date_naive()),
        ));
    }
    // A quote prices one shipment: a second booking of it is a double submit (a retry
    // that should answer the same carries an idempotencyKey).
    let booked: Option<String> = conn.row(
        "SELECT book_number FROM shipments WHERE quote_id = ?1 AND customer_id = ?2 AND voided = 0",
        args![id, ctx.customer.id],
        |r| r.get(0),
    )?;
    if let Some(book_number) = booked {
        return Err(Error::fields(
            ErrorCategory::Conflict,
            vec![FieldError { field: "quoteId".into(), message: format!("quote {id} is already booked as shipment {book_number}") }],
        ));
    }
    Ok(stored)
}

/// The shipment quote `stored` priced, read back through the rules of a quote so that
/// it is normalised as the booking's shipment was. Its date and provider account are
/// not priced and were checked when it was quoted, so they are not checked again.
///
/// A single quote may leave out the states of its addresses. No rate reads a state (the
/// zone is the ZIP's), and the booking checks that its service serves the booked state,
/// so a state the quote did not send is taken as the `booked` one.
pub(super) fn quoted_shipment(ctx: &Context, stored: &quoting::StoredQuote, booked: &ValidShipment) -> Result<ValidShipment> {
    let id = stored.quote.quote_id;
    let quoted = stored.shipment()?;
    let unsent = |a: &wire::WireAddress| a.state.as_deref().is_none_or(|s| s.trim().is_empty());
    let (sender_unsent, receiver_unsent) = (unsent(&quoted.sender), unsent(&quoted.receiver));
    let accounts: Vec<String> = quoted.provider_account_id.iter().map(ToString::to_string).collect();
    let no_cards = Vec::new();
    // The quote's own date as "today": the window of shipment dates was checked when it
    // was quoted, and the booking's date is checked against the clock.
    let quoted_date = quoted.shipment_date.as_deref().and_then(crate::dates::parse_date);
    let quoting = quoting::Context {
        // the lenient form: it reads what either quote stored
        form: quoting::Form::Single,
        catalog: ctx.catalog,
        rates: ctx.rates,
        profile: ctx.profile,
        today: quoted_date.unwrap_or(NaiveDate::MIN),
        provider_accounts: &accounts,
        cards: &no_cards,
    };
    let mut valid = quoting::validate(&quoting, quoted).map_err(|e| {
        Error::invalid("quoteId", format!("quote {id} no longer passes the rules of a quote ({}); quote the shipment again", e.message()))
    })?;
    if sender_unsent {
        valid.sender.state.clone_from(&booked.sender.state);
    }
    if receiver_unsent {
        valid.receiver.state.clone_from(&booked.receiver.state);
    }
    Ok(valid)
}

/// What differs between the shipment a quote priced and the one being booked in the
/// same package type `pt`, if anything that goes into the price does. Both are compared
/// as the rating reads them ([`quoting::rate_input`]), so that no priced input can be
/// left out, and their declared values besides: a quote locks the price of the
/// shipment it was made for, exactly as it was quoted, not of another.
pub(super) fn differs_from_quote(quoted: &ValidShipment, booked: &ValidShipment, carrier: &Carrier, pt: &PackageType) -> Option<String> {
    let (mut quoted_pieces, mut booked_pieces) = (Vec::new(), Vec::new());
    let q = quoting::rate_input(quoted, carrier, pt, Decimal::ZERO, &mut quoted_pieces);
    let b = quoting::rate_input(booked, carrier, pt, Decimal::ZERO, &mut booked_pieces);
    let same_place = |a: &rating::Place, b: &rating::Place| (a.country, a.state, a.zip) == (b.country, b.state, b.zip);
    let differs = |field: &str| Some(format!("{field} differs from the quoted shipment's"));
    if !same_place(&q.sender, &b.sender) {
        return differs("the sender's country, state or postal code");
    }
    if !same_place(&q.receiver, &b.receiver) {
        return differs("the receiver's country, state or postal code");
    }
    if q.currency != b.currency {
        return Some(format!("currency is {}, the quote priced {}", b.currency.as_str(), q.currency.as_str()));
    }
    if q.weight_unit != b.weight_unit {
        return Some(format!("weightUnit is {}, the quote priced {}", b.weight_unit.as_str(), q.weight_unit.as_str()));
    }
    if q.dim_unit != b.dim_unit {
        return differs("dimUnit");
    }
    if q.pieces.len() != b.pieces.len() {
        return Some(format!("{} pieces are booked, {} were quoted", b.pieces.len(), q.pieces.len()));
    }
    let declared = quoted.pieces.iter().zip(&booked.pieces).map(|(q, b)| q.declared_value == b.declared_value);
    for (i, ((qp, bp), same_declared)) in q.pieces.iter().zip(b.pieces).zip(declared).enumerate() {
        if qp.weight != bp.weight {
            let unit = b.weight_unit.as_str();
            return Some(format!("pieces[{i}] weighs {} {unit}, the quote priced {} {unit}", bp.weight.normalize(), qp.weight.normalize()));
        }
        if qp.dims != bp.dims {
            return differs(&format!("pieces[{i}]'s dimensions"));
        }
        if qp.insurance != bp.insurance {
            return differs(&format!("pieces[{i}].insuranceAmount"));
        }
        if !same_declared {
            return differs(&format!("pieces[{i}].declaredValue"));
        }
    }
    let options = [
        ("residential", q.residential == b.residential),
        ("signatureOptionCode", q.signature_option == b.signature_option),
        ("saturdayDelivery", q.saturday_delivery == b.saturday_delivery),
        ("postalExpressAmDelivery", q.am_delivery == b.am_delivery),
        ("dangerousGoodsCode", q.dangerous_goods == b.dangerous_goods),
    ];
    options.iter().find(|(_, same)| !same).and_then(|(field, _)| differs(field))
}
