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

/// A fresh in-memory service on a fixed clock.
pub struct Harness {
    /// The service under test.
    pub shipping: Shipping,
    /// Its clock, to move time.
    pub clock: Arc<FixedClock>,
}

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
        let shipping = Shipping::builder().clock(clock.clone()).open().expect("an in-memory database opens");
        Harness { shipping, clock }
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
