#![allow(clippy::expect_used)] // a driver: a broken setup should stop it

//! The memory a request of each hostile or largest shape costs `handle`: the peak
//! resident set while it runs, above what the process held before (Linux: the peak is
//! reset through `/proc/self/clear_refs`, read from `VmHWM`). The figures of
//! `docs/DECISIONS.md` ("Limits") come from here.
//!
//! `cargo run --release -p consign-benches --example hostile_bodies`

use consign::Shipping;
use serde_json::{json, Value};

fn main() {
    let shipping = Shipping::open_in_memory().expect("opens");
    let r = shipping.handle("POST", "/restapi/v1/customers", &customer().to_string());
    let id = serde_json::from_str::<Value>(&r.body).expect("json")["customerId"].as_str().expect("id").to_string();
    let path = format!("/restapi/v1/customers/{id}/batch-quote");
    let mut args = std::env::args().skip(1);
    if let (Some(name), Some(file)) = (args.next(), args.next()) {
        // One shape in a process of its own, its body read from a file at its exact
        // size: no memory freed by building it is there for the request to reuse.
        let body = std::fs::read_to_string(&file).expect("the body file");
        let before = reset_peak();
        let r = shipping.handle("POST", &path, &body);
        let peak = peak_kb().saturating_sub(before);
        println!("{name:<72} {:>10.1} {:>7} {:>12.1}", body.len() as f64 / 1e6, r.status, peak as f64 / 1e3);
        return;
    }
    let date = (shipping.clock().today() + chrono::Duration::days(2)).to_string();
    let piece = r#"{"weight":"1"}"#;
    let line = r#"{"sku":"","productName":"","quantity":1}"#;
    let shapes: Vec<(&str, String)> = vec![
        ("2.58 million pieces in one shipment (over the body limit)", shipment_body(&date, &vec![piece; 2_580_000].join(","))),
        ("pieces filling the body limit in one shipment", shipment_body(&date, &vec![piece; 1_100_000].join(","))),
        ("empty shipments filling the body limit", format!(r#"{{"shipments":[{}]}}"#, vec!["{}"; 5_500_000].join(","))),
        ("40 shipments of 99 pieces of 100 line items", {
            let piece = format!(r#"{{"weight":"1","lineItems":[{}]}}"#, vec![line; 100].join(","));
            let one = shipment(&date, &vec![piece.as_str(); 99].join(","));
            format!(r#"{{"shipments":[{}]}}"#, vec![one.as_str(); 40].join(","))
        }),
        ("the largest legitimate batch (500 invoiced international shipments)", consign_conformance::largest_legitimate_batch(&date)),
    ];
    let dir = std::env::temp_dir().join(format!("consign-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!("{:<72} {:>10} {:>7} {:>12}", "request", "body MB", "status", "peak MB");
    let me = std::env::current_exe().expect("this program's path");
    for (i, (name, body)) in shapes.iter().enumerate() {
        let file = dir.join(format!("{i}.json"));
        std::fs::write(&file, body).expect("writes the body");
        let status = std::process::Command::new(&me).arg(name).arg(&file).status().expect("runs");
        assert!(status.success());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn customer() -> Value {
    let addr = json!({"name": "Ann Lee", "company": "", "address1": "1 A St", "address2": "", "city": "Philadelphia", "state": "PA",
        "zip": "19106", "country": "US", "phone": "2155550142"});
    json!({"profileCode": "Default", "email": "p@example.com", "password": "profile-pass", "mailingAddress": addr, "billingAddress": addr,
        "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100}})
}

/// One domestic shipment with `pieces` (JSON array entries, joined).
fn shipment(date: &str, pieces: &str) -> String {
    format!(
        r#"{{"shipmentDate":"{date}","shipmentReference":"R","sender":{{"name":"A","company":"","address1":"1 A St","address2":"","city":"Philadelphia","state":"PA","zip":"19106","country":"US","phone":"2155550142"}},"receiver":{{"name":"B","company":"","address1":"9 Elm St","address2":"","city":"Los Angeles","state":"CA","zip":"90012","country":"US","phone":"2135550199"}},"weightUnit":"lb","dimUnit":null,"currency":"USD","pieces":[{pieces}]}}"#
    )
}

fn shipment_body(date: &str, pieces: &str) -> String {
    format!(r#"{{"shipments":[{}]}}"#, shipment(date, pieces))
}

/// Resets the peak resident set to the current one and returns it, in kB.
fn reset_peak() -> u64 {
    // "5" resets the peak RSS (VmHWM) to the current RSS (proc(5), since Linux 4.0).
    std::fs::write("/proc/self/clear_refs", "5").expect("Linux /proc/self/clear_refs");
    peak_kb()
}

fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}
