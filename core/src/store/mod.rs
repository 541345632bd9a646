//! The SQLite store: connection setup and schema migrations.
//!
//! Schema versions live under `PRAGMA user_version`. Each migration is a numbered `.sql`
//! file in `core/migrations/`; all pending ones are applied in one IMMEDIATE transaction.
//! A database written by a newer schema is refused rather than misread.

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};

use crate::error::{Error, ErrorCategory, Result};

/// One schema step: SQL, and data to write once the tables exist.
struct Migration {
    sql: &'static str,
    seed: Option<fn(&Transaction) -> Result<()>>,
}

/// The migrations in order; migration `i` brings the schema to version `i + 1`.
const MIGRATIONS: &[Migration] = &[
    Migration { sql: include_str!("../../migrations/0001_foundation.sql"), seed: None },
    // The rate tables belong to the rating module; the default rate book is written once.
    Migration { sql: crate::rating::SCHEMA_SQL, seed: Some(seed_rates) },
    Migration { sql: include_str!("../../migrations/0003_quotes.sql"), seed: None },
    Migration { sql: include_str!("../../migrations/0004_shipments.sql"), seed: None },
    // Search, orders, pickups, manifests; shipments booked before are indexed once.
    Migration { sql: include_str!("../../migrations/0005_deliver.sql"), seed: Some(crate::search::reindex_all) },
    // The search indexes rebuilt without positions and with every long window.
    Migration { sql: include_str!("../../migrations/0006_search_lean.sql"), seed: Some(crate::search::reindex_all) },
    // Quoted shipments keyed by their first quote id: one B-tree instead of two.
    Migration { sql: include_str!("../../migrations/0007_quotes_by_id.sql"), seed: None },
    // Tracking events' duplicate check keyed by shipment first: one index, appended to.
    Migration { sql: include_str!("../../migrations/0008_tracking_by_shipment.sql"), seed: None },
    // Quoted shipments stored packed; the rows before stay JSON and are read as such.
    Migration { sql: include_str!("../../migrations/0009_packed_quotes.sql"), seed: None },
    // Booked shipments wait to be indexed for search in groups of 64.
    Migration { sql: include_str!("../../migrations/0010_search_pending.sql"), seed: None },
    // A booking writes to four fewer B-trees: search entries on the shipment, pieces,
    // tracking events and ledger entries without rowids.
    Migration { sql: include_str!("../../migrations/0011_fewer_btrees.sql"), seed: None },
    // A booking's first tracking event is read from its shipment instead of stored.
    Migration { sql: include_str!("../../migrations/0012_booked_event_on_shipment.sql"), seed: None },
    // A quoted shipment is stored packed from its parsed form instead of as its JSON.
    Migration { sql: include_str!("../../migrations/0013_packed_shipments.sql"), seed: None },
];

fn seed_rates(tx: &Transaction) -> Result<()> {
    crate::rating::seed_defaults(tx).map_err(|e| Error::internal(format!("could not write the default rate book: {e}")))
}

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

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

/// Brings the schema up to [`SCHEMA_VERSION`].
///
/// # Errors
/// `INTERNAL` when the file was written by a newer schema, or a migration fails.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    migrate_to(conn, SCHEMA_VERSION)
}

/// Brings the schema up to `target` (at most [`SCHEMA_VERSION`]). Upgrade tests stop
/// short of the newest schema to build a database as an older consign wrote it.
pub(crate) fn migrate_to(conn: &mut Connection, target: i64) -> Result<()> {
    let target = target.min(SCHEMA_VERSION);
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(Error::new(
            ErrorCategory::Internal,
            format!("The database was written by a newer consign (schema {version}); this build reads schemas up to {SCHEMA_VERSION}. Upgrade consign to open it."),
        ));
    }
    let (from, to) = (usize::try_from(version).unwrap_or(0), usize::try_from(target).unwrap_or(0));
    for (i, m) in MIGRATIONS.iter().enumerate().take(to).skip(from) {
        tx.execute_batch(m.sql).map_err(|e| Error::internal(format!("migration {} failed: {e}", i + 1)))?;
        if let Some(seed) = m.seed {
            seed(&tx)?;
        }
    }
    if version < target {
        tx.pragma_update(None, "user_version", target)?;
    }
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
    fn migrations_apply_once_and_set_the_version() {
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
    fn a_schema_1_database_with_rows_upgrades_and_keeps_them() {
        let dir = std::env::temp_dir().join(format!("consign-upgrade-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v1.db");
        let _ = std::fs::remove_file(&path);
        {
            // A database as schema 1 wrote it, frozen here: a customer with a ledger entry.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(MIGRATIONS[0].sql).unwrap();
            conn.execute_batch(
                "INSERT INTO id_sequences (name, last) VALUES ('customer', 1);
                 INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
                     minimum_balance_cents, recharge_amount_cents, created_at)
                 VALUES ('C0000001', 'ann@example.com', 'ann@example.com', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA',
                     'Default', '{}', '{}', 5000, 20000, '2026-01-01T00:00:00Z');
                 INSERT INTO ledger_entries (customer_id, kind, amount_cents, balance_after_cents, reference, created_at)
                 VALUES ('C0000001', 'recharge', 20000, 20000, 'account opened', '2026-01-01T00:00:00Z');
                 PRAGMA user_version = 1;",
            )
            .unwrap();
        }
        let shipping = crate::Shipping::open(&path).unwrap();
        let prepay = shipping.prepay("C0000001").unwrap();
        assert_eq!(prepay.balance, "200.00");
        assert_eq!(prepay.minimum_balance, "50.00");
        assert!(!shipping.list_services("C0000001").unwrap().services.is_empty(), "the catalog was seeded on upgrade");
        drop(shipping);
        let conn = Connection::open(&path).unwrap();
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let next: i64 = conn.query_row("SELECT last FROM id_sequences WHERE name = 'customer'", [], |r| r.get(0)).unwrap();
        assert_eq!(next, 1, "sequences carry over, so new ids do not collide");
        let ledger: i64 = conn.query_row("SELECT last FROM id_sequences WHERE name = 'ledger_entry'", [], |r| r.get(0)).unwrap();
        assert_eq!(ledger, 1, "the ledger's ids go on from the entries kept");
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
