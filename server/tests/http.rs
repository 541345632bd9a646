//! `consign serve` through a real HTTP client: every route, the key rules of DECISIONS 9,
//! HTTP's own conventions, and concurrent bookings against the ledger.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use common::Served;

use consign::Shipping;
use consign_conformance::{
    book_body, customer_body, intl_shipment, invoice, la_address, manifest_body, order_body, parcel_account, payment_body, pickup_body,
    quote_shipment, quoting_option, with, NOW,
};
use rust_decimal::Decimal;
use serde_json::{json, Value};

/// An answer: status, headers and the body as bytes.
struct Reply {
    status: u16,
    headers: ureq::http::HeaderMap,
    bytes: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.bytes)))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    #[track_caller]
    fn expect(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "{}", String::from_utf8_lossy(&self.bytes));
        assert_eq!(self.header("content-type"), Some("application/json"));
        self.json()
    }

    #[track_caller]
    fn expect_error(&self, status: u16, category: &str) -> Value {
        let body = self.expect(status);
        assert_eq!(body["errorCategory"], category, "{body}");
        body
    }
}

/// A server on a fresh database file at the suite's fixed instant, allowing the origin
/// `https://shop.example`, and a partner key.
fn serve() -> Served {
    common::serve_on(common::fresh_db("consign-http"), common::fixed(NOW), |config| {
        config.cors_origin = Some("https://shop.example".into())
    })
}

impl Served {
    /// `method` on `path` with `body` (none when empty) and the `Authorization` header
    /// `authorization` (none when `None`).
    fn send(&self, method: &str, path: &str, body: &str, authorization: Option<&str>) -> Reply {
        let mut request = ureq::http::Request::builder().method(method).uri(format!("{}{path}", self.base));
        if let Some(value) = authorization {
            request = request.header("Authorization", value);
        }
        let reply = if body.is_empty() { self.agent.run(request.body(()).unwrap()) } else { self.agent.run(request.body(body).unwrap()) };
        let mut reply = reply.unwrap();
        let bytes = reply.body_mut().with_config().limit(64 << 20).read_to_vec().unwrap();
        Reply { status: reply.status().as_u16(), headers: reply.headers().clone(), bytes }
    }

    /// `method` on `path` with the JSON `body` (`Null`: none), as `key`.
    fn call_as(&self, key: &str, method: &str, path: &str, body: &Value) -> Reply {
        let body = if body.is_null() { String::new() } else { body.to_string() };
        self.send(method, path, &body, Some(&format!("RSIS {key}")))
    }

    /// As the partner key.
    fn call(&self, method: &str, path: &str, body: &Value) -> Reply {
        self.call_as(&self.partner, method, path, body)
    }

    fn get(&self, path: &str) -> Reply {
        self.call("GET", path, &Value::Null)
    }

    /// A customer created by the partner key, with a payment method so bookings recharge.
    fn shipper(&self, email: &str) -> String {
        let id = self.call("POST", "/restapi/v1/customers", &customer_body(email)).expect(201)["customerId"].as_str().unwrap().to_string();
        self.call("POST", &path(&id, "/paymentMethod"), &payment_body("tok_1NqLx2")).expect(200);
        id
    }

    /// A key for customer `id` alone, made as the CLI makes it.
    fn customer_key(&self, id: &str) -> String {
        Shipping::open(&self.db).unwrap().create_api_key(Some(id), "till").unwrap().key
    }

    fn book(&self, id: &str, body: &Value) -> String {
        self.call("POST", &path(id, "/shipments"), body).expect(201)["bookNumber"].as_str().unwrap().to_string()
    }
}

fn path(id: &str, tail: &str) -> String {
    format!("/restapi/v1/customers/{id}{tail}")
}

#[test]
fn every_route_is_answered_over_http() {
    let s = serve();
    let id = s.shipper("ann@example.com");
    let p = |tail: &str| path(&id, tail);

    // Customers and accounts.
    let body = json!({"username": "ann@example.com", "password": "glaze-and-fire"});
    assert_eq!(s.call("POST", "/restapi/v1/connect-customer", &body).expect(200)["customerId"], id.as_str());
    assert!(!s.get(&p("/services")).expect(200)["services"].as_array().unwrap().is_empty());
    let options = json!({"integratedQuotingOptions": [quoting_option("Ground", "parcel", "parcel_ground", "parcel_custom")]});
    s.call("PUT", &p("/integratedQuotingOptions"), &options).expect(200);
    assert_eq!(s.get(&p("/integratedQuotingOptions")).expect(200)["integratedQuotingOptions"][0]["name"], "Ground");
    let account = s.call("PUT", &p("/provider-accounts/parcel"), &parcel_account("A12345")).expect(201);
    assert_eq!(s.get(&p("/provider-accounts")).expect(200)["providerAccounts"].as_array().unwrap().len(), 1);
    s.call("DELETE", &p(&format!("/provider-accounts/{}", account["id"].as_str().unwrap())), &Value::Null).expect(200);
    s.get(&p("/regionalShipmentTypes/19106")).expect(200);
    s.get(&format!("/customers/{id}/regionalShipmentTypes/19106")).expect(200);
    let integration =
        s.call("POST", &p("/integrations"), &json!({"name": "Web shop"})).expect(201)["integrationId"].as_str().unwrap().to_string();
    assert_eq!(s.get(&p("/prepay")).expect(200)["balance"], "200.00");

    // Quotes and batches.
    let results = s.call("POST", &p("/batch-quote"), &json!({"shipments": [quote_shipment(), intl_shipment()]})).expect(200);
    let quote_id = results["results"][0]["quotes"][0]["quoteId"].as_i64().unwrap();
    assert!(s.call("POST", &p("/quote"), &quote_shipment()).expect(200)["quotes"].as_array().is_some());
    let batch = s.call("POST", &p("/batch"), &json!({"name": "Monday"})).expect(201)["batchId"].as_str().unwrap().to_string();
    s.call("POST", &p(&format!("/batch/{batch}/quotes")), &json!({"quoteIds": [quote_id]})).expect(200);
    s.get(&p(&format!("/batch/{batch}"))).expect(200);
    assert_eq!(s.get(&p("/batch")).expect(200)["batches"].as_array().unwrap().len(), 1);
    let booked = s.call("POST", &p("/batch-book"), &json!({"batchId": batch})).expect(200);
    assert_eq!(booked["results"].as_array().unwrap().len(), 1, "{booked}");
    let other = s.call("POST", &p("/batch"), &Value::Null).expect(201)["batchId"].as_str().unwrap().to_string();
    s.call("DELETE", &p(&format!("/batch/{other}")), &Value::Null).expect(200);

    // Shipments.
    let book = s.book(&id, &book_body());
    assert_eq!(s.get(&p(&format!("/shipments/{book}"))).expect(200)["bookNumber"], book.as_str());
    assert!(!s.get(&p("/shipments?limit=10")).expect(200)["shipments"].as_array().unwrap().is_empty());
    let label = s.get(&p(&format!("/shipments/{book}/label/ZPL"))).expect(200);
    assert_eq!(label["labelImageFormat"], "ZPL");
    let tracking = s.get(&p(&format!("/shipments/{book}/tracking-information"))).expect(200);
    let number = tracking["trackingNumber"].as_str().map_or_else(|| tracking["trackingNumbers"][0].to_string(), str::to_string);
    let event = json!({"trackingNumber": number, "carrier": "postal", "event": "Accepted at the facility", "eventStatus": "In Transit",
        "eventTime": "2026-11-22T10:00:00Z", "city": "Philadelphia", "state": "PA", "country": "US"});
    let fed = s.call("POST", &p(&format!("/shipments/{book}/tracking-events")), &json!({"events": [event]}));
    assert!(matches!(fed.status, 200 | 400), "the route is served: {}", String::from_utf8_lossy(&fed.bytes));
    s.call("POST", &p("/searchShipments"), &json!({"keyword": "INV-1001"})).expect(200);
    let pickup = s.call("POST", &p("/pickups"), &pickup_body("postal", &[&book])).expect(201)["pickupId"].as_str().unwrap().to_string();
    s.get(&p(&format!("/pickups/{pickup}"))).expect(200);
    s.call("POST", &p(&format!("/pickups/{pickup}")), &json!({"cancelled": true})).expect(200);
    let manifest = s.call("POST", &p("/manifest"), &manifest_body("postal", &[&book])).expect(201);
    let manifest_id = manifest["manifestId"].as_str().unwrap_or_else(|| panic!("{manifest}")).to_string();
    s.get(&p(&format!("/manifest/{manifest_id}"))).expect(200);
    let voidable = s.book(&id, &book_body());
    s.call("POST", &p(&format!("/shipments/{voidable}")), &json!({"voided": true})).expect(200);

    // Orders.
    let order = p(&format!("/integrations/{integration}/orders/SO-5001"));
    s.call("PUT", &order, &order_body("SO-5001")).expect(201);
    s.get(&order).expect(200);
    s.call("DELETE", &order, &Value::Null).expect(200);

    // And the server's own.
    let health = s.send("GET", "/healthz", "", None);
    assert_eq!((health.status, health.json()), (200, json!({"status": "ok"})));
    let document = s.send("GET", "/restapi/v1/openapi.json", "", None);
    assert_eq!((document.status, document.header("content-type")), (200, Some("application/json")));
    let expected: Value = serde_json::from_str(include_str!("../../docs/openapi.json")).unwrap();
    assert_eq!(document.json(), expected);
}

#[test]
fn every_json_answer_ends_with_one_newline() {
    let s = serve();
    let id = s.shipper("ann@example.com");
    let answers = [
        ("a write", 201, s.call("POST", &path(&id, "/batch"), &json!({"name": "lines"}))),
        ("a read", 200, s.get(&path(&id, "/prepay"))),
        ("an error of the interface", 404, s.get("/restapi/v1/nothing")),
        ("an error of the server (no key)", 401, s.send("GET", &path(&id, "/prepay"), "", None)),
        ("the health check", 200, s.send("GET", "/healthz", "", None)),
        ("the OpenAPI document", 200, s.send("GET", "/restapi/v1/openapi.json", "", None)),
    ];
    for (what, status, reply) in answers {
        let text = String::from_utf8_lossy(&reply.bytes);
        assert_eq!(reply.status, status, "{what}: {text}");
        assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{what}: {text:?}");
    }
}

#[test]
fn keys_are_read_from_rsis_or_bearer_and_act_for_their_customers_only() {
    let s = serve();
    let ann = s.shipper("ann@example.com");
    let prepay = path(&ann, "/prepay");
    for scheme in ["RSIS", "rsis", "Bearer", "bEARER"] {
        let value = format!("  {scheme}   {}  ", s.partner);
        assert_eq!(s.send("GET", &prepay, "", Some(&value)).status, 200, "{value:?}");
    }
    // No key, another scheme, an unknown or altered key: one 401.
    let unknown = format!("{}x", s.partner);
    for value in [None, Some("Basic YWxhZGRpbjpvcGVuc2VzYW1l"), Some("RSIS"), Some("RSIS csk_K0000099_abc"), Some(unknown.as_str())] {
        let value = value.map(|v| if v == unknown { format!("RSIS {v}") } else { v.to_string() });
        s.send("GET", &prepay, "", value.as_deref()).expect_error(401, "UNAUTHORIZED");
    }

    // A customer key acts for its customer alone; another customer is 404, as an unknown one.
    let bob =
        s.call("POST", "/restapi/v1/customers", &customer_body("bob@example.com")).expect(201)["customerId"].as_str().unwrap().to_string();
    let ann_key = s.customer_key(&ann);
    s.call_as(&ann_key, "GET", &prepay, &Value::Null).expect(200);
    let hidden = s.call_as(&ann_key, "GET", &path(&bob, "/prepay"), &Value::Null).expect_error(404, "NOT_FOUND");
    let unknown = s.call_as(&ann_key, "GET", &path("C0000099", "/prepay"), &Value::Null).expect_error(404, "NOT_FOUND");
    assert_eq!(hidden.to_string().replace(&bob, "C0000099"), unknown.to_string());
    // Nor another customer's events.
    s.call_as(&ann_key, "GET", &path(&ann, "/events"), &Value::Null).expect(200);
    s.call_as(&ann_key, "GET", &path(&bob, "/events"), &Value::Null).expect_error(404, "NOT_FOUND");
    // Nor another customer's webhooks, nor can it make one for them.
    let hook = json!({"url": "https://hooks.example.com/bob"});
    let bobs = s.call("POST", &path(&bob, "/webhooks"), &hook).expect(201)["webhookId"].as_str().unwrap().to_string();
    s.call_as(&ann_key, "GET", &path(&bob, "/webhooks"), &Value::Null).expect_error(404, "NOT_FOUND");
    s.call_as(&ann_key, "POST", &path(&bob, "/webhooks"), &hook).expect_error(404, "NOT_FOUND");
    for (method, tail) in [("GET", ""), ("DELETE", ""), ("POST", "/rotate-secret"), ("POST", "/test"), ("GET", "/deliveries")] {
        let own = path(&ann, &format!("/webhooks/{bobs}{tail}"));
        s.call_as(&ann_key, method, &own, &Value::Null).expect_error(404, "NOT_FOUND");
        let theirs = path(&bob, &format!("/webhooks/{bobs}{tail}"));
        s.call_as(&ann_key, method, &theirs, &Value::Null).expect_error(404, "NOT_FOUND");
    }
    assert_eq!(s.call_as(&ann_key, "GET", &path(&ann, "/webhooks"), &Value::Null).expect(200)["webhooks"], json!([]));
    s.call_as(&ann_key, "POST", "/restapi/v1/customers", &customer_body("cy@example.com")).expect_error(401, "UNAUTHORIZED");

    // Another partner acts for no one until it connects a customer with its password.
    let other = Shipping::open(&s.db).unwrap().create_api_key(None, "other").unwrap().key;
    s.call_as(&other, "GET", &prepay, &Value::Null).expect_error(404, "NOT_FOUND");
    let wrong = json!({"username": "ann@example.com", "password": "not-the-password"});
    s.call_as(&other, "POST", "/restapi/v1/connect-customer", &wrong).expect_error(401, "UNAUTHORIZED");
    let right = json!({"username": "ann@example.com", "password": "glaze-and-fire"});
    s.call_as(&other, "POST", "/restapi/v1/connect-customer", &right).expect(200);
    s.call_as(&other, "GET", &prepay, &Value::Null).expect(200);
    s.call_as(&other, "GET", &path(&bob, "/prepay"), &Value::Null).expect_error(404, "NOT_FOUND");

    // A revoked key is refused at once, by a server that was running when it was revoked.
    Shipping::open(&s.db).unwrap().revoke_api_key("K0000002").unwrap();
    s.call_as(&ann_key, "GET", &prepay, &Value::Null).expect_error(401, "UNAUTHORIZED");
}

#[test]
fn http_conventions_status_codes_and_headers() {
    let s = serve();
    let id = s.shipper("ann@example.com");

    // A PDF label is the PDF itself; ZPL stays JSON.
    let book = s.book(&id, &book_body());
    let pdf = s.get(&path(&id, &format!("/shipments/{book}/label/PDF")));
    assert_eq!((pdf.status, pdf.header("content-type")), (200, Some("application/pdf")));
    assert!(pdf.bytes.starts_with(b"%PDF-"), "{:?}", &pdf.bytes[..16.min(pdf.bytes.len())]);
    assert_eq!(s.get(&path(&id, &format!("/shipments/{book}/label/ZPL"))).expect(200)["base64Images"].as_array().unwrap().len(), 1);
    // The label in the format chosen at booking (PDF by default), and the format in any case.
    for tail in ["label", "label/pdf"] {
        let pdf = s.get(&path(&id, &format!("/shipments/{book}/{tail}")));
        assert_eq!((pdf.status, pdf.header("content-type")), (200, Some("application/pdf")), "{tail}");
        assert!(pdf.bytes.starts_with(b"%PDF-"), "{tail}");
    }

    // A commercial invoice is the PDF itself; a shipment without one is 404 JSON.
    let mut intl = with(intl_shipment(), "/commercialInvoice", invoice("1.2"));
    for (key, value) in
        [("carrierCode", "intlexpress"), ("serviceCode", "intlexpress_express_worldwide"), ("packageTypeCode", "intlexpress_custom")]
    {
        intl[key] = json!(value);
    }
    intl["approvePrepayRecharge"] = json!(true);
    let invoiced = s.book(&id, &intl);
    let pdf = s.get(&path(&id, &format!("/shipments/{invoiced}/commercialInvoice")));
    assert_eq!((pdf.status, pdf.header("content-type")), (200, Some("application/pdf")));
    assert!(pdf.bytes.starts_with(b"%PDF-"));
    s.get(&path(&id, &format!("/shipments/{book}/commercialInvoice"))).expect_error(404, "NOT_FOUND");
    // A return label in PDF is the PDF itself.
    let returned = s.book(&id, &with(book_body(), "/scanBasedReturnLabel", json!(true)));
    let pdf = s.get(&path(&id, &format!("/shipments/{returned}/return-label/PDF")));
    assert_eq!((pdf.status, pdf.header("content-type")), (200, Some("application/pdf")));
    assert!(pdf.bytes.starts_with(b"%PDF-"));
    s.get(&path(&id, &format!("/shipments/{book}/return-label/PDF"))).expect_error(404, "NOT_FOUND");
    // The labels of several shipments in PDF are one document, sent as its bytes.
    let merged = s.call("POST", &path(&id, "/shipments/multiple/labels/PDF"), &json!({"bookNumbers": [book, invoiced]}));
    assert_eq!((merged.status, merged.header("content-type")), (200, Some("application/pdf")));
    assert!(merged.bytes.starts_with(b"%PDF-"));

    // 404 for no operation, 405 with Allow for a wrong method.
    s.get("/restapi/v1/nothing").expect_error(404, "NOT_FOUND");
    let wrong = s.call("DELETE", &path(&id, "/shipments"), &Value::Null);
    wrong.expect_error(405, "METHOD_NOT_ALLOWED");
    assert_eq!(wrong.header("allow"), Some("GET, POST"));
    let patch = s.call("PATCH", &path(&id, "/integrations/I1/orders/O1"), &Value::Null);
    assert_eq!((patch.status, patch.header("allow")), (405, Some("GET, PUT, DELETE")));

    // A body over the limit is 413 with core's LIMIT_EXCEEDED body, whether its length is
    // declared or found by reading (chunked). The server answers without reading it all,
    // so the test speaks HTTP on a socket, as a client sending it would.
    let head = format!("POST {} HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {}\r\n", path(&id, "/batch-quote"), s.partner);
    let declared = raw(&s, &format!("{head}Content-Length: {}\r\n\r\n", consign::limits::MAX_BODY + 1), &[]);
    let chunk = vec![b' '; 1 << 20];
    let mut chunked = Vec::new();
    for _ in 0..=consign::limits::MAX_BODY / chunk.len() {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(&chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let streamed = raw(&s, &format!("{head}Transfer-Encoding: chunked\r\n\r\n"), &chunked);
    for answer in [declared, streamed] {
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
        assert!(answer.to_ascii_lowercase().contains("content-type: application/json"), "{answer}");
        assert!(answer.ends_with(&format!("{}\n", consign::Response::body_too_large().body)), "{answer}");
    }
    s.get(&path(&id, "/prepay")).expect(200);

    // Not UTF-8: a 400 naming the body.
    let mut request = ureq::http::Request::builder().method("POST").uri(format!("{}{}", s.base, path(&id, "/quote")));
    request = request.header("Authorization", format!("RSIS {}", s.partner));
    let mut reply = s.agent.run(request.body(vec![0xff, 0xfe, b'{']).unwrap()).unwrap();
    assert_eq!(reply.status().as_u16(), 400);
    assert!(reply.body_mut().read_to_string().unwrap().contains("\"field\":\"body\""));

    // CORS for the configured origin.
    let preflight = s.agent.run(
        ureq::http::Request::builder()
            .method("OPTIONS")
            .uri(format!("{}{}", s.base, path(&id, "/prepay")))
            .header("Origin", "https://shop.example")
            .header("Access-Control-Request-Method", "GET")
            .header("Access-Control-Request-Headers", "authorization")
            .body(())
            .unwrap(),
    );
    let preflight = preflight.unwrap();
    assert_eq!(preflight.headers().get("access-control-allow-origin").and_then(|v| v.to_str().ok()), Some("https://shop.example"));
}

#[test]
fn a_multi_piece_pdf_label_is_one_pdf_with_a_page_per_piece() {
    let s = serve();
    let id = s.shipper("ann@example.com");
    let piece = book_body()["pieces"][0].clone();
    let book = s.book(&id, &with(book_body(), "/pieces", Value::Array(vec![piece; 3])));
    for tail in ["label", "label/PDF", "label/pdf"] {
        let pdf = s.get(&path(&id, &format!("/shipments/{book}/{tail}")));
        assert_eq!((pdf.status, pdf.header("content-type")), (200, Some("application/pdf")), "{tail}");
        let doc = lopdf::Document::load_mem(&pdf.bytes).unwrap_or_else(|e| panic!("{tail}: one PDF document: {e}"));
        assert_eq!(doc.get_pages().len(), 3, "{tail}");
        for page in 1..=3 {
            let text = doc.extract_text(&[page]).unwrap();
            assert!(text.contains(&format!("PKG: {page} OF 3")), "{tail} page {page}: {text}");
        }
    }
    // The JSON answer keeps the spec's shape, one PDF per piece; ZPL stays JSON.
    let shipping = Shipping::open(&s.db).unwrap();
    let json = shipping.handle("GET", &path(&id, &format!("/shipments/{book}/label/PDF")), "");
    assert_eq!(serde_json::from_str::<Value>(&json.body).unwrap()["base64Images"].as_array().unwrap().len(), 3);
    assert_eq!(s.get(&path(&id, &format!("/shipments/{book}/label/ZPL"))).expect(200)["base64Images"].as_array().unwrap().len(), 3);
}

#[test]
fn merged_labels_refuse_a_repeated_book_number_over_http() {
    let s = serve();
    let id = s.shipper("ann@example.com");
    let book = s.book(&id, &book_body());
    let body = s
        .call("POST", &path(&id, "/shipments/multiple/labels/PDF"), &json!({"bookNumbers": [book, book]}))
        .expect_error(400, "INVALID_REQUEST");
    assert_eq!(body["details"][0]["field"], "bookNumbers[1]", "{body}");
}

#[test]
fn labels_past_the_page_cap_are_refused_over_http_for_merged_labels_and_batch_book() {
    let s = serve();
    let id = s.shipper("ann@example.com");
    // Eleven shipments (quotes) of 99 pieces: 1,089 label pages, past the 1,000 of one answer.
    let piece = book_body()["pieces"][0].clone();
    let many = Value::Array(vec![piece; 99]);
    let books: Vec<String> = (0..11).map(|_| s.book(&id, &with(book_body(), "/pieces", many.clone()))).collect();
    let body =
        s.call("POST", &path(&id, "/shipments/multiple/labels/PDF"), &json!({ "bookNumbers": books })).expect_error(400, "LIMIT_EXCEEDED");
    assert_eq!(body["details"][0]["field"], "bookNumbers", "{body}");

    let quotes: Vec<Value> = (0..11)
        .map(|_| {
            s.call("POST", &path(&id, "/quote"), &with(quote_shipment(), "/pieces", many.clone())).expect(200)["quotes"][0]["quoteId"]
                .clone()
        })
        .collect();
    let batch = s.call("POST", &path(&id, "/batch"), &json!({})).expect(201)["batchId"].clone();
    s.call("POST", &path(&id, &format!("/batch/{}/quotes", batch.as_str().unwrap())), &json!({ "quoteIds": quotes })).expect(200);
    let body = s
        .call("POST", &path(&id, "/batch-book"), &json!({"batchId": batch, "approvePrepayRecharge": true}))
        .expect_error(400, "LIMIT_EXCEEDED");
    assert_eq!(body["details"][0]["field"], "batchId", "{body}");
}

#[test]
fn concurrent_bookings_from_several_clients_keep_the_ledger_whole() {
    let s = serve();
    let ids: Vec<String> = (0..2).map(|i| s.shipper(&format!("shop{i}@example.com"))).collect();
    let (clients, each) = (8, 6);
    let booked: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let (s, id) = (&s, &ids[c % ids.len()]);
                scope.spawn(move || {
                    (0..each)
                        .map(|n| {
                            let body = with(book_body(), "/idempotencyKey", json!(format!("c{c}-n{n}")));
                            let read = s.get(&path(id, "/prepay"));
                            assert_eq!(read.status, 200);
                            s.book(id, &with(body, "/receiver", la_address()))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(booked.len(), clients * each);
    let mut unique = booked.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), booked.len(), "every booking got its own book number");
    let mut charges = 0;
    for id in &ids {
        let prepay = s.get(&path(id, "/prepay")).expect(200);
        assert_ledger_balances(&prepay);
        charges += prepay["entries"].as_array().unwrap().iter().filter(|e| e["kind"] == "charge").count();
    }
    assert_eq!(charges, booked.len(), "one charge per booking");
}

/// Sends `head` and `body` on a socket of its own (ignoring a write the server cut short)
/// and reads the answer to its end.
fn raw(s: &Served, head: &str, body: &[u8]) -> String {
    use std::io::{Read, Write};
    let mut socket = std::net::TcpStream::connect(s.base.trim_start_matches("http://")).unwrap();
    socket.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    socket.write_all(head.as_bytes()).unwrap();
    let _ = socket.write_all(body);
    let _ = socket.shutdown(std::net::Shutdown::Write);
    let mut answer = Vec::new();
    let _ = socket.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The entries of a prepay answer sum to its balance, and each entry's `balanceAfter` is
/// the running sum.
#[track_caller]
fn assert_ledger_balances(prepay: &Value) {
    let amount = |v: &Value| v.as_str().unwrap().parse::<Decimal>().unwrap();
    let mut entries = prepay["entries"].as_array().unwrap().clone();
    entries.reverse();
    let mut running = Decimal::ZERO;
    for entry in &entries {
        running += amount(&entry["amount"]);
        assert_eq!(running, amount(&entry["balanceAfter"]), "{entry}");
    }
    assert_eq!(running, amount(&prepay["balance"]), "{prepay}");
}

#[test]
fn a_write_locked_out_past_the_busy_timeout_is_503_with_retry_after_while_reads_go_on() {
    let s = serve();
    let id = s.shipper("ann@example.com");
    // Another process holds the write lock (as `consign import` would) past the 5 s timeout.
    let other = rusqlite::Connection::open(&s.db).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    s.get(&path(&id, "/prepay")).expect(200);
    let busy = s.call("POST", &path(&id, "/shipments"), &book_body());
    busy.expect_error(503, "BUSY");
    assert_eq!(busy.header("retry-after"), Some("1"));
    other.execute_batch("ROLLBACK").unwrap();
    s.book(&id, &book_body());
}

/// `minBookNumber` over HTTP: compared as a number (a bound below every book number
/// lists from the first), and 400 naming it when it is not one.
#[test]
fn min_book_number_is_a_number_over_http() {
    let s = serve();
    let id = s.shipper("ann@example.com");
    let first = s.book(&id, &book_body());
    let second = s.book(&id, &book_body());
    let listed = |query: &str| -> Vec<String> {
        let answer = s.get(&path(&id, &format!("/shipments{query}"))).expect(200);
        answer["shipments"].as_array().unwrap().iter().map(|v| v["bookNumber"].as_str().unwrap().to_string()).collect()
    };
    for below in ["1", "0001", "999"] {
        assert_eq!(listed(&format!("?minBookNumber={below}")), [first.clone(), second.clone()], "{below}");
    }
    assert_eq!(listed(&format!("?minBookNumber={second}")), std::slice::from_ref(&second));
    let body = s.get(&path(&id, "/shipments?minBookNumber=abc")).expect_error(400, "INVALID_REQUEST");
    assert_eq!(body["details"][0]["field"], "minBookNumber", "{body}");
}

/// The debt path over HTTP: the feed records a return label's first scan that the
/// balance cannot pay (200, no 402), `GET .../prepay` shows the negative balance its
/// entries add up to, and a booking is 402 while the debt stands.
#[test]
fn a_return_the_balance_cannot_pay_is_a_debt_over_http() {
    let s = serve();
    let settings = json!({"minimumBalance": 0, "rechargeAmount": "1.00"});
    let customer = with(customer_body("ann@example.com"), "/prepaySettings", settings);
    let id = s.call("POST", "/restapi/v1/customers", &customer).expect(201)["customerId"].as_str().unwrap().to_string();
    let billed = json!({"party": "receiver", "account": "R-123456", "country": "US"});
    let booking = with(with(book_body(), "/scanBasedReturnLabel", json!(true)), "/billing", billed);
    let b = s.call("POST", &path(&id, "/shipments"), &booking).expect(201);
    let (book, ret) = (b["bookNumber"].as_str().unwrap(), b["returnTrackingNumber"].as_str().unwrap());
    let event = json!({"trackingNumber": ret, "carrier": "postal", "event": "Accepted", "eventStatus": "In Transit",
        "eventTime": "2026-12-01 15:00:00", "serviceArea": "Los Angeles, CA", "serviceAreaCountry": "US"});
    let fed = s.call("POST", &path(&id, &format!("/shipments/{book}/tracking-events")), &json!({"events": [event]})).expect(200);
    assert_eq!(fed["recorded"], 1);
    let prepay = s.get(&path(&id, "/prepay")).expect(200);
    let balance = prepay["balance"].as_str().unwrap();
    assert!(balance.starts_with('-') && balance.parse::<Decimal>().unwrap() < Decimal::ZERO, "{prepay}");
    assert_ledger_balances(&prepay);
    s.call("POST", &path(&id, "/shipments"), &book_body()).expect_error(402, "INSUFFICIENT_FUNDS");
}

/// Strict dates over HTTP: a shipment date with a sign and a one-digit month, or more
/// than a year ahead, is 400 naming `shipmentDate`.
#[test]
fn dates_are_strict_over_http() {
    let s = serve();
    let id = s.shipper("ann@example.com");
    for date in ["+2027-1-05", "2027-11-22"] {
        let body =
            s.call("POST", &path(&id, "/shipments"), &with(book_body(), "/shipmentDate", json!(date))).expect_error(400, "INVALID_REQUEST");
        assert_eq!(body["details"][0]["field"], "shipmentDate", "{date}: {body}");
    }
    s.call("POST", &path(&id, "/shipments"), &with(book_body(), "/shipmentDate", json!("2027-11-21"))).expect(201);
}

impl Served {
    /// POST the JSON `body` to `path` as the partner key with the `Idempotency-Key` `key`.
    fn post_once(&self, key: &str, path: &str, body: &Value) -> Reply {
        let request = ureq::http::Request::builder()
            .method("POST")
            .uri(format!("{}{path}", self.base))
            .header("Authorization", format!("RSIS {}", self.partner))
            .header("Idempotency-Key", key);
        let mut reply = self.agent.run(request.body(body.to_string()).unwrap()).unwrap();
        let bytes = reply.body_mut().read_to_vec().unwrap();
        Reply { status: reply.status().as_u16(), headers: reply.headers().clone(), bytes }
    }
}

#[test]
fn a_post_retried_with_its_idempotency_key_is_done_once_over_http() {
    let s = serve();
    let id = s.shipper("once@example.com");
    let booking = with(book_body(), "/receiver", la_address());
    let first = s.post_once("book-1", &path(&id, "/shipments"), &booking).expect(201);
    let again = s.post_once("book-1", &path(&id, "/shipments"), &booking).expect(201);
    assert_eq!(first, again);
    let prepay = s.get(&path(&id, "/prepay")).expect(200);
    assert_eq!(prepay["entries"].as_array().unwrap().iter().filter(|e| e["kind"] == "charge").count(), 1, "charged once");
    assert_ledger_balances(&prepay);

    let batch = json!({"name": "Monday"});
    let first = s.post_once("batch-1", &path(&id, "/batch"), &batch).expect(201);
    assert_eq!(s.post_once("batch-1", &path(&id, "/batch"), &batch).expect(201), first);
    assert_eq!(s.get(&path(&id, "/batch")).expect(200)["batches"].as_array().unwrap().len(), 1);
}

#[test]
fn quotes_and_create_customer_retried_with_their_idempotency_key_answer_once_over_http() {
    let s = serve();
    let customer = customer_body("signup@example.com");
    let first = s.post_once("signup-1", "/restapi/v1/customers", &customer).expect(201);
    assert_eq!(s.post_once("signup-1", "/restapi/v1/customers", &customer).expect(201), first);
    let id = first["customerId"].as_str().unwrap();
    let quote = quote_shipment();
    let quoted = s.post_once("quote-1", &path(id, "/quote"), &quote).expect(200);
    assert_eq!(s.post_once("quote-1", &path(id, "/quote"), &quote).expect(200), quoted, "the same quote ids");
    let batch = json!({"shipments": [quote_shipment(), intl_shipment()]});
    let priced = s.post_once("batch-quote-1", &path(id, "/batch-quote"), &batch).expect(200);
    assert_eq!(s.post_once("batch-quote-1", &path(id, "/batch-quote"), &batch).expect(200), priced, "the same quote ids");
    let again = s.call("POST", &path(id, "/batch-quote"), &batch).expect(200);
    assert_ne!(again, priced, "without the key, new quotes");
}

#[test]
fn an_idempotency_key_sent_with_another_request_is_409_naming_the_header() {
    let s = serve();
    let id = s.shipper("reuse@example.com");
    s.post_once("batch-1", &path(&id, "/batch"), &json!({"name": "Monday"})).expect(201);
    let body = s.post_once("batch-1", &path(&id, "/batch"), &json!({"name": "Tuesday"})).expect_error(409, "CONFLICT");
    assert_eq!(body["details"][0]["field"], "Idempotency-Key", "{body}");
    assert_eq!(s.get(&path(&id, "/batch")).expect(200)["batches"].as_array().unwrap().len(), 1);
}

#[test]
fn a_malformed_idempotency_key_is_400_naming_the_header() {
    let s = serve();
    let id = s.shipper("malformed@example.com");
    for key in ["", &"k".repeat(256)] {
        let body = s.post_once(key, &path(&id, "/batch"), &json!({})).expect_error(400, "INVALID_REQUEST");
        assert_eq!(body["details"][0]["field"], "Idempotency-Key", "{body}");
    }
    assert_eq!(s.get(&path(&id, "/batch")).expect(200)["batches"].as_array().unwrap().len(), 0, "nothing was done");
}
