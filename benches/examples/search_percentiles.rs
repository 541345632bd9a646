//! Median and 99th percentile of search over a million booked shipments, per keyword
//! class, through `Shipping::handle` (JSON in and out) and the typed method.
//!
//! `cargo run --release -p consign-benches --example search_percentiles [shipments] [rounds]`
//! `[class]` (defaults: 1,000,000 shipments, 2,000 searches per class, every class). The database is built once
//! into `target/bench-data/search-{n}.db` and reused.
//!
//! With `CONSIGN_BENCH_PG` set to a PostgreSQL URL (and `--features postgres`), the same
//! over that database instead: the shipments are loaded into it when it is empty and
//! reused when it holds them (`scripts/bench-search-pg` runs it on a cluster of its own).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark: a broken setup should stop the run

use std::time::{Duration, Instant};

use consign::wire::SearchShipmentsRequest;
use consign_benches::{search_fixture, SearchFixture};

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    let i = (sorted.len() * p).div_ceil(100).saturating_sub(1);
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{}.{:03}", d.as_micros() / 1000, d.as_micros() % 1000)
}

#[cfg(feature = "postgres")]
fn on_postgres(url: &str, n: u32) -> SearchFixture {
    consign_benches::search_fixture_postgres(url, n)
}

#[cfg(not(feature = "postgres"))]
fn on_postgres(_url: &str, _n: u32) -> SearchFixture {
    panic!("CONSIGN_BENCH_PG names a PostgreSQL database: run with `--features postgres`")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().map_or(1_000_000, |a| a.parse().expect("a number of shipments"));
    let rounds: usize = args.next().map_or(2_000, |a| a.parse().expect("a number of rounds"));
    // A third argument keeps only the keyword classes whose name contains it (to profile one).
    let only = args.next().unwrap_or_default();
    let started = Instant::now();
    let f = match std::env::var("CONSIGN_BENCH_PG") {
        Ok(url) => on_postgres(&url, n),
        Err(_) => search_fixture(n),
    };
    println!("fixture: {} shipments, ready in {:.1?}", f.shipments, started.elapsed());
    let path = format!("/restapi/v1/customers/{}/searchShipments", f.customer_id);
    let cases: [(&str, &[String]); 4] = [
        ("tracking number", &f.tracking_numbers),
        ("surname", &f.surnames),
        ("2-character keyword", &f.two_chars),
        ("more than 100 matches", &f.many_matches),
    ];
    println!("| keyword class | keywords | results (min-max) | handle median ms | handle p99 ms | typed median ms | typed p99 ms |");
    println!("|---|---|---|---|---|---|---|");
    for (name, keywords) in cases.into_iter().filter(|(name, _)| name.contains(only.as_str())) {
        let bodies: Vec<String> = keywords.iter().map(|k| serde_json::json!({ "keyword": k }).to_string()).collect();
        // Warm the page cache and the statement cache.
        for b in &bodies {
            f.shipping.handle("POST", &path, b);
        }
        let (mut lo, mut hi) = (usize::MAX, 0);
        let mut via_handle = Vec::with_capacity(rounds);
        let mut typed = Vec::with_capacity(rounds);
        for i in 0..rounds {
            let k = i % bodies.len();
            let t = Instant::now();
            let r = f.shipping.handle("POST", &path, &bodies[k]);
            via_handle.push(t.elapsed());
            assert_eq!(r.status, 200, "{}", r.body);
            let t = Instant::now();
            let found = f.shipping.search_shipments(&f.customer_id, &SearchShipmentsRequest { keyword: keywords[k].clone() }).unwrap();
            typed.push(t.elapsed());
            lo = lo.min(found.shipments.len());
            hi = hi.max(found.shipments.len());
        }
        via_handle.sort();
        typed.sort();
        println!(
            "| {name} | {} | {lo}-{hi} | {} | {} | {} | {} |",
            keywords.len(),
            ms(percentile(&via_handle, 50)),
            ms(percentile(&via_handle, 99)),
            ms(percentile(&typed, 50)),
            ms(percentile(&typed, 99)),
        );
    }
}
