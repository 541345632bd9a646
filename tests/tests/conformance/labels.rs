//! Retrieve the labels of several shipments at once,
//! `POST .../shipments/multiple/labels/:labelImageFormat` with `{"bookNumbers": [...]}`:
//! how a desk prints the day's labels in one go.

use consign_conformance::*;
use lopdf::Document;
use serde_json::{json, Value};

fn labels(h: &Harness, id: &str, format: &str, books: &[&str]) -> Answer {
    h.call("POST", &Harness::path(id, &format!("/shipments/multiple/labels/{format}")), &json!({ "bookNumbers": books }))
}

fn decode(s: &Value) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s.as_str().unwrap()).unwrap()
}

/// Books `pieces` pieces of 2 lb (postal, which prints PDF and ZPL) and returns the
/// book number and the tracking numbers.
fn booked(h: &Harness, id: &str, pieces: usize) -> (String, Vec<String>) {
    let piece = json!({"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null});
    let body = with(book_body(), "/pieces", Value::Array(vec![piece; pieces]));
    let a = h.book_with(id, &body);
    let b = a.expect(201);
    let tracking = b["trackingNumbers"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
    (b["bookNumber"].as_str().unwrap().to_string(), tracking)
}

#[test]
fn pdf_is_one_document_with_a_page_per_label_in_the_order_given() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (two, two_tracking) = booked(&h, &id, 2);
    let (one, one_tracking) = booked(&h, &id, 1);
    let body = labels(&h, &id, "pdf", &[&one, &two]).expect(200).clone();
    assert_eq!(body["labelImageFormat"], "PDF");
    let images = body["base64Images"].as_array().unwrap();
    assert_eq!(images.len(), 1, "one document");
    let doc = Document::load_mem(&decode(&images[0])).unwrap();
    assert_eq!(doc.get_pages().len(), 3);
    let expected = [(&one_tracking[0], "PKG: 1 OF 1"), (&two_tracking[0], "PKG: 1 OF 2"), (&two_tracking[1], "PKG: 2 OF 2")];
    for (page, (tracking, piece)) in (1..).zip(expected) {
        let text = doc.extract_text(&[page]).unwrap();
        assert!(text.contains(tracking.as_str()) && text.contains(piece), "page {page}: {text}");
    }
}

#[test]
fn zpl_is_one_entry_per_label_in_the_order_given() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (two, two_tracking) = booked(&h, &id, 2);
    let (one, one_tracking) = booked(&h, &id, 1);
    let body = labels(&h, &id, "ZPL", &[&two, &one]).expect(200).clone();
    assert_eq!(body["labelImageFormat"], "ZPL");
    let zpl: Vec<String> = body["base64Images"].as_array().unwrap().iter().map(|i| String::from_utf8(decode(i)).unwrap()).collect();
    assert_eq!(zpl.len(), 3);
    for (label, tracking) in zpl.iter().zip([&two_tracking[0], &two_tracking[1], &one_tracking[0]]) {
        assert!(label.starts_with("^XA") && label.trim_end().ends_with("^XZ") && label.contains(tracking.as_str()), "{label}");
    }
}

#[test]
fn a_format_the_carrier_does_not_print_is_refused_naming_the_shipment() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book, _) = booked(&h, &id, 1);
    labels(&h, &id, "EPL2", &[&book]).assert_error(400, "INVALID_REQUEST", Some("bookNumbers[0]"));
    labels(&h, &id, "GIF", &[&book]).assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
}

#[test]
fn none_unknown_another_customers_and_voided_shipments_are_refused_naming_the_entry() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let other = h.shipper("bo@example.com");
    let (book, _) = booked(&h, &id, 1);
    let (theirs, _) = booked(&h, &other, 1);
    let (voided, _) = booked(&h, &id, 1);
    h.void(&id, &voided);
    labels(&h, &id, "PDF", &[]).assert_error(400, "INVALID_REQUEST", Some("bookNumbers"));
    labels(&h, &id, "PDF", &[&book, "1999999999"]).assert_error(404, "NOT_FOUND", Some("bookNumbers[1]"));
    labels(&h, &id, "PDF", &[&book, &theirs]).assert_error(404, "NOT_FOUND", Some("bookNumbers[1]"));
    labels(&h, &id, "PDF", &[&voided]).assert_error(409, "CONFLICT", Some("bookNumbers[0]"));
    labels(&h, "C9999999", "PDF", &[&book]).assert_error_without_details(404, "NOT_FOUND");
    h.get(&Harness::path(&id, "/shipments/multiple/labels/PDF")).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
}

#[test]
fn more_than_500_book_numbers_are_refused_before_any_is_looked_up() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let many: Vec<String> = (0..501).map(|i| format!("{}", 1_900_000_000 + i)).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let a = labels(&h, &id, "PDF", &many);
    assert_eq!((a.status, a.body["errorCategory"].as_str()), (400, Some("LIMIT_EXCEEDED")), "{}", a.body);
    assert!(a.fields().iter().all(|f| f.starts_with("bookNumbers")), "{:?}", a.fields());
}

fn media_box(doc: &Document, page: u32) -> (f32, f32) {
    let dict = doc.get_dictionary(doc.get_pages()[&page]).unwrap();
    let n: Vec<f32> = dict.get(b"MediaBox").unwrap().as_array().unwrap().iter().map(|o| o.as_float().unwrap()).collect();
    (n[2], n[3])
}

#[test]
fn a_sheet_layout_puts_two_labels_on_each_letter_or_a4_page() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (two, _) = booked(&h, &id, 2);
    let (one, _) = booked(&h, &id, 1);
    for (layout, size) in [("letter", (612.0, 792.0)), ("A4", (595.0, 842.0))] {
        let path = Harness::path(&id, &format!("/shipments/multiple/labels/PDF?layout={layout}"));
        let body = h.call("POST", &path, &json!({ "bookNumbers": [two, one] })).expect(200).clone();
        let doc = Document::load_mem(&decode(&body["base64Images"][0])).unwrap();
        assert_eq!(doc.get_pages().len(), 2, "three labels, two a sheet");
        assert_eq!(media_box(&doc, 1), size);
        // One shipment's labels on sheets, from either label route.
        for tail in [format!("{two}/label?layout={layout}"), format!("{two}/label/pdf?layout={layout}")] {
            let body = h.get(&Harness::path(&id, &format!("/shipments/{tail}"))).expect(200).clone();
            assert_eq!(body["base64Images"].as_array().unwrap().len(), 1, "{tail}");
            let doc = Document::load_mem(&decode(&body["base64Images"][0])).unwrap();
            assert_eq!((doc.get_pages().len(), media_box(&doc, 1)), (1, size), "{tail}");
        }
    }
    // 4x6 is the default, one page per label.
    let body = h.get(&Harness::path(&id, &format!("/shipments/{two}/label/PDF?layout=4x6"))).expect(200).clone();
    assert_eq!(body["base64Images"].as_array().unwrap().len(), 2);
}

#[test]
fn sheets_are_pdf_and_an_unknown_layout_is_refused() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (book, _) = booked(&h, &id, 1);
    h.get(&Harness::path(&id, &format!("/shipments/{book}/label/ZPL?layout=letter"))).assert_error(400, "INVALID_REQUEST", Some("layout"));
    h.get(&Harness::path(&id, &format!("/shipments/{book}/label?layout=legal"))).assert_error(400, "INVALID_REQUEST", Some("layout"));
    let path = Harness::path(&id, "/shipments/multiple/labels/ZPL?layout=a4");
    h.call("POST", &path, &json!({ "bookNumbers": [book] })).assert_error(400, "INVALID_REQUEST", Some("layout"));
}

/// Carrier B Priority Mail International, Philadelphia to London (recharges approved).
fn postal_abroad() -> Value {
    let mut b = intl_shipment();
    for (key, value) in
        [("carrierCode", "postal"), ("serviceCode", "postal_priority_mail_international"), ("packageTypeCode", "postal_custom")]
    {
        b[key] = json!(value);
    }
    b["approvePrepayRecharge"] = json!(true);
    b
}

/// The pages of the shipment's PDF label, as text.
fn label_pages(h: &Harness, id: &str, book: &str) -> Vec<String> {
    let body = h.get(&Harness::path(id, &format!("/shipments/{book}/label/PDF"))).expect(200).clone();
    let doc = Document::load_mem(&decode(&body["base64Images"][0])).unwrap();
    (1..=u32::try_from(doc.get_pages().len()).unwrap()).map(|p| doc.extract_text(&[p]).unwrap()).collect()
}

#[test]
fn carrier_b_abroad_prints_the_short_customs_declaration_after_its_label_up_to_400_usd() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &postal_abroad());
    let pages = label_pages(&h, &id, &book);
    assert_eq!(pages.len(), 2, "the label, then the declaration");
    assert!(pages[0].contains("SHIP TO:"), "{}", pages[0]);
    for needle in ["CUSTOMS DECLARATION CN 22", "ceramics", "80.00 USD", "Total value: 80.00 USD", "I certify that"] {
        assert!(pages[1].contains(needle), "missing {needle:?} in {}", pages[1]);
    }
    // The thermal formats print it as a second label.
    let zpl = h.get(&Harness::path(&id, &format!("/shipments/{book}/label/ZPL"))).expect(200).clone();
    let zpl = String::from_utf8(decode(&zpl["base64Images"][0])).unwrap();
    assert_eq!(zpl.matches("^XA").count(), 2);
    // At home, no declaration.
    let domestic = h.book(&id, &book_body());
    assert_eq!(label_pages(&h, &id, &domestic).len(), 1);
}

#[test]
fn carrier_b_abroad_over_400_usd_prints_the_long_form_from_the_invoice() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let invoice = with(invoice("1.2"), "/items/0/unitValue", json!("150.00"));
    let book = h.book(&id, &with(postal_abroad(), "/commercialInvoice", invoice));
    let pages = label_pages(&h, &id, &book);
    assert_eq!(pages.len(), 2);
    for needle in ["CUSTOMS DECLARATION CN 23", "Stoneware mug", "6912.00", "600.00 USD", "Ann Lee", "Jo Smith", "Total value: 600.00 USD"]
    {
        assert!(pages[1].contains(needle), "missing {needle:?} in {}", pages[1]);
    }
}

#[test]
fn a_book_number_given_twice_is_refused_naming_the_later_one() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let (one, _) = booked(&h, &id, 1);
    let (two, _) = booked(&h, &id, 1);
    labels(&h, &id, "PDF", &[&one, &two, &one]).assert_error(400, "INVALID_REQUEST", Some("bookNumbers[2]"));
    labels(&h, &id, "ZPL", &[&two, &two]).assert_error(400, "INVALID_REQUEST", Some("bookNumbers[1]"));
}

#[test]
fn labels_of_more_than_the_page_cap_are_refused_naming_book_numbers() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    // 99 pieces each: the eleventh shipment takes the labels past 1,000 pages.
    let books: Vec<String> = (0..11).map(|_| booked(&h, &id, 99).0).collect();
    let books: Vec<&str> = books.iter().map(String::as_str).collect();
    const { assert!(99 * 10 <= consign::limits::MAX_LABEL_PAGES && 99 * 11 > consign::limits::MAX_LABEL_PAGES) };
    for format in ["PDF", "ZPL"] {
        labels(&h, &id, format, &books).assert_error(400, "LIMIT_EXCEEDED", Some("bookNumbers"));
    }
    let doc = labels(&h, &id, "PDF", &books[..10]).expect(200).clone();
    assert_eq!(Document::load_mem(&decode(&doc["base64Images"][0])).unwrap().get_pages().len(), 990);
}
