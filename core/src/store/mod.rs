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
];

fn seed_rates(tx: &Transaction) -> Result<()> {
    crate::rating::seed_defaults(tx).map_err(|e| Error::internal(format!("could not write the default rate book: {e}")))
}

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Sets the connection up: WAL for files, foreign keys on, a busy timeout.
pub(crate) fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
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
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(Error::new(
            ErrorCategory::Internal,
            format!("The database was written by a newer consign (schema {version}); this build reads schemas up to {SCHEMA_VERSION}. Upgrade consign to open it."),
        ));
    }
    for (i, m) in MIGRATIONS.iter().enumerate().skip(usize::try_from(version).unwrap_or(0)) {
        tx.execute_batch(m.sql).map_err(|e| Error::internal(format!("migration {} failed: {e}", i + 1)))?;
        if let Some(seed) = m.seed {
            seed(&tx)?;
        }
    }
    if version < SCHEMA_VERSION {
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    tx.commit()?;
    Ok(())
}

/// The next number of the sequence `name` (1, 2, ...), for readable unique ids.
pub(crate) fn next_id(tx: &Transaction, name: &str) -> Result<i64> {
    let last: Option<i64> =
        tx.query_row("UPDATE id_sequences SET last = last + 1 WHERE name = ?1 RETURNING last", [name], |r| r.get(0)).optional()?;
    match last {
        Some(n) => Ok(n),
        None => {
            tx.execute("INSERT INTO id_sequences (name, last) VALUES (?1, 1)", [name])?;
            Ok(1)
        }
    }
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
    fn sequences_count_from_one() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let tx = conn.transaction().unwrap();
        assert_eq!(next_id(&tx, "x").unwrap(), 1);
        assert_eq!(next_id(&tx, "x").unwrap(), 2);
        assert_eq!(next_id(&tx, "y").unwrap(), 1);
    }
}
