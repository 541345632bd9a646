//! 4.9 Create customer.

use consign_conformance::*;
use serde_json::json;

#[test]
fn a_valid_customer_is_created_with_201_and_an_id() {
    let h = Harness::new();
    let a = h.call("POST", "/restapi/v1/customers", &customer_body("ann@example.com"));
    let body = a.expect(201);
    assert!(body["customerId"].as_str().is_some_and(|s| !s.is_empty()));
}

#[test]
fn the_ledger_opens_with_one_recharge_of_the_recharge_amount() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let prepay = h.call("GET", &Harness::path(&id, "/prepay"), &json!(null));
    let body = prepay.expect(200);
    assert_eq!(body["balance"], "200.00");
    assert_eq!(body["entries"].as_array().map(Vec::len), Some(1));
    assert_eq!(body["entries"][0]["kind"], "recharge");
    assert_eq!(body["entries"][0]["amount"], "200.00");
}

#[test]
fn a_registered_email_is_a_conflict() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    h.call("POST", "/restapi/v1/customers", &customer_body("ANN@example.com")).assert_error(409, "CONFLICT", Some("email"));
}
