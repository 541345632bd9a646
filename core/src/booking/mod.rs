//! Book shipment (4.5): validate every rule, price it (from its quote, or now), charge
//! the prepay ledger (with automatic recharges), give it a book number and tracking
//! numbers, render its labels, record `Info Received`, and keep the idempotency record:
//! all in the caller's one transaction, so that a booking happens whole or not at all.

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::{Connection, OptionalExtension};
use rust_decimal::Decimal;

use crate::address::{self, Address, AddressUse};
use crate::catalog::{Carrier, Catalog, PackageType, Profile, Service};
use crate::customers::Customer;
use crate::documents::LabelFormat;
use crate::error::{Error, ErrorCategory, FieldError, Problems, Result};
use crate::labels::{customs_declaration, label_data, render};
use crate::ledger::{self, EntryKind};
use crate::money::{format2, from_cents, round_cents, to_cents};
use crate::prepay::{charge, refuse_in_debt};
use crate::quoting::{self, ValidShipment};
use crate::rating::{self, Currency, PieceInput, RateBook, WeightUnit};
use crate::shipment::{self, ValidPiece, TERMS_OF_TRADE};
use crate::shipments::{find, is_domestic, view_shape};
use crate::tracking_number;
use crate::{store, wire};

/// Postal endorsements carrier E accepts.
const POSTAL_ENDORSEMENTS: [&str; 4] =
    ["ADDRESS_SERVICE_REQUESTED", "RETURN_SERVICE_REQUESTED", "CHANGE_SERVICE_REQUESTED", "FORWARDING_SERVICE_REQUESTED"];

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

fn validate<'a>(conn: &Connection, ctx: &Context<'a>, req: &wire::BookShipmentRequest) -> Result<Valid<'a>> {
    if let Some(f) = &req.fulfillment {
        crate::orders::check_lines("fulfillment.items", f.items.len())?;
    }
    crate::wire::bounded::check("pieces", req.pieces.len(), crate::limits::MAX_PIECES)?;
    if let Some(invoice) = &req.commercial_invoice {
        crate::wire::bounded::check(
            "commercialInvoice.items",
            invoice.items.as_ref().map_or(0, Vec::len),
            crate::limits::MAX_INVOICE_ITEMS,
        )?;
    }
    let mut p = Problems::new();
    let catalog = ctx.catalog;
    let service = catalog.services_for(ctx.profile).find(|s| s.code == req.service_code && s.carrier == req.carrier_code);
    let carrier = catalog.carrier(&req.carrier_code);
    if carrier.is_none() {
        p.push("carrierCode", format!("unknown carrier {:?}", req.carrier_code));
    } else if service.is_none() {
        p.push("serviceCode", format!("{:?} is not a service of {} offered to this customer", req.service_code, req.carrier_code));
    }
    let package = service.and_then(|s| {
        let offered = s.package_types.iter().find(|sp| sp.package_type == req.package_type_code)?;
        catalog.package_type(&s.carrier, &offered.package_type)
    });
    if service.is_some() && package.is_none() {
        p.push("packageTypeCode", format!("{:?} is not a package type of service {}", req.package_type_code, req.service_code));
    }
    let carrier_code = req.carrier_code.as_str();

    let sender = address::validate(&mut p, "sender", &req.sender, AddressUse::Booking);
    let receiver = address::validate(&mut p, "receiver", &req.receiver, AddressUse::Booking);
    // A return label is addressed to `returnTo`: then it must be a whole address.
    let wants_return = req.scan_based_return_label == Some(true);
    let return_to = req.return_to.as_ref().map(|r| {
        let usage = if wants_return { AddressUse::Booking } else { AddressUse::ReturnTo };
        address::validate(&mut p, "returnTo", r, usage)
    });
    let date = shipment::shipment_date(&mut p, "shipmentDate", &req.shipment_date, ctx.today);
    let (weight_unit, dim_unit, currency) =
        shipment::units(&mut p, &req.weight_unit, req.dim_unit.as_ref().map(Option::as_deref), Some(&req.currency));
    if let Some(c) = &req.customs_currency {
        shipment::enumerated::<Currency>(&mut p, "customsCurrency", c, "USD, GBP, CAD, EUR");
    }
    for (field, value) in [
        ("shipmentReference", &req.shipment_reference),
        ("shipmentReference2", &req.shipment_reference2),
        ("contentDescription", &req.content_description),
        ("contentType", &req.content_type),
        ("orderNumber", &req.order_number),
    ] {
        if value.as_ref().is_some_and(|v| v.chars().count() > 100) {
            p.push(field, "must be at most 100 characters");
        }
    }
    if let Some(pt) = package {
        // Envelopes have no dimensions to give either, so only custom packaging needs a unit.
        if pt.is_custom() && matches!(req.dim_unit, Some(None)) {
            p.push(
                "dimUnit",
                format!("may be null only for package types with preset dimensions or envelopes; {} is custom packaging", pt.code),
            );
        }
    }

    // Pieces: all six keys present; then the shared rules.
    let domestic = is_domestic(carrier_code, &sender.country, &receiver.country);
    let mut wire_pieces = Vec::with_capacity(req.pieces.len());
    for (i, piece) in req.pieces.iter().enumerate() {
        for (name, value) in [
            ("length", &piece.length),
            ("width", &piece.width),
            ("height", &piece.height),
            ("insuranceAmount", &piece.insurance_amount),
            ("declaredValue", &piece.declared_value),
        ] {
            if value.is_none() {
                p.push(format!("pieces[{i}].{name}"), "is required (null when it does not apply)");
            }
        }
        wire_pieces.push(wire::Piece {
            weight: piece.weight,
            length: piece.length.flatten(),
            width: piece.width.flatten(),
            height: piece.height.flatten(),
            insurance_amount: piece.insurance_amount.flatten(),
            declared_value: piece.declared_value.flatten(),
            line_items: None,
        });
    }
    let pieces = shipment::pieces(&mut p, &wire_pieces, domestic, dim_unit, matches!(req.dim_unit, Some(None)));

    // Options that only some carriers have.
    let label_format = match req.label_image_format.as_deref() {
        None => Some(LabelFormat::Pdf),
        Some(code) => {
            match LabelFormat::from_code(code) {
                None => {
                    p.push("labelImageFormat", format!("expected one of PDF, EPL2, ZPL, found {code:?}"));
                    None
                }
                Some(f) => {
                    let allowed = match f {
                        LabelFormat::Pdf => true,
                        LabelFormat::Epl2 => carrier_code == "expressground",
                        LabelFormat::Zpl => matches!(carrier_code, "expressground" | "parcel" | "postal"),
                    };
                    if !allowed || carrier.is_some_and(|c| !c.label_formats.iter().any(|l| l == code)) {
                        p.push("labelImageFormat", format!("{code} labels are not available for carrier {carrier_code}: EPL2 is carrier D only, ZPL carriers A, B and D"));
                    }
                    Some(f)
                }
            }
        }
    };
    if wants_return && carrier_code != "postal" {
        p.push("scanBasedReturnLabel", format!("is available for the postal carrier only, not {carrier_code}"));
    } else if wants_return && req.pieces.len() > 1 {
        p.push(
            "scanBasedReturnLabel",
            format!("a return label carries one package; book the {} pieces as shipments of their own", req.pieces.len()),
        );
    }
    if req.postal_express_am_delivery == Some(true) && carrier_code != "postal" {
        p.push("postalExpressAmDelivery", format!("is available for the postal carrier only, not {carrier_code}"));
    }
    if req.dangerous_goods_code.is_some() && carrier_code != "ecommerce" {
        p.push("dangerousGoodsCode", format!("is available for the e-commerce carrier only, not {carrier_code}"));
    }
    if let Some(e) = &req.postal_endorsement {
        if carrier_code != "ecommerce" {
            p.push("postalEndorsement", format!("is available for the e-commerce carrier only, not {carrier_code}"));
        } else if !POSTAL_ENDORSEMENTS.contains(&e.as_str()) {
            p.push("postalEndorsement", format!("expected one of {}, found {e:?}", POSTAL_ENDORSEMENTS.join(", ")));
        }
    }

    if let Some(invoice) = &req.commercial_invoice {
        booking_invoice(&mut p, invoice);
        if let Some(unit) = weight_unit {
            let package_weight = pieces.iter().fold(Decimal::ZERO, |acc, piece| acc.checked_add(piece.weight).unwrap_or(Decimal::MAX));
            shipment::invoice_item_weights(&mut p, invoice, package_weight, unit.as_str());
        }
    }
    shipment::billing(&mut p, req.billing.as_ref());
    if let Some(id) = &req.provider_account_id {
        let owner_carrier = crate::accounts::provider_account_carrier(conn, &ctx.customer.id, id)?;
        if owner_carrier.as_deref() != Some(carrier_code) {
            p.push("providerAccountId", format!("{id:?} is not one of this customer's {carrier_code} accounts"));
        }
    }
    if let Some(f) = &req.fulfillment {
        if f.order_id.trim().is_empty() {
            p.push("fulfillment.orderId", "must not be empty");
        }
        if !crate::accounts::owns_integration(conn, &ctx.customer.id, &f.integration_id)? {
            p.push("fulfillment.integrationId", format!("{:?} is not one of this customer's integrations", f.integration_id));
        }
        for (i, item) in f.items.iter().enumerate() {
            if item.quantity.0 < 1 {
                p.push(format!("fulfillment.items[{i}].quantity"), "must be at least 1");
            }
        }
    }
    p.finish()?;

    let (Some(service), Some(carrier), Some(package), Some(date), Some(weight_unit), Some(currency), Some(label_format)) =
        (service, carrier, package, date, weight_unit, currency, label_format)
    else {
        return Err(Error::internal("a booking passed validation without its service, date or units"));
    };
    let shipment = ValidShipment {
        carrier: Some(carrier.code.as_str().into()),
        service: Some(service.code.as_str().into()),
        package_type: Some(package.code.as_str().into()),
        date,
        sender,
        receiver,
        residential: req.residential.unwrap_or(false),
        // the carrier's own code, however the request named the option
        signature: crate::catalog::signature_asked(req.signature_option_code.as_deref())
            .map(|code| carrier.signature_option(code).map_or(code, |o| o.code.as_str()).into()),
        saturday: req.saturday_delivery.unwrap_or(false),
        am_delivery: req.postal_express_am_delivery.unwrap_or(false),
        dangerous_goods: req.dangerous_goods_code.as_deref().map(wire::CompactString::from),
        weight_unit,
        dim_unit,
        currency,
        pieces,
        deliver_by: None,
    };

    // The rules that a quote reports per service are errors of the booking.
    if !catalog.serves(service, &shipment.sender.country, &shipment.receiver.country, &shipment.receiver.state) {
        return Err(Error::fields(
            ErrorCategory::ServiceNotAvailable,
            vec![FieldError {
                field: "serviceCode".into(),
                message: format!("{} does not serve {} to {}", service.label, shipment.sender.country, shipment.receiver.country),
            }],
        ));
    }
    if let Some((field, reason)) = quoting::service_refusal(ctx.today, &shipment, service, carrier) {
        return Err(Error::invalid(field, reason));
    }
    let offered = service.package_types.iter().find(|sp| sp.package_type == package.code);
    if let Some(reason) = offered.and_then(|sp| quoting::package_refusal(&shipment, sp, package, &mut quoting::Heaviest::default())) {
        return Err(Error::invalid("pieces", reason.to_string()));
    }
    let billed_to_prepay = req.billing.as_ref().and_then(|b| b.party.as_deref()).is_none_or(|party| party == "sender");
    let return_to = wants_return.then(|| return_to.unwrap_or_else(|| shipment.sender.clone()));
    Ok(Valid { service, carrier, package, shipment, label_format, billed_to_prepay, return_to })
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

/// The commercial invoice rules of booking (4.5 and part 7).
fn booking_invoice(p: &mut Problems, invoice: &wire::CommercialInvoice) {
    const AT: &str = "commercialInvoice";
    let given = |v: &Option<Option<String>>| matches!(v, Some(Some(_)));
    for (name, value) in [("ftrNumber", &invoice.ftr_number), ("itnNumber", &invoice.itn_number), ("aesNumber", &invoice.aes_number)] {
        if value.is_none() {
            p.push(format!("{AT}.{name}"), "is required (null when it does not apply)");
        }
    }
    if given(&invoice.aes_number) {
        p.push(format!("{AT}.aesNumber"), "must be null: AES numbers are not accepted");
    }
    if given(&invoice.ftr_number) && (given(&invoice.itn_number) || given(&invoice.aes_number)) {
        p.push(format!("{AT}.ftrNumber"), "must be null when itnNumber or aesNumber is present");
    }
    if given(&invoice.itn_number) && (given(&invoice.ftr_number) || given(&invoice.aes_number)) {
        p.push(format!("{AT}.itnNumber"), "must be null when ftrNumber or aesNumber is present");
    }
    match invoice.terms_of_trade.as_deref() {
        None => p.push(format!("{AT}.termsOfTrade"), format!("is required: one of {}", TERMS_OF_TRADE.join(", "))),
        Some(t) if !TERMS_OF_TRADE.contains(&t) => {
            p.push(format!("{AT}.termsOfTrade"), format!("expected one of {}, found {t:?}", TERMS_OF_TRADE.join(", ")))
        }
        Some(_) => {}
    }
    for (name, value) in [
        ("receiverTaxId", &invoice.receiver_tax_id),
        ("senderVatTaxId", &invoice.sender_vat_tax_id),
        ("packageMarks", &invoice.package_marks),
    ] {
        if value.is_none() {
            p.push(format!("{AT}.{name}"), "is required");
        }
    }
    for (i, item) in invoice.items.iter().flatten().enumerate() {
        let at = |f: &str| format!("{AT}.items[{i}].{f}");
        if item.description.as_deref().is_none_or(|d| d.trim().is_empty()) {
            p.push(at("description"), "is required");
        }
        match item.quantity {
            None => p.push(at("quantity"), "is required"),
            Some(q) if q.0 < 1 => p.push(at("quantity"), format!("must be at least 1, found {}", q.0)),
            Some(_) => {}
        }
        match item.unit_value {
            None => p.push(at("unitValue"), "is required"),
            Some(v) => {
                shipment::amount(p, &at("unitValue"), v.0);
            }
        }
        if item.hts_number.as_deref().is_none_or(|h| h.trim().is_empty()) {
            p.push(at("htsNumber"), "is required");
        }
        match item.country_of_origin.as_deref() {
            None => p.push(at("countryOfOrigin"), "is required"),
            Some(c) if c.len() != 2 || crate::refdata::country(c).is_none() => {
                p.push(at("countryOfOrigin"), format!("expected an ISO 3166-1 two-letter country code, found {c:?}"))
            }
            Some(_) => {}
        }
        if let Some(w) = item.weight {
            if w.0 < Decimal::ZERO {
                p.push(at("weight"), "must be zero or more");
            }
        }
    }
}

/// The price of a booking: from its quote, or rated now.
/// The total is in the shipment's currency: a quote is only booked in its own.
struct Priced {
    total: Decimal,
    zone: String,
    quote_id: Option<i64>,
}

/// The customer's quote `id`, if it is still bookable: unknown or another customer's is
/// `NOT_FOUND`, older than 30 days `QUOTE_EXPIRED`. Checked before anything else about
/// the booking, as the reason that matters most.
fn bookable_quote(conn: &Connection, ctx: &Context, id: i64) -> Result<quoting::StoredQuote> {
    let stored = quoting::find(conn, &ctx.customer.id, id)?.ok_or_else(|| Error::not_found("quote", &id.to_string()))?;
    if ctx.now >= stored.expires_at {
        return Err(Error::new(
            ErrorCategory::QuoteExpired,
            format!("Quote {id} expired on {}; quote the shipment again.", stored.expires_at.date_naive()),
        ));
    }
    // A quote prices one shipment: a second booking of it is a double submit (a retry
    // that should answer the same carries an idempotencyKey).
    let booked: Option<String> = conn
        .prepare_cached("SELECT book_number FROM shipments WHERE quote_id = ?1 AND customer_id = ?2 AND voided = 0")?
        .query_row(rusqlite::params![id, ctx.customer.id], |r| r.get(0))
        .optional()?;
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
fn quoted_shipment(ctx: &Context, stored: &quoting::StoredQuote, booked: &ValidShipment) -> Result<ValidShipment> {
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
fn differs_from_quote(quoted: &ValidShipment, booked: &ValidShipment, carrier: &Carrier, pt: &PackageType) -> Option<String> {
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
pub(crate) fn book(tx: &Connection, ctx: &Context, req: &wire::BookShipmentRequest) -> Result<wire::BookShipmentResponse> {
    // The request as JSON identifies a repeat of an idempotent booking; only those need it.
    let canonical = req.idempotency_key.as_ref().map(|_| wire::to_json(req)).transpose()?;
    if let (Some(key), Some(canonical)) = (&req.idempotency_key, &canonical) {
        if key.chars().count() > 200 {
            return Err(Error::invalid("idempotencyKey", "must be at most 200 characters"));
        }
        let seen: Option<(String, String)> = tx
            .prepare_cached("SELECT request, response FROM idempotency_keys WHERE customer_id = ?1 AND key = ?2")?
            .query_row([&ctx.customer.id, key], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
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

    let kind = tracking_number::kind_for(&v.carrier.code, v.service.family == "ground")
        .ok_or_else(|| Error::internal(format!("carrier {} has no tracking number format", v.carrier.code)))?;
    // One reservation for the pieces' numbers and the return label's, which comes last.
    let pieces = v.shipment.pieces.len();
    let numbers = pieces + usize::from(return_price.is_some());
    let first_serial = store::next_ids(tx, &format!("tracking_{}", v.carrier.code), numbers)?;
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
    tx.prepare_cached(
        "INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family, tracking_number,
            shipment_date, zone, currency, total_amount, charged_cents, label_format, quote_id, view, view_shape, created_at, search_rowid,
            search_body, booked_event_time, booked_event_area, booked_event_country)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
    )?
    .execute(rusqlite::params![
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
        wire::to_json(&view)?,
        view_shape(),
        crate::dates::timestamp(ctx.now),
        search.rowid,
        search.body,
        booked.time,
        booked.area,
        booked.country,
    ])?;
    let shipment_rowid = tx.last_insert_rowid();
    let invoice = req.commercial_invoice.as_ref().map(|invoice| {
        let weight = v.shipment.pieces.iter().fold(Decimal::ZERO, |sum, p| sum.saturating_add(p.weight));
        let data =
            crate::invoices::invoice_data(&view, invoice, &v.carrier.label, &v.service.label, weight, v.shipment.weight_unit.as_str());
        (data, invoice.send_electronically.unwrap_or(false))
    });
    let labels = if ctx.labels_at_booking {
        let customs = customs_declaration(&view, invoice.as_ref().map(|(data, _)| data), ctx.rates);
        render(v.label_format, &label_data(&view, &v.carrier.label, &v.service.label, &priced.zone, customs.as_ref()))?
    } else {
        Vec::new()
    };
    {
        let mut piece_stmt = tx.prepare_cached(
            "INSERT INTO shipment_pieces (customer_id, book_number, piece_index, tracking_number, shipping_cost) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut label_stmt =
            tx.prepare_cached("INSERT INTO labels (customer_id, book_number, piece_index, format, data) VALUES (?1, ?2, ?3, ?4, ?5)")?;
        for (i, tn) in tracking_numbers.iter().enumerate() {
            let cost = piece_costs.get(i).copied().unwrap_or_default();
            piece_stmt.execute(rusqlite::params![ctx.customer.id, book_number, i as i64, tn, cost.to_string()])?;
            if let Some(label) = labels.get(i) {
                label_stmt.execute(rusqlite::params![ctx.customer.id, book_number, i as i64, v.label_format.code(), label])?;
            }
        }
    }
    if let Some((data, send_electronically)) = &invoice {
        crate::invoices::record(tx, &ctx.customer.id, data, *send_electronically, ctx.labels_at_booking)?;
    }
    if let (Some(price), Some(tracking), Some(to)) = (&return_price, &return_tracking, &v.return_to) {
        crate::returns::record(tx, &ctx.customer.id, &book_number, tracking, &view_address(to), price)?;
    }
    crate::search::after_booking(tx, shipment_rowid)?;
    if let Some(f) = &req.fulfillment {
        crate::orders::fulfil(tx, &ctx.customer.id, &book_number, f)?;
    }

    let pieces = (v.carrier.code == "postal" && tracking_numbers.len() > 1).then(|| {
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
        tx.prepare_cached("INSERT INTO idempotency_keys (customer_id, key, request, response, created_at) VALUES (?1, ?2, ?3, ?4, ?5)")?
            .execute(rusqlite::params![ctx.customer.id, key, canonical, wire::to_json(&response)?, crate::dates::timestamp(ctx.now)])?;
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

/// A weight in the unit search shows: lb for lb and oz, kg for kg and g.
fn view_weight(w: Decimal, unit: WeightUnit) -> (Decimal, WeightUnit) {
    match unit {
        WeightUnit::Oz => (rating::convert_weight(w, unit, WeightUnit::Lb), WeightUnit::Lb),
        WeightUnit::G => (rating::convert_weight(w, unit, WeightUnit::Kg), WeightUnit::Kg),
        other => (w, other),
    }
}

fn view_address(a: &Address) -> wire::ViewAddress {
    wire::ViewAddress {
        name: a.name.to_string(),
        company: a.company.to_string(),
        address1: a.address1.to_string(),
        address2: a.address2.to_string(),
        city: a.city.to_string(),
        state: a.state.to_string(),
        zip: a.zip.as_deref().map(String::from),
        country: a.country.to_string(),
        phone: a.phone.to_string(),
        email: a.email.to_string(),
    }
}

fn view_of(
    book_number: &str,
    tracking_numbers: &[String],
    v: &Valid,
    req: &wire::BookShipmentRequest,
    total: Decimal,
    order_number: String,
) -> wire::ShipmentView {
    let s = &v.shipment;
    let num = |d: Decimal| d.normalize().to_string();
    let reference = req.shipment_reference.clone().unwrap_or_default();
    let unit = view_weight(Decimal::ONE, s.weight_unit).1;
    wire::ShipmentView {
        book_number: book_number.to_string(),
        tracking_number: tracking_numbers.first().cloned().unwrap_or_default(),
        tracking_numbers: tracking_numbers.to_vec(),
        voided: false,
        carrier_code: v.carrier.code.clone(),
        service_code: v.service.code.clone(),
        package_type_code: v.package.code.clone(),
        shipment_date: s.date.to_string(),
        shipper_reference: reference.clone(),
        shipment_reference: reference,
        shipper_reference2: req.shipment_reference2.clone().unwrap_or_default(),
        content_description: req.content_description.clone().unwrap_or_default(),
        sender: view_address(&s.sender),
        receiver: view_address(&s.receiver),
        residential: s.residential,
        signature_option_code: s.signature.as_deref().map(String::from),
        weight_unit: unit.as_str().to_string(),
        dim_unit: s.dim_unit.map(|d| d.as_str().to_string()),
        currency: s.currency.as_str().to_string(),
        customs_currency: req.customs_currency.clone(),
        pieces: s
            .pieces
            .iter()
            .map(|p| wire::ViewPiece {
                weight: num(round_weight(view_weight(p.weight, s.weight_unit).0)),
                length: p.dims.map(|d| num(d[0])),
                width: p.dims.map(|d| num(d[1])),
                height: p.dims.map(|d| num(d[2])),
                insurance_amount: p.insurance,
                declared_value: p.declared_value,
            })
            .collect(),
        fulfillment: req.fulfillment.clone(),
        total_shipping_cost: total,
        order_id: req.fulfillment.as_ref().map(|f| f.order_id.clone()),
        order_number,
        commercial_invoice: req
            .commercial_invoice
            .as_ref()
            .map(|i| wire::ViewInvoice { send_electronically: i.send_electronically.unwrap_or(false) }),
        return_tracking_number: None,
        estimated_delivery_date: None,
    }
}

/// Converted weights keep four decimals (an ounce is 0.0625 lb).
fn round_weight(w: Decimal) -> Decimal {
    w.round_dp(4)
}

/// Void shipment: marks it voided and refunds its prepay charge (once), and its return
/// label's if an `Info Received` scan of it charged it.
pub(crate) fn void(
    tx: &Connection,
    customer_id: &str,
    book_number: &str,
    req: &wire::VoidRequest,
    now: DateTime<Utc>,
) -> Result<wire::VoidResponse> {
    if !req.voided {
        return Err(Error::invalid("voided", "must be true: a voided shipment cannot be un-voided"));
    }
    let s = find(tx, customer_id, book_number)?;
    if s.voided {
        return Err(Error::conflict(format!("Shipment {book_number} is already voided.")));
    }
    // Once the carrier has the shipment (it is on a manifest, or the carrier scanned it),
    // a void would refund a shipment that is being carried.
    let manifest: Option<String> = tx
        .prepare_cached("SELECT manifest_id FROM manifest_shipments WHERE customer_id = ?1 AND book_number = ?2")?
        .query_row([customer_id, book_number], |r| r.get(0))
        .optional()?;
    if let Some(manifest) = manifest {
        return Err(Error::conflict(format!(
            "Shipment {book_number} is on manifest {manifest}: the carrier has it in hand, so it can no longer be voided."
        )));
    }
    // The events of the shipment's pieces and of its return label, stored alike.
    let scanned: Option<(String, String, String)> = tx
        .prepare_cached(
            "SELECT tracking_number, event_status, event_time FROM tracking_events
             WHERE customer_id = ?1 AND book_number = ?2 AND event_status <> ?3 ORDER BY event_time LIMIT 1",
        )?
        .query_row([customer_id, book_number, crate::tracking::INFO_RECEIVED], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    if let Some((tracking_number, status, time)) = scanned {
        let label = if s.view.return_tracking_number.as_deref() == Some(tracking_number.as_str()) { "return label" } else { "label" };
        return Err(Error::conflict(format!(
            "Shipment {book_number} has been scanned by the carrier ({status} at {time}, {label} {tracking_number}), so it can no longer be voided."
        )));
    }
    tx.execute(
        "UPDATE shipments SET voided = 1, voided_at = ?2 WHERE customer_id = ?3 AND book_number = ?1",
        [book_number, &crate::dates::timestamp(now), customer_id],
    )?;
    crate::orders::on_void(tx, customer_id, book_number)?;
    let refunded = if s.charged_cents > 0 {
        Some(ledger::append(tx, customer_id, EntryKind::Refund, s.charged_cents, &format!("shipment {book_number} voided"), now)?)
    } else {
        None
    };
    let balance = match crate::returns::refund_on_void(tx, customer_id, book_number, now)?.or(refunded) {
        Some(balance) => balance,
        None => ledger::balance_cents(tx, customer_id)?,
    };
    Ok(wire::VoidResponse { book_number: book_number.to_string(), voided: true, prepay_balance: format2(from_cents(balance)) })
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
