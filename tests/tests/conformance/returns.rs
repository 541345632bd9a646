//! Scan-based return labels (4.5 `scanBasedReturnLabel`, carrier B): a second label from
//! the receiver back to `returnTo` (the sender when absent) under its own tracking
//! number, `GET .../shipments/:bookNumber/return-label/:labelImageFormat`, and pay on
//! use: nothing at booking, the reversed route's price on the first scan, once, as a
//! debt when the balance cannot pay it; a void voids the return label too.

use consign::{wire, ErrorCategory, TrackingKind};
use consign_conformance::*;
use lopdf::Document;
use serde_json::{json, Value};

fn decode(s: &Value) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s.as_str().unwrap()).unwrap()
}

/// Priority Mail from Philadelphia to Los Angeles with a scan-based return label.
fn with_return() -> Value {
    with(book_body(), "/scanBasedReturnLabel", json!(true))
}

/// A warehouse in San Diego that returns go to: near the receiver in Los Angeles, so the
/// reversed route's zone is not the outbound's.
fn warehouse() -> Value {
    json!({"name": "Returns Desk", "company": "Lee Ceramics", "address1": "1 Harbor Dr", "address2": "Dock 3",
        "city": "San Diego", "state": "CA", "zip": "92101", "country": "US", "phone": "619-555-0100"})
}

/// A money amount of an answer (a JSON number or string) as the ledger writes it.
fn money(v: &Value) -> String {
    v.as_str().map_or_else(|| format!("{:.2}", v.as_f64().unwrap()), String::from)
}

/// Books `body` for `id`: (book number, the answer).
fn book(h: &Harness, id: &str, body: &Value) -> (String, Value) {
    let b = h.book_with(id, body).expect(201).clone();
    (b["bookNumber"].as_str().unwrap().to_string(), b)
}

fn return_label(h: &Harness, id: &str, book: &str, format: &str) -> Answer {
    h.get(&Harness::path(id, &format!("/shipments/{book}/return-label/{format}")))
}

/// The text of the one-page PDF of a label answer.
fn pdf_text(answer: &Value) -> (Document, String) {
    let images = answer["base64Images"].as_array().unwrap();
    assert_eq!(images.len(), 1, "one return label");
    let doc = Document::load_mem(&decode(&images[0])).unwrap();
    let text = doc.extract_text(&[1]).unwrap();
    (doc, text)
}

fn feed(h: &Harness, id: &str, book: &str, tracking: &str, status: &str, time: &str) -> Answer {
    let event = json!({"trackingNumber": tracking, "carrier": "postal", "event": format!("{status} at the post office"),
        "eventStatus": status, "eventTime": time, "serviceArea": "Los Angeles, CA", "serviceAreaCountry": "US"});
    h.call("POST", &Harness::path(id, &format!("/shipments/{book}/tracking-events")), &json!({ "events": [event] }))
}

/// A carrier's `In Transit` event of `time` at `area` (US), for the carrier-keyed feed.
fn scan(event: &str, time: &str, area: &str) -> wire::CarrierEvent {
    wire::CarrierEvent {
        event: event.into(),
        event_status: "In Transit".into(),
        event_time: time.into(),
        service_area: area.into(),
        service_area_country: "US".into(),
    }
}

fn prepay(h: &Harness, id: &str) -> Value {
    h.get(&Harness::path(id, "/prepay")).expect(200).clone()
}

/// The ledger charges (newest first) whose reference names `text` (recharges made for
/// them name it too, and are left out).
fn charges_naming(h: &Harness, id: &str, text: &str) -> Vec<Value> {
    let entries = prepay(h, id)["entries"].as_array().unwrap().clone();
    entries.into_iter().filter(|e| e["kind"] == "charge" && e["reference"].as_str().unwrap().contains(text)).collect()
}

/// What a quote of the same service prices from Los Angeles back to `to`: the reversed
/// route, without the outbound's options.
fn reversed_price(h: &Harness, id: &str, to: Value) -> String {
    let mut s = quote_shipment();
    s["sender"] = la_address();
    s["receiver"] = to;
    s["pieces"] = json!([{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]);
    let result = h.quote_one(id, s);
    let quote = quotes_of(&result, "postal")
        .into_iter()
        .find(|q| q["serviceCode"] == "postal_priority_mail" && q["packageTypeCode"] == "postal_custom")
        .unwrap_or_else(|| panic!("Priority Mail is quoted: {result}"))
        .clone();
    format!("-{}", money(&quote["totalAmount"]))
}

#[test]
fn the_answer_gives_a_valid_return_tracking_number_of_its_own() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (_, b) = book(&h, &id, &with_return());
    let ret = b["returnTrackingNumber"].as_str().expect("returnTrackingNumber");
    assert!(TrackingKind::Postal.is_valid(ret), "{ret} is an IMpb number");
    assert_ne!(ret, b["trackingNumber"]);
    let (_, second) = book(&h, &id, &with_return());
    assert_ne!(second["returnTrackingNumber"], b["returnTrackingNumber"], "each return label has its own number");
    assert_ne!(second["trackingNumber"].as_str(), Some(ret), "outbound and return numbers never meet");
    // a booking without a return label answers as before
    let (_, plain) = book(&h, &id, &book_body());
    assert!(plain.get("returnTrackingNumber").is_none(), "{plain}");
}

#[test]
fn the_return_label_goes_from_the_receiver_back_to_the_sender() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book_number, b) = book(&h, &id, &with_return());
    let ret = b["returnTrackingNumber"].as_str().unwrap();
    let answer = return_label(&h, &id, &book_number, "PDF").expect(200).clone();
    assert_eq!(answer["labelImageFormat"], "PDF");
    let (doc, text) = pdf_text(&answer);
    assert_eq!(doc.get_pages().len(), 1);
    assert!(text.contains(ret) && !text.contains(b["trackingNumber"].as_str().unwrap()), "{text}");
    assert!(text.contains("Return Service"), "{text}");
    // FROM is the receiver (Bo Kim, Los Angeles), SHIP TO the sender (Ann Lee, Philadelphia)
    let (from, to) = text.split_once("SHIP TO").unwrap_or_else(|| panic!("{text}"));
    assert!(from.contains("Bo Kim") && from.contains("90012"), "FROM: {from}");
    assert!(to.contains("Ann Lee") && !to.contains("Bo Kim"), "SHIP TO: {to}");
    let outbound = h.get(&Harness::path(&id, &format!("/shipments/{book_number}/label/PDF"))).expect(200).clone();
    let (_, outbound) = pdf_text(&outbound);
    let (_, outbound_to) = outbound.split_once("SHIP TO").unwrap();
    assert!(outbound_to.contains("Bo Kim"), "the outbound label goes the other way: {outbound}");
}

#[test]
fn return_to_is_where_the_return_goes_and_must_then_be_whole() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book_number, _) = book(&h, &id, &with(with_return(), "/returnTo", warehouse()));
    let (_, text) = pdf_text(return_label(&h, &id, &book_number, "pdf").expect(200));
    let (_, to) = text.split_once("SHIP TO").unwrap();
    assert!(to.contains("Returns Desk") && to.contains("92101") && !to.contains("Ann Lee"), "{to}");
    // without a return label, returnTo keeps every field optional
    let partial = json!({"name": "Returns Desk"});
    h.book_with(&id, &with(book_body(), "/returnTo", partial.clone())).expect(201);
    // with one, it is an address the label is printed to
    h.book_with(&id, &with(with_return(), "/returnTo", partial)).assert_error(400, "INVALID_REQUEST", Some("returnTo.address1"));
}

#[test]
fn retrieve_and_search_show_the_return_tracking_number_and_search_finds_by_it() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book_number, b) = book(&h, &id, &with_return());
    let ret = b["returnTrackingNumber"].as_str().unwrap();
    let (plain, _) = book(&h, &id, &book_body());
    let view = h.get(&Harness::path(&id, &format!("/shipments/{book_number}"))).expect(200).clone();
    assert_eq!(view["returnTrackingNumber"], ret);
    let plain_view = h.get(&Harness::path(&id, &format!("/shipments/{plain}"))).expect(200).clone();
    assert_eq!(plain_view["returnTrackingNumber"], Value::Null, "null when booked without one");
    let found = h.search(&id, ret).expect(200).clone();
    let shipments = found["shipments"].as_array().unwrap();
    assert_eq!(shipments.len(), 1, "{found}");
    assert_eq!(shipments[0]["bookNumber"], book_number.as_str());
    assert_eq!(shipments[0]["returnTrackingNumber"], ret);
}

#[test]
fn the_return_label_prints_in_zpl_and_on_office_sheets_but_not_in_a_format_the_carrier_lacks() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book_number, b) = book(&h, &id, &with_return());
    let ret = b["returnTrackingNumber"].as_str().unwrap();
    let zpl = return_label(&h, &id, &book_number, "zpl").expect(200).clone();
    let images = zpl["base64Images"].as_array().unwrap();
    assert_eq!(images.len(), 1);
    let zpl = String::from_utf8(decode(&images[0])).unwrap();
    assert!(zpl.starts_with("^XA") && zpl.trim_end().ends_with("^XZ") && zpl.contains(ret), "{zpl}");
    let sheet = h.get(&Harness::path(&id, &format!("/shipments/{book_number}/return-label/PDF?layout=letter"))).expect(200).clone();
    let (doc, text) = pdf_text(&sheet);
    let page = doc.get_pages()[&1];
    let media = doc.get_dictionary(page).unwrap().get(b"MediaBox").unwrap().as_array().unwrap().clone();
    assert_eq!(media.iter().map(|v| v.as_float().unwrap() as i64).collect::<Vec<_>>(), [0, 0, 612, 792], "Letter");
    assert!(text.contains(ret));
    return_label(&h, &id, &book_number, "EPL2").assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
    return_label(&h, &id, &book_number, "GIF").assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
    let zpl_sheet = h.get(&Harness::path(&id, &format!("/shipments/{book_number}/return-label/ZPL?layout=a4")));
    zpl_sheet.assert_error(400, "INVALID_REQUEST", Some("layout"));
}

#[test]
fn a_shipment_without_a_return_label_another_customers_or_an_unknown_one_is_not_found() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let other = h.shipper("bo@example.com");
    let (plain, _) = book(&h, &id, &book_body());
    let (theirs, _) = book(&h, &other, &with_return());
    return_label(&h, &id, &plain, "PDF").assert_error_without_details(404, "NOT_FOUND");
    return_label(&h, &id, &theirs, "PDF").assert_error_without_details(404, "NOT_FOUND");
    return_label(&h, &id, "1999999999", "PDF").assert_error_without_details(404, "NOT_FOUND");
    let wrong = h.call("POST", &Harness::path(&id, &format!("/shipments/{theirs}/return-label/PDF")), &json!({}));
    wrong.assert_error_without_details(405, "METHOD_NOT_ALLOWED");
}

#[test]
fn nothing_is_charged_at_booking_and_the_first_scan_charges_the_reversed_route_once() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let before = prepay(&h, &id)["entries"].as_array().unwrap().len();
    let (book_number, b) = book(&h, &id, &with(with_return(), "/returnTo", warehouse()));
    let ret = b["returnTrackingNumber"].as_str().unwrap().to_string();
    // the booking charges the outbound shipment alone (and its recharges)
    let entries = prepay(&h, &id)["entries"].as_array().unwrap().clone();
    let charges: Vec<&Value> = entries[..entries.len() - before].iter().filter(|e| e["kind"] == "charge").collect();
    assert_eq!(charges.len(), 1, "{entries:?}");
    assert_eq!(charges[0]["amount"], format!("-{}", money(&b["totalShippingCost"])), "{entries:?}");
    assert!(charges_naming(&h, &id, &ret).is_empty(), "nothing for the return at booking");
    // the outbound's own scans do not touch the return
    feed(&h, &id, &book_number, b["trackingNumber"].as_str().unwrap(), "Delivered", "2026-11-27 10:00:00").expect(200);
    assert!(charges_naming(&h, &id, &ret).is_empty());

    let balance_before_scan = prepay(&h, &id)["balance"].clone();
    assert_eq!(feed(&h, &id, &book_number, &ret, "In Transit", "2026-12-02 09:00:00").expect(200)["recorded"], 1);
    let charged = charges_naming(&h, &id, &ret);
    assert_eq!(charged.len(), 1, "{charged:?}");
    let charge = &charged[0];
    assert_eq!(charge["kind"], "charge");
    assert_eq!(charge["amount"], reversed_price(&h, &id, warehouse()), "the same service from Los Angeles to San Diego");
    assert_ne!(charge["amount"], format!("-{}", money(&b["totalShippingCost"])), "not the outbound's price");
    assert!(charge["reference"].as_str().unwrap().contains(&book_number), "{charge}");
    assert_ne!(prepay(&h, &id)["balance"], balance_before_scan);

    // later scans, a repeat, and the carrier-keyed feed charge nothing more
    feed(&h, &id, &book_number, &ret, "In Transit", "2026-12-02 09:00:00").expect(200);
    feed(&h, &id, &book_number, &ret, "Delivered", "2026-12-04 11:00:00").expect(200);
    let event = scan("Arrived at facility", "2026-12-03 06:00:00", "San Diego, CA");
    assert_eq!(h.shipping.record_tracking_event("postal", &ret, &event).unwrap().recorded, 1);
    assert_eq!(charges_naming(&h, &id, &ret).len(), 1, "charged once");
    // the return's events are the shipment's tracking
    let info = h.get(&Harness::path(&id, &format!("/shipments/{book_number}/tracking-information"))).expect(200).clone();
    let of_return = info.as_array().unwrap().iter().filter(|e| e["trackingNumber"] == ret.as_str()).count();
    assert_eq!(of_return, 3);
}

#[test]
fn the_carrier_keyed_feed_finds_a_return_label_by_its_number_and_charges_it() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book_number, b) = book(&h, &id, &with_return());
    let ret = b["returnTrackingNumber"].as_str().unwrap();
    let event = scan("Accepted at the post office", "2026-12-01 15:00:00", "Los Angeles, CA");
    let e = h.shipping.record_tracking_event("parcel", ret, &event).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::NotFound, "only carrier B prints return labels");
    assert!(charges_naming(&h, &id, ret).is_empty());
    assert_eq!(h.shipping.record_tracking_event("postal", ret, &event).unwrap().recorded, 1);
    let charged = charges_naming(&h, &id, ret);
    assert_eq!(charged.len(), 1);
    assert_eq!(charged[0]["amount"], reversed_price(&h, &id, us_address()), "back to the sender");
    assert!(charged[0]["reference"].as_str().unwrap().contains(&book_number));
}

#[test]
fn a_return_label_never_scanned_costs_nothing_and_a_void_voids_it() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book_number, b) = book(&h, &id, &with_return());
    let ret = b["returnTrackingNumber"].as_str().unwrap();
    let after_booking = prepay(&h, &id);
    h.void(&id, &book_number);
    let after_void = prepay(&h, &id);
    // the refund gives back the outbound charge: the balance is as before the booking's charge
    let refund = &after_void["entries"][0];
    assert_eq!(refund["kind"], "refund");
    assert_eq!(refund["amount"], money(&b["totalShippingCost"]));
    assert_eq!(after_void["entries"].as_array().unwrap().len(), after_booking["entries"].as_array().unwrap().len() + 1);
    assert!(charges_naming(&h, &id, ret).is_empty());
    // the voided return label neither prints nor scans
    return_label(&h, &id, &book_number, "PDF").assert_error_without_details(409, "CONFLICT");
    let before_scan = prepay(&h, &id);
    feed(&h, &id, &book_number, ret, "In Transit", "2026-12-01 15:00:00").assert_error(409, "CONFLICT", Some("events[0].trackingNumber"));
    let event = scan("Accepted at the post office", "2026-12-01 15:00:00", "Los Angeles, CA");
    let e = h.shipping.record_tracking_event("postal", ret, &event).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::Conflict);
    assert_eq!(e.details()[0].field, "trackingNumber");
    assert_eq!(prepay(&h, &id), before_scan, "nothing charged");
    let info = h.get(&Harness::path(&id, &format!("/shipments/{book_number}/tracking-information"))).expect(200).clone();
    assert!(info.as_array().unwrap().iter().all(|e| e["trackingNumber"] != ret), "nothing recorded: {info}");
}

/// Once the carrier reports more than `Info Received` for the return label, the
/// shipment can no longer be voided, as for its own pieces.
#[test]
fn a_scan_of_the_return_label_after_info_received_stops_a_void() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book_number, b) = book(&h, &id, &with_return());
    let ret = b["returnTrackingNumber"].as_str().unwrap();
    feed(&h, &id, &book_number, ret, "In Transit", "2026-12-01 15:00:00").expect(200);
    assert_eq!(charges_naming(&h, &id, ret).len(), 1);
    let before = prepay(&h, &id);
    let a = h.call("POST", &Harness::path(&id, &format!("/shipments/{book_number}")), &json!({"voided": true}));
    a.assert_error_without_details(409, "CONFLICT");
    let message = a.body["error"].as_str().unwrap();
    assert!(message.contains("In Transit") && message.contains(&format!("return label {ret}")), "{message}");
    assert_eq!(prepay(&h, &id), before, "nothing refunded");
    assert_eq!(h.get(&Harness::path(&id, &format!("/shipments/{book_number}"))).expect(200)["voided"], false);
}

/// `Info Received` alone, for the shipment's piece and for its return label, does not
/// stop a void: the carrier does not have either in hand. The void refunds the outbound
/// charge and the return's, which that first event charged.
#[test]
fn only_info_received_leaves_a_void_allowed_and_the_void_refunds_the_return() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book_number, b) = book(&h, &id, &with_return());
    let ret = b["returnTrackingNumber"].as_str().unwrap();
    let tracking = b["trackingNumber"].as_str().unwrap();
    feed(&h, &id, &book_number, tracking, "Info Received", "2026-11-22 08:00:00").expect(200);
    feed(&h, &id, &book_number, ret, "Info Received", "2026-12-01 15:00:00").expect(200);
    let charge = charges_naming(&h, &id, ret);
    assert_eq!(charge.len(), 1, "an Info Received of the return label charges it");
    let before_void = prepay(&h, &id);
    h.void(&id, &book_number);
    let after = prepay(&h, &id);
    let entries = after["entries"].as_array().unwrap();
    assert_eq!(entries.len(), before_void["entries"].as_array().unwrap().len() + 2, "{after}");
    let refund_of_return = &entries[0];
    assert_eq!(refund_of_return["kind"], "refund");
    assert_eq!(refund_of_return["amount"], charge[0]["amount"].as_str().unwrap().trim_start_matches('-'));
    assert!(refund_of_return["reference"].as_str().unwrap().contains(ret), "{refund_of_return}");
    assert_eq!(entries[1]["kind"], "refund");
    assert_eq!(entries[1]["amount"], money(&b["totalShippingCost"]));
    // the return label is voided with the shipment: a later scan of it is refused
    feed(&h, &id, &book_number, ret, "In Transit", "2026-12-02 15:00:00").assert_error(409, "CONFLICT", Some("events[0].trackingNumber"));
}

/// A customer with no payment method whose balance is the account's opening deposit of
/// 1.00 USD, and a booking with a return label billed to the receiver (the outbound
/// charges nothing): (customer, book number, return tracking number).
fn unpaid_return(h: &Harness) -> (String, String, String) {
    let settings = json!({"minimumBalance": 0, "rechargeAmount": "1.00"});
    let id = h.create_customer_with(&with(customer_body("ann@example.com"), "/prepaySettings", settings));
    let billed = json!({"party": "receiver", "account": "R-123456", "country": "US"});
    let (book_number, b) = book(h, &id, &with(with_return(), "/billing", billed));
    assert_eq!(prepay(h, &id)["balance"], "1.00", "the account's opening deposit; the outbound is billed to the receiver");
    let ret = b["returnTrackingNumber"].as_str().unwrap().to_string();
    (id, book_number, ret)
}

/// `a` minus `b`, two-decimal amounts as the ledger writes them, as it writes them.
fn minus(a: &str, b: &str) -> String {
    let (a, b): (rust_decimal::Decimal, rust_decimal::Decimal) = (a.parse().unwrap(), b.parse().unwrap());
    (a - b).round_dp(2).to_string()
}

/// The return is the shipper's to pay, whoever the outbound carriage is billed to, and
/// a carrier's fact is never refused for money: a first scan that the balance cannot pay
/// (no payment method to recharge from) is recorded, and its charge taken as a debt. The
/// balance goes below zero by the charge and is shown so (`"-7.95"`), in `GET .../prepay`
/// and in the entry.
#[test]
fn a_return_the_balance_cannot_pay_is_recorded_and_charged_as_a_debt() {
    let h = Harness::new();
    let (id, book_number, ret) = unpaid_return(&h);
    assert_eq!(feed(&h, &id, &book_number, &ret, "In Transit", "2026-12-01 15:00:00").expect(200)["recorded"], 1);
    let info = h.get(&Harness::path(&id, &format!("/shipments/{book_number}/tracking-information"))).expect(200).clone();
    assert!(info.as_array().unwrap().iter().any(|e| e["trackingNumber"] == ret.as_str()), "recorded: {info}");
    let charged = charges_naming(&h, &id, &ret);
    assert_eq!(charged.len(), 1);
    let price = reversed_price(&h, &id, us_address());
    assert_eq!(charged[0]["amount"], price);
    let owed = minus("1.00", price.trim_start_matches('-'));
    assert!(owed.starts_with('-') && owed.split_once('.').unwrap().1.len() == 2, "{owed}");
    let view = prepay(&h, &id);
    assert_eq!(view["balance"], owed.as_str(), "{view}");
    assert_eq!(charged[0]["balanceAfter"], owed.as_str());
    // a repeat charges nothing more
    feed(&h, &id, &book_number, &ret, "Delivered", "2026-12-03 15:00:00").expect(200);
    assert_eq!(prepay(&h, &id)["balance"], owed.as_str());
}

/// The carrier-keyed feed records an unpaid return the same way.
#[test]
fn the_carrier_keyed_feed_records_a_return_the_balance_cannot_pay() {
    let h = Harness::new();
    let (id, _, ret) = unpaid_return(&h);
    let event = scan("Accepted at the post office", "2026-12-01 15:00:00", "Los Angeles, CA");
    assert_eq!(h.shipping.record_tracking_event("postal", &ret, &event).unwrap().recorded, 1);
    let price = reversed_price(&h, &id, us_address());
    assert_eq!(prepay(&h, &id)["balance"], minus("1.00", price.trim_start_matches('-')).as_str());
}

/// While the balance is below zero every booking is refused with 402
/// `INSUFFICIENT_FUNDS`, one billed to the receiver included, and writes nothing; the
/// automatic recharge of a booking, with a payment method on file, pays the debt and
/// the booking (the balance after keeps the minimum).
#[test]
fn a_debt_refuses_bookings_until_a_recharge_covers_it() {
    let h = Harness::new();
    let (id, book_number, ret) = unpaid_return(&h);
    feed(&h, &id, &book_number, &ret, "In Transit", "2026-12-01 15:00:00").expect(200);
    let in_debt = prepay(&h, &id);
    assert!(in_debt["balance"].as_str().unwrap().starts_with('-'), "{in_debt}");
    let billed = json!({"party": "receiver", "account": "R-123456", "country": "US"});
    let a = h.book_with(&id, &book_body());
    a.assert_error_without_details(402, "INSUFFICIENT_FUNDS");
    assert!(a.body["error"].as_str().unwrap().contains("debt"), "{:?}", a.body);
    h.book_with(&id, &with(book_body(), "/billing", billed.clone())).assert_error_without_details(402, "INSUFFICIENT_FUNDS");
    h.book_with(&id, &with(book_body(), "/approvePrepayRecharge", json!(false))).assert_error_without_details(402, "INSUFFICIENT_FUNDS");
    assert_eq!(prepay(&h, &id), in_debt, "nothing written");
    // with a payment method on file, a recharge not approved still leaves the debt
    h.call("POST", &Harness::path(&id, "/paymentMethod"), &payment_body("tok_1NqLx2")).expect(200);
    h.book_with(&id, &with(book_body(), "/approvePrepayRecharge", json!(false))).assert_error_without_details(402, "INSUFFICIENT_FUNDS");
    h.book_with(&id, &with(book_body(), "/billing", billed.clone())).expect(201);
    let after = prepay(&h, &id);
    assert!(!after["balance"].as_str().unwrap().starts_with('-'), "the approved recharge paid the debt: {after}");
    let recharges = after["entries"].as_array().unwrap().iter().filter(|e| e["kind"] == "recharge").count();
    assert!(recharges > 1, "recharged beyond the opening deposit: {after}");
    // out of debt, bookings are charged as before
    let b = h.book_with(&id, &book_body()).expect(201).clone();
    assert_eq!(prepay(&h, &id)["entries"][0]["amount"], format!("-{}", money(&b["totalShippingCost"])));
}

#[test]
fn the_rules_of_a_scan_based_return_label() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    // carrier B only
    h.book_with(&id, &with(with_return(), "/carrierCode", json!("parcel"))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("scanBasedReturnLabel"),
    );
    // one package per return label
    let piece = json!({"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null});
    let two = with(with_return(), "/pieces", json!([piece.clone(), piece]));
    h.book_with(&id, &two).assert_error(400, "INVALID_REQUEST", Some("scanBasedReturnLabel"));
    // a route the service does not carry back
    let mut abroad = with(intl_shipment(), "/scanBasedReturnLabel", json!(true));
    for (key, value) in
        [("carrierCode", "postal"), ("serviceCode", "postal_priority_mail_international"), ("packageTypeCode", "postal_custom")]
    {
        abroad[key] = json!(value);
    }
    abroad["approvePrepayRecharge"] = json!(true);
    h.book_with(&id, &with(abroad.clone(), "/scanBasedReturnLabel", json!(false))).expect(201);
    let before = prepay(&h, &id);
    h.book_with(&id, &abroad).assert_error(400, "SERVICE_NOT_AVAILABLE", Some("scanBasedReturnLabel"));
    assert_eq!(prepay(&h, &id), before, "a refused booking writes nothing");
    // false asks for none
    let (_, b) = book(&h, &id, &with(book_body(), "/scanBasedReturnLabel", json!(false)));
    assert!(b.get("returnTrackingNumber").is_none());
}

#[test]
fn an_idempotent_repeat_answers_the_same_return_tracking_number() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let body = with(with_return(), "/idempotencyKey", json!("return-7"));
    let (_, first) = book(&h, &id, &body);
    let again = h.book_with(&id, &body).expect(201).clone();
    assert_eq!(again, first);
}
