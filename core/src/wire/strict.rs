//! A deserializer wrapper that accepts a struct only from a JSON object.
//!
//! serde's derived structs also accept a JSON array, filling the fields in declaration
//! order, so `"mailingAddress": ["Ann Lee", "", ...]` or an integrated quoting option sent
//! as `["Ground", "parcel", ...]` would pass as if they were objects. DECISIONS 1 makes a
//! known field of the wrong type a validation error, so [`Strict`] asks the inner
//! deserializer for a map wherever a struct is wanted, at every depth. Enum contents are
//! passed through unwrapped: no wire type has a struct inside an enum.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Wraps a deserializer so that structs come only from maps.
pub(crate) struct Strict<D>(pub D);

/// Wraps a visitor; `object` replaces its expectation ("struct WireAddress") with words for people.
struct StrictVisitor<V> {
    inner: V,
    object: bool,
}

impl<V> StrictVisitor<V> {
    fn new(inner: V) -> Self {
        StrictVisitor { inner, object: false }
    }
}
struct StrictSeed<S>(S);
struct StrictAccess<A>(A);

macro_rules! forward_deserialize {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(StrictVisitor::new(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<D> {
    type Error = D::Error;

    forward_deserialize!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, StrictVisitor::new(visitor))
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, StrictVisitor::new(visitor))
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, StrictVisitor::new(visitor))
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, name: &'static str, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, StrictVisitor::new(visitor))
    }
    /// The point of the wrapper: a struct is read as a map, so an array is a type error.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(StrictVisitor { inner: visitor, object: true })
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_ignored_any(visitor)
    }
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident: $ty:ty),*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.inner.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for StrictVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.object {
            f.write_str("a JSON object")
        } else {
            self.inner.expecting(f)
        }
    }

    forward_visit!(
        visit_bool: bool, visit_i8: i8, visit_i16: i16, visit_i32: i32, visit_i64: i64, visit_i128: i128,
        visit_u8: u8, visit_u16: u16, visit_u32: u32, visit_u64: u64, visit_u128: u128, visit_f32: f32, visit_f64: f64,
        visit_char: char, visit_str: &str, visit_borrowed_str: &'de str, visit_string: String,
        visit_bytes: &[u8], visit_borrowed_bytes: &'de [u8], visit_byte_buf: Vec<u8>
    );

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(Strict(d))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(Strict(d))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(StrictAccess(seq))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(StrictAccess(map))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for StrictSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Strict(d))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for StrictAccess<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(StrictSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for StrictAccess<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(StrictSeed(seed))
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(StrictSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        inner: Inner,
        list: Vec<Inner>,
        maybe: Option<Inner>,
        amount: crate::wire::Dec,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        a: String,
    }

    fn strict(json: &str) -> Result<Outer, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(json);
        Outer::deserialize(Strict(&mut de))
    }

    #[test]
    fn objects_are_read_as_before() {
        let o = strict(r#"{"inner": {"a": "x"}, "list": [{"a": "y"}], "maybe": {"a": "z"}, "amount": 1.50}"#).unwrap();
        assert_eq!(o.list[0].a, "y");
        assert_eq!(o.maybe.map(|m| m.a).as_deref(), Some("z"));
        assert_eq!(o.amount.0.to_string(), "1.50");
    }

    #[test]
    fn arrays_in_place_of_structs_are_refused_at_every_depth() {
        let e = strict(r#"["x", [], null, 1]"#).unwrap_err();
        assert!(e.to_string().starts_with("invalid type: sequence, expected a JSON object"), "{e}");
        assert!(strict(r#"{"inner": ["x"], "list": [], "maybe": null, "amount": 1}"#).is_err());
        assert!(strict(r#"{"inner": {"a": "x"}, "list": [["y"]], "maybe": null, "amount": 1}"#).is_err());
        assert!(strict(r#"{"inner": {"a": "x"}, "list": [], "maybe": ["z"], "amount": 1}"#).is_err());
    }
}
