//! Reads N times through `handle` on a file database: the prepay balance with its
//! entries, one shipment, a search that finds 100 of 120 shipments, or a search by the
//! tracking number of one of 20,000. A driver for `valgrind --tool=callgrind` and `perf`,
//! not a benchmark.
//!
//! `cargo run --release -p consign-benches --example read_many -- 1000 prepay|shipment|search|search-tracking`

use consign::Shipping;
use serde_json::json;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let what = args.next().unwrap_or_else(|| "prepay".into());
    let dir = std::env::temp_dir().join(format!("consign-read-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shipping = Shipping::builder().path(dir.join("read.db")).lazy_labels(true).open().expect("opens");
    let addr = |name: &str, city: &str, state: &str, zip: &str| json!({"name": name, "company": "", "address1": "1 A St", "address2": "", "city": city, "state": state, "zip": zip, "country": "US", "phone": "2155550142"});
    let customer = json!({"profileCode": "Default", "email": "p@example.com", "password": "profile-pass",
        "mailingAddress": addr("Ann Lee", "Philadelphia", "PA", "19106"), "billingAddress": addr("Ann Lee", "Philadelphia", "PA", "19106"),
        "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100_000_000}});
    let r = shipping.handle("POST", "/restapi/v1/customers", &customer.to_string());
    let id = serde_json::from_str::<serde_json::Value>(&r.body).expect("json")["customerId"].as_str().expect("id").to_string();
    let date = shipping.clock().today() + chrono::Duration::days(1);
    // A few bookings, so that the prepay answer has entries and there is a shipment.
    let mut book_number = String::new();
    let bookings = match what.as_str() {
        "search" => 120,
        "search-tracking" => 20_000,
        _ => 5,
    };
    let mut tracking = String::new();
    for i in 0..bookings {
        let body = json!({"carrierCode": "postal", "serviceCode": "postal_priority_mail", "packageTypeCode": "postal_custom",
            "shipmentDate": date.to_string(), "shipmentReference": format!("INV-{i}"), "approvePrepayRecharge": true,
            "sender": addr("Ann Lee", "Philadelphia", "PA", "19106"), "receiver": addr("Bo Kim", "Los Angeles", "CA", "90012"),
            "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
            "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]});
        let r = shipping.handle("POST", &format!("/restapi/v1/customers/{id}/shipments"), &body.to_string());
        assert_eq!(r.status, 201, "{}", r.body);
        let booked = serde_json::from_str::<serde_json::Value>(&r.body).expect("json");
        book_number = booked["bookNumber"].as_str().expect("bookNumber").to_string();
        if i < 200 || what != "search-tracking" {
            tracking = booked["trackingNumber"].as_str().expect("trackingNumber").to_string();
        }
    }
    let (method, path, body) = match what.as_str() {
        "shipment" => ("GET", format!("/restapi/v1/customers/{id}/shipments/{book_number}"), String::new()),
        "search" => ("POST", format!("/restapi/v1/customers/{id}/searchShipments"), json!({"keyword": "INV-"}).to_string()),
        "search-tracking" => ("POST", format!("/restapi/v1/customers/{id}/searchShipments"), json!({ "keyword": tracking }).to_string()),
        _ => ("GET", format!("/restapi/v1/customers/{id}/prepay"), String::new()),
    };
    for _ in 0..n {
        let r = shipping.handle(method, &path, &body);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    drop(shipping);
    let _ = std::fs::remove_dir_all(&dir);
}
