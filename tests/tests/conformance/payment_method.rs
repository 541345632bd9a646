//! 4.12 Update payment method: a token from the secure form, never card data.

use consign_conformance::*;
use serde_json::{json, Value};

const TOKEN: &str = "tok_1NqLx2Ab9zQ";

fn post(h: &Harness, id: &str, body: &Value) -> Answer {
    h.call("POST", &Harness::path(id, "/paymentMethod"), body)
}

/// A customer and the answer to `body`.
fn answer(body: &Value) -> Answer {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    post(&h, &id, body)
}

/// One test per required field: without it, 400 INVALID_REQUEST naming its path.
macro_rules! required {
    ($($test:ident: $pointer:literal => $field:literal;)*) => {$(
        #[test]
        fn $test() {
            answer(&without(payment_body(TOKEN), $pointer)).assert_error(400, "INVALID_REQUEST", Some($field));
        }
    )*};
}

required! {
    billing_address_is_required: "/billingAddress" => "billingAddress";
    payment_method_is_required: "/paymentMethod" => "paymentMethod";
    payment_method_type_is_required: "/paymentMethod/paymentMethodType" => "paymentMethod.paymentMethodType";
    the_token_is_required: "/paymentMethod/processorCardTokenId" => "paymentMethod.processorCardTokenId";
    billing_name_is_required: "/billingAddress/name" => "billingAddress.name";
    billing_address1_is_required: "/billingAddress/address1" => "billingAddress.address1";
    billing_address2_is_required: "/billingAddress/address2" => "billingAddress.address2";
    billing_city_is_required: "/billingAddress/city" => "billingAddress.city";
    billing_state_is_required_in_the_us: "/billingAddress/state" => "billingAddress.state";
    billing_zip_is_required: "/billingAddress/zip" => "billingAddress.zip";
    billing_country_is_required: "/billingAddress/country" => "billingAddress.country";
}

/// One test per refused value: 400 INVALID_REQUEST naming the field.
macro_rules! refused {
    ($($test:ident: $pointer:literal = $value:expr => $field:literal;)*) => {$(
        #[test]
        fn $test() {
            answer(&with(payment_body(TOKEN), $pointer, $value)).assert_error(400, "INVALID_REQUEST", Some($field));
        }
    )*};
}

refused! {
    a_wrong_payment_method_type_is_refused: "/paymentMethod/paymentMethodType" = json!("creditCard") => "paymentMethod.paymentMethodType";
    a_card_number_as_token_is_refused: "/paymentMethod/processorCardTokenId" = json!("4111111111111111") => "paymentMethod.processorCardTokenId";
    a_card_number_with_spaces_as_token_is_refused: "/paymentMethod/processorCardTokenId" = json!("4111 1111 1111 1111") => "paymentMethod.processorCardTokenId";
    a_card_number_with_dashes_as_token_is_refused: "/paymentMethod/processorCardTokenId" = json!("5555-5555-5555-4444") => "paymentMethod.processorCardTokenId";
    a_thirteen_digit_card_number_is_refused: "/paymentMethod/processorCardTokenId" = json!("4222222222222") => "paymentMethod.processorCardTokenId";
    a_fifteen_digit_card_number_is_refused: "/paymentMethod/processorCardTokenId" = json!("378282246310005") => "paymentMethod.processorCardTokenId";
    a_nineteen_digit_card_number_is_refused: "/paymentMethod/processorCardTokenId" = json!("6011000990139424009") => "paymentMethod.processorCardTokenId";
    an_empty_token_is_refused: "/paymentMethod/processorCardTokenId" = json!("") => "paymentMethod.processorCardTokenId";
    a_token_of_the_wrong_type_is_refused: "/paymentMethod/processorCardTokenId" = json!(12345) => "paymentMethod.processorCardTokenId";
    a_card_number_with_dots_is_refused: "/paymentMethod/processorCardTokenId" = json!("4111.1111.1111.1111") => "paymentMethod.processorCardTokenId";
    a_card_number_after_a_word_is_refused: "/paymentMethod/processorCardTokenId" = json!("tok 4111111111111111") => "paymentMethod.processorCardTokenId";
    a_card_number_inside_a_token_is_refused: "/paymentMethod/processorCardTokenId" = json!("tok_4111111111111111_x") => "paymentMethod.processorCardTokenId";
    a_card_number_with_its_expiry_is_refused: "/paymentMethod/processorCardTokenId" = json!("4111 1111 1111 1111 12/29") => "paymentMethod.processorCardTokenId";
    a_card_number_as_a_json_number_is_refused: "/paymentMethod/processorCardTokenId" = json!(4111111111111111u64) => "paymentMethod.processorCardTokenId";
    a_payment_method_that_is_not_an_object_is_refused: "/paymentMethod" = json!(TOKEN) => "paymentMethod";
    a_billing_state_that_does_not_exist_is_refused: "/billingAddress/state" = json!("XY") => "billingAddress.state";
    a_billing_zip_of_the_wrong_shape_is_refused: "/billingAddress/zip" = json!("191") => "billingAddress.zip";
    a_billing_country_that_is_not_iso_is_refused: "/billingAddress/country" = json!("XX") => "billingAddress.country";
    a_canadian_billing_address_needs_a_province: "/billingAddress" = without(ca_address(), "/state") => "billingAddress.state";
}

#[test]
fn a_valid_token_is_accepted() {
    assert_eq!(answer(&payment_body(TOKEN)).expect(200), &json!({"ok": true}));
}

#[test]
fn the_bracketed_token_field_is_accepted() {
    let mut body = payment_body("x");
    body["paymentMethod"] = json!({"paymentMethodType": "processorCardToken", "<processor>CardTokenId": TOKEN});
    assert_eq!(answer(&body).expect(200), &json!({"ok": true}));
}

#[test]
fn the_bracketed_token_type_is_accepted() {
    let body = with(payment_body(TOKEN), "/paymentMethod/paymentMethodType", json!("<processor>CardToken"));
    assert_eq!(answer(&body).expect(200), &json!({"ok": true}));
}

#[test]
fn a_digit_token_that_fails_the_luhn_check_is_accepted() {
    let body = with(payment_body(TOKEN), "/paymentMethod/processorCardTokenId", json!("4111111111111112"));
    assert_eq!(answer(&body).expect(200), &json!({"ok": true}));
}

#[test]
fn a_twelve_digit_token_is_accepted() {
    // Luhn-valid, but shorter than any card number.
    let body = with(payment_body(TOKEN), "/paymentMethod/processorCardTokenId", json!("123456789015"));
    assert_eq!(answer(&body).expect(200), &json!({"ok": true}));
}

#[test]
fn company_may_be_omitted() {
    let body = without(payment_body(TOKEN), "/billingAddress/company");
    assert_eq!(answer(&body).expect(200), &json!({"ok": true}));
}

#[test]
fn company_may_be_given() {
    let body = with(payment_body(TOKEN), "/billingAddress/company", json!("Lee Ceramics"));
    assert_eq!(answer(&body).expect(200), &json!({"ok": true}));
}

#[test]
fn phone_may_be_omitted() {
    let body = payment_body(TOKEN);
    assert!(body["billingAddress"].get("phone").is_none());
    assert_eq!(answer(&body).expect(200), &json!({"ok": true}));
}

#[test]
fn outside_the_us_and_canada_the_state_may_be_omitted() {
    let body = with(payment_body(TOKEN), "/billingAddress", without(gb_address(), "/state"));
    assert_eq!(answer(&body).expect(200), &json!({"ok": true}));
}

#[test]
fn the_payment_method_can_be_replaced() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    post(&h, &id, &payment_body(TOKEN)).expect(200);
    post(&h, &id, &payment_body("tok_second")).expect(200);
}

#[test]
fn the_payment_method_of_an_unknown_customer_is_not_found() {
    let h = Harness::new();
    post(&h, "C9999999", &payment_body(TOKEN)).assert_error_without_details(404, "NOT_FOUND");
}

/// A refused card number is neither repeated in the answer nor stored, whatever its
/// type or separators.
#[test]
fn a_card_number_is_never_echoed_nor_stored() {
    for token in [json!(4111111111111111u64), json!("4111.1111.1111.1111"), json!("tok 4111111111111111"), json!(["4111111111111111"])] {
        let h = Harness::new();
        let id = h.create_customer("ann@example.com");
        let a = post(&h, &id, &with(payment_body(TOKEN), "/paymentMethod/processorCardTokenId", token.clone()));
        a.assert_error(400, "INVALID_REQUEST", Some("paymentMethod.processorCardTokenId"));
        let text = a.body.to_string();
        assert!(!text.contains("4111"), "{token} is echoed: {text}");
        assert_eq!(h.shipping.payment_token(&id).unwrap(), None, "{token} was stored");
    }
}
