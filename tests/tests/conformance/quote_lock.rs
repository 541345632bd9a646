//! A booking by `quoteId` (DECISIONS 6) is charged the quoted price only for the
//! shipment that was quoted: every input that goes into the price must match, or the
//! booking is refused with 400 on `quoteId` naming what differs.

use consign_conformance::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// A domestic booking on `carrier`/`service`/`package`: Philadelphia to Los Angeles,
/// one 2 lb box 10x8x6 in.
fn booking_on(carrier: &str, service: &str, package: &str) -> Value {
    let mut b = quote_shipment();
    b["carrierCode"] = json!(carrier);
    b["serviceCode"] = json!(service);
    b["packageTypeCode"] = json!(package);
    b["approvePrepayRecharge"] = json!(true);
    b
}

fn parcel_ground() -> Value {
    booking_on("parcel", "parcel_ground", "parcel_custom")
}

/// An international booking: carrier C express worldwide, Philadelphia to London, with
/// a declared value.
fn intl_express() -> Value {
    let mut b = intl_shipment();
    b["carrierCode"] = json!("intlexpress");
    b["serviceCode"] = json!("intlexpress_express_worldwide");
    b["packageTypeCode"] = json!("intlexpress_custom");
    b["approvePrepayRecharge"] = json!(true);
    b
}

/// A service with a customer whose bookings recharge the prepay balance when needed.
fn setup() -> (Harness, String) {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    (h, id)
}

/// The one quote of `body`'s service and package type.
#[track_caller]
fn quote_of(h: &Harness, id: &str, body: &Value) -> Value {
    let r = h.quote_one(id, body.clone());
    assert_eq!(r["status"], "success", "{r}");
    let quotes = r["quotes"].as_array().expect("quotes");
    assert_eq!(quotes.len(), 1, "{r}");
    quotes[0].clone()
}

fn book(h: &Harness, id: &str, body: &Value) -> Answer {
    h.call("POST", &Harness::path(id, "/shipments"), body)
}

/// Books `changed` with the quote of `quoted` and asserts it is refused on `quoteId`
/// with a message that names `named`.
#[track_caller]
fn refused_naming(quoted: Value, changed: Value, named: &str) {
    let (h, id) = setup();
    let q = quote_of(&h, &id, &quoted);
    let a = book(&h, &id, &with(changed.clone(), "/quoteId", q["quoteId"].clone()));
    a.assert_error(400, "INVALID_REQUEST", Some("quoteId"));
    let message = a.body["details"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains(named), "expected {named:?} in {message:?}");
    // The same shipment books without the quote: the refusal is the quote's, not the shipment's.
    book(&h, &id, &changed).expect(201);
}

#[test]
fn a_quote_without_dangerous_goods_does_not_price_a_shipment_with_them() {
    let plain = booking_on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom");
    let (h, id) = setup();
    let without = quote_of(&h, &id, &plain);
    let with_goods = quote_of(&h, &id, &with(plain.clone(), "/dangerousGoodsCode", json!("LTD-QTY")));
    assert_ne!(without["totalAmount"], with_goods["totalAmount"], "dangerous goods are priced");
    refused_naming(plain.clone(), with(plain, "/dangerousGoodsCode", json!("LTD-QTY")), "dangerousGoodsCode");
}

#[test]
fn a_quote_in_one_currency_does_not_book_a_shipment_in_another() {
    let quoted = with(parcel_ground(), "/currency", json!("EUR"));
    refused_naming(quoted, parcel_ground(), "currency is USD, the quote priced EUR");
}

#[test]
fn a_quote_in_one_weight_unit_does_not_book_the_same_weight_in_another() {
    let ounces = with(with(parcel_ground(), "/weightUnit", json!("oz")), "/pieces/0/weight", json!("32"));
    refused_naming(parcel_ground(), ounces, "weightUnit is oz, the quote priced lb");
}

/// One test per priced input of the domestic parcel booking: changed after the quote,
/// the booking by `quoteId` is refused naming it.
macro_rules! priced_input {
    ($($test:ident: $changed:expr => $named:literal;)*) => {$(
        #[test]
        fn $test() {
            refused_naming(parcel_ground(), $changed, $named);
        }
    )*};
}

priced_input! {
    a_heavier_piece: with(parcel_ground(), "/pieces/0/weight", json!("20")) => "pieces[0] weighs 20 lb, the quote priced 2 lb";
    a_longer_piece: with(parcel_ground(), "/pieces/0/length", json!("40")) => "pieces[0]'s dimensions";
    another_dimension_unit: with(parcel_ground(), "/dimUnit", json!("cm")) => "dimUnit";
    an_insured_piece: with(parcel_ground(), "/pieces/0/insuranceAmount", json!("500")) => "pieces[0].insuranceAmount";
    another_piece: with(parcel_ground(), "/pieces", json!([parcel_ground()["pieces"][0], parcel_ground()["pieces"][0]]))
        => "2 pieces are booked, 1 were quoted";
    a_residential_receiver: with(parcel_ground(), "/residential", json!(true)) => "residential";
    a_signature: with(parcel_ground(), "/signatureOptionCode", json!("parcel_signature")) => "signatureOptionCode";
    another_receiver_zip: with(parcel_ground(), "/receiver/zip", json!("10001")) => "the receiver's country, state or postal code";
    another_sender_zip: with(parcel_ground(), "/sender/zip", json!("10001")) => "the sender's country, state or postal code";
}

#[test]
fn saturday_delivery_is_a_priced_input() {
    let air = booking_on("parcel", "parcel_2nd_day_air", "parcel_custom");
    refused_naming(air.clone(), with(air, "/saturdayDelivery", json!(true)), "saturdayDelivery");
}

#[test]
fn am_delivery_is_a_priced_input() {
    let express = booking_on("postal", "postal_priority_mail_express", "postal_custom");
    refused_naming(express.clone(), with(express, "/postalExpressAmDelivery", json!(true)), "postalExpressAmDelivery");
}

#[test]
fn a_declared_value_is_a_priced_input() {
    let intl = intl_express();
    refused_naming(intl.clone(), with(intl, "/pieces/0/declaredValue", json!("900")), "pieces[0].declaredValue");
}

#[test]
fn unpriced_fields_may_change_between_quote_and_booking() {
    let (h, id) = setup();
    let q = quote_of(&h, &id, &parcel_ground());
    let changed = with(with(parcel_ground(), "/receiver/name", json!("Bo Kim-Lee")), "/shipmentReference", json!("INV-2002"));
    book(&h, &id, &with(changed, "/quoteId", q["quoteId"].clone())).expect(201);
}

// ---------------------------------------------------------------------------
// The property: changed or not, a booking by quoteId is refused or charged exactly
// what a fresh quote of the booked shipment would be.
// ---------------------------------------------------------------------------

/// The shipments the property starts from: services of every carrier family, between
/// them taking every priced option.
fn bases() -> Vec<Value> {
    let intl = intl_express();
    vec![
        parcel_ground(),
        booking_on("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom"),
        booking_on("postal", "postal_priority_mail_express", "postal_custom"),
        booking_on("parcel", "parcel_2nd_day_air", "parcel_custom"),
        booking_on("parcel", "parcel_2nd_day_air", "parcel_small_box"),
        intl,
    ]
}

/// A change to one priced input (or to none).
fn change() -> impl Strategy<Value = (String, Value)> {
    let amount = (1u32..5000).prop_map(|cents| json!(format!("{}.{:02}", cents / 100, cents % 100)));
    prop_oneof![
        Just(("/shipmentReference".to_string(), json!("unchanged price"))),
        amount.clone().prop_map(|w| ("/pieces/0/weight".to_string(), w)),
        (1u32..60).prop_map(|l| ("/pieces/0/length".to_string(), json!(l.to_string()))),
        amount.clone().prop_map(|v| ("/pieces/0/insuranceAmount".to_string(), v)),
        amount.prop_map(|v| ("/pieces/0/declaredValue".to_string(), v)),
        Just(("/residential".to_string(), json!(true))),
        prop::sample::select(vec!["parcel_signature", "postal_signature_confirmation", "intlexpress_direct_signature"])
            .prop_map(|s| ("/signatureOptionCode".to_string(), json!(s))),
        Just(("/saturdayDelivery".to_string(), json!(true))),
        Just(("/postalExpressAmDelivery".to_string(), json!(true))),
        Just(("/dangerousGoodsCode".to_string(), json!("LTD-QTY"))),
        prop::sample::select(vec!["USD", "CAD", "EUR", "GBP"]).prop_map(|c| ("/currency".to_string(), json!(c))),
        prop::sample::select(vec!["lb", "kg", "oz", "g"]).prop_map(|u| ("/weightUnit".to_string(), json!(u))),
        prop::sample::select(vec!["10001", "90012", "60601", "19103"]).prop_map(|z| ("/receiver/zip".to_string(), json!(z))),
        prop::sample::select(vec!["10001", "19103", "33101"]).prop_map(|z| ("/sender/zip".to_string(), json!(z))),
    ]
}

/// Money with two decimals as integer cents.
fn cents(text: &str) -> i64 {
    text.replace('.', "").parse().expect("money with two decimals")
}

/// The USD cents a quote of `total` in `currency` is charged, as the ledger converts it.
fn usd_cents(h: &Harness, total: &Value, currency: &str) -> i64 {
    let from: consign::Currency = currency.parse().expect("a currency");
    let text = total.as_str().map_or_else(|| total.to_string(), str::to_string);
    let amount = text.parse().expect("a decimal");
    cents(&consign::format2(consign::round_cents(h.shipping.rate_book().convert(amount, from, consign::Currency::Usd))))
}

/// The USD cents of the newest `charge` entry of the customer's prepay ledger.
fn last_charge(h: &Harness, id: &str) -> i64 {
    let prepay = h.get(&Harness::path(id, "/prepay")).expect(200).clone();
    let entries = prepay["entries"].as_array().cloned().unwrap_or_default();
    let charge = entries.iter().find(|e| e["kind"] == "charge").expect("a charge");
    -cents(charge["amount"].as_str().expect("money as a string"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_booking_by_quote_id_is_refused_or_charged_what_a_fresh_quote_would_be((pointer, value) in change()) {
        let (h, id) = setup();
        for base in bases() {
            let quoted = quote_of(&h, &id, &base);
            let changed = with(base.clone(), &pointer, value.clone());
            let a = book(&h, &id, &with(changed.clone(), "/quoteId", quoted["quoteId"].clone()));
            if a.status == 201 {
                let fresh = h.quote_one(&id, changed.clone());
                prop_assert_eq!(&fresh["status"], "success", "booked, but a fresh quote fails: {}", fresh);
                let fresh = &fresh["quotes"][0];
                let expected = usd_cents(&h, &fresh["totalAmount"], fresh["currency"].as_str().unwrap_or_default());
                prop_assert_eq!(last_charge(&h, &id), expected, "{} of {} charged other than a fresh quote: {}", pointer, base, fresh);
            } else {
                prop_assert!(matches!(a.status, 400 | 409 | 422), "{} {}", a.status, a.body);
            }
        }
    }
}
