//! The SQLite store: connection setup, the schema and its upgrades.
//!
//! Schema versions live under `PRAGMA user_version`, in the manner of mozilla
//! application-services' `open_database`: a new database is created from the current
//! schema (`core/schema.sql`) in one IMMEDIATE transaction; an older one is upgraded by
//! the numbered files of `core/migrations/` after its version, also in one transaction;
//! a database written by a newer schema is refused rather than misread.
//!
//! A consign file carries [`APPLICATION_ID`] in its header (from schema 2 on). A file
//! that is neither empty nor consign's is refused before anything is written to it, and
//! a database image ([`check_image`]) is checked whole in memory (integrity, version,
//! mark, and exactly the tables and indexes of its version) before it replaces anything.
//!
//! An upgrade is SQL only, frozen with its file: it never calls into the code of the
//! day, so that changing search or rating cannot change what an old upgrade does. The
//! default data of a new database (the catalog, the rate book) is not part of the
//! schema; the facade writes it on first open.

use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Error, ErrorCategory, Result};

mod connection;
pub(crate) mod event_log;
#[cfg(feature = "postgres")]
pub(crate) mod pg;
pub(crate) mod search;
pub(crate) mod sql;
#[cfg(test)]
pub(crate) mod tenancy;

pub(crate) use connection::Database;
pub(crate) use event_log::Stored;
pub(crate) use sql::{args, Read, Row, Tx};

/// The current schema in full, what a new database is created with.
#[cfg(not(target_arch = "wasm32"))]
fn schema() -> &'static str {
    include_str!("../../schema.sql")
}

/// The current schema in full, what a new database is created with: embedded deflated
/// on wasm32 (`core/build.rs`), where every kilobyte of the package counts.
#[cfg(target_arch = "wasm32")]
fn schema() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    crate::embedded::inflated(&TEXT, include_bytes!(concat!(env!("OUT_DIR"), "/schema.sql.deflate")))
}

/// Declares the files of `core/migrations/` once, in order: [`MIGRATIONS`] names them
/// and, natively, [`history`] embeds their text.
macro_rules! migrations {
    ($($file:literal,)+) => {
        /// The files of `core/migrations/`, in order: `MIGRATIONS[i]` brings a database of
        /// version `i` to `i + 1`, the first (the frozen baseline, schema 1) an empty one.
        /// An image or a file of an older schema is compared with the schema these give at
        /// its version. Add one with every change to `core/schema.sql`; never edit one that
        /// has shipped.
        const MIGRATIONS: &[&str] = &[$($file,)+];

        /// The text of every file of [`MIGRATIONS`], in order.
        #[cfg(not(target_arch = "wasm32"))]
        fn history() -> &'static [&'static str] {
            &[$(include_str!(concat!("../../migrations/", $file)),)+]
        }
    };
}

migrations! {
    "0001_baseline.sql",
    "0002_application_id.sql",
    "0003_api_keys.sql",
    "0004_search_merging.sql",
    "0005_view_shape.sql",
    "0006_commercial_invoices.sql",
    "0007_return_labels.sql",
    "0008_transit.sql",
    "0009_logins.sql",
    "0010_quote_days.sql",
    "0011_ledger_debt.sql",
    "0012_request_answers.sql",
    "0013_citus_keys.sql",
    "0014_search_indexes.sql",
    "0015_inlined_grams.sql",
    "0016_events.sql",
    "0017_webhooks.sql",
}

/// The text of every file of [`MIGRATIONS`], in order: embedded deflated on wasm32
/// (`core/build.rs`, the files one after another, each ended by a NUL byte), inflated and
/// split once, when an older database is first upgraded or an image checked.
#[cfg(target_arch = "wasm32")]
fn history() -> &'static [&'static str] {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    static FILES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        crate::embedded::inflated(&TEXT, include_bytes!(concat!(env!("OUT_DIR"), "/migrations.deflate"))).split_terminator('\0').collect()
    })
}

/// The SQL of the migration that brings a database to schema `version` (1, the baseline,
/// creates schema 1 in an empty one).
fn migration(version: i64) -> Result<&'static str> {
    usize::try_from(version - 1)
        .ok()
        .and_then(|i| history().get(i).copied())
        .ok_or_else(|| Error::internal(format!("this build has no upgrade to schema {version}")))
}

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The `PRAGMA application_id` of a consign database (schema 2 on): the ASCII bytes
/// `CSGN` read as a big-endian integer, as the SQLite header stores it at offset 68.
/// `file(1)` and other tools tell consign files from other SQLite files by it, and
/// consign refuses SQLite files that carry another.
pub const APPLICATION_ID: i32 = i32::from_be_bytes(*b"CSGN");

/// Prepared statements kept per connection: every statement the operations run.
const STATEMENT_CACHE: usize = 256;

/// How file databases wait for their writes to reach the disk (`PRAGMA synchronous`).
/// In-memory databases have no disk and ignore it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Synchronous {
    /// The default: every commit waits until the write-ahead log is on the disk, so an
    /// acknowledged operation (a booking and its charge) survives a power loss. Costs an
    /// fsync per write operation.
    #[default]
    Full,
    /// Commits do not wait for the disk; the log is synced at checkpoints. The database
    /// is never corrupted, but a power loss (not a crash of the process) may lose the
    /// last acknowledged operations: a booking the caller was told about, with its
    /// charge, can be missing after the restart. For callers that can redo or reconcile
    /// recent work, and want the write throughput.
    Normal,
}

impl Synchronous {
    fn pragma(self) -> &'static str {
        match self {
            Self::Full => "FULL",
            Self::Normal => "NORMAL",
        }
    }
}

/// How a connection is set up: [`configure`] uses the defaults.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// How long a statement waits for another connection's lock before `BUSY`.
    pub(crate) busy_timeout: Duration,
    /// `PRAGMA synchronous` of a file database.
    pub(crate) synchronous: Synchronous,
    /// `PRAGMA wal_autocheckpoint`: the write-ahead log's size in pages past which a
    /// commit checkpoints it (0: never).
    pub(crate) auto_checkpoint: u32,
}

/// The default `wal_autocheckpoint`, in pages: four times SQLite's 1,000. A booking adds
/// about ten pages to the log (two of them the event feed's), so that SQLite's default
/// checkpointed every few dozen bookings, each time with two fsyncs and the same hot
/// pages (index roots, the sequences, the newest leaves) copied again. 4,000 pages
/// (16 MiB of log) still fit the first hash table of SQLite's log index (4,062 frames),
/// so that a read looks in one table.
pub(crate) const DEFAULT_AUTO_CHECKPOINT: u32 = 4000;

/// The wait for a lock held by another connection before an operation answers `BUSY`.
pub(crate) const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

impl Default for Settings {
    fn default() -> Self {
        Settings { busy_timeout: DEFAULT_BUSY_TIMEOUT, synchronous: Synchronous::default(), auto_checkpoint: DEFAULT_AUTO_CHECKPOINT }
    }
}

/// Sets the connection up with the default [`Settings`] (for the tests of other modules).
///
/// # Errors
/// As [`configure_with`].
#[cfg(test)]
pub(crate) fn configure(conn: &Connection) -> Result<()> {
    configure_with(conn, Settings::default())
}

/// Sets the connection up: defensive, schema untrusted, foreign keys on, a busy
/// timeout; then, once the file is known to be empty or consign's, WAL for files.
///
/// # Errors
/// `INTERNAL` when the file is another application's SQLite database (nothing is
/// written to it then), or on a storage failure.
pub(crate) fn configure_with(conn: &Connection, settings: Settings) -> Result<()> {
    distrust(conn)?;
    conn.busy_timeout(settings.busy_timeout)?;
    // rusqlite keeps 16 prepared statements by default; a booking alone runs more than
    // that, and re-preparing the evicted ones cost a tenth of a booking.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // Plans that do not depend on bound values. Without this, SQLite marks a statement
    // whose plan might change with a value (`customer_id = ?` as a filter, say) to be
    // re-prepared when its bindings are cleared, which rusqlite's cache does on every
    // return: a cached statement was compiled again on each use.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Switching to WAL rewrites the header: another application's file must be refused
    // before, and left as it was.
    refuse_foreign(conn)?;
    // In-memory databases answer "memory" here; that is fine.
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    conn.pragma_update(None, "synchronous", settings.synchronous.pragma())?;
    conn.pragma_update(None, "wal_autocheckpoint", settings.auto_checkpoint)?;
    Ok(())
}

/// Takes no orders from the database's own content: no writes to the schema through
/// `writable_schema` and no other ways of corrupting the file by SQL (defensive mode),
/// and no functions with side effects run from triggers, views or column defaults of the
/// schema (`trusted_schema=OFF`). The schema of a file or an image is data, possibly
/// someone else's.
fn distrust(conn: &Connection) -> Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    Ok(())
}

/// What a database is, from its header and its schema.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    /// No schema objects and no marks: a new database.
    Empty,
    /// consign's, at this schema version (newer ones included).
    Consign(i64),
    /// Anything else: what makes it so.
    Foreign(String),
}

/// Tells an empty database, consign's and another application's apart: consign's
/// carries [`APPLICATION_ID`], or (schema 1, before the mark) exactly the baseline schema.
fn identify(conn: &Connection) -> Result<Kind> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let objects: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
    Ok(match (id, version) {
        (APPLICATION_ID, v) if v >= 2 => Kind::Consign(v),
        (APPLICATION_ID, v) => {
            Kind::Foreign(format!("it carries consign's application id but schema version {v}, which consign never wrote with it"))
        }
        (0, 0) if objects == 0 => Kind::Empty,
        (0, 0) => Kind::Foreign("it holds tables but no schema version".into()),
        (0, 1) => match schema_differences(conn, 1)? {
            None => Kind::Consign(1),
            Some(difference) => Kind::Foreign(format!("its schema version is 1 but its schema is not consign's ({difference})")),
        },
        (0, v) => Kind::Foreign(format!("it has schema version {v} but not consign's application id")),
        (id, _) => Kind::Foreign(format!("it carries the application id {id:#010x}, not consign's {APPLICATION_ID:#010x}")),
    })
}

/// Refuses a file that is neither empty nor consign's.
fn refuse_foreign(conn: &Connection) -> Result<()> {
    match identify(conn)? {
        Kind::Empty | Kind::Consign(_) => Ok(()),
        Kind::Foreign(why) => Err(Error::internal(format!(
            "the database is not a consign database: {why}. consign opens only its own files or empty ones, and left it as it was."
        ))),
    }
}

/// Creates the schema of a new database, or brings an older one up to
/// [`SCHEMA_VERSION`], in one IMMEDIATE transaction.
///
/// Foreign keys are off meanwhile, as SQLite's procedure for changing a table's keys
/// asks (an upgrade copies a table that others reference, drops it and renames the
/// copy), and `foreign_key_check` finds no violation before the transaction commits.
///
/// # Errors
/// `INTERNAL` when the file was written by a newer schema, is not a consign database,
/// or an upgrade fails.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    let migrated = migrate_without_foreign_keys(conn);
    conn.pragma_update(None, "foreign_keys", "ON")?;
    migrated
}

/// [`migrate`], on a connection whose foreign keys are off.
fn migrate_without_foreign_keys(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version = match identify(&tx)? {
        Kind::Foreign(why) => return Err(Error::internal(format!("the database is not a consign database: {why}"))),
        Kind::Consign(version) if version > SCHEMA_VERSION => return Err(Error::new(
            ErrorCategory::Internal,
            format!("The database was written by a newer consign (schema {version}); this build reads schemas up to {SCHEMA_VERSION}. Upgrade consign to open it."),
        )),
        Kind::Consign(version) => {
            upgrade(&tx, version, SCHEMA_VERSION)?;
            version
        }
        Kind::Empty => {
            tx.execute_batch(schema()).map_err(|e| Error::internal(format!("could not create the schema: {e}")))?;
            0
        }
    };
    if version < SCHEMA_VERSION {
        let violations: i64 = tx.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0))?;
        if violations > 0 {
            return Err(Error::internal(format!(
                "the upgrade to schema {SCHEMA_VERSION} left {violations} rows whose foreign keys name no row; nothing was changed"
            )));
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    tx.commit()?;
    Ok(())
}

/// Applies the upgrades that bring schema `from` (at least 1) to `to`.
fn upgrade(tx: &Connection, from: i64, to: i64) -> Result<()> {
    for version in from + 1..=to {
        tx.execute_batch(migration(version)?).map_err(|e| Error::internal(format!("the upgrade to schema {version} failed: {e}")))?;
    }
    Ok(())
}

/// A database as consign wrote it at schema `version`: the frozen baseline and the
/// upgrades after it, as an old database has them. Images and files of older schemas are
/// compared with it, and upgrade tests start from here.
pub(crate) fn create_at(conn: &Connection, version: i64) -> Result<()> {
    conn.execute_batch(migration(1)?)?;
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

/// The database image `bytes` in an in-memory connection of its own, once it is known to
/// be a whole consign database that this build can open: intact (`integrity_check`),
/// carrying consign's mark at a schema version not newer than [`SCHEMA_VERSION`], and
/// holding exactly the tables, indexes and triggers of that version, nothing else (no
/// trigger or view of someone else's runs in consign's writes). Nothing is replaced
/// before this passes.
///
/// # Errors
/// `INVALID_REQUEST` on `bytes` saying what is wrong with the image.
pub(crate) fn check_image(bytes: &[u8]) -> Result<Connection> {
    let refuse = |why: String| Error::invalid("bytes", why);
    if !bytes.starts_with(b"SQLite format 3\0") {
        return Err(refuse(format!("expected an SQLite database image, found {} bytes of something else", bytes.len())));
    }
    let mut image = bytes.to_vec();
    unwal(&mut image);
    let mut conn = Connection::open_in_memory()?;
    distrust(&conn)?;
    conn.deserialize_read_exact(rusqlite::MAIN_DB, image.as_slice(), image.len(), false)
        .map_err(|e| refuse(format!("expected an SQLite database image, found one SQLite cannot read: {e}")))?;
    let damaged = |e: rusqlite::Error| refuse(format!("the database image is damaged: {e}"));
    let problems: Vec<String> =
        conn.prepare("PRAGMA integrity_check(10)").and_then(|mut s| s.query_map([], |r| r.get(0))?.collect()).map_err(damaged)?;
    if problems != ["ok"] {
        return Err(refuse(format!("the database image is damaged: {}", problems.join("; "))));
    }
    match identify(&conn).map_err(|e| refuse(format!("the database image is damaged: {}", e.message())))? {
        Kind::Empty => return Err(refuse("the database image holds no consign database (it is empty)".into())),
        Kind::Foreign(why) => return Err(refuse(format!("the database image is not a consign database: {why}"))),
        Kind::Consign(version) if version > SCHEMA_VERSION => {
            return Err(refuse(format!(
                "the database image was written by a newer consign (schema {version}); this build reads schemas up to {SCHEMA_VERSION}"
            )))
        }
        Kind::Consign(version) => {
            if let Some(difference) = schema_differences(&conn, version)? {
                return Err(refuse(format!("the database image does not have consign's schema {version}: {difference}")));
            }
        }
    }
    Ok(conn)
}

/// Replaces the content of `conn`'s main database, a file, with `image` (as
/// [`check_image`] gives it) through the backup API. The file must be empty or consign's.
///
/// # Errors
/// `INTERNAL` when the file is another application's database, or on a storage failure.
pub(crate) fn restore(conn: &mut Connection, image: &Connection) -> Result<()> {
    refuse_foreign(conn)?;
    rusqlite::backup::Backup::new(image, conn)?.run_to_completion(256, Duration::ZERO, None)?;
    Ok(())
}

/// One schema object: type, name, table, and its SQL without comments and layout.
type SchemaObject = (String, String, String, String);

/// How `conn`'s schema differs from the one consign gives a database at `version`
/// (the frozen baseline and the upgrades after it), or `None` when it is the same.
fn schema_differences(conn: &Connection, version: i64) -> Result<Option<String>> {
    let expected = Connection::open_in_memory()?;
    distrust(&expected)?;
    create_at(&expected, version)?;
    let expected = schema_objects(&expected)?;
    let found = schema_objects(conn)?;
    let extra: Vec<String> = found.iter().filter(|o| !expected.contains(o)).map(|(kind, name, ..)| format!("{kind} {name}")).collect();
    let missing: Vec<String> = expected.iter().filter(|o| !found.contains(o)).map(|(kind, name, ..)| format!("{kind} {name}")).collect();
    Ok(match (extra.is_empty(), missing.is_empty()) {
        (true, true) => None,
        (false, true) => Some(format!("it has {} that consign does not", extra.join(", "))),
        (true, false) => Some(format!("it lacks {}", missing.join(", "))),
        (false, false) => Some(format!("it has {} that consign does not, and lacks {}", extra.join(", "), missing.join(", "))),
    })
}

/// Every schema object of `conn`, sorted, its SQL in [`normalise`]d form.
fn schema_objects(conn: &Connection) -> Result<Vec<SchemaObject>> {
    let mut stmt = conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name")?;
    let rows =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, normalise(r.get::<_, Option<String>>(3)?.as_deref().unwrap_or("")))))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The SQL of a schema object without what does not change its meaning: comments, the
/// layout of white space, and the double quotes `ALTER TABLE ... RENAME` puts around a
/// new name. A new database's objects keep the comments of `core/schema.sql`, an upgraded
/// one's those of the migrations. Text inside single quotes is kept as it is, so that a
/// `--` in a string literal cannot hide what follows it.
fn normalise(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    let mut space = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                if space && !out.is_empty() && !out.ends_with('(') {
                    out.push(' ');
                }
                space = false;
                out.push(c);
                // to the closing quote; a doubled quote inside stays inside
                while let Some(c) = chars.next() {
                    out.push(c);
                    if c == '\'' && chars.peek() != Some(&'\'') {
                        break;
                    }
                    if c == '\'' {
                        out.extend(chars.next());
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                chars.by_ref().take_while(|&c| c != '\n').for_each(drop);
                space = true;
            }
            '"' => {}
            c if c.is_whitespace() => space = true,
            c => {
                if space && !out.is_empty() && !out.ends_with('(') && c != ')' && c != ',' {
                    out.push(' ');
                }
                space = false;
                out.push(c);
            }
        }
    }
    out
}

/// Whether the rows `tx` overwrites or deletes from now on are overwritten with zeros in
/// the file (SQLite's `secure_delete`), so that a value replaced by its sealed form is
/// not left readable in a free page. PostgreSQL keeps old row versions until VACUUM
/// reclaims them, whatever this says: nothing to set there.
///
/// # Errors
/// A storage failure.
pub(crate) fn secure_delete(tx: &Tx<'_>, on: bool) -> Result<()> {
    match tx.conn() {
        sql::Conn::Lite(_) => tx.batch(if on { "PRAGMA secure_delete = ON" } else { "PRAGMA secure_delete = OFF" }),
        #[cfg(feature = "postgres")]
        sql::Conn::Pg(_) => Ok(()),
    }
}

/// Serialises the writes that claim `value` as a unique `what` (an e-mail address
/// registering): on PostgreSQL an advisory lock on the pair until `tx` ends, so that the
/// second of two simultaneous claims sees the first's row once it commits, and is
/// refused as taken instead of failing on the unique key. On SQLite the write
/// transaction already holds the one write lock.
///
/// # Errors
/// A storage failure.
pub(crate) fn lock_claim(tx: &Tx<'_>, what: &str, value: &str) -> Result<()> {
    #[cfg(feature = "postgres")]
    if let sql::Conn::Pg(_) = tx.conn() {
        tx.row("SELECT pg_advisory_xact_lock(hashtextextended(?1 || ':' || ?2, 0))", args![what, value], |_| Ok(()))?;
    }
    let _ = (tx, what, value);
    Ok(())
}

/// Serialises the writes to one customer's data: on PostgreSQL, locks the customer's
/// row until `tx` ends (`SELECT ... FOR UPDATE`), so that a balance checked is the
/// balance charged and a quote booked once is booked once, while other customers' writes
/// run in parallel. On SQLite the write transaction already holds the database's one
/// write lock. Every write of a customer's prepaid money or quotes takes this first.
///
/// # Errors
/// A storage failure; `BUSY` on a deadlock PostgreSQL broke.
pub(crate) fn lock_customer(tx: &Tx<'_>, customer_id: &str) -> Result<()> {
    if locks_rows(tx) {
        tx.row("SELECT 1 FROM customers WHERE id = ?1 FOR UPDATE", args![customer_id], |_| Ok(()))?;
    }
    Ok(())
}

/// Whether the writes of `tx` serialise by locking rows (PostgreSQL: `SELECT ... FOR
/// UPDATE` locks them); SQLite's write transaction holds the database's one write lock.
pub(crate) fn locks_rows(tx: &Tx<'_>) -> bool {
    match tx.conn() {
        sql::Conn::Lite(_) => false,
        #[cfg(feature = "postgres")]
        sql::Conn::Pg(_) => true,
    }
}

/// The next number of the sequence `name` (1, 2, ...), for readable unique ids.
pub(crate) fn next_id(tx: &Tx<'_>, name: &str) -> Result<i64> {
    next_ids(tx, name, 1)
}

/// Takes the next `count` (at least 1) numbers of the sequence `name` at once and
/// returns the first; the others follow it.
///
/// On PostgreSQL the numbers are taken in a transaction of their own, so that concurrent
/// writes never wait for each other's commit to number what they write: numbers taken
/// by a write that then fails are not given again (gaps). [`next_revision`] numbers in
/// the write's own transaction.
pub(crate) fn next_ids(tx: &Tx<'_>, name: &str, count: usize) -> Result<i64> {
    let count = i64::try_from(count.max(1)).map_err(|_| Error::internal("too many ids asked for at once"))?;
    #[cfg(feature = "postgres")]
    if let sql::Conn::Pg(conn) = tx.conn() {
        return match conn.reserved(name, count) {
            Some(first) => Ok(first),
            None => conn.pool().next_ids(name, count),
        };
    }
    in_transaction(tx, name, count)
}

/// Takes ahead, for the rest of `tx`, the numbers of the sequences of `wanted` (a name
/// and a count each, no name twice) that `tx` is about to take with [`next_ids`]: on
/// PostgreSQL in one statement rather than one each. The numbers `tx` does not take are
/// not given again (gaps, as for a write that fails). On SQLite, where numbers are taken
/// in `tx` itself, nothing.
///
/// # Errors
/// A storage failure.
pub(crate) fn reserve_ids(tx: &Tx<'_>, wanted: &[(&str, usize)]) -> Result<()> {
    #[cfg(feature = "postgres")]
    if let sql::Conn::Pg(conn) = tx.conn() {
        let wanted: Vec<(&str, i64)> =
            wanted.iter().map(|&(name, count)| (name, i64::try_from(count.max(1)).unwrap_or(i64::MAX))).collect();
        let firsts = conn.pool().take_ids(&wanted)?;
        for (&(name, count), first) in wanted.iter().zip(firsts) {
            conn.reserve(name, first, count);
        }
    }
    let _ = (tx, wanted);
    Ok(())
}

/// The next number of the sequence `name`, taken in `tx` on every database: it becomes
/// visible with what `tx` writes, and only then (a revision other services compare).
pub(crate) fn next_revision(tx: &Tx<'_>, name: &str) -> Result<i64> {
    in_transaction(tx, name, 1)
}

/// Takes `count` numbers of the sequence `name` in `tx`; returns the first.
fn in_transaction(tx: &Tx<'_>, name: &str, count: i64) -> Result<i64> {
    // A read and a plain update: `UPDATE ... RETURNING` builds a temporary table and a
    // statement journal for its one row, and cost three times as much. The transaction
    // is the caller's, so nothing can come between the two.
    let last = last_id(tx, name)?;
    let next = last.checked_add(count).ok_or_else(|| Error::internal(format!("the sequence {name} is exhausted")))?;
    set_last_id(tx, name, next)?;
    Ok(last + 1)
}

/// Records `last` as the last number taken from the sequence `name` (creating it).
pub(crate) fn set_last_id(tx: &Tx<'_>, name: &str, last: i64) -> Result<()> {
    let updated = tx.execute("UPDATE id_sequences SET last = ?2 WHERE name = ?1", args![name, last])?;
    if updated == 0 {
        tx.execute("INSERT INTO id_sequences (name, last) VALUES (?1, ?2)", args![name, last])?;
    }
    Ok(())
}

/// The last number taken from the sequence `name` (0 before the first).
pub(crate) fn last_id(conn: &Read<'_>, name: &str) -> Result<i64> {
    let last = conn.row("SELECT last FROM id_sequences WHERE name = ?1", args![name], |r| r.get(0))?;
    Ok(last.unwrap_or(0))
}

/// Databases for the unit tests of other modules.
#[cfg(test)]
pub(crate) mod testing {
    use rusqlite::Connection;

    /// A temporary directory of this test process, named after `name`, removed on drop.
    pub(crate) struct TempDir(pub(crate) std::path::PathBuf);

    impl TempDir {
        pub(crate) fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("consign-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// An in-memory database of schema `version` (the current schema when `None`) that
    /// holds one customer, `C1`, with no ledger entry.
    pub(crate) fn with_customer(version: Option<i64>) -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        super::configure(&conn).unwrap();
        match version {
            Some(version) => super::create_at(&conn, version).unwrap(),
            None => super::migrate(&mut conn).unwrap(),
        }
        conn.execute_batch(
            "INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
                minimum_balance_cents, recharge_amount_cents, created_at) VALUES ('C1', 'a', 'a', '', 'Default', '{}', '{}', 0, 0, '');",
        )
        .unwrap();
        conn
    }
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
        conn.pragma_update(None, "application_id", APPLICATION_ID).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
        let e = migrate(&mut conn).unwrap_err();
        assert!(e.message().contains("newer consign"), "{}", e.message());
    }

    #[test]
    fn tables_without_a_schema_version_are_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE notes (text TEXT)").unwrap();
        let e = migrate(&mut conn).unwrap_err();
        assert!(e.message().contains("not a consign database: it holds tables but no schema version"), "{}", e.message());
    }

    #[test]
    fn new_and_upgraded_databases_carry_the_application_id() {
        let id = |c: &Connection| c.query_row("PRAGMA application_id", [], |r| r.get::<_, i32>(0)).unwrap();
        let mut fresh = Connection::open_in_memory().unwrap();
        migrate(&mut fresh).unwrap();
        assert_eq!(id(&fresh), APPLICATION_ID);
        let mut old = Connection::open_in_memory().unwrap();
        create_at(&old, 1).unwrap();
        assert_eq!(id(&old), 0, "schema 1 had no mark");
        migrate(&mut old).unwrap();
        assert_eq!(id(&old), APPLICATION_ID);
        assert_eq!(APPLICATION_ID.to_be_bytes(), *b"CSGN");
    }

    /// [`MIGRATIONS`] names every file of `core/migrations/` and nothing else, in the
    /// order of their names, each numbered with the schema it brings a database to: a new
    /// file left out of the list would never run natively, and the WebAssembly package,
    /// which embeds the whole folder, would disagree with native builds.
    #[test]
    fn migrations_lists_the_folder_in_order() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut files: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect();
        files.sort();
        assert_eq!(files, MIGRATIONS, "core/migrations/ and store::MIGRATIONS disagree: list every file there, in order");
        for (i, file) in MIGRATIONS.iter().enumerate() {
            assert!(file.starts_with(&format!("{:04}_", i + 1)) && file.ends_with(".sql"), "{file} at position {}", i + 1);
        }
        assert_eq!(history().len(), MIGRATIONS.len());
    }

    #[test]
    fn normalising_keeps_string_literals_and_drops_comments_and_layout() {
        assert_eq!(normalise("CREATE TABLE t (\n  a TEXT, -- note\n  b \"x\" )"), "CREATE TABLE t (a TEXT, b x)");
        // a `--` inside a literal is no comment: what follows it stays part of the text
        assert_eq!(normalise("CHECK (a != '--') , b"), "CHECK (a != '--'), b");
        assert_eq!(normalise("DEFAULT 'it''s -- here'"), "DEFAULT 'it''s -- here'");
    }

    fn schema_of(conn: &Connection) -> Vec<SchemaObject> {
        schema_objects(conn).unwrap()
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
    /// `ALTER TABLE customers ADD COLUMN nickname TEXT;`, is added to `MIGRATIONS`.
    #[test]
    fn upgrades_end_at_the_current_schema() {
        let mut fresh_conn = Connection::open_in_memory().unwrap();
        migrate(&mut fresh_conn).unwrap();
        let fresh = schema_of(&fresh_conn);
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
        // The application id lives in the header, not in sqlite_schema.
        let id = |c: &Connection| c.query_row("PRAGMA application_id", [], |r| r.get::<_, i32>(0)).unwrap();
        assert_eq!((id(&fresh_conn), id(&conn)), (APPLICATION_ID, APPLICATION_ID), "new and upgraded databases carry the mark");
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

    use super::testing::TempDir;

    /// A consign database image whose sequence `x` is at 41.
    fn image() -> Vec<u8> {
        let mut conn = Connection::open_in_memory().unwrap();
        configure(&conn).unwrap();
        migrate(&mut conn).unwrap();
        conn.execute("INSERT INTO id_sequences (name, last) VALUES ('x', 41)", []).unwrap();
        serialize(&mut conn).unwrap()
    }

    /// `image()` changed by `sql`, run without consign's safeguards (as a hand-made file).
    fn image_with(sql: &str) -> Vec<u8> {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.deserialize_read_exact(rusqlite::MAIN_DB, image().as_slice(), image().len(), false).unwrap();
        conn.execute_batch(sql).unwrap();
        serialize(&mut conn).unwrap()
    }

    fn last_x(c: &Connection) -> i64 {
        c.query_row("SELECT last FROM id_sequences WHERE name = 'x'", [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn an_image_restores_into_memory_and_into_a_file() {
        // The source is a file in WAL mode, as the native library writes them.
        let dir = TempDir::new("restore");
        let mut conn = Connection::open(dir.0.join("source.db")).unwrap();
        configure(&conn).unwrap();
        migrate(&mut conn).unwrap();
        conn.execute("INSERT INTO id_sequences (name, last) VALUES ('x', 41)", []).unwrap();
        let image = serialize(&mut conn).unwrap();
        assert!(image.starts_with(b"SQLite format 3\0"));
        assert_eq!(&image[18..20], &[1, 1], "marked as a rollback-journal image");

        let memory = check_image(&image).unwrap();
        assert_eq!(last_x(&memory), 41);

        let mut file = Connection::open(dir.0.join("restored.db")).unwrap();
        restore(&mut file, &memory).unwrap();
        assert_eq!(last_x(&file), 41);

        let e = check_image(b"not a database").unwrap_err();
        assert_eq!(e.category(), ErrorCategory::InvalidRequest);
        assert_eq!(e.details()[0].field, "bytes");
    }

    #[test]
    fn an_image_of_schema_one_is_accepted_and_upgraded() {
        let mut conn = Connection::open_in_memory().unwrap();
        create_at(&conn, 1).unwrap();
        let old = serialize(&mut conn).unwrap();
        let mut checked = check_image(&old).unwrap();
        migrate(&mut checked).unwrap();
        let v: i64 = checked.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, SCHEMA_VERSION);
    }

    #[test]
    fn images_that_are_not_whole_consign_databases_are_refused() {
        let refused = |bytes: &[u8]| {
            let e = check_image(bytes).map(drop).unwrap_err();
            assert_eq!((e.category(), e.details()[0].field.as_str()), (ErrorCategory::InvalidRequest, "bytes"), "{}", e.message());
            e.message().to_string()
        };
        let newer = image_with(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1));
        assert!(refused(&newer).contains(&format!("written by a newer consign (schema {})", SCHEMA_VERSION + 1)));
        let trigger = image_with("CREATE TRIGGER steal AFTER INSERT ON id_sequences BEGIN DELETE FROM catalog; END;");
        assert!(
            refused(&trigger)
                .contains(&format!("does not have consign's schema {SCHEMA_VERSION}: it has trigger steal that consign does not")),
            "{}",
            refused(&trigger)
        );
        let view = image_with("CREATE VIEW v AS SELECT 1");
        assert!(refused(&view).contains("it has view v that consign does not"));
        let changed = image_with("DROP INDEX shipments_by_quote; CREATE INDEX shipments_by_quote ON shipments(quote_id)");
        assert!(refused(&changed).contains("it has index shipments_by_quote that consign does not, and lacks index shipments_by_quote"));
        let unmarked = image_with("PRAGMA application_id = 0");
        assert!(refused(&unmarked)
            .contains(&format!("not a consign database: it has schema version {SCHEMA_VERSION} but not consign's application id")));
        let foreign = image_with("PRAGMA application_id = 7");
        assert!(refused(&foreign).contains("application id 0x00000007"));
        let mut empty = Connection::open_in_memory().unwrap();
        assert!(refused(&serialize(&mut empty).unwrap()).contains("empty"));

        // A damaged image: a page of the middle overwritten. SQLite either cannot read the
        // schema or finds the damage in its integrity check.
        let mut corrupt = image();
        let page = 4096 * 5;
        corrupt[page..page + 4096].iter_mut().enumerate().for_each(|(i, b)| *b = (i * 7 % 251) as u8);
        assert!(refused(&corrupt).contains("damaged"), "{}", refused(&corrupt));
        let truncated = &image()[..4096 * 3];
        assert!(refused(truncated).contains("damaged"), "{}", refused(truncated));
    }

    #[test]
    fn another_applications_file_is_refused_and_left_as_it_was() {
        let dir = TempDir::new("foreign");
        let path = dir.0.join("theirs.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');").unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        let e = configure(&conn).unwrap_err();
        assert!(e.message().contains("not a consign database: it holds tables but no schema version"), "{}", e.message());
        drop(conn);
        assert_eq!(std::fs::read(&path).unwrap(), before, "not switched to WAL, nothing added");
        assert!(!dir.0.join("theirs.db-wal").exists());

        // Another application's file with a schema version of its own, and one with its own mark.
        for pragma in [
            "PRAGMA user_version = 1",
            "PRAGMA user_version = 3",
            "PRAGMA application_id = 42",
            "PRAGMA application_id = 1129531214; PRAGMA user_version = 0",
        ] {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(pragma).unwrap();
            let before = std::fs::read(&path).unwrap();
            assert!(configure(&conn).is_err(), "{pragma}");
            drop(conn);
            assert_eq!(std::fs::read(&path).unwrap(), before, "{pragma}: left as it was");
        }
    }

    #[test]
    fn an_image_is_not_restored_over_another_applications_file() {
        let dir = TempDir::new("restore-foreign");
        let path = dir.0.join("theirs.db");
        let mut conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE notes (text TEXT)").unwrap();
        let checked = check_image(&image()).unwrap();
        assert!(restore(&mut conn, &checked).is_err());
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0)).unwrap();
        assert_eq!(tables, 1);
    }

    #[test]
    fn the_schema_cannot_be_written_through_sql() {
        let conn = Connection::open_in_memory().unwrap();
        configure(&conn).unwrap();
        // Defensive mode: writable_schema is refused even when asked for.
        conn.execute_batch("PRAGMA writable_schema = ON").unwrap();
        let e = conn.execute("INSERT INTO sqlite_schema VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x (a)')", []);
        assert!(e.is_err());
        let trusted: i64 = conn.query_row("PRAGMA trusted_schema", [], |r| r.get(0)).unwrap();
        assert_eq!(trusted, 0);
    }

    #[test]
    fn sequences_count_from_one() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let tx = conn.transaction().unwrap();
        assert_eq!(next_id(&crate::store::Tx::of(&tx), "x").unwrap(), 1);
        assert_eq!(next_id(&crate::store::Tx::of(&tx), "x").unwrap(), 2);
        assert_eq!(next_id(&crate::store::Tx::of(&tx), "y").unwrap(), 1);
        assert_eq!(last_id(&crate::store::Read::of(&tx), "z").unwrap(), 0);
        // a claim of several returns the first of them; the next claim follows the last
        assert_eq!(next_ids(&crate::store::Tx::of(&tx), "z", 3).unwrap(), 1);
        assert_eq!(last_id(&crate::store::Read::of(&tx), "z").unwrap(), 3);
        assert_eq!(next_ids(&crate::store::Tx::of(&tx), "x", 4).unwrap(), 3);
        assert_eq!(next_id(&crate::store::Tx::of(&tx), "x").unwrap(), 7);
        assert_eq!(next_ids(&crate::store::Tx::of(&tx), "y", 0).unwrap(), 2, "a claim of none takes one");
    }
}
