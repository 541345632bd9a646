//! The login throttle (DECISIONS, "Logins"): failed connect-customer logins, and
//! create-customer with a registered e-mail, counted per account and per API key; 429
//! `TOO_MANY_ATTEMPTS` with the seconds to wait while locked.

use consign::{Caller, Response, Shipping};
use consign_conformance::*;
use serde_json::{json, Value};

const CREATE: &str = "/restapi/v1/customers";
const CONNECT: &str = "/restapi/v1/connect-customer";
/// The password of [`customer_body`].
const RIGHT: &str = "glaze-and-fire";

fn login(email: &str, password: &str) -> String {
    json!({"username": email, "password": password}).to_string()
}

/// Connect customer through `handle` (no key: counted per account only).
fn connect(h: &Harness, email: &str, password: &str) -> Response {
    h.shipping.handle("POST", CONNECT, &login(email, password))
}

/// Connect customer by the key of `caller`.
fn connect_as(h: &Harness, caller: &Caller, email: &str, password: &str) -> Response {
    h.shipping.handle_as(caller, "POST", CONNECT, &login(email, password))
}

fn partner(h: &Harness, name: &str) -> Caller {
    h.shipping.authenticate(&h.shipping.create_api_key(None, name).unwrap().key).unwrap()
}

fn body(r: &Response) -> Value {
    serde_json::from_str(&r.body).unwrap()
}

#[track_caller]
fn assert_refused(r: &Response) {
    assert_eq!((r.status, body(r)["errorCategory"].as_str(), r.retry_after), (401, Some("UNAUTHORIZED"), None), "{}", r.body);
}

#[track_caller]
fn assert_locked(r: &Response, seconds: u64) {
    assert_eq!((r.status, body(r)["errorCategory"].as_str(), r.retry_after), (429, Some("TOO_MANY_ATTEMPTS"), Some(seconds)), "{}", r.body);
}

/// `n` wrong passwords for `email`, each answered 401.
#[track_caller]
fn fail(h: &Harness, email: &str, n: usize) {
    for _ in 0..n {
        assert_refused(&connect(h, email, "wrong-password"));
    }
}

fn seconds(n: i64) -> chrono::Duration {
    chrono::Duration::seconds(n)
}

#[test]
fn an_account_is_locked_after_five_failures_for_thirty_seconds() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    fail(&h, "ann@example.com", 5);
    assert_locked(&connect(&h, "ann@example.com", "wrong-password"), 30);
    h.clock.advance(seconds(12));
    assert_locked(&connect(&h, "ANN@example.com ", "wrong-password"), 18);
}

#[test]
fn four_failures_do_not_lock() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    fail(&h, "ann@example.com", 4);
    assert_eq!(connect(&h, "ann@example.com", RIGHT).status, 200);
}

#[test]
fn the_lock_doubles_with_each_further_failure_up_to_fifteen_minutes() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    fail(&h, "ann@example.com", 5);
    for expected in [60, 120, 240, 480, 900, 900] {
        let wait = connect(&h, "ann@example.com", "wrong-password").retry_after.unwrap();
        h.clock.advance(seconds(i64::try_from(wait).unwrap()));
        fail(&h, "ann@example.com", 1);
        assert_locked(&connect(&h, "ann@example.com", "wrong-password"), expected);
    }
}

#[test]
fn the_failures_are_forgotten_an_hour_after_the_last() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    fail(&h, "ann@example.com", 5);
    h.clock.advance(seconds(3599));
    // Still counted: one more failure locks for the doubled delay.
    fail(&h, "ann@example.com", 1);
    assert_locked(&connect(&h, "ann@example.com", RIGHT), 60);
    h.clock.advance(seconds(3600));
    // Forgotten: four failures are free again.
    fail(&h, "ann@example.com", 4);
    assert_eq!(connect(&h, "ann@example.com", RIGHT).status, 200);
}

#[test]
fn the_right_password_is_refused_while_locked() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    fail(&h, "ann@example.com", 5);
    assert_locked(&connect(&h, "ann@example.com", RIGHT), 30);
    h.clock.advance(seconds(30));
    assert_eq!(connect(&h, "ann@example.com", RIGHT).status, 200);
}

#[test]
fn a_successful_login_forgets_the_accounts_failures() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    fail(&h, "ann@example.com", 4);
    assert_eq!(connect(&h, "ann@example.com", RIGHT).status, 200);
    fail(&h, "ann@example.com", 4);
    assert_eq!(connect(&h, "ann@example.com", RIGHT).status, 200);
}

#[test]
fn an_unknown_email_is_counted_and_locked_as_a_registered_one() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    fail(&h, "ann@example.com", 5);
    fail(&h, "nobody@example.com", 5);
    let (registered, unknown) = (connect(&h, "ann@example.com", "x"), connect(&h, "nobody@example.com", "x"));
    assert_locked(&unknown, 30);
    assert_eq!((registered.status, registered.body, registered.retry_after), (unknown.status, unknown.body, unknown.retry_after));
}

#[test]
fn a_key_is_locked_after_twenty_failures_across_accounts() {
    let h = Harness::new();
    let spraying = partner(&h, "spraying");
    for i in 0..20 {
        assert_refused(&connect_as(&h, &spraying, &format!("user{i}@example.com"), RIGHT));
    }
    h.create_customer("ann@example.com");
    let locked = connect_as(&h, &spraying, "ann@example.com", RIGHT);
    assert_locked(&locked, 30);
    assert!(body(&locked)["error"].as_str().unwrap().contains("this API key"), "{}", locked.body);
    // Each account failed once only: another key, or the library, logs in.
    assert_eq!(connect_as(&h, &partner(&h, "other"), "ann@example.com", RIGHT).status, 200);
    assert_eq!(connect(&h, "user0@example.com", "x").status, 401);
}

#[test]
fn a_locked_key_cannot_create_customers() {
    let h = Harness::new();
    let spraying = partner(&h, "spraying");
    for i in 0..20 {
        assert_refused(&connect_as(&h, &spraying, &format!("user{i}@example.com"), RIGHT));
    }
    let r = h.shipping.handle_as(&spraying, "POST", CREATE, &customer_body("new@example.com").to_string());
    assert_locked(&r, 30);
}

#[test]
fn a_registered_email_at_create_customer_counts_as_a_failed_login() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    for _ in 0..5 {
        h.call("POST", CREATE, &customer_body("ann@example.com")).assert_error(409, "CONFLICT", Some("email"));
    }
    assert_locked(&connect(&h, "ann@example.com", RIGHT), 30);
    assert_locked(&h.shipping.handle("POST", CREATE, &customer_body("ann@example.com").to_string()), 30);
}

#[test]
fn a_registered_email_gets_the_same_answer_whichever_partner_asks() {
    let h = Harness::new();
    let (owner, other) = (partner(&h, "owner"), partner(&h, "other"));
    let create = |caller: &Caller| h.shipping.handle_as(caller, "POST", CREATE, &customer_body("ann@example.com").to_string());
    assert_eq!(create(&owner).status, 201);
    let (again, theirs) = (create(&owner), create(&other));
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!((&theirs.status, &theirs.body, &theirs.retry_after), (&again.status, &again.body, &again.retry_after));
    assert_eq!(h.shipping.handle("POST", CREATE, &customer_body("ann@example.com").to_string()).body, again.body);
}

#[test]
fn failures_in_a_group_of_writes_are_committed_with_it() {
    let h = Harness::new();
    h.create_customer("ann@example.com");
    let statuses =
        h.shipping.commit_together(|| (0..5).map(|_| connect(&h, "ann@example.com", "wrong-password").status).collect::<Vec<_>>());
    assert_eq!(statuses.unwrap(), [401; 5]);
    assert_locked(&connect(&h, "ann@example.com", RIGHT), 30);
}

#[test]
fn the_count_is_kept_in_the_database_for_every_service_on_it() {
    let dir = std::env::temp_dir().join(format!("consign-logins-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shared.db");
    let clock = std::sync::Arc::new(consign::FixedClock::at(NOW).unwrap());
    let open = || Shipping::builder().path(&path).clock(clock.clone()).open().unwrap();
    let (one, two) = (open(), open());
    assert_eq!(one.handle("POST", CREATE, &customer_body("ann@example.com").to_string()).status, 201);
    for _ in 0..5 {
        assert_eq!(one.handle("POST", CONNECT, &login("ann@example.com", "wrong-password")).status, 401);
    }
    assert_locked(&two.handle("POST", CONNECT, &login("ann@example.com", RIGHT)), 30);
    drop((one, two));
    assert_locked(&open().handle("POST", CONNECT, &login("ann@example.com", RIGHT)), 30);
    std::fs::remove_dir_all(&dir).unwrap();
}
