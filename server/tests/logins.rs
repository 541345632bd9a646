//! Logins over HTTP through a real client: the throttle's 429 with `Retry-After`, failed
//! logins committed by the server's writer however many arrive at once, and partner
//! links undone (DECISIONS, "Logins").

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::sync::Arc;

use consign::{FixedClock, Shipping};
use consign_conformance::{customer_body, NOW};
use serde_json::{json, Value};

/// A server on a fresh database file at the suite's fixed instant, a partner key, and
/// that instant's clock, to move it.
struct Served {
    served: common::Served,
    clock: Arc<FixedClock>,
}

impl std::ops::Deref for Served {
    type Target = common::Served;

    fn deref(&self) -> &common::Served {
        &self.served
    }
}

/// Status, `Retry-After` and the JSON body of an answer.
struct Reply {
    status: u16,
    retry_after: Option<String>,
    body: Value,
}

fn serve() -> Served {
    let clock = Arc::new(FixedClock::at(NOW).unwrap());
    Served { served: common::serve_on(common::fresh_db("consign-logins"), clock.clone(), |_| {}), clock }
}

impl Served {
    /// `method` on `path` with the JSON `body` (`Null`: none), as `key`.
    fn call_as(&self, key: &str, method: &str, path: &str, body: &Value) -> Reply {
        let request = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("Authorization", format!("RSIS {key}"));
        let reply = if body.is_null() {
            self.agent.run(request.body(()).unwrap())
        } else {
            self.agent.run(request.body(body.to_string()).unwrap())
        };
        let mut reply = reply.unwrap();
        let retry_after = reply.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
        let body = serde_json::from_slice(&reply.body_mut().read_to_vec().unwrap()).unwrap();
        Reply { status: reply.status().as_u16(), retry_after, body }
    }

    fn connect(&self, key: &str, email: &str, password: &str) -> Reply {
        self.call_as(key, "POST", "/restapi/v1/connect-customer", &json!({"username": email, "password": password}))
    }

    /// A key made as the CLI makes it: for customer `id`, or a partner key.
    fn key(&self, customer: Option<&str>) -> String {
        Shipping::open(&self.db).unwrap().create_api_key(customer, "").unwrap().key
    }

    /// Ann, created by the partner key.
    fn ann(&self) -> String {
        let created = self.call_as(&self.partner, "POST", "/restapi/v1/customers", &customer_body("ann@example.com"));
        assert_eq!(created.status, 201, "{}", created.body);
        created.body["customerId"].as_str().unwrap().to_string()
    }
}

#[test]
fn a_locked_account_is_429_with_retry_after_over_http_even_for_the_right_password() {
    let s = serve();
    s.ann();
    let other = s.key(None);
    for _ in 0..5 {
        let refused = s.connect(&other, "ann@example.com", "wrong-password");
        assert_eq!((refused.status, refused.body["errorCategory"].as_str()), (401, Some("UNAUTHORIZED")), "{}", refused.body);
    }
    let locked = s.connect(&other, "ann@example.com", "glaze-and-fire");
    assert_eq!((locked.status, locked.body["errorCategory"].as_str()), (429, Some("TOO_MANY_ATTEMPTS")), "{}", locked.body);
    assert_eq!(locked.retry_after.as_deref(), Some("30"));
    s.clock.advance(chrono::Duration::seconds(30));
    assert_eq!(s.connect(&other, "ann@example.com", "glaze-and-fire").status, 200);
}

#[test]
fn a_registered_email_at_create_customer_is_counted_over_http() {
    let s = serve();
    s.ann();
    let other = s.key(None);
    for _ in 0..5 {
        let conflict = s.call_as(&other, "POST", "/restapi/v1/customers", &customer_body("ann@example.com"));
        assert_eq!((conflict.status, conflict.body["errorCategory"].as_str()), (409, Some("CONFLICT")));
    }
    let locked = s.connect(&s.partner, "ann@example.com", "glaze-and-fire");
    assert_eq!((locked.status, locked.retry_after.as_deref()), (429, Some("30")), "{}", locked.body);
}

#[test]
fn failed_logins_arriving_at_once_are_all_committed() {
    let s = serve();
    s.ann();
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..12).map(|_| scope.spawn(|| s.connect(&s.partner, "ann@example.com", "wrong-password").status)).collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    // Those verified before the lock began are 401; the others found it locked.
    assert!(statuses.iter().all(|&status| status == 401 || status == 429), "{statuses:?}");
    let failures: i64 = rusqlite::Connection::open(&s.db)
        .unwrap()
        .query_row("SELECT max(failures) FROM login_failures WHERE subject LIKE 'account:%'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(usize::try_from(failures).unwrap(), statuses.iter().filter(|&&status| status == 401).count());
    assert!(failures >= 5, "{statuses:?}");
    assert_eq!(s.connect(&s.partner, "ann@example.com", "glaze-and-fire").status, 429);
}

#[test]
fn a_disconnected_partner_gets_404_for_the_customer_at_once() {
    let s = serve();
    let ann = s.ann();
    let prepay = format!("/restapi/v1/customers/{ann}/prepay");
    assert_eq!(s.call_as(&s.partner, "GET", &prepay, &Value::Null).status, 200);
    let own = s.key(Some(&ann));
    let listed = s.call_as(&own, "GET", &format!("/restapi/v1/customers/{ann}/partners"), &Value::Null);
    assert_eq!(listed.status, 200);
    let partner_id = listed.body["partners"][0]["keyId"].as_str().unwrap().to_string();
    let removed = s.call_as(&own, "DELETE", &format!("/restapi/v1/customers/{ann}/partners/{partner_id}"), &Value::Null);
    assert_eq!((removed.status, &removed.body), (200, &json!({"ok": true})));
    let gone = s.call_as(&s.partner, "GET", &prepay, &Value::Null);
    assert_eq!((gone.status, gone.body["errorCategory"].as_str()), (404, Some("NOT_FOUND")));
}

#[test]
fn a_partner_disconnected_by_the_cli_gets_404_at_once() {
    let s = serve();
    let ann = s.ann();
    let prepay = format!("/restapi/v1/customers/{ann}/prepay");
    assert_eq!(s.call_as(&s.partner, "GET", &prepay, &Value::Null).status, 200);
    // As `consign keys disconnect` does, on its own connection to the file.
    Shipping::open(&s.db).unwrap().disconnect_partner(consign::CustomerId(&ann), "K0000001").unwrap();
    assert_eq!(s.call_as(&s.partner, "GET", &prepay, &Value::Null).status, 404);
}
