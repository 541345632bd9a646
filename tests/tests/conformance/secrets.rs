//! Secrets (passwords, payment tokens, provider account fields) never come back: not in
//! an error, whatever the type of the value sent; not in `Debug` of a request; and not
//! in the database when the service has a key (`ShippingBuilder::secret_key`).

use std::collections::BTreeMap;

use consign::{wire, ErrorCategory, Shipping};
use consign_conformance::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Where a secret goes in a request: the method, the path for customer `id`, and the
/// body with `value` in the secret's place.
fn placements(id: &str, value: &Value) -> Vec<(&'static str, String, Value)> {
    vec![
        ("POST", "/restapi/v1/customers".to_string(), with(customer_body("new@example.com"), "/password", value.clone())),
        ("POST", "/restapi/v1/connect-customer".to_string(), json!({"username": "ann@example.com", "password": value})),
        (
            "POST",
            Harness::path(id, "/paymentMethod"),
            with(payment_body("tok_1NqLx2Ab9zQ"), "/paymentMethod/processorCardTokenId", value.clone()),
        ),
        ("PUT", Harness::path(id, "/provider-accounts/parcel"), with(parcel_account("1X2Y3Z"), "/accountFields/password", value.clone())),
        (
            "PUT",
            Harness::path(id, "/provider-accounts/parcel"),
            with(parcel_account("1X2Y3Z"), "/accountFields/accountNumber", value.clone()),
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever its type, a secret's value is not repeated by the answer.
    #[test]
    fn no_answer_repeats_a_secret(digits in "[1-9][0-9]{9,18}", shape in 0usize..5) {
        let number: Value = serde_json::from_str(&digits).expect("digits are a JSON number");
        let value = match shape {
            0 => number,
            1 => json!(digits),
            2 => json!([digits]),
            3 => json!({"value": digits}),
            _ => json!(format!("tok {digits}")),
        };
        let h = Harness::new();
        let id = h.create_customer("ann@example.com");
        for (method, path, body) in placements(&id, &value) {
            let a = h.call(method, &path, &body);
            prop_assert!(!a.body.to_string().contains(&digits), "{method} {path} with {value} answers {} {}", a.status, a.body);
        }
    }
}

#[test]
fn debug_of_a_request_never_shows_its_secret() {
    let create: wire::CreateCustomerRequest = serde_json::from_value(customer_body("ann@example.com")).unwrap();
    let connect: wire::ConnectCustomerRequest =
        serde_json::from_value(json!({"username": "ann@example.com", "password": "glaze-and-fire"})).unwrap();
    let payment: wire::UpdatePaymentMethodRequest = serde_json::from_value(payment_body("tok_1NqLx2Ab9zQ")).unwrap();
    let account: wire::PutProviderAccountRequest = serde_json::from_value(parcel_account("1X2Y3Z")).unwrap();
    for (debug, secret) in [
        (format!("{create:?}"), "glaze-and-fire"),
        (format!("{connect:?}"), "glaze-and-fire"),
        (format!("{payment:?}"), "tok_1NqLx2Ab9zQ"),
        (format!("{account:?}"), "s3cret-pass"),
        (format!("{account:?}"), "AB12CD34EF56"),
    ] {
        assert!(!debug.contains(secret), "{debug}");
        assert!(debug.contains(consign::MASK), "{debug}");
    }
}

/// A service with `key` on `bytes` (a fresh database when empty), with a customer that
/// has a payment method and a provider account. Returns the service, customer and account.
fn shipper_with_secrets(key: Option<[u8; 32]>) -> (Shipping, String, String) {
    let mut builder = Shipping::builder();
    if let Some(key) = key {
        builder = builder.secret_key(key);
    }
    let s = builder.open().unwrap();
    let call = |method: &str, path: &str, body: Value| {
        let r = s.handle(method, path, &body.to_string());
        assert!(r.status < 300, "{method} {path}: {} {}", r.status, r.body);
        serde_json::from_str::<Value>(&r.body).unwrap()
    };
    let id = call("POST", "/restapi/v1/customers", customer_body("ann@example.com"))["customerId"].as_str().unwrap().to_string();
    call("POST", &Harness::path(&id, "/paymentMethod"), payment_body("tok_sealed_visa"));
    let account =
        call("PUT", &Harness::path(&id, "/provider-accounts/parcel"), parcel_account("1X2Y3Z"))["id"].as_str().unwrap().to_string();
    (s, id, account)
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

const SECRETS: [&str; 3] = ["tok_sealed_visa", "s3cret-pass", "AB12CD34EF56"];

#[test]
fn with_a_key_secrets_are_sealed_in_the_database_and_open_with_that_key() {
    let key = [42; 32];
    let (s, id, account) = shipper_with_secrets(Some(key));
    let image = s.export_database().unwrap();
    for secret in SECRETS {
        assert!(!contains(&image, secret), "{secret} is in the database image");
    }
    assert_eq!(s.payment_token(&id).unwrap().as_deref(), Some("tok_sealed_visa"));
    let fields = s.provider_account_fields(consign::CustomerId(&id), &account).unwrap();
    assert_eq!(fields.get("password").map(String::as_str), Some("s3cret-pass"));

    // The same image opened with the same key opens them; another key, or none, does not.
    let same = Shipping::builder().bytes(image.clone()).secret_key(key).open().unwrap();
    assert_eq!(same.payment_token(&id).unwrap().as_deref(), Some("tok_sealed_visa"));
    for other in
        [Shipping::builder().bytes(image.clone()).secret_key([7; 32]).open().unwrap(), Shipping::builder().bytes(image).open().unwrap()]
    {
        let e = other.payment_token(&id).unwrap_err();
        assert_eq!(e.category(), ErrorCategory::Internal);
        assert!(!e.to_string().contains("tok_sealed_visa"), "{e}");
        assert!(other.provider_account_fields(consign::CustomerId(&id), &account).is_err());
    }
}

#[test]
fn a_masked_field_keeps_its_sealed_value() {
    let (s, id, account) = shipper_with_secrets(Some([42; 32]));
    let edited = with(parcel_account("1X2Y3Z"), "/accountFields/password", json!(consign::MASK));
    let r = s.handle("PUT", &Harness::path(&id, "/provider-accounts/parcel"), &edited.to_string());
    assert_eq!(r.status, 201, "{}", r.body);
    let fields: BTreeMap<String, String> = s.provider_account_fields(consign::CustomerId(&id), &account).unwrap();
    assert_eq!(fields["password"], "s3cret-pass");
}

#[test]
fn without_a_key_secrets_are_stored_as_sent() {
    let (s, id, _) = shipper_with_secrets(None);
    let image = s.export_database().unwrap();
    for secret in SECRETS {
        assert!(contains(&image, secret), "{secret} is stored plain, as README and export_database say");
    }
    assert_eq!(s.payment_token(&id).unwrap().as_deref(), Some("tok_sealed_visa"));
}

#[test]
fn secrets_stored_before_a_key_stay_readable_and_seal_stored_secrets_seals_them() {
    let (plain, id, account) = shipper_with_secrets(None);
    assert_eq!(plain.seal_stored_secrets().unwrap(), 0, "nothing to seal with without a key");
    let keyed = Shipping::builder().bytes(plain.export_database().unwrap()).secret_key([42; 32]).open().unwrap();
    assert_eq!(keyed.payment_token(&id).unwrap().as_deref(), Some("tok_sealed_visa"), "a clear value reads as it is");
    assert_eq!(keyed.seal_stored_secrets().unwrap(), 5, "the token and the four account fields");
    let image = keyed.export_database().unwrap();
    for secret in SECRETS {
        assert!(!contains(&image, secret), "{secret} is still in the database image");
    }
    assert_eq!(keyed.payment_token(&id).unwrap().as_deref(), Some("tok_sealed_visa"));
    assert_eq!(keyed.provider_account_fields(consign::CustomerId(&id), &account).unwrap()["password"], "s3cret-pass");
    assert_eq!(keyed.seal_stored_secrets().unwrap(), 0, "sealed once");

    // Another key is refused before anything is written, naming no value.
    let other = Shipping::builder().bytes(image.clone()).secret_key([7; 32]).open().unwrap();
    let e = other.seal_stored_secrets().unwrap_err();
    assert_eq!(e.category(), ErrorCategory::Internal);
    assert!(e.message().contains("5 stored secrets do not open with this key"), "{e}");
    assert!(SECRETS.iter().all(|secret| !e.to_string().contains(secret)), "{e}");
    assert_eq!(other.export_database().unwrap(), image, "nothing written");
}

#[test]
fn a_masked_field_stored_in_clear_is_sealed_when_its_account_is_put_again() {
    let (plain, id, account) = shipper_with_secrets(None);
    let keyed = Shipping::builder().bytes(plain.export_database().unwrap()).secret_key([42; 32]).open().unwrap();
    let edited = with(parcel_account("1X2Y3Z"), "/accountFields/password", json!(consign::MASK));
    let r = keyed.handle("PUT", &Harness::path(&id, "/provider-accounts/parcel"), &edited.to_string());
    assert_eq!(r.status, 201, "{}", r.body);
    let image = keyed.export_database().unwrap();
    assert!(!contains(&image, "s3cret-pass"), "the kept password is sealed");
    assert_eq!(keyed.provider_account_fields(consign::CustomerId(&id), &account).unwrap()["password"], "s3cret-pass");
}
