//! `consign demo`: the main job on a fresh database with the embedded default catalog.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use consign::{wire, Shipping};
use serde_json::json;

use crate::table;

fn call(shipping: &Shipping, method: &str, path: &str, body: serde_json::Value) -> Result<serde_json::Value, String> {
    let response = shipping.handle(method, path, &body.to_string());
    let value: serde_json::Value = serde_json::from_str(&response.body).map_err(|e| format!("{method} {path}: unreadable answer: {e}"))?;
    if response.status >= 400 {
        return Err(format!("{method} {path} answered {}: {}", response.status, value["error"]));
    }
    Ok(value)
}

/// Runs the demo on a fresh database file at `db` (an old file there is replaced).
pub fn run(db: &str) -> Result<(), String> {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db}{suffix}"));
    }
    let shipping = Shipping::open(db).map_err(|e| e.to_string())?;
    println!("consign demo on {db} (a fresh database with the embedded default catalog)\n");

    let address = json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142"});
    let created = call(
        &shipping,
        "POST",
        "/restapi/v1/customers",
        json!({
            "profileCode": "Default", "email": "ann@leeceramics.example", "password": "glaze-and-fire",
            "mailingAddress": address, "billingAddress": address,
            "prepaySettings": {"minimumBalance": "50.00", "rechargeAmount": "200.00"}
        }),
    )?;
    let id = created["customerId"].as_str().ok_or("no customerId in the answer")?.to_string();
    println!("1. Created customer {id} (profile Default, prepay recharge 200.00 USD).");

    call(
        &shipping,
        "POST",
        &format!("/restapi/v1/customers/{id}/paymentMethod"),
        json!({
            "billingAddress": address,
            "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": "tok_demo_4f9a2c"}
        }),
    )?;
    println!("2. Stored a payment-method token (never card data).\n");

    let services: wire::ServicesResponse = shipping.list_services(&id).map_err(|e| e.to_string())?;
    let rows: Vec<Vec<String>> = services
        .services
        .iter()
        .map(|s| {
            let countries = match (&s.supported_countries, &s.unsupported_countries) {
                (Some(list), _) => list.join(" "),
                (_, Some(list)) => format!("all but {}", list.join(" ")),
                _ => String::new(),
            };
            vec![
                s.carrier_code.clone(),
                s.service_code.clone(),
                s.service_label.clone(),
                s.family.clone(),
                if s.inbound { "in" } else { "out" }.into(),
                s.package_types.len().to_string(),
                countries,
            ]
        })
        .collect();
    println!("3. Services offered ({}):", rows.len());
    println!("{}", table::render(&["carrier", "service", "label", "family", "dir", ">pkgs", "countries"], &rows));

    // Quote one shipment for every service, cheapest first.
    let today = shipping.clock().today();
    let shipment = json!({
        "shipmentDate": (today + chrono::Duration::days(1)).to_string(), "shipmentReference": "ORDER-1042",
        "contentDescription": "art books", "sender": address,
        "receiver": {"name": "Bo Kim", "company": "", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
            "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199"},
        "residential": true, "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": "3.5", "length": "12", "width": "10", "height": "8", "insuranceAmount": null, "declaredValue": null}]
    });
    let quoted = call(&shipping, "POST", &format!("/restapi/v1/customers/{id}/batch-quote"), json!({"shipments": [shipment.clone()]}))?;
    let mut quotes: Vec<serde_json::Value> = quoted["results"][0]["quotes"].as_array().cloned().unwrap_or_default();
    quotes.sort_by_key(|q| cents(&q["totalAmount"]));
    let rows: Vec<Vec<String>> = quotes
        .iter()
        .map(|q| {
            let text = |k: &str| q[k].as_str().unwrap_or("").to_string();
            let lines = q["surcharges"].as_array().map_or(0, Vec::len);
            let guaranteed = if q["deliveryDateGuaranteed"] == json!(true) { ", guaranteed" } else { "" };
            let arrives = match (q["estimatedDeliveryDate"].as_str(), q["transitDays"].as_u64()) {
                (Some(date), Some(1)) => format!("{date} (1 day{guaranteed})"),
                (Some(date), Some(days)) => format!("{date} ({days} days{guaranteed})"),
                _ => "-".to_string(),
            };
            vec![
                q["quoteId"].to_string(),
                text("carrierCode"),
                text("serviceDescription"),
                text("zone"),
                format!("{} {}", text("quotedWeight"), text("quotedWeightType")),
                q["baseAmount"].to_string(),
                lines.to_string(),
                q["totalAmount"].to_string(),
                arrives,
            ]
        })
        .collect();
    println!("4. Quotes for 3.5 lb, 12x10x8 in, Philadelphia PA -> Los Angeles CA (residential), cheapest first:");
    println!("{}", table::render(&[">quote", "carrier", "service", "zone", "weight", ">base", ">surcharges", ">total", "arrives"], &rows));

    // Book the cheapest quote at its price and write its label.
    let cheapest = quotes.first().ok_or("no service quoted the demo shipment")?;
    let mut booking = shipment.clone();
    for key in ["carrierCode", "serviceCode", "packageTypeCode", "quoteId"] {
        booking[key] = cheapest[key].clone();
    }
    booking["approvePrepayRecharge"] = json!(true);
    let booked = call(&shipping, "POST", &format!("/restapi/v1/customers/{id}/shipments"), booking)?;
    let book_number = booked["bookNumber"].as_str().ok_or("no bookNumber in the answer")?;
    println!(
        "5. Booked quote {} ({} {}): book number {book_number}, tracking number {}, zone {}, charged {} USD, arrives {}.",
        cheapest["quoteId"],
        cheapest["carrierCode"].as_str().unwrap_or(""),
        cheapest["serviceDescription"].as_str().unwrap_or(""),
        booked["trackingNumber"].as_str().unwrap_or(""),
        booked["zone"].as_str().unwrap_or(""),
        booked["totalShippingCost"],
        booked["estimatedDeliveryDate"].as_str().unwrap_or("(no estimate)")
    );
    let label = call(&shipping, "GET", &format!("/restapi/v1/customers/{id}/shipments/{book_number}/label/PDF"), json!(null))?;
    let dir = std::path::Path::new(db).parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    for (i, image) in label["base64Images"].as_array().into_iter().flatten().enumerate() {
        let bytes = STANDARD.decode(image.as_str().unwrap_or("")).map_err(|e| format!("the label is not base64: {e}"))?;
        let path = dir.join(format!("label-{book_number}-{}.pdf", i + 1));
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("   Label written to {}", path.display());
    }
    println!();

    let prepay = shipping.prepay(&id).map_err(|e| e.to_string())?;
    println!(
        "6. Prepay balance: {} {} (minimum {}, recharge {})",
        prepay.balance, prepay.currency, prepay.minimum_balance, prepay.recharge_amount
    );
    let rows: Vec<Vec<String>> = prepay
        .entries
        .iter()
        .map(|e| vec![e.id.to_string(), e.kind.clone(), e.amount.clone(), e.balance_after.clone(), e.reference.clone()])
        .collect();
    println!("{}", table::render(&[">entry", "kind", ">amount", ">balance", "reference"], &rows));

    // Search, tracking, a pickup and a manifest for the shipment just booked.
    crate::demo_deliver::run(&shipping, &id, book_number, dir, 7)?;
    Ok(())
}

/// Whole cents of a JSON money amount, for sorting (no floats).
fn cents(v: &serde_json::Value) -> i64 {
    let text = v.to_string();
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let frac = format!("{frac:0<2}");
    whole.parse::<i64>().unwrap_or(i64::MAX / 200) * 100 + frac.get(..2).and_then(|f| f.parse::<i64>().ok()).unwrap_or(0)
}
