//! Webhook endpoints (DECISIONS, "Webhooks"): created with a `whsec_` secret shown once
//! and sealed at rest; https and public hosts only; a customer's events delivered in
//! order, one endpoint cursor each, signed per Standard Webhooks (checked here with the
//! `standardwebhooks` crate and the reference vectors); retried on the schedule, then
//! disabled with a `webhook.disabled` event; replayed, tested, rotated.

use std::time::Duration;

use consign::{Clock as _, Shipping, WebhookAttempt, WebhookDelivery};
use consign_conformance::*;
use serde_json::{json, Value};

const LEASE: Duration = Duration::from_secs(30);

fn hooks(id: &str) -> String {
    Harness::path(id, "/webhooks")
}

/// A customer with an endpoint for `types`; the customer, the endpoint's id and secret.
fn endpoint(h: &Harness, types: Value) -> (String, String, String) {
    let id = h.shipper("ann@example.com");
    let created = h.call("POST", &hooks(&id), &json!({"url": "https://hooks.example.com/consign", "types": types})).expect(201).clone();
    (id, created["webhookId"].as_str().unwrap().to_string(), created["secret"].as_str().unwrap().to_string())
}

fn claim(s: &Shipping) -> Vec<WebhookDelivery> {
    s.claim_webhook_deliveries(LEASE, 16).unwrap()
}

fn answered(status: u16) -> WebhookAttempt {
    WebhookAttempt { status: Some(status), error: None, duration_ms: 12 }
}

fn header<'a>(d: &'a WebhookDelivery, name: &str) -> &'a str {
    d.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str()).unwrap_or_else(|| panic!("no {name} header"))
}

/// Verifies `d` with the `standardwebhooks` crate and `secret`, at the delivery's own
/// timestamp (the crate checks it against the system clock: the test clock is older).
fn verifies(d: &WebhookDelivery, secret: &str) -> bool {
    let mut headers = http::HeaderMap::new();
    for (name, value) in &d.headers {
        headers.insert(*name, value.parse().unwrap());
    }
    // The crate refuses timestamps five minutes off its clock: sign again now with the
    // service's own signer, and check the crate accepts that signature over the same
    // body and id, and that it matches the one sent at the sent timestamp.
    let wh = standardwebhooks::Webhook::new(secret).unwrap();
    let sent_ts: i64 = header(d, "webhook-timestamp").parse().unwrap();
    let theirs = wh.sign(header(d, "webhook-id"), sent_ts, &d.body).unwrap();
    let matches = header(d, "webhook-signature").split(' ').any(|s| s == theirs);
    let now = chrono::Utc::now().timestamp();
    let ours = consign::sign_webhook(secret, header(d, "webhook-id"), now, &d.body).unwrap();
    headers.insert("webhook-timestamp", now.to_string().parse().unwrap());
    headers.insert("webhook-signature", ours.parse().unwrap());
    matches && wh.verify(&d.body, &headers).is_ok()
}

#[test]
fn create_answers_a_whsec_secret_once_and_get_and_list_never_show_it() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let body = json!({"url": "https://hooks.example.com/consign", "types": ["shipment.*", "tracking.updated"], "description": "shop"});
    let created = h.call("POST", &hooks(&id), &body).expect(201).clone();
    let secret = created["secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_") && secret.len() > 40, "{secret}");
    assert!(created["webhookId"].as_str().unwrap().starts_with("wh_"));
    assert_eq!((created["status"].as_str(), created["format"].as_str()), (Some("enabled"), Some("standard")));
    assert_eq!(created["types"], json!(["shipment.*", "tracking.updated"]));
    let path = format!("{}/{}", hooks(&id), created["webhookId"].as_str().unwrap());
    let got = h.get(&path).expect(200).clone();
    let listed = h.get(&hooks(&id)).expect(200).clone();
    for answer in [&got, &listed] {
        assert!(!answer.to_string().contains(secret), "{answer}");
    }
    assert_eq!(listed["webhooks"][0], got);
}

#[test]
fn the_url_must_be_https_to_a_public_host_without_credentials() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    for url in [
        "http://hooks.example.com/x",
        "ftp://hooks.example.com",
        "https://user:pw@hooks.example.com/",
        "https://localhost:8443/x",
        "https://127.0.0.1/x",
        "https://10.0.0.7/x",
        "https://[::1]/x",
        "https://169.254.169.254/latest/meta-data",
        "https:///x",
    ] {
        h.call("POST", &hooks(&id), &json!({"url": url})).assert_error(400, "INVALID_REQUEST", Some("url"));
    }
    let long = format!("https://hooks.example.com/{}", "a".repeat(consign::MAX_WEBHOOK_URL));
    h.call("POST", &hooks(&id), &json!({"url": long})).assert_error(400, "INVALID_REQUEST", Some("url"));
}

#[test]
fn types_format_and_description_are_checked() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let url = "https://hooks.example.com/x";
    h.call("POST", &hooks(&id), &json!({"url": url, "types": ["shipment.shipped"]})).assert_error(400, "INVALID_REQUEST", Some("types"));
    h.call("POST", &hooks(&id), &json!({"url": url, "format": "xml"})).assert_error(400, "INVALID_REQUEST", Some("format"));
    let long = "d".repeat(consign::MAX_WEBHOOK_DESCRIPTION + 1);
    h.call("POST", &hooks(&id), &json!({"url": url, "description": long})).assert_error(400, "INVALID_REQUEST", Some("description"));
}

#[test]
fn a_customer_has_at_most_five_endpoints() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    for n in 0..consign::MAX_WEBHOOKS {
        h.call("POST", &hooks(&id), &json!({"url": format!("https://hooks.example.com/{n}")})).expect(201);
    }
    h.call("POST", &hooks(&id), &json!({"url": "https://hooks.example.com/6"})).assert_error_without_details(400, "LIMIT_EXCEEDED");
}

#[test]
fn another_customers_endpoint_is_not_found() {
    let h = Harness::new();
    let (_, webhook, _) = endpoint(&h, json!([]));
    let other = h.shipper("bob@example.com");
    let path = format!("{}/{webhook}", hooks(&other));
    h.get(&path).assert_error(404, "NOT_FOUND", None);
    h.call("DELETE", &path, &Value::Null).assert_error(404, "NOT_FOUND", None);
    h.call("POST", &format!("{path}/rotate-secret"), &Value::Null).assert_error(404, "NOT_FOUND", None);
    assert_eq!(h.get(&hooks(&other)).expect(200)["webhooks"], json!([]));
}

#[test]
fn a_booking_is_delivered_signed_in_order_and_a_2xx_moves_the_cursor() {
    let h = Harness::new();
    let (id, webhook, secret) = endpoint(&h, json!(["shipment.*"]));
    assert!(claim(&h.shipping).is_empty(), "no event since creation");
    let book = h.book(&id, &book_body());
    let second = h.book(&id, &book_body());
    let claimed = claim(&h.shipping);
    assert_eq!(claimed.len(), 1, "one message at a time per endpoint");
    let d = &claimed[0];
    assert_eq!((d.webhook_id.as_str(), d.attempt, d.content_type), (webhook.as_str(), 1, "application/json"));
    assert!(verifies(d, &secret), "the signature verifies with standardwebhooks");
    let body: Value = serde_json::from_slice(&d.body).unwrap();
    assert_eq!((body["type"].as_str(), body["subjectId"].as_str()), (Some("shipment.booked"), Some(book.as_str())));
    let shipment = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200).clone();
    assert_eq!(body["data"], shipment);
    assert_eq!(header(d, "webhook-id"), format!("evt_{id}_{}", body["id"]));
    assert!(claim(&h.shipping).is_empty(), "claimed: no second delivery while the first is out");
    h.shipping.record_webhook_attempt(d, &answered(204)).unwrap();
    let next = claim(&h.shipping);
    let body: Value = serde_json::from_slice(&next[0].body).unwrap();
    assert_eq!(body["subjectId"].as_str(), Some(second.as_str()), "the next event, in order");
    let hook = h.get(&format!("{}/{webhook}", hooks(&id))).expect(200).clone();
    assert_eq!(hook["cursor"], d.event_id.unwrap().to_string());
    let deliveries = h.get(&format!("{}/{webhook}/deliveries", hooks(&id))).expect(200).clone();
    assert_eq!(deliveries["deliveries"][0]["statusCode"], 204);
    assert_eq!(deliveries["deliveries"][0]["messageId"].as_str(), Some(header(d, "webhook-id")));
}

#[test]
fn failures_retry_the_same_message_on_the_schedule_then_disable_the_endpoint_with_an_event() {
    let h = Harness::new();
    let (id, webhook, _) = endpoint(&h, json!(["shipment.booked"]));
    h.book(&id, &book_body());
    let mut ids = Vec::new();
    for (n, delay) in consign::WEBHOOK_RETRY_AFTER.iter().enumerate() {
        let claimed = claim(&h.shipping);
        assert_eq!(claimed.len(), 1, "attempt {}", n + 1);
        assert_eq!(claimed[0].attempt, n as i64 + 1);
        ids.push(header(&claimed[0], "webhook-id").to_string());
        h.shipping.record_webhook_attempt(&claimed[0], &answered(500)).unwrap();
        let hook = h.get(&format!("{}/{webhook}", hooks(&id))).expect(200).clone();
        let due = h.clock.now() + chrono::Duration::seconds(*delay);
        assert_eq!(hook["nextAttemptAt"].as_str(), Some(due.format("%Y-%m-%dT%H:%M:%SZ").to_string().as_str()));
        h.clock.advance(chrono::Duration::seconds(delay - 1));
        assert!(claim(&h.shipping).is_empty(), "not before its time");
        h.clock.advance(chrono::Duration::seconds(1));
    }
    let last = claim(&h.shipping);
    h.shipping
        .record_webhook_attempt(&last[0], &WebhookAttempt { status: None, error: Some("connection refused".into()), duration_ms: 3 })
        .unwrap();
    ids.push(header(&last[0], "webhook-id").to_string());
    assert!(ids.iter().all(|i| *i == ids[0]), "the same webhook-id on every attempt: {ids:?}");
    let hook = h.get(&format!("{}/{webhook}", hooks(&id))).expect(200).clone();
    assert_eq!(hook["status"], "disabled");
    assert!(hook["disabledReason"].as_str().unwrap().contains("connection refused"), "{hook}");
    h.clock.advance(chrono::Duration::days(2));
    assert!(claim(&h.shipping).is_empty(), "a disabled endpoint gets nothing");
    let feed = h.get(&Harness::path(&id, "/events?types=webhook.disabled")).expect(200).clone();
    assert_eq!(feed["events"][0]["data"], hook, "webhook.disabled carries the endpoint");
    let deliveries = h.get(&format!("{}/{webhook}/deliveries?limit=3", hooks(&id))).expect(200).clone();
    assert_eq!(deliveries["deliveries"].as_array().unwrap().len(), 3);
    assert_eq!(deliveries["deliveries"][0]["attempt"], 8);
    // Re-enabled, it retries the same event.
    let url = json!({"url": "https://hooks.example.com/consign", "types": ["shipment.booked"], "enabled": true});
    h.call("PUT", &format!("{}/{webhook}", hooks(&id)), &url).expect(200);
    assert_eq!(header(&claim(&h.shipping)[0], "webhook-id"), ids[0]);
}

#[test]
fn events_of_other_types_move_the_cursor_without_a_delivery() {
    let h = Harness::new();
    let (id, webhook, _) = endpoint(&h, json!(["pickup.*"]));
    h.book(&id, &book_body());
    assert!(claim(&h.shipping).is_empty());
    let hook = h.get(&format!("{}/{webhook}", hooks(&id))).expect(200).clone();
    let newest = h.get(&Harness::path(&id, "/events?limit=1000")).expect(200)["events"].as_array().unwrap().last().unwrap()["id"].clone();
    assert_eq!(hook["cursor"], newest.to_string());
}

#[test]
fn a_rotation_signs_with_both_secrets_for_a_day() {
    let h = Harness::new();
    let (id, webhook, old) = endpoint(&h, json!([]));
    let rotated = h.call("POST", &format!("{}/{webhook}/rotate-secret", hooks(&id)), &Value::Null).expect(200).clone();
    let new = rotated["secret"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    h.book(&id, &book_body());
    let d = claim(&h.shipping).remove(0);
    assert_eq!(header(&d, "webhook-signature").split(' ').count(), 2);
    assert!(verifies(&d, &new) && verifies(&d, &old), "either secret verifies");
    h.shipping.record_webhook_attempt(&d, &answered(200)).unwrap();
    h.clock.advance(chrono::Duration::hours(consign::WEBHOOK_ROTATION_OVERLAP_HOURS));
    h.book(&id, &book_body());
    let d = claim(&h.shipping).remove(0);
    assert_eq!(header(&d, "webhook-signature").split(' ').count(), 1);
    assert!(verifies(&d, &new) && !verifies(&d, &old), "past the overlap only the new one");
}

#[test]
fn replay_delivers_again_from_a_cursor_with_the_same_ids() {
    let h = Harness::new();
    let (id, webhook, _) = endpoint(&h, json!(["shipment.booked"]));
    let start = h.get(&format!("{}/{webhook}", hooks(&id))).expect(200)["cursor"].as_str().unwrap().to_string();
    h.book(&id, &book_body());
    let first = claim(&h.shipping).remove(0);
    h.shipping.record_webhook_attempt(&first, &answered(200)).unwrap();
    assert!(claim(&h.shipping).is_empty());
    let path = format!("{}/{webhook}/replay", hooks(&id));
    h.call("POST", &path, &json!({"after": start})).expect(200);
    let again = claim(&h.shipping).remove(0);
    assert_eq!(header(&again, "webhook-id"), header(&first, "webhook-id"));
    assert_eq!(again.body, first.body);
    h.call("POST", &path, &json!({"after": "999999"})).assert_error(400, "INVALID_REQUEST", Some("after"));
    h.call("POST", &path, &json!({"after": "x"})).assert_error(400, "INVALID_REQUEST", Some("after"));
}

#[test]
fn a_test_message_goes_out_once_beside_the_events() {
    let h = Harness::new();
    let (id, webhook, secret) = endpoint(&h, json!([]));
    h.call("POST", &format!("{}/{webhook}/test", hooks(&id)), &Value::Null).expect(202);
    let d = claim(&h.shipping).remove(0);
    assert_eq!((d.event_id, header(&d, "webhook-id").starts_with("msg_test_")), (None, true));
    assert!(verifies(&d, &secret));
    let body: Value = serde_json::from_slice(&d.body).unwrap();
    assert_eq!(body["type"], "webhook.test");
    h.shipping.record_webhook_attempt(&d, &answered(503)).unwrap();
    assert!(claim(&h.shipping).is_empty(), "a test is not retried");
    let deliveries = h.get(&format!("{}/{webhook}/deliveries", hooks(&id))).expect(200).clone();
    assert_eq!(deliveries["deliveries"][0]["statusCode"], 503);
    assert_eq!(deliveries["deliveries"][0]["eventId"], Value::Null);
}

#[test]
fn a_deleted_endpoint_gets_nothing_and_its_attempt_in_flight_is_dropped() {
    let h = Harness::new();
    let (id, webhook, _) = endpoint(&h, json!([]));
    h.book(&id, &book_body());
    let d = claim(&h.shipping).remove(0);
    h.call("DELETE", &format!("{}/{webhook}", hooks(&id)), &Value::Null).expect(200);
    h.shipping.record_webhook_attempt(&d, &answered(200)).unwrap();
    h.get(&format!("{}/{webhook}/deliveries", hooks(&id))).assert_error(404, "NOT_FOUND", None);
    assert!(claim(&h.shipping).is_empty());
}

#[test]
fn the_xps_format_posts_an_orders_shipment_form_encoded_with_its_key() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let integration = h.integration(&id);
    h.call("PUT", &Harness::path(&id, &format!("/integrations/{integration}/orders/SO-1")), &order_body("SO-1")).expect(201);
    let created = h.call("POST", &hooks(&id), &json!({"url": "https://shop.example.com/xps", "format": "xps"})).expect(201).clone();
    let secret = created["secret"].as_str().unwrap();
    h.book(&id, &book_body());
    assert!(claim(&h.shipping).is_empty(), "a shipment of no order makes no callback");
    let fulfil = json!({"integrationId": integration, "orderId": "SO-1", "items": []});
    let book = h.book(&id, &with(book_body(), "/fulfillment", fulfil));
    let d = claim(&h.shipping).remove(0);
    assert_eq!(d.content_type, "application/x-www-form-urlencoded");
    assert_eq!(header(&d, "x-rsis-key"), secret);
    let form = String::from_utf8(d.body.clone()).unwrap();
    let shipment = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200).clone();
    let tracking: Vec<&str> = shipment["trackingNumbers"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert!(form.starts_with("orderId=SO-1&carrier="), "{form}");
    assert!(form.contains(&format!("trackingNumbers={}", tracking.join("%2C"))), "{form}");
    assert!(form.contains("receiver.city="), "{form}");
}

#[test]
fn secrets_are_sealed_at_rest_when_the_service_has_a_key() {
    let clock = std::sync::Arc::new(consign::FixedClock::at(NOW).unwrap());
    let h = Harness::with(Shipping::builder().clock(clock.clone()).secret_key([9; 32]), clock);
    let (id, _, secret) = endpoint(&h, json!([]));
    if consign_conformance::backend::on_postgres() {
        return;
    }
    let image = h.shipping.export_database().unwrap();
    let needle = secret.trim_start_matches("whsec_").as_bytes().to_vec();
    assert!(!image.windows(needle.len()).any(|w| w == needle), "the secret is not in the file");
    h.book(&id, &book_body());
    assert!(verifies(&claim(&h.shipping)[0], &secret), "it still signs");
}

#[test]
fn a_customer_has_at_most_two_endpoints_claimed_at_once_and_others_go_on() {
    let h = Harness::new();
    let ann = h.shipper("ann@example.com");
    for n in 0..3 {
        h.call("POST", &hooks(&ann), &json!({"url": format!("https://hooks.example.com/{n}")})).expect(201);
    }
    let bob = h.shipper("bob@example.com");
    h.call("POST", &hooks(&bob), &json!({"url": "https://hooks.example.com/bob"})).expect(201);
    h.book(&ann, &book_body());
    h.book(&bob, &book_body());
    let claimed = claim(&h.shipping);
    let of = |id: &str| claimed.iter().filter(|d| d.customer_id == id).count();
    assert_eq!((of(&ann), of(&bob)), (consign::WEBHOOK_CLAIMS_PER_CUSTOMER as usize, 1));
    h.shipping.record_webhook_attempt(&claimed[0], &answered(200)).unwrap();
    assert_eq!(claim(&h.shipping).len(), 1, "a slot of the customer freed");
}

#[test]
fn create_retried_with_its_idempotency_key_answers_the_same_secret_sealed_at_rest_meanwhile() {
    let clock = std::sync::Arc::new(consign::FixedClock::at(NOW).unwrap());
    let h = Harness::with(Shipping::builder().clock(clock.clone()).secret_key([9; 32]), clock);
    let id = h.shipper("ann@example.com");
    let key = h.shipping.create_api_key(Some(&id), "till").unwrap();
    let caller = h.shipping.authenticate(&key.key).unwrap();
    let body = json!({"url": "https://hooks.example.com/consign"}).to_string();
    let target = hooks(&id);
    let post = || {
        let once = consign::IdempotencyKey::new("hook-1", "POST", &target, &body).unwrap();
        h.shipping.handle_once_as(&caller, &once, "POST", &target, &body)
    };
    let (first, again) = (post(), post());
    assert_eq!((first.status, &first.body), (again.status, &again.body), "one endpoint, one secret");
    assert_eq!(h.get(&hooks(&id)).expect(200)["webhooks"].as_array().unwrap().len(), 1);
    if consign_conformance::backend::on_postgres() {
        return;
    }
    let secret = serde_json::from_str::<Value>(&first.body).unwrap()["secret"].as_str().unwrap().to_string();
    let image = h.shipping.export_database().unwrap();
    let needle = secret.trim_start_matches("whsec_").as_bytes().to_vec();
    assert!(!image.windows(needle.len()).any(|w| w == needle), "the kept answer is sealed");
}
