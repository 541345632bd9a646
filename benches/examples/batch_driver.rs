//! Runs one of the batch benchmarks' workloads `runs` times, for profilers and counters
//! that want a plain process rather than criterion:
//!
//! ```text
//! cargo build --release -p consign-benches --example batch_driver
//! perf stat -e instructions,task-clock target/release/examples/batch_driver all 20
//! perf record --call-graph dwarf target/release/examples/batch_driver all 40
//! ```
//!
//! The mode is `all` (every service), `one` (one named service) or `floor`; with `0`
//! runs it only sets up, so that a difference of two counts is the cost of the batches.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a driver: a broken setup should stop it

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "all".into());
    let runs: usize = args.next().map_or(20, |n| n.parse().expect("a number of runs"));
    let service = consign_benches::Service::open();
    let body = service.batch_body(mode == "one");
    let (quotes, _) = service.quote(&body);
    let mut floor = (mode == "floor").then(|| consign_benches::Floor::new(&service.answer(&body).body));
    for _ in 0..runs {
        service.clear_quotes();
        let len = match &mut floor {
            Some(floor) => {
                floor.clear();
                floor.run(&body)
            }
            None => {
                let r = service.answer(&body);
                assert_eq!(r.status, 200);
                assert_eq!(consign_benches::quote_ids(&r.body), quotes);
                r.body.len()
            }
        };
        std::hint::black_box(len);
    }
    println!("{mode}: {runs} runs, {quotes} quotes a run");
}
