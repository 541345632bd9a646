//! The SQLite store: connection setup, the schema and its upgrades.
//!
//! Schema versions live under `PRAGMA user_version`, in the manner of mozilla
//! application-services' `open_database`: a new database is created from the current
//! schema (`core/schema.sql`) in one IMMEDIATE transaction; an older one is upgraded by
//! the numbered files of `core/migrations/` after its version, also in one transaction;
//! a database written by a newer schema is refused rather than misread.
//!
//! An upgrade is SQL only, frozen with its file: it never calls into the code of the
//! day, so that changing search or rating cannot change what an old upgrade does. The
//! default data of a new database (the catalog, the rate book) is not part of the
//! schema; it is written on first open ([`seed_rate_book`]).

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};

use crate::error::{Error, ErrorCategory, Result};

/// The current schema in full, what a new database is created with.
const SCHEMA: &str = include_str!("../../schema.sql");

/// Schema 1, frozen: where the upgrades start. Only the tests read it, to build the
/// schema an old database has.
#[cfg(test)]
const BASELINE: &str = include_str!("../../migrations/0001_baseline.sql");

/// The upgrades in order: `UPGRADES[i]` brings a database of version `i + 1` to
/// `i + 2`, and is the file `core/migrations/{i + 2:04}_*.sql`. Add one with every change
/// to `core/schema.sql`; never edit one that has shipped.
const UPGRADES: &[&str] = &[];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 1 + UPGRADES.len() as i64;

/// Prepared statements kept per connection: every statement the operations run.
const STATEMENT_CACHE: usize = 256;

/// Sets the connection up: WAL for files, foreign keys on, a busy timeout.
pub(crate) fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    // rusqlite keeps 16 prepared statements by default; a booking alone runs more than
    // that, and re-preparing the evicted ones cost a tenth of a booking.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // Plans that do not depend on bound values. Without this, SQLite marks a statement
    // whose plan might change with a value (`customer_id = ?` as a filter, say) to be
    // re-prepared when its bindings are cleared, which rusqlite's cache does on every
    // return: a cached statement was compiled again on each use.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // In-memory databases answer "memory" here; that is fine.
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    // With WAL, NORMAL keeps the database consistent on power loss and only risks the
    // last transactions; that is the usual trade for an embedded store.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// Creates the schema of a new database, or brings an older one up to
/// [`SCHEMA_VERSION`], in one IMMEDIATE transaction.
///
/// # Errors
/// `INTERNAL` when the file was written by a newer schema, holds tables without a
/// schema version (not a consign database), or an upgrade fails.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(Error::new(
            ErrorCategory::Internal,
            format!("The database was written by a newer consign (schema {version}); this build reads schemas up to {SCHEMA_VERSION}. Upgrade consign to open it."),
        ));
    }
    if version == 0 {
        let objects: i64 = tx.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
        if objects > 0 {
            return Err(Error::internal("the database holds tables but no schema version: it was not written by consign"));
        }
        tx.execute_batch(SCHEMA).map_err(|e| Error::internal(format!("could not create the schema: {e}")))?;
    } else {
        upgrade(&tx, version, SCHEMA_VERSION)?;
    }
    if version < SCHEMA_VERSION {
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    tx.commit()?;
    Ok(())
}

/// Applies the upgrades that bring schema `from` (at least 1) to `to`.
fn upgrade(tx: &Transaction, from: i64, to: i64) -> Result<()> {
    for version in from + 1..=to {
        let sql = usize::try_from(version - 2)
            .ok()
            .and_then(|i| UPGRADES.get(i))
            .ok_or_else(|| Error::internal(format!("this build has no upgrade to schema {version}")))?;
        tx.execute_batch(sql).map_err(|e| Error::internal(format!("the upgrade to schema {version} failed: {e}")))?;
    }
    Ok(())
}

/// Writes the default rate book into a new database, on its first open: default data,
/// not schema, so that no upgrade depends on today's rating code.
///
/// # Errors
/// `INTERNAL` when the rows cannot be written.
pub(crate) fn seed_rate_book(tx: &Transaction) -> Result<()> {
    crate::rating::seed_defaults(tx).map_err(|e| Error::internal(format!("could not write the default rate book: {e}")))
}

/// A database as consign wrote it at schema `version`: the frozen baseline and the
/// upgrades after it, as an old database has them. Upgrade tests start from here.
#[cfg(test)]
pub(crate) fn create_at(conn: &Connection, version: i64) -> Result<()> {
    conn.execute_batch(BASELINE)?;
    let tx = conn.unchecked_transaction()?;
    upgrade(&tx, 1, version)?;
    tx.pragma_update(None, "user_version", version)?;
    tx.commit()?;
    Ok(())
}

/// The main database as an SQLite file image, marked as a rollback-journal database so
/// that it opens anywhere (a WAL-mode image cannot be deserialized into memory).
pub(crate) fn serialize(conn: &mut Connection) -> Result<Vec<u8>> {
    let mut bytes = conn.serialize(rusqlite::MAIN_DB)?.to_vec();
    unwal(&mut bytes);
    Ok(bytes)
}

/// Header bytes 18 and 19 are the file format versions: 2 means WAL, 1 legacy journal.
fn unwal(bytes: &mut [u8]) {
    if let Some(versions) = bytes.get_mut(18..20) {
        versions.iter_mut().filter(|v| **v == 2).for_each(|v| *v = 1);
    }
}

/// Replaces the content of `conn`'s main database with the file image `bytes`.
/// An in-memory database takes the image as it is (SQLite refuses to back up into
/// memory across page sizes); a file receives it through the backup API.
pub(crate) fn restore(conn: &mut Connection, bytes: &[u8], in_memory: bool) -> Result<()> {
    if !bytes.starts_with(b"SQLite format 3\0") {
        return Err(Error::invalid("bytes", format!("expected an SQLite database image, found {} bytes of something else", bytes.len())));
    }
    let mut image = bytes.to_vec();
    unwal(&mut image);
    let load = |conn: &mut Connection| conn.deserialize_read_exact(rusqlite::MAIN_DB, image.as_slice(), image.len(), false);
    if in_memory {
        load(conn)?;
    } else {
        let mut source = Connection::open_in_memory()?;
        load(&mut source)?;
        rusqlite::backup::Backup::new(&source, conn)?.run_to_completion(256, std::time::Duration::ZERO, None)?;
    }
    Ok(())
}

/// The next number of the sequence `name` (1, 2, ...), for readable unique ids.
pub(crate) fn next_id(tx: &Transaction, name: &str) -> Result<i64> {
    next_ids(tx, name, 1)
}

/// Takes the next `count` (at least 1) numbers of the sequence `name` at once and
/// returns the first; the others follow it.
pub(crate) fn next_ids(tx: &Transaction, name: &str, count: usize) -> Result<i64> {
    let count = i64::try_from(count.max(1)).map_err(|_| Error::internal("too many ids asked for at once"))?;
    // A read and a plain update: `UPDATE ... RETURNING` builds a temporary table and a
    // statement journal for its one row, and cost three times as much. The transaction
    // is the caller's, so nothing can come between the two.
    let last = last_id(tx, name)?;
    let next = last.checked_add(count).ok_or_else(|| Error::internal(format!("the sequence {name} is exhausted")))?;
    set_last_id(tx, name, next)?;
    Ok(last + 1)
}

/// Records `last` as the last number taken from the sequence `name` (creating it).
pub(crate) fn set_last_id(tx: &Transaction, name: &str, last: i64) -> Result<()> {
    let updated = tx.prepare_cached("UPDATE id_sequences SET last = ?2 WHERE name = ?1")?.execute(rusqlite::params![name, last])?;
    if updated == 0 {
        tx.prepare_cached("INSERT INTO id_sequences (name, last) VALUES (?1, ?2)")?.execute(rusqlite::params![name, last])?;
    }
    Ok(())
}

/// The last number taken from the sequence `name` (0 before the first).
pub(crate) fn last_id(conn: &Connection, name: &str) -> Result<i64> {
    let last = conn.prepare_cached("SELECT last FROM id_sequences WHERE name = ?1")?.query_row([name], |r| r.get(0)).optional()?;
    Ok(last.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_is_created_once_at_the_current_version() {
        let mut conn = Connection::open_in_memory().unwrap();
        configure(&conn).unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, SCHEMA_VERSION);
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
        let e = migrate(&mut conn).unwrap_err();
        assert!(e.message().contains("newer consign"), "{}", e.message());
    }

    #[test]
    fn tables_without_a_schema_version_are_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE notes (text TEXT)").unwrap();
        let e = migrate(&mut conn).unwrap_err();
        assert!(e.message().contains("not written by consign"), "{}", e.message());
    }

    /// Each schema object as (type, name, table, SQL with comments and layout removed).
    fn schema_of(conn: &Connection) -> Vec<(String, String, String, String)> {
        let normalised = |sql: Option<String>| {
            let code: Vec<&str> = sql.as_deref().unwrap_or("").lines().map(|l| l.split("--").next().unwrap_or("")).collect();
            // ALTER TABLE ... RENAME quotes the new name; the layout of the text is no part of the schema.
            let words = code.join(" ").replace('"', "").split_whitespace().collect::<Vec<_>>().join(" ");
            words.replace("( ", "(").replace(" )", ")").replace(" ,", ",")
        };
        let mut stmt = conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name").unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, normalised(r.get(3)?)))).unwrap();
        rows.collect::<rusqlite::Result<_>>().unwrap()
    }

    /// A database upgraded from the frozen baseline through every file of
    /// `core/migrations/` has exactly the schema a new database is created with.
    ///
    /// This is what keeps `core/schema.sql` and the upgrades in step. Add a column
    /// `nickname TEXT` at the end of `customers` in `core/schema.sql` alone, and this test
    /// fails with
    ///
    /// ```text
    /// core/schema.sql and the upgrades disagree: add a migration for every change to the schema
    /// only in a new database: [
    ///     ("table", "customers", "customers", "CREATE TABLE customers (id TEXT PRIMARY KEY, ..., created_at TEXT NOT NULL, nickname TEXT)"),
    /// ]
    /// only in an upgraded one: [
    ///     ("table", "customers", "customers", "CREATE TABLE customers (id TEXT PRIMARY KEY, ..., created_at TEXT NOT NULL)"),
    /// ]
    /// ```
    ///
    /// until `core/migrations/0002_customer_nickname.sql`, holding
    /// `ALTER TABLE customers ADD COLUMN nickname TEXT;`, is added to `UPGRADES`.
    #[test]
    fn upgrades_end_at_the_current_schema() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let fresh = schema_of(&conn);
        let conn = Connection::open_in_memory().unwrap();
        create_at(&conn, SCHEMA_VERSION).unwrap();
        let upgraded = schema_of(&conn);
        let only_fresh: Vec<_> = fresh.iter().filter(|o| !upgraded.contains(o)).collect();
        let only_upgraded: Vec<_> = upgraded.iter().filter(|o| !fresh.contains(o)).collect();
        assert!(
            only_fresh.is_empty() && only_upgraded.is_empty(),
            "core/schema.sql and the upgrades disagree: add a migration for every change to the schema\n\
             only in a new database: {only_fresh:#?}\nonly in an upgraded one: {only_upgraded:#?}"
        );
        assert!(fresh.len() > 40, "every table, index, trigger and FTS table is compared: {} objects", fresh.len());
    }

    #[test]
    fn a_baseline_database_with_rows_opens_and_keeps_them() {
        let dir = std::env::temp_dir().join(format!("consign-upgrade-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v1.db");
        let _ = std::fs::remove_file(&path);
        {
            // A database as schema 1 wrote it, frozen here: a customer with a ledger entry,
            // before its first open as a service (no catalog, no rate book yet).
            let conn = Connection::open(&path).unwrap();
            create_at(&conn, 1).unwrap();
            conn.execute_batch(
                "INSERT INTO id_sequences (name, last) VALUES ('customer', 1), ('ledger_entry', 1);
                 INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
                     minimum_balance_cents, recharge_amount_cents, created_at)
                 VALUES ('C0000001', 'ann@example.com', 'ann@example.com', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA',
                     'Default', '{}', '{}', 5000, 20000, '2026-01-01T00:00:00Z');
                 INSERT INTO ledger_entries (customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at)
                 VALUES ('C0000001', 1, 'recharge', 20000, 20000, 'account opened', '2026-01-01T00:00:00Z');",
            )
            .unwrap();
        }
        let shipping = crate::Shipping::open(&path).unwrap();
        let prepay = shipping.prepay("C0000001").unwrap();
        assert_eq!(prepay.balance, "200.00");
        assert_eq!(prepay.minimum_balance, "50.00");
        assert!(!shipping.list_services("C0000001").unwrap().services.is_empty(), "the catalog was seeded on first open");
        drop(shipping);
        let conn = Connection::open(&path).unwrap();
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let rates: i64 = conn.query_row("SELECT count(*) FROM rate_price", [], |r| r.get(0)).unwrap();
        assert!(rates > 0, "the default rate book was written on first open");
        let next: i64 = conn.query_row("SELECT last FROM id_sequences WHERE name = 'customer'", [], |r| r.get(0)).unwrap();
        assert_eq!(next, 1, "sequences carry over, so new ids do not collide");
        drop(conn);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_image_restores_into_memory_and_into_a_file() {
        // The source is a file in WAL mode, as the native library writes them.
        let dir = std::env::temp_dir().join(format!("consign-restore-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut conn = Connection::open(dir.join("source.db")).unwrap();
        configure(&conn).unwrap();
        migrate(&mut conn).unwrap();
        conn.execute("INSERT INTO id_sequences (name, last) VALUES ('x', 41)", []).unwrap();
        let image = serialize(&mut conn).unwrap();
        assert!(image.starts_with(b"SQLite format 3\0"));
        assert_eq!(&image[18..20], &[1, 1], "marked as a rollback-journal image");
        let last = |c: &Connection| c.query_row("SELECT last FROM id_sequences WHERE name = 'x'", [], |r| r.get::<_, i64>(0)).unwrap();

        let mut memory = Connection::open_in_memory().unwrap();
        restore(&mut memory, &image, true).unwrap();
        assert_eq!(last(&memory), 41);

        let mut file = Connection::open(dir.join("restored.db")).unwrap();
        restore(&mut file, &image, false).unwrap();
        assert_eq!(last(&file), 41);
        drop((file, conn));
        std::fs::remove_dir_all(&dir).unwrap();

        let e = restore(&mut memory, b"not a database", true).unwrap_err();
        assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    }

    #[test]
    fn sequences_count_from_one() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let tx = conn.transaction().unwrap();
        assert_eq!(next_id(&tx, "x").unwrap(), 1);
        assert_eq!(next_id(&tx, "x").unwrap(), 2);
        assert_eq!(next_id(&tx, "y").unwrap(), 1);
        assert_eq!(last_id(&tx, "z").unwrap(), 0);
        // a claim of several returns the first of them; the next claim follows the last
        assert_eq!(next_ids(&tx, "z", 3).unwrap(), 1);
        assert_eq!(last_id(&tx, "z").unwrap(), 3);
        assert_eq!(next_ids(&tx, "x", 4).unwrap(), 3);
        assert_eq!(next_id(&tx, "x").unwrap(), 7);
        assert_eq!(next_ids(&tx, "y", 0).unwrap(), 2, "a claim of none takes one");
    }
}
