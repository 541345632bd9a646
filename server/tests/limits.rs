//! `consign serve` against hostile and careless clients, through real sockets: the key
//! before the body, body limits per route, the cap on bodies held at once, the timeouts
//! of a connection, the cap on connections, the shutdown deadline, and HTTPS.
//!
//! Slow and stalled clients speak HTTP on a `TcpStream` of their own. Their sockets read
//! with a generous timeout (far above the server's limits in these tests), so that a
//! server that never closes fails the test rather than hanging it; nothing asserts how
//! fast the server was.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use consign::limits::{MAX_BODY, MAX_SHIPMENT_BODY, MAX_SMALL_BODY};
use consign::Shipping;
use consign_conformance::{customer_body, days_ahead, largest_legitimate_batch, quote_shipment, NOW};
use consign_server::{Config, Server};
use serde_json::{json, Value};

/// Far above every limit of these tests: a read that waits this long means the server
/// did not close or answer.
const PATIENCE: Duration = Duration::from_secs(30);

/// A server on a fresh database file, a partner key and a customer of it.
struct Served {
    server: Option<Server>,
    addr: SocketAddr,
    db: PathBuf,
    partner: String,
    customer: String,
}

/// A server with the defaults but for what `tweak` sets, and a customer created by the
/// partner key.
fn serve(tweak: impl FnOnce(&mut Config)) -> Served {
    let mut served = serve_bare(tweak);
    let created = served.exchange(&request("POST", "/restapi/v1/customers", &served.partner.clone(), &customer_body("ann@example.com")));
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    served.customer = body_json(&created)["customerId"].as_str().unwrap().to_string();
    served
}

/// A server with the defaults but for what `tweak` sets, without a customer (paths name
/// `C0000001`).
fn serve_bare(tweak: impl FnOnce(&mut Config)) -> Served {
    let db = common::fresh_db("consign-limits");
    let (server, partner) = common::start(&db, common::fixed(NOW), tweak);
    let addr = server.addr();
    Served { server: Some(server), addr, db, partner, customer: "C0000001".to_string() }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            let _ = server.shutdown();
        }
        common::remove(&self.db);
    }
}

impl Served {
    fn connect(&self) -> TcpStream {
        let socket = TcpStream::connect(self.addr).unwrap();
        socket.set_read_timeout(Some(PATIENCE)).unwrap();
        socket
    }

    /// Sends `bytes` (a request saying `Connection: close`) on a connection of its own
    /// and reads the answer to its end.
    fn exchange(&self, bytes: &[u8]) -> String {
        let mut socket = self.connect();
        // The server may answer and close before it has read everything.
        let _ = socket.write_all(bytes);
        read_to_close(&mut socket)
    }

    fn path(&self, tail: &str) -> String {
        format!("/restapi/v1/customers/{}{tail}", self.customer)
    }
}

/// A whole request with a JSON body, closing the connection after its answer.
fn request(method: &str, path: &str, key: &str, body: &Value) -> Vec<u8> {
    let body = body.to_string();
    format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Everything the server sends until it closes; fails if it neither closes nor
/// finishes within [`PATIENCE`].
#[track_caller]
fn read_to_close(socket: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    match socket.read_to_end(&mut answer) {
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
        Err(e) => panic!("the server neither answered nor closed: {e}; read so far: {}", String::from_utf8_lossy(&answer)),
    }
    String::from_utf8_lossy(&answer).into_owned()
}

/// One answer of known length on a connection kept open.
#[track_caller]
fn read_answer(socket: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&answer).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap()));
            if length.is_some_and(|n| body.len() >= n) {
                return text;
            }
        }
        match socket.read(&mut buf) {
            Ok(0) => panic!("closed before a whole answer: {text}"),
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) => panic!("no whole answer: {e}; read so far: {text}"),
        }
    }
}

fn body_json(answer: &str) -> Value {
    let (_, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"));
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[track_caller]
fn expect_error(answer: &str, status: u16, category: &str) -> Value {
    assert!(answer.starts_with(&format!("HTTP/1.1 {status} ")), "{answer}");
    let body = body_json(answer);
    assert_eq!(body["errorCategory"], category, "{body}");
    body
}

/// The head of a POST declaring `length` bytes of body, as `key`.
fn declaring(path: &str, key: &str, length: usize) -> String {
    format!("POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {key}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n")
}

/// A chunked body of `length` spaces, in chunks of 64 KiB.
fn chunked(length: usize) -> Vec<u8> {
    let mut body = Vec::new();
    let mut left = length;
    while left > 0 {
        let n = left.min(64 << 10);
        body.extend_from_slice(format!("{n:x}\r\n").as_bytes());
        body.resize(body.len() + n, b' ');
        body.extend_from_slice(b"\r\n");
        left -= n;
    }
    body.extend_from_slice(b"0\r\n\r\n");
    body
}

#[test]
fn a_missing_unknown_or_revoked_key_is_401_before_any_byte_of_the_body() {
    let s = serve(|_| {});
    let path = s.path("/batch-quote");
    // A key in force, then revoked while the server runs: refused from the next request.
    let shipping = Shipping::open(&s.db).unwrap();
    let key = shipping.create_api_key(None, "gone").unwrap();
    let before = s.exchange(&request("POST", &path, &key.key, &json!({"shipments": []})));
    expect_error(&before, 404, "NOT_FOUND");
    shipping.revoke_api_key(&key.info.id).unwrap();
    let revoked = key.key;
    for head in [
        format!("POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {MAX_BODY}\r\nConnection: close\r\n\r\n"),
        declaring(&path, "csk_K999_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", MAX_BODY),
        declaring(&path, &s.partner[..s.partner.len() - 1], MAX_BODY),
        declaring(&path, &revoked, MAX_BODY),
    ] {
        // The head alone, the body never sent, the connection left open: the answer
        // comes without the server waiting for any of the body.
        let mut socket = s.connect();
        socket.write_all(head.as_bytes()).unwrap();
        let answer = read_to_close(&mut socket);
        expect_error(&answer, 401, "UNAUTHORIZED");
    }
    // The same head with the key in force waits for its body (it is not answered 401).
    let mut socket = s.connect();
    socket.write_all(declaring(&path, &s.partner, 2).as_bytes()).unwrap();
    socket.write_all(b"{}").unwrap();
    let answer = read_to_close(&mut socket);
    expect_error(&answer, 400, "INVALID_REQUEST");
}

#[test]
fn a_body_over_its_routes_limit_is_413_by_its_length_or_as_it_arrives() {
    let s = serve(|_| {});
    for (tail, limit) in [("/batch-book", MAX_SMALL_BODY), ("/quote", MAX_SHIPMENT_BODY), ("/batch-quote", MAX_BODY)] {
        let path = s.path(tail);
        let declared = s.exchange(declaring(&path, &s.partner, limit + 1).as_bytes());
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
            s.partner
        );
        let streamed = s.exchange(&[head.as_bytes(), &chunked(limit + 1)].concat());
        for answer in [declared, streamed] {
            let body = expect_error(&answer, 413, "LIMIT_EXCEEDED");
            assert_eq!(body.to_string(), consign::Response::body_over(limit).body, "{tail}");
        }
        // A body of exactly the limit is read and parsed: blank, it is not JSON.
        let mut at_limit = declaring(&path, &s.partner, limit).into_bytes();
        at_limit.resize(at_limit.len() + limit, b' ');
        expect_error(&s.exchange(&at_limit), 400, "INVALID_REQUEST");
    }
}

#[test]
fn the_largest_single_shipment_fits_the_limit_of_its_routes() {
    let s = serve(|_| {});
    let batch: Value = serde_json::from_str(&largest_legitimate_batch(&days_ahead(1))).unwrap();
    let mut shipment = batch["shipments"][0].clone();
    let mut piece = shipment["pieces"][0].clone();
    piece["lineItems"] = json!(vec![piece["lineItems"][0].clone(); 100]);
    shipment["pieces"] = json!(vec![piece; 99]);
    // 1.2 MB: more than the 1 MiB of the other routes.
    let length = shipment.to_string().len();
    assert!(length > MAX_SMALL_BODY && length < MAX_SHIPMENT_BODY, "{length} bytes");
    let answer = s.exchange(&request("POST", &s.path("/quote"), &s.partner, &shipment));
    assert!(answer.starts_with("HTTP/1.1 200 "), "{}", &answer[..answer.len().min(2000)]);
}

#[test]
fn bodies_past_the_memory_cap_wait_then_are_503_busy_with_retry_after() {
    // The cap at its least: one largest body.
    let s = serve(|c| c.max_body_memory = MAX_BODY);
    // One client declares the largest body and stalls, holding the room for it.
    let mut hog = s.connect();
    hog.write_all(declaring(&s.path("/batch-quote"), &s.partner, MAX_BODY).as_bytes()).unwrap();
    hog.write_all(b"{").unwrap();
    // Another's small body cannot be held until the first is gone (once the server has
    // read the first's head: until then the quote is answered).
    let quote = request("POST", &s.path("/quote"), &s.partner, &quote_shipment());
    let mut answer = s.exchange(&quote);
    for _ in 0..50 {
        if !answer.starts_with("HTTP/1.1 200") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        answer = s.exchange(&quote);
    }
    let body = expect_error(&answer, 503, "BUSY");
    assert!(body["error"].as_str().unwrap().contains("request bodies"), "{body}");
    assert!(answer.to_ascii_lowercase().contains("\r\nretry-after: 1\r\n"), "{answer}");
    drop(hog);
    // The room comes back once the stalled request is gone.
    let mut answer = s.exchange(&quote);
    for _ in 0..50 {
        if !answer.starts_with("HTTP/1.1 503") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        answer = s.exchange(&quote);
    }
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
}

#[test]
fn a_head_over_64_kib_is_431() {
    let s = serve_bare(|_| {});
    let head = format!("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: {}\r\nConnection: close\r\n\r\n", "a".repeat(64 << 10));
    let answer = s.exchange(head.as_bytes());
    assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
    let head = format!("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: {}\r\nConnection: close\r\n\r\n", "a".repeat(60 << 10));
    assert!(s.exchange(head.as_bytes()).starts_with("HTTP/1.1 200 "));
}

#[test]
fn a_stalled_head_is_closed_after_the_header_timeout() {
    let s = serve_bare(|c| c.header_timeout = Duration::from_millis(300));
    let mut socket = s.connect();
    socket.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow:").unwrap();
    assert_eq!(read_to_close(&mut socket), "", "closed without an answer");
}

#[test]
fn a_stalled_body_is_408_after_the_body_timeout() {
    let s = serve_bare(|c| c.body_timeout = Duration::from_millis(300));
    let mut socket = s.connect();
    socket.write_all(declaring(&s.path("/quote"), &s.partner, 100).as_bytes()).unwrap();
    socket.write_all(b"{\"shipmentDate\"").unwrap();
    let answer = read_to_close(&mut socket);
    let body = expect_error(&answer, 408, "INVALID_REQUEST");
    assert_eq!(body["details"][0]["field"], "body", "{body}");
}

#[test]
fn a_request_not_served_within_the_request_timeout_is_closed() {
    // The body timeout would answer 408; the whole request's runs out first.
    let s = serve_bare(|c| c.request_timeout = Duration::from_millis(300));
    let mut socket = s.connect();
    socket.write_all(declaring(&s.path("/quote"), &s.partner, 100).as_bytes()).unwrap();
    socket.write_all(b"{").unwrap();
    assert_eq!(read_to_close(&mut socket), "", "closed without an answer");
}

#[test]
fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let s = serve_bare(|c| c.idle_timeout = Duration::from_millis(300));
    let mut socket = s.connect();
    socket.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert!(read_answer(&mut socket).starts_with("HTTP/1.1 200 "));
    // Kept alive, then closed once idle for longer than the limit.
    assert_eq!(read_to_close(&mut socket), "");
}

#[test]
fn past_max_connections_a_connection_waits_until_one_closes() {
    let s = serve_bare(|c| c.max_connections = 1);
    let mut first = s.connect();
    first.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert!(read_answer(&mut first).starts_with("HTTP/1.1 200 "));
    // The first stays open: the second is not served meanwhile.
    let mut second = s.connect();
    second.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    second.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
    let mut byte = [0u8; 1];
    let waited = second.read(&mut byte).unwrap_err();
    assert!(matches!(waited.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut), "{waited}");
    // Once the first closes, the second is accepted and answered.
    drop(first);
    second.set_read_timeout(Some(PATIENCE)).unwrap();
    assert!(read_to_close(&mut second).starts_with("HTTP/1.1 200 "));
}

#[test]
fn a_shutdown_answers_the_request_in_flight_and_drops_a_stalled_one_at_its_deadline() {
    let mut s = serve(|c| c.shutdown_timeout = Duration::from_secs(5));
    // A request in flight: its head sent, its body to come.
    let quote = request("POST", &s.path("/quote"), &s.partner, &quote_shipment());
    let split = quote.len() - 10;
    let mut in_flight = s.connect();
    in_flight.write_all(&quote[..split]).unwrap();
    // A stalled one: it would hold the connection for the body timeout (60 s).
    let mut stalled = s.connect();
    stalled.write_all(declaring(&s.path("/quote"), &s.partner, 100).as_bytes()).unwrap();
    stalled.write_all(b"{").unwrap();
    // Both requests are being read before the shutdown starts: an answer on a third
    // connection comes after the server has seen the two others' heads.
    std::thread::sleep(Duration::from_millis(200));
    let server = s.server.take().unwrap();
    let (done, stopped) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(server.shutdown()).unwrap());
    // The request in flight finishes and is answered.
    in_flight.write_all(&quote[split..]).unwrap();
    assert!(read_to_close(&mut in_flight).starts_with("HTTP/1.1 200 "));
    // The stalled one is dropped at the deadline, and the shutdown returns.
    assert_eq!(read_to_close(&mut stalled), "");
    stopped.recv_timeout(PATIENCE).expect("the shutdown returns past its deadline").unwrap();
    assert!(TcpStream::connect(s.addr).is_err(), "no longer listening");
}

#[test]
fn https_with_a_certificate_and_its_key() {
    let dir = std::env::temp_dir().join(format!("consign-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.key_pair.serialize_pem()).unwrap();
    let s = serve_bare(|c| {
        c.tls_cert = Some(cert.clone());
        c.tls_key = Some(key.clone());
    });
    let root = ureq::tls::Certificate::from_der(certified.cert.der()).to_owned();
    let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::new_with_certs(&[root])).build();
    let agent: ureq::Agent = ureq::Agent::config_builder().tls_config(tls).http_status_as_error(false).build().into();
    let base = format!("https://localhost:{}", s.addr.port());
    let mut health = agent.get(format!("{base}/healthz")).call().unwrap();
    assert_eq!(health.status().as_u16(), 200);
    assert_eq!(health.body_mut().read_to_string().unwrap(), "{\"status\":\"ok\"}\n");
    let mut created = agent
        .post(format!("{base}/restapi/v1/customers"))
        .header("Authorization", format!("RSIS {}", s.partner))
        .send(customer_body("ann@example.com").to_string())
        .unwrap();
    assert_eq!(created.status().as_u16(), 201);
    assert!(created.body_mut().read_to_string().unwrap().contains("customerId"));
    // Plain HTTP on the HTTPS port gets no HTTP answer.
    let mut socket = s.connect();
    socket.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert!(!read_to_close(&mut socket).starts_with("HTTP/1.1 200"));
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_certificate_without_its_key_or_a_key_file_that_is_not_pem_is_refused_at_start() {
    let dir = std::env::temp_dir().join(format!("consign-tls-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, "not a key").unwrap();
    let db = dir.join("shipping.db");
    let mut config = Config::new(&db);
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.tls_cert = Some(cert.clone());
    let alone = Server::start(config.clone()).unwrap_err();
    assert_eq!(alone.kind(), ErrorKind::InvalidInput, "{alone}");
    config.tls_key = Some(key.clone());
    let bad = Server::start(config).unwrap_err();
    assert!(bad.to_string().contains("key.pem"), "{bad}");
    assert!(!bad.to_string().contains("not a key"), "{bad}");
    let _ = std::fs::remove_dir_all(&dir);
}
