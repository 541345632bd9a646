//! 4.8 List integrated quoting options, and the PUT that sets the whole list.

use consign_conformance::*;
use serde_json::{json, Value};

fn path(id: &str) -> String {
    Harness::path(id, "/integratedQuotingOptions")
}

fn put(h: &Harness, id: &str, options: Value) -> Answer {
    h.call("PUT", &path(id), &json!({ "integratedQuotingOptions": options }))
}

fn listed(h: &Harness, id: &str) -> Value {
    h.get(&path(id)).expect(200)["integratedQuotingOptions"].clone()
}

fn ground() -> Value {
    quoting_option("Everyday ground", "parcel", "parcel_ground", "parcel_custom")
}

fn flat_rate() -> Value {
    quoting_option("Flat rate envelope", "postal", "postal_priority_mail", "postal_flat_rate_envelope")
}

fn overnight() -> Value {
    quoting_option("Overnight pak", "expressground", "expressground_priority_overnight", "expressground_pak")
}

#[test]
fn a_new_customer_has_no_quoting_options() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    assert_eq!(listed(&h, &id), json!([]));
}

#[test]
fn put_answers_200_with_the_list_it_stored() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let a = put(&h, &id, json!([ground(), flat_rate()]));
    assert_eq!(a.expect(200)["integratedQuotingOptions"], json!([ground(), flat_rate()]));
}

#[test]
fn get_returns_the_options_in_the_order_they_were_put() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, json!([overnight(), ground(), flat_rate()])).expect(200);
    assert_eq!(listed(&h, &id), json!([overnight(), ground(), flat_rate()]));
}

#[test]
fn put_replaces_the_whole_list() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, json!([ground(), flat_rate()])).expect(200);
    put(&h, &id, json!([overnight()])).expect(200);
    assert_eq!(listed(&h, &id), json!([overnight()]));
}

#[test]
fn an_empty_list_clears_the_options() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, json!([ground()])).expect(200);
    put(&h, &id, json!([])).expect(200);
    assert_eq!(listed(&h, &id), json!([]));
}

#[test]
fn the_options_of_one_customer_are_not_another_s() {
    let h = Harness::new();
    let ann = h.create_customer("ann@example.com");
    let bob = h.create_customer("bob@example.com");
    put(&h, &ann, json!([ground()])).expect(200);
    assert_eq!(listed(&h, &bob), json!([]));
}

#[test]
fn unknown_fields_of_an_option_are_ignored() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, json!([with(ground(), "/colour", json!("blue"))])).expect(200);
    assert_eq!(listed(&h, &id), json!([ground()]));
}

#[test]
fn an_unknown_carrier_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let bad = quoting_option("Pigeon", "pigeon", "parcel_ground", "parcel_custom");
    put(&h, &id, json!([ground(), bad])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[1].carrierCode"));
}

#[test]
fn an_unknown_service_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let bad = quoting_option("Teleport", "parcel", "parcel_teleport", "parcel_custom");
    put(&h, &id, json!([bad])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[0].serviceCode"));
}

#[test]
fn a_service_of_another_carrier_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let bad = quoting_option("Mixed", "parcel", "postal_priority_mail", "parcel_custom");
    put(&h, &id, json!([bad])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[0].serviceCode"));
}

#[test]
fn an_unknown_package_type_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let bad = quoting_option("Crate", "parcel", "parcel_ground", "parcel_crate");
    put(&h, &id, json!([bad])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[0].packageTypeCode"));
}

#[test]
fn a_package_type_the_service_does_not_offer_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    // parcel_ground carries custom packages only.
    let bad = quoting_option("Ground letter", "parcel", "parcel_ground", "parcel_letter");
    put(&h, &id, json!([bad])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[0].packageTypeCode"));
}

#[test]
fn a_service_the_profile_does_not_offer_is_refused() {
    let h = Harness::new();
    let id = h.create_customer_of_profile("gus@example.com", "GroundSaver");
    let bad = quoting_option("Overnight", "parcel", "parcel_next_day_air", "parcel_custom");
    put(&h, &id, json!([bad])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[0].serviceCode"));
}

#[test]
fn a_duplicate_name_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let twin = with(flat_rate(), "/name", json!("Everyday ground"));
    put(&h, &id, json!([ground(), twin])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[1].name"));
}

#[test]
fn names_differing_only_in_case_are_duplicates() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let twin = with(flat_rate(), "/name", json!("EVERYDAY GROUND"));
    put(&h, &id, json!([ground(), twin])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[1].name"));
}

#[test]
fn an_empty_name_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, json!([with(ground(), "/name", json!("  "))])).assert_error(
        400,
        "INVALID_REQUEST",
        Some("integratedQuotingOptions[0].name"),
    );
}

#[test]
fn a_missing_field_of_an_option_is_named() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, json!([ground(), without(flat_rate(), "/packageTypeCode")])).assert_error(
        400,
        "INVALID_REQUEST",
        Some("integratedQuotingOptions[1].packageTypeCode"),
    );
}

#[test]
fn a_field_of_the_wrong_type_names_its_path() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, json!([ground(), with(flat_rate(), "/name", json!(5))])).assert_error(
        400,
        "INVALID_REQUEST",
        Some("integratedQuotingOptions[1].name"),
    );
}

#[test]
fn a_body_without_the_list_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.call("PUT", &path(&id), &json!({"options": [ground()]})).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions"));
}

#[test]
fn an_option_that_is_not_an_object_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let tuple = json!(["Everyday ground", "parcel", "parcel_ground", "parcel_custom"]);
    put(&h, &id, json!([tuple])).assert_error(400, "INVALID_REQUEST", Some("integratedQuotingOptions[0]"));
}

#[test]
fn a_refused_put_keeps_the_previous_list() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, json!([ground()])).expect(200);
    put(&h, &id, json!([flat_rate(), quoting_option("Bad", "pigeon", "x", "y")])).assert_error(400, "INVALID_REQUEST", None);
    assert_eq!(listed(&h, &id), json!([ground()]));
}

#[test]
fn more_than_one_hundred_options_exceed_the_limit() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let many: Vec<Value> = (0..101).map(|i| with(ground(), "/name", json!(format!("Option {i}")))).collect();
    put(&h, &id, json!(many)).assert_error(400, "LIMIT_EXCEEDED", None);
}

#[test]
fn the_options_of_an_unknown_customer_are_not_found() {
    let h = Harness::new();
    h.get(&path("C9999999")).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn setting_the_options_of_an_unknown_customer_is_not_found() {
    let h = Harness::new();
    put(&h, "C9999999", json!([ground()])).assert_error_without_details(404, "NOT_FOUND");
}
