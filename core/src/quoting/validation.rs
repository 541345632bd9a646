//! The rules of one shipment to quote (4.1, part 7), and why a service or a package
//! type cannot take a shipment that passed them: booking asks the same questions.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::address::{self, Address, AddressUse};
use crate::catalog::{Carrier, PackageType, Service, ServicePackage};
use crate::error::{Error, Problems, Result};
use crate::rating::{self, Currency, DimUnit, WeightUnit};
use crate::shipment::{self, ValidPiece};
use crate::wire::{self, CompactString};

use super::{Context, Form};

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
