//! The native side of the WASM benchmark: a 500-shipment batch quote of every service
//! through `Shipping::handle`, timed natively, on the input `ffi-wasm/bench/batch500.cjs`
//! times through the WASM package (`--write PATH` writes that input).
//!
//! ```sh
//! cargo run --release -p consign-wasm --example batch500 -- --write target/batch500.json
//! node ffi-wasm/bench/batch500.cjs target/batch500.json
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, reason = "a benchmark: a broken setup should stop it")]

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use std::sync::Arc;
    use std::time::Instant;

    use serde_json::json;

    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.iter().position(|a| a == "--runs").map_or(20, |i| args[i + 1].parse().unwrap());
    let input = batch();
    if let Some(i) = args.iter().position(|a| a == "--write") {
        std::fs::write(&args[i + 1], input.to_string()).unwrap();
    }

    let clock = Arc::new(consign::FixedClock::at(NOW).unwrap());
    let shipping = consign::Shipping::builder().clock(clock).open().unwrap();
    let created = shipping.handle("POST", "/restapi/v1/customers", &input["customer"].to_string());
    assert_eq!(created.status, 201, "{}", created.body);
    let id: serde_json::Value = serde_json::from_str(&created.body).unwrap();
    let path = format!("/restapi/v1/customers/{}/batch-quote", id["customerId"].as_str().unwrap());
    let body = json!({"shipments": input["shipments"]}).to_string();

    let mut times = Vec::new();
    let mut quotes = 0;
    for _ in 0..runs + 2 {
        let start = Instant::now();
        let r = shipping.handle("POST", &path, &body);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(r.status, 200);
        let answer: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        let results = answer["results"].as_array().unwrap();
        if let Some(bad) = results.iter().find(|r| r["status"] != "success") {
            panic!("a shipment failed to quote: {bad}");
        }
        quotes = results.iter().map(|r| r["quotes"].as_array().unwrap().len()).sum::<usize>();
    }
    times.drain(..2); // warm-up
    times.sort_by(f64::total_cmp);
    println!(
        "native batch500/all-services: median {:.1} ms, min {:.1} ms over {runs} runs ({quotes} quotes per batch)",
        times[times.len() / 2],
        times[0]
    );
}

#[cfg(not(target_arch = "wasm32"))]
const NOW: &str = "2026-11-21T15:00:00Z";

/// 500 shipments from Philadelphia: 20 destinations (16 US, Canada, UK, Germany,
/// Australia) by 25 weights and sizes; no service named, so every service is quoted.
#[cfg(not(target_arch = "wasm32"))]
fn batch() -> serde_json::Value {
    use serde_json::json;
    let us = [
        ("New York", "NY", "10001"),
        ("Los Angeles", "CA", "90012"),
        ("Chicago", "IL", "60601"),
        ("Houston", "TX", "77002"),
        ("Phoenix", "AZ", "85004"),
        ("Seattle", "WA", "98101"),
        ("Denver", "CO", "80202"),
        ("Miami", "FL", "33130"),
        ("Boston", "MA", "02108"),
        ("Atlanta", "GA", "30303"),
        ("Minneapolis", "MN", "55401"),
        ("Portland", "OR", "97204"),
        ("Nashville", "TN", "37203"),
        ("Anchorage", "AK", "99501"),
        ("Honolulu", "HI", "96813"),
        ("Pittsburgh", "PA", "15222"),
    ];
    let abroad = [
        ("Toronto", "ON", "M5H 2N2", "CA"),
        ("London", "", "SW1A 1AA", "GB"),
        ("Berlin", "", "10115", "DE"),
        ("Sydney", "NSW", "2000", "AU"),
    ];
    let sender = json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "215-555-0142"});
    let shipments: Vec<serde_json::Value> = (0..500)
        .map(|i| {
            let d = i % 20;
            let receiver = if d < us.len() {
                let (city, state, zip) = us[d];
                json!({"name": "Bo Kim", "company": "", "address1": "9 Elm St", "address2": "", "city": city, "state": state,
                    "zip": zip, "country": "US", "phone": "213-555-0199"})
            } else {
                let (city, state, zip, country) = abroad[d - us.len()];
                json!({"name": "Jo Smith", "company": "", "address1": "1 High St", "address2": "", "city": city, "state": state,
                    "zip": zip, "country": country, "phone": if country == "CA" { "416-555-0100" } else { "+44 20 7946 0958" }})
            };
            let k = i / 20; // 0..25
            json!({
                "shipmentDate": "2026-11-24", "shipmentReference": format!("B-{i:03}"), "contentDescription": "ceramics",
                "sender": sender, "receiver": receiver, "residential": i % 3 == 0, "weightUnit": "lb", "dimUnit": "in",
                "currency": "USD",
                "pieces": [{"weight": format!("{}.{}", 1 + k * 2, i % 10), "length": (8 + k).to_string(), "width": (6 + k / 2).to_string(),
                    "height": (4 + k / 3).to_string()}]
            })
        })
        .collect();
    let customer = json!({
        "profileCode": "Default", "email": "bench@example.com", "password": "bench-password",
        "mailingAddress": sender, "billingAddress": sender,
        "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100}
    });
    json!({"now": NOW, "customer": customer, "shipments": shipments})
}
