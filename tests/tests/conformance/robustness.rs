//! No input may crash the service (DECISIONS 2): valid requests with one part replaced
//! by an arbitrary JSON value, and arbitrary bodies, never answer 500 and always answer
//! the error body of DECISIONS 2 when they fail.

use consign_conformance::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

/// Arbitrary JSON, a few levels deep, with the awkward numbers and strings.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!(-0.0)),
        Just(json!(1e300)),
        Just(serde_json::from_str::<Value>("123456789012345678901234567890.123456789").unwrap()),
        "[a-zA-Z0-9 .,-]{0,12}".prop_map(Value::from),
        Just(json!("")),
        Just(json!("\u{0}\u{202e}é🚚")),
        Just(json!("-1")),
        Just(json!("1e9999")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-zA-Z]{1,8}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every JSON pointer inside `v` (objects' members and arrays' elements).
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let p = format!("{at}/{k}");
                out.push(p.clone());
                pointers(child, p, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(child, p, out);
            }
        }
        _ => {}
    }
}

#[track_caller]
fn assert_sane(a: &Answer, what: &str) {
    assert!(a.status != 500, "{what} answered 500: {}", a.body);
    if a.status >= 400 {
        assert!(a.body["errorCategory"].as_str().is_some_and(|c| !c.is_empty()), "{what}: {}", a.body);
        assert!(a.body["error"].as_str().is_some_and(|e| !e.is_empty()), "{what}: {}", a.body);
    }
}

fn booking() -> Value {
    let mut b = quote_shipment();
    b["carrierCode"] = json!("postal");
    b["serviceCode"] = json!("postal_priority_mail");
    b["packageTypeCode"] = json!("postal_custom");
    b["approvePrepayRecharge"] = json!(true);
    b
}

#[test]
fn no_mutated_request_answers_500() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.call("POST", &Harness::path(&id, "/paymentMethod"), &payment_body("tok_1")).expect(200);
    let endpoints: Vec<(&str, String, Value)> = vec![
        ("POST", "/restapi/v1/customers".into(), customer_body("new@example.com")),
        ("POST", Harness::path(&id, "/paymentMethod"), payment_body("tok_2")),
        ("POST", Harness::path(&id, "/batch-quote"), json!({"shipments": [quote_shipment(), intl_shipment()]})),
        ("POST", Harness::path(&id, "/quote"), quote_shipment()),
        ("POST", Harness::path(&id, "/shipments"), booking()),
        (
            "PUT",
            Harness::path(&id, "/integratedQuotingOptions"),
            json!({"integratedQuotingOptions": [{"name": "G", "carrierCode": "parcel", "serviceCode": "parcel_ground", "packageTypeCode": "parcel_custom"}]}),
        ),
        (
            "PUT",
            Harness::path(&id, "/provider-accounts/parcel"),
            json!({"accountFields": {"accountNumber": "A1", "userId": "u", "password": "p", "accessLicenceNumber": "L"}}),
        ),
        ("POST", Harness::path(&id, "/integrations"), json!({"name": "shop"})),
        ("POST", Harness::path(&id, "/batch"), json!({"name": "b"})),
    ];
    let (ok, refused) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    for (method, path, valid) in endpoints {
        let mut runner = TestRunner::new(Config { cases: 48, failure_persistence: None, ..Config::default() });
        let mut places = Vec::new();
        pointers(&valid, String::new(), &mut places);
        let strategy = (0..places.len().max(1), any_json(), any::<bool>());
        runner
            .run(&strategy, |(which, value, remove)| {
                let mut body = valid.clone();
                if let Some(place) = places.get(which) {
                    body = if remove { without(body, place) } else { with(body, place, value) };
                }
                if body["email"] == "new@example.com" {
                    body["email"] = json!(format!("new{}@example.com", ok.get() + refused.get()));
                }
                let a = h.call(method, &path, &body);
                assert_sane(&a, &format!("{method} {path} with {body}"));
                let counter = if a.status < 400 { &ok } else { &refused };
                counter.set(counter.get() + 1);
                Ok(())
            })
            .unwrap();
    }
    // The mutations reach both the success and the error paths of the operations.
    assert!(ok.get() > 20 && refused.get() > 20, "{} succeeded, {} refused", ok.get(), refused.get());
}

#[test]
fn no_arbitrary_body_answers_500() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let paths = [
        ("POST", "/restapi/v1/customers".to_string()),
        ("POST", Harness::path(&id, "/batch-quote")),
        ("POST", Harness::path(&id, "/shipments")),
        ("POST", Harness::path(&id, "/shipments/1000000001")),
        ("POST", Harness::path(&id, "/batch-book")),
        ("POST", "/restapi/v1/connect-customer".to_string()),
    ];
    for (method, path) in paths {
        let mut runner = TestRunner::new(Config { cases: 64, failure_persistence: None, ..Config::default() });
        runner
            .run(&(any_json(), ".{0,40}"), |(value, text)| {
                assert_sane(&h.call(method, &path, &value), &format!("{method} {path} with {value}"));
                assert_sane(&h.raw(method, &path, &text), &format!("{method} {path} with {text:?}"));
                Ok(())
            })
            .unwrap();
    }
}

#[test]
fn arbitrary_paths_never_answer_500() {
    let h = Harness::new();
    let mut runner = TestRunner::new(Config { cases: 256, failure_persistence: None, ..Config::default() });
    runner
        .run(&("(GET|POST|PUT|DELETE|PATCH|get)", "(/[a-zA-Z0-9%?=&.-]{0,12}){0,7}"), |(method, path)| {
            assert_sane(&h.raw(&method, &path, "{}"), &format!("{method} {path}"));
            Ok(())
        })
        .unwrap();
}
