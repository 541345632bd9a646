//! `consign serve` between tenants, through a real HTTP client: per-key rate limits, the
//! cap of quoted shipments per day, quotes priced off the writer answering what the
//! library answers, quoted shipments stored without what the interface does not know,
//! concurrent large batches beside another tenant's writes, and the purge of expired
//! quotes. Latency is measured by `scripts/bench-http`, never asserted here.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{fixed, fresh_db, serve_on, Served};
use consign::Shipping;
use consign_conformance::{customer_body, payment_body, quote_shipment, with, NOW};
use consign_server::{Config, QuotePurge, RateLimit};
use serde_json::{json, Value};

/// The prefix of this file's database files.
const TENANTS: &str = "consign-tenants";

/// A server on a fresh database file, configured by `configure`, at the suite's fixed
/// instant.
fn serve(configure: impl FnOnce(&mut Config)) -> Served {
    serve_on(fresh_db(TENANTS), fixed(NOW), configure)
}

/// Status, `Retry-After` and JSON body of an answer.
struct Reply {
    status: u16,
    retry_after: Option<u64>,
    body: Value,
    text: String,
}

impl Reply {
    #[track_caller]
    fn expect(&self, status: u16) -> &Value {
        assert_eq!(self.status, status, "{}", self.text);
        &self.body
    }
}

impl Served {
    fn call_as(&self, key: &str, method: &str, path: &str, body: &str) -> Reply {
        let request = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("Authorization", format!("RSIS {key}"));
        let reply = if body.is_empty() { self.agent.run(request.body(()).unwrap()) } else { self.agent.run(request.body(body).unwrap()) };
        let mut reply = reply.unwrap();
        let text = reply.body_mut().with_config().limit(64 << 20).read_to_string().unwrap();
        let retry_after = reply.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
        Reply { status: reply.status().as_u16(), retry_after, body: serde_json::from_str(&text).unwrap_or(Value::Null), text }
    }

    fn call(&self, method: &str, path: &str, body: &Value) -> Reply {
        let body = if body.is_null() { String::new() } else { body.to_string() };
        self.call_as(&self.partner, method, path, &body)
    }

    /// A customer of the partner key, with a payment method so bookings recharge.
    fn shipper(&self, email: &str) -> String {
        let id = self.call("POST", "/restapi/v1/customers", &customer_body(email)).expect(201)["customerId"].as_str().unwrap().to_string();
        self.call("POST", &path(&id, "/paymentMethod"), &payment_body("tok_1NqLx2")).expect(200);
        id
    }

    fn customer_key(&self, id: &str) -> String {
        Shipping::open(&self.db).unwrap().create_api_key(Some(id), "till").unwrap().key
    }

    /// Rows of `quoted_shipments`, read from the file.
    fn stored_shipments(&self) -> Vec<String> {
        let conn = rusqlite::Connection::open(&self.db).unwrap();
        let mut q = conn.prepare("SELECT shipment FROM quoted_shipments ORDER BY first_quote_id").unwrap();
        q.query_map([], |r| r.get(0)).unwrap().collect::<rusqlite::Result<Vec<String>>>().unwrap()
    }
}

fn path(id: &str, tail: &str) -> String {
    format!("/restapi/v1/customers/{id}{tail}")
}

/// Past its burst, a key's requests are 429 `TOO_MANY_REQUESTS` with `Retry-After`,
/// before the body is read (a body that is not JSON is refused as such while the key
/// has tokens); another key has its own bucket.
#[test]
fn a_key_past_its_rate_limit_is_429_with_retry_after_and_another_key_goes_on() {
    let s = serve(|config| config.rate_limit = Some(RateLimit { per_second: 1, burst: 4 }));
    let id = s.shipper("ann@example.com");
    let own = s.customer_key(&id);
    let send = || s.call_as(&own, "POST", &path(&id, "/batch-quote"), "not even JSON");
    assert_eq!(send().expect(400)["errorCategory"], "INVALID_REQUEST");
    // a token a second comes back: within a few more than the burst, one is refused
    let refused = (0..12).map(|_| send()).find(|r| r.status == 429).expect("a request past the burst is refused");
    assert_eq!(refused.body["errorCategory"], "TOO_MANY_REQUESTS", "{}", refused.text);
    assert_eq!(refused.retry_after, Some(1));
    s.call("GET", &path(&id, "/prepay"), &Value::Null).expect(200);
}

/// Past the quoted shipments a customer may store per UTC day, a batch or single quote
/// is 429 `TOO_MANY_REQUESTS` with the seconds until midnight UTC in `Retry-After`, and
/// nothing of it is stored; another customer is not concerned.
#[test]
fn past_the_quoted_shipments_of_the_day_a_quote_is_429_until_midnight() {
    let s = serve(|config| config.quotes_per_day = 3);
    let id = s.shipper("ann@example.com");
    let other = s.shipper("bo@example.com");
    s.call("POST", &path(&id, "/batch-quote"), &json!({"shipments": [quote_shipment(), quote_shipment()]})).expect(200);
    let refused = s.call("POST", &path(&id, "/batch-quote"), &json!({"shipments": [quote_shipment(), quote_shipment()]}));
    assert_eq!(refused.expect(429)["errorCategory"], "TOO_MANY_REQUESTS");
    // NOW is 15:00 UTC
    assert_eq!(refused.retry_after, Some(9 * 3600));
    assert_eq!(s.stored_shipments().len(), 2);
    s.call("POST", &path(&id, "/quote"), &quote_shipment()).expect(200);
    let single = s.call("POST", &path(&id, "/quote"), &quote_shipment());
    assert_eq!((single.status, single.retry_after), (429, Some(9 * 3600)), "{}", single.text);
    s.call("POST", &path(&other, "/batch-quote"), &json!({"shipments": [quote_shipment(), quote_shipment()]})).expect(200);
    assert_eq!(s.stored_shipments().len(), 5);
}

/// A shipment of a quote `i` with a reference of its own.
fn shipment(i: usize) -> Value {
    with(quote_shipment(), "/shipmentReference", json!(format!("R-{i}")))
}

/// A batch quote priced on the reader pool and stored on the writer, and a single quote
/// on the writer, answer
/// byte for byte what the library answers in process for the same requests.
#[test]
fn quotes_over_http_answer_what_the_library_answers_in_process() {
    let s = serve(|_| {});
    let id = s.shipper("ann@example.com");
    let in_process = Shipping::builder().clock(fixed(NOW)).open().unwrap();
    let r = in_process.handle("POST", "/restapi/v1/customers", &customer_body("ann@example.com").to_string());
    assert_eq!(r.status, 201, "{}", r.body);
    let mut failing = shipment(3);
    failing["receiver"]["state"] = json!("Texas");
    let requests = [
        ("/batch-quote", json!({"shipments": (0..30).map(shipment).chain([failing]).collect::<Vec<_>>()}).to_string()),
        ("/quote", shipment(1).to_string()),
        ("/batch-quote", json!({"shipments": [shipment(7)]}).to_string()),
    ];
    for (tail, body) in requests {
        let over_http = s.call_as(&s.partner, "POST", &path(&id, tail), &body);
        let local = in_process.handle("POST", &path(&id, tail), &body);
        assert_eq!((over_http.status, over_http.text.clone()), (local.status, format!("{}\n", local.body)));
    }
}

/// A quoted shipment is stored as the interface read it: fields it does not know are
/// not in the row, and booking by the quote's id works.
#[test]
fn a_quoted_shipment_is_stored_without_unknown_fields_and_booked_by_its_quote_id() {
    let s = serve(|_| {});
    let id = s.shipper("ann@example.com");
    let mut body = quote_shipment();
    body["carrierCode"] = json!("postal");
    body["serviceCode"] = json!("postal_priority_mail");
    body["packageTypeCode"] = json!("postal_custom");
    body["giftMessage"] = json!("not-for-the-database");
    body["receiver"]["doorCode"] = json!("not-for-the-database");
    let quote = s.call("POST", &path(&id, "/quote"), &body).expect(200).clone();
    let rows = s.stored_shipments();
    assert_eq!(rows.len(), 1);
    assert!(!rows[0].contains("not-for-the-database") && !rows[0].contains("giftMessage"), "{}", rows[0]);
    let mut booking = body.clone();
    booking["approvePrepayRecharge"] = json!(true);
    booking["quoteId"] = quote["quoteId"].clone();
    let booked = s.call("POST", &path(&id, "/shipments"), &booking);
    assert_eq!(booked.expect(201)["totalShippingCost"], quote["totalAmount"], "{}", booked.text);
}

/// While one key sends large batch quotes on several connections, another key's writes
/// are answered, and every quote of the concurrent batches has an id of its own.
#[test]
fn concurrent_large_batches_and_another_tenants_writes_are_all_answered() {
    let s = Arc::new(serve(|_| {}));
    let id = s.shipper("ann@example.com");
    let other = s.shipper("bo@example.com");
    let other_key = s.customer_key(&other);
    let batch = json!({"shipments": (0..60).map(shipment).collect::<Vec<_>>()}).to_string();
    let loaders: Vec<_> = (0..4)
        .map(|_| {
            let (s, id, batch) = (Arc::clone(&s), id.clone(), batch.clone());
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                for _ in 0..2 {
                    let r = s.call_as(&s.partner, "POST", &path(&id, "/batch-quote"), &batch);
                    for result in r.expect(200)["results"].as_array().unwrap() {
                        ids.extend(result["quotes"].as_array().unwrap().iter().map(|q| q["quoteId"].as_i64().unwrap()));
                    }
                }
                ids
            })
        })
        .collect();
    for _ in 0..10 {
        s.call_as(&other_key, "POST", &path(&other, "/batch"), "").expect(201);
    }
    let mut ids: Vec<i64> = loaders.into_iter().flat_map(|l| l.join().unwrap()).collect();
    let all = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all, "quote ids are given once");
    assert_eq!(s.stored_shipments().len(), 8 * 60);
}

/// The server purges the quotes expired for the configured days by itself, at start,
/// without a request; quotes expired for fewer days stay.
#[test]
fn the_server_purges_expired_quotes_by_itself() {
    let db = fresh_db(TENANTS);
    let quote_at = |at: &str, id: Option<&str>| {
        let shipping = Shipping::builder().path(&db).clock(fixed(at)).open().unwrap();
        let id = id.map(str::to_string).unwrap_or_else(|| {
            let r = shipping.handle("POST", "/restapi/v1/customers", &customer_body("ann@example.com").to_string());
            serde_json::from_str::<Value>(&r.body).unwrap()["customerId"].as_str().unwrap().to_string()
        });
        let mut later = shipment(1);
        later["shipmentDate"] = json!(at[..10].to_string());
        let quoted = shipping.handle("POST", &path(&id, "/batch-quote"), &json!({"shipments": [later.clone(), later]}).to_string());
        assert_eq!(quoted.status, 200, "{}", quoted.body);
        id
    };
    // expired on 2026-12-21 and on 2026-12-29
    let id = quote_at(NOW, None);
    quote_at("2026-11-29T15:00:00Z", Some(&id));
    let before: Vec<String> = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let mut q = conn.prepare("SELECT shipment FROM quoted_shipments ORDER BY first_quote_id").unwrap();
        q.query_map([], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
    };
    assert_eq!(before.len(), 4);
    // on 2027-01-01, the first have been expired for 11 days, the others for 3
    let s = serve_on(db, fixed("2027-01-01T15:00:00Z"), |config| {
        config.purge_quotes = Some(QuotePurge { every: Duration::from_secs(3600), expired_for_days: 7 })
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while s.stored_shipments().len() > 2 {
        assert!(Instant::now() < deadline, "the expired quotes were not purged");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(s.stored_shipments(), before[2..]);
}

/// The server's purge also removes the events past their 90 days, each customer's newest
/// excepted (it numbers the next).
#[test]
fn the_server_purges_old_events_by_itself_but_each_customers_newest() {
    let db = fresh_db(TENANTS);
    {
        let shipping = Shipping::builder().path(&db).clock(fixed("2026-06-01T15:00:00Z")).open().unwrap();
        let r = shipping.handle("POST", "/restapi/v1/customers", &customer_body("ann@example.com").to_string());
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let events = || {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let mut q = conn.prepare("SELECT id FROM events ORDER BY id").unwrap();
        q.query_map([], |r| r.get(0)).unwrap().collect::<rusqlite::Result<Vec<i64>>>().unwrap()
    };
    let first = *events().last().unwrap();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        for id in [first + 1, first + 2] {
            conn.execute(
                "INSERT INTO events (customer_id, id, type, type_bit, subject_id, created_at, data)
                 SELECT customer_id, ?1, type, type_bit, subject_id, created_at, data FROM events WHERE id = ?2",
                [id, first],
            )
            .unwrap();
        }
    }
    let _s = serve_on(db.clone(), fixed(NOW), |config| {
        config.purge_quotes = Some(QuotePurge { every: Duration::from_secs(3600), expired_for_days: 7 })
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while events().len() > 1 {
        assert!(Instant::now() < deadline, "the old events were not purged");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(events(), [first + 2]);
}
