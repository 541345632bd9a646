//! Webhook deliveries from a running server (DECISIONS, "Webhooks"): a booking reaches a
//! loopback receiver signed per Standard Webhooks; an error answer is retried, with the
//! same `webhook-id`, once the fixed clock reaches the schedule's delay, and not before.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{fresh_db, serve_on, Served};
use consign::{Clock as _, FixedClock};
use consign_conformance::{book_body, customer_body, payment_body, NOW};
use serde_json::{json, Value};

/// A request the receiver was sent: its headers (names in lower case) and body.
#[derive(Debug, Clone)]
struct Received {
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()).unwrap_or_default()
    }
}

/// A loopback HTTP receiver answering the statuses of `script` in turn (the last one
/// from then on); its address and what it was sent.
fn receiver(script: Vec<u16>) -> (String, Arc<Mutex<Vec<Received>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&received);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut headers = Vec::new();
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            loop {
                line.clear();
                reader.read_line(&mut line).unwrap();
                let Some((name, value)) = line.trim_end().split_once(':') else { break };
                headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
            }
            let length = headers.iter().find(|(n, _)| n == "content-length").map_or(0, |(_, v)| v.parse().unwrap());
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let n = {
                let mut seen = seen.lock().unwrap();
                seen.push(Received { headers, body });
                seen.len()
            };
            let status = script[(n - 1).min(script.len() - 1)];
            let _ = write!(stream, "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        }
    });
    (url, received)
}

/// Waits up to 10 s for the receiver to have `n` requests.
fn wait_for(received: &Arc<Mutex<Vec<Received>>>, n: usize) -> Vec<Received> {
    let start = Instant::now();
    loop {
        let seen = received.lock().unwrap().clone();
        if seen.len() >= n || start.elapsed() > Duration::from_secs(10) {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn call(s: &Served, method: &str, path: &str, body: &Value) -> Value {
    let request = ureq::http::Request::builder()
        .method(method)
        .uri(format!("{}{path}", s.base))
        .header("Authorization", format!("RSIS {}", s.partner));
    let mut reply = s.agent.run(request.body(body.to_string()).unwrap()).unwrap();
    let status = reply.status().as_u16();
    let text = reply.body_mut().read_to_string().unwrap();
    assert!(status < 300, "{method} {path}: {status} {text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_booking_reaches_the_receiver_signed_and_a_failure_is_retried_on_the_clock() {
    let clock = Arc::new(FixedClock::at(NOW).unwrap());
    let s = serve_on(fresh_db("consign-webhooks"), clock.clone(), |config| config.allow_http_webhooks = true);
    let id = call(&s, "POST", "/restapi/v1/customers", &customer_body("ann@example.com"))["customerId"].as_str().unwrap().to_string();
    call(&s, "POST", &format!("/restapi/v1/customers/{id}/paymentMethod"), &payment_body("tok_1NqLx2"));
    let (url, received) = receiver(vec![500, 204]);
    let hooks = format!("/restapi/v1/customers/{id}/webhooks");
    let created = call(&s, "POST", &hooks, &json!({"url": url, "types": ["shipment.booked"]}));
    let (webhook, secret) = (created["webhookId"].as_str().unwrap(), created["secret"].as_str().unwrap());
    let mut booking = book_body();
    booking["shipmentDate"] = json!(clock.today().to_string());
    let book = call(&s, "POST", &format!("/restapi/v1/customers/{id}/shipments"), &booking)["bookNumber"].as_str().unwrap().to_string();

    let first = wait_for(&received, 1);
    assert_eq!(first.len(), 1, "delivered without a poll of the clock");
    let d = &first[0];
    let body: Value = serde_json::from_slice(&d.body).unwrap();
    assert_eq!((body["type"].as_str(), body["subjectId"].as_str()), (Some("shipment.booked"), Some(book.as_str())));
    let timestamp: i64 = d.header("webhook-timestamp").parse().unwrap();
    assert_eq!(timestamp, clock.now().timestamp(), "the timestamp is the service's clock");
    let signature = consign::sign_webhook(secret, d.header("webhook-id"), timestamp, &d.body).unwrap();
    assert_eq!(d.header("webhook-signature"), signature);
    assert_eq!(d.header("content-type"), "application/json");

    // The 500 is recorded; the retry waits for the clock to pass 5 s.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(received.lock().unwrap().len(), 1, "no retry before its time");
    let deliveries = call(&s, "GET", &format!("{hooks}/{webhook}/deliveries"), &Value::Null);
    assert_eq!(deliveries["deliveries"][0]["statusCode"], 500);
    clock.advance(chrono::Duration::seconds(5));
    let both = wait_for(&received, 2);
    assert_eq!(both.len(), 2, "retried once the clock passed the delay");
    assert_eq!(both[1].header("webhook-id"), d.header("webhook-id"), "the same webhook-id");
    assert_eq!(both[1].body, d.body);
    let start = Instant::now();
    while call(&s, "GET", &format!("{hooks}/{webhook}"), &Value::Null)["failedAttempts"] != 0 {
        assert!(start.elapsed() < Duration::from_secs(10), "the 204 is recorded");
        std::thread::sleep(Duration::from_millis(50));
    }
    let deliveries = call(&s, "GET", &format!("{hooks}/{webhook}/deliveries"), &Value::Null);
    assert_eq!(deliveries["deliveries"][0]["statusCode"], 204);
    assert_eq!(deliveries["deliveries"][0]["attempt"], 2);
}

#[test]
fn without_the_flag_a_loopback_endpoint_is_refused() {
    let clock = Arc::new(FixedClock::at(NOW).unwrap());
    let s = serve_on(fresh_db("consign-webhooks"), clock, |_| {});
    let id = call(&s, "POST", "/restapi/v1/customers", &customer_body("ann@example.com"))["customerId"].as_str().unwrap().to_string();
    let request = ureq::http::Request::builder()
        .method("POST")
        .uri(format!("{}/restapi/v1/customers/{id}/webhooks", s.base))
        .header("Authorization", format!("RSIS {}", s.partner));
    let mut reply = s.agent.run(request.body(json!({"url": "http://127.0.0.1:9/hook"}).to_string()).unwrap()).unwrap();
    assert_eq!(reply.status().as_u16(), 400);
    let body: Value = serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(body["details"][0]["field"], "url", "{body}");
}

/// A receiver that always fails is retried after each delay of the schedule, on the
/// fixed clock, never before; past the last the endpoint is disabled and the customer's
/// feed has a `webhook.disabled` event.
#[test]
fn a_failing_receiver_is_retried_on_the_whole_schedule_then_the_endpoint_is_disabled() {
    let clock = Arc::new(FixedClock::at(NOW).unwrap());
    let s = serve_on(fresh_db("consign-webhooks"), clock.clone(), |config| config.allow_http_webhooks = true);
    let id = call(&s, "POST", "/restapi/v1/customers", &customer_body("ann@example.com"))["customerId"].as_str().unwrap().to_string();
    call(&s, "POST", &format!("/restapi/v1/customers/{id}/paymentMethod"), &payment_body("tok_1NqLx2"));
    let (url, received) = receiver(vec![503]);
    let hooks = format!("/restapi/v1/customers/{id}/webhooks");
    let created = call(&s, "POST", &hooks, &json!({"url": url, "types": ["shipment.booked"]}));
    let webhook = created["webhookId"].as_str().unwrap();
    let mut booking = book_body();
    booking["shipmentDate"] = json!(clock.today().to_string());
    call(&s, "POST", &format!("/restapi/v1/customers/{id}/shipments"), &booking);
    assert_eq!(wait_for(&received, 1).len(), 1, "the first attempt");
    for (n, delay) in consign::WEBHOOK_RETRY_AFTER.iter().enumerate() {
        // The attempt is recorded with its retry's time before the clock moves.
        let due = (clock.now() + chrono::Duration::seconds(*delay)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let start = Instant::now();
        while call(&s, "GET", &format!("{hooks}/{webhook}"), &Value::Null)["nextAttemptAt"] != due.as_str() {
            assert!(start.elapsed() < Duration::from_secs(10), "attempt {} recorded", n + 1);
            std::thread::sleep(Duration::from_millis(20));
        }
        clock.advance(chrono::Duration::seconds(delay - 1));
        std::thread::sleep(consign_server::WEBHOOK_POLL + Duration::from_millis(300));
        assert_eq!(received.lock().unwrap().len(), n + 1, "no attempt {} a second early", n + 2);
        clock.advance(chrono::Duration::seconds(1));
        assert_eq!(wait_for(&received, n + 2).len(), n + 2, "attempt {} once due", n + 2);
    }
    let start = Instant::now();
    while call(&s, "GET", &format!("{hooks}/{webhook}"), &Value::Null)["status"] != "disabled" {
        assert!(start.elapsed() < Duration::from_secs(10), "disabled after the last attempt");
        std::thread::sleep(Duration::from_millis(20));
    }
    let feed = call(&s, "GET", &format!("/restapi/v1/customers/{id}/events?types=webhook.disabled"), &Value::Null);
    assert_eq!(feed["events"][0]["subjectId"], webhook);
    let ids: Vec<String> = received.lock().unwrap().iter().map(|r| r.header("webhook-id").to_string()).collect();
    assert_eq!(ids.len(), consign::WEBHOOK_RETRY_AFTER.len() + 1);
    assert!(ids.iter().all(|i| *i == ids[0]), "{ids:?}");
}
