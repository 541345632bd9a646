//! Reads the shipments of a batch request in one pass.
//!
//! A batch quote parses each shipment on its own, so that one bad shipment fails alone,
//! and keeps each shipment's JSON as sent. serde_json's `RawValue` found the shipments
//! by reading the whole body once, and then each shipment was read again: about a sixth
//! of a one-service batch. [`batch_shipments`] reads each shipment once, straight from
//! the body, and takes its text from where the reader stopped.
//!
//! It reads only the common shape and gives up on anything else, including a shipment
//! that does not parse. Its caller then parses the body the long way, which knows every
//! case and words every error, so the answers stay exactly those of the long way.
//!
//! Each shipment is read by serde, or first by a reader by hand for the shipment type's
//! own common shape where the type has one ([`ReadFast`]; the quote shipment has).

use serde::de::{Deserialize, DeserializeOwned, Deserializer};

use super::strict::Strict;

/// Each shipment of a body that is exactly `{"shipments": [{...}, ...]}` (any whitespace
/// between tokens), parsed as a `T` the way [`super::parse_body`] parses one, with its
/// JSON text from its `{` to its `}`.
///
/// `None` for any other shape (another key, an escape in the key, an element that is not
/// an object, text after the object), when any shipment fails to parse, and as soon as
/// there are more than `max` shipments: the caller must then parse the body in full,
/// which finds the same shipments or the error.
pub fn batch_shipments<T: ReadFast>(body: &str, max: usize) -> Option<Vec<(T, &str)>> {
    // Room for the shipments from the first, without growing (and copying shipments of
    // over a kilobyte) in steps.
    let mut found = Vec::with_capacity(expected_shipments(body, max));
    each_batch_shipment(body, max, |shipment, json| found.push((shipment, json))).then_some(found)
}

/// About how many shipments (at most `max`) a batch body holds, to make room for them:
/// a real shipment is hundreds of bytes of JSON.
pub fn expected_shipments(body: &str, max: usize) -> usize {
    (body.len() / 256).min(max)
}

/// [`batch_shipments`] handing each shipment to `each` as soon as it is read, in order,
/// rather than collecting them. `false` where [`batch_shipments`] gives `None`: what
/// `each` was given must then be thrown away.
pub fn each_batch_shipment<'b, T: ReadFast>(body: &'b str, max: usize, mut each: impl FnMut(T, &'b str)) -> bool {
    read_each(body, max, &mut each).is_some()
}

fn read_each<'b, T: ReadFast>(body: &'b str, max: usize, each: &mut impl FnMut(T, &'b str)) -> Option<()> {
    let b = body.as_bytes();
    let mut at = skip_ws(b, 0);
    at = expect(b, at, b"{")?;
    at = expect(b, at, b"\"shipments\"")?;
    at = expect(b, at, b":")?;
    at = expect(b, at, b"[")?;
    let mut count = 0;
    if b.get(at) == Some(&b']') {
        at = skip_ws(b, at + 1);
    } else {
        loop {
            if b.get(at) != Some(&b'{') || count == max {
                return None;
            }
            let rest = body.get(at..)?;
            let (shipment, len) = match T::read_fast(rest) {
                Some(read) => read,
                None => {
                    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<StrictValue<T>>();
                    let shipment = stream.next()?.ok()?.0;
                    (shipment, stream.byte_offset())
                }
            };
            each(shipment, rest.get(..len)?);
            count += 1;
            at = skip_ws(b, at + len);
            match b.get(at) {
                Some(b',') => at = skip_ws(b, at + 1),
                Some(b']') => {
                    at = skip_ws(b, at + 1);
                    break;
                }
                _ => return None,
            }
        }
    }
    at = expect(b, at, b"}")?;
    (at == b.len()).then_some(())
}

/// A shipment type that [`batch_shipments`] reads: through serde, after a reader by
/// hand for its common shape where it has one.
pub trait ReadFast: DeserializeOwned {
    /// The value at the start of `text` (a JSON object) and the length of its text, when
    /// a reader by hand is sure to give what serde gives; `None` leaves it to serde.
    fn read_fast(text: &str) -> Option<(Self, usize)> {
        let _ = text;
        None
    }
}

impl ReadFast for super::QuoteShipment {
    fn read_fast(text: &str) -> Option<(Self, usize)> {
        super::fast::quote_shipment(text)
    }
}

/// A `T` read through [`Strict`], as [`super::parse_body`] reads one.
struct StrictValue<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for StrictValue<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(Strict(d)).map(StrictValue)
    }
}

/// Past `token` and the whitespace after it, if `token` is at `at`.
fn expect(b: &[u8], at: usize, token: &[u8]) -> Option<usize> {
    b.get(at..)?.starts_with(token).then(|| skip_ws(b, at + token.len()))
}

fn skip_ws(b: &[u8], mut at: usize) -> usize {
    while matches!(b.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;
    use serde_json::Value;

    impl ReadFast for Value {}

    /// The long way: every shipment as `RawValue` splits it, then parsed on its own.
    fn long_way(body: &str) -> Option<Vec<(Value, String)>> {
        #[derive(serde::Deserialize)]
        struct Request<'a> {
            #[serde(borrow)]
            shipments: Vec<&'a RawValue>,
        }
        let r: Request = super::super::parse_borrowed(body).ok()?;
        r.shipments.iter().map(|s| Some((super::super::parse_body::<Value>(s.get()).ok()?, s.get().to_string()))).collect()
    }

    fn one_pass(body: &str) -> Option<Vec<(Value, String)>> {
        batch_shipments::<Value>(body, 3).map(|v| v.into_iter().map(|(value, text)| (value, text.to_string())).collect())
    }

    #[test]
    fn finds_what_the_long_way_finds() {
        let bodies = [
            r#"{"shipments":[]}"#,
            r#" { "shipments" : [ ] } "#,
            r#"{"shipments":[{"a":1},{"b":"}{\"]"},{"c":[{"d":{}}]}]}"#,
            "{\n  \"shipments\": [\n    {\"x\": \"\\\\\"} ,\n    {\"y\": [1, 2.50]}\n  ]\n}\n",
            r#"{"shipments":[{"name":"Zoë \u00e9 ☃"}]}"#,
        ];
        for body in bodies {
            let ours = one_pass(body);
            assert!(ours.is_some(), "{body}");
            assert_eq!(ours, long_way(body), "{body}");
        }
    }

    #[test]
    fn other_shapes_are_left_to_the_long_way() {
        let bodies = [
            "",
            "[]",
            r#"{"shipments":{}}"#,
            r#"{"shipments":[1]}"#,
            r#"{"shipments":[{"a":1}]"#,
            r#"{"shipments":[{"a":1}]}x"#,
            r#"{"shipments":[{"a":1},]}"#,
            r#"{"shipments":[{"a":1} {"b":2}]}"#,
            r#"{"shipments":[{"a":"}]}"#,
            r#"{"shipments":[{"a":{}]}"#,
            r#"{"shipments":[{"a":1}1]}"#,
            r#"{"other":1,"shipments":[]}"#,
            r#"{"shipments":[],"other":1}"#,
            r#"{"\u0073hipments":[]}"#,
            r#"{"shipments":[{"a":"\"#,
        ];
        for body in bodies {
            assert_eq!(one_pass(body), None, "{body}");
        }
        // more than the most asked for
        assert_eq!(one_pass(r#"{"shipments":[{},{},{},{}]}"#), None);
        assert_eq!(one_pass(r#"{"shipments":[{},{},{}]}"#).map(|v| v.len()), Some(3));
    }

    #[test]
    fn a_shipment_that_does_not_parse_gives_up() {
        #[derive(Debug, serde::Deserialize)]
        struct Named {
            #[allow(dead_code)]
            name: String,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Outer {
            #[allow(dead_code)]
            inner: Named,
        }
        impl ReadFast for Named {}
        impl ReadFast for Outer {}
        assert!(batch_shipments::<Named>(r#"{"shipments":[{"name":"a"}]}"#, 500).is_some());
        assert!(batch_shipments::<Named>(r#"{"shipments":[{"name":"a"},{"name":1}]}"#, 500).is_none());
        // strict, as parse_body is: a struct only from an object, at every depth
        assert!(batch_shipments::<Outer>(r#"{"shipments":[{"inner":{"name":"a"}}]}"#, 500).is_some());
        assert!(batch_shipments::<Outer>(r#"{"shipments":[{"inner":["a"]}]}"#, 500).is_none());
    }
}
