//! Create manifest (4.10, part 7, part 8) and get it back.

use consign_conformance::*;
use serde_json::{json, Value};

fn create(h: &Harness, id: &str, body: &Value) -> Answer {
    h.call("POST", &Harness::path(id, "/manifest"), body)
}

fn decode_base64(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).expect("standard base64")
}

/// A shipment on a manifest is in the carrier's hands: its void is refused, and nothing
/// is refunded.
#[test]
fn a_shipment_on_a_manifest_cannot_be_voided() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let manifest = create(&h, &id, &manifest_body("postal", &[&a])).expect(201)["manifestId"].as_str().unwrap().to_string();
    let before = h.get(&Harness::path(&id, "/prepay")).expect(200).clone();
    let r = h.call("POST", &Harness::path(&id, &format!("/shipments/{a}")), &json!({"voided": true}));
    r.assert_error_without_details(409, "CONFLICT");
    assert!(r.body["error"].as_str().unwrap().contains(&format!("on manifest {manifest}")), "{:?}", r.body);
    assert_eq!(h.get(&Harness::path(&id, "/prepay")).expect(200), &before);
}

#[test]
fn a_manifest_is_a_pdf_of_the_shipments() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let b = h.book(&id, &book_body());
    let r = create(&h, &id, &manifest_body("postal", &[&a, &b]));
    let m = r.expect(201).clone();
    let manifest_id = m["manifestId"].as_str().unwrap().to_string();
    assert!(!manifest_id.is_empty());
    assert_eq!(m["type"], "application/pdf");
    let pdf = decode_base64(m["data"].as_str().unwrap());
    assert!(pdf.starts_with(b"%PDF-"), "a PDF");
    assert!(pdf.windows(5).any(|w| w == b"%%EOF"));
    assert_eq!(m["bookNumbers"], json!([a, b]));
    // The same document comes back.
    let g = h.get(&Harness::path(&id, &format!("/manifest/{manifest_id}")));
    assert_eq!(g.expect(200), &m);
}

#[test]
fn every_required_field_is_named_when_missing() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let body = manifest_body("postal", &[&a]);
    for key in ["carrierCode", "bookNumbers", "name", "company", "address1", "address2", "city", "state", "zip", "country"] {
        create(&h, &id, &without(body.clone(), &format!("/{key}"))).assert_error(400, "INVALID_REQUEST", Some(key));
    }
    // A state is required outside North America too, but may be empty there.
    let gb = json!({"name": "Ada Byron", "company": "Engines Ltd", "address1": "10 Downing St", "address2": "", "city": "London",
        "zip": "SW1A 2AA", "country": "GB"});
    let mut body_gb = manifest_body("postal", &[&a]);
    for (k, v) in gb.as_object().unwrap() {
        body_gb = with(body_gb, &format!("/{k}"), v.clone());
    }
    create(&h, &id, &without(body_gb.clone(), "/state")).assert_error(400, "INVALID_REQUEST", Some("state"));
    // No phone needed.
    create(&h, &id, &with(body_gb, "/state", json!(""))).expect(201);
}

#[test]
fn the_address_follows_the_address_rules() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let body = manifest_body("postal", &[&a]);
    for (key, value) in [("state", "Penn"), ("state", "P"), ("zip", "ABCDE"), ("country", "Germany"), ("country", "XX"), ("name", "")] {
        create(&h, &id, &with(body.clone(), &format!("/{key}"), json!(value))).assert_error(400, "INVALID_REQUEST", Some(key));
    }
    let ca = json!({"city": "Ottawa", "state": "Ontario", "zip": "K1A 0A9", "country": "CA"});
    let mut b = body.clone();
    for (k, v) in ca.as_object().unwrap() {
        b = with(b, &format!("/{k}"), v.clone());
    }
    create(&h, &id, &b).assert_error(400, "INVALID_REQUEST", Some("state"));
    create(&h, &id, &with(b, "/state", json!("ON"))).expect(201);
}

#[test]
fn one_carrier_per_manifest_and_it_matches_carrier_code() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let postal = h.book(&id, &book_body());
    let parcel = h.book(&id, &book_body_for("parcel", "parcel_ground", "parcel_custom"));
    let a = create(&h, &id, &manifest_body("postal", &[&postal, &parcel]));
    a.assert_error(400, "INVALID_REQUEST", Some("bookNumbers"));
    assert!(a.body["error"].as_str().unwrap().contains("one carrier"), "{}", a.body);
    create(&h, &id, &manifest_body("parcel", &[&postal])).assert_error(400, "INVALID_REQUEST", Some("carrierCode"));
    create(&h, &id, &manifest_body("", &[&postal])).assert_error(400, "INVALID_REQUEST", Some("carrierCode"));
    create(&h, &id, &manifest_body("parcel", &[&parcel])).expect(201);
}

#[test]
fn book_numbers_must_be_the_customers_listed_once_and_not_voided() {
    let h = Harness::new();
    let ann = h.shipper("ann@example.com");
    let bo = h.shipper("bo@example.com");
    let a = h.book(&ann, &book_body());
    let v = h.book(&ann, &book_body());
    let theirs = h.book(&bo, &book_body());
    h.void(&ann, &v);
    create(&h, &ann, &manifest_body("postal", &[])).assert_error(400, "INVALID_REQUEST", Some("bookNumbers"));
    create(&h, &ann, &manifest_body("postal", &[&a, &a])).assert_error(400, "INVALID_REQUEST", Some("bookNumbers[1]"));
    create(&h, &ann, &manifest_body("postal", &[&a, &v])).assert_error(400, "INVALID_REQUEST", Some("bookNumbers[1]"));
    create(&h, &ann, &manifest_body("postal", &[&a, &theirs])).assert_error(404, "NOT_FOUND", Some("bookNumbers[1]"));
    create(&h, &ann, &manifest_body("postal", &["1999999999"])).assert_error(404, "NOT_FOUND", Some("bookNumbers[0]"));
    create(&h, "C9999999", &manifest_body("postal", &[&a])).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn a_shipment_is_on_one_manifest_only() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let a = h.book(&id, &book_body());
    let b = h.book(&id, &book_body());
    create(&h, &id, &manifest_body("postal", &[&a])).expect(201);
    create(&h, &id, &manifest_body("postal", &[&b, &a])).assert_error(409, "CONFLICT", Some("bookNumbers[1]"));
    // Nothing of the refused manifest was kept: b is still free.
    create(&h, &id, &manifest_body("postal", &[&b])).expect(201);
}

#[test]
fn foreign_and_unknown_manifests_are_not_found() {
    let h = Harness::new();
    let ann = h.shipper("ann@example.com");
    let bo = h.shipper("bo@example.com");
    let a = h.book(&ann, &book_body());
    let m = create(&h, &ann, &manifest_body("postal", &[&a])).expect(201)["manifestId"].as_str().unwrap().to_string();
    h.get(&Harness::path(&bo, &format!("/manifest/{m}"))).assert_error_without_details(404, "NOT_FOUND");
    h.get(&Harness::path(&ann, "/manifest/M9999999")).assert_error_without_details(404, "NOT_FOUND");
    h.get(&Harness::path(&ann, &format!("/manifest/{m}"))).expect(200);
}

#[test]
fn wrong_methods_are_not_allowed() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    h.get(&Harness::path(&id, "/manifest")).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
    h.raw("POST", &Harness::path(&id, "/manifest/M0000001"), "{}").assert_error_without_details(405, "METHOD_NOT_ALLOWED");
}

#[test]
fn the_pdf_lists_every_shipment_with_totals_and_the_manifest_id() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let booked: Vec<Value> = (0..60).map(|_| h.book_with(&id, &book_body()).expect(201).clone()).collect();
    let books: Vec<&str> = booked.iter().map(|b| b["bookNumber"].as_str().unwrap()).collect();
    let m = create(&h, &id, &manifest_body("postal", &books));
    let m = m.expect(201).clone();
    let pdf = lopdf::Document::load_mem(&decode_base64(m["data"].as_str().unwrap())).expect("a PDF that parses");
    let pages: Vec<u32> = pdf.get_pages().keys().copied().collect();
    assert!(pages.len() >= 2, "60 lines need more than one page");
    let text = pdf.extract_text(&pages).unwrap();
    for b in &booked {
        assert!(text.contains(b["bookNumber"].as_str().unwrap()), "book number {} listed", b["bookNumber"]);
        assert!(text.contains(b["trackingNumber"].as_str().unwrap()), "tracking number {} listed", b["trackingNumber"]);
    }
    assert!(text.contains(m["manifestId"].as_str().unwrap()));
    assert!(text.contains("Total shipments: 60"), "totals");
    assert!(text.contains("Total weight: 120 lb"), "total weight");
    assert!(text.contains("Los Angeles"), "destination");
}
