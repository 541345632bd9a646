//! One flow through the package, written once and run twice: natively on
//! `consign::Shipping::handle` (tests/native_flow.rs, which keeps the fixture
//! `tests/fixtures/flow.json`) and in Node on the WASM `Shipping` class (tests/node.rs,
//! which compares its answers with that fixture). Both run at [`NOW`] on a fixed clock.
//!
//! A step names the package method and its arguments; to cover a new operation, add a
//! step below (and its route in `tests/native_flow.rs`).

use serde_json::{json, Value};

/// The fixed instant of the flow: Saturday 2026-11-21, 15:00 UTC.
pub const NOW: &str = "2026-11-21T15:00:00Z";

/// Calls a method of the package: `op` is its camelCase name, `args` its arguments
/// (strings, or objects passed as plain JS objects). The answer is the JSON the method
/// returned, or `{"thrown": {"status", "errorCategory", "message", "details"}}`.
pub trait Driver {
    fn call(&mut self, op: &str, args: &[Value]) -> Value;
}

/// Runs the flow and returns each step's name and answer, in order.
pub fn run(d: &mut impl Driver) -> Vec<(String, Value)> {
    let mut steps = Vec::new();
    let mut step = |name: &str, op: &str, args: &[Value], d: &mut dyn FnMut(&str, &[Value]) -> Value| {
        let answer = d(op, args);
        steps.push((name.to_string(), answer.clone()));
        answer
    };
    let d = &mut |op: &str, args: &[Value]| d.call(op, args);

    let created = step("create customer", "createCustomer", &[customer_body("ann@example.com")], d);
    let id = json!(created["customerId"].as_str().unwrap_or("missing"));
    step("set payment method", "updatePaymentMethod", &[id.clone(), payment_body()], d);
    step("list services", "listServices", std::slice::from_ref(&id), d);
    let quoted = step("batch quote", "batchQuote", &[id.clone(), json!({"shipments": [domestic(), international()]})], d);

    // Book the cheapest quote of the domestic shipment, as the demo page does.
    let cheapest = quoted["results"][0]["quotes"]
        .as_array()
        .and_then(|qs| {
            qs.iter().min_by(|a, b| a["totalAmount"].as_f64().partial_cmp(&b["totalAmount"].as_f64()).unwrap_or(std::cmp::Ordering::Equal))
        })
        .cloned()
        .unwrap_or(Value::Null);
    let mut booking = domestic();
    for key in ["carrierCode", "serviceCode", "packageTypeCode", "quoteId"] {
        booking[key] = cheapest[key].clone();
    }
    booking["approvePrepayRecharge"] = json!(true);
    let booked = step("book shipment", "bookShipment", &[id.clone(), booking.clone()], d);
    let book = json!(booked["bookNumber"].as_str().unwrap_or("missing"));
    step("retrieve shipment", "shipment", &[id.clone(), book.clone()], d);
    step("list shipments", "shipments", &[id.clone(), json!({"limit": 10})], d);
    step("label", "label", &[id.clone(), book.clone(), json!("PDF")], d);
    step("prepay", "prepay", std::slice::from_ref(&id), d);
    step("search", "searchShipments", &[id.clone(), json!({"keyword": "kim"})], d);
    let tracking = booked["trackingNumber"].clone();
    let event = json!({"trackingNumber": tracking, "carrier": booked_carrier(&cheapest), "event": "Departed the origin facility",
        "eventStatus": "In Transit", "eventTime": "2026-11-22 08:15:00", "serviceArea": "Philadelphia, PA", "serviceAreaCountry": "US"});
    step("record tracking events", "recordTrackingEvents", &[id.clone(), book.clone(), json!({"events": [event]})], d);
    step("track", "trackingInformation", &[id.clone(), book.clone()], d);
    let mut pickup = flat(&address());
    pickup["carrierCode"] = cheapest["carrierCode"].clone();
    pickup["pickupDate"] = json!("2026-11-23");
    pickup["readyTime"] = json!("10:00:00");
    pickup["closeTime"] = json!("16:00:00");
    pickup["bookNumbers"] = json!([book.clone()]);
    step("schedule pickup", "schedulePickup", &[id.clone(), pickup], d);
    let mut manifest = flat(&address());
    manifest["carrierCode"] = cheapest["carrierCode"].clone();
    manifest["bookNumbers"] = json!([book.clone()]);
    step("create manifest", "createManifest", &[id.clone(), manifest], d);
    let integration = step("create integration", "createIntegration", &[id.clone(), json!({"name": "web shop"})], d);
    let integration_id = integration["integrationId"].clone();
    step("put order", "putOrder", &[id.clone(), integration_id.clone(), json!("ORD-1"), order()], d);
    step("get order", "order", &[id.clone(), integration_id, json!("ORD-1")], d);
    // The carrier has the first shipment (scanned, on a manifest): its void is refused.
    step("void a shipment in the carrier's hands", "voidShipment", &[id.clone(), book.clone()], d);
    // A Priority Mail booking with a scan-based return label, and that label.
    let mut returnable = domestic();
    for (key, value) in [("carrierCode", "postal"), ("serviceCode", "postal_priority_mail"), ("packageTypeCode", "postal_custom")] {
        returnable[key] = json!(value);
    }
    returnable["approvePrepayRecharge"] = json!(true);
    returnable["scanBasedReturnLabel"] = json!(true);
    let returnable = step("book with a return label", "bookShipment", &[id.clone(), returnable], d);
    let returnable = json!(returnable["bookNumber"].as_str().unwrap_or("missing"));
    step("return label", "returnLabel", &[id.clone(), returnable, json!("ZPL")], d);
    // Another like the first, priced anew, not handed over: its void refunds it.
    let mut again = booking;
    again.as_object_mut().map(|b| b.remove("quoteId"));
    let second = step("book another shipment", "bookShipment", &[id.clone(), again], d);
    let second = json!(second["bookNumber"].as_str().unwrap_or("missing"));
    step("void shipment", "voidShipment", &[id.clone(), second.clone()], d);

    // The error path: thrown errors carry status, errorCategory and details.
    let mut texas = customer_body("bo@example.com");
    texas["mailingAddress"]["state"] = json!("Texas");
    step("invalid customer", "createCustomer", &[texas], d);
    step("unknown customer", "listServices", &[json!("C9999999")], d);
    step("duplicate e-mail", "createCustomer", &[customer_body("ann@example.com")], d);
    step("void twice", "voidShipment", &[id.clone(), second], d);
    steps
}

/// The carrier of the booked quote.
fn booked_carrier(quote: &Value) -> Value {
    quote["carrierCode"].clone()
}

/// The flat address fields of pickup and manifest requests.
fn flat(address: &Value) -> Value {
    let mut flat = json!({});
    for key in ["name", "company", "address1", "address2", "city", "state", "zip", "country", "phone"] {
        flat[key] = address[key].clone();
    }
    flat
}

/// An order of 4.2: every required key, nullable ones null.
fn order() -> Value {
    json!({
        "orderId": "ORD-1", "orderDate": "2026-11-20", "orderNumber": "1042", "fulfillmentStatus": "pending",
        "shippingService": null, "shippingTotal": "7.50", "weightUnit": "lb", "dimUnit": "in", "dueByDate": null, "orderGroup": null,
        "sender": address(), "receiver": {"name": "Bo Kim", "address1": "9 Elm St", "city": "Los Angeles", "state": "CA", "zip": "90012", "country": "US"},
        "items": [{"productId": "MUG-1", "sku": "MUG-1", "title": "Mug", "price": "20.00", "quantity": 2, "lineId": "L1"}],
        "packages": null
    })
}

fn address() -> Value {
    json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "Suite 4",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142",
        "email": "ann@leeceramics.example"})
}

fn customer_body(email: &str) -> Value {
    json!({
        "profileCode": "Default", "email": email, "password": "glaze-and-fire",
        "mailingAddress": address(), "billingAddress": address(),
        "prepaySettings": {"minimumBalance": "50.00", "rechargeAmount": "200.00"}
    })
}

fn payment_body() -> Value {
    json!({"billingAddress": {"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "Suite 4",
            "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US"},
        "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": "tok_visa_4242"}})
}

fn domestic() -> Value {
    json!({
        "shipmentDate": "2026-11-23", "shipmentReference": "INV-1001", "contentDescription": "ceramics",
        "sender": address(),
        "receiver": {"name": "Bo Kim", "company": "", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
            "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199", "email": ""},
        "residential": false, "signatureOptionCode": null, "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]
    })
}

fn international() -> Value {
    json!({
        "shipmentDate": "2026-11-23", "shipmentReference": "INV-2001", "contentDescription": "ceramics",
        "sender": address(),
        "receiver": {"name": "Jo Smith", "company": "Smith & Co", "address1": "1 High St", "address2": "", "city": "London",
            "state": "", "zip": "SW1A 1AA", "country": "GB", "phone": "+44 20 7946 0958"},
        "weightUnit": "kg", "dimUnit": "cm", "currency": "USD",
        "pieces": [{"weight": "1.2", "length": "30", "width": "20", "height": "10", "insuranceAmount": null, "declaredValue": "80"}]
    })
}

/// The flow's answers as the fixture's JSON: `[{"step": name, "answer": ...}, ...]`.
pub fn to_fixture(steps: &[(String, Value)]) -> Value {
    Value::Array(steps.iter().map(|(name, answer)| json!({"step": name, "answer": answer})).collect())
}
