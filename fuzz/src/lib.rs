//! What each fuzz target checks, one function per target, on a service made once per
//! thread. The replay of findings (`tests/tests/fuzz_crashers.rs`) includes this file, so
//! that a saved input is checked exactly as the target checked it.
//!
//! Every check panics on a finding: a panic of consign, a 500 answer (`handle` turns a
//! caught panic into one), an answer that is not the JSON its status promises, or a
//! stored form that does not read back as it was written.

use std::cell::RefCell;
use std::sync::Arc;

use consign::{harness, wire, CsvKind, ErrorCategory, FixedClock, Shipping};
use serde_json::Value;

/// The instant of every service here, so that a replay sees the dates the run saw.
pub const NOW: &str = "2026-11-21T15:00:00Z";

/// A service replaced after this many requests, so that what the requests store (quotes,
/// shipments) cannot grow without bound during a long run.
const USES: u32 = 20_000;

/// A service and the ids that exist in it.
pub struct Setup {
    /// The service, on a clock fixed at [`NOW`].
    pub shipping: Shipping,
    /// The customer every request of the targets is for.
    pub customer: String,
    /// The other ids made at setup, by the name of the path parameter they fill
    /// (`bookNumber`, `batchId`, ...).
    pub ids: Vec<(&'static str, String)>,
    /// A key's holder acting for the customer, for the answers as documents
    /// (`Shipping::handle_documents_as`).
    pub caller: consign::Caller,
}

const ADDRESS: &str = r#"{"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "Suite 4",
    "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142",
    "email": "ann@leeceramics.example"}"#;

/// Valid bodies, named by the path (after the customer) they are sent to; `$A` is an
/// address, `$BOOK`, `$QUOTE` the ids made at setup.
pub const BODIES: &[(&str, &str)] = &[
    (
        "/restapi/v1/customers",
        r#"{"profileCode": "Default", "email": "ann@example.com", "password": "glaze-and-fire", "franchiseId": "PHL",
            "mailingAddress": $A, "billingAddress": $A, "prepaySettings": {"minimumBalance": "50.00", "rechargeAmount": "200.00"},
            "salesRep": "Jo", "utm": {"source": "newsletter"}, "monthlyVolume": "100-500"}"#,
    ),
    ("/restapi/v1/connect-customer", r#"{"username": "ann@example.com", "password": "glaze-and-fire"}"#),
    (
        "/paymentMethod",
        r#"{"billingAddress": {"name": "Ann Lee", "company": "", "address1": "200 Market St", "address2": "", "city": "Philadelphia",
            "state": "PA", "zip": "19106", "country": "US"},
            "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": "tok_1NqLx2"}}"#,
    ),
    (
        "/quote",
        r#"{"shipmentDate": "2026-11-23", "shipmentReference": "INV-1001", "contentDescription": "ceramics", "sender": $A,
            "receiver": {"name": "Bo Kim", "company": "", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
            "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199", "email": ""},
            "residential": false, "signatureOptionCode": null, "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
            "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]}"#,
    ),
    (
        "/batch-quote",
        r#"{"shipments": [{"shipmentDate": "2026-11-23", "sender": $A,
            "receiver": {"name": "Jo Smith", "company": "Smith & Co", "address1": "1 High St", "address2": "", "city": "London",
            "state": "", "zip": "SW1A 1AA", "country": "GB", "phone": "+44 20 7946 0958"},
            "weightUnit": "kg", "dimUnit": "cm", "currency": "USD",
            "pieces": [{"weight": "1.2", "length": "30", "width": "20", "height": "10", "insuranceAmount": null, "declaredValue": "80"}],
            "commercialInvoice": {"sendElectronically": true, "termsOfTrade": "DAP", "items": [{"description": "Stoneware mug",
            "quantity": 4, "unitValue": "20.00", "weight": "1.2", "htsNumber": "6912.00", "countryOfOrigin": "US"}]}}]}"#,
    ),
    (
        "/shipments",
        r#"{"carrierCode": "postal", "serviceCode": "postal_priority_mail", "packageTypeCode": "postal_custom",
            "shipmentDate": "2026-11-22", "shipmentReference": "INV-1001", "shipmentReference2": "PO-77",
            "contentDescription": "ceramics", "orderNumber": "SO-5001", "sender": $A, "receiver": $A, "residential": false,
            "signatureOptionCode": null, "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
            "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}],
            "approvePrepayRecharge": true}"#,
    ),
    (
        "/integratedQuotingOptions",
        r#"{"integratedQuotingOptions": [{"name": "G", "carrierCode": "parcel", "serviceCode": "parcel_ground", "packageTypeCode": "parcel_custom"}]}"#,
    ),
    ("/provider-accounts/", r#"{"accountFields": {"accountNumber": "A1", "userId": "u", "password": "p", "accessLicenceNumber": "L"}}"#),
    ("/integrations", r#"{"name": "Web shop"}"#),
    ("/shipments/:bookNumber", r#"{"voided": true}"#),
    (
        "/tracking-events",
        r#"{"events": [{"trackingNumber": "$TRACK", "carrier": "postal", "event": "In Transit at the facility", "eventStatus": "In Transit",
            "eventTime": "2026-11-22 10:00:00", "serviceArea": "Chicago, IL", "serviceAreaCountry": "US"}]}"#,
    ),
    ("/searchShipments", r#"{"keyword": "INV-1001"}"#),
    ("/batch", r#"{"name": "b"}"#),
    ("/quotes", r#"{"quoteIds": [$QUOTE]}"#),
    ("/batch-book", r#"{"batchId": "$BATCH", "approvePrepayRecharge": true}"#),
    (
        "/pickups",
        r#"{"carrierCode": "postal", "pickupDate": "2026-11-23", "readyTime": "09:00:00", "closeTime": "17:00:00",
            "bookNumbers": ["$BOOK"], "name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "Suite 4",
            "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142",
            "residential": false, "specialInstructions": "Ring the bell"}"#,
    ),
    ("/pickups/:pickupId", r#"{"cancelled": true}"#),
    (
        "/manifest",
        r#"{"carrierCode": "postal", "bookNumbers": ["$BOOK"], "name": "Ann Lee", "company": "Lee Ceramics",
            "address1": "200 Market St", "address2": "Suite 4", "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US"}"#,
    ),
    (
        "/orders/",
        r#"{"orderId": "1001", "orderDate": "2026-11-21", "orderNumber": "SO-5001", "fulfillmentStatus": "pending",
            "shippingService": "Priority", "shipperReference": null, "shipperReference2": null, "contentDescription": "ceramics",
            "shippingTotal": "9.50", "weightUnit": "lb", "dimUnit": "in", "dueByDate": "2026-11-26", "orderGroup": null,
            "sender": $A, "receiver": $A, "returnTo": {"name": "Returns", "city": "Philadelphia"},
            "items": [{"productId": "P-1", "sku": "MUG-BLUE", "title": "Blue mug", "price": "18.00", "quantity": 2, "weight": "0.8",
            "imgUrl": null, "htsNumber": "6912.00", "countryOfOrigin": "US", "lineId": "L1", "pickLocation": "A3"}],
            "packages": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]}"#,
    ),
];

impl Setup {
    /// A service at [`NOW`] with one customer and, when `full`, a payment method, a quote,
    /// a booked shipment, a batch, an integration with an order, a pickup and a manifest.
    ///
    /// # Panics
    /// When the setup's own requests are refused: the service changed under the targets.
    pub fn new(full: bool) -> Setup {
        let clock = Arc::new(FixedClock::at(NOW).unwrap_or_else(|e| panic!("{e}")));
        let shipping = Shipping::builder().clock(clock).open().unwrap_or_else(|e| panic!("an in-memory service opens: {e}"));
        let key = shipping.create_api_key(None, "fuzz").unwrap_or_else(|e| panic!("a key is made: {e}"));
        let caller = shipping.authenticate(&key.key).unwrap_or_else(|e| panic!("the key is known: {e}"));
        let mut setup = Setup { shipping, customer: String::new(), ids: Vec::new(), caller };
        setup.customer = setup.made("POST", "/restapi/v1/customers", "/restapi/v1/customers", "customerId", 201);
        let key = setup.shipping.create_api_key(Some(&setup.customer), "fuzz").unwrap_or_else(|e| panic!("a key is made: {e}"));
        setup.caller = setup.shipping.authenticate(&key.key).unwrap_or_else(|e| panic!("the key is known: {e}"));
        if full {
            let c = format!("/restapi/v1/customers/{}", setup.customer);
            setup.made("POST", &format!("{c}/paymentMethod"), "/paymentMethod", "ok", 200);
            let quote = setup.request("POST", &format!("{c}/quote"), &setup.body("/quote"), 200);
            let quote_id = quote["quotes"][0]["quoteId"].to_string();
            setup.ids.push(("quoteId", quote_id));
            let book = setup.request("POST", &format!("{c}/shipments"), &setup.body("/shipments"), 201);
            for (name, key) in [("bookNumber", "bookNumber"), ("trackingNumber", "trackingNumber")] {
                let id = book[key].as_str().unwrap_or_else(|| panic!("{key} of {book}")).to_string();
                setup.ids.push((name, id));
            }
            setup.made("POST", &format!("{c}/batch"), "/batch", "batchId", 201);
            let integration = setup.made("POST", &format!("{c}/integrations"), "/integrations", "integrationId", 201);
            setup.made("PUT", &format!("{c}/integrations/{integration}/orders/1001"), "/orders/", "orderId", 201);
            setup.made("POST", &format!("{c}/pickups"), "/pickups", "pickupId", 201);
            setup.made("POST", &format!("{c}/manifest"), "/manifest", "manifestId", 201);
        }
        setup
    }

    /// The valid body sent to `path` (a key of [`BODIES`]), with the setup's ids.
    pub fn body(&self, path: &str) -> String {
        let body = BODIES.iter().find(|(p, _)| *p == path).map_or("{}", |(_, b)| b);
        let mut body = body.replace("$A", ADDRESS);
        for (name, placeholder) in [("bookNumber", "$BOOK"), ("trackingNumber", "$TRACK"), ("quoteId", "$QUOTE"), ("batchId", "$BATCH")] {
            body = body.replace(placeholder, self.id(name).unwrap_or("1"));
        }
        body
    }

    /// The id made at setup for the path parameter `name`.
    pub fn id(&self, name: &str) -> Option<&str> {
        if name == "customerId" {
            return Some(&self.customer);
        }
        self.ids.iter().find(|(n, _)| *n == name).map(|(_, id)| id.as_str())
    }

    fn request(&self, method: &str, path: &str, body: &str, status: u16) -> Value {
        let r = self.shipping.handle(method, path, body);
        assert_eq!(r.status, status, "setup: {method} {path}: {}", r.body);
        serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("setup: {method} {path}: {e}"))
    }

    /// Sends the valid body of `template` and keeps the answer's `key` as an id.
    fn made(&mut self, method: &str, path: &str, template: &str, key: &'static str, status: u16) -> String {
        let answer = self.request(method, path, &self.body(template), status);
        let id = match &answer[key] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.ids.push((key, id.clone()));
        id
    }
}

thread_local! {
    static BASIC: RefCell<Option<(Setup, u32)>> = const { RefCell::new(None) };
    static FULL: RefCell<Option<(Setup, u32)>> = const { RefCell::new(None) };
}

/// Runs `f` on this thread's service (the full setup or the one with a customer only),
/// made on first use and again every [`USES`] uses.
pub fn with_setup<R>(full: bool, f: impl FnOnce(&Setup) -> R) -> R {
    let cell = if full { &FULL } else { &BASIC };
    cell.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(_, uses)| *uses >= USES) {
            *slot = Some((Setup::new(full), 0));
        }
        let Some((setup, uses)) = slot.as_mut() else { unreachable!("set just above") };
        *uses += 1;
        f(setup)
    })
}

/// Asserts what every answer of `handle` must be: not 500, JSON, and for a failure the
/// error body of DECISIONS 2.
pub fn check_answer(method: &str, path: &str, body: &str, status: u16, answer: &str) {
    let what = || format!("{method} {path} with body {body:?}");
    assert_ne!(status, 500, "{} answered 500: {answer}", what());
    let value: Value =
        serde_json::from_str(answer).unwrap_or_else(|e| panic!("{} answered {status} with text that is not JSON ({e}): {answer}", what()));
    if status >= 400 {
        for key in ["error", "errorCategory"] {
            assert!(value[key].as_str().is_some_and(|s| !s.is_empty()), "{} answered {status} without {key}: {answer}", what());
        }
    }
    let mut dates = Vec::new();
    dates_of(&value, &mut dates);
    for (key, date) in dates {
        assert!(written_exactly(date), "{} answered {key} {date:?}, not YYYY-MM-DD: {answer}", what());
    }
}

/// The text values of the keys that name a date (`shipmentDate`, `estimatedDeliveryDate`,
/// ...) anywhere in `value`.
fn dates_of<'a>(value: &'a Value, out: &mut Vec<(&'a str, &'a str)>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if let (true, Some(text)) = (key.ends_with("Date"), v.as_str()) {
                    out.push((key, text));
                }
                dates_of(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| dates_of(v, out)),
        _ => {}
    }
}

/// Whether `text` begins with a date written exactly `YYYY-MM-DD` and is that date, or
/// the RFC 3339 time an order's dates may be (`T` after the date).
fn written_exactly(text: &str) -> bool {
    let b = text.as_bytes();
    let date = b.len() >= 10 && b[..10].iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
    date && (b.len() == 10 || matches!(b[10], b'T' | b't' | b' '))
}

/// Sends one request to the service of the full setup and checks the answer; a request
/// that only reads is also answered as a document (`handle_documents_as`), which is a
/// 200 PDF with an empty body or an answer as `handle` gives.
pub fn request(method: &str, path: &str, body: &str) {
    with_setup(true, |s| {
        let r = s.shipping.handle(method, path, body);
        check_answer(method, path, body, r.status, &r.body);
        if !consign::route(method, path).map_or(true, consign::Operation::writes) {
            let r = s.shipping.handle_documents_as(&s.caller, method, path, body);
            match &r.document {
                Some(document) => {
                    assert_eq!((r.status, r.body.as_str()), (200, ""), "{method} {path} answered a document with {}", r.body);
                    assert!(document.bytes.starts_with(b"%PDF-"), "{method} {path} answered a document that is not a PDF");
                }
                None => check_answer(method, path, body, r.status, &r.body),
            }
        }
    });
}

/// A saved request of the `handle` target: its first line is `METHOD PATH`, the rest the
/// body. `{customerId}` and the other parameter names in braces stand for the ids of the
/// setup, which differ between runs.
pub fn handle(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (head, body) = text.split_once('\n').unwrap_or((&text, ""));
    let (method, path) = head.split_once(' ').unwrap_or((head, "/"));
    let path = with_setup(true, |s| {
        let mut path = path.to_string();
        for name in ["customerId", "bookNumber", "batchId", "integrationId", "orderId", "pickupId", "manifestId", "quoteId"] {
            if let Some(id) = s.id(name) {
                path = path.replace(&format!("{{{name}}}"), id);
            }
        }
        path
    });
    request(method, &path, body);
}

/// `batch_quote`: the input, as text (bytes that are not UTF-8 become U+FFFD), is the body
/// of a batch quote of the setup's customer, answered by `handle` and again in the two
/// steps of `consign serve` (`prepare_as`, `store_priced`) with the same status.
pub fn batch_quote(data: &[u8]) {
    let body = String::from_utf8_lossy(data);
    with_setup(false, |s| {
        let path = format!("/restapi/v1/customers/{}/batch-quote", s.customer);
        let r = s.shipping.handle("POST", &path, &body);
        check_answer("POST", &path, &body, r.status, &r.body);
        // Priced and stored in two steps, as `consign serve` does: the same status, and an
        // answer of the same rules (a 429 of the day's cap included).
        let Ok(key) = s.shipping.create_api_key(Some(&s.customer), "fuzz") else { return };
        let Ok(caller) = s.shipping.authenticate(&key.key) else { return };
        let two_steps = match s.shipping.prepare_as(&caller, "POST", &path, &body) {
            consign::Prepared::Answered(answer) => answer,
            consign::Prepared::Priced(priced) => s.shipping.store_priced(priced),
        };
        check_answer("POST", &path, &body, two_steps.status, &two_steps.body);
        assert_eq!(two_steps.status, r.status, "priced in two steps, {path} answered {}: {}", two_steps.status, two_steps.body);
    });
}

/// A stored JSON column: what reads as the type must read again from what serde writes
/// of it, and the written text is then a fixed point (written again, it is the same).
/// Not `read(write(x)) == x`: a key that may be absent or null (`zip`, `dimUnit`, read
/// with `wire::present`) is written as null when absent, so the first write normalises.
/// (A macro, so that this file needs no serde of its own where it is included.)
macro_rules! json_round_trip {
    ($t:ty, $text:expr) => {
        if let Ok(value) = serde_json::from_str::<$t>($text) {
            let written = serde_json::to_string(&value).unwrap_or_else(|e| panic!("{value:?} does not serialise: {e}"));
            let again = serde_json::from_str::<$t>(&written).unwrap_or_else(|e| panic!("{written} does not read back: {e}"));
            let rewritten = serde_json::to_string(&again).unwrap_or_else(|e| panic!("{again:?} does not serialise: {e}"));
            assert_eq!(rewritten, written, "{} does not read back as written", stringify!($t));
        }
    };
}

/// `stored_rows`: the input as every stored column the service reads back: the packed
/// quotes of a quoted shipment (bytes), the JSON text columns (a quote's shipment, a
/// shipment's view, an idempotent answer, a pickup's address, account fields, the
/// catalog), and, split at tabs, the columns of a row of each rate table. What reads must
/// read again the same after the service writes it back.
pub fn stored_rows(data: &[u8]) {
    if let Ok(quotes) = harness::unpack_quotes(data, 1_000_000_001) {
        let again = harness::unpack_quotes(&harness::pack_quotes(&quotes), 1_000_000_001);
        assert_eq!(again.as_ref(), Ok(&quotes), "packed quotes do not read back as written");
    }
    if let Ok(quotes) = harness::unpack_quotes(data, i64::MAX) {
        assert!(quotes.len() <= 1, "quote ids past i64::MAX");
    }
    let text = String::from_utf8_lossy(data);
    json_round_trip!(wire::QuoteShipment, &text);
    json_round_trip!(wire::ShipmentView, &text);
    json_round_trip!(wire::BookShipmentResponse, &text);
    json_round_trip!(consign::Address, &text);
    json_round_trip!(std::collections::BTreeMap<String, String>, &text);
    let _ = consign::Catalog::from_json(&text);
    let columns: Vec<&str> = text.split('\t').collect();
    for kind in CsvKind::ALL {
        if let Ok(values) = harness::read_rate_row(kind, &columns) {
            let texts: Vec<&str> = values.iter().map(String::as_str).collect();
            let again = harness::read_rate_row(kind, &texts);
            assert_eq!(again.as_ref(), Ok(&values), "a {} row's canonical text does not read back", kind.as_str());
        }
    }
}

/// `rate_csv`: the first byte picks the kind of rate data file, the rest (as text) is
/// imported as that file. A refusal must be a refusal of the file, never INTERNAL; what
/// is imported must export to a file that imports again.
pub fn rate_csv(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let kind = CsvKind::ALL[usize::from(first) % CsvKind::ALL.len()];
    let csv = String::from_utf8_lossy(rest);
    with_setup(false, |s| match s.shipping.import_rates(kind, &csv) {
        Ok(_) => {
            let exported = s.shipping.export_rates(kind).unwrap_or_else(|e| panic!("export of {} after import: {e}", kind.as_str()));
            if let Err(e) = s.shipping.import_rates(kind, &exported) {
                panic!("the export of {} does not import again ({e}) after importing {csv:?}", kind.as_str());
            }
        }
        Err(e) => assert_ne!(e.category(), ErrorCategory::Internal, "import of {} {csv:?}: {e}", kind.as_str()),
    });
}

/// Every byte of `text` as a `%XX` escape.
fn escaped(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// `path_query`: the input as text is `METHOD\nPATH?QUERY`. The route is found as
/// `handle` finds it, its parameters decode to text that decodes the same when escaped
/// again, every segment decodes or is refused naming it, and the query's values read.
pub fn path_query(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (method, target) = text.split_once('\n').unwrap_or(("GET", &text));
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    match harness::lookup(method, path) {
        Ok(found) => {
            assert!(found.method.eq_ignore_ascii_case(method), "{method} {path} found {} {}", found.method, found.pattern);
            for (name, value) in &found.params {
                let again = harness::decode_param(name, &escaped(value)).map_err(|e| e.to_string());
                assert_eq!(again.as_ref(), Ok(value), "{name} of {path}");
            }
        }
        Err(e) => assert!(
            matches!(e.category(), ErrorCategory::NotFound | ErrorCategory::MethodNotAllowed | ErrorCategory::InvalidRequest),
            "{method} {path}: {e}"
        ),
    }
    for segment in path.split('/') {
        match harness::decode_param("segment", segment) {
            Ok(value) => {
                let again = harness::decode_param("segment", &escaped(&value)).map_err(|e| e.to_string());
                assert_eq!(again.as_ref(), Ok(&value), "{segment:?}");
            }
            Err(e) => assert!(
                e.category() == ErrorCategory::InvalidRequest && e.details().first().is_some_and(|d| d.field == "segment"),
                "{segment:?}: {e}"
            ),
        }
    }
    for pair in query.split('&') {
        let key = pair.split_once('=').map_or(pair, |(k, _)| k);
        let _ = harness::query_value(query, key);
    }
    for name in ["limit", "minBookNumber"] {
        let _ = harness::query_value(query, name);
    }
}
