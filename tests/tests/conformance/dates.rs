//! Strict dates (DECISIONS "Dates"): a date in a request is exactly `YYYY-MM-DD`, where
//! chrono's `%Y-%m-%d` alone reads `+2027-1-05` as the 5th of January 2027; shipment
//! and pickup dates are at most a year ahead; and no answer carries a date that
//! `YYYY-MM-DD` cannot write.

use consign_conformance::*;
use serde_json::{json, Value};

/// The 5th of January 2027 with a sign and a one-digit month: ten characters, in the
/// future and within a year, so only its shape can refuse it.
const SIGNED: &str = "+2027-1-05";

fn single_quote(h: &Harness, id: &str, shipment: &Value) -> Answer {
    h.call("POST", &Harness::path(id, "/quote"), shipment)
}

#[test]
fn a_quote_refuses_a_shipment_date_not_exactly_yyyy_mm_dd() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    for bad in [SIGNED, "2027-01-5", " 2027-01-05", "02027-01-05"] {
        single_quote(&h, &id, &with(quote_shipment(), "/shipmentDate", json!(bad))).assert_error(
            400,
            "INVALID_REQUEST",
            Some("shipmentDate"),
        );
    }
    single_quote(&h, &id, &with(quote_shipment(), "/shipmentDate", json!("2027-01-05"))).expect(200);
}

#[test]
fn a_batch_quote_refuses_a_shipment_date_not_exactly_yyyy_mm_dd() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let result = h.quote_one(&id, with(quote_shipment(), "/shipmentDate", json!(SIGNED)));
    assert_shipment_error(&result, "INVALID_REQUEST", "shipments[0].shipmentDate");
}

#[test]
fn a_booking_refuses_a_shipment_date_not_exactly_yyyy_mm_dd() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    h.book_with(&id, &with(book_body(), "/shipmentDate", json!(SIGNED))).assert_error(400, "INVALID_REQUEST", Some("shipmentDate"));
}

#[test]
fn deliver_by_is_exactly_yyyy_mm_dd() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let a = single_quote(&h, &id, &with(quote_shipment(), "/deliverBy", json!(SIGNED)));
    a.assert_error(400, "INVALID_REQUEST", Some("deliverBy"));
}

#[test]
fn a_pickup_date_is_exactly_yyyy_mm_dd() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &book_body());
    let a = h.call("POST", &Harness::path(&id, "/pickups"), &with(pickup_body("postal", &[&book]), "/pickupDate", json!("+2026-12-1")));
    a.assert_error(400, "INVALID_REQUEST", Some("pickupDate"));
}

#[test]
fn an_event_time_is_exactly_yyyy_mm_dd_hh_mm_ss() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let b = h.book_with(&id, &book_body()).expect(201).clone();
    let book = b["bookNumber"].as_str().unwrap();
    let event = json!({"trackingNumber": b["trackingNumber"], "carrier": "postal", "event": "Arrived", "eventStatus": "In Transit",
        "eventTime": "+2026-11-2 10:00:00", "serviceArea": "Chicago, IL", "serviceAreaCountry": "US"});
    let path = Harness::path(&id, &format!("/shipments/{book}/tracking-events"));
    h.call("POST", &path, &json!({ "events": [event.clone()] })).assert_error(400, "INVALID_REQUEST", Some("events[0].eventTime"));
    h.call("POST", &path, &json!({ "events": [with(event, "/eventTime", json!("2026-11-22 10:00:00"))] })).expect(200);
}

/// A year ahead of [`TODAY`] (2026-11-21) is 2027-11-21: accepted; the day after is
/// refused, for a quote, a batch quote's shipment and a booking.
#[test]
fn a_shipment_date_more_than_a_year_ahead_is_refused() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    assert_eq!(days_ahead(365), "2027-11-21");
    single_quote(&h, &id, &with(quote_shipment(), "/shipmentDate", json!(days_ahead(365)))).expect(200);
    let late = with(quote_shipment(), "/shipmentDate", json!(days_ahead(366)));
    let a = single_quote(&h, &id, &late);
    a.assert_error(400, "INVALID_REQUEST", Some("shipmentDate"));
    assert!(a.body["details"][0]["message"].as_str().unwrap().contains("the latest shipment date is 2027-11-21"), "{:?}", a.body);
    assert_shipment_error(&h.quote_one(&id, late), "INVALID_REQUEST", "shipments[0].shipmentDate");
    h.book_with(&id, &with(book_body(), "/shipmentDate", json!(days_ahead(366)))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("shipmentDate"),
    );
    h.book_with(&id, &with(book_body(), "/shipmentDate", json!(days_ahead(365)))).expect(201);
}

#[test]
fn a_pickup_date_more_than_a_year_ahead_is_refused() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &book_body());
    let body = |days: i64| with(pickup_body("postal", &[&book]), "/pickupDate", json!(days_ahead(days)));
    h.call("POST", &Harness::path(&id, "/pickups"), &body(366)).assert_error(400, "INVALID_REQUEST", Some("pickupDate"));
    h.call("POST", &Harness::path(&id, "/pickups"), &body(365)).expect(201);
}

/// Every date of `value`, wherever it is, written `YYYY-MM-DD`: the values of keys that
/// end in `Date` (or are `deliverBy`).
fn dates_of(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if key.ends_with("Date") || key == "deliverBy" {
                    if let Some(text) = v.as_str() {
                        found.push(text.to_string());
                    }
                }
                dates_of(v, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| dates_of(v, found)),
        _ => {}
    }
}

fn assert_all_dates_written_exactly(value: &Value) -> usize {
    let mut found = Vec::new();
    dates_of(value, &mut found);
    for date in &found {
        let b = date.as_bytes();
        let exact = b.len() == 10 && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
        assert!(exact, "{date:?} is not YYYY-MM-DD in {value}");
    }
    found.len()
}

/// On the last days `YYYY-MM-DD` can write, an arrival that would fall after
/// 9999-12-31 is no estimate: quotes and the booked shipment leave it out rather than
/// write `+10000-01-03`. (That an arrival on the 31st itself is given is pinned in
/// `rating::transit`.)
#[test]
fn no_answer_carries_a_date_past_9999_12_31() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    h.clock.set(chrono::DateTime::parse_from_rfc3339("9999-12-30T15:00:00Z").unwrap().to_utc());
    let shipment = with(quote_shipment(), "/shipmentDate", json!("9999-12-31"));
    let result = h.quote_one(&id, shipment.clone());
    assert!(!result["quotes"].as_array().unwrap().is_empty(), "{result}");
    assert_all_dates_written_exactly(&result);
    let estimates: Vec<&Value> = result["quotes"].as_array().unwrap().iter().map(|q| &q["estimatedDeliveryDate"]).collect();
    assert!(estimates.iter().all(|e| e.is_null()), "a shipment of Friday 9999-12-31 arrives after it: {estimates:?}");
    assert_all_dates_written_exactly(single_quote(&h, &id, &shipment).expect(200));
    for date in ["9999-12-30", "9999-12-31"] {
        let overnight = with(book_body_for("parcel", "parcel_next_day_air", "parcel_custom"), "/shipmentDate", json!(date));
        let booked = h.book_with(&id, &overnight).expect(201).clone();
        assert_all_dates_written_exactly(&booked);
        let view = h.get(&Harness::path(&id, &format!("/shipments/{}", booked["bookNumber"].as_str().unwrap()))).expect(200).clone();
        assert_eq!(view["shipmentDate"], date);
        assert_all_dates_written_exactly(&view);
        assert!(view["estimatedDeliveryDate"].is_null(), "{view}");
    }
}
