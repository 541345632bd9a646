//! The rules of a booking (4.5, part 7): every field of the request, the carrier's
//! options and the commercial invoice, checked before anything is priced or written.

use rust_decimal::Decimal;

use crate::address::{self, AddressUse};
use crate::catalog::Carrier;
use crate::documents::LabelFormat;
use crate::error::{Error, ErrorCategory, FieldError, Problems, Result};
use crate::quoting::{self, ValidShipment};
use crate::rating::Currency;
use crate::shipment::{self, TERMS_OF_TRADE};
use crate::shipments::is_domestic;
use crate::wire;

use super::{Context, Valid};
use crate::store::Read;

/// Postal endorsements carrier E accepts.
const POSTAL_ENDORSEMENTS: [&str; 4] =
    ["ADDRESS_SERVICE_REQUESTED", "RETURN_SERVICE_REQUESTED", "CHANGE_SERVICE_REQUESTED", "FORWARDING_SERVICE_REQUESTED"];

pub(super) fn validate<'a>(conn: &Read<'_>, ctx: &Context<'a>, req: &wire::BookShipmentRequest) -> Result<Valid<'a>> {
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
    let domestic = is_domestic(carrier.is_some_and(|c| c.us_territories_domestic), &sender.country, &receiver.country);
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
                    // A carrier the catalog lacks (refused above) prints PDF only.
                    let printable = if carrier.is_some() { catalog.printable(carrier_code, f) } else { f == LabelFormat::Pdf };
                    if !printable {
                        let by = catalog.offered_by(&|c| c.prints(f));
                        p.push(
                            "labelImageFormat",
                            format!("{code} labels are not available for carrier {carrier_code}; they are printed by {by}"),
                        );
                    }
                    Some(f)
                }
            }
        }
    };
    let offers = |capability: fn(&Carrier) -> bool| carrier.is_some_and(capability);
    let only = |capability: fn(&Carrier) -> bool| format!("is available for {} only, not {carrier_code}", catalog.offered_by(&capability));
    if wants_return && !offers(|c| c.scan_based_return_labels) {
        p.push("scanBasedReturnLabel", only(|c| c.scan_based_return_labels));
    } else if wants_return && req.pieces.len() > 1 {
        p.push(
            "scanBasedReturnLabel",
            format!("a return label carries one package; book the {} pieces as shipments of their own", req.pieces.len()),
        );
    }
    if req.postal_express_am_delivery == Some(true) && !offers(|c| c.am_delivery) {
        p.push("postalExpressAmDelivery", only(|c| c.am_delivery));
    }
    if req.dangerous_goods_code.is_some() && !offers(|c| c.dangerous_goods) {
        p.push("dangerousGoodsCode", only(|c| c.dangerous_goods));
    }
    if let Some(e) = &req.postal_endorsement {
        if !offers(|c| c.postal_endorsements) {
            p.push("postalEndorsement", only(|c| c.postal_endorsements));
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
