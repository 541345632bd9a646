//! The event feed (DECISIONS, "Events"): every change appends its events in its own
//! transaction, numbered per customer in commit order, each carrying the subject's view
//! as its retrieve route answers it; `GET .../events` pages them by cursor and type;
//! events older than 90 days are purged, and a cursor into what was purged is 410.

use consign_conformance::*;
use serde_json::{json, Value};

/// The customer's events after `after` (all kept when `None`), asserting 200.
#[track_caller]
fn events(h: &Harness, id: &str, query: &str) -> Value {
    h.get(&Harness::path(id, &format!("/events{query}"))).expect(200).clone()
}

/// Every event of the customer, oldest first.
#[track_caller]
fn all(h: &Harness, id: &str) -> Vec<Value> {
    events(h, id, "?limit=1000")["events"].as_array().unwrap().clone()
}

/// The test booking, shipped on the clock's day.
fn shipped_today(h: &Harness) -> Value {
    use consign::Clock as _;
    with(book_body(), "/shipmentDate", json!(h.clock.today().to_string()))
}

/// The types of `list`, in order.
fn types(list: &[Value]) -> Vec<&str> {
    list.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// The events of `list` after the first `n`.
fn after(list: &[Value], n: usize) -> Vec<Value> {
    list[n..].to_vec()
}

#[test]
fn opening_an_account_and_booking_append_the_charge_and_the_shipment_as_retrieve_shows_it() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let first = all(&h, &id);
    assert_eq!(types(&first), ["prepay.recharged"], "the opening recharge");
    let book = h.book(&id, &book_body());
    let list = after(&all(&h, &id), first.len());
    assert_eq!(types(&list), ["prepay.charged", "shipment.booked"]);
    let shipment = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200).clone();
    let booked = &list[1];
    assert_eq!((booked["subjectId"].as_str(), &booked["data"]), (Some(book.as_str()), &shipment));
    assert_eq!(booked["createdAt"], NOW);
    let prepay = h.get(&Harness::path(&id, "/prepay")).expect(200).clone();
    assert_eq!(list[0]["data"], prepay["entries"][0], "the charge is the ledger entry");
    assert_eq!(list[0]["subjectId"], prepay["entries"][0]["id"].to_string());
    let ids: Vec<i64> = all(&h, &id).iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 2, 3], "numbered per customer from 1");
}

#[test]
fn a_void_appends_the_void_shipment_and_its_refund() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &book_body());
    let before = all(&h, &id).len();
    h.void(&id, &book);
    let list = after(&all(&h, &id), before);
    assert_eq!(types(&list), ["shipment.voided", "prepay.refunded"]);
    let shipment = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200).clone();
    assert_eq!(list[0]["data"], shipment);
    assert_eq!(list[0]["data"]["voided"], true);
}

#[test]
fn an_operation_refused_appends_nothing() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let before = all(&h, &id);
    // No payment method: the booking cannot be recharged and is refused.
    let heavy = with(book_body(), "/pieces/0/weight", json!("60"));
    let refused = h.book_with(&id, &with(heavy, "/approvePrepayRecharge", json!(true)));
    assert_eq!(refused.status, 402, "{}", refused.body);
    h.book_with(&id, &without(book_body(), "/receiver")).assert_error(400, "INVALID_REQUEST", None);
    assert_eq!(all(&h, &id), before);
}

#[test]
fn tracking_events_append_an_update_once_and_a_delivery_of_the_shipment() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &book_body());
    let tracking = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200)["trackingNumber"].as_str().unwrap().to_string();
    let before = all(&h, &id).len();
    let event = |status: &str, time: &str| {
        json!({"trackingNumber": tracking, "carrier": "postal", "event": format!("{status} at the depot"), "eventStatus": status,
            "eventTime": time, "serviceArea": "Los Angeles, CA", "serviceAreaCountry": "US"})
    };
    let path = Harness::path(&id, &format!("/shipments/{book}/tracking-events"));
    let transit = event("In Transit", "2026-11-22 08:00:00");
    h.call("POST", &path, &json!({"events": [transit]})).expect(200);
    let list = after(&all(&h, &id), before);
    assert_eq!(types(&list), ["tracking.updated"]);
    assert_eq!(list[0]["data"], json!({"bookNumber": book, "status": "In Transit", "newEvents": [transit]}));
    // A repeat records nothing, and tells nothing.
    h.call("POST", &path, &json!({"events": [transit]})).expect(200);
    assert_eq!(all(&h, &id).len(), before + 1);
    let delivered = event("Delivered", "2026-11-23 09:00:00");
    h.call("POST", &path, &json!({"events": [transit, delivered]})).expect(200);
    let list = after(&all(&h, &id), before + 1);
    assert_eq!(types(&list), ["tracking.updated", "shipment.delivered"]);
    assert_eq!(list[1]["data"], json!({"bookNumber": book, "status": "Delivered", "newEvents": [delivered]}));
    assert_eq!(list[0]["data"], list[1]["data"]);
}

#[test]
fn the_first_scan_of_a_return_label_appends_its_charge_and_its_use() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let booked = h.book_with(&id, &with(book_body(), "/scanBasedReturnLabel", json!(true))).expect(201).clone();
    let (book, ret) = (booked["bookNumber"].as_str().unwrap(), booked["returnTrackingNumber"].as_str().unwrap());
    let before = all(&h, &id).len();
    let event = consign_conformance::carrier_event("In Transit", "2026-11-23 09:00:00");
    assert_eq!(h.shipping.record_tracking_event("postal", ret, &event).unwrap().recorded, 1);
    let list = after(&all(&h, &id), before);
    assert_eq!(types(&list), ["tracking.updated", "prepay.charged", "return_label.used"]);
    let used = &list[2]["data"];
    assert_eq!((used["bookNumber"].as_str(), used["returnTrackingNumber"].as_str()), (Some(book), Some(ret)));
    assert_eq!(used["charge"].as_str().map(|c| format!("-{c}")), list[1]["data"]["amount"].as_str().map(String::from));
    assert_eq!(used["balanceAfter"], list[1]["data"]["balanceAfter"]);
    assert_eq!(used["usedAt"], NOW);
    // The second scan charges nothing and is no use of the label.
    let later = consign_conformance::carrier_event("In Transit", "2026-11-24 09:00:00");
    h.shipping.record_tracking_event("postal", ret, &later).unwrap();
    assert_eq!(types(&after(&all(&h, &id), before + 3)), ["tracking.updated"]);
}

#[test]
fn a_batch_book_appends_each_booking_then_the_batch_and_nothing_of_a_quote_that_failed() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let quotes = h.quote_one(&id, quote_shipment());
    let ids: Vec<i64> = quotes["quotes"].as_array().unwrap().iter().take(2).map(|q| q["quoteId"].as_i64().unwrap()).collect();
    let batch = h.call("POST", &Harness::path(&id, "/batch"), &json!({})).expect(201)["batchId"].as_str().unwrap().to_string();
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": ids})).expect(200);
    let before = all(&h, &id).len();
    h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch, "approvePrepayRecharge": true})).expect(200);
    let list = after(&all(&h, &id), before);
    let kinds = types(&list);
    assert_eq!(kinds.iter().filter(|t| **t == "shipment.booked").count(), 2, "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"batch.booked"));
    let view = h.get(&Harness::path(&id, &format!("/batch/{batch}"))).expect(200).clone();
    assert_eq!(list.last().unwrap()["data"], view);
    assert_eq!(list.last().unwrap()["subjectId"], batch.as_str());
}

#[test]
fn pickups_and_manifests_append_what_their_get_routes_answer() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &book_body());
    let before = all(&h, &id).len();
    let pickup = h.call("POST", &Harness::path(&id, "/pickups"), &pickup_body("postal", &[&book])).expect(201)["pickupId"]
        .as_str()
        .unwrap()
        .to_string();
    h.call("POST", &Harness::path(&id, &format!("/pickups/{pickup}")), &json!({"cancelled": true})).expect(200);
    let manifest = h.call("POST", &Harness::path(&id, "/manifest"), &manifest_body("postal", &[&book])).expect(201)["manifestId"]
        .as_str()
        .unwrap()
        .to_string();
    let list = after(&all(&h, &id), before);
    assert_eq!(types(&list), ["pickup.scheduled", "pickup.cancelled", "manifest.created"]);
    let pickup_view = h.get(&Harness::path(&id, &format!("/pickups/{pickup}"))).expect(200).clone();
    assert_eq!(list[1]["data"], pickup_view);
    assert_eq!(list[0]["data"], with(pickup_view, "/cancelled", json!(false)));
    let manifest_view = h.get(&Harness::path(&id, &format!("/manifest/{manifest}"))).expect(200).clone();
    assert_eq!((list[2]["subjectId"].as_str(), &list[2]["data"]), (Some(manifest.as_str()), &manifest_view));
}

#[test]
fn orders_append_their_creation_changes_status_and_deletion() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let integration = h.integration(&id);
    let order = Harness::path(&id, &format!("/integrations/{integration}/orders/SO-1"));
    let before = all(&h, &id).len();
    h.call("PUT", &order, &order_body("SO-1")).expect(201);
    h.call("PUT", &order, &with(order_body("SO-1"), "/orderNumber", json!("SO-5002"))).expect(201);
    let fulfil = json!({"orderId": "SO-1", "integrationId": integration, "items": []});
    h.book(&id, &with(book_body(), "/fulfillment", fulfil));
    let fulfilled = h.get(&order).expect(200).clone();
    h.delete(&order).expect(200);
    let list = after(&all(&h, &id), before);
    let orders: Vec<&Value> = list.iter().filter(|e| e["type"].as_str().unwrap().starts_with("order.")).collect();
    let kinds: Vec<&str> = orders.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["order.created", "order.updated", "order.status_changed", "order.deleted"]);
    assert_eq!(orders[0]["subjectId"], format!("{integration}/SO-1"));
    assert_eq!(orders[1]["data"]["orderNumber"], "SO-5002");
    assert_eq!((&orders[2]["data"], &orders[3]["data"]), (&fulfilled, &fulfilled));
    assert_eq!(fulfilled["fulfillmentStatus"], "fulfilled");
    let booked = list.iter().position(|e| e["type"] == "shipment.booked").unwrap();
    let changed = list.iter().position(|e| e["type"] == "order.status_changed").unwrap();
    assert!(booked < changed, "the booking, then the order it fulfilled");
}

#[test]
fn pages_follow_the_cursor_and_the_type_filter() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    for _ in 0..3 {
        h.book(&id, &book_body());
    }
    let every = all(&h, &id);
    assert_eq!(every.len(), 7);
    let first = events(&h, &id, "?limit=2");
    assert_eq!(first["events"].as_array().unwrap()[..], every[..2]);
    assert_eq!((first["nextCursor"].as_str(), first["hasMore"].as_bool()), (Some("2"), Some(true)));
    let rest = events(&h, &id, "?after=2&limit=1000");
    assert_eq!(rest["events"].as_array().unwrap()[..], every[2..]);
    assert_eq!((rest["nextCursor"].as_str(), rest["hasMore"].as_bool()), (Some("7"), Some(false)));
    let end = events(&h, &id, "?after=7");
    assert_eq!((end["events"].as_array().unwrap().len(), end["nextCursor"].as_str()), (0, Some("7")));

    let shipments = events(&h, &id, "?types=shipment.*&limit=2");
    assert_eq!(types(shipments["events"].as_array().unwrap()), ["shipment.booked", "shipment.booked"]);
    assert_eq!((shipments["nextCursor"].as_str(), shipments["hasMore"].as_bool()), (Some("5"), Some(true)));
    let last = events(&h, &id, "?types=shipment.*&after=5");
    assert_eq!(types(last["events"].as_array().unwrap()), ["shipment.booked"]);
    let charges = events(&h, &id, "?types=prepay.charged,%20prepay.refunded");
    assert_eq!(types(charges["events"].as_array().unwrap()), ["prepay.charged"; 3]);
    let none = events(&h, &id, "?types=pickup.*&after=3");
    assert_eq!(
        (none["events"].as_array().unwrap().len(), none["nextCursor"].as_str(), none["hasMore"].as_bool()),
        (0, Some("7"), Some(false))
    );
}

#[test]
fn every_parameter_out_of_its_range_is_named() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let get = |query: &str| h.get(&Harness::path(&id, &format!("/events{query}")));
    for query in ["?limit=0", "?limit=1001", "?limit=ten", "?limit=-1"] {
        get(query).assert_error(400, "INVALID_REQUEST", Some("limit"));
    }
    for query in ["?after=x", "?after=-1", "?after=1.5", "?after=+1", "?after=2"] {
        get(query).assert_error(400, "INVALID_REQUEST", Some("after"));
    }
    for query in ["?types=shipment", "?types=shipment.booked,nothing.*", "?types=*"] {
        get(query).assert_error(400, "INVALID_REQUEST", Some("types"));
    }
    get("?after=1&limit=1000&types=").expect(200);
    h.get(&Harness::path("C0000099", "/events")).assert_error_without_details(404, "NOT_FOUND");
    h.call("POST", &Harness::path(&id, "/events"), &json!({})).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
}

#[test]
fn events_are_kept_ninety_days_and_a_cursor_into_what_was_purged_is_gone() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let quiet = h.shipper("bo@example.com");
    h.book(&id, &book_body());
    assert_eq!(all(&h, &id).len(), 3);
    h.clock.advance(chrono::Duration::days(60));
    h.book(&id, &shipped_today(&h));
    h.clock.advance(chrono::Duration::days(31));
    // The first booking is 91 days old, the second 31: the first three events go, and
    // the quiet customer's only event, its newest, stays to number the next.
    assert_eq!(h.shipping.purge_expired_events(2).unwrap(), 2);
    assert_eq!(h.shipping.purge_expired_events(100).unwrap(), 1);
    assert_eq!(h.shipping.purge_expired_events(100).unwrap(), 0);
    let kept: Vec<i64> = all(&h, &id).iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(kept, [4, 5]);
    assert_eq!(all(&h, &quiet).len(), 1);
    let gone = h.get(&Harness::path(&id, "/events?after=2"));
    gone.assert_error_without_details(410, "GONE");
    assert!(gone.body["error"].as_str().unwrap().contains("the oldest cursor kept is 3"), "{}", gone.body);
    h.get(&Harness::path(&id, "/events?after=0")).assert_error_without_details(410, "GONE");
    assert_eq!(events(&h, &id, "?after=3")["events"].as_array().unwrap().len(), 2);
    h.book(&id, &shipped_today(&h));
    let numbers: Vec<i64> = all(&h, &id).iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(numbers, [4, 5, 6, 7], "numbering goes on after a purge");
    h.book(&quiet, &shipped_today(&h));
    let quiet_numbers: Vec<i64> = all(&h, &quiet).iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(quiet_numbers, [1, 2, 3]);
}

#[test]
fn the_typed_method_answers_as_the_route_and_customers_see_only_their_own() {
    let h = Harness::new();
    let ann = h.shipper("ann@example.com");
    let bo = h.shipper("bo@example.com");
    h.book(&ann, &book_body());
    let typed = h.shipping.events(consign::CustomerId(&ann), Some("1"), Some("shipment.*"), Some(5)).unwrap();
    let routed = events(&h, &ann, "?after=1&types=shipment.*&limit=5");
    assert_eq!(serde_json::to_value(&typed).unwrap(), routed);
    assert_eq!(types(&all(&h, &bo)), ["prepay.recharged"]);
    assert!(all(&h, &bo).iter().all(|e| !e.to_string().contains(&ann)), "nothing of ann's in bo's feed");
}

/// One step of a random sequence of changes.
#[derive(Debug, Clone)]
enum Step {
    /// Book the test shipment, fulfilling the `n`th order put so far when `Some`.
    Book(Option<usize>),
    /// Void the `n`th booking so far.
    Void(usize),
    /// Record an event of status `STATUSES[s]`, `h` hours after booking, for the `n`th booking.
    Track(usize, usize, u32),
    /// Put order `ORD-n` (create or replace).
    PutOrder(usize),
    /// Delete order `ORD-n`.
    DeleteOrder(usize),
    /// Schedule a pickup of the `n`th booking.
    Pickup(usize),
    /// Cancel the `n`th pickup so far.
    CancelPickup(usize),
}

const STATUSES: [&str; 4] = ["In Transit", "Out for Delivery", "Delivered", "Exception"];

fn any_step() -> impl proptest::strategy::Strategy<Value = Step> {
    use proptest::prelude::*;
    prop_oneof![
        3 => proptest::option::of(0usize..3).prop_map(Step::Book),
        1 => any::<usize>().prop_map(Step::Void),
        2 => (any::<usize>(), 0..STATUSES.len(), 1u32..200).prop_map(|(n, s, h)| Step::Track(n, s, h)),
        2 => (0usize..3).prop_map(Step::PutOrder),
        1 => (0usize..3).prop_map(Step::DeleteOrder),
        1 => any::<usize>().prop_map(Step::Pickup),
        1 => any::<usize>().prop_map(Step::CancelPickup),
    ]
}

/// Runs `steps` for customer `id` (errors are part of the game: a void of a scanned
/// shipment, an order already gone), then rebuilds every shipment, order, pickup and
/// ledger entry from the feed alone and compares each with what its route answers.
fn rebuilt_from_the_feed(h: &Harness, id: &str, integration: &str, steps: &[Step]) -> Result<(), proptest::test_runner::TestCaseError> {
    use proptest::prop_assert_eq;
    let mut books: Vec<String> = Vec::new();
    let mut pickups: Vec<String> = Vec::new();
    let order_path = |n: usize| Harness::path(id, &format!("/integrations/{integration}/orders/ORD-{n}"));
    for step in steps {
        match *step {
            Step::Book(order) => {
                let mut body = book_body();
                if let Some(n) = order {
                    body["fulfillment"] = json!({"orderId": format!("ORD-{n}"), "integrationId": integration, "items": []});
                }
                if let Some(book) = h.book_with(id, &body).body["bookNumber"].as_str() {
                    books.push(book.to_string());
                }
            }
            Step::Void(n) if !books.is_empty() => {
                h.call("POST", &Harness::path(id, &format!("/shipments/{}", books[n % books.len()])), &json!({"voided": true}));
            }
            Step::Track(n, s, hours) if !books.is_empty() => {
                let book = &books[n % books.len()];
                let shipment = h.get(&Harness::path(id, &format!("/shipments/{book}"))).body;
                let time = (chrono::NaiveDate::from_ymd_opt(2026, 11, 21).unwrap().and_hms_opt(15, 0, 0).unwrap()
                    + chrono::Duration::hours(i64::from(hours)))
                .format("%Y-%m-%d %H:%M:%S")
                .to_string();
                let event = json!({"trackingNumber": shipment["trackingNumber"], "carrier": "postal", "event": "Scanned",
                    "eventStatus": STATUSES[s], "eventTime": time, "serviceArea": "Memphis, TN", "serviceAreaCountry": "US"});
                h.call("POST", &Harness::path(id, &format!("/shipments/{book}/tracking-events")), &json!({"events": [event]}));
            }
            Step::PutOrder(n) => {
                h.call("PUT", &order_path(n), &order_body(&format!("ORD-{n}")));
            }
            Step::DeleteOrder(n) => {
                h.delete(&order_path(n));
            }
            Step::Pickup(n) if !books.is_empty() => {
                let a = h.call("POST", &Harness::path(id, "/pickups"), &pickup_body("postal", &[&books[n % books.len()]]));
                if let Some(p) = a.body["pickupId"].as_str() {
                    pickups.push(p.to_string());
                }
            }
            Step::CancelPickup(n) if !pickups.is_empty() => {
                h.call("POST", &Harness::path(id, &format!("/pickups/{}", pickups[n % pickups.len()])), &json!({"cancelled": true}));
            }
            _ => {}
        }
    }
    // The feed, read a page of 7 at a time.
    let mut feed = Vec::new();
    let mut cursor = "0".to_string();
    loop {
        let page = events(h, id, &format!("?after={cursor}&limit=7"));
        feed.extend(page["events"].as_array().unwrap().iter().cloned());
        cursor = page["nextCursor"].as_str().unwrap().to_string();
        if page["hasMore"] == false {
            break;
        }
    }
    let numbers: Vec<i64> = feed.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    prop_assert_eq!(numbers, (1..=feed.len() as i64).collect::<Vec<_>>());
    let mut shipments = std::collections::BTreeMap::new();
    let mut orders = std::collections::BTreeMap::new();
    let mut pickup_views = std::collections::BTreeMap::new();
    let mut entries = Vec::new();
    let mut statuses = std::collections::BTreeMap::new();
    for e in &feed {
        let (kind, subject, data) = (e["type"].as_str().unwrap(), e["subjectId"].as_str().unwrap().to_string(), e["data"].clone());
        match kind.split_once('.').unwrap() {
            ("shipment", "booked" | "voided") => drop(shipments.insert(subject, data)),
            ("tracking", "updated") => drop(statuses.insert(subject, data["status"].clone())),
            ("order", "deleted") => drop(orders.insert(subject, Value::Null)),
            ("order", _) => drop(orders.insert(subject, data)),
            ("pickup", _) => drop(pickup_views.insert(subject, data)),
            ("prepay", _) => entries.push(data),
            _ => {}
        }
    }
    for book in &books {
        let view = h.get(&Harness::path(id, &format!("/shipments/{book}"))).body;
        prop_assert_eq!(shipments.get(book), Some(&view), "shipment {}", book);
        let tracked = h.get(&Harness::path(id, &format!("/shipments/{book}/tracking-information"))).body;
        if let Some(status) = statuses.get(book) {
            prop_assert_eq!(status, &tracked[0]["eventStatus"], "the latest status of {}", book);
        }
    }
    for n in 0..3 {
        let order = h.get(&order_path(n));
        let key = format!("{integration}/ORD-{n}");
        let expected = if order.status == 200 { Some(order.body) } else { orders.get(&key).map(|_| Value::Null) };
        prop_assert_eq!(orders.get(&key), expected.as_ref(), "order {}", key);
    }
    for p in &pickups {
        prop_assert_eq!(pickup_views.get(p), Some(&h.get(&Harness::path(id, &format!("/pickups/{p}"))).body), "pickup {}", p);
    }
    let mut ledger = h.get(&Harness::path(id, "/prepay")).body["entries"].as_array().unwrap().clone();
    ledger.reverse();
    prop_assert_eq!(entries, ledger, "the ledger, oldest first");
    Ok(())
}

/// Random sequences of changes: the feed alone rebuilds what every route shows, and is
/// numbered 1, 2, 3... without a gap.
#[test]
fn the_feed_alone_rebuilds_every_shipment_order_pickup_and_ledger_entry() {
    use proptest::prelude::*;
    let mut runner =
        proptest::test_runner::TestRunner::new(ProptestConfig { cases: 12, source_file: Some(file!()), ..ProptestConfig::default() });
    let result = runner.run(&proptest::collection::vec(any_step(), 1..=14), |steps| {
        let h = Harness::new();
        let id = h.shipper("ann@example.com");
        let integration = h.integration(&id);
        rebuilt_from_the_feed(&h, &id, &integration, &steps)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// A service whose listener of commits keeps what it is told, a list per call.
fn listened() -> (Harness, std::sync::Arc<std::sync::Mutex<Vec<Vec<Value>>>>) {
    let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = told.clone();
    let clock = std::sync::Arc::new(consign::FixedClock::at(NOW).unwrap());
    let builder = consign::Shipping::builder().clock(clock.clone()).on_commit(move |events| {
        keep.lock().unwrap().push(events.iter().map(|e| serde_json::to_value(e).unwrap()).collect());
    });
    (Harness::with(builder, clock), told)
}

/// The feed of `id` as the listener is told it: `{customerId, event}` each.
fn told_as_feed(h: &Harness, id: &str) -> Vec<Value> {
    all(h, id).into_iter().map(|event| json!({"customerId": id, "event": event})).collect()
}

#[test]
fn the_listener_is_told_each_commits_events_once_committed_and_nothing_of_a_refusal() {
    let (h, told) = listened();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &book_body());
    h.void(&id, &book);
    // Refused: nothing appended, nothing told.
    h.book_with(&id, &without(book_body(), "/receiver")).assert_error(400, "INVALID_REQUEST", None);
    let calls = told.lock().unwrap().clone();
    let kinds: Vec<Vec<&str>> = calls.iter().map(|c| c.iter().map(|e| e["event"]["type"].as_str().unwrap()).collect()).collect();
    assert_eq!(kinds, [vec!["prepay.recharged"], vec!["prepay.charged", "shipment.booked"], vec!["shipment.voided", "prepay.refunded"]]);
    assert_eq!(calls.concat(), told_as_feed(&h, &id));
}

#[test]
fn a_group_is_told_once_after_its_commit_and_a_quote_that_failed_to_book_is_not_told() {
    let (h, told) = listened();
    let id = h.shipper("ann@example.com");
    let quotes = h.quote_one(&id, quote_shipment());
    let ids: Vec<i64> = quotes["quotes"].as_array().unwrap().iter().take(2).map(|q| q["quoteId"].as_i64().unwrap()).collect();
    let batch = h.call("POST", &Harness::path(&id, "/batch"), &json!({})).expect(201)["batchId"].as_str().unwrap().to_string();
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": ids})).expect(200);
    told.lock().unwrap().clear();
    // Two bookings committed together, then a batch book whose second quote expired.
    h.shipping
        .commit_together(|| {
            h.book(&id, &book_body());
            h.book(&id, &book_body());
        })
        .unwrap();
    let grouped = told.lock().unwrap().len();
    // SQLite commits the group once; PostgreSQL commits each write on its own.
    assert_eq!(grouped, if h.database.is_some() { 2 } else { 1 });
    h.clock.advance(chrono::Duration::days(31));
    let r = h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch, "approvePrepayRecharge": true}));
    assert_eq!(r.expect(200)["results"][0]["status"], "error", "{}", r.body);
    let calls = told.lock().unwrap().clone();
    assert_eq!(calls.len(), grouped, "a batch book that booked nothing appends nothing: {calls:?}");
    let feed = told_as_feed(&h, &id);
    assert_eq!(calls.concat(), feed[feed.len() - calls.concat().len()..]);
}

#[test]
fn the_listener_runs_after_the_commit_when_another_connection_sees_the_events() {
    if std::env::var_os("CONSIGN_TEST_PG").is_some() {
        return; // a file of SQLite's: what a second connection to it sees
    }
    let path = std::env::temp_dir().join(format!("consign-events-listener-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (keep, file) = (seen.clone(), path.clone());
    let clock = std::sync::Arc::new(consign::FixedClock::at(NOW).unwrap());
    let shipping = consign::Shipping::builder()
        .path(&path)
        .clock(clock)
        .on_commit(move |events| {
            // Another connection to the file sees what the listener is told.
            let other = consign::Shipping::open(&file).unwrap();
            let customer = consign::CustomerId(&events[0].customer_id);
            let feed = other.events(customer, None, None, None).unwrap();
            keep.lock().unwrap().push((events.len(), feed.events.last().map(|e| e.id) == events.last().map(|e| e.event.id)));
        })
        .open()
        .unwrap();
    assert_eq!(shipping.handle("POST", "/restapi/v1/customers", &customer_body("ann@example.com").to_string()).status, 201);
    assert_eq!(*seen.lock().unwrap(), [(1, true)]);
    drop(shipping);
    let _ = std::fs::remove_file(&path);
}
