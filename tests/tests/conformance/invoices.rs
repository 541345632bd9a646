//! Retrieve commercial invoice, `GET .../shipments/:bookNumber/commercialInvoice`: the
//! invoice of a booking that carries `commercialInvoice` (4.5), read back as text.

use std::sync::Arc;

use consign::{FixedClock, Shipping};
use consign_conformance::*;
use lopdf::Document;
use serde_json::{json, Value};

/// Carrier C express worldwide, Philadelphia to London, with `invoice` (recharges approved).
fn invoiced(invoice: Value) -> Value {
    let mut b = intl_shipment();
    b["carrierCode"] = json!("intlexpress");
    b["serviceCode"] = json!("intlexpress_express_worldwide");
    b["packageTypeCode"] = json!("intlexpress_custom");
    b["commercialInvoice"] = invoice;
    b["approvePrepayRecharge"] = json!(true);
    b
}

fn invoice_path(book: &str) -> String {
    format!("/shipments/{book}/commercialInvoice")
}

/// The PDF of the answer to retrieve commercial invoice, parsed.
#[track_caller]
fn pdf_of(answer: &Answer) -> Document {
    let body = answer.expect(200);
    assert_eq!(body["type"], "application/pdf", "{body}");
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD.decode(body["data"].as_str().unwrap()).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    Document::load_mem(&bytes).unwrap()
}

fn text_of(doc: &Document) -> String {
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    doc.extract_text(&pages).unwrap()
}

fn page_size(doc: &Document, page: u32) -> (f32, f32) {
    let dict = doc.get_dictionary(doc.get_pages()[&page]).unwrap();
    let n: Vec<f32> = dict.get(b"MediaBox").unwrap().as_array().unwrap().iter().map(|o| o.as_float().unwrap()).collect();
    (n[2], n[3])
}

#[test]
fn a_booking_with_an_invoice_prints_every_field_on_a_letter_page() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let mut inv = invoice("1.2");
    inv["dhlTaxIds"] = json!([{"number": "GB987654321000", "type": "EOR", "issuerCountry": "GB"}]);
    inv["senderTaxIdNumberType"] = json!("fgn");
    let booked = h.book_with(&id, &invoiced(inv)).expect(201).clone();
    let book = booked["bookNumber"].as_str().unwrap();
    let doc = pdf_of(&h.get(&Harness::path(&id, &invoice_path(book))));
    assert_eq!(doc.get_pages().len(), 1);
    assert_eq!(page_size(&doc, 1), (612.0, 792.0));
    let text = text_of(&doc);
    let date = days_ahead(2);
    for needle in [
        "COMMERCIAL INVOICE",
        &format!("Date: {date}"),
        &format!("Book number: {book}"),
        &format!("Tracking: {}", booked["trackingNumber"].as_str().unwrap()),
        "EXPORTER",
        "Ann Lee",
        "Philadelphia, PA 19106",
        "Tax id (FGN): 12-3456789",
        "IMPORTER",
        "Jo Smith",
        "Tax id: GB123",
        "Carrier tax ids: EOR GB987654321000 (GB)",
        "Terms of trade: DAP",
        "Packages: 1",
        "Total weight: 1.2 kg",
        "Package marks: 1/1",
        "Stoneware mug",
        "6912.00",
        "20.00",
        "80.00",
        "1.2 kg",
        "Total value: 80.00 USD",
        "I declare that all the information contained in this invoice is true and correct",
        "Signature of the exporter",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in {text}");
    }
    // The carrier's and the service's names, as the default catalog gives them.
    assert!(text.contains("Carrier C International Express") && text.contains("Express Worldwide"), "{text}");
}

#[test]
fn the_ftr_or_itn_given_and_the_customs_currency_are_printed() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let mut body = invoiced(with(invoice("1.2"), "/itnNumber", json!("X20261125123456")));
    body["customsCurrency"] = json!("GBP");
    let book = h.book(&id, &body);
    let text = text_of(&pdf_of(&h.get(&Harness::path(&id, &invoice_path(&book)))));
    assert!(text.contains("ITN: X20261125123456") && !text.contains("FTR:"), "{text}");
    assert!(text.contains("Total value: 80.00 GBP"), "{text}");
    let book = h.book(&id, &invoiced(with(invoice("1.2"), "/ftrNumber", json!("30.37(a)"))));
    let text = text_of(&pdf_of(&h.get(&Harness::path(&id, &invoice_path(&book)))));
    assert!(text.contains("FTR: 30.37(a)"), "{text}");
}

#[test]
fn a_hundred_items_run_over_pages_each_printed_once_with_the_total_last() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let items: Vec<Value> = (0..100)
        .map(|i| {
            json!({"description": format!("Glazed bowl no. {i}"), "quantity": 1, "unitValue": "2.50", "weight": "0.01",
            "htsNumber": "6912.00", "countryOfOrigin": "US"})
        })
        .collect();
    let book = h.book(&id, &invoiced(with(invoice("1.2"), "/items", Value::Array(items))));
    let doc = pdf_of(&h.get(&Harness::path(&id, &invoice_path(&book))));
    let pages = u32::try_from(doc.get_pages().len()).unwrap();
    assert!(pages >= 2, "{pages} pages");
    let all = text_of(&doc);
    for i in 0..100 {
        assert_eq!(all.matches(&format!("Glazed bowl no. {i}\n")).count(), 1, "item {i} in {all}");
    }
    let last = doc.extract_text(&[pages]).unwrap();
    assert!(last.contains("Total value: 250.00 USD") && last.contains(&format!("Page {pages} of {pages}")), "{last}");
}

#[test]
fn retrieve_shipment_and_search_show_whether_the_invoice_goes_electronically() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let electronic = h.book(&id, &invoiced(invoice("1.2")));
    let paper = h.book(&id, &invoiced(with(invoice("1.2"), "/sendElectronically", json!(false))));
    let unsaid = h.book(&id, &invoiced(without(invoice("1.2"), "/sendElectronically")));
    let none = h.book(&id, &book_body());
    let shown = |book: &str| h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200)["commercialInvoice"].clone();
    assert_eq!(shown(&electronic), json!({"sendElectronically": true}));
    assert_eq!(shown(&paper), json!({"sendElectronically": false}));
    assert_eq!(shown(&unsaid), json!({"sendElectronically": false}));
    assert_eq!(shown(&none), Value::Null);
    let found = h.search(&id, &electronic).expect(200).clone();
    assert_eq!(found["shipments"][0]["commercialInvoice"], json!({"sendElectronically": true}));
}

#[test]
fn no_invoice_another_customers_or_an_unknown_shipment_is_not_found() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let other = h.create_customer("bo@example.com");
    let plain = h.book(&id, &book_body());
    let invoiced_book = h.book(&id, &invoiced(invoice("1.2")));
    h.get(&Harness::path(&id, &invoice_path(&plain))).assert_error_without_details(404, "NOT_FOUND");
    h.get(&Harness::path(&other, &invoice_path(&invoiced_book))).assert_error_without_details(404, "NOT_FOUND");
    h.get(&Harness::path(&id, &invoice_path("1999999999"))).assert_error_without_details(404, "NOT_FOUND");
    h.get(&Harness::path("C9999999", &invoice_path(&invoiced_book))).assert_error_without_details(404, "NOT_FOUND");
    h.call("POST", &Harness::path(&id, &invoice_path(&invoiced_book)), &json!({})).assert_error_without_details(405, "METHOD_NOT_ALLOWED");
}

#[test]
fn a_voided_shipments_invoice_is_not_printed() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &invoiced(invoice("1.2")));
    h.void(&id, &book);
    h.get(&Harness::path(&id, &invoice_path(&book))).assert_error_without_details(409, "CONFLICT");
}

#[test]
fn with_lazy_labels_the_invoice_is_rendered_on_retrieval_the_same() {
    let clock = Arc::new(FixedClock::at(NOW).unwrap());
    let h = Harness::new();
    let lazy = Harness::with(Shipping::builder().clock(clock.clone()).lazy_labels(true), clock);
    let mut texts = Vec::new();
    for h in [&h, &lazy] {
        let id = h.shipper("ann@example.com");
        let book = h.book(&id, &invoiced(invoice("1.2")));
        texts.push(text_of(&pdf_of(&h.get(&Harness::path(&id, &invoice_path(&book))))));
    }
    assert_eq!(texts[0], texts[1]);
}
