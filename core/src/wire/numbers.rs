//! Decimals and integers that arrive as a JSON number or a numeric string.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A decimal sent as a JSON number or a numeric string (`12.5` or `"12.5"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Dec(pub Decimal);

/// An integer sent as a JSON number or a numeric string (`3` or `"3"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Int(pub i64);

pub(crate) fn parse_decimal(s: &str) -> Option<Decimal> {
    let s = s.trim();
    if s.is_empty() || s.len() > 40 {
        return None;
    }
    plain_decimal(s).or_else(|| Decimal::from_str(s).ok()).or_else(|| Decimal::from_scientific(s).ok())
}

/// The common case of [`parse_decimal`], read by hand: `digits[.digits]` with at most 18
/// digits, which fits an `i64` mantissa exactly; every weight, dimension and amount of a
/// quote request is one. Anything else (a sign, an exponent, `_`, more digits) is `None`
/// and left to `Decimal`'s own parser; a property test compares the two.
fn plain_decimal(s: &str) -> Option<Decimal> {
    let bytes = s.as_bytes();
    if bytes.len() > 19 {
        return None;
    }
    let (int, frac) = match bytes.iter().position(|&b| b == b'.') {
        Some(dot) => (&bytes[..dot], &bytes[dot + 1..]),
        None => (bytes, &bytes[bytes.len()..]),
    };
    if int.is_empty() || (frac.is_empty() && int.len() < bytes.len()) || int.len() + frac.len() > 18 {
        return None;
    }
    let mut mantissa: i64 = 0;
    for &b in int.iter().chain(frac) {
        if !b.is_ascii_digit() {
            return None;
        }
        // at most 18 digits: no overflow
        mantissa = mantissa * 10 + i64::from(b - b'0');
    }
    Some(Decimal::new(mantissa, u32::try_from(frac.len()).ok()?))
}

struct DecVisitor;

impl<'de> Visitor<'de> for DecVisitor {
    type Value = Dec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a decimal number or a numeric string")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dec, E> {
        Ok(Dec(Decimal::from(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dec, E> {
        Ok(Dec(Decimal::from(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Dec, E> {
        parse_decimal(v).map(Dec).ok_or_else(|| E::custom(format!("expected a decimal number, found {v:?}")))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Dec, A::Error> {
        // serde_json's arbitrary-precision numbers arrive as a one-entry map.
        let n = serde_json::Number::deserialize(de::value::MapAccessDeserializer::new(map))?;
        let text = n.to_string();
        parse_decimal(&text).map(Dec).ok_or_else(|| de::Error::custom(format!("number {text} is out of range")))
    }
}

impl<'de> Deserialize<'de> for Dec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DecVisitor)
    }
}

/// As `JsonDecimal` does: `Decimal`'s own impl formats each weight and dimension into a
/// `String` and parses it back into a `serde_json::Number`.
impl Serialize for Dec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        JsonDecimal(self.0).serialize(s)
    }
}

/// Serialises a decimal as the JSON number `serde_json` writes for [`Decimal`]
/// (its `Display` text, as with the `serde-arbitrary-precision` feature), formatted on
/// the stack: `Decimal`'s own impl formats by dividing 96 bits by ten per digit into a
/// `String` and parses that back into a `serde_json::Number`, for every amount, which
/// showed in the batch quote profile.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonDecimal(pub Decimal);

impl Serialize for JsonDecimal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = decimal_text(self.0);
        match serde_json::from_str::<&serde_json::value::RawValue>(text.as_str()) {
            Ok(raw) => raw.serialize(s),
            Err(_) => Serialize::serialize(&self.0, s),
        }
    }
}

/// `serialize_with` of [`JsonDecimal`].
pub(crate) fn json_decimal<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    JsonDecimal(*d).serialize(s)
}

/// The `Display` text of `d` (a test compares them), formatted on the stack.
pub(crate) fn decimal_text(d: Decimal) -> StackText {
    let mut out = StackText::default();
    decimal_pieces(d, |piece| out.push(piece.as_bytes()));
    out
}

/// Appends the `Display` text of `d` to `out`: every amount of every quote of a batch is
/// written so, and `core::fmt` cost several times as much.
pub(crate) fn push_decimal(out: &mut String, d: Decimal) {
    decimal_pieces(d, |piece| out.push_str(piece));
}

/// Gives the `Display` text of `d` to `put` in pieces. The digits of the mantissa come
/// from `itoa` (two at a time, from a table); the point goes in by the scale.
fn decimal_pieces(d: Decimal, mut put: impl FnMut(&str)) {
    let scale = d.scale() as usize;
    if scale > 28 {
        // `Decimal` never has such a scale; should one appear, its own text is right.
        put(&d.to_string());
        return;
    }
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(d.mantissa().unsigned_abs());
    if d.is_sign_negative() {
        put("-");
    }
    match digits.len().checked_sub(scale).filter(|&whole| whole > 0) {
        Some(whole) => {
            let (whole, fraction) = digits.split_at(whole);
            put(whole);
            if !fraction.is_empty() {
                put(".");
                put(fraction);
            }
        }
        None => {
            put("0.");
            for _ in digits.len()..scale {
                put("0");
            }
            put(digits);
        }
    }
}

/// Appends `n` in decimal to `out`, as `Display` writes it.
pub(crate) fn push_int(out: &mut String, n: i64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Text formatted into a fixed buffer, big enough for any decimal's text.
pub(crate) struct StackText {
    bytes: [u8; 64],
    len: usize,
}

impl Default for StackText {
    fn default() -> Self {
        StackText { bytes: [0; 64], len: 0 }
    }
}

impl StackText {
    /// Appends `bytes` (ASCII) if they fit; text that does not fit is dropped, which the
    /// callers rule out (a decimal is at most 31 characters).
    fn push(&mut self, bytes: &[u8]) {
        if let Some(to) = self.bytes.get_mut(self.len..self.len + bytes.len()) {
            to.copy_from_slice(bytes);
            self.len += bytes.len();
        }
    }

    /// The text written.
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        whole(d.deserialize_any(DecVisitor)?)
    }
}

/// The whole number `v` holds, or the error that names why it is none.
fn whole<E: de::Error>(Dec(v): Dec) -> Result<Int, E> {
    if !v.fract().is_zero() {
        return Err(E::custom(format!("expected a whole number, found {v}")));
    }
    i64::try_from(v).map(Int).map_err(|_| E::custom(format!("number {v} is out of range")))
}

/// Deserialises an optional whole number where null and the empty string mean absent.
pub(crate) fn opt_int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Int>, D::Error> {
    opt_dec(d)?.map(whole).transpose()
}

impl Serialize for Int {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

/// Deserialises an optional decimal where null and the empty string mean absent.
pub(crate) fn opt_dec<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Dec>, D::Error> {
    struct OptVisitor;
    impl<'de> Visitor<'de> for OptVisitor {
        type Value = Option<Dec>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a decimal number, a numeric string or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            DecVisitor.visit_u64(v).map(Some)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            DecVisitor.visit_i64(v).map(Some)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v.trim().is_empty() {
                Ok(None)
            } else {
                DecVisitor.visit_str(v).map(Some)
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            DecVisitor.visit_map(map).map(Some)
        }
    }
    d.deserialize_any(OptVisitor)
}

/// For "key required, value may be null" decimals: `None` when the key is absent (with
/// `#[serde(default)]`), `Some(None)` for null or an empty string, `Some(Some(v))` else.
pub(crate) fn present_dec<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<Dec>>, D::Error> {
    opt_dec(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_decimals_are_written_as_decimal_writes_them() {
        let values =
            ["0", "-0", "0.00", "12.50", "-3.1", "1000000", "0.000001", "79228162514264337593543950335", "-7.9228162514264337593543950335"];
        for text in values {
            let d = Decimal::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&JsonDecimal(d)).unwrap(), serde_json::to_string(&d).unwrap(), "{text}");
            assert_eq!(serde_json::to_string(&Dec(d)).unwrap(), serde_json::to_string(&d).unwrap(), "{text}");
            assert_eq!(serde_json::to_value(Dec(d)).unwrap(), serde_json::to_value(d).unwrap(), "{text}");
        }
        let d = Decimal::from_str("12.5").unwrap().normalize();
        assert_eq!(serde_json::to_string(&JsonDecimal(d)).unwrap(), "12.5");
    }

    #[test]
    fn plain_decimals_read_as_decimal_reads_them() {
        let texts = ["0", "00", "0.0", "7", "2.5", "2.50", "007.100", "123456789012345678", "12345678901234567.8", "0.00000000000000001"];
        for text in texts {
            let ours = plain_decimal(text).unwrap();
            let theirs = Decimal::from_str(text).unwrap();
            assert_eq!((ours, ours.scale()), (theirs, theirs.scale()), "{text}");
        }
        let others =
            ["", ".", "5.", ".5", "-1", "+1", "1_0", "1e3", "1.2.3", "1234567890123456789", "0.000000000000000001", "1 2", "\u{0661}"];
        for text in others {
            assert_eq!(plain_decimal(text), None, "{text}");
        }
    }

    proptest::proptest! {
        #[test]
        fn parse_decimal_agrees_with_decimal(text in r"[-+]?[0-9_]{0,22}(\.[0-9]{0,22})?") {
            let ours = parse_decimal(&text);
            let t = text.trim();
            let theirs = if t.is_empty() || t.len() > 40 { None } else { Decimal::from_str(t).ok().or_else(|| Decimal::from_scientific(t).ok()) };
            proptest::prop_assert_eq!(ours.map(|d| (d, d.scale())), theirs.map(|d| (d, d.scale())));
        }
    }

    #[test]
    fn push_int_is_display() {
        for n in [0, 7, -7, 10, 1_000_000_007, i64::MAX, i64::MIN] {
            let mut out = String::from("x");
            push_int(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }

    #[test]
    fn decimal_text_is_display() {
        let mut mantissas: Vec<i128> = vec![0, 1, -1, 9, 10, 99, 100, 101, 1250, -1250, i128::from(u64::MAX), i128::from(u64::MAX) + 1];
        mantissas.push((1i128 << 96) - 1);
        mantissas.push(-((1i128 << 96) - 1));
        let mut x: u128 = 7;
        for _ in 0..200 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let bits = i128::try_from(x >> 32).unwrap();
            let digits = u32::try_from(bits % 29).unwrap();
            mantissas.push(bits % 10i128.pow(digits).max(1) * if bits % 2 == 0 { 1 } else { -1 });
        }
        for m in mantissas {
            for scale in [0, 1, 2, 3, 5, 10, 20, 28] {
                let d = Decimal::from_i128_with_scale(m, scale);
                assert_eq!(decimal_text(d).as_str(), d.to_string(), "{m} scale {scale}");
                let mut pushed = String::from("x");
                push_decimal(&mut pushed, d);
                assert_eq!(pushed, format!("x{d}"), "{m} scale {scale}");
                let negative_zero = Decimal::from_i128_with_scale(0, scale) * Decimal::NEGATIVE_ONE;
                assert_eq!(decimal_text(negative_zero).as_str(), negative_zero.to_string(), "-0 scale {scale}");
            }
        }
    }

    #[test]
    fn numbers_and_numeric_strings_are_both_decimals() {
        let v: Vec<Dec> = serde_json::from_str(r#"[12.50, "12.50", 3, "-0.1", "1e2"]"#).unwrap();
        let texts: Vec<String> = v.iter().map(|d| d.0.to_string()).collect();
        assert_eq!(texts, ["12.50", "12.50", "3", "-0.1", "100"]);
    }

    #[test]
    fn precision_survives_without_floats() {
        for exact in ["0.1", "12345678901234567.89", "0.1000000000000000055511151231"] {
            let v: Dec = serde_json::from_str(exact).unwrap();
            assert_eq!(v.0.to_string(), exact);
        }
    }

    #[test]
    fn bad_decimals_are_errors() {
        for bad in [r#""abc""#, "true", "[]", r#""""#, "1e400"] {
            assert!(serde_json::from_str::<Dec>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn integers_refuse_fractions() {
        assert_eq!(serde_json::from_str::<Int>(r#""7""#).unwrap().0, 7);
        assert!(serde_json::from_str::<Int>("7.5").is_err());
        assert!(serde_json::from_str::<Int>("99999999999999999999999").is_err());
    }
}
