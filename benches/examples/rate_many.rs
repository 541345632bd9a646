//! Rates one service quote N times (a case of the `rating/rate` bench): a driver for
//! profilers (`valgrind --tool=callgrind`, `perf`), not a benchmark.
//!
//! `cargo run --release -p consign-benches --example rate_many -- 100000 [domestic]`

use consign::RateBook;
use consign_benches::RateCase;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let domestic = args.next().as_deref() == Some("domestic");
    let book = RateBook::default_book().expect("the default rate book loads");
    let case = RateCase::new(&book, domestic);
    let input = case.input();
    let mut total = rust_decimal::Decimal::ZERO;
    for _ in 0..n {
        total += book.rate(std::hint::black_box(case.card), std::hint::black_box(&input)).expect("rates").total;
    }
    println!("{n} quotes, {total} in all");
}
