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

fn parse_decimal(s: &str) -> Option<Decimal> {
    let s = s.trim();
    if s.is_empty() || s.len() > 40 {
        return None;
    }
    Decimal::from_str(s).ok().or_else(|| Decimal::from_scientific(s).ok())
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

impl Serialize for Dec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Serialize::serialize(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Dec(v) = d.deserialize_any(DecVisitor)?;
        if !v.fract().is_zero() {
            return Err(de::Error::custom(format!("expected a whole number, found {v}")));
        }
        i64::try_from(v).map(Int).map_err(|_| de::Error::custom(format!("number {v} is out of range")))
    }
}

impl Serialize for Int {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

/// Deserialises an optional decimal where null and the empty string mean absent.
#[allow(dead_code, reason = "used by the operations of later issues (booking, orders, prepay)")]
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
