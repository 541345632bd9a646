//! The stored forms of consign's JSON columns, frozen (docs/DECISIONS.md, "Stored
//! forms"): every column that holds JSON holds the interface's own JSON (wire JSON at
//! rest), and what a database holds outlives the build that wrote it.
//!
//! `tests/stored/<table>.<column>/<version>.json` is a sample of each column's form,
//! taken from the database of one fixed scenario; a sample is never edited once landed.
//! - [`every_json_column_is_written_as_its_latest_sample`]: today's build writes each
//!   column byte for byte as its latest sample, so adding, renaming or reordering a field
//!   of a wire type fails here rather than silently changing the data format. A new form
//!   is a new sample version beside the old (`CONSIGN_FREEZE=1` writes it), and a
//!   reader of the old or a migration that rewrites it.
//! - [`every_sample_reads_back`]: each sample of every version, put into the column, is
//!   read back by today's build; the latest gives exactly today's answers.
//! - [`no_json_column_is_without_a_sample`]: a column that holds JSON and is not listed
//!   here fails, so a new JSON column cannot skip its sample.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use consign::{FixedClock, Shipping};
use consign_conformance::*;
use rusqlite::Connection;
use serde_json::{json, Value};

/// The JSON columns: table, column, and the key of the one row the scenario samples.
const COLUMNS: [(&str, &str); 16] = [
    ("catalog", "document"),
    ("customers", "mailing_address"),
    ("customers", "billing_address"),
    ("customers", "utm"),
    ("payment_methods", "billing_address"),
    ("provider_accounts", "fields"),
    ("quoted_shipments", "shipment"),
    ("shipments", "view"),
    ("commercial_invoices", "data"),
    ("return_labels", "return_to"),
    ("idempotency_keys", "request"),
    ("idempotency_keys", "response"),
    ("orders", "document"),
    ("pickups", "address"),
    ("manifests", "shipper"),
    ("events", "data"),
];

/// The rows sampled: the scenario's last row of each table (each holds one form; the
/// sampled row is the one with every optional part present).
fn sampled_row(table: &str) -> &'static str {
    match table {
        "catalog" => "id = 1",
        "quoted_shipments" => "first_quote_id = (SELECT max(first_quote_id) FROM quoted_shipments)",
        // The data of the other kinds of event is the JSON of their routes, sampled where
        // those routes' rows are, or made from them on the spot (the manifest's PDF).
        "events" => "rowid = (SELECT max(rowid) FROM events WHERE type = 'shipment.booked')",
        _ => "rowid = (SELECT max(rowid) FROM TABLE)",
    }
}

/// The samples' folder.
fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("stored")
}

/// The versions of a column's samples, oldest first: (version, text).
fn versions(table: &str, column: &str) -> Vec<(u32, String)> {
    let dir = samples().join(format!("{table}.{column}"));
    let mut found: Vec<(u32, String)> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter_map(|p| {
                    let version = p.file_stem()?.to_str()?.parse().ok()?;
                    let text = std::fs::read_to_string(&p).unwrap();
                    Some((version, text.strip_suffix('\n').unwrap_or(&text).to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort_by_key(|(v, _)| *v);
    found
}

/// The scenario's service and what it made.
struct Scenario {
    h: Harness,
    id: String,
    /// The shipment abroad (with a commercial invoice), then the one at home (with a
    /// return label, an idempotency key and an order it fulfils).
    books: [String; 2],
    integration: String,
    pickup: String,
    manifest: String,
    /// The booking at home as sent: sent again, it is answered from `idempotency_keys`.
    replay: Value,
    /// A quote of the quoted shipment abroad.
    quote: i64,
}

/// A service at [`NOW`] that renders labels and invoices when they are retrieved, so that
/// retrieving them reads the stored JSON they are rendered from.
fn service(bytes: Option<Vec<u8>>) -> Harness {
    let clock = Arc::new(FixedClock::at(NOW).unwrap());
    let builder = Shipping::builder().clock(clock.clone()).lazy_labels(true);
    let builder = match bytes {
        Some(bytes) => builder.bytes(bytes),
        None => builder,
    };
    Harness { shipping: builder.open().unwrap(), clock, database: None }
}

/// One customer with every kind of row that holds JSON, each with its optional parts
/// present. Everything in it is fixed (the clock, the ids, no secret key), so its
/// database is the same on every run.
fn scenario() -> Scenario {
    let h = service(None);
    let id = h.shipper("ann@example.com");
    h.call("PUT", &Harness::path(&id, "/provider-accounts/parcel"), &parcel_account("A1B2C3")).expect(201);
    let quoted = h.quote_one(&id, intl_shipment());
    let quote = quoted["quotes"][0]["quoteId"].as_i64().unwrap();

    let mut invoiced = intl_shipment();
    invoiced["carrierCode"] = json!("intlexpress");
    invoiced["serviceCode"] = json!("intlexpress_express_worldwide");
    invoiced["packageTypeCode"] = json!("intlexpress_custom");
    invoiced["commercialInvoice"] = invoice("1.2");
    invoiced["approvePrepayRecharge"] = json!(true);
    let abroad = h.book(&id, &invoiced);

    let integration = h.integration(&id);
    h.call("PUT", &Harness::path(&id, &format!("/integrations/{integration}/orders/ORD-1")), &order_body("ORD-1")).expect(201);

    let mut replay = with(book_body(), "/scanBasedReturnLabel", json!(true));
    replay["idempotencyKey"] = json!("order-1-attempt-1");
    replay["fulfillment"] = json!({"integrationId": integration, "orderId": "ORD-1"});
    let home = h.book(&id, &replay);

    let pickup = h.call("POST", &Harness::path(&id, "/pickups"), &pickup_body("postal", &[&home])).expect(201)["pickupId"].clone();
    let manifest = h.call("POST", &Harness::path(&id, "/manifest"), &manifest_body("postal", &[&home])).expect(201)["manifestId"].clone();
    Scenario {
        h,
        id,
        books: [abroad, home],
        integration,
        pickup: pickup.as_str().unwrap().to_string(),
        manifest: manifest.as_str().unwrap().to_string(),
        replay,
        quote,
    }
}

/// Every answer that the JSON columns feed: (request, status, body).
fn reads(s: &Scenario, h: &Harness) -> Vec<(String, u16, String)> {
    let mut gets = vec![
        "/services".to_string(),
        "/provider-accounts".to_string(),
        format!("/integrations/{}/orders/ORD-1", s.integration),
        format!("/pickups/{}", s.pickup),
        format!("/manifest/{}", s.manifest),
        "/shipments".to_string(),
        "/events?types=shipment.booked".to_string(),
    ];
    let [abroad, home] = &s.books;
    gets.extend(["", "/label", "/commercialInvoice"].map(|tail| format!("/shipments/{abroad}{tail}")));
    gets.extend(["", "/label", "/return-label/PDF", "/tracking-information"].map(|tail| format!("/shipments/{home}{tail}")));
    let answer = |method: &str, tail: &str, body: &str| {
        let r = h.shipping.handle(method, &Harness::path(&s.id, tail), body);
        (format!("{method} {tail}"), r.status, r.body)
    };
    let mut answers: Vec<_> = gets.iter().map(|tail| answer("GET", tail, "")).collect();
    answers.push(answer("POST", "/searchShipments", r#"{"keyword": "Ann"}"#));
    // The quote is found again to be added to a batch.
    let batch = h.call("POST", &Harness::path(&s.id, "/batch"), &json!({"name": "Monday"})).expect(201)["batchId"].clone();
    let batch = batch.as_str().unwrap();
    answers.push(answer("POST", &format!("/batch/{batch}/quotes"), &json!({"quoteIds": [s.quote]}).to_string()));
    answers.push(answer("GET", &format!("/batch/{batch}"), ""));
    // Booked from the batch, the quoted shipment becomes a shipment of its own.
    answers.push(answer("POST", "/batch-book", &json!({"batchId": batch, "approvePrepayRecharge": true}).to_string()));
    answers.push(answer("POST", "/searchShipments", r#"{"keyword": "INV-2001"}"#));
    answers.push(answer("POST", "/shipments", &s.replay.to_string()));
    answers
}

/// `shipping`'s database as a file, open for raw reads and writes.
fn raw(shipping: &Shipping, name: &str) -> (Connection, PathBuf) {
    let path = std::env::temp_dir().join(format!("consign-stored-forms-{}-{name}.db", std::process::id()));
    std::fs::write(&path, shipping.export_database().unwrap()).unwrap();
    (Connection::open(&path).unwrap(), path)
}

/// The WHERE clause of `table`'s sampled row.
fn row(table: &str) -> String {
    sampled_row(table).replace("TABLE", table)
}

/// The text of `table.column` in the scenario's sampled row.
fn stored(conn: &Connection, table: &str, column: &str) -> String {
    conn.query_row(&format!("SELECT {column} FROM {table} WHERE {}", row(table)), [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{table}.{column}: {e}"))
}

/// Columns that are kept but read by no operation (records of what a customer gave), as
/// their type reads and writes them back: `None` for the others.
fn typed(table: &str, column: &str, sample: &str) -> Option<Result<String, serde_json::Error>> {
    fn again<T: serde::de::DeserializeOwned + serde::Serialize>(sample: &str) -> Result<String, serde_json::Error> {
        serde_json::to_string(&serde_json::from_str::<T>(sample)?)
    }
    match (table, column) {
        ("customers", "mailing_address" | "billing_address") | ("payment_methods", "billing_address") | ("manifests", "shipper") => {
            Some(again::<consign::wire::Address>(sample))
        }
        ("customers", "utm") => Some(again::<consign::wire::Utm>(sample)),
        _ => None,
    }
}

#[test]
fn every_json_column_is_written_as_its_latest_sample() {
    let s = scenario();
    let (conn, path) = raw(&s.h.shipping, "written");
    let freeze = std::env::var_os("CONSIGN_FREEZE").is_some();
    let mut changed = Vec::new();
    for (table, column) in COLUMNS {
        let written = stored(&conn, table, column);
        let latest = versions(table, column).pop();
        if latest.as_ref().is_some_and(|(_, sample)| *sample == written) {
            continue;
        }
        let next = latest.map_or(1, |(v, _)| v + 1);
        if freeze {
            let dir = samples().join(format!("{table}.{column}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("{next}.json")), format!("{written}\n")).unwrap();
        }
        changed.push(format!("{table}.{column} (would be version {next})"));
    }
    let _ = std::fs::remove_file(path);
    assert!(
        changed.is_empty(),
        "this build writes another form than the latest sample of: {}.\nDatabases hold the old form: keep its sample, \
         make the build read it (or add a migration that rewrites it), and freeze the new form as the next version \
         with CONSIGN_FREEZE=1 (docs/DECISIONS.md, \"Stored forms\")",
        changed.join(", ")
    );
}

#[test]
fn every_sample_reads_back() {
    let today = {
        let s = scenario();
        reads(&s, &s.h)
    };
    assert!(today.iter().all(|(request, status, body)| *status < 300 || panic!("{request}: {status} {body}")));
    for (table, column) in COLUMNS {
        let all = versions(table, column);
        assert!(!all.is_empty(), "{table}.{column} has no sample");
        let latest = all.last().map(|(v, _)| *v);
        for (version, sample) in &all {
            if let Some(again) = typed(table, column, sample) {
                let again = again.unwrap_or_else(|e| panic!("{table}.{column} version {version} does not read: {e}"));
                if Some(*version) == latest {
                    assert_eq!(&again, sample, "{table}.{column} reads back as another text");
                }
            }
            let s = scenario();
            let (conn, path) = raw(&s.h.shipping, &format!("{table}.{column}.{version}"));
            conn.execute(&format!("UPDATE {table} SET {column} = ?1 WHERE {}", row(table)), [sample]).unwrap();
            if table == "shipments" && Some(*version) != latest {
                // A view of an older form is stored with the shape it was written in.
                conn.execute(&format!("UPDATE shipments SET view_shape = NULL WHERE {}", row(table)), []).unwrap();
            }
            drop(conn);
            let h = service(Some(std::fs::read(&path).unwrap()));
            let _ = std::fs::remove_file(path);
            let answers = reads(&s, &h);
            for ((request, status, body), (_, today_status, today_body)) in answers.iter().zip(&today) {
                let what = format!("{table}.{column} version {version}, {request}");
                assert_eq!(status, today_status, "{what}: {body}");
                if Some(*version) == latest {
                    assert_eq!(body, today_body, "{what}");
                }
            }
        }
    }
}

#[test]
fn no_json_column_is_without_a_sample() {
    let s = scenario();
    let (conn, path) = raw(&s.h.shipping, "columns");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'shipment_search%' AND name NOT LIKE 'shipment_grams%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut unlisted = Vec::new();
    for table in &tables {
        let columns: Vec<String> = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        for column in columns {
            let json: i64 = conn
                .query_row(&format!("SELECT count(*) FROM {table} WHERE typeof({column}) = 'text' AND json_valid({column}) AND substr(trim({column}), 1, 1) IN ('{{', '[')"), [], |r| r.get(0))
                .unwrap();
            if json > 0 && !COLUMNS.contains(&(table.as_str(), column.as_str())) {
                unlisted.push(format!("{table}.{column}"));
            }
        }
    }
    let _ = std::fs::remove_file(path);
    assert!(unlisted.is_empty(), "columns that hold JSON without a frozen sample: {}", unlisted.join(", "));
}
