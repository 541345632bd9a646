//! The partners of a customer (DECISIONS, "Logins"): the partner keys that created or
//! connected it, listed and disconnected through `handle_as` by a key acting for it.

use consign::{Caller, Response};
use consign_conformance::*;
use serde_json::{json, Value};

fn key(h: &Harness, customer: Option<&str>, name: &str) -> Caller {
    h.shipping.authenticate(&h.shipping.create_api_key(customer, name).unwrap().key).unwrap()
}

fn call(h: &Harness, caller: &Caller, method: &str, path: &str, body: &str) -> (u16, Value) {
    let r: Response = h.shipping.handle_as(caller, method, path, body);
    (r.status, serde_json::from_str(&r.body).unwrap())
}

fn partners(h: &Harness, caller: &Caller, customer: &str) -> (u16, Value) {
    call(h, caller, "GET", &Harness::path(customer, "/partners"), "")
}

fn disconnect(h: &Harness, caller: &Caller, customer: &str, key_id: &str) -> (u16, Value) {
    call(h, caller, "DELETE", &Harness::path(customer, &format!("/partners/{key_id}")), "")
}

/// Ann, created by the partner `creator` at [`NOW`] and connected by `connector` a minute
/// later; and a key of Ann's own.
struct Ann {
    id: String,
    creator: Caller,
    connector: Caller,
    own: Caller,
}

fn ann(h: &Harness) -> Ann {
    let (creator, connector) = (key(h, None, "shop"), key(h, None, "marketplace"));
    let (status, created) = call(h, &creator, "POST", "/restapi/v1/customers", &customer_body("ann@example.com").to_string());
    assert_eq!(status, 201, "{created}");
    let id = created["customerId"].as_str().unwrap().to_string();
    h.clock.advance(chrono::Duration::minutes(1));
    let login = json!({"username": "ann@example.com", "password": "glaze-and-fire"}).to_string();
    assert_eq!(call(h, &connector, "POST", "/restapi/v1/connect-customer", &login).0, 200);
    let own = key(h, Some(&id), "till");
    Ann { id, creator, connector, own }
}

#[test]
fn a_customer_key_lists_every_partner_with_when_it_connected_and_never_the_key() {
    let h = Harness::new();
    let a = ann(&h);
    let (status, listed) = partners(&h, &a.own, &a.id);
    assert_eq!(status, 200);
    assert_eq!(
        listed,
        json!({"partners": [
            {"keyId": a.creator.key_id(), "name": "shop", "connectedAt": "2026-11-21T15:00:00Z", "revokedAt": null},
            {"keyId": a.connector.key_id(), "name": "marketplace", "connectedAt": "2026-11-21T15:01:00Z", "revokedAt": null},
        ]})
    );
}

#[test]
fn a_partner_key_sees_only_itself() {
    let h = Harness::new();
    let a = ann(&h);
    let (status, listed) = partners(&h, &a.connector, &a.id);
    assert_eq!(status, 200);
    let ids: Vec<&str> = listed["partners"].as_array().unwrap().iter().map(|p| p["keyId"].as_str().unwrap()).collect();
    assert_eq!(ids, [a.connector.key_id()]);
}

#[test]
fn a_key_that_does_not_act_for_the_customer_gets_404() {
    let h = Harness::new();
    let a = ann(&h);
    let stranger = key(&h, None, "stranger");
    let (status, body) = partners(&h, &stranger, &a.id);
    assert_eq!((status, body["errorCategory"].as_str()), (404, Some("NOT_FOUND")));
    assert_eq!(disconnect(&h, &stranger, &a.id, a.creator.key_id()).0, 404);
    assert_eq!(partners(&h, &a.own, &a.id).1["partners"].as_array().unwrap().len(), 2);
}

#[test]
fn a_customer_key_disconnects_a_partner_which_gets_404_for_the_customer_at_once() {
    let h = Harness::new();
    let a = ann(&h);
    let (status, body) = disconnect(&h, &a.own, &a.id, a.creator.key_id());
    assert_eq!((status, body), (200, json!({"ok": true})));
    let (status, body) = call(&h, &a.creator, "GET", &Harness::path(&a.id, "/prepay"), "");
    assert_eq!((status, body["errorCategory"].as_str()), (404, Some("NOT_FOUND")));
    assert_eq!(call(&h, &a.connector, "GET", &Harness::path(&a.id, "/prepay"), "").0, 200);
}

#[test]
fn a_partner_disconnects_itself_and_acts_again_only_after_connecting_with_the_password() {
    let h = Harness::new();
    let a = ann(&h);
    assert_eq!(disconnect(&h, &a.creator, &a.id, a.creator.key_id()).0, 200);
    assert_eq!(partners(&h, &a.creator, &a.id).0, 404);
    let wrong = json!({"username": "ann@example.com", "password": "guess-again"}).to_string();
    assert_eq!(call(&h, &a.creator, "POST", "/restapi/v1/connect-customer", &wrong).0, 401);
    assert_eq!(partners(&h, &a.creator, &a.id).0, 404);
    let right = json!({"username": "ann@example.com", "password": "glaze-and-fire"}).to_string();
    assert_eq!(call(&h, &a.creator, "POST", "/restapi/v1/connect-customer", &right).0, 200);
    assert_eq!(partners(&h, &a.creator, &a.id).0, 200);
}

#[test]
fn a_partner_cannot_disconnect_another_partner() {
    let h = Harness::new();
    let a = ann(&h);
    let (status, body) = disconnect(&h, &a.connector, &a.id, a.creator.key_id());
    assert_eq!((status, body["errorCategory"].as_str()), (404, Some("NOT_FOUND")));
    assert_eq!(call(&h, &a.creator, "GET", &Harness::path(&a.id, "/prepay"), "").0, 200);
}

#[test]
fn disconnecting_a_key_that_is_not_connected_is_not_found() {
    let h = Harness::new();
    let a = ann(&h);
    for key_id in [a.own.key_id(), "K0000099"] {
        let (status, body) = disconnect(&h, &a.own, &a.id, key_id);
        assert_eq!((status, body["errorCategory"].as_str()), (404, Some("NOT_FOUND")), "{key_id}");
    }
}

#[test]
fn a_revoked_partner_is_listed_with_when_it_was_revoked() {
    let h = Harness::new();
    let a = ann(&h);
    h.shipping.revoke_api_key(a.creator.key_id()).unwrap();
    let listed = partners(&h, &a.own, &a.id).1;
    assert_eq!(listed["partners"][0]["revokedAt"], "2026-11-21T15:01:00Z");
    assert_eq!(disconnect(&h, &a.own, &a.id, a.creator.key_id()).0, 200);
}

#[test]
fn the_library_lists_and_disconnects_any_partner() {
    let h = Harness::new();
    let a = ann(&h);
    assert_eq!(h.get(&Harness::path(&a.id, "/partners")).expect(200)["partners"].as_array().unwrap().len(), 2);
    h.delete(&Harness::path(&a.id, &format!("/partners/{}", a.connector.key_id()))).expect(200);
    h.delete(&Harness::path(&a.id, &format!("/partners/{}", a.connector.key_id()))).assert_error(404, "NOT_FOUND", None);
    h.get(&Harness::path("C0000099", "/partners")).assert_error(404, "NOT_FOUND", None);
}
