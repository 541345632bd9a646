//! 4.5 Book shipment with the extensions of DECISIONS 6 (quoteId, idempotencyKey,
//! fulfillment), prepay accounting (DECISIONS 7), tracking numbers and labels
//! (DECISIONS 8), and retrieve, list, void and label of DECISIONS 9.

use consign_conformance::*;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------
// Fixtures and helpers
// ---------------------------------------------------------------------------

fn setup() -> (Harness, String) {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    (h, id)
}

/// A customer whose prepay settings are `minimum` and `recharge` (its balance opens at `recharge`).
fn customer_with_prepay(h: &Harness, email: &str, minimum: &str, recharge: &str) -> String {
    let body = with(customer_body(email), "/prepaySettings", json!({"minimumBalance": minimum, "rechargeAmount": recharge}));
    h.create_customer_with(&body)
}

fn add_payment_method(h: &Harness, id: &str) {
    h.call("POST", &Harness::path(id, "/paymentMethod"), &payment_body("tok_1NqLx2Ab9zQ")).expect(200);
}

/// A domestic booking: carrier A ground, Philadelphia to Los Angeles, one 2 lb box 10x8x6 in.
fn book_body() -> Value {
    let mut b = quote_shipment();
    b["carrierCode"] = json!("parcel");
    b["serviceCode"] = json!("parcel_ground");
    b["packageTypeCode"] = json!("parcel_custom");
    b
}

/// `book_body` on another carrier, service and package type.
fn on(carrier: &str, service: &str, package: &str) -> Value {
    let mut b = book_body();
    b["carrierCode"] = json!(carrier);
    b["serviceCode"] = json!(service);
    b["packageTypeCode"] = json!(package);
    b
}

/// An international booking: carrier C express worldwide, Philadelphia to London.
fn intl_body() -> Value {
    let mut b = intl_shipment();
    b["carrierCode"] = json!("intlexpress");
    b["serviceCode"] = json!("intlexpress_express_worldwide");
    b["packageTypeCode"] = json!("intlexpress_custom");
    b
}

/// `intl_body` with a commercial invoice.
fn invoiced() -> Value {
    with(intl_body(), "/commercialInvoice", invoice("1.2"))
}

fn hk_receiver() -> Value {
    json!({"name": "Wing Chan", "company": "", "address1": "1 Queen's Road Central", "address2": "", "city": "Hong Kong",
        "state": "", "zip": null, "country": "HK", "phone": "+852 2123 4567"})
}

fn pr_receiver() -> Value {
    json!({"name": "Rosa Diaz", "company": "", "address1": "1 Calle Luna", "address2": "", "city": "San Juan",
        "state": "PR", "zip": "00901", "country": "PR", "phone": "787-555-0100"})
}

fn piece(weight: &str) -> Value {
    json!({"weight": weight, "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null})
}

fn book(h: &Harness, id: &str, body: &Value) -> Answer {
    h.call("POST", &Harness::path(id, "/shipments"), body)
}

/// Books `body` and returns the 201 body.
#[track_caller]
fn booked(h: &Harness, id: &str, body: &Value) -> Value {
    book(h, id, body).expect(201).clone()
}

fn prepay(h: &Harness, id: &str) -> Value {
    h.get(&Harness::path(id, "/prepay")).expect(200).clone()
}

fn entries(h: &Harness, id: &str) -> Vec<Value> {
    prepay(h, id)["entries"].as_array().cloned().unwrap_or_default()
}

fn void(h: &Harness, id: &str, book_number: &str) -> Answer {
    h.call("POST", &Harness::path(id, &format!("/shipments/{book_number}")), &json!({"voided": true}))
}

fn retrieve(h: &Harness, id: &str, book_number: &str) -> Answer {
    h.get(&Harness::path(id, &format!("/shipments/{book_number}")))
}

fn list(h: &Harness, id: &str, query: &str) -> Answer {
    h.get(&Harness::path(id, &format!("/shipments{query}")))
}

fn label(h: &Harness, id: &str, book_number: &str, format: &str) -> Answer {
    h.get(&Harness::path(id, &format!("/shipments/{book_number}/label/{format}")))
}

/// Money as integer cents, from a string with exactly 2 decimals (or a JSON number).
#[track_caller]
fn cents(v: &Value) -> i64 {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        other => panic!("not money: {other}"),
    };
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    assert!(frac.len() <= 2, "more than 2 decimals in {text}");
    let neg = whole.starts_with('-');
    let whole: i64 = whole.trim_start_matches('-').parse().unwrap_or_else(|_| panic!("not money: {text}"));
    let frac: i64 = format!("{frac:0<2}").parse().unwrap_or_else(|_| panic!("not money: {text}"));
    let c = whole * 100 + frac;
    if neg {
        -c
    } else {
        c
    }
}

/// A string with exactly two decimals.
#[track_caller]
fn assert_two_decimals(v: &Value) {
    let s = v.as_str().unwrap_or_else(|| panic!("expected a string, found {v}"));
    let (whole, frac) = s.split_once('.').unwrap_or_else(|| panic!("no decimals in {s:?}"));
    assert!(!whole.is_empty() && whole.trim_start_matches('-').chars().all(|c| c.is_ascii_digit()), "{s:?}");
    assert!(frac.len() == 2 && frac.chars().all(|c| c.is_ascii_digit()), "expected 2 decimals in {s:?}");
}

/// Standard base64 (RFC 4648) decoding, with padding.
fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).expect("standard base64")
}

fn images(h: &Harness, id: &str, book_number: &str, format: &str) -> Vec<Vec<u8>> {
    let a = label(h, id, book_number, format);
    let body = a.expect(200);
    assert_eq!(body["labelImageFormat"], format, "{body}");
    body["base64Images"].as_array().into_iter().flatten().map(|i| base64_decode(i.as_str().expect("a base64 string"))).collect()
}

// ---------------------------------------------------------------------------
// Success
// ---------------------------------------------------------------------------

#[test]
fn a_valid_booking_answers_201_with_book_number_tracking_number_balance_and_zone() {
    let (h, id) = setup();
    let before = cents(&prepay(&h, &id)["balance"]);
    let b = booked(&h, &id, &book_body());
    assert!(b["bookNumber"].as_str().is_some_and(|s| !s.is_empty()), "{b}");
    assert!(b["trackingNumber"].as_str().is_some_and(|s| !s.is_empty()), "{b}");
    assert!(b["zone"].as_str().is_some_and(|s| !s.is_empty()), "{b}");
    assert_two_decimals(&b["prepayBalance"]);
    let after = cents(&b["prepayBalance"]);
    assert!(after < before, "the balance went down: {before} -> {after}");
    assert_eq!(after, cents(&prepay(&h, &id)["balance"]));
    assert!(b.get("pieces").is_none(), "no pieces for a carrier A booking: {b}");
}

#[test]
fn book_numbers_are_unique() {
    let (h, id) = setup();
    let a = booked(&h, &id, &book_body());
    let b = booked(&h, &id, &book_body());
    assert_ne!(a["bookNumber"], b["bookNumber"]);
}

// ---------------------------------------------------------------------------
// Required fields
// ---------------------------------------------------------------------------

/// One test per required field: without it, 400 INVALID_REQUEST naming its path.
macro_rules! required {
    ($($test:ident: $pointer:literal => $field:literal;)*) => {$(
        #[test]
        fn $test() {
            let (h, id) = setup();
            book(&h, &id, &without(book_body(), $pointer)).assert_error(400, "INVALID_REQUEST", Some($field));
        }
    )*};
}

required! {
    carrier_code_is_required: "/carrierCode" => "carrierCode";
    service_code_is_required: "/serviceCode" => "serviceCode";
    package_type_code_is_required: "/packageTypeCode" => "packageTypeCode";
    shipment_date_is_required: "/shipmentDate" => "shipmentDate";
    sender_is_required: "/sender" => "sender";
    receiver_is_required: "/receiver" => "receiver";
    weight_unit_is_required: "/weightUnit" => "weightUnit";
    dim_unit_is_required: "/dimUnit" => "dimUnit";
    currency_is_required: "/currency" => "currency";
    pieces_are_required: "/pieces" => "pieces";
    sender_name_is_required: "/sender/name" => "sender.name";
    sender_company_is_required: "/sender/company" => "sender.company";
    sender_address1_is_required: "/sender/address1" => "sender.address1";
    sender_address2_is_required: "/sender/address2" => "sender.address2";
    sender_city_is_required: "/sender/city" => "sender.city";
    sender_state_is_required: "/sender/state" => "sender.state";
    sender_zip_is_required: "/sender/zip" => "sender.zip";
    sender_country_is_required: "/sender/country" => "sender.country";
    sender_phone_is_required: "/sender/phone" => "sender.phone";
    receiver_name_is_required: "/receiver/name" => "receiver.name";
    receiver_company_is_required: "/receiver/company" => "receiver.company";
    receiver_address1_is_required: "/receiver/address1" => "receiver.address1";
    receiver_address2_is_required: "/receiver/address2" => "receiver.address2";
    receiver_city_is_required: "/receiver/city" => "receiver.city";
    receiver_state_is_required: "/receiver/state" => "receiver.state";
    receiver_zip_is_required: "/receiver/zip" => "receiver.zip";
    receiver_country_is_required: "/receiver/country" => "receiver.country";
    receiver_phone_is_required: "/receiver/phone" => "receiver.phone";
    piece_weight_is_required: "/pieces/0/weight" => "pieces[0].weight";
    piece_length_key_is_required: "/pieces/0/length" => "pieces[0].length";
    piece_width_key_is_required: "/pieces/0/width" => "pieces[0].width";
    piece_height_key_is_required: "/pieces/0/height" => "pieces[0].height";
    piece_insurance_amount_key_is_required: "/pieces/0/insuranceAmount" => "pieces[0].insuranceAmount";
    piece_declared_value_key_is_required: "/pieces/0/declaredValue" => "pieces[0].declaredValue";
}

/// One test per rejected booking: 400 INVALID_REQUEST naming the field.
macro_rules! refused {
    ($($test:ident: $body:expr => $field:literal;)*) => {$(
        #[test]
        fn $test() {
            let (h, id) = setup();
            book(&h, &id, &$body).assert_error(400, "INVALID_REQUEST", Some($field));
        }
    )*};
}

#[test]
fn an_empty_invoice_item_quantity_is_answered_as_a_missing_one() {
    let (h, id) = setup();
    let empty = book(&h, &id, &with(invoiced(), "/commercialInvoice/items/0/quantity", json!("")));
    empty.assert_error(400, "INVALID_REQUEST", Some("commercialInvoice.items[0].quantity"));
    assert_eq!(empty.body, book(&h, &id, &with(invoiced(), "/commercialInvoice/items/0/quantity", Value::Null)).body);
}

/// One test per accepted variation: 201.
macro_rules! accepted {
    ($($test:ident: $body:expr;)*) => {$(
        #[test]
        fn $test() {
            let (h, id) = setup();
            let a = book(&h, &id, &$body);
            assert_eq!(a.status, 201, "{}", a.body);
        }
    )*};
}

accepted! {
    sender_and_receiver_email_are_optional: without(without(book_body(), "/sender/email"), "/receiver/email");
    an_empty_quote_id_reads_as_no_quote: with(book_body(), "/quoteId", json!(""));
    a_receiver_in_hong_kong_may_have_a_null_zip: with(intl_body(), "/receiver", hk_receiver());
    return_to_may_be_empty: with(book_body(), "/returnTo", json!({}));
    return_to_may_carry_only_some_fields: with(book_body(), "/returnTo", json!({"name": "Returns desk", "city": "Philadelphia"}));
    a_full_return_to_is_accepted: with(book_body(), "/returnTo", us_address());
    a_preset_box_with_null_dim_unit_and_null_dimensions_books:
        with(with(on("parcel", "parcel_2nd_day_air", "parcel_small_box"), "/dimUnit", Value::Null), "/pieces/0",
            json!({"weight": "2", "length": null, "width": null, "height": null, "insuranceAmount": null, "declaredValue": null}));
    an_insurance_amount_is_accepted: with(book_body(), "/pieces/0/insuranceAmount", json!("150.00"));
    a_declared_value_is_accepted_internationally: intl_body();
    carrier_a_to_puerto_rico_is_international_and_takes_a_declared_value:
        with(with(book_body(), "/receiver", pr_receiver()), "/pieces/0/declaredValue", json!("40"));
    epl2_is_accepted_for_carrier_d: with(on("expressground", "expressground_ground", "expressground_custom"), "/labelImageFormat", json!("EPL2"));
    zpl_is_accepted_for_carrier_a: with(book_body(), "/labelImageFormat", json!("ZPL"));
    zpl_is_accepted_for_carrier_b: with(on("postal", "postal_priority_mail", "postal_custom"), "/labelImageFormat", json!("ZPL"));
    zpl_is_accepted_for_carrier_d: with(on("expressground", "expressground_ground", "expressground_custom"), "/labelImageFormat", json!("ZPL"));
    pdf_is_accepted_for_every_carrier: with(intl_body(), "/labelImageFormat", json!("PDF"));
    a_scan_based_return_label_is_accepted_for_carrier_b:
        with(on("postal", "postal_priority_mail", "postal_custom"), "/scanBasedReturnLabel", json!(true));
    a_listed_dangerous_goods_code_is_accepted_for_carrier_e:
        with(on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom"), "/dangerousGoodsCode", json!("LTD-QTY"));
    a_postal_endorsement_is_accepted_for_carrier_e:
        with(on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom"), "/postalEndorsement", json!("RETURN_SERVICE_REQUESTED"));
    express_am_delivery_is_accepted_for_carrier_b_express:
        with(on("postal", "postal_priority_mail_express", "postal_custom"), "/postalExpressAmDelivery", json!(true));
    a_complete_commercial_invoice_is_accepted: invoiced();
    an_ftr_number_alone_is_accepted: with(invoiced(), "/commercialInvoice/ftrNumber", json!("30.37(a)"));
    an_itn_number_alone_is_accepted: with(invoiced(), "/commercialInvoice/itnNumber", json!("X20261121123456"));
    an_invoice_item_weight_is_optional: without(invoiced(), "/commercialInvoice/items/0/weight");
    every_terms_of_trade_value_is_accepted: with(invoiced(), "/commercialInvoice/termsOfTrade", json!("EXW"));
    billing_to_the_sender_needs_no_account: with(book_body(), "/billing", json!({"party": "sender"}));
    a_customs_currency_is_accepted: with(invoiced(), "/customsCurrency", json!("EUR"));
    a_one_word_sender_name_is_fine_for_carrier_a: with(book_body(), "/sender/name", json!("Cher"));
    shipment_date_today_is_accepted: with(book_body(), "/shipmentDate", json!(TODAY));
    carrier_c_accepts_a_shipment_date_9_days_ahead: with(intl_body(), "/shipmentDate", json!(days_ahead(9)));
    carrier_d_accepts_a_shipment_date_10_days_ahead:
        with(on("expressground", "expressground_ground", "expressground_custom"), "/shipmentDate", json!(days_ahead(10)));
}

refused! {
    a_receiver_in_britain_needs_a_zip: with(intl_body(), "/receiver/zip", Value::Null) => "receiver.zip";
    the_zip_key_is_required_even_where_null_is_allowed:
        without(with(intl_body(), "/receiver", hk_receiver()), "/receiver/zip") => "receiver.zip";
    an_invalid_receiver_email_is_refused: with(book_body(), "/receiver/email", json!("bo at example")) => "receiver.email";
    multipiece_on_a_package_type_without_it_is_refused:
        with(on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom"), "/pieces", json!([piece("1"), piece("1")])) => "pieces";
    a_custom_package_needs_every_dimension: with(book_body(), "/pieces/0/length", Value::Null) => "pieces[0].length";
    a_negative_insurance_amount_is_refused: with(book_body(), "/pieces/0/insuranceAmount", json!("-5")) => "pieces[0].insuranceAmount";
    a_signature_option_of_another_carrier_is_refused: with(book_body(), "/signatureOptionCode", json!("postal_signature")) => "signatureOptionCode";
    saturday_delivery_on_a_service_without_it_is_refused: with(book_body(), "/saturdayDelivery", json!(true)) => "saturdayDelivery";
    duties_billed_to_the_receiver_need_an_account:
        with(intl_body(), "/billing", json!({"party": "sender", "dutiableParty": {"dutyPaymentType": "receiver", "dutyPaymentAccountNumber": null}}))
            => "billing.dutiableParty.dutyPaymentAccountNumber";
    a_boolean_option_of_the_wrong_type_is_refused: with(book_body(), "/approvePrepayRecharge", json!("true")) => "approvePrepayRecharge";
    a_us_sender_needs_a_zip: with(book_body(), "/sender/zip", Value::Null) => "sender.zip";
    return_to_is_validated_when_given: with(book_body(), "/returnTo", json!({"country": "US", "state": "Texas"})) => "returnTo.state";
    a_return_to_zip_is_validated_when_given: with(book_body(), "/returnTo", json!({"country": "US", "state": "PA", "zip": "1910"})) => "returnTo.zip";
    a_custom_package_with_null_dim_unit_is_refused: with(book_body(), "/dimUnit", Value::Null) => "dimUnit";
    a_declared_value_on_a_domestic_shipment_is_refused: with(book_body(), "/pieces/0/declaredValue", json!("40")) => "pieces[0].declaredValue";
    postal_us_to_puerto_rico_is_domestic_so_no_declared_value:
        with(with(on("postal", "postal_priority_mail", "postal_custom"), "/receiver", pr_receiver()), "/pieces/0/declaredValue", json!("40"))
            => "pieces[0].declaredValue";
    epl2_is_refused_for_carrier_a: with(book_body(), "/labelImageFormat", json!("EPL2")) => "labelImageFormat";
    epl2_is_refused_for_carrier_b: with(on("postal", "postal_priority_mail", "postal_custom"), "/labelImageFormat", json!("EPL2")) => "labelImageFormat";
    zpl_is_refused_for_carrier_c: with(intl_body(), "/labelImageFormat", json!("ZPL")) => "labelImageFormat";
    zpl_is_refused_for_carrier_e: with(on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom"), "/labelImageFormat", json!("ZPL")) => "labelImageFormat";
    an_unknown_label_format_is_refused: with(book_body(), "/labelImageFormat", json!("PNG")) => "labelImageFormat";
    a_scan_based_return_label_is_refused_for_carrier_a: with(book_body(), "/scanBasedReturnLabel", json!(true)) => "scanBasedReturnLabel";
    a_dangerous_goods_code_is_refused_for_carrier_a: with(book_body(), "/dangerousGoodsCode", json!("LTD-QTY")) => "dangerousGoodsCode";
    a_dangerous_goods_code_the_service_does_not_list_is_refused:
        with(on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom"), "/dangerousGoodsCode", json!("ORM-D")) => "dangerousGoodsCode";
    a_postal_endorsement_is_refused_for_carrier_a: with(book_body(), "/postalEndorsement", json!("RETURN_SERVICE_REQUESTED")) => "postalEndorsement";
    an_unknown_postal_endorsement_is_refused:
        with(on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom"), "/postalEndorsement", json!("LEAVE_IF_NO_RESPONSE")) => "postalEndorsement";
    express_am_delivery_is_refused_for_carrier_a: with(book_body(), "/postalExpressAmDelivery", json!(true)) => "postalExpressAmDelivery";
    express_am_delivery_is_refused_on_a_postal_service_without_it:
        with(on("postal", "postal_priority_mail", "postal_custom"), "/postalExpressAmDelivery", json!(true)) => "postalExpressAmDelivery";
    an_aes_number_is_refused: with(invoiced(), "/commercialInvoice/aesNumber", json!("AES X20261121")) => "commercialInvoice.aesNumber";
    an_ftr_number_with_an_itn_number_is_refused:
        with(with(invoiced(), "/commercialInvoice/ftrNumber", json!("30.37(a)")), "/commercialInvoice/itnNumber", json!("X20261121123456"))
            => "commercialInvoice.ftrNumber";
    an_itn_number_with_an_ftr_number_names_the_itn_number_too:
        with(with(invoiced(), "/commercialInvoice/ftrNumber", json!("30.37(a)")), "/commercialInvoice/itnNumber", json!("X20261121123456"))
            => "commercialInvoice.itnNumber";
    the_ftr_number_key_is_required_in_an_invoice: without(invoiced(), "/commercialInvoice/ftrNumber") => "commercialInvoice.ftrNumber";
    the_itn_number_key_is_required_in_an_invoice: without(invoiced(), "/commercialInvoice/itnNumber") => "commercialInvoice.itnNumber";
    the_aes_number_key_is_required_in_an_invoice: without(invoiced(), "/commercialInvoice/aesNumber") => "commercialInvoice.aesNumber";
    terms_of_trade_outside_the_enumeration_are_refused: with(invoiced(), "/commercialInvoice/termsOfTrade", json!("FOB")) => "commercialInvoice.termsOfTrade";
    terms_of_trade_are_required: without(invoiced(), "/commercialInvoice/termsOfTrade") => "commercialInvoice.termsOfTrade";
    receiver_tax_id_is_required: without(invoiced(), "/commercialInvoice/receiverTaxId") => "commercialInvoice.receiverTaxId";
    sender_vat_tax_id_is_required: without(invoiced(), "/commercialInvoice/senderVatTaxId") => "commercialInvoice.senderVatTaxId";
    package_marks_are_required: without(invoiced(), "/commercialInvoice/packageMarks") => "commercialInvoice.packageMarks";
    invoice_item_description_is_required: without(invoiced(), "/commercialInvoice/items/0/description") => "commercialInvoice.items[0].description";
    invoice_item_quantity_is_required: without(invoiced(), "/commercialInvoice/items/0/quantity") => "commercialInvoice.items[0].quantity";
    invoice_item_unit_value_is_required: without(invoiced(), "/commercialInvoice/items/0/unitValue") => "commercialInvoice.items[0].unitValue";
    invoice_item_hts_number_is_required: without(invoiced(), "/commercialInvoice/items/0/htsNumber") => "commercialInvoice.items[0].htsNumber";
    invoice_item_country_of_origin_is_required:
        without(invoiced(), "/commercialInvoice/items/0/countryOfOrigin") => "commercialInvoice.items[0].countryOfOrigin";
    an_invoice_item_country_of_origin_must_be_a_country:
        with(invoiced(), "/commercialInvoice/items/0/countryOfOrigin", json!("XX")) => "commercialInvoice.items[0].countryOfOrigin";
    invoice_item_weights_above_the_package_weight_are_refused:
        with(invoiced(), "/commercialInvoice/items/0/weight", json!("50")) => "commercialInvoice.items";
    billing_to_the_receiver_needs_an_account: with(book_body(), "/billing", json!({"party": "receiver"})) => "billing.account";
    billing_to_a_third_party_needs_an_account: with(book_body(), "/billing", json!({"party": "third_party", "account": null})) => "billing.account";
    an_unknown_billing_party_is_refused: with(book_body(), "/billing", json!({"party": "friend", "account": "A1"})) => "billing.party";
    an_unknown_carrier_is_refused: with(book_body(), "/carrierCode", json!("pigeon")) => "carrierCode";
    an_unknown_service_is_refused: with(book_body(), "/serviceCode", json!("parcel_teleport")) => "serviceCode";
    a_service_of_another_carrier_is_refused: with(book_body(), "/serviceCode", json!("postal_priority_mail")) => "serviceCode";
    an_unknown_package_type_is_refused: with(book_body(), "/packageTypeCode", json!("parcel_crate")) => "packageTypeCode";
    a_package_type_the_service_does_not_offer_is_refused: with(book_body(), "/packageTypeCode", json!("parcel_letter")) => "packageTypeCode";
    a_past_shipment_date_is_refused: with(book_body(), "/shipmentDate", json!(days_ahead(-1))) => "shipmentDate";
    a_malformed_shipment_date_is_refused: with(book_body(), "/shipmentDate", json!("21/11/2026")) => "shipmentDate";
    carrier_c_refuses_a_shipment_date_10_days_ahead: with(intl_body(), "/shipmentDate", json!(days_ahead(10))) => "shipmentDate";
    carrier_d_refuses_a_shipment_date_11_days_ahead:
        with(on("expressground", "expressground_ground", "expressground_custom"), "/shipmentDate", json!(days_ahead(11))) => "shipmentDate";
    carrier_d_refuses_a_one_word_sender_name:
        with(on("expressground", "expressground_ground", "expressground_custom"), "/sender/name", json!("Cher")) => "sender.name";
    a_weight_unit_outside_the_enumeration_is_refused: with(book_body(), "/weightUnit", json!("stone")) => "weightUnit";
    a_currency_outside_the_enumeration_is_refused: with(book_body(), "/currency", json!("JPY")) => "currency";
    a_customs_currency_outside_the_enumeration_is_refused: with(invoiced(), "/customsCurrency", json!("JPY")) => "customsCurrency";
    an_empty_pieces_array_is_refused: with(book_body(), "/pieces", json!([])) => "pieces";
    a_zero_weight_is_refused: with(book_body(), "/pieces/0/weight", json!("0")) => "pieces[0].weight";
    a_piece_over_the_maximum_weight_is_refused: with(book_body(), "/pieces/0/weight", json!("151")) => "pieces";
}

#[test]
fn a_service_off_its_route_is_service_not_available() {
    let (h, id) = setup();
    let body = with(with(book_body(), "/receiver", gb_address()), "/pieces/0/declaredValue", json!("40"));
    book(&h, &id, &body).assert_error(400, "SERVICE_NOT_AVAILABLE", Some("serviceCode"));
}

#[test]
fn booking_for_an_unknown_customer_is_not_found() {
    let h = Harness::new();
    book(&h, "C9999999", &book_body()).assert_error(404, "NOT_FOUND", None);
}

#[test]
fn a_body_that_is_not_an_object_is_refused() {
    let (h, id) = setup();
    h.raw("POST", &Harness::path(&id, "/shipments"), "[]").assert_error_without_details(400, "INVALID_REQUEST");
}

#[test]
fn a_refused_booking_writes_nothing() {
    let (h, id) = setup();
    let before = prepay(&h, &id);
    book(&h, &id, &with(book_body(), "/labelImageFormat", json!("EPL2"))).assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
    assert_eq!(prepay(&h, &id), before);
    assert_eq!(list(&h, &id, "").expect(200)["shipments"], json!([]));
}

#[test]
fn a_service_outside_the_customers_profile_is_refused() {
    let h = Harness::new();
    let id = h.create_customer_of_profile("ann@example.com", "GroundSaver");
    book(&h, &id, &on("parcel", "parcel_2nd_day_air", "parcel_custom")).assert_error(400, "INVALID_REQUEST", Some("serviceCode"));
    booked(&h, &id, &book_body());
}

#[test]
fn a_profile_markup_is_charged_as_quoted() {
    let h = Harness::new();
    let retail = h.create_customer_of_profile("ann@example.com", "Retail");
    let plain = h.create_customer("bo@example.com");
    let charge = |id: &str| {
        let before = cents(&prepay(&h, id)["balance"]);
        before - cents(&booked(&h, id, &book_body())["prepayBalance"])
    };
    let q = quote_for(&h, &retail, &book_body());
    let (r, p) = (charge(&retail), charge(&plain));
    assert_eq!(r, cents(&q["totalAmount"]), "the Retail customer pays its quoted price");
    assert!(r > p, "the 15% markup is charged: {r} vs {p}");
}

// ---------------------------------------------------------------------------
// Billing and provider accounts
// ---------------------------------------------------------------------------

#[test]
fn billing_to_the_receiver_does_not_debit_the_prepay_balance() {
    let (h, id) = setup();
    let before = prepay(&h, &id);
    let body = with(book_body(), "/billing", json!({"party": "receiver", "account": "R-778899", "country": "US", "zip": "90012"}));
    let b = booked(&h, &id, &body);
    assert_eq!(b["prepayBalance"], before["balance"]);
    assert_eq!(prepay(&h, &id), before, "no ledger entry for a shipment billed to the receiver");
}

#[test]
fn billing_to_a_third_party_does_not_debit_the_prepay_balance() {
    let (h, id) = setup();
    let before = prepay(&h, &id);
    let b = booked(&h, &id, &with(book_body(), "/billing", json!({"party": "third_party", "account": "T-1234"})));
    assert_eq!(b["prepayBalance"], before["balance"]);
    assert_eq!(prepay(&h, &id), before);
}

#[test]
fn voiding_a_shipment_billed_to_the_receiver_refunds_nothing() {
    let (h, id) = setup();
    let before = prepay(&h, &id);
    let b = booked(&h, &id, &with(book_body(), "/billing", json!({"party": "receiver", "account": "R-778899"})));
    void(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200);
    assert_eq!(prepay(&h, &id), before);
}

fn add_parcel_account(h: &Harness, id: &str) -> String {
    let a = h.call("PUT", &Harness::path(id, "/provider-accounts/parcel"), &parcel_account("1X2Y3Z"));
    a.expect(201)["id"].as_str().unwrap().to_string()
}

#[test]
fn an_own_provider_account_of_the_carrier_is_accepted() {
    let (h, id) = setup();
    let account = add_parcel_account(&h, &id);
    booked(&h, &id, &with(book_body(), "/providerAccountId", json!(account)));
}

#[test]
fn another_customers_provider_account_is_refused() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let account = add_parcel_account(&h, &other);
    book(&h, &id, &with(book_body(), "/providerAccountId", json!(account))).assert_error(400, "INVALID_REQUEST", Some("providerAccountId"));
}

#[test]
fn a_provider_account_of_another_carrier_is_refused() {
    let (h, id) = setup();
    let account = add_parcel_account(&h, &id);
    let body = with(on("expressground", "expressground_ground", "expressground_custom"), "/providerAccountId", json!(account));
    book(&h, &id, &body).assert_error(400, "INVALID_REQUEST", Some("providerAccountId"));
}

#[test]
fn an_unknown_provider_account_is_refused() {
    let (h, id) = setup();
    book(&h, &id, &with(book_body(), "/providerAccountId", json!("no-such-account"))).assert_error(
        400,
        "INVALID_REQUEST",
        Some("providerAccountId"),
    );
}

// ---------------------------------------------------------------------------
// Response pieces (carrier B multipiece)
// ---------------------------------------------------------------------------

#[test]
fn carrier_b_multipiece_answers_one_piece_each_with_costs_summing_to_the_total() {
    let (h, id) = setup();
    let body = with(on("postal", "postal_priority_mail", "postal_custom"), "/pieces", json!([piece("1"), piece("1"), piece("3.3")]));
    let b = booked(&h, &id, &body);
    let pieces = b["pieces"].as_array().cloned().unwrap_or_else(|| panic!("pieces expected: {b}"));
    assert_eq!(pieces.len(), 3);
    let mut sum = 0;
    for p in &pieces {
        assert_two_decimals(&p["shippingCost"]);
        sum += cents(&p["shippingCost"]);
        assert!(p["trackingNumber"].as_str().is_some_and(|t| !t.is_empty()), "{p}");
    }
    assert_eq!(pieces[0]["trackingNumber"], b["trackingNumber"]);
    let tns: std::collections::HashSet<&str> = pieces.iter().filter_map(|p| p["trackingNumber"].as_str()).collect();
    assert_eq!(tns.len(), 3, "one tracking number per piece: {b}");
    let shipment = retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200).clone();
    assert_eq!(sum, cents(&shipment["totalShippingCost"]), "piece costs add up exactly: {b}");
}

#[test]
fn carrier_b_single_piece_has_no_pieces_in_the_answer() {
    let (h, id) = setup();
    let b = booked(&h, &id, &on("postal", "postal_priority_mail", "postal_custom"));
    assert!(b.get("pieces").is_none(), "{b}");
}

#[test]
fn other_carriers_multipiece_have_no_pieces_in_the_answer() {
    let (h, id) = setup();
    let b = booked(&h, &id, &with(book_body(), "/pieces", json!([piece("1"), piece("2")])));
    assert!(b.get("pieces").is_none(), "{b}");
}

/// A limit of the body: the reader stops at the 100th piece (LIMIT_EXCEEDED, as every
/// array past its limit).
#[test]
fn more_than_99_pieces_are_refused() {
    let (h, id) = setup();
    let body = with(on("postal", "postal_priority_mail", "postal_custom"), "/pieces", json!(vec![piece("1"); 100]));
    book(&h, &id, &body).assert_error(400, "LIMIT_EXCEEDED", Some("pieces"));
}

// ---------------------------------------------------------------------------
// quoteId
// ---------------------------------------------------------------------------

/// Quotes `body`'s shipment for its carrier, service and package type; returns the quote.
fn quote_for(h: &Harness, id: &str, body: &Value) -> Value {
    let r = h.quote_one(id, body.clone());
    assert_eq!(r["status"], "success", "{r}");
    r["quotes"][0].clone()
}

fn exchange_to_usd(h: &Harness, amount: &Value, currency: &str) -> i64 {
    use consign::Currency;
    let from = match currency {
        "USD" => Currency::Usd,
        "GBP" => Currency::Gbp,
        "CAD" => Currency::Cad,
        "EUR" => Currency::Eur,
        other => panic!("unexpected currency {other}"),
    };
    let text = amount.to_string();
    let amount = text.trim_matches('"').parse().expect("a decimal");
    let usd = consign::round_cents(h.shipping.rate_book().convert(amount, from, Currency::Usd));
    cents(&json!(consign::format2(usd)))
}

#[test]
fn a_quote_id_books_at_the_quoted_price() {
    let (h, id) = setup();
    let q = quote_for(&h, &id, &book_body());
    let before = cents(&prepay(&h, &id)["balance"]);
    let b = booked(&h, &id, &with(book_body(), "/quoteId", q["quoteId"].clone()));
    let charged = before - cents(&b["prepayBalance"]);
    assert_eq!(charged, exchange_to_usd(&h, &q["totalAmount"], q["currency"].as_str().unwrap()), "quote {q}");
}

#[test]
fn a_quote_id_does_not_price_another_shipment() {
    let (h, id) = setup();
    let q = quote_for(&h, &id, &book_body());
    // Ten times the quoted weight: the quote's price does not cover it.
    let body = with(with(book_body(), "/quoteId", q["quoteId"].clone()), "/pieces/0/weight", json!("20"));
    let a = book(&h, &id, &body);
    a.assert_error(400, "INVALID_REQUEST", Some("quoteId"));
    assert!(a.body["error"].as_str().unwrap().contains("pieces[0] weighs 20"), "{}", a.body);
}

#[test]
fn a_quote_books_one_shipment_only() {
    let (h, id) = setup();
    let q = quote_for(&h, &id, &book_body());
    let first = booked(&h, &id, &with(book_body(), "/quoteId", q["quoteId"].clone()));
    let a = book(&h, &id, &with(book_body(), "/quoteId", q["quoteId"].clone()));
    a.assert_error(409, "CONFLICT", Some("quoteId"));
    assert!(a.body["error"].as_str().unwrap().contains(first["bookNumber"].as_str().unwrap()), "{}", a.body);
    // Once that shipment is voided, the quote may be booked again.
    void(&h, &id, first["bookNumber"].as_str().unwrap()).expect(200);
    booked(&h, &id, &with(book_body(), "/quoteId", q["quoteId"].clone()));
}

#[test]
fn a_voided_shipment_has_no_label() {
    let (h, id) = setup();
    let b = booked(&h, &id, &book_body());
    let book_number = b["bookNumber"].as_str().unwrap();
    void(&h, &id, book_number).expect(200);
    label(&h, &id, book_number, "PDF").assert_error(409, "CONFLICT", None);
}

#[test]
fn a_quote_id_in_another_currency_is_charged_in_usd() {
    let (h, id) = setup();
    let shipment = with(with(intl_body(), "/currency", json!("EUR")), "/pieces/0/declaredValue", json!("70"));
    let q = quote_for(&h, &id, &shipment);
    let before = cents(&prepay(&h, &id)["balance"]);
    let b = booked(&h, &id, &with(shipment, "/quoteId", q["quoteId"].clone()));
    let charged = before - cents(&b["prepayBalance"]);
    assert_eq!(charged, exchange_to_usd(&h, &q["totalAmount"], q["currency"].as_str().unwrap()), "quote {q}");
    let entry = &entries(&h, &id)[0];
    assert_eq!(entry["kind"], "charge");
    assert_eq!(cents(&entry["amount"]), -charged);
}

#[test]
fn a_shipment_booked_from_a_quote_in_another_currency_shows_its_cost_in_that_currency() {
    let (h, id) = setup();
    let euros = with(book_body(), "/currency", json!("EUR"));
    let q = quote_for(&h, &id, &euros);
    assert_eq!(q["currency"], "EUR", "{q}");
    let before = cents(&prepay(&h, &id)["balance"]);
    let b = booked(&h, &id, &with(euros, "/quoteId", q["quoteId"].clone()));
    assert_eq!(before - cents(&b["prepayBalance"]), exchange_to_usd(&h, &q["totalAmount"], "EUR"), "charged in USD");
    let s = retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200).clone();
    assert_eq!(s["currency"], "EUR");
    assert_eq!(cents(&s["totalShippingCost"]), cents(&q["totalAmount"]), "the quoted EUR amount: {s}");
}

#[test]
fn a_quote_id_of_another_service_is_refused() {
    let (h, id) = setup();
    let q = quote_for(&h, &id, &book_body());
    let body = with(on("parcel", "parcel_2nd_day_air", "parcel_custom"), "/quoteId", q["quoteId"].clone());
    book(&h, &id, &body).assert_error(400, "INVALID_REQUEST", Some("quoteId"));
}

#[test]
fn a_quote_id_of_another_carrier_is_refused() {
    let (h, id) = setup();
    let q = quote_for(&h, &id, &book_body());
    let body = with(on("expressground", "expressground_ground", "expressground_custom"), "/quoteId", q["quoteId"].clone());
    book(&h, &id, &body).assert_error(400, "INVALID_REQUEST", Some("quoteId"));
}

#[test]
fn a_quote_id_of_another_package_type_is_refused() {
    let (h, id) = setup();
    let q = quote_for(&h, &id, &on("parcel", "parcel_2nd_day_air", "parcel_custom"));
    let body = with(
        with(
            with(on("parcel", "parcel_2nd_day_air", "parcel_small_box"), "/dimUnit", Value::Null),
            "/pieces/0",
            json!({"weight": "2", "length": null, "width": null, "height": null, "insuranceAmount": null, "declaredValue": null}),
        ),
        "/quoteId",
        q["quoteId"].clone(),
    );
    book(&h, &id, &body).assert_error(400, "INVALID_REQUEST", Some("quoteId"));
}

#[test]
fn an_unknown_quote_id_is_not_found() {
    let (h, id) = setup();
    book(&h, &id, &with(book_body(), "/quoteId", json!(987_654))).assert_error(404, "NOT_FOUND", None);
}

#[test]
fn another_customers_quote_id_is_not_found() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let q = quote_for(&h, &other, &book_body());
    book(&h, &id, &with(book_body(), "/quoteId", q["quoteId"].clone())).assert_error(404, "NOT_FOUND", None);
}

#[test]
fn a_quote_expires_30_days_after_it_was_made() {
    let (h, id) = setup();
    let body = with(book_body(), "/shipmentDate", json!(days_ahead(40)));
    let q = quote_for(&h, &id, &body);
    let before = prepay(&h, &id);
    h.clock.advance(chrono::Duration::days(30));
    book(&h, &id, &with(body, "/quoteId", q["quoteId"].clone())).assert_error(409, "QUOTE_EXPIRED", None);
    assert_eq!(prepay(&h, &id), before, "nothing charged");
}

#[test]
fn a_quote_books_until_the_last_second_of_its_30_days() {
    let (h, id) = setup();
    let body = with(book_body(), "/shipmentDate", json!(days_ahead(40)));
    let q = quote_for(&h, &id, &body);
    h.clock.advance(chrono::Duration::days(30) - chrono::Duration::seconds(1));
    booked(&h, &id, &with(body, "/quoteId", q["quoteId"].clone()));
}

// ---------------------------------------------------------------------------
// idempotencyKey and fulfillment
// ---------------------------------------------------------------------------

#[test]
fn the_same_idempotency_key_and_payload_answer_the_same_and_charge_once() {
    let (h, id) = setup();
    let body = with(book_body(), "/idempotencyKey", json!("order-77-attempt"));
    let first = booked(&h, &id, &body);
    let second = booked(&h, &id, &body);
    assert_eq!(first, second);
    let charges = entries(&h, &id).iter().filter(|e| e["kind"] == "charge").count();
    assert_eq!(charges, 1);
    assert_eq!(list(&h, &id, "").expect(200)["shipments"].as_array().map(Vec::len), Some(1));
}

#[test]
fn an_idempotency_key_reused_with_another_payload_is_a_conflict() {
    let (h, id) = setup();
    let body = with(book_body(), "/idempotencyKey", json!("order-77-attempt"));
    booked(&h, &id, &body);
    let before = prepay(&h, &id);
    book(&h, &id, &with(body, "/pieces/0/weight", json!("3"))).assert_error(409, "CONFLICT", None);
    assert_eq!(prepay(&h, &id), before);
}

#[test]
fn an_idempotency_key_is_per_customer() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let body = with(book_body(), "/idempotencyKey", json!("shared-key"));
    let a = booked(&h, &id, &body);
    let b = booked(&h, &other, &body);
    assert_ne!(a["bookNumber"], b["bookNumber"]);
}

#[test]
fn a_fulfillment_with_an_unknown_integration_is_refused() {
    let (h, id) = setup();
    let body = with(book_body(), "/fulfillment", json!({"integrationId": "nope", "orderId": "1001", "items": []}));
    book(&h, &id, &body).assert_error(400, "INVALID_REQUEST", Some("fulfillment.integrationId"));
}

#[test]
fn a_fulfillment_with_an_own_integration_is_shown_on_the_shipment() {
    let (h, id) = setup();
    let a = h.call("POST", &Harness::path(&id, "/integrations"), &json!({"name": "Web shop"}));
    let integration = a.expect(201)["integrationId"].as_str().unwrap().to_string();
    // The order must exist: put it first.
    h.call("PUT", &Harness::path(&id, &format!("/integrations/{integration}/orders/1001")), &order_body("1001")).expect(201);
    let fulfillment = json!({"integrationId": integration, "orderId": "1001",
        "items": [{"productId": "P-1", "sku": "MUG-BLUE", "lineId": "L1", "quantity": 2}]});
    let b = booked(&h, &id, &with(book_body(), "/fulfillment", fulfillment.clone()));
    let s = retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200).clone();
    assert_eq!(s["fulfillment"], fulfillment);
}

// ---------------------------------------------------------------------------
// Prepay (DECISIONS 7)
// ---------------------------------------------------------------------------

#[test]
fn a_cost_above_the_balance_without_approval_is_insufficient_funds_and_writes_nothing() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "0.00", "1.00");
    add_payment_method(&h, &id);
    let before = prepay(&h, &id);
    book(&h, &id, &book_body()).assert_error(402, "INSUFFICIENT_FUNDS", None);
    assert_eq!(prepay(&h, &id), before);
    assert_eq!(list(&h, &id, "").expect(200)["shipments"], json!([]));
}

#[test]
fn approval_with_a_payment_method_recharges_until_the_minimum_is_kept() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "50.00", "20.00");
    add_payment_method(&h, &id);
    let b = booked(&h, &id, &with(book_body(), "/approvePrepayRecharge", json!(true)));
    let list = entries(&h, &id);
    assert_eq!(list[0]["kind"], "charge");
    let cost = -cents(&list[0]["amount"]);
    let recharges: Vec<&Value> = list[1..list.len() - 1].iter().collect();
    assert!(!recharges.is_empty(), "a recharge was needed: {list:?}");
    assert!(recharges.iter().all(|e| e["kind"] == "recharge" && cents(&e["amount"]) == 2000), "{list:?}");
    let n = i64::try_from(recharges.len()).unwrap();
    let balance = 2000 + 2000 * n - cost;
    assert_eq!(cents(&b["prepayBalance"]), balance);
    assert!(balance >= 5000, "the minimum is kept: {balance}");
    assert!(balance - 2000 < 5000, "no more recharges than needed: {n} for a cost of {cost}");
}

#[test]
fn approval_recharges_to_keep_the_minimum_even_when_the_balance_covers_the_cost() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "195.00", "200.00");
    add_payment_method(&h, &id);
    let b = booked(&h, &id, &with(book_body(), "/approvePrepayRecharge", json!(true)));
    let list = entries(&h, &id);
    let kinds: Vec<&str> = list.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds, ["charge", "recharge", "recharge"], "{list:?}");
    assert_eq!(cents(&b["prepayBalance"]), 40_000 + cents(&list[0]["amount"]));
}

#[test]
fn approval_without_a_payment_method_is_insufficient_funds_when_the_cost_exceeds_the_balance() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "0.00", "1.00");
    let before = prepay(&h, &id);
    book(&h, &id, &with(book_body(), "/approvePrepayRecharge", json!(true))).assert_error(402, "INSUFFICIENT_FUNDS", None);
    assert_eq!(prepay(&h, &id), before);
}

#[test]
fn approval_without_a_payment_method_still_books_what_the_balance_covers() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "195.00", "200.00");
    let b = booked(&h, &id, &with(book_body(), "/approvePrepayRecharge", json!(true)));
    let list = entries(&h, &id);
    assert_eq!(list.len(), 2, "opening recharge and the charge only: {list:?}");
    assert_eq!(cents(&b["prepayBalance"]), 20_000 + cents(&list[0]["amount"]));
}

#[test]
fn falling_below_the_minimum_without_approval_books_without_a_recharge() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "195.00", "200.00");
    add_payment_method(&h, &id);
    let b = booked(&h, &id, &book_body());
    let list = entries(&h, &id);
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0]["kind"], "charge");
    assert!(cents(&b["prepayBalance"]) < 19_500, "below the minimum now: {b}");
}

#[test]
fn approval_when_the_balance_stays_above_the_minimum_does_not_recharge() {
    let (h, id) = setup();
    add_payment_method(&h, &id);
    booked(&h, &id, &with(book_body(), "/approvePrepayRecharge", json!(true)));
    assert_eq!(entries(&h, &id).iter().filter(|e| e["kind"] == "recharge").count(), 1, "only the opening recharge");
}

#[test]
fn voiding_refunds_the_charge_as_a_ledger_entry() {
    let (h, id) = setup();
    let before = cents(&prepay(&h, &id)["balance"]);
    let b = booked(&h, &id, &book_body());
    let charged = before - cents(&b["prepayBalance"]);
    let v = void(&h, &id, b["bookNumber"].as_str().unwrap());
    let body = v.expect(200);
    assert_eq!(body["voided"], true);
    assert_eq!(cents(&body["prepayBalance"]), before);
    let list = entries(&h, &id);
    assert_eq!(list[0]["kind"], "refund");
    assert_eq!(cents(&list[0]["amount"]), charged);
    assert_eq!(cents(&prepay(&h, &id)["balance"]), before);
    assert_eq!(retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200)["voided"], true);
}

#[test]
fn voiding_twice_is_a_conflict_and_refunds_once() {
    let (h, id) = setup();
    let b = booked(&h, &id, &book_body());
    let book_number = b["bookNumber"].as_str().unwrap();
    void(&h, &id, book_number).expect(200);
    let after = prepay(&h, &id);
    void(&h, &id, book_number).assert_error(409, "CONFLICT", None);
    assert_eq!(prepay(&h, &id), after);
}

#[test]
fn voiding_another_customers_shipment_is_not_found() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let b = booked(&h, &other, &book_body());
    void(&h, &id, b["bookNumber"].as_str().unwrap()).assert_error(404, "NOT_FOUND", None);
    assert_eq!(retrieve(&h, &other, b["bookNumber"].as_str().unwrap()).expect(200)["voided"], false);
}

#[test]
fn voiding_an_unknown_shipment_is_not_found() {
    let (h, id) = setup();
    void(&h, &id, "1999999999").assert_error(404, "NOT_FOUND", None);
}

#[test]
fn voided_false_is_refused() {
    let (h, id) = setup();
    let b = booked(&h, &id, &book_body());
    let path = Harness::path(&id, &format!("/shipments/{}", b["bookNumber"].as_str().unwrap()));
    h.call("POST", &path, &json!({"voided": false})).assert_error(400, "INVALID_REQUEST", Some("voided"));
}

#[test]
fn ledger_entries_are_newest_first_and_sum_to_the_balance() {
    let (h, id) = setup();
    let a = booked(&h, &id, &book_body());
    booked(&h, &id, &on("postal", "postal_priority_mail", "postal_custom"));
    void(&h, &id, a["bookNumber"].as_str().unwrap()).expect(200);
    let p = prepay(&h, &id);
    let list = p["entries"].as_array().cloned().unwrap_or_default();
    let kinds: Vec<&str> = list.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds, ["refund", "charge", "charge", "recharge"]);
    let ids: Vec<i64> = list.iter().filter_map(|e| e["id"].as_i64()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first: {ids:?}");
    assert_eq!(list.iter().map(|e| cents(&e["amount"])).sum::<i64>(), cents(&p["balance"]));
    assert_two_decimals(&p["balance"]);
}

// ---------------------------------------------------------------------------
// Tracking numbers (DECISIONS 8)
// ---------------------------------------------------------------------------

#[test]
fn tracking_numbers_pass_each_carriers_validator_and_are_unique() {
    let (h, id) = setup();
    let families: std::collections::HashMap<String, String> = h
        .services(&id)
        .iter()
        .map(|s| (s["serviceCode"].as_str().unwrap().to_string(), s["family"].as_str().unwrap().to_string()))
        .collect();
    let bodies = [
        book_body(),
        with(book_body(), "/pieces", json!([piece("1"), piece("2")])),
        on("postal", "postal_priority_mail", "postal_custom"),
        with(on("postal", "postal_priority_mail", "postal_custom"), "/pieces", json!([piece("1"), piece("2")])),
        intl_body(),
        on("expressground", "expressground_ground", "expressground_custom"),
        on("expressground", "expressground_2day", "expressground_custom"),
        on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom"),
        book_body(),
    ];
    add_payment_method(&h, &id);
    let catalog = h.shipping.catalog();
    let mut seen = std::collections::HashSet::new();
    for body in &bodies {
        let b = booked(&h, &id, &with(body.clone(), "/approvePrepayRecharge", json!(true)));
        let s = retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200).clone();
        let carrier = s["carrierCode"].as_str().unwrap();
        let family = &families[s["serviceCode"].as_str().unwrap()];
        let kind = catalog.carrier(carrier).and_then(|c| c.tracking_kind(family)).unwrap_or_else(|| panic!("a kind for {carrier}"));
        let numbers: Vec<&str> = s["trackingNumbers"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(numbers.len(), s["pieces"].as_array().map_or(0, Vec::len), "{s}");
        assert_eq!(numbers[0], b["trackingNumber"]);
        for tn in numbers {
            assert!(kind.is_valid(tn), "{tn} is not a valid {kind:?} number ({carrier})");
            assert!(seen.insert(tn.to_string()), "{tn} was given twice");
        }
    }
}

// ---------------------------------------------------------------------------
// Labels (DECISIONS 8, 9)
// ---------------------------------------------------------------------------

fn pdf_text(doc: &lopdf::Document) -> String {
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    doc.extract_text(&pages).expect("the label's text extracts")
}

fn media_box(doc: &lopdf::Document) -> Vec<f64> {
    let id = doc.get_pages()[&1];
    let dict = doc.get_dictionary(id).expect("a page dictionary");
    dict.get(b"MediaBox")
        .expect("a MediaBox")
        .as_array()
        .expect("an array")
        .iter()
        .map(|o| match o {
            lopdf::Object::Integer(i) => *i as f64,
            lopdf::Object::Real(r) => f64::from(*r),
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[test]
fn a_pdf_label_is_a_4x6_page_with_tracking_number_receiver_and_service() {
    let (h, id) = setup();
    let b = booked(&h, &id, &book_body());
    let pdfs = images(&h, &id, b["bookNumber"].as_str().unwrap(), "PDF");
    assert_eq!(pdfs.len(), 1);
    assert!(pdfs[0].starts_with(b"%PDF-"), "a PDF");
    let doc = lopdf::Document::load_mem(&pdfs[0]).expect("the PDF parses");
    assert_eq!(media_box(&doc), [0.0, 0.0, 288.0, 432.0]);
    let text = pdf_text(&doc);
    let service = h.services(&id).into_iter().find(|s| s["serviceCode"] == "parcel_ground").unwrap();
    for needle in [b["trackingNumber"].as_str().unwrap(), "Bo Kim", "Los Angeles", service["serviceLabel"].as_str().unwrap()] {
        assert!(text.to_uppercase().contains(&needle.to_uppercase()), "{needle:?} missing from {text}");
    }
}

#[test]
fn a_zpl_label_is_one_format_with_a_code128_of_the_tracking_number() {
    let (h, id) = setup();
    let b = booked(&h, &id, &with(book_body(), "/labelImageFormat", json!("ZPL")));
    let zpl = images(&h, &id, b["bookNumber"].as_str().unwrap(), "ZPL");
    let text = String::from_utf8(zpl[0].clone()).expect("ZPL is text");
    let tn = b["trackingNumber"].as_str().unwrap();
    assert!(text.trim_start().starts_with("^XA"), "{text}");
    assert!(text.trim_end().ends_with("^XZ"), "{text}");
    let barcode = text.lines().find(|l| l.contains("^BC")).unwrap_or_else(|| panic!("no ^BC in {text}"));
    assert!(barcode.contains(&format!("^FD{tn}^FS")), "the Code 128 carries the tracking number: {barcode}");
}

#[test]
fn an_epl2_label_for_carrier_d_clears_the_buffer_draws_a_barcode_and_prints_once() {
    let (h, id) = setup();
    let body = with(on("expressground", "expressground_ground", "expressground_custom"), "/labelImageFormat", json!("EPL2"));
    let b = booked(&h, &id, &body);
    let epl = images(&h, &id, b["bookNumber"].as_str().unwrap(), "EPL2");
    let text = String::from_utf8(epl[0].clone()).expect("EPL2 is text");
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.first(), Some(&"N"), "{text}");
    assert_eq!(lines.last(), Some(&"P1"), "{text}");
    let tn = b["trackingNumber"].as_str().unwrap();
    assert!(lines.iter().any(|l| l.starts_with('B') && l.contains(tn)), "a barcode of {tn}: {text}");
}

#[test]
fn a_label_format_the_carrier_does_not_print_is_refused() {
    let (h, id) = setup();
    let b = booked(&h, &id, &intl_body());
    label(&h, &id, b["bookNumber"].as_str().unwrap(), "ZPL").assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
    label(&h, &id, b["bookNumber"].as_str().unwrap(), "EPL2").assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
}

#[test]
fn an_unknown_label_format_in_the_path_is_refused() {
    let (h, id) = setup();
    let b = booked(&h, &id, &book_body());
    label(&h, &id, b["bookNumber"].as_str().unwrap(), "PNG").assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
}

#[test]
fn a_label_in_another_format_the_carrier_prints_is_rendered() {
    let (h, id) = setup();
    let b = booked(&h, &id, &book_body());
    let zpl = images(&h, &id, b["bookNumber"].as_str().unwrap(), "ZPL");
    assert!(String::from_utf8_lossy(&zpl[0]).contains(b["trackingNumber"].as_str().unwrap()));
}

#[test]
fn there_is_one_label_image_per_piece() {
    let (h, id) = setup();
    let b = booked(&h, &id, &with(book_body(), "/pieces", json!([piece("1"), piece("2"), piece("3")])));
    let book_number = b["bookNumber"].as_str().unwrap();
    let pdfs = images(&h, &id, book_number, "PDF");
    assert_eq!(pdfs.len(), 3);
    let numbers = retrieve(&h, &id, book_number).expect(200)["trackingNumbers"].clone();
    for (pdf, tn) in pdfs.iter().zip(numbers.as_array().unwrap()) {
        let doc = lopdf::Document::load_mem(pdf).expect("each label parses");
        assert!(pdf_text(&doc).contains(tn.as_str().unwrap()), "label of {tn}");
    }
}

#[test]
fn another_customers_label_is_not_found() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let b = booked(&h, &other, &book_body());
    label(&h, &id, b["bookNumber"].as_str().unwrap(), "PDF").assert_error(404, "NOT_FOUND", None);
}

// ---------------------------------------------------------------------------
// Retrieve and list
// ---------------------------------------------------------------------------

#[test]
fn retrieve_shows_the_fields_of_a_search_result() {
    let (h, id) = setup();
    let body = with(
        with(with(book_body(), "/shipmentReference2", json!("PO-9")), "/signatureOptionCode", json!("parcel_signature")),
        "/pieces/0/insuranceAmount",
        json!("150.00"),
    );
    let b = booked(&h, &id, &body);
    let s = retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200).clone();
    assert_eq!(s["bookNumber"], b["bookNumber"]);
    assert_eq!(s["trackingNumber"], b["trackingNumber"]);
    assert_eq!(s["trackingNumbers"], json!([b["trackingNumber"]]));
    assert_eq!(s["voided"], false);
    assert_eq!(s["carrierCode"], "parcel");
    assert_eq!(s["serviceCode"], "parcel_ground");
    assert_eq!(s["packageTypeCode"], "parcel_custom");
    assert_eq!(s["shipmentDate"], days_ahead(2));
    assert_eq!(s["shipperReference"], "INV-1001");
    assert_eq!(s["shipmentReference"], "INV-1001");
    assert_eq!(s["shipperReference2"], "PO-9");
    assert_eq!(s["contentDescription"], "ceramics");
    for field in ["name", "company", "address1", "address2", "city", "state", "zip", "country"] {
        assert_eq!(s["sender"][field], body["sender"][field], "sender.{field}");
        assert_eq!(s["receiver"][field], body["receiver"][field], "receiver.{field}");
    }
    assert_eq!(s["residential"], false);
    assert_eq!(s["signatureOptionCode"], "parcel_signature");
    assert_eq!(s["weightUnit"], "lb");
    assert_eq!(s["dimUnit"], "in");
    assert_eq!(s["currency"], "USD");
    assert!(s["customsCurrency"].is_null(), "{s}");
    let p = &s["pieces"][0];
    for (field, value) in [("weight", "2"), ("length", "10"), ("width", "8"), ("height", "6")] {
        assert_eq!(p[field], value, "pieces[0].{field} as a numeric string: {s}");
    }
    assert_eq!(cents(&p["insuranceAmount"]), 15_000);
    assert!(p["declaredValue"].is_null());
    assert!(s["fulfillment"].is_null());
    assert!(s["totalShippingCost"].is_number(), "a JSON number: {s}");
    let balance_drop = cents(&prepay(&h, &id)["entries"][0]["amount"]);
    assert_eq!(cents(&s["totalShippingCost"]), -balance_drop);
}

#[test]
fn retrieve_shows_a_booking_in_ounces_in_pounds() {
    let (h, id) = setup();
    let body = with(with(book_body(), "/weightUnit", json!("oz")), "/pieces/0/weight", json!("40"));
    let b = booked(&h, &id, &body);
    let s = retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200).clone();
    assert_eq!(s["weightUnit"], "lb");
    assert_eq!(s["pieces"][0]["weight"], "2.5");
}

#[test]
fn retrieve_shows_a_booking_in_grams_in_kilograms() {
    let (h, id) = setup();
    let body = with(with(intl_body(), "/weightUnit", json!("g")), "/pieces/0/weight", json!("1500"));
    let b = booked(&h, &id, &body);
    let s = retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200).clone();
    assert_eq!(s["weightUnit"], "kg");
    assert_eq!(s["pieces"][0]["weight"], "1.5");
}

#[test]
fn retrieving_another_customers_shipment_is_not_found() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let b = booked(&h, &other, &book_body());
    retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).assert_error(404, "NOT_FOUND", None);
}

#[test]
fn retrieving_an_unknown_shipment_is_not_found() {
    let (h, id) = setup();
    retrieve(&h, &id, "1999999999").assert_error(404, "NOT_FOUND", None);
}

fn book_numbers(a: &Answer) -> Vec<String> {
    a.expect(200)["shipments"].as_array().into_iter().flatten().filter_map(|s| s["bookNumber"].as_str()).map(str::to_string).collect()
}

#[test]
fn list_shows_own_shipments_by_book_number() {
    let (h, id) = setup();
    let other = h.create_customer("bo@example.com");
    let mine: Vec<String> = (0..3).map(|_| booked(&h, &id, &book_body())["bookNumber"].as_str().unwrap().to_string()).collect();
    booked(&h, &other, &book_body());
    let mut sorted = mine.clone();
    sorted.sort();
    assert_eq!(book_numbers(&list(&h, &id, "")), sorted);
}

#[test]
fn list_starts_at_min_book_number_inclusive_and_stops_at_limit() {
    let (h, id) = setup();
    let mut numbers: Vec<String> = (0..4).map(|_| booked(&h, &id, &book_body())["bookNumber"].as_str().unwrap().to_string()).collect();
    numbers.sort();
    assert_eq!(book_numbers(&list(&h, &id, &format!("?minBookNumber={}", numbers[1]))), numbers[1..]);
    assert_eq!(book_numbers(&list(&h, &id, &format!("?minBookNumber={}&limit=2", numbers[1]))), numbers[1..3]);
    assert_eq!(book_numbers(&list(&h, &id, "?limit=1")), numbers[..1]);
}

/// Book numbers are ten digits from 1000000001; `minBookNumber` is compared as a
/// number, so a bound below every book number lists from the first, whatever its digits.
#[test]
fn min_book_number_is_compared_as_a_number() {
    let (h, id) = setup();
    let mut numbers: Vec<String> = (0..2).map(|_| booked(&h, &id, &book_body())["bookNumber"].as_str().unwrap().to_string()).collect();
    numbers.sort();
    for below in ["1", "0001", "999", "0", "000000000000000", "999999999"] {
        assert_eq!(book_numbers(&list(&h, &id, &format!("?minBookNumber={below}"))), numbers, "{below}");
    }
    let padded = format!("00{}", numbers[1]);
    assert_eq!(book_numbers(&list(&h, &id, &format!("?minBookNumber={padded}"))), numbers[1..], "leading zeros");
    assert!(book_numbers(&list(&h, &id, "?minBookNumber=10000000000")).is_empty(), "above every ten-digit number");
    assert_eq!(book_numbers(&list(&h, &id, "?minBookNumber=")), numbers, "empty is from the first");
}

#[test]
fn a_min_book_number_that_is_not_a_number_is_refused() {
    let (h, id) = setup();
    for bad in ["abc", "-1", "+1000000001", "1e9", "1000000001x", "%201000000001"] {
        list(&h, &id, &format!("?minBookNumber={bad}")).assert_error(400, "INVALID_REQUEST", Some("minBookNumber"));
    }
}

#[test]
fn list_accepts_a_limit_of_100() {
    let (h, id) = setup();
    list(&h, &id, "?limit=100").expect(200);
}

#[test]
fn a_list_limit_of_0_is_refused() {
    let (h, id) = setup();
    list(&h, &id, "?limit=0").assert_error(400, "INVALID_REQUEST", Some("limit"));
}

#[test]
fn a_list_limit_above_100_is_clamped_to_100() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "0", "10000.00");
    for _ in 0..101 {
        h.book(&id, &book_body());
    }
    for limit in ["101", "250", "100000"] {
        let a = list(&h, &id, &format!("?limit={limit}"));
        assert_eq!(a.expect(200)["shipments"].as_array().map(Vec::len), Some(100), "limit={limit}");
    }
}

#[test]
fn a_list_limit_that_is_not_a_number_is_refused() {
    let (h, id) = setup();
    list(&h, &id, "?limit=x").assert_error(400, "INVALID_REQUEST", Some("limit"));
}

#[test]
fn the_list_entries_carry_the_retrieve_fields() {
    let (h, id) = setup();
    let b = booked(&h, &id, &book_body());
    let listed = list(&h, &id, "").expect(200)["shipments"][0].clone();
    assert_eq!(listed, retrieve(&h, &id, b["bookNumber"].as_str().unwrap()).expect(200).clone());
}

// ---------------------------------------------------------------------------
// What real clients send
// ---------------------------------------------------------------------------

#[test]
fn the_label_without_a_format_is_the_format_chosen_at_booking() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &with(book_body(), "/labelImageFormat", json!("ZPL")));
    let a = h.get(&Harness::path(&id, &format!("/shipments/{book}/label")));
    assert_eq!(a.expect(200)["labelImageFormat"], "ZPL", "{}", a.body);
    let zpl = label(&h, &id, &book, "ZPL");
    assert_eq!(a.body["base64Images"], zpl.expect(200)["base64Images"]);
    let pdf = h.book(&id, &book_body());
    let a = h.get(&Harness::path(&id, &format!("/shipments/{pdf}/label")));
    assert_eq!(a.expect(200)["labelImageFormat"], "PDF");
}

#[test]
fn the_label_format_of_the_path_is_matched_in_any_case() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let book = h.book(&id, &book_body());
    for format in ["pdf", "Pdf", "zpl"] {
        let a = label(&h, &id, &book, format);
        assert_eq!(a.expect(200)["labelImageFormat"], format.to_ascii_uppercase(), "{format}");
    }
    label(&h, &id, &book, "png").assert_error(400, "INVALID_REQUEST", Some("labelImageFormat"));
}

#[test]
fn the_label_of_an_unknown_shipment_is_not_found_without_a_format_too() {
    let (h, id) = setup();
    h.get(&Harness::path(&id, "/shipments/1000009999/label")).assert_error(404, "NOT_FOUND", None);
}

#[test]
fn documented_signature_codes_book_in_any_case_as_the_carrier_option() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "0", "1000.00");
    for (code, expected) in [("DIRECT", "parcel_signature"), ("adult", "parcel_adult_signature"), ("Parcel_Signature", "parcel_signature")]
    {
        let book = h.book(&id, &with(book_body(), "/signatureOptionCode", json!(code)));
        let s = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200).clone();
        assert_eq!(s["signatureOptionCode"], expected, "{code}");
    }
    let a = h.book_with(&id, &with(book_body(), "/signatureOptionCode", json!("indirect")));
    a.assert_error(400, "INVALID_REQUEST", Some("signatureOptionCode"));
}

/// `none`, `no_signature_required` and `service_default`, in any case, ask for no
/// signature: booked and charged as without one, and a quote made without one books
/// with them (the quote lock sees the same shipment).
#[test]
fn codes_meaning_no_signature_book_as_no_signature() {
    let h = Harness::new();
    let id = customer_with_prepay(&h, "ann@example.com", "0", "1000.00");
    let plain = h.book_with(&id, &book_body()).expect(201).clone();
    for code in ["none", "NO_SIGNATURE_REQUIRED", "Service_Default", " None "] {
        let b = h.book_with(&id, &with(book_body(), "/signatureOptionCode", json!(code))).expect(201).clone();
        assert_eq!(b["totalShippingCost"], plain["totalShippingCost"], "{code}");
        let s = h.get(&Harness::path(&id, &format!("/shipments/{}", b["bookNumber"].as_str().unwrap()))).expect(200).clone();
        assert_eq!(s["signatureOptionCode"], Value::Null, "{code}");
    }
    let q = quote_for(&h, &id, &book_body());
    h.book_with(&id, &with(with(book_body(), "/quoteId", q["quoteId"].clone()), "/signatureOptionCode", json!("NONE"))).expect(201);
}
