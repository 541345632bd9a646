//! The view of a booked shipment as retrieve shipment and search show it, built once at
//! booking and stored with the shipment.

use rust_decimal::Decimal;

use crate::address::Address;
use crate::rating::{self, WeightUnit};
use crate::wire;

use super::Valid;

/// A weight in the unit search shows: lb for lb and oz, kg for kg and g.
fn view_weight(w: Decimal, unit: WeightUnit) -> (Decimal, WeightUnit) {
    match unit {
        WeightUnit::Oz => (rating::convert_weight(w, unit, WeightUnit::Lb), WeightUnit::Lb),
        WeightUnit::G => (rating::convert_weight(w, unit, WeightUnit::Kg), WeightUnit::Kg),
        other => (w, other),
    }
}

pub(super) fn view_address(a: &Address) -> wire::ViewAddress {
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

pub(super) fn view_of(
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
