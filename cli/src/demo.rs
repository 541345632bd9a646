//! `consign demo`: the main job on a fresh database with the embedded default catalog.

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

    let prepay = shipping.prepay(&id).map_err(|e| e.to_string())?;
    println!(
        "4. Prepay balance: {} {} (minimum {}, recharge {})",
        prepay.balance, prepay.currency, prepay.minimum_balance, prepay.recharge_amount
    );
    let rows: Vec<Vec<String>> = prepay
        .entries
        .iter()
        .map(|e| vec![e.id.to_string(), e.kind.clone(), e.amount.clone(), e.balance_after.clone(), e.reference.clone()])
        .collect();
    println!("{}", table::render(&[">entry", "kind", ">amount", ">balance", "reference"], &rows));

    // Issue 5 books its own shipment until the booking step of issue 4 is merged; then
    // pass that step's book number and number these steps after it.
    let booking = json!({
        "carrierCode": "postal", "serviceCode": "postal_priority_mail", "packageTypeCode": "postal_custom",
        "shipmentDate": shipping.clock().today().to_string(), "shipmentReference": "INV-1001", "contentDescription": "ceramics",
        "sender": address,
        "receiver": {"name": "Bo Kim", "company": "Kim Studio", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
            "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199", "email": "bo@kimstudio.example"},
        "weightUnit": "lb", "dimUnit": "in", "currency": "USD", "approvePrepayRecharge": true,
        "pieces": [{"weight": "3.5", "length": "12", "width": "10", "height": "8", "insuranceAmount": null, "declaredValue": null}]
    });
    let booked = call(&shipping, "POST", &format!("/restapi/v1/customers/{id}/shipments"), booking)?;
    let book_number = booked["bookNumber"].as_str().ok_or("no bookNumber in the answer")?;
    println!("5. Booked shipment {book_number} (postal Priority Mail to Los Angeles).\n");
    let dir = std::path::Path::new(db).parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    crate::demo_deliver::run(&shipping, &id, book_number, dir, 6)?;
    Ok(())
}
