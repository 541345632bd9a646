//! Validation of the parts a quote and a booking share: dates, units, pieces, billing
//! and the commercial invoice. Every function records problems with their JSON paths
//! and returns the validated value, so that one answer names every field at fault.

use std::str::FromStr;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::dates::{parse_date, LAST_DATE};
use crate::error::{Error, ErrorCategory, FieldError, Problems};
use crate::limits::{MAX_INVOICE_ITEMS, MAX_LINE_ITEMS, MAX_PIECES};
use crate::money::MAX_AMOUNT;
use crate::rating::{Currency, DimUnit, WeightUnit};
use crate::refdata;
use crate::wire::{self, bounded};

/// Heaviest piece accepted at all, in any unit (carrier limits are far lower).
const MAX_PIECE_WEIGHT: Decimal = Decimal::from_parts(100_000, 0, 0, false, 0);
/// Longest side accepted at all, in any unit.
const MAX_DIMENSION: Decimal = Decimal::from_parts(10_000, 0, 0, false, 0);

/// A validated piece.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ValidPiece {
    pub weight: Decimal,
    pub dims: Option<[Decimal; 3]>,
    pub insurance: Option<Decimal>,
    pub declared_value: Option<Decimal>,
}

/// The limits of a shipment's arrays (pieces, their line items, invoice items), for a
/// shipment that may not have come through the JSON reader, which stops at them: checked
/// before any other rule of the shipment.
///
/// # Errors
/// `LIMIT_EXCEEDED` on the first array past its limit.
pub(crate) fn check_limits(pieces: &[wire::Piece], invoice: Option<&wire::CommercialInvoice>) -> Result<(), Error> {
    bounded::check("pieces", pieces.len(), MAX_PIECES)?;
    for (i, piece) in pieces.iter().enumerate() {
        bounded::check(&format!("pieces[{i}].lineItems"), piece.line_items.as_ref().map_or(0, Vec::len), MAX_LINE_ITEMS)?;
    }
    let items = invoice.and_then(|c| c.items.as_ref()).map_or(0, Vec::len);
    bounded::check("commercialInvoice.items", items, MAX_INVOICE_ITEMS)
}

/// `YYYY-MM-DD`, not before `today` and at most a year after it ([`latest_date`]).
pub(crate) fn shipment_date(p: &mut Problems, field: &str, text: &str, today: NaiveDate) -> Option<NaiveDate> {
    let date = parse_date(text);
    match date {
        None => p.push(field, format!("expected a date as YYYY-MM-DD, found {text:?}")),
        Some(d) if d < today => p.push(field, format!("{d} is in the past; the earliest shipment date is today, {today}")),
        Some(d) if d > latest_date(today) => {
            p.push(field, format!("{d} is more than a year ahead; the latest shipment date is {}", latest_date(today)))
        }
        Some(_) => {}
    }
    date
}

/// The latest shipment or pickup date accepted on `today`: a year later (the 28th of
/// February for the 29th), and never past [`LAST_DATE`].
pub(crate) fn latest_date(today: NaiveDate) -> NaiveDate {
    today.checked_add_months(chrono::Months::new(12)).map_or(LAST_DATE, |d| d.min(LAST_DATE))
}

/// Parses an enumerated value, recording the allowed spellings on failure.
pub(crate) fn enumerated<T: FromStr>(p: &mut Problems, field: &str, text: &str, allowed: &str) -> Option<T> {
    let parsed = T::from_str(text.trim()).ok();
    if parsed.is_none() {
        p.push(field, format!("expected one of {allowed}, found {text:?}"));
    }
    parsed
}

/// Weight unit, dimension unit (null allowed) and currency of a shipment; a currency of
/// `None` was found missing by the caller, who reported it.
pub(crate) fn units(
    p: &mut Problems,
    weight_unit: &str,
    dim_unit: Option<Option<&str>>,
    currency: Option<&str>,
) -> (Option<WeightUnit>, Option<DimUnit>, Option<Currency>) {
    let w = enumerated::<WeightUnit>(p, "weightUnit", weight_unit, "lb, oz, kg, g");
    let d = match dim_unit {
        None => {
            p.push("dimUnit", "is required: in, cm, or null when the package type has preset dimensions");
            None
        }
        Some(None) => None,
        Some(Some(text)) => enumerated::<DimUnit>(p, "dimUnit", text, "in, cm or null"),
    };
    let c = currency.and_then(|c| enumerated::<Currency>(p, "currency", c, "USD, GBP, CAD, EUR"));
    (w, d, c)
}

/// A non-negative amount of money with at most two decimals.
pub(crate) fn amount(p: &mut Problems, field: &str, value: Decimal) -> Decimal {
    if let Some(problem) = amount_problem(value) {
        p.push(field, problem);
    }
    value
}

/// What is wrong with an amount, if anything (see [`amount`]).
fn amount_problem(value: Decimal) -> Option<String> {
    if value < Decimal::ZERO {
        Some(format!("must be zero or more, found {value}"))
    } else if value.normalize().scale() > 2 {
        Some(format!("must have at most 2 decimal places, found {value}"))
    } else if value > MAX_AMOUNT {
        Some(format!("must be at most {MAX_AMOUNT}, found {value}"))
    } else {
        None
    }
}

/// The pieces of a shipment. `domestic` forbids declared values; `dim_unit` must be set
/// when any piece has dimensions.
pub(crate) fn pieces(
    p: &mut Problems,
    pieces: &[wire::Piece],
    domestic: bool,
    dim_unit: Option<DimUnit>,
    dim_unit_given: bool,
) -> Vec<ValidPiece> {
    if pieces.is_empty() {
        p.push("pieces", "must hold at least one piece");
    }
    let mut any_dims = false;
    let valid = pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            let at = |f: &str| format!("pieces[{i}].{f}");
            let weight = piece.weight.0;
            if weight <= Decimal::ZERO {
                p.push(at("weight"), format!("must be more than 0, found {weight}"));
            } else if weight > MAX_PIECE_WEIGHT {
                p.push(at("weight"), format!("must be at most {MAX_PIECE_WEIGHT}, found {weight}"));
            }
            let given = [("length", piece.length), ("width", piece.width), ("height", piece.height)];
            let dims = match given {
                [(_, Some(l)), (_, Some(w)), (_, Some(h))] => {
                    for (name, d) in [("length", l.0), ("width", w.0), ("height", h.0)] {
                        if d <= Decimal::ZERO || d > MAX_DIMENSION {
                            p.push(at(name), format!("must be more than 0 and at most {MAX_DIMENSION}, found {d}"));
                        }
                    }
                    any_dims = true;
                    Some([l.0, w.0, h.0])
                }
                [(_, None), (_, None), (_, None)] => None,
                _ => {
                    for (name, d) in given {
                        if d.is_none() {
                            p.push(at(name), "is required when the other dimensions are given");
                        }
                    }
                    None
                }
            };
            // the field's path is written only for a problem: most amounts have none
            let mut checked = |field: &str, value: Decimal| {
                if let Some(problem) = amount_problem(value) {
                    p.push(at(field), problem);
                }
                value
            };
            let insurance = piece.insurance_amount.map(|d| checked("insuranceAmount", d.0));
            let declared_value = piece.declared_value.map(|d| checked("declaredValue", d.0));
            if domestic && declared_value.is_some() {
                p.push(at("declaredValue"), "must be null for a domestic shipment");
            }
            for (j, item) in piece.line_items.iter().flatten().enumerate() {
                let at = |f: &str| format!("pieces[{i}].lineItems[{j}].{f}");
                if item.product_name.trim().is_empty() {
                    p.push(at("productName"), "must not be empty");
                }
                if item.quantity.0 < 1 || item.quantity.0 > 1_000_000 {
                    p.push(at("quantity"), format!("must be from 1 to 1000000, found {}", item.quantity.0));
                }
            }
            ValidPiece { weight, dims, insurance, declared_value }
        })
        .collect();
    if any_dims && dim_unit.is_none() && dim_unit_given {
        p.push("dimUnit", "must be in or cm when pieces have dimensions");
    }
    valid
}

/// Billing (2.3): party, and an account for receiver and third-party billing.
pub(crate) fn billing(p: &mut Problems, billing: Option<&wire::Billing>) {
    let Some(b) = billing else { return };
    const PARTIES: [&str; 3] = ["sender", "receiver", "third_party"];
    if let Some(party) = b.party.as_deref() {
        if !PARTIES.contains(&party) {
            p.push("billing.party", format!("expected one of sender, receiver, third_party, found {party:?}"));
        } else if party != "sender" && b.account.is_none() {
            p.push("billing.account", format!("is required when billing party is {party}"));
        }
    }
    if let Some(country) = b.country.as_deref() {
        if refdata::country(&country.to_ascii_uppercase()).is_none() {
            p.push("billing.country", format!("expected an ISO 3166-1 two-letter country code, found {country:?}"));
        }
    }
    if let Some(d) = &b.dutiable_party {
        match d.duty_payment_type.as_deref() {
            None => {}
            Some(t) if !PARTIES.contains(&t) => {
                p.push("billing.dutiableParty.dutyPaymentType", format!("expected one of sender, receiver, third_party, found {t:?}"))
            }
            Some(t) if t != "sender" && d.duty_payment_account_number.is_none() => {
                p.push("billing.dutiableParty.dutyPaymentAccountNumber", format!("is required when dutyPaymentType is {t}"))
            }
            Some(_) => {}
        }
    }
}

/// The incoterms of `termsOfTrade`.
pub(crate) const TERMS_OF_TRADE: [&str; 7] = ["CIP", "CPT", "DAP", "DAT", "DDP", "EXW", "FCA"];
const TAX_ID_TYPES: [&str; 6] = ["EOR", "VAT", "FTZ", "CNP", "EIN", "FED"];
const SENDER_TAX_ID_TYPES: [&str; 3] = ["ein", "dns", "fgn"];

/// The commercial invoice rules a quote checks (4.1 rule 1, the tax-id rows): item
/// weights against the package weight, `senderTaxIdNumberType`, `dhlTaxIds`.
///
/// # Errors
/// `LIMIT_EXCEEDED` for more than two `dhlTaxIds` (returned at once, it is a limit).
pub(crate) fn quote_invoice(p: &mut Problems, invoice: &wire::CommercialInvoice, package_weight: Decimal, unit: &str) -> Result<(), Error> {
    const AT: &str = "commercialInvoice";
    if let Some(ids) = &invoice.dhl_tax_ids {
        if ids.len() > 2 {
            return Err(Error::fields(
                ErrorCategory::LimitExceeded,
                vec![FieldError {
                    field: format!("{AT}.dhlTaxIds"),
                    message: format!("at most 2 tax ids are allowed, found {}", ids.len()),
                }],
            ));
        }
        for (i, id) in ids.iter().enumerate() {
            if id.number.as_deref().is_none_or(|n| n.trim().is_empty()) {
                p.push(format!("{AT}.dhlTaxIds[{i}].number"), "must not be empty");
            }
            match id.kind.as_deref() {
                Some(t) if TAX_ID_TYPES.contains(&t) => {}
                Some(t) => {
                    p.push(format!("{AT}.dhlTaxIds[{i}].type"), format!("expected one of EOR, VAT, FTZ, CNP, EIN, FED, found {t:?}"))
                }
                None => p.push(format!("{AT}.dhlTaxIds[{i}].type"), "is required: one of EOR, VAT, FTZ, CNP, EIN, FED"),
            }
            if let Some(c) = id.issuer_country.as_deref() {
                if c.len() != 2 || refdata::country(c).is_none() {
                    p.push(
                        format!("{AT}.dhlTaxIds[{i}].issuerCountry"),
                        format!("expected an ISO 3166-1 two-letter country code, found {c:?}"),
                    );
                }
            }
        }
    }
    if let Some(t) = invoice.sender_tax_id_number_type.as_deref() {
        if !SENDER_TAX_ID_TYPES.contains(&t) {
            p.push(format!("{AT}.senderTaxIdNumberType"), format!("expected one of ein, dns, fgn, found {t:?}"));
        }
    }
    if let Some(t) = invoice.terms_of_trade.as_deref() {
        if !TERMS_OF_TRADE.contains(&t) {
            p.push(format!("{AT}.termsOfTrade"), format!("expected one of {}, found {t:?}", TERMS_OF_TRADE.join(", ")));
        }
    }
    for (i, item) in invoice.items.iter().flatten().enumerate() {
        if let Some(w) = item.weight {
            if w.0 < Decimal::ZERO {
                p.push(format!("{AT}.items[{i}].weight"), format!("must be zero or more, found {}", w.0));
            }
        }
        if let Some(q) = item.quantity {
            if q.0 < 1 {
                p.push(format!("{AT}.items[{i}].quantity"), format!("must be at least 1, found {}", q.0));
            }
        }
        if let Some(v) = item.unit_value {
            amount(p, &format!("{AT}.items[{i}].unitValue"), v.0);
        }
        if let Some(c) = item.country_of_origin.as_deref() {
            if refdata::country(&c.to_ascii_uppercase()).is_none() {
                p.push(format!("{AT}.items[{i}].countryOfOrigin"), format!("expected an ISO 3166-1 two-letter country code, found {c:?}"));
            }
        }
    }
    invoice_item_weights(p, invoice, package_weight, unit);
    Ok(())
}

/// 4.1 rule 1, which booking shares (a shipment that cannot be quoted cannot be
/// booked): the invoice item weights may not total more than the package weight.
pub(crate) fn invoice_item_weights(p: &mut Problems, invoice: &wire::CommercialInvoice, package_weight: Decimal, unit: &str) {
    let item_weight = invoice
        .items
        .iter()
        .flatten()
        .filter_map(|item| item.weight)
        .fold(Decimal::ZERO, |acc, w| acc.checked_add(w.0).unwrap_or(Decimal::MAX));
    if item_weight > package_weight {
        p.push(
            "commercialInvoice.items",
            format!(
                "the item weights total {} {unit}, more than the package weight of {} {unit}",
                item_weight.normalize(),
                package_weight.normalize()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// What chrono reads, restricted to the exact shape: signs, spaces, one-digit
        /// months and days are refused whatever chrono makes of them.
        #[test]
        fn dates_read_as_chrono_reads_the_exact_shape(text in r"[0-9+ -]{0,2}[0-9]{0,4}-[0-9 ]{0,2}-[0-9]{1,2} ?") {
            let b = text.as_bytes();
            let exact = b.len() == 10 && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
            let chrono = if exact { NaiveDate::parse_from_str(&text, "%Y-%m-%d").ok() } else { None };
            proptest::prop_assert_eq!(parse_date(&text), chrono);
        }
    }

    #[test]
    fn dates_are_strict() {
        assert_eq!(parse_date("2026-11-23"), NaiveDate::from_ymd_opt(2026, 11, 23));
        for bad in [
            "2026-02-30",
            "2026-13-01",
            "2026-1-1",
            "2026/11/23",
            "26-11-2023",
            "0000-00-00",
            "",
            " 2026-11-23 ",
            "2026-11-23 ",
            "+2026-1-05",
            "+999-01-05",
            "+10000-1-1",
            "-2026-1-05",
            "2026-1-005",
            "2026-01-5",
            "02026-11-23",
            "2026-11-023",
            "2026-١١-23",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
        assert!(NaiveDate::parse_from_str("+2026-1-05", "%Y-%m-%d").is_ok(), "why the shape is checked first");
        assert_eq!(parse_date("2024-02-29"), NaiveDate::from_ymd_opt(2024, 2, 29));
        assert_eq!(parse_date("9999-12-31"), Some(LAST_DATE));
    }

    #[test]
    fn the_latest_date_is_a_year_ahead_and_never_past_the_last_date() {
        let d = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        assert_eq!(latest_date(d(2026, 11, 21)), d(2027, 11, 21));
        assert_eq!(latest_date(d(2028, 2, 29)), d(2029, 2, 28));
        assert_eq!(latest_date(d(9999, 3, 1)), LAST_DATE);
        assert_eq!(latest_date(NaiveDate::MAX), LAST_DATE);
    }
}
