//! 4.11 List provider accounts, with the PUT and DELETE that manage them.

use consign_conformance::*;
use serde_json::{json, Value};

fn put(h: &Harness, id: &str, provider: &str, body: &Value) -> Answer {
    h.call("PUT", &Harness::path(id, &format!("/provider-accounts/{provider}")), body)
}

fn list(h: &Harness, id: &str) -> Vec<Value> {
    h.get(&Harness::path(id, "/provider-accounts")).expect(200)["providerAccounts"].as_array().cloned().unwrap_or_default()
}

fn delete(h: &Harness, id: &str, account: &str) -> Answer {
    h.delete(&Harness::path(id, &format!("/provider-accounts/{account}")))
}

/// Creates a parcel account and returns its id.
fn add(h: &Harness, id: &str, number: &str) -> String {
    put(h, id, "parcel", &parcel_account(number)).expect(201)["id"].as_str().unwrap_or_default().to_string()
}

fn masked_parcel_fields() -> Value {
    json!({"accountNumber": MASK, "userId": MASK, "password": MASK, "accessLicenceNumber": MASK})
}

const MASK: &str = consign::MASK;

#[test]
fn a_new_customer_has_no_provider_accounts() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    assert!(list(&h, &id).is_empty());
}

#[test]
fn put_creates_an_account_with_201_and_masked_fields() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let body = put(&h, &id, "parcel", &parcel_account("1X2Y3Z")).expect(201).clone();
    assert!(body["id"].as_str().is_some_and(|s| !s.is_empty()), "{body}");
    assert_eq!(body["providerCode"], "parcel");
    assert_eq!(body["accountFields"], masked_parcel_fields());
}

#[test]
fn the_mask_is_a_fixed_run_of_asterisks_whatever_the_length() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let long = "k".repeat(150);
    let body = json!({"accountFields": {"accountNumber": "9", "userId": "ab", "password": long, "accessLicenceNumber": "AB12CD34EF56"}});
    let answer = put(&h, &id, "parcel", &body);
    let fields = answer.expect(201)["accountFields"].as_object().cloned().unwrap_or_default();
    assert!(!MASK.is_empty() && MASK.chars().all(|c| c == '*'), "{MASK}");
    assert_eq!(fields.len(), 4);
    assert!(fields.values().all(|v| v == MASK), "{fields:?}");
}

#[test]
fn list_shows_the_accounts_masked_and_never_a_clear_value() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let account = add(&h, &id, "1X2Y3Z");
    let a = h.get(&Harness::path(&id, "/provider-accounts"));
    assert_eq!(
        a.expect(200)["providerAccounts"],
        json!([{"id": account, "providerCode": "parcel", "accountFields": masked_parcel_fields()}])
    );
    let text = a.body.to_string();
    for secret in ["1X2Y3Z", "lee-shipping", "s3cret-pass", "AB12CD34EF56"] {
        assert!(!text.contains(secret), "{secret} shown in {text}");
    }
}

#[test]
fn carrier_d_accounts_take_the_fields_of_the_spec() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let body = json!({"accountFields": {"accountNumber": "510087", "key": "kkk", "password": "ppp", "meterNumber": "118"}});
    let a = put(&h, &id, "expressground", &body);
    assert_eq!(a.expect(201)["accountFields"], json!({"accountNumber": MASK, "key": MASK, "password": MASK, "meterNumber": MASK}));
}

#[test]
fn unknown_fields_beside_account_fields_are_ignored() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let body = with(parcel_account("1X2Y3Z"), "/nickname", json!("main"));
    assert_eq!(put(&h, &id, "parcel", &body).expect(201)["accountFields"], masked_parcel_fields());
}

#[test]
fn a_field_the_provider_does_not_have_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let body = with(parcel_account("1X2Y3Z"), "/accountFields/meterNumber", json!("118"));
    put(&h, &id, "parcel", &body).assert_error(400, "INVALID_REQUEST", Some("accountFields.meterNumber"));
}

#[test]
fn a_missing_field_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let body = without(parcel_account("1X2Y3Z"), "/accountFields/accessLicenceNumber");
    put(&h, &id, "parcel", &body).assert_error(400, "INVALID_REQUEST", Some("accountFields.accessLicenceNumber"));
}

#[test]
fn an_empty_field_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let body = with(parcel_account("1X2Y3Z"), "/accountFields/password", json!(" "));
    put(&h, &id, "parcel", &body).assert_error(400, "INVALID_REQUEST", Some("accountFields.password"));
}

#[test]
fn a_field_of_the_wrong_type_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let body = with(parcel_account("1X2Y3Z"), "/accountFields/password", json!(1234));
    put(&h, &id, "parcel", &body).assert_error(400, "INVALID_REQUEST", Some("accountFields.password"));
}

#[test]
fn account_fields_that_are_not_an_object_are_refused_as_such() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let answer = put(&h, &id, "parcel", &json!({"accountFields": ["1X2Y3Z"]}));
    answer.assert_error(400, "INVALID_REQUEST", Some("accountFields"));
    assert_eq!(answer.body["details"][0]["message"], "must be an object of text fields", "{}", answer.body);
    assert!(!answer.body.to_string().contains("1X2Y3Z"), "no value comes back: {}", answer.body);
}

#[test]
fn a_body_without_account_fields_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, "parcel", &json!({"accountNumber": "1X2Y3Z"})).assert_error(400, "INVALID_REQUEST", Some("accountFields"));
}

#[test]
fn an_unknown_provider_is_not_found() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, "pigeon", &parcel_account("1X2Y3Z")).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn a_refused_put_creates_nothing() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    put(&h, &id, "parcel", &without(parcel_account("1X2Y3Z"), "/accountFields/password")).assert_error(400, "INVALID_REQUEST", None);
    assert!(list(&h, &id).is_empty());
}

#[test]
fn delete_removes_the_account() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let keep = add(&h, &id, "1X2Y3Z");
    let gone = add(&h, &id, "4W5V6U");
    assert_eq!(delete(&h, &id, &gone).expect(200), &json!({"ok": true}));
    let ids: Vec<Value> = list(&h, &id).iter().map(|a| a["id"].clone()).collect();
    assert_eq!(ids, vec![json!(keep)]);
}

#[test]
fn deleting_twice_is_not_found() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let account = add(&h, &id, "1X2Y3Z");
    delete(&h, &id, &account).expect(200);
    delete(&h, &id, &account).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn deleting_an_unknown_account_is_not_found() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    delete(&h, &id, "PA9999999").assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn deleting_another_customer_s_account_is_not_found_and_keeps_it() {
    let h = Harness::new();
    let ann = h.create_customer("ann@example.com");
    let bob = h.create_customer("bob@example.com");
    let account = add(&h, &ann, "1X2Y3Z");
    delete(&h, &bob, &account).assert_error_without_details(404, "NOT_FOUND");
    assert_eq!(list(&h, &ann).len(), 1);
    assert!(list(&h, &bob).is_empty());
}

#[test]
fn putting_the_same_account_number_again_replaces_it() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let first = add(&h, &id, "1X2Y3Z");
    let again = with(parcel_account("1X2Y3Z"), "/accountFields/password", json!("rotated-pass"));
    let a = put(&h, &id, "parcel", &again);
    assert_eq!(a.expect(201)["id"], first.as_str());
    let accounts = list(&h, &id);
    assert_eq!(accounts.len(), 1, "{accounts:?}");
    assert_eq!(accounts[0]["id"], first.as_str());
}

#[test]
fn another_account_number_is_another_account() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let first = add(&h, &id, "1X2Y3Z");
    let second = add(&h, &id, "4W5V6U");
    assert_ne!(first, second);
    assert_eq!(list(&h, &id).len(), 2);
}

#[test]
fn the_same_account_number_of_two_customers_is_two_accounts() {
    let h = Harness::new();
    let ann = h.create_customer("ann@example.com");
    let bob = h.create_customer("bob@example.com");
    assert_ne!(add(&h, &ann, "1X2Y3Z"), add(&h, &bob, "1X2Y3Z"));
    assert_eq!(list(&h, &ann).len(), 1);
    assert_eq!(list(&h, &bob).len(), 1);
}

#[test]
fn the_accounts_of_an_unknown_customer_are_not_found() {
    let h = Harness::new();
    h.get(&Harness::path("C9999999", "/provider-accounts")).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn putting_an_account_for_an_unknown_customer_is_not_found() {
    let h = Harness::new();
    put(&h, "C9999999", "parcel", &parcel_account("1X2Y3Z")).assert_error_without_details(404, "NOT_FOUND");
}

// ---------------------------------------------------------------------------
// The mask: what list shows, sent back, keeps the stored value
// ---------------------------------------------------------------------------

/// The stored fields of the customer's only account, in clear.
fn stored(h: &Harness, id: &str, account: &str) -> serde_json::Map<String, Value> {
    let fields = h.shipping.provider_account_fields(consign::CustomerId(id), account).unwrap();
    fields.into_iter().map(|(k, v)| (k, json!(v))).collect()
}

#[test]
fn a_masked_password_keeps_the_stored_one() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let account = add(&h, &id, "1X2Y3Z");
    let edited = with(parcel_account("1X2Y3Z"), "/accountFields/password", json!(MASK));
    let edited = with(edited, "/accountFields/userId", json!("lee-shipping-2"));
    assert_eq!(put(&h, &id, "parcel", &edited).expect(201)["id"], account.as_str());
    let fields = stored(&h, &id, &account);
    assert_eq!(fields["password"], "s3cret-pass", "the mask did not overwrite it");
    assert_eq!(fields["userId"], "lee-shipping-2", "the edit was kept");
}

#[test]
fn a_list_edit_put_round_trip_changes_only_what_was_edited() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let account = add(&h, &id, "1X2Y3Z");
    let listed = list(&h, &id)[0]["accountFields"].clone();
    let edited = with(json!({"accountFields": listed}), "/accountFields/password", json!("rotated-pass"));
    assert_eq!(put(&h, &id, "parcel", &edited).expect(201)["id"], account.as_str());
    let fields = stored(&h, &id, &account);
    assert_eq!(fields["accountNumber"], "1X2Y3Z");
    assert_eq!(fields["accessLicenceNumber"], "AB12CD34EF56");
    assert_eq!(fields["password"], "rotated-pass");
    assert_eq!(list(&h, &id).len(), 1);
}

#[test]
fn a_mask_with_no_stored_value_behind_it_is_refused() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let new_account = with(parcel_account("1X2Y3Z"), "/accountFields/password", json!(MASK));
    put(&h, &id, "parcel", &new_account).assert_error(400, "INVALID_REQUEST", Some("accountFields.password"));
    put(&h, &id, "parcel", &json!({"accountFields": masked_parcel_fields()})).assert_error(
        400,
        "INVALID_REQUEST",
        Some("accountFields.accountNumber"),
    );
    assert!(list(&h, &id).is_empty());
}

#[test]
fn a_masked_account_number_is_refused_when_it_could_stand_for_several_accounts() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    add(&h, &id, "1X2Y3Z");
    add(&h, &id, "9Q8W7E");
    put(&h, &id, "parcel", &json!({"accountFields": masked_parcel_fields()})).assert_error(
        400,
        "INVALID_REQUEST",
        Some("accountFields.accountNumber"),
    );
}
