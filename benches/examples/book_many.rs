//! Books N shipments one at a time through `handle` on a file database: a driver for
//! profilers (`valgrind --tool=callgrind`, `perf`), not a benchmark.
//!
//! `cargo run --release -p consign-benches --example book_many -- 300 [lazy]`

use consign::{Shipping, Synchronous};
use serde_json::json;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let lazy = args.next().as_deref() == Some("lazy");
    let dir = std::env::temp_dir().join(format!("consign-book-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // NORMAL, as the booking target is stated for (FULL adds an fsync, not instructions).
    let shipping = Shipping::builder().path(dir.join("book.db")).lazy_labels(lazy).synchronous(Synchronous::Normal).open().expect("opens");
    let addr = |name: &str, city: &str, state: &str, zip: &str| json!({"name": name, "company": "", "address1": "1 A St", "address2": "", "city": city, "state": state, "zip": zip, "country": "US", "phone": "2155550142"});
    let customer = json!({"profileCode": "Default", "email": "p@example.com", "password": "profile-pass",
        "mailingAddress": addr("Ann Lee", "Philadelphia", "PA", "19106"), "billingAddress": addr("Ann Lee", "Philadelphia", "PA", "19106"),
        "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100000000}});
    let r = shipping.handle("POST", "/restapi/v1/customers", &customer.to_string());
    let id = serde_json::from_str::<serde_json::Value>(&r.body).expect("json")["customerId"].as_str().expect("id").to_string();
    let date = shipping.clock().today() + chrono::Duration::days(1);
    let path = format!("/restapi/v1/customers/{id}/shipments");
    for i in 0..n {
        let body = json!({"carrierCode": "postal", "serviceCode": "postal_priority_mail", "packageTypeCode": "postal_custom",
            "shipmentDate": date.to_string(), "shipmentReference": format!("INV-{i}"),
            "sender": addr("Ann Lee", "Philadelphia", "PA", "19106"), "receiver": addr("Bo Kim", "Los Angeles", "CA", "90012"),
            "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
            "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]});
        let r = shipping.handle("POST", &path, &body.to_string());
        assert_eq!(r.status, 201, "{}", r.body);
    }
    drop(shipping);
    let _ = std::fs::remove_dir_all(&dir);
}
