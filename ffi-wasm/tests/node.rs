//! The WASM package in Node (`wasm-bindgen-test`): the flow of `flow/mod.rs` through the
//! JS `Shipping` class must answer exactly what the native library answered
//! (`tests/fixtures/flow.json`), errors included; plus the package's own surface:
//! `handle`, errors as JS `Error`s, export and import of the database bytes.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, reason = "test code")]

mod flow;

use consign_wasm::Shipping;
use js_sys::{Function, JsString, Reflect, JSON};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const FIXTURE: &str = include_str!("fixtures/flow.json");

/// A fixed-clock service as JS sees it: the class instance, whose methods are called by name.
fn open() -> JsValue {
    let options = JSON::parse(&json!({"now": flow::NOW}).to_string()).unwrap();
    JsValue::from(Shipping::new(Some(options.unchecked_into())).unwrap())
}

fn to_js(v: &Value) -> JsValue {
    match v {
        Value::String(s) => JsValue::from_str(s),
        other => JSON::parse(&other.to_string()).unwrap(),
    }
}

/// A JS value as serde JSON, through `JSON.stringify` (numbers as JS prints them).
fn to_json(v: &JsValue) -> Value {
    if v.is_undefined() {
        return Value::Null;
    }
    serde_json::from_str(&JSON::stringify(v).unwrap().as_string().unwrap()).unwrap()
}

fn field(v: &JsValue, name: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(name)).unwrap()
}

struct Wasm(JsValue);

impl flow::Driver for Wasm {
    fn call(&mut self, op: &str, args: &[Value]) -> Value {
        let method: Function = field(&self.0, op).dyn_into().unwrap_or_else(|_| panic!("the package has no method {op}"));
        let js_args: js_sys::Array = args.iter().map(to_js).collect();
        match method.apply(&self.0, &js_args) {
            Ok(answer) => to_json(&answer),
            Err(e) => {
                assert!(e.is_instance_of::<js_sys::Error>(), "{op} threw something that is not an Error");
                json!({"thrown": {"status": to_json(&field(&e, "status")), "errorCategory": to_json(&field(&e, "errorCategory")),
                    "message": to_json(&field(&e, "message")), "details": to_json(&field(&e, "details"))}})
            }
        }
    }
}

/// The fixture as JS would print it: money such as `12.50` becomes `12.5` through JSON.parse.
fn expected() -> Value {
    to_json(&JSON::parse(FIXTURE).unwrap())
}

#[wasm_bindgen_test]
fn the_flow_answers_what_the_native_library_answers() {
    let mut wasm = Wasm(open());
    let got = flow::to_fixture(&flow::run(&mut wasm));
    let expected = expected();
    let (got, expected) = (got.as_array().unwrap(), expected.as_array().unwrap());
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g, e, "step {}", e["step"]);
    }
}

#[wasm_bindgen_test]
fn handle_answers_status_and_json_text() {
    let shipping = Shipping::new(None).unwrap();
    let r = shipping.handle("GET", "/restapi/v1/customers/nobody/services", None);
    assert_eq!(to_json(&field(&r, "status")), json!(404));
    let body: Value = serde_json::from_str(&field(&r, "body").as_string().unwrap()).unwrap();
    assert_eq!(body["errorCategory"], "NOT_FOUND");
    let r = shipping.handle("PATCH", "/restapi/v1/customers", Some(JsString::from("")));
    assert_eq!(to_json(&field(&r, "status")), json!(405));
}

/// A body over the limit is refused by its length, before it is copied into the module.
#[wasm_bindgen_test]
fn a_body_over_the_limit_is_refused_before_it_is_copied() {
    let shipping = Shipping::new(None).unwrap();
    let count = i32::try_from(consign::limits::MAX_BODY + 1).unwrap();
    let body = JsString::from(" ").repeat(count);
    let r = shipping.handle("POST", "/restapi/v1/customers", Some(body.clone()));
    assert_eq!(to_json(&field(&r, "status")), json!(400));
    let answer: Value = serde_json::from_str(&field(&r, "body").as_string().unwrap()).unwrap();
    assert_eq!(answer["errorCategory"], "LIMIT_EXCEEDED");
    let e = shipping.create_customer(body.into()).unwrap_err();
    assert_eq!(to_json(&field(&e, "errorCategory")), json!("LIMIT_EXCEEDED"));
}

#[wasm_bindgen_test]
fn a_thrown_error_is_an_error_with_status_category_and_details() {
    let shipping = Shipping::new(None).unwrap();
    let e = shipping.batch_quote("C0000001", JsValue::from_str(r#"{"shipments": []}"#)).unwrap_err();
    let e: js_sys::Error = e.dyn_into().unwrap();
    assert_eq!(to_json(&field(&e, "status")), json!(404));
    assert_eq!(to_json(&field(&e, "errorCategory")), json!("NOT_FOUND"));
    assert_eq!(to_json(&field(&e, "details")), json!([]));
    assert!(String::from(e.message()).contains("C0000001"));
}

#[wasm_bindgen_test]
fn exported_bytes_open_with_the_same_data() {
    let mut first = Wasm(open());
    let steps = flow::run(&mut first);
    let shipping: Shipping = {
        // Recover the Rust object behind the JS instance to call exportDatabase on it.
        let bytes = Reflect::get(&first.0, &"exportDatabase".into()).unwrap().dyn_into::<Function>().unwrap().call0(&first.0).unwrap();
        let bytes = js_sys::Uint8Array::new(&bytes).to_vec();
        assert!(bytes.starts_with(b"SQLite format 3\0"));
        Shipping::from_bytes(&bytes, Some(JSON::parse(&json!({"now": flow::NOW}).to_string()).unwrap().unchecked_into())).unwrap()
    };
    let mut second = Wasm(JsValue::from(shipping));
    let answer = |step: &str| steps.iter().find(|(name, _)| name == step).map(|(_, a)| a.clone()).unwrap();
    // the shipment the carrier has, as it was; the second one voided, and its refund
    let again = flow::Driver::call(&mut second, "shipment", &[json!("C0000001"), answer("book shipment")["bookNumber"].clone()]);
    assert_eq!(again["trackingNumber"], answer("retrieve shipment")["trackingNumber"]);
    assert_eq!(again["voided"], json!(false));
    let voided = flow::Driver::call(&mut second, "shipment", &[json!("C0000001"), answer("book another shipment")["bookNumber"].clone()]);
    assert_eq!(voided["voided"], json!(true), "the copy has the void of the flow");
    let prepay = flow::Driver::call(&mut second, "prepay", &[json!("C0000001")]);
    assert_eq!(prepay["balance"], answer("void shipment")["prepayBalance"]);
    // Not a database at all: an INVALID_REQUEST error, not a crash.
    let e = Shipping::from_bytes(b"not a database", None).err().unwrap();
    assert_eq!(to_json(&field(&e, "errorCategory")), json!("INVALID_REQUEST"));
}
