//! Search shipments (4.3): the keyword, every matched field, scoping, order, the limit of
//! 100 (part 8), short keywords, and every field of a result.

use consign_conformance::*;
use serde_json::{json, Value};

fn with_receiver(name: &str, company: &str, phone: &str, email: &str) -> Value {
    let b = with(book_body(), "/receiver/name", json!(name));
    let b = with(b, "/receiver/company", json!(company));
    let b = with(b, "/receiver/phone", json!(phone));
    with(b, "/receiver/email", json!(email))
}

#[test]
fn the_keyword_is_required_and_not_blank() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let path = Harness::path(&id, "/searchShipments");
    h.call("POST", &path, &json!({})).assert_error(400, "INVALID_REQUEST", Some("keyword"));
    for blank in ["", "   "] {
        h.search(&id, blank).assert_error(400, "INVALID_REQUEST", Some("keyword"));
    }
    h.call("POST", &path, &json!({"keyword": 42})).assert_error(400, "INVALID_REQUEST", Some("keyword"));
    h.call("POST", &path, &json!({"keyword": null})).assert_error(400, "INVALID_REQUEST", Some("keyword"));
    h.search(&id, &"x".repeat(201)).assert_error(400, "INVALID_REQUEST", Some("keyword"));
    for control in ["Lee\u{0}", "Lee\nAnn", "a\tb"] {
        h.search(&id, control).assert_error(400, "INVALID_REQUEST", Some("keyword"));
    }
    h.raw("POST", &path, "[]").assert_error(400, "INVALID_REQUEST", None);
    h.raw("POST", &path, "{").assert_error(400, "INVALID_REQUEST", None);
}

#[test]
fn an_unknown_customer_is_not_found_and_get_is_not_allowed() {
    let h = Harness::new();
    h.search("C9999999", "Lee").assert_error_without_details(404, "NOT_FOUND");
    let id = h.shipper("ann@example.com");
    h.get(&Harness::path(&id, "/searchShipments")).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
}

#[test]
fn no_shipments_no_results() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    assert!(h.found(&id, "Lee").is_empty());
    assert!(h.found(&id, "Le").is_empty());
    assert!(h.found(&id, "L").is_empty());
}

#[test]
fn every_named_field_is_matched_as_a_case_insensitive_substring() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let other = h.book(&id, &with_receiver("Zed Quist", "Other Co", "312-555-0100", "zed@other.example"));
    let body = with_receiver("Mira Okafor", "Okafor Textiles", "(646) 555-0123", "mira@okafor-textiles.example");
    let body = with(body, "/shipmentReference", json!("REF-77812"));
    let body = with(body, "/shipmentReference2", json!("SECOND-4411"));
    let body = with(body, "/orderNumber", json!("ORDNUM-9931"));
    let booked = h.book_with(&id, &body);
    let booked = booked.expect(201).clone();
    let book = booked["bookNumber"].as_str().unwrap().to_string();
    let tracking = booked["trackingNumber"].as_str().unwrap().to_string();
    let keywords = [
        "Mira Okafor",                   // receiver name
        "mira okafor",                   // any case
        "OKAFOR TEXTILES",               // receiver company
        "extil",                         // a substring
        "(646) 555-0123",                // receiver phone as given
        "6465550123",                    // receiver phone digits
        "555-0123",                      // part of it
        "mira@okafor",                   // receiver e-mail
        "REF-77812",                     // shipper reference
        "second-4411",                   // second reference
        "ORDNUM-9931",                   // order number
        tracking.as_str(),               // tracking number
        &tracking[tracking.len() - 8..], // its end
        book.as_str(),                   // book number
    ];
    for k in keywords {
        assert_eq!(h.found(&id, k), vec![book.clone()], "keyword {k:?}");
    }
    // The sender fields (the same on both shipments) match both, newest first.
    for k in ["Ann Lee", "Lee Ceramics", "2155550142", "(215) 555-0142", "ann@leeceramics.example"] {
        assert_eq!(h.found(&id, k), vec![book.clone(), other.clone()], "keyword {k:?}");
    }
    assert!(h.found(&id, "no such text").is_empty());
}

#[test]
fn the_order_id_of_a_fulfilment_is_matched() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let integration = h.integration(&id);
    h.call("PUT", &Harness::path(&id, &format!("/integrations/{integration}/orders/SHOP-88123")), &order_body("SHOP-88123")).expect(201);
    let body = with(
        book_body(),
        "/fulfillment",
        json!({"integrationId": integration, "orderId": "SHOP-88123", "items": [{"lineId": "L2", "quantity": 1}]}),
    );
    let book = h.book(&id, &body);
    h.book(&id, &book_body());
    assert_eq!(h.found(&id, "shop-88123"), vec![book.clone()]);
    assert_eq!(h.found(&id, "88123"), vec![book]);
}

#[test]
fn one_customer_never_sees_another_customers_shipments() {
    let h = Harness::new();
    let ann = h.shipper("ann@example.com");
    let bo = h.shipper("bo@example.com");
    let ann_book = h.book(&ann, &book_body());
    let bo_book = h.book(&bo, &book_body());
    assert_eq!(h.found(&ann, "Lee Ceramics"), vec![ann_book.clone()]);
    assert_eq!(h.found(&bo, "Lee Ceramics"), vec![bo_book.clone()]);
    assert!(h.found(&ann, &bo_book).is_empty());
    assert!(h.found(&bo, &ann_book).is_empty());
    assert_eq!(h.found(&ann, "Le").len(), 1);
    assert_eq!(h.found(&bo, "L").len(), 1);
}

#[test]
fn results_are_newest_first_and_voided_shipments_are_included() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let books: Vec<String> = (0..3).map(|_| h.book(&id, &book_body())).collect();
    h.void(&id, &books[1]);
    let a = h.search(&id, "Kim Studio");
    let shipments = a.expect(200)["shipments"].as_array().unwrap().clone();
    let found: Vec<&str> = shipments.iter().map(|s| s["bookNumber"].as_str().unwrap()).collect();
    assert_eq!(found, [books[2].as_str(), books[1].as_str(), books[0].as_str()]);
    let voided: Vec<bool> = shipments.iter().map(|s| s["voided"].as_bool().unwrap()).collect();
    assert_eq!(voided, [false, true, false]);
}

#[test]
fn at_most_100_shipments_are_returned_the_newest() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let books: Vec<String> = (0..102).map(|_| h.book(&id, &book_body())).collect();
    for k in ["Kim Studio", "Ki", "K"] {
        let found = h.found(&id, k);
        assert_eq!(found.len(), 100, "keyword {k:?}");
        assert_eq!(found[0], books[101], "keyword {k:?}");
        assert_eq!(found[99], books[2], "keyword {k:?}");
    }
}

#[test]
fn keywords_of_one_and_two_characters_match_as_substrings() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let zq = h.book(&id, &with_receiver("Bo Zq", "", "312-555-0100", ""));
    let hash = h.book(&id, &with(book_body(), "/shipmentReference", json!("A#1")));
    let plain = h.book(&id, &book_body());
    // At the end of a field, in any case, and not across fields.
    assert_eq!(h.found(&id, "zq"), vec![zq.clone()]);
    assert_eq!(h.found(&id, "ZQ"), vec![zq.clone()]);
    assert_eq!(h.found(&id, "Z"), vec![zq.clone()]);
    assert_eq!(h.found(&id, "#"), vec![hash.clone()]);
    assert_eq!(h.found(&id, "#1"), vec![hash.clone()]);
    assert!(h.found(&id, "qx").is_empty());
    // "Le" is in the sender of all three.
    assert_eq!(h.found(&id, "le"), vec![plain.clone(), hash, zq]);
    assert_eq!(h.found(&id, " L").len(), 3, "a keyword is trimmed");
}

#[test]
fn query_syntax_in_a_keyword_is_plain_text() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &with(book_body(), "/shipmentReference", json!("say \"hi\" OR (x*)")));
    for k in ["\"hi\"", "OR (x*)", "\"", "*", "(x", "AND", "NEAR(a b)", "hi\" OR \"Lee"] {
        let a = h.search(&id, k);
        assert_eq!(a.status, 200, "{k:?}: {}", a.body);
    }
    assert_eq!(h.found(&id, "\"hi\" or (x*)"), vec![book.clone()]);
    assert_eq!(h.found(&id, "\""), vec![book]);
    assert!(h.found(&id, "hi\" OR \"Lee").is_empty());
}

#[test]
fn a_result_carries_every_field_of_the_search_table() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let booked = h.book_with(&id, &book_body()).expect(201).clone();
    let a = h.search(&id, "INV-1001");
    let s = a.expect(200)["shipments"][0].clone();
    assert_eq!(s["bookNumber"], booked["bookNumber"]);
    assert_eq!(s["trackingNumber"], booked["trackingNumber"]);
    assert_eq!(s["trackingNumbers"], json!([booked["trackingNumber"]]));
    assert_eq!(s["voided"], false);
    assert_eq!(s["carrierCode"], "postal");
    assert_eq!(s["serviceCode"], "postal_priority_mail");
    assert_eq!(s["packageTypeCode"], "postal_custom");
    assert_eq!(s["shipmentDate"], days_ahead(1));
    assert_eq!(s["shipperReference"], "INV-1001");
    assert_eq!(s["shipmentReference"], "INV-1001");
    assert_eq!(s["shipperReference2"], "PO-77");
    assert_eq!(s["contentDescription"], "ceramics");
    for party in ["sender", "receiver"] {
        for key in ["name", "company", "address1", "address2", "city", "state", "zip", "country"] {
            assert!(s[party][key].is_string(), "{party}.{key} in {s}");
        }
    }
    assert_eq!(s["sender"]["name"], "Ann Lee");
    assert_eq!(s["receiver"]["city"], "Los Angeles");
    assert_eq!(s["residential"], false);
    assert_eq!(s["signatureOptionCode"], Value::Null);
    assert_eq!(s["weightUnit"], "lb");
    assert_eq!(s["dimUnit"], "in");
    assert_eq!(s["currency"], "USD");
    assert!(s.as_object().unwrap().contains_key("customsCurrency"), "{s}");
    assert_eq!(
        s["pieces"],
        json!([{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}])
    );
    assert_eq!(s["fulfillment"], Value::Null);
    assert!(s["totalShippingCost"].is_number(), "{s}");
    assert_eq!(s["totalShippingCost"], booked["totalShippingCost"]);
}

#[test]
fn ounces_and_grams_are_shown_as_pounds_and_kilograms() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let oz = with(with(book_body(), "/weightUnit", json!("oz")), "/pieces/0/weight", json!("24"));
    let oz = with(oz, "/shipmentReference", json!("OUNCES"));
    h.book(&id, &oz);
    let s = h.search(&id, "ounces").expect(200)["shipments"][0].clone();
    assert_eq!(s["weightUnit"], "lb");
    assert_eq!(s["pieces"][0]["weight"], "1.5");
    let g = with(with(book_body(), "/weightUnit", json!("g")), "/pieces/0/weight", json!("750"));
    let g = with(with(g, "/dimUnit", json!("cm")), "/shipmentReference", json!("GRAMS"));
    h.book(&id, &g);
    let s = h.search(&id, "grams").expect(200)["shipments"][0].clone();
    assert_eq!(s["weightUnit"], "kg");
    assert_eq!(s["pieces"][0]["weight"], "0.75");
    assert_eq!(s["dimUnit"], "cm");
}

#[test]
fn a_multipiece_shipment_is_found_by_every_tracking_number() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let piece = json!({"weight": "1", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null});
    let booked = h.book_with(&id, &with(book_body(), "/pieces", json!([piece, piece]))).expect(201).clone();
    let numbers = booked["trackingNumbers"].as_array().unwrap().clone();
    assert_eq!(numbers.len(), 2);
    for n in numbers {
        let found = h.found(&id, n.as_str().unwrap());
        assert_eq!(found, vec![booked["bookNumber"].as_str().unwrap().to_string()]);
        let s = h.search(&id, n.as_str().unwrap()).expect(200)["shipments"][0].clone();
        assert_eq!(s["pieces"].as_array().unwrap().len(), 2);
    }
}
