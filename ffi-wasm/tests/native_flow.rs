//! The flow of `flow/mod.rs` on the native library: its answers must equal the fixture
//! the WASM tests compare against. After a deliberate change of behaviour, rewrite the
//! fixture with `CONSIGN_BLESS=1 cargo test -p consign-wasm --test native_flow`.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, reason = "test code")]

mod flow;

use std::sync::Arc;

use consign::{FixedClock, Shipping};
use serde_json::{json, Value};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/flow.json");

struct Native(Shipping);

/// `/restapi/v1/customers/{id}/{tail}` (the flow's ids need no escaping).
fn customer(args: &[Value], tail: &str) -> String {
    format!("/restapi/v1/customers/{}/{tail}", args[0].as_str().unwrap())
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap()
}

impl flow::Driver for Native {
    /// The route of each package method: what the WASM wrapper sends through `handle`.
    fn call(&mut self, op: &str, args: &[Value]) -> Value {
        let (method, path, body) = match op {
            "createCustomer" => ("POST", "/restapi/v1/customers".to_string(), Some(&args[0])),
            "updatePaymentMethod" => ("POST", customer(args, "paymentMethod"), Some(&args[1])),
            "listServices" => ("GET", customer(args, "services"), None),
            "batchQuote" => ("POST", customer(args, "batch-quote"), Some(&args[1])),
            "bookShipment" => ("POST", customer(args, "shipments"), Some(&args[1])),
            "shipment" => ("GET", customer(args, &format!("shipments/{}", text(&args[1]))), None),
            "shipments" => ("GET", customer(args, &format!("shipments?limit={}", args[1]["limit"])), None),
            "label" => ("GET", customer(args, &format!("shipments/{}/label/{}", text(&args[1]), text(&args[2]))), None),
            "returnLabel" => ("GET", customer(args, &format!("shipments/{}/return-label/{}", text(&args[1]), text(&args[2]))), None),
            "prepay" => ("GET", customer(args, "prepay"), None),
            "voidShipment" => ("POST", customer(args, &format!("shipments/{}", text(&args[1]))), None),
            "searchShipments" => ("POST", customer(args, "searchShipments"), Some(&args[1])),
            "recordTrackingEvents" => ("POST", customer(args, &format!("shipments/{}/tracking-events", text(&args[1]))), Some(&args[2])),
            "trackingInformation" => ("GET", customer(args, &format!("shipments/{}/tracking-information", text(&args[1]))), None),
            "schedulePickup" => ("POST", customer(args, "pickups"), Some(&args[1])),
            "createManifest" => ("POST", customer(args, "manifest"), Some(&args[1])),
            "createIntegration" => ("POST", customer(args, "integrations"), Some(&args[1])),
            "putOrder" => ("PUT", customer(args, &format!("integrations/{}/orders/{}", text(&args[1]), text(&args[2]))), Some(&args[3])),
            "order" => ("GET", customer(args, &format!("integrations/{}/orders/{}", text(&args[1]), text(&args[2]))), None),
            other => panic!("no native route for {other}: add it to tests/native_flow.rs"),
        };
        let body = match (op, body) {
            ("voidShipment", _) => r#"{"voided": true}"#.to_string(),
            (_, Some(b)) => b.to_string(),
            (_, None) => String::new(),
        };
        let r = self.0.handle(method, &path, &body);
        let answer: Value = serde_json::from_str(&r.body).unwrap();
        if r.status >= 400 {
            json!({"thrown": {"status": r.status, "errorCategory": answer["errorCategory"], "message": answer["error"],
                "details": answer.get("details").cloned().unwrap_or(json!([]))}})
        } else {
            answer
        }
    }
}

#[test]
fn the_native_flow_matches_the_fixture() {
    let clock = Arc::new(FixedClock::at(flow::NOW).unwrap());
    let mut native = Native(Shipping::builder().clock(clock).open().unwrap());
    let got = flow::to_fixture(&flow::run(&mut native));
    let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
    if std::env::var_os("CONSIGN_BLESS").is_some() {
        std::fs::write(FIXTURE, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(FIXTURE).unwrap_or_default();
    assert!(
        expected == text,
        "the native flow no longer matches {FIXTURE}; if the change is deliberate, run\n  CONSIGN_BLESS=1 cargo test -p consign-wasm --test native_flow\nand check the diff"
    );
}
