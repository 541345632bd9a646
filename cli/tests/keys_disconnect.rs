//! `consign keys disconnect` against a database file.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use common::consign;

#[test]
fn keys_disconnect_undoes_a_partner_link_and_refuses_one_that_is_not_there() {
    let dir = common::fresh_dir("consign-cli-disconnect");
    let path = dir.join("shop.db");
    let shipping = consign::Shipping::open(&path).unwrap();
    let partner = shipping.authenticate(&shipping.create_api_key(None, "shop").unwrap().key).unwrap();
    let customer = common::ann_customer();
    assert_eq!(shipping.handle_as(&partner, "POST", "/restapi/v1/customers", &customer).status, 201);
    assert!(shipping.acts_for(&partner, "C0000001").unwrap());

    let db = path.to_str().unwrap();
    let out = consign(&["keys", "disconnect", "K0000001", "C0000001", "--db", db]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "disconnected API key K0000001 from customer C0000001\n");
    assert!(!shipping.acts_for(&partner, "C0000001").unwrap());

    let again = consign(&["keys", "disconnect", "K0000001", "C0000001", "--db", db]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("No partner key \"K0000001\" is connected to customer \"C0000001\""));
    drop(shipping);
    std::fs::remove_dir_all(&dir).unwrap();
}
