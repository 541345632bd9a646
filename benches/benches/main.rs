//! Criterion benchmarks: one `main`, a `define` per area, path-like ids.

#![allow(clippy::unwrap_used, clippy::expect_used)] // benches: a broken setup should stop the run

use criterion::{criterion_group, criterion_main, Criterion};

mod booking;

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

mod quote {
    //! Batch quote of 500 shipments through `handle`, on a file database (WAL), against
    //! its floor. Each timed run inserts into an emptied quotes table (emptied untimed),
    //! and its answer is checked untimed: status 200 and the quote count of the first run.

    use std::hint::black_box;
    use std::time::{Duration, Instant};

    use consign_benches::{quote_ids, Floor, Service};
    use criterion::{Criterion, Throughput};

    pub fn define(c: &mut Criterion) {
        let service = Service::open();
        let all = service.batch_body(false);
        let one = service.batch_body(true);
        let (all_quotes, fewest) = service.quote(&all);
        let (one_quotes, _) = service.quote(&one);
        assert!(fewest >= 10, "at least 10 quotes per shipment, found {fewest}");
        assert_eq!(one_quotes, consign_benches::BATCH, "one quote per shipment");
        eprintln!("quote/batch500: all-services {all_quotes} quotes, one-service {one_quotes} quotes");

        let mut g = c.benchmark_group("quote/batch500");
        g.sample_size(20).measurement_time(Duration::from_secs(10));
        for (id, body, quotes) in [("all-services", &all, all_quotes), ("one-service", &one, one_quotes)] {
            g.throughput(Throughput::Elements(quotes as u64));
            g.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    let mut timed = Duration::ZERO;
                    for _ in 0..iters {
                        service.clear_quotes();
                        let start = Instant::now();
                        let r = service.answer(black_box(body));
                        timed += start.elapsed();
                        assert_eq!(r.status, 200);
                        assert_eq!(quote_ids(&r.body), quotes);
                    }
                    timed
                })
            });
        }

        let mut floor = Floor::new(&service.answer(&all).body);
        let answer_len = service.answer(&all).body.len();
        g.throughput(Throughput::Elements(all_quotes as u64));
        g.bench_function("floor", |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    floor.clear();
                    let start = Instant::now();
                    let len = floor.run(black_box(&all));
                    timed += start.elapsed();
                    assert_eq!(len, answer_len);
                }
                timed
            })
        });
        g.finish();
    }
}

mod rating {
    //! The rating function alone: one service quote, no catalog, no SQL.

    use std::hint::black_box;

    use consign::RateBook;
    use consign_benches::RateCase;
    use criterion::Criterion;
    use rust_decimal_macros::dec;

    pub fn define(c: &mut Criterion) {
        let book = RateBook::default_book().expect("the default rate book loads");
        let cases = [("domestic", RateCase::new(&book, true)), ("international", RateCase::new(&book, false))];
        let mut g = c.benchmark_group("rating/rate");
        for (id, case) in &cases {
            let (card, input) = (&case.card, &case.input());
            let rate = book.rate(*card, input).expect("rates");
            assert!(rate.total > dec!(0));
            g.bench_function(*id, |b| {
                b.iter(|| {
                    let rate = book.rate(black_box(*card), black_box(input)).expect("rates");
                    rate.total
                })
            });
        }
        g.finish();
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
        // Criterion measures only when cargo passes --bench; `cargo test` (no --bench) and
        // `cargo bench -- --test` run each bench once, and get the small fixture.
        let args: Vec<String> = std::env::args().collect();
        let quick = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
        let size = if quick { "10k" } else { "1m" };
        // Built (or opened from its cache) only when a search benchmark runs: building a
        // million shipments takes minutes, and a filter like `quote/` should not pay it.
        let fixture = std::cell::OnceCell::new();
        let fixture = || fixture.get_or_init(|| search_fixture(if quick { 10_000 } else { 1_000_000 }));
        for name in ["tracking-number", "surname", "two-chars", "many-matches"] {
            let mut i = 0;
            c.bench_function(&format!("search/{size}/{name}"), |b| {
                let f = fixture();
                let keywords = match name {
                    "tracking-number" => &f.tracking_numbers,
                    "surname" => &f.surnames,
                    "two-chars" => &f.two_chars,
                    _ => &f.many_matches,
                };
                let bodies: Vec<String> = keywords.iter().map(|k| serde_json::json!({ "keyword": k }).to_string()).collect();
                let path = format!("/restapi/v1/customers/{}/searchShipments", f.customer_id);
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
    rating::define(c);
    quote::define(c);
    booking::define(c);
    search::define(c);
}

criterion_group!(benches, all);
criterion_main!(benches);
