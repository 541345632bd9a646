//! The fixture and the in-process side of `scripts/bench-http`, not a benchmark by itself.
//!
//! - `http_bench setup DB DIR [CUSTOMERS]`: a database with one customer (its recharge covers every
//!   booking), [`SHIPMENTS`] shipments to search and retrieve, and a customer key; writes
//!   the request bodies and a `env` file (customer, key, the book and tracking number of
//!   the middle shipment) into DIR; and for the fairness run, a second customer with a
//!   key of its own (`CUSTOMER2`, `KEY2`), a 500-shipment batch quote of the first
//!   (`batch-quote-500`) and a one-row write of the second (`one-row`: a new batch).
//!   With CUSTOMERS (default 1) above 1, as many booking customers in all, the first one
//!   included, each with a recharge that covers every booking and a key of its own:
//!   `customers` in DIR lists them, one `ID KEY` a line.
//! - `http_bench inprocess DB DIR SECONDS [full|normal]`: the same operations through
//!   `Shipping::handle` on one thread, each for SECONDS: requests/s, p50 and p99; commits
//!   synced as `consign::Synchronous` says (default full, as the server).
//!
//! DB is an SQLite file, or (built with the feature `postgres`) a PostgreSQL URL
//! (`postgres://...`): the fixture is then built in that database, and `full|normal`
//! does not apply (PostgreSQL's own `synchronous_commit` says how commits wait).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark driver: a panic is a failed run")]

use std::path::Path;
use std::time::{Duration, Instant};

use consign::Shipping;
use serde_json::{json, Value};

fn address(name: &str, city: &str, state: &str, zip: &str) -> Value {
    json!({"name": name, "company": "", "address1": "1 A St", "address2": "", "city": city, "state": state, "zip": zip,
        "country": "US", "phone": "2155550142"})
}

/// A domestic shipment for tomorrow, Philadelphia to Los Angeles.
fn shipment(shipping: &Shipping, reference: &str) -> Value {
    let date = shipping.clock().today() + chrono::Duration::days(1);
    json!({"shipmentDate": date.to_string(), "shipmentReference": reference, "contentDescription": "ceramics",
        "sender": address("Ann Lee", "Philadelphia", "PA", "19106"), "receiver": address("Bo Kim", "Los Angeles", "CA", "90012"),
        "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]})
}

fn with_service(mut shipment: Value) -> Value {
    let object = shipment.as_object_mut().unwrap();
    object.insert("carrierCode".into(), json!("postal"));
    object.insert("serviceCode".into(), json!("postal_priority_mail"));
    object.insert("packageTypeCode".into(), json!("postal_custom"));
    shipment
}

/// The operations measured: name, method, path after the customer, body. `book` and
/// `tracking` are those of one booked shipment.
fn operations(shipping: &Shipping, book: &str, tracking: &str) -> Vec<(&'static str, &'static str, String, String)> {
    let batch: Vec<Value> = (0..50).map(|i| shipment(shipping, &format!("B-{i}"))).collect();
    vec![
        ("quote", "POST", "/quote".into(), with_service(shipment(shipping, "Q-1")).to_string()),
        ("batch-quote-50", "POST", "/batch-quote".into(), json!({ "shipments": batch }).to_string()),
        // A page of 100 results: "INV-1" is in 1,111 of the references, the newest of them
        // behind 8,000 newer shipments.
        ("search-100", "POST", "/searchShipments".into(), json!({"keyword": "INV-1"}).to_string()),
        // A desk's lookup of one shipment by its tracking number.
        ("search-1", "POST", "/searchShipments".into(), json!({ "keyword": tracking }).to_string()),
        ("retrieve", "GET", format!("/shipments/{book}"), String::new()),
        // Last: the searches above run over the fixture alone.
        ("book", "POST", "/shipments".into(), with_service(shipment(shipping, "NEW-1")).to_string()),
    ]
}

/// Shipments booked before the run, references `INV-0` to `INV-9999`: the searches and
/// the retrieve run over them (and before the bookings of the run, so that they find the
/// same database under either `Synchronous`).
const SHIPMENTS: usize = 10_000;

/// `customer` with another e-mail.
fn with_email(customer: &Value, email: &str) -> Value {
    let mut customer = customer.clone();
    customer["email"] = json!(email);
    customer
}

/// Whether `db` names a PostgreSQL database rather than an SQLite file.
fn is_postgres(db: &str) -> bool {
    let lower = db.to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// The service on `db` (a file, or a PostgreSQL URL), its SQLite commits synced as
/// `synchronous` says.
fn open(db: &str, synchronous: consign::Synchronous, quotes_per_day: Option<u64>) -> Shipping {
    let builder = if is_postgres(db) { on_postgres(db) } else { Shipping::builder().path(Path::new(db)).synchronous(synchronous) };
    let builder = match quotes_per_day {
        Some(n) => builder.quoted_shipments_per_day(n),
        None => builder,
    };
    builder.open().unwrap()
}

#[cfg(feature = "postgres")]
fn on_postgres(url: &str) -> consign::ShippingBuilder {
    Shipping::builder().postgres(url)
}

#[cfg(not(feature = "postgres"))]
fn on_postgres(_url: &str) -> consign::ShippingBuilder {
    panic!("a PostgreSQL database needs http_bench built with `--features postgres`")
}

fn setup(db: &str, dir: &Path, customers: usize) {
    // Untimed: the fixture commits without waiting for the disk.
    let shipping = open(db, consign::Synchronous::Normal, None);
    let customer = json!({"profileCode": "Default", "email": "bench@example.com", "password": "bench-password",
        "mailingAddress": address("Ann Lee", "Philadelphia", "PA", "19106"), "billingAddress": address("Ann Lee", "Philadelphia", "PA", "19106"),
        "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100000000}});
    let r = shipping.handle("POST", "/restapi/v1/customers", &customer.to_string());
    let id = serde_json::from_str::<Value>(&r.body).unwrap()["customerId"].as_str().unwrap().to_string();
    let (mut book, mut tracking) = (String::new(), String::new());
    for i in 0..SHIPMENTS {
        let r = shipping.handle(
            "POST",
            &format!("/restapi/v1/customers/{id}/shipments"),
            &with_service(shipment(&shipping, &format!("INV-{i}"))).to_string(),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        if i == SHIPMENTS / 2 {
            let booked = serde_json::from_str::<Value>(&r.body).unwrap();
            book = booked["bookNumber"].as_str().unwrap().to_string();
            tracking = booked["trackingNumber"].as_str().unwrap().to_string();
        }
    }
    let key = shipping.create_api_key(Some(&id), "bench").unwrap().key;
    for (name, method, path, body) in operations(&shipping, &book, &tracking) {
        std::fs::write(dir.join(format!("{name}.json")), body).unwrap();
        std::fs::write(dir.join(format!("{name}.target")), format!("{method} /restapi/v1/customers/{id}{path}")).unwrap();
    }
    // The fairness run: a tenant's large batches beside another tenant's small writes.
    let r = shipping.handle("POST", "/restapi/v1/customers", &with_email(&customer, "other@example.com").to_string());
    let other = serde_json::from_str::<Value>(&r.body).unwrap()["customerId"].as_str().unwrap().to_string();
    let other_key = shipping.create_api_key(Some(&other), "bench-other").unwrap().key;
    let batch: Vec<Value> = (0..500).map(|i| shipment(&shipping, &format!("L-{i}"))).collect();
    std::fs::write(dir.join("batch-quote-500.json"), json!({ "shipments": batch }).to_string()).unwrap();
    std::fs::write(dir.join("batch-quote-500.target"), format!("POST /restapi/v1/customers/{id}/batch-quote")).unwrap();
    std::fs::write(dir.join("one-row.json"), "").unwrap();
    std::fs::write(dir.join("one-row.target"), format!("POST /restapi/v1/customers/{other}/batch")).unwrap();
    // The booking customers: the first, and as many more as asked, each funded alike.
    let mut lines = format!("{id} {key}\n");
    for i in 1..customers {
        let r = shipping.handle("POST", "/restapi/v1/customers", &with_email(&customer, &format!("bench-{i}@example.com")).to_string());
        assert_eq!(r.status, 201, "{}", r.body);
        let more = serde_json::from_str::<Value>(&r.body).unwrap()["customerId"].as_str().unwrap().to_string();
        let more_key = shipping.create_api_key(Some(&more), "bench").unwrap().key;
        lines.push_str(&format!("{more} {more_key}\n"));
    }
    std::fs::write(dir.join("customers"), lines).unwrap();
    std::fs::write(
        dir.join("env"),
        format!("CUSTOMER={id}\nKEY={key}\nBOOK={book}\nTRACKING={tracking}\nCUSTOMER2={other}\nKEY2={other_key}\n"),
    )
    .unwrap();
}

fn inprocess(db: &str, dir: &Path, seconds: u64, synchronous: consign::Synchronous) {
    // As the server of the run: the figures are those of the work, not of the daily cap.
    let shipping = open(db, synchronous, Some(1_000_000_000));
    let env = std::fs::read_to_string(dir.join("env")).unwrap();
    let value = |name: &str| env.lines().find_map(|l| l.strip_prefix(&format!("{name}="))).unwrap().to_string();
    let (id, book, tracking) = (value("CUSTOMER"), value("BOOK"), value("TRACKING"));
    for (name, method, path, body) in operations(&shipping, &book, &tracking) {
        let path = format!("/restapi/v1/customers/{id}{path}");
        let mut latencies = Vec::new();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(seconds) {
            let t = Instant::now();
            let r = shipping.handle(method, &path, &body);
            latencies.push(t.elapsed());
            assert!(r.status < 300, "{name}: {} {}", r.status, r.body);
        }
        let elapsed = start.elapsed().as_secs_f64();
        latencies.sort();
        let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
        println!(
            "{name:<15} in-process 1 thread  {:>9.0} req/s  p50 {:>7.2} ms  p99 {:>7.2} ms",
            latencies.len() as f64 / elapsed,
            at(0.5),
            at(0.99)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["setup", db, dir] => setup(db, Path::new(dir), 1),
        ["setup", db, dir, customers] => setup(db, Path::new(dir), customers.parse().unwrap()),
        ["inprocess", db, dir, seconds] => inprocess(db, Path::new(dir), seconds.parse().unwrap(), consign::Synchronous::Full),
        ["inprocess", db, dir, seconds, "full"] => inprocess(db, Path::new(dir), seconds.parse().unwrap(), consign::Synchronous::Full),
        ["inprocess", db, dir, seconds, "normal"] => inprocess(db, Path::new(dir), seconds.parse().unwrap(), consign::Synchronous::Normal),
        _ => eprintln!("usage: http_bench setup DB DIR [CUSTOMERS] | http_bench inprocess DB DIR SECONDS [full|normal]"),
    }
}
