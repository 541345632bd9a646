//! 4.9 Create customer, connect-customer, and the prepay ledger a new customer opens.

use consign_conformance::*;
use serde_json::{json, Value};

const CREATE: &str = "/restapi/v1/customers";
const CONNECT: &str = "/restapi/v1/connect-customer";

fn create(h: &Harness, body: &Value) -> Answer {
    h.call("POST", CREATE, body)
}

fn valid() -> Value {
    customer_body("ann@example.com")
}

/// One test per required field: without it, 400 INVALID_REQUEST naming its path.
macro_rules! required {
    ($($test:ident: $pointer:literal => $field:literal;)*) => {$(
        #[test]
        fn $test() {
            let h = Harness::new();
            create(&h, &without(valid(), $pointer)).assert_error(400, "INVALID_REQUEST", Some($field));
        }
    )*};
}

required! {
    profile_code_is_required: "/profileCode" => "profileCode";
    email_is_required: "/email" => "email";
    password_is_required: "/password" => "password";
    mailing_address_is_required: "/mailingAddress" => "mailingAddress";
    billing_address_is_required: "/billingAddress" => "billingAddress";
    prepay_settings_are_required: "/prepaySettings" => "prepaySettings";
    prepay_minimum_balance_is_required: "/prepaySettings/minimumBalance" => "prepaySettings.minimumBalance";
    prepay_recharge_amount_is_required: "/prepaySettings/rechargeAmount" => "prepaySettings.rechargeAmount";
    mailing_name_is_required: "/mailingAddress/name" => "mailingAddress.name";
    mailing_company_is_required: "/mailingAddress/company" => "mailingAddress.company";
    mailing_address1_is_required: "/mailingAddress/address1" => "mailingAddress.address1";
    mailing_address2_is_required: "/mailingAddress/address2" => "mailingAddress.address2";
    mailing_city_is_required: "/mailingAddress/city" => "mailingAddress.city";
    mailing_state_is_required: "/mailingAddress/state" => "mailingAddress.state";
    mailing_zip_is_required: "/mailingAddress/zip" => "mailingAddress.zip";
    mailing_country_is_required: "/mailingAddress/country" => "mailingAddress.country";
    mailing_phone_is_required: "/mailingAddress/phone" => "mailingAddress.phone";
    billing_name_is_required: "/billingAddress/name" => "billingAddress.name";
    billing_company_is_required: "/billingAddress/company" => "billingAddress.company";
    billing_address1_is_required: "/billingAddress/address1" => "billingAddress.address1";
    billing_address2_is_required: "/billingAddress/address2" => "billingAddress.address2";
    billing_city_is_required: "/billingAddress/city" => "billingAddress.city";
    billing_state_is_required: "/billingAddress/state" => "billingAddress.state";
    billing_zip_is_required: "/billingAddress/zip" => "billingAddress.zip";
    billing_country_is_required: "/billingAddress/country" => "billingAddress.country";
    billing_phone_is_required: "/billingAddress/phone" => "billingAddress.phone";
}

/// One test per rejected value: 400 INVALID_REQUEST naming the field.
macro_rules! rejected {
    ($($test:ident: $pointer:literal = $value:expr => $field:literal;)*) => {$(
        #[test]
        fn $test() {
            let h = Harness::new();
            create(&h, &with(valid(), $pointer, $value)).assert_error(400, "INVALID_REQUEST", Some($field));
        }
    )*};
}

/// One test per accepted value: 201.
macro_rules! accepted {
    ($($test:ident: $pointer:literal = $value:expr;)*) => {$(
        #[test]
        fn $test() {
            let h = Harness::new();
            let a = create(&h, &with(valid(), $pointer, $value));
            assert!(a.expect(201)["customerId"].as_str().is_some_and(|s| !s.is_empty()), "{}", a.body);
        }
    )*};
}

rejected! {
    an_unknown_profile_is_refused: "/profileCode" = json!("Platinum") => "profileCode";
    an_email_without_at_sign_is_refused: "/email" = json!("ann.example.com") => "email";
    an_email_without_dotted_domain_is_refused: "/email" = json!("ann@example") => "email";
    an_email_with_spaces_is_refused: "/email" = json!("ann lee@example.com") => "email";
    an_empty_password_is_refused: "/password" = json!("") => "password";
    a_password_of_seven_characters_is_refused: "/password" = json!("glazing") => "password";
    a_monthly_volume_that_is_not_a_string_is_refused: "/monthlyVolume" = json!(500) => "monthlyVolume";
    a_utm_value_that_is_not_a_string_is_refused: "/utm" = json!({"source": 7}) => "utm.source";
    a_sales_rep_over_one_hundred_characters_is_refused: "/salesRep" = json!("r".repeat(101)) => "salesRep";
    a_franchise_with_punctuation_is_refused: "/franchiseId" = json!("P-H") => "franchiseId";
    a_two_character_franchise_is_refused: "/franchiseId" = json!("PH") => "franchiseId";
    a_four_character_franchise_is_refused: "/franchiseId" = json!("PHLA") => "franchiseId";
    a_negative_minimum_balance_is_refused: "/prepaySettings/minimumBalance" = json!("-1.00") => "prepaySettings.minimumBalance";
    a_negative_recharge_amount_is_refused: "/prepaySettings/rechargeAmount" = json!(-50) => "prepaySettings.rechargeAmount";
    a_minimum_balance_with_three_decimals_is_refused: "/prepaySettings/minimumBalance" = json!("10.005") => "prepaySettings.minimumBalance";
    a_recharge_amount_with_three_decimals_is_refused: "/prepaySettings/rechargeAmount" = json!(100.125) => "prepaySettings.rechargeAmount";
    a_non_numeric_recharge_amount_is_refused: "/prepaySettings/rechargeAmount" = json!("lots") => "prepaySettings.rechargeAmount";
    a_null_minimum_balance_is_refused: "/prepaySettings/minimumBalance" = json!(null) => "prepaySettings.minimumBalance";
    an_email_of_the_wrong_type_names_the_field: "/email" = json!(5) => "email";
    prepay_settings_of_the_wrong_type_name_the_field: "/prepaySettings" = json!("x") => "prepaySettings";
    an_address_of_the_wrong_type_names_the_field: "/mailingAddress" = json!(["1 Main St"]) => "mailingAddress";
    an_address_field_of_the_wrong_type_names_its_path: "/billingAddress/zip" = json!(19106) => "billingAddress.zip";
    a_country_that_is_not_iso_is_refused: "/mailingAddress/country" = json!("XX") => "mailingAddress.country";
    a_three_letter_country_is_refused: "/mailingAddress/country" = json!("USA") => "mailingAddress.country";
    a_us_state_that_does_not_exist_is_refused: "/mailingAddress/state" = json!("XY") => "mailingAddress.state";
    a_us_state_spelled_out_is_refused: "/mailingAddress/state" = json!("Pennsylvania") => "mailingAddress.state";
    an_empty_us_state_is_refused: "/mailingAddress/state" = json!("") => "mailingAddress.state";
    a_four_digit_us_zip_is_refused: "/mailingAddress/zip" = json!("1910") => "mailingAddress.zip";
    a_us_zip_with_letters_is_refused: "/mailingAddress/zip" = json!("1910A") => "mailingAddress.zip";
    a_us_zip_plus_four_without_dash_is_refused: "/mailingAddress/zip" = json!("19106 1234") => "mailingAddress.zip";
    an_empty_us_zip_is_refused: "/billingAddress/zip" = json!("") => "billingAddress.zip";
    a_us_phone_of_nine_digits_is_refused: "/mailingAddress/phone" = json!("215-555-014") => "mailingAddress.phone";
    a_us_phone_of_eleven_digits_without_plus_one_is_refused: "/mailingAddress/phone" = json!("1-215-555-0142") => "mailingAddress.phone";
    a_us_phone_with_letters_is_refused: "/mailingAddress/phone" = json!("215-555-CALL") => "mailingAddress.phone";
    a_blank_name_is_refused: "/mailingAddress/name" = json!("   ") => "mailingAddress.name";
    a_name_over_one_hundred_characters_is_refused: "/billingAddress/name" = json!("n".repeat(101)) => "billingAddress.name";
    a_prepay_amount_beyond_the_largest_amount_is_refused: "/prepaySettings/rechargeAmount" = json!("1000000000000") => "prepaySettings.rechargeAmount";
    an_address_email_of_the_wrong_shape_is_refused: "/mailingAddress/email" = json!("ann-at-leeceramics") => "mailingAddress.email";
}

accepted! {
    prepay_amounts_as_json_numbers_are_accepted: "/prepaySettings" = json!({"minimumBalance": 50, "rechargeAmount": 125.5});
    prepay_amounts_as_numeric_strings_are_accepted: "/prepaySettings" = json!({"minimumBalance": "0", "rechargeAmount": "99.99"});
    a_zero_minimum_balance_is_accepted: "/prepaySettings/minimumBalance" = json!(0);
    franchise_id_may_be_omitted: "/franchiseId" = json!(null);
    an_empty_company_and_address2_are_accepted: "/mailingAddress" = with(with(us_address(), "/company", json!("")), "/address2", json!(""));
    military_state_aa_is_accepted: "/mailingAddress" = with(with(us_address(), "/state", json!("AA")), "/zip", json!("34001"));
    military_state_ae_is_accepted: "/mailingAddress" = with(with(us_address(), "/state", json!("AE")), "/zip", json!("09001"));
    military_state_ap_is_accepted: "/mailingAddress" = with(with(us_address(), "/state", json!("AP")), "/zip", json!("96201"));
    district_of_columbia_is_accepted: "/mailingAddress" = with(with(us_address(), "/state", json!("DC")), "/zip", json!("20001"));
    a_us_zip_plus_four_is_accepted: "/mailingAddress/zip" = json!("19106-1234");
    a_us_phone_with_plus_one_is_accepted: "/mailingAddress/phone" = json!("+1 (215) 555-0142");
    a_us_phone_with_dots_is_accepted: "/mailingAddress/phone" = json!("215.555.0142");
    lower_case_country_and_state_codes_are_accepted: "/mailingAddress" = with(with(us_address(), "/state", json!("pa")), "/country", json!("us"));
    a_canadian_address_is_accepted: "/mailingAddress" = ca_address();
    a_canadian_postal_code_without_space_is_accepted: "/mailingAddress" = with(ca_address(), "/zip", json!("K1A0A9"));
    a_canadian_postal_code_in_lower_case_is_accepted: "/mailingAddress" = with(ca_address(), "/zip", json!("k1a 0a9"));
    a_canadian_phone_with_plus_one_is_accepted: "/mailingAddress" = with(ca_address(), "/phone", json!("+1 613 555 0199"));
    an_address_outside_north_america_is_accepted: "/mailingAddress" = gb_address();
    a_six_digit_phone_outside_north_america_is_accepted: "/mailingAddress" = with(gb_address(), "/phone", json!("123-456"));
    a_fifteen_digit_phone_outside_north_america_is_accepted: "/mailingAddress" = with(gb_address(), "/phone", json!("+44 1234 5678 90123"));
    a_country_without_postal_codes_needs_no_zip: "/mailingAddress" = json!({"name": "Omar Ali", "company": "", "address1": "Sheikh Zayed Rd 1",
        "address2": "", "city": "Dubai", "state": "", "zip": "", "country": "AE", "phone": "+971 4 123 4567"});
    an_address_email_may_be_omitted: "/mailingAddress/email" = json!(null);
    unknown_fields_are_ignored: "/favouriteColour" = json!({"deep": [1, 2, {"x": null}]});
    trailing_zeros_beyond_two_decimals_are_accepted: "/prepaySettings/minimumBalance" = json!("10.000");
    a_name_of_one_hundred_characters_is_accepted: "/billingAddress/name" = json!("n".repeat(100));
    a_password_of_eight_characters_is_accepted: "/password" = json!("glazings");
    a_profile_other_than_default_is_accepted: "/profileCode" = json!("Retail");
    optional_fields_may_be_empty_strings: "/salesRep" = json!("");
}

rejected! {
    a_canadian_province_that_does_not_exist_is_refused: "/mailingAddress" = with(ca_address(), "/state", json!("QQ")) => "mailingAddress.state";
    a_us_state_on_a_canadian_address_is_refused: "/mailingAddress" = with(ca_address(), "/state", json!("NY")) => "mailingAddress.state";
    a_canadian_postal_code_of_another_province_is_refused: "/mailingAddress" = with(ca_address(), "/zip", json!("V6B 1A1")) => "mailingAddress.zip";
    a_canadian_postal_code_of_the_wrong_shape_is_refused: "/mailingAddress" = with(ca_address(), "/zip", json!("K1A 0A")) => "mailingAddress.zip";
    a_us_zip_on_a_canadian_address_is_refused: "/mailingAddress" = with(ca_address(), "/zip", json!("19106")) => "mailingAddress.zip";
    a_canadian_phone_of_seven_digits_is_refused: "/mailingAddress" = with(ca_address(), "/phone", json!("555-0199")) => "mailingAddress.phone";
    a_five_digit_phone_outside_north_america_is_refused: "/mailingAddress" = with(gb_address(), "/phone", json!("12345")) => "mailingAddress.phone";
    a_sixteen_digit_phone_outside_north_america_is_refused: "/mailingAddress" = with(gb_address(), "/phone", json!("+44 1234 5678 901234")) => "mailingAddress.phone";
    a_zip_is_required_where_the_country_has_postal_codes: "/mailingAddress" = with(gb_address(), "/zip", json!("")) => "mailingAddress.zip";
}

#[test]
fn a_valid_customer_is_created_with_201_and_an_id() {
    let h = Harness::new();
    let body = create(&h, &valid()).expect(201).clone();
    assert!(body["customerId"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(body.as_object().map(|o| o.len()), Some(1), "only customerId: {body}");
}

#[test]
fn two_customers_get_different_ids() {
    let h = Harness::new();
    assert_ne!(h.create_customer("ann@example.com"), h.create_customer("bob@example.com"));
}

#[test]
fn a_registered_email_is_a_conflict() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    create(&h, &customer_body("ann@example.com")).assert_error(409, "CONFLICT", Some("email"));
}

#[test]
fn a_registered_email_in_another_case_is_a_conflict() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    create(&h, &customer_body("ANN@Example.COM")).assert_error(409, "CONFLICT", Some("email"));
}

#[test]
fn a_registered_email_with_surrounding_spaces_is_a_conflict() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    create(&h, &customer_body(" ann@example.com ")).assert_error(409, "CONFLICT", Some("email"));
}

#[test]
fn simultaneous_registrations_of_one_email_make_one_customer_and_conflicts() {
    let h = Harness::new();
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..4).map(|_| s.spawn(|| create(&h, &valid()).status)).collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert_eq!(statuses.iter().filter(|&&s| s == 201).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|&&s| s == 409).count(), 3, "{statuses:?}");
}

#[test]
fn a_refused_customer_does_not_take_its_email() {
    let h = Harness::new();
    create(&h, &with(valid(), "/profileCode", json!("Platinum"))).assert_error(400, "INVALID_REQUEST", Some("profileCode"));
    h.create_customer("ann@example.com");
}

#[test]
fn every_invalid_field_is_named_in_one_answer() {
    let h = Harness::new();
    let body = with(with(valid(), "/email", json!("nope")), "/mailingAddress/state", json!("XY"));
    let a = create(&h, &body);
    a.assert_error(400, "INVALID_REQUEST", Some("email"));
    a.assert_error(400, "INVALID_REQUEST", Some("mailingAddress.state"));
}

#[test]
fn the_error_message_names_the_field_and_what_was_found() {
    let h = Harness::new();
    let a = create(&h, &with(valid(), "/mailingAddress/state", json!("Texas")));
    assert_eq!(a.body["error"], r#"mailingAddress.state: expected a two-letter US state, territory or military code, found "Texas""#);
}

#[test]
fn malformed_json_is_an_invalid_request() {
    let h = Harness::new();
    h.raw("POST", CREATE, r#"{"profileCode": "Default", "email": "#).assert_error_without_details(400, "INVALID_REQUEST");
}

#[test]
fn an_array_body_is_an_invalid_request() {
    let h = Harness::new();
    h.call("POST", CREATE, &json!([valid()])).assert_error_without_details(400, "INVALID_REQUEST");
}

#[test]
fn an_empty_body_is_an_invalid_request() {
    let h = Harness::new();
    h.raw("POST", CREATE, "").assert_error_without_details(400, "INVALID_REQUEST");
}

#[test]
fn a_field_given_twice_is_named() {
    let h = Harness::new();
    let text = valid().to_string();
    let body = format!("{{\"password\": \"other-password\", {}", &text[1..]);
    h.raw("POST", CREATE, &body).assert_error(400, "INVALID_REQUEST", Some("password"));
}

#[test]
fn trailing_text_after_the_object_is_an_invalid_request() {
    let h = Harness::new();
    h.raw("POST", CREATE, &format!("{} x", valid())).assert_error_without_details(400, "INVALID_REQUEST");
}

// ---- connect-customer: the password is kept only as a hash that checks it --------------

#[test]
fn connect_customer_with_the_right_password_gives_the_customer_id() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let a = h.call("POST", CONNECT, &json!({"username": "ann@example.com", "password": "glaze-and-fire"}));
    assert_eq!(a.expect(200)["customerId"], id.as_str());
}

#[test]
fn connect_customer_ignores_the_case_of_the_email() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let a = h.call("POST", CONNECT, &json!({"username": "Ann@Example.com", "password": "glaze-and-fire"}));
    assert_eq!(a.expect(200)["customerId"], id.as_str());
}

#[test]
fn connect_customer_with_a_wrong_password_is_unauthorized() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    h.call("POST", CONNECT, &json!({"username": "ann@example.com", "password": "glaze-and-fir"}))
        .assert_error_without_details(401, "UNAUTHORIZED");
}

#[test]
fn connect_customer_with_the_password_in_another_case_is_unauthorized() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    h.call("POST", CONNECT, &json!({"username": "ann@example.com", "password": "GLAZE-AND-FIRE"})).assert_error(401, "UNAUTHORIZED", None);
}

#[test]
fn connect_customer_answers_an_unknown_email_as_a_wrong_password() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    let wrong = h.call("POST", CONNECT, &json!({"username": "ann@example.com", "password": "not-it-at-all"}));
    let unknown = h.call("POST", CONNECT, &json!({"username": "zoe@example.com", "password": "not-it-at-all"}));
    unknown.assert_error(401, "UNAUTHORIZED", None);
    assert_eq!(unknown.body, wrong.body);
}

#[test]
fn connect_customer_without_a_password_names_the_field() {
    let h = Harness::new();
    h.call("POST", CONNECT, &json!({"username": "ann@example.com"})).assert_error(400, "INVALID_REQUEST", Some("password"));
}

#[test]
fn the_password_is_stored_only_as_an_argon2id_hash() {
    let dir = std::env::temp_dir().join(format!("consign-conformance-{}-password", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("shop.db");
    let shipping = consign::Shipping::open(&db).unwrap();
    let created = shipping.handle("POST", CREATE, &valid().to_string());
    assert_eq!(created.status, 201, "{}", created.body);
    // Read the database and its write-ahead log while the service is open.
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        bytes.extend(std::fs::read(entry.unwrap().path()).unwrap());
    }
    drop(shipping);
    std::fs::remove_dir_all(&dir).unwrap();
    let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(contains(b"ann@example.com"), "the customer was written to the files read");
    assert!(!contains(b"glaze-and-fire"), "the password is stored in clear");
    assert!(contains(b"$argon2id$"), "no argon2id hash stored");
}

// ---- the prepay ledger opens with one recharge -----------------------------------------

fn prepay(h: &Harness, id: &str) -> Value {
    h.get(&Harness::path(id, "/prepay")).expect(200).clone()
}

#[test]
fn the_ledger_opens_with_one_recharge_of_the_recharge_amount() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let body = prepay(&h, &id);
    assert_eq!(body["balance"], "200.00");
    let entries = body["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(entries.len(), 1, "{body}");
    assert_eq!(entries[0]["kind"], "recharge");
    assert_eq!(entries[0]["amount"], "200.00");
    assert_eq!(entries[0]["balanceAfter"], "200.00");
    assert_eq!(entries[0]["createdAt"], NOW);
    assert!(entries[0]["id"].is_i64(), "{body}");
    assert!(entries[0]["reference"].is_string(), "{body}");
}

#[test]
fn the_prepay_view_shows_the_settings_as_two_decimal_strings_in_usd() {
    let h = Harness::new();
    let id = h.create_customer_with(&with(valid(), "/prepaySettings", json!({"minimumBalance": 25, "rechargeAmount": 100.5})));
    let body = prepay(&h, &id);
    assert_eq!(body["currency"], "USD");
    assert_eq!(body["minimumBalance"], "25.00");
    assert_eq!(body["rechargeAmount"], "100.50");
    assert_eq!(body["balance"], "100.50");
}

#[test]
fn a_zero_recharge_amount_opens_the_ledger_at_zero() {
    let h = Harness::new();
    let id = h.create_customer_with(&with(valid(), "/prepaySettings/rechargeAmount", json!("0")));
    assert_eq!(prepay(&h, &id)["balance"], "0.00");
}

#[test]
fn the_prepay_view_of_an_unknown_customer_is_not_found() {
    let h = Harness::new();
    h.get(&Harness::path("C9999999", "/prepay")).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn an_empty_utm_string_means_no_utm() {
    let h = Harness::new();
    h.create_customer_with(&with(customer_body("utm@example.com"), "/utm", json!("")));
    for (i, bad) in [json!("newsletter"), json!({"source": 5}), json!(["a"])].into_iter().enumerate() {
        let a = h.call("POST", "/restapi/v1/customers", &with(customer_body(&format!("u{i}@example.com")), "/utm", bad));
        a.assert_error(400, "INVALID_REQUEST", None);
        assert!(a.fields().iter().any(|f| f.starts_with("utm")), "{}", a.body);
    }
}
