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
//! It prints the least and the median wall time of a batch (only the batch: not the
//! emptying of the table before it, nor the checks after).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a driver: a broken setup should stop it

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "all".into());
    let runs: usize = args.next().map_or(20, |n| n.parse().expect("a number of runs"));
    let service = consign_benches::Service::open();
    let body = service.batch_body(mode == "one");
    let (quotes, _) = service.quote(&body);
    let mut floor = (mode == "floor").then(|| consign_benches::Floor::new(&service.answer(&body).body));
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        service.clear_quotes();
        let start = std::time::Instant::now();
        let len = match &mut floor {
            Some(floor) => {
                floor.clear();
                let len = floor.run(&body);
                times.push(start.elapsed());
                len
            }
            None => {
                let r = service.answer(&body);
                times.push(start.elapsed());
                assert_eq!(r.status, 200);
                assert_eq!(consign_benches::quote_ids(&r.body), quotes);
                r.body.len()
            }
        };
        std::hint::black_box(len);
    }
    if std::env::var_os("BATCH_TIMES").is_some() {
        eprintln!("{:?}", times.iter().map(|t| (t.as_secs_f64() * 1e4).round() / 10.0).collect::<Vec<_>>());
    }
    times.sort();
    let ms = |i: usize| times.get(i).map_or(0.0, |t| t.as_secs_f64() * 1e3);
    println!("{mode}: {runs} runs, {quotes} quotes a run; batch time min {:.2} ms, median {:.2} ms", ms(0), ms(runs / 2));
}
