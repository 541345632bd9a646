//! `consign serve` as a process: killed (SIGKILL) during a storm of bookings, then
//! restarted on the same file, nothing acknowledged is lost, the ledger balances, and a
//! booking retried with its `idempotencyKey` is charged once; stopped by SIGTERM, it lets
//! the request in flight finish.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use consign::Shipping;
use consign_conformance::{book_body, customer_body, payment_body, quote_shipment, with};
use rust_decimal::Decimal;
use serde_json::{json, Value};

/// `consign serve` on `db` at a free port: the process and its base URL.
fn serve(db: &Path) -> (Child, String) {
    common::serve(db, |command| {
        command.stderr(Stdio::null());
    })
}

/// A booking for today's server (it runs on the system clock): shipped tomorrow.
fn booking(key: &str) -> Value {
    let tomorrow = chrono::Local::now().date_naive() + chrono::Duration::days(1);
    let body = with(book_body(), "/shipmentDate", json!(tomorrow.to_string()));
    with(body, "/idempotencyKey", json!(key))
}

/// A customer with a payment method on file in the database `db`, and a key for it.
fn shipper(db: &Path) -> (String, String) {
    let shipping = Shipping::open(db).unwrap();
    let created = shipping.handle("POST", "/restapi/v1/customers", &customer_body("storm@example.com").to_string());
    let customer = serde_json::from_str::<Value>(&created.body).unwrap()["customerId"].as_str().unwrap().to_string();
    let paid = shipping.handle("POST", &format!("/restapi/v1/customers/{customer}/paymentMethod"), &payment_body("tok_1").to_string());
    assert_eq!(paid.status, 200, "{}", paid.body);
    let key = shipping.create_api_key(Some(&customer), "storm").unwrap().key;
    (customer, key)
}

struct Client {
    agent: ureq::Agent,
    base: String,
    key: String,
}

impl Client {
    fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value), ureq::Error> {
        let request = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("Authorization", format!("RSIS {}", self.key));
        let mut reply = match body {
            Some(body) => self.agent.run(request.body(body.to_string()).unwrap())?,
            None => self.agent.run(request.body(()).unwrap())?,
        };
        let text = reply.body_mut().read_to_string()?;
        Ok((reply.status().as_u16(), serde_json::from_str(&text).unwrap_or(Value::Null)))
    }
}

#[test]
fn a_server_killed_during_a_booking_storm_loses_nothing_it_acknowledged() {
    let dir = common::fresh_dir("consign-serve-crash");
    let db = dir.join("storm.db");
    let (customer, key) = shipper(&db);
    let shipments = format!("/restapi/v1/customers/{customer}/shipments");

    let (mut server, base) = serve(&db);
    let agent = common::agent();
    let client = Client { agent, base, key: key.clone() };
    // Acknowledged bookings (idempotency key, book number), and the keys whose answer the
    // kill cut off.
    let acknowledged = Mutex::new(Vec::<(String, String)>::new());
    let cut_off = Mutex::new(Vec::<String>::new());
    let count = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for thread in 0..6 {
            let (client, acknowledged, cut_off, count, shipments) = (&client, &acknowledged, &cut_off, &count, &shipments);
            scope.spawn(move || {
                for n in 0.. {
                    let idempotency = format!("t{thread}-{n}");
                    match client.send("POST", shipments, Some(&booking(&idempotency))) {
                        Ok((201, body)) => {
                            acknowledged.lock().unwrap().push((idempotency, body["bookNumber"].as_str().unwrap().to_string()));
                            count.fetch_add(1, Ordering::SeqCst);
                        }
                        Ok((status, body)) => panic!("{status} {body}"),
                        Err(_) => {
                            cut_off.lock().unwrap().push(idempotency);
                            return;
                        }
                    }
                }
            });
        }
        let start = Instant::now();
        while count.load(Ordering::SeqCst) < 24 && start.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(5));
        }
        // SIGKILL: no shutdown, no flush, bookings in flight.
        server.kill().unwrap();
        server.wait().unwrap();
    });
    let acknowledged = acknowledged.into_inner().unwrap();
    let cut_off = cut_off.into_inner().unwrap();
    assert!(acknowledged.len() >= 24, "{} bookings before the kill", acknowledged.len());
    assert_eq!(cut_off.len(), 6, "every client saw the kill");

    let (mut server, base) = serve(&db);
    let client = Client { base, ..client };
    // Nothing acknowledged is lost.
    for (_, book) in &acknowledged {
        let (status, body) = client.send("GET", &format!("{shipments}/{book}"), None).unwrap();
        assert_eq!(status, 200, "{book}: {body}");
    }
    // Retried with their idempotency keys, acknowledged bookings answer the same shipment,
    // and the cut-off ones are booked (or answered) once.
    for (idempotency, book) in &acknowledged {
        let (status, body) = client.send("POST", &shipments, Some(&booking(idempotency))).unwrap();
        assert_eq!((status, body["bookNumber"].as_str()), (201, Some(book.as_str())), "{body}");
    }
    for idempotency in &cut_off {
        for _ in 0..2 {
            let (status, body) = client.send("POST", &shipments, Some(&booking(idempotency))).unwrap();
            assert_eq!(status, 201, "{body}");
        }
    }
    let (_, listed) = client.send("GET", &format!("{shipments}?limit=100"), None).unwrap();
    let booked = listed["shipments"].as_array().unwrap().len();
    assert_eq!(booked, acknowledged.len() + cut_off.len(), "one shipment per idempotency key");
    let (_, prepay) = client.send("GET", &format!("/restapi/v1/customers/{customer}/prepay"), None).unwrap();
    let amount = |v: &Value| v.as_str().unwrap().parse::<Decimal>().unwrap();
    let entries = prepay["entries"].as_array().unwrap();
    let sum: Decimal = entries.iter().map(|e| amount(&e["amount"])).sum();
    assert_eq!(sum, amount(&prepay["balance"]), "the ledger balances: {prepay}");
    assert_eq!(entries.iter().filter(|e| e["kind"] == "charge").count(), booked, "one charge per shipment");

    server.kill().unwrap();
    server.wait().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigterm_lets_the_request_in_flight_finish() {
    use std::io::{Read, Write};
    let dir = common::fresh_dir("consign-serve-term");
    let db = dir.join("term.db");
    let (customer, key) = shipper(&db);
    let (mut server, base) = serve(&db);

    // A batch quote of 500 shipments on a socket of its own.
    let tomorrow = chrono::Local::now().date_naive() + chrono::Duration::days(1);
    let shipment = with(quote_shipment(), "/shipmentDate", json!(tomorrow.to_string()));
    let body = json!({ "shipments": vec![shipment; 500] }).to_string();
    let mut socket = std::net::TcpStream::connect(base.trim_start_matches("http://")).unwrap();
    let head = format!(
        "POST /restapi/v1/customers/{customer}/batch-quote HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {key}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    // Half the body, the signal, then the rest: the request is in flight when it comes.
    let (first, rest) = body.as_bytes().split_at(body.len() / 2);
    socket.write_all(head.as_bytes()).unwrap();
    socket.write_all(first).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let terminated = Command::new("kill").args(["-TERM", &server.id().to_string()]).status().unwrap();
    assert!(terminated.success());
    std::thread::sleep(Duration::from_millis(100));
    socket.write_all(rest).unwrap();

    let mut answer = String::new();
    socket.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{}", &answer[..answer.len().min(300)]);
    let (_, body) = answer.split_once("\r\n\r\n").unwrap();
    let results = serde_json::from_str::<Value>(body).unwrap()["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), 500);
    assert!(results.iter().all(|r| r["status"] != "error"), "{}", results[0]);
    let status = server.wait().unwrap();
    assert!(status.success(), "{status}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What a receiver was sent: (webhook-id, body) of each request.
type Sent = std::sync::Arc<Mutex<Vec<(String, String)>>>;

/// A loopback receiver that holds the requests it gets without an answer until `answer`
/// is set, then answers 200; its URL, the switch and what it was sent.
fn holding_receiver() -> (String, std::sync::Arc<std::sync::atomic::AtomicBool>, Sent) {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (answer, received) = (Arc::new(AtomicBool::new(false)), Arc::new(Mutex::new(Vec::new())));
    let (answering, seen) = (Arc::clone(&answer), Arc::clone(&received));
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut line, mut id, mut length) = (String::new(), String::new(), 0);
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                line.clear();
                if reader.read_line(&mut line).is_err() {
                    break;
                }
                let Some((name, value)) = line.trim_end().split_once(':') else { break };
                match name.to_ascii_lowercase().as_str() {
                    "webhook-id" => id = value.trim().to_string(),
                    "content-length" => length = value.trim().parse().unwrap(),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            seen.lock().unwrap().push((id, String::from_utf8(body).unwrap()));
            if answering.load(Ordering::SeqCst) {
                let _ = write!(stream, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            } else {
                held.push(stream);
            }
        }
    });
    (url, answer, received)
}

/// Killed (SIGKILL) while a delivery is out, a server restarted on the same file
/// delivers that event again once the claim's lease ends, with the same `webhook-id`.
#[test]
fn a_webhook_delivery_cut_off_by_a_kill_is_delivered_after_the_restart_with_the_same_id() {
    let dir = common::fresh_dir("consign-serve-webhook");
    let db = dir.join("hooks.db");
    let (customer, key) = shipper(&db);
    let flags = |command: &mut Command| {
        command.args(["--allow-http-webhooks", "--webhook-timeout", "2"]).stderr(Stdio::null());
    };
    let (mut server, base) = common::serve(&db, flags);
    let client = Client { agent: common::agent(), base, key };
    let (url, answer, received) = holding_receiver();
    let hooks = format!("/restapi/v1/customers/{customer}/webhooks");
    let (status, created) = client.send("POST", &hooks, Some(&json!({"url": url, "types": ["shipment.booked"]}))).unwrap();
    assert_eq!(status, 201, "{created}");
    let (status, booked) = client.send("POST", &format!("/restapi/v1/customers/{customer}/shipments"), Some(&booking("hook-1"))).unwrap();
    assert_eq!(status, 201, "{booked}");
    let wait = |n: usize| {
        let start = Instant::now();
        while received.lock().unwrap().len() < n && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(20));
        }
        received.lock().unwrap().clone()
    };
    let first = wait(1);
    assert_eq!(first.len(), 1, "the delivery went out");
    // SIGKILL while the receiver holds the delivery unanswered.
    server.kill().unwrap();
    server.wait().unwrap();
    answer.store(true, Ordering::SeqCst);

    let (mut server, base) = common::serve(&db, flags);
    let client = Client { base, ..client };
    let again = wait(2);
    assert_eq!(again.len(), 2, "delivered after the restart");
    assert_eq!(again[1], first[0], "the same webhook-id and body");
    let webhook = created["webhookId"].as_str().unwrap();
    let start = Instant::now();
    loop {
        let (_, deliveries) = client.send("GET", &format!("{hooks}/{webhook}/deliveries"), None).unwrap();
        if deliveries["deliveries"][0]["statusCode"] == 200 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{deliveries}");
        std::thread::sleep(Duration::from_millis(50));
    }
    server.kill().unwrap();
    server.wait().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
