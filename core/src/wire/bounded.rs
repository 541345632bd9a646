//! Arrays of a request, read only up to their limit: the entry after the last allowed
//! one fails the parse at once, so that a body cannot make the service build millions
//! of values before a limit is checked (a batch quote of 2.58 million pieces once took
//! 441 MB). The operations check the same limits again for typed callers, whose values
//! were never JSON.
//!
//! Used as `#[serde(deserialize_with = "bounded::at_most::<_, _, N>")]`. The error is
//! `LIMIT_EXCEEDED` on the array's path ([`limit_message`] lets `from_serde` tell it from
//! a type error).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};

use crate::error::{Error, ErrorCategory, FieldError};

/// What the message of an array past its limit starts with, until `from_serde` takes it off.
const LIMIT_MARK: &str = "\u{1}limit\u{1}";

/// The message of an array past its limit, without its mark; `None` for other errors.
pub(crate) fn limit_message(message: &str) -> Option<&str> {
    message.strip_prefix(LIMIT_MARK)
}

/// The same limit for a value that was not read from JSON (the typed API): `LIMIT_EXCEEDED`
/// on `field` when `count` passes `max`, to be checked before the work it limits.
///
/// # Errors
/// As said.
pub(crate) fn check(field: &str, count: usize, max: usize) -> Result<(), Error> {
    if count > max {
        return Err(Error::fields(
            ErrorCategory::LimitExceeded,
            vec![FieldError { field: field.to_string(), message: format!("must hold at most {max} entries, found {count}") }],
        ));
    }
    Ok(())
}

struct AtMost<T, const N: usize>(PhantomData<T>);

impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for AtMost<T, N> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array of at most {N} entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(N));
        while let Some(entry) = seq.next_element()? {
            if out.len() == N {
                return Err(de::Error::custom(format!("{LIMIT_MARK}must hold at most {N} entries")));
            }
            out.push(entry);
        }
        Ok(out)
    }
}

/// A JSON array of at most `N` entries.
pub(crate) fn at_most<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(d: D) -> Result<Vec<T>, D::Error> {
    d.deserialize_seq(AtMost::<T, N>(PhantomData))
}

struct Optional<T, const N: usize>(PhantomData<T>);

impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for Optional<T, N> {
    type Value = Option<Vec<T>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "null or an array of at most {N} entries")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        at_most::<D, T, N>(d).map(Some)
    }
}

/// Null, or a JSON array of at most `N` entries (with `#[serde(default)]`: absent too).
pub(crate) fn opt_at_most<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(d: D) -> Result<Option<Vec<T>>, D::Error> {
    d.deserialize_option(Optional::<T, N>(PhantomData))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use crate::error::ErrorCategory;
    use crate::wire::parse_body;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Body {
        #[serde(deserialize_with = "super::at_most::<_, _, 3>")]
        ids: Vec<u32>,
        #[serde(default, deserialize_with = "super::opt_at_most::<_, _, 2>")]
        tags: Option<Vec<String>>,
    }

    #[test]
    fn an_array_within_its_limit_is_read() {
        let body: Body = parse_body(r#"{"ids": [1, 2, 3], "tags": ["a", "b"]}"#).unwrap();
        assert_eq!((body.ids, body.tags), (vec![1, 2, 3], Some(vec!["a".to_string(), "b".to_string()])));
        let body: Body = parse_body(r#"{"ids": [], "tags": null}"#).unwrap();
        assert_eq!(body.tags, None);
        let body: Body = parse_body(r#"{"ids": []}"#).unwrap();
        assert_eq!(body.tags, None);
    }

    #[test]
    fn an_array_past_its_limit_is_limit_exceeded_on_its_path() {
        let e = parse_body::<Body>(r#"{"ids": [1, 2, 3, 4]}"#).unwrap_err();
        assert_eq!(e.category(), ErrorCategory::LimitExceeded);
        assert_eq!(e.details()[0].field, "ids");
        assert_eq!(e.details()[0].message, "must hold at most 3 entries");
        let e = parse_body::<Body>(r#"{"ids": [], "tags": ["a", "b", "c"]}"#).unwrap_err();
        assert_eq!((e.category(), e.details()[0].field.as_str()), (ErrorCategory::LimitExceeded, "tags"));
    }

    /// The parse stops at the entry after the limit: what follows it is never read, so
    /// even a body that is not JSON further on is refused for its limit.
    #[test]
    fn reading_stops_at_the_entry_past_the_limit() {
        let e = parse_body::<Body>(r#"{"ids": [1, 2, 3, 4, this is never read"#).unwrap_err();
        assert_eq!(e.category(), ErrorCategory::LimitExceeded);
    }

    #[test]
    fn a_wrong_type_is_still_a_type_error() {
        let e = parse_body::<Body>(r#"{"ids": 5}"#).unwrap_err();
        assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    }
}
