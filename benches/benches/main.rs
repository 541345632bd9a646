//! Criterion benchmarks: one `main`, a `define` per area, path-like ids.

#![allow(clippy::unwrap_used, clippy::expect_used)] // benches: a broken setup should stop the run

use criterion::{criterion_group, criterion_main, Criterion};

mod catalog {
    use std::hint::black_box;

    use consign::Shipping;
    use criterion::Criterion;

    /// List services through the router: catalog view plus JSON serialisation.
    pub fn define(c: &mut Criterion) {
        let shipping = Shipping::open_in_memory().expect("opens");
        let body = serde_json::json!({
            "profileCode": "Default", "email": "bench@example.com", "password": "bench-password",
            "mailingAddress": {"name": "B", "company": "", "address1": "1 A St", "address2": "", "city": "X", "state": "NY", "zip": "10001", "country": "US", "phone": "2125550100"},
            "billingAddress": {"name": "B", "company": "", "address1": "1 A St", "address2": "", "city": "X", "state": "NY", "zip": "10001", "country": "US", "phone": "2125550100"},
            "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100}
        });
        let r = shipping.handle("POST", "/restapi/v1/customers", &body.to_string());
        assert_eq!(r.status, 201);
        let id: serde_json::Value = serde_json::from_str(&r.body).expect("json");
        let path = format!("/restapi/v1/customers/{}/services", id["customerId"].as_str().expect("id"));
        c.bench_function("catalog/list-services", |b| {
            b.iter(|| {
                let r = shipping.handle("GET", black_box(&path), "");
                assert_eq!(r.status, 200);
                r.body.len()
            })
        });
    }
}

mod search {
    use std::hint::black_box;

    use consign_benches::search_fixture;
    use criterion::Criterion;

    /// Search over a million booked shipments of one customer (a cached file database
    /// under `target/bench-data`; `--test` runs use ten thousand). Each benchmark cycles
    /// through its keywords; the answer is checked so the work cannot be skipped.
    pub fn define(c: &mut Criterion) {
        let quick = std::env::args().any(|a| a == "--test");
        let f = search_fixture(if quick { 10_000 } else { 1_000_000 });
        let path = format!("/restapi/v1/customers/{}/searchShipments", f.customer_id);
        let size = if quick { "10k" } else { "1m" };
        let cases: [(&str, &[String]); 4] = [
            ("tracking-number", &f.tracking_numbers),
            ("surname", &f.surnames),
            ("two-chars", &f.two_chars),
            ("many-matches", &f.many_matches),
        ];
        for (name, keywords) in cases {
            let bodies: Vec<String> = keywords.iter().map(|k| serde_json::json!({ "keyword": k }).to_string()).collect();
            let mut i = 0;
            c.bench_function(&format!("search/{size}/{name}"), |b| {
                b.iter(|| {
                    i = (i + 1) % bodies.len();
                    let r = f.shipping.handle("POST", black_box(&path), black_box(&bodies[i]));
                    assert_eq!(r.status, 200);
                    r.body.len()
                })
            });
        }
    }
}

fn all(c: &mut Criterion) {
    catalog::define(c);
    search::define(c);
}

criterion_group!(benches, all);
criterion_main!(benches);
