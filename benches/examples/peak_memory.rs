//! Runs the all-services 500-shipment batch quote a few times through `handle` on a file
//! database, for measuring the peak memory of a process doing it:
//!
//! ```text
//! cargo build --release -p consign-benches --example peak_memory
//! /usr/bin/time -v target/release/examples/peak_memory 5   # "Maximum resident set size"
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)] // a driver: a broken setup should stop it

fn main() {
    let runs: usize = std::env::args().nth(1).map_or(5, |n| n.parse().expect("a number of runs"));
    let service = consign_benches::Service::open();
    let body = service.batch_body(false);
    let (mut quotes, mut answer) = (0, 0);
    for _ in 0..runs {
        let r = service.answer(&body);
        assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(500)]);
        quotes = consign_benches::quote_ids(&r.body);
        answer = r.body.len();
    }
    println!("{runs} runs of the all-services batch: {quotes} quotes each, request {} bytes, answer {answer} bytes", body.len());
}
