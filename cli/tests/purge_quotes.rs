//! `consign purge-quotes` against a database file.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::process::Output;

use common::consign;

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn purge_quotes_removes_the_quotes_expired_long_enough_and_prints_how_many() {
    let dir = common::fresh_dir("consign-cli-purge");
    let path = dir.join("shop.db");
    let db = path.to_str().unwrap();

    let address = common::ANN_ADDRESS;
    let customer = common::ann_customer();
    let created = stdout(&consign(&["call", "POST", "/restapi/v1/customers", &customer, "--db", db]));
    let id = created.split("\"customerId\": \"").nth(1).and_then(|s| s.split('"').next()).unwrap().to_string();
    let tomorrow = (chrono::Utc::now().date_naive() + chrono::Duration::days(1)).to_string();
    let quote = format!(
        r#"{{"shipments": [{{"shipmentDate": "{tomorrow}", "shipmentReference": "A", "sender": {address},
            "receiver": {{"city": "Los Angeles", "state": "CA", "zip": "90012", "country": "US"}},
            "weightUnit": "lb", "dimUnit": "in", "currency": "USD", "pieces": [{{"weight": "2", "length": "10", "width": "8", "height": "6"}}]}}]}}"#
    );
    stdout(&consign(&["call", "POST", &format!("/restapi/v1/customers/{id}/batch-quote"), &quote, "--db", db]));
    stdout(&consign(&["call", "POST", &format!("/restapi/v1/customers/{id}/batch-quote"), &quote, "--db", db]));
    let quotes: i64 = {
        let conn = rusqlite::Connection::open(&path).unwrap();
        // the first request's quotes expired 10 days ago
        conn.execute("UPDATE quoted_shipments SET expires_at = strftime('%s', 'now') - 10 * 86400 WHERE rowid = (SELECT min(rowid) FROM quoted_shipments)", []).unwrap();
        conn.query_row("SELECT quote_count FROM quoted_shipments ORDER BY rowid LIMIT 1", [], |r| r.get(0)).unwrap()
    };
    assert!(quotes > 0);

    let purge = |days: &str| stdout(&consign(&["purge-quotes", "--older-than-days", days, "--db", db]));
    assert_eq!(purge("11"), "removed 0 quotes expired 11 days or more\n");
    assert_eq!(purge("10"), format!("removed {quotes} quotes expired 10 days or more\n"));
    assert_eq!(purge("0"), "removed 0 quotes expired 0 days or more\n", "the second request's quotes have not expired");

    let out = consign(&["purge-quotes", "--older-than-days", "soon", "--db", db]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("invalid value 'soon' for '--older-than-days <N>': expected a whole number of days")
    );
    let out = consign(&["purge-quotes", "--db", db]);
    assert_eq!(out.status.code(), Some(2), "the number of days is required");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn purge_events_removes_the_events_older_than_ninety_days_but_each_customers_newest() {
    let dir = common::fresh_dir("consign-cli-purge-events");
    let path = dir.join("shop.db");
    let db = path.to_str().unwrap();
    stdout(&consign(&["call", "POST", "/restapi/v1/customers", &common::ann_customer(), "--db", db]));
    let conn = rusqlite::Connection::open(&path).unwrap();
    // The opening recharge and two more events were 100 days ago, a fourth 89 days ago.
    let at = |days: i64| (chrono::Utc::now() - chrono::Duration::days(days)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    conn.execute("UPDATE events SET created_at = ?1", [at(100)]).unwrap();
    for (id, days) in [(2, 100), (3, 100), (4, 89)] {
        conn.execute(
            "INSERT INTO events (customer_id, id, type, type_bit, subject_id, created_at, data)
             SELECT customer_id, ?1, type, type_bit, subject_id, ?2, data FROM events WHERE id = 1",
            rusqlite::params![id, at(days)],
        )
        .unwrap();
    }
    let purge = || stdout(&consign(&["purge-events", "--db", db]));
    assert_eq!(purge(), "removed 3 events older than 90 days\n");
    assert_eq!(purge(), "removed 0 events older than 90 days\n");
    let kept: Vec<i64> = conn.prepare("SELECT id FROM events").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert_eq!(kept, [4]);
    // Once 91 days old, the newest stays all the same: the next event is numbered from it.
    conn.execute("UPDATE events SET created_at = ?1", [at(91)]).unwrap();
    assert_eq!(purge(), "removed 0 events older than 90 days\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
