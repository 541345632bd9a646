//! Booking benchmarks: bookings per second on a file database in WAL mode, with and
//! without rendering the PDF label at booking, and a 500-quote batch book.
//!
//! The speed targets hold under `synchronous=NORMAL` (`Synchronous::Normal`), which these
//! ids measure; `.../synchronous-full` is the same booking under the default `FULL`,
//! where each booking waits for an fsync of the log.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use consign::{Shipping, Synchronous};
use criterion::{BatchSize, Criterion};
use serde_json::{json, Value};

fn address(name: &str, city: &str, state: &str, zip: &str, phone: &str) -> Value {
    json!({"name": name, "company": "", "address1": "1 Bench St", "address2": "", "city": city, "state": state, "zip": zip,
        "country": "US", "phone": phone, "email": ""})
}

/// A service on a fresh file database with one customer who can always pay.
fn setup(lazy_labels: bool, synchronous: Synchronous) -> (tempdir::Dir, Shipping, String) {
    let dir = tempdir::Dir::new("booking");
    let shipping = Shipping::builder().path(dir.path().join("bench.db")).lazy_labels(lazy_labels).synchronous(synchronous).open().unwrap();
    let ann = address("Ann Lee", "Philadelphia", "PA", "19106", "2155550142");
    let body = json!({"profileCode": "Default", "email": "bench@example.com", "password": "bench-password",
        "mailingAddress": ann, "billingAddress": ann,
        "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100000000}});
    let r = shipping.handle("POST", "/restapi/v1/customers", &body.to_string());
    assert_eq!(r.status, 201, "{}", r.body);
    let id = serde_json::from_str::<Value>(&r.body).unwrap()["customerId"].as_str().unwrap().to_string();
    (dir, shipping, id)
}

fn shipment(i: usize) -> Value {
    let zips = [("90012", "CA", "Los Angeles"), ("60601", "IL", "Chicago"), ("33101", "FL", "Miami"), ("98101", "WA", "Seattle")];
    let (zip, state, city) = zips[i % zips.len()];
    json!({
        "shipmentDate": (chrono_today() + 1).to_string(),
        "shipmentReference": format!("INV-{i}"),
        "sender": address("Ann Lee", "Philadelphia", "PA", "19106", "2155550142"),
        "receiver": address("Bo Kim", city, state, zip, "2135550199"),
        "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": format!("{}", 1 + i % 20), "length": "12", "width": "10", "height": "8", "insuranceAmount": null, "declaredValue": null}]
    })
}

/// Days since 1970 of today, as a tiny date type that prints as YYYY-MM-DD.
fn chrono_today() -> Day {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    Day(i64::try_from(secs / 86_400).unwrap_or(0))
}

#[derive(Clone, Copy)]
struct Day(i64);
impl std::ops::Add<i64> for Day {
    type Output = Day;
    fn add(self, days: i64) -> Day {
        Day(self.0 + days)
    }
}
impl std::fmt::Display for Day {
    // Civil-from-days (Howard Hinnant's algorithm), to keep chrono out of the benches.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let z = self.0 + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

fn booking_body(i: usize) -> String {
    let mut b = shipment(i);
    b["carrierCode"] = json!("postal");
    b["serviceCode"] = json!("postal_priority_mail");
    b["packageTypeCode"] = json!("postal_custom");
    b["approvePrepayRecharge"] = json!(false);
    b.to_string()
}

/// Bookings one at a time through `handle`, each its own transaction.
pub fn define(c: &mut Criterion) {
    for (name, lazy, synchronous) in [
        ("booking/single/no-label", true, Synchronous::Normal),
        ("booking/single/no-label/synchronous-full", true, Synchronous::Full),
        ("booking/single/pdf-label", false, Synchronous::Normal),
    ] {
        let (_dir, shipping, id) = setup(lazy, synchronous);
        let path = format!("/restapi/v1/customers/{id}/shipments");
        let bodies: Vec<String> = (0..64).map(booking_body).collect();
        let n = AtomicUsize::new(0);
        c.bench_function(name, |b| {
            b.iter(|| {
                let i = n.fetch_add(1, Ordering::Relaxed);
                let r = shipping.handle("POST", black_box(&path), &bodies[i % bodies.len()]);
                assert_eq!(r.status, 201, "{}", r.body);
                r.body.len()
            })
        });
    }

    let (_dir, shipping, id) = setup(false, Synchronous::Normal);
    let mut group = c.benchmark_group("booking");
    group.sample_size(10);
    group.bench_function("batch-book/500", |b| {
        b.iter_batched(
            || {
                // 500 quotes of one named service, gathered in a fresh batch (not timed).
                let shipments: Vec<Value> = (0..500)
                    .map(|i| {
                        let mut s = shipment(i);
                        s["serviceCode"] = json!("postal_priority_mail");
                        s["packageTypeCode"] = json!("postal_custom");
                        s
                    })
                    .collect();
                let r = shipping.handle(
                    "POST",
                    &format!("/restapi/v1/customers/{id}/batch-quote"),
                    &json!({"shipments": shipments}).to_string(),
                );
                let quotes: Vec<i64> = serde_json::from_str::<Value>(&r.body).unwrap()["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|res| res["quotes"][0]["quoteId"].as_i64().unwrap())
                    .collect();
                let r = shipping.handle("POST", &format!("/restapi/v1/customers/{id}/batch"), "");
                let batch = serde_json::from_str::<Value>(&r.body).unwrap()["batchId"].as_str().unwrap().to_string();
                let r = shipping.handle(
                    "POST",
                    &format!("/restapi/v1/customers/{id}/batch/{batch}/quotes"),
                    &json!({"quoteIds": quotes}).to_string(),
                );
                assert_eq!(r.status, 200, "{}", r.body);
                json!({"batchId": batch}).to_string()
            },
            |body| {
                let r = shipping.handle("POST", &format!("/restapi/v1/customers/{id}/batch-book"), &body);
                assert_eq!(r.status, 200);
                assert!(!r.body.contains("\"error\""), "every quote books");
                r.body.len()
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// A temporary directory removed on drop (keeps a dependency out of the benches).
mod tempdir {
    use std::path::{Path, PathBuf};
    pub struct Dir(PathBuf);
    impl Dir {
        pub fn new(prefix: &str) -> Dir {
            let n = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
            let path = std::env::temp_dir().join(format!("consign-{prefix}-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }
        pub fn path(&self) -> &Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
