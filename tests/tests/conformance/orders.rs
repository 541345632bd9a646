//! Put order (4.2), get and delete it (DECISIONS 9), and the fulfilment status bookings
//! move (DECISIONS 6).

use consign_conformance::*;
use serde_json::{json, Value};

fn order_path(id: &str, integration: &str, order: &str) -> String {
    Harness::path(id, &format!("/integrations/{integration}/orders/{order}"))
}

fn put(h: &Harness, id: &str, integration: &str, order: &str, body: &Value) -> Answer {
    h.call("PUT", &order_path(id, integration, order), body)
}

/// A shipper with an integration and order `SO-1` (lines L1 x2, L2 x1).
fn setup(h: &Harness) -> (String, String) {
    let id = h.shipper("ann@example.com");
    let integration = h.integration(&id);
    assert_eq!(put(h, &id, &integration, "SO-1", &order_body("SO-1")).expect(201), &json!({"ok": true}));
    (id, integration)
}

fn status(h: &Harness, id: &str, integration: &str) -> String {
    h.get(&order_path(id, integration, "SO-1")).expect(200)["fulfillmentStatus"].as_str().unwrap().to_string()
}

fn ship(integration: &str, items: Value) -> Value {
    with(book_body(), "/fulfillment", json!({"integrationId": integration, "orderId": "SO-1", "items": items}))
}

#[test]
fn an_order_is_put_and_read_back() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let a = h.get(&order_path(&id, &integration, "SO-1"));
    let o = a.expect(200);
    assert_eq!(o["orderId"], "SO-1");
    assert_eq!(o["orderNumber"], "SO-5001");
    assert_eq!(o["fulfillmentStatus"], "pending");
    assert_eq!(o["shipperReference"], "SO-5001", "defaults to the order number");
    assert_eq!(o["items"][0]["lineId"], "L1");
    assert_eq!(o["packages"][0]["weight"], json!(2));
    assert_eq!(o["receiver"]["city"], "Los Angeles");
    assert_eq!(o["orderGroup"], Value::Null);
}

#[test]
fn an_empty_price_and_quantity_of_a_line_read_as_absent() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let body = with(with(order_body("SO-2"), "/items/0/price", json!("")), "/items/0/quantity", json!(" "));
    put(&h, &id, &integration, "SO-2", &body).expect(201);
    let order = h.get(&order_path(&id, &integration, "SO-2"));
    let line = &order.expect(200)["items"][0];
    assert_eq!((&line["price"], &line["quantity"]), (&Value::Null, &Value::Null), "{line}");
}

#[test]
fn the_shipper_reference_defaults_to_the_order_id_without_an_order_number() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    put(&h, &id, &integration, "SO-2", &with(order_body("SO-2"), "/orderNumber", Value::Null)).expect(201);
    assert_eq!(h.get(&order_path(&id, &integration, "SO-2")).expect(200)["shipperReference"], "SO-2");
    put(&h, &id, &integration, "SO-3", &with(order_body("SO-3"), "/shipperReference", json!("MY-REF"))).expect(201);
    assert_eq!(h.get(&order_path(&id, &integration, "SO-3")).expect(200)["shipperReference"], "MY-REF");
}

#[test]
fn a_put_replaces_the_order() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let body = with(with(order_body("SO-1"), "/fulfillmentStatus", json!("partial")), "/orderGroup", json!("east"));
    put(&h, &id, &integration, "SO-1", &body).expect(201);
    let o = h.get(&order_path(&id, &integration, "SO-1"));
    assert_eq!(o.expect(200)["fulfillmentStatus"], "partial");
    assert_eq!(o.body["orderGroup"], "east");
    for s in ["pending", "fulfilled", "partial"] {
        put(&h, &id, &integration, "SO-1", &with(order_body("SO-1"), "/fulfillmentStatus", json!(s))).expect(201);
        assert_eq!(status(&h, &id, &integration), s);
    }
}

#[test]
fn the_order_id_must_match_the_path() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    put(&h, &id, &integration, "SO-9", &order_body("SO-8")).assert_error(400, "INVALID_REQUEST", Some("orderId"));
    h.get(&order_path(&id, &integration, "SO-9")).assert_error_without_details(404, "NOT_FOUND");
}

/// The keys the spec marks required with a nullable value, which clients leave out
/// when the value is null.
const NULLABLE_KEYS: [&str; 9] =
    ["orderNumber", "shippingService", "shippingTotal", "weightUnit", "dimUnit", "dueByDate", "orderGroup", "items", "packages"];

#[test]
fn a_missing_nullable_key_reads_as_null() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    // (without items and packages, no weight or dimension needs a unit)
    let plain = without(without(order_body("SO-2"), "/items"), "/packages");
    for key in NULLABLE_KEYS {
        put(&h, &id, &integration, "SO-2", &without(plain.clone(), &format!("/{key}"))).expect(201);
        let o = h.get(&order_path(&id, &integration, "SO-2"));
        assert_eq!(o.expect(200)[key], Value::Null, "{key}");
    }
    let bare = NULLABLE_KEYS.iter().fold(plain, |body, key| without(body, &format!("/{key}")));
    put(&h, &id, &integration, "SO-2", &bare).expect(201);
    let o = h.get(&order_path(&id, &integration, "SO-2"));
    assert_eq!(o.expect(200)["shipperReference"], "SO-2", "without an order number, the reference is the order id");
}

#[test]
fn a_missing_nullable_key_is_null_to_the_rules_too() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    // the items and packages weigh something: a weight unit left out is a null one
    put(&h, &id, &integration, "SO-1", &without(order_body("SO-1"), "/weightUnit")).assert_error(
        400,
        "INVALID_REQUEST",
        Some("weightUnit"),
    );
    put(&h, &id, &integration, "SO-1", &without(order_body("SO-1"), "/dimUnit")).assert_error(400, "INVALID_REQUEST", Some("dimUnit"));
}

#[test]
fn nullable_keys_may_be_null() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let nulls = NULLABLE_KEYS.iter().fold(order_body("SO-1"), |body, key| with(body, &format!("/{key}"), Value::Null));
    put(&h, &id, &integration, "SO-1", &nulls).expect(201);
}

#[test]
fn keys_whose_value_may_not_be_null_stay_required() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let body = order_body("SO-1");
    for key in ["orderId", "orderDate", "fulfillmentStatus", "sender", "receiver"] {
        put(&h, &id, &integration, "SO-1", &without(body.clone(), &format!("/{key}"))).assert_error(400, "INVALID_REQUEST", Some(key));
        put(&h, &id, &integration, "SO-1", &with(body.clone(), &format!("/{key}"), Value::Null)).assert_error(
            400,
            "INVALID_REQUEST",
            Some(key),
        );
    }
    // Optional keys may be left out.
    let mut lean = body;
    for key in ["shipperReference", "shipperReference2", "contentDescription", "returnTo"] {
        lean = without(lean, &format!("/{key}"));
    }
    put(&h, &id, &integration, "SO-1", &lean).expect(201);
}

#[test]
fn enumerations_dates_and_amounts_are_checked() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let body = order_body("SO-1");
    let cases: [(&str, Value); 11] = [
        ("fulfillmentStatus", json!("shipped")),
        ("fulfillmentStatus", json!("Pending")),
        ("weightUnit", json!("oz")),
        ("dimUnit", json!("mm")),
        ("orderDate", json!("yesterday")),
        ("orderDate", json!("2026-13-01")),
        ("dueByDate", json!("21/11/2026")),
        ("shippingTotal", json!("-1")),
        ("shippingTotal", json!("abc")),
        ("shippingTotal", json!(1.234)),
        ("orderNumber", json!(17)),
    ];
    for (key, value) in cases {
        put(&h, &id, &integration, "SO-1", &with(body.clone(), &format!("/{key}"), value.clone())).assert_error(
            400,
            "INVALID_REQUEST",
            Some(key),
        );
    }
    // Numbers may be numeric strings or JSON numbers; an order date may carry a time.
    let ok = with(with(body, "/shippingTotal", json!(9.5)), "/orderDate", json!("2026-11-21T10:15:00Z"));
    put(&h, &id, &integration, "SO-1", &ok).expect(201);
}

#[test]
fn addresses_need_name_address1_city_state_zip_and_country() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let body = order_body("SO-1");
    for party in ["sender", "receiver"] {
        for key in ["name", "address1", "city", "state", "zip", "country"] {
            put(&h, &id, &integration, "SO-1", &without(body.clone(), &format!("/{party}/{key}"))).assert_error(
                400,
                "INVALID_REQUEST",
                Some(&format!("{party}.{key}")),
            );
        }
    }
    put(&h, &id, &integration, "SO-1", &with(body.clone(), "/receiver/state", json!("California"))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("receiver.state"),
    );
    put(&h, &id, &integration, "SO-1", &with(body.clone(), "/returnTo/country", json!("XX"))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("returnTo.country"),
    );
    let mut lean = body;
    for party in ["sender", "receiver"] {
        for key in ["company", "address2", "phone", "email"] {
            lean = without(lean, &format!("/{party}/{key}"));
        }
    }
    put(&h, &id, &integration, "SO-1", &lean).expect(201);
}

#[test]
fn items_are_checked() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let body = order_body("SO-1");
    let cases: [(&str, Value); 7] = [
        ("price", json!("-1")),
        ("quantity", json!(0)),
        ("quantity", json!(1.5)),
        ("quantity", json!("two")),
        ("weight", json!("-0.1")),
        ("countryOfOrigin", json!("USA")),
        ("sku", json!(5)),
    ];
    for (key, value) in cases {
        put(&h, &id, &integration, "SO-1", &with(body.clone(), &format!("/items/0/{key}"), value.clone())).assert_error(
            400,
            "INVALID_REQUEST",
            Some(&format!("items[0].{key}")),
        );
    }
    put(&h, &id, &integration, "SO-1", &with(body.clone(), "/items", json!([{}]))).expect(201);
    put(&h, &id, &integration, "SO-1", &with(body, "/items", json!([]))).expect(201);
}

#[test]
fn an_order_holds_at_most_a_thousand_lines() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let lines = |n: usize| Value::Array((0..n).map(|i| json!({"lineId": format!("L{i}"), "quantity": 1})).collect());
    put(&h, &id, &integration, "SO-1", &with(order_body("SO-1"), "/items", lines(1001))).assert_error(400, "LIMIT_EXCEEDED", Some("items"));
    put(&h, &id, &integration, "SO-1", &with(order_body("SO-1"), "/items", lines(1000))).expect(201);
}

#[test]
fn packages_are_checked_and_declared_values_only_go_abroad() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let body = order_body("SO-1");
    for (key, value) in [("weight", json!("-1")), ("weight", json!("abc")), ("length", json!(-2)), ("insuranceAmount", json!("-5"))] {
        put(&h, &id, &integration, "SO-1", &with(body.clone(), &format!("/packages/0/{key}"), value)).assert_error(
            400,
            "INVALID_REQUEST",
            Some(&format!("packages[0].{key}")),
        );
    }
    let declared = with(body.clone(), "/packages/0/declaredValue", json!("50"));
    put(&h, &id, &integration, "SO-1", &declared).assert_error(400, "INVALID_REQUEST", Some("packages[0].declaredValue"));
    put(&h, &id, &integration, "SO-1", &with(declared, "/receiver", gb_address())).expect(201);
    // Weights need a unit, dimensions a dimension unit.
    put(&h, &id, &integration, "SO-1", &with(body.clone(), "/weightUnit", Value::Null)).assert_error(
        400,
        "INVALID_REQUEST",
        Some("weightUnit"),
    );
    put(&h, &id, &integration, "SO-1", &with(body.clone(), "/dimUnit", Value::Null)).assert_error(400, "INVALID_REQUEST", Some("dimUnit"));
    put(&h, &id, &integration, "SO-1", &with(body, "/packages", json!([{"weight": null}]))).expect(201);
}

#[test]
fn unknown_and_foreign_integrations_and_orders_are_not_found() {
    let h = Harness::new();
    let (ann, integration) = setup(&h);
    let bo = h.shipper("bo@example.com");
    let bo_integration = h.integration(&bo);
    put(&h, &bo, &integration, "SO-1", &order_body("SO-1")).assert_error_without_details(404, "NOT_FOUND");
    h.get(&order_path(&bo, &integration, "SO-1")).assert_error_without_details(404, "NOT_FOUND");
    h.delete(&order_path(&bo, &integration, "SO-1")).assert_error_without_details(404, "NOT_FOUND");
    h.get(&order_path(&ann, &bo_integration, "SO-1")).assert_error_without_details(404, "NOT_FOUND");
    put(&h, &ann, "I9999999", "SO-1", &order_body("SO-1")).assert_error_without_details(404, "NOT_FOUND");
    h.get(&order_path(&ann, &integration, "SO-404")).assert_error_without_details(404, "NOT_FOUND");
    put(&h, "C9999999", &integration, "SO-1", &order_body("SO-1")).assert_error_without_details(404, "NOT_FOUND");
    // The owner still has it.
    h.get(&order_path(&ann, &integration, "SO-1")).expect(200);
}

#[test]
fn an_order_is_deleted_once() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    assert_eq!(h.delete(&order_path(&id, &integration, "SO-1")).expect(200), &json!({"ok": true}));
    h.get(&order_path(&id, &integration, "SO-1")).assert_error_without_details(404, "NOT_FOUND");
    h.delete(&order_path(&id, &integration, "SO-1")).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn order_ids_are_decoded_from_the_path() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    put(&h, &id, &integration, "SO%2F7%20A", &order_body("SO/7 A")).expect(201);
    assert_eq!(h.get(&order_path(&id, &integration, "SO%2F7%20A")).expect(200)["orderId"], "SO/7 A");
}

#[test]
fn wrong_methods_are_not_allowed() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    h.call("POST", &order_path(&id, &integration, "SO-1"), &order_body("SO-1")).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
}

#[test]
fn bookings_move_the_status_by_shipped_quantities_and_voids_move_it_back() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let first = h.book(&id, &ship(&integration, json!([{"lineId": "L1", "quantity": 1}])));
    assert_eq!(status(&h, &id, &integration), "partial");
    let second = h.book(&id, &ship(&integration, json!([{"productId": "P-1", "quantity": 1}, {"sku": "BOWL", "quantity": 1}])));
    assert_eq!(status(&h, &id, &integration), "fulfilled");
    h.void(&id, &second);
    assert_eq!(status(&h, &id, &integration), "partial");
    h.void(&id, &first);
    assert_eq!(status(&h, &id, &integration), "pending");
}

#[test]
fn a_fulfilment_without_items_ships_the_whole_order() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    h.book(&id, &ship(&integration, json!([])));
    assert_eq!(status(&h, &id, &integration), "fulfilled");
}

#[test]
fn a_fulfilment_ships_at_most_a_thousand_items_and_a_longer_one_writes_nothing() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let before = h.get(&Harness::path(&id, "/prepay")).expect(200).clone();
    let items = Value::Array((0..1001).map(|_| json!({"lineId": "L1", "quantity": 1})).collect());
    h.book_with(&id, &ship(&integration, items)).assert_error(400, "LIMIT_EXCEEDED", Some("fulfillment.items"));
    assert_eq!(h.get(&Harness::path(&id, "/prepay")).expect(200), &before);
    assert_eq!(status(&h, &id, &integration), "pending");
}

#[test]
fn booking_for_a_missing_order_is_not_found_and_writes_nothing() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    let before = h.get(&Harness::path(&id, "/prepay")).expect(200).clone();
    let body = with(ship(&integration, json!([])), "/fulfillment/orderId", json!("SO-404"));
    h.book_with(&id, &body).assert_error(404, "NOT_FOUND", Some("fulfillment.orderId"));
    assert_eq!(h.get(&Harness::path(&id, "/prepay")).expect(200), &before);
    assert!(h.found(&id, "Kim Studio").is_empty());
}

#[test]
fn shipped_items_must_match_a_line_and_not_exceed_it() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    h.book_with(&id, &ship(&integration, json!([{"lineId": "L9", "quantity": 1}]))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("fulfillment.items[0]"),
    );
    h.book_with(&id, &ship(&integration, json!([{"lineId": "L2", "quantity": 2}]))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("fulfillment.items[0].quantity"),
    );
    h.book(&id, &ship(&integration, json!([{"lineId": "L1", "quantity": 2}])));
    h.book_with(&id, &ship(&integration, json!([{"sku": "MUG-BLUE", "quantity": 1}]))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("fulfillment.items[0].quantity"),
    );
    assert_eq!(status(&h, &id, &integration), "partial");
}

#[test]
fn a_foreign_integration_cannot_be_fulfilled() {
    let h = Harness::new();
    let (_, integration) = setup(&h);
    let bo = h.shipper("bo@example.com");
    h.book_with(&bo, &ship(&integration, json!([]))).assert_error(400, "INVALID_REQUEST", Some("fulfillment.integrationId"));
}

#[test]
fn search_shows_the_fulfilment_of_a_shipment() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    h.book(&id, &ship(&integration, json!([{"lineId": "L1", "productId": "P-1", "sku": "MUG-BLUE", "quantity": 2}])));
    let s = h.search(&id, "SO-1").expect(200)["shipments"][0].clone();
    assert_eq!(
        s["fulfillment"],
        json!({"orderId": "SO-1", "integrationId": integration, "items": [{"productId": "P-1", "sku": "MUG-BLUE", "lineId": "L1", "quantity": 2}]})
    );
}

#[test]
fn retrieve_and_search_show_the_order_id_and_number_at_the_top() {
    let h = Harness::new();
    let (id, integration) = setup(&h);
    // the booking names no order number: the order's shows
    let book = h.book(&id, &without(ship(&integration, json!([])), "/orderNumber"));
    let retrieved = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200).clone();
    assert_eq!((&retrieved["orderId"], &retrieved["orderNumber"]), (&json!("SO-1"), &json!("SO-5001")), "{retrieved}");
    let found = h.search(&id, "SO-1").expect(200)["shipments"][0].clone();
    assert_eq!((&found["orderId"], &found["orderNumber"]), (&json!("SO-1"), &json!("SO-5001")), "{found}");
    // and the list of shipments is the same view
    let listed = h.get(&Harness::path(&id, "/shipments")).expect(200)["shipments"][0].clone();
    assert_eq!(listed["orderId"], "SO-1");
}

#[test]
fn a_shipment_of_no_order_has_a_null_order_id() {
    let h = Harness::new();
    let (id, _) = setup(&h);
    let book = h.book(&id, &book_body());
    let retrieved = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200).clone();
    assert_eq!(retrieved["orderId"], Value::Null, "{retrieved}");
    assert_eq!(retrieved["orderNumber"], "SO-5001", "the booking's own order number");
}
