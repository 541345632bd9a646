//! The stored form of a shipment's quotes: packed into bytes, without keys
//! and with codes for what repeats.
//!
//! A batch over every service of the catalog stores about 7,300 quotes. As JSON they came
//! to 2.7 MB a batch, mostly keys and names, and writing them to the WAL and then
//! checkpointing them into the database was most of the batch's time. Packed they take
//! about a fifth of that. Nothing is lost: [`unpack_quotes`] gives back the quotes the
//! answer showed. They are read only when a quote is found again (to book or batch it).
//!
//! Stored rows outlive the code that wrote them, so the codes below (the form tag, the
//! weight types, the surcharge codes) may be added to but never changed; a test pins
//! them.
//!
//! # The quotes
//!
//! ```text
//! quotes  = 0x02 quote*                     (0x01: quotes written before arrivals,
//!                                            each without its arrival)
//! quote   = carrier:same service:str description:str package:same currency:str
//!           total:dec base:dec zone:str weight weightType arrival line* 0xFF
//! arrival = 0x00                             (no transit time for the route)
//!         | 0x01 days:u8 date:varint         (date: days from 0001-01-01, not guaranteed)
//!         | 0x02 days:u8 date:varint         (the same, guaranteed)
//! weight  = 0x00 str                         (text that is not a number's text)
//!         | 0x01 dec                         (a number, read back as its text)
//! weightType = 0x00 "Actual" | 0x01 "Dimensional" | 0x02 str
//! line    = k:u8 dec                         (1 <= k <= 10: the description of kind k-1)
//!         | 0x00 str dec                     (any other description)
//! str     = len:varint bytes
//! same    = 0x00                             (the previous quote's)
//!         | len+1:varint bytes
//! dec     = (scale | 0x80 when negative):u8 mantissa:varint
//! varint  = LEB128, unsigned
//! ```
//!
//! Quote ids are not stored: a row's quotes have consecutive ids from its first.

use chrono::Datelike as _;
use rust_decimal::Decimal;

use crate::rating::{SurchargeKind, WeightType};
use crate::wire::{self, QuoteFields, QuotedWeight};

/// First byte of packed quotes.
const QUOTES_FORM: u8 = 0x02;
/// First byte of quotes packed before they had arrivals.
const QUOTES_FORM_WITHOUT_ARRIVALS: u8 = 0x01;
/// Ends a quote's surcharge lines.
const END_OF_LINES: u8 = 0xFF;

/// The name of a surcharge line to pack: a kind's (one byte) or any other text.
#[derive(Clone, Copy)]
pub(crate) enum LineName<'a> {
    Kind(SurchargeKind),
    #[cfg_attr(
        not(any(test, feature = "bench")),
        allow(dead_code, reason = "packs the quotes of a wire answer: the bench floor and tests")
    )]
    Text(&'a str),
}

impl<'a> LineName<'a> {
    /// The name of a line described as `description`: its kind when it is a kind's.
    #[cfg_attr(
        not(any(test, feature = "bench")),
        allow(dead_code, reason = "packs the quotes of a wire answer: the bench floor and tests")
    )]
    pub fn of(description: &'a str) -> LineName<'a> {
        match SurchargeKind::ALL.iter().find(|k| k.description() == description) {
            Some(&kind) => LineName::Kind(kind),
            None => LineName::Text(description),
        }
    }
}

/// Appends `quotes` to `out` in the packed form (the quote ids are left out).
pub(crate) fn write_quotes<'a, L>(out: &mut Vec<u8>, quotes: impl IntoIterator<Item = (QuoteFields<'a>, L)>)
where
    L: Iterator<Item = (LineName<'a>, Decimal)>,
{
    out.push(QUOTES_FORM);
    let mut previous: Option<(&str, &str)> = None;
    for (q, lines) in quotes {
        let (carrier, package) = previous.unwrap_or_default();
        same(out, q.carrier_code, previous.is_some() && equal(carrier, q.carrier_code));
        text(out, q.service_code);
        text(out, q.service_description);
        same(out, q.package_type_code, previous.is_some() && equal(package, q.package_type_code));
        previous = Some((q.carrier_code, q.package_type_code));
        text(out, q.currency);
        decimal(out, q.total_amount);
        decimal(out, q.base_amount);
        text(out, q.zone);
        // A number is stored as one whatever its source, so that a quote packs to the
        // same bytes from the rate and from the text the answer showed.
        let number = match q.quoted_weight {
            QuotedWeight::Number(d) => Ok(d),
            QuotedWeight::Text(t) => t.parse::<Decimal>().ok().filter(|d| wire::decimal_text(*d).as_str() == t).ok_or(t),
        };
        match number {
            Ok(d) => {
                out.push(1);
                decimal(out, d);
            }
            Err(t) => {
                out.push(0);
                text(out, t);
            }
        }
        match q.quoted_weight_type.as_bytes() {
            b"Actual" => out.push(0),
            b"Dimensional" => out.push(1),
            _ => {
                out.push(2);
                text(out, q.quoted_weight_type);
            }
        }
        match (q.transit_days, q.estimated_delivery_date) {
            (Some(days), Some(date)) => {
                out.push(if q.delivery_date_guaranteed { 2 } else { 1 });
                out.push(days);
                varint(out, u128::from(date.num_days_from_ce().unsigned_abs()));
            }
            _ => out.push(0),
        }
        for (name, amount) in lines {
            match name {
                LineName::Kind(kind) => out.push(kind as u8 + 1),
                LineName::Text(t) => {
                    out.push(0);
                    text(out, t);
                }
            }
            decimal(out, amount);
        }
        out.push(END_OF_LINES);
    }
}

/// The packed form of `quotes`, as the service stores a shipment's quotes:
/// without keys or quote ids, with the carrier and package type written once for a run
/// of quotes that share them, and with one-byte codes for the weight types and for the
/// surcharge lines of the rating engine. [`unpack_quotes`] reads it back whole.
#[cfg(any(test, feature = "bench"))]
pub(crate) fn pack_quotes(quotes: &[wire::Quote]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 96 * quotes.len());
    write_quotes(
        &mut out,
        quotes.iter().map(|q| (wire::quote_fields(q), q.surcharges.iter().map(|l| (LineName::of(&l.description), l.amount)))),
    );
    out
}

/// The quotes of `packed` (written by [`pack_quotes`] or by the service), their ids
/// counted from `first_id`.
///
/// # Errors
/// The reason, when `packed` is not in the packed form (a damaged row).
pub(crate) fn unpack_quotes(packed: &[u8], first_id: i64) -> Result<Vec<wire::Quote>, String> {
    let mut r = Reader { bytes: packed, at: 0 };
    let with_arrivals = match r.byte()? {
        QUOTES_FORM => true,
        QUOTES_FORM_WITHOUT_ARRIVALS => false,
        _ => return Err("not packed quotes".into()),
    };
    let mut quotes: Vec<wire::Quote> = Vec::new();
    while !r.done() {
        let previous = quotes.last();
        let carrier_code = r.same(previous.map(|q| q.carrier_code.as_str()))?;
        let service_code = r.text()?;
        let service_description = r.text()?;
        let package_type_code = r.same(previous.map(|q| q.package_type_code.as_str()))?;
        let currency = r.text()?;
        let total_amount = r.decimal()?;
        let base_amount = r.decimal()?;
        let zone = r.text()?;
        let quoted_weight = match r.byte()? {
            0 => r.text()?,
            1 => r.decimal()?.to_string(),
            b => return Err(format!("weight form {b}")),
        };
        let quoted_weight_type = match r.byte()? {
            0 => WeightType::Actual.as_str().to_string(),
            1 => WeightType::Dimensional.as_str().to_string(),
            2 => r.text()?,
            b => return Err(format!("weight type {b}")),
        };
        let (transit_days, estimated_delivery_date, delivery_date_guaranteed) = match if with_arrivals { r.byte()? } else { 0 } {
            0 => (None, None, false),
            form @ (1 | 2) => {
                let days = r.byte()?;
                let n = i32::try_from(r.varint()?).map_err(|_| "arrival date out of range")?;
                let date = chrono::NaiveDate::from_num_days_from_ce_opt(n).ok_or("arrival date out of range")?;
                (Some(days), Some(date), form == 2)
            }
            b => return Err(format!("arrival form {b}")),
        };
        let mut surcharges = Vec::new();
        loop {
            let description = match r.byte()? {
                END_OF_LINES => break,
                0 => r.text()?,
                k => SurchargeKind::ALL.get(usize::from(k) - 1).ok_or_else(|| format!("surcharge code {k}"))?.description().to_string(),
            };
            surcharges.push(wire::QuoteSurcharge { description, amount: r.decimal()? });
        }
        let quote_id = i64::try_from(quotes.len()).ok().and_then(|i| first_id.checked_add(i)).ok_or("quote id out of range")?;
        quotes.push(wire::Quote {
            quote_id,
            carrier_code,
            service_code,
            service_description,
            package_type_code,
            currency,
            total_amount,
            base_amount,
            zone,
            quoted_weight,
            quoted_weight_type,
            transit_days,
            estimated_delivery_date,
            delivery_date_guaranteed,
            surcharges,
        });
    }
    Ok(quotes)
}

fn varint(out: &mut Vec<u8>, mut n: u128) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The same text: the same string of the catalog (as a batch's quotes mostly are), or
/// equal bytes.
fn equal(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

fn text(out: &mut Vec<u8>, s: &str) {
    length_and(out, s.len(), s);
}

/// `s`, or the one byte that says it is the previous quote's.
fn same(out: &mut Vec<u8>, s: &str, as_before: bool) {
    if as_before {
        out.push(0);
    } else {
        varint(out, s.len() as u128 + 1);
        out.extend_from_slice(s.as_bytes());
    }
}

/// `n` (a length, mostly under 128) and the bytes of `s`.
fn length_and(out: &mut Vec<u8>, n: usize, s: &str) {
    match u8::try_from(n) {
        Ok(b) if b < 0x80 => out.push(b),
        _ => varint(out, n as u128),
    }
    out.extend_from_slice(s.as_bytes());
}

fn decimal(out: &mut Vec<u8>, d: Decimal) {
    // A decimal's scale is at most 28, so the sign fits in the scale byte's top bit.
    out.push(d.scale() as u8 | if d.is_sign_negative() { 0x80 } else { 0 });
    let m = d.mantissa().unsigned_abs();
    match u8::try_from(m) {
        Ok(b) if b < 0x80 => out.push(b),
        _ => varint(out, m),
    }
}

/// Reads the packed quotes; every read checks its bounds.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.bytes.get(self.at).ok_or("packed data ends early")?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u128, String> {
        let mut n: u128 = 0;
        for shift in (0..128).step_by(7) {
            let b = self.byte()?;
            n |= u128::from(b & 0x7F).checked_shl(shift).ok_or("varint too long")?;
            if b < 0x80 {
                return Ok(n);
            }
        }
        Err("varint too long".into())
    }

    fn str_of(&mut self, len: u128) -> Result<String, String> {
        self.slice(len).map(str::to_string)
    }

    /// The next `len` bytes, which must be UTF-8.
    fn slice(&mut self, len: u128) -> Result<&str, String> {
        let len = usize::try_from(len).map_err(|_| "text too long")?;
        let end = self.at.checked_add(len).ok_or("text too long")?;
        let bytes = self.bytes.get(self.at..end).ok_or("packed data ends early")?;
        self.at = end;
        std::str::from_utf8(bytes).map_err(|e| e.to_string())
    }

    fn text(&mut self) -> Result<String, String> {
        let len = self.varint()?;
        self.str_of(len)
    }

    fn same(&mut self, previous: Option<&str>) -> Result<String, String> {
        match self.varint()? {
            0 => previous.map(str::to_string).ok_or_else(|| "the first quote refers to a previous one".into()),
            n => self.str_of(n - 1),
        }
    }

    fn decimal(&mut self) -> Result<Decimal, String> {
        let head = self.byte()?;
        let scale = u32::from(head & 0x7F);
        let mantissa = self.varint()?;
        if scale > 28 || mantissa >> 96 != 0 {
            return Err(format!("amount out of range (scale {scale})"));
        }
        let part = |shift: u32| (mantissa >> shift) as u32;
        Ok(Decimal::from_parts(part(0), part(32), part(64), head & 0x80 != 0, scale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn quote(id: i64, service: &str, lines: &[(&str, &str)]) -> wire::Quote {
        wire::Quote {
            quote_id: id,
            carrier_code: "parcel".into(),
            service_code: service.into(),
            service_description: "Ground".into(),
            package_type_code: "parcel_custom".into(),
            currency: "USD".into(),
            total_amount: dec("25.05"),
            base_amount: dec("11.69"),
            zone: "2".into(),
            quoted_weight: "2".into(),
            quoted_weight_type: "Dimensional".into(),
            transit_days: Some(2),
            estimated_delivery_date: chrono::NaiveDate::from_ymd_opt(2026, 11, 30),
            delivery_date_guaranteed: true,
            surcharges: lines.iter().map(|(d, a)| wire::QuoteSurcharge { description: (*d).into(), amount: dec(a) }).collect(),
        }
    }

    /// The exact bytes of a packed quote, so that a change of the form cannot pass
    /// unnoticed: rows written by earlier builds must still read.
    #[test]
    fn the_quotes_form_is_pinned() {
        let q = quote(7, "g", &[("Residential delivery", "5.95"), ("Insurance", "4.15"), ("Odd", "-0.5")]);
        let mut second = q.clone();
        second.quote_id = 8;
        second.quoted_weight_type = "Actual".into();
        second.surcharges.clear();
        second.transit_days = None;
        second.estimated_delivery_date = None;
        second.delivery_date_guaranteed = false;
        let packed = pack_quotes(&[q.clone(), second.clone()]);
        #[rustfmt::skip]
        let expected: Vec<u8> = [
            &[0x02][..],
            &[7], b"parcel", &[1], b"g", &[6], b"Ground", &[14], b"parcel_custom", &[3], b"USD",
            &[2, 0xC9, 0x13], &[2, 0x91, 0x09], &[1], b"2", &[1, 0, 2], &[1], &[2, 2, 0xEE, 0x94, 0x2D],
            &[1, 2, 0xD3, 0x04], &[10, 2, 0x9F, 0x03], &[0, 3], b"Odd", &[0x81, 5], &[0xFF],
            &[0], &[1], b"g", &[6], b"Ground", &[0], &[3], b"USD",
            &[2, 0xC9, 0x13], &[2, 0x91, 0x09], &[1], b"2", &[1, 0, 2], &[0], &[0], &[0xFF],
        ]
        .concat();
        assert_eq!(packed, expected);
        assert_eq!(unpack_quotes(&packed, 7).unwrap(), vec![q.clone(), second.clone()]);
        // a quote not guaranteed
        let mut maybe = q.clone();
        maybe.delivery_date_guaranteed = false;
        assert_eq!(pack_quotes(&[maybe.clone()])[47..52], [1, 2, 0xEE, 0x94, 0x2D], "form 1: not guaranteed");
        assert_eq!(unpack_quotes(&pack_quotes(&[maybe.clone()]), 7).unwrap(), vec![maybe]);
        // Rows written before arrivals (form 0x01, no arrival byte) read without them.
        #[rustfmt::skip]
        let old: Vec<u8> = [
            &[0x01][..],
            &[7], b"parcel", &[1], b"g", &[6], b"Ground", &[14], b"parcel_custom", &[3], b"USD",
            &[2, 0xC9, 0x13], &[2, 0x91, 0x09], &[1], b"2", &[1, 0, 2], &[1],
            &[1, 2, 0xD3, 0x04], &[10, 2, 0x9F, 0x03], &[0, 3], b"Odd", &[0x81, 5], &[0xFF],
        ]
        .concat();
        let without = wire::Quote { transit_days: None, estimated_delivery_date: None, delivery_date_guaranteed: false, ..q };
        assert_eq!(unpack_quotes(&old, 7).unwrap(), vec![without]);
    }

    /// Whatever the text, amount or line, a quote reads back as it was.
    #[test]
    fn quotes_read_back_as_written() {
        let mut odd = quote(1_000_000_001, "s\"x\u{1}é", &[("Fuel surcharge", "0")]);
        odd.carrier_code = String::new();
        odd.package_type_code = String::new();
        odd.quoted_weight = "2.50".into();
        odd.quoted_weight_type = "Other".into();
        odd.total_amount = Decimal::MAX;
        odd.base_amount = Decimal::MIN;
        let mut tiny = quote(1_000_000_002, "t", &[("", "-0.0000000000000000000000000001")]);
        tiny.carrier_code = "other".into();
        tiny.total_amount = dec("-0");
        tiny.base_amount = Decimal::new(1, 28);
        tiny.quoted_weight = "+2".into();
        let mut words = quote(1_000_000_003, "w", &[]);
        words.quoted_weight = "two pounds".into();
        let every_kind: Vec<(&str, &str)> = SurchargeKind::ALL.iter().map(|k| (k.description(), "1.23")).collect();
        let all = quote(1_000_000_004, "u", &every_kind);
        let quotes = vec![odd, tiny, words, all];
        for n in 0..=quotes.len() {
            let back = unpack_quotes(&pack_quotes(&quotes[..n]), 1_000_000_001).unwrap();
            assert_eq!(back, quotes[..n]);
            for (a, b) in back.iter().zip(&quotes) {
                assert_eq!(a.total_amount.is_sign_negative(), b.total_amount.is_sign_negative());
                assert_eq!(a.base_amount.scale(), b.base_amount.scale());
            }
        }
    }

    /// A damaged row is an error, never a panic: every cut of a packed row and every
    /// changed byte is read without panicking, and cuts are refused.
    #[test]
    fn damaged_quotes_are_refused() {
        let packed = pack_quotes(&[quote(1, "g", &[("Fuel surcharge", "3.26"), ("Odd", "1")]), quote(2, "h", &[])]);
        for cut in 1..packed.len() {
            let r = unpack_quotes(&packed[..cut], 1);
            // a cut just after the form byte or the first quote leaves whole quotes
            assert!(r.is_err() || r.as_ref().is_ok_and(|q| q.len() < 2), "cut at {cut}: {r:?}");
        }
        for i in 0..packed.len() {
            for b in [0x00, 0x7F, 0x80, 0xFF] {
                let mut bad = packed.clone();
                bad[i] = b;
                let _ = unpack_quotes(&bad, 1);
            }
        }
        assert!(unpack_quotes(b"", 1).is_err());
        assert!(unpack_quotes(b"[{}]", 1).is_err());
        assert!(unpack_quotes(&[1, 0], 1).is_err());
        assert!(unpack_quotes(
            &[1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
            1
        )
        .is_err());
    }
}
