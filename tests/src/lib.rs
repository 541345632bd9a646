//! Support for the conformance suite: a service on a fixed clock, request builders, and
//! assertions on the error body of DECISIONS 2.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

use std::sync::Arc;

use consign::{FixedClock, Shipping};
use serde_json::{json, Value};

/// The instant every test starts at: Saturday 2026-11-21, 15:00 UTC.
pub const NOW: &str = "2026-11-21T15:00:00Z";
/// "Today" at [`NOW`].
pub const TODAY: &str = "2026-11-21";

/// A fresh service on a fixed clock: in memory, or in a fresh PostgreSQL database of its
/// own when `CONSIGN_TEST_PG` names a server (see [`backend`]).
pub struct Harness {
    /// The service under test.
    pub shipping: Shipping,
    /// Its clock, to move time.
    pub clock: Arc<FixedClock>,
    /// The PostgreSQL database it runs on, dropped with it.
    pub database: Option<backend::TestDatabase>,
}

pub mod backend;

/// A status and parsed JSON body.
#[derive(Debug, Clone)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// JSON body.
    pub body: Value,
}

impl Answer {
    /// Asserts the status, the errorCategory and, if given, that `details` names `field`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, category: &str, field: Option<&str>) {
        assert_eq!(self.status, status, "status of {}", self.body);
        assert_eq!(self.body["errorCategory"], category, "errorCategory of {}", self.body);
        assert!(self.body["error"].as_str().is_some_and(|e| !e.is_empty()), "error sentence of {}", self.body);
        if let Some(field) = field {
            let fields: Vec<&str> = self.body["details"].as_array().into_iter().flatten().filter_map(|d| d["field"].as_str()).collect();
            assert!(fields.contains(&field), "expected a detail for {field}, found {fields:?} in {}", self.body);
        }
    }

    /// Asserts an error body without `details`: the failure is not about a field.
    #[track_caller]
    pub fn assert_error_without_details(&self, status: u16, category: &str) {
        self.assert_error(status, category, None);
        assert!(self.body.get("details").is_none(), "no details expected in {}", self.body);
    }

    /// The field paths named in `details`.
    pub fn fields(&self) -> Vec<String> {
        self.body["details"].as_array().into_iter().flatten().filter_map(|d| d["field"].as_str()).map(str::to_string).collect()
    }

    /// Asserts the status and returns the body.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Value {
        assert_eq!(self.status, status, "status of {}", self.body);
        &self.body
    }
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    /// A fresh service at [`NOW`].
    pub fn new() -> Harness {
        let clock = Arc::new(FixedClock::at(NOW).expect("NOW is RFC 3339"));
        Harness::with(Shipping::builder().clock(clock.clone()), clock)
    }

    /// A fresh service opened from `builder` (whose clock is `clock`): on the database
    /// [`backend::fresh`] gives.
    pub fn with(builder: consign::ShippingBuilder, clock: Arc<FixedClock>) -> Harness {
        let (builder, database) = backend::fresh(builder);
        let shipping = builder.open().expect("a fresh database opens");
        Harness { shipping, clock, database }
    }

    /// One request; the body is sent as JSON text (`Value::Null` sends an empty body).
    pub fn call(&self, method: &str, path: &str, body: &Value) -> Answer {
        let text = if body.is_null() { String::new() } else { body.to_string() };
        self.raw(method, path, &text)
    }

    /// One request with a body given as raw text.
    pub fn raw(&self, method: &str, path: &str, body: &str) -> Answer {
        let r = self.shipping.handle(method, path, body);
        let body = serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("answer is not JSON ({e}): {}", r.body));
        Answer { status: r.status, body }
    }

    /// Creates a customer from `body` and returns its id (asserting 201).
    #[track_caller]
    pub fn create_customer_with(&self, body: &Value) -> String {
        let a = self.call("POST", "/restapi/v1/customers", body);
        a.expect(201)["customerId"].as_str().expect("customerId is a string").to_string()
    }

    /// Creates a customer with [`customer_body`] for `email`.
    #[track_caller]
    pub fn create_customer(&self, email: &str) -> String {
        self.create_customer_with(&customer_body(email))
    }

    /// `GET` without a body.
    pub fn get(&self, path: &str) -> Answer {
        self.raw("GET", path, "")
    }

    /// `DELETE` without a body.
    pub fn delete(&self, path: &str) -> Answer {
        self.raw("DELETE", path, "")
    }

    /// Creates a customer of profile `profile` for `email`.
    #[track_caller]
    pub fn create_customer_of_profile(&self, email: &str, profile: &str) -> String {
        self.create_customer_with(&with(customer_body(email), "/profileCode", json!(profile)))
    }

    /// `GET .../services` of `id`, as the `services` array (asserting 200).
    #[track_caller]
    pub fn services(&self, id: &str) -> Vec<Value> {
        let a = self.get(&Harness::path(id, "/services"));
        a.expect(200)["services"].as_array().expect("services is an array").clone()
    }

    /// `/restapi/v1/customers/{id}{tail}`.
    pub fn path(id: &str, tail: &str) -> String {
        format!("/restapi/v1/customers/{id}{tail}")
    }
}

/// A complete US address (every field of 2.1).
pub fn us_address() -> Value {
    json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "Suite 4",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142",
        "email": "ann@leeceramics.example"})
}

/// A complete Canadian address (Ontario, Ottawa).
pub fn ca_address() -> Value {
    json!({"name": "Luc Roy", "company": "", "address1": "111 Wellington St", "address2": "",
        "city": "Ottawa", "state": "ON", "zip": "K1A 0A9", "country": "CA", "phone": "613-555-0199"})
}

/// A complete address outside North America (London).
pub fn gb_address() -> Value {
    json!({"name": "Ada Byron", "company": "Engines Ltd", "address1": "10 Downing St", "address2": "",
        "city": "London", "state": "", "zip": "SW1A 2AA", "country": "GB", "phone": "+44 20 7946 0958"})
}

/// A valid create-customer body for `email`.
pub fn customer_body(email: &str) -> Value {
    json!({
        "profileCode": "Default", "email": email, "password": "glaze-and-fire",
        "franchiseId": "PHL", "mailingAddress": us_address(), "billingAddress": us_address(),
        "prepaySettings": {"minimumBalance": "50.00", "rechargeAmount": "200.00"},
        "salesRep": "Jo", "utm": {"source": "newsletter"}, "monthlyVolume": "100-500"
    })
}

/// A valid update-payment-method body.
pub fn payment_body(token: &str) -> Value {
    let mut billing = us_address();
    if let Some(b) = billing.as_object_mut() {
        b.remove("phone");
        b.remove("email");
    }
    json!({"billingAddress": billing, "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": token}})
}

/// `value` with the JSON pointer `pointer` set to `new` (creating nothing: the parent must exist).
pub fn with(mut value: Value, pointer: &str, new: Value) -> Value {
    if let Some(slot) = value.pointer_mut(pointer) {
        *slot = new;
    } else if let Some((parent, key)) = pointer.rsplit_once('/') {
        if let Some(obj) = value.pointer_mut(parent).and_then(Value::as_object_mut) {
            obj.insert(key.to_string(), new);
        }
    }
    value
}

/// `value` without the field at `pointer`.
pub fn without(mut value: Value, pointer: &str) -> Value {
    if let Some((parent, key)) = pointer.rsplit_once('/') {
        if let Some(obj) = value.pointer_mut(parent).and_then(Value::as_object_mut) {
            obj.remove(key);
        }
    }
    value
}

/// A date `days` after [`TODAY`], as `YYYY-MM-DD`.
pub fn days_ahead(days: i64) -> String {
    let today = chrono::NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").expect("TODAY is a date");
    (today + chrono::Duration::days(days)).to_string()
}

/// A domestic shipment to quote: Philadelphia to Los Angeles, one 2 lb box 10x8x6 in.
pub fn quote_shipment() -> Value {
    json!({
        "shipmentDate": days_ahead(2), "shipmentReference": "INV-1001", "contentDescription": "ceramics",
        "sender": us_address(),
        "receiver": {"name": "Bo Kim", "company": "", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
            "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199", "email": ""},
        "residential": false, "signatureOptionCode": null, "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]
    })
}

/// An international shipment to quote: Philadelphia to London, one 1.2 kg box 30x20x10 cm.
pub fn intl_shipment() -> Value {
    json!({
        "shipmentDate": days_ahead(2), "shipmentReference": "INV-2001", "contentDescription": "ceramics",
        "sender": us_address(),
        "receiver": {"name": "Jo Smith", "company": "Smith & Co", "address1": "1 High St", "address2": "", "city": "London",
            "state": "", "zip": "SW1A 1AA", "country": "GB", "phone": "+44 20 7946 0958"},
        "weightUnit": "kg", "dimUnit": "cm", "currency": "USD",
        "pieces": [{"weight": "1.2", "length": "30", "width": "20", "height": "10", "insuranceAmount": null, "declaredValue": "80"}]
    })
}

/// A commercial invoice with one item of `weight` (in the shipment's unit).
pub fn invoice(weight: &str) -> Value {
    json!({
        "sendElectronically": true, "ftrNumber": null, "itnNumber": null, "aesNumber": null, "termsOfTrade": "DAP",
        "receiverTaxId": "GB123", "senderVatTaxId": "12-3456789", "packageMarks": "1/1",
        "items": [{"description": "Stoneware mug", "quantity": 4, "unitValue": "20.00", "weight": weight, "htsNumber": "6912.00", "countryOfOrigin": "US"}]
    })
}

impl Harness {
    /// Batch quote of `shipments` for customer `id`.
    pub fn batch_quote(&self, id: &str, shipments: Vec<Value>) -> Answer {
        self.call("POST", &Self::path(id, "/batch-quote"), &json!({ "shipments": shipments }))
    }

    /// The one result of a batch quote of `shipment` (asserting 200).
    #[track_caller]
    pub fn quote_one(&self, id: &str, shipment: Value) -> Value {
        let a = self.batch_quote(id, vec![shipment]);
        a.expect(200)["results"][0].clone()
    }
}

/// Asserts a shipment result is an error of `category` naming `field`.
#[track_caller]
pub fn assert_shipment_error(result: &Value, category: &str, field: &str) {
    assert_eq!(result["status"], "error", "{result}");
    assert_eq!(result["errorCategory"], category, "{result}");
    assert!(result["error"].as_str().is_some_and(|e| !e.is_empty()), "{result}");
    assert!(result.get("quotes").is_none() && result.get("quoteErrors").is_none(), "an error result carries no quotes: {result}");
    let fields: Vec<&str> = result["details"].as_array().into_iter().flatten().filter_map(|d| d["field"].as_str()).collect();
    assert!(fields.contains(&field), "expected {field} in {fields:?}: {result}");
}

/// The quote errors of a result for services of `carrier`.
pub fn quote_errors_of<'a>(result: &'a Value, carrier: &str) -> Vec<&'a Value> {
    result["quoteErrors"].as_array().into_iter().flatten().filter(|e| e["carrierCode"] == carrier).collect()
}

/// The quotes of a result for services of `carrier`.
pub fn quotes_of<'a>(result: &'a Value, carrier: &str) -> Vec<&'a Value> {
    result["quotes"].as_array().into_iter().flatten().filter(|q| q["carrierCode"] == carrier).collect()
}

/// The account fields of a carrier A (`parcel`) provider account, as in 2.11.
pub fn parcel_account(account_number: &str) -> Value {
    json!({"accountFields": {"accountNumber": account_number, "userId": "lee-shipping", "password": "s3cret-pass", "accessLicenceNumber": "AB12CD34EF56"}})
}

/// One integrated quoting option (4.8).
pub fn quoting_option(name: &str, carrier: &str, service: &str, package_type: &str) -> Value {
    json!({"name": name, "carrierCode": carrier, "serviceCode": service, "packageTypeCode": package_type})
}

/// A receiver in Los Angeles with every field of 2.1.
pub fn la_address() -> Value {
    json!({"name": "Bo Kim", "company": "Kim Studio", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
        "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199", "email": "bo@kimstudio.example"})
}

/// A valid booking (4.5): postal Priority Mail, Philadelphia to Los Angeles, one 2 lb box
/// with all six piece keys, automatic recharge approved.
pub fn book_body() -> Value {
    json!({
        "carrierCode": "postal", "serviceCode": "postal_priority_mail", "packageTypeCode": "postal_custom",
        "shipmentDate": days_ahead(1), "shipmentReference": "INV-1001", "shipmentReference2": "PO-77",
        "contentDescription": "ceramics", "orderNumber": "SO-5001",
        "sender": us_address(), "receiver": la_address(), "residential": false, "signatureOptionCode": null,
        "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}],
        "approvePrepayRecharge": true
    })
}

/// A booking of `carrier`/`service`/`package` otherwise as [`book_body`].
pub fn book_body_for(carrier: &str, service: &str, package: &str) -> Value {
    let b = with(book_body(), "/carrierCode", json!(carrier));
    let b = with(b, "/serviceCode", json!(service));
    with(b, "/packageTypeCode", json!(package))
}

impl Harness {
    /// A customer with a payment method on file, so bookings can recharge.
    #[track_caller]
    pub fn shipper(&self, email: &str) -> String {
        let id = self.create_customer(email);
        self.call("POST", &Self::path(&id, "/paymentMethod"), &payment_body("tok_1NqLx2")).expect(200);
        id
    }

    /// Books `body` for customer `id`.
    pub fn book_with(&self, id: &str, body: &Value) -> Answer {
        self.call("POST", &Self::path(id, "/shipments"), body)
    }

    /// Books `body` and returns the book number (asserting 201).
    #[track_caller]
    pub fn book(&self, id: &str, body: &Value) -> String {
        let a = self.book_with(id, body);
        a.expect(201)["bookNumber"].as_str().expect("bookNumber is a string").to_string()
    }

    /// Voids shipment `book` (asserting 200).
    #[track_caller]
    pub fn void(&self, id: &str, book: &str) {
        self.call("POST", &Self::path(id, &format!("/shipments/{book}")), &json!({"voided": true})).expect(200);
    }

    /// Searches `keyword` for customer `id`.
    pub fn search(&self, id: &str, keyword: &str) -> Answer {
        self.call("POST", &Self::path(id, "/searchShipments"), &json!({ "keyword": keyword }))
    }

    /// The book numbers a search finds (asserting 200), in answer order.
    #[track_caller]
    pub fn found(&self, id: &str, keyword: &str) -> Vec<String> {
        let a = self.search(id, keyword);
        a.expect(200)["shipments"].as_array().expect("shipments").iter().map(|s| s["bookNumber"].as_str().unwrap().to_string()).collect()
    }

    /// Creates an integration for customer `id` and returns its id.
    #[track_caller]
    pub fn integration(&self, id: &str) -> String {
        let a = self.call("POST", &Self::path(id, "/integrations"), &json!({"name": "Web shop"}));
        a.expect(201)["integrationId"].as_str().unwrap().to_string()
    }
}

/// A valid put-order body (4.2) for `order_id`, every key present, two lines.
pub fn order_body(order_id: &str) -> Value {
    json!({
        "orderId": order_id, "orderDate": TODAY, "orderNumber": "SO-5001", "fulfillmentStatus": "pending",
        "shippingService": "Priority", "shipperReference": null, "shipperReference2": null, "contentDescription": "ceramics",
        "shippingTotal": "9.50", "weightUnit": "lb", "dimUnit": "in", "dueByDate": days_ahead(5), "orderGroup": null,
        "sender": us_address(), "receiver": la_address(),
        "returnTo": {"name": "Returns", "city": "Philadelphia"},
        "items": [
            {"productId": "P-1", "sku": "MUG-BLUE", "title": "Blue mug", "price": "18.00", "quantity": 2, "weight": "0.8",
             "imgUrl": null, "htsNumber": "6912.00", "countryOfOrigin": "US", "lineId": "L1", "pickLocation": "A3"},
            {"productId": "P-2", "sku": "BOWL", "title": "Bowl", "price": 24, "quantity": 1, "weight": null,
             "imgUrl": null, "htsNumber": null, "countryOfOrigin": null, "lineId": "L2", "pickLocation": null}
        ],
        "packages": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]
    })
}

/// A valid schedule-pickup body (4.7) of `carrier` for `books`.
pub fn pickup_body(carrier: &str, books: &[&str]) -> Value {
    json!({
        "carrierCode": carrier, "pickupDate": days_ahead(1), "readyTime": "09:00:00", "closeTime": "17:00:00",
        "bookNumbers": books, "name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "Suite 4",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142",
        "residential": false, "specialInstructions": "Ring the bell"
    })
}

/// A valid create-manifest body (4.10) of `carrier` for `books`.
pub fn manifest_body(carrier: &str, books: &[&str]) -> Value {
    json!({
        "carrierCode": carrier, "bookNumbers": books, "name": "Ann Lee", "company": "Lee Ceramics",
        "address1": "200 Market St", "address2": "Suite 4", "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US"
    })
}

/// 500 international shipments of 10 pieces with 10 line items each and a 100-item
/// commercial invoice, every text at its carrier's longest: the largest request the
/// body limit is set for (`docs/DECISIONS.md`, "Limits"), shipped on `shipment_date`.
pub fn largest_legitimate_batch(shipment_date: &str) -> String {
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
        "shipmentDate": shipment_date, "shipmentReference": "R".repeat(100), "contentDescription": "T".repeat(100),
        "sender": address("US", "19106", "PA", "(215) 555-0142"), "receiver": address("GB", "SW1A 1AA", "", "+44 20 7946 0958"), "residential": false,
        "signatureOptionCode": null, "saturdayDelivery": false, "weightUnit": "kg", "dimUnit": "cm", "currency": "USD",
        "pieces": vec![piece; 10], "billing": {"party": "sender"}, "commercialInvoice": invoice});
    json!({"shipments": vec![shipment; 500]}).to_string()
}

/// An event of the Rust carrier feed (`Shipping::record_tracking_event`): `status` at
/// `time` (`YYYY-MM-DD HH:MM:SS`) in Memphis.
pub fn carrier_event(status: &str, time: &str) -> consign::wire::CarrierEvent {
    consign::wire::CarrierEvent {
        event: "Arrived at facility".into(),
        event_status: status.into(),
        event_time: time.into(),
        service_area: "Memphis, TN".into(),
        service_area_country: "US".into(),
    }
}
