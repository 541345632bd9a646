//! 4.13 Regional shipment types: the services of the customer that deliver to a postal code.

use consign_conformance::*;
use serde_json::Value;

fn bare(id: &str, code: &str) -> String {
    format!("/customers/{id}/regionalShipmentTypes/{code}")
}

fn prefixed(id: &str, code: &str) -> String {
    Harness::path(id, &format!("/regionalShipmentTypes/{code}"))
}

fn types(h: &Harness, id: &str, code: &str) -> Vec<String> {
    let a = h.get(&bare(id, code));
    let services = a.expect(200)["services"].as_array().cloned().unwrap_or_default();
    services.iter().map(|s| s.as_str().unwrap_or_else(|| panic!("a service type is a string: {s}")).to_string()).collect()
}

/// The default catalog's excluded states of `service`.
fn excluded_states(h: &Harness, service: &str) -> Vec<String> {
    h.shipping.catalog().service(service).map(|s| s.excluded_states.clone()).unwrap_or_default()
}

fn customer() -> (Harness, String) {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    (h, id)
}

#[test]
fn both_paths_give_the_same_answer() {
    let (h, id) = customer();
    for code in ["19106", "99501", "K1A%200B1"] {
        let a = h.get(&bare(&id, code));
        let b = h.get(&prefixed(&id, code));
        assert_eq!(a.expect(200), b.expect(200), "{code}");
    }
}

#[test]
fn a_us_zip_gives_the_domestic_services() {
    let (h, id) = customer();
    let got = types(&h, &id, "19106");
    for domestic in ["parcel_ground", "parcel_next_day_air", "postal_priority_mail", "expressground_ground", "ecommerce_parcel_ground"] {
        assert!(got.iter().any(|s| s == domestic), "{domestic} missing from {got:?}");
    }
    for foreign in ["parcel_worldwide_express", "intlexpress_express_worldwide", "postal_priority_mail_international", "parcel_standard"] {
        assert!(!got.iter().any(|s| s == foreign), "{foreign} in {got:?}");
    }
}

#[test]
fn inbound_services_are_not_regional_shipment_types() {
    let (h, id) = customer();
    let got = types(&h, &id, "19106");
    assert!(got.iter().all(|s| !s.ends_with("_import")), "{got:?}");
}

#[test]
fn every_answer_is_a_service_the_customer_sees() {
    let (h, id) = customer();
    let listed: Vec<Value> = h.services(&id).iter().map(|s| s["serviceCode"].clone()).collect();
    for code in ["19106", "99501", "09001", "K1A0B1", "00901"] {
        for s in types(&h, &id, code) {
            assert!(listed.contains(&Value::from(s.as_str())), "{s} for {code}");
        }
    }
}

#[test]
fn a_zip_plus_four_is_accepted() {
    let (h, id) = customer();
    assert_eq!(types(&h, &id, "19106-1234"), types(&h, &id, "19106"));
}

#[test]
fn an_alaska_zip_excludes_services_that_exclude_alaska() {
    let (h, id) = customer();
    let got = types(&h, &id, "99501");
    assert!(got.iter().any(|s| s == "parcel_ground"), "{got:?}");
    for s in ["parcel_3_day_select", "expressground_express_saver", "expressground_first_overnight"] {
        assert!(excluded_states(&h, s).iter().any(|st| st == "AK"), "{s} excludes AK in the default catalog");
        assert!(!got.iter().any(|g| g == s), "{s} in {got:?}");
    }
    for s in &got {
        assert!(!excluded_states(&h, s).iter().any(|st| st == "AK"), "{s} excludes AK but was returned");
    }
}

#[test]
fn a_hawaii_zip_excludes_services_that_exclude_hawaii() {
    let (h, id) = customer();
    let got = types(&h, &id, "96813");
    assert!(got.iter().any(|s| s == "parcel_next_day_air"), "{got:?}");
    assert!(!got.iter().any(|s| s == "parcel_3_day_select"), "{got:?}");
    for s in &got {
        assert!(!excluded_states(&h, s).iter().any(|st| st == "HI"), "{s} excludes HI but was returned");
    }
}

#[test]
fn a_military_zip_gives_only_services_that_serve_it() {
    let (h, id) = customer();
    let got = types(&h, &id, "09001");
    assert!(got.iter().any(|s| s == "postal_priority_mail"), "the postal carrier serves APO/FPO: {got:?}");
    assert!(!got.iter().any(|s| s == "parcel_ground"), "{got:?}");
    for s in &got {
        assert!(!excluded_states(&h, s).iter().any(|st| st == "AE"), "{s} excludes AE but was returned");
    }
}

#[test]
fn a_puerto_rico_zip_gives_services_that_deliver_there() {
    let (h, id) = customer();
    let got = types(&h, &id, "00901");
    assert!(got.iter().any(|s| s == "postal_priority_mail") && got.iter().any(|s| s == "parcel_ground"), "{got:?}");
    assert!(!got.iter().any(|s| s == "parcel_3_day_select"), "{got:?}");
}

#[test]
fn a_canadian_postal_code_gives_the_services_that_reach_canada() {
    let (h, id) = customer();
    let got = types(&h, &id, "K1A0B1");
    for s in ["parcel_standard", "expressground_ground", "intlexpress_express_worldwide"] {
        assert!(got.iter().any(|g| g == s), "{s} missing from {got:?}");
    }
    let services = h.services(&id);
    for s in &got {
        let entry = services.iter().find(|e| e["serviceCode"] == s.as_str()).unwrap_or_else(|| panic!("{s} listed"));
        let reaches = match (&entry["supportedCountries"], &entry["unsupportedCountries"]) {
            (Value::Array(l), Value::Null) => l.iter().any(|c| c == "CA"),
            (Value::Null, Value::Array(l)) => !l.iter().any(|c| c == "CA"),
            other => panic!("rule 1 broken: {other:?}"),
        };
        assert!(reaches && entry["inbound"] == false, "{s} does not deliver to CA");
    }
    assert!(!got.iter().any(|s| s == "parcel_ground"), "{got:?}");
}

#[test]
fn a_canadian_postal_code_with_an_encoded_space_is_the_same_code() {
    let (h, id) = customer();
    assert_eq!(types(&h, &id, "K1A%200B1"), types(&h, &id, "K1A0B1"));
    assert_eq!(types(&h, &id, "k1a%200b1"), types(&h, &id, "K1A0B1"));
}

#[test]
fn a_ground_saver_customer_gets_only_its_profile_s_services() {
    let h = Harness::new();
    let id = h.create_customer_of_profile("gus@example.com", "GroundSaver");
    let got = types(&h, &id, "19106");
    assert!(got.iter().any(|s| s == "parcel_ground"), "{got:?}");
    assert!(!got.iter().any(|s| s == "parcel_next_day_air"), "{got:?}");
}

#[test]
fn a_postal_code_that_is_neither_us_nor_canadian_is_refused() {
    let (h, id) = customer();
    h.get(&bare(&id, "SW1A2AA")).assert_error(400, "INVALID_REQUEST", Some("postalCode"));
}

#[test]
fn a_four_digit_zip_is_refused() {
    let (h, id) = customer();
    h.get(&prefixed(&id, "1910")).assert_error(400, "INVALID_REQUEST", Some("postalCode"));
}

#[test]
fn a_zip_prefix_not_in_use_is_refused() {
    let (h, id) = customer();
    h.get(&bare(&id, "00012")).assert_error(400, "INVALID_REQUEST", Some("postalCode"));
}

#[test]
fn a_canadian_code_with_a_letter_canada_never_uses_is_refused() {
    let (h, id) = customer();
    h.get(&bare(&id, "D1A0B1")).assert_error(400, "INVALID_REQUEST", Some("postalCode"));
}

#[test]
fn the_regional_types_of_an_unknown_customer_are_not_found() {
    let h = Harness::new();
    h.get(&bare("C9999999", "19106")).assert_error_without_details(404, "NOT_FOUND");
    h.get(&prefixed("C9999999", "19106")).assert_error_without_details(404, "NOT_FOUND");
}
