//! The router: routes, methods, the error body of DECISIONS 2, hostile bodies, integrations.

use consign_conformance::*;
use serde_json::{json, Value};

/// Customer-scoped operations of accounts, catalog and integrations (services, quoting
/// options, provider accounts, payment method, integrations, prepay), each with a valid body.
fn customer_scoped(id: &str) -> Vec<(&'static str, String, Value)> {
    vec![
        ("GET", Harness::path(id, "/services"), Value::Null),
        ("GET", Harness::path(id, "/integratedQuotingOptions"), Value::Null),
        (
            "PUT",
            Harness::path(id, "/integratedQuotingOptions"),
            json!({"integratedQuotingOptions": [quoting_option("Ground", "parcel", "parcel_ground", "parcel_custom")]}),
        ),
        ("GET", Harness::path(id, "/provider-accounts"), Value::Null),
        ("PUT", Harness::path(id, "/provider-accounts/parcel"), parcel_account("1X2Y3Z")),
        ("DELETE", Harness::path(id, "/provider-accounts/PA0000001"), Value::Null),
        ("POST", Harness::path(id, "/paymentMethod"), payment_body("tok_1NqLx2")),
        ("GET", Harness::path(id, "/regionalShipmentTypes/19106"), Value::Null),
        ("GET", format!("/customers/{id}/regionalShipmentTypes/19106"), Value::Null),
        ("POST", Harness::path(id, "/integrations"), json!({"name": "Web shop"})),
        ("GET", Harness::path(id, "/prepay"), Value::Null),
    ]
}

#[test]
fn an_unknown_path_is_not_found() {
    let h = Harness::new();
    for path in ["/", "/restapi/v1", "/restapi/v1/nothing", "/restapi/v2/customers", "/customers", "/restapi/v1/customers/C1/nothing"] {
        h.get(path).assert_error_without_details(404, "NOT_FOUND");
    }
}

#[test]
fn a_prefixless_path_other_than_regional_types_is_not_found() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.get(&format!("/customers/{id}/services")).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn a_known_path_with_the_wrong_method_is_not_allowed() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let cases = [
        ("GET", "/restapi/v1/customers".to_string()),
        ("DELETE", "/restapi/v1/customers".to_string()),
        ("GET", "/restapi/v1/connect-customer".to_string()),
        ("POST", Harness::path(&id, "/services")),
        ("DELETE", Harness::path(&id, "/integratedQuotingOptions")),
        ("POST", Harness::path(&id, "/provider-accounts")),
        ("GET", Harness::path(&id, "/provider-accounts/parcel")),
        ("GET", Harness::path(&id, "/paymentMethod")),
        ("POST", Harness::path(&id, "/regionalShipmentTypes/19106")),
        ("PATCH", Harness::path(&id, "/prepay")),
        ("GET", Harness::path(&id, "/integrations")),
    ];
    for (method, path) in cases {
        let a = h.raw(method, &path, "{}");
        assert_eq!(a.status, 405, "{method} {path}: {}", a.body);
        a.assert_error_without_details(405, "METHOD_NOT_ALLOWED");
    }
}

#[test]
fn the_405_message_names_the_allowed_methods() {
    let h = Harness::new();
    let a = h.get("/restapi/v1/customers");
    a.assert_error(405, "METHOD_NOT_ALLOWED", None);
    assert_eq!(a.body["error"], "GET is not allowed on /restapi/v1/customers; use POST.");
}

#[test]
fn every_customer_scoped_path_is_not_found_for_an_unknown_customer() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    for (method, path, body) in customer_scoped("C9999999") {
        let a = h.call(method, &path, &body);
        assert_eq!(a.status, 404, "{method} {path}: {}", a.body);
        a.assert_error_without_details(404, "NOT_FOUND");
    }
}

#[test]
fn the_404_message_names_the_unknown_customer() {
    let h = Harness::new();
    assert_eq!(h.get(&Harness::path("C9999999", "/services")).body["error"], r#"No customer "C9999999" was found."#);
}

#[test]
fn every_customer_scoped_path_answers_a_known_customer() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    // The DELETE names an account of its own; provider_accounts.rs covers it.
    for (method, path, body) in customer_scoped(&id).into_iter().filter(|(m, ..)| *m != "DELETE") {
        let a = h.call(method, &path, &body);
        assert!(a.status == 200 || a.status == 201, "{method} {path}: {} {}", a.status, a.body);
    }
}

#[test]
fn a_query_string_does_not_change_the_route() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let plain = h.get(&Harness::path(&id, "/services"));
    let queried = h.get(&Harness::path(&id, "/services?verbose=1"));
    assert_eq!(plain.expect(200), queried.expect(200));
}

#[test]
fn a_body_sent_with_get_is_ignored() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let plain = h.get(&Harness::path(&id, "/services"));
    let with_body = h.raw("GET", &Harness::path(&id, "/services"), "not json at all");
    assert_eq!(plain.expect(200), with_body.expect(200));
}

#[test]
fn methods_are_matched_without_regard_to_case() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.raw("get", &Harness::path(&id, "/services"), "").expect(200);
}

#[test]
fn error_bodies_have_an_error_sentence_and_a_category() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let answers = [
        h.get("/restapi/v1/nothing"),
        h.get("/restapi/v1/customers"),
        h.raw("POST", "/restapi/v1/customers", "{"),
        h.call("POST", "/restapi/v1/customers", &customer_body("ann@example.com")),
        h.call("POST", "/restapi/v1/connect-customer", &json!({"username": "ann@example.com", "password": "nope-nope"})),
        h.call("POST", &Harness::path(&id, "/integrations"), &json!({"name": ""})),
    ];
    for a in answers {
        assert!(a.status >= 400, "{}", a.body);
        assert!(a.body["error"].as_str().is_some_and(|e| !e.trim().is_empty()), "{}", a.body);
        assert!(a.body["errorCategory"].as_str().is_some_and(|c| !c.is_empty()), "{}", a.body);
    }
}

#[test]
fn details_name_each_field_with_a_message() {
    let h = Harness::new();
    let a = h.call("POST", "/restapi/v1/customers", &with(customer_body("nope"), "/franchiseId", json!("TOOLONG")));
    let details = a.body["details"].as_array().cloned().unwrap_or_default();
    assert_eq!(a.fields(), ["email", "franchiseId"], "{}", a.body);
    for d in details {
        assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()), "{d}");
    }
}

#[test]
fn a_huge_string_field_is_refused_without_a_crash() {
    let h = Harness::new();
    let body = with(customer_body("ann@example.com"), "/mailingAddress/name", json!("x".repeat(5 * 1024 * 1024)));
    h.call("POST", "/restapi/v1/customers", &body).assert_error(400, "INVALID_REQUEST", Some("mailingAddress.name"));
}

#[test]
fn a_huge_password_is_refused_without_a_crash() {
    let h = Harness::new();
    let body = with(customer_body("ann@example.com"), "/password", json!("x".repeat(5 * 1024 * 1024)));
    h.call("POST", "/restapi/v1/customers", &body).assert_error(400, "INVALID_REQUEST", Some("password"));
}

#[test]
fn a_huge_unknown_field_is_ignored() {
    let h = Harness::new();
    let body = with(customer_body("ann@example.com"), "/notes", json!("x".repeat(5 * 1024 * 1024)));
    h.call("POST", "/restapi/v1/customers", &body).expect(201);
}

#[test]
fn deeply_nested_json_in_an_unknown_field_does_not_crash() {
    let h = Harness::new();
    let valid = customer_body("ann@example.com").to_string();
    let nested = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let body = format!("{{\"deep\": {nested}, {}", &valid[1..]);
    let a = h.raw("POST", "/restapi/v1/customers", &body);
    assert!(a.status == 400 || a.status == 201, "{} {}", a.status, a.body);
    if a.status == 400 {
        a.assert_error(400, "INVALID_REQUEST", None);
    }
}

#[test]
fn deeply_nested_json_in_a_known_field_is_refused() {
    let h = Harness::new();
    let valid = customer_body("ann@example.com").to_string();
    let nested = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let body = format!("{{\"prepaySettings\": {nested}, {}", &valid[1..]);
    h.raw("POST", "/restapi/v1/customers", &body).assert_error(400, "INVALID_REQUEST", None);
}

// ---- integrations ---------------------------------------------------------------------

#[test]
fn an_integration_is_created_with_201_and_an_id() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let a = h.call("POST", &Harness::path(&id, "/integrations"), &json!({"name": "Web shop"}));
    let body = a.expect(201);
    assert!(body["integrationId"].as_str().is_some_and(|s| !s.is_empty()), "{body}");
}

#[test]
fn two_integrations_get_different_ids() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let create =
        |name: &str| h.call("POST", &Harness::path(&id, "/integrations"), &json!({ "name": name })).expect(201)["integrationId"].clone();
    assert_ne!(create("Web shop"), create("Market place"));
}

#[test]
fn an_integration_with_an_empty_name_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.call("POST", &Harness::path(&id, "/integrations"), &json!({"name": "   "})).assert_error(400, "INVALID_REQUEST", Some("name"));
}

#[test]
fn an_integration_without_a_name_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.call("POST", &Harness::path(&id, "/integrations"), &json!({})).assert_error(400, "INVALID_REQUEST", Some("name"));
}

#[test]
fn an_integration_name_of_the_wrong_type_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.call("POST", &Harness::path(&id, "/integrations"), &json!({"name": ["Web shop"]})).assert_error(400, "INVALID_REQUEST", Some("name"));
}

#[test]
fn an_integration_name_over_one_hundred_characters_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let name = "n".repeat(101);
    h.call("POST", &Harness::path(&id, "/integrations"), &json!({ "name": name })).assert_error(400, "INVALID_REQUEST", Some("name"));
}

#[test]
fn an_integration_of_an_unknown_customer_is_not_found() {
    let h = Harness::new();
    h.call("POST", &Harness::path("C9999999", "/integrations"), &json!({"name": "Web shop"}))
        .assert_error_without_details(404, "NOT_FOUND");
}

// ---- path and query decoding -----------------------------------------------------------

#[test]
fn the_405_message_names_every_method_of_the_path() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let cases = [
        ("POST", Harness::path(&id, "/integrations/I1/orders/SO-1"), "GET, PUT or DELETE"),
        ("DELETE", Harness::path(&id, "/pickups/P0000001"), "GET or POST"),
        ("DELETE", Harness::path(&id, "/shipments"), "GET or POST"),
        ("POST", Harness::path(&id, "/provider-accounts/parcel"), "PUT or DELETE"),
        ("POST", Harness::path(&id, "/batch/B1"), "GET or DELETE"),
        ("DELETE", Harness::path(&id, "/integratedQuotingOptions"), "GET or PUT"),
        ("PUT", Harness::path(&id, "/shipments/1000000001/tracking-information"), "GET"),
    ];
    for (method, path, allowed) in cases {
        let a = h.raw(method, &path, "{}");
        a.assert_error_without_details(405, "METHOD_NOT_ALLOWED");
        assert_eq!(a.body["error"], format!("{method} is not allowed on {path}; use {allowed}."));
    }
}

#[test]
fn the_customer_id_is_percent_decoded_like_every_parameter() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let escaped: String = id.bytes().map(|b| format!("%{b:02X}")).collect();
    assert_eq!(h.get(&Harness::path(&escaped, "/services")).expect(200), h.get(&Harness::path(&id, "/services")).expect(200));
}

#[test]
fn a_malformed_escape_in_a_path_parameter_is_refused_naming_it() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let cases = [
        (Harness::path("C%zz", "/services"), "customerId"),
        (Harness::path(&id, "/shipments/100%"), "bookNumber"),
        (Harness::path(&id, "/shipments/1000000001/label/PDF%FF"), "labelImageFormat"),
        (format!("/customers/{id}/regionalShipmentTypes/K1A%2"), "postalCode"),
    ];
    for (path, field) in cases {
        let a = h.get(&path);
        a.assert_error(400, "INVALID_REQUEST", Some(field));
        assert_eq!(a.fields(), [field], "{path}: {}", a.body);
    }
}

#[test]
fn a_literal_segment_is_not_decoded() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.get(&Harness::path(&id, "/%73ervices")).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn query_values_are_form_decoded() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.get(&Harness::path(&id, "/shipments?limit=%31%30")).expect(200);
    h.get(&Harness::path(&id, "/shipments?limit=1+0")).assert_error(400, "INVALID_REQUEST", Some("limit"));
}
