//! Track shipment (4.6, 2.9) and the carrier feed that records events (DECISIONS 9).

use consign::{ErrorCategory, EVENT_STATUSES};
use consign_conformance::*;
use serde_json::{json, Value};

fn info(h: &Harness, id: &str, book: &str) -> Answer {
    h.get(&Harness::path(id, &format!("/shipments/{book}/tracking-information")))
}

fn feed(h: &Harness, id: &str, book: &str, events: Value) -> Answer {
    h.call("POST", &Harness::path(id, &format!("/shipments/{book}/tracking-events")), &json!({ "events": events }))
}

fn event(tracking: &str, status: &str, time: &str) -> Value {
    json!({"trackingNumber": tracking, "carrier": "postal", "event": format!("{status} at the facility"), "eventStatus": status,
        "eventTime": time, "serviceArea": "Chicago, IL", "serviceAreaCountry": "US"})
}

/// A shipper with one booked postal shipment: (customer, book number, tracking number).
fn booked(h: &Harness) -> (String, String, String) {
    let id = h.shipper("ann@example.com");
    let a = h.book_with(&id, &book_body());
    let b = a.expect(201);
    (id, b["bookNumber"].as_str().unwrap().into(), b["trackingNumber"].as_str().unwrap().into())
}

/// A void would refund a shipment the carrier is carrying: once the feed reports any
/// event after `Info Received`, the void is refused and nothing is refunded.
#[test]
fn a_shipment_the_carrier_has_scanned_cannot_be_voided() {
    let h = Harness::new();
    let (id, book, tracking) = booked(&h);
    // a repeat of the first event does not count as a scan
    feed(&h, &id, &book, json!([event(&tracking, "Info Received", "2026-11-22 08:00:00")])).expect(200);
    let other_book = h.book(&id, &book_body());
    feed(&h, &id, &book, json!([event(&tracking, "Delivered", "2026-11-24 12:00:00")])).expect(200);
    let before = h.get(&Harness::path(&id, "/prepay")).expect(200).clone();
    let a = h.call("POST", &Harness::path(&id, &format!("/shipments/{book}")), &json!({"voided": true}));
    a.assert_error_without_details(409, "CONFLICT");
    assert!(a.body["error"].as_str().unwrap().contains("scanned by the carrier (Delivered"), "{:?}", a.body);
    assert_eq!(h.get(&Harness::path(&id, "/prepay")).expect(200), &before);
    assert_eq!(h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200)["voided"], false);
    // a shipment with only its booking's event is voided as before
    h.void(&id, &other_book);
}

#[test]
fn booking_records_info_received_with_every_field() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    let a = info(&h, &id, &book);
    let events = a.expect(200).as_array().unwrap().clone();
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e["trackingNumber"], tn.as_str());
    assert_eq!(e["carrier"], "postal");
    assert_eq!(e["eventStatus"], "Info Received");
    assert_eq!(e["eventTime"], "2026-11-21 15:00:00");
    assert!(e["event"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(e["serviceArea"], "Philadelphia, PA");
    assert_eq!(e["serviceAreaCountry"], "US");
    assert_eq!(e.as_object().unwrap().len(), 7, "exactly the fields of 4.6: {e}");
}

#[test]
fn recorded_events_are_listed_newest_first() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    let events = json!([
        event(&tn, "In Transit", "2026-11-22 08:30:00"),
        event(&tn, "Delivered", "2026-11-24 14:05:10"),
        event(&tn, "Out for Delivery", "2026-11-24 07:00:00"),
    ]);
    assert_eq!(feed(&h, &id, &book, events).expect(200), &json!({"recorded": 3, "duplicates": 0}));
    let a = info(&h, &id, &book);
    let statuses: Vec<&str> = a.expect(200).as_array().unwrap().iter().map(|e| e["eventStatus"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["Delivered", "Out for Delivery", "In Transit", "Info Received"]);
    let first = &a.body[0];
    assert_eq!(first, &event(&tn, "Delivered", "2026-11-24 14:05:10"));
}

#[test]
fn every_status_of_the_closed_list_is_accepted_as_spelled() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    assert!(EVENT_STATUSES.contains(&"Delivery Arragned"));
    let events: Vec<Value> = EVENT_STATUSES.iter().enumerate().map(|(i, s)| event(&tn, s, &format!("2026-11-22 10:{i:02}:00"))).collect();
    assert_eq!(feed(&h, &id, &book, json!(events)).expect(200)["recorded"], 9);
    for wrong in ["Delivery Arranged", "delivered", "DELIVERED", "Lost", "", "In transit"] {
        feed(&h, &id, &book, json!([event(&tn, wrong, "2026-11-23 10:00:00")])).assert_error(
            400,
            "INVALID_REQUEST",
            Some("events[0].eventStatus"),
        );
    }
}

#[test]
fn duplicates_are_ignored_and_counted() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    let e = event(&tn, "In Transit", "2026-11-22 08:30:00");
    assert_eq!(feed(&h, &id, &book, json!([e, e])).expect(200), &json!({"recorded": 1, "duplicates": 1}));
    assert_eq!(feed(&h, &id, &book, json!([e])).expect(200), &json!({"recorded": 0, "duplicates": 1}));
    assert_eq!(info(&h, &id, &book).expect(200).as_array().unwrap().len(), 2);
}

#[test]
fn each_field_of_an_event_is_checked() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    let ok = event(&tn, "In Transit", "2026-11-22 08:30:00");
    for time in
        ["2026-11-22T08:30:00", "2026-11-22", "2026-11-22 25:00:00", "2026-02-30 08:00:00", "22/11/2026 08:30:00", "2026-11-22 8:30:00"]
    {
        feed(&h, &id, &book, json!([with(ok.clone(), "/eventTime", json!(time))])).assert_error(
            400,
            "INVALID_REQUEST",
            Some("events[0].eventTime"),
        );
    }
    for country in ["USA", "XX", "", "U"] {
        feed(&h, &id, &book, json!([with(ok.clone(), "/serviceAreaCountry", json!(country))])).assert_error(
            400,
            "INVALID_REQUEST",
            Some("events[0].serviceAreaCountry"),
        );
    }
    feed(&h, &id, &book, json!([with(ok.clone(), "/event", json!("  "))])).assert_error(400, "INVALID_REQUEST", Some("events[0].event"));
    feed(&h, &id, &book, json!([ok.clone(), with(ok.clone(), "/carrier", json!("parcel"))])).assert_error(
        400,
        "INVALID_REQUEST",
        Some("events[1].carrier"),
    );
    for key in ["trackingNumber", "carrier", "event", "eventStatus", "eventTime", "serviceArea", "serviceAreaCountry"] {
        feed(&h, &id, &book, json!([without(ok.clone(), &format!("/{key}"))])).assert_error(
            400,
            "INVALID_REQUEST",
            Some(&format!("events[0].{key}")),
        );
    }
    // An empty service area is allowed.
    assert_eq!(feed(&h, &id, &book, json!([with(ok, "/serviceArea", json!(""))])).expect(200)["recorded"], 1);
}

#[test]
fn a_request_with_one_bad_event_records_nothing() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    let events = json!([event(&tn, "In Transit", "2026-11-22 08:30:00"), event(&tn, "Teleported", "2026-11-22 09:30:00")]);
    feed(&h, &id, &book, events).assert_error(400, "INVALID_REQUEST", Some("events[1].eventStatus"));
    assert_eq!(info(&h, &id, &book).expect(200).as_array().unwrap().len(), 1);
}

#[test]
fn the_events_list_is_required_not_empty_and_limited() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    let path = Harness::path(&id, &format!("/shipments/{book}/tracking-events"));
    h.call("POST", &path, &json!({})).assert_error(400, "INVALID_REQUEST", Some("events"));
    feed(&h, &id, &book, json!([])).assert_error(400, "INVALID_REQUEST", Some("events"));
    feed(&h, &id, &book, json!("In Transit")).assert_error(400, "INVALID_REQUEST", Some("events"));
    let many: Vec<Value> =
        (0..1001).map(|i| event(&tn, "In Transit", &format!("2026-11-22 {:02}:{:02}:00", i / 60 % 24, i % 60))).collect();
    feed(&h, &id, &book, json!(many)).assert_error(400, "LIMIT_EXCEEDED", Some("events"));
}

#[test]
fn events_for_unknown_tracking_numbers_are_refused() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    let other = h.book_with(&id, &book_body()).expect(201)["trackingNumber"].as_str().unwrap().to_string();
    for unknown in ["9400100000000000000000", other.as_str(), ""] {
        feed(&h, &id, &book, json!([event(&tn, "In Transit", "2026-11-22 08:30:00"), event(unknown, "In Transit", "2026-11-22 08:30:00")]))
            .assert_error(404, "NOT_FOUND", Some("events[1].trackingNumber"));
    }
    assert_eq!(info(&h, &id, &book).expect(200).as_array().unwrap().len(), 1);
}

#[test]
fn unknown_and_foreign_shipments_are_not_found() {
    let h = Harness::new();
    let (ann, book, tn) = booked(&h);
    let bo = h.shipper("bo@example.com");
    info(&h, &bo, &book).assert_error_without_details(404, "NOT_FOUND");
    feed(&h, &bo, &book, json!([event(&tn, "In Transit", "2026-11-22 08:30:00")])).assert_error_without_details(404, "NOT_FOUND");
    info(&h, &ann, "1999999999").assert_error_without_details(404, "NOT_FOUND");
    info(&h, "C9999999", &book).assert_error_without_details(404, "NOT_FOUND");
    assert_eq!(info(&h, &ann, &book).expect(200).as_array().unwrap().len(), 1);
}

#[test]
fn wrong_methods_are_not_allowed() {
    let h = Harness::new();
    let (id, book, _) = booked(&h);
    h.call("POST", &Harness::path(&id, &format!("/shipments/{book}/tracking-information")), &json!({}))
        .assert_error_without_details(405, "METHOD_NOT_ALLOWED");
    h.get(&Harness::path(&id, &format!("/shipments/{book}/tracking-events"))).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
}

#[test]
fn a_voided_shipment_keeps_its_tracking() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    h.void(&id, &book);
    assert_eq!(info(&h, &id, &book).expect(200).as_array().unwrap().len(), 1);
    assert_eq!(feed(&h, &id, &book, json!([event(&tn, "Exception", "2026-11-22 08:30:00")])).expect(200)["recorded"], 1);
}

#[test]
fn every_piece_has_its_own_events() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let piece = json!({"weight": "1", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null});
    let b = h.book_with(&id, &with(book_body(), "/pieces", json!([piece, piece]))).expect(201).clone();
    let book = b["bookNumber"].as_str().unwrap();
    let numbers: Vec<&str> = b["trackingNumbers"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    let listed = info(&h, &id, book);
    let mut tracked: Vec<&str> = listed.expect(200).as_array().unwrap().iter().map(|e| e["trackingNumber"].as_str().unwrap()).collect();
    tracked.sort_unstable();
    let mut expected = numbers.clone();
    expected.sort_unstable();
    assert_eq!(tracked, expected);
    assert_eq!(feed(&h, &id, book, json!([event(numbers[1], "Delivered", "2026-11-23 10:00:00")])).expect(200)["recorded"], 1);
}

#[test]
fn the_rust_feed_is_keyed_by_carrier_and_tracking_number() {
    let h = Harness::new();
    let (id, book, tn) = booked(&h);
    let r = h.shipping.record_tracking_event("postal", &tn, &carrier_event("In Transit", "2026-11-22 06:00:00")).unwrap();
    assert_eq!((r.recorded, r.duplicates), (1, 0));
    let r = h.shipping.record_tracking_event("postal", &tn, &carrier_event("In Transit", "2026-11-22 06:00:00")).unwrap();
    assert_eq!((r.recorded, r.duplicates), (0, 1));
    let e = h.shipping.record_tracking_event("parcel", &tn, &carrier_event("In Transit", "2026-11-22 07:00:00")).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::NotFound);
    let e = h
        .shipping
        .record_tracking_event("postal", "9400100000000000000000", &carrier_event("In Transit", "2026-11-22 07:00:00"))
        .unwrap_err();
    assert_eq!(e.category(), ErrorCategory::NotFound);
    // The consolidator and the further express carrier are trackable carriers: only the number is unknown.
    for carrier in ["consolidator", "worldexpress"] {
        let e =
            h.shipping.record_tracking_event(carrier, "LX123456785US", &carrier_event("In Transit", "2026-11-22 07:00:00")).unwrap_err();
        assert_eq!(e.category(), ErrorCategory::NotFound, "{carrier}");
    }
    let e = h.shipping.record_tracking_event("nope", &tn, &carrier_event("In Transit", "2026-11-22 07:00:00")).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    let e = h.shipping.record_tracking_event("postal", &tn, &carrier_event("Gone", "2026-11-22 07:00:00")).unwrap_err();
    assert_eq!(e.details()[0].field, "eventStatus");
    let e = h.shipping.record_tracking_event("postal", &tn, &carrier_event("Delivered", "2026-11-22")).unwrap_err();
    assert_eq!(e.details()[0].field, "eventTime");
    let events = h.shipping.tracking_information(consign::CustomerId(&id), consign::BookNumber(&book)).unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].event_status, "In Transit");
    assert_eq!(events[0].carrier, "postal");
}

#[test]
fn ecommerce_shipments_are_tracked_by_their_own_carrier_or_the_postal_final_mile() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let b = h.book_with(&id, &book_body_for("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom")).expect(201).clone();
    let (book, tn) = (b["bookNumber"].as_str().unwrap(), b["trackingNumber"].as_str().unwrap());
    assert_eq!(
        h.shipping.record_tracking_event("postal", tn, &carrier_event("Out for Delivery", "2026-11-23 07:00:00")).unwrap().recorded,
        1
    );
    assert_eq!(h.shipping.record_tracking_event("ecommerce", tn, &carrier_event("In Transit", "2026-11-22 07:00:00")).unwrap().recorded, 1);
    let a = info(&h, &id, book);
    let carriers: Vec<&str> = a.expect(200).as_array().unwrap().iter().map(|e| e["carrier"].as_str().unwrap()).collect();
    assert_eq!(carriers, ["postal", "ecommerce", "ecommerce"]);
    let e = with(event(tn, "Delivered", "2026-11-24 07:00:00"), "/carrier", json!("ecommerce"));
    assert_eq!(feed(&h, &id, book, json!([e])).expect(200)["recorded"], 1);
    let e = with(event(tn, "Delivered", "2026-11-24 07:00:00"), "/carrier", json!("parcel"));
    feed(&h, &id, book, json!([e])).assert_error(400, "INVALID_REQUEST", Some("events[0].carrier"));
}
