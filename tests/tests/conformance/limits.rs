//! Limits before work: a body over `consign::limits::MAX_BODY` bytes is refused before it is
//! parsed, and every array of a request is read only up to its limit
//! (`LIMIT_EXCEEDED` on its path), so that no body makes the service build more than
//! its limits allow. The largest legitimate request fits the body limit.

use consign_conformance::*;
use serde_json::{json, Value};

fn setup() -> (Harness, String) {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    (h, id)
}

#[test]
fn a_body_over_the_limit_is_refused_before_it_is_read() {
    let (h, id) = setup();
    // Not even JSON: the size is refused before the parser sees it.
    let body = " ".repeat(consign::limits::MAX_BODY + 1);
    let a = h.raw("POST", &Harness::path(&id, "/batch-quote"), &body);
    a.assert_error_without_details(400, "LIMIT_EXCEEDED");
    assert!(a.body["error"].as_str().unwrap().contains(&consign::limits::MAX_BODY.to_string()), "{}", a.body);
}

#[test]
fn the_largest_legitimate_batch_fits_the_body_limit_and_is_quoted() {
    let (h, id) = setup();
    let body = largest_legitimate_batch(&days_ahead(2));
    assert!(body.len() <= consign::limits::MAX_BODY, "{} bytes", body.len());
    assert!(body.len() > consign::limits::MAX_BODY * 9 / 10, "the limit is not far above what is needed: {} bytes", body.len());
    let a = h.raw("POST", &Harness::path(&id, "/batch-quote"), &body);
    let results = a.expect(200)["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), 500);
    assert!(results.iter().all(|r| r["status"] == "success"), "{}", results[0]);
}

/// `count` copies of `entry`, then text that is not JSON: a parse that read past the
/// limit would fail on it as a syntax error, not as the limit.
fn past_the_limit(prefix: &str, entry: &str, count: usize) -> String {
    let mut body = prefix.to_string();
    body.push_str(&vec![entry; count].join(","));
    body.push_str(", this is never read");
    body
}

#[test]
fn every_array_is_read_only_up_to_its_limit() {
    let (h, id) = setup();
    let at = |tail: &str| Harness::path(&id, tail);
    let cases: Vec<(&str, String, String, &str)> = vec![
        ("POST", at("/batch-quote"), past_the_limit(r#"{"shipments": ["#, "{}", 501), "shipments"),
        ("POST", at("/shipments"), past_the_limit(r#"{"pieces": ["#, r#"{"weight": "1"}"#, 100), "pieces"),
        ("POST", at("/batch/B1/quotes"), past_the_limit(r#"{"quoteIds": ["#, "1", 501), "quoteIds"),
        ("POST", at("/pickups"), past_the_limit(r#"{"bookNumbers": ["#, r#""1""#, 501), "bookNumbers"),
        ("POST", at("/manifest"), past_the_limit(r#"{"bookNumbers": ["#, r#""1""#, 501), "bookNumbers"),
        (
            "PUT",
            at("/integratedQuotingOptions"),
            past_the_limit(
                r#"{"integratedQuotingOptions": ["#,
                &quoting_option("a", "parcel", "parcel_ground", "parcel_custom").to_string(),
                101,
            ),
            "integratedQuotingOptions",
        ),
        (
            "POST",
            at("/shipments"),
            past_the_limit(r#"{"fulfillment": {"items": ["#, r#"{"sku": "S1", "quantity": 1}"#, 1001),
            "fulfillment.items",
        ),
        ("POST", at("/shipments"), past_the_limit(r#"{"commercialInvoice": {"items": ["#, "{}", 101), "commercialInvoice.items"),
    ];
    for (method, path, body, field) in cases {
        let a = h.raw(method, &path, &body);
        a.assert_error(400, "LIMIT_EXCEEDED", Some(field));
    }
}

#[test]
fn the_arrays_of_a_batch_shipment_are_limited_per_shipment() {
    let (h, id) = setup();
    let intl = with(intl_shipment(), "/commercialInvoice", invoice("1.2"));
    let line = json!({"sku": "S1", "productName": "Mug", "quantity": 1});
    let cases: Vec<(Value, &str)> = vec![
        (with(quote_shipment(), "/pieces", json!(vec![quote_shipment()["pieces"][0].clone(); 100])), "shipments[0].pieces"),
        (with(quote_shipment(), "/pieces/0/lineItems", json!(vec![line; 101])), "shipments[0].pieces[0].lineItems"),
        (
            with(intl.clone(), "/commercialInvoice/items", json!(vec![intl["commercialInvoice"]["items"][0].clone(); 101])),
            "shipments[0].commercialInvoice.items",
        ),
    ];
    for (shipment, field) in cases {
        let r = h.quote_one(&id, shipment);
        assert_shipment_error(&r, "LIMIT_EXCEEDED", field);
    }
}

#[test]
fn typed_callers_meet_the_same_limits() {
    let (h, id) = setup();
    let mut shipment: consign::wire::QuoteShipment = serde_json::from_value(quote_shipment()).unwrap();
    let piece = shipment.pieces[0].clone();
    shipment.pieces = vec![piece; 100];
    let answer = h.shipping.batch_quote(&id, &[shipment]).unwrap();
    let r = serde_json::to_value(&answer.results[0]).unwrap();
    assert_shipment_error(&r, "LIMIT_EXCEEDED", "shipments[0].pieces");
}
