//! The steps of `consign demo` after booking: search, tracking through the carrier feed,
//! a pickup and a manifest.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use consign::Shipping;
use serde_json::{json, Value};

use super::call;
use crate::table;

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// Runs the steps for customer `id` and its booked shipment `book_number`, numbering
/// them from `step`; the manifest PDF is written into `dir` (over an existing file only
/// with `force`).
pub fn run(shipping: &Shipping, id: &str, book_number: &str, dir: &std::path::Path, force: bool, step: u32) -> Result<(), String> {
    let base = format!("/restapi/v1/customers/{id}");

    let found = call(shipping, "POST", &format!("{base}/searchShipments"), &json!({"keyword": "kim"}))?;
    let rows: Vec<Vec<String>> = found["shipments"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            vec![
                text(&s["bookNumber"]),
                text(&s["trackingNumber"]),
                text(&s["receiver"]["name"]),
                format!("{} {}", text(&s["carrierCode"]), text(&s["serviceCode"])),
                text(&s["voided"]),
                text(&s["totalShippingCost"]),
            ]
        })
        .collect();
    println!("{step}. Search \"kim\" (names, companies, phones, e-mails, numbers, references; newest first):");
    println!("{}", table::render(&["book number", "tracking number", "receiver", "service", "voided", ">cost USD"], &rows));

    let shipment = call(shipping, "GET", &format!("{base}/shipments/{book_number}"), &Value::Null)?;
    let tracking = text(&shipment["trackingNumber"]);
    let carrier = text(&shipment["carrierCode"]);
    let now = shipping.clock().now();
    let at = |hours: i64| (now + chrono::Duration::hours(hours)).format("%Y-%m-%d %H:%M:%S").to_string();
    let events = json!({"events": [
        {"trackingNumber": tracking, "carrier": carrier, "event": "Departed the origin facility", "eventStatus": "In Transit",
         "eventTime": at(6), "serviceArea": "Philadelphia, PA", "serviceAreaCountry": "US"},
        {"trackingNumber": tracking, "carrier": carrier, "event": "Arrived at the destination facility", "eventStatus": "In Transit",
         "eventTime": at(30), "serviceArea": "Los Angeles, CA", "serviceAreaCountry": "US"},
        {"trackingNumber": tracking, "carrier": carrier, "event": "Departed the origin facility", "eventStatus": "In Transit",
         "eventTime": at(6), "serviceArea": "Philadelphia, PA", "serviceAreaCountry": "US"}
    ]});
    let recorded = call(shipping, "POST", &format!("{base}/shipments/{book_number}/tracking-events"), &events)?;
    let history = call(shipping, "GET", &format!("{base}/shipments/{book_number}/tracking-information"), &Value::Null)?;
    let rows: Vec<Vec<String>> = history
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            vec![
                format!("{} UTC", text(&e["eventTime"])),
                text(&e["eventStatus"]),
                text(&e["serviceArea"]),
                text(&e["serviceAreaCountry"]),
                text(&e["event"]),
            ]
        })
        .collect();
    println!(
        "{}. Carrier feed: {} events recorded, {} duplicate ignored. Tracking of {tracking}, newest first:",
        step + 1,
        recorded["recorded"],
        recorded["duplicates"]
    );
    println!("{}", table::render(&["time", "status", "area", "country", "event"], &rows));

    let sender = json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142"});
    let mut pickup = sender.clone();
    let tomorrow = (shipping.clock().today() + chrono::Duration::days(1)).to_string();
    for (k, v) in [
        ("carrierCode", json!(carrier)),
        ("pickupDate", json!(tomorrow)),
        ("readyTime", json!("10:00:00")),
        ("closeTime", json!("16:00:00")),
        ("bookNumbers", json!([book_number])),
    ] {
        pickup[k] = v;
    }
    let scheduled = call(shipping, "POST", &format!("{base}/pickups"), &pickup)?;
    let mut manifest = sender;
    manifest["carrierCode"] = json!(carrier);
    manifest["bookNumbers"] = json!([book_number]);
    let created = call(shipping, "POST", &format!("{base}/manifest"), &manifest)?;
    let manifest_id = text(&created["manifestId"]);
    let pdf = STANDARD.decode(created["data"].as_str().unwrap_or("")).map_err(|e| format!("the manifest is not base64: {e}"))?;
    let path = dir.join(format!("manifest-{manifest_id}.pdf"));
    super::write_new(&path, &pdf, force)?;
    println!(
        "{}. Pickup {} scheduled for {tomorrow} 10:00-16:00 (local time at the sender); manifest {manifest_id} ({}, {} bytes) written to {}.",
        step + 2,
        text(&scheduled["pickupId"]),
        text(&created["type"]),
        pdf.len(),
        path.display()
    );
    Ok(())
}
