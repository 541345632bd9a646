//! `consign keys disconnect` against a database file.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

use std::process::{Command, Output};

fn consign(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_consign")).args(args).output().unwrap()
}

#[test]
fn keys_disconnect_undoes_a_partner_link_and_refuses_one_that_is_not_there() {
    let dir = std::env::temp_dir().join(format!("consign-cli-disconnect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shop.db");
    let shipping = consign::Shipping::open(&path).unwrap();
    let partner = shipping.authenticate(&shipping.create_api_key(None, "shop").unwrap().key).unwrap();
    let address = r#"{"name": "Ann Lee", "company": "", "address1": "200 Market St", "address2": "", "city": "Philadelphia",
        "state": "PA", "zip": "19106", "country": "US", "phone": "2155550142"}"#;
    let customer = format!(
        r#"{{"profileCode": "Default", "email": "ann@example.com", "password": "glaze-and-fire", "mailingAddress": {address},
            "billingAddress": {address}, "prepaySettings": {{"minimumBalance": 0, "rechargeAmount": 100}}}}"#
    );
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
