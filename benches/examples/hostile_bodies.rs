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
        ("the largest legitimate batch (500 invoiced international shipments)", largest_legitimate_batch(&date)),
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

/// As the conformance test `limits::the_largest_legitimate_batch_fits_the_body_limit_and_is_quoted`.
fn largest_legitimate_batch(date: &str) -> String {
    let address = |country: &str, zip: &str, state: &str, phone: &str| {
        json!({"name": "N".repeat(35), "company": "C".repeat(35), "address1": "A".repeat(35), "address2": "B".repeat(35),
            "city": "Y".repeat(30), "state": state, "zip": zip, "country": country, "phone": phone,
            "email": format!("{}@example.com", "e".repeat(40))})
    };
    let line = json!({"sku": "S".repeat(20), "productName": "P".repeat(60), "quantity": 12});
    let piece = json!({"weight": "1.2", "length": "30.5", "width": "20.25", "height": "10.75", "insuranceAmount": "1250.00",
        "declaredValue": "12.50", "lineItems": vec![line; 10]});
    let item = json!({"description": "D".repeat(60), "quantity": 1, "unitValue": "1.25", "weight": "0.1", "htsNumber": "6912.00.4810",
        "countryOfOrigin": "US"});
    let invoice = json!({"sendElectronically": true, "ftrNumber": null, "itnNumber": "X20261121123456", "aesNumber": null,
        "termsOfTrade": "DAP", "receiverTaxId": "GB123456789", "senderVatTaxId": "12-3456789", "packageMarks": "M".repeat(35),
        "items": vec![item; 100], "senderTaxIdNumberType": "ein",
        "dhlTaxIds": [{"number": "GB123456789000", "type": "EOR", "issuerCountry": "GB"}, {"number": "GB123456789", "type": "VAT", "issuerCountry": "GB"}]});
    let shipment = json!({"carrierCode": "intlexpress", "serviceCode": "intlexpress_express_worldwide", "packageTypeCode": "intlexpress_custom",
        "shipmentDate": date, "shipmentReference": "R".repeat(100), "contentDescription": "T".repeat(100),
        "sender": address("US", "19106", "PA", "(215) 555-0142"), "receiver": address("GB", "SW1A 1AA", "", "+44 20 7946 0958"),
        "residential": false, "signatureOptionCode": null, "saturdayDelivery": false, "weightUnit": "kg", "dimUnit": "cm", "currency": "USD",
        "pieces": vec![piece; 10], "billing": {"party": "sender"}, "commercialInvoice": invoice});
    json!({"shipments": vec![shipment; 500]}).to_string()
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
