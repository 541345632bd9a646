//! Inputs shared by the criterion benchmarks in `benches/` and the examples.

#![allow(clippy::unwrap_used, clippy::expect_used)] // benches: a broken setup should stop the run

use std::path::PathBuf;

use consign::Shipping;
use serde_json::{json, Value};

/// A database of booked shipments to search, with the keywords each benchmark asks.
pub struct SearchFixture {
    /// The service on the database file.
    pub shipping: Shipping,
    /// The customer that owns almost all shipments.
    pub customer_id: String,
    /// Shipments in the file.
    pub shipments: u32,
    /// Full tracking numbers of shipments spread over the file (each matches one).
    pub tracking_numbers: Vec<String>,
    /// Receiver surnames that occur (each on roughly `shipments / 20_000` shipments).
    pub surnames: Vec<String>,
    /// Two-character keywords: common ones (in every shipment) and rare ones.
    pub two_chars: Vec<String>,
    /// Keywords that match far more than 100 shipments (first names, company words).
    pub many_matches: Vec<String>,
}

const FIRST: [&str; 20] = [
    "Mira", "Jonas", "Amara", "Ravi", "Elena", "Tomas", "Yuki", "Omar", "Ingrid", "Diego", "Leila", "Pavel", "Noor", "Felix", "Sanaa",
    "Hugo", "Maren", "Kofi", "Ilse", "Rosa",
];
const PREFIX: [&str; 30] = [
    "Kar", "Bel", "Dom", "Fen", "Gal", "Hol", "Jas", "Lun", "Mor", "Nov", "Or", "Pet", "Quin", "Ros", "Sal", "Tor", "Ul", "Var", "Wes",
    "Yar", "Zel", "Ash", "Brin", "Cal", "Dre", "Esk", "Fal", "Grim", "Hask", "Ivo",
];
const MIDDLE: [&str; 30] = [
    "a", "e", "i", "o", "u", "an", "en", "in", "on", "ar", "er", "ir", "or", "al", "el", "il", "ol", "av", "ev", "ov", "am", "em", "im",
    "om", "ad", "ed", "id", "od", "ab", "eb",
];
const SUFFIX: [&str; 25] = [
    "ello", "sen", "ova", "ski", "wick", "ford", "ton", "berg", "stad", "more", "dale", "ley", "rup", "vic", "quist", "holm", "lund",
    "ard", "ias", "oux", "elli", "azar", "ondo", "ridge", "thorpe",
];

/// The `i`th of 22,500 surnames.
pub fn surname(i: u32) -> String {
    let i = i as usize;
    format!("{}{}{}", PREFIX[i % 30], MIDDLE[(i / 30) % 30], SUFFIX[(i / 900) % 25])
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

fn address(name: &str) -> Value {
    json!({"name": name, "company": "Lee Ceramics", "address1": "200 Market St", "address2": "", "city": "Philadelphia",
        "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142", "email": "ann@leeceramics.example"})
}

fn call(shipping: &Shipping, method: &str, path: &str, body: &Value) -> Value {
    let r = shipping.handle(method, path, &body.to_string());
    assert!(r.status < 300, "{method} {path}: {}", r.body);
    serde_json::from_str(&r.body).unwrap()
}

/// Where cached fixtures live: `$CARGO_TARGET_DIR/bench-data`, else `target/bench-data`
/// of the workspace.
pub fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")));
    target.join("bench-data")
}

/// Opens (building it the first time, which takes minutes for a million) a file
/// database of `n` booked shipments of one customer, plus a few of another customer, in
/// `target/bench-data/search-{n}.db`. Shipments are copies of one real booking with
/// their own book and tracking numbers, receivers, phones, e-mails, references and
/// order numbers, inserted with the store's own SQL.
pub fn search_fixture(n: u32) -> SearchFixture {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("search-{n}.db"));
    if !path.exists() {
        let tmp = dir.join(format!("search-{n}.building.db"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", tmp.display()));
        }
        build(&tmp, n);
        std::fs::rename(&tmp, &path).unwrap();
    }
    let shipping = Shipping::open(&path).unwrap();
    let customer_id = "C0000001".to_string();
    let step = (n / 100).max(1);
    let tracking_numbers = (0..n)
        .step_by(step as usize)
        .take(100)
        .map(|i| {
            let found = shipping.search_shipments(&customer_id, &consign::wire::SearchShipmentsRequest { keyword: format!("REF-{i:07}") });
            found.unwrap().shipments[0].tracking_number.clone()
        })
        .collect();
    SearchFixture {
        shipping,
        customer_id,
        shipments: n,
        tracking_numbers,
        surnames: (0..100).map(|i| surname(mix(i) as u32 % 22_500)).collect(),
        two_chars: vec!["an".into(), "ra".into(), "el".into(), "qz".into(), "xj".into(), "zq".into()],
        many_matches: FIRST.iter().map(|f| f.to_string()).chain(["Ceramics".into(), "Lee Ceramics".into()]).collect(),
    }
}

fn build(path: &std::path::Path, n: u32) {
    let shipping = Shipping::open(path).unwrap();
    let customer = |email: &str| {
        let body = json!({"profileCode": "Default", "email": email, "password": "bench-password",
            "mailingAddress": address("Ann Lee"), "billingAddress": address("Ann Lee"),
            "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 1000}});
        let id = call(&shipping, "POST", "/restapi/v1/customers", &body)["customerId"].as_str().unwrap().to_string();
        let card = json!({"billingAddress": address("Ann Lee"),
            "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": "tok_bench"}});
        call(&shipping, "POST", &format!("/restapi/v1/customers/{id}/paymentMethod"), &card);
        id
    };
    let big = customer("big@example.com");
    assert_eq!(big, "C0000001");
    let small = customer("small@example.com");
    let today = shipping.clock().today().to_string();
    let booking = json!({
        "carrierCode": "postal", "serviceCode": "postal_priority_mail", "packageTypeCode": "postal_custom",
        "shipmentDate": today, "shipmentReference": "TEMPLATE", "contentDescription": "ceramics",
        "sender": address("Ann Lee"),
        "receiver": {"name": "Bo Kim", "company": "Kim Studio", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
            "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199", "email": "bo@kimstudio.example"},
        "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}],
        "approvePrepayRecharge": true
    });
    let template =
        call(&shipping, "POST", &format!("/restapi/v1/customers/{big}/shipments"), &booking)["bookNumber"].as_str().unwrap().to_string();
    let small_template =
        call(&shipping, "POST", &format!("/restapi/v1/customers/{small}/shipments"), &booking)["bookNumber"].as_str().unwrap().to_string();
    shipping.bulk_insert_shipments_for_bench(&small, &small_template, 1000, |_, _| {}).unwrap();
    let chunk = 50_000;
    let mut done = 0;
    while done < n {
        let count = chunk.min(n - done);
        shipping
            .bulk_insert_shipments_for_bench(&big, &template, count, |j, view| {
                let i = done + j;
                let r = mix(u64::from(i));
                let first = FIRST[(r % 20) as usize];
                let last = surname((r >> 8) as u32 % 22_500);
                view.receiver.name = format!("{first} {last}");
                view.receiver.company = if r % 3 == 0 { format!("{last} Trading") } else { String::new() };
                view.receiver.phone = format!("{:03}-555-{:04}", 200 + (r >> 20) % 700, (r >> 32) % 10_000);
                view.receiver.email = format!("{}.{}@example.com", first.to_lowercase(), last.to_lowercase());
                view.shipper_reference = format!("REF-{i:07}");
                view.shipment_reference = view.shipper_reference.clone();
                view.order_number = format!("SO-{}", 500_000 + i);
            })
            .unwrap();
        done += count;
        eprintln!("search fixture: {done} of {n} shipments");
    }
    drop(shipping);
}
