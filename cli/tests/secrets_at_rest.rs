//! Secrets at rest under `consign serve`: the secret key file beside the database, the
//! files' modes, and no provider password or payment token in clear in the file's bytes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

use consign_conformance::{customer_body, parcel_account, payment_body, with};
use serde_json::{json, Value};

/// A fresh directory of its own for the test `name`.
fn dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("consign-secrets-{name}"))
}

fn consign(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_consign")).args(args).env_remove("CONSIGN_SECRET_KEY_FILE").output().unwrap()
}

/// `consign call` on `db`: status line and JSON answer.
fn call(db: &Path, method: &str, path: &str, body: &Value) -> Value {
    let out = consign(&["call", method, path, &body.to_string(), "--db", db.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `consign serve` on `db` at a free port, its log going to `log`: the process and its
/// base URL.
fn serve(db: &Path, log: &Path) -> (Child, String) {
    common::serve(db, |command| {
        command.env_remove("CONSIGN_SECRET_KEY_FILE").stderr(std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap());
    })
}

fn send(base: &str, key: &str, method: &str, path: &str, body: &Value) -> u16 {
    let agent = common::agent();
    let request = ureq::http::Request::builder().method(method).uri(format!("{base}{path}")).header("Authorization", format!("RSIS {key}"));
    agent.run(request.body(body.to_string()).unwrap()).unwrap().status().as_u16()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).permissions().mode() & 0o777
}

/// The bytes of the database and its log.
fn stored_bytes(db: &Path) -> Vec<u8> {
    let mut bytes = std::fs::read(db).unwrap();
    bytes.extend(std::fs::read(format!("{}-wal", db.display())).unwrap_or_default());
    bytes
}

#[test]
fn serve_keeps_no_password_or_token_in_clear_in_the_file_and_creates_it_and_its_key_owner_only() {
    let dir = dir("serve");
    let db = dir.join("shop.db");
    let log = dir.join("serve.log");
    let key_file = dir.join("shop.db.key");
    // Before any key: `call` stores a payment token as sent, and the file shows it.
    let customer =
        call(&db, "POST", "/restapi/v1/customers", &customer_body("ann@example.com"))["customerId"].as_str().unwrap().to_string();
    let before = "tok_storedInClearBeforeAnyKey";
    call(&db, "POST", &format!("/restapi/v1/customers/{customer}/paymentMethod"), &payment_body(before));
    assert!(contains(&stored_bytes(&db), before), "the test sees a clear value");
    assert!(!key_file.exists());

    // The first start creates the key file and seals what was stored in clear.
    let (mut server, base) = serve(&db, &log);
    assert_eq!(std::fs::read(&key_file).unwrap().len(), 32);
    let out = consign(&["keys", "create", "--customer", &customer, "--db", db.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let api_key = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let password = "pr0vider-Pass-in-clear";
    let after = "tok_storedAfterTheKeyWasMade";
    let account = with(parcel_account("A1B2C3"), "/accountFields/password", json!(password));
    assert_eq!(send(&base, &api_key, "PUT", &format!("/restapi/v1/customers/{customer}/provider-accounts/parcel"), &account), 201);
    assert_eq!(send(&base, &api_key, "POST", &format!("/restapi/v1/customers/{customer}/paymentMethod"), &payment_body(after)), 200);
    let bytes = stored_bytes(&db);
    for secret in [password, before, after] {
        assert!(!contains(&bytes, secret), "{secret} in clear in the database or its log");
    }
    for file in
        [db.clone(), PathBuf::from(format!("{}-wal", db.display())), PathBuf::from(format!("{}-shm", db.display())), key_file.clone()]
    {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    server.kill().unwrap();
    server.wait().unwrap();

    // A second start uses the key file it made, and says nothing of it.
    let key = std::fs::read(&key_file).unwrap();
    let (mut server, _) = serve(&db, &log);
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(std::fs::read(&key_file).unwrap(), key);
    let log = std::fs::read_to_string(&log).unwrap();
    assert_eq!(log.matches("created the secret key file").count(), 1, "{log}");
    assert!(log.contains(&key_file.display().to_string()), "{log}");
    // `call` opens the database with the key file beside it; the key opens what was sealed.
    let accounts = call(&db, "GET", &format!("/restapi/v1/customers/{customer}/provider-accounts"), &Value::Null);
    assert_eq!(accounts["providerAccounts"][0]["id"], "PA0000001", "{accounts}");
    let key = consign::read_secret_key_file(&key_file).unwrap();
    let shipping = consign::Shipping::builder().path(&db).secret_key(key).open().unwrap();
    assert_eq!(shipping.payment_token(&customer).unwrap().as_deref(), Some(after));
    assert_eq!(shipping.provider_account_fields(consign::CustomerId(&customer), "PA0000001").unwrap()["password"], password);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_secret_key_file_is_a_clear_error_naming_it_without_its_content() {
    let dir = dir("bad-key");
    let db = dir.join("shop.db");
    let short = dir.join("short.key");
    std::fs::write(&short, "SHORT-SECRET").unwrap();
    let long = dir.join("long.key");
    std::fs::write(&long, "LONG-SECRET-".repeat(4)).unwrap();
    let missing = dir.join("missing.key");
    for (file, says) in [
        (&short, "must hold exactly 32 bytes, found 12"),
        (&long, "must hold exactly 32 bytes, found more"),
        (&missing, "cannot read the secret key file"),
        (&dir, "cannot read the secret key file"),
    ] {
        for command in
            [vec!["call", "GET", "/restapi/v1/customers/C0000001/prepay"], vec!["keys", "list"], vec!["serve", "--listen", "127.0.0.1:0"]]
        {
            let mut args = command.clone();
            args.extend(["--db", db.to_str().unwrap(), "--secret-key-file", file.to_str().unwrap()]);
            let out = consign(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command:?} {}: {stderr}", file.display());
            assert!(stderr.contains(&file.display().to_string()) && stderr.contains(says), "{command:?}: {stderr}");
            assert!(!stderr.contains("SECRET"), "{command:?}: {stderr}");
        }
    }
    // The environment names the file as the option does.
    let out = Command::new(env!("CARGO_BIN_EXE_consign"))
        .args(["keys", "list", "--db", db.to_str().unwrap()])
        .env("CONSIGN_SECRET_KEY_FILE", &short)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("short.key"));
    let _ = std::fs::remove_dir_all(&dir);
}
