//! `consign demo`: the main job on a fresh database with the embedded default catalog.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use consign::{wire, Shipping};
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::table;

mod after_booking;

/// Sends one request to `shipping` (a null `body` as none) and reads its JSON answer; an
/// answer of 400 or more is an error naming the request and the answer's `error`.
fn call(shipping: &Shipping, method: &str, path: &str, body: &Value) -> Result<Value, String> {
    let text = if body.is_null() { String::new() } else { body.to_string() };
    let response = shipping.handle(method, path, &text);
    let value: Value = serde_json::from_str(&response.body).map_err(|e| format!("{method} {path}: unreadable answer: {e}"))?;
    if response.status >= 400 {
        return Err(format!("{method} {path} answered {}: {}", response.status, value["error"]));
    }
    Ok(value)
}

/// The folder the demo works in without `--db`: `target/consign-demo` under the current
/// directory, else the first of `target/consign-demo-2`, `-3`, ... that does not exist.
fn fresh_folder() -> Result<PathBuf, String> {
    let base = Path::new("target");
    (1..10_000)
        .map(|n| base.join(if n == 1 { "consign-demo".to_string() } else { format!("consign-demo-{n}") }))
        .find(|dir| !dir.exists())
        .ok_or_else(|| format!("no free folder consign-demo-N under {}; remove the old ones", base.display()))
}

/// Writes `bytes` to `path`, a file the demo makes: an existing one only with `force`.
pub fn write_new(path: &Path, bytes: &[u8], force: bool) -> Result<(), String> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let mut file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => format!("{} exists; the demo replaces files only with --force", path.display()),
        _ => format!("cannot write {}: {e}", path.display()),
    })?;
    file.write_all(bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Runs the demo on a fresh database: the file `db`, else `demo.db` in a new folder under
/// `target/`; the PDFs go beside it. An existing database or PDF is replaced only with
/// `force`.
pub fn run(db: Option<PathBuf>, force: bool) -> Result<(), String> {
    let db = match db {
        Some(db) => db,
        None => {
            let dir = fresh_folder()?;
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            dir.join("demo.db")
        }
    };
    if db.exists() && !force {
        return Err(format!("{} exists; the demo starts from a fresh database and replaces one only with --force", db.display()));
    }
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let dir = db.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let shipping = Shipping::open(&db).map_err(|e| e.to_string())?;
    println!("consign demo on {} (a fresh database with the embedded default catalog)\n", db.display());

    let address = json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142"});
    let created = call(
        &shipping,
        "POST",
        "/restapi/v1/customers",
        &json!({
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
        &json!({
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
    let quoted = call(&shipping, "POST", &format!("/restapi/v1/customers/{id}/batch-quote"), &json!({"shipments": [shipment.clone()]}))?;
    let mut quotes: Vec<Value> = quoted["results"][0]["quotes"].as_array().cloned().unwrap_or_default();
    quotes.sort_by_key(|q| cents(&q["totalAmount"]));
    let rows: Vec<Vec<String>> = quotes
        .iter()
        .map(|q| {
            let text = |k: &str| q[k].as_str().unwrap_or("").to_string();
            let surcharges: i64 = q["surcharges"].as_array().into_iter().flatten().map(|s| cents(&s["amount"])).sum();
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
                format!("{} lb ({})", text("quotedWeight"), text("quotedWeightType").to_lowercase()),
                money(cents(&q["baseAmount"])),
                money(surcharges),
                money(cents(&q["totalAmount"])),
                arrives,
            ]
        })
        .collect();
    println!("4. Quotes for 3.5 lb, 12x10x8 in, Philadelphia PA -> Los Angeles CA (residential), cheapest first:");
    println!(
        "{}",
        table::render(
            &[">quote", "carrier", "service", "zone", "billed weight", ">base USD", ">surcharges USD", ">total USD", "arrives"],
            &rows
        )
    );

    // Book the cheapest quote at its price and write its label.
    let cheapest = quotes.first().ok_or("no service quoted the demo shipment")?;
    let mut booking = shipment.clone();
    for key in ["carrierCode", "serviceCode", "packageTypeCode", "quoteId"] {
        booking[key] = cheapest[key].clone();
    }
    booking["approvePrepayRecharge"] = json!(true);
    let booked = call(&shipping, "POST", &format!("/restapi/v1/customers/{id}/shipments"), &booking)?;
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
    let label = call(&shipping, "GET", &format!("/restapi/v1/customers/{id}/shipments/{book_number}/label/PDF"), &Value::Null)?;
    for (i, image) in label["base64Images"].as_array().into_iter().flatten().enumerate() {
        let bytes = STANDARD.decode(image.as_str().unwrap_or("")).map_err(|e| format!("the label is not base64: {e}"))?;
        let path = dir.join(format!("label-{book_number}-{}.pdf", i + 1));
        write_new(&path, &bytes, force)?;
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
    println!("{}", table::render(&[">entry", "kind", ">amount USD", ">balance USD", "reference"], &rows));

    // Search, tracking, a pickup and a manifest for the shipment just booked.
    after_booking::run(&shipping, &id, book_number, &dir, force, 7)?;
    println!(
        "\nThe database is {} and the PDFs are in {}; look further with `consign call GET /restapi/v1/customers/{id}/prepay --db {}`.",
        db.display(),
        dir.display(),
        db.display()
    );
    Ok(())
}

/// Whole cents of a JSON money amount (a number or a decimal string), for sums and
/// sorting without floats; an amount that is not money sorts last.
fn cents(v: &Value) -> i64 {
    let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let frac = format!("{frac:0<2}");
    let (Ok(whole), Some(Ok(frac))) = (whole.parse::<i64>(), frac.get(..2).map(str::parse::<i64>)) else {
        return i64::MAX / 2;
    };
    let amount = whole.saturating_mul(100).saturating_add(frac);
    if negative {
        -amount
    } else {
        amount
    }
}

/// `cents` written as money with two decimals: `1181` is `11.81`.
fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.unsigned_abs() / 100, cents.unsigned_abs() % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_summed_in_cents_and_written_with_two_decimals() {
        assert_eq!(cents(&json!(5.95)) + cents(&json!("5.86")), 1181);
        assert_eq!(money(1181), "11.81");
        assert_eq!(money(cents(&json!(25.7))), "25.70");
        assert_eq!(money(cents(&json!(-6.41))), "-6.41");
        assert_eq!(money(0), "0.00");
    }
}
