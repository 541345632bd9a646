//! Batches and batch book (DECISIONS 9).

use consign_conformance::*;
use serde_json::{json, Value};

fn setup() -> (Harness, String) {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.call("POST", &Harness::path(&id, "/paymentMethod"), &payment_body("tok_test_1")).expect(200);
    (h, id)
}

/// Quote ids of the first `n` quotes of the domestic test shipment.
fn quote_ids(h: &Harness, id: &str, n: usize) -> Vec<i64> {
    let r = h.quote_one(id, quote_shipment());
    r["quotes"].as_array().unwrap().iter().take(n).map(|q| q["quoteId"].as_i64().unwrap()).collect()
}

fn create_batch(h: &Harness, id: &str) -> String {
    h.call("POST", &Harness::path(id, "/batch"), &json!({})).expect(201)["batchId"].as_str().unwrap().to_string()
}

#[test]
fn create_batch_answers_201_with_an_id() {
    let (h, id) = setup();
    let a = h.raw("POST", &Harness::path(&id, "/batch"), "");
    assert!(a.expect(201)["batchId"].as_str().is_some_and(|b| !b.is_empty()));
}

#[test]
fn quotes_added_to_a_batch_are_listed_in_order() {
    let (h, id) = setup();
    let quotes = quote_ids(&h, &id, 3);
    let batch = create_batch(&h, &id);
    let a = h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": [quotes[2], quotes[0]]}));
    let got: Vec<i64> = a.expect(200)["quotes"].as_array().unwrap().iter().map(|q| q["quoteId"].as_i64().unwrap()).collect();
    assert_eq!(got, vec![quotes[2], quotes[0]]);
    // Adding a quote again does not add it twice.
    let a = h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": [quotes[0], quotes[1]]}));
    let got: Vec<i64> = a.expect(200)["quotes"].as_array().unwrap().iter().map(|q| q["quoteId"].as_i64().unwrap()).collect();
    assert_eq!(got, vec![quotes[2], quotes[0], quotes[1]]);
    let listed = h.call("GET", &Harness::path(&id, "/batch"), &Value::Null);
    assert_eq!(listed.expect(200)["batches"][0]["quoteCount"], 3);
}

#[test]
fn an_unknown_quote_is_not_found_and_nothing_is_added() {
    let (h, id) = setup();
    let quotes = quote_ids(&h, &id, 1);
    let batch = create_batch(&h, &id);
    let path = Harness::path(&id, &format!("/batch/{batch}/quotes"));
    h.call("POST", &path, &json!({"quoteIds": [quotes[0], 999_999]})).assert_error(404, "NOT_FOUND", Some("quoteIds[1]"));
    let got = h.call("GET", &Harness::path(&id, &format!("/batch/{batch}")), &Value::Null);
    assert_eq!(got.expect(200)["quotes"].as_array().map(Vec::len), Some(0));
}

#[test]
fn more_ids_than_a_batch_holds_are_refused_before_any_is_looked_up() {
    let (h, id) = setup();
    let batch = create_batch(&h, &id);
    let path = Harness::path(&id, &format!("/batch/{batch}/quotes"));
    // 501 ids none of which exists: the limit is reported, not the first unknown id
    let ids: Vec<i64> = (1..=501).map(|i| 900_000_000 + i).collect();
    h.call("POST", &path, &json!({ "quoteIds": ids })).assert_error(400, "LIMIT_EXCEEDED", Some("quoteIds"));
    // 500 is still looked up
    h.call("POST", &path, &json!({ "quoteIds": &ids[..500] })).assert_error(404, "NOT_FOUND", Some("quoteIds[0]"));
}

#[test]
fn another_customers_quote_is_not_found() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let foreign = quote_ids(&h, &other, 1);
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": foreign})).assert_error(
        404,
        "NOT_FOUND",
        Some("quoteIds[0]"),
    );
}

#[test]
fn an_expired_quote_cannot_be_batched() {
    let (h, id) = setup();
    let quotes = quote_ids(&h, &id, 1);
    let batch = create_batch(&h, &id);
    h.clock.advance(chrono::Duration::days(30));
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": quotes})).assert_error(
        409,
        "QUOTE_EXPIRED",
        Some("quoteIds[0]"),
    );
}

#[test]
fn a_quote_just_inside_thirty_days_can_be_batched() {
    let (h, id) = setup();
    let quotes = quote_ids(&h, &id, 1);
    let batch = create_batch(&h, &id);
    h.clock.advance(chrono::Duration::days(30) - chrono::Duration::seconds(1));
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": quotes})).expect(200);
}

#[test]
fn another_customers_batch_is_not_found() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let batch = create_batch(&h, &other);
    h.call("GET", &Harness::path(&id, &format!("/batch/{batch}")), &Value::Null).assert_error(404, "NOT_FOUND", None);
    h.call("DELETE", &Harness::path(&id, &format!("/batch/{batch}")), &Value::Null).assert_error(404, "NOT_FOUND", None);
    h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch})).assert_error(404, "NOT_FOUND", None);
}

#[test]
fn a_deleted_batch_is_gone() {
    let (h, id) = setup();
    let batch = create_batch(&h, &id);
    h.call("DELETE", &Harness::path(&id, &format!("/batch/{batch}")), &Value::Null).expect(200);
    h.call("GET", &Harness::path(&id, &format!("/batch/{batch}")), &Value::Null).assert_error(404, "NOT_FOUND", None);
}

#[test]
fn batch_book_books_every_quote_with_one_ledger_entry_each() {
    let (h, id) = setup();
    let quotes = quote_ids(&h, &id, 3);
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": quotes})).expect(200);
    let before = h.call("GET", &Harness::path(&id, "/prepay"), &Value::Null).body["entries"].as_array().unwrap().len();
    let a = h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch, "approvePrepayRecharge": true}));
    let body = a.expect(200).clone();
    let results = body["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for (r, q) in results.iter().zip(&quotes) {
        assert_eq!(r["quoteId"], *q);
        assert_eq!(r["status"], "success", "{r}");
        let book = r["bookNumber"].as_str().unwrap();
        h.call("GET", &Harness::path(&id, &format!("/shipments/{book}")), &Value::Null).expect(200);
        let label = h.call("GET", &Harness::path(&id, &format!("/shipments/{book}/label/PDF")), &Value::Null);
        assert_eq!(label.expect(200)["base64Images"].as_array().map(Vec::len), Some(1));
    }
    let prepay = h.call("GET", &Harness::path(&id, "/prepay"), &Value::Null);
    let charges = prepay.body["entries"].as_array().unwrap().iter().filter(|e| e["kind"] == "charge").count();
    assert_eq!(charges, 3);
    assert!(prepay.body["entries"].as_array().unwrap().len() >= before + 3);
    assert_eq!(body["prepayBalance"], prepay.body["balance"]);
    let batch_view = h.call("GET", &Harness::path(&id, &format!("/batch/{batch}")), &Value::Null);
    assert_eq!(batch_view.body["status"], "booked");
}

#[test]
fn batch_book_charges_each_quote_its_quoted_total() {
    let (h, id) = setup();
    let r = h.quote_one(&id, quote_shipment());
    let q = r["quotes"][0].clone();
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": [q["quoteId"]]})).expect(200);
    let a = h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch}));
    assert_eq!(a.expect(200)["results"][0]["totalShippingCost"], q["totalAmount"]);
    let prepay = h.call("GET", &Harness::path(&id, "/prepay"), &Value::Null);
    let charge = prepay.body["entries"][0].clone();
    assert_eq!(charge["kind"], "charge");
    let total: rust_decimal::Decimal = q["totalAmount"].to_string().parse().unwrap();
    assert_eq!(charge["amount"], consign::format2(-total));
}

#[test]
fn a_quote_that_cannot_be_booked_fails_alone() {
    let (h, id) = setup();
    let good = quote_ids(&h, &id, 1);
    // Quotes do not need phones; bookings do.
    let r = h.quote_one(&id, without(quote_shipment(), "/receiver/phone"));
    let bad = r["quotes"][0]["quoteId"].as_i64().unwrap();
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": [bad, good[0]]})).expect(200);
    let a = h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch}));
    let body = a.expect(200);
    assert_eq!(body["results"][0]["status"], "error");
    assert_eq!(body["results"][0]["errorCategory"], "INVALID_REQUEST");
    assert_eq!(body["results"][1]["status"], "success");
    let listed = h.call("GET", &Harness::path(&id, "/shipments"), &Value::Null);
    assert_eq!(listed.expect(200)["shipments"].as_array().map(Vec::len), Some(1), "the failed quote left nothing behind");
    let view = h.call("GET", &Harness::path(&id, &format!("/batch/{batch}")), &Value::Null);
    assert_eq!(view.body["status"], "open", "a batch with an unbooked quote stays open");
}

#[test]
fn an_expired_quote_in_a_batch_fails_at_booking_with_quote_expired() {
    let (h, id) = setup();
    let quotes = quote_ids(&h, &id, 1);
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": quotes})).expect(200);
    h.clock.advance(chrono::Duration::days(31));
    let a = h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch}));
    assert_eq!(a.expect(200)["results"][0]["errorCategory"], "QUOTE_EXPIRED");
}

#[test]
fn a_booked_batch_cannot_be_booked_changed_or_deleted() {
    let (h, id) = setup();
    let quotes = quote_ids(&h, &id, 2);
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": [quotes[0]]})).expect(200);
    h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch})).expect(200);
    h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch})).assert_error(409, "CONFLICT", None);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": [quotes[1]]}))
        .assert_error(409, "CONFLICT", None);
    h.call("DELETE", &Harness::path(&id, &format!("/batch/{batch}")), &Value::Null).assert_error(409, "CONFLICT", None);
}

#[test]
fn an_empty_batch_cannot_be_booked() {
    let (h, id) = setup();
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch})).assert_error(400, "INVALID_REQUEST", Some("batchId"));
}

/// The tracking numbers printed on each page of the base64 PDF `pdf`, in page order.
fn tracking_on_pages(pdf: &Value, candidates: &[String]) -> Vec<String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD.decode(pdf.as_str().expect("labelsPdf is base64")).unwrap();
    let doc = lopdf::Document::load_mem(&bytes).unwrap();
    (1..=u32::try_from(doc.get_pages().len()).unwrap())
        .map(|page| {
            let text = doc.extract_text(&[page]).unwrap();
            candidates.iter().find(|t| text.contains(t.as_str())).cloned().unwrap_or_else(|| format!("page {page}: {text}"))
        })
        .collect()
}

#[test]
fn batch_book_answers_one_pdf_of_every_label_booked_in_the_order_of_the_results() {
    let (h, id) = setup();
    let quotes = quote_ids(&h, &id, 3);
    let batch = create_batch(&h, &id);
    // An unknown quote cannot be added; a quote booked on its own before is in the batch
    // as a success and keeps its labels in the file.
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({"quoteIds": [quotes[2], quotes[0], quotes[1]]}))
        .expect(200);
    let body =
        h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch, "approvePrepayRecharge": true})).expect(200).clone();
    let tracking: Vec<String> = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let book = r["bookNumber"].as_str().unwrap();
            h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200)["trackingNumber"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(tracking.len(), 3);
    assert_eq!(tracking_on_pages(&body["labelsPdf"], &tracking), tracking);
}

#[test]
fn batch_book_leaves_failed_quotes_and_voided_shipments_out_of_the_pdf() {
    let h = Harness::new();
    let quote = |id: &str| h.quote_one(id, quote_shipment())["quotes"][0].clone();
    // A balance that pays for the first quote alone, and no payment method to recharge.
    let probe = h.create_customer("probe@example.com");
    let cost: rust_decimal::Decimal = quote(&probe)["totalAmount"].to_string().parse().unwrap();
    let recharge = cost + rust_decimal::Decimal::new(1, 2);
    let body =
        with(customer_body("ann@example.com"), "/prepaySettings", json!({"minimumBalance": 0, "rechargeAmount": recharge.to_string()}));
    let id = h.create_customer_with(&body);
    let quotes = [quote(&id)["quoteId"].clone(), quote(&id)["quoteId"].clone()];
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({ "quoteIds": quotes })).expect(200);
    let first = h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch})).expect(200).clone();
    let statuses: Vec<&str> = first["results"].as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["success", "error"], "{first}");
    let booked = first["results"][0]["bookNumber"].as_str().unwrap().to_string();
    let tracking_of =
        |book: &str| h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200)["trackingNumber"].as_str().unwrap().to_string();
    assert_eq!(tracking_on_pages(&first["labelsPdf"], &[tracking_of(&booked)]), [tracking_of(&booked)], "the failed quote has no page");
    // The booked one is voided; the batch is booked again with funds: only the new one prints.
    h.void(&id, &booked);
    h.call("POST", &Harness::path(&id, "/paymentMethod"), &payment_body("tok_test_1")).expect(200);
    let again =
        h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch, "approvePrepayRecharge": true})).expect(200).clone();
    let second = again["results"][1]["bookNumber"].as_str().unwrap().to_string();
    let candidates = [tracking_of(&booked), tracking_of(&second)];
    assert_eq!(tracking_on_pages(&again["labelsPdf"], &candidates), [tracking_of(&second)]);
}

#[test]
fn batch_book_with_nothing_booked_has_no_pdf() {
    let h = Harness::new();
    let body = with(customer_body("ann@example.com"), "/prepaySettings", json!({"minimumBalance": 0, "rechargeAmount": "0.01"}));
    let id = h.create_customer_with(&body);
    let quotes = quote_ids(&h, &id, 2);
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({ "quoteIds": quotes })).expect(200);
    let body = h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch})).expect(200).clone();
    assert!(body["results"].as_array().unwrap().iter().all(|r| r["status"] == "error"), "{body}");
    assert_eq!(body["labelsPdf"], Value::Null);
}

#[test]
fn a_batch_whose_labels_pass_the_page_cap_is_refused_before_anything_is_booked() {
    let (h, id) = setup();
    // Eleven quotes of 99 pieces: 1,089 label pages, past the 1,000 of one answer.
    let piece = quote_shipment()["pieces"][0].clone();
    let shipment = with(quote_shipment(), "/pieces", Value::Array(vec![piece; 99]));
    let quotes: Vec<i64> = (0..11).map(|_| h.quote_one(&id, shipment.clone())["quotes"][0]["quoteId"].as_i64().unwrap()).collect();
    let batch = create_batch(&h, &id);
    h.call("POST", &Harness::path(&id, &format!("/batch/{batch}/quotes")), &json!({ "quoteIds": quotes })).expect(200);
    let before = h.get(&Harness::path(&id, "/prepay")).expect(200).clone();
    let a = h.call("POST", &Harness::path(&id, "/batch-book"), &json!({"batchId": batch, "approvePrepayRecharge": true}));
    a.assert_error(400, "LIMIT_EXCEEDED", Some("batchId"));
    assert_eq!(h.get(&Harness::path(&id, "/prepay")).expect(200).clone(), before, "nothing charged");
    let listed = h.get(&Harness::path(&id, &format!("/batch/{batch}"))).expect(200).clone();
    assert_eq!(listed["status"], "open");
    assert!(listed["quotes"].as_array().unwrap().iter().all(|q| q["bookNumber"].is_null()), "{listed}");
}
