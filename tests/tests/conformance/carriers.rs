//! Carriers as data: each carrier of the catalog states what it offers (label formats,
//! scan-based return labels, AM delivery, dangerous goods, postal endorsements, customs
//! declarations abroad, US territories as domestic, the pieces of the booking answer,
//! its tracking number kinds, pickup rules, whose events it accepts). A carrier the
//! default catalog lacks, imported with its rate data, books, prints and tracks by what
//! its entry states; each capability decides its rule for it.

use consign::{CsvKind, ErrorCategory, TrackingKind};
use consign_conformance::*;
use lopdf::Document;
use serde_json::{json, Value};

/// The new carrier's code; it borrows the postal carrier's entry, services and rates.
const COURIER: &str = "courier";

fn decode(s: &Value) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s.as_str().unwrap()).unwrap()
}

/// `code` of a postal service as the courier's: `postal_x` is `courier_x`.
fn courier_service(code: &str) -> String {
    code.strip_prefix("postal_").map_or_else(|| code.to_string(), |rest| format!("{COURIER}_{rest}"))
}

/// The default catalog with a carrier `courier` that is the postal carrier under another
/// code and name, with a copy of each postal service, changed by `edit`.
fn catalog_with_courier(h: &Harness, edit: impl FnOnce(&mut Value)) -> String {
    let mut doc: Value = serde_json::from_str(&h.shipping.export_catalog().unwrap()).unwrap();
    let mut courier = doc["carriers"].as_array().unwrap().iter().find(|c| c["code"] == "postal").unwrap().clone();
    courier["code"] = json!(COURIER);
    courier["label"] = json!("Courier Co");
    doc["carriers"].as_array_mut().unwrap().push(courier);
    let copies: Vec<Value> = doc["services"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["carrier"] == "postal")
        .map(|s| {
            let mut copy = s.clone();
            copy["carrier"] = json!(COURIER);
            copy["code"] = json!(courier_service(s["code"].as_str().unwrap()));
            copy
        })
        .collect();
    doc["services"].as_array_mut().unwrap().extend(copies);
    edit(doc["carriers"].as_array_mut().unwrap().last_mut().unwrap());
    doc.to_string()
}

/// Rate data of every kind for the courier: the postal carrier's rows under its code.
fn import_courier_rates(h: &Harness) {
    for kind in CsvKind::ALL {
        let csv = h.shipping.export_rates(kind).unwrap();
        let columns = kind.columns();
        if columns.first() != Some(&"carrier") {
            continue;
        }
        let service = columns.iter().position(|c| *c == "service");
        let mut lines = vec![columns.join(",")];
        for line in csv.lines().skip(1).filter(|l| l.starts_with("postal,")) {
            let mut cols: Vec<String> = line.split(',').map(str::to_string).collect();
            cols[0] = COURIER.to_string();
            if let Some(at) = service {
                cols[at] = courier_service(&cols[at]);
            }
            lines.push(cols.join(","));
        }
        h.shipping.import_rates(kind, &(lines.join("\n") + "\n")).unwrap_or_else(|e| panic!("{}: {e}", kind.as_str()));
    }
}

/// A service whose catalog has the courier, changed by `edit`, with its rates; and a
/// shipper of it.
fn setup(edit: impl FnOnce(&mut Value)) -> (Harness, String) {
    let h = Harness::new();
    let catalog = catalog_with_courier(&h, edit);
    h.shipping.import_catalog(&catalog).unwrap();
    import_courier_rates(&h);
    let id = h.shipper("ann@example.com");
    (h, id)
}

/// A booking by the courier's priority service, otherwise as [`book_body`].
fn courier_body() -> Value {
    book_body_for(COURIER, "courier_priority_mail", "postal_custom")
}

fn piece(weight: &str) -> Value {
    json!({"weight": weight, "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null})
}

/// Philadelphia to London by the courier's international service.
fn courier_abroad() -> Value {
    let mut b = intl_shipment();
    b["carrierCode"] = json!(COURIER);
    b["serviceCode"] = json!("courier_priority_mail_international");
    b["packageTypeCode"] = json!("postal_custom");
    b["approvePrepayRecharge"] = json!(true);
    b
}

fn label(h: &Harness, id: &str, book: &str, format: &str) -> Answer {
    h.get(&Harness::path(id, &format!("/shipments/{book}/label/{format}")))
}

fn pdf_pages(answer: &Value) -> usize {
    Document::load_mem(&decode(&answer["base64Images"][0])).unwrap().get_pages().len()
}

#[test]
fn a_new_carrier_with_the_postal_capabilities_books_prints_and_tracks() {
    let (h, id) = setup(|_| {});
    let body = with(with(courier_body(), "/labelImageFormat", json!("ZPL")), "/scanBasedReturnLabel", json!(true));
    let b = h.book_with(&id, &body).expect(201).clone();
    let (book, tn) = (b["bookNumber"].as_str().unwrap(), b["trackingNumber"].as_str().unwrap());
    assert!(TrackingKind::Postal.is_valid(tn), "{tn}");
    let returned = b["returnTrackingNumber"].as_str().unwrap();

    let zpl = label(&h, &id, book, "ZPL").expect(200).clone();
    assert_eq!(zpl["labelImageFormat"], "ZPL");
    assert!(String::from_utf8(decode(&zpl["base64Images"][0])).unwrap().contains("Courier Co"));
    assert_eq!(pdf_pages(label(&h, &id, book, "PDF").expect(200)), 1);
    let ret = h.get(&Harness::path(&id, &format!("/shipments/{book}/return-label/PDF"))).expect(200).clone();
    assert_eq!(pdf_pages(&ret), 1);
    label(&h, &id, book, "EPL2").assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));

    let r = h.shipping.record_tracking_event(COURIER, tn, &carrier_event("In Transit", "2026-11-22 06:00:00")).unwrap();
    assert_eq!(r.recorded, 1);
    let r = h.shipping.record_tracking_event(COURIER, returned, &carrier_event("In Transit", "2026-11-23 06:00:00")).unwrap();
    assert_eq!(r.recorded, 1, "its feed scans its return labels");
    let event = json!({"trackingNumber": tn, "carrier": COURIER, "event": "Delivered", "eventStatus": "Delivered",
        "eventTime": "2026-11-24 10:00:00", "serviceArea": "Los Angeles, CA", "serviceAreaCountry": "US"});
    let path = Harness::path(&id, &format!("/shipments/{book}/tracking-events"));
    assert_eq!(h.call("POST", &path, &json!({ "events": [event] })).expect(200)["recorded"], 1);
    let info = h.get(&Harness::path(&id, &format!("/shipments/{book}/tracking-information"))).expect(200).clone();
    let statuses: Vec<&str> = info.as_array().unwrap().iter().map(|e| e["eventStatus"].as_str().unwrap()).collect();
    assert!(statuses.contains(&"Delivered") && statuses.contains(&"In Transit"), "{info}");
    assert!(info.as_array().unwrap().iter().all(|e| e["carrier"] == COURIER), "{info}");
}

#[test]
fn a_label_format_the_carrier_does_not_list_is_refused_at_booking_and_retrieval() {
    let (h, id) = setup(|c| c["labelFormats"] = json!(["PDF"]));
    h.book_with(&id, &with(courier_body(), "/labelImageFormat", json!("ZPL"))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("labelImageFormat"),
    );
    let book = h.book(&id, &courier_body());
    label(&h, &id, &book, "ZPL").assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
}

#[test]
fn a_label_format_the_carrier_lists_is_printed() {
    let (h, id) = setup(|c| c["labelFormats"] = json!(["PDF", "EPL2"]));
    let b = h.book_with(&id, &with(courier_body(), "/labelImageFormat", json!("EPL2"))).expect(201).clone();
    let epl = label(&h, &id, b["bookNumber"].as_str().unwrap(), "EPL2").expect(200).clone();
    assert_eq!(epl["labelImageFormat"], "EPL2");
}

#[test]
fn scan_based_return_labels_need_the_capability() {
    let (h, id) = setup(|c| c["scanBasedReturnLabels"] = json!(false));
    h.book_with(&id, &with(courier_body(), "/scanBasedReturnLabel", json!(true))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("scanBasedReturnLabel"),
    );
}

#[test]
fn am_delivery_needs_the_capability() {
    let body = with(book_body_for(COURIER, "courier_priority_mail_express", "postal_custom"), "/postalExpressAmDelivery", json!(true));
    let (h, id) = setup(|_| {});
    h.book_with(&id, &body).expect(201);
    let (h, id) = setup(|c| c["amDelivery"] = json!(false));
    h.book_with(&id, &body).assert_error(400, "INVALID_REQUEST", Some("postalExpressAmDelivery"));
}

#[test]
fn dangerous_goods_need_the_capability() {
    let body = with(courier_body(), "/dangerousGoodsCode", json!("LTD-QTY"));
    let (h, id) = setup(|_| {});
    h.book_with(&id, &body).assert_error(400, "INVALID_REQUEST", Some("dangerousGoodsCode"));
    // The service must accept the code too: the courier's priority service is given the
    // e-commerce carrier's list.
    let h = Harness::new();
    let mut doc: Value = serde_json::from_str(&catalog_with_courier(&h, |c| c["dangerousGoods"] = json!(true))).unwrap();
    let service = doc["services"].as_array_mut().unwrap().iter_mut().find(|s| s["code"] == "courier_priority_mail").unwrap();
    service["dangerousGoodsCodes"] = json!("LTD-QTY,LIB-PI966,LIB-PI967");
    h.shipping.import_catalog(&doc.to_string()).unwrap();
    import_courier_rates(&h);
    // And the rate data must price it.
    let surcharges = h.shipping.export_rates(CsvKind::Surcharges).unwrap();
    let mut lines: Vec<&str> = surcharges.lines().take(1).chain(surcharges.lines().filter(|l| l.starts_with("courier,"))).collect();
    lines.push("courier,courier_priority_mail,dangerous_goods,,12.00");
    h.shipping.import_rates(CsvKind::Surcharges, &(lines.join("\n") + "\n")).unwrap();
    let id = h.shipper("ann@example.com");
    h.book_with(&id, &body).expect(201);
}

#[test]
fn postal_endorsements_need_the_capability() {
    let body = with(courier_body(), "/postalEndorsement", json!("RETURN_SERVICE_REQUESTED"));
    let (h, id) = setup(|_| {});
    h.book_with(&id, &body).assert_error(400, "INVALID_REQUEST", Some("postalEndorsement"));
    let (h, id) = setup(|c| c["postalEndorsements"] = json!(true));
    h.book_with(&id, &body).expect(201);
}

#[test]
fn customs_declarations_abroad_add_a_page_per_piece() {
    let (h, id) = setup(|_| {});
    let book = h.book(&id, &courier_abroad());
    assert_eq!(pdf_pages(label(&h, &id, &book, "PDF").expect(200)), 2, "the label, then the declaration");
    let (h, id) = setup(|c| c["customsDeclarationsAbroad"] = json!(false));
    let book = h.book(&id, &courier_abroad());
    assert_eq!(pdf_pages(label(&h, &id, &book, "PDF").expect(200)), 1);
}

#[test]
fn us_territories_are_domestic_only_with_the_capability() {
    let pr = json!({"name": "Rosa Diaz", "company": "", "address1": "1 Calle Luna", "address2": "", "city": "San Juan",
        "state": "PR", "zip": "00901", "country": "PR", "phone": "787-555-0100"});
    let body = with(with(courier_body(), "/receiver", pr), "/pieces/0/declaredValue", json!("40"));
    let (h, id) = setup(|_| {});
    h.book_with(&id, &body).assert_error(400, "INVALID_REQUEST", Some("pieces[0].declaredValue"));
    let (h, id) = setup(|c| c["usTerritoriesDomestic"] = json!(false));
    h.book_with(&id, &body).expect(201);
}

#[test]
fn the_answer_lists_the_pieces_only_with_the_capability() {
    let body = with(courier_body(), "/pieces", json!([piece("1"), piece("2")]));
    let (h, id) = setup(|_| {});
    let b = h.book_with(&id, &body).expect(201).clone();
    assert_eq!(b["pieces"].as_array().map(Vec::len), Some(2), "{b}");
    let (h, id) = setup(|c| c["piecesInAnswer"] = json!(false));
    let b = h.book_with(&id, &body).expect(201).clone();
    assert!(b.get("pieces").is_none_or(Value::is_null), "{b}");
    assert_eq!(b["trackingNumbers"].as_array().map(Vec::len), Some(2), "{b}");
}

#[test]
fn tracking_numbers_are_of_the_kind_the_carrier_names_for_the_family() {
    let (h, id) = setup(|c| c["trackingNumbers"] = json!({"ground": "parcel", "express": "intlexpress"}));
    let ground = h.book_with(&id, &book_body_for(COURIER, "courier_ground_advantage", "postal_custom")).expect(201).clone();
    assert!(TrackingKind::Parcel.is_valid(ground["trackingNumber"].as_str().unwrap()), "{ground}");
    let express = h.book_with(&id, &courier_body()).expect(201).clone();
    assert!(TrackingKind::IntlExpress.is_valid(express["trackingNumber"].as_str().unwrap()), "{express}");
}

#[test]
fn a_catalog_naming_an_unknown_tracking_kind_or_carrier_is_refused() {
    let h = Harness::new();
    let e = h.shipping.import_catalog(&catalog_with_courier(&h, |c| c["trackingNumbers"]["ground"] = json!("teleport"))).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    assert!(e.message().contains("trackingNumbers.ground"), "{}", e.message());
    let e = h.shipping.import_catalog(&catalog_with_courier(&h, |c| c["acceptsEventsOf"] = json!(["nobody"]))).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    assert!(e.message().contains("acceptsEventsOf[0]"), "{}", e.message());
}

#[test]
fn a_pickup_package_location_needs_the_capability() {
    let (h, id) = setup(|_| {});
    let book = h.book(&id, &courier_body());
    let body = with(pickup_body(COURIER, &[&book]), "/packageLocation", json!("Front desk"));
    h.call("POST", &Harness::path(&id, "/pickups"), &body).assert_error(400, "INVALID_REQUEST", Some("packageLocation"));
    let (h, id) = setup(|c| c["pickupPackageLocation"] = json!(true));
    let book = h.book(&id, &courier_body());
    let body = with(pickup_body(COURIER, &[&book]), "/packageLocation", json!("Front desk"));
    h.call("POST", &Harness::path(&id, "/pickups"), &body).expect(201);
}

#[test]
fn pickups_by_family_keep_ground_and_express_apart() {
    let bodies = [book_body_for(COURIER, "courier_ground_advantage", "postal_custom"), courier_body()];
    let (h, id) = setup(|_| {});
    let books: Vec<String> = bodies.iter().map(|b| h.book(&id, b)).collect();
    h.call("POST", &Harness::path(&id, "/pickups"), &pickup_body(COURIER, &[&books[0], &books[1]])).expect(201);
    let (h, id) = setup(|c| c["pickupsByFamily"] = json!(true));
    let books: Vec<String> = bodies.iter().map(|b| h.book(&id, b)).collect();
    h.call("POST", &Harness::path(&id, "/pickups"), &pickup_body(COURIER, &[&books[0], &books[1]])).assert_error(
        400,
        "INVALID_REQUEST",
        Some("bookNumbers"),
    );
}

#[test]
fn events_of_another_carrier_are_accepted_only_when_named() {
    let event = carrier_event("Out for Delivery", "2026-11-23 07:00:00");
    let (h, id) = setup(|_| {});
    let tn = h.book_with(&id, &courier_body()).expect(201)["trackingNumber"].as_str().unwrap().to_string();
    let e = h.shipping.record_tracking_event("parcel", &tn, &event).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::NotFound);
    let (h, id) = setup(|c| c["acceptsEventsOf"] = json!(["parcel"]));
    let b = h.book_with(&id, &courier_body()).expect(201).clone();
    let (book, tn) = (b["bookNumber"].as_str().unwrap(), b["trackingNumber"].as_str().unwrap());
    assert_eq!(h.shipping.record_tracking_event("parcel", tn, &event).unwrap().recorded, 1);
    let bad = json!({"trackingNumber": tn, "carrier": "intlexpress", "event": "Delivered", "eventStatus": "Delivered",
        "eventTime": "2026-11-24 10:00:00", "serviceArea": "Los Angeles, CA", "serviceAreaCountry": "US"});
    let path = Harness::path(&id, &format!("/shipments/{book}/tracking-events"));
    h.call("POST", &path, &json!({ "events": [bad] })).assert_error(400, "INVALID_REQUEST", Some("events[0].carrier"));
    let good = with(bad, "/carrier", json!("parcel"));
    assert_eq!(h.call("POST", &path, &json!({ "events": [good] })).expect(200)["recorded"], 1);
}

#[test]
fn return_labels_are_scanned_only_by_a_carrier_that_prints_them() {
    let (h, id) = setup(|_| {});
    let b = h.book_with(&id, &with(courier_body(), "/scanBasedReturnLabel", json!(true))).expect(201).clone();
    let returned = b["returnTrackingNumber"].as_str().unwrap();
    let e = h.shipping.record_tracking_event("parcel", returned, &carrier_event("In Transit", "2026-11-23 06:00:00")).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::NotFound);
    assert_eq!(
        h.shipping.record_tracking_event(COURIER, returned, &carrier_event("In Transit", "2026-11-23 06:00:00")).unwrap().recorded,
        1
    );
}
