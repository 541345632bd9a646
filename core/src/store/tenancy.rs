//! The lint that keeps the schema ready to be distributed by customer (Citus,
//! docs/ARCHITECTURE.md "Storage"): every table holding a customer's data has
//! `customer_id` in its primary key, in each of its unique keys and indexes, and in each
//! foreign key to another such table; what is unique or looked up across customers is a
//! lookup table, listed in [`GLOBAL`] with the reason. It reads the live SQLite schema
//! (`PRAGMA table_info`, `index_list`, `foreign_key_list`); the PostgreSQL schema has the
//! same keys, which `store::pg::schema::tests::the_schema_is_sqlites` checks.

use rusqlite::Connection;

/// What a table that is not distributed by customer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Global {
    /// Copied whole to every node (`create_reference_table`): the same for every
    /// customer, or needed before any customer is known; tables distributed by customer
    /// may reference it.
    Reference,
    /// A value unique or looked up across customers, mapped to its customer and written
    /// in the same transaction as the customer's row: a reference table, or distributed
    /// by its own first column. No foreign keys in or out, which neither form allows
    /// towards tables distributed by customer.
    Lookup,
    /// Only on SQLite, with no PostgreSQL (so no Citus) counterpart.
    SqliteOnly,
}

/// The tables not distributed by customer, and why. Every other table is a tenant table
/// and must pass the lint.
const GLOBAL: &[(&str, Global, &str)] = &[
    ("id_sequences", Global::Reference, "counters of ids that are unique across customers (book numbers, customer ids)"),
    ("catalog", Global::Reference, "carriers, services, package types and profiles, the same for every customer"),
    ("rate_carrier", Global::Reference, "the rate book, the same for every customer"),
    ("rate_exchange", Global::Reference, "the rate book, the same for every customer"),
    ("rate_zone", Global::Reference, "the rate book, the same for every customer"),
    ("rate_price", Global::Reference, "the rate book, the same for every customer"),
    ("rate_surcharge", Global::Reference, "the rate book, the same for every customer"),
    ("rate_transit", Global::Reference, "the rate book, the same for every customer"),
    ("rate_calendar", Global::Reference, "the rate book, the same for every customer"),
    (
        "api_keys",
        Global::Reference,
        "the lookup of API keys: a request is authenticated by its key's id before any customer is known, and a partner \
         key acts for several customers (api_key_customers, distributed by customer, references it)",
    ),
    ("customer_emails", Global::Lookup, "an e-mail is unique across customers; registration and login find the customer by it"),
    ("tracking_numbers", Global::Lookup, "the carrier feed knows a piece's tracking number only"),
    (
        "return_tracking_numbers",
        Global::Lookup,
        "a return label's tracking number is unique across customers and scanned by the carrier feed",
    ),
    (
        "login_failures",
        Global::Lookup,
        "the login throttle counts failures per e-mail or API key before any customer is known, unknown e-mails too",
    ),
    ("shipment_search", Global::SqliteOnly, "FTS5 search (with its shadow tables); PostgreSQL searches shipments.search_body"),
    ("shipment_grams", Global::SqliteOnly, "FTS5 search (with its shadow tables); PostgreSQL searches shipments.search_body"),
];

/// What a table is: its entry in [`GLOBAL`] (an FTS5 shadow table counts as its
/// virtual table's), or `None` for a tenant table.
fn global(table: &str) -> Option<Global> {
    GLOBAL
        .iter()
        .find(|(name, kind, _)| table == *name || (*kind == Global::SqliteOnly && table.starts_with(&format!("{name}_"))))
        .map(|g| g.1)
}

/// The column a tenant table is distributed by: `customer_id`, but `customers` is keyed
/// by its own id, and `request_answers` by its `owner`, which is the customer's id (or
/// `key:<partner key id>` for the answers of create and connect customer, given before
/// there is a customer; those rows land on the shard of that value).
fn tenant_column(table: &str) -> &'static str {
    match table {
        "customers" => "id",
        "request_answers" => "owner",
        _ => "customer_id",
    }
}

/// Indexes of tenant tables without the customer's column, and why: each serves a sweep
/// over every customer, which Citus runs on every shard, never a lookup of one row.
const SWEEP_INDEXES: &[(&str, &str)] = &[
    ("request_answers_by_time", "the purge of the answers older than 24 hours, of every customer"),
    ("webhook_deliveries_by_time", "the purge of the webhook delivery attempts older than 90 days, of every customer"),
];

fn strings(conn: &Connection, sql: &str, arg: &str) -> Vec<String> {
    conn.prepare(sql).unwrap().query_map([arg], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
}

/// What breaks the rules in `conn`'s schema, one line each, sorted.
fn violations(conn: &Connection) -> Vec<String> {
    let mut found = Vec::new();
    for table in strings(conn, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE ?1 ORDER BY name", "sqlite\\_%") {
        let kind = global(&table);
        let mut keys: Vec<(i64, String, String, String)> = conn
            .prepare("SELECT id, \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq")
            .unwrap()
            .query_map([&table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        keys.dedup_by(|b, a| {
            let same = a.0 == b.0;
            if same {
                a.1 = format!("{}, {}", a.1, b.1);
                a.3 = format!("{}, {}", a.3, b.3);
            }
            same
        });
        match kind {
            Some(Global::SqliteOnly) => continue,
            Some(kind) => {
                for (_, from, parent, _) in &keys {
                    if kind == Global::Lookup || global(parent).is_none() {
                        found.push(format!("{table}: a {kind:?} table with a foreign key ({from}) to {parent}"));
                    }
                }
                continue;
            }
            None => {}
        }
        let column = tenant_column(&table);
        let columns = strings(conn, "SELECT name FROM pragma_table_info(?1)", &table);
        if !columns.iter().any(|c| c == column) {
            found.push(format!("{table}: no column {column}, and not listed as a global table"));
            continue;
        }
        let key = strings(conn, "SELECT name FROM pragma_table_info(?1) WHERE pk > 0", &table);
        if !key.iter().any(|c| c == column) {
            found.push(format!("{table}: the primary key ({}) lacks {column}", key.join(", ")));
        }
        let indexes: Vec<(String, bool, String)> = conn
            .prepare("SELECT name, \"unique\", origin FROM pragma_index_list(?1) ORDER BY name")
            .unwrap()
            .query_map([&table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (index, unique, origin) in indexes.into_iter().filter(|i| i.2 != "pk") {
            let on = strings(conn, "SELECT name FROM pragma_index_info(?1) ORDER BY seqno", &index);
            if !on.iter().any(|c| c == column) && !SWEEP_INDEXES.iter().any(|(name, _)| *name == index) {
                let what = if unique { "the unique key" } else { "the index" };
                let name = if origin == "c" { format!(" {index}") } else { String::new() };
                found.push(format!("{table}: {what}{name} ({}) lacks {column}", on.join(", ")));
            }
        }
        for (_, from, parent, to) in keys {
            match global(&parent) {
                Some(Global::Reference) => {}
                Some(_) => found.push(format!("{table}: the foreign key ({from}) references {parent}, which is not a reference table")),
                None => {
                    let pairs: Vec<(&str, &str)> = from.split(", ").zip(to.split(", ")).collect();
                    if !pairs.contains(&(column, tenant_column(&parent))) {
                        found.push(format!("{table}: the foreign key ({from}) to {parent} ({to}) lacks {column}"));
                    }
                }
            }
        }
    }
    found.sort();
    found
}

/// Rows of a database at schema 11 whose global values the upgrades copy to the lookup
/// tables, in SQL both dialects run (an API key's digest apart).
pub(crate) const SCHEMA_11_ROWS: &str = "
    INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
        minimum_balance_cents, recharge_amount_cents, created_at)
    VALUES ('C1', 'Ann@Example.org', 'ann@example.org', 'h1', 'Default', '{}', '{}', 0, 0, 't1'),
        ('C2', 'bo@example.org', 'bo@example.org', 'h2', 'Default', '{}', '{}', 0, 0, 't2');
    INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family, tracking_number,
        shipment_date, zone, currency, total_amount, charged_cents, label_format, view, created_at)
    VALUES ('1000000001', 'C1', 'postal', 's', 'p', 'ground', 'T1', '2026-11-21', '8', 'USD', '1', 100, 'PDF', '{}', ''),
        ('1000000002', 'C2', 'postal', 's', 'p', 'ground', 'T3', '2026-11-21', '8', 'USD', '1', 100, 'PDF', '{}', '');
    INSERT INTO shipment_pieces (customer_id, book_number, piece_index, tracking_number, shipping_cost)
    VALUES ('C1', '1000000001', 0, 'T1', '1'), ('C1', '1000000001', 1, 'T2', '1'), ('C2', '1000000002', 0, 'T3', '1');
    INSERT INTO return_labels (customer_id, book_number, tracking_number, return_to, zone, total_amount, cost_cents)
    VALUES ('C2', '1000000002', 'R1', '{}', '8', '1', 100);
    INSERT INTO search_customers (customer_id, key) VALUES ('C1', 1), ('C2', 2);
";

/// What the lookup tables hold after the upgrade of [`SCHEMA_11_ROWS`], one row a line.
pub(crate) const LOOKUP_ROWS: &[&str] = &[
    "customer_emails ann@example.org C1",
    "customer_emails bo@example.org C2",
    "return_tracking_numbers R1 C2 1000000002",
    "tracking_numbers T1 C1 1000000001 0",
    "tracking_numbers T2 C1 1000000001 1",
    "tracking_numbers T3 C2 1000000002 0",
];

/// The query that lists the lookup tables as [`LOOKUP_ROWS`] does.
pub(crate) const LOOKUPS: &str = "
    SELECT 'customer_emails ' || email_key || ' ' || customer_id FROM customer_emails
    UNION ALL SELECT 'return_tracking_numbers ' || tracking_number || ' ' || customer_id || ' ' || book_number
        FROM return_tracking_numbers
    UNION ALL SELECT 'tracking_numbers ' || tracking_number || ' ' || customer_id || ' ' || book_number || ' ' || piece_index
        FROM tracking_numbers
    ORDER BY 1";

/// What the upgrade must keep of [`SCHEMA_11_ROWS`] and the API key beside them.
pub(crate) const KEPT: &str = "
    SELECT id || ' ' || email || ' ' || email_key || ' ' || password_hash FROM customers
    UNION ALL SELECT 'return ' || tracking_number || ' ' || customer_id FROM return_labels
    UNION ALL SELECT 'search ' || customer_id || ' ' || key FROM search_customers
    UNION ALL SELECT 'key ' || id || ' ' || customer_id FROM api_keys
    UNION ALL SELECT 'link ' || key_id || ' ' || customer_id FROM api_key_customers
    ORDER BY 1";

/// The rows [`KEPT`] lists.
pub(crate) const KEPT_ROWS: &[&str] = &[
    "C1 Ann@Example.org ann@example.org h1",
    "C2 bo@example.org bo@example.org h2",
    "key K1 C1",
    "link K1 C2",
    "return R1 C2",
    "search C1 1",
    "search C2 2",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn current() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::store::migrate(&mut conn).unwrap();
        conn
    }

    /// Every table of the current schema is a tenant table that passes the lint or is
    /// listed as global, and every listed table exists.
    #[test]
    fn the_schema_can_be_distributed_by_customer() {
        let conn = current();
        assert_eq!(violations(&conn), Vec::<String>::new());
        let tables = strings(&conn, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE ?1", "sqlite\\_%");
        for (name, _, why) in GLOBAL {
            assert!(tables.iter().any(|t| t == name), "{name} is listed as global ({why}) but is not in the schema");
        }
    }

    /// Schema 11, before the lookup tables, broke the rules with its unique keys and
    /// index across customers and a reference table's foreign key to customers.
    #[test]
    fn the_lint_finds_the_global_keys_of_schema_11() {
        let conn = Connection::open_in_memory().unwrap();
        crate::store::create_at(&conn, 11).unwrap();
        assert_eq!(
            violations(&conn),
            [
                "api_keys: a Reference table with a foreign key (customer_id) to customers",
                "customers: the unique key (email_key) lacks id",
                "return_labels: the unique key (tracking_number) lacks customer_id",
                "search_customers: the unique key (key) lacks customer_id",
                "shipment_pieces: the index shipment_pieces_by_tracking (tracking_number) lacks customer_id",
            ]
        );
    }

    /// An upgrade from schema 11 copies the e-mails and tracking numbers to the lookup
    /// tables and keeps every row of the tables it rebuilds, foreign keys included.
    #[test]
    fn the_upgrade_fills_the_lookup_tables_and_keeps_the_rows() {
        let dir = crate::store::testing::TempDir::new("tenancy");
        let path = dir.0.join("old.db");
        {
            let conn = Connection::open(&path).unwrap();
            crate::store::create_at(&conn, 11).unwrap();
            conn.execute_batch(SCHEMA_11_ROWS).unwrap();
            conn.execute_batch(
                "INSERT INTO api_keys (id, digest, customer_id, name, created_at) VALUES ('K1', x'00', 'C1', 'k', '');
                 INSERT INTO api_key_customers (key_id, customer_id) VALUES ('K1', 'C2');",
            )
            .unwrap();
        }
        let mut conn = Connection::open(&path).unwrap();
        crate::store::configure(&conn).unwrap();
        crate::store::migrate(&mut conn).unwrap();
        let rows = |sql: &str| -> Vec<String> {
            conn.prepare(sql).unwrap().query_map([], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
        };
        assert_eq!(rows(LOOKUPS), LOOKUP_ROWS);
        assert_eq!(rows(KEPT), KEPT_ROWS);
        assert_eq!(rows("SELECT count(*) || '' FROM pragma_foreign_key_check"), ["0"]);
        assert_eq!(violations(&conn), Vec::<String>::new());
    }

    /// A tenant table's primary key and foreign keys need customer_id, its foreign keys
    /// may reference reference tables but not lookup tables, lookup tables have no
    /// foreign keys, and a table without customer_id must be listed.
    #[test]
    fn the_lint_finds_keys_and_tables_without_customer_id() {
        let conn = current();
        conn.execute_batch(
            "CREATE TABLE notes (
                 customer_id TEXT NOT NULL,
                 id TEXT PRIMARY KEY,
                 book_number TEXT NOT NULL,
                 email_key TEXT REFERENCES customer_emails(email_key),
                 FOREIGN KEY (id, book_number) REFERENCES shipments(customer_id, book_number)
             );
             CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT);
             CREATE TABLE rates_seen (customer_id TEXT NOT NULL, carrier TEXT NOT NULL REFERENCES rate_carrier(carrier),
                 PRIMARY KEY (customer_id, carrier), FOREIGN KEY (customer_id) REFERENCES customers(id));
             DROP TABLE customer_emails;
             CREATE TABLE customer_emails (email_key TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id));",
        )
        .unwrap();
        assert_eq!(
            violations(&conn),
            [
                "customer_emails: a Lookup table with a foreign key (customer_id) to customers",
                "notes: the foreign key (email_key) references customer_emails, which is not a reference table",
                "notes: the foreign key (id, book_number) to shipments (customer_id, book_number) lacks customer_id",
                "notes: the primary key (id) lacks customer_id",
                "settings: no column customer_id, and not listed as a global table",
            ]
        );
    }
}
