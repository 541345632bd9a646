//! Rates one service quote N times (the international case of the `rating/rate` bench):
//! a driver for profilers (`valgrind --tool=callgrind`, `perf`), not a benchmark.
//!
//! `cargo run --release -p consign-benches --example rate_many -- 100000 [domestic]`

use consign::rating::{Currency, DimUnit, PieceInput, Place, RateBook, RateInput, WeightUnit};
use rust_decimal_macros::dec;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let domestic = args.next().as_deref() == Some("domestic");
    let book = RateBook::default_book().expect("the default rate book loads");
    let pieces = if domestic {
        [PieceInput { weight: dec!(2), dims: Some([dec!(10), dec!(8), dec!(6)]), insurance: None }]
    } else {
        [PieceInput { weight: dec!(1.2), dims: Some([dec!(30), dec!(20), dec!(10)]), insurance: None }]
    };
    let (service, receiver, weight_unit, dim_unit) = if domestic {
        ("parcel_ground", Place { country: "US", state: "CA", zip: Some("90012") }, WeightUnit::Lb, DimUnit::In)
    } else {
        ("parcel_worldwide_express", Place { country: "GB", state: "", zip: Some("SW1A 1AA") }, WeightUnit::Kg, DimUnit::Cm)
    };
    let card = book.card("parcel", service, "parcel_custom").expect("a card");
    let input = RateInput {
        sender: Place { country: "US", state: "PA", zip: Some("19106") },
        receiver,
        residential: false,
        weight_unit,
        dim_unit,
        pieces: &pieces,
        signature_option: None,
        saturday_delivery: false,
        am_delivery: false,
        dangerous_goods: false,
        currency: Currency::Usd,
        markup_percent: dec!(0),
    };
    let mut total = dec!(0);
    for _ in 0..n {
        total += book.rate(std::hint::black_box(card), std::hint::black_box(&input)).expect("rates").total;
    }
    println!("{n} quotes, {total} in all");
}
