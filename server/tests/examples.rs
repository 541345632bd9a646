//! The examples of `docs/openapi.json` and `docs/interface.md` against the server's real
//! answers.
//!
//! The test starts `consign serve` on a fresh database at a fixed instant, seeds it as
//! `consign demo` does (customer `C0000001`, book number `1000000001`, ...), then sends
//! one request per example, in the order a user reading `docs/interface.md` would send
//! them. For each it checks that
//! - the document gives the request's body as the example of that name, and the answer's
//!   status and body (compared as parsed JSON) as the example of that name under that
//!   status (inline in the operation, or in the shared response it refers to);
//! - the guide (`docs/interface.md` and its pages in `docs/interface/`) shows the same
//!   request (method, path, body) and answer between the markers `<!-- example NAME -->`
//!   and `<!-- /example -->`.
//!
//! An answer that is a PDF over HTTP is checked to be one, and documented as the JSON
//! `Shipping::handle` answers the same request with. The answers of the shared limits
//! (rate limit, quoted shipments of the day, body timeout) come from a second server
//! started with tight limits.
//!
//! And the other way round: every example in the document is one of these answers, except
//! the examples of 500 and 503 (a bug and a locked database cannot be provoked on
//! purpose), whose shape alone is checked; and every status of every operation has an
//! example.
//!
//! `scripts/check-guide` runs the same examples with curl against `consign serve` on a
//! database made by `consign demo`, as a reader would.
//!
//! When an answer changes on purpose, rewrite the examples from the server's answers:
//! `CONSIGN_WRITE_EXAMPLES=target/examples.json cargo test -p consign-server --test examples`
//! then `python3 scripts/write-examples target/examples.json`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write as _};
use std::sync::LazyLock;
use std::time::Duration;

use common::Served;
use consign_server::RateLimit;
use serde_json::{json, Value};

/// The instant of every example.
const NOW: &str = "2026-11-27T15:00:00Z";

/// The customer of `consign demo`, whose data the examples use.
const C: &str = "/restapi/v1/customers/C0000001";

/// A shipment date far enough ahead that the printed requests still work for a while
/// (a shipment date may be at most a year ahead), and a date after it.
const SHIP_DATE: &str = "2027-11-01";
const LATER: &str = "2027-11-02";

static DOC: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(include_str!("../../docs/openapi.json")).expect("docs/openapi.json is JSON"));
/// The pages of the guide: `docs/interface.md` and one page per area.
const GUIDE: [(&str, &str); 8] = [
    ("interface.md", include_str!("../../docs/interface.md")),
    ("interface/customers.md", include_str!("../../docs/interface/customers.md")),
    ("interface/quotes-and-shipments.md", include_str!("../../docs/interface/quotes-and-shipments.md")),
    ("interface/labels-and-tracking.md", include_str!("../../docs/interface/labels-and-tracking.md")),
    ("interface/batches.md", include_str!("../../docs/interface/batches.md")),
    ("interface/pickups-manifests-orders.md", include_str!("../../docs/interface/pickups-manifests-orders.md")),
    ("interface/webhooks.md", include_str!("../../docs/interface/webhooks.md")),
    ("interface/server-and-partners.md", include_str!("../../docs/interface/server-and-partners.md")),
];

/// One example: a request sent and the answer it got.
struct Exchange {
    /// The example's name in the document and in the guide.
    name: String,
    /// One sentence saying what the example shows.
    summary: String,
    method: String,
    /// The method of the operation the example is documented under: `method`, but for a
    /// method the path does not serve (405).
    doc_method: String,
    /// The path with its query, as sent.
    path: String,
    /// The operation's path as the document writes it, e.g. `/restapi/v1/customers/{customerId}`.
    pattern: String,
    body: Option<Value>,
    status: u16,
    /// The answer as sent, and parsed.
    text: String,
    answer: Value,
    /// The example belongs to the shared response the operation's status refers to, not
    /// to the operation.
    shared: bool,
    /// Over HTTP the answer is a PDF; `text` is the JSON of `Shipping::handle`.
    pdf: bool,
    /// The `Authorization` header sent: the example key unless the example is about keys.
    authorization: Option<String>,
}

/// The server of the examples and the answers so far.
struct Examples {
    s: Served,
    done: Vec<Exchange>,
    /// What the server makes at random (webhook ids and secrets), as the examples show
    /// it: the value, in a path (a shell variable the guide sets), in an answer.
    shown: Vec<(String, String, String)>,
}

/// `/a/:b/c` as OpenAPI writes it: `/a/{b}/c`.
fn openapi_path(pattern: &str) -> String {
    pattern
        .split('/')
        .map(|s| s.strip_prefix(':').map_or_else(|| s.to_string(), |name| format!("{{{name}}}")))
        .collect::<Vec<_>>()
        .join("/")
}

/// An answer: status, and the body as text, or `None` for a PDF (checked to be one).
fn send(s: &Served, method: &str, path: &str, body: Option<&str>, authorization: Option<&str>) -> (u16, Option<String>) {
    let mut request = ureq::http::Request::builder().method(method).uri(format!("{}{path}", s.base));
    if let Some(value) = authorization {
        request = request.header("Authorization", value);
    }
    if body.is_some() {
        request = request.header("Content-Type", "application/json");
    }
    let reply = match body {
        Some(body) => s.agent.run(request.body(body.to_string()).unwrap()),
        None => s.agent.run(request.body(()).unwrap()),
    };
    let mut reply = reply.unwrap();
    let pdf = reply.headers().get("content-type").is_some_and(|v| v == "application/pdf");
    let bytes = reply.body_mut().with_config().limit(64 << 20).read_to_vec().unwrap();
    if pdf {
        assert!(bytes.starts_with(b"%PDF-"), "{method} {path}: a PDF");
        return (reply.status().as_u16(), None);
    }
    (reply.status().as_u16(), Some(String::from_utf8(bytes).unwrap()))
}

impl Examples {
    /// Sends the example `name`: `method` on `path` with `body`, as the partner key.
    #[track_caller]
    fn ex(&mut self, name: &str, summary: &str, method: &str, path: &str, body: Option<Value>) -> Value {
        let key = format!("RSIS {}", self.s.partner);
        self.send(name, summary, method, path, body, Some(key), false)
    }

    /// As [`Examples::ex`], an example of the shared response the status refers to.
    #[track_caller]
    fn shared(&mut self, name: &str, summary: &str, method: &str, path: &str, body: Option<Value>, authorization: Option<String>) -> Value {
        self.send(name, summary, method, path, body, authorization, true)
    }

    #[track_caller]
    #[allow(clippy::too_many_arguments, reason = "one call per example reads best with every part of it named in place")]
    fn send(
        &mut self,
        name: &str,
        summary: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
        authorization: Option<String>,
        shared: bool,
    ) -> Value {
        // The route of the path; a malformed escape would fail the lookup.
        let route = path.split('?').next().unwrap().replace('%', "P");
        let route = route.as_str();
        let doc_method = match consign::route(method, route) {
            Err(consign::Unrouted::MethodNotAllowed(methods)) => methods[0],
            _ => method,
        };
        let pattern = consign::route(doc_method, route).map_or_else(|_| route.to_string(), |op| openapi_path(op.pattern()));
        let text_body = body.as_ref().map(Value::to_string);
        let (status, text) = send(&self.s, method, path, text_body.as_deref(), authorization.as_deref());
        let text = text.map(|t| self.shown.iter().fold(t, |t, (value, _, shown)| t.replace(value.as_str(), shown)));
        let path = &self.shown.iter().fold(path.to_string(), |p, (value, in_path, _)| p.replace(value.as_str(), in_path));
        let pdf = text.is_none();
        // A PDF is documented as `Shipping::handle` answers the same request, in JSON.
        let text = text.unwrap_or_else(|| {
            let shipping = consign::Shipping::builder().path(&self.s.db).clock(common::fixed(NOW)).open().unwrap();
            let r = shipping.handle(method, path, text_body.as_deref().unwrap_or(""));
            assert_eq!(r.status, status, "{name}: {}", r.body);
            r.body
        });
        let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}: {text}"));
        eprintln!("{name}: {method} {path} {status} {}", text.chars().take(400).collect::<String>());
        assert!(self.done.iter().all(|d| d.name != name), "two examples named {name}");
        self.done.push(Exchange {
            name: name.into(),
            summary: summary.into(),
            method: method.into(),
            doc_method: doc_method.into(),
            path: path.into(),
            pattern,
            body,
            status,
            text,
            answer: answer.clone(),
            shared,
            pdf,
            authorization,
        });
        answer
    }

    /// Shows `value`, made at random by the server, as `in_path` in the paths of the
    /// examples from now on and as `in_answer` in their answers.
    /// The last example, already sent, shows it so too.
    fn show(&mut self, value: &str, in_path: &str, in_answer: &str) {
        self.shown.push((value.to_string(), in_path.to_string(), in_answer.to_string()));
        let last = self.done.last_mut().unwrap();
        last.text = last.text.replace(value, in_answer);
        last.answer = serde_json::from_str(&last.text).unwrap();
    }

    /// An example of a shared answer to `head` (a POST on `path`, its body never sent
    /// whole), sent on a connection of its own after `wait`.
    fn raw(&mut self, name: &str, summary: &str, path: &str, head: &str, wait: Duration) {
        std::thread::sleep(wait);
        let mut socket = std::net::TcpStream::connect(self.s.base.trim_start_matches("http://")).unwrap();
        socket.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        // The server may answer and close before it has read everything.
        let _ = socket.write_all(head.as_bytes());
        let mut answer = Vec::new();
        let _ = socket.read_to_end(&mut answer);
        let answer = String::from_utf8(answer).unwrap();
        let (head, text) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("{name}: {answer:?}"));
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        self.done.push(Exchange {
            name: name.into(),
            summary: summary.into(),
            method: "POST".into(),
            doc_method: "POST".into(),
            path: path.into(),
            pattern: openapi_path(consign::route("POST", path).unwrap().pattern()),
            body: None,
            status,
            text: text.to_string(),
            answer: serde_json::from_str(text).unwrap(),
            shared: true,
            pdf: false,
            authorization: None,
        });
    }

    /// The answer of a request that is not an example (seeding), asserting `status`.
    #[track_caller]
    fn seed(&self, method: &str, path: &str, body: Value, status: u16) -> Value {
        let key = format!("RSIS {}", self.s.partner);
        let (got, text) = send(&self.s, method, path, Some(&body.to_string()), Some(&key));
        let text = text.unwrap();
        assert_eq!(got, status, "{method} {path}: {text}");
        serde_json::from_str(&text).unwrap()
    }
}

/// The demo's address of Ann Lee.
fn ann() -> Value {
    json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142"})
}

/// The demo's receiver in Los Angeles.
fn bo() -> Value {
    json!({"name": "Bo Kim", "company": "", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
        "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199"})
}

/// The demo's shipment, shipped on `date`.
fn demo_shipment(date: &str) -> Value {
    json!({
        "shipmentDate": date, "shipmentReference": "ORDER-1042",
        "contentDescription": "art books", "sender": ann(), "receiver": bo(),
        "residential": true, "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": "3.5", "length": "12", "width": "10", "height": "8", "insuranceAmount": null, "declaredValue": null}]
    })
}

/// Seeds the database as `consign demo` does: in process, without a key (so that the
/// partner key of the examples acts for the demo's customer only once it connects it),
/// at the examples' instant.
fn seed_demo(db: &std::path::Path) {
    let shipping = consign::Shipping::builder().path(db).clock(common::fixed(NOW)).open().unwrap();
    let call = |method: &str, path: &str, body: Value, status: u16| {
        let r = shipping.handle(method, path, &body.to_string());
        assert_eq!(r.status, status, "{method} {path}: {}", r.body);
        serde_json::from_str::<Value>(&r.body).unwrap()
    };
    let created = call(
        "POST",
        "/restapi/v1/customers",
        json!({"profileCode": "Default", "email": "ann@leeceramics.example", "password": "glaze-and-fire",
            "mailingAddress": ann(), "billingAddress": ann(), "prepaySettings": {"minimumBalance": "50.00", "rechargeAmount": "200.00"}}),
        201,
    );
    assert_eq!(created["customerId"], "C0000001");
    call(
        "POST",
        &format!("{C}/paymentMethod"),
        json!({"billingAddress": ann(),
            "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": "tok_demo_4f9a2c"}}),
        200,
    );
    let shipment = demo_shipment("2026-11-28");
    let quoted = call("POST", &format!("{C}/batch-quote"), json!({"shipments": [shipment.clone()]}), 200);
    let cents = |q: &Value| (q["totalAmount"].to_string().parse::<f64>().unwrap() * 100.0).round() as i64;
    let cheapest = quoted["results"][0]["quotes"].as_array().unwrap().iter().min_by_key(|q| cents(q)).unwrap().clone();
    let mut booking = shipment;
    for key in ["carrierCode", "serviceCode", "packageTypeCode", "quoteId"] {
        booking[key] = cheapest[key].clone();
    }
    booking["approvePrepayRecharge"] = json!(true);
    let booked = call("POST", &format!("{C}/shipments"), booking, 201);
    assert_eq!(booked["bookNumber"], "1000000001");
    let (tracking, carrier) = (booked["trackingNumber"].clone(), cheapest["carrierCode"].clone());
    let event = |what: &str, at: &str, area: &str| {
        json!({"trackingNumber": tracking, "carrier": carrier, "event": what, "eventStatus": "In Transit",
            "eventTime": at, "serviceArea": area, "serviceAreaCountry": "US"})
    };
    let events = json!({"events": [
        event("Departed the origin facility", "2026-11-27 21:00:00", "Philadelphia, PA"),
        event("Arrived at the destination facility", "2026-11-28 21:00:00", "Los Angeles, CA"),
        event("Departed the origin facility", "2026-11-27 21:00:00", "Philadelphia, PA"),
    ]});
    call("POST", &format!("{C}/shipments/1000000001/tracking-events"), events, 200);
    let mut pickup = ann();
    for (k, v) in [
        ("carrierCode", carrier.clone()),
        ("pickupDate", json!("2026-11-28")),
        ("readyTime", json!("10:00:00")),
        ("closeTime", json!("16:00:00")),
        ("bookNumbers", json!(["1000000001"])),
    ] {
        pickup[k] = v;
    }
    call("POST", &format!("{C}/pickups"), pickup, 201);
    let mut manifest = ann();
    manifest["carrierCode"] = carrier;
    manifest["bookNumbers"] = json!(["1000000001"]);
    call("POST", &format!("{C}/manifest"), manifest, 201);
}

/// Every example, in the order of the guide.
fn run_examples(x: &mut Examples) {
    let none = None;
    let (get, post, put, delete) = ("GET", "POST", "PUT", "DELETE");

    // Customers: first the key of the examples connects the demo's customer.
    let login = json!({"username": "ann@leeceramics.example", "password": "glaze-and-fire"});
    x.ex("connectCustomer", "The key now acts for the customer of this login.", post, "/restapi/v1/connect-customer", Some(login));
    let customer = json!({
        "profileCode": "Default", "email": "jo@potterybarn.example", "password": "wheel-and-kiln",
        "mailingAddress": {"name": "Jo Park", "company": "Park Pottery", "address1": "12 Canal St", "address2": "",
            "city": "Boston", "state": "MA", "zip": "02114", "country": "US", "phone": "617-555-0100"},
        "billingAddress": {"name": "Jo Park", "company": "Park Pottery", "address1": "12 Canal St", "address2": "",
            "city": "Boston", "state": "MA", "zip": "02114", "country": "US", "phone": "617-555-0100"},
        "prepaySettings": {"minimumBalance": "20.00", "rechargeAmount": "100.00"}
    });
    x.ex("createCustomer", "A new customer with a prepay account.", post, "/restapi/v1/customers", Some(customer.clone()));
    x.ex("createCustomer-taken", "The e-mail is already a customer's.", post, "/restapi/v1/customers", Some(customer.clone()));
    let mut no_email = customer.clone();
    no_email.as_object_mut().unwrap().remove("email");
    x.ex("createCustomer-invalid", "A required field is missing.", post, "/restapi/v1/customers", Some(no_email));
    let wrong = json!({"username": "ann@leeceramics.example", "password": "not-the-password"});
    x.ex("connectCustomer-wrong", "A wrong password.", post, "/restapi/v1/connect-customer", Some(wrong));
    x.ex("getPartners", "The partner keys that act for the customer.", get, &format!("{C}/partners"), none.clone());
    x.ex("getPrepay", "Balance and ledger of the prepay account.", get, &format!("{C}/prepay"), none.clone());
    x.ex(
        "getPrepay-unknown",
        "No such customer (or one the key does not act for).",
        get,
        "/restapi/v1/customers/C0000099/prepay",
        none.clone(),
    );
    x.ex(
        "listEvents",
        "The customer's changes after a cursor, of the types asked for.",
        get,
        &format!("{C}/events?types=prepay.*&limit=2"),
        none.clone(),
    );
    x.ex("listEvents-invalid", "A type that does not exist.", get, &format!("{C}/events?types=shipments.*"), none.clone());
    let payment = json!({"billingAddress": ann(),
        "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": "tok_visa_8d1e"}});
    x.ex("updatePaymentMethod", "Stores a card token of the payment processor.", post, &format!("{C}/paymentMethod"), Some(payment));
    let card = json!({"billingAddress": ann(), "paymentMethod": {"paymentMethodType": "card", "cardNumber": "4111111111111111"}});
    x.ex("updatePaymentMethod-invalid", "Card data instead of a token.", post, &format!("{C}/paymentMethod"), Some(card));

    // Services and settings.
    x.ex("listServices", "Every service the customer may ship with.", get, &format!("{C}/services"), none.clone());
    let options = json!({"integratedQuotingOptions": [
        {"name": "Economy", "carrierCode": "postal", "serviceCode": "postal_ground_advantage", "packageTypeCode": "postal_custom"}]});
    x.ex(
        "setIntegratedQuotingOptions",
        "Names a service for shop checkouts.",
        put,
        &format!("{C}/integratedQuotingOptions"),
        Some(options),
    );
    let unknown = json!({"integratedQuotingOptions": [
        {"name": "Fast", "carrierCode": "postal", "serviceCode": "postal_teleport", "packageTypeCode": "postal_custom"}]});
    x.ex(
        "setIntegratedQuotingOptions-invalid",
        "A service that does not exist.",
        put,
        &format!("{C}/integratedQuotingOptions"),
        Some(unknown),
    );
    x.ex("getIntegratedQuotingOptions", "The options stored above.", get, &format!("{C}/integratedQuotingOptions"), none.clone());
    let account = json!({"accountFields": {"accountNumber": "A1B2C3", "userId": "lee-shipping", "password": "s3cret-pass",
        "accessLicenceNumber": "AB12CD34EF56"}});
    let created = x.ex(
        "putProviderAccount",
        "The customer's own account with a carrier.",
        put,
        &format!("{C}/provider-accounts/parcel"),
        Some(account),
    );
    x.ex(
        "putProviderAccount-invalid",
        "Account fields that are not an object.",
        put,
        &format!("{C}/provider-accounts/parcel"),
        Some(json!({"accountFields": 5})),
    );
    x.ex("getProviderAccounts", "The accounts, secrets masked.", get, &format!("{C}/provider-accounts"), none.clone());
    let account_id = created["id"].as_str().unwrap().to_string();
    x.ex("deleteProviderAccount", "Removes the account.", delete, &format!("{C}/provider-accounts/{account_id}"), none.clone());
    x.ex("deleteProviderAccount-unknown", "It is gone already.", delete, &format!("{C}/provider-accounts/{account_id}"), none.clone());
    x.ex(
        "getRegionalShipmentTypes",
        "Regional services for a postal code.",
        get,
        &format!("{C}/regionalShipmentTypes/19106"),
        none.clone(),
    );
    x.ex("getRegionalShipmentTypes-invalid", "Not a postal code.", get, &format!("{C}/regionalShipmentTypes/nowhere"), none.clone());
    x.ex(
        "getRegionalShipmentTypesUnprefixed",
        "The same without /restapi/v1.",
        get,
        "/customers/C0000001/regionalShipmentTypes/19106",
        none.clone(),
    );
    x.ex("createIntegration", "A web shop whose orders come in.", post, &format!("{C}/integrations"), Some(json!({"name": "Web shop"})));
    x.ex("createIntegration-invalid", "No name.", post, &format!("{C}/integrations"), Some(json!({"name": ""})));

    // Quotes.
    let shipment = demo_shipment(SHIP_DATE);
    let mut quote = shipment.clone();
    for (k, v) in [("carrierCode", "postal"), ("serviceCode", "postal_priority_mail"), ("packageTypeCode", "postal_custom")] {
        quote[k] = json!(v);
    }
    let quoted = x.ex("quote", "One service, named.", post, &format!("{C}/quote"), Some(quote.clone()));
    let quote_id = quoted["quoteId"].clone();
    let mut all = shipment.clone();
    all["carrierCode"] = json!("postal");
    x.ex("quote-carrier", "Every service of one carrier.", post, &format!("{C}/quote"), Some(all));
    x.ex(
        "quote-invalid",
        "A shipment date in the past.",
        post,
        &format!("{C}/quote"),
        Some(json!({"shipmentDate": "2020-01-01",
        "sender": ann(), "receiver": bo(), "weightUnit": "lb", "dimUnit": "in", "carrierCode": "postal",
        "pieces": [{"weight": "3.5", "length": "12", "width": "10", "height": "8"}]})),
    );
    let mut intl = intl_booking(&shipment);
    for key in ["serviceCode", "packageTypeCode", "approvePrepayRecharge"] {
        intl.as_object_mut().unwrap().remove(key);
    }
    let mut broken = shipment.clone();
    broken["sender"]["state"] = json!("Pennsylvania");
    broken["carrierCode"] = json!("parcel");
    let batch_quoted = x.ex(
        "batchQuote",
        "Two shipments at once; one of them at fault.",
        post,
        &format!("{C}/batch-quote"),
        Some(json!({"shipments": [intl, broken]})),
    );
    let intl_quote = batch_quoted["results"][0]["quotes"][0]["quoteId"].clone();
    x.ex("batchQuote-invalid", "Not a list of shipments.", post, &format!("{C}/batch-quote"), Some(json!({"shipments": "all"})));

    // Shipments.
    let mut booking = quote.clone();
    booking["quoteId"] = quote_id;
    booking["orderNumber"] = json!("SO-5001");
    booking["approvePrepayRecharge"] = json!(true);
    let booked = x.ex("bookShipment", "Books the quote above at its price.", post, &format!("{C}/shipments"), Some(booking.clone()));
    let book = booked["bookNumber"].as_str().unwrap().to_string();
    let mut no_pieces = booking.clone();
    no_pieces.as_object_mut().unwrap().remove("pieces");
    no_pieces.as_object_mut().unwrap().remove("quoteId");
    x.ex("bookShipment-invalid", "No pieces.", post, &format!("{C}/shipments"), Some(no_pieces));
    let mut used = booking.clone();
    used["shipmentReference"] = json!("ORDER-1043");
    x.ex("bookShipment-quoteUsed", "The quote was booked already.", post, &format!("{C}/shipments"), Some(used));
    let mut dear = booking.clone();
    dear.as_object_mut().unwrap().remove("quoteId");
    dear["serviceCode"] = json!("postal_priority_mail_express");
    dear["approvePrepayRecharge"] = json!(false);
    dear["pieces"][0]["insuranceAmount"] = json!("5000");
    x.ex(
        "bookShipment-funds",
        "The balance is too low and no recharge is approved.",
        post,
        "/restapi/v1/customers/C0000002/shipments",
        Some(dear),
    );
    x.ex("getShipment", "One shipment.", get, &format!("{C}/shipments/{book}"), none.clone());
    x.ex("getShipment-unknown", "No such book number.", get, &format!("{C}/shipments/1999999999"), none.clone());
    x.ex(
        "listShipments",
        "Shipments by book number, from minBookNumber on.",
        get,
        &format!("{C}/shipments?minBookNumber=1000000002&limit=2"),
        none.clone(),
    );
    x.ex("listShipments-invalid", "A limit out of range.", get, &format!("{C}/shipments?limit=0"), none.clone());
    x.ex(
        "searchShipments",
        "Shipments whose names, numbers or references hold a word.",
        post,
        &format!("{C}/searchShipments"),
        Some(json!({"keyword": "kim"})),
    );
    x.ex("searchShipments-invalid", "No keyword.", post, &format!("{C}/searchShipments"), Some(json!({})));

    // Labels and documents.
    x.ex("getBookedLabel", "The label in the format it was booked with.", get, &format!("{C}/shipments/{book}/label"), none.clone());
    x.ex("getLabel", "The label as ZPL for a thermal printer.", get, &format!("{C}/shipments/{book}/label/ZPL"), none.clone());
    x.ex("getLabel-invalid", "A format the carrier does not print.", get, &format!("{C}/shipments/{book}/label/GIF"), none.clone());
    x.ex(
        "getLabels",
        "Labels of several shipments in one document.",
        post,
        &format!("{C}/shipments/multiple/labels/ZPL"),
        Some(json!({"bookNumbers": ["1000000001", book]})),
    );
    x.ex(
        "getLabels-unknown",
        "A book number that is not the customer's.",
        post,
        &format!("{C}/shipments/multiple/labels/PDF"),
        Some(json!({"bookNumbers": ["1999999999"]})),
    );
    let mut international = intl_booking(&shipment);
    international["quoteId"] = intl_quote;
    let invoiced = x.ex(
        "bookShipment-international",
        "An international shipment with its commercial invoice.",
        post,
        &format!("{C}/shipments"),
        Some(international),
    );
    let invoiced = invoiced["bookNumber"].as_str().unwrap().to_string();
    x.ex("getCommercialInvoice", "The commercial invoice.", get, &format!("{C}/shipments/{invoiced}/commercialInvoice"), none.clone());
    x.ex(
        "getCommercialInvoice-none",
        "A domestic shipment has none.",
        get,
        &format!("{C}/shipments/{book}/commercialInvoice"),
        none.clone(),
    );
    let mut returnable = booking.clone();
    returnable.as_object_mut().unwrap().remove("quoteId");
    returnable["shipmentReference"] = json!("ORDER-1044");
    returnable["scanBasedReturnLabel"] = json!(true);
    let returnable = x.ex(
        "bookShipment-returnLabel",
        "A booking that asks for a scan-based return label.",
        post,
        &format!("{C}/shipments"),
        Some(returnable),
    )["bookNumber"]
        .as_str()
        .unwrap()
        .to_string();
    x.ex(
        "getReturnLabel",
        "The return label, paid only if used.",
        get,
        &format!("{C}/shipments/{returnable}/return-label/ZPL"),
        none.clone(),
    );
    x.ex("getReturnLabel-none", "Booked without a return label.", get, &format!("{C}/shipments/{book}/return-label/ZPL"), none.clone());

    // Tracking.
    let tracking = booked["trackingNumber"].clone();
    let events = json!({"events": [
        {"trackingNumber": tracking, "carrier": "postal", "event": "Accepted at the post office", "eventStatus": "In Transit",
         "eventTime": format!("{SHIP_DATE} 16:00:00"), "serviceArea": "Philadelphia, PA", "serviceAreaCountry": "US"},
        {"trackingNumber": tracking, "carrier": "postal", "event": "Delivered, front door", "eventStatus": "Delivered",
         "eventTime": format!("{LATER} 11:30:00"), "serviceArea": "Los Angeles, CA", "serviceAreaCountry": "US"}]});
    x.ex("recordTrackingEvents", "The carrier's feed of scans.", post, &format!("{C}/shipments/{book}/tracking-events"), Some(events));
    x.ex(
        "recordTrackingEvents-invalid",
        "An event status outside the list.",
        post,
        &format!("{C}/shipments/{book}/tracking-events"),
        Some(json!({"events": [{"trackingNumber": tracking, "carrier": "postal", "event": "Lost", "eventStatus": "Vanished",
            "eventTime": format!("{SHIP_DATE} 16:00:00"), "serviceArea": "Philadelphia, PA", "serviceAreaCountry": "US"}]})),
    );
    x.ex("getTrackingInformation", "The history, newest first.", get, &format!("{C}/shipments/{book}/tracking-information"), none.clone());
    x.ex(
        "getTrackingInformation-unknown",
        "No such book number.",
        get,
        &format!("{C}/shipments/1999999999/tracking-information"),
        none.clone(),
    );

    // Voiding.
    let mut voidable = booking.clone();
    voidable.as_object_mut().unwrap().remove("quoteId");
    voidable["shipmentReference"] = json!("ORDER-1045");
    voidable["scanBasedReturnLabel"] = json!(true);
    let voidable = x.ex("bookShipment-toVoid", "A booking to void below.", post, &format!("{C}/shipments"), Some(voidable));
    let return_tracking = voidable["returnTrackingNumber"].clone();
    let voidable = voidable["bookNumber"].as_str().unwrap().to_string();
    x.ex("voidShipment", "Voids a shipment and refunds it.", post, &format!("{C}/shipments/{voidable}"), Some(json!({"voided": true})));
    x.ex("voidShipment-again", "It is void already.", post, &format!("{C}/shipments/{voidable}"), Some(json!({"voided": true})));
    x.ex("voidShipment-scanned", "The carrier has scanned it.", post, &format!("{C}/shipments/{book}"), Some(json!({"voided": true})));
    x.ex("getLabel-voided", "No label for a void shipment.", get, &format!("{C}/shipments/{voidable}/label/PDF"), none.clone());
    x.ex("getBookedLabel-voided", "No label for a void shipment.", get, &format!("{C}/shipments/{voidable}/label"), none.clone());
    x.ex(
        "getReturnLabel-voided",
        "No return label for a void shipment.",
        get,
        &format!("{C}/shipments/{voidable}/return-label/ZPL"),
        none.clone(),
    );
    let scan = json!({"events": [{"trackingNumber": return_tracking, "carrier": "postal", "event": "Accepted at the post office",
        "eventStatus": "In Transit", "eventTime": format!("{LATER} 09:00:00"), "serviceArea": "Los Angeles, CA", "serviceAreaCountry": "US"}]});
    x.ex(
        "recordTrackingEvents-voided",
        "A scan of the return label of a void shipment.",
        post,
        &format!("{C}/shipments/{voidable}/tracking-events"),
        Some(scan),
    );
    x.ex(
        "voidShipment-international",
        "Voids the international shipment.",
        post,
        &format!("{C}/shipments/{invoiced}"),
        Some(json!({"voided": true})),
    );
    x.ex(
        "getCommercialInvoice-voided",
        "No invoice for a void shipment.",
        get,
        &format!("{C}/shipments/{invoiced}/commercialInvoice"),
        none.clone(),
    );
    x.ex(
        "getLabels-voided",
        "A void shipment among them.",
        post,
        &format!("{C}/shipments/multiple/labels/ZPL"),
        Some(json!({"bookNumbers": [voidable]})),
    );

    // Batches.
    let more = x.ex(
        "batchQuote-forBatch",
        "A quote to put into a batch.",
        post,
        &format!("{C}/batch-quote"),
        Some(json!({"shipments": [quote.clone()]})),
    );
    let more_quote = more["results"][0]["quotes"][0]["quoteId"].clone();
    let mut dear_quote = quote.clone();
    dear_quote["serviceCode"] = json!("postal_priority_mail_express");
    dear_quote["pieces"][0]["insuranceAmount"] = json!("5000");
    let poor = x.ex(
        "batchQuote-dear",
        "An insured express quote for the new customer.",
        post,
        "/restapi/v1/customers/C0000002/batch-quote",
        Some(json!({"shipments": [dear_quote]})),
    );
    let poor_quote = poor["results"][0]["quotes"][0]["quoteId"].clone();
    let poor_batch = x.ex(
        "createBatch-dear",
        "A batch of the new customer.",
        post,
        "/restapi/v1/customers/C0000002/batch",
        Some(json!({"name": "Big"})),
    )["batchId"]
        .as_str()
        .unwrap()
        .to_string();
    x.ex(
        "addQuotesToBatch-dear",
        "The insured quote into it.",
        post,
        &format!("/restapi/v1/customers/C0000002/batch/{poor_batch}/quotes"),
        Some(json!({"quoteIds": [poor_quote]})),
    );
    let batch = x.ex("createBatch", "An empty batch to fill with quotes.", post, &format!("{C}/batch"), Some(json!({"name": "Monday"})));
    let batch_id = batch["batchId"].as_str().unwrap().to_string();
    x.ex("createBatch-invalid", "A name that is not text.", post, &format!("{C}/batch"), Some(json!({"name": 5})));
    x.ex("addQuotesToBatch", "Adds a quote.", post, &format!("{C}/batch/{batch_id}/quotes"), Some(json!({"quoteIds": [more_quote]})));
    x.ex("addQuotesToBatch-unknown", "No such quote.", post, &format!("{C}/batch/{batch_id}/quotes"), Some(json!({"quoteIds": [999999]})));
    x.ex("getBatch", "The batch and its quotes.", get, &format!("{C}/batch/{batch_id}"), none.clone());
    x.ex("getBatch-unknown", "No such batch.", get, &format!("{C}/batch/B999999"), none.clone());
    x.ex("listBatches", "Every batch of the customer.", get, &format!("{C}/batch"), none.clone());
    x.ex(
        "batchBook",
        "Books every quote of the batch.",
        post,
        &format!("{C}/batch-book"),
        Some(json!({"batchId": batch_id, "approvePrepayRecharge": true})),
    );
    x.ex(
        "batchBook-again",
        "The batch is booked already.",
        post,
        &format!("{C}/batch-book"),
        Some(json!({"batchId": batch_id, "approvePrepayRecharge": true})),
    );
    x.ex("deleteBatch-booked", "A booked batch stays.", delete, &format!("{C}/batch/{batch_id}"), none.clone());
    let empty = x.ex("createBatch-spare", "A batch to delete.", post, &format!("{C}/batch"), Some(json!({"name": "Spare"})))["batchId"]
        .as_str()
        .unwrap()
        .to_string();
    x.ex("batchBook-empty", "A batch without quotes.", post, &format!("{C}/batch-book"), Some(json!({"batchId": empty})));
    x.ex("deleteBatch", "Deletes a batch not booked.", delete, &format!("{C}/batch/{empty}"), none.clone());
    x.ex(
        "batchBook-funds",
        "A quote the balance does not cover, no recharge approved: an error in its result.",
        post,
        "/restapi/v1/customers/C0000002/batch-book",
        Some(json!({"batchId": poor_batch, "approvePrepayRecharge": false})),
    );

    // Pickups and manifests.
    let mut pickup = ann();
    for (k, v) in [
        ("carrierCode", json!("postal")),
        ("pickupDate", json!(SHIP_DATE)),
        ("readyTime", json!("10:00:00")),
        ("closeTime", json!("16:00:00")),
        ("bookNumbers", json!([book])),
    ] {
        pickup[k] = v;
    }
    let scheduled = x.ex("schedulePickup", "A carrier comes to collect.", post, &format!("{C}/pickups"), Some(pickup.clone()));
    let pickup_id = scheduled["pickupId"].as_str().unwrap().to_string();
    let mut late = pickup.clone();
    late["closeTime"] = json!("09:00:00");
    x.ex("schedulePickup-invalid", "Closes before it is ready.", post, &format!("{C}/pickups"), Some(late));
    x.ex("schedulePickup-taken", "A shipment already on a pickup.", post, &format!("{C}/pickups"), Some(pickup.clone()));
    x.ex("getPickup", "The pickup.", get, &format!("{C}/pickups/{pickup_id}"), none.clone());
    x.ex("getPickup-unknown", "No such pickup.", get, &format!("{C}/pickups/P999999"), none.clone());
    x.ex("cancelPickup", "Cancels it.", post, &format!("{C}/pickups/{pickup_id}"), Some(json!({"cancelled": true})));
    x.ex("cancelPickup-again", "It is cancelled already.", post, &format!("{C}/pickups/{pickup_id}"), Some(json!({"cancelled": true})));
    let mut manifest = ann();
    manifest["carrierCode"] = json!("postal");
    manifest["bookNumbers"] = json!([book]);
    let made = x.ex("createManifest", "The end-of-day form the carrier scans.", post, &format!("{C}/manifest"), Some(manifest.clone()));
    let manifest_id = made["manifestId"].as_str().unwrap().to_string();
    x.ex("createManifest-again", "A shipment already on a manifest.", post, &format!("{C}/manifest"), Some(manifest.clone()));
    manifest["carrierCode"] = json!("parcel");
    x.ex("createManifest-invalid", "A shipment of another carrier.", post, &format!("{C}/manifest"), Some(manifest));
    x.ex("getManifest", "The manifest again.", get, &format!("{C}/manifest/{manifest_id}"), none.clone());
    x.ex("getManifest-unknown", "No such manifest.", get, &format!("{C}/manifest/M999999"), none.clone());

    // Orders.
    let integration = x.done.iter().find(|d| d.name == "createIntegration").unwrap().answer["integrationId"].as_str().unwrap().to_string();
    let order_path = format!("{C}/integrations/{integration}/orders/SO-5002");
    let order = json!({
        "orderId": "SO-5002", "orderDate": "2026-11-27", "orderNumber": "5002", "fulfillmentStatus": "pending",
        "shippingService": "Economy", "shippingTotal": "6.50", "weightUnit": "lb", "dimUnit": "in",
        "sender": ann(), "receiver": bo(),
        "items": [{"productId": "P-1", "sku": "MUG-BLUE", "title": "Blue mug", "price": "18.00", "quantity": 2, "weight": "0.8", "lineId": "L1"}],
        "packages": [{"weight": "2", "length": "10", "width": "8", "height": "6"}]
    });
    x.ex("putOrder", "An order of the web shop.", put, &order_path, Some(order.clone()));
    let mut lost = order.clone();
    lost["fulfillmentStatus"] = json!("lost");
    x.ex("putOrder-invalid", "A status outside the list.", put, &order_path, Some(lost));
    x.ex("getOrder", "The order.", get, &order_path, none.clone());
    x.ex("deleteOrder", "Deletes it.", delete, &order_path, none.clone());
    x.ex("getOrder-unknown", "It is gone.", get, &order_path, none.clone());
    x.ex("deleteOrder-unknown", "It is gone.", delete, &order_path, none.clone());

    webhook_examples(x);

    // The server's own.
    x.send("healthz", "The server is up (no key needed).", get, "/healthz", none.clone(), None, false);

    // Answers every operation may give.
    let key = Some(format!("RSIS {}", x.s.partner));
    x.shared("malformedParameter", "A path parameter that is not well-formed.", get, &format!("{C}/batch/B%ZZ"), none.clone(), key.clone());
    x.shared(
        "unknownCustomer",
        "No such customer, or one the key does not act for.",
        get,
        "/restapi/v1/customers/C0000099/batch",
        none.clone(),
        key.clone(),
    );
    x.shared(
        "batchBooked",
        "The batch is booked already.",
        post,
        &format!("{C}/batch/{batch_id}/quotes"),
        Some(json!({"quoteIds": [more_quote]})),
        key.clone(),
    );
    let limit = |path: &str, length: usize| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n",
            x.s.partner
        )
    };
    let (shipments, quotes) = (format!("{C}/shipments"), format!("{C}/batch-quote"));
    let (over_shipment, over_batch) = (limit(&shipments, 5 << 20), limit(&quotes, 17 << 20));
    x.raw(
        "tooLargeShipment",
        "A body over the 4 MiB of a shipment, refused on its Content-Length.",
        &shipments,
        &over_shipment,
        Duration::ZERO,
    );
    x.raw("tooLargeBatch", "A body over the 16 MiB of a batch, refused on its Content-Length.", &quotes, &over_batch, Duration::ZERO);
    x.shared("noKey", "No API key.", get, &format!("{C}/prepay"), none.clone(), None);
    x.shared(
        "wrongMethod",
        "A method the path does not serve.",
        "DELETE",
        &format!("{C}/prepay"),
        none.clone(),
        Some(format!("RSIS {}", x.s.partner)),
    );
    let head = format!(
        "POST {C}/integrations HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {}\r\nContent-Length: {}\r\n\
        Connection: close\r\n\r\n",
        x.s.partner,
        2 << 20
    );
    x.raw(
        "tooLarge",
        "A body over the operation's limit, refused on its Content-Length.",
        &format!("{C}/integrations"),
        &head,
        Duration::ZERO,
    );
    // Four more wrong passwords after the one of `connectCustomer-wrong` lock the e-mail.
    let wrong = json!({"username": "ann@leeceramics.example", "password": "not-the-password"});
    for _ in 0..4 {
        let (status, _) =
            send(&x.s, post, "/restapi/v1/connect-customer", Some(&wrong.to_string()), Some(&format!("RSIS {}", x.s.partner)));
        assert_eq!(status, 401);
    }
    let right = json!({"username": "ann@leeceramics.example", "password": "glaze-and-fire"});
    x.ex(
        "connectCustomer-locked",
        "Locked after five wrong passwords, even with the right one.",
        post,
        "/restapi/v1/connect-customer",
        Some(right),
    );
    let mut again = customer;
    again["email"] = json!("ann@leeceramics.example");
    x.ex("createCustomer-locked", "An e-mail locked by wrong passwords.", post, "/restapi/v1/customers", Some(again));
    // Partners, last: the key of the examples disconnects itself.
    x.ex(
        "disconnectPartner-unknown",
        "A key that does not act for the customer (or another partner's).",
        delete,
        &format!("{C}/partners/K0000099"),
        none.clone(),
    );
    x.ex(
        "disconnectPartner",
        "The key of the examples no longer acts for the customer.",
        delete,
        &format!("{C}/partners/K0000001"),
        none.clone(),
    );
}

/// The examples of webhook endpoints. The ids and secrets the server makes at random
/// are shown as fixed ones; the paths name an endpoint by the shell variable the guide
/// sets (`$WEBHOOK`, `$XPS_WEBHOOK`). No example after these writes an event and the
/// endpoints' hosts (under `.example`) never resolve, so that each answer is the same
/// whenever the deliverer runs: the attempts are listed before any is due.
fn webhook_examples(x: &mut Examples) {
    let none = None;
    let (get, post, put, delete) = ("GET", "POST", "PUT", "DELETE");
    let hooks = format!("{C}/webhooks");
    let mut endpoint = json!({"url": "https://hooks.leeceramics.example/consign", "types": ["shipment.*", "order.*"],
        "description": "Lee Ceramics shop", "format": "standard"});
    let created = x.ex("createWebhook", "An endpoint for the customer's shipment and order events.", post, &hooks, Some(endpoint.clone()));
    x.show(created["webhookId"].as_str().unwrap(), "$WEBHOOK", "wh_5d1c0a3f9e27b4c86a10");
    x.show(created["secret"].as_str().unwrap(), "", "whsec_JMAgBkxnVlWYI2emAPJJb96aN61NExb6IwKYVuTlU9Q=");
    let cursor: i64 = created["cursor"].as_str().unwrap().parse().unwrap();
    let mut plain = endpoint.clone();
    plain["url"] = json!("http://hooks.leeceramics.example/consign");
    x.ex("createWebhook-invalid", "An http:// URL.", post, &hooks, Some(plain));
    let xps = json!({"url": "https://shop.leeceramics.example/xps/update-order", "types": ["shipment.booked"],
        "description": "Order updates of the web shop", "format": "xps"});
    let made = x.ex("createWebhook-xps", "An XPS-style endpoint of the web shop: its orders' bookings.", post, &hooks, Some(xps));
    x.show(made["webhookId"].as_str().unwrap(), "$XPS_WEBHOOK", "wh_c27e94b05a1d3f68e0b2");
    x.show(made["secret"].as_str().unwrap(), "", "whsec_TrUd5iS+LTQbVXlKoJL1/m1R8iwtUZdNIrC/Ny95WmM=");
    let (one, other) =
        (format!("{hooks}/{}", created["webhookId"].as_str().unwrap()), format!("{hooks}/{}", made["webhookId"].as_str().unwrap()));
    x.ex("listWebhooks", "The customer's endpoints.", get, &hooks, none.clone());
    x.ex("getWebhook", "One endpoint.", get, &one, none.clone());
    x.ex("getWebhook-unknown", "No such endpoint.", get, &format!("{hooks}/wh_00000000000000000000"), none.clone());
    x.ex("listWebhookDeliveries", "No attempt yet.", get, &format!("{one}/deliveries?limit=10"), none.clone());
    x.ex("listWebhookDeliveries-invalid", "A limit out of range.", get, &format!("{one}/deliveries?limit=0"), none.clone());
    x.ex("testWebhook", "A webhook.test message goes out with the next deliveries.", post, &format!("{one}/test"), none.clone());
    endpoint["description"] = json!("Lee Ceramics shop (paused)");
    endpoint["enabled"] = json!(false);
    x.ex("updateWebhook", "A new description, and disabled.", put, &one, Some(endpoint));
    let rotated = x.ex(
        "rotateWebhookSecret",
        "A new secret; the previous one signs too for 24 hours.",
        post,
        &format!("{one}/rotate-secret"),
        none.clone(),
    );
    x.show(rotated["secret"].as_str().unwrap(), "", "whsec_YZYGjvW2XbZc9rxvIRyawvHe2j2oODbQ7EXGO7RamE0=");
    let after = json!({"after": (cursor - 3).to_string()});
    x.ex(
        "replayWebhook",
        "The events after a cursor, again; the disabled endpoint is enabled again.",
        post,
        &format!("{one}/replay"),
        Some(after),
    );
    let past = json!({"after": (cursor + 100).to_string()});
    x.ex("replayWebhook-invalid", "A cursor past the newest event.", post, &format!("{one}/replay"), Some(past));
    x.ex("deleteWebhook", "Deletes the XPS endpoint; the answer is the endpoint as it was.", delete, &other, none.clone());
}

/// The booking of the demo shipment to London with a commercial invoice.
fn intl_booking(shipment: &Value) -> Value {
    let mut b = shipment.clone();
    b["receiver"] = json!({"name": "Jo Smith", "company": "Smith & Co", "address1": "1 High St", "address2": "", "city": "London",
        "state": "", "zip": "SW1A 1AA", "country": "GB", "phone": "+44 20 7946 0958"});
    b["shipmentReference"] = json!("ORDER-1046");
    b["residential"] = json!(false);
    b["pieces"][0]["declaredValue"] = json!("80.00");
    for (k, v) in [("carrierCode", "parcel"), ("serviceCode", "parcel_worldwide_saver"), ("packageTypeCode", "parcel_custom")] {
        b[k] = json!(v);
    }
    b["commercialInvoice"] = json!({"sendElectronically": true, "ftrNumber": null, "itnNumber": null, "aesNumber": null,
        "termsOfTrade": "DAP", "receiverTaxId": "GB123", "senderVatTaxId": "12-3456789", "packageMarks": "1/1",
        "items": [{"description": "Art book", "quantity": 4, "unitValue": "20.00", "weight": "3.5", "htsNumber": "4901.99",
            "countryOfOrigin": "US"}]});
    b["approvePrepayRecharge"] = json!(true);
    b
}

/// Examples of a server with tight limits: a rate limit of one request, a cap of one
/// quoted shipment a day and a body timeout of a moment.
fn run_limits(done: &mut Vec<Exchange>) {
    let s = common::serve_on(common::fresh_db("consign-examples-limits"), common::fixed(NOW), |config| {
        config.rate_limit = Some(RateLimit { per_second: 1, burst: 3 });
        config.quotes_per_day = 1;
        config.body_timeout = Duration::from_millis(300);
    });
    let mut x = Examples { s, done: std::mem::take(done), shown: Vec::new() };
    seed_customer_only(&x);
    let mut quote = demo_shipment(SHIP_DATE);
    quote["carrierCode"] = json!("postal");
    quote["serviceCode"] = json!("postal_priority_mail");
    quote["packageTypeCode"] = json!("postal_custom");
    let two = json!({"shipments": [quote.clone(), quote]});
    let key = Some(format!("RSIS {}", x.s.partner));
    x.shared(
        "quotesPerDay",
        "The customer's quoted shipments of the day would pass the cap.",
        "POST",
        &format!("{C}/batch-quote"),
        Some(two),
        key.clone(),
    );
    // Until the burst is spent (a request or two).
    for _ in 0..20 {
        x.shared("rateLimit", "The key made more requests than its rate limit allows.", "GET", &format!("{C}/prepay"), None, key.clone());
        if x.done.last().unwrap().status == 429 {
            break;
        }
        x.done.pop();
    }
    let head = format!(
        "POST {C}/integrations HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {}\r\nContent-Length: 100\r\n\
        Connection: close\r\n\r\n{{\"name\"",
        x.s.partner
    );
    // After the rate limit's burst has come back.
    x.raw("bodyTimeout", "The body did not arrive within the body timeout.", &format!("{C}/integrations"), &head, Duration::from_secs(3));
    *done = std::mem::take(&mut x.done);
}

/// Customer `C0000001` alone, as the demo creates it.
fn seed_customer_only(x: &Examples) {
    let created = x.seed(
        "POST",
        "/restapi/v1/customers",
        json!({"profileCode": "Default", "email": "ann@leeceramics.example", "password": "glaze-and-fire",
            "mailingAddress": ann(), "billingAddress": ann(), "prepaySettings": {"minimumBalance": "50.00", "rechargeAmount": "200.00"}}),
        201,
    );
    assert_eq!(created["customerId"], "C0000001");
}

/// Every example, sent.
fn exchanges() -> Vec<Exchange> {
    let s = common::serve_on(common::fresh_db("consign-examples"), common::fixed(NOW), |_| {});
    let mut x = Examples { s, done: Vec::new(), shown: Vec::new() };
    seed_demo(&x.s.db);
    run_examples(&mut x);
    let mut done = std::mem::take(&mut x.done);
    drop(x);
    run_limits(&mut done);
    done
}

/// `a` and `b` are the same JSON, numbers compared by their decimal value: `25.10` and
/// `25.1` are one amount, however a tool that rewrote the document spelled it.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let decimal = |n: &serde_json::Number| n.to_string().parse::<rust_decimal::Decimal>().ok().map(|d| d.normalize());
            x == y || decimal(x).is_some_and(|d| Some(d) == decimal(y))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// `s` as a JSON pointer token.
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The response object of `status` of the operation at `pointer`, its `$ref` followed:
/// the pointer of the object reached and the object.
fn response(op: &str, status: &str) -> Option<(String, &'static Value)> {
    let mut pointer = format!("{op}/responses/{status}");
    let mut value = DOC.pointer(&pointer)?;
    if let Some(target) = value.get("$ref").and_then(Value::as_str) {
        pointer = target.trim_start_matches('#').to_string();
        value = DOC.pointer(&pointer)?;
    }
    Some((pointer, value))
}

/// What the guide shows for an example: strings longer than 120 characters (base64
/// documents) cut to their first 60 and `…`; lists of more than 4 entries cut to their
/// first 2 and a note of how many more there are.
fn shortened(v: &Value) -> Value {
    match v {
        Value::String(s) if s.chars().count() > 120 => Value::String(format!("{}…", s.chars().take(60).collect::<String>())),
        Value::Array(items) if items.len() > 4 => {
            let mut kept: Vec<Value> = items[..2].iter().map(shortened).collect();
            kept.push(Value::String(format!("… and {} more", items.len() - 2)));
            Value::Array(kept)
        }
        Value::Array(items) => Value::Array(items.iter().map(shortened).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), shortened(v))).collect()),
        other => other.clone(),
    }
}

/// The request and answer the guide shows between the markers of example `name`:
/// method, path, body, status and answer.
fn in_guide(name: &str) -> Option<(String, String, Option<Value>, u16, Value)> {
    let marker = format!("<!-- example {name} -->\n");
    let (_, page) = GUIDE.iter().find(|(_, page)| page.contains(&marker))?;
    let block = &page[page.find(&marker)?..];
    let block = &block[..block.find("<!-- /example -->").expect("an example block ends")];
    let curl = &block[block.find("curl ")?..];
    let method = curl.split_once("-X ").map_or("GET", |(_, rest)| rest.split_whitespace().next().unwrap()).to_string();
    let url = curl.split('"').nth(1)?;
    let path = url.trim_start_matches("http://127.0.0.1:8080").to_string();
    let body = curl.split_once("-d '").map(|(_, rest)| serde_json::from_str(&rest[..rest.find("'\n").unwrap()]).unwrap());
    let status = block.split_once("HTTP ")?.1[..3].parse().ok()?;
    let Some((_, answer)) = block.split_once("```json\n") else {
        // A PDF: no JSON shown.
        return Some((method, path, body, status, Value::Null));
    };
    let answer = serde_json::from_str(&answer[..answer.find("\n```").unwrap()]).unwrap_or_else(|e| panic!("{name}: {e}"));
    Some((method, path, body, status, answer))
}

#[test]
fn every_example_is_the_servers_real_answer() {
    let done = exchanges();
    if let Ok(out) = std::env::var("CONSIGN_WRITE_EXAMPLES") {
        let list: Vec<Value> = done
            .iter()
            .map(|d| {
                json!({"name": d.name, "summary": d.summary, "method": d.method, "docMethod": d.doc_method, "path": d.path, "pattern": d.pattern,
                    "body": d.body.as_ref().map(Value::to_string), "status": d.status, "answer": d.text, "shared": d.shared, "pdf": d.pdf,
                    "authorization": d.authorization.is_some()})
            })
            .collect();
        std::fs::write(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(out), serde_json::to_string(&list).unwrap())
            .unwrap();
    }
    let mut failures = Vec::new();
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for d in &done {
        let op = format!("/paths/{}/{}", token(&d.pattern), d.doc_method.to_ascii_lowercase());
        let what = format!("{} ({} {})", d.name, d.method, d.path);
        let documented = DOC.pointer(&op).is_some();
        if let Some(body) = &d.body {
            if documented && d.status != 413 {
                let pointer = format!("{op}/requestBody/content/application~1json/examples/{}/value", token(&d.name));
                match DOC.pointer(&pointer) {
                    Some(example) if same(example, body) => {}
                    Some(example) => failures.push(format!("{what}: the document's request {example} is not the one sent, {body}")),
                    None => failures.push(format!("{what}: the document has no request example {pointer}")),
                }
                seen.entry(format!("{op}/requestBody/content/application~1json")).or_default().insert(d.name.clone());
            }
        }
        let Some((at, resp)) = response(&op, &d.status.to_string()) else {
            failures.push(format!("{what}: the document gives no {} for {op}", d.status));
            continue;
        };
        let example = resp.pointer(&format!("/content/application~1json/examples/{}/value", token(&d.name)));
        match example {
            Some(example) if same(example, &d.answer) => {}
            Some(example) => failures.push(format!("{what}: the document's answer {} {example} is not the server's {}", d.status, d.text)),
            None => failures.push(format!("{what}: no example {} at {at}", d.name)),
        }
        if d.shared != at.starts_with("/components/") {
            failures.push(format!("{what}: shared is {} but the answer's example lives at {at}", d.shared));
        }
        seen.entry(format!("{at}/content/application~1json")).or_default().insert(d.name.clone());
        if !d.shared {
            match in_guide(&d.name) {
                None => failures.push(format!("{what}: the guide has no block <!-- example {} -->", d.name)),
                Some(shown) => {
                    let shown_answer = if d.pdf { Value::Null } else { shortened(&d.answer) };
                    let expected = (d.method.clone(), d.path.clone(), d.body.clone(), d.status, shown_answer);
                    let (a, b) = (&shown, &expected);
                    let alike = a.0 == b.0 && a.1 == b.1 && a.3 == b.3 && same(&a.4, &b.4);
                    let bodies = match (&a.2, &b.2) {
                        (Some(x), Some(y)) => same(x, y),
                        (x, y) => x == y,
                    };
                    if !(alike && bodies) {
                        failures.push(format!("{what}: the guide shows {shown:?}, the server {expected:?}"));
                    }
                }
            }
        }
    }

    // An answer the guide shows alone, between `<!-- answer NAME -->` and `<!-- /answer -->`.
    for (page, text) in GUIDE {
        for block in text.split("<!-- answer ").skip(1) {
            let (name, rest) = block.split_once(" -->\n").expect("an answer marker ends");
            let json = rest.split_once("```json\n").and_then(|(_, j)| j.split_once("\n```")).map(|(j, _)| j);
            let shown: Option<Value> = json.and_then(|j| serde_json::from_str(j).ok());
            match (done.iter().find(|d| d.name == name), shown) {
                (Some(d), Some(shown)) if same(&shown, &shortened(&d.answer)) => {}
                (Some(d), shown) => failures.push(format!("docs/{page}: the answer {name} shows {shown:?}, the server {}", d.text)),
                (None, _) => failures.push(format!("docs/{page}: no example {name} for its answer block")),
            }
        }
    }

    // Every page of the guide is one of those read here, and shows each example once.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/interface");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = format!("interface/{}", entry.unwrap().file_name().to_string_lossy());
        if !GUIDE.iter().any(|(page, _)| *page == name) {
            failures.push(format!("docs/{name} is a page of the guide this test does not read"));
        }
    }
    let shown: usize = GUIDE.iter().map(|(_, page)| page.matches("<!-- example ").count()).sum();
    let examples = done.iter().filter(|d| !d.shared).count();
    if shown != examples {
        failures.push(format!("the guide has {shown} example blocks for {examples} examples"));
    }

    // Every example of the document was checked above, but those of answers no request
    // provokes on purpose, whose shape is checked here.
    let unprovoked = [
        ("/components/responses/Error410/content/application~1json", "GONE"),
        ("/components/responses/Error500/content/application~1json", "INTERNAL"),
        ("/components/responses/Error503/content/application~1json", "BUSY"),
    ];
    let mut examples = Vec::new();
    collect_examples(&DOC, String::new(), &mut examples);
    for (pointer, names) in examples {
        for name in names {
            if let Some((_, category)) = unprovoked.iter().find(|(p, _)| *p == pointer) {
                let value = &DOC.pointer(&pointer).unwrap()["examples"][&name]["value"];
                if value["errorCategory"] != *category || !value["error"].as_str().is_some_and(|e| e.ends_with('.')) {
                    failures.push(format!("{pointer} {name}: not an error of {category}: {value}"));
                }
            } else if !seen.get(&pointer).is_some_and(|s| s.contains(&name)) {
                failures.push(format!("{pointer}: the example {name} is no answer of the server checked here"));
            }
        }
    }

    // Every request body and every status of every operation has an example.
    for (path, item) in DOC["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let op = format!("/paths/{}/{method}", token(path));
            if operation.get("requestBody").is_some()
                && DOC.pointer(&format!("{op}/requestBody/content/application~1json/examples")).is_none()
            {
                failures.push(format!("{method} {path}: no example of the request body"));
            }
            for status in operation["responses"].as_object().unwrap().keys() {
                if path == "/restapi/v1/openapi.json" && status == "200" {
                    // The answer is this document itself, checked by the test `http`.
                    continue;
                }
                let (at, resp) = response(&op, status).unwrap();
                if resp.get("content").is_none() {
                    // An answer without a body (405 of the server's own routes).
                    continue;
                }
                let has = resp["content"]
                    .as_object()
                    .is_some_and(|c| c.values().any(|m| m.get("examples").is_some_and(|e| e.as_object().is_some_and(|e| !e.is_empty()))));
                if !has {
                    failures.push(format!("{method} {path} {status}: no example (at {at})"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} examples drifted:\n{}", failures.len(), failures.join("\n"));
}

/// The names of the examples under every `examples` object of `v`, by the pointer of the
/// object holding them.
fn collect_examples(v: &Value, pointer: String, out: &mut Vec<(String, Vec<String>)>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                if k == "examples" && pointer.ends_with("/content/application~1json") {
                    out.push((pointer.clone(), child.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default()));
                } else {
                    collect_examples(child, format!("{pointer}/{}", token(k)), out);
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                collect_examples(child, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}
