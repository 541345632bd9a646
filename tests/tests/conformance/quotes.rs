//! 4.1 Batch quote, the single-shipment quote of DECISIONS 9, and the quoting rows of
//! parts 7 and 8.

use consign_conformance::*;
use rust_decimal::Decimal;
use serde_json::{json, Value};

fn setup() -> (Harness, String) {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    (h, id)
}

/// A money amount of an answer (a JSON number), exactly.
fn dec(v: &Value) -> Decimal {
    assert!(v.is_number(), "money is a JSON number: {v}");
    let d: Decimal = v.to_string().parse().unwrap();
    assert!(d.scale() <= 2, "at most 2 decimals: {v}");
    d
}

#[test]
fn results_come_in_request_order_with_their_index() {
    let (h, id) = setup();
    let a = h.batch_quote(&id, vec![quote_shipment(), intl_shipment(), quote_shipment()]);
    let results = a.expect(200)["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 3);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["shipmentIndex"], i);
        assert_eq!(r["status"], "success");
    }
    assert!(!quotes_of(&results[1], "intlexpress").is_empty(), "the second shipment is the international one");
}

#[test]
fn one_failing_shipment_does_not_stop_the_others() {
    let (h, id) = setup();
    let bad = with(quote_shipment(), "/receiver/state", json!("Texas"));
    let a = h.batch_quote(&id, vec![quote_shipment(), bad, quote_shipment()]);
    let body = a.expect(200);
    assert_eq!(body["results"][0]["status"], "success");
    assert_shipment_error(&body["results"][1], "INVALID_REQUEST", "shipments[1].receiver.state");
    assert_eq!(body["results"][2]["status"], "success");
}

#[test]
fn more_than_500_shipments_is_limit_exceeded_and_nothing_is_quoted() {
    let (h, id) = setup();
    let a = h.batch_quote(&id, vec![quote_shipment(); 501]);
    a.assert_error(400, "LIMIT_EXCEEDED", Some("shipments"));
    // Nothing was stored: the next quote is the first one.
    let r = h.quote_one(&id, quote_shipment());
    assert_eq!(r["quotes"][0]["quoteId"], 1);
}

#[test]
fn exactly_500_shipments_are_quoted() {
    let (h, id) = setup();
    let a = h.batch_quote(&id, vec![quote_shipment(); 500]);
    let results = a.expect(200)["results"].as_array().map(Vec::len);
    assert_eq!(results, Some(500));
}

#[test]
fn a_request_that_is_not_a_batch_fails_whole() {
    let (h, id) = setup();
    let path = Harness::path(&id, "/batch-quote");
    h.raw("POST", &path, "[]").assert_error(400, "INVALID_REQUEST", None);
    h.raw("POST", &path, "{\"shipments\": ").assert_error(400, "INVALID_REQUEST", None);
    h.call("POST", &path, &json!({})).assert_error(400, "INVALID_REQUEST", Some("shipments"));
    h.call("POST", &path, &json!({"shipments": {"a": 1}})).assert_error(400, "INVALID_REQUEST", Some("shipments"));
    // Text that is not JSON inside a shipment fails the whole request, as it did before
    // shipments were read in one pass; so does any after the last one.
    let good = quote_shipment().to_string();
    h.raw("POST", &path, &format!("{{\"shipments\": [{good}, {{\"pieces\": tru}}]}}")).assert_error(400, "INVALID_REQUEST", None);
    h.raw("POST", &path, &format!("{{\"shipments\": [{good}]}} x")).assert_error(400, "INVALID_REQUEST", None);
    // Past the 500th shipment nothing more is read: the limit is what is wrong.
    let many = vec![good.as_str(); 501].join(",");
    h.raw("POST", &path, &format!("{{\"shipments\": [{many}, {{]}}")).assert_error(400, "LIMIT_EXCEEDED", Some("shipments"));
}

#[test]
fn a_batch_is_read_whatever_its_layout() {
    let (h, id) = setup();
    let path = Harness::path(&id, "/batch-quote");
    let pretty = serde_json::to_string_pretty(&json!({"shipments": [quote_shipment(), intl_shipment()]})).unwrap();
    let extra = json!({"note": "x", "shipments": [quote_shipment()]}).to_string();
    for body in [pretty, extra] {
        let r = h.raw("POST", &path, &body);
        let answer = r.expect(200);
        let results = answer["results"].as_array().unwrap();
        assert!(results.iter().all(|r| r["status"] == "success"), "{body}");
    }
}

#[test]
fn a_shipment_of_the_wrong_shape_fails_alone_naming_the_field() {
    let (h, id) = setup();
    let a = h.batch_quote(&id, vec![quote_shipment(), with(quote_shipment(), "/pieces", json!("heavy")), json!(42)]);
    let body = a.expect(200);
    assert_eq!(body["results"][0]["status"], "success");
    assert_shipment_error(&body["results"][1], "INVALID_REQUEST", "shipments[1].pieces");
    assert_eq!(body["results"][2]["status"], "error");
    assert_eq!(body["results"][2]["errorCategory"], "INVALID_REQUEST");
}

#[test]
fn required_shipment_fields_are_named_when_missing() {
    let (h, id) = setup();
    for field in ["shipmentDate", "shipmentReference", "sender", "receiver", "weightUnit", "dimUnit", "currency", "pieces"] {
        let r = h.quote_one(&id, without(quote_shipment(), &format!("/{field}")));
        assert_shipment_error(&r, "INVALID_REQUEST", &format!("shipments[0].{field}"));
    }
}

#[test]
fn enumerations_are_checked() {
    let (h, id) = setup();
    for (pointer, value) in [("/weightUnit", "stone"), ("/dimUnit", "ft"), ("/currency", "JPY")] {
        let r = h.quote_one(&id, with(quote_shipment(), pointer, json!(value)));
        assert_shipment_error(&r, "INVALID_REQUEST", &format!("shipments[0].{}", &pointer[1..]));
    }
}

#[test]
fn an_invalid_address_fails_the_shipment() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/sender/zip", json!("1910")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].sender.zip");
    let r = h.quote_one(&id, with(quote_shipment(), "/receiver/country", json!("XX")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].receiver.country");
}

#[test]
fn a_past_shipment_date_is_rejected_and_today_is_accepted() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/shipmentDate", json!(days_ahead(-1))));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].shipmentDate");
    let r = h.quote_one(&id, with(quote_shipment(), "/shipmentDate", json!(TODAY)));
    assert_eq!(r["status"], "success", "{r}");
    let r = h.quote_one(&id, with(quote_shipment(), "/shipmentDate", json!("21/11/2026")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].shipmentDate");
}

#[test]
fn invoice_item_weights_above_the_package_weight_fail_the_shipment() {
    let (h, id) = setup();
    let heavy = with(intl_shipment(), "/commercialInvoice", invoice("1.3"));
    let fits = with(intl_shipment(), "/commercialInvoice", invoice("1.2"));
    let a = h.batch_quote(&id, vec![heavy, fits]);
    let body = a.expect(200);
    assert_shipment_error(&body["results"][0], "INVALID_REQUEST", "shipments[0].commercialInvoice.items");
    assert_eq!(body["results"][1]["status"], "success", "other shipments are still quoted");
}

#[test]
fn more_than_two_tax_ids_is_limit_exceeded_for_that_shipment() {
    let (h, id) = setup();
    let ids = json!([{"number": "GB1", "type": "EOR"}, {"number": "GB2", "type": "VAT"}, {"number": "GB3", "type": "VAT"}]);
    let mut inv = invoice("1");
    inv["dhlTaxIds"] = ids;
    let r = h.quote_one(&id, with(intl_shipment(), "/commercialInvoice", inv));
    assert_shipment_error(&r, "LIMIT_EXCEEDED", "shipments[0].commercialInvoice.dhlTaxIds");
}

#[test]
fn tax_ids_need_a_number_a_listed_type_and_a_real_issuer_country() {
    let (h, id) = setup();
    let cases = [
        (json!({"number": "", "type": "EOR"}), "number"),
        (json!({"number": "GB1", "type": "SSN"}), "type"),
        (json!({"number": "GB1", "type": "VAT", "issuerCountry": "UK"}), "issuerCountry"),
    ];
    for (tax_id, field) in cases {
        let mut inv = invoice("1");
        inv["dhlTaxIds"] = json!([{"number": "GB0", "type": "EOR", "issuerCountry": "GB"}, tax_id]);
        let r = h.quote_one(&id, with(intl_shipment(), "/commercialInvoice", inv));
        assert_shipment_error(&r, "INVALID_REQUEST", &format!("shipments[0].commercialInvoice.dhlTaxIds[1].{field}"));
    }
    let mut inv = invoice("1");
    inv["dhlTaxIds"] = json!([{"number": "GB123456789000", "type": "EOR", "issuerCountry": "GB"}, {"number": "123", "type": "FED"}]);
    assert_eq!(h.quote_one(&id, with(intl_shipment(), "/commercialInvoice", inv))["status"], "success");
}

#[test]
fn sender_tax_id_type_is_ein_dns_or_fgn() {
    let (h, id) = setup();
    for ok in ["ein", "dns", "fgn"] {
        let mut inv = invoice("1");
        inv["senderTaxIdNumberType"] = json!(ok);
        assert_eq!(h.quote_one(&id, with(intl_shipment(), "/commercialInvoice", inv))["status"], "success", "{ok}");
    }
    let mut inv = invoice("1");
    inv["senderTaxIdNumberType"] = json!("ssn");
    let r = h.quote_one(&id, with(intl_shipment(), "/commercialInvoice", inv));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].commercialInvoice.senderTaxIdNumberType");
}

#[test]
fn line_items_are_kept_in_order_with_duplicates() {
    let (h, id) = setup();
    let items = json!([
        {"sku": "MUG-1", "productName": "Mug", "quantity": 2},
        {"sku": "", "productName": "Saucer", "quantity": "1"},
        {"sku": "MUG-1", "productName": "Mug", "quantity": 2}
    ]);
    let r = h.quote_one(&id, with(quote_shipment(), "/pieces/0/lineItems", items.clone()));
    let quote_id = r["quotes"][0]["quoteId"].as_i64().expect("a quote id");
    let stored = h.shipping.stored_quote(&id, quote_id).expect("the quote is stored");
    let shipment = stored.shipment().expect("the stored shipment reads");
    let kept = serde_json::to_value(&shipment.pieces[0].line_items).expect("line items as JSON");
    assert_eq!(kept, with(items, "/1/quantity", json!(1)));
}

#[test]
fn line_items_need_a_product_name_and_a_positive_quantity() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/pieces/0/lineItems", json!([{"sku": "A", "productName": "", "quantity": 1}])));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].pieces[0].lineItems[0].productName");
    let r = h.quote_one(&id, with(quote_shipment(), "/pieces/0/lineItems", json!([{"sku": "A", "productName": "B", "quantity": 0}])));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].pieces[0].lineItems[0].quantity");
    let r = h.quote_one(&id, with(quote_shipment(), "/pieces/0/lineItems", json!([{"productName": "B", "quantity": 1}])));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].pieces[0].lineItems[0].sku");
}

#[test]
fn a_declared_value_on_a_domestic_shipment_is_refused() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/pieces/0/declaredValue", json!("25.00")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].pieces[0].declaredValue");
}

#[test]
fn piece_weights_must_be_positive() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/pieces/0/weight", json!("0")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].pieces[0].weight");
    let r = h.quote_one(&id, with(quote_shipment(), "/pieces/0/weight", json!("-1")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].pieces[0].weight");
    let r = h.quote_one(&id, with(quote_shipment(), "/pieces/0/weight", json!("two")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].pieces[0].weight");
}

#[test]
fn weights_and_dimensions_may_be_numbers_or_numeric_strings() {
    let (h, id) = setup();
    let numbers = json!([{"weight": 2, "length": 10, "width": 8, "height": 6, "insuranceAmount": null, "declaredValue": null}]);
    let a = h.quote_one(&id, quote_shipment());
    let b = h.quote_one(&id, with(quote_shipment(), "/pieces", numbers));
    let totals = |r: &Value| {
        r["quotes"].as_array().unwrap().iter().map(|q| (q["serviceCode"].clone(), q["totalAmount"].clone())).collect::<Vec<_>>()
    };
    assert_eq!(totals(&a), totals(&b));
}

#[test]
fn every_quote_has_the_fields_of_2_5_and_its_total_is_the_sum_of_its_lines() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/residential", json!(true)));
    let quotes = r["quotes"].as_array().cloned().unwrap_or_default();
    assert!(quotes.len() >= 10, "{} quotes", quotes.len());
    for q in &quotes {
        assert!(q["quoteId"].is_i64(), "{q}");
        for f in ["carrierCode", "serviceCode", "serviceDescription", "packageTypeCode", "currency", "zone", "quotedWeight"] {
            assert!(q[f].as_str().is_some_and(|s| !s.is_empty()), "{f} in {q}");
        }
        assert!(q["totalAmount"].is_number() && q["baseAmount"].is_number(), "{q}");
        assert!(["Actual", "Dimensional"].contains(&q["quotedWeightType"].as_str().unwrap_or("")), "{q}");
        assert_eq!(q["currency"], "USD");
        let lines = q["surcharges"].as_array().unwrap();
        let sum = lines.iter().fold(dec(&q["baseAmount"]), |acc, l| {
            assert!(l["description"].as_str().is_some_and(|d| !d.is_empty()));
            acc + dec(&l["amount"])
        });
        assert_eq!(sum, dec(&q["totalAmount"]), "{q}");
    }
}

#[test]
fn quote_ids_are_unique_across_requests() {
    let (h, id) = setup();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..3 {
        let r = h.quote_one(&id, quote_shipment());
        for q in r["quotes"].as_array().unwrap() {
            assert!(seen.insert(q["quoteId"].as_i64().unwrap()), "duplicate {}", q["quoteId"]);
        }
    }
}

#[test]
fn a_quote_expires_thirty_days_after_it_was_made() {
    let (h, id) = setup();
    let r = h.quote_one(&id, quote_shipment());
    let quote_id = r["quotes"][0]["quoteId"].as_i64().unwrap();
    let stored = h.shipping.stored_quote(&id, quote_id).unwrap();
    assert_eq!(stored.expires_at - stored.created_at, chrono::Duration::days(30));
    assert_eq!(stored.created_at.to_rfc3339(), "2026-11-21T15:00:00+00:00");
}

#[test]
fn a_named_service_gives_one_quote_per_named_package_type() {
    let (h, id) = setup();
    let s = with(
        with(with(quote_shipment(), "/carrierCode", json!("parcel")), "/serviceCode", json!("parcel_ground")),
        "/packageTypeCode",
        json!("parcel_custom"),
    );
    let r = h.quote_one(&id, s);
    assert_eq!(r["quotes"].as_array().map(Vec::len), Some(1), "{r}");
    assert_eq!(r["quotes"][0]["serviceCode"], "parcel_ground");
}

#[test]
fn without_a_service_every_service_that_serves_the_route_is_quoted_once() {
    let (h, id) = setup();
    let r = h.quote_one(&id, quote_shipment());
    let services: Vec<&str> = r["quotes"].as_array().unwrap().iter().map(|q| q["serviceCode"].as_str().unwrap()).collect();
    let unique: std::collections::HashSet<_> = services.iter().collect();
    assert_eq!(unique.len(), services.len(), "a box with dimensions is quoted once per service: {services:?}");
    for expected in ["parcel_ground", "postal_priority_mail", "expressground_ground", "ecommerce_parcel_ground"] {
        assert!(services.contains(&expected), "{expected} missing from {services:?}");
    }
    assert!(!services.iter().any(|s| s.contains("international") || s.contains("worldwide")), "{services:?}");
}

#[test]
fn a_carrier_code_limits_the_quotes_to_that_carrier() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/carrierCode", json!("postal")));
    assert!(r["quotes"].as_array().unwrap().iter().all(|q| q["carrierCode"] == "postal"), "{r}");
}

#[test]
fn unknown_carrier_service_or_package_type_fails_the_shipment() {
    let (h, id) = setup();
    for (pointer, field) in [("/carrierCode", "carrierCode"), ("/serviceCode", "serviceCode"), ("/packageTypeCode", "packageTypeCode")] {
        let r = h.quote_one(&id, with(quote_shipment(), pointer, json!("nope")));
        assert_shipment_error(&r, "INVALID_REQUEST", &format!("shipments[0].{field}"));
    }
}

#[test]
fn a_piece_above_the_maximum_weight_gives_a_quote_error_for_that_service() {
    let (h, id) = setup();
    let envelope = json!([{"weight": "3", "length": null, "width": null, "height": null, "insuranceAmount": null, "declaredValue": null}]);
    let s = with(
        with(with(quote_shipment(), "/pieces", envelope), "/serviceCode", json!("expressground_2day")),
        "/packageTypeCode",
        json!("expressground_envelope"),
    );
    let r = h.quote_one(&id, with(s, "/dimUnit", json!(null)));
    assert_eq!(r["status"], "success");
    let errors = quote_errors_of(&r, "expressground");
    assert_eq!(errors.len(), 1, "{r}");
    assert_eq!(errors[0]["errorCategory"], "INVALID_REQUEST");
    assert_eq!(errors[0]["packageTypeCode"], "expressground_envelope");
    assert!(errors[0]["error"].as_str().unwrap().contains("maximum"), "{}", errors[0]);
}

#[test]
fn multipiece_is_refused_where_the_package_type_does_not_support_it() {
    let (h, id) = setup();
    let piece = quote_shipment()["pieces"][0].clone();
    let s = with(with(quote_shipment(), "/pieces", json!([piece.clone(), piece])), "/carrierCode", json!("ecommerce"));
    let r = h.quote_one(&id, s);
    assert_eq!(r["status"], "success", "{r}");
    let errors = quote_errors_of(&r, "ecommerce");
    assert!(!errors.is_empty() && errors.iter().all(|e| e["errorCategory"] == "INVALID_REQUEST"), "{r}");
    assert!(errors[0]["error"].as_str().unwrap().contains("multipiece"), "{}", errors[0]);
    assert!(quotes_of(&r, "ecommerce").is_empty());
}

#[test]
fn carrier_c_refuses_dates_more_than_9_days_ahead_and_others_still_quote() {
    let (h, id) = setup();
    let ok = h.quote_one(&id, with(intl_shipment(), "/shipmentDate", json!(days_ahead(9))));
    assert!(!quotes_of(&ok, "intlexpress").is_empty(), "9 days ahead is accepted: {ok}");
    let r = h.quote_one(&id, with(intl_shipment(), "/shipmentDate", json!(days_ahead(10))));
    assert!(quotes_of(&r, "intlexpress").is_empty());
    let errors = quote_errors_of(&r, "intlexpress");
    assert!(!errors.is_empty() && errors.iter().all(|e| e["errorCategory"] == "INVALID_REQUEST"), "{r}");
    assert!(!quotes_of(&r, "parcel").is_empty(), "other carriers still quote");
}

#[test]
fn carrier_d_refuses_dates_more_than_10_days_ahead() {
    let (h, id) = setup();
    let ok = h.quote_one(&id, with(quote_shipment(), "/shipmentDate", json!(days_ahead(10))));
    assert!(!quotes_of(&ok, "expressground").is_empty());
    let r = h.quote_one(&id, with(quote_shipment(), "/shipmentDate", json!(days_ahead(11))));
    assert!(quotes_of(&r, "expressground").is_empty());
    assert!(quote_errors_of(&r, "expressground").iter().all(|e| e["errorCategory"] == "INVALID_REQUEST"));
    assert!(!quote_errors_of(&r, "expressground").is_empty());
    assert!(!quotes_of(&r, "parcel").is_empty());
}

#[test]
fn carrier_d_requires_a_first_and_last_sender_name() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/sender/name", json!("Cher")));
    let errors = quote_errors_of(&r, "expressground");
    assert!(!errors.is_empty(), "{r}");
    for e in errors {
        assert_eq!(e["errorCategory"], "INVALID_REQUEST");
        assert!(e["error"].as_str().unwrap().contains("first and last name"), "{e}");
    }
    assert!(quotes_of(&r, "expressground").is_empty());
    assert!(!quotes_of(&r, "postal").is_empty(), "other carriers quote");
}

#[test]
fn a_custom_package_without_dimensions_gives_a_quote_error() {
    let (h, id) = setup();
    let piece = json!([{"weight": "2", "length": null, "width": null, "height": null, "insuranceAmount": null, "declaredValue": null}]);
    let s = with(with(with(quote_shipment(), "/pieces", piece), "/packageTypeCode", json!("parcel_custom")), "/dimUnit", json!(null));
    let r = h.quote_one(&id, s);
    let errors = quote_errors_of(&r, "parcel");
    assert!(!errors.is_empty(), "{r}");
    assert!(errors.iter().all(|e| e["packageTypeCode"] == "parcel_custom" && e["errorCategory"] == "INVALID_REQUEST"));
}

#[test]
fn a_named_service_that_does_not_serve_the_route_is_service_not_available() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(intl_shipment(), "/serviceCode", json!("parcel_ground")));
    assert_eq!(r["status"], "success", "{r}");
    let errors = quote_errors_of(&r, "parcel");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["errorCategory"], "SERVICE_NOT_AVAILABLE");
    assert_eq!(errors[0]["serviceCode"], "parcel_ground");
}

#[test]
fn a_shipment_nothing_serves_fails_as_a_whole() {
    let (h, id) = setup();
    let mut s = intl_shipment();
    s["sender"] = json!({"name": "Hans Meier", "company": "", "address1": "Hauptstr. 1", "address2": "", "city": "Berlin",
        "state": "", "zip": "10115", "country": "DE", "phone": "+49 30 1234567"});
    let r = h.quote_one(&id, s);
    assert_eq!(r["status"], "error");
    assert_eq!(r["errorCategory"], "SERVICE_NOT_AVAILABLE");
}

#[test]
fn inbound_services_quote_imports_by_sender_country() {
    let (h, id) = setup();
    let mut s = intl_shipment();
    let (sender, receiver) = (s["receiver"].clone(), s["sender"].clone());
    s["sender"] = sender;
    s["receiver"] = receiver;
    let r = h.quote_one(&id, s);
    let services: Vec<&str> = r["quotes"].as_array().unwrap().iter().map(|q| q["serviceCode"].as_str().unwrap()).collect();
    assert!(services.contains(&"intlexpress_express_worldwide_import"), "{services:?}");
    assert!(services.contains(&"parcel_worldwide_express_import"), "{services:?}");
    assert!(services.iter().all(|s| s.ends_with("_import")), "only import services carry GB to US: {services:?}");
}

#[test]
fn amounts_come_in_the_requested_currency() {
    let (h, id) = setup();
    let usd = h.quote_one(&id, quote_shipment());
    let eur = h.quote_one(&id, with(quote_shipment(), "/currency", json!("EUR")));
    let first = |r: &Value| r["quotes"][0].clone();
    assert_eq!(first(&eur)["currency"], "EUR");
    assert_eq!(first(&usd)["serviceCode"], first(&eur)["serviceCode"]);
    assert_ne!(first(&usd)["totalAmount"], first(&eur)["totalAmount"]);
}

#[test]
fn the_profile_markup_raises_every_line() {
    let h = Harness::new();
    let plain = h.create_customer("ann@example.com");
    let retail = h.create_customer_with(&with(customer_body("bo@example.com"), "/profileCode", json!("Retail")));
    let a = h.quote_one(&plain, quote_shipment());
    let b = h.quote_one(&retail, quote_shipment());
    let (qa, qb) = (&a["quotes"][0], &b["quotes"][0]);
    assert_eq!(qa["serviceCode"], qb["serviceCode"]);
    // 15 % on the unrounded carrier cost, rounded once: within a cent of 1.15 x the rounded plain base.
    let (base_a, base_b) = (dec(&qa["baseAmount"]), dec(&qb["baseAmount"]));
    assert!((base_a * Decimal::new(115, 2) - base_b).abs() <= Decimal::new(1, 2), "{base_a} -> {base_b}");
}

#[test]
fn a_ground_saver_customer_is_quoted_ground_services_only() {
    let h = Harness::new();
    let id = h.create_customer_with(&with(customer_body("g@example.com"), "/profileCode", json!("GroundSaver")));
    let r = h.quote_one(&id, quote_shipment());
    let services = h.call("GET", &Harness::path(&id, "/services"), &Value::Null);
    let ground: Vec<Value> = services.body["services"].as_array().unwrap().iter().map(|s| s["serviceCode"].clone()).collect();
    assert!(r["quotes"].as_array().unwrap().iter().all(|q| ground.contains(&q["serviceCode"])), "{r}");
}

#[test]
fn an_unknown_customer_is_not_found() {
    let h = Harness::new();
    h.batch_quote("C9999999", vec![quote_shipment()]).assert_error(404, "NOT_FOUND", None);
    h.call("POST", &Harness::path("C9999999", "/quote"), &quote_shipment()).assert_error(404, "NOT_FOUND", None);
}

#[test]
fn a_provider_account_of_another_customer_fails_the_shipment() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/providerAccountId", json!("PA0000001")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].providerAccountId");
}

#[test]
fn the_single_quote_answers_one_quote_when_everything_is_named() {
    let (h, id) = setup();
    let s = with(
        with(with(quote_shipment(), "/carrierCode", json!("postal")), "/serviceCode", json!("postal_priority_mail")),
        "/packageTypeCode",
        json!("postal_custom"),
    );
    let a = h.call("POST", &Harness::path(&id, "/quote"), &s);
    let q = a.expect(200);
    assert!(q["quoteId"].is_i64(), "{q}");
    assert_eq!(q["serviceCode"], "postal_priority_mail");
}

#[test]
fn the_single_quote_answers_quotes_and_quote_errors_otherwise() {
    let (h, id) = setup();
    let a = h.call("POST", &Harness::path(&id, "/quote"), &with(quote_shipment(), "/sender/name", json!("Cher")));
    let body = a.expect(200);
    assert!(body["quotes"].as_array().is_some_and(|q| !q.is_empty()));
    assert!(body["quoteErrors"].as_array().is_some_and(|q| !q.is_empty()), "carrier D refuses a one-word sender name");
}

#[test]
fn the_single_quote_names_fields_without_a_batch_prefix() {
    let (h, id) = setup();
    let a = h.call("POST", &Harness::path(&id, "/quote"), &with(quote_shipment(), "/receiver/zip", json!("ABCDE")));
    a.assert_error(400, "INVALID_REQUEST", Some("receiver.zip"));
}

#[test]
fn the_single_quote_of_a_named_service_off_its_route_is_service_not_available() {
    let (h, id) = setup();
    let s = with(
        with(with(intl_shipment(), "/carrierCode", json!("parcel")), "/serviceCode", json!("parcel_ground")),
        "/packageTypeCode",
        json!("parcel_custom"),
    );
    h.call("POST", &Harness::path(&id, "/quote"), &s).assert_error(400, "SERVICE_NOT_AVAILABLE", None);
}

// ---------------------------------------------------------------------------
// The single quote as public clients send it (DECISIONS 9 and docs/DECISIONS.md,
// "Quoting"): a reduced booking body.
// ---------------------------------------------------------------------------

/// What a public client sends to `POST .../quote`: addresses of a country and a ZIP (the
/// receiver's city besides), no date, reference or currency, `""` for every code.
fn reduced_quote() -> Value {
    json!({
        "carrierCode": "", "serviceCode": "", "packageTypeCode": "",
        "sender": {"country": "US", "zip": "19106"},
        "receiver": {"country": "US", "zip": "90012", "city": "Los Angeles"},
        "residential": false, "weightUnit": "lb", "dimUnit": "in",
        "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6"}]
    })
}

fn single_quote(h: &Harness, id: &str, body: &Value) -> Answer {
    h.call("POST", &Harness::path(id, "/quote"), body)
}

/// The (service, package type, total) of each quote of a single-quote answer, sorted.
fn priced(answer: &Value) -> Vec<(String, String, String)> {
    let mut rows: Vec<_> = answer["quotes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| (q["serviceCode"].to_string(), q["packageTypeCode"].to_string(), q["totalAmount"].to_string()))
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_single_quote_needs_only_the_country_and_zip_of_each_address() {
    let (h, id) = setup();
    let a = single_quote(&h, &id, &reduced_quote());
    let body = a.expect(200);
    assert!(body["quotes"].as_array().is_some_and(|q| q.len() > 3), "{body}");
    // the same prices as the full addresses get
    let full = with(with(reduced_quote(), "/sender", us_address()), "/receiver", la_address());
    assert_eq!(priced(body), priced(single_quote(&h, &id, &full).expect(200)));
}

#[test]
fn a_single_quote_without_a_shipment_date_quotes_for_today() {
    let (h, id) = setup();
    let today = single_quote(&h, &id, &with(reduced_quote(), "/shipmentDate", json!(TODAY)));
    let undated = single_quote(&h, &id, &reduced_quote());
    assert_eq!(priced(undated.expect(200)), priced(today.expect(200)));
    let empty = single_quote(&h, &id, &with(reduced_quote(), "/shipmentDate", json!("")));
    assert_eq!(priced(empty.expect(200)), priced(&today.body), "an empty date is no date (DECISIONS 1)");
}

#[test]
fn a_single_quote_without_a_currency_quotes_in_usd() {
    let (h, id) = setup();
    let a = single_quote(&h, &id, &reduced_quote());
    let quotes = a.expect(200)["quotes"].as_array().cloned().unwrap_or_default();
    assert!(!quotes.is_empty() && quotes.iter().all(|q| q["currency"] == "USD"), "{}", a.body);
    let usd = single_quote(&h, &id, &with(reduced_quote(), "/currency", json!("USD")));
    assert_eq!(priced(&a.body), priced(usd.expect(200)));
}

#[test]
fn a_single_quote_without_a_reference_is_quoted() {
    let (h, id) = setup();
    let with_reference = single_quote(&h, &id, &with(reduced_quote(), "/shipmentReference", json!("INV-1")));
    assert_eq!(priced(single_quote(&h, &id, &reduced_quote()).expect(200)), priced(with_reference.expect(200)));
}

#[test]
fn empty_codes_in_a_single_quote_quote_every_carrier() {
    let (h, id) = setup();
    let a = single_quote(&h, &id, &reduced_quote());
    let body = a.expect(200);
    for carrier in ["parcel", "postal", "expressground"] {
        assert!(!quotes_of(body, carrier).is_empty(), "{carrier}: {body}");
    }
}

#[test]
fn a_us_state_left_out_of_a_single_quote_is_the_state_of_the_zip() {
    let (h, id) = setup();
    // Anchorage: the three-day service does not deliver to Alaska
    let alaska = with(reduced_quote(), "/receiver", json!({"country": "US", "zip": "99501"}));
    let without_state = single_quote(&h, &id, &alaska);
    let with_state = single_quote(&h, &id, &with(alaska, "/receiver/state", json!("AK")));
    assert_eq!(priced(without_state.expect(200)), priced(with_state.expect(200)));
    assert!(without_state.body["quotes"].as_array().unwrap().iter().all(|q| q["serviceCode"] != "parcel_3_day_select"));
}

#[test]
fn a_us_zip_of_no_prefix_in_use_leaves_the_state_of_a_single_quote_unknown() {
    let (h, id) = setup();
    let nowhere = with(reduced_quote(), "/receiver/zip", json!("00001"));
    single_quote(&h, &id, &nowhere).assert_error(400, "INVALID_REQUEST", Some("receiver.state"));
}

#[test]
fn a_single_quote_still_needs_the_zip_of_a_us_address() {
    let (h, id) = setup();
    single_quote(&h, &id, &without(reduced_quote(), "/receiver/zip")).assert_error(400, "INVALID_REQUEST", Some("receiver.zip"));
}

#[test]
fn the_batch_quote_keeps_its_required_keys() {
    let (h, id) = setup();
    for key in ["shipmentDate", "shipmentReference", "currency"] {
        let r = h.quote_one(&id, without(quote_shipment(), &format!("/{key}")));
        assert_shipment_error(&r, "INVALID_REQUEST", &format!("shipments[0].{key}"));
    }
    let r = h.quote_one(&id, without(quote_shipment(), "/receiver/state"));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].receiver.state");
}

#[test]
fn carrier_d_checks_the_sender_name_only_when_one_is_sent() {
    let (h, id) = setup();
    let a = single_quote(&h, &id, &reduced_quote());
    let body = a.expect(200);
    assert!(!quotes_of(body, "expressground").is_empty(), "{body}");
    assert!(quote_errors_of(body, "expressground").is_empty(), "{body}");
    let named = single_quote(&h, &id, &with(reduced_quote(), "/sender/name", json!("Cher")));
    assert!(!quote_errors_of(named.expect(200), "expressground").is_empty(), "{}", named.body);
}

#[test]
fn a_reduced_single_quote_books_with_the_full_addresses_at_its_price() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let named = [("/carrierCode", "parcel"), ("/serviceCode", "parcel_ground"), ("/packageTypeCode", "parcel_custom")];
    let body = named.iter().fold(reduced_quote(), |b, (k, v)| with(b, k, json!(v)));
    let quote = single_quote(&h, &id, &body).expect(200).clone();
    let booking = book_body_for("parcel", "parcel_ground", "parcel_custom");
    let booking = with(with(booking, "/shipmentDate", json!(TODAY)), "/quoteId", quote["quoteId"].clone());
    let booking = with(with(booking, "/sender", us_address()), "/receiver", la_address());
    let booked = h.book_with(&id, &booking);
    assert_eq!(booked.expect(201)["totalShippingCost"], quote["totalAmount"], "{}", booked.body);
}

// ---------------------------------------------------------------------------
// A named service that cannot be quoted says why.
// ---------------------------------------------------------------------------

#[test]
fn a_named_custom_only_service_without_dimensions_says_why() {
    let (h, id) = setup();
    let mut s = with(quote_shipment(), "/serviceCode", json!("parcel_ground"));
    s = with(s, "/dimUnit", Value::Null);
    s = with(s, "/pieces/0", json!({"weight": "2"}));
    let r = h.quote_one(&id, s.clone());
    assert_eq!(r["status"], "success", "{r}");
    let errors = r["quoteErrors"].as_array().cloned().unwrap_or_default();
    assert_eq!(errors.len(), 1, "{r}");
    assert_eq!(errors[0]["serviceCode"], "parcel_ground");
    assert_eq!(errors[0]["packageTypeCode"], "parcel_custom");
    assert_eq!(errors[0]["errorCategory"], "INVALID_REQUEST");
    assert!(errors[0]["error"].as_str().unwrap().contains("length, width and height"), "{r}");
    // the single quote says the same
    let a = single_quote(&h, &id, &s);
    assert_eq!(a.expect(200)["quoteErrors"], r["quoteErrors"]);
}

mod named_services {
    //! For a named service and package type, a success answer has at least one quote or
    //! one quote error.

    use consign_conformance::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    /// Every (service, package type) the default catalog offers, with the package types of
    /// other services mixed in.
    fn named() -> Vec<(String, String)> {
        let h = Harness::new();
        let id = h.create_customer("ann@example.com");
        let services = h.services(&id);
        let packages: Vec<String> = services
            .iter()
            .flat_map(|s| s["packageTypes"].as_array().cloned().unwrap_or_default())
            .filter_map(|p| p["packageTypeCode"].as_str().map(String::from))
            .collect();
        let mut pairs = Vec::new();
        for (i, s) in services.iter().enumerate() {
            let code = s["serviceCode"].as_str().unwrap_or_default().to_string();
            for p in s["packageTypes"].as_array().into_iter().flatten() {
                pairs.push((code.clone(), p["packageTypeCode"].as_str().unwrap_or_default().to_string()));
            }
            pairs.push((code.clone(), packages[(i * 7) % packages.len()].clone()));
            pairs.push((code, String::new()));
        }
        pairs
    }

    fn receiver(country: &str) -> Value {
        match country {
            "US" => la_address(),
            "CA" => ca_address(),
            _ => gb_address(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn a_named_service_is_quoted_or_says_why(
            pair in prop::sample::select(named()),
            to in prop::sample::select(vec!["US", "CA", "GB"]),
            dims in any::<bool>(),
            pieces in 1usize..3,
            weight in 1u32..2000,
        ) {
            let h = Harness::new();
            let id = h.create_customer("ann@example.com");
            let (service, package) = pair;
            let weight = format!("{}.{}", weight / 10, weight % 10);
            let piece = if dims {
                json!({"weight": weight, "length": "12", "width": "10", "height": "8", "insuranceAmount": null, "declaredValue": null})
            } else {
                json!({"weight": weight, "insuranceAmount": null, "declaredValue": null})
            };
            let declared = if to == "US" { Value::Null } else { json!("50") };
            let piece = with(piece, "/declaredValue", declared);
            let mut s = with(quote_shipment(), "/serviceCode", json!(service));
            s = with(s, "/packageTypeCode", json!(package));
            s = with(s, "/receiver", receiver(to));
            s = with(s, "/dimUnit", if dims { json!("in") } else { Value::Null });
            s = with(s, "/pieces", Value::Array(vec![piece; pieces]));
            let r = h.quote_one(&id, s);
            if r["status"] == "success" {
                let quotes = r["quotes"].as_array().map_or(0, Vec::len);
                let errors = r["quoteErrors"].as_array().map_or(0, Vec::len);
                prop_assert!(quotes + errors > 0, "{} / {:?}: {}", service, package, r);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Signature options: the documented generic codes, in any case.
// ---------------------------------------------------------------------------

#[test]
fn documented_signature_codes_are_quoted_in_any_case_as_each_carrier_option() {
    let (h, id) = setup();
    let total = |r: &Value, service: &str| {
        r["quotes"].as_array().unwrap().iter().find(|q| q["serviceCode"] == service).map(|q| q["totalAmount"].clone())
    };
    let generic = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!("DIRECT")));
    let lower = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!("direct")));
    let parcel = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!("parcel_signature")));
    let postal = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!("postal_signature_confirmation")));
    let totals = |r: &Value| r["quotes"].as_array().unwrap().iter().map(|q| q["totalAmount"].clone()).collect::<Vec<_>>();
    assert_eq!(totals(&generic), totals(&lower));
    assert!(total(&generic, "parcel_ground").is_some(), "{generic}");
    assert_eq!(total(&generic, "parcel_ground"), total(&parcel, "parcel_ground"));
    assert_eq!(total(&generic, "postal_priority_mail"), total(&postal, "postal_priority_mail"));
    // a carrier's own code in capitals names it too
    let upper = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!("PARCEL_SIGNATURE")));
    assert_eq!(total(&upper, "parcel_ground"), total(&parcel, "parcel_ground"));
}

/// `none`, `no_signature_required` and `service_default`, in any case, ask for no
/// signature: every carrier quotes as without one, in a batch quote and a single quote.
#[test]
fn codes_meaning_no_signature_are_quoted_as_no_signature() {
    let (h, id) = setup();
    let totals = |r: &Value| {
        r["quotes"].as_array().unwrap().iter().map(|q| (q["serviceCode"].clone(), q["totalAmount"].clone())).collect::<Vec<_>>()
    };
    let plain = h.quote_one(&id, quote_shipment());
    let signed = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!("direct")));
    assert_ne!(totals(&plain), totals(&signed), "a signature costs something");
    let single = |code: &str| {
        let body = with(quote_shipment(), "/signatureOptionCode", json!(code));
        h.call("POST", &Harness::path(&id, "/quote"), &body).expect(200).clone()
    };
    let single_plain = single("none");
    for code in ["none", "NONE", "no_signature_required", "No_Signature_Required", "service_default", "SERVICE_DEFAULT"] {
        let r = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!(code)));
        assert_eq!(totals(&r), totals(&plain), "{code}");
        assert_eq!(r["quoteErrors"], plain["quoteErrors"], "{code}");
        assert_eq!(totals(&single(code)), totals(&single_plain), "{code}");
    }
    let null = h.call("POST", &Harness::path(&id, "/quote"), &quote_shipment()).expect(200).clone();
    assert_eq!(totals(&single_plain), totals(&null));
}

#[test]
fn a_generic_signature_code_a_carrier_lacks_is_that_carriers_quote_error() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!("indirect")));
    assert!(!quotes_of(&r, "expressground").is_empty(), "carrier D has an indirect signature: {r}");
    assert!(quotes_of(&r, "parcel").is_empty() && !quote_errors_of(&r, "parcel").is_empty(), "{r}");
}

#[test]
fn a_signature_code_no_carrier_has_fails_the_shipment() {
    let (h, id) = setup();
    let r = h.quote_one(&id, with(quote_shipment(), "/signatureOptionCode", json!("notarized")));
    assert_shipment_error(&r, "INVALID_REQUEST", "shipments[0].signatureOptionCode");
}
