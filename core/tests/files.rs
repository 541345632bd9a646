//! Database files shared with others: images that must not replace data before they are
//! checked, other applications' files, and locks held by another connection.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use consign::{ErrorCategory, Shipping, Synchronous};
use serde_json::{json, Value};

/// A temporary directory of this test, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("consign-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The body of a new customer with this e-mail.
fn customer_body(email: &str) -> String {
    let address = json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
        "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142"});
    json!({"profileCode": "Retail", "email": email, "password": "glaze-and-fire",
        "mailingAddress": address, "billingAddress": address, "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100}})
    .to_string()
}

/// Creates a customer through `handle` and returns its id.
fn customer(s: &Shipping, email: &str) -> String {
    let r = s.handle("POST", "/restapi/v1/customers", &customer_body(email));
    assert_eq!(r.status, 201, "{}", r.body);
    serde_json::from_str::<Value>(&r.body).unwrap()["customerId"].as_str().unwrap().to_string()
}

/// The image of a consign database, changed by `sql` as a hand-made file would be.
fn doctored_image(sql: &str) -> Vec<u8> {
    let image = Shipping::open_in_memory().unwrap().export_database().unwrap();
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, image.as_slice(), image.len(), false).unwrap();
    conn.execute_batch(sql).unwrap();
    let bytes = conn.serialize(rusqlite::MAIN_DB).unwrap().to_vec();
    bytes
}

fn has_customer(path: &Path, id: &str) -> bool {
    let s = Shipping::open(path).unwrap();
    s.handle("GET", &format!("/restapi/v1/customers/{id}/prepay"), "").status == 200
}

#[test]
fn an_image_of_a_newer_schema_is_refused_and_the_file_keeps_its_data() {
    let dir = TempDir::new("newer");
    let path = dir.path("shop.db");
    let id = customer(&Shipping::open(&path).unwrap(), "ann@example.com");
    let newer = doctored_image(&format!("PRAGMA user_version = {}", consign::SCHEMA_VERSION + 1));
    let e = Shipping::builder().path(&path).bytes(newer).open().unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    assert!(e.message().starts_with("bytes: the database image was written by a newer consign"), "{}", e.message());
    assert!(has_customer(&path, &id), "the old data is still there");
}

#[test]
fn an_image_holding_a_trigger_is_refused() {
    let dir = TempDir::new("trigger");
    let path = dir.path("shop.db");
    let id = customer(&Shipping::open(&path).unwrap(), "ann@example.com");
    let image = doctored_image(
        "CREATE TABLE stolen (email TEXT);
         CREATE TRIGGER copy AFTER INSERT ON customers BEGIN INSERT INTO stolen VALUES (new.email); END;",
    );
    let e = Shipping::builder().path(&path).bytes(image.clone()).open().unwrap_err();
    assert!(e.message().contains("it has table stolen, trigger copy that consign does not"), "{}", e.message());
    assert!(Shipping::builder().bytes(image).open().is_err(), "in memory too");
    assert!(has_customer(&path, &id));
}

#[test]
fn a_damaged_image_is_refused() {
    let mut image = Shipping::open_in_memory().unwrap().export_database().unwrap();
    let len = image.len();
    image.truncate(len / 2);
    let e = Shipping::builder().bytes(image).open().unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    assert!(e.message().contains("damaged"), "{}", e.message());
}

#[test]
fn an_exported_image_opens_in_memory_and_in_a_file() {
    let dir = TempDir::new("roundtrip");
    let source = Shipping::open_in_memory().unwrap();
    let id = customer(&source, "ann@example.com");
    let image = source.export_database().unwrap();
    let memory = Shipping::builder().bytes(image.clone()).open().unwrap();
    assert_eq!(memory.handle("GET", &format!("/restapi/v1/customers/{id}/prepay"), "").status, 200);
    let path = dir.path("copy.db");
    drop(Shipping::builder().path(&path).bytes(image).open().unwrap());
    assert!(has_customer(&path, &id));
}

#[test]
fn another_applications_file_is_refused_on_open_and_left_unchanged() {
    let dir = TempDir::new("foreign");
    let path = dir.path("notes.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');").unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let e = Shipping::open(&path).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::Internal);
    assert!(e.message().contains("not a consign database"), "{}", e.message());
    assert_eq!(std::fs::read(&path).unwrap(), before, "not switched to WAL, no tables added");
    assert!(!dir.path("notes.db-wal").exists());
    let image = Shipping::open_in_memory().unwrap().export_database().unwrap();
    assert!(Shipping::builder().path(&path).bytes(image).open().is_err(), "nor overwritten by an image");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// A write that waits for a lock past the busy timeout answers 503 `BUSY` and does
/// nothing; it succeeds once the lock is gone.
#[test]
fn a_write_blocked_by_another_connection_answers_busy() {
    let dir = TempDir::new("busy");
    let path = dir.path("shop.db");
    let open = || Shipping::builder().path(&path).busy_timeout(Duration::from_millis(50)).synchronous(Synchronous::Normal).open().unwrap();
    let (a, b) = (open(), open());
    let id = customer(&a, "ann@example.com");
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = b.handle("POST", "/restapi/v1/customers", &customer_body("bo@example.com"));
    assert_eq!(r.status, 503, "{}", r.body);
    let body: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(body["errorCategory"], "BUSY");
    // Reads go on meanwhile (WAL), in their own read transaction.
    assert_eq!(b.handle("GET", &format!("/restapi/v1/customers/{id}/prepay"), "").status, 200);
    holder.execute_batch("COMMIT").unwrap();
    let second = customer(&b, "bo@example.com");
    assert_ne!(second, id);
}
