//! Schedule pickup (4.7, part 7, part 8), cancel and get a pickup (DECISIONS 9).

use consign_conformance::*;
use serde_json::{json, Value};

fn schedule(h: &Harness, id: &str, body: &Value) -> Answer {
    h.call("POST", &Harness::path(id, "/pickups"), body)
}

fn cancel(h: &Harness, id: &str, pickup: &str, cancelled: bool) -> Answer {
    h.call("POST", &Harness::path(id, &format!("/pickups/{pickup}")), &json!({ "cancelled": cancelled }))
}

fn intl_booking() -> Value {
    let b = book_body_for("intlexpress", "intlexpress_express_worldwide", "intlexpress_custom");
    let b = with(b, "/receiver", gb_address());
    let b = with(b, "/pieces/0/declaredValue", json!("80"));
    with(b, "/commercialInvoice", invoice("1"))
}

#[test]
fn a_pickup_is_scheduled_and_can_be_read_back() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let b = h.book(&id, &book_body());
    let r = schedule(&h, &id, &pickup_body("postal", &[&a, &b]));
    let pickup = r.expect(201)["pickupId"].as_str().unwrap().to_string();
    assert_eq!(r.body.as_object().unwrap().len(), 1, "{}", r.body);
    let g = h.get(&Harness::path(&id, &format!("/pickups/{pickup}")));
    let p = g.expect(200);
    assert_eq!(p["pickupId"], pickup.as_str());
    assert_eq!(p["carrierCode"], "postal");
    assert_eq!(p["pickupDate"], days_ahead(1));
    assert_eq!(p["readyTime"], "09:00:00");
    assert_eq!(p["closeTime"], "17:00:00");
    assert_eq!(p["bookNumbers"], json!([a, b]));
    assert_eq!(p["address"]["city"], "Philadelphia");
    assert_eq!(p["specialInstructions"], "Ring the bell");
    assert_eq!(p["cancelled"], false);
}

#[test]
fn every_required_field_is_named_when_missing() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let body = pickup_body("postal", &[&a]);
    for key in [
        "carrierCode",
        "pickupDate",
        "readyTime",
        "closeTime",
        "bookNumbers",
        "name",
        "company",
        "address1",
        "address2",
        "city",
        "state",
        "zip",
        "country",
        "phone",
    ] {
        schedule(&h, &id, &without(body.clone(), &format!("/{key}"))).assert_error(400, "INVALID_REQUEST", Some(key));
    }
    // Company and address2 may be empty; name may not.
    schedule(&h, &id, &with(with(body.clone(), "/company", json!("")), "/address2", json!(""))).expect(201);
    let b = h.book(&id, &book_body());
    schedule(&h, &id, &with(pickup_body("postal", &[&b]), "/name", json!(" "))).assert_error(400, "INVALID_REQUEST", Some("name"));
}

#[test]
fn the_address_follows_the_address_rules() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let body = pickup_body("postal", &[&a]);
    for (key, value) in [("state", "Pennsylvania"), ("zip", "1910"), ("country", "USA"), ("phone", "555-0142")] {
        schedule(&h, &id, &with(body.clone(), &format!("/{key}"), json!(value))).assert_error(400, "INVALID_REQUEST", Some(key));
    }
}

#[test]
fn dates_and_times_have_their_formats_and_the_window_is_ordered() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let body = pickup_body("postal", &[&a]);
    for date in ["2026-11-20", "2026/11/22", "22-11-2026", "tomorrow", "2026-02-30"] {
        schedule(&h, &id, &with(body.clone(), "/pickupDate", json!(date))).assert_error(400, "INVALID_REQUEST", Some("pickupDate"));
    }
    for (key, value) in [("readyTime", "9:00"), ("readyTime", "09:00"), ("readyTime", "25:00:00"), ("closeTime", "5pm"), ("closeTime", "")]
    {
        schedule(&h, &id, &with(body.clone(), &format!("/{key}"), json!(value))).assert_error(400, "INVALID_REQUEST", Some(key));
    }
    for (ready, close) in [("17:00:00", "09:00:00"), ("12:00:00", "12:00:00")] {
        let b = with(with(body.clone(), "/readyTime", json!(ready)), "/closeTime", json!(close));
        schedule(&h, &id, &b).assert_error(400, "INVALID_REQUEST", Some("closeTime"));
    }
    schedule(&h, &id, &with(body, "/pickupDate", json!(TODAY))).expect(201);
}

#[test]
fn book_numbers_must_be_listed_once_and_not_voided() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let v = h.book(&id, &book_body());
    h.void(&id, &v);
    schedule(&h, &id, &pickup_body("postal", &[])).assert_error(400, "INVALID_REQUEST", Some("bookNumbers"));
    schedule(&h, &id, &pickup_body("postal", &[&a, &a])).assert_error(400, "INVALID_REQUEST", Some("bookNumbers[1]"));
    schedule(&h, &id, &pickup_body("postal", &[&a, &v])).assert_error(400, "INVALID_REQUEST", Some("bookNumbers[1]"));
    schedule(&h, &id, &with(pickup_body("postal", &[&a]), "/bookNumbers", json!(a))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("bookNumbers"),
    );
    let many: Vec<String> = (0..501).map(|i| format!("{}", 1_000_000_000 + i)).collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    schedule(&h, &id, &pickup_body("postal", &refs)).assert_error(400, "LIMIT_EXCEEDED", Some("bookNumbers"));
}

#[test]
fn unknown_and_foreign_book_numbers_are_not_found() {
    let h = Harness::new();
    let ann = h.shipper("ann@example.com");
    let bo = h.shipper("bo@example.com");
    let mine = h.book(&ann, &book_body());
    let theirs = h.book(&bo, &book_body());
    schedule(&h, &ann, &pickup_body("postal", &[&mine, &theirs])).assert_error(404, "NOT_FOUND", Some("bookNumbers[1]"));
    schedule(&h, &ann, &pickup_body("postal", &["1999999999"])).assert_error(404, "NOT_FOUND", Some("bookNumbers[0]"));
    schedule(&h, "C9999999", &pickup_body("postal", &[&mine])).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn one_carrier_per_pickup_and_it_matches_carrier_code() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let postal = h.book(&id, &book_body());
    let parcel = h.book(&id, &book_body_for("parcel", "parcel_ground", "parcel_custom"));
    let a = schedule(&h, &id, &pickup_body("postal", &[&postal, &parcel]));
    a.assert_error(400, "INVALID_REQUEST", Some("bookNumbers"));
    assert!(a.body["error"].as_str().unwrap().contains("one carrier"), "{}", a.body);
    schedule(&h, &id, &pickup_body("parcel", &[&postal])).assert_error(400, "INVALID_REQUEST", Some("carrierCode"));
    schedule(&h, &id, &pickup_body("nocarrier", &[&postal])).assert_error(400, "INVALID_REQUEST", Some("carrierCode"));
    schedule(&h, &id, &pickup_body("parcel", &[&parcel])).expect(201);
}

#[test]
fn carrier_d_ground_and_express_are_not_picked_up_together() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let ground = h.book(&id, &book_body_for("expressground", "expressground_ground", "expressground_custom"));
    let express = h.book(&id, &book_body_for("expressground", "expressground_2day", "expressground_custom"));
    let express2 = h.book(&id, &book_body_for("expressground", "expressground_priority_overnight", "expressground_custom"));
    schedule(&h, &id, &pickup_body("expressground", &[&ground, &express])).assert_error(400, "INVALID_REQUEST", Some("bookNumbers"));
    schedule(&h, &id, &pickup_body("expressground", &[&express, &express2])).expect(201);
    schedule(&h, &id, &pickup_body("expressground", &[&ground])).expect(201);
}

#[test]
fn package_location_applies_only_to_carrier_c() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let postal = h.book(&id, &book_body());
    let body = with(pickup_body("postal", &[&postal]), "/packageLocation", json!("Front desk"));
    schedule(&h, &id, &body).assert_error(400, "INVALID_REQUEST", Some("packageLocation"));
    let intl = h.book(&id, &intl_booking());
    let body = with(pickup_body("intlexpress", &[&intl]), "/packageLocation", json!("Front desk"));
    let pickup = schedule(&h, &id, &body).expect(201)["pickupId"].as_str().unwrap().to_string();
    let g = h.get(&Harness::path(&id, &format!("/pickups/{pickup}")));
    assert_eq!(g.expect(200)["packageLocation"], "Front desk");
}

#[test]
fn a_shipment_is_on_one_open_pickup_at_a_time() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let b = h.book(&id, &book_body());
    let first = schedule(&h, &id, &pickup_body("postal", &[&a])).expect(201)["pickupId"].as_str().unwrap().to_string();
    schedule(&h, &id, &pickup_body("postal", &[&b, &a])).assert_error(409, "CONFLICT", Some("bookNumbers[1]"));
    cancel(&h, &id, &first, true).expect(200);
    schedule(&h, &id, &pickup_body("postal", &[&b, &a])).expect(201);
}

#[test]
fn cancelling_twice_conflicts_and_false_is_refused() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let pickup = schedule(&h, &id, &pickup_body("postal", &[&a])).expect(201)["pickupId"].as_str().unwrap().to_string();
    cancel(&h, &id, &pickup, false).assert_error(400, "INVALID_REQUEST", Some("cancelled"));
    let c = cancel(&h, &id, &pickup, true);
    assert_eq!(c.expect(200)["cancelled"], true);
    assert_eq!(c.body["pickupId"], pickup.as_str());
    cancel(&h, &id, &pickup, true).assert_error_without_details(409, "CONFLICT");
    let g = h.get(&Harness::path(&id, &format!("/pickups/{pickup}")));
    assert_eq!(g.expect(200)["cancelled"], true);
    h.call("POST", &Harness::path(&id, &format!("/pickups/{pickup}")), &json!({})).assert_error(400, "INVALID_REQUEST", Some("cancelled"));
}

#[test]
fn foreign_and_unknown_pickups_are_not_found() {
    let h = Harness::new();
    let ann = h.shipper("ann@example.com");
    let bo = h.shipper("bo@example.com");
    let a = h.book(&ann, &book_body());
    let pickup = schedule(&h, &ann, &pickup_body("postal", &[&a])).expect(201)["pickupId"].as_str().unwrap().to_string();
    h.get(&Harness::path(&bo, &format!("/pickups/{pickup}"))).assert_error_without_details(404, "NOT_FOUND");
    cancel(&h, &bo, &pickup, true).assert_error_without_details(404, "NOT_FOUND");
    h.get(&Harness::path(&ann, "/pickups/P9999999")).assert_error_without_details(404, "NOT_FOUND");
    cancel(&h, &ann, "P9999999", true).assert_error_without_details(404, "NOT_FOUND");
    // Still open for its owner.
    assert_eq!(h.get(&Harness::path(&ann, &format!("/pickups/{pickup}"))).expect(200)["cancelled"], false);
}

#[test]
fn wrong_methods_are_not_allowed() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    h.get(&Harness::path(&id, "/pickups")).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
    h.delete(&Harness::path(&id, "/pickups/P0000001")).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
    h.raw("POST", &Harness::path(&id, "/pickups"), "[]").assert_error(400, "INVALID_REQUEST", None);
}
